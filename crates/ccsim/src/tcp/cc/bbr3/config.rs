//! BBRv3's parameters and their checks.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bbr3, Bbr3State};
use crate::rng::Rng;
use crate::tcp::cc::param::{at_least, fraction, positive};
use crate::tcp::cc::{BuildContext, CcConfig, ParamError};
use crate::time::SimTime;

/// BBRv3's parameters, named as Linux's constants in the v3 `tcp_bbr.c` (`bbr_*`) and with its
/// defaults, written as the nominal values the draft (draft-ietf-ccwg-bbr) gives rather than
/// Linux's 1/256 fixed point. Where the draft's value differs, the parameter says so.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bbr3Config {
    /// Startup's pacing gain. Default 4 ln 2 ≈ 2.77 (`bbr_startup_pacing_gain`; the draft's
    /// BBRStartupPacingGain).
    #[serde(default)]
    pub startup_pacing_gain: Option<f64>,
    /// Startup's and Drain's window gain. Default 2 (`bbr_startup_cwnd_gain`).
    #[serde(default)]
    pub startup_cwnd_gain: Option<f64>,
    /// Drain's pacing gain. Default ln 2 / 2 ≈ 0.347 (`bbr_drain_gain`, 1/2.885; the draft
    /// rounds it to 0.35).
    #[serde(default)]
    pub drain_gain: Option<f64>,
    /// ProbeBW's window gain. Default 2 (`bbr_cwnd_gain`).
    #[serde(default)]
    pub cwnd_gain: Option<f64>,
    /// Window gain added in ProbeBW_UP. Default 0.25 (`bbr_bw_probe_cwnd_gain`, 1 in Linux's
    /// quarters: the draft's 2.25 in UP).
    #[serde(default)]
    pub bw_probe_cwnd_gain: Option<f64>,
    /// ProbeBW_UP's pacing gain. Default 1.25 (`bbr_pacing_gain[BBR_BW_PROBE_UP]`).
    #[serde(default)]
    pub probe_up_pacing_gain: Option<f64>,
    /// ProbeBW_DOWN's pacing gain. Default 0.91 (`bbr_pacing_gain[BBR_BW_PROBE_DOWN]`; the
    /// draft's is 0.9).
    #[serde(default)]
    pub probe_down_pacing_gain: Option<f64>,
    /// Bandwidth growth a round must bring to count as growing, in Startup and ProbeBW_UP.
    /// Default 1.25 (`bbr_full_bw_thresh`).
    #[serde(default)]
    pub full_bw_thresh: Option<f64>,
    /// Rounds without that growth that say the pipe is full. Default 3 (`bbr_full_bw_cnt`).
    #[serde(default)]
    pub full_bw_cnt: Option<u32>,
    /// ACKs with losses in a round of Startup's recovery that, with a loss rate above
    /// `loss_thresh`, end Startup; 0 turns this off. Default 6 (`bbr_full_loss_cnt`).
    #[serde(default)]
    pub full_loss_cnt: Option<u32>,
    /// Fraction of the flight that is kept after a congestive loss round (the draft's
    /// BBRBeta). Default 0.7 (Linux's `bbr_beta` is the 0.3 taken off).
    #[serde(default)]
    pub beta: Option<f64>,
    /// Loss rate above which a probe has put too much in flight. Default 0.02
    /// (`bbr_loss_thresh`).
    #[serde(default)]
    pub loss_thresh: Option<f64>,
    /// Fraction of `inflight_hi` left unused while cruising. Default 0.15
    /// (`bbr_inflight_headroom`).
    #[serde(default)]
    pub inflight_headroom: Option<f64>,
    /// Most rounds between bandwidth probes (the Reno-coexistence bound). Default 63
    /// (`bbr_bw_probe_max_rounds`).
    #[serde(default)]
    pub bw_probe_max_rounds: Option<u32>,
    /// Rounds drawn at random, 0 to this less one, counted as already waited at the start of
    /// each wait. Default 2 (`bbr_bw_probe_rand_rounds`).
    #[serde(default)]
    pub bw_probe_rand_rounds: Option<u32>,
    /// Least wall-clock wait between bandwidth probes, microseconds. Default 2 000 000
    /// (`bbr_bw_probe_base_us`).
    #[serde(default)]
    pub bw_probe_base_us: Option<f64>,
    /// Random extra wait, uniform below this, microseconds. Default 1 000 000
    /// (`bbr_bw_probe_rand_us`).
    #[serde(default)]
    pub bw_probe_rand_us: Option<f64>,
    /// Age, seconds, at which the min-RTT estimate expires. Default 10
    /// (`bbr_min_rtt_win_sec`).
    #[serde(default)]
    pub min_rtt_win_sec: Option<f64>,
    /// Interval, milliseconds, of the ProbeRTT schedule (the window of its own min-RTT
    /// filter); at most `min_rtt_win_sec`. Default 5000 (`bbr_probe_rtt_win_ms`).
    #[serde(default)]
    pub probe_rtt_win_ms: Option<f64>,
    /// Least time, milliseconds, spent in ProbeRTT; 0 turns ProbeRTT off. Default 200
    /// (`bbr_probe_rtt_mode_ms`).
    #[serde(default)]
    pub probe_rtt_mode_ms: Option<f64>,
    /// ProbeRTT's window as a fraction of the BDP. Default 0.5 (`bbr_probe_rtt_cwnd_gain`).
    #[serde(default)]
    pub probe_rtt_cwnd_gain: Option<f64>,
    /// Least window, segments. Default 4 (`bbr_cwnd_min_target`).
    #[serde(default)]
    pub cwnd_min_target: Option<f64>,
    /// Pacing below the estimate, percent. Default 1 (`bbr_pacing_margin_percent`).
    #[serde(default)]
    pub pacing_margin_percent: Option<f64>,
    /// Gain of the ACK-aggregation allowance; 0 turns it off. Default 1
    /// (`bbr_extra_acked_gain`).
    #[serde(default)]
    pub extra_acked_gain: Option<f64>,
    /// Rounds each ACK-aggregation slot spans once the pipe is full (1 in Startup). Default 5
    /// (`bbr_extra_acked_win_rtts`).
    #[serde(default)]
    pub extra_acked_win_rtts: Option<u32>,
}

