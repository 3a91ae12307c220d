//! BBR's units, worked by hand from Linux `tcp_bbr.c` and `lib/win_minmax.c`.

use super::*;
use crate::config::Profile;
use crate::tcp::cc::{test_ctx, test_state, CcConfig};

fn bbr() -> Bbr {
    BbrConfig::default()
        .build(&test_ctx(Profile::Linux))
        .unwrap()
}

/// A connection at `now_ms` with its algorithm initialised.
fn start(now_ms: u64) -> (Bbr, TcpState) {
    let mut b = bbr();
    let mut st = test_state(10.0, f64::INFINITY);
    st.now = SimTime::from_millis(now_ms);
    st.min_rtt = SimTime::MAX;
    b.init(&mut st);
    (b, st)
}

/// One ACK that ends a round: `k` segments delivered at `rate` segments per second, RTT
/// `rtt_ms`, `in_flight` left, at `now_ms`.
fn round(
    b: &mut Bbr,
    st: &mut TcpState,
    now_ms: u64,
    k: u64,
    rate: f64,
    rtt_ms: u64,
    in_flight: u64,
) {
    st.now = SimTime::from_millis(now_ms);
    let prior = st.delivered;
    st.delivered += k;
    let rs = RateSample {
        prior_delivered: prior,
        prior_time: st.now,
        delivered: k,
        interval: Some(SimTime::from_secs_f64(k as f64 / rate)),
        acked_sacked: k,
        prior_in_flight: in_flight + k,
        in_flight,
        rtt: Some(SimTime::from_millis(rtt_ms)),
        delivered_time: st.now,
        edt: st.now,
        ..Default::default()
    };
    b.cong_control(st, &rs);
}

#[test]
fn gains_are_linux_s_and_the_pacing_rate_keeps_a_one_percent_margin() {
    let b = bbr();
    let ln2 = std::f64::consts::LN_2;
    assert_eq!(b.p.high_gain, 2.0 / ln2);
    assert_eq!(b.p.drain_gain, ln2 / 2.0);
    assert_eq!(b.p.cwnd_gain, 2.0);
    // 1000 segments/s of 1000 B at gain 1.25: 1.25 MB/s less 1 %.
    assert!((b.pacing_rate_for(1000.0, 1.25) - 1_237_500.0).abs() < 1e-6);
    // Before any RTT sample the rate is high_gain × IW / 1 ms: 10 segments a millisecond.
    let (_, st) = start(0);
    let want = 10_000.0 * 1000.0 * (2.0 / ln2) * 0.99;
    assert!((st.pacing_rate - want).abs() < 1e-6, "{}", st.pacing_rate);
    assert!(st.ssthresh.is_infinite());
}

#[test]
fn bdp_and_inflight_add_the_quantisation_budget() {
    let (mut b, mut st) = start(0);
    // No RTT sample yet: the initial window.
    assert_eq!(b.bdp(1000.0, 2.0), 10.0);
    b.min_rtt = SimTime::from_millis(40);
    // 1000 segments/s × 40 ms × 2.5 = 100 segments.
    assert_eq!(b.bdp(1000.0, 2.5), 100.0);
    // ⌈1000 × 0.04 × 1.01⌉ = ⌈40.4⌉ = 41.
    assert_eq!(b.bdp(1000.0, 1.01), 41.0);
    // At 1 MB/s a TSO burst would be ⌊976 B / 1000 B⌋ = 0, at least 2 segments above
    // 1.2 Mbit/s: 3 bursts of 2 added, 40 + 6 = 46, already even.
    st.pacing_rate = 1_000_000.0;
    assert_eq!(b.inflight(&st, 1000.0, 1.0), 46.0);
    // 41 + 6 = 47 rounds up to 48.
    assert_eq!(b.inflight(&st, 1000.0, 1.01), 48.0);
    // In ProbeBW's 5/4 phase (index 0), 2 more.
    b.mode = Mode::ProbeBw;
    b.cycle_idx = 0;
    assert_eq!(b.inflight(&st, 1000.0, 1.0), 48.0);
    // Below 1.2 Mbit/s (150 kB/s) a burst is one segment: 40 + 3 = 43 → 44.
    b.mode = Mode::Startup;
    st.pacing_rate = 100_000.0;
    assert_eq!(b.inflight(&st, 1000.0, 1.0), 44.0);
}

