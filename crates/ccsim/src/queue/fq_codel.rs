//! FQ-CoDel — Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet, "The Flow Queue CoDel
//! Packet Scheduler and Active Queue Management Algorithm", RFC 8290 (2018), as Linux
//! `sch_fq_codel` implements it.
//!
//! Arrivals are hashed by flow (here: flow id, source and destination, with a per-queue random
//! perturbation drawn from the queue's stream, as Linux's `perturbation`) into `flows` queues.
//! A deficit round robin with a `quantum` of bytes serves them, with "new" queues (those that
//! just became active) ahead of "old" ones (RFC 8290 §4.2–4.3), so a sparse flow — a voice call
//! next to a bulk transfer — is sent at once. Each queue runs its own CoDel (`codel.rs`) on the
//! packets it dequeues; as in Linux, CoDel's "at most one MTU queued" test reads the total
//! backlog. A queue found empty leaves the schedule, except that an empty new queue goes to the
//! end of the old list if that is not empty (RFC 8290 §4.3: no starvation of old flows).
//!
//! When the total exceeds `limit` packets or `memory_limit` bytes, packets are dropped from the
//! head of the queue with the largest backlog — up to half of its bytes, at most `drop_batch`
//! packets (Linux `fq_codel_drop`; RFC 8290 §4.1 drops from the fattest flow). These are
//! overflow drops; CoDel's are early (ECN-markable) ones.

use std::collections::VecDeque;

use super::ce_threshold::CeThreshold;
use super::codel::{CodelParams, CodelSource, CodelVars};
use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{at_least_one, bytes_u32};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::{Bytes, Duration};
use crate::config::ParamError;
use crate::packet::{PacketArena, PktId};

/// RFC 8290 §5 / Linux defaults.
pub const FLOWS: u32 = 1024;
/// Linux: the device MTU plus the Ethernet header.
pub const QUANTUM: u32 = 1514;
pub const LIMIT: u32 = 10_240;
pub const MEMORY_LIMIT: u64 = 32 << 20;
pub const DROP_BATCH: u32 = 64;

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    pub flows: u32,
    pub quantum: u32,
    pub codel: CodelParams,
    pub limit: u32,
    pub memory_limit: u64,
    pub drop_batch: u32,
}

#[derive(Default)]
pub(super) struct FlowQueue {
    fifo: VecDeque<PktId>,
    backlog: u64,
    deficit: i64,
    /// On the new or the old list.
    listed: bool,
}

impl FlowQueue {
    /// Bytes waiting in this queue.
    pub fn backlog(&self) -> u64 {
        self.backlog
    }
}

/// One flow queue seen by its AQM: pops update the totals; CoDel's MTU test reads the total
/// backlog (as Linux's `fq_codel`).
pub(super) struct Source<'a> {
    flow: &'a mut FlowQueue,
    total: &'a mut u64,
    qlen: &'a mut u32,
}

impl Source<'_> {
    /// Bytes still waiting in this flow's queue.
    pub fn flow_backlog(&self) -> u64 {
        self.flow.backlog
    }
}

impl CodelSource for Source<'_> {
    fn pop(&mut self, arena: &PacketArena) -> Option<PktId> {
        let p = self.flow.fifo.pop_front()?;
        let size = arena.get(p).size as u64;
        self.flow.backlog -= size;
        *self.total -= size;
        *self.qlen -= 1;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        *self.total
    }
}

/// The flow queues and their scheduler (RFC 8290 §4.1–4.3), shared with FQ-PIE (`fq_pie.rs`):
/// classification by a perturbed hash, and a deficit round robin in which queues that just
/// became active ("new") go ahead of the others ("old").
pub(super) struct FlowQueues {
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: u32,
    qlen: u32,
    backlog: u64,
    perturbation: Option<u64>,
}

/// A 64-bit mixer (SplitMix64's finaliser).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The number of flow queues a configuration asks for, `FLOWS` where left out (Linux's
/// `flows`, 1 to 65,536).
pub(super) fn flow_count(v: Option<u32>) -> Result<u32, ParamError> {
    let flows = v.unwrap_or(FLOWS);
    if !(1..=65_536).contains(&flows) {
        return Err(("flows", format!("{flows} is outside 1..=65536")));
    }
    Ok(flows)
}

