//! The TCP sender: sequence space, transmission, the retransmission timer, the handshake and
//! the dispatch of each ACK to loss recovery (`recovery.rs`, `sack.rs`) and to congestion
//! control (`cc/`).
//!
//! One retransmission timer per connection, kept lazily (`timer.rs`): the sender only moves
//! its deadline (RFC 6298 §5 rules 5.1–5.3 and 5.5–5.7).

use std::collections::VecDeque;

use super::acns::AcnsSender;
use super::cc::{AckSample, CaEvent, CaState, Cc, CongestionControl, TcpState};
use super::ecn::{self, EcnSender};
use super::pacing::Pacer;
use super::prr::Prr;
use super::rate::RateSampler;
use super::rtt::RttEstimator;
use super::seg_meta::SegMeta;
use super::slow_start::SlowStart;
use super::timer::{LazyTimer, TimerName, Timers};
use super::Io;
use crate::config::{AckCounting, Recovery, SeriesName};
use crate::packet::{flags, unwrap_seq, wire_seq, Kind, Packet, MAX_SACK};
use crate::tcp::TcpParams;
use crate::time::{OptTime, SimTime};
use crate::util::packed_option::Opt;

/// The settings a sender consults as it runs, taken from its `TcpParams` (the others only
/// set up its state): 20 bytes instead of the 160 of the whole, per connection.
#[derive(Clone, Copy, Debug)]
pub struct SenderParams {
    pub mss: u32,
    pub header_bytes: u32,
    pub dupthresh: u32,
    pub recovery: Recovery,
    pub ack_counting: AckCounting,
    pub dscp: u8,
    pub ecn: bool,
    pub handshake: bool,
    pub limited_transmit: bool,
    /// Grow the window only while the flight uses it (Linux `tcp_is_cwnd_limited`).
    pub cwnd_limited: bool,
    pub timestamps: bool,
}

impl SenderParams {
    fn of(p: &TcpParams) -> SenderParams {
        SenderParams {
            mss: p.mss,
            header_bytes: p.header_bytes,
            dupthresh: p.dupthresh,
            recovery: p.recovery,
            ack_counting: p.ack_counting,
            dscp: p.dscp,
            // ACNS falls back to plain ECN with a peer that has no ACNS.
            ecn: p.ecn || p.acns.is_some(),
            handshake: p.handshake,
            limited_transmit: p.limited_transmit,
            cwnd_limited: p.cwnd_limited,
            timestamps: p.timestamps,
        }
    }
}

/// Counters reported per flow.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub bytes_sent: u64,
    pub packets_sent: u64,
    pub retransmits: u64,
    /// 32 bits, so that the pair fills one word (`a_connection_takes_808_bytes`): each is at
    /// most one per round trip, and counts saturate.
    pub timeouts: u32,
    pub fast_retransmits: u32,
    /// Window reductions in response to ECN echoes (RFC 3168).
    pub ecn_reductions: u64,
    pub rtt_sum: f64,
    pub rtt_n: u64,
    pub rtt_min: f64,
    pub rtt_max: f64,
}

