//! Sequences of chunks sized by their linear program (`lp.rs`) and rounded
//! (`counts.rs`): one sequence ([`try_sequence`], what the round-robin search tries), and
//! every sequence of a few workers with at most `r` chunks each ([`every_sequence`]), whose
//! least rational makespan bounds every plan with as many installments.

use super::counts::{whole, Goal};
use super::lp::{Costs, RootColumn, Sequence};
use super::{emit, Best, Chunk, Sides, MAX_CHUNKS};
use crate::error::Error;
use crate::num::Real;
use crate::report::Method;

/// Most workers (besides the root) whose every sequence is searched.
pub const EXACT_WORKERS: usize = 7;
/// Most chunks in all (workers × installments) whose every sequence is searched: four
/// workers with two installments each are 7 364 sequences, seven with one 13 699, three
/// with two 270 (microseconds each).
pub const EXACT_CHUNKS: usize = 8;
/// Sequences the search sizes at most: more than any platform within the two limits
/// above has, so the search gives up only if they change.
const EXACT_SEQUENCES: usize = 16_384;

/// The working memory a sequence is sized and rounded in.
pub(super) struct Work<'a> {
    pub tableau: &'a mut [f64],
    pub x: &'a mut [f64],
    pub spare: &'a mut [f64],
    pub ready: &'a mut [f64],
}

/// Sizes the sequence `seq[..k]` by its LP (dropping the chunks it leaves empty, so `seq`
/// may shrink), rounds it, and when it beats `best` writes its chunks to `out` and takes its
/// place: `None` when its LP finds no horizon (the caps cannot hold the goal, or Newton's
/// method gave up), else its rational makespan, whether it became the best, and its length
/// once sized (in `seq`). `k = 0` is the root alone.
#[allow(clippy::too_many_arguments)]
pub(super) fn try_sequence<N: Real, F: Fn(usize) -> Costs + Copy>(
    seq: &mut [usize],
    k: usize,
    rounds: u32,
    sides: Sides<F>,
    goal: Goal,
    work: &mut Work<'_>,
    out: &mut [Chunk<N>],
    best: &mut Option<Best>,
) -> Result<Option<(f64, bool, usize)>, Error> {
    let Sides { costs, root, root_column, root_index } = sides;
    let seq = seq.get_mut(..MAX_CHUNKS).unwrap_or_default();
    let Some((len, rational)) =
        size(seq, k, &costs, root, root_column, goal, work.tableau, work.x, work.spare)?
    else {
        return Ok(None);
    };
    let seq = seq.get(..len).unwrap_or_default();
    let shares = work.x.get(..=len).unwrap_or_default();
    let mut whole_x = [0.0f64; MAX_CHUNKS + 1];
    for (a, &b) in whole_x.iter_mut().zip(shares) {
        *a = b;
    }
    // Whole counts that cannot be placed (the caps) are no plan; the rational makespan
    // still counts for the bound.
    let Some(makespan) = whole(seq, &mut whole_x, root, root_column, costs, work.ready, goal) else {
        return Ok(Some((rational, false, len)));
    };
    let planned: f64 = whole_x.iter().take(len + 1).sum();
    let better = best.as_ref().is_none_or(|b| match goal {
        Goal::Items(_) => makespan < b.makespan,
        Goal::Deadline(..) => planned > b.items || (planned == b.items && makespan < b.makespan),
    });
    if better {
        let chunks = emit(seq, &whole_x, shares, root, root_column, root_index, costs, work.ready, out)?;
        *best =
            Some(Best { makespan, rational, items: planned, rounds, chunks, method: Method::INSTALLMENTS });
    }
    Ok(Some((rational, better, len)))
}

