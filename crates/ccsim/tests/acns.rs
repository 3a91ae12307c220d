//! ACNS end to end (Olšovský 2014): routers that weigh flows by age and priority steer the
//! bandwidth to young, high-priority flows and keep the queue shorter than DropTail's; the
//! "printed" weights do the opposite; a loss without signs of congestion keeps the window;
//! negotiation falls back to plain ECN with a peer without ACNS, and an ECN router's CE reads as
//! fallback. Every run checks packet conservation and determinism.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{dumbbell, mean_between, run_deterministic};

const ACNS_QUEUE: &str = r#"{"kind":"acns","limit":100}"#;
const FIFO: &str = r#"{"kind":"droptail","limit":100}"#;

/// Three CUBIC flows with DSCP 0, 26 and 46 (the paper's Table 4) starting 5 s apart on a
/// 10 Mb/s, 20 ms dumbbell for 30 s, each with TCP settings `tcp` (JSON members).
fn three_flows(queue: &str, tcp: &str) -> Results {
    let flows: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","start":{},
                "tcp":{{"cc":"cubic","dscp":{}{tcp}}}}}"#,
                5 * i,
                [0, 26, 46][i]
            )
        })
        .collect();
    run_deterministic(&dumbbell(
        "linux",
        3,
        "10Mbps",
        20.0,
        queue,
        30.0,
        &flows.join(","),
        r#""series":["queue","acns_command"],"interval":"10ms""#,
    ))
}

fn goodput(r: &Results) -> &[f64] {
    r.flows.f64s("goodput_bps")
}

