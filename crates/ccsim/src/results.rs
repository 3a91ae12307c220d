//! Results as columns: one table of flows, one of link directions, and the recorded series.

use crate::scenario::schema::SeriesName;
use crate::sim::{FlowSlot, Simulation};
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
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
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
}

pub struct Results {
    pub meta: Meta,
    pub flows: Table,
    pub queues: Table,
    pub series: Vec<(SeriesName, Series)>,
}

/// Summarises a simulation at its current time (normally the end of the run).
pub fn collect(sim: &mut Simulation) -> Results {
    let now = sim.now;
    let n = sim.flows.len();
    let mut c: Vec<Vec<f64>> = vec![Vec::with_capacity(n); 9];
    let mut u: Vec<Vec<u64>> = vec![Vec::with_capacity(n); 9];
    for (i, f) in sim.flows.iter().enumerate() {
        let info = &sim.info[i];
        let completion = match f {
            FlowSlot::Tcp(t) => t.receiver.completed_at,
            FlowSlot::Cbr(_) => None,
        };
        // The active period ends at completion, at the application's stop, or at the end.
        let end = completion.or(info.stop).unwrap_or(now).min(now);
        let active = end.saturating_sub(info.start).as_secs_f64();
        let rate = |bytes: u64| if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 };
        let (sent, delivered, arrived, psent, parrived, rtx, to, fr, rtt, cwnd) = match f {
            FlowSlot::Tcp(t) => {
                let s = &t.sender.stats;
                let rtt = if s.rtt_n > 0 { (s.rtt_sum / s.rtt_n as f64, s.rtt_min, s.rtt_max, s.rtt_n) } else { (f64::NAN, f64::NAN, f64::NAN, 0) };
                (
                    s.bytes_sent,
                    t.receiver.rcv_nxt,
                    t.receiver.bytes_arrived,
                    s.packets_sent,
                    t.receiver.packets_arrived,
                    s.retransmits,
                    s.timeouts,
                    s.fast_retransmits,
                    rtt,
                    t.sender.st.cwnd,
                )
            }
            FlowSlot::Cbr(b) => (
                b.bytes_sent,
                b.bytes_received,
                b.bytes_received,
                b.packets_sent,
                b.packets_received,
                0,
                0,
                0,
                (f64::NAN, f64::NAN, f64::NAN, 0),
                f64::NAN,
            ),
        };
        c[0].push(info.start.as_secs_f64());
        c[1].push(end.as_secs_f64());
        c[2].push(rate(delivered));
        c[3].push(rate(arrived));
        c[4].push(rtt.0);
        c[5].push(rtt.1);
        c[6].push(rtt.2);
        c[7].push(completion.map(|t| (t - info.start).as_secs_f64()).unwrap_or(f64::NAN));
        c[8].push(cwnd);
        u[0].push(sent);
        u[1].push(delivered);
        u[2].push(psent);
        u[3].push(parrived);
        u[4].push(sim.flow_drops[i]);
        u[5].push(rtx);
        u[6].push(to);
        u[7].push(fr);
        u[8].push(rtt.3);
    }
    let mut flows = Table::default();
    let strs = |g: &dyn Fn(usize) -> String| (0..n).map(g).collect::<Vec<_>>();
    flows.str("flow", strs(&|i| sim.info[i].name.clone()));
    flows.str("kind", strs(&|i| sim.info[i].kind.to_string()));
    flows.str("src", strs(&|i| sim.node_names[sim.info[i].src as usize].clone()));
    flows.str("dst", strs(&|i| sim.node_names[sim.info[i].dst as usize].clone()));
    flows.str("cc", strs(&|i| sim.info[i].cc.clone()));
    flows.str("recovery", strs(&|i| sim.info[i].recovery.clone()));
    let mut c = c.into_iter();
    let mut u = u.into_iter();
    let mut nf = || c.next().unwrap();
    flows.f64("start_s", nf());
    flows.f64("end_s", nf());
    let goodput = nf();
    let throughput = nf();
    let (rtt_mean, rtt_min, rtt_max, completion, cwnd) = (nf(), nf(), nf(), nf(), nf());
    let mut nu = || u.next().unwrap();
    flows.u64("bytes_sent", nu());
    flows.u64("bytes_delivered", nu());
    flows.u64("packets_sent", nu());
    flows.u64("packets_delivered", nu());
    flows.u64("packets_dropped", nu());
    flows.f64("goodput_bps", goodput);
    flows.f64("throughput_bps", throughput);
    flows.u64("retransmits", nu());
    flows.u64("timeouts", nu());
    flows.u64("fast_retransmits", nu());
    flows.f64("rtt_mean_s", rtt_mean);
    flows.f64("rtt_min_s", rtt_min);
    flows.f64("rtt_max_s", rtt_max);
    flows.u64("rtt_samples", nu());
    flows.f64("completion_s", completion);
    flows.f64("cwnd_final", cwnd);

    let mut queues = Table::default();
    let names = &sim.node_names;
    queues.str("link", sim.links.iter().map(|l| l.link.clone()).collect());
    queues.str("from", sim.links.iter().map(|l| names[l.from as usize].clone()).collect());
    queues.str("to", sim.links.iter().map(|l| names[l.to as usize].clone()).collect());
    queues.u64("rate_bps", sim.links.iter().map(|l| l.rate.bps()).collect());
    let stat = |g: fn(&crate::net::link::LinkStats) -> u64| sim.links.iter().map(|l| g(&l.stats)).collect::<Vec<u64>>();
    queues.u64("arrivals", stat(|s| s.arrivals));
    queues.u64("departures", stat(|s| s.departures));
    queues.u64("drops_overflow", stat(|s| s.drops_overflow));
    queues.u64("drops_aqm", stat(|s| s.drops_aqm));
    queues.u64("drops_loss", stat(|s| s.drops_loss));
    queues.u64("marks", stat(|s| s.marks));
    queues.u64("bytes_departed", stat(|s| s.bytes_departed));
    let max_p = sim.links.iter().map(|l| l.stats.max_len_pkts as f64).collect();
    let max_b = sim.links.iter().map(|l| l.stats.max_len_bytes as f64).collect();
    let t = now.as_secs_f64().max(1e-12);
    let util = sim.links.iter().map(|l| l.busy_until(now).as_secs_f64() / t).collect();
    let avgs: Vec<(f64, f64)> = sim.links.iter_mut().map(|l| l.averages(now)).collect();
    queues.f64("avg_len_pkts", avgs.iter().map(|a| a.0).collect());
    queues.f64("max_len_pkts", max_p);
    queues.f64("avg_len_bytes", avgs.iter().map(|a| a.1).collect());
    queues.f64("max_len_bytes", max_b);
    queues.f64("utilisation", util);

    let meta = Meta {
        name: sim.name.clone(),
        seed: sim.seed,
        duration_s: sim.end.as_secs_f64(),
        events: sim.events_processed(),
        packets_injected: sim.counters.injected,
        packets_consumed: sim.counters.consumed,
        packets_dropped: sim.counters.dropped,
        packets_in_network: sim.packets_in_network(),
    };
    let series = sim.take_recorder().into_series();
    Results { meta, flows, queues, series }
}
