//! Goodput and throughput are taken over the interval in which the bytes were delivered: from
//! the flow's start to the later of the end of its active period and its last data arrival
//! (`results.rs`). Issue 33, defect 9: a 5 Mb/s CBR stopped at 0.2 s over a 64 kb/s
//! bottleneck, whose queue drains for seconds after the stop, read 268 kb/s.

mod common;

use ccsim::results::Results;
use common::{dumbbell, run_deterministic};

const BOTTLENECK_BPS: f64 = 64_000.0;

/// One 5 Mb/s CBR from s0 to d0 that stops at 0.2 s, and one bulk Reno flow s1 → d1 for the
/// whole run, over a 64 kb/s, 10 ms bottleneck with a queue of 400 packets (room for all the
/// CBR sends before its stop), for `duration` seconds.
fn stopped_cbr(duration: f64) -> Results {
    let flows = r#"{"kind":"cbr","name":"c","src":"s0","dst":"d0","rate":"5Mbps","stop":0.2},
        {"kind":"tcp","name":"t","src":"s1","dst":"d1","start":0.5,"tcp":{"cc":"reno"}}"#;
    run_deterministic(&dumbbell(
        "linux",
        2,
        "64kbps",
        10.0,
        r#"{"kind":"droptail","limit":400}"#,
        duration,
        flows,
        "",
    ))
}

fn col(r: &Results, name: &str) -> Vec<f64> {
    r.flows.f64s(name).to_vec()
}

#[test]
fn goodput_of_a_stopped_flow_stays_under_the_link_rate() {
    for duration in [6.0, 40.0] {
        let r = stopped_cbr(duration);
        let (good, thru) = (col(&r, "goodput_bps"), col(&r, "throughput_bps"));
        let (start, end, last) = (
            col(&r, "start_s"),
            col(&r, "end_s"),
            col(&r, "last_arrival_s"),
        );
        let bytes = r.flows.u64s("bytes_delivered");
        // The CBR's bytes drain long after its stop: the bottleneck carries both flows' bytes.
        assert_eq!(end[0], 0.2);
        assert!(last[0] > 2.0, "the queue drains for seconds: {}", last[0]);
        for f in 0..2 {
            let interval = last[f].max(end[f]) - start[f];
            let expect = bytes[f] as f64 * 8.0 / interval;
            assert!((good[f] - expect).abs() <= 1e-9 * expect, "flow {f}");
            assert!(good[f] <= BOTTLENECK_BPS, "flow {f}: goodput {}", good[f]);
            assert!(
                thru[f] <= BOTTLENECK_BPS,
                "flow {f}: throughput {}",
                thru[f]
            );
        }
        assert!(good[0] + good[1] > 0.5 * BOTTLENECK_BPS, "{good:?}");
    }
}

#[test]
fn a_flow_active_to_the_end_keeps_its_active_period() {
    // The Reno flow runs to the end of the run: its last arrival is before the end, and its
    // goodput is over its whole active period (a stall at the end counts against it).
    let r = stopped_cbr(40.0);
    let (start, end, last) = (
        col(&r, "start_s")[1],
        col(&r, "end_s")[1],
        col(&r, "last_arrival_s")[1],
    );
    assert_eq!(end, 40.0);
    assert!(last <= end);
    let bytes = r.flows.u64s("bytes_delivered")[1] as f64;
    assert_eq!(col(&r, "goodput_bps")[1], bytes * 8.0 / (end - start));
}
