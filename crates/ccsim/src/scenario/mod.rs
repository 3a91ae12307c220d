//! Scenarios: the schema (serde; queue disciplines in `aqm.rs`), defaults profiles, validation
//! and building.

pub mod aqm;
pub mod arrivals;
pub mod build;
pub mod error;
pub mod json_schema;
pub mod profiles;
pub mod schema;
pub mod units;

pub use error::ScenarioError;
pub use schema::Scenario;

/// Parses a scenario from JSON; errors name the path of the offending value.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(ScenarioError::from_path_error)
}

/// Parses and validates a scenario and builds its simulation.
pub fn load(json: &str) -> Result<crate::sim::Simulation, ScenarioError> {
    build::build(&parse(json)?)
}

/// The scenario JSON Schema, pretty-printed (`json_schema.rs`).
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&json_schema::scenario_schema())
        .expect("a schema always serialises")
}
