//! The simulation: nodes, link directions, routes and flows driven by one event loop.
//!
//! Packets move as arena indices: an endpoint sends into `out`, the simulation looks up the
//! next hop and offers the packet to that link direction; the link's transmitter and delay
//! line hand it to the next node, which forwards it or delivers it to its endpoint. Every
//! packet is counted once as injected and once as consumed or dropped, so conservation
//! (`injected = consumed + dropped + in network`) can be checked at any moment.

mod handover;
pub mod one_way_delay;
mod prefetching;
mod routes;

use std::collections::VecDeque;

use crate::app::UdpSource;
use crate::config::Engine;
use crate::config::{SeriesName, SeriesSource};
use crate::engine::{Event, EventQueue};
use crate::net::link::{Fed, Handed, LinkDir, QueueWatch, Transit};
use crate::net::routing::{Routes, NO_ROUTE};
use crate::packet::{Kind, Packet, PacketArena, PktId};
use crate::sim::handover::Handover;
use crate::sim::one_way_delay::Owd;
use crate::sim::prefetching::End;
use crate::sim::routes::FirstHop;
use crate::tcp::timer::{LazyTimer, TimerName, Timers};
use crate::tcp::{Io, Receiver, Sender};
use crate::time::{OptTime, SimTime};
use crate::trace::Recorder;
use crate::util::packed_names::Naming;
use crate::util::packed_option::Opt;

pub struct TcpConn {
    pub sender: Sender,
    pub receiver: Receiver,
}

impl TcpConn {
    /// The timer called `name`, of whichever endpoint owns it.
    #[inline]
    pub(crate) fn timer_mut(&mut self, name: TimerName) -> &mut LazyTimer {
        if name.at_sender() {
            self.sender.timer_mut(name)
        } else {
            self.receiver.timer_mut(name)
        }
    }
}

// Inline, not boxed: an event for a flow then finds its state at an address known from the
// index alone, which the simulation prefetches (`prefetch_upcoming`); UDP flows are few.
#[allow(clippy::large_enum_variant)]
pub enum FlowSlot {
    Tcp(TcpConn),
    Udp(UdpSource),
}

/// Where a packet handed to a fed direction goes after it, if the caller knows (`FirstHop`):
/// `Some` of `Simulation::fed_next` of that direction; `None` to look it up.
type Then = Option<Option<u32>>;

/// What results report about a flow besides its counters.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    pub stop: OptTime,
    /// Its kind and algorithms, by their index in `Naming::labels`: a run has few kinds of
    /// flow, and three names inline took 48 bytes a flow.
    pub labels: u32,
}

/// Packet accounting for the conservation invariant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub injected: u64,
    pub consumed: u64,
    pub dropped: u64,
}

