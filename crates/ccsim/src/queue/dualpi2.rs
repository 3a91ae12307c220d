//! DualPI2 — the coupled dual-queue AQM of the L4S architecture (De Schepper, Briscoe & White,
//! RFC 9332), in the form of Linux `net/sched/sch_dualpi2.c`.
//!
//! Packets that carry the L4S identifier (ECT(1), or CE, RFC 9331 §5.3) wait in the L queue,
//! all others in the classic (C) queue. One PI controller on the queueing delay yields a base
//! probability p'; the classic queue applies its square and the L queue a linear multiple:
//!
//! ```text
//! every tupdate:  qdelay = max(head sojourn of C, head sojourn of L)      (Linux)
//!                 p' += α·(qdelay − target) + β·(qdelay − qdelay_prev)   (α, β per second)
//!                 p' kept in [0, 1]
//! C packet:  with probability p'² — mark CE if ECN-capable, else drop (drop when overloaded)
//! L packet:  with probability k·p' (coupled) — mark CE; then the native step: mark if the
//!            packet waited more than step_thresh (1 ms)
//! overload (k·p' > 1): L packets are dropped with probability p'², every other one is marked
//! ```
//!
//! Squaring suits classic senders, whose rate goes as 1/√p, and the linear p' scalable ones
//! (DCTCP, Prague), whose rate goes as 1/p: with k = 2 a Prague and a CUBIC flow get about
//! equal rates (RFC 9332 §2.1). Decisions are taken at dequeue, on the packet leaving, and none
//! while less than two MTUs are queued in all (Linux's `must_drop`). The scheduler is Linux's
//! weighted round robin with classic protection: while both queues hold packets the L queue
//! goes first until a credit, raised by c_protection per cent of each L byte and lowered by
//! the rest per cent of each C byte, turns positive, which caps the classic queue's share at
//! about `c_protection` per cent when both are saturated.
//!
//! The update runs lazily on the tupdate grid at each enqueue and dequeue, as PIE's
//! (`queue/pie.rs`): nothing changes between events, so this equals Linux's periodic timer.
//! Departures from Linux: no GSO splitting (ccsim's packets are single segments), the memory
//! limit is not modelled (only `limit` packets), and random draws come from the link's stream.

use schemars::JsonSchema;
use serde::Deserialize;

use super::codel::{CodelSource, Fifo};
use super::param::{at_least_one, bytes_u32, in_range, positive_time};
use super::pie::{gain, skip_fixed_points};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::{Bytes, Duration};
use crate::config::ParamError;
use crate::packet::{Ecn, PktId};
use crate::time::SimTime;

/// Linux `dualpi2_reset_default`: target 15 ms, tupdate 16 ms, α 0.16 Hz and β 3.2 Hz
/// (given to the kernel as 41/256 and 819/256), coupling 2, step 1 ms, 10 % classic
/// protection, 10,000 packets.
pub const TARGET: SimTime = SimTime::from_millis(15);
pub const TUPDATE: SimTime = SimTime::from_millis(16);
pub const ALPHA: f64 = 0.16;
pub const BETA: f64 = 3.2;
pub const COUPLING: f64 = 2.0;
pub const STEP: SimTime = SimTime::from_millis(1);
pub const C_PROTECTION: u32 = 10;
pub const LIMIT: u32 = 10_000;
pub const MTU: u32 = 1500;

#[derive(Clone, Debug, PartialEq)]
struct Params {
    target: SimTime,
    tupdate: SimTime,
    alpha: f64,
    beta: f64,
    k: f64,
    step: SimTime,
    /// Classic and L weights of the scheduler, per cent.
    wc: i64,
    wl: i64,
    limit: u32,
    drop_overload: bool,
    mtu: u32,
}

pub struct DualPi2 {
    c: Params,
    classic: Fifo,
    l4s: Fifo,
    /// The base probability p'.
    prob: f64,
    /// The delay of the previous update, seconds.
    prev_qdelay: f64,
    next_update: SimTime,
    /// The scheduler's credit (bytes × per cent): the L queue goes first while it is ≤ 0.
    credit: i64,
}

