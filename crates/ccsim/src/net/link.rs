//! One direction of a point-to-point link: a queue discipline, a transmitter that serialises
//! one packet at a time at the link rate, a loss model applied as packets leave the
//! transmitter, and a propagation delay line.
//!
//! Transmit completions need no events: the link replays those due by `now` whenever it is
//! touched (`advance(now)`). The only event a direction needs is the arrival of its next
//! packet at the far node: one pending event per direction, for the earliest packet that can
//! arrive. Two paths implement this: the general one for any queue discipline
//! (`general.rs`), and the express one for DropTail (`fifo.rs`), which knows each packet's
//! timetable on arrival and never dequeues. Without per-packet transmit events a hop costs one
//! event instead of two (docs/performance.md).

use super::fifo::FifoLine;
use super::general::General;
use super::loss::LossModel;
use crate::packet::{PacketArena, PktId};
use crate::queue::{DropTail, Queue, QueueDiscipline};
use crate::rng::Rng;
use crate::time::{Rate, SimTime};
use crate::trace::Recorder;

/// Counters of one link direction.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrivals: u64,
    pub departures: u64,
    pub bytes_departed: u64,
    pub drops_overflow: u64,
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
    pub max_len_pkts: u32,
    pub max_len_bytes: u64,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// What both paths share and update: the direction's counters, loss model, timing, and its
/// one pending arrival event.
pub struct Wire<'a> {
    pub stats: &'a mut LinkStats,
    pub loss: &'a mut LossModel,
    pub rng: &'a mut Rng,
    pub delay: SimTime,
    rate: Rate,
    tx_time_cache: &'a mut (u32, SimTime),
    /// Time of the pending arrival event, if one is scheduled.
    pub arrival_event: &'a mut Option<SimTime>,
}

impl Wire<'_> {
    /// Serialisation time of `size` bytes (cached: most packets share a few sizes).
    #[inline]
    pub fn tx_time(&mut self, size: u32) -> SimTime {
        if self.tx_time_cache.0 != size {
            *self.tx_time_cache = (size, self.rate.tx_time(size));
        }
        self.tx_time_cache.1
    }
}

enum Path {
    /// Boxed: only directions with an AQM (or traced queue changes) use it, and it is large.
    General(Box<General>),
    Express(FifoLine),
}

