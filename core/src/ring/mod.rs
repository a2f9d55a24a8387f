//! Iterative computations on a ring (legrand2003): choose which of `p` processors take
//! part, in which cyclic order, and how many of the `W` columns each gets, so that one
//! iteration — compute its columns, then send `H` boundary units to its successor and to
//! its predecessor — is as short as possible. Processors are joined by dedicated links of
//! known cost per unit, a cost matrix (the paper's clique, §2.1); shared links are the
//! next step.
//!
//! The derivations, with the paper's misprints and gaps, are in
//! `docs/derivations/ring.md` (reference: `ring_ref.py`). In short, for one ring of
//! members `i` with `a_i = W·w_i` and communication time `d_i = H·(c_{i,succ} + c_{i,pred})`:
//!
//! * eq. (1): `T_step = max_i α_i·a_i + d_i`; eq. (4)'s `T₄ = (1 + Σ d_i/a_i)/Σ 1/a_i` is
//!   its optimum only when no `d_i` exceeds it: eq. (3) then gives a negative `α_i`, and
//!   the ring's value is `V = max(T₄, max_i d_i)` (§2.1, corrected);
//! * a member with no columns still sends, so a plan gives every member at least one
//!   column; the integer counts (water-filling over `W − q` columns, then the cheapest
//!   increments) are optimal for the ring and within `max w_i` of `V` (§3);
//! * the paper's greedy (best pair, then best insertion of a processor at a position)
//!   compares `V`, not `T₄`, starts from a single processor too (a single processor is
//!   sometimes optimal), and keeps the best ring size (`T_step` is not monotone in `q`);
//! * for at most [`MAX_EXHAUSTIVE`] processors every subset and cyclic order (up to
//!   rotation and reflection) is tried: the integer optimum;
//! * a certified lower bound over every ring (§4): the single processor exactly, every
//!   pair exactly, and for three members or more the water level of the smallest possible
//!   communication times.

use crate::error::Error;
use crate::report::{Method, Report};

impl Method {
    /// The paper's greedy (legrand2003 §4.1–4.2) with the corrected criterion, then the
    /// optimal integer counts for the ring chosen; `lower_bound` holds for every ring.
    pub const RING_GREEDY: Method = Method::new("greedy");
    /// Every subset and cyclic order (a few processors), then the optimal integer
    /// counts: the optimum.
    pub const RING_EXHAUSTIVE: Method = Method::new("exhaustive");
}

/// Most processors the exhaustive search takes: `Σ C(8, q)·(q − 1)!/2` = 8 054 rings.
pub const MAX_EXHAUSTIVE: usize = 8;

/// Most processors a ring problem may have: the greedy's work grows as `p³`.
pub const MAX_PROCESSORS: usize = 1024;

/// How the ring is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Solver {
    /// The paper's greedy (§4.1–4.2) with the corrected criterion, then the integer counts.
    #[default]
    Greedy,
    /// Every subset and cyclic order (at most [`MAX_EXHAUSTIVE`] processors): the optimum.
    Exhaustive,
}

/// A ring problem over a cost matrix.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// `w_i`: seconds per column of processor `i`, finite and > 0.
    pub cycle_times: &'a [f64],
    /// `c_ij`, seconds per boundary unit from `i` to `j`, row-major `p × p`, finite and
    /// > 0 off the diagonal (which is not read).
    pub costs: &'a [f64],
    /// `W`: columns to share, ≥ 1.
    pub work: u64,
    /// `H`: boundary units sent to each neighbour per iteration, finite and ≥ 0.
    pub boundary: f64,
    /// How the ring is chosen.
    pub solver: Solver,
}

/// One member of the planned ring, in ring order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    /// The processor's index.
    pub processor: usize,
    /// Columns it gets (≥ 1).
    pub count: u64,
    /// Its rational share of the columns, `α_i·W` (water-filling, §2.2).
    pub share: f64,
    /// `count·w_i`.
    pub compute_time: f64,
    /// `d_i`: its two sends.
    pub comm_time: f64,
}

impl Member {
    /// An empty member, to initialise buffers.
    pub const EMPTY: Member =
        Member { processor: 0, count: 0, share: 0.0, compute_time: 0.0, comm_time: 0.0 };
}

/// What a plan achieves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Method, integer `T_step`, certified lower bound, proven optimal.
    pub report: Report<f64>,
    /// The chosen ring's rational value `V` (§2.1).
    pub rational_makespan: f64,
    /// Members in the ring.
    pub ring_size: usize,
    /// The same ring with the columns split evenly (`⌊W/q⌋`, one more for the first).
    pub even_makespan: f64,
}

