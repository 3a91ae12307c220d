//! NDCA-TCP — Park et al., "Network Dependent Congestion Avoidance TCP", the pseudo-code of
//! its Fig. 4, built on Reno as the paper's ns-2
//! code was.
//!
//! Every `max(1, ⌊cwnd/N⌋)` ACKs the sender updates a bandwidth estimate (TCP-Jersey's, eqs.
//! 3–4): with Δ the time since the previous update and `r = Δ/(BaseRTT + Δ)`,
//! `BW ← (1 − r)·BW + r·(bytes acked since then)/Δ`, and sets the estimated threshold
//! `cwnd_essthresh = ⌊BW·BaseRTT/MSS⌋` (eq. 5). Below it the window grows by one per ACK (slow
//! start, intervals A and C); above it by 1/cwnd (interval B), unless the flow is holding
//! (interval D). After triple duplicate ACKs the window halves and the estimate restarts from
//! zero, so slow start resumes up to the newly measured threshold.
//!
//! Choices where the paper is silent (see `docs/design.md`):
//! - The hold ("BW == maxBW" in Fig. 4) starts when the RTT exceeds α·BaseRTT (α 1.2) and ends
//!   when a smaller BaseRTT is measured or at a loss (§3.4). "The RTT" is the smallest sample of
//!   a round (as Vegas measures), so a single sample stretched by a delayed ACK does not stop
//!   the flow's growth for good. Rounds count in the open state only, the first beginning as
//!   the sender leaves recovery: samples from before a loss and during recovery do not re-arm
//!   the hold the loss ended.
//! - Fig. 4 grows the window per ACK (ns-2 counts ACKs); where segments are counted, an ACK
//!   for k segments is k ACKs, so the window passes `cwnd_essthresh` by at most one segment
//!   in slow start, as Fig. 4's `cwnd += 1` does.
//! - Until the first estimate exists (the first update needs two ACK times) the connection
//!   slow-starts under its ordinary ssthresh, as interval A describes.
//! - "packetSize × ackCount" is the bytes the ACKs since the last update acknowledged (eq. 3's
//!   `PacketSize_k`), so delayed ACKs are counted correctly.
//! - The estimated threshold is mirrored into ssthresh so traces show it.

use schemars::JsonSchema;
use serde::Deserialize;

use super::reno::Reno;
use super::{AckSample, BuildContext, CaState, CcConfig, CongestionControl, ParamError, TcpState};
use crate::time::SimTime;

#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NdcaConfig {
    /// Sampling parameter N: every ACK below N segments, every ⌊cwnd/N⌋ ACKs above (Fig. 4: 10).
    #[serde(default)]
    pub n: Option<u32>,
    /// Hold the window while RTT > α·BaseRTT (not given in the paper; default 1.2).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Whether the hold of interval D is used (default true).
    #[serde(default)]
    pub hold: Option<bool>,
}

impl CcConfig for NdcaConfig {
    type Algorithm = Ndca;

