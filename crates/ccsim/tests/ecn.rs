//! ECN end to end (RFC 3168): negotiation, and what routers and senders do with it.

mod common;

use ccsim::results::Results;
use common::{bulk_flows, dumbbell, run_deterministic};

/// Four Reno flows through a marking RED (5/15 packets) for 20 s (four, so that ns-2's
/// 20-packet windows still fill the 10 Mb/s, 20 ms path).
fn through_red(profile: &str, tcp: &str) -> Results {
    run_deterministic(&dumbbell(
        profile,
        4,
        "10Mbps",
        20.0,
        r#"{"kind":"red","min_th":5,"max_th":15,"q_weight":0.002,"ecn":true,"limit":200}"#,
        20.0,
        &bulk_flows(4, tcp),
        "",
    ))
}

#[test]
fn negotiation_fails_cleanly_against_a_non_ecn_receiver() {
    // With the handshake (linux) the SYN-ACK lacks ECE; without it (ns2) the configuration of
    // both ends decides. Either way the data is Not-ECT, so RED drops instead of marking.
    for profile in ["linux", "ns2"] {
        let r = through_red(profile, r#""ecn":true,"receiver_ecn":false"#);
        assert_eq!(r.flows.u64s("ecn"), [0, 0, 0, 0], "{profile}");
        assert_eq!(r.queues.u64s("marks")[0], 0, "{profile}");
        assert!(r.queues.u64s("drops_early")[0] > 0, "{profile}");
        assert_eq!(r.flows.u64s("ce_marks"), [0, 0, 0, 0]);
        assert_eq!(r.flows.u64s("ecn_reductions"), [0, 0, 0, 0]);
        // The flows run normally on losses.
        let u = r.queues.f64s("utilisation")[0];
        assert!(u > 0.85, "{profile}: utilisation {u}");
    }
    // A sender that does not ask for ECN, facing an ECN receiver: the same.
    let r = through_red("linux", r#""ecn":false"#);
    assert_eq!(r.flows.u64s("ecn"), [0, 0, 0, 0]);
    assert_eq!(r.queues.u64s("marks")[0], 0);
    // Both ends willing: negotiated, marked, and reacting.
    for profile in ["linux", "ns2"] {
        let r = through_red(profile, r#""ecn":true"#);
        assert_eq!(r.flows.u64s("ecn"), [1, 1, 1, 1], "{profile}");
        assert!(r.queues.u64s("marks")[0] > 0, "{profile}");
        assert!(r.flows.u64s("ecn_reductions").iter().all(|&n| n > 0));
    }
}

/// Two Reno flows through an aggressive marker (min_th 2, max_th 6, max_p 0.5, w_q 0.05), with
/// the TCP settings `tcp`.
fn aggressive(tcp: &str) -> Results {
    run_deterministic(&dumbbell(
        "linux",
        2,
        "10Mbps",
        20.0,
        // ns-2's RED (packet mode, gentle, forced drops above 2·max_th) rather than the linux
        // profile's `sch_red`, which marks every ECN-capable packet above max_th.
        r#"{"kind":"red","min_th":2,"max_th":6,"q_weight":0.05,"max_p":0.5,"ecn":true,"limit":200,
            "mode":"packets","gentle":true,"wait":true,"harddrop":true}"#,
        20.0,
        &bulk_flows(2, tcp),
        "",
    ))
}

#[test]
fn the_echo_stops_at_cwr_and_senders_react_once_per_window() {
    // Several packets of a window are marked, but a sender halves at most once per round trip.
    // If the receiver never stopped echoing at CWR, or the sender reacted to every echo, the
    // windows would sit at 2 segments and the link mostly idle; instead ECN flows do as well
    // nearly as well as flows that see drops, without their retransmissions.
    let (ecn, plain) = (aggressive(r#""ecn":true"#), aggressive(r#""ecn":false"#));
    let marks: u64 = ecn.flows.u64s("ce_marks").iter().sum();
    let reductions = ecn.flows.u64s("ecn_reductions");
    let rtt_min = ecn.flows.f64s("rtt_min_s");
    for i in 0..2 {
        assert!(reductions[i] > 0);
        assert!(
            (reductions[i] as f64) < 20.0 / rtt_min[i],
            "flow {i}: {} reductions, rtt {}",
            reductions[i],
            rtt_min[i]
        );
    }
    assert!(
        marks > reductions.iter().sum::<u64>(),
        "{marks} marks, {reductions:?}"
    );
    // Linux spreads the cut over a round trip (PRR in the CWR state): the queue stays above
    // the thresholds longer than after RFC 3168's halving at once, so the flows cut more
    // windows (35 and 36 against 31 and 31) and get 0.92 of the dropped flows' goodput
    // rather than 1.0.
    let goodput = |r: &Results| r.flows.f64s("goodput_bps").iter().sum::<f64>();
    let at_once = aggressive(r#""ecn":true,"prr":false"#);
    for (what, r, share) in [("PRR", &ecn, 0.88), ("halving at once", &at_once, 0.97)] {
        assert!(
            goodput(r) > share * goodput(&plain),
            "{what}: {} vs {}",
            goodput(r),
            goodput(&plain)
        );
    }
    let cuts = |r: &Results| r.flows.u64s("ecn_reductions").iter().sum::<u64>();
    assert!(
        cuts(&ecn) > cuts(&at_once),
        "{} vs {}",
        cuts(&ecn),
        cuts(&at_once)
    );
    assert!(ecn.queues.f64s("utilisation")[0] > 0.7);
    let rtx = |r: &Results| r.flows.u64s("retransmits").iter().sum::<u64>();
    // (24 against 102 with RACK-TLP, which spares the dropped flows most spurious resends.)
    assert!(
        3 * rtx(&ecn) < rtx(&plain),
        "{} vs {}",
        rtx(&ecn),
        rtx(&plain)
    );
}
