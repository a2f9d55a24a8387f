//! Rounding rational shares to integer counts with an exact sum.
//!
//! All three schemes give counts `n'ᵢ` with `Σ n'ᵢ = n` exactly and `|n'ᵢ − nᵢ| < 1`, so the
//! guarantee of genaud2003 eq. (4) holds for each: `T' ≤ T + Σⱼ T_comm(j, 1) +
//! maxᵢ T_comp(i, 1)`. A share that is exactly 0 stays 0.
//!
//! * [`Rounding::Paper`](crate::Rounding::Paper) — §3.3. The paper ends with
//!   `n'_k = n_k + e`; with `e = Σ (n'ⱼ − nⱼ)` over the shares already rounded, an exact
//!   sum needs `n'_k = n_k − e`. Here the last count is `n − Σ others` in integers.
//! * [`Rounding::LargestRemainder`](crate::Rounding::LargestRemainder) — floors, then +1 to
//!   the largest fractional parts.
//! * [`Rounding::Greedy`](crate::Rounding::Greedy) — floors, then each left-over item to
//!   the worker whose +1 gives the smallest makespan, counting the delay it causes to every
//!   worker served after it. Lazy evaluation over a range-add/range-max segment tree keeps
//!   it at O(p log p) in practice: taking an item can only raise the others' costs, so a
//!   stale key is a lower bound. Not on platforms of many alike workers, where each item
//!   makes every key stale (O(p²) evaluations): a budget of evaluations bounds the work,
//!   and the items left then go by largest remainder ([`GREEDY_EVALUATIONS_PER_WORKER`]).
//!
//! Scratch: the send order and shares are read from the plan, the costs at each position
//! from the columns the send order wrote (`col::LAMBDA`, `col::MU`); the other scratch
//! columns hold the sorted fractional parts, or the greedy's segment tree and heap
//! (`types::col`).

use core::cmp::Ordering;

use crate::kernel::columns::{Columns, SortColumns};
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::Rounding;
use crate::scatter::types::{col, Assignment, Costs, Scratch};

type Cols<'a, 'b, N> = &'a mut Columns<'b, Scratch<N>>;

/// Where the fractional parts are sorted: by their sort key, carrying the position.
const FRAC_SORT: SortColumns = SortColumns {
    key: col::FRAC_KEY,
    value: col::FRAC_POS,
    extra: None,
    counts: col::FRAC_COUNTS,
    spare: col::FRAC_SPARE,
};

/// Rounds `plan[..].share` into `plan[..].count`. Shares must be finite, ≥ 0, and add up to
/// `items` within 0.5 (checked by the public entry points).
pub(crate) fn round<N: Real>(
    scheme: Rounding,
    costs: &Costs<'_, N>,
    items: u64,
    plan: &mut [Assignment<N>],
    cols: Cols<'_, '_, N>,
) {
    let floors = set_floors(items, plan);
    let left = items.saturating_sub(floors);
    match scheme {
        Rounding::Paper => paper(items, plan, cols),
        Rounding::LargestRemainder => {
            if floors + largest_remainder(left, plan, cols) == items {
                return;
            }
        }
        Rounding::Greedy => {
            let rest = greedy(costs, left, plan, cols);
            // The greedy's budget ran out: the items left go to the largest remainders
            // among the shares it has not raised (those it raised have a negative one).
            largest_remainder(rest, plan, cols);
        }
    }
    fix_sum(items, plan);
}

/// Sets every count to the floor of its share; returns the sum of the floors (≤ `items`).
fn set_floors<N: Real>(items: u64, plan: &mut [Assignment<N>]) -> u64 {
    let mut sum = 0u64;
    for a in plan.iter_mut() {
        a.count = a.share.floor_u64().min(items.saturating_sub(sum));
        sum += a.count;
    }
    sum
}

fn frac<N: Real>(a: &Assignment<N>) -> N {
    a.share - N::from_u64(a.count)
}

/// Sorts the positions by increasing fractional part, ties by position, into the columns
/// `FRAC_KEY` (the fraction's sort key) and `FRAC_POS` (position).
fn sort_by_fraction<N: Real>(plan: &[Assignment<N>], cols: Cols<'_, '_, N>) {
    cols.sort(
        plan.len(),
        0,
        FRAC_SORT,
        |_, k| {
            let f = frac(&plan[k]);
            [f.sort_key(), k as u64, 0]
        },
        |cols, x, y| cols.get(col::FRAC_POS, x).cmp(&cols.get(col::FRAC_POS, y)),
    );
}

