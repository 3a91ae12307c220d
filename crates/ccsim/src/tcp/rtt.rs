//! RTT estimation and the retransmission timeout — RFC 6298 §2 and §5.
//!
//! SRTT and RTTVAR follow (2.2)/(2.3) with α = 1/8, β = 1/4, K = 4. The minimum RTO applies
//! either to the RTO itself (RFC 6298 (2.4), ns-2, ns-3) or, as Linux does, to the variance
//! term: RTO = SRTT + max(K·RTTVAR, min_rto) — so Linux's RTO is never below SRTT + 200 ms.
//! Back-off doubles the RTO per expiry (5.5), up to `max_rto`, and collapses when a new
//! sample is taken.

use crate::config::RtoFloor;
use crate::time::SimTime;

const ALPHA: f64 = 1.0 / 8.0;
const BETA: f64 = 1.0 / 4.0;
const K: f64 = 4.0;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    rto: SimTime,
    backoff: u32,
    /// The floor and the clock granularity in seconds, converted once: every sample uses
    /// them.
    min_rto: f64,
    max_rto: SimTime,
    granularity: f64,
    floor: RtoFloor,
}

impl RttEstimator {
    pub fn new(
        initial: SimTime,
        min_rto: SimTime,
        max_rto: SimTime,
        granularity: SimTime,
        floor: RtoFloor,
    ) -> Self {
        RttEstimator {
            srtt: 0.0,
            rttvar: 0.0,
            has_sample: false,
            rto: initial,
            backoff: 0,
            min_rto: min_rto.as_secs_f64(),
            max_rto,
            granularity: granularity.as_secs_f64(),
            floor,
        }
    }

    /// Takes one RTT measurement, in seconds (the caller applies Karn's rule), and resets
    /// the back-off.
    pub fn sample(&mut self, r: f64) {
        if !self.has_sample {
            // (2.2)
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_sample = true;
        } else {
            // (2.3): RTTVAR first, with the old SRTT.
            self.rttvar = (1.0 - BETA) * self.rttvar + BETA * (self.srtt - r).abs();
            self.srtt = (1.0 - ALPHA) * self.srtt + ALPHA * r;
        }
        let (g, min) = (self.granularity, self.min_rto);
        let rto = match self.floor {
            RtoFloor::Rto => (self.srtt + g.max(K * self.rttvar)).max(min),
            RtoFloor::Variance => self.srtt + (K * self.rttvar).max(min).max(g),
        };
        self.rto = SimTime::from_secs_f64(rto).min(self.max_rto);
        self.backoff = 0;
    }

    /// The current timeout including back-off.
    pub fn rto(&self) -> SimTime {
        let f = 1u64 << self.backoff.min(30);
        self.rto.saturating_mul(f).min(self.max_rto)
    }

    /// Doubles the timeout (5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    pub fn srtt(&self) -> SimTime {
        if self.has_sample {
            SimTime::from_secs_f64(self.srtt)
        } else {
            SimTime::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(60),
            ms(1),
            RtoFloor::Rto,
        );
        assert_eq!(e.rto(), SimTime::from_secs(1)); // (2.1)
        e.sample(ms(100).as_secs_f64());
        // (2.2): SRTT 100 ms, RTTVAR 50 ms, RTO = 100 + 4·50 = 300 ms
        assert_eq!(e.rto(), ms(300));
        e.sample(ms(200).as_secs_f64());
        // (2.3): RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5
        // RTO = 112.5 + 250 = 362.5 ms
        assert_eq!(e.rto(), SimTime::from_micros(362_500));
        assert_eq!(e.srtt(), SimTime::from_micros(112_500));
    }

    #[test]
    fn rfc_floor_applies_to_the_rto_linux_floor_to_the_variance() {
        let mut rfc = RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_secs(1),
            SimTime::from_secs(60),
            ms(1),
            RtoFloor::Rto,
        );
        rfc.sample(ms(40).as_secs_f64());
        assert_eq!(rfc.rto(), SimTime::from_secs(1)); // 40 + 80 = 120 ms → 1 s
        let mut lnx = RttEstimator::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(120),
            ms(1),
            RtoFloor::Variance,
        );
        lnx.sample(ms(40).as_secs_f64());
        assert_eq!(lnx.rto(), ms(240)); // 40 + max(80, 200)
    }

    #[test]
    fn backoff_doubles_caps_and_collapses_on_a_sample() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(5),
            ms(1),
            RtoFloor::Rto,
        );
        e.back_off();
        assert_eq!(e.rto(), SimTime::from_secs(2));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), SimTime::from_secs(5)); // capped at max_rto
        e.sample(ms(100).as_secs_f64());
        assert_eq!(e.rto(), ms(300));
        assert_eq!(e.backoff(), 0);
    }
}
