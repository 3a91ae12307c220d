//! Planning before the run, from the flows' paths: which link directions cut through
//! (take their packets from the directions that feed them without an event at the node
//! between, `net/link.rs`), and how far ahead the run's events reach (the event wheel's span).

use crate::config::{Engine, SeriesSource};
use crate::engine::EventQueue;
use crate::net::routing::NO_ROUTE;
use crate::sim::prefetching::prefetch_from;
use crate::sim::{FlowSlot, Simulation, ORIGIN};
use crate::time::SimTime;
use crate::util::packed_option::Opt;

/// Where one end of a flow sends (`Simulation::first_hop`): the first direction of its path,
/// the fed direction that one hands the packets on to (cut-through, `Simulation::fed_next`),
/// if any, and the one that one hands them on to in turn, if any (a relay's,
/// `Simulation::hand_to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FirstHop {
    pub link: u32,
    pub fed: Opt<u32>,
    pub then: Opt<u32>,
}

impl Simulation {
    /// Chooses how packets move, in one place (`docs/architecture.md`, "Routes"). The
    /// reference route moves every packet by its own events through the general path of every
    /// direction; the fast route takes, where the rules of each allow:
    /// - the express path of DropTail and RED directions (`net/express/mod.rs`), except where queue
    ///   changes are recorded as they happen, which needs the general path's dequeue steps;
    /// - cut-through between directions, and early hand-over to endpoints (`set_cut_through`,
    ///   `plan_delivering`), which traced series limit;
    /// - prefetching, where the state outgrows the cache (`sim/prefetching.rs`; changes no result).
    ///
    /// Call once, before the run; it also sizes the event queue, whose span depends on the
    /// queues' limits as the chosen paths report them.
    pub(crate) fn choose_routes(&mut self, engine: Engine) {
        let fast = engine == Engine::Fast;
        for l in &mut self.links {
            if fast && !self.watch_queues {
                l.use_express();
            } else {
                l.use_general();
            }
        }
        self.events = EventQueue::with_horizon(self.longest_round_trip());
        self.set_cut_through(fast);
        self.prefetch_from = if fast {
            prefetch_from(self)
        } else {
            usize::MAX
        };
        self.set_prefetching(self.prefetch_from == 0);
    }

    /// Plans cut-through (`net/link.rs`), or with `on` false ends it; call before the run.
    /// A direction is fed if, over the paths of every flow's packets (data and, for TCP,
    /// ACKs), every packet that enters it came over another direction with a propagation delay
    /// of at least a nanosecond (so that a packet handed on always reaches the node after the
    /// feeder knew of it): none starts at its near node. Either path feeds and is fed: an
    /// express feeder hands a packet on as it takes it, a general one as the packet leaves
    /// (`net/general_path.rs`). Queue changes traced as they happen (every direction general) are
    /// recorded at the same times with the same values direction by direction; only the order
    /// in which different directions' records interleave in a series may differ. A fed
    /// direction with one feeder takes packets straight onto its line where it can
    /// (`Fed::Direct`).
    pub fn set_cut_through(&mut self, on: bool) {
        for l in &mut self.links {
            l.clear_cut_through();
        }
        if on {
            self.plan_cut_through();
        }
        self.plan_first_hops();
    }

