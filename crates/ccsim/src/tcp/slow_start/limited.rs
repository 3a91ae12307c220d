//! Limited Slow-Start — RFC 3742 §2 (Floyd 2004), in segments.
//!
//! At or below `max_ssthresh` slow start is unchanged (+1 segment per segment acknowledged).
//! Above it each segment acknowledged adds `1/K` with `K = floor(cwnd / (0.5·max_ssthresh))`,
//! so the window grows by at most `max_ssthresh/2` segments per round trip. RFC 3742 adds
//! `int(MSS/K)` bytes; in a segment-based window the exact `1/K` is used (spec §2 pitfalls).

/// Segments added for `acked` segments (or ACKs) at window `cwnd`.
pub fn increment(cwnd: f64, acked: f64, max_ssthresh: f64) -> f64 {
    if cwnd <= max_ssthresh {
        acked
    } else {
        // K ≥ 2 here, since cwnd > max_ssthresh = 2 · (0.5·max_ssthresh).
        let k = (cwnd / (0.5 * max_ssthresh)).floor();
        acked / k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3742_increments_by_hand() {
        // cwnd ≤ max_ssthresh: standard slow start
        assert_eq!(increment(100.0, 1.0, 100.0), 1.0);
        // cwnd 150: K = floor(150/50) = 3 → +1/3
        assert!((increment(150.0, 1.0, 100.0) - 1.0 / 3.0).abs() < 1e-12);
        // cwnd 250: K = floor(250/50) = 5 → +1/5
        assert!((increment(250.0, 1.0, 100.0) - 0.2).abs() < 1e-12);
        // cwnd 101: K = floor(101/50) = 2 → +1/2 (the jump at 1.0 × max_ssthresh)
        assert_eq!(increment(101.0, 1.0, 100.0), 0.5);
    }

    #[test]
    fn growth_per_round_trip_is_at_most_half_max_ssthresh() {
        // One RTT acknowledges about cwnd segments, adding cwnd/K. Where cwnd is a multiple of
        // 50 = max_ssthresh/2, K = cwnd/50 exactly and the RTT adds exactly 50 segments.
        for cwnd in [150.0, 200.0, 1000.0, 5000.0] {
            let per_rtt = cwnd * increment(cwnd, 1.0, 100.0);
            assert!((per_rtt - 50.0).abs() < 1e-9, "{cwnd}: {per_rtt}");
        }
    }
}
