//! Slow-start variants, usable under any congestion-control algorithm.
//!
//! Every algorithm that slow-starts calls [`crate::tcp::cc::slow_start`], which asks the
//! connection's variant how much one ACK adds — the way Linux once applied
//! `sysctl_tcp_max_ssthresh` (Limited Slow-Start) inside `tcp_slow_start` for every module.
//! A variant may also choose the slow-start threshold after a loss (Advanced Slow Start's
//! decrease factors); otherwise the algorithm's own `ssthresh` applies.

pub mod advanced;
pub mod limited;

use schemars::JsonSchema;
use serde::Deserialize;

/// The slow-start rule of a connection.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SlowStart {
    /// One segment per segment acknowledged (RFC 5681 §3.1).
    Standard,
    /// RFC 3742 Limited Slow-Start above `max_ssthresh` segments.
    Limited { max_ssthresh: f64 },
    /// Advanced Slow Start, algorithm 2, 3 or 4 of Petrov & Janevski (2013), with
    /// Limited Slow-Start from `max_ssthresh` on.
    Advanced { algorithm: u8, max_ssthresh: f64 },
}

impl SlowStart {
    /// Segments to add to `cwnd` for `acked` segments acknowledged (or ACKs, under ns-2's
    /// counting) while in slow start, before the cap at ssthresh.
    pub fn increment(self, cwnd: f64, acked: f64) -> f64 {
        match self {
            SlowStart::Standard => acked,
            SlowStart::Limited { max_ssthresh } => limited::increment(cwnd, acked, max_ssthresh),
            SlowStart::Advanced {
                algorithm,
                max_ssthresh,
            } => {
                if cwnd >= max_ssthresh {
                    limited::increment(cwnd, acked, max_ssthresh)
                } else {
                    advanced::increment(algorithm, cwnd) * acked
                }
            }
        }
    }

    /// The slow-start threshold after a loss at window `cwnd`, if this variant sets it.
    pub fn loss_ssthresh(self, cwnd: f64) -> Option<f64> {
        match self {
            SlowStart::Advanced {
                algorithm,
                max_ssthresh,
            } if cwnd < max_ssthresh => {
                Some((cwnd / advanced::decrease_divisor(algorithm, cwnd)).max(2.0))
            }
            _ => None,
        }
    }
}

fn default_max_ssthresh() -> f64 {
    // RFC 3742 §2 recommends 100 MSS; Petrov & Janevski (2013) use the same value.
    100.0
}

/// `slow_start` in a scenario: a name (`"standard"`, `"limited"`, `"ass2"`, `"ass3"`,
/// `"ass4"`) or a table `{ kind = "...", max_ssthresh = 100 }`.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
#[schemars(tag = "kind")]
pub enum SlowStartSpec {
    /// Classic slow start: one segment per segment acknowledged.
    #[schemars(rename = "standard")]
    Standard(NoParams),
    /// RFC 3742 Limited Slow-Start.
    #[schemars(rename = "limited")]
    Limited(MaxSsthresh),
    /// Advanced Slow Start algorithm 2 (+3/+2/+1/+0.5 per ACK below 25/50/75/100).
    #[schemars(rename = "ass2")]
    Ass2(MaxSsthresh),
    /// Advanced Slow Start algorithm 3 (+2 below 25, +1 below 100).
    #[schemars(rename = "ass3")]
    Ass3(MaxSsthresh),
    /// Advanced Slow Start algorithm 4 (+2 below 50, +1 below 100).
    #[schemars(rename = "ass4")]
    Ass4(MaxSsthresh),
}
crate::config::de::tagged_enum!(SlowStartSpec, "slow-start variant", shorthand, {
    "standard" => Standard, "limited" => Limited, "ass2" => Ass2, "ass3" => Ass3, "ass4" => Ass4,
});

#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaxSsthresh {
    /// Window (segments) from which Limited Slow-Start applies; RFC 3742 §2: 100.
    #[serde(default = "default_max_ssthresh")]
    pub max_ssthresh: f64,
}

impl SlowStartSpec {
    /// The rule to run, or the field and message of an invalid parameter.
    pub fn resolve(&self) -> Result<SlowStart, (&'static str, String)> {
        let (algorithm, m) = match self {
            SlowStartSpec::Standard(_) => return Ok(SlowStart::Standard),
            SlowStartSpec::Limited(m) => (0, m),
            SlowStartSpec::Ass2(m) => (2, m),
            SlowStartSpec::Ass3(m) => (3, m),
            SlowStartSpec::Ass4(m) => (4, m),
        };
        let max_ssthresh = m.max_ssthresh;
        if !(max_ssthresh.is_finite() && max_ssthresh >= 2.0) {
            return Err((
                "max_ssthresh",
                format!("{max_ssthresh} is not a window: expected a number of segments ≥ 2"),
            ));
        }
        Ok(match algorithm {
            0 => SlowStart::Limited { max_ssthresh },
            a => SlowStart::Advanced {
                algorithm: a,
                max_ssthresh,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advanced_uses_its_table_below_max_ssthresh_and_lss_above() {
        let ss = SlowStart::Advanced {
            algorithm: 2,
            max_ssthresh: 100.0,
        };
        assert_eq!(ss.increment(10.0, 1.0), 3.0);
        assert_eq!(ss.increment(99.0, 1.0), 0.5);
        // cwnd 150: K = floor(150 / 50) = 3, so +1/3 per segment (RFC 3742 §2)
        assert!((ss.increment(150.0, 1.0) - 1.0 / 3.0).abs() < 1e-12);
        // per-ACK rules scale with the segments an ACK counts for
        assert_eq!(ss.increment(30.0, 2.0), 4.0);
    }

    #[test]
    fn only_advanced_sets_the_loss_threshold_and_only_below_max_ssthresh() {
        let ss = SlowStart::Advanced {
            algorithm: 2,
            max_ssthresh: 100.0,
        };
        assert_eq!(ss.loss_ssthresh(20.0), Some(5.0)); // ÷4 in the +3 range
        assert_eq!(ss.loss_ssthresh(6.0), Some(2.0)); // 1.5, floored at 2 segments
        assert_eq!(ss.loss_ssthresh(120.0), None); // ≥ 100: the algorithm's own halving
        assert_eq!(SlowStart::Standard.loss_ssthresh(20.0), None);
        let lss = SlowStart::Limited {
            max_ssthresh: 100.0,
        };
        assert_eq!(lss.loss_ssthresh(20.0), None);
    }
}
