//! BBR v1 — Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016; as Linux `net/ipv4/tcp_bbr.c`.
//!
//! BBR models the path by two numbers: the bottleneck bandwidth, the windowed maximum of the
//! delivery-rate samples over the last 10 round trips (`tcp/rate.rs`), and the minimum RTT over
//! the last 10 seconds. It paces at `pacing_gain × bw` and caps the flight at
//! `cwnd_gain × bw × min_rtt` (plus allowances), moving through four states:
//!
//! - **Startup** (gains 2/ln 2): doubles the rate each round until three rounds in a row bring
//!   less than 25 % more bandwidth (`full_bw_thresh`, `full_bw_cnt`);
//! - **Drain** (pacing gain ln 2 / 2): empties the queue Startup built, until the flight is at
//!   most one BDP;
//! - **ProbeBW**: an eight-phase pacing-gain cycle, 5/4, 3/4, then six of 1, each about one
//!   min-RTT long, entered at a random phase other than the 3/4 one;
//! - **ProbeRTT**: when the min-RTT estimate is 10 s old, the window drops to 4 segments for
//!   at least 200 ms and one round, to measure the path's RTT again.
//!
//! Also as Linux: the long-term ("policer") bandwidth estimate, used for 48 rounds when two
//! intervals of at least 4 rounds show consistent rates with 20 % loss; the ACK-aggregation
//! allowance (the most data acknowledged beyond `bw × time` in an epoch, kept over 5–10
//! rounds, at most 100 ms of bw); packet conservation in the first round of fast recovery and
//! the restored window after it; the quantisation budget (room for three TSO bursts, an even
//! window, and 2 more segments in the 5/4 phase); and the 1 % pacing margin below the estimate.
//!
//! In ccsim's conventions: rates are f64 segments per second rather than Linux's fixed point
//! (so the gains are the exact 2/ln 2 and ln 2/2, not `739/256` and `88/256`), times are
//! nanoseconds rather than microseconds and jiffies, and the TSO burst size follows Linux's
//! `bbr_tso_segs_goal` from the pacing rate though ccsim sends single segments. Linux's
//! `is_ack_delayed` marking (a lone runt segment's ACK) is not modelled: every sample may lower
//! an expired min RTT. The window is not undone after a spurious recovery (ccsim has no undo).

mod config;
pub(crate) mod model;

use super::{CaEvent, CaState, CongestionControl, RateSample, TcpState};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::util::win_minmax::MaxFilter;
pub use config::BbrConfig;
use config::Params;
pub use model::Mode;
use model::{rank, AckAggregation, Pacing};

