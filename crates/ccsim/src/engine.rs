//! The event queue: a binary heap ordered on (time, insertion sequence).
//!
//! Events at equal times run in the order they were scheduled, which makes a run a pure
//! function of its scenario and seed. Events are small `Copy` values; cancelling is done by
//! the receiver ignoring stale events (each component knows which event it is waiting for).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            event,
        });
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| {
            self.popped += 1;
            (e.time, e.event)
        })
    }

    /// Events executed so far.
    pub fn processed(&self) -> u64 {
        self.popped
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
}
