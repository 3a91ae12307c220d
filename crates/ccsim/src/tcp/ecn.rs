//! ECN end to end — RFC 3168 §6.1 (`docs/algorithms.md` §1.9).
//!
//! Negotiation (§6.1.1): the SYN carries ECE and CWR; an ECN-capable receiver answers with ECE
//! (not CWR) on the SYN-ACK; anything else leaves ECN off on both ends. Without a handshake
//! both ends are configured: ECN is on when the sender asks for it and the receiver accepts it.
//!
//! Sender (§6.1.2, §6.1.4–6.1.5): new data is ECT(0); retransmissions, SYNs and pure ACKs are
//! Not-ECT, so a router drops rather than marks them (except for an algorithm that needs ECN,
//! whose SYNs and retransmissions Linux sends ECN-capable). An ACK with ECE in the Open state reduces
//! the window once, to the threshold a loss would set (the congestion-control algorithm's own
//! `ssthresh`, or the slow-start rule's decrease factor; Reno halves), with `cwnd = ssthresh`
//! at once as ns-2 and RFC 3168 describe; it enters `CaState::Cwr` until data sent after the
//! reduction is acknowledged, and sets CWR on the next new data packet. ECE during Cwr, fast recovery or after a timeout causes no second
//! reduction (the window was already cut for that window of data), and a loss detected while
//! in Cwr does not cut ssthresh again (Linux `tcp_enter_recovery`). ACKs with ECE do not grow
//! the window. CWR is also set after a reduction for a loss or timeout (§6.1.2).
//!
//! Receiver (§6.1.3): a CE data packet makes every following ACK carry ECE until a data packet
//! with CWR arrives; the first CE is acknowledged at once (Linux's quick ACK on CE), so a
//! delayed-ACK receiver does not hold back the congestion signal.
//!
//! Two other feedback modes serve algorithms that need the extent of congestion, not only its
//! onset ([`EcnFeedback`]): DCTCP's per-packet echo (RFC 8257 §3.2, Linux `tcp_dctcp.h`) and
//! Accurate ECN's counter (`accecn.rs`). An algorithm asks for one through
//! `CongestionControl::needs_ecn` (Linux `TCP_CONG_NEEDS_ECN`); the flow then uses ECN whatever
//! `tcp.ecn` says. Whatever the mode, the sender counts the segments reported CE-marked
//! ([`AckSample::ce`](super::cc::AckSample)) and reduces as above at most once per window.
//!
//! With `tcp.prr` (and SACK) the reduction is Linux's: spread over the round trip by PRR, with
//! no growth during CWR and cwnd = ssthresh at its end (`prr.rs`). Without it the cut is
//! immediate and ACKs without ECE still grow the window during CWR (ns-2). The one-segment case of
//! §6.1.2 (reset the timer instead of halving a window of 1) cannot arise: reactions happen only
//! in the Open state, where cwnd is at least 2.

use super::cc::{CaEvent, CaState, CongestionControl};
use super::sender::Sender;
use crate::packet::{flags, Ecn, Packet};

/// How the receiver reports CE marks to the sender.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EcnFeedback {
    /// RFC 3168 §6.1.3: ECE on every ACK from the first CE mark until a CWR arrives — one
    /// signal per window, whatever the number of marks.
    #[default]
    Classic,
    /// DCTCP's receiver (RFC 8257 §3.2, Linux `dctcp_ece_ack_update`): ECE mirrors the CE
    /// state of the latest data packet, and a change of state is acknowledged at once (after
    /// a delayed ACK for the packets before it, with their state), so that the ACKs tell the
    /// sender how many segments were marked.
    PerPacket,
    /// Accurate ECN (draft-ietf-tcpm-accurate-ecn): the count of CE-marked packets, modulo 8,
    /// in the ACE field of every ACK (`accecn.rs`), negotiated in the handshake with fallback
    /// to `Classic`.
    Accurate,
}

