//! How a traced packet reads on the wire (the packet trace's `seq`, `ack`, `flags`, `window`
//! and `options` columns, `results.rs`, and the pcap files written from them,
//! `python/ccsim/pcap.py`).
//!
//! The endpoints count payload bytes from 0 and send no byte for the SYN. On a wire the
//! sequence space of each direction starts at an initial sequence number (ISN) and the SYN
//! takes one number (RFC 9293 §3.4): the SYN carries the ISN, the first payload byte is
//! ISN + 1. Each connection's two ISNs are drawn from its flow index by a fixed hash, as
//! RFC 6528 draws them from the connection's addresses and ports, so a run's trace is the same
//! every time. The sender's data and the receiver's ACKs carry no payload the other way: data
//! segments acknowledge the receiver's ISN + 1, and ACKs are numbered ISN + 1.
//!
//! Flags are those of the TCP header (RFC 9293 §3.1, RFC 3168 §6.1); ACNS's CMT bit (Olšovský
//! 2014 §4.2.3, `acns.rs`), which the endpoints keep in a spare bit of their flag byte, is
//! named `CMT` here; the pcap writer puts it in the header's reserved field. Accurate ECN's AE
//! bit (`tcp/accecn.rs`), kept in the position of URG, is named `AE` and written in its place
//! (the former NS bit). ccsim's
//! connections never close, so no segment carries FIN.

use crate::net::packet_log::PacketRecord;
use crate::packet::{flags, Kind};
use crate::time::SimTime;
use std::fmt::Write;

/// A connection's constants as its packets show them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Conn {
    /// The sender's and the receiver's initial sequence numbers.
    pub isn_s: u32,
    pub isn_r: u32,
    /// Maximum segment size, announced in the SYN (RFC 9293 §3.7.1).
    pub mss: u32,
    /// Timestamps (RFC 7323 §3) on: every segment carries TSval and TSecr.
    pub timestamps: bool,
    /// SACK permitted by the sender's SYN and by the receiver's SYN-ACK (RFC 2018 §2).
    pub sack_s: bool,
    pub sack_r: bool,
    /// The window both ends advertise, bytes, and the window scale that makes it fit in 16
    /// bits (RFC 7323 §2).
    pub window: u64,
    pub wscale: u8,
}

/// The largest window RFC 7323 §2.3 allows (scale 14): advertised where the receiver's window
/// is unlimited.
pub const MAX_WINDOW: u64 = 65_535 << 14;

impl Conn {
    /// A connection of flow `flow` with MSS `mss` whose receiver window is `rwnd` bytes
    /// (`None`: unlimited).
    pub fn new(
        flow: u32,
        mss: u32,
        timestamps: bool,
        sack: (bool, bool),
        rwnd: Option<u64>,
    ) -> Conn {
        let window = rwnd.unwrap_or(MAX_WINDOW).min(MAX_WINDOW);
        let wscale = (0..14u8).find(|&s| window >> s <= 65_535).unwrap_or(14);
        Conn {
            isn_s: isn(flow, 0),
            isn_r: isn(flow, 1),
            mss,
            timestamps,
            sack_s: sack.0,
            sack_r: sack.1,
            window,
            wscale,
        }
    }

    /// Sequence and acknowledgement numbers of `r` as on the wire.
    pub fn seq_ack(&self, r: &PacketRecord) -> (u32, u32) {
        let syn = r.flags & flags::SYN != 0;
        let data_base = self.isn_s.wrapping_add(1);
        let ack_base = self.isn_r.wrapping_add(1);
        match r.kind {
            Kind::TcpData if syn => (self.isn_s, 0),
            Kind::TcpData => (data_base.wrapping_add(r.seq), ack_base),
            Kind::TcpAck if syn => (self.isn_r, data_base.wrapping_add(r.ack)),
            Kind::TcpAck => (ack_base, data_base.wrapping_add(r.ack)),
            Kind::Udp => (0, 0),
        }
    }

