//! One direction of a point-to-point link: a queue discipline, a transmitter that serialises
//! one packet at a time at the link rate, a loss model applied as packets leave the
//! transmitter, and a propagation delay line.
//!
//! Transmit completions need no events: the link replays those due by `now` whenever it is
//! touched (`advance(now)`). The only event a direction needs is the arrival of its next
//! packet at the far node: one pending event per direction, for the earliest packet that can
//! arrive. Two paths implement this: the general one for any queue discipline
//! (`net/general_path.rs`), and the express one for DropTail and RED (`net/express/mod.rs`, with RED's decision
//! in front of the line, `net/express/red.rs`), which knows each packet's timetable on arrival and
//! never dequeues. Without per-packet transmit events a hop costs one
//! event instead of two (docs/performance.md).
//!
//! **Cut-through.** Where an express direction `d` carries only packets that came in over
//! express directions (no endpoint at its near node sends into it), nothing but those feeders
//! can change `d`'s queue. So each feeder hands a packet for `d` on as soon as it knows when
//! the packet reaches the node: with that time, into `d`'s `inbound` list (`inbound.rs`:
//! merged in the order forwarding events would have run), which `d` offers to its line, each
//! at its own time, whenever it is next touched (an arrival event, or a reading of its state).
//! The node between needs no event. `d` may itself feed further directions (a bottleneck fed
//! by access links feeds the receivers' access links): it then hands its packets on as it
//! offers them, and keeps an event at the latest time that is still before any of them could
//! reach the next node, when it takes in everything that has reached it by then — one event
//! for many packets. The arrival event of a fed direction is armed for the first packet of
//! its line or of its inbound list, whichever comes first; a packet pushed to the front of
//! the list can move it earlier (the event armed before is then stale, and skipped). The
//! simulation finds feeders from the flows' paths (`sim/routes.rs`, `set_cut_through`).
//!
//! A fed direction with a single feeder and a plain DropTail line (no wire loss, no RED) — a
//! receiver's access link after the bottleneck, a sender's on the way back, a one-flow
//! bottleneck, a relay in a chain — skips the inbound list: its packets come in one feeder's
//! order, so each can go onto the line at once, for the time it will reach the node
//! (`Fed::Direct`, `hand_in`), and a relay hands it on to the next direction there and then.
//! Such a relay needs no event of its own.
//!
//! A direction on the general path (CoDel, PIE, FQ-CoDel) is fed in the same way: it takes its
//! inbound packets each at its own time, after replaying its transmitter up to then, and arms
//! its event for the first inbound packet's arrival plus the delay at the latest. It feeds
//! too, though it learns when a packet leaves only by replaying the transmitter: it hands a
//! packet on as it leaves, and arms its event a nanosecond before the packet on the
//! transmitter could reach the next node (`net/general_path.rs`, `HandOn`).

use super::express::red::ExpressRed;
use super::express::{ExpressLine, Hand};
use super::general_path::General;
use super::loss::{LossModel, WireLoss};
use super::packet_log::PacketLog;
use crate::packet::{PacketArena, PktId};
use crate::queue::{DropTail, Queue, QueueDiscipline, Red, Traced};
use crate::rng::Rng;
use crate::time::{OptTime, Rate, SimTime};
use crate::trace::Recorder;

/// Counters of one link direction, as reported (`LinkDir::stats`). The general path keeps
/// them as they are; the express path keeps what it needs to derive them (`net/express/mod.rs`).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrivals: u64,
    pub drops_overflow: u64,
    pub max_len_bytes: u64,
    pub max_len_pkts: u32,
    pub departures: u64,
    pub bytes_departed: u64,
    /// AQM drops: `drops_early + drops_forced`.
    pub drops_aqm: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
    pub drops_loss: u64,
    /// ECN CE marks: `marks_early + marks_forced`.
    pub marks: u64,
    pub marks_early: u64,
    pub marks_forced: u64,
    pub busy: SimTime,
    /// ∫ queue length dt, packet·ns and byte·ns.
    pub(super) len_integral_pkts: u128,
    pub(super) len_integral_bytes: u128,
}

/// Where the link reports queue changes as they happen (the on-change queue series).
pub struct QueueWatch<'a> {
    pub rec: &'a mut Recorder,
    pub id: u32,
}

