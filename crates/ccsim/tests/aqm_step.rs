//! Step marking end to end (DCTCP's AQM, RFC 8257 §3.1; Linux `sch_red` with min = max = K):
//! ECN flows keep the queue oscillating about K without a single data packet lost; Not-ECT
//! arrivals above K are dropped (the queue never passes K), or queued with `nodrop`. Every run
//! is on the fast and the reference route, which must give identical tables and series.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{bulk_flows, dumbbell, on_both_routes, points};

const K: f64 = 20.0;

/// Four bulk Reno flows (Linux defaults: handshake, SACK, delayed ACKs), ECN on or off,
/// through `queue` on a 10 Mb/s, 20 ms bottleneck for 30 s; the queue sampled every 10 ms.
fn four_reno(queue: &str, ecn: bool) -> Results {
    four_reno_with(queue, &format!(r#""ecn":{ecn}"#))
}

/// As `four_reno`, with the TCP settings `tcp`.
fn four_reno_with(queue: &str, tcp: &str) -> Results {
    on_both_routes(&dumbbell(
        "linux",
        4,
        "10Mbps",
        20.0,
        queue,
        30.0,
        &bulk_flows(4, tcp),
        r#""series":["queue"],"interval":"10ms""#,
    ))
}

const STEP: &str = r#"{"kind":"step","threshold":20,"limit":200}"#;

/// The bottleneck's queue samples (packets) after the 5 s start-up.
fn steady_queue(r: &Results) -> Vec<f64> {
    points(r, SeriesName::Queue, 0)
        .into_iter()
        .filter(|p| p.0 >= 5.0)
        .map(|p| p.1)
        .collect()
}

#[test]
fn ecn_reno_flows_oscillate_about_k_without_a_loss() {
    let r = four_reno(STEP, true);
    let q = &r.queues;
    // Every data packet is ECT: above K it is marked, never dropped.
    assert_eq!(q.u64s("drops_overflow")[0], 0);
    assert_eq!(r.flows.u64s("retransmits"), [0, 0, 0, 0]);
    assert!(q.u64s("marks")[0] > 1000);
    assert_eq!(q.u64s("marks")[0], q.u64s("marks_forced")[0]);
    // SYNs are Not-ECT (RFC 3168 §6.1.1): one arriving above K is dropped, as Linux drops it.
    assert!(q.u64s("drops_forced")[0] <= 4);
    assert!(r.flows.u64s("ecn_reductions").iter().all(|&n| n > 10));
    // The sawtooth: the marks of one round trip halve the windows, so the queue rises past K,
    // overshoots by at most a round trip of growth, and falls back below it, again and again.
    let s = steady_queue(&r);
    let max = s.iter().cloned().fold(0.0, f64::max);
    assert!(max > K && max <= K + 10.0, "max {max}");
    let above = s.iter().filter(|&&v| v > K).count() as f64 / s.len() as f64;
    assert!((0.02..0.3).contains(&above), "above K {above} of the time");
    let crossings = s.windows(2).filter(|w| w[0] <= K && w[1] > K).count();
    assert!(crossings >= 20, "{crossings} excursions above K in 25 s");
    // Linux cuts over a round trip (PRR in the CWR state), so packets keep arriving above K for
    // longer than after RFC 3168's halving at once: more windows are cut (253 against 207
    // here) and the link is busy 0.90 of the time rather than 0.95.
    let at_once = four_reno_with(STEP, r#""ecn":true,"prr":false"#);
    let cuts = |r: &Results| r.flows.u64s("ecn_reductions").iter().sum::<u64>();
    assert!(
        cuts(&r) > cuts(&at_once),
        "{} vs {}",
        cuts(&r),
        cuts(&at_once)
    );
    assert!(q.f64s("utilisation")[0] > 0.85);
    assert!(at_once.queues.f64s("utilisation")[0] > 0.93);
}

#[test]
fn not_ect_arrivals_above_k_are_dropped_or_with_nodrop_queued() {
    // Dropped: an arrival is admitted only below K, so the queue reaches K and never passes it.
    let r = four_reno(r#"{"kind":"step","threshold":20,"limit":200}"#, false);
    let q = &r.queues;
    assert_eq!(q.f64s("max_len_pkts")[0], K);
    assert!(q.u64s("drops_forced")[0] > 100);
    assert_eq!((q.u64s("drops_overflow")[0], q.u64s("marks")[0]), (0, 0));
    // In bytes: admitted below K bytes, so at most K − 1 + one packet (1500 bytes).
    let r = four_reno(
        r#"{"kind":"step","threshold_bytes":30000,"limit_bytes":300000}"#,
        false,
    );
    let max = r.queues.f64s("max_len_bytes")[0];
    assert!((30000.0..31500.0).contains(&max), "{max}");
    // nodrop (Linux's flag): Not-ECT packets pass unmarked and only the limit drops them.
    let r = four_reno(
        r#"{"kind":"step","threshold":20,"limit":100,"nodrop":true}"#,
        false,
    );
    let q = &r.queues;
    assert_eq!((q.u64s("drops_forced")[0], q.u64s("marks")[0]), (0, 0));
    assert!(q.u64s("drops_overflow")[0] > 0);
    assert_eq!(q.f64s("max_len_pkts")[0], 100.0);
}
