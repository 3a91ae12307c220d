//! TCP Illinois — Liu, Başar & Srikant (2008), as Linux `tcp_illinois.c` (spec §9.2).
//!
//! Loss decides the direction, delay the amount: once per round the average queueing delay
//! `da` (mean RTT − base RTT) against the largest seen `dm` (max RTT − base RTT) sets the
//! additive increase α ∈ [0.3, 10] (large while queues are empty) and the decrease β ∈
//! [1/8, 1/2] (small while queues are empty). Avoidance adds α/cwnd per segment acknowledged;
//! a loss sets ssthresh = cwnd·(1 − β). Below `win_thresh` segments it is Reno (α 1, β ½).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    slow_start, AckSample, BuildContext, CaState, CcConfig, CongestionControl, ParamError, TcpState,
};
use crate::time::SimTime;

const ALPHA_MIN: f64 = 0.3;
const ALPHA_MAX: f64 = 10.0;
const ALPHA_BASE: f64 = 1.0;
const BETA_MIN: f64 = 0.125;
const BETA_MAX: f64 = 0.5;
const BETA_BASE: f64 = 0.5;

#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IllinoisConfig {
    /// Window below which Illinois is Reno (Linux `win_thresh` 15 segments).
    #[serde(default)]
    pub win_thresh: Option<f64>,
    /// Low-delay rounds needed before α returns to its maximum (Linux `theta` 5).
    #[serde(default)]
    pub theta: Option<u32>,
}

impl CcConfig for IllinoisConfig {
    type Algorithm = Illinois;