impl FlowQueues {
    pub fn new(flows: u32, quantum: u32) -> FlowQueues {
        FlowQueues {
            queues: (0..flows).map(|_| FlowQueue::default()).collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            quantum,
            qlen: 0,
            backlog: 0,
            perturbation: None,
        }
    }

    /// Packets waiting in all queues.
    pub fn qlen(&self) -> u32 {
        self.qlen
    }

    /// Bytes waiting in all queues.
    pub fn backlog(&self) -> u64 {
        self.backlog
    }

    pub fn queue(&self, i: usize) -> &FlowQueue {
        &self.queues[i]
    }

    /// The queue a packet belongs to.
    pub fn classify(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> usize {
        let salt = *self.perturbation.get_or_insert_with(|| ctx.rng.next_u64());
        let p = ctx.arena.get(pkt);
        let key = (p.flow as u64) ^ ((p.src as u64) << 32);
        let h = mix(mix(key ^ salt) ^ p.dst as u64);
        // Linux `reciprocal_scale`: the top 32 bits scaled to [0, flows).
        (((h >> 32) * self.queues.len() as u64) >> 32) as usize
    }

    /// Appends `pkt` of `size` bytes to queue `i`; a queue on neither list joins the new one
    /// with a fresh quantum.
    pub fn push(&mut self, i: usize, pkt: PktId, size: u64) {
        let q = &mut self.queues[i];
        q.fifo.push_back(pkt);
        q.backlog += size;
        if !q.listed {
            q.listed = true;
            q.deficit = self.quantum as i64;
            self.new_flows.push_back(i as u32);
        }
        self.backlog += size;
        self.qlen += 1;
    }

    /// The next packet to send and its queue. `take(i, source, ctx)` takes a packet from queue
    /// `i` through its AQM (which may drop some first), or `None` when the queue has nothing
    /// to send; such a queue leaves the schedule, except that a new queue goes to the end of
    /// the old list if that is not empty (RFC 8290 §4.3: no starvation of old flows).
    pub fn dequeue(
        &mut self,
        ctx: &mut QueueCtx,
        mut take: impl FnMut(usize, &mut Source, &mut QueueCtx) -> Option<PktId>,
    ) -> Option<(usize, PktId)> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i as usize),
                (None, Some(&i)) => (false, i as usize),
                (None, None) => return None,
            };
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            if self.queues[i].deficit <= 0 {
                // Used up its quantum: a new quantum, and to the back of the old list.
                self.queues[i].deficit += self.quantum as i64;
                list.pop_front();
                self.old_flows.push_back(i as u32);
                continue;
            }
            let mut src = Source {
                flow: &mut self.queues[i],
                total: &mut self.backlog,
                qlen: &mut self.qlen,
            };
            match take(i, &mut src, ctx) {
                Some(p) => {
                    self.queues[i].deficit -= ctx.arena.get(p).size as i64;
                    return Some((i, p));
                }
                None => {
                    let list = if from_new {
                        &mut self.new_flows
                    } else {
                        &mut self.old_flows
                    };
                    list.pop_front();
                    if from_new && !self.old_flows.is_empty() {
                        // Force a pass through the old list before this flow counts as new
                        // again, so new flows cannot starve old ones.
                        self.old_flows.push_back(i as u32);
                    } else {
                        self.queues[i].listed = false;
                    }
                }
            }
        }
    }

    /// Drops from the head of the fattest queue (Linux `fq_codel_drop`); returns whether the
    /// arriving packet `arrival` was among the victims.
    fn drop_from_fattest(&mut self, arrival: PktId, drop_batch: u32, ctx: &mut QueueCtx) -> bool {
        let mut fat = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.backlog > self.queues[fat].backlog {
                fat = i;
            }
        }
        let threshold = self.queues[fat].backlog / 2;
        let (mut len, mut n, mut hit) = (0u64, 0u32, false);
        let q = &mut self.queues[fat];
        while let Some(p) = q.fifo.pop_front() {
            let size = ctx.arena.get(p).size as u64;
            q.backlog -= size;
            self.backlog -= size;
            self.qlen -= 1;
            len += size;
            n += 1;
            if p == arrival {
                hit = true;
            } else {
                ctx.dropped.push((p, Reason::Overflow));
            }
            if n >= drop_batch || len >= threshold {
                break;
            }
        }
        hit
    }
}

pub struct FqCodel {
    c: FqCodelParams,
    fq: FlowQueues,
    codel: Vec<CodelVars>,
}

