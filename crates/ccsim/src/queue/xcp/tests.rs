//! The XCP router's unit tests: controllers, persistent queue, idle gaps, the congestion
//! bit, ns-2's virtual queues and random timers.

use super::*;
use crate::packet::Ecn;
use crate::queue::harness::Harness;

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn xcp_pkt(h: &mut Harness, flow: u32, cwnd: f64, rtt: f64, now: SimTime) -> PktId {
    let id = h.pkt(flow, 1000, Ecn::NotEct, now);
    h.arena.get_mut(id).kind = Kind::TcpData;
    h.arena.get_mut(id).xcp = Some(Box::new(XcpHeader {
        cwnd_bytes: cwnd,
        rtt_s: rtt,
        feedback_bytes: f64::INFINITY,
        ..XcpHeader::default()
    }));
    id
}

/// 1 MB/s link; two flows of 1000-byte packets with RTT 0.1 s: flow 0 cwnd 10,000 B
/// (100 kB/s), flow 1 cwnd 20,000 B (200 kB/s). Over the first 50 ms interval flow 0 sends
/// 5 packets and flow 1 sends 10: 15 kB, 300 kB/s.
#[test]
fn controllers_follow_equation_1_and_the_fairness_rule() {
    let mut h = Harness::new();
    let mut q = Xcp::new(XcpParams::new(1e6, 1000));
    for i in 0..10u64 {
        let t = ms(5 * i);
        if i % 2 == 0 {
            let p = xcp_pkt(&mut h, 0, 10_000.0, 0.1, t);
            q.enqueue(p, &mut h.ctx(t));
        }
        let p = xcp_pkt(&mut h, 1, 20_000.0, 0.1, t);
        q.enqueue(p, &mut h.ctx(t));
        // Keep the queue empty: every packet leaves at once.
        while q.dequeue(&mut h.ctx(t)).is_some() {}
    }
    // The interval ends at 50 ms, seen by the next packet.
    let p = h.pkt(9, 1000, Ecn::NotEct, ms(50));
    q.enqueue(p, &mut h.ctx(ms(50)));
    let c = q.control().clone();
    // d = Σ rtt²s/cwnd / Σ rtt s/cwnd = 0.1 (both flows have rtt 0.1).
    assert!((c.d - 0.1).abs() < 1e-12);
    // Input 15,000 B over 0.05 s = 300,000 B/s; spare 700,000 B/s; Q = 0.
    assert!((c.input_rate - 300_000.0).abs() < 1e-6);
    // φ = 0.4·0.1·700,000 = 28,000 B; h = max(0, 0.1·300,000·0.1 − 28,000) = 0.
    assert!((c.phi - 28_000.0).abs() < 1e-6, "{}", c.phi);
    assert_eq!(c.shuffled, 0.0);
    // Σ rtt·s/cwnd = 5·0.1·1000/10,000 + 10·0.1·1000/20,000 = 0.05 + 0.05 = 0.1, over 0.05 s;
    // the next interval (0.1 s) sends twice that: ξ_p = 28,000 / (0.1 · 0.2) = 1.4e6.
    assert!((c.xi_p - 1.4e6).abs() < 1e-3, "{}", c.xi_p);
    assert_eq!(c.xi_n, 0.0);
    // Each packet: p_i = ξ_p·rtt²·s/cwnd = 1.4e6·0.01·1000/10,000 = 1,400 B for flow 0 and
    // 700 B for flow 1: per RTT flow 0's 10 packets get 14,000 B, flow 1's 20 get 14,000 B,
    // the same throughput increase (140 kB/s each), 28,000 B in all = φ.
    let a = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(50));
    let b = xcp_pkt(&mut h, 1, 20_000.0, 0.1, ms(50));
    q.enqueue(a, &mut h.ctx(ms(50)));
    q.enqueue(b, &mut h.ctx(ms(50)));
    while let Some(p) = q.dequeue(&mut h.ctx(ms(50))) {
        let fb = h.arena.get(p).xcp.as_ref().map(|x| x.feedback_bytes);
        match h.arena.get(p).flow {
            0 => assert!((fb.unwrap() - 1400.0).abs() < 1e-6, "{fb:?}"),
            1 => assert!((fb.unwrap() - 700.0).abs() < 1e-6, "{fb:?}"),
            _ => assert_eq!(fb, None),
        }
    }
    assert!((q.control().residue_pos - (28_000.0 - 2_100.0)).abs() < 1e-6);
}

