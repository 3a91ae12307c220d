//! The general path of a link direction: any queue discipline, a transmitter and a delay line.
//!
//! The transmitter runs lazily: it needs no events of its own. A queue discipline's decisions
//! depend only on its own state, its random stream and the time, so the link replays the
//! transmit completions due by `now` (each at its exact time) whenever it is touched —
//! `advance(now)` — before taking a new packet or handing one over. DropTail and RED
//! directions take the express path instead (`net/express/mod.rs`) unless queue changes are traced as
//! they happen.
//!
//! A general direction can be fed (cut-through, `link.rs`): feeding directions hand it their
//! packets with the times they reach the node, into `inbound`, and it offers each at its own
//! time whenever it is next touched, in order, replaying its transmitter up to that time
//! first, as an event at the node would have. It can feed too (`hand_on`), though it learns
//! when a packet leaves only as it replays the transmitter: a packet for a fed direction goes
//! to `hand_on` instead of the delay line as it leaves, for the simulation to hand on after
//! the call, and the direction's event is armed a nanosecond before the packet on the
//! transmitter could reach the next node, so that it is handed on before it gets there.

use std::collections::VecDeque;

use super::inbound::Inbound;
use super::link::{LinkStats, QueueWatch, Transit, Wire};
use crate::config::SeriesName;
use crate::packet::{Ecn, PacketArena, PktId};
use crate::queue::{Queue, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::rng::Rng;
use crate::time::SimTime;

/// The packet on the transmitter.
#[derive(Clone, Copy)]
struct Tx {
    pkt: PktId,
    start: SimTime,
    done: SimTime,
}

pub struct General {
    pub(super) queue: Queue,
    side: Side,
    tx: Option<Tx>,
    pipe: VecDeque<(SimTime, PktId)>,
    /// Time the most recently dequeued packet waited in the queue.
    pub(super) last_sojourn: SimTime,
    /// The direction's counters, all but the wire's losses (`WireLoss`).
    pub(super) stats: LinkStats,
    /// When the queue-length integrals were last brought up to date.
    last_change: SimTime,
    /// Packets handed on to a fed direction, not yet offered (cut-through, `link.rs`).
    pub(super) inbound: Inbound,
    /// Where a feeding direction's packets for fed directions go as they leave.
    pub(super) hand_on: Option<Box<HandOn>>,
    /// Prefetch the packet after the one starting on the transmitter (`sim/prefetching.rs`: where the
    /// simulation's state outgrows the caches).
    pub(super) prefetch: bool,
}

/// The destinations whose packets a feeding general direction hands on (those whose next
/// direction is fed), and the packets it handed on since the simulation last took them.
pub(super) struct HandOn {
    /// One bit per destination node up to the highest: every departure asks, and a bottleneck
    /// of many flows has as many destinations, too many to search at every departure
    /// (docs/performance.md, 0.4.8).
    dsts: Box<[u64]>,
    pub(super) out: Vec<(SimTime, Transit)>,
}

impl HandOn {
    pub(super) fn new(dsts: Vec<u32>) -> HandOn {
        let words = dsts.iter().max().map_or(0, |&d| d as usize / 64 + 1);
        let mut bits = vec![0u64; words];
        for d in dsts {
            bits[d as usize / 64] |= 1 << (d % 64);
        }
        HandOn {
            dsts: bits.into_boxed_slice(),
            out: Vec::new(),
        }
    }

    /// Whether packets for `dst` are handed on.
    #[inline]
    fn hands_on(&self, dst: u32) -> bool {
        let word = self.dsts.get(dst as usize / 64).copied().unwrap_or(0);
        word >> (dst % 64) & 1 == 1
    }
}

/// What a discipline works with besides its queue: its random stream, and where it reports
/// packets it dropped or marked besides its verdict.
struct Side {
    rng: Rng,
    dropped: Vec<(PktId, Reason)>,
    marked: Vec<Reason>,
}

impl Side {
    fn ctx<'a>(&'a mut self, now: SimTime, arena: &'a mut PacketArena) -> QueueCtx<'a> {
        QueueCtx {
            now,
            arena,
            rng: &mut self.rng,
            dropped: &mut self.dropped,
            marked: &mut self.marked,
        }
    }

    /// Counts and hands over what the discipline dropped or marked besides its verdict.
    #[inline]
    fn collect(&mut self, drops: &mut Vec<PktId>, stats: &mut LinkStats) {
        if !self.dropped.is_empty() || !self.marked.is_empty() {
            for &(p, r) in &self.dropped {
                count_drop(stats, r);
                drops.push(p);
            }
            self.dropped.clear();
            for &r in &self.marked {
                count_mark(stats, r);
            }
            self.marked.clear();
        }
    }
}

impl General {
    pub fn new(queue: Queue, aqm_rng: Rng) -> General {
        General {
            queue,
            side: Side {
                rng: aqm_rng,
                dropped: Vec::new(),
                marked: Vec::new(),
            },
            tx: None,
            pipe: VecDeque::new(),
            last_sojourn: SimTime::ZERO,
            stats: LinkStats::default(),
            last_change: SimTime::ZERO,
            inbound: Inbound::default(),
            hand_on: None,
            prefetch: false,
        }
    }

    /// The packet on the transmitter, if any.
    pub fn transmitting(&self) -> Option<PktId> {
        self.tx.map(|t| t.pkt)
    }

    /// The discipline and its random stream, for a direction changing paths (`link.rs`).
    pub fn into_parts(self) -> (Queue, Rng) {
        (self.queue, self.side.rng)
    }

    /// Packets held: on their way in (fed), queued, on the transmitter and propagating.
    pub fn packets_held(&self) -> u64 {
        let inbound = self.inbound.len() as u64;
        inbound
            + self.queue.len_packets() as u64
            + self.tx.is_some() as u64
            + self.pipe.len() as u64
    }

    #[inline]
    pub fn account(&mut self, now: SimTime) {
        debug_assert!(
            now >= self.last_change,
            "time went back: {now:?} < {:?}",
            self.last_change
        );
        let dt = (now - self.last_change).as_nanos() as u128;
        if dt > 0 {
            let stats = &mut self.stats;
            stats.len_integral_pkts += dt * self.queue.len_packets() as u128;
            stats.len_integral_bytes += dt * self.queue.len_bytes() as u128;
            self.last_change = now;
        }
    }

    /// Offers a packet at `now`; see `LinkDir::offer`.
    pub fn offer(
        &mut self,
        t: Transit,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        w: &mut Wire,
        watch: Option<QueueWatch>,
    ) -> Option<SimTime> {
        if self.take(t, arena, now, drops, w, watch) {
            self.arm_arrival(w)
        } else {
            None
        }
    }

    /// Offers a packet at `now` without arming the arrival event (a fed direction taking in
    /// its inbound packets arms it afterwards): whether the queue took it.
    pub fn take(
        &mut self,
        t: Transit,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        w: &mut Wire,
        mut watch: Option<QueueWatch>,
    ) -> bool {
        let pkt = t.pkt;
        self.advance(arena, now, drops, w, watch.as_mut());
        self.account(now);
        self.stats.arrivals += 1;
        arena.get_mut(pkt).enqueued = now;
        let verdict = self.queue.enqueue(pkt, &mut self.side.ctx(now, arena));
        // Packets the discipline pushed out to make room (FQ-CoDel).
        self.side.collect(drops, &mut self.stats);
        match verdict {
            Verdict::Dropped(r) => {
                count_drop(&mut self.stats, r);
                drops.push(pkt);
                self.report(now, watch.as_mut());
                return false;
            }
            Verdict::Marked(r) => {
                debug_assert!(arena.get(pkt).ecn.capable(), "marked a Not-ECT packet");
                count_mark(&mut self.stats, r);
                arena.get_mut(pkt).ecn = Ecn::Ce;
            }
            Verdict::Enqueued => {}
        }
        let s = &mut self.stats;
        s.max_len_pkts = s.max_len_pkts.max(self.queue.len_packets());
        s.max_len_bytes = s.max_len_bytes.max(self.queue.len_bytes());
        if self.tx.is_none() {
            self.start_next(arena, now, drops, w);
        }
        self.report(now, watch.as_mut());
        true
    }

    /// Starts serialising the next packet at `now`, if the queue has one. Inline in its two
    /// callers, as it runs once per packet (docs/performance.md, 0.4.8).
    #[inline(always)]
    fn start_next(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        w: &mut Wire,
    ) {
        self.account(now);
        let next = self.queue.dequeue(&mut self.side.ctx(now, arena));
        self.side.collect(drops, &mut self.stats);
        let Some(pkt) = next else { return };
        if self.prefetch {
            // Its transmission time ahead of the dequeue that reads it.
            if let Some(after) = self.queue.upcoming() {
                arena.prefetch(after);
            }
        }
        let pk = arena.get(pkt);
        let (size, enqueued) = (pk.size, pk.enqueued);
        self.last_sojourn = now - enqueued;
        let done = now + w.tx_time(size);
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
        w: &mut Wire,
        mut watch: Option<&mut QueueWatch>,
    ) {
        while let Some(tx) = self.tx {
            if tx.done > now {
                break;
            }
            let at = tx.done;
            self.tx = None;
            let p = arena.get(tx.pkt);
            let (size, dst) = (p.size, p.dst);
            self.stats.busy += at - tx.start;
            self.stats.departures += 1;
            self.stats.bytes_departed += size as u64;
            let lost = w.loss.as_deref_mut().is_some_and(|l| {
                let lost = l.lose(at);
                l.drops += lost as u64;
                lost
            });
            let reach = at + w.delay;
            match &mut self.hand_on {
                _ if lost => {
                    if let Queue::Traced(t) = &mut self.queue {
                        t.note_loss(at, tx.pkt, arena);
                    }
                    drops.push(tx.pkt);
                }
                Some(h) if h.hands_on(dst) => {
                    h.out.push((
                        reach,
                        Transit {
                            pkt: tx.pkt,
                            size,
                            dst,
                        },
                    ));
                }
                _ => self.pipe.push_back((reach, tx.pkt)),
            }
            self.start_next(arena, at, drops, w);
            self.report(at, watch.as_deref_mut());
        }
    }

    /// Reports the queue's state at `at` to `watch`, if queue changes are traced. The test is
    /// inline, the report out of line: most runs trace nothing, and every packet comes here.
    #[inline(always)]
    fn report(&self, at: SimTime, watch: Option<&mut QueueWatch>) {
        if let Some(w) = watch {
            self.report_to(at, w);
        }
    }

    #[inline(never)]
    fn report_to(&self, at: SimTime, w: &mut QueueWatch) {
        let q = &self.queue;
        w.rec
            .changed(SeriesName::Queue, w.id, at, q.len_packets() as f64);
        w.rec
            .changed(SeriesName::QueueBytes, w.id, at, q.len_bytes() as f64);
        if let Some(avg) = q.avg_queue() {
            w.rec.changed(SeriesName::AvgQueue, w.id, at, avg);
        }
        let sojourn = self.last_sojourn.as_secs_f64();
        w.rec.changed(SeriesName::Sojourn, w.id, at, sojourn);
    }

    /// The arrival event to schedule, if none is pending and it is needed (`next_event`).
    fn arm_arrival(&mut self, w: &mut Wire) -> Option<SimTime> {
        w.arm(|w| self.next_event(w.delay))
    }

    /// When the arrival event is next needed: the head of the delay line, or the end of the
    /// current transmission plus the delay (a nanosecond less if the direction feeds, to hand
    /// the packet on before it reaches the next node); or, if sooner, the first inbound
    /// packet's arrival at the node plus the delay (less the same nanosecond). No packet taken
    /// in at `at` can reach the far node, or change a decision whose packet does, sooner than
    /// that: the discipline decides on it at `at` at the earliest, and what it then sends is at
    /// least a serialisation and the delay away. (Planning gives feeders a delay of at least a
    /// nanosecond.)
    pub(super) fn next_event(&self, delay: SimTime) -> Option<SimTime> {
        let reach = delay - SimTime(self.hand_on.is_some() as u64);
        let pipe = self.pipe.front().map(|&(t, _)| t);
        let tx = self.tx.map(|tx| tx.done + reach);
        let own = match (pipe, tx) {
            (Some(p), Some(t)) => Some(p.min(t)),
            (p, t) => p.or(t),
        };
        let Some((at, _)) = self.inbound.first() else {
            return own;
        };
        let inbound = at + reach;
        Some(own.map_or(inbound, |o| o.min(inbound)))
    }

    /// See `LinkDir::arrive`.
    pub fn arrive(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
        w: &mut Wire,
        mut watch: Option<QueueWatch>,
    ) -> (Option<Transit>, Option<SimTime>) {
        self.advance(arena, now, drops, w, watch.as_mut());
        let p = match self.pipe.front() {
            Some(&(t, p)) if t <= now => {
                self.pipe.pop_front();
                Some(Transit::of(p, arena))
            }
            _ => None,
        };
        (p, self.arm_arrival(w))
    }

    /// When the packet on the transmitter started, if there is one.
    pub fn on_wire_since(&self) -> Option<SimTime> {
        self.tx.map(|tx| tx.start)
    }
}

pub(super) fn count_drop(s: &mut LinkStats, r: Reason) {
    match r {
        Reason::Overflow => s.drops_overflow += 1,
        Reason::Early => s.drops_early += 1,
        Reason::Forced => s.drops_forced += 1,
    }
    s.drops_aqm = s.drops_early + s.drops_forced;
}

pub(super) fn count_mark(s: &mut LinkStats, r: Reason) {
    match r {
        Reason::Forced => s.marks_forced += 1,
        Reason::Early | Reason::Overflow => s.marks_early += 1,
    }
    s.marks = s.marks_early + s.marks_forced;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_on_knows_its_destinations_by_node() {
        let h = HandOn::new(vec![130, 0, 63, 64, 63]);
        let on: Vec<u32> = (0..200).filter(|&d| h.hands_on(d)).collect();
        assert_eq!(on, [0, 63, 64, 130]);
        assert!(!h.hands_on(u32::MAX));
        assert!(!HandOn::new(vec![]).hands_on(0));
    }
}
