//! BBR's parameters and their checks.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bbr, BbrState};
use crate::rng::Rng;
use crate::tcp::cc::param::{at_least, positive};
use crate::tcp::cc::{BuildContext, CcConfig, ParamError};
use crate::time::SimTime;

/// BBR's parameters, named as Linux's constants (`bbr_*`); every default is Linux's.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbrConfig {
    /// Startup's pacing and window gain. Default 2/ln 2 ≈ 2.885 (`bbr_high_gain`).
    #[serde(default)]
    pub high_gain: Option<f64>,
    /// Drain's pacing gain. Default ln 2 / 2 ≈ 0.347 (`bbr_drain_gain`).
    #[serde(default)]
    pub drain_gain: Option<f64>,
    /// ProbeBW's window gain. Default 2 (`bbr_cwnd_gain`).
    #[serde(default)]
    pub cwnd_gain: Option<f64>,
    /// Bandwidth growth a Startup round must bring to count as growing. Default 1.25
    /// (`bbr_full_bw_thresh`).
    #[serde(default)]
    pub full_bw_thresh: Option<f64>,
    /// Rounds without that growth that end Startup. Default 3 (`bbr_full_bw_cnt`).
    #[serde(default)]
    pub full_bw_cnt: Option<u32>,
    /// Rounds the bandwidth filter spans. Default 10 (`bbr_bw_rtts`).
    #[serde(default)]
    pub bw_rtts: Option<u32>,
    /// Age, seconds, at which the min-RTT estimate expires and ProbeRTT begins. Default 10
    /// (`bbr_min_rtt_win_sec`).
    #[serde(default)]
    pub min_rtt_win_sec: Option<f64>,
    /// Least time, milliseconds, spent in ProbeRTT. Default 200 (`bbr_probe_rtt_mode_ms`).
    #[serde(default)]
    pub probe_rtt_mode_ms: Option<f64>,
    /// Least window, segments, and ProbeRTT's window. Default 4 (`bbr_cwnd_min_target`).
    #[serde(default)]
    pub cwnd_min_target: Option<f64>,
    /// Pacing below the estimate, percent. Default 1 (`bbr_pacing_margin_percent`).
    #[serde(default)]
    pub pacing_margin_percent: Option<f64>,
    /// Gain of the ACK-aggregation allowance; 0 turns it off. Default 1
    /// (`bbr_extra_acked_gain`).
    #[serde(default)]
    pub extra_acked_gain: Option<f64>,
}

impl CcConfig for BbrConfig {
    type Algorithm = Bbr;
    /// ProbeBW's random starting phase comes from the flow's own stream.
    const PER_FLOW: bool = true;

    fn build(&self, ctx: &BuildContext) -> Result<Bbr, ParamError> {
        let ln2 = std::f64::consts::LN_2;
        let margin = self.pacing_margin_percent.unwrap_or(1.0);
        if !(margin.is_finite() && (0.0..100.0).contains(&margin)) {
            return Err((
                "pacing_margin_percent",
                format!("{margin} is outside [0, 100)"),
            ));
        }
        let extra = self.extra_acked_gain.unwrap_or(1.0);
        if !(extra.is_finite() && extra >= 0.0) {
            return Err(("extra_acked_gain", format!("{extra} is not a number ≥ 0")));
        }
        let count = |field: &'static str, v: Option<u32>, def: u32| match v.unwrap_or(def) {
            0 => Err((field, "must be at least 1".to_string())),
            n => Ok(n),
        };
        let p = Params {
            high_gain: positive("high_gain", self.high_gain.unwrap_or(2.0 / ln2))?,
            drain_gain: positive("drain_gain", self.drain_gain.unwrap_or(ln2 / 2.0))?,
            cwnd_gain: positive("cwnd_gain", self.cwnd_gain.unwrap_or(2.0))?,
            full_bw_thresh: at_least("full_bw_thresh", self.full_bw_thresh.unwrap_or(1.25), 1.0)?,
            full_bw_cnt: count("full_bw_cnt", self.full_bw_cnt, 3)?,
            bw_rtts: count("bw_rtts", self.bw_rtts, 10)?,
            min_rtt_win: SimTime::from_secs_f64(positive(
                "min_rtt_win_sec",
                self.min_rtt_win_sec.unwrap_or(10.0),
            )?),
            probe_rtt_mode: SimTime::from_secs_f64(
                at_least(
                    "probe_rtt_mode_ms",
                    self.probe_rtt_mode_ms.unwrap_or(200.0),
                    0.0,
                )? / 1e3,
            ),
            cwnd_min_target: at_least("cwnd_min_target", self.cwnd_min_target.unwrap_or(4.0), 1.0)?,
            margin: 1.0 - margin / 100.0,
            extra_acked_gain: extra,
            mss: ctx.mss as f64,
        };
        let rng = Rng::derive(ctx.seed, &format!("cc:{}", ctx.flow));
        Ok(Bbr(Box::new(BbrState::new(p, rng))))
    }
}

#[derive(Clone, Debug)]
pub(super) struct Params {
    pub(super) high_gain: f64,
    pub(super) drain_gain: f64,
    pub(super) cwnd_gain: f64,
    pub(super) full_bw_thresh: f64,
    pub(super) full_bw_cnt: u32,
    pub(super) bw_rtts: u32,
    pub(super) min_rtt_win: SimTime,
    pub(super) probe_rtt_mode: SimTime,
    pub(super) cwnd_min_target: f64,
    /// 1 − `pacing_margin_percent` / 100.
    pub(super) margin: f64,
    pub(super) extra_acked_gain: f64,
    pub(super) mss: f64,
}
