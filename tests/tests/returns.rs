//! Oracles for the return-messages model (`divload::returns`; slides "With return
//! messages", `docs/derivations/returns.md`):
//!
//! * an exact-rational simplex (BigRational, Bland's rule) on the scenario LP, and
//!   exhaustive searches over participant sets and orders with it (LIFO, FIFO, all);
//! * the slides' platforms A and B reproduced exactly, and B's misprinted LIFO value
//!   (43/580) shown unreachable by any LIFO scenario (the correct value is 271/4060);
//! * the LIFO theorem and the FIFO rule against the exhaustive LP on random instances;
//! * closed forms at 10⁶ workers against their geometric-series values (no underflow);
//! * properties of every plan: counts add up, `lower_bound ≤ makespan ≤ bound`.
//!
//! Error budget: the `f64` LP and closed forms are compared with exact rationals within a
//! relative 1e-12. The LPs here have at most 5 rows with small integer costs, scaled to
//! entries of order one, and take a handful of pivots; each pivot loses a few ulps, so the
//! expected error is ~1e-15 and 1e-12 leaves a factor ~1000 for conditioning. Closed forms
//! at 10⁶ workers accumulate a few roundings per worker (relative ~1e-10 worst case), so
//! they are checked within 1e-8.

use divload::returns::{
    needs, plan, solve, throughput_bound, Assignment, Port, Problem, Rational, ReturnWorker, Schedule,
    Scratch, Summary, MAX_LP_WORKERS,
};
use divload::{ErrorCode, Method, Real};
use divload_tests::Lcg;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use proptest::prelude::*;

type Q = BigRational;

fn qi(x: i64) -> Q {
    Q::from_integer(BigInt::from(x))
}

fn qf(x: f64) -> Q {
    Q::from_float(x).expect("finite")
}

fn frac(a: i64, b: i64) -> Q {
    Q::new(BigInt::from(a), BigInt::from(b))
}

// ------------------------------------------------------------------ exact simplex

/// max c·x s.t. A x ≤ b, x ≥ 0, b ≥ 0: exact, Bland's rule. Returns (value, x).
fn simplex_max(a: &[Vec<Q>], b: &[Q], c: &[Q]) -> (Q, Vec<Q>) {
    let o = divload_tests::exact::simplex_max(a, b, c);
    (o.value, o.x)
}

#[derive(Clone, Debug)]
struct Plat {
    c: Vec<Q>,
    w: Vec<Q>,
    d: Vec<Q>,
}

impl Plat {
    fn ints(c: &[i64], w: &[i64], d: &[i64]) -> Self {
        Plat {
            c: c.iter().map(|&x| qi(x)).collect(),
            w: w.iter().map(|&x| qi(x)).collect(),
            d: d.iter().map(|&x| qi(x)).collect(),
        }
    }
    fn workers(&self) -> Vec<ReturnWorker<f64>> {
        (0..self.c.len())
            .map(|i| {
                ReturnWorker::new(
                    self.c[i].to_f64().unwrap(),
                    self.w[i].to_f64().unwrap(),
                    self.d[i].to_f64().unwrap(),
                )
            })
            .collect()
    }
    fn from_workers(ws: &[ReturnWorker<f64>]) -> Self {
        Plat {
            c: ws.iter().map(|w| qf(w.comm_per_item)).collect(),
            w: ws.iter().map(|w| qf(w.comp_per_item)).collect(),
            d: ws.iter().map(|w| qf(w.return_per_item)).collect(),
        }
    }
}

/// Exact scenario LP: (ρ, α in send order).
fn scenario_lp(pl: &Plat, send: &[usize], ret: &[usize], port: Port) -> (Q, Vec<Q>) {
    let k = send.len();
    let rpos = |i: usize| ret.iter().position(|&r| r == i).unwrap();
    let mut rows = Vec::new();
    for (t, &i) in send.iter().enumerate() {
        let mut row = vec![Q::zero(); k];
        for (col, &j) in send.iter().enumerate() {
            if col <= t {
                row[col] += &pl.c[j];
            }
            if j == i {
                row[col] += &pl.w[i];
            }
            if rpos(j) >= rpos(i) {
                row[col] += &pl.d[j];
            }
        }
        rows.push(row);
    }
    if port == Port::HalfDuplex {
        rows.push(send.iter().map(|&j| &pl.c[j] + &pl.d[j]).collect());
    }
    let b = vec![Q::one(); rows.len()];
    simplex_max(&rows, &b, &vec![Q::one(); k])
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &x) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

fn subsets(p: usize) -> Vec<Vec<usize>> {
    (1u32..(1 << p)).map(|m| (0..p).filter(|k| m >> k & 1 == 1).collect()).collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lifo,
    Fifo,
    Any,
}

/// Every (subset, send order, return order of the kind): all LP values.
fn all_values(pl: &Plat, port: Port, kind: Kind) -> Vec<Q> {
    let mut vals = Vec::new();
    for s in subsets(pl.c.len()) {
        for s1 in permutations(&s) {
            let rets = match kind {
                Kind::Lifo => vec![s1.iter().rev().copied().collect()],
                Kind::Fifo => vec![s1.clone()],
                Kind::Any => permutations(&s),
            };
            for s2 in rets {
                vals.push(scenario_lp(pl, &s1, &s2, port).0);
            }
        }
    }
    vals
}

