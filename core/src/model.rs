//! The platform model: workers with affine costs, the root, and the planning options.
//!
//! Follows genaud2003 §2.3 and §3.1 (single-port scatter) and the "bus" and "star" slides.
//! Worker *i* receives *x* items in `comm_latency + comm_per_item·x` seconds (λᵢ is
//! `comm_per_item`) and computes them in `comp_latency + comp_per_item·x` seconds (μᵢ is
//! `comp_per_item`). A worker given 0 items costs nothing and takes no part. The root sends
//! to one worker at a time, in send order, so the worker at send position *k* finishes at
//! `Tₖ = Σ_{j≤k} comm_j(n_j) + comp_k(n_k)` (eq. 1) and the makespan is `max Tₖ` (eq. 2).
//!
//! The root does not send to itself: its own `comm_*` costs are not used while it is the
//! root. With [`RootMode::AfterSend`] (what `MPI_Scatterv` does) it computes its share after
//! sending everything, so it is served last; with [`RootMode::Overlap`] (the slides' master)
//! it computes from time 0 while it sends.
//!
//! The bus model of the slides is this model with equal `comm_per_item` for all workers.

use crate::error::{Error, Field};
use crate::num::Real;

/// One processor's costs. All times are in seconds, all rates in seconds per item.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worker<N> {
    /// Fixed part of receiving a non-empty share from the root (seconds, ≥ 0).
    pub comm_latency: N,
    /// Time to receive one item from the root (λ, seconds per item, ≥ 0).
    pub comm_per_item: N,
    /// Fixed part of computing a non-empty share (seconds, ≥ 0).
    pub comp_latency: N,
    /// Time to compute one item (μ, seconds per item, > 0).
    pub comp_per_item: N,
}

impl<N: Real> Worker<N> {
    /// A worker with linear costs (no latencies): λ = `comm_per_item`, μ = `comp_per_item`.
    pub fn linear(comm_per_item: N, comp_per_item: N) -> Self {
        Worker { comm_latency: N::ZERO, comm_per_item, comp_latency: N::ZERO, comp_per_item }
    }

    /// Builds a worker from `f64` values, checking each against its valid range and against
    /// the number type `N`. `index` is used in error messages.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) when a value is NaN,
    /// infinite, negative, or when `comp_per_item` is 0;
    /// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when a value does not fit `N`.
    ///
    /// ```
    /// use divload::Worker;
    /// assert!(Worker::<f64>::try_from_f64(0, 0.0, 1e-5, 0.0, 0.009).is_ok());
    /// let err = Worker::<f64>::try_from_f64(3, 0.0, 1e-5, 0.0, f64::NAN).unwrap_err();
    /// assert_eq!(err.to_string(), "worker 3: comp_per_item must be finite and > 0, got NaN");
    /// ```
    pub fn try_from_f64(
        index: usize,
        comm_latency: f64,
        comm_per_item: f64,
        comp_latency: f64,
        comp_per_item: f64,
    ) -> Result<Self, Error> {
        let conv = |field: Field, v: f64| -> Result<N, Error> {
            check(index, field, v)?;
            N::from_f64(v).ok_or(Error::not_representable(index, field, v, N::NAME))
        };
        let w = Worker {
            comm_latency: conv(Field::CommLatency, comm_latency)?,
            comm_per_item: conv(Field::CommPerItem, comm_per_item)?,
            comp_latency: conv(Field::CompLatency, comp_latency)?,
            comp_per_item: conv(Field::CompPerItem, comp_per_item)?,
        };
        if w.comp_per_item <= N::ZERO {
            // A positive f64 that rounds to zero in `N`.
            return Err(Error::not_representable(index, Field::CompPerItem, comp_per_item, N::NAME));
        }
        Ok(w)
    }

    /// Checks the worker's costs. `index` is used in error messages.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) naming the field, when a
    /// cost is not finite, is negative, or `comp_per_item` is not positive.
    pub fn validate(&self, index: usize) -> Result<(), Error> {
        check(index, Field::CommLatency, self.comm_latency.to_f64())?;
        check(index, Field::CommPerItem, self.comm_per_item.to_f64())?;
        check(index, Field::CompLatency, self.comp_latency.to_f64())?;
        check(index, Field::CompPerItem, self.comp_per_item.to_f64())?;
        if !(self.comm_latency.is_finite()
            && self.comm_per_item.is_finite()
            && self.comp_latency.is_finite()
            && self.comp_per_item.is_finite())
        {
            return Err(Error::numeric_overflow(N::NAME));
        }
        Ok(())
    }

    /// Time to receive `x` items (0 when `x` is 0).
    #[inline]
    pub fn comm_time(&self, x: N) -> N {
        if x > N::ZERO {
            self.comm_latency + self.comm_per_item * x
        } else {
            N::ZERO
        }
    }

    /// Time to compute `x` items (0 when `x` is 0).
    #[inline]
    pub fn comp_time(&self, x: N) -> N {
        if x > N::ZERO {
            self.comp_latency + self.comp_per_item * x
        } else {
            N::ZERO
        }
    }

    /// `true` when both latencies are zero (costs are linear, as in genaud2003 §4).
    #[inline]
    pub fn is_linear(&self) -> bool {
        self.comm_latency == N::ZERO && self.comp_latency == N::ZERO
    }

    /// The same worker as seen when it is the root: it does not send to itself.
    #[inline]
    pub(crate) fn as_root(&self) -> Self {
        Worker { comm_latency: N::ZERO, comm_per_item: N::ZERO, ..*self }
    }
}

pub(crate) fn check(index: usize, field: Field, v: f64) -> Result<(), Error> {
    let ok = v.is_finite() && if field == Field::CompPerItem { v > 0.0 } else { v >= 0.0 };
    if ok {
        Ok(())
    } else {
        Err(Error::cost(index, field, v))
    }
}

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
    /// (counting the delay it causes to the workers served after it).
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
        check(index, Field::TransferLatency, self.transfer_latency.to_f64())?;
        check(index, Field::TransferPerItem, self.transfer_per_item.to_f64())
    }
}

/// The workers with the root's own communication removed: what a position in the send
/// order costs. In overlap mode the root sits first with zero communication cost, which is
/// exactly the slides' `c₁ = 0`; after send it sits last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs<'a, N> {
    pub workers: &'a [Worker<N>],
    pub root: usize,
}

impl<N: Real> Costs<'_, N> {
    /// Effective costs of worker `w`.
    #[inline]
    pub fn of(&self, w: usize) -> Worker<N> {
        let worker = self.workers[w];
        if w == self.root {
            worker.as_root()
        } else {
            worker
        }
    }
}
