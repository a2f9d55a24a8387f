//! Decimal text of `f64` without `core`'s float formatting and parsing: the shortest text
//! that reads back to a value ([`Plain`], [`Sci`]), and the correctly rounded value of a
//! JSON number ([`parse`]).
//!
//! Why: `core::fmt`'s Grisu and Dragon and `str::parse`'s Eisel–Lemire path with its
//! 10 KB table of powers of five were over 35 KB of the wasm module (issue 14). Ryū's
//! small tables give the same shortest digits; the parser takes Clinger's exact fast path
//! and otherwise corrects an approximation by exact big-integer comparisons with the
//! midpoints between neighbouring `f64`s (AlgorithmR/"bigcomp" of the literature: Clinger
//! 1990, Gay 1990). Both are checked against `core` on millions of random and edge inputs
//! (the tests below), so documents read and write exactly as before.

// Without documents (feature `json`) nothing writes `Sci`; only wasm and bare-metal
// builds read numbers with `parse` (`doc::json::number_value` says why).
#![cfg_attr(
    any(not(feature = "doc"), not(any(target_arch = "wasm32", target_os = "none", fuzzing))),
    allow(dead_code)
)]

use core::cmp::Ordering;
use core::fmt;

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

/// A number as a person reads it in a message: [`Plain`] from 10⁻⁵ to 10¹⁶ (and for
/// zero, NaN and the infinities), [`Sci`] beyond, so that `5e-324` is not 324 zeros.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Short(pub f64);

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if !x.is_finite() || x == 0.0 || (1e-5..1e16).contains(&x.abs()) {
            fmt::Display::fmt(&Plain(x), f)
        } else {
            fmt::Display::fmt(&Sci(x), f)
        }
    }
}

/// As [`Plain`], laid out as Rust's `LowerExp` (`1e16`, `2.5e-7`, `0e0`).
#[derive(Clone, Copy, Debug)]
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
        d.trim();
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
        self.trim();
    }

    /// Drops trailing zeros (keeping one digit).
    fn trim(&mut self) {
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

fn zeros(f: &mut fmt::Formatter<'_>, n: i32) -> fmt::Result {
    for _ in 0..n {
        f.write_str("0")?;
    }
    Ok(())
}

impl fmt::Display for Plain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            // `0 < exp < n`, an ASCII boundary; `split_at` would link core's str slicing
            // panic (1.5 KB of the wasm module).
            let (int, frac) = text.split_at_checked(d.exp as usize).unwrap_or((text, ""));
            f.write_str(int)?;
            f.write_str(".")?;
            f.write_str(frac)
        } else {
            f.write_str(text)?;
            zeros(f, d.exp - n)
        }
    }
}

impl fmt::Display for Sci {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = special(self.0, "0e0", "-0e0") {
            return f.write_str(s);
        }
        let d = Digits::of(self.0);
        if d.negative {
            f.write_str("-")?;
        }
        let (first, rest) = d.text().split_at_checked(1.min(d.n)).unwrap_or((d.text(), ""));
        f.write_str(first)?;
        if !rest.is_empty() {
            f.write_str(".")?;
            f.write_str(rest)?;
        }
        write!(f, "e{}", d.exp - 1)
    }
}

/// Significant digits kept exactly: enough to decide the rounding of any `f64` (a decimal
/// halfway between two `f64`s has at most 767 significant digits); the rest only says
/// whether the value lies above what was kept (a sticky digit).
const MAX_DIGITS: usize = 768;

/// 10^0 … 10^22, every one exact in `f64` (Clinger's fast path).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

/// The `f64` nearest to a JSON number's text (`-?digits[.digits][(e|E)[+-]digits]`, as
/// [`crate::doc::json::Reader`] has checked it), ties to even; `±inf` beyond the range
/// and `±0` below it, as `str::parse::<f64>` gives. `None` for text outside that grammar.
pub(crate) fn parse(text: &[u8]) -> Option<f64> {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let e_at = text.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(text.len());
    let (mantissa, exponent) = text.split_at(e_at);
    let exponent = match exponent.split_first() {
        None => 0i64,
        Some((_, e)) => {
            let (minus, digits) = match e.split_first() {
                Some((b'-', d)) => (true, d),
                Some((b'+', d)) => (false, d),
                _ => (false, e),
            };
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            // Saturates far beyond any exponent that can matter.
            let v = digits.iter().fold(0i64, |v, &c| (v * 10 + i64::from(c - b'0')).min(1 << 40));
            if minus {
                -v
            } else {
                v
            }
        }
    };
    let point = mantissa.iter().position(|&c| c == b'.');
    let (int, frac) = match point {
        Some(p) => (mantissa.get(..p)?, mantissa.get(p + 1..)?),
        None => (mantissa, &[][..]),
    };
    if int.is_empty() || (point.is_some() && frac.is_empty()) {
        return None;
    }
    if !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let magnitude = magnitude(Digits10 { int, frac }, exponent);
    Some(if negative { -magnitude } else { magnitude })
}

