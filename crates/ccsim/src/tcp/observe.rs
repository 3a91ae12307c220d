//! What the sender shows of itself as time series: the same values whether a series is
//! sampled at an interval (`sim::Simulation::sample`) or recorded on every change (`trace`).

use super::cc::{CaState, CongestionControl};
use super::sender::Sender;
use super::Io;
use crate::config::SeriesName;

impl Sender {
    /// Each sender series with its current value, for the ones this connection has (an
    /// algorithm's estimates only where it keeps them, the pacing rate only while paced).
    pub fn observe(&self, mut put: impl FnMut(SeriesName, f64)) {
        put(SeriesName::Cwnd, self.st.cwnd);
        put(SeriesName::Ssthresh, self.st.ssthresh);
        put(SeriesName::Srtt, self.st.srtt.as_secs_f64());
        put(SeriesName::Rto, self.rto().as_secs_f64());
        put(SeriesName::Recovery, self.recovery_code());
        if let Some(bw) = self.cc.bw_estimate() {
            put(SeriesName::BwEstimate, bw * 8.0); // bytes to bits per second
        }
        if let Some(h) = self.cc.holding() {
            put(SeriesName::CwndHold, h as u8 as f64);
        }
        if let Some(c) = self.acns_command() {
            put(SeriesName::AcnsCommand, c);
        }
        if self.pacer.is_some() && self.st.pacing_rate.is_finite() {
            put(SeriesName::PacingRate, self.st.pacing_rate * 8.0);
        }
        if let Some(m) = self.cc.mode() {
            put(SeriesName::CcMode, m);
        }
        if let Some(m) = self.cc.min_rtt_estimate() {
            put(SeriesName::MinRtt, m);
        }
        if let Some(a) = self.cc.ecn_alpha() {
            put(SeriesName::EcnAlpha, a);
        }
        if let Some((lo, hi)) = self.cc.inflight_bounds() {
            put(SeriesName::InflightLo, lo);
            put(SeriesName::InflightHi, hi);
        }
    }

    /// Records the on-change series.
    pub fn trace(&self, io: &mut Io) {
        let r = &mut *io.rec;
        if !r.on_change() {
            return;
        }
        let (f, now) = (self.flow, io.now);
        self.observe(|s, v| r.changed(s, f, now, v));
    }

    /// 0 open (or CWR), 1 fast recovery, 2 after a timeout.
    pub fn recovery_code(&self) -> f64 {
        match self.st.ca_state {
            CaState::Open | CaState::Cwr => 0.0,
            CaState::Recovery => 1.0,
            CaState::Loss => 2.0,
        }
    }
}
