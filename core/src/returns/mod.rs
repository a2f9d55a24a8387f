//! Model 2, return messages: the master sends each worker its items, the worker computes
//! and sends its results back (slides "With return messages", L395-645; derivation and
//! exact checks in `docs/derivations/returns.md` and `returns_ref.py`). How many items
//! each worker gets, in which send order and which return order, and when everything is
//! back.
//!
//! Worker i receives x items in `c_i·x` seconds (`comm_per_item`), computes them in
//! `w_i·x` (`comp_per_item`) and returns the results in `d_i·x` (`return_per_item`);
//! costs are linear (no latencies). The master does not compute and has one port: one
//! send at a time and one receive at a time, overlapping ([`Port::FullDuplex`], the
//! default) or not ([`Port::HalfDuplex`]). A *scenario* is the participants, their send
//! order σ1 and their return order σ2.
//!
//! | schedule | method | what | proven optimal |
//! |---|---|---|---|
//! | [`Schedule::Lifo`] | [`Method::LIFO`] | σ2 = reverse σ1: send by increasing `c + d`, everyone works, no idle (slides' theorem, L545-563); O(p log p), generic over [`Real`] | among LIFO scenarios, both ports |
//! | [`Schedule::Fifo`] | [`Method::FIFO`] | σ2 = σ1. `d = z·c` in full duplex: closed form (z < 1 increasing `c`, the best prefix; z > 1 the time-reversed rule; z = 1 order-free), O(p log p), generic. Otherwise, up to [`MAX_FIFO_EXHAUSTIVE_WORKERS`]: every FIFO order by LP (`f64`); beyond: the better prefix rule (a feasible FIFO schedule) | among FIFO scenarios, except the last case |
//! | [`Schedule::Given`] | [`Method::SCENARIO_LP`] | the scenario's LP (slides' program (1)) in `f64`, up to [`MAX_LP_WORKERS`] members | for that scenario, when its dual bound closes within [`CERTIFIED_LP_GAP`] |
//! | [`Schedule::Best`] | [`Method::BEST_SCENARIO`] | every (σ1, σ2) of all workers by LP up to [`MAX_EXHAUSTIVE_WORKERS`]; up to [`MAX_LOCAL_SEARCH_WORKERS`] the better of LIFO and FIFO improved by a local search over send and return orders (one member moved at a time; LP, `f64`; on random 5-worker platforms it finds the optimum from LIFO in about half the cases, at most 5 % below it); beyond, the better of LIFO and FIFO (closed forms, generic) | among all scenarios, in the first case |
//!
//! Every answer carries a certified gap: [`Summary::lower_bound`] is `items/ρ̄` for an upper
//! bound ρ̄ on the throughput of *every* scenario (fractional knapsacks from each worker's
//! own `c + w + d` and the master's ports, returns.md §5; up to 8 workers also the refined
//! bound over who is sent last and who returns first), computed with outward rounding,
//! so `lower_bound ≤ makespan ≤ bound` holds for the values as computed. On the slides'
//! platform B (full duplex) ρ̄ is 301/3420 for an optimum of 38/499: a 16 % gap.
//!
//! ## Corrections to the slides
//!
//! * **Platform B's LIFO value** (c = d = (7, 8, 12), w = (6, 5, 5), L528): printed
//!   43/580 ≈ 0.0741; the LIFO optimum is **271/4060 ≈ 0.0667** (α = 1/20, 1/70, 1/406).
//!   No LIFO scenario of B (every subset, every send order, exact LP) reaches 43/580, nor
//!   does any scenario at all; 43/580 = 1/20 + 1/70 + 2/203 looks like the last share
//!   taken four times too large. B's optimum (38/499) and FIFO value (47/632) are right,
//!   so "the optimum is neither LIFO nor FIFO" still holds, with a larger gap to LIFO.
//!   Checked by `tests/tests/returns.rs`.
//! * **FIFO with z > 1** (L641-643): "the first q processors under this order" read
//!   literally (the q with the largest `c`) is wrong; the participants are the q with
//!   the *smallest* `c`, sent (and returned) by decreasing `c`: the z < 1 rule on the
//!   time-reversed platform (c ↔ d). Example: c = (1, 2, 10), w = (1, 1, 1), d = 2c:
//!   ρ = 7/24 on workers {1, 2}; the literal reading gives 1/31.
//! * **Port model**: only full duplex reproduces B's printed optimum and FIFO values (they
//!   exceed the half-duplex bound 11/160), so it is the default.
//!
//! ## Numbers
//!
//! Closed forms never form the products `Π w/(c + d + w)` or the FIFO `π_i`, which
//! underflow long before 10⁶ workers; they carry ratios of positive terms. LPs are solved
//! in `f64` (Bland's rule, columns scaled by powers of two) and checked against exact
//! rationals within a relative 1e-12. The answer's LP also carries a dual bound (weak
//! duality from the final tableau's duals, rounded outwards): it is refactored from its
//! basis until the bound closes within [`CERTIFIED_LP_GAP`], three times at most, and is
//! called optimal only then. Costs over 12 decades at 250 workers still leave about half
//! of the LPs uncertified (`rational_optimal: false`); they are feasible plans with the
//! certified gap to every scenario's bound. Shares from an LP are converted to `N`.
//!
//! ## Memory
//!
//! The caller passes `out` and `scratch` with one element per worker and an `f64` tableau
//! of [`needs`]`(…).tableau` elements (0 for the closed forms; at most
//! (k + 2)·(2k + 2) + k + 1 for an LP over k workers): 144 bytes per worker for `f64` on
//! 64-bit targets (`Assignment<f64>` 104, `Scratch` 40). Nothing else is allocated; the
//! stack holds at most a few arrays of [`MAX_LP_WORKERS`] numbers and a histogram of
//! 2⁸ counts.
//!
//! ```
//! use divload::returns::{needs, plan, Assignment, Port, Problem, ReturnWorker, Schedule, Scratch};
//!
//! // The slides' platform A: c = w = d = (1, 1, 5).
//! let workers = [ReturnWorker::new(1.0f64, 1.0, 1.0), ReturnWorker::new(1.0, 1.0, 1.0), ReturnWorker::new(5.0, 5.0, 5.0)];
//! let problem = Problem { workers: &workers, items: 1000, schedule: Schedule::Lifo, port: Port::FullDuplex };
//! let need = needs(workers.len(), problem.schedule, problem.port)?;
//! let mut out = vec![Assignment::EMPTY; need.out];
//! let mut scratch = vec![Scratch::EMPTY; need.scratch];
//! let mut tableau = vec![0.0; need.tableau];
//! let s = plan(&problem, &mut out, &mut scratch, &mut tableau)?;
//! assert!((s.throughput - 61.0 / 135.0).abs() < 1e-15);
//! assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1000);
//! assert!(s.lower_bound <= s.makespan && s.makespan <= s.bound);
//! # Ok::<(), divload::Error>(())
//! ```

