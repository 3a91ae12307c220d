//! DCTCP — Data Center TCP (Alizadeh et al., SIGCOMM 2010; RFC 8257), in the form of Linux
//! `net/ipv4/tcp_dctcp.c`.
//!
//! A DCTCP sender estimates the fraction of its packets that the network marks CE and cuts its
//! window in proportion, instead of halving at every sign of congestion. With a queue that
//! marks every packet above a small threshold K (the step queue, `queue/step.rs`), the flows
//! hold the queue just above K at full utilisation.
//!
//! ```text
//! once per window of data (when SND.UNA passes the SND.NXT of the last update):
//!     F = marked / delivered             over that window
//!     α ← (1 − g)·α + g·F,  g = 1/16     (RFC 8257 §3.3; α starts at 1, Linux)
//! on a window with marks (once per window, the sender's CWR state):
//!     ssthresh = cwnd = max(cwnd − cwnd·α/2, 2)
//! on a loss (fast recovery or timeout):
//!     ssthresh = max(cwnd/2, 2)          (Linux `dctcp_react_to_loss`)
//! growth: Reno's (slow start, then one segment per window)
//! ```
//!
//! α is kept as Linux keeps it, in units of 1/1024, and updated with its integer arithmetic:
//! `α −= min_not_zero(α, α >> 4)` (so α below 16/1024 decays to zero at once), then
//! `α += (marked << 6) / delivered`, capped at 1024; ssthresh subtracts `(cwnd·α) >> 11`.
//! The receiver echoes the CE state of every packet (`EcnFeedback::PerPacket`, RFC 8257
//! §3.2): the segments the ACKs with ECE acknowledge are the marked ones (`AckSample::ce`).
//!
//! Departures: Linux counts the segments SACKed by duplicate ACKs as delivered; here a window's
//! `delivered` is what the cumulative ACKs acknowledge (its marked count includes marks reported
//! on duplicate ACKs), which differs only in windows with losses. Linux's `undo_cwnd` has no
//! counterpart (ccsim undoes no reduction).

use schemars::JsonSchema;
use serde::Deserialize;

use super::marked::{halve_on_loss, MarkedRound};
use super::{
    AckSample, BuildContext, CaEvent, CaState, CcConfig, CongestionControl, EcnFeedback, EcnUse,
    ParamError, Reno, TcpState,
};

/// α's unit: Linux's `DCTCP_MAX_ALPHA`.
const MAX_ALPHA: u32 = 1024;

/// DCTCP's parameters, named as Linux's module parameters.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DctcpConfig {
    /// The EWMA gain g = 1/2^shift_g (Linux `dctcp_shift_g`; RFC 8257 §4.2 recommends
    /// g = 1/16). Default 4; 0 to 10.
    #[serde(default)]
    pub shift_g: Option<u32>,
    /// α's initial value, in units of 1/1024 (Linux `dctcp_alpha_on_init`; the default 1024
    /// makes the first reduction a halving, as RFC 8257 §3.3 advises). 0 to 1024.
    #[serde(default)]
    pub alpha_on_init: Option<u32>,
    /// Send ECT(1) instead of Linux's ECT(0), so that an L4S queue (DualPI2, RFC 9331 §4's
    /// identifier) takes the flow into its low-latency queue, as L4S experiments run DCTCP.
    /// Default false.
    #[serde(default)]
    pub ect1: Option<bool>,
}

impl CcConfig for DctcpConfig {
    type Algorithm = Dctcp;

    fn build(&self, _ctx: &BuildContext) -> Result<Dctcp, ParamError> {
        let shift_g = self.shift_g.unwrap_or(4);
        if shift_g > 10 {
            return Err(("shift_g", format!("must be 0 to 10, got {shift_g}")));
        }
        let alpha = self.alpha_on_init.unwrap_or(MAX_ALPHA);
        if alpha > MAX_ALPHA {
            return Err((
                "alpha_on_init",
                format!("must be 0 to {MAX_ALPHA} (units of 1/1024), got {alpha}"),
            ));
        }
        Ok(Dctcp {
            ect1: self.ect1.unwrap_or(false),
            shift_g: shift_g as u8,
            alpha,
            round: MarkedRound::default(),
        })
    }
}

/// DCTCP's state (Linux `struct dctcp`).
#[derive(Clone, Debug)]
pub struct Dctcp {
    ect1: bool,
    shift_g: u8,
    /// α in units of 1/1024.
    alpha: u32,
    /// The window being measured.
    round: MarkedRound,
}

impl Dctcp {
    /// The end of a window: α from its marked fraction (Linux `dctcp_update_alpha`).
    fn update_alpha(&mut self) {
        let mut a = self.alpha;
        // min_not_zero: subtract α >> g, or all of α when that is zero.
        let dec = a >> self.shift_g;
        a -= if dec == 0 { a } else { dec };
        let r = &self.round;
        if r.marked > 0 {
            let inc = ((r.marked as u64) << (10 - self.shift_g)) / r.delivered.max(1) as u64;
            a = (a as u64 + inc).min(MAX_ALPHA as u64) as u32;
        }
        self.alpha = a;
    }
}

