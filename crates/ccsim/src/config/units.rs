//! Quantities with units as they appear in scenario files.
//!
//! Each accepts either a bare number in the base unit (seconds, bit/s, bytes) or a string with
//! a unit suffix: `"20ms"`, `"10Mbps"`, `"64KiB"`. Errors say which forms are accepted.

use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

use crate::time::{Rate, SimTime};

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| {
            !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a unit letter would be mis-split; units never start with 'e' here.
    let (num, unit) = s.split_at(end);
    num.parse::<f64>().ok().map(|v| (v, unit.trim()))
}

/// A duration in a scenario: seconds as a number, or a string such as `"20ms"`, `"1.5s"`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Duration(pub SimTime);

/// The unit suffixes `Duration::parse` reads (and the schema's pattern lists).
const DURATION_UNITS: [&str; 6] = ["ns", "us", "µs", "ms", "s", "min"];

const DURATION_FORMS: &str =
    "a number of seconds or a string with a unit: ns, us, ms, s, min (e.g. \"20ms\")";

impl Duration {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (v, unit) = split_number(s)
            .ok_or_else(|| format!("invalid duration {s:?}: expected {DURATION_FORMS}"))?;
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" | "" => 1.0,
            "min" => 60.0,
            _ => {
                return Err(format!(
                    "invalid duration unit {unit:?} in {s:?}: expected {DURATION_FORMS}"
                ))
            }
        };
        Self::from_secs(v * scale)
    }
    pub fn from_secs(v: f64) -> Result<Self, String> {
        if !v.is_finite() || v < 0.0 {
            return Err(format!(
                "invalid duration {v}: must be finite and not negative"
            ));
        }
        // Times are sums of durations in 64-bit nanoseconds, senders keep send times in 60 bits
        // (`tcp/seg_meta.rs`) and `SimTime::MAX` means none (`util/packed_option.rs`): a duration
        // beyond would saturate, overflow once added, or not fit.
        if v * 1e9 >= (1u64 << 60) as f64 {
            return Err(format!(
                "invalid duration {v}: must be under 2^60 ns (36 years)"
            ));
        }
        Ok(Duration(SimTime::from_secs_f64(v)))
    }
    pub fn secs(self) -> f64 {
        self.0.as_secs_f64()
    }
}

/// A rate in a scenario: bit/s as a number, or a string such as `"10Mbps"`, `"2.5Gb/s"`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateSpec(pub Rate);

const RATE_FORMS: &str =
    "a positive number of bit/s or a string with a unit: bits per second as bps, b/s or bit/s, \
bytes per second (x8) as Bps or B/s, each after an optional prefix k (or K), M, G, T \
(e.g. \"10Mbps\", \"2.5Gb/s\", \"300 kbit/s\", \"1.25MB/s\"); \
the case of b (bit) and B (byte) matters";

/// Decimal prefixes of a rate unit. Lower-case `m`, `g`, `t` are refused rather than guessed:
/// `m` is milli in SI, tc(8) reads "mbps" as megabytes per second where most people mean
/// megabits, and a unit whose case is guessed is how "10MBps" came to mean 10 Mbit/s.
const RATE_PREFIXES: [(&str, f64); 6] = [
    ("", 1.0),
    ("k", 1e3),
    ("K", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
];
/// Rate unit bodies after the prefix with their bits per unit: lower-case `b` is a bit and
/// upper-case `B` a byte (IEC 80000-13's symbol for the byte).
const RATE_BODIES: [(&str, f64); 5] = [
    ("bps", 1.0),
    ("b/s", 1.0),
    ("bit/s", 1.0),
    ("Bps", 8.0),
    ("B/s", 8.0),
];

/// Bits per second in one unit of `unit`, or `None` where it is not an accepted spelling.
fn rate_unit_scale(unit: &str) -> Option<f64> {
    if unit.is_empty() {
        return Some(1.0);
    }
    RATE_PREFIXES.iter().rev().find_map(|(p, pv)| {
        let body = unit.strip_prefix(p)?;
        RATE_BODIES
            .iter()
            .find(|(b, _)| *b == body)
            .map(|(_, bv)| pv * bv)
    })
}

impl RateSpec {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (v, unit) =
            split_number(s).ok_or_else(|| format!("invalid rate {s:?}: expected {RATE_FORMS}"))?;
        let scale = rate_unit_scale(unit)
            .ok_or_else(|| format!("invalid rate unit {unit:?} in {s:?}: expected {RATE_FORMS}"))?;
        Self::from_bps(v * scale)
    }
    pub fn from_bps(v: f64) -> Result<Self, String> {
        if !v.is_finite() || v < 1.0 {
            return Err(format!(
                "invalid rate {v}: must be a positive number of bit/s (at least 1)"
            ));
        }
        // Beyond, the conversion below would saturate: the rate taken would not be the one given.
        if v >= (1u64 << 63) as f64 {
            return Err(format!("invalid rate {v}: must be under 2^63 bit/s"));
        }
        Ok(RateSpec(Rate(v.round() as u64)))
    }
}

