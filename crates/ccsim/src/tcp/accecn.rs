//! Accurate ECN feedback: the ACE counter (draft-ietf-tcpm-accurate-ecn).
//!
//! Classic ECN feedback (RFC 3168) tells the sender at most once per round trip that some
//! packet was marked; an algorithm that scales its response to the extent of congestion
//! (TCP Prague, DCTCP over the Internet) needs the number of marks. Accurate ECN carries it in
//! the three TCP header bits that classic ECN uses for one signal each: the ACE field, AE
//! (the former NS bit), CWR and ECE, with weights 4, 2 and 1 (§3.2.1).
//!
//! ```text
//! receiver: r.cep = 5 at the start, +1 for every CE-marked data packet
//!           every ACK carries ACE = r.cep mod 8
//! sender:   d.cep = (ACE − s.cep) mod 8, then s.cep = ACE   (Appendix A.1)
//! ```
//!
//! Negotiation (§3.1): the SYN sets AE, CWR and ECE; a receiver that supports Accurate ECN
//! answers with one of the combinations classic ECN never sends (for a Not-ECT SYN, as ccsim's
//! SYNs are: CWR alone); an RFC 3168 receiver answers ECE alone and the connection falls back
//! to classic feedback; anything else leaves ECN off. Under Accurate ECN the sender does not
//! set CWR after a reduction: CWR is a bit of the counter (§3.1.5).
//!
//! ACKs (§3.2.2.5): besides the usual delayed-ACK rules, the receiver acknowledges at once a
//! CE-marked packet that follows one that was not (a change-triggered ACK). The rule that an
//! ACK must follow at most n CE marks (n = 2 while data is outstanding), so that the 3-bit
//! counter cannot wrap between two ACKs, needs no code here: ccsim's receiver acknowledges at
//! least every second segment, and out-of-order ones at once.
//!
//! Left out: the AccECN TCP option (byte counters for each codepoint; optional in the
//! specification), the receiver's feedback on ECT(0)/ECT(1) counts, and the sender's
//! wrap-safety estimate of Appendix A.2 for a stretch ACK that could hide eight marks (the
//! reverse paths of ccsim's scenarios lose no ACKs, and a cumulative jump after a repaired
//! loss would otherwise be taken for eight or more marks).

use super::ecn::EcnEcho;
use super::sender::Sender;
use crate::packet::flags;

/// The initial value of the receiver's counter and of the sender's copy (§3.2.1: 5, so that
/// an ACK whose ACE reads zero is not mistaken for one from a host that zeroes the bits).
pub const ACE_INIT: u8 = 5;

/// An Accurate-ECN-setup SYN (§3.1.1).
pub const SYN_FLAGS: u8 = flags::AE | flags::CWR | flags::ECE;

/// The SYN-ACK of a receiver that supports Accurate ECN, to a Not-ECT SYN (§3.1.1, Table 2:
/// AE 0, CWR 1, ECE 0).
pub const SYN_ACK_FLAGS: u8 = flags::CWR;

/// Whether a SYN asks for Accurate ECN.
pub fn asks(syn: u8) -> bool {
    syn & SYN_FLAGS == SYN_FLAGS
}

/// Whether a SYN-ACK agrees to Accurate ECN: any of the four answers of Table 2 (the SYN-ACK
/// also reflects the SYN's IP-ECN codepoint), none of which an RFC 3168 host sends.
pub fn accepted(synack: u8) -> bool {
    let ace = ace(synack);
    matches!(ace, 0b010 | 0b011 | 0b100 | 0b110)
}

/// The ACE field of a flag byte: AE·4 + CWR·2 + ECE.
pub fn ace(fl: u8) -> u8 {
    (fl & flags::AE != 0) as u8 * 4
        + (fl & flags::CWR != 0) as u8 * 2
        + (fl & flags::ECE != 0) as u8
}

/// The flag bits of an ACE value (modulo 8).
pub fn ace_flags(ace: u8) -> u8 {
    let mut fl = 0;
    if ace & 4 != 0 {
        fl |= flags::AE;
    }
    if ace & 2 != 0 {
        fl |= flags::CWR;
    }
    if ace & 1 != 0 {
        fl |= flags::ECE;
    }
    fl
}

