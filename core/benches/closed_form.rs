#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The closed-form plan (rational solve + greedy rounding + evaluation) for p = 16 (the
//! paper's grid), 10³ and 10⁶ workers. Results are written down in BENCHMARKS.md.
//!
//!     cargo bench -p divload --bench closed_form

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use divload::{plan, Assignment, Options, Problem, Root, Rounding, Scratch};
use std::hint::black_box;

mod common;
use common::random_platform as platform;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan");
    g.sample_size(10);
    for p in [16usize, 1_000, 1_000_000] {
        let w = platform(p);
        for rounding in [Rounding::LargestRemainder, Rounding::Greedy] {
            let problem = Problem {
                workers: &w,
                root: Root::Fixed(0),
                items: 1 << 40,
                options: Options { rounding, ..Options::default() },
            };
            let mut out = vec![Assignment::EMPTY; p];
            let mut scratch = vec![Scratch::EMPTY; p];
            g.bench_with_input(BenchmarkId::new(format!("{rounding:?}"), p), &p, |b, _| {
                b.iter(|| plan(black_box(&problem), &mut out, &mut scratch).map(|s| s.makespan))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
