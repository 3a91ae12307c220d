//! TCP Vegas — Brakmo & Peterson (1995), as Linux `tcp_vegas.c` (default) or ns-2's
//! `Agent/TCP/Vegas` (`variant = "ns2"`, the default under the ns2 profile); spec §3.
//!
//! Both estimate the flow's packets queued in the network once per round trip,
//! `diff = (Expected − Actual)·BaseRTT`, and nudge the window by one segment to keep it between
//! α and β; slow start ends when diff exceeds γ. They differ in α/β (2/4 vs 1/3), in the RTT
//! used (the round's minimum vs its mean), in slow start (every round vs every other round) and
//! in the loss response (Reno's halving vs ns-2's window × ¾). ns-2's fine-grained Vegas
//! retransmission timer is not modelled: losses go through the connection's loss recovery.

use schemars::JsonSchema;
use serde::Deserialize;

use super::reno::Reno;
use super::{
    slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig, CongestionControl, ParamError,
    TcpState,
};
use crate::config::Profile;
use crate::time::SimTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VegasVariant {
    /// Linux `tcp_vegas.c`.
    Linux,
    /// ns-2.35 `tcp-vegas.cc`.
    Ns2,
}

/// Vegas parameters, in packets queued in the network.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VegasConfig {
    /// Implementation to follow; default "ns2" under the ns2 profile, otherwise "linux".
    #[serde(default)]
    pub variant: Option<VegasVariant>,
    /// Grow while fewer than α packets are queued (Linux 2, ns-2 `v_alpha_` 1).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Shrink while more than β packets are queued (Linux 4, ns-2 `v_beta_` 3).
    #[serde(default)]
    pub beta: Option<f64>,
    /// Leave slow start above γ queued packets (Linux and ns-2: 1).
    #[serde(default)]
    pub gamma: Option<f64>,
}

impl CcConfig for VegasConfig {
    type Algorithm = Vegas;

