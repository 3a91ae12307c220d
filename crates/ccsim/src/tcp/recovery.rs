//! Fast retransmit and fast recovery: Tahoe, Reno (RFC 5681 §3.2), NewReno (RFC 6582) and the
//! entry/exit of SACK recovery (RFC 6675 §5; the scoreboard is in `sack.rs`).
//!
//! Windows are in segments. The entry guard is common to all four: no new fast retransmit
//! until the cumulative ACK has passed `recover`, the highest segment sent when the previous
//! recovery (or timeout) began — RFC 6582 §3.2 step 2, RFC 6675 §5.1 and ns-2's `bugFix_`.

use super::cc::{CaEvent, CaState, CongestionControl};
use super::sender::Sender;
use super::Io;
use crate::config::Recovery;
use crate::util::packed_option::Opt;

impl Sender {
    /// A duplicate ACK: same cumulative ACK, data outstanding, no payload (RFC 5681 §2).
    pub(super) fn on_dupack(&mut self, io: &mut Io) {
        self.dupacks += 1;
        match self.st.ca_state {
            CaState::Recovery => {
                if matches!(self.p.recovery, Recovery::Reno | Recovery::Newreno)
                    && !self.cc.controls_window()
                {
                    // RFC 5681 §3.2 step 4: inflate by one segment per further duplicate ACK.
                    self.st.cwnd += 1.0;
                } else if self.prr.is_some() {
                    self.prr_ack(false);
                }
            }
            // RACK decides what is lost instead (`rack.rs`, Linux `tcp_time_to_recover`).
            _ if self.rack_detects() => {}
            _ => {
                if self.st.ca_state == CaState::Cwr && self.prr.is_some() {
                    self.prr_ack(false); // a CWR reduction under PRR (`prr.rs`)
                }
                let sack_says_lost = self.p.recovery == Recovery::Sack && self.is_lost(self.una);
                if (self.dupacks == self.p.dupthresh || sack_says_lost)
                    && self.may_fast_retransmit()
                {
                    self.enter_recovery(io);
                }
            }
        }
    }

    pub(super) fn may_fast_retransmit(&self) -> bool {
        match self.recover.get() {
            None => true,
            // RFC 6675 §5.1: HighACK ≥ RecoveryPoint; RFC 6582: ack − 1 > recover.
            Some(r) if self.p.recovery == Recovery::Sack => self.una >= r,
            Some(r) => self.una > r,
        }
    }

    pub(super) fn enter_recovery(&mut self, io: &mut Io) {
        self.stats.fast_retransmits = self.stats.fast_retransmits.saturating_add(1);
        // A window already cut for an ECN echo is not cut again for a loss in it (RFC 3168
        // §6.1.2 "at most once per window"; Linux `tcp_enter_recovery`).
        if self.st.ca_state != CaState::Cwr {
            // ACNS: the trend command may keep the window or fall back instead (`acns.rs`).
            let acns = if self.ecn.acns {
                self.acns_loss()
            } else {
                None
            };
            self.st.ssthresh = acns.unwrap_or_else(|| self.loss_ssthresh());
        }
        self.ecn_window_reduced();
        self.recover = Opt::some(self.high);
        self.partial_seen = false;
        let una = self.una;
        // An algorithm that sets its own window (Linux `cong_control`, BBR) keeps it here.
        let own = self.cc.controls_window();
        if self.p.recovery != Recovery::Sack && self.rate.is_some() {
            self.rate_seg_lost(una);
        }
        match self.p.recovery {
            Recovery::Tahoe => {
                // Jacobson 1988: retransmit and slow-start from one segment, resending
                // everything after the hole (go-back-N).
                self.set_ca_state(CaState::Loss);
                self.st.cwnd = 1.0;
                self.nxt = una;
                self.rto_timer.set_deadline(Some(io.now + self.rtt.rto()));
            }
            Recovery::Reno | Recovery::Newreno => {
                // RFC 5681 §3.2 steps 2–3: retransmit, cwnd = ssthresh + 3 segments.
                self.set_ca_state(CaState::Recovery);
                self.send_segment(una, io);
                if !own {
                    self.st.cwnd = self.st.ssthresh + self.p.dupthresh as f64;
                }
            }
            Recovery::Sack => {
                // RFC 6675 §5 (4.1)–(4.3): RecoveryPoint = HighData, cwnd = ssthresh,
                // retransmit the first segment presumed lost.
                self.set_ca_state(CaState::Recovery);
                self.rescue_rxt = Opt::NONE;
                self.set_high_rxt(una);
                if self.prr.is_some() {
                    // RFC 6937: the window follows what is delivered (`prr.rs`).
                    self.prr_enter();
                } else if !own {
                    self.st.cwnd = self.st.ssthresh;
                }
                // With RACK, the lost segments are resent by `rack_send`.
                if !self.segs[0].sacked() && !self.rack_detects() {
                    self.send_segment(una, io);
                    self.prr_sent();
                    self.set_high_rxt(una + 1);
                }
            }
        }
    }

    /// An ACK that advances SND.UNA while in fast recovery.
    pub(super) fn recovery_new_ack(&mut self, ack: u64, acked: u64, io: &mut Io) {
        let full = self.recover.get().is_none_or(|r| ack >= r);
        let own = self.cc.controls_window();
        match self.p.recovery {
            Recovery::Tahoe => unreachable!("Tahoe never enters fast recovery"),
            Recovery::Reno => {
                // RFC 5681 §3.2 step 6: the first new ACK deflates the window and ends
                // recovery, partial or not (so several losses in a window often end in a
                // timeout).
                if !own {
                    self.st.cwnd = self.st.ssthresh;
                }
                self.exit_recovery();
            }
            Recovery::Newreno if full => {
                // RFC 6582 §3.2 step 3, option (2): cwnd = ssthresh.
                if !own {
                    self.st.cwnd = self.st.ssthresh;
                }
                self.exit_recovery();
            }
            Recovery::Newreno => {
                // Partial ACK (§3.2 step 5): retransmit the first unacknowledged segment,
                // deflate by the amount acknowledged and add back one segment.
                let una = self.una;
                if self.rate.is_some() {
                    self.rate_seg_lost(una);
                }
                self.send_segment(una, io);
                if !own {
                    self.st.cwnd = (self.st.cwnd - acked as f64 + 1.0).max(1.0);
                }
                if !self.partial_seen {
                    self.partial_seen = true;
                    self.rto_timer.set_deadline(Some(io.now + self.rtt.rto()));
                }
            }
            Recovery::Sack if full => {
                if self.prr.is_some() {
                    // Linux `tcp_end_cwnd_reduction`: the reduction is complete.
                    self.st.cwnd = self.st.ssthresh;
                }
                self.exit_recovery()
            }
            Recovery::Sack => {
                if self.prr.is_some() {
                    self.prr_ack(true);
                }
            }
        }
    }

    fn exit_recovery(&mut self) {
        self.set_ca_state(CaState::Open);
        self.cc.cwnd_event(&mut self.st, CaEvent::RecoveryExit);
    }
}
