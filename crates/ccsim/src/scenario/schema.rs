//! The scenario schema: the single source of truth for what a scenario may say.
//!
//! TOML files, Python builders and plain dicts all produce this structure (as JSON), and
//! `ccsim schema` prints it as JSON Schema. Optional TCP settings left out take the values of
//! the scenario's defaults profile (`defaults = "linux" | "ns2" | "rfc"`, see `profiles.rs`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::arrivals::TcpArrivals;
use crate::config::de::tagged_enum;
use crate::config::units::{Bytes, Duration, RateSpec};
use crate::config::{AckCounting, Engine, Profile, Recovery, RtoFloor, SeriesName};
use crate::queue::QueueSpec;
use crate::tcp::cc::CcSpec;
use crate::tcp::slow_start::SlowStartSpec;

fn default_name() -> String {
    "scenario".to_string()
}
fn default_seed() -> u64 {
    1
}

/// A seed: any 64-bit unsigned integer; anything else is refused with the range (serde's own
/// message for a 20-digit seed was "number out of range").
fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    v.as_u64().ok_or_else(|| {
        serde::de::Error::custom(format!(
            "invalid seed {v}: expected a whole number from 0 to 18446744073709551615 (2^64 - 1)"
        ))
    })
}

/// `trace.series`: a list of series names; an item that is not one is refused at its index,
/// with the accepted names (serde's own message for a number was "expected value").
fn series_names<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<SeriesName>, D::Error> {
    let items = Vec::<serde_json::Value>::deserialize(d)?;
    let by_name = |v: &serde_json::Value| {
        let name = v.as_str()?;
        SeriesName::ALL.into_iter().find(|s| s.as_str() == name)
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            by_name(v).ok_or_else(|| {
                let accepted: Vec<&str> = SeriesName::ALL.iter().map(|s| s.as_str()).collect();
                let msg = format!(
                    "unknown series {v}: expected one of {}",
                    accepted.join(", ")
                );
                crate::config::de::err_at(&format!("[{i}]"), msg)
            })
        })
        .collect()
}

/// The most pairs a dumbbell has: ten times the 10,000 flows of the largest benchmark. A
/// pair is two nodes and two links to build (about 4 KB), and `pairs = 4294967295` took over
/// 2.5 GB to validate before it was bounded (issue 33).
pub const MAX_PAIRS: u32 = 100_000;

/// The most samples a time series may take per flow or link direction: `duration / interval`
/// and `duration / throughput_bin` are at most this. `interval = "1ns"` over a minute would be
/// 6·10^10 sampling events and 16 bytes per sample (issue 33); 10^7 allows a 1 ms interval
/// for 2.7 hours.
pub const MAX_SAMPLES: u64 = 10_000_000;

/// A complete simulation: a topology, the flows over it, and what to record.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name of the run; used for the results directory and figure titles.
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated time to run for.
    pub duration: Duration,
    /// Seed of every random stream in the run (each component derives its own stream from it).
    #[serde(default = "default_seed", deserialize_with = "seed")]
    pub seed: u64,
    /// Defaults profile for every setting a flow or queue leaves out.
    #[serde(default)]
    pub defaults: Profile,
    /// Forwarding route: "fast" (default) or "reference" (every packet by its own events);
    /// both give the same results.
    #[serde(default)]
    pub engine: Engine,
    pub topology: Topology,
    #[serde(default)]
    pub flows: Vec<Flow>,
    #[serde(default)]
    pub trace: TraceSpec,
}

/// The network: a helper shape or an explicit list of nodes and links.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(tag = "kind")]
pub enum Topology {
    #[schemars(rename = "dumbbell")]
    Dumbbell(Box<Dumbbell>),
    #[schemars(rename = "chain")]
    Chain(Chain),
    #[schemars(rename = "explicit")]
    Explicit(Explicit),
}
tagged_enum!(Topology, "topology kind", { "dumbbell" => Dumbbell, "chain" => Chain, "explicit" => Explicit });

