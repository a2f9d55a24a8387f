//! Uniformly related processors (cerin2006 §3): one cost `f` for the whole platform and a
//! speed `kᵢ` per worker, worker `i` taking `coeff·f(nᵢ)/kᵢ` seconds; the exact integer
//! optimum, the rational one, the paper's rounding rule and the baselines
//! (`docs/derivations/partition.md` §1–§3).
//!
//! Workers come in classes (a document's entries with their `count`): every sum below is
//! over classes, weighted by their sizes, so two classes of 500 000 workers cost what two
//! workers cost, and only the output counts are per worker.
//!
//! * The rational optimum `T* = min{T : Σ gᵢ(T) ≥ N}` (`g = f⁻¹`) by Newton's method,
//!   guarded by a bracket (§1): concave `F` for convex `f` converges monotonically.
//! * The exact integer optimum (§2): the counts `cᵢ(T_lo)` just below `T*` are floors no
//!   larger than an optimal plan's; the bisection on the bit patterns of `f64` then finds
//!   `T_int`, the least time some plan reaches, between `T_lo` and the time of one more
//!   item per worker, in a few steps (the proof needs only `Σ cᵢ(T_lo) ≤ N` and a
//!   monotone evaluated `time`, so the answer is exact whatever the error of `W₀` and of
//!   `T*`). Workers take `cᵢ(pred T_int)` items and those whose next item ends exactly
//!   at `T_int` take the rest, in index order: the greedy by cost of §2, whose ties go to
//!   the lowest index, and `Σ cᵢ(pred T_int) < N` certifies the optimum (§3).
//! * The paper's rule (§3 greedy, misprint 7 of §9): the leftover of the floors of
//!   `g(kᵢT*)` by smallest `(nᵢ + 1)/kᵢ`, optimal for a linear `f` only.
//!
//! Why one file: the rational optimum, the exact integer optimum, the paper's rounding
//! and the baselines are steps of one computation over the same classes and the same
//! inverse costs `g`, with one proof (derivations §1–§3) that ties them together.

use crate::error::Error;
use crate::num::range::{AT_LEAST_ONE, EXPONENT, POSITIVE};
use crate::partition::lambert::{self, n_log_n_inverse};
use crate::platform::cost::{search_from, CostFn, Tabulated};

/// The shape of a document-wide cost `f` (seconds at speed 1, before `coeff`).
#[derive(Clone, Debug)]
pub enum Shape<const M: usize> {
    /// `f(n) = n`.
    Linear,
    /// `f(n) = nᵃ`, `a` in `0.01..=64`.
    Power(f64),
    /// `f(n) = n ln n` for `n ≥ 1`, 0 for `n ≤ 1` (sorting one item costs nothing; §0).
    NLogN,
    /// Measured seconds at speed 1, interpolated as [`Tabulated`].
    Table(Tabulated<f64, M>),
}

/// The kind of a [`Shape`], without its parameters (documents name it as `cost.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostKind {
    /// [`Shape::Linear`].
    Linear,
    /// [`Shape::Power`].
    Power,
    /// [`Shape::NLogN`].
    NLogN,
    /// [`Shape::Table`].
    Table,
}

impl<const M: usize> Shape<M> {
    /// Its kind.
    pub fn kind(&self) -> CostKind {
        match self {
            Shape::Linear => CostKind::Linear,
            Shape::Power(_) => CostKind::Power,
            Shape::NLogN => CostKind::NLogN,
            Shape::Table(_) => CostKind::Table,
        }
    }
}

/// One cost for every worker: `coeff·f(n)` seconds at speed 1.
#[derive(Clone, Debug)]
pub struct Uniform<const M: usize> {
    shape: Shape<M>,
    coeff: f64,
    /// `1/coeff`, for the warm passes (§1), which need `T*` to 2⁻⁴², not to the bit.
    per_coeff: f64,
}

impl<const M: usize> Uniform<M> {
    /// `coeff·f(n)` seconds at speed 1.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for a `coeff` that is not
    /// finite and > 0, or a power's exponent outside `0.01..=64`.
    ///
    /// ```
    /// use divload::partition::related::{Shape, Uniform};
    /// let sort = Uniform::<8>::new(Shape::NLogN, 1e-8)?;
    /// assert_eq!(sort.seconds(1), 0.0);
    /// assert!(Uniform::<8>::new(Shape::Power(100.0), 1.0).is_err());
    /// # Ok::<(), divload::Error>(())
    /// ```
    pub fn new(shape: Shape<M>, coeff: f64) -> Result<Self, Error> {
        POSITIVE.parameter("cost: coeff", coeff)?;
        if let Shape::Power(a) = shape {
            EXPONENT.parameter("cost: exponent", a)?;
        }
        Ok(Uniform { shape, coeff, per_coeff: 1.0 / coeff })
    }

    /// The shape.
    pub fn shape(&self) -> &Shape<M> {
        &self.shape
    }

    /// The coefficient.
    pub fn coeff(&self) -> f64 {
        self.coeff
    }

    /// Seconds for `n` items at speed 1. Non-decreasing in `n` as evaluated: `x ln x` in
    /// `f64` is a product of monotone correctly rounded steps wherever `log` is monotone,
    /// and consecutive values differ by ≥ 4 ulps up to 2⁵⁰ (§2).
    pub fn seconds(&self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let x = n as f64;
        let f = match &self.shape {
            Shape::Linear => x,
            Shape::Power(a) => libm::pow(x, *a),
            Shape::NLogN => {
                if n <= 1 {
                    return 0.0;
                }
                x * libm::log(x)
            }
            Shape::Table(t) => return t.time(n) * self.coeff,
        };
        self.coeff * f
    }

    /// As [`inverse`](Self::inverse), carrying `W₀` over in `state` (§1, "warm passes"):
    /// `state` is `W₀` of the last argument, negated while only approximate. From a step
    /// `d = ln(y/y_prev)`: a Taylor step of `w(u) = W₀(eᵘ)` in `u = ln y` alone when
    /// `|d| ≤ 2⁻¹⁴` and `state` is exact, followed by one Fritsch step up to `|d| ≤ 1/2`
    /// (exact again), the full [`lambert::w0`] beyond. From a [`Warm::Seed`] (another
    /// class's `W₀`): a Taylor step whose remainder is below 10⁻⁴ of `w`, approximate.
    fn inverse_warm(&self, y: f64, limit: u64, warm: Warm, state: &mut f64) -> (f64, f64) {
        let z = y * self.per_coeff;
        if !matches!(self.shape, Shape::NLogN) || z.is_nan() || z <= lambert::FRITSCH_FROM {
            *state = 0.0;
            return self.inverse(y, limit);
        }
        let (last, exact) = (state.abs(), *state > 0.0);
        let w = match warm {
            Warm::Step(d) if last >= 1.0 && exact && d.abs() <= 1.0 / 16_384.0 => taylor(last, d),
            Warm::Step(d) if last >= 1.0 && d.abs() <= 0.5 => lambert::fritsch(z, taylor(last, d)),
            Warm::Seed { y: z0, w: w0 } if w0 >= 1.0 => {
                let d = libm::log(z / z0);
                let w = taylor(w0, d);
                // The remainder d⁴/24·|w⁗(ξ)| with |w⁗| ≤ 6/w⁴ (w ≥ 2) or 10⁻² (w ≥ 1),
                // at the smaller end: below 10⁻⁴·w.
                let small = w.min(w0);
                let d4 = d * d * d * d;
                let fine = if small >= 2.0 {
                    d4 <= 4e-4 * (small * small) * (small * small) * small
                } else {
                    d4 <= 0.24 * small
                };
                if fine && w >= 1.0 {
                    -w
                } else {
                    lambert::w0(z)
                }
            }
            _ => lambert::w0(z),
        };
        *state = w;
        let w = w.abs();
        // As `n_log_n_inverse`: `z/W₀(z)`, and `g′ = 1/(1 + W₀)`, from one division.
        let r = 1.0 / (w * (1.0 + w));
        ((z * (r * (1.0 + w))).max(1.0), r * w * self.per_coeff)
    }

