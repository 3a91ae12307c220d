//! Defaults profiles: which implementation's defaults fill in what a scenario leaves out
//! (the tables are in `scenario/profiles.rs`).

use schemars::JsonSchema;
use serde::Deserialize;

/// Which implementation's defaults fill in unspecified settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Linux-like: MSS 1448 with timestamps, IW 10, RTO floor 200 ms on the variance term, SACK.
    #[default]
    Linux,
    /// ns-2.35 `Agent/TCP` defaults: 1000-byte packets, window_ 20, IW 2, no delayed ACKs.
    Ns2,
    /// The RFCs' recommendations: RFC 3390 IW, RFC 6298 RTO (1 s minimum), delayed ACKs.
    Rfc,
}
