//! Rate samples over crafted ACK sequences, worked by hand from Linux `tcp_rate.c`.

use super::*;
use crate::tcp::cc::{Cc, Reno};
use crate::tcp::slow_start::SlowStart;
use crate::tcp::test_rig;
use crate::tcp::timer::Timers;

/// The shared rig, reporting each ACK's rate sample.
struct Rig(test_rig::Rig);

impl Rig {
    /// A bulk Reno sender of 1000-byte segments sampling the delivery rate: no handshake, no
    /// timestamps (RTTs from send times), initial window 4, started at 1 ms.
    fn new() -> Rig {
        let mut p = crate::tcp::test_rig::classic_linux();
        p.handshake = false;
        p.timestamps = false;
        p.mss = 1000;
        p.initial_window = 4;
        let s = Sender::new(0, 0, 1, &p, Cc::Reno(Reno), SlowStart::Standard, None);
        Rig(test_rig::Rig::start_sender(s.with_rate_sampling()))
    }

    fn at<T>(&mut self, ms: u64, f: impl FnOnce(&mut Sender, &mut Io) -> T) -> T {
        self.0.at(ms, f)
    }

    /// A cumulative ACK of segments below `seg` at `ms`; its sample.
    fn ack(&mut self, ms: u64, seg: u64) -> RateSample {
        self.ack_full(ms, seg, SimTime::ZERO, None)
    }

    /// The same, echoing the timestamp `ts_ecr` (zero: none).
    fn ack_echoing(&mut self, ms: u64, seg: u64, ts_ecr: SimTime) -> RateSample {
        self.ack_full(ms, seg, ts_ecr, None)
    }

    /// A duplicate or cumulative ACK with one SACK block of segments `[a, b)`.
    fn sack(&mut self, ms: u64, seg: u64, block: (u64, u64)) -> RateSample {
        self.ack_full(ms, seg, SimTime::ZERO, Some(block))
    }

    fn ack_full(&mut self, ms: u64, seg: u64, ts: SimTime, b: Option<(u64, u64)>) -> RateSample {
        self.0.ack(ms, seg, false, ts, b);
        self.0.s.last_rate_sample().expect("a sample per ACK")
    }
}

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

#[test]
fn samples_take_the_newest_segment_and_the_longer_of_the_send_and_ack_phases() {
    let mut r = Rig::new();
    assert_eq!(r.0.s.high, 4);
    // 11 ms: segments 0 and 1 (sent at 1 ms, when nothing was delivered). Send phase 0, ACK
    // phase 11 − 1 = 10 ms: 2 segments in 10 ms. The window grows to 6: segments 4–7 leave,
    // remembering 2 delivered at 11 ms and a send phase begun at 1 ms.
    let rs = r.ack(11, 2);
    assert_eq!((rs.prior_delivered, rs.prior_time), (0, ms(1)));
    assert_eq!((rs.delivered, rs.acked_sacked, rs.losses), (2, 2, 0));
    assert_eq!(
        (rs.snd_interval, rs.rcv_interval, rs.interval),
        (ms(0), ms(10), Some(ms(10)))
    );
    assert_eq!(rs.rate(), Some(200.0));
    assert_eq!(
        (rs.prior_in_flight, rs.in_flight, rs.rtt),
        (4, 2, Some(ms(10)))
    );
    assert!(!rs.is_app_limited && !rs.is_retrans);
    assert_eq!(r.0.s.high, 8);
    // 13 ms: segments 2 and 3, also sent at 1 ms: 4 delivered over 12 ms. Segments 8–11 leave
    // (4 delivered at 13 ms).
    let rs = r.ack(13, 4);
    assert_eq!((rs.delivered, rs.interval), (4, Some(ms(12))));
    assert_eq!(r.0.s.high, 12);
    // 21 ms: segments 4 and 5, sent at 11 ms when 2 had been delivered (at 11 ms), the send
    // phase having begun at 1 ms: 4 more delivered, send phase 10 ms, ACK phase 10 ms.
    let rs = r.ack(21, 6);
    assert_eq!((rs.prior_delivered, rs.prior_time), (2, ms(11)));
    assert_eq!((rs.snd_interval, rs.rcv_interval), (ms(10), ms(10)));
    assert_eq!((rs.delivered, rs.rate()), (4, Some(400.0)));
    // 22 ms, a compressed ACK for 6–11: the newest, sent at 13 ms (4 delivered then, at 13 ms),
    // is sampled. Its send phase (13 − 1 = 12 ms) is longer than the ACK phase (22 − 13 =
    // 9 ms): 8 segments over 12 ms, not over 9.
    let rs = r.ack(22, 12);
    assert_eq!((rs.prior_delivered, rs.prior_time), (4, ms(13)));
    assert_eq!((rs.snd_interval, rs.rcv_interval), (ms(12), ms(9)));
    assert_eq!((rs.delivered, rs.interval), (8, Some(ms(12))));
    assert_eq!(rs.rtt, Some(ms(9)));
    assert_eq!(r.0.s.st.delivered, 12);
}

