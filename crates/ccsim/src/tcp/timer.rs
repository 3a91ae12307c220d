//! Timers as a mechanism: an endpoint owns named timers (`TimerName`), each a lazily kept
//! `LazyTimer`, reached through the `Timers` trait; the simulation schedules, fires and re-arms
//! them by name (`sim.rs`), and early hand-over catches up with them by name (`sim/handover.rs`).
//!
//! A lazy timer: the owner only moves its deadline (`set_deadline`); the simulation keeps at
//! most one pending event for it, no later than the deadline, and re-arms when an event fires
//! early. Moving a deadline later therefore costs nothing, and stale events are recognised by
//! time.
//!
//! Adding a timer (pacing, a tail-loss probe, RACK's reordering window, …): a name here, in
//! the order its events should run at an instant among the other timers'; its `LazyTimer` in
//! the endpoint that owns it, returned by that endpoint's `timer`/`timer_mut`; and what the
//! endpoint does when it expires, in its `on_timer`. The event key has room for 26 names.

use super::Io;
use crate::time::{OptTime, SimTime};

/// A timer a TCP endpoint owns. Each is an event kind of its own (`engine::Event::Timer`): at
/// one instant timers run in this order, after flows start, stop and send UDP, and before
/// packets arrive.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerName {
    /// The sender's retransmission timer (RFC 6298).
    Rto,
    /// The receiver's delayed-ACK timer (RFC 1122 4.2.3.2, RFC 5681 §4.2).
    DelAck,
    /// The sender's pacing timer: the next paced transmission (`pacing.rs`).
    Pace,
}

impl TimerName {
    /// Every name, in event order (`index` is the position here).
    pub const ALL: [TimerName; 3] = [TimerName::Rto, TimerName::DelAck, TimerName::Pace];
    /// The sender's timers.
    pub const SENDER: [TimerName; 2] = [TimerName::Rto, TimerName::Pace];
    /// The receiver's timers.
    pub const RECEIVER: [TimerName; 1] = [TimerName::DelAck];

    /// Whether the sender owns it (else the receiver; `SENDER` and `RECEIVER` agree, tested).
    #[inline]
    pub const fn at_sender(self) -> bool {
        match self {
            TimerName::Rto | TimerName::Pace => true,
            TimerName::DelAck => false,
        }
    }

    /// Its position in `ALL`.
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }
}

/// An endpoint's named timers.
pub trait Timers {
    /// The timer called `name`; only names the endpoint owns (`SENDER` or `RECEIVER`).
    fn timer(&self, name: TimerName) -> &LazyTimer;
    fn timer_mut(&mut self, name: TimerName) -> &mut LazyTimer;
    /// The timer called `name` expired at `io.now`.
    fn on_timer(&mut self, name: TimerName, io: &mut Io);
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    /// When the timer should fire, if it is running.
    deadline: OptTime,
    /// Time of the one pending event, if any.
    scheduled: OptTime,
}

impl LazyTimer {
    /// When the timer should fire, if it is running.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline.get()
    }

    /// Starts, moves or (`None`) stops the timer.
    #[inline]
    pub fn set_deadline(&mut self, d: Option<SimTime>) {
        self.deadline = OptTime::of(d);
    }

    /// An event scheduled for this timer ran at `now`: true if the timer has expired. Events
    /// other than the pending one are stale and return false.
    pub fn fired(&mut self, now: SimTime) -> bool {
        if self.scheduled.get() != Some(now) {
            return false;
        }
        self.scheduled = OptTime::NONE;
        self.deadline().is_some_and(|d| d <= now)
    }

    /// The time of a new event to schedule, if none is pending at or before the deadline.
    pub fn needs_event(&mut self) -> Option<SimTime> {
        let d = self.deadline()?;
        if self.scheduled.get().is_some_and(|s| s <= d) {
            return None;
        }
        self.scheduled = OptTime::some(d);
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_in_order_and_each_has_one_owner() {
        for (i, n) in TimerName::ALL.iter().enumerate() {
            assert_eq!(n.index() as usize, i);
            let owners = [
                TimerName::SENDER.contains(n),
                TimerName::RECEIVER.contains(n),
            ];
            assert_eq!(owners.iter().filter(|&&o| o).count(), 1, "{n:?}");
            let own = if n.at_sender() {
                &TimerName::SENDER[..]
            } else {
                &TimerName::RECEIVER[..]
            };
            assert!(own.contains(n));
        }
    }

    #[test]
    fn one_event_per_deadline_and_stale_events_ignored() {
        let mut t = LazyTimer::default();
        t.set_deadline(Some(SimTime(10)));
        assert_eq!(t.needs_event(), Some(SimTime(10)));
        t.set_deadline(Some(SimTime(20))); // moved later: the event at 10 stays pending
        assert_eq!(t.needs_event(), None);
        assert!(!t.fired(SimTime(10)), "fires early: not expired");
        assert_eq!(t.needs_event(), Some(SimTime(20)));
        t.set_deadline(Some(SimTime(15))); // moved earlier: a new event, the one at 20 goes stale
        assert_eq!(t.needs_event(), Some(SimTime(15)));
        assert!(t.fired(SimTime(15)));
        assert!(!t.fired(SimTime(20)));
    }
}
