//! The express path of DropTail and RED links (`net/express/mod.rs`, `net/express/red.rs`) against
//! the general path (`net/link.rs`), and cut-through (a link handing packets on to the next,
//! `net/link.rs`) against forwarding each packet by an event: the same scenario run every way must give
//! identical results, to the last counter and series point. Only the number of events differs
//! (the express path schedules none for packets the wire loses, cut-through none at relays).
//! CoDel, PIE and FQ-CoDel keep the general path, but cut-through feeds them, and they feed.

mod common;

use ccsim::net::link::Fed;
use ccsim::results::Results;
use common::{assert_same_tables, bulk_flows, dumbbell, one_flow};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    General,
    Express,
    CutThrough,
}

fn run_with(json: &str, mode: Mode) -> Results {
    let mut sim = ccsim::scenario::load(json).unwrap_or_else(|e| panic!("invalid scenario: {e}"));
    for l in &mut sim.links {
        if mode == Mode::General {
            l.use_general();
        } else {
            l.use_express();
        }
    }
    sim.set_cut_through(mode == Mode::CutThrough);
    let fed = sim.links.iter().filter(|l| l.is_fed());
    assert_eq!(fed.count() > 0, mode == Mode::CutThrough, "{mode:?}");
    // Check conservation part-way, when packets are queued and on the wire on every path.
    sim.run_until(ccsim::time::SimTime(sim.end().0 / 2));
    let c = sim.counters;
    assert_eq!(
        c.injected,
        c.consumed + c.dropped + sim.packets_in_network()
    );
    assert_eq!(sim.packets_live() as u64, sim.packets_in_network());
    sim.run();
    ccsim::results::collect(&mut sim)
}

/// The index of the link direction from node `a` to node `b`.
fn direction(sim: &ccsim::sim::Simulation, a: &str, b: &str) -> usize {
    let names = &sim.names.nodes;
    sim.links
        .iter()
        .position(|l| &names[l.from as usize] == a && &names[l.to as usize] == b)
        .unwrap_or_else(|| panic!("no direction {a} -> {b}"))
}

/// Runs `json` (cut-through) and returns its results with the index of the direction `a -> b`,
/// checked to be fed and, if `feeds`, to feed.
fn run_fed(json: &str, a: &str, b: &str, feeds: bool) -> (Results, usize) {
    let mut sim = ccsim::scenario::load(json).unwrap();
    let d = direction(&sim, a, b);
    assert!(sim.links[d].is_fed() && sim.links[d].feeds == feeds);
    sim.run();
    (ccsim::results::collect(&mut sim), d)
}

