//! Exact integer plans for any cost functions: the dynamic program of genaud2003 §3.2 over
//! the scatter's send chain (Algorithm 1, or the pruned Algorithm 2), on the crate's stage DP
//! (`kernel/stages.rs`).
//!
//! For the send order `P₁ … P_p`, `cost[d, i]`, the best makespan of `d` items over
//! `Pᵢ … P_p` counted from the moment the root starts sending to `Pᵢ`, is
//!
//! `cost[d, i] = min_{0≤e≤d} T_comm(i, e) + max(T_comp(i, e), cost[d − e, i + 1])`
//!
//! (any non-negative costs that are 0 at 0 items). With non-decreasing costs the pruned
//! search touches a few dozen values per cell on the paper's instance instead of about a
//! thousand, and returns exactly Algorithm 1's plan (tested).
//!
//! Memory is the caller's ([`exact_memory`]): one `u32` choice per item count and
//! position except the last, `(p − 1)·(n + 1)`, and one cost row of `n + 1` numbers.

use crate::error::Error;
use crate::kernel::chain::{chain_ops, Chain};
use crate::kernel::fp;
use crate::kernel::sort::sort_by;
pub use crate::kernel::stages::Pruning;
use crate::kernel::stages::{backtrack, run, FlatChoices, OrZero, Stages, Visit, EXACT_WORK};
use crate::num::Real;
use crate::platform::cost::{check_cost, CostFn, WorkerCosts};
use crate::report::Method;
use crate::scatter::options::{OrderPolicy, RootMode};
use crate::scatter::types::{Assignment, Summary};
use core::cmp::Ordering;

/// A scatter with arbitrary cost functions.
#[derive(Clone, Copy, Debug)]
pub struct CostProblem<'a, C, D = C> {
    /// The workers, root included, in input order.
    pub workers: &'a [WorkerCosts<C, D>],
    /// Index of the root; its `comm` is not used (it does not send to itself).
    pub root: usize,
    /// Number of items (n ≥ 1).
    pub items: u64,
    /// When the root computes.
    pub root_mode: RootMode,
    /// Send order: [`OrderPolicy::Given`], or [`OrderPolicy::Bandwidth`], which here sorts
    /// by the time to receive all `items` (fastest link first), then by the time to
    /// compute them, then by index (genaud2003 Thm 3 for non-affine costs).
    pub order: OrderPolicy,
}

/// Working memory the exact dynamic program needs, in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpMemory {
    /// Length of the `u32` choice buffer: `(p − 1)·(n + 1)`.
    pub choices: usize,
    /// Length of the cost row: `n + 1`.
    pub costs: usize,
}

impl DpMemory {
    /// Total bytes for the number type `N`, in `u64` so that it stays exact where `usize`
    /// is 32 bits (wasm32: a limit of 4 GiB is above every `usize`).
    pub fn bytes<N>(&self) -> u64 {
        (self.choices as u64)
            .saturating_mul(core::mem::size_of::<u32>() as u64)
            .saturating_add((self.costs as u64).saturating_mul(core::mem::size_of::<N>() as u64))
    }
}

/// How much memory [`exact`] needs for `items` items over `workers` workers.
///
/// For the paper's instance (817 101 items, 16 workers, `f64`): 49.0 MB of choices and
/// 6.5 MB of costs, 55.6 MB in all.
///
/// # Errors
///
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when `items` is above
/// `u32::MAX − 1` (choices are stored as `u32`) or the sizes overflow `usize`;
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for no workers or no items.
///
/// ```
/// let m = divload::scatter::exact::exact_memory(817_101, 16).unwrap();
/// assert_eq!((m.choices, m.costs), (15 * 817_102, 817_102));
/// assert_eq!(m.bytes::<f64>(), 55_562_936);
/// ```
pub fn exact_memory(items: u64, workers: usize) -> Result<DpMemory, Error> {
    if workers == 0 {
        return Err(Error::no_workers());
    }
    if items == 0 {
        return Err(Error::no_items());
    }
    let max = u64::from(u32::MAX) - 1;
    if items > max {
        return Err(Error::too_large("exact DP: items", max, items));
    }
    let row = usize::try_from(items + 1)
        .map_err(|_| Error::too_large("exact DP: items", usize::MAX as u64, items))?;
    let choices = row.checked_mul(workers - 1).ok_or(Error::too_large(
        "exact DP: workers × (items + 1)",
        usize::MAX as u64,
        u64::MAX,
    ))?;
    Ok(DpMemory { choices, costs: row })
}

