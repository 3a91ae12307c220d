//! TCP Veno — Fu & Liew, "TCP Veno: TCP Enhancement for Transmission Over Wireless Access
//! Networks", IEEE JSAC 21(2), 2003; as Linux `net/ipv4/tcp_veno.c`.
//!
//! Veno tells a random loss from a congestion loss by the flow's backlog in the bottleneck,
//! Vegas's `diff = cwnd·(RTT − BaseRTT)/RTT`. Below β (3 packets) the path is taken as
//! uncongested: Reno's growth, and a loss cuts the window by only a fifth (ssthresh =
//! cwnd·4/5). At β or above it is congested: the window grows one segment every other window
//! of ACKs, and a loss halves it.
//!
//! Linux's details, kept:
//! - RTT samples are in microseconds plus 1 (never zero); BaseRTT is the smallest since the last
//!   restart, and the "RTT" of diff is the smallest sample since the previous window update —
//!   Linux resets it after every `cong_avoid` call, not once per round trip (its comment says
//!   "for the next rtt"), so with one ACK per update it is that ACK's sample. An update with no
//!   sample since the previous one reads the sentinel 0x7fffffff µs, so diff is about 2·cwnd:
//!   congested.
//! - diff is fixed-point with one fractional bit, from integer windows, and the expected window
//!   is truncated: `diff₂ = 2·cwnd − ⌊2·cwnd·BaseRTT/RTT⌋`, compared with `β₂ = 2·β`. A backlog
//!   of 2.6 packets therefore already reads as 3 (congested).
//! - Nothing is computed until more than two RTT samples were taken since the connection began
//!   (`cntrtt`, a 16-bit count Linux never resets, wrapping as it does); until then, and outside
//!   the Open state, the window grows as Reno's. A loss response uses the last diff computed (0,
//!   uncongested, before any).
//! - `inc` alternates the congestive state's increase; `snd_cwnd_cnt`, the count of segments
//!   acknowledged that paces it, is shared with Reno's increase as in Linux
//!   (`tcp_cong_avoid_ai`) and zeroed when a reduction begins. The window is at least 2 after a
//!   Veno update.
//! - Linux restarts Veno (BaseRTT forgotten, `inc` set, enabled) on `CA_EVENT_TX_START`, which it
//!   raises for any transmission with nothing in flight: at the start and, since an RTO marks
//!   every segment lost, on the retransmission after a timeout. ccsim's sender raises `TxStart`
//!   only at the start, so the restart is also done on `Timeout`, and Veno stays enabled in the
//!   Loss state that follows, as in Linux. Fast recovery does not restart it (segments stay in
//!   flight); returning to Open only clears the round's minimum.
//!
//! Deviations, in ccsim's conventions: the window is continuous, so Reno's increase adds
//! `acked/cwnd` per ACK (Linux adds whole segments from `snd_cwnd_cnt`), integer windows are the
//! window's whole part, and the loss response scales `min(cwnd, rwnd)` without truncation, as
//! ccsim's Reno halves it. Linux's Disorder state (duplicate ACKs below the threshold) is part
//! of Open here, and there is no `snd_cwnd_clamp`. The samples are the sender's
//! (`AckSample::rtt`): with timestamps on, the echoed one, which under delayed ACKs times the
//! earlier segment of a pair (RFC 7323 §4.3); Linux gives congestion control the send-time
//! sample of the newest segment acknowledged, which is ccsim's sample with timestamps off.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    cong_avoid_ai, slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig,
    CongestionControl, ParamError, TcpState,
};

/// Linux's "no sample" value of `minrtt` and `basertt`, microseconds.
const NO_RTT_US: u32 = 0x7fff_ffff;

/// Veno's parameter. Linux has none; ns-3's `TcpVeno` makes β an attribute.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VenoConfig {
    /// Backlog, packets, from which the path is taken as congested: slower growth, and a loss
    /// halves the window instead of cutting a fifth. Default 3 (Linux `beta`, ns-3 `Beta`).
    #[serde(default)]
    pub beta: Option<f64>,
}

impl CcConfig for VenoConfig {
    type Algorithm = Veno;

