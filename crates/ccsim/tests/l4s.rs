//! L4S end to end (RFC 9330–9332): TCP Prague (ECT(1), Accurate ECN, paced) through a DualPI2
//! queue keeps its queueing delay near the 1 ms step while a CUBIC flow beside it sits near
//! the classic queue's 15 ms target, and the coupling gives the two about equal rates. Every
//! run is on the fast and the reference route, with identical results.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{on_both_routes, points};

/// Base RTT: 2 × (1 + 10 + 1) ms of propagation.
const BASE_RTT: f64 = 0.024;

/// Flows of the given `tcp` tables through a 100 Mb/s, 10 ms DualPI2 bottleneck for 20 s.
fn through_dualpi2(tcps: &[&str], extra_queue: &str) -> Results {
    let flows = tcps
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","tcp":{{{t}}}}}"#)
        })
        .collect::<Vec<_>>()
        .join(",");
    on_both_routes(&format!(
        r#"{{"name":"l4s","duration":20,"seed":1,
        "topology":{{"kind":"dumbbell","pairs":{},
            "bottleneck":{{"rate":"100Mbps","delay":"10ms",
                "queue":{{"kind":"dualpi2"{extra_queue}}}}}}},
        "flows":[{flows}],
        "trace":{{"series":["srtt","ecn_alpha"],"interval":"10ms"}}}}"#,
        tcps.len()
    ))
}

/// Mean queueing delay seen by flow `id` after 5 s: its smoothed RTT less the base RTT.
fn queueing_delay(r: &Results, id: u32) -> f64 {
    let v: Vec<f64> = points(r, SeriesName::Srtt, id)
        .into_iter()
        .filter(|p| p.0 >= 5.0)
        .map(|p| p.1)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64 - BASE_RTT
}

#[test]
fn prague_alone_keeps_about_a_millisecond_of_queue_at_full_rate() {
    let r = through_dualpi2(&[r#""cc":"prague""#], "");
    let d = queueing_delay(&r, 0);
    assert!(d < 0.003, "queueing delay {d}");
    assert!(r.queues.f64s("utilisation")[0] > 0.9);
    assert_eq!(r.flows.u64s("retransmits"), [0]);
    assert!(r.queues.u64s("marks")[0] > 1000);
    assert_eq!(
        r.queues.u64s("drops_overflow")[0] + r.queues.u64s("drops_early")[0],
        0
    );
}

#[test]
fn prague_and_cubic_share_evenly_each_in_its_own_queue() {
    let r = through_dualpi2(&[r#""cc":"prague""#, r#""cc":"cubic""#], "");
    let (l, c) = (queueing_delay(&r, 0), queueing_delay(&r, 1));
    assert!(l < 0.004, "Prague's queueing delay {l}");
    assert!((0.008..0.025).contains(&c), "CUBIC's queueing delay {c}");
    let g = r.flows.f64s("goodput_bps");
    let ratio = g[0] / g[1];
    assert!(
        (0.5..2.0).contains(&ratio),
        "Prague/CUBIC goodput {ratio}: {g:?}"
    );
    assert!(r.queues.f64s("utilisation")[0] > 0.9);
    // CUBIC's packets are Not-ECT: the classic queue drops them at p'².
    assert!(r.flows.u64s("retransmits")[1] > 0);
}

#[test]
fn without_the_coupling_prague_starves_cubic() {
    // k = 0.01: the L queue's marks no longer follow the classic queue's pressure, only the
    // 1 ms step; the scheduler serves the L queue first, and the classic queue's growing p'
    // falls on CUBIC alone (measured: 84 against 12 Mb/s, where coupled they get 58 and 38).
    let r = through_dualpi2(
        &[r#""cc":"prague""#, r#""cc":"cubic""#],
        r#","coupling_factor":0.01"#,
    );
    let g = r.flows.f64s("goodput_bps");
    let coupled = through_dualpi2(&[r#""cc":"prague""#, r#""cc":"cubic""#], "");
    let gc = coupled.flows.f64s("goodput_bps");
    assert!(g[1] / g[0] < 0.5 * gc[1] / gc[0], "{g:?} vs coupled {gc:?}");
}

#[test]
fn prague_falls_back_to_classic_ecn_with_a_receiver_without_accurate_ecn() {
    let r = through_dualpi2(&[r#""cc":"prague","receiver_accecn":false"#], "");
    // Still ECN-capable (ECT(1), in the L queue) and reducing once per marked round.
    assert!(r.flows.u64s("ecn_reductions")[0] > 10);
    assert_eq!(r.flows.u64s("retransmits"), [0]);
    assert!(queueing_delay(&r, 0) < 0.004);
}
