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
