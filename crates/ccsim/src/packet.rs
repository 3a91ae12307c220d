//! Packets and the arena they live in.
//!
//! A packet carries the header fields every part of the simulator needs: IP (addresses, DSCP,
//! the ECN codepoint and one spare flag bit, which ACNS uses as its CMI bit), TCP (byte
//! sequence and ACK numbers, flags including ECE/CWR and one spare reserved bit, SACK blocks,
//! timestamps), and room for an XCP congestion header. Packets live in an arena and move through
//! the network as `PktId` indices, so forwarding never allocates.
//!
//! TCP sequence and acknowledgement numbers travel as on a real wire, in 32 bits (RFC 9293
//! §3.4): the endpoints count bytes in 64 bits and take a wire value as the 64-bit number
//! nearest one they know (`unwrap_seq`). This keeps a packet at two cache lines (`Packet`).

use crate::time::SimTime;

/// Index of a packet in the [`PacketArena`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// Accurate ECN's AE bit (the former NS bit of RFC 3540, header bit 7), kept in the
    /// position of URG, which ccsim's connections never set; the trace and pcap writer show
    /// it as AE in its place.
    pub const AE: u8 = 0x20;
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

/// A 64-bit byte sequence number as it goes on the wire: its low 32 bits (RFC 9293 §3.4).
pub fn wire_seq(x: u64) -> u32 {
    x as u32
}

/// The 64-bit sequence number nearest `near` whose low 32 bits are `w`: RFC 9293 §3.4's
/// comparison modulo 2^32, exact while the two lie within 2^31 bytes of each other (a window
/// is at most 2^30 bytes, RFC 7323 §2.3). Saturates at 0 for a value that would lie below it.
pub fn unwrap_seq(w: u32, near: u64) -> u64 {
    let d = w.wrapping_sub(near as u32) as i32 as i64;
    near.saturating_add_signed(d)
}

/// XCP congestion header (Katabi et al. 2002 §3.1): the sender's cwnd and RTT, and the
/// feedback routers rewrite. Carried only by XCP flows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpHeader {
    /// The sender's window, bytes on the wire (`H_cwnd`).
    pub cwnd_bytes: f64,
    /// The sender's RTT estimate, seconds; 0 before it has one (`H_rtt`).
    pub rtt_s: f64,
    /// Window change, bytes: set by the sender, only lowered by routers (`H_feedback`).
    pub feedback_bytes: f64,
    /// Sheela & Raja's congestion bit: a router saw its input reach capacity or its queue
    /// reach `Q_th`.
    pub congested: bool,
    /// The bit was set with the queue at or above `Q_th` (the sender's smaller factor).
    pub queue_high: bool,
}

