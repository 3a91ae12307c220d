//! The event queue, ordered on (time, event).
//!
//! Events at equal times run by kind (in declaration order), and events of one kind in an order
//! shuffled afresh at every instant by a hash of the time and their index (see
//! [`Event::order`]) — not in the order they were scheduled. A run is then a pure function of
//! its scenario and seed even across engine changes that schedule fewer events or schedule them
//! earlier (the cut-through of `net/link.rs` schedules an arrival when a packet enters the
//! previous link, not when it reaches the node between). The shuffle matters in synchronised
//! scenarios (identical flows started together, round rates and delays), where packets of
//! different flows reach a queue at the same nanosecond again and again: ordering them by index
//! would let the lowest-numbered flow win every such tie, and ordering them by scheduling
//! tends to do the same. Events are small `Copy` values; cancelling is done by the receiver
//! ignoring stale events (each component knows which event it is waiting for).

use crate::rng::{mix64, GOLDEN_GAMMA};
use crate::tcp::timer::TimerName;
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
    /// A UDP source (CBR or on-off) sends its next packet.
    UdpSend(u32),
    /// A TCP endpoint's timer (lazy: checked against its current deadline; `tcp/timer.rs`),
    /// of flow `u32`. Each named timer orders as a kind of its own, in `TimerName`'s order.
    Timer(TimerName, u32),
    /// The packet at the head of a link direction's delay line (or the one on its transmitter,
    /// once sent) reaches the far node. Transmit completions need no events (`net/link.rs`).
    Arrive(u32),
}

/// Bits of an event's order key: kind (5 bits: room for 26 named timers beside the six other
/// kinds), the per-instant shuffle (27 bits), index (32 bits).
pub(crate) const KIND_SHIFT: u32 = 59;
const SHUFFLE_BITS: u32 = 27;
/// The kind of the first named timer (`Event::Timer`), and of an arrival: last at an instant.
const TIMER_KIND: u64 = 5;
const ARRIVE_KIND: u64 = 31;

impl Event {
    /// The event's key in the queue at `time`: the time, then `order`.
    #[inline]
    pub fn key(self, time: SimTime) -> u128 {
        ((time.0 as u128) << 64) | self.order(time) as u128
    }

    /// The low half of the event's queue key at `time`, whose order is the order of events at
    /// one instant: kind in the top 5 bits (in declaration order, each named timer a kind of
    /// its own), then a 27-bit hash of the time and the index (a splitmix64 finaliser), then
    /// the index. Decoded by `from_order`.
    #[inline]
    pub fn order(self, time: SimTime) -> u64 {
        let (kind, i) = match self {
            Event::Sample => (0, 0),
            Event::Bin => (1, 0),
            Event::Start(i) => (2, i),
            Event::Stop(i) => (3, i),
            Event::UdpSend(i) => (4, i),
            Event::Timer(name, i) => (TIMER_KIND + name.index() as u64, i),
            Event::Arrive(i) => (ARRIVE_KIND, i),
        };
        let shuffle = mix64(time.0 ^ (i as u64).wrapping_mul(GOLDEN_GAMMA)) >> (64 - SHUFFLE_BITS);
        (kind << KIND_SHIFT) | (shuffle << 32) | i as u64
    }

    #[inline]
    pub fn from_order(order: u64) -> Event {
        let i = order as u32;
        match order >> KIND_SHIFT {
            0 => Event::Sample,
            1 => Event::Bin,
            2 => Event::Start(i),
            3 => Event::Stop(i),
            4 => Event::UdpSend(i),
            ARRIVE_KIND => Event::Arrive(i),
            k => Event::Timer(TimerName::ALL[(k - TIMER_KIND) as usize], i),
        }
    }
}

mod heap;
mod ties;
mod wheel;

pub(crate) use ties::TieSort;

use heap::Heap4;
use wheel::Wheel;

