//! The express path of a DropTail link direction: queue, transmitter and delay line as one
//! FIFO of packets with their timetable.
//!
//! A DropTail queue serves packets in arrival order at the link rate, so a packet's whole
//! journey is known when it is accepted: it starts when the transmitter frees up
//! (`max(now, busy_until)`), is on the wire for its serialisation time, and arrives one
//! propagation delay later. The link then needs no dequeue at all: two frontiers walk the line
//! as time passes — *started* (the packet left the queue for the transmitter) and *sent* (it
//! left the transmitter; the loss model is applied then, in FIFO order and at that time, as on
//! the general path) — and the head of the line is the next arrival. Results are identical to
//! the general path (`net/link.rs`, checked by `tests/express_path.rs`); a hop costs a handful
//! of integer operations instead of a queue discipline's enqueue and dequeue.

use std::collections::VecDeque;

use super::link::LinkStats;
use super::loss::LossModel;
use crate::packet::PktId;
use crate::queue::DropTail;
use crate::rng::Rng;
use crate::time::SimTime;

/// A packet on the line and its timetable.
#[derive(Clone, Copy, Debug)]
struct Slot {
    pkt: PktId,
    size: u32,
    lost: bool,
    enqueued: SimTime,
    start: SimTime,
    done: SimTime,
}

pub struct FifoLine {
    limits: DropTail,
    line: VecDeque<Slot>,
    /// Slots before this index have started transmission (as of the last `advance`).
    started: usize,
    /// Slots before this index have left the transmitter (`started` ≥ `sent`).
    sent: usize,
    waiting_bytes: u64,
    /// Slots still on the line whose packet was lost on the wire (already freed).
    lost: usize,
    busy_until: SimTime,
    /// Queueing time of the packet that started last.
    pub last_sojourn: SimTime,
}

impl FifoLine {
    pub fn new(limits: DropTail) -> FifoLine {
        FifoLine {
            limits,
            line: VecDeque::new(),
            started: 0,
            sent: 0,
            waiting_bytes: 0,
            lost: 0,
            busy_until: SimTime::ZERO,
            last_sojourn: SimTime::ZERO,
        }
    }

    pub fn len_packets(&self) -> u32 {
        (self.line.len() - self.started) as u32
    }

    pub fn len_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Packets queued, on the transmitter or propagating (not the lost ones: already freed).
    pub fn packets_held(&self) -> u64 {
        (self.line.len() - self.lost) as u64
    }

    /// Moves both frontiers up to `now`, in time order. Waiting time goes into the queue-length
    /// integrals when a packet starts (Little's law: ∫ queue dt = Σ waiting times); losses are
    /// drawn and counted when a packet leaves the transmitter, and the lost ones go to `drops`.
    #[inline(always)]
    pub fn advance(
        &mut self,
        now: SimTime,
        stats: &mut LinkStats,
        loss: &mut LossModel,
        rng: &mut Rng,
        drops: &mut Vec<PktId>,
    ) {
        if self.started < self.line.len() && self.line[self.started].start <= now {
            self.advance_started(now, stats);
        }
        if self.sent < self.started && self.line[self.sent].done <= now {
            self.advance_sent(now, stats, loss, rng, drops);
        }
    }

    fn advance_started(&mut self, now: SimTime, stats: &mut LinkStats) {
        while self.started < self.line.len() && self.line[self.started].start <= now {
            let s = self.line[self.started];
            let wait = (s.start - s.enqueued).as_nanos() as u128;
            stats.len_integral_pkts += wait;
            stats.len_integral_bytes += wait * s.size as u128;
            self.waiting_bytes -= s.size as u64;
            self.last_sojourn = s.start - s.enqueued;
            self.started += 1;
        }
    }

    fn advance_sent(
        &mut self,
        now: SimTime,
        stats: &mut LinkStats,
        loss: &mut LossModel,
        rng: &mut Rng,
        drops: &mut Vec<PktId>,
    ) {
        while self.sent < self.started && self.line[self.sent].done <= now {
            let s = &mut self.line[self.sent];
            stats.busy += s.done - s.start;
            stats.departures += 1;
            stats.bytes_departed += s.size as u64;
            if !matches!(loss, LossModel::None) && loss.lose(s.done, rng) {
                s.lost = true;
                stats.drops_loss += 1;
                drops.push(s.pkt);
                self.lost += 1;
            }
            self.sent += 1;
        }
    }

