//! UDP sources end to end. On-off (ns-2's `Exponential` and `Pareto` traffic, `app/onoff.rs`):
//! the long-run rate the burst and idle means give, Poisson-like traffic with `on = 0`, bursts
//! that overflow a queue a constant-rate source of the same mean never fills, and each
//! source's own random stream. CBR (`app/udp.rs`): ns-2's `random_` jitter and `maxpkts_`.
//! Every run checks packet conservation and determinism.

mod common;

use ccsim::results::{Column, Results};
use common::{dumbbell, run_deterministic};

const FIFO: &str = r#"{"kind":"droptail","limit":100}"#;

/// One on-off flow s0 → d0 (JSON members after `kind`, `name`, `src` and `dst`) plus `more`
/// flows, on a 10 Mb/s, 10 ms dumbbell with `queue`, for `secs` seconds with seed `seed`.
fn onoff(settings: &str, more: &str, queue: &str, secs: f64, seed: u64) -> Results {
    let flows = format!(r#"{{"kind":"onoff","name":"bg","src":"s0","dst":"d0",{settings}}}{more}"#);
    let json = dumbbell("linux", 2, "10Mbps", 10.0, queue, secs, &flows, "");
    run_deterministic(&json.replace(r#""seed":1"#, &format!(r#""seed":{seed}"#)))
}

/// 2 Mb/s within a burst with 1000-byte packets: one packet every 4 ms. A mean on time of
/// 20 ms is a mean burst of m = 5 packets; rounded as ns-2 rounds, at least one, the mean burst
/// is e^(−1/(2m))/(1 − e^(−1/m)) + 1 − e^(−1/(2m)) = 0.9048374/0.1812692 + 0.0951626 =
/// 5.0868390 packets. A cycle (a burst, then an idle period of mean 80 ms) lasts
/// 5.0868390·4 ms + 80 ms = 100.347 ms on average: 50.692 packets per second, 15,208 in 300 s
/// (405.5 kb/s against the 400 kb/s of 2 Mb/s·20/(20 + 80)).
#[test]
fn exponential_on_off_sends_at_the_rate_its_means_give() {
    let r = onoff(
        r#""rate":"2Mbps","on":"20ms","off":"80ms","packet_size":1000"#,
        "",
        FIFO,
        300.0,
        1,
    );
    let sent = r.flows.u64s("packets_sent")[0] as f64;
    assert!((sent / 15_208.0 - 1.0).abs() < 0.05, "sent {sent}");
    // Nothing is lost at a fifth of the bottleneck's rate; what is missing is in flight.
    let delivered = r.flows.u64s("packets_delivered")[0] as f64;
    assert!(
        sent - delivered <= 2.0,
        "sent {sent}, delivered {delivered}"
    );
    assert!(matches!(r.flows.get("kind"), Some(Column::Str(k)) if k == &["onoff"]));
    // The same run with four other seeds averages closer still.
    let mean = (2..6)
        .map(|seed| {
            let r = onoff(
                r#""rate":"2Mbps","on":"20ms","off":"80ms","packet_size":1000"#,
                "",
                FIFO,
                300.0,
                seed,
            );
            r.flows.u64s("packets_sent")[0] as f64
        })
        .sum::<f64>()
        / 4.0;
    assert!((mean / 15_208.0 - 1.0).abs() < 0.025, "mean sent {mean}");
}

/// With `on = 0` every burst is one packet: packets are 4 ms plus an exponential idle time of
/// mean 10 ms apart, 1/14 ms = 71.43 per second, 21,429 in 300 s.
#[test]
fn zero_on_time_is_one_packet_per_burst() {
    let r = onoff(r#""rate":"2Mbps","on":0,"off":"10ms""#, "", FIFO, 300.0, 1);
    let sent = r.flows.u64s("packets_sent")[0] as f64;
    assert!((sent / 21_429.0 - 1.0).abs() < 0.03, "sent {sent}");
}

/// Bursts at twice the bottleneck's rate overflow a 20-packet queue, though the mean (2.0 Mb/s:
/// 125-packet bursts of 8000 bits every 500 ms on average) is a fifth of the link; a CBR source at that mean
/// rate never finds the queue full. Pareto bursts of the same means overflow it too.
#[test]
fn bursts_overflow_a_queue_that_the_same_mean_rate_never_fills() {
    let small = r#"{"kind":"droptail","limit":20}"#;
    let bursts = r#""rate":"20Mbps","on":"50ms","off":"450ms""#;
    let exp = onoff(bursts, "", small, 60.0, 1);
    let sent = exp.flows.u64s("packets_sent")[0];
    let dropped = exp.flows.u64s("packets_dropped")[0];
    assert!(dropped > sent / 20, "sent {sent}, dropped {dropped}");
    // Offered: every packet is 1000 bytes on the wire.
    let mean_bps = sent as f64 * 8000.0 / 60.0;
    assert!(mean_bps < 3e6, "mean {mean_bps} b/s");

    let cbr = format!(
        r#"[{{"kind":"cbr","name":"c","src":"s0","dst":"d0","rate":{mean_bps},
        "packet_size":1000}}]"#
    );
    let json = dumbbell(
        "linux",
        2,
        "10Mbps",
        10.0,
        small,
        60.0,
        &cbr[1..cbr.len() - 1],
        "",
    );
    let c = run_deterministic(&json);
    assert_eq!(c.flows.u64s("packets_dropped"), [0]);
    let cbr_sent = c.flows.u64s("packets_sent")[0];
    assert!(
        cbr_sent.abs_diff(sent) <= 1,
        "CBR {cbr_sent}, on-off {sent}"
    );

    let par = onoff(
        &format!(r#"{bursts},"distribution":"pareto","shape":1.5"#),
        "",
        small,
        60.0,
        1,
    );
    assert!(par.flows.u64s("packets_dropped")[0] > 0);
    assert_ne!(
        par.flows.u64s("packets_sent"),
        exp.flows.u64s("packets_sent")
    );
}

/// Each source draws from its own stream (seed and flow name): another on-off source before it
/// in the list, drawing from its own, does not move its packets, while another seed or another
/// name does.
#[test]
fn each_source_has_its_own_random_stream() {
    let settings = r#""rate":"2Mbps","on":"20ms","off":"80ms""#;
    let flow = |name: &str, pair: u32| {
        format!(r#"{{"kind":"onoff","name":"{name}","src":"s{pair}","dst":"d{pair}",{settings}}}"#)
    };
    let run = |flows: &str, seed: u64| {
        let json = dumbbell("linux", 2, "10Mbps", 10.0, FIFO, 30.0, flows, "");
        run_deterministic(&json.replace(r#""seed":1"#, &format!(r#""seed":{seed}"#)))
    };
    let alone = run(&flow("bg", 0), 1);
    let beside = run(&format!("{},{}", flow("other", 1), flow("bg", 0)), 1);
    let sent = |r: &Results, i: usize| r.flows.u64s("packets_sent")[i];
    assert_eq!(sent(&beside, 1), sent(&alone, 0));
    assert_ne!(sent(&beside, 0), sent(&alone, 0));
    assert_ne!(sent(&run(&flow("bg", 0), 2), 0), sent(&alone, 0));
    assert_ne!(sent(&run(&flow("other", 0), 1), 0), sent(&alone, 0));
}

#[test]
fn bad_settings_name_the_field() {
    let err = |settings: &str| {
        let flows = format!(r#"{{"kind":"onoff","name":"bg","src":"s0","dst":"d0",{settings}}}"#);
        let json = dumbbell("linux", 1, "10Mbps", 10.0, FIFO, 1.0, &flows, "");
        match ccsim::scenario::load(&json) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {settings}"),
        }
    };
    let e = err(r#""rate":"1Mbps","on":"1s","off":"1s","shape":2"#);
    assert_eq!(
        e,
        "flows[0].shape: a shape applies only to distribution = \"pareto\"; the exponential has none"
    );
    let e = err(r#""rate":"1Mbps","on":"1s","off":"1s","distribution":"pareto","shape":1"#);
    assert!(
        e.starts_with("flows[0].shape: 1 is not a finite number greater than 1"),
        "{e}"
    );
    let e = err(r#""rate":"1Mbps","on":"1s","off":"1s","distribution":"weibull""#);
    assert!(e.contains("distribution") && e.contains("pareto"), "{e}");
    let e = err(r#""rate":"1Mbps","off":"1s""#);
    assert!(e.contains("`on`"), "{e}");
    let e = err(r#""rate":"1Mbps","on":"1s","off":"1s","packet_size":20"#);
    assert!(
        e.starts_with("flows[0].packet_size: 20 bytes is outside"),
        "{e}"
    );
    let e = err(r#""rate":"1Mbps","on":"1s","off":"1s","dscp":64"#);
    assert_eq!(e, "flows[0].dscp: must be from 0 to 63");
}

/// The times a CBR source's packets join its first link (packet trace), for CBR settings
/// `settings` (JSON members), 1 Mb/s of 1000-byte packets (8 ms apart), with the flows `before`
/// listed ahead of it.
fn cbr_times(settings: &str, before: &str) -> (Results, Vec<f64>) {
    let (r, mut times) = cbr_times_of(settings, before, &["c"]);
    (r, times.remove(0))
}

/// As `cbr_times`, for each flow of `names`.
fn cbr_times_of(settings: &str, before: &str, names: &[&str]) -> (Results, Vec<Vec<f64>>) {
    let flows = format!(
        r#"{before}{{"kind":"cbr","name":"c","src":"s0","dst":"d0","rate":"1Mbps","packet_size":1000{settings}}}"#
    );
    let json = dumbbell(
        "linux",
        1,
        "10Mbps",
        10.0,
        FIFO,
        20.0,
        &flows,
        r#""packets":["access_s0"]"#,
    );
    let r = run_deterministic(&json);
    let p = &r.packets;
    let (ev, from, flow, t) = (
        p.strs("event"),
        p.strs("from"),
        p.strs("flow"),
        p.f64s("time_s"),
    );
    let times = names
        .iter()
        .map(|name| {
            (0..t.len())
                .filter(|&i| ev[i] == "+" && from[i] == "s0" && flow[i] == *name)
                .map(|i| t[i])
                .collect()
        })
        .collect();
    (r, times)
}

fn gaps(times: &[f64]) -> Vec<f64> {
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

/// ns-2's `random_`: each gap is the 8 ms interval plus a uniform draw within ±4 ms, so gaps
/// span 4–12 ms and average 8 ms; without it every gap is 8 ms. The first packet leaves at the
/// start; the jitter is the flow's own stream; `maxpkts_` stops the source.
#[test]
fn cbr_jitter_and_packet_limit_are_ns2s() {
    let (plain, times) = cbr_times(r#","start":0.5"#, "");
    assert_eq!(times[0], 0.5);
    assert!(gaps(&times).iter().all(|g| (g - 0.008).abs() < 1e-9));
    assert_eq!(plain.flows.u64s("packets_sent"), [2438]); // 19.5 s / 8 ms, rounded up
    let (_, times) = cbr_times(r#","random":true"#, "");
    let g = gaps(&times);
    let mean = g.iter().sum::<f64>() / g.len() as f64;
    assert!((mean - 0.008).abs() < 0.0002, "mean gap {mean}");
    let (lo, hi) = g
        .iter()
        .fold((1.0f64, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(
        (0.004 - 1e-9..0.0045).contains(&lo) && (0.0115..=0.012 + 1e-9).contains(&hi),
        "{lo}..{hi}"
    );
    // Another jittered source ahead of it, drawing from its own stream, moves none of them.
    let other = r#"{"kind":"cbr","name":"o","src":"s0","dst":"d0","rate":"1Mbps","random":true},"#;
    let (_, beside) = cbr_times_of(r#","random":true"#, other, &["c", "o"]);
    assert_eq!(beside[0], times);
    // Its stream is its name's: the other source, started with it, draws other gaps.
    assert_ne!(gaps(&beside[1])[..10], gaps(&times)[..10]);
    let (capped, _) = cbr_times(r#","max_packets":100"#, "");
    assert_eq!(capped.flows.u64s("packets_sent"), [100]);
    let flows = r#"{"kind":"cbr","name":"c","src":"s0","dst":"d0","rate":"1Mbps","max_packets":0}"#;
    let json = dumbbell("linux", 1, "10Mbps", 10.0, FIFO, 1.0, flows, "");
    let e = ccsim::scenario::load(&json)
        .err()
        .expect("refused")
        .to_string();
    assert_eq!(e, "flows[0].max_packets: must be at least 1");
}
