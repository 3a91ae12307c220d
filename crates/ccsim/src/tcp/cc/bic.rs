//! BIC-TCP — Xu, Harfoush & Rhee, "Binary Increase Congestion Control for Fast, Long Distance
//! Networks", INFOCOM 2004, in the form of Linux `tcp_bic.c` (the same in Linux 2.6.22, which
//! ns-2.35 ships, and in 5.10). Spec §5.
//!
//! After a loss the window searches for the window of that loss, W_max, by binary search. Per
//! round trip, with `B = 4`, `S_max = 16` and `smooth_part = 20`:
//! - at or below `low_window` (14): Reno, one segment;
//! - below W_max: `dist = floor((W_max − cwnd)/B)` segments, at most S_max (a linear climb from
//!   far below), and `B/smooth_part = 0.2` once `dist ≤ 1` (the plateau, 8 segments below W_max);
//! - at or above W_max ("max probing"): 0.2 within B of W_max, then `(cwnd − W_max)/(B − 1)`
//!   (slow start away from W_max) up to `W_max + S_max·(B − 1)`, then S_max;
//! - before the first loss (W_max = 0) at least 5 % of the window (cnt ≤ 20).
//!
//! As in Linux the per-RTT increment `inc` is kept as `cnt = cwnd/inc`, segments acknowledged
//! per one-segment increase, and `cwnd += acked/cnt`. `dist` is floored as Linux's integer
//! division is; windows are otherwise continuous (Linux rounds cnt down to an integer).
//!
//! A loss records W_max — with fast convergence `cwnd·(1 + β)/2` when cwnd is below the previous
//! W_max, otherwise cwnd — in `set_state(Recovery | Cwr)`, and ssthresh is `max(β·cwnd, 2)`, or
//! `max(cwnd/2, 2)` at or below `low_window`. A timeout resets all state (Linux `TCP_CA_Loss`).
//!
//! Delayed-ACK compensation: cnt is divided by Linux's estimate of segments per ACK, a 4-bit
//! fixed-point moving average (`delayed_ack`) started at 2 and updated in the Open state. With
//! one segment per ACK it settles at 31/16, not 1, and current Linux also counts acknowledged
//! segments in `acked`, so Linux BIC grows about twice as fast as the figures above; ns-2.35's
//! copy counts ACKs, and the estimate then stands in for the delayed-ACK ratio as intended.
//! `delayed_ack_compensation = false` gives the nominal growth. Linux recomputes cnt at most
//! every 1/32 s unless cwnd changed; here it is recomputed on every ACK.

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{self, ParamError};
use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig,
    CongestionControl, TcpState,
};

/// BIC's parameters (the same under every profile).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BicConfig {
    /// Window kept after a loss, β, in (0, 1). Default 0.8 (Linux `beta = 819`/1024; ns-3 0.8).
    pub beta: f64,
    /// S_max: the largest increase per RTT, segments. Default 16 (Linux `max_increment`).
    pub max_increment: f64,
    /// Reno growth and halving at or below this window, segments. Default 14 (Linux `low_window`).
    pub low_window: f64,
    /// B: each RTT closes 1/B of the distance to W_max, > 1. Default 4 (Linux `BICTCP_B`).
    pub search_divisor: f64,
    /// Near W_max the increase is `search_divisor/smooth_part` per RTT, > 0. Default 20 (Linux
    /// `smooth_part`; ns-3's `SmoothPart` is 5).
    pub smooth_part: f64,
    /// Fast convergence. Default true (Linux `fast_convergence = 1`).
    pub fast_convergence: bool,
    /// Divide cnt by the estimated segments per ACK. Default true (Linux and ns-2.35).
    pub delayed_ack_compensation: bool,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            beta: 0.8,
            max_increment: 16.0,
            low_window: 14.0,
            search_divisor: 4.0,
            smooth_part: 20.0,
            fast_convergence: true,
            delayed_ack_compensation: true,
        }
    }
}

impl CcConfig for BicConfig {
    type Algorithm = Bic;

    /// The algorithm, or the field and message of an invalid parameter.
    fn build(&self, _ctx: &BuildContext) -> Result<Bic, ParamError> {
        let mut p = self.clone();
        p.beta = param::fraction("beta", p.beta)?;
        p.max_increment = param::positive("max_increment", p.max_increment)?;
        p.low_window = param::at_least("low_window", p.low_window, 0.0)?;
        p.smooth_part = param::positive("smooth_part", p.smooth_part)?;
        if !(p.search_divisor.is_finite() && p.search_divisor > 1.0) {
            return Err((
                "search_divisor",
                format!("{} is not a number > 1", p.search_divisor),
            ));
        }
        Ok(Bic {
            p,
            w_max: 0.0,
            ack_ratio: ACK_RATIO_INIT,
        })
    }
}

/// Segments per ACK × 16 before any estimate (Linux `2 << ACK_RATIO_SHIFT`).
const ACK_RATIO_INIT: u32 = 2 << 4;

