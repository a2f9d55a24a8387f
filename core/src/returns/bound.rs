//! A certified upper bound on the throughput of *every* scenario of the return-messages
//! model (`docs/derivations/returns.md` §5), so every answer carries a gap.
//!
//! Valid for any participants and orders (α extended by 0): `α_i ≤ u_i = 1/(c_i + w_i + d_i)`
//! (the worker's own row); in full duplex `Σ c·α ≤ 1` (row of the worker sent last) and
//! `Σ d·α ≤ 1` (row of the worker returned first), hence `Σ (c + d)/2·α ≤ 1`; in half
//! duplex also `Σ (c + d)·α ≤ 1`. Each gives a fractional knapsack
//! `K(v) = max {Σ α : 0 ≤ α ≤ u, Σ v·α ≤ 1}` above ρ, and ρ ≤ min over the knapsacks.
//!
//! In floating point the bound must stay a bound, and a greedy knapsack subtracts. So each
//! `K(v)` is bounded through LP duality instead: for *any* λ ≥ 0,
//! `K(v) ≤ λ + Σ_i u_i·max(0, 1 − λ·v_i)` (weak duality; equality at λ = 1/v_f for the
//! item f where the greedy stops). λ is found by a weighted selection in plain `f64` (any
//! λ is valid, a good one is tight), then the right-hand side is evaluated with every
//! operation rounded outwards (`next_up`/`next_down` around each correctly rounded
//! result), which holds whatever the cancellation. No sort: the knapsacks' weights are
//! counted into histograms on their weights' bits, all knapsacks in the same passes over
//! the workers (issue 12), and only the bucket where each greedy stops is refined. A plan
//! whose send order already sorts every knapsack's weights (FIFO's forward rule with
//! `d = z·c`) skips even those passes: [`Stops`] finds the stops in the plan's own pass.
//!
//! Up to [`REFINED_BOUND_WORKERS`] workers the bound is also refined (returns.md §5,
//! `upper_bound_refined`): every scenario has a member s sent last and a member r
//! returned first, whose rows give `Σ c·α + (w_s + d_s)·α_s ≤ 1` and
//! `Σ d·α + (c_r + w_r)·α_r ≤ 1` (for s = r the one row `Σ (c + d)·α + w_s·α_s ≤ 1`), so
//! ρ ≤ max over (s, r) of the LP with those rows, the caps and (half duplex) the port
//! row. Each of the p² LPs is solved by the simplex only to find its
//! duals (λ, μ, η); the bound itself is the weak-duality value
//! `λ + μ + η + Σ u_i·max(0, 1 − λ·a_i − μ·b_i − η·h_i)` rounded outwards, valid for any
//! duals. On the slides' platform B (full duplex) this gives 301/3420 ≈ 0.088 against the
//! knapsacks' 121/1008 ≈ 0.120, for an optimum of 38/499 ≈ 0.076.

use core::ops::Add;

use crate::kernel::fp::{next_down, next_up};
use crate::kernel::lp::{tableau_len, Tableau};
use crate::num::Real;
use crate::returns::types::{Cols, Port, ReturnWorker};

/// Knapsacks at most: `c`, `d`, `(c + d)/2`, and in half duplex `c + d`.
pub(crate) const KNAPSACKS: usize = 4;
/// The knapsacks of a port: the first three, and in half duplex also `c + d`.
const fn knapsacks(port: Port) -> usize {
    if matches!(port, Port::HalfDuplex) {
        KNAPSACKS
    } else {
        KNAPSACKS - 1
    }
}

/// Buckets of a histogram at most (2^8, one column's first words).
const BUCKET_BITS: u32 = 8;

