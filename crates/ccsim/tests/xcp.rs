//! XCP end to end (Katabi, Handley & Rohrs 2002 §5): the routers' explicit feedback fills the
//! link with a near-empty queue and no drops, shares it equally, and reaches a newcomer's fair
//! share within a few RTTs; without an XCP router an XCP sender is Reno; Sheela & Raja's
//! window adjustment cuts the window when the routers' congestion bit is set.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{bulk_flows, dumbbell, mean_between, points, run_deterministic};

/// `pairs` bulk flows with congestion control `cc` (JSON) through `queue` on a dumbbell
/// (bottleneck `rate`, `delay_ms`; access 10× and 1 ms), queue and cwnd every 10 ms.
fn run(pairs: u32, rate: &str, delay_ms: f64, queue: &str, cc: &str, duration: f64) -> Results {
    let flows = bulk_flows(pairs, &format!(r#""cc":{cc}"#));
    run_with(pairs, rate, delay_ms, queue, &flows, duration)
}

fn run_with(
    pairs: u32,
    rate: &str,
    delay_ms: f64,
    queue: &str,
    flows: &str,
    duration: f64,
) -> Results {
    run_deterministic(&dumbbell(
        "linux",
        pairs,
        rate,
        delay_ms,
        queue,
        duration,
        flows,
        r#""series":["queue","cwnd","throughput"],"interval":"10ms""#,
    ))
}

/// Mean of the bottleneck's queue samples (packets) from `from` seconds on.
fn mean_queue_after(r: &Results, from: f64) -> f64 {
    mean_between(r, SeriesName::Queue, 0, from, f64::INFINITY)
}

const XCP_QUEUE: &str = r#"{"kind":"xcp","limit":300}"#;
const FIFO: &str = r#"{"kind":"droptail","limit":300}"#;

#[test]
fn xcp_fills_the_link_with_a_near_empty_queue_and_no_drops() {
    for pairs in [1, 3] {
        let x = run(pairs, "20Mbps", 20.0, XCP_QUEUE, r#""xcp""#, 15.0);
        let reno = run(pairs, "20Mbps", 20.0, FIFO, r#""reno""#, 15.0);
        let util = x.queues.f64s("utilisation")[0];
        // Start-up included: the feedback opens the window in a few RTTs of 44 ms.
        assert!(util > 0.97, "{pairs} flows: utilisation {util}");
        assert_eq!(x.queues.u64s("drops_overflow")[0], 0);
        assert_eq!(x.flows.u64s("retransmits").iter().sum::<u64>(), 0);
        let (qx, qr) = (mean_queue_after(&x, 3.0), mean_queue_after(&reno, 3.0));
        assert!(qx < 3.0, "{pairs} flows: XCP mean queue {qx} packets");
        // Reno fills the buffer until it drops: a standing queue of most of its 300 packets.
        assert!(qr > 100.0, "{pairs} flows: Reno mean queue {qr} packets");
        assert!(reno.queues.u64s("drops_overflow")[0] > 0);
    }
}

/// ns-2's random first timers (`random_timers`) move when each router acts, not what XCP
/// achieves: the link still fills with a near-empty queue and no drops, over every link an XCP
/// router with its own draws.
#[test]
fn random_timers_change_when_routers_act_not_what_xcp_achieves() {
    let random = r#"{"kind":"xcp","limit":300,"random_timers":true}"#;
    let x = run(3, "20Mbps", 20.0, random, r#""xcp""#, 15.0);
    let fixed = run(3, "20Mbps", 20.0, XCP_QUEUE, r#""xcp""#, 15.0);
    assert!(x.queues.f64s("utilisation")[0] > 0.97);
    assert_eq!(x.queues.u64s("drops_overflow")[0], 0);
    assert!(mean_queue_after(&x, 3.0) < 3.0);
    assert_ne!(
        x.flows.u64s("bytes_delivered"),
        fixed.flows.u64s("bytes_delivered")
    );
}

#[test]
fn xcp_shares_the_link_equally_and_a_newcomer_gets_its_share_within_a_second() {
    // Flows join at 0, 3 and 6 s; each interval's share is 1/n of 20 Mb/s.
    let flows: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","start":{},"tcp":{{"cc":"xcp"}}}}"#,
                3 * i
            )
        })
        .collect();
    let r = run_with(3, "20Mbps", 20.0, XCP_QUEUE, &flows.join(","), 10.0);
    let share =
        |id: u32, from: f64, to: f64| mean_between(&r, SeriesName::Throughput, id, from, to);
    // One second after each arrival, every active flow is within 10 % of the equal share.
    for (n, from) in [(1, 1.0), (2, 4.0), (3, 7.0)] {
        let fair = 20e6 * 0.96 / n as f64;
        for id in 0..n {
            let s = share(id, from, from + 2.0);
            assert!(
                (s / fair - 1.0).abs() < 0.1,
                "{n} flows from {from} s: flow {id} has {s} b/s against {fair}"
            );
        }
    }
    assert_eq!(r.queues.u64s("drops_overflow")[0], 0);
}

#[test]
fn without_an_xcp_router_an_xcp_sender_is_reno() {
    let x = run(2, "10Mbps", 20.0, FIFO, r#""xcp""#, 10.0);
    let reno = run(2, "10Mbps", 20.0, FIFO, r#""reno""#, 10.0);
    for col in [
        "bytes_delivered",
        "packets_sent",
        "retransmits",
        "fast_retransmits",
    ] {
        assert_eq!(x.flows.u64s(col), reno.flows.u64s(col), "{col}");
    }
    assert_eq!(x.flows.f64s("cwnd_final"), reno.flows.f64s("cwnd_final"));
    assert!(x.queues.u64s("drops_overflow")[0] > 0);
}

/// Sheela & Raja's setup: one flow, 10 Mb/s, 250 ms bottleneck. With the bit set whenever the
/// queue reaches 50 packets or the input reaches capacity, the sender cuts its window to
/// 2–5 % of the admitted window, well below the bandwidth-delay product (about 430 segments).
#[test]
fn window_adjustment_cuts_the_window_when_the_congestion_bit_is_set() {
    let adjust = r#"{"kind":"xcp","window_adjustment":true}"#;
    let bit = r#"{"kind":"xcp","limit":300,"congestion_threshold":50}"#;
    let plain = run(1, "10Mbps", 250.0, XCP_QUEUE, r#""xcp""#, 20.0);
    let cut = run(1, "10Mbps", 250.0, bit, adjust, 20.0);
    let cwnd = |r: &Results| -> Vec<f64> {
        points(r, SeriesName::Cwnd, 0)
            .into_iter()
            .filter(|p| p.0 >= 5.0)
            .map(|p| p.1)
            .collect()
    };
    let (p, c) = (cwnd(&plain), cwnd(&cut));
    let min = |v: &[f64]| v.iter().cloned().fold(f64::INFINITY, f64::min);
    // Plain XCP holds about the bandwidth-delay product.
    assert!(min(&p) > 380.0, "plain XCP cwnd min {}", min(&p));
    // With the bit, some step cuts the window to at most 5 % of what it was (plus feedback).
    let cuts = c.windows(2).filter(|w| w[1] < 0.06 * w[0]).count();
    assert!(cuts > 0, "no cut in {:?}", &c[..20]);
    assert!(cut.queues.f64s("utilisation")[0] < plain.queues.f64s("utilisation")[0]);
    // The sender's option is inert without the routers' bit, and the bit without the option.
    let no_bit = run(1, "10Mbps", 250.0, XCP_QUEUE, adjust, 20.0);
    let no_option = run(1, "10Mbps", 250.0, bit, r#""xcp""#, 20.0);
    for r in [&no_bit, &no_option] {
        assert_eq!(r.flows.f64s("cwnd_final"), plain.flows.f64s("cwnd_final"));
        assert_eq!(
            r.flows.u64s("bytes_delivered"),
            plain.flows.u64s("bytes_delivered")
        );
    }
}

#[test]
fn xcp_parameters_are_checked() {
    let bad = |queue: &str, cc: &str| {
        let json = dumbbell(
            "linux",
            1,
            "10Mbps",
            10.0,
            queue,
            1.0,
            &bulk_flows(1, &format!(r#""cc":{cc}"#)),
            "",
        );
        ccsim::scenario::load(&json)
            .err()
            .expect("rejected")
            .to_string()
    };
    let e = bad(r#"{"kind":"xcp","alpha":0.6}"#, r#""xcp""#);
    assert!(e.contains("queue.alpha") && e.contains("0.5554"), "{e}");
    let e = bad(r#"{"kind":"xcp","queue_window":0}"#, r#""xcp""#);
    assert!(e.contains("queue.queue_window"), "{e}");
    let e = bad(XCP_QUEUE, r#"{"kind":"xcp","low_factor":2}"#);
    assert!(e.contains("low_factor") && e.contains("(0, 1)"), "{e}");
    let e = bad(r#"{"kind":"xcp","gain":1}"#, r#""xcp""#);
    assert!(e.contains("gain"), "{e}");
    let e = bad(r#"{"kind":"xcp","xcp_share":0}"#, r#""xcp""#);
    assert!(e.contains("queue.xcp_share"), "{e}");
    let e = bad(r#"{"kind":"xcp","virtual_queues":"yes"}"#, r#""xcp""#);
    assert!(e.contains("queue.virtual_queues"), "{e}");
}

/// An XCP flow and a CUBIC flow (from 5 s) through one XCP router, 60 s on 10 Mb/s, 20 ms.
fn xcp_beside_cubic(queue: &str) -> Results {
    let flows = r#"{"kind":"tcp","name":"x","src":"s0","dst":"d0","tcp":{"cc":"xcp"}},
        {"kind":"tcp","name":"t","src":"s1","dst":"d1","start":5,"tcp":{"cc":"cubic"}}"#;
    run_with(2, "10Mbps", 20.0, queue, flows, 60.0)
}

/// XCP beside TCP (spec §11.3). In one FIFO the controllers count CUBIC's traffic as input and
/// its standing queue as persistent, so they hold the XCP flow back while CUBIC fills the
/// buffer: CUBIC takes nearly all. ns-2's virtual queues serve the two a packet a turn, but
/// controllers that still allocate the whole capacity promise XCP twice what its turns carry,
/// and its queue overflows. With the controllers on half the capacity (ns-2's `tcp_xcp_on_`)
/// the two share the link and XCP loses nothing.
#[test]
fn xcp_shares_a_link_with_tcp_only_in_its_own_queue_on_its_own_share() {
    let fifo = xcp_beside_cubic(r#"{"kind":"xcp","limit":100}"#);
    let g = fifo.flows.f64s("goodput_bps");
    assert!(g[0] < 0.2 * g[1], "one FIFO: goodputs {g:?}");

    let vq = xcp_beside_cubic(r#"{"kind":"xcp","limit":100,"virtual_queues":true}"#);
    let xcp_drops = vq.flows.u64s("packets_dropped")[0];
    assert!(
        xcp_drops > 100,
        "XCP on the whole capacity: {xcp_drops} drops"
    );

    let shared = r#"{"kind":"xcp","limit":100,"virtual_queues":true,"xcp_share":0.5}"#;
    let half = xcp_beside_cubic(shared);
    let g = half.flows.f64s("goodput_bps");
    assert!(g.iter().all(|&x| x > 4e6), "goodputs {g:?}");
    assert!(g[0] + g[1] > 9e6, "goodputs {g:?}");
    assert_eq!(half.flows.u64s("packets_dropped")[0], 0);
    // The TCP queue is RED: it drops early.
    assert!(half.queues.u64s("drops_early")[0] > 0);
}

/// Every link an XCP router, the sender's first hop included (same rate as the bottleneck, so
/// the queue would form there): the ACKs' echoed headers cross the reverse routers untouched,
/// and the first hop's controller keeps the window at the bandwidth-delay product.
#[test]
fn xcp_routers_on_every_link_fill_the_path_without_a_queue() {
    let json = r#"{"name":"t","duration":20,"seed":1,
        "topology":{"kind":"dumbbell","pairs":2,
            "bottleneck":{"rate":"10Mbps","delay":"50ms","queue":{"kind":"xcp","limit":200}},
            "access":{"rate":"10Mbps","delay":"5ms","queue":{"kind":"xcp","limit":200}}},
        "flows":[{"kind":"tcp","name":"a","src":"s0","dst":"d0","tcp":{"cc":"xcp"}},
                 {"kind":"tcp","name":"b","src":"s1","dst":"d1","start":5,"tcp":{"cc":"xcp"}}],
        "trace":{"series":["throughput"],"interval":"10ms"}}"#;
    let r = run_deterministic(json);
    // Row 0: the bottleneck's forward direction.
    let util = r.queues.f64s("utilisation")[0];
    assert!(util > 0.95, "bottleneck utilisation {util}");
    assert_eq!(r.queues.u64s("drops_overflow").iter().sum::<u64>(), 0);
    let a = mean_between(&r, SeriesName::Throughput, 0, 10.0, 20.0);
    let b = mean_between(&r, SeriesName::Throughput, 1, 10.0, 20.0);
    assert!((a / b - 1.0).abs() < 0.1, "shares {a} and {b}");
}
