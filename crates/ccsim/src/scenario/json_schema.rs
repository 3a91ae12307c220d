//! The scenario's JSON Schema (`ccsim schema`, draft 2020-12): schemars' derivation from the
//! scenario types, finished with what the derivation cannot say.
//!
//! - A `kind`-tagged table that a bare name also stands for (`cc = "reno"`, `slow_start =
//!   "limited"`; `tagged_enum!` with `shorthand`, `config/de.rs`) accepts the names too: without
//!   them the schema refused 7 of the 12 shipped scenarios (issue 33).
//! - `"default": null`, which schemars writes for an optional field, says nothing (the field's
//!   default is its profile's, as its description says) and read as "the default is null": it
//!   goes. Defaults that are values stay.
//! - Every definition and property gets a `title` (its name), the root an `$id` and a title.
//! - Unsigned integers get their type's largest value as `maximum`, unless a field's range is
//!   narrower.
//!
//! Units (`units.rs`) carry their own patterns and ranges, and fields their ranges
//! (`#[schemars(range)]`), beside their definitions.

use serde_json::{json, Map, Value};

use super::schema::Scenario;

/// Definitions of `kind`-tagged enums that also take a bare name (`tagged_enum!` with
/// `shorthand`). `every_shorthand_enum_is_listed` checks the list against the schema.
const SHORTHAND: [&str; 2] = ["CcSpec", "SlowStartSpec"];

/// The schema's `$id`: a name, not a location (the schema is printed by `ccsim schema`, not
/// served), with the version whose scenarios it describes.
pub fn schema_id() -> String {
    format!("urn:ccsim:scenario:{}", env!("CARGO_PKG_VERSION"))
}

/// The scenario JSON Schema as a value.
pub fn scenario_schema() -> Value {
    let schema = schemars::schema_for!(Scenario);
    let mut v = serde_json::to_value(&schema).expect("a schema always serialises");
    finish(&mut v);
    v
}

fn finish(v: &mut Value) {
    let root = v.as_object_mut().expect("the root schema is an object");
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        for name in SHORTHAND {
            if let Some(def) = defs.get_mut(name) {
                add_shorthand(def);
            }
        }
        for (name, def) in defs.iter_mut() {
            if let Value::Object(d) = def {
                d.entry("title").or_insert_with(|| json!(name));
            }
        }
    }
    walk(v);
    let root = v.as_object_mut().expect("the root schema is an object");
    // `$schema` first, then `$id`, as readers expect them.
    let mut out = Map::new();
    if let Some(s) = root.remove("$schema") {
        out.insert("$schema".into(), s);
    }
    out.insert("$id".into(), json!(schema_id()));
    out.insert("title".into(), json!("ccsim scenario"));
    root.remove("title");
    out.extend(std::mem::take(root));
    *v = Value::Object(out);
}

/// Adds the bare names of a tagged enum's variants (their `kind` constants) as one more
/// alternative.
fn add_shorthand(def: &mut Value) {
    let Some(Value::Array(alts)) = def.get_mut("oneOf") else {
        return;
    };
    let names: Vec<Value> = alts
        .iter()
        .filter_map(|a| a.pointer("/properties/kind/const").cloned())
        .collect();
    alts.push(json!({
        "title": "name",
        "description": "The name alone: the kind with its default parameters.",
        "type": "string",
        "enum": names,
    }));
}

/// Removes `"default": null` and titles every property, throughout.
fn walk(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("default") == Some(&Value::Null) {
                m.remove("default");
            }
            // An unsigned integer field's largest value (schemars gives only the minimum): a
            // 20-digit seed is refused by the schema as by the core.
            let max = match m.get("format").and_then(Value::as_str) {
                Some("uint8") => Some(u8::MAX as u64),
                Some("uint16") => Some(u16::MAX as u64),
                Some("uint32") => Some(u32::MAX as u64),
                Some("uint64") => Some(u64::MAX),
                _ => None,
            };
            if let Some(max) = max {
                m.entry("maximum").or_insert_with(|| json!(max));
            }
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for (name, p) in props.iter_mut() {
                    if let Value::Object(pm) = p {
                        pm.entry("title").or_insert_with(|| json!(name));
                    }
                }
            }
            m.values_mut().for_each(walk);
        }
        Value::Array(a) => a.iter_mut().for_each(walk),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shorthand_enum_is_listed() {
        let v = scenario_schema();
        let defs = v["$defs"].as_object().unwrap();
        for name in SHORTHAND {
            let alts = defs[name]["oneOf"].as_array().unwrap();
            let names = alts.last().unwrap()["enum"].as_array().unwrap();
            assert!(names.len() > 1, "{name}");
        }
        // A bare name deserialises exactly where the schema lists one.
        assert!(serde_json::from_str::<crate::tcp::cc::CcSpec>("\"reno\"").is_ok());
        assert!(serde_json::from_str::<crate::queue::QueueSpec>("\"red\"").is_err());
        let queue = &defs["QueueSpec"]["oneOf"];
        assert!(queue
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["type"] != "string"));
    }

    #[test]
    fn no_null_defaults_and_every_property_titled() {
        let v = scenario_schema();
        assert_eq!(v["$id"], schema_id());
        assert_eq!(v["title"], "ccsim scenario");
        fn check(v: &Value) {
            match v {
                Value::Object(m) => {
                    assert_ne!(m.get("default"), Some(&Value::Null));
                    if let Some(Value::Object(p)) = m.get("properties") {
                        assert!(p.values().all(|s| s.get("title").is_some()));
                    }
                    m.values().for_each(check);
                }
                Value::Array(a) => a.iter().for_each(check),
                _ => {}
            }
        }
        check(&v);
        assert_eq!(v["properties"]["seed"]["default"], 1);
        assert_eq!(v["properties"]["seed"]["maximum"], u64::MAX);
    }
}
