//! One-way delay of each flow's data packets (TCP data, UDP) that reached their destination,
//! and when the last of them arrived (the end of the interval goodput is taken over,
//! `results.rs`).

use crate::time::SimTime;

/// One-way delays summed in whole nanoseconds, exactly, and converted to seconds once at the
/// end rather than with a division per delivered packet (docs/performance.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct Owd {
    sum: u128,
    max: SimTime,
    n: u64,
    last: SimTime,
}

impl Owd {
    #[inline]
    pub(crate) fn add(&mut self, sent: SimTime, now: SimTime) {
        let d = now - sent;
        self.sum += d.as_nanos() as u128;
        self.max = self.max.max(d);
        self.n += 1;
        self.last = now;
    }

    /// When the last packet arrived, if any did.
    pub fn last_arrival(&self) -> Option<SimTime> {
        (self.n > 0).then_some(self.last)
    }

    /// Mean and largest delay, seconds, if any packet arrived.
    pub fn mean_max(&self) -> Option<(f64, f64)> {
        (self.n > 0).then(|| {
            let mean = self.sum as f64 / self.n as f64 / 1e9;
            (mean, self.max.as_secs_f64())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_way_delays_are_summed_exactly() {
        let mut o = Owd::default();
        assert_eq!(o.mean_max(), None);
        assert_eq!(o.last_arrival(), None);
        // 0.1 s three times and 0.4 s: mean 0.175 s, largest 0.4 s. Summed in seconds the
        // mean would be 0.17500000000000002; in nanoseconds the sum is exact.
        for (i, ms) in [100, 100, 100, 400].into_iter().enumerate() {
            let sent = SimTime::from_secs(i as u64);
            o.add(sent, sent + SimTime::from_millis(ms));
        }
        assert_eq!(o.mean_max(), Some((0.175, 0.4)));
        assert_eq!(o.last_arrival(), Some(SimTime::from_millis(3400)));
    }
}