/// A number's digits: the integer part and the fraction, both ASCII digits.
#[derive(Clone, Copy)]
struct Digits10<'a> {
    int: &'a [u8],
    frac: &'a [u8],
}

impl Digits10<'_> {
    fn iter(&self) -> impl DoubleEndedIterator<Item = u8> + '_ {
        self.int.iter().chain(self.frac).map(|&c| c - b'0')
    }
}

/// `|value|` of the digits times 10^exponent.
fn magnitude(digits: Digits10<'_>, exponent: i64) -> f64 {
    // The significant digits: after the leading zeros, before the trailing ones.
    let all = digits.int.len() + digits.frac.len();
    let lead = digits.iter().take_while(|&d| d == 0).count();
    if lead == all {
        return 0.0;
    }
    let trail = digits.iter().rev().take_while(|&d| d == 0).count();
    let len = all - lead - trail;
    // value = S × 10^q, S the `len` significant digits as an integer.
    let q = exponent - digits.frac.len() as i64 + trail as i64;
    let sig = || digits.iter().skip(lead).take(len);
    let decimal_exp = len as i64 + q; // 10^(decimal_exp − 1) ≤ value < 10^decimal_exp
    if decimal_exp > 310 {
        return f64::INFINITY;
    }
    if decimal_exp < -342 {
        // Below 10^−343, under half the smallest subnormal (2^−1075 ≈ 2.5·10^−324).
        return 0.0;
    }
    // Clinger's fast path: S and 10^|q| exact in f64, one correctly rounded operation.
    if len <= 19 {
        let s = sig().fold(0u64, |v, d| v * 10 + u64::from(d));
        if s <= 1 << 53 {
            if let Some(&p) = POW10.get(q.unsigned_abs() as usize) {
                return if q >= 0 { s as f64 * p } else { s as f64 / p };
            }
        }
    }
    // An approximation within a few units in the last place, from the first 19 digits.
    let head = sig().take(19).fold(0u64, |v, d| v * 10 + u64::from(d));
    let head_q = q + len.saturating_sub(19) as i64;
    // Steps of 10^±22 at most, each rounded once, so the error stays a few units; from
    // `head` down, so that nothing underflows before the last step.
    let mut b = head as f64;
    let mut k = head_q;
    while k != 0 && b != 0.0 && b.is_finite() {
        let step = k.clamp(-22, 22);
        let p = POW10.get(step.unsigned_abs() as usize).copied().unwrap_or(1.0);
        b = if step > 0 { b * p } else { b / p };
        k -= step;
    }
    if !b.is_finite() {
        b = f64::MAX;
    }
    // Exact comparisons in 512 bits, enough for most numbers (17 digits, exponents within
    // about ±60), and in 5 120 bits for the others.
    exact::<8, _>(b, sig, len, q).or_else(|| exact::<LIMBS, _>(b, sig, len, q)).unwrap_or(b)
}

/// [`refine`] on the exact value: the significant digits as an integer `M` (at most
/// `MAX_DIGITS` and a sticky digit) times `10^q`. `None` when `L` limbs cannot hold it.
fn exact<const L: usize, I: Iterator<Item = u8>>(
    b: f64,
    sig: impl Fn() -> I,
    len: usize,
    q: i64,
) -> Option<f64> {
    let mut m = Big::<L>::ZERO;
    let mut q = q;
    if len <= MAX_DIGITS {
        m.push_digits(sig());
    } else {
        // The dropped digits end in a nonzero digit (trailing zeros were cut): a 1 after
        // the kept ones puts the value strictly between the same two midpoints.
        m.push_digits(sig().take(MAX_DIGITS).chain(core::iter::once(1)));
        q += (len - MAX_DIGITS) as i64 - 1;
    }
    refine(b, &m, q)
}

/// The `f64` nearest to `M·10^q`, from `b`, an approximation of it: moves `b` by one unit
/// in the last place while the value lies beyond a midpoint, ties to even. `None` when
/// `L` limbs are too few.
fn refine<const L: usize>(mut b: f64, m: &Big<L>, q: i64) -> Option<f64> {
    // Each side of `M·10^q` versus `n·2^g`, scaled to integers: A = M·10^q⁺, B = 10^q⁻.
    let mut a = m.clone();
    a.mul_pow10(q.max(0) as u32);
    let mut base = Big::ONE;
    base.mul_pow10((-q).max(0) as u32);
    // The approximation is within a few units in the last place: a few steps.
    for _ in 0..64 {
        if b < f64::MAX {
            match compare(&a, &base, upper_midpoint(b))? {
                Ordering::Greater => {
                    b = next_up(b);
                    continue;
                }
                Ordering::Equal => return Some(even(b, next_up(b))),
                Ordering::Less => {}
            }
        } else if compare(&a, &base, upper_midpoint(f64::MAX))? != Ordering::Less {
            // From halfway to 2^1024 on, the value rounds to infinity (the tie too, to the
            // even significand).
            return Some(f64::INFINITY);
        }
        if b > 0.0 {
            let below = next_down(b);
            match compare(&a, &base, upper_midpoint(below))? {
                Ordering::Less => {
                    b = below;
                    continue;
                }
                Ordering::Equal => return Some(even(below, b)),
                Ordering::Greater => {}
            }
        }
        return Some(b);
    }
    Some(b)
}

