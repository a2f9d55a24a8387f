//! # divload — how many items each processor should get so that all finish together
//!
//! Parallel codes on heterogeneous machines often split their data evenly
//! (`MPI_Scatter`), so fast processors wait for slow ones. `divload` computes the split
//! that balances the work, from each worker's communication and computation costs, for a
//! root that sends to one worker at a time (the single-port scatter of Genaud, Giersch
//! and Vivien, *Load-balancing scatter operations for grid computing*, 2003; the bus and
//! star models of divisible-load theory). Feed the counts and displacements to
//! `MPI_Scatterv`.
//!
//! What it solves, for affine costs (`latency + per_item · x`):
//!
//! * the rational optimum for a send order, with equal finish times among the workers that
//!   take part ([`plan`]; exact for linear costs, a certified bound with latencies),
//! * which workers take part (genaud2003 Thm 2, corrected),
//! * the send order (decreasing bandwidth, Thm 3) and the choice of root (§3.4),
//! * integer counts that add up exactly, by three rounding schemes with the eq. (4)
//!   guarantee,
//! * the evaluation of any plan, including the even split ([`evaluate`]).
//!
//! For any non-decreasing costs ([`cost`]: tabulated measurements, power laws, closures):
//!
//! * the exact integer optimum for a send order ([`dp::exact`], genaud2003 Algorithm 2 with
//!   sharper pruning; memory from the caller, sized by [`dp::exact_memory`]),
//! * the same recursion over sampled sizes in memory fixed at compile time, with a
//!   certified bound on its distance to the optimum ([`sampled::Sampled`], for controllers),
//! * without communication, the exact optimum by a search on the makespan
//!   ([`threshold::solve`], cerin2006 §4).
//!
//! Every plan says how it was obtained ([`Method`]) and its certified gap
//! ([`Summary::gap`]).
//!
//! What it does not solve: links shared between workers, result messages sent back to the
//! root, the best send order for non-affine costs (the bandwidth order is used).
//!
//! ## Everywhere
//!
//! `#![no_std]`, no `alloc`, no `unsafe`. The caller provides the memory: [`plan`] takes
//! an output slice and a scratch slice with one element per worker. The number type is
//! generic ([`Real`]): `f64`, `f32`, or the fixed-point [`Q32`] for processors without an
//! FPU. Items per type: up to 2⁵³ (`f64`), 2²⁴ (`f32`), 2³¹ − 1 (`Q32`).
//!
//! ```
//! use divload::{plan, Assignment, Options, Problem, Root, Scratch, Worker};
//!
//! let workers = [
//!     Worker::linear(0.0, 0.009288),     // the root: λ (s/item), μ (s/item)
//!     Worker::linear(1.12e-5, 0.009365),
//!     Worker::linear(8.15e-5, 0.003976),
//! ];
//! let problem = Problem { workers: &workers, root: Root::Fixed(0), items: 817_101, options: Options::default() };
//! let mut out = [Assignment::EMPTY; 3];
//! let mut scratch = [Scratch::EMPTY; 3];
//! let summary = plan(&problem, &mut out, &mut scratch)?;
//! for a in &out {
//!     println!("worker {} gets {} items at offset {}", a.worker, a.count, a.displacement);
//! }
//! assert!(summary.makespan <= summary.bound);
//! # Ok::<(), divload::Error>(())
//! ```
//!
//! With the `json` feature (default), [`json`] reads platform files and writes result
//! documents without allocating.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(test)]
extern crate std;

mod chain;
pub mod cost;
pub mod dp;
mod error;
mod model;
mod num;
mod order;
mod plan;
mod round;
pub mod sampled;
mod star;
pub mod threshold;

#[cfg(feature = "json")]
pub mod json;

pub use error::{Error, ErrorCode, Field};
pub use model::{Options, OrderPolicy, RootCandidate, RootMode, Rounding, Worker};
pub use num::{Real, Q32};
pub use plan::{evaluate, even_split_count, plan, Assignment, Method, Problem, Root, Scratch, Summary};

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
    let costs = model::Costs { workers, root };
    let p = plan.len();
    round::round(scheme, &costs, items, plan, &mut scratch[..p]);
    evaluate(workers, root, mode, items, plan)
}
