//! The stage dynamic program shared by the exact and the sampled DP: positions in a chain,
//! each taking `e` of the `d` units that reach it, the rest going on (genaud2003 §3.2,
//! Algorithm 1, and the pruned Algorithm 2).
//!
//! `cost[d, i] = min_{0≤e≤d} T_comm(i, e) + max(T_comp(i, e), cost[d − e, i + 1])`
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
//!   one is evaluated.
//!
//! Values of `T_comm` and `T_comp` are memoised per row in 32 slots (consecutive cells ask
//! for mostly the same sizes): interpolating a table or calling `pow` costs more than a
//! lookup, and the memo returns exactly what the function returned.
//!
//! Both variants choose the smallest `e` among equal values, so they return the same plan,
//! not just the same makespan. Ties and pruning are decided on the computed floating-point
//! values, and every pruning step is exact for them.
//!
//! Memory: one cost row of `d + 1` numbers, updated in place (row `i` overwrites row
//! `i + 1` from the largest `d` down, which only ever reads smaller `d`), and the choices
//! wherever the caller's [`ChoiceRows`] keeps them.

use crate::num::Real;
use crate::platform::cost::CostFn;

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

/// A position's cost function, or none: the root's receive cost (it does not send to
/// itself), or a position without a worker. One type for both, so that each solver's
/// loops are instantiated once per pair of cost types, not once per pair and kind of
/// position (9 copies of the pruned row search were 8 KB of the wasm module); the branch
/// on `None` is the same for a whole row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OrZero<'a, C>(pub Option<&'a C>);