/// `pairs` senders `s0..` and receivers `d0..` joined through routers `left` and `right`.
/// Links: `bottleneck` (left→right is its forward direction), `access_s{i}` (s{i}→left) and
/// `access_d{i}` (right→d{i}).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// Number of sender/receiver pairs, 1 to 100,000 (`MAX_PAIRS`).
    #[schemars(range(min = 1, max = MAX_PAIRS))]
    pub pairs: u32,
    pub bottleneck: LinkSpec,
    /// Access links; default: 10 times the bottleneck rate, 1 ms, the profile's queue.
    #[serde(default)]
    pub access: Option<LinkSpec>,
    /// Per-pair overrides of the sender-side access links (`left[i]` applies to `access_s{i}`),
    /// so that pairs can have different RTTs.
    #[serde(default)]
    pub left: Vec<LinkOverride>,
    /// Per-pair overrides of the receiver-side access links (`right[i]` applies to `access_d{i}`).
    #[serde(default)]
    pub right: Vec<LinkOverride>,
}

/// Nodes `n0..n{hops}` in a line; link `i` joins `n{i}` and `n{i+1}` and is named `n{i}-n{i+1}`
/// unless it has a name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Chain {
    /// One link spec per hop, in order from n0.
    pub links: Vec<LinkSpec>,
}

/// Any graph: named nodes and links between them; routes are shortest paths in hops.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Explicit {
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
}

/// A full-duplex point-to-point link: one queue and one loss model per direction.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Link name (explicit topologies: required; others: optional, to rename the link).
    #[serde(default)]
    pub name: Option<String>,
    /// First end (explicit topologies only); the forward direction is a→b.
    #[serde(default)]
    pub a: Option<String>,
    /// Second end (explicit topologies only).
    #[serde(default)]
    pub b: Option<String>,
    pub rate: RateSpec,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Queue discipline, one instance per direction; default: the profile's DropTail.
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    /// Loss model of the forward direction (a→b; left→right on a dumbbell bottleneck).
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Loss model of the reverse direction (b→a).
    #[serde(default)]
    pub loss_reverse: Option<LossSpec>,
}

/// A partial link spec overriding the fields it names.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    #[serde(default)]
    pub rate: Option<RateSpec>,
    #[serde(default)]
    pub delay: Option<Duration>,
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    #[serde(default)]
    pub loss: Option<LossSpec>,
    #[serde(default)]
    pub loss_reverse: Option<LossSpec>,
}

/// A random or scripted loss process on one link direction, applied as packets leave the
/// transmitter (so a lost packet still used the link's capacity, as in ns-2's error models).
#[derive(Debug, Clone, JsonSchema)]
#[schemars(tag = "kind")]
pub enum LossSpec {
    #[schemars(rename = "bernoulli")]
    Bernoulli(BernoulliSpec),
    #[schemars(rename = "gilbert_elliott")]
    GilbertElliott(GilbertElliottSpec),
    #[schemars(rename = "outage")]
    Outage(OutageSpec),
    #[schemars(rename = "list")]
    List(ListSpec),
}
tagged_enum!(LossSpec, "loss model", {
    "bernoulli" => Bernoulli, "gilbert_elliott" => GilbertElliott, "outage" => Outage, "list" => List,
});

/// Each packet is lost independently with probability `p`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BernoulliSpec {
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p: f64,
}

/// Two-state Markov chain, one step per packet: Good→Bad with `p_gb`, Bad→Good with `p_bg`;
/// a packet is lost with `loss_good` in Good and `loss_bad` in Bad. Starts in Good.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p_gb: f64,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p_bg: f64,
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_good: f64,
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_bad: f64,
}
fn one() -> f64 {
    1.0
}

/// Every packet is lost during each `[start, stop)` interval (a link outage).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    pub intervals: Vec<(Duration, Duration)>,
}

/// The packets with these 0-based indices (counting every packet this link direction
/// transmits) are lost: a crafted loss pattern, like ns-2's list error model.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSpec {
    pub packets: Vec<u64>,
}

/// A traffic source and its sink.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(tag = "kind")]
pub enum Flow {
    #[schemars(rename = "tcp")]
    Tcp(Box<TcpFlow>),
    #[schemars(rename = "cbr")]
    Cbr(CbrFlow),
    #[schemars(rename = "onoff")]
    OnOff(OnOffFlow),
    #[schemars(rename = "tcp_arrivals")]
    TcpArrivals(Box<TcpArrivals>),
}
tagged_enum!(Flow, "flow kind", {
    "tcp" => Tcp, "cbr" => Cbr, "onoff" => OnOff, "tcp_arrivals" => TcpArrivals
});

