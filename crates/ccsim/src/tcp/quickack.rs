//! Linux's receiver ACK policy (`net/ipv4/tcp_input.c`), where it differs from RFC 1122's
//! "an ACK for every second full-sized segment":
//!
//! - **Quick-ACK mode** (`icsk_ack.quick`): the receiver acknowledges every segment at once
//!   while its quick-ACK count lasts, and each ACK it sends spends one (`tcp_dec_quickack_mode`).
//!   The count is raised (`tcp_incr_quickack`) to 16 (`TCP_MAX_QUICKACKS`) by the first data
//!   segment and by data after a gap longer than the receiver's RTO (`tcp_event_data_recv`:
//!   the sender apparently restarted from idle), and to 2 when a CE mark starts an ECN echo
//!   (`__tcp_ecn_check_ce`: "better not delay acks, sender can have a very low cwnd"). Linux
//!   caps the count at the receive window over two `rcv_mss`, more than 16 with its 64 kB
//!   initial window for any MSS up to 2 kB, so here it is 16.
//! - **Delaying by bytes** (`__tcp_ack_snd_check`): outside quick-ACK mode, an ACK goes out
//!   once more than `rcv_mss` bytes are unacknowledged, where `rcv_mss` is the largest segment
//!   seen (`tcp_measure_rcv_mss`, from 536 bytes, `TCP_MSS_DEFAULT`); with full-sized segments
//!   that is every second one, as RFC 1122, but small segments wait for more of them.
//!
//! The receiver's RTO is what its handshake sample gives (`tcp_set_rto` after the first RTT
//! sample m: m + max(2m, 200 ms)); a pure receiver has no other samples. The time from its
//! SYN-ACK to the first data segment is that sample; without a handshake, Linux's initial
//! 1 s. Not modelled: the adaptive delayed-ACK timeout (`ato`, which stays near its 40 ms
//! minimum for bulk data, the profile's `delayed_ack_timeout`) and interactive ("pingpong")
//! mode, which needs data flowing both ways.

use crate::time::{OptTime, SimTime};

/// `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u8 = 16;
/// Quick ACKs after a CE mark starts an echo (`tcp_enter_quickack_mode(sk, 2)`).
pub const CE_QUICKACKS: u8 = 2;
/// `TCP_MSS_DEFAULT`: `rcv_mss` before any segment is measured.
const MSS_DEFAULT: u32 = 536;
/// `TCP_RTO_MIN`, the floor of the receiver's RTO.
const RTO_MIN: SimTime = SimTime::from_millis(200);
/// `TCP_TIMEOUT_INIT`: the RTO without an RTT sample.
const TIMEOUT_INIT: SimTime = SimTime::from_secs(1);

/// A receiver's quick-ACK state (`icsk_ack`), made when the option is on.
#[derive(Clone, Debug)]
pub struct QuickAck {
    /// Quick ACKs left (`icsk_ack.quick`).
    quick: u8,
    /// The largest segment seen (`icsk_ack.rcv_mss`).
    rcv_mss: u32,
    /// Bytes received since the last ACK (`rcv_nxt − rcv_wup`).
    unacked_bytes: u64,
    /// When the SYN-ACK went out, until the first data segment measures the RTT.
    synack_at: OptTime,
    /// When the last data segment arrived (`icsk_ack.lrcvtime`); none before the first.
    last_data: OptTime,
    /// The receiver's RTO: a longer gap between data segments restarts quick-ACK mode.
    idle_after: SimTime,
}

impl Default for QuickAck {
    fn default() -> QuickAck {
        QuickAck {
            quick: 0,
            rcv_mss: MSS_DEFAULT,
            unacked_bytes: 0,
            synack_at: OptTime::NONE,
            last_data: OptTime::NONE,
            idle_after: TIMEOUT_INIT,
        }
    }
}

impl QuickAck {
    /// The receiver answered a SYN.
    pub fn on_synack(&mut self, now: SimTime) {
        self.synack_at = OptTime::some(now);
    }

    /// `tcp_incr_quickack`: at least `n` quick ACKs.
    fn incr(&mut self, n: u8) {
        self.quick = self.quick.max(n);
    }

