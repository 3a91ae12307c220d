//! XCP router — Katabi, Handley & Rohrs, "Congestion Control for High Bandwidth-Delay Product
//! Networks", SIGCOMM 2002 (`../shared/spec/algorithms.md` §11), with the window-adjustment
//! congestion bit of Sheela & Raja as an option (`../shared/seeds/README.md`, paper 004).
//!
//! A FIFO (DropTail) whose departing XCP packets get their feedback header rewritten. Once per
//! control interval `d` (the flows' average RTT):
//!
//! * the **efficiency controller** (Eq. 1) decides the aggregate change, in bytes of window over
//!   the next interval: `φ = α·d·S − β·Q`, `S` the spare rate (capacity − input rate), `Q` the
//!   persistent queue (the least queue held over the last propagation delay, estimated as
//!   `d − queue/capacity`);
//! * the **fairness controller** shuffles `h = max(0, γ·y − |φ|)`, `y` the input traffic in an
//!   interval `d`, and spreads `h + max(φ, 0)` as equal *throughput* increases,
//!   `p_i = ξ_p·rtt_i²·s_i/cwnd_i`, and `h + max(−φ, 0)` as decreases proportional to
//!   throughput, `n_i = ξ_n·rtt_i·s_i` (§3.5; `ξ_p`, `ξ_n` from the last interval's sums).
//!
//! A router lowers `H_feedback` to its own `p_i − n_i` only where that is smaller (§3.1), so
//! the sender gets the feedback of its bottleneck.
//!
//! Decisions the paper leaves to the implementation, taken as the reference ns-2 codes do
//! (spec §11.2–11.3): what an interval hands out is bounded by the residues `h + max(±φ, 0)`
//! (a burst bigger than the last interval's traffic gets no more than the controller decided);
//! `d` is 50 ms until the first packet with an RTT, and no interval is shorter than
//! `min_interval` (1 ms); packets without an RTT estimate count as input traffic only. Two
//! differences from them: the sums are taken as rates over the interval that measured them
//! (divided by its length, then multiplied by `d`), so an interval longer or shorter than the
//! next — the first one, or after `d` moved — gives the same gains; and `Q`'s window is one
//! propagation delay as the paper says (`queue_window = 0.5` gives the ns-2 codes' half).
//! Traffic without an XCP header (UDP, TCP) shares the FIFO and counts in the input rate.
//!
//! With `virtual_queues`, the router is ns-2.35's `Queue/XCP` (`xcp/xcp.cc`, spec §11.3):
//! XCP packets (data and the ACKs that echo a header), other TCP packets and everything else
//! wait in three queues — the XCP one a FIFO of `limit` packets under the controllers, the
//! other two RED with ns-2's defaults, which count in 500-byte units, so `limit`·500 bytes —
//! and the link takes a packet from each non-empty queue in turn (ns-2's weighted round robin, whose weights of 0.5 and 0 are below one packet
//! and so give each queue a packet a turn). The controllers see only the XCP queue: its
//! arrivals are the input traffic and its backlog the queue. They allocate `xcp_share` of the
//! capacity: ns-2 gives them all of it unless `tcp_xcp_on_` is set, which halves it, and without
//! that XCP flows sharing the link with TCP are promised a rate the round robin does not give
//! them (spec §11.3's pitfall).
//!
//! The two timers run lazily: each enqueue and dequeue first replays the control and queue
//! timers due by then, in time order, with the state as it was at each (nothing changes between
//! packets). A long idle gap reaches a fixed point within a few intervals, and the rest is skipped.

use super::droptail::DropTail;
use super::red::Red;
use super::{QueueCtx, QueueDiscipline, Verdict};
use crate::packet::{Kind, Packet, PktId, XcpHeader};
use crate::rng::Rng;
use crate::time::SimTime;

