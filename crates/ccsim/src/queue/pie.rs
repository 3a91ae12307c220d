//! PIE — Pan, Natarajan, Baker, White, "Proportional Integral Controller Enhanced (PIE)",
//! RFC 8033 (2017).
//!
//! Every `tupdate` the drop probability moves by a PI controller on the queueing delay
//! (RFC 8033 §4.2): `p = α·(qdelay − target) + β·(qdelay − qdelay_old)` (delays in seconds, α
//! and β in Hz), scaled down while the probability is small (÷2048 below 10⁻⁶, ÷512 below 10⁻⁵,
//! ÷128 below 10⁻⁴, ÷32 below 10⁻³, ÷8 below 1 %, ÷2 below 10 %), capped at +2 % per update
//! once the probability is 10 % or more (§5.5), decayed by 2 % per update while the delay stays
//! below target/2 (Appendix A), and bounded to [0, 1]. Arrivals are dropped at random with
//! that probability (§4.1) except while the burst allowance lasts (§4.4: `max_burst` at start
//! and again whenever the probability is 0 and both delay samples are below target/2; it
//! shrinks by `tupdate` each update), while the delay is below target/2 with a probability
//! under 20 %, or while at most two packets' worth of bytes are queued. With `ecn`, an
//! ECN-capable packet is marked instead while the probability is at most `mark_ecnth` (§5.1).
//!
//! Options: `derandomize` (§5.4; on by default, as in Linux) accumulates the probability since
//! the last mark or drop and never drops below 0.85, always at 8.5; `bytemode` scales the probability by size/MTU; the
//! queueing delay comes from per-packet timestamps (the sojourn of the last departure, 0 when
//! the queue is left empty, as Linux's default) or with `dq_rate_estimator` from the departure
//! rate (§4.3/§5.2: bytes queued × the time to dequeue 16 KiB, measured over cycles of 16 KiB
//! and averaged with weight 1/4, as DPDK's `rte_pie`).
//!
//! The update runs lazily: before each enqueue or dequeue every update due since the last one
//! is applied in order. Nothing else happens between events, so this equals a periodic timer.
//! Linux differences not modelled: its +2 % kick when the delay exceeds 250 ms and its decay
//! only at zero delay.

use super::codel::{CodelSource, Fifo};
use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{at_least_one, bytes_u32, in_range, positive_time};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::{Bytes, Duration};
use crate::config::ParamError;
use crate::packet::PktId;
use crate::rng::Rng;
use crate::time::SimTime;

/// RFC 8033 §4 defaults (QDELAY_REF, T_UPDATE, α, β, MAX_BURST) and §5.1's ECN threshold.
pub const TARGET: SimTime = SimTime::from_millis(15);
pub const TUPDATE: SimTime = SimTime::from_millis(15);
pub const ALPHA: f64 = 0.125;
pub const BETA: f64 = 1.25;
pub const MAX_BURST: SimTime = SimTime::from_millis(150);
pub const MARK_ECNTH: f64 = 0.1;
/// Linux `sch_pie` default limit, packets.
pub const LIMIT: u32 = 1000;
/// Packet size for the two-packet safeguard and byte mode (IP MTU).
pub const MTU: u32 = 1500;
/// RFC 8033 DQ_THRESHOLD: bytes per departure-rate measurement cycle.
const DQ_THRESHOLD: u64 = 1 << 14;
/// Weight of a new measurement in the average dequeue time (DQ_THRESHOLD/2^16).
const DQ_WEIGHT: f64 = 0.25;

#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    pub target: SimTime,
    pub tupdate: SimTime,
    /// Hz.
    pub alpha: f64,
    /// Hz.
    pub beta: f64,
    pub max_burst: SimTime,
    pub limit: u32,
    pub ecn: bool,
    pub mark_ecnth: f64,
    pub bytemode: bool,
    pub derandomize: bool,
    pub dq_rate_estimator: bool,
    pub mtu: u32,
}

