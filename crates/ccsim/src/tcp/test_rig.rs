//! A sender driven by hand-made ACKs, for the endpoint's unit tests (`ecn.rs`, `rate.rs`,
//! `prr.rs`).

use super::cc::{Cc, Reno};
use super::slow_start::SlowStart;
use super::{Io, Sender, TcpParams};
use crate::packet::{flags, wire_seq, Kind, Packet};
use crate::time::SimTime;
use crate::trace::Recorder;

/// Linux's defaults with the classic machinery: PRR, RACK, TLP, the kept scoreboard and the
/// quick-ACK receiver off. A test of one mechanism starts here and turns on what it studies,
/// so that the others do not take part.
pub(crate) fn classic_linux() -> TcpParams {
    let mut p = crate::config::Profile::Linux.tcp_defaults();
    (p.prr, p.rack, p.tlp, p.rto_keeps_sack) = (false, false, false, false);
    p.receiver_quickack = false;
    p
}

pub(crate) struct Rig {
    pub s: Sender,
    pub out: Vec<Packet>,
    pub rec: Recorder,
    pub scratch: Vec<(u64, u64)>,
}

impl Rig {
    /// A Reno sender with settings `p`, started at 1 ms.
    pub fn start(p: &TcpParams) -> Rig {
        Rig::start_sender(Sender::new(
            0,
            0,
            1,
            p,
            Cc::Reno(Reno),
            SlowStart::Standard,
            None,
        ))
    }

    /// Sender `s`, started at 1 ms.
    pub fn start_sender(s: Sender) -> Rig {
        let mut r = Rig {
            s,
            out: vec![],
            rec: Recorder::default(),
            scratch: vec![],
        };
        r.at(1, |s, io| s.start(io));
        r
    }

    /// Runs `f` on the sender at `ms` milliseconds.
    pub fn at<T>(&mut self, ms: u64, f: impl FnOnce(&mut Sender, &mut Io) -> T) -> T {
        let mut io = Io {
            now: SimTime::from_millis(ms),
            out: &mut self.out,
            rec: &mut self.rec,
            scratch: &mut self.scratch,
        };
        f(&mut self.s, &mut io)
    }

    /// An ACK at `ms` of the segments below `seg`, with ECE if `ece`, echoing timestamp
    /// `ts_ecr` (zero: none) and SACKing `block` (`[a, b)` in segments) if given; returns
    /// the packets sent in reply.
    pub fn ack(
        &mut self,
        ms: u64,
        seg: u64,
        ece: bool,
        ts_ecr: SimTime,
        block: Option<(u64, u64)>,
    ) -> Vec<Packet> {
        let mss = self.s.p.mss as u64;
        let mut a = Packet::new(0, Kind::TcpAck, 1, 0, 52, SimTime::ZERO);
        a.ack = wire_seq(seg * mss);
        a.flags = flags::ACK | if ece { flags::ECE } else { 0 };
        a.ts_ecr = ts_ecr;
        if let Some((x, y)) = block {
            a.sack[0] = (wire_seq(x * mss), wire_seq(y * mss));
            a.n_sack = 1;
        }
        self.out.clear();
        self.at(ms, |s, io| s.on_ack(&a, io));
        self.out.clone()
    }
}
