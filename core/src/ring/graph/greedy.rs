//! The paper's greedy over a graph (legrand2003 §5, §4.3): the best pair, then the best
//! insertion, its four new routes routed in the residual bandwidth and shared
//! analytically. Candidates are valued exactly in increasing order of a bound that takes
//! each new route at its widest bandwidth in the residual, and the scan stops when the
//! bound passes the best value found: the literal greedy's choice with less work. After
//! each insertion the ring is refined as its sharing asks (§4.3, §6).

use super::network::{copy, copy_route, full_cap, give, residual_cap, slot, sort_candidates, Paths, NONE};
use super::sharing::{
    max_min, min_weighted_sum, optimal, value_of_shares, Members, ESTIMATE_SWEEPS, GROWTH_TOLERANCE,
};
use super::Net;
use crate::ring::clique::{insert_at, Search};
use crate::ring::fixed::value;
use crate::ring::{Problem, Sharing};

impl Net<'_> {
    /// Shares the four candidate routes (slots 0–3) by `min Σ u/x` under the capacities
    /// `cap` (§5 step 4).
    fn share_candidates(&mut self, u: &[f64; 4], residual: bool) {
        let (links, len) = (self.links, self.len);
        let (cl, cn) = (&*self.cand_links, &*self.cand_len);
        let route = |k: usize| slot(cl, len, cn, k);
        if residual {
            self.cons.build(links, 4, &route, &residual_cap(links, self.spare));
        } else {
            self.cons.build(links, 4, &route, &full_cap(links));
        }
        min_weighted_sum(&self.cons, 4, u, self.cand_share, self.opt, self.lam);
    }

    /// Routes `s → t` into candidate slot `k` on the full capacities or on `spare`.
    fn route_candidate(&mut self, s: usize, t: usize, k: usize, residual: bool) -> bool {
        if residual {
            self.dij.run(&self.adj, s, t, &residual_cap(self.links, self.spare));
        } else {
            self.dij.run(&self.adj, s, t, &full_cap(self.links));
        }
        let len = self.len;
        let Some(out) = self.cand_links.get_mut(k * len..(k + 1) * len) else { return false };
        match self.dij.route(s, t, out) {
            Some((n, _)) => {
                if let Some(l) = self.cand_len.get_mut(k) {
                    *l = n;
                }
                true
            }
            None => false,
        }
    }

    /// The route `s → t` of stored forward tree `tree` into candidate slot `k`.
    fn tree_route(&mut self, tree: usize, s: usize, t: usize, k: usize) -> bool {
        let (n, len) = (self.dij.prev_node.len(), self.len);
        let (Some(tn), Some(tl)) =
            (self.tree_node.get(tree * n..(tree + 1) * n), self.tree_link.get(tree * n..(tree + 1) * n))
        else {
            return false;
        };
        let Some(out) = self.cand_links.get_mut(k * len..(k + 1) * len) else { return false };
        let mut hops = 0;
        let mut x = t;
        while x != s {
            hops += 1;
            match tn.get(x) {
                Some(&u) if hops <= len => x = u,
                _ => return false,
            }
        }
        let mut x = t;
        for at in (0..hops).rev() {
            match (out.get_mut(at), tl.get(x), tn.get(x)) {
                (Some(o), Some(&e), Some(&u)) => {
                    *o = e;
                    x = u;
                }
                _ => return false,
            }
        }
        if let Some(l) = self.cand_len.get_mut(k) {
            *l = hops;
        }
        hops > 0
    }

    /// Candidate slots 0–3 into the chosen slots 4–7.
    fn choose_candidates(&mut self) {
        let len = self.len;
        for k in 0..4 {
            let (Some((src, dst)), Some((sl, dl))) =
                (self.cand_links.split_at_mut_checked(4 * len), self.cand_len.split_at_mut_checked(4))
            else {
                return;
            };
            copy_route((src, sl), k, (dst, dl), k, len);
            let x = self.cand_share.get(k).copied().unwrap_or(0.0);
            if let Some(s) = self.cand_share.get_mut(4 + k) {
                *s = x;
            }
        }
    }

    fn slot_share(&self, k: usize) -> f64 {
        self.slot_share.get(k).copied().unwrap_or(0.0)
    }

    /// The members' communication times from the processor slots.
    fn slot_comms(&self, h: f64, ring: &[usize], d: &mut [f64]) {
        let q = ring.len();
        for (t, dk) in d.iter_mut().enumerate().take(q) {
            let m = ring.get(t).copied().unwrap_or(0);
            *dk = if q < 2 { 0.0 } else { h / self.slot_share(2 * m) + h / self.slot_share(2 * m + 1) };
        }
    }

    /// The greedy (§5) over the graph, each ring size valued in `search`; the best ring's
    /// routes by position into `best`. `ring` and `d` hold `p` entries.
    #[inline(never)]
    pub(crate) fn greedy(
        &mut self,
        problem: &Problem<'_>,
        search: &mut Search<'_>,
        ring: &mut [usize],
        d: &mut [f64],
        best: &mut Paths<'_>,
    ) {
        let p = self.p;
        let (w, h, work) = (problem.cycle_times, problem.boundary, problem.work);
        let wt = |i: usize| w.get(i).copied().unwrap_or(f64::INFINITY);
        let Some(fastest) = (0..p).min_by(|&a, &b| wt(a).total_cmp(&wt(b))) else { return };
        let (Some(ring), Some(d)) = (ring.get_mut(..p), d.get_mut(..p)) else { return };
        if let Some(r) = ring.first_mut() {
            *r = fastest;
        }
        search.consider(&[fastest], &[0.0]);
        if let Some(l) = best.len.get_mut(..2) {
            l.fill(0);
        }
        let [first, second, ..] = ring else { return };
        self.all_pairs();
        // The best pair: four routes, two each way, shared analytically.
        let mut pair = None;
        let mut pair_v = f64::INFINITY;
        for i in 0..p {
            for j in i + 1..p {
                let (bij, bji) = (self.widest_bw(i, j), self.widest_bw(j, i));
                if !(bij > 0.0 && bji > 0.0) {
                    continue;
                }
                let lb = value(w, &[i, j], &[2.0 * h / bij, 2.0 * h / bji], work);
                if lb >= pair_v {
                    continue;
                }
                if !(self.route_candidate(i, j, 0, false) && self.route_candidate(j, i, 2, false)) {
                    continue;
                }
                let len = self.len;
                for (from, to) in [(0, 1), (2, 3)] {
                    let Some((a, b)) = self.cand_links.split_at_mut_checked(to * len) else { continue };
                    let n = self.cand_len.get(from).copied().unwrap_or(0);
                    if let (Some(src), Some(dst)) = (a.get(from * len..from * len + n), b.get_mut(..n)) {
                        copy(dst, src);
                    }
                    if let Some(l) = self.cand_len.get_mut(to) {
                        *l = n;
                    }
                }
                self.share_candidates(&[1.0 / wt(i), 1.0 / wt(i), 1.0 / wt(j), 1.0 / wt(j)], false);
                let x = |k: usize| self.cand_share.get(k).copied().unwrap_or(0.0);
                let v = value(w, &[i, j], &[h / x(0) + h / x(1), h / x(2) + h / x(3)], work);
                if v < pair_v {
                    pair_v = v;
                    pair = Some((i, j));
                    self.choose_candidates();
                }
            }
        }
        let Some((i, j)) = pair else { return };
        for (r, e) in self.resid.iter_mut().zip(self.links) {
            *r = e.bandwidth;
        }
        (*first, *second) = (i, j);
        self.commit([(2 * i, 4), (2 * i + 1, 5), (2 * j, 6), (2 * j + 1, 7)]);
        let mut q = 2;
        let cur = ring.get(..q).unwrap_or(&[]);
        self.refine_and_record(problem, search, cur, d, best);
        while q < p {
            let Some(cur) = ring.get(..q) else { break };
            let member = |t: usize| cur.get(t % q).copied().unwrap_or(0);
            let dt = |t: usize| d.get(t % q).copied().unwrap_or(0.0);
            let mut n = 0usize;
            let (mut inv, mut weighted) = (0.0, 0.0);
            for (&m, &dm) in cur.iter().zip(d.iter()) {
                inv += 1.0 / wt(m);
                weighted += dm / wt(m);
            }
            for pos in 0..q {
                let (i, j) = (member(pos), member(pos + 1));
                let rest = (0..q).filter(|&t| t != pos && t != (pos + 1) % q).map(dt).fold(0.0, f64::max);
                let (pi, sj) = (self.slot_share(2 * i + 1), self.slot_share(2 * j));
                // The residual this position's candidates route in: the widest bandwidths
                // from and to i and j in it bound every candidate's four new routes.
                self.reinject(i, j);
                for (r, (from, reverse)) in
                    [(i, false), (i, true), (j, true), (j, false)].into_iter().enumerate()
                {
                    let adj = if reverse { &self.radj } else { &self.adj };
                    self.dij.run(adj, from, NONE, &residual_cap(self.links, self.spare));
                    for k in 0..p {
                        let reached = self.dij.state.get(k) == Some(&2) && k != from;
                        if let Some(x) = self.reach.get_mut(r * p + k) {
                            *x = if reached { self.dij.bw.get(k).copied().unwrap_or(0.0) } else { 0.0 };
                        }
                    }
                    // The forward trees hold the routes i → k and j → k the exact
                    // evaluation needs: a node's label is final once it leaves the heap,
                    // so a run to one target finds the same route.
                    if !reverse {
                        let tree = if r == 0 { 2 * pos } else { 2 * pos + 1 };
                        let n = self.dij.prev_node.len();
                        if let (Some(tn), Some(tl)) = (
                            self.tree_node.get_mut(tree * n..(tree + 1) * n),
                            self.tree_link.get_mut(tree * n..(tree + 1) * n),
                        ) {
                            copy(tn, self.dij.prev_node);
                            copy(tl, self.dij.prev_link);
                        }
                    }
                }
                for k in 0..p {
                    if cur.contains(&k) {
                        continue;
                    }
                    let at = |r: usize| self.reach.get(r * p + k).copied().unwrap_or(0.0);
                    let b = [at(0), at(1), at(2), at(3)];
                    if b.iter().any(|&x| x <= 0.0 || x.is_nan()) {
                        continue;
                    }
                    let (di, dk, dj) = (h / b[0] + h / pi, h / b[1] + h / b[2], h / sj + h / b[3]);
                    let lb = candidate_value(
                        work,
                        inv,
                        weighted,
                        rest,
                        [(wt(i), dt(pos), di), (wt(j), dt(pos + 1), dj)],
                        (wt(k), dk),
                    );
                    if let (Some(key), Some(idx)) = (self.cand_key.get_mut(n), self.cand_idx.get_mut(n)) {
                        (*key, *idx) = (lb, k * p + pos);
                        n += 1;
                    }
                }
            }
            // Exactly, in increasing order of the bound, until the bound passes the best.
            sort_candidates(self.cand_key, self.cand_idx, n);
            let mut chosen: Option<(usize, f64)> = None;
            for at in 0..n {
                let (Some(&lb), Some(&idx)) = (self.cand_key.get(at), self.cand_idx.get(at)) else { break };
                if let Some((_, bv)) = chosen {
                    if lb > bv * (1.0 + 1e-12) {
                        break;
                    }
                }
                let (k, pos) = (idx / p, idx % p);
                let (i, j) = (member(pos), member(pos + 1));
                self.reinject(i, j);
                if !(self.tree_route(2 * pos, i, k, 0)
                    && self.route_candidate(k, i, 1, true)
                    && self.route_candidate(k, j, 2, true)
                    && self.tree_route(2 * pos + 1, j, k, 3))
                {
                    continue;
                }
                self.share_candidates(&[1.0 / wt(i), 1.0 / wt(k), 1.0 / wt(k), 1.0 / wt(j)], true);
                let x = |s: usize| self.cand_share.get(s).copied().unwrap_or(0.0);
                let (di, dk, dj) = (
                    h / x(0) + h / self.slot_share(2 * i + 1),
                    h / x(1) + h / x(2),
                    h / self.slot_share(2 * j) + h / x(3),
                );
                let rest = (0..q).filter(|&t| t != pos && t != (pos + 1) % q).map(dt).fold(0.0, f64::max);
                let v = candidate_value(
                    work,
                    inv,
                    weighted,
                    rest,
                    [(wt(i), dt(pos), di), (wt(j), dt(pos + 1), dj)],
                    (wt(k), dk),
                );
                let take = match chosen {
                    None => v < f64::INFINITY,
                    Some((bidx, bv)) => v < bv - 1e-12 * bv || (v <= bv + 1e-12 * bv && idx < bidx),
                };
                if take {
                    chosen = Some((idx, v));
                    self.choose_candidates();
                }
            }
            let Some((idx, _)) = chosen else { break };
            let (k, pos) = (idx / p, idx % p);
            let (i, j) = (member(pos), member(pos + 1));
            for s in [2 * i, 2 * j + 1] {
                let x = self.slot_share(s);
                give(self.links, self.resid, slot(self.slot_links, self.len, self.slot_len, s), x, 1.0);
            }
            self.commit([(2 * i, 4), (2 * k + 1, 5), (2 * k, 6), (2 * j + 1, 7)]);
            insert_at(ring, q, pos + 1, k);
            q += 1;
            let cur = ring.get(..q).unwrap_or(&[]);
            self.refine_and_record(problem, search, cur, d, best);
        }
    }

    /// Refines the ring just grown (§4.3) and values it in `search`; `d` receives the
    /// members' communication times the growth goes on with. Max-min's shares stay (the
    /// paper's procedure, ring.md §6.1). The optimal sharing only values the ring: the
    /// growth goes on from the greedy's own shares, and each ring size is valued by a few
    /// sweeps of the ascent from them (a feasible sharing, so an achieved value), the
    /// plan's ring polished to the certified gap at the end. (Growing from the refined
    /// shares, as the paper does, cost 100 sweeps after each insertion and gave no better
    /// plan on the generated platforms: BENCHMARKS.md.)
    fn refine_and_record(
        &mut self,
        problem: &Problem<'_>,
        search: &mut Search<'_>,
        ring: &[usize],
        d: &mut [f64],
        best: &mut Paths<'_>,
    ) {
        let h = problem.boundary;
        let keep = problem.sharing == Sharing::Optimal;
        if keep {
            copy(self.kept_resid, self.resid);
            copy(self.kept_share, self.slot_share);
            // The greedy's own shares are a candidate too: the refinement lowers the
            // rational value, and plans are compared by their integer makespan first.
            self.slot_comms(h, ring, d);
            self.record(search, ring, d, best);
        }
        self.refine(problem, ring);
        self.slot_comms(h, ring, d);
        self.record(search, ring, d, best);
        if keep {
            copy(self.resid, self.kept_resid);
            copy(self.slot_share, self.kept_share);
            self.slot_comms(h, ring, d);
        }
    }

    /// The residual with `i`'s route to its successor `j` and `j`'s route back given back,
    /// into `spare`: what an insertion between them routes in.
    fn reinject(&mut self, i: usize, j: usize) {
        copy(self.spare, self.resid);
        for s in [2 * i, 2 * j + 1] {
            let x = self.slot_share(s);
            give(self.links, self.spare, slot(self.slot_links, self.len, self.slot_len, s), x, 1.0);
        }
    }

    /// Puts chosen candidate routes into processor slots and takes their shares from the
    /// residual.
    fn commit(&mut self, moves: [(usize, usize); 4]) {
        let len = self.len;
        for (to, from) in moves {
            copy_route((self.cand_links, self.cand_len), from, (self.slot_links, self.slot_len), to, len);
            let x = self.cand_share.get(from).copied().unwrap_or(0.0);
            if let Some(s) = self.slot_share.get_mut(to) {
                *s = x;
            }
            give(self.links, self.resid, slot(self.slot_links, len, self.slot_len, to), x, -1.0);
        }
    }

    /// Values the ring in `search`; when it is the best so far, its routes by position go
    /// to `best`.
    fn record(&mut self, search: &mut Search<'_>, ring: &[usize], d: &[f64], best: &mut Paths<'_>) {
        let before = search.best_key;
        let q = ring.len();
        search.consider(ring, d);
        if search.best_key != before && search.best_q == q {
            for (t, &m) in ring.iter().enumerate() {
                for r in 0..2 {
                    copy_route(
                        (self.slot_links, self.slot_len),
                        2 * m + r,
                        (best.links, best.len),
                        2 * t + r,
                        self.len,
                    );
                    if let Some(s) = best.share.get_mut(2 * t + r) {
                        *s = self.slot_share(2 * m + r);
                    }
                }
            }
        }
    }

    /// The refinement after an insertion (§4.3): every share of the ring recomputed on the
    /// full capacities by max-min (always kept: the shares a fair network gives, ring.md
    /// §6.1) or the optimal sharing (kept when the ring improves); the residual follows.
    fn refine(&mut self, problem: &Problem<'_>, ring: &[usize]) {
        if problem.sharing == Sharing::Greedy || ring.len() < 2 {
            return;
        }
        let q = ring.len();
        let (links, len) = (self.links, self.len);
        let (sl, sn) = (&*self.slot_links, &*self.slot_len);
        let at = |k: usize| 2 * ring.get(k / 2).copied().unwrap_or(0) + k % 2;
        let route = |k: usize| slot(sl, len, sn, at(k));
        self.cons.build(links, 2 * q, &route, &full_cap(links));
        for (k, o) in self.owner.iter_mut().enumerate().take(2 * q) {
            *o = k / 2;
        }
        for (t, wq) in self.wq.iter_mut().enumerate().take(q) {
            *wq =
                problem.cycle_times.get(ring.get(t).copied().unwrap_or(0)).copied().unwrap_or(f64::INFINITY);
        }
        for k in 0..2 * q {
            let x = self.slot_share.get(at(k)).copied().unwrap_or(0.0);
            if let Some(e) = self.eval_share.get_mut(k) {
                *e = x;
            }
        }
        let members =
            Members { w: self.wq.get(..q).unwrap_or(&[]), owner: self.owner.get(..2 * q).unwrap_or(&[]) };
        let (work, h) = (problem.work, problem.boundary);
        let Some(dd) = self.opt.get_mut(..q) else { return };
        let before = value_of_shares(&members, work, h, self.eval_share, dd);
        let adopt = match problem.sharing {
            // Always: a max_min plan reports what a fair network gives its routes.
            Sharing::MaxMin => {
                max_min(&self.cons, 2 * q, self.eval_share, self.mark, self.load);
                true
            }
            _ => {
                let (t, _) = optimal(
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
                );
                t < before
            }
        };
        if adopt {
            for k in 0..2 * q {
                let x = self.eval_share.get(k).copied().unwrap_or(0.0);
                if let Some(s) = self.slot_share.get_mut(at(k)) {
                    *s = x;
                }
            }
            for (r, e) in self.resid.iter_mut().zip(self.links) {
                *r = e.bandwidth;
            }
            for k in 0..2 * q {
                let s = at(k);
                give(
                    self.links,
                    self.resid,
                    slot(self.slot_links, len, self.slot_len, s),
                    self.slot_share(s),
                    -1.0,
                );
            }
        }
    }
}

/// `V` of the ring after inserting a processor between `i` and `j` (§4.1 with the names
/// corrected, §10 item 6): the sums lose `i`'s and `j`'s old terms and gain the new
/// ones; `rest` is the largest communication time of the other members.
fn candidate_value(
    work: u64,
    inv: f64,
    weighted: f64,
    rest: f64,
    ij: [(f64, f64, f64); 2],
    k: (f64, f64),
) -> f64 {
    let [(wi, oi, di), (wj, oj, dj)] = ij;
    let (wk, dk) = k;
    let inv2 = inv + 1.0 / wk;
    let weighted2 = weighted - oi / wi - oj / wj + di / wi + dj / wj + dk / wk;
    ((work as f64 + weighted2) / inv2).max(rest).max(di).max(dj).max(dk)
}