impl DualPi2 {
    fn new(c: Params) -> DualPi2 {
        DualPi2 {
            next_update: c.tupdate,
            credit: c.mtu as i64 * (c.wc - c.wl),
            c,
            classic: Fifo::default(),
            l4s: Fifo::default(),
            prob: 0.0,
            prev_qdelay: 0.0,
        }
    }

    /// The base probability p'.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    fn head_sojourn(lane: &Fifo, ctx: &QueueCtx, now: SimTime) -> f64 {
        lane.q
            .front()
            .map_or(0.0, |&p| (now - ctx.arena.get(p).enqueued).as_secs_f64())
    }

    /// Applies every PI update due at or before `ctx.now` (Linux `calculate_probability`).
    fn catch_up(&mut self, ctx: &QueueCtx) {
        while self.next_update <= ctx.now {
            let at = self.next_update;
            let qdelay = Self::head_sojourn(&self.classic, ctx, at)
                .max(Self::head_sojourn(&self.l4s, ctx, at));
            let target = self.c.target.as_secs_f64();
            let delta =
                self.c.alpha * (qdelay - target) + self.c.beta * (qdelay - self.prev_qdelay);
            let before = (self.prob, self.prev_qdelay);
            self.prob = (self.prob + delta).clamp(0.0, 1.0);
            if !self.c.drop_overload {
                self.prob = self.prob.min(1.0 / self.c.k);
            }
            self.prev_qdelay = qdelay;
            self.next_update += self.c.tupdate;
            if (self.prob, self.prev_qdelay) == before {
                // A fixed point (an idle queue at p' = 0): the remaining updates change nothing.
                self.next_update = skip_fixed_points(self.next_update, ctx.now, self.c.tupdate);
            }
        }
    }

    /// Takes the next packet by the weighted round robin (Linux `dequeue_packet`); true if it
    /// is from the L queue.
    fn pick(&mut self, ctx: &QueueCtx) -> Option<(PktId, bool)> {
        let both = !self.classic.q.is_empty() && !self.l4s.q.is_empty();
        let from_l = !self.l4s.q.is_empty() && (self.classic.q.is_empty() || self.credit <= 0);
        let lane = if from_l {
            &mut self.l4s
        } else {
            &mut self.classic
        };
        let Some(p) = lane.pop(ctx.arena) else {
            self.credit = self.c.mtu as i64 * (self.c.wc - self.c.wl);
            return None;
        };
        let size = ctx.arena.get(p).size as u64;
        if both {
            self.credit += if from_l { self.c.wc } else { -self.c.wl } * size as i64;
        }
        Some((p, from_l))
    }

    /// The coupled AQM's decision for a departing packet (Linux `must_drop`): `Some(true)`
    /// drop, `Some(false)` mark, `None` neither.
    fn coupled(&self, from_l: bool, ect: bool, ctx: &mut QueueCtx) -> Option<bool> {
        if self.classic.bytes + self.l4s.bytes < 2 * self.c.mtu as u64 {
            return None;
        }
        let p = self.prob;
        let overload = self.c.k * p > 1.0;
        if !from_l {
            // p'² as two independent draws of p' (Linux `dualpi2_classic_marking`).
            let hit = ctx.rng.bernoulli(p) && ctx.rng.bernoulli(p);
            return hit.then_some(overload || !ect);
        }
        if !overload {
            return ctx.rng.bernoulli(self.c.k * p).then_some(!ect);
        }
        if self.c.drop_overload && ctx.rng.bernoulli(p) && ctx.rng.bernoulli(p) {
            return Some(true);
        }
        Some(!ect)
    }
}

