//! CUBIC — RFC 9438 (Xu, Ha, Rhee, Goel, Eggert 2023), in the form of Linux `tcp_cubic.c`
//! (`MODULE_VERSION("2.3")`, Linux 6.x) with HyStart in slow start (Ha & Rhee, "Taming the
//! elephants: new TCP slow start", Computer Networks 55(9), 2011). `version = "2.1"` is Linux
//! 2.6.22's module, the CUBIC that ns-2.35's `Agent/TCP/Linux` runs. Spec §6, §6.1, §6.2.
//!
//! The window function, in segments and seconds (RFC 9438 §4.2):
//!
//! ```text
//! W(t) = C·(t − K)³ + W_max,    K = cbrt((W_max − cwnd_epoch)/C)
//! ```
//!
//! An epoch starts at the first ACK in congestion avoidance after a reduction, with
//! `cwnd_epoch` the window then: β·W_max after fast recovery, so `K = cbrt(W_max·(1 − β)/C)`
//! as in RFC 8312. W is concave below W_max and convex above it.
//!
//! Where this follows Linux rather than the RFC text, and why it matters:
//! - Growth is Linux's counter form: each ACK sets `cnt = cwnd/(W(t + d_min) − cwnd)` (or
//!   `100·cwnd` when the target is not above cwnd) and adds `acked/cnt`; the target is W one
//!   *minimum* RTT ahead (RFC: one smoothed RTT, capped at 1.5·cwnd), and `cnt ≥ 2` caps growth
//!   at 1.5× per RTT. Before the first loss (W_max = 0) `cnt ≤ 20`: at least 5 % per RTT.
//! - The Reno-friendly estimate grows by `α·acked/cwnd`, `α = 3(1 − β)/(1 + β)` (RFC 9438 §4.3);
//!   when it is above cwnd Linux pulls cwnd towards it within about one RTT
//!   (`cnt ≤ cwnd/(W_est − cwnd)`) instead of jumping there, and α never becomes 1.
//! - A loss sets `ssthresh = max(β·cwnd, 2)` (cwnd, not FlightSize; cwnd capped by the receiver
//!   window as Reno does here) and, with fast convergence, `W_max = cwnd·(1 + β)/2` when cwnd
//!   is below the previous W_max. The sender asks for ssthresh and then reports the state
//!   change, so W_max is recorded in `set_state(Recovery | Cwr)`.
//! - d_min is CUBIC's own minimum RTT; samples within 1 s after an epoch starts are ignored.
//! - A timeout resets everything (W_max = 0, HyStart re-armed): Linux's `TCP_CA_Loss`.
//! - No jiffies or fixed point: cnt is recomputed on every ACK in f64. Linux's 717/1024
//!   (β) and 41·10/1024 (C) are the nominal 0.7 and 0.4 rounded; α is exact, where Linux's
//!   integer `beta_scale = 15` gives 8/15 = 0.533 instead of 0.529.
//! - The sender raises `TxStart` only when the connection starts, so Linux's shift of the epoch
//!   over idle periods has nothing to do (and application-limited time is not excluded).
//!
//! HyStart (Linux 6.13+): in slow start, from `cwnd ≥ hystart_low_window`, on each RTT sample a
//! round (one window of data, `snd_una` past the `snd_nxt` of the round's start) is watched:
//! - ACK train: ACKs no more than `hystart_ack_delta` apart since the round began, for longer
//!   than `d_min/2` (no pacing here, so Linux's pacing allowance is 0);
//! - delay: after 8 samples in the round, their minimum exceeds
//!   `d_min + clamp(d_min/8, hystart_delay_min, hystart_delay_max)`.
//!
//! Either ends slow start with `ssthresh = cwnd`. Linux does it in `pkts_acked`; here that
//! hook cannot change the shared state, so the exit is applied at the start of `cong_avoid` on
//! the same ACK (the sender calls the two in that order).
//!
//! Version 2.1 (Linux 2.6.22, ns-2.35) differs: β = 0.8 (`beta = 819`); before the first loss
//! `cnt = 50`; in the convex region growth is capped at 16 segments (`max_increment`) per
//! 100 ms of d_min; there is no `cnt ≥ 2` floor and no HyStart; and growth counts ACKs, not
//! segments, with cnt divided by an estimate of segments per ACK (`delayed_ack`, a 4-bit
//! fixed-point moving average started at 2; with one segment per ACK it settles at 31/16, so
//! cnt is about halved, as in the kernel).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::param::{self, ParamError};
use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig,
    CongestionControl, TcpState,
};
use crate::config::units::Duration;
use crate::config::Profile;
use crate::time::{OptTime, SimTime};

