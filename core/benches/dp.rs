#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Exact and sampled DP on genaud2003 Table 1: time and peak memory.
//!
//! `cargo bench -p divload --bench dp` runs each size in a child process of its own, so
//! the peak resident memory it reports (`VmHWM`, Linux) belongs to that size alone: the
//! caller's buffers from `exact_memory` plus the process itself.

use std::process::Command;
use std::time::Instant;

use divload::cost::{Affine, CostFn, Tabulated, WorkerCosts};
use divload::scatter::exact::{exact, exact_memory, CostProblem, Pruning};
use divload::scatter::sampled::Sampled;
use divload::{Assignment, OrderPolicy, RootMode, Summary};

/// Table 1 (λ, μ in seconds per ray), root first.
const TABLE1: [(f64, f64); 16] = [
    (0.0, 0.009288),
    (1.12e-5, 0.009365),
    (1.0e-5, 0.004629),
    (1.7e-5, 0.004885),
    (8.15e-5, 0.003976),
    (8.15e-5, 0.003976),
    (2.10e-5, 0.016156),
    (2.10e-5, 0.016156),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
    (3.53e-5, 0.009677),
];

fn workers() -> Vec<WorkerCosts<Affine<f64>>> {
    TABLE1
        .iter()
        .map(|&(l, m)| WorkerCosts { comm: Affine::new(0.0, l).unwrap(), comp: Affine::new(0.0, m).unwrap() })
        .collect()
}

/// Table 1 with measured-looking costs: computation 2–10 % superlinear (4 points), links
/// with a 1 ms latency (2 points).
fn tabulated() -> Vec<WorkerCosts<Tabulated<f64, 4>>> {
    TABLE1
        .iter()
        .map(|&(l, m)| {
            let comp = [
                (1000, m * 1e3),
                (10_000, m * 1e4 * 1.02),
                (100_000, m * 1e5 * 1.05),
                (1_000_000, m * 1e6 * 1.1),
            ];
            let comm = if l > 0.0 {
                [(1000, l * 1e3 + 1e-3), (1_000_000, l * 1e6 + 1e-3)]
            } else {
                [(1, 0.0), (2, 0.0)]
            };
            WorkerCosts { comm: Tabulated::new(&comm).unwrap(), comp: Tabulated::new(&comp).unwrap() }
        })
        .collect()
}

fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

/// Best of three runs of `solve` on Table 1's send problem with `workers`.
fn best_of_three<C, D>(
    workers: &[WorkerCosts<C, D>],
    n: u64,
    mut solve: impl FnMut(&CostProblem<'_, C, D>, &mut [Assignment<f64>]) -> Summary<f64>,
) -> (f64, Summary<f64>) {
    let problem = CostProblem {
        workers,
        root: 0,
        items: n,
        root_mode: RootMode::AfterSend,
        order: OrderPolicy::Bandwidth,
    };
    let mut out = vec![Assignment::EMPTY; workers.len()];
    let mut best = f64::INFINITY;
    let mut summary = None;
    for _ in 0..3 {
        let t = Instant::now();
        summary = Some(solve(&problem, &mut out));
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, summary.unwrap())
}

/// The exact DP with buffers sized by `exact_memory`; returns them with the timing.
fn time_exact<C: CostFn<f64>, D: CostFn<f64>>(
    workers: &[WorkerCosts<C, D>],
    n: u64,
) -> (f64, u64, Summary<f64>) {
    let mem = exact_memory(n, workers.len()).unwrap();
    let (mut ch, mut co) = (vec![0u32; mem.choices], vec![0.0f64; mem.costs]);
    let (best, s) = best_of_three(workers, n, |problem, out| {
        exact(problem, Pruning::Monotone, out, &mut ch, &mut co, |_, _| {}).unwrap()
    });
    (best, mem.bytes::<f64>(), s)
}

fn child(kind: &str, n: u64) {
    let (best, bytes, s) = match kind {
        "exact" => time_exact(&workers(), n),
        "exact-table" => time_exact(&tabulated(), n),
        _ => {
            let mut dp = Box::new(Sampled::<f64, 1024, 16>::new());
            let (best, s) = best_of_three(&workers(), n, |problem, out| dp.solve(problem, out).unwrap());
            (best, std::mem::size_of::<Sampled<f64, 1024, 16>>() as u64, s)
        }
    };
    report(kind, n, best, bytes, s.makespan, s.gap());
}

fn report(kind: &str, n: u64, best: f64, bytes: u64, makespan: f64, gap: f64) {
    println!(
        "{kind:>12} n = {n:>7}: {:>9.1} ms  buffers {:>8.1} KiB  peak RSS {:>6.1} MiB  makespan {makespan:.6} s  certified gap {gap:.3e} s",
        best * 1e3,
        bytes as f64 / 1024.0,
        peak_mib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], args[i + 2].parse().unwrap());
        return;
    }
    if args.iter().any(|a| a == "--list" || a == "--test") {
        return; // `cargo test --benches` and `--list` probe the binary
    }
    let exe = std::env::current_exe().unwrap();
    println!("genaud2003 Table 1 (16 workers), best of 3 runs, one process per line");
    for (kind, n) in [
        ("exact", 10_000u64),
        ("exact", 100_000),
        ("exact", 817_101),
        ("exact-table", 817_101),
        ("sampled-1024", 817_101),
    ] {
        let status = Command::new(&exe).args(["--child", kind, &n.to_string()]).status().unwrap();
        assert!(status.success());
    }
}
