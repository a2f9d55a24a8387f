//! Rounding rational shares to integer counts with an exact sum.
//!
//! All three schemes give counts `n'ᵢ` with `Σ n'ᵢ = n` exactly and `|n'ᵢ − nᵢ| < 1`, so the
//! guarantee of genaud2003 eq. (4) holds for each: `T' ≤ T + Σⱼ T_comm(j, 1) +
//! maxᵢ T_comp(i, 1)`. A share that is exactly 0 stays 0.
//!
//! * [`Rounding::Paper`](crate::Rounding::Paper) — §3.3. The paper ends with
//!   `n'_k = n_k + e`; with `e = Σ (n'ⱼ − nⱼ)` over the shares already rounded, an exact
//!   sum needs `n'_k = n_k − e`. Here the last count is `n − Σ others` in integers.
//! * [`Rounding::LargestRemainder`](crate::Rounding::LargestRemainder) — floors, then +1 to
//!   the largest fractional parts.
//! * [`Rounding::Greedy`](crate::Rounding::Greedy) — floors, then each left-over item to
//!   the worker whose +1 gives the smallest makespan, counting the delay it causes to every
//!   worker served after it. A tree of the candidates keeps each node's minimum in terms
//!   local to it, which items taken elsewhere do not change, so each item is one walk
//!   down and back up: O(p log p). Where many candidates are within rounding of each other
//!   the search looks at each, and on platforms of many alike workers that is O(p²): a
//!   budget of node visits bounds the work, and the items left then go by largest
//!   remainder ([`GREEDY_VISITS_PER_WORKER`]).
//!
//! Scratch: the send order and shares are read from the plan, the costs at each position
//! from the columns the send order wrote (`col::LAMBDA`, `col::MU`); the other scratch
//! columns hold the sorted fractional parts, or the greedy's tree (`types::col`).

use crate::kernel::columns::{Columns, SortColumns};
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::Rounding;
use crate::scatter::rows::Rows;
use crate::scatter::types::{col, Costs, Scratch};

type Cols<'a, 'b, N> = &'a mut Columns<'b, Scratch<N>>;

/// Where the fractional parts are sorted: by their sort key, carrying the position.
const FRAC_SORT: SortColumns = SortColumns {
    key: col::FRAC_KEY,
    value: col::FRAC_POS,
    extra: None,
    counts: col::FRAC_COUNTS,
    spare: col::FRAC_SPARE,
    // Fractions in [0, 1), over many powers of two.
    spread: false,
};

/// Rounds `plan[..].share` into `plan[..].count`. Shares must be finite, ≥ 0, and add up to
/// `items` within 0.5 (checked by the public entry points).
pub(crate) fn round<N: Real, R: Rows<N> + ?Sized>(
    scheme: Rounding,
    costs: &Costs<'_, N>,
    items: u64,
    plan: &mut R,
    cols: Cols<'_, '_, N>,
) {
    let floors = set_floors(items, plan);
    let left = items.saturating_sub(floors);
    match scheme {
        Rounding::Paper => paper(items, plan, cols),
        Rounding::LargestRemainder => {
            if floors + largest_remainder(left, plan, cols) == items {
                return;
            }
        }
        Rounding::Greedy => {
            let rest = greedy(costs, left, plan, cols);
            // The greedy's budget ran out: the items left go to the largest remainders
            // among the shares it has not raised (those it raised have a negative one).
            largest_remainder(rest, plan, cols);
        }
    }
    fix_sum(items, plan);
}

/// Sets every count to the floor of its share; returns the sum of the floors (≤ `items`).
fn set_floors<N: Real, R: Rows<N> + ?Sized>(items: u64, plan: &mut R) -> u64 {
    let mut sum = 0u64;
    for k in 0..plan.len() {
        let count = plan.share(k).floor_u64().min(items.saturating_sub(sum));
        plan.set_count(k, count);
        sum += count;
    }
    sum
}

#[inline]
fn frac<N: Real, R: Rows<N> + ?Sized>(plan: &R, k: usize) -> N {
    plan.share(k) - N::from_u64(plan.count(k))
}

#[inline]
fn raise<N: Real, R: Rows<N> + ?Sized>(plan: &mut R, k: usize) {
    plan.set_count(k, plan.count(k) + 1);
}

/// Sorts the positions by increasing fractional part, ties by position, into the columns
/// `FRAC_KEY` (the fraction's sort key) and `FRAC_POS` (position).
fn sort_by_fraction<N: Real, R: Rows<N> + ?Sized>(plan: &R, cols: Cols<'_, '_, N>) {
    cols.sort(
        plan.len(),
        0,
        FRAC_SORT,
        |_, k| {
            let f = frac(plan, k);
            [f.sort_key(), k as u64, 0]
        },
        |cols, x, y| cols.get(col::FRAC_POS, x).cmp(&cols.get(col::FRAC_POS, y)),
    );
}

