//! Defaults profiles: the values a scenario's unspecified settings take.
//!
//! | setting            | linux                      | ns2 (ns-2.35 `Agent/TCP`)   | rfc                          |
//! |--------------------|----------------------------|-----------------------------|------------------------------|
//! | mss                | 1448 B                     | 1000 B (`packetSize_`)      | 1460 B                       |
//! | header_bytes       | 52 (40 + timestamps)       | 40                          | 40                           |
//! | initial_window     | 10 (RFC 6928)              | 2 (`windowInit_`)           | rfc3390                      |
//! | initial_ssthresh   | unlimited                  | 20 (`window_`)              | unlimited                    |
//! | rwnd               | unlimited                  | 20 000 B (`window_` 20)     | unlimited                    |
//! | min_rto            | 200 ms on the variance     | 200 ms (`minrto_`) on RTO   | 1 s on RTO (RFC 6298 2.4)    |
//! | initial_rto        | 1 s                        | 3 s (`rtxcur_init_`)        | 1 s                          |
//! | max_rto            | 120 s                      | 60 s                        | 60 s                         |
//! | clock_granularity  | 1 ms (HZ=1000)             | 10 ms (`tcpTick_`)          | 1 ms                         |
//! | delayed_ack        | on, 40 ms                  | off (`Agent/TCPSink`)       | on, 200 ms                   |
//! | limited_transmit   | on                         | on (`singledup_ 1`)         | on                           |
//! | cwnd_limited       | on (`tcp_is_cwnd_limited`) | off (ns-2 always grows)     | off                          |
//! | handshake          | on                         | off (one-way agents)        | on                           |
//! | timestamps         | on                         | off                         | off                          |
//! | sack_blocks        | 3                          | 3 (`maxSackBlocks_`)        | 4 (RFC 2018 without TS)      |
//! | ack_counting       | segments (RFC 3465)        | acks (`opencwnd` per ACK)   | acks (RFC 5681 eqs. 2–3)     |
//! | recovery           | sack                       | newreno                     | sack (RFC 6675)              |
//! | cc                 | reno                       | reno                        | reno                         |
//! | cubic (if chosen)  | 2.3, β 0.7, HyStart        | 2.1, β 0.8, no HyStart      | 2.3, β 0.7, no HyStart       |
//! | highspeed mode     | table (Linux)              | formula (`windowOption_ 8`) | table (RFC 3649 App. B)      |
//! | scalable ai_cnt    | 100                        | 50 (Linux 2.6.22)           | 100                          |
//! | slow_start         | standard                   | standard                    | standard                     |
//! | queue limit        | 1000 packets (txqueuelen)  | 49 packets (`limit_ 50`)    | 100 packets                  |
//! | ecn / receiver_ecn | off / on (`tcp_ecn = 2`)   | off (`ecn_ 0`) / on         | off / on                     |
//! | receiver_accecn    | on (an L4S host)           | on                          | on                           |
//! | receiver_quickack  | on (Linux's ACK policy)    | off                         | off                          |
//! | acns / receiver_acns | off / on                 | off / on                    | off / on                     |
//! | pacing             | auto (BBR paces)           | auto                        | auto                         |
//! | prr                | on (Linux, RFC 6937)       | off                         | off                          |
//! | rack, tlp          | on (Linux, RFC 8985)       | off                         | off                          |
//! | rto_keeps_sack     | on (`tcp_enter_loss`)      | off (forgets, RFC 6675 5.1) | off (RFC 6675 §5.1)          |
//! | send_jitter        | 0                          | 0 (`overhead_ 0`)           | 0                            |
//! | pacing_ss/ca_ratio | 200 / 120 % (sysctls)      | 200 / 120 %                 | 200 / 120 %                  |
//!
//! PRR, RACK, TLP and `rto_keeps_sack` work on the SACK scoreboard: with another `recovery`
//! the profile's `on` does not apply (as in Linux without SACK), and asking for them is an
//! error.
//!
//! RED's profile-dependent defaults are in [`Profile::red_defaults`].
//!
//! Sources: `docs/algorithms.md` §1.5–1.8 and §13.2; §4–7 and §13.3 for the
//! congestion-control rows, whose defaults each algorithm's `build(profile)` applies (`tcp/cc/`).

use super::schema::{InitialWindow, TcpSpec};
use crate::config::{AckCounting, Pacing, Profile, Recovery, RtoFloor};
use crate::tcp::cc::CcSpec;
use crate::tcp::slow_start::SlowStartSpec;
use crate::tcp::TcpParams;
use crate::time::SimTime;

