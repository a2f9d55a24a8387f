//! A small dense simplex on caller memory: maximise `c·x` subject to `A·x ≤ b`, `x ≥ 0`,
//! with `b ≥ 0`, so the origin is a feasible basis and no phase 1 is needed. The return
//! messages model (slides "With return messages", programs (1)–(2)) solves one such LP per
//! scenario; every entry of its `A` is ≥ 0 and every diagonal entry is > 0, so its LPs are
//! bounded.
//!
//! The tableau holds `m` constraint rows and the objective row over `n` structural and `m`
//! slack columns plus the right-hand side, then the `m` basic column indices (stored as
//! exact small integers in `f64`, so one slice of one type is all the caller provides):
//! [`tableau_len`] elements. Pivots follow Bland's rule (lowest entering index, ties in the
//! ratio test to the lowest basic index), which cannot cycle in exact arithmetic;
//! degenerate pivots do occur in these LPs (redundant port rows, ties between workers).
//! In floating point tolerances decide what counts as negative, as a pivot or as a tie,
//! each relative to the magnitudes it is compared with (the objective, the entering
//! column), so the kernel does not depend on how callers scale; the iteration count is
//! also capped: running into the cap is an error, never a loop.

use crate::error::Error;

/// Reduced costs above `−EPS·c_max` (`c_max` the largest |objective coefficient|) count as
/// non-negative, and ratios within `EPS` (relative) as ties. 1e-12 is ~4500 ulps, far
/// above the rounding noise of the few hundred pivots a scenario LP takes.
const EPS: f64 = 1e-12;

/// A pivot candidate must exceed `PIVOT_TOL` times the largest |entry| of the entering
/// column. An entry that is zero in exact arithmetic comes out of a pivot as cancellation
/// noise of about `EPS` times the column's entries; a degenerate row (right-hand side 0)
/// holding such an entry wins the ratio test with ratio 0, and pivoting on it multiplies
/// the tableau's rounding errors by ~1/`EPS`, until a bounded LP looks unbounded. A
/// tolerance relative to the column is scale-free, unlike an absolute one, and 1e-9 is
/// three orders above that noise and below the genuine entries of well-scaled columns.
const PIVOT_TOL: f64 = 1e-9;

/// `2^-⌊log₂ x⌋` for `x > 0` (exponents clamped to ±1000): a column scale that puts the
/// column's diagonal entry in [1, 2) and changes no digit, so the simplex's tolerances are
/// relative to each column's own magnitude.
pub(crate) fn pow2_scale(x: f64) -> f64 {
    let e = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let e = e.clamp(-1000, 1000);
    f64::from_bits(((1023 - e) as u64) << 52)
}

/// Number of `f64` the tableau of an LP with `rows` constraints and `cols` structural
/// variables needs: `(rows + 1)·(cols + rows + 1) + rows`, or `None` on overflow.
pub const fn tableau_len(rows: usize, cols: usize) -> Option<usize> {
    let Some(width) = cols.checked_add(rows) else { return None };
    let Some(width) = width.checked_add(1) else { return None };
    let Some(height) = rows.checked_add(1) else { return None };
    let Some(cells) = height.checked_mul(width) else { return None };
    cells.checked_add(rows)
}

/// The iteration cap for an LP of this shape: Bland's rule in practice needs a small
/// multiple of `rows + cols` pivots.
pub const fn max_iterations(rows: usize, cols: usize) -> usize {
    50 * (rows + cols) + 100
}

/// A dense tableau over a caller slice.
#[derive(Debug)]
pub struct Tableau<'a> {
    rows: usize,
    cols: usize,
    width: usize,
    bounded: bool,
    t: &'a mut [f64],
}

impl<'a> Tableau<'a> {
    /// An LP with `rows` constraints and `cols` variables, all coefficients 0, right-hand
    /// sides 0, the slack basis.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `buf` is shorter
    /// than [`tableau_len`].
    pub fn new(rows: usize, cols: usize, buf: &'a mut [f64]) -> Result<Self, Error> {
        let need =
            tableau_len(rows, cols).ok_or(Error::too_large("LP tableau", usize::MAX as u64, u64::MAX))?;
        let got = buf.len();
        let Some(t) = buf.get_mut(..need) else {
            return Err(Error::buffer("LP tableau", need, got));
        };
        let mut tableau = Tableau { rows, cols, width: cols + rows + 1, bounded: false, t };
        tableau.clear();
        Ok(tableau)
    }