/// A size in bytes: a number, or a string such as `"1500B"`, `"64KB"` (10^3), `"64KiB"` (2^10).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Bytes(pub u64);

/// The unit suffixes `Bytes::parse` reads (and the schema's pattern lists).
const BYTES_UNITS: [&str; 8] = ["B", "KB", "kB", "MB", "GB", "KiB", "MiB", "GiB"];

const BYTES_FORMS: &str = "a positive number of bytes or a string with a unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024)";

impl Bytes {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (v, unit) =
            split_number(s).ok_or_else(|| format!("invalid size {s:?}: expected {BYTES_FORMS}"))?;
        let scale = match unit {
            "" | "B" => 1.0,
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => {
                return Err(format!(
                    "invalid size unit {unit:?} in {s:?}: expected {BYTES_FORMS}"
                ))
            }
        };
        Self::from_f64(v * scale)
    }
    pub fn from_f64(v: f64) -> Result<Self, String> {
        if !v.is_finite() || v < 1.0 || v.fract() != 0.0 {
            return Err(format!(
                "invalid size {v}: must be a positive whole number of bytes"
            ));
        }
        // Beyond, the conversion below would saturate: the size taken would not be the one given.
        if v >= (1u64 << 63) as f64 {
            return Err(format!("invalid size {v}: must be under 2^63 bytes"));
        }
        Ok(Bytes(v as u64))
    }
}

/// A number as a unit string may begin with it (`split_number`), as an ECMA 262 pattern: no
/// minus sign, since no quantity is negative.
const NUMBER_PATTERN: &str = r"\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?";

/// The JSON Schema of a quantity: a number in `number`'s range, or a string of a number and
/// one of `units` (or none), as `parse` reads it.
fn quantity_schema(descr: &str, number: serde_json::Value, units: &[&str]) -> schemars::Schema {
    let units: Vec<String> = units.iter().map(|u| regex_escape(u)).collect();
    let pattern = format!(r"^\s*{NUMBER_PATTERN}\s*(?:{})?\s*$", units.join("|"));
    schemars::json_schema!({
        "description": descr,
        "oneOf": [number, {"type": "string", "pattern": pattern}]
    })
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\^$.|?*+()[]{}/".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

fn duration_schema(descr: &str) -> schemars::Schema {
    let max = (1u64 << 62) as f64 / 1e9;
    let number = serde_json::json!({"type": "number", "minimum": 0, "exclusiveMaximum": max});
    quantity_schema(descr, number, &DURATION_UNITS)
}

fn rate_schema(descr: &str) -> schemars::Schema {
    let number = serde_json::json!({"type": "number", "minimum": 1, "exclusiveMaximum": (1u64 << 63) as f64});
    let units: Vec<String> = RATE_PREFIXES
        .iter()
        .flat_map(|(p, _)| RATE_BODIES.iter().map(move |(b, _)| format!("{p}{b}")))
        .collect();
    quantity_schema(
        descr,
        number,
        &units.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

fn bytes_schema(descr: &str) -> schemars::Schema {
    let number = serde_json::json!({"type": "integer", "minimum": 1, "exclusiveMaximum": (1u64 << 63) as f64});
    quantity_schema(descr, number, &BYTES_UNITS)
}

macro_rules! unit_serde {
    ($ty:ident, $forms:ident, $from_num:expr, $to_num:expr, $schema:ident, $descr:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str($forms)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $ty::parse(s).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        ($from_num)(v).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        ($from_num)(v as f64).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        ($from_num)(v as f64).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ($to_num)(self).serialize(s)
            }
        }
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $schema($descr)
            }
        }
    };
}