impl EcnFeedback {
    /// Accurate ECN only where `agreed` (the peer takes it), else classic feedback, to which
    /// Accurate ECN falls back; the other modes are unchanged.
    pub fn accurate_if(self, agreed: bool) -> EcnFeedback {
        match self {
            EcnFeedback::Accurate if !agreed => EcnFeedback::Classic,
            f => f,
        }
    }
}

/// How an algorithm uses ECN, for one that needs it (Linux `TCP_CONG_NEEDS_ECN`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EcnUse {
    /// Its data is ECT(1), the L4S identifier (RFC 9331 §4), rather than ECT(0).
    pub ect1: bool,
    pub feedback: EcnFeedback,
}

/// The sender's ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnSender {
    /// ECN codepoints are in use on this connection (by ECN or by ACNS).
    pub on: bool,
    /// ACNS is in use (`acns.rs`): ECE on an ACK is a command, not an ECN echo.
    pub acns: bool,
    /// Set CWR on the next new data packet.
    cwr_pending: bool,
    /// The feedback asked for and, once negotiated, in use.
    pub feedback: EcnFeedback,
    /// New data is ECT(1).
    pub ect1: bool,
    /// The algorithm needs ECN: the SYN and retransmissions are ECN-capable too, as Linux
    /// sends them for such an algorithm (`tcp_ecn_send_syn`, `tcp_ecn_send`), so that a queue
    /// marking far below its limit (DCTCP's step) does not drop them.
    pub ca_needs: bool,
    /// The ACE value of the last ACK (Accurate ECN's `s.cep` modulo 8).
    pub(super) ace: u8,
    /// Segments reported CE-marked by ACKs that acknowledged no new data, for the next one
    /// that does (`AckSample::ce`); saturates at 255 (a byte keeps the sender at 680 bytes;
    /// only a recovery of more than 36 duplicate ACKs reporting marks reaches it).
    pub(super) ce_pending: u8,
    /// One past the last segment sent before the reduction (Linux `high_seq`).
    cwr_high: u64,
}

impl EcnSender {
    /// `statically_on`: there is no handshake, this end asks for ECN and the peer accepts it.
    /// `usage`: what the congestion-control algorithm needs, if it needs ECN.
    pub fn new(statically_on: bool, usage: Option<EcnUse>) -> EcnSender {
        EcnSender {
            on: statically_on,
            feedback: usage.map_or(EcnFeedback::Classic, |u| u.feedback),
            ect1: usage.is_some_and(|u| u.ect1),
            ca_needs: usage.is_some(),
            ace: super::accecn::ACE_INIT,
            ..Default::default()
        }
    }
}

impl EcnSender {
    /// The ECN-capable codepoint of this connection's packets.
    pub fn codepoint(&self) -> Ecn {
        if self.ect1 {
            Ecn::Ect1
        } else {
            Ecn::Ect0
        }
    }
}

/// Flags of an ECN-setup SYN (§6.1.1).
pub const SYN_FLAGS: u8 = flags::ECE | flags::CWR;

impl Sender {
    /// Sets the ECN codepoint and CWR flag of data segment `seg` about to be sent, and ACNS's
    /// request bit.
    pub(super) fn ecn_stamp(&mut self, p: &mut Packet, seg: u64, new_data: bool) {
        if !self.ecn.on || !(new_data || self.ecn.ca_needs) {
            p.ecn = Ecn::NotEct;
            return;
        }
        p.ecn = self.ecn.codepoint();
        if !new_data {
            return;
        }
        if self.ecn.acns {
            self.acns_stamp(p, seg);
        }
        if self.ecn.cwr_pending {
            p.flags |= flags::CWR;
            self.ecn.cwr_pending = false;
        }
    }

    /// The window was reduced (ECN echo, fast retransmit or timeout): tell the receiver — not
    /// under Accurate ECN, where CWR is a bit of the ACE counter and the receiver needs no
    /// acknowledgement of the reduction.
    pub(super) fn ecn_window_reduced(&mut self) {
        if self.ecn.on && self.ecn.feedback != EcnFeedback::Accurate {
            self.ecn.cwr_pending = true;
        }
    }

