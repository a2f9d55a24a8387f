//! Model 1, the scatter: a root serves the workers one at a time, then they compute
//! (genaud2003; the slides' "bus" and "star"). How many items each worker gets, in which
//! order, and when it finishes.
//!
//! * [`plan`]: the closed form for affine costs — validate, choose the root (§3.4), order
//!   (Thm 3, `order.rs`), rational shares (Thm 1–2, `star.rs`), rounding (§3.3, [`round`]),
//!   evaluate (eq. 1–2), certified bounds.
//! * [`exact`]: the exact integer DP for any non-decreasing costs (§3.2).
//! * [`sampled`]: the same DP on sampled sizes in fixed memory, with a certified gap.
//! * [`evaluate`] and [`even_split_count`]: any plan's times, and the `MPI_Scatter` baseline.
//!
//! Memory: the caller passes `out` and `scratch`, each with one element per worker
//! (`size_of::<Assignment<N>>() + size_of::<Scratch<N>>()` bytes per worker: 120 bytes for
//! `f64` on 64-bit targets); [`plan_counts`], the counts by rank alone, takes three words
//! and a `Scratch` (88 bytes). Nothing else is allocated; the stack use is constant.

mod errors;
pub mod exact;
pub mod installments;
pub mod options;
pub(crate) mod order;
mod root;
mod round;
mod rows;
pub mod sampled;
pub mod search;
mod star;
pub mod types;

use crate::error::Error;
use crate::kernel::chain::{chain_ops, Chain};
use crate::kernel::columns::Columns;
use crate::kernel::fp;
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::report::Method;
pub use options::{
    Options, OrderPolicy, RootCandidate, RootMode, Rounding, Solver, TRANSFER_LATENCY, TRANSFER_PER_ITEM,
};
use rows::Rows;
pub(crate) use types::{col, Costs};
pub use types::{Assignment, Problem, Root, Scratch, Summary};

impl Method {
    /// Rational shares in closed form (genaud2003 Thm 1–2, affine costs), then rounded.
    pub const CLOSED_FORM: Method = Method::new("closed_form");
    /// The exact integer dynamic program ([`exact`]): optimal for the send order.
    pub const EXACT_DP: Method = Method::new("exact_dp");
    /// The dynamic program over sampled sizes with a bounded memory, finished item by
    /// item ([`sampled`]); `lower_bound` certifies its distance to the optimum.
    pub const SAMPLED_DP: Method = Method::new("sampled_dp");
    /// Rational shares of the best send order and participation found by the exact search
    /// over every order and subset ([`search`]), then rounded.
    pub const ORDER_SEARCH: Method = Method::new("order_search");
}

/// Plans a scatter: how many items each worker gets, in which order, and when it finishes.
///
/// `out` receives one [`Assignment`] per worker in send order; `scratch` is working memory.
/// Both must hold at least `problem.workers.len()` elements; only that many are used.
/// Runs in O(p log p) time for p workers; choosing among c root candidates adds a sort and a
/// solve per candidate, or, with linear costs, the bandwidth order and more than 16
/// candidates, O(c log p) and at most 16 solves (`scatter/root.rs`).
///
/// # Errors
///
/// * [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput): no workers, zero items,
///   a cost that is NaN, infinite, negative (or a zero `comp_per_item`), a root index out
///   of range, an empty candidate list.
/// * [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall): `out` or `scratch`
///   shorter than the number of workers ([`Error::needed`] says how long).
/// * [`ErrorCode::Overflow`](crate::ErrorCode::Overflow): more items than `N` can plan
///   ([`Real::MAX_ITEMS`]) or times beyond the range of a fixed-point `N`.
///
/// # Example
///
/// ```
/// use divload::{plan, Assignment, Options, Problem, Root, Scratch, Worker};
///
/// // Root (worker 0) and two workers: λ and μ in seconds per item.
/// let workers = [
///     Worker::linear(0.0, 0.009288),
///     Worker::linear(1.12e-5, 0.009365),
///     Worker::linear(1.00e-5, 0.004629),
/// ];
/// let problem = Problem { workers: &workers, root: Root::Fixed(0), items: 1000, options: Options::default() };
/// let mut out = [Assignment::EMPTY; 3];
/// let mut scratch = [Scratch::EMPTY; 3];
/// let summary = plan(&problem, &mut out, &mut scratch).unwrap();
/// assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1000);
/// assert!(summary.makespan < summary.uniform_makespan);
///
/// let bad = Problem { items: 0, ..problem };
/// assert_eq!(plan(&bad, &mut out, &mut scratch).unwrap_err().to_string(), "items: must be at least 1, got 0");
/// ```
pub fn plan<N: Real>(
    problem: &Problem<'_, N>,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch<N>],
) -> Result<Summary<N>, Error> {
    plan_with(problem, out, scratch, &mut [])
}

