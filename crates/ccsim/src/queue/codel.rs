//! CoDel — Nichols, Jacobson, McGregor, Iyengar, "Controlled Delay Active Queue Management",
//! RFC 8289 (2018), following its pseudocode (§5) with Linux's ECN handling
//! (`include/net/codel_impl.h`).
//!
//! CoDel watches the sojourn time of each packet as it leaves the queue. When the sojourn time
//! has stayed at or above `target` for a whole `interval` (and more than one MTU is queued), it
//! enters the dropping state: it drops the packet at the head and schedules the next drop at
//! `interval/√count` later (the control law, §5.5), so the drop rate grows until the sojourn
//! time falls below target again. Re-entering soon after leaving starts from the previous drop
//! rate (`count = count − lastcount` when that is above 1 and the last drop was less than 16
//! intervals ago, RFC 8289 §5.6, "the Linux version"). With `ecn` an ECN-capable head packet is
//! marked CE and sent instead of dropped (and ends the drop loop, as Linux does).
//!
//! Deviations: the control law uses an exact square root (Linux a Newton-step approximation of
//! 1/√count); the entry test is `now ≥ first_above_time` (RFC 8289; Linux uses `>`).
//!
//! The state machine (`CodelVars`) is shared with FQ-CoDel, which runs one per flow queue.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::Deserialize;

use super::ce_threshold::CeThreshold;
use super::param::{at_least_one, bytes_u32, positive_time};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::{Bytes, Duration};
use crate::config::ParamError;
use crate::packet::{PacketArena, PktId};
use crate::time::SimTime;

/// RFC 8289 §4.2–4.3 recommended values for the Internet.
pub const TARGET: SimTime = SimTime::from_millis(5);
pub const INTERVAL: SimTime = SimTime::from_millis(100);
/// Linux `sch_codel` default limit (packets); RFC 8289 leaves the buffer size open.
pub const LIMIT: u32 = 1000;
/// "maxpacket" of RFC 8289's `bytes() <= maxpacket` test: one MTU (IP packet sizes here).
pub const MTU: u32 = 1500;

#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    pub target: SimTime,
    pub interval: SimTime,
    /// No drop while at most this many bytes are queued.
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Linux's `ce_threshold` (`ce_threshold.rs`), if set.
    pub ce_threshold: Option<CeThreshold>,
}

/// Where the state machine takes packets from, and the backlog its MTU test reads.
pub(super) trait CodelSource {
    fn pop(&mut self, arena: &PacketArena) -> Option<PktId>;
    /// Bytes still queued (after the pop).
    fn backlog(&self) -> u64;
}

/// The per-queue variables of RFC 8289 §5.
#[derive(Clone, Debug, Default)]
pub struct CodelVars {
    count: u32,
    lastcount: u32,
    dropping: bool,
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
}

/// The control law (RFC 8289 §5.5): `t + interval/√count` (count 0 as 1). Shared with COBALT.
pub(super) fn control_law(t: SimTime, interval: SimTime, count: u32) -> SimTime {
    t + SimTime::from_secs_f64(interval.as_secs_f64() / (count.max(1) as f64).sqrt())
}