    /// A new ACK: the Cwr state ends once data sent after the reduction is acknowledged —
    /// strictly above the reduced window, so that the ACK has left the receiver after the CWR
    /// packet reached it (Linux: "CWR is to be held something *above* high_seq is ACKed";
    /// ns-2: `seqno > recover_`). An ACK for exactly the reduced window may still carry an
    /// echo of the marks that caused the reduction.
    /// Returns whether the ACK was PRR's to act on (CWR under PRR: no growth).
    pub(super) fn ecn_new_ack(&mut self) -> bool {
        if self.st.ca_state == CaState::Cwr {
            if self.una > self.ecn.cwr_high {
                self.set_ca_state(CaState::Open);
                self.prr_end_cwr();
            } else if self.prr.is_some() {
                self.prr_ack(true);
                return true;
            }
        }
        false
    }

    /// The congestion signal of an ACK on a connection using ECN (not ACNS): whether it reports
    /// congestion (ECE; under Accurate ECN, a rise of the CE counter, kept for the next ACK of
    /// new data: `take_ce`).
    pub(super) fn ecn_signal(&mut self, fl: u8) -> bool {
        match self.ecn.feedback {
            EcnFeedback::Classic | EcnFeedback::PerPacket => fl & flags::ECE != 0,
            EcnFeedback::Accurate => {
                let ce = self.accecn_delta(fl);
                self.ecn.ce_pending = self.ecn.ce_pending.saturating_add(ce as u8);
                ce > 0
            }
        }
    }

    /// The segments reported CE-marked since the last ACK of new data, on an ACK of `acked`
    /// new segments: under classic and per-packet feedback the segments an ECE ACK
    /// acknowledges (Linux counts them as CE-delivered, `delivered_ce`), under Accurate ECN
    /// the counter's rise since the last ACK of new data.
    #[inline(never)]
    pub(super) fn take_ce(&mut self, acked: u64, ece: bool) -> u64 {
        match self.ecn.feedback {
            EcnFeedback::Accurate => std::mem::take(&mut self.ecn.ce_pending) as u64,
            _ if ece => acked,
            _ => 0,
        }
    }

    /// An ACK carrying ECE on a connection using ECN; `before` is `una + SACKed segments`
    /// before it (for PRR, which counts what it delivered), `una_advanced` whether it did.
    pub(super) fn on_ece(&mut self, before: u64, una_advanced: bool) {
        // Counted here, after the ACK's other hooks (`AckSample::ece` tells them), so that
        // ACKs without ECE pay nothing for it.
        self.st.ecn_echoes += 1;
        if self.st.ca_state != CaState::Open {
            return;
        }
        // The algorithm hears of the echo before the reduction (Prague decides there whether
        // this one may cut).
        self.cc.cwnd_event(&mut self.st, CaEvent::EcnEcho);
        // RFC 3168 §6.1.2: respond as to a single loss — the same threshold a loss would set.
        self.st.ssthresh = self.loss_ssthresh();
        if self.prr.is_some() {
            // Linux: the reduction spread over the round trip by PRR (`prr.rs`).
            self.prr_enter_cwr(before, una_advanced);
        } else if !self.cc.controls_window() {
            // An algorithm that sets its own window (BBR) answers in `cong_control` instead.
            self.st.cwnd = self.st.ssthresh;
        }
        self.set_ca_state(CaState::Cwr);
        self.ecn.cwr_high = self.high;
        self.stats.ecn_reductions += 1;
        self.ecn_window_reduced();
    }
}

/// The receiver's ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnEcho {
    capable: bool,
    /// ECN codepoints are in use on this connection (by ECN or by ACNS).
    pub on: bool,
    /// The receiver supports ACNS, and ACNS is in use (`acns.rs`).
    pub(super) acns_capable: bool,
    pub acns: bool,
    /// The most severe ACNS command since the last ACK.
    pub(super) command: crate::acns::Command,
    /// Classic: echo ECE on every ACK until a CWR arrives. Per-packet: the latest data
    /// packet was CE. Accurate: the previous data packet was CE (for change-triggered ACKs).
    pub(super) echo: bool,
    /// The feedback in use (per-packet as configured; Accurate once negotiated).
    pub feedback: EcnFeedback,
    /// The receiver supports Accurate ECN when the sender asks for it.
    pub(super) accurate_capable: bool,
    /// CE-marked data packets that arrived.
    pub ce_received: u64,
}