/// Flows for a 4-pair dumbbell sharing one AQM: two ECN-capable CUBIC flows, a Not-ECT
/// NewReno one, and 4 Mb/s of CBR in 300-byte packets.
fn mixed_flows() -> String {
    [
        bulk_flows(2, r#""cc":"cubic","ecn":true"#),
        r#"{"kind":"tcp","name":"plain","src":"s2","dst":"d2","start":0.3,"tcp":{"recovery":"newreno"}}"#.to_string(),
        r#"{"kind":"cbr","name":"u","src":"s3","dst":"d3","rate":"4Mbps","packet_size":300,"start":1}"#.to_string(),
    ]
    .join(",")
}

fn assert_same(json: &str) {
    let g = run_with(json, Mode::General);
    let e = run_with(json, Mode::Express);
    let c = run_with(json, Mode::CutThrough);
    assert!(c.meta.events < e.meta.events, "cut-through saves events");
    assert!(e.meta.events <= g.meta.events);
    for (mode, r) in [(Mode::Express, &e), (Mode::CutThrough, &c)] {
        assert_eq!(r.meta.packets_dropped, g.meta.packets_dropped, "{mode:?}");
        assert_same_tables(r, &g, &format!("{mode:?}"));
        assert_eq!(r.series.len(), g.series.len());
        for ((n, sr), (_, sg)) in r.series.iter().zip(&g.series) {
            assert_eq!(
                (&sr.time, &sr.id),
                (&sg.time, &sg.id),
                "{mode:?}: series {n:?} differs"
            );
            assert_eq!(sr.value, sg.value, "{mode:?}: series {n:?} differs");
        }
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

#[test]
fn a_fed_link_that_is_the_bottleneck_drops_and_loses() {
    // n0 -> n1 -> n2: the second hop, fed only by the first, is the slow one with a short
    // queue and wire loss, so handed-on packets overflow it and are lost on it; a CBR flow
    // and a TCP flow in the other direction share the paths.
    let json = r#"{"name":"t","duration":20,"seed":3,"defaults":"linux",
        "topology":{"kind":"chain","links":[
            {"rate":"100Mbps","delay":"2ms"},
            {"rate":"10Mbps","delay":"10ms","queue":{"kind":"droptail","limit":15},
             "loss":{"kind":"bernoulli","p":0.01}}]},
        "flows":[
            {"kind":"tcp","name":"a","src":"n0","dst":"n2","tcp":{"cc":"cubic","recovery":"sack"}},
            {"kind":"tcp","name":"b","src":"n0","dst":"n2","start":0.5},
            {"kind":"tcp","name":"back","src":"n2","dst":"n0","start":1},
            {"kind":"cbr","name":"u","src":"n0","dst":"n2","rate":"2Mbps","packet_size":500,"start":2}],
        "trace":{"series":["cwnd","queue","queue_bytes","sojourn"],"interval":"7ms"}}"#;
    assert_same(json);
    // The direction n1 -> n2 is fed, overflows and loses.
    let (r, d) = run_fed(json, "n1", "n2", false);
    assert!(r.queues.u64s("drops_overflow")[d] > 0 && r.queues.u64s("drops_loss")[d] > 0);
}

#[test]
fn merging_feeders_with_unequal_delays_and_a_chain_of_relays() {
    // Three senders reach r1 over access links of 1, 7 and 3 ms, so packets handed on to
    // r1 -> r2 reach r1 out of the order they were sent in; r1 -> r2 (wire loss, a short
    // queue) is fed by all three and feeds r2 -> r3 (byte-limited, the bottleneck), which feeds
    // the receivers' access links. d2's access link has no propagation delay: d2 -> r3 may not
    // feed, so the reverse path through r3 -> r2 is forwarded by events. Small CBR packets mix
    // with TCP segments and ACKs.
    let json = r#"{"name":"t","duration":12,"seed":5,"defaults":"linux",
        "topology":{"kind":"explicit",
          "nodes":["h0","h1","h2","r1","r2","r3","d0","d1","d2"],
          "links":[
            {"name":"a0","a":"h0","b":"r1","rate":"200Mbps","delay":"1ms"},
            {"name":"a1","a":"h1","b":"r1","rate":"200Mbps","delay":"7ms"},
            {"name":"a2","a":"h2","b":"r1","rate":"100Mbps","delay":"3ms"},
            {"name":"m","a":"r1","b":"r2","rate":"40Mbps","delay":"4ms",
             "queue":{"kind":"droptail","limit":30},"loss":{"kind":"bernoulli","p":0.005}},
            {"name":"b","a":"r2","b":"r3","rate":"20Mbps","delay":"6ms",
             "queue":{"kind":"droptail","limit_bytes":"40kB"}},
            {"name":"e0","a":"r3","b":"d0","rate":"100Mbps","delay":"2ms"},
            {"name":"e1","a":"r3","b":"d1","rate":"100Mbps","delay":"1ms"},
            {"name":"e2","a":"r3","b":"d2","rate":"100Mbps","delay":"0ms"}]},
        "flows":[
            {"kind":"tcp","name":"f0","src":"h0","dst":"d0","tcp":{"cc":"cubic","recovery":"sack"}},
            {"kind":"tcp","name":"f1","src":"h1","dst":"d1","start":0.3},
            {"kind":"tcp","name":"f2","src":"h2","dst":"d2","start":0.6,"tcp":{"recovery":"newreno"}},
            {"kind":"tcp","name":"back","src":"d0","dst":"h1","start":1},
            {"kind":"cbr","name":"u","src":"h1","dst":"d2","rate":"3Mbps","packet_size":200,"start":2}],
        "trace":{"series":["cwnd","queue","queue_bytes","sojourn"],"interval":"3ms"}}"#;
    assert_same(json);
    let mut sim = ccsim::scenario::load(json).unwrap();
    let dir = |a, b| direction(&sim, a, b);
    let (m, b, e2, back) = (
        dir("r1", "r2"),
        dir("r2", "r3"),
        dir("r3", "d2"),
        dir("r3", "r2"),
    );
    assert!(
        sim.links[m].is_fed() && sim.links[m].feeds,
        "merge and relay"
    );
    assert!(
        sim.links[b].is_fed() && sim.links[b].feeds,
        "relay fed by a relay"
    );
    assert!(sim.links[e2].is_fed() && !sim.links[e2].feeds);
    assert!(
        !sim.links[back].is_fed(),
        "fed in part over a link without delay"
    );
    sim.run();
    let r = ccsim::results::collect(&mut sim);
    assert!(r.queues.u64s("drops_loss")[m] > 0 && r.queues.u64s("drops_overflow")[b] > 0);
}

#[test]
fn red_marks_and_drops_at_a_fed_bottleneck_as_on_the_general_path() {
    // RED with ECN (forced decisions mark too), its average sampled: ECN and Not-ECT flows
    // share the bottleneck, which is fed by the access links and feeds the receivers' ones.
    let queue = r#"{"kind":"red","mode":"packets","min_th":5,"max_th":15,"q_weight":0.02,"limit":40,"gentle":true,"ecn":true,"harddrop":false}"#;
    let flows = mixed_flows();
    let trace = r#""series":["cwnd","queue","avg_queue","sojourn"],"interval":"5ms""#;
    let json = dumbbell("linux", 4, "20Mbps", 10.0, queue, 15.0, &flows, trace);
    assert_same(&json);
    let (r, d) = run_fed(&json, "left", "right", true);
    let col = |n| r.queues.u64s(n)[d];
    assert!(
        col("marks_early") > 0 && col("drops_early") > 0,
        "marks and drops"
    );
}

#[test]
fn red_in_byte_mode_on_a_lossy_relay_with_mixed_packet_sizes() {
    // n0 -> n1 -> n2 -> n3: the middle hop is fed and feeds, runs RED in byte mode (the ns2
    // profile's default) with wire loss, and carries 200-byte CBR packets among TCP segments
    // and the ACKs of a flow the other way.
    let json = r#"{"name":"t","duration":20,"seed":9,"defaults":"ns2",
        "topology":{"kind":"chain","links":[
            {"rate":"100Mbps","delay":"2ms"},
            {"rate":"8Mbps","delay":"10ms","queue":{"kind":"red","limit":30,"min_th":4,"max_th":12},
             "loss":{"kind":"bernoulli","p":0.003}},
            {"rate":"100Mbps","delay":"1ms"}]},
        "flows":[
            {"kind":"tcp","name":"a","src":"n0","dst":"n3","tcp":{"recovery":"sack"}},
            {"kind":"tcp","name":"b","src":"n0","dst":"n3","start":0.5,"tcp":{"recovery":"newreno"}},
            {"kind":"tcp","name":"back","src":"n3","dst":"n0","start":1},
            {"kind":"cbr","name":"u","src":"n0","dst":"n3","rate":"1Mbps","packet_size":200,"start":2}],
        "trace":{"series":["cwnd","queue","queue_bytes","avg_queue","sojourn"],"interval":"7ms"}}"#;
    assert_same(json);
    let (r, d) = run_fed(json, "n1", "n2", true);
    let col = |n| r.queues.u64s(n)[d];
    assert!(
        col("drops_aqm") > 0 && col("drops_loss") > 0,
        "RED and the wire drop"
    );
}

