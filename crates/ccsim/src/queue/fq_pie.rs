//! FQ-PIE — flow queuing with PIE (RFC 8033) in each queue, as Linux `sch_fq_pie`
//! (Tahiliani et al., `net/sched/sch_fq_pie.c`, Linux 5.6; G. Ramakrishnan, M. Bhasi,
//! V. Saicharan, L. Monis, S. D. Patil, M. P. Tahiliani, "FQ-PIE Queue Discipline in the Linux
//! Kernel: Design, Implementation and Challenges", IEEE LCN Symposium 2019).
//!
//! Arrivals are hashed into `flows` queues (1024) and served by FQ-CoDel's deficit round robin
//! with new queues ahead of old ones (`fq_codel.rs`'s `FlowQueues`, the scheduler the two
//! share), so a sparse flow is sent at once and backlogged flows share the link byte for
//! byte. Each queue has its own PIE controller (`pie.rs`'s `PieVars`) fed that queue's backlog
//! and the sojourn times of its packets: every `tupdate` each queue's drop probability moves by
//! `α·(qdelay − target) + β·(qdelay − qdelay_old)` (scaled while small, RFC 8033 §4.2), and an
//! arrival is dropped early with its queue's probability (derandomised, §5.4, as Linux always
//! does), after its queue's burst allowance (150 ms) and never while that queue holds at most
//! two MTUs. With `ecn`, an ECN-capable packet is marked instead while its queue's probability
//! is at most `ecn_prob` percent. Unlike FQ-CoDel, all decisions are at enqueue: dequeue only
//! schedules.
//!
//! An arrival finding `limit` packets queued in all is dropped (Linux counts it `overlimit`;
//! FQ-CoDel would cut the fattest queue instead), as is one that would take the queued bytes
//! past `memory_limit`.
//!
//! Departures from Linux: `memory_limit` counts packet bytes and drops, where Linux counts
//! buffer truesize and only reports `overmemory` without dropping; the first update is at
//! `tupdate` (Linux's timer first fires after 0.5 s); PIE's controller is this simulator's
//! RFC 8033 one (`pie.rs`: burst allowance consumed per update, the RFC's decay below
//! target/2), not Linux's variants of it.

use schemars::JsonSchema;
use serde::Deserialize;

use super::codel::CodelSource;
use super::fq_codel::{flow_count, FlowQueues, QUANTUM};
use super::param::{at_least_one, bytes_u32, positive_time};
use super::pie::{self, gain, skip_fixed_points, PieParams, PieVars};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::{Bytes, Duration};
use crate::config::ParamError;
use crate::packet::PktId;
use crate::time::SimTime;

/// Linux `fq_pie_init`'s defaults: 1024 flows (as FQ-CoDel's, `fq_codel::FLOWS`), 10 240
/// packets, 32 MiB, ECN marking up to 10 %.
pub const LIMIT: u32 = 10_240;
pub const MEMORY_LIMIT: u64 = 32 << 20;
pub const ECN_PROB: u32 = 10;

#[derive(Clone, Debug, PartialEq)]
pub struct FqPieParams {
    pub flows: u32,
    pub quantum: u32,
    /// Each queue's PIE; `limit` is the total over all queues.
    pub pie: PieParams,
    pub memory_limit: u64,
}

pub struct FqPie {
    c: FqPieParams,
    fq: FlowQueues,
    pie: Vec<PieVars>,
    next_update: SimTime,
}

impl FqPie {
    pub fn new(c: FqPieParams) -> FqPie {
        FqPie {
            fq: FlowQueues::new(c.flows, c.quantum),
            pie: vec![PieVars::new(&c.pie); c.flows as usize],
            next_update: c.pie.tupdate,
            c,
        }
    }

    /// Queue `i`'s drop probability.
    pub fn drop_prob(&self, i: usize) -> f64 {
        self.pie[i].drop_prob()
    }

    /// Applies every update due at or before `now` to every queue (Linux `fq_pie_timer`).
    fn catch_up(&mut self, now: SimTime) {
        let c = &self.c.pie;
        while self.next_update <= now {
            let mut changed = false;
            for (i, v) in self.pie.iter_mut().enumerate() {
                changed |= v.update(c, self.fq.queue(i).backlog());
            }
            self.next_update += c.tupdate;
            if !changed {
                // Every queue at a fixed point: nothing moves until the next packet.
                self.next_update = skip_fixed_points(self.next_update, now, c.tupdate);
            }
        }
    }
}