fn paper<N: Real>(items: u64, plan: &mut [Assignment<N>], cols: Cols<'_, '_, N>) {
    let p = plan.len();
    if p == 0 {
        return;
    }
    sort_by_fraction(plan, cols);
    let (mut lo, mut hi) = (0usize, p - 1);
    let mut e = N::ZERO; // Σ (n'ⱼ − nⱼ) over the shares rounded so far
    while lo < hi {
        let (f_lo, f_hi) =
            (N::from_sort_key(cols.get(col::FRAC_KEY, lo)), N::from_sort_key(cols.get(col::FRAC_KEY, hi)));
        let up = if e < N::ZERO {
            true
        } else if e > N::ZERO {
            false
        } else {
            // Start, or an exact running sum: round the share nearest to an integer.
            N::ONE - f_hi < f_lo
        };
        if up {
            let k = cols.index(col::FRAC_POS, hi);
            if f_hi > N::ZERO {
                if let Some(a) = plan.get_mut(k) {
                    a.count += 1;
                }
                e = e + (N::ONE - f_hi);
            }
            hi -= 1;
        } else {
            e = e - f_lo;
            lo += 1;
        }
    }
    // The last share takes what is left: n'_k = n_k − e, computed exactly in integers.
    let last = cols.index(col::FRAC_POS, lo);
    let others: u64 = plan.iter().enumerate().filter(|&(k, _)| k != last).map(|(_, a)| a.count).sum();
    let last_count = plan.get(last).map_or(0, |a| a.count);
    match items.checked_sub(others) {
        Some(c) if c <= last_count + 1 => {
            if let Some(a) = plan.get_mut(last) {
                a.count = c;
            }
        }
        // Only reachable if floating-point noise broke |e| < 1: fall back to a scheme whose
        // sum is exact by construction.
        _ => {
            let floors = set_floors(items, plan);
            largest_remainder(items.saturating_sub(floors), plan, cols);
        }
    }
}

/// +1 to the `left` largest fractional parts (ties: the later position), none to a
/// fraction of 0; returns how many it gave. Not a sort but a selection: a histogram of the
/// fractions, the bucket where the `left`-th largest falls, and a sort of that bucket
/// alone; two passes over the plan.
fn largest_remainder<N: Real>(left: u64, plan: &mut [Assignment<N>], cols: Cols<'_, '_, N>) -> u64 {
    let p = plan.len();
    if left == 0 || p == 0 {
        return 0;
    }
    // About a hundred fractions per bucket, so that the counts (at most 2^13 of them,
    // 64 KiB) stay in cache while they are counted; the one bucket that is then sorted
    // is small.
    let bits = (usize::BITS - 1 - p.leading_zeros()).saturating_sub(7).min(13);
    let top = (1usize << bits) - 1;
    let bucket = |f: N| {
        // Monotone in f, and linear in it: fractions are spread evenly over [0, 1), which
        // their bit patterns are not. A count clamped below its floor leaves a fraction
        // of 1 or more, which goes to the top bucket.
        let x = f.to_f64() * (top + 1) as f64;
        if x >= top as f64 {
            top
        } else if x > 0.0 {
            x as usize
        } else {
            0
        }
    };
    for b in 0..=top {
        cols.set(col::FRAC_COUNTS, b, 0);
    }
    for a in plan.iter() {
        let f = frac(a);
        if f > N::ZERO {
            let b = bucket(f);
            let v = cols.get(col::FRAC_COUNTS, b);
            cols.set(col::FRAC_COUNTS, b, v + 1);
        }
    }
    // The bucket holding the left-th largest fraction, and how many it must give.
    let (mut above, mut cut) = (0u64, None);
    for b in (0..=top).rev() {
        let here = cols.get(col::FRAC_COUNTS, b);
        if above + here >= left {
            cut = Some((b, left - above));
            break;
        }
        above += here;
    }
    let Some((cut, need)) = cut else {
        // Fewer positive fractions than items left (floating-point noise): +1 to each.
        for a in plan.iter_mut() {
            if frac(a) > N::ZERO {
                a.count += 1;
            }
        }
        return above;
    };
    let mut members = 0usize;
    for (k, a) in plan.iter_mut().enumerate() {
        let f = frac(a);
        if f > N::ZERO {
            let b = bucket(f);
            if b > cut {
                a.count += 1;
            } else if b == cut {
                cols.set(col::FRAC_SPARE[0], members, f.sort_key());
                cols.set(col::FRAC_SPARE[1], members, k as u64);
                members += 1;
            }
        }
    }
    cols.sort(
        members,
        0,
        FRAC_SORT,
        |cols, j| [cols.get(col::FRAC_SPARE[0], j), cols.get(col::FRAC_SPARE[1], j), 0],
        |cols, x, y| cols.get(col::FRAC_POS, x).cmp(&cols.get(col::FRAC_POS, y)),
    );
    for j in (members - need as usize..members).rev() {
        if let Some(a) = plan.get_mut(cols.index(col::FRAC_POS, j)) {
            a.count += 1;
        }
    }
    left
}

