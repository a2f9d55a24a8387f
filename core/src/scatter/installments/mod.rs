//! The star in full: several installments per worker, memory caps, release times, a root
//! that only distributes, and the deadline question (issue 42 §1, §3–§5;
//! `docs/derivations/installments.md`).
//!
//! The root sends chunks one at a time on its single port, each paying its worker's
//! `comm_latency` plus `comm_per_item` per item. A worker computes its chunks in arrival
//! order: a chunk starts once it has arrived, the worker's previous chunk is done and the
//! worker's `available_at` has come, and pays `comp_latency` plus `comp_per_item` per item.
//! A chunk holds at most the worker's `max_items`.
//!
//! How a plan is found:
//! * sequences: `R` rounds over the workers in bandwidth order (round-robin; `R = 1` is the
//!   single-round plan), `R` from 1 up while it helps (or up to the `installments` asked);
//! * for each sequence, the optimal rational sizes: an LP per horizon and Newton's method
//!   on the horizon (`lp.rs`); chunks the LP leaves empty are dropped and the rest solved
//!   again, since an empty chunk still pays its latencies there;
//! * whole counts: floors, then item by item where the makespan grows least (`counts.rs`);
//! * beyond [`MAX_CHUNKS`] workers that compute, one round: the most items each worker in
//!   bandwidth order still finishes by a horizon, the least horizon by bisection, and whole
//!   counts by rounding the prefix sums (`wide.rs`), O(p) a horizon; and, without caps,
//!   in memory from [`memory_for`], the uniform multi-round schedule (UMR) of Yang,
//!   van der Raadt and Casanova when it is faster (`umr.rs`), O(p) a round; for a deadline,
//!   UMR's rounds for the most items that end by it, by bisection on the items (`many.rs`);
//! * with caps, in memory from [`memory_for`], beyond the rounds the LP holds (over more
//!   than [`MAX_CHUNKS`] workers, or more rounds than its chunks hold): rounds of the same
//!   fill, each worker whose last chunk met its cap taking the most that still finishes by
//!   the horizon within its cap (`wide.rs`), in as many rounds as allowed; for a deadline,
//!   the most whole items by it.
//!
//! Up to [`MAX_CHUNKS`] chunks, sizing a round-robin sequence by its LP is at least as good
//! as UMR on the same sequence (UMR fixes the sizes by a geometric rule; the LP picks the
//! best ones), and the number of rounds is searched rather than taken from UMR's formula.
//!
//! The plan's `lower_bound` holds for every plan with at most `installments` chunks per
//! worker in any order (any number with [`Installments::Auto`]): `bound.rs`.
//!
//! Memory: [`memory`] gives the caller's slices for `p` workers, O(p) plus a tableau of at
//! most [`MAX_CHUNKS`] chunks (0.4 MiB); nothing is allocated.

mod bound;
mod counts;
mod lp;
mod many;
mod sequences;
mod umr;
mod wide;

use crate::error::{Error, ErrorCode, Template};
use crate::num::range::{NON_NEGATIVE, POSITIVE};
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::report::{Method, Report};
use counts::{schedule, Goal};
use lp::{Costs, RootColumn};
use sequences::{every_sequence, try_sequence, Work};
pub use sequences::{EXACT_CHUNKS, EXACT_WORKERS};
pub use umr::{MAX_WIDE_CHUNKS, MAX_WIDE_ROUNDS};

/// Most chunks in one sequence (besides the root's share): the LP of a sequence is dense,
/// (3K + 3) rows by 4K + 4 columns, about 50 k `f64` (0.4 MiB) at K = 64, and a solve takes
/// milliseconds there.
pub const MAX_CHUNKS: usize = 64;

/// Most installments a document may ask for.
pub const MAX_INSTALLMENTS: u32 = MAX_CHUNKS as u32;

impl Method {
    /// Round-robin sequences of installments, each sized by its linear program, the best
    /// number of rounds ([`installments`](crate::scatter::installments)).
    pub const INSTALLMENTS: Method = Method::new("installments_lp");
    /// Over more workers than the LP takes: the uniform multi-round schedule of Yang, van
    /// der Raadt and Casanova, its number of rounds chosen on its predicted makespan.
    pub const UNIFORM_MULTI_ROUND: Method = Method::new("uniform_multi_round");
    /// Every sequence with at most the asked installments per worker sized by its linear
    /// program (a few workers): the best rational plan of them all, proven.
    pub const INSTALLMENTS_EVERY_SEQUENCE: Method = Method::new("installments_every_sequence");
    /// Rounds in which every worker takes, in bandwidth order, the most items that still
    /// finish by the horizon within its cap: where caps need more rounds than the LP's
    /// chunks hold, or over more workers than it takes.
    pub const FILLED_ROUNDS: Method = Method::new("filled_rounds");
}

