//! A link direction's roles in cut-through (`net/link.rs`, whose notes explain it): whether it
//! is fed and feeds, and how it takes the packets handed to it — into its inbound list, or
//! straight onto its line (direct), handing them to the endpoint at once (delivering) — and
//! how it takes them in from the list and hands them on.

use super::{LinkDir, Path, QueueWatch, Transit};
use crate::net::express::{Hand, Offered};
use crate::net::general_path::HandOn;
use crate::net::inbound::Taken;
use crate::packet::{PacketArena, PktId};
use crate::time::SimTime;
use crate::util::packed_option::Opt;

/// How a direction takes the packets its feeders hand on (cut-through, `net/link.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Fed {
    /// Not fed: packets are offered to it as they reach its near node.
    No,
    /// Into its inbound list, offered to its line each at its own time when it is next
    /// touched.
    Inbound,
    /// Straight onto its line at the time it will reach the near node (`hand_in`; a relay
    /// hands each on in turn, `sim.rs`): the direction has one feeder and a plain DropTail
    /// line.
    Direct,
    /// As `Direct`, and each packet is handed to the far node's one endpoint, a TCP receiver or
    /// sender, as it is handed on, for the time it arrives there (`hand_in`, `sim/handover.rs`): the
    /// direction is its packets' last hop and feeds none.
    Delivering,
}

/// What a fed direction did with a packet handed to it (`LinkDir::hand_in`).
pub enum Handed {
    /// Dropped, or nothing to do before the pending event.
    Held,
    /// Schedule the direction's arrival event for this time.
    Event(SimTime),
    /// Deliver it now, for this time of arrival; the line keeps only its timetable, if that
    /// (`net/express/mod.rs`: a packet from an idle line with nothing to arrive takes no slot).
    Deliver(SimTime),
}

impl LinkDir {
    /// Ends any cut-through role; call before any packet is offered.
    pub fn clear_cut_through(&mut self) {
        self.fed = Fed::No;
        self.feeds = false;
        if let Path::General(g) = &mut self.path {
            g.hand_on = None;
        }
    }

    /// Makes a direction on the general path feed the fed directions after it, for packets to
    /// `dsts` (`net/general_path.rs`); call before any packet is offered. (An express direction feeds
    /// through `feeds`, deciding per packet as it offers it.)
    pub fn set_hand_on(&mut self, dsts: Vec<u32>) {
        let Path::General(g) = &mut self.path else {
            unreachable!("express directions feed through `feeds`");
        };
        g.hand_on = Some(Box::new(HandOn::new(dsts)));
    }

    /// Whether this general-path direction handed packets on since `take_handed` last took
    /// them (`sim.rs` hands them to the fed directions after every call that may have).
    #[inline(always)]
    pub fn has_handed(&self) -> bool {
        match &self.path {
            Path::Express(_) => false,
            Path::General(g) => g.hand_on.as_ref().is_some_and(|h| !h.out.is_empty()),
        }
    }

    /// Swaps the packets this general-path direction handed on (each with the time it reaches
    /// the next node) into `buf`, which must be empty; the direction keeps `buf`'s capacity.
    pub fn take_handed(&mut self, buf: &mut Vec<(SimTime, Transit)>) {
        debug_assert!(buf.is_empty());
        if let Path::General(g) = &mut self.path {
            if let Some(h) = &mut g.hand_on {
                std::mem::swap(&mut h.out, buf);
            }
        }
    }

    /// Makes the direction fed (cut-through); call before any packet is offered.
    pub fn set_fed(&mut self) {
        self.fed = Fed::Inbound;
    }

    /// Whether other directions hand this one all its packets (cut-through).
    #[inline(always)]
    pub fn is_fed(&self) -> bool {
        self.fed != Fed::No
    }

    /// Whether a fed direction can take its packets straight onto its line (`Fed::Direct`):
    /// an express line with no wire loss or RED in front.
    pub fn can_take_direct(&self) -> bool {
        self.is_fed() && self.is_express() && !self.rare_on_offer
    }

    /// Makes a fed direction take its packets straight onto its line; call before any packet
    /// is offered, where `can_take_direct` and it has one feeder (`sim/routes.rs`).
    pub fn set_direct(&mut self) {
        debug_assert!(self.can_take_direct());
        self.fed = Fed::Direct;
    }

