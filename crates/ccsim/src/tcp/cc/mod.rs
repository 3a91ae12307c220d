//! Congestion control: one small trait, one file per algorithm, enum dispatch.
//!
//! The split follows Linux's `tcp_congestion_ops` (and ns-3's `TcpCongestionOps`): the sender
//! owns sequence numbers, duplicate ACKs, SACK, RTO and loss recovery; an algorithm owns window
//! growth, the slow-start threshold after a loss, and its private state. Hook names are Linux's.
//! Windows are in segments (f64), as in the papers and in Linux.
//!
//! XCP's sender receives the routers' feedback through [`CongestionControl::on_feedback`],
//! Linux's "custom" `cong_control` path: an algorithm that handles the feedback returns true
//! and the classic `cong_avoid` is skipped for that ACK. ACNS works with any algorithm, so its
//! commands are handled by the sender around the algorithm (`tcp/acns.rs`).

mod marked;
mod param;
mod registry;

use crate::config::Profile;
use crate::tcp::slow_start::SlowStart;
use crate::time::SimTime;

pub use crate::tcp::ecn::{EcnFeedback, EcnUse};
pub use crate::tcp::rate::RateSample;
pub use external::{ExternalAlgorithm, ExternalFactory};
pub use param::ParamError;

// The registry: one line per algorithm (its module, its type and its configuration's type).
// `registry.rs` turns the list into the `cc = ...` table of scenarios (`CcSpec`: its schema,
// its parsing and error messages, `name()` and `build()`) and into the statically dispatched
// `Cc`. The name in scenarios is the module's.
registry::algorithms! {
    /// RFC 5681 AIMD.
    reno => Reno(RenoConfig),
    /// Delay-based: holds α–β packets in the bottleneck queue (Brakmo & Peterson 1995).
    vegas => Vegas(VegasConfig),
    /// Westwood+: after a loss, the window the bandwidth estimate fills (Mascolo et al.).
    westwood => Westwood(WestwoodConfig),
    /// Hybla: RTT-independent growth for long paths (Caini & Firrincieli 2004).
    hybla => Hybla(HyblaConfig),
    /// Illinois: delay-scaled AIMD (Liu, Başar & Srikant 2008).
    illinois => Illinois(IllinoisConfig),
    /// NDCA-TCP: bandwidth-estimated ssthresh and a hold near saturation (Park et al.).
    ndca => Ndca(NdcaConfig),
    /// CUBIC, RFC 9438 in Linux's form, with HyStart (`cubic.rs`).
    cubic => Cubic(CubicConfig),
    /// BIC-TCP, Linux `tcp_bic.c` (`bic.rs`).
    bic => Bic(BicConfig),
    /// HighSpeed TCP, RFC 3649: Linux's table or ns-2's formula (`highspeed.rs`).
    highspeed => HighSpeed(HighSpeedConfig),
    /// Scalable TCP (Kelly 2003), Linux `tcp_scalable.c` (`scalable.rs`).
    scalable => Scalable(ScalableConfig),
    /// Veno: Reno that tells random from congestion loss by Vegas's backlog (`veno.rs`).
    veno => Veno(VenoConfig),
    /// DCTCP, RFC 8257 / Linux `tcp_dctcp.c`: cuts in proportion to the marked fraction.
    dctcp => Dctcp(DctcpConfig),
    /// TCP Prague, the L4S scalable control (`tcp_prague.c`): ECT(1), Accurate ECN, paced.
    prague => Prague(PragueConfig),
    /// H-TCP: increase from the time since the last loss, β = RTT_min/RTT_max (Leith &
    /// Shorten 2004; Linux `tcp_htcp.c`; `htcp.rs`).
    htcp => Htcp(HtcpConfig),
    /// YeAH-TCP: Scalable's growth while a Vegas queue estimate is small, Reno's and a drain
    /// of its own queue above it (Baiocchi et al. 2007; Linux `tcp_yeah.c`; `yeah.rs`).
    yeah => Yeah(YeahConfig),
    /// TCP-LP: low priority, yields at a rise of the one-way delay (Kuzmanovic & Knightly
    /// 2003; Linux `tcp_lp.c`; `lp.rs`).
    lp => Lp(LpConfig),
    /// LEDBAT, RFC 6817: background transport that holds 100 ms of queueing delay and yields
    /// to other traffic (as ns-3's `TcpLedbat`; `ledbat.rs`).
    ledbat => Ledbat(LedbatConfig),
    /// BBR v1, Linux `tcp_bbr.c`: a model of the path's bottleneck bandwidth and minimum RTT
    /// sets the pacing rate and the window (Cardwell et al. 2016; `bbr.rs`).
    bbr => Bbr(BbrConfig),
    /// BBRv3, draft-ietf-ccwg-bbr as Linux's v3 `tcp_bbr.c`: v1's model with ProbeBW's
    /// DOWN/CRUISE/REFILL/UP and bounds that loss sets (`bbr3/`).
    bbr3 => Bbr3(Bbr3Config),
    /// XCP's sender: the window follows the routers' explicit feedback (Katabi et al. 2002;
    /// `xcp.rs`). Needs `kind = "xcp"` queues on the path.
    xcp => Xcp(XcpConfig),
    /// An algorithm written outside the core, in Python (`ccsim.CongestionControl`), which the
    /// Python front end puts here; not for scenario files (`external.rs`).
    external => External(ExternalConfig),
}

