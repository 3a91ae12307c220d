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
//! already knows it (`sim/routes.rs`, `FirstHop`), so taking a packet in looks up no route, nor does
//! prefetching for the packets that come next (`sim/prefetching.rs`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::link::Transit;
use super::ring::Ring;
use crate::engine::{Event, TieSort};
use crate::time::SimTime;
use crate::util::packed_option::Opt;

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

/// Marks in `Item::feeder`'s top bits, set while the run's last tie group is unsorted: on the
/// group's last packet (which a push reads anyway, as the run's back) and on the packet just
/// before the group (which a take has in hand as it reaches the group). So neither looks
/// elsewhere to learn that it must sort the group: with thousands of flows, where a
/// bottleneck's heap is in use, the boxed state has left the cache
/// (docs/performance-history.md, 0.6.4).
const GROUP_ENDS: u32 = 1 << 31;
const GROUP_NEXT: u32 = 1 << 30;
const FEEDER: u32 = GROUP_NEXT - 1;

impl Item {
    /// Time, then the tie order of the event that would have forwarded it.
    fn key(&self) -> u128 {
        Event::Arrive(self.feeder & FEEDER).key(self.at)
    }

    #[inline(always)]
    fn marked(&self, mark: u32) -> bool {
        self.feeder & mark != 0
    }
}

/// Packets in order of their keys: a run that arrives in order (nearly all of them — feeders
/// with equal delays hand packets on about in the order they reach the node) and a heap for
/// those that overtake the run's last one.
///
/// Packets that reach the node at one instant (a tie group) are ordered by their forwarding
/// events' tie order, a hash, which has nothing to do with the order they come in: where
/// sources send in step (constant-rate sources started together) groups of dozens come at
/// once. The run's last group is let out of order as it grows, and sorted once, as it closes (a
/// packet for a later instant comes) or reaches the front, where it is read; one that is the
/// front already is kept in order as it grows, the heap taking those that overtake.
#[derive(Default)]
pub struct Inbound {
    run: Ring<Item>,
    late: Late,
}

/// What few directions need, made at the first use: most never see a packet overtake the run
/// or a tie group out of order, and a pointer takes 8 bytes of the direction against an empty
/// heap's 24 (`net/link.rs`).
#[derive(Default)]
struct Late(Option<Box<Rare>>);

#[derive(Default)]
struct Rare {
    /// The packets that overtook the run, by key.
    heap: BinaryHeap<Overtaker>,
    /// A tie group being sorted, with its keys, and a large one sorted by bucket
    /// (`engine/ties.rs`; kept for their capacity).
    sorting: Vec<(u128, Item)>,
    bucketed: Vec<(u128, Item)>,
    ties: TieSort,
}

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
        self.0.as_ref().is_none_or(|r| r.heap.is_empty())
    }

    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |r| r.heap.len())
    }

    fn peek(&self) -> Option<&Overtaker> {
        self.0.as_ref()?.heap.peek()
    }

    fn push(&mut self, x: Overtaker) {
        self.0.get_or_insert_default().heap.push(x);
    }

    fn pop(&mut self) -> Option<Overtaker> {
        self.0.as_mut()?.heap.pop()
    }
}

impl Inbound {
    /// Adds a packet reaching the node at `at` over direction `feeder`, handed on to `then`
    /// after this direction. Returns whether it is now the first to reach the node. Inlined
    /// into the express direction's push, which runs for nearly every packet at a merge (left
    /// to the compiler, it stops inlining it once a second caller exists).
    #[inline(always)]
    pub fn push(&mut self, at: SimTime, feeder: u32, t: Transit, then: Opt<u32>) -> bool {
        debug_assert!(feeder <= FEEDER, "a direction's index in 30 bits");
        let item = Item {
            at,
            feeder,
            then,
            t,
        };
        match self.run.back() {
            Some(b) if b.at > at => return self.push_late(item),
            // A tie in order goes to the back, as any packet in order, unless the last tie
            // group is already out of order.
            Some(b) if b.at == at && (b.marked(GROUP_ENDS) || item.key() < b.key()) => {
                let open = b.marked(GROUP_ENDS);
                return self.push_tied(item, open);
            }
            // A later instant closes the last tie group.
            Some(b) if b.marked(GROUP_ENDS) => self.sort_group(),
            _ => {}
        }
        self.run.push_back(item);
        self.run.len() == 1 && self.late.is_empty()
    }

