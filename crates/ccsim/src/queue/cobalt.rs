//! COBALT — "CoDel–BLUE Alternate", the AQM of CAKE (T. Høiland-Jørgensen, D. Täht,
//! J. Morton, "Piece of CAKE: A Comprehensive Queue Management Solution for Home Gateways",
//! IEEE LANMAN 2018), following Linux `net/sched/sch_cake.c` (`cobalt_should_drop`,
//! `cobalt_queue_full`, `cobalt_queue_empty`, `cake_set_rate`), as one queue, the way ns-3's
//! `CobaltQueueDisc` runs it.
//!
//! Two controllers run side by side on the packets leaving the queue:
//! - **CoDel**, reworked: a packet whose sojourn exceeds `target` (and four MTUs' worth of
//!   serialisation) puts the queue in the dropping state, with the next signal due
//!   `interval/√count` later; each signal (an ECN mark if the packet allows it, else a drop)
//!   raises `count` and schedules the next by the control law (`codel.rs`'s). Out of the
//!   dropping state, `count` is not reset but *decays*: each time the schedule comes due
//!   without a signal, `count` falls by one and the schedule moves on. So a queue that
//!   becomes congested again soon resumes near its last rate, with none of RFC 8289's
//!   `lastcount` bookkeeping. While `count` is 0, `drop_next` is kept one interval ahead as an
//!   activity timeout.
//! - **BLUE** (Feng, Kandlur, Saha, Shin 2002), for flows that do not respond: a packet that
//!   does not fit (`limit` packets or `memory_limit` bytes) raises the drop probability
//!   `p_drop` by `p_inc` = 1/256; a dequeue that finds the queue empty lowers it by
//!   `p_dec` = 1/4096; each at most once per `target`. Every departing packet is dropped with
//!   probability `p_drop`, ECN-capable or not ("lack of ECN is deliberate"). An overflow also
//!   puts CoDel in the dropping state at once, with a signal due now.
//!
//! The last packet in the queue is never dropped (CAKE: "Last packet in queue may be marked,
//! shouldn't be dropped"). `target` and `interval` are adjusted to the link as CAKE adjusts them
//! to its shaper's rate: `target ≥ 1.5` MTU times and `interval` grows by the same amount and is
//! at least `2·target`, so that a slow link is not signalled for a single packet's delay.
//!
//! Departures: the control law takes an exact square root (CAKE a cached, then Newton-step,
//! fixed-point 1/√count) and `count` 0 counts as 1 (CAKE's cache entry 0, though a fresh
//! CAKE flow's `rec_inv_sqrt` is 0 until its first change, which makes its first schedule
//! `now`); probabilities are `f64` (CAKE's 0.32 fixed point); an arrival that does not fit is
//! the one dropped (ns-3; CAKE drops from the head of its fattest queue); a packet BLUE drops
//! is not also marked (CAKE marks it, then drops it).

use schemars::JsonSchema;
use serde::Deserialize;

use super::codel::{control_law, CodelSource, Fifo};
use super::param::{bytes_u32, in_range, positive_time};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::{Bytes, Duration};
use crate::config::ParamError;
use crate::packet::PktId;
use crate::time::{Rate, SimTime};

/// CAKE's defaults (`cake_init`: `target` 5 ms, `interval` ("rtt") 100 ms, `limit` 10 240
/// packets; `cake_set_rate`: `p_inc` 1/256, `p_dec` 1/4096; `psched_mtu` of Ethernet).
pub const TARGET: SimTime = SimTime::from_millis(5);
pub const INTERVAL: SimTime = SimTime::from_millis(100);
pub const LIMIT: u32 = 10_240;
pub const P_INC: f64 = 1.0 / 256.0;
pub const P_DEC: f64 = 1.0 / 4096.0;
pub const MTU: u32 = 1514;
/// CAKE's floor of its automatic buffer limit (`cake_reconfigure`).
const MIN_MEMORY: u64 = 4 << 20;

#[derive(Clone, Debug, PartialEq)]
pub struct CobaltParams {
    /// Effective target and interval (after `cake_set_rate`'s adjustment).
    pub target: SimTime,
    pub interval: SimTime,
    /// Serialisation time of one MTU at the link's rate.
    pub mtu_time: SimTime,
    pub p_inc: f64,
    pub p_dec: f64,
    pub ecn: bool,
    pub limit: u32,
    pub memory_limit: u64,
}

