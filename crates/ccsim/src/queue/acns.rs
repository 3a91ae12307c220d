//! ACNS router — Olšovský 2014 §3.1 and §5 (decisions in
//! `docs/design.md`; header codes in `crate::acns`).
//!
//! A DropTail FIFO that keeps a table of the TCP flows it forwards and, on every arriving
//! packet that asks for a command (I4/I5, or an I6 an earlier router set), writes the command
//! its flow's weight gives, where that is more severe than what the packet carries:
//!
//! * `A(q)`: the packets waiting when the packet arrives over the queue's limit (0 to 1);
//! * flow age `f_i`: the time since this router first saw the flow; normalised by the oldest
//!   flow's age, `T(f_i) = f_i/f_max` (Eq. 1; 1 when every flow was first seen now);
//! * priority `p_i`: the packet's DSCP, at most `p_max`;
//! * `W = A(q)/(F(p) + T(f))` (Eq. 2), with, by `weight`:
//!   - `"intended"` (default): `F(p) = v_p·(p_i+1)/(p_max+1)`, `T(f) = v_a·(1 − f_i/f_max)`,
//!     so the oldest, lowest-priority flows get the largest weight — the paper's stated aim
//!     and its Table 6;
//!   - `"printed"`: Eqs. 3–4 as printed, `F(p) = v_p·p_max/(p_i+1)`, `T(f) = v_a·f_i/f_max`
//!     (priority read as `p_i + 1` so that 0 is defined);
//!
//!   the denominator is kept above 10⁻⁹;
//! * command 1 below `th_A1`, 2 below `th_A2`, 3 from `th_A2` (§3.1).
//!
//! Flows are TCP data packets (SYNs included: a flow's age starts when the router first sees
//! it); UDP and ACKs only fill the queue. An entry idle for longer than `idle_timeout` is
//! forgotten, so a flow that comes back is young again, and `f_max` is the age of the oldest
//! entry still live. The router never drops early: a packet that does not fit is dropped as by
//! DropTail.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;

use super::droptail::DropTail;
use super::param::{at_least_one, in_range, positive_time};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Verdict};
use crate::acns::{self, Command};
use crate::config::units::Duration;
use crate::config::ParamError;
use crate::packet::{Kind, PktId};
use crate::time::SimTime;

/// Thresholds, factors and limits of Table 1 and the README's decisions.
pub const TH_A1: f64 = 0.95;
pub const TH_A2: f64 = 1.0;
pub const V_P: f64 = 0.8;
pub const V_A: f64 = 0.2;
pub const P_MAX: u8 = 63;
pub const IDLE_TIMEOUT: SimTime = SimTime::from_secs(2);
/// Floor of the weight's denominator.
const EPSILON: f64 = 1e-9;

/// Which form of the weight's denominator (module docs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    /// Penalises old, low-priority flows, as the paper intends.
    #[default]
    Intended,
    /// Eqs. 3–4 as printed.
    Printed,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AcnsParams {
    /// FIFO limit, packets waiting.
    pub limit: u32,
    pub weight: Weight,
    pub th_a1: f64,
    pub th_a2: f64,
    pub v_p: f64,
    pub v_a: f64,
    pub p_max: u8,
    pub idle_timeout: SimTime,
}

impl AcnsParams {
    /// Table 1's values for a queue of `limit` packets.
    pub fn new(limit: u32) -> AcnsParams {
        AcnsParams {
            limit,
            weight: Weight::Intended,
            th_a1: TH_A1,
            th_a2: TH_A2,
            v_p: V_P,
            v_a: V_A,
            p_max: P_MAX,
            idle_timeout: IDLE_TIMEOUT,
        }
    }

    /// `W` for queue occupancy `a`, priority `prio` and normalised age `age` (Eqs. 2–4).
    pub fn weight(&self, a: f64, prio: u8, age: f64) -> f64 {
        let p = prio.min(self.p_max) as f64;
        let p_max = self.p_max as f64;
        let (f, t) = match self.weight {
            Weight::Intended => (self.v_p * (p + 1.0) / (p_max + 1.0), self.v_a * (1.0 - age)),
            Weight::Printed => (self.v_p * p_max / (p + 1.0), self.v_a * age),
        };
        a / (f + t).max(EPSILON)
    }
}

/// A flow as the router knows it.
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    first: SimTime,
    last: SimTime,
    live: bool,
}

