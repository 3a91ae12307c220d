//! The event queue: a 4-ary heap ordered on (time, event).
//!
//! Events at equal times run in a fixed order of their kind and then their index (see
//! [`Event::code`]), not in the order they were scheduled. A run is then a pure function of its
//! scenario and seed even across engine changes that schedule fewer events or schedule them
//! earlier (the cut-through of `net/link.rs` schedules an arrival when a packet enters the
//! previous link, not when it reaches the node between). Events are small `Copy` values;
//! cancelling is done by the receiver ignoring stale events (each component knows which event
//! it is waiting for).

use crate::time::SimTime;

/// Everything that can happen. Indices refer to the simulation's vectors of link directions
/// and flows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Periodic sampling of the time series. First at its instant: a sample is the state as
    /// the instant begins, never half-way through its events.
    Sample,
    /// End of a throughput bin.
    Bin,
    /// A flow's application starts.
    Start(u32),
    /// A flow's application stops offering new data.
    Stop(u32),
    /// A CBR source sends its next packet.
    CbrSend(u32),
    /// A TCP sender's retransmission timer (lazy: checked against the current deadline).
    Rto(u32),
    /// A TCP receiver's delayed-ACK timer.
    DelAck(u32),
    /// The packet at the head of a link direction's delay line (or the one on its transmitter,
    /// once sent) reaches the far node. Transmit completions need no events (`net/link.rs`).
    Arrive(u32),
}

impl Event {
    /// The event as a number whose order is the order of events at one instant: kind in the
    /// high half (in declaration order), index in the low half.
    #[inline]
    pub fn code(self) -> u64 {
        let (kind, i) = match self {
            Event::Sample => (0, 0),
            Event::Bin => (1, 0),
            Event::Start(i) => (2, i),
            Event::Stop(i) => (3, i),
            Event::CbrSend(i) => (4, i),
            Event::Rto(i) => (5, i),
            Event::DelAck(i) => (6, i),
            Event::Arrive(i) => (7, i),
        };
        (kind << 32) | i as u64
    }

    #[inline]
    pub fn from_code(code: u64) -> Event {
        let i = code as u32;
        match code >> 32 {
            0 => Event::Sample,
            1 => Event::Bin,
            2 => Event::Start(i),
            3 => Event::Stop(i),
            4 => Event::CbrSend(i),
            5 => Event::Rto(i),
            6 => Event::DelAck(i),
            _ => Event::Arrive(i),
        }
    }
}

const ARITY: usize = 4;

/// A 4-ary min-heap on the key `(time << 64) | event code`.
///
/// Four children per node halve a binary heap's depth, and the four keys of a node share a
/// cache line; a pop walks the hole at the root down to a leaf along the smallest children
/// (Floyd's trick: one tournament per level, no comparison with the entry being placed) and
/// sifts the last entry up from there. Ordering is one 128-bit comparison, and the key is the
/// whole entry: the event is decoded from it. Equal keys are the same event at the same time
/// (a stale timer's duplicate), so which of them comes out first cannot matter. See
/// docs/performance.md for what it replaced and why.
///
/// A pop leaves its entry at the root, marked taken, because an event usually schedules
/// another: the next `schedule` then puts its entry in the root's place and sifts it down,
/// one pass instead of a removal and an insertion. Any other call first completes the removal.
#[derive(Default)]
pub struct EventQueue {
    keys: Vec<u128>,
    popped: u64,
    root_taken: bool,
}

fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

