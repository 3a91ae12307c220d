//! TCP Prague — the L4S scalable congestion control (draft-briscoe-iccrg-prague-congestion-
//! control; the L4S team's Linux `net/ipv4/tcp_prague.c`, v0.6).
//!
//! Prague is DCTCP made safe for the Internet (RFC 9331 §4): it sends ECT(1), the L4S
//! identifier, so that a DualPI2 queue (`queue/dualpi2.rs`) puts it in the low-latency queue;
//! it needs Accurate ECN feedback (`tcp/accecn.rs`) to count the marks; it paces; it halves on a
//! loss; and it grows as if its round trip were at least 25 ms, so that a short-RTT flow does
//! not starve a long one (RTT independence).
//!
//! ```text
//! once per round (SND.UNA passes the SND.NXT of the last update), and no more often than
//! every rtt_target (25 ms), after the first CE mark:
//!     α ← (1 − g)·α + g·F,   F = marked / delivered over the round,   g = 1/16, α from 1
//! on a round with marks (the sender's CWR state, at most every rtt_target):
//!     cwnd = max(cwnd·(1 − α/2), 2)
//! on a loss:  ssthresh = max(cwnd/2, 2)
//! growth: slow start, then (acked − marked)/cwnd per ACK, × (srtt/rtt_target)² once the flow
//!         has spent rtt_transition rounds in congestion avoidance with srtt below the target
//! pacing: cwnd·MTU/srtt, × 2 while cwnd < ssthresh/2 (Linux's rule at ratios MTU/MSS)
//! ```
//!
//! Departures from the Linux module: it sets its window through Linux's `cong_control` with a
//! fractional window that the integer window follows by one segment per ACK; here the sender's
//! window rules apply (the reduction at once on entering CWR, no growth on ACKs with a mark)
//! with the same targets. Without Accurate ECN (a receiver that does not support it) the sender
//! falls back to classic ECN feedback rather than to Reno without ECN.

use schemars::JsonSchema;
use serde::Deserialize;

use super::marked::{halve_on_loss, MarkedRound};
use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig,
    CongestionControl, EcnFeedback, EcnUse, ParamError, TcpState,
};
use crate::config::units::Duration;
use crate::time::SimTime;

/// IPv4 (20), TCP (20) and timestamp (12) header bytes: MTU − MSS on a Linux host.
const MSS_TO_MTU: u32 = 52;

/// α's unit (1 = 2^20, Linux `PRAGUE_ALPHA_BITS`).
const ONE: u64 = 1 << 20;

/// Prague's parameters, named as the Linux module's.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PragueConfig {
    /// The RTT the flow behaves as if it had at least (`prague_rtt_target`). Default 25 ms.
    #[serde(default)]
    pub rtt_target: Option<Duration>,
    /// Rounds of congestion avoidance before the growth is scaled to the target RTT
    /// (`prague_rtt_transition`). Default 500.
    #[serde(default)]
    pub rtt_transition: Option<u32>,
    /// RTT independence on (`prague_rtt_scaling`, RTT_CONTROL_RATE) or off. Default true.
    #[serde(default)]
    pub rtt_scaling: Option<bool>,
}

impl CcConfig for PragueConfig {
    type Algorithm = Prague;

    fn build(&self, ctx: &BuildContext) -> Result<Prague, ParamError> {
        let target = self.rtt_target.map_or(SimTime::from_millis(25), |d| d.0);
        if target == SimTime::ZERO || target > SimTime::from_secs(10) {
            return Err(("rtt_target", "must be positive and at most 10 s".into()));
        }
        // `prague_update_pacing_rate`: a window of whole packets (MTU, `tcp_mss_to_mtu`) per
        // smoothed RTT, doubled below ssthresh/2; Linux's rule counts segments (MSS), hence
        // the ratios. The pacer spaces TCP segments without their IP header: the difference
        // lets the flight fill the window, so that it grows.
        let mtu = 100.0 * (ctx.mss + MSS_TO_MTU) as f64 / ctx.mss as f64;
        Ok(Prague {
            ratios: (2.0 * mtu, mtu),
            target,
            transition: self.rtt_transition.unwrap_or(500),
            scaling: self.rtt_scaling.unwrap_or(true),
            alpha: ONE as u32,
            saw_ce: false,
            stamp: SimTime::ZERO,
            cwr_stamp: None,
            refused_at: None,
            rounds: 0,
            round: MarkedRound::default(),
        })
    }
}

