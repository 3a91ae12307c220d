//! Fetching the state of the events that come next into the cache while the current one runs.
//!
//! With thousands of flows, what an event touches has left the cache since that flow's last
//! packet: the link direction whose arrival it is, the packet arriving, the endpoint it
//! reaches, and the direction the endpoint's reply leaves by. Each first touch would wait for
//! memory, one after the other. The event queue knows the events that come next where several
//! share a tick (`engine/wheel.rs`), so while one runs the simulation prefetches (`util/prefetch.rs`)
//! in two steps, so that no prefetch waits for a load that is still missing:
//!
//! 1. for the event after next: its direction's first lines and its `End`;
//! 2. for the next event (whose direction and `End` step 1 fetched one event earlier): the
//!    packet the direction expects, the ends of its inbound run, the endpoint's state and the
//!    direction of its reply.
//!
//! A direction that feeds others (a bottleneck handing packets on to the receivers' access
//! links) takes many packets in at one event, each going to a direction whose state is cold.
//! Its inbound run tells which come next, so as it hands one on it prefetches, in the same two
//! steps, the direction the packet after next goes to and the inbound run of the next one's
//! (`prefetch_pull`) — and where that direction delivers its packets at once (`sim/handover.rs`),
//! what their arrival events would have fetched: the packet, its receiver and the direction of
//! the receiver's ACKs.
//!
//! Where the state of the links and flows fits a core's own caches, as with tens of flows, it
//! stays there and prefetching would only add instructions: the simulation prefetches only
//! where that state outgrows `PREFETCH_ABOVE`, or from the moment the packets in flight would
//! push a smaller one out (`prefetch_from`).
//!
//! A direction on the general path (any discipline but DropTail and RED, `net/general_path.rs`)
//! learns where a packet goes only as it leaves the transmitter. While it takes packets in, it
//! prefetches the one after; as it starts transmitting one, the one its queue holds next; and
//! as it hands one on, where the packet now on the transmitter goes (`prefetch_handed`).
//!
//! Prefetches are hints: a wrong guess (an event scheduled in between, a stale hint) costs a
//! few instructions and changes no result.

use crate::engine::Event;
use crate::net::link::{Fed, LinkDir};
use crate::packet::Packet;
use crate::sim::one_way_delay::Owd;
use crate::sim::{FlowSlot, Simulation, ORIGIN};
use crate::time::OptTime;
use crate::util::prefetch;

/// Bytes of link and flow state above which prefetching pays: a core's private caches (L1
/// and L2) hold 0.5 to 2 MiB on current processors, and the packets in flight and the event
/// queue need room too.
const PREFETCH_ABOVE: usize = 1 << 20;

/// Below `PREFETCH_ABOVE`, link and flow state from which the packets in flight can push it
/// out of the cache: where it and the arena's packets together outgrow `PREFETCH_WITH`.
/// About 75 dumbbell flows. Fewer flows' state is read so often that it stays in the cache
/// whatever passes through; more, with few packets in flight, stays too
/// (docs/performance.md, 0.6.5).
const PREFETCH_STATE: usize = 1 << 17;
const PREFETCH_WITH: usize = 2 << 20;

/// From how many packets in the arena (its high-water mark, `PacketArena::peak`) prefetching
/// pays: 0 where the link and flow state alone outgrow `PREFETCH_ABOVE`; never (`usize::MAX`)
/// where it is under `PREFETCH_STATE`; else where the packets bring the whole over
/// `PREFETCH_WITH`. The simulation turns prefetching on as the arena reaches it
/// (`Simulation::run_until`), and never off: the high-water mark only grows.
pub(crate) fn prefetch_from(sim: &Simulation) -> usize {
    let links = sim.links.len() * std::mem::size_of::<LinkDir>();
    let flows = sim.flows.len() * std::mem::size_of::<FlowSlot>();
    let state = links + flows;
    if state > PREFETCH_ABOVE {
        0
    } else if state < PREFETCH_STATE {
        usize::MAX
    } else {
        (PREFETCH_WITH - state) / std::mem::size_of::<Packet>()
    }
}