    /// The argument of `W₀` at `y` and its value: a [`Warm::Seed`] for the other classes.
    fn seed(&self, y: f64) -> Warm {
        let z = y * self.per_coeff;
        if matches!(self.shape, Shape::NLogN) && z > lambert::FRITSCH_FROM {
            Warm::Seed { y: z, w: lambert::w0(z) }
        } else {
            Warm::Cold
        }
    }

    /// The real inverse `g(y) = max{x ≥ 0 : coeff·f̃(x) ≤ y}` and its derivative, in closed
    /// form (§4): `y/c`, `(y/c)^{1/a}`, `(y/c)/W₀(y/c)`; a table by its chords.
    fn inverse(&self, y: f64, limit: u64) -> (f64, f64) {
        if y < 0.0 {
            return (0.0, 0.0);
        }
        let z = y / self.coeff;
        match &self.shape {
            Shape::Linear => (z, 1.0 / self.coeff),
            Shape::Power(a) => {
                let g = libm::pow(z, 1.0 / a);
                let d = if z > 0.0 { g / (a * z) } else { 0.0 };
                (g, d / self.coeff)
            }
            Shape::NLogN if z <= 0.0 => (1.0, 1.0 / self.coeff),
            Shape::NLogN => {
                let g = n_log_n_inverse(z);
                // g′ = 1/(1 + W₀) = 1/(1 + ln g).
                (g, 1.0 / (1.0 + libm::log(g.max(1.0))) / self.coeff)
            }
            Shape::Table(_) => chord_inverse(&|n| self.seconds(n), y, limit),
        }
    }
}

/// `w(u + d)` from `w = w(u)` for `w(u) = W₀(eᵘ)`, to third order: `w′ = w/(1+w)`,
/// `w″ = w/(1+w)³`, `w‴ = w(1−2w)/(1+w)⁵` (from `w + ln w = u`). The remainder,
/// `d⁴/24·|w⁗|` with `|w⁗| ≤ 10⁻²` for `w ≥ 1`, is below `10⁻²⁰` at `|d| ≤ 2⁻¹⁴` and below
/// `3·10⁻⁵` at `|d| ≤ 1/2`, which one Fritsch step of fourth order takes below an ulp.
fn taylor(w: f64, d: f64) -> f64 {
    let a = 1.0 / (1.0 + w);
    let w1 = w * a;
    let w2 = w1 * a * a;
    let w3 = w2 * a * a * (1.0 - 2.0 * w);
    w + d * (w1 + d * (0.5 * w2 + d * (w3 * (1.0 / 6.0))))
}

/// The real inverse of the chords between a non-decreasing function's integer values, and
/// its slope: `c + (y − f(c))/(f(c+1) − f(c))` with `c` the items that fit. It agrees with
/// `f` on the integers, so its optimum is a lower bound of the integer one.
fn chord_inverse(f: &impl Fn(u64) -> f64, y: f64, limit: u64) -> (f64, f64) {
    if y < 0.0 {
        return (0.0, 0.0);
    }
    let c = search_from(|x| f(x) <= y, 0, limit);
    if c >= limit {
        return (limit as f64, 0.0);
    }
    let (a, b) = (f(c), f(c + 1));
    let step = b - a;
    if !(step > 0.0 && step.is_finite()) {
        return (c as f64, 0.0);
    }
    (c as f64 + (y - a) / step, 1.0 / step)
}

/// A worker of speed `speed` under a document-wide cost: `cost.seconds(n)/speed`.
#[derive(Clone, Copy, Debug)]
pub struct Scaled<'a, const M: usize> {
    /// The document's cost.
    pub cost: &'a Uniform<M>,
    /// The worker's speed `kᵢ > 0`.
    pub speed: f64,
}

impl<const M: usize> CostFn<f64> for Scaled<'_, M> {
    fn time(&self, items: u64) -> f64 {
        self.cost.seconds(items) / self.speed
    }

    /// The closed-form inverse at `speed·t`, corrected against `time` itself: exact for
    /// the function the solvers evaluate.
    fn max_within(&self, t: f64, limit: u64) -> Option<u64> {
        if t < 0.0 || t.is_nan() {
            return None;
        }
        let (g, _) = self.cost.inverse(t * self.speed, limit);
        Some(search_from(|x| self.time(x) <= t, g as u64, limit))
    }

    fn non_decreasing(&self) -> bool {
        true
    }
}

/// What a class's previous inverse left for the next one (§1, "warm passes").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Warm {
    /// Nothing: the inverse from scratch.
    Cold,
    /// The class's own state is from the time `t·e^{−d}`.
    Step(f64),
    /// No state yet; another class's `W₀` is `w` at the argument `y`.
    Seed {
        /// The argument.
        y: f64,
        /// `W₀(y)`.
        w: f64,
    },
}

/// A real inverse `g(t)` with its derivative, for the rational optimum.
pub trait Inverse: CostFn<f64> {
    /// `(g(t), g′(t))`, `g(t) = max{x ≥ 0 : f̃(x) ≤ t}` for a monotone real extension `f̃`
    /// agreeing with `time` on the integers, `x ≤ limit`.
    fn inverse(&self, t: f64, limit: u64) -> (f64, f64);

    /// As [`inverse`](Inverse::inverse), given what the same class left in `state` (see
    /// [`Warm`]). A cost whose inverse is transcendental carries it over (`n ln n`: `W₀`);
    /// the default ignores both.
    fn inverse_warm(&self, t: f64, limit: u64, warm: Warm, state: &mut f64) -> (f64, f64) {
        let _ = (warm, state);
        self.inverse(t, limit)
    }

    /// What this class's inverse at `t` tells the others' first warm pass.
    fn seed(&self, t: f64) -> Warm {
        let _ = t;
        Warm::Cold
    }

    /// [`max_within`](CostFn::max_within) given a guess of the answer (an inverse's value).
    fn within_near(&self, t: f64, limit: u64, guess: f64) -> u64 {
        let _ = guess;
        self.max_within(t, limit).unwrap_or(0)
    }

    /// [`within_near`](Inverse::within_near) `n` and the finish of one more item
    /// (`+∞` at `limit`).
    fn within_next(&self, t: f64, limit: u64, guess: f64) -> (u64, f64) {
        let n = self.within_near(t, limit, guess);
        (n, if n < limit { self.time(n + 1) } else { f64::INFINITY })
    }
}

impl<const M: usize> Inverse for Scaled<'_, M> {
    fn inverse(&self, t: f64, limit: u64) -> (f64, f64) {
        let (g, d) = self.cost.inverse(t * self.speed, limit);
        clamped(g, d * self.speed, limit)
    }

    fn inverse_warm(&self, t: f64, limit: u64, warm: Warm, state: &mut f64) -> (f64, f64) {
        let (g, d) = self.cost.inverse_warm(t * self.speed, limit, warm, state);
        clamped(g, d * self.speed, limit)
    }

    fn seed(&self, t: f64) -> Warm {
        self.cost.seed(t * self.speed)
    }

    fn within_near(&self, t: f64, limit: u64, guess: f64) -> u64 {
        if t < 0.0 || t.is_nan() {
            return 0;
        }
        // `as` saturates and reads NaN as 0; the search is exact from any guess.
        search_from(|x| self.time(x) <= t, guess as u64, limit)
    }

    fn within_next(&self, t: f64, limit: u64, guess: f64) -> (u64, f64) {
        // A closed-form inverse is within some 2⁻⁴⁰ of the real one (W₀, `pow` and the
        // warm steps: a few ulps, times `1/a` for a power), and `time` within 2⁻⁴⁸ of
        // the real cost: a guess 2⁻³⁰·g or more from an integer has that integer's floor
        // as its answer, and needs only the next finish evaluated.
        if !matches!(self.cost.shape, Shape::Table(_)) && t >= 0.0 && guess >= 1.0 && guess < limit as f64 {
            let n = guess as u64;
            let margin = guess * (1.0 / (1u64 << 30) as f64);
            if guess - n as f64 >= margin && (n + 1) as f64 - guess >= margin {
                return (n, self.time(n + 1));
            }
        }
        // A right guess is proved by two evaluations, which give the next finish too.
        let g = (guess as u64).min(limit);
        if t >= 0.0 && g < limit && self.time(g) <= t {
            let next = self.time(g + 1);
            if next > t {
                return (g, next);
            }
        }
        let n = self.within_near(t, limit, guess);
        (n, if n < limit { self.time(n + 1) } else { f64::INFINITY })
    }
}

