//! Integer plans of the return-messages model: counts from rational shares (largest
//! remainder, exact sum), the schedule's times evaluated as the model says (slides
//! L410-461: sends back to back in send order, compute on arrival, each return as early as
//! possible after its compute and the previous return; half duplex: no return before the
//! last send ends), and a certified upper bound on the integer makespan.
//!
//! Why the bound holds. With counts `n`, the evaluation above ends its last return at
//! `max_i R_i(n)`, where `R_i(y) = Σ_{j sent ≤ i} c_j y_j + w_i y_i + Σ_{j returned ≥ i} d_j y_j`
//! (the longest path: sends up to i, i's compute, then every return from i's on, back to
//! back), and in half duplex at `max(max_i R_i(n), H(n))` with `H(y) = Σ_j (c_j + d_j) y_j`
//! (all sends, then all returns). All coefficients are ≥ 0, so the rows are monotone: with
//! `e_j = max(0, n_j − ⌊s_j⌋)` (1 for a worker that got its remainder, else 0) and
//! `y = s + e ≥ n`, `makespan ≤ max_rows R(y) ≤ max_rows R(s) + max_rows R(e)`. The
//! rational shares `s` meet every row within `items/ρ` (the scenario LP scaled by
//! `items/ρ`), and `e_j ≤ 1`, so
//! `makespan ≤ items/ρ + maxᵢ (Σ_{j sent ≤ i} c_j + w_i + Σ_{j returned ≥ i} d_j)`
//! (half duplex: also `Σ_j (c_j + d_j)`). The code evaluates `max_rows R(s + e)` in `f64`
//! with every operation rounded upwards, which is above the makespan whatever rounding
//! did to `s`, and widens it for `N`'s own evaluation ([`fp::upper_for`]).

use crate::kernel::fp::{self, next_up};
use crate::num::Real;
use crate::returns::types::{Assignment, Port, ReturnWorker, Scratch};

/// Roundings behind a makespan this module evaluates over `positions` positions in `N`:
/// two per send and per return (a product and a sum or maximum) and two for the compute
/// on the longest path, all on non-negative terms.
pub(crate) const fn evaluation_ops(positions: usize) -> u64 {
    4 * positions as u64 + 8
}

/// Largest-remainder counts for `out[..members]` (from `share`), adding up to `items`
/// exactly; the other entries get 0.
pub(crate) fn round<N: Real>(items: u64, out: &mut [Assignment<N>], members: usize, scratch: &mut [Scratch]) {
    let mut total = 0u64;
    for (k, (a, s)) in out.iter_mut().zip(scratch.iter_mut()).take(members).enumerate() {
        let x = a.share.to_f64().max(0.0);
        let floor = x as u64;
        *s = Scratch { pos: k, floor, key: x - floor as f64, ..Scratch::EMPTY };
        a.count = floor;
        total = total.saturating_add(floor);
    }
    for a in out.iter_mut().skip(members) {
        a.count = 0;
    }
    let part = &mut scratch[..members];
    if members == 0 {
        return;
    }
    if total <= items {
        // Shares add up to `items` within rounding, so normally `deficit < members` and
        // `base` is 0: each count is its floor or one more.
        let deficit = items - total;
        let m = members as u64;
        let (base, extra) = (deficit / m, (deficit % m) as usize);
        if extra > 0 {
            part.select_nth_unstable_by(extra - 1, |a, b| b.key.total_cmp(&a.key).then(a.pos.cmp(&b.pos)));
        }
        for (t, s) in part.iter().enumerate() {
            out[s.pos].count = s.floor + base + u64::from(t < extra);
        }
    } else {
        // Shares above `items` (only when rounding made them so): take from the smallest
        // remainders first.
        let mut excess = total - items;
        part.sort_unstable_by(|a, b| a.key.total_cmp(&b.key).then(a.pos.cmp(&b.pos)));
        while excess > 0 {
            for s in part.iter() {
                let a = &mut out[s.pos];
                if excess > 0 && a.count > 0 {
                    a.count -= 1;
                    excess -= 1;
                }
            }
        }
    }
}

/// Evaluates the schedule of `len` positions in send order, with `count(k)` items at
/// position `k` (worker `out[k].worker`) and `rank(k)` its position in the return order
/// (a permutation of `0..len`): writes every time field of `out[..len]` and returns the
/// makespan (the end of the last return).
pub(crate) fn evaluate<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    out: &mut [Assignment<N>],
    len: usize,
    scratch: &mut [Scratch],
    count: impl Fn(usize, &Assignment<N>) -> u64,
    rank: impl Fn(usize, &Assignment<N>) -> usize,
) -> N {
    let mut sent = N::ZERO;
    for (k, a) in out.iter_mut().enumerate().take(len) {
        let w = workers[a.worker];
        let n = N::from_u64(count(k, a));
        let received = sent + w.comm_per_item * n;
        let computed = received + w.comp_per_item * n;
        (a.send_start, a.received, a.computed) = (sent, received, computed);
        sent = received;
        if let Some(s) = scratch.get_mut(rank(k, a)) {
            s.pos = k;
        }
    }
    let mut t = if port == Port::HalfDuplex { sent } else { N::ZERO };
    for s in scratch.iter().take(len) {
        let k = s.pos;
        let a = out[k];
        let w = workers[a.worker];
        let n = N::from_u64(count(k, &a));
        let start = t.max_of(a.computed);
        t = start + w.return_per_item * n;
        out[k].return_start = start;
        out[k].return_end = t;
        out[k].idle = start - a.computed;
    }
    t
}

/// An `f64` above the exact makespan of the integer plan in `out[..members]` (counts,
/// shares, return ranks), by the argument in the module documentation.
pub(crate) fn makespan_bound<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    out: &[Assignment<N>],
    members: usize,
    scratch: &mut [Scratch],
) -> f64 {
    let y = |a: &Assignment<N>| {
        let s = a.share.to_f64().max(0.0);
        let extra = a.count.saturating_sub(s as u64);
        next_up(s + extra as f64)
    };
    let mut sent = 0.0f64;
    for k in 0..members {
        let a = &out[k];
        let w = workers[a.worker];
        let yk = y(a);
        sent = next_up(sent + next_up(w.comm_per_item.to_f64() * yk));
        scratch[k].key = next_up(sent + next_up(w.comp_per_item.to_f64() * yk));
        if let Some(s) = a.return_rank.and_then(|r| scratch.get_mut(r)) {
            s.pos = k;
        }
    }
    let (mut back, mut worst) = (0.0f64, 0.0f64);
    for r in (0..members).rev() {
        let k = scratch[r].pos;
        let a = &out[k];
        back = next_up(back + next_up(workers[a.worker].return_per_item.to_f64() * y(a)));
        worst = worst.max(next_up(scratch[k].key + back));
    }
    if port == Port::HalfDuplex {
        worst = worst.max(next_up(sent + back));
    }
    worst
}

/// The bound of [`makespan_bound`] in `N`, safe to compare with the makespan `N` computes.
pub(crate) fn bound_for<N: Real>(x: f64, positions: usize) -> N {
    fp::upper_for::<N>(x, 0, evaluation_ops(positions))
}
