//! The sender's record of each segment in flight, one word each: its last send time and four
//! marks (`Sender::segs`, `[una, high)`).

use crate::time::SimTime;

/// Per-segment book-keeping for segments in `[una, high)`, one word each (a sender holds one
/// per segment in flight): when it was last sent, in the low 60 bits (a run lasts less than
/// 2^60 ns, `config/units.rs`), whether it was retransmitted (Karn's rule: no RTT sample
/// from it), whether a SACK block reported it, and RACK-TLP's two marks (`rack.rs`; Linux's
/// `TCPCB_LOST` and `TCPCB_SACKED_RETRANS`), which only a connection with RACK, TLP or the
/// kept scoreboard sets.
#[derive(Copy, Clone, Debug)]
pub struct SegMeta(u64);

const RETX: u64 = 1 << 63;
const SACKED: u64 = 1 << 62;
const LOST: u64 = 1 << 61;
const RETRANS_OUT: u64 = 1 << 60;
const MARKS: u64 = LOST | RETRANS_OUT;

impl SegMeta {
    pub fn new(sent: SimTime) -> SegMeta {
        debug_assert!(sent.0 < RETRANS_OUT, "times fit in 60 bits");
        SegMeta(sent.0)
    }

    pub fn sent(self) -> SimTime {
        SimTime(self.0 & (RETRANS_OUT - 1))
    }

    pub fn retx(self) -> bool {
        self.0 & RETX != 0
    }

    pub fn sacked(self) -> bool {
        self.0 & SACKED != 0
    }

    pub fn set_sacked(&mut self, on: bool) {
        self.0 = (self.0 & !SACKED) | if on { SACKED } else { 0 };
    }

    /// Deemed lost (RACK, or a timeout that kept the scoreboard).
    pub fn lost(self) -> bool {
        self.0 & LOST != 0
    }

    /// Retransmitted and not since deemed lost again: in flight as a retransmission.
    pub fn retrans_out(self) -> bool {
        self.0 & RETRANS_OUT != 0
    }

    pub fn set_lost(&mut self, on: bool) {
        self.0 = (self.0 & !LOST) | if on { LOST } else { 0 };
    }

    pub fn set_retrans_out(&mut self, on: bool) {
        self.0 = (self.0 & !RETRANS_OUT) | if on { RETRANS_OUT } else { 0 };
    }

    /// Without RACK-TLP's marks (a segment SACKed, or a timeout that forgets them).
    pub fn unmarked(self) -> SegMeta {
        SegMeta(self.0 & !MARKS)
    }

    /// Sent again at `now`: retransmitted, and keeping its SACK and RACK-TLP marks.
    pub fn resent(&mut self, now: SimTime) {
        *self = SegMeta(SegMeta::new(now).0 | RETX | (self.0 & (SACKED | MARKS)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_record_packs_its_send_time_and_four_marks_in_one_word() {
        assert_eq!(std::mem::size_of::<SegMeta>(), 8);
        // The latest time a run may reach (just under 2^60 ns) survives every mark.
        let late = SimTime((1 << 60) - 1);
        let mut m = SegMeta::new(late);
        let marks = |m: SegMeta| (m.sent(), m.retx(), m.sacked(), m.lost(), m.retrans_out());
        assert_eq!(marks(m), (late, false, false, false, false));
        m.set_sacked(true);
        m.set_lost(true);
        assert_eq!(marks(m), (late, false, true, true, false));
        // Sent again at 7 ns: a retransmission that keeps its marks until told otherwise.
        m.resent(SimTime(7));
        m.set_retrans_out(true);
        assert_eq!(marks(m), (SimTime(7), true, true, true, true));
        m.set_sacked(false);
        assert_eq!(marks(m), (SimTime(7), true, false, true, true));
        assert_eq!(marks(m.unmarked()), (SimTime(7), true, false, false, false));
        m.set_lost(false);
        assert_eq!(marks(m), (SimTime(7), true, false, false, true));
    }
}
