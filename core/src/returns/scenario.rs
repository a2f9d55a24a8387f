//! The scenario LP of the return-messages model (slides programs (1)–(2), L463-480;
//! `docs/derivations/returns.md` §1) in `f64` on the caller's tableau, and the searches
//! built on it: every FIFO order, every scenario, a local search over return orders.
//!
//! For a scenario (members in send order σ1, return order σ2), horizon 1, maximise
//! ρ = Σ α_i subject to one row per member i:
//! `Σ_{j sent ≤ i} c_j α_j + w_i α_i + Σ_{j returned ≥ i} d_j α_j ≤ 1` (its idle time is ≥ 0),
//! plus, in half duplex, `Σ_j (c_j + d_j) α_j ≤ 1`. Sends back to back from 0, compute on
//! arrival and returns back to back ending at 1 lose nothing (L439-442; returns.md checks
//! it against a time-indexed LP).
//!
//! Searches run over scenarios of *all* workers: a worker with α = 0 ("ghost") sent first
//! and returned last has a vacuous row, so the best full scenario is the best over every
//! subset (returns.md §1); in FIFO a ghost's row is implied wherever it stands. Ghosts are
//! dropped from the answer, which only removes constraints.

use crate::error::Error;
use crate::kernel::lp::{tableau_len, Tableau};
use crate::num::Real;
use crate::returns::types::{col, Assignment, Cols, Port, ReturnWorker};

/// Largest scenario the LP accepts: its tableau has (k + 2)·(2k + 2) + k + 1 entries
/// (133 k `f64`, 1 MiB, at k = 256), and a solve costs O(k³) (about 50 ms at 256).
pub const MAX_LP_WORKERS: usize = 256;
/// Largest number of workers for the exhaustive search over every (send, return) order
/// pair: (p!)² LPs, 14 400 at p = 5 (tens of ms); p = 6 would be 518 400.
pub const MAX_EXHAUSTIVE_WORKERS: usize = 5;
/// Largest number of workers for the exhaustive search over every FIFO order: p! LPs,
/// 40 320 at p = 8 (about 0.2 s).
pub const MAX_FIFO_EXHAUSTIVE_WORKERS: usize = 8;
/// Largest number of workers for the local search over return orders.
pub const MAX_LOCAL_SEARCH_WORKERS: usize = 32;
/// Budget of LP solves for the local search (each O(k³), ≤ 0.1 ms at k = 32).
pub const LOCAL_SEARCH_LPS: usize = 4000;

/// `f64` of tableau for a scenario LP over `members` workers.
pub(crate) fn lp_tableau(members: usize, port: Port) -> Option<usize> {
    tableau_len(members + usize::from(port == Port::HalfDuplex), members)
}

/// `2^-⌊log₂ x⌋` for `x > 0` (exponents clamped to ±1000): a column scale that makes the
/// column's diagonal entry lie in [1, 2) and changes no digit.
fn pow2_scale(x: f64) -> f64 {
    let e = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let e = e.clamp(-1000, 1000);
    f64::from_bits(((1023 - e) as u64) << 52)
}