/// [`plan`] with the memory of the order search: with [`OrderPolicy::Search`] and at most
/// [`search::MAX_EXACT_WORKERS`] workers besides the root, the send order and the workers
/// taking part are the best over every order and subset (the exact rational optimum,
/// [`search`]), then rounded; `lines` holds [`search::search_memory`] of them. Otherwise,
/// or with `lines` short, it is [`plan`]. The report's `lower_bound` holds for every order
/// the options leave free.
///
/// # Errors
///
/// As [`plan`].
///
/// # Example
///
/// ```
/// use divload::scatter::search::{search_memory, Line};
/// use divload::{Assignment, Options, OrderPolicy, Problem, Root, Scratch, Worker};
///
/// // Startup costs make the bandwidth order (fastest link first) a poor one here.
/// let slow_start = Worker { comm_latency: 5.0, ..Worker::linear(0.01, 1.0) };
/// let workers: [Worker<f64>; 3] = [Worker::linear(0.0, 1.0), slow_start, Worker::linear(0.02, 1.0)];
/// let options = Options { order: OrderPolicy::Search, ..Options::default() };
/// let problem = Problem { workers: &workers, root: Root::Fixed(0), items: 100, options };
/// let (mut out, mut scratch) = ([Assignment::EMPTY; 3], [Scratch::EMPTY; 3]);
/// let mut lines = vec![Line::EMPTY; search_memory(3).unwrap()];
/// let best = divload::scatter::plan_searched(&problem, &mut out, &mut scratch, &mut lines).unwrap();
/// let bandwidth = Problem { options: Options::default(), ..problem };
/// let first = divload::plan(&bandwidth, &mut out, &mut scratch).unwrap();
/// assert!(best.rational_makespan < first.rational_makespan);
/// assert!(best.lower_bound <= first.makespan.min(best.makespan));
/// ```
pub fn plan_searched<N: Real>(
    problem: &Problem<'_, N>,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch<N>],
    lines: &mut [search::Line],
) -> Result<Summary<N>, Error> {
    plan_with(problem, out, scratch, lines)
}

fn plan_with<N: Real>(
    problem: &Problem<'_, N>,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch<N>],
    lines: &mut [search::Line],
) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    validate(problem.workers, problem.items, out.len(), scratch.len())?;
    // `validate` checked the length; the checked slice keeps the no-panic proof whole
    // whether or not it is inlined.
    let out_len = out.len();
    let out = out.get_mut(..p).ok_or(Error::buffer("plan output", p, out_len))?;
    plan_rows(problem, out, scratch, lines)
}

/// Plans a scatter as [`plan_searched`] does, keeping only what `MPI_Scatterv` needs:
/// each rank's count and displacement, by rank, and the send order. Memory per worker:
/// the three words of `out` and a [`Scratch`] record, 88 bytes for `f64` on 64-bit targets
/// against [`plan`]'s 120, and the caller's counts and displacements are two of those
/// words (issue 45: ten million workers within 1.3 GB through the C ABI). The counts and
/// the summary are [`plan_searched`]'s to the bit.
///
/// # Errors
///
/// As [`plan`]; a buffer of `out` shorter than the workers is named in the error. On an
/// error the contents of `out` are meaningless.
///
/// # Example
///
/// ```
/// use divload::scatter::{plan_counts, ByRank};
/// use divload::{Options, Problem, Root, Scratch, Worker};
///
/// let workers = [Worker::linear(0.0, 0.01), Worker::linear(1e-4, 0.01), Worker::linear(2e-4, 0.02)];
/// let problem = Problem { workers: &workers, root: Root::Fixed(0), items: 1000, options: Options::default() };
/// let (mut counts, mut displs, mut order) = ([0u64; 3], [0u64; 3], [0u64; 3]);
/// let mut scratch = [Scratch::EMPTY; 3];
/// let mut finish = [0.0; 3];
/// let out = ByRank { counts: &mut counts, displs: &mut displs, order: &mut order, finish: Some(&mut finish) };
/// let summary = plan_counts(&problem, out, &mut scratch, &mut []).unwrap();
/// assert_eq!(counts.iter().sum::<u64>(), 1000);
/// assert_eq!(order, [1, 2, 0]); // fastest link first, the root last
/// assert_eq!(displs[order[1] as usize], counts[1]);
/// assert!(summary.makespan <= summary.bound);
/// assert_eq!(finish.iter().fold(0.0f64, |a, &b| a.max(b)), summary.makespan);
/// ```
pub fn plan_counts<N: Real>(
    problem: &Problem<'_, N>,
    out: ByRank<'_, N>,
    scratch: &mut [Scratch<N>],
    lines: &mut [search::Line],
) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    crate::platform::check_sizes::<N>(p, problem.items)?;
    let ByRank { counts, displs, order, finish } = out;
    fn cut<'a>(what: &'static str, buffer: &'a mut [u64], p: usize) -> Result<&'a mut [u64], Error> {
        let len = buffer.len();
        buffer.get_mut(..p).ok_or(Error::buffer(what, p, len))
    }
    let (count, share, worker) =
        (cut("counts", counts, p)?, cut("displs", displs, p)?, cut("send order", order, p)?);
    let finish = match finish {
        Some(f) => {
            let len = f.len();
            Some(f.get_mut(..p).ok_or(Error::buffer("finish", p, len))?)
        }
        None => None,
    };
    validate(problem.workers, problem.items, p, scratch.len())?;
    let mut rows = rows::Split { worker, count, share };
    let summary = plan_rows(problem, &mut rows, scratch, lines)?;
    let rows::Split { worker, count, share } = rows;
    // `validate` checked the scratch's length.
    let scratch_len = scratch.len();
    let spare = scratch.get_mut(..p).ok_or(Error::buffer("scratch", p, scratch_len))?;
    let costs = Costs::new(problem.workers, summary.root);
    rows::by_rank(&costs, worker, count, share, finish, &mut Columns::new(spare));
    Ok(summary)
}