/// RFC 3390: IW = min(4·MSS, max(2·MSS, 4380 bytes)), in whole segments.
pub fn rfc3390_segments(mss: u32) -> u32 {
    let bytes = (4 * mss).min((2 * mss).max(4380));
    (bytes / mss).max(1)
}

impl Profile {
    pub fn tcp_defaults(self) -> TcpParams {
        match self {
            Profile::Linux => TcpParams {
                cc: CcSpec::reno(Box::default()),
                slow_start: SlowStartSpec::Standard(Default::default()),
                recovery: Recovery::Sack,
                mss: 1448,
                header_bytes: 52,
                initial_window: 10,
                initial_ssthresh: f64::INFINITY,
                rwnd: u64::MAX,
                min_rto: SimTime::from_millis(200),
                initial_rto: SimTime::from_secs(1),
                max_rto: SimTime::from_secs(120),
                clock_granularity: SimTime::from_millis(1),
                rto_floor: RtoFloor::Variance,
                delayed_ack: true,
                delayed_ack_timeout: SimTime::from_millis(40),
                limited_transmit: true,
                pacing: Pacing::Auto,
                prr: true,
                rack: true,
                tlp: true,
                rto_keeps_sack: true,
                send_jitter: SimTime::ZERO,
                pacing_ss_ratio: 200.0,
                pacing_ca_ratio: 120.0,
                cwnd_limited: true,
                handshake: true,
                timestamps: true,
                sack_blocks: 3,
                ack_counting: AckCounting::Segments,
                dupthresh: 3,
                dscp: 0,
                ecn: false,
                receiver_ecn: true,
                receiver_accecn: true,
                receiver_quickack: true,
                acns: None,
                receiver_acns: true,
            },
            Profile::Ns2 => TcpParams {
                cc: CcSpec::reno(Box::default()),
                slow_start: SlowStartSpec::Standard(Default::default()),
                recovery: Recovery::Newreno,
                mss: 1000,
                header_bytes: 40,
                initial_window: 2,
                initial_ssthresh: 20.0,
                rwnd: 20 * 1000,
                min_rto: SimTime::from_millis(200),
                initial_rto: SimTime::from_secs(3),
                max_rto: SimTime::from_secs(60),
                clock_granularity: SimTime::from_millis(10),
                rto_floor: RtoFloor::Rto,
                delayed_ack: false,
                delayed_ack_timeout: SimTime::from_millis(100),
                limited_transmit: true,
                pacing: Pacing::Auto,
                prr: false,
                rack: false,
                tlp: false,
                rto_keeps_sack: false,
                send_jitter: SimTime::ZERO,
                pacing_ss_ratio: 200.0,
                pacing_ca_ratio: 120.0,
                cwnd_limited: false,
                handshake: false,
                timestamps: false,
                sack_blocks: 3,
                ack_counting: AckCounting::Acks,
                dupthresh: 3,
                dscp: 0,
                ecn: false,
                receiver_ecn: true,
                receiver_accecn: true,
                receiver_quickack: false,
                acns: None,
                receiver_acns: true,
            },
            Profile::Rfc => TcpParams {
                cc: CcSpec::reno(Box::default()),
                slow_start: SlowStartSpec::Standard(Default::default()),
                recovery: Recovery::Sack,
                mss: 1460,
                header_bytes: 40,
                initial_window: rfc3390_segments(1460),
                initial_ssthresh: f64::INFINITY,
                rwnd: u64::MAX,
                min_rto: SimTime::from_secs(1),
                initial_rto: SimTime::from_secs(1),
                max_rto: SimTime::from_secs(60),
                clock_granularity: SimTime::from_millis(1),
                rto_floor: RtoFloor::Rto,
                delayed_ack: true,
                delayed_ack_timeout: SimTime::from_millis(200),
                limited_transmit: true,
                pacing: Pacing::Auto,
                prr: false,
                rack: false,
                tlp: false,
                rto_keeps_sack: false,
                send_jitter: SimTime::ZERO,
                pacing_ss_ratio: 200.0,
                pacing_ca_ratio: 120.0,
                cwnd_limited: false,
                handshake: true,
                timestamps: false,
                sack_blocks: 4,
                ack_counting: AckCounting::Acks,
                dupthresh: 3,
                dscp: 0,
                ecn: false,
                receiver_ecn: true,
                receiver_accecn: true,
                receiver_quickack: false,
                acns: None,
                receiver_acns: true,
            },
        }
    }

