//! RACK, TLP and the kept scoreboard, worked by hand from RFC 8985 and Linux.

use super::super::test_rig::Rig;
use super::super::timer::{TimerName, Timers};
use super::super::tlp::probe_timeout;
use super::*;

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

/// Linux's settings with 1000-byte segments, no handshake or timestamps, `iw` segments.
fn params(iw: u32) -> TcpParams {
    let mut p = crate::tcp::test_rig::classic_linux();
    (p.handshake, p.timestamps, p.mss, p.initial_window) = (false, false, 1000, iw);
    p
}

/// The segments of the data packets `out`.
fn segs_of(out: &[crate::packet::Packet]) -> Vec<u64> {
    out.iter().map(|p| p.seq as u64 / 1000).collect()
}

#[test]
fn reordering_window_is_a_quarter_of_min_rtt_capped_at_srtt() {
    // RFC 8985 §6.2 step 4 / Linux `tcp_rack_reo_wnd`.
    assert_eq!(reo_wnd(false, false, 1, 3, ms(40), ms(50)), ms(10));
    // Capped at SRTT.
    assert_eq!(reo_wnd(false, false, 1, 3, ms(40), ms(8)), ms(8));
    // No reordering seen: none in recovery, none once DupThresh segments are SACKed.
    assert_eq!(reo_wnd(false, true, 1, 3, ms(40), ms(50)), SimTime::ZERO);
    assert_eq!(reo_wnd(false, false, 3, 3, ms(40), ms(50)), SimTime::ZERO);
    // Reordering seen: the window stays, in recovery too.
    assert_eq!(reo_wnd(true, true, 5, 3, ms(40), ms(50)), ms(10));
}

#[test]
fn sent_after_breaks_ties_by_sequence() {
    assert!(sent_after(ms(2), 1, ms(1), 9));
    assert!(sent_after(ms(1), 9, ms(1), 8));
    assert!(!sent_after(ms(1), 8, ms(1), 8));
    assert!(!sent_after(ms(1), 9, ms(2), 1));
}

#[test]
fn probe_timeout_is_two_srtt_with_the_delayed_ack_rule_and_never_after_the_rto() {
    // Linux `tcp_schedule_loss_probe`: 2·SRTT + TCP_TIMEOUT_MIN (2 ms) with several
    // segments out; + WCDelAckT (200 ms) with one.
    assert_eq!(probe_timeout(ms(50), 10, Some(ms(1000))), ms(102));
    assert_eq!(probe_timeout(ms(50), 1, Some(ms(1000))), ms(300));
    // Never later than the RTO would fire.
    assert_eq!(probe_timeout(ms(50), 1, Some(ms(250))), ms(250));
    assert_eq!(probe_timeout(ms(50), 10, Some(ms(60))), ms(60));
    // No RTT sample: TCP_TIMEOUT_INIT, 1 s.
    assert_eq!(probe_timeout(SimTime::ZERO, 3, Some(ms(3000))), ms(1000));
}

/// A RACK sender (with PRR, as Linux) with segments 2, 3 sent at 1 ms, 4, 5 at 41 ms and 6,
/// 7 at 45 ms, then segment 6 SACKed at 85 ms.
fn rack_after_sack() -> Rig {
    let mut p = params(4);
    (p.rack, p.prr) = (true, true);
    let mut r = Rig::start(&p);
    assert_eq!(segs_of(&r.out), [0, 1, 2, 3]);
    // Slow start: each ACK of one segment releases two. RTT samples 40 and 44 ms: min_rtt
    // 40 ms, SRTT 40.5 ms, so reo_wnd = 10 ms.
    assert_eq!(segs_of(&r.ack(41, 1, false, SimTime::ZERO, None)), [4, 5]);
    assert_eq!(segs_of(&r.ack(45, 2, false, SimTime::ZERO, None)), [6, 7]);
    assert_eq!(r.s.st.min_rtt, ms(40));
    r
}