/// `cake_set_rate`'s adjustment for a link of `rate`: the MTU time, and target and interval
/// raised so that one packet's serialisation is never above target.
pub fn adjust(target: SimTime, interval: SimTime, mtu: u32, rate: Rate) -> [SimTime; 3] {
    let mtu_time = rate.tx_time(mtu);
    let t = target.max(SimTime::from_nanos(mtu_time.as_nanos() * 3 / 2));
    let i = (interval + t - target).max(t.saturating_mul(2));
    [t, i, mtu_time]
}

/// COBALT's per-queue state (CAKE `struct cobalt_vars`).
#[derive(Clone, Debug, Default)]
pub struct CobaltVars {
    count: u32,
    /// When the next signal is due or, while `count` is 0, the activity timeout.
    drop_next: SimTime,
    /// Last change of `p_drop`.
    blue_timer: SimTime,
    p_drop: f64,
    dropping: bool,
}

impl CobaltVars {
    pub fn p_drop(&self) -> f64 {
        self.p_drop
    }

    /// CAKE `cobalt_queue_full`: an arrival did not fit.
    fn queue_full(&mut self, c: &CobaltParams, now: SimTime) {
        if now > self.blue_timer + c.target {
            self.p_drop = (self.p_drop + c.p_inc).min(1.0);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        self.count = self.count.max(1);
    }

    /// CAKE `cobalt_queue_empty`: a dequeue found nothing.
    fn queue_empty(&mut self, c: &CobaltParams, now: SimTime) {
        if self.p_drop > 0.0 && now > self.blue_timer + c.target {
            self.p_drop = (self.p_drop - c.p_dec).max(0.0);
            self.blue_timer = now;
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.drop_next = control_law(self.drop_next, c.interval, self.count);
        }
    }

    /// CAKE `cobalt_should_drop` for the packet just dequeued, waited `sojourn`: whether to
    /// drop it (a CoDel signal the packet cannot carry as a mark, or BLUE's draw), and whether
    /// to mark it instead.
    fn should_drop(
        &mut self,
        c: &CobaltParams,
        sojourn: SimTime,
        capable: bool,
        ctx: &mut QueueCtx,
    ) -> (bool, bool) {
        let now = ctx.now;
        // CAKE keeps the sign of `now − drop_next` from where it last computed it.
        let mut late = now > self.drop_next;
        let mut next_due = self.count > 0 && now >= self.drop_next;
        let over_target =
            sojourn > c.target && sojourn > SimTime::from_nanos(c.mtu_time.as_nanos() * 4);
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control_law(now, c.interval, self.count);
            }
            self.count = self.count.max(1);
        } else {
            self.dropping = false;
        }
        let (mut drop, mut mark) = (false, false);
        if next_due && self.dropping {
            // A signal: a mark where the packet allows it, else a drop.
            if c.ecn && capable {
                mark = true;
            } else {
                drop = true;
            }
            self.count = self.count.saturating_add(1);
            self.drop_next = control_law(self.drop_next, c.interval, self.count);
            late = now > self.drop_next;
        } else {
            // Not dropping: each schedule that came due lowers count by one.
            while next_due {
                self.count -= 1;
                self.drop_next = control_law(self.drop_next, c.interval, self.count);
                late = now > self.drop_next;
                next_due = self.count > 0 && now >= self.drop_next;
            }
        }
        // BLUE, regardless of ECN.
        if !drop && self.p_drop > 0.0 && ctx.rng.uniform() < self.p_drop {
            drop = true;
        }
        if self.count == 0 {
            self.drop_next = now + c.interval;
        } else if late && !drop {
            self.drop_next = now;
        }
        (drop, mark && !drop)
    }
}

/// A single COBALT queue.
pub struct Cobalt {
    c: CobaltParams,
    fifo: Fifo,
    v: CobaltVars,
}

impl Cobalt {
    pub fn new(c: CobaltParams) -> Cobalt {
        Cobalt {
            c,
            fifo: Fifo::default(),
            v: CobaltVars::default(),
        }
    }

