//! The TCP receiver: cumulative ACKs, delayed ACKs, SACK blocks, an out-of-order buffer.
//!
//! Delayed ACKs follow RFC 5681 §4.2 / RFC 1122 §4.2.3.2: an ACK for at least every second
//! full-sized in-order segment and within the timeout of the first unacknowledged one;
//! out-of-order segments, duplicates and segments that fill a hole are acknowledged at once.
//! SACK blocks follow RFC 2018 §4: the first block holds the most recently received segment,
//! the others repeat the most recently reported blocks.

use std::collections::VecDeque;

use super::ecn::{EcnEcho, EcnFeedback};
use super::quickack::QuickAck;
use super::timer::{LazyTimer, TimerName, Timers};
use super::Io;
use crate::packet::{flags, unwrap_seq, wire_seq, Kind, Packet, XcpHeader, MAX_SACK};
use crate::time::{OptTime, SimTime};
use crate::util::packed_option::Opt;

pub struct Receiver {
    pub flow: u32,
    /// The receiver's node and the sender's node.
    node: u32,
    peer: u32,
    header_bytes: u32,
    delayed_ack: bool,
    delack_timeout: SimTime,
    sack_blocks: u8,
    sack: bool,
    dscp: u8,
    /// Next byte expected.
    pub rcv_nxt: u64,
    /// What arrived out of order and XCP's echo, made at first use: a connection that never
    /// needs either (most, on a clean path) keeps 8 bytes for them instead of 88.
    rare: Option<Box<Rare>>,
    unacked: u32,
    ts_recent: SimTime,
    delack_timer: LazyTimer,
    /// Flow size in bytes, if finite.
    size: Opt<u64>,
    completed_at: OptTime,
    /// Payload bytes that arrived, duplicates included.
    pub bytes_arrived: u64,
    pub packets_arrived: u64,
    pub ecn: EcnEcho,
    /// Linux's quick-ACK mode and delaying by bytes (`quickack.rs`), when on.
    quickack: Option<Box<QuickAck>>,
}

/// Out-of-order data and the SACK blocks that report it, and the XCP echo.
#[derive(Default)]
struct Rare {
    /// Out-of-order data above `rcv_nxt`: sorted, disjoint, non-adjacent `[start, end)`
    /// blocks. A deque, because filling the first hole takes blocks off the front: a loss burst
    /// in a window of thousands of segments leaves hundreds of blocks, too many to shift, or to
    /// scan for each arriving segment (docs/performance.md, 0.4.8).
    ooo: VecDeque<(u64, u64)>,
    /// Blocks in the order they were last reported (RFC 2018 §4).
    recent: Vec<(u64, u64)>,
    /// XCP headers of the segments the next ACK acknowledges, summed (`echo_xcp`).
    xcp: Option<XcpHeader>,
}

pub struct ReceiverConfig {
    pub header_bytes: u32,
    pub delayed_ack: bool,
    pub delack_timeout: SimTime,
    pub sack: bool,
    pub sack_blocks: u8,
    pub dscp: u8,
    pub size: Option<u64>,
    pub ecn: EcnEcho,
    /// Linux's receiver ACK policy (`quickack.rs`) instead of RFC 1122's.
    pub quickack: bool,
}

impl Receiver {
    pub fn new(flow: u32, node: u32, peer: u32, c: ReceiverConfig) -> Receiver {
        Receiver {
            flow,
            node,
            peer,
            header_bytes: c.header_bytes,
            delayed_ack: c.delayed_ack,
            delack_timeout: c.delack_timeout,
            sack_blocks: c.sack_blocks.min(MAX_SACK as u8),
            sack: c.sack,
            dscp: c.dscp,
            rcv_nxt: 0,
            rare: None,
            unacked: 0,
            ts_recent: SimTime::ZERO,
            delack_timer: LazyTimer::default(),
            size: Opt::of(c.size),
            completed_at: OptTime::NONE,
            bytes_arrived: 0,
            packets_arrived: 0,
            ecn: c.ecn,
            quickack: c.quickack.then(Box::default),
        }
    }