/// Where [`plan_counts`] writes: counts and displacements by rank, as `MPI_Scatterv` takes
/// them, the ranks in send order, and if asked each rank's finish time. Each holds at
/// least one element per worker.
#[derive(Debug)]
pub struct ByRank<'a, N> {
    /// Items of each rank.
    pub counts: &'a mut [u64],
    /// Offset of each rank's block in the root's buffer (blocks contiguous in send order).
    pub displs: &'a mut [u64],
    /// The ranks in send order.
    pub order: &'a mut [u64],
    /// When each rank finishes (what [`plan`] reports as its `Assignment::finish`).
    pub finish: Option<&'a mut [N]>,
}

/// The plan of [`plan_with`] into any rows; `out` holds exactly one row per worker, and
/// the workers, the item count and `scratch`'s length are valid (checked by the callers).
fn plan_rows<N: Real, R: Rows<N> + ?Sized>(
    problem: &Problem<'_, N>,
    out: &mut R,
    scratch: &mut [Scratch<N>],
    lines: &mut [search::Line],
) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    let scratch_len = scratch.len();
    let mut cols = Columns::new(scratch.get_mut(..p).ok_or(Error::buffer("scratch", p, scratch_len))?);
    let items = N::from_u64(problem.items);
    let opts = problem.options;

    let (root, root_transfer) = match problem.root {
        Root::Fixed(r) => {
            if r >= p {
                return Err(Error::root_out_of_range(r, p));
            }
            (r, N::ZERO)
        }
        Root::Choose(candidates) => root::choose_root(problem.workers, candidates, items, opts, &mut cols)?,
    };
    let costs = Costs::new(problem.workers, root);

    order::send_order(problem.workers, root, opts.root_mode, opts.order, &mut cols);
    let mut rational = star::solve(&costs, items, &mut cols, Some(out));
    let n_ops = chain_ops(p);
    let mut method = Method::CLOSED_FORM;
    // The exact search over orders and subsets, where latencies make the order matter
    // (with linear costs Thm 3 already gives the best order). Its plan replaces the
    // bandwidth order's only when better: the heuristic participation may reach it too.
    let (mut proven, mut relaxed) = (None, None);
    if opts.order == OrderPolicy::Search && !costs.linear {
        let n = problem.items as f64;
        if let Some(found) = search::search(problem.workers, root, opts.root_mode, n, lines) {
            proven = found.exact.then_some(found.makespan);
            if found.makespan < rational.makespan.to_f64() {
                if !found.exact {
                    // The bound over every order is taken in the bandwidth order, which the
                    // columns hold until the searched one replaces it.
                    let upper = fp::exact_at_most(rational.makespan, n_ops);
                    relaxed = Some(star::lower_bound(
                        p,
                        |k| costs.at(&cols, k, || out.worker(k)),
                        problem.items,
                        upper,
                        true,
                    ));
                }
                place_searched(
                    &costs,
                    problem.workers,
                    root,
                    opts.root_mode,
                    n,
                    lines,
                    &found,
                    &mut cols,
                    out,
                );
                let makespan = N::from_f64(found.makespan).unwrap_or(rational.makespan);
                rational = star::Rational { makespan, exact: found.exact, linear_r: None };
                method = Method::ORDER_SEARCH;
            } else {
                // No better than the bandwidth order's plan, the optimum proven: that plan is it.
                rational.exact |= found.exact;
            }
        }
    }
    round::round(opts.rounding, &costs, problem.items, out, &mut cols);
    let done = finish(&costs, &cols, out, problem.items);
    if !done.shares_rounded {
        return Err(Error::numeric_overflow(N::NAME));
    }
    let makespan = done.makespan;

    // Bounds in floating point (issue 11): the lower bound is computed in f64 below the
    // exact optimum, then lowered by what `N` may lose when it evaluates a plan's chain, so
    // `lower_bound ≤ makespan ≤ bound` holds for the values as computed.
    let upper = fp::exact_at_most(makespan.max_of(rational.makespan), n_ops);
    // The bound holds for every order the options leave free: the given one, or any.
    let linear = rational.linear_r.map(|r| star::bound_of(r, problem.items as f64, p));
    let mut lower = match relaxed.or(linear) {
        Some(bound) => bound,
        None => star::lower_bound(
            p,
            |k| costs.at(&cols, k, || out.worker(k)),
            problem.items,
            upper,
            opts.order != OrderPolicy::Given,
        ),
    };
    if let Some(t) = proven {
        // The exact optimum over every order and subset, computed in f64: a few roundings
        // per worker along the chain behind it.
        lower = lower.max(fp::below(t, 8 * p as u64 + 8).min(upper));
    }
    let lower_bound = fp::lower_for::<N>(lower, 0, n_ops);
    let bound = fp::upper_for::<N>(done.rounding_bound, 2 * p as u64 + 8, n_ops);
    let uniform_makespan = done.uniform_makespan;

    let summary = Summary {
        items: problem.items,
        root,
        root_transfer,
        makespan,
        rational_makespan: rational.makespan,
        rational_exact: rational.exact,
        lower_bound,
        bound,
        uniform_makespan,
        participating: done.participating,
        method,
    };
    if ![makespan, rational.makespan, bound, uniform_makespan, root_transfer].iter().all(|t| t.is_finite()) {
        return Err(Error::numeric_overflow(N::NAME));
    }
    Ok(summary)
}

