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
//! nowhere on `[0, N]` are never needed: a dynamic program over the subsets (from the
//! back of the send order) keeps, for each set, the lines that no other line of the set
//! lies below on the whole of `[0, N]` (at most [`LINES_PER_SET`]; should a set ever need
//! more, the worst at `N` is dropped and the answer no longer claims to be exact). The
//! optimum is the lowest of all lines at `N`. 2ᵖ⁻¹ sets of `p − 1` prepends each:
//! [`MAX_EXACT_WORKERS`] workers besides the root in under half a second
//! (BENCHMARKS.md). The tests hold it against every order and subset in exact rationals.
//!
//! The root sits where its mode puts it: last after sending ([`RootMode::AfterSend`]: the
//! suffix of the root alone is the line `(b₀, 1/μ₀)`), or first computing from time 0
//! ([`RootMode::Overlap`]: a worker with no communication prepended to the whole chain);
//! either way it may also take no part.

use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::RootMode;
use crate::scatter::order::other;

/// Most workers besides the root the exact search takes: 2¹² sets of lines, 2 MiB, about
/// 0.4 s (BENCHMARKS.md). At 16 the same search took 7.4 s, mostly in `prune` on sets
/// whose lines form long staircases; a search by layers of sets with an O(L log L)
/// envelope is the way to 16.
pub const MAX_EXACT_WORKERS: usize = 12;

/// Lines kept per set of workers (those lowest somewhere on `[0, N]`): enough for 91 of
/// 100 random six-worker platforms with startup costs (`tests/tests/oracle.rs`); on the
/// others a set needs more and the search says it is not exact.
pub const LINES_PER_SET: usize = 16;

/// No parent: a line of one worker alone.
const NONE: u32 = u32::MAX;
/// The head of a line that is the root's.
const ROOT: u32 = u32::MAX - 1;

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
    head: u32,
    /// The slot of the line of the rest, or [`NONE`].
    parent: u32,
}

impl Line {
    /// An empty slot, for initialising buffers.
    pub const EMPTY: Line = Line { c: 0.0, r: 0.0, lo: 0.0, head: NONE, parent: NONE };

    fn at(&self, m: f64) -> f64 {
        if m < self.lo {
            f64::INFINITY
        } else {
            self.c + m / self.r
        }
    }

    /// Whether `self` lies below `other` (or on it) wherever `other` is defined on `[0, n]`.
    fn covers(&self, other: &Line, n: f64) -> bool {
        self.lo <= other.lo && self.at(other.lo) <= other.at(other.lo) && self.at(n) <= other.at(n)
    }
}

/// The lines [`plan_searched`](crate::scatter::plan_searched) needs for `workers` workers
/// (the root included), or `None` beyond [`MAX_EXACT_WORKERS`] besides the root.
pub fn search_memory(workers: usize) -> Option<usize> {
    let others = workers.checked_sub(1)?;
    (others <= MAX_EXACT_WORKERS).then(|| (1usize << others) * LINES_PER_SET)
}

/// A worker's costs in `f64`: `(a, b, λ, μ)`.
type Costs = (f64, f64, f64, f64);

fn costs_of<N: Real>(w: &Worker<N>) -> Costs {
    (w.comm_latency.to_f64(), w.comp_latency.to_f64(), w.comm_per_item.to_f64(), w.comp_per_item.to_f64())
}

/// The line of worker `w` in front of `next`, or `None` when it leaves `f64`.
fn prepend(w: Costs, next: &Line, head: u32, parent: u32) -> Option<Line> {
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
        parent,
    };
    (line.c.is_finite() && line.r.is_finite() && line.r > 0.0 && line.lo.is_finite()).then_some(line)
}

/// Worker `w` alone: `a + b + (λ + μ)·m`.
fn alone(w: Costs, head: u32) -> Option<Line> {
    let (a, b, lambda, mu) = w;
    let line = Line { c: a + b, r: 1.0 / (lambda + mu), lo: 0.0, head, parent: NONE };
    (line.c.is_finite() && line.r.is_finite() && line.r > 0.0).then_some(line)
}

/// Keeps `line` among the set's `slots` unless one of them covers it, dropping those it
/// covers; returns `false` when a line had to be dropped for room (the search is then no
/// longer exact).
fn keep(slots: &mut [Line], line: Line, n: f64) -> bool {
    let mut free = None;
    for (i, s) in slots.iter_mut().enumerate() {
        if s.r == 0.0 {
            free = free.or(Some(i));
        } else if s.covers(&line, n) {
            return true;
        } else if line.covers(s, n) {
            *s = Line::EMPTY;
            free = free.or(Some(i));
        }
    }
    if free.is_none() {
        free = prune(slots, n);
    }
    if let Some(slot) = free.and_then(|i| slots.get_mut(i)) {
        *slot = line;
        return true;
    }
    // Full of lines each lowest somewhere: the one worst at `n` goes, which may have been
    // needed.

    let worst = slots.iter_mut().max_by(|x, y| x.at(n).total_cmp(&y.at(n)));
    if let Some(w) = worst {
        if line.at(n) < w.at(n) {
            *w = line;
        }
    }
    false
}