    /// The window field of `r`: unscaled in a SYN or SYN-ACK (RFC 7323 §2.2), scaled after.
    pub fn window_field(&self, r: &PacketRecord) -> u16 {
        if r.kind == Kind::Udp {
            0
        } else if r.flags & flags::SYN != 0 {
            self.window.min(65_535) as u16
        } else {
            (self.window >> self.wscale).min(65_535) as u16
        }
    }

    /// The TCP options of `r` as tcpdump prints them: `mss 1448,sackOK,TS val 10 ecr 0,wscale
    /// 7` in a SYN, `TS val 52 ecr 10,sack 1 {2897:4345}` after. Timestamps are microseconds
    /// of the simulation clock modulo 2^32 (Linux's microsecond TS clock); SACK edges are wire
    /// sequence numbers.
    pub fn options(&self, r: &PacketRecord) -> String {
        let mut o = String::new();
        if r.kind == Kind::Udp {
            return o;
        }
        let syn = r.flags & flags::SYN != 0;
        let sack_perm = match r.kind {
            Kind::TcpData => self.sack_s,
            _ => self.sack_r,
        };
        if syn {
            let _ = write!(o, "mss {},", self.mss);
            if sack_perm {
                o.push_str("sackOK,");
            }
        }
        if self.timestamps {
            let ecr = if r.kind == Kind::TcpData && syn {
                0
            } else {
                ts_clock(r.ts_ecr)
            };
            let _ = write!(o, "TS val {} ecr {ecr},", ts_clock(r.sent));
        }
        if syn {
            let _ = write!(o, "wscale {},", self.wscale);
        }
        let blocks = &r.sack[..r.n_sack as usize];
        if !blocks.is_empty() {
            let base = self.isn_s.wrapping_add(1);
            let _ = write!(o, "sack {} ", blocks.len());
            for &(a, b) in blocks {
                let _ = write!(o, "{{{}:{}}}", base.wrapping_add(a), base.wrapping_add(b));
            }
            o.push(',');
        }
        if o.ends_with(',') {
            o.pop();
        }
        o
    }
}

/// A timestamp clock value: microseconds of `t`, modulo 2^32.
fn ts_clock(t: SimTime) -> u32 {
    (t.as_nanos() / 1_000) as u32
}

/// The initial sequence number of direction `dir` (0 sender, 1 receiver) of flow `flow`:
/// SplitMix64's finaliser (Steele et al. 2014) of the pair, its high 32 bits.
pub fn isn(flow: u32, dir: u32) -> u32 {
    let mut z = ((flow as u64) << 1 | dir as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 32) as u32
}

