//! Veno's signature end to end: under random loss on an uncongested path it cuts its window
//! by a fifth and keeps more of the link than Reno; when its own queue causes the loss it
//! halves, and above β queued packets it grows every other round trip, so it overflows the
//! buffer less often than Reno. Every scenario runs on the fast and the reference route, which
//! must give identical tables and series.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{on_both_routes, one_flow, points};

/// One bulk flow over 10 Mb/s with 20 ms one way (pipe ≈ 38 packets of 1500 bytes) and a
/// DropTail of `queue` packets, with random loss `p` on the bottleneck, for 60 s.
///
/// Timestamps are off: Linux hands congestion control the RTT of the newest segment an ACK
/// covers, from its send time (`ack_sample.rtt_us`), and so does ccsim's sender without
/// timestamps; with them it takes the echo, which under delayed ACKs is the earlier segment's
/// (RFC 7323 §4.3) and adds the receiver's wait to the sample Veno reads its backlog from.
fn flow(cc: &str, queue: u32, p: f64) -> Results {
    let loss = if p > 0.0 {
        format!(r#","loss":{{"kind":"bernoulli","p":{p}}}"#)
    } else {
        String::new()
    };
    on_both_routes(&one_flow(
        "10Mbps",
        20.0,
        queue,
        60.0,
        &format!(r#""cc":"{cc}","timestamps":false"#),
        &loss,
        r#""series":["cwnd","ssthresh"]"#,
    ))
}

/// Each window reduction as the new ssthresh over the window just before it.
fn cuts(r: &Results) -> Vec<f64> {
    let cwnd = points(r, SeriesName::Cwnd, 0);
    let ss = points(r, SeriesName::Ssthresh, 0);
    ss.windows(2)
        .filter(|w| w[1].1 != w[0].1)
        .map(|w| {
            let t = w[1].0;
            let before = cwnd.iter().take_while(|p| p.0 < t).last().unwrap().1;
            w[1].1 / before
        })
        .collect()
}

fn share(cuts: &[f64], lo: f64, hi: f64) -> f64 {
    cuts.iter().filter(|c| (lo..=hi).contains(*c)).count() as f64 / cuts.len() as f64
}

#[test]
fn random_loss_on_an_uncongested_path_cuts_a_fifth_and_keeps_more_than_reno() {
    // 1 % random loss: Reno's window averages about √(1.5/p) ≈ 12 segments, Veno's, cutting a
    // fifth, about √(4.5/p) ≈ 21 — both below the 38-packet pipe, so Veno's backlog stays below
    // β and most losses read as random. Some do not: with delayed ACKs, the segment before a
    // lost one is acknowledged only when a later one arrives, and that one late sample (the
    // "RTT" of diff is the last ACK's, as in Linux) reads as a queue.
    let reno = flow("reno", 100, 0.01);
    let veno = flow("veno", 100, 0.01);
    for r in [&reno, &veno] {
        assert!(r.queues.u64s("drops_overflow").iter().all(|&d| d == 0));
    }
    let (rc, vc) = (cuts(&reno), cuts(&veno));
    assert!(rc.len() > 50 && vc.len() > 50, "{} {}", rc.len(), vc.len());
    assert!(share(&rc, 0.49, 0.53) > 0.97, "reno {rc:?}");
    let fifth = share(&vc, 0.79, 0.83);
    assert!(fifth > 0.8, "veno cut a fifth in {fifth} of {vc:?}");
    let (g_reno, g_veno) = (
        reno.flows.f64s("goodput_bps")[0],
        veno.flows.f64s("goodput_bps")[0],
    );
    assert!(g_veno > 1.35 * g_reno, "veno {g_veno}, reno {g_reno}");
}

#[test]
fn congestion_loss_halves_and_growth_above_beta_is_every_other_round_trip() {
    // A 20-packet buffer and no random loss: every loss is an overflow of Veno's own queue, so
    // every cut halves. Reno's cycle from W/2 to W ≈ 38 + 20 = 58 takes 29 round trips; Veno
    // grows one segment per round trip only to about 38 + 3, then one per two: 12 + 2·17 = 46
    // round trips, so about 29/46 ≈ 0.63 as many losses in the same time.
    let reno = flow("reno", 20, 0.0);
    let veno = flow("veno", 20, 0.0);
    let (rc, vc) = (cuts(&reno), cuts(&veno));
    assert!(vc.len() > 10, "{vc:?}");
    assert!(vc.iter().all(|c| (0.49..=0.53).contains(c)), "{vc:?}");
    let ratio = vc.len() as f64 / rc.len() as f64;
    assert!(
        (0.5..=0.75).contains(&ratio),
        "{} vs {} cuts",
        vc.len(),
        rc.len()
    );
    assert!(veno.flows.f64s("goodput_bps")[0] > 0.98 * reno.flows.f64s("goodput_bps")[0]);
}