mod bound;
mod closed;
mod errors;
mod integer;
mod scenario;
pub mod types;

use crate::error::Error;
use crate::kernel::fp;
use crate::num::Real;
use crate::platform::check_sizes;
use crate::report::Method;
use integer::Returns;
pub use scenario::{
    CERTIFIED_LP_GAP, LOCAL_SEARCH_LPS, MAX_EXHAUSTIVE_WORKERS, MAX_FIFO_EXHAUSTIVE_WORKERS,
    MAX_LOCAL_SEARCH_WORKERS, MAX_LP_WORKERS,
};
use types::{col, Cols};
pub use types::{Assignment, Needs, Port, Problem, Rational, ReturnWorker, Schedule, Scratch, Summary};

impl Method {
    /// LIFO (returns in the reverse send order): the closed form of the slides' theorem
    /// (send by increasing `c + d`, everyone works, no idle), then rounded. The rational
    /// throughput is the LIFO optimum.
    pub const LIFO: Method = Method::new("lifo");
    /// FIFO (returns in the send order), then rounded: the closed form for `d ∝ c`, the
    /// exhaustive scenario LP over FIFO orders for a few workers, else the better of the
    /// two prefix rules.
    pub const FIFO: Method = Method::new("fifo");
    /// A given scenario (send order, return order): the scenario's LP (the slides'
    /// program (1)), then rounded.
    pub const SCENARIO_LP: Method = Method::new("scenario_lp");
    /// The best scenario: exhaustive over send and return orders for a few workers, else
    /// the best of LIFO, FIFO and a local search over send and return orders, then rounded.
    pub const BEST_SCENARIO: Method = Method::new("best_scenario");
}