impl<N: Real, C: CostFn<N>> CostFn<N> for OrZero<'_, C> {
    #[inline]
    fn time(&self, items: u64) -> N {
        self.0.map_or(N::ZERO, |f| f.time(items))
    }
    fn max_within(&self, t: N, limit: u64) -> Option<u64> {
        match self.0 {
            Some(f) => f.max_within(t, limit),
            None => (t >= N::ZERO).then_some(limit),
        }
    }
    fn non_decreasing(&self) -> bool {
        self.0.is_none_or(|f| f.non_decreasing())
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

/// Splits (or skipped blocks) the exact DP may examine before it gives up: about 10 s on
/// this project's 2-core benchmark machine. Pruning keeps ordinary platforms far below it
/// (genaud2003 Table 1, 817 101 items: 0.3 s), but costs whose sums are nearly flat in the
/// split (a slow link next to a root that computes at the link's rate) defeat every bound
/// and cost Θ(n²) per position: 2 minutes for 10⁵ items (issue 11, BENCHMARKS.md).
pub(crate) const EXACT_WORK: u64 = 1 << 31;

/// The DP stopped after examining `budget` splits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutOfWork;

/// Runs the DP over `costs.len()` item counts (`0..costs.len()`); on return `costs[d]` is
/// the best makespan of `d` units over all positions, and `rows` holds the choices of
/// every position but the last. Examines at most `budget` splits, else stops with
/// [`OutOfWork`] (costs and rows are then meaningless).
pub(crate) fn run<N: Real, S: Stages<N>, R: ChoiceRows>(
    stages: &S,
    costs: &mut [N],
    rows: &mut R,
    pruning: Pruning,
    budget: u64,
    progress: &mut impl FnMut(u64, u64),
) -> Result<(), OutOfWork> {
    let p = stages.len();
    let Some(n) = costs.len().checked_sub(1) else { return Ok(()) };
    if p == 0 {
        return Ok(());
    }
    let last = p - 1;
    stages.visit(last, LastRow { costs: &mut *costs });
    let mut row = Row {
        k: 0,
        costs,
        rows,
        done: 0,
        total: (last as u64).saturating_mul(n as u64 + 1),
        progress,
        budget,
    };
    for k in (0..last).rev() {
        row.k = k;
        match pruning {
            Pruning::None => stages.visit(k, AllSplits(&mut row)),
            Pruning::Monotone => stages.visit(k, Pruned(&mut row)),
        }
        if row.budget == 0 {
            return Err(OutOfWork);
        }
        (row.progress)(row.done, row.total);
    }
    Ok(())
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
    /// Splits left to examine; at 0 the row stops.
    budget: u64,
}

impl<N: Real, R: ChoiceRows, F: FnMut(u64, u64)> Row<'_, N, R, F> {
    #[inline]
    fn store(&mut self, d: usize, best: N, sol: usize) {
        if let Some(c) = self.costs.get_mut(d) {
            *c = best;
        }
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
            let (mut sol, mut best) = (0usize, comm.time(0) + comp.time(0).max_of(at(row.costs, d)));
            row.budget = row.budget.saturating_sub(d as u64 + 1);
            if row.budget == 0 {
                return;
            }
            for e in 1..=d {
                let m = comm.time(e as u64) + comp.time(e as u64).max_of(at(row.costs, d - e));
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
        let Some(n) = row.costs.len().checked_sub(1) else { return };
        // e_max(n) by binary search: the first e with comp(e) >= cost[n - e].
        let mut e_max = {
            let (mut lo, mut hi) = (0usize, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if comp_t(mid) >= at(row.costs, n - mid) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        for d in (0..=n).rev() {
            // `d ≤ n`; the row cut at `d` lets the compiler see that `d − e` is in it.
            let Some(costs) = row.costs.get(..=d) else { return };
            if d < n {
                // e_max(d) is e_max(d + 1) or one less, and at most d.
                e_max = match e_max.checked_sub(1) {
                    Some(e) if comp_t(e) >= at(costs, d - e) => e,
                    _ => e_max.min(d),
                };
            }
            // The max matters only when no e satisfies the e_max condition (then e_max = d),
            // which needs costs that are not 0 for 0 items (the sampled DP's refinement).
            let (mut sol, mut best) = (e_max, comm_t(e_max) + comp_t(e_max).max_of(at(costs, d - e_max)));
            // The value at e = 0 (this position takes nothing) prunes from the other end:
            // a block whose bound exceeds it cannot hold the answer, since e = 0 is as good
            // and smaller. Without it, a slow link whose best share is nothing (a λ of 1 s
            // next to μ of 1 µs) walks every e one at a time: O(n²) per position, minutes
            // for 2·10⁵ items (issue 11).
            let zero = (e_max > 0).then(|| comm_t(0) + at(costs, d));
            let cap = |best: N| zero.map_or(best, |z| best.min_of(z));
            // Below e_max the value is comm(e) + cost[d - e], and on a block [a, b] it is at
            // least comm(a) + cost[d - b]. Walk down in blocks that grow while they can be
            // skipped and shrink when they cannot; a block of one is evaluated. Equal
            // values are never skipped and move `sol` down (the smallest best e).
            let (mut hi, mut width) = (e_max, 1usize);
            while hi > 0 {
                if row.budget == 0 {
                    return;
                }
                row.budget -= 1;
                let b = hi - 1;
                let c = at(costs, d - b);
                if c > cap(best) {
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
                if comm_t(a) + c > cap(best) {
                    hi = a;
                    width = width.saturating_mul(GROW);
                } else {
                    width /= GROW;
                }
            }
            if let Some(z) = zero {
                if z <= best {
                    (sol, best) = (0, z);
                }
            }
            row.store(d, best, sol);
        }
    }
}

/// `costs[i]`, for the indices the searches above derive from `d` and `e ≤ d`, which are
/// always in the row; outside it (a bug) a cost of ∞ that no split can choose, rather than
/// a panic path (the `nopanic` link proof).
#[inline]
fn at<N: Real>(costs: &[N], i: usize) -> N {
    match costs.get(i) {
        Some(&c) => c,
        None => outside_the_row(),
    }
}

/// Out of line and cold, as the panic path it replaces was, so that the searches' hot
/// loops are laid out as before.
#[cold]
#[inline(never)]
fn outside_the_row<N: Real>() -> N {
    N::INFINITY
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

/// Follows the choices from `d` states at the first of `p` positions: `put(k, e)` for each
/// position, the last taking what is left.
pub(crate) fn backtrack<R: ChoiceRows>(rows: &R, p: usize, mut d: usize, mut put: impl FnMut(usize, usize)) {
    for k in 0..p {
        let e = if k + 1 == p { d } else { rows.get(k, d).min(d) };
        put(k, e);
        d -= e;
    }
}
