//! Cost functions beyond affine: how long a worker takes to receive or compute `x` items.
//!
//! genaud2003 §3.2 only asks that `T_comm(i, x)` and `T_comp(i, x)` be non-negative and 0
//! for 0 items (Algorithm 1), and non-decreasing for the pruned Algorithm 2. Real timings
//! are rarely affine (caches, paging, `n log n` sorts), so the dynamic programs in
//! [`scatter::exact`](crate::scatter::exact) take any [`CostFn`]:
//!
//! * [`Affine`]: `latency + per_item·x`, the closed forms' model;
//! * [`Tabulated`]: measured points `(items, seconds)`, interpolated piecewise-linearly and
//!   extended beyond the first and last points by their segments. [`Tabulated::new`]
//!   rejects points whose times decrease; [`Tabulated::repaired`] makes them non-decreasing
//!   the way cerin2006 §3.3(d) suggests, replacing conflicting points by their weighted
//!   mean (pool-adjacent-violators, i.e. the least-squares non-decreasing fit);
//! * [`PowerLaw`]: `latency + coeff·x^exponent` (e.g. exponent 2 for a quadratic sort);
//! * [`FnCost`]: any closure `Fn(u64) -> N`, checked by the solvers before use.
//!
//! A cost function gives 0 for 0 items whatever its parameters: a worker given nothing
//! takes no part.

use crate::error::Error;
use crate::num::range::{EXPONENT, NON_NEGATIVE};
use crate::num::Real;

/// The time a worker needs for a number of items: to receive them, or to compute them.
///
/// Implementations must return 0 for 0 items and a finite value ≥ 0 otherwise. The pruned
/// solvers also need it to be non-decreasing; [`CostFn::non_decreasing`] says whether the
/// type guarantees that, and when it does not the solvers check every value they may use.
pub trait CostFn<N: Real> {
    /// Seconds for `items` items.
    fn time(&self, items: u64) -> N;

    /// The largest `x` in `0..=limit` with `time(x) ≤ t`, for a non-decreasing function
    /// (`None` when `t < 0`): how many items fit in `t` seconds. The default is a binary
    /// search; types with an inverse override it.
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        if t < N::ZERO {
            return None;
        }
        Some(search_within(|x| self.time(x) <= t, limit))
    }

    /// `true` when the type guarantees a non-decreasing function with `time(0) = 0` and
    /// finite, non-negative values (checked when the value was built).
    fn non_decreasing(&self) -> bool {
        false
    }
}

/// The largest `x` in `0..=limit` with `fits(x)`, for a predicate true at 0 and
/// monotone (true, then false).
fn search_within(fits: impl Fn(u64) -> bool, limit: u64) -> u64 {
    bisect(&fits, 0, limit)
}

/// The largest `x` in `lo..=hi` with `fits(x)`, for `fits(lo)` and a monotone predicate.
fn bisect(fits: &impl Fn(u64) -> bool, mut lo: u64, mut hi: u64) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// [`search_within`] started from a guess: outward from `guess` by doubling steps until
/// the answer is bracketed, then by halving. O(log |guess − answer|) calls of `fits`, so a
/// good guess (an inverse computed in floating point) costs a few calls instead of the
/// forty of a search over all of `0..=limit`, and a bad one costs no more than that search.
pub(crate) fn search_from(fits: impl Fn(u64) -> bool, guess: u64, limit: u64) -> u64 {
    let g = guess.min(limit);
    let mut step = 1u64;
    let (lo, hi) = if fits(g) {
        let mut lo = g;
        loop {
            let next = lo.saturating_add(step).min(limit);
            if next == lo {
                return lo;
            }
            if !fits(next) {
                break (lo, next - 1);
            }
            (lo, step) = (next, step.saturating_mul(2));
        }
    } else {
        // `fits(0)` holds, so `g ≥ 1`.
        let mut hi = g.saturating_sub(1);
        loop {
            let next = hi.saturating_sub(step);
            if next == 0 || fits(next) {
                break (next, hi);
            }
            (hi, step) = (next - 1, step.saturating_mul(2));
        }
    };
    bisect(&fits, lo, hi)
}

impl<N: Real, C: CostFn<N> + ?Sized> CostFn<N> for &C {
    fn time(&self, items: u64) -> N {
        (**self).time(items)
    }
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        (**self).max_within(t, limit)
    }
    fn non_decreasing(&self) -> bool {
        (**self).non_decreasing()
    }
}

/// `latency + per_item·x` for `x > 0`, 0 for `x = 0` (genaud2003 §4's affine costs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine<N> {
    latency: N,
    per_item: N,
    /// `1/per_item` (0 when `per_item` is 0), for a first guess of the inverse.
    inverse: N,
}

impl<N: Real> Affine<N> {
    /// An affine cost. `latency` in seconds, `per_item` in seconds per item.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) when either value is
    /// NaN, infinite or negative.
    ///
    /// ```
    /// use divload::cost::{Affine, CostFn};
    /// let f = Affine::new(0.5, 0.01).unwrap();
    /// assert_eq!(f.time(0), 0.0);
    /// assert_eq!(f.time(100), 1.5);
    /// assert!(Affine::new(-1.0, 0.01).is_err());
    /// ```
    pub fn new(latency: N, per_item: N) -> Result<Self, Error> {
        NON_NEGATIVE.parameter("affine cost: latency", latency.to_f64())?;
        NON_NEGATIVE.parameter("affine cost: per_item", per_item.to_f64())?;
        Ok(Self::checked(latency, per_item))
    }

