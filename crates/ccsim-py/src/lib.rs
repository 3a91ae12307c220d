//! placeholder until bindings are written