pub struct Sender {
    pub flow: u32,
    node: u32,
    peer: u32,
    pub(super) p: SenderParams,
    pub st: TcpState,
    pub(super) cc: Cc,
    pub(super) rtt: RttEstimator,
    /// Bytes to send, or None for an unlimited (bulk) source.
    size: Opt<u64>,
    /// Segments the application offers: all of a finite transfer, frozen at `high` when the
    /// application stops.
    app_limit: u64,
    pub established: bool,
    syn_sent: OptTime,
    syn_retransmitted: bool,
    /// Oldest unacknowledged segment (SND.UNA), next to send (SND.NXT) and one past the
    /// highest ever sent (HighData + 1).
    pub(super) una: u64,
    pub(super) nxt: u64,
    pub(super) high: u64,
    pub(super) segs: VecDeque<SegMeta>,
    /// Counts the SACK scan needs, kept as segments are SACKed and acknowledged (`sack.rs`).
    pub(super) board: super::sack::Board,
    pub(super) dupacks: u32,
    /// `high` when recovery (or the last timeout) began: no new fast retransmit until the
    /// cumulative ACK passes it (RFC 6582 §3.2 step 2; RFC 6675 §5.1).
    pub(super) recover: Opt<u64>,
    /// NewReno: whether this recovery episode has seen a partial ACK (RFC 6582 "Impatient").
    pub(super) partial_seen: bool,
    pub(super) high_rxt: u64,
    pub(super) rescue_rxt: Opt<u64>,
    pub(super) rto_timer: LazyTimer,
    /// Largest flight since SND.UNA passed `max_flight_mark` (Linux `max_packets_out` and
    /// `max_packets_seq`): whether the window was in use this round.
    pub(super) max_flight: u64,
    max_flight_mark: u64,
    pub stats: SenderStats,
    pub ecn: EcnSender,
    /// ACNS state, for a connection configured with it (`acns.rs`).
    pub(super) acns: Option<Box<AcnsSender>>,
    /// Delivery-rate records, for a connection that samples the rate (`rate.rs`).
    pub(super) rate: Option<Box<RateSampler>>,
    /// Pacing state, for a paced connection (`pacing.rs`), and its timer.
    pub(super) pacer: Option<Box<Pacer>>,
    pub(super) pace_timer: LazyTimer,
    /// Proportional Rate Reduction's state, for a connection that uses it (`prr.rs`).
    pub(super) prr: Option<Box<Prr>>,
    /// RACK, TLP and the scoreboard kept over a timeout, for a connection that uses them
    /// (`rack.rs`, `tlp.rs`).
    pub(super) rack: Option<Box<super::rack::Rack>>,
}

impl Sender {
    pub fn new(
        flow: u32,
        node: u32,
        peer: u32,
        p: &TcpParams,
        cc: Cc,
        slow_start: SlowStart,
        size: Option<u64>,
    ) -> Sender {
        let mss = p.mss;
        let total = match size {
            Some(b) => b.div_ceil(mss as u64),
            None => u64::MAX,
        };
        let rwnd = if p.rwnd == u64::MAX {
            f64::INFINITY
        } else {
            (p.rwnd / mss as u64).max(1) as f64
        };
        let st = TcpState::new(
            p.initial_window as f64,
            p.initial_ssthresh,
            mss,
            rwnd,
            slow_start,
        );
        let rtt = RttEstimator::new(
            p.initial_rto,
            p.min_rto,
            p.max_rto,
            p.clock_granularity,
            p.rto_floor,
        );
        let mut params = SenderParams::of(p);
        // An algorithm that needs ECN has it, as Linux's `TCP_CONG_NEEDS_ECN` (`tcp.ecn = false`
        // with one is refused by the scenario builder); without a handshake, Accurate ECN only
        // with a receiver that supports it.
        let mut usage = cc.needs_ecn();
        params.ecn |= usage.is_some();
        if let Some(u) = usage.as_mut() {
            u.feedback = u.feedback.accurate_if(p.receiver_accecn || p.handshake);
        }
        let ecn = EcnSender::new(params.ecn && p.receiver_ecn && !p.handshake, usage);
        let s = Sender {
            flow,
            node,
            peer,
            p: params,
            st,
            cc,
            rtt,
            size: Opt::of(size),
            app_limit: total,
            established: false,
            syn_sent: OptTime::NONE,
            syn_retransmitted: false,
            una: 0,
            nxt: 0,
            high: 0,
            segs: VecDeque::new(),
            board: Default::default(),
            dupacks: 0,
            recover: Opt::NONE,
            partial_seen: false,
            high_rxt: 0,
            rescue_rxt: Opt::NONE,
            rto_timer: LazyTimer::default(),
            max_flight: 0,
            max_flight_mark: 0,
            stats: SenderStats {
                rtt_min: f64::INFINITY,
                ..Default::default()
            },
            ecn,
            acns: None,
            rate: None,
            pacer: None,
            pace_timer: LazyTimer::default(),
            prr: None,
            rack: None,
        };
        let (own_window, wants_pacing) = (s.cc.controls_window(), s.cc.wants_pacing());
        // An external algorithm that reads router feedback gets its XCP headers on the
        // tracked send path, which the delivery-rate records put it on (`sent_extras`).
        let feedback = matches!(s.cc, Cc::External(_)) && s.cc.wants_router_feedback();
        let ratios = s.cc.pacing_ratios();
        let mut s = s.with_pacing(p, wants_pacing, ratios);
        if p.prr && p.recovery == Recovery::Sack && !own_window {
            s = s.with_prr();
        }
        // As Linux, RACK and TLP need SACK (`tcp_is_sack`).
        if (p.rack || p.tlp || p.rto_keeps_sack) && p.recovery == Recovery::Sack {
            s = s.with_rack(p);
        }
        if own_window || feedback {
            s.with_rate_sampling()
        } else {
            s
        }
    }

