//! Algorithms written outside the core — in Python, as subclasses of
//! `ccsim.CongestionControl` — behind the same trait as the Rust ones, so that slow-start
//! rules, ECN, ACNS and loss recovery work around them unchanged.
//!
//! The core stays free of Python: the embedding program hands the scenario builder a list of
//! factories (`scenario::load_with`), and a `cc = { kind = "external", slot = k }` that the
//! Python front end writes in place of a Python algorithm builds, for each flow, what factory
//! `k` returns.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    AckSample, BuildContext, CaEvent, CaState, CcConfig, CongestionControl, EcnUse, Feedback,
    ParamError, RateSample, TcpState,
};

/// An algorithm supplied by the embedding program.
pub trait ExternalAlgorithm: CongestionControl + Send + Sync + fmt::Debug {
    /// A new instance made as this one was. The scenario builder shares one built algorithm
    /// between the flows of one configuration by cloning it; an external one is made afresh.
    fn fresh(&self) -> Box<dyn ExternalAlgorithm>;
}

/// Makes the algorithm of one flow (named by the argument), or says why it cannot.
pub type ExternalFactory = dyn Fn(&str) -> Result<Box<dyn ExternalAlgorithm>, String> + Send + Sync;

/// `cc = { kind = "external", slot = k }`: the algorithm that the embedding program's factory
/// number `slot` makes. The Python front end writes it for a Python algorithm given in code.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExternalConfig {
    /// Which of the supplied factories.
    pub slot: u32,
}

impl CcConfig for ExternalConfig {
    type Algorithm = External;

    fn build(&self, ctx: &BuildContext) -> Result<External, ParamError> {
        let Some(factory) = ctx.external.get(self.slot as usize) else {
            return Err((
                "slot",
                format!(
                    "no algorithm {} was supplied ({} were): an algorithm written in Python is \
                     given from Python code (`cc=MyCC()` or `ccsim.register_cc`), not from a file",
                    self.slot,
                    ctx.external.len()
                ),
            ));
        };
        factory(ctx.flow).map(External).map_err(|m| ("slot", m))
    }
}

/// An external algorithm in the dispatched `Cc`.
#[derive(Debug)]
pub struct External(Box<dyn ExternalAlgorithm>);

impl Clone for External {
    fn clone(&self) -> Self {
        External(self.0.fresh())
    }
}