/// What building an algorithm from its configuration may read: the defaults profile of the
/// scenario (for parameters whose default differs between Linux, ns-2 and the RFCs), the
/// connection's segment size, the flow's name, the algorithms the embedding program
/// supplies (`external.rs`) and the scenario's seed.
#[derive(Copy, Clone)]
pub struct BuildContext<'a> {
    pub profile: Profile,
    pub mss: u32,
    pub flow: &'a str,
    pub external: &'a [Box<ExternalFactory>],
    /// The scenario's seed, from which an algorithm that draws random numbers derives the
    /// flow's stream (`rng.rs`).
    pub seed: u64,
}

/// An algorithm's configuration, as a scenario writes it (`cc = { kind = "name", ... }`): the
/// factory of the algorithm. Parameters left out take their defaults here, from `ctx`.
pub trait CcConfig {
    type Algorithm;
    /// Whether the algorithm is built for each flow (it draws from the flow's random stream,
    /// `BuildContext::seed`), rather than copied from another flow of the same configuration.
    const PER_FLOW: bool = false;
    /// The algorithm, or the field and message of an invalid parameter (the scenario builder
    /// prefixes the field with the path of the `cc` table).
    fn build(&self, ctx: &BuildContext) -> Result<Self::Algorithm, ParamError>;
}

/// Loss-recovery state of the sender, as Linux's `tcp_ca_state`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation (Linux `TCP_CA_Open`/`Disorder`).
    Open,
    /// Window reduced after an ECN echo (RFC 3168), no retransmission.
    Cwr,
    /// Fast retransmit / fast recovery.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// Events an algorithm may react to beyond ACKs, as Linux's `tcp_ca_event`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// First transmission after the connection was idle.
    TxStart,
    /// A retransmission timeout fired (cwnd is about to become the loss window).
    Timeout,
    /// An ACK carried ECN-Echo (RFC 3168) in the Open state: the window is about to be
    /// reduced (`ssthresh` follows).
    EcnEcho,
    /// Loss recovery ended (cwnd has been set to its post-recovery value).
    RecoveryExit,
}

/// Connection state the sender shares with its congestion-control algorithm.
#[derive(Clone, Debug)]
pub struct TcpState {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Slow-start threshold, segments.
    pub ssthresh: f64,
    pub mss: u32,
    /// Receiver window in segments (infinite when unlimited).
    pub rwnd: f64,
    /// Segments sent and not cumulatively acknowledged (FlightSize of RFC 5681).
    pub flight: u64,
    pub ca_state: CaState,
    /// Smoothed RTT (zero before the first sample).
    pub srtt: SimTime,
    /// Smallest RTT sample seen.
    pub min_rtt: SimTime,
    pub now: SimTime,
    /// Oldest unacknowledged segment (SND.UNA) and one past the highest segment sent
    /// (Linux's `snd_nxt`), in segments: marks round trips (Vegas's `beg_snd_nxt`).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The connection's slow-start rule, applied by [`slow_start`].
    pub slow_start: SlowStart,
    /// Pacing rate, bytes per second on the wire (infinite: unpaced). An algorithm that asks
    /// for pacing sets it; otherwise a paced sender applies Linux's rule (`tcp/pacing.rs`).
    pub pacing_rate: f64,
    /// Segments delivered (SACKed or cumulatively acknowledged) and marked lost so far (Linux
    /// `tp->delivered`, `tp->lost`): counted on connections that sample the delivery rate
    /// (`tcp/rate.rs`), zero on the others.
    pub delivered: u64,
    pub lost: u64,
    /// Nonzero while the connection is application-limited: the delivered count at which the
    /// bubble ends (Linux `tp->app_limited`). An algorithm may set it to keep its samples out
    /// of the estimate (BBR in ProbeRTT).
    pub app_limited: u64,
    /// ACKs that carried ECN-Echo before the one being handled (RFC 3168; `AckSample::ece`
    /// says whether this one does; not counted on ACNS connections, whose ECE is a command).
    pub ecn_echoes: u64,
}

