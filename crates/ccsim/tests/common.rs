//! Helpers shared by the scenario tests: run a scenario and check the invariants that must
//! hold in every run (packet conservation, and the arena agreeing with the network).

use ccsim::results::Results;
use ccsim::scenario::schema::SeriesName;
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
