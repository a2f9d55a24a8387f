//! A given ring on the graph (legrand2003 §4.3, §6; `ring.md` §5): routed by widest
//! paths on the full capacities and shared as asked, for the clique's local and
//! exhaustive searches, for a fixed ring, and for the plan's final sharing to the
//! certified gap.

use super::barrier::{optimal_certified, PLAN_TOLERANCE};
use super::network::{copy_route, full_cap, slot, Paths};
use super::sharing::{max_min, optimal, value_of_shares, Members, ESTIMATE_SWEEPS, GROWTH_TOLERANCE};
use super::Net;
use crate::ring::{Problem, Sharing};

/// Most rings the local search values on a graph: each needs `2q` widest paths and a
/// sharing (BENCHMARKS.md).
pub const LOCAL_EVALUATIONS: usize = 500;

impl Net<'_> {
    /// Routes `ring` by widest paths on the full capacities (positions' slots `2t`, `2t +
    /// 1` of the evaluation store), shares them as `problem.sharing` says (max-min for
    /// the greedy's sharing, which has no meaning outside the growth; max-min then the
    /// optimal sharing for `optimal`), and writes the members' communication times.
    /// `false` when a route is missing.
    pub(crate) fn evaluate(&mut self, problem: &Problem<'_>, ring: &[usize], d: &mut [f64]) -> bool {
        let q = ring.len();
        if q < 2 {
            if let Some(x) = d.first_mut() {
                *x = 0.0;
            }
            return true;
        }
        let len = self.len;
        for t in 0..q {
            let s = ring.get(t).copied().unwrap_or(0);
            for (r, to) in [(0, ring.get((t + 1) % q)), (1, ring.get((t + q - 1) % q))] {
                let to = to.copied().unwrap_or(0);
                let k = 2 * t + r;
                self.dij.run(&self.adj, s, to, &full_cap(self.links));
                let Some(out) = self.eval_links.get_mut(k * len..(k + 1) * len) else { return false };
                let Some((n, _)) = self.dij.route(s, to, out) else { return false };
                if let Some(l) = self.eval_len.get_mut(k) {
                    *l = n;
                }
            }
        }
        self.share_eval(problem, ring, false);
        let h = problem.boundary;
        for (t, dk) in d.iter_mut().enumerate().take(q) {
            let x = |k: usize| self.eval_share.get(k).copied().unwrap_or(0.0);
            *dk = h / x(2 * t) + h / x(2 * t + 1);
        }
        true
    }

    /// Shares the evaluation store's `2q` routes (full capacities): max-min, then the
    /// optimal sharing from there for `optimal`. Returns the value and the optimal
    /// sharing's dual bound (the value itself otherwise).
    fn share_eval(&mut self, problem: &Problem<'_>, ring: &[usize], certify: bool) -> (f64, f64) {
        let q = ring.len();
        let (links, len) = (self.links, self.len);
        let (el, en) = (&*self.eval_links, &*self.eval_len);
        self.cons.build(links, 2 * q, &|k| slot(el, len, en, k), &full_cap(links));
        for (k, o) in self.owner.iter_mut().enumerate().take(2 * q) {
            *o = k / 2;
        }
        for (t, wq) in self.wq.iter_mut().enumerate().take(q) {
            *wq =
                problem.cycle_times.get(ring.get(t).copied().unwrap_or(0)).copied().unwrap_or(f64::INFINITY);
        }
        let members =
            Members { w: self.wq.get(..q).unwrap_or(&[]), owner: self.owner.get(..2 * q).unwrap_or(&[]) };
        let (work, h) = (problem.work, problem.boundary);
        if problem.sharing != Sharing::Optimal {
            max_min(&self.cons, 2 * q, self.eval_share, self.mark, self.load);
            let dd = self.opt.get_mut(..q).unwrap_or(&mut []);
            let v = value_of_shares(&members, work, h, self.eval_share, dd);
            return (v, v);
        }
        max_min(&self.cons, 2 * q, self.eval_share, self.mark, self.load);
        if certify {
            let bufs = (&mut *self.opt, &mut *self.newton, &mut *self.lam, &mut *self.load);
            return optimal_certified(
                &self.cons,
                &members,
                work,
                h,
                self.eval_share,
                bufs,
                self.order,
                PLAN_TOLERANCE,
            );
        }
        optimal(
            &self.cons,
            &members,
            work,
            h,
            self.eval_share,
            self.opt,
            self.lam,
            self.order,
            ESTIMATE_SWEEPS,
            GROWTH_TOLERANCE,
        )
    }

    /// The plan's routes by position into the evaluation store, shared again: for the
    /// optimal sharing to the certified gap `1e-9` (§6.2), its rational value never worse
    /// than the shares in `best`; the certified relative gap goes to [`Net::gap`].
    #[inline(never)]
    pub(crate) fn polish(&mut self, problem: &Problem<'_>, ring: &[usize], best: &mut Paths<'_>) {
        let q = ring.len();
        self.gap = 0.0;
        if q < 2 || problem.sharing != Sharing::Optimal {
            return;
        }
        let len = self.len;
        for k in 0..2 * q {
            copy_route((&*best.links, &*best.len), k, (&mut *self.eval_links, &mut *self.eval_len), k, len);
        }
        let (links, el, en) = (self.links, &*self.eval_links, &*self.eval_len);
        self.cons.build(links, 2 * q, &|k| slot(el, len, en, k), &full_cap(links));
        for (k, o) in self.owner.iter_mut().enumerate().take(2 * q) {
            *o = k / 2;
        }
        for (t, wq) in self.wq.iter_mut().enumerate().take(q) {
            *wq =
                problem.cycle_times.get(ring.get(t).copied().unwrap_or(0)).copied().unwrap_or(f64::INFINITY);
        }
        if let (Some(e), Some(b)) = (self.eval_share.get_mut(..2 * q), best.share.get(..2 * q)) {
            e.copy_from_slice(b);
        }
        let members =
            Members { w: self.wq.get(..q).unwrap_or(&[]), owner: self.owner.get(..2 * q).unwrap_or(&[]) };
        let (t, dual) = optimal_certified(
            &self.cons,
            &members,
            problem.work,
            problem.boundary,
            self.eval_share,
            (self.opt, self.newton, self.lam, self.load),
            self.order,
            PLAN_TOLERANCE,
        );
        self.gap = ((t - dual) / t).max(0.0);
        if let (Some(b), Some(e)) = (best.share.get_mut(..2 * q), self.eval_share.get(..2 * q)) {
            b.copy_from_slice(e);
        }
    }

    /// The evaluation store (the last ring evaluated) into `best`.
    pub(crate) fn keep_evaluated(&self, q: usize, best: &mut Paths<'_>) {
        for k in 0..2 * q {
            copy_route(
                (&*self.eval_links, &*self.eval_len),
                k,
                (&mut *best.links, &mut *best.len),
                k,
                self.len,
            );
            if let (Some(b), Some(&e)) = (best.share.get_mut(k), self.eval_share.get(k)) {
                *b = e;
            }
        }
    }
}