/// Send positions of a [`CostProblem`]: `order[k]` is the worker at position `k`.
pub(crate) struct Positions<'a, C, D, O> {
    pub workers: &'a [WorkerCosts<C, D>],
    pub order: O,
    pub root: usize,
    pub len: usize,
}

impl<N: Real, C: CostFn<N>, D: CostFn<N>, O: Fn(usize) -> usize> Stages<N> for Positions<'_, C, D, O> {
    fn len(&self) -> usize {
        self.len
    }
    fn visit<V: Visit<N>>(&self, k: usize, v: V) -> V::Out {
        let w = (self.order)(k);
        let c = self.workers.get(w);
        v.run(&OrZero(c.filter(|_| w != self.root).map(|c| &c.comm)), &OrZero(c.map(|c| &c.comp)))
    }
}

/// The exact integer optimum for the send order of `problem` (genaud2003 Algorithm 1, or
/// the pruned Algorithm 2 with [`Pruning::Monotone`]).
///
/// `out` receives one [`Assignment`] per worker in send order (`share` is the count: there
/// is no rational plan). `choices` and `costs` are working memory of at least the lengths
/// [`exact_memory`] gives. `progress(done, total)` is called every 65 536 cells and after
/// each position, for a progress bar; pass `|_, _| {}` when not needed.
///
/// The returned [`Summary`] has `method` [`Method::EXACT_DP`], `makespan == bound` (the
/// optimum, as the chain evaluates it), `lower_bound` equal to the optimum up to the
/// order of the additions, and the even split's makespan under the same costs.
///
/// Time: O(p·n²) without pruning (and in the worst case with it); with monotone costs
/// typically O(p·n·log n) evaluations: the paper's instance (p = 16, n = 817 101) takes
/// 0.2–0.3 s on one core (BENCHMARKS.md).
///
/// # Errors
///
/// * [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput): no workers, no items,
///   root out of range; a cost function that is not 0 at 0, not finite, negative, or (with
///   [`Pruning::Monotone`]) decreasing, naming the worker and the size.
/// * [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall): `out`, `choices` or
///   `costs` too short ([`Error::needed`] says how long).
/// * [`ErrorCode::Overflow`](crate::ErrorCode::Overflow): as [`exact_memory`], more items
///   than `N` can count, or a makespan beyond the range of `N`.
///
/// ```
/// use divload::cost::{Affine, Tabulated, WorkerCosts};
/// use divload::scatter::exact::{exact, exact_memory, CostProblem, Pruning};
/// use divload::{Assignment, OrderPolicy, RootMode};
///
/// // The root computes; worker 1's computation was measured and is superlinear.
/// type T = Tabulated<f64, 4>;
/// let workers = [
///     WorkerCosts { comm: T::new(&[(1, 0.0)])?, comp: T::new(&[(100, 1.0)])? },
///     WorkerCosts { comm: T::new(&[(100, 0.1)])?, comp: T::new(&[(50, 0.3), (100, 1.0)])? },
/// ];
/// let problem = CostProblem { workers: &workers, root: 0, items: 100, root_mode: RootMode::AfterSend, order: OrderPolicy::Given };
/// let mem = exact_memory(100, 2)?;
/// let (mut choices, mut costs) = ([0u32; 101], [0.0f64; 101]);
/// let mut out = [Assignment::EMPTY; 2];
/// let summary = exact(&problem, Pruning::Monotone, &mut out, &mut choices[..mem.choices], &mut costs, |_, _| {})?;
/// assert_eq!(out[0].count + out[1].count, 100);
/// assert!(summary.makespan < 1.0);
/// # Ok::<(), divload::Error>(())
/// ```
pub fn exact<N: Real, C: CostFn<N>, D: CostFn<N>>(
    problem: &CostProblem<'_, C, D>,
    pruning: Pruning,
    out: &mut [Assignment<N>],
    choices: &mut [u32],
    costs: &mut [N],
    progress: impl FnMut(u64, u64),
) -> Result<Summary<N>, Error> {
    exact_within(problem, pruning, out, choices, costs, progress, EXACT_WORK)
}

