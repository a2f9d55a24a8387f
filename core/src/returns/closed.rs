//! Closed forms of the return-messages model, generic over [`Real`] and O(p log p) for
//! p workers: the LIFO optimum (slides L545-563) and the FIFO prefix rules (L577-645,
//! `docs/derivations/returns.md` §2–3).
//!
//! Both write, for each scenario member in send order, the member's *fraction*
//! `α_i/ρ` of the work into `Assignment::share` (the caller turns fractions into rates
//! and shares), and return ρ. Neither forms the products `Π w/(c+d+w)` or `Π π`, which
//! underflow long before 10⁶ workers; they carry ratios of positive terms instead, so a
//! value only underflows when the quantity it stands for does.

use crate::num::Real;
use crate::returns::types::{Assignment, Port, ReturnWorker, Scratch};

/// Sorts the worker indices into `scratch[..].pos` by increasing `key(worker)`, ties by
/// index (so plans are deterministic).
fn sort_by_key<N: Real>(
    workers: &[ReturnWorker<N>],
    scratch: &mut [Scratch],
    key: impl Fn(&ReturnWorker<N>) -> N,
) {
    for (i, (s, w)) in scratch.iter_mut().zip(workers).enumerate() {
        *s = Scratch { pos: i, key: key(w).to_f64(), ..Scratch::EMPTY };
    }
    scratch.sort_unstable_by(|a, b| a.key.total_cmp(&b.key).then(a.pos.cmp(&b.pos)));
}

/// The LIFO optimum, the same in both port models (the half-duplex row is implied by the
/// row of the worker sent last, who returns first). With σ2 = reverse σ1 each row is
/// `Σ_{j ≤ i} (c_j + d_j)·α_j + w_i·α_i ≤ 1`, the star without returns for `c' = c + d`:
/// everyone takes part, sent by increasing `c + d`, all rows tight (no idle).
///
/// Backward suffix throughputs (as `scatter::star`, linear costs): the workers from
/// position k on, all rows tight, process `r_k` items per second, with `r_p = 0` beyond the
/// last and `r_k = (w_k·r_{k+1} + 1)/(c_k + d_k + w_k)`; ρ = r_1. Forward, the fraction
/// reaching position k is split as `x = m/(w_k·r_{k+1} + 1)` for the worker and
/// `m·w_k·r_{k+1}/(w_k·r_{k+1} + 1)` for the rest: positive terms only.
pub(crate) fn lifo<N: Real>(
    workers: &[ReturnWorker<N>],
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch],
) -> N {
    let p = workers.len();
    sort_by_key(workers, scratch, |w| w.comm_per_item + w.return_per_item);
    let mut r = N::ZERO;
    for k in (0..p).rev() {
        let i = scratch[k].pos;
        let w = workers[i];
        // `rate` holds r_{k+1} until the forward pass reads it.
        out[k] = Assignment { worker: i, return_rank: Some(p - 1 - k), rate: r, ..Assignment::EMPTY };
        r = (w.comp_per_item * r + N::ONE) / w.total();
    }
    let mut m = N::ONE;
    for a in out.iter_mut().take(p) {
        let wr = workers[a.worker].comp_per_item * a.rate;
        let denominator = wr + N::ONE;
        a.share = m / denominator;
        m = m * wr / denominator;
        a.rate = N::ZERO;
    }
    r
}

/// The LIFO throughput alone, by the recursion of [`lifo`], touching only `scratch`.
pub(crate) fn lifo_value<N: Real>(workers: &[ReturnWorker<N>], scratch: &mut [Scratch]) -> N {
    sort_by_key(workers, scratch, |w| w.comm_per_item + w.return_per_item);
    let mut r = N::ZERO;
    for s in scratch.iter().rev() {
        let w = workers[s.pos];
        r = (w.comp_per_item * r + N::ONE) / w.total();
    }
    r
}