pub struct LinkDir {
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: SimTime,
    arrival_event: Option<SimTime>,
    tx_time_cache: (u32, SimTime),
    path: Path,
    loss: LossModel,
    rng: Rng,
    pub stats: LinkStats,
    pub link: String,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        link: String,
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
        LinkDir {
            from,
            to,
            rate,
            delay,
            arrival_event: None,
            tx_time_cache: (0, SimTime::ZERO),
            path: Path::General(Box::new(General::new(queue, aqm_rng))),
            loss,
            rng: Rng::derive(seed, &format!("loss:{label}")),
            stats: LinkStats::default(),
            link,
        }
    }

    /// The path and what it shares with the direction, borrowed apart.
    #[inline]
    fn split(&mut self) -> (&mut Path, Wire<'_>) {
        (
            &mut self.path,
            Wire {
                stats: &mut self.stats,
                loss: &mut self.loss,
                rng: &mut self.rng,
                delay: self.delay,
                rate: self.rate,
                tx_time_cache: &mut self.tx_time_cache,
                arrival_event: &mut self.arrival_event,
            },
        )
    }

    /// Switches a DropTail direction to the express path; call before any packet is offered.
    /// Other disciplines keep the general path.
    pub fn use_express(&mut self) {
        debug_assert_eq!(
            self.packets_held(),
            0,
            "switching paths with packets on the link"
        );
        if let Path::General(g) = &self.path {
            if let Queue::DropTail(q) = &g.queue {
                self.path = Path::Express(FifoLine::new(q));
            }
        }
    }

    /// Switches an express direction back to the general path (for tests comparing the two).
    pub fn use_general(&mut self) {
        debug_assert_eq!(
            self.packets_held(),
            0,
            "switching paths with packets on the link"
        );
        if let Path::Express(f) = &self.path {
            let (packets, bytes) = f.limits();
            let q = Queue::DropTail(DropTail::with_limits(packets, bytes));
            // DropTail draws no random numbers: any stream does.
            let rng = Rng::derive(0, "droptail");
            self.path = Path::General(Box::new(General::new(q, rng)));
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
            Path::Express(_) => None,
            Path::General(g) => g.queue.avg_queue(),
        }
    }

    /// Packets held by this direction: queued, on the transmitter and propagating.
    pub fn packets_held(&self) -> u64 {
        match &self.path {
            Path::Express(f) => f.packets_held(),
            Path::General(g) => g.packets_held(),
        }
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
        let (path, mut w) = self.split();
        match path {
            Path::Express(f) => offer_express(f, t, now, drops, &mut w),
            Path::General(g) => g.offer(t, arena, now, drops, &mut w, watch),
        }
    }

    /// Replays every transmit completion due by `now`; queue changes go to `watch` at the
    /// times they happen (general path).
    pub fn advance(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        watch: Option<&mut QueueWatch>,
    ) {
        let (path, mut w) = self.split();
        match path {
            Path::Express(f) => f.advance(now, w.stats, w.loss, w.rng, drops),
            Path::General(g) => g.advance(arena, now, drops, &mut w, watch),
        }
    }

    /// The pending arrival event fired: returns the packet that reached the far node (none if
    /// the one expected was lost on the wire) and the time of the next arrival event to
    /// schedule, if any.
    #[inline]
    pub fn arrive(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        watch: Option<QueueWatch>,
    ) -> (Option<Transit>, Option<SimTime>) {
        self.arrival_event = None;
        let (path, mut w) = self.split();
        match path {
            Path::Express(f) => {
                f.advance(now, w.stats, w.loss, w.rng, drops);
                let p = f.arrive(now, w.delay);
                *w.arrival_event = f.next_arrival(w.delay);
                (p, *w.arrival_event)
            }
            Path::General(g) => g.arrive(arena, now, drops, &mut w, watch),
        }
    }

    /// Time-averaged queue length (packets, bytes) over `[0, now]`; call after `advance(now)`.
    pub fn averages(&mut self, now: SimTime) -> (f64, f64) {
        let (p, b) = match &mut self.path {
            Path::Express(f) => f.waiting_integrals(now),
            Path::General(g) => {
                g.account(now, &mut self.stats);
                (0, 0)
            }
        };
        let t = now.as_nanos().max(1) as f64;
        (
            (self.stats.len_integral_pkts + p) as f64 / t,
            (self.stats.len_integral_bytes + b) as f64 / t,
        )
    }

    /// Busy time including the packet on the transmitter now; call after `advance(now)`.
    pub fn busy_until(&self, now: SimTime) -> SimTime {
        let start = match &self.path {
            Path::Express(f) => f.on_wire_since(now),
            Path::General(g) => g.on_wire_since(),
        };
        self.stats.busy + start.map_or(SimTime::ZERO, |s| now - s)
    }

    /// Time the most recently dequeued packet waited in the queue.
    pub fn last_sojourn(&self) -> SimTime {
        match &self.path {
            Path::Express(f) => f.last_sojourn,
            Path::General(g) => g.last_sojourn,
        }
    }
}

/// `offer` on the express path.
#[inline]
fn offer_express(
    f: &mut FifoLine,
    t: Transit,
    now: SimTime,
    drops: &mut Vec<PktId>,
    w: &mut Wire,
) -> Option<SimTime> {
    let tx = w.tx_time(t.size);
    f.advance(now, w.stats, w.loss, w.rng, drops);
    w.stats.arrivals += 1;
    if !f.offer(t, tx, now) {
        w.stats.drops_overflow += 1;
        drops.push(t.pkt);
        return None;
    }
    // As on the general path, the queue length seen includes the arriving packet, even when
    // it starts at once.
    w.stats.max_len_pkts = w.stats.max_len_pkts.max(f.len_packets());
    w.stats.max_len_bytes = w.stats.max_len_bytes.max(f.len_bytes());
    f.start_if_idle(now);
    if w.arrival_event.is_some() {
        return None;
    }
    *w.arrival_event = f.next_arrival(w.delay);
    *w.arrival_event
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, Packet};
    use crate::queue::DropTail;

    /// 1 Mb/s and 1000-byte packets: 8 ms on the wire; 10 ms of propagation.
    fn link(loss: LossModel) -> LinkDir {
        let q = Queue::DropTail(DropTail::packets(10));
        let (rate, delay) = (Rate(1_000_000), SimTime::from_millis(10));
        LinkDir::new("l".into(), 0, 1, rate, delay, q, loss, 1, "l")
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
        let (avg, _) = l.averages(ms(34));
        assert!((avg - 24.0 / 34.0).abs() < 1e-12, "{avg}");
        assert_eq!(l.stats.departures, 3);
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
        assert_eq!((drops.clone(), l.stats.drops_loss), (vec![a], 1));
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
}
