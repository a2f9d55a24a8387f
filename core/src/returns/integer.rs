//! Integer plans of the return-messages model: counts from rational shares (largest
//! remainder, exact sum), the schedule's times evaluated as the model says (slides
//! L410-461: sends back to back in send order, compute on arrival, each return as early as
//! possible after its compute and the previous return; half duplex: no return before the
//! last send ends), and a certified upper bound on the integer makespan.
//!
//! Why the bound holds. With counts `n`, the evaluation above ends its last return at
//! `max_i R_i(n)`, where `R_i(y) = Σ_{j sent ≤ i} c_j y_j + w_i y_i + Σ_{j returned ≥ i} d_j y_j`
//! (the longest path: sends up to i, i's compute, then every return from i's on, back to
//! back), and in half duplex at `max(max_i R_i(n), H(n))` with `H(y) = Σ_j (c_j + d_j) y_j`
//! (all sends, then all returns). All coefficients are ≥ 0, so the rows are monotone: with
//! `e_j = max(0, n_j − ⌊s_j⌋)` (1 for a worker that got its remainder, else 0) and
//! `y = s + e ≥ n`, `makespan ≤ max_rows R(y) ≤ max_rows R(s) + max_rows R(e)`. The
//! rational shares `s` meet every row within `items/ρ` (the scenario LP scaled by
//! `items/ρ`), and `e_j ≤ 1`, so
//! `makespan ≤ items/ρ + maxᵢ (Σ_{j sent ≤ i} c_j + w_i + Σ_{j returned ≥ i} d_j)`
//! (half duplex: also `Σ_j (c_j + d_j)`). The code evaluates `max_rows R(s + e)` in `f64`
//! with every operation rounded upwards, which is above the makespan whatever rounding
//! did to `s`, and widens it for `N`'s own evaluation ([`fp::upper_for`]).
//!
//! Memory traffic (issue 12): the scenario is read from the scratch columns in send order
//! (`types::col`), the counts are a rule (floor, plus one above a threshold found by
//! histogram selection) applied as each position is visited, and the plan records are
//! written once, in the pass that computes their times; the even split and the bound are
//! evaluated in the same passes. A LIFO plan's returns run backwards, so its records are
//! visited twice.

use crate::kernel::fp::{self, next_up};
use crate::num::{mul_subnormal, Real};
use crate::returns::bound::{total_key, Stops, KNAPSACKS};
use crate::returns::scenario::MAX_LP_WORKERS;
use crate::returns::types::{col, Assignment, Cols, Port, ReturnWorker};

/// Roundings behind a makespan this module evaluates over `positions` positions in `N`:
/// two per send and per return (a product and a sum or maximum) and two for the compute
/// on the longest path, all on non-negative terms.
pub(crate) const fn evaluation_ops(positions: usize) -> u64 {
    4 * positions as u64 + 8
}

/// The return order of a scenario's members (the other workers return after them, in
/// send order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Returns {
    /// LIFO: the reverse of the send order.
    Reverse,
    /// FIFO: the send order.
    Same,
    /// The ranks already in `out[..members].return_rank` (at most [`MAX_LP_WORKERS`]
    /// members: the LP scenarios).
    Ranks,
}

/// Largest-remainder counts as a rule on each member's share `s` (position `k`): the floor
/// `⌊s⌋` plus `base`, plus one for the `extra` largest remainders `s − ⌊s⌋` (ties: the
/// earlier position); or, when rounding made the floors exceed `items`, minus what the
/// old sweeps took (one from every count still positive, by increasing remainder, until
/// the excess is gone).
#[derive(Clone, Copy, Debug)]
struct Counts {
    base: u64,
    pick: Pick,
}

#[derive(Clone, Copy, Debug)]
enum Pick {
    None,
    /// +1 where `!remainder_key < key`, or equal and `k ≤ last`.
    Up {
        key: u64,
        last: usize,
    },
    /// −`sweeps` (not below 0), then −1 more where the count is still positive and
    /// `remainder_key < key`, or equal and `k ≤ last`.
    Down {
        sweeps: u64,
        partial: Option<(u64, usize)>,
    },
}