    /// The application starts: open the connection or start sending.
    pub fn start(&mut self, io: &mut Io) {
        self.st.now = io.now;
        if self.p.handshake {
            self.send_syn(io);
        } else {
            self.established = true;
            self.begin_transfer();
            self.try_send(io);
        }
        self.trace(io);
    }

    /// The application stops offering new data; what was sent is still delivered.
    pub fn stop(&mut self) {
        self.app_limit = self.app_limit.min(self.high);
    }

    fn send_syn(&mut self, io: &mut Io) {
        let mut p = Packet::new(
            self.flow,
            Kind::TcpData,
            self.node,
            self.peer,
            self.p.header_bytes,
            io.now,
        );
        p.dscp = self.p.dscp;
        p.flags = flags::SYN;
        if self.acns.is_some() {
            p.flags |= crate::acns::SYN_FLAGS; // an ACNS-setup SYN (Olšovský 2014 §4.2.3)
        } else if self.p.ecn && self.ecn.feedback == ecn::EcnFeedback::Accurate {
            p.flags |= super::accecn::SYN_FLAGS; // draft-ietf-tcpm-accurate-ecn §3.1.1
        } else if self.p.ecn {
            p.flags |= ecn::SYN_FLAGS; // an ECN-setup SYN (RFC 3168 §6.1.1)
        }
        if self.ecn.ca_needs {
            p.ecn = self.ecn.codepoint(); // Linux `tcp_ecn_send_syn` for `TCP_CONG_NEEDS_ECN`
        }
        if self.syn_sent.get().is_some() {
            self.syn_retransmitted = true;
        }
        self.syn_sent = OptTime::some(io.now);
        self.stats.packets_sent += 1;
        self.rto_timer.set_deadline(Some(io.now + self.rtt.rto()));
        io.send(p);
    }

    pub(super) fn seg_len(&self, seg: u64) -> u32 {
        let mss = self.p.mss as u64;
        match self.size.get() {
            Some(b) => (b - seg * mss).min(mss) as u32,
            None => self.p.mss,
        }
    }

    /// The segment an ACK of byte `ack` acknowledges up to; `una_bytes` is SND.UNA in bytes.
    fn byte_to_seg(&self, ack: u64, una_bytes: u64) -> u64 {
        let mss = self.p.mss as u64;
        match self.size.get() {
            Some(b) if ack >= b => b.div_ceil(mss),
            // Nearly every ACK covers none, one or two whole segments past SND.UNA: found so,
            // without the 64-bit division, whose latency would hold up every ACK
            // (docs/performance-history.md, 0.6.1).
            _ if ack == una_bytes => self.una,
            _ if ack == una_bytes + mss => self.una + 1,
            _ if ack == una_bytes + 2 * mss => self.una + 2,
            _ => ack / mss,
        }
    }

    /// Whether the application has segment `seg` to offer.
    pub(super) fn app_has(&self, seg: u64) -> bool {
        seg < self.app_limit
    }

