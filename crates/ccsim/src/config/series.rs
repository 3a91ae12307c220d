//! Time series a scenario can ask for (`trace.series`): one line each, with the endpoint or
//! queue whose state it reads. That source decides where the fast route must leave the state
//! observable (`sim/handover.rs` hands packets over early only to endpoints no series reads; queues
//! recorded on every change keep the general path).

use schemars::JsonSchema;
use serde::Deserialize;

/// Whose state a series reads as the run goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SeriesSource {
    /// A TCP sender's (per flow).
    Sender,
    /// What a flow's receiver has delivered (per flow).
    Receiver,
    /// A link direction's queue (per direction).
    Queue,
}

macro_rules! series {
    ($( $(#[$doc:meta])* $name:ident = $text:literal, $source:ident; )*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum SeriesName {
            $( $(#[$doc])* $name, )*
        }

        impl SeriesName {
            /// Every series, in declaration order (a series' discriminant is its place here).
            pub const ALL: [SeriesName; [$($text),*].len()] = [$(SeriesName::$name),*];

            /// The name scenarios and results give it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( SeriesName::$name => $text, )*
                }
            }

            /// Whose state it reads.
            pub const fn source(self) -> SeriesSource {
                match self {
                    $( SeriesName::$name => SeriesSource::$source, )*
                }
            }
        }
    };
}

series! {
    /// Congestion window per TCP flow, segments.
    Cwnd = "cwnd", Sender;
    /// Slow-start threshold per TCP flow, segments.
    Ssthresh = "ssthresh", Sender;
    /// Smoothed RTT per TCP flow, seconds.
    Srtt = "srtt", Sender;
    /// Retransmission timeout per TCP flow, seconds.
    Rto = "rto", Sender;
    /// Every RTT sample per TCP flow, seconds.
    Rtt = "rtt", Sender;
    /// Delivered (goodput) bits per second per flow, binned.
    Throughput = "throughput", Receiver;
    /// Queue length in packets per link direction.
    Queue = "queue", Queue;
    /// Queue length in bytes per link direction.
    QueueBytes = "queue_bytes", Queue;
    /// Loss-recovery state per TCP flow: 0 open, 1 fast recovery, 2 after a timeout.
    Recovery = "recovery", Sender;
    /// The discipline's average queue per link direction, packets (RED's EWMA; recorded only
    /// for disciplines that keep one).
    AvgQueue = "avg_queue", Queue;
    /// Sojourn time of the last packet to leave the queue per link direction, seconds.
    Sojourn = "sojourn", Queue;
    /// The congestion control's bandwidth estimate per TCP flow, bits per second (Westwood+'s
    /// BWE, NDCA's BW; recorded only for algorithms that keep one).
    BwEstimate = "bw_estimate", Sender;
    /// The ACNS command in force per TCP flow: 1 normal, 2 freeze, 3 fallback (recorded only
    /// for connections using ACNS).
    AcnsCommand = "acns_command", Sender;
    /// 1 while the congestion control's hold is on, else 0, per TCP flow (NDCA's hold near
    /// saturation, which stops growth above its estimated threshold; recorded only for
    /// algorithms that have one).
    CwndHold = "cwnd_hold", Sender;
    /// Every valid delivery-rate sample per TCP flow, bits per second (Linux `tcp_rate.c`:
    /// payload delivered over the sample's interval).
    DeliveryRate = "delivery_rate", Sender;
    /// The pacing rate per paced TCP flow, bits per second of packets on the wire (recorded
    /// only for flows that pace).
    PacingRate = "pacing_rate", Sender;
    /// The congestion control's state machine per TCP flow, as a number its documentation
    /// lists (BBR: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT, and BBRv3's ProbeBW phases 2
    /// DOWN, 4 CRUISE, 5 REFILL, 6 UP; recorded only for algorithms that have one).
    CcMode = "cc_mode", Sender;
    /// The congestion control's minimum-RTT estimate per TCP flow, seconds (BBR's windowed
    /// min_rtt; recorded only for algorithms that keep one).
    MinRtt = "min_rtt", Sender;
    /// The congestion control's estimate of the fraction of its packets marked CE per TCP
    /// flow, 0 to 1 (DCTCP's and Prague's α; recorded only for algorithms that keep one).
    EcnAlpha = "ecn_alpha", Sender;
    /// The congestion control's short-term lower bound on its flight per TCP flow, segments,
    /// infinite while unset (BBRv3's `inflight_lo`; recorded only for algorithms that keep one).
    InflightLo = "inflight_lo", Sender;
    /// The congestion control's long-term upper bound on its flight per TCP flow, segments,
    /// infinite while unset (BBRv3's `inflight_hi`; recorded only for algorithms that keep one).
    InflightHi = "inflight_hi", Sender;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_discriminants_are_places() {
        for (i, s) in SeriesName::ALL.iter().enumerate() {
            let parsed: SeriesName = serde_json::from_str(&format!("\"{}\"", s.as_str())).unwrap();
            assert_eq!(parsed, *s);
            assert_eq!(*s as usize, i);
        }
    }
}
