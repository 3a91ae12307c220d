//! Deserialization helpers shared by every configuration type: errors that keep the path of
//! the offending value, and tables tagged by `kind`.
//!
//! serde_path_to_error tracks the path through structs, maps and sequences, but serde's
//! internally tagged enums (`kind = "..."`) buffer their content and lose it. Our tagged enums
//! therefore deserialize their body with [`nested`], which carries the inner path out inside the
//! error message behind a marker; [`split_marker`] (used by the scenario's error type) stitches
//! the two together.

use serde::de::{self, DeserializeOwned};
use serde_json::Value;
use std::fmt;

const MARK: char = '\u{1f}';

/// Joins two path fragments: `a` + `b` → `a.b`, `a` + `[2]` → `a[2]`.
pub fn join_path(a: &str, b: &str) -> String {
    let a = if a == "." { "" } else { a };
    let b = if b == "." { "" } else { b };
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ if b.starts_with('[') => format!("{a}{b}"),
        _ => format!("{a}.{b}"),
    }
}

pub(crate) fn split_marker(outer: &str, msg: &str) -> (String, String) {
    let msg = msg.trim_start();
    if let Some(rest) = msg.strip_prefix(MARK) {
        if let Some((inner, m)) = rest.split_once(MARK) {
            return (join_path(outer, inner), m.to_string());
        }
    }
    // serde reports a missing field at the table that lacks it: the path names the field
    // itself (it was empty for a scenario without `duration`).
    if let Some(field) = msg
        .strip_prefix("missing field `")
        .and_then(|r| r.split_once('`'))
        .map(|(f, _)| f)
    {
        return (join_path(outer, field), msg.to_string());
    }
    (join_path(outer, ""), msg.to_string())
}

/// An error located at `rel` relative to the value being deserialized.
pub(crate) fn err_at<E: de::Error>(rel: &str, msg: impl fmt::Display) -> E {
    E::custom(format!("{MARK}{rel}{MARK}{msg}"))
}

/// Deserializes `T` from `v`, carrying the path of any error out of the buffered value.
pub(crate) fn nested<T: DeserializeOwned, E: de::Error>(v: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let outer = e.path().to_string();
        let (path, m) = split_marker(&outer, &e.into_inner().to_string());
        err_at(&path, m)
    })
}

/// A table tagged by `kind` (`{ kind = "red", limit = 50 }`), or with a shorthand a bare name
/// (`"reno"` for `{ kind = "reno" }`), read but not yet dispatched on its kind.
pub(crate) struct Tagged {
    pub kind: String,
    body: Value,
    named: bool,
    what: &'static str,
    tags: &'static [&'static str],
}

/// The kinds of a family as messages list them: `"a", "b", "c"` (built only for an error).
fn accepted(tags: &[&str]) -> String {
    let quoted: Vec<String> = tags.iter().map(|t| format!("\"{t}\"")).collect();
    quoted.join(", ")
}

impl Tagged {
    /// Reads the table; `what` names the family in messages ("queue kind") and `tags` lists its
    /// kinds.
    pub(crate) fn read<'de, D: de::Deserializer<'de>>(
        d: D,
        what: &'static str,
        shorthand: bool,
        tags: &'static [&'static str],
    ) -> Result<Tagged, D::Error> {
        use serde::Deserialize;
        let mut named = false;
        let mut map = match Value::deserialize(d)? {
            Value::Object(m) => m,
            Value::String(s) if shorthand => {
                named = true;
                let mut m = serde_json::Map::new();
                m.insert("kind".into(), Value::String(s));
                m
            }
            other => {
                let forms = if shorthand { "a name or " } else { "" };
                let accepted = accepted(tags);
                return Err(de::Error::custom(format!(
                    "invalid {what} {other}: expected {forms}a table with `kind` = one of {accepted}"
                )));
            }
        };
        let kind = match map.remove("kind") {
            Some(Value::String(s)) => s,
            Some(_) => {
                let accepted = accepted(tags);
                return Err(err_at(
                    "kind",
                    format!("expected a string naming the {what}: one of {accepted}"),
                ));
            }
            None => {
                let accepted = accepted(tags);
                return Err(de::Error::custom(format!(
                    "missing field `kind`: the {what} is one of {accepted}"
                )));
            }
        };
        Ok(Tagged {
            kind,
            body: Value::Object(map),
            named,
            what,
            tags,
        })
    }

    /// The rest of the table as the configuration of its kind.
    pub(crate) fn body<T: DeserializeOwned, E: de::Error>(self) -> Result<T, E> {
        nested(self.body)
    }

    /// The error for a kind that is not in the family.
    pub(crate) fn unknown<E: de::Error>(&self) -> E {
        let (what, kind, accepted) = (self.what, &self.kind, accepted(self.tags));
        let msg = format!("unknown {what} \"{kind}\": expected one of {accepted}");
        // A bare name is located at the value itself, a table at its `kind`.
        if self.named {
            E::custom(msg)
        } else {
            err_at("kind", msg)
        }
    }
}

/// Implements `Deserialize` for an enum written in scenarios as a table with `kind = "..."`.
/// With `shorthand`, a bare string `"name"` also stands for `{ kind = "name" }`.
macro_rules! tagged_enum {
    ($enum:ident, $what:literal, shorthand, { $($tag:literal => $variant:ident),* $(,)? }) => {
        $crate::config::de::tagged_enum!(@impl $enum, $what, true, { $($tag => $variant),* });
    };
    ($enum:ident, $what:literal, { $($tag:literal => $variant:ident),* $(,)? }) => {
        $crate::config::de::tagged_enum!(@impl $enum, $what, false, { $($tag => $variant),* });
    };
    (@impl $enum:ident, $what:literal, $short:literal, { $($tag:literal => $variant:ident),* }) => {
        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let t = $crate::config::de::Tagged::read(d, $what, $short, &[$($tag),*])?;
                match t.kind.clone().as_str() {
                    $($tag => t.body().map($enum::$variant),)*
                    _ => Err(t.unknown()),
                }
            }
        }
    };
}
pub(crate) use tagged_enum;