/// Linux CUBIC module version.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum CubicVersion {
    /// Current Linux (`MODULE_VERSION("2.3")`, Linux 6.x).
    #[serde(rename = "2.3")]
    V2_3,
    /// Linux 2.6.22 (`MODULE_VERSION("2.1")`), as copied into ns-2.35.
    #[serde(rename = "2.1")]
    V2_1,
}

/// Which HyStart detectors run (Linux `hystart_detect`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HystartDetect {
    /// ACK-train length only.
    AckTrain,
    /// RTT increase only.
    Delay,
    /// Both (Linux default, `HYSTART_ACK_TRAIN | HYSTART_DELAY`).
    Both,
}

/// CUBIC's parameters. Defaults depend on the profile where noted.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CubicConfig {
    /// Window kept after a loss, β_cubic, in (0, 1). Default 0.7 (RFC 9438 §4.6; Linux
    /// `beta = 717`/1024) with version 2.3, 0.8 with version 2.1 (Linux 2.6.22 `beta = 819`/1024).
    pub beta: Option<f64>,
    /// C, segments/s³, > 0. Default 0.4 (RFC 9438 §5; Linux `bic_scale = 41` → 0.4004).
    pub c: f64,
    /// Fast convergence (RFC 9438 §4.7): after a loss below the previous W_max, remember only
    /// `cwnd·(1 + β)/2`. Default true (Linux `fast_convergence = 1`).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3, Linux `tcp_friendliness`). Default true.
    pub tcp_friendliness: bool,
    /// Linux module version: "2.3" (current Linux) or "2.1" (Linux 2.6.22, ns-2.35). Default
    /// "2.1" under the `ns2` profile, "2.3" otherwise.
    pub version: Option<CubicVersion>,
    /// HyStart in slow start. Default true under the `linux` profile with version 2.3 (Linux
    /// `hystart = 1`); false under `ns2` (CUBIC 2.1 has none) and `rfc` (RFC 9438 §4.10 asks
    /// for HyStart++, RFC 9406, which is not implemented; standard slow start is allowed).
    pub hystart: Option<bool>,
    /// HyStart detectors. Default "both" (Linux).
    pub hystart_detect: HystartDetect,
    /// HyStart runs only from this window on, segments. Default 16 (Linux `hystart_low_window`).
    pub hystart_low_window: f64,
    /// Largest ACK spacing that continues an ACK train. Default 2 ms (Linux `hystart_ack_delta_us`).
    pub hystart_ack_delta: Duration,
    /// Lower clamp of the delay threshold d_min/8. Default 4 ms (Linux `HYSTART_DELAY_MIN`).
    pub hystart_delay_min: Duration,
    /// Upper clamp of the delay threshold d_min/8. Default 16 ms (Linux `HYSTART_DELAY_MAX`;
    /// ns-3 uses 1 s).
    pub hystart_delay_max: Duration,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            beta: None,
            c: 0.4,
            fast_convergence: true,
            tcp_friendliness: true,
            version: None,
            hystart: None,
            hystart_detect: HystartDetect::Both,
            hystart_low_window: 16.0,
            hystart_ack_delta: Duration(SimTime::from_millis(2)),
            hystart_delay_min: Duration(SimTime::from_millis(4)),
            hystart_delay_max: Duration(SimTime::from_millis(16)),
        }
    }
}

impl CcConfig for CubicConfig {
    type Algorithm = Cubic;

