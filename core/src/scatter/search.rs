//! The best send order and participation under startup costs, one installment: the exact
//! rational optimum over every order of every subset of the workers (issue 42 §2).
//!
//! With latencies the bandwidth order of genaud2003 Thm 3 is no longer optimal, and who
//! takes part depends on the order (Yang & Casanova: the problem is NP-hard). `star.rs`
//! composes a *suffix line* `(c, r)` for the workers from a position on: sharing `m` items
//! with equal finish times, they finish `c + m/r` after the root starts sending to the
//! first of them. Prepending a worker `(a, b, λ, μ)` gives
//!
//! * `x = (r·(c − b) + m)/(μ·r + 1)` items for it, and
//! * `r' = (μ·r + 1)/(λ + μ)`, `c' = a + b + r·(c − b)/r'`,
//!
//! valid for the `m` at which every share is ≥ 0: `m ≥ lo`, with
//! `lo' = max(0, −r·(c − b), (lo·(μr + 1) + r·(c − b))/(μ·r))`.
//!
//! The front worker's share is where its finish `b + μx` (rising in `x`) meets the
//! suffix's `L(m − x)` (falling in `x`), so a suffix whose line is lower for every `m`
//! gives a lower line after any prepend, and for each `m` the best prepend is that of the
//! line lowest at the crossing. Hence the lines of a set of workers that are lowest
//! nowhere on `[0, N]` are never needed. A dynamic program over the subsets builds each
//! set from the sets one worker smaller (each worker of the set in front of each of their
//! lines) and keeps the candidates on their lower envelope (at most [`LINES_PER_SET`];
//! should a set need more, the worst at `N` is dropped and the answer no longer claims to
//! be exact). The optimum is the lowest of all lines at `N`.
//!
//! A feasible plan's makespan `U` (each worker alone, the bandwidth order's chains) narrows
//! the envelope: in a plan no slower than `U`, a suffix set with `m` items finishes by `U`
//! less the port time of the `N − m` items in front of it (over links no faster than the
//! fastest outside the set, the root's own share excepted), and those items are at most what
//! the workers outside the set each process alone by `U`. Only the envelope's pieces within
//! that budget are kept. 2ᵖ⁻¹ sets of up to `p − 1` prepends each: [`MAX_EXACT_WORKERS`]
//! workers besides the root in under a second (BENCHMARKS.md). The tests hold it against
//! every order and subset in exact rationals.
//!
//! The root sits where its mode puts it: last after sending ([`RootMode::AfterSend`]: the
//! suffix of the root alone is the line `(b₀, 1/μ₀)`), or first computing from time 0
//! ([`RootMode::Overlap`]: a worker with no communication prepended to the whole chain);
//! either way it may also take no part.

use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::RootMode;
use crate::scatter::order::other;

/// Most workers besides the root the exact search takes: 2¹⁶ sets of lines, 32 MiB, under a
/// second (BENCHMARKS.md); each set's candidates reduced to their lower envelope where a
/// plan no slower than a feasible one can use them.
pub const MAX_EXACT_WORKERS: usize = 16;

/// The fewest lines kept per set of workers (those on its lower envelope where a plan can
/// use them), at 16 workers besides the root; fewer workers keep up to 64 in the same
/// memory. A set that needs more loses the proof, and the search says it is not exact.
pub const LINES_PER_SET: usize = 16;

/// No parent: a line of one worker alone.
const NONE: u32 = u32::MAX;
/// The head of a line that is the root's.
const ROOT: u16 = u16::MAX;

/// One suffix line of the search: its workers finish `c + m/r` seconds after the root
/// starts sending to the first of them, for `m ≥ lo` items. Working memory of
/// [`plan_searched`](crate::scatter::plan_searched); its contents are meaningless to callers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    c: f64,
    /// `0` marks an empty slot.
    r: f64,
    lo: f64,
    /// The first worker: its index among the workers other than the root, or [`ROOT`].
    head: u16,
    /// Scratch of the envelope: whether a candidate is needed, or a piece's candidate.
    mark: u16,
    /// The slot of the line of the rest, or [`NONE`].
    parent: u32,
}

