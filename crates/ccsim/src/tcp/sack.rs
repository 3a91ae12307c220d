//! The SACK scoreboard and RFC 6675 loss recovery: IsLost, SetPipe and NextSeg.
//!
//! Segments are whole MSS units, so RFC 6675's octet rules become segment rules: IsLost(s)
//! holds when at least DupThresh SACKed segments lie above s (both of the RFC's conditions
//! reduce to this for full-sized segments). The boundary below which every un-SACKed segment is
//! lost, and the pipe, come from counts kept as segments are SACKed and acknowledged
//! ([`Board`]), so each ACK costs O(1) for them rather than a scan of the whole window, which
//! would make a recovery O(W²) (docs/performance.md).

use std::collections::VecDeque;

use super::sender::Sender;
use super::Io;

/// What the scan needs, kept up to date: the SACKed segments counted, those below HighRxt, and
/// the DupThresh highest SACKed segments (descending). Invariant: `top` holds the
/// min(DupThresh, n_sacked) highest SACKed segments in `[una, high)`.
/// `ranges` holds the SACKed segments as sorted, disjoint, non-adjacent `[start, end)` runs,
/// so that a SACK block marks only the segments it newly covers and NextSeg finds the next
/// un-SACKed segment by stepping over runs, not segments. A deque, because cumulative ACKs take
/// runs off the front: with hundreds of runs after a loss burst, a vector would shift the rest
/// down each time (docs/performance.md, 0.4.8).
#[derive(Clone, Debug, Default)]
pub(super) struct Board {
    /// Counts of segments in one window: 32 bits (2^32 segments' records alone would take 64
    /// GiB), which keeps the board, deque and all, in its 64 bytes.
    pub(super) n_sacked: u32,
    sacked_below_rxt: u32,
    top: Vec<u64>,
    ranges: VecDeque<(u64, u64)>,
}

impl Board {
    /// The parts of `[a, b)` not yet SACKed; merges `[a, b)` into the runs.
    fn add(&mut self, a: u64, b: u64, new: &mut Vec<(u64, u64)>) {
        new.clear();
        if a >= b {
            return;
        }
        // Runs touching or overlapping [a, b) are merged with it.
        let lo = self.ranges.partition_point(|r| r.1 < a);
        let hi = self.ranges.partition_point(|r| r.0 <= b);
        let mut at = a;
        for &(x, y) in self.ranges.range(lo..hi) {
            if x > at {
                new.push((at, x.min(b)));
            }
            at = at.max(y);
        }
        if at < b {
            new.push((at, b));
        }
        if lo < hi {
            self.ranges[lo] = (self.ranges[lo].0.min(a), self.ranges[hi - 1].1.max(b));
            // Mostly a block extends one run (see `acked_to`).
            if hi > lo + 1 {
                self.ranges.drain(lo + 1..hi);
            }
        } else {
            self.ranges.insert(lo, (a, b));
        }
    }

    /// The first segment at or above `s` that is not SACKed.
    pub(super) fn first_unsacked_from(&self, s: u64) -> u64 {
        let i = self.ranges.partition_point(|r| r.1 <= s);
        match self.ranges.get(i) {
            Some(&(x, y)) if x <= s => y,
            _ => s,
        }
    }

