#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ring model at the scale (issue 31: a generated platform of 70 machines,
//! about 250 routers and links, planned with refinements in 200 ms) and the exhaustive
//! search on cliques of 8 and 10 processors. Best of 5 runs after a warm-up; the numbers
//! are written down in BENCHMARKS.md.
//!
//!     cargo bench -p divload --bench ring

use std::time::{Duration, Instant};

use divload::ring::generate::{generate, generated_sizes, Router};
use divload::ring::{self, Buffers, Link, Member, Network, Paths, Problem, Sharing, Solver};

/// Plans `problem` in fresh buffers: (summary, time).
fn timed(problem: &Problem<'_>) -> (ring::Summary, Duration) {
    let p = problem.cycle_times.len();
    let n = ring::needs(p, problem.solver, problem.network.as_ref()).unwrap();
    let g = n.graph;
    let mut best = Duration::MAX;
    let mut summary = None;
    for _ in 0..6 {
        let (mut members, mut by_size, mut order, mut comm) = (
            vec![Member::EMPTY; n.processors],
            vec![0.0; n.processors],
            vec![0usize; n.order],
            vec![0.0; n.comm],
        );
        let (mut links, mut len, mut share) =
            (vec![0usize; g.paths * g.path_len], vec![0usize; g.paths], vec![0.0; g.paths]);
        let (mut us, mut fs) = (vec![0usize; g.usizes], vec![0.0; g.f64s]);
        let t = Instant::now();
        let s = ring::plan(
            problem,
            Buffers {
                members: &mut members,
                by_size: &mut by_size,
                order: &mut order,
                comm: &mut comm,
                paths: Paths { links: &mut links, len: &mut len, share: &mut share, path_len: g.path_len },
                scratch_usize: &mut us,
                scratch_f64: &mut fs,
            },
        )
        .unwrap();
        best = best.min(t.elapsed());
        summary = Some(s);
    }
    (summary.unwrap(), best)
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return; // `cargo test --benches` and `--list` probe the binary
    }
    let machines = 70;
    let (nr, nl) = generated_sizes(machines);
    let (mut w, mut r, mut l) = (vec![0.0; machines], vec![Router::Wan(0); nr], vec![Link::EMPTY; nl]);
    let gen = generate(machines, 1, &mut w, &mut r, &mut l).unwrap();
    let links = &l[..gen.links];
    println!(
        "generated platform: {machines} machines, {} routers, {} links (seed 1), W = 10^4, H = 10",
        gen.routers, gen.links
    );
    // `cargo bench -p divload --bench ring -- optimal` (or greedy, max_min): that sharing
    // alone, without the local search and the cliques (for a profiler).
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    for sharing in [Sharing::Greedy, Sharing::MaxMin, Sharing::Optimal] {
        let name = match sharing {
            Sharing::Greedy => "greedy",
            Sharing::MaxMin => "max_min",
            Sharing::Optimal => "optimal",
        };
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for local_search in [false, true] {
            if only.is_some() && local_search {
                continue;
            }
            let problem = Problem {
                cycle_times: &w,
                costs: &[],
                work: 10_000,
                boundary: 10.0,
                solver: Solver::Greedy,
                local_search,
                network: Some(Network { routers: gen.routers, links }),
                sharing,
            };
            let (s, t) = timed(&problem);
            println!(
                "  sharing {sharing:?}, local search {local_search}: {:.1} ms, T_step {:.6} (q = {}), rational {:.6}, bound {:.6}, sharing gap {:.1e}",
                t.as_secs_f64() * 1e3,
                s.report.makespan,
                s.ring_size,
                s.rational_makespan,
                s.report.lower_bound,
                s.sharing_gap
            );
        }
    }
    if only.is_some() {
        return;
    }
    // Cliques: every ring of 8 and of 10 processors.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for p in [8usize, 10] {
        let w: Vec<f64> = (0..p).map(|_| 1.0 + (next() % 10) as f64).collect();
        let c: Vec<f64> =
            (0..p * p).map(|k| if k / p == k % p { 0.0 } else { (1 + next() % 10) as f64 / 4.0 }).collect();
        for solver in [Solver::Exhaustive, Solver::Greedy] {
            let problem = Problem {
                cycle_times: &w,
                costs: &c,
                work: 100,
                boundary: 1.0,
                solver,
                local_search: true,
                network: None,
                sharing: Sharing::Greedy,
            };
            let (s, t) = timed(&problem);
            println!(
                "clique p = {p}, {solver:?}: {:.3} ms, T_step {:.4} (q = {})",
                t.as_secs_f64() * 1e3,
                s.report.makespan,
                s.ring_size
            );
        }
    }
}
