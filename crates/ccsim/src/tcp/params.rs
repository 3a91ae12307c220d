//! The settings of one connection, resolved from a scenario and its defaults profile.

use crate::config::{AckCounting, Pacing, Recovery, RtoFloor};
use crate::tcp::cc::CcSpec;
use crate::tcp::slow_start::SlowStartSpec;
use crate::time::SimTime;

/// Fully resolved TCP settings of one connection.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpParams {
    pub cc: CcSpec,
    pub slow_start: SlowStartSpec,
    pub recovery: Recovery,
    pub mss: u32,
    pub header_bytes: u32,
    /// Initial window in segments.
    pub initial_window: u32,
    pub initial_ssthresh: f64,
    /// Receiver window in bytes; `u64::MAX` is unlimited.
    pub rwnd: u64,
    pub min_rto: SimTime,
    pub initial_rto: SimTime,
    pub max_rto: SimTime,
    pub clock_granularity: SimTime,
    pub rto_floor: RtoFloor,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: SimTime,
    pub limited_transmit: bool,
    /// Grow the window only while the flight uses it (Linux `tcp_is_cwnd_limited`).
    pub cwnd_limited: bool,
    pub handshake: bool,
    pub timestamps: bool,
    pub sack_blocks: u8,
    pub ack_counting: AckCounting,
    pub dupthresh: u32,
    pub dscp: u8,
    /// The sender asks for ECN (RFC 3168).
    pub ecn: bool,
    /// The receiver accepts ECN.
    pub receiver_ecn: bool,
    /// The receiver supports Accurate ECN when the sender asks for it (`tcp/accecn.rs`).
    pub receiver_accecn: bool,
    /// The receiver acknowledges as Linux does (`tcp/quickack.rs`).
    pub receiver_quickack: bool,
    /// ACNS at the sender (Olšovský 2014), if asked for.
    pub acns: Option<crate::tcp::acns::AcnsSpec>,
    /// The receiver supports ACNS.
    pub receiver_acns: bool,
    /// Whether the sender paces (`tcp/pacing.rs`).
    pub pacing: Pacing,
    /// Proportional Rate Reduction (RFC 6937) as SACK recovery's window rule.
    pub prr: bool,
    /// RACK loss detection (RFC 8985 §6, Linux `tcp_recovery` bit 1) in place of the
    /// duplicate-ACK threshold, on a SACK connection (`tcp/rack.rs`).
    pub rack: bool,
    /// Tail-loss probes (RFC 8985 §7, Linux `tcp_early_retrans = 3`), on a SACK connection
    /// (`tcp/tlp.rs`).
    pub tlp: bool,
    /// A retransmission timeout keeps the SACK scoreboard and resends only what is not
    /// SACKed (Linux `tcp_enter_loss`); off, it forgets it and goes back to SND.UNA.
    pub rto_keeps_sack: bool,
    /// Each segment waits a uniform random time up to this before it leaves (zero: none).
    pub send_jitter: SimTime,
    /// Linux's `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, percent.
    pub pacing_ss_ratio: f64,
    pub pacing_ca_ratio: f64,
}
