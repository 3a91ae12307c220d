use super::*;

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