/// Relative spread of `d_i/c_i` under which `d` counts as proportional to `c` (the FIFO
/// closed form applies). Inputs meant to be proportional (`d = z·c` computed in `f64`)
/// differ by a few ulps (≤ 1e-15). The closed form stays near-optimal under a spread δ:
/// scaling every `d_i` by at most `1 + δ` scales every LP row by at most `1 + δ`, so
/// the FIFO optimum moves by a relative δ at most, below the 1e-12 the LPs are checked to.
pub const PROPORTIONAL_TOLERANCE: f64 = 1e-12;

/// How many elements each buffer of [`plan`] and [`solve`] needs for `workers` workers,
/// and the capacity checks, before any work.
///
/// # Errors
///
/// * [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput): no workers; a given
///   scenario with no member or with send and return orders of different lengths.
/// * [`ErrorCode::Overflow`](crate::ErrorCode::Overflow): a given scenario with more than
///   [`MAX_LP_WORKERS`] members.
///
/// ```
/// use divload::returns::{needs, Port, Schedule};
/// assert_eq!(needs(1_000_000, Schedule::Lifo, Port::FullDuplex).unwrap().tableau, 0);
/// assert_eq!(needs(3, Schedule::Best, Port::FullDuplex).unwrap().tableau, 4 * 7 + 3);
/// let big = [0usize; 300];
/// let e = needs(300, Schedule::Given { send: &big, ret: &big }, Port::FullDuplex).unwrap_err();
/// assert_eq!(e.to_string(), "scenario workers: at most 256, got 300");
/// ```
pub fn needs(workers: usize, schedule: Schedule<'_>, port: Port) -> Result<Needs, Error> {
    if workers == 0 {
        return Err(Error::no_workers());
    }
    let lp = |k: usize| {
        scenario::lp_tableau(k, port).ok_or(Error::too_large(
            "scenario workers",
            MAX_LP_WORKERS as u64,
            k as u64,
        ))
    };
    let tableau = match schedule {
        Schedule::Lifo => 0,
        Schedule::Fifo if workers <= MAX_FIFO_EXHAUSTIVE_WORKERS => lp(workers)?,
        Schedule::Fifo => 0,
        Schedule::Best if workers <= MAX_LOCAL_SEARCH_WORKERS => lp(workers)?,
        Schedule::Best => 0,
        Schedule::Given { send, ret } => {
            if send.is_empty() || send.len() != ret.len() {
                return Err(Error::scenario_sets());
            }
            if send.len() > MAX_LP_WORKERS {
                return Err(Error::too_large("scenario workers", MAX_LP_WORKERS as u64, send.len() as u64));
            }
            lp(send.len())?
        }
    };
    Ok(Needs { out: workers, scratch: workers, tableau })
}

fn validate<N: Real>(
    problem: &Problem<'_, N>,
    out: usize,
    scratch: usize,
    tableau: usize,
) -> Result<Needs, Error> {
    let p = problem.workers.len();
    check_sizes::<N>(p, problem.items)?;
    let need = needs(p, problem.schedule, problem.port)?;
    if out < need.out {
        return Err(Error::buffer("returns output", need.out, out));
    }
    if scratch < need.scratch {
        return Err(Error::buffer("returns scratch", need.scratch, scratch));
    }
    if tableau < need.tableau {
        return Err(Error::buffer("LP tableau", need.tableau, tableau));
    }
    // Every scenario's ρ is at most Σ 1/(c + w + d) (each member's own row), and the LPs
    // scale their columns by those sums, so a finite total keeps every LP and closed form
    // inside f64.
    let mut rate = 0.0f64;
    for (i, w) in problem.workers.iter().enumerate() {
        w.validate(i)?;
        rate += 1.0 / w.total().to_f64();
    }
    if !rate.is_finite() {
        return Err(Error::throughput_overflow());
    }
    Ok(need)
}

