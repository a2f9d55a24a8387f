//! Iterative computations on a ring (legrand2003): choose which of `p` processors take
//! part, in which cyclic order, and how many of the `W` columns each gets, so that one
//! iteration — compute its columns, then send `H` boundary units to its successor and to
//! its predecessor — is as short as possible. Processors are joined either by dedicated
//! links of known cost per unit, a cost matrix (the paper's clique, §2.1), or by a graph
//! of routers and shared links (§2.3: [`Network`]), where each exchange is routed and
//! the routes crossing a link share its bandwidth ([`Sharing`]; `graph/`).
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
//! * a local search after the greedy (remove, insert, replace, move a member, reverse a
//!   segment; strict improvements only, so never worse than the greedy; §7);
//! * for at most [`MAX_EXHAUSTIVE`] processors every subset and cyclic order (up to
//!   rotation and reflection) is tried: the integer optimum;
//! * a certified lower bound over every ring (§4): the single processor exactly, every
//!   pair exactly, and for three members or more the water level of the smallest possible
//!   communication times.

use crate::error::Error;
use crate::num::range::{INVERTIBLE, NON_NEGATIVE, POSITIVE};
use crate::report::{Method, Report};

mod clique;
mod fixed;
pub mod generate;
mod graph;

pub use clique::lower_bound;
pub use graph::{sizes as graph_sizes, Link, LinkKind, Network, Paths, Sizes, LOCAL_EVALUATIONS};

impl Method {
    /// The paper's greedy (legrand2003 §4.1–4.2) with the corrected criterion, then the
    /// optimal integer counts for the ring chosen; `lower_bound` holds for every ring.
    pub const RING_GREEDY: Method = Method::new("greedy");
    /// Every subset and cyclic order (a few processors), then the optimal integer
    /// counts: the optimum.
    pub const RING_EXHAUSTIVE: Method = Method::new("exhaustive");
    /// The paper's greedy, then a local search over rings (remove, insert, replace, move
    /// a member, reverse a segment; legrand2003 extended, `ring.md` §7) that never makes
    /// it worse, then the optimal integer counts.
    pub const RING_LOCAL_SEARCH: Method = Method::new("local_search");
}

/// Most processors the exhaustive search takes on a graph: each ring is routed and
/// shared (§7: exact when the routes are forced, as in a tree).
pub const MAX_EXHAUSTIVE_GRAPH: usize = 6;

/// A link's bandwidth, in the words of [`INVERTIBLE`] and why: its inverse is the cost per
/// value every route pays.
pub(crate) const BANDWIDTH: &str =
    "finite and >= 5.56268464626801e-309 (its inverse, the cost per value, finite)";
/// A clique's path cost, in the words of [`INVERTIBLE`] and why.
pub(crate) const COST: &str =
    "finite and >= 5.56268464626801e-309 off the diagonal (its inverse, the bandwidth, finite)";

/// How routes share a link's bandwidth on a graph (§5, §6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sharing {
    /// The paper's growth: each insertion shares its four new routes analytically in what
    /// the others leave.
    #[default]
    Greedy,
    /// After each insertion, max-min fair shares of every route (§4.3 method 1), in place
    /// of the greedy's even when worse: the plan's shares, communication times and
    /// `T_step` are those of the max-min fair sharing of its routes (ring.md §6.1), what
    /// a fair network (TCP-like, SimGrid's CM02) gives.
    MaxMin,
    /// After each insertion, the ring valued with shares nearer the optimum for its routes
    /// (§4.3 method 2, the convex problem of §6.2; the growth goes on from the greedy's
    /// own), and the plan's ring shared optimally to a certified gap of 1e-9 at the end.
    Optimal,
}

/// Most processors the exhaustive search takes: `Σ C(10, q)·(q − 1)!/2` = 556 069 rings
/// (§7; BENCHMARKS.md has the time).
pub const MAX_EXHAUSTIVE: usize = 10;

/// Most processors a ring problem may have: the greedy's work grows as `p³`.
pub const MAX_PROCESSORS: usize = 1024;

/// Most routers a graph may have.
pub const MAX_ROUTERS: usize = 1 << 16;

/// Most links a graph may have.
pub const MAX_LINKS: usize = 1 << 18;

