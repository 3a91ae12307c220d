//! Packets on their way into a link direction from the directions that feed it (cut-through,
//! `net/link.rs`): each with the time it reaches the direction's near node, taken in the order
//! the forwarding events would have run.
//!
//! A feeder hands its packets on in the order they reach the node. With several (flows merging
//! into a bottleneck) they are taken by time and, at equal times, in the order the engine gives
//! the events that would have forwarded them (`Event::order`): the queue downstream sees
//! exactly the offers, in exactly the order, that forwarding by events gives it.
//!
//! Each packet carries the direction it is handed on to after this one (`then`), found as it
//! is pushed: the route is fixed before the run, and the feeder that sends it from an endpoint
//! already knows it (`plan.rs`, `FirstHop`), so taking a packet in looks up no route, nor does
//! prefetching for the packets that come next (`ahead.rs`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::link::Transit;
use super::ring::Ring;
use crate::engine::Event;
use crate::opt::Opt;
use crate::time::SimTime;

/// A packet on its way in: when it reaches the node, over which direction, and the direction
/// it is handed on to after this one, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Item {
    at: SimTime,
    feeder: u32,
    then: Opt<u32>,
    t: Transit,
}

/// A packet taken in: when it reached the node, itself, and the direction it is handed on to
/// next, if any.
pub type Taken = (SimTime, Transit, Opt<u32>);

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

/// A packet in `Late`, with its key (unique: a feeder hands on no two packets that reach the
/// node at once; the packet breaks the tie all the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LateItem {
    key: u128,
    item: Item,
}

impl Ord for LateItem {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.key, self.item.t).cmp(&(other.key, other.item.t))
    }
}

impl PartialOrd for LateItem {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

type Overtaker = Reverse<LateItem>;

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
    /// Adds a packet reaching the node at `at` over direction `feeder`, handed on to `then`
    /// after this direction. Returns whether it is now the first to reach the node. Inlined
    /// into the express direction's push, which runs for nearly every packet at a merge (left
    /// to the compiler, it stops inlining it once a second caller exists: +3 % instructions on
    /// H).
    #[inline(always)]
    pub fn push(&mut self, at: SimTime, feeder: u32, t: Transit, then: Opt<u32>) -> bool {
        let item = Item {
            at,
            feeder,
            then,
            t,
        };
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
        self.late.push(Reverse(LateItem { key, item }));
        first
    }

    fn first_key(&self) -> Option<u128> {
        let run = self.run.front().map(Item::key);
        let late = self.late.peek().map(|Reverse(l)| l.key);
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
            (Some(r), Some(Reverse(l))) => l.key < r.key(),
        }
    }

    /// Prefetches the run's ends (`prefetch.rs`).
    #[inline(always)]
    pub fn prefetch(&self) {
        self.run.prefetch_ends();
    }

    /// The `i`-th packet of the in-order run (`i` = 0: its first) and where it goes next:
    /// probably the `i`-th to be taken, unless one that overtook the run comes first. A hint
    /// for prefetching.
    #[inline(always)]
    pub fn ahead(&self, i: usize) -> Option<(Transit, Opt<u32>)> {
        self.run.get(i).map(|item| (item.t, item.then))
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
        self.late.peek().map(|Reverse(l)| (l.item.at, l.item.t))
    }

    /// Takes the first packet if it reaches the node by `upto` (before it, if `exclusive`).
    /// Inlined into the express direction's pull, where it runs for every packet taken in (as
    /// `push`).
    #[inline(always)]
    pub fn take_until(&mut self, upto: SimTime, exclusive: bool) -> Option<Taken> {
        let due = |at: SimTime| at < upto || (!exclusive && at == upto);
        let i = if self.late.is_empty() || !self.first_is_late() {
            if !due(self.run.front()?.at) {
                return None;
            }
            self.run.pop_front()?
        } else {
            if !due(self.late.peek()?.0.item.at) {
                return None;
            }
            self.late.pop()?.0.item
        };
        Some((i.at, i.t, i.then))
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

    /// Packet `i`, which goes on to direction `i + 100` after this one.
    fn item(i: u32) -> (Transit, Opt<u32>) {
        (tr(i), Opt::some(i + 100))
    }

    fn push(m: &mut Inbound, at: u64, feeder: u32, i: u32) -> bool {
        let (t, then) = item(i);
        m.push(SimTime(at), feeder, t, then)
    }

    fn taken(at: u64, i: u32) -> Option<Taken> {
        let (t, then) = item(i);
        Some((SimTime(at), t, then))
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
        // runs before A's): taken as C 5, A 5, B 7, A 9, each with where it goes next (C's
        // from the heap of those that overtook the run).
        assert!(push(&mut m, 5, a, 1));
        assert!(!push(&mut m, 9, a, 2));
        assert!(!push(&mut m, 7, b, 3));
        assert!(push(&mut m, 5, c, 4));
        assert_eq!(m.len(), 4);
        assert_eq!(m.ahead(0), Some(item(1)));
        assert_eq!(m.take_until(SimTime(5), true), None);
        let mut got = vec![];
        while let Some(x) = m.take_until(SimTime(8), false) {
            got.push(x);
        }
        assert_eq!(
            got,
            [taken(5, 4), taken(5, 1), taken(7, 3)].map(Option::unwrap)
        );
        assert_eq!(m.first(), Some((SimTime(9), tr(2))));
        assert_eq!(m.take_until(SimTime(9), false), taken(9, 2));
        assert_eq!(m.len(), 0);
    }

    #[test]
    fn one_feeder_keeps_its_order() {
        let mut q = Inbound::default();
        assert!(push(&mut q, 3, 0, 1));
        assert!(!push(&mut q, 4, 0, 2));
        assert!(!push(&mut q, 4, 0, 3));
        assert_eq!(q.take_until(SimTime(4), true), taken(3, 1));
        assert_eq!(q.take_until(SimTime(4), true), None);
        assert_eq!(q.take_until(SimTime(4), false), taken(4, 2));
        assert_eq!(q.take_until(SimTime(4), false), taken(4, 3));
    }
}
