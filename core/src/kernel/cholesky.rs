//! A dense Cholesky factorisation in place, for the Newton systems of interior-point
//! methods (the ring's barrier method, legrand2003 §6.2): a symmetric matrix kept as the
//! lower triangle of a row-major caller buffer, no pivoting (the systems are positive
//! definite by construction; a pivot that is not is reported, and the caller falls back),
//! no panic path.

/// Cholesky factor of the symmetric `n × n` matrix whose lower triangle `h` holds (row
/// major), in place; `false` when it is not numerically positive definite.
pub(crate) fn cholesky(h: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = h.get(j * n + j).copied().unwrap_or(0.0);
        for k in 0..j {
            let l = h.get(j * n + k).copied().unwrap_or(0.0);
            d -= l * l;
        }
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        let d = libm::sqrt(d);
        if let Some(x) = h.get_mut(j * n + j) {
            *x = d;
        }
        for i in j + 1..n {
            let (Some(ri), Some(rj)) = (h.get(i * n..i * n + j), h.get(j * n..j * n + j)) else {
                return false;
            };
            let dot: f64 = ri.iter().zip(rj).map(|(a, b)| a * b).sum();
            if let Some(x) = h.get_mut(i * n + j) {
                *x = (*x - dot) / d;
            }
        }
    }
    true
}

/// Solves `L Lᵀ s = b` with the factor of [`cholesky`], `b` in `s` on entry.
pub(crate) fn cholesky_solve(l: &[f64], n: usize, s: &mut [f64]) {
    for i in 0..n {
        let row = l.get(i * n..i * n + i).unwrap_or(&[]);
        let dot: f64 = row.iter().zip(s.iter()).map(|(a, b)| a * b).sum();
        let d = l.get(i * n + i).copied().unwrap_or(1.0);
        if let Some(x) = s.get_mut(i) {
            *x = (*x - dot) / d;
        }
    }
    for i in (0..n).rev() {
        let mut v = s.get(i).copied().unwrap_or(0.0);
        for k in i + 1..n {
            v -= l.get(k * n + i).copied().unwrap_or(0.0) * s.get(k).copied().unwrap_or(0.0);
        }
        if let Some(x) = s.get_mut(i) {
            *x = v / l.get(i * n + i).copied().unwrap_or(1.0);
        }
    }
}

/// Adds `v` to the lower triangle of the `n × n` matrix `h` at `(i, j)` or `(j, i)`.
pub(crate) fn add_sym(h: &mut [f64], n: usize, i: usize, j: usize, v: f64) {
    let (r, c) = if i >= j { (i, j) } else { (j, i) };
    if let Some(x) = h.get_mut(r * n + c) {
        *x += v;
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// `A = M Mᵀ + I` for a fixed `M` is positive definite; the solve must give back `x`
    /// from `A x`, and a matrix with a negative pivot must be refused.
    #[test]
    fn solves_a_positive_definite_system_and_refuses_an_indefinite_one() {
        const N: usize = 5;
        let m = |i: usize, j: usize| ((i * 7 + j * 3) % 5) as f64 - 2.0;
        let mut a = [0.0; N * N];
        for i in 0..N {
            for j in 0..=i {
                let v = (0..N).map(|k| m(i, k) * m(j, k)).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
                add_sym(&mut a, N, i, j, v);
            }
        }
        let full = |i: usize, j: usize| if i >= j { a[i * N + j] } else { a[j * N + i] };
        let x = [1.0, -2.0, 0.5, 3.0, -1.5];
        let mut s = [0.0; N];
        for (i, si) in s.iter_mut().enumerate() {
            *si = (0..N).map(|j| full(i, j) * x[j]).sum();
        }
        let mut l = a;
        assert!(cholesky(&mut l, N));
        cholesky_solve(&l, N, &mut s);
        for (i, (si, xi)) in s.iter().zip(x).enumerate() {
            assert!((si - xi).abs() < 1e-12, "{i}: {si} against {xi}");
        }
        let mut indefinite = [1.0, 0.0, 2.0, 1.0];
        assert!(!cholesky(&mut indefinite, 2));
    }
}