    /// Applies the settings a flow gives over this profile's defaults.
    pub fn resolve_tcp(self, spec: &TcpSpec) -> TcpParams {
        let mut p = self.tcp_defaults();
        let d = |x: &Option<crate::config::units::Duration>, def: SimTime| {
            x.map(|v| v.0).unwrap_or(def)
        };
        if let Some(v) = &spec.cc {
            p.cc = v.clone();
        }
        if let Some(v) = &spec.slow_start {
            p.slow_start = v.clone();
        }
        if let Some(v) = spec.recovery {
            p.recovery = v;
        }
        if let Some(v) = spec.mss {
            p.mss = v.0 as u32;
            // An MSS change recomputes an RFC 3390 window unless one was given.
            if self == Profile::Rfc {
                p.initial_window = rfc3390_segments(p.mss);
            }
        }
        if let Some(v) = spec.header_bytes {
            p.header_bytes = v;
        }
        match spec.initial_window {
            Some(InitialWindow::Segments(k)) => p.initial_window = k,
            Some(InitialWindow::Rfc3390) => p.initial_window = rfc3390_segments(p.mss),
            None => {}
        }
        if let Some(v) = spec.initial_ssthresh {
            p.initial_ssthresh = v;
        }
        if let Some(v) = spec.rwnd {
            p.rwnd = v.0;
        }
        p.min_rto = d(&spec.min_rto, p.min_rto);
        p.initial_rto = d(&spec.initial_rto, p.initial_rto);
        p.max_rto = d(&spec.max_rto, p.max_rto);
        p.clock_granularity = d(&spec.clock_granularity, p.clock_granularity);
        if let Some(v) = spec.rto_floor {
            p.rto_floor = v;
        }
        if let Some(v) = spec.delayed_ack {
            p.delayed_ack = v;
        }
        p.delayed_ack_timeout = d(&spec.delayed_ack_timeout, p.delayed_ack_timeout);
        if let Some(v) = spec.limited_transmit {
            p.limited_transmit = v;
        }
        if let Some(v) = spec.cwnd_limited {
            p.cwnd_limited = v;
        }
        if let Some(v) = spec.handshake {
            p.handshake = v;
        }
        if let Some(v) = spec.timestamps {
            p.timestamps = v;
        }
        if let Some(v) = spec.sack_blocks {
            p.sack_blocks = v;
        }
        if let Some(v) = spec.ack_counting {
            p.ack_counting = v;
        }
        if let Some(v) = spec.dupthresh {
            p.dupthresh = v;
        }
        if let Some(v) = spec.dscp {
            p.dscp = v;
        }
        if let Some(v) = spec.ecn {
            p.ecn = v;
        }
        if let Some(v) = spec.receiver_ecn {
            p.receiver_ecn = v;
        }
        if let Some(v) = spec.receiver_accecn {
            p.receiver_accecn = v;
        }
        if let Some(v) = spec.receiver_quickack {
            p.receiver_quickack = v;
        }
        if let Some(v) = &spec.acns {
            p.acns = v.0.clone();
        }
        if let Some(v) = spec.receiver_acns {
            p.receiver_acns = v;
        }
        if let Some(v) = spec.pacing {
            p.pacing = v;
        }
        if let Some(v) = spec.prr {
            p.prr = v;
        }
        if let Some(v) = spec.rack {
            p.rack = v;
        }
        if let Some(v) = spec.tlp {
            p.tlp = v;
        }
        if let Some(v) = spec.rto_keeps_sack {
            p.rto_keeps_sack = v;
        }
        p.send_jitter = d(&spec.send_jitter, p.send_jitter);
        if let Some(v) = spec.pacing_ss_ratio {
            p.pacing_ss_ratio = v;
        }
        if let Some(v) = spec.pacing_ca_ratio {
            p.pacing_ca_ratio = v;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3390_table() {
        // RFC 3390 §1: 4 segments for MSS ≤ 1095, 4380 B (3 segments) up to 2190, then 2.
        assert_eq!(rfc3390_segments(536), 4);
        assert_eq!(rfc3390_segments(1095), 4);
        assert_eq!(rfc3390_segments(1460), 3);
        assert_eq!(rfc3390_segments(2190), 2);
        assert_eq!(rfc3390_segments(9000), 2);
    }

    #[test]
    fn overrides_win_over_profile() {
        let spec = TcpSpec {
            recovery: Some(Recovery::Reno),
            delayed_ack: Some(true),
            ..Default::default()
        };
        let p = Profile::Ns2.resolve_tcp(&spec);
        assert_eq!(p.recovery, Recovery::Reno);
        assert!(p.delayed_ack);
        assert_eq!(p.rwnd, 20_000);
        assert_eq!(p.initial_rto, SimTime::from_secs(3));
    }
}
