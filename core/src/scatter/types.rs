//! The values a scatter plan is made of: the problem, one [`Assignment`] per worker in send
//! order, the [`Summary`], and the [`Scratch`] memory the closed form works in.
//!
//! Memory: `size_of::<Assignment<N>>() + size_of::<Scratch<N>>()` bytes per worker, 120
//! bytes for `f64` on 64-bit targets (pinned by a test).

use core::marker::PhantomData;

use crate::kernel::columns::{Columns, Words, WORDS};
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::report::{Method, Report};
use crate::scatter::options::{Options, RootCandidate};

/// One worker's part of a plan, in send order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assignment<N> {
    /// Index of the worker in the input (its rank).
    pub worker: usize,
    /// Items it receives (an integer; the counts add up to the item count).
    pub count: u64,
    /// Offset of its block in the root's buffer: blocks are contiguous in send order.
    pub displacement: u64,
    /// Its rational share before rounding.
    pub share: N,
    /// When it starts receiving (the root: when it starts computing).
    pub start: N,
    /// When its share has arrived.
    pub received: N,
    /// When it finishes computing (equal to `received` for a worker with no items).
    pub finish: N,
}

impl<N: Real> Assignment<N> {
    /// An empty entry, for initialising fixed-size arrays.
    pub const EMPTY: Self = Assignment {
        worker: 0,
        count: 0,
        displacement: 0,
        share: N::ZERO,
        start: N::ZERO,
        received: N::ZERO,
        finish: N::ZERO,
    };

    /// `true` when the worker receives at least one item.
    pub fn participating(&self) -> bool {
        self.count > 0
    }
}

impl<N: Real> Default for Assignment<N> {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// Working memory for [`plan`](crate::plan): one per worker. Its contents are meaningless
/// to callers.
///
/// Inside, the records are eight columns of one word per worker (`kernel::columns`): each
/// phase of a plan reads and writes whole columns in send order, which is what keeps a
/// plan for a million workers in cache-friendly passes. Which phase uses which column is
/// listed in the crate-private `scatter::types::col`.
#[derive(Clone, Copy, Debug)]
pub struct Scratch<N> {
    words: [u64; WORDS],
    number: PhantomData<N>,
}

impl<N: Real> Scratch<N> {
    /// An empty slot, for initialising fixed-size arrays.
    pub const EMPTY: Self = Scratch { words: [0; WORDS], number: PhantomData };
}

impl<N: Real> Default for Scratch<N> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<N> Words for Scratch<N> {
    #[inline]
    fn words(&self) -> &[u64; WORDS] {
        &self.words
    }
    #[inline]
    fn words_mut(&mut self) -> &mut [u64; WORDS] {
        &mut self.words
    }
}

/// The scratch columns of the closed form, by phase. `LAMBDA`, `MU` (the costs of the
/// worker at each send position, the root's sending cost zeroed) are written by the send
/// order and read by every later phase; the others are reused.
pub(crate) mod col {
    /// λ at each send position, as its `Real::sort_key` (the send order's sort key).
    pub const LAMBDA: usize = 0;
    /// The worker at each send position (until the shares are written to the plan).
    pub const WORKER: usize = 2;
    /// μ at each send position.
    pub const MU: usize = 1;
    /// Send order: bucket counts, and the sort's second pass.
    pub const ORDER_COUNTS: usize = 3;
    pub const ORDER_SPARE: [usize; 3] = [4, 5, 6];
    /// Rational solver: the next participant (or `star::END`, `star::SKIP`).
    pub const LINK: usize = 3;
    /// Rational solver: the suffix line from this position on finishes `c + m/r` seconds
    /// after the root starts sending to it, for `m` items: `c`.
    pub const LINE_C: usize = 4;
    /// Rational solver: `r` of the suffix line.
    pub const LINE_R: usize = 5;
    /// Rational solver: items reaching this position in the last forward pass.
    pub const REACHING: usize = 6;
    /// Rational solver: the share of the current round.
    pub const SHARE: usize = 7;
    /// Rounding by fractions: the fractional parts sorted (as `Real::sort_key`) and their
    /// positions.
    pub const FRAC_KEY: usize = 3;
    pub const FRAC_POS: usize = 4;
    /// Rounding by fractions: bucket counts, and the sort's second pass.
    pub const FRAC_COUNTS: usize = 5;
    pub const FRAC_SPARE: [usize; 3] = [6, 7, 2];
    /// Greedy rounding: the tree of candidates, four words a node, level by level from
    /// this column on through the last (at most 1.5 nodes per position, six columns).
    pub const TREE: usize = 2;
    /// Root choice (`root.rs`): each worker's position in the bandwidth order of all the
    /// workers.
    pub const ROOT_POS: usize = 3;
    /// Root choice: the segment tree of compositions, two words per node (`a`, `b` of
    /// `r ↦ a·r + b`), in this column and the next three.
    pub const ROOT_TREE: usize = 4;
}

/// The workers with the root's own communication removed: what a position in the send
/// order costs. In overlap mode the root sits first with zero communication cost, which is
/// exactly the slides' `c₁ = 0`; after send it sits last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs<'a, N> {
    pub workers: &'a [Worker<N>],
    pub root: usize,
    /// No latencies anywhere (the root's sending latency does not count).
    pub linear: bool,
}

impl<'a, N: Real> Costs<'a, N> {
    pub fn new(workers: &'a [Worker<N>], root: usize) -> Self {
        let linear = workers
            .iter()
            .enumerate()
            .all(|(i, w)| w.comp_latency == N::ZERO && (i == root || w.comm_latency == N::ZERO));
        Costs { workers, root, linear }
    }

