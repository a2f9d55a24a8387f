//! The dynamic program in memory fixed at compile time, for controllers: sizes sampled on
//! a grid of `K` points, then an item-by-item finish, with a certified bound.
//!
//! cerin2006 §4 notes that sampling a few sizes per processor trades optimality for time
//! and memory; this module makes the trade measurable. With `h = ⌈n/(K − 1)⌉` items per
//! sample:
//!
//! 1. **Plan.** The recursion of [`exact`] over multiples of `h`: each worker gets
//!    `u·h` items, `Σ u = ⌊n/h⌋`. The `r = n − h·⌊n/h⌋ < h` items left over go one at a
//!    time (in batches when many are left) to the position where they raise the makespan least.
//! 1. **Refinement.** Around that plan each worker keeps its count minus one step as a
//!    base, and the same recursion places the rest on a grid `K` times finer than the
//!    window (costs shifted by the base, so not 0 at 0: the DP allows that). This repeats
//!    until the step is one item, where the placement is exact within the window; the
//!    refined plan replaces the first one only if it is faster. With `K = 1024` and 16
//!    workers, 817 101 items take three levels.
//! 2. **Lower bound.** Any integer plan gives worker `i` some `nᵢ` items; with
//!    `cᵢ = ⌈nᵢ/h⌉` it holds `nᵢ ≥ (cᵢ − 1)·h + 1` and `Σ cᵢ ≥ ⌈n/h⌉`. Charging each worker
//!    the cost of `(cᵢ − 1)·h + 1` items (for `cᵢ > 0`) lowers every time (costs are
//!    non-decreasing), so the same recursion over `c`, at `Σ c = ⌈n/h⌉`, is at most the
//!    optimum. The plan's makespan minus this bound is the certified gap.
//!
//! Memory: `K·P` `u16` choices and `K` numbers, in the [`Sampled`] value itself (`P` is the
//! most workers it can plan), plus `O(P)` on the stack. Time: a few DPs over `K` states
//! plus `O(p²·log h)` for the finishes (batched, see `finish_items`), whatever `n` is. When `n < K` the grid is every size and the plan is
//! exact (gap 0). On Table 1 the refined plan is the optimum for K = 256, 1024 and 4096;
//! the certified gap is then the lower bound's slack (about `h` items per worker).

use crate::error::Error;
use crate::kernel::chain::Chain;
use crate::kernel::stages::{self, ChoiceRows, Pruning, Stages, Visit};
use crate::num::Real;
use crate::platform::cost::CostFn;
use crate::report::Method;
use crate::scatter::exact::{self, CostProblem};
use crate::scatter::types::{Assignment, Summary};

/// Working memory for the sampled DP, fixed at compile time: `K` sampled sizes
/// (`2 ≤ K ≤ 65 536`) and at most `P` workers. Its size is `2·K·P + K·size_of::<N>()`
/// bytes: 40 KiB for `K = 1024, P = 16, N = f64`. Place it in a `static`
/// (or on a large stack) and reuse it.
#[derive(Clone, Debug)]
pub struct Sampled<N, const K: usize, const P: usize> {
    choices: [[u16; K]; P],
    costs: [N; K],
}

impl<N: Real, const K: usize, const P: usize> Default for Sampled<N, K, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<N: Real, const K: usize, const P: usize> Sampled<N, K, P> {
    const VALID: () = assert!(K >= 2 && K <= 65_536, "K must be in 2..=65536");

    /// The two arrays, for [`solve_in`].
    pub fn arrays(&mut self) -> (&mut [[u16; K]; P], &mut [N; K]) {
        (&mut self.choices, &mut self.costs)
    }

    /// Empty working memory.
    pub const fn new() -> Self {
        let () = Self::VALID;
        Sampled { choices: [[0; K]; P], costs: [N::ZERO; K] }
    }

