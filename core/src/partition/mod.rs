//! Computation only: the exact integer optimum by a search on the makespan.
//!
//! cerin2006 §4 splits `n` items over processors with unrelated, non-decreasing costs
//! `fᵢ` and no communication: minimise `maxᵢ fᵢ(nᵢ)` with `Σ nᵢ = n`. The paper's dynamic
//! program takes O(n²·p) time and O(n·p) memory. The optimum is the smallest `T` with
//!
//! `Σᵢ max{x ≤ n : fᵢ(x) ≤ T} ≥ n`
//!
//! (any plan finishing by `T` gives each processor at most that many items, and giving
//! each that many finishes by `T`). The left side is non-decreasing in `T`, so a binary
//! search finds it. `T` is searched over the bit patterns of non-negative `f64`, whose
//! order is the order of the numbers: at most 64 steps, each O(p·log n) evaluations, and
//! the answer is exactly one of the values `fᵢ(x)`, not an approximation. Memory: the
//! output counts only.
//!
//! Uniformly related processors (one cost, a speed per worker; cerin2006 §3, §5–§6) are in
//! [`related`] (the exact optimum, the rational one and the paper's rounding), [`approx`]
//! (Theorem 1, eq. (5) and Theorem 2, corrected) and [`lambert`] (`W₀` for the inverse of
//! `n ln n`).

pub mod approx;
pub mod lambert;
pub mod learned;
pub mod related;

use crate::error::Error;
use crate::kernel::search::smallest_reaching;
use crate::num::Real;
use crate::platform::cost::{check_cost, CostFn};
use crate::report::Method;

impl Method {
    /// The threshold search for computation-only costs (cerin2006 §4): optimal.
    pub const THRESHOLD: Method = Method::new("threshold");
    /// Uniformly related processors: Theorem 1's shares `∝ f⁻¹(kᵢ)` (cerin2006 §3.1,
    /// exact for `c·nᵃ`), then floors and the cost rule ([`approx`]).
    pub const THEOREM1: Method = Method::new("theorem1");
    /// `n ln n`: eq. (5) with ordinary brackets (cerin2006 §3.2, corrected), then floors
    /// and the cost rule; `lower_bound` is the exact optimum.
    pub const EQ5: Method = Method::new("eq5");
    /// `n ln n`: Theorem 2 with its dropped factor restored (cerin2006 §3.2, corrected),
    /// then floors and the cost rule; `lower_bound` is the exact optimum.
    pub const THEOREM2: Method = Method::new("theorem2");
    /// The exact optimum for a cost model learned from timings (cerin2006 §3.3): optimal
    /// for the model, which predicts the makespan.
    pub const LEARNED: Method = Method::new("learned");
}

/// The optimal counts for computation-only costs `comp` (one per worker), written to
/// `counts` in the same order; returns the makespan `maxᵢ compᵢ(countsᵢ)`, the optimum.
///
/// # Errors
///
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for no workers, no items,
/// or a cost function that is not 0 at 0, not finite and non-negative, or decreasing
/// (naming the worker); [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall)
/// when `counts` is shorter than `comp`; [`ErrorCode::Overflow`](crate::ErrorCode::Overflow)
/// for more items than `N` can count.
///
/// ```
/// use divload::cost::{Affine, PowerLaw, Cost};
/// // A linear-time worker and a quadratic one (a slow sort).
/// let comp: [Cost<f64, 1>; 2] = [
///     Cost::Affine(Affine::new(0.0, 1.0)?),
///     Cost::PowerLaw(PowerLaw::new(0.0, 0.01, 2.0)?),
/// ];
/// let mut counts = [0u64; 2];
/// let t = divload::partition::solve(&comp, 100, &mut counts)?;
/// assert_eq!(counts, [38, 62]);
/// assert!((t - 38.44).abs() < 1e-12); // 62 items on the quadratic worker; 39 on the other would take longer
/// # Ok::<(), divload::Error>(())
/// ```
pub fn solve<N: Real, C: CostFn<N>>(comp: &[C], items: u64, counts: &mut [u64]) -> Result<N, Error> {
    let p = comp.len();
    crate::platform::check_sizes::<N>(p, items)?;
    if counts.len() < p {
        return Err(Error::buffer("counts", p, counts.len()));
    }
    for (i, f) in comp.iter().enumerate() {
        check_cost(f, i, "comp", items, true)?;
    }
    // Items that fit in `t` seconds, over all workers, stopping once `items` is reached.
    let fit = |t: f64| -> u64 {
        let mut total = 0u64;
        for f in comp {
            let x = within(f, t, items);
            total = total.saturating_add(x);
            if total >= items {
                break;
            }
        }
        total
    };
    // Any single worker can take everything by max_i f_i(n); take the smallest such time.
    let mut hi = f64::INFINITY;
    for f in comp {
        hi = hi.min(f.time(items).to_f64());
    }
    let t = smallest_reaching(items, hi, fit);
    let mut left = items;
    let mut makespan = N::ZERO;
    for (f, c) in comp.iter().zip(counts.iter_mut()) {
        let x = within(f, t, items).min(left);
        left -= x;
        *c = x;
        makespan = makespan.max_of(f.time(x));
    }
    for c in &mut counts[p..] {
        *c = 0;
    }
    Ok(makespan)
}

/// The largest `x ≤ limit` with `f(x) ≤ t`, comparing in `f64` (every `N` converts
/// exactly). Uses the function's own inverse when `t` is a value of `N`.
fn within<N: Real, C: CostFn<N>>(f: &C, t: f64, limit: u64) -> u64 {
    if let Some(tn) = N::from_f64(t).filter(|tn| tn.to_f64() == t) {
        return f.max_within(tn, limit).unwrap_or(0);
    }
    let (mut lo, mut hi) = (0u64, limit);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if f.time(mid).to_f64() <= t {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