fn paper<N: Real, R: Rows<N> + ?Sized>(items: u64, plan: &mut R, cols: Cols<'_, '_, N>) {
    let p = plan.len();
    if p == 0 {
        return;
    }
    sort_by_fraction(plan, cols);
    let (mut lo, mut hi) = (0usize, p - 1);
    let mut e = N::ZERO; // Σ (n'ⱼ − nⱼ) over the shares rounded so far
    while lo < hi {
        let (f_lo, f_hi) =
            (N::from_sort_key(cols.get(col::FRAC_KEY, lo)), N::from_sort_key(cols.get(col::FRAC_KEY, hi)));
        let up = if e < N::ZERO {
            true
        } else if e > N::ZERO {
            false
        } else {
            // Start, or an exact running sum: round the share nearest to an integer.
            N::ONE - f_hi < f_lo
        };
        if up {
            let k = cols.index(col::FRAC_POS, hi);
            if f_hi > N::ZERO {
                raise(plan, k);
                e = e + (N::ONE - f_hi);
            }
            hi -= 1;
        } else {
            e = e - f_lo;
            lo += 1;
        }
    }
    // The last share takes what is left: n'_k = n_k − e, computed exactly in integers.
    let last = cols.index(col::FRAC_POS, lo);
    let others: u64 = (0..p).filter(|&k| k != last).map(|k| plan.count(k)).sum();
    let last_count = plan.count(last);
    match items.checked_sub(others) {
        Some(c) if c <= last_count + 1 => plan.set_count(last, c),
        // Only reachable if floating-point noise broke |e| < 1: fall back to a scheme whose
        // sum is exact by construction.
        _ => {
            let floors = set_floors(items, plan);
            largest_remainder(items.saturating_sub(floors), plan, cols);
        }
    }
}

/// +1 to the `left` largest fractional parts (ties: the later position), none to a
/// fraction of 0; returns how many it gave. Not a sort but a selection: a histogram of the
/// fractions, the bucket where the `left`-th largest falls, and a sort of that bucket
/// alone; two passes over the plan.
fn largest_remainder<N: Real, R: Rows<N> + ?Sized>(left: u64, plan: &mut R, cols: Cols<'_, '_, N>) -> u64 {
    let p = plan.len();
    if left == 0 || p == 0 {
        return 0;
    }
    // About a hundred fractions per bucket, so that the counts (at most 2^13 of them,
    // 64 KiB) stay in cache while they are counted; the one bucket that is then sorted
    // is small.
    let bits = (usize::BITS - 1 - p.leading_zeros()).saturating_sub(7).min(13);
    let top = (1usize << bits) - 1;
    let bucket = |f: N| {
        // Monotone in f, and linear in it: fractions are spread evenly over [0, 1), which
        // their bit patterns are not. A count clamped below its floor leaves a fraction
        // of 1 or more, which goes to the top bucket.
        let x = f.to_f64() * (top + 1) as f64;
        if x >= top as f64 {
            top
        } else if x > 0.0 {
            x as usize
        } else {
            0
        }
    };
    for b in 0..=top {
        cols.set(col::FRAC_COUNTS, b, 0);
    }
    for k in 0..p {
        let f = frac(plan, k);
        if f > N::ZERO {
            let b = bucket(f);
            let v = cols.get(col::FRAC_COUNTS, b);
            cols.set(col::FRAC_COUNTS, b, v + 1);
        }
    }
    // The bucket holding the left-th largest fraction, and how many it must give.
    let (mut above, mut cut) = (0u64, None);
    for b in (0..=top).rev() {
        let here = cols.get(col::FRAC_COUNTS, b);
        if above + here >= left {
            cut = Some((b, left - above));
            break;
        }
        above += here;
    }
    let Some((cut, need)) = cut else {
        // Fewer positive fractions than items left (floating-point noise): +1 to each.
        for k in 0..p {
            if frac(plan, k) > N::ZERO {
                raise(plan, k);
            }
        }
        return above;
    };
    let mut members = 0usize;
    for k in 0..p {
        let f = frac(plan, k);
        // A fraction of 0 (or below, from a clamped count) goes to bucket 0, never above
        // the cut, which holds a positive fraction at least.
        let b = if f > N::ZERO { bucket(f) } else { 0 };
        // Half the fractions lie above the cut, at random: an add, not a branch.
        plan.set_count(k, plan.count(k) + u64::from(b > cut));
        if b == cut && f > N::ZERO {
            cols.set(col::FRAC_SPARE[0], members, f.sort_key());
            cols.set(col::FRAC_SPARE[1], members, k as u64);
            members += 1;
        }
    }
    cols.sort(
        members,
        0,
        FRAC_SORT,
        |cols, j| [cols.get(col::FRAC_SPARE[0], j), cols.get(col::FRAC_SPARE[1], j), 0],
        |cols, x, y| cols.get(col::FRAC_POS, x).cmp(&cols.get(col::FRAC_POS, y)),
    );
    for j in (members - need as usize..members).rev() {
        let k = cols.index(col::FRAC_POS, j);
        if k < p {
            raise(plan, k);
        }
    }
    left
}