/// The LP value of the scenario `send` (worker indices in send order) with `rank[a]` the
/// return position of send position `a`; the rates α go to `alpha[..k]` when given.
pub(crate) fn lp_value<N: Real>(
    workers: &[ReturnWorker<N>],
    send: &[usize],
    rank: &[usize],
    port: Port,
    tableau: &mut [f64],
    alpha: Option<&mut [f64]>,
) -> Result<f64, Error> {
    let k = send.len().min(rank.len());
    let hd = port == Port::HalfDuplex;
    let mut t = Tableau::new(k + usize::from(hd), k, tableau)?;
    let cost = |a: usize| {
        let w = workers[send[a]];
        (w.comm_per_item.to_f64(), w.comp_per_item.to_f64(), w.return_per_item.to_f64())
    };
    for b in 0..k {
        let (c, w, d) = cost(b);
        // Columns are scaled by a power of two (α_b = scale·β_b) so every column has an
        // entry in [1, 2) and the simplex tolerance is relative to each worker's own speed.
        let scale = pow2_scale(c + w + d);
        for a in 0..k {
            let mut v = 0.0;
            if b <= a {
                v += c;
            }
            if a == b {
                v += w;
            }
            if rank[b] >= rank[a] {
                v += d;
            }
            t.set(a, b, v * scale);
        }
        if hd {
            t.set(k, b, (c + d) * scale);
        }
        t.set_objective(b, scale);
    }
    for a in 0..k + usize::from(hd) {
        t.set_rhs(a, 1.0);
    }
    t.maximise()?;
    let mut x = [0.0f64; MAX_LP_WORKERS];
    for (b, xb) in x.iter_mut().enumerate().take(k) {
        let (c, w, d) = cost(b);
        *xb = (t.value(b) * pow2_scale(c + w + d)).max(0.0);
    }
    // Rounding in the tableau can leave the basic solution slightly outside the polytope
    // (by far more on ill-conditioned instances, costs spanning many orders of magnitude).
    // Every right-hand side is 1 and A ≥ 0, so dividing α by its largest row activity,
    // when that exceeds 1, makes the scenario feasible again; on well-scaled LPs this
    // moves ρ by a few ulps at most.
    let mut activity = 0.0f64;
    for a in 0..k {
        let mut row = 0.0;
        for (b, &xb) in x.iter().enumerate().take(k) {
            let (c, w, d) = cost(b);
            let mut v = if a == b { w } else { 0.0 };
            if b <= a {
                v += c;
            }
            if rank[b] >= rank[a] {
                v += d;
            }
            row += v * xb;
        }
        activity = activity.max(row);
    }
    if hd {
        let row: f64 = x
            .iter()
            .enumerate()
            .take(k)
            .map(|(b, &xb)| {
                let (c, _, d) = cost(b);
                (c + d) * xb
            })
            .sum();
        activity = activity.max(row);
    }
    let shrink = activity.max(1.0);
    let mut rho = 0.0;
    let mut alpha = alpha;
    for (b, &xb) in x.iter().enumerate().take(k) {
        let xb = xb / shrink;
        rho += xb;
        if let Some(slot) = alpha.as_deref_mut().and_then(|al| al.get_mut(b)) {
            *slot = xb;
        }
    }
    Ok(rho)
}

/// Next permutation in lexicographic order; `false` (and sorted again) after the last.
pub(crate) fn next_permutation(a: &mut [usize]) -> bool {
    let n = a.len();
    let Some(i) = (1..n).rev().find(|&i| a[i - 1] < a[i]) else {
        a.reverse();
        return false;
    };
    let j = (i..n).rev().find(|&j| a[j] > a[i - 1]).unwrap_or(i);
    a.swap(i - 1, j);
    a[i..].reverse();
    true
}

/// Solves the scenario `send` / `rank` and writes its members with a positive rate into
/// `out` (send order, fractions `α/ρ` in `share`), the others after them; returns
/// `(ρ, members)`.
pub(crate) fn write_scenario<N: Real>(
    workers: &[ReturnWorker<N>],
    send: &[usize],
    rank: &[usize],
    port: Port,
    tableau: &mut [f64],
    out: &mut [Assignment<N>],
    cols: &mut Cols<'_>,
) -> Result<(f64, usize), Error> {
    let p = workers.len();
    let k = send.len();
    let mut alpha = [0.0f64; MAX_LP_WORKERS];
    let rho = lp_value(workers, send, rank, port, tableau, Some(&mut alpha))?;
    // `col::FRAC` marks the members, by worker index.
    for i in 0..p {
        cols.set(col::FRAC, i, 0);
    }
    let mut m = 0;
    for a in 0..k {
        if alpha[a] > 0.0 {
            // Members keep their relative return order; ranks are compressed below.
            out[m] = Assignment {
                worker: send[a],
                return_rank: Some(rank[a]),
                share: N::from_f64(alpha[a] / rho).unwrap_or(N::ZERO),
                ..Assignment::EMPTY
            };
            cols.set(col::FRAC, send[a], 1);
            m += 1;
        }
    }
    let mut below = [0usize; MAX_LP_WORKERS];
    for a in 0..m {
        let r = out[a].return_rank.unwrap_or(0);
        below[a] = out[..m].iter().filter(|o| o.return_rank.is_some_and(|x| x < r)).count();
    }
    for a in 0..m {
        out[a].return_rank = Some(below[a]);
    }
    let mut next = m;
    for i in 0..p {
        if cols.get(col::FRAC, i) == 0 {
            out[next] = Assignment { worker: i, ..Assignment::EMPTY };
            next += 1;
        }
    }
    Ok((rho, m))
}