/// How `d` relates to `c`, for the FIFO closed form (returns.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ratio {
    /// `d = z·c` with z < 1: the forward prefix rule is optimal.
    Below,
    /// z > 1: the reversed rule is optimal.
    Above,
    /// z = 1 (or a spread within the tolerance around 1), no worker with `c > 0`, or
    /// ratios beyond `f64`: both rules are solved and the better kept.
    One,
    /// `d` is not proportional to `c`.
    Other,
}

/// `d = z·c` for one z, within [`PROPORTIONAL_TOLERANCE`] (a worker with `c = 0` must have
/// `d = 0`), and on which side of 1 z lies.
fn ratio<N: Real>(workers: &[ReturnWorker<N>]) -> Ratio {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for w in workers {
        let (c, d) = (w.comm_per_item.to_f64(), w.return_per_item.to_f64());
        if c > 0.0 {
            let z = d / c;
            lo = lo.min(z);
            hi = hi.max(z);
        } else if d > 0.0 {
            return Ratio::Other;
        }
    }
    if lo == f64::INFINITY {
        Ratio::One
    } else if hi > lo * (1.0 + PROPORTIONAL_TOLERANCE) {
        Ratio::Other
    } else if hi < 1.0 {
        Ratio::Below
    } else if lo > 1.0 {
        Ratio::Above
    } else {
        Ratio::One
    }
}

/// The FIFO closed form in full duplex for `d = z·c` (see [`closed::fifo`]): only the rule
/// that is optimal for this z, one sort of the workers instead of two (issue 12); for
/// z = 1 both, whose values are then equal up to rounding.
fn fifo_closed<N: Real>(
    workers: &[ReturnWorker<N>],
    ratio: Ratio,
    cols: &mut Cols<'_>,
    spare: &mut [Assignment<N>],
) -> (N, usize) {
    match ratio {
        Ratio::Below => closed::prefix_rule(workers, Port::FullDuplex, false, cols),
        Ratio::Above => closed::prefix_rule(workers, Port::FullDuplex, true, cols),
        Ratio::One | Ratio::Other => closed::fifo(workers, Port::FullDuplex, cols, spare),
    }
}

/// Checks a given scenario: indices in range, no repeats, the same workers in both
/// orders. Writes `rank[a]`, the return position of send position `a`.
fn check_scenario(
    p: usize,
    send: &[usize],
    ret: &[usize],
    cols: &mut Cols<'_>,
    rank: &mut [usize],
) -> Result<(), Error> {
    // `col::FRAC` by worker index: 0 unseen, `a + 1` sent at `a`, `u64::MAX` returned too.
    for i in 0..p {
        cols.set(col::FRAC, i, 0);
    }
    for (a, &i) in send.iter().enumerate() {
        if i >= p || cols.get(col::FRAC, i) != 0 {
            return Err(Error::scenario("send", a, i, p));
        }
        cols.set(col::FRAC, i, a as u64 + 1);
    }
    for (t, &i) in ret.iter().enumerate() {
        if i >= p {
            return Err(Error::scenario("return", t, i, p));
        }
        match cols.get(col::FRAC, i) {
            0 => return Err(Error::scenario_sets()),
            u64::MAX => return Err(Error::scenario("return", t, i, p)),
            mark => {
                if let Some(r) = rank.get_mut(mark as usize - 1) {
                    *r = t;
                }
                cols.set(col::FRAC, i, u64::MAX);
            }
        }
    }
    Ok(())
}

/// A scenario's rational solution as the columns hold it (see [`rational`]).
struct Solved<N> {
    rho: N,
    members: usize,
    optimal: bool,
    method: Method,
    returns: Returns,
}

