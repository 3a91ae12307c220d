//! DCTCP end to end (RFC 8257; Alizadeh et al. 2010): through a step-marking queue with
//! K = 20 packets at 10 Gb/s and a data-centre round trip, two DCTCP flows hold the queue just
//! above K at full utilisation without a loss, and their α follows the fraction of packets the
//! queue marks. Reno through the same queue, halving at every marked window, leaves the link
//! partly idle. Every run is on the fast and the reference route, with identical results.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{on_both_routes, points};

const K: f64 = 20.0;

/// Two bulk flows of `cc` (Linux defaults, handshake, delayed ACKs) through a 10 Gb/s, 20 µs
/// bottleneck with 100 Gb/s, 10 µs access links (a base RTT of about 85 µs, a BDP of about
/// 70 packets), a step queue marking above K, for 0.3 s; the queue sampled every 50 µs.
fn two_flows(cc: &str) -> Results {
    let flows = (0..2)
        .map(|i| {
            format!(
                r#"{{"kind":"tcp","name":"f{i}","src":"s{i}","dst":"d{i}","start":{},"tcp":{{"cc":"{cc}","ecn":true}}}}"#,
                0.01 * i as f64
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    on_both_routes(&format!(
        r#"{{"name":"dctcp","duration":0.3,"seed":1,
        "topology":{{"kind":"dumbbell","pairs":2,
            "access":{{"rate":"100Gbps","delay":"10us"}},
            "bottleneck":{{"rate":"10Gbps","delay":"20us",
                "queue":{{"kind":"step","threshold":20,"limit":1000}}}}}},
        "flows":[{flows}],
        "trace":{{"series":["queue","ecn_alpha"],"interval":"50us"}}}}"#
    ))
}

fn after(v: Vec<(f64, f64)>, t: f64) -> Vec<f64> {
    v.into_iter().filter(|p| p.0 >= t).map(|p| p.1).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn dctcp_holds_the_queue_just_above_k_at_full_utilisation() {
    let r = two_flows("dctcp");
    let q = &r.queues;
    assert_eq!(q.u64s("drops_overflow")[0], 0);
    assert_eq!(
        q.u64s("drops_forced")[0],
        0,
        "SYNs and data are ECN-capable"
    );
    assert_eq!(r.flows.u64s("retransmits"), [0, 0]);
    assert!(
        q.f64s("utilisation")[0] > 0.98,
        "{}",
        q.f64s("utilisation")[0]
    );
    let s = after(points(&r, SeriesName::Queue, 0), 0.05);
    let (m, max) = (mean(&s), s.iter().cloned().fold(0.0, f64::max));
    assert!((K - 5.0..K + 5.0).contains(&m), "mean queue {m}");
    assert!(max <= K + 10.0, "max queue {max}");
    // The queue rarely drains: the link stays busy.
    let empty = s.iter().filter(|&&v| v == 0.0).count() as f64 / s.len() as f64;
    assert!(empty < 0.05, "empty {empty} of the time");
}

#[test]
fn alpha_tracks_the_marked_fraction() {
    let r = two_flows("dctcp");
    let marked = r.queues.u64s("marks")[0] as f64;
    let sent: f64 = r.flows.u64s("packets_sent").iter().sum::<u64>() as f64;
    let fraction = marked / sent;
    assert!(
        fraction > 0.02 && fraction < 0.5,
        "marked fraction {fraction}"
    );
    for id in 0..2 {
        let a = mean(&after(points(&r, SeriesName::EcnAlpha, id), 0.1));
        assert!(
            (a - fraction).abs() < 0.15 * fraction + 0.01,
            "flow {id}: mean α {a}, marked fraction {fraction}"
        );
    }
}

#[test]
fn reno_halving_at_each_marked_window_leaves_the_link_idle_more_often() {
    let dctcp = two_flows("dctcp");
    let reno = two_flows("reno");
    let idle = |r: &Results| {
        let s = after(points(r, SeriesName::Queue, 0), 0.05);
        s.iter().filter(|&&v| v == 0.0).count() as f64 / s.len() as f64
    };
    let (ri, di) = (idle(&reno), idle(&dctcp));
    assert!(ri > 0.1 && di < 0.02, "idle: reno {ri}, dctcp {di}");
    let util = |r: &Results| r.queues.f64s("utilisation")[0];
    assert!(util(&reno) < 0.95 && util(&dctcp) > 0.98);
}
