#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
//! The return-message model against p (issue 12: "best scenario time against p", and the
//! LIFO and FIFO closed forms up to 10⁶ workers): for each p, the time of one plan with
//! each schedule and which method the best scenario used (exhaustive over send and return
//! orders up to `MAX_EXHAUSTIVE_WORKERS`, LIFO, exhaustive FIFO and a local search up to
//! `MAX_LOCAL_SEARCH_WORKERS`, the better closed form beyond). The platform of
//! `models.rs` (c, d in 1–11 ms/item, w in 0.1–1.1 s/item), 2⁴⁰ items, full duplex, `f64`.
//! Results are written down in BENCHMARKS.md.
//!
//!     cargo bench -p divload --bench returns_scale          # p = 2 … 10⁶
//!     cargo bench -p divload --bench returns_scale -- 5     # up to 10⁵
//!
//! Each line is the median of runs adding up to about a second (at least 3, at most 1 000)
//! after one warm-up run.

use divload::returns::{
    self, Assignment, Port, Problem, Schedule, Scratch, MAX_EXHAUSTIVE_WORKERS, MAX_LOCAL_SEARCH_WORKERS,
};
use std::hint::black_box;
use std::time::Instant;

mod common;
use common::{return_platform, uniform};

fn main() {
    let top: u32 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(6);
    let mut sizes = vec![2usize, 3, 4, 5, 6, 8, 9, 16, 32, 33, 100];
    sizes.extend((3..=top).map(|e| 10usize.pow(e)));
    println!(
        "{:>9} {:>6} {:>14} {:>12} {:>12}  best scenario by",
        "workers", "", "ms", "ns/worker", "throughput"
    );
    for p in sizes {
        let w = return_platform(p, &mut uniform(7));
        for schedule in [Schedule::Best, Schedule::Lifo, Schedule::Fifo] {
            let problem = Problem { workers: &w, items: 1 << 40, schedule, port: Port::FullDuplex };
            let n = returns::needs(p, schedule, Port::FullDuplex).unwrap();
            let (mut out, mut scratch, mut tableau) =
                (vec![Assignment::EMPTY; n.out], vec![Scratch::EMPTY; n.scratch], vec![0.0; n.tableau]);
            let t = Instant::now();
            let summary = returns::plan(&problem, &mut out, &mut scratch, &mut tableau).unwrap();
            let first = t.elapsed().as_secs_f64();
            let runs = ((1.0 / first.max(1e-9)) as usize).clamp(3, 1000);
            let mut times = Vec::with_capacity(runs);
            for _ in 0..runs {
                let t = Instant::now();
                black_box(returns::plan(black_box(&problem), &mut out, &mut scratch, &mut tableau).unwrap());
                times.push(t.elapsed().as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            let median = times[runs / 2];
            let how = match schedule {
                Schedule::Best if p <= MAX_EXHAUSTIVE_WORKERS => "every send and return order",
                Schedule::Best if p <= MAX_LOCAL_SEARCH_WORKERS => "LIFO, FIFO, local search",
                Schedule::Best => "the better closed form",
                _ => "",
            };
            println!(
                "{:>9} {:>6} {:>14.4} {:>12.0} {:>12.3}  {}",
                p,
                format!("{schedule:?}"),
                median * 1e3,
                median * 1e9 / p as f64,
                summary.throughput,
                how
            );
        }
    }
}