/// The flags of `r` by name, in the header's bit order, joined by `,` (`SYN,ECE,CWR,CMT`;
/// empty for UDP).
pub fn flag_names(r: &PacketRecord) -> String {
    if r.kind == Kind::Udp {
        return String::new();
    }
    const NAMES: [(u8, &str); 7] = [
        (flags::FIN, "FIN"),
        (flags::SYN, "SYN"),
        (flags::ACK, "ACK"),
        (flags::ECE, "ECE"),
        (flags::CWR, "CWR"),
        (flags::AE, "AE"),
        (flags::RSV, "CMT"),
    ];
    let names: Vec<&str> = NAMES
        .iter()
        .filter(|(bit, _)| r.flags & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    names.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet_log::PacketEvent;

    fn record(kind: Kind, fl: u8, seq: u32, ack: u32) -> PacketRecord {
        PacketRecord {
            at: SimTime::from_millis(5),
            event: PacketEvent::Dequeue,
            uid: 0,
            flow: 3,
            kind,
            size: 40,
            payload: 0,
            seq,
            ack,
            flags: fl,
            ecn: 0,
            cmi: false,
            dscp: 0,
            ts_ecr: SimTime::from_micros(1_500),
            n_sack: 0,
            sack: [(0, 0); 4],
            // 2^32 + 4,000,000 µs: the TS clock wraps to 4,000,000.
            sent: SimTime::from_micros((1 << 32) + 4_000_000),
        }
    }

    #[test]
    fn the_syn_takes_one_sequence_number() {
        let c = Conn::new(3, 1448, true, (true, false), None);
        let (s, r) = (c.isn_s, c.isn_r);
        assert_ne!(s, r);
        assert_eq!(c.seq_ack(&record(Kind::TcpData, flags::SYN, 0, 0)), (s, 0));
        let synack = record(Kind::TcpAck, flags::SYN | flags::ACK, 0, 0);
        assert_eq!(c.seq_ack(&synack), (r, s.wrapping_add(1)));
        // Payload byte 2896 is ISN + 1 + 2896 (modulo 2^32); the ACK of it acknowledges it.
        let data = record(Kind::TcpData, flags::ACK, 2896, 0);
        assert_eq!(c.seq_ack(&data), (s.wrapping_add(2897), r.wrapping_add(1)));
        let ack = record(Kind::TcpAck, flags::ACK, 0, 4344);
        assert_eq!(c.seq_ack(&ack), (r.wrapping_add(1), s.wrapping_add(4345)));
        assert_eq!(c.seq_ack(&record(Kind::Udp, 0, 0, 0)), (0, 0));
        // The same flow gets the same numbers; another flow others.
        assert_eq!(isn(3, 0), s);
        assert_ne!(isn(4, 0), s);
    }

    #[test]
    fn flags_options_and_window_read_as_tcpdump_prints_them() {
        let syn = record(
            Kind::TcpData,
            flags::SYN | flags::ECE | flags::CWR | flags::RSV,
            0,
            0,
        );
        assert_eq!(flag_names(&syn), "SYN,ECE,CWR,CMT");
        assert_eq!(
            flag_names(&record(Kind::TcpAck, flags::ACK | flags::ECE, 0, 0)),
            "ACK,ECE"
        );
        assert_eq!(flag_names(&record(Kind::Udp, 0, 0, 0)), "");
        // Unlimited window: the largest, scale 14; 64 KiB: scale 1.
        let c = Conn::new(3, 1448, true, (true, false), None);
        assert_eq!((c.window, c.wscale), (MAX_WINDOW, 14));
        assert_eq!(c.window_field(&syn), 65_535);
        assert_eq!(
            c.window_field(&record(Kind::TcpAck, flags::ACK, 0, 0)),
            65_535
        );
        let small = Conn::new(3, 1000, false, (false, false), Some(65_536));
        assert_eq!(small.wscale, 1);
        assert_eq!(
            small.window_field(&record(Kind::TcpAck, flags::ACK, 0, 0)),
            32_768
        );
        assert_eq!(
            c.options(&syn),
            "mss 1448,sackOK,TS val 4000000 ecr 0,wscale 14"
        );
        // The receiver's SYN-ACK: no sackOK (its SACK is off), the SYN's TSval echoed.
        let synack = record(Kind::TcpAck, flags::SYN | flags::ACK, 0, 0);
        assert_eq!(
            c.options(&synack),
            "mss 1448,TS val 4000000 ecr 1500,wscale 14"
        );
        let mut ack = record(Kind::TcpAck, flags::ACK, 0, 1448);
        ack.n_sack = 2;
        ack.sack[0] = (2896, 4344);
        ack.sack[1] = (5792, 7240);
        let b = c.isn_s.wrapping_add(1);
        assert_eq!(
            c.options(&ack),
            format!(
                "TS val 4000000 ecr 1500,sack 2 {{{}:{}}}{{{}:{}}}",
                b.wrapping_add(2896),
                b.wrapping_add(4344),
                b.wrapping_add(5792),
                b.wrapping_add(7240)
            )
        );
        assert_eq!(small.options(&record(Kind::TcpData, flags::ACK, 0, 0)), "");
    }
}
