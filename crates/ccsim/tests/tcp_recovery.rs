//! Loss recovery end to end: a crafted pattern of three losses in one window, an outage that
//! forces repeated timeouts, the handshake with a lost SYN, and finite transfers.

mod common;

use ccsim::config::SeriesName;
use common::{one_flow, points, run};

/// Base RTT of `one_flow("10Mbps", 18 ms)` with 1448-byte segments: 2·(18 + 1 + 1) ms of
/// propagation, 1500 B serialised at 10 Mb/s (1.2 ms) and twice at 100 Mb/s (0.24 ms), and the
/// 52-byte ACK at 10 and 100 Mb/s (≈ 0.05 ms).
const BASE_RTT: f64 = 0.04149;

/// Durations of the fast-recovery episodes (recovery series value 1).
fn recovery_episodes(r: &ccsim::results::Results) -> Vec<f64> {
    let pts = points(r, SeriesName::Recovery, 0);
    let mut out = vec![];
    for w in pts.windows(2) {
        if w[0].1 == 1.0 {
            out.push(w[1].0 - w[0].0);
        }
    }
    out
}

/// Three losses in one window of a flow held by the receiver window at 20 segments, below the
/// 34-segment BDP, so the queue stays empty and the RTT is constant.
fn three_losses(recovery: &str) -> ccsim::results::Results {
    let tcp = format!(
        r#""recovery":"{recovery}","delayed_ack":false,"handshake":false,"initial_window":10,"timestamps":false,"rwnd":{}"#,
        20 * 1448
    );
    run(&one_flow(
        "10Mbps",
        18.0,
        1000,
        5.0,
        &tcp,
        r#","loss":{"kind":"list","packets":[100,102,104]}"#,
        r#""series":["recovery"]"#,
    ))
}

#[test]
fn sack_recovers_three_losses_in_about_one_rtt_without_timeout() {
    let r = three_losses("sack");
    assert_eq!(r.flows.u64s("timeouts"), [0]);
    assert_eq!(r.flows.u64s("fast_retransmits"), [1]);
    assert_eq!(r.flows.u64s("packets_dropped"), [3]);
    // The three holes, plus at most the one rescue retransmission of NextSeg rule (4): the
    // receiver window blocks new data, so rule (4) may resend the highest un-SACKed segment.
    let rtx = r.flows.u64s("retransmits")[0];
    assert!(rtx == 3 || rtx == 4, "retransmits {rtx}");
    // All three holes are repaired in one recovery round trip. It lasts a little more than
    // one RTT because RFC 6675 sends the second and third retransmissions only once the pipe
    // has drained below the halved cwnd, i.e. after half a window of SACKs; this
    // window-limited flow's ACKs come in bursts, which stretches that wait. NewReno (below)
    // needs a round trip per hole.
    let ep = recovery_episodes(&r);
    assert_eq!(ep.len(), 1, "{ep:?}");
    assert!(
        ep[0] > 0.9 * BASE_RTT && ep[0] < 1.8 * BASE_RTT,
        "recovery took {} s",
        ep[0]
    );
}

#[test]
fn newreno_takes_one_rtt_per_loss() {
    let r = three_losses("newreno");
    assert_eq!(r.flows.u64s("timeouts"), [0]);
    assert_eq!(r.flows.u64s("fast_retransmits"), [1]);
    assert_eq!(r.flows.u64s("retransmits"), [3]);
    let ep = recovery_episodes(&r);
    assert_eq!(ep.len(), 1, "{ep:?}");
    assert!(
        ep[0] > 2.5 * BASE_RTT && ep[0] < 3.5 * BASE_RTT,
        "recovery took {} s",
        ep[0]
    );
}

#[test]
fn reno_leaves_recovery_on_the_partial_ack_and_times_out() {
    let r = three_losses("reno");
    // The first partial ACK ends recovery with cwnd = ssthresh = 10, too few segments left
    // in flight to produce three more duplicate ACKs for the remaining holes.
    assert!(
        r.flows.u64s("timeouts")[0] >= 1,
        "{:?}",
        r.flows.u64s("timeouts")
    );
    assert_eq!(r.flows.u64s("bytes_delivered")[0] % 1448, 0);
}

#[test]
fn tahoe_goes_back_to_one_segment_and_resends_the_window() {
    let r = three_losses("tahoe");
    assert_eq!(r.flows.u64s("timeouts"), [0]);
    assert_eq!(r.flows.u64s("fast_retransmits"), [1]);
    // Go-back-N resends everything after the first hole that was in flight.
    assert!(r.flows.u64s("retransmits")[0] > 3);
}

