//! A cluster controller's share computation, as firmware would run it: `#![no_std]`, no
//! allocation, fixed-point arithmetic ([`Q32`]) for a Cortex-M0 without an FPU, and all
//! memory fixed at compile time in a [`Workspace`] the firmware keeps in a `static`.
//!
//! The controller measured each node once at a few sizes (a table of `(items, seconds)`
//! per node) and knows its link speed. [`shares`] returns how many items each node gets,
//! and the certified distance of that plan from the optimum, so the firmware can decide
//! whether the approximation is good enough. The scripts build this crate for
//! `thumbv6m-none-eabi`, which proves the sampled DP compiles there in `Q32`.
//!
//! [`session`] is the controller's side of a serial line: nodes' per-item costs in as text
//! lines, each node's share and the plan's certified gap out, in any number type. The
//! images in `firmware/qemu/` run it on an emulated Cortex-M0 (`Q32`) and Cortex-M4F
//! (`f32` and `f64`); `tests/firmware/run` boots them and checks them against the command
//! line.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(test)]
extern crate std;

use divload::cost::{Affine, Tabulated, WorkerCosts};
use divload::scatter::exact::CostProblem;
use divload::scatter::sampled::Sampled;
use divload::{Assignment, Error, OrderPolicy, Real, RootMode, Q32};

pub mod session;

/// Most nodes the controller manages.
pub const NODES: usize = 8;
/// Sampled sizes of the DP.
pub const SAMPLES: usize = 256;
/// Measured points per node.
pub const POINTS: usize = 4;

/// What the controller knows of one node.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Link time per item from the controller's data store (seconds; 0 for the node that
    /// holds the data).
    pub comm_per_item: f64,
    /// Measured computation times `(items, seconds)`, sorted by size.
    pub measured: [(u64, f64); POINTS],
}

/// All the memory [`shares`] uses (about 5 KiB with the plan), kept by the firmware.
#[derive(Debug)]
pub struct Workspace {
    dp: Sampled<Q32, SAMPLES, NODES>,
    costs: heapless::Vec<WorkerCosts<Affine<Q32>, Tabulated<Q32, POINTS>>, NODES>,
    plan: [Assignment<Q32>; NODES],
}

impl Workspace {
    /// An empty workspace, for a `static`.
    pub const fn new() -> Self {
        Workspace { dp: Sampled::new(), costs: heapless::Vec::new(), plan: [Assignment::EMPTY; NODES] }
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

/// What [`shares`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shares {
    /// Items per node, by node index.
    pub counts: [u64; NODES],
    /// Predicted time until the last node finishes, seconds.
    pub makespan: Q32,
    /// Certified upper bound on how much shorter the best plan could be, seconds.
    pub gap: Q32,
}

/// Splits `items` over `nodes` (node 0 holds the data and computes after sending).
///
/// # Errors
///
/// The core's errors, each naming its input: a bad measurement, more than [`NODES`]
/// nodes, no nodes or no items, times beyond the range of `Q32`.
pub fn shares(nodes: &[Node], items: u64, work: &mut Workspace) -> Result<Shares, Error> {
    if nodes.len() > NODES {
        return Err(Error::limit("nodes", NODES as u64, nodes.len() as u64));
    }
    work.costs.clear();
    for n in nodes {
        let per_item = Q32::from_f64(n.comm_per_item).unwrap_or(Q32::INFINITY);
        let costs =
            WorkerCosts { comm: Affine::new(Q32::ZERO, per_item)?, comp: Tabulated::new(&n.measured)? };
        // Capacity was checked above.
        let _ = work.costs.push(costs);
    }
    let problem = CostProblem {
        workers: &work.costs,
        root: 0,
        items,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Bandwidth,
    };
    let summary = work.dp.solve(&problem, &mut work.plan)?;
    let mut counts = [0u64; NODES];
    for a in &work.plan[..nodes.len()] {
        counts[a.worker] = a.count;
    }
    Ok(Shares { counts, makespan: summary.makespan, gap: summary.gap() })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::string::ToString;

    fn nodes() -> [Node; 4] {
        [
            Node { comm_per_item: 0.0, measured: [(100, 1.0), (1000, 10.5), (5000, 60.0), (20000, 260.0)] },
            Node { comm_per_item: 2e-4, measured: [(100, 0.4), (1000, 4.1), (5000, 22.0), (20000, 95.0)] },
            Node { comm_per_item: 5e-4, measured: [(100, 0.3), (1000, 2.9), (5000, 16.5), (20000, 80.0)] },
            Node { comm_per_item: 1e-4, measured: [(100, 0.9), (1000, 9.2), (5000, 47.0), (20000, 190.0)] },
        ]
    }

    /// Q32 on the controller agrees with f64 on a host, and its certified gap is honest.
    #[test]
    fn fixed_point_shares_match_the_host() {
        let mut work = Workspace::new();
        let got = shares(&nodes(), 20_000, &mut work).unwrap();
        assert_eq!(got.counts.iter().sum::<u64>(), 20_000);
        assert!(got.counts[..4].iter().all(|&c| c > 0));

        // The same problem in f64 with the exact DP.
        type T = Tabulated<f64, POINTS>;
        let ws: [WorkerCosts<Affine<f64>, T>; 4] = core::array::from_fn(|i| {
            let n = nodes()[i];
            WorkerCosts {
                comm: Affine::new(0.0, n.comm_per_item).unwrap(),
                comp: T::new(&n.measured).unwrap(),
            }
        });
        let problem = CostProblem {
            workers: &ws,
            root: 0,
            items: 20_000,
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Bandwidth,
        };
        let mem = divload::scatter::exact::exact_memory(20_000, 4).unwrap();
        let mut choices = [0u32; 3 * 20_001];
        let mut costs = [0.0f64; 20_001];
        let mut out = [Assignment::EMPTY; 4];
        let exact = divload::scatter::exact::exact(
            &problem,
            divload::scatter::exact::Pruning::Monotone,
            &mut out,
            &mut choices[..mem.choices],
            &mut costs,
            |_, _| {},
        )
        .unwrap();
        let (m, gap) = (got.makespan.to_f64(), got.gap.to_f64());
        assert!(
            m - gap <= exact.makespan + 1e-6 && exact.makespan <= m + 1e-6,
            "{} in [{}, {m}]",
            exact.makespan,
            m - gap
        );
        assert!(gap / m < 0.02, "gap {gap} of {m}");
    }

    #[test]
    fn limits_and_bad_measurements_are_errors() {
        let mut work = Workspace::new();
        let nine = [nodes()[0]; 9];
        assert_eq!(shares(&nine, 100, &mut work).unwrap_err().to_string(), "nodes: at most 8, got 9");
        let mut bad = nodes();
        bad[2].measured[1] = (1000, f64::NAN);
        assert_eq!(
            shares(&bad, 100, &mut work).unwrap_err().to_string(),
            "tabulated cost: point 1: seconds must be finite and >= 0, got NaN"
        );
        assert_eq!(
            shares(&nodes(), 0, &mut work).unwrap_err().to_string(),
            "items: must be at least 1, got 0"
        );
        assert!(shares(&[], 10, &mut work).is_err());
    }
}