impl CcConfig for Bbr3Config {
    type Algorithm = Bbr3;
    /// The probe waits come from the flow's own random stream.
    const PER_FLOW: bool = true;

    fn build(&self, ctx: &BuildContext) -> Result<Bbr3, ParamError> {
        let ln2 = std::f64::consts::LN_2;
        let margin = self.pacing_margin_percent.unwrap_or(1.0);
        if !(margin.is_finite() && (0.0..100.0).contains(&margin)) {
            return Err((
                "pacing_margin_percent",
                format!("{margin} is outside [0, 100)"),
            ));
        }
        let count = |field: &'static str, v: Option<u32>, def: u32| match v.unwrap_or(def) {
            0 => Err((field, "must be at least 1".to_string())),
            n => Ok(n),
        };
        let min_rtt_win = positive("min_rtt_win_sec", self.min_rtt_win_sec.unwrap_or(10.0))?;
        let probe_rtt_win = positive("probe_rtt_win_ms", self.probe_rtt_win_ms.unwrap_or(5000.0))?;
        if probe_rtt_win > min_rtt_win * 1e3 {
            return Err((
                "probe_rtt_win_ms",
                format!("{probe_rtt_win} is longer than min_rtt_win_sec ({min_rtt_win} s)"),
            ));
        }
        let us = |field: &'static str, v: Option<f64>, def: f64| {
            at_least(field, v.unwrap_or(def), 0.0).map(|x| SimTime::from_secs_f64(x / 1e6))
        };
        let p = Params {
            startup_pacing_gain: positive(
                "startup_pacing_gain",
                self.startup_pacing_gain.unwrap_or(4.0 * ln2),
            )?,
            startup_cwnd_gain: positive(
                "startup_cwnd_gain",
                self.startup_cwnd_gain.unwrap_or(2.0),
            )?,
            drain_gain: positive("drain_gain", self.drain_gain.unwrap_or(ln2 / 2.0))?,
            cwnd_gain: positive("cwnd_gain", self.cwnd_gain.unwrap_or(2.0))?,
            bw_probe_cwnd_gain: at_least(
                "bw_probe_cwnd_gain",
                self.bw_probe_cwnd_gain.unwrap_or(0.25),
                0.0,
            )?,
            up_gain: at_least(
                "probe_up_pacing_gain",
                self.probe_up_pacing_gain.unwrap_or(1.25),
                1.0,
            )?,
            down_gain: fraction(
                "probe_down_pacing_gain",
                self.probe_down_pacing_gain.unwrap_or(0.91),
            )?,
            full_bw_thresh: at_least("full_bw_thresh", self.full_bw_thresh.unwrap_or(1.25), 1.0)?,
            full_bw_cnt: count("full_bw_cnt", self.full_bw_cnt, 3)?,
            full_loss_cnt: self.full_loss_cnt.unwrap_or(6),
            beta: fraction("beta", self.beta.unwrap_or(0.7))?,
            loss_thresh: fraction("loss_thresh", self.loss_thresh.unwrap_or(0.02))?,
            headroom: fraction("inflight_headroom", self.inflight_headroom.unwrap_or(0.15))?,
            bw_probe_max_rounds: count("bw_probe_max_rounds", self.bw_probe_max_rounds, 63)?,
            bw_probe_rand_rounds: count("bw_probe_rand_rounds", self.bw_probe_rand_rounds, 2)?,
            bw_probe_base: us("bw_probe_base_us", self.bw_probe_base_us, 2e6)?,
            bw_probe_rand: us("bw_probe_rand_us", self.bw_probe_rand_us, 1e6)?,
            min_rtt_win: SimTime::from_secs_f64(min_rtt_win),
            probe_rtt_win: SimTime::from_secs_f64(probe_rtt_win / 1e3),
            probe_rtt_mode: SimTime::from_secs_f64(
                at_least(
                    "probe_rtt_mode_ms",
                    self.probe_rtt_mode_ms.unwrap_or(200.0),
                    0.0,
                )? / 1e3,
            ),
            probe_rtt_cwnd_gain: positive(
                "probe_rtt_cwnd_gain",
                self.probe_rtt_cwnd_gain.unwrap_or(0.5),
            )?,
            cwnd_min_target: at_least("cwnd_min_target", self.cwnd_min_target.unwrap_or(4.0), 1.0)?,
            margin: 1.0 - margin / 100.0,
            extra_acked_gain: at_least(
                "extra_acked_gain",
                self.extra_acked_gain.unwrap_or(1.0),
                0.0,
            )?,
            extra_acked_win_rtts: count("extra_acked_win_rtts", self.extra_acked_win_rtts, 5)?,
            mss: ctx.mss as f64,
        };
        let rng = Rng::derive(ctx.seed, &format!("cc:{}", ctx.flow));
        Ok(Bbr3(Box::new(Bbr3State::new(p, rng))))
    }
}

