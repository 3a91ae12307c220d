//! Constant-bit-rate UDP: fixed-size packets at fixed intervals from `start` to `stop`.

use crate::packet::{Kind, Packet};
use crate::tcp::Io;
use crate::time::{Rate, SimTime};

pub struct Cbr {
    pub flow: u32,
    node: u32,
    peer: u32,
    /// Bytes on the wire per packet (header included; 28 of them are IP + UDP).
    pub size: u32,
    pub interval: SimTime,
    pub stop: SimTime,
    pub dscp: u8,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
}

/// IP (20) + UDP (8) header bytes.
pub const UDP_HEADER: u32 = 28;

impl Cbr {
    pub fn new(
        flow: u32,
        node: u32,
        peer: u32,
        rate: Rate,
        size: u32,
        stop: SimTime,
        dscp: u8,
    ) -> Cbr {
        Cbr {
            flow,
            node,
            peer,
            size,
            interval: rate.tx_time(size),
            stop,
            dscp,
            packets_sent: 0,
            bytes_sent: 0,
            packets_received: 0,
            bytes_received: 0,
        }
    }

    pub fn payload(&self) -> u32 {
        self.size.saturating_sub(UDP_HEADER).max(1)
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
        let next = io.now + self.interval;
        (next < self.stop).then_some(next)
    }

    pub fn on_receive(&mut self, payload: u32) {
        self.packets_received += 1;
        self.bytes_received += payload as u64;
    }
}
