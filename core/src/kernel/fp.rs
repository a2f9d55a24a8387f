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
pub(crate) fn next_down(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() {
        f64::from_bits(x.to_bits() - 1)
    } else {
        x
    }
}

/// The smallest `f64` above `x` (for finite `x ≥ 0`).
pub(crate) fn next_up(x: f64) -> f64 {
    if (0.0..f64::INFINITY).contains(&x) {
        f64::from_bits(x.abs().to_bits() + 1)
    } else {
        x
    }
}

/// 2⁵²: below it, `(x + 2⁵²) − 2⁵²` rounds `x ≥ 0` to the nearest integer, ties to even.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// The subnormal `m·2⁻¹⁰⁷⁴` nearest to `m·2⁻¹⁰⁷⁴` for `q ≈ m`, the product or quotient
/// of a subnormal's significand computed in normal range: `q = fl(x)` and `x` round to
/// the same integer unless `q` is a half-integer (rounding is monotone and, below 2⁵²,
/// every half-integer is an `f64`), and every multiple of 2⁻¹⁰⁷⁴ below 2⁻¹⁰²¹ is the
/// `f64` whose bits are that multiple. Otherwise `None`.
#[inline]
fn subnormal_multiple(q: f64) -> Option<f64> {
    if !(0.0..TWO_52).contains(&q) {
        return None;
    }
    let r = (q + TWO_52) - TWO_52;
    ((r - q).abs() != 0.5).then(|| f64::from_bits(r as u64))
}

/// The significand `m` of a positive subnormal `a = m·2⁻¹⁰⁷⁴`, when `b` is positive and
/// finite.
#[inline]
fn subnormal_significand(a: f64, b: f64) -> Option<f64> {
    let m = a.to_bits();
    (m.wrapping_sub(1) < (1 << 52) - 1 && b > 0.0 && b <= f64::MAX).then_some(m as f64)
}

/// `a · b`, bit for bit, without the FPU's slow path when `a` is subnormal.
///
/// An operation on a subnormal operand takes a microcode assist on x86 (about 16× a normal
/// one on the Xeon of BENCHMARKS.md), and the return-message recursions at 10⁶ workers run
/// on subnormals for most positions (issue 12). In the subnormal range the correctly
/// rounded result is `RNE(m·b)·2⁻¹⁰⁷⁴`, computed here in normal range; the rare inputs
/// where that would round twice (a half-integer `fl(m·b)`) take the plain operation.
#[inline]
pub(crate) fn mul_subnormal(a: f64, b: f64) -> f64 {
    subnormal_significand(a, b).and_then(|m| subnormal_multiple(m * b)).unwrap_or(a * b)
}

/// `a / b`, bit for bit, without the FPU's slow path when `a` is subnormal (see
/// [`mul_subnormal`]).
#[inline]
pub(crate) fn div_subnormal(a: f64, b: f64) -> f64 {
    subnormal_significand(a, b).and_then(|m| subnormal_multiple(m / b)).unwrap_or(a / b)
}

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

    #[test]
    fn subnormal_products_and_quotients_are_those_of_the_fpu() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let check = |a: f64, b: f64| {
            assert_eq!(mul_subnormal(a, b).to_bits(), (a * b).to_bits(), "{a:e} * {b:e}");
            assert_eq!(div_subnormal(a, b).to_bits(), (a / b).to_bits(), "{a:e} / {b:e}");
        };
        // Exact ties (2.5 and 0.5 times the smallest subnormal), the largest subnormal,
        // results crossing into normal range, and the values that are not subnormal.
        let tiny = f64::from_bits(1);
        for b in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.25, 1e-300, 5e-324, 1e300, f64::MAX, 4.5e15] {
            for a in [tiny, f64::from_bits(3), f64::from_bits((1 << 52) - 1), 0.0, 1.0, f64::MIN_POSITIVE] {
                check(a, b);
            }
        }
        for b in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            check(tiny, b);
        }
        for _ in 0..200_000 {
            let a = f64::from_bits((next() % (1 << 52)) >> (next() % 52));
            // Costs and ratios as the recursions see them: over many decades, and small
            // integers and half-integers that make ties.
            let b = match next() % 3 {
                0 => f64::from_bits(0x3000_0000_0000_0000 + next() % 0x1800_0000_0000_0000),
                1 => (next() % 64) as f64 / 2.0,
                _ => 1.0 + (next() % 1000) as f64 / 1024.0,
            };
            check(a, b);
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