#[test]
fn aqm_bottlenecks_fed_by_express_access_links_decide_as_with_forwarding_events() {
    // CoDel, PIE and FQ-CoDel stay on the general path but are fed by the access links
    // (`net/general_path.rs`): each must take the same packets at the same times, in the same
    // order, as forwarding events would have offered them. ECN and Not-ECT flows, a CBR flow,
    // wire loss on the bottleneck, and the ACKs' way back through the same discipline.
    let flows = mixed_flows();
    let trace = r#""series":["cwnd","queue","queue_bytes","sojourn"],"interval":"5ms""#;
    for queue in [
        r#"{"kind":"codel","ecn":true,"limit":60}"#,
        // PIE acts on a 15 ms delay target (19 packets here) through slow updates: with 60
        // packets of room the bursts overflow the buffer before it marks.
        r#"{"kind":"pie","ecn":true,"limit":200}"#,
        r#"{"kind":"fq_codel","ecn":true,"limit":60}"#,
    ] {
        let mut json = dumbbell("linux", 4, "20Mbps", 10.0, queue, 12.0, &flows, trace);
        json = json.replace(
            &format!(r#""queue":{queue}"#),
            &format!(r#""queue":{queue},"loss":{{"kind":"bernoulli","p":0.002}}"#),
        );
        assert!(json.contains("bernoulli"), "{queue}: loss not set");
        assert_same(&json);
        let (r, d) = run_fed(&json, "left", "right", false);
        let col = |n| r.queues.u64s(n)[d];
        assert!(
            col("marks") > 0 && col("drops_loss") > 0,
            "{queue}: marks and loses"
        );
        // The bottleneck hands its packets on to the receivers' access links as they leave.
        let sim = ccsim::scenario::load(&json).unwrap();
        assert!(
            sim.links[direction(&sim, "right", "d0")].is_fed(),
            "{queue}"
        );
    }
}

#[test]
fn fq_codel_fed_by_access_links_of_unequal_delays() {
    // Packets reach the FQ-CoDel router out of the order they were sent in (access links of
    // 1, 7 and 3 ms): the fed direction takes them by time, and at equal times in the order
    // the engine would have forwarded them.
    let json = r#"{"name":"t","duration":10,"seed":5,"defaults":"linux",
        "topology":{"kind":"explicit",
          "nodes":["h0","h1","h2","r1","r2"],
          "links":[
            {"name":"a0","a":"h0","b":"r1","rate":"200Mbps","delay":"1ms"},
            {"name":"a1","a":"h1","b":"r1","rate":"200Mbps","delay":"7ms"},
            {"name":"a2","a":"h2","b":"r1","rate":"100Mbps","delay":"3ms"},
            {"name":"m","a":"r1","b":"r2","rate":"15Mbps","delay":"4ms",
             "queue":{"kind":"fq_codel","limit":40,"ecn":false}}]},
        "flows":[
            {"kind":"tcp","name":"f0","src":"h0","dst":"r2","tcp":{"cc":"cubic","recovery":"sack"}},
            {"kind":"tcp","name":"f1","src":"h1","dst":"r2","start":0.3},
            {"kind":"tcp","name":"f2","src":"h2","dst":"r2","start":0.6,"tcp":{"recovery":"newreno"}},
            {"kind":"cbr","name":"u","src":"h1","dst":"r2","rate":"3Mbps","packet_size":200,"start":2}],
        "trace":{"series":["cwnd","queue","queue_bytes","sojourn"],"interval":"3ms"}}"#;
    assert_same(json);
    let (r, d) = run_fed(json, "r1", "r2", false);
    assert!(r.queues.u64s("drops_aqm")[d] + r.queues.u64s("drops_overflow")[d] > 0);
}

#[test]
fn a_codel_first_hop_feeds_the_link_after_it() {
    // n0 -> n1 -> n2: the first hop runs CoDel (the general path) and takes its packets from
    // the senders at n0, so nothing but its own events and those offers touch it; it hands
    // its packets on to the DropTail hop after it as they leave (`net/general_path.rs`), each before
    // it reaches n1. The other way, the DropTail hop feeds the CoDel one, which delivers.
    let json = r#"{"name":"t","duration":15,"seed":4,"defaults":"linux",
        "topology":{"kind":"chain","links":[
            {"rate":"20Mbps","delay":"3ms","queue":{"kind":"codel","limit":40,"ecn":true},
             "loss":{"kind":"bernoulli","p":0.002}},
            {"rate":"8Mbps","delay":"10ms","queue":{"kind":"droptail","limit":20}}]},
        "flows":[
            {"kind":"tcp","name":"a","src":"n0","dst":"n2","tcp":{"cc":"cubic","ecn":true}},
            {"kind":"tcp","name":"b","src":"n0","dst":"n2","start":0.5,"tcp":{"recovery":"newreno"}},
            {"kind":"tcp","name":"back","src":"n2","dst":"n0","start":1},
            {"kind":"cbr","name":"u","src":"n0","dst":"n2","rate":"2Mbps","packet_size":400,"start":2}],
        "trace":{"series":["cwnd","queue","sojourn"],"interval":"50ms"}}"#;
    assert_same(json);
    let sim = ccsim::scenario::load(json).unwrap();
    let (first, second) = (direction(&sim, "n0", "n1"), direction(&sim, "n1", "n2"));
    assert!(!sim.links[first].is_express() && !sim.links[first].is_fed());
    assert!(sim.links[second].is_fed(), "fed by the CoDel hop");
    let (back1, back0) = (direction(&sim, "n2", "n1"), direction(&sim, "n1", "n0"));
    assert!(sim.links[back0].is_fed() && !sim.links[back0].is_express() && sim.links[back1].feeds);
}

