//! FQ-CoDel end to end: a 1 Mb/s constant-bit-rate "voice" flow keeps its base delay and loses
//! nothing next to a bulk TCP transfer or an unresponsive 20 Mb/s flood, where a shared FIFO
//! delays it by hundreds of milliseconds (and, under the flood, drops most of it).

mod common;

use ccsim::results::Results;
use common::{dumbbell, run_deterministic};

const TCP_BULK: &str = r#"{"kind":"tcp","name":"bulk","src":"s0","dst":"d0"}"#;
const FLOOD: &str =
    r#"{"kind":"cbr","name":"bulk","src":"s0","dst":"d0","rate":"20Mbps","packet_size":1500}"#;

fn with_voice(queue: &str, bulk: &str) -> Results {
    let flows = format!(
        r#"{bulk},{{"kind":"cbr","name":"voice","src":"s1","dst":"d1","rate":"1Mbps","packet_size":200,"start":1}}"#
    );
    run_deterministic(&dumbbell(
        "linux", 2, "10Mbps", 20.0, queue, 20.0, &flows, "",
    ))
}

/// Base one-way delay of a 200-byte packet: 1 + 20 + 1 ms of propagation plus serialisation
/// at 100, 10 and 100 Mb/s (0.016 + 0.16 + 0.016 ms).
const BASE: f64 = 0.022192;

#[test]
fn fq_codel_isolates_a_cbr_flow_from_a_bulk_flow() {
    for bulk in [TCP_BULK, FLOOD] {
        let fq = with_voice(r#"{"kind":"fq_codel"}"#, bulk);
        let fifo = with_voice(r#"{"kind":"droptail","limit":1000}"#, bulk);
        let owd = |r: &Results, col: &str| r.flows.f64s(col)[1];
        // FQ-CoDel: the voice packets wait at most for the packet being sent and one quantum
        // of the bulk flow (1.2 ms each at 10 Mb/s), and none is lost.
        assert!(
            owd(&fq, "owd_mean_s") < BASE + 0.001,
            "{}",
            owd(&fq, "owd_mean_s")
        );
        assert!(
            owd(&fq, "owd_max_s") < BASE + 0.003,
            "{}",
            owd(&fq, "owd_max_s")
        );
        assert_eq!(fq.flows.u64s("packets_dropped")[1], 0);
        // The bulk flow still gets the rest of the link.
        assert!(
            fq.flows.f64s("goodput_bps")[0] > 7e6,
            "{}",
            fq.flows.f64s("goodput_bps")[0]
        );
        // A shared FIFO of 1000 packets: hundreds of milliseconds, and losses.
        assert!(
            owd(&fifo, "owd_mean_s") > 0.2,
            "{}",
            owd(&fifo, "owd_mean_s")
        );
        assert!(fifo.flows.u64s("packets_dropped")[1] > 0);
    }
}

#[test]
fn fq_codel_runs_codel_on_each_flow_queue() {
    // The TCP bulk flow's own queue is held near CoDel's 5 ms target: its RTT stays close to
    // the 44 ms base (2·(20 + 1 + 1) ms of propagation), where the FIFO adds hundreds of milliseconds.
    let fq = with_voice(r#"{"kind":"fq_codel"}"#, TCP_BULK);
    let fifo = with_voice(r#"{"kind":"droptail","limit":1000}"#, TCP_BULK);
    let rtt = |r: &Results| r.flows.f64s("rtt_mean_s")[0];
    assert!(rtt(&fq) < 0.044 + 0.010, "{}", rtt(&fq));
    assert!(rtt(&fifo) > 0.2, "{}", rtt(&fifo));
    assert!(fq.queues.u64s("drops_early")[0] > 0);
    // An unresponsive flood outruns CoDel's slowly rising drop rate (one drop per
    // interval/√count): its queue grows to the packet limit, which then cuts it from the head.
    let flood = with_voice(r#"{"kind":"fq_codel","limit":1000}"#, FLOOD);
    assert!(flood.queues.u64s("drops_early")[0] > 100);
    assert!(flood.queues.u64s("drops_overflow")[0] > 1000);
    assert_eq!(
        flood.flows.u64s("packets_dropped")[1],
        0,
        "the voice flow is never cut"
    );
}

/// One bulk flow with the `tcp` settings through a 100 Mb/s, 10 ms FQ-CoDel bottleneck for
/// 20 s, on both routes; the queue's mean sojourn time after 5 s (seconds) with the results.
fn one_flow_through(queue: &str, tcp: &str) -> (f64, Results) {
    let r = common::on_both_routes(&dumbbell(
        "linux",
        1,
        "100Mbps",
        10.0,
        queue,
        20.0,
        &common::bulk_flows(1, tcp),
        r#""series":["sojourn"],"interval":"10ms""#,
    ));
    let sojourn = common::mean_between(&r, ccsim::config::SeriesName::Sojourn, 0, 5.0, 20.0);
    (sojourn, r)
}

#[test]
fn ce_threshold_marks_l4s_traffic_at_once_and_the_selector_spares_classic_ecn() {
    const L4S: &str = r#"{"kind":"fq_codel","ce_threshold":"1ms","ce_threshold_selector":1,"ce_threshold_mask":1}"#;
    const ALL: &str = r#"{"kind":"fq_codel","ce_threshold":"1ms"}"#;
    const PLAIN: &str = r#"{"kind":"fq_codel"}"#;
    // TCP Prague (ECT(1)) through plain FQ-CoDel meets CoDel's 5 ms target; with a 1 ms
    // threshold its packets are marked as soon as they wait longer, and the queue stays
    // near the threshold at nearly full rate.
    let (plain, _) = one_flow_through(PLAIN, r#""cc":"prague""#);
    let (l4s, r) = one_flow_through(L4S, r#""cc":"prague""#);
    assert!(plain > 0.003, "{plain}");
    assert!(l4s < 0.0015, "{l4s}");
    assert!(r.queues.f64s("utilisation")[0] > 0.85);
    // CUBIC with classic ECN (ECT(0)) is not selected: the run is the plain one, exactly.
    let cubic = r#""cc":"cubic","ecn":true"#;
    let (_, classic_plain) = one_flow_through(PLAIN, cubic);
    let (_, classic_l4s) = one_flow_through(L4S, cubic);
    common::assert_same_tables(
        &classic_plain,
        &classic_l4s,
        "ECT(0) under the ECT(1) selector",
    );
    // Without the selector the threshold marks it too, and a classic flow halves its window
    // on each round's mark: the link goes partly unused (why L4S setups select ECT(1)).
    let (_, classic_all) = one_flow_through(ALL, cubic);
    let goodput = |r: &Results| r.flows.f64s("goodput_bps")[0];
    assert!(
        goodput(&classic_all) < 0.8 * goodput(&classic_plain),
        "{} vs {}",
        goodput(&classic_all),
        goodput(&classic_plain)
    );
}