/// A packet's headers. 96 bytes, aligned to 32 so that every packet in the arena lies in
/// exactly two cache lines (at the 8 bytes of its fields' own alignment, one in two packets
/// crossed three). With thousands of flows a packet has left the cache by the time it is
/// delivered, and each line read is a wait for memory (docs/performance.md, 0.6.5). The
/// fields are in a fixed order, what every packet needs first and the SACK blocks, which only
/// ACKs carry, last: a data packet that starts a line is read in that line alone.
#[derive(Clone, Debug)]
#[repr(C, align(32))]
pub struct Packet {
    /// Index of the flow the packet belongs to.
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    // The TCP header, inline.
    /// Sequence number of the first payload byte, modulo 2^32.
    pub seq: u32,
    /// Next byte expected, modulo 2^32.
    pub ack: u32,
    /// Payload bytes (TCP data or UDP); at most 65,535 − 28, as IPv4's 16-bit total length
    /// allows (RFC 791).
    pub payload: u16,
    pub dscp: u8,
    pub ecn: Ecn,
    /// The spare IP flag bit.
    pub ip_spare: bool,
    pub kind: Kind,
    pub flags: u8,
    pub n_sack: u8,
    /// When the packet entered the network (its sender made and sent it at once).
    pub created: SimTime,
    /// When the packet joined the queue it is in (or last was in): set by the link, read by
    /// sojourn-time AQMs (CoDel, PIE) and the `sojourn` series.
    pub enqueued: SimTime,
    /// TSecr: the echoed TSval (RFC 7323 §3), if timestamps are on. TSval itself needs no
    /// field: it is the sender's clock when it sent the packet, which is `created`
    /// ([`Packet::ts_val`]).
    pub ts_ecr: SimTime,
    /// Out of line: most packets carry none, and every packet is copied on its way.
    pub xcp: Option<Box<XcpHeader>>,
    /// SACK block edges, modulo 2^32.
    pub sack: [(u32, u32); MAX_SACK],
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
            seq: 0,
            ack: 0,
            flags: 0,
            sack: [(0, 0); MAX_SACK],
            n_sack: 0,
            ts_ecr: SimTime::ZERO,
            xcp: None,
            created: now,
            enqueued: now,
        }
    }

    /// TSval (RFC 7323 §3): "the current value of the timestamp clock of the TCP sending the
    /// option", here the simulation clock when the packet was sent. Meaningful where the
    /// connection uses timestamps.
    pub fn ts_val(&self) -> SimTime {
        self.created
    }

    pub fn sack_blocks(&self) -> &[(u32, u32)] {
        &self.sack[..self.n_sack as usize]
    }
}

/// Slab of packets with a free list; indices stay valid until the packet is freed.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
    /// Each slot's packet's number in the run (ns-2's `uid_`), kept only where packets are
    /// traced (`numbered`): beside the slots, not in the packet, which would grow by 8 bytes
    /// for every run.
    uids: Vec<u64>,
    numbered: bool,
    next_uid: u64,
}

