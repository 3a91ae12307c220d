//! RACK loss detection (RFC 8985 §6) as Linux implements it (`net/ipv4/tcp_recovery.c`), the
//! per-segment scoreboard it needs, and Linux's retransmission timeout that keeps the SACK
//! scoreboard (`tcp_enter_loss`, `tcp_timeout_mark_lost` in `tcp_input.c`). The tail-loss probe
//! and the timer the three share are in `tlp.rs`.
//!
//! RFC 6675 (`sack.rs`) deems a segment lost when DupThresh segments above it are SACKed, and
//! counts it once retransmitted; a lost retransmission is then found only by the RTO. RACK
//! instead remembers when each segment was last sent and deems lost any segment sent before
//! the most recently sent one that was delivered (`RACK.xmit_ts`), once a reordering window
//! has passed: `xmit_ts(seg) + RACK.rtt + reo_wnd <= now`. Retransmissions are judged like
//! original transmissions, so a lost retransmission is found one round trip later. Segments
//! not yet past the window arm the reordering timer for when the last of them will be.
//!
//! The scoreboard follows Linux's (`TCPCB_LOST`, `TCPCB_SACKED_RETRANS`, `lost_out`,
//! `retrans_out`): a connection with any of the options keeps the two marks in each
//! segment's record (`SegMeta`, beside its send time), and while RACK or the RTO's kept
//! scoreboard is in charge the flight is Linux's `tcp_packets_in_flight`,
//! `packets_out − sacked_out − lost_out + retrans_out`, and the segments to resend are the lost
//! ones not yet resent, in sequence order (`tcp_xmit_retransmit_queue`), before new data.
//!
//! With RACK on, as Linux with `tcp_recovery = 1`, recovery starts once RACK has marked a
//! segment lost (`tcp_time_to_recover`, "the loss is proven"), not on the third duplicate
//! ACK: with no reordering seen, the window is zero in recovery and once DupThresh segments
//! are SACKed (`tcp_rack_reo_wnd`), so a burst of losses starts recovery as the dupack
//! threshold would, and a loss with fewer than DupThresh segments after it starts it a
//! quarter of the minimum RTT later, by the timer. The window rule in recovery is unchanged
//! (PRR with `tcp.prr`, else cwnd = ssthresh), computed on this flight.
//!
//! Linux keeps its in-flight segments in a list sorted by send time (`tsorted_sent_queue`).
//! Segments sent once were sent in sequence order, so RACK walks them in `Sender::segs` from
//! the first that may still be in flight, and keeps a time-ordered list of its own only for
//! retransmissions: the same order, without a list entry per segment sent.
//!
//! Departures from Linux: no DSACK is modelled, so the window's multiplier
//! (`reo_wnd_steps`, grown on DSACKs by `tcp_rack_update_reo_wnd`) stays 1; a loss RACK finds
//! after a timeout is resent within the Loss state rather than by a new recovery episode;
//! there is no F-RTO and no undo.

use std::collections::VecDeque;

use super::cc::CaState;
use super::seg_meta::SegMeta;
use super::sender::Sender;
use super::Io;
use crate::config::Recovery;
use crate::tcp::TcpParams;
use crate::time::{OptTime, SimTime};
use crate::util::packed_option::Opt;

/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 1000): added to the reordering timer so that it
/// fires after the window has passed (`tcp_rack_mark_lost`).
pub const TIMEOUT_MIN: SimTime = SimTime::from_millis(2);
/// One jiffy at HZ = 1000: the soonest Linux re-arms a timer (`tcp_rearm_rto`'s
/// `max(delta_us, 1)` rounded up to jiffies).
pub const JIFFY: SimTime = SimTime::from_millis(1);

/// What the shared retransmission timer is running for (Linux `icsk_pending`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Pending {
    Rto,
    Probe,
    Reorder,
}

