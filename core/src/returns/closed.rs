//! Closed forms of the return-messages model, generic over [`Real`] and O(p log p) for
//! p workers: the LIFO optimum (slides L545-563) and the FIFO prefix rules (L577-645,
//! `docs/derivations/returns.md` §2–3).
//!
//! Both write the scenario into the scratch columns (`types::col`), in send order with the
//! members first: the worker, its costs `c`, `w`, `d`, and its *fraction* `α_i/ρ` of the
//! work (0 for the others; the caller turns fractions into rates and shares), and return ρ.
//! The send order is a bucket sort on the key's bits that reads the workers once in input
//! order, and each worker's costs are then copied once into the columns: every later pass,
//! here and in `integer`, reads contiguous columns in send order (issue 12). Neither forms the products `Π w/(c+d+w)` or `Π π`, which
//! underflow long before 10⁶ workers; they carry ratios of positive terms instead, so a
//! value only underflows when the quantity it stands for does.

use crate::kernel::columns::{Columns, Words};
use crate::num::Real;
use crate::returns::bound::total_key;
use crate::returns::types::{col, Assignment, Cols, Port, ReturnWorker};

/// Worker `i`, which the callers keep in range; out of range (a bug) it reads as a free
/// worker instead of panicking (the `nopanic` proof).
#[inline]
pub(crate) fn worker<N: Real>(workers: &[ReturnWorker<N>], i: usize) -> ReturnWorker<N> {
    debug_assert!(i < workers.len());
    workers.get(i).copied().unwrap_or(ReturnWorker::new(N::ZERO, N::ONE, N::ZERO))
}

/// The costs `(c, w, d)` at send position `k`.
#[inline]
pub(crate) fn costs<N: Real>(cols: &Cols<'_>, k: usize) -> (N, N, N) {
    (cols.real(col::C, k), cols.real(col::W, k), cols.real(col::D, k))
}

/// Copies worker `i`'s costs to send position `k`.
#[inline]
pub(crate) fn set_worker<N: Real>(cols: &mut Cols<'_>, k: usize, i: usize, w: ReturnWorker<N>) {
    cols.set(col::WORKER, k, i as u64);
    cols.set_real(col::C, k, w.comm_per_item);
    cols.set_real(col::W, k, w.comp_per_item);
    cols.set_real(col::D, k, w.return_per_item);
}

/// The send order by increasing `key(worker)` (as `f64::total_cmp` orders it), ties by
/// index (so plans are deterministic), with every worker's costs; `cols.len()` must be
/// `workers.len()`.
fn send_order<N: Real>(
    workers: &[ReturnWorker<N>],
    cols: &mut Cols<'_>,
    key: impl Fn(&ReturnWorker<N>) -> N,
) {
    let p = workers.len();
    cols.sort(
        p,
        0,
        col::ORDER_SORT,
        |_, j| [total_key(key(&worker(workers, j)).to_f64()), j as u64, 0],
        |cols, x, y| cols.get(col::WORKER, x).cmp(&cols.get(col::WORKER, y)),
    );
    for k in 0..p {
        let i = cols.index(col::WORKER, k);
        set_worker(cols, k, i, worker(workers, i));
    }
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
pub(crate) fn lifo<N: Real>(workers: &[ReturnWorker<N>], cols: &mut Cols<'_>) -> N {
    send_order(workers, cols, |w| w.comm_per_item + w.return_per_item);
    lifo_in_order(cols)
}

/// [`lifo`] over the send order already in the columns.
fn lifo_in_order<N: Real>(cols: &mut Cols<'_>) -> N {
    let r = suffix_throughputs::<N>(cols, true);
    // `m` decays geometrically and, at 10⁶ workers, sits at the smallest subnormal for
    // most positions: `tiny_*` keep those steps off the FPU's slow path, bit for bit.
    let mut m = N::ONE;
    for k in 0..cols.len() {
        let wr = cols.real::<N>(col::W, k) * cols.real::<N>(col::FRAC, k);
        let denominator = wr + N::ONE;
        cols.set_real(col::FRAC, k, m.tiny_div(denominator));
        m = m.tiny_mul(wr).tiny_div(denominator);
    }
    r
}

/// The LIFO throughput alone, by the recursion of [`lifo`]. Its send order is kept in
/// `spare` (the plan's output, not written yet) for [`lifo_kept`].
pub(crate) fn lifo_value<N: Real>(
    workers: &[ReturnWorker<N>],
    cols: &mut Cols<'_>,
    spare: &mut [Assignment<N>],
) -> N {
    send_order(workers, cols, |w| w.comm_per_item + w.return_per_item);
    stash(cols, spare, Kept::Lifo);
    suffix_throughputs::<N>(cols, false)
}

/// [`lifo`] after [`lifo_value`] and [`fifo`] with the same `spare`: from the kept send
/// order instead of a second sort of the workers (issue 12: the best scenario at 10⁶).
pub(crate) fn lifo_kept<N: Real>(
    workers: &[ReturnWorker<N>],
    cols: &mut Cols<'_>,
    spare: &[Assignment<N>],
) -> N {
    if unstash(spare, cols, Kept::Lifo) {
        lifo_in_order(cols)
    } else {
        lifo(workers, cols)
    }
}

/// `r_1` of [`lifo`] over the columns' send order; with `keep`, `r_{k+1}` goes to
/// `col::FRAC` at each position `k` for the forward pass.
fn suffix_throughputs<N: Real>(cols: &mut Cols<'_>, keep: bool) -> N {
    let mut r = N::ZERO;
    for k in (0..cols.len()).rev() {
        let (c, w, d) = costs::<N>(cols, k);
        if keep {
            cols.set_real(col::FRAC, k, r);
        }
        // `c + w + d` in that order: the worker's own total (`ReturnWorker::total`).
        r = (w * r + N::ONE) / (c + w + d);
    }
    r
}

/// The FIFO value of the better of the two prefix rules, and its scenario in the columns
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
///
/// `spare` is the plan's output, not written yet: the first rule's scenario waits there
/// while the second is solved, so that the first, if it wins, is copied back instead of
/// sorted and solved again (issue 12: a third sort of 10⁶ workers).
pub(crate) fn fifo<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    cols: &mut Cols<'_>,
    spare: &mut [Assignment<N>],
) -> (N, usize) {
    let (mut sum_c, mut sum_d) = (0.0f64, 0.0f64);
    for w in workers {
        sum_c += w.comm_per_item.to_f64();
        sum_d += w.return_per_item.to_f64();
    }
    // Solve the rule that is likely to lose first, so the winner is usually in the columns
    // already.
    let likely = sum_d > sum_c;
    let first = prefix_rule(workers, port, !likely, cols);
    stash(cols, spare, Kept::Fifo);
    let second = prefix_rule(workers, port, likely, cols);
    if first.0 <= second.0 {
        second
    } else if unstash(spare, cols, Kept::Fifo) {
        first
    } else {
        prefix_rule(workers, port, !likely, cols)
    }
}