/// What a sequence's LP may lose in `f64`, relative: its simplex and Newton's steps end
/// within 10⁻¹² of the exact rational optimum on every platform of the tests
/// (`plans_against_every_sequence_in_exact_rationals`); the bound keeps a thousand times
/// more.
const PROVEN_SLACK: f64 = 1e-9;

/// How many installments each worker may receive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Installments {
    /// As many as help, up to [`MAX_CHUNKS`] chunks in all.
    #[default]
    Auto,
    /// At most this many per worker (1 ..= [`MAX_INSTALLMENTS`]).
    AtMost(u32),
}

/// What the root does besides sending.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RootWork {
    /// It computes its own share after sending every chunk (`MPI_Scatterv`).
    #[default]
    AfterSend,
    /// It computes its own share while it sends.
    Overlap,
    /// It only distributes (an I/O rank; DLT-Studio's master).
    None,
}

/// A planning problem with installments.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a, N> {
    /// The workers, root included, in input order.
    pub workers: &'a [Worker<N>],
    /// The root's index.
    pub root: usize,
    /// What the root does besides sending.
    pub root_work: RootWork,
    /// The items to plan; with a deadline, the most there are.
    pub items: u64,
    /// Plan the most whole items finished by this time (seconds) instead of all of them.
    pub deadline: Option<N>,
    /// The most items each worker may hold in one installment, one per worker, or empty for
    /// no caps.
    pub max_items: &'a [u64],
    /// When each worker may start computing (seconds), one per worker, or empty for 0.
    pub available_at: &'a [N],
    /// Installments per worker.
    pub installments: Installments,
}

/// One installment of a plan, in the order the root sends them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chunk<N> {
    /// The worker (its rank) that receives and computes it; the root for its own share.
    pub worker: usize,
    /// Items in it.
    pub count: u64,
    /// Offset of its items in the root's buffer. Each worker's items are one block (the
    /// blocks in the order of the workers' first chunks) and its chunks are consecutive
    /// parts of it, so a rank receives every chunk into one buffer and a one-shot
    /// `MPI_Scatterv` of the workers' totals moves the same items.
    pub displacement: u64,
    /// Its rational size before rounding.
    pub share: N,
    /// When the root starts sending it (the root's own share: when it is set aside).
    pub send_start: N,
    /// When it has arrived.
    pub send_end: N,
    /// When its worker starts computing it.
    pub compute_start: N,
    /// When its worker has computed it.
    pub compute_end: N,
}

impl<N: Real> Chunk<N> {
    /// An empty entry, for initialising fixed-size arrays.
    pub const EMPTY: Self = Chunk {
        worker: 0,
        count: 0,
        displacement: 0,
        share: N::ZERO,
        send_start: N::ZERO,
        send_end: N::ZERO,
        compute_start: N::ZERO,
        compute_end: N::ZERO,
    };
}

/// What [`plan`] reports besides the chunks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary<N> {
    /// Items planned (with a deadline: the most that finish in time).
    pub items: u64,
    /// With a deadline, no plan finishes more than this many items in time; otherwise
    /// `items`.
    pub items_bound: u64,
    /// The root's index.
    pub root: usize,
    /// Makespan of the integer plan.
    pub makespan: N,
    /// Makespan of the rational sizes of the chosen sequence (with a deadline: the
    /// deadline, which the rational sizes fill).
    pub rational_makespan: N,
    /// A lower bound on the makespan of every plan of `items` items with at most
    /// `installments` chunks per worker, in any sequence (with a deadline: of as many items
    /// as planned).
    pub lower_bound: N,
    /// Chunks in the plan (the root's share counts as one).
    pub chunks: usize,
    /// Rounds of the chosen sequence.
    pub rounds: u32,
    /// Workers that compute something, the root included.
    pub participating: usize,
    /// Makespan of the even split of the plan's `items` in one installment (`MPI_Scatter`:
    /// ⌊n/P⌋ items to each of the P workers that may compute, one more to the first
    /// `n mod P` in bandwidth order), caps aside: the baseline of `speedup`.
    pub uniform_makespan: N,
    /// How the counts were obtained.
    pub method: Method,
}

impl<N: Real> Summary<N> {
    /// How much faster than the even split ([`crate::report::speedup`]).
    pub fn speedup(&self) -> f64 {
        crate::report::speedup(self.uniform_makespan.to_f64(), self.makespan.to_f64())
    }