/// Makes the counts add up to `items` exactly. A no-op unless floating-point noise made the
/// shares add up to slightly less or more than `items`; then the largest count absorbs it.
fn fix_sum<N: Real>(items: u64, plan: &mut [Assignment<N>]) {
    let sum: u64 = plan.iter().fold(0u64, |s, a| s.saturating_add(a.count));
    if sum == items {
        return;
    }
    // The largest count, the first among equals.
    let Some(big) = plan.iter_mut().rev().max_by_key(|a| a.count) else { return };
    if sum < items {
        big.count += items - sum;
    } else {
        big.count = big.count.saturating_sub(sum - items);
    }
}

/// Candidate evaluations the greedy may spend: [`GREEDY_EVALUATIONS_PER_WORKER`] per
/// worker, and at least [`GREEDY_EVALUATIONS_MIN`].
///
/// Why a budget: each item taken delays every later position, so a stale heap key is
/// re-evaluated when it reaches the top. On platforms of random workers that is a few
/// evaluations per item (four to eight at 10⁶ workers), but when many workers are alike
/// every key is within the delay of the others and each item re-evaluates nearly all of
/// them: 20 000 identical workers took 11 s, and the work grows as p² (a million would
/// take days). The budget keeps every plan of `tests/golden.rs` (at most 3.5·10⁶
/// evaluations, `Ties` at 10⁴ workers) and of the random platforms of the benchmark, and
/// bounds the rest to about 2·10⁷ evaluations at the front ends' 2²⁰ workers.
const GREEDY_EVALUATIONS_PER_WORKER: u64 = 16;
const GREEDY_EVALUATIONS_MIN: u64 = 1 << 22;

#[cfg(test)]
std::thread_local! {
    /// A smaller budget for this thread's plans, so that a unit test reaches the fallback
    /// on a small platform.
    static BUDGET: core::cell::Cell<Option<u64>> = const { core::cell::Cell::new(None) };
}

fn greedy_budget(p: usize) -> u64 {
    #[cfg(test)]
    if let Some(b) = BUDGET.with(core::cell::Cell::get) {
        return b;
    }
    (p as u64).saturating_mul(GREEDY_EVALUATIONS_PER_WORKER).max(GREEDY_EVALUATIONS_MIN)
}

