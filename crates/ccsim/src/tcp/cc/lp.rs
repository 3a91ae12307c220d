//! TCP-LP (Low Priority) — Kuzmanovic & Knightly, "TCP-LP: A Distributed Algorithm for Low
//! Priority Data Transfer", INFOCOM 2003; as Linux `net/ipv4/tcp_lp.c` (and ns-3 `TcpLp`,
//! which follows it).
//!
//! TCP-LP uses only the capacity other flows leave: it reads an *early congestion indication*
//! from the one-way delay before the queue overflows, and backs off before Reno flows do.
//! Every delay sample d updates a smoothed delay `sd ← 7/8·sd + 1/8·d` and the smallest and
//! largest delays seen; an indication is
//!
//! ```text
//! sd > d_min + δ·(d_max − d_min)        δ = 0.15
//! ```
//!
//! The first indication halves the window and starts the inference phase: for the inference
//! timeout the window does not grow, and a second indication within it means other traffic is
//! there: the window drops to one segment. Otherwise growth is Reno's, and a loss is Reno's.
//!
//! Linux's details, kept: the smoothed delay in eighths (`sowd`), the largest delay kept one
//! step behind the largest sample (a reserve, `owd_max_rsv`: a single spike does not widen the
//! range); after each indication the range restarts from the smoothed delay, `d_min = sd`,
//! `d_max = 2·sd` (Linux's "FIXME" reset, so that the next indication needs a new rise); the
//! test in whole microseconds, `⌊δ·(d_max − d_min)⌋`; a cut does not touch
//! ssthresh, so a window halved below it slow-starts back (as in Linux, whose initial ssthresh
//! is infinite); no growth while in the inference phase, whatever the state.
//!
//! Departures. **One-way delay**: Linux reads it from TCP timestamps (the receiver's clock
//! against the echoed sender's, so up to the unknown offset between the clocks); ns-3 from its
//! common clock. ccsim's algorithms see the RTT sample only (`AckSample::rtt`), so the forward
//! delay is estimated as the queueing delay, `RTT − BaseRTT` (BaseRTT the smallest sample;
//! exact when the reverse path does not queue), plus `BaseRTT/2`, the forward propagation
//! delay of a symmetric path: ns-3's value on such a path. The constant part cancels in the
//! indication test; it matters only in the reset above. **Inference timeout**: `inference`
//! seconds (default 1 s), or, with `inference_rtts`, that many times the latest RTT sample
//! (Linux and ns-3: 3 × `now − tsecr`). **Where the cut is applied**: Linux cuts the window in
//! its `pkts_acked` hook, in any state; ccsim's hook sees the state read-only, so a cut is
//! applied at the next ACK the sender hands to `cong_avoid` (the same ACK, in the Open state,
//! when the window is in use), and the indication's time is when it was detected. The window
//! is continuous (the halving is exact). **The first sample**: Linux tests `sd < threshold`,
//! so its very first sample (d_min = d_max = sd) is an indication and halves the window; the
//! paper's test is `sd > threshold` for an indication, as ns-3's `≤` for "within", which ccsim
//! follows. The RTT samples are the sender's (see `veno.rs`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{self, ParamError};
use super::reno::Reno;
use super::{AckSample, BuildContext, CcConfig, CongestionControl, TcpState};
use crate::time::SimTime;

/// TCP-LP's parameters.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LpConfig {
    /// Fraction of the delay range (d_max − d_min) above d_min at which the smoothed one-way
    /// delay is an early congestion indication, δ. Default 0.15 (the paper; Linux's `15/100`).
    pub threshold: Option<f64>,
    /// Inference timeout, seconds: a second indication within it after a cut sets the window
    /// to one segment, and the window does not grow during it. Default 1.
    pub inference: Option<f64>,
    /// Instead of `inference`: the timeout as this many times the latest RTT sample (Linux and
    /// ns-3: 3). Default none.
    pub inference_rtts: Option<f64>,
}

impl CcConfig for LpConfig {
    type Algorithm = Lp;