/// Makes the counts add up to `items` exactly. A no-op unless floating-point noise made the
/// shares add up to slightly less or more than `items`; then the largest count absorbs it.
fn fix_sum<N: Real, R: Rows<N> + ?Sized>(items: u64, plan: &mut R) {
    let sum: u64 = (0..plan.len()).fold(0u64, |s, k| s.saturating_add(plan.count(k)));
    if sum == items {
        return;
    }
    // The largest count, the first among equals.
    let mut big: Option<(usize, u64)> = None;
    for k in 0..plan.len() {
        let c = plan.count(k);
        if big.is_none_or(|(_, b)| c > b) {
            big = Some((k, c));
        }
    }
    let Some((k, c)) = big else { return };
    plan.set_count(k, if sum < items { c + (items - sum) } else { c.saturating_sub(sum - items) });
}

/// Node visits the greedy may spend: [`GREEDY_VISITS_PER_WORKER`] per worker, and at least
/// [`GREEDY_VISITS_MIN`].
///
/// Why a budget: an item normally costs one walk down the tree (seven levels at 10⁶
/// workers), but where many candidates are within rounding of the best one the search
/// must look at each of them, and on platforms of many alike workers that is most of them
/// for every item (O(p²) in all). The budget bounds that; the items left then go by
/// largest remainder.
const GREEDY_VISITS_PER_WORKER: u64 = 32;
const GREEDY_VISITS_MIN: u64 = 1 << 22;

#[cfg(test)]
std::thread_local! {
    /// A smaller budget for this thread's plans, so that a unit test reaches the fallback
    /// on a small platform.
    static BUDGET: core::cell::Cell<Option<u64>> = const { core::cell::Cell::new(None) };
}

fn greedy_budget(p: usize) -> u64 {
    #[cfg(test)]
    if let Some(b) = BUDGET.with(core::cell::Cell::get) {
        return b;
    }
    (p as u64).saturating_mul(GREEDY_VISITS_PER_WORKER).max(GREEDY_VISITS_MIN)
}

/// Places up to `left` items one at a time; returns how many it left when its budget of
/// node visits ran out (0 otherwise, also when floating-point noise left fewer fractional
/// shares than items: [`fix_sum`] handles those).
///
/// Each item goes to the candidate whose +1 gives the smallest makespan; among equal
/// makespans the smaller own finish time (which favours the shares that lost most to the
/// floor), then the later position. The values compared are those of [`Tree`]: sums of
/// the same terms as the exact times, rounded in the tree's order, so that where two
/// candidates are within rounding of each other the one taken is decided by those sums.
fn greedy<N: Real, R: Rows<N> + ?Sized>(
    costs: &Costs<'_, N>,
    left: u64,
    plan: &mut R,
    cols: Cols<'_, '_, N>,
) -> u64 {
    let p = plan.len();
    if left == 0 || p == 0 {
        return 0;
    }
    let mut budget = greedy_budget(p);
    let mut tree = Tree::new(cols, p);
    let mut sent = N::ZERO;
    for k in 0..p {
        let w = costs.at(tree.c, k, || plan.worker(k));
        let count = plan.count(k);
        let x = N::from_u64(count);
        let recv = w.comm_time(x);
        // A non-participant's leaf is its start time: never above the makespan, so
        // harmless in a maximum.
        let last = if count > 0 { sent + recv + w.comp_time(x) } else { sent };
        sent = sent + recv;
        let (rise, delay) = rise_and_delay(&w, count);
        let own = last + rise;
        // A candidate whose finish time with the item overflows is none: the tree could
        // not tell it from one already taken (`Tree::taken`), and the item would overflow
        // the plan.
        let (own, min_delay) = if frac(plan, k) > N::ZERO && own.is_finite() {
            (own, delay)
        } else {
            (N::INFINITY, N::INFINITY)
        };
        tree.set(0, k, Node { own, last, delay: N::ZERO, min_delay });
    }
    tree.build();

    let (mut left, mut spent) = (left, false);
    // The search's stack, set up once: each search writes a level's frame before reading it.
    let mut frames = [Frame::ROOT; LEVELS];
    while left > 0 {
        match tree.best(&mut frames, &mut budget) {
            Search::Found(k) => tree.take(k),
            Search::None => break,
            Search::OutOfBudget => {
                spent = true;
                break;
            }
        }
        left -= 1;
    }
    // The counts are raised here, in one pass, rather than as the items are taken: a
    // plan record read at random costs as much as the search.
    for k in 0..p {
        if tree.taken(k) {
            raise(plan, k);
        }
    }
    if spent {
        return left;
    }
    // Items still left here mean floating-point noise left fewer fractional shares than
    // left-over items; `fix_sum` gives them to the largest share.
    0
}