/// An upper bound on ρ over every scenario, certified in floating point (`+∞` only if a
/// cost is so small that `1/(c + w + d)` overflows). `cols` has one word per worker in each
/// column; whatever they held is overwritten.
///
/// `known`: the stops a [`Stops`] scan found already, which the selection then skips.
pub(crate) fn throughput_bound<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    cols: &mut Cols<'_>,
    known: Option<[Option<f64>; KNAPSACKS]>,
) -> f64 {
    let used = knapsacks(port);
    let stops = match known {
        Some(stops) => stops,
        None => stop_keys(workers, used, cols),
    };
    let mut lambda = [0.0f64; KNAPSACKS];
    for (l, stop) in lambda.iter_mut().zip(stops) {
        if let Some(v) = stop {
            *l = 1.0 / v;
        }
    }
    let mut total = [0.0f64; KNAPSACKS];
    for w in workers {
        let u = cap_above(w);
        let v = weights(w);
        for j in 0..used {
            let lv = next_down(lambda[j] * v[j]);
            if lv < 1.0 {
                total[j] = next_up(total[j] + next_up(u * next_up(1.0 - lv)));
            }
        }
    }
    let mut best = f64::INFINITY;
    for j in 0..used {
        best = best.min(next_up(lambda[j] + total[j]));
    }
    best.min(refined(workers, port))
}

/// Largest platform for the refined bound: p² LPs of p + 3 rows (64 at p = 8, well under a
/// millisecond), on a stack tableau.
pub const REFINED_BOUND_WORKERS: usize = 8;

const REFINED_TABLEAU: usize = match tableau_len(REFINED_BOUND_WORKERS + 3, REFINED_BOUND_WORKERS) {
    Some(n) => n,
    None => 0,
};

/// Worker i's coefficients in the rows of s (sent last) and r (returned first), with
/// `add` as the addition (rounded down for the certificate): for s ≠ r,
/// `c_i (+ w_s + d_s)` and `d_i (+ c_r + w_r)`; for s = r the one row `c_i + d_i (+ w_s)`
/// and an empty second row.
fn coefficients(
    c: f64,
    w: f64,
    d: f64,
    i: usize,
    s: usize,
    r: usize,
    add: impl Fn(f64, f64) -> f64,
) -> (f64, f64) {
    if s == r {
        let both = add(c, d);
        (if i == s { add(both, w) } else { both }, 0.0)
    } else {
        (if i == s { add(add(c, w), d) } else { c }, if i == r { add(add(d, c), w) } else { d })
    }
}

/// The refined bound (see the module's docs); `+∞` beyond [`REFINED_BOUND_WORKERS`] or if
/// an LP fails, which leaves the knapsack bounds in charge.
fn refined<N: Real>(workers: &[ReturnWorker<N>], port: Port) -> f64 {
    let p = workers.len();
    if p > REFINED_BOUND_WORKERS {
        return f64::INFINITY;
    }
    let hd = port == Port::HalfDuplex;
    let cost = |i: usize| {
        workers.get(i).map_or((0.0, 1.0, 0.0), |w| {
            (w.comm_per_item.to_f64(), w.comp_per_item.to_f64(), w.return_per_item.to_f64())
        })
    };
    let mut buf = [0.0f64; REFINED_TABLEAU];
    let mut worst = 0.0f64;
    for s in 0..p {
        for r in 0..p {
            let Ok(mut t) = Tableau::new(p + 2 + usize::from(hd), p, &mut buf) else {
                return f64::INFINITY;
            };
            // Every variable has a cap row.
            t.known_bounded();
            for i in 0..p {
                let (c, w, d) = cost(i);
                // Variables β_i = α_i/u_i ∈ [0, 1] keep the columns comparable.
                let u = 1.0 / (c + w + d);
                let (a, b) = coefficients(c, w, d, i, s, r, f64::add);
                t.set(i, i, 1.0);
                t.set(p, i, a * u);
                t.set(p + 1, i, b * u);
                if hd {
                    t.set(p + 2, i, (c + d) * u);
                }
                t.set_objective(i, u);
            }
            for row in 0..p + 2 + usize::from(hd) {
                t.set_rhs(row, 1.0);
            }
            if t.maximise().is_err() {
                return f64::INFINITY;
            }
            let (lambda, mu) = (t.dual(p).max(0.0), t.dual(p + 1).max(0.0));
            let eta = if hd { t.dual(p + 2).max(0.0) } else { 0.0 };
            let mut total = 0.0f64;
            for i in 0..p {
                let (c, w, d) = cost(i);
                // Lower bounds on the row coefficients, so 1 − λa − μb − ηh is bounded above.
                let (a, b) = coefficients(c, w, d, i, s, r, |x, y| next_down(x + y));
                let h = next_down(c + d);
                let used =
                    next_down(next_down(next_down(lambda * a) + next_down(mu * b)) + next_down(eta * h));
                if used < 1.0 {
                    let cap = workers.get(i).map_or(f64::INFINITY, cap_above);
                    total = next_up(total + next_up(cap * next_up(1.0 - used)));
                }
            }
            worst = worst.max(next_up(next_up(next_up(lambda + mu) + eta) + total));
        }
    }
    if worst > 0.0 {
        worst
    } else {
        f64::INFINITY
    }
}

