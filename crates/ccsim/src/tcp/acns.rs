//! ACNS at the endpoints — Olšovský 2014 §3.2–3.3 and §4.2 (decisions in
//! `docs/design.md`; header codes and Eq. 5 in `crate::acns`). ACNS works with any
//! TCP variant, so it lives in the sender, around the congestion control, not in `cc/`.
//!
//! Negotiation (§4.2.3): the SYN carries ECE, CWR and CMT; a receiver that supports ACNS
//! answers ECE and CMT. A receiver that only knows ECN answers ECE and the connection uses
//! plain ECN (RFC 3168); one that knows neither leaves both off. Without a handshake, ACNS is
//! on when the sender asks for it and the receiver supports it.
//!
//! Sender:
//! * New data is ECT(0) (I2). The last segment of each window of data asks routers for a
//!   command (I4): the first new segment at or past `next_request`, which then moves one window
//!   on. With `request = "every-packet"` every new segment asks. Retransmissions are Not-ECT.
//! * An ACK that acknowledges the asking segment is the routers' answer, as is any ACK that
//!   carries freeze or fallback. The answer goes into the list of received commands `P`, and
//!   holds until the next answer (a decision: the paper asks once per window, and a freeze
//!   that held for one ACK of the window would freeze nothing): while it is freeze or
//!   fallback the window does not grow; a fallback sets it once, on arrival, to the most
//!   recent smaller whole-segment window it had (the sender keeps the last `history` of them;
//!   one segment less if none is known) and ends slow start there. Commands act only outside
//!   loss recovery: an answer that arrives during it goes into `P` and holds nothing.
//! * On a loss found by duplicate ACKs, the trend weight of the newest `omega_count` commands
//!   (Eq. 5) gives the response (§3.3, Eq. 7): below `th_L1` the window is kept (freeze, 2 goes
//!   into `P`); below `th_L2` it falls back (3 into `P`); otherwise the variant's own decrease
//!   (3 into `P`). With no command received yet, the variant's own decrease. Either way the
//!   lost segment is retransmitted and recovery runs as usual, to the window chosen. A
//!   retransmission timeout is the variant's own.
//!
//! Receiver: echoes on each ACK the most severe command of the data packets it acknowledges
//! (Table 3), and acknowledges a freeze or a fallback at once, as ECN does its first CE.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::Deserialize;

use super::cc::CaState;
use super::ecn::EcnEcho;
use super::sender::Sender;
use crate::acns::{self, Command};
use crate::packet::{flags, Packet};
use crate::util::packed_option::Opt;

/// Which new segments ask routers for a command.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Request {
    /// The last segment of each window of data (§4.1.1).
    #[default]
    Window,
    /// Every new segment.
    EveryPacket,
}

/// The sender's ACNS settings (`tcp.acns`): `true` for Table 1's, or a table of them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcnsSpec {
    /// "window" (default) or "every-packet".
    #[serde(default)]
    pub request: Option<Request>,
    /// Received commands in the trend weight, ω_count (1–64). Default 10.
    #[serde(default)]
    pub omega_count: Option<u32>,
    /// Step of the trend weight's exponential decrease, σ > 0. Default 3.
    #[serde(default)]
    pub sigma: Option<f64>,
    /// Trend weight below which a loss keeps the window, th_L1. Default 1.8413.
    #[serde(default)]
    pub th_l1: Option<f64>,
    /// Trend weight below which a loss falls back, th_L2 ≥ th_L1. Default 2.1587.
    #[serde(default)]
    pub th_l2: Option<f64>,
    /// Earlier whole-segment windows kept for fallback (1–1024). Default 16.
    #[serde(default)]
    pub history: Option<u32>,
}

/// `tcp.acns`: `true` (Table 1's settings), `false`, or a table of settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AcnsSwitch(pub Option<AcnsSpec>);