/// Buffer lengths [`plan`] needs for `p` processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// `members`, `by_size`: one per processor.
    pub processors: usize,
    /// `order`: processor indices, three rings' worth.
    pub order: usize,
}

/// The buffers of [`plan`].
#[derive(Debug)]
pub struct Buffers<'b> {
    /// The plan, in ring order (its first [`Summary::ring_size`] entries).
    pub members: &'b mut [Member],
    /// The best integer `T_step` found for each ring size `q` (index `q − 1`; infinite
    /// when no ring of that size was evaluated).
    pub by_size: &'b mut [f64],
    /// Working memory.
    pub order: &'b mut [usize],
}

/// The buffer sizes for `p` processors, with the limits checked.
///
/// # Errors
///
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) beyond [`MAX_PROCESSORS`], or
/// beyond [`MAX_EXHAUSTIVE`] for the exhaustive search.
pub fn needs(p: usize, solver: Solver) -> Result<Needs, Error> {
    if p > MAX_PROCESSORS {
        return Err(Error::limit("ring: processors", MAX_PROCESSORS as u64, p as u64));
    }
    if solver == Solver::Exhaustive && p > MAX_EXHAUSTIVE {
        return Err(Error::limit(
            "ring: processors for the exhaustive solver",
            MAX_EXHAUSTIVE as u64,
            p as u64,
        ));
    }
    Ok(Needs { processors: p, order: 3 * p })
}

fn check(problem: &Problem<'_>) -> Result<usize, Error> {
    let p = problem.cycle_times.len();
    if p == 0 {
        return Err(Error::no_workers());
    }
    if problem.work == 0 {
        return Err(Error::no_items());
    }
    if problem.costs.len() != p * p {
        return Err(Error::buffer("ring: cost matrix (p × p)", p * p, problem.costs.len()));
    }
    for (i, &w) in problem.cycle_times.iter().enumerate() {
        if !(w.is_finite() && w > 0.0) {
            return Err(Error::entry_value("processors", i, "cycle_time", "finite and > 0", w));
        }
    }
    for (k, &c) in problem.costs.iter().enumerate() {
        if k / p != k % p && !(c.is_finite() && c > 0.0) {
            return Err(Error::entry_value(
                "cost_matrix",
                k / p,
                "cost",
                "finite and > 0 off the diagonal",
                c,
            ));
        }
    }
    if !(problem.boundary.is_finite() && problem.boundary >= 0.0) {
        return Err(Error::parameter("boundary", "finite and >= 0", problem.boundary));
    }
    Ok(p)
}

/// `d` of the member at position `k` of `ring`: its two sends (none alone; two to the
/// same neighbour in a pair).
fn comm(problem: &Problem<'_>, ring: &[usize], k: usize) -> f64 {
    let q = ring.len();
    if q < 2 {
        return 0.0;
    }
    let p = problem.cycle_times.len();
    let (i, succ, pred) = (ring[k], ring[(k + 1) % q], ring[(k + q - 1) % q]);
    let c = |a: usize, b: usize| problem.costs.get(a * p + b).copied().unwrap_or(f64::INFINITY);
    problem.boundary * (c(i, succ) + c(i, pred))
}

/// `V = max(T₄, max d)` of a ring (§2.1).
fn value(problem: &Problem<'_>, ring: &[usize]) -> f64 {
    let w = problem.work as f64;
    let (mut inv, mut weighted, mut most) = (0.0, 0.0, 0.0f64);
    for (k, &i) in ring.iter().enumerate() {
        let d = comm(problem, ring, k);
        let wi = problem.cycle_times[i];
        inv += 1.0 / wi;
        weighted += d / wi;
        most = most.max(d);
    }
    ((w + weighted) / inv).max(most)
}

