//! The XCP router's configuration in a scenario.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Others, Xcp, XcpParams, ALPHA, BETA, GAMMA};
use crate::config::units::Duration;
use crate::config::{ParamError, Profile};
use crate::queue::param::{at_least_one, in_range, positive_time};
use crate::queue::red::RedSpec;
use crate::queue::{QueueConfig, QueueContext};

/// The XCP router (Katabi, Handley & Rohrs 2002; `queue/xcp/`): a FIFO whose departing XCP
/// packets carry the efficiency and fairness controllers' feedback. Flows take part with
/// `cc = "xcp"`; other traffic shares the FIFO and counts as input, unless `virtual_queues`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XcpSpec {
    /// Packets waiting before an arrival is dropped. Default: the profile's queue limit.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Efficiency gain α, in (0, π/(4√2)) for stability. Default 0.4.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Queue gain β. Default 0.226 (α²·√2).
    #[serde(default)]
    pub beta: Option<f64>,
    /// Share of the input traffic shuffled per interval, in [0, 1]. Default 0.1.
    #[serde(default)]
    pub gamma: Option<f64>,
    /// Control interval until a packet carries an RTT. Default 50 ms.
    #[serde(default)]
    pub initial_interval: Option<Duration>,
    /// Shortest control and queue-estimation interval. Default 1 ms.
    #[serde(default)]
    pub min_interval: Option<Duration>,
    /// The persistent queue's window as a share of the estimated propagation delay, in (0, 1]:
    /// 1 as the paper says, 0.5 as the ns-2 codes do. Default 1.
    #[serde(default)]
    pub queue_window: Option<f64>,
    /// Sheela & Raja's window adjustment: set the congestion bit on departing XCP packets when
    /// the input rate reaches capacity or this many packets wait (`Q_th`). Default: off.
    #[serde(default)]
    pub congestion_threshold: Option<u32>,
    /// ns-2.35's `Queue/XCP`: XCP, other TCP and other traffic in three queues (`limit`
    /// packets; the last two RED with ns-2's defaults, in bytes: `limit`·500) served a packet
    /// at a time in turn, the controllers seeing only the XCP queue. Default false: one FIFO,
    /// as in the paper.
    #[serde(default)]
    pub virtual_queues: Option<bool>,
    /// Share of the capacity the controllers allocate, in (0, 1]. Default 1; ns-2's
    /// `tcp_xcp_on_ 1` (for XCP sharing a link with TCP) is 0.5.
    #[serde(default)]
    pub xcp_share: Option<f64>,
    /// Start the control and queue timers at random offsets (normal, mean one period,
    /// deviation a fifth of it, at least 4 ms), as ns-2 does to desynchronise routers.
    /// Default false: exactly one period.
    #[serde(default)]
    pub random_timers: Option<bool>,
}

impl QueueConfig for XcpSpec {
    type Discipline = Xcp;

    fn build(&self, ctx: &QueueContext) -> Result<Xcp, ParamError> {
        let s = self;
        let share = in_range(s.xcp_share.unwrap_or(1.0), true, 0.0, 1.0, "xcp_share")?;
        let capacity = share * ctx.rate.bps() as f64 / 8.0;
        let mut p = XcpParams::new(capacity, ctx.profile.queue_limit());
        p.limit = at_least_one(s.limit, p.limit, "limit", "packet")?;
        let stable = std::f64::consts::PI / (4.0 * std::f64::consts::SQRT_2);
        p.alpha = s.alpha.unwrap_or(ALPHA);
        if !(p.alpha > 0.0 && p.alpha < stable) {
            return Err(("alpha", format!("{} is outside (0, {stable:.4})", p.alpha)));
        }
        p.beta = s.beta.unwrap_or(BETA);
        if !(p.beta.is_finite() && p.beta >= 0.0) {
            return Err(("beta", format!("{} must be a non-negative number", p.beta)));
        }
        p.gamma = in_range(s.gamma.unwrap_or(GAMMA), false, 0.0, 1.0, "gamma")?;
        p.initial_interval =
            positive_time(s.initial_interval, p.initial_interval, "initial_interval")?;
        p.min_interval = positive_time(s.min_interval, p.min_interval, "min_interval")?;
        p.queue_window = in_range(
            s.queue_window.unwrap_or(1.0),
            true,
            0.0,
            1.0,
            "queue_window",
        )?;
        p.congestion_threshold = s.congestion_threshold;
        p.random_timers = s.random_timers.unwrap_or(false);
        let limit = p.limit;
        let xcp = Xcp::new(p);
        if !s.virtual_queues.unwrap_or(false) {
            return Ok(xcp);
        }
        // ns-2's `Queue/XCP` makes its TCP and other queues `Queue/RED` with the XCP queue's
        // limit and ns-2's defaults.
        let red = RedSpec {
            limit: Some(limit),
            ..RedSpec::default()
        };
        let ns2 = QueueContext {
            profile: Profile::Ns2,
            ..*ctx
        };
        let others = Others {
            tcp: red.build(&ns2)?,
            other: red.build(&ns2)?,
        };
        Ok(xcp.with_virtual_queues(others))
    }
}