    fn build(&self, _ctx: &BuildContext) -> Result<Ndca, ParamError> {
        let n = self.n.unwrap_or(10);
        if n == 0 {
            return Err(("n", "must be at least 1".into()));
        }
        let alpha = self.alpha.unwrap_or(1.2);
        if !(alpha.is_finite() && alpha > 1.0) {
            return Err(("alpha", format!("{alpha} must be greater than 1")));
        }
        Ok(Ndca {
            n: n as f64,
            alpha,
            hold_enabled: self.hold.unwrap_or(true),
            base_rtt: SimTime::MAX,
            pre_time: None,
            pre_bw: 0.0,
            ack_cnt: 0,
            bytes: 0.0,
            essthresh: None,
            holding: false,
            round_min: SimTime::MAX,
            round_end: 0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Ndca {
    n: f64,
    alpha: f64,
    hold_enabled: bool,
    base_rtt: SimTime,
    /// Time of the previous estimate update (`preTime`).
    pre_time: Option<SimTime>,
    /// The estimate, bytes per second (`preBW`).
    pre_bw: f64,
    /// ACKs and bytes acknowledged since the previous update.
    ack_cnt: u32,
    bytes: f64,
    /// `cwnd_essthresh`, segments; None before the first estimate.
    essthresh: Option<f64>,
    /// Interval D: growth held since RTT exceeded α·BaseRTT.
    holding: bool,
    /// Smallest RTT sample of the current round, which ends when SND.UNA passes `round_end`.
    round_min: SimTime,
    round_end: u64,
}

impl Ndca {
    pub fn estimate(&self) -> f64 {
        self.pre_bw
    }

    pub fn essthresh(&self) -> Option<f64> {
        self.essthresh
    }

    /// Fig. 4, "when an ACK for a new packet arrives".
    fn sample(&mut self, st: &TcpState, bytes: f64) {
        self.ack_cnt += 1;
        self.bytes += bytes;
        let interval = if st.cwnd < self.n {
            1.0
        } else {
            (st.cwnd / self.n).floor()
        };
        if (self.ack_cnt as f64) < interval {
            return;
        }
        let now = st.now;
        let Some(pre) = self.pre_time else {
            self.pre_time = Some(now);
            self.ack_cnt = 0;
            self.bytes = 0.0;
            return;
        };
        let dt = (now - pre).as_secs_f64();
        if dt <= 0.0 || self.base_rtt == SimTime::MAX {
            return; // ACKs at one instant: wait for time to pass
        }
        let base = self.base_rtt.as_secs_f64();
        let ratio = dt / (base + dt);
        let cur = self.bytes / dt;
        let bw = (1.0 - ratio) * self.pre_bw + ratio * cur;
        self.essthresh = Some((bw * base / st.mss as f64).floor());
        self.pre_bw = bw;
        self.pre_time = Some(now);
        self.ack_cnt = 0;
        self.bytes = 0.0;
    }
}

impl CongestionControl for Ndca {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        Reno.ssthresh(st)
    }

    /// `preBW` (zero until the first update, and again from each loss until the next).
    fn bw_estimate(&self) -> Option<f64> {
        Some(self.pre_bw)
    }

    /// The hold of interval D ("BW == maxBW", §3.4).
    fn holding(&self) -> Option<bool> {
        self.hold_enabled.then_some(self.holding)
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if let Some(r) = ack.rtt {
            if r < self.base_rtt {
                // A smaller BaseRTT ends the hold (§3.4).
                self.base_rtt = r;
                self.holding = false;
            }
            if st.ca_state == CaState::Open {
                self.round_min = self.round_min.min(r);
            }
        }
        // Rounds are measured in the open state only: a loss ends the hold, and samples taken
        // while the window is being cut still carry the queue that caused the loss. A round
        // that spanned one would re-arm the hold as the sender leaves recovery, however empty
        // the queue is by then (`set_state` starts a fresh round there).
        if st.ca_state == CaState::Open && st.snd_una > self.round_end {
            let threshold = self.alpha * self.base_rtt.as_secs_f64();
            if self.hold_enabled
                && self.round_min != SimTime::MAX
                && self.round_min.as_secs_f64() > threshold
            {
                self.holding = true;
            }
            self.round_min = SimTime::MAX;
            self.round_end = st.snd_nxt;
        }
        self.sample(st, ack.segments as f64 * st.mss as f64);
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        let Some(ess) = self.essthresh else {
            Reno.cong_avoid(st, ack); // interval A before the first estimate
            return;
        };
        st.ssthresh = ess.max(2.0);
        // Fig. 4, per ACK: +1 while cwnd ≤ cwnd_essthresh, else +1/cwnd unless held. An ACK
        // for `acked` segments (counting segments, as Linux does) counts as that many ACKs:
        // +1 each until the window passes the threshold, the rest as above it, so that a
        // stretch ACK (after a timeout's retransmission fills a hole) cannot carry the window
        // far past the threshold in one step.
        let mut left = ack.acked;
        if st.cwnd <= ess {
            let step = left.min((ess - st.cwnd).floor() + 1.0);
            st.cwnd += step;
            left -= step;
        }
        if left > 0.0 && !self.holding {
            st.cwnd += left / st.cwnd;
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        // Triple duplicate ACKs: `preBW = 0; cwnd_essthresh = 0` (Fig. 4); the halving itself
        // is the sender's, via `ssthresh`. After a timeout the window restarts from 1 in slow
        // start up to the measured threshold (interval A), so the estimate is kept.
        if new == CaState::Recovery {
            self.pre_bw = 0.0;
            self.essthresh = Some(0.0);
        }
        if new != CaState::Open {
            self.holding = false; // any loss ends the hold (§3.4)
        }
        // The round that can hold the window again begins when the window is whole again.
        self.round_min = SimTime::MAX;
        self.round_end = st.snd_nxt;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn ndca() -> Ndca {
        NdcaConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    fn ack_at(c: &mut Ndca, st: &mut TcpState, ms: f64, segs: f64, rtt_ms: u64) {
        st.now = SimTime::from_secs_f64(ms / 1000.0);
        c.pkts_acked(st, &test_ack(segs, Some(rtt_ms)));
    }

    #[test]
    fn estimate_after_given_ack_timing_by_hand() {
        // MSS 1000, BaseRTT 100 ms, cwnd 5 (< N: every ACK updates).
        // ACK at 0 ms starts the clock. ACK at 10 ms with 2 segments: Δ = 10 ms,
        // r = 0.01/0.11 = 0.090909, cur = 2000 B / 0.01 s = 200 000 B/s,
        // BW = 0.090909·200 000 = 18 181.8 B/s; essthresh = ⌊18 181.8·0.1/1000⌋ = ⌊1.818⌋ = 1.
        let mut c = ndca();
        let mut st = test_state(5.0, 100.0);
        ack_at(&mut c, &mut st, 0.0, 1.0, 100);
        ack_at(&mut c, &mut st, 10.0, 2.0, 100);
        let bw1 = 0.01 / 0.11 * 200_000.0;
        assert!((c.estimate() - bw1).abs() < 1e-6);
        assert_eq!(c.essthresh(), Some(1.0));
        // Next ACK at 110 ms, 1 segment: Δ = 100 ms, r = 0.1/0.2 = 0.5, cur = 10 000 B/s,
        // BW = 0.5·18 181.8 + 0.5·10 000 = 14 090.9 B/s; essthresh = ⌊1.409⌋ = 1.
        ack_at(&mut c, &mut st, 110.0, 1.0, 100);
        assert!((c.estimate() - (0.5 * bw1 + 5_000.0)).abs() < 1e-6);
    }

    #[test]
    fn samples_every_cwnd_over_n_acks_above_n() {
        // cwnd 35, N 10: an update every ⌊35/10⌋ = 3 ACKs. ACKs 1–2 wait, the 3rd starts the
        // clock (t = 2 ms), 4–5 wait, the 6th (t = 5 ms) makes the first estimate.
        let mut c = ndca();
        let mut st = test_state(35.0, 100.0);
        let mut times = vec![];
        for ms in 0..6 {
            ack_at(&mut c, &mut st, ms as f64, 1.0, 100);
            times.push(c.pre_time.map(|t| t.as_nanos() / 1_000_000));
        }
        assert_eq!(times, [None, None, Some(2), Some(2), Some(2), Some(5)]);
        // Δ = 3 ms, 3000 B: r = 0.003/0.103, BW = r·1 000 000 B/s = 29 126.2 B/s.
        assert!((c.estimate() - 0.003 / 0.103 * 1e6).abs() < 1e-6);
    }

    #[test]
    fn slow_start_below_the_estimate_linear_above_and_hold_when_rtt_grows() {
        let mut c = ndca();
        let mut st = test_state(20.0, 1000.0);
        c.base_rtt = SimTime::from_millis(100);
        c.essthresh = Some(30.0);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 21.0); // ≤ essthresh: +1 per ACK
        assert_eq!(st.ssthresh, 30.0);
        st.cwnd = 40.0;
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 40.025); // > essthresh: +1/cwnd
                                     // A round whose smallest RTT is 130 ms > 1.2·100 ms: hold. (The round ends when
                                     // SND.UNA passes the segment sent last when it began.)
        c.round_end = 10;
        st.snd_una = 5;
        c.pkts_acked(&st, &test_ack(1.0, Some(130)));
        c.pkts_acked(&st, &test_ack(1.0, Some(140)));
        assert!(!c.holding);
        st.snd_una = 11;
        c.pkts_acked(&st, &test_ack(1.0, Some(135)));
        assert!(c.holding);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 40.025);
        // One sample of 115 ms in the next round keeps the round minimum below 120 ms: no hold
        // is started by that round (the existing one lasts until a smaller BaseRTT or a loss).
        c.holding = false;
        c.round_end = 20;
        st.snd_una = 15;
        c.pkts_acked(&st, &test_ack(1.0, Some(115)));
        c.pkts_acked(&st, &test_ack(1.0, Some(200)));
        st.snd_una = 21;
        c.pkts_acked(&st, &test_ack(1.0, Some(200)));
        assert!(!c.holding);
        // A smaller BaseRTT ends the hold.
        c.pkts_acked(&st, &test_ack(1.0, Some(90)));
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!(st.cwnd > 40.025);
    }

    #[test]
    fn a_round_spanning_a_loss_does_not_re_arm_the_hold() {
        // BaseRTT 100 ms, α 1.2: a round whose smallest RTT passes 120 ms holds the window.
        let mut c = ndca();
        c.base_rtt = SimTime::from_millis(100);
        c.holding = true;
        c.round_end = 10;
        let mut st = test_state(40.0, 1000.0);
        st.snd_una = 5;
        c.pkts_acked(&st, &test_ack(1.0, Some(130)));
        // Triple duplicate ACKs with segments up to 40 sent: the hold ends.
        st.snd_nxt = 40;
        c.set_state(&mut st, CaState::Recovery);
        st.ca_state = CaState::Recovery;
        assert!(!c.holding);
        // In recovery the ACKs carry the queue that overflowed (135 ms) and SND.UNA passes both
        // the round that began before the loss (10) and the segments sent by then (40): no hold.
        for una in [12, 41] {
            st.snd_una = una;
            c.pkts_acked(&st, &test_ack(1.0, Some(135)));
            assert!(!c.holding, "in recovery, SND.UNA {una}");
        }
        // Recovery ends with segments up to 50 sent: the first round runs to SND.UNA > 50. Its
        // smallest RTT is 101 ms (the queue has drained): no hold, though a later sample is 140.
        st.snd_nxt = 50;
        c.set_state(&mut st, CaState::Open);
        st.ca_state = CaState::Open;
        st.snd_una = 45;
        c.pkts_acked(&st, &test_ack(1.0, Some(101)));
        st.snd_nxt = 60;
        st.snd_una = 51;
        c.pkts_acked(&st, &test_ack(1.0, Some(140)));
        assert!(!c.holding);
        // The next round (to SND.UNA > 60) sees 125 and 130 ms: the queue is back, and so is
        // the hold.
        st.snd_una = 55;
        c.pkts_acked(&st, &test_ack(1.0, Some(130)));
        assert!(!c.holding);
        st.snd_una = 61;
        c.pkts_acked(&st, &test_ack(1.0, Some(125)));
        assert!(c.holding);
    }

    #[test]
    fn an_ack_for_many_segments_passes_the_threshold_by_one_segment_at_most() {
        // cwnd_essthresh 35, cwnd 30, one ACK for 10 segments = 10 ACKs of Fig. 4: +1 for each
        // of the 6 that find cwnd ≤ 35 (30 … 35 → 36), then +1/cwnd for each of the other 4
        // (36 + 4/36, as Reno's per-ACK increase is counted here).
        let mut c = ndca();
        c.essthresh = Some(35.0);
        let mut st = test_state(30.0, 1000.0);
        c.cong_avoid(&mut st, &test_ack(10.0, None));
        assert!((st.cwnd - (36.0 + 4.0 / 36.0)).abs() < 1e-12, "{}", st.cwnd);
        assert_eq!(st.ssthresh, 35.0);
        // Held: the 4 above the threshold add nothing.
        c.holding = true;
        st.cwnd = 30.0;
        c.cong_avoid(&mut st, &test_ack(10.0, None));
        assert_eq!(st.cwnd, 36.0);
        // Counting ACKs (ns-2): at cwnd = essthresh, Fig. 4's `cwnd <= cwnd_essthresh` adds 1.
        st.cwnd = 35.0;
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.cwnd, 36.0);
    }

    #[test]
    fn triple_dupack_restarts_the_estimate() {
        let mut c = ndca();
        c.pre_bw = 5e6;
        c.essthresh = Some(300.0);
        c.holding = true;
        let mut st = test_state(400.0, 1000.0);
        assert_eq!(c.ssthresh(&st), 200.0); // the window halves (Reno)
        c.set_state(&mut st, CaState::Recovery);
        assert_eq!(
            (c.estimate(), c.essthresh(), c.holding),
            (0.0, Some(0.0), false)
        );
    }
}
