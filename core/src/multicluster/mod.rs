//! Iterative codes on several clusters: the BIASED load distribution of heien (extended
//! LogP, §2–§4), for a ring code (§3.1), an all-to-all code (§3.2) or any code whose step
//! time is affine in the load, with integer counts and a what-if analysis (§4.4).
//!
//! Processors inside a cluster talk over fast links, clusters over slow ones, so with an
//! even split the processors with more slow links finish each step later and everyone
//! waits for them. Each processor's step time is `a·F + b` in its load fraction `F`
//! (computation `a`, communication `b`); processors with the same `a` and `b` form a
//! class ([`Class`]: a cluster's processors with the same number `r` of fast links). The
//! BIASED split equalises the step times in closed form over the classes (`biased`), then
//! whole units (lattice columns, objects) go to the processors with the smallest integer
//! step time (`counts`). EVEN, every processor `1/P`, is reported as the baseline.
//!
//! What the paper leaves open, and what this module does:
//!
//! * **Model time.** [`Summary::report`]'s `makespan` is the time of the whole run,
//!   `iterations × step time`. For the ring, eq. 4 is the time of two half-steps, and one
//!   Monte Carlo sweep is `S/4` of them, so the run is `steps·S/4` iterations (this
//!   reproduces Tables 3 and 4 to the printed digits). For the all-to-all code, a step is
//!   one chunk, `S/(P·K)` of them (eq. 11 is the whole run).
//! * **Eq. 14 is misprinted.** As printed, `δ_r` has numerator and denominator swapped
//!   and a spurious minus sign; it gives processors with more fast links less load. From
//!   eq. 12 with `b` dropped, `F_r·a_r = F_{r+1}·a_{r+1}`, so `δ_r = a_{r+1}/a_r` and eq. 15
//!   telescopes to `F_r ∝ 1/a_r`, which the closed form computes.
//! * **Fixed costs in the sort.** The paper drops `b` when it splits the sort (L162); that
//!   is [`FixedCosts::Ignored`], which reproduces its Table 2. The default,
//!   [`FixedCosts::Balanced`], keeps `b`: the optimum of the model as stated.
//! * **Processors with a negative fraction.** A class whose fixed time `b` exceeds the
//!   common step time `T` cannot be balanced (`F < 0`). With custom costs it is left out
//!   of the run and the rest re-solved (`T` only falls; exact). In a ring or an all-to-all
//!   code a processor cannot simply be left idle: with no load it still pays `b` (a ring
//!   processor relays its neighbours' borders), and taking it out changes its neighbours'
//!   links (a ring cluster's new end has `r = 1` again) or `P` (all-to-all). So the plan
//!   compares whole sets of clusters and runs the fastest: every cluster, the
//!   unbalanceable processors idle at their `b` (step time `max(T, max b)`); the best
//!   cluster alone (a ring of one cluster closes on itself, all `r = 2`); and, for a ring
//!   with one slow link, every multi-processor cluster with the 1-processor clusters
//!   taken out (the derivation's exact case). With `b_0 ≥ b_1 ≥ b_2` these cover every
//!   subset of clusters (a set's step time is at least the largest `b` of the kinds of
//!   processors it holds, and the candidate with the same kinds and more clusters is no
//!   slower), so the choice is exact. Otherwise (per-pair links, all-to-all) the third
//!   candidate is what is left after taking out, round by round, every cluster with an
//!   unbalanceable class, and the plan says `exact: false`. When every class can be
//!   balanced, every processor takes part, as in the paper.
//! * **Beyond the paper.** Per-cluster [`Cluster::speed`] (computation terms are divided
//!   by it), per-pair slow links ([`Links::pairs`]; on a ring the clusters' order then
//!   matters and is searched exhaustively, first cluster fixed, up to
//!   [`MAX_ORDER_CLUSTERS`]), and custom step costs ([`Application::Custom`]).
//!
//! Numbers are `f64` (the formulas square processor counts and multiply by `S`, beyond
//! `f32`'s and `Q32`'s range for realistic platforms). Memory is the caller's: [`needs`]
//! gives the lengths of the class and processor buffers. Time O(P + C log C) for `P`
//! processors in `C` classes, plus O(C log C) per round of leaving clusters out and
//! 2 520 solves of O(C log C) for an order search over 8 clusters.

