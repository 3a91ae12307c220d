//! Handing a packet to its endpoint as it is handed to the last hop, before the simulation's
//! clock gets there.
//!
//! A direct direction (`net/link.rs`, `Fed::Direct`) knows, as a packet is handed to it, when
//! the packet will reach the far node. Where that node is one endpoint's host and nothing else
//! — a dumbbell's TCP receiver or sender, or UDP sink, behind its access link — the endpoint's
//! handling of the packet can be done there and then, for that time, instead of by an arrival
//! event: the event costs more than the handling (docs/performance.md, 0.4.7).
//!
//! Doing it early gives the same results because nothing sees the endpoint, or what it sends,
//! before the packet's time:
//!
//! - the endpoint changes only on its own packets, which reach it over this one direction in
//!   the order they are handed on, and on its timers and its flow's stop, each of which is
//!   taken first where its event would have come first (`catch_up`: by time, then by the event
//!   queue's order of equal times); a UDP sink has no timers, and only counts what it receives,
//!   in counters of its flow that the source's own events (which move the rest) never read;
//! - what it sends leaves over a direction that carries nothing else (the host has no other
//!   endpoint and no path crosses it), so it is offered there in time order, and every later
//!   step is stamped with its own time, not with when it was taken (that direction is kept to
//!   a plain DropTail line: a lossy or RED one would see its offers in time order too, but what
//!   its draws and averages do with offers ahead of the clock is not checked here);
//! - nothing reads an endpoint during the run: not throughput bins (which read a receiver's
//!   delivered bytes; no receiver's direction delivers where they are recorded), not samples
//!   or traces of a sender's state (no sender's direction delivers where any is recorded), not
//!   queue samples (no direction is direct where queues are sampled); the results are read at
//!   the end, and only packets that arrive by then are handed over early.
//!
//! One early hand-over may lead to another only through relays (a one-flow path, where a
//! sender's packet runs straight to its receiver and the receiver's ACK straight back). Such a
//! packet is not taken there and then, inside the other endpoint's handling, where that
//! endpoint may still be sending what it sent before (its earlier packets not yet on their
//! line): it waits in `deferred`, and so does every later hand-over until the queue is empty.
//! Between events, where no endpoint is sending, `take_deferred` hands them over in the order
//! they came, each endpoint's in the order its one direction brought them; those that this
//! hands over in turn join the queue. The call depth stays one, and a one-flow path takes no
//! event per round trip (docs/performance-history.md, 0.6.1). The
//! queue stops at the first packet due after the current step of `run_until`, so that a step
//! still returns on time (the Python runner's progress and Ctrl-C); the next step goes on
//! from there, before its first event.
//!
//! `tests/early_delivery.rs` runs scenarios with and without it and requires the same results.

use crate::config::SeriesSource;
use crate::engine::{time_of, Event};
use crate::net::link::Fed;
use crate::packet::{Kind, PktId};
use crate::sim::{FlowSlot, Simulation, ORIGIN};
use crate::tcp::timer::{LazyTimer, TimerName, Timers};
use crate::time::{OptTime, SimTime};

/// A packet handed to its endpoint early (`deliver_early`), or waiting to be (`deferred`):
/// the direction it came over, the packet, its time of arrival, and its flow and kind, read
/// once as it is handed over, while the packet is in the cache (by the time it is taken from
/// the queue, it may have left).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Handover {
    d: u32,
    p: PktId,
    at: SimTime,
    flow: u32,
    kind: Kind,
}

impl Simulation {
    /// Makes delivering (`Fed::Delivering`) each direct direction that is the last hop of all
    /// its packets, into a host whose one endpoint is a TCP flow's receiver or sender, or a
    /// UDP flow's sink, which no path crosses, and whose packets (a TCP endpoint's) leave over
    /// a plain express direction that nothing feeds. A receiver's or sink's only where
    /// throughput is not binned, a sender's only where no sender state is traced or sampled.
    /// Call from `set_cut_through`, after the direct directions are planned.
    ///
    /// A UDP sink only counts what it receives: it has no timers and sends nothing, so it
    /// meets the module notes' conditions as a TCP receiver does. Its source, driven by its
    /// own events, takes no packets early (its host counts as taken).
    pub(crate) fn plan_delivering(&mut self) {
        let receivers = !self.rec.wants_any(SeriesSource::Receiver);
        let senders = !self.rec.wants_any(SeriesSource::Sender);
        let nodes = self.routes.nodes();
        // Per host: its one endpoint (flow, and the node at the flow's other end), `NONE`, or
        // `MANY` where more than one (or one that may not deliver) is there.
        const NONE: (u32, u32) = (u32::MAX, 0);
        const MANY: (u32, u32) = (u32::MAX - 1, 0);
        let mut endpoint = vec![NONE; nodes];
        for (i, (f, info)) in self.flows.iter().zip(&self.info).enumerate() {
            let tcp = matches!(f, FlowSlot::Tcp(_));
            for (node, other, may) in [
                (info.dst, info.src, receivers),
                (info.src, info.dst, senders && tcp),
            ] {
                let e = &mut endpoint[node as usize];
                *e = if *e == NONE && may {
                    (i as u32, other)
                } else {
                    MANY
                };
            }
        }
        // Hosts a path crosses, and directions that carry packets beyond their far node.
        let mut crossed = vec![false; nodes];
        let mut beyond = vec![false; self.links.len()];
        self.walk_paths(|_, prev, l, dst| {
            let link = &self.links[l as usize];
            if prev != ORIGIN {
                crossed[link.from as usize] = true;
            }
            if dst != link.to {
                beyond[l as usize] = true;
            }
        });
        let delivering: Vec<usize> = (self.links.iter().zip(&beyond).enumerate())
            .filter(|&(_, (link, &beyond))| {
                let node = link.to as usize;
                let (flow, other) = endpoint[node];
                if link.fed != Fed::Direct
                    || link.feeds
                    || beyond
                    || flow >= MANY.0
                    || crossed[node]
                {
                    return false;
                }
                // A sink sends nothing; a TCP endpoint's replies must leave alone.
                if matches!(self.flows[flow as usize], FlowSlot::Udp(_)) {
                    return true;
                }
                let out = self.routes.next_hop(link.to, other);
                self.links[out as usize].can_carry_early_replies()
            })
            .map(|(d, _)| d)
            .collect();
        for d in delivering {
            self.links[d].set_delivering();
        }
    }

