//! The rational sizes of a fixed sequence of installments: one linear program per horizon,
//! and Newton's method on the horizon (`docs/derivations/installments.md` §2).
//!
//! For a sequence of chunks `j = 0..K` (worker `w(j)` each, sent back to back from time 0)
//! and a horizon `T`, the most items the sequence finishes by `T` is the LP
//!
//! * maximise `Σ x_j` (+ the root's share `x_r`),
//! * one row per chunk `j`: the worker computes its chunks from `j` on after chunk `j` has
//!   arrived, `Σ_{i≤j} c_{w(i)} x_i + μ_w Σ_{i≥j, w(i)=w} x_i ≤ T − Σ_{i≤j} L_{w(i)} − m_j λ_w`
//!   (`m_j` those chunks' number),
//! * one row per worker with a release time `r_w > 0`: `μ_w Σ_{w(i)=w} x_i ≤ T − r_w − m λ_w`,
//! * the root's row: `μ_r x_r ≤ T − r_r − λ_r` (overlap), or after every chunk,
//!   `Σ_i c_{w(i)} x_i + μ_r x_r ≤ T − Σ_i L_{w(i)} − λ_r` (after send),
//! * `x_j ≤ B_{w(j)}` where a cap is below the item count.
//!
//! A worker's last chunk ends at the largest of its rows' left-hand sides (its compute start
//! is `max(arrival, previous end, r_w)`, unrolled), so these rows are exactly "every chunk
//! ends by `T`". Every row has the coefficient 1 on `T` except the caps, and every
//! coefficient of `x` is ≥ 0 with `μ > 0` on each column's own row, so the LP is bounded,
//! the origin is feasible once every right-hand side is ≥ 0, and its value `f(T)` is concave
//! in `T` with the sum of the rows' duals as a supergradient `g`. Newton from below,
//! `T ← T + (n − f(T))/g`, never passes the least `T` with `f(T) = n` (concavity) and stops
//! on it after finitely many steps (`f` is piecewise linear).
//!
//! The root's rows hold only when it computes something: with nothing to compute it pays no
//! `λ_r`. `f` is therefore the larger of two concave functions, the sequence with and
//! without the root's column, and each is solved on its own domain.

use crate::error::Error;
use crate::kernel::lp::{pow2_scale, tableau_len, Tableau};

/// One worker's costs as the planner reads them, in `f64`; the root's `l` and `c` are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Costs {
    pub l: f64,
    pub c: f64,
    pub lam: f64,
    pub mu: f64,
    /// Release time: computes nothing before.
    pub r: f64,
    /// Most items in one installment (`f64::INFINITY`: no cap).
    pub cap: f64,
}

/// Where the root's own share goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RootColumn {
    /// The root computes nothing.
    Absent,
    /// From its release time on, while it sends.
    Overlap,
    /// After the last chunk has left.
    AfterSend,
}

/// A fixed sequence: its chunks' workers, and how to read a worker's costs.
pub(super) struct Sequence<'a, F> {
    pub seq: &'a [usize],
    pub costs: F,
    pub root: Costs,
    pub root_column: RootColumn,
}

/// Newton steps at most; each reaches the next linear piece of `f` or the answer.
const MAX_NEWTON: usize = 64;
/// `f(T)` within this relative distance of `n` counts as `n`: the simplex's own accuracy
/// on these LPs (their values agree with exact rationals to ~1e-13 in the tests).
const NEWTON_TOL: f64 = 1e-11;

/// Rows of the LP over `k` chunks, with at most `k` release rows, the root's two rows and
/// every cap.
pub(super) const fn max_rows(k: usize) -> usize {
    3 * k + 3
}

/// `f64` of tableau for sequences of at most `k` chunks.
pub(super) const fn tableau_for(k: usize) -> Option<usize> {
    tableau_len(max_rows(k), k + 1)
}