    fn build(&self, _ctx: &BuildContext) -> Result<Veno, ParamError> {
        let beta = self.beta.unwrap_or(3.0);
        if !(beta.is_finite() && beta >= 0.0) {
            return Err(("beta", format!("{beta} is not a number of packets ≥ 0")));
        }
        Ok(Veno {
            beta2: 2.0 * beta,
            enabled: true,
            cnt_rtt: 0,
            min_rtt: NO_RTT_US,
            base_rtt: NO_RTT_US,
            inc: true,
            diff2: 0,
            cwnd_cnt: 0.0,
            timed_out: false,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    /// β in half packets (Linux `beta = 3 << V_PARAM_SHIFT`).
    beta2: f64,
    /// Linux `doing_veno_now`.
    enabled: bool,
    /// RTT samples since the connection began, wrapping (Linux `cntrtt`, a `u16`).
    cnt_rtt: u16,
    /// Smallest sample since the last update, µs + 1 (Linux `minrtt`).
    min_rtt: u32,
    /// Smallest sample since the last restart, µs + 1 (Linux `basertt`).
    base_rtt: u32,
    /// The congestive state grows on the next full window (Linux `inc`).
    inc: bool,
    /// The last backlog computed, half packets (Linux `diff`).
    diff2: u64,
    /// Segments acknowledged towards the next increase (Linux `snd_cwnd_cnt`).
    cwnd_cnt: f64,
    /// A timeout restarted Veno and the Loss state it leads to must not disable it.
    timed_out: bool,
}

impl Veno {
    /// Linux `veno_enable`.
    fn enable(&mut self) {
        self.enabled = true;
        self.min_rtt = NO_RTT_US;
    }

    /// Linux `tcp_veno_init`.
    fn restart(&mut self) {
        self.base_rtt = NO_RTT_US;
        self.inc = true;
        self.enable();
    }

    /// Whether the last backlog computed is below β.
    fn uncongested(&self) -> bool {
        (self.diff2 as f64) < self.beta2
    }

    /// Reno's additive increase, with Linux's `snd_cwnd_cnt` kept as `tcp_cong_avoid_ai` keeps
    /// it (credit from a larger window is dropped, whole windows are taken out).
    fn additive(&mut self, st: &mut TcpState, acked: f64) {
        let w = st.cwnd.floor().max(1.0);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0.0;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            self.cwnd_cnt -= (self.cwnd_cnt / w).floor() * w;
        }
        let cwnd = st.cwnd;
        cong_avoid_ai(st, cwnd, acked);
    }

    /// Linux `tcp_reno_cong_avoid`.
    fn reno(&mut self, st: &mut TcpState, mut acked: f64) {
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            if acked <= 0.0 {
                return;
            }
        }
        self.additive(st, acked);
    }

    /// The congestive state: one segment every other window of acknowledged segments.
    fn every_other_window(&mut self, st: &mut TcpState, acked: f64) {
        if self.cwnd_cnt >= st.cwnd.floor() {
            if self.inc {
                st.cwnd += 1.0;
                self.inc = false;
            } else {
                self.inc = true;
            }
            self.cwnd_cnt = 0.0;
        } else {
            self.cwnd_cnt += acked;
        }
    }

    /// The Veno update (Linux `tcp_veno_cong_avoid` past its sample-count test).
    fn update(&mut self, st: &mut TcpState, ack: &AckSample) {
        let w = st.cwnd.floor().max(0.0) as u64;
        let target2 = (w * self.base_rtt as u64 * 2) / self.min_rtt as u64;
        // BaseRTT never exceeds the round's minimum (both take every sample), so target ≤ cwnd.
        self.diff2 = (2 * w).saturating_sub(target2);
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
        }
        if acked > 0.0 {
            if self.uncongested() {
                self.additive(st, acked);
            } else {
                self.every_other_window(st, acked);
            }
        }
        st.cwnd = st.cwnd.max(2.0);
    }
}