/// How the ring is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Solver {
    /// The paper's greedy (§4.1–4.2) with the corrected criterion, then the local search
    /// when asked, then the integer counts.
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
    /// After the greedy, a local search (§7) that never makes the plan worse.
    pub local_search: bool,
    /// Shared links instead of the cost matrix (which is then empty).
    pub network: Option<Network<'a>>,
    /// How routes share links (graphs only).
    pub sharing: Sharing,
}

/// One member of the planned ring, in ring order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    /// The processor's index.
    pub processor: usize,
    /// Columns it gets (≥ 1).
    pub count: u64,
    /// Its rational share of the columns with one column at least each (water-filling,
    /// §3).
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
    /// For the optimal sharing, the certified relative gap of the plan's shares (§6.2);
    /// 0 otherwise.
    pub sharing_gap: f64,
}

/// Buffer lengths [`plan`] needs for `p` processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// `members`, `by_size`: one per processor.
    pub processors: usize,
    /// `order`: processor indices, five rings' worth.
    pub order: usize,
    /// `comm`: communication times, two rings' worth.
    pub comm: usize,
    /// Graph scratch and route slots (zero for a cost matrix).
    pub graph: Sizes,
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
    /// Working memory.
    pub comm: &'b mut [f64],
    /// The plan's routes (graphs; empty slices for a cost matrix).
    pub paths: Paths<'b>,
    /// Graph working memory ([`Needs::graph`]).
    pub scratch_usize: &'b mut [usize],
    /// Graph working memory ([`Needs::graph`]).
    pub scratch_f64: &'b mut [f64],
}

/// The buffer sizes for `p` processors, with the limits checked.
///
/// # Errors
///
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) beyond [`MAX_PROCESSORS`], or
/// beyond [`MAX_EXHAUSTIVE`] for the exhaustive search.
pub fn needs(p: usize, solver: Solver, network: Option<&Network<'_>>) -> Result<Needs, Error> {
    if p > MAX_PROCESSORS {
        return Err(Error::limit("ring: processors", MAX_PROCESSORS as u64, p as u64));
    }
    let graph = match network {
        None => Sizes { usizes: 0, f64s: 0, paths: 0, path_len: 0 },
        Some(net) => {
            if net.routers > MAX_ROUTERS {
                return Err(Error::limit("ring: routers", MAX_ROUTERS as u64, net.routers as u64));
            }
            if net.links.len() > MAX_LINKS {
                return Err(Error::limit("ring: links", MAX_LINKS as u64, net.links.len() as u64));
            }
            if solver == Solver::Exhaustive && p > MAX_EXHAUSTIVE_GRAPH {
                return Err(Error::limit(
                    "ring: processors for the exhaustive solver on a graph",
                    MAX_EXHAUSTIVE_GRAPH as u64,
                    p as u64,
                ));
            }
            graph::sizes(p, net).ok_or(Error::limit("ring: graph size", usize::MAX as u64, u64::MAX))?
        }
    };
    if solver == Solver::Exhaustive && p > MAX_EXHAUSTIVE {
        return Err(Error::limit(
            "ring: processors for the exhaustive solver",
            MAX_EXHAUSTIVE as u64,
            p as u64,
        ));
    }
    Ok(Needs { processors: p, order: 5 * p, comm: 2 * p, graph })
}

