//! The express path of a DropTail link direction: queue, transmitter and delay line as one
//! FIFO of packets with their timetable.
//!
//! A DropTail queue serves packets in arrival order at the link rate, so a packet's whole
//! journey is known when it is accepted: it starts when the transmitter frees up
//! (`max(now, busy_until)`), is on the wire for its serialisation time, and arrives one
//! propagation delay later. The link then needs no dequeue at all: one frontier walks the line
//! as time passes — *started* (the packet left the queue for the transmitter), which is what
//! the queue length and the drop decision need — and the head of the line is the next arrival.
//!
//! Everything else a link reports is a sum over packets whose share is known on acceptance
//! (departures, bytes, busy time, waiting time for the queue-length integral: Little's law,
//! ∫ queue dt = Σ waiting times). The line adds each packet's share then, and a reading at
//! `now` takes back the shares of the packets not yet sent, which are the last few on the line
//! (`stats_at`). Readings are rare (samples, the end of a run); acceptances are not.
//!
//! Whether the wire loses a packet is drawn when it is accepted, for the time it will leave
//! the transmitter: the loss model sees the same packets in the same order with the same
//! times as the general path's draw at departure, and knowing the packet's fate early is what
//! lets a link hand it on before it arrives (cut-through, `net/link.rs`). The loss is counted,
//! and the packet freed, when it leaves the transmitter.
//!
//! Results are identical to the general path (`net/link.rs`, checked by
//! `tests/express_path.rs`); a hop costs a handful of integer operations instead of a queue
//! discipline's enqueue and dequeue.

use super::inbound::Inbound;
use super::link::{LinkStats, Transit};
use super::loss::LossModel;
use crate::packet::PktId;
use crate::queue::DropTail;
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

/// What an offer came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// The queue was full.
    Dropped,
    /// Queued; the wire will lose it.
    Lost,
    /// Queued; it reaches the far node at this time.
    Arrives(SimTime),
}

/// A packet on the line and its timetable.
#[derive(Clone, Copy, Debug)]
struct Slot {
    pkt: PktId,
    size: u32,
    dst: u32,
    /// Whether the far node gets the packet from this line's arrival event. Otherwise the
    /// wire loses it (it waits in `lost` until sent) or it was handed on to the next link,
    /// which owns it from then on (cut-through); either way the slot only keeps the
    /// transmitter's timetable.
    arrives: bool,
    enqueued: SimTime,
    start: SimTime,
    done: SimTime,
}

/// Sums over every packet accepted so far, as if all had been sent (see the module notes).
#[derive(Clone, Copy, Debug, Default)]
struct Accepted {
    bytes: u64,
    busy: SimTime,
    /// Σ waiting time, packet·ns and byte·ns.
    wait_pkts: u128,
    wait_bytes: u128,
}

/// The line is a ring of slots addressed by absolute positions: `head ≤ started ≤ tail`
/// (positions before `started` have started transmission; `tail` is the number of packets
/// ever accepted), so that moving the frontier or taking the head is one increment, and a slot
/// is `slots[position & mask]`. Every slot whose packet has not left the transmitter is on the
/// line: the head only passes a slot once its packet is sent.
///
/// `repr(C)`, fields in the order an offer reads them: what an offer touches fits in three
/// cache lines, the ones only fed directions (`inbound`) and lossy wires (`lost`) use come
/// last. With thousands of flows a direction's state has left the cache by its next packet,
/// and the compiler's own order spread an offer over six lines (docs/performance.md). Aligned
/// to a line so that those three are three.
#[repr(C, align(64))]
pub struct FifoLine {
    head: u64,
    started: u64,
    tail: u64,
    mask: u64,
    slots: Vec<Slot>,
    limit_packets: u32,
    limit_bytes: u64,
    waiting_bytes: u64,
    busy_until: SimTime,
    /// Slots on the line that `arrives`.
    arriving: u64,
    accepted: Accepted,
    /// Queueing time of the packet that started last.
    pub last_sojourn: SimTime,
    /// Packets the wire will lose, with the time they leave the transmitter, in order.
    lost: VecDeque<(SimTime, PktId)>,
    /// Packets on their way here from the links that feed this one (cut-through), with the
    /// time each reaches the near node. They join the line when it is next touched, offered
    /// at their own times (`net/link.rs`).
    pub inbound: Inbound,
}

impl FifoLine {
    pub fn new(limits: &DropTail) -> FifoLine {
        let (limit_packets, limit_bytes) = limits.limits();
        FifoLine {
            limit_packets,
            limit_bytes,
            slots: Vec::new(),
            mask: 0,
            head: 0,
            started: 0,
            tail: 0,
            waiting_bytes: 0,
            arriving: 0,
            lost: VecDeque::new(),
            busy_until: SimTime::ZERO,
            accepted: Accepted::default(),
            last_sojourn: SimTime::ZERO,
            inbound: Inbound::default(),
        }
    }