#[test]
fn a_sample_shorter_than_the_minimum_rtt_is_invalid() {
    let mut r = Rig::new();
    r.0.s.p.timestamps = true;
    // Every ACK echoes a timestamp 10 ms old (as a delayed ACK echoes the earlier segment of
    // a pair, RFC 7323 §4.3): the RTT estimate, and its minimum, stay at 10 ms.
    let echo = |ms: u64| SimTime::from_millis(ms - 10);
    r.ack_echoing(11, 2, echo(11));
    r.ack_echoing(13, 4, echo(13));
    r.ack_echoing(21, 6, echo(21)); // the window is 10: segments 12–15 leave too
                                    // Everything outstanding is acknowledged at 31 ms; the next window (20) leaves at once,
                                    // with nothing outstanding: its send phase starts afresh at 31 ms, and so does its ACK
                                    // phase.
    r.ack_echoing(31, 16, echo(31));
    assert_eq!(r.0.s.high, 36);
    assert_eq!(r.0.s.st.min_rtt, ms(10));
    // Segment 16 acknowledged at 36 ms: both phases 5 ms or less, shorter than the 10 ms
    // minimum RTT: no rate, though the count is kept (Linux sets the interval to −1).
    let rs = r.ack_echoing(36, 17, echo(36));
    assert_eq!((rs.snd_interval, rs.rcv_interval), (ms(0), ms(5)));
    assert_eq!((rs.interval, rs.rate()), (None, None));
    assert_eq!((rs.prior_delivered, rs.delivered), (16, 1));
    // Its own RTT, from the send time, is still reported (Linux `rs->rtt_us`).
    assert_eq!(rs.rtt, Some(ms(5)));
}

#[test]
fn segments_sent_while_application_limited_mark_their_samples_until_the_bubble_is_acked() {
    let mut r = Rig::new();
    // As BBR's ProbeRTT does: the samples of what is sent from now on say so, until more than
    // 3 segments have been delivered.
    r.0.s.st.app_limited = 3;
    let rs = r.ack(11, 2); // segments sent before the mark; 4–7 leave marked
    assert!(!rs.is_app_limited);
    assert_eq!(
        r.0.s.st.app_limited, 3,
        "2 delivered: the bubble is still out"
    );
    let rs = r.ack(13, 4); // 4 > 3 delivered: the mark is cleared; 8–11 leave unmarked
    assert!(!rs.is_app_limited);
    assert_eq!(r.0.s.st.app_limited, 0);
    assert!(
        r.ack(21, 6).is_app_limited,
        "segments 4 and 5 were sent marked"
    );
    assert!(!r.ack(22, 12).is_app_limited, "the newest, 11, was not");
    // The application stops: once the window has room and no data is left, the connection is
    // marked until what is in flight now is delivered (Linux `tcp_rate_check_app_limited`).
    r.0.s.stop();
    let in_flight_after = r.0.s.high - 14;
    r.ack(32, 14);
    assert_eq!(r.0.s.st.app_limited, r.0.s.st.delivered + in_flight_after);
}

#[test]
fn a_segment_sacked_before_a_timeout_is_not_delivered_twice() {
    let mut r = Rig::new();
    // Segments 0–3 are out; 1–3 are SACKed (3 delivered, each counted once). Three SACKed
    // above it, segment 0 is lost (RFC 6675 IsLost): fast recovery resends it and, the
    // window (ssthresh 2) allowing, sends segment 4.
    r.sack(11, 0, (1, 4));
    assert_eq!((r.0.s.st.delivered, r.0.s.st.lost, r.0.s.high), (3, 1, 5));
    // The retransmission timer fires: the sender forgets its SACK marks (RFC 6675 §5.1) and
    // goes back to segment 0; every un-SACKed segment outstanding not yet counted lost is
    // (Linux `tcp_enter_loss`): segment 4.
    let rto = r.0.s.rto_timer.deadline().unwrap();
    let t = rto.as_nanos() / 1_000_000;
    r.at(t, |s, io| s.on_timer(crate::tcp::timer::TimerName::Rto, io));
    assert_eq!(r.0.s.st.lost, 2);
    // The cumulative ACK of all four delivers only segment 0 anew: 4 in all, not 7.
    let rs = r.ack(t + 10, 4);
    assert_eq!(r.0.s.st.delivered, 4);
    assert_eq!(rs.acked_sacked, 1);
}
