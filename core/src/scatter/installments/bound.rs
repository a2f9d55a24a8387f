//! A lower bound on the makespan of every plan with any sequence of installments
//! (`docs/derivations/installments.md` §3), and its dual for a deadline: an upper bound on
//! the items any plan finishes in time.
//!
//! Whatever the sequence, by a horizon `T`:
//! * worker `i` computes `nᵢ` items in at least `λᵢ + μᵢ nᵢ` seconds, from no earlier than
//!   `max(rᵢ, Lᵢ)` (its release time, its first message's latency), so
//!   `nᵢ ≤ uᵢ(T) = (T − max(rᵢ, Lᵢ) − λᵢ)/μᵢ`, and with at most `R` installments `nᵢ ≤ R·Bᵢ`;
//! * the root's single port carries every item sent: the last chunk leaves at
//!   `Σ cᵢ nᵢ + L` at the earliest and its worker then computes for `λ` at least, so
//!   `Σ cᵢ nᵢ ≤ T − minᵢ (Lᵢ + λᵢ)`;
//! * the root computes at most `(T − r − λ)/μ` items, within its cap.
//!
//! The most items meeting these is a fractional knapsack, filled by increasing `cᵢ`; the
//! least `T` at which it reaches `n` bounds every plan's makespan. Without latencies, with
//! enough installments, plans approach it (the steady state of the single-port star).

use super::lp::Costs;
use crate::kernel::fp;
use crate::kernel::sort::sort_by;

/// Bisection steps on the horizon: 2⁻¹⁰⁰ of the plan's makespan is far below `f64`'s
/// resolution, so the loop ends on adjacent floats.
const STEPS: usize = 100;

/// The platform as the bound reads it: the workers other than the root, sorted by `c` in
/// `order`, and the root.
pub(super) struct Star<'a, F> {
    pub order: &'a [usize],
    pub costs: F,
    pub root: Option<Costs>,
    /// Installments per worker at most (`u64::MAX`: any number).
    pub rounds: u64,
}

/// Sorts the workers of `order` (all of them but the root) by increasing `c`.
pub(super) fn sort_by_bandwidth(order: &mut [usize], costs: impl Fn(usize) -> Costs) {
    sort_by(order, |&a, &b| {
        let (x, y) = (costs(a), costs(b));
        x.c < y.c || (x.c == y.c && a < b)
    });
}

impl<F: Fn(usize) -> Costs> Star<'_, F> {
    /// The most items any plan finishes by `t`, in exact arithmetic up to `f64` rounding
    /// (see [`Star::makespan_bound`] and [`Star::items_bound`] for the certified forms).
    pub fn items_by(&self, t: f64) -> f64 {
        let mut total = 0.0;
        if let Some(r) = self.root {
            total += ((t - r.r - r.lam) / r.mu).max(0.0).min(r.cap);
        }
        let first =
            self.order.iter().map(|&i| (self.costs)(i)).map(|w| w.l + w.lam).fold(f64::INFINITY, f64::min);
        let mut port = t - first;
        if port.is_nan() || port <= 0.0 {
            return total;
        }
        for &i in self.order {
            let w = (self.costs)(i);
            let mut u = ((t - w.r.max(w.l) - w.lam) / w.mu).max(0.0);
            if self.rounds != u64::MAX {
                u = u.min(self.rounds as f64 * w.cap);
            }
            let take = if w.c > 0.0 { u.min(port / w.c) } else { u };
            total += take;
            port -= w.c * take;
            if port <= 0.0 {
                break;
            }
        }
        total
    }

    /// A lower bound on the makespan of every plan of `n` items, given one plan's makespan
    /// `upper` (so `items_by(upper) ≥ n`).
    pub fn makespan_bound(&self, n: f64, upper: f64) -> f64 {
        let (mut lo, mut hi) = (0.0f64, upper);
        if self.items_by(hi) < n {
            // Rounding at the plan's own makespan: search above it.
            hi = upper * 2.0;
        }
        for _ in 0..STEPS {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.items_by(mid) >= n {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // `items_by` sums one term per worker with a few roundings each, and its slope
        // times `T` over its value is at least 1 (it is `aT − b` piecewise, `b ≥ 0`), so `lo`'s
        // relative error is that of the sum.
        fp::below(lo, 8 * self.order.len() as u64 + 64)
    }

    /// An upper bound on the whole items any plan finishes by `t`.
    pub fn items_bound(&self, t: f64) -> f64 {
        libm::floor(fp::above(self.items_by(t), 8 * self.order.len() as u64 + 64))
    }
}