    /// For values already checked (a validated [`Worker`](crate::Worker)).
    pub(crate) fn checked(latency: N, per_item: N) -> Self {
        let inverse = if per_item > N::ZERO { N::ONE / per_item } else { N::ZERO };
        Affine { latency, per_item, inverse }
    }

    /// The fixed part, seconds.
    pub fn latency(&self) -> N {
        self.latency
    }

    /// The part per item, seconds per item.
    pub fn per_item(&self) -> N {
        self.per_item
    }
}

impl<N: Real> CostFn<N> for Affine<N> {
    #[inline]
    fn time(&self, items: u64) -> N {
        if items == 0 {
            N::ZERO
        } else {
            self.latency + self.per_item * N::from_u64(items)
        }
    }

    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        if t < N::ZERO {
            return None;
        }
        if self.per_item <= N::ZERO {
            return Some(if self.latency <= t { limit } else { 0 });
        }
        // Solve, then correct the rounding against `time` itself, so the answer is exact
        // for the function the solvers evaluate.
        let mut g = ((t - self.latency) * self.inverse).floor_u64().min(limit);
        for _ in 0..4 {
            if g < limit && self.time(g + 1) <= t {
                g += 1;
            } else if g >= 1 && self.time(g) > t {
                g -= 1;
            } else {
                return Some(g);
            }
        }
        // Saturated arithmetic put the guess far off.
        Some(search_within(|x| self.time(x) <= t, limit))
    }

    fn non_decreasing(&self) -> bool {
        true
    }
}

/// A cost measured at a few sizes: points `(items, seconds)` sorted by size, at most `M`
/// of them (fixed capacity, no allocation).
///
/// Between two points the time is interpolated linearly; before the first point it is the
/// larger of the first segment extended and the line from the origin to the first point
/// (each an upper bound there, for a convex and a concave cost: the extension alone fell to
/// 0 under a steep first segment, and plans gave items there for free). After the last
/// point the last segment is extended (a repaired table ends in a point of its own that
/// makes that segment rise at least at the ratio `y/s` of the last measurement, see
/// [`Tabulated::repaired`]). With a
/// single point `(s, y)` the time is proportional, `y·(x/s)` (constant `y` when `s` is 0;
/// the ratio first, since `y·x` overflowed for times near `N`'s largest value).
/// Values at the points are exact, and interpolated values never leave the interval
/// between their segment's end points, so the function is non-decreasing exactly, not
/// just up to rounding.
#[derive(Clone, Debug)]
pub struct Tabulated<N, const M: usize> {
    points: heapless::Vec<(u64, N), M>,
}

impl<N: Real, const M: usize> Tabulated<N, M> {
    /// A table from points sorted by strictly increasing size whose times do not decrease.
    ///
    /// # Errors
    ///
    /// * [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput): no points; a time
    ///   that is NaN, infinite or negative; sizes not strictly increasing; a time lower
    ///   than the previous point's (use [`Tabulated::repaired`] for noisy measurements).
    ///   The message names the point.
    /// * [`ErrorCode::Overflow`](crate::ErrorCode::Overflow): more than `M` points, or a
    ///   time that does not fit `N`.
    ///
    /// ```
    /// use divload::cost::{CostFn, Tabulated};
    /// let f = Tabulated::<f64, 8>::new(&[(1000, 2.0), (2000, 5.0)]).unwrap();
    /// assert_eq!(f.time(1500), 3.5);
    /// assert_eq!(f.time(3000), 8.0); // the last segment, extended
    /// let err = Tabulated::<f64, 8>::new(&[(1000, 2.0), (2000, 1.0)]).unwrap_err();
    /// assert_eq!(err.to_string(), "tabulated cost: point 1: seconds must not be lower than the previous point's (or repair the table), got 1");
    /// ```
    pub fn new(points: &[(u64, f64)]) -> Result<Self, Error> {
        let table = Self::collect(points)?;
        for (i, w) in table.points.windows(2).enumerate() {
            if w[1].0 <= w[0].0 {
                return Err(Error::point(
                    i + 1,
                    "size must be greater than the previous point's",
                    w[1].0 as f64,
                ));
            }
            if w[1].1 < w[0].1 {
                return Err(Error::point(
                    i + 1,
                    "seconds must not be lower than the previous point's (or repair the table)",
                    w[1].1.to_f64(),
                ));
            }
        }
        Ok(table)
    }