/// The rational solution of the problem's schedule into the scratch columns: the members in
/// send order with their costs and fractions `α_i/ρ`, then the other workers (fraction 0);
/// for an LP scenario also `out` (members' `return_rank`). Closed forms compute in `N`;
/// LPs in `f64`, converted to `N`. The problem is validated.
fn rational<N: Real>(
    problem: &Problem<'_, N>,
    out: &mut [Assignment<N>],
    cols: &mut Cols<'_>,
    tableau: &mut [f64],
) -> Result<Solved<N>, Error> {
    let (workers, port) = (problem.workers, problem.port);
    let p = workers.len();
    let from_f64 = |x: f64| N::from_f64(x).ok_or(Error::numeric_overflow(N::NAME));
    let mut send = [0usize; MAX_LP_WORKERS];
    let mut rank = [0usize; MAX_LP_WORKERS];
    let closed = |rho, members, optimal, method, returns| Solved { rho, members, optimal, method, returns };
    // The FIFO closed form's case (full duplex only: half duplex has no closed form).
    let fifo_ratio = match (problem.schedule, port) {
        (Schedule::Fifo, Port::FullDuplex) => ratio(workers),
        _ => Ratio::Other,
    };

    let solved = match problem.schedule {
        Schedule::Lifo => closed(closed::lifo(workers, cols), p, true, Method::LIFO, Returns::Reverse),
        Schedule::Fifo if fifo_ratio != Ratio::Other => {
            let (rho, q) = fifo_closed(workers, fifo_ratio, cols, out);
            closed(rho, q, true, Method::FIFO, Returns::Same)
        }
        Schedule::Fifo if p <= MAX_FIFO_EXHAUSTIVE_WORKERS => {
            scenario::best_fifo(workers, port, tableau, &mut send)?;
            for (a, r) in rank.iter_mut().enumerate().take(p) {
                *r = a;
            }
            let (rho, m, certified) =
                scenario::write_scenario(workers, &send[..p], &rank[..p], port, tableau, out, cols)?;
            closed(from_f64(rho)?, m, certified, Method::FIFO, Returns::Ranks)
        }
        Schedule::Fifo => {
            let (rho, q) = closed::fifo(workers, port, cols, out);
            closed(rho, q, false, Method::FIFO, Returns::Same)
        }
        Schedule::Given { send: s1, ret: s2 } => {
            check_scenario(p, s1, s2, cols, &mut rank)?;
            let k = s1.len();
            // `needs` checked k ≤ MAX_LP_WORKERS; the error repeats it for the compiler.
            let too_large = Error::too_large("scenario workers", MAX_LP_WORKERS as u64, k as u64);
            let (Some(send), Some(rank)) = (send.get_mut(..k), rank.get(..k)) else { return Err(too_large) };
            send.copy_from_slice(s1);
            let (rho, m, certified) =
                scenario::write_scenario(workers, send, rank, port, tableau, out, cols)?;
            closed(from_f64(rho)?, m, certified, Method::SCENARIO_LP, Returns::Ranks)
        }
        Schedule::Best if p <= MAX_EXHAUSTIVE_WORKERS => {
            scenario::best_exhaustive(workers, port, tableau, &mut send, &mut rank)?;
            let (rho, m, certified) =
                scenario::write_scenario(workers, &send[..p], &rank[..p], port, tableau, out, cols)?;
            closed(from_f64(rho)?, m, certified, Method::BEST_SCENARIO, Returns::Ranks)
        }
        Schedule::Best if p <= MAX_LOCAL_SEARCH_WORKERS => {
            // Start from the better of LIFO and FIFO over all workers (FIFO's
            // non-participants are ghosts whose rows are implied), then move returns.
            let lifo = closed::lifo(workers, cols);
            for (a, s) in send.iter_mut().enumerate().take(p) {
                *s = cols.index(col::WORKER, a);
            }
            // FIFO's send order goes to `rank` until the two are compared (one array of
            // `MAX_LP_WORKERS` less on the stack).
            let fifo_send = &mut rank;
            let fifo = if p <= MAX_FIFO_EXHAUSTIVE_WORKERS {
                // So that `Best` is never below `Fifo`, which is exhaustive up to here.
                from_f64(scenario::best_fifo(workers, port, tableau, fifo_send)?)?
            } else {
                let (fifo, _) = closed::fifo(workers, port, cols, out);
                for (f, s) in fifo_send.iter_mut().enumerate().take(p) {
                    *s = cols.index(col::WORKER, f);
                }
                fifo
            };
            let fifo_wins = fifo > lifo;
            if fifo_wins {
                send[..p].copy_from_slice(&rank[..p]);
            }
            for (a, r) in rank.iter_mut().enumerate().take(p) {
                *r = if fifo_wins { a } else { p - 1 - a };
            }
            scenario::local_search(workers, &mut send[..p], &mut rank[..p], port, tableau)?;
            let (rho, m, _) =
                scenario::write_scenario(workers, &send[..p], &rank[..p], port, tableau, out, cols)?;
            closed(from_f64(rho)?, m, false, Method::BEST_SCENARIO, Returns::Ranks)
        }
        Schedule::Best => {
            // LIFO's value alone first, so FIFO's scenario stays in the columns unless LIFO
            // wins.
            let lifo = closed::lifo_value(workers, cols, out);
            let (fifo, q) = closed::fifo(workers, port, cols, out);
            if lifo > fifo {
                closed(
                    closed::lifo_kept(workers, cols, out),
                    p,
                    false,
                    Method::BEST_SCENARIO,
                    Returns::Reverse,
                )
            } else {
                closed(fifo, q, false, Method::BEST_SCENARIO, Returns::Same)
            }
        }
    };
    if solved.returns == Returns::Ranks {
        // The LP wrote its scenario into `out`; the later passes read columns.
        for (k, a) in out.iter().enumerate().take(p) {
            closed::set_worker(cols, k, a.worker, closed::worker(workers, a.worker));
            cols.set_real(col::FRAC, k, a.share);
        }
    }
    if !(solved.rho.is_finite() && solved.rho > N::ZERO) {
        return Err(Error::numeric_overflow(N::NAME));
    }
    Ok(solved)
}