/// Efficiency gain α (Katabi 2002 §3.4; stable for 0 < α < π/(4√2), Appendix B).
pub const ALPHA: f64 = 0.4;
/// Queue gain β = α²·√2 (Appendix B).
pub const BETA: f64 = 0.226;
/// Shuffled share γ of the input traffic (§3.5).
pub const GAMMA: f64 = 0.1;
/// Control interval before any packet carried an RTT (ns-2.35's 0.05 s).
pub const INITIAL_INTERVAL: SimTime = SimTime::from_millis(50);
/// Shortest control and queue-estimation interval (ns-2.35's `XCP_MIN_INTERVAL`).
pub const MIN_INTERVAL: SimTime = SimTime::from_millis(1);

#[derive(Clone, Debug, PartialEq)]
pub struct XcpParams {
    /// Link capacity, bytes per second.
    pub capacity: f64,
    /// FIFO limit, packets waiting.
    pub limit: u32,
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub initial_interval: SimTime,
    pub min_interval: SimTime,
    /// `Q`'s window as a share of the estimated propagation delay (1 paper, 0.5 ns-2).
    pub queue_window: f64,
    /// Sheela & Raja's congestion bit: set on departing XCP packets while the last interval's
    /// input rate reached the capacity or this many packets wait (`Q_th`); `None` is plain XCP.
    pub congestion_threshold: Option<u32>,
    /// Start the control and queue timers at random offsets, as ns-2 does to desynchronise
    /// routers (`XCPQueue::setupTimers`: normal of mean T and deviation 0.2·T, at least 4 ms);
    /// otherwise at exactly one period.
    pub random_timers: bool,
}

/// ns-2's virtual queues for the traffic that is not XCP's (module notes).
pub struct Others {
    pub tcp: Red,
    pub other: Red,
}

/// Which of the three queues a packet waits in, in the order the link serves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Xcp = 0,
    Tcp = 1,
    Other = 2,
}

impl XcpParams {
    /// The paper's constants for a link of `capacity` bytes per second.
    pub fn new(capacity: f64, limit: u32) -> XcpParams {
        XcpParams {
            capacity,
            limit,
            alpha: ALPHA,
            beta: BETA,
            gamma: GAMMA,
            initial_interval: INITIAL_INTERVAL,
            min_interval: MIN_INTERVAL,
            queue_window: 1.0,
            congestion_threshold: None,
            random_timers: false,
        }
    }
}

/// What one control interval measured, as the arrivals add it up.
#[derive(Clone, Debug, Default)]
struct Sums {
    /// Bytes of every arrival (the input traffic).
    input: f64,
    /// Over XCP packets with an RTT: Σ s, Σ rtt·s/cwnd, Σ rtt²·s/cwnd.
    xcp_bytes: f64,
    rtt_by_cwnd: f64,
    rtt2_by_cwnd: f64,
}

/// The controllers' outputs for the current interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Control {
    /// Average RTT `d` (s): the control interval.
    pub d: f64,
    /// Aggregate feedback φ (bytes) and shuffled traffic h (bytes).
    pub phi: f64,
    pub shuffled: f64,
    pub xi_p: f64,
    pub xi_n: f64,
    /// Positive and negative feedback left to hand out this interval (bytes).
    pub residue_pos: f64,
    pub residue_neg: f64,
    /// Input rate of the interval that ended (bytes/s).
    pub input_rate: f64,
    /// Persistent queue `Q` (bytes).
    pub queue: f64,
}

pub struct Xcp {
    /// The XCP traffic (all of it, without virtual queues).
    fifo: DropTail,
    others: Option<Box<Others>>,
    /// The queue whose turn it is next (`Class` as a number).
    turn: u8,
    p: XcpParams,
    sums: Sums,
    c: Control,
    interval_start: SimTime,
    next_te: SimTime,
    next_tq: SimTime,
    /// Least waiting bytes since the queue timer last fired.
    min_queue: u64,
    /// Whether the first timers still have to be drawn (`random_timers`, at the first packet,
    /// from the router's own stream).
    timers_undrawn: bool,
}

