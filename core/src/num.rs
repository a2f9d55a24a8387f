//! One numeric trait for the solvers: `f64`, `f32` and the fixed-point [`Q32`].
//!
//! Every solver in this crate is written once against [`Real`]. Hosts use `f64`; a
//! microcontroller with an FPU uses `f32`; a controller without one (Cortex-M0,
//! `thumbv6m-none-eabi`) uses [`Q32`], a Q32.32 fixed-point number from the `fixed` crate
//! whose arithmetic saturates instead of panicking or wrapping.
//!
//! Accuracy of each type against `f64` is measured by the tests in `tests/numeric.rs` and
//! stated in the crate documentation.

use core::cmp::Ordering;
use core::fmt;
use core::ops::{Add, Div, Mul, Sub};

use fixed::types::I32F32;

pub(crate) mod sealed {
    use core::ops::{Div, Mul};

    /// Keeps [`Real`](super::Real) closed, and holds what only the crate calls.
    pub trait Sealed: Copy + Mul<Output = Self> + Div<Output = Self> {
        /// `self · rhs`, bit for bit; for `f64`, fast where `self` is subnormal
        /// ([`mul_subnormal`](super::mul_subnormal)).
        #[inline]
        fn tiny_mul(self, rhs: Self) -> Self {
            self * rhs
        }
        /// `self / rhs`, bit for bit; for `f64`, fast where `self` is subnormal.
        #[inline]
        fn tiny_div(self, rhs: Self) -> Self {
            self / rhs
        }
    }
    impl Sealed for f64 {
        #[inline]
        fn tiny_mul(self, rhs: f64) -> f64 {
            super::mul_subnormal(self, rhs)
        }
        #[inline]
        fn tiny_div(self, rhs: f64) -> f64 {
            super::div_subnormal(self, rhs)
        }
    }
    impl Sealed for f32 {}
    impl Sealed for super::Q32 {}
}

/// 2⁵²: below it, `(x + 2⁵²) − 2⁵²` rounds `x ≥ 0` to the nearest integer, ties to even.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// The multiple of 2⁻¹⁰⁷⁴ nearest to `x·2⁻¹⁰⁷⁴`, from `q = fl(x)`, where `x` is the product
/// or quotient of a subnormal's significand computed in normal range: `q = fl(x)` and `x` round to
/// the same integer unless `q` is a half-integer (rounding is monotone and, below 2⁵²,
/// every half-integer is an `f64`), and every multiple of 2⁻¹⁰⁷⁴ below 2⁻¹⁰²¹ is the
/// `f64` whose bits are that multiple. Otherwise `None`.
#[inline]
fn subnormal_multiple(q: f64) -> Option<f64> {
    if !(0.0..TWO_52).contains(&q) {
        return None;
    }
    let r = (q + TWO_52) - TWO_52;
    ((r - q).abs() != 0.5).then(|| f64::from_bits(r as u64))
}

/// The significand `m` of a positive subnormal `a = m·2⁻¹⁰⁷⁴`, when `b` is positive and
/// finite.
#[inline]
fn subnormal_significand(a: f64, b: f64) -> Option<f64> {
    let m = a.to_bits();
    (m.wrapping_sub(1) < (1 << 52) - 1 && b > 0.0 && b <= f64::MAX).then_some(m as f64)
}

/// `a · b`, bit for bit, without the FPU's slow path when `a` is subnormal.
///
/// An operation on a subnormal operand takes a microcode assist on x86 (about 16× a normal
/// one on the Xeon of BENCHMARKS.md), and the return-message recursions at 10⁶ workers run
/// on subnormals for most positions (issue 12). In the subnormal range the correctly
/// rounded result is `RNE(m·b)·2⁻¹⁰⁷⁴`, computed here in normal range; the rare inputs
/// where that would round twice (a half-integer `fl(m·b)`) take the plain operation.
#[inline]
pub(crate) fn mul_subnormal(a: f64, b: f64) -> f64 {
    subnormal_significand(a, b).and_then(|m| subnormal_multiple(m * b)).unwrap_or(a * b)
}

