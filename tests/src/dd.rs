//! Double-double arithmetic (Dekker 1971; Hida, Li and Bailey's QD library): a number as
//! the unevaluated sum of two `f64`, some 106 bits, for references the solvers' `f64`
//! cannot check themselves against (the partition's rational optimum, to 10⁻¹²).
//!
//! Sums and products are exact transformations (`two_sum`, `two_prod` by `mul_add`);
//! `exp` reduces by `ln 2` and by 2¹⁰ before its Taylor series, `ln` is a Newton step on
//! `exp`. Relative errors some 10⁻³⁰ (`exp` loses ten bits to its squarings), far below what
//! the tests need; none of it shares code with the core's `f64` kernels.

use std::cmp::Ordering;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// `hi + lo`, `|lo| ≤ ulp(hi)/2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dd {
    /// The leading part.
    pub hi: f64,
    /// The trailing part.
    pub lo: f64,
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// `ln 2` to 107 bits.
const LN_2: Dd = Dd { hi: std::f64::consts::LN_2, lo: 2.319_046_813_846_299_6e-17 };

impl Dd {
    /// Zero.
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };
    /// One.
    pub const ONE: Dd = Dd { hi: 1.0, lo: 0.0 };

    /// An `f64`, exactly.
    pub fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// An integer below 2¹⁰⁶, exactly.
    pub fn from_u64(n: u64) -> Dd {
        let hi = n as f64;
        // The rounding error of `as` is below 2¹¹ and exact in `f64`.
        let lo = (i128::from(n) - hi as i128) as f64;
        let (hi, lo) = quick_two_sum(hi, lo);
        Dd { hi, lo }
    }

    /// The nearest `f64`.
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }

    /// `self·2ᵏ`, exactly (no overflow or underflow in the tests' range).
    pub fn ldexp(self, k: i32) -> Dd {
        let s = 2f64.powi(k);
        Dd { hi: self.hi * s, lo: self.lo * s }
    }

    /// `|self|`.
    pub fn abs(self) -> Dd {
        if self.hi < 0.0 {
            -self
        } else {
            self
        }
    }

    /// `self/b` for an `f64` `b`: two quotient digits.
    pub fn div_f64(self, b: f64) -> Dd {
        let q1 = self.hi / b;
        let (p, e) = two_prod(q1, b);
        let (s, f) = two_sum(self.hi, -p);
        let q2 = (s + (f - e + self.lo)) / b;
        let (hi, lo) = quick_two_sum(q1, q2);
        Dd { hi, lo }
    }

    /// `e^self`, for `self` below 700 in magnitude.
    pub fn exp(self) -> Dd {
        assert!(self.hi.abs() < 700.0, "dd exp of {}", self.hi);
        let k = (self.hi / LN_2.hi).round();
        let r = (self - LN_2 * Dd::new(k)).ldexp(-10);
        // e^r − 1 by its series, |r| < 2⁻¹¹: ten terms leave 10⁻³⁸.
        let mut term = r;
        let mut sum = r;
        for i in 2..=10 {
            term = (term * r).div_f64(f64::from(i));
            sum = sum + term;
        }
        // (1 + s)² − 1 = s(2 + s), ten times, keeping the small part's digits.
        for _ in 0..10 {
            sum = sum * (sum + Dd::new(2.0));
        }
        (sum + Dd::ONE).ldexp(k as i32)
    }

    /// `ln self`, for `self > 0`: one Newton step `y + x·e^{−y} − 1` from `f64`'s `ln`
    /// (within an ulp, and the step is quadratic: its error is `δ²/2`).
    pub fn ln(self) -> Dd {
        assert!(self.hi > 0.0, "dd ln of {}", self.hi);
        let y = Dd::new(self.hi.ln());
        y + self * (-y).exp() - Dd::ONE
    }
}

impl Add for Dd {
    type Output = Dd;
    fn add(self, b: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, b.hi);
        let (t, f) = two_sum(self.lo, b.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        Dd { hi, lo }
    }
}

impl Neg for Dd {
    type Output = Dd;
    fn neg(self) -> Dd {
        Dd { hi: -self.hi, lo: -self.lo }
    }
}

impl Sub for Dd {
    type Output = Dd;
    fn sub(self, b: Dd) -> Dd {
        self + -b
    }
}

impl Mul for Dd {
    type Output = Dd;
    fn mul(self, b: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, b.hi);
        let (hi, lo) = quick_two_sum(p, e + (self.hi * b.lo + self.lo * b.hi));
        Dd { hi, lo }
    }
}

impl Div for Dd {
    type Output = Dd;
    fn div(self, b: Dd) -> Dd {
        // Three quotient digits, each from the remainder left by the ones before.
        let q1 = self.hi / b.hi;
        let r = self - b * Dd::new(q1);
        let q2 = r.hi / b.hi;
        let r = r - b * Dd::new(q2);
        let q3 = r.hi / b.hi;
        let (hi, lo) = quick_two_sum(q1, q2);
        Dd { hi, lo } + Dd::new(q3)
    }
}

impl PartialOrd for Dd {
    fn partial_cmp(&self, b: &Dd) -> Option<Ordering> {
        match self.hi.partial_cmp(&b.hi) {
            Some(Ordering::Equal) => self.lo.partial_cmp(&b.lo),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Identities that hold to 10⁻³⁰ whatever the implementation: `ln(e^x) = x`,
    /// `e^{a+b} = e^a·e^b`, `(a/b)·b = a`, and `e`, `ln 10` against their digits.
    #[test]
    fn identities() {
        let close = |a: Dd, b: Dd, rel: f64| (a - b).abs().to_f64() <= rel * b.abs().to_f64();
        let e = Dd::ONE.exp();
        // e = 2.71828182845904523536028747135266249…
        assert!(close(e, Dd { hi: std::f64::consts::E, lo: 1.445_646_891_729_250_2e-16 }, 1e-30), "{e:?}");
        // ln 10 = 2.30258509299404568401799145468436420…
        let l = Dd::new(10.0).ln();
        assert!(
            close(l, Dd { hi: std::f64::consts::LN_10, lo: -2.170_756_223_382_249_4e-16 }, 1e-30),
            "{l:?}"
        );
        let mut x = 0.37;
        for _ in 0..200 {
            let a = Dd::new(x) / Dd::new(3.0);
            assert!(close(a.exp().ln(), a, 1e-29), "{x}");
            assert!(close(a * Dd::new(3.0), Dd::new(x), 1e-31), "{x}");
            assert!(close(Dd::new(x).div_f64(3.0), a, 1e-31), "{x}");
            let b = Dd::new(x * 0.7);
            assert!(close((a + b).exp(), a.exp() * b.exp(), 1e-29), "{x}");
            x = (x * 1.7) % 600.0 - 1.3;
        }
        assert_eq!(Dd::from_u64(u64::MAX).hi, 2f64.powi(64));
        assert_eq!(Dd::from_u64(u64::MAX).lo, -1.0);
    }
}