/// PIE's per-queue controller (RFC 8033 §4): the drop probability, the delay samples, the burst
/// allowance, the derandomisation accumulator and the departure-rate estimator. `Pie` keeps one
/// for its queue; FQ-PIE (`fq_pie.rs`) one per flow queue, each fed that queue's backlog.
#[derive(Clone, Debug)]
pub(super) struct PieVars {
    drop_prob: f64,
    accu_prob: f64,
    /// Seconds.
    qdelay: f64,
    qdelay_old: f64,
    burst_allowance: SimTime,
    // Departure-rate estimator.
    in_measurement: bool,
    dq_start: SimTime,
    dq_count: u64,
    /// Seconds to dequeue DQ_THRESHOLD bytes (0 until the first measurement).
    avg_dq_time: f64,
}

impl PieVars {
    pub fn new(c: &PieParams) -> PieVars {
        PieVars {
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst_allowance: c.max_burst,
            in_measurement: false,
            dq_start: SimTime::ZERO,
            dq_count: 0,
            avg_dq_time: 0.0,
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The queueing delay the controller uses now, seconds, for a queue of `backlog` bytes.
    pub fn qdelay(&self, c: &PieParams, backlog: u64) -> f64 {
        if c.dq_rate_estimator {
            backlog as f64 * self.avg_dq_time / DQ_THRESHOLD as f64
        } else {
            self.qdelay
        }
    }

    /// RFC 8033 §4.2 `calculate_drop_prob`, with the burst allowance of §4.4. Returns whether
    /// anything changed: an update that changes nothing is a fixed point until the next packet
    /// event (nothing else moves the delay).
    pub fn update(&mut self, c: &PieParams, backlog: u64) -> bool {
        let before = (self.drop_prob, self.qdelay_old, self.burst_allowance);
        let target = c.target.as_secs_f64();
        let qdelay = self.qdelay(c, backlog);
        let mut p = c.alpha * (qdelay - target) + c.beta * (qdelay - self.qdelay_old);
        // Auto-tuning: small probabilities move in small steps.
        let prob = self.drop_prob;
        p /= if prob < 1e-6 {
            2048.0
        } else if prob < 1e-5 {
            512.0
        } else if prob < 1e-4 {
            128.0
        } else if prob < 1e-3 {
            32.0
        } else if prob < 1e-2 {
            8.0
        } else if prob < 0.1 {
            2.0
        } else {
            1.0
        };
        // §5.5: avoid large upward swings.
        if prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // Exponential decay when the delay is low (Appendix A).
        if qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(c.tupdate);
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = c.max_burst;
        }
        self.qdelay_old = qdelay;
        (self.drop_prob, self.qdelay_old, self.burst_allowance) != before
    }

    /// RFC 8033 §4.1 `drop_early` with §4.4, §5.3 (byte mode) and §5.4 (derandomisation), for
    /// an arrival of `size` bytes at a queue holding `backlog` bytes.
    fn drop_early(&mut self, c: &PieParams, backlog: u64, size: u32, rng: &mut Rng) -> bool {
        if self.burst_allowance > SimTime::ZERO {
            return false;
        }
        let target = c.target.as_secs_f64();
        if self.qdelay_old < target / 2.0 && self.drop_prob < 0.2 {
            return false;
        }
        if backlog <= 2 * c.mtu as u64 {
            return false;
        }
        let mut p = self.drop_prob;
        if c.bytemode {
            p = p * size.min(c.mtu) as f64 / c.mtu as f64;
        }
        if c.derandomize {
            if p == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += p;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                self.accu_prob = 0.0;
                return true;
            }
        }
        if rng.uniform() < p {
            // The accumulator restarts at every congestion signal, mark or drop. (Linux resets
            // it only on drops, so with ECN a full accumulator marks every later packet.)
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// The decision on an arriving `pkt` at a queue of `backlog` bytes that has room for it:
    /// enqueue, mark (with `ecn`, an ECN-capable packet while the probability is at most
    /// `mark_ecnth`, RFC 8033 §5.1) or drop early.
    pub fn admit(
        &mut self,
        c: &PieParams,
        backlog: u64,
        pkt: PktId,
        ctx: &mut QueueCtx,
    ) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.drop_early(c, backlog, size, ctx.rng) {
            return Verdict::Enqueued;
        }
        if c.ecn && self.drop_prob <= c.mark_ecnth && ctx.ecn_capable(pkt) {
            return Verdict::Marked(Reason::Early);
        }
        Verdict::Dropped(Reason::Early)
    }

    /// Test scaffolding: a queue past its burst allowance with probability `p` and last
    /// delay sample `qdelay_old` seconds.
    #[cfg(test)]
    pub fn force(&mut self, p: f64, qdelay_old: f64) {
        self.drop_prob = p;
        self.qdelay_old = qdelay_old;
        self.qdelay = qdelay_old;
        self.burst_allowance = SimTime::ZERO;
    }

    /// A drop for want of room: the derandomisation restarts (Linux `pie_qdisc_enqueue`).
    pub fn overflowed(&mut self) {
        self.accu_prob = 0.0;
    }

    /// The packet of `size` bytes just dequeued at `now` after `sojourn` in a queue now holding
    /// `backlog` bytes: the delay sample (the sojourn, or 0 for a queue left empty, as Linux's
    /// default) or, with `dq_rate_estimator`, the departure-rate measurement.
    pub fn departed(
        &mut self,
        c: &PieParams,
        size: u32,
        sojourn: SimTime,
        backlog: u64,
        now: SimTime,
    ) {
        if c.dq_rate_estimator {
            self.measure(size, backlog, now);
        } else if backlog == 0 {
            self.qdelay = 0.0;
        } else {
            self.qdelay = sojourn.as_secs_f64();
        }
    }

    /// The departure-rate estimator (RFC 8033 §5.2), called with the packet just dequeued.
    fn measure(&mut self, size: u32, backlog: u64, now: SimTime) {
        if !self.in_measurement && backlog >= DQ_THRESHOLD {
            self.in_measurement = true;
            self.dq_start = now;
            self.dq_count = 0;
        }
        if self.in_measurement {
            self.dq_count += size as u64;
            if self.dq_count >= DQ_THRESHOLD {
                let dt = (now - self.dq_start).as_secs_f64();
                if dt > 0.0 {
                    // Time per DQ_THRESHOLD bytes over this cycle.
                    let sample = dt * DQ_THRESHOLD as f64 / self.dq_count as f64;
                    self.avg_dq_time = if self.avg_dq_time == 0.0 {
                        sample
                    } else {
                        (1.0 - DQ_WEIGHT) * self.avg_dq_time + DQ_WEIGHT * sample
                    };
                }
                self.in_measurement = false;
            }
        }
    }
}

/// The next update due after `next` once the one at `next` changed nothing at `now`: every
/// update up to `now` is then the same fixed point (no packet event moves the delay between
/// them), so they are skipped.
pub(super) fn skip_fixed_points(next: SimTime, now: SimTime, tupdate: SimTime) -> SimTime {
    if next > now {
        return next;
    }
    let missed = (now - next).as_nanos() / tupdate.as_nanos();
    next + tupdate.saturating_mul(missed + 1)
}

pub struct Pie {
    c: PieParams,
    fifo: Fifo,
    v: PieVars,
    next_update: SimTime,
}

impl Pie {
    pub fn new(c: PieParams) -> Pie {
        Pie {
            v: PieVars::new(&c),
            next_update: c.tupdate,
            c,
            fifo: Fifo::default(),
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.v.drop_prob
    }

    /// The queueing delay the controller uses now, seconds.
    pub fn qdelay(&self) -> f64 {
        self.v.qdelay(&self.c, self.fifo.bytes)
    }

    fn update(&mut self) -> bool {
        self.v.update(&self.c, self.fifo.bytes)
    }

    /// Applies every update due at or before `now`.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            let changed = self.update();
            self.next_update += self.c.tupdate;
            if !changed {
                // A fixed point (an idle, calm queue): the remaining updates change nothing.
                self.next_update = skip_fixed_points(self.next_update, now, self.c.tupdate);
            }
        }
    }
}

