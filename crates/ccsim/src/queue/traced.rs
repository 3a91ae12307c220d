//! A discipline whose packets are traced (`trace.packets`, `net/packet_log.rs`): it wraps the
//! direction's own discipline and records what happens to each packet as the link asks the
//! discipline — `+` and, if refused, `d` on arrival; `d` for the packets the discipline drops
//! besides (CoDel at dequeue, FQ-CoDel to make room); `-` as a packet leaves for the
//! transmitter, with its `r` at the far node, one serialisation and one propagation delay
//! later. The link tells it of the rare packet the wire loses as it leaves (`note_loss`),
//! whose `r` becomes a `d`.
//!
//! Wrapping keeps the link's own paths as they are: an untraced direction tests nothing for
//! tracing (the dispatch on the discipline was there already and only gains an arm, and
//! express directions pay nothing: docs/performance-history.md, 0.6.0).

use super::{acns, Queue, QueueCtx, QueueDiscipline, Verdict};
use crate::net::packet_log::{DropCause, PacketEvent, PacketLog};
use crate::packet::{PacketArena, PktId};
use crate::time::{Rate, SimTime};

pub struct Traced {
    /// Behind a pointer to the trait, not the `Queue` enum: a call from `Queue`'s dispatch back
    /// into it would make that dispatch recursive, and the compiler then stops inlining it into
    /// the link's hot path, for untraced runs too.
    inner: Box<dyn QueueDiscipline + Send + Sync>,
    /// The link's rate and delay, for each packet's arrival at the far node.
    rate: Rate,
    delay: SimTime,
    pub log: PacketLog,
}

impl Traced {
    pub fn new(inner: Queue, rate: Rate, delay: SimTime) -> Traced {
        Traced {
            inner: Box::new(inner),
            rate,
            delay,
            log: PacketLog::default(),
        }
    }

    /// Records the packets the discipline dropped during one call (from `from` on).
    fn log_side_drops(&mut self, ctx: &QueueCtx, from: usize) {
        for &(p, r) in &ctx.dropped[from..] {
            let event = PacketEvent::Drop(r.into());
            self.log.record(ctx.now, event, p, ctx.arena);
        }
    }

    /// The wire lost `pkt` as it left the transmitter at `at`: its arrival, recorded as it
    /// left the queue, is a drop. It is one of the last packets recorded (those that left the
    /// queue after it are still on their way to the transmitter's end, at most one).
    pub fn note_loss(&mut self, at: SimTime, pkt: PktId, arena: &PacketArena) {
        let uid = arena.uid(pkt);
        let found = self
            .log
            .records
            .iter_mut()
            .rev()
            .find(|r| r.event == PacketEvent::Receive && r.uid == uid);
        let r = found.expect("a lost packet was recorded as it left the queue");
        r.at = at;
        r.event = PacketEvent::Drop(DropCause::Loss);
    }
}

// Out of line (and cold): `Queue`'s dispatch, inlined into the link's hot path, then carries
// a call here rather than this body.
impl QueueDiscipline for Traced {
    #[cold]
    #[inline(never)]
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        self.log
            .record(ctx.now, PacketEvent::Enqueue, pkt, ctx.arena);
        let from = ctx.dropped.len();
        let v = self.inner.enqueue(pkt, ctx);
        self.log_side_drops(ctx, from);
        if let Verdict::Dropped(r) = v {
            let event = PacketEvent::Drop(r.into());
            self.log.record(ctx.now, event, pkt, ctx.arena);
        }
        v
    }

    #[cold]
    #[inline(never)]
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        let from = ctx.dropped.len();
        let pkt = self.inner.dequeue(ctx);
        self.log_side_drops(ctx, from);
        let pkt = pkt?;
        self.log
            .record(ctx.now, PacketEvent::Dequeue, pkt, ctx.arena);
        let reach = ctx.now + self.rate.tx_time(ctx.arena.get(pkt).size) + self.delay;
        self.log.record(reach, PacketEvent::Receive, pkt, ctx.arena);
        Some(pkt)
    }

    fn len_packets(&self) -> u32 {
        self.inner.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }
    fn avg_queue(&self) -> Option<f64> {
        self.inner.avg_queue()
    }
    fn acns_written(&self) -> acns::Written {
        self.inner.acns_written()
    }
    fn upcoming(&self) -> Option<PktId> {
        self.inner.upcoming()
    }
}
