//! CoDel's `ce_threshold`, as Linux implements it for `sch_codel` and `sch_fq_codel`
//! (`include/net/codel_impl.h`, the end of `codel_dequeue`): a packet that leaves after more
//! than the threshold in the queue is marked CE, whatever CoDel's own control law decides.
//! It gives a scalable congestion control (DCTCP, TCP Prague) the shallow, immediate marking
//! it expects, without the sojourn's interval-long wait of CoDel proper.
//!
//! Linux 5.16 added a selector for FQ-CoDel (`ce_threshold_selector VALUE/MASK`): only packets
//! whose DS field (DSCP and ECN bits, the IP header's old TOS byte) masked with MASK equals
//! VALUE are marked so — `0x01/0x01` selects ECT(1), the L4S identifier of RFC 9331, leaving
//! classic ECN traffic to CoDel's marking. A mask of 0 selects every packet.
//!
//! Linux marks a packet already CE again and counts it; here a packet that arrives CE is left
//! as it is and not counted, so that the queue's `marks` count the packets it marked.

use super::{QueueCtx, Reason};
use crate::config::units::Duration;
use crate::config::ParamError;
use crate::packet::{Ecn, PktId};
use crate::time::SimTime;

/// The threshold and the DS-field selector of one queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CeThreshold {
    pub after: SimTime,
    pub selector: u8,
    pub mask: u8,
}

/// The ECN field's two bits in the DS field (RFC 3168 §5).
fn ecn_bits(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0b00,
        Ecn::Ect1 => 0b01,
        Ecn::Ect0 => 0b10,
        Ecn::Ce => 0b11,
    }
}

impl CeThreshold {
    /// The threshold from a queue's options: none without `ce_threshold`; a selector or mask
    /// without it, or a selector with bits outside the mask (it could never match), refused.
    pub fn from_spec(
        after: Option<Duration>,
        selector: Option<u8>,
        mask: Option<u8>,
    ) -> Result<Option<CeThreshold>, ParamError> {
        let Some(after) = after else {
            if selector.is_some() {
                return Err(("ce_threshold_selector", "needs ce_threshold".into()));
            }
            if mask.is_some() {
                return Err(("ce_threshold_mask", "needs ce_threshold".into()));
            }
            return Ok(None);
        };
        let (selector, mask) = (selector.unwrap_or(0), mask.unwrap_or(0));
        if selector & !mask != 0 {
            return Err((
                "ce_threshold_selector",
                format!(
                    "{selector:#04x} has bits outside ce_threshold_mask {mask:#04x}: it could \
                     never match"
                ),
            ));
        }
        Ok(Some(CeThreshold {
            after: after.0,
            selector,
            mask,
        }))
    }

    /// Marks `pkt`, leaving at `ctx.now`, if it waited more than the threshold, is ECT(0) or
    /// ECT(1) and is selected.
    pub fn apply(&self, pkt: PktId, ctx: &mut QueueCtx) {
        let p = ctx.arena.get(pkt);
        if !matches!(p.ecn, Ecn::Ect0 | Ecn::Ect1) || ctx.now - p.enqueued <= self.after {
            return;
        }
        let ds = (p.dscp << 2) | ecn_bits(p.ecn);
        if ds & self.mask == self.selector {
            ctx.mark(pkt, Reason::Early);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn ce(after_ms: u64, selector: u8, mask: u8) -> CeThreshold {
        let after = Duration(ms(after_ms));
        CeThreshold::from_spec(Some(after), Some(selector), Some(mask))
            .unwrap()
            .unwrap()
    }

    /// Whether a packet of `ecn` (and `dscp`), enqueued at 0 and leaving at `at_ms`, is marked.
    fn marked(t: &CeThreshold, ecn: Ecn, dscp: u8, at_ms: u64) -> bool {
        let mut h = Harness::new();
        let p = h.pkt(0, 1500, ecn, SimTime::ZERO);
        h.arena.get_mut(p).dscp = dscp;
        t.apply(p, &mut h.ctx(ms(at_ms)));
        h.arena.get(p).ecn == Ecn::Ce
    }

    #[test]
    fn marks_what_waited_longer_than_the_threshold() {
        // 1 ms, every packet (mask 0): 2 ms of sojourn is marked, exactly 1 ms is not
        // (Linux `codel_time_after`: strictly later).
        let t = ce(1, 0, 0);
        assert!(marked(&t, Ecn::Ect0, 0, 2));
        assert!(marked(&t, Ecn::Ect1, 0, 2));
        assert!(!marked(&t, Ecn::Ect0, 0, 1));
        // Not ECN-capable: never marked (and not dropped either).
        assert!(!marked(&t, Ecn::NotEct, 0, 50));
    }

    #[test]
    fn the_ect1_selector_leaves_classic_ecn_alone() {
        // 0x01/0x01: DS field & 0x01 == 0x01, ECT(1) = 0b01 whatever the DSCP; ECT(0) = 0b10
        // gives 0.
        let t = ce(1, 0x01, 0x01);
        assert!(marked(&t, Ecn::Ect1, 0, 5));
        assert!(marked(&t, Ecn::Ect1, 46, 5));
        assert!(!marked(&t, Ecn::Ect0, 0, 5));
        // A DSCP selector: EF (46 << 2 = 0xb8) under mask 0xfc.
        let ef = ce(1, 0xb8, 0xfc);
        assert!(marked(&ef, Ecn::Ect0, 46, 5));
        assert!(!marked(&ef, Ecn::Ect0, 0, 5));
    }

    #[test]
    fn options_are_checked_by_name() {
        let e = CeThreshold::from_spec(None, Some(1), None).unwrap_err();
        assert_eq!(e.0, "ce_threshold_selector");
        let e = CeThreshold::from_spec(None, None, Some(1)).unwrap_err();
        assert_eq!(e.0, "ce_threshold_mask");
        let e = CeThreshold::from_spec(Some(Duration(ms(1))), Some(0x03), Some(0x01)).unwrap_err();
        assert_eq!(e.0, "ce_threshold_selector");
        assert!(e.1.contains("0x03") && e.1.contains("0x01"));
        assert_eq!(CeThreshold::from_spec(None, None, None).unwrap(), None);
    }
}