/// The best FIFO order of all `p ≤ MAX_FIFO_EXHAUSTIVE_WORKERS` workers; returns it in
/// `best` with ρ.
pub(crate) fn best_fifo<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    tableau: &mut [f64],
    best: &mut [usize],
) -> Result<f64, Error> {
    let p = workers.len().min(MAX_FIFO_EXHAUSTIVE_WORKERS);
    let mut s1 = [0usize; MAX_FIFO_EXHAUSTIVE_WORKERS];
    let ident = [0, 1, 2, 3, 4, 5, 6, 7];
    s1[..p].copy_from_slice(&ident[..p]);
    let mut top = -1.0;
    loop {
        let v = lp_value(workers, &s1[..p], &ident[..p], port, tableau, None)?;
        if v > top {
            top = v;
            best[..p].copy_from_slice(&s1[..p]);
        }
        if !next_permutation(&mut s1[..p]) {
            return Ok(top);
        }
    }
}

/// The best scenario of all `p ≤ MAX_EXHAUSTIVE_WORKERS` workers over every pair of
/// orders; returns it in `send` / `rank` with ρ.
pub(crate) fn best_exhaustive<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    tableau: &mut [f64],
    send: &mut [usize],
    rank: &mut [usize],
) -> Result<f64, Error> {
    let p = workers.len().min(MAX_EXHAUSTIVE_WORKERS);
    let mut s1 = [0, 1, 2, 3, 4];
    let mut top = -1.0;
    loop {
        // σ2 runs over every permutation as the return rank of each send position.
        let mut r = [0, 1, 2, 3, 4];
        loop {
            let v = lp_value(workers, &s1[..p], &r[..p], port, tableau, None)?;
            if v > top {
                top = v;
                send[..p].copy_from_slice(&s1[..p]);
                rank[..p].copy_from_slice(&r[..p]);
            }
            if !next_permutation(&mut r[..p]) {
                break;
            }
        }
        if !next_permutation(&mut s1[..p]) {
            return Ok(top);
        }
    }
}

/// First-improvement local search over return orders with the send order fixed: moves
/// one member to another return position, keeps any strict gain, stops at a local
/// optimum or after [`LOCAL_SEARCH_LPS`] solves. `rank` holds the start and the result.
pub(crate) fn local_search<N: Real>(
    workers: &[ReturnWorker<N>],
    send: &[usize],
    rank: &mut [usize],
    port: Port,
    tableau: &mut [f64],
) -> Result<f64, Error> {
    let k = send.len().min(rank.len()).min(MAX_LOCAL_SEARCH_WORKERS);
    let mut top = lp_value(workers, &send[..k], &rank[..k], port, tableau, None)?;
    let mut budget = LOCAL_SEARCH_LPS;
    let mut improved = true;
    while improved && budget > 0 {
        improved = false;
        'moves: for from in 0..k {
            for to in 0..k {
                if from == to || budget == 0 {
                    continue;
                }
                // The member at return position `from` moves to position `to`; the ones
                // in between shift by one.
                let mut cand = [0usize; MAX_LOCAL_SEARCH_WORKERS];
                for (c, &r) in cand.iter_mut().zip(&rank[..k]) {
                    *c = if r == from {
                        to
                    } else if from < to && r > from && r <= to {
                        r - 1
                    } else if to < from && r >= to && r < from {
                        r + 1
                    } else {
                        r
                    };
                }
                budget -= 1;
                let v = lp_value(workers, &send[..k], &cand[..k], port, tableau, None)?;
                if v > top * (1.0 + 1e-12) {
                    top = v;
                    rank[..k].copy_from_slice(&cand[..k]);
                    improved = true;
                    break 'moves;
                }
            }
        }
    }
    Ok(top)
}