/// What one more item costs a position holding `count` items: the rise of its own finish
/// time, and the delay to every later position.
fn rise_and_delay<N: Real>(w: &Worker<N>, count: u64) -> (N, N) {
    if count > 0 {
        (w.comm_per_item + w.comp_per_item, w.comm_per_item)
    } else {
        (
            w.comm_latency + w.comm_per_item + w.comp_latency + w.comp_per_item,
            w.comm_latency + w.comm_per_item,
        )
    }
}

/// Children per node of the greedy's tree: eight 32-byte nodes are four cache lines read
/// together, and 10⁶ positions need seven levels.
const FAN: usize = 8;
/// Levels at most, the positions included: enough for every `usize` count (twelve on
/// 32-bit targets, where the search's stack of frames is on a microcontroller's stack).
const LEVELS: usize = (usize::BITS as usize).div_ceil(FAN.trailing_zeros() as usize) + 1;
/// How far, in units of the type's rounding, a candidate's finish time computed down the
/// tree may lie below the minimum its node holds (the same non-negative terms, at most
/// `FAN · LEVELS + 1` of them, added in another order: each sum is within that many
/// roundings of the exact one).
const SLACK: f64 = 2.0 * (FAN * LEVELS + 2) as f64;

/// A node of the greedy's tree, in local terms: times as if no item had been taken before
/// the node's first position. A position's true times are its leaf's plus the delays of
/// the items taken before it.
#[derive(Clone, Copy)]
struct Node<N> {
    /// The smallest finish time that a candidate below would have with its extra item
    /// ([`Real::INFINITY`]: no candidate left below).
    own: N,
    /// The latest finish time below.
    last: N,
    /// The delay that the items taken below cause to every later position.
    delay: N,
    /// The smallest delay that a candidate below causes by taking its item. Candidates
    /// already taken still count, so it never changes and stays a lower bound.
    min_delay: N,
}

impl<N: Real> Node<N> {
    /// A node over no position: no candidate, nothing finishing, no delay.
    const EMPTY: Self = Node { own: N::INFINITY, last: N::ZERO, delay: N::ZERO, min_delay: N::INFINITY };

    /// Whether a candidate is left below.
    #[inline]
    fn open(&self) -> bool {
        self.own < N::INFINITY
    }
}

enum Search {
    Found(usize),
    None,
    OutOfBudget,
}

/// The best candidate found so far.
#[derive(Clone, Copy)]
struct Best<N> {
    makespan: N,
    own: N,
    pos: usize,
}

/// Where the search stands at one level: the node, the delays before its first position,
/// the latest finish time after its last one, and which of its children it has entered.
#[derive(Clone, Copy)]
struct Frame<N> {
    node: usize,
    before: N,
    after: N,
    seen: u32,
    /// A bound (floor, own finish, as in [`may_win`]) on the children neither entered nor
    /// ruled out when it was last read; `None`: there are none.
    rest: Option<(N, N)>,
}

impl<N: Real> Frame<N> {
    /// The top of a search: the root, nothing before or after it, no child entered.
    const ROOT: Self = Frame { node: 0, before: N::ZERO, after: N::ZERO, seen: 0, rest: None };
}

/// The candidates as a tree of [`FAN`] children per node, level by level in the scratch
/// columns from `col::TREE` on (four words a node; the positions are level 0).
///
/// Why not a heap of candidates: every item delays all later positions, so the keys of a
/// heap go stale by more than the gaps between them, and each item cost about eight
/// re-evaluations of two queries each on a 10⁶-leaf binary segment tree (7.6–9.3 s at
/// 10⁶ workers). Here a node keeps its minimum in local terms, which the items taken
/// elsewhere do not change, so the best candidate is one walk down: at each level the
/// child whose lower bound is smallest, and the walk back up prunes the others against
/// the candidate found (the bound of a node: the makespan now, its smallest own finish,
/// and the latest finish after it plus its smallest delay).
struct Tree<'a, 'b, N> {
    c: Cols<'a, 'b, N>,
    /// [`SLACK`] roundings, relative and absolute, in `N` (rounded up).
    slack: (N, N),
    /// Words before the first node, so that every node lies in one scratch record (whose
    /// eight words are then read as one).
    pad: usize,
    /// The first node of each level, and one past the last of the top level.
    start: [usize; LEVELS + 1],
    /// Levels, the positions included (1: a single position, its own root).
    levels: usize,
}

