//! BBRv3 — the IETF draft (draft-ietf-ccwg-bbr, "BBR Congestion Control") as Linux's v3 code
//! (github.com/google/bbr, branch v3, `net/ipv4/tcp_bbr.c`) implements it.
//!
//! Like v1 (`bbr/`), BBRv3 paces at a gain times its bandwidth estimate and caps its flight at
//! a gain times the BDP, through Startup, Drain, ProbeBW and ProbeRTT. What v3 changes:
//!
//! - **ProbeBW** is four phases (`probe_bw.rs`): DOWN (pacing gain 0.91) until the queue is
//!   drained and 15 % of `inflight_hi` is left free, CRUISE (1.0) until it is time to probe,
//!   REFILL (1.0) for one round, UP (1.25, window gain 2.25) until the flight reaches
//!   `inflight_hi` or the bandwidth stops growing, or the loss rate passes 2 %. The time to
//!   probe is 2–3 s of wall clock, or sooner after as many rounds as a Reno flow's BDP would
//!   take (at most 63).
//! - **Loss** shapes the model, not just the window: a probe that loses more than
//!   `loss_thresh` (2 %) of its flight sets `inflight_hi`, the long-term upper bound, to the
//!   flight at which the loss rate crossed it (at least `beta` = 0.7 of the target); outside
//!   probing, each round with a loss cuts the short-term lower bounds `bw_lo` and
//!   `inflight_lo` to `beta` of themselves (not below the last round's delivery).
//! - **Startup** ends also when a round of recovery has seen 6 loss events and a loss rate
//!   above 2 %; the bandwidth filter keeps the maxima of the last two ProbeBW cycles.
//! - **ProbeRTT** comes every 5 s (its own min-RTT filter) and holds half the BDP, not 4
//!   segments; the min-RTT estimate still spans 10 s.
//!
//! Departures, in ccsim's conventions as v1's: rates are f64 segments per second, gains their
//! nominal values rather than Linux's 1/256 fixed point, times nanoseconds. Not modelled:
//! Linux's ECN response (off by default: it needs a route marked `ecn_low`), PLB, the
//! app-limited fast path (it only saves CPU), undo after a spurious recovery (ccsim has no
//! undo) and the TLP-repaired-loss hook (ccsim has no TLP). `tp->is_cwnd_limited` is the
//! sender's "largest flight this round reached the window".

mod config;
mod probe_bw;

pub use config::Bbr3Config;
use config::Params;

use super::bbr::model::{self, rank, AckAggregation, Mode, Pacing};
use super::{CaEvent, CaState, CongestionControl, RateSample, TcpState};
use crate::rng::Rng;
use crate::time::SimTime;

/// The smallest bandwidth Linux represents (one unit of `BW_SCALE`, about 715 bit/s of
/// 1500-byte segments), segments per second: `bw_lo` never goes below it.
const MIN_BW: f64 = 1e6 / (1u64 << 24) as f64;
/// ProbeBW's phases (Linux `enum bbr_pacing_gain_phase`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// How the ACKs coming back relate to a probe (Linux `enum bbr_ack_phase`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// BBRv3, its state held out of line, as v1's.
#[derive(Clone, Debug)]
pub struct Bbr3(Box<Bbr3State>);

impl std::ops::Deref for Bbr3 {
    type Target = Bbr3State;
    fn deref(&self) -> &Bbr3State {
        &self.0
    }
}

impl std::ops::DerefMut for Bbr3 {
    fn deref_mut(&mut self) -> &mut Bbr3State {
        &mut self.0
    }
}