/// Prague's state.
#[derive(Clone, Debug)]
pub struct Prague {
    /// Linux's pacing rule's ratios that give Prague's rate.
    ratios: (f64, f64),
    target: SimTime,
    transition: u32,
    scaling: bool,
    /// α in units of 2^-20.
    alpha: u32,
    saw_ce: bool,
    /// When α was last updated, and when the window was last cut for marks.
    stamp: SimTime,
    cwr_stamp: Option<SimTime>,
    /// The instant of an ECN echo whose cut was refused (too soon after the last cut): the
    /// refusal does not restart the interval, as `prague_enter_cwr` stamps only a reduction it
    /// makes — else a flow marked every round would never be cut again.
    refused_at: Option<SimTime>,
    /// Rounds spent in congestion avoidance.
    rounds: u32,
    /// The round being measured.
    round: MarkedRound,
}

impl Prague {
    /// Whether RTT independence is in force: after the transition, outside slow start, with a
    /// measured RTT below the target.
    fn rtt_independent(&self, st: &TcpState) -> bool {
        self.scaling
            && self.rounds >= self.transition
            && !st.in_slow_start()
            && st.srtt > SimTime::ZERO
            && st.srtt < self.target
    }

    /// The end of a round: α from its marked fraction (`prague_update_alpha`).
    fn update_alpha(&mut self) {
        let r = &self.round;
        let f = (r.marked as u64 * ONE) / r.delivered.max(1) as u64;
        let a = self.alpha as u64;
        self.alpha = (a - (a >> 4) + (f >> 4)).min(ONE) as u32;
    }
}