mod biased;
mod classes;
mod counts;
mod types;

pub use types::{
    Application, Class, Cluster, FixedCosts, Link, Links, Needs, Options, PairLink, Pattern, Position,
    Problem, Processor, RingOrder, StepCost, Summary, WhatIf, MAX_ORDER_CLUSTERS, MAX_PROCESSORS, MAX_UNITS,
};

use crate::error::Error;
use crate::kernel::fp::lower_for;
use crate::num::range::{AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::report::{Method, Report};
use classes::{build, pairs_matter, Platform};

impl Method {
    /// BIASED distribution (heien §3): equal step times in closed form over processor
    /// classes, then the integer counts with the smallest integer step time for the
    /// processors that take part.
    pub const BIASED: Method = Method::new("biased");
}

/// The buffer lengths [`plan`] needs for `problem`, after checking every input.
///
/// # Errors
///
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) naming the field and its
/// valid range (no clusters, a cluster of 0 processors, a speed, link time or application
/// parameter that is NaN, infinite, negative or 0 where it must be positive, a pair of
/// clusters out of range or listed twice, custom costs missing for a cluster);
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) for more than [`MAX_PROCESSORS`]
/// processors, more than [`MAX_UNITS`] units, or per-pair slow links with more than
/// [`MAX_ORDER_CLUSTERS`] clusters.
///
/// ```
/// use divload::multicluster::{needs, Application, Cluster, Links, Options, Problem};
/// let clusters = [Cluster::new(8), Cluster::new(8), Cluster::new(1)];
/// let problem = Problem {
///     clusters: &clusters,
///     links: Links::PAPER,
///     application: Application::Ring { lattice: 8192, flip_time: 0.55e-6, steps: 20 },
///     options: Options::default(),
/// };
/// let n = needs(&problem)?;
/// assert_eq!((n.classes, n.processors), (5, 17));
/// let bad = Problem { clusters: &[Cluster { processors: 4, speed: f64::NAN }], ..problem };
/// assert_eq!(needs(&bad).unwrap_err().to_string(), "clusters[0].speed: must be finite and > 0, got NaN");
/// # Ok::<(), divload::Error>(())
/// ```
pub fn needs(problem: &Problem<'_>) -> Result<Needs, Error> {
    needs_of(&platform(problem, &[]))
}

/// The BIASED plan: writes the classes to `classes` and one entry per processor (clusters in
/// order, processors in order within each) to `processors`, and returns the summary.
///
/// `classes` and `processors` need the lengths [`needs`] gives.
///
/// # Errors
///
/// Those of [`needs`]; [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when
/// a buffer is shorter than [`needs`] says (the message gives the length);
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when a step time is not finite in
/// `f64`.
///
/// ```
/// use divload::multicluster::{plan, Application, Class, Cluster, Links, Options, Problem, Processor};
/// // Spin 4 of the paper: two clusters of 8 and 16 single processors on a ring.
/// let mut clusters = [Cluster::new(1); 18];
/// clusters[0] = Cluster::new(8);
/// clusters[1] = Cluster::new(8);
/// let problem = Problem {
///     clusters: &clusters,
///     links: Links::PAPER,
///     application: Application::Ring { lattice: 8192, flip_time: 0.55e-6, steps: 20 },
///     options: Options::default(),
/// };
/// let mut classes = [Class::EMPTY; 36];
/// let mut procs = [Processor::EMPTY; 32];
/// let s = plan(&problem, &mut classes, &mut procs)?;
/// assert!((s.rational_makespan - 44.493).abs() < 1e-3); // Table 3: 44.5 s
/// assert!(s.report.lower_bound <= s.report.makespan);
/// assert_eq!(procs.iter().map(|p| p.count).sum::<u64>(), 8192);
/// assert!(procs[1].count > procs[0].count); // inside a cluster (r = 2) beats its end (r = 1)
/// # Ok::<(), divload::Error>(())
/// ```
pub fn plan(
    problem: &Problem<'_>,
    classes: &mut [Class],
    processors: &mut [Processor],
) -> Result<Summary, Error> {
    plan_on(&platform(problem, &[]), problem.options, classes, processors)
}