/// The floor of a share and its remainder's key, as the rounding has always computed them
/// (from the share in `f64`, clamped at 0).
#[inline]
fn floor_and_key<N: Real>(share: N) -> (u64, u64) {
    let x = share.to_f64().max(0.0);
    let floor = x as u64;
    (floor, total_key(x - floor as f64))
}

impl Counts {
    #[inline]
    fn count<N: Real>(&self, share: N, k: usize) -> u64 {
        let (floor, key) = floor_and_key(share);
        match self.pick {
            Pick::None => floor + self.base,
            Pick::Up { key: t, last } => {
                let up = !key < t || (!key == t && k <= last);
                floor + self.base + u64::from(up)
            }
            Pick::Down { sweeps, partial } => {
                let left = floor.saturating_sub(sweeps);
                let down = left > 0 && partial.is_some_and(|(t, last)| key < t || (key == t && k <= last));
                left - u64::from(down)
            }
        }
    }
}

/// The share at position `k` (fraction times items, in `N`).
#[inline]
fn share_at<N: Real>(cols: &Cols<'_>, k: usize, items: N) -> N {
    cols.real::<N>(col::FRAC, k) * items
}

/// The counting rule for `members` positions: floors, then largest remainders, adding up
/// to `items` exactly (each count within one item of its share when the shares add up to
/// `items`). `list` is [`select`]'s.
fn counts<N: Real>(items: u64, members: usize, cols: &Cols<'_>, list: &mut [Assignment<N>]) -> Counts {
    let items_n = N::from_u64(items);
    let mut total = 0u64;
    // The range of the keys `select` looks at when every count may go up, in the same pass.
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for k in 0..members {
        let (floor, key) = floor_and_key(share_at(cols, k, items_n));
        total = total.saturating_add(floor);
        lo = lo.min(!key);
        hi = hi.max(!key);
    }
    if members == 0 {
        return Counts { base: 0, pick: Pick::None };
    }
    if total <= items {
        // Shares add up to `items` within rounding, so normally `deficit < members` and
        // `base` is 0: each count is its floor or one more.
        let deficit = items - total;
        let m = members as u64;
        let (base, extra) = (deficit / m, deficit % m);
        if extra == 0 {
            return Counts { base, pick: Pick::None };
        }
        let every = Some((lo, hi, m));
        let (key, last) =
            select(members, extra, every, |k| Some(!floor_and_key(share_at(cols, k, items_n)).1), list);
        Counts { base, pick: Pick::Up { key, last } }
    } else {
        // Shares above `items` (only when rounding made them so): take from the smallest
        // remainders first, a sweep over every positive count at a time.
        let mut excess = total - items;
        let mut sweeps = 0u64;
        loop {
            let mut positive = 0u64;
            for k in 0..members {
                positive += u64::from(floor_and_key(share_at(cols, k, items_n)).0 > sweeps);
            }
            if positive == 0 || excess < positive {
                break;
            }
            excess -= positive;
            sweeps += 1;
        }
        let partial = (excess > 0).then(|| {
            select(
                members,
                excess,
                None,
                |k| {
                    let (floor, key) = floor_and_key(share_at(cols, k, items_n));
                    (floor > sweeps).then_some(key)
                },
                list,
            )
        });
        Counts { base: 0, pick: Pick::Down { sweeps, partial } }
    }
}

