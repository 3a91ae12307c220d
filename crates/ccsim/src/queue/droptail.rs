//! DropTail: first in, first out; an arrival that does not fit is dropped.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::Bytes;
use crate::config::ParamError;
use crate::packet::PktId;

/// A FIFO bounded in packets or in bytes (waiting packets only; the one on the wire does not
/// count, so ns-2's `limit_ N`, which drops when `len + 1 ≥ N`, is `DropTail::packets(N - 1)`).
pub struct DropTail {
    fifo: VecDeque<PktId>,
    bytes: u64,
    limit_packets: u32,
    limit_bytes: u64,
}

impl DropTail {
    pub fn packets(limit: u32) -> Self {
        DropTail {
            fifo: VecDeque::new(),
            bytes: 0,
            limit_packets: limit,
            limit_bytes: u64::MAX,
        }
    }
    pub fn bytes(limit: u64) -> Self {
        DropTail {
            fifo: VecDeque::new(),
            bytes: 0,
            limit_packets: u32::MAX,
            limit_bytes: limit,
        }
    }

    /// Bounded in packets and in bytes at once (`u32::MAX` / `u64::MAX` for no bound).
    pub fn with_limits(packets: u32, bytes: u64) -> Self {
        DropTail {
            fifo: VecDeque::new(),
            bytes: 0,
            limit_packets: packets,
            limit_bytes: bytes,
        }
    }

    /// Whether a packet of `size` bytes fits behind `len` packets of `bytes` bytes.
    #[inline]
    pub fn admits(&self, len: u32, bytes: u64, size: u32) -> bool {
        len < self.limit_packets && bytes + size as u64 <= self.limit_bytes
    }

    /// The limits: packets and bytes waiting (`u32::MAX` / `u64::MAX` where unlimited).
    pub fn limits(&self) -> (u32, u64) {
        (self.limit_packets, self.limit_bytes)
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.admits(self.fifo.len() as u32, self.bytes, size) {
            return Verdict::Dropped(Reason::Overflow);
        }
        let size = size as u64;
        self.bytes += size;
        self.fifo.push_back(pkt);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        let p = self.fifo.pop_front()?;
        self.bytes -= ctx.arena.get(p).size as u64;
        Some(p)
    }

    fn len_packets(&self) -> u32 {
        self.fifo.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn upcoming(&self) -> Option<PktId> {
        self.fifo.front().copied()
    }
}

/// First-in first-out; an arrival that does not fit is dropped. Limits count packets waiting,
/// not the one being transmitted (ns-2's `limit_ N` corresponds to `limit = N - 1`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {
    /// Capacity in packets (give this or `limit_bytes`; default: the profile's limit).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Capacity in bytes.
    #[serde(default)]
    pub limit_bytes: Option<Bytes>,
}

impl QueueConfig for DropTailSpec {
    type Discipline = DropTail;

    fn build(&self, ctx: &QueueContext) -> Result<DropTail, ParamError> {
        match (self.limit, self.limit_bytes) {
            (Some(_), Some(_)) => Err((
                "limit_bytes",
                "give either limit (packets) or limit_bytes, not both".into(),
            )),
            (Some(0), None) => Err(("limit", "must be at least 1 packet".into())),
            (Some(n), None) => Ok(DropTail::packets(n)),
            (None, Some(b)) => Ok(DropTail::bytes(b.0)),
            (None, None) => Ok(DropTail::packets(ctx.profile.queue_limit())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;
    use crate::time::SimTime;

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut h = Harness::new();
        let ids: Vec<_> = (0..3)
            .map(|i| h.pkt(i, 100, Ecn::NotEct, SimTime::ZERO))
            .collect();
        let mut q = DropTail::packets(2);
        let mut c = h.ctx(SimTime::ZERO);
        assert_eq!(q.enqueue(ids[0], &mut c), Verdict::Enqueued);
        assert_eq!(q.enqueue(ids[1], &mut c), Verdict::Enqueued);
        assert_eq!(
            q.enqueue(ids[2], &mut c),
            Verdict::Dropped(Reason::Overflow)
        );
        assert_eq!(q.dequeue(&mut c), Some(ids[0]));
        assert_eq!((q.len_packets(), q.len_bytes()), (1, 100));
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut h = Harness::new();
        let big = h.pkt(0, 1500, Ecn::NotEct, SimTime::ZERO);
        let small = h.pkt(0, 40, Ecn::NotEct, SimTime::ZERO);
        let big2 = h.pkt(0, 1500, Ecn::NotEct, SimTime::ZERO);
        let mut q = DropTail::bytes(3000);
        let mut c = h.ctx(SimTime::ZERO);
        assert_eq!(q.enqueue(big, &mut c), Verdict::Enqueued);
        assert_eq!(q.enqueue(small, &mut c), Verdict::Enqueued);
        assert_eq!(q.enqueue(big2, &mut c), Verdict::Dropped(Reason::Overflow));
        assert_eq!(q.len_bytes(), 1540);
    }
}
