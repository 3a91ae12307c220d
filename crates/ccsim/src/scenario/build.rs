//! From a parsed scenario to a ready-to-run simulation: expand the topology helper into nodes
//! and links, check every cross-reference and range (errors name the exact path), compute
//! routes, and build the link directions and flows.

use std::collections::HashMap;

use super::error::ScenarioError;
use super::schema::*;
use super::tcp_check::{check_sack_only, check_tcp};
use crate::app::{OnOff, UdpSource};
use crate::config::{Profile, Recovery, SeriesName};
use crate::dist::Dist;
use crate::net::link::LinkDir;
use crate::net::loss::LossModel;
use crate::net::routing::Routes;
use crate::queue::{DropTailSpec, Queue, QueueConfig, QueueContext, QueueSpec};
use crate::rng::Rng;
use crate::sim::{FlowInfo, FlowSlot, Simulation, TcpConn};
use crate::tcp::cc::{BuildContext, Cc, CcSpec, CongestionControl, EcnFeedback, ExternalFactory};
use crate::tcp::{Receiver, ReceiverConfig, Sender};
use crate::time::{OptTime, Rate, SimTime};
use crate::trace::Recorder;
use crate::util::packed_names::{FlowLabels, Naming};

pub(super) type Result<T> = std::result::Result<T, ScenarioError>;

pub(super) fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(path, msg))
}

/// A link after topology expansion, with the path of its spec for error messages.
struct LinkPlan {
    name: String,
    a: u32,
    b: u32,
    rate: Rate,
    delay: SimTime,
    queue: Option<QueueSpec>,
    loss: Option<LossSpec>,
    loss_reverse: Option<LossSpec>,
    path: String,
}

struct Net {
    nodes: Vec<String>,
    index: HashMap<String, u32>,
    links: Vec<LinkPlan>,
}

impl Net {
    fn node(&mut self, name: String) -> u32 {
        let i = self.nodes.len() as u32;
        self.index.insert(name.clone(), i);
        self.nodes.push(name);
        i
    }
}

fn plan(spec: &LinkSpec, name: String, a: u32, b: u32, path: String) -> LinkPlan {
    LinkPlan {
        name,
        a,
        b,
        rate: spec.rate.0,
        delay: spec.delay.0,
        queue: spec.queue.clone(),
        loss: spec.loss.clone(),
        loss_reverse: spec.loss_reverse.clone(),
        path,
    }
}

fn no_ends(spec: &LinkSpec, path: &str) -> Result<()> {
    if spec.a.is_some() || spec.b.is_some() {
        let f = if spec.a.is_some() { "a" } else { "b" };
        return err(format!("{path}.{f}"), "link ends are given only in explicit topologies; this topology places its links itself");
    }
    Ok(())
}

