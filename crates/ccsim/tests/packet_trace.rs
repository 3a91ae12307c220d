//! Packet traces (`trace.packets`, `net/packet_log.rs`): tracing changes no result; the records
//! agree with the link's counters (arrivals, drops by cause, departures); a FIFO's packets
//! leave in the order they came, each reaching the far node one serialisation and one
//! propagation delay after it left the queue; unknown links are refused by name. Every run
//! checks packet conservation and determinism.

mod common;

use ccsim::results::Results;
use common::{assert_same_tables, dumbbell, run_deterministic};

/// Two Reno flows (one with ECN) and 2 Mb/s of CBR on a 10 Mb/s, 20 ms dumbbell whose
/// bottleneck has `queue` and `loss` (JSON members after the queue), for 20 s, tracing the
/// packets of `traced` (a JSON list).
fn scenario(queue: &str, loss: &str, traced: &str) -> String {
    let flows = r#"{"kind":"tcp","name":"a","src":"s0","dst":"d0","tcp":{"cc":"reno"}},
        {"kind":"tcp","name":"b","src":"s1","dst":"d1","start":1,"tcp":{"cc":"reno","ecn":true}},
        {"kind":"cbr","name":"c","src":"s2","dst":"d2","rate":"2Mbps"}"#;
    let json = dumbbell(
        "linux",
        3,
        "10Mbps",
        20.0,
        queue,
        20.0,
        flows,
        &format!(r#""packets":{traced}"#),
    );
    json.replace(
        &format!(r#""queue":{queue}"#),
        &format!(r#""queue":{queue}{loss}"#),
    )
}

const QUEUES: [(&str, &str); 4] = [
    (r#"{"kind":"droptail","limit":30}"#, ""),
    (r#"{"kind":"red","limit":60,"ecn":true}"#, ""),
    (r#"{"kind":"codel","limit":60}"#, ""),
    (
        r#"{"kind":"droptail","limit":30}"#,
        r#","loss":{"kind":"bernoulli","p":0.01}"#,
    ),
];

/// The rows of `r.packets` for one direction of a link.
struct Dir<'a> {
    r: &'a Results,
    rows: Vec<usize>,
}

impl<'a> Dir<'a> {
    fn of(r: &'a Results, link: &str, from: &str) -> Dir<'a> {
        let p = &r.packets;
        let (links, froms) = (p.strs("link"), p.strs("from"));
        let rows = (0..links.len())
            .filter(|&i| links[i] == link && froms[i] == from)
            .collect();
        Dir { r, rows }
    }

    fn count(&self, event: &str, cause: &str) -> u64 {
        let (e, c) = (self.r.packets.strs("event"), self.r.packets.strs("cause"));
        self.rows
            .iter()
            .filter(|&&i| e[i] == event && (cause == "*" || c[i] == cause))
            .count() as u64
    }

    /// A packet's identity: flow, kind, sequence and acknowledgement numbers, send time.
    fn id(&self, i: usize) -> (String, String, u64, u64, u64) {
        let p = &self.r.packets;
        (
            p.strs("flow")[i].clone(),
            p.strs("kind")[i].clone(),
            p.u64s("seq")[i],
            p.u64s("ack")[i],
            (p.f64s("sent_s")[i] * 1e9).round() as u64,
        )
    }

    fn with(&self, event: &str) -> Vec<usize> {
        let e = self.r.packets.strs("event");
        self.rows
            .iter()
            .copied()
            .filter(|&i| e[i] == event)
            .collect()
    }
}

/// The queues-table row of a direction.
fn queue_row(r: &Results, link: &str, from: &str) -> usize {
    let (l, f) = (r.queues.strs("link"), r.queues.strs("from"));
    (0..l.len())
        .find(|&i| l[i] == link && f[i] == from)
        .unwrap()
}

#[test]
fn tracing_changes_no_result() {
    for (queue, loss) in QUEUES {
        let plain = run_deterministic(&scenario(queue, loss, "[]"));
        assert_eq!(plain.packets.columns.len(), 21);
        assert_eq!(plain.packets.f64s("time_s").len(), 0);
        let traced = run_deterministic(&scenario(queue, loss, r#"["bottleneck","access_s0"]"#));
        assert_same_tables(&traced, &plain, &format!("traced {queue}{loss}"));
        assert!(!traced.packets.f64s("time_s").is_empty());
    }
}

#[test]
fn records_agree_with_the_counters() {
    for (queue, loss) in QUEUES {
        let r = run_deterministic(&scenario(queue, loss, r#"["*"]"#));
        let t = r.packets.f64s("time_s");
        let rank = |e: &str| ["r", "+", "d", "-"].iter().position(|x| *x == e).unwrap();
        let e = r.packets.strs("event");
        assert!(
            (1..t.len()).all(|i| (t[i - 1], rank(&e[i - 1])) <= (t[i], rank(&e[i]))),
            "time, then cause before effect"
        );
        assert!(t.iter().all(|&x| x <= 20.0));
        for (link, from) in [
            ("bottleneck", "left"),
            ("bottleneck", "right"),
            ("access_s1", "s1"),
        ] {
            let d = Dir::of(&r, link, from);
            let q = queue_row(&r, link, from);
            let col = |c: &str| r.queues.u64s(c)[q];
            let what = format!("{queue}{loss} {link} from {from}");
            assert_eq!(d.count("+", "*"), col("arrivals"), "{what}");
            assert_eq!(d.count("d", "overflow"), col("drops_overflow"), "{what}");
            assert_eq!(d.count("d", "early"), col("drops_early"), "{what}");
            assert_eq!(d.count("d", "forced"), col("drops_forced"), "{what}");
            assert_eq!(d.count("d", "loss"), col("drops_loss"), "{what}");
            // Dequeued: departed, or on the transmitter at the end.
            let left = d.count("-", "*");
            assert!(
                left == col("departures") || left == col("departures") + 1,
                "{what}"
            );
            // Received: every dequeued packet that was not lost, less those that had not
            // reached the far node by the end (on the bottleneck, 10 Mb/s and 20 ms, when
            // each gets there is known from its dequeue).
            if link == "bottleneck" {
                let lost: std::collections::HashSet<_> = d
                    .with("d")
                    .into_iter()
                    .filter(|&i| r.packets.strs("cause")[i] == "loss")
                    .map(|i| d.id(i))
                    .collect();
                let p = &r.packets;
                let late = d
                    .with("-")
                    .into_iter()
                    .filter(|&i| !lost.contains(&d.id(i)))
                    .filter(|&i| {
                        p.f64s("time_s")[i] + p.u64s("size")[i] as f64 * 8e-7 + 0.02 > 20.0
                    })
                    .count() as u64;
                let arrived = d.count("r", "*");
                assert_eq!(arrived + lost.len() as u64 + late, left, "{what}");
            }
        }
        // Every CE mark made at the bottleneck shows on a dequeued packet.
        if queue.contains("\"ecn\":true") {
            let d = Dir::of(&r, "bottleneck", "left");
            let ce = d
                .with("-")
                .iter()
                .filter(|&&i| r.packets.u64s("ce")[i] == 1)
                .count();
            assert_eq!(
                ce as u64,
                r.queues.u64s("marks")[queue_row(&r, "bottleneck", "left")]
            );
        }
    }
}

/// 10 Mb/s, 20 ms: a 1000-byte CBR packet takes 800 µs to serialise and arrives 20.8 ms after
/// it left the queue; a FIFO serves its packets in the order they came.
#[test]
fn a_fifo_keeps_order_and_each_packet_arrives_a_serialisation_and_a_delay_after_it_left() {
    let r = run_deterministic(&scenario(QUEUES[0].0, "", r#"["bottleneck"]"#));
    let d = Dir::of(&r, "bottleneck", "left");
    let dropped: std::collections::HashSet<_> = d.with("d").iter().map(|&i| d.id(i)).collect();
    let came: Vec<_> = d
        .with("+")
        .iter()
        .map(|&i| d.id(i))
        .filter(|x| !dropped.contains(x))
        .collect();
    let left: Vec<_> = d.with("-").iter().map(|&i| d.id(i)).collect();
    assert_eq!(came[..left.len()], left[..]);
    assert!(!dropped.is_empty());
    let p = &r.packets;
    let out: std::collections::HashMap<_, f64> = d
        .with("-")
        .iter()
        .map(|&i| (d.id(i), p.f64s("time_s")[i]))
        .collect();
    let arrivals = d.with("r");
    assert!(arrivals.len() > 1000);
    for i in arrivals {
        let tx = p.u64s("size")[i] as f64 * 8.0 / 10e6;
        let expect = out[&d.id(i)] + tx + 0.020;
        assert!((p.f64s("time_s")[i] - expect).abs() < 1e-9, "{:?}", d.id(i));
    }
    let cbr = d
        .with("r")
        .into_iter()
        .find(|&i| p.strs("kind")[i] == "udp")
        .unwrap();
    assert_eq!((p.u64s("size")[cbr], p.u64s("payload")[cbr]), (1000, 972));
}

#[test]
fn a_link_named_twice_is_traced_once() {
    let once = run_deterministic(&scenario(QUEUES[0].0, "", r#"["bottleneck"]"#));
    let twice = run_deterministic(&scenario(QUEUES[0].0, "", r#"["bottleneck","*"]"#));
    let bottleneck = |r: &Results| {
        let links = r.packets.strs("link");
        (0..links.len())
            .filter(|&i| links[i] == "bottleneck")
            .count()
    };
    assert_eq!(bottleneck(&once), once.packets.strs("link").len());
    assert_eq!(bottleneck(&twice), bottleneck(&once));
}

#[test]
fn unknown_links_are_refused_by_name() {
    let json = scenario(QUEUES[0].0, "", r#"["bottleneck","core"]"#);
    let e = ccsim::scenario::load(&json)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.starts_with("trace.packets[1]: no link named \"core\"; links are: bottleneck, "),
        "{e}"
    );
}

/// `uid` names one packet at every hop: traced on every link of the lossy dumbbell, each number
/// has one flow, kind, `seq`, `ack` and send time; crosses each direction at most once, in
/// the order `+`, then `-` or `d`, then `r` or `d` (`loss`); and only a packet that reached a
/// direction's far node (`r`) appears on a later one. Numbers run from 0 in the order packets
/// are sent.
#[test]
fn every_packet_keeps_its_number_across_hops() {
    use std::collections::{BTreeMap, HashMap};
    let (queue, loss) = QUEUES[3];
    let r = run_deterministic(&scenario(queue, loss, r#"["*"]"#));
    let p = &r.packets;
    let (uid, event, link, from) = (
        p.u64s("uid"),
        p.strs("event"),
        p.strs("link"),
        p.strs("from"),
    );
    let all = Dir {
        r: &r,
        rows: (0..uid.len()).collect(),
    };
    let mut by_uid: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, &u) in uid.iter().enumerate() {
        by_uid.entry(u).or_default().push(i);
    }
    let mut sent = vec![];
    for (u, rows) in &by_uid {
        let id = all.id(rows[0]);
        assert!(rows.iter().all(|&i| all.id(i) == id), "uid {u}: {id:?}");
        let mut hops: HashMap<(&str, &str), String> = HashMap::new();
        let mut last_hop_reached = true;
        for &i in rows {
            let hop = hops.entry((&link[i], &from[i])).or_default();
            if hop.is_empty() {
                assert!(last_hop_reached, "uid {u} went on after it was lost");
            }
            hop.push_str(&event[i]);
            last_hop_reached = hop.ends_with('r');
        }
        for (hop, events) in &hops {
            assert!(
                ["+", "+-", "+d", "+-r", "+-d"].contains(&events.as_str()),
                "uid {u} at {hop:?}: {events}"
            );
        }
        sent.push((p.f64s("sent_s")[rows[0]], *u));
    }
    let lost = all.with("d").len();
    assert!(lost > 0 && by_uid.len() > 1000);
    // In the order they were sent (the sort by time is stable, and numbers grow with it).
    let mut by_time = sent.clone();
    by_time.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    assert_eq!(by_time, sent);
    assert_eq!(*by_uid.keys().next().unwrap(), 0);
}

/// Issue 33, defect 11: the trace reads as on the wire. Each connection's SYN carries its ISN
/// and takes one sequence number, so its first payload byte is ISN + 1 and an ACK of `n`
/// bytes acknowledges ISN + 1 + n; the SYN-ACK carries the receiver's ISN and acknowledges the
/// SYN; flags are named (the ECN flow's SYN is an ECN-setup SYN, RFC 3168 §6.1.1), and options
/// are tcpdump's.
#[test]
fn sequence_numbers_flags_and_options_are_the_wires() {
    let r = run_deterministic(&scenario(QUEUES[1].0, "", r#"["access_s0","access_s1"]"#));
    let p = &r.packets;
    let (flow, kind, flags, event) = (
        p.strs("flow"),
        p.strs("kind"),
        p.strs("flags"),
        p.strs("event"),
    );
    let (seq, ack, payload) = (p.u64s("seq"), p.u64s("ack"), p.u64s("payload"));
    for (f, syn_flags, synack_flags) in
        [("a", "SYN", "SYN,ACK"), ("b", "SYN,ECE,CWR", "SYN,ACK,ECE")]
    {
        let rows: Vec<usize> = (0..flow.len())
            .filter(|&i| flow[i] == f && event[i] == "+")
            .collect();
        let syn = rows
            .iter()
            .copied()
            .find(|&i| kind[i] == "tcp" && flags[i].contains("SYN"))
            .expect("a SYN");
        assert_eq!(flags[syn], syn_flags, "flow {f}");
        let isn = seq[syn];
        let synack = rows
            .iter()
            .copied()
            .find(|&i| kind[i] == "ack" && flags[i].contains("SYN"))
            .expect("a SYN-ACK");
        assert_eq!(flags[synack], synack_flags, "flow {f}");
        assert_eq!(ack[synack], (isn + 1) % (1 << 32));
        assert_ne!(seq[synack], isn, "each direction has its own ISN");
        let opts = p.strs("options");
        assert!(
            opts[syn].starts_with("mss 1448,sackOK,TS val "),
            "{}",
            opts[syn]
        );
        assert!(opts[syn].contains(",wscale "), "{}", opts[syn]);
        let data: Vec<usize> = rows
            .iter()
            .copied()
            .filter(|&i| kind[i] == "tcp" && !flags[i].contains("SYN"))
            .collect();
        assert_eq!(seq[data[0]], (isn + 1) % (1 << 32), "first payload byte");
        assert!(data.iter().all(|&i| flags[i].starts_with("ACK")));
        assert!(data
            .iter()
            .all(|&i| ack[i] == (seq[synack] + 1) % (1 << 32)));
        // The highest byte acknowledged is ISN + 1 + bytes delivered (modulo 2^32).
        let fi = r.flows.strs("flow").iter().position(|x| x == f).unwrap();
        let delivered = r.flows.u64s("bytes_delivered")[fi];
        let rel = |a: u64| (a + (1 << 32) - isn - 1) % (1 << 32);
        let acked = rows
            .iter()
            .filter(|&&i| kind[i] == "ack")
            .map(|&i| rel(ack[i]))
            .max()
            .unwrap();
        assert!(
            acked <= delivered && delivered - acked < 100 * 1448,
            "{acked} {delivered}"
        );
        // Data segments' payload starts are multiples of the MSS past ISN + 1.
        assert!(data
            .iter()
            .all(|&i| rel(seq[i]) % 1448 == 0 && payload[i] > 0));
    }
    // ECN: the ECN flow's data is ECT(0) (2) or CE (3); the other's Not-ECT.
    let (ecn, ce) = (p.u64s("ecn"), p.u64s("ce"));
    for i in 0..flow.len() {
        assert_eq!(ce[i] == 1, ecn[i] == 3);
        if kind[i] == "tcp" && !flags[i].contains("SYN") {
            let want: &[u64] = if flow[i] == "b" { &[2, 3] } else { &[0] };
            assert!(want.contains(&ecn[i]), "row {i}: {}", ecn[i]);
        }
    }
}

/// `trace.pcap` traces its links' packets (the pcap files are written from them,
/// `python/ccsim/pcap.py`) and refuses unknown links by name, as `trace.packets` does.
#[test]
fn pcap_links_are_traced_and_unknown_ones_refused() {
    let json = scenario(QUEUES[0].0, "", "[]")
        .replace(r#""packets":[]"#, r#""packets":[],"pcap":["bottleneck"]"#);
    let r = run_deterministic(&json);
    let links = r.packets.strs("link");
    assert!(!links.is_empty() && links.iter().all(|l| l == "bottleneck"));
    let bad = json.replace(r#""pcap":["bottleneck"]"#, r#""pcap":["core"]"#);
    let e = ccsim::scenario::load(&bad)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.starts_with("trace.pcap[0]: no link named \"core\""),
        "{e}"
    );
}