impl<'a, 'b, N: Real> Tree<'a, 'b, N> {
    /// The levels for `p ≥ 1` positions: `p + ⌈p/8⌉ + … + 1` nodes, which the six columns
    /// from `col::TREE` on hold after the padding (`greedy_tree_fits_its_columns`).
    fn new(c: Cols<'a, 'b, N>, p: usize) -> Self {
        let pad = (4 - (col::TREE * c.len()) % 4) % 4;
        let mut start = [0; LEVELS + 1];
        let (mut len, mut at, mut levels) = (p, 0, 0);
        while levels < LEVELS {
            at += len;
            levels += 1;
            if let Some(s) = start.get_mut(levels) {
                *s = at;
            }
            if len <= 1 {
                break;
            }
            len = len.div_ceil(FAN);
        }
        let slack = (N::from_f64_above(N::ROUNDOFF * SLACK), N::from_f64_above(N::QUANTUM * SLACK));
        Tree { c, slack, pad, start, levels }
    }

    fn first(&self, level: usize) -> usize {
        self.start.get(level).copied().unwrap_or(0)
    }

    fn len(&self, level: usize) -> usize {
        self.first(level + 1).saturating_sub(self.first(level))
    }

    #[inline]
    fn get(&self, level: usize, j: usize) -> Node<N> {
        let [own, last, delay, min_delay] = self.c.quad(col::TREE, self.pad + 4 * (self.first(level) + j));
        Node {
            own: N::from_word(own),
            last: N::from_word(last),
            delay: N::from_word(delay),
            min_delay: N::from_word(min_delay),
        }
    }

    #[inline]
    fn set(&mut self, level: usize, j: usize, n: Node<N>) {
        let w = self.pad + 4 * (self.first(level) + j);
        self.c.set_quad(
            col::TREE,
            w,
            [n.own.to_word(), n.last.to_word(), n.delay.to_word(), n.min_delay.to_word()],
        );
    }

    /// One past the last word the tree uses, counted from the start of `col::TREE`.
    #[cfg(test)]
    fn end(&self) -> usize {
        self.pad + 4 * self.first(self.levels)
    }

