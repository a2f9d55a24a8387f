//! The BIASED distribution in closed form over classes (heien §3, eqs. 6–8 and 12–15
//! solved once for all patterns): equal step times `a_k·F_k + b_k = T` with
//! `Σ n_k·F_k = 1` give
//!
//! `T = (1 + Σ n_k·b_k/a_k) / Σ n_k/a_k`,  `F_k = (T − b_k)/a_k`.
//!
//! A class with `b_k > T` would need a negative fraction: its fixed time alone exceeds the
//! common step time. Leaving it out lowers `T` (with `w = n/a`, removing class `j` gives
//! `T' = T − w_j·(b_j − T)/(W − w_j)`), so classes that were out stay out, and the classes
//! that take part are those with the smallest `b`: sorted by `b`, the answer is the prefix
//! whose `T` is smallest (`T` falls while the next `b` is below it and rises after).
//! Sorting once makes it O(C log C) for C classes. Also the EVEN baseline (eq. 5).

use super::types::Class;
use crate::kernel::sort::sort_by;
use core::cmp::Ordering;

/// The rational BIASED solution over the classes that take part.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    /// The common step time `T` as computed.
    pub step: f64,
    /// Roundings behind `step` on non-negative terms, given `param_ops` behind each class's
    /// `a` and `b` together: per class `n·b/a` and its sum, `n/a` and its sum, then the
    /// quotient (Higham Lemma 3.3: the counts of a product or quotient add).
    pub ops: u64,
    /// Classes left out.
    pub dropped: usize,
}

/// Solves over `classes` (reordered: by cluster, then position), setting `fraction` and
/// `participates`. `param_ops` counts the roundings behind one class's `a` and `b`.
pub(crate) fn solve(classes: &mut [Class], param_ops: u64) -> Split {
    sort_by(classes, |x, y| x.fixed.total_cmp(&y.fixed) == Ordering::Less);
    let (mut num, mut den) = (1.0f64, 0.0f64);
    let (mut best, mut keep) = (f64::INFINITY, 0usize);
    for (m, c) in classes.iter().enumerate() {
        let n = f64::from(c.processors);
        num += n * c.fixed / c.per_load;
        den += n / c.per_load;
        let t = num / den;
        if t < best {
            best = t;
            keep = m + 1;
        }
    }
    for (m, c) in classes.iter_mut().enumerate() {
        c.participates = m < keep;
        c.fraction = if c.participates { ((best - c.fixed) / c.per_load).max(0.0) } else { 0.0 };
    }
    by_cluster(classes);
    let terms = classes.len() as u64;
    Split { step: best, ops: 2 * (param_ops + 2) + 2 * terms + 2, dropped: classes.len() - keep }
}

/// The paper's split for the sort (§3.2, L162, eq. 15 corrected): `F_k ∝ 1/a_k` over the
/// classes that take part, ignoring `b`; returns the slowest class's `a·F + b`.
pub(crate) fn split_ignoring_fixed(classes: &mut [Class]) -> f64 {
    let mut den = 0.0;
    for c in classes.iter().filter(|c| c.participates) {
        den += f64::from(c.processors) / c.per_load;
    }
    let mut step = 0.0f64;
    for c in classes.iter_mut().filter(|c| c.participates) {
        c.fraction = 1.0 / (den * c.per_load);
        step = step.max(c.per_load * c.fraction + c.fixed);
    }
    step
}

/// The EVEN distribution's step time over every class with `processors` processors in all:
/// `max_k (a_k/P + b_k)` (eq. 5, for whichever classes are present).
pub(crate) fn even_step(classes: &[Class], processors: u64) -> f64 {
    let p = processors as f64;
    classes.iter().map(|c| c.per_load / p + c.fixed).fold(0.0, f64::max)
}

/// Sorts classes by cluster, then by position within it: the order of the output.
pub(crate) fn by_cluster(classes: &mut [Class]) {
    sort_by(classes, |x, y| (x.cluster, x.position) < (y.cluster, y.position));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multicluster::types::Position;

    fn class(n: u32, a: f64, b: f64, cluster: usize) -> Class {
        Class { cluster, position: Position::Whole, processors: n, per_load: a, fixed: b, ..Class::EMPTY }
    }

    #[test]
    fn a_class_whose_fixed_time_exceeds_t_is_left_out() {
        // Alone, two processors with a = 1, b = 0 take 0.5; a third with b = 0.9 would
        // need a negative fraction ((1 + 0.9)/3 = 0.633 < 0.9).
        let mut cs = [class(1, 1.0, 0.9, 0), class(2, 1.0, 0.0, 1)];
        let s = solve(&mut cs, 0);
        assert_eq!(s.step, 0.5);
        assert_eq!(s.dropped, 1);
        assert_eq!(cs[0].cluster, 0);
        assert!(!cs[0].participates && cs[1].participates);
        assert_eq!(cs[1].fraction, 0.5);
        assert_eq!(even_step(&cs, 3), 1.0 / 3.0 + 0.9);
    }
}