/// A packet between links, with the two header fields forwarding needs. Routers pass these
/// along instead of reading the packet: by the time a packet reaches the next hop its memory
/// has usually left the cache, and with many packets in flight that miss was the largest single
/// cost of a hop (docs/performance.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Transit {
    pub pkt: PktId,
    /// Bytes on the wire.
    pub size: u32,
    /// Destination node.
    pub dst: u32,
}

impl Transit {
    /// Reads the fields from the packet itself.
    pub fn of(pkt: PktId, arena: &PacketArena) -> Transit {
        let p = arena.get(pkt);
        Transit {
            pkt,
            size: p.size,
            dst: p.dst,
        }
    }
}

/// What the general path shares with the direction: the wire's loss, timing, and the one
/// pending arrival event.
pub struct Wire<'a> {
    pub loss: Option<&'a mut WireLoss>,
    pub delay: SimTime,
    rate: Rate,
    tx_time_cache: &'a mut (u32, SimTime),
    /// Time of the pending arrival event, if one is scheduled (set through `arm`).
    arrival_event: &'a mut OptTime,
}

impl Wire<'_> {
    /// Arms the direction's arrival event at `next()` unless one is pending; returns the time
    /// to schedule, if any (one pending event per direction).
    #[inline]
    pub fn arm(&mut self, next: impl FnOnce(&mut Self) -> Option<SimTime>) -> Option<SimTime> {
        if self.arrival_event.get().is_some() {
            return None;
        }
        let next = next(self);
        *self.arrival_event = OptTime::of(next);
        next
    }

    /// Serialisation time of `size` bytes (cached: most packets share a few sizes).
    #[inline]
    pub fn tx_time(&mut self, size: u32) -> SimTime {
        tx_time(self.tx_time_cache, self.rate, size)
    }
}

// Every direction holds one path and most are express: boxing the express line would add a
// pointer chase to every hop to save memory on the few general ones.
#[allow(clippy::large_enum_variant)]
enum Path {
    /// Boxed: only directions with an AQM (or traced queue changes) use it, and it is large.
    General(Box<General>),
    Express(ExpressLine),
}

/// `repr(C)` and aligned to a cache line, in the order an offer reads it: the first line holds what
/// every offer and event reads (timing, the pending event, the cut-through roles, and the wire's
/// loss and RED's gate, boxed since most directions have neither), the express line with the
/// counters an offer updates the next three (`ExpressLine`). Left to its own order the compiler spread
/// an offer over about nine lines, which with thousands of flows were mostly misses. Four lines in
/// all (256 bytes) keep 10,000 flows' links in 10.2 MB (docs/performance.md).
#[repr(C, align(64))]
pub struct LinkDir {
    /// Time of the pending arrival event, if one is scheduled.
    arrival_event: OptTime,
    pub rate: Rate,
    pub delay: SimTime,
    tx_time_cache: (u32, SimTime),
    pub from: u32,
    pub to: u32,
    /// Whether other directions hand this one all its packets (cut-through), and how it takes
    /// them in.
    pub fed: Fed,
    /// Whether this direction hands packets on to directions that are fed, deciding per packet
    /// as it offers it (express path; a general one hands on as packets leave, `net/general_path.rs`).
    pub feeds: bool,
    /// Whether an express offer consults `rare`: the wire can lose a packet, or RED decides
    /// (`gated`). One byte, because every offer tests it: one byte measured cheaper than testing
    /// the pointer, or a byte for each of the two (docs/performance-history.md).
    rare_on_offer: bool,
    /// Whether RED decides on each arrival before the express line takes it (`rare`).
    gated: bool,
    /// The packet the pending arrival event is for, on the express path: a hint for
    /// prefetching (`arriving_hint`), which may name a packet already freed.
    arrival_pkt: PktId,
    /// The wire's loss and RED's gate, where the direction has either.
    rare: Option<Box<Rare>>,
    path: Path,
}

