//! Random small scenarios run as planned (cut-through, direct directions, early hand-over)
//! and with every packet forwarded by its event must give the same tables: a net for the
//! combinations the targeted tests in `express_path.rs` and `early_delivery.rs` do not name.
//! Dumbbells of one to four pairs through DropTail, RED with ECN or CoDel, with or without wire
//! loss; chains of one to four hops with one flow or two, either way; each flow with its own
//! congestion control, recovery, receive window, delayed-ACK timer, RTO floor, handshake, size
//! or stop. (3,000 such cases agreed when early hand-over was written; these are the first.)

mod common;

use ccsim::results::Results;

/// A linear congruential generator (Knuth's MMIX constants): reproducible cases, no crate.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
        of[self.below(of.len() as u64) as usize]
    }
}

/// Runs `json` with cut-through as planned or off; checks conservation.
fn run(json: &str, cut_through: bool) -> Results {
    let mut sim = ccsim::scenario::load(json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    if !cut_through {
        sim.set_cut_through(false);
    }
    sim.run();
    let c = sim.counters;
    assert_eq!(
        c.injected,
        c.consumed + c.dropped + sim.packets_in_network()
    );
    assert_eq!(sim.packets_live() as u64, sim.packets_in_network());
    ccsim::results::collect(&mut sim)
}

fn assert_same(json: &str) {
    let (a, b) = (run(json, true), run(json, false));
    assert!(a.meta.events <= b.meta.events);
    common::assert_same_tables(&a, &b, json);
}

/// The `tcp` settings of one flow.
fn tcp(r: &mut Lcg) -> String {
    format!(
        r#""cc":"{}","recovery":"{}","rwnd":"{}","delayed_ack_timeout":"{}","min_rto":"{}","ecn":{},"handshake":{}"#,
        r.pick(&["reno", "cubic", "vegas", "bic"]),
        r.pick(&["newreno", "sack", "reno"]),
        r.pick(&["2896B", "4344B", "64000B", "1000000B"]),
        r.pick(&["1ms", "3ms", "40ms"]),
        r.pick(&["2ms", "20ms", "200ms"]),
        r.below(2) == 0,
        r.below(3) == 0,
    )
}

/// A finite size, a stop before `duration`, or neither.
fn extent(r: &mut Lcg) -> String {
    match r.below(4) {
        0 => format!(r#","size":"{}B""#, 1448 * (1 + r.below(60))),
        1 => format!(r#","stop":{:.1}"#, 0.5 + r.below(15) as f64 * 0.1),
        _ => String::new(),
    }
}

/// TCP flow `i` from `src` to `dst` starting at `start` s, with a random extent and settings.
fn flow(r: &mut Lcg, i: u64, src: &str, dst: &str, start: f64) -> String {
    let (extent, tcp) = (extent(r), tcp(r));
    format!(
        r#"{{"kind":"tcp","name":"f{i}","src":"{src}","dst":"{dst}","start":{start}{extent},"tcp":{{{tcp}}}}}"#
    )
}

#[test]
fn random_dumbbells() {
    let mut r = Lcg(12345);
    for case in 0..60 {
        let pairs = 1 + r.below(4);
        let flows: Vec<String> = (0..pairs)
            .map(|i| {
                let start = r.below(10) as f64 * 0.05;
                flow(&mut r, i, &format!("s{i}"), &format!("d{i}"), start)
            })
            .collect();
        let queue = r.pick(&[
            r#"{"kind":"droptail","limit":3}"#,
            r#"{"kind":"droptail","limit":20}"#,
            r#"{"kind":"red","min_th":3,"max_th":9,"limit":30,"ecn":true}"#,
            r#"{"kind":"codel"}"#,
        ]);
        let loss = r.pick(&["", "", "", r#","loss":{"kind":"bernoulli","p":0.01}"#]);
        let json = format!(
            r#"{{"name":"t","duration":{:.1},"seed":{case},"defaults":"linux",
            "topology":{{"kind":"dumbbell","pairs":{pairs},"bottleneck":{{"rate":"{}","delay":"{}ms","queue":{queue}{loss}}}}},
            "flows":[{}]}}"#,
            2.0 + r.below(30) as f64 * 0.1,
            r.pick(&["5Mbps", "12Mbps", "40Mbps"]),
            1 + r.below(20),
            flows.join(",")
        );
        assert_same(&json);
    }
}

#[test]
fn random_dumbbells_with_constant_rate_sources() {
    // About half the flows are CBR sources at a few equal rates, started at multiples of 50 ms:
    // their packets reach the bottleneck's merge in tie groups, which the inbound list sorts
    // once (`net/inbound.rs`), and their sinks take them early (`sim/handover.rs`).
    let mut r = Lcg(4242);
    for case in 0..40 {
        let pairs = 2 + r.below(5);
        let flows: Vec<String> = (0..pairs)
            .map(|i| {
                let start = r.below(6) as f64 * 0.05;
                let (src, dst) = (format!("s{i}"), format!("d{i}"));
                if r.below(2) == 0 {
                    let rate = r.pick(&["1Mbps", "2Mbps", "3Mbps"]);
                    format!(
                        r#"{{"kind":"cbr","name":"f{i}","src":"{src}","dst":"{dst}","rate":"{rate}","start":{start}}}"#
                    )
                } else {
                    flow(&mut r, i, &src, &dst, start)
                }
            })
            .collect();
        let queue = r.pick(&[
            r#"{"kind":"droptail","limit":3}"#,
            r#"{"kind":"droptail","limit":20}"#,
            r#"{"kind":"red","min_th":3,"max_th":9,"limit":30}"#,
        ]);
        let duration = 1.5 + r.below(20) as f64 * 0.1;
        let (rate, delay_ms) = (r.pick(&["5Mbps", "12Mbps"]), 1 + r.below(20));
        let json = common::dumbbell(
            "linux",
            pairs as u32,
            rate,
            delay_ms as f64,
            queue,
            duration,
            &flows.join(","),
            "",
        );
        assert_same(&json.replace(r#""seed":1"#, &format!(r#""seed":{case}"#)));
    }
}

#[test]
fn random_chains() {
    let mut r = Lcg(999);
    for case in 0..120 {
        let hops = 1 + r.below(4);
        let links: Vec<String> = (0..hops)
            .map(|_| {
                format!(
                    r#"{{"rate":"{}","delay":"{}ms","queue":{{"kind":"droptail","limit":{}}}}}"#,
                    r.pick(&["3Mbps", "10Mbps", "50Mbps", "100Mbps"]),
                    1 + r.below(10),
                    r.pick(&["2", "5", "20", "100"])
                )
            })
            .collect();
        // The first flow crosses the whole chain; a second starts anywhere; either may run
        // the other way.
        let mut flows = vec![];
        for i in 0..1 + r.below(2) {
            let (mut s, mut d) = (if i == 0 { 0 } else { r.below(hops) }, hops);
            if r.below(3) == 0 {
                (s, d) = (d, s);
            }
            let start = r.below(5) as f64 * 0.1;
            flows.push(flow(&mut r, i, &format!("n{s}"), &format!("n{d}"), start));
        }
        let json = format!(
            r#"{{"name":"t","duration":{:.1},"seed":{case},"defaults":"linux",
            "topology":{{"kind":"chain","links":[{}]}},"flows":[{}]}}"#,
            2.0 + r.below(20) as f64 * 0.1,
            links.join(","),
            flows.join(",")
        );
        assert_same(&json);
    }
}
