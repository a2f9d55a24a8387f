#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The return-message and multi-cluster models at scale: LIFO, FIFO and the best scenario
//! against p (issue 12: closed forms at p = 10⁶, FIFO's also with `d = c/2`), and the BIASED plan of 10⁵ processors
//! in 1 000 clusters (issue 13: target 10 ms). Results are written down in BENCHMARKS.md.
//!
//!     cargo bench -p divload --bench models

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use divload::multicluster::{self, Application, Class, Cluster, Links, Options, Processor, StepCost};
use divload::returns::{self, Assignment, Port, Problem, Schedule, Scratch};
use std::hint::black_box;

mod common;
use common::{return_platform, uniform};

fn returns_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("returns");
    g.sample_size(10);
    let mut rnd = uniform(7);
    for (p, schedules) in [
        (5usize, &[Schedule::Best][..]),
        (8, &[Schedule::Best, Schedule::Fifo][..]),
        (32, &[Schedule::Best][..]),
        (1_000_000, &[Schedule::Lifo, Schedule::Fifo, Schedule::Best][..]),
    ] {
        let w = return_platform(p, &mut rnd);
        for &schedule in schedules {
            let problem = Problem { workers: &w, items: 1 << 40, schedule, port: Port::FullDuplex };
            let n = returns::needs(p, schedule, Port::FullDuplex).unwrap();
            let (mut out, mut scratch, mut tableau) =
                (vec![Assignment::EMPTY; n.out], vec![Scratch::EMPTY; n.scratch], vec![0.0; n.tableau]);
            g.bench_with_input(BenchmarkId::new(format!("{schedule:?}"), p), &p, |b, _| {
                b.iter(|| {
                    returns::plan(black_box(&problem), &mut out, &mut scratch, &mut tableau)
                        .map(|s| s.makespan)
                })
            });
        }
    }
    // The FIFO closed form proper (returns.md §3): `d = z·c`, here z = 1/2. On the platform
    // above, with `d` drawn apart from `c`, FIFO is the better of two prefix rules, a
    // heuristic that sorts the workers twice.
    let p = 1_000_000;
    let w: Vec<_> = return_platform(p, &mut rnd)
        .into_iter()
        .map(|w| returns::ReturnWorker::new(w.comm_per_item, w.comp_per_item, w.comm_per_item * 0.5))
        .collect();
    let problem = Problem { workers: &w, items: 1 << 40, schedule: Schedule::Fifo, port: Port::FullDuplex };
    let (mut out, mut scratch) = (vec![Assignment::EMPTY; p], vec![Scratch::EMPTY; p]);
    g.bench_with_input(BenchmarkId::new("Fifo(d=c/2)", p), &p, |b, _| {
        b.iter(|| returns::plan(black_box(&problem), &mut out, &mut scratch, &mut []).map(|s| s.makespan))
    });
    g.finish();
}

/// 1 000 clusters, 10⁵ processors (a fifth of the clusters single processors), speeds 0.5–2.
fn clusters() -> Vec<Cluster> {
    let mut rnd = uniform(7);
    let mut cl: Vec<Cluster> = (0..1000)
        .map(|i| Cluster {
            processors: if i % 5 == 0 { 1 } else { 1 + (rnd() * 248.0) as u32 },
            speed: 0.5 + 1.5 * rnd(),
        })
        .collect();
    let total: i64 = cl.iter().map(|c| i64::from(c.processors)).sum();
    let (per, rem) = ((100_000 - total) / 800, (100_000 - total) % 800);
    for (i, c) in cl.iter_mut().enumerate().filter(|(_, c)| c.processors > 1) {
        let add = per + if (i as i64) < rem.abs() { rem.signum() } else { 0 };
        c.processors = (i64::from(c.processors) + add).max(2) as u32;
    }
    cl
}

fn multicluster_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("multicluster");
    g.sample_size(10);
    let cl = clusters();
    let costs: Vec<StepCost> = (0..cl.len())
        .map(|i| StepCost { per_load: 1.0 + (i % 7) as f64, fixed: 1e-5 * (i % 3) as f64 })
        .collect();
    let apps = [
        ("ring", Application::Ring { lattice: 1_000_000, flip_time: 0.55e-6, steps: 20 }),
        (
            "all_to_all",
            Application::AllToAll {
                objects: 1_000_000_000,
                chunk: 4096,
                sort_time: 3.42e-3,
                words_per_object: 25.0,
            },
        ),
        ("custom", Application::Custom { units: 1_000_000_000_000, iterations: 1.0, costs: &costs }),
    ];
    let processors: u64 = cl.iter().map(|c| u64::from(c.processors)).sum();
    for (name, application) in apps {
        let problem = multicluster::Problem {
            clusters: &cl,
            links: Links::PAPER,
            application,
            options: Options::default(),
        };
        let n = multicluster::needs(&problem).unwrap();
        let (mut classes, mut procs) = (vec![Class::EMPTY; n.classes], vec![Processor::EMPTY; n.processors]);
        g.bench_with_input(BenchmarkId::new(name, processors), &processors, |b, _| {
            b.iter(|| {
                multicluster::plan(black_box(&problem), &mut classes, &mut procs).map(|s| s.report.makespan)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, returns_bench, multicluster_bench);
criterion_main!(benches);
