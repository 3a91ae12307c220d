//! The tail-loss probe (RFC 8985 §7, as Linux `tcp_schedule_loss_probe` and
//! `tcp_send_loss_probe` in `net/ipv4/tcp_output.c`, `tcp_process_tlp_ack` in `tcp_input.c`)
//! and the one timer that the RTO, the probe and RACK's reordering window share.
//!
//! A lost tail (the last segments of a flight) leaves no segment after it to be SACKed, so
//! neither the duplicate-ACK threshold nor RACK can find it, and only the RTO repairs it. TLP
//! sends a probe a little more than two round trips after the last transmission: new data if
//! the application and the receiver window allow (its SACK lets RACK find the loss), else the
//! last segment again (its ACK repairs a single lost segment). An ACK beyond the resent probe
//! means it repaired a loss, and the window is reduced as for one (`tcp_process_tlp_ack`).
//!
//! The probe timeout, as Linux: PTO = 2·SRTT, plus `TCP_RTO_MIN` (200 ms, RFC 8985's
//! WCDelAckT: the receiver may be holding a delayed ACK for a lone segment) when one segment
//! is in flight, else plus `TCP_TIMEOUT_MIN` (2 ms); 1 s without an RTT sample; never later
//! than the RTO would fire. Probes are sent only in the Open (or CWR) state, one outstanding at
//! a time.
//!
//! The timer: Linux multiplexes the RTO, the probe and the reordering timer on one timer,
//! with `icsk_pending` saying which runs. So does ccsim, on the sender's `Rto` timer, rather
//! than a timer name of its own: the simulation visits each of a sender's named timers after
//! every packet it handles, so a new name would cost every connection, while the multiplexed
//! timer costs only the connections that use it. The sender's own code keeps the RTO's
//! deadline in the timer as it always has; at the start of each event of a connection with
//! RACK or TLP (`rack_timer_begins`) the RTO's deadline is put back, and at its end
//! (`rack_timer_ends`) the deadline of whichever runs is put in its place.

use super::cc::CaState;
use super::rack::{Pending, JIFFY};
use super::sender::Sender;
use super::timer::TimerName;
use super::Io;
use crate::time::{OptTime, SimTime};
use crate::util::packed_option::Opt;

/// RFC 8985's WCDelAckT, Linux `TCP_RTO_MIN`: the longest a receiver may delay an ACK.
pub const WC_DEL_ACK_T: SimTime = SimTime::from_millis(200);
/// Linux `TCP_TIMEOUT_INIT`: the probe timeout before any RTT sample.
pub const TIMEOUT_INIT: SimTime = SimTime::from_secs(1);

/// The probe timeout (Linux `tcp_schedule_loss_probe`, RFC 8985 §7.2) with `packets_out`
/// segments outstanding and `rto_left` until the RTO would fire.
pub fn probe_timeout(srtt: SimTime, packets_out: u64, rto_left: Option<SimTime>) -> SimTime {
    let pto = if srtt > SimTime::ZERO {
        let extra = if packets_out == 1 {
            WC_DEL_ACK_T
        } else {
            super::rack::TIMEOUT_MIN
        };
        srtt.saturating_mul(2) + extra
    } else {
        TIMEOUT_INIT
    };
    match rto_left {
        Some(r) if r > SimTime::ZERO => pto.min(r),
        _ => pto,
    }
}

