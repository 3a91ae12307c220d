//! Applications that are not TCP's own: constant-bit-rate UDP.

pub mod cbr;

pub use cbr::Cbr;
