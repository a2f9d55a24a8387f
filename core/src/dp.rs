//! Exact integer plans for any cost functions: the dynamic program of genaud2003 §3.2.
//!
//! For the send order `P₁ … P_p`, `cost[d, i]`, the best makespan of `d` items over
//! `Pᵢ … P_p` counted from the moment the root starts sending to `Pᵢ`, is
//!
//! `cost[d, i] = min_{0≤e≤d} T_comm(i, e) + max(T_comp(i, e), cost[d − e, i + 1])`
//!
//! (Algorithm 1, O(p·n²), any non-negative costs that are 0 at 0 items).
//!
//! With non-decreasing costs ([`Pruning::Monotone`]) the same values come out of far fewer
//! evaluations. Algorithm 2's ideas, made cheaper:
//!
//! * `e_max(d)`, the smallest `e` with `T_comp(i, e) ≥ cost[d − e, i + 1]`, is the best
//!   choice among `e ≥ e_max`. The paper finds it by binary search for every `d`; it
//!   satisfies `e_max(d) ≤ e_max(d + 1) ≤ e_max(d) + 1`, so one comparison per `d` follows it.
//! * Below `e_max` the value is `T_comm(i, e) + cost[d − e, i + 1]`. The paper scans down
//!   one `e` at a time until `cost[d − e, i + 1]` alone exceeds the best value. Here the scan
//!   moves in blocks: on `[a, b]` the value is at least `T_comm(i, a) + cost[d − b, i + 1]`
//!   (both terms monotone), so a block whose bound exceeds the best value is skipped whole.
//!   Blocks grow fourfold while they are skipped and shrink when they are not; a block of
//!   one is evaluated. On the paper's instance this touches a few dozen values per cell
//!   instead of about a thousand, with no inverse of `T_comm` needed.
//!
//! Values of `T_comm` and `T_comp` are memoised per row in 32 slots (consecutive cells ask
//! for mostly the same sizes): interpolating a table or calling `pow` costs more than a
//! lookup, and the memo returns exactly what the function returned.
//!
//! Both variants choose the smallest `e` among equal values, so they return the same plan,
//! not just the same makespan (tested). Ties and pruning are decided on the computed
//! floating-point values, and every pruning step is exact for them: the pruned DP returns
//! exactly Algorithm 1's result for the functions as evaluated.
//!
//! Memory is the caller's ([`exact_memory`]): one `u32` choice per item count and
//! position except the last, `(p − 1)·(n + 1)`, and one cost row of `n + 1` numbers,
//! updated in place (row `i` overwrites row `i + 1` from the largest `d` down, which only
//! ever reads smaller `d`).

use crate::chain::Chain;
use crate::cost::{CostFn, WorkerCosts};
use crate::error::Error;
use crate::model::{OrderPolicy, RootMode};
use crate::num::Real;
use crate::plan::{Assignment, Method, Summary};

/// How the exact dynamic program searches each cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pruning {
    /// genaud2003 Algorithm 1: every split, O(p·n²). For costs that may decrease.
    None,
    /// Algorithm 2's bounds with a moving `e_max` and skipped blocks; needs
    /// non-decreasing costs (checked). Same result as [`Pruning::None`].
    #[default]
    Monotone,
}

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
    /// Total bytes for the number type `N`.
    pub fn bytes<N>(&self) -> usize {
        self.choices
            .saturating_mul(core::mem::size_of::<u32>())
            .saturating_add(self.costs.saturating_mul(core::mem::size_of::<N>()))
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
/// let m = divload::dp::exact_memory(817_101, 16).unwrap();
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

/// The cost functions of the send positions, in units of items (the exact DP) or of
/// samples (the sampled DP). A visitor receives one position's two functions, so the
/// inner loops call them directly.
pub(crate) trait Stages<N: Real> {
    /// Number of positions.
    fn len(&self) -> usize;
    /// Calls `v` with the receive and compute functions of position `k`.
    fn visit<V: Visit<N>>(&self, k: usize, v: V) -> V::Out;
}

/// Work on one position's cost functions.
pub(crate) trait Visit<N: Real> {
    type Out;
    fn run<A: CostFn<N>, B: CostFn<N>>(self, comm: &A, comp: &B) -> Self::Out;
}

/// The root's receive cost: it does not send to itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zero;

impl<N: Real> CostFn<N> for Zero {
    #[inline]
    fn time(&self, _: u64) -> N {
        N::ZERO
    }
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        (t >= N::ZERO).then_some(limit)
    }
    fn non_decreasing(&self) -> bool {
        true
    }
}

