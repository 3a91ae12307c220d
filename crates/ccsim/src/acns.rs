//! ACNS, the Advanced Congestion Notification System — Olšovský 2014 (the
//! decisions on its ambiguities are in `docs/design.md`): the commands, their codes
//! in the IPv4 and TCP headers (the paper's Tables 2 and 3), and the sender's trend weight
//! (Eq. 5). The router is `queue/acns.rs`; the endpoints are `tcp/acns.rs`.
//!
//! IPv4 (Table 2) reuses the ECN field and the spare flag bit CMI:
//!
//! | message | ECN | CMI | meaning                                       |
//! |---------|-----|-----|-----------------------------------------------|
//! | I1      | 00  | 0   | ACNS not in use (Not-ECT)                     |
//! | I2, I3  | 10, 01 | 0 | ECT: command normal, routers leave it        |
//! | I4, I5  | 10, 01 | 1 | ECT: routers are asked to set a command      |
//! | I6      | 11  | 1   | freeze, set by a router                       |
//! | I7      | 11  | 0   | fallback, set by a router (plain ECN's CE)    |
//!
//! TCP (Table 3) reuses CWR/ECE and the reserved bit CMT on ACKs: no bits is normal (T1/T2),
//! ECE+CMT is freeze (T5), ECE alone is fallback (T6) — which a plain ECN sender reads as an
//! ECN echo, as I7 is CE to a plain ECN router: "New ACNS commands will appear as ECN commands
//! for non-compatible nodes" (§4). The sender's CWR (T3/T4) keeps its RFC 3168 meaning.
//! The ECN nonce (I3/I5, NS) is not modelled: senders use ECT(0).

use crate::packet::{flags, Ecn, Packet};

/// A command, ordered by severity (a router only replaces a command with a more severe one).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Command {
    /// 1: no congestion, the TCP variant updates the window as it would.
    #[default]
    Normal = 1,
    /// 2: signs of congestion, the window is held.
    Freeze = 2,
    /// 3: congestion, the window falls back to its last smaller value.
    Fallback = 3,
}

impl Command {
    /// The command for a weight `w` compared with thresholds `th1 ≤ th2` (§3.1: `w < th1` is 1,
    /// `th1 ≤ w < th2` is 2, `w ≥ th2` is 3); also the trend command of Eq. 5 with `th_L1`,
    /// `th_L2` (§3.2).
    pub fn of_weight(w: f64, th1: f64, th2: f64) -> Command {
        if w < th1 {
            Command::Normal
        } else if w < th2 {
            Command::Freeze
        } else {
            Command::Fallback
        }
    }

    pub fn code(self) -> u8 {
        self as u8
    }
}

/// The command a data packet's IPv4 header carries (Table 2), or `None` for a packet that is
/// not ECN-capable (I1, and the unassigned Not-ECT with CMI).
pub fn ip_command(p: &Packet) -> Option<Command> {
    match (p.ecn, p.ip_spare) {
        (Ecn::NotEct, _) => None,
        (Ecn::Ect0 | Ecn::Ect1, _) => Some(Command::Normal),
        (Ecn::Ce, true) => Some(Command::Freeze),
        (Ecn::Ce, false) => Some(Command::Fallback),
    }
}

/// Whether routers are asked to set a command on this packet: I4/I5, or I6 (a freeze an
/// earlier router set, which a later one may raise to fallback).
pub fn requests_command(p: &Packet) -> bool {
    p.ip_spare && p.ecn != Ecn::NotEct
}

/// Writes `c` into a packet that asks for a command (I6 for freeze, I7 for fallback) if it is
/// more severe than what the packet carries; returns whether the header changed.
pub fn raise_ip_command(p: &mut Packet, c: Command) -> bool {
    if !requests_command(p) || ip_command(p).is_some_and(|old| old >= c) {
        return false;
    }
    p.ecn = Ecn::Ce;
    p.ip_spare = c == Command::Freeze;
    true
}