fn best(pl: &Plat, port: Port, kind: Kind) -> Q {
    all_values(pl, port, kind).into_iter().max().unwrap()
}

// ------------------------------------------------------------------ the library

fn run_solve(
    ws: &[ReturnWorker<f64>],
    schedule: Schedule<'_>,
    port: Port,
) -> (Rational<f64>, Vec<Assignment<f64>>) {
    let need = needs(ws.len(), schedule, port).unwrap();
    let mut out = vec![Assignment::EMPTY; need.out];
    let mut scratch = vec![Scratch::EMPTY; need.scratch];
    let mut tableau = vec![0.0; need.tableau];
    let problem = Problem { workers: ws, items: 1, schedule, port };
    let r = solve(&problem, &mut out, &mut scratch, &mut tableau).unwrap();
    (r, out)
}

fn run_plan<N: Real>(
    ws: &[ReturnWorker<N>],
    items: u64,
    schedule: Schedule<'_>,
    port: Port,
) -> Result<(Summary<N>, Vec<Assignment<N>>), divload::Error> {
    let need = needs(ws.len(), schedule, port)?;
    let mut out = vec![Assignment::EMPTY; need.out];
    let mut scratch = vec![Scratch::EMPTY; need.scratch];
    let mut tableau = vec![0.0; need.tableau];
    let problem = Problem { workers: ws, items, schedule, port };
    let s = plan(&problem, &mut out, &mut scratch, &mut tableau)?;
    Ok((s, out))
}

/// |x − exact| ≤ tol·|exact|.
fn close(x: f64, exact: &Q, tol: f64) -> bool {
    let e = exact.to_f64().unwrap();
    (x - e).abs() <= tol * e.abs()
}

const TOL: f64 = 1e-12;

fn platform_a() -> Plat {
    Plat::ints(&[1, 1, 5], &[1, 1, 5], &[1, 1, 5])
}

fn platform_b() -> Plat {
    Plat::ints(&[7, 8, 12], &[6, 5, 5], &[7, 8, 12])
}

// ------------------------------------------------------------------ the slides

#[test]
fn platform_a_reproduces_the_slides() {
    let pl = platform_a();
    let ws = pl.workers();
    for port in [Port::FullDuplex, Port::HalfDuplex] {
        assert_eq!(best(&pl, port, Kind::Lifo), frac(61, 135));
        assert_eq!(best(&pl, port, Kind::Fifo), frac(1, 2));
        assert_eq!(best(&pl, port, Kind::Any), frac(1, 2));
        let (lifo, out) = run_solve(&ws, Schedule::Lifo, port);
        assert!(close(lifo.throughput, &frac(61, 135), TOL), "{}", lifo.throughput);
        assert_eq!(lifo.method, Method::LIFO);
        for (a, e) in out.iter().zip([frac(1, 3), frac(1, 9), frac(1, 135)]) {
            assert!(close(a.rate, &e, TOL), "{a:?}");
        }
        let (fifo, out) = run_solve(&ws, Schedule::Fifo, port);
        assert!(close(fifo.throughput, &frac(1, 2), TOL));
        assert_eq!(fifo.members, 2);
        assert!(out[..2].iter().all(|a| close(a.rate, &frac(1, 4), TOL) && a.worker < 2));
        let (opt, _) = run_solve(&ws, Schedule::Best, port);
        assert!(close(opt.throughput, &frac(1, 2), TOL) && opt.optimal);
    }
}

#[test]
fn platform_b_reproduces_the_slides_in_full_duplex() {
    let pl = platform_b();
    let ws = pl.workers();
    let fd = Port::FullDuplex;
    assert_eq!(best(&pl, fd, Kind::Any), frac(38, 499));
    assert_eq!(best(&pl, fd, Kind::Fifo), frac(47, 632));
    assert_eq!(best(&pl, fd, Kind::Lifo), frac(271, 4060));
    let (opt, _) = run_solve(&ws, Schedule::Best, fd);
    assert!(close(opt.throughput, &frac(38, 499), TOL), "{}", opt.throughput);
    assert_eq!(opt.method, Method::BEST_SCENARIO);
    let (fifo, _) = run_solve(&ws, Schedule::Fifo, fd);
    assert!(close(fifo.throughput, &frac(47, 632), TOL) && fifo.members == 3);
    let (lifo, _) = run_solve(&ws, Schedule::Lifo, fd);
    assert!(close(lifo.throughput, &frac(271, 4060), TOL));

    // The optimal scenario (σ1 = (1, 3, 2), σ2 = (3, 1, 2)) and its unique shares.
    let (given, out) = run_solve(&ws, Schedule::Given { send: &[0, 2, 1], ret: &[2, 0, 1] }, fd);
    assert_eq!(given.method, Method::SCENARIO_LP);
    assert!(close(given.throughput, &frac(38, 499), TOL));
    let expect = [(0, frac(377, 9980)), (2, frac(39, 4990)), (1, frac(61, 1996))];
    for (a, (w, e)) in out.iter().zip(expect) {
        assert_eq!(a.worker, w);
        assert!(close(a.rate, &e, TOL), "{a:?}");
    }
    assert_eq!(out.iter().map(|a| a.return_rank.unwrap()).collect::<Vec<_>>(), [1, 0, 2]);
    let (exact, alpha) = scenario_lp(&pl, &[0, 2, 1], &[2, 0, 1], fd);
    assert_eq!(exact, frac(38, 499));
    assert_eq!(alpha, vec![frac(377, 9980), frac(39, 4990), frac(61, 1996)]);
}

