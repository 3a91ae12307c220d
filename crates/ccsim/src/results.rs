//! Results as columns: one table of flows, one of link directions, and the recorded series.

use crate::config::{Recovery, SeriesName};
use crate::net::link::LinkStats;
use crate::net::packet_log::{PacketEvent, PacketRecord};
use crate::net::wire::{flag_names, Conn};
use crate::packet::Kind;
use crate::sim::{FlowInfo, FlowSlot, Simulation};
use crate::time::SimTime;
use crate::trace::Series;

#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    fn f64(&mut self, name: &'static str, v: Vec<f64>) {
        self.columns.push((name, Column::F64(v)));
    }
    fn u64(&mut self, name: &'static str, v: Vec<u64>) {
        self.columns.push((name, Column::U64(v)));
    }
    fn str(&mut self, name: &'static str, v: Vec<String>) {
        self.columns.push((name, Column::Str(v)));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c)
    }
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }
    pub fn strs(&self, name: &str) -> &[String] {
        match self.get(name) {
            Some(Column::Str(v)) => v,
            _ => panic!("no string column {name}"),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub events: u64,
    pub packets_injected: u64,
    pub packets_consumed: u64,
    pub packets_dropped: u64,
    pub packets_in_network: u64,
    /// The most packets held at once (memory per packet in flight is measured against it): in
    /// the network, and packets dropped at a fed queue until the event that takes them in,
    /// which may come up to one link delay later (cut-through, `net/link.rs`).
    pub packets_peak: u64,
}

pub struct Results {
    pub meta: Meta,
    pub flows: Table,
    pub queues: Table,
    pub series: Vec<(SeriesName, Series)>,
    /// One row per event of a packet at a traced link direction (`net/packet_log.rs`), in time
    /// order; no rows when no link is traced.
    pub packets: Table,
}

/// One flow's summary, before it is split into columns.
struct FlowRow {
    start: f64,
    end: f64,
    last_arrival: f64,
    bytes_sent: u64,
    bytes_delivered: u64,
    packets_sent: u64,
    packets_delivered: u64,
    packets_dropped: u64,
    goodput: f64,
    throughput: f64,
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
    rtt_mean: f64,
    rtt_min: f64,
    rtt_max: f64,
    rtt_samples: u64,
    size: u64,
    completion: f64,
    cwnd: f64,
    ecn: u64,
    ecn_reductions: u64,
    ce_marks: u64,
    acns: u64,
    /// Router commands that acted on the window: freeze, fallback.
    acns_freezes: u64,
    acns_fallbacks: u64,
    /// Losses answered by each trend command: keep, fall back, the variant's decrease.
    acns_trend: [u64; 3],
    owd_mean: f64,
    owd_max: f64,
}

fn flow_row(sim: &Simulation, i: usize) -> FlowRow {
    let now = sim.now;
    let info = &sim.info[i];
    let (size, completion) = match &sim.flows[i] {
        FlowSlot::Tcp(t) => (t.receiver.size(), t.receiver.completed_at()),
        FlowSlot::Udp(_) => (None, None),
    };
    // The active period ends at completion, at the application's stop, or at the end.
    let end = completion.or(info.stop.get()).unwrap_or(now).min(now);
    // Goodput and throughput are taken over the interval in which the bytes were delivered:
    // from the start to the later of the active period's end and the last data arrival. Bytes
    // still in the network at a flow's `stop` arrive after it; divided by the active period
    // alone they made a 5 Mb/s CBR stopped at 0.2 s over a 64 kb/s link read 268 kb/s
    // (issue 33). Not the last arrival alone: a flow stalled at the end of the run (an RTO
    // backing off) keeps the stall in its goodput.
    let last_arrival = sim.flow_owd[i].last_arrival();
    let until = last_arrival.map_or(end, |t| t.max(end));
    let interval = until.saturating_sub(info.start).as_secs_f64();
    let rate = |bytes: u64| {
        if interval > 0.0 {
            bytes as f64 * 8.0 / interval
        } else {
            0.0
        }
    };
    let mut row = FlowRow {
        start: info.start.as_secs_f64(),
        end: end.as_secs_f64(),
        last_arrival: last_arrival.map_or(f64::NAN, SimTime::as_secs_f64),
        bytes_sent: 0,
        bytes_delivered: 0,
        packets_sent: 0,
        packets_delivered: 0,
        packets_dropped: sim.flow_drops[i],
        goodput: 0.0,
        throughput: 0.0,
        retransmits: 0,
        timeouts: 0,
        fast_retransmits: 0,
        rtt_mean: f64::NAN,
        rtt_min: f64::NAN,
        rtt_max: f64::NAN,
        rtt_samples: 0,
        size: size.unwrap_or(0),
        completion: completion
            .map(|t| (t - info.start).as_secs_f64())
            .unwrap_or(f64::NAN),
        cwnd: f64::NAN,
        ecn: 0,
        ecn_reductions: 0,
        ce_marks: 0,
        acns: 0,
        acns_freezes: 0,
        acns_fallbacks: 0,
        acns_trend: [0; 3],
        owd_mean: f64::NAN,
        owd_max: f64::NAN,
    };
    if let Some((mean, max)) = sim.flow_owd[i].mean_max() {
        (row.owd_mean, row.owd_max) = (mean, max);
    }
    let arrived = match &sim.flows[i] {
        FlowSlot::Tcp(t) => {
            let s = &t.sender.stats;
            row.bytes_sent = s.bytes_sent;
            row.bytes_delivered = t.receiver.rcv_nxt;
            row.packets_sent = s.packets_sent;
            row.packets_delivered = t.receiver.packets_arrived;
            row.retransmits = s.retransmits;
            row.timeouts = s.timeouts as u64;
            row.fast_retransmits = s.fast_retransmits as u64;
            if s.rtt_n > 0 {
                row.rtt_mean = s.rtt_sum / s.rtt_n as f64;
                row.rtt_min = s.rtt_min;
                row.rtt_max = s.rtt_max;
                row.rtt_samples = s.rtt_n;
            }
            row.cwnd = t.sender.st.cwnd;
            row.ecn = t.sender.ecn.on as u64;
            row.ecn_reductions = s.ecn_reductions;
            row.ce_marks = t.receiver.ecn.ce_received;
            if let Some(a) = t.sender.acns_stats() {
                row.acns = 1;
                row.acns_freezes = a.freezes;
                row.acns_fallbacks = a.fallbacks;
                row.acns_trend = a.trend;
            }
            t.receiver.bytes_arrived
        }
        FlowSlot::Udp(c) => {
            row.bytes_sent = c.bytes_sent;
            row.bytes_delivered = c.bytes_received;
            row.packets_sent = c.packets_sent;
            row.packets_delivered = c.packets_received;
            c.bytes_received
        }
    };
    row.goodput = rate(row.bytes_delivered);
    row.throughput = rate(arrived);
    row
}

/// Summarises a simulation at its current time (normally the end of the run).
pub fn collect(sim: &mut Simulation) -> Results {
    sim.settle(false);
    let now = sim.now;
    let rows: Vec<FlowRow> = (0..sim.flows.len()).map(|i| flow_row(sim, i)).collect();
    let mut flows = Table::default();
    let info = &sim.info;
    let names = &sim.names.nodes;
    let flow_names = sim.names.flows.iter().map(str::to_string);
    flows.str("flow", flow_names.collect());
    let label = |f: &FlowInfo| sim.names.labels[f.labels as usize];
    flows.str(
        "kind",
        info.iter().map(|f| label(f).kind.to_string()).collect(),
    );
    flows.str(
        "src",
        info.iter()
            .map(|f| names[f.src as usize].to_string())
            .collect(),
    );
    flows.str(
        "dst",
        info.iter()
            .map(|f| names[f.dst as usize].to_string())
            .collect(),
    );
    flows.str("cc", info.iter().map(|f| label(f).cc.to_string()).collect());
    flows.str(
        "recovery",
        info.iter().map(|f| label(f).recovery.to_string()).collect(),
    );
    let f = |g: fn(&FlowRow) -> f64| rows.iter().map(g).collect::<Vec<f64>>();
    let u = |g: fn(&FlowRow) -> u64| rows.iter().map(g).collect::<Vec<u64>>();
    flows.f64("start_s", f(|r| r.start));
    flows.f64("end_s", f(|r| r.end));
    flows.f64("last_arrival_s", f(|r| r.last_arrival));
    flows.u64("bytes_sent", u(|r| r.bytes_sent));
    flows.u64("bytes_delivered", u(|r| r.bytes_delivered));
    flows.u64("packets_sent", u(|r| r.packets_sent));
    flows.u64("packets_delivered", u(|r| r.packets_delivered));
    flows.u64("packets_dropped", u(|r| r.packets_dropped));
    flows.f64("goodput_bps", f(|r| r.goodput));
    flows.f64("throughput_bps", f(|r| r.throughput));
    flows.u64("retransmits", u(|r| r.retransmits));
    flows.u64("timeouts", u(|r| r.timeouts));
    flows.u64("fast_retransmits", u(|r| r.fast_retransmits));
    flows.f64("rtt_mean_s", f(|r| r.rtt_mean));
    flows.f64("rtt_min_s", f(|r| r.rtt_min));
    flows.f64("rtt_max_s", f(|r| r.rtt_max));
    flows.u64("rtt_samples", u(|r| r.rtt_samples));
    flows.u64("size_bytes", u(|r| r.size));
    flows.f64("completion_s", f(|r| r.completion));
    flows.f64("cwnd_final", f(|r| r.cwnd));
    flows.u64("ecn", u(|r| r.ecn));
    flows.u64("ecn_reductions", u(|r| r.ecn_reductions));
    flows.u64("ce_marks", u(|r| r.ce_marks));
    flows.u64("acns", u(|r| r.acns));
    flows.u64("acns_freezes", u(|r| r.acns_freezes));
    flows.u64("acns_fallbacks", u(|r| r.acns_fallbacks));
    flows.u64("acns_trend_keep", u(|r| r.acns_trend[0]));
    flows.u64("acns_trend_fallback", u(|r| r.acns_trend[1]));
    flows.u64("acns_trend_decrease", u(|r| r.acns_trend[2]));
    flows.f64("owd_mean_s", f(|r| r.owd_mean));
    flows.f64("owd_max_s", f(|r| r.owd_max));

    let mut queues = Table::default();
    let stats: Vec<LinkStats> = sim.links.iter().map(|l| l.stats(now)).collect();
    let link_names = (0..sim.links.len()).map(|l| sim.link_name(l).to_string());
    queues.str("link", link_names.collect());
    queues.str(
        "from",
        sim.links
            .iter()
            .map(|l| names[l.from as usize].to_string())
            .collect(),
    );
    queues.str(
        "to",
        sim.links
            .iter()
            .map(|l| names[l.to as usize].to_string())
            .collect(),
    );
    queues.u64("rate_bps", sim.links.iter().map(|l| l.rate.bps()).collect());
    let stat = |g: fn(&LinkStats) -> u64| stats.iter().map(g).collect::<Vec<u64>>();
    queues.u64("arrivals", stat(|s| s.arrivals));
    queues.u64("departures", stat(|s| s.departures));
    queues.u64("drops_overflow", stat(|s| s.drops_overflow));
    queues.u64("drops_aqm", stat(|s| s.drops_aqm));
    queues.u64("drops_early", stat(|s| s.drops_early));
    queues.u64("drops_forced", stat(|s| s.drops_forced));
    queues.u64("drops_loss", stat(|s| s.drops_loss));
    queues.u64("marks", stat(|s| s.marks));
    queues.u64("marks_early", stat(|s| s.marks_early));
    queues.u64("marks_forced", stat(|s| s.marks_forced));
    queues.u64("bytes_departed", stat(|s| s.bytes_departed));
    let written: Vec<_> = sim.links.iter().map(|l| l.acns_written()).collect();
    queues.u64("acns_freezes", written.iter().map(|w| w.freeze).collect());
    queues.u64(
        "acns_fallbacks",
        written.iter().map(|w| w.fallback).collect(),
    );
    let max_p = stats.iter().map(|s| s.max_len_pkts as f64).collect();
    let max_b = stats.iter().map(|s| s.max_len_bytes as f64).collect();
    let t = now.as_secs_f64().max(1e-12);
    let util = sim
        .links
        .iter()
        .map(|l| l.busy_until(now).as_secs_f64() / t)
        .collect();
    let avgs: Vec<(f64, f64)> = sim.links.iter_mut().map(|l| l.averages(now)).collect();
    queues.f64("avg_len_pkts", avgs.iter().map(|a| a.0).collect());
    queues.f64("max_len_pkts", max_p);
    queues.f64("avg_len_bytes", avgs.iter().map(|a| a.1).collect());
    queues.f64("max_len_bytes", max_b);
    queues.f64("utilisation", util);

    let meta = Meta {
        name: sim.name.clone(),
        seed: sim.seed,
        duration_s: sim.end().as_secs_f64(),
        events: sim.events_processed(),
        packets_injected: sim.counters.injected,
        packets_consumed: sim.counters.consumed,
        packets_dropped: sim.counters.dropped,
        packets_in_network: sim.packets_in_network(),
        packets_peak: sim.packets_peak() as u64,
    };
    let series = sim.take_recorder().into_series();
    let packets = packets_table(sim, now);
    Results {
        meta,
        flows,
        queues,
        series,
        packets,
    }
}

/// Flow `i`'s connection as its packets show it (for a UDP flow, nothing is read from it).
fn wire_conn(sim: &Simulation, i: usize) -> Conn {
    match &sim.flows[i] {
        FlowSlot::Tcp(t) => {
            let p = t.sender.params();
            let rwnd = t.sender.st.rwnd;
            let rwnd = rwnd.is_finite().then(|| rwnd as u64 * p.mss as u64);
            let sack_s = p.recovery == Recovery::Sack;
            Conn::new(
                i as u32,
                p.mss,
                p.timestamps,
                (sack_s, t.receiver.sack()),
                rwnd,
            )
        }
        FlowSlot::Udp(_) => Conn::default(),
    }
}

/// The traced directions' packet records up to `now`, in time order. A packet still
/// propagating at `now` has no `r`.
fn packets_table(sim: &Simulation, now: SimTime) -> Table {
    let mut rows: Vec<(usize, &PacketRecord)> = sim
        .links
        .iter()
        .enumerate()
        .filter_map(|(d, l)| l.packet_log().map(|log| (d, log)))
        .flat_map(|(d, log)| log.records.iter().map(move |r| (d, r)))
        .filter(|(_, r)| r.at <= now)
        .collect();
    // At one time, cause before effect: a packet reaches a node (`r`), joins the next queue
    // (`+`), is dropped there or leaves it (`d`, `-`); then by direction, then as recorded
    // (the sort is stable).
    let rank = |e: PacketEvent| match e {
        PacketEvent::Receive => 0,
        PacketEvent::Enqueue => 1,
        PacketEvent::Drop(_) => 2,
        PacketEvent::Dequeue => 3,
    };
    rows.sort_by_key(|(_, r)| (r.at, rank(r.event)));
    let nodes = &sim.names.nodes;
    let text = |f: &dyn Fn(usize, &PacketRecord) -> String| -> Vec<String> {
        rows.iter().map(|&(d, r)| f(d, r)).collect()
    };
    let num =
        |f: &dyn Fn(&PacketRecord) -> u64| -> Vec<u64> { rows.iter().map(|(_, r)| f(r)).collect() };
    let mut t = Table::default();
    t.f64(
        "time_s",
        rows.iter().map(|(_, r)| r.at.as_secs_f64()).collect(),
    );
    t.str("event", text(&|_, r| r.event.letter().to_string()));
    t.str("cause", text(&|_, r| r.event.cause().to_string()));
    t.str("link", text(&|d, _| sim.link_name(d).to_string()));
    t.str(
        "from",
        text(&|d, _| nodes[sim.links[d].from as usize].to_string()),
    );
    t.str(
        "to",
        text(&|d, _| nodes[sim.links[d].to as usize].to_string()),
    );
    t.str(
        "flow",
        text(&|_, r| sim.names.flows[r.flow as usize].to_string()),
    );
    let kind = |k: Kind| match k {
        Kind::TcpData => "tcp",
        Kind::TcpAck => "ack",
        Kind::Udp => "udp",
    };
    t.str("kind", text(&|_, r| kind(r.kind).to_string()));
    t.u64("size", num(&|r| r.size as u64));
    t.u64("payload", num(&|r| r.payload as u64));
    // Sequence numbers, flags and options as on the wire (`net/wire.rs`).
    let conns: Vec<Conn> = (0..sim.flows.len()).map(|i| wire_conn(sim, i)).collect();
    let conn = |r: &PacketRecord| &conns[r.flow as usize];
    t.u64("seq", num(&|r| conn(r).seq_ack(r).0 as u64));
    t.u64("ack", num(&|r| conn(r).seq_ack(r).1 as u64));
    t.str("flags", text(&|_, r| flag_names(r)));
    t.u64("window", num(&|r| conn(r).window_field(r) as u64));
    t.str("options", text(&|_, r| conn(r).options(r)));
    t.u64("ce", num(&|r| (r.ecn == 3) as u64));
    t.u64("ecn", num(&|r| r.ecn as u64));
    t.u64("cmi", num(&|r| r.cmi as u64));
    t.u64("dscp", num(&|r| r.dscp as u64));
    t.u64("uid", num(&|r| r.uid));
    t.f64(
        "sent_s",
        rows.iter().map(|(_, r)| r.sent.as_secs_f64()).collect(),
    );
    t
}
