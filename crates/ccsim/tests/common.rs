//! Helpers shared by the scenario tests: run a scenario and check the invariants that must
//! hold in every run (packet conservation, and the arena agreeing with the network).

// Each test binary includes this module and uses a subset of it.
#![allow(dead_code)]

use ccsim::config::SeriesName;
use ccsim::net::link::LinkStats;
use ccsim::results::Results;
use ccsim::time::SimTime;
use ccsim::trace::Series;

pub fn run(json: &str) -> Results {
    let mut sim = ccsim::scenario::load(json).unwrap_or_else(|e| panic!("invalid scenario: {e}"));
    sim.run();
    let c = sim.counters;
    let inside = sim.packets_in_network();
    assert_eq!(
        c.injected,
        c.consumed + c.dropped + inside,
        "packet conservation: {c:?}, in network {inside}"
    );
    assert_eq!(
        sim.packets_live() as u64,
        inside,
        "arena holds exactly the packets in the network"
    );
    ccsim::results::collect(&mut sim)
}

pub fn series(r: &Results, name: SeriesName) -> &Series {
    &r.series
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("series {name:?} not recorded"))
        .1
}

/// (time_s, value) of one id of a series.
pub fn points(r: &Results, name: SeriesName, id: u32) -> Vec<(f64, f64)> {
    let s = series(r, name);
    (0..s.len())
        .filter(|&i| s.id[i] == id)
        .map(|i| (s.time[i] as f64 * 1e-9, s.value[i]))
        .collect()
}

/// A dumbbell with one pair: bottleneck `rate`/`delay`, access 10× rate and 1 ms.
pub fn one_flow(
    rate: &str,
    bdelay_ms: f64,
    queue: u32,
    duration: f64,
    tcp: &str,
    extra_bottleneck: &str,
    trace: &str,
) -> String {
    format!(
        r#"{{"name":"t","duration":{duration},"seed":1,
        "topology":{{"kind":"dumbbell","pairs":1,
            "bottleneck":{{"rate":"{rate}","delay":"{bdelay_ms}ms","queue":{{"kind":"droptail","limit":{queue}}}{extra_bottleneck}}}}},
        "flows":[{{"kind":"tcp","name":"f","src":"s0","dst":"d0","tcp":{{{tcp}}}}}],
        "trace":{{{trace}}}}}"#
    )
}

/// Runs a scenario twice and checks that the two runs agree exactly (seed determinism), then
/// returns the results of the first.
pub fn run_deterministic(json: &str) -> Results {
    let a = run(json);
    let b = run(json);
    assert_eq!(
        a.meta.events, b.meta.events,
        "event count differs between runs"
    );
    assert_same_tables(&a, &b, "second run");
    a
}

/// Asserts that every column of the flow and queue tables of `a` and `b` is identical;
/// `what` names `a` in the message.
pub fn assert_same_tables(a: &Results, b: &Results, what: &str) {
    for (table_a, table_b) in [(&a.flows, &b.flows), (&a.queues, &b.queues)] {
        for ((name, ca), (_, cb)) in table_a.columns.iter().zip(&table_b.columns) {
            assert_eq!(
                format!("{ca:?}"),
                format!("{cb:?}"),
                "{what}: column {name} differs"
            );
        }
    }
}