    /// A table from noisy measurements, in any order, possibly with repeated sizes:
    /// repeated sizes are averaged, then points whose times decrease, or repeat, are pooled
    /// into one point at their weighted centroid (cerin2006 §3.3(d): the least-squares
    /// non-decreasing fit, pool-adjacent-violators, with each pooled block merged as
    /// `partition::learned` merges it, `docs/derivations/partition.md` §7). The repaired
    /// points increase strictly in both size and time, so no stretch of the table is flat:
    /// a flat stretch costs nothing to fill, and a plan handed one rank every item at the
    /// price of its first point (a learned sort on 4 MPI ranks, whose two runs of one rank
    /// pooled into a flat segment extended past the last point).
    ///
    /// Past the last measurement `(s, y)` the time then rises at least at its ratio `y/s`
    /// (cerin2006 §3.3's "ratio at least"), since two close noisy measurements still make a
    /// nearly flat last segment: the table ends in one more point at `2s`, the larger of
    /// the last segment extended and `2y` there, so that the segment to it and beyond has
    /// slope `max(last segment, y/s)`. A table of `M` points after the repair has no slot
    /// for it and keeps its last segment; so does a last size over `u64::MAX/2`.
    ///
    /// # Errors
    ///
    /// As [`Tabulated::new`], except that order and decreasing times are repaired.
    ///
    /// ```
    /// use divload::cost::{CostFn, Tabulated};
    /// // The 2000-item run was disturbed: it looks faster than the 1000-item one.
    /// let f = Tabulated::<f64, 8>::repaired(&[(2000, 1.0), (1000, 3.0), (4000, 9.0)]).unwrap();
    /// assert_eq!(&f.points()[..2], &[(1500, 2.0), (4000, 9.0)]);
    /// // Then a tail point at 8000 items: the last segment there, steeper than 9 s per 4000.
    /// assert_eq!(f.points()[2].0, 8000);
    /// assert!((f.time(6500) - 16.0).abs() < 1e-12);
    /// // A nearly flat last segment: never less than 2.1 s per 2000 items past it.
    /// let g = Tabulated::<f64, 8>::repaired(&[(1000, 2.0), (2000, 2.1)]).unwrap();
    /// assert_eq!(g.time(4000), 4.2);
    /// ```
    pub fn repaired(points: &[(u64, f64)]) -> Result<Self, Error> {
        let mut table = Self::collect(points)?;
        let pts = &mut table.points;
        // By insertion: at most `M` points, and core's sorts (ipnsort, with its heapsort
        // and small sorts) were 4 KB of the wasm module for this one call; the crate's own
        // `kernel::sort::sort_by` (a layer above, and its heapsort copied for these
        // points) measured 1.2 KB more than this loop.
        for i in 1..pts.len() {
            for j in (1..=i).rev() {
                let Some([a, b]) = pts.get_mut(j - 1..=j).and_then(|s| <&mut [_; 2]>::try_from(s).ok())
                else {
                    break;
                };
                if a.0.cmp(&b.0).then(a.1.cmp_total(b.1)) != core::cmp::Ordering::Greater {
                    break;
                }
                core::mem::swap(a, b);
            }
        }
        // `y0 + (y1 − y0)·w1/(w0 + w1)` rather than `(y0·w0 + y1·w1)/(w0 + w1)`: the sum
        // of products overflowed to infinity for times near `N`'s largest value (issue 35),
        // and the difference of two finite non-negative times is finite. Clamped, the mean
        // stays between its two times whatever the rounding.
        let mean = |y0: N, w0: u64, y1: N, w1: u64| {
            let m = y0 + (y1 - y0) * (N::from_u64(w1) / N::from_u64(w0 + w1));
            m.max_of(y0.min_of(y1)).min_of(y0.max_of(y1))
        };
        // Pool adjacent violators over blocks (Σ w·size, mean time, Σ w, last size), one
        // observation of weight 1 per point; a repeated size joins its block whatever its
        // time. Sizes below 2⁶⁴ and at most `M` weights keep `Σ w·size` within 128 bits.
        let mut blocks = [(0u128, N::ZERO, 0u64, 0u64); M];
        let mut count = 0usize;
        for &(size, secs) in pts.iter() {
            let (mut sum, mut y, mut w) = (u128::from(size), secs, 1u64);
            while let Some(&(sb, yb, wb, last)) = count.checked_sub(1).and_then(|k| blocks.get(k)) {
                if yb < y && last != size {
                    break;
                }
                y = mean(yb, wb, y, w);
                sum += sb;
                w += wb;
                count -= 1;
            }
            if let Some(b) = blocks.get_mut(count) {
                *b = (sum, y, w, size);
                count += 1;
            }
        }
        pts.clear();
        for &(sum, y, w, _) in blocks.get(..count).unwrap_or(&[]) {
            // The centroid's size, half up in integers: between the block's first and last
            // sizes, so the next block's centroid is larger. Not 0 where the block has a
            // size above it: a lone point at 0 is a constant time, as flat as the stretch
            // the pooling removes (only the first block can hold a 0, so its successor's
            // centroid stays above 1).
            let w = u128::from(w);
            let size = ((2 * sum + w) / (2 * w)) as u64;
            let size = if sum > 0 { size.max(1) } else { size };
            // Capacity: at most as many blocks as points.
            let _ = pts.push((size, y));
        }
        let n = pts.len();
        if let (Some(&(s0, y0)), Some(&(s1, y1))) = (n.checked_sub(2).and_then(|i| pts.get(i)), pts.last()) {
            if let Some(s2) = s1.checked_mul(2) {
                let along = y1 + (y1 - y0) * (N::from_u64(s1) / N::from_u64(s1 - s0));
                let y2 = along.max_of(y1 + y1);
                if y2.is_finite() {
                    // A full table has no slot: it keeps its last segment.
                    let _ = pts.push((s2, y2));
                }
            }
        }
        Ok(table)
    }

