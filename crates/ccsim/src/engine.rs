//! The event queue: a 4-ary heap ordered on (time, insertion sequence).
//!
//! Events at equal times run in the order they were scheduled, which makes a run a pure
//! function of its scenario and seed. Events are small `Copy` values; cancelling is done by
//! the receiver ignoring stale events (each component knows which event it is waiting for).

use crate::time::SimTime;

/// Everything that can happen. Indices refer to the simulation's vectors of link directions
/// and flows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet at the head of a link direction's delay line (or the one on its transmitter,
    /// once sent) reaches the far node. Transmit completions need no events (`net/link.rs`).
    Arrive(u32),
    /// A TCP sender's retransmission timer (lazy: checked against the current deadline).
    Rto(u32),
    /// A TCP receiver's delayed-ACK timer.
    DelAck(u32),
    /// A flow's application starts.
    Start(u32),
    /// A flow's application stops offering new data.
    Stop(u32),
    /// A CBR source sends its next packet.
    CbrSend(u32),
    /// Periodic sampling of the time series.
    Sample,
    /// End of a throughput bin.
    Bin,
}

const ARITY: usize = 4;

/// A 4-ary min-heap on the key `(time << 64) | seq`, keys and events in separate arrays.
///
/// Four children per node halve a binary heap's depth, and the four keys of a node share a
/// cache line; a pop walks the hole at the root down to a leaf along the smallest children
/// (Floyd's trick: one tournament per level, no comparison with the entry being placed) and
/// sifts the last entry up from there. Ordering is one 128-bit comparison, as every key is
/// distinct. See docs/performance.md for what it replaced and why.
///
/// A pop leaves its entry at the root, marked taken, because an event usually schedules
/// another: the next `schedule` then puts its entry in the root's place and sifts it down,
/// one pass instead of a removal and an insertion. Any other call first completes the removal.
/// The order events come out in is the same either way: keys are distinct.
#[derive(Default)]
pub struct EventQueue {
    keys: Vec<u128>,
    events: Vec<Event>,
    seq: u64,
    popped: u64,
    root_taken: bool,
}

fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

impl EventQueue {
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        self.seq += 1;
        let key = ((time.0 as u128) << 64) | self.seq as u128;
        if self.root_taken {
            self.root_taken = false;
            self.sift_down_from_root(key, event);
        } else {
            self.keys.push(key);
            self.events.push(event);
            let i = self.keys.len() - 1;
            self.sift_up(i, key, event);
        }
    }

    /// Completes the removal of a popped root.
    #[inline]
    fn settle(&mut self) {
        if !self.root_taken {
            return;
        }
        self.root_taken = false;
        let last_key = self.keys.pop().expect("a taken root is an entry");
        let last_event = self.events.pop().expect("keys and events have one length");
        let n = self.keys.len();
        if n > 0 {
            let hole = self.hole_down(n, None);
            self.sift_up(hole, last_key, last_event);
        }
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.settle();
        self.keys.first().map(|k| time_of(*k))
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.settle();
        let key = *self.keys.first()?;
        self.root_taken = true;
        self.popped += 1;
        Some((time_of(key), self.events[0]))
    }

    /// Puts `key` at the root (whose entry was taken) and sifts it down.
    fn sift_down_from_root(&mut self, key: u128, event: Event) {
        let hole = self.hole_down(self.keys.len(), Some(key));
        self.keys[hole] = key;
        self.events[hole] = event;
    }

    /// Moves the hole at the root down along the smallest children (the first `n` entries are
    /// the heap), to a leaf or, given `bound`, until no child is smaller than it; returns where
    /// the hole ends.
    #[inline]
    fn hole_down(&mut self, n: usize, bound: Option<u128>) -> usize {
        assert!(n <= self.keys.len() && n <= self.events.len());
        let (k, ev) = (self.keys.as_mut_ptr(), self.events.as_mut_ptr());
        let mut hole = 0;
        // SAFETY: every index read or written is below `n`, checked against both lengths
        // above: children `first..first + 4` only when `first + 4 <= n`, else `first..n`.
        unsafe {
            loop {
                let first = ARITY * hole + 1;
                let best = if first + ARITY <= n {
                    // A full node: a branch-free tournament (the winner is unpredictable, so
                    // conditional moves beat branches).
                    let a = first + (*k.add(first + 1) < *k.add(first)) as usize;
                    let b = first + 2 + (*k.add(first + 3) < *k.add(first + 2)) as usize;
                    if *k.add(b) < *k.add(a) {
                        b
                    } else {
                        a
                    }
                } else if first < n {
                    let mut best = first;
                    for c in first + 1..n {
                        if *k.add(c) < *k.add(best) {
                            best = c;
                        }
                    }
                    best
                } else {
                    return hole;
                };
                if bound.is_some_and(|key| *k.add(best) >= key) {
                    return hole;
                }
                *k.add(hole) = *k.add(best);
                *ev.add(hole) = *ev.add(best);
                hole = best;
            }
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize, key: u128, event: Event) {
        assert!(i < self.keys.len() && i < self.events.len());
        let (k, ev) = (self.keys.as_mut_ptr(), self.events.as_mut_ptr());
        // SAFETY: `i` is in bounds (checked above) and parents are smaller indices.
        unsafe {
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if *k.add(parent) <= key {
                    break;
                }
                *k.add(i) = *k.add(parent);
                *ev.add(i) = *ev.add(parent);
                i = parent;
            }
            *k.add(i) = key;
            *ev.add(i) = event;
        }
    }

    /// Events executed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Events pending (stale timer events included).
    pub fn len(&self) -> usize {
        self.keys.len() - self.root_taken as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), Event::Rto(1));
        q.schedule(SimTime(3), Event::Rto(2));
        q.schedule(SimTime(5), Event::Rto(3));
        q.schedule(SimTime(3), Event::Rto(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::Rto(2)),
                (SimTime(3), Event::Rto(4)),
                (SimTime(5), Event::Rto(1)),
                (SimTime(5), Event::Rto(3)),
            ]
        );
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn pops_in_time_then_insertion_order_under_interleaving() {
        // Interleaved schedules and pops (as in a run) against a sorted reference.
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u64)> = vec![];
        let mut x: u64 = 12345;
        let mut now = 0;
        let mut seq = 0;
        for round in 0..2000 {
            for _ in 0..(round % 5) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let t = now + (x >> 40) % 50;
                seq += 1;
                q.schedule(SimTime(t), Event::Start(seq as u32));
                reference.push((t, seq));
            }
            if let Some((t, ev)) = q.pop() {
                reference.sort();
                let (rt, rs) = reference.remove(0);
                assert_eq!((t, ev), (SimTime(rt), Event::Start(rs as u32)));
                now = rt;
            }
        }
        assert_eq!(q.len(), reference.len());
    }
}
