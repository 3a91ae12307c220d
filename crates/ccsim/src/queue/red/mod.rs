//! RED — Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance"
//! (IEEE/ACM ToN 1993), as ns-2.35 implements it (`queue/red.cc`; `docs/algorithms.md`
//! §10), because the papers this project reproduces used ns-2.
//!
//! Per arrival (ns-2 `REDQueue::enque`, spec §10.4):
//! 1. If the queue went idle (the transmitter found it empty), pretend `m = int(ptc·idle)`
//!    packets arrived meanwhile: `avg ← (1−w_q)^m·avg`, with `ptc` the link's packets per second
//!    at `mean_pktsize`.
//! 2. `avg ← (1−w_q)·avg + w_q·q`, `q` the instantaneous length before this arrival (bytes in
//!    byte mode).
//! 3. `count++`. If `avg ≥ min_th` and more than one packet (byte) is queued: without
//!    `use_mark_p`, an average at or above max_th (2·max_th when gentle) is a *forced* drop; the
//!    first arrival after the average crossed min_th only restarts `count`; otherwise the early
//!    test below. Below min_th nothing happens.
//! 4. A queue already at `limit` drops the arrival (overflow), ECN or not.
//!
//! Early test (`drop_early`, `calculate_p_new`, `modify_p`): `p_b = max_p·(avg−min_th)/(max_th−min_th)`
//! below max_th, `max_p + (1−max_p)·(avg−max_th)/max_th` above it when gentle (1 otherwise);
//! then the count correction — with `wait`, `p = 0` while `count·p_b < 1`,
//! `p_b/(2 − count·p_b)` while below 2 and 1 beyond, which spreads drops uniformly over
//! `[1/p_b, 2/p_b]` arrivals; without it the paper's `p_b/(1 − count·p_b)` (uniform over
//! `[1, 1/p_b]`). In byte mode `count` is `count_bytes / mean_pktsize` (integer division) and
//! `p` is scaled by `size/mean_pktsize`. On `u ≤ p` the counts restart and the packet is marked
//! CE if `ecn` is on, it is ECN-capable and (`!use_mark_p` or `p_b < mark_p`), else dropped.
//!
//! Deviations from ns-2, all inactive by default: `harddrop = false` (ns-3 `UseHardDrop`, Linux
//! `harddrop`) marks ECN-capable packets on forced decisions instead of dropping them; the
//! victim of a forced drop is always the arrival (ns-2's default `drop_tail_`; `drop_front_`
//! and `drop_rand_` are not modelled, nor is `cautious_`).
//!
//! With `adaptive`, max_p itself moves toward a target band of the average (Adaptive RED,
//! Floyd, Gummadi & Shenker 2001; `adaptive.rs`).

use std::collections::VecDeque;

pub mod adaptive;
mod config;

pub use adaptive::AdaptiveConfig;
pub use config::{RedDefaults, RedMode, RedSpec};