/// Commands this router wrote, by kind.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub freeze: u64,
    pub fallback: u64,
}

pub struct Acns {
    fifo: DropTail,
    p: AcnsParams,
    /// The flow table, by flow index (the simulator's name for the paper's 5-tuple hash).
    flows: Vec<Entry>,
    /// Live entries by the time they were first seen: the first is the oldest flow.
    by_age: BTreeSet<(SimTime, u32)>,
    written: Written,
}

impl Acns {
    pub fn new(p: AcnsParams) -> Acns {
        Acns {
            fifo: DropTail::packets(p.limit),
            p,
            flows: Vec::new(),
            by_age: BTreeSet::new(),
            written: Written::default(),
        }
    }

    fn expired(&self, e: &Entry, now: SimTime) -> bool {
        now.saturating_sub(e.last) > self.p.idle_timeout
    }

    /// Notes a packet of `flow` at `now`; returns its age over the oldest live flow's.
    fn classify(&mut self, flow: u32, now: SimTime) -> f64 {
        let i = flow as usize;
        if i >= self.flows.len() {
            self.flows.resize(i + 1, Entry::default());
        }
        let e = self.flows[i];
        if !e.live || self.expired(&e, now) {
            if e.live {
                self.by_age.remove(&(e.first, flow));
            }
            self.flows[i] = Entry {
                first: now,
                last: now,
                live: true,
            };
            self.by_age.insert((now, flow));
        } else {
            self.flows[i].last = now;
        }
        // The oldest live entry (the flow itself is live, so one remains).
        while let Some(&(first, f)) = self.by_age.first() {
            let old = self.flows[f as usize];
            if self.expired(&old, now) {
                self.by_age.pop_first();
                self.flows[f as usize].live = false;
                continue;
            }
            let f_max = (now - first).as_secs_f64();
            let f_i = (now - self.flows[i].first).as_secs_f64();
            return if f_max > 0.0 { f_i / f_max } else { 1.0 };
        }
        unreachable!("the arriving flow's entry is live")
    }

    /// Flows in the table and not idle past the timeout at `now`.
    #[cfg(test)]
    fn live_flows(&self, now: SimTime) -> usize {
        let live = |e: &&Entry| e.live && !self.expired(e, now);
        self.flows.iter().filter(live).count()
    }
}

impl QueueDiscipline for Acns {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        let a = self.fifo.len_packets() as f64 / self.p.limit as f64;
        let p = ctx.arena.get(pkt);
        let age = (p.kind == Kind::TcpData).then(|| self.classify(p.flow, ctx.now));
        let v = self.fifo.enqueue(pkt, ctx);
        if let (Some(age), Verdict::Enqueued) = (age, v) {
            let p = ctx.arena.get_mut(pkt);
            if acns::requests_command(p) {
                let w = self.p.weight(a, p.dscp, age);
                let c = Command::of_weight(w, self.p.th_a1, self.p.th_a2);
                if acns::raise_ip_command(p, c) {
                    match c {
                        Command::Freeze => self.written.freeze += 1,
                        Command::Fallback => self.written.fallback += 1,
                        Command::Normal => {}
                    }
                }
            }
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        self.fifo.dequeue(ctx)
    }

    fn len_packets(&self) -> u32 {
        self.fifo.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn upcoming(&self) -> Option<PktId> {
        self.fifo.upcoming()
    }

    fn acns_written(&self) -> Written {
        self.written
    }
}

/// The ACNS router (Olšovský 2014; `queue/acns.rs`): a FIFO that writes per-flow commands
/// (normal, freeze, fallback) into packets that ask for one, from the flow's age, its priority
/// (DSCP) and the queue's occupancy. Flows take part with `tcp.acns`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcnsQueueSpec {
    /// Packets waiting before an arrival is dropped; `A(q)` is the occupancy over it. Default:
    /// the profile's queue limit.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// "intended" (old, low-priority flows weigh most; default) or "printed" (the paper's
    /// Eqs. 3–4 as printed).
    #[serde(default)]
    pub weight: Option<Weight>,
    /// Weight from which a flow is told to freeze, th_A1. Default 0.95.
    #[serde(default)]
    pub th_a1: Option<f64>,
    /// Weight from which a flow is told to fall back, th_A2 ≥ th_A1. Default 1.0.
    #[serde(default)]
    pub th_a2: Option<f64>,
    /// Share of priority in the weight, v_p in [0, 1]; v_p + v_a = 1. Default 0.8.
    #[serde(default)]
    pub v_p: Option<f64>,
    /// Share of age in the weight, v_a in [0, 1]. Default 0.2.
    #[serde(default)]
    pub v_a: Option<f64>,
    /// Highest priority, 0–63; higher DSCPs count as it. Default 63.
    #[serde(default)]
    pub p_max: Option<u8>,
    /// A flow not seen for longer is forgotten. Default 2 s.
    #[serde(default)]
    pub idle_timeout: Option<Duration>,
}