/// Each id's points of a series, in the order recorded.
fn by_id(s: &ccsim::trace::Series) -> std::collections::BTreeMap<u32, Vec<(u64, u64)>> {
    let mut out = std::collections::BTreeMap::<u32, Vec<(u64, u64)>>::new();
    for ((&t, &id), &v) in s.time.iter().zip(&s.id).zip(&s.value) {
        out.entry(id).or_default().push((t, v.to_bits()));
    }
    out
}

#[test]
fn queue_changes_traced_as_they_happen_are_the_same_with_cut_through() {
    // Tracing queue changes as they happen keeps every direction on the general path, which
    // then feeds and is fed: every direction's records are the same points, in the same order;
    // only how different directions' records interleave in a series may differ.
    let flows = mixed_flows();
    let trace = r#""series":["cwnd","queue","queue_bytes","avg_queue","sojourn"]"#;
    for queue in [
        r#"{"kind":"droptail","limit":30}"#,
        r#"{"kind":"red","ecn":true,"limit":40}"#,
        r#"{"kind":"codel","ecn":true,"limit":40}"#,
    ] {
        let json = dumbbell("linux", 4, "20Mbps", 10.0, queue, 10.0, &flows, trace);
        let run = |cut: bool| {
            let mut sim = ccsim::scenario::load(&json).unwrap();
            assert!(
                sim.links.iter().all(|l| !l.is_express()),
                "{queue}: traced, general"
            );
            sim.set_cut_through(cut);
            assert_eq!(sim.links.iter().any(|l| l.is_fed()), cut, "{queue}");
            sim.run();
            ccsim::results::collect(&mut sim)
        };
        let (with, without) = (run(true), run(false));
        assert!(
            with.meta.events < without.meta.events,
            "{queue}: fewer events"
        );
        assert_same_tables(&with, &without, queue);
        assert_eq!(with.series.len(), without.series.len());
        // Every direction that carries packets records its queue (the CBR pair's way back
        // carries none), RED's average too.
        let queue_ids = |r: &Results, name| {
            let s = &r
                .series
                .iter()
                .find(|(n, _)| format!("{n:?}") == name)
                .unwrap()
                .1;
            by_id(s).len()
        };
        let busy = with
            .queues
            .u64s("arrivals")
            .iter()
            .filter(|&&a| a > 0)
            .count();
        assert_eq!(queue_ids(&with, "Queue"), busy);
        if queue.contains("red") {
            assert!(queue_ids(&with, "AvgQueue") > 0, "RED's average recorded");
        }
        for ((n, a), (_, b)) in with.series.iter().zip(&without.series) {
            assert_eq!(by_id(a), by_id(b), "{queue}: series {n:?} differs");
        }
    }
}

