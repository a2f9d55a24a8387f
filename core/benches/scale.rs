#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
//! The closed-form plan at machine scale (issue 14): nanoseconds per worker for p = 10³ …
//! 10⁷ and each rounding, on the random platform of `closed_form.rs` (2⁴⁰ items, root
//! fixed, bandwidth order, `f64`). A plain binary rather than criterion: one 10⁷-worker
//! plan takes seconds, and what matters is how the time per worker grows with p.
//!
//!     cargo bench -p divload --bench scale            # p = 10³ … 10⁶
//!     cargo bench -p divload --bench scale -- 7       # up to 10⁷ (1.6 GB of buffers)
//!     cargo bench -p divload --bench scale -- 6 greedy  # one rounding only
//!     cargo bench -p divload --bench scale -- 6 thp     # buffers on transparent huge pages
//!     cargo bench -p divload --bench scale -- 6 kinds   # four kinds of identical workers
//!
//! Each line is the median of 7 runs (3 at 10⁷) after one warm-up run.

use divload::{plan, Assignment, Options, Problem, Root, Rounding, Scratch};
use std::hint::black_box;
use std::time::Instant;

mod common;
use common::random_platform as platform;

fn main() {
    // `cargo bench` passes `--bench`; the only argument of ours is the largest power of ten.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let top: u32 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(6);
    // A rounding's name (`greedy`, `paper`, `largestremainder`) runs only that one.
    let huge = args.iter().any(|a| a == "thp");
    // A cluster of a few machine types: runs of equal sort keys as long as p/4.
    let kinds = args.iter().any(|a| a == "kinds");
    let only = args.iter().find(|a| {
        a.chars().all(|c| c.is_ascii_alphabetic()) && !a.starts_with('-') && *a != "thp" && *a != "kinds"
    });
    let per_worker = size_of::<Assignment<f64>>() + size_of::<Scratch<f64>>();
    println!("caller memory: {per_worker} bytes per worker (Assignment + Scratch)");
    println!("{:>10} {:>18} {:>12} {:>12}", "workers", "rounding", "ms", "ns/worker");
    for e in 3..=top {
        let p = 10usize.pow(e);
        let w = if kinds { common::kinds_platform(p) } else { platform(p) };
        let mut out = common::buffer(p, Assignment::EMPTY, huge);
        let mut scratch = common::buffer(p, Scratch::EMPTY, huge);
        for rounding in [Rounding::LargestRemainder, Rounding::Paper, Rounding::Greedy] {
            if only.is_some_and(|o| !format!("{rounding:?}").eq_ignore_ascii_case(o)) {
                continue;
            }
            let problem = Problem {
                workers: &w,
                root: Root::Fixed(0),
                items: 1 << 40,
                options: Options { rounding, ..Options::default() },
            };
            let runs = if p >= 10_000_000 { 3 } else { 7 };
            let mut times = Vec::with_capacity(runs);
            black_box(plan(&problem, &mut out, &mut scratch).unwrap());
            for _ in 0..runs {
                let t = Instant::now();
                black_box(plan(black_box(&problem), &mut out, &mut scratch).unwrap());
                times.push(t.elapsed().as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            let median = times[runs / 2];
            println!(
                "{:>10} {:>18} {:>12.3} {:>12.1}",
                p,
                format!("{rounding:?}"),
                median * 1e3,
                median * 1e9 / p as f64
            );
        }
    }
}
