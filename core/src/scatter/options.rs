//! The scatter's options: when the root computes, the send order, the rounding scheme, and
//! the candidates for the root (genaud2003 §3.1, §3.3, §3.4).
//!
//! The root does not send to itself: its own `comm_*` costs are not used while it is the
//! root. With [`RootMode::AfterSend`] (what `MPI_Scatterv` does) it computes its share after
//! sending everything, so it is served last; with [`RootMode::Overlap`] (the slides' master)
//! it computes from time 0 while it sends.

use crate::error::{Error, Field};
use crate::num::range::NON_NEGATIVE;
use crate::num::Real;
use crate::platform::worker::check;

/// When the root computes its own share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RootMode {
    /// The root sends every share, then computes its own (`MPI_Scatterv`; genaud2003
    /// §3.1: the root is the last processor `P_p`).
    #[default]
    AfterSend,
    /// The root computes its share while it sends (the slides' master, `c₁ = 0`).
    Overlap,
}

/// The order in which the root serves the workers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OrderPolicy {
    /// Input order (the root moved last, or first with [`RootMode::Overlap`]).
    Given,
    /// Decreasing bandwidth, i.e. increasing `comm_per_item`, root last (genaud2003 Thm 3);
    /// ties by `comm_latency`, then faster computation first, then input order.
    #[default]
    Bandwidth,
    /// The best order and participation under startup costs: the exact rational optimum
    /// over every order of every subset of the workers, for at most
    /// [`MAX_EXACT_WORKERS`](crate::scatter::search::MAX_EXACT_WORKERS) besides the root
    /// with the search's memory ([`plan_searched`](crate::scatter::plan_searched));
    /// otherwise the bandwidth order. With linear costs the bandwidth order is already
    /// optimal (Thm 3). Either way the plan's `lower_bound` holds for every order.
    Search,
}

/// How rational shares become integer counts. Every scheme gives counts that add up to the
/// item count exactly and differ from the rational shares by less than one item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// genaud2003 §3.3: round the share nearest to an integer, then repeatedly round the
    /// remaining share nearest to the opposite direction of the running error; the last
    /// share takes what is left (the paper writes `n'_k = n_k + e`; it must be `n_k − e`).
    Paper,
    /// Floors, then one extra item to the shares with the largest fractional parts.
    LargestRemainder,
    /// Floors, then each left-over item to the worker where it raises the makespan least
    /// (counting the delay it causes to the workers served after it; ties to the smaller
    /// own finish time, then the later worker in send order), within a budget of 32
    /// tree-node visits per worker (at least 2²²); items left when it runs out, which
    /// happens when many workers are alike, go to the largest fractional parts.
    #[default]
    Greedy,
}

/// Planning options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// When the root computes.
    pub root_mode: RootMode,
    /// Send order.
    pub order: OrderPolicy,
    /// Rounding scheme.
    pub rounding: Rounding,
}

/// Fixed part of moving the data to a candidate root (seconds).
pub const TRANSFER_LATENCY: Field = Field::new("transfer_latency", NON_NEGATIVE);
/// Time to move one item to a candidate root (seconds per item).
pub const TRANSFER_PER_ITEM: Field = Field::new("transfer_per_item", NON_NEGATIVE);

/// A worker that could serve as the root, with the cost of first moving the data to it
/// from the machine that holds it (genaud2003 §3.4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootCandidate<N> {
    /// Index of the worker.
    pub worker: usize,
    /// Fixed part of moving the data to this worker (seconds, ≥ 0; 0 if it holds the data).
    pub transfer_latency: N,
    /// Time per item to move the data to this worker (seconds per item, ≥ 0).
    pub transfer_per_item: N,
}

impl<N: Real> RootCandidate<N> {
    /// A candidate that already holds the data.
    pub fn local(worker: usize) -> Self {
        RootCandidate { worker, transfer_latency: N::ZERO, transfer_per_item: N::ZERO }
    }

    /// Time to move `items` items to this candidate.
    pub fn transfer_time(&self, items: N) -> N {
        if self.transfer_latency == N::ZERO && self.transfer_per_item == N::ZERO {
            N::ZERO
        } else {
            self.transfer_latency + self.transfer_per_item * items
        }
    }

    pub(crate) fn validate(&self, index: usize) -> Result<(), Error> {
        check(index, TRANSFER_LATENCY, self.transfer_latency.to_f64())?;
        check(index, TRANSFER_PER_ITEM, self.transfer_per_item.to_f64())
    }
}

/// Which solver a platform file asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Solver {
    /// Closed form when every cost is affine, the exact DP otherwise.
    #[default]
    Auto,
    /// Rational closed form and rounding ([`plan`](crate::plan)); affine costs only.
    ClosedForm,
    /// The exact integer DP ([`scatter::exact::exact`](crate::scatter::exact::exact)).
    Exact,
    /// The sampled DP in fixed memory ([`sampled`](crate::scatter::sampled)).
    Sampled,
}
