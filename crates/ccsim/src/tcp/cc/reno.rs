//! Reno AIMD — RFC 5681 §3.1, in Linux's form (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`).
//!
//! Slow start adds one segment per segment acknowledged (or per ACK, see `AckSample::acked`)
//! up to ssthresh; congestion avoidance adds `acked / cwnd`, about one segment per RTT. After a
//! loss ssthresh is half the window, at least 2 segments. Like Linux and ns-2 (and unlike RFC
//! 5681 equation 4, which halves FlightSize) the window halved is cwnd, capped by the receiver
//! window as ns-2's `min(cwnd, window_)`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CcConfig, CongestionControl, ParamError,
    TcpState,
};

/// Reno has no parameters.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {}

impl CcConfig for RenoConfig {
    type Algorithm = Reno;

    fn build(&self, _ctx: &BuildContext) -> Result<Reno, ParamError> {
        Ok(Reno)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        (st.cwnd.min(st.rwnd) / 2.0).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            if acked <= 0.0 {
                return;
            }
        }
        let w = st.cwnd;
        cong_avoid_ai(st, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_state;
    use super::*;

    fn ack(acked: f64) -> AckSample {
        super::super::test_ack(acked, None)
    }

    #[test]
    fn slow_start_adds_one_segment_per_segment_acked() {
        let mut st = test_state(10.0, 100.0);
        Reno.cong_avoid(&mut st, &ack(2.0));
        assert_eq!(st.cwnd, 12.0);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_carries_the_rest_into_avoidance() {
        // cwnd 9, ssthresh 10, 3 acked: +1 to reach 10, then 2/10 in avoidance = 10.2
        let mut st = test_state(9.0, 10.0);
        Reno.cong_avoid(&mut st, &ack(3.0));
        assert!((st.cwnd - 10.2).abs() < 1e-12, "{}", st.cwnd);
    }

    #[test]
    fn avoidance_adds_one_segment_per_window() {
        // 20 ACKs of one segment each at cwnd 20: sum of 1/w over a growing w ≈ 0.976 segments
        let mut st = test_state(20.0, 10.0);
        let mut expect = 20.0;
        for _ in 0..20 {
            Reno.cong_avoid(&mut st, &ack(1.0));
            expect += 1.0 / expect;
        }
        assert!((st.cwnd - expect).abs() < 1e-12);
        assert!(st.cwnd > 20.97 && st.cwnd < 21.0);
    }

    #[test]
    fn ssthresh_halves_the_window_but_not_below_two() {
        assert_eq!(Reno.ssthresh(&test_state(30.0, 100.0)), 15.0);
        assert_eq!(Reno.ssthresh(&test_state(3.0, 100.0)), 2.0);
        let mut st = test_state(40.0, 100.0);
        st.rwnd = 20.0; // ns-2 halves min(cwnd, window_)
        assert_eq!(Reno.ssthresh(&st), 10.0);
    }
}