    /// The children of node `j` of `level ≥ 1`, and how many there are. Inlined where
    /// speed counts (its array returned by a copy was 6 % of a 10⁶-worker greedy); not in
    /// the size-optimised wasm module, where three copies cost 400 bytes.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn children(&self, level: usize, j: usize) -> ([Node<N>; FAN], usize) {
        let below = level.saturating_sub(1);
        let lo = FAN * j;
        let m = self.len(below).saturating_sub(lo).min(FAN);
        let mut out = [Node::<N>::EMPTY; FAN];
        for (i, o) in out.iter_mut().enumerate().take(m) {
            *o = self.get(below, lo + i);
        }
        (out, m)
    }

    /// Node `j` of `level ≥ 1` from its children.
    fn combine(&mut self, level: usize, j: usize) {
        let (kids, m) = self.children(level, j);
        let mut n = Node::<N>::EMPTY;
        for c in kids.iter().take(m) {
            // A closed child's own is infinite, and so is the delay plus it (`Q32` saturates):
            // the same minimum without a branch.
            n.own = n.own.min_of(n.delay + c.own);
            n.last = n.last.max_of(n.delay + c.last);
            n.delay = n.delay + c.delay;
            n.min_delay = n.min_delay.min_of(c.min_delay);
        }
        self.set(level, j, n);
    }

    fn build(&mut self) {
        for level in 1..self.levels {
            for j in 0..self.len(level) {
                self.combine(level, j);
            }
        }
    }

    /// Whether position `k` was given its item: no longer a candidate, though it was one
    /// (its smallest delay is finite: candidates' finish times with the item are finite,
    /// so their delays are too).
    fn taken(&self, k: usize) -> bool {
        let n = self.get(0, k);
        !n.open() && n.min_delay < N::INFINITY
    }

    /// Gives position `k` its item: its finish time becomes the one it was a candidate
    /// with, and it delays every later position.
    fn take(&mut self, k: usize) {
        let n = self.get(0, k);
        self.set(0, k, Node { own: N::INFINITY, last: n.own, delay: n.min_delay, min_delay: n.min_delay });
        let mut j = k;
        for level in 1..self.levels {
            j /= FAN;
            self.combine(level, j);
        }
    }

    /// The best candidate (see [`greedy`]), by branch and bound from the top: a child is
    /// entered while its bound may still beat the best candidate found, smallest bound
    /// first. Each node read costs one unit of `budget`.
    ///
    /// A child's bound is its smallest own finish time and its floor, the makespan now and
    /// the latest finish after it plus its smallest delay. For a position these are exactly
    /// the makespan its item would give and its own finish time then, so leaves are judged
    /// by the same two numbers.
    fn best(&mut self, frames: &mut [Frame<N>; LEVELS], budget: &mut u64) -> Search {
        let top = self.levels.saturating_sub(1);
        let root = self.get(top, 0);
        if !root.open() {
            return Search::None;
        }
        let now = root.last;
        if top == 0 {
            return Search::Found(0);
        }
        if let Some(f) = frames.get_mut(top) {
            *f = Frame::ROOT;
        }
        let mut best: Option<Best<N>> = None;
        let mut level = top;
        while let Some(f) = frames.get(level).copied() {
            // Back from a child, the bound kept for the children not entered usually
            // settles the rest without reading them again.
            let may = |(floor, own): (N, N), best: &Option<Best<N>>| {
                best.is_none_or(|b| may_win(floor, own, self.slack, &b))
            };
            if f.seen == 0 || f.rest.is_some_and(|r| may(r, &best)) {
                if *budget == 0 {
                    return Search::OutOfBudget;
                }
                *budget -= 1;
                let (kids, m) = self.children(level, f.node);
                let mut before = [N::ZERO; FAN];
                let mut run = f.before;
                for (b, c) in before.iter_mut().zip(&kids).take(m) {
                    *b = run;
                    run = run + c.delay;
                }
                // Each child's bound, from the last child back (the latest finish after it).
                let (mut floor, mut own, mut after) = ([N::ZERO; FAN], [N::ZERO; FAN], [N::ZERO; FAN]);
                let mut open = 0u32;
                let mut latest = f.after;
                for i in (0..m).rev() {
                    if let (Some(c), Some(&b)) = (kids.get(i), before.get(i)) {
                        if c.open() {
                            open |= 1 << i;
                        }
                        if let (Some(fl), Some(o), Some(a)) =
                            (floor.get_mut(i), own.get_mut(i), after.get_mut(i))
                        {
                            *fl = now.max_of(latest + c.min_delay);
                            *o = c.own + b;
                            *a = latest;
                        }
                        latest = latest.max_of(b + c.last);
                    }
                }
                let mut next: Option<(usize, Best<N>, N)> = None;
                let mut rest: Option<(N, N)> = None;
                for (i, (&floor, &own)) in floor.iter().zip(&own).enumerate() {
                    if (open & !f.seen) & (1 << i) == 0 || !may((floor, own), &best) {
                        continue;
                    }
                    let here = Best { makespan: floor.max_of(own), own, pos: FAN * f.node + i };
                    if level == 1 {
                        if best.is_none_or(|b| better(&here, &b)) {
                            best = Some(here);
                        }
                        continue;
                    }
                    // Of this child and the one to enter so far, the other joins the bound
                    // on the rest.
                    let other = match next {
                        Some((_, n, n_floor)) if better(&here, &n) => {
                            next = Some((i, here, floor));
                            (n_floor, n.own)
                        }
                        Some(_) => (floor, own),
                        None => {
                            next = Some((i, here, floor));
                            continue;
                        }
                    };
                    rest = Some(rest.map_or(other, |(rf, ro)| (rf.min_of(other.0), ro.min_of(other.1))));
                }
                if let Some((i, _, _)) = next {
                    let (b, a) =
                        (before.get(i).copied().unwrap_or(N::ZERO), after.get(i).copied().unwrap_or(N::ZERO));
                    if let Some(fr) = frames.get_mut(level) {
                        fr.seen |= 1 << i;
                        fr.rest = rest;
                    }
                    level -= 1;
                    if let Some(fr) = frames.get_mut(level) {
                        *fr = Frame { node: FAN * f.node + i, before: b, after: a, seen: 0, rest: None };
                    }
                    continue;
                }
            }
            level += 1;
            if level > top {
                break;
            }
        }
        best.map_or(Search::None, |b| Search::Found(b.pos))
    }
}

/// Whether a node whose candidates have makespans of at least `floor` (exactly: the
/// makespan now and the latest finish after it, plus a delay) and own finish times of at
/// least `own` (within `slack = (relative, absolute)`, [`SLACK`] roundings) may hold a
/// candidate better than `best`.
#[inline]
fn may_win<N: Real>(floor: N, own: N, slack: (N, N), best: &Best<N>) -> bool {
    let own = own - (own * slack.0 + slack.1);
    let makespan = floor.max_of(own);
    !(makespan > best.makespan || (makespan >= best.makespan && own > best.own))
}

