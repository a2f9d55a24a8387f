#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The order search under startup costs (issue 42 §2, `scatter::search`): the exact
//! rational optimum over every send order and subset, for 6, 8, 10, 12, 14 and 16 workers besides the
//! root, beside the bandwidth order's plan of the same platform. Startup costs up to a
//! fifth of an even share's transfer time, as in the comparison with DLT-Studio.
//! Results are written down in BENCHMARKS.md.
//!
//!     cargo bench -p divload --bench order_search

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use divload::scatter::plan_searched;
use divload::scatter::search::{search_memory, Line};
use divload::{plan, Assignment, Options, OrderPolicy, Problem, Root, Scratch, Worker};
use std::hint::black_box;

/// `p` workers, the first the root: comm 10⁻³–10⁻² s/item, comp 10⁻²–10⁻¹ s/item, startup
/// costs up to 20 % of an even share's transfer of `n` items.
fn platform(p: usize, n: u64) -> Vec<Worker<f64>> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ p as u64;
    let mut unit = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..p)
        .map(|_| {
            let comm = 1e-3 * 10f64.powf(unit());
            let share = n as f64 / p as f64 * comm;
            Worker {
                comm_latency: 0.2 * share * unit(),
                comm_per_item: comm,
                comp_latency: 0.2 * share * unit(),
                comp_per_item: 1e-2 * 10f64.powf(unit()),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("order_search");
    g.sample_size(10);
    let n = 100_000;
    for p in [7usize, 9, 11, 13, 15, 17] {
        let w = platform(p, n);
        let search = Options { order: OrderPolicy::Search, ..Options::default() };
        let problem = Problem { workers: &w, root: Root::Fixed(0), items: n, options: search };
        let (mut out, mut scratch) = (vec![Assignment::EMPTY; p], vec![Scratch::EMPTY; p]);
        let mut lines = vec![Line::EMPTY; search_memory(p).unwrap()];
        let s = plan_searched(&problem, &mut out, &mut scratch, &mut lines).unwrap();
        let bandwidth = Problem { options: Options::default(), ..problem };
        let b = plan(&bandwidth, &mut out, &mut scratch).unwrap();
        eprintln!(
            "{} workers besides the root: searched {:.6} s ({}), bandwidth {:.6} s, rational {:.6} vs {:.6}, lower bound {:.6}",
            p - 1,
            s.makespan,
            if s.rational_exact { "proven" } else { "not proven" },
            b.makespan,
            s.rational_makespan,
            b.rational_makespan,
            s.lower_bound
        );
        g.bench_with_input(BenchmarkId::new("search", p - 1), &p, |bch, _| {
            bch.iter(|| {
                plan_searched(black_box(&problem), &mut out, &mut scratch, &mut lines).map(|s| s.makespan)
            })
        });
        g.bench_with_input(BenchmarkId::new("bandwidth", p - 1), &p, |bch, _| {
            bch.iter(|| plan(black_box(&bandwidth), &mut out, &mut scratch).map(|s| s.makespan))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
