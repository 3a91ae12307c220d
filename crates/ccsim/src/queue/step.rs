//! Step marking — DCTCP's AQM (Alizadeh et al., "Data Center TCP", SIGCOMM 2010, §3.1;
//! RFC 8257 §3.1): an arriving packet is marked CE when the instantaneous queue is at or above
//! the threshold K, with no averaging and no randomness, so that the fraction of marks tracks
//! how long the queue stays above K.
//!
//! This is Linux's `sch_red` with `min = max = K`, `ecn`, and an average weight of 1 (Wlog 0,
//! the setting DCTCP deployments use), and its decisions follow that code: the average is the
//! backlog the arrival finds (waiting packets, the one on the wire not counted, as every
//! ccsim queue counts), and `qavg ≥ qth_max` is RED's hard mark (`RED_HARD_MARK`), so an arrival
//! that finds K or more waiting — one that makes the queue exceed K — is marked. Linux's RED
//! counts bytes; here K is given in packets or in bytes. On a hard mark Linux marks an
//! ECN-capable packet (ECT(0), ECT(1), or CE already) and drops a Not-ECT one
//! (`INET_ECN_set_ce` fails, `forced_drop`) unless the `nodrop` flag is set, when it enqueues
//! it unmarked; the same here, with `nodrop`. Marks and those drops count as forced (RED above
//! max_th). The physical limit is RED's child FIFO: an arrival that does not fit is dropped as
//! overflow; Linux would have counted a mark on it first, ccsim counts the drop only.

use schemars::JsonSchema;
use serde::Deserialize;

use super::droptail::{DropTail, DropTailSpec};
use super::{QueueConfig, QueueContext, QueueCtx, QueueDiscipline, Reason, Verdict};
use crate::config::units::Bytes;
use crate::config::ParamError;
use crate::packet::PktId;

/// The marking threshold K.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Threshold {
    Packets(u32),
    Bytes(u64),
}

/// A FIFO that marks every ECN-capable arrival finding at least K waiting.
pub struct Step {
    fifo: DropTail,
    threshold: Threshold,
    /// Enqueue a Not-ECT arrival above K instead of dropping it.
    nodrop: bool,
}

impl Step {
    pub fn new(fifo: DropTail, threshold: Threshold, nodrop: bool) -> Step {
        Step {
            fifo,
            threshold,
            nodrop,
        }
    }

    /// Whether an arrival now finds the queue at or above K.
    fn above(&self) -> bool {
        match self.threshold {
            Threshold::Packets(k) => self.fifo.len_packets() >= k,
            Threshold::Bytes(k) => self.fifo.len_bytes() >= k,
        }
    }
}

impl QueueDiscipline for Step {
    fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
        if !self.above() {
            return self.fifo.enqueue(pkt, ctx);
        }
        let capable = ctx.ecn_capable(pkt);
        if !capable && !self.nodrop {
            return Verdict::Dropped(Reason::Forced);
        }
        match self.fifo.enqueue(pkt, ctx) {
            Verdict::Enqueued if capable => Verdict::Marked(Reason::Forced),
            v => v,
        }
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
        self.fifo.dequeue(ctx)
    }

    fn len_packets(&self) -> u32 {
        self.fifo.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    fn upcoming(&self) -> Option<PktId> {
        self.fifo.upcoming()
    }
}

/// Step marking (DCTCP, RFC 8257 §3.1; Linux `sch_red` with min = max = K): an ECN-capable
/// arrival that finds K or more packets (or bytes) waiting is marked CE, a Not-ECT one dropped
/// (or, with `nodrop`, enqueued). Give exactly one of `threshold` and `threshold_bytes`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// K in packets waiting (the DCTCP paper: 20 at 1 Gb/s, 65 at 10 Gb/s). No default.
    #[serde(default)]
    pub threshold: Option<u32>,
    /// K in bytes waiting (Linux RED's unit). No default.
    #[serde(default)]
    pub threshold_bytes: Option<Bytes>,
    /// Capacity in packets (give this or `limit_bytes`; default: the profile's limit).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Capacity in bytes.
    #[serde(default)]
    pub limit_bytes: Option<Bytes>,
    /// Enqueue a Not-ECT arrival above K unmarked instead of dropping it (Linux's `nodrop`
    /// flag). Default false, as Linux.
    #[serde(default)]
    pub nodrop: Option<bool>,
}