/// Runs `json` (a scenario object) on the fast route and on the reference route (`"engine":
/// "reference"`: every packet by its own events), asserts that both give identical tables and
/// series, and returns the fast route's results.
pub fn on_both_routes(json: &str) -> Results {
    let fast = run(json);
    let reference = run(&json.replacen('{', r#"{"engine":"reference","#, 1));
    // The fast route skips events (express queues, cut-through): fewer shows it was taken.
    assert!(
        fast.meta.events < reference.meta.events,
        "both runs took one route"
    );
    assert_same_tables(&reference, &fast, "reference route");
    assert_eq!(reference.series.len(), fast.series.len());
    for ((n, a), (_, b)) in reference.series.iter().zip(&fast.series) {
        assert_eq!(
            (&a.time, &a.id, &a.value),
            (&b.time, &b.id, &b.value),
            "reference route: series {n:?} differs"
        );
    }
    fast
}

/// A dumbbell scenario: `pairs` pairs, a bottleneck of `rate`/`delay_ms` with queue `queue`
/// (JSON), the profile's access links, the flows given as JSON, and a trace spec.
#[allow(clippy::too_many_arguments)]
pub fn dumbbell(
    profile: &str,
    pairs: u32,
    rate: &str,
    delay_ms: f64,
    queue: &str,
    duration: f64,
    flows: &str,
    trace: &str,
) -> String {
    format!(
        r#"{{"name":"t","duration":{duration},"seed":1,"defaults":"{profile}",
        "topology":{{"kind":"dumbbell","pairs":{pairs},
            "bottleneck":{{"rate":"{rate}","delay":"{delay_ms}ms","queue":{queue}}}}},
        "flows":[{flows}],
        "trace":{{{trace}}}}}"#
    )
}

/// `pairs` bulk Reno flows (ECN on or off) through `queue` on a 10 Mb/s, 20 ms dumbbell for
/// 30 s, the sojourn time sampled every 10 ms; checked for determinism (the AQM tests' run).
pub fn reno_through(queue: &str, pairs: u32, ecn: bool) -> Results {
    run_deterministic(&dumbbell(
        "linux",
        pairs,
        "10Mbps",
        20.0,
        queue,
        30.0,
        &bulk_flows(pairs, &format!(r#""ecn":{ecn}"#)),
        r#""series":["sojourn"],"interval":"10ms""#,
    ))
}

/// `n` bulk TCP flows s{i} → d{i}, started 100 ms apart, with the given `tcp` settings.
pub fn bulk_flows(n: u32, tcp: &str) -> String {
    (0..n)
        .map(|i| {
            format!(
                r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","start":{},"tcp":{{{tcp}}}}}"#,
                0.1 * i as f64
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Mean of the values of one id of a series in `[from, to)` seconds.
pub fn mean_between(r: &Results, name: SeriesName, id: u32, from: f64, to: f64) -> f64 {
    let v: Vec<f64> = points(r, name, id)
        .into_iter()
        .filter(|p| p.0 >= from && p.0 < to)
        .map(|p| p.1)
        .collect();
    assert!(!v.is_empty(), "no {name:?} samples in [{from}, {to})");
    v.iter().sum::<f64>() / v.len() as f64
}

/// Runs `json` to `warm` seconds, notes the bottleneck's counters and the bytes delivered,
/// then to the end. Checks packet conservation at both points and determinism (a second run
/// gives identical counters). Returns the results, the counters at `warm` and the bytes
/// delivered after `warm`.
pub fn phased(json: &str, warm: u64) -> (Results, LinkStats, u64) {
    let once = || {
        let mut sim = ccsim::scenario::load(json).unwrap();
        let conserved = |sim: &ccsim::Simulation| {
            let c = sim.counters;
            assert_eq!(
                c.injected,
                c.consumed + c.dropped + sim.packets_in_network()
            );
            assert_eq!(sim.packets_live() as u64, sim.packets_in_network());
        };
        sim.run_until(SimTime::from_secs(warm));
        conserved(&sim);
        let at_warm = sim.links[0].stats(sim.now);
        let n = sim.flows.len();
        let d0: u64 = (0..n).map(|i| sim.delivered_bytes(i)).sum();
        sim.run();
        conserved(&sim);
        let d1: u64 = (0..n).map(|i| sim.delivered_bytes(i)).sum();
        (ccsim::results::collect(&mut sim), at_warm, d1 - d0)
    };
    let a = once();
    let b = once();
    assert_eq!(format!("{:?}", a.0.queues), format!("{:?}", b.0.queues));
    assert_eq!(format!("{:?}", a.0.flows), format!("{:?}", b.0.flows));
    a
}