impl Flow {
    pub fn name(&self) -> &str {
        match self {
            Flow::Tcp(f) => &f.name,
            Flow::Cbr(f) => &f.name,
            Flow::OnOff(f) => &f.name,
            Flow::TcpArrivals(f) => &f.name,
        }
    }
}

/// A TCP connection from `src` to `dst`: bulk (unlimited) unless `size` is given.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpFlow {
    pub name: String,
    pub src: String,
    pub dst: String,
    /// When the application starts sending (default 0).
    #[serde(default)]
    pub start: Option<Duration>,
    /// When the application stops offering new data (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Bytes to transfer; a finite flow records its completion time.
    #[serde(default)]
    pub size: Option<Bytes>,
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Constant-bit-rate UDP from `src` to `dst`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrFlow {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub rate: RateSpec,
    /// Packet size on the wire, headers included (default 1000 bytes).
    #[serde(default)]
    pub packet_size: Option<Bytes>,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    /// DiffServ code point, 0–63.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: u8,
    /// ns-2's `random_`: each gap the interval plus a uniform draw within ±half of it.
    #[serde(default)]
    pub random: bool,
    /// ns-2's `maxpkts_`: stop after this many packets.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_packets: Option<u64>,
}

/// On-off UDP from `src` to `dst`, as ns-2's `Application/Traffic/Exponential` and `Pareto`:
/// bursts of packets at `rate`, separated by idle periods (`app/onoff.rs`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffFlow {
    pub name: String,
    pub src: String,
    pub dst: String,
    /// Sending rate within a burst.
    pub rate: RateSpec,
    /// Mean burst time (ns-2's `burst_time_`); 0 makes every burst one packet (Poisson-like).
    pub on: Duration,
    /// Mean idle time between bursts (ns-2's `idle_time_`).
    pub off: Duration,
    /// Distribution of burst lengths and idle times (default "exponential").
    #[serde(default)]
    pub distribution: OnOffDistribution,
    /// Pareto shape, greater than 1 (default 1.5, ns-2's); only with "pareto".
    #[serde(default)]
    pub shape: Option<f64>,
    /// Packet size on the wire, headers included (default 1000 bytes).
    #[serde(default)]
    pub packet_size: Option<Bytes>,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    /// DiffServ code point, 0–63.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: u8,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnOffDistribution {
    /// Exponential burst lengths and idle times (ns-2's `Exponential`).
    #[default]
    Exponential,
    /// Pareto burst lengths and idle times of one shape (ns-2's `Pareto`).
    Pareto,
}