    /// Offers a packet of `size` bytes that takes `tx` to serialise; returns false if it does
    /// not fit (the caller counts and frees it). Call after `advance(now)`.
    #[inline]
    pub fn offer(&mut self, pkt: PktId, size: u32, tx: SimTime, now: SimTime) -> bool {
        if !self
            .limits
            .admits(self.len_packets(), self.waiting_bytes, size)
        {
            return false;
        }
        let start = now.max(self.busy_until);
        let done = start + tx;
        self.busy_until = done;
        self.waiting_bytes += size as u64;
        self.line.push_back(Slot {
            pkt,
            size,
            lost: false,
            enqueued: now,
            start,
            done,
        });
        true
    }

    /// Starts the packet just offered if the transmitter is idle (what `advance(now)` would
    /// do, without its loops: every earlier packet has started already).
    #[inline]
    pub fn start_if_idle(&mut self, now: SimTime) {
        if let Some(s) = self.line.back() {
            if s.start <= now && self.started + 1 == self.line.len() {
                self.waiting_bytes -= s.size as u64;
                self.last_sojourn = SimTime::ZERO;
                self.started += 1;
            }
        }
    }

    /// When the first packet still to arrive gets there (`delay` after it leaves the
    /// transmitter). Lost packets at the head of the line leave it first: like the general
    /// path, which never puts them in its delay line, no arrival is scheduled for them once
    /// their loss is known.
    #[inline]
    pub fn next_arrival(&mut self, delay: SimTime) -> Option<SimTime> {
        while self.lost > 0 && self.line.front().is_some_and(|s| s.lost) {
            self.line.pop_front();
            self.started -= 1;
            self.sent -= 1;
            self.lost -= 1;
        }
        self.line.front().map(|s| s.done + delay)
    }

    /// Takes the packets due at the far node by `now`; returns the one that arrives (lost
    /// ones are dropped from the line on the way). Call after `advance(now)`.
    #[inline]
    pub fn arrive(&mut self, now: SimTime, delay: SimTime) -> Option<PktId> {
        while let Some(s) = self.line.front() {
            if s.done + delay > now {
                return None;
            }
            let s = self.line.pop_front().expect("front exists");
            self.started -= 1;
            self.sent -= 1;
            if s.lost {
                self.lost -= 1;
            } else {
                return Some(s.pkt);
            }
        }
        None
    }

    /// Busy time still to come beyond `now` of the packet on the transmitter (for busy-time
    /// reports between events).
    pub fn on_wire_since(&self, now: SimTime) -> Option<SimTime> {
        let s = self.line.get(self.sent)?;
        (self.sent < self.started && s.start <= now).then_some(s.start)
    }

    /// Waiting time of the packets still queued at `now`, for the queue-length integrals.
    pub fn waiting_integrals(&self, now: SimTime) -> (u128, u128) {
        self.line
            .range(self.started..)
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

    #[test]
    fn timetable_frontiers_and_waiting_integral() {
        // Three 1000-byte packets at t = 0 on an 8 ms-per-packet link, 10 ms delay.
        let mut f = FifoLine::new(DropTail::packets(2));
        let (mut stats, mut loss) = (LinkStats::default(), LossModel::None);
        let mut rng = Rng::derive(1, "t");
        let mut drops = vec![];
        for i in 0..4 {
            f.advance(ms(0), &mut stats, &mut loss, &mut rng, &mut drops);
            let ok = f.offer(PktId(i), 1000, ms(8), ms(0));
            f.advance(ms(0), &mut stats, &mut loss, &mut rng, &mut drops);
            // The first starts at once; two wait; the fourth finds the queue (2) full.
            assert_eq!(ok, i < 3, "packet {i}");
        }
        assert_eq!((f.len_packets(), f.len_bytes()), (2, 2000));
        assert_eq!(f.next_arrival(ms(10)), Some(ms(18)));
        // At 20 ms: the first has arrived (18), the second is on the wire (8–16 → sent), the
        // third started at 16.
        f.advance(ms(20), &mut stats, &mut loss, &mut rng, &mut drops);
        assert_eq!(f.arrive(ms(20), ms(10)), Some(PktId(0)));
        assert_eq!(f.arrive(ms(20), ms(10)), None);
        assert_eq!((f.len_packets(), stats.departures), (0, 2));
        assert_eq!(f.last_sojourn, ms(16));
        // Waiting: 8 ms for the second, 16 ms for the third.
        assert_eq!(stats.len_integral_pkts, ms(24).as_nanos() as u128);
        assert_eq!(f.on_wire_since(ms(20)), Some(ms(16)));
        assert_eq!(f.packets_held(), 2);
    }
}
