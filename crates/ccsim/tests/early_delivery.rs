//! Delivering packets to their receivers as they are handed to the last hop (`sim/handover.rs`)
//! against delivering each by its arrival event: every counter and series point must match;
//! only the number of events differs.

mod common;

use ccsim::net::link::Fed;
use ccsim::results::Results;
use ccsim::sim::{FlowSlot, Simulation};
use common::{assert_same_tables, bulk_flows, dumbbell};

fn load(json: &str) -> Simulation {
    ccsim::scenario::load(json).unwrap_or_else(|e| panic!("invalid scenario: {e}"))
}

/// Runs `sim`, checking packet conservation half-way and at the end.
fn finish(mut sim: Simulation) -> (Results, u64) {
    for t in [ccsim::time::SimTime(sim.end().0 / 2), sim.end()] {
        sim.run_until(t);
        let c = sim.counters;
        let inside = sim.packets_in_network();
        assert_eq!(c.injected, c.consumed + c.dropped + inside, "at {t}");
        assert_eq!(sim.packets_live() as u64, inside, "at {t}");
    }
    let left = sim.packets_in_network();
    (ccsim::results::collect(&mut sim), left)
}

/// Runs `json` as planned (with the directions `delivering` names, from -> to, delivering
/// early) and with every packet forwarded by its event, and requires the same results.
/// Returns the planned run's results and the packets it left in the network.
fn assert_same(json: &str, delivering: &[(&str, &str)]) -> (Results, u64) {
    let sim = load(json);
    for (a, b) in delivering {
        assert_eq!(role(&sim, a, b), Fed::Delivering, "{a} -> {b}");
    }
    let (early, left) = finish(sim);
    let mut by_events = load(json);
    by_events.set_cut_through(false);
    let (events, _) = finish(by_events);
    assert!(
        early.meta.events < events.meta.events,
        "delivering saves events"
    );
    assert_eq!(early.meta.packets_dropped, events.meta.packets_dropped);
    assert_same_tables(&early, &events, "early delivery");
    assert_eq!(early.series.len(), events.series.len());
    for ((n, a), (_, b)) in early.series.iter().zip(&events.series) {
        assert_eq!(
            (&a.time, &a.id, &a.value),
            (&b.time, &b.id, &b.value),
            "{n:?}"
        );
    }
    (early, left)
}

/// The fed role of the direction `a -> b`.
fn role(sim: &Simulation, a: &str, b: &str) -> Fed {
    let names = &sim.names.nodes;
    let l = sim
        .links
        .iter()
        .find(|l| &names[l.from as usize] == a && &names[l.to as usize] == b)
        .unwrap_or_else(|| panic!("no direction {a} -> {b}"));
    l.fed
}

#[test]
fn receivers_with_a_short_delayed_ack_timer_as_with_arrival_events() {
    // 1500-byte packets leave the 12 Mb/s bottleneck 1 ms apart, and the receivers' delayed-ACK
    // timer is 1 ms: it expires between packets whenever the queue is empty, and exactly as the
    // next packet arrives whenever it is not, where the timer's event comes first (the event
    // queue orders timers before arrivals at one instant). Finite transfers of an odd number of
    // segments end on a timer; the senders' windows are sampled (senders only: allowed).
    let tcp = r#""cc":"cubic","recovery":"sack","delayed_ack_timeout":"1ms""#;
    let flows = [
        bulk_flows(2, tcp),
        format!(
            r#"{{"kind":"tcp","name":"short","src":"s2","dst":"d2","start":0.3,"size":"21720B","tcp":{{{tcp}}}}}"#
        ),
        r#"{"kind":"tcp","name":"stops","src":"s3","dst":"d3","start":0.5,"stop":3.1,"tcp":{"recovery":"newreno","delayed_ack_timeout":"1ms"}}"#.to_string(),
    ]
    .join(",");
    let queue = r#"{"kind":"droptail","limit":25}"#;
    let trace = r#""series":["cwnd","srtt"],"interval":"1ms""#;
    let json = dumbbell("linux", 4, "12Mbps", 10.0, queue, 6.37, &flows, trace);
    let d: Vec<String> = (0..4).map(|i| format!("d{i}")).collect();
    let delivering: Vec<(&str, &str)> = d.iter().map(|d| ("right", d.as_str())).collect();
    let (r, left) = assert_same(&json, &delivering);
    assert!(r.flows.u64s("timeouts").iter().sum::<u64>() < 10);
    assert!(left > 0, "the run ends with packets on their way");
}

