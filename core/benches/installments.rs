#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The star with installments (issue 42 §1, §3–§5, `scatter::installments`):
//! * as many installments as help (`auto`) on 4, 8, 16 and 32 workers with startup costs,
//!   a root that only distributes (the LP per sequence);
//! * every sequence of 3 or 4 workers with 2 installments, of 7 with 1 (proven);
//! * one installment with startup costs, caps and release times on 10³, 10⁴ and 10⁵ workers
//!   (the bandwidth-order fill beyond the LP's size);
//! * as many installments as help on 10³, 10⁴ and 10⁵ workers with startup costs (UMR beyond
//!   the LP's size, in `memory_for`'s memory);
//! * the same with caps of a quarter to three quarters of an even share and release times,
//!   so that the items take two rounds at least (the fill's rounds, `memory_for`'s memory).
//!
//! Results are written down in BENCHMARKS.md.
//!
//!     cargo bench -p divload --bench installments

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use divload::scatter::installments::{memory_for, plan, Chunk, Installments, Memory, Problem, RootWork};
use divload::Worker;
use std::hint::black_box;

/// `p` workers, the first the root: comm 10⁻³–10⁻² s/item, comp 10⁻²–10⁻¹ s/item (scaled
/// by `p` so that every worker matters), startup costs up to 20 % of an even share's
/// transfer; with `limits`, caps of 1–3 even shares and a quarter of the workers released
/// within the first tenth of the even split's time.
fn platform(p: usize, n: u64, limits: bool) -> (Vec<Worker<f64>>, Vec<u64>, Vec<f64>) {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ p as u64;
    let mut unit = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let even = n as f64 / p as f64;
    let workers: Vec<Worker<f64>> = (0..p)
        .map(|_| {
            let comm = 1e-3 * 10f64.powf(unit()) / p as f64;
            Worker {
                comm_latency: 0.2 * even * comm * unit(),
                comm_per_item: comm,
                comp_latency: 0.2 * even * comm * unit(),
                comp_per_item: 1e-2 * 10f64.powf(unit()),
            }
        })
        .collect();
    if !limits {
        return (workers, Vec::new(), Vec::new());
    }
    let caps = (0..p).map(|_| (even * (1.0 + 2.0 * unit())) as u64 + 1).collect();
    let release = (0..p).map(|_| if unit() < 0.25 { 0.1 * even * 1e-2 * unit() } else { 0.0 }).collect();
    (workers, caps, release)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("installments");
    g.sample_size(10);
    // (workers, caps and release times, installments, items, caps sized for items / this)
    let cases: &[(usize, bool, Installments, u64, u64)] = &[
        (5, false, Installments::Auto, 100_000, 1),
        (9, false, Installments::Auto, 100_000, 1),
        (17, false, Installments::Auto, 100_000, 1),
        (33, false, Installments::Auto, 100_000, 1),
        (4, false, Installments::AtMost(2), 100_000, 1),
        (5, false, Installments::AtMost(2), 100_000, 1),
        (8, false, Installments::AtMost(1), 100_000, 1),
        (1_001, true, Installments::AtMost(1), 10_000_000, 1),
        (10_001, true, Installments::AtMost(1), 100_000_000, 1),
        (100_001, true, Installments::AtMost(1), 1_000_000_000, 1),
        (1_001, false, Installments::Auto, 10_000_000, 1),
        (10_001, false, Installments::Auto, 100_000_000, 1),
        (100_001, false, Installments::Auto, 1_000_000_000, 1),
        (1_001, true, Installments::Auto, 10_000_000, 4),
        (10_001, true, Installments::Auto, 100_000_000, 4),
        (100_001, true, Installments::Auto, 1_000_000_000, 4),
    ];
    for &(p, limits, installments, n, tight) in cases {
        let (w, caps, release) = platform(p, n / tight, limits);
        let sizes = memory_for(p, installments).unwrap();
        let mut chunks = vec![Chunk::EMPTY; sizes.chunks];
        let (mut tableau, mut reals, mut indices) =
            (vec![0.0; sizes.tableau], vec![0.0; sizes.reals], vec![0; sizes.indices]);
        let problem = Problem {
            workers: &w,
            root: 0,
            root_work: RootWork::None,
            items: n,
            deadline: None,
            max_items: &caps,
            available_at: &release,
            installments,
        };
        let mut run = || {
            let mut m = Memory {
                chunks: &mut chunks,
                tableau: &mut tableau,
                reals: &mut reals,
                indices: &mut indices,
            };
            plan(black_box(&problem), &mut m).unwrap()
        };
        let s = run();
        eprintln!(
            "{} workers besides the root ({}): {} rounds, {} chunks, makespan {:.6} s, lower bound {:.6} s (gap {:.2} %), even split {:.6} s",
            p - 1,
            s.method.name(),
            s.rounds,
            s.chunks,
            s.makespan,
            s.lower_bound,
            100.0 * (s.makespan - s.lower_bound) / s.makespan,
            s.uniform_makespan
        );
        let id = match installments {
            Installments::AtMost(r) if !limits && p <= 8 => format!("{} at most {r}", p - 1),
            _ if tight > 1 => format!("{} caps in rounds", p - 1),
            _ => format!("{}{}", p - 1, if limits { " caps" } else { "" }),
        };
        g.bench_with_input(BenchmarkId::from_parameter(id), &p, |b, _| b.iter(&mut run));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