/// The TCP flags of an ACK echoing `c` (Table 3: T1/T2, T5, T6).
pub fn ack_flags(c: Command) -> u8 {
    match c {
        Command::Normal => 0,
        Command::Freeze => flags::ECE | flags::RSV,
        Command::Fallback => flags::ECE,
    }
}

/// The command an ACK's flags carry (Table 3); CMT without ECE is unassigned and reads normal.
pub fn ack_command(fl: u8) -> Command {
    if fl & flags::ECE == 0 {
        Command::Normal
    } else if fl & flags::RSV != 0 {
        Command::Freeze
    } else {
        Command::Fallback
    }
}

/// Flags of an ACNS-setup SYN (§4.2.3: SYN with ECE, CWR and CMT).
pub const SYN_FLAGS: u8 = flags::ECE | flags::CWR | flags::RSV;
/// Flags of an ACNS-setup SYN-ACK (ECE and CMT, CWR clear).
pub const SYN_ACK_FLAGS: u8 = flags::ECE | flags::RSV;

/// The trend weight of Eq. 5 over the received commands `newest_first` (P[1] the newest):
/// `Σ e^{−i/σ}·P[i] / X`, `X = Σ e^{−i/σ}` over the same `i`, for the newest `omega`
/// commands (fewer if fewer were received). `None` with none received.
pub fn trend_weight(
    newest_first: impl Iterator<Item = Command>,
    omega: usize,
    sigma: f64,
) -> Option<f64> {
    let (mut num, mut x) = (0.0, 0.0);
    for (i, c) in newest_first.take(omega).enumerate() {
        let m = (-((i + 1) as f64) / sigma).exp();
        num += m * c.code() as f64;
        x += m;
    }
    (x > 0.0).then(|| num / x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;
    use crate::time::SimTime;

    fn pkt(ecn: Ecn, cmi: bool) -> Packet {
        let mut p = Packet::new(0, Kind::TcpData, 0, 1, 1500, SimTime::ZERO);
        p.ecn = ecn;
        p.ip_spare = cmi;
        p
    }

    /// Table 2, row by row.
    #[test]
    fn ip_messages_decode_as_table_2() {
        assert_eq!(ip_command(&pkt(Ecn::NotEct, false)), None); // I1
        assert_eq!(ip_command(&pkt(Ecn::Ect0, false)), Some(Command::Normal)); // I2
        assert_eq!(ip_command(&pkt(Ecn::Ect1, false)), Some(Command::Normal)); // I3
        assert_eq!(ip_command(&pkt(Ecn::Ect0, true)), Some(Command::Normal)); // I4
        assert_eq!(ip_command(&pkt(Ecn::Ect1, true)), Some(Command::Normal)); // I5
        assert_eq!(ip_command(&pkt(Ecn::Ce, true)), Some(Command::Freeze)); // I6
        assert_eq!(ip_command(&pkt(Ecn::Ce, false)), Some(Command::Fallback)); // I7
        assert!(requests_command(&pkt(Ecn::Ect0, true)));
        assert!(!requests_command(&pkt(Ecn::Ect0, false)));
        assert!(!requests_command(&pkt(Ecn::NotEct, true)));
    }

    /// A router writes only into a request and only a more severe command: normal leaves I4,
    /// freeze makes I6, fallback makes I7 from I4 or I6, and nothing lowers I7 or touches I2.
    #[test]
    fn routers_only_raise_requested_commands() {
        let mut p = pkt(Ecn::Ect0, true);
        assert!(!raise_ip_command(&mut p, Command::Normal));
        assert!(raise_ip_command(&mut p, Command::Freeze));
        assert_eq!((p.ecn, p.ip_spare), (Ecn::Ce, true));
        assert!(!raise_ip_command(&mut p, Command::Freeze));
        assert!(raise_ip_command(&mut p, Command::Fallback));
        assert_eq!((p.ecn, p.ip_spare), (Ecn::Ce, false));
        // I7 no longer asks: a later router cannot lower it (and need not raise it).
        assert!(!raise_ip_command(&mut p, Command::Freeze));
        assert_eq!(ip_command(&p), Some(Command::Fallback));
        let mut plain = pkt(Ecn::Ect0, false);
        assert!(!raise_ip_command(&mut plain, Command::Fallback));
        assert_eq!(plain.ecn, Ecn::Ect0);
    }

    /// Table 3: the echo round-trips, and T6 is exactly an RFC 3168 ECN echo.
    #[test]
    fn ack_flags_encode_as_table_3() {
        for c in [Command::Normal, Command::Freeze, Command::Fallback] {
            assert_eq!(ack_command(ack_flags(c) | flags::ACK), c);
        }
        assert_eq!(ack_flags(Command::Fallback), flags::ECE);
        assert_eq!(ack_command(flags::RSV), Command::Normal);
        assert_eq!(ack_command(flags::CWR), Command::Normal); // T3: the sender's CWR
    }

    #[test]
    fn weights_map_to_commands_at_the_thresholds() {
        // Table 1: th_A1 0.95, th_A2 1.0.
        assert_eq!(Command::of_weight(0.949, 0.95, 1.0), Command::Normal);
        assert_eq!(Command::of_weight(0.95, 0.95, 1.0), Command::Freeze);
        assert_eq!(Command::of_weight(0.999, 0.95, 1.0), Command::Freeze);
        assert_eq!(Command::of_weight(1.0, 0.95, 1.0), Command::Fallback);
    }

    /// Eq. 5 with Table 1's σ = 3, worked by hand: metrics e^{−1/3} = 0.716531,
    /// e^{−2/3} = 0.513417, e^{−1} = 0.367879, …; their sum over i = 1..10 is 2.437552.
    #[test]
    fn trend_weight_is_the_exponentially_weighted_mean() {
        use Command::*;
        // All normal: 1 whatever the weights.
        let w = trend_weight([Normal; 10].into_iter(), 10, 3.0).unwrap();
        assert!((w - 1.0).abs() < 1e-12);
        // The newest is fallback, nine normal: 1 + 2·0.716531/2.437552 = 1.587910.
        let p = [
            Fallback, Normal, Normal, Normal, Normal, Normal, Normal, Normal, Normal, Normal,
        ];
        let w = trend_weight(p.into_iter(), 10, 3.0).unwrap();
        assert!((w - 1.587910).abs() < 1e-6, "{w}");
        // Five freezes then five normal: 1 + (0.716531 + 0.513417 + 0.367879 + 0.263597 +
        // 0.188876)/2.437552 = 1.841131, just under th_L1 = 1.8413: C_trend = 1 (the loss
        // keeps the window, "freeze").
        let p = [
            Freeze, Freeze, Freeze, Freeze, Freeze, Normal, Normal, Normal, Normal, Normal,
        ];
        let w = trend_weight(p.into_iter(), 10, 3.0).unwrap();
        assert!((w - 1.841131).abs() < 1e-6, "{w}");
        assert_eq!(Command::of_weight(w, 1.8413, 2.1587), Normal);
        // Only ω_count commands count; fewer are normalised by their own weights: two
        // received, fallback then normal: (3·0.716531 + 0.513417)/1.229948 = 2.165140 ≥ th_L2:
        // C_trend = 3.
        let w = trend_weight([Fallback, Normal].into_iter(), 10, 3.0).unwrap();
        assert!((w - 2.165140).abs() < 1e-6, "{w}");
        assert_eq!(Command::of_weight(w, 1.8413, 2.1587), Fallback);
        let w = trend_weight([Fallback; 20].into_iter(), 1, 3.0).unwrap();
        assert!((w - 3.0).abs() < 1e-12);
        assert_eq!(trend_weight(std::iter::empty(), 10, 3.0), None);
    }
}