impl Xcp {
    pub fn new(p: XcpParams) -> Xcp {
        let mut x = Xcp {
            fifo: DropTail::packets(p.limit),
            others: None,
            // ns-2's `qToDq_` starts at the XCP queue and moves on before its first dequeue.
            turn: 1,
            sums: Sums::default(),
            c: Control {
                d: p.initial_interval.as_secs_f64(),
                ..Control::default()
            },
            interval_start: SimTime::ZERO,
            next_te: SimTime::ZERO,
            next_tq: SimTime::ZERO,
            min_queue: 0,
            timers_undrawn: p.random_timers,
            p,
        };
        // The first timers, from the same rules as every later one (`d` is the initial interval).
        x.next_te = x.te_period();
        x.next_tq = x.tq_period();
        x
    }

    /// ns-2's virtual queues: the traffic without an XCP header waits in `others`, and the
    /// controllers see only the XCP queue.
    pub fn with_virtual_queues(mut self, others: Others) -> Xcp {
        self.others = Some(Box::new(others));
        self
    }

    /// The queue a packet waits in: the XCP queue for every packet without virtual queues.
    fn class(&self, p: &Packet) -> Class {
        if self.others.is_none() || p.xcp.is_some() {
            Class::Xcp
        } else if matches!(p.kind, Kind::TcpData | Kind::TcpAck) {
            Class::Tcp
        } else {
            Class::Other
        }
    }

    /// The queue the next dequeue takes from: the first non-empty one from `turn` on.
    fn next_class(&self) -> Option<Class> {
        let Some(o) = &self.others else {
            return (self.fifo.len_packets() > 0).then_some(Class::Xcp);
        };
        let lens = [
            self.fifo.len_packets(),
            o.tcp.len_packets(),
            o.other.len_packets(),
        ];
        (0..3)
            .map(|k| (self.turn as usize + k) % 3)
            .find(|&q| lens[q] > 0)
            .map(|q| [Class::Xcp, Class::Tcp, Class::Other][q])
    }

    /// The controllers' current outputs.
    #[cfg(test)]
    pub(crate) fn control(&self) -> &Control {
        &self.c
    }

    /// Draws the first timers' offsets as ns-2 does (`random_timers`): each a normal draw of
    /// mean its period and deviation a fifth of it, at least 4 ms.
    #[cold]
    fn draw_timers(&mut self, rng: &mut Rng) {
        self.timers_undrawn = false;
        let mut offset = |period: SimTime| {
            let t = period.as_secs_f64();
            SimTime::from_secs_f64(normal(rng, t, 0.2 * t).max(TIMER_FLOOR_S))
        };
        self.next_te = offset(self.te_period());
        self.next_tq = offset(self.tq_period());
    }

    /// Replays the control (`Te`) and queue (`Tq`) timers due by `now`, in time order (the
    /// control timer first at a tie). Nothing changed since the last packet, so once the
    /// outputs reach their fixed point the rest of the gap's timers are skipped.
    fn catch_up(&mut self, now: SimTime) {
        let mut queue_timers = 0;
        loop {
            if self.next_te.min(self.next_tq) > now {
                return;
            }
            if self.next_te <= self.next_tq {
                let empty = self.sums.input == 0.0;
                self.on_control_timer(self.next_te);
                // Two queue estimates since the last packet make Q the (constant) queue, and
                // an empty interval after them leaves every output as it will stay.
                if empty && queue_timers >= 2 {
                    self.skip_to(now);
                    return;
                }
            } else {
                queue_timers += 1;
                self.on_queue_timer(self.next_tq);
            }
        }
    }

    /// Moves both timers past `now` by whole periods (at the fixed point of an idle gap).
    fn skip_to(&mut self, now: SimTime) {
        let te = self.te_period();
        self.next_te = past(self.next_te, te, now);
        self.interval_start = self.next_te - te;
        let tq = self.tq_period();
        self.next_tq = past(self.next_tq, tq, now);
    }