    /// Whether the direction an endpoint behind a delivering direction sends by can take its
    /// packets as the endpoint handles what it receives, ahead of the clock (`sim/handover.rs`): a
    /// plain express line that nothing feeds, whose every offer is then in time order.
    pub fn can_carry_early_replies(&self) -> bool {
        self.is_express() && !self.rare_on_offer && !self.is_fed()
    }

    /// Makes a direct direction deliver its packets as they are handed on; call before any
    /// packet is offered, where the simulation has checked that nothing reads the endpoint
    /// before the packet's time (`sim/handover.rs`, `plan_delivering`).
    pub fn set_delivering(&mut self) {
        debug_assert!(self.fed == Fed::Direct && !self.feeds);
        self.fed = Fed::Delivering;
    }

    /// Offers a packet at `now` to be handed on to a direction this one feeds (express only),
    /// without arming the arrival event. Returns when it reaches the far node (the next
    /// direction's near node), unless the queue drops it or the wire loses it; from then on it
    /// belongs to the next direction (`push_inbound`). `arena` is read only where RED may mark.
    #[inline]
    pub fn offer_through(
        &mut self,
        t: Transit,
        now: SimTime,
        arena: &mut PacketArena,
        drops: &mut Vec<PktId>,
    ) -> Option<SimTime> {
        if let Some(at) = self.offer_bare(t, now, SimTime::MAX) {
            return Some(at);
        }
        match self.enqueue_express(t, now, Hand::On, arena, drops) {
            Offered::Handed(at) => Some(at),
            Offered::Arrives(_) => unreachable!("a packet handed on does not arrive here"),
            Offered::Dropped | Offered::Lost => None,
        }
    }

    /// Whether a packet handed on to this fed direction, reaching its near node at `at`, waits
    /// in the inbound list (`push_inbound`), or goes straight onto the line (`hand_in`):
    /// `horizon` is the end of the run.
    #[inline(always)]
    pub fn waits_inbound(&self, at: SimTime, horizon: SimTime) -> bool {
        !matches!(self.fed, Fed::Direct | Fed::Delivering) || at > horizon
    }

    /// Puts a packet handed on by feeding direction `feeder`, reaching this one's near node at
    /// `at`, in the inbound list (`waits_inbound`), with `then`, the direction this one hands
    /// it on to, if any (`Simulation::fed_next`). Returns the time of an arrival event to
    /// schedule, if it moved the pending one earlier or there was none.
    #[inline]
    pub fn push_inbound(
        &mut self,
        at: SimTime,
        feeder: u32,
        t: Transit,
        then: Opt<u32>,
    ) -> Option<SimTime> {
        let f = match &mut self.path {
            Path::Express(f) => f,
            Path::General(_) => return self.push_inbound_general(at, feeder, t),
        };
        if !f.inbound.push(at, feeder, t, then) {
            // Behind the first: it cannot reach the far node, or the next one, earlier.
            return None;
        }
        let next = self.next_event_express()?;
        self.arm_if_sooner(next)
    }

    /// Takes a packet handed on to this `Fed::Direct` or `Fed::Delivering` direction, reaching
    /// its near node at `at`, by `horizon`, the end of the run (else it waits inbound:
    /// `waits_inbound`), and says what the simulation is to do with it (`Handed`).
    ///
    /// A `Fed::Direct` direction offers it to its line at once, for time `at`, to arrive at
    /// the far node (a relay's packets for a fed direction are offered to be handed on
    /// instead, by the simulation). Its one feeder hands packets on in the order they reach the
    /// node, and nothing else offers to the line, so each offer finds the line as it would at
    /// `at`; the packet arrives at the far node at the time the inbound list would have given
    /// it, and a packet the queue drops is dropped now instead of at `at`. The line then holds
    /// packets that have not reached it yet, which only a reading at a time before `at` would
    /// see: the simulation reads a direct line's state only at the end of the run, and plans no
    /// direct direction where queues are sampled (`sim/routes.rs`, `set_cut_through`). Packets due
    /// after `horizon` go to the inbound list, which the run never takes them from: every later
    /// one is due after `horizon` too.
    ///
    /// A `Fed::Delivering` direction does the same, and if the packet reaches the far node by
    /// `horizon` and no packet before it is still to arrive by its event, the simulation hands
    /// it to the endpoint for that time, without an event, and the line keeps only its
    /// timetable (`sim/handover.rs`), or nothing but its departure (`ExpressLine::offer_bare`).
    #[inline(always)]
    pub fn hand_in(
        &mut self,
        at: SimTime,
        t: Transit,
        horizon: SimTime,
        arena: &mut PacketArena,
        drops: &mut Vec<PktId>,
    ) -> Handed {
        debug_assert!(!self.waits_inbound(at, horizon));
        let hand = if self.fed == Fed::Delivering {
            if let Some(arrival) = self.offer_bare(t, at, horizon) {
                return Handed::Deliver(arrival);
            }
            Hand::Over(horizon)
        } else {
            Hand::Arrive
        };
        let arrival = match self.enqueue_express(t, at, hand, arena, drops) {
            Offered::Arrives(arrival) => arrival,
            Offered::Handed(arrival) => return Handed::Deliver(arrival),
            Offered::Dropped | Offered::Lost => return Handed::Held,
        };
        // Behind every packet on the line, it needs an event only if none is pending.
        self.arm_if_sooner((arrival, t.pkt))
            .map_or(Handed::Held, Handed::Event)
    }