#[test]
fn rack_marks_segments_sent_more_than_the_window_before_and_times_the_others() {
    let mut r = rack_after_sack();
    // Segment 6 (sent at 45 ms) SACKed at 85 ms: RACK.xmit_ts = 45 ms, RACK.rtt = 40 ms.
    // Lost: 2 and 3 (1 + 40 + 10 = 51 ≤ 85). Not yet: 4 and 5 (41 + 40 + 10 = 91 > 85),
    // 6 ms to wait; 7 was sent after 6 (same time, higher sequence).
    let out = r.ack(85, 2, false, SimTime::ZERO, Some((6, 7)));
    assert_eq!(r.s.rack_losses(), (2, 0));
    assert_eq!(r.s.st.ca_state, CaState::Recovery, "the loss is proven");
    // PRR lets the first retransmission out: the flight is 6 − 1 SACKed − 2 lost = 3, the
    // window (ssthresh 3) plus the one PRR always allows.
    assert_eq!(segs_of(&out), [2]);
    // The reordering timer: 85 + 6 ms + TCP_TIMEOUT_MIN, on the shared timer.
    let rack = r.s.rack.as_deref().unwrap();
    assert_eq!(rack.pending, Pending::Reorder);
    assert_eq!(r.s.timer(TimerName::Rto).deadline(), Some(ms(93)));
    // It fires: 4 and 5 are lost now (in recovery the window is zero); the flight is 2
    // (6 − 1 − 4 + 1 resent), the window 4: two go, 3 then 4.
    r.out.clear();
    r.at(93, |s, io| s.on_timer(TimerName::Rto, io));
    assert_eq!(r.s.rack_losses(), (4, 0));
    assert_eq!(segs_of(&r.out), [3, 4]);
    // Back on the RTO, restarted at the last new ACK (45 ms).
    let rack = r.s.rack.as_deref().unwrap();
    assert_eq!(rack.pending, Pending::Rto);
    assert_eq!(
        r.s.timer(TimerName::Rto).deadline(),
        Some(ms(45) + r.s.rto())
    );
}

#[test]
fn the_rto_taking_the_timer_back_after_its_deadline_is_a_jiffy_away_not_in_the_past() {
    // Linux `tcp_rearm_rto`: when the RTO takes the shared timer back from the reordering
    // window (or a probe), the time left is max(delta, 1 µs) rounded up to jiffies, so a
    // deadline that passed meanwhile fires one jiffy from now. A deadline in the past would
    // run the simulation's clock backwards.
    let mut r = rack_after_sack();
    r.ack(85, 2, false, SimTime::ZERO, Some((6, 7)));
    assert_eq!(r.s.timer(TimerName::Rto).deadline(), Some(ms(93)));
    let rto_at = ms(45) + r.s.rto();
    assert!(rto_at < ms(400), "RTO restarted at 45 ms: {rto_at}");
    // The reordering timer runs at 400 ms, after the RTO's own deadline: 4 and 5 are lost,
    // nothing waits, and the RTO runs again, one jiffy from now.
    r.at(400, |s, io| s.on_timer(TimerName::Rto, io));
    assert_eq!(r.s.rack_losses(), (4, 0));
    assert_eq!(r.s.rack.as_deref().unwrap().pending, Pending::Rto);
    assert_eq!(r.s.timer(TimerName::Rto).deadline(), Some(ms(401)));
}

#[test]
fn a_hole_below_a_new_sack_is_a_loss_not_reordering() {
    // Ten segments sent at 1 ms; the ACK at 41 ms acknowledges segment 0 (min_rtt 40 ms).
    // Segment 2 is lost. The ACK at 42 ms acknowledges 1 and SACKs 3: 1 was delivered below
    // the highest SACK of *this* ACK, not of an earlier one, so it is no reordering (Linux
    // compares with `prior_fack`). Without reordering the window is min_rtt/4 = 10 ms until
    // DupThresh segments are SACKed, then zero (`tcp_rack_reo_wnd`): 2 waits at 42 and 43 ms
    // and is lost at 44 ms (sent at 1, RACK.rtt 43: 1 + 43 + 0 ≤ 44), not at 54 ms.
    let mut p = params(10);
    (p.rack, p.prr) = (true, true);
    let mut r = Rig::start(&p);
    r.ack(41, 1, false, SimTime::ZERO, None);
    r.ack(42, 2, false, SimTime::ZERO, Some((3, 4)));
    assert!(!r.s.rack.as_deref().unwrap().reord_seen);
    r.ack(43, 2, false, SimTime::ZERO, Some((3, 5)));
    assert_eq!(r.s.rack_losses(), (0, 0), "waiting for the window");
    let out = r.ack(44, 2, false, SimTime::ZERO, Some((3, 6)));
    assert_eq!(r.s.rack_losses(), (1, 0));
    assert_eq!(r.s.st.ca_state, CaState::Recovery);
    assert_eq!(segs_of(&out)[0], 2, "the fast retransmit");
}