#[derive(Clone, Debug)]
pub(super) struct Params {
    pub(super) startup_pacing_gain: f64,
    pub(super) startup_cwnd_gain: f64,
    pub(super) drain_gain: f64,
    pub(super) cwnd_gain: f64,
    pub(super) bw_probe_cwnd_gain: f64,
    pub(super) up_gain: f64,
    pub(super) down_gain: f64,
    pub(super) full_bw_thresh: f64,
    pub(super) full_bw_cnt: u32,
    pub(super) full_loss_cnt: u32,
    pub(super) beta: f64,
    pub(super) loss_thresh: f64,
    pub(super) headroom: f64,
    pub(super) bw_probe_max_rounds: u32,
    pub(super) bw_probe_rand_rounds: u32,
    pub(super) bw_probe_base: SimTime,
    pub(super) bw_probe_rand: SimTime,
    pub(super) min_rtt_win: SimTime,
    pub(super) probe_rtt_win: SimTime,
    pub(super) probe_rtt_mode: SimTime,
    pub(super) probe_rtt_cwnd_gain: f64,
    pub(super) cwnd_min_target: f64,
    /// 1 − `pacing_margin_percent` / 100.
    pub(super) margin: f64,
    pub(super) extra_acked_gain: f64,
    pub(super) extra_acked_win_rtts: u32,
    pub(super) mss: f64,
}