impl FqCodel {
    pub fn new(c: FqCodelParams) -> FqCodel {
        FqCodel {
            fq: FlowQueues::new(c.flows, c.quantum),
            codel: vec![CodelVars::default(); c.flows as usize],
            c,
        }
    }
}

impl QueueDiscipline for FqCodel {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        let i = self.fq.classify(pkt, ctx);
        let size = ctx.arena.get(pkt).size as u64;
        self.fq.push(i, pkt, size);
        if self.fq.qlen <= self.c.limit && self.fq.backlog <= self.c.memory_limit {
            return Verdict::Enqueued;
        }
        if self.fq.drop_from_fattest(pkt, self.c.drop_batch, ctx) {
            Verdict::Dropped(Reason::Overflow)
        } else {
            Verdict::Enqueued
        }
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        let (codel, params) = (&mut self.codel, &self.c.codel);
        let next = self
            .fq
            .dequeue(ctx, |i, src, ctx| codel[i].dequeue(params, src, ctx));
        next.map(|(_, p)| p)
    }

    fn len_packets(&self) -> u32 {
        self.fq.qlen
    }
    fn len_bytes(&self) -> u64 {
        self.fq.backlog
    }
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
    /// Mark CE every ECN-capable packet that leaves after more than this in its queue, beside
    /// CoDel's own decisions (Linux `ce_threshold`; L4S setups use about 1 ms with the ECT(1)
    /// selector). Default none.
    #[serde(default)]
    pub ce_threshold: Option<Duration>,
    /// Only packets whose DS field (DSCP and ECN bits) masked with `ce_threshold_mask` equals
    /// this get `ce_threshold`'s mark: 1 with mask 1 selects ECT(1), L4S's identifier (Linux
    /// `ce_threshold_selector`). Default 0.
    #[serde(default)]
    pub ce_threshold_selector: Option<u8>,
    /// The DS-field bits `ce_threshold_selector` compares; 0 selects every packet. Default 0.
    #[serde(default)]
    pub ce_threshold_mask: Option<u8>,
}

impl QueueConfig for FqCodelSpec {
    type Discipline = FqCodel;

