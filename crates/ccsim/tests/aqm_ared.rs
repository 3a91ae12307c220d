//! Adaptive RED end to end (Floyd, Gummadi & Shenker 2001; `queue/red/adaptive.rs`): as the
//! load grows from 5 to 50 Reno flows, Adaptive RED moves max_p so that the average queue stays
//! in its target band, [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)], where
//! RED with a fixed max_p sits below the band with few flows and above max_th with many. Every
//! run is on the fast route (RED's express line, which Adaptive RED shares) and the reference
//! route, which must give identical tables and series.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{dumbbell, mean_between, on_both_routes};

/// Linux profile at 10 Mb/s with 1500-byte packets: C = 10⁷/12 000 = 833.3 packets/s, so
/// Adaptive RED's automatic thresholds are min_th = max(5, 0.005·C/2 = 2.08) = 5 and
/// max_th = 15, and the band is [5 + 0.4·10, 5 + 0.6·10] = [9, 11].
const BAND: (f64, f64) = (9.0, 11.0);

/// Five bulk Reno flows from the start and 45 more from 40 s, through `queue` on a 10 Mb/s,
/// 40 ms bottleneck for 100 s; the average queue sampled every 10 ms.
fn five_then_fifty(queue: &str) -> Results {
    let flows: Vec<String> = (0..50)
        .map(|i| {
            let start = if i < 5 {
                0.1 * i as f64
            } else {
                40.0 + 0.1 * (i - 5) as f64
            };
            format!(r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","start":{start}}}"#)
        })
        .collect();
    on_both_routes(&dumbbell(
        "linux",
        50,
        "10Mbps",
        40.0,
        queue,
        100.0,
        &flows.join(","),
        r#""series":["avg_queue"],"interval":"10ms""#,
    ))
}

#[test]
fn adaptive_red_holds_the_average_in_its_band_as_the_load_grows() {
    // The same thresholds and EWMA weight (the paper's 1 − exp(−1/C)) for plain RED, whose
    // max_p stays at 0.1.
    let w = 1.0 - (-1.0f64 / (1e7 / 12_000.0)).exp();
    // The paper's RED (packet mode, gentle, as ns-2 runs it), not the linux profile's
    // `sch_red` defaults.
    let paper = r#""mode":"packets","gentle":true,"wait":true,"harddrop":true"#;
    let red = five_then_fifty(&format!(
        r#"{{"kind":"red","min_th":5,"max_th":15,"q_weight":{w},{paper}}}"#
    ));
    let ared = five_then_fifty(&format!(r#"{{"kind":"red","adaptive":true,{paper}}}"#));
    // Windows that leave Adaptive RED time to adapt: max_p moves at most once per 0.5 s, by
    // ×0.9 or +0.01, so from 0.1 it needs about 20 steps (10 s) either way.
    let few = |r: &Results| mean_between(r, SeriesName::AvgQueue, 0, 20.0, 40.0);
    let many = |r: &Results| mean_between(r, SeriesName::AvgQueue, 0, 70.0, 100.0);
    let (lo, hi) = BAND;
    for (what, avg) in [("5 flows", few(&ared)), ("50 flows", many(&ared))] {
        assert!(
            (lo..=hi).contains(&avg),
            "Adaptive RED, {what}: average {avg:.2} outside [{lo}, {hi}]"
        );
    }
    // Fixed max_p: 5 flows need little dropping, so the average sits below the band; 50 flows
    // need much more, which RED only reaches with the average past max_th.
    let (few_red, many_red) = (few(&red), many(&red));
    assert!(few_red < lo - 1.0, "RED, 5 flows: average {few_red:.2}");
    assert!(many_red > 15.0, "RED, 50 flows: average {many_red:.2}");
    for r in [&red, &ared] {
        assert!(r.queues.f64s("utilisation")[0] > 0.95);
        assert_eq!(r.queues.u64s("drops_overflow")[0], 0);
    }
}
