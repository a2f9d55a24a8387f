//! Rings over a cost matrix (legrand2003 §2.1, the clique; `ring.md` §4, §5, §7): the
//! paper's greedy with the corrected criterion, every ring for a few processors, the
//! local search after the greedy, and the certified lower bound. Every ring found is
//! valued through [`Search::consider`], which keeps the best by integer `T_step`.

use super::fixed::{counts, value};
use super::{Member, Problem, MAX_EXHAUSTIVE};

/// The best ring found so far, with the working memory to value candidates.
pub(crate) struct Search<'b> {
    /// Cycle times of every processor.
    pub w: &'b [f64],
    /// Columns.
    pub work: u64,
    /// The best ring's members (its first `best_q`).
    pub best: &'b mut [usize],
    pub best_q: usize,
    /// Integer `T_step`, then rational value.
    pub best_key: (f64, f64),
    pub sorted: &'b mut [usize],
    pub members: &'b mut [Member],
    /// Best integer `T_step` per ring size (index `q − 1`).
    pub by_size: &'b mut [f64],
}

impl Search<'_> {
    /// Values `ring` whose members communicate `d` (same positions): records its integer
    /// value for its size, keeps it when it is the best so far (by integer `T_step`, then
    /// rational value, then fewer members), and returns its key.
    pub fn consider(&mut self, ring: &[usize], d: &[f64]) -> Option<(f64, f64)> {
        let q = ring.len();
        for (m, &dk) in self.members.iter_mut().zip(d).take(q) {
            m.comm_time = dk;
        }
        let t = counts(self.w, ring, self.work, self.members, self.sorted)?;
        if let Some(slot) = self.by_size.get_mut(q.wrapping_sub(1)) {
            *slot = slot.min(t);
        }
        let key = (t, value(self.w, ring, d, self.work));
        let better = key.0 < self.best_key.0
            || (key.0 == self.best_key.0
                && (key.1 < self.best_key.1 || (key.1 == self.best_key.1 && q < self.best_q)));
        if better {
            if let (Some(best), Some(from)) = (self.best.get_mut(..q), ring.get(..q)) {
                best.copy_from_slice(from);
                self.best_key = key;
                self.best_q = q;
            }
        }
        Some(key)
    }

    /// The best integer `T_step` recorded for rings of `q` members.
    pub fn size_best(&self, q: usize) -> f64 {
        self.by_size.get(q.wrapping_sub(1)).copied().unwrap_or(f64::INFINITY)
    }
}

/// `c_ab`, infinite outside the matrix.
fn cost(problem: &Problem<'_>, a: usize, b: usize) -> f64 {
    let p = problem.cycle_times.len();
    a.checked_mul(p)
        .and_then(|r| r.checked_add(b))
        .and_then(|k| problem.costs.get(k))
        .copied()
        .unwrap_or(f64::INFINITY)
}

/// The communication times of every member of `ring` into `d` (eq. 1: nothing alone;
/// two sends to the same neighbour in a pair).
pub(crate) fn comms(problem: &Problem<'_>, ring: &[usize], d: &mut [f64]) {
    let q = ring.len();
    let at = |k: usize| ring.get(k % q.max(1)).copied().unwrap_or(0);
    for (k, dk) in d.iter_mut().enumerate().take(q) {
        *dk = if q < 2 {
            0.0
        } else {
            let i = at(k);
            problem.boundary * (cost(problem, i, at(k + 1)) + cost(problem, i, at(k + q - 1)))
        };
    }
}

/// Puts `x` at position `at` of the first `q` entries of `ring`, which move up by one
/// (`ring` holds `q + 1` at least); nothing past the slice is touched.
pub(crate) fn insert_at(ring: &mut [usize], q: usize, at: usize, x: usize) {
    let mut carry = x;
    for slot in ring.iter_mut().take(q.saturating_add(1)).skip(at) {
        carry = core::mem::replace(slot, carry);
    }
}

/// Swaps entries `a` and `b` when both exist.
pub(crate) fn swap<T: Copy>(s: &mut [T], a: usize, b: usize) {
    if let (Some(&x), Some(&y)) = (s.get(a), s.get(b)) {
        if let Some(t) = s.get_mut(a) {
            *t = y;
        }
        if let Some(t) = s.get_mut(b) {
            *t = x;
        }
    }
}