    fn build(&self, _ctx: &BuildContext) -> Result<Lp, ParamError> {
        let threshold = param::fraction("threshold", self.threshold.unwrap_or(0.15))?;
        let timeout = match (self.inference, self.inference_rtts) {
            (Some(_), Some(_)) => {
                return Err((
                    "inference_rtts",
                    "give either inference or inference_rtts, not both".to_string(),
                ))
            }
            (_, Some(n)) => Inference::Rtts(param::positive("inference_rtts", n)?),
            (s, None) => {
                let s = param::positive("inference", s.unwrap_or(1.0))?;
                Inference::Fixed(SimTime::from_secs_f64(s))
            }
        };
        Ok(Lp {
            threshold_ppm: (threshold * 1e6).round() as u64,
            timeout,
            inference: match timeout {
                Inference::Fixed(t) => t,
                Inference::Rtts(_) => SimTime::ZERO, // Linux's 0 until the first sample
            },
            base_rtt_us: u64::MAX,
            sowd: 0,
            owd_min: u64::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            within_inference: false,
            cut: Cut::None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Inference {
    Fixed(SimTime),
    Rtts(f64),
}

/// A reduction decided by an indication and not yet applied.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cut {
    None,
    Halve,
    ToOne,
}

#[derive(Clone, Debug)]
pub struct Lp {
    /// δ, parts per million.
    threshold_ppm: u64,
    timeout: Inference,
    /// The inference timeout in force (Linux `inference`).
    inference: SimTime,
    /// Smallest RTT sample, µs: the base of the one-way delay estimate.
    base_rtt_us: u64,
    /// Smoothed one-way delay in 1/8 µs; 0: no sample yet (Linux `sowd`).
    sowd: u64,
    /// Smallest and largest one-way delay, µs, and the reserve behind the largest (Linux
    /// `owd_min`, `owd_max`, `owd_max_rsv`).
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
    /// When the last indication cut the window (Linux `last_drop`).
    last_drop: Option<SimTime>,
    /// Linux `LP_WITHIN_INF`, as of the last ACK.
    within_inference: bool,
    cut: Cut,
}

impl Lp {
    /// Linux `tcp_lp_rtt_sample`, for a one-way delay `owd` in µs.
    fn owd_sample(&mut self, owd: u64) {
        if owd == 0 {
            return; // Linux: not a valid delay
        }
        self.owd_min = self.owd_min.min(owd);
        // The largest delay lags one sample behind the largest seen.
        if owd > self.owd_max {
            if owd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 {
                    owd
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        // sd ← 7/8·sd + 1/8·d, in eighths.
        if self.sowd != 0 {
            self.sowd = (self.sowd as i64 + owd as i64 - (self.sowd >> 3) as i64).max(0) as u64;
        } else {
            self.sowd = owd << 3;
        }
    }

    /// Whether the smoothed delay is below the indication threshold.
    fn within_threshold(&self) -> bool {
        if self.owd_max < self.owd_min {
            return true; // no range yet (Linux's unsigned arithmetic gives the same)
        }
        // δ in parts per million, so that 0.15 gives Linux's integer 15·range/100 exactly.
        let margin = (self.owd_max - self.owd_min) * self.threshold_ppm / 1_000_000;
        (self.sowd >> 3) <= self.owd_min + margin
    }
}

impl CongestionControl for Lp {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        Reno.ssthresh(st)
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        let now = st.now;
        if let Some(r) = ack.rtt {
            let rtt = r.as_nanos() / 1000;
            self.base_rtt_us = self.base_rtt_us.min(rtt);
            // Forward delay: queueing delay plus half the base RTT (module notes).
            self.owd_sample(rtt - self.base_rtt_us / 2);
            if let Inference::Rtts(n) = self.timeout {
                self.inference = SimTime::from_secs_f64(n * r.as_secs_f64());
            }
        }
        self.within_inference = self
            .last_drop
            .is_some_and(|t| now.saturating_sub(t) < self.inference);
        if self.within_threshold() {
            return;
        }
        // An early congestion indication: restart the range from here.
        let sd = self.sowd >> 3;
        (self.owd_min, self.owd_max, self.owd_max_rsv) = (sd, 2 * sd, 2 * sd);
        // A second indication within the timeout (or a cut to one still waiting): one segment.
        self.cut = if self.within_inference || self.cut == Cut::ToOne {
            Cut::ToOne
        } else {
            Cut::Halve
        };
        self.last_drop = Some(now);
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        match std::mem::replace(&mut self.cut, Cut::None) {
            Cut::None => {}
            Cut::Halve => st.cwnd = (st.cwnd / 2.0).max(1.0),
            Cut::ToOne => st.cwnd = 1.0,
        }
        if !self.within_inference {
            Reno.cong_avoid(st, ack);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn lp() -> Lp {
        LpConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    fn at(ms: u64) -> TcpState {
        let mut st = test_state(20.0, 10.0);
        st.now = SimTime::from_millis(ms);
        st
    }

    #[test]
    fn the_maximum_lags_one_sample_behind_the_largest() {
        let mut l = lp();
        l.owd_sample(50_000);
        assert_eq!(
            (l.owd_min, l.owd_max, l.owd_max_rsv),
            (50_000, 50_000, 50_000)
        );
        l.owd_sample(58_000); // above the reserve: the maximum takes the reserve
        assert_eq!((l.owd_max, l.owd_max_rsv), (50_000, 58_000));
        l.owd_sample(54_000); // above the maximum, below the reserve: the maximum
        assert_eq!((l.owd_max, l.owd_max_rsv), (54_000, 58_000));
        l.owd_sample(60_000);
        assert_eq!(
            (l.owd_min, l.owd_max, l.owd_max_rsv),
            (50_000, 58_000, 60_000)
        );
    }

    #[test]
    fn the_delay_is_smoothed_by_eighths_and_a_rise_is_an_indication() {
        let mut l = lp();
        let st = at(0);
        // First sample 100 ms: BaseRTT 100000 µs, delay 100000 − 50000 = 50000; sd = 50000,
        // the threshold 50000 + 0: within (not above).
        l.pkts_acked(&st, &test_ack(1.0, Some(100)));
        assert_eq!(l.sowd, 400_000);
        assert_eq!(l.cut, Cut::None);
        // 108 ms: delay 58000; sd·8 = 400000 + 58000 − 50000 = 408000 (sd 51000), above the
        // threshold 50000 + ⌊0.15·(50000 − 50000)⌋ = 50000 (the maximum lags): halve, and the
        // range restarts from sd: [51000, 102000].
        l.pkts_acked(&st, &test_ack(1.0, Some(108)));
        assert_eq!(l.sowd, 408_000);
        assert_eq!(l.cut, Cut::Halve);
        assert_eq!(
            (l.owd_min, l.owd_max, l.owd_max_rsv),
            (51_000, 102_000, 102_000)
        );
        // 104 ms: delay 54000; sd·8 = 408000 + 54000 − 51000 = 411000 (51375), below
        // 51000 + ⌊0.15·51000⌋ = 58650.
        l.pkts_acked(&st, &test_ack(1.0, Some(104)));
        assert_eq!(l.sowd, 411_000);
        assert!(l.within_threshold());
    }

    /// TCP-LP with the range [50000, 70000] µs (threshold 50000 + 3000 = 53000) and a smoothed
    /// delay of `sd` µs.
    fn ranged(sd: u64) -> Lp {
        let mut l = lp();
        (l.owd_min, l.owd_max, l.owd_max_rsv, l.sowd) = (50_000, 70_000, 70_000, sd << 3);
        l
    }

    #[test]
    fn an_indication_halves_and_a_second_within_the_timeout_sets_one_segment() {
        let mut l = ranged(52_999);
        let mut st = at(1000);
        l.pkts_acked(&st, &test_ack(1.0, None)); // 52999 ≤ 53000: within
        assert_eq!(l.cut, Cut::None);
        l.sowd = 53_000 << 3; // the threshold itself is still within
        l.pkts_acked(&st, &test_ack(1.0, None));
        assert_eq!(l.cut, Cut::None);
        l.sowd = 53_001 << 3; // above: an indication at 1 s
        l.pkts_acked(&st, &test_ack(1.0, None));
        assert_eq!(
            (l.cut, l.last_drop),
            (Cut::Halve, Some(SimTime::from_secs(1)))
        );
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        // Halved, then Reno's growth (not yet in the inference phase on this ACK): 10 + 1/10.
        assert!((st.cwnd - 10.1).abs() < 1e-12, "{}", st.cwnd);
        // New range [53001, 106002]: threshold 53001 + ⌊0.15·53001⌋ = 60951. At 1.5 s, inside
        // the 1 s timeout: no growth; sd 61000 is an indication: one segment.
        let mut st = at(1500);
        st.cwnd = 12.0;
        l.pkts_acked(&st, &test_ack(1.0, None));
        assert!(l.within_inference);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 12.0);
        l.sowd = 61_000 << 3;
        l.pkts_acked(&st, &test_ack(1.0, None));
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 1.0);
        // Range [61000, 122000], threshold 61000 + 9150 = 70150; at 2.5 s, exactly 1 s after
        // the last cut (not less): the inference is over; 70151 is an indication: halve.
        let mut st = at(2500);
        l.sowd = 70_150 << 3;
        l.pkts_acked(&st, &test_ack(1.0, None));
        assert_eq!(l.cut, Cut::None);
        l.sowd = 70_151 << 3;
        l.pkts_acked(&st, &test_ack(1.0, None));
        assert!(!l.within_inference);
        assert_eq!(l.cut, Cut::Halve);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 10.1).abs() < 1e-12, "{}", st.cwnd);
    }

    #[test]
    fn the_inference_timeout_may_follow_the_rtt() {
        let mut l = LpConfig {
            inference_rtts: Some(3.0),
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        assert_eq!(l.inference, SimTime::ZERO);
        l.pkts_acked(&at(0), &test_ack(1.0, Some(100)));
        assert_eq!(l.inference, SimTime::from_millis(300));
        // A cut at 1 s is within the inference at 1.299 s, not at 1.3 s.
        l.last_drop = Some(SimTime::from_secs(1));
        l.pkts_acked(&at(1299), &test_ack(1.0, None));
        assert!(l.within_inference);
        l.pkts_acked(&at(1300), &test_ack(1.0, None));
        assert!(!l.within_inference);
    }

    #[test]
    fn a_cut_does_not_touch_ssthresh_so_slow_start_resumes() {
        let mut l = ranged(60_000);
        let mut st = at(0);
        st.ssthresh = f64::INFINITY;
        st.cwnd = 40.0;
        l.pkts_acked(&st, &test_ack(1.0, None));
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!((st.cwnd, st.ssthresh), (21.0, f64::INFINITY)); // 40/2, then +1
                                                                   // A loss is Reno's.
        assert_eq!(l.ssthresh(&test_state(30.0, 100.0)), 15.0);
    }

    #[test]
    fn no_range_no_indication() {
        // Before any valid sample min > max: within the threshold.
        let mut l = lp();
        l.pkts_acked(&at(0), &test_ack(1.0, None));
        assert_eq!(l.cut, Cut::None);
    }

    #[test]
    fn config_checks() {
        let bad = |c: LpConfig| c.build(&test_ctx(Profile::Linux)).unwrap_err().0;
        let d = LpConfig::default;
        assert_eq!(
            bad(LpConfig {
                threshold: Some(1.5),
                ..d()
            }),
            "threshold"
        );
        assert_eq!(
            bad(LpConfig {
                inference: Some(0.0),
                ..d()
            }),
            "inference"
        );
        assert_eq!(
            bad(LpConfig {
                inference_rtts: Some(-3.0),
                ..d()
            }),
            "inference_rtts"
        );
        let both = LpConfig {
            inference: Some(1.0),
            inference_rtts: Some(3.0),
            ..d()
        };
        assert_eq!(bad(both), "inference_rtts");
        assert_eq!(lp().inference, SimTime::from_secs(1));
        let e = serde_json::from_str::<LpConfig>(r#"{"delta": 0.1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `delta`"), "{e}");
    }
}