/// The FIFO value of the better of the two prefix rules, and its scenario in `out`
/// (members first; returns `(ρ, members)`).
///
/// * forward rule: send by increasing `c`, the best prefix of the no-idle solution;
/// * reversed rule: the forward rule on the time-reversed platform (`c ↔ d`, scenario
///   `(σ1, σ2) ↦ (rev σ2, rev σ1)`, same α and ρ): in real time the best prefix by
///   increasing `d`, sent (and returned) by decreasing `d`.
///
/// For `d = z·c` and the full-duplex port this is the FIFO optimum (returns.md §3: z < 1
/// forward, z > 1 reversed, z = 1 either; the slides' wording for z > 1 is wrong). For other
/// `d`, and in half duplex (where the no-idle solution is scaled down to meet the port row
/// `Σ (c + d)·α ≤ 1`), it is a feasible FIFO schedule, not always the best.
pub(crate) fn fifo<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch],
) -> (N, usize) {
    let (mut sum_c, mut sum_d) = (0.0f64, 0.0f64);
    for w in workers {
        sum_c += w.comm_per_item.to_f64();
        sum_d += w.return_per_item.to_f64();
    }
    // Solve the rule that is likely to lose first, so the winner is usually in `out`
    // already and the sort is not repeated.
    let likely = sum_d > sum_c;
    let first = prefix_rule(workers, port, !likely, out, scratch);
    let second = prefix_rule(workers, port, likely, out, scratch);
    if first.0 > second.0 {
        prefix_rule(workers, port, !likely, out, scratch)
    } else {
        second
    }
}

/// One prefix rule (see [`fifo`]); `reversed` selects the time-reversed platform.
///
/// With all rows of the prefix tight, subtracting row i from row i+1 gives
/// `(c_{i+1} + w_{i+1})·α_{i+1} = (w_i + d_i)·α_i`, so `α_i ∝ π_i` with
/// `π_{i+1} = π_i·(w_i + d_i)/(c_{i+1} + w_{i+1})`, and `ρ_q = S_q/D_q` with
/// `S_q = Σ_{j≤q} π_j`, `D_q = c_1 + w_1 + Σ_{j≤q} d_j π_j`. The π grow or shrink
/// geometrically, so the recursion carries them relative to the running sum instead:
/// `u_k = π_k/S_k`, `v_k = D_k/S_k = 1/ρ_k`; adding position k+1 with `t = u_k·r`
/// (`t = π_{k+1}/S_k`) gives `u_{k+1} = t/(1 + t)` and `v_{k+1} = (v_k + d·t)/(1 + t)`,
/// and the fractions of the best prefix q come backwards as
/// `π_k/S_q = u_k·Π_{j=k+1..q} 1/(1 + t_j)`. Every step divides or multiplies positive
/// terms. The best prefix is the maximum of ρ_k over all k (for `d ∝ c` the slides' rule
/// "add while `d ≤ 1/ρ`" stops at the same prefix, ρ being a mediant of ρ_k and 1/d).
fn prefix_rule<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    reversed: bool,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch],
) -> (N, usize) {
    let p = workers.len();
    let roles = |w: &ReturnWorker<N>| {
        if reversed {
            (w.return_per_item, w.comm_per_item)
        } else {
            (w.comm_per_item, w.return_per_item)
        }
    };
    sort_by_key(workers, scratch, |w| roles(w).0);
    let (mut u, mut v) = (N::ONE, N::ZERO);
    let (mut best_v, mut q) = (N::INFINITY, 0);
    for k in 0..p {
        let i = scratch[k].pos;
        let w = workers[i];
        let (c, d) = roles(&w);
        let t = if k == 0 {
            v = w.total();
            N::ZERO
        } else {
            let prev = workers[scratch[k - 1].pos];
            let (_, d_prev) = roles(&prev);
            let t = u * ((prev.comp_per_item + d_prev) / (c + w.comp_per_item));
            let grown = N::ONE + t;
            u = t / grown;
            v = (v + d * t) / grown;
            t
        };
        // `rate` and `share` carry u_k and t_k until the backward pass.
        out[k] = Assignment { worker: i, rate: u, share: t, ..Assignment::EMPTY };
        if v < best_v {
            (best_v, q) = (v, k + 1);
        }
    }
    let mut acc = N::ONE;
    for a in out.iter_mut().take(q).rev() {
        let (u, t) = (a.rate, a.share);
        a.share = u * acc;
        a.rate = N::ZERO;
        acc = acc / (N::ONE + t);
    }
    for a in out.iter_mut().take(p).skip(q) {
        *a = Assignment { worker: a.worker, ..Assignment::EMPTY };
    }
    if reversed {
        out[..q].reverse();
    }
    for (k, a) in out.iter_mut().take(q).enumerate() {
        a.return_rank = Some(k);
    }
    let mut rho = N::ONE / best_v;
    if port == Port::HalfDuplex {
        // The no-idle solution satisfies every scenario row; scaling α by 1/max(1, H)
        // keeps them and meets the port row H = Σ (c + d)·α ≤ 1 too.
        let mut h = N::ZERO;
        for a in out.iter().take(q) {
            let w = workers[a.worker];
            h = h + (w.comm_per_item + w.return_per_item) * a.share;
        }
        h = h * rho;
        if h > N::ONE {
            rho = rho / h;
        }
    }
    (rho, q)
}
