//! A worker with affine costs: the vocabulary of the closed forms (genaud2003 §2.3, §3.1;
//! the "bus" and "star" slides), shared by every model that charges per item.
//!
//! Worker *i* receives *x* items in `comm_latency + comm_per_item·x` seconds (λᵢ is
//! `comm_per_item`) and computes them in `comp_latency + comp_per_item·x` seconds (μᵢ is
//! `comp_per_item`). A worker given 0 items costs nothing and takes no part. The scatter
//! (genaud2003 eq. 1–2) charges these costs along the root's send chain; the bus model of
//! the slides is the case of equal `comm_per_item` for all workers.

use crate::error::{Error, Field};
use crate::num::Real;

/// One processor's costs. All times are in seconds, all rates in seconds per item.
///
/// `repr(C)`: four numbers in this order, so that the C ABI reads a caller's array of
/// `divload_worker` as workers in place instead of copying it (issue 45: 32 bytes a
/// worker at 10⁷ workers is 320 MB).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Worker<N> {
    /// Fixed part of receiving a non-empty share from the root (seconds, ≥ 0).
    pub comm_latency: N,
    /// Time to receive one item from the root (λ, seconds per item, ≥ 0).
    pub comm_per_item: N,
    /// Fixed part of computing a non-empty share (seconds, ≥ 0).
    pub comp_latency: N,
    /// Time to compute one item (μ, seconds per item, > 0).
    pub comp_per_item: N,
}

impl<N: Real> Worker<N> {
    /// A worker with linear costs (no latencies): λ = `comm_per_item`, μ = `comp_per_item`.
    pub fn linear(comm_per_item: N, comp_per_item: N) -> Self {
        Worker { comm_latency: N::ZERO, comm_per_item, comp_latency: N::ZERO, comp_per_item }
    }

    /// Builds a worker from `f64` values, checking each against its valid range and against
    /// the number type `N`. `index` is used in error messages.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) when a value is NaN,
    /// infinite, negative, or when `comp_per_item` is 0;
    /// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when a value does not fit `N`.
    ///
    /// ```
    /// use divload::Worker;
    /// assert!(Worker::<f64>::try_from_f64(0, 0.0, 1e-5, 0.0, 0.009).is_ok());
    /// let err = Worker::<f64>::try_from_f64(3, 0.0, 1e-5, 0.0, f64::NAN).unwrap_err();
    /// assert_eq!(err.to_string(), "worker 3: comp_per_item must be finite and > 0, got NaN");
    /// ```
    pub fn try_from_f64(
        index: usize,
        comm_latency: f64,
        comm_per_item: f64,
        comp_latency: f64,
        comp_per_item: f64,
    ) -> Result<Self, Error> {
        let conv = |field: Field, v: f64| -> Result<N, Error> {
            check(index, field, v)?;
            N::from_f64(v).ok_or(Error::not_representable(index, field, v, N::NAME))
        };
        let w = Worker {
            comm_latency: conv(Field::COMM_LATENCY, comm_latency)?,
            comm_per_item: conv(Field::COMM_PER_ITEM, comm_per_item)?,
            comp_latency: conv(Field::COMP_LATENCY, comp_latency)?,
            comp_per_item: conv(Field::COMP_PER_ITEM, comp_per_item)?,
        };
        if w.comp_per_item <= N::ZERO {
            // A positive f64 that rounds to zero in `N`.
            return Err(Error::not_representable(index, Field::COMP_PER_ITEM, comp_per_item, N::NAME));
        }
        Ok(w)
    }

    /// Checks the worker's costs. `index` is used in error messages.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) naming the field, when a
    /// cost is not finite, is negative, or `comp_per_item` is not positive.
    pub fn validate(&self, index: usize) -> Result<(), Error> {
        check(index, Field::COMM_LATENCY, self.comm_latency.to_f64())?;
        check(index, Field::COMM_PER_ITEM, self.comm_per_item.to_f64())?;
        check(index, Field::COMP_LATENCY, self.comp_latency.to_f64())?;
        check(index, Field::COMP_PER_ITEM, self.comp_per_item.to_f64())?;
        if !(self.comm_latency.is_finite()
            && self.comm_per_item.is_finite()
            && self.comp_latency.is_finite()
            && self.comp_per_item.is_finite())
        {
            return Err(Error::numeric_overflow(N::NAME));
        }
        Ok(())
    }

