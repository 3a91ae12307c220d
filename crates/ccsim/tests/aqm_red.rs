//! RED end to end: several long Reno flows keep RED's average queue between its thresholds;
//! with ECN they see marks instead of drops at a similar goodput; ns-2's defaults configure
//! RED from the link.

mod common;

use ccsim::config::SeriesName;
use ccsim::net::link::LinkStats;
use ccsim::results::Results;
use common::{bulk_flows, dumbbell, mean_between, phased};

/// Four Reno flows (Linux defaults: SACK, delayed ACKs, handshake) over a 10 Mb/s, 20 ms
/// bottleneck with RED 5/15 packets, w_q 0.002, limit 100, for 30 s.
fn four_reno(ecn: bool) -> (Results, LinkStats, u64) {
    let queue = format!(
        r#"{{"kind":"red","min_th":5,"max_th":15,"q_weight":0.002,"limit":100,"ecn":{ecn}}}"#
    );
    let json = dumbbell(
        "linux",
        4,
        "10Mbps",
        20.0,
        &queue,
        30.0,
        &bulk_flows(4, &format!(r#""ecn":{ecn}"#)),
        r#""series":["avg_queue"],"interval":"10ms""#,
    );
    phased(&json, 5)
}

#[test]
fn average_queue_stays_between_the_thresholds_and_ecn_turns_drops_into_marks() {
    let (plain, plain_warm, plain_bytes) = four_reno(false);
    let (ecn, ecn_warm, ecn_bytes) = four_reno(true);
    for r in [&plain, &ecn] {
        // After the start-up transient (slow start overshoots before the slow average reacts),
        // RED holds its average between min_th and max_th.
        let avg = mean_between(r, SeriesName::AvgQueue, 0, 5.0, 30.0);
        assert!(avg > 5.0 && avg < 15.0, "average queue {avg}");
        let peak = common::points(r, SeriesName::AvgQueue, 0)
            .into_iter()
            .filter(|p| p.0 >= 5.0)
            .map(|p| p.1)
            .fold(0.0, f64::max);
        assert!(
            peak < 30.0,
            "average reached {peak}, the forced-drop region"
        );
        assert!(r.queues.f64s("utilisation")[0] > 0.9);
    }
    let steady = |r: &Results, w: &LinkStats, col: &str, f: fn(&LinkStats) -> u64| {
        r.queues.u64s(col)[0] - f(w)
    };
    // Without ECN: early drops, no marks.
    let drops = |r: &Results, w: &LinkStats| {
        steady(r, w, "drops_early", |s| s.drops_early)
            + steady(r, w, "drops_forced", |s| s.drops_forced)
            + steady(r, w, "drops_overflow", |s| s.drops_overflow)
    };
    let plain_drops = drops(&plain, &plain_warm);
    assert!(plain_drops > 100, "{plain_drops}");
    assert_eq!(plain.queues.u64s("marks")[0], 0);
    // With ECN: marks where there were drops, and no drops at all once started.
    let ecn_marks = steady(&ecn, &ecn_warm, "marks_early", |s| s.marks_early);
    assert!(ecn_marks > 100, "{ecn_marks}");
    assert_eq!(drops(&ecn, &ecn_warm), 0);
    assert_eq!(ecn.flows.u64s("ecn"), [1, 1, 1, 1]);
    // Every mark reaches a receiver, except those still in flight at the end.
    let ce: u64 = ecn.flows.u64s("ce_marks").iter().sum();
    let marks = ecn.queues.u64s("marks")[0];
    assert!(
        ce <= marks && ce + 10 >= marks,
        "{ce} CE received, {marks} marked"
    );
    assert!(ecn.flows.u64s("ecn_reductions").iter().all(|&n| n > 0));
    // … at a similar goodput over the same 25 s.
    let ratio = ecn_bytes as f64 / plain_bytes as f64;
    assert!((0.95..1.05).contains(&ratio), "goodput ratio {ratio}");
}

#[test]
fn ns2_defaults_configure_red_from_the_link() {
    // ns-2.35 defaults: byte mode with 500-byte mean packets, thresholds and w_q automatic.
    // At 10 Mb/s ptc = 2500/s, so min_th = 6.25 and max_th = 18.75 mean-size packets; the
    // average series is in those units. ns-2 agents: no handshake, window_ 20.
    let json = dumbbell(
        "ns2",
        4,
        "10Mbps",
        20.0,
        r#"{"kind":"red"}"#,
        30.0,
        &bulk_flows(4, ""),
        r#""series":["avg_queue"],"interval":"10ms""#,
    );
    let (r, _, _) = phased(&json, 5);
    let avg = mean_between(&r, SeriesName::AvgQueue, 0, 5.0, 30.0);
    assert!(
        avg > 6.25 && avg < 18.75,
        "average queue {avg} mean-size packets"
    );
    // use_mark_p keeps forced drops off; everything RED did was an early decision (or the
    // 25 000-byte physical limit).
    assert_eq!(r.queues.u64s("drops_forced")[0], 0);
    assert!(r.queues.u64s("drops_early")[0] > 0);
}

#[test]
fn bad_queue_parameters_name_the_path_and_what_is_accepted() {
    let load = |queue: &str| {
        let json = dumbbell(
            "linux",
            1,
            "10Mbps",
            20.0,
            queue,
            1.0,
            &bulk_flows(1, ""),
            "",
        );
        match ccsim::scenario::load(&json) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {queue}"),
        }
    };
    assert_eq!(
        load(r#"{"kind":"red","min_th":5,"max_th":4}"#),
        "topology.bottleneck.queue.max_th: must be greater than min_th (5)"
    );
    assert_eq!(
        load(r#"{"kind":"red","mode":"frames"}"#),
        "topology.bottleneck.queue.mode: unknown variant `frames`, expected `packets` or `bytes`"
    );
    assert_eq!(
        load(r#"{"kind":"pie","tupdate":0}"#),
        "topology.bottleneck.queue.tupdate: must be positive"
    );
    let e = load(r#"{"kind":"codel","targett":"5ms"}"#);
    assert!(
        e.starts_with("topology.bottleneck.queue.targett: unknown field `targett`"),
        "{e}"
    );
    let e = load(r#"{"kind":"sfq"}"#);
    assert!(e.contains(r#""red", "codel", "pie", "fq_codel""#), "{e}");
}
