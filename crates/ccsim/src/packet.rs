//! Packets and the arena they live in.
//!
//! A packet carries the header fields every part of the simulator needs: IP (addresses, DSCP,
//! the ECN codepoint and one spare flag bit, which ACNS uses as its CMI bit), TCP (byte
//! sequence and ACK numbers, flags including ECE/CWR and one spare reserved bit, SACK blocks,
//! timestamps), and room for an XCP congestion header. Packets live in an arena and move through
//! the network as `PktId` indices, so forwarding never allocates.

use crate::time::SimTime;

/// Index of a packet in the [`PacketArena`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PktId(pub u32);

/// ECN codepoint of the IP header (RFC 3168 §5).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect1,
    Ect0,
    Ce,
}

impl Ecn {
    /// Whether the packet belongs to an ECN-capable transport: ECT(0), ECT(1), or already CE
    /// (RFC 3168 §5: a router may "mark" a CE packet again; it stays CE).
    pub fn capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// TCP flag bits.
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    /// ECN-Echo (RFC 3168).
    pub const ECE: u8 = 0x40;
    /// Congestion Window Reduced (RFC 3168).
    pub const CWR: u8 = 0x80;
    /// The spare reserved bit (ACNS uses it as CMT).
    pub const RSV: u8 = 0x08;
}

/// What a packet is, for the endpoint that receives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// TCP data or SYN, sender → receiver.
    TcpData,
    /// TCP ACK or SYN-ACK, receiver → sender.
    TcpAck,
    /// UDP datagram.
    Udp,
}

/// Up to four SACK blocks `[start, end)` in bytes (RFC 2018 allows at most 4).
pub const MAX_SACK: usize = 4;

#[derive(Clone, Debug, Default)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    pub flags: u8,
    pub sack: [(u64, u64); MAX_SACK],
    pub n_sack: u8,
    /// TSval: the sender's clock when it sent this packet (RFC 7323), if timestamps are on.
    pub ts_val: SimTime,
    /// TSecr: the echoed TSval.
    pub ts_ecr: SimTime,
}

impl TcpHeader {
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..self.n_sack as usize]
    }
}

/// XCP congestion header (Katabi et al. 2002 §3.1): the sender's cwnd and RTT, and the
/// feedback routers rewrite. Carried only by XCP flows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpHeader {
    pub cwnd_bytes: f64,
    pub rtt_s: f64,
    pub feedback_bytes: f64,
}

#[derive(Clone, Debug)]
pub struct Packet {
    /// Index of the flow the packet belongs to.
    pub flow: u32,
    pub kind: Kind,
    pub src: u32,
    pub dst: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Payload bytes (TCP data or UDP).
    pub payload: u32,
    pub dscp: u8,
    pub ecn: Ecn,
    /// The spare IP flag bit.
    pub ip_spare: bool,
    pub tcp: TcpHeader,
    pub xcp: Option<XcpHeader>,
    /// When the packet entered the network.
    pub created: SimTime,
    /// When the packet joined the queue it is in (or last was in): set by the link, read by
    /// sojourn-time AQMs (CoDel, PIE) and the `sojourn` series.
    pub enqueued: SimTime,
}

impl Packet {
    pub fn new(flow: u32, kind: Kind, src: u32, dst: u32, size: u32, now: SimTime) -> Packet {
        Packet {
            flow,
            kind,
            src,
            dst,
            size,
            payload: 0,
            dscp: 0,
            ecn: Ecn::NotEct,
            ip_spare: false,
            tcp: TcpHeader::default(),
            xcp: None,
            created: now,
            enqueued: now,
        }
    }
}

/// Slab of packets with a free list; indices stay valid until the packet is freed.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
}

impl PacketArena {
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.alloc_copy(&p)
    }
    /// Allocates a copy of `p` (copied once, straight into its slot).
    #[inline]
    pub fn alloc_copy(&mut self, p: &Packet) -> PktId {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize].clone_from(p);
            PktId(i)
        } else {
            self.slots.push(p.clone());
            PktId(self.slots.len() as u32 - 1)
        }
    }
    pub fn free(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id.0);
    }
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.0 as usize]
    }
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
    /// Packets allocated and not yet freed.
    pub fn live(&self) -> usize {
        self.live
    }
    /// The most packets ever live at once (the arena's high-water mark).
    pub fn peak(&self) -> usize {
        self.slots.len()
    }
}
