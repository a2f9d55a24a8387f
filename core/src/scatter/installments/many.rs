//! Plans over more workers than the LP takes, or more rounds than its chunks hold
//! (`docs/derivations/installments.md` §6, §7, §9): one round of the rational fill
//! (`wide.rs`), UMR's rounds without caps (`umr.rs`; for a deadline, the most items they
//! finish by it), and rounds of the fill where caps bound the rounds. Each gives its plan
//! when it beats the best so far; `plan` in `mod.rs` decides which to try.

use super::counts::{schedule, Goal};
use super::lp::{Costs, RootColumn};
use super::{emit, umr, wide, Best, Chunk, Sides};
use crate::error::Error;
use crate::num::Real;
use crate::report::Method;

/// The planners' working memory: a sequence, its rational sizes and whole counts (the
/// root's share one past the chunks), a time per worker, and the plan's chunks.
pub(super) struct Buffers<'a, N> {
    pub seq: &'a mut [usize],
    pub x: &'a mut [f64],
    pub counts: &'a mut [f64],
    pub ready: &'a mut [f64],
    pub out: &'a mut [Chunk<N>],
}

impl<'a, N> Buffers<'a, N> {
    pub fn new(
        seq: &'a mut [usize],
        x: &'a mut [f64],
        counts: &'a mut [f64],
        ready: &'a mut [f64],
        out: &'a mut [Chunk<N>],
    ) -> Self {
        Buffers { seq, x, counts, ready, out }
    }
}

/// One round over more workers than the LP takes (`wide.rs`): the rational fill's least
/// horizon and its prefix-rounded counts, or for a deadline the whole fill.
pub(super) fn one_wide_round<N: Real, F: Fn(usize) -> Costs + Copy>(
    order: &[usize],
    sides: Sides<F>,
    goal: Goal,
    b: &mut Buffers<'_, N>,
) -> Result<Best, Error> {
    let Sides { costs, root, root_column, root_index } = sides;
    let w = wide::Wide { order, costs, root, root_column };
    let k = order.len() + 1;
    let (x, counts) = (b.x.get_mut(..k).unwrap_or_default(), b.counts.get_mut(..k).unwrap_or_default());
    let (ready, out) = (&mut *b.ready, &mut *b.out);
    let rational = match goal {
        Goal::Items(n) => {
            let t = w
                .makespan(n as f64, x)
                .ok_or(Error::time_overflow("makespan", "give smaller costs or times in a larger unit"))?;
            wide::round_prefixes(x, n, counts);
            t
        }
        Goal::Deadline(t, n) => {
            wide::most_by(&w, t, n, counts);
            for (a, &b) in x.iter_mut().zip(counts.iter()) {
                *a = b;
            }
            t
        }
    };
    let (chunks, root_count) = counts.split_at_checked(order.len()).unwrap_or((counts, &[]));
    let root_count = root_count.first().copied().unwrap_or(0.0);
    let makespan = schedule(order, chunks, root_count, root, root_column, costs, ready, |_, _| {});
    let items = counts.iter().sum();
    let chunks = emit(order, counts, x, root, root_column, root_index, costs, ready, out)?;
    Ok(Best { makespan, rational, items, rounds: 1, chunks, method: Method::INSTALLMENTS })
}