impl QueueConfig for AcnsQueueSpec {
    type Discipline = Acns;

    fn build(&self, ctx: &QueueContext) -> Result<Acns, ParamError> {
        let s = self;
        let mut p = AcnsParams::new(ctx.profile.queue_limit());
        p.limit = at_least_one(s.limit, p.limit, "limit", "packet")?;
        p.weight = s.weight.unwrap_or_default();
        let th = |v: Option<f64>, def: f64, field: &'static str| match v.unwrap_or(def) {
            t if t.is_finite() && t > 0.0 => Ok(t),
            t => Err((field, format!("{t} must be a positive number"))),
        };
        p.th_a1 = th(s.th_a1, TH_A1, "th_a1")?;
        p.th_a2 = th(s.th_a2, TH_A2, "th_a2")?;
        if p.th_a2 < p.th_a1 {
            let msg = format!("{} must be at least th_a1 ({})", p.th_a2, p.th_a1);
            return Err(("th_a2", msg));
        }
        // §3.1: "the sum of these factors must be equal to 1"; one given sets the other.
        let (v_p, v_a) = match (s.v_p, s.v_a) {
            (None, None) => (V_P, V_A),
            (Some(v), None) => (v, 1.0 - v),
            (None, Some(v)) => (1.0 - v, v),
            (Some(p), Some(a)) => (p, a),
        };
        p.v_p = in_range(v_p, false, 0.0, 1.0, "v_p")?;
        p.v_a = in_range(v_a, false, 0.0, 1.0, "v_a")?;
        if (p.v_p + p.v_a - 1.0).abs() > 1e-9 {
            let msg = format!(
                "v_p + v_a must be 1 (the paper's §3.1), got {} + {}",
                p.v_p, p.v_a
            );
            return Err(("v_a", msg));
        }
        p.p_max = s.p_max.unwrap_or(P_MAX);
        if p.p_max > 63 {
            return Err(("p_max", format!("{} is outside 0..=63 (DSCP)", p.p_max)));
        }
        p.idle_timeout = positive_time(s.idle_timeout, IDLE_TIMEOUT, "idle_timeout")?;
        Ok(Acns::new(p))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::acns::ip_command;
    use crate::packet::{Ecn, Packet};

    const MS: fn(u64) -> SimTime = SimTime::from_millis;

    /// A data packet of `flow` with DSCP `dscp`, asking for a command if `request`.
    fn data(h: &mut Harness, flow: u32, dscp: u8, request: bool, now: SimTime) -> PktId {
        let mut p = Packet::new(flow, Kind::TcpData, 0, 1, 1500, now);
        p.ecn = Ecn::Ect0;
        p.ip_spare = request;
        p.dscp = dscp;
        h.arena.alloc(p)
    }

    fn offer(q: &mut Acns, h: &mut Harness, flow: u32, dscp: u8, now: SimTime) -> Option<Command> {
        let id = data(h, flow, dscp, true, now);
        assert_eq!(q.enqueue(id, &mut h.ctx(now)), Verdict::Enqueued);
        ip_command(h.arena.get(id))
    }

    /// Fills the queue to `n` packets with UDP, which neither asks nor counts as a flow.
    fn fill(q: &mut Acns, h: &mut Harness, n: u32, now: SimTime) {
        while q.len_packets() < n {
            let id = h.pkt(99, 1500, Ecn::NotEct, now);
            q.enqueue(id, &mut h.ctx(now));
        }
    }