#[test]
fn platform_b_in_half_duplex_cannot_reach_the_printed_values() {
    let pl = platform_b();
    let ws = pl.workers();
    let hd = Port::HalfDuplex;
    assert_eq!(best(&pl, hd, Kind::Any), frac(7, 104));
    assert_eq!(best(&pl, hd, Kind::Fifo), frac(7, 104));
    assert_eq!(best(&pl, hd, Kind::Lifo), frac(271, 4060));
    let (opt, _) = run_solve(&ws, Schedule::Best, hd);
    assert!(close(opt.throughput, &frac(7, 104), TOL));
    let (fifo, _) = run_solve(&ws, Schedule::Fifo, hd);
    assert!(close(fifo.throughput, &frac(7, 104), TOL));
    // The printed optimum and FIFO values exceed the half-duplex upper bound 11/160.
    let ub = throughput_bound(&ws, hd, &mut [Scratch::EMPTY; 3]).unwrap();
    assert!(ub <= 11.0 / 160.0 * (1.0 + 1e-12) && qf(ub) >= frac(7, 104), "{ub}");
    assert!(frac(47, 632) > frac(11, 160) && frac(38, 499) > frac(11, 160));
}

/// The slide prints 43/580 for B's best LIFO schedule (L528). No LIFO scenario of B — any
/// subset of workers, any send order, returns reversed, exact LP — reaches it; the best is
/// 271/4060. 43/580 is no scenario's value at all (any orders, either port); it equals
/// 1/20 + 1/70 + 2/203, the LIFO shares with the last one four times too large.
#[test]
fn platform_b_lifo_misprint() {
    let pl = platform_b();
    let printed = frac(43, 580);
    for port in [Port::FullDuplex, Port::HalfDuplex] {
        let lifo = all_values(&pl, port, Kind::Lifo);
        assert_eq!(lifo.len(), 15);
        assert!(lifo.iter().all(|v| *v < printed), "some LIFO scenario reaches 43/580");
        assert_eq!(lifo.iter().max().unwrap(), &frac(271, 4060));
        assert!(!all_values(&pl, port, Kind::Any).contains(&printed));
    }
    assert_eq!(frac(1, 20) + frac(1, 70) + frac(2, 203), printed);
    assert_eq!(frac(1, 20) + frac(1, 70) + frac(1, 406), frac(271, 4060));
}

/// returns.md §3: with d = 2c the participants are the workers with the *smallest* c,
/// sent by decreasing c; the slides' literal reading (largest c) is worse.
#[test]
fn fifo_with_z_above_one_takes_the_smallest_c() {
    let pl = Plat::ints(&[1, 2, 10], &[1, 1, 1], &[2, 4, 20]);
    assert_eq!(best(&pl, Port::FullDuplex, Kind::Fifo), frac(7, 24));
    assert_eq!(scenario_lp(&pl, &[2], &[2], Port::FullDuplex).0, frac(1, 31));
    let (r, out) = run_solve(&pl.workers(), Schedule::Fifo, Port::FullDuplex);
    assert!(close(r.throughput, &frac(7, 24), TOL) && r.optimal);
    assert_eq!((r.members, out[0].worker, out[1].worker), (2, 1, 0));
}

// ------------------------------------------------------------------ theorems, random

fn random_plat(rng: &mut Lcg, p: usize, proportional: bool) -> Plat {
    let int = |rng: &mut Lcg| 1 + rng.below(12) as i64;
    let c: Vec<i64> = (0..p).map(|_| int(rng)).collect();
    let w: Vec<i64> = (0..p).map(|_| int(rng)).collect();
    let d: Vec<Q> = if proportional {
        let z = frac(1 + rng.below(8) as i64, 1 + rng.below(8) as i64);
        c.iter().map(|&x| qi(x) * &z).collect()
    } else {
        (0..p).map(|_| qi(int(rng))).collect()
    };
    Plat { c: c.into_iter().map(qi).collect(), w: w.into_iter().map(qi).collect(), d }
}

/// Costs that are exact in f64 (d = z·c with z = a/b need not be: use z = 2^k or
/// c multiples of b). Here: keep only platforms whose costs convert exactly.
fn exact_in_f64(pl: &Plat) -> bool {
    pl.c.iter().chain(&pl.w).chain(&pl.d).all(|x| qf(x.to_f64().unwrap()) == *x)
}

#[test]
fn lifo_theorem_against_every_lifo_scenario() {
    let mut rng = Lcg(11);
    for t in 0..60 {
        let p = 2 + t % 3;
        let pl = random_plat(&mut rng, p, false);
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let exact = best(&pl, port, Kind::Lifo);
            let (r, out) = run_solve(&pl.workers(), Schedule::Lifo, port);
            assert!(close(r.throughput, &exact, TOL), "{pl:?} {port:?}: {} vs {exact}", r.throughput);
            // Everyone works, by increasing c + d, and the scenario's LP agrees exactly.
            assert_eq!(r.members, p);
            let send: Vec<usize> = out.iter().map(|a| a.worker).collect();
            let ret: Vec<usize> = send.iter().rev().copied().collect();
            assert_eq!(scenario_lp(&pl, &send, &ret, port).0, exact);
            assert!(out.iter().all(|a| a.rate > 0.0));
        }
    }
}