impl PacketArena {
    /// Moves `p` into a free slot (one copy: a clone would copy field by field).
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        let i = if let Some(i) = self.free.pop() {
            // A free slot holds no XCP header (`free` dropped it), so nothing in it needs
            // dropping, and forgetting the old value lets the compiler skip reading the slot:
            // with thousands of flows it has left the cache, and reading it to drop the header
            // waited on memory once per packet.
            std::mem::forget(std::mem::replace(&mut self.slots[i as usize], p));
            i
        } else {
            self.slots.push(p);
            self.slots.len() as u32 - 1
        };
        self.taken(i)
    }

    /// Moves the last packet of `from` (not empty) into a free slot, from the one straight to
    /// the other. Taken out first (`pop`), it would be a value on the stack, and a packet,
    /// aligned to 32, makes a function that holds one realign its stack: in the profile-guided
    /// build, where the sending is inlined into the delivery, every delivery would pay for it
    /// (docs/performance.md, 0.6.5).
    #[inline]
    pub fn alloc_last(&mut self, from: &mut Vec<Packet>) -> PktId {
        let Some(i) = self.free.pop() else {
            let p = from.pop().expect("a packet to move");
            return self.push_new(p);
        };
        let n = from.len().checked_sub(1).expect("a packet to move");
        let slot: *mut Packet = &mut self.slots[i as usize];
        // SAFETY: `from`'s last packet is initialised; shortened first, `from` no longer owns
        // it, and it is moved (copied, then never used there) into the slot once. The slot's
        // packet is overwritten without being dropped or read, as in `alloc`.
        unsafe {
            from.set_len(n);
            std::ptr::copy_nonoverlapping(from.as_ptr().add(n), slot, 1);
        }
        self.taken(i)
    }

    /// The bookkeeping of a packet just put in slot `i`.
    #[inline(always)]
    fn taken(&mut self, i: u32) -> PktId {
        self.live += 1;
        let id = PktId(i);
        if self.numbered {
            self.number(id);
        }
        id
    }

    /// `alloc_last` where no slot is free: a new one, rare once the arena has reached the
    /// packets in flight; out of line, with the value on its stack.
    #[cold]
    #[inline(never)]
    fn push_new(&mut self, p: Packet) -> PktId {
        self.alloc(p)
    }

    /// Numbers packets from now on, 0, 1, 2, … in the order they are made (call before any is).
    pub fn number_packets(&mut self) {
        self.numbered = true;
    }

    #[cold]
    fn number(&mut self, id: PktId) {
        let i = id.0 as usize;
        if self.uids.len() <= i {
            self.uids.resize(i + 1, 0);
        }
        self.uids[i] = self.next_uid;
        self.next_uid += 1;
    }

    /// Packet `id`'s number in the run, unique to it, where packets are numbered (else 0).
    pub fn uid(&self, id: PktId) -> u64 {
        self.uids.get(id.0 as usize).copied().unwrap_or(0)
    }
    pub fn free(&mut self, id: PktId) {
        self.live -= 1;
        // Dropped now, while the packet is in the cache, not when the slot is reused (`alloc`).
        self.slots[id.0 as usize].xcp = None;
        self.free.push(id.0);
    }
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.0 as usize]
    }
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
    /// Prefetches packet `id`'s lines (`util/prefetch.rs`), if it is a slot of the arena.
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        if let Some(p) = self.slots.get(id.0 as usize) {
            crate::util::prefetch::lines(p, std::mem::size_of::<Packet>());
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_unwrap_to_the_nearest_64_bit_value() {
        // Worked by hand: 2^32 = 4,294,967,296.
        assert_eq!(wire_seq(4_294_967_296 + 1_448), 1_448);
        assert_eq!(unwrap_seq(1_448, 4_294_967_296), 4_294_968_744);
        // An ACK just below the reference (a duplicate) and just above it, across the wrap.
        assert_eq!(
            unwrap_seq(4_294_967_000, 4_294_967_296 + 100),
            4_294_967_000
        );
        assert_eq!(unwrap_seq(200, 4_294_967_000), 4_294_967_496);
        // 2^31 - 1 ahead is ahead; 2^31 ahead reads as behind (RFC 9293 §3.4's ambiguity).
        assert_eq!(unwrap_seq(0x7FFF_FFFF, 0), 0x7FFF_FFFF);
        assert_eq!(unwrap_seq(0x8000_0000, 0x1_0000_0000), 0x8000_0000);
        // Nothing lies below byte 0.
        assert_eq!(unwrap_seq(0xFFFF_FF00, 0), 0);
        // Beyond 2^32 windows the wire value is ambiguous, but round trips within 2^31 hold.
        for near in [0u64, 1 << 31, (1 << 32) - 1, 1 << 40, u64::MAX >> 1] {
            for d in [0i64, 1, -1, 65_535, -65_535, (1 << 31) - 1] {
                let x = near.saturating_add_signed(d);
                if x.abs_diff(near) < 1 << 31 {
                    assert_eq!(unwrap_seq(wire_seq(x), near), x, "near {near}, d {d}");
                }
            }
        }
    }

    #[test]
    fn a_packet_is_96_bytes_in_two_cache_lines() {
        // docs/performance.md's 150-byte goal per packet in flight: 96 + 40 (line slot) + 8
        // (segment record).
        assert_eq!(std::mem::size_of::<Packet>(), 96);
        // Aligned to 32, a packet starts at 0 or 32 bytes into a line and ends within the next.
        assert_eq!(std::mem::align_of::<Packet>(), 32);
        let mut arena = PacketArena::default();
        for i in 0..8 {
            let id = arena.alloc(Packet::new(i, Kind::TcpData, 0, 1, 1500, SimTime::ZERO));
            let at = arena.get(id) as *const Packet as usize;
            assert_eq!(
                at / 64 + 1,
                (at + 95) / 64,
                "packet {i} at {at} spans two lines"
            );
        }
        // What a data packet reads lies in its first 64 bytes; the SACK blocks follow.
        assert_eq!(std::mem::offset_of!(Packet, sack), 64);
    }
}
