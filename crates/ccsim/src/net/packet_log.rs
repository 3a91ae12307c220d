//! Packet traces: what happened to each packet at a traced link direction, with the events of
//! ns-2's trace files (`trace-all`, `trace-queue`): `+` the packet reached the queue, `-` it
//! left the queue for the transmitter, `d` it was dropped (by the queue on arrival, by the
//! discipline later, or lost by the wire as it left the transmitter), `r` it reached the far
//! node. A packet dropped on arrival has its `+` and its `d` at the same time, as in ns-2.
//!
//! A traced direction's discipline is wrapped (`queue/traced.rs`), which records as the link
//! asks it; the express path never asks a discipline, so a traced DropTail or RED direction
//! takes the general path, with the same results (`tests/express_path.rs`). A packet's `r` is
//! known, and recorded, as it leaves the queue, so the records are put in time order when the
//! results are collected (`results.rs`).

use crate::packet::{Ecn, Kind, PacketArena, PktId, MAX_SACK};
use crate::queue::Reason;
use crate::time::SimTime;

/// What happened to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    Enqueue,
    Dequeue,
    Drop(DropCause),
    Receive,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was full.
    Overflow,
    /// The discipline's early (probabilistic or sojourn-time) decision.
    Early,
    /// The discipline's forced drop (RED above max_th, CoDel's head drop being its own).
    Forced,
    /// The wire lost it.
    Loss,
}

impl From<Reason> for DropCause {
    fn from(r: Reason) -> DropCause {
        match r {
            Reason::Overflow => DropCause::Overflow,
            Reason::Early => DropCause::Early,
            Reason::Forced => DropCause::Forced,
        }
    }
}

impl PacketEvent {
    /// ns-2's letter for the event.
    pub fn letter(self) -> &'static str {
        match self {
            PacketEvent::Enqueue => "+",
            PacketEvent::Dequeue => "-",
            PacketEvent::Drop(_) => "d",
            PacketEvent::Receive => "r",
        }
    }

    /// Why a dropped packet was dropped ("" for the other events).
    pub fn cause(self) -> &'static str {
        match self {
            PacketEvent::Drop(DropCause::Overflow) => "overflow",
            PacketEvent::Drop(DropCause::Early) => "early",
            PacketEvent::Drop(DropCause::Forced) => "forced",
            PacketEvent::Drop(DropCause::Loss) => "loss",
            _ => "",
        }
    }
}

/// One event of one packet, with the header fields a trace reader wants.
#[derive(Clone, Copy, Debug)]
pub struct PacketRecord {
    pub at: SimTime,
    pub event: PacketEvent,
    /// The packet's number in the run, the same at every hop (ns-2's `uid_`).
    pub uid: u64,
    pub flow: u32,
    pub kind: Kind,
    pub size: u32,
    pub payload: u16,
    /// TCP sequence and acknowledgement numbers as the endpoints count them: payload bytes
    /// from 0, modulo 2^32 (`net/wire.rs` makes them the wire's).
    pub seq: u32,
    pub ack: u32,
    /// TCP flags as the endpoints keep them (`packet::flags`).
    pub flags: u8,
    /// The IP ECN field at the time of the event (RFC 3168 §5: 0 Not-ECT, 1 ECT(1), 2 ECT(0),
    /// 3 CE), and ACNS's CMI bit (`acns.rs`).
    pub ecn: u8,
    pub cmi: bool,
    pub dscp: u8,
    /// TSecr (RFC 7323 §3); TSval is `sent`.
    pub ts_ecr: SimTime,
    /// SACK blocks, payload offsets modulo 2^32.
    pub n_sack: u8,
    pub sack: [(u32, u32); MAX_SACK],
    /// When the packet's sender sent it.
    pub sent: SimTime,
}

/// The ECN field's value (RFC 3168 §5).
fn ecn_field(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    }
}

/// The records of one direction, in the order they were made.
#[derive(Default)]
pub struct PacketLog {
    pub records: Vec<PacketRecord>,
}

impl PacketLog {
    pub fn record(&mut self, at: SimTime, event: PacketEvent, pkt: PktId, arena: &PacketArena) {
        let p = arena.get(pkt);
        self.records.push(PacketRecord {
            at,
            event,
            uid: arena.uid(pkt),
            flow: p.flow,
            kind: p.kind,
            size: p.size,
            payload: p.payload,
            seq: p.seq,
            ack: p.ack,
            flags: p.flags,
            ecn: ecn_field(p.ecn),
            cmi: p.ip_spare,
            dscp: p.dscp,
            ts_ecr: p.ts_ecr,
            n_sack: p.n_sack,
            sack: p.sack,
            sent: p.created,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_ns2_writes_them() {
        let letters: Vec<_> = [
            PacketEvent::Enqueue,
            PacketEvent::Dequeue,
            PacketEvent::Drop(DropCause::Loss),
            PacketEvent::Receive,
        ]
        .iter()
        .map(|e| (e.letter(), e.cause()))
        .collect();
        assert_eq!(letters, [("+", ""), ("-", ""), ("d", "loss"), ("r", "")]);
        assert_eq!(PacketEvent::Drop(Reason::Early.into()).cause(), "early");
    }
}