    /// All coefficients 0, right-hand sides 0, the slack basis.
    fn clear(&mut self) {
        let (rows, cols) = (self.rows, self.cols);
        self.t.fill(0.0);
        for i in 0..rows {
            self.put(i, cols + i, 1.0);
            self.put(rows + 1, i, (cols + i) as f64);
        }
    }

    /// Entry `(i, j)` of the flat tableau (row `rows + 1` holds the basis). [`Tableau::new`]
    /// sized the slice for every `(i, j)` the simplex reads, so the fallback never occurs.
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.t.get(i * self.width + j).copied().unwrap_or(0.0)
    }

    /// Sets entry `(i, j)` (see [`Tableau::at`]).
    #[inline(always)]
    fn put(&mut self, i: usize, j: usize, v: f64) {
        if let Some(x) = self.t.get_mut(i * self.width + j) {
            *x = v;
        }
    }

    /// Computes the tableau of the current basis afresh: `fill` sets `A`, `b` and `c`
    /// again (as after [`Tableau::new`]), then the structural columns that were basic are
    /// pivoted back in by Gauss–Jordan elimination with partial pivoting (the largest
    /// entry among the rows still holding a slack). After many pivots the tableau carries
    /// their accumulated rounding; from the data, the basis costs one elimination's
    /// rounding only, and [`Tableau::maximise`] may go on from there. `saved` holds the
    /// basis meanwhile (at least `rows` elements; a shorter one keeps fewer columns).
    pub fn refactor(&mut self, saved: &mut [usize], fill: impl FnOnce(&mut Self)) {
        let (m, cols) = (self.rows, self.cols);
        let n = m.min(saved.len());
        for (i, s) in saved.iter_mut().enumerate().take(n) {
            *s = self.basis(i);
        }
        self.clear();
        fill(self);
        for &j in saved.iter().take(n) {
            if j >= cols {
                continue;
            }
            let mut best: Option<(usize, f64)> = None;
            for i in (0..m).filter(|&i| self.basis(i) >= cols) {
                let a = self.at(i, j).abs();
                if a > best.map_or(0.0, |(_, v)| v) {
                    best = Some((i, a));
                }
            }
            // A column that elimination finds dependent on the others stays out.
            if let Some((i, _)) = best {
                self.eliminate(i, j);
            }
        }
        self.clamp_rhs();
    }

    /// Declares the LP bounded (a fact the caller has proven, e.g. every column has a
    /// positive entry in a row of non-negative entries): a column whose reduced cost is
    /// negative but which has no pivot is then priced out as rounding noise instead of
    /// being reported as an unbounded ray.
    pub fn known_bounded(&mut self) {
        self.bounded = true;
    }

    /// Sets `A[row][col]` (ignored outside the shape).
    pub fn set(&mut self, row: usize, col: usize, v: f64) {
        if row < self.rows && col < self.cols {
            self.put(row, col, v);
        }
    }

    /// Sets `b[row]` (must be ≥ 0; ignored outside the shape).
    pub fn set_rhs(&mut self, row: usize, v: f64) {
        if row < self.rows {
            self.put(row, self.width - 1, v);
        }
    }

    /// Sets the objective coefficient `c[col]` (ignored outside the shape).
    pub fn set_objective(&mut self, col: usize, v: f64) {
        if col < self.cols {
            self.put(self.rows, col, -v);
        }
    }

    fn basis(&self, i: usize) -> usize {
        self.at(self.rows + 1, i) as usize
    }

    /// Runs the simplex to optimality and returns the optimum `c·x`.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) when the LP is unbounded
    /// (unless [`Tableau::known_bounded`]) or the iteration cap ([`max_iterations`]) is
    /// reached.
    pub fn maximise(&mut self) -> Result<f64, Error> {
        let (m, w) = (self.rows, self.width);
        let obj = m * w;
        let cap = max_iterations(m, self.cols);
        let objective = self.t.get(obj..obj + w - 1).unwrap_or_default();
        let c_max = objective.iter().fold(0.0f64, |c, &v| c.max(v.abs()));
        let cost_tol = EPS * c_max;
        for _ in 0..cap {
            // Bland: the lowest column with a negative reduced cost and a pivot enters.
            let mut step = None;
            for enter in (0..w - 1).filter(|&j| self.at(m, j) < -cost_tol) {
                let col_max = (0..m).fold(0.0f64, |c, i| c.max(self.at(i, enter).abs()));
                if let Some(piv) = self.ratio_test(enter, PIVOT_TOL * col_max) {
                    step = Some((piv, enter));
                    break;
                }
                if !self.bounded {
                    return Err(Error::parameter("linear program", "bounded", f64::INFINITY));
                }
                // A bounded LP has no improving ray: this reduced cost is rounding noise
                // of a zero one (costs spanning many decades), so the column is priced out.
            }
            let Some((piv, enter)) = step else {
                return Ok(self.at(m, w - 1));
            };
            self.pivot(piv, enter);
        }
        Err(Error::lp_iterations(cap))
    }

    /// The leaving row for column `enter` among entries above `tol`: the smallest ratio,
    /// ties (within `EPS`) to the lowest basic index.
    fn ratio_test(&self, enter: usize, tol: f64) -> Option<usize> {
        let (m, w) = (self.rows, self.width);
        let mut leave: Option<(usize, f64)> = None;
        for i in 0..m {
            let a = self.at(i, enter);
            if a <= tol {
                continue;
            }
            let ratio = self.at(i, w - 1) / a;
            leave = match leave {
                None => Some((i, ratio)),
                Some((l, best)) => {
                    let tie = (ratio - best).abs() <= EPS * best.abs().max(1.0);
                    if (tie && self.basis(i) < self.basis(l)) || (!tie && ratio < best) {
                        Some((i, ratio))
                    } else {
                        Some((l, best))
                    }
                }
            };
        }
        leave.map(|(i, _)| i)
    }

    fn pivot(&mut self, piv: usize, enter: usize) {
        self.eliminate(piv, enter);
        self.clamp_rhs();
    }

    /// A right-hand side that rounding pushed below zero is a zero (degenerate) one.
    fn clamp_rhs(&mut self) {
        let w = self.width;
        for i in 0..self.rows {
            if let Some(b) = self.t.get_mut(i * w + w - 1) {
                if *b < 0.0 {
                    *b = 0.0;
                }
            }
        }
    }

    /// Makes column `enter` the unit vector of row `piv` (which must hold a non-zero entry
    /// there) by row operations, and records it as row `piv`'s basic column.
    fn eliminate(&mut self, piv: usize, enter: usize) {
        let (m, w) = (self.rows, self.width);
        self.put(m + 1, piv, enter as f64);
        // The rows 0..=m as slices: the pivot row apart from the others, so the inner loops
        // run over whole rows without an index.
        let rows = self.t.get_mut(..(m + 1) * w).unwrap_or_default();
        let Some((above, rest)) = rows.split_at_mut_checked(piv * w) else { return };
        let Some((row, below)) = rest.split_at_mut_checked(w) else { return };
        let pv = row.get(enter).copied().unwrap_or(1.0);
        for x in row.iter_mut() {
            *x /= pv;
        }
        if let Some(x) = row.get_mut(enter) {
            *x = 1.0;
        }
        let row = &*row;
        for other in above.chunks_exact_mut(w.max(1)).chain(below.chunks_exact_mut(w.max(1))) {
            let Some(&f) = other.get(enter) else { continue };
            if f == 0.0 {
                continue;
            }
            for (x, &p) in other.iter_mut().zip(row) {
                *x -= f * p;
            }
            if let Some(x) = other.get_mut(enter) {
                *x = 0.0;
            }
        }
    }

    /// The dual value of constraint `row` at the current basis: the reduced cost of its
    /// slack. At an optimum `y ≥ 0` and `Aᵀy ≥ c` up to rounding, so `b·y`, after scaling
    /// `y` until every column is covered, bounds the optimum from above.
    pub fn dual(&self, row: usize) -> f64 {
        if row < self.rows {
            self.at(self.rows, self.cols + row)
        } else {
            0.0
        }
    }

    /// The value of variable `col` at the current basis (after [`Tableau::maximise`]):
    /// its right-hand side if basic, else 0.
    pub fn value(&self, col: usize) -> f64 {
        let w = self.width;
        (0..self.rows).find(|&i| self.basis(i) == col).map_or(0.0, |i| self.at(i, w - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(a: &[&[f64]], b: &[f64], c: &[f64]) -> (f64, std::vec::Vec<f64>) {
        let (m, n) = (a.len(), c.len());
        let mut buf = std::vec![0.0; tableau_len(m, n).unwrap()];
        let mut t = Tableau::new(m, n, &mut buf).unwrap();
        for (i, row) in a.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                t.set(i, j, v);
            }
            t.set_rhs(i, b[i]);
        }
        for (j, &v) in c.iter().enumerate() {
            t.set_objective(j, v);
        }
        let z = t.maximise().unwrap();
        (z, (0..n).map(|j| t.value(j)).collect())
    }

    #[test]
    fn textbook_lp() {
        // max 3x + 5y, x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: optimum 36 at (2, 6).
        let (z, x) = solve(&[&[1.0, 0.0], &[0.0, 2.0], &[3.0, 2.0]], &[4.0, 12.0, 18.0], &[3.0, 5.0]);
        assert!((z - 36.0).abs() < 1e-12);
        assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 6.0).abs() < 1e-12);
    }

    #[test]
    fn duals_and_refactoring() {
        // The textbook LP's duals are (0, 3/2, 1) (b·y = 36); computed afresh from the
        // data, its optimal basis gives the same optimum and nothing left to improve.
        let fill = |t: &mut Tableau<'_>| {
            for (i, row) in [[1.0, 0.0], [0.0, 2.0], [3.0, 2.0]].iter().enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    t.set(i, j, v);
                }
            }
            for (i, b) in [4.0, 12.0, 18.0].into_iter().enumerate() {
                t.set_rhs(i, b);
            }
            t.set_objective(0, 3.0);
            t.set_objective(1, 5.0);
        };
        let mut buf = std::vec![0.0; tableau_len(3, 2).unwrap()];
        let mut t = Tableau::new(3, 2, &mut buf).unwrap();
        fill(&mut t);
        assert!((t.maximise().unwrap() - 36.0).abs() < 1e-12);
        let y = [t.dual(0), t.dual(1), t.dual(2)];
        assert!(y[0].abs() < 1e-12 && (y[1] - 1.5).abs() < 1e-12 && (y[2] - 1.0).abs() < 1e-12, "{y:?}");
        assert_eq!(t.dual(3), 0.0);
        let mut saved = [0usize; 3];
        t.refactor(&mut saved, fill);
        assert!((t.value(0) - 2.0).abs() < 1e-12 && (t.value(1) - 6.0).abs() < 1e-12);
        assert!((t.maximise().unwrap() - 36.0).abs() < 1e-12);
    }

    #[test]
    fn a_noise_column_of_a_bounded_lp_is_priced_out() {
        // Column 1 has a negative reduced cost and no positive entry: an unbounded ray,
        // unless the caller has proven the LP bounded, which makes the column noise.
        let mut buf = [0.0; 16];
        let mut t = Tableau::new(1, 2, &mut buf).unwrap();
        t.set(0, 0, 1.0);
        t.set(0, 1, -1e-17);
        t.set_rhs(0, 1.0);
        t.set_objective(0, 1.0);
        t.set_objective(1, 0.5);
        assert!(t.maximise().is_err());
        let mut t = Tableau::new(1, 2, &mut buf).unwrap();
        t.known_bounded();
        t.set(0, 0, 1.0);
        t.set(0, 1, -1e-17);
        t.set_rhs(0, 1.0);
        t.set_objective(0, 1.0);
        t.set_objective(1, 0.5);
        assert!((t.maximise().unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_lp_terminates() {
        // Beale's cycling example (cycles under Dantzig's rule, not under Bland's):
        // max 0.75x4 − 20x5 + 0.5x6 − 6x7: optimum 5/4 at x4 = x6 = 1 (exact rationals).
        let a: [&[f64]; 3] = [&[0.25, -8.0, -1.0, 9.0], &[0.5, -12.0, -0.5, 3.0], &[0.0, 0.0, 1.0, 0.0]];
        let (z, x) = solve(&a, &[0.0, 0.0, 1.0], &[0.75, -20.0, 0.5, -6.0]);
        assert!((z - 1.25).abs() < 1e-12, "{z}");
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[2] - 1.0).abs() < 1e-12 && x[1] == 0.0 && x[3] == 0.0);
    }

    #[test]
    fn redundant_rows_and_zero_rhs() {
        // Two identical rows and a zero right-hand side: degenerate pivots.
        let (z, _) = solve(&[&[1.0, 1.0], &[1.0, 1.0], &[1.0, 0.0]], &[1.0, 1.0, 0.0], &[1.0, 2.0]);
        assert!((z - 2.0).abs() < 1e-12);
    }

    #[test]
    fn unbounded_and_short_buffers_are_errors() {
        let mut buf = [0.0; 16];
        let mut t = Tableau::new(1, 2, &mut buf).unwrap();
        t.set(0, 0, 1.0);
        t.set_rhs(0, 1.0);
        t.set_objective(1, 1.0);
        assert!(t.maximise().is_err());
        let mut small = [0.0; 3];
        assert_eq!(Tableau::new(1, 2, &mut small).unwrap_err().needed(), Some(9));
        assert_eq!(tableau_len(2, 3), Some(3 * 6 + 2));
        assert_eq!(tableau_len(usize::MAX, 1), None);
    }
}
