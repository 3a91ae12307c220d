//! H-TCP's signature end to end: after a loss on a long-fat path it regains its window in
//! seconds where Reno needs a round trip per segment, because its increase grows with the time
//! since the loss; and its decrease adapts to the buffer, β = RTT_min/RTT_max, so that a
//! small buffer costs a fifth of the window and a buffer of the path's size half. Every
//! scenario runs on the fast and the reference route, which must give identical tables and
//! series.
//!
//! Timestamps are off: Linux hands congestion control the RTT of the newest segment an ACK
//! covers, from its send time, which is ccsim's sample without timestamps (with them, under
//! delayed ACKs, the echo times the earlier segment of a pair, RFC 7323 §4.3).

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{on_both_routes, one_flow, points};

/// Each window reduction as (time, new ssthresh over the window just before it).
fn cuts(r: &Results) -> Vec<(f64, f64)> {
    let cwnd = points(r, SeriesName::Cwnd, 0);
    let ss = points(r, SeriesName::Ssthresh, 0);
    ss.windows(2)
        .filter(|w| w[1].1 != w[0].1 && w[0].1 < 1e9)
        .map(|w| {
            let t = w[1].0;
            let before = cwnd.iter().take_while(|p| p.0 < t).last().unwrap().1;
            (t, w[1].1 / before)
        })
        .collect()
}

/// The window at `t` seconds.
fn cwnd_at(r: &Results, t: f64) -> f64 {
    let cwnd = points(r, SeriesName::Cwnd, 0);
    cwnd.iter().take_while(|p| p.0 <= t).last().unwrap().1
}

/// One bulk flow over 200 Mb/s with 50 ms one way (base RTT 104 ms with the access links,
/// pipe ≈ 1733 packets) and a buffer that never fills; slow start ends at 1000 segments and
/// the bottleneck drops its 3000th packet, in avoidance, so the one loss is at a window of
/// about 1000, for 20 s. Delayed ACKs off: one ACK per segment.
fn one_loss(cc: &str) -> Results {
    on_both_routes(&one_flow(
        "200Mbps",
        50.0,
        100_000,
        20.0,
        &format!(r#""cc":"{cc}","timestamps":false,"delayed_ack":false,"initial_ssthresh":1000"#),
        r#","loss":{"kind":"list","packets":[3000]}"#,
        r#""series":["cwnd","ssthresh"]"#,
    ))
}

#[test]
fn after_a_loss_htcp_regains_its_window_in_seconds_where_reno_needs_a_minute() {
    let reno = one_loss("reno");
    let htcp = one_loss("htcp");
    for r in [&reno, &htcp] {
        assert_eq!(r.flows.u64s("fast_retransmits"), [1]);
        assert_eq!(r.flows.u64s("timeouts"), [0]);
    }
    let (r_cut, h_cut) = (cuts(&reno), cuts(&htcp));
    assert_eq!(r_cut.len(), 1);
    assert_eq!(h_cut.len(), 1);
    // The first event halves (β = 0.5 until the adaptive mode is on).
    assert!((h_cut[0].1 - 0.5).abs() < 0.01, "{h_cut:?}");
    let t0 = h_cut[0].0;
    let w = cwnd_at(&htcp, t0 - 0.01);
    // Reno: one segment per RTT, so W/2 ≈ 500 segments take about 52 s; 10 s gives ~96.
    let reno_gain = cwnd_at(&reno, t0 + 10.0) - w / 2.0;
    // H-TCP: Reno's rate for Δ_L = 1 s, then α_H(d) = 1 + 10d + d²/4 segments per 100 ms
    // of RTT_min: ∫ over 10 s reaches W long before.
    let back = points(&htcp, SeriesName::Cwnd, 0)
        .into_iter()
        .find(|p| p.0 > t0 + 0.5 && p.1 >= w)
        .map(|p| p.0 - t0);
    let back = back.expect("H-TCP regains W");
    // Measured: back at W after 4.05 s; Reno gained 95 segments in 10 s.
    assert!(back < 6.0, "{back}");
    assert!(reno_gain < 0.15 * w, "{reno_gain}");
}

/// One bulk flow over 20 Mb/s with 25 ms one way (base RTT 54 ms, pipe 90 packets) and a
/// DropTail of `queue` packets, for 60 s.
fn buffer(cc: &str, queue: u32) -> Results {
    on_both_routes(&one_flow(
        "20Mbps",
        25.0,
        queue,
        60.0,
        &format!(r#""cc":"{cc}","timestamps":false"#),
        "",
        r#""series":["cwnd","ssthresh"]"#,
    ))
}

#[test]
fn beta_follows_rtt_min_over_rtt_max_so_the_cut_fits_the_buffer() {
    // A full buffer of q packets adds q·0.6 ms to the 54 ms base RTT, so β = ⌊128·54/(54 +
    // 0.6q)⌋/128 clamped to [64, 102]/128: q = 9 → 0.909, clamped to 102/128 = 0.797;
    // q = 45 → ⌊85.3⌋ = 85/128 = 0.664; q = 90 → 64/128 = 0.5. The first few cuts are slow
    // start's and the first event's (β = 0.5 until the adaptive mode is on); the rest must all
    // be the buffer's β.
    for (queue, beta) in [(9, 102.0 / 128.0), (45, 85.0 / 128.0), (90, 0.5)] {
        let h = buffer("htcp", queue);
        let c: Vec<f64> = cuts(&h).iter().map(|c| c.1).collect();
        assert!(c.len() > 15, "queue {queue}: {c:?}");
        assert!(
            c[4..].iter().all(|x| (x - beta).abs() < 0.002),
            "queue {queue}: {c:?}"
        );
        if queue == 9 {
            // A small buffer: Reno's halving leaves the link idle for a while after each loss,
            // H-TCP's fifth does not.
            let r = buffer("reno", queue);
            let (gh, gr) = (
                h.flows.f64s("goodput_bps")[0],
                r.flows.f64s("goodput_bps")[0],
            );
            assert!(gh > 1.1 * gr, "htcp {gh}, reno {gr}");
        }
    }
}
