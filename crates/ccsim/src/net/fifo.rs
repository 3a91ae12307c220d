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
//! discipline's enqueue and dequeue. RED is a FIFO at the link rate too: its decision on
//! arrival is taken in front of a line without limits (`express_red.rs`).

use super::inbound::Inbound;
use super::link::{LinkStats, Transit};
use super::loss::WireLoss;
use crate::packet::PktId;
use crate::queue::DropTail;
use crate::time::SimTime;

/// The index of absolute position `pos` in a ring of `len` slots, a power of two.
#[inline(always)]
fn slot(pos: u64, len: usize) -> usize {
    pos as usize & len.wrapping_sub(1)
}

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
    /// wire loses it (it waits in the wire's `lost` list until sent) or it was handed on to
    /// the next link, which owns it from then on (cut-through); either way the slot only keeps
    /// the transmitter's timetable.
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
/// is `slots[position mod len]` (the ring's length is a power of two). Every slot whose packet
/// has not left the transmitter is on the line: the head only passes a slot once its packet is
/// sent.
///
/// `repr(C)`: what an offer touches, the direction's counters included, comes first (three
/// cache lines where `LinkDir` places it), the inbound list, which only fed directions use,
/// last. With thousands of flows a direction's state has left the cache by its next packet,
/// and the compiler's own order spread an offer over six lines (docs/performance.md). The
/// slots are a boxed slice and the limits and counters packed so that the whole is 192 bytes.
#[repr(C)]
pub struct FifoLine {
    /// First: its 128-bit sums are aligned to 16 bytes, so that nothing is padded.
    accepted: Accepted,
    head: u64,
    started: u64,
    tail: u64,
    slots: Box<[Slot]>,
    limit_bytes: u64,
    waiting_bytes: u64,
    busy_until: SimTime,
    /// Slots on the line that `arrives`.
    arriving: u64,
    /// Queueing time of the packet that started last.
    pub last_sojourn: SimTime,
    limit_packets: u32,
    /// The longest the queue has been, in packets (with `counts`, here to share the eight
    /// bytes with the limit).
    max_len_pkts: u32,
    counts: Counts,
    /// Packets on their way here from the links that feed this one (cut-through), with the
    /// time each reaches the near node. They join the line when it is next touched, offered
    /// at their own times (`net/link.rs`).
    pub inbound: Inbound,
}

/// The counters an offer updates besides `max_len_pkts`; the rest of what the direction
/// reports follows from the accepted sums and the line (`stats_at`): the arrivals are the
/// packets accepted (`tail`), dropped and refused.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    /// Arrivals the discipline in front of the line refused (RED's drops).
    refused: u64,
    drops_overflow: u64,
    max_len_bytes: u64,
}

impl FifoLine {
    pub fn new(limits: &DropTail) -> FifoLine {
        let (limit_packets, limit_bytes) = limits.limits();
        FifoLine {
            limit_packets,
            limit_bytes,
            slots: Box::default(),
            head: 0,
            started: 0,
            tail: 0,
            waiting_bytes: 0,
            arriving: 0,
            busy_until: SimTime::ZERO,
            accepted: Accepted::default(),
            last_sojourn: SimTime::ZERO,
            max_len_pkts: 0,
            counts: Counts::default(),
            inbound: Inbound::default(),
        }
    }

    /// A line with no limits of its own, for a discipline that decides on each arrival
    /// before the line is offered it (RED: `express_red.rs`).
    pub fn unlimited() -> FifoLine {
        FifoLine::new(&DropTail::with_limits(u32::MAX, u64::MAX))
    }

    /// Counts an arrival that the discipline in front of the line refused.
    pub fn refuse(&mut self) {
        self.counts.refused += 1;
    }

    /// The limits (packets, bytes) of the DropTail queue it stands for.
    pub fn limits(&self) -> (u32, u64) {
        (self.limit_packets, self.limit_bytes)
    }

    #[inline]
    fn at(&self, pos: u64) -> &Slot {
        &self.slots[slot(pos, self.slots.len())]
    }

    #[inline]
    fn at_mut(&mut self, pos: u64) -> &mut Slot {
        let i = slot(pos, self.slots.len());
        &mut self.slots[i]
    }

    pub fn len_packets(&self) -> u32 {
        (self.tail - self.started) as u32
    }

