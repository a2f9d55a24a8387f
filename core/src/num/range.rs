//! The ranges a platform's numbers must lie in, each declared once with its words: the
//! models' checks, the document readers, the schema front ends build their forms from and
//! the error messages all read the same constant (as jiff's `util/b.rs` declares each
//! bound once), so a message never disagrees with the check that raised it.

/// The values a number may take: `min` and `max`, each included unless it is open;
/// an infinite bound is none. NaN lies in no range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
    /// Whether `min` itself is excluded.
    pub min_open: bool,
    /// Whether `max` itself is excluded.
    pub max_open: bool,
    /// The range in words, as messages name it: `finite and > 0`.
    pub says: &'static str,
    /// The same as a demand on a value: `must be finite and > 0`.
    pub must: &'static str,
}

impl Range {
    /// Whether `v` is finite and within the range.
    pub fn contains(&self, v: f64) -> bool {
        let above = if self.min_open { v > self.min } else { v >= self.min };
        let below = if self.max_open { v < self.max } else { v <= self.max };
        v.is_finite() && above && below
    }
}

/// A range from its bounds and its words, the demand spelt from the same words. A model's
/// own ranges (a count's limit) use it too, with a test that the words name the limit.
macro_rules! range {
    ($min:expr, $max:expr, $min_open:expr, $max_open:expr, $says:literal) => {
        &Range {
            min: $min,
            max: $max,
            min_open: $min_open,
            max_open: $max_open,
            says: $says,
            must: concat!("must be ", $says),
        }
    };
}
#[cfg_attr(not(feature = "doc"), allow(unused_imports))]
pub(crate) use range;

/// Times and costs: finite and ≥ 0.
pub const NON_NEGATIVE: &Range = range!(0.0, f64::INFINITY, false, true, "finite and >= 0");
/// Computing costs and speeds: finite and > 0 (a worker that computes in no time would
/// take every item).
pub const POSITIVE: &Range = range!(0.0, f64::INFINITY, true, true, "finite and > 0");
/// Rates and costs that are inverted (a link's bandwidth, a path's cost per value): finite
/// and at least the least `f64` whose inverse is finite.
pub const INVERTIBLE: &Range =
    range!(super::MIN_INVERTIBLE, f64::INFINITY, false, true, "finite and >= 5.56268464626801e-309");
/// A power law's exponent (cerin2006's `x^a` costs): small enough that `x^a` stays finite
/// for every count of items a plan may hold, large enough to be a cost at all.
pub const EXPONENT: &Range = range!(0.01, 64.0, false, false, "in 0.01..=64");
/// Counts of items and of identical workers.
pub const AT_LEAST_ONE: &Range = range!(1.0, f64::INFINITY, false, true, "at least 1");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_name_the_bounds() {
        for r in [NON_NEGATIVE, POSITIVE, INVERTIBLE, AT_LEAST_ONE] {
            assert!(!r.contains(f64::NAN) && !r.contains(f64::INFINITY) && !r.contains(-1.0));
            assert_eq!(r.contains(r.min), !r.min_open, "{}", r.says);
            assert!(r.contains(r.min * 2.0 + 1.0), "{}", r.says);
            assert_eq!(r.must.strip_prefix("must be "), Some(r.says));
            let min: f64 = r.says.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(1.0);
            assert_eq!(min, r.min, "{}", r.says);
        }
        assert!(EXPONENT.contains(0.01) && EXPONENT.contains(64.0) && !EXPONENT.contains(64.5));
        assert_eq!(EXPONENT.says, std::format!("in {}..={}", EXPONENT.min, EXPONENT.max));
        assert!(NON_NEGATIVE.contains(0.0) && !NON_NEGATIVE.contains(-1e-300));
        assert!(!POSITIVE.contains(0.0) && POSITIVE.contains(5e-324));
        let closed = Range { min: 1.0, max: 2.0, min_open: false, max_open: false, says: "", must: "" };
        assert!(closed.contains(2.0) && !closed.contains(2.0000000000000004));
        assert!(!Range { max_open: true, ..closed }.contains(2.0));
        assert!(!POSITIVE.contains(0.0) && NON_NEGATIVE.contains(0.0));
        assert!(INVERTIBLE.contains(super::super::MIN_INVERTIBLE) && (1.0 / INVERTIBLE.min).is_finite());
    }
}