impl CongestionControl for Veno {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        let w = st.cwnd.min(st.rwnd);
        if self.uncongested() {
            (w * 4.0 / 5.0).max(2.0) // random loss: cut a fifth
        } else {
            (w / 2.0).max(2.0) // congestion loss: halve
        }
    }

    fn pkts_acked(&mut self, _st: &TcpState, ack: &AckSample) {
        let Some(r) = ack.rtt else { return };
        // Linux: `rtt_us + 1`, so that neither RTT is ever zero.
        let us = (r.as_nanos() / 1000).min(NO_RTT_US as u64 - 1) as u32 + 1;
        self.base_rtt = self.base_rtt.min(us);
        self.min_rtt = self.min_rtt.min(us);
        self.cnt_rtt = self.cnt_rtt.wrapping_add(1);
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if !self.enabled {
            self.reno(st, ack.acked);
            return;
        }
        if self.cnt_rtt <= 2 {
            // Too few samples for a backlog: Reno.
            self.reno(st, ack.acked);
        } else {
            self.update(st, ack);
        }
        self.min_rtt = NO_RTT_US;
    }

    fn set_state(&mut self, _st: &mut TcpState, new: CaState) {
        if new != CaState::Open {
            // Linux zeroes snd_cwnd_cnt when a reduction begins (`tcp_init_cwnd_reduction`,
            // `tcp_enter_loss`).
            self.cwnd_cnt = 0.0;
        }
        if std::mem::take(&mut self.timed_out) && new == CaState::Loss {
            return; // restarted by the timeout's retransmission, after Linux disabled it
        }
        if new == CaState::Open {
            self.enable();
        } else {
            self.enabled = false;
        }
    }

    fn cwnd_event(&mut self, _st: &mut TcpState, ev: CaEvent) {
        match ev {
            CaEvent::TxStart => self.restart(),
            CaEvent::Timeout => {
                self.restart();
                self.timed_out = true;
            }
            CaEvent::EcnEcho | CaEvent::RecoveryExit => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;
    use crate::config::Profile;

    fn veno() -> Veno {
        VenoConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    /// Veno after three samples of `base_ms` (BaseRTT = base_ms·1000 + 1 µs), its round's
    /// minimum cleared as an update clears it.
    fn primed(base_ms: u64) -> Veno {
        let mut v = veno();
        let st = test_state(10.0, 5.0);
        for _ in 0..3 {
            v.pkts_acked(&st, &test_ack(1.0, Some(base_ms)));
        }
        v.min_rtt = NO_RTT_US;
        v
    }

    /// One ACK of one segment carrying a sample of `rtt_ms` (or none).
    fn ack(v: &mut Veno, st: &mut TcpState, rtt_ms: Option<u64>) {
        let a = test_ack(1.0, rtt_ms);
        v.pkts_acked(st, &a);
        v.cong_avoid(st, &a);
    }

    #[test]
    fn below_beta_grows_as_reno_and_a_loss_cuts_a_fifth() {
        // BaseRTT 100001 µs, sample 105001 µs, cwnd 20:
        // diff₂ = 40 − ⌊40·100001/105001⌋ = 40 − ⌊38.095⌋ = 2 < β₂ = 6 → Reno: +1/20.
        let mut v = primed(100);
        let mut st = test_state(20.0, 10.0);
        ack(&mut v, &mut st, Some(105));
        assert_eq!(v.diff2, 2);
        assert!((st.cwnd - 20.05).abs() < 1e-12, "{}", st.cwnd);
        // ssthresh = 4/5 of the window.
        st.cwnd = 30.0;
        assert_eq!(v.ssthresh(&st), 24.0);
    }

    #[test]
    fn at_beta_a_loss_halves() {
        // cwnd 40, sample 110001 µs: diff₂ = 80 − ⌊80·100001/110001⌋ = 80 − ⌊72.73⌋ = 8 ≥ 6.
        let mut v = primed(100);
        let mut st = test_state(40.0, 10.0);
        ack(&mut v, &mut st, Some(110));
        assert_eq!(v.diff2, 8);
        assert_eq!(v.ssthresh(&st), 20.0);
        assert_eq!(v.ssthresh(&test_state(3.0, 100.0)), 2.0);
    }

    #[test]
    fn the_truncated_expected_window_reads_a_backlog_of_2_6_as_3() {
        // cwnd 26, BaseRTT 100001, RTT 111001 µs: the backlog is 26·11000/111001 = 2.58 packets,
        // but ⌊52·100001/111001⌋ = ⌊46.85⌋ = 46, so diff₂ = 52 − 46 = 6: congested.
        let mut v = primed(100);
        let mut st = test_state(26.0, 10.0);
        ack(&mut v, &mut st, Some(111));
        assert_eq!(v.diff2, 6);
        assert!(!v.uncongested());
        // And cwnd 33 at 110001 µs (backlog 3.0): ⌊66·100001/110001⌋ = ⌊60.00005⌋ = 60 → 6.
        let mut st = test_state(33.0, 10.0);
        ack(&mut v, &mut st, Some(110));
        assert_eq!(v.diff2, 6);
        // cwnd 33 at 109001 µs: ⌊66·100001/109001⌋ = ⌊60.55⌋ = 60 → 6 as well (backlog 2.72).
        ack(&mut v, &mut st, Some(109));
        assert_eq!(v.diff2, 6);
        // cwnd 33 at 107001 µs: ⌊66·100001/107001⌋ = ⌊61.68⌋ = 61 → 5 (backlog 2.16): not.
        ack(&mut v, &mut st, Some(107));
        assert_eq!(v.diff2, 5);
        assert!(v.uncongested());
    }

    #[test]
    fn above_beta_the_window_grows_every_other_window() {
        // cwnd 10 (ssthresh 5), BaseRTT 100001, every sample 200001 µs:
        // diff₂ = 20 − ⌊20·100001/200001⌋ = 20 − ⌊10.00005⌋ = 10 ≥ 6. From snd_cwnd_cnt = 0,
        // ACKs 1–10 count to 10, ACK 11 finds 10 ≥ 10: +1 (inc was set) → 11. ACKs 12–22
        // count to 11, ACK 23 only sets inc; ACKs 24–34 count again and ACK 35 adds one → 12.
        let mut v = primed(100);
        let mut st = test_state(10.0, 5.0);
        let mut after = vec![];
        for _ in 0..35 {
            ack(&mut v, &mut st, Some(200));
            after.push(st.cwnd);
        }
        // The last update saw cwnd 11: 22 − ⌊22·100001/200001⌋ = 22 − ⌊11.00006⌋ = 11.
        assert_eq!(v.diff2, 11);
        assert_eq!(after[9], 10.0);
        assert_eq!(after[10], 11.0);
        assert_eq!(after[33], 11.0);
        assert_eq!(after[34], 12.0);
    }

    #[test]
    fn the_increase_count_is_shared_with_renos() {
        // cwnd 10 (ssthresh 5): 7 uncongested ACKs (sample 101001 µs: diff₂ = 20 − ⌊19.8⌋ = 1)
        // grow the window as Reno, c ← c + 1/c, and count snd_cwnd_cnt to 7 (the whole window
        // stays 10). Then congested ACKs (200001 µs) count on from 7: three reach 10, the
        // fourth adds a segment.
        let mut v = primed(100);
        let mut st = test_state(10.0, 5.0);
        let mut c = 10.0;
        for _ in 0..7 {
            ack(&mut v, &mut st, Some(101));
            c += 1.0 / c;
        }
        assert!((st.cwnd - c).abs() < 1e-12 && st.cwnd < 11.0);
        for _ in 0..3 {
            ack(&mut v, &mut st, Some(200));
        }
        assert!((st.cwnd - c).abs() < 1e-12);
        ack(&mut v, &mut st, Some(200));
        assert!(
            (st.cwnd - (c + 1.0)).abs() < 1e-12,
            "{} vs {}",
            st.cwnd,
            c + 1.0
        );
    }

    #[test]
    fn with_two_samples_or_fewer_it_is_reno_and_cuts_a_fifth() {
        // A standing queue (RTT doubles) but only two samples: Reno's +1/20, and diff stays 0.
        let mut v = veno();
        let mut st = test_state(20.0, 10.0);
        ack(&mut v, &mut st, Some(100));
        ack(&mut v, &mut st, Some(200));
        let expect = 20.0 + 1.0 / 20.0 + 1.0 / (20.0 + 1.0 / 20.0);
        assert!((st.cwnd - expect).abs() < 1e-12);
        assert_eq!(v.diff2, 0);
        st.cwnd = 20.0;
        assert_eq!(v.ssthresh(&st), 16.0);
        // The third sample turns the update on: diff₂ = 40 − ⌊40·100001/200001⌋ = 40 − 20 = 20.
        st.cwnd = 20.0;
        ack(&mut v, &mut st, Some(200));
        assert_eq!(v.diff2, 20);
    }

    #[test]
    fn an_update_without_a_sample_reads_the_sentinel_as_congestion() {
        // RTT = 0x7fffffff µs: ⌊40·100001/2147483647⌋ = 0, so diff₂ = 40 (cwnd 20).
        let mut v = primed(100);
        let mut st = test_state(20.0, 10.0);
        ack(&mut v, &mut st, None);
        assert_eq!(v.diff2, 40);
        assert_eq!(v.ssthresh(&st), 10.0);
    }

    #[test]
    fn slow_start_is_renos_but_the_backlog_is_measured() {
        let mut v = primed(100);
        let mut st = test_state(10.0, 100.0);
        ack(&mut v, &mut st, Some(200)); // diff₂ = 20 − ⌊10.00005⌋ = 10
        assert_eq!(st.cwnd, 11.0);
        assert_eq!(v.diff2, 10);
    }

    #[test]
    fn the_window_is_at_least_two_after_an_update() {
        // β = 0.5 (β₂ = 1), cwnd 1 in avoidance, RTT twice BaseRTT: diff₂ = 2 − ⌊2·100001/200001⌋
        // = 2 − ⌊1.00001⌋ = 1 ≥ 1, congested; the count (0 < 1) only advances, and the floor of
        // 2 applies.
        let mut v = VenoConfig { beta: Some(0.5) }
            .build(&test_ctx(Profile::Linux))
            .unwrap();
        let st = test_state(1.0, 1.0);
        for _ in 0..3 {
            v.pkts_acked(&st, &test_ack(1.0, Some(100)));
        }
        v.min_rtt = NO_RTT_US;
        let mut st = test_state(1.0, 1.0);
        ack(&mut v, &mut st, Some(200));
        assert_eq!(v.diff2, 1);
        assert_eq!(st.cwnd, 2.0);
    }

    #[test]
    fn outside_open_it_is_reno_and_returning_clears_the_minimum() {
        let mut v = primed(100);
        let mut st = test_state(40.0, 10.0);
        ack(&mut v, &mut st, Some(110)); // congested, diff₂ 8
        v.set_state(&mut st, CaState::Recovery);
        assert_eq!(v.cwnd_cnt, 0.0);
        st.cwnd = 20.0;
        ack(&mut v, &mut st, Some(100)); // Reno: +1/20, diff untouched
        assert!((st.cwnd - 20.05).abs() < 1e-12);
        assert_eq!(v.diff2, 8);
        // The minimum still holds 100001 µs; back in Open it is cleared.
        assert_eq!(v.min_rtt, 100_001);
        v.set_state(&mut st, CaState::Open);
        assert_eq!(v.min_rtt, NO_RTT_US);
        assert!(v.enabled);
        // Fast recovery did not forget BaseRTT.
        assert_eq!(v.base_rtt, 100_001);
    }

    #[test]
    fn a_timeout_restarts_veno_which_runs_in_the_loss_state() {
        let mut v = primed(100);
        let mut st = test_state(40.0, 10.0);
        ack(&mut v, &mut st, Some(110));
        v.inc = false;
        v.cwnd_event(&mut st, CaEvent::Timeout);
        v.set_state(&mut st, CaState::Loss);
        assert!(v.enabled && v.inc);
        assert_eq!((v.base_rtt, v.min_rtt), (NO_RTT_US, NO_RTT_US));
        // The loss response computed before the restart kept the last diff (Linux keeps it).
        assert_eq!(v.diff2, 8);
        // A later BaseRTT may be larger than the old one: 150001 µs.
        st.cwnd = 1.0;
        st.ssthresh = 20.0;
        ack(&mut v, &mut st, Some(150));
        assert_eq!(v.base_rtt, 150_001);
        assert_eq!(v.diff2, 0);
        assert_eq!(st.cwnd, 2.0);
        // A second state change to a reduction disables it again.
        v.set_state(&mut st, CaState::Recovery);
        assert!(!v.enabled);
    }

    #[test]
    fn the_sample_count_wraps_as_linuxs_u16() {
        let mut v = primed(100);
        v.cnt_rtt = u16::MAX;
        let mut st = test_state(20.0, 10.0);
        ack(&mut v, &mut st, Some(200)); // count wraps to 0: Reno, diff untouched
        assert_eq!(v.cnt_rtt, 0);
        assert_eq!(v.diff2, 0);
    }

    #[test]
    fn config_checks_beta() {
        assert_eq!(veno().beta2, 6.0);
        let v = VenoConfig { beta: Some(1.5) }.build(&test_ctx(Profile::Linux));
        assert_eq!(v.unwrap().beta2, 3.0);
        let bad = VenoConfig { beta: Some(-1.0) }.build(&test_ctx(Profile::Linux));
        assert_eq!(bad.unwrap_err().0, "beta");
        let e = serde_json::from_str::<VenoConfig>(r#"{"alpha": 1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `alpha`"), "{e}");
    }
}