/// Over capacity with a standing queue: φ < 0, and negative feedback is proportional to
/// each packet's rtt·s.
#[test]
fn overload_and_queue_give_negative_feedback_in_proportion_to_throughput() {
    let mut h = Harness::new();
    let mut p = XcpParams::new(10_000.0, 1000);
    p.initial_interval = ms(100);
    let mut q = Xcp::new(p);
    // 0–100 ms: 20 packets of 1000 B arrive (200 kB/s against 10 kB/s), none leaves.
    for i in 0..20u64 {
        let pk = xcp_pkt(&mut h, 0, 20_000.0, 0.1, ms(5 * i));
        q.enqueue(pk, &mut h.ctx(ms(5 * i)));
    }
    // The queue timer fired at 100 ms... (window = d − 0 = 100 ms, at t = 100 ms): the first
    // Tq window's least queue, 0 at its start.
    let pk = h.pkt(9, 1000, Ecn::NotEct, ms(100));
    q.enqueue(pk, &mut h.ctx(ms(100)));
    let c = q.control().clone();
    // Input 20,000 B / 0.1 s = 200,000 B/s. φ = 0.4·0.1·(10,000 − 200,000) − 0.226·0 = −7,600.
    assert!((c.phi + 7_600.0).abs() < 1e-6, "{}", c.phi);
    // h = max(0, 0.1·200,000·0.1 − 7,600) = 0 → residue_neg 7,600.
    assert_eq!(c.shuffled, 0.0);
    // ξ_n = 7,600 / (0.1 · 20,000 · (0.1/0.1)) = 3.8; n_i = 3.8 · 0.1 · 1000 = 380 B.
    assert!((c.xi_n - 3.8).abs() < 1e-9);
    let out = q.dequeue(&mut h.ctx(ms(100))).unwrap();
    let fb = h.arena.get(out).xcp.as_ref().unwrap().feedback_bytes;
    assert!((fb + 380.0).abs() < 1e-9, "{fb}");
}

#[test]
fn persistent_queue_is_the_least_queue_over_the_window() {
    let mut h = Harness::new();
    let mut q = Xcp::new(XcpParams::new(1e6, 1000));
    // Queue of 3 packets from 0 to 50 ms: the window ending at 50 ms held at least 0 B (the
    // empty queue at its start); the next one (50–100 ms, minus 3 ms queueing) held 3,000 B.
    for _ in 0..3 {
        let p = h.pkt(0, 1000, Ecn::NotEct, ms(0));
        q.enqueue(p, &mut h.ctx(ms(0)));
    }
    let p = h.pkt(0, 1000, Ecn::NotEct, ms(60));
    q.enqueue(p, &mut h.ctx(ms(60)));
    assert_eq!(q.control().queue, 0.0);
    // Tq after 50 ms: 0.05 − 3,000/1e6 = 47 ms → fires at 97 ms with min 3,000 B.
    let p = h.pkt(0, 1000, Ecn::NotEct, ms(97));
    q.enqueue(p, &mut h.ctx(ms(97)));
    assert_eq!(q.control().queue, 3_000.0);
}

#[test]
fn a_router_only_lowers_the_feedback() {
    let mut h = Harness::new();
    let mut q = Xcp::new(XcpParams::new(1e6, 1000));
    for i in 0..10u64 {
        let p = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(5 * i));
        q.enqueue(p, &mut h.ctx(ms(5 * i)));
        q.dequeue(&mut h.ctx(ms(5 * i)));
    }
    let p = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(50));
    h.arena.get_mut(p).xcp.as_mut().unwrap().feedback_bytes = -5.0;
    q.enqueue(p, &mut h.ctx(ms(50)));
    let out = q.dequeue(&mut h.ctx(ms(50))).unwrap();
    assert!(q.control().xi_p > 0.0);
    assert_eq!(h.arena.get(out).xcp.as_ref().unwrap().feedback_bytes, -5.0);
}

