//! RED's configuration in a scenario: parameters, the defaults of each profile, ns-2's
//! automatic configuration, and the checks of ranges.

use schemars::JsonSchema;
use serde::Deserialize;

use super::adaptive::{self, AdaptiveConfig};
use super::{auto_params, Red, RedConfig, MARK_P, MAX_P, MIN_TH, Q_WEIGHT};
use crate::config::units::{Bytes, Duration};
use crate::config::{ParamError, Profile};
use crate::queue::param::{at_least_one, in_range, positive_time};
use crate::queue::{QueueConfig, QueueContext};

/// RED as ns-2.35 implements it (Floyd & Jacobson 1993; `docs/algorithms.md` §10).
/// Thresholds are in packets (of `mean_pktsize` bytes in byte mode), like ns-2's `thresh_` and
/// `maxthresh_`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Physical capacity: waiting packets (`limit·mean_pktsize` bytes in byte mode), ns-2's
    /// `limit_`. Default: ns2 50, linux 1000, rfc 100.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Minimum threshold, packets. Default: automatic (ns2) or 5.
    #[serde(default)]
    pub min_th: Option<f64>,
    /// Maximum threshold, packets. Default: 3·min_th.
    #[serde(default)]
    pub max_th: Option<f64>,
    /// EWMA weight w_q of the average queue, in (0, 1]. Default: automatic (ns2) or 0.002.
    #[serde(default)]
    pub q_weight: Option<f64>,
    /// Drop probability at max_th, in (0, 1] (ns-2's `linterm_` is 1/max_p). Default 0.1.
    #[serde(default)]
    pub max_p: Option<f64>,
    /// Probability rises from max_p to 1 between max_th and 2·max_th instead of jumping to 1.
    /// Default: true (ns2, rfc), false (linux: `sch_red` has no gentle region).
    #[serde(default)]
    pub gentle: Option<bool>,
    /// Spread early drops over [1/p_b, 2/p_b] arrivals (ns-2 `wait_`) rather than the paper's
    /// p_b/(1 − count·p_b). Default: true (ns2, rfc), false (linux, whose `red_action` spreads
    /// them the paper's way).
    #[serde(default)]
    pub wait: Option<bool>,
    /// "packets", or "bytes" (ns-2 `queue_in_bytes_` and `bytes_`). Default: bytes (ns2,
    /// linux: `sch_red` averages the byte backlog), packets (rfc).
    #[serde(default)]
    pub mode: Option<RedMode>,
    /// Mean packet size: converts packets to bytes in byte mode and sets the idle correction's
    /// packets per second. Default: 500 B (ns2), 1500 B (linux, rfc).
    #[serde(default)]
    pub mean_pktsize: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them early (ns-2 `setbit_`). Default false.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// With use_mark_p, mark only while p_b < mark_p (ns-2 `mark_p_`). Default 0.1.
    #[serde(default)]
    pub mark_p: Option<f64>,
    /// ns-2 `use_mark_p_`: also disables forced drops above max_th (2·max_th gentle). Default:
    /// true (ns2), false (linux, rfc: every early decision may mark, RFC 3168 §5).
    #[serde(default)]
    pub use_mark_p: Option<bool>,
    /// Forced decisions drop even ECN-capable packets (ns-3 `UseHardDrop`, Linux's `harddrop`
    /// flag). Default: true (ns2, rfc), false (linux: with `ecn` an ECN-capable packet above
    /// max_th is marked).
    #[serde(default)]
    pub harddrop: Option<bool>,
    /// ns-2's automatic configuration from the link (`initialize_params`): min_th, max_th and
    /// q_weight left out are derived from the rate and delay. Default: true (ns2, or with
    /// adaptive), false.
    #[serde(default)]
    pub auto: Option<bool>,
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001; ns-2 `adaptive_`): every `interval` max_p
    /// moves toward keeping the average in [min_th + 0.4·(max_th − min_th), min_th +
    /// 0.6·(max_th − min_th)], starting from `max_p`. Turns `auto` on; its q_weight is
    /// 1 − exp(−1/C) for C packets per second (the paper; ns2: ns-2's). Default false.
    #[serde(default)]
    pub adaptive: Option<bool>,
    /// Adaptive RED: least time between changes of max_p (ns-2 `interval_`). Default 0.5 s.
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Adaptive RED: largest additive increase of max_p, in (0, 1]; the step is
    /// min(alpha, max_p/4). Default 0.01.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Adaptive RED: multiplicative decrease of max_p, in (0, 1). Default 0.9.
    #[serde(default)]
    pub beta: Option<f64>,
    /// Adaptive RED: max_p rises only while below top, in (0, 1]. Default 0.5.
    #[serde(default)]
    pub top: Option<f64>,
    /// Adaptive RED: max_p falls only while above bottom, in (0, top). Default 0.01; ns2:
    /// min(0.01, 80 000/bandwidth in b/s) (ns-2 `bottom_ 0`).
    #[serde(default)]
    pub bottom: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    Packets,
    Bytes,
}