    /// Costs of `worker()` at send position `k`: λ and μ from the scratch columns the send
    /// order wrote (read in order, not gathered from the input), latencies from the input
    /// only when there are any.
    #[inline]
    pub fn at(&self, cols: &Columns<'_, Scratch<N>>, k: usize, worker: impl FnOnce() -> usize) -> Worker<N> {
        let (comm_latency, comp_latency) = if self.linear {
            (N::ZERO, N::ZERO)
        } else {
            let w = self.of(worker());
            (w.comm_latency, w.comp_latency)
        };
        Worker {
            comm_latency,
            comm_per_item: N::from_sort_key(cols.get(col::LAMBDA, k)),
            comp_latency,
            comp_per_item: cols.real(col::MU, k),
        }
    }

    /// Effective costs of worker `w`.
    #[inline]
    pub fn of(&self, w: usize) -> Worker<N> {
        // Callers keep `w` in range; out of range (a bug) reads as a zero worker rather than
        // panicking (the `nopanic` proof; debug builds still assert).
        debug_assert!(w < self.workers.len());
        let worker = self.workers.get(w).copied().unwrap_or(Worker::linear(N::ZERO, N::ZERO));
        if w == self.root {
            worker.as_root()
        } else {
            worker
        }
    }
}

/// The unit tests' random heterogeneous workers: links of 1–101 µs per item, computations
/// of 1–11 ms per item, and with `latencies` startup costs of up to 1 ms and 10 ms.
#[cfg(test)]
pub(crate) fn random_workers(
    unit: &mut impl FnMut() -> f64,
    p: usize,
    latencies: bool,
) -> std::vec::Vec<Worker<f64>> {
    (0..p)
        .map(|_| Worker {
            comm_latency: if latencies { unit() * 1e-3 } else { 0.0 },
            comm_per_item: 1e-6 + unit() * 1e-4,
            comp_latency: if latencies { unit() * 1e-2 } else { 0.0 },
            comp_per_item: 1e-3 + unit() * 1e-2,
        })
        .collect()
}

/// Which worker is the root.
#[derive(Clone, Copy, Debug)]
pub enum Root<'a, N> {
    /// This worker holds the data and is the root.
    Fixed(usize),
    /// Choose the root among these candidates, adding each one's transfer time
    /// (genaud2003 §3.4).
    Choose(&'a [RootCandidate<N>]),
}

/// A planning problem.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a, N> {
    /// The workers, root included, in input order.
    pub workers: &'a [Worker<N>],
    /// The root, or how to choose it.
    pub root: Root<'a, N>,
    /// Number of items to scatter (n ≥ 1).
    pub items: u64,
    /// Root behaviour, send order, rounding.
    pub options: Options,
}

/// What [`plan`](crate::plan) reports besides the per-worker assignments. All times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary<N> {
    /// Number of items.
    pub items: u64,
    /// The root's worker index.
    pub root: usize,
    /// Time to move the data to the root first (0 unless the root was chosen among
    /// candidates that do not hold it). Not included in the makespans below.
    pub root_transfer: N,
    /// Makespan of the integer plan (T').
    pub makespan: N,
    /// Makespan of the rational plan that was rounded (T). For the dynamic programs: the
    /// rational relaxation's makespan when it was computed alongside (affine costs, see
    /// `doc::scatter::solve`), else the DP's own lower bound.
    pub rational_makespan: N,
    /// `true` when the rational plan is the proven optimum for this send order (all costs
    /// linear). With latencies it comes from a heuristic; see `lower_bound`. Always `false`
    /// for the dynamic programs.
    pub rational_exact: bool,
    /// A certified lower bound on the makespan of any plan, rational or integer, in this
    /// send order: below the exact optimum and below `makespan` as computed, by
    /// construction (`kernel::fp`: computed in `f64` with its rounding error bounded, then
    /// lowered by what `N` may lose evaluating a plan). With linear costs it is the rational
    /// optimum less a few units in the last place (γ of 8 roundings per worker); for the
    /// exact DP, its optimum less the rounding of the chain's additions.
    pub lower_bound: N,
    /// Guarantee on the integer plan (genaud2003 eq. 4, sharpened):
    /// `makespan ≤ bound = T + maxᵢ (Σ_{j≤i} λⱼ + μᵢ)` over participants. With linear costs
    /// this is at most eq. (4)'s `T + Σ T_comm(j,1) + max T_comp(i,1)`. For the dynamic
    /// programs, the plan's own makespan.
    pub bound: N,
    /// Makespan of the even split (`MPI_Scatter`: ⌊n/P⌋ each, one more for the first
    /// `n mod P` in send order), same order and root.
    pub uniform_makespan: N,
    /// Number of workers that receive items.
    pub participating: usize,
    /// How the counts were obtained.
    pub method: Method,
}

impl<N: Real> Summary<N> {
    /// The answer's quality in the terms every model uses.
    pub fn report(&self) -> Report<N> {
        let exact = match self.method {
            Method::EXACT_DP | Method::THRESHOLD => true,
            _ => self.makespan <= self.lower_bound,
        };
        Report { method: self.method, makespan: self.makespan, lower_bound: self.lower_bound, exact }
    }

    /// The certified distance to the optimum for this send order, in seconds:
    /// `makespan − lower_bound` (0 for the exact solvers, up to rounding).
    pub fn gap(&self) -> N {
        self.report().gap()
    }

    /// How much faster than the even split: `uniform_makespan / makespan`, at most the
    /// largest `f64` ([`crate::report::speedup`]).
    pub fn speedup(&self) -> f64 {
        crate::report::speedup(self.uniform_makespan.to_f64(), self.makespan.to_f64())
    }
}