/// `min(g, limit)` and its derivative: none past `limit`, where a worker that takes every
/// item takes no more (Newton's method would otherwise crawl along the clamp).
fn clamped(g: f64, d: f64, limit: u64) -> (f64, f64) {
    let top = limit as f64;
    if g >= top {
        (top, 0.0)
    } else {
        (g, d)
    }
}

/// Any cost function by the chords between its integer values (today's per-worker costs:
/// a latency makes the chord from 0 to 1 steep, and `T* ≤ T_int` still holds).
#[derive(Clone, Copy, Debug)]
pub struct Chords<C>(pub C);

impl<C: CostFn<f64>> CostFn<f64> for Chords<C> {
    fn time(&self, items: u64) -> f64 {
        self.0.time(items)
    }
    fn max_within(&self, t: f64, limit: u64) -> Option<u64> {
        self.0.max_within(t, limit)
    }
    fn non_decreasing(&self) -> bool {
        self.0.non_decreasing()
    }
}

impl<C: CostFn<f64>> Inverse for Chords<C> {
    fn inverse(&self, t: f64, limit: u64) -> (f64, f64) {
        let Some(c) = self.0.max_within(t, limit) else { return (0.0, 0.0) };
        if c >= limit {
            return (limit as f64, 0.0);
        }
        let (a, b) = (self.0.time(c), self.0.time(c + 1));
        let step = b - a;
        if !(step > 0.0 && step.is_finite()) {
            return (c as f64, 0.0);
        }
        (c as f64 + (t - a) / step, 1.0 / step)
    }
}

/// `count` workers with the same cost (a document's entry).
#[derive(Clone, Copy, Debug)]
pub struct Class<C> {
    /// Their cost.
    pub cost: C,
    /// How many workers (≥ 1).
    pub count: u64,
}

/// How the items left after the floors are placed (§2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// By the finish time the item gives, `f(nᵢ + 1)/kᵢ`: optimal for every monotone cost.
    Cost,
    /// The paper's rule, by `(nᵢ + 1)/kᵢ` (cerin2006 §3): right for a linear cost only.
    Paper,
}

/// An integer plan's terms (§3, §10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// `maxᵢ timeᵢ(nᵢ)` of the counts written.
    pub makespan: f64,
    /// The rational optimum `T*`, in floating point (not itself certified).
    pub rational_makespan: f64,
    /// The exact integer optimum, certified: no plan finishes before it (§3).
    pub lower_bound: f64,
}

impl Plan {
    /// `makespan/lower_bound − 1` (0 when both are 0).
    pub fn gap(&self) -> f64 {
        if self.makespan <= self.lower_bound {
            0.0
        } else if self.lower_bound > 0.0 {
            (self.makespan / self.lower_bound - 1.0).min(f64::MAX)
        } else {
            // Any time against an optimum of 0: the largest ratio a document can write.
            f64::MAX
        }
    }

    /// `true` when the plan is the optimum.
    pub fn exact(&self) -> bool {
        self.makespan <= self.lower_bound
    }
}

/// Checks classes, items and the output buffer; the number of workers.
pub(crate) fn check<C: CostFn<f64>>(
    classes: &[Class<C>],
    items: u64,
    counts: &[u64],
) -> Result<usize, Error> {
    let mut p = 0u64;
    for (i, c) in classes.iter().enumerate() {
        if c.count == 0 {
            return Err(Error::entry_value("workers", i, "count", AT_LEAST_ONE.says, 0.0));
        }
        p = p.checked_add(c.count).ok_or_else(|| Error::too_large("workers", u64::MAX, u64::MAX))?;
    }
    let p = usize::try_from(p).map_err(|_| Error::too_large("workers", usize::MAX as u64, p))?;
    crate::platform::check_sizes::<f64>(p, items)?;
    if counts.len() < p {
        return Err(Error::buffer("counts", p, counts.len()));
    }
    Ok(p)
}

/// `Σ count·x` saturating.
fn weighted(classes_count: u64, x: u64) -> u64 {
    classes_count.saturating_mul(x)
}

/// The rational optimum `T* = min{T : Σ countᵢ·gᵢ(T) ≥ N}` (§1): Newton's method from
/// `start`, each step kept inside the bracket of the values seen (a bisection on the bit
/// patterns when Newton leaves it), until the bracket is two patterns wide.
pub fn rational<C: Inverse>(classes: &[Class<C>], items: u64, start: f64) -> f64 {
    let need = items as f64;
    let f = |t: f64| {
        let (mut s, mut d) = (0.0f64, 0.0f64);
        for c in classes {
            let (g, dg) = c.cost.inverse(t, items);
            s += c.count as f64 * g;
            d += c.count as f64 * dg;
        }
        (s - need, d)
    };
    let (f0, _) = f(0.0);
    if f0 >= 0.0 {
        return 0.0;
    }
    // Any one worker takes everything by its time(N).
    let mut hi = f64::INFINITY;
    for c in classes {
        hi = hi.min(c.cost.time(items));
    }
    if !hi.is_finite() {
        hi = f64::MAX;
    }
    root(0.0, hi, start, &f)
}

/// The smallest `t` (to two bit patterns) in `(lo, hi]` with `f(t).0 ≥ 0`, for `f`
/// increasing with derivative `f(t).1`, `f(lo) < 0`: Newton from `start` (or the middle),
/// each step kept inside the bracket of the values seen, a bisection on the bit patterns
/// when Newton leaves it. At most 200 evaluations.
pub(crate) fn root(mut lo: f64, mut hi: f64, start: f64, f: &dyn Fn(f64) -> (f64, f64)) -> f64 {
    let mut t = if start > lo && start < hi { start } else { mid(lo, hi) };
    for _ in 0..200 {
        let (v, d) = f(t);
        if v >= 0.0 {
            hi = t;
        } else {
            lo = t;
        }
        if v == 0.0 || hi.to_bits().saturating_sub(lo.to_bits()) <= 2 {
            break;
        }
        // Newton approaches `T*` from one side only (§1: F concave, from the left): once
        // its step is a few ulps, step past the root by 2⁻⁵⁰ so the bracket closes from
        // the other side too, then bisect the few patterns left.
        let step = -v / d;
        let nudge = t.abs() * (1.0 / (1u64 << 50) as f64);
        let newton = if step.abs() < nudge { t + nudge.copysign(step) } else { t + step };
        t = if d > 0.0 && newton > lo && newton < hi && newton != t { newton } else { mid(lo, hi) };
    }
    hi
}

/// The middle bit pattern: a bisection that halves the exponent range as well.
fn mid(lo: f64, hi: f64) -> f64 {
    f64::from_bits(lo.to_bits() + hi.to_bits().saturating_sub(lo.to_bits()) / 2)
}

/// Items a class takes by time `t`, between the clamps `[lo, hi]` (trait objects: one
/// copy of [`settle`] per cost type, not per rounding, in the wasm module).
pub(crate) struct Clamp<'a> {
    pub lo: &'a dyn Fn(usize) -> u64,
    pub hi: &'a dyn Fn(usize) -> u64,
}