/// `End::flow` and `End::reply` where there is none.
const NONE: u32 = u32::MAX;

/// Where an arrival over a link direction leads, when the far node is one flow's endpoint for
/// every packet the direction carries (each dumbbell access link): the flow, which bytes of its
/// slot the endpoint's state is, and the direction its replies leave by (the first hop of the
/// path back; `NONE` for a one-way flow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct End {
    flow: u32,
    reply: u32,
    /// Offset and length of the endpoint's state within the flow's slot (a slot is well
    /// under 64 kB: `FlowSlot`).
    at: u16,
    bytes: u16,
}

// `End::at` and `End::bytes` address a flow's slot in 16 bits.
const _: () = assert!(std::mem::size_of::<FlowSlot>() <= u16::MAX as usize);

impl End {
    const NO: End = End {
        flow: NONE,
        reply: NONE,
        at: 0,
        bytes: 0,
    };
}

/// One `End` per link direction, from the flows' paths (`Simulation::walk_paths`).
fn plan_ends(sim: &Simulation) -> Vec<End> {
    // Per flow, the first and last direction of its path out and of its path back.
    let mut paths: Vec<Vec<(u32, u32)>> = vec![Vec::new(); sim.flows.len()];
    sim.walk_paths(|i, prev, l, _| {
        if prev == ORIGIN {
            paths[i].push((l, l));
        }
        if let Some(p) = paths[i].last_mut() {
            p.1 = l;
        }
    });
    let mut ends = vec![End::NO; sim.links.len()];
    let mut claimed = vec![false; sim.links.len()];
    for (i, p) in paths.iter().enumerate() {
        let slot = &sim.flows[i];
        let base = slot as *const FlowSlot as usize;
        // The part of the slot the endpoint at the end of path `k` reads.
        let part = |k: usize| -> (usize, usize) {
            match slot {
                FlowSlot::Tcp(c) if k == 0 => (
                    &c.receiver as *const _ as usize - base,
                    std::mem::size_of_val(&c.receiver),
                ),
                FlowSlot::Tcp(c) => (
                    &c.sender as *const _ as usize - base,
                    std::mem::size_of_val(&c.sender),
                ),
                FlowSlot::Udp(_) => (0, std::mem::size_of::<FlowSlot>()),
            }
        };
        for (k, &(_, last)) in p.iter().enumerate() {
            let l = last as usize;
            if claimed[l] {
                // Two flows end here: no one endpoint to fetch.
                ends[l] = End::NO;
                continue;
            }
            claimed[l] = true;
            let (at, bytes) = part(k);
            // Replies to what came over path `k` take the other path's first hop.
            let reply = match p.len() {
                2 => p[1 - k].0,
                _ => NONE,
            };
            ends[l] = End {
                flow: i as u32,
                reply,
                at: at as u16,
                bytes: bytes as u16,
            };
        }
    }
    ends
}

impl Simulation {
    /// Turns prefetching for upcoming events on or off, and with it the event queue's look
    /// ahead, which names the first events of each tick too (`engine/wheel.rs`), and the
    /// directions' `End`s, which only prefetching reads.
    pub(crate) fn set_prefetching(&mut self, on: bool) {
        self.prefetching = on;
        for link in &mut self.links {
            link.set_prefetch(on);
        }
        self.events.look_ahead(on);
        self.ends = if on { plan_ends(self) } else { Vec::new() };
    }

    /// Turns prefetching on as the packets in flight reach `prefetch_from`.
    #[cold]
    pub(crate) fn start_prefetching(&mut self) {
        self.set_prefetching(true);
    }

    /// Prefetches for the events that probably come next (see the module notes).
    #[inline(always)]
    pub(crate) fn prefetch_upcoming(&self) {
        let Some(next) = self.events.upcoming(0) else {
            return;
        };
        if let Some(Event::Arrive(l)) = self.events.upcoming(1) {
            self.links[l as usize].prefetch();
            prefetch::lines(&self.ends[l as usize], std::mem::size_of::<End>());
        }
        if let Event::Arrive(l) = next {
            let link = &self.links[l as usize];
            self.arena.prefetch(link.arriving_hint());
            link.prefetch_inbound();
            self.prefetch_end(l);
        }
    }

