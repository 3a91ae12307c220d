//! The XCP sender — Katabi, Handley & Rohrs, SIGCOMM 2002 §3.2 (`docs/algorithms.md`
//! §11.1), with Sheela & Raja's window adjustment as an option (`docs/design.md`,
//! on the XCP window-adjustment paper).
//!
//! The sender stamps every data segment with its window, its RTT estimate and an unbounded
//! desired increase (`tcp/sender.rs`); routers lower the feedback to what their controllers
//! allow (`queue/xcp/`), the receiver echoes it, and on each ACK the window becomes
//! `max(cwnd + H_feedback, s)` — one segment at least (§3.2). The sender converts the header's
//! bytes on the wire into segments, so `feedback` here is in segments.
//!
//! Losses are handled "similar to TCP" (§3.2): Reno's halving through the sender's recovery,
//! whose window the feedback then moves again. During fast recovery the recovery owns the
//! window and feedback is not applied. Feedback no router lowered (no XCP router on the path)
//! is not an instruction: the window then grows as Reno's.
//!
//! **Window adjustment** (Sheela & Raja §3): an ACK whose congestion bit is set makes the window
//! `max(AR·RTT·f, 1 segment)`, `AR` the rate the routers admitted for the flow
//! (`(H_cwnd + H_feedback)/H_rtt`), RTT the sender's smoothed RTT, and `f` 0.02 where the queue
//! was at or above `Q_th`, 0.05 otherwise (the printed factors). The paper does not say how
//! often; by default, like an ECN response (RFC 3168 §6.1.2), it applies at most once per
//! smoothed RTT, and ACKs between apply their feedback as usual; `adjust_every = "ack"`
//! applies it on every ACK that carries the bit, the other reading.

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{fraction, ParamError};
use super::{
    AckSample, BuildContext, CaState, CcConfig, CongestionControl, Feedback, Reno, TcpState,
};
use crate::time::SimTime;

#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XcpConfig {
    /// React to the routers' congestion bit (Sheela & Raja's window adjustment; the routers
    /// need `congestion_threshold`). Default false.
    #[serde(default)]
    pub window_adjustment: Option<bool>,
    /// Factor of `AR·RTT` when the queue was at or above `Q_th`, in (0, 1). Default 0.02.
    #[serde(default)]
    pub high_factor: Option<f64>,
    /// Factor of `AR·RTT` otherwise, in (0, 1). Default 0.05.
    #[serde(default)]
    pub low_factor: Option<f64>,
    /// How often the congestion bit may set the window: "rtt" (at most once per smoothed
    /// RTT, as an ECN response) or "ack" (on every ACK that carries it). Default "rtt".
    #[serde(default)]
    pub adjust_every: Option<AdjustEvery>,
}

/// How often the window adjustment applies (the paper does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AdjustEvery {
    /// At most once per smoothed RTT; ACKs in between apply their feedback.
    Rtt,
    /// On every ACK whose congestion bit is set.
    Ack,
}

impl CcConfig for XcpConfig {
    type Algorithm = Xcp;