    /// The limits (packets, bytes) of the DropTail queue it stands for.
    pub fn limits(&self) -> (u32, u64) {
        (self.limit_packets, self.limit_bytes)
    }

    #[inline]
    fn at(&self, pos: u64) -> &Slot {
        &self.slots[(pos & self.mask) as usize]
    }

    #[inline]
    fn at_mut(&mut self, pos: u64) -> &mut Slot {
        &mut self.slots[(pos & self.mask) as usize]
    }

    pub fn len_packets(&self) -> u32 {
        (self.tail - self.started) as u32
    }

    pub fn len_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Packets queued, on the transmitter, propagating or on their way in (not the lost ones
    /// once sent, already freed, nor those passed on, which the next link counts).
    pub fn packets_held(&self) -> u64 {
        self.arriving + self.lost.len() as u64 + self.inbound.len() as u64
    }

    /// When the transmitter frees up (the last accepted packet's departure).
    pub fn busy_until(&self) -> SimTime {
        self.busy_until
    }

    /// Whether a packet of `size` bytes offered at `at` is sure to fit, if nothing else is
    /// offered before it: the queue then holds the packets that have not started by `at`
    /// (found by bisection: starts grow along the line), and at most the bytes waiting now.
    pub fn fits_at(&self, at: SimTime, size: u32) -> bool {
        let bytes_fit =
            self.limit_bytes == u64::MAX || self.waiting_bytes + size as u64 <= self.limit_bytes;
        if !bytes_fit {
            return false;
        }
        // The queue only shrinks until `at`: if it has room now, it has room then.
        if self.tail - self.started < self.limit_packets as u64 {
            return true;
        }
        let (mut lo, mut hi) = (self.started, self.tail);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.at(mid).start <= at {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.tail - lo < self.limit_packets as u64
    }

    /// Moves the started frontier up to `now`; the packets the wire loses by `now` are counted
    /// and go to `drops`. Slots of sent packets that will not arrive here (lost, passed on)
    /// leave the head lazily: when the ring is full (`offer`) or an arrival passes them.
    #[inline(always)]
    pub fn advance(&mut self, now: SimTime, stats: &mut LinkStats, drops: &mut Vec<PktId>) {
        while self.started < self.tail && self.at(self.started).start <= now {
            let s = *self.at(self.started);
            self.waiting_bytes -= s.size as u64;
            self.last_sojourn = s.start - s.enqueued;
            self.started += 1;
        }
        if self.lost.front().is_some_and(|&(t, _)| t <= now) {
            self.count_losses(now, stats, drops);
        }
    }

    /// Moves the head past the slots of packets sent by `now` that will not arrive here.
    fn release(&mut self, now: SimTime) {
        while self.head < self.started {
            let s = self.at(self.head);
            if s.arrives || s.done > now {
                break;
            }
            self.head += 1;
        }
    }

    fn count_losses(&mut self, now: SimTime, stats: &mut LinkStats, drops: &mut Vec<PktId>) {
        while let Some(&(t, p)) = self.lost.front() {
            if t > now {
                break;
            }
            self.lost.pop_front();
            stats.drops_loss += 1;
            drops.push(p);
        }
    }

    /// Doubles the ring, keeping every slot at its position.
    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(2);
        let mut slots = Vec::with_capacity(cap);
        let fill = Slot {
            pkt: PktId(0),
            size: 0,
            dst: 0,
            arrives: false,
            enqueued: SimTime::ZERO,
            start: SimTime::ZERO,
            done: SimTime::ZERO,
        };
        slots.resize(cap, fill);
        let mask = cap as u64 - 1;
        for pos in self.head..self.tail {
            slots[(pos & mask) as usize] = *self.at(pos);
        }
        self.slots = slots;
        self.mask = mask;
    }

    /// Offers a packet that takes `tx` to serialise and `delay` to propagate; if it fits, the
    /// wire's loss is drawn for the time it will leave the transmitter (`wire`: the loss model
    /// and its random stream, none for a wire that loses nothing). A packet that will
    /// arrive is `pass`ed on (its slot only keeps the timetable) or left to arrive here. The
    /// caller counts and frees a packet that did not fit. Call after `advance(now)`. A packet
    /// that finds the transmitter idle starts at once.
    #[inline]
    pub fn offer(
        &mut self,
        t: Transit,
        tx: SimTime,
        delay: SimTime,
        now: SimTime,
        pass: bool,
        wire: Option<(&mut LossModel, &mut Rng)>,
    ) -> Offered {
        let size = t.size;
        if self.len_packets() >= self.limit_packets
            || self.waiting_bytes + size as u64 > self.limit_bytes
        {
            return Offered::Dropped;
        }
        if self.tail - self.head == self.slots.len() as u64 {
            self.release(now);
            if self.tail - self.head == self.slots.len() as u64 {
                self.grow();
            }
        }
        let start = now.max(self.busy_until);
        let done = start + tx;
        self.busy_until = done;
        // An idle transmitter (every earlier packet has started: `advance(now)`) takes the
        // packet at once; otherwise it waits.
        let idle = start == now;
        if !idle {
            self.waiting_bytes += size as u64;
        }
        let wait = (start - now).as_nanos() as u128;
        let a = &mut self.accepted;
        a.bytes += size as u64;
        a.busy += tx;
        a.wait_pkts += wait;
        a.wait_bytes += wait * size as u128;
        let lost = wire.is_some_and(|(loss, rng)| loss.lose(done, rng));
        if lost {
            self.lost.push_back((done, t.pkt));
        }
        let arrives = !lost && !pass;
        self.arriving += arrives as u64;
        let pos = self.tail;
        *self.at_mut(pos) = Slot {
            pkt: t.pkt,
            size,
            dst: t.dst,
            arrives,
            enqueued: now,
            start,
            done,
        };
        self.tail += 1;
        if idle {
            self.started = self.tail;
            self.last_sojourn = SimTime::ZERO;
        }
        if lost {
            Offered::Lost
        } else {
            Offered::Arrives(done + delay)
        }
    }

    /// When the first packet still to arrive here gets there (`delay` after it leaves the
    /// transmitter), and which it is; none is scheduled for packets that will not (lost,
    /// passed on).
    #[inline]
    pub fn next_arrival(&self, delay: SimTime) -> Option<(SimTime, PktId)> {
        if self.arriving == 0 {
            return None;
        }
        let mut pos = self.head;
        while !self.at(pos).arrives {
            pos += 1;
        }
        let s = self.at(pos);
        Some((s.done + delay, s.pkt))
    }

    /// Takes the packet due at the far node by `now`, if any (slots of sent packets that do
    /// not arrive here leave the line on the way). Call after `advance(now)`.
    #[inline]
    pub fn arrive(&mut self, now: SimTime, delay: SimTime) -> Option<Transit> {
        while self.head < self.tail {
            let s = *self.at(self.head);
            if s.arrives {
                if s.done + delay > now {
                    return None;
                }
                self.head += 1;
                self.arriving -= 1;
                return Some(Transit {
                    pkt: s.pkt,
                    size: s.size,
                    dst: s.dst,
                });
            }
            // Not sent yet: neither it nor anything behind it has arrived.
            if s.done > now {
                return None;
            }
            self.head += 1;
        }
        None
    }

    /// When the packet on the transmitter at `now` started, if one is. Call after
    /// `advance(now)`.
    pub fn on_wire_since(&self, now: SimTime) -> Option<SimTime> {
        (self.started > self.head)
            .then(|| self.at(self.started - 1))
            .filter(|s| s.done > now)
            .map(|s| s.start)
    }

    /// The link's counters of departures, bytes, busy time and waiting time as of `now`: the
    /// accepted sums less the shares of packets not yet sent, the last ones on the line. Call
    /// after `advance(now)`.
    pub fn stats_at(&self, now: SimTime, stats: &mut LinkStats) {
        let mut pending = Accepted::default();
        let mut n = 0;
        let mut pos = self.tail;
        while pos > self.head && self.at(pos - 1).done > now {
            pos -= 1;
            let s = self.at(pos);
            n += 1;
            pending.bytes += s.size as u64;
            pending.busy += s.done - s.start;
            if s.start > now {
                let wait = (s.start - s.enqueued).as_nanos() as u128;
                pending.wait_pkts += wait;
                pending.wait_bytes += wait * s.size as u128;
            }
        }
        let a = &self.accepted;
        stats.departures = self.tail - n;
        stats.bytes_departed = a.bytes - pending.bytes;
        stats.busy = a.busy - pending.busy;
        stats.len_integral_pkts = a.wait_pkts - pending.wait_pkts;
        stats.len_integral_bytes = a.wait_bytes - pending.wait_bytes;
    }

    /// How far an express line's fields that every offer reads reach (all but `inbound`), for
    /// `LinkDir`'s layout test.
    #[cfg(test)]
    pub(crate) fn hot_bytes() -> usize {
        std::mem::offset_of!(FifoLine, inbound)
    }

    /// Waiting time of the packets still queued at `now`, for the queue-length integrals.
    pub fn waiting_integrals(&self, now: SimTime) -> (u128, u128) {
        (self.started..self.tail)
            .map(|pos| self.at(pos))
            .filter(|s| s.enqueued < now)
            .fold((0, 0), |(p, b), s| {
                let w = (now - s.enqueued).as_nanos() as u128;
                (p + w, b + w * s.size as u128)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn tr(i: u32) -> Transit {
        Transit {
            pkt: PktId(i),
            size: 1000,
            dst: 1,
        }
    }

    #[test]
    fn timetable_frontiers_and_waiting_integral() {
        // Three 1000-byte packets at t = 0 on an 8 ms-per-packet link, 10 ms delay.
        let mut f = FifoLine::new(&DropTail::packets(2));
        let (mut stats, mut loss) = (LinkStats::default(), LossModel::None);
        let mut rng = Rng::derive(1, "t");
        let mut drops = vec![];
        let expect = [
            Offered::Arrives(ms(18)),
            Offered::Arrives(ms(26)),
            Offered::Arrives(ms(34)),
            Offered::Dropped,
        ];
        for (i, e) in expect.into_iter().enumerate() {
            f.advance(ms(0), &mut stats, &mut drops);
            let r = f.offer(
                tr(i as u32),
                ms(8),
                ms(10),
                ms(0),
                false,
                Some((&mut loss, &mut rng)),
            );
            f.advance(ms(0), &mut stats, &mut drops);
            // The first starts at once; two wait; the fourth finds the queue (2) full.
            assert_eq!(r, e, "packet {i}");
        }
        assert_eq!((f.len_packets(), f.len_bytes()), (2, 2000));
        assert_eq!(f.next_arrival(ms(10)), Some((ms(18), PktId(0))));
        // At 20 ms: the first has arrived (18), the second is on the wire (8–16 → sent), the
        // third started at 16.
        f.advance(ms(20), &mut stats, &mut drops);
        f.stats_at(ms(20), &mut stats);
        assert_eq!(f.arrive(ms(20), ms(10)).map(|t| t.pkt), Some(PktId(0)));
        assert_eq!(f.arrive(ms(20), ms(10)), None);
        assert_eq!((f.len_packets(), stats.departures), (0, 2));
        assert_eq!(f.last_sojourn, ms(16));
        // Waiting: 8 ms for the second, 16 ms for the third.
        assert_eq!(stats.len_integral_pkts, ms(24).as_nanos() as u128);
        assert_eq!(f.on_wire_since(ms(20)), Some(ms(16)));
        assert_eq!(f.packets_held(), 2);
    }

    #[test]
    fn passed_and_lost_slots_keep_the_timetable_but_need_no_arrival() {
        // Packet 1 of three is lost (listed), packet 0 is passed on: only packet 2 arrives
        // here, at 8 ms × 3 + 10 ms; the lost one is counted when it leaves at 16 ms.
        let mut f = FifoLine::new(&DropTail::packets(10));
        let mut loss = LossModel::List {
            packets: vec![1],
            next: 0,
            seen: 0,
        };
        let (mut stats, mut rng, mut drops) = (LinkStats::default(), Rng::derive(1, "t"), vec![]);
        let mut offer = |f: &mut FifoLine, i, pass| {
            f.offer(
                tr(i),
                ms(8),
                ms(10),
                ms(0),
                pass,
                Some((&mut loss, &mut rng)),
            )
        };
        assert_eq!(offer(&mut f, 0, true), Offered::Arrives(ms(18)));
        assert_eq!(offer(&mut f, 1, false), Offered::Lost);
        assert_eq!(offer(&mut f, 2, false), Offered::Arrives(ms(34)));
        // The passed packet belongs to the next link; the lost one is still held until sent.
        assert_eq!(f.packets_held(), 2);
        assert_eq!(f.next_arrival(ms(10)), Some((ms(34), PktId(2))));
        f.advance(ms(16), &mut stats, &mut drops);
        assert_eq!((drops.clone(), stats.drops_loss), (vec![PktId(1)], 1));
        assert_eq!(f.packets_held(), 1);
        // Read at 20 ms, the last packet (on the wire 16–24 ms) has not departed yet.
        f.advance(ms(20), &mut stats, &mut drops);
        f.stats_at(ms(20), &mut stats);
        assert_eq!((stats.departures, stats.busy), (2, ms(16)));
        // Nothing arrives at 18 or 26 ms; the passed and lost slots leave the head on the way.
        assert_eq!(f.arrive(ms(26), ms(10)), None);
        f.advance(ms(34), &mut stats, &mut drops);
        assert_eq!(f.arrive(ms(34), ms(10)).map(|t| t.pkt), Some(PktId(2)));
        assert_eq!((f.packets_held(), f.next_arrival(ms(10))), (0, None));
        f.stats_at(ms(34), &mut stats);
        assert_eq!((stats.departures, stats.bytes_departed), (3, 3000));
    }
}
