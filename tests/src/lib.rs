//! Fixtures shared by the cross-crate tests.

use divload::Worker;

pub mod dd;
pub mod exact;

/// genaud2003 Table 1: the 16 processors of the paper's experiment, root `dinadan` first
/// (λ = `comm_per_item`, μ = `comp_per_item`, seconds per ray).
pub fn table1() -> Vec<Worker<f64>> {
    let mut w = vec![
        Worker::linear(0.0, 0.009288),
        Worker::linear(1.12e-5, 0.009365),
        Worker::linear(1.0e-5, 0.004629),
        Worker::linear(1.7e-5, 0.004885),
    ];
    w.extend([Worker::linear(8.15e-5, 0.003976); 2]);
    w.extend([Worker::linear(2.10e-5, 0.016156); 2]);
    w.extend([Worker::linear(3.53e-5, 0.009677); 8]);
    w
}

/// A small deterministic generator (64-bit LCG), so failures reproduce.
#[derive(Debug)]
pub struct Lcg(pub u64);

impl Lcg {
    /// Next raw value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.next_u64() as f64 / (1u64 << 53) as f64
    }
    /// Uniform in 0..k.
    pub fn below(&mut self, k: u64) -> u64 {
        (self.next_u64() >> 20) % k
    }
}

/// FNV-1a over 64-bit words: the golden tests hash every field of a plan into one number
/// per platform, so a pinned table of numbers stands for the plans themselves.
#[derive(Debug)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Adds a word, byte by byte.
    pub fn add(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    /// Adds a number's exact `f64` bits.
    pub fn real<N: divload::Real>(&mut self, x: N) {
        self.add(x.to_f64().to_bits());
    }

    /// Adds a text, a word per byte.
    pub fn text(&mut self, s: &str) {
        for b in s.bytes() {
            self.add(u64::from(b));
        }
    }
}

/// Compares `hash(kind, size)` with `pinned[kind][size]` for every pair and fails naming
/// each pair whose plans changed; with `DIVLOAD_PRINT_GOLDEN` set, prints the table first
/// (to pin a new algorithm's plans, from the code it replaces).
pub fn check_pinned<K: Copy + std::fmt::Debug, const S: usize>(
    kinds: &[K],
    sizes: &[usize; S],
    pinned: &[[u64; S]],
    hash: impl Fn(K, usize) -> u64,
) {
    let print = std::env::var_os("DIVLOAD_PRINT_GOLDEN").is_some();
    assert_eq!(kinds.len(), pinned.len(), "one pinned row per platform kind");
    let mut wrong = Vec::new();
    for (&kind, pins) in kinds.iter().zip(pinned) {
        let row: Vec<u64> = sizes.iter().map(|&p| hash(kind, p)).collect();
        if print {
            println!(
                "    [{}], // {kind:?}",
                row.iter().map(|h| format!("{h:#018x}")).collect::<Vec<_>>().join(", ")
            );
        }
        for ((&got, &want), &p) in row.iter().zip(pins).zip(sizes) {
            if got != want {
                wrong.push(format!("{kind:?} p={p}"));
            }
        }
    }
    assert!(wrong.is_empty(), "plans changed for {wrong:?}");
}