/// The queue of pending events, ordered on the key `(time << 64) | event order`: a timing wheel
/// for the near future (`wheel.rs`), where nearly every event of a run falls, and a 4-ary heap
/// for what lies beyond its horizon (timers, periodic samples). Taking an event compares the
/// two minima. The key is the whole entry: the event is decoded from it, and equal keys are the
/// same event at the same time (a stale timer's duplicate), so which comes out first cannot
/// matter. Any structure that yields keys in order gives the same run; see
/// docs/performance.md for what this one replaced and why.
pub struct EventQueue {
    wheel: Wheel,
    far: Heap4,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::with_horizon(SimTime::from_secs(1))
    }
}

/// The time in a queue key (`Event::key`).
pub(crate) fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

impl EventQueue {
    /// A queue whose wheel spans at least `horizon` (events further ahead go to the heap);
    /// its tick is the smallest power-of-two ns that gets there.
    pub fn with_horizon(horizon: SimTime) -> EventQueue {
        // At most 2^50 ns per tick (a horizon of 2^64 ns fits), so the power of two exists.
        let tick = horizon.as_nanos().div_ceil(wheel::N).clamp(1, 1 << 50);
        let shift = tick.next_power_of_two().trailing_zeros();
        EventQueue {
            wheel: Wheel::new(shift),
            far: Heap4::default(),
            popped: 0,
        }
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let key = event.key(time);
        if !self.wheel.push(key) {
            self.far.push(key);
        }
    }

    /// Takes the next event if it happens by `t`.
    #[inline]
    pub fn pop_until(&mut self, t: SimTime) -> Option<(SimTime, Event)> {
        let far = self.far.peek();
        let key = match self.wheel.peek() {
            Some(found) if far.is_none_or(|f| found.key < f) => {
                if time_of(found.key) > t {
                    return None;
                }
                self.wheel.remove(found);
                found.key
            }
            _ => {
                let f = far?;
                if time_of(f) > t {
                    return None;
                }
                self.far.pop();
                f
            }
        };
        self.wheel.set_cur(key);
        self.popped += 1;
        Some((time_of(key), Event::from_order(key as u64)))
    }

    /// Keeps the next two events known where the wheel has them (`upcoming`), taking each tick
    /// in before the one before it is done; without it only ticks of several events are.
    pub fn look_ahead(&mut self, on: bool) {
        self.wheel.look_ahead(on);
    }

    /// The events that probably come next, where the wheel knows them without searching
    /// (several events in one tick, or any tick with `look_ahead`): `upcoming(0)` the next,
    /// `upcoming(1)` the one after. A hint for fetching state ahead of time, which events
    /// scheduled meanwhile or kept beyond the horizon may overtake.
    #[inline(always)]
    pub fn upcoming(&self, i: usize) -> Option<Event> {
        let run = self.wheel.upcoming();
        let n = run.len();
        (i < n).then(|| Event::from_order(run[n - 1 - i] as u64))
    }