#[test]
fn an_echo_on_an_ack_counts_as_traffic_and_is_left_alone() {
    let mut h = Harness::new();
    let mut q = Xcp::new(XcpParams::new(1e6, 1000));
    for i in 0..10u64 {
        let p = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(5 * i));
        h.arena.get_mut(p).kind = Kind::TcpAck;
        h.arena.get_mut(p).xcp.as_mut().unwrap().feedback_bytes = 7.0;
        q.enqueue(p, &mut h.ctx(ms(5 * i)));
        let out = q.dequeue(&mut h.ctx(ms(5 * i))).unwrap();
        assert_eq!(h.arena.get(out).xcp.as_ref().unwrap().feedback_bytes, 7.0);
    }
    let p = h.pkt(9, 1000, Ecn::NotEct, ms(50));
    q.enqueue(p, &mut h.ctx(ms(50)));
    // 10 kB of input in 50 ms, but no data packet to share feedback among.
    assert!((q.control().input_rate - 200_000.0).abs() < 1e-6);
    assert_eq!((q.control().xi_p, q.control().d), (0.0, 0.05));
}

#[test]
fn idle_gap_is_skipped_at_its_fixed_point() {
    let mut h = Harness::new();
    let mut q = Xcp::new(XcpParams::new(1e6, 1000));
    let p = xcp_pkt(&mut h, 0, 10_000.0, 0.2, ms(0));
    q.enqueue(p, &mut h.ctx(ms(0)));
    q.dequeue(&mut h.ctx(ms(0)));
    // 1000 s idle: the first interval sets d = 0.2 s, then φ = α·d·C = 80,000 B, nothing to
    // share it among (ξ_p = 0) — the same at every later interval.
    let t = SimTime::from_secs_f64(1000.0);
    let p = h.pkt(0, 1000, Ecn::NotEct, t);
    q.enqueue(p, &mut h.ctx(t));
    let c = q.control();
    assert!((c.d - 0.2).abs() < 1e-12);
    assert!((c.phi - 80_000.0).abs() < 1e-6);
    assert_eq!(c.xi_p, 0.0);
    assert!(q.next_te > t && q.next_te <= t + ms(200));
    assert!(q.next_tq > t && q.next_tq <= t + ms(200));
}

#[test]
fn a_gap_ending_before_the_next_timer_keeps_it() {
    // Timers at 1.0 s (control) and 1.3 s (queue) with `now` at 1.1 s stay where they are.
    let s = SimTime::from_secs_f64;
    assert_eq!(past(s(1.3), s(0.2), s(1.1)), s(1.3));
    assert_eq!(past(s(1.0), s(0.2), s(1.1)), s(1.2));
    assert_eq!(past(s(1.0), s(0.2), s(1.2)), s(1.4));
}

#[test]
fn congestion_bit_marks_a_full_queue_or_a_saturated_input() {
    let mut h = Harness::new();
    let mut p = XcpParams::new(1e6, 1000);
    p.congestion_threshold = Some(2);
    let mut q = Xcp::new(p);
    for _ in 0..4 {
        let pk = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(0));
        q.enqueue(pk, &mut h.ctx(ms(0)));
    }
    let bits = |h: &Harness, id: PktId| {
        let x = h.arena.get(id).xcp.as_ref().unwrap();
        (x.congested, x.queue_high)
    };
    // 3 waiting after the first leaves: at or above Q_th = 2.
    let a = q.dequeue(&mut h.ctx(ms(0))).unwrap();
    assert_eq!(bits(&h, a), (true, true));
    let b = q.dequeue(&mut h.ctx(ms(0))).unwrap();
    assert_eq!(bits(&h, b), (true, true));
    // 1 waiting, input rate of the (not yet ended) interval 0: no bit.
    let c = q.dequeue(&mut h.ctx(ms(0))).unwrap();
    assert_eq!(bits(&h, c), (false, false));
    // An interval whose input reached the capacity: 50 kB in 50 ms = 1e6 B/s.
    for i in 0..50u64 {
        let pk = h.pkt(1, 1000, Ecn::NotEct, ms(i));
        q.enqueue(pk, &mut h.ctx(ms(i)));
        q.dequeue(&mut h.ctx(ms(i)));
    }
    q.dequeue(&mut h.ctx(ms(50)));
    let pk = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(51));
    q.enqueue(pk, &mut h.ctx(ms(51)));
    let d = q.dequeue(&mut h.ctx(ms(51))).unwrap();
    assert!(q.control().input_rate >= 1e6);
    assert_eq!(bits(&h, d), (true, false));
}