impl EcnEcho {
    /// A receiver that accepts ECN if `capable`; without a handshake it is on from the start.
    pub fn new(capable: bool, handshake: bool) -> EcnEcho {
        EcnEcho {
            capable,
            on: capable && !handshake,
            ..Default::default()
        }
    }

    /// The feedback the flow's algorithm needs (`feedback`) and whether this receiver supports
    /// Accurate ECN (`accurate`). DCTCP's per-packet echo is the receiver's own setting, as in
    /// a data centre where both ends run DCTCP; Accurate ECN is negotiated in the handshake, or,
    /// without one, used where the receiver supports it (classic otherwise).
    pub fn with_feedback(mut self, feedback: EcnFeedback, accurate: bool) -> EcnEcho {
        self.accurate_capable = accurate;
        self.feedback = feedback.accurate_if(accurate && self.on);
        self
    }

    /// A SYN arrived: returns the ECN flags of the SYN-ACK (ECE and CMT if ACNS is agreed,
    /// ECE if ECN is, Accurate ECN's answer if the SYN asks for it and this end supports it).
    pub fn on_syn(&mut self, syn_flags: u8) -> u8 {
        use crate::acns::{SYN_ACK_FLAGS, SYN_FLAGS as ACNS_SYN};
        self.acns = self.acns_capable && syn_flags & ACNS_SYN == ACNS_SYN;
        if self.acns {
            self.on = true;
            return SYN_ACK_FLAGS;
        }
        self.on = self.capable && syn_flags & SYN_FLAGS == SYN_FLAGS;
        if self.on && self.accurate_capable && super::accecn::asks(syn_flags) {
            self.feedback = EcnFeedback::Accurate;
            return super::accecn::SYN_ACK_FLAGS;
        }
        if self.on {
            flags::ECE
        } else {
            0
        }
    }

    /// A data packet arrived; true if it should be acknowledged at once. Under the per-packet
    /// echo a change of CE state is not yet taken in: the receiver first sends the delayed
    /// ACK, if one is pending, with the state of the packets it covers (`take_change`).
    pub fn on_data(&mut self, pkt: &Packet) -> bool {
        if pkt.ecn == Ecn::Ce {
            self.ce_received += 1;
        }
        if !self.on {
            return false;
        }
        if self.acns {
            return self.acns_data(pkt);
        }
        match self.feedback {
            EcnFeedback::Classic => {
                // CWR first: a CWR packet that is itself CE starts a new echo.
                if pkt.flags & flags::CWR != 0 {
                    self.echo = false;
                }
                if pkt.ecn == Ecn::Ce && !self.echo {
                    self.echo = true;
                    return true;
                }
                false
            }
            EcnFeedback::PerPacket => (pkt.ecn == Ecn::Ce) != self.echo,
            EcnFeedback::Accurate => self.accecn_data(pkt.ecn == Ecn::Ce),
        }
    }

    /// Under the per-packet echo, the CE state changes (after `on_data` returned true).
    pub fn take_change(&mut self) {
        if self.feedback == EcnFeedback::PerPacket {
            self.echo = !self.echo;
        }
    }

