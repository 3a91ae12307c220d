//! A windowed running maximum, Kathleen Nichols' algorithm as Linux `lib/win_minmax.c`: the
//! best, second and third best samples of the window are kept, so that the maximum of a window
//! of any length costs three samples, and the window slides as the older choices age out.

/// A windowed running maximum over round counts: Kathleen Nichols' algorithm as Linux
/// `lib/win_minmax.c`, keeping the best, second and third best samples of the window.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [(t, v); 3];
        v
    }

    /// Adds `v` measured at round `t`, for a window of `win` rounds; returns the maximum.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // Linux `minmax_subwin_update`.
        let dt = t - self.s[0].0;
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_three_choices_and_forgets_after_its_window() {
        let mut f = MaxFilter::default();
        assert_eq!(f.update(10, 1, 5.0), 5.0);
        // Lower, early in the window: no new choice yet (a quarter, 2 rounds, not passed).
        assert_eq!(f.update(10, 2, 3.0), 5.0);
        // Past a quarter of the window with no second choice: 4 becomes second and third.
        assert_eq!(f.update(10, 4, 4.0), 5.0);
        // Round 12: 5 (round 1) is 11 rounds old, out of the window; the second choice rules.
        assert_eq!(f.update(10, 12, 2.0), 4.0);
        // Round 30: every choice is out of the window; the new sample alone.
        assert_eq!(f.update(10, 30, 1.0), 1.0);
        // A new maximum replaces everything at once.
        assert_eq!(f.update(10, 31, 9.0), 9.0);
    }
}