/// The buffer lengths [`what_if`] needs: the largest of the base platform's and each
/// platform with one addition.
///
/// # Errors
///
/// Those of [`needs`], for the base platform and each addition;
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when the additions would plan more
/// than [`WHAT_IF_WORK`] processors in all.
pub fn what_if_needs(problem: &Problem<'_>, additions: &[&[Cluster]]) -> Result<Needs, Error> {
    let mut n = needs(problem)?;
    let mut work = 0u64;
    for extra in additions {
        let m = needs_of(&platform(problem, extra))?;
        n.classes = n.classes.max(m.classes);
        n.processors = n.processors.max(m.processors);
        work = work.saturating_add(m.processors as u64);
    }
    if work > WHAT_IF_WORK {
        return Err(Error::too_large("what_if: processors planned", WHAT_IF_WORK, work));
    }
    Ok(n)
}

/// Most processors planned over all of a what-if's additions: each addition is a plan of
/// the whole platform, O(processors), about 6 ns per processor here, so this bounds a
/// what-if to about 10 s (2·10⁴ additions to 10⁵ processors took 11.5 s; a document of
/// 2²⁰ additions to as many processors, hours).
pub const WHAT_IF_WORK: u64 = 1 << 31;

/// What-if analysis (§4.4, Table 4): plans the platform as it is, and with each candidate
/// addition of clusters (appended after the given ones, so [`PairLink`] indices from
/// `problem.clusters.len()` on name an addition's clusters), writing one answer per
/// addition to `answers` with its predicted time and speedup `1 − T_new/T_base`. Returns
/// the base plan's summary. The buffers are scratch, sized by [`what_if_needs`]; they hold
/// the last plan made.
///
/// # Errors
///
/// Those of [`what_if_needs`] and [`plan`]; [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall)
/// when `answers` is shorter than `additions`.
///
/// ```
/// use divload::multicluster::*;
/// // Table 4 at S = 8192: add one cluster of 8, or three of 4, to two clusters of 8.
/// let base = [Cluster::new(8); 2];
/// let problem = Problem {
///     clusters: &base,
///     links: Links::PAPER,
///     application: Application::Ring { lattice: 8192, flip_time: 0.55e-6, steps: 20 },
///     options: Options::default(),
/// };
/// let additions: [&[Cluster]; 2] = [&[Cluster::new(8)], &[Cluster::new(4); 3]];
/// let n = what_if_needs(&problem, &additions)?;
/// let (mut classes, mut procs) = ([Class::EMPTY; 16], [Processor::EMPTY; 32]);
/// assert!(n.classes <= 16 && n.processors <= 32);
/// let mut answers = [WhatIf::EMPTY; 2];
/// let base = what_if(&problem, &additions, &mut classes, &mut procs, &mut answers)?;
/// assert!((base.rational_makespan - 54.42).abs() < 0.01);
/// assert!((answers[0].speedup - 0.283).abs() < 0.001 && (answers[1].speedup - 0.334).abs() < 0.001);
/// # Ok::<(), divload::Error>(())
/// ```
pub fn what_if(
    problem: &Problem<'_>,
    additions: &[&[Cluster]],
    classes: &mut [Class],
    processors: &mut [Processor],
    answers: &mut [WhatIf],
) -> Result<Summary, Error> {
    what_if_needs(problem, additions)?;
    if answers.len() < additions.len() {
        return Err(Error::buffer("answers", additions.len(), answers.len()));
    }
    let base = plan(problem, classes, processors)?;
    for (extra, answer) in additions.iter().zip(answers.iter_mut()) {
        let s = plan_on(&platform(problem, extra), problem.options, classes, processors)?;
        *answer = WhatIf {
            rational_makespan: s.rational_makespan,
            makespan: s.report.makespan,
            speedup: 1.0 - s.rational_makespan / base.rational_makespan,
        };
    }
    Ok(base)
}

