//! One installment over more workers than the LP takes (`docs/derivations/installments.md`
//! §6): caps, release times and deadlines for any number of workers, in O(p) a horizon;
//! and several rounds of it where caps make a worker take its items in parts (§9).
//!
//! In bandwidth order (increasing `c`), for a fixed horizon `T`, giving each worker in turn
//! as many items as still finish by `T` is the most items one round holds without
//! latencies: one item less to a worker frees `c` seconds of the port, and the workers after
//! it turn `δ` seconds into at most `δ·g` items with `g ≤ 1/c` (each later worker's rate
//! `1/(c' + μ') ` plus what it passes on, `μ'/(c' + μ')·g'`, is at most `1/c' ≤ 1/c`), so
//! the trade never gains. The least `T` whose fill holds `n` items is found by bisection.
//! With latencies, a worker that would get less than one item is left out (it would pay
//! its latency for nothing); the plan is then a heuristic, and the bound says how far it
//! may be.
//!
//! With caps, rounds repeat the fill: round `j` gives each worker whose chunk of round
//! `j − 1` was filled to its cap, in bandwidth order, the most items that finish by `T`
//! after that chunk, within its cap. Any other chunk already ends at `T`, so a next one
//! would be empty. Shrinking every size never delays a chunk (each time is a maximum of
//! sums of sizes), so the sizes scaled down to `n` finish by `T` too; the fill need not
//! grow with `T` for the bisection to end on a horizon that holds `n`. More rounds only
//! add chunks after the same first ones, so the most rounds allowed have the least
//! horizon.
//!
//! Whole counts round the prefix sums: `nₖ = ⌊Xₖ + ½⌋ − ⌊Xₖ₋₁ + ½⌋` for `Xₖ` the rational
//! items up to position `k`. Every arrival then moves by less than one item's transfer and
//! every count by less than one item, and a count never passes its worker's (whole) cap
//! ([`hold_caps`] moves the item that `f64`'s sums may add beyond one).

use super::lp::{Costs, RootColumn};

/// Bisection steps: from a bracket within a factor 2, 2⁻¹⁰⁰ is below `f64`'s resolution.
const STEPS: usize = 100;
/// Doublings to find a horizon that holds the items: beyond 2¹¹⁰⁰ seconds lies `f64::MAX`.
const DOUBLINGS: usize = 1100;

/// The platform in bandwidth order.
pub(super) struct Wide<'a, F> {
    pub order: &'a [usize],
    pub costs: F,
    pub root: Costs,
    pub root_column: RootColumn,
}