/// `a / b`, bit for bit, without the FPU's slow path when `a` is subnormal (see
/// [`mul_subnormal`]).
#[inline]
pub(crate) fn div_subnormal(a: f64, b: f64) -> f64 {
    subnormal_significand(a, b).and_then(|m| subnormal_multiple(m / b)).unwrap_or(a / b)
}

/// A xorshift generator for the crate's unit tests (reproducible, no dependency).
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// A number type the solvers can compute with.
///
/// Implemented for `f64`, `f32` and [`Q32`]; sealed, because the solvers rely on each
/// implementation never panicking (fixed-point overflow saturates, division by zero
/// saturates) and on [`Real::MAX_ITEMS`] being honest.
pub trait Real:
    sealed::Sealed
    + Copy
    + PartialOrd
    + fmt::Debug
    + fmt::Display
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// The largest item count this type can plan: beyond it, shares can no longer be told
    /// apart to within one item (`f32`: 2²⁴, `f64`: 2⁵³, `Q32`: 2³¹ − 1).
    const MAX_ITEMS: u64;
    /// Short name used in error messages (`"f64"`, `"f32"`, `"Q32"`).
    const NAME: &'static str;
    /// A value above every finite one, for which `is_finite()` is `false` (`Q32`: its
    /// saturated maximum).
    const INFINITY: Self;
    /// Largest relative error of one correctly rounded operation (unit roundoff: 2⁻⁵³ for
    /// `f64`, 2⁻²⁴ for `f32`; 0 for `Q32`, whose error is absolute). Bounds use it to stay
    /// bounds when compared with values computed in this type (`kernel::fp`).
    const ROUNDOFF: f64;
    /// Largest absolute error of one operation beyond [`Real::ROUNDOFF`]: the spacing near
    /// zero (subnormals for floats, 2⁻³² for `Q32`).
    const QUANTUM: f64;

    /// Converts from `f64`; `None` for NaN, infinities, and values this type cannot hold.
    fn from_f64(x: f64) -> Option<Self>;
    /// The largest value of this type not above `x` (saturating; NaN gives zero).
    fn from_f64_below(x: f64) -> Self;
    /// The smallest value of this type not below `x` (saturating to [`Real::INFINITY`];
    /// NaN gives [`Real::INFINITY`]).
    fn from_f64_above(x: f64) -> Self;
    /// Converts to `f64` (exact for all three implementations).
    fn to_f64(self) -> f64;
    /// Converts an item count; callers keep `n <= MAX_ITEMS` (larger values saturate).
    fn from_u64(n: u64) -> Self;
    /// Largest integer not above `self`, clamped to `0..=u64::MAX`.
    fn floor_u64(self) -> u64;
    /// `false` for NaN, infinities, and saturated fixed-point values (overflow).
    fn is_finite(self) -> bool;
    /// The value's bits in one 64-bit word, for working memory kept as words
    /// (`kernel::columns`); [`Real::from_word`] gives the value back exactly.
    fn to_word(self) -> u64;
    /// The value whose [`Real::to_word`] is `w`.
    fn from_word(w: u64) -> Self;
    /// A sort key for values `≥ 0`: `a < b` exactly when `a.sort_key() < b.sort_key()`,
    /// equal values (−0 and +0 too) have equal keys. Radix sorts use it in place of
    /// comparisons.
    fn sort_key(self) -> u64;
    /// The value `≥ 0` whose [`Real::sort_key`] is `k` (+0 for a key of −0).
    fn from_sort_key(k: u64) -> Self;

    /// The larger of two values (either if they are unordered).
    #[inline]
    fn max_of(self, other: Self) -> Self {
        if other > self {
            other
        } else {
            self
        }
    }

    /// The smaller of two values (either if they are unordered).
    #[inline]
    fn min_of(self, other: Self) -> Self {
        if other < self {
            other
        } else {
            self
        }
    }

    /// Total order for sorting; unordered values (NaN) compare equal.
    #[inline]
    fn cmp_total(self, other: Self) -> Ordering {
        self.partial_cmp(&other).unwrap_or(Ordering::Equal)
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const MAX_ITEMS: u64 = 1 << 53;
    const NAME: &'static str = "f64";
    const INFINITY: Self = f64::INFINITY;
    const ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0;
    const QUANTUM: f64 = f64::MIN_POSITIVE * f64::EPSILON;

    #[inline]
    fn from_f64_below(x: f64) -> Self {
        if x.is_nan() {
            0.0
        } else {
            x
        }
    }
    #[inline]
    fn from_f64_above(x: f64) -> Self {
        if x.is_nan() {
            f64::INFINITY
        } else {
            x
        }
    }

    #[inline]
    fn from_f64(x: f64) -> Option<Self> {
        x.is_finite().then_some(x)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_u64(n: u64) -> Self {
        n as f64
    }
    #[inline]
    fn floor_u64(self) -> u64 {
        // `as` truncates and saturates: NaN -> 0, negative -> 0, too large -> u64::MAX;
        // for the values it keeps, truncation is the floor.
        self as u64
    }
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    #[inline]
    fn from_word(w: u64) -> Self {
        f64::from_bits(w)
    }
    #[inline]
    fn sort_key(self) -> u64 {
        // The bits of a non-negative float grow with its value; adding +0 turns −0 into +0.
        (self + 0.0).to_bits()
    }
    #[inline]
    fn from_sort_key(k: u64) -> Self {
        f64::from_bits(k)
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const MAX_ITEMS: u64 = 1 << 24;
    const NAME: &'static str = "f32";
    const INFINITY: Self = f32::INFINITY;
    const ROUNDOFF: f64 = 1.0 / 16_777_216.0;
    const QUANTUM: f64 = (f32::MIN_POSITIVE * f32::EPSILON) as f64;

    fn from_f64_below(x: f64) -> Self {
        if x.is_nan() {
            return 0.0;
        }
        let y = x as f32;
        if f64::from(y) > x {
            f32_step(y, false)
        } else {
            y
        }
    }
    fn from_f64_above(x: f64) -> Self {
        if x.is_nan() {
            return f32::INFINITY;
        }
        let y = x as f32;
        if f64::from(y) < x {
            f32_step(y, true)
        } else {
            y
        }
    }

    #[inline]
    fn from_f64(x: f64) -> Option<Self> {
        let y = x as f32;
        (x.is_finite() && y.is_finite()).then_some(y)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    fn from_u64(n: u64) -> Self {
        n as f32
    }
    #[inline]
    fn floor_u64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline]
    fn to_word(self) -> u64 {
        u64::from(self.to_bits())
    }
    #[inline]
    fn from_word(w: u64) -> Self {
        // Words come from `to_word`, so the high half is zero.
        f32::from_bits(w as u32)
    }
    #[inline]
    fn sort_key(self) -> u64 {
        u64::from((self + 0.0).to_bits())
    }
    #[inline]
    fn from_sort_key(k: u64) -> Self {
        f32::from_bits(k as u32)
    }
}

/// The neighbour of a finite `f32` towards +∞ (`up`) or −∞; infinities stay.
fn f32_step(y: f32, up: bool) -> f32 {
    if !y.is_finite() {
        return y;
    }
    if y == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = y.to_bits();
    // Away from zero means a larger magnitude: one more in the bit pattern.
    if (y > 0.0) == up {
        f32::from_bits(bits + 1)
    } else {
        f32::from_bits(bits - 1)
    }
}

/// A Q32.32 fixed-point number (`fixed::types::I32F32`) with saturating arithmetic.
///
/// Range ±2.1·10⁹, resolution 2.3·10⁻¹⁰. Made for controllers without an FPU: every
/// operation is integer arithmetic. Overflow saturates at the range limits, division by
/// zero saturates too, and a saturated value reports `is_finite() == false`, so a solver
/// that overflowed returns an error instead of a wrong plan.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Q32(pub I32F32);

impl Q32 {
    /// Wraps a raw `I32F32`.
    #[inline]
    pub const fn new(x: I32F32) -> Self {
        Q32(x)
    }
    /// The wrapped `I32F32`.
    #[inline]
    pub const fn get(self) -> I32F32 {
        self.0
    }
}

impl fmt::Debug for Q32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Q32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Add for Q32 {
    type Output = Q32;
    #[inline]
    fn add(self, o: Q32) -> Q32 {
        Q32(self.0.saturating_add(o.0))
    }
}

impl Sub for Q32 {
    type Output = Q32;
    #[inline]
    fn sub(self, o: Q32) -> Q32 {
        Q32(self.0.saturating_sub(o.0))
    }
}

impl Mul for Q32 {
    type Output = Q32;
    #[inline]
    fn mul(self, o: Q32) -> Q32 {
        Q32(self.0.saturating_mul(o.0))
    }
}

impl Div for Q32 {
    type Output = Q32;
    #[inline]
    fn div(self, o: Q32) -> Q32 {
        if o.0 == I32F32::ZERO {
            return if self.0 < I32F32::ZERO { Q32(I32F32::MIN) } else { Q32(I32F32::MAX) };
        }
        // `checked_div` is `None` only on overflow here (the divisor is not zero).
        match self.0.checked_div(o.0) {
            Some(q) => Q32(q),
            None if (self.0 < I32F32::ZERO) == (o.0 < I32F32::ZERO) => Q32(I32F32::MAX),
            None => Q32(I32F32::MIN),
        }
    }
}

/// `x` in Q32.32 rounded toward zero, saturating (NaN gives 0). `fixed`'s own saturating
/// conversion panics on NaN, and that panic path stays in the code even where NaN was
/// ruled out before the call; `as` saturates and never panics (the `nopanic` proof).
#[inline]
fn q32_toward_zero(x: f64) -> I32F32 {
    // Scaling by 2³² is exact (or overflows to ±∞, which `as` saturates).
    I32F32::from_bits((x * 4_294_967_296.0) as i64)
}

impl Real for Q32 {
    const ZERO: Self = Q32(I32F32::ZERO);
    const ONE: Self = Q32(I32F32::ONE);
    const MAX_ITEMS: u64 = i32::MAX as u64;
    const NAME: &'static str = "Q32";
    const INFINITY: Self = Q32(I32F32::MAX);
    const ROUNDOFF: f64 = 0.0;
    const QUANTUM: f64 = 1.0 / 4_294_967_296.0;

    fn from_f64_below(x: f64) -> Self {
        if x.is_nan() {
            return Q32::ZERO;
        }
        let q = Q32(q32_toward_zero(x));
        if q.to_f64() > x {
            Q32(q.0.saturating_sub(I32F32::DELTA))
        } else {
            q
        }
    }
    fn from_f64_above(x: f64) -> Self {
        if x.is_nan() {
            return Q32::INFINITY;
        }
        let q = Q32(q32_toward_zero(x));
        if q.to_f64() < x {
            Q32(q.0.saturating_add(I32F32::DELTA))
        } else {
            q
        }
    }

    #[inline]
    fn from_f64(x: f64) -> Option<Self> {
        let q = I32F32::checked_from_num(x)?;
        (q != I32F32::MAX && q != I32F32::MIN).then_some(Q32(q))
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self.0.to_num::<f64>()
    }
    #[inline]
    fn from_u64(n: u64) -> Self {
        Q32(I32F32::saturating_from_num(n))
    }
    #[inline]
    fn floor_u64(self) -> u64 {
        if self.0 <= I32F32::ZERO {
            0
        } else {
            self.0.to_bits().unsigned_abs() >> 32
        }
    }
    #[inline]
    fn is_finite(self) -> bool {
        self.0 != I32F32::MAX && self.0 != I32F32::MIN
    }
    #[inline]
    fn to_word(self) -> u64 {
        self.0.to_bits() as u64
    }
    #[inline]
    fn from_word(w: u64) -> Self {
        Q32(I32F32::from_bits(w as i64))
    }
    #[inline]
    fn sort_key(self) -> u64 {
        // Offset binary: the two's-complement order made unsigned.
        (self.0.to_bits() as u64) ^ (1 << 63)
    }
    #[inline]
    fn from_sort_key(k: u64) -> Self {
        Q32(I32F32::from_bits((k ^ (1 << 63)) as i64))
    }
}

/// An `f64` as the shortest decimal text that reads back to it, laid out as Rust's
/// `Display` lays it out (`1`, `0.25`, `123400000`, `-0`, `NaN`, `inf`).
///
/// Why not `core::fmt`'s own: the digits come from Ryū (the `ryu` crate, with its small
/// tables) instead of `core`'s Grisu with its Dragon fallback, which with their exact-digit
/// variants and tables are about 20 KB of the wasm module (issue 14). Both give the same
/// digits: among the shortest strings that read back to the value, the one nearest to it
/// (a unit test compares them on a million random bit patterns and the edge cases).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plain(pub f64);

/// As [`Plain`], laid out as Rust's `LowerExp` (`1e16`, `2.5e-7`, `0e0`).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "json"), allow(dead_code))]
pub(crate) struct Sci(pub f64);

/// A finite nonzero `f64` as `±0.d₁d₂…dₙ × 10^exp`, `d₁ ≠ 0`, no trailing zeros.
struct Digits {
    negative: bool,
    digits: [u8; 17],
    n: usize,
    exp: i32,
}

impl Digits {
    /// From Ryū's text, whatever its layout (`123.45`, `0.0001`, `1e-7`, `1.5e300`).
    fn of(x: f64) -> Digits {
        let mut buffer = ryu::Buffer::new();
        let text = buffer.format_finite(x).as_bytes();
        let mut d = Digits { negative: false, digits: [0; 17], n: 0, exp: 0 };
        let (mut point, mut exponent, mut exponent_negative, mut in_exponent) = (false, 0i32, false, false);
        for &c in text {
            match c {
                b'-' if in_exponent => exponent_negative = true,
                b'-' => d.negative = true,
                b'.' => point = true,
                b'e' | b'E' => in_exponent = true,
                b'0'..=b'9' if in_exponent => {
                    exponent = exponent.saturating_mul(10).saturating_add(i32::from(c - b'0'))
                }
                // A leading zero after the point moves the first digit down; one before it
                // (Ryū's `0.` of `0.001`) does not.
                b'0' if d.n == 0 && point => d.exp -= 1,
                b'0' if d.n == 0 => {}
                b'0'..=b'9' => {
                    if let Some(slot) = d.digits.get_mut(d.n) {
                        *slot = c;
                        d.n += 1;
                    }
                    if !point {
                        d.exp += 1;
                    }
                }
                _ => {}
            }
        }
        // Zeros before the point that follow the first digit were counted in `exp` as
        // digits; trailing zeros only shorten the digit string.
        while d.n > 1 && d.digits.get(d.n - 1) == Some(&b'0') {
            d.n -= 1;
        }
        d.exp = d.exp.saturating_add(if exponent_negative { -exponent } else { exponent });
        // Where two shortest strings are equally near, Ryū takes the even last digit and
        // `core` the one away from zero (`…797.25` prints `…797.3`): round up on a tie.
        if d.is_tie(x) {
            d.round_up();
        }
        d
    }

    /// Whether `|x|` is exactly halfway between these digits and the next ones up: the
    /// digits followed by a 5, `N = 10·D + 5` at `10^k`. With `|x| = m·2^b`, `m` odd, and
    /// `N` odd, `N·10^k = N·5^k·2^k` (`k ≥ 0`) or `N/(5^j·2^j)` (`j = −k`) equals it only
    /// for `b = k` and `m = N·5^k`, or `b = −j` and `m·5^j = N`.
    fn is_tie(&self, x: f64) -> bool {
        let bits = x.abs().to_bits();
        let (raw_exp, frac) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
        let (m, b) = if raw_exp == 0 { (frac, -1074) } else { (frac | (1 << 52), raw_exp - 1075) };
        let t = m.trailing_zeros();
        let (m, b) = (u128::from(m >> t), b + t as i32);
        let k = self.exp - self.n as i32 - 1;
        if b != k {
            return false;
        }
        let digits = self.digits.get(..self.n).unwrap_or(&[]);
        let n = digits.iter().fold(0u128, |a, &c| a * 10 + u128::from(c - b'0')) * 10 + 5;
        let pow5 = (0..k.unsigned_abs()).try_fold(1u128, |a, _| a.checked_mul(5));
        if k >= 0 {
            pow5.and_then(|p| p.checked_mul(n)) == Some(m)
        } else {
            pow5.and_then(|p| p.checked_mul(m)) == Some(n)
        }
    }

    /// The digits one unit up in their last place, carries included.
    fn round_up(&mut self) {
        let mut i = self.n;
        while i > 0 {
            i -= 1;
            match self.digits.get_mut(i) {
                Some(c) if *c == b'9' => *c = b'0',
                Some(c) => {
                    *c += 1;
                    break;
                }
                None => return,
            }
            if i == 0 {
                // All nines: 99…9 + 1 = 10…0, one digit up.
                if let Some(first) = self.digits.get_mut(0) {
                    *first = b'1';
                }
                self.exp += 1;
            }
        }
        while self.n > 1 && self.digits.get(self.n - 1) == Some(&b'0') {
            self.n -= 1;
        }
    }

    fn text(&self) -> &str {
        // Only ASCII digits were stored.
        core::str::from_utf8(self.digits.get(..self.n).unwrap_or(&[])).unwrap_or("")
    }
}

/// `NaN`, `inf`, `-inf`, or `None` for a finite value; `Some(text)` for zeros too.
fn special(x: f64, zero: &'static str, negative_zero: &'static str) -> Option<&'static str> {
    if x.is_nan() {
        Some("NaN")
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" })
    } else if x == 0.0 {
        Some(if x.is_sign_negative() { negative_zero } else { zero })
    } else {
        None
    }
}

fn zeros(f: &mut core::fmt::Formatter<'_>, n: i32) -> core::fmt::Result {
    for _ in 0..n {
        f.write_str("0")?;
    }
    Ok(())
}

impl core::fmt::Display for Plain {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if let Some(s) = special(self.0, "0", "-0") {
            return f.write_str(s);
        }
        let d = Digits::of(self.0);
        let (text, n) = (d.text(), d.n as i32);
        if d.negative {
            f.write_str("-")?;
        }
        if d.exp <= 0 {
            f.write_str("0.")?;
            zeros(f, -d.exp)?;
            f.write_str(text)
        } else if d.exp < n {
            let (int, frac) = text.split_at(d.exp as usize);
            f.write_str(int)?;
            f.write_str(".")?;
            f.write_str(frac)
        } else {
            f.write_str(text)?;
            zeros(f, d.exp - n)
        }
    }
}

