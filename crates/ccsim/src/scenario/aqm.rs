//! The schema of the active queue managements and routers (`kind = "red" | "codel" | "pie" |
//! "fq_codel" | "xcp" | "acns"`) and their validation into queue disciplines. Part of the scenario schema (`schema.rs`
//! re-exports the specs); kept apart so each discipline's parameters, defaults and checks sit
//! together. Parameter names follow the literature and ns-2/Linux; every field left out takes
//! the default stated in its doc comment (RED's depend on the defaults profile, see
//! `Profile::red_defaults`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::error::ScenarioError;
use super::schema::Profile;
use super::units::{Bytes, Duration};
use crate::queue::acns::{self, AcnsParams, Weight};
use crate::queue::codel::{self, CodelParams};
use crate::queue::fq_codel::{self, FqCodelParams};
use crate::queue::pie::{self, PieParams};
use crate::queue::red::{self, RedConfig};
use crate::queue::xcp::{self, XcpParams};
use crate::queue::{Acns, Codel, FqCodel, Pie, Queue, Red, Xcp};
use crate::time::{Rate, SimTime};

type Result<T> = std::result::Result<T, ScenarioError>;

fn err<T>(path: &str, field: &str, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(format!("{path}.{field}"), msg))
}

/// RED as ns-2.35 implements it (Floyd & Jacobson 1993; `../shared/spec/algorithms.md` §10).
/// Thresholds are in packets (of `mean_pktsize` bytes in byte mode), like ns-2's `thresh_` and
/// `maxthresh_`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Physical capacity: waiting packets (`limit·mean_pktsize` bytes in byte mode), ns-2's
    /// `limit_`. Default: ns2 50, linux 1000, rfc 100.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Minimum threshold, packets. Default: automatic (ns2) or 5.
    #[serde(default)]
    pub min_th: Option<f64>,
    /// Maximum threshold, packets. Default: 3·min_th.
    #[serde(default)]
    pub max_th: Option<f64>,
    /// EWMA weight w_q of the average queue, in (0, 1]. Default: automatic (ns2) or 0.002.
    #[serde(default)]
    pub q_weight: Option<f64>,
    /// Drop probability at max_th, in (0, 1] (ns-2's `linterm_` is 1/max_p). Default 0.1.
    #[serde(default)]
    pub max_p: Option<f64>,
    /// Probability rises from max_p to 1 between max_th and 2·max_th instead of jumping to 1.
    /// Default true.
    #[serde(default)]
    pub gentle: Option<bool>,
    /// Spread early drops over [1/p_b, 2/p_b] arrivals (ns-2 `wait_`) rather than the paper's
    /// p_b/(1 − count·p_b). Default true.
    #[serde(default)]
    pub wait: Option<bool>,
    /// "packets", or "bytes" (ns-2 `queue_in_bytes_` and `bytes_`). Default: bytes (ns2),
    /// packets (linux, rfc).
    #[serde(default)]
    pub mode: Option<RedMode>,
    /// Mean packet size: converts packets to bytes in byte mode and sets the idle correction's
    /// packets per second. Default: 500 B (ns2), 1500 B (linux, rfc).
    #[serde(default)]
    pub mean_pktsize: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them early (ns-2 `setbit_`). Default false.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// With use_mark_p, mark only while p_b < mark_p (ns-2 `mark_p_`). Default 0.1.
    #[serde(default)]
    pub mark_p: Option<f64>,
    /// ns-2 `use_mark_p_`: also disables forced drops above max_th (2·max_th gentle). Default:
    /// true (ns2), false (linux, rfc: every early decision may mark, RFC 3168 §5).
    #[serde(default)]
    pub use_mark_p: Option<bool>,
    /// Forced decisions drop even ECN-capable packets (ns-3 `UseHardDrop`). Default true.
    #[serde(default)]
    pub harddrop: Option<bool>,
    /// ns-2's automatic configuration from the link (`initialize_params`): min_th, max_th and
    /// q_weight left out are derived from the rate and delay. Default: true (ns2), false.
    #[serde(default)]
    pub auto: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    Packets,
    Bytes,
}

/// CoDel (RFC 8289).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Acceptable standing sojourn time. Default 5 ms (RFC 8289 §4.3).
    #[serde(default)]
    pub target: Option<Duration>,
    /// Sliding window over which the sojourn must stay above target. Default 100 ms (§4.2).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Tail-drop limit, packets. Default 1000 (Linux `sch_codel`).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// No drop while at most this many bytes are queued (RFC 8289's maxpacket). Default 1500 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them. Default false (Linux `sch_codel`).
    #[serde(default)]
    pub ecn: Option<bool>,
}

