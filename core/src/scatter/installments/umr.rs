//! Several installments over more workers than the LP takes: the uniform multi-round
//! schedule (UMR) of Yang, van der Raadt and Casanova ("Multiround algorithms for
//! scheduling divisible loads", IEEE TPDS 16(11), 2005), in this model's terms
//! (`docs/derivations/installments.md` §7).
//!
//! `M` rounds over a prefix of the bandwidth order. In round `j` every worker computes for
//! the same time `τⱼ`, so worker `i`'s chunk is `αᵢⱼ = (τⱼ − λᵢ)/μᵢ`; and the root sends
//! round `j + 1` while round `j` computes: `Σᵢ (lᵢ + cᵢ·αᵢ,ⱼ₊₁) = τⱼ`. With `S = Σ cᵢ/μᵢ`,
//! `L = Σ lᵢ`, `C = Σ cᵢλᵢ/μᵢ`, `U = Σ 1/μᵢ` and `V = Σ λᵢ/μᵢ`:
//!
//! * `τⱼ₊₁ = (τⱼ − L + C)/S`, so `τⱼ = θʲ(τ₀ − η) + η` with `θ = 1/S`, `η = (L − C)/(1 − S)`;
//! * round `j` holds `U·τⱼ − V` items, so `M` rounds of `m` items in all have
//!   `Σⱼ τⱼ = (m + M·V)/U` whatever `θ`, and `τ₀ = η + (Σⱼ τⱼ − M·η)/G` with
//!   `G = Σⱼ θʲ = (θᴹ − 1)/(θ − 1)`;
//! * the makespan is predicted as the first round's sending, `L − C + S·τ₀`, plus the
//!   rounds' computations, `Σⱼ τⱼ`; the root's port is busy `M·(L − C) + S·Σⱼ τⱼ`.
//!
//! The rounds grow (`θ > 1`) only while the port keeps up (`S < 1`), so UMR takes the
//! longest prefix of the bandwidth order with `S < 1`. The paper chooses `M` on the
//! predicted makespan, and so does [`choose`] (the root's own share balanced against it);
//! the plan is then the schedule of those sizes by the model's definition
//! (`counts::schedule`), and it replaces the one-round plan only when it is faster. Sizes
//! below zero (`τⱼ < λᵢ`) are left out and the others scaled to the items; whole counts
//! round the prefix sums as one round does (`wide.rs`).

use super::lp::{Costs, RootColumn};

/// Most rounds a plan over many workers takes.
pub const MAX_WIDE_ROUNDS: usize = 16;
/// Most chunks such a plan holds: its memory ([`super::memory_for`]) is about 100 bytes a
/// chunk, so 200 MiB at most.
pub const MAX_WIDE_CHUNKS: usize = 1 << 21;

/// Bisection steps on the root's share: from `[0, n]` with `n ≤ 2⁵³`, exact in `f64` long
/// before.
const STEPS: usize = 128;

/// UMR's plan before its sizes are written: the prefix of the bandwidth order it serves,
/// the rounds, and the recursion's terms.
#[derive(Clone, Copy, Debug)]
pub(super) struct Umr {
    /// Workers served: the first this many of the bandwidth order.
    pub workers: usize,
    pub rounds: usize,
    /// The items the workers get (the root keeps the rest).
    pub to_workers: f64,
    tau0: f64,
    theta: f64,
    eta: f64,
}

#[derive(Clone, Copy)]
struct Sums {
    s: f64,
    l: f64,
    c: f64,
    u: f64,
    v: f64,
}

impl Sums {
    /// `G = Σ_{j<M} θʲ`, or `None` where it leaves `f64` (rounds growing by θᴹ beyond
    /// 2¹⁰²⁴: all items in the last round, which one round does better).
    fn growth(&self, m: usize) -> Option<f64> {
        let theta = 1.0 / self.s;
        let g = if (theta - 1.0).abs() < 1e-12 {
            m as f64
        } else {
            (libm::pow(theta, m as f64) - 1.0) / (theta - 1.0)
        };
        (g.is_finite() && g > 0.0).then_some(g)
    }

    fn eta(&self) -> f64 {
        (self.l - self.c) / (1.0 - self.s)
    }

    /// `(τ₀, Σⱼ τⱼ)` for `m` items to the workers in `rounds` rounds.
    fn taus(&self, m: f64, rounds: usize, g: f64) -> (f64, f64) {
        let total = (m + rounds as f64 * self.v) / self.u;
        (self.eta() + (total - rounds as f64 * self.eta()) / g, total)
    }

    /// The predicted time the workers finish, and the port's busy time.
    fn predicted(&self, m: f64, rounds: usize, g: f64) -> (f64, f64) {
        let (tau0, total) = self.taus(m, rounds, g);
        let first = self.l - self.c + self.s * tau0;
        (first + total, rounds as f64 * (self.l - self.c) + self.s * total)
    }
}

