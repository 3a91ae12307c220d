//! TCP transfers that arrive at random: flow kind `tcp_arrivals`, the usual workload of
//! flow-completion-time studies. Transfers start as a Poisson process of `arrival_rate` per
//! second (exponential gaps) from `start` until `stop`, each of a size drawn from `size` (fixed,
//! exponential or Pareto, optionally capped at `max`), all with the entry's `tcp` settings.
//!
//! The entry becomes ordinary finite TCP flows before the scenario is built, named
//! `name.0`, `name.1`, … in arrival order, so that every result of a TCP flow (completion time
//! above all) is reported for each; errors in its settings still name the entry
//! (`flows[i].tcp.cc`). Each entry draws from its own stream (seed and name, `rng.rs`): the gap
//! to the next arrival, then that transfer's size.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::Deserialize;

use super::error::ScenarioError;
use super::schema::{Flow, TcpFlow, TcpSpec};
use crate::config::de::nested;
use crate::config::units::{Bytes, Duration};
use crate::dist::Dist;
use crate::rng::Rng;
use crate::time::SimTime;

/// The most flows all `tcp_arrivals` entries of a scenario may start: about 2 kB each
/// (docs/performance.md), so 2 GB at this count.
pub const MAX_ARRIVALS: usize = 1_000_000;

/// Transfers from `src` to `dst` arriving as a Poisson process.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpArrivals {
    /// Prefix of the flows' names: `name.0`, `name.1`, … in arrival order.
    pub name: String,
    pub src: String,
    pub dst: String,
    /// Mean transfers started per second.
    pub arrival_rate: f64,
    /// Bytes per transfer: a size, or a table of `distribution` ("exponential" or "pareto"),
    /// `mean`, `shape` (Pareto only, above 1, default 1.5) and `max`.
    pub size: SizeSpec,
    /// When arrivals begin (default 0): the first comes one exponential gap later.
    #[serde(default)]
    pub start: Option<Duration>,
    /// No transfer starts at or after this (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// TCP settings of every transfer.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// A fixed transfer size or a distribution of sizes.
#[derive(Debug, Clone)]
pub enum SizeSpec {
    Fixed(Bytes),
    Drawn(SizeDraw),
}

/// Sizes drawn from a distribution of mean `mean`; draws above `max` count as `max`, which
/// lowers the mean: by `β^α·max^(1−α)/(α − 1)` for a Pareto of shape α and scale
/// `β = mean·(α − 1)/α` (mean 60 kB, α 1.2, max 5 MB: 45.6 kB), by `mean·e^(−max/mean)` for
/// the exponential.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizeDraw {
    pub distribution: SizeDistribution,
    pub mean: Bytes,
    #[serde(default)]
    pub shape: Option<f64>,
    #[serde(default)]
    pub max: Option<Bytes>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SizeDistribution {
    Exponential,
    Pareto,
}

impl<'de> Deserialize<'de> for SizeSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(d)? {
            v @ serde_json::Value::Object(_) => nested(v).map(SizeSpec::Drawn),
            v @ (serde_json::Value::Number(_) | serde_json::Value::String(_)) => {
                serde_json::from_value(v)
                    .map(SizeSpec::Fixed)
                    .map_err(D::Error::custom)
            }
            other => Err(D::Error::custom(format!(
                "invalid size {other}: expected a number of bytes, a string with a unit, or a \
                 table of distribution, mean, shape and max"
            ))),
        }
    }
}

impl JsonSchema for SizeSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SizeSpec".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let fixed = g.subschema_for::<Bytes>();
        let drawn = g.subschema_for::<SizeDraw>();
        schemars::json_schema!({
            "description": "Bytes per transfer: a fixed size, or a distribution of sizes.",
            "oneOf": [fixed, drawn]
        })
    }
}

/// Transfer sizes, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sizes {
    Fixed(u64),
    Drawn { dist: Dist, mean: f64, max: u64 },
}