    /// BLUE's drop probability.
    pub fn p_drop(&self) -> f64 {
        self.v.p_drop()
    }
}

impl QueueDiscipline for Cobalt {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if self.fifo.q.len() as u32 >= self.c.limit
            || self.fifo.bytes + size as u64 > self.c.memory_limit
        {
            self.v.queue_full(&self.c, ctx.now);
            return Verdict::Dropped(Reason::Overflow);
        }
        self.fifo.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        loop {
            let Some(p) = self.fifo.pop(ctx.arena) else {
                self.v.queue_empty(&self.c, ctx.now);
                return None;
            };
            let sojourn = ctx.now - ctx.arena.get(p).enqueued;
            let capable = ctx.ecn_capable(p);
            let (drop, mark) = self.v.should_drop(&self.c, sojourn, capable, ctx);
            // The last packet in the queue is sent even when condemned.
            if !drop || self.fifo.q.is_empty() {
                if mark {
                    ctx.mark(p, Reason::Early);
                }
                return Some(p);
            }
            ctx.dropped.push((p, Reason::Early));
        }
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

/// COBALT, CAKE's AQM (CoDel and BLUE together), as one queue.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CobaltSpec {
    /// Acceptable standing sojourn time, and BLUE's least time between changes. Default 5 ms
    /// (raised to 1.5 MTU times on a slow link).
    #[serde(default)]
    pub target: Option<Duration>,
    /// CoDel's interval (CAKE's `rtt`). Default 100 ms (raised with target on a slow link).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Packets held; an arrival finding this many is dropped and raises BLUE. Default 10240.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Bytes held; an arrival that would pass it is dropped and raises BLUE. Default CAKE's:
    /// four intervals at the link's rate, at least 4 MiB, at most limit·mtu.
    #[serde(default)]
    pub memory_limit: Option<Bytes>,
    /// MTU for the adjustment of target and the over-target test. Default 1514 B.
    #[serde(default)]
    pub mtu: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them on CoDel's signals. Default true.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// BLUE's increase of p_drop per overflow, in (0, 1]. Default 1/256.
    #[serde(default)]
    pub p_inc: Option<f64>,
    /// BLUE's decrease of p_drop per empty dequeue, in (0, 1]. Default 1/4096.
    #[serde(default)]
    pub p_dec: Option<f64>,
}

impl QueueConfig for CobaltSpec {
    type Discipline = Cobalt;

