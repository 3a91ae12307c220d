//! Random draws given by their mean, as ns-2 parameterises them (`tools/ranvar.cc`,
//! `Random::pareto`): on-off traffic's bursts and idle times (`app/onoff.rs`) and the sizes of
//! arriving transfers (`scenario/arrivals.rs`).
//!
//! - Exponential: `X = −mean·ln(1 − U)`, U uniform on [0, 1).
//! - Pareto with shape α > 1 (finite mean): `X = β / (1 − U)^(1/α)` with scale
//!   `β = mean·(α − 1)/α`, so that `E[X] = β·α/(α − 1) = mean`.

/// A distribution of non-negative values, chosen by its mean at each draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    Exponential,
    /// Shape α > 1 (ns-2's `shape_`, 1.5 by default there).
    Pareto {
        shape: f64,
    },
}

impl Dist {
    /// The draw for uniform `u` in [0, 1) from this distribution with mean `mean`.
    pub fn value(self, mean: f64, u: f64) -> f64 {
        match self {
            Dist::Exponential => -mean * (1.0 - u).ln(),
            Dist::Pareto { shape } => {
                let scale = mean * (shape - 1.0) / shape;
                scale / (1.0 - u).powf(1.0 / shape)
            }
        }
    }

    /// A Pareto distribution of `shape`, checked: a shape of 1 or less has no finite mean.
    pub fn pareto(shape: f64) -> Result<Dist, String> {
        if shape.is_finite() && shape > 1.0 {
            Ok(Dist::Pareto { shape })
        } else {
            Err(format!(
                "{shape} is not a finite number greater than 1 (a Pareto shape of 1 or less has \
                 no finite mean)"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    #[test]
    fn draws_match_the_inverse_distribution_functions_worked_by_hand() {
        // Exponential, mean 2, u = 0.5: −2·ln(0.5) = 2·ln 2 = 1.3862944.
        let e = Dist::Exponential.value(2.0, 0.5);
        assert!(close(e, 1.386_294_4, 1e-7), "{e}");
        // u = 0 gives zero (as −0.0, which equals 0.0: the smallest draw), not NaN.
        assert_eq!(Dist::Exponential.value(2.0, 0.0), 0.0);
        // Pareto, mean 3, shape 1.5: scale 3·0.5/1.5 = 1; u = 0.75: 1/0.25^(1/1.5) = 4^(2/3)
        // = 2.5198421.
        let p = Dist::Pareto { shape: 1.5 }.value(3.0, 0.75);
        assert!(close(p, 2.519_842_1, 1e-7), "{p}");
        // u = 0 gives the scale, the smallest Pareto value.
        assert_eq!(Dist::Pareto { shape: 1.5 }.value(3.0, 0.0), 1.0);
    }

    /// Pareto draws have the distribution's median, β·2^(1/α): for mean 3 and shape 1.5,
    /// 2^(2/3) = 1.5874011 (the mean itself converges too slowly to test with shape 1.5).
    #[test]
    fn pareto_draws_have_the_median_of_their_distribution() {
        let mut r = Rng::derive(5, "p");
        let d = Dist::Pareto { shape: 1.5 };
        let n = 100_000;
        let below = (0..n)
            .filter(|_| d.value(3.0, r.uniform()) < 1.587_401_1)
            .count();
        let frac = below as f64 / n as f64;
        assert!((frac - 0.5).abs() < 0.01, "{frac}");
    }

    #[test]
    fn a_pareto_shape_must_give_a_finite_mean() {
        assert_eq!(Dist::pareto(1.2), Ok(Dist::Pareto { shape: 1.2 }));
        for bad in [1.0, 0.5, -2.0, f64::NAN, f64::INFINITY] {
            let e = Dist::pareto(bad).unwrap_err();
            assert!(e.contains("not a finite number greater than 1"), "{e}");
        }
    }
}