    /// Events executed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Events pending (stale timer events included).
    pub fn len(&self) -> usize {
        self.wheel.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_by_kind_whatever_the_scheduling_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), Event::Arrive(1));
        q.schedule(SimTime(3), Event::Timer(TimerName::Rto, 9));
        q.schedule(SimTime(5), Event::Timer(TimerName::Rto, 3));
        q.schedule(SimTime(5), Event::Sample);
        q.schedule(SimTime(5), Event::Arrive(0));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime(u64::MAX))).collect();
        assert_eq!(
            order[..3],
            [
                (SimTime(3), Event::Timer(TimerName::Rto, 9)),
                (SimTime(5), Event::Sample),
                (SimTime(5), Event::Timer(TimerName::Rto, 3)),
            ]
        );
        let mut last: Vec<_> = order[3..].to_vec();
        last.sort_by_key(|&(_, e)| e.order(SimTime::ZERO) as u32);
        assert_eq!(
            last,
            [
                (SimTime(5), Event::Arrive(0)),
                (SimTime(5), Event::Arrive(1))
            ]
        );
        assert_eq!(q.processed(), 5);
    }

    #[test]
    fn orders_round_trip_and_order_kinds_as_declared() {
        let all = [
            Event::Sample,
            Event::Bin,
            Event::Start(7),
            Event::Stop(7),
            Event::UdpSend(7),
            Event::Timer(TimerName::Rto, 7),
            Event::Timer(TimerName::DelAck, 7),
            Event::Arrive(7),
        ];
        for t in [SimTime::ZERO, SimTime(123_456_789)] {
            for w in all.windows(2) {
                assert!(w[0].order(t) < w[1].order(t), "{w:?}");
            }
            for e in all
                .into_iter()
                .chain([Event::Arrive(u32::MAX), Event::Timer(TimerName::Rto, 0)])
            {
                assert_eq!(Event::from_order(e.order(t)), e);
            }
        }
    }

    #[test]
    fn no_index_wins_every_tie() {
        // Two links' arrivals tie at 10,000 instants: each goes first about half the time,
        // and among eight, each is first about an eighth of the time.
        let first = |n: u32, t: u64| {
            (0..n)
                .min_by_key(|&i| Event::Arrive(i).order(SimTime(t * 1_200)))
                .unwrap()
        };
        let zero_first = (0..10_000).filter(|&t| first(2, t) == 0).count();
        assert!((4_700..5_300).contains(&zero_first), "{zero_first}");
        let mut wins = [0; 8];
        for t in 0..10_000 {
            wins[first(8, t) as usize] += 1;
        }
        assert!(
            wins.iter().all(|&w| (1_050..1_450).contains(&w)),
            "{wins:?}"
        );
    }

    #[test]
    fn any_horizon_makes_a_working_queue() {
        for h in [0, 1, u64::MAX / 2, u64::MAX] {
            let mut q = EventQueue::with_horizon(SimTime(h));
            q.schedule(SimTime(u64::MAX - 1), Event::Timer(TimerName::Rto, 1));
            q.schedule(SimTime(3), Event::Timer(TimerName::Rto, 2));
            assert_eq!(
                q.pop_until(SimTime(u64::MAX)),
                Some((SimTime(3), Event::Timer(TimerName::Rto, 2)))
            );
            let last = q.pop_until(SimTime(u64::MAX));
            assert_eq!(
                last,
                Some((SimTime(u64::MAX - 1), Event::Timer(TimerName::Rto, 1)))
            );
        }
    }

    #[test]
    fn the_wheel_horizon_boundaries() {
        // Ticks of 1 ns: the wheel holds [cur, cur + N) ns. A key exactly N ahead shares its
        // bucket index with `cur` and must wait in the heap; one at N - 1 is the last in.
        let n = wheel::N;
        let mut q = EventQueue::with_horizon(SimTime(n));
        for t in [n, n - 1, 5000, 0, 2 * n + 7] {
            q.schedule(SimTime(t), Event::Timer(TimerName::Rto, t as u32));
        }
        let order: Vec<u64> = std::iter::from_fn(|| q.pop_until(SimTime(u64::MAX)))
            .map(|(t, _)| t.as_nanos())
            .collect();
        assert_eq!(order, vec![0, 5000, n - 1, n, 2 * n + 7]);
    }

    /// Interleaved schedules and pops (as in a run) against a reference heap, with events
    /// from the same instant to far past the wheel's horizon, so that keys go to both stores,
    /// the wheel wraps many times, and a pop's horizon `t` stops some takes.
    #[test]
    fn pops_in_time_then_event_order_under_interleaving() {
        for horizon_ns in [1, 1_000, 65_536, 10_000_000] {
            let mut q = EventQueue::with_horizon(SimTime(horizon_ns));
            let mut reference = std::collections::BinaryHeap::new();
            let mut x: u64 = 12345 + horizon_ns;
            let mut now = 0;
            let mut next = || {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                x >> 20
            };
            for round in 0..20_000 {
                for _ in 0..(round % 4) {
                    let r = next();
                    // Mostly near (within a few horizons), sometimes now, sometimes very far.
                    let ahead = match r % 10 {
                        0 => 0,
                        1 => r % (1000 * horizon_ns.max(1_000)),
                        _ => r % (3 * horizon_ns.max(16)),
                    };
                    let i = (next() % 50) as u32;
                    q.schedule(SimTime(now + ahead), Event::Start(i));
                    let t = now + ahead;
                    let order = Event::Start(i).order(SimTime(t));
                    reference.push(std::cmp::Reverse((t, order, i)));
                }
                let limit = now + next() % (2 * horizon_ns.max(4));
                let want = reference
                    .peek()
                    .map(|r| (r.0 .0, r.0 .2))
                    .filter(|&(t, _)| t <= limit);
                let got = q.pop_until(SimTime(limit));
                assert_eq!(
                    got,
                    want.map(|(t, i)| (SimTime(t), Event::Start(i))),
                    "horizon {horizon_ns}, round {round}"
                );
                if let Some((t, _)) = want {
                    reference.pop();
                    now = t;
                }
            }
            assert_eq!(q.len(), reference.len());
            // Drain: everything comes out in order.
            while let Some(std::cmp::Reverse((t, _, i))) = reference.pop() {
                let (t, e) = (SimTime(t), Event::Start(i));
                assert_eq!(q.pop_until(SimTime(u64::MAX)), Some((t, e)));
            }
            assert!(q.is_empty());
        }
    }

    type Reference = std::collections::BinaryHeap<std::cmp::Reverse<(u64, u64, u32)>>;

    /// Pushes 40 events at `first(i)`, then pops 200 times, pushing one more at `now +
    /// later(round)` every third round: order as a reference heap's, and `upcoming` names the
    /// events the next pops return when nothing is scheduled in between. With `look_ahead`
    /// the next two are always known. Returns how many `upcoming` named.
    fn drive(look_ahead: bool, first: fn(u64) -> u64, later: fn(u64) -> u64) -> usize {
        let mut q = EventQueue::with_horizon(SimTime(1 << 24));
        q.look_ahead(look_ahead);
        let mut reference = Reference::new();
        let push = |q: &mut EventQueue, reference: &mut Reference, t: u64, i: u32| {
            q.schedule(SimTime(t), Event::Arrive(i));
            let order = Event::Arrive(i).order(SimTime(t));
            reference.push(std::cmp::Reverse((t, order, i)));
        };
        for i in 0..40 {
            push(&mut q, &mut reference, first(i as u64), i);
        }
        let mut now = 0;
        let mut seen_upcoming = 0;
        for round in 0..200u32 {
            if round % 3 == 0 {
                let t = now + later(round as u64);
                push(&mut q, &mut reference, t, 100 + round);
            }
            let want = reference
                .pop()
                .map(|r| (SimTime(r.0 .0), Event::Arrive(r.0 .2)));
            let got = q.pop_until(SimTime(u64::MAX));
            assert_eq!(got, want, "round {round}");
            let Some((t, _)) = got else { break };
            now = t.0;
            let mut next = reference.clone().into_sorted_vec();
            next.reverse();
            for (k, r) in next.iter().enumerate().take(3) {
                match q.upcoming(k) {
                    Some(e) => {
                        assert_eq!(e, Event::Arrive(r.0 .2), "round {round}, upcoming {k}");
                        seen_upcoming += 1;
                    }
                    None => assert!(!(look_ahead && k < 2), "round {round}, upcoming {k}"),
                }
            }
        }
        assert!(q.is_empty());
        seen_upcoming
    }

    /// Many events per tick (1024-ns ticks, events a few ns apart), pushes into the tick being
    /// taken among the pops: the run of a tick names its next events.
    #[test]
    fn a_tick_of_many_events_is_taken_in_order_and_its_next_ones_are_known() {
        let seen = drive(false, |i| 5_000 + (i * 37) % 900, |r| (r * 7) % 300);
        assert!(seen > 50, "{seen}");
    }

    /// One event per tick or none, pushes into the ticks the run holds and beyond: with the
    /// look ahead the run takes in the next tick early and still comes out in order.
    #[test]
    fn looking_ahead_names_the_first_events_of_each_tick_too() {
        let first = |i| 3_000 + i * 1_500;
        let later = |r| (r * 531) % 4_000;
        let (off, on) = (drive(false, first, later), drive(true, first, later));
        // Without it only the few ticks the pushes gave two events are known.
        assert!(on > 100 && off < on / 10, "{off} {on}");
        // Many per tick, as above, give the same order with it.
        drive(true, |i| 5_000 + (i * 37) % 900, |r| (r * 7) % 300);
    }
}
