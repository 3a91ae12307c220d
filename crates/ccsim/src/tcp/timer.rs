//! A lazily kept timer: the owner only moves its deadline (`set_deadline`); the simulation
//! keeps at most one pending event for it, no later than the deadline, and re-arms when an
//! event fires early. Moving a deadline later therefore costs nothing, and stale events are
//! recognised by time.

use crate::time::{OptTime, SimTime};

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