    /// The answer's quality in the terms every model uses.
    pub fn report(&self) -> Report<N> {
        Report {
            method: self.method,
            makespan: self.makespan,
            lower_bound: self.lower_bound,
            exact: self.makespan <= self.lower_bound,
        }
    }
}

/// The caller's memory for a plan over `p` workers: how many elements each slice of
/// [`Memory`] needs, or `None` on overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// [`Memory::chunks`].
    pub chunks: usize,
    /// [`Memory::tableau`].
    pub tableau: usize,
    /// [`Memory::reals`].
    pub reals: usize,
    /// [`Memory::indices`].
    pub indices: usize,
}

/// The sizes of [`Memory`] for `p` workers.
pub const fn memory(p: usize) -> Option<Sizes> {
    let Some(tableau) = lp::tableau_for(MAX_CHUNKS) else { return None };
    let Some(wide) = p.checked_add(1) else { return None };
    let half = if wide > MAX_CHUNKS + 1 { wide } else { MAX_CHUNKS + 1 };
    let Some(both) = half.checked_mul(2) else { return None };
    let Some(reals) = p.checked_add(both) else { return None };
    let Some(indices) = p.checked_add(MAX_CHUNKS) else { return None };
    Some(Sizes { chunks: half, tableau, reals, indices })
}

/// As [`memory`], with room for several rounds beyond the LP's chunks (UMR over more than
/// [`MAX_CHUNKS`] workers, the caps' rounds for any number): `installments` per worker at
/// most, and at most [`MAX_WIDE_ROUNDS`] rounds and [`MAX_WIDE_CHUNKS`] chunks. [`plan`]
/// takes as many rounds there as the memory it is given holds: with [`memory`]'s sizes,
/// one beyond the LP.
pub const fn memory_for(p: usize, installments: Installments) -> Option<Sizes> {
    let Some(one) = memory(p) else { return None };
    let asked = match installments {
        Installments::Auto => MAX_WIDE_ROUNDS,
        Installments::AtMost(r) => r as usize,
    };
    let fit = MAX_WIDE_CHUNKS / if p > 0 { p } else { 1 };
    let rounds = if asked < fit { asked } else { fit };
    let rounds = if rounds < MAX_WIDE_ROUNDS { rounds } else { MAX_WIDE_ROUNDS };
    if p == 0 || rounds <= 1 {
        return Some(one);
    }
    // Every worker but the root in `rounds` rounds, and the root's share.
    let Some(wide) = (p - 1).checked_mul(rounds) else { return None };
    let Some(wide) = wide.checked_add(1) else { return None };
    let half = if wide > one.chunks { wide } else { one.chunks };
    let Some(both) = half.checked_mul(2) else { return None };
    let Some(reals) = p.checked_add(both) else { return None };
    let Some(indices) = p.checked_add(if wide > MAX_CHUNKS { wide } else { MAX_CHUNKS }) else { return None };
    Some(Sizes { chunks: half, tableau: one.tableau, reals, indices })
}

/// The caller's memory (sizes from [`memory`] or [`memory_for`]).
#[derive(Debug)]
pub struct Memory<'a, N> {
    /// The plan's chunks, in send order.
    pub chunks: &'a mut [Chunk<N>],
    /// The LP's tableau.
    pub tableau: &'a mut [f64],
    /// Sizes and per-worker times.
    pub reals: &'a mut [f64],
    /// The workers in bandwidth order, and the sequence.
    pub indices: &'a mut [usize],
}

const fn invalid(text: &'static str) -> Template {
    Template::new(ErrorCode::InvalidInput, text)
}

impl Error {
    const fn caps_below_items(capacity: u64, rounds: u64, items: u64) -> Error {
        invalid(
            "max_items: the caps hold {0} items in at most {1} installments per worker, fewer than items = {2}; \
             raise max_items or allow more installments",
        )
        .ints([capacity, rounds, items])
        .error()
    }
    /// As [`Error::caps_below_items`] where more installments were allowed but the memory
    /// given holds no more rounds over these workers.
    const fn caps_below_items_in_memory(capacity: u64, rounds: u64, items: u64) -> Error {
        invalid(
            "max_items: the caps hold {0} items in at most {1} installments per worker, fewer than items = {2}; \
             more installments over this many workers exceed the planner's memory (memory_for: at most 2^21 \
             chunks): raise max_items",
        )
        .ints([capacity, rounds, items])
        .error()
    }
    const fn per_worker(list: &'static str, got: usize, workers: usize) -> Error {
        invalid("{w}: must give one value per worker ({1}), got {0}")
            .word(list)
            .ints([got as u64, workers as u64, 0])
            .error()
    }
    const fn nobody_computes() -> Error {
        invalid("workers: no worker may compute (the root only distributes and every other max_items is 0)")
            .error()
    }
}

