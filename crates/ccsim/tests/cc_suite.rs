//! Signature behaviour of Vegas, Westwood+, Hybla, Illinois, NDCA-TCP and the slow-start
//! variants, end to end. Every run checks packet conservation (`common::run`).

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{one_flow, points, run};

/// Bottleneck 10 Mb/s with 20 ms one way: base RTT 2·(20 + 1 + 1) ms + serialisation ≈ 45.5 ms,
/// so the pipe holds 10e6/(8·1500)·0.0455 ≈ 38 packets of 1500 bytes.
const PIPE_10M_20MS: f64 = 38.0;

/// Mean of the bottleneck's queue samples (packets) from `from` seconds on.
fn mean_queue_after(r: &Results, from: f64) -> f64 {
    let q: Vec<f64> = points(r, SeriesName::Queue, 0)
        .into_iter()
        .filter(|p| p.0 >= from)
        .map(|p| p.1)
        .collect();
    q.iter().sum::<f64>() / q.len() as f64
}

fn vegas_run(cc: &str) -> Results {
    let tcp = format!(r#""cc":{cc},"delayed_ack":false"#);
    run(&one_flow(
        "10Mbps",
        20.0,
        100,
        30.0,
        &tcp,
        "",
        r#""series":["queue","cwnd"],"interval":"10ms""#,
    ))
}

#[test]
fn vegas_holds_alpha_to_beta_packets_in_the_queue_without_loss() {
    // Vegas keeps its own queued packets diff = cwnd·(RTT − BaseRTT)/BaseRTT in [α, β]; the
    // integer truncation (Linux) or rounding (ns-2) of diff lets the real queue reach β + 1.
    for (cc, alpha, beta) in [
        (r#""vegas""#, 2.0, 4.0),
        (r#"{"kind":"vegas","variant":"ns2"}"#, 1.0, 3.0),
    ] {
        let r = vegas_run(cc);
        assert_eq!(r.flows.u64s("packets_dropped"), [0], "{cc}");
        let q = mean_queue_after(&r, 10.0);
        assert!(q >= alpha - 0.5 && q <= beta + 1.0, "{cc}: mean queue {q}");
        // Nearly the whole link: the window is the pipe plus those few packets.
        let g = r.flows.f64s("goodput_bps")[0];
        assert!(g > 0.95 * 10e6 * 1448.0 / 1500.0, "{cc}: goodput {g}");
        let cwnd = r.flows.f64s("cwnd_final")[0];
        assert!(
            (cwnd - PIPE_10M_20MS - q).abs() < 2.0,
            "{cc}: cwnd {cwnd}, queue {q}"
        );
    }
}

#[test]
fn reno_in_the_same_path_fills_the_buffer_and_loses_packets() {
    // The contrast that makes Vegas's result meaningful.
    let r = vegas_run(r#""reno""#);
    assert!(r.flows.u64s("packets_dropped")[0] > 10);
    assert!(mean_queue_after(&r, 10.0) > 20.0);
}

/// One flow at 100 Mb/s with a 50 ms one-way bottleneck (pipe ≈ 870 packets) and a queue
/// large enough that slow start is not cut short before cwnd 600.
fn startup(slow_start: &str) -> Vec<(f64, f64)> {
    let tcp = format!(
        r#""slow_start":{slow_start},"delayed_ack":false,"initial_window":10,"handshake":false"#
    );
    let r = run(&one_flow(
        "100Mbps",
        50.0,
        5000,
        3.0,
        &tcp,
        "",
        r#""series":["cwnd"]"#,
    ));
    points(&r, SeriesName::Cwnd, 0)
}

fn cwnd_at(c: &[(f64, f64)], t: f64) -> f64 {
    c.iter()
        .take_while(|p| p.0 <= t)
        .last()
        .map_or(0.0, |p| p.1)
}

fn time_to(c: &[(f64, f64)], w: f64) -> f64 {
    c.iter()
        .find(|p| p.1 >= w)
        .map(|p| p.0)
        .expect("window reached")
}

const RTT_100M_50MS: f64 = 0.1043;

#[test]
fn limited_slow_start_grows_by_about_max_ssthresh_over_two_per_rtt() {
    // RFC 3742: above max_ssthresh = 100 each ACK adds 1/K, K = ⌊cwnd/50⌋, so one RTT adds
    // cwnd/K: exactly 50 at multiples of 50 and at most 50·cwnd/(cwnd − 50) between them
    // (75 just above 100, 60 above 300). Standard slow start doubles instead.
    let lss = startup(r#""limited""#);
    let t0 = time_to(&lss, 200.0);
    for k in 0..6 {
        let t = t0 + k as f64 * RTT_100M_50MS;
        let (a, b) = (cwnd_at(&lss, t), cwnd_at(&lss, t + RTT_100M_50MS));
        if b > 800.0 {
            break;
        }
        let grew = b - a;
        assert!(grew <= 50.0 * a / (a - 50.0) + 2.0, "{a} → {b}");
        assert!(grew >= 40.0, "{a} → {b}: slow start, not avoidance");
    }
    let std = startup(r#""standard""#);
    let a = cwnd_at(&std, time_to(&std, 200.0));
    let b = cwnd_at(&std, time_to(&std, 200.0) + RTT_100M_50MS);
    assert!(b > 1.8 * a, "standard slow start doubles: {a} → {b}");
}

#[test]
fn advanced_slow_start_reaches_max_ssthresh_sooner_than_standard() {
    // Rounds of ACKs from IW 10, one ACK per segment (ACK spacing 0.12 ms ≪ RTT):
    //   standard: 10 → 20 → 40 → 80, then 95 after 15 ACKs of round 4;
    //   ass2: round 1 +3 ×5 (to 25) then +2 ×5 → 35; round 2 +2 ×8 → 51, +1 ×24 → 75,
    //         +0.5 ×3 → 76.5; 95 after 37 ACKs of round 3;
    //   ass3: round 1 +2 ×8 → 26, +1 ×2 → 28; round 2 → 56; 95 after 39 ACKs of round 3;
    //   ass4: round 1 +2 ×10 → 30; round 2 +2 ×10 → 50, +1 ×20 → 70; 95 after 25 ACKs of round 3.
    // So each ASS algorithm gets there one round trip before standard slow start.
    let t_std = time_to(&startup(r#""standard""#), 95.0);
    for alg in ["ass2", "ass3", "ass4"] {
        let t = time_to(&startup(&format!(r#""{alg}""#)), 95.0);
        let rtts = (t_std - t) / RTT_100M_50MS;
        assert!((0.8..=1.3).contains(&rtts), "{alg} {t}, standard {t_std}");
    }
}

#[test]
fn advanced_slow_start_divides_the_window_by_its_range_factor_on_a_loss() {
    // A loss early in the second round, detected at cwnd in [25, 50) for algorithm 2 (+2 per
    // ACK there): ssthresh = cwnd/3. Algorithm 3 has +1 there: cwnd/2.
    for (alg, div) in [("ass2", 3.0), ("ass3", 2.0)] {
        let tcp = format!(
            r#""slow_start":"{alg}","delayed_ack":false,"initial_window":10,"handshake":false,"recovery":"sack""#
        );
        let r = run(&one_flow(
            "10Mbps",
            20.0,
            1000,
            2.0,
            &tcp,
            r#","loss":{"kind":"list","packets":[12]}"#,
            r#""series":["cwnd","ssthresh"]"#,
        ));
        let ss = points(&r, SeriesName::Ssthresh, 0);
        let (t_cut, cut) = ss.iter().find(|p| p.1.is_finite()).copied().unwrap();
        let before = points(&r, SeriesName::Cwnd, 0)
            .into_iter()
            .take_while(|p| p.0 < t_cut)
            .last()
            .unwrap()
            .1;
        assert!(
            (25.0..50.0).contains(&before),
            "{alg}: loss seen at cwnd {before}"
        );
        assert!(
            (cut - before / div).abs() < 1e-9,
            "{alg}: {before} → ssthresh {cut}"
        );
    }
}

#[test]
fn ndca_starts_up_without_overflow_and_holds_near_the_pipe() {
    // NDCA leaves slow start at its bandwidth estimate and stops growing once the RTT exceeds
    // 1.2·BaseRTT (≈ 0.2·pipe ≈ 8 packets queued), where Reno fills the 100-packet buffer.
    let tcp = r#""cc":"ndca","delayed_ack":false"#;
    let r = run(&one_flow(
        "10Mbps",
        20.0,
        100,
        20.0,
        tcp,
        "",
        r#""series":["queue","cwnd"],"interval":"10ms""#,
    ));
    assert_eq!(r.flows.u64s("packets_dropped"), [0]);
    assert!(r.queues.f64s("max_len_pkts")[0] <= 0.2 * PIPE_10M_20MS + 4.0);
    let cwnd = r.flows.f64s("cwnd_final")[0];
    assert!(
        (0.85 * PIPE_10M_20MS..=1.2 * PIPE_10M_20MS + 4.0).contains(&cwnd),
        "{cwnd}"
    );
    // The hold: the window no longer moves in the second half.
    let c = points(&r, SeriesName::Cwnd, 0);
    assert_eq!(cwnd_at(&c, 10.0), cwnd_at(&c, 20.0));
}

fn lossy(cc: &str, rate: &str, delay_ms: f64, p: f64, queue: u32) -> f64 {
    lossy_with(cc, "", rate, delay_ms, p, queue)
}

fn lossy_with(cc: &str, tcp: &str, rate: &str, delay_ms: f64, p: f64, queue: u32) -> f64 {
    let tcp = format!(r#""cc":"{cc}"{tcp}"#);
    let loss = format!(r#","loss":{{"kind":"bernoulli","p":{p}}}"#);
    let r = run(&one_flow(rate, delay_ms, queue, 30.0, &tcp, &loss, ""));
    r.flows.f64s("goodput_bps")[0]
}

#[test]
fn westwood_and_illinois_keep_more_of_a_lossy_link_than_reno() {
    // 1 % random loss on 10 Mb/s, 45 ms: Reno's window is about 1.22/√p ≈ 12 segments
    // (≈ 3 Mb/s). Westwood+ resets to the measured pipe after a loss instead of halving, and
    // Illinois cuts by only β = 1/8 while the queue is empty and grows by up to 10 per RTT.
    let reno = lossy("reno", "10Mbps", 20.0, 0.01, 100);
    assert!(reno < 4.5e6, "reno {reno}");
    let westwood = lossy("westwood", "10Mbps", 20.0, 0.01, 100);
    let illinois = lossy("illinois", "10Mbps", 20.0, 0.01, 100);
    assert!(westwood > 1.4 * reno, "westwood {westwood} vs reno {reno}");
    assert!(illinois > 2.0 * reno, "illinois {illinois} vs reno {reno}");
}

#[test]
fn hybla_makes_a_long_path_grow_like_a_short_one() {
    // RTT ≈ 0.6 s, ρ = 24: avoidance adds ρ² = 576 segments per window of ACKs instead of 1,
    // so with 0.1 % random loss Hybla keeps far more of the 10 Mb/s than Reno. Slow start
    // (+2^16 − 1 per ACK) is bounded by an initial ssthresh so the comparison is about
    // avoidance.
    let ss = r#","initial_ssthresh":64"#;
    let reno = lossy_with("reno", ss, "10Mbps", 300.0, 0.001, 1000);
    let hybla = lossy_with("hybla", ss, "10Mbps", 300.0, 0.001, 1000);
    assert!(hybla > 2.0 * reno, "hybla {hybla} vs reno {reno}");
}
