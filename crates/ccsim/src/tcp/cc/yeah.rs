//! YeAH-TCP — Baiocchi, Castellani & Vacirca, "YeAH-TCP: Yet Another Highspeed TCP",
//! PFLDnet 2007; as Linux `net/ipv4/tcp_yeah.c`.
//!
//! Two modes, chosen once per round trip from a Vegas estimate of the flow's packets in the
//! bottleneck queue, `Q = cwnd·(RTT − BaseRTT)/RTT`, and of the queueing delay
//! `RTT − BaseRTT`:
//! - **fast**: while `Q ≤ α` (80 packets) and the queueing delay is at most BaseRTT/φ (φ = 8),
//!   the window grows as Scalable TCP's (one segment per `min(cwnd, 100)` acknowledged);
//! - **slow**: otherwise it grows as Reno's, and if `Q > α` it also drains its own queue at
//!   once, `cwnd ← max(cwnd − min(Q/γ, cwnd/2^ε), reno_count)` with γ = 1, ε = 1, and sets
//!   ssthresh there (precautionary decongestion).
//!
//! On a loss, a flow that has been in the slow mode for fewer than ρ = 16 rounds (so the loss
//! is not taken as competition with Reno flows) removes only its queue:
//! `reduction = Q_last` clamped to [cwnd/2^δ, max(cwnd/2, 2)] (δ = 3: at least an eighth);
//! after ρ slow rounds it halves, as Reno. `reno_count`, the estimate of the window a Reno flow
//! would have, is set to half the window on the first slow round and grows by one per slow
//! round after; it is halved (at least 2) at each loss and reset to 2 after ζ = 50 fast rounds.
//!
//! Linux's details, kept: the Vegas machinery of `tcp_vegas.c` (RTT samples in µs plus 1;
//! BaseRTT the smallest since the last restart; the round's RTT the smallest of its samples;
//! a round ends on the first ACK past the `snd_nxt` recorded at its start; nothing computed
//! from a round with 2 samples or fewer; returning to Open starts a fresh round; a restart on
//! `TxStart`, and, as Linux raises it for the retransmission after a timeout, on `Timeout`).
//! Q is computed from the window's whole part and truncated. The slow-start ACKs are not
//! given to the avoidance, but the round's computation still runs. The slow-mode count
//! saturates at 2²⁴ − 1.
//!
//! Departures, in ccsim's conventions: the window is continuous (Scalable's and Reno's
//! increases add `acked/min(cwnd, 100)` and `acked/cwnd` per ACK; the decongestion takes the
//! whole reduction off the continuous window), and the loss response uses `min(cwnd, rwnd)`
//! and its halves and eighths without truncation. Linux's `ssthresh` hook also halves
//! `reno_count` and clears the fast-round count; ccsim's is a pure function, so that is done
//! when the reduction begins (`set_state`; not for a loss in a window already cut for an ECN
//! echo, which gets no second threshold). The RTT samples are the sender's (see `veno.rs`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig,
    CongestionControl, ParamError, TcpState,
};

/// Linux's "no sample" value of the Vegas RTTs, microseconds.
const NO_RTT_US: u64 = 0x7fff_ffff;
/// Segments acknowledged per one-segment increase in the fast mode, once the window is at
/// least this large (Linux `TCP_SCALABLE_AI_CNT`).
const SCALABLE_AI_CNT: f64 = 100.0;
/// The slow-mode round count saturates here (Linux `0xffffff`).
const RENO_ROUNDS_MAX: u32 = 0xff_ffff;

/// YeAH's constants, named as in Linux (`TCP_YEAH_*`), which has them as constants only.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct YeahConfig {
    /// Packets of the flow's own in the queue above which it drains them (precautionary
    /// decongestion) and leaves the fast mode. Default 80 (Linux `TCP_YEAH_ALPHA`).
    pub alpha: Option<u32>,
    /// The decongestion removes Q/γ packets. Default 1 (Linux `TCP_YEAH_GAMMA`).
    pub gamma: Option<u32>,
    /// A loss removes at least cwnd/2^δ. Default 3 (Linux `TCP_YEAH_DELTA`).
    pub delta: Option<u32>,
    /// The decongestion removes at most cwnd/2^ε. Default 1 (Linux `TCP_YEAH_EPSILON`).
    pub epsilon: Option<u32>,
    /// Slow mode when the queueing delay exceeds BaseRTT/φ. Default 8 (Linux `TCP_YEAH_PHY`).
    pub phy: Option<u32>,
    /// Slow rounds after which a loss halves the window, as Reno. Default 16 (Linux
    /// `TCP_YEAH_RHO`).
    pub rho: Option<u32>,
    /// Fast rounds after which `reno_count` is reset to 2. Default 50 (Linux
    /// `TCP_YEAH_ZETA`).
    pub zeta: Option<u32>,
}

