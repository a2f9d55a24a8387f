//! Solvers against independent oracles on small instances:
//!
//! * exact rational arithmetic (BigRational), brute force over every set of participating
//!   workers: the rational optimum of the scatter with affine costs, latencies charged to
//!   participants only;
//! * an LP solver on genaud2003 LP (3) for linear costs;
//! * the paper's closed form (eq. 7) evaluated exactly;
//! * every send order (Thm 3);
//! * a naive re-scan implementation of the greedy rounding.

use divload::scatter::plan_searched;
use divload::scatter::search::{search_memory, Line};
use divload::{
    plan, Assignment, Options, OrderPolicy, Problem, Root, RootCandidate, RootMode, Rounding, Scratch,
    Summary, Worker,
};
use divload_tests::{table1, Lcg};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use proptest::prelude::*;

type Q = BigRational;

fn q(x: f64) -> Q {
    Q::from_float(x).expect("finite")
}

#[derive(Clone)]
struct QWorker {
    a: Q,
    l: Q,
    b: Q,
    m: Q,
}

/// Effective exact costs in send order (the root does not send to itself).
fn chain(workers: &[Worker<f64>], root: usize, order: &[usize]) -> Vec<QWorker> {
    order
        .iter()
        .map(|&w| {
            let x = workers[w];
            let (a, l) = if w == root { (0.0, 0.0) } else { (x.comm_latency, x.comm_per_item) };
            QWorker { a: q(a), l: q(l), b: q(x.comp_latency), m: q(x.comp_per_item) }
        })
        .collect()
}

/// Equal finish time of the participants `set` (positions, increasing), exactly; `None`
/// if some share would not be positive.
fn equal_finish(ws: &[QWorker], set: &[usize], n: &Q) -> Option<Q> {
    let (mut al, mut be): (Vec<Q>, Vec<Q>) = (vec![], vec![]);
    for (idx, &j) in set.iter().enumerate() {
        let w = &ws[j];
        let rate = &w.l + &w.m;
        if idx == 0 {
            al.push(Q::one() / &rate);
            be.push(-(&w.a + &w.b) / &rate);
        } else {
            let i = set[idx - 1];
            let p = &ws[i];
            let (ai, bi) = (al[idx - 1].clone(), be[idx - 1].clone());
            al.push(&p.m * ai / &rate);
            be.push((&p.b + &p.m * bi - &w.a - &w.b) / &rate);
        }
    }
    let sa: Q = al.iter().cloned().sum();
    let sb: Q = be.iter().cloned().sum();
    let t = (n - sb) / sa;
    al.iter().zip(&be).all(|(a, b)| (a * &t + b).is_positive()).then_some(t)
}

/// The rational optimum for this send order: the best participant set, by brute force.
fn rational_optimum(ws: &[QWorker], n: &Q) -> Q {
    let p = ws.len();
    let mut best: Option<Q> = None;
    for mask in 1u32..(1 << p) {
        let set: Vec<usize> = (0..p).filter(|k| mask >> k & 1 == 1).collect();
        if let Some(t) = equal_finish(ws, &set, n) {
            if best.as_ref().is_none_or(|b| t < *b) {
                best = Some(t);
            }
        }
    }
    best.expect("a single worker is always feasible")
}

