//! The sender's side of XCP's congestion header (Katabi, Handley & Rohrs 2002 §3.1–3.2): what
//! it writes into the segments it sends and how it reads the routers' feedback echoed back.

use super::cc::{CongestionControl, Feedback};
use super::sender::Sender;
use super::Io;
use crate::packet::XcpHeader;

impl Sender {
    /// Bytes a full segment takes on the wire: XCP's unit for windows and feedback.
    pub(super) fn wire_segment(&self) -> f64 {
        (self.p.mss + self.p.header_bytes) as f64
    }

    /// Stamps the segment just sent by an XCP flow (`cc/xcp.rs`) with its congestion header:
    /// the window in bytes on the wire, the RTT estimate (0 before a sample) and an unbounded
    /// desired increase for the routers to lower (Katabi et al. 2002 §3.1–3.2). Out of line
    /// and after the send, so that other flows pay only the test of the algorithm's tag.
    #[inline(never)]
    pub(super) fn stamp_xcp(&self, io: &mut Io) {
        if !self.cc.wants_router_feedback() {
            return;
        }
        if let Some(p) = io.out.last_mut() {
            p.xcp = Some(Box::new(XcpHeader {
                cwnd_bytes: self.st.cwnd * self.wire_segment(),
                rtt_s: self.st.srtt.as_secs_f64(),
                feedback_bytes: f64::INFINITY,
                ..XcpHeader::default()
            }));
        }
    }

    /// An echoed XCP header in the algorithm's units: segments, and segments per second.
    pub(super) fn xcp_feedback(&self, x: &XcpHeader) -> Feedback {
        let seg = self.wire_segment();
        let admitted = if x.rtt_s > 0.0 {
            (x.cwnd_bytes + x.feedback_bytes).max(0.0) / x.rtt_s / seg
        } else {
            0.0
        };
        Feedback::Xcp {
            feedback: x.feedback_bytes / seg,
            admitted,
            congested: x.congested,
            queue_high: x.queue_high,
        }
    }
}