impl QueueDiscipline for FqPie {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        self.catch_up(ctx.now);
        let i = self.fq.classify(pkt, ctx);
        let size = ctx.arena.get(pkt).size as u64;
        if self.fq.qlen() >= self.c.pie.limit || self.fq.backlog() + size > self.c.memory_limit {
            self.pie[i].overflowed();
            return Verdict::Dropped(Reason::Overflow);
        }
        // PIE decides on the arrival's own queue, by that queue's backlog (Linux passes
        // `sel_flow->backlog`).
        let v = self.pie[i].admit(&self.c.pie, self.fq.queue(i).backlog(), pkt, ctx);
        if !matches!(v, Verdict::Dropped(_)) {
            self.fq.push(i, pkt, size);
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        self.catch_up(ctx.now);
        let (pie, c) = (&mut self.pie, &self.c.pie);
        let next = self.fq.dequeue(ctx, |i, src, ctx| {
            let p = src.pop(ctx.arena)?;
            let pkt = ctx.arena.get(p);
            let sojourn = ctx.now - pkt.enqueued;
            pie[i].departed(c, pkt.size, sojourn, src.flow_backlog(), ctx.now);
            Some(p)
        });
        next.map(|(_, p)| p)
    }

    fn len_packets(&self) -> u32 {
        self.fq.qlen()
    }
    fn len_bytes(&self) -> u64 {
        self.fq.backlog()
    }
}

/// FQ-PIE, as Linux `sch_fq_pie`: flow queues served by deficit round robin, PIE (RFC 8033) in
/// each.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqPieSpec {
    /// Number of flow queues (hash buckets), 1–65536. Default 1024.
    #[serde(default)]
    pub flows: Option<u32>,
    /// Bytes a queue may send per round. Default 1514 B (Linux: the device's MTU and header).
    #[serde(default)]
    pub quantum: Option<Bytes>,
    /// PIE's target queueing delay, per queue. Default 15 ms.
    #[serde(default)]
    pub target: Option<Duration>,
    /// Drop-probability update period. Default 15 ms.
    #[serde(default)]
    pub tupdate: Option<Duration>,
    /// Proportional gain, Hz. Default 0.125 (Linux's `alpha 2`, in sixteenths).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Integral gain, Hz. Default 1.25 (Linux's `beta 20`, in sixteenths).
    #[serde(default)]
    pub beta: Option<f64>,
    /// Packets held in all queues; an arrival finding this many is dropped. Default 10240.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Bytes held in all queues; an arrival that would pass it is dropped. Default 32 MiB.
    #[serde(default)]
    pub memory_limit: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them while their queue's probability is at
    /// most `ecn_prob`. Default false.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// Marking threshold of the drop probability, percent, 0–100. Default 10.
    #[serde(default)]
    #[schemars(range(max = 100))]
    pub ecn_prob: Option<u32>,
    /// Scale the probability by packet size / MTU. Default false.
    #[serde(default)]
    pub bytemode: Option<bool>,
    /// Estimate each queue's delay from its departure rate (RFC 8033 §5.2) instead of
    /// timestamps. Default false.
    #[serde(default)]
    pub dq_rate_estimator: Option<bool>,
}

impl QueueConfig for FqPieSpec {
    type Discipline = FqPie;