impl EventQueue {
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let key = ((time.0 as u128) << 64) | event.code() as u128;
        if self.root_taken {
            self.root_taken = false;
            let hole = self.hole_down(self.keys.len(), Some(key));
            self.keys[hole] = key;
        } else {
            self.keys.push(key);
            self.sift_up(self.keys.len() - 1, key);
        }
    }

    /// Completes the removal of a popped root, if one is pending.
    #[inline(always)]
    fn settle(&mut self) {
        if self.root_taken {
            self.remove_root();
        }
    }

    fn remove_root(&mut self) {
        self.root_taken = false;
        let last = self.keys.pop().expect("a taken root is an entry");
        let n = self.keys.len();
        if n > 0 {
            let hole = self.hole_down(n, None);
            self.sift_up(hole, last);
        }
    }

    /// Takes the next event if it happens by `t`.
    #[inline]
    pub fn pop_until(&mut self, t: SimTime) -> Option<(SimTime, Event)> {
        self.settle();
        let key = *self.keys.first()?;
        if time_of(key) > t {
            return None;
        }
        self.root_taken = true;
        self.popped += 1;
        Some((time_of(key), Event::from_code(key as u64)))
    }

    /// Moves the hole at the root down along the smallest children (the first `n` entries are
    /// the heap), to a leaf or, given `bound`, until no child is smaller than it; returns where
    /// the hole ends.
    #[inline]
    fn hole_down(&mut self, n: usize, bound: Option<u128>) -> usize {
        assert!(n <= self.keys.len());
        let k = self.keys.as_mut_ptr();
        let mut hole = 0;
        // SAFETY: every index read or written is below `n`, checked against the length above:
        // children `first..first + 4` only when `first + 4 <= n`, else `first..n`.
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
                hole = best;
            }
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize, key: u128) {
        assert!(i < self.keys.len());
        let k = self.keys.as_mut_ptr();
        // SAFETY: `i` is in bounds (checked above) and parents are smaller indices.
        unsafe {
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if *k.add(parent) <= key {
                    break;
                }
                *k.add(i) = *k.add(parent);
                i = parent;
            }
            *k.add(i) = key;
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
    fn earliest_first_and_ties_by_kind_then_index_whatever_the_scheduling_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), Event::Arrive(1));
        q.schedule(SimTime(3), Event::Rto(9));
        q.schedule(SimTime(5), Event::Rto(3));
        q.schedule(SimTime(3), Event::Rto(4));
        q.schedule(SimTime(5), Event::Sample);
        q.schedule(SimTime(5), Event::Arrive(0));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime(u64::MAX))).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::Rto(4)),
                (SimTime(3), Event::Rto(9)),
                (SimTime(5), Event::Sample),
                (SimTime(5), Event::Rto(3)),
                (SimTime(5), Event::Arrive(0)),
                (SimTime(5), Event::Arrive(1)),
            ]
        );
        assert_eq!(q.processed(), 6);
    }

    #[test]
    fn codes_round_trip_and_order_kinds_as_declared() {
        let all = [
            Event::Sample,
            Event::Bin,
            Event::Start(7),
            Event::Stop(7),
            Event::CbrSend(7),
            Event::Rto(7),
            Event::DelAck(7),
            Event::Arrive(7),
        ];
        for w in all.windows(2) {
            assert!(w[0].code() < w[1].code(), "{w:?}");
        }
        for e in all
            .into_iter()
            .chain([Event::Arrive(u32::MAX), Event::Rto(0)])
        {
            assert_eq!(Event::from_code(e.code()), e);
        }
    }

    #[test]
    fn pops_in_time_then_event_order_under_interleaving() {
        // Interleaved schedules and pops (as in a run) against a sorted reference.
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u32)> = vec![];
        let mut x: u64 = 12345;
        let mut now = 0;
        for round in 0..2000 {
            for _ in 0..(round % 5) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let t = now + (x >> 40) % 50;
                let i = (x >> 20) as u32 % 1000;
                q.schedule(SimTime(t), Event::Start(i));
                reference.push((t, i));
            }
            if let Some((t, ev)) = q.pop_until(SimTime(now + 1000)) {
                reference.sort();
                let (rt, ri) = reference.remove(0);
                assert_eq!((t, ev), (SimTime(rt), Event::Start(ri)));
                now = rt;
            }
        }
        assert_eq!(q.len(), reference.len());
    }
}
