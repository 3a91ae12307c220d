//! The parts of BBR's model that v1 (`bbr/mod.rs`) and v3 (`bbr3/`) share, as Linux's
//! `tcp_bbr.c` of either version writes them: the four states, the pacing rate from a
//! bandwidth and a gain (`bbr_bw_to_pacing_rate`, `bbr_init_pacing_rate_from_rtt`,
//! `bbr_set_pacing_rate`), the BDP (`bbr_bdp`), the flight expected in the network at the next
//! departure (`bbr_packets_in_net_at_edt`), the window saved before a cut (`bbr_save_cwnd`)
//! and the ACK-aggregation allowance (`bbr_update_ack_aggregation`,
//! `bbr_ack_aggregation_cwnd`). Rates are segments per second (f64), windows segments.

use super::super::{CaState, TcpState};
use crate::time::SimTime;

/// BBR's state machine; v1's `cc_mode` series gives these numbers (v3 numbers its ProbeBW
/// phases apart, `bbr3/mod.rs`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// Linux's order of loss states: Open < (Disorder) < CWR < Recovery < Loss.
pub(crate) fn rank(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Cwr => 2,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

/// Linux `bbr_save_cwnd`: the "last known good" window to restore after a loss recovery or
/// ProbeRTT — the current one, unless recovery or ProbeRTT has already cut it.
pub(crate) fn saved_cwnd(prior: f64, cwnd: f64, prev_ca_state: CaState, probe_rtt: bool) -> f64 {
    if rank(prev_ca_state) < rank(CaState::Recovery) && !probe_rtt {
        cwnd
    } else {
        prior.max(cwnd)
    }
}

/// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉, or `fallback` (the initial window) before any RTT
/// sample.
pub(crate) fn bdp(bw: f64, min_rtt: SimTime, gain: f64, fallback: f64) -> f64 {
    if min_rtt == SimTime::MAX {
        return fallback;
    }
    (bw * min_rtt.as_secs_f64() * gain).ceil()
}

/// Linux `bbr_packets_in_net_at_edt`: the flight the network will hold when the next paced
/// segment leaves at `edt` — `inflight_now` plus `burst` (the departing burst, when raising
/// the flight), less what `bw` delivers meanwhile.
pub(crate) fn in_net_at_edt(
    now: SimTime,
    edt: SimTime,
    bw: f64,
    inflight_now: u64,
    burst: f64,
) -> f64 {
    let wait = edt.saturating_sub(now).as_secs_f64();
    let delivered = (bw * wait).floor();
    let at_edt = inflight_now as f64 + burst;
    (at_edt - delivered).max(0.0)
}

/// The pacing rate as both versions set it.
#[derive(Clone, Debug)]
pub(crate) struct Pacing {
    pub(crate) mss: f64,
    /// 1 − `pacing_margin_percent` / 100.
    pub(crate) margin: f64,
    has_seen_rtt: bool,
}

impl Pacing {
    pub(crate) fn new(mss: f64, margin: f64) -> Pacing {
        Pacing {
            mss,
            margin,
            has_seen_rtt: false,
        }
    }

    /// Bytes per second for `bw` segments per second and a gain, less the pacing margin
    /// (Linux `bbr_bw_to_pacing_rate`).
    pub(crate) fn rate(&self, bw: f64, gain: f64) -> f64 {
        bw * self.mss * gain * self.margin
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: `gain` × cwnd / srtt, or over a nominal 1 ms
    /// before any RTT sample.
    pub(crate) fn init_from_rtt(&mut self, st: &mut TcpState, gain: f64) {
        let rtt = if st.srtt > SimTime::ZERO {
            self.has_seen_rtt = true;
            st.srtt
        } else {
            SimTime::from_millis(1)
        };
        let bw = st.cwnd.floor() / rtt.as_secs_f64();
        st.pacing_rate = self.rate(bw, gain);
    }

    /// Linux `bbr_set_pacing_rate`: never lower before the pipe is full (Startup), at the
    /// first RTT sample restart from it with `startup_gain`.
    pub(crate) fn set(
        &mut self,
        st: &mut TcpState,
        bw: f64,
        gain: f64,
        startup_gain: f64,
        full_bw_reached: bool,
    ) {
        let rate = self.rate(bw, gain);
        if !self.has_seen_rtt && st.srtt > SimTime::ZERO {
            self.init_from_rtt(st, startup_gain);
        }
        if full_bw_reached || rate > st.pacing_rate {
            st.pacing_rate = rate;
        }
    }
}

/// ACK aggregation: the most data acknowledged beyond `bw × time` in an epoch, kept in two
/// slots that alternate every few rounds (Linux `bbr_update_ack_aggregation`).
#[derive(Clone, Debug, Default)]
pub(crate) struct AckAggregation {
    epoch_stamp: SimTime,
    epoch_acked: u64,
    extra_acked: [f64; 2],
    win_rtts: u32,
    win_idx: usize,
}

/// Segments after which an epoch is reset (Linux `bbr_ack_epoch_acked_reset_thresh`).
const ACK_EPOCH_RESET: u64 = 1 << 20;
/// The allowance is at most this much time at `bw` (Linux `bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX: f64 = 0.1;

impl AckAggregation {
    /// Starts a new epoch at `now` (a restart from idle, or the connection's start).
    pub(crate) fn restart(&mut self, now: SimTime) {
        self.epoch_stamp = now;
        self.epoch_acked = 0;
    }

    /// One ACK of `acked` segments at `delivered_time`; the slots alternate every
    /// `win_rtts` rounds.
    pub(crate) fn update(
        &mut self,
        round_start: bool,
        win_rtts: u32,
        bw: f64,
        delivered_time: SimTime,
        acked: u64,
        cwnd: f64,
    ) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1f);
            if self.win_rtts >= win_rtts {
                self.win_rtts = 0;
                self.win_idx ^= 1;
                self.extra_acked[self.win_idx] = 0.0;
            }
        }
        let epoch = delivered_time.saturating_sub(self.epoch_stamp);
        let mut expected = (bw * epoch.as_secs_f64()).floor();
        if self.epoch_acked as f64 <= expected || self.epoch_acked + acked >= ACK_EPOCH_RESET {
            self.epoch_acked = 0;
            self.epoch_stamp = delivered_time;
            expected = 0.0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(0xfffff);
        let extra = (self.epoch_acked as f64 - expected).min(cwnd);
        let slot = &mut self.extra_acked[self.win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    /// Linux `bbr_ack_aggregation_cwnd`: `gain` × the larger slot, at most 100 ms of `bw`.
    pub(crate) fn allowance(&self, gain: f64, bw: f64) -> f64 {
        let max = (bw * EXTRA_ACKED_MAX).floor();
        let aggr = (gain * self.extra_acked[0].max(self.extra_acked[1])).floor();
        aggr.min(max)
    }
}
