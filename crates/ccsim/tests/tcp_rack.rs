//! RACK-TLP (RFC 8985) and the timeout that keeps the SACK scoreboard (Linux `tcp_enter_loss`)
//! end to end: a lost tail repaired by a probe, lost retransmissions found without a timeout,
//! and what a timeout resends; the fast and reference routes agree with them on.

mod common;

use ccsim::results::Results;
use common::{assert_same_tables, bulk_flows, dumbbell, on_both_routes, one_flow, run};

/// The `linux` profile's loss machinery, each setting given: `on` true, the others false, so
/// that a run shows what those alone do (the profile turns all five on).
fn only(on: &[&str]) -> String {
    ["prr", "rack", "tlp", "rto_keeps_sack", "receiver_quickack"]
        .iter()
        .map(|k| format!(r#","{k}":{}"#, on.contains(k)))
        .collect()
}

/// `segments` of 1448 bytes over `one_flow("10Mbps", 18 ms)` (Linux's settings, SACK,
/// handshake) with the extra TCP settings, bottleneck packets `drops` dropped: packet 0 is
/// the SYN, packet k data segment k − 1 (no other loss before them).
fn finite(segments: u64, drops: &str, extra: &str) -> String {
    let tcp = format!(r#""recovery":"sack"{extra}"#);
    one_flow(
        "10Mbps",
        18.0,
        1000,
        10.0,
        &tcp,
        &format!(r#","loss":{{"kind":"list","packets":[{drops}]}}"#),
        "",
    )
    .replace(
        r#""dst":"d0","#,
        &format!(r#""dst":"d0","size":{},"#, segments * 1448),
    )
}

#[test]
fn a_lost_last_segment_is_repaired_by_a_probe_without_a_timeout() {
    let plain = run(&finite(100, "100", &only(&[])));
    assert_eq!(plain.flows.u64s("timeouts"), [1]);
    let tlp = on_both_routes(&finite(100, "100", &only(&["rack", "tlp"])));
    assert_eq!(tlp.flows.u64s("timeouts"), [0]);
    assert_eq!(
        tlp.flows.u64s("retransmits"),
        [1],
        "the probe resent the last segment"
    );
    assert_eq!(tlp.flows.u64s("bytes_delivered"), [100 * 1448]);
}

#[test]
fn a_lost_tail_of_three_is_found_by_rack_from_the_probe_s_sack() {
    // The probe resends segment 99; its SACK shows 97 and 98 sent a round trip before it:
    // RACK marks them lost and SACK recovery resends them. Without: a timeout.
    let plain = run(&finite(100, "98,99,100", &only(&[])));
    assert_eq!(plain.flows.u64s("timeouts"), [1]);
    let r = on_both_routes(&finite(100, "98,99,100", &only(&["rack", "tlp"])));
    assert_eq!(r.flows.u64s("timeouts"), [0]);
    assert_eq!(r.flows.u64s("fast_retransmits"), [1]);
    assert_eq!(r.flows.u64s("retransmits"), [3]);
    let (t, t0) = (
        r.flows.f64s("completion_s")[0],
        plain.flows.f64s("completion_s")[0],
    );
    assert!(t < t0 - 0.1, "completion {t} s against {t0} s");
}

/// Eight bulk Reno flows (Linux's settings) through RED without ECN on a 10 Mb/s, 20 ms
/// dumbbell for 30 s, with the extra TCP settings: many losses, some of retransmissions.
fn red(extra: &str) -> String {
    dumbbell(
        "linux",
        8,
        "10Mbps",
        20.0,
        r#"{"kind":"red"}"#,
        30.0,
        &bulk_flows(8, &format!(r#""ecn":false{extra}"#)),
        "",
    )
}

fn sum(r: &Results, column: &str) -> u64 {
    r.flows.u64s(column).iter().sum()
}

#[test]
fn rack_finds_lost_retransmissions_that_took_timeouts() {
    // Without RACK a retransmission lost in fast recovery waits for the RTO (54 timeouts
    // here through Linux's RED, 27 through ns-2's); RACK finds it a round trip later (6), with
    // TLP and PRR as Linux (1).
    let plain = run(&red(&only(&[])));
    let rack = run(&red(&only(&["rack"])));
    let linux = on_both_routes(&red(&only(&["rack", "tlp", "prr"])));
    let (t0, t1, t2) = (
        sum(&plain, "timeouts"),
        sum(&rack, "timeouts"),
        sum(&linux, "timeouts"),
    );
    assert!(t0 >= 15, "timeouts without RACK: {t0}");
    assert!(
        3 * t1 < t0 && 3 * t2 < t0,
        "timeouts {t0}, RACK {t1}, RACK-TLP+PRR {t2}"
    );
}

#[test]
fn a_timeout_that_keeps_the_scoreboard_resends_about_what_was_lost() {
    // Forgetting the SACKs at a timeout resends segments the receiver holds: here 1094
    // retransmissions for 1042 losses (ns-2's RED: 1036 for 910). Keeping them (Linux), each
    // retransmission repairs a loss (1072 for 1074).
    let forget = run(&red(&only(&[])));
    let keep = on_both_routes(&red(&only(&["rto_keeps_sack"])));
    assert!(
        sum(&keep, "timeouts") >= 10,
        "timeouts {}",
        sum(&keep, "timeouts")
    );
    let excess = |r: &Results| sum(r, "retransmits") as f64 / sum(r, "packets_dropped") as f64;
    assert!(excess(&forget) > 1.03, "forgetting: {}", excess(&forget));
    assert!(excess(&keep) < 1.01, "keeping: {}", excess(&keep));
}

#[test]
fn random_loss_with_lost_acks_takes_no_timeout_with_rack_tlp() {
    // 3 % data loss and 5 % ACK loss: the RFC 6675 sender takes 8 timeouts; RACK-TLP with
    // the kept scoreboard none, and resends only what was lost (125 of 126: the last was
    // dropped 2 ms before the end).
    let tcp = format!(
        r#""recovery":"sack"{}"#,
        only(&["rto_keeps_sack", "rack", "tlp"])
    );
    let loss =
        r#","loss":{"kind":"bernoulli","p":0.03},"loss_reverse":{"kind":"bernoulli","p":0.05}"#;
    let r = on_both_routes(&one_flow("20Mbps", 20.0, 300, 30.0, &tcp, loss, ""));
    assert_eq!(r.flows.u64s("timeouts"), [0]);
    // No spurious retransmission; a loss in the last round trip may not be found by the end.
    let (rtx, lost) = (
        r.flows.u64s("retransmits")[0],
        r.flows.u64s("packets_dropped")[0],
    );
    assert!(
        rtx <= lost && lost - rtx <= 1,
        "{rtx} retransmissions for {lost} losses"
    );
}

#[test]
fn the_linux_profile_runs_all_five() {
    // PRR, RACK, TLP, the kept scoreboard and the quick-ACK receiver are the `linux` profile's
    // defaults, as in current Linux: a flow that names none of them runs as one that turns
    // all five on, and with them takes a fraction of the classic machinery's timeouts.
    let all = only(&["prr", "rack", "tlp", "rto_keeps_sack", "receiver_quickack"]);
    let default = on_both_routes(&red(""));
    assert_same_tables(&default, &run(&red(&all)), "defaults against all five on");
    let classic = run(&red(&only(&[])));
    assert!(
        3 * sum(&default, "timeouts") < sum(&classic, "timeouts"),
        "timeouts {} against {} without",
        sum(&default, "timeouts"),
        sum(&classic, "timeouts")
    );
}
