//! CoDel end to end: a long Reno flow through CoDel keeps its standing sojourn time at or
//! below target, where the same flow through a large DropTail buffer queues for most of a
//! second; with ECN the control law marks instead of dropping.

mod common;

use ccsim::config::SeriesName;
use ccsim::results::Results;
use common::{points, reno_through};

/// One Reno flow over 10 Mb/s, 20 ms for 30 s; the sojourn time sampled every 10 ms.
fn one_flow(queue: &str, ecn: bool) -> Results {
    reno_through(queue, 1, ecn)
}

/// Sojourn samples (seconds) after the start-up, sorted.
fn sojourns(r: &Results) -> Vec<f64> {
    let mut v: Vec<f64> = points(r, SeriesName::Sojourn, 0)
        .into_iter()
        .filter(|p| p.0 >= 5.0)
        .map(|p| p.1)
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

/// CoDel's own notion of the standing queue: the minimum sojourn over each 100 ms interval
/// (10 samples), averaged over the run.
fn standing(r: &Results) -> f64 {
    let v: Vec<f64> = points(r, SeriesName::Sojourn, 0)
        .into_iter()
        .filter(|p| p.0 >= 5.0)
        .map(|p| p.1)
        .collect();
    let mins: Vec<f64> = v
        .chunks(10)
        .map(|c| c.iter().cloned().fold(f64::INFINITY, f64::min))
        .collect();
    mins.iter().sum::<f64>() / mins.len() as f64
}

#[test]
fn codel_keeps_the_standing_sojourn_time_at_target() {
    let target = 0.005;
    let codel = one_flow(r#"{"kind":"codel"}"#, false);
    let bloat = one_flow(r#"{"kind":"droptail","limit":1000}"#, false);
    let (c, b) = (sojourns(&codel), sojourns(&bloat));
    let median = |v: &[f64]| v[v.len() / 2];
    let p90 = |v: &[f64]| v[v.len() * 9 / 10];
    // The standing queue stays at or below target; a single Reno flow drains it after each
    // drop, so the median is below target and only the peaks before a drop exceed it.
    assert!(standing(&codel) <= target, "standing {}", standing(&codel));
    assert!(median(&c) <= target, "median {}", median(&c));
    assert!(p90(&c) <= 3.0 * target, "p90 {}", p90(&c));
    // A 1000-packet FIFO holds hundreds of milliseconds.
    assert!(median(&b) > 0.2, "droptail median {}", median(&b));
    assert!(codel.queues.u64s("drops_early")[0] > 0);
    assert_eq!(codel.queues.u64s("drops_overflow")[0], 0);
    assert!(codel.queues.f64s("utilisation")[0] > 0.8);
}

#[test]
fn codel_with_ecn_marks_instead_of_dropping() {
    let r = one_flow(r#"{"kind":"codel","ecn":true}"#, true);
    assert!(r.queues.u64s("marks_early")[0] > 10);
    assert_eq!(r.queues.u64s("drops_early")[0], 0);
    assert_eq!(r.flows.u64s("retransmits"), [0]);
    assert!(r.flows.u64s("ecn_reductions")[0] > 10);
    assert!(standing(&r) <= 0.005, "standing {}", standing(&r));
}