fn expand(t: &Topology) -> Result<Net> {
    let mut net = Net {
        nodes: vec![],
        index: HashMap::new(),
        links: vec![],
    };
    match t {
        Topology::Dumbbell(d) => {
            if d.pairs == 0 || d.pairs > MAX_PAIRS {
                return err(
                    "topology.pairs",
                    format!("{} pairs: must be from 1 to {MAX_PAIRS}", d.pairs),
                );
            }
            if d.left.len() > d.pairs as usize {
                return err(
                    "topology.left",
                    format!(
                        "has {} entries but there are only {} pairs",
                        d.left.len(),
                        d.pairs
                    ),
                );
            }
            if d.right.len() > d.pairs as usize {
                return err(
                    "topology.right",
                    format!(
                        "has {} entries but there are only {} pairs",
                        d.right.len(),
                        d.pairs
                    ),
                );
            }
            no_ends(&d.bottleneck, "topology.bottleneck")?;
            let left = net.node("left".into());
            let right = net.node("right".into());
            let bname = d
                .bottleneck
                .name
                .clone()
                .unwrap_or_else(|| "bottleneck".into());
            net.links.push(plan(
                &d.bottleneck,
                bname,
                left,
                right,
                "topology.bottleneck".into(),
            ));
            let access = match &d.access {
                Some(a) => {
                    no_ends(a, "topology.access")?;
                    a.clone()
                }
                None => LinkSpec {
                    name: None,
                    a: None,
                    b: None,
                    rate: crate::config::units::RateSpec(Rate(
                        d.bottleneck.rate.0 .0.saturating_mul(10),
                    )),
                    delay: crate::config::units::Duration(SimTime::from_millis(1)),
                    queue: None,
                    loss: None,
                    loss_reverse: None,
                },
            };
            for i in 0..d.pairs as usize {
                let s = net.node(format!("s{i}"));
                let r = net.node(format!("d{i}"));
                for (side, host, over, a, b) in [
                    ("left", s, d.left.get(i), s, left),
                    ("right", r, d.right.get(i), right, r),
                ] {
                    let mut spec = access.clone();
                    if let Some(o) = over {
                        spec.rate = o.rate.unwrap_or(spec.rate);
                        spec.delay = o.delay.unwrap_or(spec.delay);
                        spec.queue = o.queue.clone().or(spec.queue);
                        spec.loss = o.loss.clone().or(spec.loss);
                        spec.loss_reverse = o.loss_reverse.clone().or(spec.loss_reverse);
                    }
                    let path = if over.is_some() {
                        format!("topology.{side}[{i}]")
                    } else {
                        "topology.access".into()
                    };
                    let name = format!("access_{}", net.nodes[host as usize]);
                    net.links.push(plan(&spec, name, a, b, path));
                }
            }
        }
        Topology::Chain(c) => {
            if c.links.is_empty() {
                return err("topology.links", "a chain needs at least one link");
            }
            for i in 0..=c.links.len() {
                net.node(format!("n{i}"));
            }
            for (i, l) in c.links.iter().enumerate() {
                let path = format!("topology.links[{i}]");
                no_ends(l, &path)?;
                let name = l
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("n{}-n{}", i, i + 1));
                net.links.push(plan(l, name, i as u32, i as u32 + 1, path));
            }
        }
        Topology::Explicit(e) => {
            if e.nodes.is_empty() {
                return err(
                    "topology.nodes",
                    "an explicit topology needs at least one node",
                );
            }
            for (i, n) in e.nodes.iter().enumerate() {
                if n.is_empty() {
                    return err(
                        format!("topology.nodes[{i}]"),
                        "node names must not be empty",
                    );
                }
                if net.index.contains_key(n) {
                    return err(
                        format!("topology.nodes[{i}]"),
                        format!("duplicate node name \"{n}\""),
                    );
                }
                net.node(n.clone());
            }
            for (i, l) in e.links.iter().enumerate() {
                let path = format!("topology.links[{i}]");
                let Some(name) = l.name.clone() else {
                    return err(
                        format!("{path}.name"),
                        "links of an explicit topology need a name",
                    );
                };
                let end = |f: &str, v: &Option<String>| -> Result<u32> {
                    let Some(v) = v else {
                        return err(format!("{path}.{f}"), "missing link end: name a node");
                    };
                    net.index.get(v).copied().ok_or_else(|| {
                        ScenarioError::new(
                            format!("{path}.{f}"),
                            format!("undefined node \"{v}\"; nodes are: {}", e.nodes.join(", ")),
                        )
                    })
                };
                let a = end("a", &l.a)?;
                let b = end("b", &l.b)?;
                if a == b {
                    return err(format!("{path}.b"), "a link must join two different nodes");
                }
                net.links.push(plan(l, name, a, b, path));
            }
        }
    }
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for l in &net.links {
        if let Some(first) = seen.insert(&l.name, &l.path) {
            return err(
                format!("{}.name", l.path),
                format!("duplicate link name \"{}\" (also at {first})", l.name),
            );
        }
    }
    Ok(net)
}

fn check_prob(v: f64, path: String) -> Result<f64> {
    if !(0.0..=1.0).contains(&v) || v.is_nan() {
        return err(path, format!("probability {v} is outside [0, 1]"));
    }
    Ok(v)
}