    /// Prefetches the endpoint an arrival over direction `l` reaches and the direction of its
    /// reply (`End`; call once the `End` is in the cache), and what delivering to it reads
    /// besides: the flow's one-way delay sums (a receiver) and its stop time (a sender).
    #[inline(always)]
    fn prefetch_end(&self, l: u32) {
        let end = self.ends[l as usize];
        if let Some(slot) = self.flows.get(end.flow as usize) {
            let at = (slot as *const FlowSlot as *const u8).wrapping_add(end.at as usize);
            prefetch::lines(at, end.bytes as usize);
            let i = end.flow as usize;
            prefetch::lines(&self.flow_owd[i], std::mem::size_of::<Owd>());
            prefetch::lines(&self.info[i].stop, std::mem::size_of::<OptTime>());
            if let Some(reply) = self.links.get(end.reply as usize) {
                reply.prefetch();
            }
        }
    }

    /// After general-path direction `l` handed packets on as they left: prefetches where the
    /// packet now on its transmitter goes, which it hands on one transmission time later (its
    /// own line is in the cache: the dequeue read it).
    #[inline(never)]
    pub(crate) fn prefetch_handed(&self, l: u32) {
        let link = &self.links[l as usize];
        let Some(pkt) = link.transmitting() else {
            return;
        };
        let e = self.routes.next_hop(link.to, self.arena.get(pkt).dst);
        if let Some(dir) = self.links.get(e as usize) {
            dir.prefetch();
            if dir.fed == Fed::Delivering {
                self.prefetch_end(e);
            }
        }
    }