/// The smallest `T` in `(t_lo, t_hi]` (or 0) with `Σ count·clamp(cᵢ(T)) ≥ need`, by a
/// bisection on bit patterns; writes each worker `clamp(cᵢ(pred T))` and gives the rest to
/// the workers whose clamped count grows at `T`, in index order, up to that growth. Needs
/// `Σ count·clamp(cᵢ(t_hi)) ≥ need` (else `t_hi` is raised to infinity).
pub(crate) fn settle<C: CostFn<f64>>(
    classes: &[Class<C>],
    key: &dyn Fn(&C, f64) -> u64,
    clamp: &Clamp<'_>,
    need: u64,
    t_lo: f64,
    t_hi: f64,
    counts: &mut [u64],
) -> f64 {
    let at = |j: usize, c: &Class<C>, t: f64| -> u64 {
        let x = if t < 0.0 { 0 } else { key(&c.cost, t) };
        x.max((clamp.lo)(j)).min((clamp.hi)(j))
    };
    let fit = |t: f64| -> u64 {
        let mut total = 0u64;
        for (j, c) in classes.iter().enumerate() {
            total = total.saturating_add(weighted(c.count, at(j, c, t)));
            if total >= need {
                break;
            }
        }
        total
    };
    let mut hi = if t_hi >= 0.0 && fit(t_hi) >= need { t_hi.to_bits() } else { f64::INFINITY.to_bits() };
    let mut lo = if t_lo > 0.0 && t_lo.to_bits() < hi && fit(t_lo) < need { t_lo.to_bits() + 1 } else { 0 };
    if lo == 0 && fit(0.0) >= need {
        hi = 0;
    }
    // A good `t_hi` is the answer itself (§2: the leftover's last finish time): one pass
    // proves it instead of a bisection.
    if lo < hi && fit(f64::from_bits(hi - 1)) < need {
        lo = hi;
    }
    while lo < hi {
        let m = lo + (hi - lo) / 2;
        if fit(f64::from_bits(m)) >= need {
            hi = m;
        } else {
            lo = m + 1;
        }
    }
    let t = f64::from_bits(hi);
    let before = if hi == 0 { -1.0 } else { f64::from_bits(hi - 1) };
    let mut left = need;
    for (j, c) in classes.iter().enumerate() {
        left = left.saturating_sub(weighted(c.count, at(j, c, before)));
    }
    let mut rank = 0usize;
    for (j, c) in classes.iter().enumerate() {
        let (a, b) = (at(j, c, before), at(j, c, t));
        for _ in 0..c.count {
            let extra = b.saturating_sub(a).min(left);
            left -= extra;
            if let Some(slot) = counts.get_mut(rank) {
                *slot = a + extra;
            }
            rank += 1;
        }
    }
    t
}

/// The largest count each class was given and the makespan of the counts written.
pub(crate) fn makespan_of<C: CostFn<f64>>(classes: &[Class<C>], counts: &[u64]) -> f64 {
    let mut rank = 0usize;
    let mut m = 0.0f64;
    for c in classes {
        let n = usize::try_from(c.count).unwrap_or(usize::MAX);
        let most =
            counts.get(rank..rank.saturating_add(n)).map_or(0, |s| s.iter().copied().max().unwrap_or(0));
        m = m.max(c.cost.time(most));
        rank = rank.saturating_add(n);
    }
    m
}

fn within<C: CostFn<f64>>(f: &C, t: f64, limit: u64) -> u64 {
    f.max_within(t, limit).unwrap_or(0)
}

/// The floors `cᵢ(T_lo)` just below the rational optimum `t_star` with `Σ ≤ N` (§2's
/// margin of 2⁻⁴⁰, widened if rounding still gives too many), and their `T_lo`.
fn floors_below<C: CostFn<f64>>(classes: &[Class<C>], items: u64, t_star: f64) -> f64 {
    for margin in [1.0 - 1.0 / (1u64 << 40) as f64, 1.0 - 1.0 / (1u64 << 20) as f64, 0.5] {
        let t = t_star * margin;
        let mut s = 0u64;
        for c in classes {
            s = s.saturating_add(weighted(c.count, within(&c.cost, t, items)));
        }
        if s <= items {
            return t;
        }
    }
    0.0
}

/// The time by which every class has `base + ⌈r/count⌉` items each (capped at `N`): enough
/// for `r` more items in all.
fn time_for_more<C: CostFn<f64>>(
    classes: &[Class<C>],
    base: &dyn Fn(usize) -> u64,
    r: u64,
    items: u64,
) -> f64 {
    let mut t = 0.0f64;
    for (j, c) in classes.iter().enumerate() {
        let more = r.div_ceil(c.count.max(1));
        t = t.max(c.cost.time(base(j).saturating_add(more).min(items)));
    }
    t
}

/// The exact integer optimum over `classes` with the cost rule, written to `counts` (one
/// per worker, classes in order): returns `T_int`, which the counts reach exactly and no
/// plan beats, and `T*`. `scratch` holds one word per class.
pub(crate) fn optimum<C: Inverse>(
    classes: &[Class<C>],
    items: u64,
    counts: &mut [u64],
    scratch: &mut [u64],
) -> (f64, f64) {
    let state = scratch.get_mut(..classes.len()).unwrap_or(&mut []);
    let (mut t_star, at) = rational_warm(classes, items, state);
    if let Some(t) = select(classes, items, &mut t_star, at, counts, state) {
        return (t, t_star);
    }
    optimum_from(classes, items, t_star, counts)
}

/// The classes drawn to start Newton's method (§1): the rational optimum of an even
/// sample of this many classes, each standing for its share of the workers.
const SAMPLE: usize = 64;