impl CodelVars {
    /// RFC 8289 `dodequeue`'s test on the packet just taken: whether the sojourn time has been
    /// above target for at least an interval.
    fn ok_to_drop(
        &mut self,
        p: Option<PktId>,
        src: &impl CodelSource,
        params: &CodelParams,
        now: SimTime,
        arena: &PacketArena,
    ) -> bool {
        let Some(p) = p else {
            self.first_above_time = None;
            return false;
        };
        let sojourn = now - arena.get(p).enqueued;
        if sojourn < params.target || src.backlog() <= params.mtu as u64 {
            // Went (or stayed) below: it must stay above for a full interval again.
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + params.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// RFC 8289 `dequeue`: the packet to send, after any drops (reported in `ctx.dropped`) or a
    /// mark.
    pub(super) fn dequeue(
        &mut self,
        params: &CodelParams,
        src: &mut impl CodelSource,
        ctx: &mut QueueCtx,
    ) -> Option<PktId> {
        let now = ctx.now;
        let mut p = src.pop(ctx.arena);
        if p.is_none() {
            self.dropping = false;
            self.first_above_time = None;
            return None;
        }
        let ok = self.ok_to_drop(p, src, params, now, ctx.arena);
        if self.dropping {
            if !ok {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop(s); a large backlog may need several now.
            while self.dropping && now >= self.drop_next {
                let head = p.expect("dropping implies a packet");
                self.count += 1;
                if params.ecn && ctx.mark(head, Reason::Early) {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                    return p;
                }
                ctx.dropped.push((head, Reason::Early));
                p = src.pop(ctx.arena);
                if !self.ok_to_drop(p, src, params, now, ctx.arena) {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                }
            }
        } else if ok {
            // Above target for an interval: drop (or mark) and enter the dropping state.
            let head = p.expect("ok_to_drop implies a packet");
            if !(params.ecn && ctx.mark(head, Reason::Early)) {
                ctx.dropped.push((head, Reason::Early));
                p = src.pop(ctx.arena);
                // Called for its effect on first_above_time, as in RFC 8289.
                self.ok_to_drop(p, src, params, now, ctx.arena);
            }
            self.dropping = true;
            // If the last dropping state ended recently, resume near its drop rate.
            let delta = self.count.saturating_sub(self.lastcount);
            let recent =
                now < self.drop_next || now - self.drop_next < params.interval.saturating_mul(16);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.lastcount = self.count;
            self.drop_next = control_law(now, params.interval, self.count);
        }
        if let (Some(ce), Some(q)) = (params.ce_threshold, p) {
            ce.apply(q, ctx);
        }
        p
    }
}

/// A FIFO with its byte count.
#[derive(Default)]
pub(super) struct Fifo {
    pub q: VecDeque<PktId>,
    pub bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, p: PktId, size: u32) {
        self.bytes += size as u64;
        self.q.push_back(p);
    }
}

impl CodelSource for Fifo {
    fn pop(&mut self, arena: &PacketArena) -> Option<PktId> {
        let p = self.q.pop_front()?;
        self.bytes -= arena.get(p).size as u64;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        self.bytes
    }
}

/// A single CoDel queue with a tail-drop limit in packets.
pub struct Codel {
    params: CodelParams,
    limit: u32,
    fifo: Fifo,
    vars: CodelVars,
}

impl Codel {
    pub fn new(params: CodelParams, limit: u32) -> Codel {
        Codel {
            params,
            limit,
            fifo: Fifo::default(),
            vars: CodelVars::default(),
        }
    }
}

impl QueueDiscipline for Codel {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        if self.fifo.q.len() as u32 >= self.limit {
            return Verdict::Dropped(Reason::Overflow);
        }
        self.fifo.push(pkt, ctx.arena.get(pkt).size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        self.vars.dequeue(&self.params, &mut self.fifo, ctx)
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

/// CoDel (RFC 8289).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Acceptable standing sojourn time. Default 5 ms (RFC 8289 §4.3).
    #[serde(default)]
    pub target: Option<Duration>,
    /// Sliding window over which the sojourn must stay above target. Default 100 ms (§4.2).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Tail-drop limit, packets. Default 1000 (Linux `sch_codel`).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// No drop while at most this many bytes are queued (RFC 8289's maxpacket). Default 1500 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them. Default false (Linux `sch_codel`).
    #[serde(default)]
    pub ecn: Option<bool>,
    /// Mark CE every ECN-capable packet that leaves after more than this in the queue, beside
    /// CoDel's own decisions (Linux `ce_threshold`). Default none.
    #[serde(default)]
    pub ce_threshold: Option<Duration>,
}

/// CoDel's parameters, shared with FQ-CoDel: defaults for what is left out, zero times refused.
pub(crate) fn params(
    target: Option<Duration>,
    interval: Option<Duration>,
    mtu: Option<Bytes>,
    ecn: bool,
    ce_threshold: Option<CeThreshold>,
) -> Result<CodelParams, ParamError> {
    Ok(CodelParams {
        target: positive_time(target, TARGET, "target")?,
        interval: positive_time(interval, INTERVAL, "interval")?,
        mtu: bytes_u32(mtu, MTU),
        ecn,
        ce_threshold,
    })
}

impl QueueConfig for CodelSpec {
    type Discipline = Codel;

    fn build(&self, _ctx: &QueueContext) -> Result<Codel, ParamError> {
        let s = self;
        let ce = CeThreshold::from_spec(s.ce_threshold, None, None)?;
        let p = params(s.target, s.interval, s.mtu, s.ecn.unwrap_or(false), ce)?;
        let limit = at_least_one(s.limit, LIMIT, "limit", "packet")?;
        Ok(Codel::new(p, limit))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;

    fn params(ecn: bool) -> CodelParams {
        CodelParams {
            target: TARGET,
            interval: INTERVAL,
            mtu: MTU,
            ecn,
            ce_threshold: None,
        }
    }

    fn ms(x: f64) -> SimTime {
        SimTime::from_secs_f64(x / 1e3)
    }

    /// 200 packets of 1500 B all enqueued at t = 0 and drained one per 10 ms (a slow link), so
    /// the packet leaving at t has sojourn t. Returns (time, dropped or marked) per event.
    fn drain(ecn: bool) -> Vec<(SimTime, &'static str)> {
        let mut h = Harness::new();
        let mut q = Codel::new(params(ecn), 1000);
        let e = if ecn { Ecn::Ect0 } else { Ecn::NotEct };
        for _ in 0..200 {
            h.offer(&mut q, 0, 1500, e, SimTime::ZERO);
        }
        let mut out = vec![];
        for k in 1..=40 {
            let t = SimTime::from_millis(10 * k);
            let p = q.dequeue(&mut h.ctx(t));
            assert!(p.is_some());
            for _ in h.dropped.drain(..) {
                out.push((t, "drop"));
            }
            for _ in h.marked.drain(..) {
                out.push((t, "mark"));
            }
        }
        out
    }

    #[test]
    fn standing_queue_is_dropped_on_the_control_law_schedule() {
        // t = 10 ms: sojourn 10 ms ≥ 5 ms, 299 kB queued: first_above_time = 10 + 100 = 110.
        // t = 110: ok to drop → drop, enter dropping with count 1, drop_next = 110 + 100/√1 = 210.
        // t = 210: drop, count 2, drop_next = 210 + 100/√2 = 280.71.
        // t = 290: drop, count 3, drop_next = 280.71 + 100/√3 = 338.45.
        // t = 340: drop, count 4, drop_next = 338.45 + 100/√4 = 388.45.
        // t = 390: drop, count 5 (next at 388.45 + 44.72 = 433.17, after t = 400).
        let times: Vec<f64> = drain(false)
            .iter()
            .map(|(t, what)| {
                assert_eq!(*what, "drop");
                t.as_secs_f64() * 1e3
            })
            .collect();
        assert_eq!(times, vec![110.0, 210.0, 290.0, 340.0, 390.0]);
        assert!((control_law(ms(210.0), INTERVAL, 2).as_secs_f64() * 1e3 - 280.7107).abs() < 1e-3);
    }

    #[test]
    fn with_ecn_the_same_decisions_mark_instead() {
        let marks = drain(true);
        let times: Vec<f64> = marks.iter().map(|(t, _)| t.as_secs_f64() * 1e3).collect();
        assert!(marks.iter().all(|(_, w)| *w == "mark"));
        // Marking does not shorten the queue, so the schedule is the same as with drops.
        assert_eq!(times, vec![110.0, 210.0, 290.0, 340.0, 390.0]);
    }

    #[test]
    fn no_drop_below_target_or_with_at_most_one_mtu_queued() {
        let mut h = Harness::new();
        let mut q = Codel::new(params(false), 1000);
        // Sojourn 4 ms < target, forever.
        for k in 0..500u64 {
            let t = SimTime::from_millis(k);
            h.offer(&mut q, 0, 1500, Ecn::NotEct, t);
            h.offer(&mut q, 0, 1500, Ecn::NotEct, t);
            if k >= 4 {
                q.dequeue(&mut h.ctx(t));
                q.dequeue(&mut h.ctx(t));
            }
        }
        assert!(h.dropped.is_empty());
        // A single packet waiting 1 s: sojourn huge, but the backlog after it is 0 ≤ MTU.
        let mut q = Codel::new(params(false), 1000);
        for k in 0..5u64 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::from_secs(k));
            q.dequeue(&mut h.ctx(SimTime::from_secs(k + 1)));
        }
        assert!(h.dropped.is_empty());
    }

    #[test]
    fn reentering_soon_resumes_the_previous_drop_rate() {
        // RFC 8289 §5.6: count 7, lastcount 3 when the last dropping state ended, drop_next 50 ms
        // ago (< 16 intervals): on re-entry count = 7 − 3 = 4 and the next drop is
        // now + 100/√4 = now + 50 ms.
        let mut h = Harness::new();
        let mut q = Codel::new(params(false), 1000);
        for _ in 0..10 {
            h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        }
        let now = SimTime::from_secs(1);
        q.vars = CodelVars {
            count: 7,
            lastcount: 3,
            dropping: false,
            first_above_time: Some(now - SimTime::from_millis(1)),
            drop_next: now - SimTime::from_millis(50),
        };
        assert!(q.dequeue(&mut h.ctx(now)).is_some());
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(q.vars.count, 4);
        assert_eq!(q.vars.drop_next, now + SimTime::from_millis(50));
        // Long after (≥ 16 intervals): count restarts at 1, next drop 100 ms later.
        q.vars.dropping = false;
        q.vars.count = 7;
        q.vars.lastcount = 3;
        q.vars.first_above_time = Some(SimTime::ZERO);
        let later = SimTime::from_secs(3);
        q.dequeue(&mut h.ctx(later));
        assert_eq!(q.vars.count, 1);
        assert_eq!(q.vars.drop_next, later + INTERVAL);
    }

    #[test]
    fn tail_drops_at_the_limit() {
        let mut h = Harness::new();
        let mut q = Codel::new(params(true), 2);
        assert_eq!(
            h.offer(&mut q, 0, 100, Ecn::Ect0, SimTime::ZERO),
            Verdict::Enqueued
        );
        assert_eq!(
            h.offer(&mut q, 0, 100, Ecn::Ect0, SimTime::ZERO),
            Verdict::Enqueued
        );
        assert_eq!(
            h.offer(&mut q, 0, 100, Ecn::Ect0, SimTime::ZERO),
            Verdict::Dropped(Reason::Overflow)
        );
    }

    #[test]
    fn ce_threshold_marks_beside_codels_own_decisions() {
        // Three ECT(0) packets queued at 0; a 1 ms threshold. CoDel itself does nothing while
        // the sojourn is under its 5 ms target, but the threshold marks what waited > 1 ms.
        let mut p = params(false);
        p.ce_threshold = Some(CeThreshold {
            after: SimTime::from_millis(1),
            selector: 0,
            mask: 0,
        });
        let mut h = Harness::new();
        let mut q = Codel::new(p, LIMIT);
        for _ in 0..3 {
            h.offer(&mut q, 0, 1500, Ecn::Ect0, SimTime::ZERO);
        }
        let mut out = vec![];
        for at in [SimTime::from_micros(500), ms(1.0), ms(2.0)] {
            let pkt = q.dequeue(&mut h.ctx(at)).unwrap();
            out.push(h.arena.get(pkt).ecn);
        }
        assert_eq!(out, [Ecn::Ect0, Ecn::Ect0, Ecn::Ce]);
        assert_eq!((h.marked.len(), h.dropped.len()), (1, 0));
    }
}