/// Places up to `left` items one at a time; returns how many it left when its budget of
/// evaluations ran out (0 otherwise, also when floating-point noise left fewer fractional
/// shares than items: [`fix_sum`] handles those).
fn greedy<N: Real>(
    costs: &Costs<'_, N>,
    left: u64,
    plan: &mut [Assignment<N>],
    cols: Cols<'_, '_, N>,
) -> u64 {
    let p = plan.len();
    if left == 0 || p == 0 {
        return 0;
    }
    let mut budget = greedy_budget(p);
    let mut tree = Tree { c: cols, n: p, h: usize::BITS - p.leading_zeros() };
    // Leaves: a participant's finish time, or a non-participant's start time (never above
    // the makespan that any query here would report, so harmless in a max).
    let mut sent = N::ZERO;
    for (k, a) in plan.iter().enumerate() {
        let w = costs.at(tree.c, k, || a.worker);
        let x = N::from_u64(a.count);
        let recv = w.comm_time(x);
        let leaf = if a.count > 0 { sent + recv + w.comp_time(x) } else { sent };
        sent = sent + recv;
        tree.set_t(p + k, leaf);
        tree.set_d(k, N::ZERO);
    }
    for i in (1..p).rev() {
        let v = tree.t(2 * i).max_of(tree.t(2 * i + 1));
        tree.set_t(i, v);
    }

    // Heap of candidates: shares with a fractional part get at most one extra item. Before
    // any item is taken the tree holds no additions, so each candidate's key comes from
    // one backward sweep (the latest finish after each position, kept in the heap entry
    // of the position's index until the forward sweep below reads it) instead of two tree
    // queries per position: the same maxima of the same values.
    let now = tree.t(1);
    let mut later = N::ZERO;
    for k in (0..p).rev() {
        tree.c.set_wide(col::HEAP, 3 * k + 1, later.to_word());
        later = later.max_of(tree.t(p + k));
    }
    let mut heap = Heap { len: 0 };
    for (k, a) in plan.iter().enumerate() {
        if frac(a) > N::ZERO {
            let w = costs.at(tree.c, k, || a.worker);
            let (own_rise, delay) = rise_and_delay(&w, a.count);
            let own = tree.t(p + k) + own_rise;
            let after = N::from_word(tree.c.wide(col::HEAP, 3 * k + 1)) + delay;
            // Slot `heap.len ≤ k`: the sweep's value there was read at its own position.
            heap.set(tree.c, heap.len, Entry { pos: k, best: now.max_of(own).max_of(after), own });
            heap.len += 1;
        }
    }
    for i in (0..heap.len / 2).rev() {
        heap.sift_down(tree.c, i);
    }

    let mut left = left;
    while left > 0 && heap.len > 0 {
        if budget == 0 {
            return left;
        }
        budget -= 1;
        let k = heap.get(tree.c, 0).pos;
        let c = candidate(&mut tree, costs, plan, k);
        let top = Entry { pos: k, best: c.makespan, own: c.own };
        heap.set(tree.c, 0, top);
        if heap.len > 1 && less(&heap.get(tree.c, heap.best_child(tree.c, 0)), &top) {
            // The key was stale and another candidate is now better.
            heap.sift_down(tree.c, 0);
            continue;
        }
        // Take it: +1 item at position k.
        tree.add(k, k + 1, c.own_rise);
        tree.add(k + 1, p, c.delay);
        if let Some(a) = plan.get_mut(k) {
            a.count += 1;
        }
        left -= 1;
        heap.len -= 1;
        let last = heap.get(tree.c, heap.len);
        heap.set(tree.c, 0, last);
        heap.sift_down(tree.c, 0);
    }
    // Items still left here mean floating-point noise left fewer fractional shares than
    // left-over items; `fix_sum` gives them to the largest share.
    0
}

struct Candidate<N> {
    makespan: N,
    own: N,
    own_rise: N,
    delay: N,
}

/// One more item at position `k`: the resulting makespan, k's own new finish time, the
/// rise of k's leaf and the delay to every later position.
fn candidate<N: Real>(
    tree: &mut Tree<'_, '_, N>,
    costs: &Costs<'_, N>,
    plan: &[Assignment<N>],
    k: usize,
) -> Candidate<N> {
    // `k` comes from the heap and is a position; `get` keeps the proof free of a panic path.
    let (worker, count) = plan.get(k).map_or((0, 0), |a| (a.worker, a.count));
    let w = costs.at(tree.c, k, || worker);
    let (own_rise, delay) = rise_and_delay(&w, count);
    let n = tree.n;
    let own = tree.max(k, k + 1) + own_rise;
    let after = tree.max(k + 1, n) + delay;
    // The root node holds the current maximum; k's own leaf and the later leaves only grow
    // by taking the item, so they are covered by `own` and `after`.
    let now = tree.t(1);
    Candidate { makespan: now.max_of(own).max_of(after), own, own_rise, delay }
}

/// What one more item costs a position holding `count` items: the rise of its own finish
/// time, and the delay to every later position.
fn rise_and_delay<N: Real>(w: &Worker<N>, count: u64) -> (N, N) {
    if count > 0 {
        (w.comm_per_item + w.comp_per_item, w.comm_per_item)
    } else {
        (
            w.comm_latency + w.comm_per_item + w.comp_latency + w.comp_per_item,
            w.comm_latency + w.comm_per_item,
        )
    }
}

/// Range-add, range-max segment tree (bottom-up, lazy), in three scratch columns
/// (`col::TREE`: internal node, lazy addition and leaf of each index together).
struct Tree<'a, 'b, N> {
    c: Cols<'a, 'b, N>,
    n: usize,
    h: u32,
}

