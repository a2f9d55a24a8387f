//! What every model reports about an answer: how it was obtained, its makespan, a certified
//! lower bound on the optimum, and so the gap. Front ends print and serialise a [`Report`]
//! the same way for every model.

use crate::num::Real;

/// How a plan's counts were obtained (named in documents by `doc::names::METHOD`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Method {
    /// Rational shares in closed form (genaud2003 Thm 1–2, affine costs), then rounded.
    #[default]
    ClosedForm,
    /// The exact integer dynamic program ([`scatter::exact`](crate::scatter::exact)): optimal for
    /// the send order.
    ExactDp,
    /// The dynamic program over sampled sizes with a bounded memory, finished item by
    /// item ([`scatter::sampled`](crate::scatter::sampled)); `lower_bound` certifies its distance to the optimum.
    SampledDp,
    /// The threshold search for computation-only costs ([`partition`](crate::partition), cerin2006 §4):
    /// optimal.
    Threshold,
    /// Return messages, LIFO (returns in the reverse send order): the closed form of the
    /// slides' theorem (send by increasing `c + d`, everyone works, no idle), then rounded
    /// ([`returns`](crate::returns)). The rational throughput is the LIFO optimum.
    Lifo,
    /// Return messages, FIFO (returns in the send order), then rounded: the closed form
    /// for `d ∝ c`, the exhaustive scenario LP over FIFO orders for a few workers, else
    /// the better of the two prefix rules ([`returns`](crate::returns)).
    Fifo,
    /// Return messages, a given scenario (send order, return order): the scenario's LP
    /// (the slides' program (1)), then rounded ([`returns`](crate::returns)).
    ScenarioLp,
    /// Return messages, the best scenario: exhaustive over send and return orders for a
    /// few workers, else the best of LIFO, FIFO and a local search over send and return
    /// orders, then rounded ([`returns`](crate::returns)).
    BestScenario,
    /// Multi-cluster BIASED distribution (heien §3): equal step times in closed form over
    /// processor classes, then the integer counts with the smallest integer step time for
    /// the processors that take part ([`multicluster`](crate::multicluster)).
    Biased,
    /// Ring over a cost matrix: the paper's greedy (legrand2003 §4.1–4.2) with the
    /// corrected criterion, then the optimal integer counts for the ring chosen
    /// ([`ring`](crate::ring)); `lower_bound` holds for every ring.
    RingGreedy,
    /// Ring over a cost matrix: every subset and cyclic order (a few processors), then the
    /// optimal integer counts: the optimum ([`ring`](crate::ring)).
    RingExhaustive,
    /// Computation only, uniformly related processors: Theorem 1's shares `∝ f⁻¹(kᵢ)`
    /// (cerin2006 §3.1, exact for `c·nᵃ`), then floors and the cost rule
    /// ([`partition::approx`](crate::partition::approx)).
    Theorem1,
    /// Computation only, `n ln n`: eq. (5) with ordinary brackets (cerin2006 §3.2,
    /// corrected), then floors and the cost rule; `lower_bound` is the exact optimum.
    Eq5,
    /// Computation only, `n ln n`: Theorem 2 with its dropped factor restored (cerin2006
    /// §3.2, corrected), then floors and the cost rule; `lower_bound` is the exact optimum.
    Theorem2,
    /// Computation only: the exact optimum for a cost model learned from timings
    /// (cerin2006 §3.3); optimal for the model, which predicts the makespan.
    Learned,
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
/// take no time; a plan of no time against an even split that takes some is the largest
/// ratio), at most the largest `f64`: a ratio beyond it (an even split of
/// 10³⁰⁰ s against a plan of 10⁻²⁹⁹ s) is still a number in a result document, not the
/// `null` JSON has for an infinity. Every model's documents report it so.
///
/// ```
/// assert_eq!(divload::report::speedup(3.0, 2.0), 1.5);
/// assert_eq!(divload::report::speedup(5e300, 1e-299), f64::MAX);
/// assert_eq!(divload::report::speedup(50.0, 0.0), f64::MAX);
/// assert_eq!(divload::report::speedup(0.0, 0.0), 1.0);
/// ```
pub fn speedup(even: f64, makespan: f64) -> f64 {
    if makespan > 0.0 {
        (even / makespan).min(f64::MAX)
    } else if even > 0.0 {
        f64::MAX
    } else {
        1.0
    }
}
