//! # divload — how many items each processor should get so that all finish together
//!
//! Parallel codes on heterogeneous machines often split their data evenly
//! (`MPI_Scatter`), so fast processors wait for slow ones. `divload` computes the split
//! that balances the work from each processor's communication and computation costs, with
//! the models of divisible-load theory, one folder each:
//!
//! | model | module | paper | status |
//! |---|---|---|---|
//! | a root serves the workers one at a time, then they compute | [`scatter`] | genaud2003; slides "bus", "star" | closed forms, exact and sampled DP |
//! | computation only, nonlinear costs | [`partition`] | cerin2006 §4 | exact threshold search |
//! | workers send results back (LIFO, FIFO, best) | [`returns`] | slides "return messages" | closed forms, scenario LP, best scenario, certified bound |
//! | iterative codes on clusters behind slow links | [`multicluster`] | heien | BIASED closed form, integer counts, what-if |
//! | iterative codes on a ring over shared links | `ring` | legrand2003 | to come |
//!
//! The scatter, for affine costs (`latency + per_item · x`):
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
//! * the exact integer optimum for a send order ([`scatter::exact::exact`], genaud2003
//!   Algorithm 2 with sharper pruning; memory from the caller, sized by
//!   [`scatter::exact::exact_memory`]),
//! * the same recursion over sampled sizes in memory fixed at compile time, with a
//!   certified bound on its distance to the optimum ([`scatter::sampled::Sampled`], for
//!   controllers),
//! * without communication, the exact optimum by a search on the makespan
//!   ([`partition::solve`], cerin2006 §4).
//!
//! Every answer says how it was obtained and its certified gap, in the same terms for every
//! model ([`Report`]: method, makespan, lower bound, gap, exact). Bounds are bounds as
//! computed: `lower_bound ≤ makespan ≤ bound` holds in floating point for every plan and
//! number type, not only in exact arithmetic.
//!
//! ## Layers
//!
//! Numbers ([`Real`]) and errors ([`Error`]) → the [`report`] → the [`platform`]
//! vocabulary (workers, cost functions) → shared kernels (the send chain, the stage DP,
//! floating-point-safe bounds, a small dense LP, a threshold search; private) → one folder
//! per model → the document layer (`doc`, feature `json`). Each
//! layer imports only from those before it, and model folders never import each other
//! (checked by `tests/tests/tidy.rs`).
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
//! With the `json` feature (default), `doc` reads platform documents and writes result
//! documents without allocating.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(test)]
extern crate std;

// Layers, each importing only from those above it (checked by `tests/tests/tidy.rs`):
// numbers and errors, the report, the platform vocabulary, shared kernels, one folder per
// model, the document layer.
#[cfg(feature = "doc")]
pub mod doc;
mod error;
pub(crate) mod kernel;
pub mod multicluster;
mod num;
pub mod partition;
pub mod platform;
pub mod report;
pub mod returns;
pub mod ring;
pub mod scatter;

pub use error::{Error, ErrorCode, Field};
pub use num::{Real, Q32};
pub use platform::cost;
pub use platform::worker::Worker;
pub use report::{Method, Report};
pub use scatter::{
    evaluate, even_split_count, plan, round, Assignment, Options, OrderPolicy, Problem, Root, RootCandidate,
    RootMode, Rounding, Scratch, Summary,
};

/// The README's Rust example, compiled and run as a doctest (tests/docs/check.py runs the
/// other languages' blocks).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

/// The Rust guide's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
struct RustGuideExamples;