impl<'de> Deserialize<'de> for AcnsSwitch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Bool(on) => Ok(AcnsSwitch(on.then(AcnsSpec::default))),
            v @ serde_json::Value::Object(_) => {
                crate::config::de::nested(v).map(|s| AcnsSwitch(Some(s)))
            }
            other => Err(D::Error::custom(format!(
                "invalid acns {other}: expected true, false or a table of ACNS settings"
            ))),
        }
    }
}

impl JsonSchema for AcnsSwitch {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AcnsSwitch".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let table = g.subschema_for::<AcnsSpec>();
        schemars::json_schema!({
            "description": "ACNS at the sender: true (Table 1's settings), false, or a table.",
            "oneOf": [{"type": "boolean"}, table]
        })
    }
}

/// Table 1's ω_count, σ, th_L1 and th_L2.
pub const OMEGA_COUNT: u32 = 10;
pub const SIGMA: f64 = 3.0;
pub const TH_L1: f64 = 1.8413;
pub const TH_L2: f64 = 2.1587;
/// Windows kept for fallback (not in the paper).
pub const HISTORY: u32 = 16;

/// Resolved and checked settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AcnsConfig {
    pub request: Request,
    pub omega_count: usize,
    pub sigma: f64,
    pub th_l1: f64,
    pub th_l2: f64,
    pub history: usize,
}

impl AcnsSpec {
    /// The settings, or the field and message of an invalid one.
    pub fn build(&self) -> Result<AcnsConfig, (&'static str, String)> {
        let omega = self.omega_count.unwrap_or(OMEGA_COUNT);
        if !(1..=64).contains(&omega) {
            return Err(("omega_count", format!("{omega} is outside 1..=64")));
        }
        let positive = |v: Option<f64>, def: f64, field: &'static str| match v.unwrap_or(def) {
            x if x.is_finite() && x > 0.0 => Ok(x),
            x => Err((field, format!("{x} must be a positive number"))),
        };
        let sigma = positive(self.sigma, SIGMA, "sigma")?;
        let th_l1 = positive(self.th_l1, TH_L1, "th_l1")?;
        let th_l2 = positive(self.th_l2, TH_L2, "th_l2")?;
        if th_l2 < th_l1 {
            return Err(("th_l2", format!("{th_l2} must be at least th_l1 ({th_l1})")));
        }
        let history = self.history.unwrap_or(HISTORY);
        if !(1..=1024).contains(&history) {
            return Err(("history", format!("{history} is outside 1..=1024")));
        }
        Ok(AcnsConfig {
            request: self.request.unwrap_or_default(),
            omega_count: omega as usize,
            sigma,
            th_l1,
            th_l2,
            history: history as usize,
        })
    }
}

/// What an ACNS sender did, reported per flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AcnsStats {
    /// Freeze and fallback commands from routers that acted on the window.
    pub freezes: u64,
    pub fallbacks: u64,
    /// Losses answered by each trend command: keep, fall back, the variant's decrease.
    pub trend: [u64; 3],
}

/// The sender's ACNS state, boxed: only ACNS connections pay for it.
#[derive(Clone, Debug)]
pub struct AcnsSender {
    c: AcnsConfig,
    /// Received commands `P`, the newest first, at most `omega_count`.
    received: VecDeque<Command>,
    /// Earlier whole-segment windows, the newest last, at most `history`.
    windows: VecDeque<u32>,
    /// The whole-segment window when last noted.
    whole: u32,
    /// The next new segment that asks for a command.
    next_request: u64,
    /// The segment whose answer is awaited (asking once a window).
    pending: Opt<u64>,
    /// The last answer, in force until the next.
    holding: Command,
    pub stats: AcnsStats,
}

impl AcnsSender {
    pub fn new(c: AcnsConfig) -> AcnsSender {
        AcnsSender {
            c,
            received: VecDeque::new(),
            windows: VecDeque::new(),
            whole: 0,
            next_request: 0,
            pending: Opt::NONE,
            holding: Command::Normal,
            stats: AcnsStats::default(),
        }
    }