impl Line {
    /// An empty slot, for initialising buffers.
    pub const EMPTY: Line = Line { c: 0.0, r: 0.0, lo: 0.0, head: ROOT, mark: 0, parent: NONE };

    fn at(&self, m: f64) -> f64 {
        if m < self.lo {
            f64::INFINITY
        } else {
            self.c + m / self.r
        }
    }
}

/// The lines [`plan_searched`](crate::scatter::plan_searched) needs for `workers` workers
/// (the root included), or `None` beyond [`MAX_EXACT_WORKERS`] besides the root.
pub fn search_memory(workers: usize) -> Option<usize> {
    let q = workers.checked_sub(1)?;
    (q <= MAX_EXACT_WORKERS).then(|| (1usize << q) * lines_per_set(q) + 4 * candidates(q))
}

/// Lines kept per set with `q` workers besides the root: as many as 2²⁰ lines in all (32
/// MiB) allow, between [`LINES_PER_SET`] and 64.
const fn lines_per_set(q: usize) -> usize {
    let l = (1usize << 20) >> q;
    if l < LINES_PER_SET {
        LINES_PER_SET
    } else if l > 64 {
        64
    } else {
        l
    }
}

/// The candidate lines of one set: each of its workers in front of each line of the set
/// without it, and the worker alone.
const fn candidates(q: usize) -> usize {
    q * lines_per_set(q) + 1
}

/// A worker's costs in `f64`: `(a, b, λ, μ)`.
type Costs = (f64, f64, f64, f64);

fn costs_of<N: Real>(w: &Worker<N>) -> Costs {
    (w.comm_latency.to_f64(), w.comp_latency.to_f64(), w.comm_per_item.to_f64(), w.comp_per_item.to_f64())
}

/// The line of worker `w` in front of `next`, or `None` when it leaves `f64`.
fn prepend(w: Costs, next: &Line, head: u16, parent: u32) -> Option<Line> {
    let (a, b, lambda, mu) = w;
    let (c, r) = (next.c, next.r);
    let k = mu * r + 1.0;
    let r2 = k / (lambda + mu);
    let slack = r * (c - b);
    let line = Line {
        c: a + b + slack / r2,
        r: r2,
        lo: (-slack).max((next.lo * k + slack) / (mu * r)).max(0.0),
        head,
        mark: 0,
        parent,
    };
    (line.c.is_finite() && line.r.is_finite() && line.r > 0.0 && line.lo.is_finite()).then_some(line)
}

/// Worker `w` alone: `a + b + (λ + μ)·m`.
fn alone(w: Costs, head: u16) -> Option<Line> {
    let (a, b, lambda, mu) = w;
    let line = Line { c: a + b, r: 1.0 / (lambda + mu), lo: 0.0, head, mark: 0, parent: NONE };
    (line.c.is_finite() && line.r.is_finite() && line.r > 0.0).then_some(line)
}

/// Where a set's lines can serve a plan no slower than `u`: at `m` items the suffix
/// finishes `c + m·s` after the root starts sending to it, and before that the root sent
/// the `n − m` items the workers in front took, all but the root's own (`root`, at most,
/// when it computes first), over links no faster than `lambda`.
#[derive(Clone, Copy, Debug)]
struct Budget {
    u: f64,
    n: f64,
    lambda: f64,
    root: f64,
}

impl Budget {
    /// Whether the line `c + m·s` is within the budget somewhere on `[a, b]`: the sum of the
    /// line and the port's least time is convex in `m`, so its least value is at an end or at
    /// its kink.
    fn fits(&self, c: f64, s: f64, a: f64, b: f64) -> bool {
        let g = |m: f64| c + m * s + self.lambda * (self.n - m - self.root).max(0.0);
        let kink = (self.n - self.root).max(a).min(b);
        g(a) <= self.u || g(b) <= self.u || g(kink) <= self.u
    }
}

