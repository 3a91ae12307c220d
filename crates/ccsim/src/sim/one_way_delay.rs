//! One-way delay of each flow's data packets (TCP data, UDP) that reached their destination.

use crate::time::SimTime;

/// One-way delays summed in whole nanoseconds, exactly, and converted to seconds once at the
/// end rather than with a division per delivered packet (docs/performance.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct Owd {
    sum: u128,
    max: SimTime,
    n: u64,
}

impl Owd {
    #[inline]
    pub(crate) fn add(&mut self, d: SimTime) {
        self.sum += d.as_nanos() as u128;
        self.max = self.max.max(d);
        self.n += 1;
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
        // 0.1 s three times and 0.4 s: mean 0.175 s, largest 0.4 s. Summed in seconds the
        // mean would be 0.17500000000000002; in nanoseconds the sum is exact.
        for ms in [100, 100, 100, 400] {
            o.add(SimTime::from_millis(ms));
        }
        assert_eq!(o.mean_max(), Some((0.175, 0.4)));
    }
}