    /// Plans `problem` on the sampled grid, refines it on finer grids around the plan and
    /// finishes it item by item (see the module documentation); the summary's
    /// `lower_bound` is a certified lower bound on the optimum for the send order, so
    /// [`Summary::gap`] bounds the distance to it. `out` needs one element per worker.
    ///
    /// # Errors
    ///
    /// As [`exact::exact`] (bad costs are named; costs must be non-decreasing), and
    /// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when there are more than `P`
    /// workers.
    ///
    /// ```
    /// use divload::cost::{Affine, WorkerCosts};
    /// use divload::scatter::exact::CostProblem;
    /// use divload::scatter::sampled::Sampled;
    /// use divload::{Assignment, OrderPolicy, RootMode};
    ///
    /// let w = |l: f64, m: f64| WorkerCosts { comm: Affine::new(0.0, l).unwrap(), comp: Affine::new(0.0, m).unwrap() };
    /// let workers = [w(0.0, 0.009288), w(1.12e-5, 0.009365), w(1.0e-5, 0.004629)];
    /// let problem = CostProblem { workers: &workers, root: 0, items: 817_101, root_mode: RootMode::AfterSend, order: OrderPolicy::Bandwidth };
    /// let mut dp = Sampled::<f64, 256, 4>::new();
    /// let mut out = [Assignment::EMPTY; 3];
    /// let summary = dp.solve(&problem, &mut out)?;
    /// assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 817_101);
    /// assert!(summary.lower_bound <= summary.makespan);
    /// assert!(summary.gap() / summary.makespan < 0.02);
    /// # Ok::<(), divload::Error>(())
    /// ```
    pub fn solve<C: CostFn<N>, D: CostFn<N>>(
        &mut self,
        problem: &CostProblem<'_, C, D>,
        out: &mut [Assignment<N>],
    ) -> Result<Summary<N>, Error> {
        solve_in(&mut self.choices, &mut self.costs, problem, out)
    }
}

/// [`Sampled::solve`] in storage the caller holds elsewhere: `choices` and `costs` are a
/// [`Sampled`]'s two arrays, so a front end can take them from an allocator separately
/// (a `Sampled` built on a small stack before it moves, as wasm's 1 MiB, overflows it).
///
/// # Errors
///
/// As [`Sampled::solve`].
pub fn solve_in<N: Real, C: CostFn<N>, D: CostFn<N>, const K: usize, const P: usize>(
    choices: &mut [[u16; K]; P],
    costs: &mut [N; K],
    problem: &CostProblem<'_, C, D>,
    out: &mut [Assignment<N>],
) -> Result<Summary<N>, Error> {
    let () = Sampled::<N, K, P>::VALID;
    let p = problem.workers.len();
    if p > P {
        return Err(Error::too_large("sampled DP: workers", P as u64, p as u64));
    }
    exact::prepare(problem, out, true)?;
    let n = problem.items;
    // n ≥ 1 (`prepare`), so h ≥ 1 and ⌈n/h⌉ ≤ K − 1: every grid below fits in `costs`.
    let h = n.div_ceil(K as u64 - 1).max(1);
    let (q, upper_states) = ((n / h) as usize, n.div_ceil(h) as usize);
    let order = |k: usize| exact::worker_at(out, k);
    let positions = exact::Positions { workers: problem.workers, order, root: problem.root, len: p };

    // The lower bound: sizes charged at the bottom of their sample interval.
    let lower = Grid { inner: &positions, h, bottom: true, base: &[] };
    let costs_row = states(costs, upper_states);
    // The grid bounds this DP's work (K states, P positions), so no budget applies.
    let _ =
        stages::run(&lower, costs_row, &mut stages::NoChoices, Pruning::Monotone, u64::MAX, &mut |_, _| {});
    let bound = costs_row.last().copied().unwrap_or(N::ZERO);

    // The plan on multiples of h, finished item by item.
    let mut tail = [N::ZERO; P];
    let mut coarse = [0u64; P];
    let mut rows = Rows { choices };
    let grid = Grid { inner: &positions, h, bottom: false, base: &[] };
    level(&grid, states(costs, q), &mut rows, &[], h, &mut coarse[..p]);
    finish_items(&positions, &mut coarse[..p], &mut tail[..p], n - q as u64 * h);

    // Refinement: around the current counts, the same recursion on a finer grid
    // (each worker keeps at least its count minus one step), until the step is one
    // item, which is exact within the window. Kept only if it is better.
    let mut fine = coarse;
    let mut step = h;
    while step > 1 {
        let mut base = [0u64; P];
        for (b, &c) in base.iter_mut().zip(&fine[..p]) {
            *b = c.saturating_sub(step);
        }
        let total = n - base[..p].iter().sum::<u64>();
        let next = total.div_ceil(K as u64 - 1).max(1);
        if next >= step {
            break; // the window is too wide for K samples: no finer grid fits
        }
        let units = (total / next) as usize;
        let grid = Grid { inner: &positions, h: next, bottom: false, base: &base };
        level(&grid, states(costs, units), &mut rows, &base[..p], next, &mut fine[..p]);
        finish_items(&positions, &mut fine[..p], &mut tail[..p], total - units as u64 * next);
        step = next;
    }
    let counts =
        if makespan(&positions, &fine[..p]) < makespan(&positions, &coarse[..p]) { fine } else { coarse };
    for (a, &c) in out.iter_mut().zip(&counts[..p]) {
        a.count = c;
        a.share = N::from_u64(c);
    }
    exact::finish(problem, out, Method::SAMPLED_DP, bound)
}

