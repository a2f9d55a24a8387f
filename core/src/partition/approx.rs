//! The paper's closed forms and approximations, offered for comparison with the exact
//! plan (cerin2006 §3.1–§3.2; `docs/derivations/partition.md` §5–§6): Theorem 1 for
//! `c·nᵃ`, eq. (5) and Theorem 2 for `n ln n`, both corrected. Each rounds its real shares
//! to integers by floors and the cost rule, and reports its error against the exact
//! integer optimum, which is its certified lower bound.

use crate::error::{Detail, Error};
use crate::partition::related::{self, check, check_speeds, round_shares, Class, Plan, Scaled, Shape};

/// Which approximation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Theorem 1: shares proportional to `f⁻¹(kᵢ) = kᵢ^{1/a}`; exact for `c·nᵃ` (§5), the
    /// only costs it takes.
    Theorem1,
    /// Eq. (5) with ordinary brackets: the first-order correction of the split by speed
    /// for `n ln n` (§6.1).
    Eq5,
    /// Theorem 2 with the factor `ln(Tkᵢ)` restored: `Σ h(Tkᵢ) = N` for the first-order
    /// truncation `h` of `x/W₀(x)` (§6.3), `n ln n` only.
    Theorem2,
}

/// An approximate plan and how far it is from the optimum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Approximation {
    /// The approximation's integer plan: `lower_bound` is the exact optimum.
    pub plan: Plan,
    /// `makespan/exact − 1`.
    pub error: f64,
}

fn wrong_kind(message: &'static str) -> Error {
    Error::json(message, Detail::Entry { list: "solver", index: usize::MAX, field: "" })
}