/// Where the choices of the DP go.
pub(crate) trait ChoiceRows {
    fn set(&mut self, k: usize, d: usize, e: usize);
    fn get(&self, k: usize, d: usize) -> usize;
}

/// `u32` choices, row `k` at `k·row ..`.
pub(crate) struct FlatChoices<'a> {
    pub data: &'a mut [u32],
    pub row: usize,
}

impl ChoiceRows for FlatChoices<'_> {
    #[inline]
    fn set(&mut self, k: usize, d: usize, e: usize) {
        if let Some(slot) = self.data.get_mut(k * self.row + d) {
            *slot = e as u32;
        }
    }
    #[inline]
    fn get(&self, k: usize, d: usize) -> usize {
        self.data.get(k * self.row + d).map_or(0, |&e| e as usize)
    }
}

/// Choices that are not kept (a lower-bound DP needs only the value).
pub(crate) struct NoChoices;

impl ChoiceRows for NoChoices {
    fn set(&mut self, _: usize, _: usize, _: usize) {}
    fn get(&self, _: usize, _: usize) -> usize {
        0
    }
}

/// Growth and shrink factor of the skipped blocks in the pruned search.
const GROW: usize = 4;

/// Progress reports every this many cells.
const PROGRESS_STEP: u64 = 1 << 16;

/// Runs the DP over `costs.len()` item counts (`0..costs.len()`); on return `costs[d]` is
/// the best makespan of `d` units over all positions, and `rows` holds the choices of
/// every position but the last.
pub(crate) fn run<N: Real, S: Stages<N>, R: ChoiceRows>(
    stages: &S,
    costs: &mut [N],
    rows: &mut R,
    pruning: Pruning,
    progress: &mut impl FnMut(u64, u64),
) {
    let p = stages.len();
    let Some(n) = costs.len().checked_sub(1) else { return };
    if p == 0 {
        return;
    }
    let last = p - 1;
    stages.visit(last, LastRow { costs: &mut *costs });
    let mut row =
        Row { k: 0, costs, rows, done: 0, total: (last as u64).saturating_mul(n as u64 + 1), progress };
    for k in (0..last).rev() {
        row.k = k;
        match pruning {
            Pruning::None => stages.visit(k, AllSplits(&mut row)),
            Pruning::Monotone => stages.visit(k, Pruned(&mut row)),
        }
        (row.progress)(row.done, row.total);
    }
}

/// The last position takes everything that reaches it.
struct LastRow<'c, N> {
    costs: &'c mut [N],
}

impl<N: Real> Visit<N> for LastRow<'_, N> {
    type Out = ();
    fn run<A: CostFn<N>, B: CostFn<N>>(self, comm: &A, comp: &B) {
        for (d, c) in self.costs.iter_mut().enumerate() {
            *c = comm.time(d as u64) + comp.time(d as u64);
        }
    }
}

/// One row of the DP in progress.
struct Row<'c, N, R, F> {
    k: usize,
    costs: &'c mut [N],
    rows: &'c mut R,
    done: u64,
    total: u64,
    progress: &'c mut F,
}

impl<N: Real, R: ChoiceRows, F: FnMut(u64, u64)> Row<'_, N, R, F> {
    #[inline]
    fn store(&mut self, d: usize, best: N, sol: usize) {
        self.costs[d] = best;
        self.rows.set(self.k, d, sol);
        self.done += 1;
        if self.done % PROGRESS_STEP == 0 {
            (self.progress)(self.done, self.total);
        }
    }
}

/// Algorithm 1 for one position: every split, the smallest best `e`.
struct AllSplits<'r, 'c, N, R, F>(&'r mut Row<'c, N, R, F>);

impl<N: Real, R: ChoiceRows, F: FnMut(u64, u64)> Visit<N> for AllSplits<'_, '_, N, R, F> {
    type Out = ();
    fn run<A: CostFn<N>, B: CostFn<N>>(self, comm: &A, comp: &B) {
        let row = self.0;
        for d in (0..row.costs.len()).rev() {
            let (mut sol, mut best) = (0usize, comm.time(0) + comp.time(0).max_of(row.costs[d]));
            for e in 1..=d {
                let m = comm.time(e as u64) + comp.time(e as u64).max_of(row.costs[d - e]);
                if m < best {
                    (sol, best) = (e, m);
                }
            }
            row.store(d, best, sol);
        }
    }
}

