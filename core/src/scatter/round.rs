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
//!   stale key is a lower bound.
//!
//! Scratch: the send order and shares are read from the plan, so the `Scratch` slots are
//! free space here, reused under the star solver's field names:
//!
//! | use | fields |
//! |---|---|
//! | sort by fractional part | `link` (position), `share` (key) |
//! | greedy: segment tree | `line_c` (internal nodes `t[i]`), `line_r` (leaves `t[p + i]`), `reaching` (lazy adds) |
//! | greedy: heap of candidates | `link` (position), `best` (resulting makespan), `share` (its own finish) |

use core::cmp::Ordering;

use crate::num::Real;
use crate::scatter::options::{Costs, Rounding};
use crate::scatter::types::{Assignment, Scratch};

/// Rounds `plan[..].share` into `plan[..].count`. Shares must be finite, ≥ 0, and add up to
/// `items` within 0.5 (checked by the public entry points).
pub(crate) fn round<N: Real>(
    scheme: Rounding,
    costs: &Costs<'_, N>,
    items: u64,
    plan: &mut [Assignment<N>],
    slots: &mut [Scratch<N>],
) {
    let floors = set_floors(items, plan);
    let left = items.saturating_sub(floors);
    match scheme {
        Rounding::Paper => paper(items, plan, slots),
        Rounding::LargestRemainder => largest_remainder(left, plan, slots),
        Rounding::Greedy => greedy(costs, left, plan, slots),
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

/// Fills `slots[i]` with (position, fractional part), sorted by increasing fraction, ties
/// by position.
fn sort_by_fraction<N: Real>(plan: &[Assignment<N>], slots: &mut [Scratch<N>]) {
    for (k, (s, a)) in slots.iter_mut().zip(plan).enumerate() {
        s.link = k;
        s.share = frac(a);
    }
    slots.sort_unstable_by(|a, b| a.share.cmp_total(b.share).then(a.link.cmp(&b.link)));
}

fn paper<N: Real>(items: u64, plan: &mut [Assignment<N>], slots: &mut [Scratch<N>]) {
    let p = plan.len();
    if p == 0 {
        return;
    }
    sort_by_fraction(plan, slots);
    let (mut lo, mut hi) = (0usize, p - 1);
    let mut e = N::ZERO; // Σ (n'ⱼ − nⱼ) over the shares rounded so far
    while lo < hi {
        let (f_lo, f_hi) = (slots[lo].share, slots[hi].share);
        let up = if e < N::ZERO {
            true
        } else if e > N::ZERO {
            false
        } else {
            // Start, or an exact running sum: round the share nearest to an integer.
            N::ONE - f_hi < f_lo
        };
        if up {
            let k = slots[hi].link;
            if f_hi > N::ZERO {
                plan[k].count += 1;
                e = e + (N::ONE - f_hi);
            }
            hi -= 1;
        } else {
            e = e - f_lo;
            lo += 1;
        }
    }
    // The last share takes what is left: n'_k = n_k − e, computed exactly in integers.
    let last = slots[lo].link;
    let others: u64 = plan.iter().enumerate().filter(|&(k, _)| k != last).map(|(_, a)| a.count).sum();
    match items.checked_sub(others) {
        Some(c) if c <= plan[last].count + 1 => plan[last].count = c,
        // Only reachable if floating-point noise broke |e| < 1: fall back to a scheme whose
        // sum is exact by construction.
        _ => {
            let floors = set_floors(items, plan);
            largest_remainder(items.saturating_sub(floors), plan, slots);
        }
    }
}

fn largest_remainder<N: Real>(left: u64, plan: &mut [Assignment<N>], slots: &mut [Scratch<N>]) {
    sort_by_fraction(plan, slots);
    let mut left = left;
    for s in slots.iter().rev() {
        if left == 0 || s.share <= N::ZERO {
            break;
        }
        plan[s.link].count += 1;
        left -= 1;
    }
}

/// Makes the counts add up to `items` exactly. A no-op unless floating-point noise made the
/// shares add up to slightly less or more than `items`; then the largest count absorbs it.
fn fix_sum<N: Real>(items: u64, plan: &mut [Assignment<N>]) {
    let sum: u64 = plan.iter().fold(0u64, |s, a| s.saturating_add(a.count));
    if sum == items {
        return;
    }
    let Some(big) = (0..plan.len()).max_by(|&i, &j| plan[i].count.cmp(&plan[j].count).then(j.cmp(&i))) else {
        return;
    };
    if sum < items {
        plan[big].count += items - sum;
    } else {
        plan[big].count = plan[big].count.saturating_sub(sum - items);
    }
}

fn greedy<N: Real>(costs: &Costs<'_, N>, left: u64, plan: &mut [Assignment<N>], slots: &mut [Scratch<N>]) {
    let p = plan.len();
    if left == 0 || p == 0 {
        return;
    }
    let mut tree = Tree { s: slots, n: p, h: usize::BITS - p.leading_zeros() };
    // Leaves: a participant's finish time, or a non-participant's start time (never above
    // the makespan that any query here would report, so harmless in a max).
    let mut sent = N::ZERO;
    for (k, a) in plan.iter().enumerate() {
        let w = costs.of(a.worker);
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

    // Heap of candidates: shares with a fractional part get at most one extra item.
    let mut len = 0usize;
    for k in 0..p {
        if frac(&plan[k]) > N::ZERO {
            let c = candidate(&mut tree, costs, plan, k);
            tree.s[len].link = k;
            tree.s[len].best = c.makespan;
            tree.s[len].share = c.own;
            len += 1;
        }
    }
    for i in (0..len / 2).rev() {
        sift_down(tree.s, len, i);
    }

    let mut left = left;
    while left > 0 && len > 0 {
        let k = tree.s[0].link;
        let c = candidate(&mut tree, costs, plan, k);
        tree.s[0].best = c.makespan;
        tree.s[0].share = c.own;
        if len > 1 && less(&tree.s[best_child(tree.s, len, 0)], &tree.s[0]) {
            // The key was stale and another candidate is now better.
            sift_down(tree.s, len, 0);
            continue;
        }
        // Take it: +1 item at position k.
        tree.add(k, k + 1, c.own_rise);
        tree.add(k + 1, p, c.delay);
        plan[k].count += 1;
        left -= 1;
        len -= 1;
        swap_entries(tree.s, 0, len);
        sift_down(tree.s, len, 0);
    }
    // Items still left here mean floating-point noise left fewer fractional shares than
    // left-over items; `fix_sum` gives them to the largest share.
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
    tree: &mut Tree<'_, N>,
    costs: &Costs<'_, N>,
    plan: &[Assignment<N>],
    k: usize,
) -> Candidate<N> {
    let w = costs.of(plan[k].worker);
    let (own_rise, delay) = if plan[k].count > 0 {
        (w.comm_per_item + w.comp_per_item, w.comm_per_item)
    } else {
        (
            w.comm_latency + w.comm_per_item + w.comp_latency + w.comp_per_item,
            w.comm_latency + w.comm_per_item,
        )
    };
    let n = tree.n;
    let own = tree.max(k, k + 1) + own_rise;
    let after = tree.max(k + 1, n) + delay;
    // The root node holds the current maximum; k's own leaf and the later leaves only grow
    // by taking the item, so they are covered by `own` and `after`.
    let now = tree.t(1);
    Candidate { makespan: now.max_of(own).max_of(after), own, own_rise, delay }
}

/// Range-add, range-max segment tree (bottom-up, lazy), stored in the scratch slots.
struct Tree<'a, N> {
    s: &'a mut [Scratch<N>],
    n: usize,
    h: u32,
}

impl<N: Real> Tree<'_, N> {
    #[inline]
    fn t(&self, i: usize) -> N {
        if i < self.n {
            self.s[i].line_c
        } else {
            self.s[i - self.n].line_r
        }
    }
    #[inline]
    fn set_t(&mut self, i: usize, v: N) {
        if i < self.n {
            self.s[i].line_c = v;
        } else {
            self.s[i - self.n].line_r = v;
        }
    }
    #[inline]
    fn d(&self, i: usize) -> N {
        self.s[i].reaching
    }
    #[inline]
    fn set_d(&mut self, i: usize, v: N) {
        self.s[i].reaching = v;
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

/// Heap order: smaller resulting makespan first; on ties (most picks leave the makespan
/// where it is) the smaller own finish time, which favours the shares that lost most to
/// the floor; then the later position. Both keys only grow as items are taken, so a stale
/// entry is a lower bound and lazy evaluation picks what a full re-scan would.
#[inline]
fn less<N: Real>(a: &Scratch<N>, b: &Scratch<N>) -> bool {
    a.best.cmp_total(b.best).then(a.share.cmp_total(b.share)).then(b.link.cmp(&a.link)) == Ordering::Less
}

/// Swaps two heap entries, leaving the segment-tree fields that share the slots in place.
fn swap_entries<N: Real>(h: &mut [Scratch<N>], i: usize, j: usize) {
    let (a, b) = (h[i], h[j]);
    h[i].link = b.link;
    h[i].best = b.best;
    h[i].share = b.share;
    h[j].link = a.link;
    h[j].best = a.best;
    h[j].share = a.share;
}

fn best_child<N: Real>(h: &[Scratch<N>], len: usize, i: usize) -> usize {
    let (l, r) = (2 * i + 1, 2 * i + 2);
    if r < len && less(&h[r], &h[l]) {
        r
    } else {
        l
    }
}

fn sift_down<N: Real>(h: &mut [Scratch<N>], len: usize, mut i: usize) {
    while 2 * i + 1 < len {
        let c = best_child(h, len, i);
        if less(&h[c], &h[i]) {
            swap_entries(h, i, c);
            i = c;
        } else {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_max(v: &[f64], l: usize, r: usize) -> f64 {
        v[l..r].iter().copied().fold(0.0, f64::max)
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn segment_tree_matches_naive() {
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in 1..40usize {
            let mut slots = [Scratch::<f64>::EMPTY; 40];
            let mut v = [0.0f64; 40];
            let mut tree = Tree { s: &mut slots[..n], n, h: usize::BITS - n.leading_zeros() };
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