    /// A data segment of `payload` bytes arrived at `now`; `echo_starts` when its CE mark
    /// starts an ECN echo. Whether it must be acknowledged at once.
    pub fn on_data(&mut self, now: SimTime, payload: u32, echo_starts: bool) -> bool {
        match self.last_data.get() {
            None => {
                if let Some(t) = self.synack_at.get() {
                    let m = now.saturating_sub(t);
                    self.idle_after = m + (m + m).max(RTO_MIN);
                }
                self.incr(MAX_QUICKACKS);
            }
            Some(t) if now.saturating_sub(t) > self.idle_after => self.incr(MAX_QUICKACKS),
            Some(_) => {}
        }
        self.last_data = OptTime::some(now);
        if echo_starts {
            self.incr(CE_QUICKACKS);
        }
        self.rcv_mss = self.rcv_mss.max(payload);
        self.unacked_bytes += payload as u64;
        self.quick > 0 || self.unacked_bytes > self.rcv_mss as u64
    }

    /// An ACK went out (`tcp_event_ack_sent`: one quick ACK spent).
    pub fn on_ack_sent(&mut self) {
        self.quick = self.quick.saturating_sub(1);
        self.unacked_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> SimTime = SimTime::from_millis;

    /// Feeds `n` full segments 1 ms apart from `t0` ms, sending an ACK whenever one is due;
    /// returns which segments were acknowledged at once.
    fn feed(q: &mut QuickAck, t0: u64, n: u64, len: u32) -> Vec<bool> {
        (0..n)
            .map(|k| {
                let now = q.on_data(MS(t0 + k), len, false);
                if now {
                    q.on_ack_sent();
                }
                now
            })
            .collect()
    }

    #[test]
    fn the_first_sixteen_segments_are_acknowledged_at_once_then_every_second() {
        let mut q = QuickAck::default();
        q.on_synack(MS(0));
        let acks = feed(&mut q, 20, 24, 1448);
        assert!(acks[..16].iter().all(|&a| a));
        // Then more than rcv_mss (1448) bytes unacknowledged: every second segment.
        assert_eq!(
            &acks[16..],
            &[false, true, false, true, false, true, false, true]
        );
        // The handshake sample (20 ms) gives an RTO of 20 + max(40, 200) = 220 ms.
        assert_eq!(q.idle_after, MS(220));
    }

    #[test]
    fn a_gap_longer_than_the_rto_restarts_quick_acks_and_a_shorter_one_does_not() {
        let mut q = QuickAck::default();
        q.on_synack(MS(0));
        feed(&mut q, 20, 40, 1448); // out of quick-ACK mode by segment 16
                                    // 200 ms after the last segment (59 ms): under the 220 ms RTO.
        assert_eq!(feed(&mut q, 259, 2, 1448), [false, true]);
        // 221 ms later: quick-ACK mode again for 16 ACKs.
        assert!(feed(&mut q, 481, 16, 1448).iter().all(|&a| a));
        assert_eq!(feed(&mut q, 497, 2, 1448), [false, true]);
    }

    #[test]
    fn a_ce_mark_starting_an_echo_gives_two_quick_acks() {
        let mut q = QuickAck::default();
        feed(&mut q, 0, 20, 1448);
        assert!(q.on_data(MS(30), 1448, true));
        q.on_ack_sent();
        assert!(q.on_data(MS(31), 1448, false)); // the second quick ACK
        q.on_ack_sent();
        assert!(!q.on_data(MS(32), 1448, false));
        // Without a handshake the RTO is Linux's initial 1 s.
        assert_eq!(q.idle_after, SimTime::from_secs(1));
    }

    #[test]
    fn small_segments_wait_until_more_than_rcv_mss_bytes() {
        let mut q = QuickAck::default();
        feed(&mut q, 0, 16, 1448); // quick ACKs spent; rcv_mss is now 1448
                                   // 500-byte segments: ACK when more than 1448 bytes wait, at the third (1500).
        assert_eq!(
            feed(&mut q, 20, 6, 500),
            [false, false, true, false, false, true]
        );
        // Before any full segment rcv_mss is 536: two 300-byte segments (600) are enough.
        let mut q = QuickAck {
            last_data: OptTime::some(MS(0)),
            ..QuickAck::default()
        };
        assert_eq!(feed(&mut q, 1, 2, 300), [false, true]);
    }
}
