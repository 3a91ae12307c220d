//! What the scalable ECN algorithms (DCTCP, `dctcp.rs`; Prague, `prague.rs`) share: the count
//! of segments delivered and reported CE-marked over a round, from which each estimates the
//! marked fraction α (Linux's `delivered`/`delivered_ce` snapshots at `next_seq` in
//! `tcp_dctcp.c` and `tcp_prague.c`), and their response to a loss, a halving.

use super::{AckSample, TcpState};

/// Segments delivered and reported marked since the round began. 32-bit counts keep DCTCP
/// within the 24 bytes of the largest other algorithm (`a_connection_takes_816_bytes`).
#[derive(Clone, Debug, Default)]
pub struct MarkedRound {
    /// The round ends when SND.UNA reaches this segment.
    pub next_seq: u64,
    pub delivered: u32,
    pub marked: u32,
}

impl MarkedRound {
    /// Counts what an ACK of new data delivered and reported marked (`AckSample::ce`).
    pub fn add(&mut self, ack: &AckSample) {
        let n = |x: u64| x.min(u32::MAX as u64) as u32;
        self.delivered = self.delivered.saturating_add(n(ack.segments));
        self.marked = self.marked.saturating_add(n(ack.ce));
    }

    /// Whether everything sent when the round began is acknowledged.
    pub fn ended(&self, st: &TcpState) -> bool {
        st.snd_una >= self.next_seq
    }

    /// Begins a round that ends with what is sent now.
    pub fn restart(&mut self, st: &TcpState) {
        *self = MarkedRound {
            next_seq: st.snd_nxt,
            ..Default::default()
        };
    }
}

/// The loss response of both (Linux `dctcp_react_to_loss`, Prague's `prague_enter_loss`):
/// ssthresh = max(cwnd/2, 2) on the integer window.
pub fn halve_on_loss(st: &mut TcpState) {
    st.ssthresh = (st.cwnd / 2.0).floor().max(2.0);
}
