//! The order in which the root serves the workers.
//!
//! genaud2003 Thm 3: with linear costs and rational shares, serving the workers by
//! decreasing bandwidth (increasing λ, `comm_per_item`) with the root last is optimal.
//! The theorem is stated for the case where everyone takes part; it holds in general
//! because a worker that takes no part can sit anywhere, and the tests check it against
//! every order on small instances. The slides add that on a bus (equal λ) the order does
//! not matter.
//!
//! [`RootMode::Overlap`] puts the root first (it computes from time 0 and costs the
//! others nothing); [`RootMode::AfterSend`] puts it last.

use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::{OrderPolicy, RootMode};
use crate::scatter::types::Scratch;

/// Writes the send order into `slots[..].worker`. `slots.len()` must equal
/// `workers.len()` and `root < workers.len()` (checked by the caller).
pub(crate) fn send_order<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    policy: OrderPolicy,
    slots: &mut [Scratch<N>],
) {
    let p = slots.len();
    let (root_pos, others) = match mode {
        RootMode::AfterSend => (p - 1, 0..p - 1),
        RootMode::Overlap => (0, 1..p),
    };
    let mut w = 0;
    for k in others.clone() {
        if w == root {
            w += 1;
        }
        slots[k].worker = w;
        w += 1;
    }
    slots[root_pos].worker = root;
    if policy == OrderPolicy::Bandwidth {
        slots[others].sort_unstable_by(|a, b| {
            let (x, y) = (&workers[a.worker], &workers[b.worker]);
            x.comm_per_item
                .cmp_total(y.comm_per_item)
                .then(x.comm_latency.cmp_total(y.comm_latency))
                .then(x.comp_per_item.cmp_total(y.comp_per_item))
                .then(a.worker.cmp(&b.worker))
        });
    }
}