    fn plan_cut_through(&mut self) {
        let mut edges = Vec::new();
        self.walk_paths(|_, prev, l, _| edges.push((l, prev)));
        edges.sort_unstable();
        edges.dedup();
        for group in edges.chunk_by(|a, b| a.0 == b.0) {
            let d = group[0].0 as usize;
            let feeder = |&(_, u): &(u32, u32)| {
                u != ORIGIN && {
                    let u = &self.links[u as usize];
                    u.delay >= SimTime(1)
                }
            };
            if !group.iter().all(feeder) {
                continue;
            }
            self.links[d].set_fed();
            for &(_, u) in group {
                let u = &mut self.links[u as usize];
                u.feeds = u.is_express();
            }
        }
        // A fed direction with one feeder takes its packets straight onto its line, unless
        // queues are sampled: a sample reads a line before packets offered ahead reach it
        // (`LinkDir::hand_in`).
        let sampled = self.rec.interval.is_some() && self.rec.wants_any(SeriesSource::Queue);
        if !sampled {
            for group in edges.chunk_by(|a, b| a.0 == b.0) {
                let d = &mut self.links[group[0].0 as usize];
                if group.len() == 1 && d.can_take_direct() {
                    d.set_direct();
                }
            }
            self.plan_delivering();
        }
        // A general-path feeder hands on the packets of every destination whose next
        // direction is fed (`net/general_path.rs`).
        let mut hands = Vec::new();
        self.walk_paths(|_, prev, l, dst| {
            if prev != ORIGIN
                && self.links[l as usize].is_fed()
                && !self.links[prev as usize].is_express()
            {
                hands.push((prev, dst));
            }
        });
        hands.sort_unstable();
        hands.dedup();
        for group in hands.chunk_by(|a, b| a.0 == b.0) {
            let dsts = group.iter().map(|&(_, dst)| dst).collect();
            self.links[group[0].0 as usize].set_hand_on(dsts);
        }
    }

    /// Where each end of each flow sends (`Simulation::first_hops`); call after the directions
    /// that feed and are fed are planned. The receiver of a one-way flow sends nothing.
    fn plan_first_hops(&mut self) {
        self.first_hops = (self.info.iter())
            .map(|f| [self.first_hop(f.src, f.dst), self.first_hop(f.dst, f.src)])
            .collect();
    }

    /// Where packets from node `from` to node `to` go, by routing (`FirstHop`).
    pub(crate) fn first_hop(&self, from: u32, to: u32) -> FirstHop {
        let link = self.routes.next_hop(from, to);
        if link == NO_ROUTE {
            return FirstHop {
                link,
                fed: Opt::NONE,
                then: Opt::NONE,
            };
        }
        let fed = self.fed_next(link, to);
        FirstHop {
            link,
            fed: Opt::of(fed),
            then: Opt::of(fed.and_then(|d| self.fed_next(d, to))),
        }
    }

    /// Calls `visit(flow, previous, link, destination)` for every link direction on the paths
    /// of every flow's packets (data and, for TCP, ACKs), in path order; `previous` is the
    /// direction the packet came over, or `ORIGIN` at the first hop.
    pub(crate) fn walk_paths(&self, mut visit: impl FnMut(usize, u32, u32, u32)) {
        for (i, (f, info)) in self.flows.iter().zip(&self.info).enumerate() {
            let back = matches!(f, FlowSlot::Tcp(_)).then_some((info.dst, info.src));
            for (src, dst) in std::iter::once((info.src, info.dst)).chain(back) {
                let (mut node, mut prev) = (src, ORIGIN);
                while node != dst {
                    let l = self.routes.next_hop(node, dst);
                    debug_assert_ne!(l, NO_ROUTE);
                    visit(i, prev, l, dst);
                    prev = l;
                    node = self.links[l as usize].to;
                }
            }
        }
    }

    /// The longest round trip of any flow, each link counted with its delay, a 1500-byte
    /// packet's serialisation and, for a DropTail queue, a full queue of them: how far ahead
    /// the events of a run are scheduled, which sizes the event wheel (`engine/`).
    pub(crate) fn longest_round_trip(&self) -> SimTime {
        // Nanoseconds, saturating: a slow link with a long queue can exceed u64 on paper.
        let mut rtt = vec![0u64; self.flows.len()];
        self.walk_paths(|i, _, l, _| {
            let link = &self.links[l as usize];
            let tx = link.rate.tx_time(1500).as_nanos();
            let queue = link.queue_limit_packets().min(100_000) as u64;
            let hop = tx
                .saturating_mul(1 + queue)
                .saturating_add(link.delay.as_nanos());
            rtt[i] = rtt[i].saturating_add(hop);
        });
        SimTime(rtt.into_iter().max().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    /// Per-flow state that the memory goal counts (docs/performance.md, Memory): the first
    /// hops cost 24 bytes a flow, paid for by the labels leaving `FlowInfo` (72 → 32).
    #[test]
    fn first_hops_and_flow_info_stay_small() {
        assert_eq!(size_of::<[super::FirstHop; 2]>(), 24);
        assert_eq!(size_of::<crate::sim::FlowInfo>(), 32);
    }
}
