//! BBRv3's ProbeBW: the DOWN → CRUISE → REFILL → UP cycle and the upper bound `inflight_hi`
//! it probes (draft-ietf-ccwg-bbr §"ProbeBW"; Linux v3 `bbr_update_cycle_phase`,
//! `bbr_adapt_upper_bounds` and their helpers).

use super::{AckPhase, Bbr3State, Phase};
use crate::tcp::cc::bbr::model::Mode;
use crate::tcp::cc::{RateSample, TcpState};
use crate::time::SimTime;

impl Bbr3State {
    /// Linux `bbr_pick_probe_wait`: the wait before the next probe — a random 0 to
    /// `bw_probe_rand_rounds` − 1 rounds counted as done, and `bw_probe_base_us` plus a random
    /// part of `bw_probe_rand_us` of wall clock.
    pub(super) fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = (self.rng.next_u64() % self.p.bw_probe_rand_rounds as u64) as u32;
        let rand = self.p.bw_probe_rand.as_nanos();
        let extra = if rand > 0 {
            self.rng.next_u64() % rand
        } else {
            0
        };
        self.probe_wait = self.p.bw_probe_base + SimTime::from_nanos(extra);
    }

    /// Linux `bbr_is_reno_coexistence_probe_time`: as many rounds as a Reno flow would take to
    /// grow by our BDP (at most `bw_probe_max_rounds`) have passed.
    pub(crate) fn is_reno_coexistence_probe_time(&self, st: &TcpState) -> bool {
        let rounds = (self.p.bw_probe_max_rounds as f64).min(self.target_inflight(st));
        self.rounds_since_probe as f64 >= rounds
    }

    /// Linux `bbr_has_elapsed_in_phase`.
    fn has_elapsed_in_phase(&self, st: &TcpState, interval: SimTime) -> bool {
        st.now > self.cycle_stamp + interval
    }

    /// Linux `bbr_start_bw_probe_refill`: forget the lower bounds, fill the pipe at 1.0 for a
    /// round.
    pub(super) fn start_bw_probe_refill(&mut self, st: &TcpState, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds;
        self.bw_probe_up_acks = 0.0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = st.delivered;
        self.phase = Phase::Refill;
    }

    /// Linux `bbr_start_bw_probe_up`.
    fn start_bw_probe_up(&mut self, st: &TcpState, bw: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = st.delivered;
        self.cycle_stamp = st.now;
        self.reset_full_bw();
        self.full_bw = bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope(st);
    }

    /// Linux `bbr_start_bw_probe_down`: a new cycle, its wait drawn, its clock started.
    pub(super) fn start_bw_probe_down(&mut self, st: &TcpState) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = st.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = st.delivered;
        self.phase = Phase::Down;
    }

    /// Linux `bbr_start_bw_probe_cruise`.
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo.is_finite() {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// Linux `bbr_raise_inflight_hi_slope`: each round of UP doubles the growth of
    /// `inflight_hi` — one segment per `cwnd / 2^rounds` delivered.
    fn raise_inflight_hi_slope(&mut self, st: &TcpState) {
        let growth_this_round = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (st.cwnd / growth_this_round).floor().max(1.0);
    }

    /// Linux `bbr_probe_inflight_hi_upward`: in UP without too much loss, while the window
    /// uses all of `inflight_hi`, raise it.
    fn probe_inflight_hi_upward(&mut self, st: &TcpState, rs: &RateSample) {
        if !rs.is_cwnd_limited || st.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += rs.acked_sacked as f64;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.bw_probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(st);
        }
    }

    /// Linux `bbr_inflight_hi_from_lost_skb`: the flight at which the loss rate crossed
    /// `loss_thresh` — the flight before the lost segment plus the part of it, `lost_prefix`,
    /// that solves (lost_prev + prefix) / (inflight_prev + prefix) = loss_thresh.
    pub(crate) fn inflight_hi_from_lost_skb(&self, rs: &RateSample) -> u64 {
        let thresh = self.p.loss_thresh;
        let Some(inflight_prev) = rs.tx_in_flight.checked_sub(1) else {
            return u64::MAX;
        };
        let Some(lost_prev) = rs.lost.checked_sub(1) else {
            return u64::MAX;
        };
        let budget = (inflight_prev as f64 * thresh).ceil();
        let prefix = if lost_prev as f64 >= budget {
            0.0
        } else {
            ((budget - lost_prev as f64) / (1.0 - thresh)).floor()
        };
        inflight_prev + prefix as u64
    }

    /// Linux `bbr_handle_inflight_too_high`: once a probe, `inflight_hi` falls to the flight
    /// that lost too much, at least `beta` × the target; UP ends.
    pub(crate) fn handle_inflight_too_high(&mut self, st: &TcpState, rs: &RateSample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // only once per probe
        if !rs.is_app_limited {
            let floor = (self.target_inflight(st) * self.p.beta).floor();
            self.inflight_hi = (rs.tx_in_flight as f64).max(floor);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down(st);
        }
    }

    /// Linux `bbr_adapt_upper_bounds`; true when it decided a state change.
    fn adapt_upper_bounds(&mut self, st: &TcpState, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The last samples of the probe: the best time to forget the older cycle's.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited && self.bw_hi[1] > 0.0 {
                // `bbr_advance_max_bw_filter`.
                self.bw_hi = [self.bw_hi[1], 0.0];
            }
            // UP stopped at `inflight_hi` without a loss: refill and probe again at once.
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(st, 0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(st, rs);
            }
        } else {
            if self.inflight_hi.is_infinite() {
                return false;
            }
            // Resilience to random loss: any phase that shows more is safe raises the bound.
            if rs.tx_in_flight as f64 > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight as f64;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(st, rs);
            }
        }
        false
    }

    /// Linux `bbr_check_time_to_probe_bw` (without the ECN re-probe): the wait or the Reno
    /// bound is over.
    fn check_time_to_probe_bw(&mut self, st: &TcpState) -> bool {
        if self.has_elapsed_in_phase(st, self.probe_wait) || self.is_reno_coexistence_probe_time(st)
        {
            self.start_bw_probe_refill(st, 0);
            return true;
        }
        false
    }

    /// Linux `bbr_check_time_to_cruise`: the flight leaves the headroom and is at most a BDP.
    fn check_time_to_cruise(&self, st: &TcpState, inflight: f64, bw: f64) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(st, bw, 1.0)
    }

    /// Linux `bbr_update_cycle_phase`.
    pub(super) fn update_cycle_phase(&mut self, st: &TcpState, rs: &RateSample, bw: f64) {
        if !self.full_bw_reached || self.adapt_upper_bounds(st, rs) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.in_net_at_edt(st, rs, rs.prior_in_flight);
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(st);
            }
            Phase::Refill => {
                // A round at 1.0: the samples now reflect the refill.
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(st, bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    // The flight is at the level that lost too much last time: stop.
                    self.stopped_risky_probe = true;
                    done = true;
                } else if rs.is_cwnd_limited && st.cwnd >= self.inflight_hi {
                    // `inflight_hi` limits the growth: the bandwidth cannot be judged.
                    self.reset_full_bw();
                    self.full_bw = bw;
                } else if self.full_bw_now {
                    done = true; // the bandwidth stopped growing
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(st);
                }
            }
            Phase::Down => {
                if !self.check_time_to_probe_bw(st)
                    && self.check_time_to_cruise(st, inflight, self.max_bw())
                {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }
}