/// The paper's greedy with the corrected criterion: the best single processor, the best
/// pair, then the best insertion (processor, position) by `V` until every processor is on
/// the ring, each ring size valued in `search`. `ring` and `d` hold `p` entries. Out of
/// line, as the searches below (called once a plan; their evaluations through one
/// `dyn` each): `ring::plan` was 17.7 KB of wasm with everything inlined into it.
#[inline(never)]
pub(crate) fn greedy(problem: &Problem<'_>, search: &mut Search<'_>, ring: &mut [usize], d: &mut [f64]) {
    let p = problem.cycle_times.len();
    let wt = |i: usize| problem.cycle_times.get(i).copied().unwrap_or(f64::INFINITY);
    let Some(fastest) = (0..p).min_by(|&a, &b| wt(a).total_cmp(&wt(b))) else { return };
    let (Some(ring), Some(d)) = (ring.get_mut(..p), d.get_mut(..p)) else { return };
    if let Some(r) = ring.first_mut() {
        *r = fastest;
    }
    search.consider(&[fastest], &[0.0]);
    let [first, second, ..] = ring else { return };
    let (mut pair, mut pair_value) = ((0, 1), f64::INFINITY);
    for i in 0..p {
        for j in i + 1..p {
            comms(problem, &[i, j], d);
            let v = value(problem.cycle_times, &[i, j], d.get(..2).unwrap_or(&[]), problem.work);
            if v < pair_value {
                (pair, pair_value) = ((i, j), v);
            }
        }
    }
    (*first, *second) = pair;
    let mut q = 2;
    comms(problem, ring.get(..q).unwrap_or(&[]), d);
    search.consider(ring.get(..q).unwrap_or(&[]), d.get(..q).unwrap_or(&[]));
    let w = problem.work as f64;
    let c = |a: usize, b: usize| cost(problem, a, b);
    let h = problem.boundary;
    while q < p {
        let Some(cur) = ring.get(..q) else { break };
        // Sums over the ring, and the ring's communication times, for O(1) candidates.
        comms(problem, cur, d);
        let (mut inv, mut weighted) = (0.0, 0.0);
        for (&i, &dk) in cur.iter().zip(d.iter()) {
            inv += 1.0 / wt(i);
            weighted += dk / wt(i);
        }
        let dk = |k: usize| d.get(k % q).copied().unwrap_or(f64::INFINITY);
        let at = |k: usize| cur.get(k % q).copied().unwrap_or(0);
        let mut chosen: Option<(usize, usize, f64)> = None;
        for k in 0..q {
            let (i, j) = (at(k), at(k + 1));
            let rest = (0..q).filter(|&m| m != k && m != (k + 1) % q).map(dk).fold(0.0, f64::max);
            let (pi, pj) = (at(k + q - 1), at(k + 2));
            for x in 0..p {
                if cur.contains(&x) {
                    continue;
                }
                // i's successor and j's predecessor become x; in a pair, i and j keep
                // their other link to each other (§10 item 6, names corrected).
                let di = h * (c(i, x) + c(i, if q == 2 { j } else { pi }));
                let dj = h * (c(j, x) + c(j, if q == 2 { i } else { pj }));
                let dx = h * (c(x, i) + c(x, j));
                let (wi, wj, wx) = (wt(i), wt(j), wt(x));
                let inv2 = inv + 1.0 / wx;
                let weighted2 = weighted - dk(k) / wi - dk(k + 1) / wj + di / wi + dj / wj + dx / wx;
                let v = ((w + weighted2) / inv2).max(rest).max(di).max(dj).max(dx);
                if chosen.is_none_or(|(_, _, best)| v < best) {
                    chosen = Some((k, x, v));
                }
            }
        }
        let Some((k, x, _)) = chosen else { break };
        insert_at(ring, q, k + 1, x);
        q += 1;
        let cur = ring.get(..q).unwrap_or(&[]);
        comms(problem, cur, d);
        search.consider(cur, d.get(..q).unwrap_or(&[]));
    }
}