/// The rational solution of the problem's schedule: fills `out[..members]` with the
/// scenario's members in send order (`worker`, `return_rank`, `rate` α_i, `share`
/// `items·α_i/ρ`) and the other workers after them (rate and share 0,
/// `return_rank: None`). Closed forms compute in `N`; LPs in `f64`, converted to `N`.
///
/// # Errors
///
/// Everything [`needs`] rejects; an invalid cost ([`ReturnWorker::validate`]); zero items
/// or more than [`Real::MAX_ITEMS`]; a buffer shorter than [`needs`] says; a scenario index
/// out of range or repeated, or send and return orders over different workers; an LP
/// that the `f64` simplex cannot finish (costs spanning more than ~10¹² within one
/// scenario); a throughput that `N` cannot hold.
///
/// ```
/// use divload::returns::{solve, Assignment, Port, Problem, ReturnWorker, Schedule, Scratch};
/// // The slides' platform B and its optimal scenario: σ1 = (1, 3, 2), σ2 = (3, 1, 2).
/// let w = [ReturnWorker::new(7.0f64, 6.0, 7.0), ReturnWorker::new(8.0, 5.0, 8.0), ReturnWorker::new(12.0, 5.0, 12.0)];
/// let schedule = Schedule::Given { send: &[0, 2, 1], ret: &[2, 0, 1] };
/// let problem = Problem { workers: &w, items: 1, schedule, port: Port::FullDuplex };
/// let (mut out, mut scratch, mut tableau) = ([Assignment::EMPTY; 3], [Scratch::EMPTY; 3], [0.0; 64]);
/// let r = solve(&problem, &mut out, &mut scratch, &mut tableau)?;
/// assert!((r.throughput - 38.0 / 499.0).abs() < 1e-15);
/// # Ok::<(), divload::Error>(())
/// ```
pub fn solve<N: Real>(
    problem: &Problem<'_, N>,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch],
    tableau: &mut [f64],
) -> Result<Rational<N>, Error> {
    validate(problem, out.len(), scratch.len(), tableau.len())?;
    let p = problem.workers.len();
    // `validate` checked both lengths; the checked slices keep the no-panic proof whole
    // whether or not it is inlined.
    let (out_len, scratch_len) = (out.len(), scratch.len());
    let out = out.get_mut(..p).ok_or(Error::buffer("returns output", p, out_len))?;
    let mut cols = Cols::new(scratch.get_mut(..p).ok_or(Error::buffer("returns scratch", p, scratch_len))?);
    let solved = rational(problem, out, &mut cols, tableau)?;
    let items = N::from_u64(problem.items);
    for (k, a) in out.iter_mut().enumerate() {
        let worker = cols.index(col::WORKER, k);
        *a = if k < solved.members {
            let fraction = cols.real::<N>(col::FRAC, k);
            let rank = match solved.returns {
                Returns::Reverse => solved.members - 1 - k,
                Returns::Same => k,
                Returns::Ranks => a.return_rank.unwrap_or(k),
            };
            Assignment {
                worker,
                return_rank: Some(rank),
                rate: fraction * solved.rho,
                share: fraction * items,
                ..Assignment::EMPTY
            }
        } else {
            Assignment { worker, ..Assignment::EMPTY }
        };
    }
    Ok(Rational {
        throughput: solved.rho,
        members: solved.members,
        optimal: solved.optimal,
        method: solved.method,
    })
}