    /// Flags for the next (non-SYN) ACK; an ACNS command is echoed once.
    pub fn take_ack_flags(&mut self) -> u8 {
        // Most connections use neither: one test for them.
        if !self.on {
            return 0;
        }
        if self.acns {
            return crate::acns::ack_flags(std::mem::take(&mut self.command));
        }
        if self.feedback == EcnFeedback::Accurate {
            return self.ace_flags();
        }
        if self.echo {
            flags::ECE
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{wire_seq, Kind};
    use crate::tcp::test_rig::Rig;
    use crate::time::SimTime;

    fn data(ecn: Ecn, fl: u8) -> Packet {
        let mut p = Packet::new(0, Kind::TcpData, 0, 1, 1040, SimTime::ZERO);
        p.payload = 1000;
        p.ecn = ecn;
        p.flags = fl;
        p
    }

    #[test]
    fn receiver_echoes_until_cwr() {
        let mut r = EcnEcho::new(true, true);
        assert_eq!(r.on_syn(flags::SYN | SYN_FLAGS), flags::ECE);
        assert_eq!(r.take_ack_flags(), 0);
        assert!(
            r.on_data(&data(Ecn::Ce, 0)),
            "the first CE asks for an immediate ACK"
        );
        assert_eq!(r.take_ack_flags(), flags::ECE);
        // Later packets, CE or not, keep the echo going without another immediate ACK.
        assert!(!r.on_data(&data(Ecn::Ect0, 0)));
        assert!(!r.on_data(&data(Ecn::Ce, 0)));
        assert_eq!(r.take_ack_flags(), flags::ECE);
        // CWR stops it.
        r.on_data(&data(Ecn::Ect0, flags::CWR));
        assert_eq!(r.take_ack_flags(), 0);
        // A CWR packet that is itself CE starts a new echo.
        assert!(r.on_data(&data(Ecn::Ce, flags::CWR)));
        assert_eq!(r.take_ack_flags(), flags::ECE);
        assert_eq!(r.ce_received, 3);
    }

    #[test]
    fn per_packet_echo_mirrors_each_packet_and_ignores_cwr() {
        // RFC 8257 §3.2's two-state machine: ECE = the CE state of the latest packet; a change
        // asks for an immediate ACK, taken in only after the pending ACK went out (`take_change`).
        let mut r = EcnEcho::new(true, false).with_feedback(EcnFeedback::PerPacket, true);
        assert!(!r.on_data(&data(Ecn::Ect0, 0)));
        assert_eq!(r.take_ack_flags(), 0);
        assert!(r.on_data(&data(Ecn::Ce, 0)), "a change of state");
        assert_eq!(
            r.take_ack_flags(),
            0,
            "the delayed ACK before it keeps the old state"
        );
        r.take_change();
        assert_eq!(r.take_ack_flags(), flags::ECE);
        assert!(
            !r.on_data(&data(Ecn::Ce, flags::CWR)),
            "CWR changes nothing"
        );
        assert_eq!(r.take_ack_flags(), flags::ECE);
        assert!(r.on_data(&data(Ecn::Ect0, 0)));
        r.take_change();
        assert_eq!(r.take_ack_flags(), 0);
        assert_eq!(r.ce_received, 2);
    }

    #[test]
    fn negotiation_needs_both_ends() {
        // A non-ECN receiver answers a plain SYN-ACK; a receiver that gets a plain SYN too.
        let mut r = EcnEcho::new(false, true);
        assert_eq!(r.on_syn(flags::SYN | SYN_FLAGS), 0);
        assert!(!r.on_data(&data(Ecn::Ce, 0)));
        assert_eq!(r.take_ack_flags(), 0);
        let mut r = EcnEcho::new(true, true);
        assert_eq!(r.on_syn(flags::SYN), 0);
        assert!(!r.on);
        // Without a handshake the receiver's own setting decides.
        assert!(EcnEcho::new(true, false).on);
    }

    /// An ECN sender without handshake, 20 segments in flight, receiver window unlimited.
    fn rig() -> Rig {
        let mut p = crate::tcp::test_rig::classic_linux();
        p.handshake = false;
        p.ecn = true;
        p.initial_window = 20;
        Rig::start(&p)
    }

    /// An ACK for `segs` segments at 1 ms, with or without ECE; the packets sent in reply.
    fn ack(r: &mut Rig, segs: u64, ece: bool) -> Vec<Packet> {
        r.ack(1, segs, ece, SimTime::ZERO, None)
    }

    #[test]
    fn sender_halves_once_per_window_and_sets_cwr_on_new_data() {
        let mut r = rig();
        assert!(r.s.ecn.on);
        let sent: Vec<Packet> = r.out.clone();
        assert_eq!(sent.len(), 20);
        assert!(sent.iter().all(|p| p.ecn == Ecn::Ect0));
        // ACK of segment 0 with ECE: cwnd 20 → ssthresh = cwnd = max(20/2, 2) = 10 (Reno;
        // no growth on an ECE ACK). Flight is 19 > 10: nothing new goes out yet.
        let sent = ack(&mut r, 1, true);
        assert_eq!((r.s.st.cwnd, r.s.st.ssthresh), (10.0, 10.0));
        assert_eq!(r.s.st.ca_state, CaState::Cwr);
        assert_eq!(r.s.stats.ecn_reductions, 1);
        assert!(sent.is_empty());
        // More ECE ACKs for the same window: no second cut. Window growth resumes on ACKs
        // without ECE (ns-2), one segment per window in congestion avoidance.
        ack(&mut r, 2, true);
        ack(&mut r, 3, true);
        assert_eq!(r.s.st.cwnd, 10.0);
        assert_eq!(r.s.stats.ecn_reductions, 1);
        // Drain to flight < cwnd: ACK up to segment 11 → flight 9; the next new segment (20)
        // carries CWR; the one after does not.
        let sent = ack(&mut r, 11, false);
        assert!(!sent.is_empty());
        assert_eq!(sent[0].seq, wire_seq(20 * r.s.p.mss as u64));
        assert_ne!(sent[0].flags & flags::CWR, 0);
        assert!(sent[1..].iter().all(|p| p.flags & flags::CWR == 0));
        assert!(sent.iter().all(|p| p.ecn == Ecn::Ect0));
        // Still inside the reduced window (SND.UNA 11 < 20): ECE ignored.
        ack(&mut r, 12, true);
        assert_eq!(r.s.stats.ecn_reductions, 1);
        // An ACK for exactly the reduced window (segments 0..19) may have left the receiver
        // before the CWR packet arrived: its ECE is still the old episode.
        ack(&mut r, 20, true);
        assert_eq!(r.s.st.ca_state, CaState::Cwr);
        assert_eq!(r.s.stats.ecn_reductions, 1);
        // Once segment 20 (the first sent after the cut) is acknowledged, Cwr ends and a new
        // ECE reduces again: ssthresh = cwnd/2.
        ack(&mut r, 21, false);
        assert_eq!(r.s.st.ca_state, CaState::Open);
        let w = r.s.st.cwnd;
        ack(&mut r, 22, true);
        assert_eq!(r.s.stats.ecn_reductions, 2);
        assert_eq!(r.s.st.cwnd, (w / 2.0).max(2.0));
    }

    #[test]
    fn ece_during_loss_recovery_does_not_cut_again_and_retransmissions_are_not_ect() {
        let mut r = rig();
        // Three duplicate ACKs for segment 0: fast retransmit, ssthresh 10.
        ack(&mut r, 0, false);
        ack(&mut r, 0, false);
        let sent = ack(&mut r, 0, false);
        assert_eq!(r.s.st.ca_state, CaState::Recovery);
        let rtx = sent.iter().find(|p| p.seq == 0).expect("retransmission");
        assert_eq!(rtx.ecn, Ecn::NotEct);
        let ssthresh = r.s.st.ssthresh;
        // ECE arriving during recovery is the same congestion episode.
        ack(&mut r, 0, true);
        assert_eq!(r.s.st.ssthresh, ssthresh);
        assert_eq!(r.s.stats.ecn_reductions, 0);
        // The first new data sent after the loss reduction carries CWR.
        let sent = ack(&mut r, 20, false);
        let first_new = sent
            .iter()
            .find(|p| p.seq >= wire_seq(20 * r.s.p.mss as u64));
        assert!(first_new.is_some_and(|p| p.flags & flags::CWR != 0));
    }

    #[test]
    fn a_loss_in_a_window_already_cut_for_ecn_keeps_ssthresh() {
        let mut r = rig();
        ack(&mut r, 1, true);
        assert_eq!(r.s.st.ssthresh, 10.0);
        for _ in 0..3 {
            ack(&mut r, 1, false);
        }
        assert_eq!(r.s.st.ca_state, CaState::Recovery);
        assert_eq!(r.s.st.ssthresh, 10.0);
    }
}