/// `T*` as [`rational`], but each pass over the classes warm (§1): every class keeps its
/// last inverse's state in `state` (one word each, as `f64` bits), and Newton's method
/// starts from the optimum of a sample, its first pass seeded by one class's `W₀`, so
/// that each pass costs at most one `log` a class (the last ones none). Stops, after a
/// pass of exact inverses (never the seeded one), when Newton's step is below `2⁻²⁰·T`,
/// leaving `T*` within some 10⁻¹⁴ (the plan needs 2⁻³⁰, §2). Returns `T*` and the time at
/// which `state` was left.
pub(crate) fn rational_warm<C: Inverse>(classes: &[Class<C>], items: u64, state: &mut [u64]) -> (f64, f64) {
    if state.len() < classes.len() {
        return (rational(classes, items, 0.0), 0.0);
    }
    let need = items as f64;
    let (mut f0, mut all) = (-need, 0.0f64);
    for c in classes {
        f0 += c.count as f64 * c.cost.inverse(0.0, items).0;
        all += c.count as f64;
    }
    if f0 >= 0.0 {
        return (0.0, 0.0);
    }
    let stride = classes.len().div_ceil(SAMPLE).max(1);
    let mut sampled = 0.0f64;
    let mut j = 0;
    while let Some(c) = classes.get(j) {
        sampled += c.count as f64;
        j += stride;
    }
    let scale = all / sampled.max(1.0);
    let sample = |t: f64| {
        let (mut s, mut d) = (-need, 0.0f64);
        // Every `stride`-th class (not `step_by`, whose zero-step panic the no-panic
        // proof would have to see through).
        let mut j = 0;
        while let Some(c) = classes.get(j) {
            let (g, dg) = c.cost.inverse(t, items);
            s += scale * c.count as f64 * g;
            d += scale * c.count as f64 * dg;
            j += stride;
        }
        (s, d)
    };
    // Any one worker takes everything by its time(N).
    let first = classes.first().map_or(f64::MAX, |c| c.cost.time(items));
    let (mut lo, mut hi) = (0.0f64, if first.is_finite() { first } else { f64::MAX });
    let mut t = root(lo, hi, 0.0, &sample);
    let mut prev: Option<f64> = None;
    let seed = classes.first().map_or(Warm::Cold, |c| c.cost.seed(t));
    let (mut residual, mut last_step) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..100 {
        let step = prev.map_or(seed, |p| Warm::Step(libm::log(t / p)));
        // Σ countᵢ·gᵢ(t) − N compensated (Neumaier): a million terms near 10⁶ each would
        // otherwise leave the sum a few items off, and Newton's last steps in that noise.
        let (mut v, mut carry, mut d) = (-need, 0.0f64, 0.0f64);
        for (c, w) in classes.iter().zip(state.iter_mut()) {
            let mut x = f64::from_bits(*w);
            let (g, dg) = c.cost.inverse_warm(t, items, step, &mut x);
            *w = x.to_bits();
            let term = c.count as f64 * g;
            let sum = v + term;
            carry += if v.abs() >= term.abs() { (v - sum) + term } else { (term - sum) + v };
            v = sum;
            d += c.count as f64 * dg;
        }
        v += carry;
        prev = Some(t);
        let newton = t - v / d;
        if matches!(step, Warm::Seed { .. }) {
            // The seeded pass's inverses are Taylor steps from another class's `W₀`, each
            // up to 10⁻⁴ off (`inverse_warm`): its step moves `t` from the sample's root, but
            // near `T*` its sign and size are those errors' as much as Newton's (issue 43:
            // from a sample's root already at `T*`, a step of 1.4·10⁻⁷, below 2⁻²⁰, was taken
            // for convergence and `T*` reported that far low). So it neither closes the
            // bracket nor stops Newton. Its size is kept for the prediction below, which
            // only decides when the estimate is good enough for the floors: the `T*`
            // reported is the floors' pass's Newton step, from exact inverses (`select`).
            if d > 0.0 && newton > lo && newton < hi {
                last_step = ((newton - t) / t).abs();
                t = newton;
            }
            continue;
        }
        if v >= 0.0 {
            hi = t;
        } else {
            lo = t;
        }
        if v == 0.0 || hi.to_bits().saturating_sub(lo.to_bits()) <= 2 {
            return (hi, t);
        }
        // Newton's error after a step `s` is about `C·s²`, `C = |F″/2F′|` (some 10⁻¹⁴ of
        // `T*` after a step of 2⁻²⁰ for `n ln n`), and the last two steps estimate `C`
        // as `sₖ/sₖ₋₁²`: the plan needs `T*` to 2⁻³⁰ (§2: the floors are taken at
        // `T*(1 − 2⁻³⁰)`; a worse `T*` costs time, never the optimum), and the floors'
        // pass refines it once more.
        let s = ((newton - t) / t).abs();
        let predicted = s * s * s / (last_step * last_step);
        if d > 0.0
            && (s <= 1.0 / (1u64 << 20) as f64
                || (s <= 1.0 / 1024.0 && last_step.is_finite() && predicted <= 1.0 / (1u64 << 34) as f64))
        {
            // Not `f64::clamp`, whose panic message would bring float formatting into the wasm.
            return (newton.max(lo).min(hi), t);
        }
        last_step = s;
        // Newton's residual at least halves each pass where the cost is smooth; a kink
        // (a table's chords) can stall it, and then the bracket is halved instead.
        let stalled = v.abs() > 0.5 * residual;
        residual = v.abs();
        t = if d > 0.0 && newton > lo && newton < hi && !stalled { newton } else { mid(lo, hi) };
    }
    (hi, prev.unwrap_or(0.0))
}

/// The exact integer optimum by a selection over the classes' next items (§2, the fast
/// path): the floors `bᵢ = cᵢ(T_lo)` go to `counts[i]`, the finish time `vᵢ` of each
/// class's next item to `state[i]` (bits), and [`place`] puts the rest. `None` when the
/// floors already hold `N` items or more (`T* = 0`, or a `T*` too high): the caller falls
/// back to the bisection. Returns `T_int`; `t_star` is refined by one more Newton step
/// from the floors' pass, whose inverses are exact, whether or not the selection succeeds.
fn select<C: Inverse>(
    classes: &[Class<C>],
    items: u64,
    t_star: &mut f64,
    at: f64,
    counts: &mut [u64],
    state: &mut [u64],
) -> Option<f64> {
    let e = classes.len();
    let guess = *t_star;
    if state.len() < e || counts.len() < e || guess.is_nan() || guess <= 0.0 {
        return None;
    }
    let t_lo = guess * (1.0 - 1.0 / (1u64 << 30) as f64);
    let step = if at > 0.0 { Warm::Step(libm::log(t_lo / at)) } else { Warm::Cold };
    let mut s = 0u64;
    let (mut f, mut d) = (-(items as f64), 0.0f64);
    let mut unit = true;
    for ((c, b), w) in classes.iter().zip(counts.iter_mut()).zip(state.iter_mut()) {
        let mut x = f64::from_bits(*w);
        let (g, dg) = c.cost.inverse_warm(t_lo, items, step, &mut x);
        let (n, next) = c.cost.within_next(t_lo, items, g);
        *b = n;
        *w = next.to_bits();
        s = s.saturating_add(weighted(c.count, n));
        unit &= c.count == 1;
        f += c.count as f64 * g;
        d += c.count as f64 * dg;
    }
    // One more Newton step from the floors' pass: the `T*` reported, also when the
    // bisection places the items instead (issue 43: it reported the estimate).
    let refined = t_lo - f / d;
    if d > 0.0 && refined.is_finite() && (refined - guess).abs() <= guess * 1e-6 {
        *t_star = refined;
    }
    if s >= items {
        return None;
    }
    place(classes, items, counts, state, items - s, Some((t_lo, d)), unit)
}

