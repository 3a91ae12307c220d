//! Pacing: the sender spaces its transmissions at a pacing rate, as Linux does with its
//! earliest-departure-time model (`tcp_update_skb_after_send`, `tcp_pacing_check` in
//! `net/ipv4/tcp_output.c`).
//!
//! After each transmission of `len` bytes the next may leave `len / rate` later; a sender that
//! was idle past that time gets up to half of the next gap as credit (Linux's allowance for
//! host scheduling jitter). The first ten segments of a connection leave unpaced, as Linux's
//! `data_segs_out >= 10` rule. A send the pacing holds back waits for the `Pace` timer.
//!
//! The rate is the algorithm's (`TcpState::pacing_rate`, which BBR sets) or, for algorithms
//! that set none, Linux's `tcp_update_pacing_rate` after every ACK:
//! `mss · max(cwnd, packets_out) / srtt × ratio`, with `pacing_ss_ratio` (200 %) while
//! `cwnd < ssthresh / 2` and `pacing_ca_ratio` (120 %) after. Before the first RTT sample the
//! rule gives no rate and the flow is unpaced.

use super::sender::Sender;
use super::Io;
use crate::config::Pacing;
use crate::rng::Rng;
use crate::tcp::TcpParams;
use crate::time::SimTime;

/// Segments a connection sends before pacing starts (Linux `data_segs_out >= 10`).
const UNPACED_SEGMENTS: u64 = 10;

/// A paced sender's state.
#[derive(Clone, Debug)]
pub(super) struct Pacer {
    /// Earliest time of the next transmission (Linux `tcp_wstamp_ns`).
    next: SimTime,
    /// Whether the sender computes the rate by Linux's rule (the algorithm sets none).
    linux_rule: bool,
    ss_ratio: f64,
    ca_ratio: f64,
    /// Send jitter: the largest wait, and the flow's random stream (`with_send_jitter`).
    jitter: SimTime,
    rng: Option<Rng>,
    /// The next segment's jitter is already in `next`.
    drawn: bool,
}

impl Pacer {
    /// A pacer at the algorithm's rate, or at Linux's rule with these ratios (percent).
    fn new(linux_rule: Option<(f64, f64)>) -> Pacer {
        let (ss_ratio, ca_ratio) = linux_rule.unwrap_or((0.0, 0.0));
        Pacer {
            next: SimTime::ZERO,
            linux_rule: linux_rule.is_some(),
            ss_ratio,
            ca_ratio,
            jitter: SimTime::ZERO,
            rng: None,
            drawn: false,
        }
    }

    /// Earliest time of the next transmission.
    pub(super) fn next_send(&self) -> SimTime {
        self.next
    }
}

/// Linux's pacing rate in bytes per second (`tcp_update_pacing_rate`), infinite before an RTT
/// sample. `ss_ratio` and `ca_ratio` are percentages.
pub fn linux_pacing_rate(
    mss: u32,
    cwnd: f64,
    ssthresh: f64,
    packets_out: u64,
    srtt: SimTime,
    ss_ratio: f64,
    ca_ratio: f64,
) -> f64 {
    if srtt == SimTime::ZERO {
        return f64::INFINITY;
    }
    let ratio = if cwnd < ssthresh / 2.0 {
        ss_ratio
    } else {
        ca_ratio
    };
    // Linux multiplies by whole segments (`tcp_snd_cwnd` is an integer).
    let segments = (cwnd.floor()).max(packets_out as f64);
    mss as f64 * ratio / 100.0 * segments / srtt.as_secs_f64()
}

impl Sender {
    /// Paces the connection if its settings and its algorithm say so.
    /// `ratios`: the algorithm's own ratios for Linux's rule, if it asks for them.
    pub(super) fn with_pacing(
        mut self,
        p: &TcpParams,
        wants: bool,
        ratios: Option<(f64, f64)>,
    ) -> Sender {
        let on = match p.pacing {
            Pacing::Off => false,
            Pacing::On => true,
            Pacing::Auto => wants,
        };
        if on {
            let rule = if wants {
                ratios
            } else {
                Some((p.pacing_ss_ratio, p.pacing_ca_ratio))
            };
            self.pacer = Some(Box::new(Pacer::new(rule)));
        }
        self
    }

    /// Makes each segment wait a uniform random time in `[0, jitter]` before it leaves, in
    /// order, as ns-2's `overhead_` (`TcpAgent::send_much` with its `delsnd_timer_`): the
    /// wait is drawn when a segment could leave and the next is drawn once it has. Without
    /// pacing the sender still goes through the pacing timer, at an unlimited rate.
    pub fn with_send_jitter(mut self, jitter: SimTime, rng: Rng) -> Sender {
        let p = self.pacer.get_or_insert_with(|| Box::new(Pacer::new(None)));
        p.jitter = jitter;
        p.rng = Some(rng);
        self
    }