impl QueueConfig for StepSpec {
    type Discipline = Step;

    fn build(&self, ctx: &QueueContext) -> Result<Step, ParamError> {
        let threshold = match (self.threshold, self.threshold_bytes) {
            (Some(_), Some(_)) => {
                return Err((
                    "threshold_bytes",
                    "give either threshold (packets) or threshold_bytes, not both".into(),
                ))
            }
            (None, None) => {
                return Err((
                    "threshold",
                    "is required: the marking threshold K in packets (or give threshold_bytes)"
                        .into(),
                ))
            }
            (Some(0), None) => return Err(("threshold", "must be at least 1 packet".into())),
            (Some(k), None) => Threshold::Packets(k),
            (None, Some(b)) => Threshold::Bytes(b.0),
        };
        let fifo = DropTailSpec {
            limit: self.limit,
            limit_bytes: self.limit_bytes,
        }
        .build(ctx)?;
        // An arrival finding the limit is dropped before it could be marked.
        let (packets, bytes) = fifo.limits();
        match threshold {
            Threshold::Packets(k) if k >= packets => {
                return Err((
                    "threshold",
                    format!("{k} must be below the limit ({packets} packets)"),
                ))
            }
            Threshold::Bytes(k) if k >= bytes => {
                return Err((
                    "threshold_bytes",
                    format!("{k} must be below limit_bytes ({bytes} bytes)"),
                ))
            }
            _ => {}
        }
        Ok(Step::new(fifo, threshold, self.nodrop.unwrap_or(false)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::param::error_text;
    use super::*;
    use crate::config::Profile;
    use crate::packet::Ecn;
    use crate::time::{Rate, SimTime};

    const T: SimTime = SimTime::ZERO;

    fn ctx(profile: Profile) -> QueueContext {
        QueueContext {
            profile,
            rate: Rate(10_000_000),
            delay: SimTime::from_millis(10),
        }
    }

    fn build(json: &str) -> Result<Step, ParamError> {
        serde_json::from_str::<StepSpec>(json)
            .unwrap()
            .build(&ctx(Profile::Linux))
    }

    #[test]
    fn an_arrival_finding_k_or_more_waiting_is_marked() {
        // K = 3: the first three arrivals find 0, 1, 2 waiting; the fourth finds 3 = K.
        let mut h = Harness::new();
        let mut q = build(r#"{"threshold": 3, "limit": 10}"#).unwrap();
        for _ in 0..3 {
            assert_eq!(h.offer(&mut q, 0, 1500, Ecn::Ect0, T), Verdict::Enqueued);
        }
        for ecn in [Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            assert_eq!(
                h.offer(&mut q, 0, 1500, ecn, T),
                Verdict::Marked(Reason::Forced)
            );
        }
        assert_eq!(q.len_packets(), 6);
        // Back below K: two departures leave 4, two more leave 2 < 3 — unmarked again.
        for _ in 0..4 {
            q.dequeue(&mut h.ctx(T)).unwrap();
        }
        assert_eq!(h.offer(&mut q, 0, 1500, Ecn::Ect0, T), Verdict::Enqueued);
        // Now 3 waiting: marked.
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::Ect0, T),
            Verdict::Marked(Reason::Forced)
        );
    }

    #[test]
    fn not_ect_above_k_is_dropped_unless_nodrop() {
        let mut h = Harness::new();
        let mut q = build(r#"{"threshold": 2, "limit": 10}"#).unwrap();
        for _ in 0..2 {
            assert_eq!(h.offer(&mut q, 0, 1500, Ecn::NotEct, T), Verdict::Enqueued);
        }
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::NotEct, T),
            Verdict::Dropped(Reason::Forced)
        );
        assert_eq!(q.len_packets(), 2);
        let mut q = build(r#"{"threshold": 2, "limit": 10, "nodrop": true}"#).unwrap();
        for _ in 0..3 {
            assert_eq!(h.offer(&mut q, 0, 1500, Ecn::NotEct, T), Verdict::Enqueued);
        }
        assert_eq!(q.len_packets(), 3);
    }

    #[test]
    fn the_limit_drops_as_overflow_before_marking() {
        // K = 2, limit 3: the fourth arrival finds 3 = limit.
        let mut h = Harness::new();
        let mut q = build(r#"{"threshold": 2, "limit": 3, "nodrop": true}"#).unwrap();
        h.offer(&mut q, 0, 1500, Ecn::Ect0, T);
        h.offer(&mut q, 0, 1500, Ecn::Ect0, T);
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::Ect0, T),
            Verdict::Marked(Reason::Forced)
        );
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::Ect0, T),
            Verdict::Dropped(Reason::Overflow)
        );
        assert_eq!(
            h.offer(&mut q, 0, 1500, Ecn::NotEct, T),
            Verdict::Dropped(Reason::Overflow)
        );
    }

    #[test]
    fn a_byte_threshold_counts_the_bytes_waiting() {
        // K = 3000 bytes: 1500 + 1000 = 2500 < 3000, unmarked; + 500 = 3000 ≥ K, marked.
        let mut h = Harness::new();
        let mut q = build(r#"{"threshold_bytes": 3000, "limit_bytes": 10000}"#).unwrap();
        for size in [1500, 1000, 500] {
            assert_eq!(h.offer(&mut q, 0, size, Ecn::Ect0, T), Verdict::Enqueued);
        }
        assert_eq!(
            h.offer(&mut q, 0, 40, Ecn::Ect0, T),
            Verdict::Marked(Reason::Forced)
        );
        assert_eq!(q.len_bytes(), 3040);
    }

    #[test]
    fn the_limit_defaults_to_the_profiles() {
        // ns2: ns-2's `limit_ 50`, 49 waiting; a threshold of 49 could never mark.
        let s: StepSpec = serde_json::from_str(r#"{"threshold": 49}"#).unwrap();
        assert_eq!(
            error_text(s.build(&ctx(Profile::Ns2))),
            "q.threshold: 49 must be below the limit (49 packets)"
        );
        let q = s.build(&ctx(Profile::Linux)).unwrap();
        assert_eq!(q.fifo.limits().0, Profile::Linux.queue_limit());
    }

    #[test]
    fn bad_settings_name_the_field() {
        let e = |json| error_text(build(json));
        assert_eq!(
            e(r#"{}"#),
            "q.threshold: is required: the marking threshold K in packets (or give \
             threshold_bytes)"
        );
        assert_eq!(
            e(r#"{"threshold": 5, "threshold_bytes": 6000}"#),
            "q.threshold_bytes: give either threshold (packets) or threshold_bytes, not both"
        );
        assert_eq!(
            e(r#"{"threshold": 0}"#),
            "q.threshold: must be at least 1 packet"
        );
        // Sizes of zero bytes are refused by the unit itself.
        let zero = serde_json::from_str::<StepSpec>(r#"{"threshold_bytes": 0}"#).unwrap_err();
        assert!(zero.to_string().contains("invalid size 0"), "{zero}");
        assert_eq!(
            e(r#"{"threshold_bytes": 9000, "limit_bytes": 9000}"#),
            "q.threshold_bytes: 9000 must be below limit_bytes (9000 bytes)"
        );
        assert_eq!(
            e(r#"{"threshold": 5, "limit": 10, "limit_bytes": 9000}"#),
            "q.limit_bytes: give either limit (packets) or limit_bytes, not both"
        );
        assert!(serde_json::from_str::<StepSpec>(r#"{"k": 5}"#).is_err());
    }
}
