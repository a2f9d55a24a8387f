//! Whole load units (lattice columns, objects) per processor with the smallest integer step
//! time (heien §3 gives fractions only). A processor of class `k` with `x` of the `N` units
//! takes `t_k(x) = a_k·x/N + b_k`, evaluated in `f64` (rounding is monotone, so `t_k` is
//! non-decreasing in `x`). Within `T` it can take `fit_k(T) = max{x ≤ N : t_k(x) ≤ T}`
//! units, and a plan finishing by `T` exists exactly when every class that takes part has
//! `b_k ≤ T` and `Σ_k n_k·fit_k(T) ≥ N`. That is monotone in `T`, so the optimum is the
//! smallest such `T`, found by bisection on the bit patterns of `f64`
//! (`kernel::search`, as cerin2006 §4): the answer is one of the values `t_k(x)` itself.
//! The units are then laid out from the last `T` that was not enough, so processors of a
//! class differ by at most one unit where the slack allows.

use super::types::{Class, Position, Processor, RingOrder};
use crate::kernel::search::{just_below, smallest_reaching};
use crate::platform::cost::search_from;

/// Step time of a class's processor with `x` of `n` units (`fixed` as given: 0 when the
/// split ignores the fixed costs).
fn time(c: &Class, fixed: f64, x: u64, n: f64) -> f64 {
    c.per_load * x as f64 / n + fixed
}

/// The largest `x ≤ n` with `time(x) ≤ t`: from the rational guess, galloping then
/// bisecting (`cost::search_from`; a few evaluations unless `a/N` is far below an ulp of
/// `t`).
fn fit(c: &Class, fixed: f64, t: f64, n: u64) -> u64 {
    let nf = n as f64;
    let within = |x: u64| time(c, fixed, x, nf) <= t;
    if !within(0) {
        return 0;
    }
    if within(n) {
        return n;
    }
    // `as` saturates and reads a negative or NaN guess as 0; the search corrects it.
    search_from(within, ((t - fixed) * nf / c.per_load) as u64, n)
}

/// The integer plan over the classes that take part: sets each class's `units` (summing
/// to `n`) and returns the smallest step time `T` a plan can reach (with the fixed costs
/// when `with_fixed`, else with `b = 0`, the paper's sort split).
pub(crate) fn integer(classes: &mut [Class], n: u64, with_fixed: bool) -> f64 {
    let fixed = |c: &Class| if with_fixed { c.fixed } else { 0.0 };
    let nf = n as f64;
    let mut max_b = 0.0f64;
    let mut hi = f64::INFINITY;
    for c in classes.iter().filter(|c| c.participates) {
        max_b = max_b.max(fixed(c));
        hi = hi.min(time(c, fixed(c), n, nf));
    }
    let hi = hi.max(max_b);
    let total = |t: f64, classes: &[Class]| -> u64 {
        if t < max_b {
            return 0;
        }
        let mut sum = 0u64;
        for c in classes.iter().filter(|c| c.participates) {
            sum = sum.saturating_add(u64::from(c.processors).saturating_mul(fit(c, fixed(c), t, n)));
            if sum >= n {
                break;
            }
        }
        sum
    };
    let t = smallest_reaching(n, hi, |t| total(t, classes));
    // Start everyone from what fitted just below T when that stays within n, so the
    // units at T are spread over the processors whose capacity grew at T.
    let below = just_below(t).filter(|&tb| tb >= max_b);
    let mut base_sum = 0u64;
    for c in classes.iter_mut() {
        c.units = match below {
            Some(tb) if c.participates => u64::from(c.processors).saturating_mul(fit(c, fixed(c), tb, n)),
            _ => 0,
        };
        base_sum = base_sum.saturating_add(c.units);
    }
    if base_sum > n {
        for c in classes.iter_mut() {
            c.units = 0;
        }
        base_sum = 0;
    }
    let mut left = n - base_sum;
    for c in classes.iter_mut().filter(|c| c.participates) {
        if left == 0 {
            break;
        }
        let cap = u64::from(c.processors).saturating_mul(fit(c, fixed(c), t, n));
        let more = cap.saturating_sub(c.units).min(left);
        c.units += more;
        left -= more;
    }
    t
}

/// Writes every processor's entry for clusters of the given sizes (`sizes(c)`), from the
/// classes (sorted by cluster, then position); returns the integer plan's step time, the
/// slowest processor's. Displacements follow the ring order. O(P + C).
pub(crate) fn fill(
    classes: &[Class],
    clusters: usize,
    sizes: impl Fn(usize) -> u32,
    order: &RingOrder,
    units: u64,
    out: &mut [Processor],
) -> f64 {
    let nf = units as f64;
    let mut step = 0.0f64;
    let mut start = 0usize;
    let mut k = 0usize;
    for c in 0..clusters {
        let n = sizes(c);
        let slots = out.get_mut(start..start + n as usize).unwrap_or(&mut []);
        for (i, p) in slots.iter_mut().enumerate() {
            *p = Processor { cluster: c, index: i as u32, ..Processor::EMPTY };
        }
        // Classes of this cluster; a processor's class follows from its place.
        while let Some(cl) = classes.get(k).filter(|cl| cl.cluster == c) {
            let members = |i: u32| match cl.position {
                Position::Whole => true,
                Position::Ends => i == 0 || i + 1 == n,
                Position::First => i == 0,
                Position::Last => i + 1 == n,
                Position::Interior => i > 0 && i + 1 < n,
            };
            let each = cl.units / u64::from(cl.processors.max(1));
            let mut extra = cl.units % u64::from(cl.processors.max(1));
            for (_, p) in slots.iter_mut().enumerate().filter(|(i, _)| members(*i as u32)) {
                let count = each + u64::from(extra > 0);
                extra = extra.saturating_sub(1);
                p.fast_links = cl.fast_links;
                p.participates = cl.participates;
                if cl.participates {
                    p.count = count;
                    p.step_time = time(cl, cl.fixed, count, nf);
                    step = step.max(p.step_time);
                }
            }
            k += 1;
        }
        start += n as usize;
    }
    // Units are contiguous along the ring: clusters in ring order, processors in order.
    let mut at = 0u64;
    if order.is_searched() {
        for pos in 0..order.len() {
            let Some(c) = order.get(pos) else { continue };
            let first: usize = (0..c).map(|j| sizes(j) as usize).sum();
            for p in out.get_mut(first..first + sizes(c) as usize).unwrap_or(&mut []) {
                p.displacement = at;
                at += p.count;
            }
        }
    } else {
        for p in out.get_mut(..start).unwrap_or(&mut []) {
            p.displacement = at;
            at += p.count;
        }
    }
    step
}