    /// Sends segment `seg` (new data if `seg == high`, otherwise a retransmission).
    pub(super) fn transmit(&mut self, seg: u64, io: &mut Io) {
        let len = self.seg_len(seg);
        let now = io.now;
        let p = io.send(Packet::new(
            self.flow,
            Kind::TcpData,
            self.node,
            self.peer,
            len + self.p.header_bytes,
            now,
        ));
        p.payload = len as u16; // mss ≤ 65,000 (scenario/build.rs)
        p.dscp = self.p.dscp;
        p.seq = wire_seq(seg * self.p.mss as u64);
        p.flags = flags::ACK;
        self.ecn_stamp(p, seg, seg >= self.high);
        if seg >= self.high {
            debug_assert_eq!(seg, self.high);
            self.high = seg + 1;
            self.segs.push_back(SegMeta::new(io.now));
        } else {
            self.segs[(seg - self.una) as usize].resent(io.now);
            self.stats.retransmits += 1;
            if self.ecn.acns {
                self.acns_resent(seg);
            }
        }
        self.stats.bytes_sent += len as u64;
        self.stats.packets_sent += 1;
        if self.rto_timer.deadline().is_none() {
            // RFC 6298 (5.1): start the timer when sending data and it is not running.
            self.rto_timer.set_deadline(Some(io.now + self.rtt.rto()));
        }
        // XCP's sender; an external algorithm that reads router feedback is stamped on the
        // tracked path (`sent_extras`), so that the others pay only this test.
        if matches!(self.cc, Cc::Xcp(_)) {
            self.stamp_xcp(io);
        }
    }

    /// Sends segment `seg` as `transmit` does, and keeps the delivery-rate records and the
    /// pacing of a connection that has them. The hot path of the others, `try_send`'s loop,
    /// calls `transmit` itself: a call inside `transmit` would cost every connection
    /// (docs/performance.md, 0.8).
    pub(super) fn send_segment(&mut self, seg: u64, io: &mut Io) {
        let new = seg >= self.high;
        self.transmit(seg, io);
        if self.rate.is_some() | self.pacer.is_some() | self.rack.is_some() {
            self.sent_extras(seg, new, io);
        }
    }

    #[inline(never)]
    fn sent_extras(&mut self, seg: u64, new: bool, io: &mut Io) {
        let now = io.now;
        if matches!(self.cc, Cc::External(_)) {
            self.stamp_xcp(io); // if it reads router feedback (`stamp_xcp` asks it)
        }
        if self.rate.is_some() {
            self.rate_sent(seg, new, now);
        }
        if self.rack.is_some() {
            self.rack_sent(seg, new, now);
        }
        if self.pacer.is_some() {
            // Linux spaces by `skb->len`: the TCP segment with its header, not the IP header.
            let len = self.seg_len(seg) + self.p.header_bytes.saturating_sub(20);
            self.paced(len, now);
        }
    }

    /// Segments the window allows outstanding (`nxt - una`), outside SACK recovery.
    fn window(&self) -> u64 {
        // `as` truncates, which is `floor` for the non-negative window (and avoids its libm call).
        let mut w = self.st.cwnd.min(self.st.rwnd).max(1.0) as u64;
        if self.p.limited_transmit
            && self.st.ca_state == CaState::Open
            && (1..=2).contains(&self.dupacks)
        {
            // RFC 3042: one new segment per each of the first two duplicate ACKs, keeping
            // FlightSize ≤ cwnd + 2 segments; cwnd itself is unchanged.
            w += self.dupacks as u64;
        }
        w
    }

    pub(super) fn rwnd_allows(&self, seg: u64) -> bool {
        ((seg + 1 - self.una) as f64) <= self.st.rwnd.max(1.0)
    }

    /// Sends whatever the window and the application allow.
    pub(super) fn try_send(&mut self, io: &mut Io) {
        if !self.established {
            return;
        }
        if self.rack.is_some() && self.rack_send(io) {
            return;
        }
        if self.st.ca_state == CaState::Recovery && self.p.recovery == Recovery::Sack {
            self.sack_send(io);
            return;
        }
        let w = self.window();
        // RACK-TLP has per-segment work only for segments sent again (after a timeout).
        if self.rate.is_some()
            | self.pacer.is_some()
            | (self.rack.is_some() & (self.nxt < self.high))
        {
            self.send_tracked(w, io);
        } else {
            let before = self.nxt;
            while self.nxt - self.una < w && self.app_has(self.nxt) {
                let seg = self.nxt;
                self.transmit(seg, io);
                self.nxt += 1;
            }
            if self.nxt != before && self.rack.is_some() {
                self.rack_sent_new();
            }
        }
        self.note_flight();
    }