fn solve(
    workers: &[Worker<f64>],
    root: usize,
    items: u64,
    options: Options,
) -> (Summary<f64>, Vec<Assignment<f64>>) {
    let problem = Problem { workers, root: Root::Fixed(root), items, options };
    let mut out = vec![Assignment::EMPTY; workers.len()];
    let mut scratch = vec![Scratch::EMPTY; workers.len()];
    let s = plan(&problem, &mut out, &mut scratch).expect("valid instance");
    (s, out)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn arb_worker(latency: bool) -> impl Strategy<Value = Worker<f64>> {
    let lat = if latency { prop_oneof![Just(0.0), 0.0..2.0f64].boxed() } else { Just(0.0).boxed() };
    (prop_oneof![Just(0.0), 1e-5..1e-2f64], 1e-4..1e-1f64, lat.clone(), lat).prop_map(|(l, m, a, b)| Worker {
        comm_latency: a,
        comm_per_item: l,
        comp_latency: b,
        comp_per_item: m,
    })
}

fn arb_options() -> impl Strategy<Value = Options> {
    (
        prop_oneof![Just(RootMode::AfterSend), Just(RootMode::Overlap)],
        prop_oneof![Just(OrderPolicy::Given), Just(OrderPolicy::Bandwidth)],
        prop_oneof![Just(Rounding::Paper), Just(Rounding::LargestRemainder), Just(Rounding::Greedy)],
    )
        .prop_map(|(root_mode, order, rounding)| Options { root_mode, order, rounding })
}

fn arb_instance(
    max_p: usize,
    latency: bool,
) -> impl Strategy<Value = (Vec<Worker<f64>>, usize, u64, Options)> {
    (
        prop::collection::vec(arb_worker(latency), 1..=max_p),
        any::<prop::sample::Index>(),
        1u64..200_000,
        arb_options(),
    )
        .prop_map(|(w, r, n, o)| {
            let root = r.index(w.len());
            (w, root, n, o)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Linear costs: the rational plan is the exact optimum for its order (Thm 1 and the
    /// corrected Thm 2), checked against brute force in exact arithmetic.
    #[test]
    fn linear_rational_is_exact((w, root, n, o) in arb_instance(8, false)) {
        let (s, out) = solve(&w, root, n, o);
        let order: Vec<usize> = out.iter().map(|a| a.worker).collect();
        let opt = rational_optimum(&chain(&w, root, &order), &Q::from_integer(BigInt::from(n)));
        prop_assert!(s.rational_exact);
        prop_assert!(rel(s.rational_makespan, opt.to_f64().unwrap()) < 1e-12,
            "ours {} exact {}", s.rational_makespan, opt.to_f64().unwrap());
        prop_assert!(s.makespan >= s.rational_makespan * (1.0 - 1e-12));
    }

    /// With latencies the participation choice is a heuristic: it must be feasible (never
    /// below the brute-force optimum) and the reported lower bound must hold.
    #[test]
    fn affine_bounds_hold((w, root, n, o) in arb_instance(8, true)) {
        let (s, out) = solve(&w, root, n, o);
        let order: Vec<usize> = out.iter().map(|a| a.worker).collect();
        let opt = rational_optimum(&chain(&w, root, &order), &Q::from_integer(BigInt::from(n))).to_f64().unwrap();
        prop_assert!(s.rational_makespan >= opt * (1.0 - 1e-12), "heuristic {} below optimum {opt}", s.rational_makespan);
        prop_assert!(s.lower_bound <= opt * (1.0 + 1e-12), "lower bound {} above optimum {opt}", s.lower_bound);
        prop_assert!(s.lower_bound <= s.makespan * (1.0 + 1e-12));
        if s.rational_exact {
            prop_assert!(rel(s.rational_makespan, opt) < 1e-12);
        }
    }

    /// Every plan: counts are whole, add up exactly, stay within one item of the shares,
    /// and the makespan keeps the rounding guarantee of eq. (4).
    #[test]
    fn plan_invariants((w, root, n, o) in arb_instance(40, true)) {
        let (s, out) = solve(&w, root, n, o);
        prop_assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
        let mut disp = 0;
        let mut t: f64 = 0.0;
        for a in &out {
            prop_assert!((a.count as f64 - a.share).abs() < 1.0 + 1e-9 * n as f64, "count {} share {}", a.count, a.share);
            prop_assert_eq!(a.displacement, disp);
            disp += a.count;
            t = t.max(a.finish);
        }
        prop_assert_eq!(t, s.makespan);
        prop_assert!(s.makespan <= s.bound * (1.0 + 1e-12), "T' {} > bound {}", s.makespan, s.bound);
        // The paper's own form of eq. (4): T + Σ T_comm(j, 1) + max T_comp(i, 1).
        let costs: Vec<Worker<f64>> = out.iter().map(|a| {
            let mut x = w[a.worker];
            if a.worker == root { x.comm_latency = 0.0; x.comm_per_item = 0.0; }
            x
        }).collect();
        let eq4 = s.rational_makespan
            + out.iter().zip(&costs).filter(|(a, _)| a.share > 0.0).map(|(_, c)| c.comm_time(1.0)).sum::<f64>()
            + out.iter().zip(&costs).filter(|(a, _)| a.share > 0.0).map(|(_, c)| c.comp_time(1.0)).fold(0.0, f64::max);
        prop_assert!(s.bound <= eq4 * (1.0 + 1e-12));
        prop_assert!(s.lower_bound <= s.makespan * (1.0 + 1e-12));
        prop_assert!(s.participating == out.iter().filter(|a| a.count > 0).count());
    }

    /// genaud2003 Thm 3: with linear costs, serving by decreasing bandwidth (root last) is
    /// never beaten by any other order, for rational shares.
    #[test]
    fn bandwidth_order_is_optimal((w, root, n, _o) in arb_instance(7, false)) {
        let o = Options { root_mode: RootMode::AfterSend, order: OrderPolicy::Bandwidth, rounding: Rounding::Greedy };
        let (s, _) = solve(&w, root, n, o);
        let others: Vec<usize> = (0..w.len()).filter(|&k| k != root).collect();
        let mut best = f64::INFINITY;
        permute(&others, &mut |perm| {
            let mut order = perm.to_vec();
            order.push(root);
            let ws: Vec<Worker<f64>> = order.iter().map(|&k| w[k]).collect();
            let (t, _) = solve(&ws, ws.len() - 1, n, Options { order: OrderPolicy::Given, ..o });
            best = best.min(t.rational_makespan);
        });
        prop_assert!(s.rational_makespan <= best * (1.0 + 1e-12), "bandwidth {} vs best {best}", s.rational_makespan);
    }
}

/// The rational optimum over every send order and every set of participants, in exact
/// arithmetic: each order of the workers other than the root (the root first or last as
/// its mode puts it), each with its best participant set ([`rational_optimum`]).
fn optimum_over_orders(w: &[Worker<f64>], root: usize, n: u64, mode: RootMode) -> Q {
    let others: Vec<usize> = (0..w.len()).filter(|&k| k != root).collect();
    let n = Q::from_integer(BigInt::from(n));
    let mut best: Option<Q> = None;
    permute(&others, &mut |perm| {
        let mut order = perm.to_vec();
        match mode {
            RootMode::AfterSend => order.push(root),
            RootMode::Overlap => order.insert(0, root),
        }
        let t = rational_optimum(&chain(w, root, &order), &n);
        if best.as_ref().is_none_or(|b| t < *b) {
            best = Some(t);
        }
    });
    best.expect("one order at least")
}

/// Platforms where startup costs matter: latencies up to a few seconds beside transfers of
/// 10⁻⁴–10⁻¹ s per item, a few thousand items at most.
/// `links`: every worker's link has a per-item cost; else some may have none (their orders
/// then differ only by latencies, and a set of workers may need more lines than the search
/// keeps).
fn arb_search_instance(
    max_p: usize,
    links: bool,
) -> impl Strategy<Value = (Vec<Worker<f64>>, usize, u64, RootMode, Rounding)> {
    let worker = if links {
        (1e-5..1e-2f64, 1e-4..1e-1f64, 0.0..2.0f64, prop_oneof![Just(0.0), 0.0..2.0f64])
            .prop_map(|(l, m, a, b)| Worker {
                comm_latency: a,
                comm_per_item: l,
                comp_latency: b,
                comp_per_item: m,
            })
            .boxed()
    } else {
        arb_worker(true).boxed()
    };
    (
        prop::collection::vec(worker, 1..=max_p),
        any::<prop::sample::Index>(),
        1u64..5_000,
        prop_oneof![Just(RootMode::AfterSend), Just(RootMode::Overlap)],
        prop_oneof![Just(Rounding::Paper), Just(Rounding::LargestRemainder), Just(Rounding::Greedy)],
    )
        .prop_map(|(w, r, n, mode, rounding)| {
            let root = r.index(w.len());
            (w, root, n, mode, rounding)
        })
}

/// Plans `w` with `"order": "search"`: the summary and the plan.
fn searched(
    w: &[Worker<f64>],
    root: usize,
    n: u64,
    mode: RootMode,
    rounding: Rounding,
) -> (Summary<f64>, Vec<Assignment<f64>>) {
    let options = Options { root_mode: mode, order: OrderPolicy::Search, rounding };
    let problem = Problem { workers: w, root: Root::Fixed(root), items: n, options };
    let (mut out, mut scratch) = (vec![Assignment::EMPTY; w.len()], vec![Scratch::EMPTY; w.len()]);
    let mut lines = vec![Line::EMPTY; search_memory(w.len()).expect("small")];
    let s = plan_searched(&problem, &mut out, &mut scratch, &mut lines).expect("valid instance");
    (s, out)
}

/// Issue 42 §2: how often the search proves the optimum over every order and subset on
/// random platforms of six workers with startup costs, each proof checked against brute
/// force in exact rationals. A set of workers whose lines lowest somewhere on `[0, N]`
/// outnumber [`LINES_PER_SET`](divload::scatter::search::LINES_PER_SET) loses the proof
/// (and says so). Measured 91 of 100 when a set kept every line lowest somewhere on all of
/// `[0, N]`; 60 of 60 since each set keeps only what a plan no slower than a feasible one
/// can use.
#[test]
fn order_search_proves_the_optimum_on_most_platforms() {
    let mut rng = Lcg(42);
    let (mut proven, total) = (0, 60);
    for _ in 0..total {
        let p = 6;
        let w: Vec<Worker<f64>> = (0..p)
            .map(|_| Worker {
                comm_latency: if rng.unit() < 0.3 { 0.0 } else { 2.0 * rng.unit() },
                comm_per_item: 1e-5 * 1000f64.powf(rng.unit()),
                comp_latency: if rng.unit() < 0.5 { 0.0 } else { 2.0 * rng.unit() },
                comp_per_item: 1e-4 * 1000f64.powf(rng.unit()),
            })
            .collect();
        let root = rng.below(p as u64) as usize;
        let n = 1 + (rng.unit() * 4000.0) as u64;
        let mode = if rng.unit() < 0.5 { RootMode::AfterSend } else { RootMode::Overlap };
        let (s, _) = searched(&w, root, n, mode, Rounding::Greedy);
        if s.rational_exact {
            let opt = optimum_over_orders(&w, root, n, mode).to_f64().unwrap();
            assert!(rel(s.rational_makespan, opt) < 1e-9, "search {} optimum {opt}", s.rational_makespan);
            proven += 1;
        }
    }
    eprintln!("the search proved the optimum on {proven} of {total} platforms");
    assert!(proven >= total * 85 / 100, "proved on {proven} of {total}");
}

/// At the search's limit (16 workers besides the root, and 13), where every order cannot
/// be enumerated, on the platforms of the test above: a searched plan claimed optimal is
/// no slower than the given order of 200 random permutations, each planned as divload
/// plans a fixed order; never slower than the bandwidth order's; its bound below its
/// makespan; counts add up. The proof holds on 3 of these 8 platforms.
#[test]
fn order_search_at_its_limit_beats_random_orders() {
    let mut rng = Lcg(7);
    let mut proven = 0;
    for p in [14usize, 17, 14, 17, 14, 17, 14, 17] {
        let n = 4000;
        let w: Vec<Worker<f64>> = (0..p)
            .map(|_| Worker {
                comm_latency: if rng.unit() < 0.3 { 0.0 } else { 2.0 * rng.unit() },
                comm_per_item: 1e-5 * 1000f64.powf(rng.unit()),
                comp_latency: if rng.unit() < 0.5 { 0.0 } else { 2.0 * rng.unit() },
                comp_per_item: 1e-4 * 1000f64.powf(rng.unit()),
            })
            .collect();
        let (s, out) = searched(&w, 0, n, RootMode::AfterSend, Rounding::Greedy);
        assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
        assert!(s.lower_bound <= s.makespan);
        let band = Options {
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Bandwidth,
            rounding: Rounding::Greedy,
        };
        assert!(s.rational_makespan <= solve(&w, 0, n, band).0.rational_makespan * (1.0 + 1e-12));
        eprintln!("{} workers besides the root: proven {}", p - 1, s.rational_exact);
        if !s.rational_exact {
            continue;
        }
        proven += 1;
        for _ in 0..200 {
            // A random order of the workers, the root (index 0) kept last as `given` plans it.
            let mut perm: Vec<usize> = (1..p).collect();
            for i in (1..perm.len()).rev() {
                perm.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let shuffled: Vec<Worker<f64>> = perm.iter().map(|&i| w[i]).chain([w[0]]).collect();
            let given = Options {
                root_mode: RootMode::AfterSend,
                order: OrderPolicy::Given,
                rounding: Rounding::Greedy,
            };
            let (g, _) = solve(&shuffled, p - 1, n, given);
            assert!(
                s.rational_makespan <= g.rational_makespan * (1.0 + 1e-9),
                "searched {} above the order {perm:?}: {}",
                s.rational_makespan,
                g.rational_makespan
            );
        }
    }
    assert!(proven >= 2, "the search proved only {proven} of 8 platforms");
}

/// The search's plan beside the optimum over every order and subset: never below it, equal
/// to it whenever it claims it, and its bound below it.
fn searched_against_every_order(
    w: &[Worker<f64>],
    root: usize,
    n: u64,
    mode: RootMode,
    rounding: Rounding,
) -> Result<(Summary<f64>, Vec<Assignment<f64>>), TestCaseError> {
    let (s, out) = searched(w, root, n, mode, rounding);
    let opt = optimum_over_orders(w, root, n, mode).to_f64().unwrap();
    prop_assert!(
        s.rational_makespan >= opt * (1.0 - 1e-9),
        "search {} below the optimum {opt}",
        s.rational_makespan
    );
    if s.rational_exact {
        prop_assert!(rel(s.rational_makespan, opt) < 1e-9, "search {} optimum {opt}", s.rational_makespan);
    }
    prop_assert!(s.lower_bound <= opt * (1.0 + 1e-12), "lower bound {} above optimum {opt}", s.lower_bound);
    Ok((s, out))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Issue 42 §2: `"order": "search"` plans no better than the optimum over every order
    /// and subset (brute force in exact rationals), equals it whenever it claims it, and
    /// bounds the plan by a bound below it; counts add up and stay near the shares.
    #[test]
    fn order_search_against_every_order((w, root, n, mode, rounding) in arb_search_instance(5, true)) {
        let (s, out) = searched_against_every_order(&w, root, n, mode, rounding)?;
        prop_assert!(s.lower_bound <= s.makespan);
        prop_assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
        let mut seen: Vec<usize> = out.iter().map(|a| a.worker).collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (0..w.len()).collect::<Vec<_>>());
        for a in &out {
            prop_assert!((a.count as f64 - a.share).abs() < 1.0 + 1e-9 * n as f64, "count {} share {}", a.count, a.share);
        }
    }

    /// The same where some links have no per-item cost (their orders differ by latencies
    /// alone): the plan and the bound hold, and a claimed optimum is one.
    #[test]
    fn order_search_without_per_item_links((w, root, n, mode, rounding) in arb_search_instance(5, false)) {
        let (_, out) = searched_against_every_order(&w, root, n, mode, rounding)?;
        prop_assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
    }

    /// The bound the bandwidth order reports holds for every order and subset, so that its
    /// `exact` claims no more than it proves (issue 42: with startup costs it claimed the
    /// optimum for its own order only).
    #[test]
    fn bandwidth_bound_holds_for_every_order((w, root, n, mode, rounding) in arb_search_instance(5, false)) {
        let options = Options { root_mode: mode, order: OrderPolicy::Bandwidth, rounding };
        let (s, _) = solve(&w, root, n, options);
        let opt = optimum_over_orders(&w, root, n, mode).to_f64().unwrap();
        prop_assert!(s.lower_bound <= opt * (1.0 + 1e-12), "lower bound {} above optimum {opt}", s.lower_bound);
        if s.report().exact {
            prop_assert!(s.makespan <= opt * (1.0 + 1e-9) + 1.0, "exact {} but optimum {opt}", s.makespan);
        }
    }
}

fn permute(items: &[usize], f: &mut impl FnMut(&[usize])) {
    fn go(v: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
        if k == v.len() {
            f(v);
            return;
        }
        for i in k..v.len() {
            v.swap(k, i);
            go(v, k + 1, f);
            v.swap(k, i);
        }
    }
    let mut v = items.to_vec();
    go(&mut v, 0, f);
}

/// genaud2003 eq. (7), evaluated exactly, equals the solver when everyone takes part.
#[test]
fn closed_form_eq7_exact() {
    let w = table1();
    let (s, out) = solve(&w, 0, 817_101, Options::default());
    assert_eq!(s.participating, 16);
    let ws = chain(&w, 0, &out.iter().map(|a| a.worker).collect::<Vec<_>>());
    let mut sum = Q::zero();
    let mut prod = Q::one();
    for x in &ws {
        let rate = &x.l + &x.m;
        sum += &prod / &rate;
        prod = prod * &x.m / &rate;
    }
    let t = Q::from_integer(BigInt::from(817_101)) / sum;
    assert!(rel(s.rational_makespan, t.to_f64().unwrap()) < 1e-13);
    // The shares of eq. (8): n_i = t/(λ_i+μ_i) Π_{j<i} μ_j/(λ_j+μ_j).
    let mut prod = Q::one();
    for (a, x) in out.iter().zip(&ws) {
        let rate = &x.l + &x.m;
        let share = (&t / &rate * &prod).to_f64().unwrap();
        assert!((a.share - share).abs() < 1e-6, "share {} vs eq. (8) {share}", a.share);
        prod = prod * &x.m / &rate;
    }
}

/// LP (3) of genaud2003 solved by a simplex solver agrees with the closed form.
#[test]
fn lp3_agrees_with_closed_form() {
    use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp};
    let cases: Vec<(Vec<Worker<f64>>, u64)> = vec![
        (table1(), 817_101),
        (
            vec![
                Worker::linear(0.0, 0.5),
                Worker::linear(0.2, 0.1),
                Worker::linear(0.9, 0.1),
                Worker::linear(0.05, 2.0),
            ],
            1000,
        ),
        (vec![Worker::linear(0.0, 1.0), Worker::linear(3.0, 0.1), Worker::linear(0.01, 0.3)], 50),
    ];
    for (w, n) in cases {
        let (s, out) = solve(&w, 0, n, Options::default());
        let mut lp = Lp::new(OptimizationDirection::Minimize);
        let t = lp.add_var(1.0, (0.0, f64::INFINITY));
        let x: Vec<_> = out.iter().map(|_| lp.add_var(0.0, (0.0, f64::INFINITY))).collect();
        lp.add_constraint(x.iter().map(|&v| (v, 1.0)).collect::<Vec<_>>(), ComparisonOp::Eq, n as f64);
        for i in 0..out.len() {
            // Σ_{j≤i} λ_j x_j + μ_i x_i − T ≤ 0
            let mut row: Vec<_> = (0..=i)
                .map(|j| {
                    let wj = out[j].worker;
                    let l = if wj == 0 { 0.0 } else { w[wj].comm_per_item };
                    (x[j], l + if j == i { w[wj].comp_per_item } else { 0.0 })
                })
                .collect();
            row.push((t, -1.0));
            lp.add_constraint(row, ComparisonOp::Le, 0.0);
        }
        let microlp::SolveOutcome::Solution(sol) = lp.solve().expect("LP solves") else {
            panic!("LP interrupted");
        };
        assert!(
            rel(s.rational_makespan, sol.objective()) < 1e-7,
            "ours {} LP {}",
            s.rational_makespan,
            sol.objective()
        );
    }
}

/// Slides, bus network: with equal links and the master computing while it sends, the best
/// master is a fastest worker; root choice (§3.4) finds it.
#[test]
fn bus_master_is_a_fastest_worker() {
    let mut rng = Lcg(7);
    let mut rnd = || rng.unit();
    for _ in 0..200 {
        let p = 2 + (rnd() * 6.0) as usize;
        let c = 1e-4 + rnd() * 1e-2;
        let w: Vec<Worker<f64>> = (0..p).map(|_| Worker::linear(c, 1e-3 + rnd() * 0.1)).collect();
        let cands: Vec<RootCandidate<f64>> = (0..p).map(RootCandidate::local).collect();
        let problem = Problem {
            workers: &w,
            root: Root::Choose(&cands),
            items: 100_000,
            options: Options { root_mode: RootMode::Overlap, ..Options::default() },
        };
        let mut out = vec![Assignment::EMPTY; p];
        let mut scratch = vec![Scratch::EMPTY; p];
        let s = plan(&problem, &mut out, &mut scratch).unwrap();
        let fastest = w.iter().map(|x| x.comp_per_item).fold(f64::INFINITY, f64::min);
        assert_eq!(w[s.root].comp_per_item, fastest);
    }
}

/// §3.4: the chosen root minimises transfer + makespan over the candidates.
#[test]
fn root_choice_minimises_transfer_plus_makespan() {
    let w = table1();
    let cands = [
        RootCandidate { worker: 0, transfer_latency: 0.0, transfer_per_item: 0.0 },
        RootCandidate { worker: 2, transfer_latency: 5.0, transfer_per_item: 1e-5 },
        RootCandidate { worker: 8, transfer_latency: 0.0, transfer_per_item: 1e-3 },
    ];
    let problem =
        Problem { workers: &w, root: Root::Choose(&cands), items: 817_101, options: Options::default() };
    let mut out = vec![Assignment::EMPTY; w.len()];
    let mut scratch = vec![Scratch::EMPTY; w.len()];
    let s = plan(&problem, &mut out, &mut scratch).unwrap();
    let total = |c: &RootCandidate<f64>| {
        solve(&w, c.worker, 817_101, Options::default()).0.rational_makespan + c.transfer_time(817_101.0)
    };
    let best = cands.iter().min_by(|a, b| total(a).total_cmp(&total(b))).unwrap();
    assert_eq!(s.root, best.worker);
    assert_eq!(s.root_transfer, best.transfer_time(817_101.0));
}

/// The lazy greedy rounding picks exactly what a full re-scan would. Costs are multiples of
/// 2⁻¹⁰ so that every finish time is exact and ties break identically in both.
#[test]
fn lazy_greedy_equals_naive_rescan() {
    let mut rng = Lcg(99);
    let mut rnd = |k: u64| rng.below(k);
    for case in 0..300 {
        let p = 1 + rnd(24) as usize;
        let w: Vec<Worker<f64>> = (0..p)
            .map(|_| Worker {
                comm_latency: if case % 2 == 0 { 0.0 } else { rnd(8) as f64 / 1024.0 },
                comm_per_item: rnd(16) as f64 / 1024.0,
                comp_latency: if case % 3 == 0 { 0.0 } else { rnd(8) as f64 / 1024.0 },
                comp_per_item: (1 + rnd(64)) as f64 / 1024.0,
            })
            .collect();
        let root = rnd(p as u64) as usize;
        let n = 1 + rnd(5000);
        let o = Options { rounding: Rounding::Greedy, ..Options::default() };
        let (_, out) = solve(&w, root, n, o);
        let naive = naive_greedy(&w, root, n, &out);
        let lazy: Vec<u64> = out.iter().map(|a| a.count).collect();
        assert_eq!(lazy, naive, "case {case}");
    }
}

fn naive_greedy(w: &[Worker<f64>], root: usize, n: u64, out: &[Assignment<f64>]) -> Vec<u64> {
    let costs: Vec<Worker<f64>> = out
        .iter()
        .map(|a| {
            let mut x = w[a.worker];
            if a.worker == root {
                x.comm_latency = 0.0;
                x.comm_per_item = 0.0;
            }
            x
        })
        .collect();
    let finish = |counts: &[u64]| -> Vec<f64> {
        let mut sent = 0.0;
        counts
            .iter()
            .zip(&costs)
            .map(|(&c, x)| {
                let r = x.comm_time(c as f64);
                let f = if c > 0 { sent + r + x.comp_time(c as f64) } else { sent };
                sent += r;
                f
            })
            .collect()
    };
    let mut counts: Vec<u64> = out.iter().map(|a| a.share.floor() as u64).collect();
    let left = n - counts.iter().sum::<u64>();
    let mut used = vec![false; counts.len()];
    for _ in 0..left {
        let mut best: Option<(f64, f64, usize)> = None;
        for k in 0..counts.len() {
            if used[k] || out[k].share - (out[k].share.floor()) <= 0.0 {
                continue;
            }
            counts[k] += 1;
            let f = finish(&counts);
            counts[k] -= 1;
            let key = (f.iter().cloned().fold(0.0, f64::max), f[k], k);
            let better = best.is_none_or(|b| {
                key.0 < b.0 || (key.0 == b.0 && (key.1 < b.1 || (key.1 == b.1 && key.2 > b.2)))
            });
            if better {
                best = Some(key);
            }
        }
        let Some((_, _, k)) = best else { break };
        counts[k] += 1;
        used[k] = true;
    }
    counts
}

/// How close the latency heuristic comes to the brute-force optimum (printed, for the
/// record; the bounds themselves are asserted in `affine_bounds_hold`).
#[test]
fn measure_affine_heuristic_gap() {
    let mut rng = Lcg(2024);
    let mut rnd = || rng.unit();
    let (mut exact, mut total, mut worst, mut worst_lb) = (0, 0, 0.0f64, 0.0f64);
    for _ in 0..400 {
        let p = 2 + (rnd() * 7.0) as usize;
        let w: Vec<Worker<f64>> = (0..p)
            .map(|_| Worker {
                comm_latency: if rnd() < 0.3 { 0.0 } else { rnd() * 2.0 },
                comm_per_item: if rnd() < 0.2 { 0.0 } else { rnd() * 1e-2 },
                comp_latency: if rnd() < 0.3 { 0.0 } else { rnd() * 2.0 },
                comp_per_item: 1e-4 + rnd() * 0.1,
            })
            .collect();
        let n = 1 + (rnd() * 2000.0) as u64;
        let (s, out) = solve(&w, 0, n, Options::default());
        let order: Vec<usize> = out.iter().map(|a| a.worker).collect();
        let opt =
            rational_optimum(&chain(&w, 0, &order), &Q::from_integer(BigInt::from(n))).to_f64().unwrap();
        total += 1;
        let gap = s.rational_makespan / opt - 1.0;
        if gap < 1e-9 {
            exact += 1;
        }
        worst = worst.max(gap);
        worst_lb = worst_lb.max(1.0 - s.lower_bound / opt);
    }
    println!(
        "latency heuristic: optimal in {exact}/{total}, worst gap {:.3}%, worst lower-bound gap {:.3}%",
        worst * 100.0,
        worst_lb * 100.0
    );
    assert!(exact * 10 >= total * 9, "the heuristic should be optimal on at least 90% of small instances");
}

/// Issue 11: bounds are bounds in floating point, and the rational optimum is accurate
/// when one worker takes nearly everything.
mod certified {
    use super::*;
    use divload::Q32;

    fn overlap_given(root_mode: RootMode) -> Options {
        Options { root_mode, order: OrderPolicy::Given, rounding: Rounding::Greedy }
    }

    /// `lower_bound ≤ exact optimum ≤ makespan ≤ bound`, and the rational makespan within
    /// `1e-12` relative of the exact optimum (linear costs: it is the optimum).
    fn check_exactly(w: &[Worker<f64>], root: usize, n: u64, o: Options) {
        let (s, out) = solve(w, root, n, o);
        let order: Vec<usize> = out.iter().map(|a| a.worker).collect();
        let opt = rational_optimum(&chain(w, root, &order), &Q::from_integer(BigInt::from(n)));
        assert!(
            q(s.lower_bound) <= opt,
            "lower bound {} above the optimum {}",
            s.lower_bound,
            opt.to_f64().unwrap()
        );
        assert!(s.lower_bound <= s.makespan, "lower bound {} above the plan {}", s.lower_bound, s.makespan);
        assert!(s.makespan <= s.bound, "plan {} above its bound {}", s.makespan, s.bound);
        if s.rational_exact {
            let err = rel(s.rational_makespan, opt.to_f64().unwrap());
            assert!(err <= 1e-12, "rational makespan {} off by {err:e}", s.rational_makespan);
        }
    }

    /// The first reproducer: a fast root computing while it sends, one slow link.
    /// Before: lower bound = rational makespan = 150.79916763305664, 1.26e-5 s above the
    /// integer plan 150.799155078 (exact optimum 150.79915507159).
    #[test]
    fn fast_root_next_to_a_slow_link() {
        let w = [Worker::linear(0.0, 1.3e-8), Worker::linear(100.0, 1.0)];
        check_exactly(&w, 0, 11_599_935_007, overlap_given(RootMode::Overlap));
        let (s, _) = solve(&w, 0, 11_599_935_007, overlap_given(RootMode::Overlap));
        assert!(rel(s.rational_makespan, 150.79915507159) < 1e-12, "{}", s.rational_makespan);
    }

    /// The second reproducer: one item, makespan 7e-9, lower bound was 7.0000006e-9.
    #[test]
    fn one_item_on_a_fast_root() {
        let w = [Worker::linear(0.0, 7e-9), Worker::linear(20.0, 1.0)];
        check_exactly(&w, 0, 1, overlap_given(RootMode::Overlap));
        let (s, out) = solve(&w, 0, 1, overlap_given(RootMode::Overlap));
        assert_eq!(out[0].count, 1);
        assert!(s.lower_bound <= 7e-9 && s.makespan == 7e-9);
    }

    /// Log-uniform in `[lo, hi]`.
    fn log_uniform(g: &mut Lcg, lo: f64, hi: f64) -> f64 {
        (lo.ln() + g.unit() * (hi.ln() - lo.ln())).exp()
    }

    fn random_instance(
        g: &mut Lcg,
        max_p: u64,
        max_items: u64,
        latency: bool,
    ) -> (Vec<Worker<f64>>, usize, u64, Options) {
        let p = 1 + g.below(max_p) as usize;
        let w: Vec<Worker<f64>> = (0..p)
            .map(|_| {
                let lambda = if g.below(8) == 0 { 0.0 } else { log_uniform(g, 1e-9, 1e3) };
                let (a, b) = if latency && g.below(2) == 0 {
                    (log_uniform(g, 1e-9, 1e2), log_uniform(g, 1e-9, 1e2))
                } else {
                    (0.0, 0.0)
                };
                Worker {
                    comm_latency: a,
                    comm_per_item: lambda,
                    comp_latency: b,
                    comp_per_item: log_uniform(g, 1e-9, 1e3),
                }
            })
            .collect();
        let root = g.below(p as u64) as usize;
        // Item counts spread over every magnitude up to `max_items`.
        let items = (log_uniform(g, 1.0, max_items as f64) as u64).clamp(1, max_items);
        let options = Options {
            root_mode: [RootMode::AfterSend, RootMode::Overlap][g.below(2) as usize],
            order: [OrderPolicy::Given, OrderPolicy::Bandwidth][g.below(2) as usize],
            rounding: [Rounding::Paper, Rounding::LargestRemainder, Rounding::Greedy][g.below(3) as usize],
        };
        (w, root, items, options)
    }

    /// 10⁵ random plans with cost ratios up to 10¹² and items up to 2⁵³: the bounds hold as
    /// computed, every time; on the small ones, against exact rationals too.
    #[test]
    fn bounds_hold_on_1e5_extreme_plans() {
        let mut g = Lcg(0x1111_2222_3333_4444);
        for case in 0..100_000u32 {
            let exact_check = case % 20 == 0;
            let (max_p, max_items) = if exact_check { (4, 1 << 40) } else { (12, 1 << 53) };
            let (w, root, n, o) = random_instance(&mut g, max_p, max_items, case % 3 == 0);
            if exact_check {
                check_exactly(&w, root, n, o);
                continue;
            }
            let problem = Problem { workers: &w, root: Root::Fixed(root), items: n, options: o };
            let mut out = vec![Assignment::EMPTY; w.len()];
            let mut scratch = vec![Scratch::EMPTY; w.len()];
            let Ok(s) = plan(&problem, &mut out, &mut scratch) else { continue };
            assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n, "case {case}");
            assert!(
                s.lower_bound <= s.makespan && s.makespan <= s.bound,
                "case {case}: {} <= {} <= {} fails for {w:?} root {root} n {n} {o:?}",
                s.lower_bound,
                s.makespan,
                s.bound
            );
        }
    }

    /// The same promise in `f32` and `Q32`, whose roundings are coarser.
    #[test]
    fn bounds_hold_in_f32_and_q32() {
        fn check<N: divload::Real>(w: &[Worker<f64>], root: usize, n: u64, o: Options) -> bool {
            let Some(w): Option<Vec<Worker<N>>> = w
                .iter()
                .map(|x| {
                    Some(Worker {
                        comm_latency: N::from_f64(x.comm_latency)?,
                        comm_per_item: N::from_f64(x.comm_per_item)?,
                        comp_latency: N::from_f64(x.comp_latency)?,
                        comp_per_item: N::from_f64(x.comp_per_item).filter(|m| *m > N::ZERO)?,
                    })
                })
                .collect()
            else {
                return false;
            };
            let problem = Problem { workers: &w, root: Root::Fixed(root), items: n, options: o };
            let mut out = vec![Assignment::EMPTY; w.len()];
            let mut scratch = vec![Scratch::EMPTY; w.len()];
            let Ok(s) = plan(&problem, &mut out, &mut scratch) else { return false };
            assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
            assert!(
                s.lower_bound <= s.makespan && s.makespan <= s.bound,
                "{}: {} <= {} <= {} fails for {w:?} root {root} n {n} {o:?}",
                N::NAME,
                s.lower_bound,
                s.makespan,
                s.bound
            );
            true
        }
        let mut g = Lcg(0x5555_6666_7777_8888);
        let (mut f32_plans, mut q32_plans) = (0, 0);
        for case in 0..20_000u32 {
            let (w, root, n, o) = random_instance(&mut g, 12, 1 << 24, case % 3 == 0);
            f32_plans += u32::from(check::<f32>(&w, root, n, o));
            q32_plans += u32::from(check::<Q32>(&w, root, n.min(1 << 20), o));
        }
        assert!(
            f32_plans > 10_000 && q32_plans > 2_000,
            "only {f32_plans} f32 and {q32_plans} Q32 plans ran"
        );
    }
}