/// The working memory of [`envelope`], in the caller's lines: the candidates by `lo`
/// (`lo`, and the candidate in `mark`), and the envelope's pieces, each a candidate (in
/// `mark`) lowest from `lo` until the next piece starts (the last until `n`), while a new
/// chain is spliced in `next`.
struct Envelope<'a> {
    order: &'a mut [Line],
    chain: &'a mut [Line],
    next: &'a mut [Line],
}

/// Marks (`mark = 1`) the candidates lowest somewhere on `[from, n]` (each defined from its
/// `lo` on) where the budget allows.
///
/// The candidates are added by increasing `lo` to the lower envelope of those already
/// defined, kept on `[m, n]` (`m` the latest `lo`) as a chain of pieces. The minimum of
/// lines is concave, so a new line minus the chain is convex and the line is lowest on one
/// interval of `[m, n]`, found in one walk of the chain, which it then splices in. The part
/// of the chain left of the next `lo` is final: its lines are needed. A walk per
/// candidate, each as long as the envelope: O(k·e), where a sweep that rescans every
/// defined line at each step was O(k²).
fn envelope(cand: &mut [Line], from: f64, n: f64, u: Budget, w: &mut Envelope<'_>) {
    let k = cand.len().min(w.order.len()).min(w.chain.len()).min(w.next.len()).min(usize::from(u16::MAX));
    let Envelope { order, chain, next } = w;
    for (i, (l, o)) in cand.iter_mut().zip(order.iter_mut()).enumerate().take(k) {
        l.mark = 0;
        *o = Line { lo: l.lo, mark: i as u16, ..Line::EMPTY };
    }
    let order = order.get_mut(..k).unwrap_or_default();
    crate::kernel::sort::sort_by(order, |x, y| x.lo < y.lo);
    let line_of =
        |cand: &[Line], i: u16| cand.get(usize::from(i)).map_or((f64::INFINITY, 0.0), |l| (l.c, 1.0 / l.r));
    let mark = |cand: &mut [Line], i: u16, start: f64, end: f64| {
        let (c, s) = line_of(cand, i);
        if let Some(l) = cand.get_mut(usize::from(i)).filter(|_| u.fits(c, s, start, end)) {
            l.mark = 1;
        }
    };
    let piece = |l: &Line| (l.mark, l.lo);
    let mut len = 0usize;
    for o in order.iter() {
        let (lo, i) = (o.lo, o.mark);
        let m = lo.max(from).min(n);
        // The chain left of `m` is final: its lines are needed; the rest starts at `m`.
        let mut keep_from = 0usize;
        for j in 0..len {
            let Some((p, start)) = chain.get(j).map(piece) else { break };
            let end = chain.get(j + 1).filter(|_| j + 1 < len).map_or(n, |q| q.lo);
            if start < m {
                mark(cand, p, start, end.min(m));
            }
            if end <= m && j + 1 < len {
                keep_from = j + 1;
            }
        }
        chain.copy_within(keep_from..len, 0);
        len -= keep_from;
        if let Some(first) = chain.first_mut().filter(|_| len > 0) {
            first.lo = first.lo.max(m);
        }
        // Where the candidate is below the chain: one interval `[x1, x2]` of `[m, n]`.
        let (c, slope) = line_of(cand, i);
        let (mut x1, mut x2) = (f64::INFINITY, f64::NEG_INFINITY);
        if len == 0 {
            (x1, x2) = (m, n);
        }
        for j in 0..len {
            let Some((p, start)) = chain.get(j).map(piece) else { break };
            let (oc, os) = line_of(cand, p);
            let end = chain.get(j + 1).filter(|_| j + 1 < len).map_or(n, |q| q.lo);
            let (a, b) = (c + start * slope < oc + start * os, c + end * slope < oc + end * os);
            let x = ((oc - c) / (slope - os)).max(start).min(end);
            let (lo, hi) = match (a, b) {
                (true, true) => (start, end),
                (true, false) => (start, x),
                (false, true) => (x, end),
                // Linear on the piece: below at neither end, below nowhere in it.
                (false, false) => continue,
            };
            x1 = x1.min(lo);
            x2 = x2.max(hi);
        }
        if !(x1 < x2 || (x1 == x2 && x1 == n)) {
            continue;
        }
        // Splice: the pieces before `x1`, the candidate on `[x1, x2]`, what follows from `x2`.
        let mut at = 0usize;
        let mut put = |p: u16, start: f64, at: &mut usize| {
            if let Some(slot) = next.get_mut(*at) {
                *slot = Line { lo: start, mark: p, ..Line::EMPTY };
                *at += 1;
            }
        };
        let mut after: Option<u16> = None;
        for j in 0..len {
            let Some((p, start)) = chain.get(j).map(piece) else { break };
            if start < x1 {
                put(p, start, &mut at);
            }
            if start <= x2 {
                after = Some(p);
            }
        }
        put(i, x1, &mut at);
        if x2 < n {
            if let Some(p) = after {
                put(p, x2, &mut at);
            }
            for j in 0..len {
                if let Some((p, start)) = chain.get(j).map(piece) {
                    if start > x2 {
                        put(p, start, &mut at);
                    }
                }
            }
        }
        if let (Some(to), Some(from)) = (chain.get_mut(..at), next.get(..at)) {
            to.copy_from_slice(from);
        }
        len = at;
    }
    for j in 0..len {
        let Some((p, start)) = chain.get(j).map(piece) else { break };
        let end = chain.get(j + 1).filter(|_| j + 1 < len).map_or(n, |q| q.lo);
        mark(cand, p, start, end);
    }
}