    /// Checks values and capacity, converting to `N`.
    fn collect(points: &[(u64, f64)]) -> Result<Self, Error> {
        if points.is_empty() {
            return Err(Error::point(0, "at least one point is needed", 0.0));
        }
        if points.len() > M {
            return Err(Error::too_large("tabulated cost: number of points", M as u64, points.len() as u64));
        }
        let mut out = heapless::Vec::new();
        for (i, &(size, secs)) in points.iter().enumerate() {
            if !NON_NEGATIVE.contains(secs) {
                return Err(Error::point(i, "seconds must be finite and >= 0", secs));
            }
            let y = N::from_f64(secs).ok_or(Error::point(i, "seconds do not fit the number type", secs))?;
            // Capacity was checked above.
            let _ = out.push((size, y));
        }
        Ok(Tabulated { points: out })
    }

    /// The points, sorted by size.
    pub fn points(&self) -> &[(u64, N)] {
        &self.points
    }
}

impl<N: Real, const M: usize> CostFn<N> for Tabulated<N, M> {
    fn time(&self, items: u64) -> N {
        let pts = &self.points[..];
        if items == 0 {
            return N::ZERO;
        }
        let x = N::from_u64(items);
        let (first, last) = match (pts.first(), pts.last()) {
            (Some(&f), Some(&l)) => (f, l),
            _ => return N::ZERO,
        };
        if pts.len() == 1 {
            let (s, y) = first;
            return if s == 0 || items == s { y } else { y * (x / N::from_u64(s)) };
        }
        // The segment (i-1, i): the first point at or after `items`, clamped to the ends.
        let i = pts.partition_point(|p| p.0 < items).clamp(1, pts.len() - 1);
        // At least two points here, so both are in the table.
        let (Some(&(s0, y0)), Some(&(s1, y1))) = (pts.get(i - 1), pts.get(i)) else { return last.1 };
        if items == s1 {
            return y1;
        }
        let y = y0 + (y1 - y0) * (x - N::from_u64(s0)) / N::from_u64(s1 - s0);
        if items < first.0 {
            // The first segment extended, but never below the line from the origin: a steep
            // first segment extended alone reaches 0 well above one item (a table of
            // [[10⁴, 0.009], [10⁵, 0.1]] at 8 900 items), and a plan would then give
            // those items for free. The origin's line keeps every time positive.
            y.max_of(y0 * (x / N::from_u64(first.0))).min_of(y0)
        } else if items > last.0 {
            y.max_of(y1)
        } else {
            y.max_of(y0).min_of(y1)
        }
    }

    /// From the interpolation inverted on the segment where `t` falls, corrected against
    /// `time` itself (the partition model's threshold search made forty evaluations per
    /// worker and step: 30 s for 2²⁰ tabulated workers).
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        if t < N::ZERO {
            return None;
        }
        let pts = &self.points[..];
        let t64 = t.to_f64();
        let guess = match pts {
            [] => 0.0,
            [(s, y)] => t64 * *s as f64 / y.to_f64(),
            _ => {
                let i = pts.partition_point(|p| p.1 <= t).clamp(1, pts.len() - 1);
                match (pts.get(i - 1), pts.get(i)) {
                    (Some(&(s0, y0)), Some(&(s1, y1))) => {
                        let (y0, y1) = (y0.to_f64(), y1.to_f64());
                        s0 as f64 + (t64 - y0) * (s1 - s0) as f64 / (y1 - y0)
                    }
                    _ => 0.0,
                }
            }
        };
        // `as` saturates (and reads NaN as 0); the search corrects any guess.
        Some(search_from(|x| self.time(x) <= t, guess as u64, limit))
    }

    fn non_decreasing(&self) -> bool {
        true
    }
}

/// `latency + coeff·x^exponent` for `x > 0`, 0 for `x = 0`.
///
/// The exponent is limited to `0.01..=64`: in that range successive item counts up to
/// 2⁴⁰ differ by many units in the last place, so the computed function is non-decreasing
/// despite the rounding of `pow`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerLaw<N> {
    latency: N,
    coeff: f64,
    exponent: f64,
}

impl<N: Real> PowerLaw<N> {
    /// A power law. `latency` in seconds, `coeff` in seconds per item^exponent.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for a negative or
    /// non-finite latency or coefficient, or an exponent outside `0.01..=64`.
    ///
    /// ```
    /// use divload::cost::{CostFn, PowerLaw};
    /// let sort = PowerLaw::new(0.0, 1e-6, 2.0).unwrap();
    /// assert_eq!(sort.time(1000), 1.0);
    /// assert!(PowerLaw::<f64>::new(0.0, 1e-6, 0.0).is_err());
    /// ```
    pub fn new(latency: N, coeff: f64, exponent: f64) -> Result<Self, Error> {
        NON_NEGATIVE.parameter("power law: latency", latency.to_f64())?;
        NON_NEGATIVE.parameter("power law: coeff", coeff)?;
        EXPONENT.parameter("power law: exponent", exponent)?;
        Ok(PowerLaw { latency, coeff, exponent })
    }
}

impl<N: Real> CostFn<N> for PowerLaw<N> {
    fn time(&self, items: u64) -> N {
        if items == 0 {
            return N::ZERO;
        }
        let v = self.coeff * libm::pow(items as f64, self.exponent);
        self.latency + N::from_f64(v).unwrap_or(N::INFINITY)
    }

