//! The express half of a link direction (`net/express/mod.rs`): bringing the line up to date, offering
//! a packet to it (with RED's decision and the wire's loss where the direction has them), and
//! the arrival event the line and its inbound list need. Every packet at every hop comes
//! through here.

use super::{tx_time, LinkDir, Path, Rare, Transit};
use crate::net::express::{ExpressLine, Hand, Offered};
use crate::net::loss::WireLoss;
use crate::packet::{PacketArena, PktId};
use crate::time::{OptTime, SimTime};

impl LinkDir {
    /// Brings the express line up to `now`: moves its started frontier, and counts the
    /// packets the wire lost that have left the transmitter by then (into `drops`).
    #[inline(always)]
    pub(super) fn advance_express(
        &mut self,
        now: SimTime,
        drops: &mut Vec<PktId>,
    ) -> &mut ExpressLine {
        let Path::Express(f) = &mut self.path else {
            unreachable!("only express directions take express offers");
        };
        f.advance(now);
        if self.rare_on_offer {
            if let Some(w) = self.rare.as_deref_mut().and_then(|r| r.loss.as_mut()) {
                w.count_until(now, drops);
            }
        }
        f
    }

    /// Offers a packet to the express line at `now`: brings the line up to `now`, and queues
    /// the packet (to arrive here, or to be handed on or over, as `hand` says) or drops it.
    /// Borrows the direction's fields one by one (no `Wire`): this runs for every packet at
    /// every hop. `#[inline]`, not always: forced into every caller, it cost more instructions
    /// than the call it saves (docs/performance-history.md).
    #[inline]
    pub(super) fn enqueue_express(
        &mut self,
        t: Transit,
        now: SimTime,
        hand: Hand,
        arena: &mut PacketArena,
        drops: &mut Vec<PktId>,
    ) -> Offered {
        let tx = tx_time(&mut self.tx_time_cache, self.rate, t.size);
        let delay = self.delay;
        self.advance_express(now, drops);
        let Path::Express(f) = &mut self.path else {
            unreachable!("only express directions take express offers");
        };
        let wire = if self.rare_on_offer {
            let Some(wire) = rare_offer(&mut self.rare, f, t, now, arena) else {
                drops.push(t.pkt);
                return Offered::Dropped;
            };
            wire
        } else {
            None
        };
        let r = f.offer(t, tx, delay, now, hand, wire);
        if r == Offered::Dropped {
            drops.push(t.pkt);
        }
        r
    }

    /// Offers a packet at `now` that is handed on or over (if it reaches the far node by
    /// `by`) where the express line takes it without a slot (`ExpressLine::offer_bare`);
    /// returns when it reaches the far node, or none where `enqueue_express` must decide.
    #[inline(always)]
    pub(super) fn offer_bare(&mut self, t: Transit, now: SimTime, by: SimTime) -> Option<SimTime> {
        let Path::Express(f) = &mut self.path else {
            return None;
        };
        if self.rare_on_offer {
            return None;
        }
        let tx = tx_time(&mut self.tx_time_cache, self.rate, t.size);
        f.offer_bare(t.size, tx, self.delay, now, by)
    }

    /// When the express direction's arrival event is next needed: the first packet on the
    /// line that arrives at the far node, or the first one on its way in, whichever is sooner.
    /// The first inbound packet starts no sooner than it comes in or the transmitter frees up,
    /// and no packet behind it sooner than that either (FIFO), so nothing from the inbound list
    /// reaches the far node before that start plus the delay. If the first is sure to fit the
    /// queue (DropTail), the event is for its own arrival there, one serialisation later;
    /// otherwise (a full queue, or RED, which may drop any packet) it is for that start plus the
    /// delay, to take in what has come by then. A direction that `feeds` others must take a
    /// packet in before it can reach the next node: its event is one nanosecond before
    /// (planning gives feeders a delay of at least that), and it takes in every packet that
    /// has come by then.
    #[inline(always)]
    pub(super) fn next_event_express(&mut self) -> Option<(SimTime, PktId)> {
        let Path::Express(f) = &mut self.path else {
            unreachable!("only express directions take express offers");
        };
        let line = f.next_arrival(self.delay);
        let Some((at, t)) = f.inbound.first() else {
            return line;
        };
        let tx = if !self.gated && f.fits_at(at, t.size) {
            tx_time(&mut self.tx_time_cache, self.rate, t.size)
        } else {
            SimTime::ZERO
        };
        let reach = at.max(f.busy_until()) + tx + self.delay;
        let inbound = if self.feeds {
            reach - SimTime(1)
        } else {
            reach
        };
        let inbound = (inbound, t.pkt);
        Some(line.map_or(inbound, |l| if l.0 <= inbound.0 { l } else { inbound }))
    }

    /// Arms the express path's arrival event for `next` (time, packet); returns its time.
    #[inline(always)]
    pub(super) fn arm_express(&mut self, next: Option<(SimTime, PktId)>) -> Option<SimTime> {
        let at = next.map(|(at, pkt)| {
            self.arrival_pkt = pkt;
            at
        });
        self.arrival_event = OptTime::of(at);
        at
    }
}

/// What an express offer needs from `rare` (`rare_on_offer`), out of the way of plain
/// DropTail's: RED's decision, where it decides (none if it drops the packet), then the
/// wire's loss, if any.
#[inline(never)]
fn rare_offer<'a>(
    rare: &'a mut Option<Box<Rare>>,
    line: &ExpressLine,
    t: Transit,
    now: SimTime,
    arena: &mut PacketArena,
) -> Option<Option<&'a mut WireLoss>> {
    let Some(rare) = rare.as_deref_mut() else {
        return Some(None);
    };
    if let Some(red) = &mut rare.red {
        if !red.admit(line, t, now, arena) {
            return None;
        }
    }
    Some(rare.loss.as_mut())
}
