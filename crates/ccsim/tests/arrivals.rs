//! Poisson arrivals of finite TCP transfers (`tcp_arrivals`, `scenario/arrivals.rs`) end to
//! end: as many transfers as the rate gives, each a finite flow with its completion time, which
//! grows with the load as queueing says it must; the arrivals' own random stream; errors that
//! name the entry. Every run checks packet conservation and determinism.

mod common;

use ccsim::results::{Column, Results};
use common::{dumbbell, run_deterministic};

const FIFO: &str = r#"{"kind":"droptail","limit":100}"#;

/// Transfers of 100 kB arriving at `rate` per second from s0 to d0 for 60 s (then 10 s to
/// finish) on a 10 Mb/s, 10 ms dumbbell, beside the flows `more`.
fn web(rate: f64, more: &str) -> Results {
    let flows = format!(
        r#"{{"kind":"tcp_arrivals","name":"web","src":"s0","dst":"d0","arrival_rate":{rate},
        "size":"100kB","stop":60,"tcp":{{"cc":"cubic"}}}}{more}"#
    );
    run_deterministic(&dumbbell(
        "linux", 2, "10Mbps", 10.0, FIFO, 70.0, &flows, "",
    ))
}

fn names(r: &Results) -> Vec<String> {
    match r.flows.get("flow") {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no flow names"),
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// 2 and 10 arrivals per second of 100 kB: 1.6 and 8 Mb/s, a load of 16 % and 80 % on the
/// 10 Mb/s link. Each load starts about rate·60 transfers, every one completes, and the mean
/// completion time grows with the load: at least its no-queue value of about 0.15 s (slow
/// start from 10 segments over a 24 ms round trip: 10, 20, 40 segments, then the last 0.1 s
/// of serialisation), and longer when the transfers share the link.
#[test]
fn transfers_arrive_at_the_rate_and_complete_slower_under_load() {
    let light = web(2.0, "");
    let heavy = web(10.0, "");
    let mut fct = Vec::new();
    for (r, rate) in [(&light, 2.0), (&heavy, 10.0)] {
        let n = r.flows.u64s("packets_sent").len() as f64;
        let expect = rate * 60.0;
        // Poisson: within 3.5 standard deviations (√expect).
        assert!((n - expect).abs() < 3.5 * expect.sqrt(), "{n} for {expect}");
        let done = r.flows.f64s("completion_s");
        assert!(
            done.iter().all(|c| c.is_finite()),
            "every transfer completes"
        );
        assert!(r
            .flows
            .u64s("bytes_delivered")
            .iter()
            .all(|&b| b == 100_000));
        let starts = r.flows.f64s("start_s");
        assert!(starts.windows(2).all(|w| w[0] <= w[1]) && starts[starts.len() - 1] < 60.0);
        assert!(mean(done) > 0.1, "{}", mean(done));
        fct.push(mean(done));
    }
    assert!(fct[1] > 1.2 * fct[0], "mean completion {fct:?}");
    let n = names(&light);
    assert_eq!(&n[..3], ["web.0", "web.1", "web.2"]);
    assert!(
        matches!(light.flows.get("kind"), Some(Column::Str(k)) if k.iter().all(|k| k == "tcp"))
    );
}

/// The arrivals draw from their own stream: another entry before them, drawing from its own,
/// moves no start.
#[test]
fn another_entry_does_not_move_the_arrivals() {
    let alone = web(2.0, "");
    let flows = r#"{"kind":"tcp_arrivals","name":"dl","src":"s1","dst":"d1","arrival_rate":3,
        "size":{"distribution":"exponential","mean":"20kB"},"stop":60},
        {"kind":"tcp_arrivals","name":"web","src":"s0","dst":"d0","arrival_rate":2,
        "size":"100kB","stop":60,"tcp":{"cc":"cubic"}}"#;
    let beside = run_deterministic(&dumbbell("linux", 2, "10Mbps", 10.0, FIFO, 70.0, flows, ""));
    let starts = |r: &Results, prefix: &str| -> Vec<f64> {
        let names = names(r);
        let s = r.flows.f64s("start_s");
        (0..names.len())
            .filter(|&i| names[i].starts_with(prefix))
            .map(|i| s[i])
            .collect()
    };
    let (a, b) = (starts(&alone, "web."), starts(&beside, "web."));
    assert_eq!(a, b);
    assert!(!starts(&beside, "dl.").is_empty());
    assert_ne!(starts(&beside, "dl.")[..5], a[..5]);
}

#[test]
fn errors_name_the_entry() {
    let err = |flows: &str| {
        let json = dumbbell("linux", 2, "10Mbps", 10.0, FIFO, 10.0, flows, "");
        match ccsim::scenario::load(&json) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {flows}"),
        }
    };
    let arrivals = |extra: &str| {
        format!(
            r#"{{"kind":"tcp","name":"t","src":"s1","dst":"d1"}},
            {{"kind":"tcp_arrivals","name":"web","src":"s0","dst":"d0","arrival_rate":5,
            "size":1000{extra}}}"#
        )
    };
    // Refused however few transfers arrive: the names are the entry's.
    for rate in ["5", "0.001"] {
        let flows = arrivals("").replace("\"t\"", "\"web.3\"");
        let e = err(&flows.replace("\"arrival_rate\":5", &format!("\"arrival_rate\":{rate}")));
        assert_eq!(
            e,
            "flows[0].name: \"web.3\" is a name the tcp_arrivals entry flows[1] gives its transfers"
        );
    }
    // Names that only look alike are fine.
    for name in ["web", "web.3a", "web.", "webb.3"] {
        let flows = arrivals("").replace("\"t\"", &format!("\"{name}\""));
        if name == "web" {
            assert!(err(&flows).contains("duplicate flow name"));
        } else {
            let json = dumbbell("linux", 2, "10Mbps", 10.0, FIFO, 10.0, &flows, "");
            assert!(ccsim::scenario::load(&json).is_ok(), "{name}");
        }
    }
    let e = err(&arrivals(r#","tcp":{"cc":"nope"}"#));
    assert!(e.starts_with("flows[1].tcp.cc"), "{e}");
    let e = err(&arrivals("").replace(r#""dst":"d0""#, r#""dst":"x""#));
    assert!(e.starts_with("flows[1].dst: undefined node \"x\""), "{e}");
    let e = err(&arrivals("").replace("\"size\":1000", "\"size\":true"));
    assert!(e.contains("expected a number of bytes"), "{e}");
    let e = err(&arrivals("").replace("\"size\":1000", "\"size\":0"));
    assert!(e.starts_with("flows[1].size"), "{e}");
    let drawn = |table: &str| arrivals("").replace("\"size\":1000", &format!("\"size\":{table}"));
    let e = err(&drawn(r#"{"distribution":"pareto","mean":0}"#));
    assert!(e.starts_with("flows[1].size.mean: "), "{e}");
    let e = err(&drawn(r#"{"distribution":"pareto","mean":1000,"max":"x"}"#));
    assert!(e.starts_with("flows[1].size.max: "), "{e}");
    let e = err(&drawn(
        r#"{"distribution":"exponential","mean":1000,"max":999}"#,
    ));
    assert_eq!(
        e,
        "flows[1].size.max: 999 bytes is below the mean (1000 bytes)"
    );
    let e = err(&drawn(r#"{"distribution":"pareto","mean":1000,"scale":2}"#));
    assert!(e.starts_with("flows[1].size") && e.contains("scale"), "{e}");
    let e = err(&arrivals("").replace("\"arrival_rate\":5", "\"arrival_rate\":\"5Mbps\""));
    assert!(e.starts_with("flows[1].arrival_rate"), "{e}");
}
