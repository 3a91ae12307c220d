//! The vocabulary that scenarios and the simulation share: units, defaults profiles, TCP
//! options, series names, and the deserialization helpers every configuration type uses.
//!
//! Data flows one way: `scenario` parses and builds, the simulation (`engine`, `net`, `queue`,
//! `tcp`, `sim`, `trace`, `results`) runs. Both import this module; nothing here imports either,
//! and nothing in the simulation imports `scenario`.

pub mod de;
mod engine;
mod profile;
mod series;
mod tcp;
pub mod units;

pub use engine::Engine;
pub use profile::Profile;
pub use series::{SeriesName, SeriesSource};
pub use tcp::{AckCounting, Pacing, Recovery, RtoFloor};

/// A configuration's invalid parameter: the field's name and what is wrong with it (and what
/// is accepted). The scenario builder prefixes the field with the path of its table.
pub type ParamError = (&'static str, String);