#[derive(Clone, Debug)]
pub struct Bic {
    p: BicConfig,
    /// Window before the last loss, after fast convergence (`last_max_cwnd`); 0 until the first
    /// loss and after a timeout.
    w_max: f64,
    /// Segments per ACK × 16 (`delayed_ack`).
    ack_ratio: u32,
}

impl Bic {
    /// Linux `bictcp_update`: segments acknowledged per one-segment increase at window `cwnd`.
    fn cnt(&self, cwnd: f64) -> f64 {
        let p = &self.p;
        let (b, s_max, w_max) = (p.search_divisor, p.max_increment, self.w_max);
        if cwnd <= p.low_window {
            return cwnd; // start off like Reno
        }
        let mut cnt = if cwnd < w_max {
            // binary search towards W_max
            let dist = ((w_max - cwnd) / b).floor();
            if dist > s_max {
                cwnd / s_max
            } else if dist <= 1.0 {
                cwnd * p.smooth_part / b
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + b {
            cwnd * p.smooth_part / b
        } else if cwnd < w_max + s_max * (b - 1.0) {
            cwnd * (b - 1.0) / (cwnd - w_max)
        } else {
            cwnd / s_max
        };
        if w_max == 0.0 {
            cnt = cnt.min(20.0); // slow start or very low utilisation: ≥ 5 % per RTT
        }
        if p.delayed_ack_compensation {
            cnt = cnt * 16.0 / self.ack_ratio.max(1) as f64;
        }
        cnt.max(1.0)
    }
}

impl CongestionControl for Bic {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        let w = st.cwnd.min(st.rwnd);
        if w <= self.p.low_window {
            (w / 2.0).max(2.0)
        } else {
            (w * self.p.beta).max(2.0)
        }
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            if acked <= 0.0 {
                return;
            }
        }
        let cnt = self.cnt(st.cwnd);
        cong_avoid_ai(st, cnt, acked);
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if st.ca_state == CaState::Open {
            // ratio ← ratio·15/16 + segments/16, in Linux's 4-bit fixed point.
            let r = self.ack_ratio as u64 + ack.segments - (self.ack_ratio >> 4) as u64;
            self.ack_ratio = r.min(u32::MAX as u64) as u32;
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        match new {
            CaState::Recovery | CaState::Cwr => {
                let w = st.cwnd.min(st.rwnd);
                self.w_max = if self.p.fast_convergence && w < self.w_max {
                    w * (1.0 + self.p.beta) / 2.0
                } else {
                    w
                };
            }
            CaState::Loss => self.reset(),
            CaState::Open => {}
        }
    }

    fn cwnd_event(&mut self, _st: &mut TcpState, ev: CaEvent) {
        if ev == CaEvent::Timeout {
            self.reset();
        }
    }
}

impl Bic {
    fn reset(&mut self) {
        self.w_max = 0.0;
        self.ack_ratio = ACK_RATIO_INIT;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn nominal() -> Bic {
        BicConfig {
            delayed_ack_compensation: false,
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap()
    }

    /// A loss at window `w`: the sender asks for ssthresh, then reports Recovery.
    fn loss(b: &mut Bic, w: f64) -> f64 {
        let mut st = test_state(w, f64::INFINITY);
        let ss = b.ssthresh(&st);
        b.set_state(&mut st, CaState::Recovery);
        ss
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn loss_keeps_beta_of_the_window_and_halves_at_or_below_low_window() {
        let mut b = nominal();
        assert!(close(loss(&mut b, 1000.0), 800.0)); // 0.8 · 1000
        assert!(close(loss(&mut b, 14.0), 7.0)); // ≤ low_window 14: 14/2
        assert_eq!(loss(&mut b, 3.0), 2.0); // 1.5, floored at 2
    }

    #[test]
    fn binary_search_steps_below_w_max() {
        let mut b = nominal();
        loss(&mut b, 1000.0); // W_max = 1000 (first loss: no fast convergence)
        assert_eq!(b.w_max, 1000.0);
        // cwnd 800: dist = floor(200/4) = 50 > S_max 16 → linear, 16 per RTT: cnt = 800/16 = 50
        assert!(close(b.cnt(800.0), 50.0));
        // cwnd 950: dist = floor(50/4) = 12 → 12 per RTT: cnt = 950/12
        assert!(close(b.cnt(950.0), 950.0 / 12.0));
        // cwnd 933 (67 below): dist = floor(16.75) = 16, not above S_max → cnt = 933/16
        assert!(close(b.cnt(933.0), 933.0 / 16.0));
        // cwnd 993 (7 below): dist = floor(1.75) = 1 → plateau, 4/20 = 0.2 per RTT: cnt = 5·993
        assert!(close(b.cnt(993.0), 993.0 * 20.0 / 4.0));
        // cwnd 991 (9 below): dist = floor(2.25) = 2 → cnt = 991/2
        assert!(close(b.cnt(991.0), 991.0 / 2.0));
    }

    #[test]
    fn max_probing_above_w_max() {
        let mut b = nominal();
        loss(&mut b, 1000.0);
        // [W_max, W_max + B): 0.2 per RTT, cnt = 1002·20/4 = 5010
        assert!(close(b.cnt(1002.0), 5010.0));
        // [W_max + 4, W_max + 16·3 = 1048): (cwnd − W_max)/3 per RTT, cnt = 1020·3/20 = 153
        assert!(close(b.cnt(1020.0), 153.0));
        // from W_max + 48 on: S_max per RTT, cnt = 1100/16 = 68.75
        assert!(close(b.cnt(1100.0), 68.75));
    }

    #[test]
    fn reno_at_low_window_and_five_percent_before_any_loss() {
        let b = nominal();
        assert_eq!(b.cnt(14.0), 14.0); // ≤ low_window: cnt = cwnd, one segment per RTT
                                       // No loss yet (W_max = 0): cwnd 30 is in [0 + 4, 0 + 48) → cnt = 30·3/30 = 3
        assert!(close(b.cnt(30.0), 3.0));
        // cwnd 100 ≥ 48 → cnt = 100/16 = 6.25 (below the cap of 20)
        assert!(close(b.cnt(100.0), 6.25));
        // cwnd 1000 → 1000/16 = 62.5, capped at 20 (5 % per RTT)
        assert_eq!(b.cnt(1000.0), 20.0);
    }

    #[test]
    fn fast_convergence_and_timeout_reset() {
        let mut b = nominal();
        loss(&mut b, 1000.0);
        // A second loss below W_max: W_max = 900·(1 + 0.8)/2 = 810
        loss(&mut b, 900.0);
        assert!(close(b.w_max, 810.0));
        let mut no_fc = BicConfig {
            fast_convergence: false,
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        loss(&mut no_fc, 1000.0);
        loss(&mut no_fc, 900.0);
        assert_eq!(no_fc.w_max, 900.0);
        let mut st = test_state(900.0, 810.0);
        b.cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(b.w_max, 0.0);
    }

    #[test]
    fn avoidance_adds_acked_over_cnt_and_slow_start_carries_over() {
        let mut b = nominal();
        loss(&mut b, 1000.0);
        // cwnd 800, ssthresh 800: avoidance, cnt 50 → +2/50 for two segments
        let mut st = test_state(800.0, 800.0);
        b.cong_avoid(&mut st, &test_ack(2.0, None));
        assert!(close(st.cwnd, 800.04));
        // cwnd 799, ssthresh 800, 3 acked: +1 to 800 by slow start, then 2/50 = 800.04
        let mut st = test_state(799.0, 800.0);
        b.cong_avoid(&mut st, &test_ack(3.0, None));
        assert!(close(st.cwnd, 800.04));
    }

    #[test]
    fn delayed_ack_compensation_uses_linux_fixed_point_ratio() {
        let mut b = BicConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        loss(&mut b, 1000.0);
        // Initial estimate 2 segments per ACK (32/16): cnt 50 at cwnd 800 becomes 50·16/32 = 25.
        assert!(close(b.cnt(800.0), 25.0));
        // One segment per ACK: 32 + 1 − (32 >> 4 = 2) = 31, then 31 + 1 − (31 >> 4 = 1) = 31.
        let st = test_state(800.0, 800.0);
        b.pkts_acked(&st, &test_ack(1.0, None));
        assert_eq!(b.ack_ratio, 31);
        b.pkts_acked(&st, &test_ack(1.0, None));
        assert_eq!(b.ack_ratio, 31);
        assert!(close(b.cnt(800.0), 50.0 * 16.0 / 31.0));
        // Two segments per ACK: 31 + 2 − 1 = 32, then 32 + 2 − 2 = 32.
        b.pkts_acked(&st, &test_ack(2.0, None));
        b.pkts_acked(&st, &test_ack(2.0, None));
        assert_eq!(b.ack_ratio, 32);
        // Not updated outside the Open state.
        let mut rec = test_state(800.0, 800.0);
        rec.ca_state = CaState::Recovery;
        b.pkts_acked(&rec, &test_ack(10.0, None));
        assert_eq!(b.ack_ratio, 32);
    }

    #[test]
    fn invalid_parameters_name_their_field() {
        let bad = |c: BicConfig| c.build(&test_ctx(Profile::Linux)).unwrap_err().0;
        let d = BicConfig::default;
        assert_eq!(bad(BicConfig { beta: 1.2, ..d() }), "beta");
        assert_eq!(
            bad(BicConfig {
                max_increment: 0.0,
                ..d()
            }),
            "max_increment"
        );
        assert_eq!(
            bad(BicConfig {
                search_divisor: 1.0,
                ..d()
            }),
            "search_divisor"
        );
        assert_eq!(
            bad(BicConfig {
                smooth_part: -1.0,
                ..d()
            }),
            "smooth_part"
        );
    }
}
