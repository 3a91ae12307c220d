//! The `bw_estimate` series: the bandwidth estimate that Westwood+ and NDCA keep, recorded for
//! them and for no other algorithm.

mod common;
use common::*;

use ccsim::config::SeriesName;

/// One `cc` flow alone on a 10 Mb/s bottleneck (20 ms, 100 packets) for 20 s, with `trace`.
fn alone(cc: &str, trace: &str) -> ccsim::results::Results {
    let tcp = format!(r#""cc":"{cc}""#);
    run_deterministic(&one_flow("10Mbps", 20.0, 100, 20.0, &tcp, "", trace))
}

const SAMPLED: &str = r#""series":["bw_estimate"],"interval":"100ms""#;

/// With the bottleneck busy, ACKs come back at its packet rate, 10 Mb/s / (1500 · 8 b) =
/// 833⅓ per second, each for 1448 payload bytes (MSS with timestamps): an estimate of the
/// bytes acknowledged per second is 833⅓ · 1448 · 8 = 9,653,333 b/s. Both estimators start
/// at zero and settle there.
#[test]
fn westwood_and_ndca_estimate_the_rate_acks_return_at() {
    let acked_bps = 10e6 / (1500.0 * 8.0) * 1448.0 * 8.0;
    for cc in ["westwood", "ndca"] {
        let pts = points(&alone(cc, SAMPLED), SeriesName::BwEstimate, 0);
        assert_eq!(pts.len(), 201, "{cc}: a sample every 100 ms, 0 to 20 s");
        assert_eq!(pts[0], (0.0, 0.0), "{cc}: nothing measured at the start");
        let late: Vec<f64> = pts.iter().filter(|p| p.0 >= 10.0).map(|p| p.1).collect();
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        assert!(
            (mean / acked_bps - 1.0).abs() < 0.002,
            "{cc}: mean estimate {mean} b/s over the last 10 s"
        );
    }
}

/// Reno and CUBIC keep no estimate: the series is recorded, with no point for their flows.
#[test]
fn only_algorithms_that_keep_an_estimate_record_one() {
    for cc in ["reno", "cubic"] {
        let r = alone(cc, SAMPLED);
        assert!(series(&r, SeriesName::BwEstimate).is_empty(), "{cc}");
    }
}

/// Recorded on change (no interval), each point differs from the one before, and asking for
/// the series changes no result.
#[test]
fn on_change_points_are_changes_and_change_nothing_else() {
    for cc in ["westwood", "ndca"] {
        let traced = alone(cc, r#""series":["bw_estimate"]"#);
        let pts = points(&traced, SeriesName::BwEstimate, 0);
        assert!(pts.len() > 20, "{cc}: {} points", pts.len());
        assert!(
            pts.windows(2).all(|w| w[0].1 != w[1].1 && w[0].0 <= w[1].0),
            "{cc}"
        );
        assert_same_tables(&traced, &alone(cc, r#""series":[]"#), cc);
    }
}

/// The `cwnd_hold` series: NDCA holds its window once a round's smallest RTT passes 1.2 times
/// BaseRTT (§3.4), which a 100-packet queue on a 20 ms path brings about (120 ms of queue
/// over a 42 ms base RTT); it starts at 0, takes only 0 and 1, and the window does not grow
/// while it is 1. Other algorithms, and NDCA with its hold off, record none.
#[test]
fn ndca_records_its_window_hold() {
    let trace = r#""series":["cwnd_hold","cwnd"],"interval":"10ms""#;
    let r = alone("ndca", trace);
    let hold = points(&r, SeriesName::CwndHold, 0);
    assert_eq!(hold[0], (0.0, 0.0));
    assert!(hold.iter().all(|p| p.1 == 0.0 || p.1 == 1.0));
    let held: Vec<f64> = hold.iter().filter(|p| p.1 == 1.0).map(|p| p.0).collect();
    assert!(held.len() > 10, "held at {} samples", held.len());
    let cwnd = points(&r, SeriesName::Cwnd, 0);
    // Between two consecutive held samples the window never grew.
    for w in hold.windows(2) {
        if w[0].1 == 1.0 && w[1].1 == 1.0 {
            let at = |t: f64| cwnd.iter().find(|p| p.0 == t).unwrap().1;
            assert!(at(w[1].0) <= at(w[0].0), "grew while held at {}", w[0].0);
        }
    }
    for (cc, what) in [
        (r#"reno"#, "reno"),
        (r#"{"kind":"ndca","hold":false}"#, "no hold"),
    ] {
        let tcp = format!(
            r#""cc":{}"#,
            if cc.starts_with('{') {
                cc.to_string()
            } else {
                format!("\"{cc}\"")
            }
        );
        let r = run_deterministic(&one_flow("10Mbps", 20.0, 100, 20.0, &tcp, "", trace));
        assert!(points(&r, SeriesName::CwndHold, 0).is_empty(), "{what}");
    }
}

/// A loss ends NDCA's hold (§3.4), and the RTTs of the round that spanned it do not start it
/// again: 9 Mb/s of CBR for 2 s on the 10 Mb/s bottleneck of a held flow overflows the queue.
/// No sample is held while the sender recovers (the `recovery` series is not 0); the flow is
/// held before the burst, grows again after it, and is held again by the end.
#[test]
fn ndca_hold_ends_at_a_loss_and_restarts_only_after_recovery() {
    // The classic loss machinery, as the paper's Reno: the burst ends in a timeout and slow
    // start. With RACK-TLP and PRR the flow recovers at 7 segments while the CBR flow still
    // fills the queue, the hold starts there, and it ends only at a smaller BaseRTT or a loss.
    let flows = r#"{"kind":"tcp","name":"f","src":"s0","dst":"d0","tcp":{"cc":"ndca",
        "prr":false,"rack":false,"tlp":false,"rto_keeps_sack":false,"receiver_quickack":false}},
        {"kind":"cbr","name":"u","src":"s1","dst":"d1","rate":"9Mbps","start":8,"stop":10}"#;
    let trace = r#""series":["cwnd_hold","recovery","cwnd"],"interval":"10ms""#;
    let queue = r#"{"kind":"droptail","limit":100}"#;
    let json = dumbbell("linux", 2, "10Mbps", 20.0, queue, 14.0, flows, trace);
    let r = run_deterministic(&json);
    let hold = points(&r, SeriesName::CwndHold, 0);
    let recovery = points(&r, SeriesName::Recovery, 0);
    let cwnd = points(&r, SeriesName::Cwnd, 0);
    assert_eq!(hold.len(), recovery.len());
    let recovering: Vec<f64> = recovery
        .iter()
        .filter(|p| p.1 != 0.0)
        .map(|p| p.0)
        .collect();
    assert!(!recovering.is_empty(), "the burst causes no loss");
    for (h, rc) in hold.iter().zip(&recovery) {
        assert!(
            h.1 == 0.0 || rc.1 == 0.0,
            "held while recovering at {} s",
            h.0
        );
    }
    let at = |s: &[(f64, f64)], t: f64| s.iter().find(|p| p.0 >= t - 1e-9).unwrap().1;
    assert_eq!(at(&hold, 7.9), 1.0, "held before the burst");
    assert!(r.flows.u64s("packets_dropped")[0] > 0);
    let low = cwnd
        .iter()
        .filter(|p| (8.0..10.5).contains(&p.0))
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min);
    assert!(at(&cwnd, 14.0) > 2.0 * low, "no growth after the burst");
    assert_eq!(at(&hold, 14.0), 1.0, "held again by the end");
}
