//! H-TCP — Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet
//! 2004; as Linux `net/ipv4/tcp_htcp.c`.
//!
//! The increase grows with the time Δ since the last congestion event: for the first
//! Δ_L = 1 s it is Reno's, then
//!
//! ```text
//! α_H(Δ) = 1 + 10·(Δ − Δ_L) + ((Δ − Δ_L)/2)²      segments per RTT
//! α      = 2·(1 − β)·α_H                          (so that the AIMD pair stays TCP-fair)
//! ```
//!
//! scaled by the minimum RTT against 100 ms (RTT scaling, so that flows of different RTTs
//! converge to the same share). The decrease is adaptive: β = RTT_min/RTT_max, clamped to
//! [0.5, 0.8], which empties a buffer of the path's size and no more; when the throughput
//! measured before a congestion event differs by more than a fifth from the one before the
//! previous event (the bandwidth switch), β is 0.5, so that a new flow gets room.
//!
//! Linux's details, kept:
//! - α and β in fixed point with 7 fractional bits (`<< 7`): β ∈ [64, 102]/128, so the upper
//!   clamp is 0.797, and β = ⌊128·RTT_min/RTT_max⌋. α_H is a whole number,
//!   `1 + ⌊10·d + (d/2)²⌋` with d = Δ − Δ_L in seconds; the RTT scaling divides it by
//!   `scale = ⌊0.8 s/RTT_min⌋` eighths, clamped to [4, 80] (ratio RTT_min/100 ms in [0.1, 2]),
//!   whole again, at least 1.
//! - The first congestion event sets β = 0.5 and turns on the adaptive β (`modeswitch`); the
//!   bandwidth switch turns it off again. Adaptive β needs RTT_min above 10 ms.
//! - RTT_max only takes samples in the Open state and at most 20 ms above itself (outliers are
//!   ignored), and fades to RTT_min + 95 % of the difference at every congestion event.
//! - Throughput: packets acknowledged in the Open state, a sample per at least a window
//!   (`cwnd − α`) and one RTT_min; within 3 RTT_min of the event the sample restarts the
//!   estimate, later ones are averaged (`B ← (3B + sample)/4`) into the largest seen, `maxB`.
//! - Δ runs from the end of the congestion event: entering a reduction starts it, and the
//!   return to Open (Linux `htcp_state(TCP_CA_Open)` after `htcp_reset`) starts it again.
//!
//! Departures, in ccsim's conventions: RTTs and times in microseconds where Linux counts
//! jiffies (1–10 ms); bandwidth in real numbers. The window is continuous, so the increase
//! adds `α·acked/cwnd` per ACK with α recomputed on each (Linux adds a whole segment when its
//! count reaches `cwnd/α` and recomputes α then); `acked` follows the connection's
//! `ack_counting`. Linux's `ssthresh` hook also updates α and β (`htcp_param_update`);
//! ccsim's is a pure function, so it computes the β the update will give and the update is
//! applied in `set_state` when the reduction begins (the sender calls the two together). A
//! timeout repeated in the Loss state (no state change reported) restarts Δ but does not
//! update β and α again; Linux recomputes them when the timeout is the first since progress.
//! The loss response scales `min(cwnd, rwnd)` without truncation. There is no undo (ccsim has
//! no `undo_cwnd`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{self, ParamError};
use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig,
    CongestionControl, TcpState,
};
use crate::time::SimTime;

/// β's bounds in 1/128 (Linux `BETA_MIN`, `BETA_MAX`): 0.5 and 0.797.
const BETA_MIN: u32 = 64;
const BETA_MAX: u32 = 102;
/// α = 1 in 1/128 (Linux `ALPHA_BASE`).
const ALPHA_BASE: u32 = 128;