/// The makespan of a feasible plan: each worker alone, the root alone, and the bandwidth
/// order's chains (every suffix of it whose shares are all ≥ 0), the root last or first as
/// `mode` puts it.
fn upper_bound(
    q: usize,
    w: impl Fn(usize) -> Option<Costs>,
    root: Costs,
    mode: RootMode,
    n: f64,
) -> Option<f64> {
    let mut best = alone(root, ROOT).map_or(f64::INFINITY, |l| l.at(n));
    let mut order = [0u16; MAX_EXACT_WORKERS];
    let order = order.get_mut(..q)?;
    for (j, o) in order.iter_mut().enumerate() {
        *o = j as u16;
        if let Some(line) = w(j).and_then(|c| alone(c, j as u16)) {
            best = best.min(line.at(n));
        }
    }
    let lambda = |j: u16| w(usize::from(j)).map_or(f64::INFINITY, |c| c.2);
    // Slowest link first: the chain is built from its back.
    crate::kernel::sort::sort_by(order, |x, y| lambda(*x) > lambda(*y));
    let mut chain = if mode == RootMode::AfterSend { alone(root, ROOT) } else { None };
    for &j in order.iter() {
        let Some(c) = w(usize::from(j)) else { continue };
        let next = match chain {
            Some(line) => prepend(c, &line, j, 0),
            None => alone(c, j),
        };
        let Some(line) = next else { break };
        if line.lo <= n {
            best = best.min(line.at(n));
            if mode == RootMode::Overlap {
                if let Some(front) = prepend(root, &line, ROOT, 0).filter(|f| f.lo <= n) {
                    best = best.min(front.at(n));
                }
            }
        }
        chain = Some(line);
    }
    best.is_finite().then_some(best)
}

/// What the search found: the optimal rational makespan over every order and subset
/// (`exact`), or the best it kept.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub makespan: f64,
    pub exact: bool,
    /// The slot of the best line, `None` for the root alone (overlap).
    best: Option<u32>,
    /// The root computes from time 0 in front of the best line (overlap).
    root_first: bool,
}

