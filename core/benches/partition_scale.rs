#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
//! The partition model's exact plan at 10⁶ workers with `n ln n` costs (issue 32: ≤ 200 ms),
//! for uniformly related processors (`partition::related::solve`): two entries of 500 000
//! workers each (speeds 2 and 1, as a document's `count` gives them), and 10⁶ workers of
//! distinct speeds (1 to 16, log-uniform) as one class each, whose cost grows with the
//! classes, not the workers; beside them the split by speed and Theorem 2. A plain binary,
//! as `scale.rs`: one plan is microseconds to a fraction of a second.
//!
//!     cargo bench -p divload --bench partition_scale            # 10⁶ workers, 10⁶ classes
//!     cargo bench -p divload --bench partition_scale -- 7 4     # 10⁷ workers, 10⁴ classes
//!
//! Each line is the median of 7 runs after one warm-up run; items 10⁶ per worker, `coeff`
//! 10⁻⁸ s.

use divload::partition::approx::{approximate, Solver};
use divload::partition::related::{self, solve, Class, Rounding, Scaled, Shape, Uniform};
use std::hint::black_box;

mod common;

/// One row's plan, on the counts buffer.
type Run<'a> = Box<dyn Fn(&mut [u64]) + 'a>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut numbers = args.iter().filter_map(|a| a.parse::<u32>().ok());
    let p = 10usize.pow(numbers.next().unwrap_or(6));
    let q = 10usize.pow(numbers.next().unwrap_or(6));
    let sort = Uniform::<8>::new(Shape::NLogN, 1e-8).unwrap();
    let two = [
        Class { cost: Scaled { cost: &sort, speed: 2.0 }, count: p as u64 / 2 },
        Class { cost: Scaled { cost: &sort, speed: 1.0 }, count: p as u64 / 2 },
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let distinct: Vec<_> = (0..q)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            Class { cost: Scaled { cost: &sort, speed: 16f64.powf(u) }, count: 1 }
        })
        .collect();
    let mut counts = vec![0u64; p.max(q)];
    println!("{:>10} {:>32} {:>12} {:>12}", "workers", "case", "ms", "ns/worker");
    for (name, classes) in [("2 entries of p/2", &two[..]), ("distinct speeds", &distinct[..])] {
        let p = classes.iter().map(|c| c.count as usize).sum::<usize>();
        let items = 1_000_000u64 * p as u64;
        let counts = &mut counts[..p];
        let rows: [(&str, Run<'_>); 3] = [
            (
                "exact",
                Box::new(|c: &mut [u64]| {
                    black_box(
                        solve(black_box(classes), items, Rounding::Cost, c, &mut vec![0; classes.len()])
                            .unwrap(),
                    );
                }),
            ),
            (
                "speed split",
                Box::new(|c: &mut [u64]| {
                    black_box(
                        related::speed_makespan(black_box(classes), items, c, &mut vec![0; classes.len()])
                            .unwrap(),
                    );
                }),
            ),
            (
                "theorem2 (+ exact)",
                Box::new(|c: &mut [u64]| {
                    black_box(
                        approximate(
                            black_box(classes),
                            items,
                            Solver::Theorem2,
                            c,
                            &mut vec![0; classes.len()],
                        )
                        .unwrap(),
                    );
                }),
            ),
        ];
        for (what, run) in rows {
            let t = common::median(7, || run(counts));
            println!(
                "{p:>10} {:>32} {:>12.3} {:>12.1}",
                format!("{name}: {what}"),
                t * 1e3,
                t * 1e9 / p as f64
            );
        }
        assert_eq!(counts.iter().sum::<u64>(), items);
    }
}