use super::{QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::packet::PktId;
use crate::rng::Rng;
use crate::time::{Rate, SimTime};

/// ns-2 `targetdelay_`: the queueing delay the automatic min_th aims at (spec §10.3).
pub const TARGET_DELAY_S: f64 = 0.005;
/// Thresholds and weight when neither given nor automatic: ns-2's pre-2001 defaults (still
/// those of `Queue/RED/RIO`), the values Floyd & Jacobson's simulations used (w_q = 0.002).
pub const MIN_TH: f64 = 5.0;
pub const Q_WEIGHT: f64 = 0.002;
/// `max_p = 1/linterm_`; ns-2 `linterm_ 10`.
pub const MAX_P: f64 = 0.1;
/// ns-2 `mark_p_ 0.1`: with `use_mark_p`, mark only while `p_b < mark_p`.
pub const MARK_P: f64 = 0.1;

/// A RED queue's settings, resolved (thresholds in packets as ns-2's `thresh_`/`maxthresh_`).
#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Physical capacity (ns-2 `limit_`): waiting packets, or `limit·mean_pktsize` bytes in
    /// byte mode. An arrival finding the queue at or above it is dropped, so up to `limit`
    /// packets wait (ns-2 DropTail holds one fewer).
    pub limit: u32,
    /// `min_th`, `max_th` in packets; scaled by `mean_pktsize` in byte mode.
    pub min_th: f64,
    pub max_th: f64,
    /// EWMA weight w_q.
    pub q_weight: f64,
    /// Drop probability at max_th (ns-2 `linterm_ = 1/max_p`).
    pub max_p: f64,
    pub gentle: bool,
    pub wait: bool,
    /// Byte mode: average, thresholds and limit in bytes, probability scaled by packet size
    /// (ns-2 `queue_in_bytes_` and `bytes_` together).
    pub bytes: bool,
    pub mean_pktsize: u32,
    /// Mark ECN-capable packets instead of dropping them early (ns-2 `setbit_`).
    pub ecn: bool,
    pub mark_p: f64,
    pub use_mark_p: bool,
    /// Forced decisions always drop (true), or mark ECN-capable packets when `ecn` (false).
    pub harddrop: bool,
    /// Link rate: gives `ptc` for the idle correction.
    pub rate: Rate,
    /// Adaptive RED: max_p (starting at `max_p`) adapted toward the target band.
    pub adaptive: Option<AdaptiveConfig>,
}

/// ns-2 `ptc`: packets of `mean_pktsize` bytes the link sends per second.
pub fn ptc(rate: Rate, mean_pktsize: u32) -> f64 {
    rate.bps() as f64 / (8.0 * mean_pktsize as f64)
}

