//! BBRv3's units, worked by hand from Linux v3 `tcp_bbr.c` and draft-ietf-ccwg-bbr.

use super::*;
use crate::config::Profile;
use crate::tcp::cc::{test_ctx, test_state, CcConfig};

fn bbr3() -> Bbr3 {
    Bbr3Config::default()
        .build(&test_ctx(Profile::Linux))
        .unwrap()
}

/// A connection at `now_ms` with its algorithm initialised (10 segments, no RTT sample).
fn start(now_ms: u64) -> (Bbr3, TcpState) {
    let mut b = bbr3();
    let mut st = test_state(10.0, f64::INFINITY);
    st.now = SimTime::from_millis(now_ms);
    st.min_rtt = SimTime::MAX;
    b.init(&mut st);
    (b, st)
}

/// One ACK: `k` segments delivered at `rate` segments per second, RTT `rtt_ms`, `in_flight`
/// left, at `now_ms`; `lost` segments lost since the sampled one was sent, out of a flight of
/// `tx_in_flight` then.
#[allow(clippy::too_many_arguments)]
fn ack(
    b: &mut Bbr3,
    st: &mut TcpState,
    now_ms: u64,
    k: u64,
    rate: f64,
    rtt_ms: u64,
    in_flight: u64,
    (lost, tx_in_flight): (u64, u64),
) {
    st.now = SimTime::from_millis(now_ms);
    let prior = st.delivered;
    st.delivered += k;
    st.lost += lost;
    let rs = RateSample {
        prior_delivered: prior,
        prior_time: st.now,
        delivered: k,
        interval: Some(SimTime::from_secs_f64(k as f64 / rate)),
        acked_sacked: k,
        losses: lost,
        lost,
        tx_in_flight,
        prior_in_flight: in_flight + k,
        in_flight,
        rtt: Some(SimTime::from_millis(rtt_ms)),
        delivered_time: st.now,
        edt: st.now,
        is_cwnd_limited: true,
        ..Default::default()
    };
    b.cong_control(st, &rs);
}

/// Startup at 1000 segments/s and 40 ms until the pipe is full, Drain, then ProbeBW: returns
/// the time of the last ACK.
fn to_probe_bw(b: &mut Bbr3, st: &mut TcpState) -> u64 {
    st.srtt = SimTime::from_millis(40);
    let mut t = 40;
    // The first round sets full_bw; three more without 25 % growth fill the pipe.
    for _ in 0..4 {
        ack(b, st, t, 10, 1000.0, 40, 50, (0, 0));
        t += 40;
    }
    assert!(b.full_bw_reached);
    assert_eq!(b.mode, Mode::Drain, "a flight of 50 is above the BDP of 40");
    ack(b, st, t, 10, 1000.0, 40, 30, (0, 0));
    assert_eq!(b.mode, Mode::ProbeBw);
    t
}

#[test]
fn gains_per_state_and_phase_are_the_v3_code_s() {
    let (mut b, _) = start(0);
    let ln2 = std::f64::consts::LN_2;
    let mut gains = |mode, phase| {
        b.mode = mode;
        b.phase = phase;
        b.update_gains();
        (b.pacing_gain, b.cwnd_gain)
    };
    assert_eq!(gains(Mode::Startup, Phase::Up), (4.0 * ln2, 2.0));
    assert_eq!(gains(Mode::Drain, Phase::Up), (ln2 / 2.0, 2.0));
    assert_eq!(gains(Mode::ProbeBw, Phase::Down), (0.91, 2.0));
    assert_eq!(gains(Mode::ProbeBw, Phase::Cruise), (1.0, 2.0));
    assert_eq!(gains(Mode::ProbeBw, Phase::Refill), (1.0, 2.0));
    assert_eq!(gains(Mode::ProbeBw, Phase::Up), (1.25, 2.25));
    assert_eq!(gains(Mode::ProbeRtt, Phase::Cruise), (1.0, 1.0));
    // Before any RTT sample: 4 ln 2 × 10 segments / 1 ms, less 1 %.
    let (_, st) = start(0);
    assert!((st.pacing_rate - 10_000.0 * 1000.0 * 4.0 * ln2 * 0.99).abs() < 1e-6);
}

#[test]
fn startup_drain_and_probe_bw_down_then_cruise() {
    let (mut b, mut st) = start(0);
    to_probe_bw(&mut b, &mut st);
    // Entered through DOWN; a flight of 40 ≤ the BDP (40, budget max(40, 3 × 2, 4)) and no
    // inflight_hi: CRUISE at once.
    assert_eq!(b.phase, Phase::Cruise);
    assert_eq!(b.mode(), Some(4.0));
    assert!(b.inflight_hi.is_infinite() && b.inflight_lo.is_infinite());
    // ssthresh shows the BDP with its budget at the end of Startup.
    assert_eq!(st.ssthresh, 40.0);
}

