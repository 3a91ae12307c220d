//! Adaptive RED — S. Floyd, R. Gummadi, S. Shenker, "Adaptive RED: An Algorithm for Increasing
//! the Robustness of RED's Active Queue Management" (ICIR technical report, 2001), as ns-2.35
//! implements it (`queue/red.cc`, `adaptive_ 1`: `updateMaxP` called from `estimator`) and
//! ns-3 `RedQueueDisc` with `ARED`.
//!
//! RED's average queue depends on the load: with few flows a small drop rate suffices and the
//! average sits near min_th, with many it climbs past max_th. Adaptive RED moves `max_p` so
//! that the average stays in a target band in the middle of [min_th, max_th]:
//!
//! ```text
//! every interval (0.5 s):
//!   if avg < min_th + 0.4·(max_th − min_th) and max_p > bottom:  max_p ← max_p·β      (β = 0.9)
//!   if avg > max_th − 0.4·(max_th − min_th) and max_p < top:     max_p ← max_p + α'   (α' = min(α, max_p/4), α = 0.01)
//! ```
//!
//! so the band is [min_th + 0.4·Δ, min_th + 0.6·Δ] with Δ = max_th − min_th; `top` is 0.5 and
//! `bottom` 0.01 (the paper; ns-2 lowers `bottom` to 80 000/bandwidth on links above 8 Mb/s).
//! As in both sources the bounds gate a step rather than clamp its result, so max_p may end one
//! step beyond them (at most `top + α`, at least `bottom·β`).
//!
//! Timing is ns-2's: the test runs at an arrival, on the average just computed, once more than
//! `interval` has passed since max_p last *changed* (`lastset`, initially 0). While the average
//! stays in the band every arrival re-tests, so a drift out of it is answered at once and then
//! at most once per interval. Being driven by arrivals and the average alone, the adaptation
//! lives in `RedGate` and so serves the express path unchanged (`net/express/red.rs`).
//!
//! The gentle line above max_th runs from the *current* max_p to 1 at 2·max_th, as the paper
//! describes; ns-2 and ns-3 compute its coefficients once from the initial max_p and never
//! update them, which leaves a step at max_th once max_p has moved (a departure, noted in
//! `docs/aqm-family.md`).

use crate::time::{Rate, SimTime};

/// ns-2 `interval_`, `alpha_`, `beta_`, `top_`; the paper's `bottom` (ns-2 `bottom_ 0` = auto).
pub const INTERVAL: SimTime = SimTime::from_millis(500);
pub const ALPHA: f64 = 0.01;
pub const BETA: f64 = 0.9;
pub const TOP: f64 = 0.5;
pub const BOTTOM: f64 = 0.01;

/// Adaptive RED's settings, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptiveConfig {
    pub interval: SimTime,
    /// Largest additive step of max_p (the step is min(alpha, max_p/4)).
    pub alpha: f64,
    /// Multiplicative decrease of max_p.
    pub beta: f64,
    /// max_p rises only while below `top` …
    pub top: f64,
    /// … and falls only while above `bottom`.
    pub bottom: f64,
}

impl AdaptiveConfig {
    /// The sources' constants with `bottom` as given.
    pub fn with_bottom(bottom: f64) -> AdaptiveConfig {
        AdaptiveConfig {
            interval: INTERVAL,
            alpha: ALPHA,
            beta: BETA,
            top: TOP,
            bottom,
        }
    }
}

/// ns-2's automatic `bottom` (`initialize_params` with `bottom_ 0`): at most 1/W for W the
/// window of a connection with 1000-byte packets and a 100 ms RTT, `0.1·bw/8000` packets, so
/// `min(0.01, 80 000/bw)`.
pub fn ns2_bottom(rate: Rate) -> f64 {
    BOTTOM.min(80_000.0 / rate.bps() as f64)
}

/// The paper's EWMA weight, `w_q = 1 − exp(−1/C)` with C the link's packets per second (ns-2
/// `q_weight_ 0`; ns-3's ARED): the average's time constant is one second of packets.
pub fn paper_q_weight(rate: Rate, mean_pktsize: u32) -> f64 {
    1.0 - (-1.0 / super::ptc(rate, mean_pktsize)).exp()
}

/// The state of the max_p controller: when max_p last changed.
#[derive(Clone, Debug)]
pub struct MaxPAdapter {
    c: AdaptiveConfig,
    /// ns-2 `lastset`.
    lastset: SimTime,
}

impl MaxPAdapter {
    pub fn new(c: AdaptiveConfig) -> MaxPAdapter {
        MaxPAdapter {
            c,
            lastset: SimTime::ZERO,
        }
    }