impl CongestionControl for Prague {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        // A reduction for marks at most once per rtt_target when RTT-independent: decided on
        // the echo (`cwnd_event`), which comes first.
        if st.ca_state == CaState::Open && self.refused_at == Some(st.now) {
            return st.cwnd;
        }
        let w = st.cwnd;
        (w - w * self.alpha as f64 / (2 * ONE) as f64).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        let acked = (ack.acked - ack.ce as f64).max(0.0);
        let left = if st.in_slow_start() {
            slow_start(st, acked)
        } else {
            acked
        };
        if left > 0.0 {
            let scale = if self.rtt_independent(st) {
                let r = st.srtt.as_secs_f64() / self.target.as_secs_f64();
                r * r
            } else {
                1.0
            };
            cong_avoid_ai(st, st.cwnd, left * scale);
        }
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        self.round.add(ack);
        self.saw_ce |= ack.ce > 0;
        let waited = !self.rtt_independent(st) || st.now.saturating_sub(self.stamp) >= self.target;
        if self.round.ended(st) && waited {
            if self.saw_ce {
                self.update_alpha();
            }
            self.round.restart(st);
            self.stamp = st.now;
            if !st.in_slow_start() {
                self.rounds = self.rounds.saturating_add(1);
            }
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        if new == CaState::Recovery {
            halve_on_loss(st);
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        match ev {
            CaEvent::EcnEcho => {
                let recent = self
                    .cwr_stamp
                    .is_some_and(|t| st.now.saturating_sub(t) < self.target);
                if self.rtt_independent(st) && recent {
                    self.refused_at = Some(st.now);
                } else {
                    self.cwr_stamp = Some(st.now);
                    self.refused_at = None;
                }
            }
            CaEvent::Timeout => halve_on_loss(st),
            _ => {}
        }
    }

    fn init(&mut self, st: &mut TcpState) {
        self.round.restart(st);
        self.stamp = st.now;
    }

    fn wants_pacing(&self) -> bool {
        true
    }

    fn pacing_ratios(&self) -> Option<(f64, f64)> {
        Some(self.ratios)
    }

    fn needs_ecn(&self) -> Option<EcnUse> {
        Some(EcnUse {
            ect1: true,
            feedback: EcnFeedback::Accurate,
        })
    }

    fn ecn_alpha(&self) -> Option<f64> {
        Some(self.alpha as f64 / ONE as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn prague() -> Prague {
        PragueConfig {
            rtt_target: None,
            rtt_transition: None,
            rtt_scaling: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap()
    }

    fn acked(c: &mut Prague, st: &mut TcpState, segs: u64, ce: u64) {
        st.snd_una += segs;
        let mut a = test_ack(segs as f64, None);
        a.ce = ce;
        c.pkts_acked(st, &a);
    }

    #[test]
    fn alpha_waits_for_the_first_mark_then_follows_the_fraction() {
        let mut c = prague();
        let mut st = test_state(10.0, 5.0);
        st.snd_nxt = 10;
        c.init(&mut st);
        // A round without marks: α stays 1 (Linux updates only after the first CE).
        st.snd_nxt = 20;
        acked(&mut c, &mut st, 10, 0);
        assert_eq!(c.alpha, 1 << 20);
        // A round with 4 of 10 marked: α = 1 − 1/16 + 0.4/16 = 0.9625.
        st.snd_nxt = 30;
        acked(&mut c, &mut st, 10, 4);
        assert!((c.ecn_alpha().unwrap() - 0.9625).abs() < 1e-5);
        // ssthresh at cwnd 100: 100·(1 − 0.9625/2) = 51.875.
        assert!((c.ssthresh(&test_state(100.0, 200.0)) - 51.875).abs() < 1e-3);
    }

    #[test]
    fn marked_segments_earn_no_growth_and_loss_halves() {
        let mut c = prague();
        let mut st = test_state(20.0, 10.0);
        st.srtt = SimTime::from_millis(50);
        let mut a = test_ack(2.0, None);
        a.ce = 1;
        c.cong_avoid(&mut st, &a);
        // One unmarked segment: +1/20.
        assert!((st.cwnd - 20.05).abs() < 1e-12);
        // Paced by Linux's rule at MTU/MSS: 105.2 % (and 210.4 % below ssthresh/2).
        assert_eq!(c.pacing_ratios(), Some((210.4, 105.2)));
        let mut st = test_state(41.0, 100.0);
        c.set_state(&mut st, CaState::Recovery);
        assert_eq!(st.ssthresh, 20.0);
    }

    #[test]
    fn growth_is_scaled_to_the_target_rtt_after_the_transition() {
        let mut c = PragueConfig {
            rtt_target: None,
            rtt_transition: Some(0),
            rtt_scaling: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        let mut st = test_state(20.0, 10.0);
        st.srtt = SimTime::from_millis(5);
        c.cong_avoid(&mut st, &test_ack(2.0, None));
        // (5/25)² = 0.04 of Reno's 2/20.
        assert!((st.cwnd - (20.0 + 0.1 * 0.04)).abs() < 1e-12);
    }

    #[test]
    fn cuts_for_marks_come_at_most_every_target_rtt_and_a_refusal_does_not_count() {
        // Marks on every round of an 11 ms path, RTT-independent: an ECN echo at 0 ms cuts,
        // one at 11 ms is refused (11 < 25), one at 26 ms cuts again (26 ms since the cut at 0;
        // had the refused echo restarted the interval it would be 15 ms and refused too).
        let mut c = PragueConfig {
            rtt_target: None,
            rtt_transition: Some(0),
            rtt_scaling: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        let mut st = test_state(40.0, 30.0);
        st.srtt = SimTime::from_millis(11);
        let echo = |c: &mut Prague, st: &mut TcpState, ms: u64| {
            st.now = SimTime::from_millis(ms);
            c.cwnd_event(st, CaEvent::EcnEcho);
            c.ssthresh(st) < st.cwnd
        };
        assert!(echo(&mut c, &mut st, 0));
        assert!(!echo(&mut c, &mut st, 11));
        assert!(echo(&mut c, &mut st, 26));
        assert!(!echo(&mut c, &mut st, 40));
        // Not RTT-independent (srtt above the target): every echo cuts.
        st.srtt = SimTime::from_millis(30);
        assert!(echo(&mut c, &mut st, 41));
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = PragueConfig {
            rtt_target: Some(Duration(SimTime::ZERO)),
            rtt_transition: None,
            rtt_scaling: None,
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap_err();
        assert_eq!(e.0, "rtt_target");
    }
}
