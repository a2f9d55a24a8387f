//! A plan's rows in send order, wherever they are kept: as [`Assignment`] records (the
//! full plan of [`plan`](crate::plan)), or as three arrays of one word each, which is all
//! that [`plan_counts`](crate::scatter::plan_counts) keeps (issue 45: 24 bytes a worker
//! instead of 56, written by rank into the caller's `MPI_Scatterv` arrays at the end).
//!
//! The solver writes each row's worker and rational share, the roundings read the shares
//! and set the counts, the last pass reads both and records the times; every phase goes
//! through [`Rows`], so both kinds of rows get the same plan, to the bit.

use crate::kernel::chain::{Chain, Served};
use crate::kernel::columns::Columns;
use crate::num::Real;
use crate::scatter::types::{col, Assignment, Costs, Scratch};

/// Rows `0..len()` of a plan in send order. Indices past `len()` (a bug) read as zero and
/// write nothing: no access here can panic (the `nopanic` proof).
pub(crate) trait Rows<N: Real> {
    fn len(&self) -> usize;
    /// The worker (its index in the input) at send position `k`.
    fn worker(&self, k: usize) -> usize;
    fn share(&self, k: usize) -> N;
    fn count(&self, k: usize) -> u64;
    fn set_count(&mut self, k: usize, count: u64);
    /// A row from the solver: its worker and share, no items yet.
    fn place(&mut self, k: usize, worker: usize, share: N);
    /// The integer plan's times at row `k`, and its block's offset in the root's buffer.
    fn record(&mut self, k: usize, displacement: u64, t: Served<N>);
}

impl<N: Real> Rows<N> for [Assignment<N>] {
    #[inline]
    fn len(&self) -> usize {
        <[Assignment<N>]>::len(self)
    }
    #[inline]
    fn worker(&self, k: usize) -> usize {
        self.get(k).map_or(0, |a| a.worker)
    }
    #[inline]
    fn share(&self, k: usize) -> N {
        self.get(k).map_or(N::ZERO, |a| a.share)
    }
    #[inline]
    fn count(&self, k: usize) -> u64 {
        self.get(k).map_or(0, |a| a.count)
    }
    #[inline]
    fn set_count(&mut self, k: usize, count: u64) {
        if let Some(a) = self.get_mut(k) {
            a.count = count;
        }
    }
    #[inline]
    fn place(&mut self, k: usize, worker: usize, share: N) {
        if let Some(a) = self.get_mut(k) {
            *a = Assignment { worker, share, ..Assignment::EMPTY };
        }
    }
    #[inline]
    fn record(&mut self, k: usize, displacement: u64, t: Served<N>) {
        if let Some(a) = self.get_mut(k) {
            a.displacement = displacement;
            (a.start, a.received, a.finish) = (t.start, t.received, t.finish);
        }
    }
}

/// Rows as three word arrays of the same length: the worker, the count, and the share as
/// [`Real::to_word`]. Times are not kept: the counts are the plan.
pub(crate) struct Split<'a> {
    pub worker: &'a mut [u64],
    pub count: &'a mut [u64],
    pub share: &'a mut [u64],
}

impl<N: Real> Rows<N> for Split<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.worker.len()
    }
    #[inline]
    fn worker(&self, k: usize) -> usize {
        // Stored from `usize` values, so the conversion back is exact.
        self.worker.get(k).map_or(0, |&w| w as usize)
    }
    #[inline]
    fn share(&self, k: usize) -> N {
        self.share.get(k).map_or(N::ZERO, |&s| N::from_word(s))
    }
    #[inline]
    fn count(&self, k: usize) -> u64 {
        self.count.get(k).copied().unwrap_or(0)
    }
    #[inline]
    fn set_count(&mut self, k: usize, count: u64) {
        if let Some(c) = self.count.get_mut(k) {
            *c = count;
        }
    }
    #[inline]
    fn place(&mut self, k: usize, worker: usize, share: N) {
        if let (Some(w), Some(c), Some(s)) =
            (self.worker.get_mut(k), self.count.get_mut(k), self.share.get_mut(k))
        {
            (*w, *c, *s) = (worker as u64, 0, share.to_word());
        }
    }
    #[inline]
    fn record(&mut self, _: usize, _: u64, _: Served<N>) {}
}