/// Every subset and cyclic order up to rotation and reflection (the smallest member
/// first, then the orders of the rest whose first element is below their last). A ring
/// whose rational value exceeds the best integer value of its size is not counted: its
/// integer value is no smaller (§3).
#[inline(never)]
pub(crate) fn exhaustive(
    problem: &Problem<'_>,
    search: &mut Search<'_>,
    ring: &mut [usize],
    d: &mut [f64],
    eval: &mut dyn FnMut(&[usize], &mut [f64]) -> bool,
) {
    let p = problem.cycle_times.len().min(MAX_EXHAUSTIVE);
    let (Some(ring), Some(d)) = (ring.get_mut(..p), d.get_mut(..p)) else { return };
    for mask in 1u32..(1u32 << p) {
        let mut q = 0usize;
        for (slot, i) in ring.iter_mut().zip((0..p).filter(|&i| mask & (1 << i) != 0)) {
            *slot = i;
            q += 1;
        }
        // Heap's algorithm over the members after the first, iteratively.
        let mut stack = [0usize; MAX_EXHAUSTIVE];
        let rest = q.saturating_sub(1);
        let mut visit = |search: &mut Search<'_>, ring: &[usize]| {
            let Some(r) = ring.get(..q) else { return };
            if (q < 3 || ring.get(1) < ring.get(q - 1)) && eval(r, d) {
                let dq = d.get(..q).unwrap_or(&[]);
                if value(problem.cycle_times, r, dq, problem.work) <= search.size_best(q) {
                    search.consider(r, dq);
                }
            }
        };
        visit(search, ring);
        let mut i = 0;
        while i < rest {
            let Some(si) = stack.get_mut(i) else { break };
            if *si < i {
                let to = if i % 2 == 0 { 0 } else { *si };
                *si += 1;
                swap(ring, 1 + to, 1 + i);
                visit(search, ring);
                i = 0;
            } else {
                *si = 0;
                i += 1;
            }
        }
    }
}

/// Writes `from` into the front of `cand`.
fn fill(cand: &mut [usize], from: impl Iterator<Item = usize>) {
    for (c, x) in cand.iter_mut().zip(from) {
        *c = x;
    }
}

/// Most rounds of the local search: each round scans its neighbourhood once.
pub(crate) const LOCAL_ROUNDS: usize = 200;

/// First-improvement local search from `search`'s best ring (§7, beyond the paper):
/// remove a member, insert a processor at any position, replace a member by a processor
/// off the ring, move a member, reverse a segment (2-opt). `eval` writes a candidate's
/// communication times and says whether it has any (a graph may have no route). Only
/// strict improvements of (integer `T_step`, rational value) are taken, so the result is
/// never worse than the start. `cur` and `cand` hold `p` processors, `d` `p` times.
#[inline(never)]
pub(crate) fn local_search(
    p: usize,
    search: &mut Search<'_>,
    cur: &mut [usize],
    cand: &mut [usize],
    d: &mut [f64],
    eval: &mut dyn FnMut(&[usize], &mut [f64]) -> bool,
) {
    let q0 = search.best_q;
    let (Some(cur), Some(cand), Some(d)) = (cur.get_mut(..p), cand.get_mut(..p), d.get_mut(..p)) else {
        return;
    };
    let (Some(start), Some(to)) = (search.best.get(..q0), cur.get_mut(..q0)) else { return };
    to.copy_from_slice(start);
    let mut q = q0;
    let mut key = search.best_key;
    for _ in 0..LOCAL_ROUNDS {
        let Some(now) = cur.get(..q) else { break };
        let mut try_ring = |len: usize, cand: &[usize], search: &mut Search<'_>| -> bool {
            let Some(ring) = cand.get(..len) else { return false };
            if !eval(ring, d) {
                return false;
            }
            let dl = d.get(..len).unwrap_or(&[]);
            // T_int ≥ V: a ring whose V exceeds the current integer value cannot improve it.
            if value(search.w, ring, dl, search.work) > key.0 {
                return false;
            }
            match search.consider(ring, dl) {
                Some(k) if k.0 < key.0 || (k.0 == key.0 && k.1 < key.1) => {
                    key = k;
                    true
                }
                _ => false,
            }
        };
        let mut improved = None;
        'scan: {
            // Remove a member.
            if q > 1 {
                for t in 0..q {
                    fill(cand, now.iter().enumerate().filter(|&(s, _)| s != t).map(|(_, &x)| x));
                    if try_ring(q - 1, cand, search) {
                        improved = Some(q - 1);
                        break 'scan;
                    }
                }
            }
            // Insert or substitute a processor off the ring.
            for x in 0..p {
                if now.contains(&x) {
                    continue;
                }
                for pos in 0..q {
                    let Some((head, tail)) = now.split_at_checked(pos + 1) else { continue };
                    fill(cand, head.iter().chain(Some(&x)).chain(tail).copied());
                    if try_ring(q + 1, cand, search) {
                        improved = Some(q + 1);
                        break 'scan;
                    }
                }
                for t in 0..q {
                    fill(cand, now.iter().enumerate().map(|(s, &y)| if s == t { x } else { y }));
                    if try_ring(q, cand, search) {
                        improved = Some(q);
                        break 'scan;
                    }
                }
            }
            // Move a member after another position of the rest.
            for (t, &moved) in now.iter().enumerate() {
                for pos in 0..q.saturating_sub(1) {
                    // The rest of the ring in order, `moved` after its first `pos + 1`.
                    let rest = |r: usize| now.get(r + usize::from(r >= t)).copied().unwrap_or(0);
                    fill(
                        cand,
                        (0..q).map(|s| match s.cmp(&(pos + 1)) {
                            core::cmp::Ordering::Less => rest(s),
                            core::cmp::Ordering::Equal => moved,
                            core::cmp::Ordering::Greater => rest(s - 1),
                        }),
                    );
                    if cand.get(..q) != Some(now) && try_ring(q, cand, search) {
                        improved = Some(q);
                        break 'scan;
                    }
                }
            }
            // Reverse a segment.
            for a in 0..q {
                for b in a + 2..=q {
                    fill(cand, now.iter().copied());
                    if let Some(seg) = cand.get_mut(a..b) {
                        seg.reverse();
                    }
                    if cand.get(..q) != Some(now) && try_ring(q, cand, search) {
                        improved = Some(q);
                        break 'scan;
                    }
                }
            }
        }
        match improved {
            Some(n) => {
                if let (Some(c), Some(s)) = (cur.get_mut(..n), cand.get(..n)) {
                    c.copy_from_slice(s);
                }
                q = n;
            }
            None => break,
        }
    }
}