/// TCP settings; every field left out takes the scenario profile's value.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Congestion-control algorithm: a name, or a table with `kind` and its parameters.
    #[serde(default)]
    pub cc: Option<CcSpec>,
    /// Slow-start rule: "standard", "limited" (RFC 3742), "ass2" | "ass3" | "ass4" (Advanced
    /// Slow Start), or a table with `kind` and `max_ssthresh`.
    #[serde(default)]
    pub slow_start: Option<SlowStartSpec>,
    /// Loss recovery.
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// Maximum segment size: payload bytes per data packet.
    #[serde(default)]
    pub mss: Option<Bytes>,
    /// IP + TCP header bytes added to every packet (40, or 52 with timestamps).
    #[serde(default)]
    #[schemars(range(max = 1000))]
    pub header_bytes: Option<u32>,
    /// Initial window: a number of segments, or "rfc3390" for min(4·MSS, max(2·MSS, 4380 B)).
    #[serde(default)]
    pub initial_window: Option<InitialWindow>,
    /// Initial slow-start threshold in segments (default: unlimited; ns-2: window_).
    #[serde(default)]
    pub initial_ssthresh: Option<f64>,
    /// Receiver window in bytes (ns-2's `window_` 20 packets is 20 000 bytes).
    #[serde(default)]
    pub rwnd: Option<Bytes>,
    #[serde(default)]
    pub min_rto: Option<Duration>,
    #[serde(default)]
    pub initial_rto: Option<Duration>,
    #[serde(default)]
    pub max_rto: Option<Duration>,
    /// Clock granularity G of RFC 6298: RTO = SRTT + max(G, 4·RTTVAR).
    #[serde(default)]
    pub clock_granularity: Option<Duration>,
    /// Where `min_rto` applies: "rto" (RFC 6298 (2.4): RTO ≥ min_rto) or "variance"
    /// (Linux: RTO = SRTT + max(4·RTTVAR, min_rto)).
    #[serde(default)]
    pub rto_floor: Option<RtoFloor>,
    /// Delayed ACKs (RFC 1122/5681: at least every second full segment, within the timeout).
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    #[serde(default)]
    pub delayed_ack_timeout: Option<Duration>,
    /// Limited Transmit (RFC 3042).
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// Grow the window only while the flight uses it, as Linux's `tcp_is_cwnd_limited`: in
    /// slow start while cwnd < 2 × the largest flight of the last round, in avoidance while the
    /// flight filled cwnd. Off, the window grows on every ACK (ns-2).
    #[serde(default)]
    pub cwnd_limited: Option<bool>,
    /// Three-way handshake before data (SYN, SYN-ACK).
    #[serde(default)]
    pub handshake: Option<bool>,
    /// TCP timestamps (RFC 7323): an RTT sample on every ACK that advances the window.
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// Most SACK blocks per ACK (RFC 2018: 3 with timestamps, 4 without).
    #[serde(default)]
    #[schemars(range(min = 1, max = 4))]
    pub sack_blocks: Option<u8>,
    /// What window growth counts: "segments" acknowledged (RFC 3465 byte counting, Linux) or
    /// "acks" (one per ACK, RFC 5681 equations 2–3, ns-2).
    #[serde(default)]
    pub ack_counting: Option<AckCounting>,
    /// Duplicate ACKs that trigger fast retransmit.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub dupthresh: Option<u32>,
    /// DiffServ code point of the connection's packets, 0–63.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: Option<u8>,
    /// ECN (RFC 3168): the sender asks for it (ECE+CWR on the SYN, or statically without a
    /// handshake). Default off in every profile.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// Whether the receiver accepts ECN (false models a non-ECN peer). Default true.
    #[serde(default)]
    pub receiver_ecn: Option<bool>,
    /// Whether the receiver supports Accurate ECN feedback (the ACE counter) when the sender
    /// asks for it, as an algorithm that needs the count of CE marks does (`prague`); false
    /// models an RFC 3168-only peer, to which the sender falls back. Default true.
    #[serde(default)]
    pub receiver_accecn: Option<bool>,
    /// The receiver acknowledges as Linux does: every segment at once in quick-ACK mode (the
    /// first 16 segments, 16 after a gap longer than its RTO, 2 after a CE mark starts an
    /// echo), otherwise once more than a segment's bytes wait. Off: RFC 1122's every second
    /// segment. Default: linux true, ns2 and rfc false.
    #[serde(default)]
    pub receiver_quickack: Option<bool>,
    /// ACNS (Olšovský 2014): the sender asks routers for commands and answers losses with
    /// the trend command. `true`, or a table: `request` ("window" | "every-packet"),
    /// `omega_count`, `sigma`, `th_l1`, `th_l2`, `history`. Needs `kind = "acns"` queues on the
    /// path; with a receiver without ACNS the connection uses plain ECN. Default off.
    #[serde(default)]
    pub acns: Option<crate::tcp::acns::AcnsSwitch>,
    /// Whether the receiver supports ACNS. Default true.
    #[serde(default)]
    pub receiver_acns: Option<bool>,
    /// Proportional Rate Reduction (RFC 6937, as Linux): in SACK recovery, and in the CWR
    /// state after an ECN echo, the window follows what is delivered, sending ssthresh/cwnd of
    /// it while the flight is above ssthresh and growing back no faster than slow start below.
    /// Off, cwnd = ssthresh at once (RFC 6675, RFC 3168). SACK connections only (else an
    /// error). Default: linux true (as Linux), ns2 and rfc false.
    #[serde(default)]
    pub prr: Option<bool>,
    /// RACK loss detection (RFC 8985 §6, as Linux `tcp_recovery.c`): a segment is lost once
    /// one sent after it is delivered and a reordering window (min_rtt/4, none in recovery)
    /// has passed, with a timer for the window; it replaces the duplicate-ACK threshold and
    /// finds lost retransmissions without a timeout. SACK connections only (else an error).
    /// Default: linux true (as Linux), ns2 and rfc false.
    #[serde(default)]
    pub rack: Option<bool>,
    /// Tail-loss probe (RFC 8985 §7, as Linux `tcp_schedule_loss_probe`): 2·SRTT after the
    /// last transmission (plus 200 ms with one segment in flight, never after the RTO) send
    /// new data or resend the last segment, so that a lost tail is repaired by SACK recovery
    /// rather than a timeout. SACK connections only (else an error). Default: linux true (as
    /// Linux), ns2 and rfc false.
    #[serde(default)]
    pub tlp: Option<bool>,
    /// A retransmission timeout keeps the SACK scoreboard, marks the rest lost and resends
    /// only what is not SACKed (Linux `tcp_enter_loss`). Off, it forgets the SACK information
    /// and resends everything from the first unacknowledged segment (RFC 6675 §5.1).
    /// SACK connections only (else an error). Default: linux true (as Linux), ns2 and rfc
    /// false.
    #[serde(default)]
    pub rto_keeps_sack: Option<bool>,
    /// Each segment waits a uniform random time between zero and this before it leaves, in
    /// order (ns-2's `overhead_`; a host's scheduling noise), drawn from the flow's own random
    /// stream. Results of a deterministic simulation can hinge on sub-millisecond phase (which
    /// flow loses at an overflow); a little jitter, averaged over seeds, removes that
    /// dependence. Default 0 (none); at most 1 s.
    #[serde(default)]
    pub send_jitter: Option<Duration>,
    /// Pacing: "auto" (only algorithms that ask for it, such as BBR, as Linux without the
    /// `fq` qdisc), "on" (every flow, at its algorithm's rate or Linux's
    /// `tcp_update_pacing_rate` rule, as Linux with `fq`) or "off". Default "auto".
    #[serde(default)]
    pub pacing: Option<crate::config::Pacing>,
    /// Linux's `tcp_pacing_ss_ratio`: the pacing rate in percent of cwnd·mss/srtt while
    /// cwnd < ssthresh/2. Default 200.
    #[serde(default)]
    pub pacing_ss_ratio: Option<f64>,
    /// Linux's `tcp_pacing_ca_ratio`: the same percentage afterwards. Default 120.
    #[serde(default)]
    pub pacing_ca_ratio: Option<f64>,
}