/// What few directions have, boxed apart so that the others keep their four cache lines: a
/// wire that loses packets, and RED deciding in front of an express line (`gated`).
#[derive(Default)]
struct Rare {
    loss: Option<WireLoss>,
    red: Option<ExpressRed>,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        from: u32,
        to: u32,
        rate: Rate,
        delay: SimTime,
        queue: Queue,
        loss: LossModel,
        seed: u64,
        label: &str,
    ) -> LinkDir {
        let aqm_rng = Rng::derive(seed, &format!("queue:{label}"));
        let loss = WireLoss::of(loss, Rng::derive(seed, &format!("loss:{label}")));
        LinkDir {
            from,
            to,
            rate,
            delay,
            fed: Fed::No,
            feeds: false,
            rare_on_offer: loss.is_some(),
            gated: false,
            arrival_event: OptTime::NONE,
            arrival_pkt: PktId(0),
            tx_time_cache: (0, SimTime::ZERO),
            path: Path::General(Box::new(General::new(queue, aqm_rng))),
            rare: loss.map(|loss| {
                Box::new(Rare {
                    loss: Some(loss),
                    red: None,
                })
            }),
        }
    }

    /// The path and what it shares with the direction, borrowed apart.
    #[inline]
    fn split(&mut self) -> (&mut Path, Wire<'_>) {
        (
            &mut self.path,
            Wire {
                loss: self.rare.as_deref_mut().and_then(|r| r.loss.as_mut()),
                delay: self.delay,
                rate: self.rate,
                tx_time_cache: &mut self.tx_time_cache,
                arrival_event: &mut self.arrival_event,
            },
        )
    }

    /// Switches a DropTail or RED direction to the express path (RED deciding in front of
    /// the line, `net/express/red.rs`); call before any packet is offered. Other disciplines keep
    /// the general path.
    pub fn use_express(&mut self) {
        debug_assert_eq!(
            self.packets_held(),
            0,
            "switching paths with packets on the link"
        );
        let Path::General(g) = &self.path else { return };
        match &g.queue {
            Queue::DropTail(q) => self.path = Path::Express(ExpressLine::new(q)),
            Queue::Red(_) => {
                let line = Path::Express(ExpressLine::unlimited());
                let Path::General(g) = std::mem::replace(&mut self.path, line) else {
                    unreachable!("matched above");
                };
                let (Queue::Red(red), rng) = g.into_parts() else {
                    unreachable!("matched above");
                };
                let red = ExpressRed::new(red.into_gate(), rng);
                self.rare.get_or_insert_default().red = Some(red);
                self.gated = true;
                self.rare_on_offer = true;
            }
            _ => {}
        }
    }

    /// Traces the direction's packets (`packet_log.rs`) by wrapping its discipline, which
    /// keeps it on the general path; call before `use_express`.
    pub fn log_packets(&mut self) {
        if let Path::General(g) = &mut self.path {
            if matches!(g.queue, Queue::Traced(_)) {
                return; // named twice, or by "*" too
            }
            let inner = std::mem::replace(
                &mut g.queue,
                Queue::DropTail(Box::new(DropTail::packets(1))),
            );
            g.queue = Queue::Traced(Box::new(Traced::new(inner, self.rate, self.delay)));
        }
    }

    /// The direction's packet trace, where it keeps one.
    pub fn packet_log(&self) -> Option<&PacketLog> {
        match &self.path {
            Path::General(g) => match &g.queue {
                Queue::Traced(t) => Some(&t.log),
                _ => None,
            },
            Path::Express(_) => None,
        }
    }

    /// Whether the direction is on the express path (cut-through needs it).
    pub fn is_express(&self) -> bool {
        matches!(self.path, Path::Express(_))
    }

    /// Switches an express direction back to the general path (for tests comparing the two);
    /// it then neither feeds nor is fed.
    pub fn use_general(&mut self) {
        debug_assert_eq!(
            self.packets_held(),
            0,
            "switching paths with packets on the link"
        );
        self.clear_cut_through();
        let Path::Express(f) = &self.path else { return };
        let red = self.rare.as_deref_mut().and_then(|r| r.red.take());
        let (q, rng) = match red {
            Some(red) => (Queue::Red(Box::new(Red::with_gate(red.gate))), red.rng),
            None => {
                let (packets, bytes) = f.limits();
                let q = Queue::DropTail(Box::new(DropTail::with_limits(packets, bytes)));
                // DropTail draws no random numbers: any stream does.
                (q, Rng::derive(0, "droptail"))
            }
        };
        self.gated = false;
        self.rare_on_offer = self.loss().is_some();
        self.path = Path::General(Box::new(General::new(q, rng)));
    }

    /// RED's gate in front of the express line, if there is one.
    fn red(&self) -> Option<&ExpressRed> {
        self.rare.as_deref()?.red.as_ref()
    }

    /// The wire's loss, if it has one.
    fn loss(&self) -> Option<&WireLoss> {
        self.rare.as_deref()?.loss.as_ref()
    }

    /// The queue's limit in packets, where it has one that is known up front (DropTail and
    /// RED on the express path); zero otherwise.
    pub fn queue_limit_packets(&self) -> u32 {
        match (&self.path, self.red()) {
            (Path::Express(_), Some(red)) => red.gate.limit(),
            (Path::Express(f), None) => f.limits().0,
            (Path::General(_), _) => 0,
        }
    }

    pub fn len_packets(&self) -> u32 {
        match &self.path {
            Path::Express(f) => f.len_packets(),
            Path::General(g) => g.queue.len_packets(),
        }
    }

    pub fn len_bytes(&self) -> u64 {
        match &self.path {
            Path::Express(f) => f.len_bytes(),
            Path::General(g) => g.queue.len_bytes(),
        }
    }

    /// The discipline's average queue in packets, if it keeps one (RED).
    pub fn avg_queue(&self) -> Option<f64> {
        match &self.path {
            Path::Express(_) => self.red().map(|r| r.gate.avg_packets()),
            Path::General(g) => g.queue.avg_queue(),
        }
    }

    /// The packet on a general-path direction's transmitter (a prefetching hint).
    pub fn transmitting(&self) -> Option<crate::packet::PktId> {
        match &self.path {
            Path::General(g) => g.transmitting(),
            Path::Express(_) => None,
        }
    }

    /// Turns a general-path direction's prefetching of its next packet on or off.
    pub fn set_prefetch(&mut self, on: bool) {
        if let Path::General(g) = &mut self.path {
            g.prefetch = on;
        }
    }

    /// Commands an ACNS router wrote here (zero for other disciplines).
    pub fn acns_written(&self) -> crate::queue::acns::Written {
        match &self.path {
            Path::General(g) => g.queue.acns_written(),
            Path::Express(_) => Default::default(),
        }
    }

    /// Packets held by this direction: queued, on the transmitter and propagating.
    pub fn packets_held(&self) -> u64 {
        match &self.path {
            Path::Express(f) => f.packets_held() + self.loss().map_or(0, |l| l.lost.len()) as u64,
            Path::General(g) => g.packets_held(),
        }
    }

    /// The direction's counters as of `now`; call after `advance(now)`.
    pub fn stats(&self, now: SimTime) -> LinkStats {
        let mut s = match &self.path {
            Path::Express(f) => f.stats_at(now, self.rate),
            Path::General(g) => g.stats.clone(),
        };
        if let Some(red) = self.red() {
            red.add_to(&mut s);
        }
        s.drops_loss = self.loss().map_or(0, |l| l.drops);
        s
    }

    /// Offers a packet to the queue at `now`. Dropped packets (this one or others the
    /// discipline pushed out) are reported in `drops` for the caller to free. Returns the time
    /// of an arrival event to schedule, if the link had none pending.
    #[inline]
    pub fn offer(
        &mut self,
        t: Transit,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        watch: Option<QueueWatch>,
    ) -> Option<SimTime> {
        debug_assert!(
            !self.is_fed(),
            "a fed direction takes only handed-on packets"
        );
        if let Path::Express(_) = self.path {
            self.enqueue_express(t, now, Hand::Arrive, arena, drops);
            if self.arrival_event.get().is_some() {
                return None;
            }
            let next = self.next_event_express();
            return self.arm_express(next);
        }
        let (Path::General(g), mut w) = self.split() else {
            unreachable!("the express path returned above");
        };
        g.offer(t, arena, now, drops, &mut w, watch)
    }

    /// Whether the arrival event at `now` is the pending one (not one made stale by an
    /// earlier `push_inbound`).
    #[inline]
    pub fn event_due(&self, now: SimTime) -> bool {
        self.arrival_event.get() == Some(now)
    }

    /// Replays every transmit completion due by `now` (call before reading the queue or the
    /// counters); queue changes go to `watch` at the times they happen (general path). A fed
    /// direction's inbound packets due by then must have been taken in first (`sim.rs`,
    /// `pull`).
    pub fn advance(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        watch: Option<&mut QueueWatch>,
    ) {
        if let Path::Express(_) = self.path {
            self.advance_express(now, drops);
            return;
        }
        let (Path::General(g), mut w) = self.split() else {
            unreachable!("the express path returned above");
        };
        g.advance(arena, now, drops, &mut w, watch);
    }

    /// The pending arrival event fired (`event_due`; a fed direction's inbound packets due by
    /// `now` taken in first): returns the packet that reached the far node (none if the one
    /// expected was lost on the wire, or the event was for taking packets in) and the time of
    /// the next arrival event to schedule, if any.
    #[inline]
    pub fn arrive(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        watch: Option<QueueWatch>,
    ) -> (Option<Transit>, Option<SimTime>) {
        debug_assert!(self.event_due(now));
        self.arrival_event = OptTime::NONE;
        if let Path::Express(_) = self.path {
            let delay = self.delay;
            let p = self.advance_express(now, drops).arrive(now, delay);
            let next = self.next_event_express();
            return (p, self.arm_express(next));
        }
        let (Path::General(g), mut w) = self.split() else {
            unreachable!("the express path returned above");
        };
        g.arrive(arena, now, drops, &mut w, watch)
    }

    /// Prefetches the lines an event of this direction reads (`util/prefetch.rs`): the whole
    /// direction, four lines (the layout of `LinkDir`).
    #[inline(always)]
    pub fn prefetch(&self) {
        crate::util::prefetch::aligned_lines(self, std::mem::size_of::<LinkDir>());
    }

    /// Prefetches the ends of a fed direction's inbound run, or of its line where it takes
    /// packets in directly (`util/prefetch.rs`); call once its own lines are in the cache
    /// (`prefetch`).
    #[inline(always)]
    pub fn prefetch_inbound(&self) {
        if let Path::Express(f) = &self.path {
            match self.fed {
                Fed::No => {}
                Fed::Inbound => f.inbound.prefetch(),
                // What its next offer writes and its next arrival reads.
                Fed::Direct | Fed::Delivering => f.prefetch_ends(),
            }
        }
    }

    /// The `i`-th packet probably to be taken from a fed direction's inbound list next, and
    /// where it goes after (a hint for prefetching).
    #[inline(always)]
    pub fn inbound_ahead(
        &self,
        i: usize,
    ) -> Option<(Transit, crate::util::packed_option::Opt<u32>)> {
        match &self.path {
            Path::Express(f) => f.inbound.ahead(i),
            Path::General(g) => g.inbound.ahead(i),
        }
    }

    /// The packet the pending arrival event is probably for (express path; a hint for
    /// prefetching, which may name a freed packet, or any packet on the general path).
    #[inline(always)]
    pub fn arriving_hint(&self) -> PktId {
        self.arrival_pkt
    }

    /// Time-averaged queue length (packets, bytes) over `[0, now]`; call after `advance(now)`.
    pub fn averages(&mut self, now: SimTime) -> (f64, f64) {
        let (p, b) = match &mut self.path {
            Path::Express(f) => f.waiting_integrals(now),
            Path::General(g) => {
                g.account(now);
                (0, 0)
            }
        };
        let s = self.stats(now);
        let t = now.as_nanos().max(1) as f64;
        (
            (s.len_integral_pkts + p) as f64 / t,
            (s.len_integral_bytes + b) as f64 / t,
        )
    }

    /// Busy time including the packet on the transmitter now; call after `advance(now)`.
    pub fn busy_until(&self, now: SimTime) -> SimTime {
        let start = match &self.path {
            Path::Express(f) => f.on_wire_since(now, self.rate),
            Path::General(g) => g.on_wire_since(),
        };
        self.stats(now).busy + start.map_or(SimTime::ZERO, |s| now - s)
    }

    /// Time the most recently dequeued packet waited in the queue.
    pub fn last_sojourn(&self) -> SimTime {
        match &self.path {
            Path::Express(f) => f.last_sojourn,
            Path::General(g) => g.last_sojourn,
        }
    }
}