/// UMR's rounds over many workers (`umr.rs`) for `n` items, their counts rounded by prefix
/// sums: the plan, written to `out`, when it is faster than `than` (for a deadline: when it
/// ends by it; `out` is written only then).
pub(super) fn wide_rounds<N: Real, F: Fn(usize) -> Costs + Copy>(
    u: &umr::Umr,
    order: &[usize],
    sides: Sides<F>,
    goal: Goal,
    n: u64,
    b: &mut Buffers<'_, N>,
    than: Option<&Best>,
) -> Result<Option<Best>, Error> {
    let Some(makespan) = umr_rounded(u, order, &sides, n, b) else {
        return Ok(None);
    };
    let keep = match goal {
        Goal::Items(_) => than.is_none_or(|b| makespan < b.makespan),
        Goal::Deadline(t, _) => makespan <= t,
    };
    if !keep || !makespan.is_finite() {
        return Ok(None);
    }
    let k = u.chunks();
    let (Some(seq), Some(x), Some(counts)) = (b.seq.get(..k), b.x.get(..=k), b.counts.get(..=k)) else {
        return Ok(None);
    };
    let rational = match goal {
        Goal::Items(_) => run_chunks(seq, x, &sides, b.ready),
        Goal::Deadline(t, _) => t,
    };
    let Sides { costs, root, root_column, root_index } = sides;
    let chunks = emit(seq, counts, x, root, root_column, root_index, costs, b.ready, b.out)?;
    Ok(Some(Best {
        makespan,
        rational,
        items: n as f64,
        rounds: u.rounds as u32,
        chunks,
        method: Method::UNIFORM_MULTI_ROUND,
    }))
}

/// UMR's sequence and sizes for `n` items in `seq` and `x`, their whole counts in
/// `counts`, and the makespan of those counts; `None` when the memory is short or no
/// chunk gets a positive size.
fn umr_rounded<N, F: Fn(usize) -> Costs + Copy>(
    u: &umr::Umr,
    order: &[usize],
    sides: &Sides<F>,
    n: u64,
    b: &mut Buffers<'_, N>,
) -> Option<f64> {
    let k = u.chunks();
    let (Some(seq), Some(x), Some(counts)) = (b.seq.get_mut(..k), b.x.get_mut(..=k), b.counts.get_mut(..=k))
    else {
        return None;
    };
    if !u.fill(order, sides.costs, n as f64, seq, x) {
        return None;
    }
    round_chunks(x, n, k, sides.root_column, counts);
    Some(run_chunks(seq, counts, sides, b.ready))
}

/// The most whole items, up to `n`, that UMR's rounds finish by `t` (derivation §7), found
/// by bisection on the items: the plan, written to `out`, when it holds more than `than`.
/// UMR's makespan grows with its items in the rational model; where rounding or its choice
/// of rounds makes it step back, the bisection may stop short of the most, never past the
/// deadline, since every count it keeps was scheduled and checked against `t`.
pub(super) fn wide_rounds_by<N: Real, F: Fn(usize) -> Costs + Copy>(
    t: f64,
    n: u64,
    most: usize,
    order: &[usize],
    sides: Sides<F>,
    b: &mut Buffers<'_, N>,
    than: Option<&Best>,
) -> Result<Option<Best>, Error> {
    let Sides { costs, root, root_column, .. } = sides;
    let plan_of = |m: u64| umr::choose(order, costs, root, root_column, m as f64, most);
    let fits = |m: u64, b: &mut Buffers<'_, N>| {
        plan_of(m).and_then(|u| umr_rounded(&u, order, &sides, m, b)).is_some_and(|s| s <= t)
    };
    // `lo` fits (or is what `than` holds already), `hi` does not.
    let mut lo = than.map_or(0, |b| b.items as u64);
    if lo >= n {
        return Ok(None);
    }
    let mut hi = n;
    if fits(n, b) {
        lo = n;
    } else {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid, b) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    if than.is_some_and(|b| lo <= b.items as u64) || lo == 0 {
        return Ok(None);
    }
    let Some(u) = plan_of(lo) else { return Ok(None) };
    wide_rounds(&u, order, sides, Goal::Deadline(t, n), lo, b, None)
}