fn build_loss(spec: &Option<LossSpec>, path: &str, end: SimTime) -> Result<LossModel> {
    Ok(match spec {
        None => LossModel::None,
        Some(LossSpec::Bernoulli(b)) => LossModel::Bernoulli {
            p: check_prob(b.p, format!("{path}.p"))?,
        },
        Some(LossSpec::GilbertElliott(g)) => LossModel::GilbertElliott {
            p_gb: check_prob(g.p_gb, format!("{path}.p_gb"))?,
            p_bg: check_prob(g.p_bg, format!("{path}.p_bg"))?,
            loss_good: check_prob(g.loss_good, format!("{path}.loss_good"))?,
            loss_bad: check_prob(g.loss_bad, format!("{path}.loss_bad"))?,
            bad: false,
        },
        Some(LossSpec::Outage(o)) => {
            for (i, (a, b)) in o.intervals.iter().enumerate() {
                if a.0 >= b.0 {
                    return err(
                        format!("{path}.intervals[{i}]"),
                        "an outage must start before it stops",
                    );
                }
                if a.0 >= end {
                    return err(
                        format!("{path}.intervals[{i}]"),
                        format!("starts at {}s, at or after the end of the run", a.secs()),
                    );
                }
            }
            LossModel::Outage {
                intervals: o.intervals.iter().map(|(a, b)| (a.0, b.0)).collect(),
            }
        }
        Some(LossSpec::List(l)) => {
            let mut packets = l.packets.clone();
            packets.sort_unstable();
            LossModel::List {
                packets,
                next: 0,
                seen: 0,
            }
        }
    })
}

fn build_queue(
    spec: &Option<QueueSpec>,
    path: &str,
    profile: Profile,
    rate: Rate,
    delay: SimTime,
) -> Result<Queue> {
    let ctx = QueueContext {
        profile,
        rate,
        delay,
    };
    let built = match spec {
        Some(s) => s.build(&ctx),
        None => DropTailSpec::default()
            .build(&ctx)
            .map(|q| Queue::DropTail(Box::new(q))),
    };
    built.or_else(|(field, m)| err(format!("{path}.{field}"), m))
}

/// The packet size of a UDP flow at `path` (default 1000 bytes), checked with its DSCP.
fn udp_packet(path: &str, size: Option<crate::config::units::Bytes>, dscp: u8) -> Result<u32> {
    let size = size.map(|b| b.0).unwrap_or(1000);
    if size <= crate::app::udp::UDP_HEADER as u64 || size > 65_535 {
        return err(
            format!("{path}.packet_size"),
            format!("{size} bytes is outside 29..=65535 (IP + UDP headers are 28 bytes)"),
        );
    }
    if dscp > 63 {
        return err(format!("{path}.dscp"), "must be from 0 to 63");
    }
    Ok(size as u32)
}

/// What results report of a UDP flow besides its counters.
fn udp_info(
    kind: &'static str,
    src: u32,
    dst: u32,
    start: SimTime,
    stop: Option<SimTime>,
    labels: &mut Vec<FlowLabels>,
) -> FlowInfo {
    let l = FlowLabels {
        kind,
        cc: "",
        recovery: "",
    };
    FlowInfo {
        src,
        dst,
        start,
        stop: OptTime::of(stop),
        labels: l.index_in(labels),
    }
}

/// The distribution of an on-off flow at `path`: a shape only for Pareto, and one above 1
/// (ns-2 takes its default, 1.5, when none is given).
fn onoff_dist(path: &str, o: &OnOffFlow) -> Result<Dist> {
    match (o.distribution, o.shape) {
        (OnOffDistribution::Exponential, None) => Ok(Dist::Exponential),
        (OnOffDistribution::Exponential, Some(_)) => err(
            format!("{path}.shape"),
            "a shape applies only to distribution = \"pareto\"; the exponential has none",
        ),
        (OnOffDistribution::Pareto, shape) => {
            Dist::pareto(shape.unwrap_or(1.5)).or_else(|m| err(format!("{path}.shape"), m))
        }
    }
}