#[test]
fn fifo_rule_against_every_fifo_scenario() {
    let mut rng = Lcg(23);
    let mut tested = 0;
    for t in 0..120 {
        let p = 2 + t % 3;
        let pl = random_plat(&mut rng, p, t % 2 == 0);
        if !exact_in_f64(&pl) {
            continue;
        }
        tested += 1;
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let exact = best(&pl, port, Kind::Fifo);
            let (r, _) = run_solve(&pl.workers(), Schedule::Fifo, port);
            assert!(close(r.throughput, &exact, TOL), "{pl:?} {port:?}: {} vs {exact}", r.throughput);
            assert!(r.optimal);
        }
    }
    assert!(tested > 60, "{tested}");
}

/// The closed form alone (no exhaustive LP behind it): d = z·c, full duplex, 10 workers
/// (above the exhaustive limit), against the exact best prefix of the rule's order and
/// against the exact LP over the same FIFO scenario.
#[test]
fn fifo_closed_form_beyond_the_exhaustive_limit() {
    let mut rng = Lcg(5);
    for t in 0..20 {
        let p = 9 + t % 3;
        let z = [0.25, 0.5, 1.0, 2.0, 4.0][t % 5];
        let ws: Vec<ReturnWorker<f64>> = (0..p)
            .map(|_| {
                let c = (1 + rng.below(12)) as f64;
                ReturnWorker::new(c, (1 + rng.below(12)) as f64, z * c)
            })
            .collect();
        let pl = Plat::from_workers(&ws);
        let (r, out) = run_solve(&ws, Schedule::Fifo, Port::FullDuplex);
        assert!(r.optimal);
        let send: Vec<usize> = out[..r.members].iter().map(|a| a.worker).collect();
        let (exact, _) = scenario_lp(&pl, &send, &send, Port::FullDuplex);
        assert!(close(r.throughput, &exact, TOL), "{} vs {exact}", r.throughput);
        // No other FIFO prefix order of the sorted workers does better.
        let mut by_c: Vec<usize> = (0..p).collect();
        by_c.sort_by(|&a, &b| ws[a].comm_per_item.total_cmp(&ws[b].comm_per_item).then(a.cmp(&b)));
        for q in 1..=p {
            let pre = &by_c[..q];
            let v = scenario_lp(&pl, pre, pre, Port::FullDuplex).0;
            let rev: Vec<usize> = pre.iter().rev().copied().collect();
            let v2 = scenario_lp(&pl, &rev, &rev, Port::FullDuplex).0;
            assert!(v <= exact && v2 <= exact);
        }
    }
}

/// The refined bound (returns.md §5) on the slides' platforms: 5/9 for A and 301/3420 for
/// B in full duplex, where the knapsacks alone give 11/15 and 121/1008.
#[test]
fn refined_bound_on_the_slides_platforms() {
    let fd = Port::FullDuplex;
    for (pl, refined, optimum) in
        [(platform_a(), frac(5, 9), frac(1, 2)), (platform_b(), frac(301, 3420), frac(38, 499))]
    {
        let ub = throughput_bound(&pl.workers(), fd, &mut [Scratch::EMPTY; 3]).unwrap();
        assert!(qf(ub) >= refined && close(ub, &refined, 1e-12), "{ub} vs {refined}");
        assert!(refined > optimum);
    }
    // And above the optimum over every scenario (exact LPs) on random 4-worker platforms,
    // where one worker's rows weigh as much as the refinement takes off.
    let mut rng = Lcg(77);
    for _ in 0..4 {
        let pl = random_plat(&mut rng, 4, false);
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let exact = best(&pl, port, Kind::Any);
            let ub = throughput_bound(&pl.workers(), port, &mut [Scratch::EMPTY; 4]).unwrap();
            assert!(qf(ub) >= exact, "{pl:?} {port:?}: {ub} below {exact}");
        }
    }
}

#[test]
fn best_scenario_against_every_scenario() {
    let mut rng = Lcg(31);
    for t in 0..40 {
        let p = 2 + t % 2;
        let pl = random_plat(&mut rng, p, false);
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let exact = best(&pl, port, Kind::Any);
            let ws = pl.workers();
            let (r, out) = run_solve(&ws, Schedule::Best, port);
            assert!(close(r.throughput, &exact, TOL), "{pl:?} {port:?}: {} vs {exact}", r.throughput);
            // The reported scenario reaches it.
            let send: Vec<usize> = out[..r.members].iter().map(|a| a.worker).collect();
            let mut ret = send.clone();
            ret.sort_by_key(|&w| out.iter().find(|a| a.worker == w).unwrap().return_rank.unwrap());
            assert_eq!(scenario_lp(&pl, &send, &ret, port).0, exact);
            // The certified bound is above the optimum.
            let ub = throughput_bound(&ws, port, &mut vec![Scratch::EMPTY; p]).unwrap();
            assert!(qf(ub) >= exact);
        }
    }
}

#[test]
fn given_scenarios_against_the_exact_lp() {
    let mut rng = Lcg(47);
    for t in 0..80 {
        let p = 1 + t % 5;
        let pl = random_plat(&mut rng, p, false);
        let ws = pl.workers();
        let mut s1: Vec<usize> = (0..p).collect();
        let mut s2: Vec<usize> = (0..p).collect();
        for i in (1..p).rev() {
            s1.swap(i, rng.below(i as u64 + 1) as usize);
            s2.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let k = 1 + rng.below(p as u64) as usize;
        let send = &s1[..k];
        let ret: Vec<usize> = s2.iter().copied().filter(|x| send.contains(x)).collect();
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let (exact, _) = scenario_lp(&pl, send, &ret, port);
            let (r, _) = run_solve(&ws, Schedule::Given { send, ret: &ret }, port);
            assert!(close(r.throughput, &exact, TOL), "{send:?} {ret:?}: {} vs {exact}", r.throughput);
        }
    }
}

