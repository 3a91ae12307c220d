//! One direction of a point-to-point link: a queue discipline, a transmitter that serialises
//! one packet at a time at the link rate, a loss model applied as packets leave the
//! transmitter, and a propagation delay line.
//!
//! The transmitter runs lazily: it needs no events of its own. A queue discipline's decisions
//! depend only on its own state, its random stream and the time, so the link replays the
//! transmit completions due by `now` (each at its exact time) whenever it is touched —
//! `advance(now)` — before taking a new packet or handing one over. The only event a link
//! direction needs is the arrival of the head of its delay line at the far node: one pending
//! event per direction, scheduled for the earliest packet that can arrive (the head of the
//! delay line, else the packet on the transmitter). Without per-packet transmit events a hop
//! costs one event instead of two (docs/performance.md).

use std::collections::VecDeque;

use super::fifo::FifoLine;
use super::loss::LossModel;
use crate::packet::{Ecn, PacketArena, PktId};
use crate::queue::{Queue, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::rng::Rng;
use crate::scenario::schema::SeriesName;
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
    last_change: SimTime,
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

/// The packet on the transmitter.
#[derive(Clone, Copy)]
struct Tx {
    pkt: PktId,
    start: SimTime,
    done: SimTime,
}

pub struct LinkDir {
    pub link: String,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: SimTime,
    queue: Queue,
    loss: LossModel,
    rng: Rng,
    aqm_rng: Rng,
    tx: Option<Tx>,
    pipe: VecDeque<(SimTime, PktId)>,
    /// The express path of a DropTail direction (`net/fifo.rs`), used instead of `queue`,
    /// `tx` and `pipe` when set.
    express: Option<FifoLine>,
    /// Time of the pending arrival event, if one is scheduled.
    arrival_event: Option<SimTime>,
    /// Serialisation time of the last packet size seen (most packets share a few sizes).
    tx_time_cache: (u32, SimTime),
    pub stats: LinkStats,
    dropped_scratch: Vec<(PktId, Reason)>,
    marked_scratch: Vec<Reason>,
    last_sojourn: SimTime,
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
        LinkDir {
            link,
            from,
            to,
            rate,
            delay,
            queue,
            loss,
            rng: Rng::derive(seed, &format!("loss:{label}")),
            aqm_rng: Rng::derive(seed, &format!("queue:{label}")),
            tx: None,
            pipe: VecDeque::new(),
            express: None,
            arrival_event: None,
            tx_time_cache: (0, SimTime::ZERO),
            stats: LinkStats::default(),
            dropped_scratch: Vec::new(),
            marked_scratch: Vec::new(),
            last_sojourn: SimTime::ZERO,
        }
    }

    #[inline]
    fn account(&mut self, now: SimTime) {
        let dt = (now - self.stats.last_change).as_nanos() as u128;
        if dt > 0 {
            self.stats.len_integral_pkts += dt * self.queue.len_packets() as u128;
            self.stats.len_integral_bytes += dt * self.queue.len_bytes() as u128;
            self.stats.last_change = now;
        }
    }

    /// Switches a DropTail direction to the express path; call before any packet is offered.
    /// Other disciplines keep the general path.
    pub fn use_express(&mut self) {
        debug_assert_eq!(
            self.packets_held(),
            0,
            "switching paths with packets on the link"
        );
        if let Queue::DropTail(q) = &self.queue {
            self.express = Some(FifoLine::new(q));
        }
    }

    /// Switches back to the general path (for tests comparing the two).
    pub fn use_general(&mut self) {
        debug_assert_eq!(
            self.packets_held(),
            0,
            "switching paths with packets on the link"
        );
        self.express = None;
    }

    pub fn len_packets(&self) -> u32 {
        match &self.express {
            Some(f) => f.len_packets(),
            None => self.queue.len_packets(),
        }
    }
    pub fn len_bytes(&self) -> u64 {
        match &self.express {
            Some(f) => f.len_bytes(),
            None => self.queue.len_bytes(),
        }
    }
    /// The discipline's average queue in packets, if it keeps one (RED).
    pub fn avg_queue(&self) -> Option<f64> {
        self.queue.avg_queue()
    }
    /// Packets held by this direction: queued, on the transmitter and propagating.
    pub fn packets_held(&self) -> u64 {
        if let Some(f) = &self.express {
            return f.packets_held();
        }
        self.queue.len_packets() as u64 + self.tx.is_some() as u64 + self.pipe.len() as u64
    }

    /// `offer` on the express path.
    fn offer_express(
        &mut self,
        t: Transit,
        now: SimTime,
        drops: &mut Vec<PktId>,
    ) -> Option<SimTime> {
        let (pkt, size) = (t.pkt, t.size);
        let tx = self.tx_time(size);
        let f = self.express.as_mut().expect("express path");
        f.advance(now, &mut self.stats, &mut self.loss, &mut self.rng, drops);
        self.stats.arrivals += 1;
        if !f.offer(t, tx, now) {
            self.stats.drops_overflow += 1;
            drops.push(pkt);
            return None;
        }
        // As on the general path, the queue length seen includes the arriving packet, even
        // when it starts at once.
        self.stats.max_len_pkts = self.stats.max_len_pkts.max(f.len_packets());
        self.stats.max_len_bytes = self.stats.max_len_bytes.max(f.len_bytes());
        f.start_if_idle(now);
        if self.arrival_event.is_some() {
            return None;
        }
        self.arrival_event = f.next_arrival(self.delay);
        self.arrival_event
    }

    fn tx_time(&mut self, size: u32) -> SimTime {
        if self.tx_time_cache.0 != size {
            self.tx_time_cache = (size, self.rate.tx_time(size));
        }
        self.tx_time_cache.1
    }

    /// Offers a packet to the queue at `now`. Dropped packets (this one or others the
    /// discipline pushed out) are reported in `drops` for the caller to free. Returns the time
    /// of an arrival event to schedule, if the link had none pending.
    pub fn offer(
        &mut self,
        t: Transit,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        mut watch: Option<QueueWatch>,
    ) -> Option<SimTime> {
        if self.express.is_some() {
            return self.offer_express(t, now, drops);
        }
        let pkt = t.pkt;
        self.advance(arena, now, drops, watch.as_mut());
        self.account(now);
        self.stats.arrivals += 1;
        arena.get_mut(pkt).enqueued = now;
        let mut ctx = QueueCtx {
            now,
            arena,
            rng: &mut self.aqm_rng,
            dropped: &mut self.dropped_scratch,
            marked: &mut self.marked_scratch,
        };
        let verdict = self.queue.enqueue(pkt, &mut ctx);
        // Packets the discipline pushed out to make room (FQ-CoDel).
        self.collect(drops);
        match verdict {
            Verdict::Dropped(r) => {
                self.count_drop(r);
                drops.push(pkt);
                self.report(now, watch.as_mut());
                return None;
            }
            Verdict::Marked(r) => {
                debug_assert!(arena.get(pkt).ecn.capable(), "marked a Not-ECT packet");
                self.count_mark(r);
                arena.get_mut(pkt).ecn = Ecn::Ce;
            }
            Verdict::Enqueued => {}
        }
        self.stats.max_len_pkts = self.stats.max_len_pkts.max(self.queue.len_packets());
        self.stats.max_len_bytes = self.stats.max_len_bytes.max(self.queue.len_bytes());
        if self.tx.is_none() {
            self.start_next(arena, now, drops);
        }
        self.report(now, watch.as_mut());
        self.arm_arrival()
    }

    fn count_drop(&mut self, r: Reason) {
        let s = &mut self.stats;
        match r {
            Reason::Overflow => s.drops_overflow += 1,
            Reason::Early => s.drops_early += 1,
            Reason::Forced => s.drops_forced += 1,
        }
        s.drops_aqm = s.drops_early + s.drops_forced;
    }

    fn count_mark(&mut self, r: Reason) {
        let s = &mut self.stats;
        match r {
            Reason::Forced => s.marks_forced += 1,
            Reason::Early | Reason::Overflow => s.marks_early += 1,
        }
        s.marks = s.marks_early + s.marks_forced;
    }

    /// Counts and hands over what the discipline dropped or marked besides its verdict.
    #[inline]
    fn collect(&mut self, drops: &mut Vec<PktId>) {
        if !self.dropped_scratch.is_empty() || !self.marked_scratch.is_empty() {
            self.collect_slow(drops);
        }
    }

    fn collect_slow(&mut self, drops: &mut Vec<PktId>) {
        // Indexed loops keep the scratch buffers' allocations for the next packet.
        for i in 0..self.dropped_scratch.len() {
            let (p, r) = self.dropped_scratch[i];
            self.count_drop(r);
            drops.push(p);
        }
        self.dropped_scratch.clear();
        for i in 0..self.marked_scratch.len() {
            self.count_mark(self.marked_scratch[i]);
        }
        self.marked_scratch.clear();
    }

    /// Starts serialising the next packet at `now`, if the queue has one.
    fn start_next(&mut self, arena: &mut PacketArena, now: SimTime, drops: &mut Vec<PktId>) {
        self.account(now);
        let mut ctx = QueueCtx {
            now,
            arena,
            rng: &mut self.aqm_rng,
            dropped: &mut self.dropped_scratch,
            marked: &mut self.marked_scratch,
        };
        let next = self.queue.dequeue(&mut ctx);
        self.collect(drops);
        let Some(pkt) = next else { return };
        let pk = arena.get(pkt);
        let (size, enqueued) = (pk.size, pk.enqueued);
        self.last_sojourn = now - enqueued;
        let done = now + self.tx_time(size);
        self.tx = Some(Tx {
            pkt,
            start: now,
            done,
        });
    }

    /// Replays every transmit completion due by `now`, each at its own time: the packet leaves
    /// the transmitter (lost, or into the delay line) and the next one starts. Queue changes
    /// are reported to `watch` at the times they happen.
    pub fn advance(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        mut watch: Option<&mut QueueWatch>,
    ) {
        if let Some(f) = &mut self.express {
            f.advance(now, &mut self.stats, &mut self.loss, &mut self.rng, drops);
            return;
        }
        while let Some(tx) = self.tx {
            if tx.done > now {
                break;
            }
            let at = tx.done;
            self.tx = None;
            let size = arena.get(tx.pkt).size;
            self.stats.busy += at - tx.start;
            self.stats.departures += 1;
            self.stats.bytes_departed += size as u64;
            if self.loss.lose(at, &mut self.rng) {
                self.stats.drops_loss += 1;
                drops.push(tx.pkt);
            } else {
                self.pipe.push_back((at + self.delay, tx.pkt));
            }
            self.start_next(arena, at, drops);
            self.report(at, watch.as_deref_mut());
        }
    }

    #[inline]
    fn report(&self, at: SimTime, watch: Option<&mut QueueWatch>) {
        if let Some(w) = watch {
            self.report_to(at, w);
        }
    }

    fn report_to(&self, at: SimTime, w: &mut QueueWatch) {
        w.rec
            .changed(SeriesName::Queue, w.id, at, self.len_packets() as f64);
        w.rec
            .changed(SeriesName::QueueBytes, w.id, at, self.len_bytes() as f64);
        if let Some(avg) = self.avg_queue() {
            w.rec.changed(SeriesName::AvgQueue, w.id, at, avg);
        }
        let sojourn = self.last_sojourn().as_secs_f64();
        w.rec.changed(SeriesName::Sojourn, w.id, at, sojourn);
    }

    /// The earliest time a packet can reach the far node: the head of the delay line, else the
    /// end of the current transmission plus the delay.
    fn next_arrival(&self) -> Option<SimTime> {
        match self.pipe.front() {
            Some(&(t, _)) => Some(t),
            None => self.tx.map(|tx| tx.done + self.delay),
        }
    }

    /// The arrival event to schedule, if none is pending and a packet is on its way.
    fn arm_arrival(&mut self) -> Option<SimTime> {
        if self.arrival_event.is_some() {
            return None;
        }
        self.arrival_event = self.next_arrival();
        self.arrival_event
    }

    /// The pending arrival event fired: returns the packet that reached the far node (none if
    /// the one expected was lost on the wire) and the time of the next arrival event to
    /// schedule, if any.
    pub fn arrive(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        watch: Option<QueueWatch>,
    ) -> (Option<Transit>, Option<SimTime>) {
        self.arrival_event = None;
        if let Some(f) = &mut self.express {
            f.advance(now, &mut self.stats, &mut self.loss, &mut self.rng, drops);
            let p = f.arrive(now, self.delay);
            self.arrival_event = f.next_arrival(self.delay);
            return (p, self.arrival_event);
        }
        let mut watch = watch;
        self.advance(arena, now, drops, watch.as_mut());
        let p = match self.pipe.front() {
            Some(&(t, p)) if t <= now => {
                self.pipe.pop_front();
                Some(Transit::of(p, arena))
            }
            _ => None,
        };
        (p, self.arm_arrival())
    }

    /// Time-averaged queue length (packets, bytes) over `[0, now]`; call after `advance(now)`.
    pub fn averages(&mut self, now: SimTime) -> (f64, f64) {
        let (p, b) = match &self.express {
            Some(f) => f.waiting_integrals(now),
            None => {
                self.account(now);
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
        let start = match &self.express {
            Some(f) => f.on_wire_since(now),
            None => self.tx.map(|tx| tx.start),
        };
        self.stats.busy + start.map_or(SimTime::ZERO, |s| now - s)
    }

    /// Time the most recently dequeued packet waited in the queue.
    pub fn last_sojourn(&self) -> SimTime {
        match &self.express {
            Some(f) => f.last_sojourn,
            None => self.last_sojourn,
        }
    }
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