/// The one of two neighbouring `f64`s with an even significand.
fn even(lo: f64, hi: f64) -> f64 {
    if lo.to_bits() & 1 == 0 {
        lo
    } else {
        hi
    }
}

fn next_up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

fn next_down(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

/// The midpoint between `x ≥ 0` and the next `f64` up, as `n·2^g` with `n` odd.
fn upper_midpoint(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let (raw_exp, frac) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let (m, e) = if raw_exp == 0 { (frac, -1074) } else { (frac | (1 << 52), raw_exp - 1075) };
    (2 * m + 1, e - 1)
}

/// `M·10^q` against `n·2^g`, given `A = M·10^q⁺` and `B = 10^q⁻`: `A·2^g⁻` against
/// `n·B·2^g⁺`. `None` when a side does not fit.
fn compare<const L: usize>(a: &Big<L>, base: &Big<L>, (n, g): (u64, i64)) -> Option<Ordering> {
    let mut left = a.clone();
    left.shl((-g).max(0) as u32);
    let mut right = base.clone();
    right.mul_small(n);
    right.shl(g.max(0) as u32);
    (!left.overflow && !right.overflow).then(|| left.cmp(&right))
}

/// 64-bit limbs for the numbers that need most: room for 5 120 bits, above the largest
/// operand here (a 769-digit `M` times 2^1075, or 10^1112 times a 55-bit `n`: under
/// 3 800 bits).
const LIMBS: usize = 80;

/// An unsigned integer of `L` 64-bit limbs, least significant first; `overflow` once a
/// result did not fit (its high limbs are lost).
#[derive(Clone)]
struct Big<const L: usize> {
    limbs: [u64; L],
    len: usize,
    overflow: bool,
}

impl<const L: usize> Big<L> {
    const ZERO: Self = Big { limbs: [0; L], len: 0, overflow: false };
    const ONE: Self = {
        let mut one = Self::ZERO;
        one.limbs[0] = 1;
        one.len = 1;
        one
    };

    /// `self·k + add`.
    fn mul_add_small(&mut self, k: u64, add: u64) {
        let mut carry = u128::from(add);
        for limb in self.limbs.iter_mut().take(self.len) {
            let v = u128::from(*limb) * u128::from(k) + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
        if carry > 0 {
            match self.limbs.get_mut(self.len) {
                Some(limb) => {
                    *limb = carry as u64;
                    self.len += 1;
                }
                None => self.overflow = true,
            }
        }
    }

    fn mul_small(&mut self, k: u64) {
        self.mul_add_small(k, 0);
    }

    /// Appends decimal digits, 19 at a time.
    fn push_digits(&mut self, digits: impl Iterator<Item = u8>) {
        let (mut chunk, mut scale) = (0u64, 1u64);
        for d in digits {
            chunk = chunk * 10 + u64::from(d);
            scale *= 10;
            if scale == 10_000_000_000_000_000_000 {
                self.mul_add_small(scale, chunk);
                (chunk, scale) = (0, 1);
            }
        }
        if scale > 1 {
            self.mul_add_small(scale, chunk);
        }
    }

    fn mul_pow10(&mut self, k: u32) {
        // 5^27 is the largest power of five below 2^64.
        let mut left = k;
        while left >= 27 {
            self.mul_small(7_450_580_596_923_828_125);
            left -= 27;
        }
        self.mul_small(5u64.pow(left));
        self.shl(k);
    }

    fn shl(&mut self, bits: u32) {
        if self.len == 0 {
            return;
        }
        let (words, bits) = ((bits / 64) as usize, bits % 64);
        if self.len + words + 1 > L {
            self.overflow = true;
        }
        let new_len = (self.len + words + 1).min(L);
        for i in (0..new_len).rev() {
            let src = i.checked_sub(words);
            let hi = src.and_then(|s| self.limbs.get(s)).copied().unwrap_or(0);
            let lo = src.and_then(|s| s.checked_sub(1)).and_then(|s| self.limbs.get(s)).copied().unwrap_or(0);
            let v = if bits == 0 { hi } else { (hi << bits) | (lo >> (64 - bits)) };
            if let Some(limb) = self.limbs.get_mut(i) {
                *limb = v;
            }
        }
        self.len = new_len;
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    fn cmp(&self, other: &Big<L>) -> Ordering {
        self.len.cmp(&other.len).then_with(|| {
            let (a, b) =
                (self.limbs.get(..self.len).unwrap_or(&[]), other.limbs.get(..other.len).unwrap_or(&[]));
            a.iter().rev().cmp(b.iter().rev())
        })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;
    use std::string::ToString;

    use super::*;
    use crate::num::xorshift;

    /// `Plain` and `Sci` write what `{}` and `{:e}` write, on random bit patterns (every
    /// exponent, subnormals included), short decimals, powers of two and ten, and the ends
    /// of the range.
    #[test]
    fn decimal_text_is_that_of_core_fmt() {
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
            for x in [p, p * 1.5, p * 0.1 * 3.0, next_up(p), -p] {
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

    /// `parse` gives what `str::parse::<f64>` gives: random digit strings of 1 to 40
    /// digits at every exponent, the shortest and the 17-digit text of random `f64`s, the
    /// exact halfway points between neighbours (ties to even) and just off them, long
    /// numbers past the kept digits, and the ends of the range.
    #[test]
    fn parse_is_that_of_core() {
        let check = |text: &str| {
            let want: f64 = text.parse().unwrap();
            let got = parse(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}: {got:e} instead of {want:e}");
        };
        let mut next = xorshift(0x0123_4567_89ab_cdef);
        for _ in 0..100_000 {
            let x = f64::from_bits(next() & !(1 << 63));
            if !x.is_finite() {
                continue;
            }
            check(&format!("{x:e}"));
            check(&format!("{x:.16e}"));
            check(&format!("-{}", Plain(x)));
            // The midpoint to the next f64 up: exact in 767 digits at most.
            if next_up(x).is_finite() {
                let mid = midpoint_text(x);
                check(&mid);
                // Just above the midpoint: within the kept digits, and past them (where
                // only the sticky digit tells it from the tie).
                let (digits, e) =
                    mid.split_once('e').map_or((mid.as_str(), 0), |(d, e)| (d, e.parse().unwrap()));
                check(&format!("{digits}1e{}", e - 1));
                check(&format!("{digits}{}1e{}", "0".repeat(800), e - 801));
            }
        }
        for _ in 0..300_000 {
            let len = (next() % 40 + 1) as usize;
            let digits: std::string::String =
                (0..len).map(|_| char::from(b'0' + (next() % 10) as u8)).collect();
            let e = (next() % 700) as i64 - 360;
            let point = (next() as usize) % (len + 1);
            let (i, f) = digits.split_at(point);
            let i = if i.is_empty() { "0" } else { i };
            check(&format!("{i}{}{f}e{e}", if f.is_empty() { "" } else { "." }));
        }
        let long = format!("1.{}e-5", "0".repeat(2000) + "1");
        for text in [
            "0",
            "-0",
            "0.0",
            "1",
            "0.1",
            "1e22",
            "1e23",
            "9007199254740993",
            "4.9e-324",
            "2.4703282292062328e-324",
            "2.4703282292062327e-324",
            "2.5e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "1e99999999999",
            "1e-99999999999",
            "0e999",
            "123456789012345678901234567890",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            &long,
        ] {
            check(text);
        }
    }

    /// The exact decimal text of the midpoint between `x ≥ 0` and the next `f64` up.
    fn midpoint_text(x: f64) -> std::string::String {
        let (n, g) = upper_midpoint(x);
        // n·2^g = n·5^(−g)/10^(−g) for g < 0; an integer otherwise.
        let mut big = Big::<LIMBS>::ZERO;
        big.push_digits(n.to_string().bytes().map(|c| c - b'0'));
        if g >= 0 {
            big.shl(g as u32);
            return big.to_decimal();
        }
        for _ in 0..-g {
            big.mul_small(5);
        }
        format!("{}e{g}", big.to_decimal())
    }

    impl<const L: usize> Big<L> {
        fn to_decimal(&self) -> std::string::String {
            let mut digits = std::vec::Vec::new();
            let mut v = self.clone();
            while v.len > 0 {
                let mut rem = 0u128;
                for limb in v.limbs[..v.len].iter_mut().rev() {
                    let cur = (rem << 64) | u128::from(*limb);
                    *limb = (cur / 10) as u64;
                    rem = cur % 10;
                }
                digits.push(b'0' + rem as u8);
                while v.len > 0 && v.limbs[v.len - 1] == 0 {
                    v.len -= 1;
                }
            }
            if digits.is_empty() {
                digits.push(b'0');
            }
            digits.reverse();
            std::string::String::from_utf8(digits).unwrap()
        }
    }
}