impl Sender {
    /// The CE marks an ACK reports beyond those of the ACK before (d.cep, Appendix A.1).
    pub(super) fn accecn_delta(&mut self, fl: u8) -> u64 {
        let a = ace(fl);
        let d = a.wrapping_sub(self.ecn.ace) & 7;
        self.ecn.ace = a;
        d as u64
    }
}

impl EcnEcho {
    /// A data packet under Accurate ECN (`ce`: it is CE-marked; `ce_received` already counts
    /// it): true if it is to be acknowledged at once.
    pub(super) fn accecn_data(&mut self, ce: bool) -> bool {
        let change = ce && !self.echo;
        self.echo = ce;
        change
    }

    /// The ACE bits of the next ACK.
    pub(super) fn ace_flags(&self) -> u8 {
        ace_flags((ACE_INIT as u64 + self.ce_received) as u8 & 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, Kind, Packet};
    use crate::tcp::ecn::{EcnFeedback, SYN_FLAGS as CLASSIC_SYN};
    use crate::time::SimTime;

    fn data(ecn: Ecn) -> Packet {
        let mut p = Packet::new(0, Kind::TcpData, 0, 1, 1040, SimTime::ZERO);
        p.payload = 1000;
        p.ecn = ecn;
        p
    }

    #[test]
    fn ace_encodes_ae_cwr_ece_as_4_2_1() {
        assert_eq!(ace(flags::AE | flags::ECE), 5);
        assert_eq!(ace(flags::CWR), 2);
        assert_eq!(ace(flags::ACK | flags::SYN), 0);
        for v in 0..8 {
            assert_eq!(ace(ace_flags(v)), v);
        }
    }

    #[test]
    fn handshake_agrees_or_falls_back() {
        assert!(asks(flags::SYN | SYN_FLAGS));
        assert!(!asks(flags::SYN | CLASSIC_SYN), "an RFC 3168 SYN lacks AE");
        // An AccECN receiver answers CWR alone to a Not-ECT SYN.
        let mut r = EcnEcho::new(true, true).with_feedback(EcnFeedback::Accurate, true);
        assert_eq!(r.feedback, EcnFeedback::Classic, "not before the SYN asks");
        assert_eq!(r.on_syn(flags::SYN | SYN_FLAGS), flags::CWR);
        assert_eq!(r.feedback, EcnFeedback::Accurate);
        assert!(accepted(flags::SYN | flags::ACK | flags::CWR));
        // An RFC 3168 receiver answers ECE: classic feedback.
        let mut r = EcnEcho::new(true, true).with_feedback(EcnFeedback::Accurate, false);
        assert_eq!(r.on_syn(flags::SYN | SYN_FLAGS), flags::ECE);
        assert_eq!(r.feedback, EcnFeedback::Classic);
        assert!(!accepted(flags::SYN | flags::ACK | flags::ECE));
        assert!(!accepted(flags::SYN | flags::ACK));
        // A receiver without ECN: nothing.
        let mut r = EcnEcho::new(false, true).with_feedback(EcnFeedback::Accurate, true);
        assert_eq!(r.on_syn(flags::SYN | SYN_FLAGS), 0);
    }

    #[test]
    fn receiver_counts_from_five_and_acks_on_a_change_to_ce() {
        let mut r = EcnEcho::new(true, false).with_feedback(EcnFeedback::Accurate, true);
        assert_eq!(r.feedback, EcnFeedback::Accurate);
        // No marks yet: ACE = 5 = AE + ECE.
        assert!(!r.on_data(&data(Ecn::Ect1)));
        assert_eq!(r.take_ack_flags(), flags::AE | flags::ECE);
        // CE after not-CE: a change-triggered ACK; ACE = 6.
        assert!(r.on_data(&data(Ecn::Ce)));
        assert_eq!(r.take_ack_flags(), flags::AE | flags::CWR);
        // More CE in a row is no change (the delayed-ACK rule acknowledges every second).
        assert!(!r.on_data(&data(Ecn::Ce)));
        assert!(!r.on_data(&data(Ecn::Ce)));
        assert_eq!(r.take_ack_flags(), 0, "5 + 3 = 8 ≡ 0");
        // CWR on data means nothing to the counter.
        let mut p = data(Ecn::Ect1);
        p.flags = flags::CWR;
        assert!(!r.on_data(&p));
        assert_eq!(r.take_ack_flags(), 0, "still 5 + 3 ≡ 0");
    }
}
