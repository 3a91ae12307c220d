//! High-speed congestion control end to end: CUBIC's concave/convex epoch around W_max, HyStart
//! leaving slow start before the first loss, CUBIC and HighSpeed regaining their window after a
//! loss far faster than Reno on a 1 Gb/s, 100 ms path, BIC's binary search, and Scalable TCP's
//! recovery time that does not depend on the window.
//!
//! Most scenarios drop one chosen packet (the `list` loss model) on a path whose queue never
//! fills, and whose BDP is larger than the window, so that loss is the only congestion signal
//! and the RTT stays at its base value. Delayed ACKs are off: one ACK per segment.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{one_flow, points, run};

/// One bulk flow (`linux` profile unless `tcp` says otherwise) whose slow start ends at
/// `ssthresh` segments; the bottleneck drops the `drop`-th packet it sends forward (0 is the
/// SYN). The bottleneck delay `delay_ms` plus 1 ms on each access link gives the one-way delay.
fn single_loss(
    rate: &str,
    delay_ms: f64,
    cc: &str,
    ssthresh: u32,
    drop: u64,
    duration: f64,
) -> Results {
    let tcp = format!(r#""cc":{cc},"delayed_ack":false,"initial_ssthresh":{ssthresh}"#);
    run(&one_flow(
        rate,
        delay_ms,
        100_000,
        duration,
        &tcp,
        &format!(r#","loss":{{"kind":"list","packets":[{drop}]}}"#),
        r#""series":["cwnd","recovery"]"#,
    ))
}

/// The single fast-recovery episode of a run.
struct Episode {
    /// Fast retransmit (the loss detected), s.
    loss: f64,
    /// Recovery ended, s.
    exit: f64,
    /// cwnd when the loss was detected: W_max.
    w: f64,
    /// cwnd when recovery ended.
    after: f64,
    /// The flow's smallest RTT sample, s: the base RTT of these queue-free paths.
    rtt: f64,
    cwnd: Vec<(f64, f64)>,
}

impl Episode {
    fn of(r: &Results) -> Episode {
        assert_eq!(r.flows.u64s("fast_retransmits"), [1]);
        assert_eq!(r.flows.u64s("timeouts"), [0]);
        assert_eq!(r.flows.u64s("retransmits"), [1]);
        let rec = points(r, SeriesName::Recovery, 0);
        let loss = rec.iter().find(|p| p.1 == 1.0).expect("a recovery").0;
        let exit = rec
            .iter()
            .find(|p| p.1 == 0.0 && p.0 > loss)
            .expect("an exit")
            .0;
        let cwnd = points(r, SeriesName::Cwnd, 0);
        let w = cwnd
            .iter()
            .filter(|p| p.0 < loss)
            .map(|p| p.1)
            .fold(0.0, f64::max);
        let mut e = Episode {
            loss,
            exit,
            w,
            after: 0.0,
            rtt: r.flows.f64s("rtt_min_s")[0],
            cwnd,
        };
        e.after = e.at(exit);
        e
    }

    /// cwnd at time `t`, s.
    fn at(&self, t: f64) -> f64 {
        self.cwnd
            .iter()
            .take_while(|p| p.0 <= t)
            .last()
            .expect("cwnd")
            .1
    }

    /// First time after recovery that cwnd reaches `w`.
    fn reaches(&self, w: f64) -> Option<f64> {
        self.cwnd
            .iter()
            .find(|p| p.0 > self.exit && p.1 >= w)
            .map(|p| p.0)
    }
}

#[test]
fn cubic_epoch_is_concave_below_w_max_and_convex_above() {
    // 100 Mb/s, RTT ≈ 100 ms (BDP ≈ 830 segments): slow start ends at 400, the flow grows
    // ≥ 5 %/RTT (no loss yet) and loses packet 1200 at W ≈ 440.
    let r = single_loss("100Mbps", 48.0, r#""cubic""#, 400, 1200, 14.0);
    let e = Episode::of(&r);
    assert!(e.w > 400.0 && e.w < 500.0, "W {}", e.w);
    // β = 0.7: recovery leaves cwnd = 0.7·W
    assert!((e.after / e.w - 0.7).abs() < 1e-9, "{} / {}", e.after, e.w);
    // The epoch starts at the first ACK after recovery, with K = cbrt(W·(1 − 0.7)/0.4); Linux
    // aims one minimum RTT ahead: cwnd(t) ≈ W(t + RTT) = 0.4·(t + RTT − K)³ + W.
    let k = (e.w * 0.3 / 0.4).cbrt();
    let w_of = |t: f64| 0.4 * (t + e.rtt - k).powi(3) + e.w;
    for t in [
        0.5,
        k / 4.0,
        k / 2.0,
        3.0 * k / 4.0,
        k,
        k + 2.0,
        k + 4.0,
        k + 5.0,
    ] {
        let got = e.at(e.exit + t);
        assert!(
            (got - w_of(t)).abs() < 0.03 * e.w,
            "t = {t:.2} s: cwnd {got:.1}, W(t + RTT) {:.1}",
            w_of(t)
        );
    }
    // Concave below W_max: each quarter of [0, K] adds less than the one before.
    let inc = |a: f64, b: f64| e.at(e.exit + b) - e.at(e.exit + a);
    let q: Vec<f64> = (0..4)
        .map(|i| inc(i as f64 * k / 4.0, (i + 1) as f64 * k / 4.0))
        .collect();
    assert!(q.windows(2).all(|w| w[0] > w[1]), "concave: {q:?}");
    // Convex above: each 1.5 s after K adds more than the one before.
    let c: Vec<f64> = (0..3)
        .map(|i| inc(k + 1.5 * i as f64, k + 1.5 * (i + 1) as f64))
        .collect();
    assert!(c.windows(2).all(|w| w[0] < w[1]), "convex: {c:?}");
    // and the plateau: around K the window is within 1 % of W_max for more than a second
    assert!((e.at(e.exit + k - 0.5) - e.w).abs() < 0.01 * e.w);
    assert!((e.at(e.exit + k + 0.5) - e.w).abs() < 0.01 * e.w);
}

#[test]
fn hystart_leaves_slow_start_before_the_first_loss() {
    // 100 Mb/s, RTT ≈ 50 ms: BDP = 1e8·0.05/(1500·8) ≈ 417 segments, and a 2000-packet queue.
    let flow = |cc: &str| {
        let r = run(&one_flow(
            "100Mbps",
            23.0,
            2000,
            1.5,
            &format!(r#""cc":{cc}"#),
            "",
            r#""series":["cwnd","ssthresh"]"#,
        ));
        let ss = points(&r, SeriesName::Ssthresh, 0);
        let first = *ss
            .iter()
            .find(|p| p.1.is_finite())
            .expect("slow start ends");
        (r, first)
    };
    // HyStart (on in the linux profile): the ACK train of a round lasts longer than half the
    // minimum RTT once the window is near the BDP (ACKs 0.24 ms apart with delayed ACKs, so
    // > 25 ms after about 100 ACKs, 200 segments), and slow start ends with ssthresh = cwnd,
    // no loss at all.
    let (r, (_, exit)) = flow(r#""cubic""#);
    assert_eq!(r.flows.u64s("retransmits"), [0]);
    assert!(exit > 417.0 / 2.0 && exit < 2.0 * 417.0, "exit at {exit}");
    // Without it slow start runs until the queue overflows: a loss beyond BDP + queue.
    let (r, (_, ss)) = flow(r#"{"kind":"cubic","hystart":false}"#);
    assert!(r.flows.u64s("retransmits")[0] > 0);
    assert!(ss > 0.7 * 2417.0, "ssthresh after the overflow {ss}");
}

#[test]
fn cubic_and_highspeed_regain_the_window_far_faster_than_reno() {
    // 1 Gb/s, RTT ≈ 100 ms (BDP ≈ 8300 segments): slow start ends at 1000 and packet 3000 is
    // dropped about two RTTs later. Time from the loss to 90 % of the window before it:
    let go = |cc: &str| Episode::of(&single_loss("1Gbps", 48.0, cc, 1000, 3000, 8.0));
    let reno = go(r#""reno""#);
    let cubic = go(r#""cubic""#);
    let hs = go(r#""highspeed""#);
    let t90 = |e: &Episode| e.reaches(0.9 * e.w).map(|t| t - e.loss);

    // Reno: from W/2 at one segment per RTT, 0.4·W RTTs ≈ 40 s. Check the slope it runs at and
    // that 8 s are far from enough.
    assert!(reno.reaches(0.9 * reno.w).is_none());
    let end = 7.9;
    let per_rtt = (reno.at(end) - reno.after) / ((end - reno.exit) / reno.rtt);
    assert!((per_rtt - 1.0).abs() < 0.05, "Reno adds {per_rtt} per RTT");
    let reno_t90 = 0.4 * reno.w * reno.rtt + (reno.exit - reno.loss);

    // CUBIC (W ≈ 1100 after 5 %/RTT growth): cwnd(t) ≈ W(t + RTT) reaches 0.9·W at
    // t = K − cbrt(0.1·W/0.4) − RTT, K = cbrt(0.3·W/0.4): with W = 1100, 9.38 − 6.50 − 0.1 =
    // 2.78 s after the epoch starts, plus the recovery round trip.
    let k = (0.3 * cubic.w / 0.4).cbrt();
    let expect = k - (0.1 * cubic.w / 0.4).cbrt() - cubic.rtt + (cubic.exit - cubic.loss);
    let got = t90(&cubic).expect("CUBIC regains 90 %");
    assert!(
        (got - expect).abs() < 0.25,
        "CUBIC t90 {got}, expected {expect}"
    );

    // HighSpeed (Linux table): W ≈ 1016 is in row 8 (851 < W ≤ 1058, md 83): cwnd after the
    // loss = W·(1 − 83/256) ≈ 687, then a(w) = 7 per RTT up to 851, 8 above: to 0.9·W ≈ 914,
    // (851 − 687)/7 + (914 − 851)/8 ≈ 23.4 + 7.9 ≈ 31 RTTs ≈ 3.2 s, plus recovery.
    assert!((hs.after / hs.w - (1.0 - 83.0 / 256.0)).abs() < 1e-9);
    let expect =
        ((851.0 - hs.after) / 7.0 + (0.9 * hs.w - 851.0) / 8.0) * hs.rtt + (hs.exit - hs.loss);
    let got_hs = t90(&hs).expect("HighSpeed regains 90 %");
    assert!(
        (got_hs - expect).abs() < 0.3,
        "HighSpeed t90 {got_hs}, expected {expect}"
    );

    // Both more than ten times faster than Reno.
    assert!(10.0 * got < reno_t90 && 10.0 * got_hs < reno_t90);
}

#[test]
fn bic_searches_for_w_max_then_plateaus_then_probes() {
    // 1 Gb/s, RTT ≈ 20 ms; nominal growth (no delayed-ACK compensation, see bic.rs).
    let r = single_loss(
        "1Gbps",
        8.0,
        r#"{"kind":"bic","delayed_ack_compensation":false}"#,
        600,
        2000,
        3.0,
    );
    let e = Episode::of(&r);
    // β = 0.8
    assert!((e.after / e.w - 0.8).abs() < 1e-9);
    let rtts = |n: f64| e.exit + n * e.rtt;
    // Far below W_max (dist = floor(0.2·W/4) > 16): S_max = 16 segments per RTT.
    let first = e.at(rtts(3.0)) - e.at(rtts(1.0));
    assert!((first / 2.0 - 16.0).abs() < 1.0, "{first} in two RTTs");
    // Binary search: 0.2·W ≈ 134 below, 16/RTT to 67 below (≈ 4 RTTs), then a quarter of the
    // distance per RTT (67 → 51 → 39 → 30 → 23 → 18 → 14 → 11 → 9 → 7, 9 RTTs) to within 8
    // of W_max. Then 0.2 per RTT: 35 RTTs to W_max, 20 more to W_max + 4.
    let near = e.reaches(e.w - 8.0).expect("reaches W_max − 8");
    let n = (near - e.exit) / e.rtt;
    assert!(n > 10.0 && n < 18.0, "within 8 of W_max after {n} RTTs");
    let beyond = e.reaches(e.w + 4.0).expect("probes beyond W_max");
    let plateau = (beyond - near) / e.rtt;
    assert!(
        plateau > 45.0 && plateau < 65.0,
        "plateau of {plateau} RTTs"
    );
    // Max probing: (cwnd − W_max)/3 per RTT, then S_max = 16 per RTT from W_max + 48.
    let far = e.reaches(e.w + 48.0).expect("past W_max + 48");
    let probe = (e.at(far + 5.0 * e.rtt) - e.at(far)) / 5.0;
    assert!((probe - 16.0).abs() < 1.0, "{probe} per RTT");
}

#[test]
fn scalable_recovery_time_does_not_depend_on_the_window() {
    // After a loss at W, cwnd = 7W/8 and grows 1 % per RTT (one segment per 100 acknowledged):
    // ln(8/7)/ln(1.01) = 13.42 RTTs back to W, at ~300 on 100 Mb/s and ~3000 on 1 Gb/s.
    let rtts = |rate: &str, ssthresh: u32, drop: u64| {
        let e = Episode::of(&single_loss(
            rate,
            48.0,
            r#""scalable""#,
            ssthresh,
            drop,
            3.5,
        ));
        assert!((e.after / e.w - 0.875).abs() < 1e-9);
        (e.reaches(e.w).expect("regains W") - e.exit) / e.rtt
    };
    let small = rtts("100Mbps", 300, 1000);
    let large = rtts("1Gbps", 3000, 9000);
    for n in [small, large] {
        assert!((n - 13.42).abs() < 1.0, "{n} RTTs");
    }
    assert!((small - large).abs() < 0.5, "{small} vs {large} RTTs");
}

#[test]
fn ns2_profile_uses_cubic_2_1_and_the_highspeed_formula() {
    // ns-2.35 defaults (1000-byte packets, NewReno, ACK counting), receiver window opened.
    let go = |cc: &str| {
        let tcp = format!(r#""cc":{cc},"initial_ssthresh":300,"rwnd":100000000"#);
        let json = one_flow(
            "100Mbps",
            48.0,
            100_000,
            3.0,
            &tcp,
            r#","loss":{"kind":"list","packets":[800]}"#,
            r#""series":["cwnd","recovery"]"#,
        )
        .replace(r#""seed":1,"#, r#""seed":1,"defaults":"ns2","#);
        Episode::of(&run(&json))
    };
    // CUBIC 2.1: β = 0.8.
    let e = go(r#""cubic""#);
    assert!((e.after / e.w - 0.8).abs() < 1e-9, "{} / {}", e.after, e.w);
    // HighSpeed, ns-2's formula: the first decrease of a connection halves.
    let e = go(r#""highspeed""#);
    assert!((e.after / e.w - 0.5).abs() < 1e-9, "{} / {}", e.after, e.w);
    // Scalable: Linux 2.6.22's 50 per ACK, the same 1/8 decrease.
    let e = go(r#""scalable""#);
    assert!((e.after / e.w - 0.875).abs() < 1e-9);
}

#[test]
fn bad_parameters_name_their_path() {
    let err = |cc: &str| {
        let json = one_flow("10Mbps", 10.0, 100, 1.0, &format!(r#""cc":{cc}"#), "", "");
        match ccsim::scenario::load(&json) {
            Ok(_) => panic!("{cc} accepted"),
            Err(e) => (e.path, e.message),
        }
    };
    let (path, msg) = err(r#"{"kind":"cubic","beta":1.5}"#);
    assert_eq!(path, "flows[0].tcp.cc.beta");
    assert!(msg.contains("(0, 1)"), "{msg}");
    let (path, _) = err(r#"{"kind":"cubic","c":0}"#);
    assert_eq!(path, "flows[0].tcp.cc.c");
    let (path, msg) = err(r#"{"kind":"highspeed","high_p":1e-6}"#);
    assert_eq!(path, "flows[0].tcp.cc.high_p");
    assert!(msg.contains("formula"), "{msg}");
    let (path, _) = err(r#"{"kind":"bic","smooth":5}"#);
    assert!(path.starts_with("flows[0].tcp.cc"), "{path}");
    let (path, _) = err(r#"{"kind":"scalable","b":1}"#);
    assert_eq!(path, "flows[0].tcp.cc.b");
    let (path, msg) = err(r#""vegas2""#);
    assert_eq!(path, "flows[0].tcp.cc");
    assert!(msg.contains(r#""highspeed""#), "{msg}");
}