/// PIE (RFC 8033).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    /// Target queueing delay (QDELAY_REF). Default 15 ms.
    #[serde(default)]
    pub target: Option<Duration>,
    /// Drop-probability update period (T_UPDATE). Default 15 ms.
    #[serde(default)]
    pub tupdate: Option<Duration>,
    /// Proportional gain, Hz. Default 0.125.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Integral gain, Hz. Default 1.25.
    #[serde(default)]
    pub beta: Option<f64>,
    /// Burst allowance (MAX_BURST). Default 150 ms.
    #[serde(default)]
    pub max_burst: Option<Duration>,
    /// Tail-drop limit, packets. Default 1000 (Linux `sch_pie`).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Mark ECN-capable packets instead of dropping them while the probability is at most
    /// `mark_ecnth`. Default false.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// Default 0.1 (RFC 8033 §5.1).
    #[serde(default)]
    pub mark_ecnth: Option<f64>,
    /// Scale the probability by packet size / mtu. Default false.
    #[serde(default)]
    pub bytemode: Option<bool>,
    /// RFC 8033 §5.4 derandomisation of drops. Default true (Linux).
    #[serde(default)]
    pub derandomize: Option<bool>,
    /// Estimate the delay from the departure rate (RFC 8033 §5.2) instead of per-packet
    /// timestamps. Default false (Linux).
    #[serde(default)]
    pub dq_rate_estimator: Option<bool>,
    /// Packet size of the two-packet safeguard and byte mode. Default 1500 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
}

/// FQ-CoDel (RFC 8290), as Linux `sch_fq_codel`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    /// Number of flow queues (hash buckets), 1–65536. Default 1024.
    #[serde(default)]
    pub flows: Option<u32>,
    /// Bytes a queue may send per round. Default 1514 B.
    #[serde(default)]
    pub quantum: Option<Bytes>,
    /// CoDel target per queue. Default 5 ms.
    #[serde(default)]
    pub target: Option<Duration>,
    /// CoDel interval. Default 100 ms.
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Total packets held before the fattest queue is cut. Default 10240.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Total bytes held before the fattest queue is cut. Default 32 MiB.
    #[serde(default)]
    pub memory_limit: Option<Bytes>,
    /// Most packets dropped per overflow. Default 64.
    #[serde(default)]
    pub drop_batch: Option<u32>,
    /// CoDel's "at most one MTU queued" test. Default 1500 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them. Default true (RFC 8290 §5, Linux).
    #[serde(default)]
    pub ecn: Option<bool>,
}

/// The XCP router (Katabi, Handley & Rohrs 2002; `queue/xcp/`): a FIFO whose departing XCP
/// packets carry the efficiency and fairness controllers' feedback. Flows take part with
/// `cc = "xcp"`; other traffic shares the FIFO and counts as input, unless `virtual_queues`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XcpSpec {
    /// Packets waiting before an arrival is dropped. Default: the profile's queue limit.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Efficiency gain α, in (0, π/(4√2)) for stability. Default 0.4.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Queue gain β. Default 0.226 (α²·√2).
    #[serde(default)]
    pub beta: Option<f64>,
    /// Share of the input traffic shuffled per interval, in [0, 1]. Default 0.1.
    #[serde(default)]
    pub gamma: Option<f64>,
    /// Control interval until a packet carries an RTT. Default 50 ms.
    #[serde(default)]
    pub initial_interval: Option<Duration>,
    /// Shortest control and queue-estimation interval. Default 1 ms.
    #[serde(default)]
    pub min_interval: Option<Duration>,
    /// The persistent queue's window as a share of the estimated propagation delay, in (0, 1]:
    /// 1 as the paper says, 0.5 as the ns-2 codes do. Default 1.
    #[serde(default)]
    pub queue_window: Option<f64>,
    /// Sheela & Raja's window adjustment: set the congestion bit on departing XCP packets when
    /// the input rate reaches capacity or this many packets wait (`Q_th`). Default: off.
    #[serde(default)]
    pub congestion_threshold: Option<u32>,
    /// ns-2.35's `Queue/XCP`: XCP, other TCP and other traffic in three queues (`limit`
    /// packets; the last two RED with ns-2's defaults, in bytes: `limit`·500) served a packet
    /// at a time in turn, the controllers seeing only the XCP queue. Default false: one FIFO,
    /// as in the paper.
    #[serde(default)]
    pub virtual_queues: Option<bool>,
    /// Share of the capacity the controllers allocate, in (0, 1]. Default 1; ns-2's
    /// `tcp_xcp_on_ 1` (for XCP sharing a link with TCP) is 0.5.
    #[serde(default)]
    pub xcp_share: Option<f64>,
    /// Start the control and queue timers at random offsets (normal, mean one period,
    /// deviation a fifth of it, at least 4 ms), as ns-2 does to desynchronise routers.
    /// Default false: exactly one period.
    #[serde(default)]
    pub random_timers: Option<bool>,
}