    fn build(&self, ctx: &BuildContext) -> Result<Vegas, ParamError> {
        let ns2_profile = ctx.profile == Profile::Ns2;
        let variant = self.variant.unwrap_or(if ns2_profile {
            VegasVariant::Ns2
        } else {
            VegasVariant::Linux
        });
        let (a, b) = match variant {
            VegasVariant::Linux => (2.0, 4.0),
            VegasVariant::Ns2 => (1.0, 3.0),
        };
        let alpha = self.alpha.unwrap_or(a);
        let beta = self.beta.unwrap_or(b);
        let gamma = self.gamma.unwrap_or(1.0);
        for (name, v) in [("alpha", alpha), ("beta", beta), ("gamma", gamma)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err((name, format!("{v} is not a number of packets ≥ 0")));
            }
        }
        if beta < alpha {
            return Err(("beta", format!("{beta} is below alpha ({alpha})")));
        }
        Ok(Vegas {
            variant,
            alpha,
            beta,
            gamma,
            enabled: true,
            beg_snd_nxt: 0,
            base_rtt: SimTime::MAX,
            round_min: SimTime::MAX,
            round_sum: 0.0,
            cnt_rtt: 0,
            growing_round: true,
            per_ack: 0.0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    variant: VegasVariant,
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Linux `doing_vegas_now`: off outside the Open state.
    enabled: bool,
    /// The round ends when an ACK passes this segment.
    beg_snd_nxt: u64,
    base_rtt: SimTime,
    round_min: SimTime,
    /// Sum of the round's RTT samples, seconds (ns-2 uses their mean).
    round_sum: f64,
    cnt_rtt: u32,
    /// ns-2 slow start acts every other round: whether this round grows.
    growing_round: bool,
    /// ns-2: the increase each ACK applies during the current round (1 in a growing slow-start
    /// round, 1/cwnd when below α in avoidance, else 0).
    per_ack: f64,
}

impl Vegas {
    fn reset_round(&mut self, st: &TcpState) {
        self.beg_snd_nxt = st.snd_nxt;
        self.round_min = SimTime::MAX;
        self.round_sum = 0.0;
        self.cnt_rtt = 0;
    }

    /// Linux `tcp_vegas_cong_avoid`, once per round with at least 3 RTT samples.
    fn linux_round(&mut self, st: &mut TcpState, ack: &AckSample) {
        let base = self.base_rtt.as_secs_f64();
        let rtt = self.round_min.as_secs_f64();
        let cwnd = st.cwnd.floor();
        // Integer arithmetic in Linux: both quantities are truncated to whole packets.
        let target = (cwnd * base / rtt).floor();
        let diff = (cwnd * (rtt - base) / base).floor();
        if st.in_slow_start() {
            if diff > self.gamma {
                // Going too fast: back to the target (+1) and leave slow start.
                st.cwnd = st.cwnd.min(target + 1.0);
                st.ssthresh = st.ssthresh.min(st.cwnd);
            } else {
                slow_start(st, ack.acked);
            }
        } else if diff > self.beta {
            st.cwnd -= 1.0;
            st.ssthresh = st.ssthresh.min(st.cwnd);
        } else if diff < self.alpha {
            st.cwnd += 1.0;
        }
        st.cwnd = st.cwnd.max(2.0);
        // `tcp_current_ssthresh` in the Open state: at least ¾ of the window.
        st.ssthresh = st.ssthresh.max(0.75 * st.cwnd);
    }

    /// ns-2 `VegasTcpAgent::recv_newack_helper`, at the end of a round.
    fn ns2_round(&mut self, st: &mut TcpState, sent_last_round: f64) {
        self.per_ack = 0.0;
        if self.cnt_rtt == 0 {
            return;
        }
        let rtt = self.round_sum / self.cnt_rtt as f64;
        let mut base = self.base_rtt.as_secs_f64();
        if rtt < base {
            base = rtt;
            self.base_rtt = SimTime::from_secs_f64(rtt);
        }
        let outstanding = st.snd_nxt.saturating_sub(st.snd_una) as f64;
        let expect = outstanding / base;
        let actual = sent_last_round / rtt;
        let delta = ((expect - actual) * base + 0.5).floor();
        if st.in_slow_start() {
            // Exponential growth only every other round, so the measurement round is clean.
            self.growing_round = !self.growing_round;
            if !self.growing_round {
                return;
            }
            if delta > self.gamma {
                st.ssthresh = 2.0;
                st.cwnd = (st.cwnd - st.cwnd / 8.0).max(2.0);
            } else {
                self.per_ack = 1.0;
            }
        } else if delta > self.beta {
            st.cwnd = (st.cwnd - 1.0).max(2.0);
        } else if delta < self.alpha {
            self.per_ack = 1.0 / st.cwnd;
        }
    }
}

impl CongestionControl for Vegas {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        match self.variant {
            VegasVariant::Linux => Reno.ssthresh(st),
            // ns-2: `win = 2` for a window of 3 or less, otherwise `win -= win/4`.
            VegasVariant::Ns2 => {
                let w = st.cwnd.min(st.rwnd);
                if w <= 3.0 {
                    2.0
                } else {
                    w - w / 4.0
                }
            }
        }
    }

    fn pkts_acked(&mut self, _st: &TcpState, ack: &AckSample) {
        if let Some(r) = ack.rtt {
            // Linux adds 1 µs so that a zero RTT never reads as "no sample".
            let r = r.max(SimTime::from_nanos(1000));
            self.base_rtt = match self.variant {
                VegasVariant::Linux => self.base_rtt.min(r),
                // ns-2 updates its base from the round's mean at the round's end.
                VegasVariant::Ns2 if self.base_rtt == SimTime::MAX => r,
                VegasVariant::Ns2 => self.base_rtt,
            };
            self.round_min = self.round_min.min(r);
            self.round_sum += r.as_secs_f64();
            self.cnt_rtt += 1;
        }
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if !self.enabled {
            Reno.cong_avoid(st, ack);
            return;
        }
        let round_over = st.snd_una > self.beg_snd_nxt;
        match self.variant {
            VegasVariant::Linux => {
                if round_over {
                    if self.cnt_rtt <= 2 {
                        // Too few samples (delayed ACKs, or a tiny window): behave as Reno.
                        Reno.cong_avoid(st, ack);
                    } else {
                        self.linux_round(st, ack);
                    }
                    self.reset_round(st);
                } else if st.in_slow_start() {
                    slow_start(st, ack.acked);
                }
            }
            VegasVariant::Ns2 => {
                if round_over {
                    let sent = st.snd_nxt.saturating_sub(self.beg_snd_nxt) as f64;
                    self.ns2_round(st, sent);
                    self.reset_round(st);
                }
                // ns-2 grows only while the window is in use (cwnd − outstanding ≤ 2).
                let outstanding = st.snd_nxt.saturating_sub(st.snd_una) as f64;
                if st.cwnd - outstanding <= 2.0 {
                    st.cwnd += self.per_ack * ack.acked;
                }
            }
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        // Linux `tcp_vegas_state`: Vegas runs only in the Open state, afresh on return.
        let enable = new == CaState::Open;
        if enable && !self.enabled {
            self.reset_round(st);
        }
        self.enabled = enable;
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        if ev == CaEvent::TxStart {
            self.enabled = true;
            self.reset_round(st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;

    fn vegas(variant: VegasVariant) -> Vegas {
        VegasConfig {
            variant: Some(variant),
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap()
    }

    /// Runs one round: `n` ACKs each with `rtt_ms`, then one ACK that ends the round.
    fn round(v: &mut Vegas, st: &mut TcpState, n: u32, rtt_ms: u64) {
        for _ in 0..n {
            v.pkts_acked(st, &test_ack(1.0, Some(rtt_ms)));
        }
        st.snd_una = v.beg_snd_nxt + 1;
        v.cong_avoid(st, &test_ack(1.0, Some(rtt_ms)));
    }

    #[test]
    fn linux_grows_below_alpha_holds_between_and_shrinks_above_beta() {
        // BaseRTT 100 ms. cwnd 20 in avoidance (ssthresh 10).
        // RTT 105 ms: diff = floor(20·5/100) = 1 < α = 2 → cwnd 21.
        let mut v = vegas(VegasVariant::Linux);
        let mut st = test_state(20.0, 10.0);
        round(&mut v, &mut st, 3, 100); // establishes BaseRTT = 100 ms
        let mut st = test_state(20.0, 10.0);
        st.snd_una = 100;
        v.reset_round(&st);
        round(&mut v, &mut st, 3, 105);
        assert_eq!(st.cwnd, 21.0);
        // RTT 115 ms at cwnd 21: diff = floor(21·15/100) = floor(3.15) = 3 ∈ [2, 4] → hold.
        round(&mut v, &mut st, 3, 115);
        assert_eq!(st.cwnd, 21.0);
        // RTT 125 ms: diff = floor(21·25/100) = floor(5.25) = 5 > β = 4 → cwnd 20.
        round(&mut v, &mut st, 3, 125);
        assert_eq!(st.cwnd, 20.0);
    }

    #[test]
    fn linux_leaves_slow_start_at_the_target_window_when_diff_exceeds_gamma() {
        // BaseRTT 100 ms, cwnd 40 in slow start, round min RTT 150 ms:
        // diff = floor(40·50/100) = 20 > γ = 1; target = floor(40·100/150) = 26 → cwnd 27,
        // ssthresh = min(∞, 27) then max(27, ¾·27) = 27: slow start is over.
        let mut v = vegas(VegasVariant::Linux);
        let mut st = test_state(40.0, f64::INFINITY);
        round(&mut v, &mut st, 3, 100);
        let mut st = test_state(40.0, f64::INFINITY);
        st.snd_una = 100;
        v.reset_round(&st);
        round(&mut v, &mut st, 3, 150);
        assert_eq!(st.cwnd, 27.0);
        assert_eq!(st.ssthresh, 27.0);
        assert!(!st.in_slow_start());
    }

    #[test]
    fn linux_behaves_as_reno_with_two_samples_or_fewer() {
        let mut v = vegas(VegasVariant::Linux);
        let mut st = test_state(20.0, 10.0);
        round(&mut v, &mut st, 1, 100); // 2 samples in the round
        assert!((st.cwnd - 20.05).abs() < 1e-12); // Reno: +1/20
    }

    #[test]
    fn ns2_expected_minus_actual_from_outstanding_and_sent_packets() {
        // ns-2: BaseRTT 100 ms; 20 outstanding → expect = 200 pkt/s; 15 sent in the last round
        // at a mean RTT of 120 ms → actual = 125 pkt/s; delta = int((200−125)·0.1 + 0.5) = 8
        // > β = 3 → cwnd 20 → 19.
        let mut v = vegas(VegasVariant::Ns2);
        v.base_rtt = SimTime::from_millis(100);
        let mut st = test_state(20.0, 10.0);
        st.snd_una = 50;
        st.snd_nxt = 70;
        v.round_sum = 0.120 * 3.0;
        v.cnt_rtt = 3;
        v.ns2_round(&mut st, 15.0);
        assert_eq!(st.cwnd, 19.0);
        // Same but 19 sent: actual = 158.3; delta = int(4.17 + 0.5) = 4 > 3 → 18.
        v.round_sum = 0.120 * 3.0;
        v.ns2_round(&mut st, 19.0);
        assert_eq!(st.cwnd, 18.0);
        // 24 sent: actual 200 → delta = int(0.5) = 0 < α = 1 → +1/cwnd per ACK next round.
        v.round_sum = 0.120 * 3.0;
        v.ns2_round(&mut st, 24.0);
        assert!((v.per_ack - 1.0 / 18.0).abs() < 1e-12);
    }

    #[test]
    fn ns2_loss_response_is_three_quarters() {
        let v = vegas(VegasVariant::Ns2);
        assert_eq!(v.ssthresh(&test_state(40.0, 100.0)), 30.0);
        assert_eq!(v.ssthresh(&test_state(3.0, 100.0)), 2.0);
        assert_eq!(
            vegas(VegasVariant::Linux).ssthresh(&test_state(40.0, 100.0)),
            20.0
        );
    }

    #[test]
    fn config_defaults_follow_the_variant_and_reject_beta_below_alpha() {
        let v = VegasConfig::default()
            .build(&test_ctx(Profile::Ns2))
            .unwrap();
        assert_eq!((v.alpha, v.beta, v.gamma), (1.0, 3.0, 1.0));
        let v = VegasConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        assert_eq!((v.alpha, v.beta, v.gamma), (2.0, 4.0, 1.0));
        let bad = VegasConfig {
            alpha: Some(5.0),
            ..Default::default()
        };
        assert_eq!(bad.build(&test_ctx(Profile::Linux)).unwrap_err().0, "beta");
    }
}