/// The best order and participation for `n` items over `workers` with the root `root` in
/// `mode`, in `lines` ([`search_memory`]); `None` when `lines` is too short or nothing
/// fits in `f64`.
pub(crate) fn search<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    n: f64,
    lines: &mut [Line],
) -> Option<Found> {
    let q = workers.len().checked_sub(1)?;
    let sets = 1usize << q.min(MAX_EXACT_WORKERS);
    let lines = lines.get_mut(..search_memory(workers.len())?)?;
    let per_set = lines_per_set(q);
    let (table, rest) = lines.split_at_mut_checked(sets.checked_mul(per_set)?)?;
    let c = candidates(q);
    let (cand, rest) = rest.split_at_mut_checked(c)?;
    let (order, rest) = rest.split_at_mut_checked(c)?;
    let (chain, next) = rest.split_at_mut_checked(c)?;
    table.fill(Line::EMPTY);
    let w = |j: usize| workers.get(other(j, root)).map(costs_of);
    let root_costs = {
        let r = workers.get(root)?;
        (0.0, r.comp_latency.to_f64(), 0.0, r.comp_per_item.to_f64())
    };
    let mut exact = true;
    let set = |s: usize| -> Option<core::ops::Range<usize>> {
        let start = s.checked_mul(per_set)?;
        (start + per_set <= sets * per_set).then_some(start..start + per_set)
    };
    if mode == RootMode::AfterSend {
        if let (Some(line), Some(slot)) = (alone(root_costs, ROOT), table.first_mut()) {
            *slot = line;
        }
    }
    // A feasible plan's makespan `u` bounds the optimum, and with it where each set's
    // lines can matter: a suffix of a plan no slower than `u` finishes its `m` items by
    // `u`, and the workers in front of it (the root too) took the other `n − m`, at most
    // what each alone processes by `u`. A set's lines are needed only on `[from, n]`,
    // `from = n −` the others' capacity, and where they are at most `u`.
    let u = upper_bound(q, w, root_costs, mode, n)? * (1.0 + 1e-9);
    let capacity = |c: Costs| {
        let (a, b, lambda, mu) = c;
        ((u - a - b) / (lambda + mu)).max(0.0)
    };
    let everyone = (0..q).filter_map(|j| w(j).map(capacity)).sum::<f64>() + capacity(root_costs);
    let mut env = Envelope { order, chain, next };
    // Every set after the sets it extends by one worker (numerically smaller): its lines
    // are its workers in every order the smaller sets kept, each worker in front once.
    for s in 1..sets {
        let mut k = 0usize;
        let mut push = |line: Line, k: &mut usize| {
            if let Some(c) = cand.get_mut(*k) {
                *c = line;
                *k += 1;
            }
        };
        if s.is_power_of_two() {
            if let Some(line) =
                w(s.trailing_zeros() as usize).and_then(|c| alone(c, s.trailing_zeros() as u16))
            {
                push(line, &mut k);
            }
        }
        for j in (0..q).filter(|&j| s & (1 << j) != 0) {
            let rest = s & !(1 << j);
            for slot in set(rest)? {
                let from = *table.get(slot)?;
                if from.r == 0.0 {
                    continue;
                }
                match w(j).and_then(|c| prepend(c, &from, j as u16, slot as u32)) {
                    Some(line) if line.lo <= n => push(line, &mut k),
                    Some(_) => {}
                    None => exact = false,
                }
            }
        }
        let inside: f64 = (0..q).filter(|&j| s & (1 << j) != 0).filter_map(|j| w(j).map(capacity)).sum();
        let from = (n - (everyone - inside)).max(0.0);
        let lambda = (0..q)
            .filter(|&j| s & (1 << j) == 0)
            .filter_map(|j| w(j).map(|c| c.2))
            .fold(f64::INFINITY, f64::min);
        let budget = Budget {
            u,
            n,
            // Nobody else in front: only the root may take the rest, at no port time.
            lambda: if lambda.is_finite() { lambda } else { 0.0 },
            root: if mode == RootMode::Overlap { capacity(root_costs) } else { 0.0 },
        };
        // Candidates above `u` wherever they may serve go before any sorting.
        let mut kept_k = 0usize;
        for i in 0..k {
            if let Some(&line) = cand.get(i) {
                if budget.fits(line.c, 1.0 / line.r, line.lo.max(from), n) {
                    if let Some(c) = cand.get_mut(kept_k) {
                        *c = line;
                    }
                    kept_k += 1;
                }
            }
        }
        let k = kept_k;
        let cand = cand.get_mut(..k)?;
        let kept = table.get_mut(set(s)?)?;
        // The set of every worker is only read at `n` after sending (nothing is prepended
        // to it): the line lowest there is all it needs.
        if s == sets - 1 && mode == RootMode::AfterSend {
            if let Some(best) = cand.iter().min_by(|x, y| x.at(n).total_cmp(&y.at(n))) {
                if let Some(slot) = kept.first_mut() {
                    *slot = *best;
                }
            }
            continue;
        }
        envelope(cand, from, n, budget, &mut env);
        let mut at = 0usize;
        for line in cand.iter().filter(|l| l.mark == 1) {
            if let Some(slot) = kept.get_mut(at) {
                *slot = *line;
                at += 1;
            } else {
                // More lines lowest somewhere than a set holds: the one worst at `n`
                // goes, which may have been needed.
                exact = false;
                if let Some(worst) = kept.iter_mut().max_by(|x, y| x.at(n).total_cmp(&y.at(n))) {
                    if line.at(n) < worst.at(n) {
                        *worst = *line;
                    }
                }
            }
        }
    }
    let mut best = Found { makespan: f64::INFINITY, exact: true, best: None, root_first: false };
    if mode == RootMode::Overlap {
        best.makespan = alone(root_costs, ROOT).map_or(f64::INFINITY, |l| l.at(n));
        best.root_first = true;
    }
    for (slot, line) in table.iter().enumerate() {
        if line.r == 0.0 || line.lo > n {
            continue;
        }
        let mut consider = |t: f64, root_first: bool| {
            if t < best.makespan {
                best = Found { makespan: t, exact: true, best: Some(slot as u32), root_first };
            }
        };
        consider(line.at(n), false);
        if mode == RootMode::Overlap {
            if let Some(front) = prepend(root_costs, line, ROOT, slot as u32) {
                consider(front.at(n), true);
            }
        }
    }
    best.exact = exact;
    best.makespan.is_finite().then_some(best)
}