pub(super) fn times(
    start: &Option<crate::config::units::Duration>,
    stop: &Option<crate::config::units::Duration>,
    path: &str,
    end: SimTime,
) -> Result<(SimTime, Option<SimTime>)> {
    let start = start.map(|d| d.0).unwrap_or(SimTime::ZERO);
    if start >= end {
        return err(
            format!("{path}.start"),
            format!(
                "{}s is at or after the end of the run ({}s)",
                start.as_secs_f64(),
                end.as_secs_f64()
            ),
        );
    }
    if let Some(s) = stop {
        if s.0 <= start {
            return err(
                format!("{path}.stop"),
                format!(
                    "{}s is not after start ({}s)",
                    s.secs(),
                    start.as_secs_f64()
                ),
            );
        }
        if s.0 > end {
            return err(
                format!("{path}.stop"),
                format!(
                    "{}s is after the end of the run ({}s)",
                    s.secs(),
                    end.as_secs_f64()
                ),
            );
        }
    }
    Ok((start, stop.map(|d| d.0)))
}

/// Bounds the samples a series takes (`MAX_SAMPLES`), before anything is built.
fn check_samples(sc: &Scenario) -> Result<()> {
    let end = sc.duration.0.as_nanos();
    let fields = [
        ("trace.interval", sc.trace.interval),
        ("trace.throughput_bin", sc.trace.throughput_bin),
    ];
    for (field, step) in fields {
        let Some(step) = step.map(|d| d.0.as_nanos()).filter(|&s| s > 0) else {
            continue;
        };
        if end / step > MAX_SAMPLES {
            let least = SimTime(end.div_ceil(MAX_SAMPLES));
            return err(
                field,
                format!(
                    "{} over a duration of {} is {} samples per series and flow or link; at most \
                     {MAX_SAMPLES}: at least {least} (duration / {MAX_SAMPLES})",
                    SimTime(step),
                    sc.duration.0,
                    end / step
                ),
            );
        }
    }
    Ok(())
}