/// Places `r ≥ 1` items over floors `bᵢ` (`counts[i]`, one per class) whose next items end
/// at `vᵢ` (`state[i]`, bits) by the cost rule (§2's greedy): the least `T` with
/// `Σ countᵢ·(cᵢ(T) − bᵢ) ≥ r` is found by halving `[min vᵢ, T_hi]` on bit patterns,
/// moving every class whose next item fits below a probe that fits too few past it
/// (its `bᵢ`, `vᵢ` and `r` updated). A probe reads one word a class and evaluates
/// costs only for the classes whose next item it reaches. With an `estimate`
/// `(t_lo, rate)` (items a second near `t_lo`) the first two probes bracket
/// `t_lo + r/rate`; `unit`:
/// every class is one worker.
/// Writes `counts` (one per worker) and returns `T`; `None` (with `counts` and `state`
/// spoiled) when `T` is not finite.
fn place<C: Inverse>(
    classes: &[Class<C>],
    items: u64,
    counts: &mut [u64],
    state: &mut [u64],
    mut r: u64,
    estimate: Option<(f64, f64)>,
    unit: bool,
) -> Option<f64> {
    let (t_lo, rate) = estimate.unwrap_or((0.0, 0.0));
    let e = classes.len();
    let state = state.get_mut(..e)?;
    // Items a class takes by `t` beyond its floor `b`, given that its next one fits.
    // Items a class takes by `t ≥ v` beyond its floor `b` (`v`: its next item's finish),
    // and the finish of the one after: the second item decides most classes; a class
    // with more below `t` (a fast one) is searched from the chord through its next two.
    let more = |c: &Class<C>, b: u64, v: f64, t: f64| -> (u64, f64) {
        if b.saturating_add(1) >= items {
            return (items - b, f64::INFINITY);
        }
        let second = c.cost.time(b + 2);
        if second > t {
            return (1, second);
        }
        let guess = (b + 2) as f64 + (t - second) / (second - v).max(f64::MIN_POSITIVE);
        let n = c.cost.within_near(t, items, guess).max(b + 2);
        let next = if n < items { c.cost.time(n + 1) } else { f64::INFINITY };
        (n - b, next)
    };
    // Whether `r` more items fit by `t`, and then the latest finish among the items
    // counted (they fit by it as well): first counting one item for each class whose
    // next one fits (no cost evaluated), then every item.
    let fits = |t: f64, counts: &[u64], state: &[u64], r: u64| -> Option<(u64, u64)> {
        let bits = t.to_bits();
        let (mut ones, mut last) = (0u64, 0u64);
        if unit {
            // One worker a class (distinct speeds): a count of the times, not of the classes.
            for &v in state.iter() {
                let below = v <= bits;
                ones += u64::from(below);
                last = last.max(if below { v } else { 0 });
            }
        } else {
            for (c, &v) in classes.iter().zip(state.iter()) {
                if v <= bits {
                    ones = ones.saturating_add(c.count);
                    last = last.max(v);
                }
            }
        }
        if ones >= r {
            return Some((last, ones));
        }
        let mut total = 0u64;
        for ((c, &b), &v) in classes.iter().zip(counts.iter()).zip(state.iter()) {
            if v <= bits {
                let (k, _) = more(c, b, f64::from_bits(v), t);
                total = total.saturating_add(weighted(c.count, k));
                if k > 1 {
                    last = last.max(c.cost.time(b + k).to_bits());
                }
                if total >= r {
                    return Some((last.min(bits), total));
                }
            }
        }
        None
    };
    let (mut low, mut high) = (u64::MAX, 0u64);
    let infinite = f64::INFINITY.to_bits();
    for &v in state.iter().take(e) {
        low = low.min(v);
        if v < infinite {
            high = high.max(v);
        }
    }
    // The first two probes bracket where the `r` items would end if they came at the
    // rational optimum's rate `d` (items a second), give or take four standard
    // deviations of a sum of Bernoulli variables: below it most classes move past their
    // next item, above it counting the next items usually suffices. Then the count at
    // the last fitting probe is interpolated while that halves `[low, hi]`, halved
    // otherwise; `hi` starts at the largest next finish.
    let rate = if rate > 0.0 && rate.is_finite() { rate } else { 0.0 };
    let spread = 4.0 * libm::sqrt(r as f64) + 16.0;
    let at = |items: f64| (t_lo + items.max(0.0) / rate).to_bits();
    let mut planned =
        [(rate > 0.0).then(|| at(r as f64 - spread)), (rate > 0.0).then(|| at(r as f64 + spread))];
    let mut hi = infinite;
    let mut at_hi = 0u64;
    let mut halve = false;
    while low < hi {
        let next_planned = planned.iter_mut().find_map(|p| p.take().filter(|&m| m >= low && m < hi));
        let m = match next_planned {
            Some(m) => m,
            None if hi == infinite => high.max(low),
            None if halve || at_hi == 0 => low + (hi - low) / 2,
            None => {
                let part = (hi - low) as f64 * (r as f64 / at_hi as f64);
                (low + part as u64).min(hi - 1)
            }
        };
        let width = hi.saturating_sub(low);
        let t = f64::from_bits(m);
        if let Some((last, count)) = fits(t, counts, state, r) {
            (hi, at_hi) = (last, count);
        } else {
            // Every class moved ends past `m`, so `low` grows; the largest finite next
            // finish is taken again for the probe above them all while `hi` is infinite
            // (a probe past the old one used to end the search with `hi` infinite, and the
            // caller fell back to the bisection, issue 43). Only when every next item is
            // infinite (classes that take every item) does the search end without `T`.
            (low, high) = (u64::MAX, 0);
            for ((c, b), v) in classes.iter().zip(counts.iter_mut()).zip(state.iter_mut()) {
                if *v <= m {
                    let (k, next) = more(c, *b, f64::from_bits(*v), t);
                    *b += k;
                    *v = next.to_bits();
                    let taken = weighted(c.count, k);
                    r = r.saturating_sub(taken);
                    at_hi = at_hi.saturating_sub(taken);
                }
                low = low.min(*v);
                if *v < infinite {
                    high = high.max(*v);
                }
            }
        }
        halve = next_planned.is_none() && hi.saturating_sub(low) > width / 2;
    }
    let t = f64::from_bits(hi);
    if !t.is_finite() {
        return None;
    }
    // Every class's next item ends at `T` or later: the floors are `cᵢ(pred T)`, and the
    // classes whose next items end at `T` take the rest in index order (§2's greedy).
    for ((c, &b), v) in classes.iter().zip(counts.iter()).zip(state.iter_mut()) {
        let k = if *v <= hi { more(c, b, f64::from_bits(*v), t).0 } else { 0 };
        let given = weighted(c.count, k).min(r);
        r -= given;
        *v = given;
    }
    write_back(classes, counts, state, &|c, b| more(c, b, c.cost.time(b + 1), t).0);
    Some(t)
}

/// Writes each class's floor `bᵢ` (`counts[i]`) plus its `givenᵢ` extra items (`given[i]`)
/// to its workers (`counts`, one per worker, classes in order), the first workers first,
/// up to `each(class, bᵢ)` items a worker. Backwards, so that no class's worker overwrites
/// a floor not yet read (class `i`'s workers start at or after `i`).
fn write_back<C>(
    classes: &[Class<C>],
    counts: &mut [u64],
    given: &[u64],
    each: &dyn Fn(&Class<C>, u64) -> u64,
) {
    let mut end: usize =
        classes.iter().map(|c| usize::try_from(c.count).unwrap_or(usize::MAX)).fold(0, usize::saturating_add);
    for (j, c) in classes.iter().enumerate().rev() {
        let n = usize::try_from(c.count).unwrap_or(usize::MAX);
        let start = end.saturating_sub(n);
        let (b, given) = (counts.get(j).copied().unwrap_or(0), given.get(j).copied().unwrap_or(0));
        let each = if given > 0 && c.count > 1 { each(c, b) } else { given };
        let mut left = given;
        for slot in counts.get_mut(start..end).unwrap_or(&mut []) {
            let k = each.min(left);
            left -= k;
            *slot = b + k;
        }
        end = start;
    }
}

fn optimum_from<C: Inverse>(classes: &[Class<C>], items: u64, t_star: f64, counts: &mut [u64]) -> (f64, f64) {
    let t_lo = floors_below(classes, items, t_star);
    // §2 without a heap: each class's next item's finish time, as bit patterns (ordered as
    // the non-negative numbers) in `counts`, which is free until the counts are written.
    let mut s = 0u64;
    for (j, c) in classes.iter().enumerate() {
        let b = within(&c.cost, t_lo, items);
        s = s.saturating_add(weighted(c.count, b));
        let next = if b < items { c.cost.time(b + 1) } else { f64::INFINITY };
        if let Some(slot) = counts.get_mut(j) {
            *slot = if next >= 0.0 { next.to_bits() } else { 0 };
        }
    }
    let r = items.saturating_sub(s);
    let next = counts.get(..classes.len()).unwrap_or(&[]);
    // The r-th smallest next time, weighted by the classes' sizes: a bisection on the bit
    // patterns that only compares (no inverse is evaluated).
    let upto = |bits: u64| {
        let mut w = 0u64;
        for (c, &t) in classes.iter().zip(next) {
            if t <= bits {
                w = w.saturating_add(c.count);
            }
        }
        w
    };
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for &t in next {
        (lo, hi) = (lo.min(t), hi.max(t));
    }
    let candidate = (r > 0 && lo <= hi && upto(hi) >= r).then(|| {
        while lo < hi {
            let m = lo + (hi - lo) / 2;
            if upto(m) >= r {
                hi = m;
            } else {
                lo = m + 1;
            }
        }
        f64::from_bits(hi)
    });
    let key = |f: &C, t: f64| within(f, t, items);
    let clamp = Clamp { lo: &|_| 0, hi: &|_| items };
    // Every class takes one more item by the candidate, so it reaches N: an upper bound of
    // T_int. It is T_int when no class can take two items below it (equal or close
    // speeds); with spread speeds a fast worker's items are finer than a slow one's, and
    // the bisection between T_lo and the candidate finds T_int (about 32 steps at 10⁶
    // items a worker).
    let t_hi = match candidate {
        Some(t) => t,
        None => {
            let base = |j: usize| classes.get(j).map_or(0, |c| within(&c.cost, t_lo, items));
            time_for_more(classes, &base, r, items)
        }
    };
    let t = settle(classes, &key, &clamp, items, t_lo, t_hi, counts);
    (t, t_star)
}