/// Lower bounds on each knapsack's weights, from exact `f64` costs (lower bounds on the
/// exact weights are what makes the result an upper bound).
#[inline]
fn weights<N: Real>(w: &ReturnWorker<N>) -> [f64; KNAPSACKS] {
    let (c, d) = (w.comm_per_item.to_f64(), w.return_per_item.to_f64());
    let cd = next_down(c + d);
    [c, d, next_down(cd * 0.5), cd]
}

/// `u_i` rounded up: `1/(c + w + d)` with the sum rounded down first.
fn cap_above<N: Real>(w: &ReturnWorker<N>) -> f64 {
    let sum = next_down(
        next_down(w.comm_per_item.to_f64() + w.comp_per_item.to_f64()) + w.return_per_item.to_f64(),
    );
    if sum > 0.0 {
        next_up(1.0 / sum)
    } else {
        f64::INFINITY
    }
}

/// The order of `f64::total_cmp` as unsigned integers.
#[inline]
pub(crate) fn total_key(x: f64) -> u64 {
    let b = x.to_bits();
    // Negative: every bit flipped; otherwise the sign bit set. Without a branch, as the
    // sign is random where remainders are keyed (issue 12).
    b ^ ((b as i64 >> 63) as u64 | 1 << 63)
}

/// Each knapsack's share of one worker: its key (the weight `v`, ordered as
/// `f64::total_cmp`) and the budget a whole item uses (`v/(c + w + d)`).
#[inline]
fn items<N: Real>(w: &ReturnWorker<N>) -> ([u64; KNAPSACKS], [f64; KNAPSACKS]) {
    let v = weights(w);
    let total = w.total().to_f64();
    (v.map(total_key), v.map(|x| x / total))
}

/// Finds the greedy stops of the knapsacks (see [`stop_keys`]) from the workers visited in
/// an order where every knapsack's weights never decrease: a prefix sum of the budgets up
/// to the item where they reach 1. A plan visits its send positions in order anyway
/// (`integer::finish`), and for FIFO's forward rule with `d = z·c` that order, by
/// increasing `c`, sorts every knapsack: its plan then needs none of the selection's three
/// passes over the workers (issue 12). The order is checked, not assumed: a weight that
/// decreases anywhere leaves the selection in charge, as before.
///
/// The prefix sum adds the same budgets as the selection's histograms in another order,
/// so where the budget reaches 1 within rounding of an item's edge the two may stop at
/// neighbouring weights; either λ gives a valid bound (module documentation).
#[derive(Clone, Copy)]
pub(crate) struct Stops {
    /// Every knapsack's weights so far in order.
    sorted: bool,
    /// Some knapsack is short of its stop.
    summing: bool,
    /// The last keys seen.
    last: [u64; KNAPSACKS],
    /// Budget used by the items before, until the stop.
    before: [f64; KNAPSACKS],
    /// The stop's weight once `reached` (0 before): no `Option`, whose `None` payload the
    /// optimiser may compare before the tag, a branch valgrind reports (the C tests).
    stop: [f64; KNAPSACKS],
    reached: [bool; KNAPSACKS],
}

