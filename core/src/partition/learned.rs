//! A cost model learned from timings (cerin2006 §3.3; `docs/derivations/partition.md` §7):
//! at most `M` points `(items, seconds at speed 1, weight)`, strictly increasing in both
//! coordinates, fixed capacity, no allocation, no panic on any observation.
//!
//! * Before any point the model is the linear guess `C(n) = α·n` (the paper's batch 1);
//!   with one point `(s, y)` it is `y·n/s`.
//! * An observation of a size already in the model is combined with it (`Mean`: weighted
//!   mean, `Max`: the larger); a new size is inserted in order.
//! * Repair (`Mean`): pool adjacent violators, but *merge* each pooled block into one
//!   point at its weighted centroid, so the model stays strictly increasing and its inverse
//!   has no flat stretch that a plan could fill for free (§7, critique 1). `Max` raises each
//!   point to the running maximum (an upper envelope), merging equal values the same way.
//! * Over capacity, the adjacent pair closest in `ln n` merges into its centroid, which lies
//!   between them in both coordinates. Centroids round their size half up in integers and
//!   sum their times in order, so the model reproduces the reference bit for bit.
//! * Between points it interpolates linearly; below the first point as
//!   [`Tabulated`](crate::cost::Tabulated) (never under the origin's line); past the last
//!   point with slope `max(last segment, C_last/n_last)`, the paper's "ratio at least".

use crate::error::Error;
use crate::num::range::{AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::partition::related::{self, Chords, Class, Plan};
use crate::platform::cost::CostFn;

/// How observations of the same size, and points whose times decrease, are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    /// Weighted means: the least-squares monotone fit (PAVA), blocks merged into points.
    Mean,
    /// The running maximum: plans for the slow runs.
    Max,
}

/// One point of the model: `items`, seconds at speed 1, how many observations it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Items.
    pub items: u64,
    /// Seconds at speed 1 (`C`).
    pub seconds: f64,
    /// Observations merged into it.
    pub weight: u64,
}

/// A monotone piecewise-linear cost learned from observations, at most `M` points.
#[derive(Clone, Debug)]
pub struct Learned<const M: usize> {
    points: heapless::Vec<Point, M>,
    guess: f64,
    repair: Repair,
    observations: u64,
}

/// The weighted centroid of two points: size rounded half up in integers (in 128 bits,
/// so no product overflows), time the weighted mean summed in order.
fn centroid(a: Point, b: Point) -> Point {
    let w = a.weight.saturating_add(b.weight).max(1);
    // Sizes below 2⁶⁴ and weights below 2⁶² (one per observation) keep these sums within
    // 128 bits; saturation only guards against the impossible.
    let sum = (u128::from(a.items) * u128::from(a.weight))
        .saturating_add(u128::from(b.items) * u128::from(b.weight));
    let items = (sum.saturating_mul(2).saturating_add(u128::from(w)) / (2 * u128::from(w)).max(1)) as u64;
    let seconds = (a.seconds * a.weight as f64 + b.seconds * b.weight as f64) / w as f64;
    // The mean of two finite times may overflow in the sum: keep it between them.
    let seconds = if seconds.is_finite() { seconds } else { a.seconds.max(b.seconds) };
    Point { items, seconds, weight: w }
}

impl<const M: usize> Learned<M> {
    /// An empty model whose guess is `guess` seconds per item at speed 1.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for a guess that is not
    /// finite and > 0, or `M < 3` (two points at least, and a slot for the next one).
    pub fn new(guess: f64, repair: Repair) -> Result<Self, Error> {
        POSITIVE.parameter("learned model: guess", guess)?;
        if M < 3 {
            return Err(Error::parameter("learned model: capacity", "at least 3", M as f64));
        }
        Ok(Learned { points: heapless::Vec::new(), guess, repair, observations: 0 })
    }

    /// The points, by increasing size.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Observations taken.
    pub fn observations(&self) -> u64 {
        self.observations
    }

