//! XCP router — Katabi, Handley & Rohrs, "Congestion Control for High Bandwidth-Delay Product
//! Networks", SIGCOMM 2002 (`docs/algorithms.md` §11), with the window-adjustment
//! congestion bit of Sheela & Raja as an option (`docs/design.md`).
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

mod config;

pub use config::XcpSpec;

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
mod tests;
