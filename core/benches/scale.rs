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
//! Each line is the median of 7 runs (3 at 10⁷) after one warm-up run. The `stream` line of
//! each size is the memory's limit for these bytes: one sequential pass that reads every
//! worker and writes every `Assignment` and `Scratch` record once, the least any plan over
//! the same buffers could take (issue 45); each plan's line gives its multiple of it.

use divload::scatter::{plan_counts, ByRank};
use divload::{plan, Assignment, Options, Problem, Root, Rounding, Scratch, Worker};
use std::hint::black_box;

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
    println!("{:>10} {:>18} {:>12} {:>12} {:>10}", "workers", "rounding", "ms", "ns/worker", "x stream");
    for e in 3..=top {
        let p = 10usize.pow(e);
        let w = if kinds { common::kinds_platform(p) } else { platform(p) };
        let mut out = common::buffer(p, Assignment::EMPTY, huge);
        let mut scratch = common::buffer(p, Scratch::EMPTY, huge);
        let (mut counts, mut displs, mut order) =
            (common::buffer(p, 0u64, huge), common::buffer(p, 0u64, huge), common::buffer(p, 0u64, huge));
        let runs = if p >= 10_000_000 { 3 } else { 7 };
        let limit = common::median(runs, || stream(black_box(&w), &mut out, &mut scratch));
        println!(
            "{:>10} {:>18} {:>12.3} {:>12.1} {:>10}",
            p,
            "stream",
            limit * 1e3,
            limit * 1e9 / p as f64,
            "1.0"
        );
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
            let median = common::median(runs, || {
                black_box(plan(black_box(&problem), &mut out, &mut scratch).unwrap());
            });
            println!(
                "{:>10} {:>18} {:>12.3} {:>12.1} {:>10.1}",
                p,
                format!("{rounding:?}"),
                median * 1e3,
                median * 1e9 / p as f64,
                median / limit
            );
            // The same plan kept as counts and displacements by rank (`plan_counts`, what
            // the C ABI's counts calls use): 88 bytes a worker instead of 120.
            let median = common::median(runs, || {
                let out =
                    ByRank { counts: &mut counts, displs: &mut displs, order: &mut order, finish: None };
                black_box(plan_counts(black_box(&problem), out, &mut scratch, &mut []).unwrap());
            });
            println!(
                "{:>10} {:>18} {:>12.3} {:>12.1} {:>10.1}",
                p,
                format!("{rounding:?} by rank"),
                median * 1e3,
                median * 1e9 / p as f64,
                median / limit
            );
        }
    }
}

/// One sequential pass over the plan's bytes: every worker read, every `Assignment` and
/// `Scratch` record written whole (a running sum of the costs keeps the reads live).
fn stream(workers: &[Worker<f64>], out: &mut [Assignment<f64>], scratch: &mut [Scratch<f64>]) {
    let mut sum = 0.0;
    for ((w, a), s) in workers.iter().zip(out.iter_mut()).zip(scratch.iter_mut()) {
        sum += w.comm_per_item + w.comp_per_item;
        *a = Assignment { share: sum, ..Assignment::EMPTY };
        *s = Scratch::EMPTY;
    }
    black_box(sum);
}