/// Plans `problem` with installments: the chunks go to `memory.chunks[..summary.chunks]`
/// in send order.
///
/// # Errors
///
/// * [`ErrorCode::InvalidInput`]: no workers, zero items (without a deadline), a cost, a
///   release time or the deadline out of range, `max_items` or `available_at` not one per
///   worker, caps that cannot hold the items, `installments` out of 1 ..= [`MAX_INSTALLMENTS`],
///   the simplex not converging on badly scaled costs.
/// * [`ErrorCode::BufferTooSmall`]: a slice of `memory` shorter than [`memory`] says.
/// * [`ErrorCode::Overflow`]: more items than `f64` counts exactly, or times beyond `N`
///   or `f64`.
///
/// # Example
///
/// ```
/// use divload::scatter::installments::{memory, plan, Chunk, Installments, Memory, Problem, RootWork};
/// use divload::Worker;
///
/// // A root that only sends, and two workers whose messages pay a startup cost.
/// let w = Worker { comm_latency: 0.01, ..Worker::linear(0.001, 0.01) };
/// let workers = [Worker::linear(0.0, 1.0), w, w];
/// let problem = Problem {
///     workers: &workers,
///     root: 0,
///     root_work: RootWork::None,
///     items: 1000,
///     deadline: None,
///     max_items: &[],
///     available_at: &[],
///     installments: Installments::Auto,
/// };
/// let sizes = memory(workers.len()).unwrap();
/// let mut chunks = vec![Chunk::EMPTY; sizes.chunks];
/// let (mut tableau, mut reals) = (vec![0.0; sizes.tableau], vec![0.0; sizes.reals]);
/// let mut indices = vec![0; sizes.indices];
/// let mut m = Memory { chunks: &mut chunks, tableau: &mut tableau, reals: &mut reals, indices: &mut indices };
/// let s = plan(&problem, &mut m).unwrap();
/// assert_eq!(chunks[..s.chunks].iter().map(|c| c.count).sum::<u64>(), 1000);
/// assert!(s.rounds > 1 && s.lower_bound <= s.makespan);
/// ```
pub fn plan<N: Real>(problem: &Problem<'_, N>, memory: &mut Memory<'_, N>) -> Result<Summary<N>, Error> {
    let p = problem.workers.len();
    let (sizes, root_column) = prepare(problem, memory)?;
    let n = problem.items;
    let costs = |w: usize| view(problem, w);
    let root = costs(problem.root);
    // The lengths were checked above; the checked splits keep the no-panic proof whole.
    let Some((order, rest)) = memory.indices.split_at_mut_checked(p) else {
        return Err(Error::buffer("installment indices", sizes.indices, 0));
    };
    let order = bandwidth_order(problem, root_column, order)?;
    let q = order.len();
    // Rounds the LP sizes (none beyond its size).
    let most_rounds = match problem.installments {
        Installments::Auto => MAX_CHUNKS / q.max(1),
        Installments::AtMost(r) => (r as usize).min(MAX_CHUNKS / q.max(1)),
    }
    .max(1);

    // Sizes and counts for as many chunks as the memory holds (more than `memory`'s with
    // `memory_for`'s), then one time per worker.
    let half = memory.chunks.len().min(memory.reals.len().saturating_sub(p) / 2).max(sizes.chunks);
    let Some((x, rest_reals)) = memory.reals.split_at_mut_checked(half) else {
        return Err(Error::buffer("installment reals", sizes.reals, 0));
    };
    let Some((spare, ready)) = rest_reals.split_at_mut_checked(half) else {
        return Err(Error::buffer("installment reals", sizes.reals, 0));
    };
    let wide_room = half.min(rest.len().saturating_add(1)).saturating_sub(1) / q.max(1);
    let asked = match problem.installments {
        Installments::Auto => MAX_WIDE_ROUNDS,
        Installments::AtMost(r) => r as usize,
    };
    // Rounds of the fill (`wide.rs`) and of UMR: as many as asked and the memory holds.
    let wide_most = asked.min(MAX_WIDE_ROUNDS).min(wide_room).max(1);
    let capped = order.iter().any(|&w| costs(w).cap.is_finite())
        || (root_column != RootColumn::Absent && root.cap.is_finite());
    let per_round: f64 = order.iter().map(|&w| costs(w).cap).sum();
    let root_cap = if root_column == RootColumn::Absent { 0.0 } else { root.cap };
    let holds = |rounds: usize| per_round * rounds as f64 + root_cap >= n as f64;
    if problem.deadline.is_none() {
        let rounds = if capped { wide_most.max(most_rounds) } else { most_rounds };
        if !holds(rounds) {
            let capacity = (per_round * rounds as f64 + root_cap) as u64;
            let by_memory = capped && wide_most < asked.min(MAX_WIDE_ROUNDS) && wide_most >= most_rounds;
            return Err(if by_memory {
                Error::caps_below_items_in_memory(capacity, rounds as u64, n)
            } else {
                Error::caps_below_items(capacity, rounds as u64, n)
            });
        }
    }
    let seq_buf = rest;
    let deadline = problem.deadline.map(|d| d.to_f64());
    let goal = match deadline {
        Some(t) => Goal::Deadline(t, n),
        None => Goal::Items(n),
    };

    let sides = Sides { costs, root, root_column, root_index: problem.root };
    let mut best: Option<Best> = None;
    if q > MAX_CHUNKS {
        let mut b = many::Buffers::new(seq_buf, x, spare, ready, memory.chunks);
        if deadline.is_some() || holds(1) {
            best = Some(many::one_wide_round(order, sides, goal, &mut b)?);
        }
        // UMR sizes chunks without caps; for a deadline, the most items its rounds finish.
        let found = match (goal, capped, wide_most > 1) {
            (Goal::Items(n), false, true) => {
                match umr::choose(order, costs, root, root_column, n as f64, wide_most) {
                    Some(u) => many::wide_rounds(&u, order, sides, goal, n, &mut b, best.as_ref())?,
                    None => None,
                }
            }
            (Goal::Deadline(t, n), false, true) => {
                many::wide_rounds_by(t, n, wide_most, order, sides, &mut b, best.as_ref())?
            }
            _ => None,
        };
        if let Some(found) = found {
            best = Some(found);
        }
    }
    let narrow_rounds =
        if q > MAX_CHUNKS || (deadline.is_none() && !holds(most_rounds)) { 0 } else { most_rounds };
    let mut work = Work { tableau: &mut *memory.tableau, x, spare, ready };
    // The root alone, where it computes: a chunk the LP keeps still pays its latency, so a
    // sequence of workers may lose to no sequence at all.
    if root_column != RootColumn::Absent && q <= MAX_CHUNKS {
        try_sequence(seq_buf, 0, 1, sides, goal, &mut work, memory.chunks, &mut best)?;
    }
    let mut stale = 0;
    for rounds in 1..=narrow_rounds {
        let mut k = 0;
        for _ in 0..rounds {
            for &w in order.iter() {
                if let Some(slot) = seq_buf.get_mut(k) {
                    *slot = w;
                }
                k += 1;
            }
        }
        let tried =
            try_sequence(seq_buf, k, rounds as u32, sides, goal, &mut work, memory.chunks, &mut best)?;
        let Some((_, improved, _)) = tried else { continue };
        if improved {
            stale = 0;
        } else {
            stale += 1;
            // More rounds pay more latencies; two rounds in a row that do not help end the
            // search, unless the document asked for a fixed number.
            if stale >= 2 && problem.installments == Installments::Auto {
                break;
            }
        }
    }
    // Every sequence, where few: the least rational makespan over all of them bounds every
    // plan with as many installments.
    let proven = match (goal, problem.installments) {
        (Goal::Items(_), Installments::AtMost(r)) if q <= EXACT_WORKERS && q * r as usize <= EXACT_CHUNKS => {
            every_sequence(order, r as usize, sides, goal, &mut work, seq_buf, memory.chunks, &mut best)?
        }
        _ => None,
    };
    let Work { x, spare, ready, .. } = work;
    // Rounds of the fill where caps bound the rounds (§9), after the LP's, whose search
    // stops on rounds that do not beat the best so far: one fill in the most rounds
    // allowed, which hold the most by every horizon without a root computing after the
    // port. With one, more rounds' port time comes before the root's share, so fewer rounds
    // may win: from the fewest that hold the items up, while they help.
    if capped && wide_most > 1 {
        let (mut stale, mut rounds) = (0, wide_most);
        let mut next = (root_column == RootColumn::AfterSend).then_some(2);
        loop {
            if deadline.is_some() || holds(rounds) {
                let mut b = many::Buffers::new(seq_buf, x, spare, ready, memory.chunks);
                let (plan, used) = many::filled_rounds(rounds, order, sides, goal, &mut b, best.as_ref())?;
                match plan {
                    Some(b) => {
                        best = Some(b);
                        stale = 0;
                    }
                    None if best.is_some() && rounds < wide_most => stale += 1,
                    None => {}
                }
                // Fewer rounds filled than allowed: more allow the same plan.
                if stale >= 2 || (used < rounds && rounds < wide_most) {
                    break;
                }
            }
            match next {
                Some(r) if r < wide_most => {
                    rounds = r;
                    next = Some(r + 1);
                }
                _ => break,
            }
        }
    }
    let Some(best) = best else {
        return match goal {
            Goal::Deadline(..) => Ok(empty_plan(problem, order, costs, root, root_column)),
            Goal::Items(_) => Err(Error::caps_below_items(0, most_rounds as u64, n)),
        };
    };

    let star = bound::Star {
        order,
        costs,
        root: (root_column != RootColumn::Absent).then_some(root),
        rounds: bound_rounds(problem.installments),
    };
    let (lower, items_bound) = match goal {
        // The least rational makespan over every sequence, less what its LPs may lose in
        // `f64`, bounds every plan with as many installments.
        Goal::Items(_) => {
            let searched = proven.map_or(0.0, |t| t * (1.0 - PROVEN_SLACK));
            (star.makespan_bound(n as f64, best.makespan).max(searched), n)
        }
        // A plan of this many items, in time or not, takes at least this long.
        Goal::Deadline(t, _) => {
            (star.makespan_bound(best.items, best.makespan), (star.items_bound(t) as u64).min(n))
        }
    };
    let chunks = memory.chunks.get(..best.chunks).unwrap_or_default();
    let participating = count_participants(chunks, ready);
    // The even split of as many items as the plan holds (with a deadline, fewer than `n`).
    let uniform = even_split(order, best.items as u64, root, root_column, costs, ready, x);
    Ok(Summary {
        items: best.items as u64,
        items_bound: items_bound.max(best.items as u64),
        root: problem.root,
        makespan: to_n(best.makespan)?,
        rational_makespan: to_n(best.rational)?,
        lower_bound: N::from_f64_below(lower.min(best.makespan)),
        chunks: best.chunks,
        rounds: best.rounds,
        participating,
        uniform_makespan: to_n(uniform)?,
        method: best.method,
    })
}