impl core::fmt::Display for Sci {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if let Some(s) = special(self.0, "0e0", "-0e0") {
            return f.write_str(s);
        }
        let d = Digits::of(self.0);
        if d.negative {
            f.write_str("-")?;
        }
        let (first, rest) = d.text().split_at(1.min(d.n));
        f.write_str(first)?;
        if !rest.is_empty() {
            f.write_str(".")?;
            f.write_str(rest)?;
        }
        write!(f, "e{}", d.exp - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Plain` and `Sci` write what `{}` and `{:e}` write, on random bit patterns (every
    /// exponent, subnormals included), short decimals, powers of two and ten, and the ends
    /// of the range.
    #[test]
    fn decimal_text_is_that_of_core_fmt() {
        extern crate std;
        use std::format;
        let check = |x: f64| {
            assert_eq!(format!("{}", Plain(x)), format!("{x}"), "{:#x}", x.to_bits());
            assert_eq!(format!("{}", Sci(x)), format!("{x:e}"), "{:#x}", x.to_bits());
        };
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..1_000_000 {
            check(f64::from_bits(next()));
        }
        for k in -330..=310 {
            let p = libm::pow(10.0, f64::from(k));
            for x in [p, p * 1.5, p * 0.1 * 3.0, next_after_up(p), -p] {
                check(x);
            }
        }
        for k in -1074..=1023 {
            check(libm::ldexp(1.0, k));
        }
        for x in [
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            5e-324,
            0.1,
            0.2 + 0.1,
            1.0 / 3.0,
            123456.0,
            1e15,
            1e16,
            1e-5,
            f64::from_bits(1e16f64.to_bits() - 1),
        ] {
            check(x);
        }
        for i in 0..100_000u32 {
            check(f64::from(i) / 1000.0);
            check(f64::from(i) * 1e-7);
            // Quarters near 2^50 and halves near 2^51 sit halfway between two shortest
            // strings of 17 digits.
            let big = f64::from(i) * 1.0e10;
            check(1_125_899_906_842_624.0 + big + 0.25);
            check(-(1_125_899_906_842_624.0 + big + 0.75));
            check(2_251_799_813_685_248.0 + big + 0.5);
        }
    }

    fn next_after_up(x: f64) -> f64 {
        f64::from_bits(x.to_bits() + 1)
    }

    #[test]
    fn subnormal_products_and_quotients_are_those_of_the_fpu() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let check = |a: f64, b: f64| {
            assert_eq!(mul_subnormal(a, b).to_bits(), (a * b).to_bits(), "{a:e} * {b:e}");
            assert_eq!(div_subnormal(a, b).to_bits(), (a / b).to_bits(), "{a:e} / {b:e}");
        };
        // Exact ties (2.5 and 0.5 times the smallest subnormal), the largest subnormal,
        // results crossing into normal range, and the values that are not subnormal.
        let tiny = f64::from_bits(1);
        for b in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.25, 1e-300, 5e-324, 1e300, f64::MAX, 4.5e15] {
            for a in [tiny, f64::from_bits(3), f64::from_bits((1 << 52) - 1), 0.0, 1.0, f64::MIN_POSITIVE] {
                check(a, b);
            }
        }
        for b in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            check(tiny, b);
        }
        for _ in 0..200_000 {
            let a = f64::from_bits((next() % (1 << 52)) >> (next() % 52));
            // Costs and ratios as the recursions see them: over many decades, and small
            // integers and half-integers that make ties.
            let b = match next() % 3 {
                0 => f64::from_bits(0x3000_0000_0000_0000 + next() % 0x1800_0000_0000_0000),
                1 => (next() % 64) as f64 / 2.0,
                _ => 1.0 + (next() % 1000) as f64 / 1024.0,
            };
            check(a, b);
        }
    }

    #[test]
    fn q32_saturates_instead_of_panicking() {
        let big = Q32::from_f64(2.0e9).unwrap_or(Q32::ZERO);
        assert!((big * big).0 == I32F32::MAX);
        assert!(!(big * big).is_finite());
        assert!(!(Q32::ONE / Q32::ZERO).is_finite());
        assert!(((Q32::ZERO - Q32::ONE) / Q32::ZERO).0 == I32F32::MIN);
        assert!(Q32::from_f64(f64::NAN).is_none());
        assert!(Q32::from_f64(1.0e12).is_none());
    }

    #[test]
    fn floors() {
        assert_eq!(Real::floor_u64(2.75f64), 2);
        assert_eq!(Real::floor_u64(-0.5f64), 0);
        assert_eq!(Real::floor_u64(f64::NAN), 0);
        assert_eq!(Real::floor_u64(2.75f32), 2);
        let q = Q32::from_f64(7.999).unwrap_or(Q32::ZERO);
        assert_eq!(q.floor_u64(), 7);
        assert_eq!(Q32::from_f64(-3.5).unwrap_or(Q32::ONE).floor_u64(), 0);
    }

    fn words_and_keys<N: Real>(values: &[f64]) {
        let xs: [N; 12] = core::array::from_fn(|i| N::from_f64_below(values[i % values.len()]));
        for &a in &xs {
            assert!(N::from_word(a.to_word()) == a, "{a:?} survives a word");
            assert!(N::from_sort_key(a.sort_key()) == a, "{a:?} survives its sort key");
            for &b in &xs {
                assert_eq!(a.cmp_total(b), a.sort_key().cmp(&b.sort_key()), "{a:?} vs {b:?} in {}", N::NAME);
            }
        }
    }

    #[test]
    fn words_round_trip_and_keys_sort_like_values() {
        let v = [0.0, -0.0, 1e-9, 2.3e-10, 0.5, 1.0, 1.0 + 1e-9, 3.0, 1e6, 2e9, 7.25, 1e-300];
        words_and_keys::<f64>(&v);
        words_and_keys::<f32>(&v);
        words_and_keys::<Q32>(&v);
    }
}