/// RACK, TLP and the kept scoreboard of one connection (allocated only for one that uses
/// them, so that the others pay one pointer).
#[derive(Clone, Debug)]
pub(super) struct Rack {
    pub rack: bool,
    pub tlp: bool,
    pub keep_sack: bool,
    /// Segments counted lost (`SegMeta::lost`) and in flight as retransmissions
    /// (`SegMeta::retrans_out`).
    pub lost_out: u64,
    pub retrans_out: u64,
    /// No segment below it is lost and not yet resent (Linux `retransmit_skb_hint`).
    hint: u64,
    /// No segment below it that was sent only once is still in flight (acknowledged, SACKed,
    /// resent or lost): where RACK's walk of the originals starts.
    orig_from: u64,
    /// Retransmissions in the order they were sent, with the time (Linux `tsorted_sent_queue`
    /// for them); an entry is stale once its segment is acknowledged, SACKed or sent again.
    resent: VecDeque<(u64, SimTime)>,
    /// One past the highest segment ever SACKed (Linux `fack`), and its value when the ACK
    /// being taken in arrived (`prior_fack`): a never-resent segment this ACK delivers below
    /// the latter was reordered (Linux `tcp_check_sack_reordering`).
    fack: u64,
    prior_fack: u64,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered.
    xmit_ts: OptTime,
    end_seq: u64,
    /// RACK.rtt: the RTT of the segment that last advanced RACK.
    rtt: SimTime,
    /// RACK advanced since the last detection (Linux `rack.advanced`).
    advanced: bool,
    /// Reordering has been seen (Linux `reord_seen`, RFC 8985 `RACK.reord`).
    reord_seen: bool,
    /// When the reordering timer fires, if segments wait for their window.
    pub reo_at: OptTime,
    /// TLP: SND.NXT after the probe while a probe is outstanding (Linux `tlp_high_seq`), and
    /// whether it was a retransmission (`tlp_retrans`).
    pub tlp_high: Opt<u64>,
    pub tlp_retrans: bool,
    pub probe_at: OptTime,
    /// The timer: what it runs for, and the RTO's own deadline while it runs for another.
    pub pending: Pending,
    pub rto_at: OptTime,
    /// New data was sent or SND.UNA advanced: schedule the probe afresh.
    pub resched: bool,
    /// The probe itself is being sent (it does not schedule another).
    pub in_probe: bool,
    /// Segments the last ACK newly SACKed (a pure duplicate ACK ends a TLP episode).
    pub newly_sacked: u64,
    /// Counters: probes sent, losses they repaired, segments RACK marked lost, and of those
    /// retransmissions.
    pub probes: u64,
    pub probe_recoveries: u64,
    pub marked_lost: u64,
    pub lost_retransmits: u64,
}

impl Rack {
    pub fn new(p: &TcpParams) -> Rack {
        Rack {
            rack: p.rack,
            tlp: p.tlp,
            keep_sack: p.rto_keeps_sack,
            lost_out: 0,
            retrans_out: 0,
            hint: 0,
            orig_from: 0,
            resent: VecDeque::new(),
            fack: 0,
            prior_fack: 0,
            xmit_ts: OptTime::NONE,
            end_seq: 0,
            rtt: SimTime::ZERO,
            advanced: false,
            reord_seen: false,
            reo_at: OptTime::NONE,
            tlp_high: Opt::NONE,
            tlp_retrans: false,
            probe_at: OptTime::NONE,
            pending: Pending::Rto,
            rto_at: OptTime::NONE,
            resched: false,
            in_probe: false,
            newly_sacked: 0,
            probes: 0,
            probe_recoveries: 0,
            marked_lost: 0,
            lost_retransmits: 0,
        }
    }

    /// Whether this scoreboard and flight are in charge in state `s`: always with RACK, and
    /// after a timeout that kept the SACK scoreboard.
    pub fn in_charge(&self, s: CaState) -> bool {
        self.rack || (self.keep_sack && s == CaState::Loss)
    }

    /// Linux `tcp_packets_in_flight` for `packets_out` outstanding, `sacked_out` SACKed.
    pub fn in_flight(&self, packets_out: u64, sacked_out: u64) -> u64 {
        (packets_out - sacked_out - self.lost_out) + self.retrans_out
    }
}

