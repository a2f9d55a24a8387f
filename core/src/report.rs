//! What every model reports about an answer: how it was obtained, its makespan, a certified
//! lower bound on the optimum, and so the gap. Front ends print and serialise a [`Report`]
//! the same way for every model.

use crate::num::Real;

/// How a plan's counts were obtained: a name as documents write it (`"method"`).
///
/// Each model declares its own methods next to its solver, as associated constants
/// (`impl Method { pub const EXACT_DP: Method = Method::new("exact_dp"); }` in the model's
/// folder), so a new model adds its methods without touching this layer; two models
/// declaring the same constant do not compile, and `tests/tests/tidy.rs`
/// (`method_names_are_unique`) checks that no two constants share a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Method(&'static str);

impl Method {
    /// The longest name a method may have, in bytes: C's `DIVLOAD_METHOD_NAME_LEN` holds
    /// it with its NUL.
    pub const MAX_NAME_LEN: usize = 31;

    /// A method named `name` in documents (lower case, `_` between words). Called in
    /// constants only, so a name longer than [`Method::MAX_NAME_LEN`] fails to compile.
    pub(crate) const fn new(name: &'static str) -> Method {
        assert!(name.len() <= Method::MAX_NAME_LEN, "a method's name is at most MAX_NAME_LEN bytes");
        Method(name)
    }

    /// The name documents write in `"method"`.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

/// An answer's quality, in the same terms for every model. All times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report<N> {
    /// How the answer was obtained.
    pub method: Method,
    /// Makespan of the integer plan returned.
    pub makespan: N,
    /// A lower bound on the makespan of every plan the model allows, within the model's
    /// stated scope (e.g. the send order).
    pub lower_bound: N,
    /// `true` when the plan is proven optimal within that scope.
    pub exact: bool,
}

impl<N: Real> Report<N> {
    /// `makespan − lower_bound`, never negative: how far the plan can be from the optimum.
    pub fn gap(&self) -> N {
        (self.makespan - self.lower_bound).max_of(N::ZERO)
    }
}

/// How many times faster than the even split a plan is, `even / makespan` (1 when both
/// take no time). A ratio beyond `f64` (an even split of 10³⁰⁰ s against a plan of
/// 10⁻²⁹⁹ s, or a plan of no time against an even split that takes some) is infinite:
/// a result document refuses it as an overflow naming `speedup` (`json::Writer::end`)
/// rather than writing `null` or the largest `f64` in its place.
///
/// ```
/// assert_eq!(divload::report::speedup(3.0, 2.0), 1.5);
/// assert_eq!(divload::report::speedup(5e300, 1e-299), f64::INFINITY);
/// assert_eq!(divload::report::speedup(50.0, 0.0), f64::INFINITY);
/// assert_eq!(divload::report::speedup(0.0, 0.0), 1.0);
/// ```
pub fn speedup(even: f64, makespan: f64) -> f64 {
    if makespan > 0.0 {
        even / makespan
    } else if even > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}