#[test]
fn a_receivers_access_link_that_drops_as_with_arrival_events() {
    // The receiver's access link is the slowest hop, with a short queue: it drops the packets
    // slow start sends too fast, as they are handed to it. From 4 s a CBR flow to n2 loads the
    // hop before it, where RED marks the flow's packets, and the receiver echoes the marks.
    let json = r#"{"name":"t","duration":8.2,"seed":5,"defaults":"linux",
        "topology":{"kind":"chain","links":[
            {"rate":"100Mbps","delay":"2ms"},
            {"rate":"40Mbps","delay":"5ms",
             "queue":{"kind":"red","min_th":5,"max_th":15,"limit":40,"ecn":true}},
            {"rate":"15Mbps","delay":"1ms","queue":{"kind":"droptail","limit":6}}]},
        "flows":[
            {"kind":"tcp","name":"a","src":"n0","dst":"n3","tcp":{"recovery":"newreno","ecn":true}},
            {"kind":"cbr","name":"u","src":"n0","dst":"n2","rate":"30Mbps","start":4,"stop":6},
            {"kind":"tcp","name":"b","src":"n0","dst":"n3","start":0.4}]}"#;
    let two_receivers = load(json);
    assert_eq!(
        role(&two_receivers, "n2", "n3"),
        Fed::Direct,
        "two receivers"
    );
    let one = json.replace(
        r#",
            {"kind":"tcp","name":"b","src":"n0","dst":"n3","start":0.4}"#,
        "",
    );
    let (r, _) = assert_same(&one, &[("n2", "n3")]);
    let sim = load(&one);
    let last = sim
        .links
        .iter()
        .position(|l| l.fed == Fed::Delivering)
        .unwrap();
    assert!(
        r.queues.u64s("drops_overflow")[last] > 0,
        "the last hop drops"
    );
    assert!(r.flows.u64s("ecn_reductions")[0] > 0, "marks are echoed");
}