#[derive(Clone, Debug)]
pub struct Bbr3State {
    p: Params,
    rng: Rng,
    pace: Pacing,
    agg: AckAggregation,
    pub(crate) mode: Mode,
    pub(crate) phase: Phase,
    pub(crate) pacing_gain: f64,
    pub(crate) cwnd_gain: f64,
    /// The window when the connection began (Linux `init_cwnd`).
    init_cwnd: f64,
    prior_cwnd: f64,
    prev_ca_state: CaState,
    idle_restart: bool,
    // Round counting.
    next_rtt_delivered: u64,
    round_start: bool,
    pub(crate) rounds_since_probe: u32,
    // Min RTT: the 10 s estimate, and the 5 s filter that schedules ProbeRTT.
    pub(crate) min_rtt: SimTime,
    min_rtt_stamp: SimTime,
    probe_rtt_min: SimTime,
    probe_rtt_min_stamp: SimTime,
    pub(crate) probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    // Full pipe.
    pub(crate) full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    loss_events_in_round: u32,
    // The model: upper bounds (bw_hi over the last two cycles, inflight_hi), lower bounds
    // (bw_lo, inflight_lo; infinite while unset), and the last round's delivery.
    pub(crate) bw_hi: [f64; 2],
    pub(crate) bw_lo: f64,
    pub(crate) inflight_hi: f64,
    pub(crate) inflight_lo: f64,
    pub(crate) bw_latest: f64,
    pub(crate) inflight_latest: f64,
    // Loss rounds.
    loss_round_delivered: u64,
    loss_round_start: bool,
    pub(crate) loss_in_round: bool,
    loss_in_cycle: bool,
    // ProbeBW.
    cycle_stamp: SimTime,
    pub(crate) probe_wait: SimTime,
    ack_phase: AckPhase,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: f64,
    bw_probe_up_acks: f64,
    pub(crate) bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
}

impl Bbr3State {
    fn new(p: Params, rng: Rng) -> Bbr3State {
        Bbr3State {
            pace: Pacing::new(p.mss, p.margin),
            pacing_gain: p.startup_pacing_gain,
            cwnd_gain: p.startup_cwnd_gain,
            p,
            rng,
            agg: AckAggregation::default(),
            mode: Mode::Startup,
            phase: Phase::Up,
            init_cwnd: 0.0,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            idle_restart: false,
            next_rtt_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            min_rtt: SimTime::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min: SimTime::MAX,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            loss_events_in_round: 0,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            inflight_hi: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            cycle_stamp: SimTime::ZERO,
            probe_wait: SimTime::ZERO,
            ack_phase: AckPhase::Init,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: f64::INFINITY,
            bw_probe_up_acks: 0.0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
        }
    }

    /// Linux `bbr_max_bw`: the larger of the two cycles' maxima.
    pub(crate) fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// Linux `bbr_bw`: the bandwidth in use, the maximum bounded by `bw_lo`.
    pub(crate) fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    pub(crate) fn bdp(&self, bw: f64, gain: f64) -> f64 {
        model::bdp(bw, self.min_rtt, gain, self.init_cwnd)
    }

    /// Linux v3 `bbr_tso_segs_generic` for `mss_cache`: about 1 ms of the pacing rate
    /// (`sk_pacing_shift` 10), plus 64 KB halved for every 512 µs of min RTT
    /// (`bbr_tso_rtt_shift`), at most a 64 KB burst, at least `tcp_min_tso_segs` (2).
    fn tso_segs_goal(&self, st: &TcpState) -> f64 {
        let mut bytes = (st.pacing_rate / 1024.0).floor();
        if self.min_rtt != SimTime::MAX {
            let r = (self.min_rtt.as_nanos() / 1000) >> 9;
            if r < 32 {
                bytes += (65_536u64 >> r) as f64;
            }
        }
        let bytes = bytes.min(65_536.0 - 1.0 - 320.0);
        (bytes / self.p.mss).floor().max(2.0)
    }

