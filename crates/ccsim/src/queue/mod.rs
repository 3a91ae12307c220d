//! Queue disciplines.
//!
//! A discipline decides, per arriving packet, whether to queue, mark (ECN CE) or drop it, and
//! which packet to send next. It sees packets only through the arena and knows nothing of
//! links: the link (`net/link.rs`) owns serialisation, statistics and loss models. Dispatch is
//! an enum, not a trait object, so the per-packet call is a direct `match`.

pub mod droptail;

use crate::packet::{PacketArena, PktId};
use crate::rng::Rng;
use crate::time::SimTime;

pub use droptail::DropTail;

/// Why a packet was dropped or marked. Overflow is the physical queue being full; AQMs add
/// `Early` (an unforced, probabilistic decision) and `Forced` (e.g. RED above max_th).
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
    /// Enqueued with its ECN codepoint set to CE.
    Marked(Reason),
    /// Not enqueued; the caller frees the packet.
    Dropped(Reason),
}

/// What a discipline may touch while deciding.
pub struct QueueCtx<'a> {
    pub now: SimTime,
    pub arena: &'a mut PacketArena,
    pub rng: &'a mut Rng,
    /// Packets the discipline dropped while dequeuing (AQMs that drop at the head).
    pub dropped: &'a mut Vec<(PktId, Reason)>,
}

/// The contract every discipline implements.
pub trait QueueDiscipline {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict;
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId>;
    /// Packets waiting (not counting one being transmitted).
    fn len_packets(&self) -> u32;
    fn len_bytes(&self) -> u64;
}

pub enum Queue {
    DropTail(DropTail),
}

impl QueueDiscipline for Queue {
    #[inline]
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        match self {
            Queue::DropTail(q) => q.enqueue(pkt, ctx),
        }
    }
    #[inline]
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        match self {
            Queue::DropTail(q) => q.dequeue(ctx),
        }
    }
    fn len_packets(&self) -> u32 {
        match self {
            Queue::DropTail(q) => q.len_packets(),
        }
    }
    fn len_bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.len_bytes(),
        }
    }
}