/// Router with ns-2's virtual queues; the RED queues decide nothing below 50 packets
/// (thresholds 50 and 150, the average the queue itself).
fn virtual_router(limit: u32) -> Xcp {
    let red = || {
        Red::new(crate::queue::red::RedConfig {
            limit,
            min_th: 50.0,
            max_th: 150.0,
            ..crate::queue::red::tests::config()
        })
    };
    let others = Others {
        tcp: red(),
        other: red(),
    };
    Xcp::new(XcpParams::new(1e6, limit)).with_virtual_queues(others)
}

fn tcp_pkt(h: &mut Harness, flow: u32, kind: Kind) -> PktId {
    let id = h.pkt(flow, 1000, Ecn::NotEct, SimTime::ZERO);
    h.arena.get_mut(id).kind = kind;
    id
}

/// XCP packets, plain TCP (data and ACKs) and UDP wait apart and leave one a turn, in the
/// order XCP, TCP, other, skipping empty queues (ns-2's `XCPWrapQ::queueToDeque`). The
/// RED queues here are in packets, with thresholds that decide nothing (ns-2's, which the
/// router gets from its configuration (`config.rs`), are in bytes: `tests/xcp.rs` runs those).
#[test]
fn virtual_queues_take_turns_a_packet_each() {
    let mut h = Harness::new();
    let mut q = virtual_router(100);
    let t = SimTime::ZERO;
    let x1 = xcp_pkt(&mut h, 0, 10_000.0, 0.1, t);
    let x2 = xcp_pkt(&mut h, 0, 10_000.0, 0.1, t);
    let t1 = tcp_pkt(&mut h, 1, Kind::TcpData);
    let t2 = tcp_pkt(&mut h, 1, Kind::TcpAck);
    let u1 = h.pkt(2, 1000, Ecn::NotEct, t);
    for p in [x1, x2, t1, t2, u1] {
        assert_eq!(q.enqueue(p, &mut h.ctx(t)), Verdict::Enqueued);
    }
    assert_eq!((q.len_packets(), q.len_bytes()), (5, 5000));
    let mut order = Vec::new();
    while let Some(p) = q.dequeue(&mut h.ctx(t)) {
        order.push(p);
    }
    // TCP's turn first, as ns-2's first dequeue moves on from the XCP queue.
    assert_eq!(order, [t1, u1, x1, t2, x2]);
    // After XCP's packet the turn was TCP's; the loop's last call found every queue empty,
    // asked TCP's, and passed the turn on to the other queue.
    assert_eq!(q.turn, 2);
    let (t3, x3) = (
        tcp_pkt(&mut h, 1, Kind::TcpData),
        xcp_pkt(&mut h, 0, 1e4, 0.1, t),
    );
    q.enqueue(t3, &mut h.ctx(t));
    q.enqueue(x3, &mut h.ctx(t));
    assert_eq!(q.upcoming(), Some(x3));
    assert_eq!(q.dequeue(&mut h.ctx(t)), Some(x3));
    assert_eq!(q.dequeue(&mut h.ctx(t)), Some(t3));
    // Each empty poll passes the turn on: other → XCP → TCP, which then goes first.
    assert_eq!(q.turn, 2);
    assert!(q.dequeue(&mut h.ctx(t)).is_none());
    assert_eq!(q.turn, 0);
    assert!(q.dequeue(&mut h.ctx(t)).is_none());
    assert_eq!(q.turn, 1);
    let (t4, x4) = (
        tcp_pkt(&mut h, 1, Kind::TcpData),
        xcp_pkt(&mut h, 0, 1e4, 0.1, t),
    );
    q.enqueue(x4, &mut h.ctx(t));
    q.enqueue(t4, &mut h.ctx(t));
    assert_eq!(q.dequeue(&mut h.ctx(t)), Some(t4));
}

