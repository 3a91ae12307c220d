//! FQ-PIE end to end (`queue/fq_pie.rs`, Linux `sch_fq_pie`): each bulk TCP flow gets its own
//! queue, whose PIE holds that flow's queueing delay near the 15 ms target, and a low-rate flow
//! beside them waits for nothing but the packet on the wire and a quantum: isolated, where PIE's
//! single queue gives it the bulk flows' delay (and their drops). Every run is on the fast and
//! the reference route, which must give identical tables and series.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{bulk_flows, dumbbell, mean_between, on_both_routes, phased, points};

/// Four bulk Reno flows (Linux defaults) and a 500 kb/s stream of 200-byte UDP packets from
/// 1 s, through `queue` on a 40 Mb/s, 20 ms bottleneck for 40 s; RTT samples recorded.
fn bulk_and_low(queue: &str) -> Results {
    let flows = format!(
        r#"{},{{"kind":"cbr","name":"low","src":"s4","dst":"d4","rate":"500kbps","packet_size":200,"start":1}}"#,
        bulk_flows(4, "")
    );
    on_both_routes(&dumbbell(
        "linux",
        5,
        "40Mbps",
        20.0,
        queue,
        40.0,
        &flows,
        r#""series":["rtt"],"interval":"10ms""#,
    ))
}

/// Flow `i`'s mean queueing delay after the 10 s start-up: its mean RTT then, less its least
/// RTT (the path's base, seen before any queue built).
fn queueing(r: &Results, i: u32) -> f64 {
    let base = points(r, SeriesName::Rtt, i)
        .iter()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min);
    mean_between(r, SeriesName::Rtt, i, 10.0, 40.0) - base
}

/// One-way delay of a 200-byte packet with no queue: 1 + 20 + 1 ms of propagation plus
/// serialisation at 400, 40 and 400 Mb/s (0.004 + 0.04 + 0.004 ms).
const LOW_BASE: f64 = 0.022048;

#[test]
fn fq_pie_holds_each_bulk_queue_near_target_and_isolates_a_low_rate_flow() {
    let fq = bulk_and_low(r#"{"kind":"fq_pie"}"#);
    let pie = bulk_and_low(r#"{"kind":"pie"}"#);
    // Each bulk flow's own queue is held near PIE's 15 ms target.
    for i in 0..4 {
        let d = queueing(&fq, i);
        assert!((0.010..0.025).contains(&d), "flow {i}: {:.1} ms", d * 1e3);
    }
    // The low-rate flow is a sparse (new) queue each time: at most a packet on the wire and a
    // bulk quantum (0.3 ms each at 40 Mb/s) ahead of it, and nothing dropped.
    let low = |r: &Results, col: &str| r.flows.f64s(col)[4];
    assert!(
        low(&fq, "owd_mean_s") < LOW_BASE + 0.001,
        "{}",
        low(&fq, "owd_mean_s")
    );
    assert!(
        low(&fq, "owd_max_s") < LOW_BASE + 0.003,
        "{}",
        low(&fq, "owd_max_s")
    );
    assert_eq!(fq.flows.u64s("packets_dropped")[4], 0);
    // PIE's one queue: the low-rate flow waits behind the bulk flows' standing queue (PIE's
    // target on average) and shares their drops.
    assert!(
        low(&pie, "owd_mean_s") > LOW_BASE + 0.008,
        "{}",
        low(&pie, "owd_mean_s")
    );
    assert!(pie.flows.u64s("packets_dropped")[4] > 0);
    // Early drops only (the 10 240-packet limit is never reached), and a full link.
    assert!(fq.queues.u64s("drops_early")[0] > 100);
    assert_eq!(fq.queues.u64s("drops_overflow")[0], 0);
    assert!(fq.queues.f64s("utilisation")[0] > 0.95);
}

#[test]
fn with_ecn_the_bulk_flows_are_marked_once_started() {
    let flows = format!(
        r#"{},{{"kind":"cbr","name":"low","src":"s4","dst":"d4","rate":"500kbps","packet_size":200,"start":1}}"#,
        bulk_flows(4, r#""ecn":true"#)
    );
    let json = dumbbell(
        "linux",
        5,
        "40Mbps",
        20.0,
        r#"{"kind":"fq_pie","ecn":true}"#,
        40.0,
        &flows,
        "",
    );
    on_both_routes(&json);
    let (r, at_10s, _) = phased(&json, 10);
    let q = &r.queues;
    // Slow start overshoots until each queue's probability passes ecn_prob (10 %), where ECT
    // packets are dropped too (RFC 8033 §5.1); once started, the probabilities stay below it
    // and every signal is a mark.
    assert!(at_10s.drops_early > 0);
    assert_eq!(q.u64s("drops_early")[0], at_10s.drops_early);
    assert!(q.u64s("marks_early")[0] - at_10s.marks_early > 30);
    assert!(r.flows.u64s("ecn_reductions")[..4].iter().all(|&n| n > 10));
    assert_eq!(q.u64s("drops_overflow")[0], 0);
}