#[test]
fn local_search_is_at_least_lifo_and_fifo_and_below_the_bound() {
    let mut rng = Lcg(3);
    for t in 0..6 {
        let p = 6 + t;
        let pl = random_plat(&mut rng, p, false);
        let ws = pl.workers();
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let (b, out) = run_solve(&ws, Schedule::Best, port);
            let (l, _) = run_solve(&ws, Schedule::Lifo, port);
            let (f, _) = run_solve(&ws, Schedule::Fifo, port);
            assert!(b.throughput >= l.throughput.max(f.throughput) * (1.0 - 1e-12));
            let send: Vec<usize> = out[..b.members].iter().map(|a| a.worker).collect();
            let mut ret = send.clone();
            ret.sort_by_key(|&w| out.iter().find(|a| a.worker == w).unwrap().return_rank.unwrap());
            assert!(close(b.throughput, &scenario_lp(&pl, &send, &ret, port).0, TOL));
            let ub = throughput_bound(&ws, port, &mut vec![Scratch::EMPTY; p]).unwrap();
            assert!(ub >= b.throughput);
        }
    }
}

// ------------------------------------------------------------------ 10⁶ workers

/// Identical workers: LIFO ρ = (1 − qᵖ)/(c + d) with q = w/(c + d + w); FIFO (z < 1,
/// everyone takes part) ρ = S/(c + w + d·S) with S = (1 − rᵖ)/(1 − r), r = (w + d)/(c + w).
#[test]
fn closed_forms_at_a_million_workers() {
    let p = 1_000_000usize;
    let (c, w, d) = (3e-6, 1.0, 1e-6);
    let ws = vec![ReturnWorker::new(c, w, d); p];
    let q: f64 = w / (c + d + w);
    let lifo_expect = (1.0 - q.powi(p as i32)) / (c + d);
    let r: f64 = (w + d) / (c + w);
    let s = (1.0 - r.powi(p as i32)) / (1.0 - r);
    let fifo_expect = s / (c + w + d * s);
    for (schedule, expect) in [(Schedule::Lifo, lifo_expect), (Schedule::Fifo, fifo_expect)] {
        let (sum, out) = run_plan(&ws, 1 << 40, schedule, Port::FullDuplex).unwrap();
        assert!(
            (sum.throughput - expect).abs() <= 1e-8 * expect,
            "{schedule:?}: {} vs {expect}",
            sum.throughput
        );
        assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1 << 40);
        assert!(sum.lower_bound <= sum.makespan && sum.makespan <= sum.bound);
        let shares: f64 = out.iter().map(|a| a.share).sum();
        assert!((shares - (1u64 << 40) as f64).abs() < 1.0);
        // Shares decay geometrically but the last worker still gets its part.
        assert!(out[p - 1].share > 0.0);
    }
    // f32: the π of the FIFO recursion would overflow f32 (r > 1 here: d > c); the
    // renormalised recursion does not. Compare with f64.
    let n = 20_000;
    let w32 = vec![ReturnWorker::new(1.0f32, 1.0, 1.02); n];
    let w64 = vec![ReturnWorker::new(1.0f64, 1.0, 1.02); n];
    for schedule in [Schedule::Lifo, Schedule::Fifo] {
        let (a, _) = run_plan(&w32, 1 << 20, schedule, Port::FullDuplex).unwrap();
        let (b, _) = run_plan(&w64, 1 << 20, schedule, Port::FullDuplex).unwrap();
        assert!(a.throughput.is_finite() && a.throughput > 0.0);
        assert!((f64::from(a.throughput) - b.throughput).abs() <= 1e-3 * b.throughput, "{schedule:?}");
        assert!(a.lower_bound <= a.makespan && a.makespan <= a.bound);
    }
}

// ------------------------------------------------------------------ plans

fn arb_workers(max: usize) -> impl Strategy<Value = Vec<ReturnWorker<f64>>> {
    let cost = prop_oneof![Just(0.0), 1e-6..10.0f64, 1.0..3.0f64];
    prop::collection::vec(
        (cost.clone(), 1e-4..10.0f64, cost).prop_map(|(c, w, d)| ReturnWorker::new(c, w, d)),
        1..=max,
    )
}

