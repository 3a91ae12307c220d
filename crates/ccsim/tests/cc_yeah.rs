//! YeAH's signature end to end, at the speeds it was designed for (300 Mb/s, where its
//! α = 80 queued packets are 3.2 ms, less than BaseRTT/φ = 44/8 = 5.5 ms, so the fast mode
//! holds until its own queue passes α): alone, its precautionary decongestion keeps the
//! bottleneck queue near α where Reno fills a buffer of three pipes; beside Reno it takes no
//! more than a Reno flow in its place would (Scalable TCP, its fast mode, takes 24 times
//! Reno's goodput there). Every scenario runs on the
//! fast and the reference route, which must give identical tables and series.
//!
//! Timestamps are off: Linux hands congestion control the RTT of the newest segment an ACK
//! covers, from its send time, which is ccsim's sample without timestamps.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{dumbbell, mean_between, on_both_routes, one_flow, points};

/// One bulk flow over 300 Mb/s with 20 ms one way (base RTT 44 ms, pipe 1100 packets) and a
/// DropTail of 3000 packets, for 20 s, the queue sampled every 10 ms.
fn alone(cc: &str) -> Results {
    on_both_routes(&one_flow(
        "300Mbps",
        20.0,
        3000,
        20.0,
        &format!(r#""cc":"{cc}","timestamps":false"#),
        "",
        r#""series":["queue"],"interval":"10ms""#,
    ))
}

#[test]
fn alone_it_keeps_the_queue_near_alpha_where_reno_fills_the_buffer() {
    let yeah = alone("yeah");
    let reno = alone("reno");
    // Both overflow the buffer in their first slow start; then YeAH's queue stays small.
    let q = |r: &Results| mean_between(r, SeriesName::Queue, 0, 10.0, 20.0);
    let peak = points(&yeah, SeriesName::Queue, 0)
        .iter()
        .filter(|p| p.0 >= 10.0)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    // Measured: mean 59 packets (peak below 300) against Reno's 1160.
    assert!(q(&yeah) < 100.0, "yeah {}", q(&yeah));
    assert!(peak < 300.0, "yeah peak {peak}");
    assert!(q(&reno) > 800.0, "reno {}", q(&reno));
    // And the link stays as busy.
    let g = |r: &Results| r.flows.f64s("goodput_bps")[0];
    assert!(
        g(&yeah) > 0.98 * g(&reno),
        "yeah {} reno {}",
        g(&yeah),
        g(&reno)
    );
}

/// `a` and Reno (started 0.1 s later) on the same path with a one-pipe buffer (1100 packets),
/// for 60 s: `a`'s goodput over Reno's.
fn beside_reno(a: &str) -> f64 {
    let flows = format!(
        r#"{{"kind":"tcp","name":"a","src":"s0","dst":"d0","tcp":{{"cc":"{a}","timestamps":false}}}},
           {{"kind":"tcp","name":"reno","src":"s1","dst":"d1","start":0.1,"tcp":{{"cc":"reno","timestamps":false}}}}"#
    );
    let r = on_both_routes(&dumbbell(
        "linux",
        2,
        "300Mbps",
        20.0,
        r#"{"kind":"droptail","limit":1100}"#,
        60.0,
        &flows,
        "",
    ));
    let g = r.flows.f64s("goodput_bps");
    g[0] / g[1]
}

#[test]
fn beside_reno_it_takes_no_more_than_reno_would() {
    // Reno's queue puts YeAH in the slow mode (Reno's growth); after ρ = 16 slow rounds a loss
    // halves it as Reno. The flow started first keeps an advantage for a long time on this
    // path: a Reno in YeAH's place has 2.29 times the other's goodput after 60 s; YeAH 0.97.
    let yeah = beside_reno("yeah");
    let reno = beside_reno("reno");
    assert!(
        yeah >= 0.75 && yeah < reno,
        "yeah/reno {yeah}, reno/reno {reno}"
    );
}