/// RED settings that differ between profiles; the others are ns-2's in every profile
/// (`queue/red/`: max_p 0.1, gentle, wait, mark_p 0.1, and min_th 5 / max_th 3·min_th /
/// q_weight 0.002 when not automatic).
#[derive(Debug, Clone, PartialEq)]
pub struct RedDefaults {
    pub limit: u32,
    /// Byte mode (ns-2 `queue_in_bytes_` and `bytes_`).
    pub bytes: bool,
    pub gentle: bool,
    pub wait: bool,
    pub harddrop: bool,
    /// ns-2's automatic min_th and q_weight.
    pub auto: bool,
    pub mean_pktsize: u32,
    pub use_mark_p: bool,
}

impl RedDefaults {
    /// | RED          | linux (`sch_red`) | ns2 (ns-2.35 `ns-default.tcl`)   | rfc             |
    /// |--------------|-------------------|----------------------------------|-----------------|
    /// | limit        | 1000 packets      | 50 (`limit_`)                    | 100 packets     |
    /// | mode         | bytes             | bytes (since 2004)               | packets         |
    /// | auto         | off: 5/15/0.002   | on (`thresh_ 0`, `q_weight_ −1`) | off: 5/15/0.002 |
    /// | mean_pktsize | 1500 B            | 500 B                            | 1500 B          |
    /// | use_mark_p   | off               | on (since 2005)                  | off             |
    /// | gentle       | off               | on                               | on              |
    /// | wait         | off               | on                               | on              |
    /// | harddrop     | off               | on                               | on              |
    ///
    /// linux and rfc take Floyd's recommended explicit values (min_th 5, max_th 3·min_th,
    /// w_q 0.002, max_p 0.1) with the profile's full-sized packet and let every early decision
    /// mark (RFC 3168 §5); `tc red` itself has no defaults for those. linux is otherwise the
    /// kernel's queue (`net/sched/sch_red.c`, `include/net/red.h`): the average of the byte
    /// backlog against thresholds in bytes, no gentle region (RED_HARD_MARK at max_th), the
    /// paper's spreading of early drops (`red_action`'s `qcount` against a uniform `qR`, not
    /// ns-2's `wait_`), and, with `ecn`, ECN-capable packets marked rather than dropped above
    /// max_th unless `harddrop`. One difference remains: byte mode scales an early decision's
    /// probability by the packet's size (ns-2's `bytes_`), which Linux does not; for
    /// full-sized packets the two agree.
    pub fn of(profile: Profile) -> RedDefaults {
        match profile {
            Profile::Ns2 => RedDefaults {
                limit: 50,
                bytes: true,
                gentle: true,
                wait: true,
                harddrop: true,
                auto: true,
                mean_pktsize: 500,
                use_mark_p: true,
            },
            Profile::Linux | Profile::Rfc => RedDefaults {
                limit: profile.queue_limit(),
                bytes: profile == Profile::Linux,
                gentle: profile != Profile::Linux,
                wait: profile != Profile::Linux,
                harddrop: profile != Profile::Linux,
                auto: false,
                mean_pktsize: 1500,
                use_mark_p: false,
            },
        }
    }
}

impl QueueConfig for RedSpec {
    type Discipline = Red;