/// Writes the searched plan's send order into the columns (`col::WORKER`, `LAMBDA`, `MU`)
/// and its rational shares into `out`: the root where its mode puts it, the chain's
/// participants in order, then the workers left out, with no share.
#[allow(clippy::too_many_arguments)]
fn place_searched<N: Real, R: Rows<N> + ?Sized>(
    costs: &Costs<'_, N>,
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    n: f64,
    lines: &[search::Line],
    found: &search::Found,
    cols: &mut Columns<'_, Scratch<N>>,
    out: &mut R,
) {
    let p = out.len();
    let mut place = |k: usize, i: usize, x: f64| {
        let w = costs.of(i);
        cols.set(col::WORKER, k, i as u64);
        cols.set(col::LAMBDA, k, w.comm_per_item.sort_key());
        cols.set_real(col::MU, k, w.comp_per_item);
        out.place(k, i, N::from_f64(x).unwrap_or(N::ZERO));
    };
    let (mut used, mut root_share, mut k) = (0u64, 0.0, usize::from(mode == RootMode::Overlap));
    search::shares(workers, root, n, lines, found, |i, x| {
        if i == root {
            root_share = x;
        } else {
            place(k, i, x);
            used |= 1 << (i - usize::from(i > root)).min(63);
            k += 1;
        }
    });
    for i in (0..p).filter(|&i| i != root && used & 1 << (i - usize::from(i > root)).min(63) == 0) {
        place(k, i, 0.0);
        k += 1;
    }
    place(if mode == RootMode::Overlap { 0 } else { p - 1 }, root, root_share);
}

fn validate<N: Real>(workers: &[Worker<N>], items: u64, out: usize, scratch: usize) -> Result<(), Error> {
    let p = workers.len();
    crate::platform::check_sizes::<N>(p, items)?;
    if out < p {
        return Err(Error::buffer("plan output", p, out));
    }
    if scratch < p {
        return Err(Error::buffer("scratch", p, scratch));
    }
    if workers.iter().fold(true, |ok, w| ok & w.plainly_valid()) {
        return Ok(());
    }
    for (i, w) in workers.iter().enumerate() {
        w.validate(i)?;
    }
    Ok(())
}

/// Fills start, received, finish and displacement from the counts; returns the makespan.
fn fill_times<N: Real>(costs: &Costs<'_, N>, plan: &mut [Assignment<N>]) -> N {
    fill_plan(plan, |worker, count| {
        let (w, x) = (costs.of(worker), N::from_u64(count));
        (w.comm_time(x), w.comp_time(x))
    })
}