/// The fed role of the direction `a -> b`.
fn role(sim: &ccsim::sim::Simulation, a: &str, b: &str) -> Fed {
    sim.links[direction(sim, a, b)].fed
}

#[test]
fn directions_fed_by_one_direction_take_packets_straight_onto_their_lines() {
    // n0 -> n1 -> n2 -> n3, each hop slower than the last. n2 -> n3, fed only by the hop
    // before it and with a short queue, offers each packet to its line as soon as it is
    // handed on, for the time it reaches n2 (`Fed::Direct`), and drops some of them then;
    // n1 -> n2, fed only by n0 -> n1, does the same and hands each on to n2 -> n3 there and
    // then. The other way, n2 -> n1 and n1 -> n0 do the same with the ACKs and a flow's data.
    // The run ends while packets are on their way to them, which must neither arrive nor be
    // counted.
    let json = r#"{"name":"t","duration":7.3,"seed":6,"defaults":"linux",
        "topology":{"kind":"chain","links":[
            {"rate":"100Mbps","delay":"2ms"},
            {"rate":"20Mbps","delay":"5ms","queue":{"kind":"droptail","limit":50}},
            {"rate":"8Mbps","delay":"3ms","queue":{"kind":"droptail","limit":4}}]},
        "flows":[
            {"kind":"tcp","name":"a","src":"n0","dst":"n3","tcp":{"cc":"cubic","recovery":"sack"}},
            {"kind":"tcp","name":"b","src":"n0","dst":"n3","start":0.5,"tcp":{"recovery":"newreno"}},
            {"kind":"tcp","name":"back","src":"n3","dst":"n0","start":1},
            {"kind":"cbr","name":"u","src":"n0","dst":"n3","rate":"2Mbps","packet_size":300,"start":2}]}"#;
    assert_same(json);
    let mut sim = ccsim::scenario::load(json).unwrap();
    for (a, b) in [("n1", "n2"), ("n2", "n3"), ("n2", "n1"), ("n1", "n0")] {
        assert_eq!(role(&sim, a, b), Fed::Direct, "{a} -> {b}");
    }
    sim.run();
    let r = ccsim::results::collect(&mut sim);
    let last = direction(&sim, "n2", "n3");
    assert!(
        r.queues.u64s("drops_overflow")[last] > 0,
        "the last hop drops"
    );
    assert!(
        sim.packets_in_network() > 0,
        "the run ends with packets on the way"
    );
}

