//! A UDP source: fixed-size packets from `start` to `stop`, either at a constant bit rate or
//! in on-off bursts at that rate (`onoff.rs`). A CBR source is ns-2's `Application/Traffic/CBR`
//! (`tools/cbr_traffic.cc`): it sends its first packet at its start; with `random_` each gap
//! is the interval plus a uniform draw in ±half of it; it stops after `maxpkts_` packets.

use super::OnOff;
use crate::packet::{Kind, Packet};
use crate::rng::Rng;
use crate::tcp::Io;
use crate::time::{Rate, SimTime};

pub struct UdpSource {
    pub flow: u32,
    node: u32,
    peer: u32,
    /// Bytes on the wire per packet (header included; 28 of them are IP + UDP).
    pub size: u32,
    /// Time between packets at the source's rate (within a burst, for on-off).
    pub interval: SimTime,
    pub stop: SimTime,
    pub dscp: u8,
    /// The bursts and idle periods of an on-off source; none for CBR.
    pub onoff: Option<Box<OnOff>>,
    /// A CBR source's stream for jittered gaps (ns-2's `random_`), if it jitters.
    pub jitter: Option<Box<Rng>>,
    /// The most packets it sends (ns-2's `maxpkts_`).
    pub max_packets: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
}

/// IP (20) + UDP (8) header bytes.
pub const UDP_HEADER: u32 = 28;

impl UdpSource {
    /// A constant-bit-rate source: one `size`-byte packet every `size`·8/`rate` seconds.
    pub fn cbr(flow: u32, node: u32, peer: u32, rate: Rate, size: u32, stop: SimTime) -> Self {
        UdpSource {
            flow,
            node,
            peer,
            size,
            interval: rate.tx_time(size),
            stop,
            dscp: 0,
            onoff: None,
            jitter: None,
            max_packets: u64::MAX,
            packets_sent: 0,
            bytes_sent: 0,
            packets_received: 0,
            bytes_received: 0,
        }
    }

    /// Marks its packets with DiffServ code point `dscp`.
    pub fn with_dscp(mut self, dscp: u8) -> Self {
        self.dscp = dscp;
        self
    }

    /// Draws each gap from the interval ± half of it, from `rng` (ns-2's `random_`).
    pub fn with_jitter(mut self, rng: Rng) -> Self {
        self.jitter = Some(Box::new(rng));
        self
    }

    /// Stops after `n` packets (ns-2's `maxpkts_`).
    pub fn with_max_packets(mut self, n: u64) -> Self {
        self.max_packets = n;
        self
    }

    /// Sends in bursts at its rate, separated by idle periods, as `onoff` draws them.
    pub fn with_onoff(mut self, onoff: OnOff) -> Self {
        self.onoff = Some(Box::new(onoff));
        self
    }

    pub fn payload(&self) -> u32 {
        self.size.saturating_sub(UDP_HEADER).max(1)
    }

    /// Starts the source at `io.now`; returns when its next packet is due, if before `stop`.
    /// A CBR source sends its first packet at once; an on-off one, as ns-2's
    /// `TrafficGenerator::start` does, first draws its first burst and the idle period before
    /// it, and sends that burst's first packet after them.
    pub fn start(&mut self, io: &mut Io) -> Option<SimTime> {
        match &mut self.onoff {
            None => self.send(io),
            Some(o) => {
                let first = io.now + o.next_gap(self.interval);
                (first < self.stop).then_some(first)
            }
        }
    }

    /// Sends one packet; returns when the next one is due, if before `stop`.
    pub fn send(&mut self, io: &mut Io) -> Option<SimTime> {
        let mut p = Packet::new(
            self.flow,
            Kind::Udp,
            self.node,
            self.peer,
            self.size,
            io.now,
        );
        p.payload = self.payload() as u16; // size ≤ 65,535 (scenario/build.rs)
        p.dscp = self.dscp;
        self.packets_sent += 1;
        self.bytes_sent += p.payload as u64;
        io.send(p);
        if self.packets_sent >= self.max_packets {
            return None;
        }
        let gap = match (&mut self.onoff, &mut self.jitter) {
            (Some(o), _) => o.next_gap(self.interval),
            (None, None) => self.interval,
            (None, Some(r)) => jittered(self.interval, r.uniform()),
        };
        let next = io.now + gap;
        (next < self.stop).then_some(next)
    }

    pub fn on_receive(&mut self, payload: u32) {
        self.packets_received += 1;
        self.bytes_received += payload as u64;
    }
}

/// ns-2's jittered CBR gap for uniform `u` in [0, 1): `interval·(1 + (u − ½))`, to the
/// nanosecond.
pub fn jittered(interval: SimTime, u: f64) -> SimTime {
    SimTime::from_secs_f64(interval.as_secs_f64() * (0.5 + u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jittered_gaps_span_half_to_one_and_a_half_intervals() {
        let i = SimTime::from_millis(4);
        assert_eq!(jittered(i, 0.0), SimTime::from_millis(2));
        assert_eq!(jittered(i, 0.5), SimTime::from_millis(4));
        assert_eq!(jittered(i, 0.75), SimTime::from_millis(5));
    }
}