    /// From the inverse `((t − latency)/coeff)^(1/exponent)` in `f64`, corrected against
    /// `time` itself, so the answer is exact for the function the solvers evaluate: the
    /// partition model's threshold search made forty `pow` calls per worker and step
    /// (60 s for a document of 2²⁰ workers).
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        if t < N::ZERO {
            return None;
        }
        let room = t.to_f64() - self.latency.to_f64();
        let guess = if room < 0.0 {
            0.0
        } else if self.coeff > 0.0 {
            libm::pow(room / self.coeff, 1.0 / self.exponent)
        } else {
            f64::INFINITY
        };
        // `as` saturates (and reads NaN as 0); the search corrects any guess.
        Some(search_from(|x| self.time(x) <= t, guess as u64, limit))
    }

    fn non_decreasing(&self) -> bool {
        true
    }
}

/// A caller's own cost function, as a closure or function `Fn(u64) -> N`.
///
/// The solvers cannot trust it: before using it they check that it is 0 at 0, finite,
/// non-negative and (for the pruned solvers) non-decreasing on every size they may ask for.
///
/// ```
/// use divload::cost::{CostFn, FnCost};
/// let f = FnCost(|x: u64| 0.002 * x as f64 * libm::log2(x as f64 + 1.0));
/// assert_eq!(f.time(0), 0.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FnCost<F>(pub F);

impl<N: Real, F: Fn(u64) -> N> CostFn<N> for FnCost<F> {
    fn time(&self, items: u64) -> N {
        (self.0)(items)
    }
}

/// One of the built-in cost functions, for platforms read from files: `M` is the
/// capacity of a tabulated cost.
#[derive(Clone, Debug)]
pub enum Cost<N, const M: usize> {
    /// See [`Affine`].
    Affine(Affine<N>),
    /// See [`Tabulated`].
    Tabulated(Tabulated<N, M>),
    /// See [`PowerLaw`].
    PowerLaw(PowerLaw<N>),
}

impl<N: Real, const M: usize> CostFn<N> for Cost<N, M> {
    #[inline]
    fn time(&self, items: u64) -> N {
        match self {
            Cost::Affine(f) => f.time(items),
            Cost::Tabulated(f) => f.time(items),
            Cost::PowerLaw(f) => f.time(items),
        }
    }
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        match self {
            Cost::Affine(f) => f.max_within(t, limit),
            Cost::Tabulated(f) => f.max_within(t, limit),
            Cost::PowerLaw(f) => f.max_within(t, limit),
        }
    }
    fn non_decreasing(&self) -> bool {
        true
    }
}

/// A worker described by two cost functions: receiving (`comm`) and computing (`comp`).
/// The root's `comm` is not used while it is the root: it does not send to itself.
#[derive(Clone, Copy, Debug)]
pub struct WorkerCosts<C, D = C> {
    /// Time to receive `x` items from the root (genaud2003 `T_comm(i, x)`).
    pub comm: C,
    /// Time to compute `x` items (`T_comp(i, x)`).
    pub comp: D,
}

impl<N: Real> crate::Worker<N> {
    /// The worker's affine costs as cost functions, for the dynamic programs.
    ///
    /// # Errors
    ///
    /// As [`Worker::validate`](crate::Worker::validate); `index` is used in messages.
    pub fn costs(&self, index: usize) -> Result<WorkerCosts<Affine<N>>, Error> {
        self.validate(index)?;
        Ok(WorkerCosts {
            comm: Affine::checked(self.comm_latency, self.comm_per_item),
            comp: Affine::checked(self.comp_latency, self.comp_per_item),
        })
    }
}