#[test]
fn startup_ends_after_three_rounds_without_a_quarter_more_bandwidth() {
    let (mut b, mut st) = start(0);
    st.srtt = SimTime::from_millis(40);
    let mut t = 40;
    // Growth of at least 25 % a round keeps Startup going.
    for bw in [1000.0, 1300.0, 1700.0] {
        round(&mut b, &mut st, t, 10, bw, 40, 50);
        t += 40;
        assert_eq!(b.mode, Mode::Startup);
    }
    // 2000 is under 1.25 × 1700 = 2125: one round without growth, then two more.
    for k in 1..=2 {
        round(&mut b, &mut st, t, 10, 2000.0, 40, 50);
        t += 40;
        assert_eq!((b.mode, b.full_bw_cnt), (Mode::Startup, k));
    }
    assert!((b.full_bw - 1700.0).abs() < 0.01, "{}", b.full_bw);
    // The third: the pipe is full. Drain's threshold is one BDP of the filter's 2000/s.
    let rate_before = st.pacing_rate;
    round(&mut b, &mut st, t, 10, 2000.0, 40, 500);
    assert!(b.full_bw_reached);
    assert_eq!(b.mode, Mode::Drain);
    assert_eq!(b.pacing_gain, std::f64::consts::LN_2 / 2.0);
    assert_eq!(b.cwnd_gain, 2.0 / std::f64::consts::LN_2);
    // ssthresh = inflight(2000/s, 1): 80 + 3 bursts of ⌊⌊rate/1024⌋/1000⌋ segments (Startup's
    // rate, 2000 × 1000 B × 2/ln 2 × 0.99 = 5.71 MB/s: 5 segments), rounded up to even: 96.
    let burst = ((rate_before / 1024.0).floor() / 1000.0)
        .floor()
        .clamp(2.0, 127.0);
    assert_eq!(burst, 5.0);
    assert_eq!(st.ssthresh, 96.0);
    // Drain ends once the flight is down to one BDP.
    round(&mut b, &mut st, t + 40, 10, 2000.0, 40, 60);
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_ne!(b.cycle_idx, 1, "ProbeBW never starts in its 3/4 phase");
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_lower_rtt_for_200_ms_and_a_round() {
    let (mut b, mut st) = start(0);
    st.srtt = SimTime::from_millis(40);
    let mut t = 40;
    for _ in 0..4 {
        round(&mut b, &mut st, t, 10, 1000.0, 40, 50);
        t += 40;
    }
    round(&mut b, &mut st, t, 10, 1000.0, 40, 30);
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_eq!(b.min_rtt, SimTime::from_millis(40));
    // Until 10 s after the last min-RTT sample (40 ms), higher RTTs change nothing. The
    // window, below the target, grows by what is delivered: 60 + 10.
    st.cwnd = 60.0;
    round(&mut b, &mut st, 10_040, 10, 1000.0, 60, 80);
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_eq!(st.cwnd, 70.0);
    assert_eq!(b.min_rtt, SimTime::from_millis(40));
    // Just past it: the filter takes the sample it has and ProbeRTT caps the window at 4.
    round(&mut b, &mut st, 10_041, 10, 1000.0, 60, 80);
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!(b.min_rtt, SimTime::from_millis(60));
    assert_eq!(st.cwnd, 4.0);
    assert_eq!((b.pacing_gain, b.cwnd_gain), (1.0, 1.0));
    assert!(
        st.app_limited > 0,
        "ProbeRTT's samples are marked application-limited"
    );
    // The flight falls to 4: 200 ms from now, and a round, before leaving.
    round(&mut b, &mut st, 10_100, 10, 1000.0, 40, 4);
    assert_eq!(b.probe_rtt_done, Some(SimTime::from_millis(10_300)));
    round(&mut b, &mut st, 10_200, 10, 1000.0, 40, 4);
    assert_eq!(
        b.mode,
        Mode::ProbeRtt,
        "the round is done but 200 ms are not"
    );
    round(&mut b, &mut st, 10_301, 10, 1000.0, 40, 4);
    assert_eq!(b.mode, Mode::ProbeBw);
    // The window saved on entry (70) is restored, then grows by the 10 delivered, under a
    // target of at least 2 × 40 segments + the quantisation budget.
    assert_eq!(st.cwnd, 80.0, "the window saved on entry is restored");
}

#[test]
fn recovery_conserves_packets_in_its_first_round_and_restores_the_window_after() {
    let (mut b, mut st) = start(0);
    st.srtt = SimTime::from_millis(40);
    round(&mut b, &mut st, 40, 10, 1000.0, 40, 50);
    st.cwnd = 60.0;
    // Entering recovery saves the window; the first ACK sets it to the flight plus what it
    // delivered (20 + 2), less nothing since no loss is counted on it.
    b.set_state(&mut st, CaState::Recovery);
    st.ca_state = CaState::Recovery;
    let rs = RateSample {
        prior_delivered: st.delivered,
        acked_sacked: 2,
        in_flight: 20,
        delivered_time: SimTime::from_millis(41),
        edt: SimTime::from_millis(41),
        ..Default::default()
    };
    st.delivered += 2;
    st.now = SimTime::from_millis(41);
    b.cong_control(&mut st, &rs);
    assert_eq!(st.cwnd, 22.0);
    // Another ACK in the same round: max(cwnd − losses, flight + delivered) = max(21, 19 + 1).
    let rs2 = RateSample {
        acked_sacked: 1,
        losses: 1,
        in_flight: 19,
        ..rs
    };
    b.cong_control(&mut st, &rs2);
    assert_eq!(st.cwnd, 21.0);
    // Recovery over: back to the saved 60.
    st.ca_state = CaState::Open;
    b.cong_control(&mut st, &RateSample { losses: 0, ..rs2 });
    assert!(st.cwnd >= 60.0, "{}", st.cwnd);
}

#[test]
fn bad_parameters_name_their_field() {
    let ctx = test_ctx(Profile::Linux);
    let e = BbrConfig {
        high_gain: Some(-1.0),
        ..Default::default()
    }
    .build(&ctx)
    .unwrap_err();
    assert_eq!(e.0, "high_gain");
    let e = BbrConfig {
        bw_rtts: Some(0),
        ..Default::default()
    }
    .build(&ctx)
    .unwrap_err();
    assert_eq!(e.0, "bw_rtts");
    let e = BbrConfig {
        pacing_margin_percent: Some(100.0),
        ..Default::default()
    }
    .build(&ctx)
    .unwrap_err();
    assert_eq!(e.0, "pacing_margin_percent");
}
