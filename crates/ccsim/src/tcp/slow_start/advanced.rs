//! Advanced Slow Start — Petrov & Janevski, "Novel Slow Start Algorithm" (2013), §3,
//! algorithms 2–4, with the decrease factors of its §5 as `docs/design.md` fixes
//! them. Algorithm 1 of the paper is classic slow start (with Limited Slow-Start).
//!
//! | algorithm | +3 (÷4) | +2 (÷3) | +1 (÷2)   | +0.5 (÷2) | from max_ssthresh (100) |
//! |-----------|---------|---------|-----------|-----------|-------------------------|
//! | 2         | < 25    | [25,50) | [50,75)   | [75,100)  | RFC 3742, ÷2            |
//! | 3         | —       | < 25    | [25,100)  | —         | RFC 3742, ÷2            |
//! | 4         | —       | < 50    | [50,100)  | —         | RFC 3742, ÷2            |
//!
//! Increments are per ACK (the paper's ns-2 counts ACKs); under byte counting they apply per
//! segment acknowledged. The range is picked by the window before the increment.

/// Segments added per ACK at window `cwnd` (below max_ssthresh).
pub fn increment(algorithm: u8, cwnd: f64) -> f64 {
    match algorithm {
        2 if cwnd < 25.0 => 3.0,
        2 if cwnd < 50.0 => 2.0,
        2 if cwnd < 75.0 => 1.0,
        2 => 0.5,
        3 if cwnd < 25.0 => 2.0,
        4 if cwnd < 50.0 => 2.0,
        _ => 1.0,
    }
}

/// The divisor of the window on a loss: 4, 3 or 2 where the increment is +3, +2, or +1/+0.5.
pub fn decrease_divisor(algorithm: u8, cwnd: f64) -> f64 {
    match increment(algorithm, cwnd) {
        3.0 => 4.0,
        2.0 => 3.0,
        _ => 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_2_at_every_boundary() {
        // Paper §3, algorithm 2: +3 below 25, +2 in [25,50), +1 in [50,75), +0.5 in [75,100)
        let cases = [
            (1.0, 3.0, 4.0),
            (24.9, 3.0, 4.0),
            (25.0, 2.0, 3.0),
            (49.9, 2.0, 3.0),
            (50.0, 1.0, 2.0),
            (74.9, 1.0, 2.0),
            (75.0, 0.5, 2.0),
            (99.9, 0.5, 2.0),
        ];
        for (w, inc, div) in cases {
            assert_eq!(increment(2, w), inc, "increment at {w}");
            assert_eq!(decrease_divisor(2, w), div, "divisor at {w}");
        }
    }

    #[test]
    fn algorithms_3_and_4_at_every_boundary() {
        for (w, inc, div) in [
            (1.0, 2.0, 3.0),
            (24.9, 2.0, 3.0),
            (25.0, 1.0, 2.0),
            (99.0, 1.0, 2.0),
        ] {
            assert_eq!(increment(3, w), inc, "alg 3 increment at {w}");
            assert_eq!(decrease_divisor(3, w), div, "alg 3 divisor at {w}");
        }
        for (w, inc, div) in [
            (1.0, 2.0, 3.0),
            (49.9, 2.0, 3.0),
            (50.0, 1.0, 2.0),
            (99.0, 1.0, 2.0),
        ] {
            assert_eq!(increment(4, w), inc, "alg 4 increment at {w}");
            assert_eq!(decrease_divisor(4, w), div, "alg 4 divisor at {w}");
        }
    }

    #[test]
    fn a_loss_at_window_40_under_algorithm_2_leaves_13_and_a_third() {
        // 40 is in [25,50): increment +2, so the window is divided by 3.
        assert!((40.0 / decrease_divisor(2, 40.0) - 40.0 / 3.0).abs() < 1e-12);
    }
}
