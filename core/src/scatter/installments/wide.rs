//! One installment over more workers than the LP takes (`docs/derivations/installments.md`
//! §6): caps, release times and deadlines for any number of workers, in O(p) a horizon.
//!
//! In bandwidth order (increasing `c`), for a fixed horizon `T`, giving each worker in turn
//! as many items as still finish by `T` is the most items one round holds without
//! latencies: one item less to a worker frees `c` seconds of the port, and the workers after
//! it turn `δ` seconds into at most `δ·g` items with `g ≤ 1/c` (each later worker's rate
//! `1/(c' + μ') ` plus what it passes on, `μ'/(c' + μ')·g'`, is at most `1/c' ≤ 1/c`), so
//! the trade never gains. The least `T` whose fill holds `n` items is found by bisection.
//! With latencies, a worker that would get less than one item is left out (it would pay
//! its latency for nothing); the plan is then a heuristic, and the bound says how far it
//! may be.
//!
//! Whole counts round the prefix sums: `nₖ = ⌊Xₖ + ½⌋ − ⌊Xₖ₋₁ + ½⌋` for `Xₖ` the rational
//! items up to position `k`. Every arrival then moves by less than one item's transfer and
//! every count by less than one item, and a count never passes its worker's (whole) cap.

use super::lp::{Costs, RootColumn};

/// Bisection steps: from a bracket within a factor 2, 2⁻¹⁰⁰ is below `f64`'s resolution.
const STEPS: usize = 100;
/// Doublings to find a horizon that holds the items: beyond 2¹¹⁰⁰ seconds lies `f64::MAX`.
const DOUBLINGS: usize = 1100;

/// The platform in bandwidth order.
pub(super) struct Wide<'a, F> {
    pub order: &'a [usize],
    pub costs: F,
    pub root: Costs,
    pub root_column: RootColumn,
}

impl<F: Fn(usize) -> Costs> Wide<'_, F> {
    /// The most items one round finishes by `t` (`whole`: each count an integer), each
    /// position's in `x` (the root's at `x[order.len()]`).
    pub fn fill(&self, t: f64, whole: bool, x: &mut [f64]) -> f64 {
        let mut port = 0.0f64;
        let mut total = 0.0;
        for (&w, slot) in self.order.iter().zip(x.iter_mut()) {
            let c = (self.costs)(w);
            let by_port = (t - port - c.l - c.lam) / (c.c + c.mu);
            let by_release = (t - c.r - c.lam) / c.mu;
            let mut v = by_port.min(by_release).min(c.cap);
            if whole {
                v = libm::floor(v);
            }
            // A worker with a latency takes part only for a whole item at least.
            let least = if c.l > 0.0 || c.lam > 0.0 { 1.0 } else { 0.0 };
            if v.is_nan() || v <= 0.0 || v < least {
                v = 0.0;
            } else {
                port += c.l + c.c * v;
            }
            *slot = v;
            total += v;
        }
        let r = self.root;
        let start = match self.root_column {
            RootColumn::Absent => None,
            RootColumn::Overlap => Some(r.r),
            RootColumn::AfterSend => Some(port.max(r.r)),
        };
        let mut v = start.map_or(0.0, |s| ((t - s - r.lam) / r.mu).min(r.cap));
        if whole {
            v = libm::floor(v);
        }
        if v.is_nan() || v <= 0.0 {
            v = 0.0;
        }
        if let Some(slot) = x.get_mut(self.order.len()) {
            *slot = v;
        }
        total + v
    }

    /// The least horizon whose fill holds `n` items, with the rational sizes in `x`
    /// (adding up to `n`); `None` when no horizon in `f64` does.
    pub fn makespan(&self, n: f64, x: &mut [f64]) -> Option<f64> {
        let mut hi = 1.0f64;
        let mut found = false;
        for _ in 0..DOUBLINGS {
            if self.fill(hi, false, x) >= n {
                found = true;
                break;
            }
            hi *= 2.0;
            if !hi.is_finite() {
                return None;
            }
        }
        if !found {
            return None;
        }
        let mut lo = 0.0f64;
        for _ in 0..STEPS {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.fill(mid, false, x) >= n {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let total = self.fill(hi, false, x);
        if total > 0.0 {
            for v in x.iter_mut().take(self.order.len() + 1) {
                *v *= n / total;
            }
        }
        Some(hi)
    }
}

/// Whole counts from rational sizes adding up to `n`, by rounding their prefix sums
/// (written over `counts`).
pub(super) fn round_prefixes(x: &[f64], n: u64, counts: &mut [f64]) {
    let (mut sum, mut before) = (0.0f64, 0.0f64);
    let last = x.len().min(counts.len()).saturating_sub(1);
    for (i, (&v, c)) in x.iter().zip(counts.iter_mut()).enumerate() {
        sum += v;
        let upto = if i == last { n as f64 } else { libm::floor(sum + 0.5).min(n as f64) };
        *c = (upto - before).max(0.0);
        before = before.max(upto);
    }
}

/// The most whole items that finish by `t` with one round in `order`: the fill with whole
/// counts, trimmed to `n` from the end (fewer items never end later).
pub(super) fn most_by<F: Fn(usize) -> Costs>(wide: &Wide<'_, F>, t: f64, n: u64, counts: &mut [f64]) -> f64 {
    let mut total = wide.fill(t, true, counts);
    let k = wide.order.len() + 1;
    let mut over = total - n as f64;
    for c in counts.iter_mut().take(k).rev() {
        if over <= 0.0 {
            break;
        }
        let cut = c.min(over);
        *c -= cut;
        over -= cut;
        total -= cut;
    }
    total
}
