//! LEDBAT — Low Extra Delay Background Transport, RFC 6817 (Shalunov et al., 2012), on a TCP
//! sender as ns-3's `TcpLedbat` puts it.
//!
//! A background sender that aims at a fixed queueing delay, TARGET (100 ms), and so yields to
//! any loss-based flow, which pushes the delay past it. From one-way delay samples it keeps a
//! base delay (the minimum over the last BASE_HISTORY = 10 minutes, one minimum per minute)
//! and a current delay (the minimum of the last few samples, a noise filter), and on each ACK
//!
//! ```text
//! queuing_delay = current_delay − base_delay
//! off_target    = (TARGET − queuing_delay)/TARGET
//! cwnd         += GAIN·off_target·acked/cwnd                (segments)
//! cwnd          = max(min(cwnd, flightsize + ALLOWED_INCREASE), MIN_CWND)
//! ```
//!
//! so the window grows by up to GAIN segments per RTT below the target and shrinks as fast
//! above it, never past what is in flight plus ALLOWED_INCREASE (no bursts after an idle or
//! application-limited period). A loss halves it, not below MIN_CWND (RFC 6817 §2.4.1).
//!
//! As ns-3: slow start (RFC 6817 allows it) until the window first enters congestion
//! avoidance, and again only after it has been cut to one segment (a timeout); the current
//! filter is the minimum of the last 4 samples (ns-3 `NoiseFilterLen`; the RFC leaves the
//! filter open); before any delay sample, Reno's growth. As the RFC: a new base-history entry
//! when the minute changes (ns-3: 60 s after the last one), `flightsize` the data outstanding
//! before this ACK.
//!
//! Departure: **one-way delay**. The RFC and ns-3 time one-way delays with TCP timestamps;
//! ccsim's algorithms see the RTT sample only (`AckSample::rtt`), so the delay used is the RTT:
//! its reverse-path part is constant when the reverse path does not queue (as in a bulk
//! transfer, whose ACKs are small), and cancels in `current_delay − base_delay`, so the
//! queueing delay is the forward one. A queue on the reverse path would be counted as well.
//! The window is continuous; `acked` follows the connection's `ack_counting`; the loss
//! response halves `min(cwnd, rwnd)`.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{self, ParamError};
use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CcConfig, CongestionControl, TcpState,
};
use crate::time::SimTime;

/// LEDBAT's parameters, named as in RFC 6817 §2.5.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LedbatConfig {
    /// Queueing delay to aim at, seconds (TARGET). Default 0.1: the RFC's maximum (ns-3
    /// `TargetDelay`).
    pub target: Option<f64>,
    /// Window change per RTT at zero queueing delay, segments (GAIN). Default 1 (RFC, ns-3).
    pub gain: Option<f64>,
    /// Minutes of per-minute minima the base delay is taken over (BASE_HISTORY). Default 10
    /// (RFC, ns-3).
    pub base_history: Option<u32>,
    /// Samples the current delay is the minimum of (CURRENT_FILTER). Default 4 (ns-3
    /// `NoiseFilterLen`).
    pub current_filter: Option<u32>,
    /// Segments the window may exceed what was in flight (ALLOWED_INCREASE). Default 1 (RFC).
    pub allowed_increase: Option<f64>,
    /// Smallest window, segments (MIN_CWND). Default 2 (RFC, ns-3).
    pub min_cwnd: Option<f64>,
    /// Slow-start at the start and after a timeout. Default true (ns-3 `SSParam`).
    pub slow_start: Option<bool>,
}

impl CcConfig for LedbatConfig {
    type Algorithm = Ledbat;

    fn build(&self, _ctx: &BuildContext) -> Result<Ledbat, ParamError> {
        let whole = |field, v: Option<u32>, default| match v.unwrap_or(default) {
            0 => Err((field, "0 is not a number of samples ≥ 1".to_string())),
            v => Ok(v as usize),
        };
        let target = param::positive("target", self.target.unwrap_or(0.1))?;
        let base_history = whole("base_history", self.base_history, 10)?;
        let current_filter = whole("current_filter", self.current_filter, 4)?;
        Ok(Ledbat {
            target_us: (target * 1e6).round().max(1.0) as u64,
            gain: param::positive("gain", self.gain.unwrap_or(1.0))?,
            allowed_increase: param::at_least(
                "allowed_increase",
                self.allowed_increase.unwrap_or(1.0),
                0.0,
            )?,
            min_cwnd: param::at_least("min_cwnd", self.min_cwnd.unwrap_or(2.0), 1.0)?,
            slow_start: self.slow_start.unwrap_or(true),
            can_slow_start: true,
            delays: Box::new(Delays {
                base: VecDeque::with_capacity(base_history),
                base_len: base_history,
                current: VecDeque::with_capacity(current_filter),
                current_len: current_filter,
                minute: 0,
            }),
        })
    }
}