impl Net<'_> {
    /// A given ring routed by widest paths on the full capacities and shared as
    /// `problem.sharing` says (max-min for `greedy`; optimal to the certified gap 1e-9):
    /// its value and that gap, its shares by position into `shares`.
    pub(crate) fn fixed(
        &mut self,
        problem: &Problem<'_>,
        ring: &[usize],
        shares: &mut [f64],
    ) -> Option<(f64, f64)> {
        let q = ring.len();
        if q < 2 || shares.len() < 2 * q {
            return None;
        }
        let len = self.len;
        for t in 0..q {
            let s = *ring.get(t)?;
            for (r, to) in [(0, (t + 1) % q), (1, (t + q - 1) % q)] {
                let to = *ring.get(to)?;
                let k = 2 * t + r;
                self.dij.run(&self.adj, s, to, &full_cap(self.links));
                let (n, _) = self.dij.route(s, to, self.eval_links.get_mut(k * len..(k + 1) * len)?)?;
                *self.eval_len.get_mut(k)? = n;
            }
        }
        let (t, dual) = self.share_eval(problem, ring, true);
        shares.get_mut(..2 * q)?.copy_from_slice(self.eval_share.get(..2 * q)?);
        Some((t, ((t - dual) / t).max(0.0)))
    }
}
