//! Scalable TCP — T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", CCR 33(2), 2003, in the form of Linux `tcp_scalable.c`. Spec §7.
//!
//! Multiplicative increase, multiplicative decrease: `cwnd += a` per segment acknowledged
//! (a = 0.01: the window grows 1 % per RTT) and a loss keeps `1 − b` of it (b = 0.125), so the
//! time to regain the window after a loss, `ln(1/(1 − b))/ln(1 + a) ≈ 13.4` RTTs, does not
//! depend on the window (spec §14).
//!
//! Linux writes the increase as `tcp_cong_avoid_ai(min(cwnd, ai_cnt), acked)`: one segment per
//! `min(cwnd, ai_cnt)` acknowledged, so a = 1/ai_cnt and below ai_cnt segments it grows like
//! Reno (one segment per RTT). The decrease is `cwnd − cwnd >> 3` at every window.
//!
//! - Current Linux: `TCP_SCALABLE_AI_CNT = 100` per acknowledged segment (`acked`).
//! - Linux 2.6.22, which ns-2.35 ships: 50 "to account for delayed ack", counted per ACK; under
//!   ns-2's ACK counting (`ack_counting = "acks"`, one per ACK) that is what `ai_cnt = 50` gives.
//!   ns-3 also uses 50, per segment (0.02 per segment, twice the paper's a). The 2.6.22 code
//!   adds a segment after `min(cwnd, 50) + 1` ACKs, an off-by-one not reproduced here.
//! - Kelly's paper uses Reno, growth and halving, up to a legacy window (often quoted as 16,
//!   unverified); `low_window` enables that for the decrease (default 0: Linux has none).

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{self, ParamError};
use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CcConfig, CongestionControl, TcpState,
};
use crate::config::Profile;

/// Scalable TCP's parameters.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ScalableConfig {
    /// Segments acknowledged (ACKs under `ack_counting = "acks"`) per one-segment increase,
    /// once the window is at least this large: a = 1/ai_cnt. Default 100 (current Linux
    /// `TCP_SCALABLE_AI_CNT`), 50 under the `ns2` profile (Linux 2.6.22 in ns-2.35).
    pub ai_cnt: Option<f64>,
    /// Fraction of the window a loss takes, b, in (0, 1). Default 0.125 (Linux
    /// `TCP_SCALABLE_MD_SCALE 3`: cwnd − cwnd/8; Kelly's b).
    pub b: Option<f64>,
    /// At or below this window a loss halves it, as Reno (Kelly's legacy window). Default 0:
    /// Linux, ns-2 and ns-3 have none.
    pub low_window: Option<f64>,
}

impl CcConfig for ScalableConfig {
    type Algorithm = Scalable;

    /// The algorithm with `profile`'s defaults, or the field and message of an invalid value.
    fn build(&self, ctx: &BuildContext) -> Result<Scalable, ParamError> {
        let profile = ctx.profile;
        let ai_cnt = self.ai_cnt.unwrap_or(match profile {
            Profile::Ns2 => 50.0,
            Profile::Linux | Profile::Rfc => 100.0,
        });
        Ok(Scalable {
            ai_cnt: param::at_least("ai_cnt", ai_cnt, 1.0)?,
            b: param::fraction("b", self.b.unwrap_or(0.125))?,
            low_window: param::at_least("low_window", self.low_window.unwrap_or(0.0), 0.0)?,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    ai_cnt: f64,
    b: f64,
    low_window: f64,
}

impl CongestionControl for Scalable {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        let w = st.cwnd.min(st.rwnd);
        let keep = if w <= self.low_window {
            0.5
        } else {
            1.0 - self.b
        };
        (w * keep).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            if acked <= 0.0 {
                return;
            }
        }
        let w = st.cwnd.min(self.ai_cnt);
        cong_avoid_ai(st, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;

    fn linux() -> Scalable {
        ScalableConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    #[test]
    fn increase_is_one_percent_per_segment_above_ai_cnt() {
        // cwnd 200 ≥ 100: +1/100 per segment acknowledged
        let mut st = test_state(200.0, 100.0);
        linux().cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 200.01).abs() < 1e-12, "{}", st.cwnd);
        // an ACK for two segments adds twice as much
        linux().cong_avoid(&mut st, &test_ack(2.0, None));
        assert!((st.cwnd - 200.03).abs() < 1e-12, "{}", st.cwnd);
        // one RTT (200 segments) at 200 adds about 2 segments: 1 % per RTT
        let mut st = test_state(200.0, 100.0);
        let mut s = linux();
        for _ in 0..200 {
            s.cong_avoid(&mut st, &test_ack(1.0, None));
        }
        assert!((st.cwnd - 202.0).abs() < 1e-9, "{}", st.cwnd);
    }

    #[test]
    fn below_ai_cnt_it_grows_like_reno() {
        // cwnd 50 < 100: +1/50 per segment, one segment per RTT
        let mut st = test_state(50.0, 10.0);
        linux().cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 50.02).abs() < 1e-12);
    }