/// The makespan of the even split over the workers that may compute, one installment in
/// `order`, the root's part last (its counts written to `x`, of `order.len() + 1`).
fn even_split(
    order: &[usize],
    n: u64,
    root: Costs,
    root_column: RootColumn,
    costs: impl Fn(usize) -> Costs,
    ready: &mut [f64],
    x: &mut [f64],
) -> f64 {
    let with_root = root_column != RootColumn::Absent;
    let parts = order.len() as u64 + u64::from(with_root);
    if parts == 0 {
        return 0.0;
    }
    let (each, extra) = (n / parts, n % parts);
    for (i, v) in x.iter_mut().take(order.len() + 1).enumerate() {
        *v = (each + u64::from((i as u64) < extra)) as f64;
    }
    if !with_root {
        if let Some(r) = x.get_mut(order.len()) {
            *r = 0.0;
        }
    }
    let root_share = x.get(order.len()).copied().unwrap_or(0.0);
    schedule(order, x, root_share, root, root_column, costs, ready, |_, _| {})
}

/// The even split of `problem.items` in one installment, as `MPI_Scatter` sends it: ⌊n/P⌋
/// items to each of the P workers that may compute, one more to the first `n mod P` in
/// bandwidth order, the root's part last; caps, the deadline and `installments` aside.
/// Its chunks go to `memory.chunks` as [`plan`] writes them; returns how many, and the
/// makespan (the [`Summary::uniform_makespan`] of a plan of as many items).
///
/// # Errors
///
/// As [`plan`].
pub fn even_split_plan<N: Real>(
    problem: &Problem<'_, N>,
    memory: &mut Memory<'_, N>,
) -> Result<(usize, N), Error> {
    let p = problem.workers.len();
    let (sizes, root_column) = prepare(problem, memory)?;
    let costs = |w: usize| view(problem, w);
    let root = costs(problem.root);
    let Some(order) = memory.indices.get_mut(..p) else {
        return Err(Error::buffer("installment indices", sizes.indices, 0));
    };
    let order = bandwidth_order(problem, root_column, order)?;
    let Some((x, ready)) = memory.reals.split_at_mut_checked(p + 1) else {
        return Err(Error::buffer("installment reals", sizes.reals, 0));
    };
    let makespan = even_split(order, problem.items, root, root_column, costs, ready, x);
    let chunks = emit(order, x, x, root, root_column, problem.root, costs, ready, memory.chunks)?;
    Ok((chunks, to_n(makespan)?))
}