    fn build(&self, ctx: &QueueContext) -> Result<Cobalt, ParamError> {
        let s = self;
        let target = positive_time(s.target, TARGET, "target")?;
        let interval = positive_time(s.interval, INTERVAL, "interval")?;
        let limit = super::param::at_least_one(s.limit, LIMIT, "limit", "packet")?;
        let mtu = bytes_u32(s.mtu, MTU);
        let [target, interval, mtu_time] = adjust(target, interval, mtu, ctx.rate);
        let memory_limit = match s.memory_limit {
            Some(b) => b.0,
            None => {
                // CAKE `cake_reconfigure`: rate (bytes/s) × interval × 4, at least 4 MiB, at
                // most the packet limit in MTUs.
                let four = (ctx.rate.bps() as f64 / 8.0 * interval.as_secs_f64() * 4.0) as u64;
                four.max(MIN_MEMORY).min(limit as u64 * mtu as u64)
            }
        };
        Ok(Cobalt::new(CobaltParams {
            target,
            interval,
            mtu_time,
            p_inc: in_range(s.p_inc.unwrap_or(P_INC), true, 0.0, 1.0, "p_inc")?,
            p_dec: in_range(s.p_dec.unwrap_or(P_DEC), true, 0.0, 1.0, "p_dec")?,
            ecn: s.ecn.unwrap_or(true),
            limit,
            memory_limit,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::param::error_text;
    use super::*;
    use crate::packet::Ecn;
    use crate::time::Rate;

    fn ctx(rate: u64) -> QueueContext {
        QueueContext {
            profile: crate::config::Profile::Linux,
            rate: Rate(rate),
            delay: SimTime::from_millis(10),
        }
    }

    fn build(json: &str, rate: u64) -> Cobalt {
        let s: CobaltSpec = serde_json::from_str(json).unwrap();
        s.build(&ctx(rate)).unwrap()
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn cake_adjusts_target_and_interval_to_the_link() {
        // 10 Mb/s: MTU time 1514·8/10⁷ = 1.2112 ms; 1.5 of it (1.8168 ms) is under 5 ms, so
        // target 5 ms and interval 100 ms stay. Memory: 1.25 MB/s·0.1 s·4 = 500 kB, raised to
        // 4 MiB (under 10 240·1514 B).
        let c = build("{}", 10_000_000).c;
        assert_eq!((c.target, c.interval), (ms(5), ms(100)));
        assert_eq!(
            c.mtu_time,
            SimTime::from_micros(1211) + SimTime::from_nanos(200)
        );
        assert_eq!(c.memory_limit, 4 << 20);
        assert_eq!(
            (c.p_inc, c.p_dec, c.ecn, c.limit),
            (1.0 / 256.0, 1.0 / 4096.0, true, 10_240)
        );
        // 1 Mb/s: MTU time 12.112 ms, target 1.5·12.112 = 18.168 ms, interval
        // max(100 + 18.168 − 5, 2·18.168) = 113.168 ms.
        let c = build("{}", 1_000_000).c;
        assert_eq!(c.target, SimTime::from_micros(18_168));
        assert_eq!(c.interval, SimTime::from_micros(113_168));
        // 100 Mb/s with 20 packets: 12.5 MB/s·0.4 s = 5 MB, capped at 20·1514 = 30 280 B.
        assert_eq!(
            build(r#"{"limit": 20}"#, 100_000_000).c.memory_limit,
            30_280
        );
    }

    /// 200 packets of 1500 B enqueued at 0; one leaves at 0 (not over target: count stays 0
    /// and the activity timeout is 100 ms), then one per 10 ms. Returns the times of signals.
    fn signals(ecn: Ecn, until: u64) -> Vec<u64> {
        let mut h = Harness::new();
        let mut q = build("{}", 10_000_000);
        for _ in 0..200 {
            h.offer(&mut q, 0, 1500, ecn, SimTime::ZERO);
        }
        q.dequeue(&mut h.ctx(SimTime::ZERO)).unwrap();
        let mut out = vec![];
        for k in 1..=until / 10 {
            q.dequeue(&mut h.ctx(ms(10 * k))).unwrap();
            if !h.dropped.is_empty() || !h.marked.is_empty() {
                out.push(10 * k);
            }
            h.dropped.clear();
            h.marked.clear();
        }
        out
    }

    #[test]
    fn codel_signals_follow_the_control_law_from_count_two() {
        // t = 10: sojourn 10 ms > 5 ms: dropping, first signal due 10 + 100/√1 = 110, count 1.
        // t = 110: signal; count 2, next 110 + 100/√2 = 180.71.
        // t = 190: signal; count 3, next 180.71 + 100/√3 = 238.45.
        // t = 240: count 4, next 238.45 + 50 = 288.45.   t = 290: count 5, next + 44.72 = 333.17.
        // t = 340: count 6, next + 40.82 = 373.99.        t = 380: count 7, next + 37.80 = 411.79.
        // (RFC 8289's CoDel, which restarts count at 1 on its first drop: 110, 210, 290, 340,
        // 390 — `codel.rs`.)
        let want = vec![110, 190, 240, 290, 340, 380];
        assert_eq!(signals(Ecn::NotEct, 400), want);
        // ECN-capable packets are marked on the same schedule (a mark leaves the queue as it is).
        assert_eq!(signals(Ecn::Ect0, 400), want);
    }

    #[test]
    fn out_of_the_dropping_state_count_decays_one_per_schedule() {
        let mut h = Harness::new();
        let mut q = build("{}", 10_000_000);
        q.v.count = 4;
        q.v.drop_next = ms(100);
        // A packet under target at 100 ms: the schedule is due but not dropping, so count 3 and
        // the schedule moves by 100/√3 = 57.735 ms to 157.735; not yet due again.
        h.offer(&mut q, 0, 1500, Ecn::NotEct, ms(99));
        q.dequeue(&mut h.ctx(ms(100))).unwrap();
        assert_eq!(q.v.count, 3);
        assert_eq!(
            q.v.drop_next,
            ms(100) + SimTime::from_secs_f64(0.1 / 3f64.sqrt())
        );
        // At 300 ms: due at 157.735 → count 2, next + 70.711 = 228.446 → count 1, next + 100 =
        // 328.446, no longer due. Nothing was dropped.
        h.offer(&mut q, 0, 1500, Ecn::NotEct, ms(299));
        q.dequeue(&mut h.ctx(ms(300))).unwrap();
        assert_eq!(q.v.count, 1);
        let next = ms(100)
            + SimTime::from_secs_f64(0.1 / 3f64.sqrt())
            + SimTime::from_secs_f64(0.1 / 2f64.sqrt())
            + SimTime::from_secs_f64(0.1);
        assert_eq!(q.v.drop_next, next);
        assert!(h.dropped.is_empty());
    }

    #[test]
    fn blue_rises_on_overflow_and_falls_on_empty_at_most_once_per_target() {
        let mut h = Harness::new();
        let mut q = build(r#"{"limit": 2}"#, 10_000_000);
        h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        h.offer(&mut q, 0, 1500, Ecn::NotEct, SimTime::ZERO);
        let full = |q: &mut Cobalt, h: &mut Harness, t: SimTime| {
            let v = h.offer(q, 0, 1500, Ecn::NotEct, t);
            assert_eq!(v, Verdict::Dropped(Reason::Overflow));
            q.p_drop() * 4096.0
        };
        // More than target (5 ms) after the last change (0): +1/256 = 16/4096 at 6 ms; not at
        // 8 ms (2 ms later) nor at 11 ms (exactly 5 ms later); again at 11.001 ms.
        assert_eq!(full(&mut q, &mut h, ms(6)), 16.0);
        assert_eq!(full(&mut q, &mut h, ms(8)), 16.0);
        assert_eq!(full(&mut q, &mut h, ms(11)), 16.0);
        assert_eq!(full(&mut q, &mut h, SimTime::from_micros(11_001)), 32.0);
        // The overflow put CoDel in the dropping state with a signal due now.
        assert!(q.v.dropping && q.v.count == 1);
        // Empty dequeues: −1/4096 at 20 ms, not at 22 ms, again at 26 ms.
        q.fifo = Fifo::default();
        for (t, want) in [(20, 31.0), (22, 31.0), (26, 30.0)] {
            assert!(q.dequeue(&mut h.ctx(ms(t))).is_none());
            assert_eq!(q.p_drop() * 4096.0, want, "at {t} ms");
        }
    }

    #[test]
    fn blue_drops_departures_even_ect_but_never_the_last_packet() {
        // p_inc = 1: one overflow sets p_drop to 1.
        let mut h = Harness::new();
        let mut q = build(r#"{"limit": 3, "p_inc": 1}"#, 10_000_000);
        for _ in 0..4 {
            h.offer(&mut q, 0, 1500, Ecn::Ect0, ms(6));
        }
        assert_eq!(q.p_drop(), 1.0);
        // Sojourn 0 (under target): CoDel does not signal, BLUE drops the first two (ECN or
        // not) and the third, the last in the queue, is sent.
        let p = q.dequeue(&mut h.ctx(ms(6))).unwrap();
        assert_eq!(h.dropped.len(), 2);
        assert!(h.dropped.iter().all(|d| d.1 == Reason::Early));
        assert!(h.marked.is_empty());
        assert_eq!(h.arena.get(p).ecn, Ecn::Ect0);
        assert_eq!(q.len_packets(), 0);
    }

    #[test]
    fn checks_name_the_field() {
        let err = |json: &str| {
            let s: CobaltSpec = serde_json::from_str(json).unwrap();
            error_text(s.build(&ctx(10_000_000)))
        };
        assert_eq!(err(r#"{"target": 0}"#), "q.target: must be positive");
        assert_eq!(err(r#"{"limit": 0}"#), "q.limit: must be at least 1 packet");
        assert_eq!(err(r#"{"p_inc": 0}"#), "q.p_inc: 0 is outside (0, 1]");
        assert_eq!(err(r#"{"p_dec": 2}"#), "q.p_dec: 2 is outside (0, 1]");
    }
}
