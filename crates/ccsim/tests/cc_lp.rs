//! TCP-LP's signature end to end: beside a Reno flow it takes a small share of the link, and
//! once the Reno flow stops it takes many times more, the capacity left spare. Every scenario
//! runs on the fast and the reference route, which must give identical tables and series.
//!
//! Timestamps are off (Linux hands congestion control the RTT of the newest segment an ACK
//! covers, from its send time, ccsim's sample without timestamps) and so are delayed ACKs: a
//! window of one or two segments waits the receiver's delayed-ACK timer, which the one-way
//! delay estimate reads as a rise, so TCP-LP, cut to one segment, would keep cutting (as it
//! would in Linux, whose timestamp one-way delay includes the wait too).

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{dumbbell, mean_between, on_both_routes};

/// A Reno flow from 0 to 40 s and a flow of `low` from 0.1 s to the end, 80 s, on 10 Mb/s
/// with 20 ms one way (base RTT 44 ms, pipe 37 packets) and a 100-packet DropTail; each
/// flow's throughput sampled every 100 ms.
fn beside_reno(low: &str) -> Results {
    let flows = format!(
        r#"{{"kind":"tcp","name":"reno","src":"s0","dst":"d0","stop":40,
             "tcp":{{"cc":"reno","timestamps":false,"delayed_ack":false}}}},
           {{"kind":"tcp","name":"low","src":"s1","dst":"d1","start":0.1,
             "tcp":{{"cc":"{low}","timestamps":false,"delayed_ack":false}}}}"#
    );
    on_both_routes(&dumbbell(
        "linux",
        2,
        "10Mbps",
        20.0,
        r#"{"kind":"droptail","limit":100}"#,
        80.0,
        &flows,
        r#""series":["throughput"],"interval":"100ms""#,
    ))
}

#[test]
fn it_yields_to_reno_and_takes_the_spare_capacity_when_alone() {
    let lp = beside_reno("lp");
    let reno = beside_reno("reno");
    let mbps =
        |r: &Results, id, from, to| mean_between(r, SeriesName::Throughput, id, from, to) / 1e6;
    // Measured: Reno 9.45 Mb/s and TCP-LP 0.20 while both run; a Reno flow in TCP-LP's place
    // takes 4.14 against 5.51.
    let (with_reno, reno_side) = (mbps(&lp, 1, 5.0, 40.0), mbps(&lp, 0, 5.0, 40.0));
    assert!(with_reno < 0.5, "tcp-lp {with_reno} Mb/s beside reno");
    assert!(reno_side > 9.0, "reno {reno_side} Mb/s beside tcp-lp");
    assert!(mbps(&reno, 1, 5.0, 40.0) > 3.5);
    // Alone: 3.82 Mb/s, 19 times its share beside Reno. Not the whole link: after each
    // indication the range restarts at [sd, 2·sd], so the next comes once its own queue adds
    // 15 % of the one-way delay (3.3 ms, under 3 packets here), and the cut halves the window
    // below the pipe and holds it for the 1 s inference timeout.
    let alone = mbps(&lp, 1, 45.0, 80.0);
    assert!(
        alone > 10.0 * with_reno && alone > 3.0,
        "alone {alone}, beside {with_reno}"
    );
}