/// H-TCP's parameters (Linux's module parameters, and the paper's Δ_L).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HtcpConfig {
    /// Scale the increase by the minimum RTT against 100 ms, so that flows of different RTTs
    /// share fairly. Default true (Linux `use_rtt_scaling = 1`).
    pub use_rtt_scaling: Option<bool>,
    /// Use β = 0.5 after an event whose throughput differs by more than a fifth from the
    /// previous event's. Default true (Linux `use_bandwidth_switch = 1`).
    pub use_bandwidth_switch: Option<bool>,
    /// Seconds after a congestion event during which the increase is Reno's, Δ_L. Default 1
    /// (the paper's Δ_L; Linux's `HZ`; ns-3 `DeltaL`).
    pub delta_l: Option<f64>,
}

impl CcConfig for HtcpConfig {
    type Algorithm = Htcp;

    fn build(&self, _ctx: &BuildContext) -> Result<Htcp, ParamError> {
        let delta_l = param::positive("delta_l", self.delta_l.unwrap_or(1.0))?;
        Ok(Htcp {
            rtt_scaling: self.use_rtt_scaling.unwrap_or(true),
            bandwidth_switch: self.use_bandwidth_switch.unwrap_or(true),
            delta_l: SimTime::from_secs_f64(delta_l),
            alpha: ALPHA_BASE,
            beta: BETA_MIN,
            modeswitch: false,
            min_rtt_us: 0,
            max_rtt_us: 0,
            last_cong: SimTime::ZERO,
            in_event: false,
            packetcount: 0,
            lasttime: SimTime::ZERO,
            min_b: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
            bi: 0.0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Htcp {
    rtt_scaling: bool,
    bandwidth_switch: bool,
    delta_l: SimTime,
    /// Increase per RTT in 1/128 segment (Linux `alpha`).
    alpha: u32,
    /// Decrease factor in 1/128 (Linux `beta`).
    beta: u32,
    /// The adaptive β is on (Linux `modeswitch`).
    modeswitch: bool,
    /// Smallest and largest RTT sample, µs; 0: none yet (Linux `minRTT`, `maxRTT`).
    min_rtt_us: u64,
    max_rtt_us: u64,
    /// Start of the current congestion epoch (Linux `last_cong`).
    last_cong: SimTime,
    /// A reduction began and the return to Open has not yet restarted the epoch (Linux
    /// `undo_last_cong` being set).
    in_event: bool,
    /// Packets acknowledged since `lasttime` (Linux `packetcount`, `lasttime`).
    packetcount: u64,
    lasttime: SimTime,
    /// Throughput estimates, packets per second (Linux `minB`, `maxB`, `old_maxB`, `Bi`).
    min_b: f64,
    max_b: f64,
    old_max_b: f64,
    bi: f64,
}

impl Htcp {
    /// The β (1/128) and `modeswitch` a congestion event now gives (Linux
    /// `htcp_beta_update`), without changing anything.
    fn beta_update(&self) -> (u32, bool) {
        if self.bandwidth_switch {
            // Linux `between(5·maxB, 4·old_maxB, 6·old_maxB)`: within ±20 % of the last.
            let (b, old) = (5.0 * self.max_b, self.old_max_b);
            if !(4.0 * old <= b && b <= 6.0 * old) {
                return (BETA_MIN, false);
            }
        }
        if self.modeswitch && self.min_rtt_us > 10_000 && self.max_rtt_us > 0 {
            let b = (self.min_rtt_us << 7) / self.max_rtt_us;
            ((b as u32).clamp(BETA_MIN, BETA_MAX), true)
        } else {
            (BETA_MIN, true)
        }
    }

    /// Linux `htcp_alpha_update` at `now`.
    fn alpha_update(&mut self, now: SimTime) {
        let since = now.saturating_sub(self.last_cong);
        let mut factor: u64 = 1;
        if since > self.delta_l {
            let d = (since - self.delta_l).as_secs_f64();
            // α_H = 1 + 10·d + (d/2)², whole as Linux's integer arithmetic leaves it.
            factor = 1 + (10.0 * d + (d / 2.0) * (d / 2.0)).min(u32::MAX as f64) as u64;
        }
        if self.rtt_scaling && self.min_rtt_us > 0 {
            // Linux `(HZ << 3) / (10·minRTT)`: eighths of 100 ms/RTT_min, in [0.5, 10].
            let scale = (800_000 / self.min_rtt_us).clamp(4, 80);
            factor = ((factor << 3) / scale).max(1);
        }
        let alpha = 2 * factor * (128 - self.beta) as u64;
        self.alpha = if alpha == 0 {
            ALPHA_BASE
        } else {
            alpha.min(u32::MAX as u64) as u32
        };
    }

    /// A congestion event (Linux `htcp_param_update`, from its `ssthresh`).
    fn param_update(&mut self, now: SimTime) {
        (self.beta, self.modeswitch) = self.beta_update();
        if self.bandwidth_switch {
            self.old_max_b = self.max_b; // the next event compares with this one
        }
        self.alpha_update(now);
        // A slowly fading memory of RTT_max, for route changes.
        let (min, max) = (self.min_rtt_us, self.max_rtt_us);
        if min > 0 && max > min {
            self.max_rtt_us = min + (max - min) * 95 / 100;
        }
    }

    /// Linux `measure_rtt`.
    fn measure_rtt(&mut self, st: &TcpState, rtt_us: u64) {
        if self.min_rtt_us == 0 || rtt_us < self.min_rtt_us {
            self.min_rtt_us = rtt_us;
        }
        if st.ca_state == CaState::Open {
            self.max_rtt_us = self.max_rtt_us.max(self.min_rtt_us);
            // A sample more than 20 ms above the largest is taken as an outlier.
            if rtt_us > self.max_rtt_us && rtt_us <= self.max_rtt_us + 20_000 {
                self.max_rtt_us = rtt_us;
            }
        }
    }

    /// Linux `measure_achieved_throughput`'s bandwidth part.
    fn measure_throughput(&mut self, st: &TcpState, ack: &AckSample) {
        let now = st.now;
        if st.ca_state != CaState::Open {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += ack.segments;
        let min_rtt = SimTime::from_micros(self.min_rtt_us);
        // Linux: `snd_cwnd − (α >> 7 ?: 1)` in unsigned arithmetic, so a window below α never
        // completes a sample.
        let alpha_segs = ((self.alpha >> 7) as u64).max(1);
        let Some(window) = (st.cwnd as u64).checked_sub(alpha_segs) else {
            return;
        };
        let elapsed = now.saturating_sub(self.lasttime);
        if self.packetcount >= window && elapsed >= min_rtt && self.min_rtt_us > 0 {
            let cur = self.packetcount as f64 / elapsed.as_secs_f64();
            // Linux `htcp_ccount(ca) <= 3`: whole RTT_min since the event.
            let ccount = now.saturating_sub(self.last_cong).as_nanos() / min_rtt.as_nanos();
            if ccount <= 3 {
                // Just after a reduction: start afresh.
                (self.min_b, self.max_b, self.bi) = (cur, cur, cur);
            } else {
                self.bi = (3.0 * self.bi + cur) / 4.0;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    /// Linux `htcp_reset`: a congestion event begins now.
    fn reset(&mut self, now: SimTime) {
        self.in_event = true;
        self.last_cong = now;
    }
}

impl CongestionControl for Htcp {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        let (beta, _) = self.beta_update();
        (st.cwnd.min(st.rwnd) * beta as f64 / 128.0).max(2.0)
    }

    fn init(&mut self, st: &mut TcpState) {
        self.alpha = ALPHA_BASE;
        self.beta = BETA_MIN;
        self.last_cong = st.now;
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if let Some(r) = ack.rtt {
            // Linux passes positive samples only.
            self.measure_rtt(st, (r.as_nanos() / 1000).max(1));
        }
        if self.bandwidth_switch {
            self.measure_throughput(st, ack);
        }
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if st.in_slow_start() {
            // Linux's H-TCP drops what slow start leaves over.
            slow_start(st, ack.acked);
            return;
        }
        self.alpha_update(st.now);
        let w = st.cwnd * ALPHA_BASE as f64 / self.alpha as f64;
        cong_avoid_ai(st, w, ack.acked);
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        match new {
            CaState::Open => {
                if std::mem::take(&mut self.in_event) {
                    self.last_cong = st.now; // the epoch starts when the event ends
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => {
                // The sender computed ssthresh for this reduction, except for a loss in a
                // window already cut for an ECN echo (no second cut).
                if !(new == CaState::Recovery && st.ca_state == CaState::Cwr) {
                    self.param_update(st.now);
                }
                self.reset(st.now);
            }
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        // Linux sets the Loss state again on every timeout (`htcp_reset`); the sender reports
        // only a change of state.
        if ev == CaEvent::Timeout && st.ca_state == CaState::Loss {
            self.reset(st.now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn htcp() -> Htcp {
        HtcpConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    fn at(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }

    #[test]
    fn alpha_is_renos_for_the_first_second_then_grows_quadratically() {
        // RTT_min 100 ms: scale = ⌊800000/100000⌋ = 8 eighths (ratio 1), β = 64/128.
        let mut h = htcp();
        h.min_rtt_us = 100_000;
        h.alpha_update(at(1000)); // Δ = 1 s: α_H = 1 → α = 2·1·(128 − 64) = 128 = 1 segment
        assert_eq!(h.alpha, 128);
        // Δ = 3 s: d = 2, α_H = 1 + ⌊10·2 + (2/2)²⌋ = 22 → α = 2·22·64 = 2816 = 22 segments.
        h.alpha_update(at(3000));
        assert_eq!(h.alpha, 2816);
        // Δ = 1.5 s: d = 0.5, α_H = 1 + ⌊5 + 0.0625⌋ = 6 → α = 2·6·64 = 768.
        h.alpha_update(at(1500));
        assert_eq!(h.alpha, 768);
        // With β = 0.797 (102): α = 2·22·(128 − 102) = 1144 at Δ = 3 s (8.9 segments).
        h.beta = 102;
        h.alpha_update(at(3000));
        assert_eq!(h.alpha, 1144);
    }

    #[test]
    fn rtt_scaling_divides_by_eighths_of_100_ms_over_rtt_min() {
        let mut h = htcp();
        // RTT_min 20 ms: scale = ⌊800000/20000⌋ = 40; Δ = 3 s: α_H = 22 → ⌊22·8/40⌋ = 4 →
        // α = 2·4·64 = 512.
        h.min_rtt_us = 20_000;
        h.alpha_update(at(3000));
        assert_eq!(h.alpha, 512);
        // At Δ = 1 s: ⌊1·8/40⌋ = 0 → at least 1 → α = 128.
        h.alpha_update(at(1000));
        assert_eq!(h.alpha, 128);
        // RTT_min 500 ms: ⌊800000/500000⌋ = 1, clamped to 4 (ratio 2): ⌊22·8/4⌋ = 44 →
        // α = 2·44·64 = 5632.
        h.min_rtt_us = 500_000;
        h.alpha_update(at(3000));
        assert_eq!(h.alpha, 5632);
        // RTT_min 5 ms: ⌊800000/5000⌋ = 160, clamped to 80 (ratio 0.1): ⌊22·8/80⌋ = 2 → 256.
        h.min_rtt_us = 5_000;
        h.alpha_update(at(3000));
        assert_eq!(h.alpha, 256);
        // Without RTT scaling: 22 → 2816 whatever the RTT.
        h.rtt_scaling = false;
        h.alpha_update(at(3000));
        assert_eq!(h.alpha, 2816);
    }

    #[test]
    fn beta_is_rtt_min_over_rtt_max_clamped_once_the_mode_is_on() {
        let mut h = htcp();
        h.min_rtt_us = 100_000;
        h.max_rtt_us = 150_000;
        h.bandwidth_switch = false;
        // The first event only turns the mode on: β = 64.
        assert_eq!(h.beta_update(), (64, true));
        h.modeswitch = true;
        // ⌊128·100/150⌋ = ⌊85.33⌋ = 85.
        assert_eq!(h.beta_update(), (85, true));
        // ⌊128·100/120⌋ = ⌊106.67⌋ = 106 → clamped to 102.
        h.max_rtt_us = 120_000;
        assert_eq!(h.beta_update(), (102, true));
        // ⌊128·100/250⌋ = 51 → clamped to 64.
        h.max_rtt_us = 250_000;
        assert_eq!(h.beta_update(), (64, true));
        // RTT_min of 10 ms or less: 64, and the mode is (re)set on.
        h.min_rtt_us = 10_000;
        h.max_rtt_us = 12_000;
        assert_eq!(h.beta_update(), (64, true));
    }

    #[test]
    fn the_bandwidth_switch_halves_when_throughput_moved_by_a_fifth() {
        let mut h = htcp();
        (h.min_rtt_us, h.max_rtt_us, h.modeswitch) = (100_000, 150_000, true);
        // maxB 1000 after 1000: 5000 ∈ [4000, 6000] → adaptive ⌊128·100/150⌋ = 85.
        (h.max_b, h.old_max_b) = (1000.0, 1000.0);
        assert_eq!(h.beta_update(), (85, true));
        // 1200 after 1000: 6000, the bound, still adaptive; 1201: 6005 > 6000 → 64, mode off.
        h.max_b = 1200.0;
        assert_eq!(h.beta_update(), (85, true));
        h.max_b = 1201.0;
        assert_eq!(h.beta_update(), (64, false));
        // 800 after 1000: 4000, the lower bound; 799: 3995 < 4000.
        h.max_b = 800.0;
        assert_eq!(h.beta_update(), (85, true));
        h.max_b = 799.0;
        assert_eq!(h.beta_update(), (64, false));
    }

    #[test]
    fn ssthresh_scales_the_window_by_the_beta_to_come() {
        let mut h = htcp();
        (h.min_rtt_us, h.max_rtt_us, h.modeswitch) = (100_000, 150_000, true);
        (h.max_b, h.old_max_b) = (1000.0, 1000.0);
        // β = 85/128: 100·85/128 = 66.40625.
        assert_eq!(h.ssthresh(&test_state(100.0, 50.0)), 66.40625);
        assert_eq!(h.ssthresh(&test_state(2.5, 50.0)), 2.0);
        // Not applied until the reduction begins.
        assert_eq!(h.beta, 64);
    }

    #[test]
    fn a_reduction_updates_beta_alpha_and_fades_rtt_max() {
        let mut h = htcp();
        (h.min_rtt_us, h.max_rtt_us, h.modeswitch) = (100_000, 150_000, true);
        (h.max_b, h.old_max_b) = (1000.0, 1000.0);
        let mut st = test_state(100.0, 50.0);
        st.now = at(4000);
        h.set_state(&mut st, CaState::Recovery);
        assert_eq!(h.beta, 85);
        assert_eq!(h.old_max_b, 1000.0);
        // α at Δ = 4 s (d = 3): α_H = 1 + ⌊30 + 2.25⌋ = 33, scale 8 → α = 2·33·(128 − 85) = 2838.
        assert_eq!(h.alpha, 2838);
        // RTT_max fades: 100000 + 50000·95/100 = 147500 µs.
        assert_eq!(h.max_rtt_us, 147_500);
        // The epoch starts at the event and again when it ends.
        assert_eq!(h.last_cong, at(4000));
        st.ca_state = CaState::Recovery;
        st.now = at(4300);
        h.set_state(&mut st, CaState::Open);
        assert_eq!(h.last_cong, at(4300));
        // A loss after an ECN reduction (Cwr → Recovery) is not a second event.
        st.ca_state = CaState::Cwr;
        h.max_b = 2000.0; // would switch β to 64
        h.set_state(&mut st, CaState::Recovery);
        assert_eq!(h.beta, 85);
    }

    #[test]
    fn rtt_max_takes_open_state_samples_at_most_20_ms_above_it() {
        let mut h = htcp();
        let mut st = test_state(10.0, 5.0);
        let sample = |h: &mut Htcp, st: &TcpState, ms| h.pkts_acked(st, &test_ack(1.0, Some(ms)));
        sample(&mut h, &st, 100);
        assert_eq!((h.min_rtt_us, h.max_rtt_us), (100_000, 100_000));
        sample(&mut h, &st, 125); // 25 ms above: an outlier
        assert_eq!(h.max_rtt_us, 100_000);
        sample(&mut h, &st, 115);
        sample(&mut h, &st, 130);
        assert_eq!(h.max_rtt_us, 130_000);
        st.ca_state = CaState::Recovery;
        sample(&mut h, &st, 140);
        assert_eq!(h.max_rtt_us, 130_000);
        sample(&mut h, &st, 90); // RTT_min in any state
        assert_eq!(h.min_rtt_us, 90_000);
    }

    #[test]
    fn throughput_samples_a_window_per_rtt_min_and_averages_after_three() {
        let mut h = htcp();
        h.min_rtt_us = 100_000;
        h.max_rtt_us = 100_000;
        let mut st = test_state(11.0, 5.0);
        // α = 128: a sample needs cwnd − 1 = 10 packets and 100 ms. Ten ACKs at 10 ms each.
        for i in 1..=10 {
            st.now = at(10 * i);
            h.pkts_acked(&st, &test_ack(1.0, None));
        }
        // 10 packets in 100 ms = 100 packets/s; within 3 RTT_min of the start: taken as is.
        assert_eq!((h.bi, h.max_b, h.min_b), (100.0, 100.0, 100.0));
        // Later than 3 RTT_min (at 450 ms, ⌊450/100⌋ = 4 > 3): 10 packets from lasttime
        // 100 ms to 450 ms, 10/0.35 = 28.57 packets/s, averaged: B = (3·100 + 28.57)/4 =
        // 82.14; maxB stays 100.
        for _ in 0..9 {
            h.pkts_acked(&st, &test_ack(1.0, None));
        }
        st.now = at(450);
        h.pkts_acked(&st, &test_ack(1.0, None));
        let cur = 10.0 / 0.35;
        assert!((h.bi - (300.0 + cur) / 4.0).abs() < 1e-9, "{}", h.bi);
        assert_eq!(h.max_b, 100.0);
        // Outside Open the count restarts.
        st.ca_state = CaState::Recovery;
        h.pkts_acked(&st, &test_ack(1.0, None));
        assert_eq!(h.packetcount, 0);
    }

    #[test]
    fn avoidance_adds_alpha_over_cwnd_per_segment() {
        let mut h = htcp();
        h.min_rtt_us = 100_000;
        let mut st = test_state(50.0, 10.0);
        st.now = at(3000); // Δ = 3 s since the start: α = 22 segments per RTT
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!(
            (st.cwnd - (50.0 + 22.0 / 50.0)).abs() < 1e-12,
            "{}",
            st.cwnd
        );
        // Slow start: Reno's, the rest of the ACK dropped.
        let mut st = test_state(9.5, 10.0);
        h.cong_avoid(&mut st, &test_ack(2.0, None));
        assert_eq!(st.cwnd, 10.0);
    }

    #[test]
    fn config_checks_delta_l() {
        let h = HtcpConfig {
            delta_l: Some(0.5),
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        assert_eq!(h.delta_l, SimTime::from_millis(500));
        let bad = HtcpConfig {
            delta_l: Some(0.0),
            ..Default::default()
        };
        assert_eq!(
            bad.build(&test_ctx(Profile::Linux)).unwrap_err().0,
            "delta_l"
        );
        let e = serde_json::from_str::<HtcpConfig>(r#"{"beta": 0.5}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `beta`"), "{e}");
    }
}
