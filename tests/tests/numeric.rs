//! Accuracy of the closed forms: a million workers in f64 against the exact geometric
//! closed form, and the f32 and Q32 (fixed-point) plans against f64.

use divload::{
    plan, Assignment, Options, Problem, Real, Root, RootMode, Rounding, Scratch, Summary, Worker, Q32,
};
use divload_tests::{table1, Lcg};

fn run<N: Real>(w: &[Worker<N>], root: usize, items: u64, o: Options) -> (Summary<N>, Vec<Assignment<N>>) {
    let problem = Problem { workers: w, root: Root::Fixed(root), items, options: o };
    let mut out = vec![Assignment::EMPTY; w.len()];
    let mut scratch = vec![Scratch::EMPTY; w.len()];
    let s = plan(&problem, &mut out, &mut scratch).expect("valid instance");
    (s, out)
}

fn convert<N: Real>(w: &[Worker<f64>]) -> Vec<Worker<N>> {
    w.iter()
        .enumerate()
        .map(|(i, x)| {
            Worker::try_from_f64(i, x.comm_latency, x.comm_per_item, x.comp_latency, x.comp_per_item)
                .expect("representable")
        })
        .collect()
}

/// A million identical workers on a bus: shares decay geometrically by ρ = μ/(λ+μ), and
/// the makespan is exactly nλ/(1 − ρ^p) (root computing while it sends, so all p workers
/// form one chain with the root's λ = 0 first: T = μ x₁ and the rest follow). The naive
/// product form underflows here; the recursion must not.
#[test]
fn million_workers_match_the_geometric_closed_form() {
    let p = 1_000_000usize;
    let (lambda, mu) = (1e-9, 1e-3);
    let w = vec![Worker::linear(lambda, mu); p];
    let n = 1u64 << 40;
    let o = Options {
        root_mode: RootMode::AfterSend,
        rounding: Rounding::LargestRemainder,
        ..Options::default()
    };
    let (s, out) = run(&w, p - 1, n, o);
    // Root last with λ = 0: the first p−1 workers form the geometric chain, the root takes
    // what reaches it at the same finish time: x_root·μ = T − Σ_{j<p} λ x_j.
    // Exact: with r = ρ, T = n / (Σ_{i<p-1} r^i/(λ+μ) + r^{p-1}/μ).
    let rho: f64 = mu / (lambda + mu);
    let geo = (1.0 - rho.powi(p as i32 - 1)) / (1.0 - rho) / (lambda + mu);
    let t_exact = n as f64 / (geo + rho.powi(p as i32 - 1) / mu);
    let rel = (s.rational_makespan - t_exact).abs() / t_exact;
    assert!(rel < 1e-9, "makespan {} exact {t_exact} rel {rel}", s.rational_makespan);
    assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), n);
    assert_eq!(s.participating, p);
    // Every worker finishes at T within 1e-9 relative: the shares are right everywhere,
    // not only in total.
    let spread = out.iter().map(|a| (a.finish - s.makespan).abs()).fold(0.0, f64::max);
    assert!(spread / s.makespan < 1e-6, "finish spread {spread}");
}

/// Shares that truly underflow (ratio 0.5 per worker) give zeros, not NaN, and the plan
/// stays exact in sum.
#[test]
fn underflowing_shares_become_zero() {
    let p = 200_000usize;
    let w = vec![Worker::linear(1.0, 1.0); p];
    let (s, out) = run(&w, 0, 1_000_000, Options::default());
    assert!(s.makespan.is_finite());
    assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1_000_000);
    assert!(s.participating < 100);
    assert!(out.iter().all(|a| a.share.is_finite() && a.share >= 0.0));
}

