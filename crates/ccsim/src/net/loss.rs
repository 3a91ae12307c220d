//! Loss models, one per link direction, applied as a packet leaves the transmitter.

use std::collections::VecDeque;

use crate::packet::PktId;
use crate::rng::Rng;
use crate::time::SimTime;

/// A wire that can lose packets: its loss model and random stream, the losses counted so far,
/// and (express path, `net/express/mod.rs`) the packets it will lose, each with the time it leaves the
/// transmitter, in order. A link direction boxes it: most wires lose nothing, and keeping it
/// inline made every direction 112 bytes larger (docs/performance.md, memory).
pub struct WireLoss {
    model: LossModel,
    rng: Rng,
    /// Packets lost on the wire so far (counted as they leave the transmitter).
    pub drops: u64,
    pub lost: VecDeque<(SimTime, PktId)>,
}

impl WireLoss {
    /// The wire's loss, unless the model loses nothing.
    pub fn of(model: LossModel, rng: Rng) -> Option<WireLoss> {
        (!matches!(model, LossModel::None)).then(|| WireLoss {
            model,
            rng,
            drops: 0,
            lost: VecDeque::new(),
        })
    }

    /// Whether the packet leaving the transmitter at `at` is lost.
    #[inline]
    pub fn lose(&mut self, at: SimTime) -> bool {
        self.model.lose(at, &mut self.rng)
    }

    /// Counts the packets the express line lost that have left the transmitter by `now`, and
    /// hands them to `drops`.
    pub fn count_until(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        while let Some(&(t, p)) = self.lost.front() {
            if t > now {
                break;
            }
            self.lost.pop_front();
            self.drops += 1;
            drops.push(p);
        }
    }
}

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

    #[test]
    fn a_wire_counts_its_losses_as_they_leave_the_transmitter() {
        let ms = SimTime::from_millis;
        let mut wire = WireLoss::of(LossModel::Bernoulli { p: 1.0 }, Rng::derive(1, "t")).unwrap();
        assert!(wire.lose(ms(5)));
        wire.lost.extend([(ms(8), PktId(3)), (ms(16), PktId(4))]);
        let mut drops = vec![];
        wire.count_until(ms(15), &mut drops);
        assert_eq!(
            (drops.clone(), wire.drops, wire.lost.len()),
            (vec![PktId(3)], 1, 1)
        );
        wire.count_until(ms(16), &mut drops);
        assert_eq!((drops, wire.drops), (vec![PktId(3), PktId(4)], 2));
        assert!(WireLoss::of(LossModel::None, Rng::derive(1, "t")).is_none());
    }
}