/// The delay histories, out of line so that a connection stays small.
#[derive(Clone, Debug)]
struct Delays {
    /// Per-minute minima, oldest first (RFC `base_delays`).
    base: VecDeque<u64>,
    base_len: usize,
    /// The last samples, oldest first (RFC `current_delays`).
    current: VecDeque<u64>,
    current_len: usize,
    /// The minute of the newest base entry (RFC `last_rollover`, rounded to the minute).
    minute: u64,
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    target_us: u64,
    gain: f64,
    allowed_increase: f64,
    min_cwnd: f64,
    slow_start: bool,
    /// ns-3 `LEDBAT_CAN_SS`: set at the start and when the window is down to one segment,
    /// cleared when congestion avoidance begins.
    can_slow_start: bool,
    delays: Box<Delays>,
}

impl Delays {
    /// RFC 6817 `update_current_delay` and `update_base_delay`, for a delay in µs at `now`.
    fn sample(&mut self, now: SimTime, delay: u64) {
        if self.current.len() == self.current_len {
            self.current.pop_front();
        }
        self.current.push_back(delay);
        let minute = now.as_nanos() / 60_000_000_000;
        match self.base.back_mut() {
            Some(last) if minute == self.minute => *last = (*last).min(delay),
            _ => {
                if self.base.len() == self.base_len {
                    self.base.pop_front();
                }
                self.base.push_back(delay);
                self.minute = minute;
            }
        }
    }

    /// The queueing delay, µs: the current delay (the filter's minimum) over the base.
    fn queuing(&self) -> Option<u64> {
        let current = self.current.iter().min()?;
        let base = self.base.iter().min()?;
        Some(current.saturating_sub(*base))
    }
}

impl CongestionControl for Ledbat {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        // RFC 6817 §2.4.1: cwnd = max(cwnd/2, MIN_CWND) on a loss.
        (st.cwnd.min(st.rwnd) / 2.0).max(self.min_cwnd)
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if let Some(r) = ack.rtt {
            self.delays.sample(st.now, r.as_nanos() / 1000);
        }
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if st.cwnd <= 1.0 {
            self.can_slow_start = true;
        }
        if self.slow_start && self.can_slow_start && st.in_slow_start() {
            slow_start(st, ack.acked);
            return;
        }
        self.can_slow_start = false;
        let Some(queuing) = self.delays.queuing() else {
            // No delay sample yet: Reno's avoidance (ns-3's fallback without timestamps).
            let cwnd = st.cwnd;
            cong_avoid_ai(st, cwnd, ack.acked);
            return;
        };
        let target = self.target_us as f64;
        let off_target = (target - queuing as f64) / target;
        let flightsize = (st.flight + ack.segments) as f64;
        let cwnd = st.cwnd + self.gain * off_target * ack.acked / st.cwnd;
        st.cwnd = cwnd
            .min(flightsize + self.allowed_increase)
            .max(self.min_cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn ledbat() -> Ledbat {
        LedbatConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    /// LEDBAT in congestion avoidance with a base delay of 50 ms and the current filter full of
    /// `current_ms`.
    fn at_delay(current_ms: u64) -> Ledbat {
        let mut l = ledbat();
        l.can_slow_start = false;
        let st = test_state(20.0, 10.0);
        l.pkts_acked(&st, &test_ack(1.0, Some(50)));
        for _ in 0..4 {
            l.pkts_acked(&st, &test_ack(1.0, Some(current_ms)));
        }
        l
    }

    #[test]
    fn below_the_target_the_window_grows_in_proportion() {
        // Queueing delay 100 − 50 = 50 ms: off_target = (100 − 50)/100 = 0.5, so one segment
        // acknowledged at cwnd 20 adds 1·0.5·1/20 = 0.025.
        let mut l = at_delay(100);
        let mut st = test_state(20.0, 10.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 20.025).abs() < 1e-12, "{}", st.cwnd);
        // At the target (150 ms, queueing 100): no change.
        let mut l = at_delay(150);
        let mut st = test_state(20.0, 10.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 20.0);
    }

    #[test]
    fn above_the_target_it_shrinks() {
        // Queueing 200 − 50 = 150 ms: off_target = −0.5: 20 − 0.025.
        let mut l = at_delay(200);
        let mut st = test_state(20.0, 10.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 19.975).abs() < 1e-12, "{}", st.cwnd);
        // Queueing 950 ms: off_target = −8.5: 2 − 8.5/2 < 2, held at MIN_CWND = 2.
        let mut l = at_delay(1000);
        let mut st = test_state(2.0, 1.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 2.0);
    }