fn platform<'a>(problem: &Problem<'a>, extra: &'a [Cluster]) -> Platform<'a> {
    Platform { base: problem.clusters, extra, links: problem.links, application: problem.application }
}

fn check_link(link: &crate::multicluster::Link, names: [&'static str; 3]) -> Result<(), Error> {
    for (name, v) in names.into_iter().zip([link.latency, link.overhead, link.gap]) {
        NON_NEGATIVE.parameter(name, v)?;
    }
    Ok(())
}

fn check_units(name: &'static str, v: u64) -> Result<(), Error> {
    if v == 0 {
        return Err(Error::parameter(name, AT_LEAST_ONE.says, 0.0));
    }
    if v > MAX_UNITS {
        return Err(Error::too_large(name, MAX_UNITS, v));
    }
    Ok(())
}

/// Checks every input and returns the buffer lengths.
fn needs_of(pf: &Platform<'_>) -> Result<Needs, Error> {
    let count = pf.len();
    if count == 0 {
        return Err(Error::parameter("clusters", "at least one cluster", 0.0));
    }
    let pairs = pairs_matter(&pf.links);
    let ring = matches!(pf.application, Application::Ring { .. });
    let mut processors = 0u64;
    let mut classes = 0usize;
    for i in 0..count {
        let c = pf.cluster(i);
        if c.processors == 0 {
            return Err(Error::entry_value("clusters", i, "processors", AT_LEAST_ONE.says, 0.0));
        }
        POSITIVE.entry("clusters", i, "speed", c.speed)?;
        processors += u64::from(c.processors);
        classes += match (ring, c.processors, pairs) {
            (false, _, _) | (true, 1, _) | (true, 2, false) => 1,
            (true, 2, true) | (true, _, false) => 2,
            (true, _, true) => 3,
        };
    }
    if processors > MAX_PROCESSORS {
        return Err(Error::too_large("processors in all clusters", MAX_PROCESSORS, processors));
    }
    check_link(&pf.links.fast, ["links.fast.latency", "links.fast.overhead", "links.fast.gap"])?;
    check_link(&pf.links.slow, ["links.slow.latency", "links.slow.overhead", "links.slow.gap"])?;
    for (i, p) in pf.links.pairs.iter().enumerate() {
        for (field, v) in [("first", p.first), ("second", p.second)] {
            if v >= count {
                return Err(Error::entry_value(
                    "links.pairs",
                    i,
                    field,
                    "a cluster index below the cluster count",
                    v as f64,
                ));
            }
        }
        if p.first == p.second {
            return Err(Error::entry_value(
                "links.pairs",
                i,
                "second",
                "a cluster other than first",
                p.second as f64,
            ));
        }
        let same = |q: &PairLink| {
            (q.first, q.second) == (p.first, p.second) || (q.first, q.second) == (p.second, p.first)
        };
        if pf.links.pairs.get(..i).is_some_and(|before| before.iter().any(same)) {
            return Err(Error::entry_value(
                "links.pairs",
                i,
                "second",
                "a pair not listed before",
                p.second as f64,
            ));
        }
        for (field, v) in [("latency", p.link.latency), ("overhead", p.link.overhead), ("gap", p.link.gap)] {
            NON_NEGATIVE.entry("links.pairs", i, field, v)?;
        }
    }
    if pairs && count > MAX_ORDER_CLUSTERS {
        return Err(Error::too_large(
            "clusters with per-pair slow links (pairs that differ from links.slow)",
            MAX_ORDER_CLUSTERS as u64,
            count as u64,
        ));
    }
    match pf.application {
        Application::Ring { lattice, flip_time, steps } => {
            check_units("application.lattice", lattice)?;
            POSITIVE.parameter("application.flip_time", flip_time)?;
            // A count the times multiply in f64, so exact only up to 2⁵³.
            check_units("application.steps", steps)?;
        }
        Application::AllToAll { objects, chunk, sort_time, words_per_object } => {
            check_units("application.objects", objects)?;
            check_units("application.chunk", chunk)?;
            // A chunk is `chunk` of the objects: more than there are is no chunk at all.
            // (Fewer than one chunk per processor is the model's own continuous count of
            // iterations, objects / (P·chunk), and stays allowed.)
            if chunk > objects {
                return Err(Error::parameter(
                    "application.chunk",
                    "at most application.objects",
                    chunk as f64,
                ));
            }
            POSITIVE.parameter("application.sort_time", sort_time)?;
            NON_NEGATIVE.parameter("application.words_per_object", words_per_object)?;
        }
        Application::Custom { units, iterations, costs } => {
            check_units("application.units", units)?;
            POSITIVE.parameter("application.iterations", iterations)?;
            if costs.len() < count {
                return Err(Error::parameter(
                    "application.costs",
                    "one entry per cluster",
                    costs.len() as f64,
                ));
            }
            for (i, c) in costs.iter().enumerate() {
                POSITIVE.entry("application.costs", i, "per_load", c.per_load)?;
                NON_NEGATIVE.entry("application.costs", i, "fixed", c.fixed)?;
            }
        }
    }
    Ok(Needs { classes, processors: processors as usize })
}

/// The next permutation in lexicographic order; `false` after the last.
fn next_permutation(a: &mut [usize]) -> bool {
    // `get` rather than indexing: the indices are in range, and the `nopanic` proof needs
    // the compiler to see no panic path.
    let Some(i) = (1..a.len()).rev().find(|&i| a.get(i - 1) < a.get(i)) else { return false };
    let Some(j) = (i..a.len()).rev().find(|&j| a.get(j) > a.get(i - 1)) else { return false };
    crate::kernel::sort::swap(a, i - 1, j);
    if let Some(tail) = a.get_mut(i..) {
        tail.reverse();
    }
    true
}

/// The ring order with the smallest rational BIASED step time, every cluster taking part:
/// the first cluster fixed, and of an order and its reverse only the first, so
/// `(C − 1)!/2` orders.
fn search_order(pf: &Platform<'_>, classes: &mut [Class]) -> Result<RingOrder, Error> {
    let count = pf.len().min(MAX_ORDER_CLUSTERS);
    let mut perm = [0usize; MAX_ORDER_CLUSTERS];
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    let mut best = (f64::INFINITY, perm);
    loop {
        let forward = count < 3 || perm.get(1) < perm.get(count - 1);
        if forward {
            let order = RingOrder::searched(count, perm);
            let built = build(pf, &order, |_| true, classes)?;
            let cls = classes.get_mut(..built.classes).unwrap_or(&mut []);
            let split = biased::solve(cls, built.param_ops);
            let time = split.step.max(floor_of(cls));
            if time < best.0 {
                best = (time, perm);
            }
        }
        if !next_permutation(perm.get_mut(1..count).unwrap_or(&mut [])) {
            break;
        }
    }
    Ok(RingOrder::searched(count, best.1))
}

fn plan_on(
    pf: &Platform<'_>,
    options: Options,
    classes: &mut [Class],
    processors: &mut [Processor],
) -> Result<Summary, Error> {
    let needs = needs_of(pf)?;
    if classes.len() < needs.classes {
        return Err(Error::buffer("classes", needs.classes, classes.len()));
    }
    if processors.len() < needs.processors {
        return Err(Error::buffer("processors", needs.processors, processors.len()));
    }
    let count = pf.len();
    let ring = matches!(pf.application, Application::Ring { .. });
    let custom = matches!(pf.application, Application::Custom { .. });
    let pairs = pairs_matter(&pf.links);
    let order = if ring && pairs { search_order(pf, classes)? } else { RingOrder::given(count) };

    // While solving, the processor buffer's first `count` entries (there is at least one
    // processor per cluster) say which clusters take part.
    let flags = processors.get_mut(..count).unwrap_or(&mut []);
    for p in flags.iter_mut() {
        p.participates = true;
    }
    let mut built = build(pf, &order, |c| active(processors, c), classes)?;
    let even = biased::even_step(classes.get(..built.classes).unwrap_or(&[]), built.processors);
    let even_iterations = built.iterations;
    let mut split = biased::solve(classes.get_mut(..built.classes).unwrap_or(&mut []), built.param_ops);
    let balanced = options.fixed_costs == FixedCosts::Balanced;
    let all_balanced = split.dropped == 0;
    // Whether the set of processors taking part is provably the best one, given that the
    // integer plan is no slower than `others`, the least model time of any other set.
    let mut set_exact = true;
    let mut others = f64::INFINITY;
    if !balanced {
        // The paper's split gives every processor a positive share (F ∝ 1/a).
        for c in classes.iter_mut().take(built.classes) {
            c.participates = true;
        }
    } else if custom {
        // Custom classes are independent: one left out costs nothing, and any plan that
        // keeps it takes at least its b.
        for c in classes.iter().take(built.classes).filter(|c| !c.participates) {
            others = others.min(c.fixed * built.iterations);
        }
    } else if !all_balanced {
        (built, split, set_exact) = choose_set(pf, &order, classes, processors, (built, split), &mut others)?;
    }
    let cls = classes.get_mut(..built.classes).unwrap_or(&mut []);
    // A processor that takes part pays its fixed time even with no load (a ring relays
    // its neighbours' borders), so the step time is at least the largest one.
    let floor = cls.iter().filter(|c| c.participates).map(|c| c.fixed).fold(0.0, f64::max);
    let rational_step = if balanced { split.step.max(floor) } else { biased::split_ignoring_fixed(cls) };
    let units = pf.units();
    let searched = counts::integer(cls, units, balanced);
    let step = counts::fill(cls, count, |c| pf.cluster(c).processors, &order, units, processors);
    let participating = processors.iter().take(needs.processors).filter(|p| p.participates).count() as u64;
    let dropped_clusters =
        processors.iter().take(needs.processors).filter(|p| p.index == 0 && !p.participates).count();
    let iterations = built.iterations;
    // The makespan: a·x (1), /N (1), +b (1) after the roundings behind a and b, then
    // times the iterations.
    let makespan_ops = 3 + built.param_ops + 1 + built.iteration_ops;
    let by_level =
        lower_for::<f64>(iterations * split.step, split.ops + built.iteration_ops + 1, makespan_ops);
    let by_floor =
        lower_for::<f64>(iterations * floor, built.param_ops + built.iteration_ops + 1, makespan_ops);
    let lower_bound = by_level.max(by_floor);
    let (makespan, rational_makespan, even_makespan) =
        (iterations * step, iterations * rational_step, even_iterations * even);
    let exact = balanced && step == searched && (all_balanced || (set_exact && makespan <= others));
    // A time beyond `f64` is an error, as in the other models, not a `null` in the result
    // document (the step times are finite; their product with 10²⁹⁵ iterations need not be).
    for (t, what) in [
        (makespan, "makespan (iterations × step time)"),
        (rational_makespan, "rational makespan (iterations × step time)"),
        (even_makespan, "even split's makespan (iterations × step time)"),
    ] {
        if !t.is_finite() {
            return Err(Error::time_overflow(
                what,
                "give fewer iterations, smaller costs, or times in a larger unit",
            ));
        }
    }
    Ok(Summary {
        report: Report { method: Method::BIASED, makespan, lower_bound, exact },
        step_time: step,
        rational_step_time: rational_step,
        rational_makespan,
        even_step_time: even,
        even_makespan,
        iterations,
        units,
        classes: built.classes,
        participating,
        dropped_clusters,
        ring_order: order,
    })
}

/// Which clusters take part: one candidate set.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    All,
    Multi,
    Dropped,
    Alone(usize),
}

