//! Simulated time and rates.
//!
//! Time is an integer count of nanoseconds (`SimTime`), never a float, so that event order and
//! results are bit-for-bit reproducible. Rates are integer bit/s. Conversions to seconds happen
//! only at the edges (results, configuration).

use std::fmt;

use crate::util::packed_option::{Opt, Sentinel};
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) simulated time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// An optional time in eight bytes (`util/packed_option.rs`): `SimTime::MAX` stands for none, and no run
/// reaches it (runs end before 2^60 ns, `config/units.rs`).
pub type OptTime = Opt<SimTime>;

impl Sentinel for SimTime {
    const NONE: SimTime = SimTime::MAX;
}

/// 2^63 as a float: nanosecond counts below it convert through i64.
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond (halves away from zero, as `f64::round`); negative and
    /// NaN inputs clamp to zero, and values past `u64::MAX` ns saturate.
    #[inline]
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            return SimTime(0);
        }
        // `f64::round` is a libm call on baseline x86-64 (no SSE4.1), and this runs on every
        // RTT sample. The cast truncates (saturating), and `x - trunc(x)` is exact for x >= 0
        // (Sterbenz), so comparing it with one half rounds exactly as `round` does.
        let x = s * 1e9;
        // Below 2^63 the conversions go through i64, cheaper than u64's on x86-64 (which
        // take fix-up sequences); the values, and so the result, are the same.
        if x < I64_LIMIT {
            let t = x as i64;
            return SimTime((t + (x - t as f64 >= 0.5) as i64) as u64);
        }
        let t = x as u64;
        SimTime(if x - t as f64 >= 0.5 {
            t.saturating_add(1)
        } else {
            t
        })
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    pub fn saturating_mul(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// A link or application rate in bit/s.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn bps(self) -> u64 {
        self.0
    }

    /// Time to serialise `bytes` at this rate, rounded up to the next nanosecond so that a
    /// link never transmits faster than its rate.
    pub fn tx_time(self, bytes: u32) -> SimTime {
        let bits = bytes as u128 * 8 * 1_000_000_000;
        let r = self.0 as u128;
        SimTime(bits.div_ceil(r) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_a_1500_byte_packet_at_10_mbps_is_1_2_ms() {
        // 1500 B * 8 = 12000 bit; 12000 / 10e6 = 1.2 ms
        assert_eq!(Rate(10_000_000).tx_time(1500), SimTime::from_micros(1200));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s = 2.666..e9 ns -> rounds up
        assert_eq!(Rate(3).tx_time(1).0, 2_666_666_667);
    }

    #[test]
    fn secs_round_to_the_nearest_nanosecond_as_f64_round_does() {
        let cases = [
            0.5e-9,
            1.5e-9,
            2.5e-9,
            0.5f64.next_down() * 1e-9,
            1e-9 * 4503599627370495.5,
            0.1,
            123.456789012345,
            1e-12,
            3e9,
            // Either side of 2^63 ns, where the conversion changes path.
            I64_LIMIT.next_down() / 1e9,
            I64_LIMIT / 1e9,
            I64_LIMIT.next_up() / 1e9,
            1e300,
            f64::INFINITY,
        ];
        // And a spread of magnitudes from picoseconds to years, with fractions near one half.
        let mut x: u64 = 7;
        let spread = (0..20_000).map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = (x >> 11) as f64 / (1u64 << 53) as f64;
            let half = (i % 3 == 0) as u8 as f64 * 0.5;
            (m * 10f64.powi(i % 12) + half) * 1e-9
        });
        for s in cases.into_iter().chain(spread) {
            let want = ((s * 1e9).round().min(u64::MAX as f64)) as u64;
            assert_eq!(SimTime::from_secs_f64(s).0, want, "{s:e}");
        }
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(SimTime::from_secs_f64(0.02), SimTime::from_millis(20));
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
        assert!((SimTime::from_millis(1500).as_secs_f64() - 1.5).abs() < 1e-12);
    }
}