unit_serde!(
    Duration,
    DURATION_FORMS,
    Duration::from_secs,
    |d: &Duration| d.secs(),
    duration_schema,
    "Duration: seconds as a number, or a string with a unit ns/us/ms/s/min, e.g. \"20ms\"."
);
unit_serde!(
    RateSpec,
    RATE_FORMS,
    RateSpec::from_bps,
    |r: &RateSpec| r.0 .0,
    rate_schema,
    "Rate: bit/s as a number, or a string with a unit: bit/s as bps, b/s, bit/s or bytes/s (x8) as Bps, B/s, after an optional prefix k/K/M/G/T, e.g. \"10Mbps\", \"1.25MB/s\"."
);
unit_serde!(
    Bytes,
    BYTES_FORMS,
    Bytes::from_f64,
    |b: &Bytes| b.0,
    bytes_schema,
    "Size in bytes: a number, or a string with a unit B/KB/MB/GB/KiB/MiB/GiB, e.g. \"1500B\"."
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(Duration::parse("20ms").unwrap().0, SimTime::from_millis(20));
        assert_eq!(
            Duration::parse("1.5 s").unwrap().0,
            SimTime::from_millis(1500)
        );
        assert_eq!(Duration::parse("2").unwrap().0, SimTime::from_secs(2));
        assert_eq!(
            Duration::parse("100us").unwrap().0,
            SimTime::from_micros(100)
        );
        assert!(Duration::parse("5 fortnights").unwrap_err().contains("ms"));
        assert!(Duration::parse("-1s").is_err());
        assert!(Duration::from_secs(1e9).is_ok());
        assert!(Duration::from_secs(2e9).unwrap_err().contains("36 years"));
    }

    #[test]
    fn rates() {
        assert_eq!(RateSpec::parse("10Mbps").unwrap().0, Rate(10_000_000));
        assert_eq!(RateSpec::parse("2.5Gb/s").unwrap().0, Rate(2_500_000_000));
        assert_eq!(RateSpec::parse("300 kbit/s").unwrap().0, Rate(300_000));
        assert!(RateSpec::parse("0Mbps").is_err());
        assert!(RateSpec::parse("10 furlongs").unwrap_err().contains("Mbps"));
        assert!(RateSpec::from_bps(1e30).unwrap_err().contains("2^63"));
    }

    /// Issue 33, defect 4: "10MBps" and "10MB/s" were read case-insensitively as 10 Mbit/s.
    /// An upper-case B is a byte (x8); a spelling whose case would have to be guessed is an
    /// error that lists the accepted ones.
    #[test]
    fn rates_in_bytes_per_second_are_bytes() {
        assert_eq!(RateSpec::parse("10MBps").unwrap().0, Rate(80_000_000));
        assert_eq!(RateSpec::parse("10MB/s").unwrap().0, Rate(80_000_000));
        assert_eq!(RateSpec::parse("1.5 kB/s").unwrap().0, Rate(12_000));
        assert_eq!(RateSpec::parse("2KBps").unwrap().0, Rate(16_000));
        assert_eq!(RateSpec::parse("125B/s").unwrap().0, Rate(1000));
        assert_eq!(RateSpec::parse("1GBps").unwrap().0, Rate(8_000_000_000));
        // Bits stay bits, with every prefix and spelling.
        assert_eq!(RateSpec::parse("10Mb/s").unwrap().0, Rate(10_000_000));
        assert_eq!(RateSpec::parse("10Mbit/s").unwrap().0, Rate(10_000_000));
        assert_eq!(RateSpec::parse("64Kbps").unwrap().0, Rate(64_000));
        assert_eq!(RateSpec::parse("1Tbps").unwrap().0, Rate(1_000_000_000_000));
        assert_eq!(RateSpec::parse("640bps").unwrap().0, Rate(640));
        for bad in [
            "10MBPS", "10mbps", "10MBIT/S", "10Mbytes", "10 MiBps", "10Mbps/s",
        ] {
            let e = RateSpec::parse(bad).unwrap_err();
            assert!(e.contains("invalid rate unit"), "{bad}: {e}");
            assert!(
                e.contains("Bps or B/s") && e.contains("bps, b/s or bit/s"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(Bytes::parse("1500B").unwrap().0, 1500);
        assert_eq!(Bytes::parse("64KiB").unwrap().0, 65536);
        assert_eq!(Bytes::parse("1MB").unwrap().0, 1_000_000);
        assert!(Bytes::parse("0B").is_err());
        assert!(Bytes::parse("1.5B").is_err());
        assert_eq!(Bytes::from_f64(2f64.powi(62)).unwrap().0, 1 << 62);
        assert!(Bytes::from_f64(2f64.powi(63)).unwrap_err().contains("2^63"));
        assert!(Bytes::from_f64(1e30).is_err());
    }
}