/// Which scenario waits in the spare records: each has fields of its own, so a LIFO order
/// kept by [`lifo_value`] survives [`fifo`].
#[derive(Clone, Copy, PartialEq)]
enum Kept {
    /// Every column, in `worker`, `send_start`, `received`, `computed`, `rate`.
    Fifo,
    /// The send order and costs, in `displacement`, `return_start`, `return_end`, `idle`.
    Lifo,
}

/// Copies the columns into records that hold them exactly (`N` values in `N` fields);
/// nothing if `spare` is shorter than the columns.
fn stash<N: Real>(cols: &Cols<'_>, spare: &mut [Assignment<N>], kept: Kept) {
    if spare.len() < cols.len() {
        return;
    }
    for (k, a) in spare.iter_mut().enumerate().take(cols.len()) {
        if kept == Kept::Fifo {
            a.worker = cols.index(col::WORKER, k);
            (a.send_start, a.received, a.computed) = costs(cols, k);
            a.rate = cols.real(col::FRAC, k);
        } else {
            a.displacement = cols.get(col::WORKER, k);
            (a.return_start, a.return_end, a.idle) = costs(cols, k);
        }
    }
}

/// Copies back what [`stash`] kept; `false` (nothing copied) if it could not keep it.
fn unstash<N: Real>(spare: &[Assignment<N>], cols: &mut Cols<'_>, kept: Kept) -> bool {
    if spare.len() < cols.len() {
        return false;
    }
    for (k, a) in spare.iter().enumerate().take(cols.len()) {
        let (worker, (c, w, d)) = match kept {
            Kept::Fifo => (a.worker as u64, (a.send_start, a.received, a.computed)),
            Kept::Lifo => (a.displacement, (a.return_start, a.return_end, a.idle)),
        };
        cols.set(col::WORKER, k, worker);
        cols.set_real(col::C, k, c);
        cols.set_real(col::W, k, w);
        cols.set_real(col::D, k, d);
        if kept == Kept::Fifo {
            cols.set_real(col::FRAC, k, a.rate);
        }
    }
    true
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
///
/// Only `u_k` is kept (in `col::FRAC`): the backward pass computes each `t_k` again from
/// `u_{k−1}` and the costs, with the same operations, so the same value.
pub(crate) fn prefix_rule<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    reversed: bool,
    cols: &mut Cols<'_>,
) -> (N, usize) {
    let p = workers.len();
    send_order(workers, cols, |w| if reversed { w.return_per_item } else { w.comm_per_item });
    // (c, w, d) as the rule sees them, and the worker's own total.
    let roles = |cols: &Cols<'_>, k: usize| {
        let (c, w, d) = costs::<N>(cols, k);
        let (c, d) = if reversed { (d, c) } else { (c, d) };
        (c, w, d)
    };
    let step = |u: N, prev: (N, N, N), here: (N, N, N)| u * ((prev.1 + prev.2) / (here.0 + here.1));
    let (mut u, mut v) = (N::ONE, N::ZERO);
    let (mut best_v, mut q) = (N::INFINITY, 0);
    let mut prev = (N::ZERO, N::ZERO, N::ZERO);
    for k in 0..p {
        let here = roles(cols, k);
        if k == 0 {
            let (c, w, d) = costs::<N>(cols, k);
            v = c + w + d;
        } else {
            let t = step(u, prev, here);
            let grown = N::ONE + t;
            u = t / grown;
            v = (v + here.2 * t) / grown;
        }
        cols.set_real(col::FRAC, k, u);
        prev = here;
        if v < best_v {
            (best_v, q) = (v, k + 1);
        }
    }
    let mut acc = N::ONE;
    for k in (0..q).rev() {
        let u = cols.real::<N>(col::FRAC, k);
        let t = if k == 0 {
            N::ZERO
        } else {
            step(cols.real::<N>(col::FRAC, k - 1), roles(cols, k - 1), roles(cols, k))
        };
        cols.set_real(col::FRAC, k, u * acc);
        acc = acc / (N::ONE + t);
    }
    for k in q..p {
        cols.set_real(col::FRAC, k, N::ZERO);
    }
    if reversed {
        reverse(cols, q);
    }
    let mut rho = N::ONE / best_v;
    if port == Port::HalfDuplex {
        // The no-idle solution satisfies every scenario row; scaling α by 1/max(1, H)
        // keeps them and meets the port row H = Σ (c + d)·α ≤ 1 too.
        let mut h = N::ZERO;
        for k in 0..q {
            let (c, _, d) = costs::<N>(cols, k);
            h = h + (c + d) * cols.real::<N>(col::FRAC, k);
        }
        h = h * rho;
        if h > N::ONE {
            rho = rho / h;
        }
    }
    (rho, q)
}