    fn receive(&mut self, c: Command) {
        self.received.push_front(c);
        self.received.truncate(self.c.omega_count);
    }

    /// Notes the window's whole-segment value, keeping the one it replaces.
    fn note_window(&mut self, cwnd: f64) {
        let w = cwnd as u32; // floor for a non-negative window
        if w != self.whole {
            self.windows.push_back(self.whole);
            if self.windows.len() > self.c.history {
                self.windows.pop_front();
            }
            self.whole = w;
        }
    }

    /// The most recent earlier window smaller than `cwnd` (Eq. 6's `cwnd_last_x`), dropping
    /// it and the windows after it from the history; one segment less if none is kept.
    fn fall_back(&mut self, cwnd: f64) -> f64 {
        let cur = cwnd as u32;
        let w = loop {
            match self.windows.pop_back() {
                Some(w) if w >= 1 && w < cur => break w,
                Some(_) => {}
                None => break cur.saturating_sub(1).max(1),
            }
        };
        self.whole = w;
        w as f64
    }

    /// The trend command for a loss (Eq. 5 against th_L1, th_L2); the variant's decrease
    /// (`Fallback`, the paper's C_trend = 3) with no command received.
    fn trend(&self) -> Command {
        match acns::trend_weight(
            self.received.iter().copied(),
            self.c.omega_count,
            self.c.sigma,
        ) {
            Some(w) => Command::of_weight(w, self.c.th_l1, self.c.th_l2),
            None => Command::Fallback,
        }
    }
}

impl Sender {
    /// What the ACNS sender did, if the connection uses ACNS.
    pub fn acns_stats(&self) -> Option<&AcnsStats> {
        self.acns
            .as_deref()
            .filter(|_| self.ecn.acns)
            .map(|a| &a.stats)
    }

    /// The command in force (1 normal, 2 freeze, 3 fallback), if the connection uses ACNS:
    /// the `acns_command` series.
    pub fn acns_command(&self) -> Option<f64> {
        let a = self.acns.as_deref().filter(|_| self.ecn.acns)?;
        Some(a.holding.code() as f64)
    }

    /// Makes the sender use ACNS with settings `c`, checked with the scenario (`AcnsSpec::build`)
    /// for a connection of parameters `p`: from the start where both ends are configured for it
    /// without a handshake, else once the SYN-ACK agrees.
    pub fn with_acns(mut self, c: AcnsConfig, p: &crate::tcp::TcpParams) -> Sender {
        self.acns = Some(Box::new(AcnsSender::new(c)));
        if !p.handshake && p.receiver_acns {
            self.acns_start();
        }
        self
    }

    /// ACNS goes into use (at the start without a handshake, or on the SYN-ACK): the first
    /// request goes on the last segment of the first window.
    pub(super) fn acns_start(&mut self) {
        let (cwnd, high) = (self.st.cwnd, self.high);
        if let Some(a) = self.acns.as_deref_mut() {
            self.ecn.acns = true;
            self.ecn.on = true;
            a.whole = cwnd as u32;
            a.next_request = high + (cwnd as u64).max(1) - 1;
        }
    }

    /// Sets CMI on a new data segment that asks for a command (I4).
    pub(super) fn acns_stamp(&mut self, p: &mut Packet, seg: u64) {
        let cwnd = self.st.cwnd;
        let Some(a) = self.acns.as_deref_mut() else {
            return;
        };
        match a.c.request {
            Request::EveryPacket => p.ip_spare = true,
            Request::Window if seg >= a.next_request => {
                p.ip_spare = true;
                a.pending = Opt::some(seg);
                a.next_request = seg + (cwnd as u64).max(1);
            }
            Request::Window => {}
        }
    }

    /// A retransmitted segment asks for nothing, and its ACK answers nothing.
    pub(super) fn acns_resent(&mut self, seg: u64) {
        if let Some(a) = self.acns.as_deref_mut() {
            if a.pending.get() == Some(seg) {
                a.pending = Opt::NONE;
            }
        }
    }