/// The plan of `solver`, written to `counts` (one per worker), with the exact optimum as
/// its lower bound; `scratch` is working memory, one word per class.
///
/// # Errors
///
/// As [`related::solve`]; [`ErrorCode::Json`](crate::ErrorCode::Json) naming `solver`
/// for a cost kind it does not cover (Theorem 1: linear or power; eq. (5) and Theorem 2:
/// `n_log_n`); [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) outside
/// Theorem 2's domain (fewer than `e` items on the slowest worker) or eq. (5)'s (one item).
///
/// ```
/// use divload::partition::approx::{approximate, Solver};
/// use divload::partition::related::{Class, Scaled, Shape, Uniform};
/// let sort = Uniform::<8>::new(Shape::NLogN, 1.0)?;
/// let classes: Vec<_> = [1.0, 1.5, 2.0, 4.0].iter()
///     .map(|&speed| Class { cost: Scaled { cost: &sort, speed }, count: 1 }).collect();
/// let (mut counts, mut scratch) = ([0u64; 4], [0u64; 4]);
/// let a = approximate(&classes, 1000, Solver::Eq5, &mut counts, &mut scratch)?;
/// assert_eq!(counts, [134, 189, 241, 436]);
/// assert!(a.error > 0.0 && a.error < 4e-4);
/// # Ok::<(), divload::Error>(())
/// ```
pub fn approximate<const M: usize>(
    classes: &[Class<Scaled<'_, M>>],
    items: u64,
    solver: Solver,
    counts: &mut [u64],
    scratch: &mut [u64],
) -> Result<Approximation, Error> {
    check_speeds(classes)?;
    check(classes, items, counts)?;
    related::check_scratch(classes, scratch)?;
    let Some(first) = classes.first() else { return Err(Error::no_workers()) };
    let cost = first.cost.cost;
    let shape = cost.shape();
    let (exact, t_star) = related::optimum(classes, items, counts, scratch);
    let n = items as f64;
    let speed = |j: usize| classes.get(j).map_or(1.0, |c| c.cost.speed);
    let total: f64 = classes.iter().map(|c| c.count as f64 * c.cost.speed).sum();
    let makespan = match solver {
        Solver::Theorem1 => {
            let a = match shape {
                Shape::Linear => 1.0,
                Shape::Power(a) => *a,
                _ => return Err(wrong_kind("theorem1 goes with cost kind linear or power (c·n^a only)")),
            };
            // Theorem 1 (§3.1), with the paper's notation slips corrected (§9 row 8): the
            // sum runs over j and both inverses are f̃⁻¹; for c·nᵃ, f̃⁻¹(kᵢ) ∝ kᵢ^{1/a}.
            let weight = |j: usize| libm::pow(speed(j), 1.0 / a);
            let sum: f64 = classes.iter().enumerate().map(|(j, c)| c.count as f64 * weight(j)).sum();
            round_shares(classes, items, &|j| n * weight(j) / sum, counts, scratch)
        }
        Solver::Eq5 => {
            if !matches!(shape, Shape::NLogN) {
                return Err(wrong_kind("eq5 goes with cost kind n_log_n"));
            }
            if items < 2 {
                return Err(Error::parameter("eq5: items", "at least 2 (it divides by ln N)", n));
            }
            // Eq. (5) as printed has floor brackets around (kᵢ/K²)·Σⱼ kⱼ ln(kⱼ/kᵢ), a
            // quantity below 1 in magnitude: the floor makes the corrections sum to −N/ln N
            // or less and the plan loses items (4 % … 14× N, §6.1, §9 row 1). The
            // first-order expansion gives the ordinary bracket used here, whose εᵢ sum to 0.
            // Σⱼ kⱼ ln(kⱼ/kᵢ) = S − K ln kᵢ with S = Σⱼ kⱼ ln kⱼ.
            let s: f64 =
                classes.iter().map(|c| c.count as f64 * c.cost.speed * libm::log(c.cost.speed)).sum();
            let l = libm::log(n);
            round_shares(
                classes,
                items,
                &|j| {
                    let k = speed(j);
                    n * k / total + (n / l) * (k / (total * total)) * (s - total * libm::log(k))
                },
                counts,
                scratch,
            )
        }
        Solver::Theorem2 => {
            if !matches!(shape, Shape::NLogN) {
                return Err(wrong_kind("theorem2 goes with cost kind n_log_n"));
            }
            let k_min = classes.iter().map(|c| c.cost.speed).fold(f64::INFINITY, f64::min);
            // Theorem 2 as printed has (T kᵢ + T kᵢ ln ln(T kᵢ))/(ln(T kᵢ))²: the factor
            // ln(T kᵢ) of the first term is dropped, and with it the leading term x/ln x of
            // the paper's own expansion x/W(x) = (x/ln x)(1 + ln ln x/ln x + …) (§6.3, §9
            // row 2; printed: up to 11 % off at N ≥ 10⁶). The truncation h below is the
            // expansion's, positive and increasing for x > e only.
            let h = |x: f64| {
                let (l1, l2) = (libm::log(x), libm::log(libm::log(x)));
                let value = x * (l1 + l2) / (l1 * l1);
                let slope = (l1 + l2 + 1.0 + 1.0 / l1) / (l1 * l1) - 2.0 * (l1 + l2) / (l1 * l1 * l1);
                (value, slope)
            };
            let f = |t: f64| {
                let (mut v, mut d) = (-n, 0.0f64);
                for c in classes {
                    let (hv, hd) = h(t * c.cost.speed);
                    v += c.count as f64 * hv;
                    d += c.count as f64 * c.cost.speed * hd;
                }
                (v, d)
            };
            let lo = core::f64::consts::E / k_min;
            let at_lo = f(lo).0;
            if at_lo.is_nan() || at_lo >= 0.0 {
                return Err(Error::parameter(
                    "theorem2: items",
                    "enough for every worker to get more than e items (use solver exact)",
                    n,
                ));
            }
            let mut hi = (2.0 * n * libm::log(n + 3.0) + 3.0) / k_min;
            while f(hi).0 < 0.0 && hi < f64::MAX / 4.0 {
                hi *= 2.0;
            }
            // From the exact rational optimum (in units of `coeff`), which Theorem 2
            // approximates: a few Newton steps instead of a bisection from nothing.
            let t = related::root(lo, hi, t_star / cost.coeff(), &f);
            round_shares(classes, items, &|j| h(t * speed(j)).0.max(0.0), counts, scratch)
        }
    };
    let plan = Plan { makespan, rational_makespan: t_star, lower_bound: exact };
    if !makespan.is_finite() {
        return Err(Error::time_overflow("makespan", "give a smaller coeff or larger speeds"));
    }
    Ok(Approximation { plan, error: plan.gap() })
}
