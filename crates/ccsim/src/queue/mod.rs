//! Queue disciplines.
//!
//! A discipline decides, per arriving packet, whether to queue, mark (ECN CE) or drop it, and
//! which packet to send next. It sees packets only through the arena and knows nothing of
//! links: the link (`net/link.rs`) owns serialisation, statistics and loss models. Dispatch is
//! an enum, not a trait object, so the per-packet call is a direct `match`.
//!
//! One file per discipline: `droptail`, `red` (ns-2.35's RED), `codel` (RFC 8289), `pie`
//! (RFC 8033), `fq_codel` (RFC 8290, reusing CoDel's state machine), `fq_pie` (FQ-CoDel's flow
//! queues with PIE's controller in each, Linux `sch_fq_pie`), `cobalt` (CAKE's CoDel and BLUE in
//! one queue), `xcp` (the XCP router,
//! which rewrites the feedback of departing packets) and `acns` (the ACNS router, which writes
//! per-flow commands into arriving packets that ask for one). `ce_threshold` is Linux's
//! immediate CE marking above a sojourn time, which `codel` and `fq_codel` take. An AQM marks an
//! ECN-capable packet instead of dropping it only where its decision is a congestion signal
//! that ECN may carry (RFC 3168 §5); a packet that does not fit the physical queue is always
//! dropped.

mod ce_threshold;
mod param;
mod registry;
pub mod traced;

use crate::config::{ParamError, Profile};
use crate::packet::{Ecn, PacketArena, PktId};
use crate::rng::Rng;
use crate::time::{Rate, SimTime};

pub use traced::Traced;

// The registry: one line per discipline (its module, its type and its configuration's type).
// `registry.rs` turns the list into the `queue = { kind = ... }` table of scenarios
// (`QueueSpec`: its schema, parsing, `name()` and `build()`) and into the dispatched `Queue`.
// The name in scenarios is the module's; the schema describes each by its configuration's
// doc comment.
registry::disciplines! {
    droptail => DropTail(DropTailSpec), // first in, first out
    red => Red(RedSpec),                // RED as ns-2.35 implements it (Floyd & Jacobson 1993)
    codel => Codel(CodelSpec),          // RFC 8289
    pie => Pie(PieSpec),                // RFC 8033
    fq_codel => FqCodel(FqCodelSpec),   // RFC 8290, Linux `sch_fq_codel`
    fq_pie => FqPie(FqPieSpec),         // RFC 8033 per flow queue, Linux `sch_fq_pie`
    cobalt => Cobalt(CobaltSpec),       // CAKE's CoDel + BLUE (Linux `sch_cake`), one queue
    xcp => Xcp(XcpSpec),                // the XCP router (Katabi, Handley & Rohrs 2002)
    acns => Acns(AcnsQueueSpec),        // the ACNS router (Olšovský 2014)
    step => Step(StepSpec),             // DCTCP's step marking (RFC 8257 §3.1)
    dualpi2 => DualPi2(DualPi2Spec),    // L4S's coupled dual queue (RFC 9332)
}

/// What building a discipline from its configuration may read: the scenario's defaults
/// profile and the link direction it serves.
#[derive(Copy, Clone, Debug)]
pub struct QueueContext {
    pub profile: Profile,
    /// The direction's rate.
    pub rate: Rate,
    /// The direction's one-way propagation delay.
    pub delay: SimTime,
}

/// A discipline's configuration, as a scenario writes it (`queue = { kind = "name", ... }`):
/// the factory of the discipline. Parameters left out take their defaults here, from `ctx`.
pub trait QueueConfig {
    type Discipline;
    /// The discipline, or the field and message of an invalid parameter.
    fn build(&self, ctx: &QueueContext) -> Result<Self::Discipline, ParamError>;
}

/// Why a packet was dropped or marked, in ns-2's terms: `Overflow` is the physical queue being
/// full; `Early` is an unforced AQM decision (RED's random drop, PIE's random drop, CoDel's
/// control law); `Forced` is an AQM decision taken without randomisation because the average
/// is too high (RED above max_th, or above 2·max_th in gentle mode).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    Overflow,
    Early,
    Forced,
}

