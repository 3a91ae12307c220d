//! TCP Hybla — Caini & Firrincieli (2004), as Linux `tcp_hybla.c` (spec §9.1).
//!
//! Hybla makes window growth per unit of time independent of the RTT by scaling Reno's rules
//! with `ρ = max(RTT/RTT0, 1)`: slow start adds `2^min(ρ,16) − 1` and avoidance `ρ²/cwnd` per ACK, so a
//! long-RTT flow grows like a flow with RTT0. ρ follows the smallest smoothed RTT seen. As in
//! Linux the rules are per ACK (the module ignores how many segments an ACK covers), slow start
//! is capped at ssthresh, the loss response is Reno's, and Hybla is off outside the Open state.
//! Linux computes ρ with 3 fractional bits; ccsim keeps it exact. Linux also sets cwnd = ρ when
//! the module starts; ccsim keeps the connection's initial window.

use schemars::JsonSchema;
use serde::Deserialize;

use super::reno::Reno;
use super::{AckSample, BuildContext, CaState, CcConfig, CongestionControl, ParamError, TcpState};
use crate::config::units::Duration;
use crate::time::SimTime;

#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HyblaConfig {
    /// The reference RTT0 (Linux `rtt0` = 25 ms; ns-3's `RRTT` is 50 ms).
    #[serde(default)]
    pub rtt0: Option<Duration>,
}

impl CcConfig for HyblaConfig {
    type Algorithm = Hybla;

    fn build(&self, _ctx: &BuildContext) -> Result<Hybla, ParamError> {
        let rtt0 = self.rtt0.map_or(SimTime::from_millis(25), |d| d.0);
        if rtt0 == SimTime::ZERO {
            return Err(("rtt0", "must be a positive duration".into()));
        }
        Ok(Hybla {
            rtt0: rtt0.as_secs_f64(),
            rho: 1.0,
            min_srtt: SimTime::MAX,
            enabled: true,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: f64,
    rho: f64,
    min_srtt: SimTime,
    enabled: bool,
}

impl Hybla {
    pub fn rho(&self) -> f64 {
        self.rho
    }
}

impl CongestionControl for Hybla {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        Reno.ssthresh(st)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if !self.enabled {
            Reno.cong_avoid(st, ack);
            return;
        }
        if st.srtt > SimTime::ZERO && st.srtt < self.min_srtt {
            // `hybla_recalc_param` whenever a new minimum smoothed RTT is seen.
            self.min_srtt = st.srtt;
            self.rho = (st.srtt.as_secs_f64() / self.rtt0).max(1.0);
        }
        if st.in_slow_start() {
            // Linux caps the exponent at 16 (`min(rho, 16U)`) so a long path cannot jump the
            // window by more than 65 535 segments per ACK.
            st.cwnd = (st.cwnd + self.rho.min(16.0).exp2() - 1.0).min(st.ssthresh);
        } else {
            st.cwnd += self.rho * self.rho / st.cwnd;
        }
    }

    fn set_state(&mut self, _st: &mut TcpState, new: CaState) {
        self.enabled = new == CaState::Open;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn hybla() -> Hybla {
        HyblaConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    #[test]
    fn rho_scales_the_increments_by_hand() {
        // SRTT 100 ms, RTT0 25 ms → ρ = 4. Slow start: +2⁴ − 1 = 15 per ACK.
        let mut h = hybla();
        let mut st = test_state(10.0, 1000.0);
        st.srtt = SimTime::from_millis(100);
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(h.rho(), 4.0);
        assert_eq!(st.cwnd, 25.0);
        // Avoidance at cwnd 32: +ρ²/cwnd = 16/32 = 0.5 per ACK.
        st.cwnd = 32.0;
        st.ssthresh = 20.0;
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 32.5);
    }

    #[test]
    fn short_rtts_behave_as_reno_and_slow_start_stops_at_ssthresh() {
        // SRTT 10 ms < RTT0: ρ = 1, so +1 per ACK in slow start, +1/cwnd in avoidance.
        let mut h = hybla();
        let mut st = test_state(10.0, 10.5);
        st.srtt = SimTime::from_millis(10);
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(h.rho(), 1.0);
        assert_eq!(st.cwnd, 10.5); // 11 capped at ssthresh 10.5
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - (10.5 + 1.0 / 10.5)).abs() < 1e-12);
    }

    #[test]
    fn rho_follows_only_a_smaller_srtt() {
        // ρ = 2 at 50 ms; a later 75 ms SRTT leaves it; 40 ms brings it to 1.6.
        let mut h = hybla();
        let mut st = test_state(50.0, 10.0);
        for (ms, rho) in [(50, 2.0), (75, 2.0), (40, 1.6)] {
            st.srtt = SimTime::from_millis(ms);
            h.cong_avoid(&mut st, &test_ack(1.0, None));
            assert!((h.rho() - rho).abs() < 1e-12, "{ms} ms");
        }
    }
}
