//! Packets on their way into a link direction from the directions that feed it (cut-through,
//! `net/link.rs`): each with the time it reaches the direction's near node, taken in the order
//! the forwarding events would have run.
//!
//! A feeder hands its packets on in the order they reach the node. With several (flows merging
//! into a bottleneck) they are taken by time and, at equal times, in the order the engine gives
//! the events that would have forwarded them (`Event::order`): the queue downstream sees
//! exactly the offers, in exactly the order, that forwarding by events gives it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::link::Transit;
use super::ring::Ring;
use crate::engine::{time_of, Event};
use crate::time::SimTime;

/// A packet on its way in: when it reaches the node, and over which direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Item {
    at: SimTime,
    feeder: u32,
    t: Transit,
}

impl Item {
    /// Time, then the tie order of the event that would have forwarded it.
    fn key(&self) -> u128 {
        Event::Arrive(self.feeder).key(self.at)
    }
}

/// Packets in order of their keys: a run that arrives in order (nearly all of them — feeders
/// with equal delays hand packets on about in the order they reach the node) and a heap for
/// those that overtake the run's last one.
#[derive(Default)]
pub struct Inbound {
    run: Ring<Item>,
    late: Late,
}

/// The packets that overtook the run, by key, in a heap made at the first one: most
/// directions never see one, and a pointer takes 8 bytes of the direction against an empty
/// heap's 24 (`net/link.rs`).
// Boxed on purpose: the size in the direction, not the allocation, is what counts here.
#[allow(clippy::box_collection)]
#[derive(Default)]
struct Late(Option<Box<BinaryHeap<Overtaker>>>);

/// A packet in `Late`: its key, itself, and its feeder.
type Overtaker = Reverse<(u128, Transit, u32)>;

impl Late {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|h| h.is_empty())
    }

    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |h| h.len())
    }

    fn peek(&self) -> Option<&Overtaker> {
        self.0.as_ref()?.peek()
    }

    fn push(&mut self, x: Overtaker) {
        self.0.get_or_insert_default().push(x);
    }

    fn pop(&mut self) -> Option<Overtaker> {
        self.0.as_mut()?.pop()
    }
}

impl Inbound {
    /// Adds a packet reaching the node at `at` over direction `feeder`. Returns whether it is
    /// now the first to reach the node. Inlined into the express direction's push, which runs
    /// for nearly every packet at a merge (left to the compiler, it stops inlining it once a
    /// second caller exists: +3 % instructions on H).
    #[inline(always)]
    pub fn push(&mut self, at: SimTime, feeder: u32, t: Transit) -> bool {
        let item = Item { at, feeder, t };
        let in_order = match self.run.back() {
            None => true,
            Some(b) => b.at < at || (b.at == at && b.key() < item.key()),
        };
        if in_order {
            self.run.push_back(item);
            return self.run.len() == 1 && self.late.is_empty();
        }
        let key = item.key();
        let first = self.first_key().is_none_or(|k| key < k);
        self.late.push(Reverse((key, t, feeder)));
        first
    }

    fn first_key(&self) -> Option<u128> {
        let run = self.run.front().map(Item::key);
        let late = self.late.peek().map(|Reverse((k, _, _))| *k);
        match (run, late) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the first packet is the late heap's.
    #[inline]
    fn first_is_late(&self) -> bool {
        match (self.run.front(), self.late.peek()) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(r), Some(Reverse((k, _, _)))) => *k < r.key(),
        }
    }

    /// Prefetches the run's ends (`prefetch.rs`).
    #[inline(always)]
    pub fn prefetch(&self) {
        self.run.prefetch_ends();
    }

    /// The `i`-th packet of the in-order run (`i` = 0: its first): probably the `i`-th to be
    /// taken, unless one that overtook the run comes first. A hint for prefetching.
    #[inline(always)]
    pub fn ahead(&self, i: usize) -> Option<Transit> {
        self.run.get(i).map(|item| item.t)
    }

    /// The first packet to reach the node, and when.
    #[inline(always)]
    pub fn first(&self) -> Option<(SimTime, Transit)> {
        if self.late.is_empty() || !self.first_is_late() {
            self.run.front().map(|i| (i.at, i.t))
        } else {
            self.first_late()
        }
    }

    /// `first` where it is the late heap's (rare: a packet overtook the run).
    #[cold]
    fn first_late(&self) -> Option<(SimTime, Transit)> {
        self.late.peek().map(|Reverse((k, t, _))| (time_of(*k), *t))
    }

    /// Takes the first packet if it reaches the node by `upto` (before it, if `exclusive`).
    /// Inlined into the express direction's pull, where it runs for every packet taken in (as
    /// `push`).
    #[inline(always)]
    pub fn take_until(&mut self, upto: SimTime, exclusive: bool) -> Option<(SimTime, Transit)> {
        let due = |at: SimTime| at < upto || (!exclusive && at == upto);
        if self.late.is_empty() || !self.first_is_late() {
            let i = self.run.front()?;
            if !due(i.at) {
                return None;
            }
            return self.run.pop_front().map(|i| (i.at, i.t));
        }
        let Reverse((k, _, _)) = self.late.peek()?;
        if !due(time_of(*k)) {
            return None;
        }
        self.late.pop().map(|Reverse((k, t, _))| (time_of(k), t))
    }

    pub fn len(&self) -> usize {
        self.run.len() + self.late.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktId;

    fn tr(i: u32) -> Transit {
        Transit {
            pkt: PktId(i),
            size: 100,
            dst: 0,
        }
    }

    /// Two feeders whose forwarding events at time 5 run C before A.
    fn tied_feeders() -> (u32, u32) {
        let order = |f: u32| Event::Arrive(f).order(SimTime(5));
        let (x, y) = (1, 2);
        if order(x) < order(y) {
            (y, x)
        } else {
            (x, y)
        }
    }

    #[test]
    fn several_feeders_are_merged_by_time_then_tie_order() {
        let (a, c) = tied_feeders();
        let b = 3;
        let mut m = Inbound::default();
        // Feeder A hands on packets reaching the node at 5 and 9, B at 7, C at 5 (its event
        // runs before A's): taken as C 5, A 5, B 7, A 9.
        assert!(m.push(SimTime(5), a, tr(1)));
        assert!(!m.push(SimTime(9), a, tr(2)));
        assert!(!m.push(SimTime(7), b, tr(3)));
        assert!(m.push(SimTime(5), c, tr(4)));
        assert_eq!(m.len(), 4);
        assert_eq!(m.take_until(SimTime(5), true), None);
        let mut got = vec![];
        while let Some((at, t)) = m.take_until(SimTime(8), false) {
            got.push((at.0, t.pkt.0));
        }
        assert_eq!(got, [(5, 4), (5, 1), (7, 3)]);
        assert_eq!(m.first(), Some((SimTime(9), tr(2))));
        assert_eq!(m.take_until(SimTime(9), false), Some((SimTime(9), tr(2))));
        assert_eq!(m.len(), 0);
    }

    #[test]
    fn one_feeder_keeps_its_order() {
        let mut q = Inbound::default();
        assert!(q.push(SimTime(3), 0, tr(1)));
        assert!(!q.push(SimTime(4), 0, tr(2)));
        assert!(!q.push(SimTime(4), 0, tr(3)));
        assert_eq!(q.take_until(SimTime(4), true), Some((SimTime(3), tr(1))));
        assert_eq!(q.take_until(SimTime(4), true), None);
        assert_eq!(q.take_until(SimTime(4), false), Some((SimTime(4), tr(2))));
        assert_eq!(q.take_until(SimTime(4), false), Some((SimTime(4), tr(3))));
    }
}