/// What the last pass over a rounded plan finds.
struct Finished<N> {
    makespan: N,
    /// The rational shares add up to the items (within half an item) and each count is
    /// within one item of its share: what the rounding guarantee of eq. (4) rests on. In
    /// `f64` and `f32` it always holds; `Q32` loses it when costs span more than its 2⁻³²
    /// resolution can follow (per-item times of 10⁻⁹ next to 10³), and a plan without its
    /// guarantee is an error rather than a bound that does not hold.
    shares_rounded: bool,
    /// `T + maxᵢ (Σ_{j≤i} λⱼ + μᵢ)` over workers with a positive rational share, where `T`
    /// is the exact makespan of the rational shares that were rounded: rounding changes
    /// each such share by less than one item, and a participant's latencies are paid either
    /// way (genaud2003 eq. 4 and (6), sharpened). Computed in f64 over the rounded shares;
    /// the caller raises it by its rounding error and by what `N` may add when it evaluates
    /// the integer plan ([`fp::upper_for`]), so the bound is above the makespan as computed.
    rounding_bound: f64,
    /// The even split in the same send order.
    uniform_makespan: N,
    participating: usize,
}

/// Fills displacements and times of the rounded plan and computes everything else the
/// summary needs from it, in one pass in send order.
fn finish<N: Real, R: Rows<N> + ?Sized>(
    costs: &Costs<'_, N>,
    cols: &Columns<'_, Scratch<N>>,
    plan: &mut R,
    items: u64,
) -> Finished<N> {
    let p = plan.len();
    let (mut chain, mut rational, mut uniform) = (Chain::new(), Chain::new(), Chain::new());
    let (mut offset, mut participating) = (0u64, 0usize);
    let (mut sum, mut close) = (0.0f64, true);
    let (mut lambdas, mut worst) = (0.0f64, 0.0f64);
    for k in 0..p {
        let w = costs.at(cols, k, || plan.worker(k));
        let count = plan.count(k);
        let x = N::from_u64(count);
        let t = chain.serve(w.comm_time(x), w.comp_time(x));
        plan.record(k, offset, t);
        offset += count;
        participating += usize::from(count > 0);

        let share = plan.share(k).to_f64();
        // `|count − share| < 1`, decided exactly: the rounded difference is 1 for a share
        // of 10⁻²⁵ that got one item, which the greedy may give (a root served last on
        // 5 000 workers), and such a plan was refused as an overflow.
        let floor = share as u64;
        close &=
            share > -1.0 && (count == floor || (count.checked_sub(1) == Some(floor) && share > floor as f64));
        sum += share;
        let (comm, comp) = if share > 0.0 {
            lambdas += w.comm_per_item.to_f64();
            worst = worst.max(lambdas + w.comp_per_item.to_f64());
            (
                w.comm_latency.to_f64() + w.comm_per_item.to_f64() * share,
                w.comp_latency.to_f64() + w.comp_per_item.to_f64() * share,
            )
        } else {
            (0.0, 0.0)
        };
        rational.serve(comm, comp);

        let even = N::from_u64(even_split_count(items, p, k));
        uniform.serve(w.comm_time(even), w.comp_time(even));
    }
    Finished {
        makespan: chain.makespan(),
        shares_rounded: close && (sum - items as f64).abs() <= 0.5 + sum * 1e-9,
        rounding_bound: rational.makespan() + worst,
        uniform_makespan: uniform.makespan(),
        participating,
    }
}

/// The even split of `MPI_Scatter`, the baseline every summary compares with: the count
/// of send position `k` among `workers` is `⌊items/workers⌋`, one more for the first
/// `items mod workers` positions (0 when `workers` is 0).
///
/// ```
/// let counts: Vec<u64> = (0..4).map(|k| divload::even_split_count(10, 4, k)).collect();
/// assert_eq!(counts, [3, 3, 2, 2]);
/// ```
pub fn even_split_count(items: u64, workers: usize, k: usize) -> u64 {
    let Some(p) = u64::try_from(workers).ok().filter(|&p| p > 0) else { return 0 };
    items / p + u64::from((k as u64) < items % p)
}