    /// Eqs. 2–4 in both forms, worked by hand with Table 1 (v_p 0.8, v_a 0.2, p_max 63).
    #[test]
    fn weights_follow_the_equations() {
        let mut p = AcnsParams::new(100);
        // Intended. The oldest (age 1), priority 0: F = 0.8·1/64 = 0.0125, T = 0: W = 80·A.
        assert!((p.weight(0.5, 0, 1.0) - 40.0).abs() < 1e-12);
        // The newest (age 0), priority 63: F = 0.8, T = 0.2: W = A.
        assert!((p.weight(0.5, 63, 0.0) - 0.5).abs() < 1e-12);
        // Priority 46, age 0.5: F = 0.8·47/64 = 0.5875, T = 0.1: W = 0.6/0.6875 = 0.872727.
        assert!((p.weight(0.6, 46, 0.5) - 0.872727).abs() < 1e-6);
        // A DSCP above p_max counts as p_max.
        p.p_max = 10;
        assert_eq!(p.weight(0.5, 40, 0.0), p.weight(0.5, 10, 0.0));
        // Printed. Priority 0, age 1: F = 0.8·63/1 = 50.4, T = 0.2: W = 0.5/50.6.
        p = AcnsParams {
            weight: Weight::Printed,
            ..AcnsParams::new(100)
        };
        assert!((p.weight(0.5, 0, 1.0) - 0.5 / 50.6).abs() < 1e-12);
        // Priority 63, age 0: F = 0.8·63/64 = 0.7875, T = 0: W = 0.9/0.7875 = 1.142857.
        assert!((p.weight(0.9, 63, 0.0) - 1.142857).abs() < 1e-6);
        // An empty denominator is floored, not a division by zero.
        p.v_p = 0.0;
        assert!(p.weight(0.5, 0, 0.0).is_finite());
    }

    /// The queue's occupancy and the flows' ages and priorities choose the command, and only
    /// packets that ask get one.
    #[test]
    fn commands_follow_occupancy_age_and_priority() {
        let mut h = Harness::new();
        let mut q = Acns::new(AcnsParams::new(100));
        // Flow 0 from 0 s, flow 1 (priority 46) from 1 s; at 2 s flow 1 is half as old.
        assert_eq!(offer(&mut q, &mut h, 0, 0, MS(0)), Some(Command::Normal));
        assert_eq!(
            offer(&mut q, &mut h, 1, 46, MS(1000)),
            Some(Command::Normal)
        );
        // 2 waiting of 100 (A = 0.02): flow 0 (W = 80·0.02 = 1.6) falls back; then flow 1
        // (A = 0.03, age 0.5: W = 0.03/0.6875 = 0.044) is normal.
        q.fifo = DropTail::packets(100);
        fill(&mut q, &mut h, 2, MS(2000));
        assert_eq!(
            offer(&mut q, &mut h, 0, 0, MS(2000)),
            Some(Command::Fallback)
        );
        assert_eq!(
            offer(&mut q, &mut h, 1, 46, MS(2000)),
            Some(Command::Normal)
        );
        // 1.2 % full (A = 0.012): flow 0's W = 0.96 is between th_A1 and th_A2, a freeze.
        q.fifo = DropTail::packets(1000);
        q.p.limit = 1000;
        fill(&mut q, &mut h, 12, MS(2000));
        assert_eq!(offer(&mut q, &mut h, 0, 0, MS(2000)), Some(Command::Freeze));
        // A packet that does not ask is left alone, however heavy its flow.
        fill(&mut q, &mut h, 900, MS(2000));
        let id = data(&mut h, 0, 0, false, MS(2000));
        q.enqueue(id, &mut h.ctx(MS(2000)));
        assert_eq!(
            (h.arena.get(id).ecn, h.arena.get(id).ip_spare),
            (Ecn::Ect0, false)
        );
        // Flow 1 at 90 % (A = 0.901): W = 0.901/0.6875 = 1.31, fallback.
        assert_eq!(
            offer(&mut q, &mut h, 1, 46, MS(2000)),
            Some(Command::Fallback)
        );
        assert_eq!(
            q.written,
            Written {
                freeze: 1,
                fallback: 2
            }
        );
    }

    /// A router never lowers what an earlier one wrote: an I6 freeze through an idle router
    /// stays a freeze.
    #[test]
    fn an_earlier_routers_freeze_survives() {
        let mut h = Harness::new();
        let mut q = Acns::new(AcnsParams::new(100));
        let id = data(&mut h, 0, 0, true, MS(0));
        h.arena.get_mut(id).ecn = Ecn::Ce; // I6
        q.enqueue(id, &mut h.ctx(MS(0)));
        assert_eq!(ip_command(h.arena.get(id)), Some(Command::Freeze));
    }

