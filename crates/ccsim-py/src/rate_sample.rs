//! The delivery-rate sample as a Python `cong_control` hook reads it (`python_cc.rs`): the
//! core's `RateSample` (`ccsim::tcp::rate`, Linux `struct rate_sample`) in seconds and
//! segments.

use pyo3::prelude::*;

use ccsim::tcp::cc::RateSample as CoreSample;

/// One ACK's delivery-rate sample (Linux `struct rate_sample`), read-only.
#[pyclass(module = "ccsim._core", frozen)]
pub struct RateSample {
    /// Segments delivered over the sampling interval (0 for an invalid sample).
    #[pyo3(get)]
    delivered: u64,
    /// The sampling interval, seconds (the longer of the send and ACK phases); None for an
    /// invalid sample (no timing, or shorter than the minimum RTT).
    #[pyo3(get)]
    interval: Option<f64>,
    /// The delivery rate, segments per second (`delivered / interval`); None for an invalid
    /// sample.
    #[pyo3(get)]
    rate: Option<f64>,
    /// Segments this ACK newly SACKed or acknowledged.
    #[pyo3(get)]
    acked_sacked: u64,
    /// Segments newly marked lost while handling this ACK.
    #[pyo3(get)]
    losses: u64,
    /// Segments in flight before this ACK, and after it (Linux `tcp_packets_in_flight`).
    #[pyo3(get)]
    prior_in_flight: u64,
    #[pyo3(get)]
    in_flight: u64,
    /// The RTT of the newest segment this ACK delivered, seconds, if it was never
    /// retransmitted.
    #[pyo3(get)]
    rtt: Option<f64>,
    /// Some moment of the sampled window left the connection without data to send.
    #[pyo3(get)]
    is_app_limited: bool,
    /// The sampled segment was a retransmission.
    #[pyo3(get)]
    is_retrans: bool,
    /// The connection's delivered count when the sampled segment was sent.
    #[pyo3(get)]
    prior_delivered: u64,
    /// When the connection's delivered count last grew, seconds (Linux `delivered_mstamp`).
    #[pyo3(get)]
    delivered_time: f64,
}

impl RateSample {
    pub fn of(rs: &CoreSample) -> RateSample {
        RateSample {
            delivered: rs.delivered,
            interval: rs.interval.map(|t| t.as_secs_f64()),
            rate: rs.rate(),
            acked_sacked: rs.acked_sacked,
            losses: rs.losses,
            prior_in_flight: rs.prior_in_flight,
            in_flight: rs.in_flight,
            rtt: rs.rtt.map(|t| t.as_secs_f64()),
            is_app_limited: rs.is_app_limited,
            is_retrans: rs.is_retrans,
            prior_delivered: rs.prior_delivered,
            delivered_time: rs.delivered_time.as_secs_f64(),
        }
    }
}

#[pymethods]
impl RateSample {
    fn __repr__(&self) -> String {
        let opt = |v: Option<f64>| v.map_or("None".to_string(), |x| format!("{x}"));
        format!(
            "RateSample(delivered={}, interval={}, rate={}, acked_sacked={}, losses={}, \
             prior_in_flight={}, in_flight={}, rtt={}, is_app_limited={}, is_retrans={}, \
             prior_delivered={}, delivered_time={})",
            self.delivered,
            opt(self.interval),
            opt(self.rate),
            self.acked_sacked,
            self.losses,
            self.prior_in_flight,
            self.in_flight,
            opt(self.rtt),
            if self.is_app_limited { "True" } else { "False" },
            if self.is_retrans { "True" } else { "False" },
            self.prior_delivered,
            self.delivered_time,
        )
    }
}