impl Stops {
    pub(crate) const fn new() -> Self {
        Stops {
            sorted: true,
            summing: true,
            last: [0; KNAPSACKS],
            before: [0.0; KNAPSACKS],
            stop: [0.0; KNAPSACKS],
            reached: [false; KNAPSACKS],
        }
    }

    /// The next worker in the visiting order. Every knapsack is checked, the half-duplex
    /// one too, whose order is the order of `(c + d)/2` anyway.
    pub(crate) fn visit<N: Real>(&mut self, w: &ReturnWorker<N>) {
        if !self.sorted {
            return;
        }
        let v = weights(w);
        let keys = v.map(total_key);
        self.sorted = keys.iter().zip(&self.last).all(|(key, last)| key >= last);
        self.last = keys;
        if self.summing && self.sorted {
            self.sum(w, v);
        }
    }

    /// Adds the budgets of the knapsacks short of their stop; only until every stop is
    /// reached, which the first few hundred workers usually do.
    #[inline(never)]
    fn sum<N: Real>(&mut self, w: &ReturnWorker<N>, v: [f64; KNAPSACKS]) {
        let total = w.total().to_f64();
        self.summing = false;
        let knapsacks = self.stop.iter_mut().zip(&mut self.reached).zip(&mut self.before).zip(v);
        for (((stop, reached), before), v) in knapsacks {
            if !*reached {
                let budget = v / total;
                if *before + budget >= 1.0 {
                    // A weight of 0 is no stop, as in `narrow`; it still ends the sum.
                    (*stop, *reached) = (v, true);
                } else {
                    *before += budget;
                    self.summing = true;
                }
            }
        }
    }

    /// The stops, if every knapsack's weights came in order.
    pub(crate) fn all(&self) -> Option<[Option<f64>; KNAPSACKS]> {
        self.sorted.then(|| self.stop.map(|v| (v > 0.0).then_some(v)))
    }
}

/// For each of the first `used` knapsacks, the weight `v_f > 0` of the item where the
/// greedy stops: the smallest `v` such that the items of weight up to `v` use the budget 1
/// (`None` when every item fits).
///
/// Three passes over the workers for all knapsacks together: the keys' range, then a
/// histogram of budget per bucket of the range, then the indices of the workers in each
/// knapsack's stopping bucket (column `j` for knapsack `j`); each bucket is then narrowed
/// by histograms of its own until its keys are equal.
fn stop_keys<N: Real>(
    workers: &[ReturnWorker<N>],
    used: usize,
    cols: &mut Cols<'_>,
) -> [Option<f64>; KNAPSACKS] {
    let p = workers.len();
    let mut lo = [u64::MAX; KNAPSACKS];
    let mut hi = [0u64; KNAPSACKS];
    for w in workers {
        let (key, _) = items(w);
        for j in 0..used {
            lo[j] = lo[j].min(key[j]);
            hi[j] = hi[j].max(key[j]);
        }
    }
    // Fewer buckets than workers, so the histograms fit in the columns' first words.
    let most = (usize::BITS - 1 - p.max(1).leading_zeros()).min(BUCKET_BITS);
    let shape: [Buckets; KNAPSACKS] = core::array::from_fn(|j| Buckets::new(lo[j], hi[j], most));
    for (j, shape) in shape.iter().enumerate().take(used) {
        for b in 0..shape.count() {
            cols.set(j, b, 0);
        }
    }
    for w in workers {
        let (key, budget) = items(w);
        for j in 0..used {
            let b = shape[j].of(key[j]);
            let sum = f64::from_bits(cols.get(j, b)) + budget[j];
            cols.set(j, b, sum.to_bits());
        }
    }
    let mut target = [Target::Fits; KNAPSACKS];
    for j in 0..used {
        let mut before = 0.0f64;
        for b in 0..shape[j].count() {
            let here = f64::from_bits(cols.get(j, b));
            if before + here >= 1.0 {
                target[j] = Target::In { bucket: b, budget: 1.0 - before };
                break;
            }
            before += here;
        }
    }
    let mut found = [0usize; KNAPSACKS];
    for (i, w) in workers.iter().enumerate() {
        let (key, _) = items(w);
        for j in 0..used {
            if let Target::In { bucket, .. } = target[j] {
                if shape[j].of(key[j]) == bucket {
                    cols.set(j, found[j], i as u64);
                    found[j] += 1;
                }
            }
        }
    }
    let mut stops = [None; KNAPSACKS];
    for j in 0..used {
        if let Target::In { bucket, budget } = target[j] {
            let (lo, hi) = shape[j].range(bucket);
            stops[j] = narrow(workers, cols, j, found[j], lo, hi, budget, most);
        }
    }
    stops
}