/// Validates `sc` and builds its simulation, with the congestion-control algorithms that the
/// embedding program supplies (`tcp/cc/external.rs`; none from a plain scenario).
pub fn build(sc: &Scenario, external: &[Box<ExternalFactory>]) -> Result<Simulation> {
    let end = sc.duration.0;
    if end == SimTime::ZERO {
        return err("duration", "must be positive");
    }
    // Durations are under 2^60 ns (`units.rs`), as senders keeping send times in 60 bits need
    // (`tcp/seg_meta.rs`).
    check_samples(sc)?;
    let net = expand(&sc.topology)?;
    let mut dirs = Vec::with_capacity(2 * net.links.len());
    let mut links = Vec::with_capacity(2 * net.links.len());
    for l in &net.links {
        for (from, to, loss, lpath) in [
            (l.a, l.b, &l.loss, "loss"),
            (l.b, l.a, &l.loss_reverse, "loss_reverse"),
        ] {
            let label = format!(
                "{}:{}->{}",
                l.name, net.nodes[from as usize], net.nodes[to as usize]
            );
            let qpath = format!("{}.queue", l.path);
            let queue = build_queue(&l.queue, &qpath, sc.defaults, l.rate, l.delay)?;
            let loss = build_loss(loss, &format!("{}.{lpath}", l.path), end)?;
            dirs.push((from, to));
            links.push(LinkDir::new(
                from, to, l.rate, l.delay, queue, loss, sc.seed, &label,
            ));
        }
    }
    let routes = Routes::shortest_paths(net.nodes.len(), &dirs);
    // A pcap file is written from the packet trace of its link (`python/ccsim/pcap.py`).
    let traced = (sc.trace.packets.iter().map(|n| ("packets", n)))
        .enumerate()
        .chain(sc.trace.pcap.iter().map(|n| ("pcap", n)).enumerate());
    for (i, (field, name)) in traced {
        let all = name == "*";
        let mut found = false;
        for (l, link) in net.links.iter().enumerate() {
            if all || link.name == *name {
                links[2 * l].log_packets();
                links[2 * l + 1].log_packets();
                found = true;
            }
        }
        if !found && !all {
            let known: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
            return err(
                format!("trace.{field}[{i}]"),
                format!(
                    "no link named \"{name}\"; links are: {}, or \"*\"",
                    known.join(", ")
                ),
            );
        }
    }

    // Each `tcp_arrivals` entry becomes its transfers (`arrivals.rs`), each flow keeping the
    // path of the entry it came from.
    let planned = super::arrivals::plan(&sc.flows, sc.seed, end)?;
    let mut flows = Vec::with_capacity(planned.len());
    let mut info = Vec::with_capacity(planned.len());
    let mut labels = Vec::new();
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut last_cc: Option<(CcSpec, u32, Cc)> = None;
    for (i, (path, f)) in planned.iter().enumerate() {
        let (path, f) = (path.as_str(), f.as_ref());
        let name = f.name();
        if name.is_empty() {
            return err(format!("{path}.name"), "flow names must not be empty");
        }
        if let Some(other) = names.insert(name, path) {
            return err(
                format!("{path}.name"),
                format!("duplicate flow name \"{name}\" (also {other})"),
            );
        }
        let (src_name, dst_name) = match f {
            Flow::Tcp(t) => (&t.src, &t.dst),
            Flow::Cbr(c) => (&c.src, &c.dst),
            Flow::OnOff(o) => (&o.src, &o.dst),
            Flow::TcpArrivals(_) => unreachable!("replaced by its transfers (`plan`)"),
        };
        let lookup = |field: &str, n: &str| {
            net.index.get(n).copied().ok_or_else(|| {
                ScenarioError::new(
                    format!("{path}.{field}"),
                    format!(
                        "undefined node \"{n}\"; nodes are: {}",
                        net.nodes.join(", ")
                    ),
                )
            })
        };
        let src = lookup("src", src_name)?;
        let dst = lookup("dst", dst_name)?;
        if src == dst {
            return err(
                format!("{path}.dst"),
                "a flow's source and destination must differ",
            );
        }
        for (a, b, which) in [(src, dst, "forward"), (dst, src, "return")] {
            if routes.path(a, b, &dirs).is_none() {
                return err(
                    format!("{path}.dst"),
                    format!(
                        "unroutable: no {which} path from \"{}\" to \"{}\"",
                        net.nodes[a as usize], net.nodes[b as usize]
                    ),
                );
            }
        }
        let id = i as u32;
        match f {
            Flow::Tcp(t) => {
                let (start, stop) = times(&t.start, &t.stop, path, end)?;
                let p = sc.defaults.resolve_tcp(&t.tcp);
                let acns = check_tcp(&p, &format!("{path}.tcp"))?;
                check_sack_only(&t.tcp, &p, &format!("{path}.tcp"))?;
                // Flows of one configuration in a row (the usual case) share its built form:
                // what is fixed in it, CUBIC's parameters, is then held once (`cc/cubic.rs`).
                let ctx = BuildContext {
                    profile: sc.defaults,
                    mss: p.mss,
                    flow: name,
                    external,
                    seed: sc.seed,
                };
                let cc = match &last_cc {
                    Some((spec, mss, built)) if *spec == p.cc && *mss == p.mss => built.clone(),
                    _ => {
                        let built =
                            p.cc.build(&ctx)
                                .or_else(|(field, m)| err(format!("{path}.tcp.cc.{field}"), m))?;
                        // An external algorithm is made for its own flow, which its errors
                        // name: it is never shared.
                        let shared = !matches!(p.cc, CcSpec::external(_)) && !p.cc.per_flow();
                        last_cc = shared.then(|| (p.cc.clone(), p.mss, built.clone()));
                        built
                    }
                };
                if t.tcp.ecn == Some(false) && cc.needs_ecn().is_some() {
                    return err(
                        format!("{path}.tcp.ecn"),
                        format!(
                            "cc \"{}\" needs ECN (as Linux's TCP_CONG_NEEDS_ECN): leave ecn out or set it true",
                            p.cc.name()
                        ),
                    );
                }
                let slow_start = p
                    .slow_start
                    .resolve()
                    .or_else(|(field, m)| err(format!("{path}.tcp.slow_start.{field}"), m))?;
                let size = t.size.map(|b| b.0);
                // Sizes at u64::MAX mean none to the endpoints (`util/packed_option.rs`), and segment and byte
                // counts stay far from overflow below 2^62.
                if size.is_some_and(|b| b >= 1 << 62) {
                    return err(format!("{path}.size"), "must be under 2^62 bytes");
                }
                let rc = ReceiverConfig {
                    header_bytes: p.header_bytes,
                    delayed_ack: p.delayed_ack,
                    delack_timeout: p.delayed_ack_timeout,
                    sack: p.recovery == Recovery::Sack,
                    sack_blocks: p.sack_blocks,
                    dscp: p.dscp,
                    size,
                    ecn: crate::tcp::ecn::EcnEcho::new(p.receiver_ecn, p.handshake)
                        .with_acns(p.receiver_acns, !p.handshake && p.acns.is_some())
                        .with_feedback(
                            cc.needs_ecn().map_or(EcnFeedback::Classic, |u| u.feedback),
                            p.receiver_accecn,
                        ),
                    quickack: p.receiver_quickack,
                };
                let l = FlowLabels {
                    kind: "tcp",
                    cc: p.cc.name(),
                    recovery: p.recovery.name(),
                };
                info.push(FlowInfo {
                    src,
                    dst,
                    start,
                    stop: OptTime::of(stop),
                    labels: l.index_in(&mut labels),
                });
                let receiver = Receiver::new(id, dst, src, rc);
                let mut sender = Sender::new(id, src, dst, &p, cc, slow_start, size);
                if sc.trace.series.contains(&SeriesName::DeliveryRate) {
                    sender = sender.with_rate_sampling();
                }
                if p.send_jitter > SimTime::ZERO {
                    let rng = Rng::derive(sc.seed, &format!("jitter:{name}"));
                    sender = sender.with_send_jitter(p.send_jitter, rng);
                }
                if let Some(c) = acns {
                    sender = sender.with_acns(c, &p);
                }
                flows.push(FlowSlot::Tcp(TcpConn { sender, receiver }));
            }
            Flow::Cbr(c) => {
                let (start, stop) = times(&c.start, &c.stop, path, end)?;
                let size = udp_packet(path, c.packet_size, c.dscp)?;
                info.push(udp_info("cbr", src, dst, start, stop, &mut labels));
                let mut cbr = UdpSource::cbr(id, src, dst, c.rate.0, size, stop.unwrap_or(end))
                    .with_dscp(c.dscp);
                if c.random {
                    // The flow's own stream, as an on-off source's (`rng.rs`).
                    cbr = cbr.with_jitter(Rng::derive(sc.seed, &format!("app:{}", c.name)));
                }
                if let Some(n) = c.max_packets {
                    if n == 0 {
                        return err(format!("{path}.max_packets"), "must be at least 1");
                    }
                    cbr = cbr.with_max_packets(n);
                }
                flows.push(FlowSlot::Udp(cbr));
            }
            Flow::OnOff(o) => {
                let (start, stop) = times(&o.start, &o.stop, path, end)?;
                let size = udp_packet(path, o.packet_size, o.dscp)?;
                let dist = onoff_dist(path, o)?;
                info.push(udp_info("onoff", src, dst, start, stop, &mut labels));
                let source = UdpSource::cbr(id, src, dst, o.rate.0, size, stop.unwrap_or(end));
                // The flow's own stream (`rng.rs`): another flow never shifts its draws.
                let rng = Rng::derive(sc.seed, &format!("app:{}", o.name));
                let onoff = OnOff::new(dist, o.on.0, o.off.0, source.interval, rng);
                flows.push(FlowSlot::Udp(source.with_dscp(o.dscp).with_onoff(onoff)));
            }
            Flow::TcpArrivals(_) => unreachable!("replaced by its transfers (`plan`)"),
        }
    }

    let interval = sc
        .trace
        .interval
        .map(|d| d.0)
        .filter(|t| *t > SimTime::ZERO);
    let bin = sc
        .trace
        .throughput_bin
        .map(|d| d.0)
        .unwrap_or(SimTime::from_millis(100));
    if bin == SimTime::ZERO {
        return err("trace.throughput_bin", "must be positive");
    }
    let rec = Recorder::new(&sc.trace.series, interval, bin);
    let names = Naming {
        nodes: net.nodes.iter().collect(),
        links: net.links.iter().map(|l| &l.name).collect(),
        flows: planned.iter().map(|(_, f)| f.name()).collect(),
        labels,
    };
    Ok(Simulation::new(
        sc.name.clone(),
        sc.seed,
        end,
        names,
        links,
        routes,
        flows,
        info,
        rec,
        sc.engine,
    ))
}