fn check(problem: &Problem<'_>) -> Result<usize, Error> {
    let p = problem.cycle_times.len();
    if p == 0 {
        return Err(Error::no_workers());
    }
    if problem.work == 0 {
        return Err(Error::no_items());
    }
    if let Some(net) = &problem.network {
        let n = p.saturating_add(net.routers);
        for (i, l) in net.links.iter().enumerate() {
            if l.from >= n || l.to >= n {
                let bad = if l.from >= n { l.from } else { l.to };
                return Err(Error::entry_value("links", i, "from", "a processor or a router", bad as f64));
            }
            if l.from == l.to {
                return Err(Error::entry_value("links", i, "to", "another node than from", l.to as f64));
            }
            // The link's cost per value is 1/bandwidth: it must stay finite.
            if !INVERTIBLE.contains(l.bandwidth) {
                return Err(Error::entry_value("links", i, "bandwidth", BANDWIDTH, l.bandwidth));
            }
        }
    } else if problem.costs.len() != p * p {
        return Err(Error::buffer("ring: cost matrix (p × p)", p * p, problem.costs.len()));
    }
    for (i, &w) in problem.cycle_times.iter().enumerate() {
        POSITIVE.entry("processors", i, "cycle_time", w)?;
    }
    for (k, &c) in problem.costs.iter().enumerate() {
        // A path's bandwidth is 1/cost: it must stay finite.
        if k / p != k % p && !INVERTIBLE.contains(c) {
            return Err(Error::entry_value("cost_matrix", k / p, "cost", COST, c));
        }
    }
    NON_NEGATIVE.parameter("boundary", problem.boundary)?;
    Ok(p)
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
    let need = needs(p, problem.solver, problem.network.as_ref())?;
    let short = |what: &'static str, needed: usize, got: usize| {
        if got < needed {
            Err(Error::buffer(what, needed, got))
        } else {
            Ok(())
        }
    };
    short("ring members", need.processors, buf.members.len())?;
    short("ring sizes", need.processors, buf.by_size.len())?;
    short("ring orders", need.order, buf.order.len())?;
    short("ring communication times", need.comm, buf.comm.len())?;
    short("ring route links", need.graph.paths * need.graph.path_len, buf.paths.links.len())?;
    short("ring route lengths", need.graph.paths, buf.paths.len.len())?;
    short("ring route shares", need.graph.paths, buf.paths.share.len())?;
    short("ring graph indices", need.graph.usizes, buf.scratch_usize.len())?;
    short("ring graph numbers", need.graph.f64s, buf.scratch_f64.len())?;
    let Buffers { members, by_size, order, comm, mut paths, scratch_usize, scratch_f64 } = buf;
    paths.path_len = need.graph.path_len;
    let short_order = Error::buffer("ring orders", need.order, order.len());
    let (ring, rest) = order.split_at_mut_checked(p).ok_or(short_order)?;
    let (best, rest) = rest.split_at_mut_checked(p).ok_or(short_order)?;
    let (sorted, rest) = rest.split_at_mut_checked(p).ok_or(short_order)?;
    let (cur, cand) = rest.split_at_mut_checked(p).ok_or(short_order)?;
    let d = comm.get_mut(..p).ok_or(Error::buffer("ring communication times", need.comm, 0))?;
    let mut net = match &problem.network {
        Some(n) => Some(graph::Net::new(p, n, scratch_usize, scratch_f64).ok_or(Error::buffer(
            "ring graph scratch",
            need.graph.usizes,
            0,
        ))?),
        None => None,
    };
    let bound = match net.as_mut() {
        Some(net) => {
            net.all_pairs();
            net.lower_bound(problem)
        }
        None => lower_bound(problem, ring, by_size),
    };
    for t in by_size.iter_mut() {
        *t = f64::INFINITY;
    }
    let mut search = clique::Search {
        w: problem.cycle_times,
        work: problem.work,
        best,
        best_q: 0,
        best_key: (f64::INFINITY, f64::INFINITY),
        sorted,
        members,
        by_size,
    };
    let method = match (problem.solver, net.as_mut()) {
        (Solver::Greedy, None) => {
            clique::greedy(problem, &mut search, ring, d);
            if problem.local_search {
                clique::local_search(p, &mut search, cur, cand, d, &mut |ring, d| {
                    clique::comms(problem, ring, d);
                    true
                });
                Method::RING_LOCAL_SEARCH
            } else {
                Method::RING_GREEDY
            }
        }
        (Solver::Exhaustive, None) => {
            clique::exhaustive(problem, &mut search, ring, d, &mut |ring, d| {
                clique::comms(problem, ring, d);
                true
            });
            Method::RING_EXHAUSTIVE
        }
        (Solver::Greedy, Some(net)) => {
            net.greedy(problem, &mut search, ring, d, &mut paths);
            if problem.local_search {
                let before = search.best_key;
                let mut budget = LOCAL_EVALUATIONS;
                clique::local_search(p, &mut search, cur, cand, d, &mut |ring, d| {
                    budget = budget.saturating_sub(1);
                    budget > 0 && net.evaluate(problem, ring, d)
                });
                if search.best_key != before {
                    let q = search.best_q;
                    if let Some(r) = search.best.get(..q) {
                        net.evaluate(problem, r, d);
                        net.keep_evaluated(q, &mut paths);
                    }
                }
                Method::RING_LOCAL_SEARCH
            } else {
                Method::RING_GREEDY
            }
        }
        (Solver::Exhaustive, Some(net)) => {
            clique::exhaustive(problem, &mut search, ring, d, &mut |ring, d| net.evaluate(problem, ring, d));
            let q = search.best_q;
            if let Some(r) = search.best.get(..q) {
                net.evaluate(problem, r, d);
                net.keep_evaluated(q, &mut paths);
            }
            Method::RING_EXHAUSTIVE
        }
    };
    let q = search.best_q.max(1);
    let clique::Search { best, sorted, members, .. } = search;
    let best = best.get(..q).unwrap_or(&[]);
    let mut sharing_gap = 0.0;
    match net.as_mut() {
        None => clique::comms(problem, best, d),
        Some(net) => {
            net.polish(problem, best, &mut paths);
            sharing_gap = net.gap;
            for (t, dk) in d.iter_mut().enumerate().take(q) {
                let x = |k: usize| paths.share.get(k).copied().unwrap_or(0.0);
                *dk = if q < 2 { 0.0 } else { problem.boundary / x(2 * t) + problem.boundary / x(2 * t + 1) };
            }
            if q < 2 {
                paths.len.iter_mut().for_each(|l| *l = 0);
            }
        }
    }
    for (m, &dk) in members.iter_mut().zip(d.iter()).take(q) {
        m.comm_time = dk;
    }
    let makespan = fixed::counts(problem.cycle_times, best, problem.work, members, sorted)
        .ok_or(Error::limit("ring: columns", problem.work, q as u64))?;
    let rational = fixed::value(problem.cycle_times, best, d.get(..q).unwrap_or(&[]), problem.work);
    // On a graph the exhaustive search routes each ring by its widest paths: exact only
    // when routes are forced, so it claims no optimum there.
    let exact = problem.solver == Solver::Exhaustive && problem.network.is_none();
    let lower = if exact { makespan } else { bound.min(makespan) };
    let even = even_makespan(problem.cycle_times, problem.work, members.get(..q).unwrap_or(&[]));
    if ![makespan, rational, lower, even].iter().all(|t| t.is_finite()) {
        return Err(Error::time_overflow("ring T_step", "give smaller costs or times in a larger unit"));
    }
    Ok(Summary {
        report: Report { method, makespan, lower_bound: lower, exact },
        rational_makespan: rational,
        ring_size: q,
        even_makespan: even,
        sharing_gap,
    })
}