/// Plans the problem: the schedule's rational solution ([`solve`]), integer counts adding
/// up to `items` (largest remainder of the shares, each within one item of its share),
/// the integer schedule's times, the even split for comparison, and the certified bounds.
///
/// `out` receives one [`Assignment`] per worker: the scenario's members in send order,
/// then the others (count 0, times 0); `Summary::members` says how many are members.
///
/// # Errors
///
/// As [`solve`], plus times beyond the range of a fixed-point `N`.
///
/// ```
/// use divload::returns::{plan, Assignment, Port, Problem, ReturnWorker, Schedule, Scratch};
/// let w = [ReturnWorker::new(1.0, 2.0, 0.5), ReturnWorker::new(2.0, 1.0, 1.0)];
/// let problem = Problem { workers: &w, items: 100, schedule: Schedule::Best, port: Port::HalfDuplex };
/// let (mut out, mut scratch, mut tableau) = ([Assignment::EMPTY; 2], [Scratch::EMPTY; 2], [0.0; 32]);
/// let s = plan(&problem, &mut out, &mut scratch, &mut tableau).unwrap();
/// assert!(s.lower_bound <= s.makespan && s.makespan <= s.bound && s.makespan < s.even_split_makespan);
///
/// let bad = [ReturnWorker::new(1.0, 0.0, 0.5)];
/// let e = plan(&Problem { workers: &bad, ..problem }, &mut out, &mut scratch, &mut tableau).unwrap_err();
/// assert_eq!(e.to_string(), "worker 0: comp_per_item must be finite and > 0, got 0");
/// ```
pub fn plan<N: Real>(
    problem: &Problem<'_, N>,
    out: &mut [Assignment<N>],
    scratch: &mut [Scratch],
    tableau: &mut [f64],
) -> Result<Summary<N>, Error> {
    validate(problem, out.len(), scratch.len(), tableau.len())?;
    let (workers, port, items) = (problem.workers, problem.port, problem.items);
    let p = workers.len();
    // `validate` checked both lengths; the checked slices keep the no-panic proof whole
    // whether or not it is inlined.
    let (out_len, scratch_len) = (out.len(), scratch.len());
    let out = out.get_mut(..p).ok_or(Error::buffer("returns output", p, out_len))?;
    let mut cols = Cols::new(scratch.get_mut(..p).ok_or(Error::buffer("returns scratch", p, scratch_len))?);
    let solved = rational(problem, out, &mut cols, tableau)?;
    let members = solved.members;
    let finished = integer::finish(items, port, solved.rho, members, solved.returns, out, &mut cols);
    let (makespan, even_split_makespan) = (finished.makespan, finished.even_split);
    let bound = integer::bound_for::<N>(finished.bound, members);
    let throughput_bound = bound::throughput_bound(workers, port, &mut cols, finished.known);
    let n_ops = integer::evaluation_ops(members);
    let lower_bound = if throughput_bound.is_finite() && throughput_bound > 0.0 {
        // `items` is exact in f64 (≤ 2⁵³) and ρ̄ an exact upper bound: one rounding.
        fp::lower_for::<N>(items as f64 / throughput_bound, 1, n_ops)
    } else {
        N::ZERO
    };
    let summary = Summary {
        items,
        port,
        method: solved.method,
        throughput: solved.rho,
        rational_optimal: solved.optimal,
        members,
        participating: finished.participating,
        makespan,
        rational_makespan: N::from_u64(items) / solved.rho,
        lower_bound,
        bound,
        even_split_makespan,
        throughput_bound,
    };
    if ![makespan, summary.rational_makespan, bound, even_split_makespan].iter().all(|t| t.is_finite()) {
        return Err(Error::numeric_overflow(N::NAME));
    }
    Ok(summary)
}