/// The optimal integer counts of a ring, every member at least one column (§3), into
/// `members`; returns `T_int`, or `None` when the ring has more members than columns.
/// `sorted` holds `q` indices of working memory.
fn counts(
    problem: &Problem<'_>,
    ring: &[usize],
    members: &mut [Member],
    sorted: &mut [usize],
) -> Option<f64> {
    let q = ring.len();
    let w = problem.work;
    if (w as u128) < q as u128 || members.len() < q || sorted.len() < q {
        return None;
    }
    let wt = |k: usize| problem.cycle_times[ring[k]];
    for (k, m) in members.iter_mut().enumerate().take(q) {
        *m = Member { processor: ring[k], comm_time: comm(problem, ring, k), ..Member::EMPTY };
    }
    // Water-filling of the W − q free columns over `d'_i = d_i + w_i` (n_i = 1 + y_i).
    let dd = |m: &Member, k: usize| m.comm_time + wt(k);
    for (k, s) in sorted.iter_mut().enumerate().take(q) {
        *s = k;
    }
    let sorted = &mut sorted[..q];
    crate::kernel::sort::sort_by(sorted, |&a, &b| dd(&members[a], a) < dd(&members[b], b));
    let free = (w - q as u64) as f64;
    let (mut inv, mut weighted, mut level) = (0.0, 0.0, 0.0);
    for (j, &k) in sorted.iter().enumerate() {
        inv += 1.0 / wt(k);
        weighted += dd(&members[k], k) / wt(k);
        level = (free + weighted) / inv;
        let next = sorted.get(j + 1).map(|&n| dd(&members[n], n));
        if next.is_none_or(|n| level <= n) {
            break;
        }
    }
    let mut total = 0u64;
    for (k, m) in members.iter_mut().enumerate().take(q) {
        let y = ((level - dd(m, k)) / wt(k)).max(0.0);
        m.share = 1.0 + y;
        m.count = 1 + (y as u64).min(w);
        total = total.saturating_add(m.count);
    }
    let finish = |m: &Member, k: usize, extra: u64| (m.count + extra) as f64 * wt(k) + m.comm_time;
    // Rounding may overshoot by a column or two: take them from the latest finishers.
    while total > w {
        let k = (0..q).filter(|&k| members[k].count > 1).max_by(|&a, &b| {
            finish(&members[a], a, 0).total_cmp(&finish(&members[b], b, 0)).then(b.cmp(&a))
        })?;
        members[k].count -= 1;
        total -= 1;
    }
    // The missing columns, each where it finishes earliest (ties to the earlier member).
    while total < w {
        let k = (0..q).min_by(|&a, &b| finish(&members[a], a, 1).total_cmp(&finish(&members[b], b, 1)))?;
        members[k].count += 1;
        total += 1;
    }
    let mut makespan = 0.0f64;
    for (k, m) in members.iter_mut().enumerate().take(q) {
        m.compute_time = m.count as f64 * wt(k);
        makespan = makespan.max(m.compute_time + m.comm_time);
    }
    Some(makespan)
}

/// Plans a ring: see the module documentation.
///
/// # Errors
///
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for no processors, no
/// columns, a cycle time or cost that is not finite and > 0, a negative boundary; as
/// [`needs`]; [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short
/// buffers; [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) for times beyond `f64`.
pub fn plan(problem: &Problem<'_>, buf: Buffers<'_>) -> Result<Summary, Error> {
    let p = check(problem)?;
    let need = needs(p, problem.solver)?;
    if buf.members.len() < need.processors
        || buf.by_size.len() < need.processors
        || buf.order.len() < need.order
    {
        return Err(Error::buffer("ring buffers", need.order, buf.order.len().min(3 * buf.members.len())));
    }
    let (ring, rest) = buf.order.split_at_mut(p);
    let bound = lower_bound(problem, ring, buf.by_size);
    for t in buf.by_size.iter_mut() {
        *t = f64::INFINITY;
    }
    let (best, sorted) = rest.split_at_mut(p);
    let mut search = Search {
        problem,
        best,
        best_q: 0,
        best_key: (f64::INFINITY, f64::INFINITY),
        sorted,
        members: buf.members,
        by_size: buf.by_size,
    };
    let method = match problem.solver {
        Solver::Greedy => {
            greedy(&mut search, ring);
            Method::RING_GREEDY
        }
        Solver::Exhaustive => {
            exhaustive(&mut search, ring);
            Method::RING_EXHAUSTIVE
        }
    };
    let q = search.best_q.max(1);
    let Search { best, sorted, members, .. } = search;
    let best = &best[..q];
    let makespan = counts(problem, best, members, sorted).ok_or(Error::limit(
        "ring: columns",
        problem.work,
        q as u64,
    ))?;
    let rational = value(problem, best);
    let exact = problem.solver == Solver::Exhaustive;
    let lower = if exact { makespan } else { bound.min(makespan) };
    // The even split on the same ring.
    let (per, extra) = (problem.work / q as u64, problem.work % q as u64);
    let even = members[..q]
        .iter()
        .enumerate()
        .map(|(k, m)| {
            (per + u64::from((k as u64) < extra)) as f64 * problem.cycle_times[m.processor] + m.comm_time
        })
        .fold(0.0, f64::max);
    if ![makespan, rational, lower, even].iter().all(|t| t.is_finite()) {
        return Err(Error::time_overflow("ring T_step", "give smaller costs or times in a larger unit"));
    }
    Ok(Summary {
        report: Report { method, makespan, lower_bound: lower, exact },
        rational_makespan: rational,
        ring_size: q,
        even_makespan: even,
    })
}