/// RFC 8985 `RACK_sent_after` (Linux `tcp_rack_sent_after`): (t1, seq1) was sent after
/// (t2, seq2), the end sequence breaking ties between equal times.
pub fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// RACK's reordering window (Linux `tcp_rack_reo_wnd`, RFC 8985 §6.2 step 4): none while no
/// reordering has been seen and the connection is in recovery or has DupThresh segments
/// SACKed; otherwise a quarter of the minimum RTT, at most the smoothed RTT.
pub fn reo_wnd(
    reord_seen: bool,
    recovering: bool,
    sacked_out: u64,
    dupthresh: u32,
    min_rtt: SimTime,
    srtt: SimTime,
) -> SimTime {
    if !reord_seen && (recovering || sacked_out >= dupthresh as u64) {
        return SimTime::ZERO;
    }
    // reo_wnd_steps stays 1: it grows only on DSACKs, which are not modelled.
    SimTime(min_rtt.0 / 4).min(srtt)
}

impl Sender {
    /// Uses RACK, TLP or the kept scoreboard, as `p` asks (a SACK connection).
    pub(super) fn with_rack(mut self, p: &TcpParams) -> Sender {
        self.rack = Some(Box::new(Rack::new(p)));
        self
    }

    /// Whether RACK decides what is lost (instead of the duplicate-ACK threshold).
    pub(super) fn rack_detects(&self) -> bool {
        self.rack.as_deref().is_some_and(|r| r.rack)
    }

    /// The flight the window rule of SACK recovery compares with: Linux's while RACK or a
    /// kept scoreboard is in charge, else RFC 6675's SetPipe.
    pub(super) fn recovery_pipe(&self) -> u64 {
        match self.rack.as_deref() {
            Some(r) if r.in_charge(self.st.ca_state) => {
                r.in_flight(self.high - self.una, self.board.n_sacked as u64)
            }
            _ => self.scan().pipe,
        }
    }

    /// Whether segment `s` carries RACK's lost mark.
    pub(super) fn rack_marked_lost(&self, s: u64) -> bool {
        self.rack.is_some()
            && s >= self.una
            && self
                .segs
                .get((s - self.una) as usize)
                .is_some_and(|m| m.lost())
    }

    /// Segment `seg` was just sent at `now` (`new` data, or again). New data sent by
    /// `try_send`'s own loop comes here only as `rack_sent_new` (nothing per segment).
    pub(super) fn rack_sent(&mut self, seg: u64, new: bool, now: SimTime) {
        if new {
            return self.rack_sent_new();
        }
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let m = &mut self.segs[(seg - self.una) as usize];
        if !m.retrans_out() {
            m.set_retrans_out(true);
            r.retrans_out += 1;
        }
        if r.rack {
            r.resent.push_back((seg, now));
        }
    }

    /// `try_send`'s loop sent new data: the probe is scheduled afresh.
    pub(super) fn rack_sent_new(&mut self) {
        if let Some(r) = self.rack.as_deref_mut() {
            r.resched |= !r.in_probe;
        }
    }

    /// Advances RACK with segment `s`, delivered now (Linux `tcp_rack_advance`, RFC 8985
    /// §6.2 step 2): a retransmitted segment delivered sooner than the minimum RTT after its
    /// last send was probably the original's delivery, and is skipped.
    fn rack_advance(&mut self, s: u64, m: SegMeta) {
        let rtt = self.st.now.saturating_sub(m.sent());
        let min_rtt = self.st.min_rtt;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if m.retx() && rtt < min_rtt {
            return;
        }
        r.advanced = true;
        r.rtt = rtt;
        if r.xmit_ts
            .get()
            .is_none_or(|t| sent_after(m.sent(), s + 1, t, r.end_seq))
        {
            r.xmit_ts = OptTime::some(m.sent());
            r.end_seq = s + 1;
        }
    }