/// Sizes every sequence of the workers in `order` with at most `r` chunks each (identical
/// workers' first chunks in their order only: the others are the same plans), keeping the
/// best in `best`. Returns the least rational makespan of them all, or `None` when there
/// were more than [`EXACT_SEQUENCES`] (nothing proven).
#[allow(clippy::too_many_arguments)]
pub(super) fn every_sequence<N: Real, F: Fn(usize) -> Costs + Copy>(
    order: &[usize],
    r: usize,
    sides: Sides<F>,
    goal: Goal,
    work: &mut Work<'_>,
    seq: &mut [usize],
    out: &mut [Chunk<N>],
    best: &mut Option<Best>,
) -> Result<Option<f64>, Error> {
    let q = order.len();
    let same = |i: usize| {
        i > 0 && order.get(i - 1).map(|&w| (sides.costs)(w)) == order.get(i).map(|&w| (sides.costs)(w))
    };
    let (mut used, mut pick, mut next) =
        ([0usize; EXACT_WORKERS], [0usize; EXACT_CHUNKS], [0usize; EXACT_CHUNKS + 1]);
    let (mut depth, mut sized, mut least) = (0usize, 0usize, f64::INFINITY);
    let limit = (q * r).min(EXACT_CHUNKS);
    let Goal::Items(n) = goal else { return Ok(None) };
    // What a sequence's chunks (and the root) may hold: a sequence whose LP finds no
    // horizon although they hold the items is a failure of the LP, and nothing is proven.
    let root_cap = if sides.root_column == RootColumn::Absent { 0.0 } else { sides.root.cap };
    let holds = |seq: &[usize]| seq.iter().map(|&w| (sides.costs)(w).cap).sum::<f64>() + root_cap >= n as f64;
    // The root alone, where it computes: a chunk the LP keeps still pays its latency, so no
    // sequence of workers covers this plan.
    if sides.root_column != RootColumn::Absent {
        match try_sequence(seq, 0, 1, sides, goal, work, out, best)? {
            Some((t, _, _)) => least = least.min(t),
            None if holds(&[]) => return Ok(None),
            None => {}
        }
    }
    while let Some(&i) = next.get(depth) {
        if depth < limit && i < q {
            if let Some(n) = next.get_mut(depth) {
                *n += 1;
            }
            let uses = used.get(i).copied().unwrap_or(r);
            // A worker's first chunk only after that of the identical worker before it.
            if uses >= r || (uses == 0 && same(i) && used.get(i - 1) == Some(&0)) {
                continue;
            }
            if let (Some(u), Some(p)) = (used.get_mut(i), pick.get_mut(depth)) {
                *u += 1;
                *p = i;
            }
            depth += 1;
            if let Some(n) = next.get_mut(depth) {
                *n = 0;
            }
            sized += 1;
            if sized > EXACT_SEQUENCES {
                return Ok(None);
            }
            for (slot, &j) in seq.iter_mut().zip(pick.iter().take(depth)) {
                *slot = order.get(j).copied().unwrap_or(0);
            }
            let holds_items = holds(seq.get(..depth).unwrap_or_default());
            match try_sequence(seq, depth, 0, sides, goal, work, out, best)? {
                Some((t, improved, len)) => {
                    least = least.min(t);
                    if let (true, Some(b), Some(sized)) = (improved, best.as_mut(), seq.get(..len)) {
                        // Its rounds: the most chunks any worker has.
                        b.rounds =
                            sized.iter().map(|w| sized.iter().filter(|v| *v == w).count()).max().unwrap_or(0)
                                as u32;
                    }
                }
                None if holds_items => return Ok(None),
                None => {}
            }
            continue;
        }
        if depth == 0 {
            break;
        }
        depth -= 1;
        if let Some(u) = pick.get(depth).and_then(|&j| used.get_mut(j)) {
            *u -= 1;
        }
    }
    if let Some(b) = best.as_mut() {
        b.method = Method::INSTALLMENTS_EVERY_SEQUENCE;
    }
    Ok(least.is_finite().then_some(least))
}

/// Sizes the sequence `seq[..k]` for the goal, dropping chunks the LP leaves empty (they
/// would pay latencies for nothing) and, for a deadline, the last chunks while the
/// latencies alone exceed it. Returns the remaining length and the rational makespan.
#[allow(clippy::too_many_arguments)]
fn size(
    seq: &mut [usize],
    mut k: usize,
    costs: &impl Fn(usize) -> Costs,
    root: Costs,
    root_column: RootColumn,
    goal: Goal,
    tableau: &mut [f64],
    x: &mut [f64],
    spare: &mut [f64],
) -> Result<Option<(usize, f64)>, Error> {
    loop {
        let s = Sequence { seq: seq.get(..k).unwrap_or_default(), costs, root, root_column };
        let found = match goal {
            Goal::Items(n) => s.makespan(n as f64, tableau, x, spare)?,
            Goal::Deadline(t, n) => match s.most_items(t, tableau, x, spare)? {
                Some(v) => {
                    if v > n as f64 {
                        for v_j in x.iter_mut().take(k + 1) {
                            *v_j *= n as f64 / v;
                        }
                    }
                    Some(t)
                }
                None if k > 0 => {
                    k -= 1;
                    continue;
                }
                None => None,
            },
        };
        let Some(t) = found else { return Ok(None) };
        let total: f64 = x.iter().take(k + 1).sum();
        let empty = |v: f64| v <= total * 1e-12;
        if x.iter().take(k).all(|&v| !empty(v)) {
            return Ok(Some((k, t)));
        }
        let mut kept = 0;
        for j in 0..k {
            let v = x.get(j).copied().unwrap_or(0.0);
            if !empty(v) {
                if let (Some(&w), true) = (seq.get(j), kept < j) {
                    if let Some(slot) = seq.get_mut(kept) {
                        *slot = w;
                    }
                }
                kept += 1;
            }
        }
        k = kept;
    }
}