/// Evaluates any integer plan: given `plan[..].worker` (send order) and `plan[..].count`,
/// fills displacements, start, received and finish times, and returns the makespan.
///
/// The root must be served last with [`RootMode::AfterSend`] and first with
/// [`RootMode::Overlap`]; its own communication costs nothing.
///
/// # Errors
///
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for no workers, a worker
/// index out of range or repeated, an invalid cost, counts that do not add up to `items`,
/// or a root that is not where `mode` puts it.
///
/// ```
/// use divload::{evaluate, Assignment, RootMode, Worker};
/// let workers = [Worker::linear(0.0, 1.0), Worker::linear(0.5, 1.0)];
/// let mut plan = [
///     Assignment { worker: 1, count: 2, ..Assignment::EMPTY },
///     Assignment { worker: 0, count: 2, ..Assignment::EMPTY },
/// ];
/// let t = evaluate(&workers, 0, RootMode::AfterSend, 4, &mut plan).unwrap();
/// assert_eq!(t, 3.0); // worker 1: 1 s to receive + 2 s; the root: 1 s of sending + 2 s
/// ```
pub fn evaluate<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    items: u64,
    plan: &mut [Assignment<N>],
) -> Result<N, Error> {
    let p = workers.len();
    if p == 0 {
        return Err(Error::no_workers());
    }
    if root >= p {
        return Err(Error::root_out_of_range(root, p));
    }
    if plan.len() != p {
        return Err(Error::buffer("plan", p, plan.len()));
    }
    for (i, w) in workers.iter().enumerate() {
        w.validate(i)?;
    }
    // Each worker must appear once: mark seen workers in the displacement fields, which
    // `fill_times` overwrites afterwards.
    for a in plan.iter_mut() {
        a.displacement = 0;
    }
    let mut total = 0u64;
    for k in 0..p {
        let w = plan[k].worker;
        if w >= p {
            return Err(Error::plan_worker(k, w, p));
        }
        if plan[w].displacement == 1 {
            return Err(Error::plan_worker(k, w, p));
        }
        plan[w].displacement = 1;
        total = total.saturating_add(plan[k].count);
    }
    if total != items {
        return Err(Error::counts(total, items));
    }
    let root_pos = match mode {
        RootMode::AfterSend => p - 1,
        RootMode::Overlap => 0,
    };
    if plan[root_pos].worker != root {
        return Err(Error::root_position(root, mode == RootMode::Overlap));
    }
    let costs = Costs::new(workers, root);
    let t = fill_times(&costs, plan);
    if t.is_finite() {
        Ok(t)
    } else {
        Err(Error::numeric_overflow(N::NAME))
    }
}

/// Rounds rational shares to integer counts with an exact sum.
///
/// `plan[..].worker` gives the send order (as [`plan`] produces it) and `plan[..].share`
/// the rational shares; on success `plan[..].count` holds counts that add up to `items`,
/// each within one item of its share, and the times are filled in as by [`evaluate`],
/// whose makespan is returned. `scratch` needs one element per worker.
///
/// # Errors
///
/// Everything [`evaluate`] rejects, plus a share that is negative or not finite, shares
/// that do not add up to `items` within 0.5, and a `scratch` shorter than `plan`.
///
/// ```
/// use divload::{round, Assignment, RootMode, Rounding, Scratch, Worker};
/// let workers = [Worker::linear(0.0, 1.0), Worker::linear(0.1, 1.0), Worker::linear(0.1, 2.0)];
/// let mut plan = [
///     Assignment { worker: 1, share: 3.4, ..Assignment::EMPTY },
///     Assignment { worker: 2, share: 2.3, ..Assignment::EMPTY },
///     Assignment { worker: 0, share: 4.3, ..Assignment::EMPTY },
/// ];
/// let mut scratch = [Scratch::EMPTY; 3];
/// round(Rounding::LargestRemainder, &workers, 0, RootMode::AfterSend, 10, &mut plan, &mut scratch).unwrap();
/// assert_eq!([plan[0].count, plan[1].count, plan[2].count], [4, 2, 4]);
/// ```
pub fn round<N: Real>(
    scheme: Rounding,
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    items: u64,
    plan: &mut [Assignment<N>],
    scratch: &mut [Scratch<N>],
) -> Result<N, Error> {
    if scratch.len() < plan.len() {
        return Err(Error::buffer("scratch", plan.len(), scratch.len()));
    }
    if items == 0 {
        return Err(Error::no_items());
    }
    if items > N::MAX_ITEMS {
        return Err(Error::too_many_items(items, N::MAX_ITEMS, N::NAME));
    }
    let mut sum = 0.0f64;
    for (k, a) in plan.iter().enumerate() {
        let s = a.share.to_f64();
        if !(s.is_finite() && s >= 0.0 && a.share.is_finite()) {
            return Err(Error::share_value(k, s));
        }
        sum += s;
    }
    let close = (sum - items as f64).abs() <= 0.5;
    if !close {
        return Err(Error::shares(sum, items));
    }
    // Checks the send order and the root position (counts are set just below).
    for a in plan.iter_mut() {
        a.count = 0;
    }
    if let Some(a) = plan.first_mut() {
        a.count = items;
    }
    evaluate(workers, root, mode, items, plan)?;
    let costs = Costs::new(workers, root);
    let p = plan.len();
    let mut cols = Columns::new(&mut scratch[..p]);
    for (k, a) in plan.iter().enumerate() {
        let w = costs.of(a.worker);
        cols.set(col::LAMBDA, k, w.comm_per_item.sort_key());
        cols.set_real(col::MU, k, w.comp_per_item);
    }
    round::round(scheme, &costs, items, plan, &mut cols);
    evaluate(workers, root, mode, items, plan)
}

