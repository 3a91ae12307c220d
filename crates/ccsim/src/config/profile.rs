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

impl Profile {
    /// Default queue capacity in packets (DropTail, and the XCP and ACNS routers): Linux's
    /// `txqueuelen` 1000, ns-2's `limit_ 50` (49 waiting), 100 for the RFCs.
    pub fn queue_limit(self) -> u32 {
        match self {
            Profile::Linux => 1000,
            Profile::Ns2 => 49,
            Profile::Rfc => 100,
        }
    }
}
