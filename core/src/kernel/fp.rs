//! Bounds that stay bounds in floating point.
//!
//! A value a solver calls a *bound* must bound the exact quantity, not its rounded
//! approximation: a lower bound computed as `items / r` in `f64` can land a few units in
//! the last place above the exact optimum, and then above an integer plan that reaches it
//! (issue 11's reproducers). The rule every model follows: compute the bound in `f64`,
//! count the correctly rounded operations on non-negative terms that produced it, and widen
//! it by the classical error bound γₖ = k·u/(1 − k·u) (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, Lemma 3.1) before rounding it outward into the plan's number
//! type. Sums, products and quotients of non-negative values obey that bound; a subtraction
//! does not, so callers only count operations that never subtract.
//!
//! Comparing against a makespan computed in `N` needs `N`'s own rounding too: the makespan
//! of a plan may come out below its exact value by γ of `N` (plus the fixed-point quantum
//! per operation for `Q32`). [`lower_for`] and [`upper_for`] take both into account, so
//! `lower_bound ≤ makespan ≤ bound` holds for the values as computed, by construction.

use crate::num::Real;

/// Unit roundoff of `f64` (round to nearest): 2⁻⁵³.
const U64: f64 = 1.0 / 9_007_199_254_740_992.0;

/// γₖ for `k` operations with unit roundoff `u`, rounded up; 1 (all accuracy lost) when
/// `k·u` is not small.
fn gamma(k: u64, u: f64) -> f64 {
    let ku = k as f64 * u;
    if ku >= 0.5 {
        return 1.0;
    }
    // One more ulp-sized step up covers the roundings of this very computation.
    ku / (1.0 - ku) * (1.0 + 4.0 * U64)
}

/// A value `≤ x·(1 − γ)`, for `x ≥ 0` that approximates an exact value within
/// relative error γ: never above the exact value.
fn shrink(x: f64, g: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return x;
    }
    let y = x * (1.0 - g);
    next_down(y)
}

/// A value `≥ x·(1 + γ)`.
fn widen(x: f64, g: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return x;
    }
    next_up(x * (1.0 + g))
}

/// The largest `f64` below `x` (for finite `x > 0`; other values are returned as they are).
///
/// On the bits alone: the bounds call this about ten times per worker, and the float
/// comparisons cost twice the instructions (issue 12).
#[inline]
pub(crate) fn next_down(x: f64) -> f64 {
    let b = x.to_bits();
    // Positive finite non-zero values are exactly the patterns 1 ..= MAX's.
    if b.wrapping_sub(1) < f64::MAX.to_bits() {
        f64::from_bits(b - 1)
    } else {
        x
    }
}

/// The smallest `f64` above `x` (for finite `x ≥ 0`; other values are returned as they
/// are). On the bits alone, as [`next_down`].
#[inline]
pub(crate) fn next_up(x: f64) -> f64 {
    // −0 counts as 0; the finite non-negative values are then the patterns below ∞'s.
    let b = if x.to_bits() == NEGATIVE_ZERO { 0 } else { x.to_bits() };
    if b < f64::INFINITY.to_bits() {
        f64::from_bits(b + 1)
    } else {
        x
    }
}

const NEGATIVE_ZERO: u64 = 1 << 63;

/// A lower bound in `N` on the exact value that `x` approximates, where `x ≥ 0` was computed
/// in `f64` from exact inputs by at most `ops` roundings on non-negative terms, safe to
/// compare with a makespan that `N` computed from at most `n_ops` roundings.
pub(crate) fn lower_for<N: Real>(x: f64, ops: u64, n_ops: u64) -> N {
    let g = gamma(ops, U64);
    let gn = gamma(n_ops, N::ROUNDOFF);
    let y = shrink(shrink(x, g), gn) - n_ops as f64 * N::QUANTUM;
    N::from_f64_below(y.max(0.0))
}

/// An upper bound in `N` on the exact value that `x` approximates (see [`lower_for`]),
/// safe to compare with a makespan that `N` computed from at most `n_ops` roundings.
pub(crate) fn upper_for<N: Real>(x: f64, ops: u64, n_ops: u64) -> N {
    let g = gamma(ops, U64);
    let gn = gamma(n_ops, N::ROUNDOFF);
    let y = widen(widen(x, g), gn) + n_ops as f64 * N::QUANTUM;
    N::from_f64_above(y)
}

/// An `f64` at least the exact value that `x ≥ 0` approximates, where `x` was computed in
/// `N` from at most `n_ops` roundings on non-negative terms (a makespan as the send chain
/// computes it, say).
pub(crate) fn exact_at_most<N: Real>(x: N, n_ops: u64) -> f64 {
    let x = x.to_f64();
    if x.is_nan() || x < 0.0 {
        return x;
    }
    next_up(widen(x, gamma(n_ops, N::ROUNDOFF)) + n_ops as f64 * N::QUANTUM)
}

/// A lower bound in `f64` on the exact value `x ≥ 0` approximates after `ops` roundings
/// on non-negative terms.
pub(crate) fn below(x: f64, ops: u64) -> f64 {
    shrink(x, gamma(ops, U64))
}

/// An upper bound in `f64` on the exact value `x ≥ 0` approximates after `ops` roundings
/// on non-negative terms.
pub(crate) fn above(x: f64, ops: u64) -> f64 {
    widen(x, gamma(ops, U64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::Q32;

    /// The steps on the bits against their definitions in floating-point comparisons, on
    /// every kind of value (zeros, subnormals, the ends of the range, infinities, NaNs) and
    /// random patterns.
    #[test]
    fn steps_match_their_definitions() {
        let down = |x: f64| if x > 0.0 && x.is_finite() { f64::from_bits(x.to_bits() - 1) } else { x };
        let up = |x: f64| {
            if (0.0..f64::INFINITY).contains(&x) {
                f64::from_bits(x.abs().to_bits() + 1)
            } else {
                x
            }
        };
        let mut rnd = crate::num::xorshift(11);
        let special = [
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            1.0,
            -1.0,
        ];
        for x in special.into_iter().chain((0..100_000).map(|_| f64::from_bits(rnd()))) {
            assert_eq!(next_down(x).to_bits(), down(x).to_bits(), "{x:e}");
            assert_eq!(next_up(x).to_bits(), up(x).to_bits(), "{x:e}");
        }
    }

    #[test]
    fn widening_goes_the_right_way() {
        for x in [1e-300, 1e-9, 0.3, 1.0, 150.79915507159, 1e300] {
            assert!(below(x, 10) < x && above(x, 10) > x);
            let y = x.min(1e30);
            assert!(f64::from(lower_for::<f32>(y, 10, 10)) <= y);
            assert!(f64::from(upper_for::<f32>(y, 10, 10)) >= y);
        }
        assert_eq!(below(0.0, 5), 0.0);
        assert!(lower_for::<Q32>(1.5, 4, 4).to_f64() < 1.5);
        assert!(upper_for::<Q32>(1.5, 4, 4).to_f64() > 1.5);
        assert_eq!(gamma(1 << 60, U64), 1.0);
    }
}