impl QueueDiscipline for Pie {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        self.catch_up(ctx.now);
        if self.fifo.q.len() as u32 >= self.c.limit {
            self.v.overflowed();
            return Verdict::Dropped(Reason::Overflow);
        }
        let v = self.v.admit(&self.c, self.fifo.bytes, pkt, ctx);
        if !matches!(v, Verdict::Dropped(_)) {
            self.fifo.push(pkt, ctx.arena.get(pkt).size);
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        self.catch_up(ctx.now);
        let p = self.fifo.pop(ctx.arena)?;
        let pkt = ctx.arena.get(p);
        let sojourn = ctx.now - pkt.enqueued;
        self.v
            .departed(&self.c, pkt.size, sojourn, self.fifo.bytes, ctx.now);
        Some(p)
    }

    fn len_packets(&self) -> u32 {
        self.fifo.q.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes
    }
    fn upcoming(&self) -> Option<PktId> {
        self.fifo.q.front().copied()
    }
}

/// PIE (RFC 8033).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    /// Target queueing delay (QDELAY_REF). Default 15 ms.
    #[serde(default)]
    pub target: Option<Duration>,
    /// Drop-probability update period (T_UPDATE). Default 15 ms.
    #[serde(default)]
    pub tupdate: Option<Duration>,
    /// Proportional gain, Hz. Default 0.125.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Integral gain, Hz. Default 1.25.
    #[serde(default)]
    pub beta: Option<f64>,
    /// Burst allowance (MAX_BURST). Default 150 ms.
    #[serde(default)]
    pub max_burst: Option<Duration>,
    /// Tail-drop limit, packets. Default 1000 (Linux `sch_pie`).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Mark ECN-capable packets instead of dropping them while the probability is at most
    /// `mark_ecnth`. Default false.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// Default 0.1 (RFC 8033 §5.1).
    #[serde(default)]
    pub mark_ecnth: Option<f64>,
    /// Scale the probability by packet size / mtu. Default false.
    #[serde(default)]
    pub bytemode: Option<bool>,
    /// RFC 8033 §5.4 derandomisation of drops. Default true (Linux).
    #[serde(default)]
    pub derandomize: Option<bool>,
    /// Estimate the delay from the departure rate (RFC 8033 §5.2) instead of per-packet
    /// timestamps. Default false (Linux).
    #[serde(default)]
    pub dq_rate_estimator: Option<bool>,
    /// Packet size of the two-packet safeguard and byte mode. Default 1500 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
}