    /// Mirrors SND.UNA, the highest sequence sent and FlightSize into the shared state.
    pub(super) fn sync_seq(&mut self) {
        self.st.flight = self.high - self.una;
        self.st.snd_una = self.una;
        self.st.snd_nxt = self.high;
    }

    /// After sending: the largest flight this round (Linux `tcp_cwnd_validate`, which starts a
    /// new round once SND.UNA passes the highest segment sent when the last one began).
    pub(super) fn note_flight(&mut self) {
        self.sync_seq();
        if self.una >= self.max_flight_mark || self.st.flight > self.max_flight {
            self.max_flight_mark = self.high;
            self.max_flight = self.st.flight;
        }
    }

    /// Whether the window may grow on this ACK (Linux `tcp_is_cwnd_limited`).
    fn cwnd_limited(&self) -> bool {
        if !self.p.cwnd_limited {
            return true;
        }
        if self.st.in_slow_start() {
            self.st.cwnd < 2.0 * self.max_flight as f64
        } else {
            // Whole segments against the window's whole part (`as` truncates: floor for a
            // non-negative window, without a libm call).
            self.max_flight >= self.st.cwnd as u64
        }
    }

    /// The slow-start threshold after a loss: the slow-start rule's own (Advanced Slow
    /// Start's decrease factors) or the algorithm's.
    pub(super) fn loss_ssthresh(&self) -> f64 {
        self.st
            .slow_start
            .loss_ssthresh(self.st.cwnd)
            .unwrap_or_else(|| self.cc.ssthresh(&self.st))
    }

    /// An ACK (or SYN-ACK) arrived.
    pub fn on_ack(&mut self, pkt: &Packet, io: &mut Io) {
        self.st.now = io.now;
        if !self.established {
            if pkt.flags & flags::SYN != 0 {
                self.negotiated(pkt.flags);
                self.on_syn_ack(io);
                if self.rack.is_some() {
                    self.rack_timer_ends(io.now);
                }
            }
            return;
        }
        let una_bytes = self.una * self.p.mss as u64;
        let ack = self.byte_to_seg(unwrap_seq(pkt.ack, una_bytes), una_bytes);
        if ack > self.high {
            return; // acknowledges data never sent: ignore, as RFC 9293 §3.10.7.4 says
        }
        if self.rate.is_some() {
            self.rate_ack_begins();
        }
        // What was delivered before this ACK, for a PRR reduction an ECN echo may start.
        let (una0, sacked0) = (self.una, self.board.n_sacked);
        self.rack_ack_arrives();
        if self.p.recovery == Recovery::Sack {
            let mut blocks = [(0, 0); MAX_SACK];
            let wire = pkt.sack_blocks();
            for (b, &(x, y)) in blocks.iter_mut().zip(wire) {
                *b = (unwrap_seq(x, una_bytes), unwrap_seq(y, una_bytes));
            }
            self.sack_update(&blocks[..wire.len()], io.scratch);
        }
        if self.rack.is_some() {
            self.rack_ack(ack, io);
        }
        // On an ACNS connection ECE carries a command (`acns.rs`), not an ECN echo.
        let ece = self.ecn.on && !self.ecn.acns && self.ecn_signal(pkt.flags);
        let mut feedback_done = false;
        if let Some(x) = &pkt.xcp {
            let fb = self.xcp_feedback(x);
            feedback_done = self.cc.on_feedback(&mut self.st, &fb);
        }
        if self.ecn.acns {
            feedback_done |= self.acns_ack(pkt.flags, ack);
        }
        if ack > self.una {
            self.on_new_ack(ack, pkt, ece, feedback_done, io);
        } else if ack == self.una && self.una < self.high && pkt.payload == 0 {
            self.on_dupack(io);
        }
        if self.rack.is_some() {
            self.rack_may_recover(io);
        }
        if ece {
            self.on_ece(una0 + sacked0 as u64, self.una > una0);
        }
        if self.rate.is_some() | self.pacer.is_some() {
            self.ack_extras(io);
        }
        self.try_send(io);
        if self.rack.is_some() {
            self.rack_timer_ends(io.now);
        }
        self.trace(io);
    }