/// Fills displacements (contiguous in send order), start, received and finish times of an
/// integer plan from its counts; `times(worker, count)` gives the receive and compute
/// times. Returns the makespan.
pub(crate) fn fill_plan<N: Real>(plan: &mut [Assignment<N>], times: impl Fn(usize, u64) -> (N, N)) -> N {
    let mut chain = Chain::new();
    let mut offset = 0u64;
    for a in plan.iter_mut() {
        let (comm, comp) = times(a.worker, a.count);
        let t = chain.serve(comm, comp);
        a.displacement = offset;
        offset += a.count;
        (a.start, a.received, a.finish) = (t.start, t.received, t.finish);
    }
    chain.makespan()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count one above a share of 10⁻²⁵ is within one item of it: the greedy gives the
    /// root, served last after 5 000 workers, one item on top of such a share, and the
    /// plan used to be refused as a numeric overflow (the check subtracted in `f64`).
    #[test]
    fn a_tiny_share_raised_by_one_item_is_rounded() {
        let p = 5000;
        let workers: std::vec::Vec<Worker<f64>> = (0..p)
            .map(|i| Worker {
                comm_latency: 0.0,
                comm_per_item: 1e-3 + ((i * 7919) % 1000) as f64 * 1e-5,
                comp_latency: 0.0,
                comp_per_item: 0.1 + ((i * 104729) % 1000) as f64 * 1e-3,
            })
            .collect();
        let options = Options {
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Bandwidth,
            rounding: Rounding::Greedy,
        };
        let problem = Problem { workers: &workers, items: 1_000_000_000, root: Root::Fixed(0), options };
        let (mut out, mut scratch) = (std::vec![Assignment::EMPTY; p], std::vec![Scratch::EMPTY; p]);
        let summary = plan(&problem, &mut out, &mut scratch).expect("a plan");
        assert!(summary.lower_bound <= summary.makespan && summary.makespan <= summary.bound);
        let raised = out.iter().find(|a| a.worker == 0).expect("the root");
        assert!(raised.count == 1 && raised.share > 0.0 && raised.share < 1e-20, "{raised:?}");
        assert_eq!(1.0 - raised.share, 1.0);
        assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1_000_000_000);
    }

    /// The root's own link is never charged: whatever valid costs it has, the plan and its
    /// summary are those of a root whose link costs nothing, to the bit. The C ABI relies on
    /// it to plan a caller's workers in place (issue 45) instead of copying them with the
    /// root's link zeroed.
    #[test]
    fn a_root_link_changes_no_plan() {
        let mut rnd = crate::num::xorshift(0x5eed_0045);
        let mut unit = move || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        for case in 0..600 {
            let p = 1 + (case % 23) + usize::from(case % 7 == 0) * 200;
            let latencies = case % 3 != 0;
            let mut workers = types::random_workers(&mut unit, p, latencies);
            let root = case % p;
            let options = Options {
                root_mode: [RootMode::AfterSend, RootMode::Overlap][case % 2],
                order: [OrderPolicy::Bandwidth, OrderPolicy::Given, OrderPolicy::Search][case % 3],
                rounding: [Rounding::Greedy, Rounding::LargestRemainder, Rounding::Paper][(case / 3) % 3],
            };
            let items = 1 + (unit() * 1e7) as u64;
            let run = |workers: &[Worker<f64>]| {
                let problem = Problem { workers, items, root: Root::Fixed(root), options };
                let (mut out, mut scratch) = (std::vec![Assignment::EMPTY; p], std::vec![Scratch::EMPTY; p]);
                let mut lines = std::vec![search::Line::EMPTY; search::search_memory(p).unwrap_or(0)];
                let summary = plan_searched(&problem, &mut out, &mut scratch, &mut lines).expect("a plan");
                (out, summary)
            };
            workers[root].comm_latency = 0.0;
            workers[root].comm_per_item = 0.0;
            let want = run(&workers);
            workers[root].comm_latency = unit() * 10.0;
            workers[root].comm_per_item = unit();
            let got = run(&workers);
            assert_eq!(got.0, want.0, "case {case}: {options:?}");
            assert_eq!(std::format!("{:?}", got.1), std::format!("{:?}", want.1), "case {case}");
        }
    }

    /// `plan_counts` gives `plan_searched`'s plan to the bit, by rank: random platforms with
    /// and without latencies, every rounding, order and root mode, roots fixed and chosen,
    /// `f64`, `f32` and `Q32`; and it names a short buffer.
    #[test]
    fn plan_counts_is_the_plan_by_rank() {
        /// Returns how many of the cases planned.
        fn check<N: Real>(seed: u64, cases: usize) -> usize {
            let mut planned = 0;
            let mut rnd = crate::num::xorshift(seed);
            let mut unit = move || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
            for case in 0..cases {
                let p = 1 + (case % 29) + usize::from(case % 11 == 0) * 300;
                let latencies = case % 3 != 0;
                let n = |x: f64| N::from_f64(x).unwrap();
                let workers: std::vec::Vec<Worker<N>> = (0..p)
                    .map(|_| Worker {
                        comm_latency: n(if latencies { unit() * 1e-3 } else { 0.0 }),
                        comm_per_item: n(1e-5 + unit() * 1e-4),
                        comp_latency: n(if latencies { unit() * 1e-2 } else { 0.0 }),
                        comp_per_item: n(1e-3 + unit() * 1e-2),
                    })
                    .collect();
                let candidates: std::vec::Vec<RootCandidate<N>> = (0..p.min(5))
                    .map(|i| RootCandidate {
                        worker: i * 7 % p,
                        transfer_latency: n(unit()),
                        transfer_per_item: n(unit() * 1e-5),
                    })
                    .collect();
                let root = if case % 4 == 3 { Root::Choose(&candidates) } else { Root::Fixed(case % p) };
                let options = Options {
                    root_mode: [RootMode::AfterSend, RootMode::Overlap][case % 2],
                    order: [OrderPolicy::Bandwidth, OrderPolicy::Given, OrderPolicy::Search][case % 3],
                    rounding: [Rounding::Greedy, Rounding::LargestRemainder, Rounding::Paper][(case / 3) % 3],
                };
                let items = 1 + (unit() * 1e6) as u64;
                let problem = Problem { workers: &workers, items, root, options };
                let mut scratch = std::vec![Scratch::EMPTY; p];
                let mut lines = std::vec![search::Line::EMPTY; search::search_memory(p).unwrap_or(0)];
                let mut out = std::vec![Assignment::EMPTY; p];
                let want = plan_searched(&problem, &mut out, &mut scratch, &mut lines);
                let (mut counts, mut displs, mut order) = (std::vec![7; p], std::vec![7; p], std::vec![7; p]);
                let mut finish = std::vec![N::ZERO; p];
                let by_rank = ByRank {
                    counts: &mut counts,
                    displs: &mut displs,
                    order: &mut order,
                    finish: Some(&mut finish),
                };
                let got = plan_counts(&problem, by_rank, &mut scratch, &mut lines);
                // Errors too (f32 and Q32 overflow on some of these): the same ones.
                assert_eq!(std::format!("{got:?}"), std::format!("{want:?}"), "{} case {case}", N::NAME);
                planned += usize::from(want.is_ok());
                if want.is_err() {
                    continue;
                }
                for (k, a) in out.iter().enumerate() {
                    assert_eq!(finish[a.worker].to_word(), a.finish.to_word(), "{} case {case}", N::NAME);
                    assert_eq!(order[k], a.worker as u64, "{} case {case}", N::NAME);
                    assert_eq!(
                        (counts[a.worker], displs[a.worker]),
                        (a.count, a.displacement),
                        "case {case}"
                    );
                }
            }
            planned
        }
        assert_eq!(check::<f64>(0x5eed_0452, 900), 900);
        assert!(check::<f32>(0x5eed_0453, 300) > 150);
        assert!(check::<crate::Q32>(0x5eed_0454, 300) > 150);
        let workers = [Worker::linear(0.0, 1.0), Worker::linear(0.1, 1.0)];
        let problem =
            Problem { workers: &workers, items: 10, root: Root::Fixed(0), options: Options::default() };
        let (mut counts, mut displs, mut order, mut scratch) = ([0; 2], [0; 1], [0; 2], [Scratch::EMPTY; 2]);
        let short = ByRank { counts: &mut counts, displs: &mut displs, order: &mut order, finish: None };
        let err = plan_counts(&problem, short, &mut scratch, &mut []).unwrap_err();
        assert!(std::format!("{err}").contains("displs"), "{err}");
    }

    /// The memory figures in the docs (docs/rust.md, BENCHMARKS.md, this module) depend on these.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn per_worker_memory_is_as_documented() {
        assert_eq!(core::mem::size_of::<Assignment<f64>>(), 56);
        assert_eq!(core::mem::size_of::<Scratch<f64>>(), 64);
    }
}