/// At most `rounds` rounds of the fill over `order` (`wide.rs`, derivation §9): for `n`
/// items the least horizon's sizes, their counts rounded by prefix sums within the caps;
/// for a deadline the most whole items by it. The plan, written to `out`, and the rounds
/// its fill took, when it beats `than`.
pub(super) fn filled_rounds<N: Real, F: Fn(usize) -> Costs + Copy>(
    rounds: usize,
    order: &[usize],
    sides: Sides<F>,
    goal: Goal,
    b: &mut Buffers<'_, N>,
    than: Option<&Best>,
) -> Result<(Option<Best>, usize), Error> {
    let Sides { costs, root, root_column, root_index } = sides;
    let most = rounds.saturating_mul(order.len());
    let (seq, x, counts, ready, out) = (&mut *b.seq, &mut *b.x, &mut *b.counts, &mut *b.ready, &mut *b.out);
    let (Some(seq), Some(x), Some(counts)) =
        (seq.get_mut(..most), x.get_mut(..=most), counts.get_mut(..=most))
    else {
        return Ok((None, 0));
    };
    let wide = wide::Wide { order, costs, root, root_column };
    let filled = match goal {
        Goal::Items(n) => {
            let Some(filled) = wide.rounds_sized(rounds, n as f64, seq, x, ready) else {
                return Ok((None, 0));
            };
            let k = filled.chunks;
            let rounded = round_chunks(x, n, k, root_column, counts);
            // Chunk `k` is the root's share (`seq` holds older entries beyond the fill's).
            let cap = |j: usize| seq.get(j).filter(|_| j < k).map_or(root.cap, |&w| costs(w).cap);
            wide::hold_caps(rounded, cap);
            filled
        }
        Goal::Deadline(t, n) => {
            let filled = wide::most_by_rounds(&wide, t, n, rounds, seq, counts, ready);
            for (a, &b) in x.iter_mut().zip(counts.iter()) {
                *a = b;
            }
            filled
        }
    };
    let k = filled.chunks;
    let (Some(seq), Some(x), Some(counts)) = (seq.get(..k), x.get(..=k), counts.get(..=k)) else {
        return Ok((None, 0));
    };
    let makespan = run_chunks(seq, counts, &sides, ready);
    let items: f64 = counts.iter().sum();
    let better = than.is_none_or(|b| match goal {
        Goal::Items(_) => makespan < b.makespan,
        Goal::Deadline(..) => items > b.items || (items == b.items && makespan < b.makespan),
    });
    if !better || !makespan.is_finite() || items <= 0.0 {
        return Ok((None, 0));
    }
    let rational = match goal {
        Goal::Items(_) => run_chunks(seq, x, &sides, ready),
        Goal::Deadline(t, _) => t,
    };
    let chunks = emit(seq, counts, x, root, root_column, root_index, costs, ready, out)?;
    let rounds = filled.rounds as u32;
    Ok((
        Some(Best { makespan, rational, items, rounds, chunks, method: Method::FILLED_ROUNDS }),
        filled.rounds,
    ))
}

/// Rounds the sizes of `k` chunks and the root's share (`x[..=k]`) to whole counts
/// summing to `n` by prefix sums, in `counts` (zeroed past them). A root that computes
/// nothing has no slot in the rounding: the workers' chunks alone round to the items, or
/// the root's slot would take what `f64` loses over a million chunks. Returns the rounded
/// counts.
fn round_chunks<'a>(
    x: &[f64],
    n: u64,
    k: usize,
    root_column: RootColumn,
    counts: &'a mut [f64],
) -> &'a mut [f64] {
    let k_round = if root_column == RootColumn::Absent { k } else { k + 1 };
    let (rounded, rest) = counts.split_at_mut_checked(k_round).unwrap_or_default();
    wide::round_prefixes(x.get(..k_round).unwrap_or_default(), n, rounded);
    for r in rest.iter_mut() {
        *r = 0.0;
    }
    rounded
}

/// The makespan of the chunks `v[..k]` sent in `seq`'s order (`k = seq.len()`) with the
/// root's share `v[k]`.
fn run_chunks<F: Fn(usize) -> Costs + Copy>(
    seq: &[usize],
    v: &[f64],
    sides: &Sides<F>,
    ready: &mut [f64],
) -> f64 {
    let (chunks, root_share) = v.split_at_checked(seq.len()).unwrap_or((v, &[]));
    let root_share = root_share.first().copied().unwrap_or(0.0);
    schedule(seq, chunks, root_share, sides.root, sides.root_column, sides.costs, ready, |_, _| {})
}
