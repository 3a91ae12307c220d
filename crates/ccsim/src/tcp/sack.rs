//! The SACK scoreboard and RFC 6675 loss recovery: IsLost, SetPipe and NextSeg.
//!
//! Segments are whole MSS units, so RFC 6675's octet rules become segment rules: IsLost(s)
//! holds when at least DupThresh SACKed segments lie above s (both of the RFC's conditions
//! reduce to this for full-sized segments). One scan from the top of the scoreboard finds the
//! boundary below which every un-SACKed segment is lost and computes the pipe.

use super::sender::Sender;
use super::Io;

/// Result of one scoreboard scan.
pub(super) struct Scan {
    /// Un-SACKed segments below this index are lost (IsLost).
    pub lost_below: u64,
    /// One past the highest SACKed segment (`una` if none).
    pub sacked_top: u64,
    /// RFC 6675 SetPipe(), in segments.
    pub pipe: u64,
}

impl Sender {
    /// Marks the segments the SACK blocks cover.
    pub(super) fn sack_update(&mut self, blocks: &[(u64, u64)]) {
        let mss = self.p.mss as u64;
        for &(a, b) in blocks {
            // Blocks are segment-aligned except at the end of a finite transfer.
            let first = a.div_ceil(mss).max(self.una);
            let last = b.div_ceil(mss).min(self.high);
            for s in first..last {
                self.segs[(s - self.una) as usize].sacked = true;
            }
        }
    }

    pub(super) fn scan(&self) -> Scan {
        let dupthresh = self.p.dupthresh as u64;
        let mut count = 0;
        let mut lost_below = self.una;
        let mut sacked_top = self.una;
        for (i, m) in self.segs.iter().enumerate().rev() {
            if m.sacked {
                let s = self.una + i as u64;
                if sacked_top == self.una {
                    sacked_top = s + 1;
                }
                count += 1;
                if count == dupthresh {
                    lost_below = s;
                    break;
                }
            }
        }
        let mut pipe = 0;
        for (i, m) in self.segs.iter().enumerate() {
            if m.sacked {
                continue;
            }
            let s = self.una + i as u64;
            // SetPipe: +1 unless lost, +1 more if it was retransmitted in this recovery.
            pipe += (s >= lost_below) as u64 + (s < self.high_rxt) as u64;
        }
        Scan {
            lost_below,
            sacked_top,
            pipe,
        }
    }

    pub(super) fn is_lost(&self, seg: u64) -> bool {
        if seg < self.una || seg >= self.high || self.segs[(seg - self.una) as usize].sacked {
            return false;
        }
        seg < self.scan().lost_below
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 segment, send what NextSeg() returns.
    pub(super) fn sack_send(&mut self, io: &mut Io) {
        let scan = self.scan();
        let mut pipe = scan.pipe;
        let cwnd = self.st.cwnd.floor() as u64;
        while cwnd > pipe {
            let Some((seg, rescue)) = self.next_seg(&scan) else {
                break;
            };
            let retransmission = seg < self.high;
            self.transmit(seg, io);
            if rescue {
                // Rule (4): RescueRxt = RecoveryPoint; HighRxt is not updated.
                self.rescue_rxt = self.recover;
            } else if retransmission {
                self.high_rxt = self.high_rxt.max(seg + 1);
            }
            if seg >= self.nxt {
                self.nxt = seg + 1;
            }
            pipe += 1;
        }
        self.sync_seq();
    }

    /// NextSeg() (RFC 6675 §4): the segment to send next and whether it is the rescue.
    fn next_seg(&self, scan: &Scan) -> Option<(u64, bool)> {
        let from = self.high_rxt.max(self.una);
        let unsacked = |s: u64| !self.segs[(s - self.una) as usize].sacked;
        // (1) the first lost, un-SACKed segment above HighRxt and below the highest SACK.
        let top = scan.sacked_top.min(self.high);
        if let Some(s) = (from..top.min(scan.lost_below)).find(|&s| unsacked(s)) {
            return Some((s, false));
        }
        // (2) new data, if the application and the receiver window allow.
        if self.nxt == self.high && self.app_has(self.high) && self.rwnd_allows(self.high) {
            return Some((self.high, false));
        }
        // (3) an un-SACKed segment above HighRxt below the highest SACK, not yet deemed lost.
        if let Some(s) = (from..top).find(|&s| unsacked(s)) {
            return Some((s, false));
        }
        // (4) one rescue retransmission per recovery of the highest un-SACKed segment.
        if self.rescue_rxt.is_none_or(|r| self.una > r) {
            if let Some(s) = (self.una..self.high).rev().find(|&s| unsacked(s)) {
                return Some((s, true));
            }
        }
        None
    }
}
