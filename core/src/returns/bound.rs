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
//!
//! Up to [`REFINED_BOUND_WORKERS`] workers the bound is also refined (returns.md §5,
//! `upper_bound_refined`): every scenario has a member s sent last and a member r
//! returned first, whose rows give `Σ c·α + (w_s + d_s)·α_s ≤ 1` and
//! `Σ d·α + (c_r + w_r)·α_r ≤ 1` (for s = r the one row `Σ (c + d)·α + w_s·α_s ≤ 1`), so
//! ρ ≤ max over (s, r) of the LP with those rows, the caps and (half duplex) the port
//! row. Each of the p² LPs is solved by the simplex only to find its
//! duals (λ, μ, η); the bound itself is the weak-duality value
//! `λ + μ + η + Σ u_i·max(0, 1 − λ·a_i − μ·b_i − η·h_i)` rounded outwards, valid for any
//! duals. On the slides' platform B (full duplex) this gives 301/3420 ≈ 0.088 against the
//! knapsacks' 121/1008 ≈ 0.120, for an optimum of 38/499 ≈ 0.076.

use core::ops::Add;

use crate::kernel::fp::{next_down, next_up};
use crate::kernel::lp::{tableau_len, Tableau};
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
    best.min(refined(workers, port))
}

/// Largest platform for the refined bound: p² LPs of p + 3 rows (64 at p = 8, well under a
/// millisecond), on a stack tableau.
pub const REFINED_BOUND_WORKERS: usize = 8;

const REFINED_TABLEAU: usize = match tableau_len(REFINED_BOUND_WORKERS + 3, REFINED_BOUND_WORKERS) {
    Some(n) => n,
    None => 0,
};

/// Worker i's coefficients in the rows of s (sent last) and r (returned first), with
/// `add` as the addition (rounded down for the certificate): for s ≠ r,
/// `c_i (+ w_s + d_s)` and `d_i (+ c_r + w_r)`; for s = r the one row `c_i + d_i (+ w_s)`
/// and an empty second row.
fn coefficients(
    c: f64,
    w: f64,
    d: f64,
    i: usize,
    s: usize,
    r: usize,
    add: impl Fn(f64, f64) -> f64,
) -> (f64, f64) {
    if s == r {
        let both = add(c, d);
        (if i == s { add(both, w) } else { both }, 0.0)
    } else {
        (if i == s { add(add(c, w), d) } else { c }, if i == r { add(add(d, c), w) } else { d })
    }
}

/// The refined bound (see the module's docs); `+∞` beyond [`REFINED_BOUND_WORKERS`] or if
/// an LP fails, which leaves the knapsack bounds in charge.
fn refined<N: Real>(workers: &[ReturnWorker<N>], port: Port) -> f64 {
    let p = workers.len();
    if p > REFINED_BOUND_WORKERS {
        return f64::INFINITY;
    }
    let hd = port == Port::HalfDuplex;
    let cost = |i: usize| {
        workers.get(i).map_or((0.0, 1.0, 0.0), |w| {
            (w.comm_per_item.to_f64(), w.comp_per_item.to_f64(), w.return_per_item.to_f64())
        })
    };
    let mut buf = [0.0f64; REFINED_TABLEAU];
    let mut worst = 0.0f64;
    for s in 0..p {
        for r in 0..p {
            let Ok(mut t) = Tableau::new(p + 2 + usize::from(hd), p, &mut buf) else {
                return f64::INFINITY;
            };
            // Every variable has a cap row.
            t.known_bounded();
            for i in 0..p {
                let (c, w, d) = cost(i);
                // Variables β_i = α_i/u_i ∈ [0, 1] keep the columns comparable.
                let u = 1.0 / (c + w + d);
                let (a, b) = coefficients(c, w, d, i, s, r, f64::add);
                t.set(i, i, 1.0);
                t.set(p, i, a * u);
                t.set(p + 1, i, b * u);
                if hd {
                    t.set(p + 2, i, (c + d) * u);
                }
                t.set_objective(i, u);
            }
            for row in 0..p + 2 + usize::from(hd) {
                t.set_rhs(row, 1.0);
            }
            if t.maximise().is_err() {
                return f64::INFINITY;
            }
            let (lambda, mu) = (t.dual(p).max(0.0), t.dual(p + 1).max(0.0));
            let eta = if hd { t.dual(p + 2).max(0.0) } else { 0.0 };
            let mut total = 0.0f64;
            for i in 0..p {
                let (c, w, d) = cost(i);
                // Lower bounds on the row coefficients, so 1 − λa − μb − ηh is bounded above.
                let (a, b) = coefficients(c, w, d, i, s, r, |x, y| next_down(x + y));
                let h = next_down(c + d);
                let used =
                    next_down(next_down(next_down(lambda * a) + next_down(mu * b)) + next_down(eta * h));
                if used < 1.0 {
                    let cap = workers.get(i).map_or(f64::INFINITY, cap_above);
                    total = next_up(total + next_up(cap * next_up(1.0 - used)));
                }
            }
            worst = worst.max(next_up(next_up(next_up(lambda + mu) + eta) + total));
        }
    }
    if worst > 0.0 {
        worst
    } else {
        f64::INFINITY
    }
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