    pub fn len_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Packets queued, on the transmitter, propagating or on their way in that will arrive
    /// here (not those the wire loses, which `WireLoss` holds, nor those passed on, which the
    /// next link counts).
    pub fn packets_held(&self) -> u64 {
        self.arriving + self.inbound.len() as u64
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

    /// Moves the started frontier up to `now`. Slots of sent packets that will not arrive here
    /// (lost, passed on) leave the head lazily: when the ring is full (`offer`) or an arrival
    /// passes them.
    #[inline(always)]
    pub fn advance(&mut self, now: SimTime) {
        while self.started < self.tail && self.at(self.started).start <= now {
            let s = *self.at(self.started);
            self.waiting_bytes -= s.size as u64;
            self.last_sojourn = s.start - s.enqueued;
            self.started += 1;
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
        for pos in self.head..self.tail {
            slots[slot(pos, cap)] = *self.at(pos);
        }
        self.slots = slots.into_boxed_slice();
    }

    /// Offers a packet that takes `tx` to serialise and `delay` to propagate, and counts it;
    /// if it fits, the wire's loss is drawn for the time it will leave the transmitter
    /// (`wire`: none for a wire that loses nothing), and a lost packet waits in the wire's
    /// list until then. A packet that will arrive is `pass`ed on (its slot only keeps the
    /// timetable) or left to arrive here. The caller frees a packet that did not fit. Call
    /// after `advance(now)`. A packet that finds the transmitter idle starts at once.
    #[inline]
    pub fn offer(
        &mut self,
        t: Transit,
        tx: SimTime,
        delay: SimTime,
        now: SimTime,
        pass: bool,
        wire: Option<&mut WireLoss>,
    ) -> Offered {
        let size = t.size;
        if self.len_packets() >= self.limit_packets
            || self.waiting_bytes + size as u64 > self.limit_bytes
        {
            self.counts.drops_overflow += 1;
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
        // packet at once; otherwise it waits, which the waiting-time integrals count.
        let idle = start == now;
        let a = &mut self.accepted;
        a.bytes += size as u64;
        a.busy += tx;
        if !idle {
            self.waiting_bytes += size as u64;
            let wait = (start - now).as_nanos() as u128;
            a.wait_pkts += wait;
            a.wait_bytes += wait * size as u128;
        }
        let lost = wire.is_some_and(|w| {
            let lost = w.lose(done);
            if lost {
                w.lost.push_back((done, t.pkt));
            }
            lost
        });
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
        // As on the general path, the queue length seen includes the arriving packet, even
        // when it started at once (then the queue holds nothing else).
        let (len, bytes) = if idle {
            debug_assert_eq!(self.waiting_bytes, 0, "an idle line has nothing waiting");
            self.started = self.tail;
            self.last_sojourn = SimTime::ZERO;
            (1, size as u64)
        } else {
            ((self.tail - self.started) as u32, self.waiting_bytes)
        };
        self.max_len_pkts = self.max_len_pkts.max(len);
        let c = &mut self.counts;
        c.max_len_bytes = c.max_len_bytes.max(bytes);
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

    /// Packets on the line still to arrive at the far node by the line's arrival event.
    #[inline]
    pub fn arriving(&self) -> u64 {
        self.arriving
    }

    /// Takes the last packet accepted off the line's arrivals, as if it had arrived (a
    /// delivering direction hands it to its endpoint at once, `net/link.rs`): its slot keeps
    /// only the timetable. It must be the only one still to arrive.
    #[inline]
    pub fn deliver_last(&mut self) {
        debug_assert!(self.arriving == 1, "another packet is still to arrive");
        let pos = self.tail - 1;
        let s = self.at_mut(pos);
        debug_assert!(s.arrives, "the last packet does not arrive here");
        s.arrives = false;
        self.arriving -= 1;
    }

    /// When the packet on the transmitter at `now` started, if one is. Call after
    /// `advance(now)`.
    pub fn on_wire_since(&self, now: SimTime) -> Option<SimTime> {
        (self.started > self.head)
            .then(|| self.at(self.started - 1))
            .filter(|s| s.done > now)
            .map(|s| s.start)
    }

    /// The direction's counters as of `now` (all but the wire's losses, which `WireLoss`
    /// counts): departures, bytes, busy time and waiting time are the accepted sums less the
    /// shares of packets not yet sent, the last ones on the line.
    pub fn stats_at(&self, now: SimTime) -> LinkStats {
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
        let (a, c) = (&self.accepted, &self.counts);
        LinkStats {
            arrivals: self.tail + c.drops_overflow + c.refused,
            drops_overflow: c.drops_overflow,
            max_len_bytes: c.max_len_bytes,
            max_len_pkts: self.max_len_pkts,
            departures: self.tail - n,
            bytes_departed: a.bytes - pending.bytes,
            busy: a.busy - pending.busy,
            len_integral_pkts: a.wait_pkts - pending.wait_pkts,
            len_integral_bytes: a.wait_bytes - pending.wait_bytes,
            ..LinkStats::default()
        }
    }

    /// How far an express line's fields that every offer reads reach (all but `inbound`), for
    /// `LinkDir`'s layout test.
    #[cfg(test)]
    pub(crate) fn hot_bytes() -> usize {
        std::mem::offset_of!(FifoLine, inbound)
    }

    /// Prefetches the slot the next arrival reads and the one the next offer writes
    /// (`prefetch.rs`).
    #[inline(always)]
    pub fn prefetch_ends(&self) {
        if !self.slots.is_empty() {
            for pos in [self.head, self.tail] {
                crate::prefetch::lines(self.at(pos), std::mem::size_of::<Slot>());
            }
        }
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
    use crate::net::loss::LossModel;
    use crate::rng::Rng;

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
        let expect = [
            Offered::Arrives(ms(18)),
            Offered::Arrives(ms(26)),
            Offered::Arrives(ms(34)),
            Offered::Dropped,
        ];
        for (i, e) in expect.into_iter().enumerate() {
            f.advance(ms(0));
            let r = f.offer(tr(i as u32), ms(8), ms(10), ms(0), false, None);
            f.advance(ms(0));
            // The first starts at once; two wait; the fourth finds the queue (2) full.
            assert_eq!(r, e, "packet {i}");
        }
        assert_eq!((f.len_packets(), f.len_bytes()), (2, 2000));
        assert_eq!(f.next_arrival(ms(10)), Some((ms(18), PktId(0))));
        // At 20 ms: the first has arrived (18), the second is on the wire (8–16 → sent), the
        // third started at 16.
        f.advance(ms(20));
        let stats = f.stats_at(ms(20));
        assert_eq!(f.arrive(ms(20), ms(10)).map(|t| t.pkt), Some(PktId(0)));
        assert_eq!(f.arrive(ms(20), ms(10)), None);
        assert_eq!((f.len_packets(), stats.departures), (0, 2));
        // Four offered, one dropped; the queue held two waiting packets at most, and the
        // first, which started at once, counts as one.
        assert_eq!((stats.arrivals, stats.drops_overflow), (4, 1));
        assert_eq!((stats.max_len_pkts, stats.max_len_bytes), (2, 2000));
        assert_eq!(f.last_sojourn, ms(16));
        // Waiting: 8 ms for the second, 16 ms for the third.
        assert_eq!(stats.len_integral_pkts, ms(24).as_nanos() as u128);
        assert_eq!(f.on_wire_since(ms(20)), Some(ms(16)));
        assert_eq!(f.packets_held(), 2);
    }

    #[test]
    fn passed_and_lost_slots_keep_the_timetable_but_need_no_arrival() {
        // Packet 1 of three is lost (listed), packet 0 is passed on: only packet 2 arrives
        // here, at 8 ms × 3 + 10 ms; the lost one leaves the transmitter at 16 ms.
        let mut f = FifoLine::new(&DropTail::packets(10));
        let loss = LossModel::List {
            packets: vec![1],
            next: 0,
            seen: 0,
        };
        let mut wire = WireLoss::of(loss, Rng::derive(1, "t")).unwrap();
        let mut offer =
            |f: &mut FifoLine, i, pass| f.offer(tr(i), ms(8), ms(10), ms(0), pass, Some(&mut wire));
        assert_eq!(offer(&mut f, 0, true), Offered::Arrives(ms(18)));
        assert_eq!(offer(&mut f, 1, false), Offered::Lost);
        assert_eq!(offer(&mut f, 2, false), Offered::Arrives(ms(34)));
        // The passed packet belongs to the next link; the lost one waits on the wire's list
        // until sent.
        assert_eq!((f.packets_held(), wire.lost.len()), (1, 1));
        assert_eq!(f.next_arrival(ms(10)), Some((ms(34), PktId(2))));
        // Read at 20 ms, the last packet (on the wire 16–24 ms) has not departed yet.
        f.advance(ms(20));
        let stats = f.stats_at(ms(20));
        assert_eq!((stats.departures, stats.busy), (2, ms(16)));
        // Nothing arrives at 18 or 26 ms; the passed and lost slots leave the head on the way.
        assert_eq!(f.arrive(ms(26), ms(10)), None);
        f.advance(ms(34));
        assert_eq!(f.arrive(ms(34), ms(10)).map(|t| t.pkt), Some(PktId(2)));
        assert_eq!((f.packets_held(), f.next_arrival(ms(10))), (0, None));
        let stats = f.stats_at(ms(34));
        assert_eq!((stats.departures, stats.bytes_departed), (3, 3000));
    }
}