/// Initial window: segments, or an RFC's formula.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InitialWindow {
    Segments(u32),
    Rfc3390,
}

impl<'de> Deserialize<'de> for InitialWindow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        const FORMS: &str = "a whole number of segments from 1 to 1000, or \"rfc3390\"";
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "rfc3390" => Ok(InitialWindow::Rfc3390),
            serde_json::Value::Number(n) => match n.as_u64() {
                Some(k @ 1..=1000) => Ok(InitialWindow::Segments(k as u32)),
                _ => Err(D::Error::custom(format!(
                    "invalid initial window {n}: expected {FORMS}"
                ))),
            },
            other => Err(D::Error::custom(format!(
                "invalid initial window {other}: expected {FORMS}"
            ))),
        }
    }
}

impl JsonSchema for InitialWindow {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "InitialWindow".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Initial window: segments (1-1000) or \"rfc3390\".",
            "oneOf": [{"type": "integer", "minimum": 1, "maximum": 1000}, {"const": "rfc3390"}]
        })
    }
}

/// What to record as time series. Nothing is recorded unless named here.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    #[serde(default, deserialize_with = "series_names")]
    pub series: Vec<SeriesName>,
    /// Sampling interval of cwnd/ssthresh/srtt/rto/queue series; 0 (default) records on change.
    /// At least `duration` / 10^7 (`MAX_SAMPLES`).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Bin width of the throughput series (default 100 ms); at least `duration` / 10^7.
    #[serde(default)]
    pub throughput_bin: Option<Duration>,
    /// Links whose packets are traced, both directions: every packet's enqueue, dequeue, drop
    /// and arrival at the far node, as ns-2's trace files (`net/packet_log.rs`); "*" for
    /// every link.
    #[serde(default)]
    pub packets: Vec<String>,
    /// Links written as pcap files, one per direction, with IPv4 and TCP/UDP headers as on
    /// the wire (`python/ccsim/pcap.py`); "*" for every link. Their packets are traced too.
    #[serde(default)]
    pub pcap: Vec<String>,
}