    #[test]
    fn ns2_profile_uses_fifty() {
        // Linux 2.6.22 / ns-2.35: AI count 50, counted per ACK (acked = 1 under ns-2 counting)
        let mut s = ScalableConfig::default()
            .build(&test_ctx(Profile::Ns2))
            .unwrap();
        let mut st = test_state(200.0, 100.0);
        s.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 200.02).abs() < 1e-12);
    }

    #[test]
    fn decrease_keeps_seven_eighths() {
        let s = linux();
        assert_eq!(s.ssthresh(&test_state(200.0, 100.0)), 175.0); // 200 − 200/8
        assert_eq!(s.ssthresh(&test_state(16.0, 100.0)), 14.0); // no legacy window in Linux
        assert_eq!(s.ssthresh(&test_state(2.0, 100.0)), 2.0); // 1.75, floored at 2
        let mut capped = test_state(400.0, 100.0);
        capped.rwnd = 200.0;
        assert_eq!(s.ssthresh(&capped), 175.0); // min(cwnd, rwnd), as Reno here
    }

    #[test]
    fn legacy_window_halves() {
        let s = ScalableConfig {
            low_window: Some(16.0),
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        assert_eq!(s.ssthresh(&test_state(16.0, 100.0)), 8.0);
        assert_eq!(s.ssthresh(&test_state(24.0, 100.0)), 21.0); // 24·7/8
    }

    #[test]
    fn recovery_time_is_independent_of_the_window() {
        // After a loss at W the window is 7W/8 and grows ×(1 + 1/100) per RTT (one ACK per
        // segment): ln(8/7)/ln(1.01) = 0.133531/0.00995033 = 13.42 RTTs, for any W ≥ 115.
        for w in [200.0, 5000.0] {
            let mut s = linux();
            let mut st = test_state(w, f64::INFINITY);
            st.cwnd = s.ssthresh(&st);
            st.ssthresh = st.cwnd;
            let mut rtts = 0;
            while st.cwnd < w {
                let window = st.cwnd.floor() as usize; // one ACK per segment of the window
                for _ in 0..window {
                    s.cong_avoid(&mut st, &test_ack(1.0, None));
                }
                rtts += 1;
            }
            assert!((13..=15).contains(&rtts), "W {w}: {rtts} RTTs");
        }
    }

    #[test]
    fn invalid_parameters() {
        let err = |c: ScalableConfig| c.build(&test_ctx(Profile::Linux)).unwrap_err().0;
        assert_eq!(
            err(ScalableConfig {
                b: Some(0.0),
                ..Default::default()
            }),
            "b"
        );
        assert_eq!(
            err(ScalableConfig {
                ai_cnt: Some(0.5),
                ..Default::default()
            }),
            "ai_cnt"
        );
    }
}