    /// The highest segment below `top` and at or above `una` that is not SACKed.
    pub(super) fn last_unsacked_below(&self, una: u64, top: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|r| r.0 < top);
        let s = match i.checked_sub(1).map(|j| self.ranges[j]) {
            Some((x, y)) if y >= top => x,
            _ => top,
        };
        (s > una).then(|| s - 1)
    }

    /// SND.UNA moved to `una`: runs below it go.
    fn acked_to(&mut self, una: u64) {
        let drop = self.ranges.partition_point(|r| r.1 <= una);
        // Most ACKs take no run off, and even an empty drain is not free.
        if drop > 0 {
            self.ranges.drain(..drop);
        }
        if let Some(r) = self.ranges.front_mut() {
            r.0 = r.0.max(una);
        }
    }
}

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
    /// Marks the segments the SACK blocks cover; `new` is a buffer for the parts of a block not
    /// SACKed before.
    pub(super) fn sack_update(&mut self, blocks: &[(u64, u64)], new: &mut Vec<(u64, u64)>) {
        let mss = self.p.mss as u64;
        for &(a, b) in blocks {
            // Blocks are segment-aligned except at the end of a finite transfer.
            let first = a.div_ceil(mss).max(self.una);
            let last = b.div_ceil(mss).min(self.high);
            self.board.add(first, last, new);
            for &(x, y) in new.iter() {
                for s in x..y {
                    let m = &mut self.segs[(s - self.una) as usize];
                    debug_assert!(!m.sacked());
                    m.set_sacked(true);
                    self.board_sacked(s);
                }
            }
            if self.rate.is_some() {
                self.rate_sacked(new);
            }
            if self.rack.is_some() {
                self.rack_sacked(new);
            }
        }
    }

    /// Segment `s` was SACKed for the first time.
    fn board_sacked(&mut self, s: u64) {
        let k = self.p.dupthresh.max(1) as usize;
        let b = &mut self.board;
        b.n_sacked += 1;
        if s < self.high_rxt {
            b.sacked_below_rxt += 1;
        }
        if b.top.len() < k || s > *b.top.last().expect("k ≥ 1") {
            let at = b.top.partition_point(|&t| t > s);
            b.top.insert(at, s);
            b.top.truncate(k);
        }
    }

    /// The cumulative ACK is about to cover the first `acked` segments.
    pub(super) fn board_acked(&mut self, acked: u64) {
        // Without SACKed segments (nearly every ACK outside recovery) there is nothing to count
        // down, and `top` and the runs are empty.
        if self.board.n_sacked == 0 {
            debug_assert!(self.board.top.is_empty() && self.board.ranges.is_empty());
            return;
        }
        for (i, m) in self.segs.iter().take(acked as usize).enumerate() {
            if m.sacked() {
                self.board.n_sacked -= 1;
                if self.una + (i as u64) < self.high_rxt {
                    self.board.sacked_below_rxt -= 1;
                }
            }
        }
        let una = self.una + acked;
        // Segments below the new SND.UNA leave `top`; any other SACKed segment is lower still,
        // so it leaves too and `top` stays the highest ones.
        self.board.top.retain(|&t| t >= una);
        self.board.acked_to(una);
    }

    /// Moves HighRxt, keeping the count of SACKed segments below it.
    pub(super) fn set_high_rxt(&mut self, v: u64) {
        let (lo, hi) = (self.high_rxt.min(v), self.high_rxt.max(v));
        let from = lo.max(self.una);
        let to = hi.min(self.high);
        let n = (from..to)
            .filter(|&s| self.segs[(s - self.una) as usize].sacked())
            .count() as u32;
        if v >= self.high_rxt {
            self.board.sacked_below_rxt += n;
        } else {
            self.board.sacked_below_rxt -= n;
        }
        self.high_rxt = v;
    }

    pub(super) fn scan(&self) -> Scan {
        let k = self.p.dupthresh.max(1) as usize;
        let b = &self.board;
        // IsLost: the DupThresh-th highest SACKed segment, if there are that many; exactly k
        // SACKed segments then lie in [lost_below, high), else all of them do.
        let (lost_below, sacked_above) = if b.top.len() == k {
            (b.top[k - 1], k as u64)
        } else {
            (self.una, b.n_sacked as u64)
        };
        let sacked_top = b.top.first().map_or(self.una, |&t| t + 1);
        // SetPipe: every un-SACKed segment counts once if not lost, and once more if it was
        // retransmitted (below HighRxt).
        let not_lost = (self.high - lost_below) - sacked_above;
        let rxt_top = self.high_rxt.clamp(self.una, self.high);
        let retransmitted = (rxt_top - self.una) - b.sacked_below_rxt as u64;
        let scan = Scan {
            lost_below,
            sacked_top,
            pipe: not_lost + retransmitted,
        };
        #[cfg(debug_assertions)]
        {
            let full = self.scan_full();
            debug_assert_eq!(
                (scan.lost_below, scan.sacked_top, scan.pipe),
                (full.lost_below, full.sacked_top, full.pipe),
                "incremental SACK counts disagree with a full scan"
            );
        }
        scan
    }

    /// The scan done the slow way, over the whole window: the reference the kept counts are
    /// checked against in debug builds (every test run).
    #[cfg(debug_assertions)]
    fn scan_full(&self) -> Scan {
        let dupthresh = self.p.dupthresh as u64;
        let mut count = 0;
        let mut lost_below = self.una;
        let mut sacked_top = self.una;
        for (i, m) in self.segs.iter().enumerate().rev() {
            if m.sacked() {
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
            if m.sacked() {
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
        if seg < self.una || seg >= self.high || self.segs[(seg - self.una) as usize].sacked() {
            return false;
        }
        seg < self.scan().lost_below
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 segment, send what NextSeg() returns.
    pub(super) fn sack_send(&mut self, io: &mut Io) {
        let scan = self.scan();
        let mut pipe = scan.pipe;
        let cwnd = self.st.cwnd as u64; // truncation: floor of a non-negative window
        while cwnd > pipe {
            let Some((seg, rescue)) = self.next_seg(&scan) else {
                break;
            };
            if !self.pacing_allows(io.now) {
                break;
            }
            let retransmission = seg < self.high;
            self.send_segment(seg, io);
            self.prr_sent();
            if rescue {
                // Rule (4): RescueRxt = RecoveryPoint; HighRxt is not updated.
                self.rescue_rxt = self.recover;
            } else if retransmission && seg + 1 > self.high_rxt {
                self.set_high_rxt(seg + 1);
            }
            if seg >= self.nxt {
                self.nxt = seg + 1;
            }
            pipe += 1;
        }
        self.note_flight();
    }

    /// NextSeg() (RFC 6675 §4): the segment to send next and whether it is the rescue.
    fn next_seg(&self, scan: &Scan) -> Option<(u64, bool)> {
        let from = self.high_rxt.max(self.una);
        let next = self.board.first_unsacked_from(from);
        // (1) the first lost, un-SACKed segment above HighRxt and below the highest SACK.
        let top = scan.sacked_top.min(self.high);
        if next < top.min(scan.lost_below) {
            return Some((next, false));
        }
        // (2) new data, if the application and the receiver window allow.
        if self.nxt == self.high && self.app_has(self.high) && self.rwnd_allows(self.high) {
            return Some((self.high, false));
        }
        // (3) an un-SACKed segment above HighRxt below the highest SACK, not yet deemed lost.
        if next < top {
            return Some((next, false));
        }
        // (4) one rescue retransmission per recovery of the highest un-SACKed segment.
        if self.rescue_rxt.get().is_none_or(|r| self.una > r) {
            if let Some(s) = self.board.last_unsacked_below(self.una, self.high) {
                return Some((s, true));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_and_report_only_new_segments() {
        let mut b = Board::default();
        let mut new = vec![];
        b.add(10, 12, &mut new);
        assert_eq!(new, [(10, 12)]);
        b.add(14, 16, &mut new);
        assert_eq!(new, [(14, 16)]);
        // A block spanning both runs and the hole between: only 12..14 and 16..18 are new.
        b.add(10, 18, &mut new);
        assert_eq!(new, [(12, 14), (16, 18)]);
        assert_eq!(b.ranges, [(10, 18)]);
        // Adjacent runs merge; a block inside a run adds nothing.
        b.add(18, 20, &mut new);
        assert_eq!(b.ranges, [(10, 20)]);
        b.add(11, 13, &mut new);
        assert!(new.is_empty());
        b.add(25, 26, &mut new);
        assert_eq!(b.ranges, [(10, 20), (25, 26)]);
        // A run between two goes between them; a block reaching over three merges them.
        b.add(22, 23, &mut new);
        assert_eq!(b.ranges, [(10, 20), (22, 23), (25, 26)]);
        b.add(19, 26, &mut new);
        assert_eq!(new, [(20, 22), (23, 25)]);
        assert_eq!(b.ranges, [(10, 26)]);
    }

    #[test]
    fn next_unsacked_steps_over_runs() {
        let mut b = Board::default();
        let mut new = vec![];
        b.add(10, 20, &mut new);
        b.add(25, 30, &mut new);
        assert_eq!(b.first_unsacked_from(5), 5);
        assert_eq!(b.first_unsacked_from(10), 20);
        assert_eq!(b.first_unsacked_from(27), 30);
        // The highest un-SACKed segment below 30 (the top run ends there) is 24; below 31, 30.
        assert_eq!(b.last_unsacked_below(0, 30), Some(24));
        assert_eq!(b.last_unsacked_below(0, 31), Some(30));
        assert_eq!(b.last_unsacked_below(10, 20), None);
        // SND.UNA moving into the first run trims it.
        b.acked_to(15);
        assert_eq!(b.ranges, [(15, 20), (25, 30)]);
        b.acked_to(22);
        assert_eq!(b.ranges, [(25, 30)]);
    }
}