/// A certified upper bound on the throughput of every scenario (returns.md §5), in items
/// per second: `items / throughput_bound` is below the makespan of every plan.
///
/// # Errors
///
/// No workers, an invalid cost, or a `scratch` shorter than the number of workers.
///
/// ```
/// use divload::returns::{throughput_bound, Port, ReturnWorker, Scratch};
/// let a = [ReturnWorker::new(1.0, 1.0, 1.0), ReturnWorker::new(1.0, 1.0, 1.0), ReturnWorker::new(5.0, 5.0, 5.0)];
/// let ub = throughput_bound(&a, Port::HalfDuplex, &mut [Scratch::EMPTY; 3]).unwrap();
/// assert!(ub >= 0.5 && ub < 0.5 + 1e-14); // tight for platform A
/// ```
pub fn throughput_bound<N: Real>(
    workers: &[ReturnWorker<N>],
    port: Port,
    scratch: &mut [Scratch],
) -> Result<f64, Error> {
    let p = workers.len();
    if p == 0 {
        return Err(Error::no_workers());
    }
    if scratch.len() < p {
        return Err(Error::buffer("returns scratch", p, scratch.len()));
    }
    for (i, w) in workers.iter().enumerate() {
        w.validate(i)?;
    }
    Ok(bound::throughput_bound(workers, port, &mut Cols::new(&mut scratch[..p]), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The FIFO closed form solves only the rule that is optimal for its z (one sort of the
    /// workers instead of two): the same ρ, prefix and columns as solving both rules and
    /// keeping the better, bit for bit, with z on either side of 1, in `f64` and `f32`
    /// (there with z a power of two, as other products round `d` out of proportion).
    #[test]
    fn the_optimal_rule_alone_is_the_better_of_both() {
        fn check<N: Real>(unit: &mut impl FnMut() -> f64, case: usize) -> Ratio {
            let p = 1 + case % 60;
            let z = if N::NAME == "f64" {
                [0.05, 0.5, 0.97, 1.03, 2.0, 20.0][case % 6] * (0.9 + 0.2 * unit())
            } else {
                [0.0625, 0.5, 2.0, 16.0][case % 4]
            };
            let workers: [ReturnWorker<N>; 60] = core::array::from_fn(|_| {
                let (c, w) = (0.01 + unit(), 0.5 + 4.0 * unit());
                let n = |x: f64| N::from_f64(x).unwrap_or(N::ONE);
                ReturnWorker::new(n(c), n(w), n(c) * n(z))
            });
            let workers = &workers[..p];
            let side = ratio(workers);
            let (mut one, mut both) = ([Scratch::EMPTY; 60], [Scratch::EMPTY; 60]);
            let a = fifo_closed(workers, side, &mut Cols::new(&mut one[..p]), &mut []);
            let b = closed::fifo(workers, Port::FullDuplex, &mut Cols::new(&mut both[..p]), &mut []);
            assert_eq!((a.0.to_word(), a.1), (b.0.to_word(), b.1), "case {case}, {side:?}");
            assert_eq!(one[..p], both[..p], "case {case}");
            side
        }
        let mut rnd = crate::num::xorshift(11);
        let mut unit = move || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        let mut seen = [0usize; 2];
        for case in 0..1200 {
            for side in [check::<f64>(&mut unit, case), check::<f32>(&mut unit, case)] {
                match side {
                    Ratio::Below => seen[0] += 1,
                    Ratio::Above => seen[1] += 1,
                    _ => panic!("case {case}: {side:?}"),
                }
            }
        }
        assert!(seen[0] > 500 && seen[1] > 500, "{seen:?}");
    }

    /// Memory per worker from the caller (module documentation): 104 + 40 bytes for `f64`
    /// on 64-bit targets, as before the scratch became columns (issue 12).
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn per_worker_memory_is_as_documented() {
        assert_eq!(core::mem::size_of::<Assignment<f64>>(), 104);
        assert_eq!(core::mem::size_of::<Scratch>(), 40);
    }
}