/// Keeps the best of `best` and a candidate, and the least time of the others.
fn consider(best: &mut (Choice, f64), others: &mut f64, choice: Choice, time: f64) {
    if time < best.1 {
        *others = others.min(best.1);
        *best = (choice, time);
    } else {
        *others = others.min(time);
    }
}

/// The largest fixed time of the built classes: everyone taking part pays it.
fn floor_of(classes: &[Class]) -> f64 {
    classes.iter().map(|c| c.fixed).fold(0.0, f64::max)
}

/// Chooses the clusters of a ring or all-to-all run when some class cannot be balanced
/// (its `b` exceeds the common step time): every cluster (those classes idle, at their
/// fixed time), the best cluster alone, and for a ring without per-pair links every
/// multi-processor cluster (the 1-processor ones taken out); otherwise the clusters left
/// after taking out, round by round, every cluster with a class that cannot be balanced.
/// With `b_0 ≥ b_1 ≥ b_2` (fast exchanges no slower than slow ones) the ring candidates
/// cover every subset: a set's time is at least the largest `b` of the kinds of
/// processors it holds, and the candidate with the same kinds and more clusters is no
/// slower. Leaves the chosen set's classes built, all taking part, and returns whether
/// the choice is provably best (given the integer plan stays within `others`).
fn choose_set(
    pf: &Platform<'_>,
    order: &RingOrder,
    classes: &mut [Class],
    processors: &mut [Processor],
    (built, split): (classes::Built, biased::Split),
    others: &mut f64,
) -> Result<(classes::Built, biased::Split, bool), Error> {
    let count = pf.len();
    let ring = matches!(pf.application, Application::Ring { .. });
    let plain_ring = ring && !pairs_matter(&pf.links);
    let floor = floor_of(classes.get(..built.classes).unwrap_or(&[]));
    let mut best = (Choice::All, split.step.max(floor) * built.iterations);
    if plain_ring {
        let multi = (0..count).filter(|&c| pf.cluster(c).processors >= 2).count();
        if multi > 0 && multi < count {
            for (c, p) in processors.iter_mut().take(count).enumerate() {
                p.participates = pf.cluster(c).processors >= 2;
            }
            let (b, s) = rebuild(pf, order, classes, processors)?;
            let floor = floor_of(classes.get(..b.classes).unwrap_or(&[]));
            consider(&mut best, others, Choice::Multi, s.step.max(floor) * b.iterations);
        }
    } else {
        let (mut b, mut s) = (built, split);
        let mut left = true;
        while s.dropped > 0 && left {
            for k in 0..b.classes {
                let Some(&c) = classes.get(k) else { break };
                if let Some(p) = processors.get_mut(c.cluster).filter(|_| !c.participates) {
                    p.participates = false;
                }
            }
            left = (0..count).any(|c| active(processors, c));
            if left {
                (b, s) = rebuild(pf, order, classes, processors)?;
            }
        }
        if left {
            consider(&mut best, others, Choice::Dropped, s.step * b.iterations);
        }
    }
    let (alone, time, second) = best_alone(pf);
    consider(&mut best, others, Choice::Alone(alone), time);
    *others = others.min(second);
    for (c, p) in processors.iter_mut().take(count).enumerate() {
        p.participates = match best.0 {
            Choice::All => true,
            Choice::Multi => pf.cluster(c).processors >= 2,
            Choice::Dropped => p.participates,
            Choice::Alone(a) => c == a,
        };
    }
    let (b, s) = rebuild(pf, order, classes, processors)?;
    for c in classes.iter_mut().take(b.classes) {
        c.participates = true;
    }
    let ordered = classes::ring_exchange(pf.links.fast) <= classes::ring_exchange(pf.links.slow);
    Ok((b, s, plain_ring && ordered))
}

fn active(processors: &[Processor], c: usize) -> bool {
    processors.get(c).is_some_and(|p| p.participates)
}

/// Classes and their BIASED solution for the clusters flagged as taking part.
fn rebuild(
    pf: &Platform<'_>,
    order: &RingOrder,
    classes: &mut [Class],
    processors: &[Processor],
) -> Result<(classes::Built, biased::Split), Error> {
    let built = build(pf, order, |c| active(processors, c), classes)?;
    let split = biased::solve(classes.get_mut(..built.classes).unwrap_or(&mut []), built.param_ops);
    Ok((built, split))
}

/// The cluster that alone (the others out of the run) gives the shortest run, that run's
/// model time with an even split, and the next shortest such time.
fn best_alone(pf: &Platform<'_>) -> (usize, f64, f64) {
    let mut best = (0, f64::INFINITY, f64::INFINITY);
    for c in 0..pf.len() {
        let (step, iterations) = pf.alone(c);
        let t = step * iterations;
        if t < best.1 {
            best = (c, t, best.1);
        } else if t < best.2 {
            best.2 = t;
        }
    }
    best
}
