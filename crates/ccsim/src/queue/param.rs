//! Checks shared by the disciplines' configurations. Each returns the value, or the field and
//! a message that the scenario builder prefixes with the path of the `queue` table.

use crate::config::units::Duration;
use crate::config::ParamError;
use crate::time::SimTime;

/// A duration, `def` where left out; zero is refused.
pub(crate) fn positive_time(
    v: Option<Duration>,
    def: SimTime,
    field: &'static str,
) -> Result<SimTime, ParamError> {
    let t = v.map(|d| d.0).unwrap_or(def);
    if t == SimTime::ZERO {
        return Err((field, "must be positive".into()));
    }
    Ok(t)
}

/// A count of `unit`s, `def` where left out; zero is refused.
pub(crate) fn at_least_one(
    v: Option<u32>,
    def: u32,
    field: &'static str,
    unit: &str,
) -> Result<u32, ParamError> {
    let n = v.unwrap_or(def);
    if n == 0 {
        return Err((field, format!("must be at least 1 {unit}")));
    }
    Ok(n)
}

/// A number in `(lo, hi]` (`lo_open`) or `[lo, hi]`.
pub(crate) fn in_range(
    v: f64,
    lo_open: bool,
    lo: f64,
    hi: f64,
    field: &'static str,
) -> Result<f64, ParamError> {
    let above = if lo_open { v > lo } else { v >= lo };
    if !(above && v <= hi) {
        let l = if lo_open { "(" } else { "[" };
        return Err((field, format!("{v} is outside {l}{lo}, {hi}]")));
    }
    Ok(v)
}

/// A size in bytes as a `u32`, `def` where left out (larger values saturate).
pub(crate) fn bytes_u32(v: Option<crate::config::units::Bytes>, def: u32) -> u32 {
    v.map(|b| b.0.min(u32::MAX as u64) as u32).unwrap_or(def)
}

#[cfg(test)]
pub(crate) fn error_text<T>(r: Result<T, ParamError>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err((field, m)) => format!("q.{field}: {m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{CodelSpec, FqCodelSpec, PieSpec, QueueConfig, QueueContext};
    use crate::time::Rate;

    fn ctx() -> QueueContext {
        QueueContext {
            profile: crate::config::Profile::Linux,
            rate: Rate(10_000_000),
            delay: SimTime::from_millis(10),
        }
    }

    #[test]
    fn other_aqms_reject_zero_times_and_limits() {
        let c: CodelSpec = serde_json::from_str(r#"{"target": 0}"#).unwrap();
        assert_eq!(error_text(c.build(&ctx())), "q.target: must be positive");
        let p: PieSpec = serde_json::from_str(r#"{"mark_ecnth": 2}"#).unwrap();
        assert_eq!(
            error_text(p.build(&ctx())),
            "q.mark_ecnth: 2 is outside [0, 1]"
        );
        let f: FqCodelSpec = serde_json::from_str(r#"{"flows": 0}"#).unwrap();
        assert_eq!(
            error_text(f.build(&ctx())),
            "q.flows: 0 is outside 1..=65536"
        );
    }
}