#[test]
fn the_probe_wait_is_two_to_three_seconds_and_zero_or_one_round() {
    let (mut b, _) = start(0);
    let (mut lo, mut hi) = (SimTime::MAX, SimTime::ZERO);
    let mut rounds = [0; 2];
    for _ in 0..2000 {
        b.pick_probe_wait();
        assert!(b.probe_wait >= SimTime::from_secs(2) && b.probe_wait < SimTime::from_secs(3));
        lo = lo.min(b.probe_wait);
        hi = hi.max(b.probe_wait);
        rounds[b.rounds_since_probe as usize] += 1; // 0 or 1, else out of bounds
    }
    // Uniform over [2, 3) s: 2000 draws come near both ends, both round counts appear.
    assert!(lo < SimTime::from_millis(2010) && hi > SimTime::from_millis(2990));
    assert!(rounds[0] > 800 && rounds[1] > 800, "{rounds:?}");
}

#[test]
fn cruise_probes_after_the_wall_clock_wait_or_a_reno_flow_s_rounds() {
    let (mut b, mut st) = start(0);
    let mut t = to_probe_bw(&mut b, &mut st);
    assert_eq!(b.phase, Phase::Cruise);
    // The Reno bound: min(63, target_inflight) rounds. The target is min(BDP budget, cwnd).
    let target = b.target_inflight(&st);
    assert_eq!(target, 40.0_f64.min(st.cwnd));
    b.probe_wait = SimTime::from_secs(100); // only the round count can end the wait here
    let start_rounds = b.rounds_since_probe;
    let mut rounds = 0;
    while b.phase == Phase::Cruise {
        t += 40;
        ack(&mut b, &mut st, t, 10, 1000.0, 40, 40, (0, 0));
        rounds += 1;
        assert!(rounds < 100);
    }
    assert_eq!(b.phase, Phase::Refill);
    assert_eq!(start_rounds + rounds, target as u32);
    // A round of REFILL, then UP.
    t += 40;
    ack(&mut b, &mut st, t, 10, 1000.0, 40, 40, (0, 0));
    assert_eq!(b.phase, Phase::Up);
    assert!(b.bw_probe_samples);
    // After DOWN, the wall clock: 2–3 s, whichever is sooner.
    b.phase = Phase::Cruise;
    b.cycle_stamp = st.now;
    b.probe_wait = SimTime::from_millis(2500);
    b.rounds_since_probe = 0;
    st.cwnd = 1000.0; // a large target: 63 rounds, 2.52 s at 40 ms
    ack(&mut b, &mut st, t + 2500, 10, 1000.0, 40, 40, (0, 0));
    assert_eq!(b.phase, Phase::Cruise, "not yet: the wait must have passed");
    ack(&mut b, &mut st, t + 2501, 10, 1000.0, 40, 40, (0, 0));
    assert_eq!(b.phase, Phase::Refill);
}

/// ProbeBW_UP with `inflight_hi` unset at a window of 100, bandwidth 1000 segments/s and a
/// 40 ms min RTT: a BDP of 40, and in UP a target of 40 + 2.
fn in_probe_up() -> (Bbr3, TcpState) {
    let (mut b, mut st) = start(0);
    let t = to_probe_bw(&mut b, &mut st);
    b.phase = Phase::Up;
    b.reset_full_bw(); // as `bbr_start_bw_probe_up`: the bandwidth may grow again
    b.bw_probe_samples = true;
    st.cwnd = 100.0;
    st.pacing_rate = 1_000_000.0;
    st.now = SimTime::from_millis(t);
    (b, st)
}

#[test]
fn a_probe_losing_more_than_two_percent_sets_inflight_hi_and_goes_down() {
    // 3 lost of a flight of 60 sent: 3 > ⌊60 × 0.02⌋ = 1, too high. inflight_hi =
    // max(60, ⌊0.7 × target⌋) with target = min(42, cwnd 100) = 42: ⌊29.4⌋ = 29, so 60.
    let (mut b, mut st) = in_probe_up();
    assert_eq!(b.target_inflight(&st), 42.0);
    let t = st.now.as_nanos() / 1_000_000 + 1;
    ack(&mut b, &mut st, t, 1, 1000.0, 40, 60, (3, 60));
    assert_eq!(b.inflight_hi, 60.0);
    assert_eq!(b.phase, Phase::Down);
    assert!(b.prev_probe_too_high && !b.bw_probe_samples);
    // 1 lost of 20: 1 > ⌊0.4⌋ = 0, too high; the flight is below beta × target, which wins.
    let (mut b, mut st) = in_probe_up();
    ack(&mut b, &mut st, t, 1, 1000.0, 40, 60, (1, 20));
    assert_eq!(b.inflight_hi, 29.0);
    // 1 lost of 60 is under 2 % (1 ≤ ⌊1.2⌋): no reaction.
    let (mut b, mut st) = in_probe_up();
    ack(&mut b, &mut st, t, 1, 1000.0, 40, 60, (1, 60));
    assert!(b.inflight_hi.is_infinite());
    assert_eq!(b.phase, Phase::Up);
}

