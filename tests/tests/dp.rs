//! The dynamic programs against brute force over every composition of the items, and
//! against each other.

use divload::cost::{Affine, Cost, CostFn, FnCost, Tabulated, WorkerCosts};
use divload::scatter::exact::{exact, exact_memory, CostProblem, Pruning};
use divload::{plan, Assignment, ErrorCode, Method, Options, OrderPolicy, Problem, Root, RootMode, Scratch};
use divload_tests::table1;
use proptest::prelude::*;

type C = Cost<f64, 4>;

/// Makespan of `counts` in the send order `order` (eq. 1–2), the root not sending.
fn chain<A: CostFn<f64>, B: CostFn<f64>>(
    ws: &[WorkerCosts<A, B>],
    root: usize,
    order: &[usize],
    counts: &[u64],
) -> f64 {
    let (mut sent, mut worst) = (0.0f64, 0.0f64);
    for (&w, &x) in order.iter().zip(counts) {
        let comm = if w == root { 0.0 } else { ws[w].comm.time(x) };
        sent += comm;
        worst = worst.max(sent + ws[w].comp.time(x));
    }
    worst
}

/// The best makespan over all compositions of `n` into `order.len()` parts.
fn brute<A: CostFn<f64>, B: CostFn<f64>>(
    ws: &[WorkerCosts<A, B>],
    root: usize,
    order: &[usize],
    n: u64,
) -> f64 {
    fn go<A: CostFn<f64>, B: CostFn<f64>>(
        ws: &[WorkerCosts<A, B>],
        root: usize,
        order: &[usize],
        left: u64,
        counts: &mut Vec<u64>,
        best: &mut f64,
    ) {
        if counts.len() + 1 == order.len() {
            counts.push(left);
            *best = best.min(chain(ws, root, order, counts));
            counts.pop();
            return;
        }
        for x in 0..=left {
            counts.push(x);
            go(ws, root, order, left - x, counts, best);
            counts.pop();
        }
    }
    let mut best = f64::INFINITY;
    go(ws, root, order, n, &mut Vec::new(), &mut best);
    best
}

struct Solved {
    order: Vec<usize>,
    counts: Vec<u64>,
    makespan: f64,
    lower: f64,
}

fn solve<A: CostFn<f64>, B: CostFn<f64>>(
    problem: &CostProblem<'_, A, B>,
    pruning: Pruning,
) -> Result<Solved, divload::Error> {
    let p = problem.workers.len();
    let mem = exact_memory(problem.items, p)?;
    let (mut ch, mut co) = (vec![0u32; mem.choices], vec![0.0f64; mem.costs]);
    let mut out = vec![Assignment::EMPTY; p];
    let s = exact(problem, pruning, &mut out, &mut ch, &mut co, |_, _| {})?;
    assert_eq!(s.method, Method::EXACT_DP);
    assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), problem.items, "counts add up");
    let mut disp = 0;
    for a in &out {
        assert_eq!(a.displacement, disp);
        disp += a.count;
        assert!(a.start <= a.received && a.received <= a.finish);
    }
    Ok(Solved {
        order: out.iter().map(|a| a.worker).collect(),
        counts: out.iter().map(|a| a.count).collect(),
        makespan: s.makespan,
        lower: s.lower_bound,
    })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300)
}

/// A non-decreasing tabulated cost with 1 to 4 points, some flat, some with a latency.
fn arb_table(scale: f64) -> impl Strategy<Value = C> {
    prop::collection::vec((1u64..6, 0.0f64..1.0), 1..=4).prop_map(move |steps| {
        let (mut size, mut secs) = (0u64, 0.0f64);
        let pts: Vec<(u64, f64)> = steps
            .into_iter()
            .map(|(ds, dy)| {
                size += ds;
                secs += if dy < 0.2 { 0.0 } else { dy * scale };
                (size, secs)
            })
            .collect();
        Cost::Tabulated(Tabulated::new(&pts).expect("monotone by construction"))
    })
}

fn arb_affine(scale: f64) -> impl Strategy<Value = C> {
    (0.0f64..1.0, 0.0f64..1.0).prop_map(move |(a, l)| {
        let a = if a < 0.5 { 0.0 } else { a * scale };
        Cost::Affine(Affine::new(a, l * scale).expect("valid"))
    })
}

fn arb_cost(scale: f64) -> impl Strategy<Value = C> {
    prop_oneof![arb_affine(scale), arb_table(scale)]
}