/// The pruned search for one position (see the module documentation). Chooses the
/// smallest best `e`, as [`AllSplits`] does.
struct Pruned<'r, 'c, N, R, F>(&'r mut Row<'c, N, R, F>);

impl<N: Real, R: ChoiceRows, F: FnMut(u64, u64)> Visit<N> for Pruned<'_, '_, N, R, F> {
    type Out = ();
    fn run<A: CostFn<N>, B: CostFn<N>>(self, comm: &A, comp: &B) {
        let row = self.0;
        let (comm_memo, comp_memo) = (Memo::new(comm), Memo::new(comp));
        let comm_t = |e: usize| comm_memo.time(e as u64);
        let comp_t = |e: usize| comp_memo.time(e as u64);
        let n = row.costs.len() - 1;
        // e_max(n) by binary search: the first e with comp(e) >= cost[n - e].
        let mut e_max = {
            let (mut lo, mut hi) = (0usize, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if comp_t(mid) >= row.costs[n - mid] {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        for d in (0..=n).rev() {
            let costs = &row.costs[..=d];
            if d < n {
                // e_max(d) is e_max(d + 1) or one less, and at most d.
                e_max = match e_max.checked_sub(1) {
                    Some(e) if comp_t(e) >= costs[d - e] => e,
                    _ => e_max.min(d),
                };
            }
            // The max matters only when no e satisfies the e_max condition (then e_max = d),
            // which needs costs that are not 0 for 0 items (the sampled DP's refinement).
            let (mut sol, mut best) = (e_max, comm_t(e_max) + comp_t(e_max).max_of(costs[d - e_max]));
            // Below e_max the value is comm(e) + cost[d - e], and on a block [a, b] it is at
            // least comm(a) + cost[d - b]. Walk down in blocks that grow while they can be
            // skipped and shrink when they cannot; a block of one is evaluated. Equal
            // values are never skipped and move `sol` down (the smallest best e).
            let (mut hi, mut width) = (e_max, 1usize);
            while hi > 0 {
                let b = hi - 1;
                let c = costs[d - b];
                if c > best {
                    break; // cost[d - e] > best for every e <= b (the paper's break)
                }
                if width <= 1 {
                    let m = comm_t(b) + c;
                    if m <= best {
                        (sol, best) = (b, m);
                    }
                    hi = b;
                    width = GROW;
                    continue;
                }
                let a = b.saturating_sub(width - 1);
                if comm_t(a) + c > best {
                    hi = a;
                    width = width.saturating_mul(GROW);
                } else {
                    width /= GROW;
                }
            }
            row.store(d, best, sol);
        }
    }
}

/// The last values of a cost function, by size (direct-mapped): consecutive cells of a
/// row ask for mostly the same sizes, and a table lookup costs less than interpolating.
struct Memo<'f, F, N> {
    f: &'f F,
    keys: [core::cell::Cell<u64>; MEMO],
    values: [core::cell::Cell<N>; MEMO],
}

const MEMO: usize = 32;

impl<'f, N: Real, F: CostFn<N>> Memo<'f, F, N> {
    fn new(f: &'f F) -> Self {
        Memo {
            f,
            keys: core::array::from_fn(|_| core::cell::Cell::new(u64::MAX)),
            values: core::array::from_fn(|_| core::cell::Cell::new(N::ZERO)),
        }
    }

    #[inline]
    fn time(&self, x: u64) -> N {
        let slot = (x as usize) % MEMO;
        if self.keys[slot].get() == x {
            return self.values[slot].get();
        }
        let t = self.f.time(x);
        self.keys[slot].set(x);
        self.values[slot].set(t);
        t
    }
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
        match self.workers.get(w) {
            Some(c) if w != self.root => v.run(&c.comm, &c.comp),
            Some(c) => v.run(&Zero, &c.comp),
            None => v.run(&Zero, &Zero),
        }
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
/// The returned [`Summary`] has `method` [`Method::ExactDp`], `makespan == bound` (the
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
/// use divload::dp::{exact, exact_memory, CostProblem, Pruning};
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
    mut progress: impl FnMut(u64, u64),
) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    let n = problem.items;
    let mem = exact_memory(n, p)?;
    prepare(problem, out, pruning == Pruning::Monotone)?;
    if choices.len() < mem.choices {
        return Err(Error::buffer("DP choices", mem.choices, choices.len()));
    }
    if costs.len() < mem.costs {
        return Err(Error::buffer("DP costs", mem.costs, costs.len()));
    }
    let (costs, row) = (&mut costs[..mem.costs], mem.costs);
    let mut rows = FlatChoices { data: &mut choices[..mem.choices], row };
    {
        let stages = Positions {
            workers: problem.workers,
            order: |k: usize| out[k].worker,
            root: problem.root,
            len: p,
        };
        run(&stages, costs, &mut rows, pruning, &mut progress);
    }
    backtrack(&rows, p, n as usize, |k, e| {
        if let Some(a) = out.get_mut(k) {
            a.count = e as u64;
            a.share = N::from_u64(e as u64);
        }
    });
    finish(problem, out, Method::ExactDp, costs[n as usize])
}

/// Follows the choices from `d` states at the first of `p` positions: `put(k, e)` for each
/// position, the last taking what is left.
pub(crate) fn backtrack<R: ChoiceRows>(rows: &R, p: usize, mut d: usize, mut put: impl FnMut(usize, usize)) {
    for k in 0..p {
        let e = if k + 1 == p { d } else { rows.get(k, d).min(d) };
        put(k, e);
        d -= e;
    }
}

/// Validates the problem and writes the send order into `out[..].worker`.
pub(crate) fn prepare<N: Real, C: CostFn<N>, D: CostFn<N>>(
    problem: &CostProblem<'_, C, D>,
    out: &mut [Assignment<N>],
    monotone: bool,
) -> Result<(), Error> {
    let p = problem.workers.len();
    let n = problem.items;
    crate::plan::check_sizes::<N>(p, n)?;
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
    let out = &mut out[..p];
    for (k, a) in out.iter_mut().enumerate() {
        *a = Assignment { worker: k, ..Assignment::EMPTY };
    }
    let root = problem.root;
    let others = match problem.root_mode {
        RootMode::AfterSend => {
            out.swap(root, p - 1);
            let (others, _) = out.split_at_mut(p - 1);
            others
        }
        RootMode::Overlap => {
            out.swap(root, 0);
            &mut out[1..]
        }
    };
    // Keep input order among the others, then sort if asked.
    others.sort_unstable_by_key(|a| a.worker);
    if problem.order == OrderPolicy::Bandwidth {
        let key = |w: usize| {
            problem.workers.get(w).map_or((0.0, 0.0), |c| (c.comm.time(n).to_f64(), c.comp.time(n).to_f64()))
        };
        others.sort_unstable_by(|a, b| {
            let (ka, kb) = (key(a.worker), key(b.worker));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.worker.cmp(&b.worker))
        });
    }
    Ok(())
}