#[test]
fn rack_finds_a_lost_retransmission() {
    let mut r = rack_after_sack();
    r.ack(85, 2, false, SimTime::ZERO, Some((6, 7)));
    r.at(93, |s, io| s.on_timer(TimerName::Rto, io));
    // 2 was resent at 85 ms, 3 and 4 at 93 ms. Segment 3's retransmission is SACKed at
    // 133 ms: RACK.xmit_ts = 93 ms, RACK.rtt = 40 ms, no window in recovery. 2's
    // retransmission (85 + 40 ≤ 133) is lost again, and 7 (sent at 45 ms, never SACKed) is
    // lost for the first time.
    let out = r.ack(133, 2, false, SimTime::ZERO, Some((3, 4)));
    assert_eq!(r.s.rack_losses(), (5, 1), "7 lost, and one retransmission");
    assert_eq!(r.s.stats.timeouts, 0);
    assert!(
        segs_of(&out).contains(&2),
        "2 resent again: {:?}",
        segs_of(&out)
    );
}

#[test]
fn without_rack_the_same_sack_is_one_duplicate_ack() {
    let mut p = params(4);
    p.prr = true;
    let mut r = Rig::start(&p);
    r.ack(41, 1, false, SimTime::ZERO, None);
    r.ack(45, 2, false, SimTime::ZERO, None);
    r.ack(85, 2, false, SimTime::ZERO, Some((6, 7)));
    assert_eq!(r.s.st.ca_state, CaState::Open);
}

/// A TLP sender whose receiver window holds 4 segments: 0-3 sent at 1 ms, 4 at 41 ms on the
/// ACK of 0 (SRTT 40 ms).
fn tlp_sender(rwnd_segments: u64) -> Rig {
    let mut p = params(4);
    (p.rack, p.tlp) = (true, true);
    p.rwnd = rwnd_segments * 1000;
    let mut r = Rig::start(&p);
    r.ack(41, 1, false, SimTime::ZERO, None);
    r
}

#[test]
fn the_probe_resends_the_last_segment_when_no_new_data_may_go() {
    let mut r = tlp_sender(4);
    assert_eq!(segs_of(&r.out), [4]);
    // PTO = 2·40 + 2 ms with four segments out, well before the RTO.
    assert_eq!(r.s.rack.as_deref().unwrap().pending, Pending::Probe);
    assert_eq!(r.s.timer(TimerName::Rto).deadline(), Some(ms(41 + 82)));
    r.out.clear();
    r.at(123, |s, io| s.on_timer(TimerName::Rto, io));
    assert_eq!(
        segs_of(&r.out),
        [4],
        "the receiver window is full: the last segment"
    );
    assert_eq!(r.s.loss_probes(), (1, 0));
    assert_eq!(r.s.stats.retransmits, 1);
    // Then the RTO, from the probe.
    assert_eq!(
        r.s.timer(TimerName::Rto).deadline(),
        Some(ms(123) + r.s.rto())
    );
}

#[test]
fn the_probe_sends_new_data_when_it_may() {
    let mut r = tlp_sender(1000);
    assert_eq!(segs_of(&r.out), [4, 5], "cwnd 5 after the first ACK");
    r.out.clear();
    r.at(123, |s, io| s.on_timer(TimerName::Rto, io));
    assert_eq!(segs_of(&r.out), [6], "new data, beyond the window");
    assert_eq!(r.s.stats.retransmits, 0);
}

#[test]
fn with_one_segment_out_the_probe_waits_for_a_delayed_ack_but_not_past_the_rto() {
    let mut r = tlp_sender(4);
    r.s.st.rwnd = 1.0; // the receiver window closes to one segment
                       // Everything but segment 4 acknowledged at 45 ms: one segment out, so PTO = 2·SRTT +
                       // 200 ms ≈ 281 ms, later than the RTO restarted now: the RTO's deadline it is.
    r.ack(45, 4, false, SimTime::ZERO, None);
    let srtt = r.s.st.srtt;
    assert!(
        srtt.saturating_mul(2) + ms(200) > r.s.rto(),
        "{srtt} {}",
        r.s.rto()
    );
    assert_eq!(
        r.s.timer(TimerName::Rto).deadline(),
        Some(ms(45) + r.s.rto())
    );
    assert_eq!(r.s.rack.as_deref().unwrap().pending, Pending::Probe);
}