#[derive(Clone, Copy)]
enum Target {
    /// Every item fits (or rounding lost the crossing): λ = 0, still a bound.
    Fits,
    /// The greedy stops in this bucket with this much budget left at its start.
    In { bucket: usize, budget: f64 },
}

/// Buckets over keys `lo..=hi`: the top bits of `key − lo`.
#[derive(Clone, Copy)]
struct Buckets {
    lo: u64,
    hi: u64,
    shift: u32,
    bits: u32,
}

impl Buckets {
    fn new(lo: u64, hi: u64, most: u32) -> Self {
        let span_bits = u64::BITS - hi.saturating_sub(lo).leading_zeros();
        let bits = most.min(span_bits);
        Buckets { lo, hi, shift: span_bits - bits, bits }
    }

    fn count(&self) -> usize {
        1 << self.bits
    }

    /// The bucket of `key`; keys outside `lo..=hi` give a bucket no key inside has.
    #[inline]
    fn of(&self, key: u64) -> usize {
        if key < self.lo || key > self.hi {
            usize::MAX
        } else if self.bits == 0 {
            0
        } else {
            ((key - self.lo) >> self.shift) as usize
        }
    }

    fn range(&self, b: usize) -> (u64, u64) {
        let start = self.lo + ((b as u64) << self.shift);
        let width = if self.shift == 0 { 0 } else { (1u64 << self.shift) - 1 };
        (start, start.saturating_add(width).min(self.hi))
    }
}

