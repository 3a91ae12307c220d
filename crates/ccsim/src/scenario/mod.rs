//! Scenarios: the schema (serde; each algorithm's and discipline's own configuration lives
//! beside it, in `tcp/cc/` and `queue/`), defaults profiles, validation and building.

pub mod arrivals;
pub mod build;
pub mod error;
pub mod json_schema;
pub mod profiles;
pub mod schema;
mod tcp_check;

pub use error::ScenarioError;
pub use schema::Scenario;

/// Parses a scenario from JSON; errors name the path of the offending value.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(ScenarioError::from_path_error)
}

/// Parses and validates a scenario and builds its simulation.
pub fn load(json: &str) -> Result<crate::sim::Simulation, ScenarioError> {
    load_with(json, &[])
}

/// `load`, with the congestion-control algorithms that the embedding program supplies for
/// `cc = { kind = "external", slot = k }` (`tcp/cc/external.rs`).
pub fn load_with(
    json: &str,
    external: &[Box<crate::tcp::cc::ExternalFactory>],
) -> Result<crate::sim::Simulation, ScenarioError> {
    build::build(&parse(json)?, external)
}

/// The scenario JSON Schema, pretty-printed (`json_schema.rs`).
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&json_schema::scenario_schema())
        .expect("a schema always serialises")
}