/// The ACNS router (Olšovský 2014; `queue/acns.rs`): a FIFO that writes per-flow commands
/// (normal, freeze, fallback) into packets that ask for one, from the flow's age, its priority
/// (DSCP) and the queue's occupancy. Flows take part with `tcp.acns`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcnsQueueSpec {
    /// Packets waiting before an arrival is dropped; `A(q)` is the occupancy over it. Default:
    /// the profile's queue limit.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// "intended" (old, low-priority flows weigh most; default) or "printed" (the paper's
    /// Eqs. 3–4 as printed).
    #[serde(default)]
    pub weight: Option<Weight>,
    /// Weight from which a flow is told to freeze, th_A1. Default 0.95.
    #[serde(default)]
    pub th_a1: Option<f64>,
    /// Weight from which a flow is told to fall back, th_A2 ≥ th_A1. Default 1.0.
    #[serde(default)]
    pub th_a2: Option<f64>,
    /// Share of priority in the weight, v_p in [0, 1]; v_p + v_a = 1. Default 0.8.
    #[serde(default)]
    pub v_p: Option<f64>,
    /// Share of age in the weight, v_a in [0, 1]. Default 0.2.
    #[serde(default)]
    pub v_a: Option<f64>,
    /// Highest priority, 0–63; higher DSCPs count as it. Default 63.
    #[serde(default)]
    pub p_max: Option<u8>,
    /// A flow not seen for longer is forgotten. Default 2 s.
    #[serde(default)]
    pub idle_timeout: Option<Duration>,
}

fn positive_time(v: Option<Duration>, def: SimTime, path: &str, field: &str) -> Result<SimTime> {
    let t = v.map(|d| d.0).unwrap_or(def);
    if t == SimTime::ZERO {
        return err(path, field, "must be positive");
    }
    Ok(t)
}

fn at_least_one(v: Option<u32>, def: u32, path: &str, field: &str, unit: &str) -> Result<u32> {
    let n = v.unwrap_or(def);
    if n == 0 {
        return err(path, field, format!("must be at least 1 {unit}"));
    }
    Ok(n)
}

fn in_range(v: f64, lo_open: bool, lo: f64, hi: f64, path: &str, field: &str) -> Result<f64> {
    let above = if lo_open { v > lo } else { v >= lo };
    if !(above && v <= hi) {
        let l = if lo_open { "(" } else { "[" };
        return err(path, field, format!("{v} is outside {l}{lo}, {hi}]"));
    }
    Ok(v)
}

/// RED: resolves the profile's defaults and ns-2's automatic configuration, and checks ranges.
pub fn red(s: &RedSpec, path: &str, profile: Profile, rate: Rate, delay: SimTime) -> Result<Queue> {
    let d = profile.red_defaults();
    let limit = at_least_one(s.limit, d.limit, path, "limit", "packet")?;
    let bytes = s.mode.map(|m| m == RedMode::Bytes).unwrap_or(d.bytes);
    let mean_pktsize = s.mean_pktsize.map(|b| b.0).unwrap_or(d.mean_pktsize as u64);
    if mean_pktsize > 65_535 {
        return err(path, "mean_pktsize", "must be at most 65535 bytes");
    }
    let mean_pktsize = mean_pktsize as u32;
    let auto = s.auto.unwrap_or(d.auto);
    let (auto_min, auto_w) = red::auto_params(rate, delay, mean_pktsize);
    let min_th = match s.min_th {
        Some(v) if !v.is_finite() || v <= 0.0 => {
            return err(
                path,
                "min_th",
                format!("{v} must be a positive number of packets"),
            )
        }
        Some(v) => v,
        None if auto => auto_min,
        None => red::MIN_TH,
    };
    let max_th = s.max_th.unwrap_or(3.0 * min_th);
    if !max_th.is_finite() || max_th <= min_th {
        return err(
            path,
            "max_th",
            format!("must be greater than min_th ({min_th})"),
        );
    }
    let q_weight = match s.q_weight {
        Some(v) => in_range(v, true, 0.0, 1.0, path, "q_weight")?,
        None if auto => auto_w,
        None => red::Q_WEIGHT,
    };
    let max_p = in_range(s.max_p.unwrap_or(red::MAX_P), true, 0.0, 1.0, path, "max_p")?;
    let mark_p = s.mark_p.unwrap_or(red::MARK_P);
    if !mark_p.is_finite() || mark_p <= 0.0 {
        return err(path, "mark_p", format!("{mark_p} must be positive"));
    }
    Ok(Queue::Red(Box::new(Red::new(RedConfig {
        limit,
        min_th,
        max_th,
        q_weight,
        max_p,
        gentle: s.gentle.unwrap_or(true),
        wait: s.wait.unwrap_or(true),
        bytes,
        mean_pktsize,
        ecn: s.ecn.unwrap_or(false),
        mark_p,
        use_mark_p: s.use_mark_p.unwrap_or(d.use_mark_p),
        harddrop: s.harddrop.unwrap_or(true),
        rate,
    }))))
}

