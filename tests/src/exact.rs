//! Exact rationals for the tests: a simplex with Bland's rule that also returns the duals.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};

/// An exact rational.
pub type Q = BigRational;

/// The exact value of a finite `f64`.
pub fn qf(x: f64) -> Q {
    Q::from_float(x).expect("finite")
}

/// An integer as a rational.
pub fn qi(x: i64) -> Q {
    Q::from_integer(BigInt::from(x))
}

/// An LP's optimum: its value, the variables and the duals of the rows.
#[derive(Clone, Debug)]
pub struct Optimum {
    /// `c·x` at the optimum.
    pub value: Q,
    /// The primal solution.
    pub x: Vec<Q>,
    /// One dual per row (≥ 0), so `b·y = value`.
    pub y: Vec<Q>,
}

/// max `c·x` s.t. `A x ≤ b`, `x ≥ 0`, with `b ≥ 0`: exact, Bland's rule (no cycling).
/// Panics on an unbounded LP (the callers' LPs are bounded).
pub fn simplex_max(a: &[Vec<Q>], b: &[Q], c: &[Q]) -> Optimum {
    let (m, n) = (a.len(), c.len());
    assert!(b.iter().all(|v| !v.is_negative()), "the origin must be feasible");
    let mut t: Vec<Vec<Q>> = (0..m)
        .map(|i| {
            let mut row = a[i].clone();
            row.extend((0..m).map(|k| if k == i { Q::one() } else { Q::zero() }));
            row.push(b[i].clone());
            row
        })
        .collect();
    let mut z: Vec<Q> = c.iter().map(|v| -v.clone()).collect();
    z.extend((0..=m).map(|_| Q::zero()));
    let mut basis: Vec<usize> = (n..n + m).collect();
    while let Some(enter) = (0..n + m).find(|&j| z[j].is_negative()) {
        let mut best: Option<(Q, usize)> = None;
        for i in 0..m {
            if t[i][enter].is_positive() {
                let r = &t[i][n + m] / &t[i][enter];
                let better = match &best {
                    None => true,
                    Some((br, bi)) => r < *br || (r == *br && basis[i] < basis[*bi]),
                };
                if better {
                    best = Some((r, i));
                }
            }
        }
        let (_, piv) = best.expect("bounded");
        let pv = t[piv][enter].clone();
        for v in t[piv].iter_mut() {
            *v = &*v / &pv;
        }
        let prow = t[piv].clone();
        for (i, row) in t.iter_mut().enumerate() {
            if i != piv && !row[enter].is_zero() {
                let f = row[enter].clone();
                for (v, p) in row.iter_mut().zip(&prow) {
                    *v = &*v - &f * p;
                }
            }
        }
        let f = z[enter].clone();
        for (v, p) in z.iter_mut().zip(&prow) {
            *v = &*v - &f * p;
        }
        basis[piv] = enter;
    }
    let mut x = vec![Q::zero(); n];
    for (i, &bj) in basis.iter().enumerate() {
        if bj < n {
            x[bj] = t[i][n + m].clone();
        }
    }
    let y = (0..m).map(|i| z[n + i].clone()).collect();
    Optimum { value: z[n + m].clone(), x, y }
}