impl QueueDiscipline for DualPi2 {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        self.catch_up(ctx);
        if self.classic.q.len() + self.l4s.q.len() >= self.c.limit as usize {
            return Verdict::Dropped(Reason::Overflow);
        }
        let p = ctx.arena.get(pkt);
        // RFC 9331 §5.3: ECT(1) and CE are the L4S identifier.
        let lane = if matches!(p.ecn, Ecn::Ect1 | Ecn::Ce) {
            &mut self.l4s
        } else {
            &mut self.classic
        };
        lane.push(pkt, p.size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        self.catch_up(ctx);
        loop {
            let (pkt, from_l) = self.pick(ctx)?;
            let ect = ctx.ecn_capable(pkt);
            match self.coupled(from_l, ect, ctx) {
                Some(true) => {
                    ctx.dropped.push((pkt, Reason::Early));
                    continue;
                }
                Some(false) => {
                    ctx.mark(pkt, Reason::Early);
                }
                None => {}
            }
            if from_l {
                // The native step on the packet's own sojourn (Linux `do_step_aqm`).
                let waited = ctx.now - ctx.arena.get(pkt).enqueued;
                if waited > self.c.step && !ctx.mark(pkt, Reason::Forced) {
                    ctx.dropped.push((pkt, Reason::Forced));
                    continue;
                }
            }
            return Some(pkt);
        }
    }

    fn len_packets(&self) -> u32 {
        (self.classic.q.len() + self.l4s.q.len()) as u32
    }

    fn len_bytes(&self) -> u64 {
        self.classic.bytes + self.l4s.bytes
    }
}

/// DualPI2 (RFC 9332, Linux `sch_dualpi2`): the L4S coupled dual queue. ECT(1) and CE packets
/// go to a low-latency queue marked at 1 ms of sojourn and with the coupled probability k·p';
/// the others to a classic queue that a PI controller holds near `target` with p'².
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DualPi2Spec {
    /// Target queueing delay of the PI controller. Default 15 ms.
    #[serde(default)]
    pub target: Option<Duration>,
    /// Update period of p'. Default 16 ms.
    #[serde(default)]
    pub tupdate: Option<Duration>,
    /// Integral gain α, per second of delay error, per update. Default 0.16.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Proportional gain β, per second of delay change, per update. Default 3.2.
    #[serde(default)]
    pub beta: Option<f64>,
    /// Coupling factor k (L's probability k·p'). Default 2.
    #[serde(default)]
    pub coupling_factor: Option<f64>,
    /// The L queue's native step: mark a packet that waited longer than this. Default 1 ms.
    #[serde(default)]
    pub step_thresh: Option<Duration>,
    /// The classic queue's minimum share of the scheduler when both queues are busy, per cent
    /// (Linux `c_protection`). Default 10; 0 to 100.
    #[serde(default)]
    pub c_protection: Option<u32>,
    /// Capacity of both queues together, packets. Default 10,000 (Linux).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// On overload (k·p' > 1) drop L packets with p'² rather than only mark them. Default true.
    #[serde(default)]
    pub drop_overload: Option<bool>,
    /// Packet size of the scheduler's credit and of the two-MTU floor. Default 1500 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
}

impl QueueConfig for DualPi2Spec {
    type Discipline = DualPi2;

    fn build(&self, _ctx: &QueueContext) -> Result<DualPi2, ParamError> {
        let s = self;
        let k = s.coupling_factor.unwrap_or(COUPLING);
        if !k.is_finite() || k <= 0.0 {
            return Err(("coupling_factor", format!("{k} must be a positive number")));
        }
        let wc = s.c_protection.unwrap_or(C_PROTECTION);
        if wc > 100 {
            return Err(("c_protection", format!("{wc} must be 0 to 100 (per cent)")));
        }
        Ok(DualPi2::new(Params {
            target: positive_time(s.target, TARGET, "target")?,
            tupdate: positive_time(s.tupdate, TUPDATE, "tupdate")?,
            alpha: gain(s.alpha, ALPHA, "alpha")?,
            beta: gain(s.beta, BETA, "beta")?,
            k,
            step: positive_time(s.step_thresh, STEP, "step_thresh")?,
            wc: wc as i64,
            wl: 100 - wc as i64,
            limit: at_least_one(s.limit, LIMIT, "limit", "packet")?,
            drop_overload: s.drop_overload.unwrap_or(true),
            mtu: in_range(bytes_u32(s.mtu, MTU) as f64, true, 0.0, 65_535.0, "mtu")? as u32,
        }))
    }
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;