fn codel_params(
    target: Option<Duration>,
    interval: Option<Duration>,
    mtu: Option<Bytes>,
    ecn: bool,
    path: &str,
) -> Result<CodelParams> {
    Ok(CodelParams {
        target: positive_time(target, codel::TARGET, path, "target")?,
        interval: positive_time(interval, codel::INTERVAL, path, "interval")?,
        mtu: mtu
            .map(|b| b.0.min(u32::MAX as u64) as u32)
            .unwrap_or(codel::MTU),
        ecn,
    })
}

pub fn codel(s: &CodelSpec, path: &str) -> Result<Queue> {
    let p = codel_params(s.target, s.interval, s.mtu, s.ecn.unwrap_or(false), path)?;
    let limit = at_least_one(s.limit, codel::LIMIT, path, "limit", "packet")?;
    Ok(Queue::Codel(Box::new(Codel::new(p, limit))))
}

pub fn pie(s: &PieSpec, path: &str) -> Result<Queue> {
    let gain = |v: Option<f64>, def: f64, field: &str| -> Result<f64> {
        let g = v.unwrap_or(def);
        if !g.is_finite() || g < 0.0 {
            return err(
                path,
                field,
                format!("{g} must be a non-negative number (Hz)"),
            );
        }
        Ok(g)
    };
    let max_burst = s.max_burst.map(|d| d.0).unwrap_or(pie::MAX_BURST);
    Ok(Queue::Pie(Box::new(Pie::new(PieParams {
        target: positive_time(s.target, pie::TARGET, path, "target")?,
        tupdate: positive_time(s.tupdate, pie::TUPDATE, path, "tupdate")?,
        alpha: gain(s.alpha, pie::ALPHA, "alpha")?,
        beta: gain(s.beta, pie::BETA, "beta")?,
        max_burst,
        limit: at_least_one(s.limit, pie::LIMIT, path, "limit", "packet")?,
        ecn: s.ecn.unwrap_or(false),
        mark_ecnth: in_range(
            s.mark_ecnth.unwrap_or(pie::MARK_ECNTH),
            false,
            0.0,
            1.0,
            path,
            "mark_ecnth",
        )?,
        bytemode: s.bytemode.unwrap_or(false),
        derandomize: s.derandomize.unwrap_or(true),
        dq_rate_estimator: s.dq_rate_estimator.unwrap_or(false),
        mtu: s
            .mtu
            .map(|b| b.0.min(u32::MAX as u64) as u32)
            .unwrap_or(pie::MTU),
    }))))
}

pub fn fq_codel(s: &FqCodelSpec, path: &str) -> Result<Queue> {
    let flows = s.flows.unwrap_or(fq_codel::FLOWS);
    if !(1..=65_536).contains(&flows) {
        return err(path, "flows", format!("{flows} is outside 1..=65536"));
    }
    let codel = codel_params(s.target, s.interval, s.mtu, s.ecn.unwrap_or(true), path)?;
    Ok(Queue::FqCodel(Box::new(FqCodel::new(FqCodelParams {
        flows,
        quantum: s
            .quantum
            .map(|b| b.0.min(u32::MAX as u64) as u32)
            .unwrap_or(fq_codel::QUANTUM),
        codel,
        limit: at_least_one(s.limit, fq_codel::LIMIT, path, "limit", "packet")?,
        memory_limit: s
            .memory_limit
            .map(|b| b.0)
            .unwrap_or(fq_codel::MEMORY_LIMIT),
        drop_batch: at_least_one(
            s.drop_batch,
            fq_codel::DROP_BATCH,
            path,
            "drop_batch",
            "packet",
        )?,
    }))))
}