/// Empties the slots whose line is lowest nowhere on `[0, n]` (no single line covers it,
/// yet the others together do); returns a free slot, if any.
///
/// `L − minⱼ Oⱼ = maxⱼ (L − Oⱼ)` is convex between the points where a line's domain
/// starts, so it is negative somewhere only if it is at such a point (from either side),
/// at `n`, or where two of the others cross. At most `LINES_PER_SET` lines: a few hundred
/// comparisons, and only when a set is full.
fn prune(slots: &mut [Line], n: f64) -> Option<usize> {
    let mut free = None;
    for i in 0..slots.len() {
        let Some(&line) = slots.get(i) else { break };
        if line.r == 0.0 {
            free = free.or(Some(i));
            continue;
        }
        let others = || slots.iter().enumerate().filter(move |&(j, o)| j != i && o.r != 0.0).map(|(_, o)| o);
        // Lowest at `m` against the others defined there (`left`: those whose domain
        // starts at `m` not yet).
        let lowest_at = |m: f64, left: bool| {
            m >= line.lo && m <= n && others().all(|o| (left && o.lo >= m) || line.at(m) < o.at(m))
        };
        let mut needed = lowest_at(line.lo, false) || lowest_at(n, false) || lowest_at(n, true);
        for o in others() {
            needed = needed || lowest_at(o.lo, false) || lowest_at(o.lo, true);
            for p in others() {
                // Where `o` and `p` cross: `o.c + m/o.r = p.c + m/p.r`.
                let slope = 1.0 / o.r - 1.0 / p.r;
                if !needed && slope != 0.0 {
                    let m = (p.c - o.c) / slope;
                    needed = m.is_finite() && (lowest_at(m, false) || lowest_at(m, true));
                }
            }
            if needed {
                break;
            }
        }
        if !needed {
            if let Some(s) = slots.get_mut(i) {
                *s = Line::EMPTY;
            }
            free = free.or(Some(i));
        }
    }
    free
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
    lines.fill(Line::EMPTY);
    let w = |j: usize| workers.get(other(j, root)).map(costs_of);
    let root_costs = {
        let r = workers.get(root)?;
        (0.0, r.comp_latency.to_f64(), 0.0, r.comp_per_item.to_f64())
    };
    let mut exact = true;
    let total = lines.len();
    let set = |s: usize| -> Option<core::ops::Range<usize>> {
        let start = s.checked_mul(LINES_PER_SET)?;
        (start + LINES_PER_SET <= total).then_some(start..start + LINES_PER_SET)
    };
    if mode == RootMode::AfterSend {
        if let (Some(line), Some(range)) = (alone(root_costs, ROOT), set(0)) {
            exact &= keep(lines.get_mut(range)?, line, n);
        }
    }
    for j in 0..q {
        if let (Some(line), Some(range)) = (w(j).and_then(|c| alone(c, j as u32)), set(1 << j)) {
            exact &= keep(lines.get_mut(range)?, line, n);
        }
    }
    let mut best = Found { makespan: f64::INFINITY, exact: true, best: None, root_first: false };
    if mode == RootMode::Overlap {
        best.makespan = alone(root_costs, ROOT).map_or(f64::INFINITY, |l| l.at(n));
        best.root_first = true;
    }
    for s in 0..sets {
        for slot in set(s)? {
            let line = *lines.get(slot)?;
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
                if let Some(front) = prepend(root_costs, &line, ROOT, slot as u32) {
                    consider(front.at(n), true);
                }
            }
            for j in (0..q).filter(|&j| s & (1 << j) == 0) {
                let Some(next) = w(j).and_then(|c| prepend(c, &line, j as u32, slot as u32)) else {
                    exact = false;
                    continue;
                };
                if next.lo <= n {
                    // The set of every worker is only read at `n` after sending (nothing
                    // is prepended to it): the line kept lowest there is all it needs.
                    let whole = s | 1 << j == sets - 1 && mode == RootMode::AfterSend;
                    exact &= keep(lines.get_mut(set(s | 1 << j)?)?, next, n) || whole;
                }
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
    let head_of = |h: u32| if h == ROOT { root } else { other(h as usize, root) };
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
