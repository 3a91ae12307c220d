//! Checks of a flow's resolved TCP settings (ranges, RFC limits, options that need SACK), with
//! errors that name the field.

use super::build::{err, Result};
use super::schema::TcpSpec;
use crate::config::Recovery;
use crate::tcp::acns::AcnsConfig;
use crate::time::SimTime;

/// PRR, RACK-TLP and the timeout that keeps the scoreboard work on the SACK scoreboard: asked
/// for with another recovery they are refused by name (a profile's default for them simply
/// does not apply, as in Linux without SACK).
pub(super) fn check_sack_only(spec: &TcpSpec, p: &crate::tcp::TcpParams, path: &str) -> Result<()> {
    if p.recovery == Recovery::Sack {
        return Ok(());
    }
    for (field, asked) in [
        ("prr", spec.prr),
        ("rack", spec.rack),
        ("tlp", spec.tlp),
        ("rto_keeps_sack", spec.rto_keeps_sack),
    ] {
        if asked == Some(true) {
            return err(
                format!("{path}.{field}"),
                format!(
                    "needs recovery = \"sack\" (this flow's recovery is \"{}\")",
                    p.recovery.name()
                ),
            );
        }
    }
    Ok(())
}

/// Checks a flow's resolved TCP settings; returns its ACNS settings, built, if it uses ACNS.
pub(super) fn check_tcp(p: &crate::tcp::TcpParams, path: &str) -> Result<Option<AcnsConfig>> {
    let acns = match &p.acns {
        Some(a) => Some(
            a.build()
                .or_else(|(field, m)| err(format!("{path}.acns.{field}"), m))?,
        ),
        None => None,
    };
    if p.mss < 1 || p.mss > 65_000 {
        return err(
            format!("{path}.mss"),
            format!("{} bytes is outside 1..=65000", p.mss),
        );
    }
    if p.header_bytes > 1000 {
        return err(format!("{path}.header_bytes"), "must be at most 1000 bytes");
    }
    if p.initial_ssthresh.is_nan() || p.initial_ssthresh < 2.0 {
        return err(
            format!("{path}.initial_ssthresh"),
            "must be at least 2 segments",
        );
    }
    if p.rwnd < p.mss as u64 {
        return err(
            format!("{path}.rwnd"),
            format!("{} bytes is less than one MSS ({} bytes)", p.rwnd, p.mss),
        );
    }
    if p.min_rto.as_nanos() == 0 || p.initial_rto.as_nanos() == 0 {
        return err(format!("{path}.min_rto"), "RTO values must be positive");
    }
    if p.max_rto < p.min_rto {
        return err(format!("{path}.max_rto"), "must not be below min_rto");
    }
    if p.delayed_ack
        && (p.delayed_ack_timeout.as_nanos() == 0
            || p.delayed_ack_timeout > SimTime::from_millis(500))
    {
        // RFC 1122 §4.2.3.2: the delay MUST be less than 0.5 s.
        return err(
            format!("{path}.delayed_ack_timeout"),
            "must be positive and at most 500 ms (RFC 1122)",
        );
    }
    if p.send_jitter > SimTime::from_secs(1) {
        return err(format!("{path}.send_jitter"), "must be at most 1 s");
    }
    for (field, v) in [
        ("pacing_ss_ratio", p.pacing_ss_ratio),
        ("pacing_ca_ratio", p.pacing_ca_ratio),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= 10_000.0) {
            return err(
                format!("{path}.{field}"),
                format!("{v} is not a percentage in (0, 10000]"),
            );
        }
    }
    if !(1..=4).contains(&p.sack_blocks) {
        return err(
            format!("{path}.sack_blocks"),
            "must be from 1 to 4 (RFC 2018)",
        );
    }
    if p.dupthresh == 0 {
        return err(format!("{path}.dupthresh"), "must be at least 1");
    }
    if p.dscp > 63 {
        return err(format!("{path}.dscp"), "must be from 0 to 63");
    }
    Ok(acns)
}