mod cut_through;
mod express;

pub use cut_through::{Fed, Handed};

/// Serialisation time of `size` bytes at `rate`, through a one-entry cache (most packets on a
/// direction share one or two sizes, and the division is the slow part).
#[inline]
fn tx_time(cache: &mut (u32, SimTime), rate: Rate, size: u32) -> SimTime {
    if cache.0 != size {
        *cache = (size, rate.tx_time(size));
    }
    cache.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, Packet};
    use crate::queue::DropTail;

    /// 1 Mb/s and 1000-byte packets: 8 ms on the wire; 10 ms of propagation.
    fn link(loss: LossModel) -> LinkDir {
        let q = Queue::DropTail(Box::new(DropTail::packets(10)));
        let (rate, delay) = (Rate(1_000_000), SimTime::from_millis(10));
        LinkDir::new(0, 1, rate, delay, q, loss, 1, "l")
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn tr(p: PktId, arena: &PacketArena) -> Transit {
        Transit::of(p, arena)
    }

    #[test]
    fn lazy_transmitter_delivers_back_to_back_packets_one_event_each() {
        let mut l = link(LossModel::None);
        let mut arena = PacketArena::default();
        let mut drops = vec![];
        let p: Vec<PktId> = (0..3)
            .map(|i| arena.alloc(Packet::new(i, Kind::Udp, 0, 1, 1000, ms(0))))
            .collect();
        // The first offer arms the link's one arrival event; the others find it pending.
        assert_eq!(
            l.offer(tr(p[0], &arena), &mut arena, ms(0), &mut drops, None),
            Some(ms(18))
        );
        assert_eq!(
            l.offer(tr(p[1], &arena), &mut arena, ms(0), &mut drops, None),
            None
        );
        assert_eq!(
            l.offer(tr(p[2], &arena), &mut arena, ms(0), &mut drops, None),
            None
        );
        assert_eq!(l.len_packets(), 2);
        // Each packet reaches the far node one serialisation (8 ms) after the one before.
        assert_eq!(
            l.arrive(&mut arena, ms(18), &mut drops, None),
            (Some(tr(p[0], &arena)), Some(ms(26)))
        );
        assert_eq!(
            l.arrive(&mut arena, ms(26), &mut drops, None),
            (Some(tr(p[1], &arena)), Some(ms(34)))
        );
        assert_eq!(
            l.arrive(&mut arena, ms(34), &mut drops, None),
            (Some(tr(p[2], &arena)), None)
        );
        // Queue: 2 waiting over [0, 8 ms), 1 over [8, 16 ms): 24 packet·ms over 34 ms.
        l.advance(&mut arena, ms(34), &mut drops, None);
        let (avg, _) = l.averages(ms(34));
        assert!((avg - 24.0 / 34.0).abs() < 1e-12, "{avg}");
        assert_eq!(l.stats(ms(34)).departures, 3);
        assert_eq!(l.busy_until(ms(34)), ms(24));
        assert!(drops.is_empty());
    }

    #[test]
    fn a_packet_lost_on_the_wire_leaves_its_arrival_event_empty() {
        // The first packet is lost as it leaves the transmitter at 8 ms; the second is not.
        let loss = LossModel::List {
            packets: vec![0],
            next: 0,
            seen: 0,
        };
        let mut l = link(loss);
        let mut arena = PacketArena::default();
        let mut drops = vec![];
        let a = arena.alloc(Packet::new(0, Kind::Udp, 0, 1, 1000, ms(0)));
        assert_eq!(
            l.offer(tr(a, &arena), &mut arena, ms(0), &mut drops, None),
            Some(ms(18))
        );
        // At 12 ms the link learns of the loss; the event armed for 18 ms stays pending.
        let b = arena.alloc(Packet::new(0, Kind::Udp, 0, 1, 1000, ms(12)));
        assert_eq!(
            l.offer(tr(b, &arena), &mut arena, ms(12), &mut drops, None),
            None
        );
        assert_eq!((drops.clone(), l.stats(ms(12)).drops_loss), (vec![a], 1));
        // Nothing arrives at 18 ms; the next event is b's: sent 12–20 ms, arriving at 30 ms.
        assert_eq!(
            l.arrive(&mut arena, ms(18), &mut drops, None),
            (None, Some(ms(30)))
        );
        assert_eq!(
            l.arrive(&mut arena, ms(30), &mut drops, None),
            (Some(tr(b, &arena)), None)
        );
        assert_eq!(l.packets_held(), 0);
    }

    #[test]
    fn an_express_offer_reads_four_cache_lines() {
        use std::mem::{align_of, offset_of, size_of};
        // Line 0: the direction's timing, roles and loss; lines 1–3: the line's fields with
        // the counters an offer updates, then the inbound list (see `LinkDir`).
        assert_eq!((align_of::<LinkDir>(), size_of::<LinkDir>()), (64, 256));
        assert!(offset_of!(LinkDir, rare_on_offer) < 64);
        assert_eq!(offset_of!(LinkDir, path), 64);
        assert!(ExpressLine::hot_bytes() <= 192);
    }
}
