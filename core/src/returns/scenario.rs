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
use crate::kernel::fp;
use crate::kernel::lp::{pow2_scale, tableau_len, Tableau};
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

/// Relative gap between a scenario LP's value and its dual bound under which the value
/// counts as the scenario's optimum. The simplex's answers agree with exact rationals to
/// 1e-12 on the small instances the tests can check exactly; at 250 workers, dual bounds
/// from the final tableau close to 1e-9…2e-6 on well-scaled costs, while a simplex that
/// stalled on badly scaled costs stays percents away.
pub const CERTIFIED_LP_GAP: f64 = 1e-6;

/// How many times the final scenario's LP is refactored (see [`lp_value`]).
const LP_REFINEMENTS: usize = 3;

/// `f64` of tableau for a scenario LP over `members` workers.
pub(crate) fn lp_tableau(members: usize, port: Port) -> Option<usize> {
    tableau_len(members + usize::from(port == Port::HalfDuplex), members)
}

/// The LP value of the scenario `send` (worker indices in send order) with `rank[a]` the
/// return position of send position `a`; the rates α go to `alpha[..k]` when given, and a
/// certified upper bound on the scenario's optimum (see [`dual_bound`]) to `upper`.
pub(crate) fn lp_value<N: Real>(
    workers: &[ReturnWorker<N>],
    send: &[usize],
    rank: &[usize],
    port: Port,
    tableau: &mut [f64],
    alpha: Option<&mut [f64]>,
    upper: Option<&mut f64>,
) -> Result<f64, Error> {
    let k = send.len().min(rank.len());
    let hd = port == Port::HalfDuplex;
    let mut t = Tableau::new(k + usize::from(hd), k, tableau)?;
    // Column b has w_b > 0 in row b, and every entry is ≥ 0.
    t.known_bounded();
    // `a < k` and the caller checked `send`'s indices, so the fallback never occurs.
    let cost = |a: usize| {
        send.get(a).and_then(|&i| workers.get(i)).map_or((0.0, 0.0, 0.0), |w| {
            (w.comm_per_item.to_f64(), w.comp_per_item.to_f64(), w.return_per_item.to_f64())
        })
    };
    let fill = |t: &mut Tableau<'_>| {
        for b in 0..k {
            let (c, w, d) = cost(b);
            // Columns are scaled by a power of two (α_b = scale·β_b) so every column has
            // an entry in [1, 2) and the simplex tolerance is relative to each worker's own
            // speed.
            let scale = pow2_scale(c + w + d);
            for a in 0..k {
                let mut v = 0.0;
                if b <= a {
                    v += c;
                }
                if a == b {
                    v += w;
                }
                if rank.get(b) >= rank.get(a) {
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
    };
    fill(&mut t);
    t.maximise()?;
    let mut x = [0.0f64; MAX_LP_WORKERS];
    let mut rho = feasible(&t, cost, rank, k, hd, &mut x);
    if let Some(upper) = upper {
        // Badly scaled LPs (costs over many decades) may stop on a tableau whose rounding
        // hides an improving column: the LP is computed afresh from its basis and
        // continued, a few times at most, keeping the best feasible α and the least dual
        // bound (each is valid on its own).
        *upper = dual_bound(&t, cost, rank, k, hd);
        let mut basis = [0usize; MAX_LP_WORKERS + 1];
        let mut again = [0.0f64; MAX_LP_WORKERS];
        for _ in 0..LP_REFINEMENTS {
            if *upper <= rho * (1.0 + CERTIFIED_LP_GAP) {
                break;
            }
            t.refactor(&mut basis, fill);
            t.maximise()?;
            *upper = upper.min(dual_bound(&t, cost, rank, k, hd));
            let value = feasible(&t, cost, rank, k, hd, &mut again);
            if value > rho {
                rho = value;
                x = again;
            }
        }
    }
    if let Some(alpha) = alpha {
        for (slot, &xb) in alpha.iter_mut().zip(x.iter().take(k)) {
            *slot = xb;
        }
    }
    if !(rho.is_finite() && rho > 0.0) {
        // The caller's check of Σ 1/(c + w + d) keeps ρ finite; a NaN here would make
        // every comparison of scenarios false.
        return Err(Error::numeric_overflow("f64"));
    }
    Ok(rho)
}

/// The basic solution of the tableau as rates α (into `x[..k]`), made feasible, and their
/// sum ρ. Rounding in the tableau can leave the basic solution slightly outside the
/// polytope (by far more on ill-conditioned instances, costs spanning many orders of
/// magnitude). Every right-hand side is 1 and A ≥ 0, so dividing α by its largest row
/// activity, when that exceeds 1, makes the scenario feasible again; on well-scaled LPs
/// this moves ρ by a few ulps at most.
fn feasible(
    t: &Tableau<'_>,
    cost: impl Fn(usize) -> (f64, f64, f64),
    rank: &[usize],
    k: usize,
    hd: bool,
    x: &mut [f64; MAX_LP_WORKERS],
) -> f64 {
    for (b, xb) in x.iter_mut().enumerate().take(k) {
        let (c, w, d) = cost(b);
        *xb = (t.value(b) * pow2_scale(c + w + d)).max(0.0);
    }
    let mut activity = 0.0f64;
    for a in 0..k {
        let mut row = 0.0;
        for (b, &xb) in x.iter().enumerate().take(k) {
            let (c, w, d) = cost(b);
            let mut v = if a == b { w } else { 0.0 };
            if b <= a {
                v += c;
            }
            if rank.get(b) >= rank.get(a) {
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
    for xb in x.iter_mut().take(k) {
        *xb /= shrink;
        rho += *xb;
    }
    rho
}

/// An upper bound on the scenario's optimum ρ that holds in exact arithmetic, from the
/// final tableau's duals y (clamped at 0): by weak duality, any y ≥ 0 with `Aᵀy ≥ r·1`
/// gives ρ ≤ Σy / r. Column b of A sums to
/// `c_b·Σ_{a sent ≥ b} y_a + w_b·y_b + d_b·Σ_{a returned ≤ b} y_a (+ (c_b + d_b)·y_port)`,
/// O(k) for all columns by suffix and prefix sums; every term is ≥ 0, so each sum is
/// rounded down by γ and Σy up. An optimal basis makes r ≈ 1 and the bound ≈ ρ; a
/// simplex that stopped on rounding noise leaves a visible gap instead of a silent one.
fn dual_bound(
    t: &Tableau<'_>,
    cost: impl Fn(usize) -> (f64, f64, f64),
    rank: &[usize],
    k: usize,
    hd: bool,
) -> f64 {
    let y = |a: usize| t.dual(a).max(0.0);
    let mut returned_before = [0.0f64; MAX_LP_WORKERS];
    let mut total = 0.0;
    for (a, &r) in rank.iter().enumerate().take(k) {
        if let Some(slot) = returned_before.get_mut(r) {
            *slot = y(a);
        }
        total += y(a);
    }
    let y_port = if hd { y(k) } else { 0.0 };
    total += y_port;
    for r in 1..k.min(MAX_LP_WORKERS) {
        returned_before[r] += returned_before[r - 1];
    }
    let mut sent_after = 0.0;
    let mut cover = f64::INFINITY;
    for b in (0..k).rev() {
        sent_after += y(b);
        let (c, w, d) = cost(b);
        let by_return = rank.get(b).and_then(|&r| returned_before.get(r)).copied().unwrap_or(0.0);
        let column = c * sent_after + w * y(b) + d * by_return + (c + d) * y_port;
        cover = cover.min(fp::below(column, 2 * k as u64 + 8));
    }
    if cover > 0.0 {
        fp::above(fp::above(total, k as u64 + 1) / cover, 1)
    } else {
        f64::INFINITY
    }
}

/// Next permutation in lexicographic order; `false` (and sorted again) after the last.
pub(crate) fn next_permutation(a: &mut [usize]) -> bool {
    let Some(i) = (1..a.len()).rev().find(|&i| a.get(i - 1) < a.get(i)) else {
        a.reverse();
        return false;
    };
    // `a[i - 1]` is the pivot; the suffix after it is non-increasing and holds a larger item.
    let Some((head, tail)) = a.split_at_mut_checked(i) else { return false };
    let Some(pivot) = head.last_mut() else { return false };
    let j = tail.iter().rposition(|&x| x > *pivot).unwrap_or(0);
    if let Some(x) = tail.get_mut(j) {
        core::mem::swap(pivot, x);
    }
    tail.reverse();
    true
}

/// Solves the scenario `send` / `rank` and writes its members with a positive rate into
/// `out` (send order, fractions `α/ρ` in `share`), the others after them; returns
/// `(ρ, members, certified)`: `certified` when the dual bound is within
/// [`CERTIFIED_LP_GAP`] of ρ, so the LP's answer is its optimum up to that relative error.
pub(crate) fn write_scenario<N: Real>(
    workers: &[ReturnWorker<N>],
    send: &[usize],
    rank: &[usize],
    port: Port,
    tableau: &mut [f64],
    out: &mut [Assignment<N>],
    cols: &mut Cols<'_>,
) -> Result<(f64, usize, bool), Error> {
    let p = workers.len();
    let k = send.len();
    let mut alpha = [0.0f64; MAX_LP_WORKERS];
    let mut upper = f64::INFINITY;
    let rho = lp_value(workers, send, rank, port, tableau, Some(&mut alpha), Some(&mut upper))?;
    // `col::FRAC` marks the members, by worker index.
    for i in 0..p {
        cols.set(col::FRAC, i, 0);
    }
    let mut m = 0;
    for ((&x, &worker), &r) in alpha.iter().zip(send.iter().take(k)).zip(rank) {
        if x > 0.0 {
            // Members keep their relative return order; ranks are compressed below.
            if let Some(o) = out.get_mut(m) {
                *o = Assignment {
                    worker,
                    return_rank: Some(r),
                    share: N::from_f64(x / rho).unwrap_or(N::ZERO),
                    ..Assignment::EMPTY
                };
                m += 1;
            }
            cols.set(col::FRAC, worker, 1);
        }
    }
    let mut below = [0usize; MAX_LP_WORKERS];
    let members = out.get(..m).unwrap_or_default();
    for (b, o) in below.iter_mut().zip(members) {
        let r = o.return_rank.unwrap_or(0);
        *b = members.iter().filter(|o| o.return_rank.is_some_and(|x| x < r)).count();
    }
    for (o, &b) in out.iter_mut().zip(&below).take(m) {
        o.return_rank = Some(b);
    }
    let mut next = m;
    for i in 0..p {
        if cols.get(col::FRAC, i) == 0 {
            // `send` has no repeats (checked by the caller), so m + the unmarked ≤ p.
            if let Some(o) = out.get_mut(next) {
                *o = Assignment { worker: i, ..Assignment::EMPTY };
            }
            next += 1;
        }
    }
    Ok((rho, m, upper <= rho * (1.0 + CERTIFIED_LP_GAP)))
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
    copy(best, &ident[..p]);
    loop {
        let v = lp_value(workers, &s1[..p], &ident[..p], port, tableau, None, None)?;
        if v > top {
            top = v;
            copy(best, &s1[..p]);
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
            let v = lp_value(workers, &s1[..p], &r[..p], port, tableau, None, None)?;
            if v > top {
                top = v;
                copy(send, &s1[..p]);
                copy(rank, &r[..p]);
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

/// First-improvement local search over scenarios: moves one member to another position
/// of the return order, or of the send order (taking its return position along), keeps
/// any strict gain, stops at a local optimum or after [`LOCAL_SEARCH_LPS`] solves. `send`
/// and `rank` hold the start and the result.
pub(crate) fn local_search<N: Real>(
    workers: &[ReturnWorker<N>],
    send: &mut [usize],
    rank: &mut [usize],
    port: Port,
    tableau: &mut [f64],
) -> Result<f64, Error> {
    let k = send.len().min(rank.len()).min(MAX_LOCAL_SEARCH_WORKERS);
    let (Some(start_send), Some(start_rank)) = (send.get(..k), rank.get(..k)) else { return Ok(0.0) };
    let mut top = lp_value(workers, start_send, start_rank, port, tableau, None, None)?;
    let mut budget = LOCAL_SEARCH_LPS;
    let mut improved = true;
    while improved && budget > 0 {
        improved = false;
        'moves: for in_send in [false, true] {
            for from in 0..k {
                for to in 0..k {
                    if from == to || budget == 0 {
                        continue;
                    }
                    let mut cand_send = [0usize; MAX_LOCAL_SEARCH_WORKERS];
                    let mut cand_rank = [0usize; MAX_LOCAL_SEARCH_WORKERS];
                    copy(&mut cand_send, send.get(..k).unwrap_or_default());
                    if in_send {
                        // Send position `from` moves to `to`, its return position with it.
                        copy(&mut cand_rank, rank.get(..k).unwrap_or_default());
                        move_item(&mut cand_send[..k], from, to);
                        move_item(&mut cand_rank[..k], from, to);
                    } else {
                        // The member at return position `from` moves to position `to`; the
                        // ones in between shift by one.
                        for (c, &r) in cand_rank.iter_mut().zip(rank.iter().take(k)) {
                            *c = shifted(r, from, to);
                        }
                    }
                    budget -= 1;
                    let v = lp_value(workers, &cand_send[..k], &cand_rank[..k], port, tableau, None, None)?;
                    if v > top * (1.0 + 1e-12) {
                        top = v;
                        copy(send, &cand_send[..k]);
                        copy(rank, &cand_rank[..k]);
                        improved = true;
                        break 'moves;
                    }
                }
            }
        }
    }
    Ok(top)
}

/// Copies `from` to the start of `to` (as far as `to` reaches).
fn copy(to: &mut [usize], from: &[usize]) {
    for (t, &f) in to.iter_mut().zip(from) {
        *t = f;
    }
}

/// Where position `r` goes when the item at `from` moves to `to`.
fn shifted(r: usize, from: usize, to: usize) -> usize {
    if r == from {
        to
    } else if from < to && r > from && r <= to {
        r - 1
    } else if to < from && r >= to && r < from {
        r + 1
    } else {
        r
    }
}

/// Moves `a[from]` to index `to`, shifting the ones in between.
fn move_item(a: &mut [usize], from: usize, to: usize) {
    // One pass that carries the moved item along, rather than `rotate_left`/`rotate_right`,
    // whose general algorithm was 0.8 KB of the wasm module for orders of a few workers.
    let Some(s) = a.get_mut(from.min(to)..=from.max(to)) else { return };
    if from < to {
        let Some(mut held) = s.first().copied() else { return };
        for x in s.iter_mut().rev() {
            core::mem::swap(x, &mut held);
        }
    } else {
        let Some(mut held) = s.last().copied() else { return };
        for x in s.iter_mut() {
            core::mem::swap(x, &mut held);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `move_item` is the rotation it replaced, for every pair of positions.
    #[test]
    fn moving_an_item_rotates_the_range_between() {
        for n in 1..7 {
            for from in 0..n {
                for to in 0..n {
                    let mut got: std::vec::Vec<usize> = (0..n).collect();
                    move_item(&mut got, from, to);
                    let mut want: std::vec::Vec<usize> = (0..n).collect();
                    if from < to {
                        want[from..=to].rotate_left(1);
                    } else {
                        want[to..=from].rotate_right(1);
                    }
                    assert_eq!(got, want, "n {n}, from {from}, to {to}");
                }
            }
        }
        let mut short = [1, 2];
        move_item(&mut short, 0, 5);
        assert_eq!(short, [1, 2], "a range past the end is left alone");
    }

    /// The local search from the LIFO scenario, against every scenario, on random
    /// platforms of 5 workers: never below its start, never above the optimum, and a local
    /// optimum of its own neighbourhood; how often it finds the optimum is printed.
    #[test]
    fn local_search_against_every_scenario() {
        let mut seed = 99u64;
        let mut unit = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut tableau = std::vec![0.0; lp_tableau(5, Port::HalfDuplex).unwrap_or(0)];
        let (mut hits, runs, mut worst) = (0, 60, 0.0f64);
        for run in 0..runs {
            let port = if run % 2 == 0 { Port::FullDuplex } else { Port::HalfDuplex };
            let ws: std::vec::Vec<ReturnWorker<f64>> =
                (0..5).map(|_| ReturnWorker::new(unit() * 4.0, 0.5 + unit() * 8.0, unit() * 4.0)).collect();
            let mut send = [0usize, 1, 2, 3, 4];
            send.sort_by(|&a, &b| {
                let key = |i: usize| ws[i].comm_per_item + ws[i].return_per_item;
                key(a).total_cmp(&key(b))
            });
            let mut rank = [4usize, 3, 2, 1, 0];
            let start = lp_value(&ws, &send, &rank, port, &mut tableau, None, None).unwrap();
            let found = local_search(&ws, &mut send, &mut rank, port, &mut tableau).unwrap();
            let (mut best_send, mut best_rank) = ([0usize; 5], [0usize; 5]);
            let best = best_exhaustive(&ws, port, &mut tableau, &mut best_send, &mut best_rank).unwrap();
            assert!(
                found >= start && found <= best * (1.0 + 1e-9),
                "run {run}: {start} → {found}, best {best}"
            );
            let again = lp_value(&ws, &send, &rank, port, &mut tableau, None, None).unwrap();
            assert!(
                (again - found).abs() <= 1e-12 * found,
                "run {run}: the result's LP gives {again}, not {found}"
            );
            hits += usize::from(found >= best * (1.0 - 1e-9));
            worst = worst.max(1.0 - found / best);
        }
        std::eprintln!("local search: the optimum in {hits} of {runs} runs, at most {worst:.2e} below it");
        assert!(hits >= 20, "the optimum in {hits} of {runs} runs");
    }
}
