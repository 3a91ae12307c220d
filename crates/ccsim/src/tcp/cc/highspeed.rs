//! HighSpeed TCP — RFC 3649 (Floyd 2003). Spec §4.
//!
//! Above `Low_Window` = 38 segments the window grows by a(w) segments per RTT and a loss takes
//! the fraction b(w) of it, with a rising and b falling as w grows, so that the response
//! function is `w ≈ 0.12/p^0.835` instead of Reno's `1.2/√p`. At or below 38, a = 1 and
//! b = 0.5: Reno. Two forms of a and b:
//!
//! - `mode = "table"` — Linux `tcp_highspeed.c` (and ns-3): the 72 rows of RFC 3649 Appendix B.
//!   Row k (1-based) applies for `upper(k − 1) < cwnd ≤ upper(k)`; then a = k and b = md/256.
//!   Beyond the last bound (89 053) the last row stays: a = 72, b = 24/256.
//! - `mode = "formula"` — ns-2 (`windowOption_ 8`): the continuous functions of RFC 3649 §5,
//!   with `Low_P = 1.5/Low_Window²` (ns-2's choice: it makes a(38) exactly 1):
//!
//!   ```text
//!   x    = (ln w − ln Low_Window)/(ln High_Window − ln Low_Window)
//!   b(w) = 0.5 + (High_Decrease − 0.5)·x
//!   p(w) = exp(ln Low_P + x·(ln High_P − ln Low_P))
//!   a(w) = w²·p(w)·2b(w)/(2 − b(w))
//!   ```
//!
//! In congestion avoidance each ACK adds `a(w)/cwnd`, once per ACK whatever it acknowledges:
//! RFC 3649 states it so, Linux ignores `acked` here, and ns-2 counts ACKs (ns-3 counts
//! segments). Delayed ACKs therefore halve the growth, as in Linux. Slow start is the
//! connection's rule; as in Linux and ns-2 an ACK either slow-starts or avoids congestion.
//!
//! A loss sets `ssthresh = max(w·(1 − b), 2)`, w = cwnd capped by the receiver window:
//! - table: b is that of the row chosen at the last congestion-avoidance ACK (Linux's `ca->ai`),
//!   so a loss that ends the first slow start halves the window (row 1);
//! - formula: b(cwnd), except that ns-2 halves on the first decrease of the connection and on a
//!   decrease in slow start, and halves ssthresh on a timeout (`slowdown()`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::param::{self, ParamError};
use super::{
    slow_start, AckSample, BuildContext, CaEvent, CaState, CcConfig, CongestionControl, TcpState,
};
use crate::config::Profile;

/// RFC 3649 Appendix B as Linux `tcp_highspeed.c` holds it (`hstcp_aimd_vals`, spec §4):
/// `(upper window bound of the row, md = floor(256·b(w)))`; row k has a(w) = k.
const AIMD_TABLE: [(u32, u8); 72] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
];

/// Where a(w) and b(w) come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HighSpeedMode {
    /// RFC 3649 Appendix B table (Linux, ns-3).
    Table,
    /// RFC 3649 §5 functions (ns-2 `windowOption_ 8`).
    Formula,
}

/// HighSpeed TCP's parameters. The last five apply to `mode = "formula"` only.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HighSpeedConfig {
    /// "table" or "formula". Default "formula" under the `ns2` profile (ns-2's HSTCP),
    /// "table" otherwise (Linux; the table is RFC 3649 Appendix B).
    pub mode: Option<HighSpeedMode>,
    /// Low_Window, segments: Reno at or below it. Default 38 (RFC 3649; ns-2 `low_window_`).
    pub low_window: Option<f64>,
    /// High_Window, segments. Default 83000 (RFC 3649; ns-2 `high_window_`).
    pub high_window: Option<f64>,
    /// High_P, the loss rate at High_Window. Default 1e-7 (RFC 3649; ns-2 `high_p_`).
    pub high_p: Option<f64>,
    /// High_Decrease, b(High_Window). Default 0.1 (RFC 3649; ns-2 `high_decrease_`).
    pub high_decrease: Option<f64>,
    /// Low_P, the loss rate at Low_Window. Default `1.5/low_window²` = 1.0388e-3 (ns-2's
    /// `hstcp_.low_p`; RFC 3649 rounds Reno's rate at 38 segments to 1e-3).
    pub low_p: Option<f64>,
}