    /// While feeding direction `d` hands on a packet it took in, prefetches for the next two
    /// it will take (see the module notes).
    #[inline(always)]
    pub(crate) fn prefetch_pull(&self, d: u32) {
        let link = &self.links[d as usize];
        let next_dir = |i| {
            let (t, then) = link.inbound_ahead(i)?;
            let e = then.get()?;
            self.links.get(e as usize).map(|dir| (e, dir, t))
        };
        if let Some((e, dir, _)) = next_dir(1) {
            dir.prefetch();
            prefetch::lines(&self.ends[e as usize], std::mem::size_of::<End>());
        }
        if let Some((e, dir, t)) = next_dir(0) {
            dir.prefetch_inbound();
            // A delivering direction hands the packet to its receiver at once (`sim/handover.rs`):
            // what its arrival event would have fetched is needed now.
            if dir.fed == Fed::Delivering {
                self.arena.prefetch(t.pkt);
                self.prefetch_end(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dumbbell(pairs: usize, cbr: bool) -> Simulation {
        dumbbell_with(pairs, cbr, r#"{"kind": "droptail"}"#)
    }

    /// A dumbbell whose bottleneck has queue `queue` (JSON).
    fn dumbbell_with(pairs: usize, cbr: bool, queue: &str) -> Simulation {
        let flows: Vec<String> = (0..pairs)
            .map(|i| {
                let kind = if cbr && i == 0 {
                    r#""kind": "cbr", "rate": "1Mbps""#
                } else {
                    r#""kind": "tcp""#
                };
                format!(r#"{{{kind}, "name": "f{i}", "src": "s{i}", "dst": "d{i}"}}"#)
            })
            .collect();
        let json = format!(
            r#"{{"duration": "1s", "topology": {{"kind": "dumbbell", "pairs": {pairs},
                "bottleneck": {{"rate": "10Mbps", "delay": "10ms", "queue": {queue}}},
                "access": {{"rate": "100Mbps", "delay": "1ms"}}}},
                "flows": [{}]}}"#,
            flows.join(",")
        );
        crate::scenario::load(&json).expect("valid scenario")
    }

    /// Each flow's last hop out leads to its receiver, whose ACKs leave by the first hop back,
    /// and the reverse; shared directions (the bottleneck) lead nowhere in particular.
    #[test]
    fn each_access_link_leads_to_its_flows_endpoint_and_reply() {
        let sim = dumbbell(3, true);
        let ends = plan_ends(&sim);
        let name = |l: u32| sim.link_name(l as usize).to_string();
        let mut seen = Vec::new();
        for (l, e) in ends.iter().enumerate() {
            if e.flow == NONE {
                continue;
            }
            let info = &sim.info[e.flow as usize];
            let link = &sim.links[l];
            seen.push((e.flow, link.to));
            match &sim.flows[e.flow as usize] {
                FlowSlot::Tcp(c) if link.to == info.dst => {
                    assert_eq!(e.bytes as usize, std::mem::size_of_val(&c.receiver));
                    assert_eq!(
                        sim.links[e.reply as usize].from,
                        info.dst,
                        "{}",
                        name(l as u32)
                    );
                }
                FlowSlot::Tcp(c) => {
                    assert_eq!(link.to, info.src);
                    assert_eq!(e.bytes as usize, std::mem::size_of_val(&c.sender));
                    assert_eq!(sim.links[e.reply as usize].from, info.src);
                }
                FlowSlot::Udp(_) => assert_eq!((link.to, e.reply), (info.dst, NONE)),
            }
        }
        seen.sort();
        // Flow 0 (CBR) has one end, the TCP flows two.
        assert_eq!(seen.len(), 5, "{seen:?}");
        let shared = ends.iter().filter(|e| e.flow == NONE).count();
        assert_eq!(shared, sim.links.len() - 5);
    }

    /// Prefetching is a hint: a run with it gives the results of a run without, to the bit.
    /// Many flows through one tick-dense bottleneck, so that the wheel's runs and the
    /// bottleneck's inbound list both name upcoming work.
    #[test]
    fn prefetching_changes_no_result() {
        // DropTail takes the express path; CoDel and ACNS the general one, which prefetches
        // the packet after the transmitter's and where the transmitter's goes.
        for queue in [
            r#"{"kind": "droptail"}"#,
            r#"{"kind": "codel"}"#,
            r#"{"kind": "acns", "limit": 100}"#,
        ] {
            let run = |on: bool| {
                let mut sim = dumbbell_with(120, false, queue);
                sim.set_prefetching(on);
                sim.run();
                let engaged = sim.events.processed();
                format!("{engaged} {:?}", crate::results::collect(&mut sim).flows)
            };
            let (off, on) = (run(false), run(true));
            assert_eq!(off, on, "{queue}");
            assert!(off.len() > 1000);
        }
    }

    /// Tens of flows' state stays in the cache; ten thousand flows' does not; a hundred
    /// flows' does once the packets in flight come to about 2 MiB.
    #[test]
    fn large_state_is_prefetched_and_middling_state_with_many_packets() {
        assert_eq!(prefetch_from(&dumbbell(10, false)), usize::MAX);
        assert_eq!(prefetch_from(&dumbbell(2000, false)), 0);
        // 100 flows: 201 links (two access links a pair and the bottleneck), 402 directions
        // of 256 bytes, and 100 slots of 816: 184,512 bytes; (2,097,152 − 184,512) / 96 =
        // 19,923 packets.
        assert_eq!(prefetch_from(&dumbbell(100, false)), 19_923);
    }

    /// Prefetching turned on part way through a run, as the packets in flight reach its
    /// threshold, changes no result either.
    #[test]
    fn prefetching_from_part_way_changes_no_result() {
        let run = |from: usize| {
            let mut sim = dumbbell(120, false);
            sim.prefetch_from = from;
            sim.run();
            assert_eq!(sim.prefetching, from < usize::MAX);
            format!("{:?}", crate::results::collect(&mut sim).flows)
        };
        // 120 flows put a few hundred packets in flight within the first 100 ms.
        assert_eq!(run(usize::MAX), run(300));
    }
}