    /// An ACK on an ACNS connection, `ack` its cumulative ACK in segments; returns true if the
    /// command in force holds the window (the variant's growth is skipped).
    pub(super) fn acns_ack(&mut self, fl: u8, ack: u64) -> bool {
        let (cwnd, open) = (self.st.cwnd, self.st.ca_state == CaState::Open);
        let una = self.una;
        let Some(a) = self.acns.as_deref_mut() else {
            return false;
        };
        if open {
            a.note_window(cwnd);
        }
        let cmd = acns::ack_command(fl);
        // Asking every segment, each ACK that acknowledges new data answers; asking once a
        // window, the ACK that acknowledges the asking segment does.
        let answers = match a.c.request {
            Request::EveryPacket => ack > una,
            Request::Window => a.pending.get().is_some_and(|r| ack > r),
        };
        if answers {
            a.pending = Opt::NONE;
        }
        if !(answers || cmd != Command::Normal) {
            return open && a.holding != Command::Normal;
        }
        a.receive(cmd);
        if !open {
            // Recovery owns the window; the answer still counts for the trend.
            return false;
        }
        a.holding = cmd;
        match cmd {
            Command::Normal => false,
            Command::Freeze => {
                a.stats.freezes += 1;
                true
            }
            Command::Fallback => {
                a.stats.fallbacks += 1;
                let w = a.fall_back(cwnd);
                self.st.cwnd = w;
                // A congestion signal: slow start ends at the fallen-back window.
                self.st.ssthresh = self.st.ssthresh.min(w);
                true
            }
        }
    }

    /// A loss found by duplicate ACKs on an ACNS connection: the slow-start threshold the
    /// trend command chooses, or `None` for the variant's own (§3.3, Eq. 7).
    pub(super) fn acns_loss(&mut self) -> Option<f64> {
        let cwnd = self.st.cwnd;
        let a = self.acns.as_deref_mut().filter(|_| self.ecn.acns)?;
        a.holding = Command::Normal;
        let (pushed, kept) = match a.trend() {
            Command::Normal => {
                a.stats.trend[0] += 1;
                (Command::Freeze, Some(cwnd))
            }
            Command::Freeze => {
                a.stats.trend[1] += 1;
                (Command::Fallback, Some(a.fall_back(cwnd)))
            }
            Command::Fallback => {
                a.stats.trend[2] += 1;
                (Command::Fallback, None)
            }
        };
        a.receive(pushed);
        kept
    }

    /// A retransmission timeout: the variant's own response; the command in force lapses and
    /// the next new segment asks again.
    pub(super) fn acns_timeout(&mut self) {
        let high = self.high;
        if let Some(a) = self.acns.as_deref_mut() {
            a.holding = Command::Normal;
            a.pending = Opt::NONE;
            a.next_request = high;
        }
    }

    /// The SYN-ACK's flags: ACNS if the receiver answered ECE and CMT without CWR; otherwise
    /// plain ECN if it answered ECE alone (RFC 3168 §6.1.1).
    pub(super) fn negotiated(&mut self, synack: u8) {
        const BITS: u8 = flags::ECE | flags::CWR | flags::RSV;
        if self.acns.is_some() && synack & BITS == acns::SYN_ACK_FLAGS {
            self.acns_start();
        } else if self.ecn.feedback == super::ecn::EcnFeedback::Accurate
            && self.p.ecn
            && super::accecn::accepted(synack)
        {
            self.ecn.on = true;
        } else {
            // An RFC 3168 answer to an Accurate-ECN SYN falls back to classic feedback.
            self.ecn.on = self.p.ecn && synack & BITS == flags::ECE;
            self.ecn.feedback = self.ecn.feedback.accurate_if(false);
        }
    }
}