/// What every plan of `problem` starts from: the checks, the memory's least sizes, and
/// where the root's share goes.
fn prepare<N: Real>(problem: &Problem<'_, N>, memory: &Memory<'_, N>) -> Result<(Sizes, RootColumn), Error> {
    let p = problem.workers.len();
    validate(problem)?;
    let sizes = self::memory(p).ok_or(Error::too_large("workers", usize::MAX as u64, p as u64))?;
    check_len("installment chunks", sizes.chunks, memory.chunks.len())?;
    check_len("LP tableau", sizes.tableau, memory.tableau.len())?;
    check_len("installment reals", sizes.reals, memory.reals.len())?;
    check_len("installment indices", sizes.indices, memory.indices.len())?;
    let root = view(problem, problem.root);
    let column = match problem.root_work {
        RootWork::None => RootColumn::Absent,
        _ if root.cap < 1.0 => RootColumn::Absent,
        RootWork::Overlap => RootColumn::Overlap,
        RootWork::AfterSend => RootColumn::AfterSend,
    };
    Ok((sizes, column))
}

/// The workers besides the root that may compute (a cap of one item at least), in
/// bandwidth order, written to the start of `order` (one slot per worker).
fn bandwidth_order<'o, N: Real>(
    problem: &Problem<'_, N>,
    root_column: RootColumn,
    order: &'o mut [usize],
) -> Result<&'o mut [usize], Error> {
    let costs = |w: usize| view(problem, w);
    let mut q = 0;
    for w in (0..problem.workers.len()).filter(|&w| w != problem.root && costs(w).cap >= 1.0) {
        if let Some(slot) = order.get_mut(q) {
            *slot = w;
        }
        q += 1;
    }
    if q == 0 && root_column == RootColumn::Absent {
        return Err(Error::nobody_computes());
    }
    let order = order.get_mut(..q).unwrap_or_default();
    bound::sort_by_bandwidth(order, costs);
    Ok(order)
}