/// Turns rows in send order (`worker`: the send order; `count`: the counts) into counts
/// and displacements by rank, and with `finish` each rank's finish time: on return
/// `count[r]`, `displs[r]` and `finish[r]` are rank `r`'s count, block offset (blocks
/// contiguous in send order) and finish time, and `worker` still holds the send order,
/// which must be a permutation of `0..len` (the solver's is). `cols` are the plan's
/// columns: the costs at each position are read from them as the plan's last pass read
/// them, so the times are the plan's to the bit.
///
/// The counts in send order go through the worker column, which the rows hold now, so
/// that each row is then one sequential read and writes at its rank that do not wait on
/// each other; following the permutation's cycles in place needs no spare but waits on a
/// miss per row, and took 2× the whole plan at 10⁶ workers.
pub(crate) fn by_rank<N: Real>(
    costs: &Costs<'_, N>,
    worker: &[u64],
    count: &mut [u64],
    displs: &mut [u64],
    mut finish: Option<&mut [N]>,
    cols: &mut Columns<'_, Scratch<N>>,
) {
    for (k, &c) in count.iter().enumerate() {
        cols.set(col::WORKER, k, c);
    }
    let (mut offset, mut chain) = (0u64, Chain::new());
    for (k, &w) in worker.iter().enumerate() {
        let c = cols.get(col::WORKER, k);
        let r = w as usize;
        if let Some(finish) = finish.as_deref_mut() {
            let (cost, x) = (costs.at(cols, k, || r), N::from_u64(c));
            let t = chain.serve(cost.comm_time(x), cost.comp_time(x));
            if let Some(f) = finish.get_mut(r) {
                *f = t.finish;
            }
        }
        if let (Some(to_count), Some(to_displs)) = (count.get_mut(r), displs.get_mut(r)) {
            (*to_count, *to_displs) = (c, offset);
        }
        offset = offset.saturating_add(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation of up to 6 rows, and random ones of up to 2 000: counts and
    /// offsets land at their rank, the send order is left as it was.
    #[test]
    fn by_rank_places_every_row_at_its_rank() {
        fn check(order: &[u64], counts: &[u64]) {
            let worker = order.to_vec();
            let mut count = counts.to_vec();
            let mut displs = std::vec![u64::MAX; order.len()];
            let mut scratch = std::vec![Scratch::<f64>::EMPTY; order.len()];
            let workers = std::vec![crate::Worker::linear(0.0, 1.0); order.len()];
            let costs = Costs::new(&workers, 0);
            by_rank(&costs, &worker, &mut count, &mut displs, None, &mut Columns::new(&mut scratch));
            assert_eq!(worker, order);
            let mut offset = 0;
            for (k, &r) in order.iter().enumerate() {
                assert_eq!(count[r as usize], counts[k], "{order:?}");
                assert_eq!(displs[r as usize], offset, "{order:?}");
                offset += counts[k];
            }
        }
        fn permutations(n: usize, prefix: &mut std::vec::Vec<u64>, f: &mut impl FnMut(&[u64])) {
            if prefix.len() == n {
                return f(prefix);
            }
            for i in 0..n as u64 {
                if !prefix.contains(&i) {
                    prefix.push(i);
                    permutations(n, prefix, f);
                    prefix.pop();
                }
            }
        }
        for n in 0..=6 {
            let counts: std::vec::Vec<u64> = (0..n as u64).map(|i| 10 + i * i).collect();
            permutations(n, &mut std::vec::Vec::new(), &mut |order| check(order, &counts));
        }
        let mut rnd = crate::num::xorshift(0x5eed_0451);
        for _ in 0..200 {
            let n = (rnd() % 2_000) as usize;
            let mut order: std::vec::Vec<u64> = (0..n as u64).collect();
            for i in (1..n).rev() {
                order.swap(i, (rnd() % (i as u64 + 1)) as usize);
            }
            let counts: std::vec::Vec<u64> = (0..n).map(|_| rnd() % 1_000).collect();
            check(&order, &counts);
        }
    }
}