    /// `push` of a packet that reaches the node at the same instant as the run's last, where
    /// the last tie group is out of order (`open`) or it would put it so: into that group,
    /// unsorted, unless the group is the run's front.
    #[inline(never)]
    fn push_tied(&mut self, item: Item, open: bool) -> bool {
        if !open {
            let start = self.run.last_run_start(|o| o.at == item.at);
            if start == self.run.head() {
                // The front is read as packets come (`first`), so it is kept in order: a
                // packet that overtakes its last waits in the heap.
                return self.push_late(item);
            }
            self.run.at_mut(start.wrapping_sub(1)).feeder |= GROUP_NEXT;
        }
        if let Some(b) = self.run.back_mut() {
            b.feeder &= !GROUP_ENDS;
        }
        self.run.push_back(Item {
            feeder: item.feeder | GROUP_ENDS,
            ..item
        });
        // Behind the run's first, which is earlier than the group.
        false
    }

    /// `push` of a packet that overtakes the run's last: into the late heap.
    #[inline(never)]
    fn push_late(&mut self, item: Item) -> bool {
        let key = item.key();
        let first = self.first_key().is_none_or(|k| key < k);
        self.late.push(Reverse(LateItem { key, item }));
        first
    }

    /// Where the run's last tie group starts, while it is unsorted (its last packet, the
    /// run's back, is marked): the group is what follows the last packet of an earlier instant.
    fn open_group(&self) -> Option<u32> {
        let b = self.run.back().filter(|b| b.marked(GROUP_ENDS))?;
        Some(self.run.last_run_start(|o| o.at == b.at))
    }