/// The cost row for `0..=units` states of a grid. The grids are chosen to have at most
/// `K − 1` units; a longer one (a bug) is cut to the row rather than made a panic path.
fn states<N>(costs: &mut [N], units: usize) -> &mut [N] {
    let end = units.saturating_add(1).min(costs.len());
    costs.get_mut(..end).unwrap_or_default()
}

/// One DP over `costs.len()` states of the grid; writes `base[k] + units·h` to `counts`
/// (an empty `base` is all zeros).
fn level<N: Real, S: Stages<N>, R: ChoiceRows>(
    grid: &S,
    costs: &mut [N],
    rows: &mut R,
    base: &[u64],
    h: u64,
    counts: &mut [u64],
) {
    let _ = stages::run(grid, costs, rows, Pruning::Monotone, u64::MAX, &mut |_, _| {});
    stages::backtrack(rows, counts.len(), costs.len().saturating_sub(1), |k, u| {
        if let Some(c) = counts.get_mut(k) {
            *c = base.get(k).copied().unwrap_or(0) + u as u64 * h;
        }
    });
}

/// The makespan of `counts` (eq. 1–2).
fn makespan<N: Real, S: Stages<N>>(stages: &S, counts: &[u64]) -> N {
    let mut chain = Chain::new();
    for (k, &x) in counts.iter().enumerate() {
        let (comm, comp) = stages.visit(k, Times(x));
        chain.serve(comm, comp);
    }
    chain.makespan()
}

/// The choices of the plan DP, one row of `K` per position.
struct Rows<'a, const K: usize, const P: usize> {
    choices: &'a mut [[u16; K]; P],
}

impl<const K: usize, const P: usize> ChoiceRows for Rows<'_, K, P> {
    #[inline]
    fn set(&mut self, k: usize, d: usize, e: usize) {
        if let Some(slot) = self.choices.get_mut(k).and_then(|row| row.get_mut(d)) {
            *slot = e as u16;
        }
    }
    #[inline]
    fn get(&self, k: usize, d: usize) -> usize {
        self.choices.get(k).and_then(|row| row.get(d)).map_or(0, |&e| usize::from(e))
    }
}

/// The positions' costs on the grid of multiples of `h`: `u` samples cost `u·h` items, or
/// with `bottom`, `(u − 1)·h + 1` items (the least a worker in that sample interval has).
struct Grid<'s, S> {
    inner: &'s S,
    h: u64,
    bottom: bool,
    /// Items each position has before the grid's units (the refinement's window start).
    base: &'s [u64],
}