/// The `need`-th smallest `(key, k)` among the positions `k < n` that have a key
/// (`1 ≤ need ≤` their number): returns its key and position, so that the `need`
/// smallest are those below it in that order. Histograms on the keys' bits narrow the
/// range 2^8 buckets at a time; once the pair sought is the smallest or the largest of
/// its range (always so when one key is left in it), one more pass finds it.
///
/// Remainders spread over `[0, 1)` take five or six narrowing passes, and most keys leave
/// the range in the first (issue 12). So once the range holds at most `n/16` keys, the
/// pass lists their positions in `list` (the plan's records, not written yet: their
/// `displacement`, in increasing order), and the later passes read those alone instead
/// of all `n` keys. An empty `list` (or one shorter than `n`) keeps every pass over all.
/// `range`, when the caller has it: the smallest and largest key and how many there are.
fn select<N: Real>(
    n: usize,
    need: u64,
    range: Option<(u64, u64, u64)>,
    key: impl Fn(usize) -> Option<u64>,
    list: &mut [Assignment<N>],
) -> (u64, usize) {
    let (mut lo, mut hi, mut within) = range.unwrap_or((u64::MAX, 0, 0));
    if range.is_none() {
        for k in 0..n {
            if let Some(x) = key(k) {
                lo = lo.min(x);
                hi = hi.max(x);
                within += 1;
            }
        }
    }
    let can_list = list.len() >= n;
    // `Some(m)`: the keys still in range are among the positions in `list[..m]`.
    let mut listed: Option<usize> = None;
    let position = |list: &[Assignment<N>], listed: Option<usize>, t: usize| match listed {
        Some(_) => list.get(t).map_or(n, |a| a.displacement as usize),
        None => t,
    };
    let mut need = need;
    while lo < hi && need != 1 && need < within {
        let span_bits = u64::BITS - (hi - lo).leading_zeros();
        let bits = span_bits.min(8);
        let shift = span_bits - bits;
        let mut counts = [0u64; 1 << 8];
        let collect = listed.is_some() || (can_list && within <= n as u64 / 16);
        let mut m = 0;
        for t in 0..listed.unwrap_or(n) {
            let k = position(list, listed, t);
            if let Some(x) = key(k).filter(|&x| lo <= x && x <= hi) {
                if let Some(c) = counts.get_mut(((x - lo) >> shift) as usize) {
                    *c += 1;
                }
                // `m ≤ t`: a listed position is read before its slot is rewritten.
                if collect {
                    if let Some(a) = list.get_mut(m) {
                        a.displacement = k as u64;
                        m += 1;
                    }
                }
            }
        }
        if collect {
            listed = Some(m);
        }
        let mut below = 0u64;
        let mut chosen = 0u64;
        for (b, &c) in counts.iter().enumerate() {
            if below + c >= need {
                (chosen, within) = (b as u64, c);
                break;
            }
            below += c;
        }
        need -= below;
        let start = lo + (chosen << shift);
        hi = start.saturating_add((1u64 << shift) - 1).min(hi);
        lo = start;
    }
    // The largest pair of the range (its largest key, the last position holding it), or
    // the smallest (its smallest key, the first position); else one key value is left in
    // the range, and the `need`-th position holding it.
    let (largest, smallest) = (need >= within, need == 1);
    // The best pair so far and whether there is one, rather than an `Option`: the
    // optimiser may compare with the payload before testing the tag, a branch on the
    // uninitialised payload of `None` that valgrind reports (the C tests run under it).
    let (mut best, mut found, mut seen) = ((lo, n), false, 0u64);
    for t in 0..listed.unwrap_or(n) {
        let k = position(list, listed, t);
        let Some(x) = key(k).filter(|&x| lo <= x && x <= hi) else { continue };
        if largest || smallest {
            if !found || if largest { x >= best.0 } else { x < best.0 } {
                (best, found) = ((x, k), true);
            }
        } else if x == lo {
            seen += 1;
            if seen == need {
                return (lo, k);
            }
        }
    }
    best
}

/// What [`finish`] computed besides the plan records.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Finished<N> {
    /// The integer plan's makespan.
    pub makespan: N,
    /// The even split's makespan in the same orders.
    pub even_split: N,
    /// An `f64` above the exact makespan of the integer plan, by the argument in the
    /// module documentation.
    pub bound: f64,
    /// Members with a positive count.
    pub participating: usize,
    /// The certified bound's knapsack stops, if the send order sorted them ([`Stops`]).
    pub known: Option<[Option<f64>; KNAPSACKS]>,
}