impl EcnEcho {
    /// A receiver that supports ACNS if `capable`, on from the start if `statically_on`.
    pub fn with_acns(mut self, capable: bool, statically_on: bool) -> EcnEcho {
        self.acns_capable = capable;
        self.acns = capable && statically_on;
        if self.acns {
            self.on = true;
        }
        self
    }

    /// A data packet on an ACNS connection: keeps the most severe command for the next ACK;
    /// true if it is freeze or fallback, which is acknowledged at once.
    pub(super) fn acns_data(&mut self, pkt: &Packet) -> bool {
        let c = acns::ip_command(pkt).unwrap_or(Command::Normal);
        self.command = self.command.max(c);
        c != Command::Normal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sender_state() -> AcnsSender {
        AcnsSender::new(AcnsSpec::default().build().unwrap())
    }

    #[test]
    fn settings_are_checked_with_the_field_named() {
        let bad = |s: AcnsSpec| s.build().unwrap_err();
        let e = bad(AcnsSpec {
            omega_count: Some(0),
            ..Default::default()
        });
        assert_eq!(e, ("omega_count", "0 is outside 1..=64".to_string()));
        let e = bad(AcnsSpec {
            sigma: Some(f64::NAN),
            ..Default::default()
        });
        assert_eq!(e.0, "sigma");
        let e = bad(AcnsSpec {
            th_l1: Some(2.5),
            ..Default::default()
        });
        assert_eq!(
            e,
            ("th_l2", "2.1587 must be at least th_l1 (2.5)".to_string())
        );
        let e = bad(AcnsSpec {
            history: Some(0),
            ..Default::default()
        });
        assert_eq!(e.0, "history");
        let c = AcnsSpec::default().build().unwrap();
        assert_eq!(
            (
                c.request,
                c.omega_count,
                c.sigma,
                c.th_l1,
                c.th_l2,
                c.history
            ),
            (Request::Window, 10, 3.0, 1.8413, 2.1587, 16)
        );
    }

    /// The window history keeps whole-segment values as they change, and a fallback goes to
    /// the most recent one below the current window, forgetting those after it.
    #[test]
    fn fallback_goes_to_the_last_smaller_window() {
        let mut a = sender_state();
        a.whole = 10;
        for w in [10.0, 10.5, 11.2, 12.9, 13.0, 12.0, 14.4] {
            a.note_window(w);
        }
        // History: 10, 11, 12, 13, 12 (then 14 is current).
        assert_eq!(a.windows, [10, 11, 12, 13, 12]);
        assert_eq!(a.fall_back(14.4), 12.0);
        assert_eq!(a.fall_back(12.0), 11.0); // 13 is not smaller: skipped
        assert_eq!(a.fall_back(11.7), 10.0);
        // The history is spent: one segment less, never below 1.
        assert_eq!(a.fall_back(10.0), 9.0);
        assert_eq!(a.fall_back(1.5), 1.0);
        // Only the newest `history` values are kept.
        let mut a = sender_state();
        for w in 1..=40 {
            a.note_window(w as f64);
        }
        assert_eq!(a.windows.len(), 16);
        assert_eq!(a.windows.front(), Some(&24)); // 0..=39 were pushed
    }

    /// Eq. 5 over `P` chooses the loss response: mostly normal answers keep the window; a
    /// run of freezes (and what the losses push) move it to fallback, then to the variant's
    /// decrease.
    #[test]
    fn trend_commands_escalate_with_the_commands_received() {
        let mut a = sender_state();
        assert_eq!(
            a.trend(),
            Command::Fallback,
            "no command yet: the variant's own"
        );
        for _ in 0..10 {
            a.receive(Command::Normal);
        }
        assert_eq!(a.trend(), Command::Normal); // W = 1: keep the window
                                                // Each kept loss pushes a 2. With five 2s W = 1.841131 < th_L1: still kept; the
                                                // sixth makes W = 1 + (Σ_{i≤6} e^{−i/3})/2.437552 = 1.896652: fall back.
        for k in 0..6 {
            assert_eq!(a.trend(), Command::Normal, "{k} freezes pushed");
            a.receive(Command::Freeze);
        }
        assert_eq!(a.trend(), Command::Freeze);
        // A fallback answer on top: P = 3, 2, 2, 2, 2, 2, 2, 1, 1, 1 gives W = 2.230390 ≥ th_L2:
        // the variant's decrease.
        a.receive(Command::Fallback);
        assert_eq!(a.trend(), Command::Fallback);
    }

    /// The receiver (§4.2.3, Table 3): ACNS is agreed on an ACNS-setup SYN and plain ECN on an
    /// ECN-setup one; each ACK echoes the most severe command of the segments it acknowledges,
    /// once, and a freeze or fallback is acknowledged at once despite delayed ACKs.
    #[test]
    fn receiver_negotiates_and_echoes_commands_once() {
        use crate::packet::{wire_seq, Ecn, Kind};
        use crate::tcp::{sent_by, Receiver, ReceiverConfig};
        use crate::time::SimTime;

        let mut e = EcnEcho::new(true, true).with_acns(true, false);
        assert_eq!(e.on_syn(flags::SYN | flags::ECE | flags::CWR), flags::ECE);
        assert!(!e.acns);
        assert_eq!(e.on_syn(flags::SYN | acns::SYN_FLAGS), acns::SYN_ACK_FLAGS);
        assert!(e.acns && e.on);
        let mut n = EcnEcho::new(true, true).with_acns(false, false);
        assert_eq!(n.on_syn(flags::SYN | acns::SYN_FLAGS), flags::ECE);

        let mut r = Receiver::new(
            0,
            1,
            0,
            ReceiverConfig {
                header_bytes: 40,
                delayed_ack: true,
                delack_timeout: SimTime::from_millis(40),
                sack: true,
                sack_blocks: 3,
                dscp: 0,
                size: None,
                ecn: EcnEcho::new(true, false).with_acns(true, true),
                quickack: false,
            },
        );
        // Segments 0..4 asking for commands: normal (I4), normal, freeze (I6), normal. Keeps
        // the flags of the ACKs each one caused.
        let mut acks = vec![];
        let segments = [Ecn::Ect0, Ecn::Ect0, Ecn::Ce, Ecn::Ect0];
        for (k, ecn) in segments.into_iter().enumerate() {
            let mut p = Packet::new(0, Kind::TcpData, 0, 1, 1040, SimTime::ZERO);
            p.seq = wire_seq(k as u64 * 1000);
            p.payload = 1000;
            p.ecn = ecn;
            p.ip_spare = true;
            let out = sent_by(|io| r.on_data(&p, io));
            acks.push(
                out.iter()
                    .map(|a| a.flags & !flags::ACK)
                    .collect::<Vec<_>>(),
            );
        }
        // The first waits (delayed ACK) and the second completes the pair, normal; the freeze
        // is acknowledged at once, on its own; the fourth waits.
        assert_eq!(
            acks,
            [vec![], vec![0], vec![flags::ECE | flags::RSV], vec![]]
        );
    }

    /// An ACNS sender of `spec` without handshake (Linux defaults, Reno, IW 10).
    fn acns_sender(spec: AcnsSpec) -> Sender {
        use crate::config::Profile;
        use crate::tcp::cc::{Cc, Reno};
        use crate::tcp::slow_start::SlowStart;
        let mut p = Profile::Linux.tcp_defaults();
        p.handshake = false;
        p.acns = Some(spec.clone());
        let config = spec.build().unwrap();
        Sender::new(0, 0, 1, &p, Cc::Reno(Reno), SlowStart::Standard, None).with_acns(config, &p)
    }

    /// Starts `s` (`None`) or hands it an ACK for `segs` segments with extra flags; returns
    /// the packets it sent.
    fn step(s: &mut Sender, ack: Option<(u64, u8)>) -> Vec<Packet> {
        use crate::packet::{wire_seq, Kind};
        use crate::time::SimTime;
        crate::tcp::sent_by(|io| match ack {
            None => s.start(io),
            Some((segs, fl)) => {
                let mut a = Packet::new(0, Kind::TcpAck, 1, 0, 52, SimTime::ZERO);
                a.ack = wire_seq(segs * 1448);
                a.flags = flags::ACK | fl;
                s.on_ack(&a, io);
            }
        })
    }

    /// The sender: the last segment of each window asks; an answer holds until the next;
    /// freeze stops growth, fallback returns to the last smaller whole window and ends slow
    /// start; an ACK that neither answers nor commands changes nothing.
    #[test]
    fn sender_asks_per_window_and_holds_each_answer() {
        use crate::packet::Ecn;
        let mut s = acns_sender(AcnsSpec::default());
        let mut sent = step(&mut s, None);
        assert!(s.ecn.acns && s.ecn.on);
        // IW 10: segments 0..9, ECT(0); only 9, the window's last, asks (I4).
        assert_eq!(sent.len(), 10);
        assert!(sent.iter().all(|p| p.ecn == Ecn::Ect0));
        let asking = |sent: &[Packet]| -> Vec<u64> {
            let seg = |p: &Packet| p.seq as u64 / 1448;
            sent.iter().filter(|p| p.ip_spare).map(seg).collect()
        };
        assert_eq!(asking(&sent), [9]);
        // ACK 1, normal, answers nothing: slow start, 10 → 11.
        sent.extend(step(&mut s, Some((1, 0))));
        assert_eq!(s.st.cwnd, 11.0);
        // ACK 2 carries freeze (T5): held from now, no growth.
        sent.extend(step(&mut s, Some((2, flags::ECE | flags::RSV))));
        assert_eq!(s.st.cwnd, 11.0);
        sent.extend(step(&mut s, Some((3, 0))));
        assert_eq!(s.st.cwnd, 11.0, "the freeze holds until the next answer");
        // ACK 10 acknowledges segment 9, the asking one: normal, growth resumes (+7).
        sent.extend(step(&mut s, Some((10, 0))));
        assert_eq!(s.st.cwnd, 18.0);
        // ACK 11 carries fallback (T6): back to 11, the last smaller whole window; slow start
        // ends there.
        sent.extend(step(&mut s, Some((11, flags::ECE))));
        assert_eq!((s.st.cwnd, s.st.ssthresh), (11.0, 11.0));
        let a = s.acns_stats().unwrap();
        assert_eq!((a.freezes, a.fallbacks), (1, 1));
        // Segment 9 asked with cwnd 10, so the next to ask was 19; it asked with cwnd 18.
        assert_eq!(asking(&sent)[..2], [9, 19]);
        assert!(sent.iter().filter(|p| p.ip_spare).count() == 2);
    }

    /// Asking on every segment, every ACK of new data is an answer: a freeze holds only until
    /// the next ACK that acknowledges something.
    #[test]
    fn every_packet_answers_on_every_new_ack() {
        let mut s = acns_sender(AcnsSpec {
            request: Some(Request::EveryPacket),
            ..Default::default()
        });
        let sent = step(&mut s, None);
        assert_eq!(sent.len(), 10);
        assert!(sent.iter().all(|p| p.ip_spare), "every segment asks");
        step(&mut s, Some((1, flags::ECE | flags::RSV)));
        assert_eq!(s.st.cwnd, 10.0, "frozen");
        // A duplicate ACK without a command answers nothing: still frozen.
        step(&mut s, Some((1, 0)));
        assert_eq!(s.acns_command(), Some(2.0));
        // ACK 2, normal, answers for segment 1: growth resumes.
        step(&mut s, Some((2, 0)));
        assert_eq!((s.st.cwnd, s.acns_command()), (11.0, Some(1.0)));
    }
}