    fn build(&self, _ctx: &QueueContext) -> Result<FqPie, ParamError> {
        let s = self;
        let flows = flow_count(s.flows)?;
        let quantum = bytes_u32(s.quantum, QUANTUM);
        if !(1..=1 << 20).contains(&quantum) {
            return Err(("quantum", format!("{quantum} B is outside 1 B..=1 MiB")));
        }
        let ecn_prob = s.ecn_prob.unwrap_or(ECN_PROB);
        if ecn_prob > 100 {
            return Err((
                "ecn_prob",
                format!("{ecn_prob} is outside 0..=100 (percent)"),
            ));
        }
        let memory_limit = s.memory_limit.map(|b| b.0).unwrap_or(MEMORY_LIMIT);
        Ok(FqPie::new(FqPieParams {
            flows,
            quantum,
            pie: PieParams {
                target: positive_time(s.target, pie::TARGET, "target")?,
                tupdate: positive_time(s.tupdate, pie::TUPDATE, "tupdate")?,
                alpha: gain(s.alpha, pie::ALPHA, "alpha")?,
                beta: gain(s.beta, pie::BETA, "beta")?,
                // Linux: fixed (`pie_vars_init`), as is derandomisation (`pie_drop_early`).
                max_burst: pie::MAX_BURST,
                limit: at_least_one(s.limit, LIMIT, "limit", "packet")?,
                ecn: s.ecn.unwrap_or(false),
                mark_ecnth: ecn_prob as f64 / 100.0,
                bytemode: s.bytemode.unwrap_or(false),
                derandomize: true,
                dq_rate_estimator: s.dq_rate_estimator.unwrap_or(false),
                mtu: pie::MTU,
            },
            memory_limit,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::param::error_text;
    use super::*;
    use crate::packet::Ecn;

    fn params() -> FqPieParams {
        let s = FqPieSpec::default();
        let ctx = QueueContext {
            profile: crate::config::Profile::Linux,
            rate: crate::time::Rate(10_000_000),
            delay: SimTime::from_millis(10),
        };
        s.build(&ctx).unwrap().c
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    /// Flows 0..n land in distinct queues with this test's random stream; returns them.
    fn queues_of(h: &mut Harness, q: &mut FqPie, n: u32) -> Vec<usize> {
        let mut seen = vec![];
        for f in 0..n {
            let p = h.pkt(f, 100, Ecn::NotEct, SimTime::ZERO);
            let i = q.fq.classify(p, &mut h.ctx(SimTime::ZERO));
            assert!(!seen.contains(&i), "hash collision");
            seen.push(i);
        }
        seen
    }

    #[test]
    fn linux_defaults() {
        let c = params();
        assert_eq!((c.flows, c.quantum, c.memory_limit), (1024, 1514, 32 << 20));
        let p = &c.pie;
        assert_eq!((p.target, p.tupdate, p.limit), (ms(15), ms(15), 10_240));
        // Linux's alpha 2 and beta 20 are sixteenths of Hz: 2/16 = 0.125, 20/16 = 1.25.
        assert_eq!((p.alpha, p.beta), (2.0 / 16.0, 20.0 / 16.0));
        assert_eq!((p.ecn, p.mark_ecnth, p.derandomize), (false, 0.1, true));
        assert_eq!((p.max_burst, p.dq_rate_estimator), (ms(150), false));
    }

    #[test]
    fn each_queue_runs_its_own_controller_on_its_own_delay() {
        let mut h = Harness::new();
        let mut q = FqPie::new(params());
        let ids = queues_of(&mut h, &mut q, 2);
        // t = 0: flow 0 queues 20 packets of 1500 B, flow 1 one.
        for _ in 0..20 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        }
        h.offer(&mut q, 1, 1500, Ecn::NotEct, SimTime::ZERO);
        // t = 10 ms: flow 0 (first new queue) sends two packets (deficit 1514 − 1500 = 14 is
        // still positive), then flow 1 its only one, which leaves its queue empty.
        let flows: Vec<u32> = (0..3)
            .map(|_| {
                let p = q.dequeue(&mut h.ctx(ms(10))).unwrap();
                h.arena.get(p).flow
            })
            .collect();
        assert_eq!(flows, vec![0, 0, 1]);
        // t = 14 ms: flow 1's empty queue leaves the new list; flow 0 sends one waited 14 ms.
        let p = q.dequeue(&mut h.ctx(ms(14))).unwrap();
        assert_eq!(h.arena.get(p).flow, 0);
        // t = 15 ms: the first update, before this dequeue. Flow 0: qdelay 14 ms, old 0, p 0:
        //   0.125·(0.014 − 0.015) + 1.25·(0.014 − 0) = −0.000125 + 0.0175 = 0.017375,
        //   scaled by 1/2048 (probability below 1e−6).
        // Flow 1: its queue emptied, qdelay 0: 0.125·(0 − 0.015) < 0 → 0.
        q.dequeue(&mut h.ctx(ms(15)));
        assert!((q.drop_prob(ids[0]) - 0.017375 / 2048.0).abs() < 1e-15);
        assert_eq!(q.drop_prob(ids[1]), 0.0);
    }

    #[test]
    fn a_standing_queue_is_dropped_and_a_sparse_flow_is_not() {
        // Flow 0 offers two 1500 B packets per ms, flow 1 one every 10 ms; one packet leaves
        // per ms. Flow 0's queue grows, its probability rises past its burst allowance and
        // drops follow; flow 1 is sent at once each time (a new queue) and never waits.
        let mut h = Harness::new();
        let mut q = FqPie::new(params());
        let ids = queues_of(&mut h, &mut q, 2);
        let (mut early, mut sparse_lost) = (0, 0);
        for k in 0..3000u64 {
            let t = ms(k);
            for _ in 0..2 {
                match h.offer(&mut q, 0, 1500, Ecn::NotEct, t) {
                    Verdict::Dropped(Reason::Early) => early += 1,
                    Verdict::Enqueued => {}
                    v => panic!("{v:?}"),
                }
            }
            if k % 10 == 0 && h.offer(&mut q, 1, 200, Ecn::NotEct, t) != Verdict::Enqueued {
                sparse_lost += 1;
            }
            q.dequeue(&mut h.ctx(t));
        }
        assert!(early > 1000, "{early}");
        assert!(q.drop_prob(ids[0]) > 0.1, "{}", q.drop_prob(ids[0]));
        assert_eq!((sparse_lost, q.drop_prob(ids[1])), (0, 0.0));
    }

    #[test]
    fn marks_below_ecn_prob_and_drops_above_it() {
        let mut h = Harness::new();
        let mut c = params();
        c.pie.ecn = true;
        let mut q = FqPie::new(c);
        let ids = queues_of(&mut h, &mut q, 1);
        for _ in 0..10 {
            h.offer(&mut q, 0, 1500, Ecn::Ect0, SimTime::ZERO);
        }
        // A queue past its burst allowance, its last delay 20 ms (≥ target/2).
        let mut decisions = |q: &mut FqPie, prob: f64| {
            q.pie[ids[0]].force(prob, 0.02);
            let mut seen = vec![];
            for _ in 0..400 {
                let v = h.offer(q, 0, 1500, Ecn::Ect0, SimTime::ZERO);
                if v != Verdict::Enqueued {
                    seen.push(v);
                }
                // Keep ten packets queued (above the two-MTU floor).
                if !matches!(v, Verdict::Dropped(_)) {
                    q.dequeue(&mut h.ctx(SimTime::ZERO));
                }
            }
            seen
        };
        // 10 % ≤ ecn_prob (10): chosen ECT packets are marked …
        let at_10 = decisions(&mut q, 0.1);
        assert!(at_10.len() > 10, "{}", at_10.len());
        assert!(at_10.iter().all(|v| *v == Verdict::Marked(Reason::Early)));
        // … above it they are dropped.
        let at_30 = decisions(&mut q, 0.3);
        assert!(at_30.len() > 40, "{}", at_30.len());
        assert!(at_30.iter().all(|v| *v == Verdict::Dropped(Reason::Early)));
    }

    #[test]
    fn the_packet_and_byte_limits_drop_the_arrival() {
        let mut h = Harness::new();
        let mut c = params();
        c.pie.limit = 3;
        let mut q = FqPie::new(c.clone());
        for f in 0..3 {
            assert_eq!(
                h.offer(&mut q, f, 1500, Ecn::Ect0, SimTime::ZERO),
                Verdict::Enqueued
            );
        }
        let v = h.offer(&mut q, 3, 100, Ecn::Ect0, SimTime::ZERO);
        assert_eq!(v, Verdict::Dropped(Reason::Overflow));
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 4500));
        // 4000 bytes: 1500 + 1500 fit, a third 1500 (4500 > 4000) does not, 1000 does.
        c.pie.limit = 100;
        c.memory_limit = 4000;
        let mut q = FqPie::new(c);
        let offers =
            [1500, 1500, 1500, 1000].map(|s| h.offer(&mut q, 0, s, Ecn::Ect0, SimTime::ZERO));
        assert_eq!(offers[2], Verdict::Dropped(Reason::Overflow));
        assert_eq!(q.len_bytes(), 4000);
    }

    #[test]
    fn checks_name_the_field() {
        let ctx = QueueContext {
            profile: crate::config::Profile::Linux,
            rate: crate::time::Rate(10_000_000),
            delay: SimTime::from_millis(10),
        };
        let err = |json: &str| {
            let s: FqPieSpec = serde_json::from_str(json).unwrap();
            error_text(s.build(&ctx))
        };
        assert_eq!(err(r#"{"flows": 0}"#), "q.flows: 0 is outside 1..=65536");
        assert_eq!(
            err(r#"{"ecn_prob": 101}"#),
            "q.ecn_prob: 101 is outside 0..=100 (percent)"
        );
        assert_eq!(
            err(r#"{"quantum": "2MiB"}"#),
            "q.quantum: 2097152 B is outside 1 B..=1 MiB"
        );
        assert_eq!(err(r#"{"tupdate": 0}"#), "q.tupdate: must be positive");
        assert_eq!(
            err(r#"{"alpha": -1}"#),
            "q.alpha: -1 must be a non-negative number (Hz)"
        );
    }
}