pub struct Simulation {
    pub name: String,
    pub seed: u64,
    pub now: SimTime,
    /// The end of the run, fixed when it is built: direct hand-ins take only packets due by
    /// then (`LinkDir::hand_in`).
    end: SimTime,
    pub(crate) events: EventQueue,
    pub(crate) arena: PacketArena,
    pub names: Naming,
    /// Link directions, the two of each link side by side (forward, then reverse).
    pub links: Vec<LinkDir>,
    pub(crate) routes: Routes,
    /// Per flow, where each end's packets leave (`FirstHop`, planned in `sim/routes.rs`): the
    /// sender's, then the receiver's. Routing each packet sent instead took a chain of five
    /// dependent loads.
    pub(crate) first_hops: Vec<[FirstHop; 2]>,
    pub flows: Vec<FlowSlot>,
    pub info: Vec<FlowInfo>,
    pub(crate) rec: Recorder,
    pub counters: Counters,
    /// Data packets of each flow dropped anywhere in the network.
    pub flow_drops: Vec<u64>,
    /// One-way delay of each flow's data packets (TCP data, UDP) that reached their
    /// destination.
    pub flow_owd: Vec<Owd>,
    /// Delivered bytes per flow at the last throughput bin (empty unless throughput is
    /// recorded).
    bin_mark: Vec<u64>,
    /// Packets the endpoints sent, for `flush` to send on.
    out: Vec<Packet>,
    /// Whether an endpoint is taking a packet ahead of the clock (`sim/handover.rs`).
    pub(crate) early: bool,
    /// Packets handed over early while an endpoint was taking another, waiting for the event's
    /// end, or the next step past `step_end` (`sim/handover.rs`).
    pub(crate) deferred: VecDeque<Handover>,
    /// Where the current `run_until` stops: deferred hand-overs wait for the next step beyond
    /// it (`sim/handover.rs`).
    pub(crate) step_end: SimTime,
    drops: Vec<PktId>,
    /// Packets a general-path direction handed on, while they go to the fed directions.
    handed: Vec<(SimTime, Transit)>,
    /// Endpoints' buffer while they handle a packet (`Io::scratch`).
    scratch: Vec<(u64, u64)>,
    /// Queue series are recorded on change: links report every change as it happens.
    pub(crate) watch_queues: bool,
    /// Where an arrival over each link direction leads, for prefetching (`sim/prefetching.rs`; empty
    /// while it is off).
    pub(crate) ends: Vec<End>,
    /// Whether to prefetch for upcoming events (`sim/prefetching.rs`: where the state outgrows the
    /// cache), and from how many packets in the arena on (`ahead::prefetch_from`).
    pub(crate) prefetching: bool,
    pub(crate) prefetch_from: usize,
}

/// `previous` of a flow's first hop in `walk_paths`: the packet starts at that node.
pub(crate) const ORIGIN: u32 = u32::MAX;

/// Where link direction `l` reports queue changes, if queue series are recorded on change
/// (`on`); a free function so that it borrows only the recorder.
fn watch(on: bool, rec: &mut Recorder, l: u32) -> Option<QueueWatch<'_>> {
    on.then_some(QueueWatch { rec, id: l })
}