    /// Arms the arrival event for `next` (time, packet) unless the pending one is as soon; a
    /// pending event that is later goes stale (`event_due`). Returns the time to schedule.
    #[inline(always)]
    fn arm_if_sooner(&mut self, next: (SimTime, PktId)) -> Option<SimTime> {
        if self.arrival_event.get().is_some_and(|p| p <= next.0) {
            return None;
        }
        self.arm_express(Some(next))
    }

    /// `push_inbound` for a fed direction on the general path (`net/general_path.rs`).
    #[inline(never)]
    fn push_inbound_general(&mut self, at: SimTime, feeder: u32, t: Transit) -> Option<SimTime> {
        let Path::General(g) = &mut self.path else {
            unreachable!("called for the general path");
        };
        // It hands packets on as they leave, finding where each goes then (`net/general_path.rs`).
        if !g.inbound.push(at, feeder, t, Opt::NONE) {
            return None;
        }
        let next = g.next_event(self.delay)?;
        // The packet is a prefetching hint only (`arriving_hint`).
        self.arm_if_sooner((next, t.pkt))
    }

    /// Takes the first packet of the inbound list if it reaches the near node by `upto`
    /// (before it, if `exclusive`), to be offered at that time, with the direction it is handed
    /// on to next, if any. (Express path; the general path's is `take_in_general`.)
    #[inline]
    pub fn take_inbound(&mut self, upto: SimTime, exclusive: bool) -> Option<Taken> {
        match &mut self.path {
            Path::Express(f) => f.inbound.take_until(upto, exclusive),
            Path::General(_) => None,
        }
    }

    /// Offers a packet taken from the inbound list at `at`, when it reached the near node,
    /// without arming the arrival event (the caller's event, or the pending one, covers it:
    /// `sim.rs`, `pull`). Express path.
    #[inline]
    pub fn take_in(
        &mut self,
        t: Transit,
        at: SimTime,
        arena: &mut PacketArena,
        drops: &mut Vec<PktId>,
    ) {
        self.enqueue_express(t, at, Hand::Arrive, arena, drops);
    }

    /// A fed direction on the general path takes in, each at its own time and in order, the
    /// packets that reach its near node by `upto` (before it, if `exclusive`), without arming
    /// its arrival event (as `take_in`); queue changes go to `watch` as they happen. What
    /// leaves meanwhile for a fed direction waits for `take_handed`.
    pub fn take_in_general(
        &mut self,
        upto: SimTime,
        exclusive: bool,
        arena: &mut PacketArena,
        drops: &mut Vec<PktId>,
        mut watch: Option<QueueWatch>,
    ) {
        let (Path::General(g), mut w) = self.split() else {
            unreachable!("called for the general path");
        };
        while let Some((at, t, _)) = g.inbound.take_until(upto, exclusive) {
            if g.prefetch {
                if let Some((next, _)) = g.inbound.ahead(1) {
                    arena.prefetch(next.pkt);
                }
            }
            let watch = watch.as_mut().map(|q| QueueWatch {
                rec: q.rec,
                id: q.id,
            });
            g.take(t, arena, at, drops, &mut w, watch);
        }
    }
}
