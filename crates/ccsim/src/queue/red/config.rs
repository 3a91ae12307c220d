//! RED's configuration in a scenario: parameters, the defaults of each profile, ns-2's
//! automatic configuration, and the checks of ranges.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{auto_params, Red, RedConfig, MARK_P, MAX_P, MIN_TH, Q_WEIGHT};
use crate::config::units::Bytes;
use crate::config::{ParamError, Profile};
use crate::queue::param::{at_least_one, in_range};
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
    /// Default true.
    #[serde(default)]
    pub gentle: Option<bool>,
    /// Spread early drops over [1/p_b, 2/p_b] arrivals (ns-2 `wait_`) rather than the paper's
    /// p_b/(1 − count·p_b). Default true.
    #[serde(default)]
    pub wait: Option<bool>,
    /// "packets", or "bytes" (ns-2 `queue_in_bytes_` and `bytes_`). Default: bytes (ns2),
    /// packets (linux, rfc).
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
    /// Forced decisions drop even ECN-capable packets (ns-3 `UseHardDrop`). Default true.
    #[serde(default)]
    pub harddrop: Option<bool>,
    /// ns-2's automatic configuration from the link (`initialize_params`): min_th, max_th and
    /// q_weight left out are derived from the rate and delay. Default: true (ns2), false.
    #[serde(default)]
    pub auto: Option<bool>,
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
    /// ns-2's automatic min_th and q_weight.
    pub auto: bool,
    pub mean_pktsize: u32,
    pub use_mark_p: bool,
}

impl RedDefaults {
    /// | RED          | linux           | ns2 (ns-2.35 `ns-default.tcl`)   | rfc             |
    /// |--------------|-----------------|----------------------------------|-----------------|
    /// | limit        | 1000 packets    | 50 (`limit_`)                    | 100 packets     |
    /// | mode         | packets         | bytes (since 2004)               | packets         |
    /// | auto         | off: 5/15/0.002 | on (`thresh_ 0`, `q_weight_ −1`) | off: 5/15/0.002 |
    /// | mean_pktsize | 1500 B          | 500 B                            | 1500 B          |
    /// | use_mark_p   | off             | on (since 2005)                  | off             |
    ///
    /// linux and rfc take Floyd's recommended explicit values (min_th 5, max_th 3·min_th,
    /// w_q 0.002, max_p 0.1, gentle) in packet mode, with the profile's full-sized packet, and
    /// let every early decision mark (RFC 3168 §5); `tc red` itself has no defaults.
    pub fn of(profile: Profile) -> RedDefaults {
        match profile {
            Profile::Ns2 => RedDefaults {
                limit: 50,
                bytes: true,
                auto: true,
                mean_pktsize: 500,
                use_mark_p: true,
            },
            Profile::Linux | Profile::Rfc => RedDefaults {
                limit: profile.queue_limit(),
                bytes: false,
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
        let auto = s.auto.unwrap_or(d.auto);
        let (auto_min, auto_w) = auto_params(ctx.rate, ctx.delay, mean_pktsize);
        let min_th = match s.min_th {
            Some(v) if !v.is_finite() || v <= 0.0 => {
                return Err(("min_th", format!("{v} must be a positive number of packets")))
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
        Ok(Red::new(RedConfig {
            limit,
            min_th,
            max_th,
            q_weight,
            max_p,
            gentle: s.gentle.unwrap_or(true),
            wait: s.wait.unwrap_or(true),
            bytes,
            mean_pktsize,
            ecn: s.ecn.unwrap_or(false),
            mark_p,
            use_mark_p: s.use_mark_p.unwrap_or(d.use_mark_p),
            harddrop: s.harddrop.unwrap_or(true),
            rate: ctx.rate,
        }))
    }
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
}