impl CcConfig for YeahConfig {
    type Algorithm = Yeah;

    fn build(&self, _ctx: &BuildContext) -> Result<Yeah, ParamError> {
        let at_least_1 = |field, v: Option<u32>, default| match v.unwrap_or(default) {
            0 => Err((field, "0 is not a whole number ≥ 1".to_string())),
            v => Ok(v),
        };
        let shift = |field, v: Option<u32>, default| match v.unwrap_or(default) {
            v if v > 31 => Err((field, format!("{v} is not a shift in 0..=31"))),
            v => Ok(v),
        };
        Ok(Yeah {
            alpha: self.alpha.unwrap_or(80),
            gamma: at_least_1("gamma", self.gamma, 1)?,
            delta: shift("delta", self.delta, 3)?,
            epsilon: shift("epsilon", self.epsilon, 1)?,
            phy: at_least_1("phy", self.phy, 8)?,
            rho: self.rho.unwrap_or(16),
            zeta: self.zeta.unwrap_or(50),
            base_rtt: NO_RTT_US,
            min_rtt: NO_RTT_US,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            last_q: 0,
            reno_rounds: 0,
            reno_count: 2,
            fast_count: 0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Yeah {
    alpha: u32,
    gamma: u32,
    delta: u32,
    epsilon: u32,
    phy: u32,
    rho: u32,
    zeta: u32,
    /// Smallest RTT sample since the last restart, µs + 1 (Linux `vegas.baseRTT`).
    base_rtt: u64,
    /// Smallest sample of the round, µs + 1 (Linux `vegas.minRTT`).
    min_rtt: u64,
    /// Samples in the round (Linux `vegas.cntRTT`).
    cnt_rtt: u32,
    /// The round ends when an ACK passes this segment (Linux `vegas.beg_snd_nxt`).
    beg_snd_nxt: u64,
    /// The last queue estimate, packets (Linux `lastQ`).
    last_q: u64,
    /// Consecutive slow-mode rounds; 0 in the fast mode (Linux `doing_reno_now`).
    reno_rounds: u32,
    /// Linux `reno_count` and `fast_count`.
    reno_count: u32,
    fast_count: u32,
}

impl Yeah {
    /// Linux `vegas_enable`: a fresh round.
    fn new_round(&mut self, st: &TcpState) {
        self.beg_snd_nxt = st.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT_US;
    }

    /// Linux `tcp_vegas_init`.
    fn restart(&mut self, st: &TcpState) {
        self.base_rtt = NO_RTT_US;
        self.new_round(st);
    }

    /// The end of a round with enough samples: the mode and the decongestion.
    fn round(&mut self, st: &mut TcpState) {
        let (rtt, base) = (self.min_rtt, self.base_rtt);
        let w = st.cwnd.floor().max(0.0) as u64;
        // BaseRTT never exceeds the round's minimum (both take every sample).
        let delay = rtt.saturating_sub(base);
        let queue = w * delay / rtt;
        if queue > self.alpha as u64 || delay > base / self.phy as u64 {
            if queue > self.alpha as u64 && w > self.reno_count as u64 {
                let reduction = (queue / self.gamma as u64).min(w >> self.epsilon);
                st.cwnd = (st.cwnd - reduction as f64).max(self.reno_count as f64);
                st.ssthresh = st.cwnd;
            }
            if self.reno_count <= 2 {
                let half = (st.cwnd.floor() as u64 >> 1).max(2);
                self.reno_count = half.min(u32::MAX as u64) as u32;
            } else {
                self.reno_count = self.reno_count.saturating_add(1);
            }
            self.reno_rounds = (self.reno_rounds + 1).min(RENO_ROUNDS_MAX);
        } else {
            self.fast_count += 1;
            if self.fast_count > self.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.reno_rounds = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Yeah {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        let w = st.cwnd.min(st.rwnd);
        let half = (w / 2.0).max(2.0);
        let reduction = if self.reno_rounds < self.rho {
            // Not competing with Reno: remove the flow's own queue, between an eighth and half.
            (self.last_q as f64)
                .min(half)
                .max(w / (1u64 << self.delta) as f64)
        } else {
            half
        };
        (w - reduction).max(2.0)
    }

    fn pkts_acked(&mut self, _st: &TcpState, ack: &AckSample) {
        let Some(r) = ack.rtt else { return };
        // Linux: `rtt_us + 1`, so that no RTT is ever zero.
        let us = (r.as_nanos() / 1000).min(NO_RTT_US - 1) + 1;
        self.base_rtt = self.base_rtt.min(us);
        self.min_rtt = self.min_rtt.min(us);
        self.cnt_rtt += 1;
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
        }
        if acked > 0.0 {
            let w = if self.reno_rounds == 0 {
                st.cwnd.min(SCALABLE_AI_CNT) // fast: Scalable
            } else {
                st.cwnd // slow: Reno
            };
            cong_avoid_ai(st, w, acked);
        }
        if st.snd_una > self.beg_snd_nxt {
            if self.cnt_rtt > 2 {
                self.round(st);
            }
            self.new_round(st);
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        match new {
            CaState::Open => self.new_round(st),
            CaState::Cwr | CaState::Recovery | CaState::Loss => {
                // What Linux's `ssthresh` also does, when the sender computed one.
                if !(new == CaState::Recovery && st.ca_state == CaState::Cwr) {
                    self.fast_count = 0;
                    self.reno_count = (self.reno_count >> 1).max(2);
                }
            }
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        if matches!(ev, CaEvent::TxStart | CaEvent::Timeout) {
            self.restart(st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn yeah() -> Yeah {
        YeahConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    /// YeAH with BaseRTT `base_ms` (µs + 1), in a round of three samples of `rtt_ms` that ends
    /// at the next ACK (the test state's snd_una 0 has passed no segment yet: the round ends
    /// when snd_una > beg_snd_nxt, so beg_snd_nxt is set below it).
    fn in_round(base_ms: u64, rtt_ms: u64, st: &mut TcpState) -> Yeah {
        let mut y = yeah();
        y.pkts_acked(st, &test_ack(1.0, Some(base_ms)));
        y.min_rtt = NO_RTT_US;
        y.cnt_rtt = 0;
        for _ in 0..3 {
            y.pkts_acked(st, &test_ack(1.0, Some(rtt_ms)));
        }
        st.snd_una = 1;
        y.beg_snd_nxt = 0;
        y
    }

    #[test]
    fn fast_mode_grows_as_scalable() {
        // cwnd 200 ≥ 100: +1/100 per segment; below 100, +1/cwnd.
        let mut y = yeah();
        let mut st = test_state(200.0, 100.0);
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 200.01).abs() < 1e-12, "{}", st.cwnd);
        let mut st = test_state(50.0, 10.0);
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 50.02).abs() < 1e-12, "{}", st.cwnd);
    }

    #[test]
    fn a_small_queue_keeps_the_fast_mode() {
        // BaseRTT 100001 µs, round RTT 105001 µs, cwnd 200 (after this ACK's 1/100: 200.01):
        // Q = ⌊200·5000/105001⌋ = ⌊9.52⌋ = 9 ≤ 80, delay 5000 ≤ 100001/8 = 12500 → fast.
        let mut st = test_state(200.0, 100.0);
        let mut y = in_round(100, 105, &mut st);
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!((y.last_q, y.reno_rounds, y.fast_count), (9, 0, 1));
        // A fresh round began at snd_nxt.
        assert_eq!((y.beg_snd_nxt, y.cnt_rtt, y.min_rtt), (200, 0, NO_RTT_US));
    }

    #[test]
    fn a_delay_above_base_over_phy_turns_to_reno_without_decongestion() {
        // RTT 115001: delay 15000 > 12500; Q = ⌊50·15000/115001⌋ = ⌊6.52⌋ = 6 ≤ 80.
        let mut st = test_state(50.0, 10.0);
        let mut y = in_round(100, 115, &mut st);
        y.cong_avoid(&mut st, &test_ack(1.0, None)); // fast increase first: 50 + 1/50
        assert_eq!((y.last_q, y.reno_rounds), (6, 1));
        assert!((st.cwnd - 50.02).abs() < 1e-12);
        // First slow round: reno_count = max(⌊50.02⌋ >> 1, 2) = 25.
        assert_eq!(y.reno_count, 25);
        // Next ACK grows as Reno: +1/50.02.
        let c = st.cwnd;
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - (c + 1.0 / c)).abs() < 1e-12);
    }

    #[test]
    fn a_queue_above_alpha_is_drained_at_once() {
        // cwnd 500, RTT 150001 vs 100001: Q = ⌊500·50000/150001⌋ = ⌊166.66⌋ = 166 > 80.
        // Reduction min(166/1, 500 >> 1 = 250) = 166 off 500.01 (the ACK's 1/100 first) →
        // 334.01, above reno_count 2; ssthresh there. reno_count then ⌊334.01⌋ >> 1 = 167.
        let mut st = test_state(500.0, 100.0);
        let mut y = in_round(100, 150, &mut st);
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 334.01).abs() < 1e-9, "{}", st.cwnd);
        assert_eq!(st.ssthresh, st.cwnd);
        assert_eq!((y.last_q, y.reno_rounds, y.reno_count), (166, 1, 167));
        // The reduction is at most half: cwnd 300 (+1/100 → 300.01) at RTT 400001:
        // Q = ⌊300·300000/400001⌋ = ⌊224.99⌋ = 224 > 300 >> 1 = 150 → cut 150.
        let mut st = test_state(300.0, 100.0);
        let mut y = in_round(100, 400, &mut st);
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 150.01).abs() < 1e-9, "{}", st.cwnd);
        assert_eq!(y.last_q, 224);
    }

    #[test]
    fn rounds_with_two_samples_or_fewer_change_nothing() {
        let mut st = test_state(500.0, 100.0);
        let mut y = in_round(100, 150, &mut st);
        y.cnt_rtt = 2;
        y.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!((st.cwnd - 500.01).abs() < 1e-9);
        assert_eq!((y.last_q, y.reno_rounds, y.cnt_rtt), (0, 0, 0));
    }

    #[test]
    fn a_loss_removes_the_queue_between_an_eighth_and_half() {
        let mut y = yeah();
        let st = test_state(400.0, 100.0);
        // lastQ 70 ∈ [400/8 = 50, 200]: 400 − 70 = 330.
        y.last_q = 70;
        assert_eq!(y.ssthresh(&st), 330.0);
        // lastQ 10 < 50: an eighth, 350.
        y.last_q = 10;
        assert_eq!(y.ssthresh(&st), 350.0);
        // lastQ 300 > 200: half, 200.
        y.last_q = 300;
        assert_eq!(y.ssthresh(&st), 200.0);
        // After ρ = 16 slow rounds: Reno's half whatever the queue.
        y.last_q = 10;
        y.reno_rounds = 16;
        assert_eq!(y.ssthresh(&st), 200.0);
        // Small windows: cwnd 3 → half max(1.5, 2) = 2 → 3 − 2 = 1 → at least 2.
        assert_eq!(y.ssthresh(&test_state(3.0, 100.0)), 2.0);
    }

    #[test]
    fn a_reduction_halves_reno_count_and_clears_the_fast_rounds() {
        let mut y = yeah();
        let mut st = test_state(400.0, 100.0);
        (y.reno_count, y.fast_count) = (41, 7);
        y.set_state(&mut st, CaState::Recovery);
        assert_eq!((y.reno_count, y.fast_count), (20, 0));
        st.ca_state = CaState::Recovery;
        y.set_state(&mut st, CaState::Open);
        (y.reno_count, y.fast_count) = (3, 7);
        st.ca_state = CaState::Open;
        y.set_state(&mut st, CaState::Loss);
        assert_eq!((y.reno_count, y.fast_count), (2, 0));
        // No second threshold for a loss in a window cut for an ECN echo.
        (y.reno_count, y.fast_count) = (40, 7);
        st.ca_state = CaState::Cwr;
        y.set_state(&mut st, CaState::Recovery);
        assert_eq!((y.reno_count, y.fast_count), (40, 7));
    }

    #[test]
    fn fifty_fast_rounds_reset_reno_count() {
        let mut st = test_state(200.0, 100.0);
        let mut y = in_round(100, 101, &mut st);
        (y.reno_count, y.fast_count) = (40, 50);
        y.cong_avoid(&mut st, &test_ack(1.0, None)); // 51 > ζ = 50
        assert_eq!((y.reno_count, y.fast_count), (2, 0));
    }

    #[test]
    fn slow_start_leftover_goes_to_avoidance_and_the_round_still_runs() {
        // cwnd 9.5, ssthresh 10, two segments: 0.5 to slow start, 1.5 left at +1/10 each.
        let mut st = test_state(9.5, 10.0);
        let mut y = in_round(100, 150, &mut st);
        y.cong_avoid(&mut st, &test_ack(2.0, None));
        // Then the round: Q = ⌊10·50000/150001⌋ = 3, delay 50000 > 12500: slow mode.
        assert!((st.cwnd - 10.15).abs() < 1e-12, "{}", st.cwnd);
        assert_eq!((y.last_q, y.reno_rounds), (3, 1));
    }

    #[test]
    fn config_checks() {
        let y = yeah();
        assert_eq!((y.alpha, y.gamma, y.delta, y.epsilon), (80, 1, 3, 1));
        assert_eq!((y.phy, y.rho, y.zeta), (8, 16, 50));
        let bad = |c: YeahConfig| c.build(&test_ctx(Profile::Linux)).unwrap_err().0;
        let d = YeahConfig::default;
        assert_eq!(
            bad(YeahConfig {
                gamma: Some(0),
                ..d()
            }),
            "gamma"
        );
        assert_eq!(
            bad(YeahConfig {
                phy: Some(0),
                ..d()
            }),
            "phy"
        );
        assert_eq!(
            bad(YeahConfig {
                delta: Some(32),
                ..d()
            }),
            "delta"
        );
        assert_eq!(
            bad(YeahConfig {
                epsilon: Some(40),
                ..d()
            }),
            "epsilon"
        );
        let e = serde_json::from_str::<YeahConfig>(r#"{"beta": 1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `beta`"), "{e}");
    }
}