/// Who computes besides the chunks' workers: the costs, the root's, and where it stands.
#[derive(Clone, Copy)]
struct Sides<F> {
    costs: F,
    root: Costs,
    root_column: RootColumn,
    root_index: usize,
}

struct Best {
    makespan: f64,
    rational: f64,
    items: f64,
    rounds: u32,
    chunks: usize,
    method: Method,
}

fn check_len(what: &'static str, needed: usize, got: usize) -> Result<(), Error> {
    if got < needed {
        Err(Error::buffer(what, needed, got))
    } else {
        Ok(())
    }
}

fn to_n<N: Real>(x: f64) -> Result<N, Error> {
    N::from_f64(x).ok_or(Error::numeric_overflow(N::NAME))
}

/// Worker `w`'s costs as the planner reads them (the root sends to itself for free).
fn view<N: Real>(problem: &Problem<'_, N>, w: usize) -> Costs {
    let worker = problem.workers.get(w).copied().unwrap_or(Worker::linear(N::ZERO, N::ONE));
    let worker = if w == problem.root { worker.as_root() } else { worker };
    let cap = problem.max_items.get(w).map_or(f64::INFINITY, |&c| {
        if c >= problem.items {
            f64::INFINITY
        } else {
            c as f64
        }
    });
    Costs {
        l: worker.comm_latency.to_f64(),
        c: worker.comm_per_item.to_f64(),
        lam: worker.comp_latency.to_f64(),
        mu: worker.comp_per_item.to_f64(),
        r: problem.available_at.get(w).map_or(0.0, |r| r.to_f64()),
        cap,
    }
}

fn validate<N: Real>(problem: &Problem<'_, N>) -> Result<(), Error> {
    let p = problem.workers.len();
    if p == 0 {
        return Err(Error::no_workers());
    }
    if problem.root >= p {
        return Err(Error::root_out_of_range(problem.root, p));
    }
    for (i, w) in problem.workers.iter().enumerate() {
        w.validate(i)?;
    }
    match problem.deadline {
        None if problem.items == 0 => return Err(Error::no_items()),
        Some(t) => {
            POSITIVE.parameter("deadline", t.to_f64())?;
        }
        None => {}
    }
    if problem.items > f64::MAX_ITEMS {
        return Err(Error::too_many_items(problem.items, f64::MAX_ITEMS, "f64"));
    }
    if !problem.max_items.is_empty() && problem.max_items.len() != p {
        return Err(Error::per_worker("max_items", problem.max_items.len(), p));
    }
    if !problem.available_at.is_empty() && problem.available_at.len() != p {
        return Err(Error::per_worker("available_at", problem.available_at.len(), p));
    }
    for (i, r) in problem.available_at.iter().enumerate() {
        NON_NEGATIVE.entry("workers", i, "available_at", r.to_f64())?;
    }
    if let Installments::AtMost(r) = problem.installments {
        if r == 0 || r > MAX_INSTALLMENTS {
            return Err(Error::parameter("installments", "an integer in 1..=64 or \"auto\"", f64::from(r)));
        }
    }
    Ok(())
}