    /// The algorithm with `profile`'s defaults for what the config leaves out.
    fn build(&self, ctx: &BuildContext) -> Result<Cubic, ParamError> {
        let profile = ctx.profile;
        let version = self.version.unwrap_or(match profile {
            Profile::Ns2 => CubicVersion::V2_1,
            Profile::Linux | Profile::Rfc => CubicVersion::V2_3,
        });
        let beta = self.beta.unwrap_or(match version {
            CubicVersion::V2_3 => 0.7,
            CubicVersion::V2_1 => 0.8,
        });
        let hystart = self
            .hystart
            .unwrap_or(profile == Profile::Linux && version == CubicVersion::V2_3);
        let (dmin, dmax) = (self.hystart_delay_min.0, self.hystart_delay_max.0);
        if dmin > dmax {
            return Err((
                "hystart_delay_max",
                format!("{dmax} is below hystart_delay_min ({dmin})"),
            ));
        }
        let hystart = hystart.then(|| {
            param::at_least("hystart_low_window", self.hystart_low_window, 0.0).map(|low| {
                HystartParams {
                    ack_train: self.hystart_detect != HystartDetect::Delay,
                    delay: self.hystart_detect != HystartDetect::AckTrain,
                    low_window: low,
                    ack_delta: self.hystart_ack_delta.0,
                    delay_min: dmin,
                    delay_max: dmax,
                }
            })
        });
        let beta = param::fraction("beta", beta)?;
        Ok(Cubic::new(Arc::new(CubicParams {
            beta,
            alpha: 3.0 * (1.0 - beta) / (1.0 + beta),
            c: param::positive("c", self.c)?,
            fast_convergence: self.fast_convergence,
            tcp_friendliness: self.tcp_friendliness,
            version,
            hystart: hystart.transpose()?,
        })))
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
struct HystartParams {
    ack_train: bool,
    delay: bool,
    low_window: f64,
    ack_delta: SimTime,
    delay_min: SimTime,
    delay_max: SimTime,
}

#[derive(Clone, Debug, PartialEq)]
struct CubicParams {
    beta: f64,
    /// α of the Reno-friendly estimate, 3(1 − β)/(1 + β) (RFC 9438 §4.3): from β once, not
    /// per ACK, where its division held up every window update.
    alpha: f64,
    c: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    version: CubicVersion,
    hystart: Option<HystartParams>,
}

/// Samples of a round before the delay detector may fire (Linux `HYSTART_MIN_SAMPLES`).
const HYSTART_MIN_SAMPLES: u32 = 8;
/// Version 2.1's cap on convex growth: segments per 100 ms of d_min (`max_increment`).
const V21_MAX_INCREMENT: f64 = 16.0;

/// HyStart's per-round state (Linux `struct bictcp`, second half).
#[derive(Clone, Debug, Default)]
struct HystartState {
    /// The exit point was found (until the next timeout).
    found: bool,
    /// Found on this ACK: `cong_avoid` sets ssthresh = cwnd.
    exit_pending: bool,
    round_start: SimTime,
    /// Time of the last ACK of the current train.
    last_ack: SimTime,
    /// `snd_nxt` when the round started: the round ends when SND.UNA passes it.
    end_seq: u64,
    /// Smallest RTT sample of the round.
    curr_rtt: OptTime,
    sample_cnt: u32,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    /// Shared by the connections built from one configuration (`Clone`): 8 bytes in each
    /// instead of 72 (docs/performance.md, memory).
    p: Arc<CubicParams>,
    /// Window before the last reduction, after fast convergence (`last_max_cwnd`); 0 until the
    /// first loss and after a timeout.
    w_max: f64,
    /// Window at the last loss (version 2.1's `loss_cwnd`); 0 until the first.
    loss_cwnd: f64,
    /// Start of the current epoch; none after a reduction.
    epoch_start: OptTime,
    /// W(t)'s plateau (`bic_origin_point`) and the time to reach it, seconds (`bic_K`).
    origin: f64,
    k: f64,
    /// Reno-friendly window estimate (`tcp_cwnd`).
    w_est: f64,
    /// Minimum RTT seen by CUBIC (`delay_min`).
    delay_min: OptTime,
    /// Version 2.1: segments per ACK × 16 (`delayed_ack`).
    ack_ratio: u32,
    hy: HystartState,
}

impl Cubic {
    fn new(p: Arc<CubicParams>) -> Cubic {
        Cubic {
            p,
            w_max: 0.0,
            loss_cwnd: 0.0,
            epoch_start: OptTime::NONE,
            origin: 0.0,
            k: 0.0,
            w_est: 0.0,
            delay_min: OptTime::NONE,
            ack_ratio: 2 << 4,
            hy: HystartState::default(),
        }
    }

    /// W(t), `t` seconds into the current epoch (RFC 9438 eq. 1).
    fn w_cubic(&self, t: f64) -> f64 {
        self.origin + self.p.c * (t - self.k).powi(3)
    }

    /// Linux `bictcp_update`: the number of segments acknowledged per one-segment increase.
    fn update(&mut self, st: &TcpState, acked: f64) -> f64 {
        let cwnd = st.cwnd;
        let epoch = match self.epoch_start.get() {
            Some(e) => e,
            None => {
                self.epoch_start = OptTime::some(st.now);
                self.start_epoch(cwnd);
                st.now
            }
        };
        let t = (st.now - epoch + self.delay_min.get().unwrap_or(SimTime::ZERO)).as_secs_f64();
        let target = self.w_cubic(t);
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100.0 * cwnd // very small increment
        };
        match self.p.version {
            CubicVersion::V2_3 => {
                if self.w_max == 0.0 {
                    // The bandwidth is still unknown: grow at least 5 % per RTT.
                    cnt = cnt.min(20.0);
                }
            }
            CubicVersion::V2_1 => {
                if let Some(d) = self.delay_min.get() {
                    if t >= self.k {
                        // At most max_increment segments per 100 ms of RTT above the plateau.
                        cnt = cnt.max(cwnd * 0.1 / (V21_MAX_INCREMENT * d.as_secs_f64()));
                    }
                }
                if self.loss_cwnd == 0.0 {
                    cnt = 50.0;
                }
            }
        }
        if self.p.tcp_friendliness {
            self.w_est += self.p.alpha * acked / cwnd;
            if self.w_est > cwnd {
                // CUBIC is slower than Reno would be: catch up within about one RTT.
                cnt = cnt.min(cwnd / (self.w_est - cwnd));
            }
        }
        match self.p.version {
            CubicVersion::V2_3 => cnt.max(2.0),
            CubicVersion::V2_1 => (cnt * 16.0 / self.ack_ratio.max(1) as f64).max(1.0),
        }
    }

    /// A new epoch at window `cwnd`: K and the plateau (RFC 9438 eq. 2), W_est = cwnd.
    fn start_epoch(&mut self, cwnd: f64) {
        self.w_est = cwnd;
        if self.w_max <= cwnd {
            self.k = 0.0;
            self.origin = cwnd;
        } else {
            self.k = ((self.w_max - cwnd) / self.p.c).cbrt();
            self.origin = self.w_max;
        }
    }

    /// A loss or ECN reduction (the side effects of Linux's `bictcp_recalc_ssthresh`).
    fn on_reduction(&mut self, st: &TcpState) {
        let w = st.cwnd.min(st.rwnd);
        self.epoch_start = OptTime::NONE;
        self.w_max = if self.p.fast_convergence && w < self.w_max {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        self.loss_cwnd = w;
        self.hy.exit_pending = false;
    }

    /// Linux `bictcp_reset` + `bictcp_hystart_reset` on entering the Loss state.
    fn reset(&mut self, st: &TcpState) {
        *self = Cubic::new(self.p.clone());
        self.hystart_round(st);
    }

    fn hystart_round(&mut self, st: &TcpState) {
        self.hy.round_start = st.now;
        self.hy.last_ack = st.now;
        self.hy.end_seq = st.snd_nxt;
        self.hy.curr_rtt = OptTime::NONE;
        self.hy.sample_cnt = 0;
    }

    /// Linux `hystart_update` with RTT sample `delay`; `d_min` is set.
    fn hystart_update(&mut self, st: &TcpState, delay: SimTime, d_min: SimTime) {
        let Some(h) = self.p.hystart else {
            return;
        };
        if st.snd_una > self.hy.end_seq {
            self.hystart_round(st);
        }
        if st.cwnd < h.low_window {
            return;
        }
        let now = st.now;
        if h.ack_train && now - self.hy.last_ack <= h.ack_delta {
            self.hy.last_ack = now;
            if now - self.hy.round_start > SimTime(d_min.0 / 2) {
                self.hy.found = true;
            }
        }
        if h.delay {
            let curr = self.hy.curr_rtt.get().map_or(delay, |c| c.min(delay));
            self.hy.curr_rtt = OptTime::some(curr);
            if self.hy.sample_cnt < HYSTART_MIN_SAMPLES {
                self.hy.sample_cnt += 1;
            } else {
                let thresh = SimTime(d_min.0 / 8).max(h.delay_min).min(h.delay_max);
                if curr > d_min + thresh {
                    self.hy.found = true;
                }
            }
        }
        if self.hy.found {
            self.hy.exit_pending = true;
        }
    }
}

impl CongestionControl for Cubic {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        (st.cwnd.min(st.rwnd) * self.p.beta).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if std::mem::take(&mut self.hy.exit_pending) && st.in_slow_start() {
            st.ssthresh = st.cwnd;
        }
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            // Version 2.1 either slow-starts or avoids congestion on an ACK, never both.
            if acked <= 0.0 || self.p.version == CubicVersion::V2_1 {
                return;
            }
        }
        if self.p.version == CubicVersion::V2_1 {
            acked = 1.0; // one `snd_cwnd_cnt` step per ACK
        }
        let cnt = self.update(st, acked);
        cong_avoid_ai(st, cnt, acked);
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if self.p.version == CubicVersion::V2_1 && st.ca_state == CaState::Open {
            // ratio ← ratio·15/16 + segments/16, in Linux's 4-bit fixed point.
            let r = self.ack_ratio as u64 + ack.segments;
            self.ack_ratio = (r - (self.ack_ratio >> 4) as u64).min(u32::MAX as u64) as u32;
        }
        let Some(rtt) = ack.rtt else {
            return;
        };
        if let Some(e) = self.epoch_start.get() {
            if st.now - e < SimTime::from_secs(1) {
                return; // discard delay samples right after a reduction
            }
        }
        let delay = rtt.max(SimTime::from_micros(1));
        let d_min = self.delay_min.get().map_or(delay, |d| d.min(delay));
        self.delay_min = OptTime::some(d_min);
        if self.p.hystart.is_some() && !self.hy.found && st.in_slow_start() {
            self.hystart_update(st, delay, d_min);
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        match new {
            CaState::Recovery | CaState::Cwr => self.on_reduction(st),
            CaState::Loss => self.reset(st),
            CaState::Open => {}
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        // Linux resets on every RTO (`tcp_set_ca_state(Loss)` runs each time); the sender here
        // reports the state change only once, so the timeout event resets too.
        if ev == CaEvent::Timeout {
            self.reset(st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;

    fn cubic(profile: Profile, hystart: bool) -> Cubic {
        CubicConfig {
            hystart: Some(hystart),
            ..Default::default()
        }
        .build(&test_ctx(profile))
        .unwrap()
    }

    fn at(cwnd: f64, ssthresh: f64, now_ms: u64) -> TcpState {
        let mut st = test_state(cwnd, ssthresh);
        st.now = SimTime::from_millis(now_ms);
        st
    }

    fn rtt_ack(ms: u64) -> AckSample {
        test_ack(1.0, Some(ms))
    }

    /// A loss at window `w` at time `now_ms`: ssthresh asked, then the Recovery state reported.
    fn loss(c: &mut Cubic, w: f64, now_ms: u64) -> f64 {
        let mut st = at(w, f64::INFINITY, now_ms);
        let ss = c.ssthresh(&st);
        c.set_state(&mut st, CaState::Recovery);
        ss
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn k_and_the_window_function_after_a_loss_at_100() {
        let mut c = cubic(Profile::Linux, false);
        c.pkts_acked(&at(100.0, f64::INFINITY, 0), &rtt_ack(100)); // d_min = 100 ms
        assert_eq!(loss(&mut c, 100.0, 5000), 70.0); // ssthresh = 0.7 · 100
        assert_eq!(c.w_max, 100.0);
        // The first ACK in avoidance (cwnd 70) starts the epoch.
        let mut st = at(70.0, 70.0, 10_000);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        // K = cbrt(100·(1 − 0.7)/0.4) = cbrt(75) = 4.217163 s; W(0) = 100 − 0.4·75 = 70,
        // W(K) = 100, W(2K) = 100 + 0.4·75 = 130.
        assert!(close(c.k, 4.217163, 1e-6), "K {}", c.k);
        assert!(close(c.w_cubic(0.0), 70.0, 1e-9));
        assert!(close(c.w_cubic(c.k), 100.0, 1e-12));
        assert!(close(c.w_cubic(2.0 * c.k), 130.0, 1e-9));
        // The target is W one d_min ahead: t = 0.1 s, (0.1 − 4.217163)³ = −69.7902,
        // W = 100 − 27.9161 = 72.0839; cnt = 70/2.0839 = 33.590; cwnd += 1/33.590 = 0.029770.
        // (The Reno estimate, 70 + 0.529/70, allows cnt up to 9256: no effect.)
        assert!(close(st.cwnd, 70.029770, 1e-6), "{}", st.cwnd);
    }

    #[test]
    fn growth_is_at_most_one_segment_per_two_acked() {
        let mut c = cubic(Profile::Linux, false);
        loss(&mut c, 100.0, 0);
        let mut st = at(70.0, 70.0, 1000);
        c.cong_avoid(&mut st, &test_ack(1.0, None)); // epoch starts at 1 s, d_min unknown
                                                     // At t = 2K = 8.434 s the target is 130: cnt = 70.0x/59.9 ≈ 1.2, raised to 2 (Linux's
                                                     // cap of 1.5× per RTT): the ACK adds 1/2.
        let before = st.cwnd;
        st.now = SimTime::from_secs_f64(1.0 + 2.0 * 4.217163);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!(close(st.cwnd - before, 0.5, 1e-12), "{}", st.cwnd - before);
    }

    #[test]
    fn reno_friendly_region_follows_the_reno_estimate() {
        let mut c = cubic(Profile::Linux, false);
        loss(&mut c, 10.0, 0); // W_max = 10
                               // Epoch at cwnd 10 ≥ W_max: K = 0, plateau 10, and all ACKs at t = 0 (no d_min): the
                               // cubic target stays 10, cnt = 100·cwnd. The Reno estimate grows α/cwnd per segment,
                               // α = 3·0.3/1.7 = 0.529412: after the first ACK W_est = 10.0529412, cnt =
                               // min(1000, 10/0.0529412) = 188.89, cwnd = 10 + 0.0529412/10 = 10.00529412.
        let mut st = at(10.0, 10.0, 1000);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!(close(st.cwnd, 10.00529412, 1e-8), "{}", st.cwnd);
        // 99 more ACKs: Reno from 10 would be between √(10² + 2α·100) = 14.35 and
        // 10 + 100α/10 = 15.29; CUBIC's window lags the estimate by about α. Pure cubic
        // growth (cnt = 100·cwnd) would add only about 0.1.
        for _ in 0..99 {
            c.cong_avoid(&mut st, &test_ack(1.0, None));
        }
        assert!(st.cwnd > 13.6 && st.cwnd < 15.3, "{}", st.cwnd);
        let mut no_friend = CubicConfig {
            tcp_friendliness: false,
            hystart: Some(false),
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        loss(&mut no_friend, 10.0, 0);
        let mut st = at(10.0, 10.0, 1000);
        for _ in 0..100 {
            no_friend.cong_avoid(&mut st, &test_ack(1.0, None));
        }
        assert!(st.cwnd < 10.11, "{}", st.cwnd);
    }

    #[test]
    fn five_percent_per_rtt_before_the_first_loss() {
        let mut c = cubic(Profile::Linux, false);
        // No loss yet: K = 0, plateau 50, target 50 → cnt = 5000, capped at 20: +1/20.
        let mut st = at(50.0, 50.0, 1000);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert!(close(st.cwnd, 50.05, 1e-12), "{}", st.cwnd);
    }

    #[test]
    fn fast_convergence_and_ssthresh() {
        let mut c = cubic(Profile::Linux, false);
        loss(&mut c, 100.0, 0);
        // Second loss below W_max = 100: W_max = 90·(1 + 0.7)/2 = 76.5
        assert!(close(loss(&mut c, 90.0, 1000), 63.0, 1e-12)); // 0.7 · 90
        assert!(close(c.w_max, 76.5, 1e-12));
        let mut no_fc = CubicConfig {
            fast_convergence: false,
            ..Default::default()
        }
        .build(&test_ctx(Profile::Linux))
        .unwrap();
        loss(&mut no_fc, 100.0, 0);
        loss(&mut no_fc, 90.0, 1000);
        assert_eq!(no_fc.w_max, 90.0);
        assert_eq!(c.ssthresh(&at(2.0, 10.0, 0)), 2.0); // 1.4, floored at 2
    }

    #[test]
    fn timeout_resets_and_early_delay_samples_are_ignored() {
        let mut c = cubic(Profile::Linux, false);
        c.pkts_acked(&at(100.0, 50.0, 0), &rtt_ack(100));
        loss(&mut c, 100.0, 1000);
        let mut st = at(70.0, 70.0, 10_000);
        c.cong_avoid(&mut st, &test_ack(1.0, None)); // epoch starts at 10 s
        c.pkts_acked(&at(70.0, 70.0, 10_500), &rtt_ack(50)); // within 1 s: ignored
        assert_eq!(c.delay_min.get(), Some(SimTime::from_millis(100)));
        c.pkts_acked(&at(70.0, 70.0, 11_000), &rtt_ack(50));
        assert_eq!(c.delay_min.get(), Some(SimTime::from_millis(50)));
        c.cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(c.w_max, 0.0);
        assert_eq!(c.delay_min.get(), None);
        assert_eq!(c.epoch_start.get(), None);
    }

    #[test]
    fn version_2_1_as_in_ns2() {
        let mut c = CubicConfig::default()
            .build(&test_ctx(Profile::Ns2))
            .unwrap();
        assert_eq!(c.p.version, CubicVersion::V2_1);
        assert!(c.p.hystart.is_none());
        assert_eq!(c.ssthresh(&at(100.0, 50.0, 0)), 80.0); // β = 0.8
                                                           // Before the first loss cnt = 50, divided by the initial 2 segments per ACK: 25, and
                                                           // growth counts ACKs: an ACK for two segments still adds 1/25.
        let mut st = at(50.0, 50.0, 1000);
        c.cong_avoid(&mut st, &test_ack(2.0, None));
        assert!(close(st.cwnd, 50.04, 1e-12), "{}", st.cwnd);
        // Convex growth is capped at 16 segments per 100 ms of d_min.
        let mut c = CubicConfig::default()
            .build(&test_ctx(Profile::Ns2))
            .unwrap();
        c.pkts_acked(&at(1000.0, 500.0, 0), &rtt_ack(100)); // d_min 100 ms; ratio 32 → 31
        loss(&mut c, 1000.0, 1000); // W_max 1000
        c.update(&at(800.0, 800.0, 10_000), 1.0); // epoch at 10 s: K = cbrt(200/0.4) = 7.937 s
                                                  // t = 20.1 s ≥ K: W = 1000 + 0.4·(12.163)³ = 1719.7, cnt = 800/919.7 = 0.87, raised to
                                                  // min_cnt = 800·0.1/(16·0.1) = 50, then ×16/31 (segments per ACK ≈ 31/16) = 25.806.
        let cnt = c.update(&at(800.0, 800.0, 30_000), 1.0);
        assert!(close(cnt, 50.0 * 16.0 / 31.0, 1e-9), "{cnt}");
    }

    /// ACK number `i` of a slow-start round: one segment acknowledged, RTT `rtt_ms`.
    fn ss_ack(c: &mut Cubic, cwnd: f64, una: u64, nxt: u64, now_us: u64, rtt_ms: u64) -> TcpState {
        let mut st = test_state(cwnd, f64::INFINITY);
        st.now = SimTime::from_micros(now_us);
        st.snd_una = una;
        st.snd_nxt = nxt;
        c.pkts_acked(&st, &rtt_ack(rtt_ms));
        st
    }

    #[test]
    fn hystart_ack_train_ends_slow_start_after_half_the_minimum_rtt() {
        let mut c = cubic(Profile::Linux, true);
        // First ACK of a round at 1 s (SND.UNA 1 passes end_seq 0): d_min = 10 ms, the round
        // and the train start. Further ACKs 1 ms apart (≤ 2 ms) continue the train; it must
        // last more than d_min/2 = 5 ms.
        ss_ack(&mut c, 20.0, 1, 21, 1_000_000, 10);
        for i in 1..=5 {
            ss_ack(&mut c, 20.0, 1 + i, 21, 1_000_000 + 1000 * i, 10);
        }
        assert!(!c.hy.found, "5 ms is not more than 5 ms");
        let mut st = ss_ack(&mut c, 20.0, 7, 21, 1_006_000, 10);
        assert!(c.hy.found);
        // Applied on the same ACK: ssthresh = cwnd, so the ACK goes to congestion avoidance.
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.ssthresh, 20.0);
        assert!(st.cwnd > 20.0 && st.cwnd < 20.1, "{}", st.cwnd);
    }

    #[test]
    fn hystart_train_breaks_on_a_gap_and_needs_the_low_window() {
        let mut c = cubic(Profile::Linux, true);
        ss_ack(&mut c, 20.0, 1, 21, 1_000_000, 10);
        for i in 1..=10 {
            // 3 ms apart: more than hystart_ack_delta, no train
            ss_ack(&mut c, 20.0, 1 + i, 21, 1_000_000 + 3000 * i, 10);
        }
        assert!(!c.hy.found);
        let mut c = cubic(Profile::Linux, true);
        for i in 0..=10 {
            ss_ack(&mut c, 15.0, 1 + i, 16, 1_000_000 + 1000 * i, 10); // cwnd 15 < 16
        }
        assert!(!c.hy.found);
    }

    #[test]
    fn hystart_delay_increase_after_eight_samples() {
        for (rtt, expect) in [(15, true), (14, false)] {
            let mut c = cubic(Profile::Linux, true);
            ss_ack(&mut c, 20.0, 1, 21, 1_000_000, 10); // round 1: d_min 10 ms
                                                        // Round 2 (SND.UNA 22 > 21), ACKs 3 ms apart (no train), RTT `rtt`. Samples 1–8
                                                        // are collected; the 9th compares the round's minimum with
                                                        // d_min + clamp(10/8 ms, 4 ms, 16 ms) = 14 ms.
            for i in 0..8 {
                ss_ack(&mut c, 20.0, 22 + i, 45, 1_100_000 + 3000 * i, rtt);
            }
            assert!(!c.hy.found);
            ss_ack(&mut c, 20.0, 30, 45, 1_124_000, rtt);
            assert_eq!(c.hy.found, expect, "rtt {rtt} ms");
        }
    }

    #[test]
    fn a_loss_cancels_a_pending_hystart_exit() {
        let mut c = cubic(Profile::Linux, true);
        c.hy.exit_pending = true;
        loss(&mut c, 30.0, 0);
        let mut st = at(21.0, 30.0, 100);
        c.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(st.ssthresh, 30.0);
    }

    #[test]
    fn profile_defaults_and_invalid_values() {
        let d = CubicConfig::default;
        let linux = d().build(&test_ctx(Profile::Linux)).unwrap();
        assert_eq!((linux.p.beta, linux.p.c), (0.7, 0.4));
        assert!(linux.p.hystart.is_some());
        assert!(d()
            .build(&test_ctx(Profile::Rfc))
            .unwrap()
            .p
            .hystart
            .is_none());
        let v21 = CubicConfig {
            version: Some(CubicVersion::V2_1),
            ..d()
        };
        let v21 = v21.build(&test_ctx(Profile::Linux)).unwrap();
        assert_eq!(v21.p.beta, 0.8);
        assert!(v21.p.hystart.is_none());
        let err = |c: CubicConfig| c.build(&test_ctx(Profile::Linux)).unwrap_err().0;
        assert_eq!(
            err(CubicConfig {
                beta: Some(1.0),
                ..d()
            }),
            "beta"
        );
        assert_eq!(err(CubicConfig { c: 0.0, ..d() }), "c");
        assert_eq!(
            err(CubicConfig {
                hystart_delay_max: Duration(SimTime::from_millis(1)),
                ..d()
            }),
            "hystart_delay_max"
        );
    }
}