fn check_plan<N: Real>(s: &Summary<N>, out: &[Assignment<N>], items: u64, p: usize) {
    assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), items);
    assert!(s.lower_bound <= s.makespan, "lower {} > makespan {}", s.lower_bound, s.makespan);
    assert!(s.makespan <= s.bound, "makespan {} > bound {}", s.makespan, s.bound);
    let mut seen = vec![false; p];
    for (k, a) in out.iter().enumerate() {
        assert!(!seen[a.worker]);
        seen[a.worker] = true;
        assert_eq!(a.return_rank.is_some(), k < s.members);
        if k >= s.members {
            assert_eq!(a.count, 0);
        }
        assert!(a.idle >= N::ZERO && a.return_end <= s.makespan);
        assert!((a.count as f64 - a.share.to_f64()).abs() < 1.0 + 1e-6 * a.share.to_f64());
    }
    let mut ranks: Vec<usize> = out[..s.members].iter().map(|a| a.return_rank.unwrap()).collect();
    ranks.sort_unstable();
    assert!(ranks.iter().enumerate().all(|(i, &r)| i == r));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn plans_keep_their_bounds(
        ws in arb_workers(12),
        items in 1u64..10_000_000,
        kind in 0usize..4,
        hd in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let p = ws.len();
        let port = if hd { Port::HalfDuplex } else { Port::FullDuplex };
        let mut rng = Lcg(seed);
        let mut send: Vec<usize> = (0..p).collect();
        for i in (1..p).rev() {
            send.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut ret = send.clone();
        ret.reverse();
        ret.rotate_left(rng.below(p as u64) as usize);
        let schedule = match kind {
            0 => Schedule::Best,
            1 => Schedule::Lifo,
            2 => Schedule::Fifo,
            _ => Schedule::Given { send: &send, ret: &ret },
        };
        let (s, out) = run_plan(&ws, items, schedule, port).unwrap();
        check_plan(&s, &out, items, p);
        // The rational makespan lies between the lower bound and the integer makespan's
        // guarantee, up to rounding.
        prop_assert!(s.lower_bound <= s.rational_makespan * (1.0 + 1e-9));
        prop_assert!(s.rational_makespan <= s.bound);
        // f32 and Q32 plans of the same problem keep theirs too.
        let w32: Vec<ReturnWorker<f32>> = ws.iter().map(|w| ReturnWorker::new(w.comm_per_item as f32, w.comp_per_item as f32, w.return_per_item as f32)).filter(|w| w.comp_per_item > 0.0).collect();
        if w32.len() == p && items <= f32::MAX_ITEMS {
            if let Ok((s32, o32)) = run_plan(&w32, items, schedule, port) {
                check_plan(&s32, &o32, items, p);
            }
        }
    }

    #[test]
    fn large_plans_keep_their_bounds(ws in arb_workers(200), items in 1u64..(1u64 << 50), hd in any::<bool>()) {
        let p = ws.len();
        let port = if hd { Port::HalfDuplex } else { Port::FullDuplex };
        for schedule in [Schedule::Best, Schedule::Lifo, Schedule::Fifo] {
            let (s, out) = run_plan(&ws, items, schedule, port).unwrap();
            check_plan(&s, &out, items, p);
        }
    }
}

/// Shrunk from a `large_plans_keep_their_bounds` failure (16 workers, `Best`, half
/// duplex): a scenario of the local search whose LP the simplex declared unbounded. After
/// ~35 pivots an entry that is zero in exact arithmetic was 4.9e-12, just above the old
/// absolute pivot tolerance 1e-12, in a degenerate row (ratio 0), so Bland's rule pivoted
/// on it and the rounding errors grew by ~1e11. Workers are listed in send order.
#[test]
fn degenerate_noise_pivot_regression() {
    let ws: Vec<ReturnWorker<f64>> = [
        (0.0, 3.1128806917615752, 0.0),
        (0.0, 1.565592869633443, 2.6837179498532513),
        (2.7154233604666516, 4.503769673578666, 0.0),
        (2.869671768840042, 0.8187640220732574, 0.41473206187641726),
        (4.004762305576388, 2.8087889292251007, 0.0),
        (2.3862606551573493, 1.5219027330843777, 1.9880939491789191),
        (2.017794703655457, 0.28658906939396095, 2.894724891170573),
        (2.7487717868780086, 2.2485492664687885, 2.8376852004931905),
        (6.520522588413499, 7.636311803232256, 0.0),
        (0.0, 8.91471223777121, 7.059924310838966),
        (1.813632112959672, 4.417209301590919, 5.466167351802046),
        (7.919471401447958, 9.734460428959585, 0.0),
        (9.08437700338242, 4.4501680330055855, 1.248051003981633),
    ]
    .iter()
    .map(|&(c, w, d)| ReturnWorker::new(c, w, d))
    .collect();
    let send: Vec<usize> = (0..ws.len()).collect();
    let ret = [10, 11, 9, 7, 12, 3, 8, 6, 0, 5, 4, 1, 2];
    let pl = Plat::from_workers(&ws);
    for port in [Port::HalfDuplex, Port::FullDuplex] {
        let (exact, _) = scenario_lp(&pl, &send, &ret, port);
        let (r, _) = run_solve(&ws, Schedule::Given { send: &send, ret: &ret }, port);
        assert!(close(r.throughput, &exact, TOL), "{port:?}: {} vs {exact}", r.throughput);
        let (s, out) = run_plan(&ws, 1 << 40, Schedule::Given { send: &send, ret: &ret }, port).unwrap();
        check_plan(&s, &out, 1 << 40, ws.len());
    }
}

