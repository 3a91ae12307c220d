//! The express path of DropTail links (`net/fifo.rs`) against the general path
//! (`net/link.rs`): the same scenario run both ways must give identical results, to the last
//! counter, series point and event.

mod common;

use ccsim::results::Results;
use common::{bulk_flows, dumbbell, one_flow};

fn run_with(json: &str, express: bool) -> Results {
    let mut sim = ccsim::scenario::load(json).unwrap_or_else(|e| panic!("invalid scenario: {e}"));
    for l in &mut sim.links {
        if express {
            l.use_express();
        } else {
            l.use_general();
        }
    }
    // Check conservation part-way, when packets are queued and on the wire on both paths.
    sim.run_until(ccsim::time::SimTime(sim.end.0 / 2));
    let c = sim.counters;
    assert_eq!(
        c.injected,
        c.consumed + c.dropped + sim.packets_in_network()
    );
    assert_eq!(sim.packets_live() as u64, sim.packets_in_network());
    sim.run();
    ccsim::results::collect(&mut sim)
}

fn assert_same(json: &str) {
    let (e, g) = (run_with(json, true), run_with(json, false));
    assert_eq!(e.meta.events, g.meta.events, "event counts differ");
    assert_eq!(e.meta.packets_dropped, g.meta.packets_dropped);
    for (te, tg) in [(&e.flows, &g.flows), (&e.queues, &g.queues)] {
        for ((name, ce), (_, cg)) in te.columns.iter().zip(&tg.columns) {
            assert_eq!(
                format!("{ce:?}"),
                format!("{cg:?}"),
                "column {name} differs"
            );
        }
    }
    assert_eq!(e.series.len(), g.series.len());
    for ((n, se), (_, sg)) in e.series.iter().zip(&g.series) {
        assert_eq!(
            (&se.time, &se.id),
            (&sg.time, &sg.id),
            "series {n:?} differs"
        );
        assert_eq!(se.value, sg.value, "series {n:?} differs");
    }
}

#[test]
fn lossy_sack_flow_with_wire_and_ack_losses() {
    let loss = r#","loss":{"kind":"bernoulli","p":0.02},"loss_reverse":{"kind":"gilbert_elliott","p_gb":0.01,"p_bg":0.3,"loss_bad":0.5}"#;
    let trace = r#""series":["cwnd","queue","queue_bytes","sojourn"],"interval":"5ms""#;
    assert_same(&one_flow(
        "20Mbps",
        20.0,
        60,
        20.0,
        r#""recovery":"sack""#,
        loss,
        trace,
    ));
}

#[test]
fn competing_flows_through_a_byte_limited_queue_and_an_outage() {
    let queue = r#"{"kind":"droptail","limit_bytes":"30kB"}"#;
    let flows = bulk_flows(4, r#""cc":"cubic""#);
    let mut json = dumbbell(
        "linux",
        4,
        "50Mbps",
        10.0,
        queue,
        15.0,
        &flows,
        r#""series":["queue"],"interval":"10ms""#,
    );
    json = json.replace(
        r#""queue":{"kind":"droptail","limit_bytes":"30kB"}"#,
        r#""queue":{"kind":"droptail","limit_bytes":"30kB"},"loss":{"kind":"outage","intervals":[["5s","5.3s"]]}"#,
    );
    assert_same(&json);
}

#[test]
fn ns2_profile_with_each_loss_recovery() {
    let flows = ["reno", "newreno", "sack"]
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","start":{},"tcp":{{"recovery":"{r}"}}}}"#,
                0.1 * i as f64
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    let json = dumbbell(
        "ns2",
        3,
        "5Mbps",
        30.0,
        r#"{"kind":"droptail","limit":20}"#,
        30.0,
        &flows,
        "",
    );
    assert_same(&json);
}