/// What happened to an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    /// Enqueued with its ECN codepoint set to CE (only ever returned for ECN-capable packets).
    Marked(Reason),
    /// Not enqueued; the caller frees the packet.
    Dropped(Reason),
}

/// What a discipline may touch while deciding.
pub struct QueueCtx<'a> {
    pub now: SimTime,
    pub arena: &'a mut PacketArena,
    pub rng: &'a mut Rng,
    /// Packets the discipline dropped other than the arriving one: at the head while dequeuing
    /// (CoDel), or to make room (FQ-CoDel's fat-flow drop). The link frees them.
    pub dropped: &'a mut Vec<(PktId, Reason)>,
    /// Marks set while dequeuing (CoDel marks at the head; enqueue-time marks are a `Verdict`).
    pub marked: &'a mut Vec<Reason>,
}

impl QueueCtx<'_> {
    /// Sets CE on `pkt` if it is ECN-capable and records the mark; returns false (and leaves the
    /// packet alone) for a Not-ECT packet, which the caller must then drop instead.
    pub fn mark(&mut self, pkt: PktId, why: Reason) -> bool {
        let p = self.arena.get_mut(pkt);
        if !p.ecn.capable() {
            return false;
        }
        p.ecn = Ecn::Ce;
        self.marked.push(why);
        true
    }

    /// Whether `pkt` is ECN-capable (ECT(0), ECT(1) or CE).
    pub fn ecn_capable(&self, pkt: PktId) -> bool {
        self.arena.get(pkt).ecn.capable()
    }
}

/// The contract every discipline implements.
pub trait QueueDiscipline {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict;
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId>;
    /// Packets waiting (not counting one being transmitted).
    fn len_packets(&self) -> u32;
    fn len_bytes(&self) -> u64;
    /// The discipline's own average queue, in packets, where it keeps one (RED's EWMA).
    fn avg_queue(&self) -> Option<f64> {
        None
    }
    /// The commands the discipline wrote into packets, where it is an ACNS router.
    fn acns_written(&self) -> acns::Written {
        acns::Written::default()
    }
    /// The packet the next dequeue will probably take, where the discipline knows it cheaply
    /// (a FIFO's head): a hint for prefetching, never a promise.
    fn upcoming(&self) -> Option<PktId> {
        None
    }
}

/// Scaffolding for the disciplines' unit tests: an arena, a random stream and the context.
#[cfg(test)]
pub(crate) mod harness {
    use super::*;
    use crate::packet::{Kind, Packet};

    pub struct Harness {
        pub arena: PacketArena,
        pub rng: Rng,
        pub dropped: Vec<(PktId, Reason)>,
        pub marked: Vec<Reason>,
    }

    impl Harness {
        pub fn new() -> Harness {
            Harness {
                arena: PacketArena::default(),
                rng: Rng::derive(1, "queue-test"),
                dropped: vec![],
                marked: vec![],
            }
        }
        /// A packet of flow `flow`, `size` bytes on the wire, with ECN codepoint `ecn`, stamped
        /// as enqueued at `now` (the link does this in a simulation).
        pub fn pkt(&mut self, flow: u32, size: u32, ecn: Ecn, now: SimTime) -> PktId {
            let mut p = Packet::new(flow, Kind::Udp, 0, 1, size, now);
            p.ecn = ecn;
            p.enqueued = now;
            self.arena.alloc(p)
        }
        pub fn ctx(&mut self, now: SimTime) -> QueueCtx<'_> {
            QueueCtx {
                now,
                arena: &mut self.arena,
                rng: &mut self.rng,
                dropped: &mut self.dropped,
                marked: &mut self.marked,
            }
        }
        /// Enqueues a new packet stamped `now`.
        pub fn offer<Q: QueueDiscipline>(
            &mut self,
            q: &mut Q,
            flow: u32,
            size: u32,
            ecn: Ecn,
            now: SimTime,
        ) -> Verdict {
            let p = self.pkt(flow, size, ecn, now);
            q.enqueue(p, &mut self.ctx(now))
        }
    }
}