    /// Linux v3 `bbr_quantization_budget`: room for three bursts, at least `cwnd_min_target`,
    /// and 2 more in ProbeBW_UP so that even a small BDP is exceeded.
    fn quantization_budget(&self, st: &TcpState, cwnd: f64) -> f64 {
        let mut cwnd = cwnd
            .max(3.0 * self.tso_segs_goal(st))
            .max(self.p.cwnd_min_target);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2.0;
        }
        cwnd
    }

    /// Linux `bbr_inflight`: the BDP at `gain` with the quantisation budget.
    pub(crate) fn inflight(&self, st: &TcpState, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(st, self.bdp(bw, gain))
    }

    /// Linux `bbr_target_inflight`: the BDP, unless congestion has cut the window below it.
    pub(crate) fn target_inflight(&self, st: &TcpState) -> f64 {
        self.inflight(st, self.bw(), 1.0).min(st.cwnd)
    }

    fn in_net_at_edt(&self, st: &TcpState, rs: &RateSample, inflight_now: u64) -> f64 {
        let burst = if self.pacing_gain > 1.0 {
            self.tso_segs_goal(st)
        } else {
            0.0
        };
        model::in_net_at_edt(st.now, rs.edt, self.bw(), inflight_now, burst)
    }

    fn save_cwnd(&mut self, st: &TcpState) {
        let probe_rtt = self.mode == Mode::ProbeRtt;
        self.prior_cwnd =
            model::saved_cwnd(self.prior_cwnd, st.cwnd, self.prev_ca_state, probe_rtt);
    }

    /// Linux `bbr_probe_rtt_cwnd`: `probe_rtt_cwnd_gain` of the BDP, at least the minimum.
    pub(crate) fn probe_rtt_cwnd(&self) -> f64 {
        let bdp = self.bdp(self.bw(), self.p.probe_rtt_cwnd_gain);
        bdp.max(self.p.cwnd_min_target)
    }

    /// Linux `bbr_is_probing_bandwidth`: Startup, REFILL and UP push the flight up.
    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// Linux `bbr_reset_full_bw`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// Linux `bbr_update_round_start`: a round ends when a segment sent after its start is
    /// delivered.
    fn update_round_start(&mut self, st: &TcpState, rs: &RateSample) {
        self.round_start = false;
        if rs.interval.is_some() && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = st.delivered;
            self.round_start = true;
        }
    }

    /// Linux `bbr_update_latest_delivery_signals`: the most delivered, and fastest, in the
    /// current loss round.
    fn update_latest_delivery_signals(&mut self, st: &TcpState, rs: &RateSample, bw: f64) {
        self.loss_round_start = false;
        if rs.interval.is_none() || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered as f64);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = st.delivered;
            self.loss_round_start = true;
        }
    }

    /// Linux `bbr_advance_latest_delivery_signals`: a new loss round starts from this sample.
    fn advance_latest_delivery_signals(&mut self, rs: &RateSample, bw: f64) {
        if self.loss_round_start {
            self.bw_latest = bw;
            self.inflight_latest = rs.delivered as f64;
        }
    }

    /// Linux `bbr_update_congestion_signals`: the bandwidth sample into `bw_hi`, losses into
    /// the round, and once a round the lower bounds.
    fn update_congestion_signals(&mut self, st: &TcpState, rs: &RateSample, bw: f64) {
        if rs.interval.is_none() || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(st);
        self.loss_in_round = false;
    }

    /// Linux `bbr_adapt_lower_bounds` (loss only: the ECN response is not modelled): outside
    /// probing, a round with losses cuts `bw_lo` and `inflight_lo` to `beta` of themselves,
    /// though not below what the last round delivered (`bbr_loss_lower_bounds`).
    fn adapt_lower_bounds(&mut self, st: &TcpState) {
        if self.is_probing_bandwidth() || !self.loss_in_round {
            return;
        }
        // `bbr_init_lower_bounds`: start from the model's bandwidth and the window.
        if self.bw_lo.is_infinite() {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo.is_infinite() {
            self.inflight_lo = st.cwnd;
        }
        let beta = self.p.beta;
        self.bw_lo = self.bw_latest.max(self.bw_lo * beta).max(MIN_BW);
        self.inflight_lo = self.inflight_latest.max((self.inflight_lo * beta).floor());
    }

    /// Linux `bbr_reset_lower_bounds`.
    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = f64::INFINITY;
    }

    /// Linux `bbr_reset_congestion_signals`: after probing, before a phase that adapts to
    /// them.
    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.loss_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// Linux `bbr_is_inflight_too_high` (loss only): more than `loss_thresh` of the sample's
    /// flight was lost.
    pub(crate) fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        rs.lost > 0
            && rs.tx_in_flight > 0
            && rs.lost as f64 > (rs.tx_in_flight as f64 * self.p.loss_thresh).floor()
    }

    /// Linux `bbr_handle_queue_too_high_in_startup`: the pipe is full, and at most what it
    /// held is safe.
    fn handle_queue_too_high_in_startup(&mut self, st: &TcpState) {
        self.full_bw_reached = true;
        let bdp = self.inflight(st, self.max_bw(), 1.0);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// Linux `bbr_check_loss_too_high_in_startup`: at the end of a round of recovery in
    /// Startup, `full_loss_cnt` loss events and a loss rate above `loss_thresh` end Startup.
    fn check_loss_too_high_in_startup(&mut self, st: &TcpState, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if self.p.full_loss_cnt > 0
            && self.loss_round_start
            && st.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.p.full_loss_cnt
            && self.is_inflight_too_high(rs)
        {
            self.handle_queue_too_high_in_startup(st);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// Linux v3 `bbr_check_full_bw_reached`: `full_bw_cnt` rounds in a row whose samples do
    /// not reach `full_bw_thresh` × the last growing one (in Startup, and again in UP).
    fn check_full_bw_reached(&mut self, rs: &RateSample, bw: f64) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        if bw >= self.full_bw * self.p.full_bw_thresh {
            self.reset_full_bw();
            self.full_bw = bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= self.p.full_bw_cnt;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// Linux v3 `bbr_check_drain`.
    fn check_drain(&mut self, st: &mut TcpState, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            st.ssthresh = self.inflight(st, self.max_bw(), 1.0); // for show, as Linux
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(st, rs, rs.in_flight) <= self.inflight(st, self.max_bw(), 1.0)
        {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(st);
        }
    }

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, st: &mut TcpState) {
        if self.probe_rtt_done.is_none_or(|d| st.now <= d) {
            return;
        }
        self.probe_rtt_min_stamp = st.now; // the next ProbeRTT is a full window away
        st.cwnd = st.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(st);
    }

    /// Linux `bbr_exit_probe_rtt`: back to Startup, or to ProbeBW's CRUISE with the probe
    /// clock restarted.
    fn exit_probe_rtt(&mut self, st: &TcpState) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(st);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Linux v3 `bbr_update_min_rtt`: the ProbeRTT filter over `probe_rtt_win` feeds the
    /// min-RTT estimate over `min_rtt_win`; ProbeRTT comes when the former expires.
    fn update_min_rtt(&mut self, st: &mut TcpState, rs: &RateSample) {
        let probe_rtt_expired = st.now > self.probe_rtt_min_stamp + self.p.probe_rtt_win;
        if let Some(rtt) = rs.rtt {
            if rtt < self.probe_rtt_min || probe_rtt_expired {
                self.probe_rtt_min = rtt;
                self.probe_rtt_min_stamp = st.now;
            }
        }
        let min_rtt_expired = st.now > self.min_rtt_stamp + self.p.min_rtt_win;
        if self.probe_rtt_min <= self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if self.p.probe_rtt_mode > SimTime::ZERO
            && probe_rtt_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(st);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = st.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples of this low-rate phase are kept out of the bandwidth filter.
            st.app_limited = (st.delivered + rs.in_flight).max(1);
            if self.probe_rtt_done.is_none() && rs.in_flight as f64 <= self.probe_rtt_cwnd() {
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

    /// Linux v3 `bbr_update_gains`.
    fn update_gains(&mut self) {
        let p = &self.p;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (p.startup_pacing_gain, p.startup_cwnd_gain),
            Mode::Drain => (p.drain_gain, p.startup_cwnd_gain),
            Mode::ProbeBw => match self.phase {
                Phase::Up => (p.up_gain, p.cwnd_gain + p.bw_probe_cwnd_gain),
                Phase::Down => (p.down_gain, p.cwnd_gain),
                Phase::Cruise | Phase::Refill => (1.0, p.cwnd_gain),
            },
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux v3 `bbr_set_cwnd`: toward the target (BDP × gain, the aggregation allowance and
    /// the quantisation budget), growing by what is delivered; no packet conservation in
    /// recovery (v3 answers losses through its bounds); ProbeRTT's cap.
    fn set_cwnd(&mut self, st: &mut TcpState, rs: &RateSample, bw: f64, gain: f64) {
        let acked = rs.acked_sacked as f64;
        let mut cwnd = st.cwnd;
        if acked > 0.0 {
            let mut target = self.bdp(bw, gain);
            if self.p.extra_acked_gain > 0.0 {
                target += self.agg.allowance(self.p.extra_acked_gain, bw);
            }
            let target = self.quantization_budget(st, target);
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || cwnd < 2.0 * self.init_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(self.p.cwnd_min_target);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        st.cwnd = cwnd;
    }

    /// Linux `bbr_bound_cwnd_for_inflight_model`: probing may reach `inflight_hi`; cruising
    /// and ProbeRTT leave the headroom free; `inflight_lo` bounds all.
    fn bound_cwnd_for_inflight_model(&self, st: &mut TcpState) {
        let mut cap = f64::INFINITY;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt
            || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise)
        {
            cap = self.inflight_with_headroom();
        }
        let cap = cap.min(self.inflight_lo).max(self.p.cwnd_min_target);
        st.cwnd = st.cwnd.min(cap);
    }

    /// Linux `bbr_inflight_with_headroom`: `inflight_hi` less `inflight_headroom` of it (at
    /// least one segment), at least `cwnd_min_target`.
    pub(crate) fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.inflight_hi * self.p.headroom).floor().max(1.0);
        (self.inflight_hi - headroom).max(self.p.cwnd_min_target)
    }

    /// Linux `bbr_note_loss`: this round, and this cycle, saw a loss.
    fn note_loss(&mut self, st: &TcpState) {
        if !self.loss_in_round {
            self.loss_round_delivered = st.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }
}

/// The hooks, on the state behind the pointer (Linux v3 `tcp_bbr_cong_ops`).
impl CongestionControl for Bbr3 {
    /// Linux `bbr_ssthresh` keeps the threshold (the window is saved in `set_state`).
    fn ssthresh(&self, st: &TcpState) -> f64 {
        st.ssthresh
    }

    /// Never called: `cong_control` sets the window.
    fn cong_avoid(&mut self, _st: &mut TcpState, _ack: &super::AckSample) {}

    /// Linux v3 `bbr_init`.
    fn init(&mut self, st: &mut TcpState) {
        let b = &mut *self.0;
        b.init_cwnd = st.cwnd.min(127.0);
        st.ssthresh = f64::INFINITY;
        b.next_rtt_delivered = st.delivered;
        b.probe_rtt_min = st.min_rtt;
        b.probe_rtt_min_stamp = st.now;
        b.min_rtt = st.min_rtt;
        b.min_rtt_stamp = st.now;
        b.pace.init_from_rtt(st, b.p.startup_pacing_gain);
        b.agg.restart(st.now);
        // Start sampling loss rounds after the first full flight is acknowledged.
        b.loss_round_delivered = st.delivered + 1;
    }

    /// Linux v3 `bbr_ssthresh` (the saved window) and `bbr_set_state`.
    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        let b = &mut *self.0;
        if rank(new) > rank(st.ca_state) && new != CaState::Open {
            b.save_cwnd(st);
        }
        if new == CaState::Loss {
            b.prev_ca_state = CaState::Loss;
            b.reset_full_bw();
            if !b.is_probing_bandwidth() && b.inflight_lo.is_infinite() {
                // The lower bound adapts from the window before the timeout.
                b.inflight_lo = st.cwnd.max(b.prior_cwnd);
            }
        } else if b.prev_ca_state == CaState::Loss {
            // `bbr_exit_loss_recovery`.
            st.cwnd = st.cwnd.max(b.prior_cwnd);
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        let b = &mut *self.0;
        if ev == CaEvent::TxStart && st.app_limited != 0 {
            b.idle_restart = true;
            b.agg.restart(st.now);
            match b.mode {
                Mode::ProbeBw => {
                    let (bw, startup, full) = (b.bw(), b.p.startup_pacing_gain, b.full_bw_reached);
                    b.pace.set(st, bw, 1.0, startup, full);
                }
                Mode::ProbeRtt => b.check_probe_rtt_done(st),
                _ => {}
            }
        }
    }

    /// Linux v3 `bbr_skb_marked_lost`: while probing, a segment whose loss puts the loss rate
    /// of its flight above `loss_thresh` sets `inflight_hi` at the flight where it crossed.
    fn skb_marked_lost(&mut self, st: &mut TcpState, rs: &RateSample) {
        let b = &mut *self.0;
        b.note_loss(st);
        if !b.bw_probe_samples || !b.is_inflight_too_high(rs) {
            return;
        }
        let rs = RateSample {
            tx_in_flight: b.inflight_hi_from_lost_skb(rs),
            ..*rs
        };
        b.handle_inflight_too_high(st, &rs);
    }

    /// Linux v3 `bbr_main`.
    fn cong_control(&mut self, st: &mut TcpState, rs: &RateSample) {
        let b = &mut *self.0;
        b.update_round_start(st, rs);
        if b.round_start {
            b.rounds_since_probe = (b.rounds_since_probe + 1).min(0xff);
        }
        let bw = rs.rate().unwrap_or(0.0);
        b.update_latest_delivery_signals(st, rs, bw);
        // `bbr_update_model`.
        b.update_congestion_signals(st, rs, bw);
        if b.p.extra_acked_gain > 0.0 && rs.acked_sacked > 0 && rs.interval.is_some() {
            let win = if b.full_bw_reached {
                b.p.extra_acked_win_rtts
            } else {
                1
            };
            let (round, model_bw, cwnd) = (b.round_start, b.bw(), st.cwnd);
            b.agg.update(
                round,
                win,
                model_bw,
                rs.delivered_time,
                rs.acked_sacked,
                cwnd,
            );
        }
        b.check_loss_too_high_in_startup(st, rs);
        b.check_full_bw_reached(rs, bw);
        b.check_drain(st, rs);
        b.update_cycle_phase(st, rs, bw);
        b.update_min_rtt(st, rs);
        // The control.
        b.update_gains();
        let model_bw = b.bw();
        let (gain, startup, full) = (b.pacing_gain, b.p.startup_pacing_gain, b.full_bw_reached);
        b.pace.set(st, model_bw, gain, startup, full);
        b.set_cwnd(st, rs, model_bw, b.cwnd_gain);
        b.bound_cwnd_for_inflight_model(st);
        b.advance_latest_delivery_signals(rs, bw);
        b.prev_ca_state = st.ca_state;
        b.loss_in_cycle |= rs.lost > 0;
    }

    fn controls_window(&self) -> bool {
        true
    }

    fn wants_pacing(&self) -> bool {
        true
    }

    fn bw_estimate(&self) -> Option<f64> {
        Some(self.bw() * self.p.mss)
    }

    /// 0 Startup, 1 Drain, 3 ProbeRTT as v1; ProbeBW by phase: 2 DOWN, 4 CRUISE, 5 REFILL,
    /// 6 UP.
    fn mode(&self) -> Option<f64> {
        Some(match (self.mode, self.phase) {
            (Mode::ProbeBw, Phase::Down) => 2.0,
            (Mode::ProbeBw, Phase::Cruise) => 4.0,
            (Mode::ProbeBw, Phase::Refill) => 5.0,
            (Mode::ProbeBw, Phase::Up) => 6.0,
            (m, _) => m as u8 as f64,
        })
    }

    fn min_rtt_estimate(&self) -> Option<f64> {
        (self.min_rtt != SimTime::MAX).then(|| self.min_rtt.as_secs_f64())
    }

    fn inflight_bounds(&self) -> Option<(f64, f64)> {
        Some((self.inflight_lo, self.inflight_hi))
    }
}

#[cfg(test)]
mod tests;