    /// Whether [`Worker::validate`] surely accepts the worker, in a few integer operations
    /// without a branch, so that a pass over many workers costs little (at 10⁶ workers the
    /// checks one field at a time were 7 % of a plan). `false` is no verdict: `validate`
    /// then runs and names the field, and accepts a −0.0 that this check leaves to it. The
    /// ranges are [`NON_NEGATIVE`](crate::num::range::NON_NEGATIVE)'s and
    /// [`POSITIVE`](crate::num::range::POSITIVE)'s (a test holds the two together).
    #[inline]
    pub(crate) fn plainly_valid(&self) -> bool {
        // A finite `f64` of sign + has bits, as an integer, below +∞'s; a sign bit, ∞ and
        // NaN are at or above them. Every number type's finite values are finite in `f64`.
        const INF: u64 = 0x7ff0_0000_0000_0000;
        let bits = |x: N| x.to_f64().to_bits();
        let (a, b, c, d) = (
            bits(self.comm_latency),
            bits(self.comm_per_item),
            bits(self.comp_latency),
            bits(self.comp_per_item),
        );
        // Above 0 as well: 0 wraps around to the largest integer.
        (a.max(b).max(c) < INF) & (d.wrapping_sub(1) < INF - 1)
    }

    /// Time to receive `x` items (0 when `x` is 0).
    #[inline]
    pub fn comm_time(&self, x: N) -> N {
        if x > N::ZERO {
            self.comm_latency + self.comm_per_item * x
        } else {
            N::ZERO
        }
    }

    /// Time to compute `x` items (0 when `x` is 0).
    #[inline]
    pub fn comp_time(&self, x: N) -> N {
        if x > N::ZERO {
            self.comp_latency + self.comp_per_item * x
        } else {
            N::ZERO
        }
    }

    /// `true` when both latencies are zero (costs are linear, as in genaud2003 §4).
    #[inline]
    pub fn is_linear(&self) -> bool {
        self.comm_latency == N::ZERO && self.comp_latency == N::ZERO
    }

    /// The same worker as seen when it is the root: it does not send to itself.
    #[inline]
    pub(crate) fn as_root(&self) -> Self {
        Worker { comm_latency: N::ZERO, comm_per_item: N::ZERO, ..*self }
    }
}

pub(crate) fn check(index: usize, field: Field, v: f64) -> Result<(), Error> {
    if field.allows(v) {
        Ok(())
    } else {
        Err(Error::cost(index, field, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::range::{NON_NEGATIVE, POSITIVE};

    /// The branch-free check says yes exactly where the field-by-field one does, for every
    /// combination of the edge values in each number type, but for −0.0, which it leaves
    /// to the field-by-field check.
    #[test]
    fn plainly_valid_is_validate() {
        fn check_all<N: Real>(make: impl Fn(f64) -> Option<N>) {
            let edges = [
                0.0,
                -0.0,
                5e-324,
                1e-300,
                1.0,
                3e38,
                f64::MAX,
                f64::INFINITY,
                -f64::INFINITY,
                f64::NAN,
                -1.0,
            ];
            let values: std::vec::Vec<N> = edges.iter().filter_map(|&x| make(x)).collect();
            for &a in &values {
                for &b in &values {
                    for &c in &values {
                        for &d in &values {
                            let w = Worker {
                                comm_latency: a,
                                comm_per_item: b,
                                comp_latency: c,
                                comp_per_item: d,
                            };
                            let negative_zero =
                                [a, b, c, d].iter().any(|x| x.to_f64().to_bits() == (-0.0f64).to_bits());
                            if negative_zero {
                                assert!(!w.plainly_valid() || w.validate(0).is_ok(), "{} {w:?}", N::NAME);
                            } else {
                                assert_eq!(w.plainly_valid(), w.validate(0).is_ok(), "{} {w:?}", N::NAME);
                            }
                        }
                    }
                }
            }
        }
        // The ranges the check is written for.
        assert_eq!((Field::COMM_LATENCY.range, Field::COMM_PER_ITEM.range), (NON_NEGATIVE, NON_NEGATIVE));
        assert_eq!((Field::COMP_LATENCY.range, Field::COMP_PER_ITEM.range), (NON_NEGATIVE, POSITIVE));
        check_all::<f64>(Some);
        check_all::<f32>(|x| Some(x as f32));
        check_all::<crate::Q32>(crate::Q32::from_f64);
    }
}