fn arb_problem(max_p: usize) -> impl Strategy<Value = (Vec<WorkerCosts<C>>, usize, RootMode, OrderPolicy)> {
    prop::collection::vec((arb_cost(0.2), arb_cost(1.0)), 1..=max_p).prop_flat_map(|ws| {
        let p = ws.len();
        let ws: Vec<_> = ws.into_iter().map(|(comm, comp)| WorkerCosts { comm, comp }).collect();
        (
            Just(ws),
            0..p,
            prop_oneof![Just(RootMode::AfterSend), Just(RootMode::Overlap)],
            prop_oneof![Just(OrderPolicy::Given), Just(OrderPolicy::Bandwidth)],
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Algorithm 1 and the pruned DP both find the best composition, and the same one.
    #[test]
    fn exact_dp_equals_brute_force((ws, root, mode, order) in arb_problem(4), n in 1u64..=9) {
        let problem = CostProblem { workers: &ws, root, items: n, root_mode: mode, order };
        let all = solve(&problem, Pruning::None).unwrap();
        let pruned = solve(&problem, Pruning::Monotone).unwrap();
        let best = brute(&ws, root, &all.order, n);
        prop_assert!(close(all.makespan, best), "Algorithm 1 {} vs brute force {best}", all.makespan);
        prop_assert_eq!(&pruned.counts, &all.counts);
        prop_assert_eq!(pruned.makespan, all.makespan);
        prop_assert!(all.lower <= all.makespan && close(all.lower, best));
        // The root is where the mode puts it.
        let root_pos = if mode == RootMode::AfterSend { ws.len() - 1 } else { 0 };
        prop_assert_eq!(all.order[root_pos], root);
    }

    /// On larger instances the pruned DP returns exactly Algorithm 1's plan.
    #[test]
    fn pruning_changes_nothing((ws, root, mode, order) in arb_problem(6), n in 1u64..=300) {
        let problem = CostProblem { workers: &ws, root, items: n, root_mode: mode, order };
        let all = solve(&problem, Pruning::None).unwrap();
        let pruned = solve(&problem, Pruning::Monotone).unwrap();
        prop_assert_eq!(&pruned.counts, &all.counts);
        prop_assert_eq!(pruned.makespan, all.makespan);
    }
}

/// Costs that decrease somewhere: Algorithm 1 still finds the optimum; the pruned DP
/// refuses them, naming the worker and the size.
#[test]
fn decreasing_costs_need_algorithm_1() {
    type F = FnCost<Box<dyn Fn(u64) -> f64>>;
    let wobbly =
        || -> F { FnCost(Box::new(|x: u64| if x == 0 { 0.0 } else { 1.0 + ((x * 7) % 5) as f64 * 0.3 })) };
    let lin = |r: f64| -> F { FnCost(Box::new(move |x: u64| r * x as f64)) };
    let ws = [
        WorkerCosts { comm: lin(0.05), comp: wobbly() },
        WorkerCosts { comm: lin(0.1), comp: lin(0.7) },
        WorkerCosts { comm: lin(0.02), comp: wobbly() },
    ];
    for n in 1..=8 {
        let problem = CostProblem {
            workers: &ws,
            root: 1,
            items: n,
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Given,
        };
        let all = solve(&problem, Pruning::None).unwrap();
        assert!(close(all.makespan, brute(&ws, 1, &all.order, n)), "n = {n}");
    }
    let problem = CostProblem {
        workers: &ws,
        root: 1,
        items: 8,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Given,
    };
    let e = solve(&problem, Pruning::Monotone).err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidInput);
    assert_eq!(
        e.to_string(),
        "worker 0: comp time must not decrease with the item count, but 3 items take less than 2 \
         (use a solver without pruning, or repair the costs)"
    );
}

#[test]
fn bad_cost_functions_and_buffers_are_named() {
    let ok = |x: u64| 0.1 * x as f64;
    let run = |f: fn(u64) -> f64, pruning| {
        let ws = [
            WorkerCosts { comm: FnCost(ok as fn(u64) -> f64), comp: FnCost(ok as fn(u64) -> f64) },
            WorkerCosts { comm: FnCost(ok as fn(u64) -> f64), comp: FnCost(f) },
        ];
        let problem = CostProblem {
            workers: &ws,
            root: 0,
            items: 5,
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Given,
        };
        solve(&problem, pruning).err().map(|e| e.to_string())
    };
    assert_eq!(
        run(|x| 1.0 + x as f64, Pruning::None).unwrap(),
        "worker 1: comp time of 0 items must be finite and >= 0 (0 for 0 items), got 1"
    );
    assert_eq!(
        run(|x| if x == 3 { f64::NAN } else { x as f64 }, Pruning::None).unwrap(),
        "worker 1: comp time of 3 items must be finite and >= 0 (0 for 0 items), got NaN"
    );
    assert_eq!(
        run(|x| -(x as f64), Pruning::None).unwrap(),
        "worker 1: comp time of 1 items must be finite and >= 0 (0 for 0 items), got -1"
    );
    assert_eq!(
        run(|x| if x > 4 { f64::INFINITY } else { 0.0 }, Pruning::Monotone).unwrap(),
        "worker 1: comp time of 5 items must be finite and >= 0 (0 for 0 items), got inf"
    );

    let ws = [WorkerCosts { comm: Affine::new(0.0, 0.1).unwrap(), comp: Affine::new(0.0, 1.0).unwrap() }; 3];
    let problem = CostProblem {
        workers: &ws,
        root: 0,
        items: 10,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Given,
    };
    let mut out = [Assignment::EMPTY; 3];
    let (mut ch, mut co) = ([0u32; 22], [0.0f64; 11]);
    let e = exact(&problem, Pruning::Monotone, &mut out, &mut ch[..21], &mut co, |_, _| {}).unwrap_err();
    assert_eq!((e.code(), e.needed()), (ErrorCode::BufferTooSmall, Some(22)));
    let e = exact(&problem, Pruning::Monotone, &mut out, &mut ch, &mut co[..10], |_, _| {}).unwrap_err();
    assert_eq!(e.to_string(), "DP costs: buffer too small, need 11, got 10");
    let e = exact(&problem, Pruning::Monotone, &mut out[..2], &mut ch, &mut co, |_, _| {}).unwrap_err();
    assert_eq!(e.needed(), Some(3));
    let zero = CostProblem { items: 0, ..problem };
    assert_eq!(
        exact(&zero, Pruning::Monotone, &mut out, &mut ch, &mut co, |_, _| {}).unwrap_err().to_string(),
        "items: must be at least 1, got 0"
    );
    let none: CostProblem<'_, Affine<f64>> = CostProblem { workers: &[], ..problem };
    assert_eq!(
        exact(&none, Pruning::Monotone, &mut out, &mut ch, &mut co, |_, _| {}).unwrap_err().code(),
        ErrorCode::InvalidInput
    );
    let far = CostProblem { root: 3, ..problem };
    assert_eq!(
        exact(&far, Pruning::Monotone, &mut out, &mut ch, &mut co, |_, _| {}).unwrap_err().to_string(),
        "root: must be a worker index in 0..3, got 3"
    );
    assert_eq!(exact_memory(u64::from(u32::MAX), 2).unwrap_err().code(), ErrorCode::Overflow);
    assert_eq!(
        exact_memory(u64::from(u32::MAX), 2).unwrap_err().to_string(),
        "exact DP: items: at most 4294967294, got 4294967295"
    );
}

/// The progress callback reaches the total, and only grows.
#[test]
fn progress_reaches_the_total() {
    let ws: Vec<_> = table1().iter().enumerate().map(|(i, w)| w.costs(i).unwrap()).collect();
    let problem = CostProblem {
        workers: &ws,
        root: 0,
        items: 100_000,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Bandwidth,
    };
    let mem = exact_memory(100_000, 16).unwrap();
    let (mut ch, mut co) = (vec![0u32; mem.choices], vec![0.0f64; mem.costs]);
    let mut out = vec![Assignment::EMPTY; 16];
    let mut seen = vec![];
    exact(&problem, Pruning::Monotone, &mut out, &mut ch, &mut co, |done, total| seen.push((done, total)))
        .unwrap();
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(seen.last(), Some(&(15 * 100_001, 15 * 100_001)));
    assert!(seen.len() > 16);
}

/// On Table 1 the exact optimum lies between the rational lower bound and the closed-form
/// plan, in the same send order; it is the closed form's true gap.
#[test]
fn table1_exact_optimum_brackets_the_closed_form() {
    let workers = table1();
    let n = 20_000;
    let problem = Problem { workers: &workers, root: Root::Fixed(0), items: n, options: Options::default() };
    let mut out = vec![Assignment::EMPTY; 16];
    let mut scratch = vec![Scratch::EMPTY; 16];
    let closed = plan(&problem, &mut out, &mut scratch).unwrap();
    let closed_order: Vec<usize> = out.iter().map(|a| a.worker).collect();

    let ws: Vec<_> = workers.iter().enumerate().map(|(i, w)| w.costs(i).unwrap()).collect();
    let cp = CostProblem {
        workers: &ws,
        root: 0,
        items: n,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Bandwidth,
    };
    let dp = solve(&cp, Pruning::Monotone).unwrap();
    assert_eq!(dp.order, closed_order, "same send order as Thm 3");
    assert!(closed.lower_bound <= dp.makespan * (1.0 + 1e-12), "{} <= {}", closed.lower_bound, dp.makespan);
    assert!(dp.makespan <= closed.makespan * (1.0 + 1e-12));
    assert!(closed.makespan - dp.makespan < 0.02, "greedy rounding is within a few μ of the optimum");
}

fn sampled<const K: usize>(problem: &CostProblem<'_, C, C>) -> (Vec<u64>, divload::Summary<f64>) {
    let mut dp = divload::scatter::sampled::Sampled::<f64, K, 8>::new();
    let mut out = vec![Assignment::EMPTY; problem.workers.len()];
    let s = dp.solve(problem, &mut out).unwrap();
    assert_eq!(s.method, Method::SAMPLED_DP);
    (out.iter().map(|a| a.count).collect(), s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The sampled DP's lower bound is below the exact optimum and its plan above it; with
    /// fewer items than samples it is exact.
    #[test]
    fn sampled_bound_always_holds((ws, root, mode, order) in arb_problem(6), n in 1u64..=400) {
        let problem = CostProblem { workers: &ws, root, items: n, root_mode: mode, order };
        let opt = solve(&problem, Pruning::Monotone).unwrap();
        for (counts, s) in [sampled::<8>(&problem), sampled::<33>(&problem), sampled::<1024>(&problem)] {
            prop_assert_eq!(counts.iter().sum::<u64>(), n);
            prop_assert!(s.lower_bound <= opt.makespan * (1.0 + 1e-12), "bound {} above the optimum {}", s.lower_bound, opt.makespan);
            prop_assert!(opt.makespan <= s.makespan * (1.0 + 1e-12), "plan {} below the optimum {}", s.makespan, opt.makespan);
        }
        let (counts, s) = sampled::<1024>(&problem);
        prop_assert_eq!(counts, opt.counts);
        prop_assert!(s.gap() <= 1e-12 * s.makespan);
    }
}

/// The paper's instance in 40 KiB: the gap shrinks as K grows, and the certified gap is
/// honest against the exact optimum.
#[test]
fn sampled_on_table1_is_close_and_certified() {
    use divload::scatter::sampled::Sampled;
    let ws: Vec<_> = table1().iter().enumerate().map(|(i, w)| w.costs(i).unwrap()).collect();
    let n = 817_101;
    let problem = CostProblem {
        workers: &ws,
        root: 0,
        items: n,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Bandwidth,
    };
    let opt = solve(&problem, Pruning::Monotone).unwrap();
    let mut out = vec![Assignment::EMPTY; 16];
    let mut gaps = vec![];
    let mut excess = vec![];
    let s = Sampled::<f64, 256, 16>::new().solve(&problem, &mut out).unwrap();
    gaps.push(s.gap());
    excess.push(s.makespan - opt.makespan);
    assert!(s.lower_bound <= opt.makespan && opt.makespan <= s.makespan);
    let s = Sampled::<f64, 1024, 16>::new().solve(&problem, &mut out).unwrap();
    gaps.push(s.gap());
    excess.push(s.makespan - opt.makespan);
    assert!(s.lower_bound <= opt.makespan && opt.makespan <= s.makespan);
    let s = Sampled::<f64, 4096, 16>::new().solve(&problem, &mut out).unwrap();
    gaps.push(s.gap());
    excess.push(s.makespan - opt.makespan);
    assert!(s.lower_bound <= opt.makespan && opt.makespan <= s.makespan);
    assert!(gaps.windows(2).all(|g| g[1] < g[0]), "{gaps:?}");
    assert!(s.gap() / s.makespan < 0.01, "{gaps:?}");
    assert_eq!(std::mem::size_of::<Sampled<f64, 1024, 16>>(), 2 * 1024 * 16 + 8 * 1024);
    eprintln!(
        "Table 1, sampled DP, K = 256, 1024, 4096: certified gaps {gaps:?} s, true excess {excess:?} s; optimum {} s",
        opt.makespan
    );

    let e = Sampled::<f64, 64, 8>::new().solve(&problem, &mut out).unwrap_err();
    assert_eq!(e.to_string(), "sampled DP: workers: at most 8, got 16");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// cerin2006 §4: the threshold search equals the DP without communication, and brute
    /// force on small instances.
    #[test]
    fn threshold_equals_dp(comp in prop::collection::vec(arb_cost(1.0), 1..=5), n in 1u64..=200) {
        let mut counts = vec![0u64; comp.len()];
        let t: f64 = divload::partition::solve(&comp, n, &mut counts).unwrap();
        prop_assert_eq!(counts.iter().sum::<u64>(), n);
        let worst = comp.iter().zip(&counts).map(|(f, &x)| f.time(x)).fold(0.0, f64::max);
        prop_assert_eq!(worst, t);
        let none = Cost::Affine(Affine::new(0.0, 0.0).unwrap());
        let ws: Vec<WorkerCosts<C>> = comp.iter().map(|f| WorkerCosts { comm: none.clone(), comp: f.clone() }).collect();
        let problem = CostProblem { workers: &ws, root: 0, items: n, root_mode: RootMode::AfterSend, order: OrderPolicy::Given };
        let dp = solve(&problem, Pruning::Monotone).unwrap();
        prop_assert_eq!(dp.makespan, t);
        if n <= 9 && comp.len() <= 4 {
            prop_assert_eq!(brute(&ws, 0, &dp.order, n), t);
        }
    }
}

#[test]
fn threshold_rejects_bad_input() {
    let comp = [Affine::new(0.0, 1.0).unwrap(); 3];
    let mut counts = [0u64; 3];
    assert_eq!(
        divload::partition::solve(&comp, 0, &mut counts).unwrap_err().to_string(),
        "items: must be at least 1, got 0"
    );
    assert_eq!(divload::partition::solve(&comp, 5, &mut counts[..2]).unwrap_err().needed(), Some(3));
    assert_eq!(
        divload::partition::solve::<f64, Affine<f64>>(&[], 5, &mut counts).unwrap_err().code(),
        ErrorCode::InvalidInput
    );
    let down = [FnCost(|x: u64| if x == 2 { 0.5 } else { x as f64 })];
    assert_eq!(
        divload::partition::solve(&down, 5, &mut counts).unwrap_err().to_string(),
        "worker 0: comp time must not decrease with the item count, but 2 items take less than 1 \
         (use a solver without pruning, or repair the costs)"
    );
    // A million items over Table 1's computation costs, exactly.
    let comp: Vec<Affine<f64>> =
        table1().iter().map(|w| Affine::new(0.0, w.comp_per_item).unwrap()).collect();
    let mut counts = vec![0u64; 16];
    let t = divload::partition::solve(&comp, 1_000_000, &mut counts).unwrap();
    assert_eq!(counts.iter().sum::<u64>(), 1_000_000);
    let worst = comp.iter().zip(&counts).map(|(f, &x)| f.time(x)).fold(0.0, f64::max);
    assert_eq!(worst, t);
    // Just below T, the workers cannot hold all the items: T is the smallest.
    let below = f64::from_bits(t.to_bits() - 1);
    let fit: u64 = comp.iter().map(|f| f.max_within(below, 1_000_000).unwrap()).sum();
    assert!(fit < 1_000_000, "{fit} items fit below T = {t}");
}

/// Issue 11: the sampled DP's work does not grow with the item count. Placing the items
/// left over after the grid one at a time took O(n/K·p): 40 s for 10¹² items, about 100
/// hours for 2⁵³; batched, every item count up to 2⁵³ plans in a few DP levels. The plan
/// stays certified and its counts exact.
#[test]
fn sampled_work_is_bounded_for_any_item_count() {
    use divload::scatter::sampled::Sampled;
    let ws: Vec<_> = table1().iter().enumerate().map(|(i, w)| w.costs(i).unwrap()).collect();
    let mut work = Box::new(Sampled::<f64, 256, 16>::new());
    for n in [1_000_000_000_000u64, (1 << 53) - 1, 1 << 53] {
        let problem = CostProblem {
            workers: &ws,
            root: 0,
            items: n,
            root_mode: RootMode::AfterSend,
            order: OrderPolicy::Bandwidth,
        };
        let mut out = vec![Assignment::EMPTY; 16];
        let s = work.solve(&problem, &mut out).unwrap();
        assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
        assert!(s.lower_bound <= s.makespan);
        assert!(s.gap() / s.makespan < 0.05, "n = {n}: gap {} of {}", s.gap(), s.makespan);
    }
}