#[test]
fn an_ack_beyond_a_resent_probe_reduces_the_window() {
    let mut r = tlp_sender(4);
    r.at(123, |s, io| s.on_timer(TimerName::Rto, io)); // probe: 4 again, tlp_high = 5
                                                       // The receiver window opens; an ACK of 5 is not beyond the probe's SND.NXT (Linux
                                                       // `after(ack, tlp_high_seq)`), one of 6 is.
    r.s.st.rwnd = 1000.0;
    r.ack(160, 5, false, SimTime::ZERO, None);
    assert_eq!(r.s.loss_probes(), (1, 0));
    let cwnd = r.s.st.cwnd;
    r.ack(200, 6, false, SimTime::ZERO, None);
    assert_eq!(r.s.loss_probes(), (1, 1));
    assert!(r.s.st.cwnd < cwnd, "{} then {}", cwnd, r.s.st.cwnd);
    assert_eq!(r.s.st.ca_state, CaState::Open);
}

/// A sender with 10 segments out whose last five are SACKed, in recovery, then a timeout:
/// returns the segments it resends until SND.UNA passes them, as a receiver holding 5-9
/// acknowledges each flight.
fn after_timeout(keep: bool) -> (Vec<u64>, u64) {
    let mut p = params(10);
    p.rto_keeps_sack = keep;
    p.tlp = true; // the box, without RACK: RFC 6675 recovery
    let mut r = Rig::start(&p);
    r.ack(41, 0, false, SimTime::ZERO, Some((5, 10)));
    assert_eq!(r.s.st.ca_state, CaState::Recovery);
    r.out.clear();
    r.at(1000, |s, io| s.on_timer(TimerName::Rto, io));
    assert_eq!(r.s.stats.timeouts, 1);
    let mut sent = segs_of(&r.out);
    let mut have: std::collections::BTreeSet<u64> = (5..10).collect();
    let mut t = 1000;
    let mut flight = sent.clone();
    while r.s.una < 10 {
        t += 40;
        have.extend(flight.iter().copied());
        let ack = (0..).find(|s| !have.contains(s)).unwrap();
        let block = have
            .iter()
            .copied()
            .find(|&s| s > ack)
            .map(|s| (s, 10.max(s + 1)));
        flight = segs_of(&r.ack(t, ack, false, SimTime::ZERO, block));
        sent.extend(flight.iter().copied());
    }
    (
        sent.into_iter().filter(|&s| s < 10).collect(),
        r.s.stats.retransmits,
    )
}

#[test]
fn a_timeout_that_keeps_the_scoreboard_resends_only_what_is_not_sacked() {
    // Linux `tcp_enter_loss`: 0-4 lost, 5-9 SACKed and kept.
    let (kept, _) = after_timeout(true);
    assert_eq!(kept, [0, 1, 2, 3, 4]);
    // RFC 6675 §5.1: the SACKs forgotten, the window goes back to SND.UNA and resends from
    // one segment (ssthresh 2.5, half the recovery window of 5): 0, then 1-2, then 3 more,
    // 3-5, until the cumulative ACK jumps past the SACKed ones: 5 again.
    let (forgot, _) = after_timeout(false);
    assert_eq!(forgot, [0, 1, 2, 3, 4, 5]);
}

#[test]
fn a_probe_with_nothing_to_send_hands_the_timer_back_to_the_rto() {
    // TLP without RACK; the receiver window holds 4 segments (and no Limited Transmit goes
    // beyond it). The last one (4) is SACKed by a duplicate ACK, which does not move the probe (Linux reschedules it only on new data
    // or an ACK of new data).
    let mut p = params(4);
    (p.tlp, p.rwnd, p.limited_transmit) = (true, 4000, false);
    let mut r = Rig::start(&p);
    r.ack(41, 1, false, SimTime::ZERO, None);
    r.ack(60, 1, false, SimTime::ZERO, Some((4, 5)));
    assert_eq!(r.s.timer(TimerName::Rto).deadline(), Some(ms(123)));
    r.out.clear();
    r.at(123, |s, io| s.on_timer(TimerName::Rto, io));
    // Nothing new may go and the tail is SACKed: no probe, and the timer runs for the RTO
    // restarted at 41 ms, not for the expired probe again.
    assert!(r.out.is_empty());
    assert_eq!(r.s.loss_probes(), (0, 0));
    assert_eq!(r.s.rack.as_deref().unwrap().pending, Pending::Rto);
    assert_eq!(
        r.s.timer(TimerName::Rto).deadline(),
        Some(ms(41) + r.s.rto())
    );
}