impl CcConfig for HighSpeedConfig {
    type Algorithm = HighSpeed;

    /// The algorithm with `profile`'s defaults, or the field and message of an invalid value.
    fn build(&self, ctx: &BuildContext) -> Result<HighSpeed, ParamError> {
        let profile = ctx.profile;
        let mode = self.mode.unwrap_or(match profile {
            Profile::Ns2 => HighSpeedMode::Formula,
            Profile::Linux | Profile::Rfc => HighSpeedMode::Table,
        });
        let formula = match mode {
            HighSpeedMode::Table => {
                let given = [
                    ("low_window", self.low_window),
                    ("high_window", self.high_window),
                    ("high_p", self.high_p),
                    ("high_decrease", self.high_decrease),
                    ("low_p", self.low_p),
                ];
                if let Some((field, _)) = given.iter().find(|(_, v)| v.is_some()) {
                    return Err((
                        field,
                        "applies only to mode = \"formula\" (the table fixes a(w) and b(w))".into(),
                    ));
                }
                None
            }
            HighSpeedMode::Formula => {
                let low_window =
                    param::at_least("low_window", self.low_window.unwrap_or(38.0), 1.0)?;
                let high_window = self.high_window.unwrap_or(83000.0);
                if !(high_window.is_finite() && high_window > low_window) {
                    return Err((
                        "high_window",
                        format!("{high_window} is not above low_window ({low_window})"),
                    ));
                }
                let low_p = param::fraction(
                    "low_p",
                    self.low_p.unwrap_or(1.5 / (low_window * low_window)),
                )?;
                let high_p = param::fraction("high_p", self.high_p.unwrap_or(1e-7))?;
                if high_p >= low_p {
                    return Err(("high_p", format!("{high_p} is not below low_p ({low_p})")));
                }
                let high_decrease =
                    param::fraction("high_decrease", self.high_decrease.unwrap_or(0.1))?;
                Some(Formula {
                    low_window,
                    high_window,
                    low_p,
                    high_p,
                    high_decrease,
                })
            }
        };
        Ok(HighSpeed {
            formula,
            row: 0,
            first_decrease: true,
        })
    }
}

/// RFC 3649 §5's continuous a(w) and b(w).
#[derive(Clone, Debug, PartialEq)]
struct Formula {
    low_window: f64,
    high_window: f64,
    low_p: f64,
    high_p: f64,
    high_decrease: f64,
}

impl Formula {
    /// Position of w between Low_Window and High_Window on a log scale.
    fn x(&self, w: f64) -> f64 {
        (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
    }

    fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            0.5
        } else {
            0.5 + (self.high_decrease - 0.5) * self.x(w)
        }
    }

    fn p(&self, w: f64) -> f64 {
        (self.low_p.ln() + self.x(w) * (self.high_p.ln() - self.low_p.ln())).exp()
    }

    fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            1.0
        } else {
            let b = self.b(w);
            w * w * self.p(w) * 2.0 * b / (2.0 - b)
        }
    }
}

/// The table row (0-based) for window `w`, moved from `row` as Linux moves `ca->ai`.
fn table_row(mut row: usize, w: f64) -> usize {
    while row < AIMD_TABLE.len() - 1 && w > AIMD_TABLE[row].0 as f64 {
        row += 1;
    }
    while row > 0 && w <= AIMD_TABLE[row - 1].0 as f64 {
        row -= 1;
    }
    row
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    /// None: the table.
    formula: Option<Formula>,
    /// Table row of the last congestion-avoidance ACK (Linux `ca->ai`).
    row: usize,
    /// No decrease yet (ns-2 `first_decrease_`).
    first_decrease: bool,
}

impl HighSpeed {
    /// a(w) at window `w` in the configured form (the table from row 0).
    pub fn a(&self, w: f64) -> f64 {
        match &self.formula {
            Some(f) => f.a(w),
            None => (table_row(0, w) + 1) as f64,
        }
    }

    /// b(w) at window `w` in the configured form (the table from row 0).
    pub fn b(&self, w: f64) -> f64 {
        match &self.formula {
            Some(f) => f.b(w),
            None => AIMD_TABLE[table_row(0, w)].1 as f64 / 256.0,
        }
    }
}