/// Writes the plan's chunks in send order (the root's share first in overlap, last after
/// send), skipping empty ones; returns how many.
#[allow(clippy::too_many_arguments)]
fn emit<N: Real>(
    seq: &[usize],
    counts: &[f64],
    shares: &[f64],
    root: Costs,
    root_column: RootColumn,
    root_index: usize,
    costs: impl Fn(usize) -> Costs,
    ready: &mut [f64],
    out: &mut [Chunk<N>],
) -> Result<usize, Error> {
    let k = seq.len();
    let root_count = counts.get(k).copied().unwrap_or(0.0);
    let root_first = root_column == RootColumn::Overlap && root_count > 0.0;
    let mut at = usize::from(root_first);
    let mut failed = false;
    schedule(seq, counts, root_count, root, root_column, costs, ready, |j, t| {
        let count = counts.get(j).copied().unwrap_or(0.0);
        if count <= 0.0 {
            return;
        }
        let slot = if j == k && root_first { 0 } else { at };
        let worker = if j == k { root_index } else { seq.get(j).copied().unwrap_or(0) };
        let chunk = (|| {
            Some(Chunk {
                worker,
                count: count as u64,
                displacement: 0,
                share: N::from_f64(shares.get(j).copied().unwrap_or(0.0))?,
                send_start: N::from_f64(t.send_start)?,
                send_end: N::from_f64(t.send_end)?,
                compute_start: N::from_f64(t.compute_start)?,
                compute_end: N::from_f64(t.compute_end)?,
            })
        })();
        match (chunk, out.get_mut(slot)) {
            (Some(c), Some(o)) => *o = c,
            _ => failed = true,
        }
        if !(j == k && root_first) {
            at += 1;
        }
    });
    if failed {
        return Err(Error::numeric_overflow(N::NAME));
    }
    let out = out.get_mut(..at).unwrap_or_default();
    // Each worker's items are one block, the blocks in the order of the workers' first
    // chunks, and its chunks consecutive parts of it. `ready` (free once the schedule is
    // written) holds each worker's running offset, or minus its total before its block is
    // placed (every chunk written holds an item at least). Items are at most 2⁵³: exact.
    for c in out.iter() {
        if let Some(r) = ready.get_mut(c.worker) {
            *r = 0.0;
        }
    }
    for c in out.iter() {
        if let Some(r) = ready.get_mut(c.worker) {
            *r -= c.count as f64;
        }
    }
    let mut block = 0.0f64;
    for c in out.iter_mut() {
        let Some(r) = ready.get_mut(c.worker) else { continue };
        if *r < 0.0 {
            let total = -*r;
            *r = block;
            block += total;
        }
        c.displacement = *r as u64;
        *r += c.count as f64;
    }
    Ok(at)
}

/// The workers among `chunks`, with a scratch slot per worker.
fn count_participants<N>(chunks: &[Chunk<N>], seen: &mut [f64]) -> usize {
    for c in chunks {
        if let Some(s) = seen.get_mut(c.worker) {
            *s = 0.0;
        }
    }
    let mut workers = 0;
    for c in chunks {
        if let Some(s) = seen.get_mut(c.worker) {
            workers += usize::from(*s == 0.0);
            *s = 1.0;
        }
    }
    workers
}

/// The answer when not one item finishes by the deadline.
fn empty_plan<N: Real>(
    problem: &Problem<'_, N>,
    order: &[usize],
    costs: impl Fn(usize) -> Costs,
    root: Costs,
    root_column: RootColumn,
) -> Summary<N> {
    let star = bound::Star {
        order,
        costs,
        root: (root_column != RootColumn::Absent).then_some(root),
        rounds: bound_rounds(problem.installments),
    };
    let t = problem.deadline.map_or(0.0, |d| d.to_f64());
    Summary {
        items: 0,
        items_bound: (star.items_bound(t) as u64).min(problem.items),
        root: problem.root,
        makespan: N::ZERO,
        rational_makespan: N::ZERO,
        lower_bound: N::ZERO,
        chunks: 0,
        rounds: 0,
        participating: 0,
        uniform_makespan: N::ZERO,
        method: Method::INSTALLMENTS,
    }
}

/// Installments per worker the bound allows (`u64::MAX`: any number).
fn bound_rounds(installments: Installments) -> u64 {
    match installments {
        Installments::Auto => u64::MAX,
        Installments::AtMost(r) => u64::from(r),
    }
}