/// [`exact`] with at most `budget` splits examined.
fn exact_within<N: Real, C: CostFn<N>, D: CostFn<N>>(
    problem: &CostProblem<'_, C, D>,
    pruning: Pruning,
    out: &mut [Assignment<N>],
    choices: &mut [u32],
    costs: &mut [N],
    mut progress: impl FnMut(u64, u64),
    budget: u64,
) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    let n = problem.items;
    let mem = exact_memory(n, p)?;
    prepare(problem, out, pruning == Pruning::Monotone)?;
    let choices_len = choices.len();
    let Some(data) = choices.get_mut(..mem.choices) else {
        return Err(Error::buffer("DP choices", mem.choices, choices_len));
    };
    let costs_len = costs.len();
    let Some(costs) = costs.get_mut(..mem.costs) else {
        return Err(Error::buffer("DP costs", mem.costs, costs_len));
    };
    let mut rows = FlatChoices { data, row: mem.costs };
    {
        let stages = Positions {
            workers: problem.workers,
            order: |k: usize| worker_at(out, k),
            root: problem.root,
            len: p,
        };
        run(&stages, costs, &mut rows, pruning, budget, &mut progress).map_err(|_| {
            Error::work_limit(
                "exact DP",
                budget,
                "these costs defeat its pruning (nearly flat sums); use the sampled solver",
            )
        })?;
    }
    backtrack(&rows, p, n as usize, |k, e| {
        if let Some(a) = out.get_mut(k) {
            a.count = e as u64;
            a.share = N::from_u64(e as u64);
        }
    });
    let optimum = costs.last().copied().unwrap_or(N::INFINITY);
    finish(problem, out, Method::EXACT_DP, optimum)
}

/// The worker at send position `k` of `out` (written by [`prepare`]); past the end (a bug)
/// an index no worker has, which [`Positions`] treats as a worker without costs.
#[inline]
pub(crate) fn worker_at<N: Real>(out: &[Assignment<N>], k: usize) -> usize {
    out.get(k).map_or(usize::MAX, |a| a.worker)
}

/// Validates the problem and writes the send order into `out[..].worker`.
pub(crate) fn prepare<N: Real, C: CostFn<N>, D: CostFn<N>>(
    problem: &CostProblem<'_, C, D>,
    out: &mut [Assignment<N>],
    monotone: bool,
) -> Result<(), Error> {
    let p = problem.workers.len();
    let n = problem.items;
    crate::platform::check_sizes::<N>(p, n)?;
    if problem.root >= p {
        return Err(Error::root_out_of_range(problem.root, p));
    }
    if out.len() < p {
        return Err(Error::buffer("plan output", p, out.len()));
    }
    for (i, w) in problem.workers.iter().enumerate() {
        if i != problem.root {
            check_cost(&w.comm, i, "comm", n, monotone)?;
        }
        check_cost(&w.comp, i, "comp", n, monotone)?;
    }
    let root = problem.root;
    // The root first or last, the others in input order; `out.len() >= p` was checked.
    let (first, others) = match problem.root_mode {
        RootMode::AfterSend => (0, 0..p - 1),
        RootMode::Overlap => (1, 1..p),
    };
    for (k, a) in out.iter_mut().take(p).enumerate() {
        let worker = match k.checked_sub(first) {
            Some(j) if others.contains(&k) => j + usize::from(j >= root),
            _ => root,
        };
        *a = Assignment { worker, ..Assignment::EMPTY };
    }
    // The DP searches no orders: `search` serves it the bandwidth order.
    if problem.order != OrderPolicy::Given {
        let key = |w: usize| {
            problem.workers.get(w).map_or((0.0, 0.0), |c| (c.comm.time(n).to_f64(), c.comp.time(n).to_f64()))
        };
        if let Some(others) = out.get_mut(others) {
            // The key is a total order (ties broken by index), so the plan is the one the
            // standard sort gave; `kernel::sort` has no panic path.
            sort_by(others, |a, b| {
                let (ka, kb) = (key(a.worker), key(b.worker));
                ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.worker.cmp(&b.worker))
                    == Ordering::Less
            });
        }
    }
    Ok(())
}