/// The accuracy the crate documents: on the paper's instance and on random platforms,
/// f32 makespans are within 1e-4 and Q32 within 2e-5 of f64 (relative; measured worst cases
/// 5.3e-5 and 5.7e-6 on these 153 plans); counts always add
/// up exactly and every count is within 2 items of the f64 count.
#[test]
fn f32_and_fixed_point_against_f64() {
    let mut cases = vec![(table1(), 817_101u64)];
    let mut rng = Lcg(5);
    let mut rnd = || rng.unit();
    for _ in 0..50 {
        let p = 2 + (rnd() * 60.0) as usize;
        let w: Vec<Worker<f64>> = (0..p)
            .map(|_| Worker {
                comm_latency: if rnd() < 0.5 { 0.0 } else { rnd() * 0.1 },
                comm_per_item: 1e-6 + rnd() * 1e-4,
                comp_latency: if rnd() < 0.5 { 0.0 } else { rnd() * 0.1 },
                comp_per_item: 1e-4 + rnd() * 1e-2,
            })
            .collect();
        cases.push((w, 1000 + (rnd() * 1e6) as u64));
    }
    let (mut worst32, mut worst_q) = (0.0f64, 0.0f64);
    for (w, n) in &cases {
        for rounding in [Rounding::Paper, Rounding::LargestRemainder, Rounding::Greedy] {
            let o = Options { rounding, ..Options::default() };
            let (s64, o64) = run(w, 0, *n, o);
            let (s32, o32) = run(&convert::<f32>(w), 0, *n, o);
            let (sq, oq) = run(&convert::<Q32>(w), 0, *n, o);
            for (sum, out) in [
                (o32.iter().map(|a| a.count).sum::<u64>(), o32.iter().map(|a| a.count).collect::<Vec<_>>()),
                (oq.iter().map(|a| a.count).sum::<u64>(), oq.iter().map(|a| a.count).collect::<Vec<_>>()),
            ] {
                assert_eq!(sum, *n);
                for (c, a) in out.iter().zip(&o64) {
                    assert!(c.abs_diff(a.count) <= 2 + a.count / 20_000, "count {c} vs f64 {}", a.count);
                }
            }
            let r32 = (s32.makespan.to_f64() - s64.makespan).abs() / s64.makespan;
            let rq = (sq.makespan.to_f64() - s64.makespan).abs() / s64.makespan;
            worst32 = worst32.max(r32);
            worst_q = worst_q.max(rq);
        }
    }
    println!("worst relative makespan error: f32 {worst32:.2e}, Q32 {worst_q:.2e}");
    assert!(worst32 < 1e-4, "f32 {worst32}");
    assert!(worst_q < 2e-5, "Q32 {worst_q}");
}

/// Item counts beyond what a type can resolve are an error, not a silent wrong plan.
#[test]
fn too_many_items_for_the_type() {
    let w32 = convert::<f32>(&table1());
    let problem =
        Problem { workers: &w32, root: Root::Fixed(0), items: (1 << 24) + 1, options: Options::default() };
    let mut out = vec![Assignment::EMPTY; 16];
    let mut scratch = vec![Scratch::EMPTY; 16];
    let e = plan(&problem, &mut out, &mut scratch).unwrap_err();
    assert_eq!(e.to_string(), "items: at most 16777216 can be planned with f32 arithmetic, got 16777217");
    let wq = convert::<Q32>(&table1());
    let problem = Problem { workers: &wq, root: Root::Fixed(0), items: 1 << 31, options: Options::default() };
    let mut out = vec![Assignment::EMPTY; 16];
    let mut scratch = vec![Scratch::EMPTY; 16];
    assert!(plan(&problem, &mut out, &mut scratch).is_err());
    // Times beyond Q32's range (2^31 s) saturate and are reported.
    let slow = vec![Worker::<Q32>::try_from_f64(0, 0.0, 0.0, 0.0, 100.0).unwrap(); 2];
    let problem =
        Problem { workers: &slow, root: Root::Fixed(0), items: 1 << 30, options: Options::default() };
    let mut out = vec![Assignment::EMPTY; 2];
    let mut scratch = vec![Scratch::EMPTY; 2];
    let e = plan(&problem, &mut out, &mut scratch).unwrap_err();
    assert!(e.to_string().contains("Q32"), "{e}");
}