    /// ns-2 `updateMaxP` with `estimator`'s guard: at `now`, with the average `avg` just
    /// computed and thresholds in the same units, moves `max_p` toward the band. Returns
    /// whether it changed.
    pub fn update(
        &mut self,
        avg: f64,
        th_min: f64,
        th_max: f64,
        max_p: &mut f64,
        now: SimTime,
    ) -> bool {
        if now <= self.lastset + self.c.interval {
            return false;
        }
        let part = 0.4 * (th_max - th_min);
        if avg < th_min + part && *max_p > self.c.bottom {
            // Too little queue: drop less.
            *max_p *= self.c.beta;
        } else if avg > th_max - part && *max_p < self.c.top {
            // Too much queue: drop more, in steps no larger than a quarter of max_p.
            *max_p += self.c.alpha.min(0.25 * *max_p);
        } else {
            return false;
        }
        self.lastset = now;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn steps_follow_the_aimd_rule_toward_the_band() {
        // Thresholds 5 and 15: part = 0.4·10 = 4, band [9, 11].
        let mut a = MaxPAdapter::new(AdaptiveConfig::with_bottom(BOTTOM));
        let mut p = 0.1;
        // Not before interval has passed since lastset = 0 (ns-2 tests now > lastset + 0.5).
        assert!(!a.update(20.0, 5.0, 15.0, &mut p, ms(500)));
        assert_eq!(p, 0.1);
        // Above the band at 501 ms: α' = min(0.01, 0.1/4 = 0.025) = 0.01 → 0.11.
        assert!(a.update(20.0, 5.0, 15.0, &mut p, ms(501)));
        assert!((p - 0.11).abs() < 1e-15);
        // The next change waits for 501 + 500 ms.
        assert!(!a.update(20.0, 5.0, 15.0, &mut p, ms(1001)));
        // Below the band: 0.11·0.9 = 0.099.
        assert!(a.update(8.99, 5.0, 15.0, &mut p, ms(1002)));
        assert!((p - 0.099).abs() < 1e-15);
        // Inside [9, 11] (both ends included): no change, and lastset stays, so the very next
        // arrival outside the band acts at once.
        assert!(!a.update(9.0, 5.0, 15.0, &mut p, ms(1600)));
        assert!(!a.update(11.0, 5.0, 15.0, &mut p, ms(1601)));
        assert!(a.update(11.01, 5.0, 15.0, &mut p, ms(1602)));
        // 0.099 + min(0.01, 0.02475) = 0.109.
        assert!((p - 0.109).abs() < 1e-15);
    }

    #[test]
    fn small_max_p_rises_by_a_quarter_and_the_bounds_gate_the_steps() {
        let mut a = MaxPAdapter::new(AdaptiveConfig::with_bottom(BOTTOM));
        // max_p 0.02: α' = min(0.01, 0.005) = 0.005 → 0.025.
        let mut p = 0.02;
        assert!(a.update(20.0, 5.0, 15.0, &mut p, ms(600)));
        assert!((p - 0.025).abs() < 1e-15);
        // At 0.0105 > bottom a decrease still happens: 0.0105·0.9 = 0.00945, below bottom …
        let mut p = 0.0105;
        assert!(a.update(0.0, 5.0, 15.0, &mut p, ms(1200)));
        assert!((p - 0.00945).abs() < 1e-15);
        // … and then no further one.
        assert!(!a.update(0.0, 5.0, 15.0, &mut p, ms(1800)));
        // At 0.495 < top an increase still happens: + min(0.01, 0.12375) = 0.505; then none.
        let mut p = 0.495;
        assert!(a.update(20.0, 5.0, 15.0, &mut p, ms(2400)));
        assert!((p - 0.505).abs() < 1e-15);
        assert!(!a.update(20.0, 5.0, 15.0, &mut p, ms(3000)));
    }

    #[test]
    fn red_decides_with_the_adapted_max_p_and_its_gentle_line() {
        use crate::packet::Ecn;
        use crate::queue::harness::Harness;
        use crate::queue::{QueueDiscipline, Red};
        // w_q = 1 (the average is the queue), thresholds 5/15 (band [9, 11]), max_p 0.1, gentle.
        let mut c = super::super::tests::config();
        c.gentle = true;
        c.adaptive = Some(AdaptiveConfig::with_bottom(BOTTOM));
        let mut q = Red::new(c);
        let mut h = Harness::new();
        let fill = |q: &mut Red, h: &mut Harness, n: u32, t: SimTime| {
            while q.len_packets() < n {
                h.offer(q, 0, 1000, Ecn::NotEct, t);
            }
        };
        fill(&mut q, &mut h, 14, SimTime::ZERO);
        assert_eq!(q.gate.max_p(), 0.1);
        // At 0.6 s an arrival finds 14 waiting: avg 14 > 11, so max_p = 0.1 + 0.01 = 0.11
        // first, and then p_b = 0.11·(14 − 5)/(15 − 5) = 0.099.
        h.offer(&mut q, 0, 1000, Ecn::NotEct, ms(600));
        assert!((q.gate.max_p() - 0.11).abs() < 1e-15);
        assert!((q.probabilities().0 - 0.099).abs() < 1e-12);
        // At 0.7 s (no change due before 1.1 s) with 20 waiting, in the gentle region: from
        // max_p at max_th to 1 at 2·max_th, p_b = 0.11 + (1 − 0.11)·(20 − 15)/15 = 0.406667.
        fill(&mut q, &mut h, 20, ms(700));
        h.offer(&mut q, 0, 1000, Ecn::NotEct, ms(700));
        assert!((q.gate.max_p() - 0.11).abs() < 1e-15);
        let want = 0.11 + 0.89 * 5.0 / 15.0;
        assert!(
            (q.probabilities().0 - want).abs() < 1e-12,
            "{:?}",
            q.probabilities()
        );
    }

    #[test]
    fn automatic_bottom_and_weight() {
        // ns-2: 80 000/bw: 0.008 at 10 Mb/s, the paper's 0.01 at or below 8 Mb/s.
        assert!((ns2_bottom(Rate(10_000_000)) - 0.008).abs() < 1e-15);
        assert_eq!(ns2_bottom(Rate(8_000_000)), 0.01);
        assert_eq!(ns2_bottom(Rate(1_500_000)), 0.01);
        // 10 Mb/s, 1500-byte packets: C = 1e7/12 000 = 833.33/s, w_q = 1 − exp(−0.0012)
        // ≈ 1.19928e−3.
        let w = paper_q_weight(Rate(10_000_000), 1500);
        assert!((w - (1.0 - (-0.0012f64).exp())).abs() < 1e-15);
        assert!((w - 1.19928e-3).abs() < 1e-8);
    }
}