    /// After an ACK: its delivery-rate sample, to an algorithm that sets its window from it,
    /// and the pacing rate.
    #[inline(never)]
    fn ack_extras(&mut self, io: &mut Io) {
        if let Some(rs) = self.rate_ack_ends(io) {
            if self.cc.controls_window() {
                self.cc.cong_control(&mut self.st, &rs);
            }
        }
        self.update_pacing_rate();
    }

    fn on_syn_ack(&mut self, io: &mut Io) {
        self.established = true;
        if self.syn_retransmitted {
            // RFC 3390 §1 / RFC 6298 (5.7): a lost SYN leaves one segment as initial window.
            self.st.cwnd = 1.0;
        } else if let Some(t) = self.syn_sent.get() {
            self.rtt_sample(io.now - t, io);
        }
        self.rto_timer.set_deadline(None);
        self.begin_transfer();
        self.try_send(io);
        self.trace(io);
    }

    /// The connection is established: the algorithm starts (Linux `tcp_init_transfer`).
    fn begin_transfer(&mut self) {
        self.cc.init(&mut self.st);
        self.cc.cwnd_event(&mut self.st, CaEvent::TxStart);
        self.update_pacing_rate();
    }

    /// Takes an RTT sample (every ACK that gives one: inlined into `on_new_ack`, where the
    /// compiler's choice moves with unrelated changes, a call per ACK when it declines).
    #[inline(always)]
    pub(super) fn rtt_sample(&mut self, r: SimTime, io: &mut Io) {
        let s = r.as_secs_f64();
        self.rtt.sample(s);
        self.st.srtt = self.rtt.srtt();
        self.st.min_rtt = self.st.min_rtt.min(r);
        let st = &mut self.stats;
        st.rtt_sum += s;
        st.rtt_n += 1;
        st.rtt_min = st.rtt_min.min(s);
        st.rtt_max = st.rtt_max.max(s);
        io.rec.record(SeriesName::Rtt, self.flow, io.now, s);
    }

    fn on_new_ack(&mut self, ack: u64, pkt: &Packet, ece: bool, feedback_done: bool, io: &mut Io) {
        let now = io.now;
        let acked = ack - self.una;
        // RTT: from the echoed timestamp (RFC 7323 §4), otherwise from the newest segment this
        // ACK covers if it was never retransmitted (Karn's rule, RFC 6298 §3).
        let rtt = if self.p.timestamps && pkt.ts_ecr > SimTime::ZERO {
            Some(now - pkt.ts_ecr)
        } else {
            // Karn: no sample if the ACK covers any retransmitted segment, or the sample would
            // include the timeout or recovery wait (Linux `FLAG_RETRANS_DATA_ACKED`).
            let covered = &self.segs;
            let any_retx = covered.iter().take(acked as usize).any(|m| m.retx());
            let m = covered[(ack - 1 - self.una) as usize];
            (!any_retx).then(|| now - m.sent())
        };
        if let Some(r) = rtt {
            self.rtt_sample(r, io);
        }
        if self.rate.is_some() {
            self.rate_acked(ack);
        }
        self.board_acked(acked);
        // One or two segments an ACK, as a rule: popping them is cheaper than a `drain`.
        for _ in 0..acked {
            self.segs.pop_front();
        }
        self.una = ack;
        self.nxt = self.nxt.max(ack);
        self.high_rxt = self.high_rxt.max(ack);
        self.sync_seq();
        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else restart it —
        // except that NewReno in recovery restarts it only on the first partial ACK (RFC 6582).
        let in_newreno_recovery =
            self.st.ca_state == CaState::Recovery && self.p.recovery == Recovery::Newreno;
        if self.una >= self.high {
            self.rto_timer.set_deadline(None);
        } else if !in_newreno_recovery {
            self.rto_timer.set_deadline(Some(now + self.rtt.rto()));
        }
        let counted = match self.p.ack_counting {
            AckCounting::Segments => acked as f64,
            AckCounting::Acks => 1.0,
        };
        let sample = AckSample {
            segments: acked,
            acked: counted,
            rtt,
            ece,
            ce: if self.ecn.on {
                self.take_ce(acked, ece)
            } else {
                0
            },
        };
        self.cc.pkts_acked(&self.st, &sample);
        let was_recovering = self.st.ca_state == CaState::Recovery;
        if was_recovering {
            self.recovery_new_ack(ack, acked, io);
        } else {
            if self.st.ca_state == CaState::Loss && self.recover.get().is_none_or(|r| self.una >= r)
            {
                self.set_ca_state(CaState::Open);
            }
            let reducing = self.ecn_new_ack();
            // RFC 3168 §6.1.2: no window growth on an ACK that carries ECN-Echo.
            if !reducing && !feedback_done && !ece && self.cwnd_limited() {
                self.cc.cong_avoid(&mut self.st, &sample);
            }
        }
        self.dupacks = 0;
    }