impl Sender {
    /// An event begins: the timer holds the RTO's own deadline again (see the module's
    /// comment); `pending` still says what it ran for.
    pub(super) fn rack_timer_begins(&mut self) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if r.pending != Pending::Rto {
            self.rto_timer.set_deadline(r.rto_at.get());
        }
    }

    /// An event ends: the timer runs for the reordering window if segments wait for it, else
    /// for a probe if one may be sent, else for the RTO (Linux `tcp_set_xmit_timer`,
    /// `tcp_rack_mark_lost`, `tcp_schedule_loss_probe`).
    pub(super) fn rack_timer_ends(&mut self, now: SimTime) {
        let rto_at = self.rto_timer.deadline();
        let eligible =
            matches!(self.st.ca_state, CaState::Open | CaState::Cwr) && self.una < self.high;
        let (srtt, out) = (self.st.srtt, self.high - self.una);
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        r.rto_at = OptTime::of(rto_at);
        let (pending, at) = if let Some(t) = r.reo_at.get() {
            (Pending::Reorder, Some(t))
        } else if r.tlp && eligible && r.tlp_high.get().is_none() && rto_at.is_some() {
            // Scheduled afresh after new data or an ACK of new data (Linux: from
            // `tcp_write_xmit` and `tcp_set_xmit_timer`), else kept.
            if r.resched {
                let left = rto_at.map(|d| d.saturating_sub(now));
                r.probe_at = OptTime::some(now + probe_timeout(srtt, out, left));
            }
            if r.resched || r.pending == Pending::Probe {
                (Pending::Probe, r.probe_at.get())
            } else {
                (Pending::Rto, rto_at)
            }
        } else {
            (Pending::Rto, rto_at)
        };
        // The RTO takes the timer back from the probe or the reordering window. Its own
        // deadline may have passed meanwhile (ACKs kept the reordering window running): Linux's
        // `tcp_rearm_rto` then fires it one jiffy from now. (A deadline the sender has just
        // set is never in the past; one in the past would run the clock backwards.)
        let at = match pending {
            Pending::Rto => at.map(|d| if d < now { now + JIFFY } else { d }),
            _ => at,
        };
        r.resched = false;
        r.pending = pending;
        self.rto_timer.set_deadline(at);
    }

    /// The shared timer or the pacing timer fired, on a connection with RACK or TLP.
    pub(super) fn rack_on_timer(&mut self, name: TimerName, io: &mut Io) {
        let pending = self.rack.as_deref().map_or(Pending::Rto, |r| r.pending);
        self.rack_timer_begins();
        if let Some(r) = self.rack.as_deref_mut().filter(|_| name == TimerName::Rto) {
            r.pending = Pending::Rto; // what fired is done with
        }
        match (name, pending) {
            (TimerName::Rto, Pending::Rto) => self.on_rto(io),
            (TimerName::Rto, Pending::Probe) => self.on_probe(io),
            (TimerName::Rto, Pending::Reorder) => self.on_reorder_timeout(io),
            _ => self.on_pace(io),
        }
        self.rack_timer_ends(io.now);
    }

    /// The probe timeout expired (Linux `tcp_send_loss_probe`): new data if the application
    /// and the receiver window allow, else the last segment again; then the RTO from now.
    fn on_probe(&mut self, io: &mut Io) {
        self.st.now = io.now;
        let high = self.high;
        let new = self.app_has(high) && self.rwnd_allows(high);
        // The last segment SACKed: the receiver has the tail, nothing to probe.
        let tail_sacked = high > self.una && self.segs[(high - 1 - self.una) as usize].sacked();
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if r.tlp_high.get().is_some() || self.una >= high || (!new && tail_sacked) {
            return; // at most one probe outstanding
        }
        let seg = if new { high } else { high - 1 };
        r.in_probe = true;
        r.tlp_retrans = !new;
        self.send_segment(seg, io);
        if new {
            self.nxt = self.high;
        }
        let r = self.rack.as_deref_mut().expect("checked");
        r.in_probe = false;
        r.tlp_high = Opt::some(self.high);
        r.probes += 1;
        self.rto_timer.set_deadline(Some(io.now + self.rtt.rto()));
        self.note_flight();
        self.trace(io);
    }

    /// The reordering window of the segments waiting for it has passed (Linux
    /// `tcp_rack_reo_timeout`): they are lost; recovery starts if it had not, and they are
    /// resent.
    fn on_reorder_timeout(&mut self, io: &mut Io) {
        self.st.now = io.now;
        let before = self.recovery_pipe();
        if let Some(r) = self.rack.as_deref_mut() {
            r.reo_at = OptTime::NONE;
        }
        self.rack_detect(self.una, self.board.n_sacked as u64);
        if self.recovery_pipe() != before {
            if matches!(self.st.ca_state, CaState::Open | CaState::Cwr)
                && self.may_fast_retransmit()
            {
                self.enter_recovery(io);
            }
            self.try_send(io);
        }
        self.trace(io);
    }

    /// The resent probe repaired a loss: the window is reduced as for one (Linux
    /// `tcp_init_cwnd_reduction`, the CWR state, `tcp_end_cwnd_reduction`), at once.
    pub(super) fn tlp_reduce(&mut self) {
        self.st.ssthresh = self.loss_ssthresh();
        self.st.cwnd = self.st.ssthresh.max(1.0);
        self.ecn_window_reduced();
        if self.st.ca_state == CaState::Open {
            // Through CWR and back (`tcp_try_keep_open`), as the algorithm would see it.
            self.set_ca_state(CaState::Cwr);
            self.set_ca_state(CaState::Open);
        }
    }

    /// Probes sent, and losses they repaired (zero without TLP).
    pub fn loss_probes(&self) -> (u64, u64) {
        self.rack
            .as_deref()
            .map_or((0, 0), |r| (r.probes, r.probe_recoveries))
    }

    /// Segments RACK marked lost, and of them retransmissions (zero without RACK).
    pub fn rack_losses(&self) -> (u64, u64) {
        self.rack
            .as_deref()
            .map_or((0, 0), |r| (r.marked_lost, r.lost_retransmits))
    }
}