impl CongestionControl for HighSpeed {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        let w = st.cwnd.min(st.rwnd);
        let b = match &self.formula {
            None => AIMD_TABLE[self.row].1 as f64 / 256.0,
            Some(_) if self.first_decrease || st.in_slow_start() => 0.5,
            Some(f) => f.b(st.cwnd),
        };
        (w * (1.0 - b)).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        if st.in_slow_start() {
            slow_start(st, ack.acked);
            return;
        }
        let w = st.cwnd;
        let a = match &self.formula {
            Some(f) => f.a(w),
            None => {
                self.row = table_row(self.row, w);
                (self.row + 1) as f64
            }
        };
        st.cwnd += a / w; // per ACK, RFC 3649 §5: cwnd = cwnd + a(w)/cwnd
    }

    fn set_state(&mut self, _st: &mut TcpState, new: CaState) {
        if new != CaState::Open {
            self.first_decrease = false;
        }
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        // ns-2 halves ssthresh on a timeout (`last_cwnd_action_ = TIMEOUT` before `slowdown`).
        // The sender has just set it from `ssthresh` if this timeout starts a Loss episode;
        // repeated timeouts (already in Loss) keep it, as RFC 5681 says.
        if ev == CaEvent::Timeout && self.formula.is_some() && st.ca_state != CaState::Loss {
            st.ssthresh = (st.cwnd.min(st.rwnd) / 2.0).max(2.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_ack, test_ctx, test_state};
    use super::*;

    fn table() -> HighSpeed {
        HighSpeedConfig::default()
            .build(&test_ctx(Profile::Linux))
            .unwrap()
    }

    fn formula() -> HighSpeed {
        HighSpeedConfig::default()
            .build(&test_ctx(Profile::Ns2))
            .unwrap()
    }

    #[test]
    fn table_rows_at_their_bounds() {
        let h = table();
        // (w, a, md): row k covers (upper(k−1), upper(k)], a = k, b = md/256 (spec §4 table)
        for (w, a, md) in [
            (1.0, 1.0, 128.0),
            (38.0, 1.0, 128.0), // Low_Window: Reno, a = 1, b = 0.5
            (38.5, 2.0, 112.0),
            (118.0, 2.0, 112.0),
            (1000.0, 8.0, 83.0),   // 851 < 1000 ≤ 1058: row 8
            (83000.0, 71.0, 25.0), // 79517 < 83000 ≤ 84035: row 71
            (84035.0, 71.0, 25.0),
            (84036.0, 72.0, 24.0),
            (89053.0, 72.0, 24.0),
            (1e6, 72.0, 24.0), // past the last bound the last row stays
        ] {
            assert_eq!(h.a(w), a, "a({w})");
            assert_eq!(h.b(w), md / 256.0, "b({w})");
        }
        assert_eq!(h.b(38.0), 0.5);
    }

    #[test]
    fn formula_values_by_hand() {
        let h = formula();
        // w ≤ 38: Reno. Low_P = 1.5/38² also makes the general a(38) = 38²·(1.5/38²)·1/1.5 = 1.
        assert_eq!(h.a(38.0), 1.0);
        assert_eq!(h.b(38.0), 0.5);
        // w = 1000: x = (ln 1000 − ln 38)/(ln 83000 − ln 38) = 3.270169/7.689010 = 0.425304
        // b = 0.5 − 0.4·0.425304 = 0.329878
        // ln p = ln(1.5/38²) + x·(ln 1e-7 − ln(1.5/38²)) = −6.869707 + 0.425304·(−9.248389)
        //      = −10.803086, p = 2.03366e-5
        // a = 1000²·2.03366e-5·2·0.329878/(2 − 0.329878) = 20.3366·0.395035 = 8.0337
        assert!((h.b(1000.0) - 0.329878).abs() < 1e-6, "{}", h.b(1000.0));
        assert!((h.a(1000.0) - 8.0337).abs() < 1e-3, "{}", h.a(1000.0));
        // w = High_Window: b = 0.1, p = 1e-7, a = 83000²·1e-7·0.2/1.9 = 688.9·0.2/1.9 = 72.5158
        assert!((h.b(83000.0) - 0.1).abs() < 1e-12);
        assert!((h.a(83000.0) - 72.5158).abs() < 1e-3, "{}", h.a(83000.0));
    }

    #[test]
    fn avoidance_adds_a_over_cwnd_once_per_ack() {
        let mut h = table();
        // cwnd 1000 in avoidance: a = 8, and an ACK for 2 segments still adds 8/1000 only.
        let mut st = test_state(1000.0, 500.0);
        h.cong_avoid(&mut st, &test_ack(2.0, None));
        assert!((st.cwnd - 1000.008).abs() < 1e-9, "{}", st.cwnd);
        assert_eq!(h.row, 7);
        // Slow start: the connection's rule, no carry into avoidance.
        let mut st = test_state(99.0, 100.0);
        h.cong_avoid(&mut st, &test_ack(3.0, None));
        assert_eq!(st.cwnd, 100.0);
    }

    #[test]
    fn table_decrease_uses_the_row_of_the_last_avoidance_ack() {
        let mut h = table();
        // Before any avoidance ACK (e.g. the loss that ends the first slow start): row 1, halve.
        assert_eq!(h.ssthresh(&test_state(1000.0, f64::INFINITY)), 500.0);
        let mut st = test_state(1000.0, 500.0);
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        // Row 8: md = 83, ssthresh = 1000.008·(1 − 83/256)
        let ss = h.ssthresh(&st);
        assert!((ss - 1000.008 * (1.0 - 83.0 / 256.0)).abs() < 1e-9, "{ss}");
        // Linux's row moves down again as the window shrinks (hysteresis-free search).
        let mut st = test_state(100.0, 50.0);
        h.cong_avoid(&mut st, &test_ack(1.0, None));
        assert_eq!(h.row, 1); // 38 < 100 ≤ 118
        assert_eq!(h.ssthresh(&test_state(3.0, 2.0)), 2.0); // floor of 2 segments
    }

    #[test]
    fn formula_halves_first_and_in_slow_start_then_uses_b() {
        let mut h = formula();
        // First decrease of the connection: halve (ns-2 `first_decrease_`).
        let mut st = test_state(1000.0, 900.0);
        assert_eq!(h.ssthresh(&st), 500.0);
        h.set_state(&mut st, CaState::Recovery);
        // Then b(1000) = 0.329878: ssthresh = 1000·(1 − 0.329878) = 670.122
        assert!((h.ssthresh(&st) - 670.122).abs() < 1e-3);
        // A decrease in slow start (cwnd < ssthresh) halves.
        assert_eq!(h.ssthresh(&test_state(1000.0, 2000.0)), 500.0);
        // A timeout that starts a Loss episode halves ssthresh; a repeated one leaves it.
        let mut st = test_state(1000.0, 670.0);
        h.cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(st.ssthresh, 500.0);
        let mut st = test_state(1.0, 670.0);
        st.ca_state = CaState::Loss;
        h.cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(st.ssthresh, 670.0);
        // The table form leaves the sender's ssthresh alone on a timeout.
        let mut st = test_state(1000.0, 670.0);
        table().cwnd_event(&mut st, CaEvent::Timeout);
        assert_eq!(st.ssthresh, 670.0);
    }

    #[test]
    fn formula_parameters_are_checked_and_rejected_in_table_mode() {
        let err = |c: HighSpeedConfig, p| c.build(&test_ctx(p)).unwrap_err().0;
        assert_eq!(
            err(
                HighSpeedConfig {
                    high_p: Some(1e-6),
                    ..Default::default()
                },
                Profile::Linux
            ),
            "high_p"
        );
        let f = || HighSpeedConfig {
            mode: Some(HighSpeedMode::Formula),
            ..Default::default()
        };
        assert!(f().build(&test_ctx(Profile::Linux)).is_ok());
        assert_eq!(
            err(
                HighSpeedConfig {
                    high_window: Some(30.0),
                    ..f()
                },
                Profile::Linux
            ),
            "high_window"
        );
        assert_eq!(
            err(
                HighSpeedConfig {
                    high_p: Some(0.01),
                    ..f()
                },
                Profile::Linux
            ),
            "high_p"
        );
        assert_eq!(
            err(
                HighSpeedConfig {
                    high_decrease: Some(1.0),
                    ..f()
                },
                Profile::Linux
            ),
            "high_decrease"
        );
    }
}