/// The paper's claim (§5, Table 6): the oldest, priority-0 flow gives way to the younger,
/// higher-priority ones, and the queue (so the RTT) is shorter than without ACNS.
#[test]
fn acns_favours_young_high_priority_flows_and_shortens_the_queue() {
    let plain = three_flows(FIFO, "");
    for request in ["window", "every-packet"] {
        let tcp = format!(r#","acns":{{"request":"{request}"}}"#);
        let a = three_flows(ACNS_QUEUE, &tcp);
        assert_eq!(a.flows.u64s("acns"), [1, 1, 1]);
        let g = goodput(&a);
        assert!(g[0] < g[1] && g[1] < g[2], "{request}: goodputs {g:?}");
        // Without ACNS the oldest flow gets the most (it had the link first).
        let gp = goodput(&plain);
        assert!(gp[0] > gp[1] && gp[0] > gp[2], "DropTail goodputs {gp:?}");
        // The oldest flow is told to fall back; it has the largest weight.
        let fb = a.flows.u64s("acns_fallbacks");
        assert!(fb[0] > 0, "{request}: fallbacks {fb:?}");
        // The bottleneck's forward direction wrote them; the ACKs' way writes none.
        let written = a.queues.u64s("acns_fallbacks");
        assert!(
            written[0] >= fb.iter().sum::<u64>(),
            "{request}: written {written:?}"
        );
        assert_eq!(written[1], 0);
        // The series shows the commands in force: from 10 s the oldest flow is told to fall
        // back most of the time, and more than either younger flow.
        let held = |i| mean_between(&a, SeriesName::AcnsCommand, i, 10.0, 30.0);
        let (h0, h1, h2) = (held(0), held(1), held(2));
        assert!(h0 > 2.5 && h0 > h1.max(h2), "{request}: {h0} {h1} {h2}");
        let q = mean_between(&a, SeriesName::Queue, 0, 10.0, 30.0);
        let qp = mean_between(&plain, SeriesName::Queue, 0, 10.0, 30.0);
        assert!(
            q < 0.8 * qp,
            "{request}: mean queue {q} against DropTail's {qp}"
        );
        let rtt = |r: &Results| r.flows.f64s("rtt_mean_s").iter().sum::<f64>();
        assert!(rtt(&a) < rtt(&plain), "{request}: RTTs {}", rtt(&a));
    }
}

/// Eqs. 3–4 as printed give the low-priority flows no command at all (F(p) = v_p·p_max/(p+1)
/// is 50.4 for priority 0), so they are not steered, and losses without commands keep windows.
#[test]
fn printed_weights_leave_low_priorities_alone() {
    let a = three_flows(
        r#"{"kind":"acns","limit":100,"weight":"printed"}"#,
        r#","acns":true"#,
    );
    let cmds = |i: usize| a.flows.u64s("acns_freezes")[i] + a.flows.u64s("acns_fallbacks")[i];
    assert_eq!((cmds(0), cmds(1), cmds(2)), (0, 0, 0));
    // With only normal answers received, most losses keep the window (C_trend = 1).
    let keep: u64 = a.flows.u64s("acns_trend_keep").iter().sum();
    let decrease: u64 = a.flows.u64s("acns_trend_decrease").iter().sum();
    assert!(keep > decrease, "kept {keep}, decreased {decrease}");
}

/// Random loss on a path with no congestion (no ACNS router, a deep buffer): the answers are
/// all normal, so losses keep the window (C_trend = 1), and ACNS CUBIC outruns plain CUBIC;
/// with the variant's decrease on every loss (th_L1 = th_L2 = 0.5) it is plain CUBIC again, to
/// the byte.
#[test]
fn losses_without_congestion_keep_the_window() {
    let run = |tcp: &str| {
        let flows = format!(
            r#"{{"kind":"tcp","name":"f","src":"s0","dst":"d0","tcp":{{"cc":"cubic"{tcp}}}}}"#
        );
        let queue = r#"{"kind":"droptail","limit":1000},"loss":{"kind":"bernoulli","p":0.002}"#;
        run_deterministic(&dumbbell(
            "linux", 1, "20Mbps", 20.0, queue, 20.0, &flows, "",
        ))
    };
    let plain = run("");
    let acns = run(r#","acns":true"#);
    let always_cut = run(r#","acns":{"th_l1":0.5,"th_l2":0.5}"#);
    let f = |r: &Results, c: &str| r.flows.u64s(c)[0];
    assert!(f(&acns, "acns_trend_keep") > 0);
    // Answers come once a window, so normal ones wash the pushed 2s out between losses this
    // far apart: almost every loss keeps the window (the first, before any answer, is the
    // variant's own).
    let cut = f(&acns, "acns_trend_fallback") + f(&acns, "acns_trend_decrease");
    assert!(
        f(&acns, "acns_trend_keep") > 10 * cut,
        "{cut} losses cut the window"
    );
    assert!(
        goodput(&acns)[0] > 1.2 * goodput(&plain)[0],
        "ACNS {} against {}",
        goodput(&acns)[0],
        goodput(&plain)[0]
    );
    assert_eq!(f(&always_cut, "acns_trend_keep"), 0);
    assert_eq!(f(&always_cut, "acns_trend_fallback"), 0);
    assert_eq!(goodput(&always_cut), goodput(&plain));
    assert_eq!(
        always_cut.flows.u64s("retransmits"),
        plain.flows.u64s("retransmits")
    );
}

/// §4.2.3: ACNS is agreed on the SYN/SYN-ACK; a receiver without ACNS leaves plain ECN
/// (RFC 3168), and one without either leaves neither. Without a handshake both ends are
/// configured.
#[test]
fn negotiation_falls_back_to_ecn() {
    let run = |tcp: &str| {
        let flows = format!(
            r#"{{"kind":"tcp","name":"f","src":"s0","dst":"d0","tcp":{{"cc":"cubic"{tcp}}}}}"#
        );
        run_deterministic(&dumbbell(
            "linux", 1, "10Mbps", 10.0, ACNS_QUEUE, 3.0, &flows, "",
        ))
    };
    let on = |r: &Results| (r.flows.u64s("acns")[0], r.flows.u64s("ecn")[0]);
    assert_eq!(on(&run(r#","acns":true"#)), (1, 1));
    assert_eq!(on(&run(r#","acns":true,"receiver_acns":false"#)), (0, 1));
    let neither = r#","acns":true,"receiver_acns":false,"receiver_ecn":false"#;
    assert_eq!(on(&run(neither)), (0, 0));
    assert_eq!(on(&run(r#","acns":true,"handshake":false"#)), (1, 1));
    let static_plain = r#","acns":true,"handshake":false,"receiver_acns":false"#;
    assert_eq!(on(&run(static_plain)), (0, 1));
    // Commands came through the ACNS router only where ACNS was agreed.
    let r = run(r#","acns":true"#);
    assert!(r.flows.u64s("acns_fallbacks")[0] + r.flows.u64s("acns_freezes")[0] > 0);
}

/// "New ACNS commands will appear as ECN commands for non-compatible nodes" (§4): an RED
/// router's CE is I7, which the ACNS ends read as fallback, not as an ECN echo.
#[test]
fn an_ecn_routers_marks_read_as_fallback() {
    // Floyd's RED in packet mode, gentle, with forced drops: marks sparse enough that no ACK
    // reports two (Linux's RED, the linux profile's, marks runs above max_th, which delayed
    // ACKs fold into one command).
    let red = r#"{"kind":"red","min_th":5,"max_th":15,"q_weight":0.002,"ecn":true,"limit":200,
        "mode":"packets","gentle":true,"wait":true,"harddrop":true}"#;
    // ACNS acts on a command only in the open state (recovery owns the window), so the flow
    // keeps the classic loss machinery: with RACK-TLP, PRR and the kept scoreboard it rides
    // out the start-up overshoot in one long recovery, where about half the marks fall.
    let flows = r#"{"kind":"tcp","name":"f","src":"s0","dst":"d0","tcp":{"acns":true,
        "prr":false,"rack":false,"tlp":false,"rto_keeps_sack":false,"receiver_quickack":false}}"#;
    let r = run_deterministic(&dumbbell("linux", 1, "10Mbps", 20.0, red, 10.0, flows, ""));
    assert_eq!(r.flows.u64s("acns"), [1]);
    assert!(r.flows.u64s("ce_marks")[0] > 0);
    assert_eq!(r.flows.u64s("acns_fallbacks"), r.flows.u64s("ce_marks"));
    assert_eq!(r.flows.u64s("ecn_reductions"), [0]);
    assert!(r.queues.f64s("utilisation")[0] > 0.9);
}

#[test]
fn bad_settings_name_the_field() {
    let err = |tcp: &str, queue: &str| {
        let flows = format!(r#"{{"kind":"tcp","name":"f","src":"s0","dst":"d0","tcp":{{{tcp}}}}}"#);
        let json = dumbbell("linux", 1, "10Mbps", 10.0, queue, 1.0, &flows, "");
        match ccsim::scenario::load(&json) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {tcp} {queue}"),
        }
    };
    let e = err(r#""acns":{"omega_count":0}"#, FIFO);
    assert_eq!(e, "flows[0].tcp.acns.omega_count: 0 is outside 1..=64");
    let e = err(r#""acns":{"th_l1":3}"#, FIFO);
    assert_eq!(
        e,
        "flows[0].tcp.acns.th_l2: 2.1587 must be at least th_l1 (3)"
    );
    let e = err(r#""acns":"yes""#, FIFO);
    assert!(
        e.contains("expected true, false or a table of ACNS settings"),
        "{e}"
    );
    let e = err(r#""acns":{"omega":3}"#, FIFO);
    assert!(e.contains("omega"), "{e}");
    let e = err(r#""acns":{"request":"always"}"#, FIFO);
    assert!(e.starts_with("flows[0].tcp.acns.request: "), "{e}");
    let e = err("", r#"{"kind":"acns","weight":"literal"}"#);
    assert!(e.contains("weight") || e.contains("literal"), "{e}");
    let e = err("", r#"{"kind":"acns","v_p":0.9,"v_a":0.2}"#);
    assert!(
        e.ends_with("v_a: v_p + v_a must be 1 (the paper's §3.1), got 0.9 + 0.2"),
        "{e}"
    );
}