impl Simulation {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        seed: u64,
        end: SimTime,
        names: Naming,
        links: Vec<LinkDir>,
        routes: Routes,
        flows: Vec<FlowSlot>,
        info: Vec<FlowInfo>,
        rec: Recorder,
        engine: Engine,
    ) -> Simulation {
        let n = flows.len();
        let mut sim = Simulation {
            name,
            seed,
            now: SimTime::ZERO,
            end,
            events: EventQueue::default(),
            arena: PacketArena::default(),
            names,
            links,
            routes,
            first_hops: Vec::new(),
            flows,
            info,
            rec,
            counters: Counters::default(),
            flow_drops: vec![0; n],
            flow_owd: vec![Owd::default(); n],
            bin_mark: Vec::new(),
            out: Vec::new(),
            early: false,
            deferred: VecDeque::new(),
            step_end: end,
            drops: Vec::new(),
            handed: Vec::new(),
            scratch: Vec::new(),
            watch_queues: false,
            ends: Vec::new(),
            prefetching: false,
            prefetch_from: usize::MAX,
        };
        sim.watch_queues = sim.rec.interval.is_none() && sim.rec.wants_any(SeriesSource::Queue);
        // Packet traces name each packet by its number in the run (`PacketRecord::uid`).
        if sim.links.iter().any(|l| l.packet_log().is_some()) {
            sim.arena.number_packets();
        }
        sim.choose_routes(engine);
        for i in 0..n {
            let start = sim.info[i].start;
            sim.events.schedule(start, Event::Start(i as u32));
            if let Some(stop) = sim.info[i].stop.get() {
                sim.events.schedule(stop, Event::Stop(i as u32));
            }
        }
        if sim.rec.interval.is_some() && sim.rec.any() {
            sim.events.schedule(SimTime::ZERO, Event::Sample);
        }
        if sim.rec.wants(SeriesName::Throughput) {
            sim.bin_mark = vec![0; n];
            let bin = sim.rec.bin;
            sim.events.schedule(bin, Event::Bin);
        }
        sim
    }

    /// Runs every event up to and including time `t` (capped at the end of the run).
    pub fn run_until(&mut self, t: SimTime) {
        let t = t.min(self.end);
        self.step_end = t;
        self.take_deferred();
        while let Some((time, ev)) = self.events.pop_until(t) {
            self.now = time;
            if self.prefetching {
                self.prefetch_upcoming();
            } else if self.arena.peak() >= self.prefetch_from {
                self.start_prefetching();
            }
            self.handle(ev);
            if !self.deferred.is_empty() {
                self.take_deferred();
            }
        }
        self.now = self.now.max(t);
    }

    /// When the run ends.
    pub fn end(&self) -> SimTime {
        self.end
    }

    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }

    /// Packets in queues, on transmitters and propagating, and those handed over early that
    /// wait for a later step of the run (`sim/handover.rs`).
    pub fn packets_in_network(&self) -> u64 {
        let held: u64 = self.links.iter().map(|l| l.packets_held()).sum();
        held + self.deferred.len() as u64
    }

    /// The most packets ever in the network at once.
    pub fn packets_peak(&self) -> usize {
        self.arena.peak()
    }

    /// Packets allocated in the arena (must equal `packets_in_network`).
    pub fn packets_live(&self) -> usize {
        self.arena.live()
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrive(l) => {
                let now = self.now;
                let link = &self.links[l as usize];
                if !link.event_due(now) {
                    return; // made stale by an earlier one (`net/link.rs`)
                }
                // A direct one has nothing to take in by `now` (`LinkDir::hand_in`).
                if link.fed == Fed::Inbound {
                    self.pull(l, now, false);
                }
                let watch = watch(self.watch_queues, &mut self.rec, l);
                let (p, next) =
                    self.links[l as usize].arrive(&mut self.arena, now, &mut self.drops, watch);
                if let Some(t) = next {
                    self.events.schedule(t, Event::Arrive(l));
                }
                self.hand_on(l);
                self.free_drops();
                if let Some(t) = p {
                    let node = self.links[l as usize].to;
                    if t.dst == node {
                        self.deliver(t.pkt);
                    } else {
                        self.forward(node, t);
                    }
                }
            }
            Event::Timer(name, i) => self.on_timer(i as usize, name),
            Event::Start(i) => self.on_start(i as usize),
            Event::Stop(i) => {
                if let FlowSlot::Tcp(c) = &mut self.flows[i as usize] {
                    c.sender.stop();
                }
            }
            Event::UdpSend(i) => self.on_udp_send(i as usize),
            Event::Sample => self.sample(),
            Event::Bin => self.bin(),
        }
    }

    /// Offers a packet at `node` to the link towards its destination.
    fn forward(&mut self, node: u32, t: Transit) {
        let hop = self.first_hop(node, t.dst);
        // Routes are checked when the scenario is built, so every flow's path exists.
        debug_assert_ne!(hop.link, NO_ROUTE);
        self.forward_over(hop, t);
    }

    /// Offers a packet to direction `hop.link`, which hands it on to `hop.fed` if any.
    #[inline(always)]
    fn forward_over(&mut self, hop: FirstHop, t: Transit) {
        if let Some(d) = hop.fed.get() {
            self.cut_through(hop.link, d, t, self.now, Some(hop.then.get()));
            self.free_drops();
            return;
        }
        self.offer(hop.link, t);
    }

    /// Offers a packet to direction `l`, which does not hand it on.
    #[inline(always)]
    fn offer(&mut self, l: u32, t: Transit) {
        let now = self.now;
        let watch = watch(self.watch_queues, &mut self.rec, l);
        let link = &mut self.links[l as usize];
        if let Some(at) = link.offer(t, &mut self.arena, now, &mut self.drops, watch) {
            self.events.schedule(at, Event::Arrive(l));
        }
        self.hand_on(l);
        self.free_drops();
    }

    /// Hands the packets a general-path direction `l` handed on as they left (`net/general_path.rs`)
    /// to the fed directions after it; call after every call that may replay its transmitter.
    #[inline(always)]
    fn hand_on(&mut self, l: u32) {
        if self.links[l as usize].has_handed() {
            self.hand_on_slow(l);
        }
    }

    #[inline(never)]
    fn hand_on_slow(&mut self, l: u32) {
        let mut buf = std::mem::take(&mut self.handed);
        self.links[l as usize].take_handed(&mut buf);
        let node = self.links[l as usize].to;
        for &(at, t) in &buf {
            // Armed a nanosecond before the packet on the transmitter could reach the node,
            // the direction hands each packet on before it gets there.
            debug_assert!(at > self.now, "handed on too late");
            let e = self.routes.next_hop(node, t.dst);
            debug_assert!(
                self.links[e as usize].is_fed(),
                "handed on to a direction not fed"
            );
            self.hand_to(l, e, t, at, None);
        }
        buf.clear();
        self.handed = buf;
        if self.prefetching {
            self.prefetch_handed(l);
        }
    }

    /// The direction after `l` towards `dst`, if `l` hands its packets on to it (cut-through).
    #[inline(always)]
    pub(crate) fn fed_next(&self, l: u32, dst: u32) -> Option<u32> {
        let link = &self.links[l as usize];
        if !link.feeds || dst == link.to {
            return None;
        }
        let d = self.routes.next_hop(link.to, dst);
        self.links[d as usize].is_fed().then_some(d)
    }

    /// Offers a packet to link direction `l` at `now`, which hands it on to `d`
    /// (cut-through; `then`, if known, is `fed_next` of `d`); the caller frees the drops.
    #[inline(always)]
    fn cut_through(&mut self, l: u32, d: u32, t: Transit, now: SimTime, then: Then) {
        let (arena, drops) = (&mut self.arena, &mut self.drops);
        if let Some(at) = self.links[l as usize].offer_through(t, now, arena, drops) {
            self.hand_to(l, d, t, at, then);
        }
    }

    /// Hands packet `t`, which reaches fed direction `d`'s near node at `at` over direction
    /// `l`, to `d`: onto its line (`LinkDir::hand_in`), or into its inbound list with where
    /// it goes after `d` (`push_inbound`). A direct direction that feeds the next one offers
    /// it there and then and hands it on in turn, along a chain of relays that each have one
    /// feeder; the caller frees the drops.
    /// `then`, if known, is `fed_next` of `d` (`FirstHop`).
    #[inline(always)]
    fn hand_to(&mut self, mut l: u32, mut d: u32, t: Transit, mut at: SimTime, mut then: Then) {
        loop {
            let link = &self.links[d as usize];
            if link.fed == Fed::Direct && link.feeds && at <= self.end {
                let next = match then.take() {
                    Some(known) => known,
                    None => self.fed_next(d, t.dst),
                };
                if let Some(e) = next {
                    let (arena, drops) = (&mut self.arena, &mut self.drops);
                    let Some(next) = self.links[d as usize].offer_through(t, at, arena, drops)
                    else {
                        return;
                    };
                    (l, d, at) = (d, e, next);
                    continue;
                }
            }
            if link.waits_inbound(at, self.end) {
                // It waits with where it goes after `d`, known as it comes (`net/inbound.rs`).
                let then = Opt::of(then.unwrap_or_else(|| self.fed_next(d, t.dst)));
                if let Some(ev) = self.links[d as usize].push_inbound(at, l, t, then) {
                    self.events.schedule(ev, Event::Arrive(d));
                }
                return;
            }
            let (arena, drops) = (&mut self.arena, &mut self.drops);
            match self.links[d as usize].hand_in(at, t, self.end, arena, drops) {
                Handed::Held => {}
                Handed::Event(ev) => self.events.schedule(ev, Event::Arrive(d)),
                Handed::Deliver(arrival) => self.deliver_early(d, t.pkt, arrival),
            }
            return;
        }
    }

    /// Fed direction `d` takes in the packets that reach its near node by `upto` (before it,
    /// if `exclusive`), each offered at its own time, in order; it hands on those whose next
    /// direction is fed too.
    fn pull(&mut self, d: u32, upto: SimTime, exclusive: bool) {
        if !self.links[d as usize].is_express() {
            self.pull_general(d, upto, exclusive);
            return;
        }
        while let Some((at, t, then)) = self.links[d as usize].take_inbound(upto, exclusive) {
            match then.get() {
                Some(e) => {
                    if self.prefetching {
                        self.prefetch_pull(d);
                    }
                    self.cut_through(d, e, t, at, None);
                }
                None => {
                    // It arrives at the far node: the arrival event, armed after the pull,
                    // covers it.
                    let link = &mut self.links[d as usize];
                    link.take_in(t, at, &mut self.arena, &mut self.drops);
                }
            }
        }
        self.free_drops();
    }

    /// `pull` for a fed direction on the general path (`net/general_path.rs`): it hands packets on
    /// as they leave, not as they come in.
    #[inline(never)]
    fn pull_general(&mut self, d: u32, upto: SimTime, exclusive: bool) {
        let watch = watch(self.watch_queues, &mut self.rec, d);
        let link = &mut self.links[d as usize];
        link.take_in_general(upto, exclusive, &mut self.arena, &mut self.drops, watch);
        self.hand_on(d);
        self.free_drops();
    }

    /// Brings every link direction up to `now` (before reading queue state). With
    /// `instant_begins`, the state is the one `now`'s arrivals find (a sample: `engine/mod.rs`).
    pub(crate) fn settle(&mut self, instant_begins: bool) {
        let now = self.now;
        for l in 0..self.links.len() {
            // What a fed direction takes in by now changes nothing downstream before now
            // (`net/link.rs`): the order of directions does not matter.
            if self.links[l].fed == Fed::Inbound {
                self.pull(l as u32, now, instant_begins);
            }
            let mut watch = watch(self.watch_queues, &mut self.rec, l as u32);
            self.links[l].advance(&mut self.arena, now, &mut self.drops, watch.as_mut());
            self.hand_on(l as u32);
        }
        self.free_drops();
    }

    /// The name of the link direction `l` belongs to.
    pub fn link_name(&self, l: usize) -> &str {
        &self.names.links[l / 2]
    }

    /// Nearly always nothing to do: inlined as the test of an empty list wherever packets may
    /// have been dropped (LLVM's own choice moves with unrelated changes).
    #[inline(always)]
    fn free_drops(&mut self) {
        if !self.drops.is_empty() {
            self.free_drops_slow();
        }
    }

    fn free_drops_slow(&mut self) {
        for p in self.drops.drain(..) {
            let pkt = self.arena.get(p);
            if pkt.kind != Kind::TcpAck {
                self.flow_drops[pkt.flow as usize] += 1;
            }
            self.counters.dropped += 1;
            self.arena.free(p);
        }
    }

    /// Sends, in order, what flow `i`'s sender (if `sender`, else its receiver) put in `out`
    /// after position `base`, over its first hop (`first_hops`). Those before it are an outer
    /// call's, still to be sent: sending may hand a packet to another endpoint early
    /// (`sim/handover.rs`), which sends from within this call, above the outer's. The packets are
    /// reversed and popped, so that nothing else moves: swapping a spare buffer in and out
    /// would cost more than sending the few packets a flush usually holds
    /// (docs/performance-history.md, 0.6.2).
    fn flush(&mut self, i: usize, sender: bool, base: usize) {
        if self.out.len() > base + 1 {
            self.out[base..].reverse();
        }
        let hop = self.first_hops[i][!sender as usize];
        while self.out.len() > base {
            let Some(p) = self.out.last() else { break };
            self.counters.injected += 1;
            let (size, dst) = (p.size, p.dst);
            debug_assert_eq!(
                p.flow as usize, i,
                "an endpoint sends its own flow's packets"
            );
            debug_assert_eq!(hop, self.first_hop(p.src, dst));
            let pkt = self.arena.alloc_last(&mut self.out);
            self.forward_over(hop, Transit { pkt, size, dst });
        }
    }

    /// Runs `f` on flow `i` with an I/O context (disjoint borrows of the simulation's fields).
    fn with_flow<R>(&mut self, i: usize, f: impl FnOnce(&mut FlowSlot, &mut Io) -> R) -> R {
        let mut io = Io {
            now: self.now,
            out: &mut self.out,
            rec: &mut self.rec,
            scratch: &mut self.scratch,
        };
        f(&mut self.flows[i], &mut io)
    }

    pub(crate) fn deliver(&mut self, p: PktId) {
        let pkt = self.arena.get(p);
        self.deliver_of(p, pkt.flow as usize, pkt.kind);
    }

    /// `deliver` of packet `p` of flow `i`, of `kind`, where the caller knows them.
    #[inline(always)]
    pub(crate) fn deliver_of(&mut self, p: PktId, i: usize, kind: Kind) {
        self.counters.consumed += 1;
        // The endpoint reads the packet where it lies (borrowing the arena, not copying it);
        // what it sends goes to `out`, moved into the arena once it is done.
        let pkt = self.arena.get(p);
        if kind != Kind::TcpAck {
            self.flow_owd[i].add(pkt.created, self.now);
        }
        let base = self.out.len();
        let mut io = Io {
            now: self.now,
            out: &mut self.out,
            rec: &mut self.rec,
            scratch: &mut self.scratch,
        };
        match (&mut self.flows[i], kind) {
            (FlowSlot::Tcp(c), Kind::TcpData) => c.receiver.on_data(pkt, &mut io),
            (FlowSlot::Tcp(c), Kind::TcpAck) => c.sender.on_ack(pkt, &mut io),
            (FlowSlot::Udp(c), Kind::Udp) => c.on_receive(pkt.payload.into()),
            _ => unreachable!("packet kind does not match its flow"),
        }
        self.arena.free(p);
        // A TCP sender takes ACKs; a receiver, TCP or UDP, takes data.
        self.flush(i, kind == Kind::TcpAck, base);
        self.arm_timers_of(i, kind == Kind::TcpAck);
    }

    fn on_start(&mut self, i: usize) {
        let base = self.out.len();
        let next = self.with_flow(i, |slot, io| match slot {
            FlowSlot::Tcp(c) => {
                c.sender.start(io);
                None
            }
            FlowSlot::Udp(c) => c.start(io),
        });
        if let Some(t) = next {
            self.events.schedule(t, Event::UdpSend(i as u32));
        }
        self.flush(i, true, base);
        self.arm_timers(i);
    }

    fn on_udp_send(&mut self, i: usize) {
        let base = self.out.len();
        let next = self.with_flow(i, |slot, io| match slot {
            FlowSlot::Udp(c) => c.send(io),
            FlowSlot::Tcp(_) => None,
        });
        if let Some(t) = next {
            self.events.schedule(t, Event::UdpSend(i as u32));
        }
        self.flush(i, true, base);
    }

    /// The event of flow `i`'s timer `name` at now: expires the timer if it is due (a lazy
    /// timer's event may come early or be stale), and re-arms.
    fn on_timer(&mut self, i: usize, name: TimerName) {
        let now = self.now;
        let due = match &mut self.flows[i] {
            FlowSlot::Tcp(c) => c.timer_mut(name).fired(now),
            FlowSlot::Udp(_) => false,
        };
        if due {
            self.expire(i, name);
        } else {
            self.arm_timers_of(i, name.at_sender());
        }
    }

    /// Expires flow `i`'s timer `name` at now: the endpoint that owns it acts on it, sends
    /// what it has to, and its timers are armed again.
    pub(crate) fn expire(&mut self, i: usize, name: TimerName) {
        let base = self.out.len();
        let sender = name.at_sender();
        self.with_flow(i, |slot, io| {
            if let FlowSlot::Tcp(c) = slot {
                if sender {
                    c.sender.on_timer(name, io);
                } else {
                    c.receiver.on_timer(name, io);
                }
            }
        });
        self.flush(i, sender, base);
        self.arm_timers_of(i, sender);
    }

    /// Schedules the events the connection's lazy timers need.
    fn arm_timers(&mut self, i: usize) {
        self.arm_timers_of(i, true);
        self.arm_timers_of(i, false);
    }

    /// Schedules the events flow `i`'s sender's (`sender`) or receiver's timers need. What one
    /// endpoint does moves only its own timers, and the other endpoint's state is not in the
    /// cache (`sim/prefetching.rs` fetches only the endpoint a packet reaches).
    #[inline]
    fn arm_timers_of(&mut self, i: usize, sender: bool) {
        let FlowSlot::Tcp(c) = &mut self.flows[i] else {
            return;
        };
        let events = &mut self.events;
        let now = self.now;
        let mut arm = |name: TimerName, timer: &mut LazyTimer| {
            if let Some(t) = timer.needs_event() {
                // An event in the past would run time backwards.
                debug_assert!(
                    t >= now,
                    "timer {name:?} of flow {i} armed for {t:?} at {now:?}"
                );
                events.schedule(t, Event::Timer(name, i as u32));
            }
        };
        // Constant names, so that each endpoint's timers are reached directly.
        if sender {
            for name in TimerName::SENDER {
                arm(name, c.sender.timer_mut(name));
            }
        } else {
            for name in TimerName::RECEIVER {
                arm(name, c.receiver.timer_mut(name));
            }
        }
    }

    /// Periodic samples of the windows, RTT estimates and queue lengths.
    fn sample(&mut self) {
        self.settle(true);
        let now = self.now;
        for (i, f) in self.flows.iter().enumerate() {
            if let FlowSlot::Tcp(c) = f {
                let id = i as u32;
                let rec = &mut self.rec;
                c.sender.observe(|n, v| rec.record(n, id, now, v));
            }
        }
        for (l, link) in self.links.iter().enumerate() {
            self.rec
                .record(SeriesName::Queue, l as u32, now, link.len_packets() as f64);
            self.rec.record(
                SeriesName::QueueBytes,
                l as u32,
                now,
                link.len_bytes() as f64,
            );
            if let Some(avg) = link.avg_queue() {
                self.rec.record(SeriesName::AvgQueue, l as u32, now, avg);
            }
            let sojourn = link.last_sojourn().as_secs_f64();
            self.rec.record(SeriesName::Sojourn, l as u32, now, sojourn);
        }
        if let Some(iv) = self.rec.interval {
            let next = now + iv;
            if next <= self.end {
                self.events.schedule(next, Event::Sample);
            }
        }
    }

    /// Closes a throughput bin: delivered bits per second of each flow over the bin.
    fn bin(&mut self) {
        let now = self.now;
        let width = self.rec.bin.as_secs_f64();
        for i in 0..self.flows.len() {
            let d = self.delivered_bytes(i);
            let rate = (d - self.bin_mark[i]) as f64 * 8.0 / width;
            self.bin_mark[i] = d;
            self.rec.record(SeriesName::Throughput, i as u32, now, rate);
        }
        let next = now + self.rec.bin;
        if next <= self.end {
            self.events.schedule(next, Event::Bin);
        }
    }

    /// Unique payload bytes delivered to flow `i`'s receiver so far.
    pub fn delivered_bytes(&self, i: usize) -> u64 {
        match &self.flows[i] {
            FlowSlot::Tcp(c) => c.receiver.rcv_nxt,
            FlowSlot::Udp(c) => c.bytes_received,
        }
    }

    pub(crate) fn take_recorder(&mut self) -> Recorder {
        std::mem::take(&mut self.rec)
    }
}