impl Sizes {
    fn of(spec: &SizeSpec, path: &str) -> Result<Sizes, ScenarioError> {
        let e = |field: &str, m: String| ScenarioError::new(format!("{path}.size{field}"), m);
        let check = |b: u64, field: &str| {
            if b == 0 || b >= 1 << 62 {
                Err(e(field, format!("{b} bytes is outside 1..2^62")))
            } else {
                Ok(b)
            }
        };
        match spec {
            SizeSpec::Fixed(b) => Ok(Sizes::Fixed(check(b.0, "")?)),
            SizeSpec::Drawn(d) => {
                let mean = check(d.mean.0, ".mean")?;
                let max = d.max.map_or(Ok((1 << 62) - 1), |m| check(m.0, ".max"))?;
                if max < mean {
                    return Err(e(
                        ".max",
                        format!("{max} bytes is below the mean ({mean} bytes)"),
                    ));
                }
                let dist = match (d.distribution, d.shape) {
                    (SizeDistribution::Exponential, None) => Dist::Exponential,
                    (SizeDistribution::Exponential, Some(_)) => {
                        return Err(e(
                            ".shape",
                            "a shape applies only to distribution = \"pareto\"".into(),
                        ))
                    }
                    (SizeDistribution::Pareto, s) => {
                        Dist::pareto(s.unwrap_or(1.5)).map_err(|m| e(".shape", m))?
                    }
                };
                Ok(Sizes::Drawn {
                    dist,
                    mean: mean as f64,
                    max,
                })
            }
        }
    }

    /// A transfer's size for uniform `u`: the draw rounded up to whole bytes, 1 to `max`.
    fn size(self, u: f64) -> u64 {
        match self {
            Sizes::Fixed(b) => b,
            Sizes::Drawn { dist, mean, max } => (dist.value(mean, u).ceil() as u64).clamp(1, max),
        }
    }
}

/// `x` as a reader wants it: in full, or with an exponent where that would run long (1e300).
fn short(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The scenario's flows with each `tcp_arrivals` entry replaced by its transfers, each with the
/// path of the entry it comes from (`flows[i]`), for errors.
pub fn plan(
    flows: &[Flow],
    seed: u64,
    end: SimTime,
) -> Result<Vec<(String, Cow<'_, Flow>)>, ScenarioError> {
    // The names an entry gives its transfers are its own whatever the draws: another flow may
    // not take one, or whether a scenario is valid would depend on how many arrive.
    let entries: Vec<(usize, &str)> = flows
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f, Flow::TcpArrivals(_)))
        .map(|(i, f)| (i, f.name()))
        .collect();
    for (i, f) in flows.iter().enumerate() {
        // An entry's own name is a flow name of the scenario too (`--set flows.web...`).
        if let Some((j, _)) = entries.iter().find(|&&(j, e)| j != i && e == f.name()) {
            let (a, b) = (i.min(*j), i.max(*j));
            return Err(ScenarioError::new(
                format!("flows[{b}].name"),
                format!("duplicate flow name \"{}\" (also flows[{a}])", f.name()),
            ));
        }
        let Some((prefix, number)) = f.name().rsplit_once('.') else {
            continue;
        };
        let numbered = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
        if let Some((j, _)) = entries.iter().find(|(_, e)| numbered && *e == prefix) {
            return Err(ScenarioError::new(
                format!("flows[{i}].name"),
                format!(
                    "\"{}\" is a name the tcp_arrivals entry flows[{j}] gives its transfers",
                    f.name()
                ),
            ));
        }
    }
    let mut out = Vec::with_capacity(flows.len());
    let mut room = MAX_ARRIVALS;
    for (i, f) in flows.iter().enumerate() {
        let path = format!("flows[{i}]");
        match f {
            Flow::TcpArrivals(a) => {
                let ts = transfers(a, &path, seed, end, room)?;
                room -= ts.len();
                for t in ts {
                    out.push((path.clone(), Cow::Owned(Flow::Tcp(Box::new(t)))));
                }
            }
            _ => out.push((path, Cow::Borrowed(f))),
        }
    }
    Ok(out)
}