    pub(super) fn set_ca_state(&mut self, s: CaState) {
        if self.st.ca_state != s {
            self.cc.set_state(&mut self.st, s);
            self.st.ca_state = s;
        }
    }

    /// The retransmission timer fired.
    pub(super) fn on_rto(&mut self, io: &mut Io) {
        self.st.now = io.now;
        if !self.established {
            self.rtt.back_off();
            self.send_syn(io);
            return;
        }
        if self.una >= self.high {
            self.rto_timer.set_deadline(None);
            return;
        }
        self.stats.timeouts = self.stats.timeouts.saturating_add(1);
        if self.rate.is_some() {
            self.rate_timeout();
        }
        if self.ecn.acns {
            self.acns_timeout();
        }
        // RFC 5681 §3.1: ssthresh is cut only on the first timeout of a segment, not when the
        // timer fires again for a segment it already retransmitted.
        if self.rtt.backoff() == 0 {
            self.st.ssthresh = self.loss_ssthresh();
        }
        self.cc.cwnd_event(&mut self.st, CaEvent::Timeout);
        self.set_ca_state(CaState::Loss);
        self.st.cwnd = 1.0; // the loss window, LW = 1 SMSS
        self.ecn_window_reduced();
        self.rtt.back_off();
        self.recover = Opt::some(self.high);
        self.dupacks = 0;
        if self.rack_timeout() {
            // Linux `tcp_enter_loss`: SACKed segments stay so, the others are resent.
            self.rto_timer.set_deadline(None);
            self.try_send(io);
            self.trace(io);
            return;
        }
        // RFC 6675 §5.1 / RFC 2018: forget SACK information and go back to SND.UNA.
        for m in self.segs.iter_mut() {
            m.set_sacked(false);
        }
        self.board = Default::default();
        self.high_rxt = self.una;
        self.nxt = self.una;
        self.rto_timer.set_deadline(None);
        let seg = self.nxt;
        self.send_segment(seg, io);
        self.nxt += 1;
        self.try_send(io);
        self.trace(io);
    }

    /// The retransmission timeout currently in force, back-off included.
    /// The settings it runs with (the packet trace's view of the connection, `net/wire.rs`).
    pub fn params(&self) -> &SenderParams {
        &self.p
    }

    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }
}

impl Timers for Sender {
    #[inline]
    fn timer(&self, name: TimerName) -> &LazyTimer {
        match name {
            TimerName::Rto => &self.rto_timer,
            TimerName::Pace => &self.pace_timer,
            TimerName::DelAck => unreachable!("the receiver owns {name:?}"),
        }
    }
    #[inline]
    fn timer_mut(&mut self, name: TimerName) -> &mut LazyTimer {
        match name {
            TimerName::Rto => &mut self.rto_timer,
            TimerName::Pace => &mut self.pace_timer,
            TimerName::DelAck => unreachable!("the receiver owns {name:?}"),
        }
    }
    fn on_timer(&mut self, name: TimerName, io: &mut Io) {
        if self.rack.is_some() {
            return self.rack_on_timer(name, io);
        }
        match name {
            TimerName::Rto => self.on_rto(io),
            TimerName::Pace => self.on_pace(io),
            TimerName::DelAck => unreachable!("the receiver owns {name:?}"),
        }
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