impl CongestionControl for External {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        self.0.ssthresh(st)
    }
    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        self.0.cong_avoid(st, ack)
    }
    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        self.0.pkts_acked(st, ack)
    }
    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        self.0.set_state(st, new)
    }
    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        self.0.cwnd_event(st, ev)
    }
    fn on_feedback(&mut self, st: &mut TcpState, fb: &Feedback) -> bool {
        self.0.on_feedback(st, fb)
    }
    fn bw_estimate(&self) -> Option<f64> {
        self.0.bw_estimate()
    }
    fn holding(&self) -> Option<bool> {
        self.0.holding()
    }
    fn wants_router_feedback(&self) -> bool {
        self.0.wants_router_feedback()
    }
    fn init(&mut self, st: &mut TcpState) {
        self.0.init(st)
    }
    fn cong_control(&mut self, st: &mut TcpState, rs: &RateSample) {
        self.0.cong_control(st, rs)
    }
    fn controls_window(&self) -> bool {
        self.0.controls_window()
    }
    fn wants_pacing(&self) -> bool {
        self.0.wants_pacing()
    }
    fn mode(&self) -> Option<f64> {
        self.0.mode()
    }
    fn min_rtt_estimate(&self) -> Option<f64> {
        self.0.min_rtt_estimate()
    }
    fn skb_marked_lost(&mut self, st: &mut TcpState, rs: &RateSample) {
        self.0.skb_marked_lost(st, rs)
    }
    fn inflight_bounds(&self) -> Option<(f64, f64)> {
        self.0.inflight_bounds()
    }
    fn pacing_ratios(&self) -> Option<(f64, f64)> {
        self.0.pacing_ratios()
    }
    fn needs_ecn(&self) -> Option<EcnUse> {
        self.0.needs_ecn()
    }
    fn ecn_alpha(&self) -> Option<f64> {
        self.0.ecn_alpha()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, Reno};
    use super::*;
    use crate::config::Profile;

    /// Reno through the external interface, counting the instances made.
    #[derive(Debug)]
    struct Counted(Reno, std::sync::Arc<std::sync::atomic::AtomicU32>);

    impl CongestionControl for Counted {
        fn ssthresh(&self, st: &TcpState) -> f64 {
            self.0.ssthresh(st)
        }
        fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
            self.0.cong_avoid(st, ack)
        }
    }

    impl ExternalAlgorithm for Counted {
        fn fresh(&self) -> Box<dyn ExternalAlgorithm> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::new(Counted(Reno, self.1.clone()))
        }
    }

    /// An algorithm that sets its window from rate samples and asks for pacing, with a mode
    /// and a minimum-RTT estimate: each hook leaves its mark.
    #[derive(Debug, Default)]
    struct Own {
        inits: u32,
    }

    impl CongestionControl for Own {
        fn ssthresh(&self, st: &TcpState) -> f64 {
            st.ssthresh
        }
        fn cong_avoid(&mut self, _st: &mut TcpState, _ack: &AckSample) {}
        fn init(&mut self, st: &mut TcpState) {
            self.inits += 1;
            st.pacing_rate = 1e6;
        }
        fn cong_control(&mut self, st: &mut TcpState, rs: &RateSample) {
            st.cwnd = rs.delivered as f64 + self.inits as f64;
        }
        fn controls_window(&self) -> bool {
            true
        }
        fn wants_pacing(&self) -> bool {
            true
        }
        fn mode(&self) -> Option<f64> {
            Some(2.0)
        }
        fn min_rtt_estimate(&self) -> Option<f64> {
            Some(0.04)
        }
    }

    impl ExternalAlgorithm for Own {
        fn fresh(&self) -> Box<dyn ExternalAlgorithm> {
            Box::new(Own::default())
        }
    }

    #[test]
    fn forwards_the_rate_and_pacing_hooks() {
        let mut a = External(Box::new(Own::default()));
        assert!(a.controls_window() && a.wants_pacing());
        assert_eq!((a.mode(), a.min_rtt_estimate()), (Some(2.0), Some(0.04)));
        let mut st = super::super::test_state(10.0, 100.0);
        a.init(&mut st);
        assert_eq!(st.pacing_rate, 1e6);
        let rs = RateSample {
            delivered: 7,
            ..RateSample::default()
        };
        a.cong_control(&mut st, &rs);
        assert_eq!(st.cwnd, 8.0);
    }

    #[test]
    fn builds_from_its_slot_clones_afresh_and_names_a_missing_slot() {
        let made = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let m = made.clone();
        let factories: Vec<Box<ExternalFactory>> = vec![Box::new(move |flow: &str| {
            assert_eq!(flow, "f");
            m.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(Box::new(Counted(Reno, m.clone())) as Box<dyn ExternalAlgorithm>)
        })];
        let ctx = BuildContext {
            external: &factories,
            ..test_ctx(Profile::Linux)
        };
        let mut a = ExternalConfig { slot: 0 }.build(&ctx).unwrap();
        let _b = a.clone();
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 2);
        let mut st = super::super::test_state(10.0, 100.0);
        a.cong_avoid(&mut st, &test_ack(2.0, None));
        assert_eq!(st.cwnd, 12.0);
        let err = ExternalConfig { slot: 1 }.build(&ctx).unwrap_err();
        assert_eq!(err.0, "slot");
        assert!(
            err.1.contains("no algorithm 1 was supplied (1 were)"),
            "{}",
            err.1
        );
    }
}