impl<N: Real, S: Stages<N>> Stages<N> for Grid<'_, S> {
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn visit<V: Visit<N>>(&self, k: usize, v: V) -> V::Out {
        let base = self.base.get(k).copied().unwrap_or(0);
        self.inner.visit(k, Scale { inner: v, h: self.h, bottom: self.bottom, base })
    }
}

struct Scale<V> {
    inner: V,
    h: u64,
    bottom: bool,
    base: u64,
}

impl<N: Real, V: Visit<N>> Visit<N> for Scale<V> {
    type Out = V::Out;
    fn run<A: CostFn<N>, B: CostFn<N>>(self, comm: &A, comp: &B) -> V::Out {
        let (h, bottom, base) = (self.h, self.bottom, self.base);
        self.inner.run(&Scaled { f: comm, h, bottom, base }, &Scaled { f: comp, h, bottom, base })
    }
}

struct Scaled<'f, F> {
    f: &'f F,
    h: u64,
    bottom: bool,
    base: u64,
}

impl<N: Real, F: CostFn<N>> CostFn<N> for Scaled<'_, F> {
    #[inline]
    fn time(&self, u: u64) -> N {
        let items = match (u, self.bottom) {
            (0, _) => 0,
            (u, true) => (u - 1).saturating_mul(self.h).saturating_add(1),
            (u, false) => u.saturating_mul(self.h),
        };
        self.f.time(self.base.saturating_add(items))
    }
    fn non_decreasing(&self) -> bool {
        self.f.non_decreasing()
    }
}

/// Gives `left` more items to the positions where the makespan grows least (ties: the
/// earliest position), in batches: a batch of `⌈left/(2p)⌉` items goes to one position,
/// so each round places at least a `1/(2p)` part of what is left, and the last `2p` items
/// go one at a time. That is at most about `2p·(ln(left) + 1)` rounds of O(p) each, where
/// one item per round took O(left·p): with `n = 10¹²` items and `K = 4096`, `left` reaches
/// 2.4·10⁸ and the item-by-item finish ran for 40 s (issue 11). A batch can overshoot
/// where single items would have been spread; the refinement levels that follow work
/// around these counts down to single items, so the final plan does not depend on it.
/// `tail` holds one number per position.
fn finish_items<N: Real, S: Stages<N>>(stages: &S, counts: &mut [u64], tail: &mut [N], left: u64) {
    let p = counts.len().min(tail.len());
    let mut left = left;
    while left > 0 && p > 0 {
        let batch = left.div_ceil(2 * p as u64);
        // tail[k]: the latest finish among the positions after k.
        let mut chain = Chain::new();
        for k in 0..p {
            let (comm, comp) = stages.visit(k, Times(counts[k]));
            tail[k] = chain.serve(comm, comp).finish;
        }
        let mut latest = N::ZERO;
        for t in tail[..p].iter_mut().rev() {
            (*t, latest) = (latest, latest.max_of(*t));
        }
        let (mut sent, mut before) = (N::ZERO, N::ZERO);
        let mut best: Option<(N, usize)> = None;
        for k in 0..p {
            let (comm0, comp0) = stages.visit(k, Times(counts[k]));
            let (comm1, comp1) = stages.visit(k, Times(counts[k].saturating_add(batch)));
            let delay = comm1 - comm0;
            let makespan = before.max_of(sent + comm1 + comp1).max_of(tail[k] + delay);
            if best.is_none_or(|(b, _)| makespan < b) {
                best = Some((makespan, k));
            }
            before = before.max_of(sent + comm0 + comp0);
            sent = sent + comm0;
        }
        match best.and_then(|(_, k)| counts.get_mut(k)) {
            Some(c) => *c += batch,
            None => break,
        }
        left -= batch;
    }
}

/// A position's receive and compute times for a number of items.
struct Times(u64);

impl<N: Real> Visit<N> for Times {
    type Out = (N, N);
    fn run<A: CostFn<N>, B: CostFn<N>>(self, comm: &A, comp: &B) -> (N, N) {
        (comm.time(self.0), comp.time(self.0))
    }
}
