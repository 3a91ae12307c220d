//! Delivering a packet to its receiver as it is handed to the last hop, before the simulation's
//! clock gets there.
//!
//! A direct direction (`net/link.rs`, `Fed::Direct`) knows, as a packet is handed to it, when
//! the packet will reach the far node. Where that node is one TCP receiver's host and nothing
//! else — a dumbbell's receiver behind its access link — the receiver's handling of the packet
//! can be done there and then, for that time, instead of by an arrival event: the event costs
//! more than the handling (a quarter of scenario H's work per data packet).
//!
//! Doing it early gives the same results because nothing sees the receiver, or what it sends,
//! before the packet's time:
//!
//! - the receiver changes only on its own packets, which reach it over this one direction in
//!   the order they are handed on, and on its delayed-ACK timer, which is fired first where
//!   its event would have come first (`catch_up_delack`: by time, then by the event queue's
//!   order of equal times);
//! - its ACKs leave over a direction that carries nothing else (the host has no other
//!   endpoint and no path crosses it), so they are offered to it in time order, and every
//!   later step is stamped with its own time, not with when it was taken (that direction is
//!   kept to a plain DropTail line: a lossy or RED one would see its offers in time order too,
//!   but what its draws and averages do with offers ahead of the clock is not checked here);
//! - nothing reads a receiver during the run: not throughput bins (which read its delivered
//!   bytes; none is made delivering where they are recorded), not samples (senders and queues
//!   only, and no direction is direct where queues are sampled); the results are read at the
//!   end, and only packets that arrive by then are delivered early.
//!
//! `tests/express_path.rs` runs scenarios with and without it and requires the same results.

use crate::engine::Event;
use crate::net::link::Fed;
use crate::packet::PktId;
use crate::scenario::schema::SeriesName;
use crate::sim::{FlowSlot, Simulation, ORIGIN};
use crate::time::SimTime;

impl Simulation {
    /// Makes delivering (`Fed::Delivering`) each direct direction that is the last hop of all
    /// its packets, into a host whose one endpoint is a TCP flow's receiver, which no path
    /// crosses, and whose ACKs leave over a plain express direction. Call from
    /// `set_cut_through`, after the direct directions are planned; none is planned where
    /// throughput is binned.
    pub(crate) fn plan_delivering(&mut self) {
        if self.rec.wants(SeriesName::Throughput) {
            return;
        }
        let nodes = self.routes.nodes();
        // Endpoints per host: the flow, or `MANY` where more than one (or a sender) is there.
        const NONE: u32 = u32::MAX;
        const MANY: u32 = u32::MAX - 1;
        let mut receiver = vec![NONE; nodes];
        for (i, (f, info)) in self.flows.iter().zip(&self.info).enumerate() {
            let tcp = matches!(f, FlowSlot::Tcp(_));
            let r = &mut receiver[info.dst as usize];
            *r = if *r == NONE && tcp { i as u32 } else { MANY };
            receiver[info.src as usize] = MANY;
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
                let flow = receiver[node];
                if link.fed != Fed::Direct || link.feeds || beyond || flow >= MANY || crossed[node]
                {
                    return false;
                }
                let reply = self.routes.next_hop(link.to, self.info[flow as usize].src);
                self.links[reply as usize].can_carry_early_replies()
            })
            .map(|(d, _)| d)
            .collect();
        for d in delivering {
            self.links[d].set_delivering();
        }
    }

    /// Delivers packet `p`, which reaches its receiver over delivering direction `d` at `at`
    /// (not before now), as its arrival event would have then (module notes).
    #[inline(never)]
    pub(crate) fn deliver_early(&mut self, d: u32, p: PktId, at: SimTime) {
        let now = self.now;
        let i = self.arena.get(p).flow as usize;
        self.catch_up_delack(i, d, at);
        self.now = at;
        self.deliver(p);
        self.now = now;
    }

    /// Fires flow `i`'s delayed-ACK timer if it expires before a packet that reaches the
    /// receiver over direction `d` at `at`: before `at`, or at `at` where the event queue would
    /// have taken the timer's event first. Its own event, still pending, then finds it stopped
    /// or moved (`LazyTimer::fired`).
    fn catch_up_delack(&mut self, i: usize, d: u32, at: SimTime) {
        let FlowSlot::Tcp(c) = &self.flows[i] else {
            return;
        };
        let Some(due) = c.receiver.delack_timer.deadline() else {
            return;
        };
        let first = due < at
            || (due == at && Event::DelAck(i as u32).order(due) < Event::Arrive(d).order(at));
        if !first {
            return;
        }
        let now = self.now;
        self.now = due;
        self.with_flow(i, |slot, io| {
            if let FlowSlot::Tcp(c) = slot {
                c.receiver.on_delack_timer(io);
            }
        });
        self.flush(self.info[i].dst);
        self.arm_timers(i);
        self.now = now;
    }
}
