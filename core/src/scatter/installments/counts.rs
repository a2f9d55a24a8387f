//! A sequence's times for given counts (the schedule itself, by its definition), and whole
//! counts from rational sizes.

use super::lp::{Costs, RootColumn};

/// What one chunk's times are, in the order the root sends.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Times {
    pub send_start: f64,
    pub send_end: f64,
    pub compute_start: f64,
    pub compute_end: f64,
}

/// The schedule of `counts` (chunk `j` of worker `seq[j]`; the root's share `root`):
/// chunks leave back to back from time 0, an empty chunk is not sent, and a chunk computes
/// once it has arrived, its worker's previous chunk is done and its release time has come.
/// `ready` holds one slot per worker (only the sequence's are touched). Calls `each` with
/// every chunk's times (the root's last, as chunk `seq.len()`), and returns the makespan.
#[allow(clippy::too_many_arguments)]
pub(super) fn schedule(
    seq: &[usize],
    counts: &[f64],
    root: f64,
    root_costs: Costs,
    root_column: RootColumn,
    costs: impl Fn(usize) -> Costs,
    ready: &mut [f64],
    mut each: impl FnMut(usize, Times),
) -> f64 {
    for &w in seq {
        if let Some(r) = ready.get_mut(w) {
            *r = costs(w).r;
        }
    }
    let (mut port, mut makespan) = (0.0f64, 0.0f64);
    for (j, (&w, &n)) in seq.iter().zip(counts).enumerate() {
        if n <= 0.0 {
            each(j, Times { send_start: port, send_end: port, compute_start: port, compute_end: port });
            continue;
        }
        let c = costs(w);
        let send_start = port;
        port += c.l + c.c * n;
        let free = ready.get(w).copied().unwrap_or(0.0);
        let compute_start = port.max(free);
        let compute_end = compute_start + c.lam + c.mu * n;
        if let Some(r) = ready.get_mut(w) {
            *r = compute_end;
        }
        makespan = makespan.max(compute_end);
        each(j, Times { send_start, send_end: port, compute_start, compute_end });
    }
    let start = match root_column {
        RootColumn::Absent => None,
        RootColumn::Overlap => Some(root_costs.r),
        RootColumn::AfterSend => Some(port.max(root_costs.r)),
    };
    if let Some(start) = start {
        let at = if root_column == RootColumn::Overlap { 0.0 } else { port };
        let end = if root > 0.0 { start + root_costs.lam + root_costs.mu * root } else { start };
        if root > 0.0 {
            makespan = makespan.max(end);
        }
        each(seq.len(), Times { send_start: at, send_end: at, compute_start: start, compute_end: end });
    }
    makespan
}

/// What [`whole`] is asked for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Goal {
    /// Exactly this many items, the least makespan.
    Items(u64),
    /// As many items as finish by this time, at most this many.
    Deadline(f64, u64),
}