/// The whole failing instance: `Best` in half duplex runs the local search over 16
/// workers, and one of its scenarios is the one above.
#[test]
fn large_plan_regression_best_half_duplex() {
    let ws: Vec<ReturnWorker<f64>> = [
        (0.0, 1.565592869633443, 2.6837179498532513),
        (6.520522588413499, 7.636311803232256, 0.0),
        (7.919471401447958, 9.734460428959585, 0.0),
        (4.004762305576388, 2.8087889292251007, 0.0),
        (1.813632112959672, 4.417209301590919, 5.466167351802046),
        (0.0, 8.91471223777121, 7.059924310838966),
        (0.0, 7.26947947844367, 1.911042491864867),
        (0.0, 0.0001, 0.0),
        (9.08437700338242, 4.4501680330055855, 1.248051003981633),
        (2.7154233604666516, 4.503769673578666, 0.0),
        (2.017794703655457, 0.28658906939396095, 2.894724891170573),
        (2.7487717868780086, 2.2485492664687885, 2.8376852004931905),
        (2.3862606551573493, 1.5219027330843777, 1.9880939491789191),
        (1.933727041212661, 3.847327482854742, 0.0),
        (2.869671768840042, 0.8187640220732574, 0.41473206187641726),
        (0.0, 3.1128806917615752, 0.0),
    ]
    .iter()
    .map(|&(c, w, d)| ReturnWorker::new(c, w, d))
    .collect();
    for port in [Port::HalfDuplex, Port::FullDuplex] {
        for schedule in [Schedule::Best, Schedule::Lifo, Schedule::Fifo] {
            let (s, out) = run_plan(&ws, 1, schedule, port).unwrap();
            check_plan(&s, &out, 1, ws.len());
        }
    }
}

#[test]
fn q32_plans_keep_their_bounds() {
    use divload::Q32;
    let q = |x: f64| Q32::from_f64(x).unwrap();
    let ws: Vec<ReturnWorker<Q32>> = [(0.01, 0.02, 0.005), (0.02, 0.01, 0.01), (0.001, 0.05, 0.002)]
        .iter()
        .map(|&(c, w, d)| ReturnWorker::new(q(c), q(w), q(d)))
        .collect();
    for schedule in [Schedule::Best, Schedule::Lifo, Schedule::Fifo] {
        let (s, out) = run_plan(&ws, 100_000, schedule, Port::FullDuplex).unwrap();
        check_plan(&s, &out, 100_000, 3);
    }
}

#[test]
fn even_split_is_the_baseline() {
    let ws = Plat::ints(&[1, 2, 4], &[1, 2, 8], &[1, 1, 1]).workers();
    let (s, _) = run_plan(&ws, 999, Schedule::Best, Port::FullDuplex).unwrap();
    assert!(s.makespan < s.even_split_makespan);
    let (one, out) =
        run_plan(&[ReturnWorker::new(1.0, 2.0, 3.0)], 10, Schedule::Best, Port::HalfDuplex).unwrap();
    assert_eq!((one.makespan, one.even_split_makespan, out[0].count), (60.0, 60.0, 10));
    assert_eq!((out[0].received, out[0].computed, out[0].return_start), (10.0, 30.0, 30.0));
}

// ------------------------------------------------------------------ errors

#[test]
fn invalid_inputs_are_errors() {
    let ok = [ReturnWorker::new(1.0, 1.0, 1.0), ReturnWorker::new(0.0, 2.0, 0.0)];
    let e = |ws: &[ReturnWorker<f64>], items: u64, schedule: Schedule<'_>| {
        run_plan(ws, items, schedule, Port::FullDuplex).unwrap_err()
    };
    let msg =
        |ws: &[ReturnWorker<f64>], items: u64, schedule: Schedule<'_>| e(ws, items, schedule).to_string();
    assert!(run_plan(&ok, 10, Schedule::Best, Port::FullDuplex).is_ok());
    assert_eq!(msg(&[], 10, Schedule::Best), "workers: at least one worker is needed, got 0");
    assert_eq!(msg(&ok, 0, Schedule::Best), "items: must be at least 1, got 0");
    assert_eq!(e(&ok, (1 << 53) + 1, Schedule::Lifo).code(), ErrorCode::Overflow);
    for (w, text) in [
        (ReturnWorker::new(f64::NAN, 1.0, 1.0), "worker 1: comm_per_item must be finite and >= 0, got NaN"),
        (ReturnWorker::new(1.0, 0.0, 1.0), "worker 1: comp_per_item must be finite and > 0, got 0"),
        (ReturnWorker::new(1.0, 1.0, -1.0), "worker 1: return_per_item must be finite and >= 0, got -1"),
        (
            ReturnWorker::new(1.0, f64::INFINITY, 1.0),
            "worker 1: comp_per_item must be finite and > 0, got inf",
        ),
    ] {
        assert_eq!(msg(&[ok[0], w], 10, Schedule::Lifo), text);
    }
    assert_eq!(
        e(&[ReturnWorker::new(f64::MAX, f64::MAX, 1.0)], 10, Schedule::Lifo).code(),
        ErrorCode::Overflow
    );
    assert_eq!(
        msg(&ok, 10, Schedule::Given { send: &[0, 0], ret: &[0, 1] }),
        "send[1]: worker 0 is out of range 0..2 or appears twice; each worker may appear at most once"
    );
    assert_eq!(
        msg(&ok, 10, Schedule::Given { send: &[0, 5], ret: &[0, 1] }),
        "send[1]: worker 5 is out of range 0..2 or appears twice; each worker may appear at most once"
    );
    let sets = "return order: must hold exactly the workers of the send order (at least one), in any order";
    assert_eq!(msg(&ok, 10, Schedule::Given { send: &[0], ret: &[1] }), sets);
    assert_eq!(msg(&ok, 10, Schedule::Given { send: &[0], ret: &[0, 1] }), sets);
    assert_eq!(msg(&ok, 10, Schedule::Given { send: &[], ret: &[] }), sets);
    assert!(msg(&ok, 10, Schedule::Given { send: &[0, 1], ret: &[1, 1] }).starts_with("return[1]: worker 1"));
    let big: Vec<usize> = (0..MAX_LP_WORKERS + 1).collect();
    let e2 = needs(big.len(), Schedule::Given { send: &big, ret: &big }, Port::FullDuplex).unwrap_err();
    assert_eq!(e2.code(), ErrorCode::Overflow);
    // Buffers shorter than `needs` says.
    let problem = Problem { workers: &ok, items: 10, schedule: Schedule::Best, port: Port::FullDuplex };
    let mut out = [Assignment::EMPTY; 2];
    let mut scratch = [Scratch::EMPTY; 2];
    let err = plan(&problem, &mut out, &mut scratch, &mut [0.0; 4]).unwrap_err();
    assert_eq!(
        (err.code(), err.needed()),
        (ErrorCode::BufferTooSmall, needs(2, Schedule::Best, Port::FullDuplex).ok().map(|n| n.tableau))
    );
    let err = plan(&problem, &mut out[..1], &mut scratch, &mut [0.0; 64]).unwrap_err();
    assert_eq!(err.needed(), Some(2));
}

