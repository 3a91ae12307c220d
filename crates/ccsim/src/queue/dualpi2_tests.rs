//! DualPI2's unit tests, with values worked by hand from RFC 9332 and Linux `sch_dualpi2.c`.

use super::super::harness::Harness;
use super::*;
use crate::queue::param::error_text;

fn ms(x: u64) -> SimTime {
    SimTime::from_micros(x * 1000)
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

fn ctx() -> QueueContext {
    QueueContext {
        profile: crate::config::Profile::Linux,
        rate: crate::time::Rate(10_000_000),
        delay: ms(10),
    }
}

fn dualpi2() -> DualPi2 {
    DualPi2Spec::default().build(&ctx()).unwrap()
}

#[test]
fn the_pi_controller_integrates_the_head_delay_every_tupdate() {
    let mut h = Harness::new();
    let mut q = dualpi2();
    // A classic packet enqueued at 0 and never served: the head's sojourn is the time.
    h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
    // At 16 ms: qdelay 0.016 s; p' = 0.16·(0.016 − 0.015) + 3.2·(0.016 − 0) = 0.00016 + 0.0512.
    h.offer(&mut q, 0, 1500, Ecn::NotEct, ms(16));
    assert!((q.prob() - 0.05136).abs() < 1e-12, "{}", q.prob());
    // At 32 ms: + 0.16·(0.032 − 0.015) + 3.2·(0.032 − 0.016) = 0.00272 + 0.0512 → 0.10528.
    h.offer(&mut q, 0, 1500, Ecn::NotEct, ms(32));
    assert!((q.prob() - 0.10528).abs() < 1e-12, "{}", q.prob());
    // An L packet that has waited longer counts instead (the max of both heads): at 48 ms the
    // classic head has waited 48 ms either way, so p' += 0.16·0.033 + 3.2·0.016 = 0.05648.
    h.offer(&mut q, 1, 1500, Ecn::Ect1, ms(40));
    h.offer(&mut q, 1, 1500, Ecn::Ect1, ms(48));
    assert!((q.prob() - 0.16176).abs() < 1e-12, "{}", q.prob());
    // Below target with a falling delay, p' falls, and never below zero.
    let mut q = dualpi2();
    q.prob = 0.01;
    h.offer(&mut q, 1, 1500, Ecn::Ect1, SimTime::ZERO);
    // 16 ms: qdelay 0.016 → p' = 0.01 + 0.00016 + 0.0512; drain it, then at 32 ms both empty:
    // p' += 0.16·(0 − 0.015) + 3.2·(0 − 0.016) = −0.0024 − 0.0512 → 0.06136 − 0.0536 = 0.00776.
    h.offer(&mut q, 1, 1500, Ecn::Ect1, ms(16));
    while q.dequeue(&mut h.ctx(ms(16))).is_some() {}
    h.offer(&mut q, 1, 1500, Ecn::Ect1, ms(32));
    assert!((q.prob() - 0.00776).abs() < 1e-12, "{}", q.prob());
    q.dequeue(&mut h.ctx(ms(32)));
    h.offer(&mut q, 1, 1500, Ecn::Ect1, ms(48));
    // At 48 ms the queue is empty: p' += 0.16·(0 − 0.015) + 3.2·(0 − 0) → 0.00536.
    assert!((q.prob() - 0.00536).abs() < 1e-12, "{}", q.prob());
    // Three more empty updates (64, 80, 96 ms) take 0.0072: kept at zero.
    while q.dequeue(&mut h.ctx(ms(48))).is_some() {}
    h.offer(&mut q, 1, 1500, Ecn::Ect1, ms(96));
    assert_eq!(q.prob(), 0.0);
}

#[test]
fn ect1_and_ce_go_to_the_l_queue_which_gets_nine_packets_in_ten() {
    let mut h = Harness::new();
    let mut q = dualpi2();
    // Classic first, then L: the L queue still goes first (credit starts at 1500·(10 − 90)).
    for _ in 0..30 {
        h.offer(&mut q, 0, 1500, Ecn::Ect0, SimTime::ZERO);
    }
    for i in 0..30 {
        let e = if i % 2 == 0 { Ecn::Ect1 } else { Ecn::Ce };
        h.offer(&mut q, 1, 1500, e, SimTime::ZERO);
    }
    h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
    // Credit −120,000, +15,000 per L packet (10 % of 1500 per cent), −135,000 per classic one:
    // L is served while the credit is ≤ 0, i.e. 9 L packets (−120,000 → +15,000), then one C
    // (→ −120,000), and again.
    let order: Vec<u32> = (0..20)
        .map(|_| {
            let p = q.dequeue(&mut h.ctx(us(500))).unwrap();
            h.arena.get(p).flow
        })
        .collect();
    let expect: Vec<u32> = [[1; 9].as_slice(), &[0], &[1; 9], &[0]].concat();
    assert_eq!(order, expect);
    assert!(h.marked.is_empty(), "p' = 0 and no packet waited 1 ms");
}

#[test]
fn coupled_probabilities_are_p_squared_for_classic_and_k_p_for_l() {
    let n = 40_000;
    let rate = |ecn: Ecn, prob: f64| {
        let mut h = Harness::new();
        let mut q = DualPi2Spec {
            limit: Some(n),
            ..Default::default()
        }
        .build(&ctx())
        .unwrap();
        q.prob = prob;
        q.next_update = SimTime::MAX; // hold p'
        for _ in 0..n {
            h.offer(&mut q, 0, 1500, ecn, SimTime::ZERO);
        }
        while q.dequeue(&mut h.ctx(us(100))).is_some() {}
        let marked = h.marked.len() as f64 / n as f64;
        let dropped = h.dropped.len() as f64 / n as f64;
        (marked, dropped)
    };
    let near = |x: f64, want: f64| (x - want).abs() < 0.01;
    // p' = 0.3: classic ECT(0) marked with 0.09, Not-ECT dropped with 0.09; L marked with 0.6.
    let (m, d) = rate(Ecn::Ect0, 0.3);
    assert!(near(m, 0.09) && d == 0.0, "{m} {d}");
    let (m, d) = rate(Ecn::NotEct, 0.3);
    assert!(m == 0.0 && near(d, 0.09), "{m} {d}");
    let (m, d) = rate(Ecn::Ect1, 0.3);
    assert!(near(m, 0.6) && d == 0.0, "{m} {d}");
    // Overload, p' = 0.6 (k·p' = 1.2): classic packets hit with 0.36 are dropped even if
    // ECN-capable; L packets are dropped with 0.36 and every other one is marked.
    let (m, d) = rate(Ecn::Ect0, 0.6);
    assert!(m == 0.0 && near(d, 0.36), "{m} {d}");
    let (m, d) = rate(Ecn::Ect1, 0.6);
    assert!(near(d, 0.36) && near(m, 0.64), "{m} {d}");
}

#[test]
fn the_l_step_marks_after_one_millisecond_and_nothing_acts_below_two_mtus() {
    let mut h = Harness::new();
    let mut q = dualpi2();
    q.next_update = SimTime::MAX;
    h.offer(&mut q, 1, 1500, Ecn::Ect1, SimTime::ZERO);
    h.offer(&mut q, 1, 1500, Ecn::Ect1, SimTime::ZERO);
    h.offer(&mut q, 1, 1500, Ecn::Ect1, SimTime::ZERO);
    q.dequeue(&mut h.ctx(us(1000)));
    assert!(
        h.marked.is_empty(),
        "exactly 1 ms is not more than the step"
    );
    q.dequeue(&mut h.ctx(us(1001)));
    assert_eq!(h.marked, vec![Reason::Forced]);
    // With p' = 1, a lone packet (1500 B < 2 MTU left... here nothing left) is neither
    // dropped nor marked by the coupled AQM; the step still applies to L.
    let mut q = dualpi2();
    q.prob = 1.0;
    q.next_update = SimTime::MAX;
    h.marked.clear();
    h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
    assert!(q.dequeue(&mut h.ctx(us(10))).is_some());
    assert!(h.dropped.is_empty() && h.marked.is_empty());
}

#[test]
fn arrivals_beyond_the_limit_are_dropped() {
    let mut h = Harness::new();
    let mut q = DualPi2Spec {
        limit: Some(2),
        ..Default::default()
    }
    .build(&ctx())
    .unwrap();
    assert_eq!(
        h.offer(&mut q, 0, 1500, Ecn::Ect1, SimTime::ZERO),
        Verdict::Enqueued
    );
    assert_eq!(
        h.offer(&mut q, 0, 1500, Ecn::Ect0, SimTime::ZERO),
        Verdict::Enqueued
    );
    assert_eq!(
        h.offer(&mut q, 0, 1500, Ecn::Ect1, SimTime::ZERO),
        Verdict::Dropped(Reason::Overflow)
    );
    assert_eq!((q.len_packets(), q.len_bytes()), (2, 3000));
}

#[test]
fn bad_parameters_name_the_field() {
    let bad = |s: DualPi2Spec| error_text(s.build(&ctx()));
    assert!(bad(DualPi2Spec {
        c_protection: Some(101),
        ..Default::default()
    })
    .starts_with("q.c_protection:"));
    assert!(bad(DualPi2Spec {
        coupling_factor: Some(0.0),
        ..Default::default()
    })
    .starts_with("q.coupling_factor:"));
    assert!(bad(DualPi2Spec {
        alpha: Some(-1.0),
        ..Default::default()
    })
    .starts_with("q.alpha:"));
    assert!(bad(DualPi2Spec {
        mtu: Some(Bytes(0)),
        ..Default::default()
    })
    .starts_with("q.mtu:"));
}
