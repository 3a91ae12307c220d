//! ccsim: a packet-level discrete-event simulator for TCP congestion-control research.
//!
//! A scenario (JSON of the schema in [`scenario::schema`]) is parsed and validated into a
//! [`sim::Simulation`], run in virtual time, and summarised as columnar [`results::Results`].
//! The crate knows nothing of Python; `ccsim-py` binds it.

pub mod acns;
pub mod app;
pub mod config;
pub mod dist;
pub mod engine;
pub mod net;
pub mod packet;
pub mod queue;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod util;

pub use scenario::ScenarioError;
pub use sim::Simulation;

/// How this core was compiled: `"release"` or `"debug"` (debug assertions on), then
/// `", PGO"` for a profile-guided build (`bench/pgo.py`) or `", instrumented"` for the build
/// that collects the profile, then `", native"` where it was compiled for the building
/// machine's processor (`-Ctarget-cpu=native`). Benchmarks print it beside their figures.
pub const BUILD: &str = match (cfg!(debug_assertions), env!("CCSIM_CODEGEN").as_bytes()) {
    (true, b"pgo") => concat!("debug, PGO", env!("CCSIM_TARGET_CPU")),
    (true, b"instrumented") => concat!("debug, instrumented", env!("CCSIM_TARGET_CPU")),
    (true, _) => concat!("debug", env!("CCSIM_TARGET_CPU")),
    (false, b"pgo") => concat!("release, PGO", env!("CCSIM_TARGET_CPU")),
    (false, b"instrumented") => concat!("release, instrumented", env!("CCSIM_TARGET_CPU")),
    (false, _) => concat!("release", env!("CCSIM_TARGET_CPU")),
};

/// A fingerprint of the source this core was compiled from (16 hex digits; `build.rs`): two
/// builds with equal fingerprints and versions give the same results for the same scenario,
/// whatever the compiler flags (a profile-guided build changes no result). Sweeps key their
/// cached points by it.
pub const SOURCE: &str = env!("CCSIM_SOURCE");

/// Runs a scenario given as JSON to its end and returns its results.
pub fn run_json(json: &str) -> Result<results::Results, ScenarioError> {
    let mut sim = scenario::load(json)?;
    sim.run();
    Ok(results::collect(&mut sim))
}