    fn te_period(&self) -> SimTime {
        SimTime::from_secs_f64(self.c.d).max(self.p.min_interval)
    }

    /// `Tq`: the window over which `Q` is the least queue, `queue_window·(d − queue/C)`.
    fn tq_period(&self) -> SimTime {
        let queueing = self.fifo.len_bytes() as f64 / self.p.capacity;
        let prop = (self.c.d - queueing).max(0.0);
        SimTime::from_secs_f64(self.p.queue_window * prop).max(self.p.min_interval)
    }

    /// End of a control interval at `t` (Eq. 1 and §3.5).
    fn on_control_timer(&mut self, t: SimTime) {
        let len = (t - self.interval_start).as_secs_f64();
        let s = std::mem::take(&mut self.sums);
        if s.rtt_by_cwnd > 0.0 {
            // The flows' average RTT: each flow adds about interval·rtt_i and interval to the
            // two sums whatever its packet rate (Appendix A).
            self.c.d = s.rtt2_by_cwnd / s.rtt_by_cwnd;
        }
        let d = self.c.d;
        let rate = s.input / len;
        let phi = self.p.alpha * d * (self.p.capacity - rate) - self.p.beta * self.c.queue;
        let h = (self.p.gamma * rate * d - phi.abs()).max(0.0);
        let (pos, neg) = (h + phi.max(0.0), h + (-phi).max(0.0));
        // Over the next interval d the flows send d/len times the last interval's sums.
        let scale = d / len;
        let xi_p = if s.rtt_by_cwnd > 0.0 {
            pos / (d * s.rtt_by_cwnd * scale)
        } else {
            0.0
        };
        let xi_n = if s.xcp_bytes > 0.0 {
            neg / (d * s.xcp_bytes * scale)
        } else {
            0.0
        };
        self.c = Control {
            d,
            phi,
            shuffled: h,
            xi_p,
            xi_n,
            residue_pos: pos,
            residue_neg: neg,
            input_rate: rate,
            queue: self.c.queue,
        };
        self.interval_start = t;
        self.next_te = t + self.te_period();
    }

    /// End of a queue-estimation window at `t`: `Q` is the least queue it held.
    fn on_queue_timer(&mut self, t: SimTime) {
        self.c.queue = self.min_queue as f64;
        self.min_queue = self.fifo.len_bytes();
        self.next_tq = t + self.tq_period();
    }

    /// The feedback for a departing packet of `size` bytes from a sender with window `cwnd`
    /// bytes and RTT `rtt` s, taken from this interval's residues (§3.5, `p_i − n_i`).
    fn feedback(&mut self, size: f64, cwnd: f64, rtt: f64) -> f64 {
        let pos = (self.c.xi_p * rtt * rtt * size / cwnd).min(self.c.residue_pos);
        let neg = (self.c.xi_n * rtt * size).min(self.c.residue_neg);
        self.c.residue_pos -= pos;
        self.c.residue_neg -= neg;
        pos - neg
    }

    fn note_queue(&mut self) {
        self.min_queue = self.min_queue.min(self.fifo.len_bytes());
    }
}

/// The least offset ns-2 gives a router's first timers (`random_timers`), seconds.
const TIMER_FLOOR_S: f64 = 0.004;