/// Fills times and displacements from `out[..].count` and builds the summary, with
/// `lower_bound` the solver's certified bound (also reported as the rational makespan:
/// the dynamic programs have no rational plan of their own).
pub(crate) fn finish<N: Real, C: CostFn<N>, D: CostFn<N>>(
    problem: &CostProblem<'_, C, D>,
    out: &mut [Assignment<N>],
    method: Method,
    lower_bound: N,
) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    let out = match out.get_mut(..p) {
        Some(out) => out,
        None => return Err(Error::buffer("plan output", p, out.len())),
    };
    let times = |w: usize, x: u64| -> (N, N) {
        match problem.workers.get(w) {
            Some(c) if w != problem.root => (c.comm.time(x), c.comp.time(x)),
            Some(c) => (N::ZERO, c.comp.time(x)),
            // `out` holds a permutation of the workers (`prepare`).
            None => (N::ZERO, N::ZERO),
        }
    };
    let makespan = crate::scatter::fill_plan(out, times);
    // The dynamic programs add the same costs in another association than the chain does:
    // their optimum and the chain's makespan of a plan each lie within γ of the exact sum,
    // so the bound is lowered by both (issue 11: a bound stays a bound as computed). The
    // cost functions' own values are the model: they are not exact quantities approximated.
    let safe_lower = fp::lower_for::<N>(lower_bound.to_f64(), 0, 3 * chain_ops(p));
    let mut even = Chain::new();
    for (k, a) in out.iter().enumerate() {
        let (comm, comp) = times(a.worker, crate::scatter::even_split_count(problem.items, p, k));
        even.serve(comm, comp);
    }
    let summary = Summary {
        items: problem.items,
        root: problem.root,
        root_transfer: N::ZERO,
        makespan,
        rational_makespan: lower_bound,
        rational_exact: false,
        lower_bound: safe_lower,
        bound: makespan,
        uniform_makespan: even.makespan(),
        participating: out.iter().filter(|a| a.count > 0).count(),
        method,
    };
    if ![makespan, lower_bound, summary.uniform_makespan].iter().all(|t| t.is_finite()) {
        return Err(Error::numeric_overflow(N::NAME));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cost::Affine;
    use std::string::ToString;

    /// Issue 11: a root computing at exactly the slow link's rate makes every split of the
    /// chain equally good, so no bound prunes and the DP is Θ(n²) per position (2 minutes
    /// for 10⁵ items before the budget). With a budget it stops with a clear error; an
    /// ordinary platform of the same size stays far inside it.
    #[test]
    fn the_work_is_bounded() {
        let affine = |l: f64, m: f64| WorkerCosts {
            comm: Affine::new(0.0, l).unwrap(),
            comp: Affine::new(0.0, m).unwrap(),
        };
        let flat = [affine(0.0, 1.0), affine(1.0, 1e-6), affine(1.0, 1e-6)];
        let n = 2_000;
        let problem = CostProblem {
            workers: &flat,
            root: 0,
            items: n,
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Given,
        };
        let mem = exact_memory(n, 3).unwrap();
        let (mut choices, mut costs) = (std::vec![0u32; mem.choices], std::vec![0.0f64; mem.costs]);
        let mut out = [Assignment::EMPTY; 3];
        let e =
            exact_within(&problem, Pruning::Monotone, &mut out, &mut choices, &mut costs, |_, _| {}, 100_000)
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            "exact DP: stopped after 100000 steps, the most it may take; these costs defeat its pruning \
             (nearly flat sums); use the sampled solver"
        );
        let ordinary = [affine(0.0, 1.0), affine(0.01, 1.0), affine(0.02, 2.0)];
        let problem = CostProblem { workers: &ordinary, ..problem };
        let s =
            exact_within(&problem, Pruning::Monotone, &mut out, &mut choices, &mut costs, |_, _| {}, 100_000);
        assert_eq!(s.map(|_| out.iter().map(|a| a.count).sum::<u64>()), Ok(n));
    }
}
