//! The vocabulary of the return-messages model (slides "With return messages", L395-480):
//! a worker's three linear costs, the master's port, the schedule to plan, the per-worker
//! answer, the summary, and the buffer sizes a caller allocates.

use crate::error::{Error, Field};
use crate::kernel::columns::{Columns, Words};
use crate::num::range::NON_NEGATIVE;
use crate::num::Real;
use crate::report::{Method, Report};

/// Time to send one item's results back to the master (seconds per item, `d`).
pub const RETURN_PER_ITEM: Field = Field::new("return_per_item", NON_NEGATIVE);

/// One worker's linear costs, in seconds per item. The master (P0 in the slides) holds the
/// data and does not compute; it is not a `ReturnWorker`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReturnWorker<N> {
    /// Time to receive one item from the master (`c_i`, ≥ 0; 0 models a free link).
    pub comm_per_item: N,
    /// Time to compute one item (`w_i`, > 0: a worker that computes for free would take
    /// an unbounded share).
    pub comp_per_item: N,
    /// Time to send one item's results back to the master (`d_i`, ≥ 0; 0: results are
    /// free to collect).
    pub return_per_item: N,
}

impl<N: Real> ReturnWorker<N> {
    /// A worker with these costs (`c`, `w`, `d`); see [`ReturnWorker::validate`].
    pub fn new(comm_per_item: N, comp_per_item: N, return_per_item: N) -> Self {
        ReturnWorker { comm_per_item, comp_per_item, return_per_item }
    }

    /// Checks the costs; `index` is used in error messages.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) naming the field when
    /// a cost is NaN, infinite or negative, or `comp_per_item` is 0;
    /// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when `c + w + d` is not finite
    /// in `N`.
    ///
    /// ```
    /// use divload::returns::ReturnWorker;
    /// assert!(ReturnWorker::new(1.0, 2.0, 0.0).validate(0).is_ok());
    /// let e = ReturnWorker::new(1.0, 2.0, f64::NAN).validate(4).unwrap_err();
    /// assert_eq!(e.to_string(), "worker 4: return_per_item must be finite and >= 0, got NaN");
    /// ```
    pub fn validate(&self, index: usize) -> Result<(), Error> {
        for (field, v) in [
            (Field::COMM_PER_ITEM, self.comm_per_item),
            (Field::COMP_PER_ITEM, self.comp_per_item),
            (RETURN_PER_ITEM, self.return_per_item),
        ] {
            let x = v.to_f64();
            if !field.allows(x) || !v.is_finite() {
                return Err(Error::cost(index, field, x));
            }
        }
        if !self.total().is_finite() || self.total() <= N::ZERO {
            return Err(Error::numeric_overflow(N::NAME));
        }
        Ok(())
    }

    /// `c + w + d`: a worker alone with one item takes this long.
    #[inline]
    pub(crate) fn total(&self) -> N {
        self.comm_per_item + self.comp_per_item + self.return_per_item
    }
}

/// Whether the master may send and receive at the same moment (one message each way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Port {
    /// A send and a receive may overlap. The slides' numbers for platform B are only
    /// reachable in this model, so it is the default.
    #[default]
    FullDuplex,
    /// One message at a time in either direction: the LP gains the row
    /// `Σ (c_j + d_j)·α_j ≤ 1` (no return starts before the last send ends).
    HalfDuplex,
}

/// Which schedule to plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule<'a> {
    /// The best scenario found: exhaustive for a few workers, else the best of LIFO, FIFO
    /// and a local search (see [`crate::returns`] for the limits).
    #[default]
    Best,
    /// Last in, first out: returns in the reverse send order.
    Lifo,
    /// First in, first out: returns in the send order.
    Fifo,
    /// A scenario given by the caller: the participants in send order, and the same
    /// workers in return order (worker indices).
    Given {
        /// Worker indices in send order (σ1).
        send: &'a [usize],
        /// The same workers in return order (σ2).
        ret: &'a [usize],
    },
}

/// A planning problem.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a, N> {
    /// The workers, in input order.
    pub workers: &'a [ReturnWorker<N>],
    /// Number of items to distribute (≥ 1, at most [`Real::MAX_ITEMS`]).
    pub items: u64,
    /// Which schedule to plan.
    pub schedule: Schedule<'a>,
    /// The master's port.
    pub port: Port,
}

/// One worker's part of the plan. [`plan`](crate::returns::plan) writes one per worker:
/// first the scenario's participants in send order, then the others (count 0). All times
/// in seconds from the first send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assignment<N> {
    /// Worker index.
    pub worker: usize,
    /// Position in the return order (0 returns first); `None` for workers that take no
    /// part in the scenario.
    pub return_rank: Option<usize>,
    /// The rational rate α_i: items per second this worker processes in the scenario's
    /// optimum (the slides' α with horizon 1).
    pub rate: N,
    /// The rational share `items·α_i/ρ`.
    pub share: N,
    /// Integer number of items.
    pub count: u64,
    /// Offset of the worker's items (contiguous in send order).
    pub displacement: u64,
    /// When the master starts sending to this worker.
    pub send_start: N,
    /// When its items have arrived.
    pub received: N,
    /// When it has computed them.
    pub computed: N,
    /// When it starts returning its results.
    pub return_start: N,
    /// When its results are back at the master.
    pub return_end: N,
    /// Idle time between computing and returning (`return_start − computed`).
    pub idle: N,
}