    /// Uncounts a segment's marks as it is SACKed or acknowledged.
    fn rack_unmark(r: &mut Rack, m: SegMeta) {
        r.lost_out -= m.lost() as u64;
        r.retrans_out -= m.retrans_out() as u64;
    }

    /// An ACK arrives: what it delivers is compared with the SACKs before it (Linux's
    /// `prior_fack`, taken before `tcp_sacktag_write_queue`).
    pub(super) fn rack_ack_arrives(&mut self) {
        if let Some(r) = self.rack.as_deref_mut() {
            r.prior_fack = r.fack;
        }
    }

    /// The runs `new` were SACKed for the first time (Linux `tcp_sacktag_one`).
    pub(super) fn rack_sacked(&mut self, new: &[(u64, u64)]) {
        let loss_state = self.st.ca_state == CaState::Loss;
        for &(x, y) in new {
            for s in x..y {
                let slot = &mut self.segs[(s - self.una) as usize];
                let meta = *slot;
                *slot = meta.unmarked();
                let Some(r) = self.rack.as_deref_mut() else {
                    return;
                };
                Self::rack_unmark(r, meta);
                r.newly_sacked += 1;
                // Delivered below what was SACKed before this ACK though never resent:
                // reordering (Linux `tcp_check_sack_reordering`); not after a timeout that
                // forgot the SACKs. A hole this ACK SACKs above is a loss, not reordering.
                if !meta.retx() && s < r.prior_fack && !loss_state {
                    r.reord_seen = true;
                }
                self.rack_advance(s, meta);
            }
            if let Some(r) = self.rack.as_deref_mut() {
                r.fack = r.fack.max(y);
            }
        }
    }

    /// An ACK of segments below `ack` arrived, its SACK blocks taken in: RACK advances with
    /// what it acknowledges, the marks leave with them, a TLP episode may end and RACK marks
    /// what is lost (Linux `tcp_clean_rtx_queue`, `tcp_process_tlp_ack`,
    /// `tcp_rack_mark_lost`). Before the sender moves SND.UNA.
    pub(super) fn rack_ack(&mut self, ack: u64, io: &mut Io) {
        self.rack_timer_begins();
        let loss_state = self.st.ca_state == CaState::Loss;
        let mut sacked_acked = 0;
        for s in self.una..ack.max(self.una) {
            let meta = self.segs[(s - self.una) as usize];
            let Some(r) = self.rack.as_deref_mut() else {
                return;
            };
            Self::rack_unmark(r, meta);
            if meta.sacked() {
                sacked_acked += 1;
            } else {
                if !meta.retx() && s < r.prior_fack && !loss_state {
                    r.reord_seen = true;
                }
                self.rack_advance(s, meta);
            }
        }
        let una_advanced = ack > self.una;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let acked = ack.max(self.una);
        r.orig_from = r.orig_from.max(acked);
        while r.resent.front().is_some_and(|&(s, _)| s < acked) {
            r.resent.pop_front();
        }
        r.resched |= una_advanced;
        if ack >= self.high {
            r.reo_at = OptTime::NONE;
        }
        let newly_sacked = std::mem::take(&mut r.newly_sacked);
        // TLP (Linux `tcp_process_tlp_ack`): an ACK at or above the probe's SND.NXT ends the
        // episode; beyond it after a resent probe, the probe repaired a loss.
        if let Some(h) = r.tlp_high.get().filter(|&h| ack >= h) {
            if !r.tlp_retrans {
                r.tlp_high = Opt::NONE; // a probe of new data was acknowledged
            } else if ack > h {
                r.tlp_high = Opt::NONE;
                r.probe_recoveries += 1;
                self.tlp_reduce();
            } else if !una_advanced && newly_sacked == 0 {
                // A pure duplicate ACK: the original and the probe both arrived.
                self.rack.as_deref_mut().expect("checked").tlp_high = Opt::NONE;
            }
        }
        let sacked_out = self.board.n_sacked as u64 - sacked_acked;
        if self.rack.as_deref().is_some_and(|r| r.rack && r.advanced) {
            let wait = self.rack_detect(acked, sacked_out);
            let rto = self.rtt.rto();
            let now = io.now;
            let r = self.rack.as_deref_mut().expect("checked");
            r.advanced = false;
            // Linux arms the timer a little after the window (`TCP_TIMEOUT_MIN`), at most an
            // RTO ahead.
            r.reo_at = OptTime::of(wait.map(|w| now + (w + TIMEOUT_MIN).min(rto)));
        }
    }