/// The best ring found so far, with the working memory to value candidates.
struct Search<'p, 'b> {
    problem: &'p Problem<'p>,
    best: &'b mut [usize],
    best_q: usize,
    /// Integer `T_step`, then rational value.
    best_key: (f64, f64),
    sorted: &'b mut [usize],
    members: &'b mut [Member],
    by_size: &'b mut [f64],
}

impl Search<'_, '_> {
    /// Records `ring`'s integer value for its size, and keeps it when it is the best so
    /// far (by integer `T_step`, then rational value, then fewer members).
    fn consider(&mut self, ring: &[usize]) {
        let Some(t) = counts(self.problem, ring, self.members, self.sorted) else { return };
        let q = ring.len();
        if let Some(slot) = self.by_size.get_mut(q - 1) {
            *slot = slot.min(t);
        }
        let key = (t, value(self.problem, ring));
        let better = key.0 < self.best_key.0
            || (key.0 == self.best_key.0
                && (key.1 < self.best_key.1 || (key.1 == self.best_key.1 && q < self.best_q)));
        if better {
            self.best_key = key;
            self.best_q = q;
            self.best[..q].copy_from_slice(ring);
        }
    }
}

/// The paper's greedy with the corrected criterion: the best single processor, the best
/// pair, then the best insertion (processor, position) by `V` until every processor is on
/// the ring; the ring size with the best integer value wins. Returns its size (in `best`).
fn greedy(search: &mut Search<'_, '_>, ring: &mut [usize]) {
    let problem = search.problem;
    let p = problem.cycle_times.len();
    let fastest =
        (0..p).min_by(|&a, &b| problem.cycle_times[a].total_cmp(&problem.cycle_times[b])).unwrap_or(0);
    ring[0] = fastest;
    search.consider(&ring[..1]);
    if p < 2 {
        return;
    }
    let (mut pair, mut pair_value) = ((0, 1), f64::INFINITY);
    for i in 0..p {
        for j in i + 1..p {
            let v = value(problem, &[i, j]);
            if v < pair_value {
                (pair, pair_value) = ((i, j), v);
            }
        }
    }
    (ring[0], ring[1]) = pair;
    let mut q = 2;
    search.consider(&ring[..q]);
    let w = problem.work as f64;
    let c = |a: usize, b: usize| problem.costs.get(a * p + b).copied().unwrap_or(f64::INFINITY);
    let h = problem.boundary;
    while q < p {
        // Sums over the ring, and the ring's communication times, for O(1) candidates.
        let (mut inv, mut weighted) = (0.0, 0.0);
        for (k, &i) in ring[..q].iter().enumerate() {
            let d = comm(problem, &ring[..q], k);
            inv += 1.0 / problem.cycle_times[i];
            weighted += d / problem.cycle_times[i];
            search.members[k].comm_time = d;
        }
        let members: &[Member] = search.members;
        let d = |k: usize| members[k].comm_time;
        let mut chosen: Option<(usize, usize, f64)> = None;
        for k in 0..q {
            let (i, j) = (ring[k], ring[(k + 1) % q]);
            let rest = (0..q).filter(|&m| m != k && m != (k + 1) % q).map(d).fold(0.0, f64::max);
            let (pi, pj) = (ring[(k + q - 1) % q], ring[(k + 2) % q]);
            for x in 0..p {
                if ring[..q].contains(&x) {
                    continue;
                }
                // i's successor and j's predecessor become x; in a pair, i and j keep
                // their other link to each other.
                let di = h * (c(i, x) + c(i, if q == 2 { j } else { pi }));
                let dj = h * (c(j, x) + c(j, if q == 2 { i } else { pj }));
                let dx = h * (c(x, i) + c(x, j));
                let (wi, wj, wx) = (problem.cycle_times[i], problem.cycle_times[j], problem.cycle_times[x]);
                let inv2 = inv + 1.0 / wx;
                let weighted2 = weighted - d(k) / wi - d((k + 1) % q) / wj + di / wi + dj / wj + dx / wx;
                let v = ((w + weighted2) / inv2).max(rest).max(di).max(dj).max(dx);
                if chosen.is_none_or(|(_, _, best)| v < best) {
                    chosen = Some((k, x, v));
                }
            }
        }
        let Some((k, x, _)) = chosen else { break };
        ring.copy_within(k + 1..q, k + 2);
        ring[k + 1] = x;
        q += 1;
        search.consider(&ring[..q]);
    }
}