/// Each queue holds `limit` packets of its own, and the controllers count only the XCP
/// queue's arrivals: 20 TCP packets in the first interval leave its input rate at the
/// 5 XCP packets' 5 kB over 50 ms, 100 kB/s.
#[test]
fn only_xcp_traffic_feeds_the_controllers_and_each_queue_has_its_limit() {
    let mut h = Harness::new();
    let mut q = virtual_router(10);
    for i in 0..20 {
        let p = tcp_pkt(&mut h, 1, Kind::TcpData);
        let v = q.enqueue(p, &mut h.ctx(ms(i)));
        assert_eq!(v == Verdict::Enqueued, i < 10, "TCP packet {i}: {v:?}");
    }
    for i in 0..5 {
        let p = xcp_pkt(&mut h, 0, 10_000.0, 0.1, ms(i));
        assert_eq!(q.enqueue(p, &mut h.ctx(ms(i))), Verdict::Enqueued);
    }
    assert_eq!(q.len_packets(), 15);
    // The interval ends at 50 ms, seen by the next arrival.
    let p = tcp_pkt(&mut h, 1, Kind::TcpAck);
    q.enqueue(p, &mut h.ctx(ms(50)));
    assert!((q.control().input_rate - 100_000.0).abs() < 1e-6);
    // The persistent queue is the XCP queue's: 5 packets never left.
    assert_eq!(q.fifo.len_bytes(), 5000);
}

/// Box–Muller's draws have the normal's mean 0 and deviation 1 (100,000 draws: standard
/// errors 0.003 and 0.002).
#[test]
fn normal_draws_have_their_mean_and_deviation() {
    let mut r = Rng::derive(2, "n");
    let xs: Vec<f64> = (0..100_000).map(|_| normal(&mut r, 0.0, 1.0)).collect();
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
    assert!(mean.abs() < 0.015 && (sd - 1.0).abs() < 0.01, "{mean} {sd}");
}

/// ns-2's first timers: mean one period (50 ms before any RTT is known), deviation 10 ms,
/// never under 4 ms, drawn at the first packet from the router's stream; without
/// `random_timers`, exactly 50 ms.
#[test]
fn random_timers_start_around_one_period() {
    let first = |random: bool, seed: u64| {
        let mut h = Harness::new();
        h.rng = Rng::derive(seed, "queue:x");
        let mut q = Xcp::new(XcpParams {
            random_timers: random,
            ..XcpParams::new(1e6, 100)
        });
        let p = xcp_pkt(&mut h, 0, 10_000.0, 0.1, SimTime::ZERO);
        q.enqueue(p, &mut h.ctx(SimTime::ZERO));
        (q.next_te.as_secs_f64(), q.next_tq.as_secs_f64())
    };
    assert_eq!(first(false, 1), (0.05, 0.05));
    let draws: Vec<(f64, f64)> = (0..2000).map(|seed| first(true, seed)).collect();
    for pick in [|d: &(f64, f64)| d.0, |d: &(f64, f64)| d.1] {
        let xs: Vec<f64> = draws.iter().map(pick).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!((mean - 0.05).abs() < 0.001, "mean {mean}");
        assert!((sd - 0.01).abs() < 0.001, "sd {sd}");
        assert!(xs.iter().all(|&x| x >= 0.004));
    }
    assert_ne!(draws[0].0, draws[0].1, "the two timers draw apart");
}