#[test]
fn a_lost_segment_while_probing_sets_inflight_hi_where_the_loss_rate_crossed() {
    let (mut b, mut st) = in_probe_up();
    // Sent with 200 in flight, 3 lost since, itself included: 3 > ⌊201 × 0.02⌋ = 4? No —
    // under the threshold, nothing happens.
    let lost = |tx_in_flight, lost| RateSample {
        tx_in_flight,
        lost,
        ..Default::default()
    };
    b.skb_marked_lost(&mut st, &lost(201, 3));
    assert!(b.inflight_hi.is_infinite());
    assert!(b.loss_in_round, "any loss marks the round");
    // 6 lost of 201: too high. inflight_prev = 200, lost_prev = 5, budget ⌈200 × 0.02⌉ = 4
    // ≤ lost_prev, so the crossing was before this segment: inflight_hi = 200.
    assert_eq!(b.inflight_hi_from_lost_skb(&lost(201, 6)), 200);
    // 2 lost of 101: inflight_prev 100, lost_prev 1, budget 2: prefix ⌊(2 − 1) / 0.98⌋ = 1.
    assert_eq!(b.inflight_hi_from_lost_skb(&lost(101, 2)), 101);
    // 3 lost of 301: inflight_prev 300, lost_prev 2, budget 6: ⌊4 / 0.98⌋ = 4, 304.
    assert_eq!(b.inflight_hi_from_lost_skb(&lost(301, 3)), 304);
    b.skb_marked_lost(&mut st, &lost(101, 3));
    // inflight_prev 100, lost_prev 2 ≥ budget 2: 100, above ⌊0.7 × 42⌋.
    assert_eq!(b.inflight_hi, 100.0);
    assert_eq!(b.phase, Phase::Down);
    // Once a probe: a second loss changes nothing.
    b.skb_marked_lost(&mut st, &lost(51, 10));
    assert_eq!(b.inflight_hi, 100.0);
}

#[test]
fn a_lossy_round_outside_probing_cuts_bw_lo_and_inflight_lo_by_beta() {
    let (mut b, mut st) = start(0);
    b.mode = Mode::ProbeBw;
    b.phase = Phase::Cruise;
    b.bw_hi = [1000.0, 0.0];
    st.cwnd = 100.0;
    b.loss_in_round = true;
    // The last round delivered little: beta wins. bw_lo from max_bw, inflight_lo from cwnd.
    b.bw_latest = 500.0;
    b.inflight_latest = 30.0;
    b.adapt_lower_bounds(&st);
    assert_eq!((b.bw_lo, b.inflight_lo), (700.0, 70.0));
    // A second lossy round: 0.7 × 700 = 490 but 600 was delivered; ⌊0.7 × 70⌋ = 49.
    b.bw_latest = 600.0;
    b.adapt_lower_bounds(&st);
    assert_eq!((b.bw_lo, b.inflight_lo), (600.0, 49.0));
    assert_eq!(b.bw(), 600.0, "the bandwidth in use is bounded by bw_lo");
    // While probing (UP, REFILL, Startup) the lower bounds stay.
    b.phase = Phase::Up;
    b.adapt_lower_bounds(&st);
    assert_eq!((b.bw_lo, b.inflight_lo), (600.0, 49.0));
    // The window in CRUISE is capped by inflight_lo.
    b.phase = Phase::Cruise;
    b.bound_cwnd_for_inflight_model(&mut st);
    assert_eq!(st.cwnd, 49.0);
    // REFILL forgets them.
    b.start_bw_probe_refill(&st, 0);
    assert!(b.bw_lo.is_infinite() && b.inflight_lo.is_infinite());
}

#[test]
fn cruise_leaves_fifteen_percent_of_inflight_hi_free() {
    let (mut b, mut st) = start(0);
    b.mode = Mode::ProbeBw;
    b.phase = Phase::Cruise;
    b.inflight_hi = 100.0;
    st.cwnd = 200.0;
    b.bound_cwnd_for_inflight_model(&mut st);
    // 100 − ⌊15⌋ = 85; in DOWN and UP the cap is inflight_hi itself.
    assert_eq!(st.cwnd, 85.0);
    b.inflight_hi = 5.0;
    assert_eq!(
        b.inflight_with_headroom(),
        4.0,
        "at least one segment, at least 4"
    );
}