/// Writes the plan: for each send position of the columns, the worker, its return rank,
/// rate (`fraction·ρ`) and share (`fraction·items`), its count (largest remainder), the
/// displacement and every time of the schedule (sends back to back in send order, compute
/// on arrival, each return as early as possible after its compute and the previous return;
/// half duplex: no return before the last send ends); the other workers get count 0 and
/// times 0. Evaluates on the way the even split (`items/p` each, one more for the first
/// `items mod p`, in the same orders, the other workers returning last in send order)
/// and the bound of the module documentation.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish<N: Real>(
    items: u64,
    port: Port,
    rho: N,
    members: usize,
    returns: Returns,
    out: &mut [Assignment<N>],
    cols: &mut Cols<'_>,
) -> Finished<N> {
    let p = cols.len();
    let items_n = N::from_u64(items);
    // The records are free until written below, except an LP scenario's return ranks.
    let list: &mut [Assignment<N>] = if returns == Returns::Ranks { &mut [] } else { out };
    let rule = counts::<N>(items, members, cols, list);
    let count_at = |cols: &Cols<'_>, k: usize| rule.count(share_at(cols, k, items_n), k);
    let even = |k: usize| {
        let (q, r) = (items.checked_div(p as u64), items.checked_rem(p as u64));
        q.unwrap_or(0) + u64::from(r.is_some_and(|r| (k as u64) < r))
    };
    let half = port == Port::HalfDuplex;

    // Half duplex: no return before the last send ends, so returns evaluated in the
    // forward pass need the send totals first.
    let (mut sent_all, mut sent_all_even) = (N::ZERO, N::ZERO);
    if half && returns != Returns::Reverse {
        for k in 0..p {
            let c = cols.real::<N>(col::C, k);
            if k < members {
                sent_all = sent_all + c * N::from_u64(count_at(cols, k));
            }
            sent_all_even = sent_all_even + c * N::from_u64(even(k));
        }
    }

    let (mut sent, mut sent_even) = (N::ZERO, N::ZERO);
    let (mut t, mut t_even) = (sent_all, sent_all_even);
    // The bound's chains (module documentation): sends, and returns from the last.
    let (mut sent_bound, mut back, mut worst) = (0.0f64, 0.0f64, 0.0f64);
    let (mut offset, mut participating) = (0u64, 0usize);
    // Every send position is visited in order below: the bound's knapsacks whose weights
    // follow that order find their stops here, without passes of their own.
    let mut stops = Stops::new();

    for k in 0..members.min(p) {
        let worker = cols.index(col::WORKER, k);
        let (c, w, d) = (cols.real::<N>(col::C, k), cols.real::<N>(col::W, k), cols.real::<N>(col::D, k));
        stops.visit(&ReturnWorker::new(c, w, d));
        let fraction = cols.real::<N>(col::FRAC, k);
        let share = fraction * items_n;
        let count = rule.count(share, k);
        let n = N::from_u64(count);
        let received = sent + c * n;
        let computed = received + w * n;
        let n_even = N::from_u64(even(k));
        let received_even = sent_even + c * n_even;
        let done_even = received_even + w * n_even;
        let y = bound_items(share, count);
        // A share of 0 makes `y` the smallest subnormal: `mul_subnormal` keeps the chains'
        // products off the FPU's slow path, bit for bit.
        sent_bound = next_up(sent_bound + next_up(mul_subnormal(y, c.to_f64())));
        let key = next_up(sent_bound + next_up(mul_subnormal(y, w.to_f64())));
        let rank = match returns {
            Returns::Reverse => members - 1 - k,
            Returns::Same => k,
            Returns::Ranks => out.get(k).and_then(|a| a.return_rank).unwrap_or(k),
        };
        let mut a = Assignment {
            worker,
            return_rank: Some(rank),
            rate: fraction * rho,
            share,
            count,
            displacement: offset,
            send_start: sent,
            received,
            computed,
            ..Assignment::EMPTY
        };
        match returns {
            Returns::Same => {
                let start = t.max_of(computed);
                t = start + d * n;
                (a.return_start, a.return_end, a.idle) = (start, t, start - computed);
                t_even = t_even.max_of(done_even) + d * n_even;
                // For the bound's returns, which run from the last.
                cols.set(col::C, k, y.to_bits());
                cols.set(col::W, k, key.to_bits());
            }
            Returns::Reverse => {
                // Returns from the last are send positions from the first.
                worst = worst.max(return_bound(&mut back, y, d.to_f64(), key));
                cols.set_real(col::C, k, done_even);
            }
            Returns::Ranks => {
                // What the return pass needs, in the columns this pass has read: no
                // arrays of `MAX_LP_WORKERS` on the stack (issue 15: firmware stacks).
                cols.set_real(col::C, k, done_even);
                cols.set(col::W, k, key.to_bits());
            }
        }
        if let Some(o) = out.get_mut(k) {
            *o = a;
        }
        sent = received;
        sent_even = received_even;
        offset += count;
        participating += usize::from(count > 0);
    }

    match returns {
        Returns::Same => {
            for k in (0..members.min(p)).rev() {
                let y = f64::from_bits(cols.get(col::C, k));
                let key = f64::from_bits(cols.get(col::W, k));
                worst = worst.max(return_bound(&mut back, y, cols.real::<N>(col::D, k).to_f64(), key));
            }
        }
        Returns::Reverse => {
            if half {
                (t, t_even) = (sent, sent_even);
            }
            for k in (0..members.min(p)).rev() {
                return_next(k, even(k), (&mut t, &mut t_even), out, cols);
            }
        }
        Returns::Ranks => {
            // Each member's position by return rank, where the fractions were.
            let m = members.min(MAX_LP_WORKERS).min(p);
            for k in 0..m {
                if let Some(rank) = out.get(k).and_then(|a| a.return_rank) {
                    cols.set(col::FRAC, rank, k as u64);
                }
            }
            for rank in 0..m {
                let k = cols.index(col::FRAC, rank);
                return_next(k, even(k), (&mut t, &mut t_even), out, cols);
            }
            for rank in (0..m).rev() {
                let k = cols.index(col::FRAC, rank);
                let Some(a) = out.get(k) else { continue };
                let key = f64::from_bits(cols.get(col::W, k));
                let y = bound_items(a.share, a.count);
                worst = worst.max(return_bound(&mut back, y, cols.real::<N>(col::D, k).to_f64(), key));
            }
        }
    }
    if half {
        worst = worst.max(next_up(sent_bound + back));
    }

    // The other workers: count 0, returning last in send order in the even split.
    for k in members.min(p)..p {
        let (c, w, d) = (cols.real::<N>(col::C, k), cols.real::<N>(col::W, k), cols.real::<N>(col::D, k));
        stops.visit(&ReturnWorker::new(c, w, d));
        let n_even = N::from_u64(even(k));
        let received_even = sent_even + c * n_even;
        let done_even = received_even + w * n_even;
        sent_even = received_even;
        t_even = t_even.max_of(done_even) + d * n_even;
        if let Some(o) = out.get_mut(k) {
            *o = Assignment { worker: cols.index(col::WORKER, k), displacement: offset, ..Assignment::EMPTY };
        }
    }
    Finished { makespan: t, even_split: t_even, bound: worst, participating, known: stops.all() }
}