impl<F: Fn(usize) -> Costs> Sequence<'_, F> {
    fn cost(&self, j: usize) -> Costs {
        self.seq.get(j).map_or(Costs::default(), |&w| (self.costs)(w))
    }

    fn worker(&self, j: usize) -> usize {
        self.seq.get(j).copied().unwrap_or(usize::MAX)
    }

    /// `true` when chunk `j` is the first of its worker.
    fn first_of_worker(&self, j: usize) -> bool {
        let w = self.worker(j);
        !self.seq.iter().take(j).any(|&v| v == w)
    }

    /// Chunks of chunk `j`'s worker from `j` on (`m_j`).
    fn later_same(&self, j: usize) -> usize {
        let w = self.worker(j);
        self.seq.iter().skip(j).filter(|&&v| v == w).count()
    }

    /// The least horizon at which every chunk row's right-hand side is ≥ 0 (latencies and
    /// release times alone), without the root's rows.
    pub fn least_horizon(&self) -> f64 {
        let mut sum_l = 0.0;
        let mut t = 0.0f64;
        for j in 0..self.seq.len() {
            let w = self.cost(j);
            sum_l += w.l;
            t = t.max(sum_l + self.later_same(j) as f64 * w.lam);
            if self.first_of_worker(j) && w.r > 0.0 {
                t = t.max(w.r + self.later_same(j) as f64 * w.lam);
            }
        }
        t
    }

    /// The least horizon at which the root's rows hold with its column present.
    fn root_horizon(&self) -> f64 {
        let sum_l: f64 = (0..self.seq.len()).map(|j| self.cost(j).l).sum();
        match self.root_column {
            RootColumn::Absent => 0.0,
            RootColumn::Overlap => self.root.r + self.root.lam,
            RootColumn::AfterSend => (sum_l + self.root.lam).max(self.root.r + self.root.lam),
        }
    }

    /// The LP at horizon `t`: its value `f(t)`, a supergradient, and the sizes in `x`
    /// (`x[K]` the root's share). `None` when a chunk row's right-hand side is negative.
    pub fn at(
        &self,
        t: f64,
        with_root: bool,
        tableau: &mut [f64],
        x: &mut [f64],
    ) -> Result<Option<(f64, f64)>, Error> {
        let k = self.seq.len();
        let root = with_root && self.root_column != RootColumn::Absent;
        let n_cols = k + 1;
        let root_col = k;
        let rows = self.rows(root);
        let mut lp = Tableau::new(rows, n_cols, tableau)?;
        lp.known_bounded();
        let mut row = 0;
        // Rows whose right-hand side moves with `t` (all but the caps), for `g`.
        let mut horizon_rows = 0;
        let mut sum_l = 0.0;
        for j in 0..k {
            let w = self.cost(j);
            sum_l += w.l;
            let m = self.later_same(j) as f64;
            let rhs = t - sum_l - m * w.lam;
            if rhs < 0.0 {
                return Ok(None);
            }
            for i in 0..=j {
                lp.set(row, i, self.cost(i).c * self.scale(i));
            }
            let wj = self.worker(j);
            for i in j..k {
                if self.worker(i) == wj {
                    let c = if i == j { w.c + w.mu } else { w.mu };
                    lp.set(row, i, c * self.scale(i));
                }
            }
            lp.set_rhs(row, rhs);
            row += 1;
        }
        horizon_rows += row;
        for j in 0..k {
            let w = self.cost(j);
            if !(self.first_of_worker(j) && w.r > 0.0) {
                continue;
            }
            let rhs = t - w.r - self.later_same(j) as f64 * w.lam;
            if rhs < 0.0 {
                return Ok(None);
            }
            let wj = self.worker(j);
            for i in j..k {
                if self.worker(i) == wj {
                    lp.set(row, i, w.mu * self.scale(i));
                }
            }
            lp.set_rhs(row, rhs);
            row += 1;
            horizon_rows += 1;
        }
        if root {
            let r = self.root;
            let rs = pow2_scale(r.mu);
            let own = t - r.r - r.lam;
            if own < 0.0 {
                return Ok(None);
            }
            lp.set(row, root_col, r.mu * rs);
            lp.set_rhs(row, own);
            row += 1;
            if self.root_column == RootColumn::AfterSend {
                let after = t - sum_l - r.lam;
                if after < 0.0 {
                    return Ok(None);
                }
                for i in 0..k {
                    lp.set(row, i, self.cost(i).c * self.scale(i));
                }
                lp.set(row, root_col, r.mu * rs);
                lp.set_rhs(row, after);
                row += 1;
            }
            horizon_rows = row;
            if r.cap.is_finite() {
                lp.set(row, root_col, rs);
                lp.set_rhs(row, r.cap);
                row += 1;
            }
            lp.set_objective(root_col, rs);
        }
        for j in 0..k {
            let w = self.cost(j);
            if w.cap.is_finite() {
                lp.set(row, j, self.scale(j));
                lp.set_rhs(row, w.cap);
                row += 1;
            }
            lp.set_objective(j, self.scale(j));
        }
        let value = lp.maximise()?;
        let g: f64 = (0..horizon_rows).map(|i| lp.dual(i).max(0.0)).sum();
        for j in 0..n_cols {
            if let Some(slot) = x.get_mut(j) {
                let s = if j == root_col { pow2_scale(self.root.mu) } else { self.scale(j) };
                *slot = if j == root_col && !root { 0.0 } else { (lp.value(j) * s).max(0.0) };
            }
        }
        Ok(Some((value, g)))
    }

    /// The LP's rows: one per chunk, per released worker, the root's, and the caps.
    fn rows(&self, root: bool) -> usize {
        let k = self.seq.len();
        let released = (0..k).filter(|&j| self.first_of_worker(j) && self.cost(j).r > 0.0).count();
        let capped = (0..k).filter(|&j| self.cost(j).cap.is_finite()).count();
        let root_rows = if root {
            1 + usize::from(self.root_column == RootColumn::AfterSend)
                + usize::from(self.root.cap.is_finite())
        } else {
            0
        };
        k + released + capped + root_rows
    }

    fn scale(&self, j: usize) -> f64 {
        let w = self.cost(j);
        pow2_scale(w.c + w.mu)
    }

    /// The least horizon at which the sequence finishes `n` items, with the sizes in `x`
    /// (they add up to `n`), or `None` when caps keep it below `n`.
    pub fn makespan(
        &self,
        n: f64,
        tableau: &mut [f64],
        x: &mut [f64],
        spare: &mut [f64],
    ) -> Result<Option<f64>, Error> {
        let mut best = self.newton(n, false, tableau, x)?;
        if self.root_column != RootColumn::Absent {
            if let Some(with) = self.newton(n, true, tableau, spare)? {
                if best.is_none_or(|b| with < b) {
                    best = Some(with);
                    for (a, &b) in x.iter_mut().zip(spare.iter()) {
                        *a = b;
                    }
                }
            }
        }
        if best.is_some() {
            let k = self.seq.len() + 1;
            let sum: f64 = x.iter().take(k).sum();
            if sum > 0.0 {
                for v in x.iter_mut().take(k) {
                    *v *= n / sum;
                }
            }
        }
        Ok(best)
    }

    fn newton(
        &self,
        n: f64,
        with_root: bool,
        tableau: &mut [f64],
        x: &mut [f64],
    ) -> Result<Option<f64>, Error> {
        let mut t = self.least_horizon();
        if with_root {
            t = t.max(self.root_horizon());
        }
        for _ in 0..MAX_NEWTON {
            let Some((v, g)) = self.at(t, with_root, tableau, x)? else {
                // Rounding put `t` a hair below the least horizon.
                t = crate::kernel::fp::next_up(t);
                continue;
            };
            if v >= n * (1.0 - NEWTON_TOL) {
                return Ok(Some(t));
            }
            if g.is_nan() || g <= 0.0 {
                return Ok(None);
            }
            let next = t + (n - v) / g;
            t = if next > t { next } else { crate::kernel::fp::next_up(t) };
            if !t.is_finite() {
                return Ok(None);
            }
        }
        // Not converged: the last horizon's sizes are feasible at it, but fewer than `n`;
        // a horizon twice as far is a safe answer only with more items, so give up.
        Ok(None)
    }

    /// The most items finished by `t`, with the sizes in `x` (the larger of the sequence
    /// with and without the root's column), or `None` when the latencies alone exceed `t`.
    pub fn most_items(
        &self,
        t: f64,
        tableau: &mut [f64],
        x: &mut [f64],
        spare: &mut [f64],
    ) -> Result<Option<f64>, Error> {
        let mut best = self.at(t, false, tableau, x)?.map(|(v, _)| v);
        if self.root_column != RootColumn::Absent {
            if let Some((with, _)) = self.at(t, true, tableau, spare)? {
                if best.is_none_or(|b| with > b) {
                    best = Some(with);
                    for (a, &b) in x.iter_mut().zip(spare.iter()) {
                        *a = b;
                    }
                }
            }
        }
        Ok(best)
    }
}