#[test]
fn rto_backs_off_during_an_outage_and_the_flow_recovers() {
    let tcp = r#""delayed_ack":false,"handshake":false,"min_rto":"200ms""#;
    let r = run(&one_flow(
        "10Mbps",
        18.0,
        100,
        30.0,
        tcp,
        r#","loss":{"kind":"outage","intervals":[["5s","12s"]]}"#,
        r#""series":["rto","throughput"],"throughput_bin":"1s""#,
    ));
    let timeouts = r.flows.u64s("timeouts")[0];
    // 7 s of outage starting from an RTO of a few hundred ms: 0.2·(1+2+4+8+16) > 7 s, so at
    // least 4 expiries, each doubling the timer.
    assert!(timeouts >= 4, "timeouts {timeouts}");
    let rto: Vec<f64> = points(&r, SeriesName::Rto, 0)
        .into_iter()
        .filter(|p| p.0 > 5.0 && p.0 < 12.5)
        .map(|p| p.1)
        .collect();
    let doublings = rto
        .windows(2)
        .filter(|w| (w[1] / w[0] - 2.0).abs() < 1e-6)
        .count();
    assert!(doublings >= 3, "RTO values during the outage: {rto:?}");
    // After the outage the flow fills the link again.
    let tput: Vec<f64> = points(&r, SeriesName::Throughput, 0)
        .into_iter()
        .filter(|p| p.0 > 20.0)
        .map(|p| p.1)
        .collect();
    let mean = tput.iter().sum::<f64>() / tput.len() as f64;
    assert!(
        mean > 0.9 * 10e6 * 1448.0 / 1500.0,
        "goodput after recovery {mean}"
    );
}

#[test]
fn lost_syn_is_retransmitted_after_the_initial_rto_and_starts_with_one_segment() {
    let tcp = r#""handshake":true,"initial_rto":"1s","delayed_ack":false"#;
    let r = run(&one_flow(
        "10Mbps",
        18.0,
        100,
        3.0,
        tcp,
        r#","loss":{"kind":"list","packets":[0]}"#,
        r#""series":["cwnd"]"#,
    ));
    assert_eq!(
        r.flows.u64s("timeouts"),
        [0],
        "a SYN timeout is not a data timeout"
    );
    let cwnd = points(&r, SeriesName::Cwnd, 0);
    // First data is sent after the retransmitted SYN's round trip, with cwnd 1 (RFC 3390 §1).
    let first_growth = cwnd
        .iter()
        .find(|p| p.1 > 1.0 && p.0 > 0.5)
        .expect("cwnd grows");
    assert!(first_growth.0 > 1.04, "{cwnd:?}");
    assert!(cwnd.iter().any(|p| p.1 == 1.0 && p.0 > 1.0));
}

#[test]
fn finite_transfer_completes_with_every_byte() {
    let json = one_flow("10Mbps", 18.0, 100, 10.0, r#""handshake":true"#, "", "")
        .replace(r#""dst":"d0","#, r#""dst":"d0","size":"1MB","#);
    let r = run(&json);
    assert_eq!(r.flows.u64s("bytes_delivered"), [1_000_000]);
    let c = r.flows.f64s("completion_s")[0];
    // 1 MB at ≤ 10 Mb/s takes at least 0.8 s, plus the handshake and slow start.
    assert!(c > 0.85 && c < 2.0, "completion {c}");
    assert_eq!(r.flows.f64s("end_s")[0], c);
}

#[test]
fn delayed_acks_halve_the_ack_count() {
    let with = run(&one_flow(
        "10Mbps",
        18.0,
        100,
        10.0,
        r#""delayed_ack":true"#,
        "",
        "",
    ));
    let without = run(&one_flow(
        "10Mbps",
        18.0,
        100,
        10.0,
        r#""delayed_ack":false"#,
        "",
        "",
    ));
    // Reverse direction of the bottleneck carries the ACKs.
    let acks = |r: &ccsim::results::Results| r.queues.u64s("departures")[1] as f64;
    let data = |r: &ccsim::results::Results| r.queues.u64s("departures")[0] as f64;
    let ratio_with = acks(&with) / data(&with);
    let ratio_without = acks(&without) / data(&without);
    assert!(ratio_without > 0.97, "{ratio_without}");
    assert!(ratio_with > 0.45 && ratio_with < 0.6, "{ratio_with}");
}

#[test]
fn no_rtt_sample_spans_a_timeout_without_timestamps() {
    // Karn's rule: the ACK that ends the outage covers the retransmitted segment and segments
    // sent before the timeout; a sample from it would be RTO + RTT (seconds). The path's RTT
    // is at most 41.5 ms + 100 queued packets × 1.2 ms ≈ 0.16 s.
    let tcp = r#""delayed_ack":false,"handshake":false,"timestamps":false,"header_bytes":40"#;
    let r = run(&one_flow(
        "10Mbps",
        18.0,
        100,
        20.0,
        tcp,
        r#","loss":{"kind":"outage","intervals":[["5s","8s"]]}"#,
        "",
    ));
    assert!(r.flows.u64s("timeouts")[0] >= 2);
    let max = r.flows.f64s("rtt_max_s")[0];
    assert!(max < 0.2, "largest RTT sample {max} s");
}

/// Heavy random loss and a deep buffer give many SACK recoveries with several holes, ACK
/// losses and timeouts; in a test build every scan checks the kept SACK counts against a full
/// scan of the scoreboard (`tcp/sack.rs`), so this run exercises them on every ACK.
#[test]
fn sack_counts_survive_heavy_loss_with_ack_loss_and_timeouts() {
    let loss =
        r#","loss":{"kind":"bernoulli","p":0.05},"loss_reverse":{"kind":"bernoulli","p":0.05}"#;
    let r = run(&one_flow(
        "20Mbps",
        20.0,
        300,
        30.0,
        r#""recovery":"sack""#,
        loss,
        "",
    ));
    assert!(r.flows.u64s("fast_retransmits")[0] > 50);
    assert!(r.flows.u64s("timeouts")[0] > 0);
    let m = &r.meta;
    assert_eq!(
        m.packets_injected,
        m.packets_consumed + m.packets_dropped + m.packets_in_network
    );
}