#[test]
fn a_direct_relay_feeds_a_merge() {
    // h0's packets reach r2 over r1 -> r2, a relay with one feeder (direct), and merge there
    // with h1's into r2 -> r3 (two feeders: an inbound list), the bottleneck, which drops and
    // feeds the receivers' access links (direct). The way back, r3 -> r2 merges the receivers'
    // ACKs and data and feeds r2 -> r1 and r2 -> h1 (direct), and r2 -> r1 feeds r1 -> h0.
    let json = r#"{"name":"t","duration":6.3,"seed":8,"defaults":"linux",
        "topology":{"kind":"explicit",
          "nodes":["h0","h1","r1","r2","r3","d0","d1"],
          "links":[
            {"name":"a0","a":"h0","b":"r1","rate":"100Mbps","delay":"1ms"},
            {"name":"r","a":"r1","b":"r2","rate":"50Mbps","delay":"2ms",
             "queue":{"kind":"droptail","limit":30}},
            {"name":"a1","a":"h1","b":"r2","rate":"100Mbps","delay":"3ms"},
            {"name":"m","a":"r2","b":"r3","rate":"20Mbps","delay":"5ms",
             "queue":{"kind":"droptail","limit":20}},
            {"name":"e0","a":"r3","b":"d0","rate":"100Mbps","delay":"1ms"},
            {"name":"e1","a":"r3","b":"d1","rate":"100Mbps","delay":"2ms"}]},
        "flows":[
            {"kind":"tcp","name":"f0","src":"h0","dst":"d0","tcp":{"cc":"cubic","recovery":"sack"}},
            {"kind":"tcp","name":"f1","src":"h1","dst":"d1","start":0.2},
            {"kind":"tcp","name":"back","src":"d1","dst":"h0","start":0.7},
            {"kind":"cbr","name":"u","src":"h0","dst":"d1","rate":"3Mbps","packet_size":200,"start":1}]}"#;
    assert_same(json);
    let mut sim = ccsim::scenario::load(json).unwrap();
    for (a, b, expect) in [
        ("r1", "r2", Fed::Direct),
        ("r2", "r3", Fed::Inbound),
        // d0 hosts one receiver: it takes its packets as they are handed on (`sim/handover.rs`).
        ("r3", "d0", Fed::Delivering),
        ("r3", "d1", Fed::Direct),
        ("r3", "r2", Fed::Inbound),
        ("r2", "r1", Fed::Direct),
        // h1 hosts one sender: it takes its ACKs so too.
        ("r2", "h1", Fed::Delivering),
        ("r1", "h0", Fed::Direct),
    ] {
        assert_eq!(role(&sim, a, b), expect, "{a} -> {b}");
    }
    assert!(sim.links[direction(&sim, "r1", "r2")].feeds);
    sim.run();
    let r = ccsim::results::collect(&mut sim);
    assert!(r.queues.u64s("drops_overflow")[direction(&sim, "r2", "r3")] > 0);
}