impl CongestionControl for Dctcp {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        // Linux: max(cwnd − (cwnd·α >> 11), 2) on the integer window.
        let w = st.cwnd.floor().max(0.0) as u64;
        (w - ((w * self.alpha as u64) >> 11)).max(2) as f64
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        Reno.cong_avoid(st, ack);
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        self.round.add(ack);
        if self.round.ended(st) {
            self.update_alpha();
            self.round.restart(st);
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        if new == CaState::Recovery {
            halve_on_loss(st);
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        if ev == CaEvent::Timeout {
            halve_on_loss(st);
        }
    }

    fn init(&mut self, st: &mut TcpState) {
        self.round.restart(st);
    }

    fn needs_ecn(&self) -> Option<EcnUse> {
        Some(EcnUse {
            ect1: self.ect1,
            feedback: EcnFeedback::PerPacket,
        })
    }

    fn ecn_alpha(&self) -> Option<f64> {
        Some(self.alpha as f64 / MAX_ALPHA as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn dctcp() -> Dctcp {
        DctcpConfig {
            shift_g: None,
            alpha_on_init: None,
            ect1: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap()
    }

    fn acked(c: &mut Dctcp, st: &mut TcpState, segs: u64, ce: u64) {
        st.snd_una += segs;
        let mut a = test_ack(segs as f64, None);
        a.ce = ce;
        c.pkts_acked(st, &a);
    }

    #[test]
    fn first_reduction_halves_because_alpha_starts_at_one() {
        let c = dctcp();
        assert_eq!(c.ecn_alpha(), Some(1.0));
        // cwnd 40: 40 − (40·1024 >> 11) = 40 − 20 = 20.
        assert_eq!(c.ssthresh(&test_state(40.0, 100.0)), 20.0);
        // Never below 2: cwnd 3 → 3 − (3072 >> 11 = 1) = 2; cwnd 2 → 2 − 1 = 1 → 2.
        assert_eq!(c.ssthresh(&test_state(3.0, 100.0)), 2.0);
        assert_eq!(c.ssthresh(&test_state(2.0, 100.0)), 2.0);
    }

    #[test]
    fn alpha_follows_the_marked_fraction_once_per_window() {
        let mut c = dctcp();
        let mut st = test_state(10.0, 5.0);
        st.snd_una = 0;
        st.snd_nxt = 10;
        c.init(&mut st);
        assert_eq!(c.round.next_seq, 10);
        // Window 1: 10 segments, 5 marked, in two ACKs; α changes only at its end.
        acked(&mut c, &mut st, 6, 3);
        assert_eq!(c.alpha, 1024);
        st.snd_nxt = 20;
        acked(&mut c, &mut st, 4, 2);
        // α = 1024 − (1024 >> 4 = 64) = 960; + (5 << 6) / 10 = 320 / 10 = 32 → 992.
        assert_eq!(c.alpha, 992);
        assert_eq!(c.round.next_seq, 20);
        // Window 2: 10 segments, none marked: 992 − 62 = 930.
        acked(&mut c, &mut st, 10, 0);
        assert_eq!(c.alpha, 930);
        // ssthresh at cwnd 100: 100 − (100·930 >> 11 = 93000 / 2048 = 45) = 55.
        assert_eq!(c.ssthresh(&test_state(100.0, 200.0)), 55.0);
    }

    #[test]
    fn alpha_converges_to_g_weighted_fraction_and_small_alpha_drops_to_zero() {
        let mut c = dctcp();
        c.alpha = 15;
        let mut st = test_state(10.0, 5.0);
        st.snd_nxt = 10;
        // 15 >> 4 = 0: min_not_zero takes all of α.
        acked(&mut c, &mut st, 10, 0);
        assert_eq!(c.alpha, 0);
        // Every packet marked, window after window: α climbs toward 1024 by g·(1024 − α) a
        // window; from 0: +64 → 64, then 64 − 4 + 64 = 124.
        for expect in [64, 124] {
            st.snd_nxt = st.snd_una + 10;
            acked(&mut c, &mut st, 10, 10);
            assert_eq!(c.alpha, expect);
        }
    }

    #[test]
    fn a_loss_halves_whatever_alpha() {
        let mut c = dctcp();
        c.alpha = 100;
        let mut st = test_state(41.0, 100.0);
        c.set_state(&mut st, CaState::Recovery);
        assert_eq!(st.ssthresh, 20.0);
        let mut st = test_state(3.0, 100.0);
        c.cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(st.ssthresh, 2.0);
        // The ECN state causes no loss reaction.
        let mut st = test_state(41.0, 100.0);
        c.set_state(&mut st, CaState::Cwr);
        assert_eq!(st.ssthresh, 100.0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = DctcpConfig {
            shift_g: Some(11),
            alpha_on_init: None,
            ect1: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap_err();
        assert_eq!(e.0, "shift_g");
        let e = DctcpConfig {
            shift_g: None,
            alpha_on_init: Some(1025),
            ect1: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap_err();
        assert_eq!(e.0, "alpha_on_init");
    }

    #[test]
    fn sends_ect0_as_linux_or_ect1_when_asked() {
        let with = |ect1| {
            DctcpConfig {
                shift_g: None,
                alpha_on_init: None,
                ect1,
            }
            .build(&test_ctx(Profile::Linux))
            .unwrap()
            .needs_ecn()
            .unwrap()
        };
        assert!(!with(None).ect1);
        assert!(with(Some(true)).ect1);
        assert_eq!(with(Some(true)).feedback, EcnFeedback::PerPacket);
    }
}