    /// Bytes the flow transfers, if finite.
    pub fn size(&self) -> Option<u64> {
        self.size.get()
    }

    /// Whether it reports out-of-order data in SACK blocks.
    pub fn sack(&self) -> bool {
        self.sack
    }

    /// When the whole flow had arrived, for a finite one that has.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at.get()
    }

    pub fn on_data(&mut self, pkt: &Packet, io: &mut Io) {
        if pkt.flags & flags::SYN != 0 {
            // Answer every SYN (a retransmitted SYN means our SYN-ACK was lost).
            self.ts_recent = pkt.ts_val();
            let ecn = self.ecn.on_syn(pkt.flags);
            self.send_ack(io, flags::SYN | flags::ACK | ecn);
            if let Some(q) = self.quickack.as_deref_mut() {
                q.on_synack(io.now);
            }
            return;
        }
        let echo_starts = self.ecn.on_data(pkt);
        if echo_starts && self.ecn.feedback == EcnFeedback::PerPacket {
            self.ce_state_changes(io);
        }
        if let Some(x) = &pkt.xcp {
            self.echo_xcp(x);
        }
        let s = unwrap_seq(pkt.seq, self.rcv_nxt);
        let e = s + pkt.payload as u64;
        self.bytes_arrived += pkt.payload as u64;
        self.packets_arrived += 1;
        let immediate = if s == self.rcv_nxt {
            if self.unacked == 0 {
                // RFC 7323 §4.3: echo the TSval of the earliest unacknowledged segment.
                self.ts_recent = pkt.ts_val();
            }
            let had_hole = self.rare.as_ref().is_some_and(|h| !h.ooo.is_empty());
            self.rcv_nxt = e;
            self.absorb_ooo();
            had_hole
        } else if s > self.rcv_nxt {
            self.insert_ooo(s, e);
            true
        } else {
            // Old or duplicate data: acknowledge at once so the sender learns rcv_nxt.
            if e > self.rcv_nxt {
                self.rcv_nxt = e;
                self.absorb_ooo();
            }
            true
        };
        if let Some(size) = self.size.get() {
            if self.rcv_nxt >= size && self.completed_at.get().is_none() {
                self.completed_at = OptTime::some(io.now);
            }
        }
        let quick = match self.quickack.as_deref_mut() {
            Some(q) => Some(q.on_data(io.now, pkt.payload as u32, echo_starts)),
            None => None,
        };
        if !self.delayed_ack || immediate || echo_starts || quick == Some(true) {
            self.send_ack(io, flags::ACK);
            return;
        }
        self.unacked += 1;
        // RFC 1122: every second segment; under Linux's policy `quick` has decided.
        if quick.is_none() && self.unacked >= 2 {
            self.send_ack(io, flags::ACK);
        } else if self.delack_timer.deadline().is_none() {
            self.delack_timer
                .set_deadline(Some(io.now + self.delack_timeout));
        }
    }

    /// DCTCP's receiver (RFC 8257 §3.2, Linux `dctcp_ece_ack_update`): the CE state of the
    /// arriving packet differs from the previous one's. A delayed ACK still pending is sent
    /// first, with the old state, for the data before this packet; the packet itself is then
    /// acknowledged at once with the new state.
    #[cold]
    fn ce_state_changes(&mut self, io: &mut Io) {
        if self.unacked > 0 {
            self.send_ack(io, flags::ACK);
        }
        self.ecn.take_change();
    }

    /// The delayed-ACK timer fired.
    fn on_delack_timer(&mut self, io: &mut Io) {
        if self.unacked > 0 {
            self.send_ack(io, flags::ACK);
        }
        self.delack_timer.set_deadline(None);
    }

    fn absorb_ooo(&mut self) {
        let Some(h) = self.rare.as_deref_mut() else {
            return;
        };
        while let Some(&(a, b)) = h.ooo.front() {
            if a > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(b);
            h.ooo.pop_front();
        }
        let nxt = self.rcv_nxt;
        h.recent.retain(|&(_, b)| b > nxt);
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        let h = self.rare.get_or_insert_default();
        // Merge [s, e) with every block it touches or overlaps: blocks lo..hi, since the
        // blocks are sorted and no two touch (a merge cannot reach a block beyond them).
        let lo = h.ooo.partition_point(|&(_, y)| y < s);
        let hi = h.ooo.partition_point(|&(x, _)| x <= e);
        let (a, b) = if lo < hi {
            let merged = (h.ooo[lo].0.min(s), h.ooo[hi - 1].1.max(e));
            h.ooo[lo] = merged;
            // Mostly the segment extends one block, and even an empty drain is not free.
            if hi > lo + 1 {
                h.ooo.drain(lo + 1..hi);
            }
            merged
        } else {
            h.ooo.insert(lo, (s, e));
            (s, e)
        };
        // The block holding the newest segment goes first; blocks it swallowed go away.
        h.recent.retain(|&(x, y)| y < a || x > b);
        h.recent.insert(0, (a, b));
        h.recent.truncate(2 * MAX_SACK);
    }

    /// Keeps a data segment's XCP header for the ACK (Katabi et al. 2002 §3.2: the receiver
    /// copies it). A delayed ACK that acknowledges two segments carries the sum of their
    /// feedback, as each was that segment's share of the routers' decision (dropping one would
    /// halve the control gain); the window and RTT are the later segment's, the congestion bits
    /// either's.
    #[inline(never)]
    fn echo_xcp(&mut self, x: &XcpHeader) {
        let r = self.rare.get_or_insert_default();
        match r.xcp.as_mut() {
            None => r.xcp = Some(*x),
            Some(h) => {
                *h = XcpHeader {
                    feedback_bytes: h.feedback_bytes + x.feedback_bytes,
                    congested: h.congested || x.congested,
                    queue_high: h.queue_high || x.queue_high,
                    ..*x
                }
            }
        }
    }

    fn send_ack(&mut self, io: &mut Io, fl: u8) {
        let p = io.send(Packet::new(
            self.flow,
            Kind::TcpAck,
            self.node,
            self.peer,
            self.header_bytes,
            io.now,
        ));
        p.dscp = self.dscp;
        p.ack = wire_seq(self.rcv_nxt);
        p.flags = fl;
        if fl & flags::SYN == 0 {
            p.flags |= self.ecn.take_ack_flags();
        }
        p.ts_ecr = self.ts_recent;
        if let (true, Some(h)) = (self.sack, self.rare.as_deref()) {
            let n = h.recent.len().min(self.sack_blocks as usize);
            for (w, &(a, b)) in p.sack.iter_mut().zip(&h.recent[..n]) {
                *w = (wire_seq(a), wire_seq(b));
            }
            p.n_sack = n as u8;
        }
        self.unacked = 0;
        self.delack_timer.set_deadline(None);
        if let Some(q) = self.quickack.as_deref_mut() {
            q.on_ack_sent();
        }
        if let Some(r) = self.rare.as_deref_mut() {
            if r.xcp.is_some() {
                Self::attach_xcp(r, io);
            }
        }
    }

    /// Moves the summed XCP echo onto the ACK just sent; out of line and after the send, as
    /// the sender's `stamp_xcp`.
    #[inline(never)]
    fn attach_xcp(r: &mut Rare, io: &mut Io) {
        if let (Some(p), Some(x)) = (io.out.last_mut(), r.xcp.take()) {
            p.xcp = Some(Box::new(x));
        }
    }
}