/// The exact integer optimum for uniformly related workers, or the paper's rounding of
/// the same rational optimum (§2), written to `counts` (one per worker: each class's
/// `count` workers in turn); `scratch` is working memory, one word per class.
///
/// # Errors
///
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for no workers, no items or
/// a speed that is not finite and > 0 (naming the class); a makespan beyond `f64`
/// ([`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput), naming it);
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short `counts` or
/// `scratch`.
///
/// ```
/// use divload::partition::related::{solve, Class, Rounding, Scaled, Shape, Uniform};
/// let square = Uniform::<8>::new(Shape::Power(2.0), 1.0)?;
/// let classes = [Class { cost: Scaled { cost: &square, speed: 1.0 }, count: 1 },
///                Class { cost: Scaled { cost: &square, speed: 2.0 }, count: 1 }];
/// let (mut counts, mut scratch) = ([0u64; 2], [0u64; 2]);
/// let plan = solve(&classes, 4, Rounding::Cost, &mut counts, &mut scratch)?;
/// assert_eq!((counts, plan.makespan), ([2, 2], 4.0));
/// let paper = solve(&classes, 4, Rounding::Paper, &mut counts, &mut scratch)?;
/// assert_eq!((counts, paper.makespan, paper.lower_bound), ([1, 3], 4.5, 4.0)); // §2's table
/// # Ok::<(), divload::Error>(())
/// ```
pub fn solve<const M: usize>(
    classes: &[Class<Scaled<'_, M>>],
    items: u64,
    rounding: Rounding,
    counts: &mut [u64],
    scratch: &mut [u64],
) -> Result<Plan, Error> {
    check_speeds(classes)?;
    check(classes, items, counts)?;
    check_scratch(classes, scratch)?;
    let (t_int, t_star) = optimum(classes, items, counts, scratch);
    let plan = Plan { makespan: t_int, rational_makespan: t_star, lower_bound: t_int };
    let plan = match rounding {
        Rounding::Cost => plan,
        Rounding::Paper => {
            let t_lo = floors_below(classes, items, t_star);
            let floor = |j: usize| classes.get(j).map_or(0, |c| within(&c.cost, t_lo, items));
            let mut s = 0u64;
            for (j, c) in classes.iter().enumerate() {
                s = s.saturating_add(weighted(c.count, floor(j)));
            }
            // With `n ln n` and `N ≤ p` the optimum is 0 and the floors of `g(0) = 1` are
            // more than `N` (§0): the rule then starts from nothing.
            let fits = s <= items;
            let base = |j: usize| if fits { floor(j) } else { 0 };
            let key = |f: &Scaled<'_, M>, t: f64| {
                // Items with (n + 1)/k ≤ t: n ≤ t·k, corrected against the division.
                let guess = (t * f.speed) as u64;
                search_from(|x| x as f64 / f.speed <= t, guess, items)
            };
            let clamp = Clamp { lo: &base, hi: &|_| items };
            let r = if fits { items - s } else { items };
            let mut t_hi = 0.0f64;
            for (j, c) in classes.iter().enumerate() {
                t_hi = t_hi.max(
                    (base(j).saturating_add(r.div_ceil(c.count.max(1))).min(items)) as f64 / c.cost.speed,
                );
            }
            settle(classes, &key, &clamp, items, 0.0, t_hi, counts);
            Plan { makespan: makespan_of(classes, counts), ..plan }
        }
    };
    if !plan.makespan.is_finite() {
        return Err(Error::time_overflow("makespan", "give a smaller coeff or larger speeds"));
    }
    Ok(plan)
}

/// One word of `scratch` per class.
pub(crate) fn check_scratch<C>(classes: &[Class<C>], scratch: &[u64]) -> Result<(), Error> {
    if scratch.len() < classes.len() {
        return Err(Error::buffer("scratch", classes.len(), scratch.len()));
    }
    Ok(())
}