/// The transfers of entry `a` (at `path`) in a run of scenario seed `seed` that ends at `end`,
/// given that `room` more flows may be started (`MAX_ARRIVALS`).
pub fn transfers(
    a: &TcpArrivals,
    path: &str,
    seed: u64,
    end: SimTime,
    room: usize,
) -> Result<Vec<TcpFlow>, ScenarioError> {
    if a.name.is_empty() {
        return Err(ScenarioError::new(
            format!("{path}.name"),
            "flow names must not be empty",
        ));
    }
    let rate = a.arrival_rate;
    if !(rate.is_finite() && rate > 0.0) {
        return Err(ScenarioError::new(
            format!("{path}.arrival_rate"),
            format!(
                "{} is not a positive number of transfers per second",
                short(rate)
            ),
        ));
    }
    let sizes = Sizes::of(&a.size, path)?;
    let (start, stop) = super::build::times(&a.start, &a.stop, path, end)?;
    let stop = stop.unwrap_or(end);
    let too_many = || {
        ScenarioError::new(
            format!("{path}.arrival_rate"),
            format!(
                "{} per second from {}s to {}s starts more flows than the \
                     {MAX_ARRIVALS} that a scenario's arrivals may start",
                short(rate),
                start.as_secs_f64(),
                stop.as_secs_f64()
            ),
        )
    };
    // Far more than may start — ten standard deviations of the Poisson count over the room
    // left — refused before drawing them: each would take time and memory.
    let room_f = room as f64;
    if rate * (stop - start).as_secs_f64() > room_f + 10.0 * room_f.sqrt() + 10.0 {
        return Err(too_many());
    }
    let mut rng = Rng::derive(seed, &format!("arrivals:{}", a.name));
    let mut out = Vec::new();
    let mut at = start;
    loop {
        let gap = Dist::Exponential.value(1.0 / rate, rng.uniform());
        // A gap beyond the stop ends the arrivals (and keeps the sum below 2^64 ns).
        if gap >= (stop - at).as_secs_f64() {
            break;
        }
        at += SimTime::from_secs_f64(gap);
        if at >= stop {
            break;
        }
        if out.len() == room {
            return Err(too_many());
        }
        let size = sizes.size(rng.uniform());
        out.push(TcpFlow {
            name: format!("{}.{}", a.name, out.len()),
            src: a.src.clone(),
            dst: a.dst.clone(),
            start: Some(Duration(at)),
            stop: None,
            size: Some(Bytes(size)),
            tcp: a.tcp.clone(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: &str) -> TcpArrivals {
        serde_json::from_str(&format!(r#"{{"name":"web","src":"a","dst":"b",{json}}}"#)).unwrap()
    }

    #[test]
    fn sizes_round_up_to_whole_bytes_within_one_and_max() {
        let d = Sizes::Drawn {
            dist: Dist::Exponential,
            mean: 1000.0,
            max: 5000,
        };
        // −1000·ln(0.5) = 693.147 → 694 bytes.
        assert_eq!(d.size(0.5), 694);
        // u = 0 draws 0: at least one byte.
        assert_eq!(d.size(0.0), 1);
        // −1000·ln(1 − 0.999) = 6907.8 → capped at 5000.
        assert_eq!(d.size(0.999), 5000);
        // Pareto, mean 30 kB, shape 1.2: scale 30000·0.2/1.2 = 5000; u = 0.5: 5000·2^(1/1.2)
        // = 8908.99 → 8909.
        let p = Sizes::Drawn {
            dist: Dist::Pareto { shape: 1.2 },
            mean: 30_000.0,
            max: u64::MAX,
        };
        assert_eq!(p.size(0.5), 8909);
        assert_eq!(Sizes::Fixed(1234).size(0.7), 1234);
    }

    /// Arrivals replay the entry's stream: each gap, then that transfer's size.
    #[test]
    fn transfers_start_at_exponential_gaps_with_drawn_sizes_and_numbered_names() {
        let a = entry(r#""arrival_rate":4,"size":{"distribution":"exponential","mean":"10kB"}"#);
        let end = SimTime::from_secs(50);
        let flows = transfers(&a, "flows[3]", 7, end, MAX_ARRIVALS).unwrap();
        let mut r = Rng::derive(7, "arrivals:web");
        let mut at = SimTime::ZERO;
        for (k, f) in flows.iter().enumerate() {
            at += SimTime::from_secs_f64(-0.25 * (1.0 - r.uniform()).ln());
            let size = (-10_000.0 * (1.0 - r.uniform()).ln()).ceil().max(1.0) as u64;
            assert_eq!(f.name, format!("web.{k}"));
            assert_eq!((f.start.unwrap().0, f.size.unwrap().0), (at, size));
            assert_eq!((f.src.as_str(), f.dst.as_str(), f.stop), ("a", "b", None));
        }
        // 4 per second for 50 s: 200 expected, within 3 standard deviations (√200 = 14).
        assert!(flows.len().abs_diff(200) < 42, "{}", flows.len());
        assert!(flows.last().unwrap().start.unwrap().0 < end);
        // The mean size is near 10 kB (standard error 10 kB/√200 = 0.7 kB).
        let mean = flows.iter().map(|f| f.size.unwrap().0).sum::<u64>() as f64 / flows.len() as f64;
        assert!((mean - 10_000.0).abs() < 2_500.0, "{mean}");
    }

    #[test]
    fn arrivals_begin_at_start_and_end_before_stop() {
        let a = entry(r#""arrival_rate":100,"size":1000,"start":2,"stop":3"#);
        let flows = transfers(&a, "flows[0]", 1, SimTime::from_secs(10), MAX_ARRIVALS).unwrap();
        let starts: Vec<f64> = flows.iter().map(|f| f.start.unwrap().secs()).collect();
        assert!(
            starts.iter().all(|&t| (2.0..3.0).contains(&t)),
            "{starts:?}"
        );
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        assert!(flows.len().abs_diff(100) < 30, "{}", flows.len());
        assert!(flows.iter().all(|f| f.size.unwrap().0 == 1000));
        // Another entry's name is another stream; the same name and seed, the same arrivals.
        let mut b = a.clone();
        b.name = "other".into();
        let again = transfers(&a, "flows[0]", 1, SimTime::from_secs(10), MAX_ARRIVALS).unwrap();
        let other = transfers(&b, "flows[0]", 1, SimTime::from_secs(10), MAX_ARRIVALS).unwrap();
        let starts = |v: &[TcpFlow]| v.iter().map(|f| f.start.unwrap().0).collect::<Vec<_>>();
        assert_eq!(starts(&again), starts(&flows));
        assert_ne!(starts(&other), starts(&flows));
    }

    #[test]
    fn bad_entries_name_the_field() {
        let end = SimTime::from_secs(10);
        let e = |json: &str| {
            transfers(&entry(json), "flows[2]", 1, end, MAX_ARRIVALS)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e(r#""arrival_rate":0,"size":1000"#),
            "flows[2].arrival_rate: 0 is not a positive number of transfers per second"
        );
        assert!(e(r#""arrival_rate":1e300,"size":1000"#)
            .starts_with("flows[2].arrival_rate: 1e300 per second from 0s to 10s starts more"));
        assert_eq!(
            e(r#""arrival_rate":1,"size":4611686018427387904"#),
            "flows[2].size: 4611686018427387904 bytes is outside 1..2^62"
        );
        assert_eq!(
            e(r#""arrival_rate":1,"size":{"distribution":"exponential","mean":100,"shape":2}"#),
            "flows[2].size.shape: a shape applies only to distribution = \"pareto\""
        );
        assert!(
            e(r#""arrival_rate":1,"size":{"distribution":"pareto","mean":100,"shape":0.9}"#)
                .starts_with("flows[2].size.shape: 0.9 is not a finite number greater than 1")
        );
        assert_eq!(
            e(r#""arrival_rate":1,"size":1000,"start":12"#),
            "flows[2].start: 12s is at or after the end of the run (10s)"
        );
        let many = transfers(
            &entry(r#""arrival_rate":1000,"size":1000"#),
            "flows[2]",
            1,
            end,
            50,
        );
        assert!(many
            .unwrap_err()
            .to_string()
            .starts_with("flows[2].arrival_rate: 1000 per second from 0s to 10s starts more"));
    }
}
