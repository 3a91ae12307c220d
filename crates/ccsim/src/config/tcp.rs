//! TCP settings that scenarios name and the sender implements.

use schemars::JsonSchema;
use serde::Deserialize;

/// Loss recovery: how the sender finds and repairs lost segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment (go-back-N).
    Tahoe,
    /// RFC 5681 fast recovery; leaves recovery on the first new ACK.
    Reno,
    /// RFC 6582: stays in recovery through partial ACKs.
    Newreno,
    /// RFC 6675 SACK scoreboard with pipe and NextSeg.
    Sack,
}

impl Recovery {
    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::Newreno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// What an ACK counts for window growth: the segments it acknowledges (RFC 3465 byte
/// counting, Linux) or at most one (RFC 5681 equations 2–3, ns-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AckCounting {
    Segments,
    Acks,
}

/// Where the minimum RTO applies: to the whole RTO (RFC 6298 2.4, ns-2) or to its variance
/// term (Linux `tcp_rto_min`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RtoFloor {
    Rto,
    Variance,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results name a recovery as a scenario does.
    #[test]
    fn a_recovery_is_reported_by_the_name_that_selects_it() {
        for r in [
            Recovery::Tahoe,
            Recovery::Reno,
            Recovery::Newreno,
            Recovery::Sack,
        ] {
            let parsed: Recovery = serde_json::from_str(&format!("\"{}\"", r.name())).unwrap();
            assert_eq!(parsed, r);
        }
    }
}

/// Whether the sender paces its transmissions (spaces them at a pacing rate rather than
/// sending what the window allows at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Pacing {
    /// Only algorithms that ask for pacing (BBR) are paced, at their own rate: Linux's TCP
    /// pacing without the `fq` qdisc (`SK_PACING_NEEDED`).
    Auto,
    /// Every flow is paced: at its algorithm's rate, or at Linux's rule for algorithms that
    /// set none (`tcp_update_pacing_rate`): Linux with the `fq` qdisc.
    On,
    /// No pacing, even for algorithms that ask for it.
    Off,
}
