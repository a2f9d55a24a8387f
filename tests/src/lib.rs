//! Fixtures shared by the cross-crate tests.

use divload::Worker;

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