/// When the root finishes its own `share`, given the port's busy time.
fn root_finish(root: Costs, column: RootColumn, share: f64, port: f64) -> f64 {
    let start = match column {
        RootColumn::Absent => return 0.0,
        RootColumn::Overlap => root.r,
        RootColumn::AfterSend => port.max(root.r),
    };
    if share > 0.0 {
        start + root.lam + root.mu * share
    } else {
        start
    }
}

/// UMR for `n` items over `order` (bandwidth order) in 2 ..= `most` rounds, or `None` when
/// its prediction does not beat one round (or no prefix keeps the port from saturating).
pub(super) fn choose(
    order: &[usize],
    costs: impl Fn(usize) -> Costs,
    root: Costs,
    column: RootColumn,
    n: f64,
    most: usize,
) -> Option<Umr> {
    let mut sums = Sums { s: 0.0, l: 0.0, c: 0.0, u: 0.0, v: 0.0 };
    let mut workers = 0;
    for &w in order {
        let k = costs(w);
        let s = sums.s + k.c / k.mu;
        // Near S = 1, η = (L − C)/(1 − S) and G lose the digits τ₀ is made of: the prefix
        // stops a millionth short (the sizes are then within 10⁻¹⁰ of UMR's rule).
        if s >= 1.0 - 1e-6 || !s.is_finite() {
            break;
        }
        sums = Sums {
            s,
            l: sums.l + k.l,
            c: sums.c + k.c * k.lam / k.mu,
            u: sums.u + 1.0 / k.mu,
            v: sums.v + k.lam / k.mu,
        };
        workers += 1;
    }
    if workers == 0 || sums.u.is_nan() || sums.u <= 0.0 {
        return None;
    }
    let mut best: Option<(f64, Umr)> = None;
    for rounds in 1..=most.max(1) {
        let Some(g) = sums.growth(rounds) else { break };
        // The root's share balances its finish against the workers': the difference grows
        // with the workers' items, at ((1 − S) + S/G)/U + μᵣ, so bisection finds it.
        let finish = |m: f64| {
            let (workers, port) = sums.predicted(m, rounds, g);
            (workers, root_finish(root, column, n - m, port))
        };
        let to_workers = if column == RootColumn::Absent {
            n
        } else {
            let (mut lo, mut hi) = (0.0f64, n);
            for _ in 0..STEPS {
                let mid = 0.5 * (lo + hi);
                let (w, r) = finish(mid);
                if w < r {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hi
        };
        let (w, r) = finish(to_workers);
        let (tau0, _) = sums.taus(to_workers, rounds, g);
        let t = w.max(r);
        // Rounds that shrink (τ₀ below the fixed point η) go below zero in the prediction,
        // which then counts items no chunk holds.
        if !t.is_finite() || tau0.is_nan() || tau0 <= 0.0 || tau0 < sums.eta() {
            continue;
        }
        let umr = Umr { workers, rounds, to_workers, tau0, theta: 1.0 / sums.s, eta: sums.eta() };
        if best.as_ref().is_none_or(|(b, _)| t < *b) {
            best = Some((t, umr));
        }
    }
    best.map(|(_, u)| u).filter(|u| u.rounds > 1)
}

impl Umr {
    /// Chunks in the plan, besides the root's share.
    pub fn chunks(&self) -> usize {
        self.workers.saturating_mul(self.rounds)
    }

    /// Writes the sequence (round-robin over the prefix of `order`) into `seq` and the
    /// rational sizes into `x` (the root's share at `x[chunks]`), adding up to `n`. Both
    /// must hold [`Umr::chunks`] entries (and `x` one more). `false` when every size came
    /// out below zero while the workers are to get items: no plan.
    #[must_use]
    pub fn fill(
        &self,
        order: &[usize],
        costs: impl Fn(usize) -> Costs,
        n: f64,
        seq: &mut [usize],
        x: &mut [f64],
    ) -> bool {
        let served = order.get(..self.workers).unwrap_or(order);
        let mut total = 0.0;
        let mut k = 0;
        let mut grow = 1.0f64;
        for _ in 0..self.rounds {
            let tau = grow * (self.tau0 - self.eta) + self.eta;
            grow *= self.theta;
            for &w in served {
                let c = costs(w);
                let a = ((tau - c.lam) / c.mu).max(0.0);
                if let (Some(s), Some(v)) = (seq.get_mut(k), x.get_mut(k)) {
                    (*s, *v) = (w, a);
                }
                total += a;
                k += 1;
            }
        }
        // Sizes left out below zero (and the prediction's rounding) move the sum off the
        // workers' items: scaled back, the plan holds exactly `n`.
        let scale = if total > 0.0 { self.to_workers / total } else { 0.0 };
        for v in x.iter_mut().take(k) {
            *v *= scale;
        }
        if let Some(r) = x.get_mut(k) {
            *r = (n - self.to_workers).max(0.0);
        }
        total > 0.0 || self.to_workers <= 0.0
    }
}
