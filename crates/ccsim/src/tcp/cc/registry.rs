//! The macro behind the registry of congestion-control algorithms in `mod.rs`.
//!
//! From one line per algorithm, `name => Type(Config)`, it declares the module `name` (the file
//! `name.rs` beside `mod.rs`) and generates:
//! - `CcSpec`, the `cc` of a scenario: one variant per algorithm, named as scenarios name it,
//!   holding its configuration; its JSON Schema, its parsing (a name, or a table with `kind`),
//!   `name()` and `build()`, which calls the configuration's [`CcConfig::build`](super::CcConfig);
//! - `Cc`, every algorithm in one enum, dispatched statically (no trait objects on the path of
//!   every ACK), implementing [`CongestionControl`](super::CongestionControl) by forwarding.

macro_rules! algorithms {
    ($( $(#[$doc:meta])* $name:ident => $Algo:ident($Config:ident), )*) => {
        $( pub mod $name; pub use $name::{$Algo, $Config}; )*

        /// `cc` in a scenario: an algorithm's name, or a table `{ kind = "name", <parameters> }`.
        /// Each algorithm's parameters are its own typed configuration, beside the algorithm,
        /// with defaults documented there. Configurations are boxed, so that a flow's settings
        /// stay small whatever an algorithm's parameters.
        #[derive(Debug, Clone, PartialEq, schemars::JsonSchema)]
        #[schemars(tag = "kind")]
        #[allow(non_camel_case_types)]
        pub enum CcSpec {
            $( $(#[$doc])* $name(Box<$Config>), )*
        }

        impl<'de> serde::Deserialize<'de> for CcSpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let t = $crate::config::de::Tagged::read(
                    d, "congestion-control algorithm", true, &CcSpec::NAMES)?;
                $( if t.kind == stringify!($name) { return t.body().map(CcSpec::$name); } )*
                Err(t.unknown())
            }
        }

        impl CcSpec {
            /// Every algorithm's name, as scenarios spell it, in registry order.
            pub const NAMES: [&'static str; [$(stringify!($name)),*].len()] =
                [$(stringify!($name)),*];

            /// The algorithm's name as scenarios spell it.
            pub fn name(&self) -> &'static str {
                match self {
                    $( CcSpec::$name(_) => stringify!($name), )*
                }
            }

            /// Whether each flow needs an algorithm built for it (one that draws from its own
            /// random stream), rather than a copy of another flow's of the same configuration.
            pub fn per_flow(&self) -> bool {
                match self {
                    $( CcSpec::$name(_) => <$Config as CcConfig>::PER_FLOW, )*
                }
            }

            /// The algorithm, with the defaults of `ctx` for what the configuration leaves
            /// out, or the field and message of an invalid parameter.
            pub fn build(&self, ctx: &BuildContext) -> Result<Cc, ParamError> {
                Ok(match self {
                    $( CcSpec::$name(c) => Cc::$Algo(CcConfig::build(&**c, ctx)?), )*
                })
            }
        }

        /// Every algorithm, dispatched statically.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $( $Algo($Algo), )*
        }

        impl CongestionControl for Cc {
            #[inline]
            fn ssthresh(&self, st: &TcpState) -> f64 {
                match self { $( Cc::$Algo(c) => c.ssthresh(st), )* }
            }
            #[inline]
            fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
                match self { $( Cc::$Algo(c) => c.cong_avoid(st, ack), )* }
            }
            #[inline]
            fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
                match self { $( Cc::$Algo(c) => c.pkts_acked(st, ack), )* }
            }
            fn set_state(&mut self, st: &mut TcpState, new: CaState) {
                match self { $( Cc::$Algo(c) => c.set_state(st, new), )* }
            }
            fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
                match self { $( Cc::$Algo(c) => c.cwnd_event(st, ev), )* }
            }
            fn on_feedback(&mut self, st: &mut TcpState, fb: &Feedback) -> bool {
                match self { $( Cc::$Algo(c) => c.on_feedback(st, fb), )* }
            }
            fn bw_estimate(&self) -> Option<f64> {
                match self { $( Cc::$Algo(c) => c.bw_estimate(), )* }
            }
            fn holding(&self) -> Option<bool> {
                match self { $( Cc::$Algo(c) => c.holding(), )* }
            }
            fn init(&mut self, st: &mut TcpState) {
                match self { $( Cc::$Algo(c) => c.init(st), )* }
            }
            fn cong_control(&mut self, st: &mut TcpState, rs: &RateSample) {
                match self { $( Cc::$Algo(c) => c.cong_control(st, rs), )* }
            }
            fn skb_marked_lost(&mut self, st: &mut TcpState, rs: &RateSample) {
                match self { $( Cc::$Algo(c) => c.skb_marked_lost(st, rs), )* }
            }
            #[inline]
            fn controls_window(&self) -> bool {
                match self { $( Cc::$Algo(c) => c.controls_window(), )* }
            }
            fn wants_router_feedback(&self) -> bool {
                match self { $( Cc::$Algo(c) => c.wants_router_feedback(), )* }
            }
            fn wants_pacing(&self) -> bool {
                match self { $( Cc::$Algo(c) => c.wants_pacing(), )* }
            }
            fn mode(&self) -> Option<f64> {
                match self { $( Cc::$Algo(c) => c.mode(), )* }
            }
            fn min_rtt_estimate(&self) -> Option<f64> {
                match self { $( Cc::$Algo(c) => c.min_rtt_estimate(), )* }
            }
            fn inflight_bounds(&self) -> Option<(f64, f64)> {
                match self { $( Cc::$Algo(c) => c.inflight_bounds(), )* }
            }
            fn pacing_ratios(&self) -> Option<(f64, f64)> {
                match self { $( Cc::$Algo(c) => c.pacing_ratios(), )* }
            }
            fn needs_ecn(&self) -> Option<EcnUse> {
                match self { $( Cc::$Algo(c) => c.needs_ecn(), )* }
            }
            fn ecn_alpha(&self) -> Option<f64> {
                match self { $( Cc::$Algo(c) => c.ecn_alpha(), )* }
            }
        }
    };
}
pub(super) use algorithms;
