//! The smallest time that is enough: a bisection on the bit patterns of non-negative
//! `f64`, for any monotone "how much fits by time `t`" (cerin2006 §4's threshold search,
//! heien's integer counts).
//!
//! The order of the bit patterns of non-negative `f64` is the order of the numbers, so
//! bisecting on them takes at most 64 steps and ends on a value `fit` actually changes at,
//! not on an approximation of it.

/// The smallest `t` in `[0, hi]` with `fit(t) ≥ need`, for `fit` non-decreasing in `t` and
/// `fit(hi) ≥ need` (the caller's duty; without it the answer is `hi`).
///
/// At most 65 calls of `fit`.
pub(crate) fn smallest_reaching(need: u64, hi: f64, mut fit: impl FnMut(f64) -> u64) -> f64 {
    let (mut lo_bits, mut hi_bits) = (0u64, hi.to_bits());
    if fit(0.0) >= need {
        hi_bits = 0;
    }
    // Invariant: fit(from_bits(hi_bits)) >= need, and every pattern below lo_bits falls
    // short.
    while lo_bits < hi_bits {
        let mid = lo_bits + (hi_bits - lo_bits) / 2;
        if fit(f64::from_bits(mid)) >= need {
            hi_bits = mid;
        } else {
            lo_bits = mid + 1;
        }
    }
    f64::from_bits(hi_bits)
}

/// The largest `f64` below `t ≥ 0`, or `None` at zero: the last time that was not enough
/// when `t` came from [`smallest_reaching`].
pub(crate) fn just_below(t: f64) -> Option<f64> {
    let bits = t.to_bits();
    (t > 0.0).then(|| f64::from_bits(bits - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_time_that_is_enough() {
        // Items of 0.1 s each: 7 need 0.7 s, as f64 computes 7 · 0.1.
        let fit = |t: f64| (0..=100u64).take_while(|&x| x as f64 * 0.1 <= t).last().unwrap_or(0);
        let t = smallest_reaching(7, 10.0, fit);
        assert_eq!(t, 7.0 * 0.1);
        assert!(fit(just_below(t).unwrap()) < 7);
        assert_eq!(smallest_reaching(0, 10.0, fit), 0.0);
        assert_eq!(just_below(0.0), None);
    }
}
