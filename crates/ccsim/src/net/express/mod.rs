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
//! A packet that finds the line empty and the transmitter idle, and will not arrive by the
//! line's event (handed on or over at once, or lost), takes no slot: nothing on the line waits
//! for it, and a reading needs only its departure and size (`bare_done`, `bare_size`).
//! Directions that never queue — an access link at ten times its flow's bottleneck rate, in
//! both directions — then never write their ring, which with thousands of flows would be a
//! cache miss per packet and hop (docs/performance-history.md, 0.6.3).
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
//! arrival is taken in front of a line without limits (`net/express/red.rs`).

pub(crate) mod red;

use super::inbound::Inbound;
use super::link::{LinkStats, Transit};
use super::loss::WireLoss;
use crate::packet::PktId;
use crate::queue::DropTail;
use crate::time::{Rate, SimTime};

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
    /// Queued; it reaches the far node at this time, where the line's arrival event takes it.
    Arrives(SimTime),
    /// Queued; it reaches the far node at this time, and the caller hands it on or over now
    /// (`Hand`).
    Handed(SimTime),
}

/// Who takes an offered packet at the far end of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hand {
    /// The line's arrival event.
    Arrive,
    /// The next link, to which the caller hands it on now (cut-through).
    On,
    /// The endpoint at the far node, to which the caller hands it over now, if it gets there
    /// by this time and no packet before it is still to arrive (`sim/handover.rs`); otherwise the
    /// line's arrival event.
    Over(SimTime),
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
pub struct ExpressLine {
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
    arriving: u32,
    /// The size of the last packet that took no slot.
    bare_size: u32,
    /// Queueing time of the packet that started last.
    pub last_sojourn: SimTime,
    limit_packets: u32,
    /// The longest the queue has been, in packets (with `counts`, here to share the eight
    /// bytes with the limit).
    max_len_pkts: u32,
    counts: Counts,
    /// When the last packet that took no slot leaves the transmitter. It went before every
    /// slot on the line (it found the line empty), so a reading that finds every slot still
    /// to be sent asks whether it is too.
    bare_done: SimTime,
    /// Packets on their way here from the links that feed this one (cut-through), with the
    /// time each reaches the near node. They join the line when it is next touched, offered
    /// at their own times (`net/link.rs`).
    pub inbound: Inbound,
}

/// The counters an offer updates besides `max_len_pkts`; the rest of what the direction
/// reports follows from the accepted sums and the line (`stats_at`): the arrivals are the
/// packets accepted (`tail`) and dropped (and those RED refused, which `ExpressRed` counts).
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    drops_overflow: u64,
    max_len_bytes: u64,
}

impl ExpressLine {
    pub fn new(limits: &DropTail) -> ExpressLine {
        let (limit_packets, limit_bytes) = limits.limits();
        ExpressLine {
            limit_packets,
            limit_bytes,
            slots: Box::default(),
            head: 0,
            started: 0,
            tail: 0,
            waiting_bytes: 0,
            arriving: 0,
            bare_size: 0,
            bare_done: SimTime::ZERO,
            busy_until: SimTime::ZERO,
            accepted: Accepted::default(),
            last_sojourn: SimTime::ZERO,
            max_len_pkts: 0,
            counts: Counts::default(),
            inbound: Inbound::default(),
        }
    }