impl<F: Fn(usize) -> Costs> Wide<'_, F> {
    /// The most items one round finishes by `t` (`whole`: each count an integer), each
    /// position's in `x` (the root's at `x[order.len()]`).
    pub fn fill(&self, t: f64, whole: bool, x: &mut [f64]) -> f64 {
        let mut port = 0.0f64;
        let mut total = 0.0;
        for (&w, slot) in self.order.iter().zip(x.iter_mut()) {
            let c = (self.costs)(w);
            let v = most(&c, t, port, c.r, whole);
            if v > 0.0 {
                port += c.l + c.c * v;
            }
            *slot = v;
            total += v;
        }
        total + self.root_fill(t, port, whole, x.get_mut(self.order.len()))
    }

    /// As [`Wide::fill`] in rounds (§9): round 1 is the fill of every worker in bandwidth
    /// order; each later round goes, in the same order, to the workers whose chunk of the
    /// round before was filled to its cap (any other chunk ends at `t`, so a next one would
    /// be empty), for at most `rounds` rounds and until one has nobody. The chunks' workers
    /// go to `seq` and their sizes to `x`, the root's after the last chunk; `ready`, one
    /// slot per worker, holds when each is free.
    pub fn fill_rounds(
        &self,
        t: f64,
        whole: bool,
        rounds: usize,
        seq: &mut [usize],
        x: &mut [f64],
        ready: &mut [f64],
    ) -> Filled {
        for &w in self.order {
            if let Some(r) = ready.get_mut(w) {
                *r = (self.costs)(w).r;
            }
        }
        let (mut port, mut total, mut k) = (0.0f64, 0.0, 0usize);
        let mut chunk = |w: usize, k: &mut usize, port: &mut f64, seq: &mut [usize], x: &mut [f64]| {
            let c = (self.costs)(w);
            let (Some(free), Some(s), Some(slot)) = (ready.get_mut(w), seq.get_mut(*k), x.get_mut(*k)) else {
                return 0.0;
            };
            let v = most(&c, t, *port, *free, whole);
            if v > 0.0 {
                *port += c.l + c.c * v;
                *free = port.max(*free) + c.lam + c.mu * v;
            }
            (*s, *slot) = (w, v);
            *k += 1;
            v
        };
        for &w in self.order {
            total += chunk(w, &mut k, &mut port, seq, x);
        }
        let (mut from, mut used) = (0, 1);
        while used < rounds {
            let (start, mut i) = (k, from);
            while i < start {
                let (Some(&w), Some(&v)) = (seq.get(i), x.get(i)) else { break };
                if v > 0.0 && v >= (self.costs)(w).cap {
                    total += chunk(w, &mut k, &mut port, seq, x);
                }
                i += 1;
            }
            if k == start {
                break;
            }
            (from, used) = (start, used + 1);
        }
        let root = self.root_fill(t, port, whole, x.get_mut(k));
        Filled { total: total + root, chunks: k, rounds: used }
    }

    /// The root's most items by `t` once the port has sent for `port` seconds, written to
    /// `slot`.
    fn root_fill(&self, t: f64, port: f64, whole: bool, slot: Option<&mut f64>) -> f64 {
        let r = self.root;
        let start = match self.root_column {
            RootColumn::Absent => None,
            RootColumn::Overlap => Some(r.r),
            RootColumn::AfterSend => Some(port.max(r.r)),
        };
        let mut v = start.map_or(0.0, |s| ((t - s - r.lam) / r.mu).min(r.cap));
        if whole {
            v = libm::floor(v);
        }
        if v.is_nan() || v <= 0.0 {
            v = 0.0;
        }
        if let Some(slot) = slot {
            *slot = v;
        }
        v
    }

    /// The least horizon whose fill holds `n` items, with the rational sizes in `x`
    /// (adding up to `n`); `None` when no horizon in `f64` does.
    pub fn makespan(&self, n: f64, x: &mut [f64]) -> Option<f64> {
        least_horizon(n, x, |t, x| self.fill(t, false, x))
    }

    /// As [`Wide::makespan`] in at most `rounds` rounds ([`Wide::fill_rounds`]): the sizes
    /// in `x` and `seq`, and what the fill at the horizon found holds them.
    pub fn rounds_sized(
        &self,
        rounds: usize,
        n: f64,
        seq: &mut [usize],
        x: &mut [f64],
        ready: &mut [f64],
    ) -> Option<Filled> {
        let mut last = Filled { total: 0.0, chunks: 0, rounds: 0 };
        crossing(n, x, |t, x| {
            last = self.fill_rounds(t, false, rounds, seq, x, ready);
            last.total
        })?;
        Some(last)
    }
}

/// What a fill in rounds holds: its items, chunks (the root's share aside) and rounds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Filled {
    pub total: f64,
    pub chunks: usize,
    pub rounds: usize,
}

/// The most items a chunk to `c` holds and still finishes by `t`, sent once the port has
/// sent for `port` seconds to a worker free from `free` on; 0 for none (a worker with a
/// latency takes part only for a whole item at least).
fn most(c: &Costs, t: f64, port: f64, free: f64, whole: bool) -> f64 {
    let by_port = (t - port - c.l - c.lam) / (c.c + c.mu);
    let by_release = (t - free - c.lam) / c.mu;
    let mut v = by_port.min(by_release).min(c.cap);
    if whole {
        v = libm::floor(v);
    }
    let least = if c.l > 0.0 || c.lam > 0.0 { 1.0 } else { 0.0 };
    if v.is_nan() || v <= 0.0 || v < least {
        0.0
    } else {
        v
    }
}