/// Fuzzing (c_api): three workers whose costs span 10⁻³²¹ to 10²⁴⁸, FIFO. The worker
/// with c + w + d ≈ 7·10⁻³¹⁰ alone processes more than f64's largest number of items per
/// second, so every FIFO order's LP gave NaN, the exhaustive search kept no order, and the
/// plan overran its buffer (a panic in Rust). Now the throughput's range is checked
/// first, with an error that names the inputs; costs a little larger plan normally.
#[test]
fn extreme_costs_regression() {
    let mut ws = [
        ReturnWorker::new(1.3967579423521435e-142, 5.292413526826343e-141, 4.01e-321),
        ReturnWorker::new(0.0, 1.7212333193498693e+243, 1.288985282434449e+248),
        ReturnWorker::new(6.80144762255677e-310, 2.858142627e-315, 1.238222579e-314),
    ];
    for schedule in [Schedule::Fifo, Schedule::Best, Schedule::Lifo] {
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let e = run_plan(&ws, 1_627_389_952, schedule, port).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Overflow);
            assert!(e.to_string().starts_with("workers: the items per second"), "{e}");
        }
    }
    ws[2] = ReturnWorker::new(6.8e-300, 2.9e-305, 1.2e-304);
    for schedule in [Schedule::Fifo, Schedule::Best, Schedule::Lifo] {
        for port in [Port::FullDuplex, Port::HalfDuplex] {
            let (s, out) = run_plan(&ws, 1_627_389_952, schedule, port).unwrap();
            assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1_627_389_952);
            assert!(s.throughput.is_finite() && s.lower_bound <= s.makespan && s.makespan <= s.bound);
        }
    }
}

/// Given scenarios of 100–256 workers, a fifth of the `c` and `d` zero, random return
/// orders. With costs over 12 decades the simplex used to declare about one in twenty of
/// these LPs unbounded (a reduced cost that is rounding noise of a zero, on a column with
/// no positive entry) or to run into its iteration cap. The scenario LP is bounded by
/// construction, so such a column is now priced out and every plan succeeds. With costs
/// over one decade the dual bound certifies every LP value within `CERTIFIED_LP_GAP` (the
/// plans say `rational_optimal`), which exact rationals cannot check at this size; over
/// 12 decades some LPs stay uncertified, and say so.
#[test]
fn large_scenarios_are_solved_and_certified() {
    let mut rng = Lcg(12345);
    let runs = if cfg!(debug_assertions) { 4 } else { 60 };
    let mut certified = [0; 2];
    for run in 0..runs {
        let decades = if run % 4 < 2 { 1.0 } else { 12.0 };
        let p = 100 + rng.below(157) as usize;
        let cost = |rng: &mut Lcg| 10f64.powf((rng.unit() - 0.5) * decades);
        let ws: Vec<ReturnWorker<f64>> = (0..p)
            .map(|_| {
                let c = if rng.below(5) == 0 { 0.0 } else { cost(&mut rng) };
                let w = cost(&mut rng);
                let d = if rng.below(5) == 0 { 0.0 } else { cost(&mut rng) };
                ReturnWorker::new(c, w, d)
            })
            .collect();
        let send: Vec<usize> = (0..p).collect();
        let mut ret: Vec<usize> = (0..p).collect();
        for i in (1..p).rev() {
            ret.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let port = if run % 2 == 0 { Port::FullDuplex } else { Port::HalfDuplex };
        let (s, out) = run_plan(&ws, 1 << 40, Schedule::Given { send: &send, ret: &ret }, port)
            .unwrap_or_else(|e| panic!("run {run}, {p} workers, {port:?}: {e}"));
        check_plan(&s, &out, 1 << 40, p);
        if decades == 1.0 {
            assert!(s.rational_optimal, "run {run}, {p} workers, {port:?}: the dual bound does not close");
        }
        certified[usize::from(decades > 1.0)] += usize::from(s.rational_optimal);
    }
    eprintln!(
        "certified: {} of {} over one decade, {} of {} over 12",
        certified[0],
        runs / 2,
        certified[1],
        runs / 2
    );
}