/// Walks the chain `found` chose from the front, calling `emit(worker, share)` for each
/// participant in send order (the root's index for the root).
pub(crate) fn shares<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    n: f64,
    lines: &[Line],
    found: &Found,
    mut emit: impl FnMut(usize, f64),
) {
    let head_of = |h: u16| if h == ROOT { root } else { other(usize::from(h), root) };
    let costs = |i: usize| workers.get(i).map_or((0.0, 0.0, 0.0, 1.0), costs_of);
    let mut m = n;
    let mut at = found.best.and_then(|s| lines.get(s as usize));
    // The share of worker `i` in front of `next` (all `m` items when nothing follows);
    // only its `b` and `μ` enter, which the root keeps as the root.
    let share = |i: usize, next: Option<&Line>, m: f64| {
        let (_, b, _, mu) = costs(i);
        next.map_or(m, |nx| between((nx.r * (nx.c - b) + m) / (mu * nx.r + 1.0), m))
    };
    if found.root_first {
        let x = share(root, at, m);
        emit(root, x);
        m -= x;
    }
    while let Some(line) = at {
        let i = head_of(line.head);
        let next = lines.get(line.parent as usize);
        let x = share(i, next, m);
        emit(i, x);
        m -= x;
        at = next;
    }
}

/// `x` within `[0, m]` (not `f64::clamp`, whose panic message would bring float
/// formatting into the wasm module).
fn between(x: f64, m: f64) -> f64 {
    x.max(0.0).min(m)
}
