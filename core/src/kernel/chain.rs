//! The send chain of genaud2003 eq. (1)–(2): the root serves one worker at a time, so the
//! worker at send position *k* starts receiving when the previous one has received, and
//! finishes `comp` seconds after its own share has arrived. Every solver and evaluator
//! in the crate walks the chain through [`Chain`], so they all agree on what a makespan is.
//! The same one-port chain is the send phase of the return-message model.

use crate::num::Real;

/// Roundings behind a makespan that [`Chain`] computes over `positions` positions with
/// affine times: a receive and a compute time of one multiplication and one addition each,
/// and one addition per position along the chain. All terms are non-negative, so the
/// computed makespan is within γ of this many roundings of the exact one
/// ([`fp`](crate::kernel::fp)); for `Q32`, whose additions are exact, it counts the
/// multiplications with room to spare.
pub(crate) const fn chain_ops(positions: usize) -> u64 {
    2 * positions as u64 + 4
}

/// When one position of the chain starts receiving, has received, and finishes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Served<N> {
    pub start: N,
    pub received: N,
    pub finish: N,
}

/// A walk along the send chain, one position at a time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chain<N> {
    sent: N,
    makespan: N,
}

impl<N: Real> Chain<N> {
    pub fn new() -> Self {
        Chain { sent: N::ZERO, makespan: N::ZERO }
    }

    /// Serves the next position, which takes `comm` seconds to receive its share and
    /// `comp` seconds to compute it.
    #[inline]
    pub fn serve(&mut self, comm: N, comp: N) -> Served<N> {
        let start = self.sent;
        let received = start + comm;
        let finish = received + comp;
        self.sent = received;
        // A finish that is not finite stays the makespan (issue 35): `max_of` dropped a
        // NaN, and a plan with a worker finishing at NaN was reported with the others'
        // makespan, past every check that the makespan is finite.
        if self.makespan.is_finite() && (finish > self.makespan || !finish.is_finite()) {
            self.makespan = finish;
        }
        Served { start, received, finish }
    }

    /// The latest finish time so far (eq. 2).
    #[inline]
    pub fn makespan(&self) -> N {
        self.makespan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 35: a position finishing at NaN made the makespan the others' latest finish,
    /// so a plan with a `null` time passed every finiteness check on its makespan.
    #[test]
    fn a_nan_finish_is_the_makespan() {
        for at in 0..3 {
            let mut chain = Chain::<f64>::new();
            for k in 0..3 {
                chain.serve(1.0, if k == at { f64::NAN } else { 2.0 });
            }
            assert!(chain.makespan().is_nan(), "NaN at position {at}");
        }
        let mut chain = Chain::<f64>::new();
        chain.serve(1.0, f64::INFINITY);
        chain.serve(1.0, 2.0);
        assert_eq!(chain.makespan(), f64::INFINITY);
    }
}
