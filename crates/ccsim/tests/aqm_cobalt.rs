//! COBALT end to end (`queue/cobalt.rs`, CAKE's AQM as one queue): TCP flows see CoDel's
//! behaviour, their queue held near the 5 ms target; an unresponsive flood, which CoDel's
//! slowly rising signal rate cannot catch (its queue stays at the limit), raises BLUE's drop
//! probability at every overflow until the queue drains and stays short. Every run is on the
//! fast and the reference route, which must give identical tables and series.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{bulk_flows, dumbbell, mean_between, on_both_routes, points};

/// Four bulk Reno flows (ECN on or off) through `queue` on a 10 Mb/s, 20 ms bottleneck, 30 s.
fn four_reno(queue: &str, ecn: bool) -> Results {
    on_both_routes(&dumbbell(
        "linux",
        4,
        "10Mbps",
        20.0,
        queue,
        30.0,
        &bulk_flows(4, &format!(r#""ecn":{ecn}"#)),
        r#""series":["sojourn"],"interval":"10ms""#,
    ))
}

#[test]
fn tcp_flows_are_held_near_codels_target() {
    let r = four_reno(r#"{"kind":"cobalt"}"#, false);
    let sojourn = mean_between(&r, SeriesName::Sojourn, 0, 5.0, 30.0);
    assert!((0.002..0.010).contains(&sojourn), "{sojourn}");
    let q = &r.queues;
    assert!(q.u64s("drops_early")[0] > 100);
    assert_eq!(q.u64s("drops_overflow")[0], 0);
    assert!(q.f64s("utilisation")[0] > 0.9);
    // ECN flows: CoDel's signals become marks; BLUE never acts without an overflow.
    let r = four_reno(r#"{"kind":"cobalt"}"#, true);
    let q = &r.queues;
    assert!(q.u64s("marks_early")[0] > 100);
    assert_eq!(q.u64s("drops_overflow")[0], 0);
    assert!(q.u64s("drops_early")[0] <= 4, "only Not-ECT SYNs");
    assert!(r.flows.u64s("ecn_reductions").iter().all(|&n| n > 10));
}

/// A 40 Mb/s constant-bit-rate flood of 1500-byte packets into a 10 Mb/s, 20 ms bottleneck
/// with `queue` (1000 packets), 30 s; the queue sampled every 10 ms.
fn flood(queue: &str) -> Results {
    let flows =
        r#"{"kind":"cbr","name":"flood","src":"s0","dst":"d0","rate":"40Mbps","packet_size":1500}"#;
    on_both_routes(&dumbbell(
        "linux",
        1,
        "10Mbps",
        20.0,
        queue,
        30.0,
        flows,
        r#""series":["queue"],"interval":"10ms""#,
    ))
}

#[test]
fn blue_keeps_an_unresponsive_flood_from_holding_the_queue_full() {
    let cobalt = flood(r#"{"kind":"cobalt","limit":1000}"#);
    let codel = flood(r#"{"kind":"codel","limit":1000}"#);
    // Share of the samples after 5 s with the queue at 900 packets or more, and the mean.
    let full = |r: &Results| {
        let s: Vec<f64> = points(r, SeriesName::Queue, 0)
            .into_iter()
            .filter(|p| p.0 >= 5.0)
            .map(|p| p.1)
            .collect();
        let n = s.len() as f64;
        let at_limit = s.iter().filter(|&&v| v >= 900.0).count() as f64 / n;
        (at_limit, s.iter().sum::<f64>() / n)
    };
    // CoDel: one drop per interval/√count cannot match three excess packets in four; the queue
    // stays at its limit and most of the excess is tail-dropped.
    let (at_limit, _) = full(&codel);
    assert!(at_limit > 0.95, "CoDel at the limit {at_limit}");
    let q = &codel.queues;
    assert!(q.u64s("drops_overflow")[0] > q.u64s("drops_early")[0]);
    // COBALT: each overflow (at most one per 5 ms) adds 1/256 to p_drop until departures are
    // dropped at about 1 − 10/40 = 3/4; the queue drains within seconds and stays short.
    let (at_limit, mean) = full(&cobalt);
    assert_eq!(at_limit, 0.0);
    assert!(mean < 50.0, "COBALT mean queue {mean}");
    let q = &cobalt.queues;
    assert!(q.u64s("drops_early")[0] > 20 * q.u64s("drops_overflow")[0]);
    for r in [&cobalt, &codel] {
        assert!(r.queues.f64s("utilisation")[0] > 0.99);
    }
}
