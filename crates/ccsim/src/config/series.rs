//! Time series a scenario can ask for (`trace.series`).

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeriesName {
    /// Congestion window per TCP flow, segments.
    Cwnd,
    /// Slow-start threshold per TCP flow, segments.
    Ssthresh,
    /// Smoothed RTT per TCP flow, seconds.
    Srtt,
    /// Retransmission timeout per TCP flow, seconds.
    Rto,
    /// Every RTT sample per TCP flow, seconds.
    Rtt,
    /// Delivered (goodput) bits per second per flow, binned.
    Throughput,
    /// Queue length in packets per link direction.
    Queue,
    /// Queue length in bytes per link direction.
    QueueBytes,
    /// Loss-recovery state per TCP flow: 0 open, 1 fast recovery, 2 after a timeout.
    Recovery,
    /// The discipline's average queue per link direction, packets (RED's EWMA; recorded only
    /// for disciplines that keep one).
    AvgQueue,
    /// Sojourn time of the last packet to leave the queue per link direction, seconds.
    Sojourn,
    /// The congestion control's bandwidth estimate per TCP flow, bits per second (Westwood+'s
    /// BWE, NDCA's BW; recorded only for algorithms that keep one).
    BwEstimate,
    /// The ACNS command in force per TCP flow: 1 normal, 2 freeze, 3 fallback (recorded only
    /// for connections using ACNS).
    AcnsCommand,
    /// 1 while the congestion control's hold is on, else 0, per TCP flow (NDCA's hold near
    /// saturation, which stops growth above its estimated threshold; recorded only for
    /// algorithms that have one).
    CwndHold,
}

impl SeriesName {
    pub const ALL: [SeriesName; 14] = [
        SeriesName::Cwnd,
        SeriesName::Ssthresh,
        SeriesName::Srtt,
        SeriesName::Rto,
        SeriesName::Rtt,
        SeriesName::Throughput,
        SeriesName::Queue,
        SeriesName::QueueBytes,
        SeriesName::Recovery,
        SeriesName::AvgQueue,
        SeriesName::Sojourn,
        SeriesName::BwEstimate,
        SeriesName::AcnsCommand,
        SeriesName::CwndHold,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            SeriesName::Cwnd => "cwnd",
            SeriesName::Ssthresh => "ssthresh",
            SeriesName::Srtt => "srtt",
            SeriesName::Rto => "rto",
            SeriesName::Rtt => "rtt",
            SeriesName::Throughput => "throughput",
            SeriesName::Queue => "queue",
            SeriesName::QueueBytes => "queue_bytes",
            SeriesName::Recovery => "recovery",
            SeriesName::AvgQueue => "avg_queue",
            SeriesName::Sojourn => "sojourn",
            SeriesName::BwEstimate => "bw_estimate",
            SeriesName::AcnsCommand => "acns_command",
            SeriesName::CwndHold => "cwnd_hold",
        }
    }
}