/// Speeds finite and > 0.
pub(crate) fn check_speeds<const M: usize>(classes: &[Class<Scaled<'_, M>>]) -> Result<(), Error> {
    for (i, c) in classes.iter().enumerate() {
        POSITIVE.entry("workers", i, "speed", c.cost.speed)?;
    }
    Ok(())
}

/// Rounds real shares (one per class, clamped at 0) to an integer plan (§6, "approximation
/// plans in core"): floors, the leftover by the cost rule; when the floors exceed `N`, items
/// are taken back from the latest finishers. Writes `counts` (one per worker, as many as
/// the classes' counts add up to; the caller checks) and returns the makespan; `scratch`
/// (one word per class) lets the leftover be placed by a selection (`place`), else a
/// bisection evaluates every class's inverse at each step.
pub fn round_shares<C: Inverse>(
    classes: &[Class<C>],
    items: u64,
    share: &dyn Fn(usize) -> f64,
    counts: &mut [u64],
    scratch: &mut [u64],
) -> f64 {
    let base = |j: usize| {
        let x = share(j);
        // `as` saturates and reads NaN as 0.
        if x > 0.0 {
            (x as u64).min(items)
        } else {
            0
        }
    };
    let mut s = 0u64;
    for (j, c) in classes.iter().enumerate() {
        s = s.saturating_add(weighted(c.count, base(j)));
    }
    let e = classes.len();
    if s <= items && scratch.len() >= e && counts.len() >= e {
        for (j, ((c, b), v)) in classes.iter().zip(counts.iter_mut()).zip(scratch.iter_mut()).enumerate() {
            *b = base(j);
            *v = if *b < items { c.cost.time(*b + 1) } else { f64::INFINITY }.to_bits();
        }
        let placed = if s == items {
            scratch.iter_mut().for_each(|g| *g = 0);
            write_back(classes, counts, scratch, &|_, _| 0);
            true
        } else {
            let unit = classes.iter().all(|c| c.count == 1);
            place(classes, items, counts, scratch, items - s, None, unit).is_some()
        };
        if placed {
            return makespan_of(classes, counts);
        }
    }
    let key = |f: &C, t: f64| within(f, t, items);
    if s <= items {
        let t_hi = time_for_more(classes, &base, items - s, items);
        let clamp = Clamp { lo: &base, hi: &|_| items };
        settle(classes, &key, &clamp, items, 0.0, t_hi, counts);
    } else {
        let mut t_hi = 0.0f64;
        for (j, c) in classes.iter().enumerate() {
            t_hi = t_hi.max(c.cost.time(base(j)));
        }
        let clamp = Clamp { lo: &|_| 0, hi: &base };
        settle(classes, &key, &clamp, items, 0.0, t_hi, counts);
    }
    makespan_of(classes, counts)
}

/// The split by speed alone (cerin2006 §5's A.1): floors of `N·kᵢ/K`, the leftover by the
/// cost rule. Returns its makespan; `counts` (one per worker) and `scratch` (one word per
/// class) are working memory.
///
/// # Errors
///
/// As [`solve`].
pub fn speed_makespan<const M: usize>(
    classes: &[Class<Scaled<'_, M>>],
    items: u64,
    counts: &mut [u64],
    scratch: &mut [u64],
) -> Result<f64, Error> {
    check_speeds(classes)?;
    check(classes, items, counts)?;
    check_scratch(classes, scratch)?;
    let total: f64 = classes.iter().map(|c| c.count as f64 * c.cost.speed).sum();
    Ok(round_shares(
        classes,
        items,
        &|j| classes.get(j).map_or(0.0, |c| items as f64 * c.cost.speed / total),
        counts,
        scratch,
    ))
}

/// The even split's makespan: `⌊N/p⌋` items each, one more for the first `N mod p` workers.
pub fn even_makespan<C: CostFn<f64>>(classes: &[Class<C>], items: u64) -> f64 {
    let p: u64 = classes.iter().map(|c| c.count).fold(0, u64::saturating_add);
    if p == 0 {
        return 0.0;
    }
    let (q, rem) = (items / p, items % p);
    let (mut first, mut m) = (0u64, 0.0f64);
    for c in classes {
        m = m.max(c.cost.time(if first < rem { q + 1 } else { q }));
        first = first.saturating_add(c.count);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cost::Tabulated;

    /// The selection (§2's fast path) against the bisection it replaced, on random
    /// platforms of every shape, with spread speeds (fast classes take many items below a
    /// slow one's next), weighted classes and item counts around the number of workers:
    /// the same `T_int` to the bit and the same counts.
    #[test]
    fn the_selection_equals_the_bisection() {
        let mut rnd = crate::num::xorshift(7);
        let mut unit = || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        let table = Tabulated::<f64, 8>::new(&[(1, 1.0), (10, 30.0), (1000, 9000.0)]).unwrap();
        let shapes = [
            Shape::Linear,
            Shape::Power(2.0),
            Shape::Power(0.5),
            Shape::Power(1.7),
            Shape::NLogN,
            Shape::NLogN,
            Shape::Table(table),
        ];
        let mut fast_paths = 0;
        for case in 0..3000 {
            let shape = shapes[case % shapes.len()].clone();
            let cost = Uniform::<8>::new(shape, libm::exp(unit() * 20.0 - 18.0)).unwrap();
            let e = 1 + (unit() * 30.0) as usize;
            let spread = [2.0, 16.0, 1000.0][case % 3];
            let classes: [Class<Scaled<'_, 8>>; 32] = core::array::from_fn(|_| Class {
                cost: Scaled { cost: &cost, speed: libm::pow(spread, unit()) },
                count: if case % 5 == 0 { 1 + (unit() * 4.0) as u64 } else { 1 },
            });
            let classes = &classes[..e];
            let p: u64 = classes.iter().map(|c| c.count).sum();
            let items = match case % 4 {
                0 => 1 + (unit() * 2.0 * p as f64) as u64,
                1 => 1 + (unit() * 1000.0) as u64,
                _ => 1 + libm::exp(unit() * 16.0) as u64,
            };
            let (mut fast, mut slow, mut scratch) = ([0u64; 128], [0u64; 128], [0u64; 32]);
            let (t, t_star) = optimum(classes, items, &mut fast, &mut scratch);
            let (u, _) = optimum_from(classes, items, rational(classes, items, 0.0), &mut slow);
            let p = p as usize;
            assert_eq!(t.to_bits(), u.to_bits(), "case {case}: T_int {t:e} against {u:e}");
            assert_eq!(fast[..p], slow[..p], "case {case}");
            assert_eq!(fast[..p].iter().sum::<u64>(), items, "case {case}");
            let star = rational(classes, items, 0.0);
            assert!((t_star - star).abs() <= 1e-12 * star, "case {case}: T* {t_star:e} against {star:e}");
            let mut state = [0u64; 32];
            let (mut s, at) = rational_warm(classes, items, &mut state);
            // Rounding real shares (the split by speed, and shares off by up to 30 %) by the
            // selection and by the bisection it replaced.
            let total: f64 = classes.iter().map(|c| c.count as f64 * c.cost.speed).sum();
            let noise: [f64; 32] = core::array::from_fn(|_| 0.7 + 0.6 * unit());
            let share = |j: usize| {
                items as f64 * classes[j].cost.speed / total * if case % 2 == 0 { 1.0 } else { noise[j] }
            };
            let by_selection = round_shares(classes, items, &share, &mut fast, &mut scratch);
            let by_bisection = round_shares(classes, items, &share, &mut slow, &mut []);
            assert_eq!(by_selection.to_bits(), by_bisection.to_bits(), "case {case}: rounding");
            assert_eq!(fast[..p], slow[..p], "case {case}: rounding");
            // Only `T* = 0` (`n ln n` with no more items than workers: §0) falls back.
            if select(classes, items, &mut s, at, &mut slow, &mut state).is_some() {
                fast_paths += 1;
            } else {
                assert_eq!(s, 0.0, "case {case}: the bisection's fallback with T* {s:e}");
            }
        }
        assert!(fast_paths > 2500, "{fast_paths} of 3000 by the selection");
    }

    /// The selection from a `T*` estimate 1.4·10⁻⁷ low (what the warm Newton reported in
    /// issue 43): the first probes, planned from it, fit nothing, and the search goes on
    /// from the largest next finish instead of giving up to the bisection; the same plan.
    #[test]
    fn the_selection_places_from_a_low_estimate() {
        let cost = Uniform::<8>::new(Shape::NLogN, 1.0).unwrap();
        let classes =
            [1.0, 2.0, 3.0, 4.0].map(|speed| Class { cost: Scaled { cost: &cost, speed }, count: 1 });
        for items in [300_000_000, 1_000_000_000, 10_000_000_000] {
            let (mut fast, mut slow, mut state) = ([0u64; 4], [0u64; 4], [0u64; 4]);
            let (t_star, at) = rational_warm(&classes, items, &mut state);
            let mut low = t_star * (1.0 - 1.4e-7);
            let t = select(&classes, items, &mut low, at, &mut fast, &mut state);
            let (u, _) = optimum_from(&classes, items, rational(&classes, items, 0.0), &mut slow);
            assert_eq!(t.map(f64::to_bits), Some(u.to_bits()), "N {items}");
            assert_eq!(fast, slow, "N {items}");
            assert!((low - t_star).abs() <= 1e-14 * t_star, "N {items}: T* {low:e} against {t_star:e}");
        }
    }

    /// As above on platforms of 3 000 classes, where the first two probes bracket an
    /// estimate and the selection moves many classes at once.
    #[test]
    fn the_selection_equals_the_bisection_on_large_platforms() {
        use std::{vec, vec::Vec};
        let mut rnd = crate::num::xorshift(11);
        let mut unit = || (rnd() >> 11) as f64 / (1u64 << 53) as f64;
        let table = Tabulated::<f64, 8>::new(&[(1, 1.0), (10, 30.0), (1000, 9000.0)]).unwrap();
        let shapes = [Shape::NLogN, Shape::Power(2.0), Shape::Power(0.5), Shape::Linear, Shape::Table(table)];
        for case in 0..10 {
            let cost = Uniform::<8>::new(shapes[case % shapes.len()].clone(), 1e-8).unwrap();
            let spread = [16.0, 1000.0][case % 2];
            let classes: Vec<_> = (0..3000)
                .map(|_| Class {
                    cost: Scaled { cost: &cost, speed: libm::pow(spread, unit()) },
                    count: if case % 3 == 0 { 1 + (unit() * 3.0) as u64 } else { 1 },
                })
                .collect();
            let p: u64 = classes.iter().map(|c| c.count).sum();
            let items = p * [1_000, 1_000_000, 37][case % 3] + (unit() * p as f64) as u64;
            let p = p as usize;
            let (mut fast, mut slow, mut scratch) = (vec![0u64; p], vec![0u64; p], vec![0u64; classes.len()]);
            let (t, _) = optimum(&classes, items, &mut fast, &mut scratch);
            let (u, _) = optimum_from(&classes, items, rational(&classes, items, 0.0), &mut slow);
            assert_eq!(t.to_bits(), u.to_bits(), "case {case}: T_int {t:e} against {u:e}");
            assert!(fast == slow, "case {case}: counts differ");
            let total: f64 = classes.iter().map(|c| c.count as f64 * c.cost.speed).sum();
            let share = |j: usize| items as f64 * classes[j].cost.speed / total;
            let by_selection = round_shares(&classes, items, &share, &mut fast, &mut scratch);
            let by_bisection = round_shares(&classes, items, &share, &mut slow, &mut []);
            assert_eq!(by_selection.to_bits(), by_bisection.to_bits(), "case {case}: rounding");
            assert!(fast == slow, "case {case}: rounded counts differ");
        }
    }
}
