//! A certified upper bound on the throughput of *every* scenario of the return-messages
//! model (`docs/derivations/returns.md` §5), so every answer carries a gap.
//!
//! Valid for any participants and orders (α extended by 0): `α_i ≤ u_i = 1/(c_i + w_i + d_i)`
//! (the worker's own row); in full duplex `Σ c·α ≤ 1` (row of the worker sent last) and
//! `Σ d·α ≤ 1` (row of the worker returned first), hence `Σ (c + d)/2·α ≤ 1`; in half
//! duplex also `Σ (c + d)·α ≤ 1`. Each gives a fractional knapsack
//! `K(v) = max {Σ α : 0 ≤ α ≤ u, Σ v·α ≤ 1}` above ρ, and ρ ≤ min over the knapsacks.
//!
//! In floating point the bound must stay a bound, and a greedy knapsack subtracts. So each
//! `K(v)` is bounded through LP duality instead: for *any* λ ≥ 0,
//! `K(v) ≤ λ + Σ_i u_i·max(0, 1 − λ·v_i)` (weak duality; equality at λ = 1/v_f for the
//! item f where the greedy stops). λ is found by a weighted selection in plain `f64` (any
//! λ is valid, a good one is tight), then the right-hand side is evaluated with every
//! operation rounded outwards (`next_up`/`next_down` around each correctly rounded
//! result), which holds whatever the cancellation. Expected O(p), no sort.

use crate::kernel::fp::{next_down, next_up};
use crate::num::Real;
use crate::returns::types::{Port, ReturnWorker, Scratch};

/// An upper bound on ρ over every scenario, certified in floating point (`+∞` only if a
/// cost is so small that `1/(c + w + d)` overflows). `scratch` needs one record per worker.
pub(crate) fn throughput_bound<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    scratch: &mut [Scratch],
) -> f64 {
    // Lower bounds on each knapsack weight, from exact f64 costs.
    let c = |w: &ReturnWorker<N>| w.comm_per_item.to_f64();
    let d = |w: &ReturnWorker<N>| w.return_per_item.to_f64();
    let cd = |w: &ReturnWorker<N>| next_down(c(w) + d(w));
    let half = |w: &ReturnWorker<N>| next_down(cd(w) * 0.5);
    let mut best = knapsack(workers, scratch, c);
    best = best.min(knapsack(workers, scratch, d));
    best = best.min(knapsack(workers, scratch, half));
    if port == Port::HalfDuplex {
        best = best.min(knapsack(workers, scratch, cd));
    }
    best
}

/// `u_i` rounded up: `1/(c + w + d)` with the sum rounded down first.
fn cap_above<N: Real>(w: &ReturnWorker<N>) -> f64 {
    let sum = next_down(
        next_down(w.comm_per_item.to_f64() + w.comp_per_item.to_f64()) + w.return_per_item.to_f64(),
    );
    if sum > 0.0 {
        next_up(1.0 / sum)
    } else {
        f64::INFINITY
    }
}

/// An upper bound on `K(v)` for weights `v_i ≥ weight(worker)` (the closure gives lower
/// bounds on the exact weights, which is what makes the result an upper bound).
fn knapsack<N: Real>(
    workers: &[ReturnWorker<N>],
    scratch: &mut [Scratch],
    weight: impl Fn(&ReturnWorker<N>) -> f64,
) -> f64 {
    let p = workers.len();
    for (i, (s, w)) in scratch.iter_mut().zip(workers).enumerate() {
        let v = weight(w);
        *s = Scratch { pos: i, key: v, weight: v / w.total().to_f64(), ..Scratch::EMPTY };
    }
    // Weighted selection of the greedy's stopping item: the weight of the items cheaper
    // than it stays within the budget 1.
    let (mut lo, mut hi, mut budget) = (0usize, p, 1.0f64);
    let mut lambda = 0.0f64;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let part = &mut scratch[lo..hi];
        part.select_nth_unstable_by(mid - lo, |a, b| a.key.total_cmp(&b.key));
        let below: f64 = scratch[lo..mid].iter().map(|s| s.weight).sum();
        if below > budget {
            hi = mid;
            continue;
        }
        let with = below + scratch[mid].weight;
        if with >= budget && scratch[mid].key > 0.0 {
            lambda = 1.0 / scratch[mid].key;
            break;
        }
        budget -= with;
        lo = mid + 1;
    }
    let mut total = 0.0f64;
    for w in workers {
        let u = cap_above(w);
        let lv = next_down(lambda * weight(w));
        if lv < 1.0 {
            total = next_up(total + next_up(u * next_up(1.0 - lv)));
        }
    }
    next_up(lambda + total)
}