#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp_for_200_ms_and_a_round() {
    let (mut b, mut st) = start(0);
    let t = to_probe_bw(&mut b, &mut st);
    assert!(t < 1000);
    st.cwnd = 60.0;
    // The ProbeRTT filter's 40 ms sample was taken at 40 ms: at 5.040 s nothing yet.
    ack(&mut b, &mut st, 5_040, 10, 1000.0, 60, 80, (0, 0));
    assert_eq!(b.mode, Mode::ProbeBw);
    // Just past 5 s: ProbeRTT. The 10 s min-RTT estimate keeps its 40 ms.
    ack(&mut b, &mut st, 5_041, 10, 1000.0, 60, 80, (0, 0));
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!(b.mode(), Some(3.0));
    assert_eq!(b.min_rtt, SimTime::from_millis(40));
    // Half the BDP: ⌈1000 × 0.04 × 0.5⌉ = 20 segments (not v1's 4).
    assert_eq!(b.probe_rtt_cwnd(), 20.0);
    assert_eq!(st.cwnd, 20.0);
    assert_eq!((b.pacing_gain, b.cwnd_gain), (1.0, 1.0));
    // The flight falls to 20: 200 ms and a round from now.
    ack(&mut b, &mut st, 5_100, 10, 1000.0, 40, 20, (0, 0));
    assert_eq!(b.probe_rtt_done, Some(SimTime::from_millis(5_300)));
    ack(&mut b, &mut st, 5_200, 10, 1000.0, 40, 20, (0, 0));
    assert_eq!(b.mode, Mode::ProbeRtt, "a round is done, 200 ms are not");
    ack(&mut b, &mut st, 5_301, 10, 1000.0, 40, 20, (0, 0));
    // Back to ProbeBW, cruising, with the window saved on entry restored (60 grown to 70 by
    // the ACK at 5.040 s) and grown by the 10 delivered, up to the target (2 × 40 and the
    // aggregation allowance); the next ProbeRTT 5 s after this exit.
    assert_eq!((b.mode, b.phase), (Mode::ProbeBw, Phase::Cruise));
    assert_eq!(st.cwnd, 80.0);
    ack(&mut b, &mut st, 10_301, 10, 1000.0, 41, 40, (0, 0));
    assert_eq!(b.mode, Mode::ProbeBw);
    ack(&mut b, &mut st, 10_302, 10, 1000.0, 41, 40, (0, 0));
    assert_eq!(b.mode, Mode::ProbeRtt);
}

#[test]
fn startup_ends_on_six_loss_events_in_a_lossy_recovery_round() {
    let (mut b, mut st) = start(0);
    st.srtt = SimTime::from_millis(40);
    // Bandwidth still doubling: only losses can end Startup.
    ack(&mut b, &mut st, 40, 10, 1000.0, 40, 50, (0, 0));
    st.ca_state = CaState::Recovery;
    b.loss_round_delivered = u64::MAX; // keep the round open
                                       // (Each of these ACKs ends a packet-timed round; the rate doubles in each.)
    for i in 0..6u64 {
        let rate = 1000.0 * (2 << i) as f64;
        ack(&mut b, &mut st, 41 + i, 1, rate, 40, 60, (1, 60));
    }
    assert!(!b.full_bw_reached, "the round has not ended");
    assert_eq!(b.loss_events_in_round, 6);
    // The round ends on an ACK whose loss rate (2 of 60 > ⌊1.2⌋) is too high.
    b.loss_round_delivered = 0;
    ack(&mut b, &mut st, 50, 1, 128_000.0, 40, 60, (2, 60));
    assert!(b.full_bw_reached);
    // Out of Startup (and, the flight being under this fast path's BDP, out of Drain too).
    assert_eq!(b.mode, Mode::ProbeBw);
    // inflight_hi: max(BDP with budget, the round's most delivered).
    assert_eq!(b.inflight_hi, b.inflight(&st, b.max_bw(), 1.0).max(10.0));
}

#[test]
fn bad_parameters_name_their_field() {
    let ctx = test_ctx(Profile::Linux);
    let bad = |c: Bbr3Config| c.build(&ctx).unwrap_err().0;
    assert_eq!(
        bad(Bbr3Config {
            beta: Some(1.5),
            ..Default::default()
        }),
        "beta"
    );
    assert_eq!(
        bad(Bbr3Config {
            loss_thresh: Some(0.0),
            ..Default::default()
        }),
        "loss_thresh"
    );
    assert_eq!(
        bad(Bbr3Config {
            probe_rtt_win_ms: Some(20_000.0),
            ..Default::default()
        }),
        "probe_rtt_win_ms"
    );
    assert_eq!(
        bad(Bbr3Config {
            bw_probe_rand_rounds: Some(0),
            ..Default::default()
        }),
        "bw_probe_rand_rounds"
    );
    assert_eq!(
        bad(Bbr3Config {
            probe_down_pacing_gain: Some(1.2),
            ..Default::default()
        }),
        "probe_down_pacing_gain"
    );
}