impl<N: Real> Tree<'_, '_, N> {
    #[inline]
    fn t(&self, i: usize) -> N {
        if i < self.n {
            N::from_word(self.c.wide(col::TREE, 3 * i))
        } else {
            N::from_word(self.c.wide(col::TREE, 3 * (i - self.n) + 2))
        }
    }
    #[inline]
    fn set_t(&mut self, i: usize, v: N) {
        if i < self.n {
            self.c.set_wide(col::TREE, 3 * i, v.to_word());
        } else {
            self.c.set_wide(col::TREE, 3 * (i - self.n) + 2, v.to_word());
        }
    }
    #[inline]
    fn d(&self, i: usize) -> N {
        N::from_word(self.c.wide(col::TREE, 3 * i + 1))
    }
    #[inline]
    fn set_d(&mut self, i: usize, v: N) {
        self.c.set_wide(col::TREE, 3 * i + 1, v.to_word());
    }
    fn apply(&mut self, i: usize, v: N) {
        let t = self.t(i) + v;
        self.set_t(i, t);
        if i < self.n {
            let d = self.d(i) + v;
            self.set_d(i, d);
        }
    }
    fn build(&mut self, mut i: usize) {
        while i > 1 {
            i >>= 1;
            let v = self.t(2 * i).max_of(self.t(2 * i + 1)) + self.d(i);
            self.set_t(i, v);
        }
    }
    fn push(&mut self, i: usize) {
        for s in (1..=self.h).rev() {
            let j = i >> s;
            if j == 0 {
                continue;
            }
            let d = self.d(j);
            if d != N::ZERO {
                self.apply(2 * j, d);
                self.apply(2 * j + 1, d);
                self.set_d(j, N::ZERO);
            }
        }
    }
    /// Adds `v` to positions `l..r`.
    fn add(&mut self, l: usize, r: usize, v: N) {
        if l >= r {
            return;
        }
        let (mut l, mut r) = (l + self.n, r + self.n);
        let (l0, r0) = (l, r);
        while l < r {
            if l & 1 == 1 {
                self.apply(l, v);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.apply(r, v);
            }
            l >>= 1;
            r >>= 1;
        }
        self.build(l0);
        self.build(r0 - 1);
    }
    /// Maximum over positions `l..r`; 0 for an empty range (all values are ≥ 0).
    fn max(&mut self, l: usize, r: usize) -> N {
        if l >= r {
            return N::ZERO;
        }
        let (mut l, mut r) = (l + self.n, r + self.n);
        self.push(l);
        self.push(r - 1);
        let mut res = N::ZERO;
        while l < r {
            if l & 1 == 1 {
                res = res.max_of(self.t(l));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                res = res.max_of(self.t(r));
            }
            l >>= 1;
            r >>= 1;
        }
        res
    }
}

/// A heap candidate: a position that may take one more item, the makespan that would
/// result, and its own finish time then.
#[derive(Clone, Copy)]
struct Entry<N> {
    pos: usize,
    best: N,
    own: N,
}

/// Heap order: smaller resulting makespan first; on ties (most picks leave the makespan
/// where it is) the smaller own finish time, which favours the shares that lost most to
/// the floor; then the later position. Both keys only grow as items are taken, so a stale
/// entry is a lower bound and lazy evaluation picks what a full re-scan would.
#[inline]
fn less<N: Real>(a: &Entry<N>, b: &Entry<N>) -> bool {
    a.best.cmp_total(b.best).then(a.own.cmp_total(b.own)).then(b.pos.cmp(&a.pos)) == Ordering::Less
}

/// The candidates' binary heap, in three scratch columns, each entry's three words
/// together.
struct Heap {
    len: usize,
}

impl Heap {
    #[inline]
    fn get<N: Real>(&self, c: &Columns<'_, Scratch<N>>, i: usize) -> Entry<N> {
        Entry {
            pos: c.wide(col::HEAP, 3 * i) as usize,
            best: N::from_word(c.wide(col::HEAP, 3 * i + 1)),
            own: N::from_word(c.wide(col::HEAP, 3 * i + 2)),
        }
    }

    #[inline]
    fn set<N: Real>(&self, c: &mut Columns<'_, Scratch<N>>, i: usize, e: Entry<N>) {
        c.set_wide(col::HEAP, 3 * i, e.pos as u64);
        c.set_wide(col::HEAP, 3 * i + 1, e.best.to_word());
        c.set_wide(col::HEAP, 3 * i + 2, e.own.to_word());
    }

