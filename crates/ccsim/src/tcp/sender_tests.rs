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

/// A connection's state is most of what a flow costs (docs/performance.md, memory: 2 kB
/// per flow with its hosts and access links); this pins it, so that growth is a decision.
#[test]
fn a_connection_takes_816_bytes() {
    use std::mem::size_of;
    assert_eq!(size_of::<SenderParams>(), 20);
    // 0.8: +80 for pacing, delivery-rate sampling and PRR (three pointers, the pacing
    // timer and five words of Linux's connection state). 0.9: +8, the pointer to
    // RACK-TLP's state (`rack.rs`), allocated only for a connection that uses it.
    assert_eq!(size_of::<Sender>(), 688);
    // 0.9: +8 for Linux's quick-ACK state (a pointer; `tcp/quickack.rs`).
    assert_eq!(size_of::<super::super::Receiver>(), 128);
    assert_eq!(size_of::<crate::sim::FlowSlot>(), 816);
}