impl<N: Real> Assignment<N> {
    /// All zeros, no part in the scenario: to initialise buffers.
    pub const EMPTY: Self = Assignment {
        worker: 0,
        return_rank: None,
        rate: N::ZERO,
        share: N::ZERO,
        count: 0,
        displacement: 0,
        send_start: N::ZERO,
        received: N::ZERO,
        computed: N::ZERO,
        return_start: N::ZERO,
        return_end: N::ZERO,
        idle: N::ZERO,
    };
}

/// Words in one [`Scratch`] record: five, so a plan needs no more memory per worker than
/// the records of named fields this replaced (40 bytes).
pub(crate) const SCRATCH_WORDS: usize = 5;

/// Working memory, one per worker; its contents mean nothing to the caller.
///
/// Inside, the records are five columns of one word per worker (`kernel::columns`): the
/// closed forms copy each worker's costs once into columns in send order, and every later
/// pass reads those columns front to back instead of the workers by index, which is what
/// keeps a plan for a million workers in cache-friendly passes. Which phase uses which
/// column is listed in the crate-private `returns::types::col`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scratch {
    words: [u64; SCRATCH_WORDS],
}

impl Scratch {
    /// An initial value for buffers.
    pub const EMPTY: Self = Scratch { words: [0; SCRATCH_WORDS] };
}

impl Words<SCRATCH_WORDS> for Scratch {
    #[inline]
    fn words(&self) -> &[u64; SCRATCH_WORDS] {
        &self.words
    }
    #[inline]
    fn words_mut(&mut self) -> &mut [u64; SCRATCH_WORDS] {
        &mut self.words
    }
}

/// The scratch records seen as columns.
pub(crate) type Cols<'a> = Columns<'a, Scratch, SCRATCH_WORDS>;

/// Which scratch column holds what. From the send order on, position `k` of a column is
/// send position `k` of the scenario (members first).
pub(crate) mod col {
    use crate::kernel::columns::SortColumns;

    /// The worker at each send position.
    pub const WORKER: usize = 0;
    /// Its costs as words of `N` (`c`, `w`, `d`).
    pub const C: usize = 1;
    pub const W: usize = 2;
    pub const D: usize = 3;
    /// Its fraction `α/ρ` of the work (`N`); in the closed forms' first pass the value the
    /// second pass starts from (LIFO: `r_{k+1}`; FIFO: `u_k`).
    pub const FRAC: usize = 4;

    /// A send order by a key: the key's words land in `C`, the worker in `WORKER`; `W`,
    /// `D`, `FRAC` are the sort's working space until the costs are copied in.
    pub const ORDER_SORT: SortColumns =
        SortColumns { key: C, value: WORKER, extra: None, counts: W, spare: [D, FRAC, FRAC], spread: true };
}

/// How many elements each buffer of [`plan`](crate::returns::plan) needs
/// ([`needs`](crate::returns::needs)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// [`Assignment`]s: one per worker.
    pub out: usize,
    /// [`Scratch`] records: one per worker.
    pub scratch: usize,
    /// `f64` for the LP tableau: 0 when the schedule is solved in closed form.
    pub tableau: usize,
}

/// The scenario's rational solution ([`solve`](crate::returns::solve)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rational<N> {
    /// Throughput ρ = Σ α_i (items per second); `items/ρ` is the rational makespan.
    pub throughput: N,
    /// Number of workers in the scenario (the first entries of the output).
    pub members: usize,
    /// `true` when ρ is proven optimal in the schedule's class (all LIFO, all FIFO, the
    /// given scenario, all scenarios), up to floating-point rounding.
    pub optimal: bool,
    /// How it was obtained.
    pub method: Method,
}

/// What [`plan`](crate::returns::plan) reports besides the per-worker assignments. All
/// times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary<N> {
    /// Number of items.
    pub items: u64,
    /// The master's port.
    pub port: Port,
    /// How the counts were obtained.
    pub method: Method,
    /// The rational throughput ρ of the chosen scenario (items per second).
    pub throughput: N,
    /// `true` when ρ is proven optimal in the schedule's class (see [`Rational::optimal`]).
    pub rational_optimal: bool,
    /// Number of workers in the scenario (first in the output, in send order).
    pub members: usize,
    /// Number of workers with a positive count.
    pub participating: usize,
    /// Makespan of the integer plan: the end of the last return.
    pub makespan: N,
    /// `items/ρ`: the makespan of the rational plan.
    pub rational_makespan: N,
    /// `items/ρ̄` for a certified upper bound ρ̄ on the throughput of every scenario:
    /// no plan of any schedule finishes earlier.
    pub lower_bound: N,
    /// Guarantee on the integer plan: `makespan ≤ bound`, and
    /// `bound ≤ rational_makespan + maxᵢ (Σ_{j sent ≤ i} c_j + w_i + Σ_{j returned ≥ i} d_j)`
    /// up to rounding (each count is within one item of its share).
    pub bound: N,
    /// Makespan of the even split (`items/p` each, one more for the first `items mod p`)
    /// in the same send and return orders, the other workers appended to both.
    pub even_split_makespan: N,
    /// The certified upper bound ρ̄ on every scenario's throughput behind `lower_bound`.
    pub throughput_bound: f64,
}

impl<N: Real> Summary<N> {
    /// The answer's quality in the terms every model uses. `exact` when the integer plan
    /// meets the lower bound.
    pub fn report(&self) -> Report<N> {
        Report {
            method: self.method,
            makespan: self.makespan,
            lower_bound: self.lower_bound,
            exact: self.makespan <= self.lower_bound,
        }
    }

    /// `makespan − lower_bound`, never negative.
    pub fn gap(&self) -> N {
        self.report().gap()
    }
}