/// A lower bound on the integer `T_step` of every ring (§4, clique): the single
/// processor and every pair exactly; for three members or more, each member sends to two
/// distinct processors, so `d_i ≥ δ_i = H·(its two cheapest costs)`, every member
/// finishes after `δ_i + w_i` (one column at least; a ring has three such members), and
/// the ring's `T₄` is at least the lowest water level over `δ`, reached by a prefix of
/// the processors in order of `δ` (§4). `order` and `delta` hold `p` entries of working
/// memory. O(p²).
#[inline(never)]
pub fn lower_bound(problem: &Problem<'_>, order: &mut [usize], delta: &mut [f64]) -> f64 {
    let p = problem.cycle_times.len();
    let (Some(order), Some(delta)) = (order.get_mut(..p), delta.get_mut(..p)) else { return 0.0 };
    let wt = |i: usize| problem.cycle_times.get(i).copied().unwrap_or(f64::INFINITY);
    let w = problem.work as f64;
    let h = problem.boundary;
    let c = |a: usize, b: usize| cost(problem, a, b);
    let mut bound = problem.cycle_times.iter().fold(f64::INFINITY, |m, &x| m.min(x)) * w;
    for i in 0..p {
        for j in i + 1..p {
            let (di, dj) = (2.0 * h * c(i, j), 2.0 * h * c(j, i));
            let t4 = (w + di / wt(i) + dj / wt(j)) / (1.0 / wt(i) + 1.0 / wt(j));
            bound = bound.min(t4.max(di + wt(i)).max(dj + wt(j)));
        }
    }
    if p >= 3 {
        let mut third = [f64::INFINITY; 3];
        for (i, (o, d)) in order.iter_mut().zip(delta.iter_mut()).enumerate() {
            let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
            for j in (0..p).filter(|&j| j != i) {
                let x = c(i, j);
                if x < a {
                    (a, b) = (x, a);
                } else if x < b {
                    b = x;
                }
            }
            (*o, *d) = (i, h * (a + b));
            let k = *d + wt(i);
            if k < third[2] {
                third[2] = k;
                crate::kernel::sort::sort_by(&mut third, |a, b| a < b);
            }
        }
        bound = bound.min(prefix_level(problem, order, delta).max(third[2]));
    }
    // Computed in floating point from the same terms as the plans' values: lowered by a
    // few units in the last place per term so that it stays below them as computed.
    bound * (1.0 - 8.0 * f64::EPSILON * (p as f64 + 4.0))
}

/// The lowest water level `min_k g(prefix_k)` over the processors in order of `delta`
/// (§4: `g(R) = (W + Σ_R δ/w)/Σ_R 1/w` is least over a prefix).
pub(crate) fn prefix_level(problem: &Problem<'_>, order: &mut [usize], delta: &[f64]) -> f64 {
    let wt = |i: usize| problem.cycle_times.get(i).copied().unwrap_or(f64::INFINITY);
    let dl = |i: usize| delta.get(i).copied().unwrap_or(f64::INFINITY);
    crate::kernel::sort::sort_by(order, |&a, &b| dl(a) < dl(b));
    let (mut inv, mut weighted, mut level) = (0.0, 0.0, f64::INFINITY);
    for &j in order.iter() {
        inv += 1.0 / wt(j);
        weighted += dl(j) / wt(j);
        level = level.min((problem.work as f64 + weighted) / inv);
    }
    level
}