/// ns-2's automatic configuration (`initialize_params` with `thresh_ 0`, `q_weight_ −1`, spec
/// §10.3): `min_th = max(5, targetdelay·ptc/2)` packets and
/// `w_q = 1 − exp(−1/(10·rtt·ptc))` with `rtt = max(0.1 s, 3·(delay + 1/ptc))`. Returns
/// `(min_th, q_weight)`; max_th is `3·min_th` as for any unset max_th.
pub fn auto_params(rate: Rate, delay: SimTime, mean_pktsize: u32) -> (f64, f64) {
    let ptc = ptc(rate, mean_pktsize);
    let min_th = MIN_TH.max(TARGET_DELAY_S * ptc / 2.0);
    let rtt = (3.0 * (delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
    let q_weight = 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp();
    (min_th, q_weight)
}

/// RED's decision on each arrival: the average queue, the count since the last drop, the idle
/// correction, and the early, forced and overflow tests (steps 1–4 above). It sees the queue
/// only through the length it is given, so the same decisions serve the general path's `Red`
/// queue and the express path (`net/express/mod.rs`), which knows the length from its timetable.
#[derive(Clone, Debug)]
pub struct RedGate {
    c: RedConfig,
    /// Thresholds and limit in queue units (packets or bytes).
    th_min: f64,
    th_max: f64,
    qlim: f64,
    ptc: f64,
    /// Line coefficients of ns-2's `calculate_p_new`: p_b = max_p·(v_a·avg + v_b) below max_th,
    /// v_c·avg + v_d above it (gentle).
    v_a: f64,
    /// The current max_p (ns-2 `cur_max_p`): the configured one, or Adaptive RED's.
    max_p: f64,
    adapt: Option<adaptive::MaxPAdapter>,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    avg: f64,
    count: u64,
    count_bytes: u64,
    /// The average was above min_th at the previous arrival (ns-2 `old`).
    old: bool,
    idle: bool,
    idle_since: SimTime,
    /// Last p_b and last corrected p (ns-2's traced `prob1_` and `v_prob`).
    prob1: f64,
    prob: f64,
}

impl RedGate {
    /// The decision state of a RED queue; the caller has checked `0 < min_th < max_th`,
    /// `0 < q_weight ≤ 1`, `0 < max_p ≤ 1` and positive `limit`, `mean_pktsize` and `rate`.
    pub fn new(c: RedConfig) -> RedGate {
        let unit = if c.bytes { c.mean_pktsize as f64 } else { 1.0 };
        let (th_min, th_max) = (c.min_th * unit, c.max_th * unit);
        let diff = th_max - th_min;
        RedGate {
            th_min,
            th_max,
            qlim: c.limit as f64 * unit,
            ptc: ptc(c.rate, c.mean_pktsize),
            v_a: 1.0 / diff,
            v_b: -th_min / diff,
            v_c: (1.0 - c.max_p) / th_max,
            v_d: 2.0 * c.max_p - 1.0,
            max_p: c.max_p,
            adapt: c.adaptive.clone().map(adaptive::MaxPAdapter::new),
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            // ns-2 `reset()`: idle since time 0.
            idle: true,
            idle_since: SimTime::ZERO,
            prob1: 0.0,
            prob: 0.0,
            c,
        }
    }

    /// Whether the queue is measured in bytes (byte mode) rather than packets.
    pub fn in_bytes(&self) -> bool {
        self.c.bytes
    }

    /// The physical capacity in packets (`limit`; in byte mode, in mean-sized packets).
    pub fn limit(&self) -> u32 {
        self.c.limit
    }

    /// The average queue in queue units (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The average queue in packets (bytes over `mean_pktsize` in byte mode).
    pub fn avg_packets(&self) -> f64 {
        if self.c.bytes {
            self.avg / self.c.mean_pktsize as f64
        } else {
            self.avg
        }
    }

    /// `(p_b, p)` of the last early test: the probability from the average, and after the
    /// count correction and size scaling.
    pub fn probabilities(&self) -> (f64, f64) {
        (self.prob1, self.prob)
    }

    /// The current max_p (moved by Adaptive RED, else the configured one).
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// Whether the transmitter has gone idle since the last arrival (`went_idle`).
    pub fn is_idle(&self) -> bool {
        self.idle
    }

    /// ns-2 `deque()` finding the queue empty: the transmitter went idle at `at`, which the
    /// next arrival's average decays for.
    pub fn went_idle(&mut self, at: SimTime) {
        self.idle = true;
        self.idle_since = at;
    }

    /// ns-2 `calculate_p_new`.
    fn p_b(&self) -> f64 {
        let p = if self.avg >= self.th_max {
            if self.c.gentle {
                self.v_c * self.avg + self.v_d
            } else {
                1.0
            }
        } else {
            (self.v_a * self.avg + self.v_b) * self.max_p
        };
        p.min(1.0)
    }

    /// ns-2 `modify_p`: the count correction and byte-mode scaling.
    fn corrected(&self, p_b: f64, size: u32) -> f64 {
        let c = if self.c.bytes {
            (self.count_bytes / self.c.mean_pktsize as u64) as f64
        } else {
            self.count as f64
        };
        let cp = c * p_b;
        let mut p = if self.c.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if self.c.bytes && p < 1.0 {
            p = p * size as f64 / self.c.mean_pktsize as f64;
        }
        p.min(1.0)
    }

    /// The early test: `Some(true)` to mark, `Some(false)` to drop, `None` to let it pass.
    fn drop_early(
        &mut self,
        size: u32,
        rng: &mut Rng,
        ecn_capable: impl Fn() -> bool,
    ) -> Option<bool> {
        self.prob1 = self.p_b();
        self.prob = self.corrected(self.prob1, size);
        let u = rng.uniform();
        if self.prob > 0.0 && u <= self.prob {
            self.count = 0;
            self.count_bytes = 0;
            let mark =
                self.c.ecn && ecn_capable() && (!self.c.use_mark_p || self.prob1 < self.c.mark_p);
            return Some(mark);
        }
        None
    }

    /// Decides on an arrival of `size` bytes at `now` that finds `q` waiting (packets, or bytes
    /// in byte mode; the one on the transmitter not counted). `ecn_capable` tells, when asked,
    /// whether the packet may be marked instead of dropped; a `Marked` verdict leaves setting
    /// CE to the caller.
    pub fn admit(
        &mut self,
        q: f64,
        size: u32,
        now: SimTime,
        rng: &mut Rng,
        ecn_capable: impl Fn() -> bool,
    ) -> Verdict {
        let w = self.c.q_weight;
        // Steps 1–2: the estimator, with m "virtual" arrivals for the idle period.
        let mut decay = 1.0;
        if self.idle {
            self.idle = false;
            let m = (self.ptc * (now - self.idle_since).as_secs_f64()).floor();
            decay = (1.0 - w).powf(m);
        }
        self.avg = self.avg * decay * (1.0 - w) + w * q;
        // Adaptive RED acts on the average just computed, before this arrival's decision
        // (ns-2 `estimator`).
        if let Some(a) = &mut self.adapt {
            if a.update(self.avg, self.th_min, self.th_max, &mut self.max_p, now) {
                // The gentle line starts from the new max_p at max_th (the paper; see
                // `adaptive.rs` for ns-2's stale coefficients).
                self.v_c = (1.0 - self.max_p) / self.th_max;
                self.v_d = 2.0 * self.max_p - 1.0;
            }
        }
        // Step 3.
        self.count += 1;
        self.count_bytes += size as u64;
        let mut forced = false;
        let mut early = None;
        if self.avg >= self.th_min && q > 1.0 {
            let limit = if self.c.gentle {
                2.0 * self.th_max
            } else {
                self.th_max
            };
            if !self.c.use_mark_p && self.avg >= limit {
                forced = true;
            } else if !self.old {
                // The average just crossed min_th (or the queue just became non-empty above
                // it): restart the count without a drop.
                self.count = 1;
                self.count_bytes = size as u64;
                self.old = true;
            } else {
                early = self.drop_early(size, rng, &ecn_capable);
            }
        } else {
            self.prob = 0.0;
            self.old = false;
        }
        // Step 4: the physical queue is full — always a drop (RFC 3168 §5).
        if q >= self.qlim {
            self.count = 0;
            self.count_bytes = 0;
            return Verdict::Dropped(Reason::Overflow);
        }
        if forced {
            self.count = 0;
            self.count_bytes = 0;
            if self.c.ecn && !self.c.harddrop && ecn_capable() {
                return Verdict::Marked(Reason::Forced);
            }
            return Verdict::Dropped(Reason::Forced);
        }
        match early {
            Some(false) => Verdict::Dropped(Reason::Early),
            Some(true) => Verdict::Marked(Reason::Early),
            None => Verdict::Enqueued,
        }
    }
}

/// RED as a queue discipline (the general path): the gate's decisions over a FIFO.
pub struct Red {
    gate: RedGate,
    fifo: VecDeque<PktId>,
    bytes: u64,
}

impl Red {
    /// A RED queue; the caller has checked the configuration (`RedGate::new`).
    pub fn new(c: RedConfig) -> Red {
        Red::with_gate(RedGate::new(c))
    }

    /// An empty RED queue deciding with `gate`.
    pub fn with_gate(gate: RedGate) -> Red {
        Red {
            gate,
            fifo: VecDeque::new(),
            bytes: 0,
        }
    }

    /// The decision state, for a line that keeps the queue itself (express path); call while
    /// the queue is empty.
    pub fn into_gate(self) -> RedGate {
        debug_assert!(self.fifo.is_empty(), "RED's queue handed over while in use");
        self.gate
    }

    /// The average queue in queue units (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.gate.avg()
    }

    /// See `RedGate::probabilities`.
    pub fn probabilities(&self) -> (f64, f64) {
        self.gate.probabilities()
    }

    fn qlen(&self) -> f64 {
        if self.gate.in_bytes() {
            self.bytes as f64
        } else {
            self.fifo.len() as f64
        }
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        let q = self.qlen();
        let arena = &*ctx.arena;
        let capable = || arena.get(pkt).ecn.capable();
        let v = self.gate.admit(q, size, ctx.now, ctx.rng, capable);
        if !matches!(v, Verdict::Dropped(_)) {
            self.bytes += size as u64;
            self.fifo.push_back(pkt);
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        match self.fifo.pop_front() {
            Some(p) => {
                self.bytes -= ctx.arena.get(p).size as u64;
                Some(p)
            }
            None => {
                // ns-2 `deque()`: the transmitter found the queue empty; the idle period starts.
                self.gate.went_idle(ctx.now);
                None
            }
        }
    }

    fn len_packets(&self) -> u32 {
        self.fifo.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn avg_queue(&self) -> Option<f64> {
        Some(self.gate.avg_packets())
    }
    fn upcoming(&self) -> Option<PktId> {
        self.fifo.front().copied()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;

    /// The settings the tests start from: 100 packets, thresholds 5 and 15, w_q = 1 (the
    /// average is the queue), 8 Mb/s, 1000-byte mean packets.
    pub(crate) fn config() -> RedConfig {
        RedConfig {
            limit: 100,
            min_th: 5.0,
            max_th: 15.0,
            q_weight: 1.0,
            max_p: 0.1,
            gentle: false,
            wait: true,
            bytes: false,
            mean_pktsize: 1000,
            ecn: false,
            mark_p: MARK_P,
            use_mark_p: true,
            harddrop: true,
            rate: Rate(8_000_000),
            adaptive: None,
        }
    }

    const T0: SimTime = SimTime::ZERO;

    /// Fills the queue to exactly `n` packets (early drops along the way just retry).
    fn fill(h: &mut Harness, q: &mut Red, n: u32, ecn: Ecn) {
        let mut tries = 0;
        while q.len_packets() < n {
            h.offer(q, 0, 1000, ecn, T0);
            tries += 1;
            assert!(tries < 10_000);
        }
    }

    #[test]
    fn automatic_configuration_matches_ns2_worked_examples() {
        // Spec §10.3: 10 Mb/s, 10 ms, 500-byte mean packets: ptc = 10e6/4000 = 2500/s,
        // min_th = max(5, 0.005·2500/2 = 6.25) = 6.25, rtt = max(0.1, 3·(0.01 + 0.0004)) = 0.1,
        // w_q = 1 − exp(−1/(10·0.1·2500)) = 1 − exp(−0.0004) ≈ 3.9992e−4.
        let (th, w) = auto_params(Rate(10_000_000), SimTime::from_millis(10), 500);
        assert!((th - 6.25).abs() < 1e-12);
        assert!((w - (1.0 - (-0.0004f64).exp())).abs() < 1e-15);
        assert!((w - 3.9992e-4).abs() < 1e-7);
        // ns-2's DelayLink default, 1.5 Mb/s and 100 ms: ptc = 375, min_th = max(5, 0.9375) = 5,
        // rtt = 3·(0.1 + 1/375) = 0.308, w_q = 1 − exp(−1/(10·0.308·375)) = 1 − exp(−1/1155)
        // ≈ 8.654e−4.
        let (th, w) = auto_params(Rate(1_500_000), SimTime::from_millis(100), 500);
        assert_eq!(th, 5.0);
        assert!((w - (1.0 - (-1.0f64 / 1155.0).exp())).abs() < 1e-15);
        assert!((w - 8.654e-4).abs() < 1e-7);
    }

    #[test]
    fn average_follows_the_ewma_including_the_idle_correction() {
        // w_q = 0.5 keeps every value an exact binary fraction.
        let mut c = config();
        c.q_weight = 0.5;
        c.min_th = 50.0;
        c.max_th = 60.0;
        let mut q = Red::new(c);
        let mut h = Harness::new();
        // Arrivals with 0, 1 and 2 packets queued before them:
        //   avg1 = 0.5·0 + 0.5·0 = 0  (idle since 0, arriving at 0: m = 0)
        //   avg2 = 0.5·0 + 0.5·1 = 0.5
        //   avg3 = 0.5·0.5 + 0.5·2 = 1.25
        for expect in [0.0, 0.5, 1.25] {
            h.offer(&mut q, 0, 1000, Ecn::NotEct, T0);
            assert_eq!(q.avg(), expect);
        }
        // Drain; the transmitter finds the queue empty at t = 10 ms: the idle period starts.
        let t_idle = SimTime::from_millis(10);
        for _ in 0..3 {
            assert!(q.dequeue(&mut h.ctx(t_idle)).is_some());
        }
        assert!(q.dequeue(&mut h.ctx(t_idle)).is_none());
        // Next arrival 3.5 ms later. ptc = 8e6/(8·1000) = 1000 packets/s, so
        // m = int(1000·0.0035) = 3 virtual arrivals:
        //   avg = 1.25·0.5^3·0.5 + 0.5·0 = 0.078125
        h.offer(&mut q, 0, 1000, Ecn::NotEct, SimTime::from_micros(13_500));
        assert_eq!(q.avg(), 0.078125);
        // Busy again: no further decay. One packet queued: 0.078125·0.5 + 0.5·1 = 0.5390625.
        h.offer(&mut q, 0, 1000, Ecn::NotEct, SimTime::from_millis(20));
        assert_eq!(q.avg(), 0.5390625);
        assert_eq!(q.avg_queue(), Some(0.5390625));
    }

    /// ns-2 `modify_p` for packet mode, written out by hand.
    fn expected_p(count: u64, wait: bool, p_b: f64) -> f64 {
        let cp = count as f64 * p_b;
        match (wait, cp) {
            (true, x) if x < 1.0 => 0.0,
            (true, x) if x < 2.0 => (p_b / (2.0 - x)).min(1.0),
            (false, x) if x < 1.0 => (p_b / (1.0 - x)).min(1.0),
            _ => 1.0,
        }
    }

    /// Holds the instantaneous queue at 10 packets with w_q = 1 (so avg = 10 at every arrival
    /// and p_b = 0.1·(10 − 5)/(15 − 5) = 0.05), checks p after each arrival against the
    /// formula with a count kept independently, and returns the gaps between early drops.
    fn gaps_at_constant_average(wait: bool, arrivals: usize) -> Vec<u64> {
        let mut c = config();
        c.wait = wait;
        let mut q = Red::new(c);
        let mut h = Harness::new();
        fill(&mut h, &mut q, 10, Ecn::NotEct);
        // Start tracking from a known count: as if an early drop had just happened.
        q.gate.count = 0;
        q.gate.old = true;
        let mut count = 0;
        let mut gaps = vec![];
        for _ in 0..arrivals {
            let v = h.offer(&mut q, 0, 1000, Ecn::NotEct, T0);
            count += 1;
            let (p_b, p) = q.probabilities();
            assert_eq!(p_b, 0.05);
            let want = expected_p(count, wait, p_b);
            assert!(
                (p - want).abs() < 1e-12,
                "count {count}: p {p}, want {want}"
            );
            match v {
                Verdict::Dropped(Reason::Early) => {
                    gaps.push(count);
                    count = 0;
                }
                Verdict::Enqueued => {
                    q.dequeue(&mut h.ctx(T0));
                }
                other => panic!("unexpected {other:?}"),
            }
            assert_eq!(q.len_packets(), 10);
        }
        gaps
    }

    #[test]
    fn wait_spreads_early_drops_over_one_to_two_inverse_p_b() {
        // With wait, p = 0 for count < 1/p_b = 20, p_b/(2 − count·p_b) up to 40 (count 20:
        // 0.05/(2 − 1) = 0.05; count 30: 0.05/(2 − 1.5) = 0.1) and 1 at 40. The survival
        // product telescopes to P(gap = c) = p_b = 0.05 for c = 20..39: uniform, mean 29.5.
        assert_eq!(expected_p(19, true, 0.05), 0.0);
        assert_eq!(expected_p(20, true, 0.05), 0.05);
        assert!((expected_p(30, true, 0.05) - 0.1).abs() < 1e-12);
        assert_eq!(expected_p(40, true, 0.05), 1.0);
        let gaps = gaps_at_constant_average(true, 60_000);
        assert!(gaps.iter().all(|g| (20..=39).contains(g)), "{gaps:?}");
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        // ~2000 gaps of standard deviation 5.77: standard error 0.13.
        assert!((mean - 29.5).abs() < 0.6, "mean gap {mean}");
    }

    #[test]
    fn without_wait_the_paper_formula_spreads_drops_over_one_to_one_over_p_b() {
        // p = p_b/(1 − count·p_b): count 1 → 0.05/0.95, count 10 → 0.05/0.5 = 0.1,
        // count 19 → 0.05/0.05 = 1. P(gap = c) = p_b/(1 − p_b) for c = 1..19: mean 10, so
        // about three times as many early drops as with wait.
        assert!((expected_p(1, false, 0.05) - 0.05 / 0.95).abs() < 1e-15);
        assert!((expected_p(10, false, 0.05) - 0.1).abs() < 1e-12);
        assert_eq!(expected_p(19, false, 0.05), 1.0);
        let gaps = gaps_at_constant_average(false, 40_000);
        assert!(gaps.iter().all(|g| (1..=19).contains(g)), "{gaps:?}");
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        // ~4000 gaps of standard deviation 5.48: standard error 0.09.
        assert!((mean - 10.0).abs() < 0.4, "mean gap {mean}");
    }

    /// Offers ECT packets at a constant queue of `n` packets; returns the non-enqueued verdicts.
    fn decisions_at(c: RedConfig, n: u32, arrivals: usize) -> Vec<Verdict> {
        let mut q = Red::new(c);
        let mut h = Harness::new();
        fill(&mut h, &mut q, n, Ecn::Ect0);
        let mut seen = vec![];
        for _ in 0..arrivals {
            match h.offer(&mut q, 0, 1000, Ecn::Ect0, T0) {
                Verdict::Enqueued => {}
                v => seen.push(v),
            }
            while q.len_packets() > n {
                q.dequeue(&mut h.ctx(T0));
            }
        }
        seen
    }

    #[test]
    fn gentle_region_probability_and_the_mark_p_rule() {
        // Gentle, avg = 20 ≥ max_th = 15: p_b = max_p + (1 − max_p)·(20 − 15)/15
        // = 0.1 + 0.9/3 = 0.4 (= v_c·avg + v_d = 0.06·20 − 0.8).
        let mut c = config();
        c.gentle = true;
        c.ecn = true;
        let mut q = Red::new(c.clone());
        let mut h = Harness::new();
        fill(&mut h, &mut q, 20, Ecn::Ect0);
        q.gate.old = true;
        h.offer(&mut q, 0, 1000, Ecn::Ect0, T0);
        let (p_b, _) = q.probabilities();
        assert!((p_b - 0.4).abs() < 1e-12, "{p_b}");
        // With use_mark_p (mark_p 0.1) p_b = 0.4 is not below mark_p: ECT packets are dropped,
        // never marked, in the gentle region …
        let seen = decisions_at(c.clone(), 20, 200);
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|v| *v == Verdict::Dropped(Reason::Early)));
        // … without use_mark_p they are marked (no forced decision below 2·max_th = 30) …
        let mut c2 = c.clone();
        c2.use_mark_p = false;
        let seen = decisions_at(c2, 20, 200);
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|v| *v == Verdict::Marked(Reason::Early)));
        // … and below max_th p_b < mark_p: marked either way.
        let seen = decisions_at(c, 10, 500);
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|v| *v == Verdict::Marked(Reason::Early)));
    }

    /// A byte-mode queue (mean_pktsize 500, no wait) holding ten 500-byte packets with w_q = 1:
    /// thresholds 2500/7500 bytes, avg 5000 B, p_b = 0.1·2500/5000 = 0.05.
    fn byte_queue(h: &mut Harness) -> Red {
        let mut c = config();
        c.bytes = true;
        c.mean_pktsize = 500;
        c.limit = 50;
        c.wait = false;
        let mut q = Red::new(c);
        while q.len_bytes() < 5000 {
            h.offer(&mut q, 0, 500, Ecn::NotEct, T0);
        }
        q.gate.old = true;
        q.gate.count = 0;
        q.gate.count_bytes = 500;
        q
    }

    #[test]
    fn byte_mode_counts_in_mean_packets_and_scales_by_size() {
        let mut h = Harness::new();
        // A 1500-byte arrival: count_bytes = 500 + 1500 = 2000, c = 2000/500 = 4,
        // p = 0.05/(1 − 4·0.05) = 0.0625, scaled by 1500/500: 0.1875.
        let mut q = byte_queue(&mut h);
        h.offer(&mut q, 0, 1500, Ecn::NotEct, T0);
        let (p_b, p) = q.probabilities();
        assert_eq!(p_b, 0.05);
        assert!((p - 0.1875).abs() < 1e-12, "{p}");
        // A 2200-byte arrival: 2700/500 = 5 by integer division (not 5.4):
        // p = 0.05/(1 − 0.25) = 0.0666…, scaled by 2200/500 = 4.4: 0.2933…
        let mut q = byte_queue(&mut h);
        h.offer(&mut q, 0, 2200, Ecn::NotEct, T0);
        let (_, p) = q.probabilities();
        assert!((p - 0.05 / 0.75 * 4.4).abs() < 1e-12, "{p}");
        // The average series is reported in mean-size packets: 5000 B / 500 = 10.
        assert_eq!(q.avg_queue(), Some(10.0));
    }

    #[test]
    fn forced_and_overflow_decisions() {
        // use_mark_p off, not gentle: avg ≥ max_th is a forced drop even for ECT packets …
        let mut c = config();
        c.use_mark_p = false;
        c.ecn = true;
        let mut q = Red::new(c.clone());
        let mut h = Harness::new();
        fill(&mut h, &mut q, 15, Ecn::Ect0);
        assert_eq!(
            h.offer(&mut q, 0, 1000, Ecn::Ect0, T0),
            Verdict::Dropped(Reason::Forced)
        );
        // … unless harddrop is off, which marks them (and still drops Not-ECT packets).
        c.harddrop = false;
        let mut q = Red::new(c.clone());
        fill(&mut h, &mut q, 15, Ecn::Ect0);
        assert_eq!(
            h.offer(&mut q, 0, 1000, Ecn::Ect0, T0),
            Verdict::Marked(Reason::Forced)
        );
        assert_eq!(
            h.offer(&mut q, 0, 1000, Ecn::NotEct, T0),
            Verdict::Dropped(Reason::Forced)
        );
        // A full physical queue drops, ECN or not, whatever the average.
        c.limit = 3;
        c.min_th = 50.0;
        c.max_th = 60.0;
        let mut q = Red::new(c);
        fill(&mut h, &mut q, 3, Ecn::Ect0);
        assert_eq!(
            h.offer(&mut q, 0, 1000, Ecn::Ect0, T0),
            Verdict::Dropped(Reason::Overflow)
        );
        assert_eq!(q.len_packets(), 3);
    }

    #[test]
    fn no_decision_while_at_most_one_packet_is_queued() {
        // An average far above max_th left by a burst (w_q 0.5), but one packet queued:
        // avg = 0.5·100 + 0.5·1 = 50.5 ≥ max_th, yet ns-2 decides only when qlen > 1.
        let mut c = config();
        c.q_weight = 0.5;
        c.use_mark_p = false;
        let mut q = Red::new(c);
        let mut h = Harness::new();
        h.offer(&mut q, 0, 1000, Ecn::NotEct, T0);
        q.gate.avg = 100.0;
        assert_eq!(h.offer(&mut q, 0, 1000, Ecn::NotEct, T0), Verdict::Enqueued);
        assert_eq!(q.avg(), 50.5);
        // With two queued the same average is a forced drop: 0.5·50.5 + 0.5·2 = 26.25 ≥ 15.
        assert_eq!(
            h.offer(&mut q, 0, 1000, Ecn::NotEct, T0),
            Verdict::Dropped(Reason::Forced)
        );
    }
}