/// A normal draw of mean `mean` and deviation `sd` (Box–Muller, from two uniforms).
fn normal(rng: &mut Rng, mean: f64, sd: f64) -> f64 {
    let (u1, u2) = (1.0 - rng.uniform(), rng.uniform()); // u1 in (0, 1]: ln u1 is finite
    mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// The first of `next`, `next + period`, … after `now`.
fn past(next: SimTime, period: SimTime, now: SimTime) -> SimTime {
    if next > now {
        return next;
    }
    let n = (now - next).as_nanos() / period.as_nanos() + 1;
    next + SimTime(n * period.as_nanos())
}

/// The congestion header of a data packet. An ACK carries the echo of its segment's header
/// back to the sender: routers on the way back count it as traffic and leave it alone.
fn forward(p: &Packet) -> Option<&XcpHeader> {
    p.xcp.as_deref().filter(|_| p.kind == Kind::TcpData)
}

impl QueueDiscipline for Xcp {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        if self.timers_undrawn {
            self.draw_timers(ctx.rng);
        }
        self.catch_up(ctx.now);
        let p = ctx.arena.get(pkt);
        match self.class(p) {
            Class::Xcp => {}
            class => {
                let o = self.others.as_deref_mut().expect("virtual queues");
                let q = if class == Class::Tcp {
                    &mut o.tcp
                } else {
                    &mut o.other
                };
                return q.enqueue(pkt, ctx);
            }
        }
        let size = p.size as f64;
        self.sums.input += size;
        if let Some(h) = forward(p).filter(|h| h.rtt_s > 0.0 && h.cwnd_bytes > 0.0) {
            let rtt = h.rtt_s;
            self.sums.xcp_bytes += size;
            self.sums.rtt_by_cwnd += rtt * size / h.cwnd_bytes;
            self.sums.rtt2_by_cwnd += rtt * rtt * size / h.cwnd_bytes;
        }
        let v = self.fifo.enqueue(pkt, ctx);
        self.note_queue();
        v
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        if self.timers_undrawn {
            self.draw_timers(ctx.rng);
        }
        self.catch_up(ctx.now);
        let Some(class) = self.next_class() else {
            // ns-2 then asks the queue whose turn it is, which finds itself empty (a RED queue
            // starts its idle period there, and only there), and the next turn is the one
            // after it.
            if let Some(o) = self.others.as_deref_mut() {
                match self.turn {
                    1 => o.tcp.dequeue(ctx),
                    2 => o.other.dequeue(ctx),
                    _ => None,
                };
                self.turn = (self.turn + 1) % 3;
            }
            return None;
        };
        self.turn = (class as u8 + 1) % 3;
        if class != Class::Xcp {
            let o = self.others.as_deref_mut().expect("virtual queues");
            let q = if class == Class::Tcp {
                &mut o.tcp
            } else {
                &mut o.other
            };
            return q.dequeue(ctx);
        }
        let pkt = self.fifo.dequeue(ctx)?;
        self.note_queue();
        let waiting = self.fifo.len_packets();
        let p = ctx.arena.get_mut(pkt);
        let size = p.size as f64;
        let data = p.kind == Kind::TcpData;
        if let Some(h) = p.xcp.as_deref_mut().filter(|_| data) {
            if h.rtt_s > 0.0 && h.cwnd_bytes > 0.0 {
                let (cwnd, rtt) = (h.cwnd_bytes, h.rtt_s);
                let fb = self.feedback(size, cwnd, rtt);
                if fb < h.feedback_bytes {
                    h.feedback_bytes = fb;
                }
            }
            if let Some(q_th) = self.p.congestion_threshold {
                let full = waiting >= q_th;
                if full || self.c.input_rate >= self.p.capacity {
                    h.congested = true;
                    h.queue_high |= full;
                }
            }
        }
        Some(pkt)
    }

    fn len_packets(&self) -> u32 {
        let others = self.others.as_deref();
        self.fifo.len_packets() + others.map_or(0, |o| o.tcp.len_packets() + o.other.len_packets())
    }
    fn len_bytes(&self) -> u64 {
        let others = self.others.as_deref();
        self.fifo.len_bytes() + others.map_or(0, |o| o.tcp.len_bytes() + o.other.len_bytes())
    }

    fn upcoming(&self) -> Option<PktId> {
        match (self.next_class()?, self.others.as_deref()) {
            (Class::Tcp, Some(o)) => o.tcp.upcoming(),
            (Class::Other, Some(o)) => o.other.upcoming(),
            _ => self.fifo.upcoming(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;

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
    /// router gets from `aqm.rs`, are in bytes: `tests/xcp.rs` runs those).
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
}
