//! The macro behind the registry of queue disciplines in `mod.rs`.
//!
//! From one line per discipline, `name => Type(Config)`, it declares the module `name` (the
//! file `name.rs`, or the folder `name/`, beside `mod.rs`) and generates:
//! - `QueueSpec`, the `queue` of a link in a scenario: one variant per discipline, named as
//!   scenarios name it, holding its configuration; its JSON Schema, its parsing (a table with
//!   `kind`), `name()` and `build()`, which calls the configuration's
//!   [`QueueConfig::build`](super::QueueConfig);
//! - `Queue`, every discipline in one enum (plus `Traced`, any of them with its packets
//!   traced), dispatched statically, implementing
//!   [`QueueDiscipline`](super::QueueDiscipline) by forwarding.

macro_rules! disciplines {
    ($( $(#[$doc:meta])* $name:ident => $Q:ident($Config:ident), )*) => {
        $( pub mod $name; pub use $name::{$Q, $Config}; )*

        /// A link direction's queue discipline in a scenario: a table `{ kind = "name",
        /// <parameters> }`. Each discipline's parameters are its own typed configuration,
        /// beside the discipline, with defaults documented there.
        #[derive(Debug, Clone, schemars::JsonSchema)]
        #[schemars(tag = "kind")]
        #[allow(non_camel_case_types)]
        pub enum QueueSpec {
            $( $(#[$doc])* $name(Box<$Config>), )*
        }

        impl<'de> serde::Deserialize<'de> for QueueSpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let t = $crate::config::de::Tagged::read(d, "queue kind", false, &QueueSpec::NAMES)?;
                $( if t.kind == stringify!($name) { return t.body().map(QueueSpec::$name); } )*
                Err(t.unknown())
            }
        }

        impl QueueSpec {
            /// Every discipline's name, as scenarios spell it, in registry order.
            pub const NAMES: [&'static str; [$(stringify!($name)),*].len()] =
                [$(stringify!($name)),*];

            /// The discipline's name as scenarios spell it.
            pub fn name(&self) -> &'static str {
                match self {
                    $( QueueSpec::$name(_) => stringify!($name), )*
                }
            }

            /// The discipline for the link direction described by `ctx`, with its defaults for
            /// what the configuration leaves out, or the field and message of an invalid
            /// parameter.
            pub fn build(&self, ctx: &QueueContext) -> Result<Queue, ParamError> {
                Ok(match self {
                    $( QueueSpec::$name(c) => Queue::$Q(Box::new(QueueConfig::build(&**c, ctx)?)), )*
                })
            }
        }

        /// Every discipline, dispatched statically.
        pub enum Queue {
            $( $Q(Box<$Q>), )*
            /// Any of the others with its packets traced (`traced.rs`).
            Traced(Box<Traced>),
        }

        impl QueueDiscipline for Queue {
            // Always: with a traced discipline's pointer to the trait among its uses
            // (`traced.rs`), left to itself the compiler stopped inlining it into the link's
            // `take`.
            #[inline(always)]
            fn enqueue(&mut self, pkt: PktId, ctx: &mut QueueCtx) -> Verdict {
                match self { $( Queue::$Q(q) => q.enqueue(pkt, ctx), )* Queue::Traced(q) => q.enqueue(pkt, ctx) }
            }
            #[inline]
            fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PktId> {
                match self { $( Queue::$Q(q) => q.dequeue(ctx), )* Queue::Traced(q) => q.dequeue(ctx) }
            }
            fn len_packets(&self) -> u32 {
                match self { $( Queue::$Q(q) => q.len_packets(), )* Queue::Traced(q) => q.len_packets() }
            }
            fn len_bytes(&self) -> u64 {
                match self { $( Queue::$Q(q) => q.len_bytes(), )* Queue::Traced(q) => q.len_bytes() }
            }
            fn avg_queue(&self) -> Option<f64> {
                match self { $( Queue::$Q(q) => q.avg_queue(), )* Queue::Traced(q) => q.avg_queue() }
            }
            fn acns_written(&self) -> acns::Written {
                match self { $( Queue::$Q(q) => q.acns_written(), )* Queue::Traced(q) => q.acns_written() }
            }
            #[inline]
            fn upcoming(&self) -> Option<PktId> {
                match self { $( Queue::$Q(q) => q.upcoming(), )* Queue::Traced(q) => q.upcoming() }
            }
        }
    };
}
pub(super) use disciplines;