    /// A line with no limits of its own, for a discipline that decides on each arrival
    /// before the line is offered it (RED: `net/express/red.rs`).
    pub fn unlimited() -> ExpressLine {
        ExpressLine::new(&DropTail::with_limits(u32::MAX, u64::MAX))
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
        self.arriving as u64 + self.inbound.len() as u64
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
    /// (lost, handed on or over) leave the head lazily: when the ring is full (`offer`), an
    /// arrival passes them, or an offer finds them all sent and none arriving (`offer`).
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
    /// list until then. A packet that will arrive is handed on or over (its slot, if any, only
    /// keeps the timetable) or left to arrive here, as `hand` says. The caller frees a packet
    /// that did not fit. Call after `advance(now)`. A packet that finds the transmitter idle
    /// starts at once.
    #[inline]
    pub fn offer(
        &mut self,
        t: Transit,
        tx: SimTime,
        delay: SimTime,
        now: SimTime,
        hand: Hand,
        wire: Option<&mut WireLoss>,
    ) -> Offered {
        let size = t.size;
        if self.len_packets() >= self.limit_packets
            || self.waiting_bytes + size as u64 > self.limit_bytes
        {
            self.counts.drops_overflow += 1;
            return Offered::Dropped;
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
        let arrival = done + delay;
        let arrives = !lost
            && match hand {
                Hand::Arrive => true,
                Hand::On => false,
                Hand::Over(by) => self.arriving > 0 || arrival > by,
            };
        let offered = if lost {
            Offered::Lost
        } else if arrives {
            Offered::Arrives(arrival)
        } else {
            Offered::Handed(arrival)
        };
        if idle && !arrives && self.arriving == 0 {
            self.take_bare(size, done);
            return offered;
        }
        if self.tail - self.head == self.slots.len() as u64 {
            self.release(now);
            if self.tail - self.head == self.slots.len() as u64 {
                self.grow();
            }
        }
        self.arriving += arrives as u32;
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
            self.note_idle_start(size);
        } else {
            let len = (self.tail - self.started) as u32;
            self.max_len_pkts = self.max_len_pkts.max(len);
            let c = &mut self.counts;
            c.max_len_bytes = c.max_len_bytes.max(self.waiting_bytes);
        }
        offered
    }

    /// `offer` of a packet of `size` bytes, taking `tx` to serialise and `delay` to propagate,
    /// that is handed on or over (as long as it reaches the far node by `by`), where it
    /// certainly takes no slot: the transmitter is idle (every packet on the line has started,
    /// so nothing waits and the queue has room for it if the limits allow one packet of its
    /// size) and nothing arrives here, and the wire loses nothing (the caller knows). Returns
    /// when it reaches the far node, or none where `offer` must decide. Needs no
    /// `advance(now)`: with every packet started, it would leave nothing waiting, and the
    /// sojourn it notes is this packet's, none.
    ///
    /// Handed-on and delivered packets at access links nearly all come this way, so it is
    /// inlined into the caller, which `offer` is not (docs/performance-history.md, 0.6.3).
    #[inline(always)]
    pub fn offer_bare(
        &mut self,
        size: u32,
        tx: SimTime,
        delay: SimTime,
        now: SimTime,
        by: SimTime,
    ) -> Option<SimTime> {
        let done = now + tx;
        let fits = self.limit_packets > 0 && size as u64 <= self.limit_bytes;
        if self.busy_until > now || self.arriving != 0 || !fits || done + delay > by {
            return None;
        }
        self.waiting_bytes = 0;
        self.busy_until = done;
        let a = &mut self.accepted;
        a.bytes += size as u64;
        a.busy += tx;
        self.take_bare(size, done);
        Some(done + delay)
    }

    /// Takes an accepted packet of `size` bytes, leaving the transmitter at `done`, that
    /// started at once and will not arrive here, where nothing on the line arrives either:
    /// every slot has been sent, and would leave the head on the next release.
    #[inline(always)]
    fn take_bare(&mut self, size: u32, done: SimTime) {
        self.tail += 1;
        self.head = self.tail;
        self.started = self.tail;
        self.bare_size = size;
        self.bare_done = done;
        self.note_idle_start(size);
    }

    /// Notes a packet of `size` bytes that started at once. As on the general path, the queue
    /// length seen includes the arriving packet, even then (the queue holds nothing else).
    #[inline(always)]
    fn note_idle_start(&mut self, size: u32) {
        debug_assert_eq!(self.waiting_bytes, 0, "an idle line has nothing waiting");
        self.last_sojourn = SimTime::ZERO;
        self.max_len_pkts = self.max_len_pkts.max(1);
        let c = &mut self.counts;
        c.max_len_bytes = c.max_len_bytes.max(size as u64);
    }

    /// The last packet that took no slot, as (size, departure), if a reading at `now` that
    /// found every slot still to be sent is to count it too.
    fn bare_unsent(&self, now: SimTime) -> Option<(u32, SimTime)> {
        // Before any such packet, a departure at time 0, which no reading finds unsent.
        (self.bare_done > now).then_some((self.bare_size, self.bare_done))
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

    /// When the packet on the transmitter at `now` started, if one is (`rate`: the link's,
    /// which timed it). Call after `advance(now)`.
    pub fn on_wire_since(&self, now: SimTime, rate: Rate) -> Option<SimTime> {
        if self.started > self.head {
            let s = self.at(self.started - 1);
            return (s.done > now).then_some(s.start);
        }
        self.bare_unsent(now)
            .map(|(size, done)| done - rate.tx_time(size))
    }

    /// The direction's counters as of `now` (all but the wire's losses, which `WireLoss`
    /// counts, and RED's refusals, which `ExpressRed` does): departures, bytes, busy time and
    /// waiting time are the accepted sums less the shares of packets not yet sent, the last ones
    /// on the line (`rate`: the link's, which timed them).
    pub fn stats_at(&self, now: SimTime, rate: Rate) -> LinkStats {
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
        if pos == self.head {
            if let Some((size, _)) = self.bare_unsent(now) {
                // It started as it came: it never waited.
                n += 1;
                pending.bytes += size as u64;
                pending.busy += rate.tx_time(size);
            }
        }
        let (a, c) = (&self.accepted, &self.counts);
        LinkStats {
            arrivals: self.tail + c.drops_overflow,
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
        std::mem::offset_of!(ExpressLine, inbound)
    }

    /// Prefetches the slot the next arrival reads and the one the next offer writes
    /// (`util/prefetch.rs`).
    #[inline(always)]
    pub fn prefetch_ends(&self) {
        if !self.slots.is_empty() {
            for pos in [self.head, self.tail] {
                crate::util::prefetch::lines(self.at(pos), std::mem::size_of::<Slot>());
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

    /// 1000-byte packets take 8 ms at this rate.
    const RATE: Rate = Rate(1_000_000);

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
        let mut f = ExpressLine::new(&DropTail::packets(2));
        let expect = [
            Offered::Arrives(ms(18)),
            Offered::Arrives(ms(26)),
            Offered::Arrives(ms(34)),
            Offered::Dropped,
        ];
        for (i, e) in expect.into_iter().enumerate() {
            f.advance(ms(0));
            let r = f.offer(tr(i as u32), ms(8), ms(10), ms(0), Hand::Arrive, None);
            f.advance(ms(0));
            // The first starts at once; two wait; the fourth finds the queue (2) full.
            assert_eq!(r, e, "packet {i}");
        }
        assert_eq!((f.len_packets(), f.len_bytes()), (2, 2000));
        assert_eq!(f.next_arrival(ms(10)), Some((ms(18), PktId(0))));
        // At 20 ms: the first has arrived (18), the second is on the wire (8–16 → sent), the
        // third started at 16.
        f.advance(ms(20));
        let stats = f.stats_at(ms(20), RATE);
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
        assert_eq!(f.on_wire_since(ms(20), RATE), Some(ms(16)));
        assert_eq!(f.packets_held(), 2);
    }

    #[test]
    fn passed_and_lost_packets_keep_the_timetable_but_need_no_arrival() {
        // Packet 1 of three is lost (listed), packet 0 is passed on: only packet 2 arrives
        // here, at 8 ms × 3 + 10 ms; the lost one leaves the transmitter at 16 ms. Packet 0
        // finds the line empty and takes no slot.
        let mut f = ExpressLine::new(&DropTail::packets(10));
        let loss = LossModel::List {
            packets: vec![1],
            next: 0,
            seen: 0,
        };
        let mut wire = WireLoss::of(loss, Rng::derive(1, "t")).unwrap();
        let mut offer = |f: &mut ExpressLine, i, hand| {
            f.offer(tr(i), ms(8), ms(10), ms(0), hand, Some(&mut wire))
        };
        assert_eq!(offer(&mut f, 0, Hand::On), Offered::Handed(ms(18)));
        assert_eq!(offer(&mut f, 1, Hand::Arrive), Offered::Lost);
        assert_eq!(offer(&mut f, 2, Hand::Arrive), Offered::Arrives(ms(34)));
        // The passed packet belongs to the next link; the lost one waits on the wire's list
        // until sent.
        assert_eq!((f.packets_held(), wire.lost.len()), (1, 1));
        assert_eq!(f.next_arrival(ms(10)), Some((ms(34), PktId(2))));
        // Read at 20 ms, the last packet (on the wire 16–24 ms) has not departed yet.
        f.advance(ms(20));
        let stats = f.stats_at(ms(20), RATE);
        assert_eq!((stats.departures, stats.busy), (2, ms(16)));
        // Nothing arrives at 18 or 26 ms; the passed and lost slots leave the head on the way.
        assert_eq!(f.arrive(ms(26), ms(10)), None);
        f.advance(ms(34));
        assert_eq!(f.arrive(ms(34), ms(10)).map(|t| t.pkt), Some(PktId(2)));
        assert_eq!((f.packets_held(), f.next_arrival(ms(10))), (0, None));
        let stats = f.stats_at(ms(34), RATE);
        assert_eq!((stats.departures, stats.bytes_departed), (3, 3000));
    }

    #[test]
    fn packets_handed_on_or_over_from_an_empty_idle_line_take_no_slot() {
        let mut f = ExpressLine::new(&DropTail::packets(10));
        let offer = |f: &mut ExpressLine, i, at, hand| {
            f.advance(ms(at));
            f.offer(tr(i), ms(8), ms(10), ms(at), hand, None)
        };
        // 0 ms: handed on from an empty idle line: no slot (no ring yet); on the wire 0–8 ms.
        assert_eq!(offer(&mut f, 0, 0, Hand::On), Offered::Handed(ms(18)));
        assert!(f.slots.is_empty());
        // 2 ms: waits behind it, 8–16 ms on the wire.
        assert_eq!(offer(&mut f, 1, 2, Hand::Arrive), Offered::Arrives(ms(26)));
        // Read at 4 ms: neither has departed; packet 0 is on the wire since 0 ms and packet 1
        // has waited 2 ms so far (the integral counts waits once sent: none yet).
        f.advance(ms(4));
        let s = f.stats_at(ms(4), RATE);
        assert_eq!(
            (s.arrivals, s.departures, s.busy, s.bytes_departed),
            (2, 0, ms(0), 0)
        );
        assert_eq!(s.len_integral_pkts, 0);
        assert_eq!(f.on_wire_since(ms(4), RATE), Some(ms(0)));
        // Read at 10 ms: packet 0 has departed (8 ms busy), packet 1 is on the wire since 8 ms
        // after waiting 6 ms.
        f.advance(ms(10));
        let s = f.stats_at(ms(10), RATE);
        assert_eq!((s.departures, s.busy, s.bytes_departed), (1, ms(8), 1000));
        assert_eq!(s.len_integral_pkts, ms(6).as_nanos() as u128);
        assert_eq!(f.on_wire_since(ms(10), RATE), Some(ms(8)));
        // 20 ms: idle, but packet 1 is still to arrive here (26 ms): a slot.
        assert_eq!(offer(&mut f, 2, 20, Hand::On), Offered::Handed(ms(38)));
        assert_eq!(f.arrive(ms(30), ms(10)).map(|t| t.pkt), Some(PktId(1)));
        // 30 ms: handed over (reaches the endpoint at 48 ms, by 100 ms): no slot again.
        assert_eq!(
            offer(&mut f, 3, 30, Hand::Over(ms(100))),
            Offered::Handed(ms(48))
        );
        // 40 ms: it would reach the endpoint at 58 ms, after 50 ms: it arrives by the event.
        assert_eq!(
            offer(&mut f, 4, 40, Hand::Over(ms(50))),
            Offered::Arrives(ms(58))
        );
        // 41 ms: in time, but packet 4 is still to arrive first.
        assert_eq!(
            offer(&mut f, 5, 41, Hand::Over(ms(100))),
            Offered::Arrives(ms(66))
        );
        assert_eq!(f.packets_held(), 2);
        // At 100 ms all six have departed: 48 ms busy; packets 1 and 5 waited 6 and 7 ms.
        f.advance(ms(100));
        let s = f.stats_at(ms(100), RATE);
        assert_eq!((s.arrivals, s.departures, s.busy), (6, 6, ms(48)));
        assert_eq!((s.max_len_pkts, s.max_len_bytes), (1, 1000));
        assert_eq!(s.len_integral_pkts, ms(13).as_nanos() as u128);
        assert_eq!(f.on_wire_since(ms(100), RATE), None);
    }

    #[test]
    fn the_slotless_shortcut_takes_what_offer_would_and_declines_the_rest() {
        // Two lines offered the same packets: one through `offer_bare` where it accepts, the
        // other through `offer` alone. Times in ms; 8 ms on the wire, 10 ms of delay.
        let (mut fast, mut full) = (
            ExpressLine::new(&DropTail::packets(4)),
            ExpressLine::new(&DropTail::packets(4)),
        );
        let by = |b: Option<u64>| b.map_or(SimTime::MAX, ms);
        let hand = |b: Option<u64>| b.map_or(Hand::On, |b| Hand::Over(ms(b)));
        // (packet, time, deliver by) and whether the shortcut takes it: 0 from an idle line;
        // 1 behind it (the transmitter is busy); 2 at 16 ms, as packet 1 leaves (the line's
        // frontier has not passed packet 1: the shortcut needs no `advance`); 3 behind 2; 4 and
        // 5 from an idle line again; 6 too late for its deadline (it arrives at 78 ms, here); 7
        // behind 6, which is still to arrive.
        let cases = [
            (0, 0, None, true),
            (1, 4, None, false),
            (2, 16, Some(40), true),
            (3, 20, Some(100), false),
            (4, 40, Some(100), true),
            (5, 50, Some(100), true),
            (6, 60, Some(70), false),
            (7, 70, None, false),
        ];
        for (i, at, b, taken) in cases {
            let now = ms(at);
            let bare = fast.offer_bare(1000, ms(8), ms(10), now, by(b));
            assert_eq!(bare.is_some(), taken, "packet {i}");
            if bare.is_none() {
                fast.advance(now);
                fast.offer(tr(i), ms(8), ms(10), now, hand(b), None);
            }
            full.advance(now);
            let r = full.offer(tr(i), ms(8), ms(10), now, hand(b), None);
            if let Some(at) = bare {
                assert_eq!(r, Offered::Handed(at), "packet {i}");
            }
        }
        for t in [5, 13, 20, 30, 45, 55, 75, 100] {
            fast.advance(ms(t));
            full.advance(ms(t));
            let (a, b) = (fast.stats_at(ms(t), RATE), full.stats_at(ms(t), RATE));
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "at {t} ms");
            let wire = |f: &ExpressLine| f.on_wire_since(ms(t), RATE);
            assert_eq!(wire(&fast), wire(&full), "at {t} ms");
        }
        assert_eq!(fast.packets_held(), full.packets_held());
    }
}
