//! PIE end to end: long Reno flows through PIE queue for about its 15 ms target delay.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{bulk_flows, dumbbell, phased, points, reno_through};

/// Four Reno flows over 10 Mb/s, 20 ms for 30 s; the sojourn time sampled every 10 ms.
fn four_flows(queue: &str, ecn: bool) -> Results {
    reno_through(queue, 4, ecn)
}

/// Mean and median sojourn (seconds) after the start-up.
fn delay(r: &Results) -> (f64, f64) {
    let mut v: Vec<f64> = points(r, SeriesName::Sojourn, 0)
        .into_iter()
        .filter(|p| p.0 >= 5.0)
        .map(|p| p.1)
        .collect();
    v.sort_by(f64::total_cmp);
    (v.iter().sum::<f64>() / v.len() as f64, v[v.len() / 2])
}

#[test]
fn pie_holds_the_queueing_delay_near_its_target() {
    for queue in [
        r#"{"kind":"pie"}"#,
        r#"{"kind":"pie","dq_rate_estimator":true}"#,
    ] {
        let r = four_flows(queue, false);
        let (mean, median) = delay(&r);
        // Target 15 ms.
        assert!((0.010..0.022).contains(&mean), "{queue}: mean {mean}");
        assert!((0.010..0.022).contains(&median), "{queue}: median {median}");
        assert!(r.queues.u64s("drops_early")[0] > 0);
        assert_eq!(r.queues.u64s("drops_overflow")[0], 0);
        assert!(r.queues.f64s("utilisation")[0] > 0.93);
    }
}

#[test]
fn pie_with_ecn_marks_while_the_probability_is_below_ten_percent() {
    // In slow start the queue outgrows the target and the probability passes mark_ecnth
    // (10 %): PIE then drops ECN-capable packets too (RFC 8033 §5.1). Once the flows are in
    // congestion avoidance the probability stays below it and every signal is a mark.
    let json = dumbbell(
        "linux",
        4,
        "10Mbps",
        20.0,
        r#"{"kind":"pie","ecn":true}"#,
        30.0,
        &bulk_flows(4, r#""ecn":true"#),
        r#""series":["sojourn"],"interval":"10ms""#,
    );
    let (r, warm, _) = phased(&json, 5);
    assert!(warm.drops_early > 0, "start-up drops above mark_ecnth");
    let marks = r.queues.u64s("marks_early")[0] - warm.marks_early;
    let drops = r.queues.u64s("drops_early")[0] - warm.drops_early;
    assert!(marks > 100, "{marks}");
    assert_eq!(drops, 0);
    let (mean, _) = delay(&r);
    assert!((0.010..0.022).contains(&mean), "mean {mean}");
}