    /// Hands packet `p`, which reaches its endpoint over delivering direction `d` at `at` (not
    /// before now), to the endpoint, as its arrival event would have then (module notes).
    /// One handed over while an endpoint is taking another, or while others wait, waits in
    /// `deferred` for the event's end (`take_deferred`; module notes).
    #[inline(never)]
    pub(crate) fn deliver_early(&mut self, d: u32, p: PktId, at: SimTime) {
        let pkt = self.arena.get(p);
        let h = Handover {
            d,
            p,
            at,
            flow: pkt.flow,
            kind: pkt.kind,
        };
        if self.early || !self.deferred.is_empty() {
            self.deferred.push_back(h);
            return;
        }
        self.take_early(h);
    }

    #[inline(always)]
    fn take_early(&mut self, h: Handover) {
        let now = self.now;
        let i = h.flow as usize;
        self.early = true;
        self.catch_up(i, h.kind == Kind::TcpAck, Event::Arrive(h.d), h.at);
        self.now = h.at;
        self.deliver_of(h.p, i, h.kind);
        self.now = now;
        self.early = false;
    }

    /// Hands the deferred packets to their endpoints, in the order they were handed over,
    /// and those that handing them over defers in turn, up to the first that arrives after
    /// the current step of the run. Call between events, where no endpoint is sending.
    #[inline(never)]
    pub(crate) fn take_deferred(&mut self) {
        while let Some(&h) = self.deferred.front() {
            if h.at > self.step_end {
                return;
            }
            self.deferred.pop_front();
            self.take_early(h);
        }
    }

    /// Takes, in the event queue's order, what flow `i`'s endpoint (its sender if `to_sender`,
    /// else its receiver) would have taken by its events before event `ev` at `at`: each of
    /// its timers (`TimerName::SENDER` or `RECEIVER`), as often as they expire, and, for a sender, the flow's
    /// stop. Their own events, still pending, then find the timer
    /// stopped or moved (`LazyTimer::fired`) or the flow stopped already.
    #[inline(always)]
    fn catch_up(&mut self, i: usize, to_sender: bool, ev: Event, at: SimTime) {
        // Usually the timer and the stop lie beyond `at`, which the times alone tell; the
        // keys, which order events within an instant, are needed only where one might not
        // (out of line, so that a hand-over that needs none does not compute them).
        if self.due_by(i, to_sender, at).is_some() {
            self.catch_up_due(i, to_sender, ev, at);
        }
    }

    /// The endpoint's earliest timer (its name and deadline) and its flow's stop, if either
    /// is not after `at`.
    #[inline(always)]
    fn due_by(
        &self,
        i: usize,
        to_sender: bool,
        at: SimTime,
    ) -> Option<(Option<(TimerName, SimTime)>, OptTime)> {
        let FlowSlot::Tcp(c) = &self.flows[i] else {
            return None;
        };
        // The earliest by time; at equal times the first in `TimerName`'s order, which is
        // their events' order (each name is a kind of its own), with no key to compute. The
        // names are constants, so that each endpoint's timers are reached directly.
        let mut timer: Option<(TimerName, SimTime)> = None;
        let mut earliest = |n: TimerName, lazy: &LazyTimer| {
            if let Some(t) = lazy.deadline() {
                if timer.is_none_or(|(_, u)| t < u) {
                    timer = Some((n, t));
                }
            }
        };
        if to_sender {
            for n in TimerName::SENDER {
                earliest(n, c.sender.timer(n));
            }
        } else {
            for n in TimerName::RECEIVER {
                earliest(n, c.receiver.timer(n));
            }
        }
        // Only a sender stops (and a receiver's flow info may not be in the cache).
        let stop = if to_sender {
            self.info[i].stop.get()
        } else {
            None
        };
        let due = |t: Option<SimTime>| t.is_some_and(|t| t <= at);
        (due(timer.map(|(_, t)| t)) || due(stop)).then_some((timer, OptTime::of(stop)))
    }

    /// `catch_up` where a timer or the stop is due by `at`: by their events' keys.
    #[inline(never)]
    fn catch_up_due(&mut self, i: usize, to_sender: bool, ev: Event, at: SimTime) {
        let mut stopped = false;
        while let Some((timer, stop)) = self.due_by(i, to_sender, at) {
            let timer_key = timer.map(|(n, t)| (Event::Timer(n, i as u32).key(t), n));
            let stop = stop.get().filter(|_| !stopped);
            let stop_key = stop.map(|t| Event::Stop(i as u32).key(t));
            let Some(first) = timer_key.map(|(k, _)| k).into_iter().chain(stop_key).min() else {
                return;
            };
            if first >= ev.key(at) {
                return;
            }
            let now = self.now;
            self.now = time_of(first);
            match timer_key {
                Some((k, name)) if k == first => self.expire(i, name),
                _ => {
                    stopped = true;
                    if let FlowSlot::Tcp(c) = &mut self.flows[i] {
                        c.sender.stop();
                    }
                }
            }
            self.now = now;
        }
    }
}