#[test]
fn udp_sinks_take_their_packets_early() {
    // A jittered CBR source, an on-off source and a TCP flow overload a 10 Mb/s bottleneck
    // with a 20-packet queue; the CBR source stops at 2.5 s. Each sink is its host's one
    // endpoint: the three receivers' access links deliver early, the UDP sources' hosts take
    // nothing early (their flows' state moves by their own events).
    let flows = [
        r#"{"kind":"cbr","name":"c","src":"s0","dst":"d0","rate":"6Mbps","random":true,"stop":2.5}"#,
        r#"{"kind":"onoff","name":"o","src":"s1","dst":"d1","rate":"8Mbps","on":"30ms","off":"30ms","packet_size":1000}"#,
        r#"{"kind":"tcp","name":"t","src":"s2","dst":"d2","start":0.2}"#,
    ]
    .join(",");
    let queue = r#"{"kind":"droptail","limit":20}"#;
    let json = dumbbell("linux", 3, "10Mbps", 10.0, queue, 4.0, &flows, "");
    let receivers = [("right", "d0"), ("right", "d1"), ("right", "d2")];
    let (r, _) = assert_same(&json, &receivers);
    let sim = load(&json);
    for s in ["s0", "s1"] {
        assert_ne!(role(&sim, "left", s), Fed::Delivering, "{s}");
    }
    let delivered = r.flows.u64s("packets_delivered");
    assert!(delivered.iter().all(|&n| n > 100), "{delivered:?}");
    assert!(r.meta.packets_dropped > 0, "the bottleneck drops");
    // One event per UDP packet (its sending) rather than two.
    let udp: u64 = delivered[..2].iter().sum();
    assert!(r.meta.events < udp * 3 / 2, "{} events", r.meta.events);
    // Throughput bins read the sinks as the clock passes: then no receiver's or sink's
    // direction delivers early (the TCP sender's still does).
    let binned = json.replace(r#""trace":{}"#, r#""trace":{"series":["throughput"]}"#);
    assert_same(&binned, &[("left", "s2")]);
    let sim = load(&binned);
    for (a, b) in receivers {
        assert_ne!(role(&sim, a, b), Fed::Delivering, "{a} -> {b}");
    }
}

#[test]
fn only_a_lone_receiver_whose_acks_leave_alone_takes_its_packets_early() {
    // d0: a receiver alone, ACKs over a plain access link: delivering. d1: a receiver and the
    // sender of a flow back. d2: two receivers. d3: a receiver whose ACKs leave over a lossy
    // link (kept to plain lines: `sim/handover.rs`). m: a receiver that another flow's path crosses.
    let json = r#"{"name":"t","duration":3,"seed":2,"defaults":"linux",
        "topology":{"kind":"explicit",
          "nodes":["s","r","m","d0","d1","d2","d3","e"],
          "links":[
            {"name":"a","a":"s","b":"r","rate":"100Mbps","delay":"1ms"},
            {"name":"b","a":"r","b":"m","rate":"50Mbps","delay":"2ms"},
            {"name":"c","a":"m","b":"e","rate":"50Mbps","delay":"1ms"},
            {"name":"x0","a":"r","b":"d0","rate":"100Mbps","delay":"1ms"},
            {"name":"x1","a":"r","b":"d1","rate":"100Mbps","delay":"1ms"},
            {"name":"x2","a":"r","b":"d2","rate":"100Mbps","delay":"1ms"},
            {"name":"x3","a":"r","b":"d3","rate":"100Mbps","delay":"1ms",
             "loss_reverse":{"kind":"bernoulli","p":0.01}}]},
        "flows":[
            {"kind":"tcp","name":"f0","src":"s","dst":"d0"},
            {"kind":"tcp","name":"f1","src":"s","dst":"d1"},
            {"kind":"tcp","name":"back","src":"d1","dst":"s","start":0.2},
            {"kind":"tcp","name":"f2","src":"s","dst":"d2"},
            {"kind":"tcp","name":"g2","src":"s","dst":"d2","start":0.1},
            {"kind":"tcp","name":"f3","src":"s","dst":"d3"},
            {"kind":"tcp","name":"fm","src":"s","dst":"m"},
            {"kind":"tcp","name":"fe","src":"s","dst":"e","start":0.3}]}"#;
    assert_same(json, &[("r", "d0")]);
    let sim = load(json);
    for (a, b) in [("r", "d1"), ("r", "d2"), ("r", "d3"), ("r", "m")] {
        assert_ne!(role(&sim, a, b), Fed::Delivering, "{a} -> {b}");
    }
    // Throughput bins read the receivers as the clock passes: then none delivers early.
    let binned = json.replace(
        r#""flows":["#,
        r#""trace":{"series":["throughput"],"throughput_bin":"100ms"},"flows":["#,
    );
    assert_same(&binned, &[]);
    let sim = load(&binned);
    assert!(sim.links.iter().all(|l| l.fed != Fed::Delivering));
}

#[test]
fn senders_take_their_acks_early_through_timeouts_and_stops() {
    // A 3-packet bottleneck queue and a 2 ms floor on the retransmission timeout: the senders
    // time out again and again, each timeout taken before an ACK that comes after it. Flow 2
    // stops offering data at 2.05 s while its ACKs keep coming; flow 3 sends 40 segments. No
    // sender state is traced, so the senders' access links deliver too.
    let tcp = r#""recovery":"newreno","min_rto":"2ms","initial_rto":"20ms""#;
    let flows = [
        bulk_flows(2, tcp),
        format!(
            r#"{{"kind":"tcp","name":"stops","src":"s2","dst":"d2","start":0.2,"stop":2.05,"tcp":{{{tcp}}}}}"#
        ),
        format!(
            r#"{{"kind":"tcp","name":"short","src":"s3","dst":"d3","start":0.3,"size":"57920B","tcp":{{{tcp}}}}}"#
        ),
    ]
    .join(",");
    let queue = r#"{"kind":"droptail","limit":3}"#;
    let json = dumbbell("linux", 4, "8Mbps", 4.0, queue, 4.4, &flows, "");
    let ends: Vec<(String, String)> = (0..4)
        .flat_map(|i| {
            [
                ("right".into(), format!("d{i}")),
                ("left".into(), format!("s{i}")),
            ]
        })
        .collect();
    let ends: Vec<(&str, &str)> = ends.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let (r, _) = assert_same(&json, &ends);
    assert!(
        r.flows.u64s("timeouts").iter().all(|&n| n > 0),
        "every flow times out"
    );
}

