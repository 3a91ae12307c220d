//! Scenario errors that name the exact path of the offending value.
//!
//! serde_path_to_error tracks the path through structs, maps and sequences, but serde's
//! internally tagged enums (`kind = "..."`) buffer their content and lose it. Our tagged enums
//! therefore deserialize their body with [`nested`], which carries the inner path out inside the
//! error message behind a marker; [`ScenarioError::from_path_error`] stitches the two together.

use serde::de::{self, DeserializeOwned};
use serde_json::Value;
use std::fmt;

/// A scenario that failed to parse or validate: `path` names the value (e.g. `flows[2].tcp.recovery`),
/// `message` says what is wrong and what is accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn from_path_error(e: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let outer = e.path().to_string();
        let msg = e.into_inner().to_string();
        let (path, message) = split_marker(&outer, &msg);
        // serde_json appends " at line L column C"; the path already locates the value.
        let message = match message.rfind(" at line ") {
            Some(i) if message[i..].contains(" column ") => message[..i].to_string(),
            _ => message,
        };
        ScenarioError { path, message }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

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

fn split_marker(outer: &str, msg: &str) -> (String, String) {
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

/// Implements `Deserialize` for an enum written in scenarios as a table with `kind = "..."`.
/// With `shorthand`, a bare string `"name"` also stands for `{ kind = "name" }`.
macro_rules! tagged_enum {
    ($enum:ident, $what:literal, shorthand, { $($tag:literal => $variant:ident),* $(,)? }) => {
        $crate::scenario::error::tagged_enum!(@impl $enum, $what, true, { $($tag => $variant),* });
    };
    ($enum:ident, $what:literal, { $($tag:literal => $variant:ident),* $(,)? }) => {
        $crate::scenario::error::tagged_enum!(@impl $enum, $what, false, { $($tag => $variant),* });
    };
    (@impl $enum:ident, $what:literal, $short:literal, { $($tag:literal => $variant:ident),* }) => {
        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let accepted = [$(concat!("\"", $tag, "\"")),*].join(", ");
                let mut named = false;
                let mut map = match serde_json::Value::deserialize(d)? {
                    serde_json::Value::Object(m) => m,
                    serde_json::Value::String(s) if $short => {
                        named = true;
                        let mut m = serde_json::Map::new();
                        m.insert("kind".into(), serde_json::Value::String(s));
                        m
                    }
                    other => return Err(D::Error::custom(format!(
                        "invalid {} {}: expected {}a table with `kind` = one of {}",
                        $what, other, if $short { "a name or " } else { "" }, accepted))),
                };
                let kind = match map.remove("kind") {
                    Some(serde_json::Value::String(s)) => s,
                    Some(_) => return Err($crate::scenario::error::err_at(
                        "kind", format!("expected a string naming the {}: one of {}", $what, accepted))),
                    None => return Err(D::Error::custom(format!(
                        "missing field `kind`: the {} is one of {}", $what, accepted))),
                };
                match kind.as_str() {
                    $($tag => Ok($enum::$variant($crate::scenario::error::nested(serde_json::Value::Object(map))?)),)*
                    other => {
                        let msg = format!("unknown {} \"{}\": expected one of {}", $what, other, accepted);
                        // A bare name is located at the value itself, a table at its `kind`.
                        Err(if named { D::Error::custom(msg) } else { $crate::scenario::error::err_at("kind", msg) })
                    }
                }
            }
        }
    };
}
pub(crate) use tagged_enum;