    fn build(&self, _ctx: &BuildContext) -> Result<Illinois, ParamError> {
        let win_thresh = self.win_thresh.unwrap_or(15.0);
        if !(win_thresh.is_finite() && win_thresh >= 0.0) {
            return Err(("win_thresh", format!("{win_thresh} is not a window ≥ 0")));
        }
        Ok(Illinois {
            win_thresh,
            theta: self.theta.unwrap_or(5),
            alpha: ALPHA_MAX,
            beta: BETA_BASE,
            base_rtt: SimTime::MAX,
            max_rtt: SimTime::ZERO,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            end_seq: 0,
            rtt_above: false,
            rtt_low_cnt: 0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Illinois {
    win_thresh: f64,
    theta: u32,
    alpha: f64,
    beta: f64,
    base_rtt: SimTime,
    max_rtt: SimTime,
    /// This round's RTT samples: their sum (seconds) and count.
    sum_rtt: f64,
    cnt_rtt: u32,
    /// The round ends when an ACK passes this segment.
    end_seq: u64,
    /// Delay has left the low zone since α was last at its maximum.
    rtt_above: bool,
    rtt_low_cnt: u32,
}

impl Illinois {
    /// Linux `alpha()`: α from the average and maximum queueing delays (seconds).
    fn alpha_for(&mut self, da: f64, dm: f64) -> f64 {
        let d1 = dm / 100.0;
        if da <= d1 {
            // Low delay: α_max, but only after `theta` low rounds once delay has been high,
            // so that one good round does not cause a sudden burst.
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            self.rtt_low_cnt += 1;
            if self.rtt_low_cnt < self.theta {
                return self.alpha;
            }
            self.rtt_low_cnt = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        // κ1/(κ2 + da) form of the paper, anchored at α(d1) = α_max and α(dm) = α_min.
        let (dm, da) = (dm - d1, da - d1);
        dm * ALPHA_MAX / (dm + da * (ALPHA_MAX - ALPHA_MIN) / ALPHA_MIN)
    }

    /// Linux `beta()`: β_min below dm/10, β_max above 8·dm/10, linear in between.
    fn beta_for(da: f64, dm: f64) -> f64 {
        let d2 = dm / 10.0;
        let d3 = 8.0 * dm / 10.0;
        if da <= d2 {
            BETA_MIN
        } else if da >= d3 || d3 <= d2 {
            BETA_MAX
        } else {
            (BETA_MIN * d3 - BETA_MAX * d2 + (BETA_MAX - BETA_MIN) * da) / (d3 - d2)
        }
    }

    fn update_params(&mut self, st: &TcpState) {
        if st.cwnd < self.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let base = self.base_rtt.as_secs_f64();
            let dm = self.max_rtt.as_secs_f64() - base;
            let da = self.sum_rtt / self.cnt_rtt as f64 - base;
            self.alpha = self.alpha_for(da, dm);
            self.beta = Self::beta_for(da, dm);
        }
        self.reset_round(st);
    }

    fn reset_round(&mut self, st: &TcpState) {
        self.end_seq = st.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0.0;
    }
}

impl CongestionControl for Illinois {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        (st.cwnd * (1.0 - self.beta)).max(2.0)
    }

    fn pkts_acked(&mut self, _st: &TcpState, ack: &AckSample) {
        if let Some(r) = ack.rtt {
            self.base_rtt = self.base_rtt.min(r);
            self.max_rtt = self.max_rtt.max(r);
            self.sum_rtt += r.as_secs_f64();
            self.cnt_rtt += 1;
        }
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if st.snd_una > self.end_seq {
            self.update_params(st);
        }
        if st.in_slow_start() {
            slow_start(st, ack.acked);
        } else {
            st.cwnd += self.alpha * ack.acked / st.cwnd;
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        if new == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low_cnt = 0;
            self.rtt_above = false;
            self.reset_round(st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn illinois() -> Illinois {
        IllinoisConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    #[test]
    fn alpha_and_beta_curves_by_hand() {
        // dm = 100 ms: d1 = 1 ms, d2 = 10 ms, d3 = 80 ms.
        let mut c = illinois();
        let dm = 0.100;
        // da = 50 ms: α = 0.099·10 / (0.099 + 0.049·9.7/0.3) = 0.99 / 1.683333 = 0.588119
        let a = c.alpha_for(0.050, dm);
        assert!((a - 0.99 / (0.099 + 0.049 * 9.7 / 0.3)).abs() < 1e-12);
        assert!((a - 0.588_119).abs() < 1e-6);
        // da = dm: α = α_min exactly.
        assert!((c.alpha_for(dm, dm) - ALPHA_MIN).abs() < 1e-12);
        // β: 1/8 at or below 10 ms, 1/2 at or above 80 ms, and at 45 ms (midway) 0.3125.
        assert_eq!(Illinois::beta_for(0.010, dm), 0.125);
        assert_eq!(Illinois::beta_for(0.080, dm), 0.5);
        assert!((Illinois::beta_for(0.045, dm) - 0.3125).abs() < 1e-12);
    }

    #[test]
    fn alpha_returns_to_max_only_after_theta_low_delay_rounds() {
        let mut c = illinois();
        c.alpha = c.alpha_for(0.050, 0.100); // delay was high
        let high = c.alpha;
        for _ in 0..4 {
            assert_eq!(c.alpha_for(0.0, 0.100), high); // rounds 1–4 keep α
        }
        assert_eq!(c.alpha_for(0.0, 0.100), ALPHA_MAX); // the 5th restores α_max
    }

    #[test]
    fn increase_and_decrease_use_alpha_and_beta() {
        // cwnd 100 with α 10: +10/100 per segment; loss with β 1/8 → 87.5.
        let mut c = illinois();
        let mut st = test_state(100.0, 50.0);
        st.snd_una = 0; // inside the round: no parameter update
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 100.1).abs() < 1e-12);
        c.beta = BETA_MIN;
        assert!((c.ssthresh(&test_state(100.0, 50.0)) - 87.5).abs() < 1e-12);
        // Below win_thresh the round update makes it Reno: α 1, β ½.
        let mut st = test_state(10.0, 5.0);
        st.snd_una = 11;
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!((c.alpha, c.beta), (1.0, 0.5));
    }
}