    /// Entries idle past the timeout are forgotten: the oldest flow's age then comes from the
    /// next oldest, and a returning flow is young again.
    #[test]
    fn idle_flows_expire() {
        let mut h = Harness::new();
        let mut q = Acns::new(AcnsParams::new(100));
        offer(&mut q, &mut h, 0, 0, MS(0));
        offer(&mut q, &mut h, 1, 0, MS(1000));
        offer(&mut q, &mut h, 2, 0, MS(1500));
        assert_eq!(q.live_flows(MS(1500)), 3);
        // At 2.5 s flow 0 has been idle 2.5 s (> 2 s): flow 1 is the oldest, f_max = 1.5 s,
        // so flow 2's age is 1/1.5.
        assert!((q.classify(2, MS(2500)) - 1.0 / 1.5).abs() < 1e-12);
        assert_eq!(q.live_flows(MS(2500)), 2);
        // Flow 0 returns: age 0 against f_max 1.5 s.
        assert_eq!(q.classify(0, MS(2500)), 0.0);
        // Idle exactly the timeout is still live (flow 1, last seen at 1 s, at 3 s).
        assert_eq!(q.live_flows(MS(3000)), 3);
        // The only flow, or several first seen at once: each is the oldest (age 1).
        let mut q = Acns::new(AcnsParams::new(100));
        assert_eq!(q.classify(5, MS(0)), 1.0);
        assert_eq!(q.classify(6, MS(0)), 1.0);
    }

    /// UDP and ACKs are not flows for the table, and a full queue drops as DropTail does.
    #[test]
    fn only_tcp_data_is_classified_and_overflow_drops() {
        let mut h = Harness::new();
        let mut q = Acns::new(AcnsParams::new(2));
        let udp = h.pkt(7, 1000, Ecn::Ect0, MS(0));
        q.enqueue(udp, &mut h.ctx(MS(0)));
        let mut ack = Packet::new(8, Kind::TcpAck, 1, 0, 52, MS(0));
        ack.ecn = Ecn::Ect0;
        ack.ip_spare = true;
        let ack = h.arena.alloc(ack);
        q.enqueue(ack, &mut h.ctx(MS(0)));
        assert_eq!(q.live_flows(MS(0)), 0);
        assert_eq!(ip_command(h.arena.get(ack)), Some(Command::Normal));
        let id = data(&mut h, 0, 0, true, MS(0));
        assert_eq!(
            q.enqueue(id, &mut h.ctx(MS(0))),
            Verdict::Dropped(super::super::Reason::Overflow)
        );
        assert_eq!(q.written, Written::default());
    }

    #[test]
    fn acns_checks_name_the_field_and_the_accepted_values() {
        use crate::config::Profile;
        use crate::queue::param::error_text;
        use crate::time::Rate;
        let ctx = QueueContext {
            profile: Profile::Linux,
            rate: Rate(10_000_000),
            delay: SimTime::from_millis(10),
        };
        let build = |json: &str| {
            let s: AcnsQueueSpec = serde_json::from_str(json).unwrap();
            s.build(&ctx)
        };
        let bad = |json: &str| error_text(build(json));
        assert_eq!(
            bad(r#"{"th_a1": 1.2, "th_a2": 1.0}"#),
            "q.th_a2: 1 must be at least th_a1 (1.2)"
        );
        assert_eq!(
            bad(r#"{"th_a1": 0}"#),
            "q.th_a1: 0 must be a positive number"
        );
        assert_eq!(
            bad(r#"{"v_p": 0.5, "v_a": 0.6}"#),
            "q.v_a: v_p + v_a must be 1 (the paper's §3.1), got 0.5 + 0.6"
        );
        assert_eq!(bad(r#"{"v_p": 1.5}"#), "q.v_p: 1.5 is outside [0, 1]");
        assert_eq!(
            bad(r#"{"p_max": 64}"#),
            "q.p_max: 64 is outside 0..=63 (DSCP)"
        );
        assert_eq!(
            bad(r#"{"idle_timeout": 0}"#),
            "q.idle_timeout: must be positive"
        );
        assert_eq!(bad(r#"{"limit": 0}"#), "q.limit: must be at least 1 packet");
        // One factor given sets the other.
        assert!(build(r#"{"v_a": 0.5, "weight": "printed"}"#).is_ok());
    }
}
