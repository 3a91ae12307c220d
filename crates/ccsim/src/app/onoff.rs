//! On-off UDP traffic as ns-2 generates it (`Application/Traffic/Exponential` in
//! `tools/expoo.cc`, `Application/Traffic/Pareto` in `tools/pareto.cc`): bursts of packets at
//! the source's rate, separated by idle periods.
//!
//! ns-2 counts a burst in packets, not in time. The mean burst is `on / interval` packets
//! (`interval` = size·8/rate, the gap between a burst's packets); each burst's length is a draw
//! from the distribution with that mean, rounded to the nearest whole number (`int(x + 0.5)`),
//! at least one. Each idle period is a draw with mean `off`, added to the interval after the
//! last packet of a burst. At its start the source draws its first burst and the idle period
//! before it, and sends nothing until they have passed (ns-2's `TrafficGenerator::start`, in
//! `tools/trafgen.cc`, sends nothing at once either). Both draws come from the flow's own
//! stream (`rng.rs`), the burst first, as ns-2 does.
//!
//! The draws are exponential or Pareto of a given mean (`dist.rs`).
//!
//! With `on = 0` every burst is one packet and the source is Poisson-like: packets `interval`
//! plus an exponential idle time apart. The long-run rate is `E[N]·size·8 / (E[N]·interval +
//! off)` for a mean burst of `E[N]` packets, about `rate·on/(on + off)`: slightly more, as
//! rounding and the one-packet floor lengthen short bursts.

use crate::dist::Dist;
use crate::rng::Rng;
use crate::time::SimTime;

/// The longest idle period drawn, seconds (about 32 years): a Pareto draw can exceed what a
/// clock of 64-bit nanoseconds holds, and an idle period past the end of any run is the same.
const MAX_IDLE_SECS: f64 = 1e9;

/// A burst's length in packets from a draw `x`: ns-2's `int(x + .5)`, at least one.
pub fn burst_packets(x: f64) -> u64 {
    ((x + 0.5) as u64).max(1)
}

/// An on-off source's state: the packets left in the burst under way and its random stream.
pub struct OnOff {
    dist: Dist,
    /// Mean packets per burst: the mean on time over the interval (ns-2's `burstlen_`).
    burst_mean: f64,
    /// Mean idle time, seconds.
    off_mean: f64,
    /// Packets still to send in this burst after the one being sent.
    rem: u64,
    rng: Rng,
}

impl OnOff {
    /// A source with mean on time `on` and mean idle time `off`, sending at one packet per
    /// `interval` within a burst, drawing from `rng`.
    pub fn new(dist: Dist, on: SimTime, off: SimTime, interval: SimTime, rng: Rng) -> Self {
        OnOff {
            dist,
            burst_mean: on.as_secs_f64() / interval.as_secs_f64(),
            off_mean: off.as_secs_f64(),
            rem: 0,
            rng,
        }
    }

    /// The idle period, seconds, for uniform `u`.
    fn idle(&self, u: f64) -> f64 {
        self.dist.value(self.off_mean, u).min(MAX_IDLE_SECS)
    }

    /// The time from the packet just sent (or the start) to the next one: `interval` within a burst; after a
    /// burst's last packet, the next burst's length is drawn and an idle period is added.
    pub fn next_gap(&mut self, interval: SimTime) -> SimTime {
        let mut gap = interval;
        if self.rem == 0 {
            let u = self.rng.uniform();
            self.rem = burst_packets(self.dist.value(self.burst_mean, u));
            let u = self.rng.uniform();
            gap += SimTime::from_secs_f64(self.idle(u));
        }
        self.rem -= 1;
        gap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    #[test]
    fn bursts_round_to_the_nearest_packet_and_never_to_zero() {
        assert_eq!(burst_packets(0.0), 1);
        assert_eq!(burst_packets(0.3), 1);
        assert_eq!(burst_packets(0.5), 1);
        assert_eq!(burst_packets(1.49), 1);
        assert_eq!(burst_packets(2.49), 2);
        assert_eq!(burst_packets(2.5), 3);
        assert_eq!(burst_packets(1e30), u64::MAX); // saturates
    }

    /// The gaps follow ns-2's order: from the start, an idle period (and an interval) before
    /// the first drawn burst, whose packets follow at the interval; an idle period after its
    /// last packet, and so on; each burst is drawn before its idle time, from one stream.
    #[test]
    fn gaps_are_the_interval_within_a_burst_and_add_an_idle_period_after_it() {
        let interval = SimTime::from_millis(4);
        let (on, off) = (SimTime::from_millis(10), SimTime::from_millis(100));
        let mut s = OnOff::new(Dist::Exponential, on, off, interval, Rng::derive(3, "x"));
        let mut draws = Rng::derive(3, "x");
        for _ in 0..50 {
            // A burst of mean 10 ms / 4 ms = 2.5 packets, an idle period of mean 0.1 s.
            let n = burst_packets(-2.5 * (1.0 - draws.uniform()).ln());
            let idle = -0.1 * (1.0 - draws.uniform()).ln();
            let first = s.next_gap(interval);
            assert_eq!(first, interval + SimTime::from_secs_f64(idle));
            for _ in 1..n {
                assert_eq!(s.next_gap(interval), interval);
            }
        }
    }

    /// Over many bursts the mean burst of an exponential with mean m packets is
    /// E[max(1, ⌊X + ½⌋)] = e^(−1/(2m))/(1 − e^(−1/m)) + 1 − e^(−1/(2m)): for m = 10,
    /// 0.9512294/0.0951626 + 0.0487706 = 10.044611 packets; the idle times average `off`.
    #[test]
    fn exponential_bursts_and_idle_times_have_their_means() {
        let interval = SimTime::from_millis(1);
        let (on, off) = (SimTime::from_millis(10), SimTime::from_millis(50));
        let mut s = OnOff::new(Dist::Exponential, on, off, interval, Rng::derive(9, "e"));
        let (mut bursts, mut packets, mut idle) = (0u64, 0u64, 0.0);
        let mut gap = s.next_gap(interval); // from the start to the first burst
        while bursts < 200_000 {
            idle += (gap - interval).as_secs_f64();
            bursts += 1;
            packets += 1;
            loop {
                gap = s.next_gap(interval);
                if gap != interval {
                    break;
                }
                packets += 1;
            }
        }
        let mean_burst = packets as f64 / bursts as f64;
        assert!(close(mean_burst, 10.044_611, 0.005), "{mean_burst}");
        let mean_idle = idle / bursts as f64;
        assert!(close(mean_idle, 0.05, 0.01), "{mean_idle}");
    }

    #[test]
    fn an_idle_period_past_any_run_is_capped_not_overflowed() {
        // Shape just above 1 with a huge mean: the largest draws exceed 2^64 ns.
        let s = OnOff::new(
            Dist::Pareto { shape: 1.000_001 },
            SimTime::ZERO,
            SimTime::from_secs(1_000_000_000),
            SimTime::from_millis(1),
            Rng::derive(1, "big"),
        );
        let largest = 1.0 - f64::EPSILON / 2.0; // the largest uniform below 1
        assert!(s.dist.value(s.off_mean, largest) > 1e15); // seconds: 1e24 ns
        assert_eq!(s.idle(largest), MAX_IDLE_SECS);
        assert_eq!(s.idle(0.0), s.dist.value(s.off_mean, 0.0));
    }
}
