//! The benchmarks' shared platforms: random heterogeneous workers with linear costs (λ
//! 1–11 ns/item, μ 1–11 ms/item), from a fixed seed, so that every closed-form bench and
//! every run measures the same plan; the return-message benches' workers from the same
//! generator.

use divload::returns::ReturnWorker;
use divload::Worker;

/// Uniform draws in `[0, 1)` from a linear congruential generator seeded with `seed`.
pub fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `p` workers of four kinds (links of 1–10 ns per item, computes of 1–4 ms), in turn.
#[allow(dead_code, reason = "the scale bench's, not every bench's")]
pub fn kinds_platform(p: usize) -> Vec<Worker<f64>> {
    let kinds = [(1e-9, 1e-3), (2e-9, 2e-3), (5e-9, 1.5e-3), (1e-8, 4e-3)];
    (0..p)
        .map(|i| {
            let (comm_per_item, comp_per_item) = kinds[i % 4];
            Worker { comm_latency: 0.0, comm_per_item, comp_latency: 0.0, comp_per_item }
        })
        .collect()
}

#[allow(dead_code, reason = "the scatter benches', not every bench's")]
pub fn random_platform(p: usize) -> Vec<Worker<f64>> {
    let mut rnd = uniform(42);
    (0..p)
        .map(|_| Worker {
            comm_latency: 0.0,
            comm_per_item: 1e-9 + rnd() * 1e-8,
            comp_latency: 0.0,
            comp_per_item: 1e-3 + rnd() * 1e-2,
        })
        .collect()
}

/// The return-message benches' workers: `c`, `d` in 1–11 ms/item, `w` in 0.1–1.1 s/item,
/// drawn from `rnd`.
#[allow(dead_code, reason = "the return-message benches', not every bench's")]
pub fn return_platform(p: usize, rnd: &mut impl FnMut() -> f64) -> Vec<ReturnWorker<f64>> {
    (0..p).map(|_| ReturnWorker::new(1e-3 + rnd() * 1e-2, 0.1 + rnd(), 1e-3 + rnd() * 1e-2)).collect()
}

/// `n` copies of `value` in a buffer that, with `huge`, the kernel is asked to back with
/// transparent huge pages (`madvise(MADV_HUGEPAGE)` before the first touch; Linux only, a
/// hint the kernel may ignore). At 10⁶ workers the plan's random accesses are TLB misses,
/// which huge pages remove: the `thp` argument of the `scale` and `models` benches.
#[allow(dead_code, reason = "the scale bench's, not every bench's")]
pub fn buffer<T: Clone>(n: usize, value: T, huge: bool) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    if huge {
        const PAGE: usize = 2 << 20;
        let start = v.as_mut_ptr() as usize;
        let end = start + n * size_of::<T>();
        let (a, b) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
        if a < b {
            // SAFETY: `a..b` lies inside the vector's allocation, which nothing has touched
            // yet; the advice changes how pages are backed, never their contents.
            let r = unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE) };
            assert_eq!(r, 0, "madvise(MADV_HUGEPAGE)");
        }
    }
    v.resize(n, value);
    v
}

/// The median of `runs` timed calls of `f`, after one warm-up call, in seconds.
#[allow(dead_code, reason = "the plain-binary benches', not every bench's")]
pub fn median(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}