    #[test]
    fn the_window_stays_within_flight_plus_allowed_increase() {
        // 9 in flight after this ACK of 1: flightsize 10, so at most 11.
        let mut l = at_delay(60);
        let mut st = test_state(20.0, 10.0);
        st.flight = 9;
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 11.0);
    }

    #[test]
    fn the_current_delay_is_the_minimum_of_the_last_four_samples() {
        let mut l = ledbat();
        let st = test_state(20.0, 10.0);
        for ms in [50, 130, 110, 140, 150, 160] {
            l.pkts_acked(&st, &test_ack(1.0, Some(ms)));
        }
        // Last four: 110, 140, 150, 160 → 110; base 50: 60 ms.
        assert_eq!(l.delays.queuing(), Some(60_000));
        l.pkts_acked(&st, &test_ack(1.0, Some(170))); // 110 leaves: 140 − 50
        assert_eq!(l.delays.queuing(), Some(90_000));
    }

    #[test]
    fn the_base_delay_is_the_minimum_of_ten_minutes_of_minima() {
        let mut l = ledbat();
        let mut st = test_state(20.0, 10.0);
        let mut sample = |l: &mut Ledbat, secs: u64, ms| {
            st.now = SimTime::from_secs(secs);
            l.pkts_acked(&st, &test_ack(1.0, Some(ms)));
        };
        sample(&mut l, 0, 50);
        sample(&mut l, 30, 40); // same minute: its entry becomes 40
        assert_eq!(l.delays.base, [40_000]);
        sample(&mut l, 61, 70); // minute 1: a new entry
        assert_eq!(l.delays.base, [40_000, 70_000]);
        // Minutes 2–10 add nine more; the eleventh entry pushes out minute 0's 40.
        for m in 2..=9 {
            sample(&mut l, 60 * m, 70);
        }
        assert_eq!(l.delays.base.len(), 10);
        assert_eq!(l.delays.base.iter().min(), Some(&40_000));
        sample(&mut l, 600, 70);
        assert_eq!(l.delays.base.len(), 10);
        assert_eq!(l.delays.base.iter().min(), Some(&70_000));
    }

    #[test]
    fn slow_start_until_avoidance_and_again_after_a_timeout() {
        let mut l = ledbat();
        let mut st = test_state(5.0, f64::INFINITY);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 6.0);
        // Past ssthresh: avoidance, without a delay sample Reno's +1/10.
        let mut st = test_state(10.0, 10.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 10.1).abs() < 1e-12);
        assert!(!l.can_slow_start);
        // Below ssthresh again (a delay cut), no slow start: +1/5 from Reno.
        let mut st = test_state(5.0, 10.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 5.2).abs() < 1e-12);
        // After a timeout (cwnd 1) it may slow-start again.
        let mut st = test_state(1.0, 5.0);
        l.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 2.0);
    }

    #[test]
    fn a_loss_halves_but_not_below_min_cwnd() {
        let l = ledbat();
        assert_eq!(l.ssthresh(&test_state(30.0, 100.0)), 15.0);
        assert_eq!(l.ssthresh(&test_state(3.0, 100.0)), 2.0);
    }

    #[test]
    fn config_checks() {
        let l = ledbat();
        assert_eq!(
            (l.target_us, l.gain, l.allowed_increase, l.min_cwnd),
            (100_000, 1.0, 1.0, 2.0)
        );
        assert_eq!((l.delays.base_len, l.delays.current_len), (10, 4));
        let bad = |c: LedbatConfig| c.build(&test_ctx(Profile::Linux)).unwrap_err().0;
        let d = LedbatConfig::default;
        assert_eq!(
            bad(LedbatConfig {
                target: Some(0.0),
                ..d()
            }),
            "target"
        );
        assert_eq!(
            bad(LedbatConfig {
                gain: Some(-1.0),
                ..d()
            }),
            "gain"
        );
        assert_eq!(
            bad(LedbatConfig {
                base_history: Some(0),
                ..d()
            }),
            "base_history"
        );
        assert_eq!(
            bad(LedbatConfig {
                current_filter: Some(0),
                ..d()
            }),
            "current_filter"
        );
        assert_eq!(
            bad(LedbatConfig {
                min_cwnd: Some(0.5),
                ..d()
            }),
            "min_cwnd"
        );
        assert_eq!(
            bad(LedbatConfig {
                allowed_increase: Some(-1.0),
                ..d()
            }),
            "allowed_increase"
        );
        let e = serde_json::from_str::<LedbatConfig>(r#"{"TARGET": 0.1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `TARGET`"), "{e}");
    }
}
