//! The benchmarks' shared platform: random heterogeneous workers with linear costs (λ
//! 1–11 ns/item, μ 1–11 ms/item), from a fixed seed, so that every closed-form bench and
//! every run measures the same plan.

use divload::Worker;

pub fn random_platform(p: usize) -> Vec<Worker<f64>> {
    let mut seed = 42u64;
    let mut rnd = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..p)
        .map(|_| Worker {
            comm_latency: 0.0,
            comm_per_item: 1e-9 + rnd() * 1e-8,
            comp_latency: 0.0,
            comp_per_item: 1e-3 + rnd() * 1e-2,
        })
        .collect()
}