    /// After the sender took the ACK in: recovery starts once RACK has marked a segment lost
    /// (Linux `tcp_time_to_recover`).
    pub(super) fn rack_may_recover(&mut self, io: &mut Io) {
        let lost = self
            .rack
            .as_deref()
            .is_some_and(|r| r.rack && r.lost_out > 0);
        if lost
            && matches!(self.st.ca_state, CaState::Open | CaState::Cwr)
            && self.may_fast_retransmit()
        {
            self.enter_recovery(io);
        }
    }

    /// RFC 8985 §6.2 step 5 (Linux `tcp_rack_detect_loss`): marks lost the segments sent
    /// before RACK.xmit_ts whose window has passed; returns how long the last of the others
    /// must still wait, if any. Segments below `first` are acknowledged.
    pub(super) fn rack_detect(&mut self, first: u64, sacked_out: u64) -> Option<SimTime> {
        let now = self.st.now;
        let recovering = matches!(self.st.ca_state, CaState::Recovery | CaState::Loss);
        let (dupthresh, min_rtt, srtt) = (self.p.dupthresh, self.st.min_rtt, self.st.srtt);
        let r = self.rack.as_deref()?;
        let (xmit_ts, end_seq, rtt) = (r.xmit_ts.get()?, r.end_seq, r.rtt);
        let reo = reo_wnd(
            r.reord_seen,
            recovering,
            sacked_out,
            dupthresh,
            min_rtt,
            srtt,
        );
        // Linux keeps in its time-sorted list only segments in flight: not acknowledged,
        // SACKed, resent since, or lost and waiting to be resent. Either walk ends at the
        // first segment in flight sent after RACK.xmit_ts: the rest were sent later.
        let mut wait: Option<SimTime> = None;
        let mut lost = Vec::new();
        let mut check = |s: u64, t: SimTime| -> bool {
            if !sent_after(xmit_ts, end_seq, t, s + 1) {
                return false;
            }
            let due = t + rtt + reo;
            if due <= now {
                lost.push(s);
            } else {
                wait = Some(wait.map_or(due - now, |w| w.max(due - now)));
            }
            true
        };
        // Segments sent once, in sequence (= sending) order, from the first still in flight.
        let r = self.rack.as_deref_mut()?;
        let mut s = r.orig_from.max(first);
        let mut front = true;
        while s < self.high {
            let m = self.segs[(s - self.una) as usize];
            if m.retx() || m.sacked() || m.lost() {
                s += 1;
                if front {
                    r.orig_from = s;
                }
                continue;
            }
            front = false;
            if !check(s, m.sent()) {
                break;
            }
            s += 1;
        }
        // Retransmissions, in the order they were sent.
        let mut i = 0;
        while let Some(&(s, t)) = r.resent.get(i) {
            let in_flight = s >= first && {
                let m = self.segs[(s - self.una) as usize];
                m.sent() == t && !m.sacked() && (!m.lost() || m.retrans_out())
            };
            if !in_flight {
                if i == 0 {
                    r.resent.pop_front();
                } else {
                    i += 1;
                }
                continue;
            }
            if !check(s, t) {
                break;
            }
            i += 1;
        }
        for s in lost {
            self.rack_mark_lost(s);
        }
        wait
    }

