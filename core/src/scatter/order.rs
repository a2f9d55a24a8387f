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

use crate::kernel::columns::{Columns, SortColumns};
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::{OrderPolicy, RootMode};
use crate::scatter::types::{col, Scratch};

/// Writes the send order into the scratch columns: the worker at each position
/// ([`col::WORKER`]) and its costs as the chain sees them ([`col::LAMBDA`], [`col::MU`]; the
/// root sends to itself for free). `cols.len()` must equal `workers.len()` and `root <
/// workers.len()` (checked by the caller).
///
/// By bandwidth, the order is increasing λ, then latency, then μ, then index: a bucket sort
/// on λ's bits (`kernel::columns`) that reads the workers once in input order, so a
/// million workers cost two streaming passes instead of a comparison sort over scattered
/// records.
pub(crate) fn send_order<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    policy: OrderPolicy,
    cols: &mut Columns<'_, Scratch<N>>,
) {
    let p = cols.len();
    let (root_pos, base) = match mode {
        RootMode::AfterSend => (p - 1, 0),
        RootMode::Overlap => (0, 1),
    };
    match policy {
        OrderPolicy::Given => {
            for j in 0..p - 1 {
                let (w, x) = (other(j, root), worker(workers, other(j, root)));
                cols.set(col::WORKER, base + j, w as u64);
                cols.set(col::LAMBDA, base + j, x.comm_per_item.sort_key());
                cols.set_real(col::MU, base + j, x.comp_per_item);
            }
        }
        // The search starts from (and without its memory, stays with) the bandwidth order.
        OrderPolicy::Bandwidth | OrderPolicy::Search => by_bandwidth(workers, p - 1, base, root, cols),
    }
    cols.set(col::WORKER, root_pos, root as u64);
    cols.set(col::LAMBDA, root_pos, N::ZERO.sort_key());
    cols.set_real(col::MU, root_pos, worker(workers, root).comp_per_item);
}

/// The `j`-th worker other than `skip`.
pub(crate) fn other(j: usize, skip: usize) -> usize {
    if j < skip {
        j
    } else {
        j + 1
    }
}

/// Sorts `n` workers, all but `skip` (`usize::MAX`: none), by bandwidth (increasing λ,
/// then latency, then μ, then index) into send positions `base..base + n`:
/// [`col::WORKER`], [`col::LAMBDA`] (as its sort key) and [`col::MU`].
pub(crate) fn by_bandwidth<N: Real>(
    workers: &[Worker<N>],
    n: usize,
    base: usize,
    skip: usize,
    cols: &mut Columns<'_, Scratch<N>>,
) {
    let c = SortColumns {
        key: col::LAMBDA,
        value: col::WORKER,
        extra: Some(col::MU),
        counts: col::ORDER_COUNTS,
        spare: col::ORDER_SPARE,
        // Link costs: within a few powers of two on the platforms measured (a wider spread
        // sorts the same, only slower).
        spread: true,
    };
    cols.sort(
        n,
        base,
        c,
        |_, j| {
            let x = worker(workers, other(j, skip));
            [x.comm_per_item.sort_key(), other(j, skip) as u64, x.comp_per_item.to_word()]
        },
        |cols, a, b| {
            let (i, j) = (cols.index(col::WORKER, a), cols.index(col::WORKER, b));
            let (x, y) = (worker(workers, i), worker(workers, j));
            x.comm_latency
                .cmp_total(y.comm_latency)
                .then(x.comp_per_item.cmp_total(y.comp_per_item))
                .then(i.cmp(&j))
        },
    );
}

/// Worker `i`, which the callers keep in range; an index out of range (a bug) reads as a
/// zero worker instead of panicking (the `nopanic` proof; debug builds still assert).
#[inline]
fn worker<N: Real>(workers: &[Worker<N>], i: usize) -> Worker<N> {
    debug_assert!(i < workers.len());
    workers.get(i).copied().unwrap_or(Worker::linear(N::ZERO, N::ZERO))
}

#[cfg(feature = "doc")]
/// Whether `plan` serves the workers in the order [`send_order`] gives (which it writes
/// into `scratch`): a bound for that order then holds for the plan.
pub(crate) fn is_send_order<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    mode: RootMode,
    policy: OrderPolicy,
    scratch: &mut [Scratch<N>],
    plan: &[crate::scatter::types::Assignment<N>],
) -> bool {
    let mut cols = Columns::new(scratch);
    send_order(workers, root, mode, policy, &mut cols);
    plan.len() == cols.len() && plan.iter().enumerate().all(|(k, a)| cols.index(col::WORKER, k) == a.worker)
}