#[test]
fn where_queues_are_sampled_fed_directions_keep_their_inbound_lists() {
    // A sample reads a line as it is at the sample's time, which packets offered ahead of
    // their time would change: with queues sampled, the receivers' access links take their
    // packets through their inbound lists, and the samples match forwarding by events. Other
    // series leave them direct (the receivers' delivering: `sim/handover.rs`).
    let flows = bulk_flows(3, r#""cc":"cubic""#);
    let queue = r#"{"kind":"droptail","limit":30}"#;
    let with = |trace: &str| dumbbell("linux", 3, "20Mbps", 10.0, queue, 6.0, &flows, trace);
    let sampled = with(r#""series":["queue","queue_bytes","sojourn"],"interval":"1ms""#);
    assert_same(&sampled);
    for (json, receiver, sender) in [
        (sampled, Fed::Inbound, Fed::Inbound),
        // With the senders' windows sampled, their access links stay direct (`sim/handover.rs`).
        (
            with(r#""series":["cwnd"],"interval":"1ms""#),
            Fed::Delivering,
            Fed::Direct,
        ),
        (with(""), Fed::Delivering, Fed::Delivering),
    ] {
        let sim = ccsim::scenario::load(&json).unwrap();
        assert_eq!(role(&sim, "right", "d0"), receiver, "{json}");
        assert_eq!(role(&sim, "left", "s1"), sender, "{json}");
    }
}