impl Timers for Receiver {
    #[inline]
    fn timer(&self, name: TimerName) -> &LazyTimer {
        match name {
            TimerName::DelAck => &self.delack_timer,
            TimerName::Rto | TimerName::Pace => unreachable!("the sender owns {name:?}"),
        }
    }
    #[inline]
    fn timer_mut(&mut self, name: TimerName) -> &mut LazyTimer {
        match name {
            TimerName::DelAck => &mut self.delack_timer,
            TimerName::Rto | TimerName::Pace => unreachable!("the sender owns {name:?}"),
        }
    }
    fn on_timer(&mut self, name: TimerName, io: &mut Io) {
        match name {
            TimerName::DelAck => self.on_delack_timer(io),
            TimerName::Rto | TimerName::Pace => unreachable!("the sender owns {name:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A receiver that ACKs every segment at once and reports up to `MAX_SACK` blocks.
    fn receiver() -> Receiver {
        let c = ReceiverConfig {
            header_bytes: 52,
            delayed_ack: false,
            delack_timeout: SimTime::from_millis(40),
            sack: true,
            sack_blocks: MAX_SACK as u8,
            dscp: 0,
            size: None,
            ecn: EcnEcho::default(),
            quickack: false,
        };
        Receiver::new(0, 1, 0, c)
    }

    /// Delivers segment `k` (bytes `k·MSS .. (k+1)·MSS`); returns the ACK's cumulative ACK and
    /// SACK blocks, in segments.
    fn segment(r: &mut Receiver, k: u64) -> (u64, Vec<(u64, u64)>) {
        let mut p = Packet::new(0, Kind::TcpData, 0, 1, 1052, SimTime::ZERO);
        p.seq = wire_seq(k * MSS);
        p.payload = MSS as u16;
        let out = crate::tcp::sent_by(|io| r.on_data(&p, io));
        let [ack] = &out[..] else {
            panic!("one ACK per segment, got {}", out.len())
        };
        let blocks = ack.sack_blocks().iter();
        let seg = |w: u32| unwrap_seq(w, r.rcv_nxt) / MSS;
        let blocks = blocks.map(|&(a, b)| (seg(a), seg(b))).collect();
        (seg(ack.ack), blocks)
    }

    /// Out-of-order segments form blocks that merge as holes between them fill; the first SACK
    /// block is the one holding the newest segment and the rest follow in the order they were
    /// last reported (RFC 2018 §4); filling the first hole absorbs the blocks it reaches.
    #[test]
    fn out_of_order_blocks_merge_and_are_reported_newest_first() {
        let mut r = receiver();
        assert_eq!(segment(&mut r, 0), (1, vec![]));
        // Segments 1, 4, 7 and 10 lost: blocks 2..4, 5..7, 8..10, 11..12.
        for k in [2, 3, 5, 6, 8, 9, 11] {
            segment(&mut r, k);
        }
        let h = r.rare.as_ref().expect("holes made");
        assert_eq!(
            h.ooo,
            [(2, 4), (5, 7), (8, 10), (11, 12)].map(|(a, b)| (a * MSS, b * MSS))
        );
        // Segment 7 bridges 5..7 and 8..10 into 5..10, which goes first; 11..12, 2..4 follow.
        assert_eq!(segment(&mut r, 7), (1, vec![(5, 10), (11, 12), (2, 4)]));
        // Segment 4 bridges 2..4 and 5..10: 2..10 first, then 11..12.
        assert_eq!(segment(&mut r, 4), (1, vec![(2, 10), (11, 12)]));
        // Segment 12 extends 11..12; segment 3, inside 2..10, changes no block but is
        // reported first.
        assert_eq!(segment(&mut r, 12), (1, vec![(11, 13), (2, 10)]));
        assert_eq!(segment(&mut r, 3), (1, vec![(2, 10), (11, 13)]));
        // Segment 1 fills the first hole: the cumulative ACK jumps over 2..10 to 10.
        assert_eq!(segment(&mut r, 1), (10, vec![(11, 13)]));
        // Segment 10 fills the last: nothing out of order remains.
        assert_eq!(segment(&mut r, 10), (13, vec![]));
        assert!(r.rare.as_ref().is_some_and(|h| h.ooo.is_empty()));
    }
}