    /// Takes one timing: `items` took `seconds` at speed 1 (a worker of speed `k` that took
    /// `s` seconds gives `s·k`). `index` names the observation in errors. Keeps at most
    /// `capacity` points, at most `M − 1`: the last slot takes the new point before the
    /// repair and the merges (as the reference does).
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) naming
    /// `observations[index].items` (0) or `.seconds` (NaN, infinite, negative); the model is
    /// then unchanged.
    ///
    /// ```
    /// use divload::partition::learned::{Learned, Repair};
    /// let mut m = Learned::<5>::new(1.0, Repair::Mean)?;
    /// m.observe(100, 5.0, 0, 4)?;
    /// m.observe(200, 12.0, 1, 4)?;
    /// m.observe(150, 20.0, 2, 4)?; // slower than the 200-item run: pooled with it
    /// assert_eq!(m.points().len(), 2);
    /// assert_eq!((m.points()[1].items, m.points()[1].seconds), (175, 16.0));
    /// assert!(m.observe(0, 1.0, 3, 4).is_err());
    /// # Ok::<(), divload::Error>(())
    /// ```
    pub fn observe(&mut self, items: u64, seconds: f64, index: usize, capacity: usize) -> Result<(), Error> {
        if items == 0 {
            return Err(Error::entry_value("observations", index, "items", AT_LEAST_ONE.says, 0.0));
        }
        NON_NEGATIVE.entry("observations", index, "seconds", seconds)?;
        let capacity = capacity.clamp(2, M - 1);
        self.observations = self.observations.saturating_add(1);
        let pts = &mut self.points;
        let at = pts.iter().position(|p| p.items >= items);
        match at.and_then(|i| pts.get_mut(i)) {
            Some(p) if p.items == items => {
                let w = p.weight;
                p.seconds = match self.repair {
                    Repair::Max => p.seconds.max(seconds),
                    Repair::Mean => {
                        let m = (p.seconds * w as f64 + seconds) / (w as f64 + 1.0);
                        if m.is_finite() {
                            m
                        } else {
                            p.seconds + (seconds - p.seconds) / (w as f64 + 1.0)
                        }
                    }
                };
                p.weight = w.saturating_add(1);
            }
            _ => {
                // At most `M − 1` points are kept between observations, so there is room.
                let _ = pts.insert(at.unwrap_or(pts.len()), Point { items, seconds, weight: 1 });
            }
        }
        self.repaired();
        while self.points.len() > capacity {
            Self::merge_closest(&mut self.points);
        }
        Ok(())
    }

    /// Merges the adjacent pair closest in `ln n` (the first of equals).
    fn merge_closest(pts: &mut heapless::Vec<Point, M>) {
        let mut best: Option<(usize, f64)> = None;
        for (j, w) in pts.windows(2).enumerate() {
            let d = libm::log(w[1].items as f64 / w[0].items as f64);
            if best.is_none_or(|(_, b)| d < b) {
                best = Some((j, d));
            }
        }
        if let Some((j, _)) = best {
            if let (Some(&a), Some(&b)) = (pts.get(j), pts.get(j + 1)) {
                if let Some(slot) = pts.get_mut(j) {
                    *slot = centroid(a, b);
                }
                // `Vec::remove` has a panic path for an index out of range; this shift has none.
                for i in j + 1..pts.len().saturating_sub(1) {
                    if let Some(&next) = pts.get(i + 1) {
                        if let Some(slot) = pts.get_mut(i) {
                            *slot = next;
                        }
                    }
                }
                let _ = pts.pop();
            }
        }
    }

    /// Makes the points strictly increasing in time, merging violators (§7 repair).
    fn repaired(&mut self) {
        let src = core::mem::take(&mut self.points);
        let mut out: heapless::Vec<Point, M> = heapless::Vec::new();
        match self.repair {
            Repair::Mean => {
                for q in src {
                    let _ = out.push(q);
                    while out.len() > 1 {
                        let n = out.len();
                        let (Some(&a), Some(&b)) = (out.get(n - 2), out.get(n - 1)) else { break };
                        if a.seconds < b.seconds {
                            break;
                        }
                        out.truncate(n - 2);
                        let _ = out.push(centroid(a, b));
                    }
                }
            }
            Repair::Max => {
                let mut top = 0.0f64;
                for q in src {
                    top = top.max(q.seconds);
                    let raised = Point { seconds: top, ..q };
                    match out.last_mut() {
                        Some(last) if last.seconds >= top => {
                            let c = centroid(*last, raised);
                            *last = Point { seconds: top, ..c };
                        }
                        _ => {
                            let _ = out.push(raised);
                        }
                    }
                }
            }
        }
        self.points = out;
    }

    /// Seconds at speed 1 for `n` items.
    pub fn seconds(&self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let x = n as f64;
        let p = &self.points[..];
        let (Some(first), Some(last)) = (p.first(), p.last()) else { return self.guess * x };
        if p.len() == 1 {
            return first.seconds * x / first.items as f64;
        }
        let len = p.len();
        if n >= last.items {
            let Some(prev) = p.get(len - 2) else { return last.seconds };
            let slope = ((last.seconds - prev.seconds) / (last.items - prev.items) as f64)
                .max(last.seconds / last.items as f64);
            return last.seconds + (x - last.items as f64) * slope;
        }
        let i = p.partition_point(|q| q.items < n);
        if i == 0 {
            let Some(second) = p.get(1) else { return first.seconds };
            let (s0, y0, s1, y1) = (first.items as f64, first.seconds, second.items as f64, second.seconds);
            let y = y0 + (y1 - y0) * (x - s0) / (s1 - s0);
            return y.max(y0 * x / s0).min(y0);
        }
        let (Some(a), Some(b)) = (p.get(i - 1), p.get(i)) else { return last.seconds };
        let (s0, y0, s1, y1) = (a.items as f64, a.seconds, b.items as f64, b.seconds);
        (y0 + (y1 - y0) * (x - s0) / (s1 - s0)).max(y0).min(y1)
    }
}

/// A worker of speed `speed` under a learned model.
#[derive(Clone, Copy, Debug)]
pub struct LearnedAt<'a, const M: usize> {
    /// The model.
    pub model: &'a Learned<M>,
    /// The worker's speed.
    pub speed: f64,
}

impl<const M: usize> CostFn<f64> for LearnedAt<'_, M> {
    fn time(&self, items: u64) -> f64 {
        self.model.seconds(items) / self.speed
    }
    fn non_decreasing(&self) -> bool {
        true
    }
}

/// The next batch's plan from the model: the exact optimum for the model's cost (§7
/// `plan(N)`), written to `counts` (one per worker, classes in order); its makespan is the
/// model's prediction; `scratch` is working memory, one word per class.
///
/// # Errors
///
/// As [`related::solve`].
pub fn plan<const M: usize>(
    classes: &[Class<Chords<LearnedAt<'_, M>>>],
    items: u64,
    counts: &mut [u64],
    scratch: &mut [u64],
) -> Result<Plan, Error> {
    for (i, c) in classes.iter().enumerate() {
        POSITIVE.entry("workers", i, "speed", c.cost.0.speed)?;
    }
    related::check(classes, items, counts)?;
    related::check_scratch(classes, scratch)?;
    let (t, t_star) = related::optimum(classes, items, counts, scratch);
    if !t.is_finite() {
        return Err(Error::time_overflow("predicted makespan", "give observations in a larger unit"));
    }
    Ok(Plan { makespan: t, rational_makespan: t_star, lower_bound: t })
}
