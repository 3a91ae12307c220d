//! TCP Westwood+ — Mascolo et al. (2001), Grieco & Mascolo (2004), as Linux
//! `tcp_westwood.c` (spec §8).
//!
//! Growth is Reno's. The sender estimates the bandwidth its ACKs report: bytes acknowledged
//! over a sample window of at least one RTT (and at least 50 ms), through two cascaded EWMAs
//! of gain 1/8. After a loss the window is set to the pipe that estimate fills,
//! `BWE · RTT_min / MSS` (at least 2): on leaving fast recovery (Linux
//! `CA_EVENT_COMPLETE_CWR`) both cwnd and ssthresh, after a timeout (`CA_EVENT_LOSS`) ssthresh.
//! Linux also counts each duplicate ACK as one MSS delivered and corrects at the next
//! cumulative ACK; ccsim counts cumulative ACKs only, which sums to the same bytes per window.

use schemars::JsonSchema;
use serde::Deserialize;

use super::reno::Reno;
use super::{AckSample, BuildContext, CaEvent, CcConfig, CongestionControl, ParamError, TcpState};
use crate::time::SimTime;

/// Linux `TCP_WESTWOOD_RTT_MIN` (HZ/20): the shortest sample window.
const MIN_WINDOW: SimTime = SimTime::from_millis(50);

/// Westwood+ has no parameters.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WestwoodConfig {}

impl CcConfig for WestwoodConfig {
    type Algorithm = Westwood;

    fn build(&self, _ctx: &BuildContext) -> Result<Westwood, ParamError> {
        Ok(Westwood::default())
    }
}

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    /// Bytes acknowledged in the current sample window.
    bk: f64,
    win_start: Option<SimTime>,
    /// The last RTT sample.
    rtt: SimTime,
    rtt_min: Option<SimTime>,
    /// First filter stage and the estimate itself, bytes per second.
    bw_ns_est: f64,
    bw_est: f64,
    have_estimate: bool,
}

impl Westwood {
    pub fn new() -> Westwood {
        Westwood::default()
    }

    /// Bandwidth estimate, bytes per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw_est
    }

    /// Linux `westwood_filter`: `x ← (7x + sample)/8` twice; the first sample sets both.
    fn filter(&mut self, sample: f64) {
        if self.have_estimate {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        } else {
            self.bw_ns_est = sample;
            self.bw_est = sample;
            self.have_estimate = true;
        }
    }

    /// `BWE · RTT_min` in segments, at least 2 (Linux `tcp_westwood_bw_rttmin`).
    fn bw_rttmin(&self, st: &TcpState) -> f64 {
        let rtt_min = self.rtt_min.unwrap_or(SimTime::ZERO).as_secs_f64();
        (self.bw_est * rtt_min / st.mss as f64).max(2.0)
    }
}

impl CongestionControl for Westwood {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        Reno.ssthresh(st)
    }

    /// BWE (zero until the first sample window closes).
    fn bw_estimate(&self) -> Option<f64> {
        Some(self.bw_est)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        Reno.cong_avoid(st, ack);
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if let Some(r) = ack.rtt {
            self.rtt = r;
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        let now = st.now;
        let start = *self.win_start.get_or_insert(now);
        self.bk += ack.segments as f64 * st.mss as f64;
        // Linux `westwood_update_window`: close the window after max(RTT, 50 ms).
        let delta = now - start;
        if self.rtt > SimTime::ZERO && delta > self.rtt.max(MIN_WINDOW) {
            let sample = self.bk / delta.as_secs_f64();
            self.filter(sample);
            self.bk = 0.0;
            self.win_start = Some(now);
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        match ev {
            CaEvent::RecoveryExit => {
                st.ssthresh = self.bw_rttmin(st);
                st.cwnd = st.ssthresh;
            }
            CaEvent::Timeout => {
                st.ssthresh = self.bw_rttmin(st);
                // Linux `reset_rtt_min`: the next sample re-seeds RTT_min.
                self.rtt_min = None;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_state};
    use super::*;

    #[test]
    fn cascaded_filter_by_hand() {
        // Samples 1000, 2000 B/s: first sets both to 1000; then
        // bw_ns = (7·1000 + 2000)/8 = 1125, bw = (7·1000 + 1125)/8 = 1015.625.
        let mut w = Westwood::new();
        w.filter(1000.0);
        w.filter(2000.0);
        assert_eq!(w.bw_ns_est, 1125.0);
        assert_eq!(w.bw_est, 1015.625);
    }

    #[test]
    fn a_sample_window_closes_after_one_rtt_and_at_least_50_ms() {
        // MSS 1000. RTT 100 ms. 10 segments acked at t = 0, 10 at 60 ms (not yet past
        // max(RTT, 50 ms) = 100 ms), 10 at 101 ms: sample = 30 000 B / 0.101 s.
        let mut w = Westwood::new();
        let mut st = test_state(10.0, 100.0);
        for t in [0, 60, 101] {
            st.now = SimTime::from_millis(t);
            w.pkts_acked(&st, &test_ack(10.0, Some(100)));
        }
        assert!((w.bandwidth() - 30_000.0 / 0.101).abs() < 1e-6);
    }

    #[test]
    fn ssthresh_after_loss_is_bandwidth_times_min_rtt() {
        // BWE 1.25 MB/s (10 Mb/s), RTT_min 80 ms, MSS 1000 → 100 000 B = 100 segments.
        let mut w = Westwood::new();
        w.filter(1_250_000.0);
        w.rtt_min = Some(SimTime::from_millis(80));
        let mut st = test_state(150.0, 1000.0);
        // Entering recovery halves (Reno); leaving it sets cwnd = ssthresh = BWE·RTT_min.
        assert_eq!(w.ssthresh(&st), 75.0);
        w.cwnd_event(&mut st, CaEvent::RecoveryExit);
        assert!((st.ssthresh - 100.0).abs() < 1e-9);
        assert!((st.cwnd - 100.0).abs() < 1e-9);
        // After a timeout: ssthresh from the estimate; RTT_min is forgotten.
        let mut st = test_state(150.0, 1000.0);
        w.cwnd_event(&mut st, CaEvent::Timeout);
        assert!((st.ssthresh - 100.0).abs() < 1e-9);
        assert!(w.rtt_min.is_none());
        // No estimate yet: the floor of 2 segments.
        let mut w = Westwood::new();
        w.cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(st.ssthresh, 2.0);
    }
}