    /// Resolves the profile's defaults and ns-2's automatic configuration, and checks ranges.
    fn build(&self, ctx: &QueueContext) -> Result<Red, ParamError> {
        let s = self;
        let d = RedDefaults::of(ctx.profile);
        let limit = at_least_one(s.limit, d.limit, "limit", "packet")?;
        let bytes = s.mode.map(|m| m == RedMode::Bytes).unwrap_or(d.bytes);
        let mean_pktsize = s.mean_pktsize.map(|b| b.0).unwrap_or(d.mean_pktsize as u64);
        if mean_pktsize > 65_535 {
            return Err(("mean_pktsize", "must be at most 65535 bytes".into()));
        }
        let mean_pktsize = mean_pktsize as u32;
        let adaptive = s.adaptive.unwrap_or(false);
        let auto = s.auto.unwrap_or(d.auto || adaptive);
        let (auto_min, mut auto_w) = auto_params(ctx.rate, ctx.delay, mean_pktsize);
        if adaptive && ctx.profile != Profile::Ns2 {
            // The paper's weight; ns-2 keeps its `q_weight_ −1` rule with `adaptive_ 1`.
            auto_w = adaptive::paper_q_weight(ctx.rate, mean_pktsize);
        }
        let min_th = match s.min_th {
            Some(v) if !v.is_finite() || v <= 0.0 => {
                return Err((
                    "min_th",
                    format!("{v} must be a positive number of packets"),
                ))
            }
            Some(v) => v,
            None if auto => auto_min,
            None => MIN_TH,
        };
        let max_th = s.max_th.unwrap_or(3.0 * min_th);
        if !max_th.is_finite() || max_th <= min_th {
            return Err(("max_th", format!("must be greater than min_th ({min_th})")));
        }
        let q_weight = match s.q_weight {
            Some(v) => in_range(v, true, 0.0, 1.0, "q_weight")?,
            None if auto => auto_w,
            None => Q_WEIGHT,
        };
        let max_p = in_range(s.max_p.unwrap_or(MAX_P), true, 0.0, 1.0, "max_p")?;
        let mark_p = s.mark_p.unwrap_or(MARK_P);
        if !mark_p.is_finite() || mark_p <= 0.0 {
            return Err(("mark_p", format!("{mark_p} must be positive")));
        }
        let adaptive = adaptive_config(s, adaptive, ctx)?;
        Ok(Red::new(RedConfig {
            limit,
            min_th,
            max_th,
            q_weight,
            max_p,
            gentle: s.gentle.unwrap_or(d.gentle),
            wait: s.wait.unwrap_or(d.wait),
            bytes,
            mean_pktsize,
            ecn: s.ecn.unwrap_or(false),
            mark_p,
            use_mark_p: s.use_mark_p.unwrap_or(d.use_mark_p),
            harddrop: s.harddrop.unwrap_or(d.harddrop),
            rate: ctx.rate,
            adaptive,
        }))
    }
}