/// Narrows knapsack `j`'s stopping bucket (`n` worker indices in column `j`, keys in
/// `lo..=hi`, `budget` left at its start) until one key remains; column 4 holds each
/// round's histogram. `None` if rounding lost the crossing.
#[allow(clippy::too_many_arguments)]
fn narrow<N: Real>(
    workers: &[ReturnWorker<N>],
    cols: &mut Cols<'_>,
    j: usize,
    mut n: usize,
    mut lo: u64,
    mut hi: u64,
    mut budget: f64,
    most: u32,
) -> Option<f64> {
    const HISTOGRAM: usize = 4;
    let item = |cols: &Cols<'_>, t: usize| {
        let w = workers.get(cols.index(j, t)).copied()?;
        let (key, budget) = items(&w);
        Some((*key.get(j)?, *budget.get(j)?))
    };
    while lo < hi {
        let shape = Buckets::new(lo, hi, most);
        for b in 0..shape.count() {
            cols.set(HISTOGRAM, b, 0);
        }
        for t in 0..n {
            let (key, w) = item(cols, t)?;
            let b = shape.of(key);
            let sum = f64::from_bits(cols.get(HISTOGRAM, b)) + w;
            cols.set(HISTOGRAM, b, sum.to_bits());
        }
        let mut before = 0.0f64;
        let mut chosen = None;
        for b in 0..shape.count() {
            let here = f64::from_bits(cols.get(HISTOGRAM, b));
            if before + here >= budget {
                chosen = Some(b);
                break;
            }
            before += here;
        }
        let b = chosen?;
        budget -= before;
        (lo, hi) = shape.range(b);
        let mut kept = 0;
        for t in 0..n {
            let (key, _) = item(cols, t)?;
            if shape.of(key) == b {
                let i = cols.get(j, t);
                cols.set(j, kept, i);
                kept += 1;
            }
        }
        n = kept;
    }
    let v = if lo >> 63 == 1 { f64::from_bits(lo & !(1 << 63)) } else { f64::from_bits(!lo) };
    (v > 0.0).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::returns::types::Scratch;

    /// A scan that visits the workers in an order that sorts every knapsack's weights finds
    /// the selection's stops, bit for bit, and in any other order nothing: orders by `c`
    /// (every knapsack in order when `d = z·c`), by `c + d` (LIFO's) and the input order,
    /// on platforms with and without `d ∝ c`.
    #[test]
    fn stops_found_in_order_are_the_selections() {
        let mut rnd = crate::num::xorshift(17);
        let mut unit = move || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        let mut known_seen = [0usize; KNAPSACKS];
        for case in 0..600 {
            let p = 1 + case % 150;
            let z = [0.5, 3.0, -1.0][case % 3];
            let mut workers = [ReturnWorker::new(0.0, 1.0, 0.0); 150];
            for w in workers.iter_mut().take(p) {
                // Costs that leave some knapsacks with room to spare at small p.
                let c = 0.01 + unit() * [1.0, 0.05][case / 3 % 2];
                let d = if z > 0.0 { c * z } else { 0.01 + unit() };
                *w = ReturnWorker::new(c, 0.2 + unit(), d);
            }
            // Ties in the keys, too.
            if case % 5 == 0 && p > 3 {
                workers[1] = workers[0];
                workers[3] = workers[2];
            }
            let workers = &workers[..p];
            let mut scratch = [Scratch::EMPTY; 150];
            let selected = stop_keys(workers, KNAPSACKS, &mut Cols::new(&mut scratch[..p]));
            let mut order: [usize; 150] = core::array::from_fn(|i| i);
            let order = &mut order[..p];
            match case / 6 % 3 {
                0 => order.sort_by(|&a, &b| workers[a].comm_per_item.total_cmp(&workers[b].comm_per_item)),
                1 => order.sort_by(|&a, &b| {
                    let s = |i: usize| workers[i].comm_per_item + workers[i].return_per_item;
                    s(a).total_cmp(&s(b))
                }),
                _ => {}
            }
            let mut scan = Stops::new();
            for &i in order.iter() {
                scan.visit(&workers[i]);
            }
            let in_order = (0..KNAPSACKS).all(|j| {
                let key = |i: usize| total_key(weights(&workers[i])[j]);
                order.windows(2).all(|a| key(a[0]) <= key(a[1]))
            });
            let found = scan.all();
            assert_eq!(found.is_some(), in_order, "case {case}");
            if let Some(stops) = found {
                for j in 0..KNAPSACKS {
                    assert_eq!(
                        stops[j].map(f64::to_bits),
                        selected[j].map(f64::to_bits),
                        "case {case}, knapsack {j}"
                    );
                    known_seen[j] += usize::from(stops[j].is_some());
                }
            }
        }
        assert!(known_seen.iter().all(|&n| n > 10), "{known_seen:?}");
    }

    #[test]
    fn total_key_orders_as_total_cmp() {
        let mut rnd = crate::num::xorshift(5);
        let special = [0.0, -0.0, f64::from_bits(1), -f64::from_bits(1), 1.0, -1.0, f64::MAX, f64::MIN];
        let special = special.into_iter().chain([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN]);
        let mut values = [0.0; 1012];
        for (x, s) in values.iter_mut().zip(special.chain(core::iter::repeat_with(|| f64::from_bits(rnd()))))
        {
            *x = s;
        }
        for a in values {
            let flipped = if a.to_bits() >> 63 == 1 { !a.to_bits() } else { a.to_bits() | 1 << 63 };
            assert_eq!(total_key(a), flipped);
            for b in values.iter().step_by(7) {
                assert_eq!(total_key(a).cmp(&total_key(*b)), a.total_cmp(b), "{a:e} {b:e}");
            }
        }
    }
}