pub fn xcp(s: &XcpSpec, path: &str, profile: Profile, rate: Rate, delay: SimTime) -> Result<Queue> {
    let share = in_range(
        s.xcp_share.unwrap_or(1.0),
        true,
        0.0,
        1.0,
        path,
        "xcp_share",
    )?;
    let mut p = XcpParams::new(share * rate.bps() as f64 / 8.0, profile.queue_limit());
    p.limit = at_least_one(s.limit, p.limit, path, "limit", "packet")?;
    let stable = std::f64::consts::PI / (4.0 * std::f64::consts::SQRT_2);
    p.alpha = s.alpha.unwrap_or(xcp::ALPHA);
    if !(p.alpha > 0.0 && p.alpha < stable) {
        return err(
            path,
            "alpha",
            format!("{} is outside (0, {stable:.4})", p.alpha),
        );
    }
    p.beta = s.beta.unwrap_or(xcp::BETA);
    if !(p.beta.is_finite() && p.beta >= 0.0) {
        return err(
            path,
            "beta",
            format!("{} must be a non-negative number", p.beta),
        );
    }
    p.gamma = in_range(
        s.gamma.unwrap_or(xcp::GAMMA),
        false,
        0.0,
        1.0,
        path,
        "gamma",
    )?;
    p.initial_interval = positive_time(
        s.initial_interval,
        p.initial_interval,
        path,
        "initial_interval",
    )?;
    p.min_interval = positive_time(s.min_interval, p.min_interval, path, "min_interval")?;
    p.queue_window = in_range(
        s.queue_window.unwrap_or(1.0),
        true,
        0.0,
        1.0,
        path,
        "queue_window",
    )?;
    p.congestion_threshold = s.congestion_threshold;
    p.random_timers = s.random_timers.unwrap_or(false);
    let limit = p.limit;
    let xcp = Xcp::new(p);
    if !s.virtual_queues.unwrap_or(false) {
        return Ok(Queue::Xcp(Box::new(xcp)));
    }
    // ns-2's `Queue/XCP` makes its TCP and other queues `Queue/RED` with the XCP queue's limit.
    let red_queue = || {
        let spec = RedSpec {
            limit: Some(limit),
            ..RedSpec::default()
        };
        match red(&spec, path, Profile::Ns2, rate, delay)? {
            Queue::Red(r) => Ok(*r),
            _ => unreachable!("red() builds RED"),
        }
    };
    let others = xcp::Others {
        tcp: red_queue()?,
        other: red_queue()?,
    };
    Ok(Queue::Xcp(Box::new(xcp.with_virtual_queues(others))))
}