/// Adaptive RED's settings when `adaptive` is on; its parameters given without it are refused
/// rather than ignored.
fn adaptive_config(
    s: &RedSpec,
    on: bool,
    ctx: &QueueContext,
) -> Result<Option<AdaptiveConfig>, ParamError> {
    if !on {
        let given = [
            ("interval", s.interval.is_some()),
            ("alpha", s.alpha.is_some()),
            ("beta", s.beta.is_some()),
            ("top", s.top.is_some()),
            ("bottom", s.bottom.is_some()),
        ];
        if let Some((field, _)) = given.iter().find(|g| g.1) {
            return Err((field, "applies only with adaptive = true".into()));
        }
        return Ok(None);
    }
    let top = in_range(s.top.unwrap_or(adaptive::TOP), true, 0.0, 1.0, "top")?;
    let bottom = match (s.bottom, ctx.profile) {
        (Some(b), _) => b,
        (None, Profile::Ns2) => adaptive::ns2_bottom(ctx.rate),
        (None, _) => adaptive::BOTTOM,
    };
    if !(bottom > 0.0 && bottom < top) {
        return Err(("bottom", format!("{bottom} is outside (0, top = {top})")));
    }
    let beta = s.beta.unwrap_or(adaptive::BETA);
    if !(beta > 0.0 && beta < 1.0) {
        return Err(("beta", format!("{beta} is outside (0, 1)")));
    }
    Ok(Some(AdaptiveConfig {
        interval: positive_time(s.interval, adaptive::INTERVAL, "interval")?,
        alpha: in_range(s.alpha.unwrap_or(adaptive::ALPHA), true, 0.0, 1.0, "alpha")?,
        beta,
        top,
        bottom,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::param::error_text;
    use crate::time::{Rate, SimTime};

    fn red_err(json: &str, profile: Profile) -> String {
        let s: RedSpec = serde_json::from_str(json).unwrap();
        let ctx = QueueContext {
            profile,
            rate: Rate(10_000_000),
            delay: SimTime::from_millis(10),
        };
        error_text(s.build(&ctx))
    }

    #[test]
    fn red_checks_name_the_field_and_the_accepted_values() {
        let e = red_err(r#"{"min_th": 5, "max_th": 5}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.max_th: must be greater than min_th (5)");
        // ns2 profile: automatic min_th 6.25 at 10 Mb/s with 500-byte packets.
        let e = red_err(r#"{"max_th": 6}"#, Profile::Ns2);
        assert_eq!(
            e.to_string(),
            "q.max_th: must be greater than min_th (6.25)"
        );
        let e = red_err(r#"{"q_weight": 0}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.q_weight: 0 is outside (0, 1]");
        let e = red_err(r#"{"max_p": 1.5}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.max_p: 1.5 is outside (0, 1]");
        let e = red_err(r#"{"limit": 0}"#, Profile::Linux);
        assert_eq!(e.to_string(), "q.limit: must be at least 1 packet");
        let e = red_err(r#"{"min_th": -1}"#, Profile::Linux);
        assert!(e.to_string().starts_with("q.min_th:"), "{e}");
    }

    #[test]
    fn adaptive_red_checks_and_defaults() {
        let e = red_err(r#"{"alpha": 0.02}"#, Profile::Linux);
        assert_eq!(e, "q.alpha: applies only with adaptive = true");
        let e = red_err(r#"{"adaptive": true, "beta": 1}"#, Profile::Linux);
        assert_eq!(e, "q.beta: 1 is outside (0, 1)");
        let e = red_err(r#"{"adaptive": true, "bottom": 0.6}"#, Profile::Linux);
        assert_eq!(e, "q.bottom: 0.6 is outside (0, top = 0.5)");
        let e = red_err(r#"{"adaptive": true, "interval": 0}"#, Profile::Linux);
        assert_eq!(e, "q.interval: must be positive");
        let e = red_err(r#"{"adaptive": true, "alpha": 0}"#, Profile::Linux);
        assert_eq!(e, "q.alpha: 0 is outside (0, 1]");
        // Linux profile, 10 Mb/s: thresholds automatic (min_th = max(5, 0.005·833.3/2) = 5,
        // max_th 15), the paper's weight and bottom.
        let ctx = QueueContext {
            profile: Profile::Linux,
            rate: Rate(10_000_000),
            delay: SimTime::from_millis(10),
        };
        let s: RedSpec = serde_json::from_str(r#"{"adaptive": true}"#).unwrap();
        let gate = s.build(&ctx).unwrap().into_gate();
        let c = &gate.c;
        assert_eq!((c.min_th, c.max_th), (5.0, 15.0));
        assert!((c.q_weight - (1.0 - (-1.0f64 / (1e7 / 12_000.0)).exp())).abs() < 1e-15);
        assert_eq!(c.adaptive, Some(AdaptiveConfig::with_bottom(0.01)));
        assert_eq!(gate.max_p(), 0.1);
        // ns2 profile: ns-2's weight (3.9992e−4 at 10 Mb/s, 10 ms, see `red/mod.rs`) and
        // bottom 80 000/1e7 = 0.008.
        let ctx = QueueContext {
            profile: Profile::Ns2,
            ..ctx
        };
        let gate = s.build(&ctx).unwrap().into_gate();
        assert!((gate.c.q_weight - 3.9992e-4).abs() < 1e-7);
        assert_eq!(gate.c.adaptive, Some(AdaptiveConfig::with_bottom(0.008)));
    }
}