/// Checks a cost function the type does not vouch for, on every size in `0..=n`.
pub(crate) fn check_cost<N: Real, C: CostFn<N>>(
    f: &C,
    worker: usize,
    part: &'static str,
    n: u64,
    monotone: bool,
) -> Result<(), Error> {
    if f.non_decreasing() {
        return Ok(());
    }
    let zero = f.time(0);
    if zero != N::ZERO {
        return Err(Error::time_value(worker, part, 0, zero.to_f64()));
    }
    let mut prev = N::ZERO;
    for x in 1..=n {
        let t = f.time(x);
        if !(t.is_finite() && t >= N::ZERO) {
            return Err(Error::time_value(worker, part, x, t.to_f64()));
        }
        if monotone && t < prev {
            return Err(Error::decreasing(worker, part, x));
        }
        prev = t;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_max_within<C: CostFn<f64>>(f: &C, t: f64, limit: u64) -> Option<u64> {
        (0..=limit).filter(|&x| f.time(x) <= t).max()
    }

    /// The power law's inverse and the search from a guess give what the search over all
    /// sizes gives, in `f64` and `f32`, for latencies, zero coefficients, tiny and huge
    /// exponents, times below the latency and limits that cut the answer.
    #[test]
    fn power_law_max_within_is_the_search() {
        fn check<N: Real>(f: &PowerLaw<N>, t: N, limit: u64) {
            let search = if t < N::ZERO { None } else { Some(search_within(|x| f.time(x) <= t, limit)) };
            assert_eq!(f.max_within(t, limit), search, "{f:?} t {} limit {limit}", t.to_f64());
        }
        let mut rnd = crate::num::xorshift(77);
        let mut unit = || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        for _ in 0..20_000 {
            let latency = if unit() < 0.3 { 0.0 } else { unit() * 1e-3 };
            let coeff = if unit() < 0.05 { 0.0 } else { 1e-9 * 10f64.powf(6.0 * unit()) };
            let exponent = if unit() < 0.1 { 0.01 + unit() * 0.1 } else { 0.5 + 3.0 * unit() };
            let limit = (10f64.powf(12.0 * unit())) as u64;
            let f = PowerLaw::new(latency, coeff, exponent).unwrap();
            let x = (unit() * limit as f64) as u64;
            for t in [
                f.time(x),
                f.time(x) * (1.0 + 1e-12),
                f.time(x) * (1.0 - 1e-12),
                latency * unit(),
                -1.0,
                unit(),
            ] {
                check(&f, t, limit);
            }
            let g = PowerLaw::new(latency as f32, coeff, exponent).unwrap();
            let t = g.time(x.min(1 << 24));
            check(&g, t, limit.min(1 << 24));
            check(&g, t * 0.999_999, limit.min(1 << 24));
        }
        for guess in [0, 1, 7, 1000, u64::MAX] {
            for answer in [0u64, 1, 6, 7, 8, 999, 5000] {
                assert_eq!(search_from(|x| x <= answer, guess, 5000), answer, "guess {guess}");
                assert_eq!(search_from(|x| x <= answer, guess, 3), answer.min(3), "guess {guess}");
            }
        }
    }

    /// The tabulated inverse and the search from it give what the search over all sizes
    /// gives: one point, flat and steep segments, times before the first point and past the
    /// last, in `f64` and `f32`.
    #[test]
    fn tabulated_max_within_is_the_search() {
        fn check<N: Real>(f: &Tabulated<N, 8>, t: N, limit: u64) {
            let search = if t < N::ZERO { None } else { Some(search_within(|x| f.time(x) <= t, limit)) };
            assert_eq!(f.max_within(t, limit), search, "{f:?} t {} limit {limit}", t.to_f64());
        }
        let mut rnd = crate::num::xorshift(78);
        let mut unit = || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        for _ in 0..20_000 {
            let n = 1 + (unit() * 6.0) as usize;
            let (mut s, mut y) = ((unit() * 100.0) as u64, if unit() < 0.2 { 0.0 } else { unit() });
            let mut points = std::vec::Vec::new();
            for _ in 0..n {
                points.push((s, y));
                s += 1 + (10f64.powf(6.0 * unit())) as u64;
                y += if unit() < 0.3 { 0.0 } else { 10f64.powf(-3.0 * unit()) };
            }
            let f = Tabulated::<f64, 8>::new(&points).unwrap();
            let limit = (10f64.powf(9.0 * unit())) as u64;
            let x = (unit() * limit as f64) as u64;
            for t in [
                f.time(x),
                f.time(x) * (1.0 + 1e-12),
                f.time(x) * (1.0 - 1e-12),
                points[0].1,
                y * 2.0,
                -1.0,
                unit(),
            ] {
                check(&f, t, limit);
            }
            let small: std::vec::Vec<(u64, f64)> =
                points.iter().map(|&(s, y)| (s, y as f32 as f64)).collect();
            let g = Tabulated::<f32, 8>::new(&small).unwrap();
            let t = g.time(x.min(1 << 24));
            check(&g, t, limit.min(1 << 24));
            check(&g, t * 0.999_999, limit.min(1 << 24));
        }
    }

    #[test]
    fn affine_max_within_is_exact() {
        let fs =
            [Affine::new(0.0, 0.1).unwrap(), Affine::new(0.3, 0.1).unwrap(), Affine::new(0.3, 0.0).unwrap()];
        for f in &fs {
            for t in [-1.0, 0.0, 1e-9, 0.1, 0.3, 0.30000000000000004, 0.4, 0.7, 1.0, 1.3, 5.0] {
                for limit in [0, 1, 5, 12] {
                    assert_eq!(
                        f.max_within(t, limit),
                        brute_max_within(f, t, limit),
                        "{f:?} t={t} limit={limit}"
                    );
                    let generic = FnCost(|x| f.time(x));
                    assert_eq!(generic.max_within(t, limit), brute_max_within(f, t, limit));
                }
            }
        }
    }

    #[test]
    fn tabulated_interpolates_extends_and_is_non_decreasing() {
        let f = Tabulated::<f64, 4>::new(&[(10, 1.0), (20, 1.0), (40, 5.0)]).unwrap();
        assert_eq!(f.time(0), 0.0);
        assert_eq!(f.time(10), 1.0);
        assert_eq!(f.time(15), 1.0);
        assert_eq!(f.time(30), 3.0);
        assert_eq!(f.time(60), 9.0);
        assert_eq!(f.time(5), 1.0, "the flat first segment, extended");
        let g = Tabulated::<f64, 4>::new(&[(10, 1.0), (20, 3.0)]).unwrap();
        // The segment extended gives 0 and 0.6, the origin's line 0.5 and 0.8.
        assert_eq!(g.time(5), 0.5, "the origin's line, above the segment");
        assert_eq!(g.time(8), 0.8);
        let fixed = Tabulated::<f64, 4>::new(&[(10, 4.0), (20, 5.0)]).unwrap();
        assert_eq!(fixed.time(5), 3.5, "the segment, above the origin's line");
        let one = Tabulated::<f64, 4>::new(&[(100, 2.0)]).unwrap();
        assert_eq!(one.time(50), 1.0);
        let lat = Tabulated::<f64, 4>::new(&[(0, 0.5), (100, 1.5)]).unwrap();
        assert_eq!((lat.time(0), lat.time(1)), (0.0, 0.51));
        // Non-decreasing on every size, with awkward slopes.
        let h =
            Tabulated::<f64, 8>::new(&[(3, 0.1), (7, 0.3), (1000, 0.3000001), (1001, 7.77), (5000, 7.78)])
                .unwrap();
        let mut prev = 0.0;
        for x in 0..7000 {
            let t = h.time(x);
            assert!(t >= prev, "x={x}: {t} < {prev}");
            prev = t;
        }
    }

    #[test]
    fn bad_tables_are_named() {
        let e = |r: Result<Tabulated<f64, 2>, Error>| std::string::ToString::to_string(&r.unwrap_err());
        assert_eq!(e(Tabulated::new(&[])), "tabulated cost: point 0: at least one point is needed, got 0");
        assert_eq!(
            e(Tabulated::new(&[(1, f64::NAN)])),
            "tabulated cost: point 0: seconds must be finite and >= 0, got NaN"
        );
        assert_eq!(
            e(Tabulated::new(&[(1, 1.0), (2, -1.0)])),
            "tabulated cost: point 1: seconds must be finite and >= 0, got -1"
        );
        assert_eq!(
            e(Tabulated::new(&[(2, 1.0), (1, 2.0)])),
            "tabulated cost: point 1: size must be greater than the previous point's, got 1"
        );
        assert_eq!(
            e(Tabulated::new(&[(1, 1.0), (1, 2.0)])),
            "tabulated cost: point 1: size must be greater than the previous point's, got 1"
        );
        let too_many = Tabulated::<f64, 2>::new(&[(1, 1.0), (2, 2.0), (3, 3.0)]).unwrap_err();
        assert_eq!(too_many.code(), crate::ErrorCode::Overflow);
        assert_eq!(
            std::string::ToString::to_string(&too_many),
            "tabulated cost: number of points: at most 2, got 3"
        );
        assert!(Tabulated::<f64, 2>::repaired(&[(1, f64::INFINITY)]).is_err());
        let q = Tabulated::<crate::Q32, 2>::new(&[(1, 1e12)]).unwrap_err();
        assert_eq!(
            std::string::ToString::to_string(&q),
            "tabulated cost: point 0: seconds do not fit the number type, got 1000000000000"
        );
    }

    #[test]
    fn repair_pools_violators_into_weighted_means() {
        // (2, 4), (3, 2), (4, 3) pool into their mean 3 at their centroid 3.
        let f = Tabulated::<f64, 8>::repaired(&[(1, 1.0), (2, 4.0), (3, 2.0), (4, 3.0), (5, 6.0)]).unwrap();
        // The tail point at twice the last size: the last segment there (13.5 > 2·6).
        assert_eq!(f.points(), &[(1, 1.0), (3, 3.0), (5, 6.0), (10, 13.5)]);
        // Repeated sizes pool whatever their times: (1, 4), (1, 2), then (2, 1) below their
        // mean; 7/3 at (1 + 1 + 2)/3, half up.
        let g = Tabulated::<f64, 8>::repaired(&[(2, 1.0), (1, 4.0), (1, 2.0)]).unwrap();
        assert_eq!(g.points(), &[(1, 7.0 / 3.0)]);
        let h = Tabulated::<f64, 8>::repaired(&[(1, 1.0), (1, 2.0), (2, 3.0)]).unwrap();
        assert_eq!(h.points(), &[(1, 1.5), (2, 3.0), (4, 6.0)]);
        // A block whose centroid rounds to 0 but holds a larger size stays at 1, so the
        // time still grows with the items.
        let z = Tabulated::<f64, 8>::repaired(&[(0, 0.2), (0, 0.3), (1, 0.1)]).unwrap();
        assert_eq!(z.points(), &[(1, 0.2)]);
        assert_eq!(z.time(10), 2.0);
        // Equal times pool too, so no stretch is flat.
        let flat = Tabulated::<f64, 8>::repaired(&[(1, 1.0), (2, 2.0), (9, 2.0)]).unwrap();
        // Its tail point: twice the last time (4 > 3.2 along the last segment).
        assert_eq!(flat.points(), &[(1, 1.0), (6, 2.0), (12, 4.0)]);
        // Strictly increasing tables keep their points, a tail point after them, and agree
        // with `new` up to their last point.
        let pts = [(1, 1.0), (2, 2.0), (9, 5.0)];
        let (a, b) = (Tabulated::<f64, 8>::repaired(&pts).unwrap(), Tabulated::<f64, 8>::new(&pts).unwrap());
        assert_eq!(&a.points()[..3], b.points());
        assert_eq!(a.points()[3].0, 18);
        // A full table has no slot for the tail point.
        let full: [(u64, f64); 4] = [(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0)];
        assert_eq!(Tabulated::<f64, 4>::repaired(&full).unwrap().points(), &full);
        for x in 0..=9 {
            assert_eq!(a.time(x), b.time(x));
        }
    }

    /// Two runs of one MPI rank, the larger one a little faster (a learned sort on 4 ranks
    /// with 2 cores): pooled into a flat segment and extended, that table cost 0.0659 s
    /// for any count, and the partition plan gave the rank all 100 000 records. Repaired,
    /// the rank's time grows with its count past its measurements.
    #[test]
    fn repaired_noisy_runs_cost_more_for_more_items() {
        let f = Tabulated::<f64, 8>::repaired(&[(41295, 0.066), (45691, 0.0658)]).unwrap();
        assert_eq!(f.points().len(), 1);
        assert!(f.time(100_000) > 2.0 * f.time(45691), "{}", f.time(100_000));
        let g = Tabulated::<f64, 8>::repaired(&[(40000, 0.0650), (45000, 0.0651)]).unwrap();
        assert_eq!(g.time(90_000), 0.0651 * 2.0);
        assert!(g.time(20_000) < 0.0650 && g.time(20_000) > 0.0);
        // A table given as it is keeps its last segment.
        let n = Tabulated::<f64, 8>::new(&[(40000, 0.0650), (45000, 0.0651)]).unwrap();
        assert!(n.time(90_000) < 0.0661);
        // Every repaired table is non-decreasing, and strictly increasing at its points; a
        // lone point at size 0 (a constant time) only where every size is 0.
        let mut rnd = crate::num::xorshift(7);
        for len in (1..=16usize).cycle().take(160) {
            let mut pts = [(0u64, 0.0f64); 16];
            for p in &mut pts[..len] {
                *p = (rnd() % 50, (rnd() % 20) as f64 * 0.25);
            }
            let t = Tabulated::<f64, 16>::repaired(&pts[..len]).unwrap();
            assert!(t.points().windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1), "{:?}", t.points());
            let lone_zero = t.points().len() == 1 && t.points()[0].0 == 0;
            assert!(!lone_zero || pts[..len].iter().all(|p| p.0 == 0), "{:?}", &pts[..len]);
            for x in 1..120 {
                assert!(t.time(x + 1) >= t.time(x), "{:?} at {x}", t.points());
            }
        }
    }

    /// Issue 35: the weighted means of times near the largest `f64` overflowed to infinity
    /// (`1e308·1 + 1e308·1`), and the table then interpolated `∞ − ∞` into NaN times.
    #[test]
    fn repair_of_times_near_the_largest_value_stays_finite() {
        let f = Tabulated::<f64, 8>::repaired(&[(5, 1e308), (5, 1e308), (10, 1e308)]).unwrap();
        assert_eq!(f.points(), &[(7, 1e308)]);
        let g = Tabulated::<f64, 8>::repaired(&[(1, f64::MAX), (2, f64::MAX / 2.0), (3, f64::MAX)]).unwrap();
        assert!(g.points().iter().all(|p| p.1.is_finite() && p.1 >= f64::MAX / 2.0), "{:?}", g.points());
        for x in 0..40 {
            // Finite up to the last point; past it the time may leave `f64`, never as NaN.
            assert!(x > 7 || f.time(x).is_finite(), "x = {x}: {}", f.time(x));
            assert!(f.time(x) >= 0.0 && g.time(x) >= 0.0, "x = {x}: {} {}", f.time(x), g.time(x));
        }
        // Above the last point a steep table leaves the range of `f64`: infinity, not NaN.
        let h = Tabulated::<f64, 8>::new(&[(1, 0.0), (2, f64::MAX)]).unwrap();
        assert_eq!(h.time(3), f64::INFINITY);
    }

    /// The points are put in order by an insertion sort of the module's own: any order of
    /// the same points (repeated sizes and times included) gives the table of the points
    /// sorted by core's sort.
    #[test]
    fn repair_orders_points_as_a_sort_would() {
        let mut rnd = crate::num::xorshift(99);
        for len in 1..=32usize {
            let mut pts = [(0u64, 0.0f64); 32];
            for p in &mut pts[..len] {
                *p = (1 + rnd() % 12, (rnd() % 9) as f64 * 0.5);
            }
            let mut sorted = pts;
            sorted[..len].sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let want = Tabulated::<f64, 32>::repaired(&sorted[..len]).unwrap();
            assert_eq!(Tabulated::<f64, 32>::repaired(&pts[..len]).unwrap().points(), want.points(), "{len}");
            pts[..len].reverse();
            assert_eq!(Tabulated::<f64, 32>::repaired(&pts[..len]).unwrap().points(), want.points(), "{len}");
        }
    }

    #[test]
    fn power_law_is_non_decreasing_on_integers() {
        for exponent in [0.01, 0.5, 1.0, 1.5, 2.0] {
            let f = PowerLaw::<f64>::new(0.0, 1e-3, exponent).unwrap();
            let mut prev = 0.0;
            for x in (0..2_000_000u64).step_by(7).chain(1u64 << 39..(1u64 << 39) + 2000) {
                let t = f.time(x);
                assert!(t >= prev || x == 1 << 39, "exponent {exponent}, x={x}");
                prev = t;
            }
        }
    }
}