    fn build(&self, _ctx: &BuildContext) -> Result<Xcp, ParamError> {
        Ok(Xcp {
            adjust: self.window_adjustment.unwrap_or(false),
            high_factor: fraction("high_factor", self.high_factor.unwrap_or(0.02))?,
            low_factor: fraction("low_factor", self.low_factor.unwrap_or(0.05))?,
            every_ack: self.adjust_every == Some(AdjustEvery::Ack),
            next_adjust: SimTime::ZERO,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Xcp {
    adjust: bool,
    high_factor: f64,
    low_factor: f64,
    /// Adjust on every congested ACK, not at most once per RTT.
    every_ack: bool,
    /// No window adjustment before this time (once per RTT).
    next_adjust: SimTime,
}

impl CongestionControl for Xcp {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        Reno.ssthresh(st)
    }

    /// Only without XCP routers on the path (see the module comment).
    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        Reno.cong_avoid(st, ack)
    }

    fn wants_router_feedback(&self) -> bool {
        true
    }

    fn on_feedback(&mut self, st: &mut TcpState, fb: &Feedback) -> bool {
        let &Feedback::Xcp {
            feedback,
            admitted,
            congested,
            queue_high,
        } = fb;
        if !feedback.is_finite() {
            return false;
        }
        if st.ca_state == CaState::Recovery {
            return true;
        }
        if self.adjust && congested && (self.every_ack || st.now >= self.next_adjust) {
            let f = if queue_high {
                self.high_factor
            } else {
                self.low_factor
            };
            let rtt = st.srtt.as_secs_f64();
            st.cwnd = (admitted * rtt * f).max(1.0);
            self.next_adjust = st.now + st.srtt;
        } else {
            st.cwnd = (st.cwnd + feedback).max(1.0);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn fb(feedback: f64, admitted: f64, congested: bool, queue_high: bool) -> Feedback {
        Feedback::Xcp {
            feedback,
            admitted,
            congested,
            queue_high,
        }
    }

    #[test]
    fn feedback_moves_the_window_and_keeps_one_segment() {
        let mut x = XcpConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        let mut st = test_state(10.0, 5.0);
        assert!(x.on_feedback(&mut st, &fb(0.25, 0.0, false, false)));
        assert_eq!(st.cwnd, 10.25);
        assert!(x.on_feedback(&mut st, &fb(-3.0, 0.0, false, false)));
        assert_eq!(st.cwnd, 7.25);
        assert!(x.on_feedback(&mut st, &fb(-100.0, 0.0, false, false)));
        assert_eq!(st.cwnd, 1.0);
    }

    #[test]
    fn unlowered_feedback_leaves_the_window_to_reno() {
        let mut x = XcpConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        let mut st = test_state(10.0, 5.0);
        assert!(!x.on_feedback(&mut st, &fb(f64::INFINITY, 0.0, false, false)));
        assert_eq!(st.cwnd, 10.0);
        x.cong_avoid(&mut st, &super::super::test_ack(1.0, None));
        assert_eq!(st.cwnd, 10.1);
    }

    #[test]
    fn fast_recovery_owns_the_window() {
        let mut x = XcpConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        let mut st = test_state(10.0, 5.0);
        st.ca_state = CaState::Recovery;
        assert!(x.on_feedback(&mut st, &fb(2.0, 0.0, false, false)));
        assert_eq!(st.cwnd, 10.0);
    }

    #[test]
    fn congestion_bit_sets_the_window_from_the_admitted_rate_once_per_rtt() {
        let mut x = XcpConfig {
            window_adjustment: Some(true),
            ..XcpConfig::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        let mut st = test_state(100.0, 5.0);
        st.srtt = SimTime::from_millis(500);
        st.now = SimTime::from_secs(1);
        // AR = 1,000 segments/s, RTT 0.5 s: 500 segments; queue high: ×0.02 = 10.
        assert!(x.on_feedback(&mut st, &fb(1.0, 1000.0, true, true)));
        assert_eq!(st.cwnd, 10.0);
        // Within the RTT: the feedback applies instead.
        st.now = SimTime::from_millis(1400);
        x.on_feedback(&mut st, &fb(1.0, 1000.0, true, false));
        assert_eq!(st.cwnd, 11.0);
        // An RTT later, queue below Q_th: ×0.05 = 25.
        st.now = SimTime::from_millis(1500);
        x.on_feedback(&mut st, &fb(1.0, 1000.0, true, false));
        assert_eq!(st.cwnd, 25.0);
        // A tiny admitted rate still leaves one segment.
        st.now = SimTime::from_secs(3);
        x.on_feedback(&mut st, &fb(1.0, 1.0, true, true));
        assert_eq!(st.cwnd, 1.0);
    }

    #[test]
    fn adjusting_on_every_ack_ignores_the_rtt() {
        let mut x = XcpConfig {
            window_adjustment: Some(true),
            adjust_every: Some(AdjustEvery::Ack),
            ..XcpConfig::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        let mut st = test_state(100.0, 5.0);
        st.srtt = SimTime::from_millis(500);
        st.now = SimTime::from_secs(1);
        // AR = 1,000 segments/s, RTT 0.5 s: 500 segments; queue high: ×0.02 = 10.
        x.on_feedback(&mut st, &fb(1.0, 1000.0, true, true));
        assert_eq!(st.cwnd, 10.0);
        // 1 ms later, queue below Q_th: ×0.05 = 25 at once; a clear bit applies the feedback.
        st.now = SimTime::from_millis(1001);
        x.on_feedback(&mut st, &fb(1.0, 1000.0, true, false));
        assert_eq!(st.cwnd, 25.0);
        x.on_feedback(&mut st, &fb(3.0, 1000.0, false, false));
        assert_eq!(st.cwnd, 28.0);
    }

    #[test]
    fn without_the_option_the_bit_is_ignored() {
        let mut x = XcpConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        let mut st = test_state(100.0, 5.0);
        st.srtt = SimTime::from_millis(500);
        x.on_feedback(&mut st, &fb(1.0, 1000.0, true, true));
        assert_eq!(st.cwnd, 101.0);
    }

    #[test]
    fn factors_are_checked() {
        let e = XcpConfig {
            high_factor: Some(1.5),
            ..XcpConfig::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap_err();
        assert_eq!(e.0, "high_factor");
    }
}
