//! Loss models, one per link direction, applied as a packet leaves the transmitter.

use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    /// Independent loss with probability `p`.
    Bernoulli {
        p: f64,
    },
    /// Two-state Markov chain stepped once per packet (Gilbert 1960, Elliott 1963).
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
    /// Everything is lost inside the `[start, stop)` intervals (sorted, disjoint not required).
    Outage {
        intervals: Vec<(SimTime, SimTime)>,
    },
    /// The packets with these 0-based indices (sorted) are lost.
    List {
        packets: Vec<u64>,
        next: usize,
        seen: u64,
    },
}

impl LossModel {
    /// Whether the packet now leaving the transmitter is lost.
    pub fn lose(&mut self, now: SimTime, rng: &mut Rng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.bernoulli(*p),
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
            } => {
                // Transition first, then draw the loss in the new state.
                *bad = if *bad {
                    !rng.bernoulli(*p_bg)
                } else {
                    rng.bernoulli(*p_gb)
                };
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
            LossModel::Outage { intervals } => intervals.iter().any(|&(a, b)| now >= a && now < b),
            LossModel::List {
                packets,
                next,
                seen,
            } => {
                let idx = *seen;
                *seen += 1;
                while *next < packets.len() && packets[*next] < idx {
                    *next += 1;
                }
                if *next < packets.len() && packets[*next] == idx {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_drops_exactly_the_listed_indices() {
        let mut r = Rng::derive(0, "l");
        let mut m = LossModel::List {
            packets: vec![1, 3, 3, 7],
            next: 0,
            seen: 0,
        };
        let pattern: Vec<bool> = (0..9).map(|_| m.lose(SimTime::ZERO, &mut r)).collect();
        assert_eq!(
            pattern,
            vec![false, true, false, true, false, false, false, true, false]
        );
    }

    #[test]
    fn outage_covers_half_open_intervals() {
        let mut m = LossModel::Outage {
            intervals: vec![(SimTime::from_secs(1), SimTime::from_secs(2))],
        };
        let mut r = Rng::derive(0, "o");
        assert!(!m.lose(SimTime::from_millis(999), &mut r));
        assert!(m.lose(SimTime::from_secs(1), &mut r));
        assert!(!m.lose(SimTime::from_secs(2), &mut r));
    }

    #[test]
    fn gilbert_elliott_stationary_loss_rate() {
        // Stationary P(bad) = p_gb / (p_gb + p_bg) = 0.01 / 0.11; loss_bad = 1, loss_good = 0.
        let mut m = LossModel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
            bad: false,
        };
        let mut r = Rng::derive(3, "ge");
        let n = 400_000;
        let lost = (0..n).filter(|_| m.lose(SimTime::ZERO, &mut r)).count() as f64 / n as f64;
        assert!((lost - 0.01 / 0.11).abs() < 0.006, "{lost}");
    }
}