    /// Marks segment `s` lost (Linux `tcp_mark_skb_lost`); a lost retransmission leaves the
    /// flight.
    fn rack_mark_lost(&mut self, s: u64) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let m = &mut self.segs[(s - self.una) as usize];
        let newly = !m.lost();
        if newly {
            m.set_lost(true);
            r.lost_out += 1;
            r.marked_lost += 1;
        }
        if m.retrans_out() {
            m.set_retrans_out(false);
            r.retrans_out -= 1;
            r.lost_retransmits += 1;
        }
        r.hint = r.hint.min(s);
        if newly && self.rate.is_some() {
            self.rate_lost(1);
        }
    }

    /// The first segment that is lost, not SACKed and not yet resent.
    fn next_lost(&mut self) -> Option<u64> {
        let r = self.rack.as_deref_mut()?;
        if r.lost_out == 0 {
            return None;
        }
        let mut s = r.hint.max(self.una);
        while s < self.high {
            let m = self.segs[(s - self.una) as usize];
            if m.lost() && !m.retrans_out() && !m.sacked() {
                r.hint = s;
                return Some(s);
            }
            s += 1;
        }
        r.hint = s;
        None
    }

    /// Sending in recovery with RACK, or after a timeout that kept the scoreboard (Linux
    /// `tcp_xmit_retransmit_queue`, then new data): while the window exceeds the flight, the
    /// lost segments not yet resent, in order, then new data. False if RFC 6675's rules or
    /// the plain window are in charge instead.
    pub(super) fn rack_send(&mut self, io: &mut Io) -> bool {
        let state = self.st.ca_state;
        let in_charge = self.rack.as_deref().is_some_and(|r| match state {
            CaState::Recovery => r.rack,
            CaState::Loss => r.keep_sack,
            _ => false,
        });
        if !in_charge || self.p.recovery != Recovery::Sack {
            return false;
        }
        let cwnd = self.st.cwnd as u64; // truncation: floor of a non-negative window
        let mut pipe = self.recovery_pipe();
        while cwnd > pipe && self.pacing_allows(io.now) {
            let seg = match self.next_lost() {
                Some(s) => s,
                None if self.nxt == self.high
                    && self.app_has(self.high)
                    && self.rwnd_allows(self.high) =>
                {
                    self.high
                }
                None => break,
            };
            self.send_segment(seg, io);
            if state == CaState::Recovery {
                self.prr_sent();
            }
            if seg >= self.nxt {
                self.nxt = seg + 1;
            }
            pipe += 1;
        }
        self.note_flight();
        true
    }

    /// A retransmission timeout. Keeping the scoreboard (Linux `tcp_timeout_mark_lost`): the
    /// SACKed segments stay so, the others are marked lost (with RACK, except those sent
    /// within the last RACK.rtt, bar the first), and the window is the flight plus one
    /// (`tcp_enter_loss`); returns true. Otherwise the marks are forgotten with the SACKs.
    pub(super) fn rack_timeout(&mut self) -> bool {
        let now = self.st.now;
        let Some(r) = self.rack.as_deref_mut() else {
            return false;
        };
        r.reo_at = OptTime::NONE;
        r.tlp_high = Opt::NONE;
        if !r.keep_sack {
            self.segs.iter_mut().for_each(|m| *m = m.unmarked());
            (r.lost_out, r.retrans_out, r.hint, r.fack) = (0, 0, self.una, self.una);
            // Nothing sent before the timeout is RACK's to judge any more.
            r.orig_from = self.high;
            r.resent.clear();
            return false;
        }
        for s in self.una..self.high {
            let m = &mut self.segs[(s - self.una) as usize];
            let recent = r.rack && s != self.una && m.sent() + r.rtt > now;
            if m.sacked() || recent {
                continue;
            }
            if !m.lost() {
                m.set_lost(true);
                r.lost_out += 1;
            }
            if m.retrans_out() {
                m.set_retrans_out(false);
                r.retrans_out -= 1;
            }
            r.hint = r.hint.min(s);
        }
        self.set_high_rxt(self.una);
        self.nxt = self.high;
        let pipe = self.recovery_pipe();
        self.st.cwnd = (pipe + 1) as f64;
        true
    }
}

#[cfg(test)]
#[path = "rack_tests.rs"]
mod tests;