/// Reverses send positions `0..q` in every column.
fn reverse<R: Words<W>, const W: usize>(cols: &mut Columns<'_, R, W>, q: usize) {
    for c in 0..W {
        for k in 0..q / 2 {
            let (a, b) = (cols.get(c, k), cols.get(c, q - 1 - k));
            cols.set(c, k, b);
            cols.set(c, q - 1 - k, a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::returns::types::{Scratch, SCRATCH_WORDS};

    /// The first rule's scenario, kept in the spare records while the second is solved and
    /// copied back when it wins, is the scenario solving it again gives: on platforms where
    /// either rule wins, in both ports; and LIFO's order, kept across both rules, is the
    /// order sorting again gives.
    #[test]
    fn a_kept_rule_is_the_rule_solved_again() {
        let mut rnd = crate::num::xorshift(3);
        let mut unit = move || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        let (mut first_won, mut second_won) = (0, 0);
        for case in 0..400 {
            let p = 1 + case % 40;
            let workers: [ReturnWorker<f64>; 40] = core::array::from_fn(|_| {
                // Returns cheaper or dearer than sends on the whole, so both rules lead.
                let skew = if case % 2 == 0 { 0.3 } else { 3.0 };
                ReturnWorker::new(0.01 + unit(), 0.5 + 4.0 * unit(), skew * (0.01 + unit()))
            });
            let workers = &workers[..p];
            for port in [Port::FullDuplex, Port::HalfDuplex] {
                let mut kept = [Scratch::EMPTY; 40];
                let mut again = [Scratch::EMPTY; 40];
                let mut spare = [Assignment::EMPTY; 40];
                // The best scenario's sequence: LIFO's order kept, then both FIFO rules.
                let lifo_first = lifo_value(workers, &mut Cols::new(&mut kept[..p]), &mut spare[..p]);
                let a = fifo(workers, port, &mut Cols::new(&mut kept[..p]), &mut spare[..p]);
                let b = fifo(workers, port, &mut Cols::new(&mut again[..p]), &mut []);
                assert_eq!((a.0.to_bits(), a.1), (b.0.to_bits(), b.1), "case {case}");
                for (x, y) in kept[..p].iter().zip(&again[..p]) {
                    assert_eq!(x.words()[..SCRATCH_WORDS], y.words()[..SCRATCH_WORDS], "case {case}");
                }
                // Which rule won: the spare records hold the first rule's order.
                let cols = Cols::new(&mut kept[..p]);
                if (0..p).all(|k| spare[k].worker == cols.index(col::WORKER, k)) {
                    first_won += 1;
                } else {
                    second_won += 1;
                }
                // LIFO from the kept order, after FIFO used the same spare records.
                let lifo_again = lifo_kept(workers, &mut Cols::new(&mut kept[..p]), &spare[..p]);
                let lifo_sorted = lifo(workers, &mut Cols::new(&mut again[..p]));
                assert_eq!(lifo_again.to_bits(), lifo_sorted.to_bits(), "case {case}");
                assert_eq!(lifo_first.to_bits(), lifo_sorted.to_bits(), "case {case}");
                for (x, y) in kept[..p].iter().zip(&again[..p]) {
                    assert_eq!(x.words()[..SCRATCH_WORDS], y.words()[..SCRATCH_WORDS], "case {case}");
                }
            }
        }
        assert!(first_won > 20 && second_won > 20, "{first_won} {second_won}");
    }
}