impl TcpState {
    /// A connection before it has sent anything: the window and threshold given, nothing in
    /// flight or delivered, no RTT sample, unpaced.
    pub fn new(cwnd: f64, ssthresh: f64, mss: u32, rwnd: f64, slow_start: SlowStart) -> TcpState {
        TcpState {
            cwnd,
            ssthresh,
            mss,
            rwnd,
            flight: 0,
            ca_state: CaState::Open,
            srtt: SimTime::ZERO,
            min_rtt: SimTime::MAX,
            now: SimTime::ZERO,
            snd_una: 0,
            snd_nxt: 0,
            pacing_rate: f64::INFINITY,
            delivered: 0,
            lost: 0,
            app_limited: 0,
            ecn_echoes: 0,
            slow_start,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What one ACK that acknowledged new data tells the algorithm.
#[derive(Copy, Clone, Debug)]
pub struct AckSample {
    /// Segments newly acknowledged by the cumulative ACK, whatever the counting rule.
    pub segments: u64,
    /// Segments newly acknowledged: counts segments (RFC 3465 byte counting, Linux) or is at
    /// most 1 per ACK (RFC 5681 equations 2–3, ns-2), per the connection's `ack_counting`.
    pub acked: f64,
    /// RTT measured by this ACK, if it gave a valid sample (Karn's rule, RFC 6298 §3).
    pub rtt: Option<SimTime>,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// Segments reported CE-marked since the previous ACK of new data, on a connection using
    /// ECN: those acknowledged by ACKs with ECE (Linux `delivered_ce`; under the per-packet
    /// echo, exactly the marked ones), or the rise of Accurate ECN's counter. Zero otherwise.
    pub ce: u64,
}

/// Feedback that routers wrote into the packet and the receiver echoed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Feedback {
    /// XCP (Katabi et al. 2002 §3.2), converted by the sender from the header's bytes on the
    /// wire: the window change in segments (infinite where no router lowered it), the rate the
    /// routers admitted in segments per second, and Sheela & Raja's congestion bits.
    Xcp {
        feedback: f64,
        admitted: f64,
        congested: bool,
        queue_high: bool,
    },
}

/// The contract every congestion-control algorithm implements.
pub trait CongestionControl {
    /// The slow-start threshold to use after a loss or an ECN echo. Returns the value and does
    /// not change state (the ns-3 contract); the sender assigns it. Required.
    fn ssthresh(&self, st: &TcpState) -> f64;

    /// Window growth on an ACK that acknowledges new data while not in loss recovery. Required.
    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample);

    /// Every ACK acknowledging new data, in any state, before `cong_avoid`: RTT samples for
    /// delay-based algorithms.
    fn pkts_acked(&mut self, _st: &TcpState, _ack: &AckSample) {}

    /// The sender's loss-recovery state is about to change to `new`.
    fn set_state(&mut self, _st: &mut TcpState, _new: CaState) {}

    fn cwnd_event(&mut self, _st: &mut TcpState, _ev: CaEvent) {}

    /// Router feedback carried by this ACK; return true if the algorithm set the window itself.
    fn on_feedback(&mut self, _st: &mut TcpState, _fb: &Feedback) -> bool {
        false
    }

    /// The bandwidth estimate the algorithm keeps, bytes per second (the `bw_estimate` series),
    /// if it keeps one.
    fn bw_estimate(&self) -> Option<f64> {
        None
    }

    /// Whether the algorithm is holding its window (the `cwnd_hold` series: NDCA's hold near
    /// saturation), for an algorithm that has such a state.
    fn holding(&self) -> Option<bool> {
        None
    }

    /// The connection is established and about to send (Linux `init`).
    fn init(&mut self, _st: &mut TcpState) {}

    /// Linux's `cong_control`: sets the window (and the pacing rate) from every ACK's
    /// delivery-rate sample, in every state, for an algorithm whose `controls_window` is true.
    /// The sender then applies neither `cong_avoid` nor its own recovery and ECN window rules;
    /// it still sets the loss window after a timeout, as Linux's `tcp_enter_loss` does.
    fn cong_control(&mut self, _st: &mut TcpState, _rs: &RateSample) {}

    /// A segment was newly marked lost, on a connection that samples the delivery rate (Linux
    /// `skb_marked_lost`, BBRv3): `rs` holds only the segment's snapshot — `tx_in_flight`,
    /// `lost` (segments marked lost since it was sent, itself included) and `is_app_limited`.
    fn skb_marked_lost(&mut self, _st: &mut TcpState, _rs: &RateSample) {}

    /// Whether the algorithm sets its window in `cong_control` (the sender then keeps
    /// delivery-rate samples for it).
    fn controls_window(&self) -> bool {
        false
    }

    /// Whether the algorithm reads router feedback (`on_feedback`): the sender then stamps an
    /// XCP congestion header on its segments (`tcp/xcp_header.rs`).
    fn wants_router_feedback(&self) -> bool {
        false
    }

    /// Whether the algorithm asks to be paced at the `pacing_rate` it sets (Linux
    /// `SK_PACING_NEEDED`): it is under `pacing = "auto"`.
    fn wants_pacing(&self) -> bool {
        false
    }

    /// Where the algorithm's state machine is (the `cc_mode` series), for one that has one.
    fn mode(&self) -> Option<f64> {
        None
    }

    /// The algorithm's minimum-RTT estimate in seconds (the `min_rtt` series), if it keeps one.
    fn min_rtt_estimate(&self) -> Option<f64> {
        None
    }

    /// The lower and upper bounds of the flight the algorithm's model allows, segments, infinite
    /// while unset (BBRv3's `inflight_lo` and `inflight_hi`: the `inflight_lo` and
    /// `inflight_hi` series), for an algorithm that keeps them.
    fn inflight_bounds(&self) -> Option<(f64, f64)> {
        None
    }

    /// For an algorithm that asks for pacing but sets no rate: the ratios (per cent, in slow
    /// start below ssthresh/2 and after) of Linux's rule, `tcp_update_pacing_rate`, that give
    /// its rate, recomputed by the sender after every ACK.
    fn pacing_ratios(&self) -> Option<(f64, f64)> {
        None
    }

    /// The ECN codepoint and feedback the algorithm needs, for one that needs ECN (Linux
    /// `TCP_CONG_NEEDS_ECN`): its flows then use ECN whatever `tcp.ecn` says.
    fn needs_ecn(&self) -> Option<EcnUse> {
        None
    }

    /// The algorithm's estimate of the fraction of marked packets (DCTCP's and Prague's α; the
    /// `ecn_alpha` series), for one that keeps it.
    fn ecn_alpha(&self) -> Option<f64> {
        None
    }
}

/// Slow start (Linux `tcp_slow_start`): grow by what the connection's slow-start rule gives
/// for `acked` segments, but not past ssthresh; returns the part of `acked` left over for
/// congestion avoidance.
pub fn slow_start(st: &mut TcpState, acked: f64) -> f64 {
    let inc = st.slow_start.increment(st.cwnd, acked);
    if inc <= 0.0 {
        return 0.0;
    }
    let cwnd = (st.cwnd + inc).min(st.ssthresh.max(st.cwnd));
    let used = (cwnd - st.cwnd) / inc;
    st.cwnd = cwnd;
    (acked * (1.0 - used)).max(0.0)
}

/// Additive increase of one segment per `w` segments acknowledged (Linux `tcp_cong_avoid_ai`,
/// RFC 5681 equation 3 in segments).
pub fn cong_avoid_ai(st: &mut TcpState, w: f64, acked: f64) {
    st.cwnd += acked / w.max(1.0);
}

#[cfg(test)]
pub(crate) fn test_state(cwnd: f64, ssthresh: f64) -> TcpState {
    TcpState {
        flight: cwnd as u64,
        min_rtt: SimTime::ZERO,
        snd_nxt: cwnd as u64,
        ..TcpState::new(cwnd, ssthresh, 1000, f64::INFINITY, SlowStart::Standard)
    }
}

#[cfg(test)]
pub(crate) fn test_ctx(profile: Profile) -> BuildContext<'static> {
    BuildContext {
        profile,
        mss: 1000,
        flow: "f",
        external: &[],
        seed: 1,
    }
}

#[cfg(test)]
pub(crate) fn test_ack(acked: f64, rtt_ms: Option<u64>) -> AckSample {
    AckSample {
        segments: acked as u64,
        acked,
        rtt: rtt_ms.map(SimTime::from_millis),
        ece: false,
        ce: 0,
    }
}
