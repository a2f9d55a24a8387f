//! The lower bound of legrand2003 §4 on a graph (integer variant): every ring, route and
//! sharing takes at least this long, from the full-capacity widest bandwidths and the
//! shared bandwidth leaving each processor.

use super::network::sort_candidates;
use super::Net;
use crate::ring::Problem;

impl Net<'_> {
    /// A lower bound on the integer `T_step` of every ring, route and sharing (§4,
    /// integer variant): the single processor; each pair with `d_i ≥ H·max(2/B_ij, 4/C_i)`
    /// (`B`: widest bandwidth on the full capacities, `C_i`: the shared bandwidth leaving
    /// `i`, none through a backbone); for three members or more `d_i ≥ δ_i =
    /// H·max(1/B_i(1) + 1/B_i(2), 4/C_i)` over its two widest distinct neighbours.
    /// Needs [`Net::all_pairs`] first.
    #[inline(never)]
    pub(crate) fn lower_bound(&mut self, problem: &Problem<'_>) -> f64 {
        let p = self.p;
        let (w, h) = (problem.cycle_times, problem.boundary);
        let work = problem.work as f64;
        let wt = |i: usize| w.get(i).copied().unwrap_or(f64::INFINITY);
        // 1/C_i, in `wq`.
        for (i, c) in self.wq.iter_mut().enumerate().take(p) {
            let (from, to) = (
                self.adj.start.get(i).copied().unwrap_or(0),
                self.adj.start.get(i + 1).copied().unwrap_or(0),
            );
            let (mut total, mut backbone) = (0.0, false);
            for a in from..to {
                match self.adj.link.get(a).and_then(|&e| self.links.get(e)) {
                    Some(l) if l.shared() => total += l.bandwidth,
                    Some(_) => backbone = true,
                    None => {}
                }
            }
            *c = if backbone || total == 0.0 { 0.0 } else { 1.0 / total };
        }
        let cinv = |i: usize| self.wq.get(i).copied().unwrap_or(0.0);
        let cost = |i: usize, j: usize| {
            let b = self.widest.get(i * p + j).copied().unwrap_or(0.0);
            if b > 0.0 {
                1.0 / b
            } else {
                f64::INFINITY
            }
        };
        let mut bound = w.iter().fold(f64::INFINITY, |m, &x| m.min(x)) * work;
        for i in 0..p {
            for j in i + 1..p {
                let (cij, cji) = (cost(i, j), cost(j, i));
                if !(cij.is_finite() && cji.is_finite()) {
                    continue;
                }
                let di = h * (2.0 * cij).max(4.0 * cinv(i));
                let dj = h * (2.0 * cji).max(4.0 * cinv(j));
                let t4 = (work + di / wt(i) + dj / wt(j)) / (1.0 / wt(i) + 1.0 / wt(j));
                bound = bound.min(t4.max(di + wt(i)).max(dj + wt(j)));
            }
        }
        if p >= 3 {
            let mut n = 0;
            for i in 0..p {
                let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
                for j in (0..p).filter(|&j| j != i) {
                    let x = cost(i, j);
                    if x < a {
                        (a, b) = (x, a);
                    } else if x < b {
                        b = x;
                    }
                }
                if b.is_finite() {
                    if let (Some(k), Some(x)) = (self.cand_key.get_mut(n), self.cand_idx.get_mut(n)) {
                        (*k, *x) = (h * (a + b).max(4.0 * cinv(i)), i);
                        n += 1;
                    }
                }
            }
            sort_candidates(self.cand_key, self.cand_idx, n);
            let (mut inv, mut weighted, mut gmin) = (0.0, 0.0, f64::INFINITY);
            for k in 0..n {
                let (Some(&delta), Some(&i)) = (self.cand_key.get(k), self.cand_idx.get(k)) else { break };
                inv += 1.0 / wt(i);
                weighted += delta / wt(i);
                gmin = gmin.min((work + weighted) / inv);
                if k >= 2 {
                    bound = bound.min(gmin.max(delta + wt(i)));
                }
            }
        }
        // As the clique's bound: a few units in the last place below the plans' values.
        bound * (1.0 - 8.0 * f64::EPSILON * (p as f64 + 4.0))
    }
}
