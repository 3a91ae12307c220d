//! On-off UDP traffic as ns-2 generates it (`Application/Traffic/Exponential` in
//! `tools/expoo.cc`, `Application/Traffic/Pareto` in `tools/pareto.cc`): bursts of packets at
//! the source's rate, separated by idle periods.
//!
//! ns-2 counts a burst in packets, not in time. The mean burst is `on / interval` packets
//! (`interval` = size·8/rate, the gap between a burst's packets); each burst's length is a draw
//! from the distribution with that mean, rounded to the nearest whole number (`int(x + 0.5)`),
//! at least one. Each idle period is a draw with mean `off`, added to the interval after the
//! last packet of a burst. The source sends its first packet at its start and draws the first
//! burst then, so a run opens with one packet, an idle period, then the first drawn burst.
//! Both draws come from the flow's own stream (`rng.rs`), the burst first, as ns-2 does.
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

    /// The time from the packet just sent to the next one: `interval` within a burst; after a
    /// burst's last packet, the next burst's length is drawn and an idle period is added.
    pub fn next_gap(&mut self, interval: SimTime) -> SimTime {
        let mut gap = interval;
        if self.rem == 0 {
            let u = self.rng.uniform();
            self.rem = burst_packets(self.dist.value(self.burst_mean, u));
            let u = self.rng.uniform();
            let idle = self.dist.value(self.off_mean, u).min(MAX_IDLE_SECS);
            gap += SimTime::from_secs_f64(idle);
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

    /// The gaps follow ns-2's order: an idle period after the first packet, then the drawn
    /// burst at the interval, an idle period after its last packet, and so on; the burst is
    /// drawn before the idle time from one stream.
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
        let mut gap = s.next_gap(interval); // the first packet's idle period
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
        // The opening packet, sent before the first idle period, is in no drawn burst and is
        // not counted.
        let mean_burst = packets as f64 / bursts as f64;
        assert!(close(mean_burst, 10.044_611, 0.005), "{mean_burst}");
        let mean_idle = idle / bursts as f64;
        assert!(close(mean_idle, 0.05, 0.01), "{mean_idle}");
    }

    #[test]
    fn an_idle_period_past_any_run_is_capped_not_overflowed() {
        // Shape just above 1 with a huge mean: draws far beyond 2^64 ns must not wrap.
        let interval = SimTime::from_millis(1);
        let mut s = OnOff::new(
            Dist::Pareto { shape: 1.000_001 },
            SimTime::ZERO,
            SimTime::from_secs(1_000_000_000),
            interval,
            Rng::derive(1, "big"),
        );
        for _ in 0..1000 {
            let g = s.next_gap(interval);
            assert!(g <= interval + SimTime::from_secs_f64(MAX_IDLE_SECS));
        }
    }
}