/// A controller gain in Hz, `def` where left out; negative or non-finite values are refused.
pub(super) fn gain(v: Option<f64>, def: f64, field: &'static str) -> Result<f64, ParamError> {
    let g = v.unwrap_or(def);
    if !g.is_finite() || g < 0.0 {
        return Err((field, format!("{g} must be a non-negative number (Hz)")));
    }
    Ok(g)
}

impl QueueConfig for PieSpec {
    type Discipline = Pie;

    fn build(&self, _ctx: &QueueContext) -> Result<Pie, ParamError> {
        let s = self;
        Ok(Pie::new(PieParams {
            target: positive_time(s.target, TARGET, "target")?,
            tupdate: positive_time(s.tupdate, TUPDATE, "tupdate")?,
            alpha: gain(s.alpha, ALPHA, "alpha")?,
            beta: gain(s.beta, BETA, "beta")?,
            max_burst: s.max_burst.map(|d| d.0).unwrap_or(MAX_BURST),
            limit: at_least_one(s.limit, LIMIT, "limit", "packet")?,
            ecn: s.ecn.unwrap_or(false),
            mark_ecnth: in_range(
                s.mark_ecnth.unwrap_or(MARK_ECNTH),
                false,
                0.0,
                1.0,
                "mark_ecnth",
            )?,
            bytemode: s.bytemode.unwrap_or(false),
            derandomize: s.derandomize.unwrap_or(true),
            dq_rate_estimator: s.dq_rate_estimator.unwrap_or(false),
            mtu: bytes_u32(s.mtu, MTU),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;

    fn params() -> PieParams {
        PieParams {
            target: TARGET,
            tupdate: TUPDATE,
            alpha: ALPHA,
            beta: BETA,
            max_burst: MAX_BURST,
            limit: LIMIT,
            ecn: false,
            mark_ecnth: MARK_ECNTH,
            bytemode: false,
            derandomize: false,
            dq_rate_estimator: false,
            mtu: MTU,
        }
    }

    #[test]
    fn controller_steps_follow_rfc8033() {
        let mut q = Pie::new(params());
        // qdelay 35 ms, previously 0, probability 0:
        //   p = 0.125·(0.035 − 0.015) + 1.25·(0.035 − 0) = 0.0025 + 0.04375 = 0.04625,
        //   prob < 1e−6 → p/2048 = 2.2583e−5.
        q.v.qdelay = 0.035;
        q.update();
        assert!((q.v.drop_prob - 0.04625 / 2048.0).abs() < 1e-15);
        // Same delay again: p = 0.125·0.02 + 1.25·0 = 0.0025; prob (2.26e−5) < 1e−4 → /128:
        //   prob = 2.2583e−5 + 1.953125e−5 = 4.2114e−5.
        q.update();
        assert!((q.v.drop_prob - (0.04625 / 2048.0 + 0.0025 / 128.0)).abs() < 1e-15);
        // At prob 0.2 a large step is capped at +0.02: qdelay 0.5 s, old 0.035:
        //   p = 0.125·0.485 + 1.25·0.465 = 0.64187 → 0.02.
        q.v.drop_prob = 0.2;
        q.v.qdelay = 0.5;
        q.update();
        assert!((q.v.drop_prob - 0.22).abs() < 1e-12);
        // Low delay on two samples: p = 0.125·(0.001 − 0.015) + 1.25·(0.001 − 0.002)
        //   = −0.00175 − 0.00125 = −0.003 (prob ≥ 0.1: unscaled), then ×0.98:
        //   (0.22 − 0.003)·0.98 = 0.21266.
        q.v.qdelay_old = 0.002;
        q.v.qdelay = 0.001;
        q.update();
        assert!((q.v.drop_prob - 0.217 * 0.98).abs() < 1e-12);
    }

    #[test]
    fn burst_allowance_runs_out_after_max_burst_and_returns_when_calm() {
        let mut q = Pie::new(params());
        q.v.qdelay = 0.05;
        // 150 ms of allowance, 15 ms per update: gone after 10 updates.
        for k in 1..=10 {
            assert!(q.v.burst_allowance > SimTime::ZERO, "update {k}");
            q.update();
        }
        assert_eq!(q.v.burst_allowance, SimTime::ZERO);
        // Calm: delay below target/2 twice; the probability decays (−α·target/2048 per step
        // and ×0.98) to exactly 0, then the allowance is restored.
        q.v.qdelay = 0.0;
        for _ in 0..10_000 {
            q.update();
            if q.v.drop_prob == 0.0 {
                break;
            }
        }
        assert_eq!(q.v.drop_prob, 0.0);
        q.update();
        assert_eq!(q.v.burst_allowance, MAX_BURST);
    }

    #[test]
    fn drop_early_safeguards() {
        let mut h = Harness::new();
        let mut c = params();
        c.ecn = true;
        c.limit = 100_000;
        let mut q = Pie::new(c);
        q.v.burst_allowance = SimTime::ZERO;
        q.v.drop_prob = 1.0;
        q.v.qdelay_old = 0.02;
        // At most 2·MTU queued: never dropped, even at probability 1.
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO),
            Verdict::Enqueued
        );
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO),
            Verdict::Enqueued
        );
        // More than that: dropped (probability 1); ECT too, since 1 > mark_ecnth.
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO),
            Verdict::Enqueued
        );
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::Ect0, SimTime::ZERO),
            Verdict::Dropped(Reason::Early)
        );
        // At probability ≤ 10 % an ECT packet is marked when chosen: with derandomisation off
        // and p = 0.1 about one in ten arrivals is chosen, every one of them marked.
        q.v.drop_prob = 0.1;
        let mut marks = 0;
        for _ in 0..1000 {
            match h.offer(&mut q, 0, 1500, Ecn::Ect0, SimTime::ZERO) {
                Verdict::Marked(Reason::Early) => marks += 1,
                Verdict::Enqueued => {}
                v => panic!("{v:?}"),
            }
        }
        assert!((60..=140).contains(&marks), "{marks}");
        // Delay below target/2 with probability under 20 %: no drop.
        q.v.qdelay_old = 0.001;
        q.v.drop_prob = 0.19;
        for _ in 0..100 {
            assert_eq!(
                h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO),
                Verdict::Enqueued
            );
        }
    }

    #[test]
    fn derandomisation_bounds_the_gap_between_drops() {
        // §5.4: accu_prob += p per arrival; no drop while below 0.85, a sure drop at 8.5. With
        // p = 0.1 the first 8 arrivals after a drop pass (accu 0.8 < 0.85), and a drop comes
        // by the 86th (accu ≥ 8.5, allowing for rounding in the sum).
        let mut h = Harness::new();
        let mut c = params();
        c.derandomize = true;
        c.limit = 100_000;
        let mut q = Pie::new(c);
        q.v.burst_allowance = SimTime::ZERO;
        q.v.qdelay_old = 0.02;
        q.v.drop_prob = 0.1;
        for _ in 0..3 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        }
        q.v.accu_prob = 0.0;
        let mut gap = 0;
        let mut gaps = vec![];
        for _ in 0..20_000 {
            gap += 1;
            if h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO)
                == Verdict::Dropped(Reason::Early)
            {
                gaps.push(gap);
                gap = 0;
            }
        }
        assert!(gaps.iter().all(|g| (9..=86).contains(g)), "{gaps:?}");
    }

    #[test]
    fn timestamp_delay_and_departure_rate_estimates() {
        // Timestamps: the sojourn of the last departure (0 once the queue is empty).
        let mut h = Harness::new();
        let mut q = Pie::new(params());
        h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        q.dequeue(&mut h.ctx(SimTime::from_millis(7)));
        assert!((q.qdelay() - 0.007).abs() < 1e-12);
        q.dequeue(&mut h.ctx(SimTime::from_millis(8)));
        assert_eq!(q.qdelay(), 0.0);
        // Departure rate: 40 packets of 1024 B (40 KiB) drained one per 1 ms, i.e. 1.024 MB/s.
        // A cycle starts at the first departure leaving ≥ 16 KiB queued and ends once 16 KiB
        // have left: 16 departures, the first counted at its own time, so 15 ms per 16 KiB.
        // With 23 KiB left the delay estimate is 23·1024·0.015/16384 = 21.5625 ms.
        let mut c = params();
        c.dq_rate_estimator = true;
        let mut q = Pie::new(c);
        for _ in 0..40 {
            h.offer(&mut q, 0, 1024, Ecn::NotEct, SimTime::ZERO);
        }
        for k in 1..=17 {
            q.dequeue(&mut h.ctx(SimTime::from_millis(k)));
        }
        assert!(
            (q.v.avg_dq_time - 0.015).abs() < 1e-12,
            "{}",
            q.v.avg_dq_time
        );
        assert!((q.qdelay() - 23.0 * 1024.0 * 0.015 / 16384.0).abs() < 1e-12);
    }

    #[test]
    fn updates_run_lazily_on_the_tupdate_grid() {
        // No traffic for 1 s, then one packet: 66 updates were due (15, 30, …, 990 ms); with
        // qdelay 0 they are a fixed point, and the next one is due at 1005 ms.
        let mut h = Harness::new();
        let mut q = Pie::new(params());
        h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::from_secs(1));
        assert_eq!(q.next_update, SimTime::from_millis(1005));
        assert_eq!(q.v.drop_prob, 0.0);
        assert_eq!(q.v.burst_allowance, MAX_BURST);
    }
}