    fn build(&self, _ctx: &QueueContext) -> Result<FqCodel, ParamError> {
        let s = self;
        let flows = flow_count(s.flows)?;
        let ce =
            CeThreshold::from_spec(s.ce_threshold, s.ce_threshold_selector, s.ce_threshold_mask)?;
        let codel = super::codel::params(s.target, s.interval, s.mtu, s.ecn.unwrap_or(true), ce)?;
        Ok(FqCodel::new(FqCodelParams {
            flows,
            quantum: bytes_u32(s.quantum, QUANTUM),
            codel,
            limit: at_least_one(s.limit, LIMIT, "limit", "packet")?,
            memory_limit: s.memory_limit.map(|b| b.0).unwrap_or(MEMORY_LIMIT),
            drop_batch: at_least_one(s.drop_batch, DROP_BATCH, "drop_batch", "packet")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::codel;
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;
    use crate::time::SimTime;

    fn params() -> FqCodelParams {
        FqCodelParams {
            flows: FLOWS,
            quantum: QUANTUM,
            codel: CodelParams {
                target: codel::TARGET,
                interval: codel::INTERVAL,
                mtu: codel::MTU,
                ecn: true,
                ce_threshold: None,
            },
            limit: LIMIT,
            memory_limit: MEMORY_LIMIT,
            drop_batch: DROP_BATCH,
        }
    }

    const T: SimTime = SimTime::ZERO;

    /// Flows 0..n land in distinct queues with this test's random stream.
    fn distinct(h: &mut Harness, q: &mut FqCodel, n: u32) {
        let mut seen = std::collections::HashSet::new();
        for f in 0..n {
            let p = h.pkt(f, 100, Ecn::NotEct, T);
            assert!(
                seen.insert(q.fq.classify(p, &mut h.ctx(T))),
                "hash collision"
            );
        }
    }

    #[test]
    fn a_sparse_flow_overtakes_a_backlogged_one() {
        // Bulk flow 0: ten 1500 B packets. Its first dequeue leaves deficit 1514 − 1500 = 14,
        // still positive, so it sends a second (deficit −1486) before its turn ends; the voice
        // packet of flow 1, which arrived after the first dequeue, is a new flow and goes next,
        // ahead of the rest of the bulk backlog.
        let mut h = Harness::new();
        let mut q = FqCodel::new(params());
        distinct(&mut h, &mut q, 2);
        for _ in 0..10 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, T);
        }
        let mut order = vec![];
        let p = q.dequeue(&mut h.ctx(T)).unwrap();
        order.push(h.arena.get(p).flow);
        h.offer(&mut q, 1, 200, Ecn::NotEct, T);
        for _ in 0..3 {
            let p = q.dequeue(&mut h.ctx(T)).unwrap();
            order.push(h.arena.get(p).flow);
        }
        assert_eq!(order, vec![0, 0, 1, 0]);
    }

    #[test]
    fn backlogged_flows_share_bytes_equally() {
        // Flow 0 sends 1500 B packets, flow 1 sends 500 B packets, both always backlogged: the
        // deficit round robin gives each about one quantum per round, so the bytes served
        // differ by at most a quantum plus a packet.
        let mut h = Harness::new();
        let mut q = FqCodel::new(params());
        distinct(&mut h, &mut q, 2);
        for _ in 0..400 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, T);
            h.offer(&mut q, 1, 500, Ecn::NotEct, T);
            h.offer(&mut q, 1, 500, Ecn::NotEct, T);
            h.offer(&mut q, 1, 500, Ecn::NotEct, T);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..600 {
            let p = q.dequeue(&mut h.ctx(T)).unwrap();
            let pk = h.arena.get(p);
            bytes[pk.flow as usize] += pk.size as u64;
        }
        let diff = bytes[0].abs_diff(bytes[1]);
        assert!(diff <= (QUANTUM + 1500) as u64, "{bytes:?}");
        assert!(bytes[0] > 200_000);
    }

    #[test]
    fn overflow_drops_half_of_the_fattest_flow_from_its_head() {
        // limit 10: flow 0 holds 8 × 1500 B, flow 1 holds 2; flow 1's next arrival makes 11.
        // The fattest is flow 0 (12 000 B): drop from its head until 6000 B are gone, i.e. 4
        // packets; the arrival stays.
        let mut h = Harness::new();
        let mut c = params();
        c.limit = 10;
        let mut q = FqCodel::new(c);
        distinct(&mut h, &mut q, 2);
        for _ in 0..8 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, T);
        }
        for _ in 0..2 {
            h.offer(&mut q, 1, 1500, Ecn::NotEct, T);
        }
        assert_eq!(h.offer(&mut q, 1, 1500, Ecn::NotEct, T), Verdict::Enqueued);
        assert_eq!(h.dropped.len(), 4);
        assert!(h
            .dropped
            .iter()
            .all(|(p, r)| { *r == Reason::Overflow && h.arena.get(*p).flow == 0 }));
        assert_eq!((q.len_packets(), q.len_bytes()), (7, 7 * 1500));
        // If the fattest flow is the arrival's own single packet, the arrival is the victim.
        let mut c = params();
        c.limit = 1;
        let mut q = FqCodel::new(c);
        h.dropped.clear();
        h.offer(&mut q, 0, 1500, Ecn::NotEct, T);
        assert_eq!(
            h.offer(&mut q, 1, 3000, Ecn::NotEct, T),
            Verdict::Dropped(Reason::Overflow)
        );
        assert!(h.dropped.is_empty());
        assert_eq!(q.len_packets(), 1);
        // The emptied queue is skipped by the scheduler.
        let p = q.dequeue(&mut h.ctx(T)).unwrap();
        assert_eq!(h.arena.get(p).flow, 0);
        assert!(q.dequeue(&mut h.ctx(T)).is_none());
    }

    #[test]
    fn codel_runs_per_flow_and_marks_ect_packets() {
        // Flow 0 with 100 ECT packets enqueued at 0, drained one per 10 ms: as for a single
        // CoDel queue its sojourn exceeds target from 10 ms on, so the first mark is at 110 ms.
        let mut h = Harness::new();
        let mut q = FqCodel::new(params());
        for _ in 0..100 {
            h.offer(&mut q, 0, 1500, Ecn::Ect0, T);
        }
        let mut first = None;
        for k in 1..=20 {
            let t = SimTime::from_millis(10 * k);
            q.dequeue(&mut h.ctx(t));
            if first.is_none() && !h.marked.is_empty() {
                first = Some(t);
            }
        }
        assert_eq!(first, Some(SimTime::from_millis(110)));
        assert!(h.dropped.is_empty());
    }
}
