//! One direction of a point-to-point link: a queue discipline, a transmitter that serialises
//! one packet at a time at the link rate, a loss model applied as packets leave the
//! transmitter, and a propagation delay line.
//!
//! As in htsim, a link direction has at most one pending transmit-complete event and one
//! pending arrival event: the delay line is a FIFO (constant delay keeps it ordered) and only
//! its head is scheduled.

use std::collections::VecDeque;

use super::loss::LossModel;
use crate::packet::{Ecn, PacketArena, PktId};
use crate::queue::{Queue, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::rng::Rng;
use crate::time::{Rate, SimTime};

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
    len_integral_pkts: u128,
    len_integral_bytes: u128,
    last_change: SimTime,
}

/// What the simulation must do after a packet was offered to the link.
pub enum Offer {
    /// Dropped (the packet is already freed).
    Dropped,
    /// Queued behind others (or started on an idle transmitter).
    Queued { tx_done_at: Option<SimTime> },
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
    tx: Option<(PktId, SimTime)>,
    pipe: VecDeque<(SimTime, PktId)>,
    pub stats: LinkStats,
    dropped_scratch: Vec<(PktId, Reason)>,
    marked_scratch: Vec<Reason>,
    /// Time the most recently dequeued packet waited in the queue.
    pub last_sojourn: SimTime,
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
            stats: LinkStats::default(),
            dropped_scratch: Vec::new(),
            marked_scratch: Vec::new(),
            last_sojourn: SimTime::ZERO,
        }
    }

    fn account(&mut self, now: SimTime) {
        let dt = (now - self.stats.last_change).as_nanos() as u128;
        self.stats.len_integral_pkts += dt * self.queue.len_packets() as u128;
        self.stats.len_integral_bytes += dt * self.queue.len_bytes() as u128;
        self.stats.last_change = now;
    }

    pub fn len_packets(&self) -> u32 {
        self.queue.len_packets()
    }
    pub fn len_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }
    /// The discipline's average queue in packets, if it keeps one (RED).
    pub fn avg_queue(&self) -> Option<f64> {
        self.queue.avg_queue()
    }
    /// Packets held by this direction: queued, on the transmitter and propagating.
    pub fn packets_held(&self) -> u64 {
        self.queue.len_packets() as u64 + self.tx.is_some() as u64 + self.pipe.len() as u64
    }

    /// Offers a packet to the queue. Dropped packets are freed and reported in `drops`.
    pub fn offer(
        &mut self,
        pkt: PktId,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
    ) -> Offer {
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
                return Offer::Dropped;
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
        let tx_done_at = if self.tx.is_none() {
            self.start_next(arena, now, drops)
        } else {
            None
        };
        Offer::Queued { tx_done_at }
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
    fn collect(&mut self, drops: &mut Vec<PktId>) {
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

    /// Starts serialising the next packet, if any; returns when it will be done.
    fn start_next(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
    ) -> Option<SimTime> {
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
        let p = next?;
        let size = arena.get(p).size;
        self.last_sojourn = now - arena.get(p).enqueued;
        let done = now + self.rate.tx_time(size);
        self.tx = Some((p, now));
        Some(done)
    }

    /// The transmitter finished its packet. Returns the arrival time to schedule if the delay
    /// line was empty, and when the next transmission (if any) completes.
    pub fn tx_done(
        &mut self,
        arena: &mut PacketArena,
        now: SimTime,
        drops: &mut Vec<PktId>,
    ) -> (Option<SimTime>, Option<SimTime>) {
        let (p, started) = self
            .tx
            .take()
            .expect("tx_done without a packet on the transmitter");
        let size = arena.get(p).size;
        self.stats.busy += now - started;
        self.stats.departures += 1;
        self.stats.bytes_departed += size as u64;
        let mut arrive = None;
        if self.loss.lose(now, &mut self.rng) {
            self.stats.drops_loss += 1;
            drops.push(p);
        } else {
            let at = now + self.delay;
            if self.pipe.is_empty() {
                arrive = Some(at);
            }
            self.pipe.push_back((at, p));
        }
        let next = self.start_next(arena, now, drops);
        (arrive, next)
    }

    /// The head of the delay line arrives; returns it and the next arrival time to schedule.
    pub fn arrive(&mut self) -> (PktId, Option<SimTime>) {
        let (_, p) = self
            .pipe
            .pop_front()
            .expect("arrival with an empty delay line");
        (p, self.pipe.front().map(|&(t, _)| t))
    }

    /// Time-averaged queue length (packets, bytes) over `[0, now]`.
    pub fn averages(&mut self, now: SimTime) -> (f64, f64) {
        self.account(now);
        let t = now.as_nanos().max(1) as f64;
        (
            self.stats.len_integral_pkts as f64 / t,
            self.stats.len_integral_bytes as f64 / t,
        )
    }

    /// Busy time including the packet on the transmitter now.
    pub fn busy_until(&self, now: SimTime) -> SimTime {
        self.stats.busy + self.tx.map(|(_, s)| now - s).unwrap_or(SimTime::ZERO)
    }
}