/// Linux `TCP_INIT_CWND`: the window cap before any RTT sample.
const INIT_CWND: f64 = 10.0;
/// ProbeBW's pacing gains (Linux `bbr_pacing_gain`).
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Phases a ProbeBW entry may start at, drawn uniformly (Linux `bbr_cycle_rand`).
const CYCLE_RAND: u64 = 7;
/// Long-term sampling: at least 4 rounds an interval, "lossy" above 50/256 lost per delivered,
/// "consistent" within 1/8 or 4 kbit/s, used for 48 rounds (Linux `bbr_lt_*`).
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation: window of 5 rounds (Linux `bbr_extra_acked_win_rtts`; the rest in
/// `model.rs`).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// Below this pacing rate (bytes/s) a TSO burst is one segment, else at least two (Linux
/// `bbr_min_tso_rate`, 1.2 Mbit/s).
const MIN_TSO_RATE: f64 = 1_200_000.0 / 8.0;

/// BBR, its state held out of line: a connection carries one pointer for it, as for the other
/// algorithms' few words.
#[derive(Clone, Debug)]
pub struct Bbr(Box<BbrState>);

impl std::ops::Deref for Bbr {
    type Target = BbrState;
    fn deref(&self) -> &BbrState {
        &self.0
    }
}

impl std::ops::DerefMut for Bbr {
    fn deref_mut(&mut self) -> &mut BbrState {
        &mut self.0
    }
}

#[derive(Clone, Debug)]
pub struct BbrState {
    p: Params,
    rng: Rng,
    pub(crate) mode: Mode,
    /// Bandwidth filter, segments per second, over round counts.
    pub(crate) bw: MaxFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    pub(crate) min_rtt: SimTime,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    prev_ca_state: CaState,
    packet_conservation: bool,
    idle_restart: bool,
    pub(crate) full_bw_reached: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    pub(crate) cycle_idx: usize,
    cycle_stamp: SimTime,
    pub(crate) pacing_gain: f64,
    pub(crate) cwnd_gain: f64,
    pace: Pacing,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_lost: u64,
    lt_last_stamp_ms: u64,
    agg: AckAggregation,
    /// The connection's `delivered_time` at the last sample (Linux `tp->delivered_mstamp`).
    delivered_time: SimTime,
}

impl BbrState {
    fn new(p: Params, rng: Rng) -> BbrState {
        BbrState {
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            pace: Pacing::new(p.mss, p.margin),
            p,
            rng,
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: SimTime::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            idle_restart: false,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_lost: 0,
            lt_last_stamp_ms: 0,
            agg: AckAggregation::default(),
            delivered_time: SimTime::ZERO,
        }
    }

    fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth in use: the long-term estimate while policed, else the filter's.
    pub(crate) fn bbr_bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// Bytes per second for `bw` segments per second and a gain, less the pacing margin.
    pub(crate) fn pacing_rate_for(&self, bw: f64, gain: f64) -> f64 {
        self.pace.rate(bw, gain)
    }

    fn set_pacing_rate(&mut self, st: &mut TcpState, bw: f64, gain: f64) {
        let (startup, full) = (self.p.high_gain, self.full_bw_reached);
        self.pace.set(st, bw, gain, startup, full);
    }

    /// Linux `bbr_tso_segs_goal`: segments in a TSO burst at the current pacing rate (about
    /// 1 ms of it, `sk_pacing_shift` 10), at least 1 or 2, at most 127.
    fn tso_segs_goal(&self, st: &TcpState) -> f64 {
        let min = if st.pacing_rate < MIN_TSO_RATE {
            1.0
        } else {
            2.0
        };
        let bytes = (st.pacing_rate / 1024.0)
            .floor()
            .min(65_536.0 - 1.0 - 320.0);
        (bytes / self.p.mss).floor().max(min).min(127.0)
    }

    /// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉, or the initial window before any RTT sample.
    pub(crate) fn bdp(&self, bw: f64, gain: f64) -> f64 {
        model::bdp(bw, self.min_rtt, gain, INIT_CWND)
    }

    /// Linux `bbr_quantization_budget`.
    fn quantization_budget(&self, st: &TcpState, cwnd: f64) -> f64 {
        let mut cwnd = cwnd + 3.0 * self.tso_segs_goal(st);
        cwnd = 2.0 * (cwnd / 2.0).ceil(); // an even window: fewer delayed ACKs
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2.0;
        }
        cwnd
    }

    pub(crate) fn inflight(&self, st: &TcpState, bw: f64, gain: f64) -> f64 {
        let bdp = self.bdp(bw, gain);
        self.quantization_budget(st, bdp)
    }

    /// Linux `bbr_packets_in_net_at_edt`: the flight the network will hold when the next
    /// paced segment leaves.
    fn in_net_at_edt(&self, st: &TcpState, rs: &RateSample, inflight_now: u64) -> f64 {
        let burst = if self.pacing_gain > 1.0 {
            self.tso_segs_goal(st)
        } else {
            0.0
        };
        model::in_net_at_edt(st.now, rs.edt, self.bbr_bw(), inflight_now, burst)
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if self.p.extra_acked_gain > 0.0 && self.full_bw_reached {
            self.agg.allowance(self.p.extra_acked_gain, self.bbr_bw())
        } else {
            0.0
        }
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self, st: &TcpState) {
        let probe_rtt = self.mode == Mode::ProbeRtt;
        self.prior_cwnd =
            model::saved_cwnd(self.prior_cwnd, st.cwnd, self.prev_ca_state, probe_rtt);
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: the window, and whether packet conservation
    /// sets it.
    fn recover_or_restore(&mut self, st: &TcpState, rs: &RateSample, acked: f64) -> (f64, bool) {
        let mut cwnd = st.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd - rs.losses as f64).max(1.0);
        }
        let (prev, state) = (rank(self.prev_ca_state), rank(st.ca_state));
        let recovery = rank(CaState::Recovery);
        if state == recovery && prev != recovery {
            // First round of recovery: packet conservation, from the flight actually out.
            self.packet_conservation = true;
            self.next_rtt_delivered = st.delivered;
            cwnd = rs.in_flight as f64 + acked;
        } else if prev >= recovery && state < recovery {
            cwnd = cwnd.max(self.prior_cwnd); // recovery is over: restore
            self.packet_conservation = false;
        }
        self.prev_ca_state = st.ca_state;
        if self.packet_conservation {
            (cwnd.max(rs.in_flight as f64 + acked), true)
        } else {
            (cwnd, false)
        }
    }

    /// Linux `bbr_set_cwnd`.
    fn set_cwnd(&mut self, st: &mut TcpState, rs: &RateSample, bw: f64, gain: f64) {
        let acked = rs.acked_sacked as f64;
        let mut cwnd = st.cwnd;
        if acked > 0.0 {
            let (c, conserving) = self.recover_or_restore(st, rs, acked);
            cwnd = c;
            if !conserving {
                let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(st, target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (st.delivered as f64) < INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.p.cwnd_min_target);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.p.cwnd_min_target);
        }
        st.cwnd = cwnd;
    }

    fn is_next_cycle_phase(&self, st: &TcpState, rs: &RateSample) -> bool {
        let full_length = rs.delivered_time.saturating_sub(self.cycle_stamp) > self.min_rtt;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.in_net_at_edt(st, rs, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            // Probing: until a min RTT has passed and the flight reached gain × BDP, or a loss
            // says it will not fit.
            full_length && (rs.losses > 0 || inflight >= self.inflight(st, bw, self.pacing_gain))
        } else {
            // Draining: until a min RTT has passed or the queue is gone.
            full_length || inflight <= self.inflight(st, bw, 1.0)
        }
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = self.delivered_time;
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        let r = (self.rng.next_u64() % CYCLE_RAND) as usize;
        self.cycle_idx = CYCLE.len() - 1 - r;
        self.advance_cycle_phase(); // never starts in the 3/4 phase
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn reset_lt_interval(&mut self, st: &TcpState) {
        self.lt_last_stamp_ms = self.delivered_time.as_nanos() / 1_000_000;
        self.lt_last_delivered = st.delivered;
        self.lt_last_lost = st.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt(&mut self, st: &TcpState) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval(st);
    }

    fn lt_interval_done(&mut self, st: &TcpState, bw: f64) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= LT_BW_RATIO * self.lt_bw
                || self.pacing_rate_for(diff, 1.0) <= LT_BW_DIFF_BYTES
            {
                // Two consistent, lossy intervals: a policer. Use their average.
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval(st);
    }

    /// Linux `bbr_lt_bw_sampling`: detects a token-bucket policer.
    fn lt_sampling(&mut self, st: &TcpState, losses: u64, app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(st);
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if losses == 0 {
                return; // start at the first loss, once a policer's tokens are spent
            }
            self.reset_lt_interval(st);
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt(st);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(st);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = st.lost - self.lt_last_lost;
        let delivered = st.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost as f64) < LT_LOSS_THRESH * delivered as f64 {
            return;
        }
        let now_ms = self.delivered_time.as_nanos() / 1_000_000;
        let t_ms = now_ms.saturating_sub(self.lt_last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        self.lt_interval_done(st, delivered as f64 / (t_ms as f64 / 1e3));
    }

    fn update_bw(&mut self, st: &TcpState, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate() else {
            return;
        };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = st.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(st, rs.losses, rs.is_app_limited);
        // App-limited samples only when they say more than the model.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.p.bw_rtts as u64, self.rtt_cnt, bw);
        }
    }

    fn update_ack_aggregation(&mut self, st: &TcpState, rs: &RateSample) {
        if self.p.extra_acked_gain == 0.0 || rs.acked_sacked == 0 || rs.interval.is_none() {
            return;
        }
        let (round, bw, t) = (self.round_start, self.bbr_bw(), self.delivered_time);
        self.agg
            .update(round, EXTRA_ACKED_WIN_RTTS, bw, t, rs.acked_sacked, st.cwnd);
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * self.p.full_bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_cnt;
    }

    fn check_drain(&mut self, st: &mut TcpState, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            st.ssthresh = self.inflight(st, self.max_bw(), 1.0);
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(st, rs, rs.in_flight) <= self.inflight(st, self.max_bw(), 1.0)
        {
            self.reset_probe_bw_mode(); // the queue is drained
        }
    }

    fn check_probe_rtt_done(&mut self, st: &mut TcpState) {
        if self.probe_rtt_done.is_none_or(|d| st.now <= d) {
            return;
        }
        self.min_rtt_stamp = st.now; // the next ProbeRTT is a full window away
        st.cwnd = st.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    fn update_min_rtt(&mut self, st: &mut TcpState, rs: &RateSample) {
        let expired = st.now > self.min_rtt_stamp + self.p.min_rtt_win;
        if let Some(rtt) = rs.rtt {
            if rtt < self.min_rtt || expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = st.now;
            }
        }
        if self.p.probe_rtt_mode > SimTime::ZERO
            && expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(st);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples of this low-rate phase are kept out of the bandwidth filter.
            st.app_limited = (st.delivered + rs.in_flight).max(1);
            if self.probe_rtt_done.is_none() && rs.in_flight as f64 <= self.p.cwnd_min_target {
                self.probe_rtt_done = Some(st.now + self.p.probe_rtt_mode);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = st.delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(st);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        let p = &self.p;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (p.high_gain, p.high_gain),
            Mode::Drain => (p.drain_gain, p.high_gain),
            Mode::ProbeBw if self.lt_use_bw => (1.0, p.cwnd_gain),
            Mode::ProbeBw => (CYCLE[self.cycle_idx], p.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }
}

/// The hooks, on the state behind the pointer.
impl CongestionControl for Bbr {
    /// BBR keeps its threshold (Linux `bbr_ssthresh` saves the window, done here in
    /// `set_state`, and returns `snd_ssthresh` unchanged).
    fn ssthresh(&self, st: &TcpState) -> f64 {
        st.ssthresh
    }

    /// Never called for BBR's window, which `cong_control` sets.
    fn cong_avoid(&mut self, _st: &mut TcpState, _ack: &super::AckSample) {}

    fn init(&mut self, st: &mut TcpState) {
        let b = &mut *self.0;
        st.ssthresh = f64::INFINITY;
        b.next_rtt_delivered = st.delivered;
        b.min_rtt = st.min_rtt;
        b.min_rtt_stamp = st.now;
        b.delivered_time = st.now;
        b.agg.restart(st.now);
        b.pace.init_from_rtt(st, b.p.high_gain);
        b.reset_lt(st);
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        let b = &mut *self.0;
        if rank(new) > rank(st.ca_state) && new != CaState::Open {
            b.save_cwnd(st); // Linux does this in `ssthresh`, right before
        }
        if new == CaState::Loss {
            b.prev_ca_state = CaState::Loss;
            b.full_bw = 0.0;
            b.round_start = true; // a timeout ends the round
            b.lt_sampling(st, 1, false);
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        let b = &mut *self.0;
        if ev == CaEvent::TxStart && st.app_limited != 0 {
            b.idle_restart = true;
            b.agg.restart(st.now);
            match b.mode {
                Mode::ProbeBw => b.set_pacing_rate(st, b.bbr_bw(), 1.0),
                Mode::ProbeRtt => b.check_probe_rtt_done(st),
                _ => {}
            }
        }
    }

    fn cong_control(&mut self, st: &mut TcpState, rs: &RateSample) {
        let b = &mut *self.0;
        b.delivered_time = rs.delivered_time;
        b.update_bw(st, rs);
        b.update_ack_aggregation(st, rs);
        if b.mode == Mode::ProbeBw && b.is_next_cycle_phase(st, rs) {
            b.advance_cycle_phase();
        }
        b.check_full_bw_reached(rs);
        b.check_drain(st, rs);
        b.update_min_rtt(st, rs);
        b.update_gains();
        let bw = b.bbr_bw();
        b.set_pacing_rate(st, bw, b.pacing_gain);
        b.set_cwnd(st, rs, bw, b.cwnd_gain);
    }

    fn controls_window(&self) -> bool {
        true
    }

    fn wants_pacing(&self) -> bool {
        true
    }

    fn bw_estimate(&self) -> Option<f64> {
        let b = &*self.0;
        Some(b.bbr_bw() * b.p.mss)
    }

    fn mode(&self) -> Option<f64> {
        let b = &*self.0;
        Some(b.mode as u8 as f64)
    }

    fn min_rtt_estimate(&self) -> Option<f64> {
        let b = &*self.0;
        (b.min_rtt != SimTime::MAX).then(|| b.min_rtt.as_secs_f64())
    }
}

#[cfg(test)]
mod tests;