/// Position `k` returns next: from the end of its compute or of the previous return
/// (`t`), whichever is later; and the same in the even split (`even` items, computed by
/// the time in `col::C`).
#[inline]
fn return_next<N: Real>(
    k: usize,
    even: u64,
    (t, t_even): (&mut N, &mut N),
    out: &mut [Assignment<N>],
    cols: &Cols<'_>,
) {
    let d = cols.real::<N>(col::D, k);
    if let Some(a) = out.get_mut(k) {
        let start = t.max_of(a.computed);
        *t = start + d * N::from_u64(a.count);
        (a.return_start, a.return_end, a.idle) = (start, *t, start - a.computed);
    }
    *t_even = t_even.max_of(cols.real::<N>(col::C, k)) + d * N::from_u64(even);
}

/// One more return on the bound's chain from the last (module documentation): `back`
/// grows by `d·y` rounded up, and the row through this position ends at `key + back`,
/// rounded up.
#[inline]
fn return_bound(back: &mut f64, y: f64, d: f64, key: f64) -> f64 {
    *back = next_up(*back + next_up(mul_subnormal(y, d)));
    next_up(key + *back)
}

/// `y = s + e` of the module documentation for one position, rounded up: the share
/// (clamped at 0) plus one if the count is above its floor.
#[inline]
fn bound_items<N: Real>(share: N, count: u64) -> f64 {
    let s = share.to_f64().max(0.0);
    let extra = count.saturating_sub(s as u64);
    next_up(s + extra as f64)
}