/// Relative width at which [`crossing`] stops: the horizon then lies within 10⁻⁹ of a
/// crossing. The plan is the schedule of the sizes scaled to the items, which finish by
/// the horizon, so this costs at most 10⁻⁹ of its makespan.
const CROSSING_WIDTH: f64 = 1e-9;

/// A horizon whose `fill` holds `n` items while one within [`CROSSING_WIDTH`] below does
/// not, with the sizes in `x` scaled to add up to `n`: doubling, then regula falsi with the
/// Illinois step (every fourth step a bisection), 10 to 30 fills where bisection to `f64`'s
/// resolution takes sixty. The fill in rounds need not grow with the horizon, so
/// this is a crossing, not always the least.
fn crossing(n: f64, x: &mut [f64], mut fill: impl FnMut(f64, &mut [f64]) -> f64) -> Option<f64> {
    let (mut hi, mut f_hi) = first_holding(n, x, &mut fill)?;
    let (mut lo, mut f_lo) = (0.0f64, -n);
    let mut kept = 0i8;
    for step in 0..STEPS {
        if hi - lo <= CROSSING_WIDTH * hi {
            break;
        }
        let secant = hi - f_hi * (hi - lo) / (f_hi - f_lo);
        let mid = if step % 4 == 3 || !(secant > lo && secant < hi) { 0.5 * (lo + hi) } else { secant };
        if mid <= lo || mid >= hi {
            break;
        }
        let f = fill(mid, x) - n;
        // Illinois: an end kept twice in a row has its value halved, so the secant moves it.
        if f >= 0.0 {
            (hi, f_hi) = (mid, f);
            if kept == -1 {
                f_lo *= 0.5;
            }
            kept = -1;
        } else {
            (lo, f_lo) = (mid, f);
            if kept == 1 {
                f_hi *= 0.5;
            }
            kept = 1;
        }
    }
    Some(settle(n, hi, x, &mut fill))
}

/// The first horizon of 1, 2, 4, … seconds whose `fill` holds `n` items, and what it holds
/// beyond them; `None` when none in `f64` does.
fn first_holding(n: f64, x: &mut [f64], fill: &mut impl FnMut(f64, &mut [f64]) -> f64) -> Option<(f64, f64)> {
    let mut hi = 1.0f64;
    for _ in 0..DOUBLINGS {
        let over = fill(hi, x) - n;
        if over >= 0.0 {
            return Some((hi, over));
        }
        hi *= 2.0;
        if !hi.is_finite() {
            return None;
        }
    }
    None
}

/// The fill at `t` once more, its sizes scaled to add up to `n`; returns `t`.
fn settle(n: f64, t: f64, x: &mut [f64], fill: &mut impl FnMut(f64, &mut [f64]) -> f64) -> f64 {
    let total = fill(t, x);
    if total > 0.0 {
        for v in x.iter_mut() {
            *v *= n / total;
        }
    }
    t
}