/// Whole counts from the rational sizes `x` (chunks, then the root's share at `x[K]`),
/// written over `x`: the floors (within each cap), then one item at a time where it raises
/// the makespan least (at most K + 1 items: the floors lose less than one each); for a
/// deadline, each chunk in turn as many more as still finish in time. Returns the makespan,
/// or `None` when the items cannot be placed (the caps).
pub(super) fn whole(
    seq: &[usize],
    x: &mut [f64],
    root_costs: Costs,
    root_column: RootColumn,
    costs: impl Fn(usize) -> Costs + Copy,
    ready: &mut [f64],
    goal: Goal,
) -> Option<f64> {
    let k = seq.len();
    let cap = |j: usize| if j == k { root_costs.cap } else { seq.get(j).map_or(0.0, |&w| costs(w).cap) };
    let limit = match goal {
        Goal::Items(n) | Goal::Deadline(_, n) => n as f64,
    };
    let mut total = 0.0;
    for (j, v) in x.iter_mut().enumerate().take(k + 1) {
        let f = libm::floor(v.max(0.0)).min(libm::floor(cap(j)));
        *v = if total + f > limit { (limit - total).max(0.0) } else { f };
        total += *v;
    }
    if root_column == RootColumn::Absent {
        if let Some(r) = x.get_mut(k) {
            total -= *r;
            *r = 0.0;
        }
    }
    let candidates = k + usize::from(root_column != RootColumn::Absent);
    let mut makespan = run(seq, x, root_costs, root_column, costs, ready);
    if let Goal::Deadline(t, _) = goal {
        // The LP's sizes are within its `f64` rounding of the deadline, and over 10¹¹ items
        // that rounding is whole items: their floors may still end late. The latest chunk
        // gives up what ends past `t` (a chunk ending earlier never delays another), until
        // every chunk is in time.
        for _ in 0..4 * (candidates + 1) {
            if makespan <= t {
                break;
            }
            let mut late: Option<(usize, f64)> = None;
            schedule(
                seq,
                x,
                x.get(k).copied().unwrap_or(0.0),
                root_costs,
                root_column,
                costs,
                ready,
                |j, times| {
                    if times.compute_end > t && late.is_none_or(|(_, e)| times.compute_end > e) {
                        late = Some((j, times.compute_end));
                    }
                },
            );
            let Some((j, end)) = late else { break };
            let mu = if j == k { root_costs.mu } else { seq.get(j).map_or(1.0, |&w| costs(w).mu) };
            if let Some(v) = x.get_mut(j) {
                let cut = libm::ceil((end - t) / mu).max(1.0).min(*v);
                *v -= cut;
                total -= cut;
            }
            makespan = run(seq, x, root_costs, root_column, costs, ready);
        }
        if makespan > t {
            // Not reached on any platform tried; no items is always in time.
            for v in x.iter_mut().take(k + 1) {
                *v = 0.0;
            }
            total = 0.0;
        }
        // Floors can empty a chunk, and an empty chunk pays no latency: the time it frees
        // may hold millions of items elsewhere, too many to add one at a time. Each chunk
        // in turn takes the most that still finishes by `t` (bisection on its count; a
        // count never ends earlier when it grows).
        for j in 0..candidates {
            let Some(&v) = x.get(j) else { break };
            let room = (libm::floor(cap(j)) - v).min(limit - total);
            let (mut lo, mut hi) = (0.0f64, room.max(0.0));
            while hi - lo >= 1.0 {
                let mid = libm::floor(lo + (hi - lo + 1.0) / 2.0);
                if let Some(slot) = x.get_mut(j) {
                    *slot = v + mid;
                }
                if run(seq, x, root_costs, root_column, costs, ready) <= t {
                    lo = mid;
                } else {
                    hi = mid - 1.0;
                }
            }
            if let Some(slot) = x.get_mut(j) {
                *slot = v + lo;
            }
            total += lo;
        }
        makespan = run(seq, x, root_costs, root_column, costs, ready);
        return Some(makespan);
    }
    while total < limit {
        let mut best: Option<(usize, f64)> = None;
        for j in 0..candidates {
            let Some(&v) = x.get(j) else { break };
            if v + 1.0 > cap(j) {
                continue;
            }
            if let Some(slot) = x.get_mut(j) {
                *slot = v + 1.0;
            }
            let m = run(seq, x, root_costs, root_column, costs, ready);
            if let Some(slot) = x.get_mut(j) {
                *slot = v;
            }
            if best.is_none_or(|(_, b)| m < b) {
                best = Some((j, m));
            }
        }
        let Some((j, m)) = best else { break };
        if let Some(slot) = x.get_mut(j) {
            *slot += 1.0;
        }
        total += 1.0;
        makespan = m;
    }
    match goal {
        Goal::Items(_) if total < limit => None,
        _ => Some(makespan),
    }
}

fn run(
    seq: &[usize],
    x: &[f64],
    root_costs: Costs,
    root_column: RootColumn,
    costs: impl Fn(usize) -> Costs,
    ready: &mut [f64],
) -> f64 {
    let root = x.get(seq.len()).copied().unwrap_or(0.0);
    schedule(seq, x, root, root_costs, root_column, costs, ready, |_, _| {})
}
