//! Which forwarding route a run takes.

use schemars::JsonSchema;
use serde::Deserialize;

/// How packets move through the network. Both routes give the same results, to the last
/// counter and series point; `make test` checks this on every shipped and benchmark scenario.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The fast route: packets skip the events that cannot change a result (express queues,
    /// cut-through between links, early hand-over to endpoints; `docs/architecture.md`).
    #[default]
    Fast,
    /// The reference route: every packet moves by its own events through every queue, link and
    /// node, as in ns-2 and ns-3. Slower; a check on the fast route, and the one to read first.
    Reference,
}