/// The least horizon (to `f64`'s resolution, by doubling then bisection) whose `fill`
/// holds `n` items, with the sizes in `x` scaled to add up to `n`.
fn least_horizon(n: f64, x: &mut [f64], mut fill: impl FnMut(f64, &mut [f64]) -> f64) -> Option<f64> {
    let (mut hi, _) = first_holding(n, x, &mut fill)?;
    let mut lo = 0.0f64;
    for _ in 0..STEPS {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if fill(mid, x) >= n {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(settle(n, hi, x, &mut fill))
}

/// Whole counts from rational sizes adding up to `n`, by rounding their prefix sums
/// (written over `counts`).
pub(super) fn round_prefixes(x: &[f64], n: u64, counts: &mut [f64]) {
    let (mut sum, mut before) = (0.0f64, 0.0f64);
    let last = x.len().min(counts.len()).saturating_sub(1);
    for (i, (&v, c)) in x.iter().zip(counts.iter_mut()).enumerate() {
        sum += v;
        let upto = if i == last { n as f64 } else { libm::floor(sum + 0.5).min(n as f64) };
        *c = (upto - before).max(0.0);
        before = before.max(upto);
    }
}

/// The most whole items that finish by `t` with one round in `order`: the fill with whole
/// counts, trimmed to `n` from the end (fewer items never end later).
pub(super) fn most_by<F: Fn(usize) -> Costs>(wide: &Wide<'_, F>, t: f64, n: u64, counts: &mut [f64]) -> f64 {
    let total = wide.fill(t, true, counts);
    trim(total, n, counts.get_mut(..wide.order.len() + 1).unwrap_or_default())
}

/// As [`most_by`] in at most `rounds` rounds ([`Wide::fill_rounds`]).
pub(super) fn most_by_rounds<F: Fn(usize) -> Costs>(
    wide: &Wide<'_, F>,
    t: f64,
    n: u64,
    rounds: usize,
    seq: &mut [usize],
    counts: &mut [f64],
    ready: &mut [f64],
) -> Filled {
    let filled = wide.fill_rounds(t, true, rounds, seq, counts, ready);
    let k = filled.chunks.saturating_add(1);
    let total = trim(filled.total, n, counts.get_mut(..k).unwrap_or_default());
    Filled { total, ..filled }
}

/// Takes what `total` has beyond `n` off the last counts.
fn trim(mut total: f64, n: u64, counts: &mut [f64]) -> f64 {
    let mut over = total - n as f64;
    for c in counts.iter_mut().rev() {
        if over <= 0.0 {
            break;
        }
        let cut = c.min(over);
        *c -= cut;
        over -= cut;
        total -= cut;
    }
    total
}

/// Moves any count above its chunk's cap (`cap(j)`) to the next chunks with room, then the
/// earlier ones: the sum stays, and whole caps that hold the sum are all held. Rounding
/// prefix sums passes a cap only where `f64` rounds a sum up across a half.
pub(super) fn hold_caps(counts: &mut [f64], cap: impl Fn(usize) -> f64) {
    let mut carry = 0.0f64;
    for (j, c) in counts.iter_mut().enumerate() {
        let v = *c + carry;
        let room = cap(j);
        carry = (v - room).max(0.0);
        *c = v - carry;
    }
    for (j, c) in counts.iter_mut().enumerate().rev() {
        if carry <= 0.0 {
            break;
        }
        let take = (cap(j) - *c).max(0.0).min(carry);
        *c += take;
        carry -= take;
    }
    // Caps below the sum (which the planner refuses before): the sum still stays.
    if let Some(last) = counts.last_mut() {
        *last += carry;
    }
}

#[cfg(test)]
mod tests {
    use super::hold_caps;

    /// An item over a cap moves to the next chunk with room, and past the last chunk back
    /// to the earlier ones; the sum stays and every cap holds.
    #[test]
    fn caps_hold_and_the_sum_stays() {
        let caps = [3.0, 4.0, 5.0, 2.0];
        let cap = |j: usize| caps[j];
        let mut counts = [4.0, 5.0, 2.0, 1.0];
        hold_caps(&mut counts, cap);
        assert_eq!(counts, [3.0, 4.0, 4.0, 1.0]);
        let mut counts = [3.0, 4.0, 4.0, 3.0];
        hold_caps(&mut counts, cap);
        assert_eq!(counts, [3.0, 4.0, 5.0, 2.0]);
        // Caps below the sum: the sum stays all the same.
        let mut over = [3.0, 4.0, 5.0, 3.0];
        hold_caps(&mut over, cap);
        assert_eq!(over.iter().sum::<f64>(), 15.0);
        let mut within = [1.0, 2.0, 3.0, 0.0];
        hold_caps(&mut within, cap);
        assert_eq!(within, [1.0, 2.0, 3.0, 0.0]);
    }
}
