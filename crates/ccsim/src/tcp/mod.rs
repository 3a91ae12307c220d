//! TCP: a sender (sequence space, RTO, loss recovery) and a receiver, with congestion control
//! plugged into the sender through the `cc::CongestionControl` trait.
//!
//! Sequence numbers are bytes on the wire, but the sender only ever sends whole segments at
//! multiples of the MSS (the last one of a finite transfer may be shorter), so it keeps its
//! books in segment indices; SACK blocks from the receiver are segment-aligned for the same
//! reason. The handshake's SYN does not consume sequence space.

mod accecn;
pub mod acns;
pub mod cc;
pub mod ecn;
mod observe;
mod pacing;
mod params;
mod prr;
mod quickack;
mod rack;
pub mod rate;
pub mod receiver;
mod recovery;
mod rtt;
mod sack;
mod seg_meta;
pub mod sender;
pub mod slow_start;
#[cfg(test)]
mod test_rig;
pub mod timer;
mod tlp;
mod xcp_header;

pub use pacing::linux_pacing_rate;
pub use params::TcpParams;
pub use receiver::{Receiver, ReceiverConfig};
pub use rtt::RttEstimator;
pub use sender::Sender;

use crate::packet::Packet;
use crate::time::SimTime;
use crate::trace::Recorder;

/// What an endpoint may touch while handling an event: the clock, the packet arena, the list of
/// packets it sends (the simulation forwards them from the endpoint's node), and the recorder.
pub struct Io<'a> {
    pub now: SimTime,
    /// Packets sent, in order; the simulation moves them into its arena afterwards, so that an
    /// endpoint can read the packet it was handed in place, with no copy, while it sends.
    pub out: &'a mut Vec<Packet>,
    pub rec: &'a mut Recorder,
    /// A buffer an endpoint may use while it handles one packet (the sender's newly SACKed
    /// runs, `sack.rs`): one for the simulation instead of one per connection.
    pub scratch: &'a mut Vec<(u64, u64)>,
}

impl Io<'_> {
    /// Sends `p`, returned where it now lies in `out` for the endpoint to fill in. Filled in
    /// on the stack and then moved, the move's wide loads would read its fields right after
    /// their narrow stores, which the processor cannot forward to a wider load, so the move
    /// would wait for them (docs/performance-history.md, 0.6.2).
    #[inline(always)]
    pub fn send(&mut self, p: Packet) -> &mut Packet {
        self.out.push(p);
        self.out.last_mut().expect("a packet was just pushed")
    }
}

/// Runs `f` with an `Io` at 1 ms of its own and returns the packets it sent (unit tests of the
/// endpoints).
#[cfg(test)]
pub(crate) fn sent_by(f: impl FnOnce(&mut Io)) -> Vec<Packet> {
    let (mut out, mut rec, mut scratch) = (vec![], Recorder::default(), vec![]);
    f(&mut Io {
        now: SimTime::from_millis(1),
        out: &mut out,
        rec: &mut rec,
        scratch: &mut scratch,
    });
    out
}