/// The greedy's order on candidates: smaller makespan, then smaller own finish time, then
/// the later position.
#[inline]
fn better<N: Real>(a: &Best<N>, b: &Best<N>) -> bool {
    // Plain comparisons: no value here is NaN (times are finite or the infinity of an
    // empty node), and `partial_cmp` chains cost branches on the search's hot path.
    a.makespan < b.makespan
        || (a.makespan == b.makespan && (a.own < b.own || (a.own == b.own && a.pos > b.pos)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scatter::types::Assignment;

    /// Many identical workers make every heap key stale after each item: the greedy runs
    /// out of its budget and the items left go to the largest remainders. The plan stays a
    /// rounding of the shares (counts add up, each within one item of its share, eq. (4)
    /// holds); with a budget large enough it is the plain greedy's, and with a small one it
    /// is not (so the fallback did run).
    #[test]
    fn greedy_out_of_budget_finishes_by_largest_remainder() {
        use crate::{plan, Options, Problem, Root, Worker};
        let mut workers = std::vec![Worker::linear(1e-5, 0.01); 300];
        workers[0] = Worker::linear(0.0, 0.01);
        let problem = Problem {
            workers: &workers,
            root: Root::Fixed(0),
            items: 100_077,
            options: Options { rounding: Rounding::Greedy, ..Options::default() },
        };
        let run = |budget: Option<u64>| {
            BUDGET.with(|b| b.set(budget));
            let mut out = std::vec![Assignment::EMPTY; 300];
            let mut scratch = std::vec![Scratch::EMPTY; 300];
            let s = plan(&problem, &mut out, &mut scratch).unwrap();
            BUDGET.with(|b| b.set(None));
            (s, out)
        };
        let (full, full_out) = run(None);
        let (same, same_out) = run(Some(1 << 30));
        assert_eq!(full_out, same_out);
        assert_eq!(full.makespan, same.makespan);
        let (short, short_out) = run(Some(40));
        assert_ne!(short_out, full_out, "a budget of 40 evaluations ran out");
        assert_eq!(short_out.iter().map(|a| a.count).sum::<u64>(), 100_077);
        for a in &short_out {
            assert!((a.count as f64 - a.share).abs() < 1.0, "{a:?}");
        }
        assert!(short.makespan <= short.bound, "eq. (4): {} > {}", short.makespan, short.bound);
        assert!(short.makespan >= short.lower_bound);
        // The items given by the greedy before its budget ran out make the plan no worse
        // than largest remainder from the start on this platform.
        let lr = Problem {
            options: Options { rounding: Rounding::LargestRemainder, ..problem.options },
            ..problem
        };
        let mut out = std::vec![Assignment::EMPTY; 300];
        let mut scratch = std::vec![Scratch::EMPTY; 300];
        let lr = plan(&lr, &mut out, &mut scratch).unwrap();
        assert!(full.makespan <= short.makespan && short.makespan <= lr.makespan);
    }

    /// The greedy's rule by brute force: each candidate's +1 evaluated by recomputing every
    /// finish time, in position order.
    fn naive_greedy(workers: &[Worker<f64>], items: u64, plan: &mut [Assignment<f64>]) {
        let floors = set_floors(items, plan);
        let mut left = items - floors;
        let mut open: std::vec::Vec<bool> = (0..plan.len()).map(|k| frac(&*plan, k) > 0.0).collect();
        let makespan_and_own = |plan: &[Assignment<f64>], k: usize| {
            let (mut sent, mut makespan, mut own) = (0.0f64, 0.0f64, 0.0);
            for (j, (a, w)) in plan.iter().zip(workers).enumerate() {
                let x = a.count as f64;
                let recv = w.comm_time(x);
                let t = if a.count > 0 { sent + recv + w.comp_time(x) } else { sent };
                sent += recv;
                makespan = makespan.max(t);
                if j == k {
                    own = t;
                }
            }
            (makespan, own)
        };
        while left > 0 {
            let mut best: Option<(f64, f64, usize)> = None;
            for k in 0..plan.len() {
                if !open[k] {
                    continue;
                }
                plan[k].count += 1;
                let (m, own) = makespan_and_own(plan, k);
                plan[k].count -= 1;
                if best.is_none_or(|b| m < b.0 || (m == b.0 && (own < b.1 || (own == b.1 && k > b.2)))) {
                    best = Some((m, own, k));
                }
            }
            let Some((_, _, k)) = best else { break };
            plan[k].count += 1;
            open[k] = false;
            left -= 1;
        }
        fix_sum(items, plan);
    }

    /// Rounds `shares` (positions in send order, worker `k` at position `k`) by the greedy
    /// and by [`naive_greedy`]; the counts must be the same.
    fn same_as_naive(workers: &[Worker<f64>], shares: &[f64], what: &str) {
        let p = workers.len();
        let items = shares.iter().sum::<f64>().round() as u64;
        let mut plan: std::vec::Vec<Assignment<f64>> = shares
            .iter()
            .enumerate()
            .map(|(k, &share)| Assignment { worker: k, share, ..Assignment::EMPTY })
            .collect();
        let mut want = plan.clone();
        naive_greedy(workers, items, &mut want);
        let mut slots = std::vec![Scratch::<f64>::EMPTY; p];
        let mut cols = Columns::new(&mut slots);
        for (k, w) in workers.iter().enumerate() {
            cols.set(col::LAMBDA, k, w.comm_per_item.sort_key());
            cols.set_real(col::MU, k, w.comp_per_item);
        }
        // No worker is the root: position k costs what worker k does.
        let costs = Costs::new(workers, p);
        round(Rounding::Greedy, &costs, items, &mut plan[..], &mut cols);
        let got: std::vec::Vec<u64> = plan.iter().map(|a| a.count).collect();
        let want: std::vec::Vec<u64> = want.iter().map(|a| a.count).collect();
        assert_eq!(got, want, "{what}: p = {p}, {items} items, shares {shares:?}, workers {workers:?}");
    }

    fn random_shares(rnd: &mut impl FnMut() -> u64, p: usize) -> std::vec::Vec<f64> {
        (0..p)
            .map(|_| match rnd() % 8 {
                0 => 0.0,
                1 => (rnd() % 20) as f64,
                _ => (rnd() % 20_000) as f64 / 1000.0 + (rnd() % 1000) as f64 * 1e-9,
            })
            .collect()
    }

    /// Costs that are small multiples of powers of two make every time the greedy compares
    /// exact in `f64`, whatever the order of the additions: the tree must then pick what the
    /// rule picks, ties included (and there are many: four values of each cost).
    #[test]
    fn greedy_follows_its_rule_on_exact_ties() {
        let mut rnd = crate::num::xorshift(0x5eed_0001);
        for case in 0..1_500 {
            let p = 1 + (rnd() % if case % 50 == 0 { 300 } else { 70 }) as usize;
            let latencies = case % 3 == 0;
            let spread = if case % 4 < 2 { 4 } else { 1 };
            let workers: std::vec::Vec<Worker<f64>> = (0..p)
                .map(|_| Worker {
                    comm_latency: if latencies { (rnd() % 3) as f64 / 8.0 } else { 0.0 },
                    comm_per_item: (1 + rnd() % spread) as f64 / 1024.0,
                    comp_latency: if latencies { (rnd() % 3) as f64 / 4.0 } else { 0.0 },
                    comp_per_item: (1 + rnd() % spread) as f64 / 16.0,
                })
                .collect();
            let shares = if case % 2 == 0 {
                random_shares(&mut rnd, p)
            } else {
                // Few distinct shares and costs: runs of candidates with equal times.
                (0..p).map(|_| [0.0, 2.5, 3.25, 3.75, 7.5][(rnd() % 5) as usize]).collect()
            };
            same_as_naive(&workers, &shares, "dyadic");
        }
    }

    /// Random costs: no two candidates are within rounding of each other, and the tree picks
    /// what the rule picks.
    #[test]
    fn greedy_follows_its_rule_on_random_platforms() {
        let mut rnd = crate::num::xorshift(0x5eed_0002);
        let mut unit = move || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        let mut rnd2 = crate::num::xorshift(0x5eed_0003);
        for case in 0..1_000 {
            let p = 1 + (rnd2() % if case % 50 == 0 { 300 } else { 70 }) as usize;
            let latencies = case % 3 == 0;
            let workers = crate::scatter::types::random_workers(&mut unit, p, latencies);
            let shares = random_shares(&mut rnd2, p);
            same_as_naive(&workers, &shares, "random");
        }
    }

    /// A candidate whose finish time with the item overflows (here `BIG` items of cost)
    /// is not one: the item goes to the other worker, as the rule (and the heap this tree
    /// replaced) gives, in every number type. Found by review: such a leaf looked taken.
    #[test]
    fn an_overflowing_candidate_is_not_taken() {
        fn check<N: Real>(big: f64) {
            let workers =
                [Worker::linear(N::ZERO, N::ONE), Worker::linear(N::ZERO, N::from_f64(big).unwrap())];
            let mut plan = [
                Assignment { worker: 0, share: N::from_f64(2.625).unwrap(), ..Assignment::EMPTY },
                Assignment { worker: 1, share: N::from_f64(1.375).unwrap(), ..Assignment::EMPTY },
            ];
            let mut scratch = [Scratch::<N>::EMPTY; 2];
            let _ = crate::round(
                Rounding::Greedy,
                &workers,
                0,
                crate::RootMode::Overlap,
                4,
                &mut plan,
                &mut scratch,
            );
            assert_eq!([plan[0].count, plan[1].count], [3, 1], "{}", N::NAME);
        }
        check::<f64>(1e308);
        check::<f32>(3e38);
        check::<crate::Q32>(1.2e9);
    }

    /// The tree's nodes fit the six scratch columns from `col::TREE` on, and a position's
    /// ancestors are where `take` looks for them.
    #[test]
    fn greedy_tree_fits_its_columns() {
        for p in (1..2_000).chain([4_095, 4_096, 4_097, 32_768, 32_769, 1 << 20]) {
            let mut slots = std::vec![Scratch::<f64>::EMPTY; p];
            let mut cols = Columns::new(&mut slots);
            let tree = Tree::new(&mut cols, p);
            assert!(tree.end() <= 6 * p, "p = {p}");
            assert_eq!((col::TREE * p + tree.pad) % 4, 0, "p = {p}: nodes aligned");
            assert_eq!(tree.len(0), p);
            assert_eq!(tree.len(tree.levels - 1), 1, "p = {p}: one root");
            for level in 1..tree.levels {
                assert_eq!(tree.len(level), tree.len(level - 1).div_ceil(FAN));
            }
        }
    }
}