/// Checks a cost function the type does not vouch for, on every size in `0..=n`.
pub(crate) fn check_cost<N: Real, C: CostFn<N>>(
    f: &C,
    worker: usize,
    part: &'static str,
    n: u64,
    monotone: bool,
) -> Result<(), Error> {
    if f.non_decreasing() {
        return Ok(());
    }
    let zero = f.time(0);
    if zero != N::ZERO {
        return Err(Error::time_value(worker, part, 0, zero.to_f64()));
    }
    let mut prev = N::ZERO;
    for x in 1..=n {
        let t = f.time(x);
        if !(t.is_finite() && t >= N::ZERO) {
            return Err(Error::time_value(worker, part, x, t.to_f64()));
        }
        if monotone && t < prev {
            return Err(Error::decreasing(worker, part, x));
        }
        prev = t;
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
    let out = &mut out[..p];
    let times = |w: usize, x: u64| -> (N, N) {
        let c = &problem.workers[w];
        let comm = if w == problem.root { N::ZERO } else { c.comm.time(x) };
        (comm, c.comp.time(x))
    };
    let makespan = crate::chain::fill_plan(out, times);
    let mut even = Chain::new();
    for (k, a) in out.iter().enumerate() {
        let (comm, comp) = times(a.worker, crate::plan::even_split_count(problem.items, p, k));
        even.serve(comm, comp);
    }
    let summary = Summary {
        items: problem.items,
        root: problem.root,
        root_transfer: N::ZERO,
        makespan,
        rational_makespan: lower_bound,
        rational_exact: false,
        lower_bound: lower_bound.min_of(makespan),
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