pub fn acns(s: &AcnsQueueSpec, path: &str, profile: Profile) -> Result<Queue> {
    let mut p = AcnsParams::new(profile.queue_limit());
    p.limit = at_least_one(s.limit, p.limit, path, "limit", "packet")?;
    p.weight = s.weight.unwrap_or_default();
    let th = |v: Option<f64>, def: f64, field: &str| match v.unwrap_or(def) {
        t if t.is_finite() && t > 0.0 => Ok(t),
        t => err(path, field, format!("{t} must be a positive number")),
    };
    p.th_a1 = th(s.th_a1, acns::TH_A1, "th_a1")?;
    p.th_a2 = th(s.th_a2, acns::TH_A2, "th_a2")?;
    if p.th_a2 < p.th_a1 {
        return err(
            path,
            "th_a2",
            format!("{} must be at least th_a1 ({})", p.th_a2, p.th_a1),
        );
    }
    // §3.1: "the sum of these factors must be equal to 1"; one given sets the other.
    let (v_p, v_a) = match (s.v_p, s.v_a) {
        (None, None) => (acns::V_P, acns::V_A),
        (Some(v), None) => (v, 1.0 - v),
        (None, Some(v)) => (1.0 - v, v),
        (Some(p), Some(a)) => (p, a),
    };
    p.v_p = in_range(v_p, false, 0.0, 1.0, path, "v_p")?;
    p.v_a = in_range(v_a, false, 0.0, 1.0, path, "v_a")?;
    if (p.v_p + p.v_a - 1.0).abs() > 1e-9 {
        return err(
            path,
            "v_a",
            format!(
                "v_p + v_a must be 1 (the paper's §3.1), got {} + {}",
                p.v_p, p.v_a
            ),
        );
    }
    p.p_max = s.p_max.unwrap_or(acns::P_MAX);
    if p.p_max > 63 {
        return err(
            path,
            "p_max",
            format!("{} is outside 0..=63 (DSCP)", p.p_max),
        );
    }
    p.idle_timeout = positive_time(s.idle_timeout, acns::IDLE_TIMEOUT, path, "idle_timeout")?;
    Ok(Queue::Acns(Box::new(Acns::new(p))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red_err(json: &str, profile: Profile) -> ScenarioError {
        let s: RedSpec = serde_json::from_str(json).unwrap();
        match red(&s, "q", profile, Rate(10_000_000), SimTime::from_millis(10)) {
            Err(e) => e,
            Ok(_) => panic!("accepted {json}"),
        }
    }

    #[test]
    fn red_checks_name_the_field_and_the_accepted_values() {
        let e = red_err(r#"{"min_th": 5, "max_th": 5}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.max_th: must be greater than min_th (5)");
        // ns2 profile: automatic min_th 6.25 at 10 Mb/s with 500-byte packets.
        let e = red_err(r#"{"max_th": 6}"#, Profile::Ns2);
        assert_eq!(
            e.to_string(),
            "q.max_th: must be greater than min_th (6.25)"
        );
        let e = red_err(r#"{"q_weight": 0}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.q_weight: 0 is outside (0, 1]");
        let e = red_err(r#"{"max_p": 1.5}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.max_p: 1.5 is outside (0, 1]");
        let e = red_err(r#"{"limit": 0}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.limit: must be at least 1 packet");
        let e = red_err(r#"{"min_th": -1}"#, Profile::Linux);
        assert!(e.to_string().starts_with("q.min_th:"), "{e}");
    }

    #[test]
    fn other_aqms_reject_zero_times_and_limits() {
        let c: CodelSpec = serde_json::from_str(r#"{"target": 0}"#).unwrap();
        assert_eq!(
            codel(&c, "q").err().unwrap().to_string(),
            "q.target: must be positive"
        );
        let p: PieSpec = serde_json::from_str(r#"{"mark_ecnth": 2}"#).unwrap();
        assert_eq!(
            pie(&p, "q").err().unwrap().to_string(),
            "q.mark_ecnth: 2 is outside [0, 1]"
        );
        let f: FqCodelSpec = serde_json::from_str(r#"{"flows": 0}"#).unwrap();
        assert_eq!(
            fq_codel(&f, "q").err().unwrap().to_string(),
            "q.flows: 0 is outside 1..=65536"
        );
    }

    #[test]
    fn acns_checks_name_the_field_and_the_accepted_values() {
        let bad = |json: &str| {
            let s: AcnsQueueSpec = serde_json::from_str(json).unwrap();
            acns(&s, "q", Profile::Linux).err().expect(json).to_string()
        };
        assert_eq!(
            bad(r#"{"th_a1": 1.2, "th_a2": 1.0}"#),
            "q.th_a2: 1 must be at least th_a1 (1.2)"
        );
        assert_eq!(
            bad(r#"{"th_a1": 0}"#),
            "q.th_a1: 0 must be a positive number"
        );
        assert_eq!(
            bad(r#"{"v_p": 0.5, "v_a": 0.6}"#),
            "q.v_a: v_p + v_a must be 1 (the paper's §3.1), got 0.5 + 0.6"
        );
        assert_eq!(bad(r#"{"v_p": 1.5}"#), "q.v_p: 1.5 is outside [0, 1]");
        assert_eq!(
            bad(r#"{"p_max": 64}"#),
            "q.p_max: 64 is outside 0..=63 (DSCP)"
        );
        assert_eq!(
            bad(r#"{"idle_timeout": 0}"#),
            "q.idle_timeout: must be positive"
        );
        assert_eq!(bad(r#"{"limit": 0}"#), "q.limit: must be at least 1 packet");
        // One factor given sets the other.
        let s: AcnsQueueSpec =
            serde_json::from_str(r#"{"v_a": 0.5, "weight": "printed"}"#).unwrap();
        assert!(acns(&s, "q", Profile::Linux).is_ok());
    }
}