    /// Sorts the run's last tie group by key and takes its marks off; call while it is open.
    #[inline(never)]
    fn sort_group(&mut self) {
        let Some(start) = self.open_group() else {
            return;
        };
        // The packet before the group, if not taken yet, and the group's last lose their marks.
        if self.run.head() != start {
            self.run.at_mut(start.wrapping_sub(1)).feeder &= !GROUP_NEXT;
        }
        if let Some(b) = self.run.back_mut() {
            b.feeder &= !GROUP_ENDS;
        }
        let rare = self.late.0.get_or_insert_default();
        rare.sorting.clear();
        rare.sorting
            .extend(self.run.from(start).map(|item| (item.key(), *item)));
        let sorted = if rare.ties.sort(&rare.sorting, &mut rare.bucketed, |e| e.0) {
            &rare.bucketed
        } else {
            rare.sorting.sort_unstable_by_key(|&(key, _)| key);
            &rare.sorting
        };
        self.run
            .overwrite_from(start, sorted.iter().map(|&(_, item)| item));
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

    /// Prefetches the run's ends (`util/prefetch.rs`).
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
            let i = self.run.pop_front()?;
            // The last tie group is sorted as it becomes the front.
            if i.marked(GROUP_NEXT) {
                self.sort_group();
            }
            i
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
    fn packets_come_out_by_key_whatever_order_they_come_in() {
        // Pushes at times that tie in groups (and sometimes overtake), taken in between, against
        // a reference kept sorted by key: every take gives the reference's first.
        use std::collections::BTreeMap;
        let mut rng = crate::rng::Rng::derive(7, "inbound");
        let mut m = Inbound::default();
        let mut reference = BTreeMap::new();
        let (mut now, mut next, mut groups) = (0u64, 0u32, 0);
        for _ in 0..20_000 {
            let roll = rng.uniform();
            if roll < 0.6 {
                // Mostly the current instant or the next few; now and then one overtakes.
                let at = if rng.uniform() < 0.05 {
                    now.saturating_sub(3)
                } else {
                    now + (rng.uniform() * 3.0) as u64
                };
                let feeder = (rng.uniform() * 50.0) as u32;
                let item = Item {
                    at: SimTime(at),
                    feeder,
                    then: Opt::NONE,
                    t: tr(next),
                };
                // A feeder hands on no two packets that reach the node at once.
                if let std::collections::btree_map::Entry::Vacant(e) = reference.entry(item.key()) {
                    e.insert(next);
                    let first = reference.keys().next() == Some(&item.key());
                    let (t, then) = (tr(next), Opt::NONE);
                    assert_eq!(m.push(SimTime(at), feeder, t, then), first, "push {next}");
                }
                next += 1;
            } else if roll < 0.9 {
                let upto = SimTime(now.saturating_sub(1));
                let want = reference
                    .first_key_value()
                    .filter(|(k, _)| crate::engine::time_of(**k) <= upto)
                    .map(|(_, &i)| i);
                let got = m.take_until(upto, false).map(|(_, t, _)| t.pkt.0);
                assert_eq!(got, want);
                if let Some(i) = want {
                    reference.retain(|_, v| *v != i);
                }
            } else {
                now += 1;
            }
            let first = reference.first_key_value().map(|(_, &i)| i);
            assert_eq!(m.first().map(|(_, t)| t.pkt.0), first);
            assert_eq!(m.len(), reference.len());
            groups += m.open_group().is_some() as u32;
        }
        assert!(groups > 1000, "tie groups left unsorted: {groups} steps");
        assert!(m.late.len() + m.run.len() > 0);
    }

    #[test]
    fn a_tie_group_is_sorted_as_it_closes_or_reaches_the_front() {
        // Packets 1 (at 4), then 2, 3, 4 at 5 from three feeders pushed against their tie order:
        // 2 goes to the back in order, 3 and 4 out of order join an unsorted group; a packet at
        // 6 closes it. Taken: 1, then the group in tie order, then 5.
        let order = |f: u32| Event::Arrive(f).order(SimTime(5));
        let mut feeders = [1, 2, 3];
        feeders.sort_by_key(|&f| std::cmp::Reverse(order(f)));
        let [x, y, z] = feeders; // x's event runs last at 5, z's first
        let mut m = Inbound::default();
        assert!(push(&mut m, 4, 9, 1));
        assert!(!push(&mut m, 5, y, 2));
        assert!(!push(&mut m, 5, z, 3));
        assert_eq!(
            m.open_group(),
            Some(1),
            "out of order behind the front: unsorted"
        );
        assert!(!push(&mut m, 5, x, 4));
        assert_eq!(m.late.len(), 0);
        assert!(!push(&mut m, 6, 9, 5));
        assert_eq!(m.open_group(), None, "closed by a later instant: sorted");
        let got: Vec<u32> = std::iter::from_fn(|| m.take_until(SimTime(9), false))
            .map(|(_, t, _)| t.pkt.0)
            .collect();
        assert_eq!(got, [1, 3, 2, 4, 5]);
        // The same group still open as the packet before it is taken: sorted as it becomes
        // the front. A tie that overtakes a front group waits in the heap.
        let mut m = Inbound::default();
        push(&mut m, 4, 9, 1);
        push(&mut m, 5, y, 2);
        push(&mut m, 5, z, 3);
        assert_eq!(m.take_until(SimTime(4), false), taken(4, 1));
        assert_eq!(m.open_group(), None);
        assert_eq!(m.first(), Some((SimTime(5), tr(3))));
        assert!(!push(&mut m, 5, x, 4));
        assert_eq!(m.late.len(), 0, "in order behind a front group");
        let mut m = Inbound::default();
        push(&mut m, 5, y, 2);
        assert!(
            push(&mut m, 5, z, 3),
            "overtakes a front group: first, from the heap"
        );
        assert_eq!((m.late.len(), m.open_group()), (1, None));
    }

    #[test]
    fn large_tie_groups_come_out_in_tie_order() {
        // Groups below, at and past the size sorted by bucket (32), one with about one
        // packet a bucket (100 in 128) and one past the most buckets (3,000 in 1,024), pushed
        // behind an earlier packet in an order unrelated to their tie order (feeder f * 7919
        // mod n: 7919 is prime, so every feeder once), then closed by a later instant.
        for n in [31u32, 32, 100, 3000] {
            let feeders: Vec<u32> = (0..n).map(|f| (f * 7919) % n).collect();
            let mut m = Inbound::default();
            push(&mut m, 4, n, 0);
            for &f in &feeders {
                push(&mut m, 5, f, f + 1);
            }
            push(&mut m, 6, n, n + 1);
            let mut want: Vec<u32> = (0..n).collect();
            want.sort_by_key(|&f| Event::Arrive(f).order(SimTime(5)));
            let want: Vec<u32> = std::iter::once(0)
                .chain(want.into_iter().map(|f| f + 1))
                .chain([n + 1])
                .collect();
            let got: Vec<u32> = std::iter::from_fn(|| m.take_until(SimTime(9), false))
                .map(|(_, t, _)| t.pkt.0)
                .collect();
            assert_eq!(got, want, "{n} tied");
        }
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