/// The value `V` of a given ring on a graph (processor indices in ring order, two or
/// more), routed by widest paths on the full capacities and shared as
/// `problem.sharing` says (`greedy`: max-min, the greedy's sharing being a matter of its
/// growth), with the certified relative gap of the optimal sharing (0 otherwise); the
/// routes' shares by position (`2t` to the successor, `2t + 1` to the predecessor) into
/// `shares`. The scratch is [`Needs::graph`]'s.
///
/// # Errors
///
/// As [`plan`]; [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for a ring
/// that is not a graph's, has fewer than two members or a missing route.
pub fn fixed_ring(
    problem: &Problem<'_>,
    ring: &[usize],
    scratch_usize: &mut [usize],
    scratch_f64: &mut [f64],
    shares: &mut [f64],
) -> Result<(f64, f64), Error> {
    let p = check(problem)?;
    let need = needs(p, Solver::Greedy, problem.network.as_ref())?;
    let net = problem.network.as_ref().ok_or(Error::parameter("ring", "a ring on a graph", 0.0))?;
    let mut net = graph::Net::new(p, net, scratch_usize, scratch_f64).ok_or(Error::buffer(
        "ring graph scratch",
        need.graph.usizes,
        0,
    ))?;
    net.fixed(problem, ring, shares).ok_or(Error::parameter(
        "ring",
        "two members or more, each route present",
        ring.len() as f64,
    ))
}

/// The same ring with the columns split evenly: `⌊W/q⌋` each, one more for the first
/// `W mod q`.
fn even_makespan(w: &[f64], work: u64, members: &[Member]) -> f64 {
    let q = members.len().max(1) as u64;
    let (per, extra) = (work / q, work % q);
    members
        .iter()
        .enumerate()
        .map(|(k, m)| {
            (per + u64::from((k as u64) < extra)) as f64
                * w.get(m.processor).copied().unwrap_or(f64::INFINITY)
                + m.comm_time
        })
        .fold(0.0, f64::max)
}