#[test]
fn a_one_flow_path_hands_over_early_at_one_end_at_a_time() {
    // Over relays (one flow, each hop fed by the one before), a packet handed to the sender's
    // or receiver's access link while the other end is taking one early waits for the event's
    // end, and so do the hand-overs after it (`Simulation::take_deferred`). With a window of
    // three segments and a 1 ms delayed-ACK timer, the receiver's timer events hand ACKs to an
    // idle sender at the top level, so that both ways of taking them early mix; `finish` runs
    // in two steps, so the queue stops at the first step's end with packets still waiting
    // (counted in the network there), which the second step takes first.
    for tcp in [
        r#""cc":"cubic","recovery":"sack","delayed_ack_timeout":"3ms""#,
        r#""rwnd":"4344B","delayed_ack_timeout":"1ms""#,
    ] {
        let json = format!(
            r#"{{"name":"t","duration":5.3,"seed":9,"defaults":"linux",
            "topology":{{"kind":"chain","links":[
                {{"rate":"100Mbps","delay":"1ms"}},
                {{"rate":"10Mbps","delay":"8ms","queue":{{"kind":"droptail","limit":12}}}},
                {{"rate":"100Mbps","delay":"1ms"}}]}},
            "flows":[{{"kind":"tcp","name":"a","src":"n0","dst":"n3","tcp":{{{tcp}}}}}]}}"#
        );
        assert_same(&json, &[("n2", "n3"), ("n1", "n0")]);
    }
}

#[test]
fn a_one_flow_path_runs_ahead_of_the_clock_no_further_than_the_step() {
    // A one-flow dumbbell takes its packets early at both ends, one hand-over leading to the
    // next, without events; but a step of `run_until` (the Python runner's progress steps)
    // stops them at its end, so the sender has sent no more than the step's worth, and the
    // run in 40 steps gives the same results as in one.
    let json = dumbbell(
        "linux",
        1,
        "10Mbps",
        18.0,
        r#"{"kind":"droptail","limit":100}"#,
        20.0,
        &bulk_flows(1, r#""cc":"reno","recovery":"sack""#),
        r#""series":[]"#,
    );
    let whole = load(&json);
    let (whole, _) = finish(whole);
    assert!(
        (whole.meta.events as f64) < 0.01 * whole.flows.u64s("packets_delivered")[0] as f64,
        "one-flow path: {} events",
        whole.meta.events
    );
    let mut sim = load(&json);
    let line_rate = 10e6 / 8.0; // bytes per second at the bottleneck
    for k in 1..=40 {
        let t = ccsim::time::SimTime::from_secs_f64(0.5 * k as f64);
        sim.run_until(t);
        let FlowSlot::Tcp(c) = &sim.flows[0] else {
            unreachable!("a TCP flow")
        };
        // Sent by the step's end: at most the line's rate since the start, plus a window of
        // queue and path (100 packets and 40 ms of the line) and the initial burst.
        let bound = line_rate * t.as_secs_f64() + 1500.0 * (100.0 + 10.0) + line_rate * 0.04;
        let sent = c.sender.stats.bytes_sent as f64;
        assert!(sent <= bound, "at {t}: {sent} bytes sent, at most {bound}");
    }
    let (stepped, _) = finish(sim);
    assert_same_tables(&stepped, &whole, "run in 40 steps");
}
