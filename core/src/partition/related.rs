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

use crate::error::Error;
use crate::partition::lambert::n_log_n_inverse;
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
        if !(coeff.is_finite() && coeff > 0.0) {
            return Err(Error::parameter("cost: coeff", "finite and > 0", coeff));
        }
        if let Shape::Power(a) = shape {
            if !(0.01..=64.0).contains(&a) {
                return Err(Error::parameter("cost: exponent", "in 0.01..=64", a));
            }
        }
        Ok(Uniform { shape, coeff })
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
            Shape::NLogN => {
                let g = n_log_n_inverse(z);
                // g′ = 1/(1 + W₀) = 1/(1 + ln g).
                (g, 1.0 / (1.0 + libm::log(g.max(1.0))) / self.coeff)
            }
            Shape::Table(_) => chord_inverse(&|n| self.seconds(n), y, limit),
        }
    }
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

/// A real inverse `g(t)` with its derivative, for the rational optimum.
pub trait Inverse: CostFn<f64> {
    /// `(g(t), g′(t))`, `g(t) = max{x ≥ 0 : f̃(x) ≤ t}` for a monotone real extension `f̃`
    /// agreeing with `time` on the integers, `x ≤ limit`.
    fn inverse(&self, t: f64, limit: u64) -> (f64, f64);
}

impl<const M: usize> Inverse for Scaled<'_, M> {
    fn inverse(&self, t: f64, limit: u64) -> (f64, f64) {
        let (g, d) = self.cost.inverse(t * self.speed, limit);
        (g.min(limit as f64), d * self.speed)
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
            return Err(Error::entry_value("workers", i, "count", "at least 1", 0.0));
        }
        p = p.checked_add(c.count).ok_or(Error::too_large("workers", u64::MAX, u64::MAX))?;
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
/// plan beats, and `T*`.
pub(crate) fn optimum<C: Inverse>(classes: &[Class<C>], items: u64, counts: &mut [u64]) -> (f64, f64) {
    let t_star = rational(classes, items, 0.0);
    optimum_from(classes, items, t_star, counts)
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
/// `count` workers in turn).
///
/// # Errors
///
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for no workers, no items or
/// a speed that is not finite and > 0 (naming the class); a makespan beyond `f64`
/// ([`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput), naming it);
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short `counts`.
///
/// ```
/// use divload::partition::related::{solve, Class, Rounding, Scaled, Shape, Uniform};
/// let square = Uniform::<8>::new(Shape::Power(2.0), 1.0)?;
/// let classes = [Class { cost: Scaled { cost: &square, speed: 1.0 }, count: 1 },
///                Class { cost: Scaled { cost: &square, speed: 2.0 }, count: 1 }];
/// let mut counts = [0u64; 2];
/// let plan = solve(&classes, 4, Rounding::Cost, &mut counts)?;
/// assert_eq!((counts, plan.makespan), ([2, 2], 4.0));
/// let paper = solve(&classes, 4, Rounding::Paper, &mut counts)?;
/// assert_eq!((counts, paper.makespan, paper.lower_bound), ([1, 3], 4.5, 4.0)); // §2's table
/// # Ok::<(), divload::Error>(())
/// ```
pub fn solve<const M: usize>(
    classes: &[Class<Scaled<'_, M>>],
    items: u64,
    rounding: Rounding,
    counts: &mut [u64],
) -> Result<Plan, Error> {
    check_speeds(classes)?;
    check(classes, items, counts)?;
    let (t_int, t_star) = optimum(classes, items, counts);
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

/// Speeds finite and > 0.
pub(crate) fn check_speeds<const M: usize>(classes: &[Class<Scaled<'_, M>>]) -> Result<(), Error> {
    for (i, c) in classes.iter().enumerate() {
        if !(c.cost.speed.is_finite() && c.cost.speed > 0.0) {
            return Err(Error::entry_value("workers", i, "speed", "finite and > 0", c.cost.speed));
        }
    }
    Ok(())
}

/// Rounds real shares (one per class, clamped at 0) to an integer plan (§6, "approximation
/// plans in core"): floors, the leftover by the cost rule; when the floors exceed `N`, items
/// are taken back from the latest finishers. Writes `counts` (one per worker, as many as
/// the classes' counts add up to; the caller checks) and returns the makespan.
pub fn round_shares<C: CostFn<f64>>(
    classes: &[Class<C>],
    items: u64,
    share: &dyn Fn(usize) -> f64,
    counts: &mut [u64],
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
/// cost rule. Returns its makespan; `counts` is scratch.
pub fn speed_makespan<const M: usize>(
    classes: &[Class<Scaled<'_, M>>],
    items: u64,
    counts: &mut [u64],
) -> Result<f64, Error> {
    check_speeds(classes)?;
    check(classes, items, counts)?;
    let total: f64 = classes.iter().map(|c| c.count as f64 * c.cost.speed).sum();
    Ok(round_shares(
        classes,
        items,
        &|j| classes.get(j).map_or(0.0, |c| items as f64 * c.cost.speed / total),
        counts,
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
