//! Checks shared by the algorithms' configs. Each returns the value, or the field and a message
//! that `CcSpec::build` hands to the scenario builder (which prefixes the path).

pub use crate::config::ParamError;

/// A factor strictly between 0 and 1 (a multiplicative decrease such as β).
pub(crate) fn fraction(field: &'static str, v: f64) -> Result<f64, ParamError> {
    if v.is_finite() && v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err((field, format!("{v} is outside (0, 1)")))
    }
}

/// A finite number greater than 0.
pub(crate) fn positive(field: &'static str, v: f64) -> Result<f64, ParamError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err((field, format!("{v} is not a positive number")))
    }
}

/// A finite number of segments, at least `min`.
pub(crate) fn at_least(field: &'static str, v: f64, min: f64) -> Result<f64, ParamError> {
    if v.is_finite() && v >= min {
        Ok(v)
    } else {
        Err((field, format!("{v} is not a number ≥ {min}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(fraction("beta", 0.7), Ok(0.7));
        assert!(fraction("beta", 1.0).is_err());
        assert!(fraction("beta", 0.0).is_err());
        assert!(fraction("beta", f64::NAN).is_err());
        assert_eq!(positive("c", 0.4), Ok(0.4));
        assert!(positive("c", 0.0).is_err());
        assert!(positive("c", f64::INFINITY).is_err());
        assert_eq!(at_least("w", 2.0, 2.0), Ok(2.0));
        assert_eq!(at_least("w", 1.0, 2.0).unwrap_err().0, "w");
    }
}