/// Every subset and cyclic order up to rotation and reflection (the smallest member
/// first, then the orders of the rest whose first element is below their last).
fn exhaustive(search: &mut Search<'_, '_>, ring: &mut [usize]) {
    let p = search.problem.cycle_times.len().min(MAX_EXHAUSTIVE);
    for mask in 1u32..(1u32 << p) {
        let mut q = 0;
        for i in 0..p {
            if mask & (1 << i) != 0 {
                ring[q] = i;
                q += 1;
            }
        }
        // Heap's algorithm over the members after the first, iteratively.
        let mut stack = [0usize; MAX_EXHAUSTIVE];
        let rest = q.saturating_sub(1);
        // One of each ring and its reflection: the second member below the last.
        let visit = |search: &mut Search<'_, '_>, ring: &[usize]| {
            if q < 3 || ring[1] < ring[q - 1] {
                search.consider(&ring[..q]);
            }
        };
        visit(search, ring);
        let mut i = 0;
        while i < rest {
            if stack[i] < i {
                let swap = if i % 2 == 0 { 0 } else { stack[i] };
                ring.swap(1 + swap, 1 + i);
                visit(search, ring);
                stack[i] += 1;
                i = 0;
            } else {
                stack[i] = 0;
                i += 1;
            }
        }
    }
}

/// A lower bound on the integer `T_step` of every ring (§4, clique): the single
/// processor and every pair exactly; for three members or more, each member sends to two
/// distinct processors, so `d_i ≥ δ_i = H·(its two cheapest costs)`, every member
/// finishes after `δ_i + w_i` (one column at least; a ring has three such members), and
/// the ring's `T₄` is at least the lowest water level over `δ`, reached by a prefix of
/// the processors in order of `δ` (§4). `order` and `delta` hold `p` entries of working
/// memory. O(p²).
pub fn lower_bound(problem: &Problem<'_>, order: &mut [usize], delta: &mut [f64]) -> f64 {
    let p = problem.cycle_times.len();
    let (Some(order), Some(delta)) = (order.get_mut(..p), delta.get_mut(..p)) else { return 0.0 };
    let wt = problem.cycle_times;
    let w = problem.work as f64;
    let h = problem.boundary;
    let c = |a: usize, b: usize| problem.costs.get(a * p + b).copied().unwrap_or(f64::INFINITY);
    let mut bound = wt.iter().fold(f64::INFINITY, |m, &x| m.min(x)) * w;
    for i in 0..p {
        for j in i + 1..p {
            let (di, dj) = (2.0 * h * c(i, j), 2.0 * h * c(j, i));
            let t4 = (w + di / wt[i] + dj / wt[j]) / (1.0 / wt[i] + 1.0 / wt[j]);
            bound = bound.min(t4.max(di + wt[i]).max(dj + wt[j]));
        }
    }
    if p >= 3 {
        let mut third = [f64::INFINITY; 3];
        for (i, (o, d)) in order.iter_mut().zip(delta.iter_mut()).enumerate() {
            let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
            for j in (0..p).filter(|&j| j != i) {
                let x = c(i, j);
                if x < a {
                    (a, b) = (x, a);
                } else if x < b {
                    b = x;
                }
            }
            (*o, *d) = (i, h * (a + b));
            let k = *d + wt[i];
            if k < third[2] {
                third[2] = k;
                third.sort_unstable_by(f64::total_cmp);
            }
        }
        let delta: &[f64] = delta;
        crate::kernel::sort::sort_by(order, |&a, &b| delta[a] < delta[b]);
        let (mut inv, mut weighted, mut level) = (0.0, 0.0, f64::INFINITY);
        for &j in order.iter() {
            inv += 1.0 / wt[j];
            weighted += delta[j] / wt[j];
            level = level.min((w + weighted) / inv);
        }
        bound = bound.min(level.max(third[2]));
    }
    // Computed in floating point from the same terms as the plans' values: lowered by a
    // few units in the last place per term so that it stays below them as computed.
    bound * (1.0 - 8.0 * f64::EPSILON * (p as f64 + 4.0))
}