    /// Whether pacing lets a segment leave at `now`; if not, the `Pace` timer is set for when
    /// it may.
    #[inline(always)]
    pub(super) fn pacing_allows(&mut self, now: SimTime) -> bool {
        self.pacer.is_none() || self.paced_allows(now)
    }

    #[inline(never)]
    fn paced_allows(&mut self, now: SimTime) -> bool {
        let Some(p) = self.pacer.as_deref_mut() else {
            return true;
        };
        if let (Some(rng), false) = (p.rng.as_mut(), p.drawn) {
            // This segment's wait, from when it could first leave.
            let wait = SimTime::from_secs_f64(rng.uniform() * p.jitter.as_secs_f64());
            p.next = p.next.max(now) + wait;
            p.drawn = true;
        }
        let next = p.next;
        if next <= now {
            return true;
        }
        self.pace_timer.set_deadline(Some(next));
        false
    }

    /// `try_send` for a connection that paces or samples the delivery rate, or resends with
    /// RACK-TLP after a timeout: segments while the window `w`, the application and the pacing
    /// allow.
    #[inline(never)]
    pub(super) fn send_tracked(&mut self, w: u64, io: &mut Io) {
        while self.nxt - self.una < w && self.app_has(self.nxt) && self.pacing_allows(io.now) {
            let seg = self.nxt;
            self.send_segment(seg, io);
            self.nxt += 1;
        }
        self.rate_check_app_limited();
    }

    /// A segment of `bytes` on the wire left at `now`: the earliest time of the next.
    #[inline(never)]
    pub(super) fn paced(&mut self, bytes: u32, now: SimTime) {
        let rate = self.st.pacing_rate;
        // Data segments sent, this one included (Linux `data_segs_out`).
        let early = self.high + self.stats.retransmits < UNPACED_SEGMENTS;
        let Some(p) = self.pacer.as_deref_mut() else {
            return;
        };
        let prior = p.next;
        p.next = p.next.max(now);
        p.drawn = false;
        if early || !(rate.is_finite() && rate > 0.0) {
            return;
        }
        let credit = p.next - prior;
        let gap = SimTime::from_secs_f64(bytes as f64 / rate);
        let gap = SimTime(gap.0 - (gap.0 / 2).min(credit.0));
        p.next += gap;
    }

    /// After an ACK: the rate by Linux's rule, for an algorithm that sets none.
    #[inline(never)]
    pub(super) fn update_pacing_rate(&mut self) {
        let Some(p) = self.pacer.as_deref() else {
            return;
        };
        if p.linux_rule {
            self.st.pacing_rate = linux_pacing_rate(
                self.p.mss,
                self.st.cwnd,
                self.st.ssthresh,
                self.high - self.una,
                self.st.srtt,
                p.ss_ratio,
                p.ca_ratio,
            );
        }
    }

    /// The pacing timer fired: send what waited for it.
    #[inline(never)]
    pub(super) fn on_pace(&mut self, io: &mut Io) {
        self.st.now = io.now;
        self.pace_timer.set_deadline(None);
        self.try_send(io);
        self.trace(io);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_rule_doubles_in_slow_start_and_adds_a_fifth_after() {
        // mss 1448 B, cwnd 20, srtt 100 ms: 1448 · 20 / 0.1 = 289,600 B/s current rate.
        let srtt = SimTime::from_millis(100);
        let ss = linux_pacing_rate(1448, 20.0, 100.0, 0, srtt, 200.0, 120.0);
        assert!((ss - 579_200.0).abs() < 1e-6, "{ss}");
        // cwnd ≥ ssthresh / 2 (40 ≥ 35): congestion avoidance's 120 %.
        let ca = linux_pacing_rate(1448, 40.0, 70.0, 0, srtt, 200.0, 120.0);
        assert!((ca - 1448.0 * 40.0 / 0.1 * 1.2).abs() < 1e-6, "{ca}");
        // More outstanding than the window (after a cut): packets_out counts.
        let out = linux_pacing_rate(1448, 10.5, 20.0, 30, srtt, 200.0, 120.0);
        assert!((out - 1448.0 * 30.0 / 0.1 * 1.2).abs() < 1e-6, "{out}");
        // The window's fraction is dropped, as Linux's integer cwnd.
        let frac = linux_pacing_rate(1000, 10.9, 1e9, 0, srtt, 200.0, 120.0);
        assert!((frac - 1000.0 * 10.0 / 0.1 * 2.0).abs() < 1e-6, "{frac}");
        // No RTT sample: no rate.
        let none = linux_pacing_rate(1448, 10.0, 1e9, 0, SimTime::ZERO, 200.0, 120.0);
        assert!(none.is_infinite());
    }
}