/// The bound of [`finish`] in `N`, safe to compare with the makespan `N` computes.
pub(crate) fn bound_for<N: Real>(x: f64, positions: usize) -> N {
    fp::upper_for::<N>(x, 0, evaluation_ops(positions))
}

#[cfg(test)]
mod tests {
    use super::select;
    use crate::returns::types::Assignment;

    /// The pair a full sort of `(key, k)` puts at place `need`.
    fn sorted(keys: &[Option<u64>], need: u64) -> (u64, usize) {
        let mut pairs: [(u64, usize); 64] = [(0, 0); 64];
        let mut m = 0;
        for (k, x) in keys.iter().enumerate() {
            if let Some(x) = *x {
                pairs[m] = (x, k);
                m += 1;
            }
        }
        pairs[..m].sort_unstable();
        pairs[need as usize - 1]
    }

    /// The list at the scale it is for: most keys alike (the zero shares of a LIFO plan)
    /// and a few hundred spread over 2⁴⁰, so that several passes read the list alone and
    /// rewrite it in place. Slots start as a position out of range, which reads as no key:
    /// a slot read before it is written loses a candidate and fails the comparison.
    #[test]
    fn select_reads_its_list_over_several_passes() {
        let mut next = crate::num::xorshift(0x5eed);
        let n = 4000;
        let mut keys = std::vec![Some(u64::MAX - 5); n];
        for _ in 0..200 {
            let at = (next() % n as u64) as usize;
            keys[at] = Some(1000 + next() % (1 << 40));
        }
        let mut pairs: std::vec::Vec<(u64, usize)> =
            keys.iter().enumerate().filter_map(|(k, x)| x.map(|x| (x, k))).collect();
        pairs.sort_unstable();
        let key = |k: usize| keys.get(k).copied().flatten();
        for need in (1..=230).chain([1000, 3999, 4000]) {
            let mut list = std::vec![Assignment::<f64> { displacement: u64::MAX, ..Assignment::EMPTY }; n];
            let got = select(n, need, None, key, &mut list);
            assert_eq!(got, pairs[need as usize - 1], "need {need}");
            if (2..=190).contains(&need) {
                assert!(list[0].displacement < n as u64, "need {need}: nothing listed");
            }
        }
    }

    #[test]
    fn select_agrees_with_a_sort_on_every_rank() {
        let mut next = crate::num::xorshift(0x9e37_79b9_7f4a_7c15);
        for case in 0..3000 {
            let n = 1 + (next() % 64) as usize;
            let mut keys = [None; 64];
            // Spreads from one repeated value to the whole word, keys missing at random:
            // every exit (one key left, the smallest, the largest of a range) is reached.
            let spread = 1u64 << (next() % 64);
            let base = next();
            for x in keys.iter_mut().take(n) {
                if next() % 5 != 0 || case % 7 == 0 {
                    *x = Some(base.wrapping_add(next() % spread));
                }
            }
            let have = keys[..n].iter().flatten().count() as u64;
            for need in 1..=have {
                let want = sorted(&keys[..n], need);
                let mut list = [Assignment::<f64>::EMPTY; 64];
                let given = keys[..n]
                    .iter()
                    .flatten()
                    .fold((u64::MAX, 0, 0), |(lo, hi, m), &x| (lo.min(x), hi.max(x), m + 1));
                for range in [None, Some(given)] {
                    let mut got = select::<f64>(n, need, range, |k| keys[k], &mut []);
                    assert_eq!(got, want, "{:?} need {need}", &keys[..n]);
                    got = select(n, need, range, |k| keys[k], &mut list[..n]);
                    assert_eq!(got, want, "{:?} need {need}", &keys[..n]);
                }
            }
        }
    }
}