    #[inline]
    fn best_child<N: Real>(&self, c: &Columns<'_, Scratch<N>>, i: usize) -> usize {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        if r < self.len && less(&self.get(c, r), &self.get(c, l)) {
            r
        } else {
            l
        }
    }

    fn sift_down<N: Real>(&self, c: &mut Columns<'_, Scratch<N>>, mut i: usize) {
        let e = self.get(c, i);
        while 2 * i + 1 < self.len {
            let child = self.best_child(c, i);
            let ce = self.get(c, child);
            if !less(&ce, &e) {
                break;
            }
            self.set(c, i, ce);
            i = child;
        }
        self.set(c, i, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_max(v: &[f64], l: usize, r: usize) -> f64 {
        v[l..r].iter().copied().fold(0.0, f64::max)
    }

    /// Many identical workers make every heap key stale after each item: the greedy runs
    /// out of its budget and the items left go to the largest remainders. The plan stays a
    /// rounding of the shares (counts add up, each within one item of its share, eq. (4)
    /// holds); with a budget large enough it is the plain greedy's, and with a small one it
    /// is not (so the fallback did run).
    #[test]
    fn greedy_out_of_budget_finishes_by_largest_remainder() {
        use crate::{plan, Options, Problem, Root, Worker};
        let mut workers = std::vec![Worker::linear(1e-5, 0.01); 300];
        workers[0] = Worker::linear(0.0, 0.01);
        let problem = Problem {
            workers: &workers,
            root: Root::Fixed(0),
            items: 100_077,
            options: Options { rounding: Rounding::Greedy, ..Options::default() },
        };
        let run = |budget: Option<u64>| {
            BUDGET.with(|b| b.set(budget));
            let mut out = std::vec![Assignment::EMPTY; 300];
            let mut scratch = std::vec![Scratch::EMPTY; 300];
            let s = plan(&problem, &mut out, &mut scratch).unwrap();
            BUDGET.with(|b| b.set(None));
            (s, out)
        };
        let (full, full_out) = run(None);
        let (same, same_out) = run(Some(1 << 30));
        assert_eq!(full_out, same_out);
        assert_eq!(full.makespan, same.makespan);
        let (short, short_out) = run(Some(40));
        assert_ne!(short_out, full_out, "a budget of 40 evaluations ran out");
        assert_eq!(short_out.iter().map(|a| a.count).sum::<u64>(), 100_077);
        for a in &short_out {
            assert!((a.count as f64 - a.share).abs() < 1.0, "{a:?}");
        }
        assert!(short.makespan <= short.bound, "eq. (4): {} > {}", short.makespan, short.bound);
        assert!(short.makespan >= short.lower_bound);
        // The items given by the greedy before its budget ran out make the plan no worse
        // than largest remainder from the start on this platform.
        let lr = Problem {
            options: Options { rounding: Rounding::LargestRemainder, ..problem.options },
            ..problem
        };
        let mut out = std::vec![Assignment::EMPTY; 300];
        let mut scratch = std::vec![Scratch::EMPTY; 300];
        let lr = plan(&lr, &mut out, &mut scratch).unwrap();
        assert!(full.makespan <= short.makespan && short.makespan <= lr.makespan);
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn segment_tree_matches_naive() {
        let mut rnd = crate::num::xorshift(12345);
        for n in 1..40usize {
            let mut slots = [Scratch::<f64>::EMPTY; 40];
            let mut v = [0.0f64; 40];
            let mut cols = Columns::new(&mut slots[..n]);
            let mut tree = Tree { c: &mut cols, n, h: usize::BITS - n.leading_zeros() };
            for i in 0..n {
                v[i] = (rnd() % 100) as f64;
                tree.set_t(n + i, v[i]);
                tree.set_d(i, 0.0);
            }
            for i in (1..n).rev() {
                let m = tree.t(2 * i).max_of(tree.t(2 * i + 1));
                tree.set_t(i, m);
            }
            for _ in 0..200 {
                let a = (rnd() as usize) % (n + 1);
                let b = (rnd() as usize) % (n + 1);
                let (l, r) = (a.min(b), a.max(b));
                if rnd() % 2 == 0 {
                    let add = (rnd() % 10) as f64;
                    tree.add(l, r, add);
                    for x in &mut v[l..r] {
                        *x += add;
                    }
                } else {
                    assert_eq!(tree.max(l, r), naive_max(&v[..n], l, r), "n={n} [{l},{r})");
                }
            }
        }
    }
}
