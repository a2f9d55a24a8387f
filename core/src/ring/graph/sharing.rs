//! How routes crossing a shared link share its bandwidth (legrand2003 §6; `ring.md`
//! §6–7): the capacity constraints of a set of routes, max-min fair sharing (progressive
//! filling, §6.1), the greedy's analytic sharing of its new routes (`min Σ u/x`, §5 step
//! 4), and the optimal sharing of §6.2 by block-coordinate ascent on its closed-form dual,
//! each sweep's primal point made feasible, so that its value is achieved and its dual
//! value a bound.

use super::network::{copy, Caps, Link, NONE};

/// Capacity constraints of a set of routes (CSR): constraint `c` has capacity `cap[c]`
/// and routes `entries[start[c]..start[c + 1]]`. A shared link gives one constraint over
/// every route crossing it; a backbone link one private constraint per route.
pub(super) struct Constraints<'b> {
    pub(super) cap: &'b mut [f64],
    pub(super) start: &'b mut [usize],
    pub(super) entries: &'b mut [usize],
    /// The constraint of each route–link incidence, in route order.
    pub(super) ids: &'b mut [usize],
    pub(super) link_map: &'b mut [usize],
    pub(super) count: usize,
}

impl Constraints<'_> {
    /// Builds the constraints of routes `0..routes` whose links `route(k)` gives; shared
    /// links offer `shared(link)`.
    pub(super) fn build<'r>(
        &mut self,
        links: &[Link],
        routes: usize,
        route: &dyn Fn(usize) -> &'r [usize],
        shared: &Caps<'_>,
    ) {
        let mut count = 0usize;
        let mut seen = 0usize;
        // At most one constraint per route–link incidence: clearing the counts of those
        // alone (the buffer holds every route's longest path, 2p·n words; clearing it all
        // was 14 % of the greedy's time at 70 machines).
        let incidences: usize = (0..routes).map(|k| route(k).len()).sum();
        for s in self.start.iter_mut().take(incidences.saturating_add(2)) {
            *s = 0;
        }
        for k in 0..routes {
            for &e in route(k) {
                let Some(l) = links.get(e) else { continue };
                let id = if l.shared() {
                    let Some(m) = self.link_map.get_mut(e) else { continue };
                    if *m == NONE {
                        *m = count;
                        if let Some(c) = self.cap.get_mut(count) {
                            *c = shared.at(e);
                        }
                        count += 1;
                    }
                    *m
                } else {
                    if let Some(c) = self.cap.get_mut(count) {
                        *c = l.bandwidth;
                    }
                    count += 1;
                    count - 1
                };
                if let Some(s) = self.start.get_mut(id) {
                    *s += 1;
                }
                if let Some(x) = self.ids.get_mut(seen) {
                    *x = id;
                }
                seen += 1;
            }
        }
        let mut total = 0;
        for s in self.start.iter_mut().take(count + 1) {
            total += *s;
            *s = total;
        }
        // Filled from each constraint's end, so `start` ends at each beginning.
        let mut at = 0usize;
        for k in 0..routes {
            for &e in route(k) {
                if let Some(m) = self.link_map.get_mut(e) {
                    *m = NONE;
                }
                let id = self.ids.get(at).copied().unwrap_or(NONE);
                at += 1;
                if let Some(s) = self.start.get_mut(id) {
                    *s -= 1;
                    if let Some(x) = self.entries.get_mut(*s) {
                        *x = k;
                    }
                }
            }
        }
        self.count = count;
    }

    pub(super) fn routes(&self, c: usize) -> &[usize] {
        let (a, b) = (self.start.get(c).copied().unwrap_or(0), self.start.get(c + 1).copied().unwrap_or(0));
        self.entries.get(a..b).unwrap_or(&[])
    }

    pub(super) fn capacity(&self, c: usize) -> f64 {
        self.cap.get(c).copied().unwrap_or(0.0)
    }
}

/// Max-min fair shares of routes `0..routes` (§6.1, progressive filling): every unfrozen
/// route rises at the same level until a constraint saturates, whose routes then freeze.
/// `mark` and `load` are working memory (routes, constraints).
pub(super) fn max_min(
    cons: &Constraints<'_>,
    routes: usize,
    x: &mut [f64],
    mark: &mut [usize],
    load: &mut [f64],
) {
    for m in mark.iter_mut().take(routes) {
        *m = 0;
    }
    for l in load.iter_mut().take(cons.count) {
        *l = 0.0;
    }
    for _ in 0..routes {
        let active =
            |c: usize, mark: &[usize]| cons.routes(c).iter().filter(|&&k| mark.get(k) == Some(&0)).count();
        let mut rate = f64::INFINITY;
        for c in 0..cons.count {
            let na = active(c, mark);
            if na > 0 {
                rate = rate.min((cons.capacity(c) - load.get(c).copied().unwrap_or(0.0)) / na as f64);
            }
        }
        if rate == f64::INFINITY {
            break;
        }
        for c in 0..cons.count {
            let na = active(c, mark);
            if na > 0 && (cons.capacity(c) - load.get(c).copied().unwrap_or(0.0)) / na as f64 <= rate {
                for &k in cons.routes(c) {
                    if let Some(m @ 0) = mark.get_mut(k) {
                        *m = 1;
                    }
                }
            }
        }
        for c in 0..cons.count {
            let newly = cons.routes(c).iter().filter(|&&k| mark.get(k) == Some(&1)).count();
            if let Some(l) = load.get_mut(c) {
                *l += rate * newly as f64;
            }
        }
        for (k, m) in mark.iter_mut().enumerate().take(routes) {
            if *m == 1 {
                *m = 2;
                if let Some(xk) = x.get_mut(k) {
                    *xk = rate.max(0.0);
                }
            }
        }
    }
}

/// The multiplier of one constraint in the dual ascent (§6.2 λ-blocks): the `s ≥ 0` with
/// `Σ_k √(v_k/(s + R_k)) = b`, `R_k = Λ_k − λ`, by Newton from the left (the function is
/// convex and decreasing); 0 when the constraint is slack at 0.
fn lambda_step(cons: &Constraints<'_>, c: usize, v: &[f64], lam_c: f64, big: &[f64]) -> f64 {
    let b = cons.capacity(c);
    let ks = cons.routes(c);
    let term = |k: usize, s: f64| -> (f64, f64) {
        let vk = v.get(k).copied().unwrap_or(0.0);
        if vk <= 0.0 || vk.is_nan() {
            return (0.0, 0.0);
        }
        let den = s + big.get(k).copied().unwrap_or(0.0) - lam_c;
        if den <= 0.0 || den.is_nan() {
            return (f64::INFINITY, 0.0);
        }
        let x = libm::sqrt(vk / den);
        (x, -0.5 * x / den)
    };
    let phi0: f64 = ks.iter().map(|&k| term(k, 0.0).0).sum();
    if phi0 <= b {
        return 0.0;
    }
    let mut s = ks
        .iter()
        .map(|&k| v.get(k).copied().unwrap_or(0.0) / (b * b) - (big.get(k).copied().unwrap_or(0.0) - lam_c))
        .fold(0.0, f64::max);
    // Warm start: the previous multiplier when it is still left of the root (the sum
    // there is at least b); Newton stays monotone. Between two sweeps of the optimal
    // sharing the root moves little, so this takes a few steps instead of a climb from
    // the left end (the polish of the 70-machine plan: 2 034 sweeps cold, 177 warm, with
    // the primal refitted).
    if lam_c > s && ks.iter().map(|&k| term(k, lam_c).0).sum::<f64>() >= b {
        s = lam_c;
    }
    for _ in 0..200 {
        let (mut f, mut fp) = (-b, 0.0);
        for &k in ks {
            let (x, dx) = term(k, s);
            f += x;
            fp += dx;
        }
        if f <= 1e-15 * b || fp == 0.0 || !f.is_finite() {
            break;
        }
        let s2 = s - f / fp;
        if s2 <= s * (1.0 + 1e-16) {
            break;
        }
        s = s2;
    }
    s
}

/// One pass of λ-blocks over every constraint, keeping `big[k] = Σ_{c∋k} λ_c`.
pub(super) fn lambda_sweep(cons: &Constraints<'_>, v: &[f64], lam: &mut [f64], big: &mut [f64]) {
    for c in 0..cons.count {
        let old = lam.get(c).copied().unwrap_or(0.0);
        let new = lambda_step(cons, c, v, old, big);
        for &k in cons.routes(c) {
            if let Some(b) = big.get_mut(k) {
                *b += new - old;
            }
        }
        if let Some(l) = lam.get_mut(c) {
            *l = new;
        }
    }
}

/// Starts the multipliers at `1/b` and their route sums.
fn lambda_start(cons: &Constraints<'_>, routes: usize, lam: &mut [f64], big: &mut [f64]) {
    for b in big.iter_mut().take(routes) {
        *b = 0.0;
    }
    for c in 0..cons.count {
        let l = 1.0 / cons.capacity(c);
        if let Some(x) = lam.get_mut(c) {
            *x = l;
        }
        for &k in cons.routes(c) {
            if let Some(b) = big.get_mut(k) {
                *b += l;
            }
        }
    }
}

/// `x_k = √(v_k/Λ_k)` (a floor for `v_k = 0`), capped by each route's smallest capacity,
/// then scaled into the feasible set: a feasible point.
fn recover(cons: &Constraints<'_>, routes: usize, v: &[f64], big: &[f64], x: &mut [f64]) {
    let vmax = v.iter().take(routes).fold(0.0f64, |a, &b| a.max(b));
    for (k, xk) in x.iter_mut().enumerate().take(routes) {
        let (vk, bk) = (v.get(k).copied().unwrap_or(0.0), big.get(k).copied().unwrap_or(0.0));
        *xk = if bk > 0.0 { libm::sqrt(vk.max(1e-9 * vmax) / bk) } else { f64::INFINITY };
    }
    for c in 0..cons.count {
        let b = cons.capacity(c);
        for &k in cons.routes(c) {
            if let Some(xk) = x.get_mut(k) {
                *xk = xk.min(b);
            }
        }
    }
    scale(cons, x);
}

/// Scales `x` down (or up) so that the most loaded constraint is exactly full.
fn scale(cons: &Constraints<'_>, x: &mut [f64]) {
    let mut theta = 0.0f64;
    for c in 0..cons.count {
        let used: f64 = cons.routes(c).iter().map(|&k| x.get(k).copied().unwrap_or(0.0)).sum();
        theta = theta.max(used / cons.capacity(c));
    }
    if theta > 0.0 && theta.is_finite() {
        for xk in x.iter_mut() {
            *xk /= theta;
        }
    }
}

/// Raises each route of a feasible `x` by the least slack ratio `b_c/load_c` over its
/// constraints: every constraint stays within its capacity (each of its routes grows by at
/// most its own ratio), and a route on slack links only gains, which lowers every `1/x`.
/// `factor` holds a word per route.
fn refit(cons: &Constraints<'_>, x: &mut [f64], factor: &mut [f64]) {
    for f in factor.iter_mut() {
        *f = f64::INFINITY;
    }
    for c in 0..cons.count {
        let used: f64 = cons.routes(c).iter().map(|&k| x.get(k).copied().unwrap_or(0.0)).sum();
        let ratio = cons.capacity(c) / used;
        for &k in cons.routes(c) {
            if let Some(f) = factor.get_mut(k) {
                *f = f.min(ratio);
            }
        }
    }
    for (xk, &f) in x.iter_mut().zip(factor.iter()) {
        if f.is_finite() && f > 1.0 {
            *xk *= f;
        }
    }
}

/// `min Σ u_k/x_k` under the constraints (the greedy's analytic sharing of its new routes,
/// §5 step 4): each route its smallest capacity when no constraint holds two routes,
/// else the dual ascent (λ-blocks only).
pub(super) fn min_weighted_sum(
    cons: &Constraints<'_>,
    routes: usize,
    u: &[f64],
    x: &mut [f64],
    work: &mut [f64],
    lam: &mut [f64],
) {
    for xk in x.iter_mut().take(routes) {
        *xk = f64::INFINITY;
    }
    for c in 0..cons.count {
        for &k in cons.routes(c) {
            if let Some(xk) = x.get_mut(k) {
                *xk = xk.min(cons.capacity(c));
            }
        }
    }
    if (0..cons.count).all(|c| cons.routes(c).len() <= 1) {
        return;
    }
    let (big, rest) = work.split_at_mut(routes.min(work.len()));
    let (trial, _) = rest.split_at_mut(routes.min(rest.len()));
    lambda_start(cons, routes, lam, big);
    let mut best = f64::INFINITY;
    let objective = |x: &[f64]| {
        (0..routes).map(|k| u.get(k).copied().unwrap_or(0.0) / x.get(k).copied().unwrap_or(0.0)).sum::<f64>()
    };
    for _ in 0..500 {
        lambda_sweep(cons, u, lam, big);
        recover(cons, routes, u, big, trial);
        let primal = objective(trial);
        let dual = (0..routes)
            .map(|k| 2.0 * libm::sqrt(u.get(k).copied().unwrap_or(0.0) * big.get(k).copied().unwrap_or(0.0)))
            .sum::<f64>()
            - (0..cons.count).map(|c| lam.get(c).copied().unwrap_or(0.0) * cons.capacity(c)).sum::<f64>();
        if primal < best {
            best = primal;
            for (a, &b) in x.iter_mut().zip(trial.iter()) {
                *a = b;
            }
        }
        if best - dual <= 1e-10 * best {
            break;
        }
    }
}

/// The members' data for the optimal sharing: cycle times in ring order and each route's
/// member.
pub(super) struct Members<'a> {
    pub(super) w: &'a [f64],
    pub(super) owner: &'a [usize],
}

/// `max(T₄, max d)` of a ring whose routes have shares `x` (route `k` belongs to member
/// `owner[k]`); `d` receives each member's communication time.
pub(super) fn value_of_shares(m: &Members<'_>, work: u64, h: f64, x: &[f64], d: &mut [f64]) -> f64 {
    let q = m.w.len();
    for dk in d.iter_mut().take(q) {
        *dk = 0.0;
    }
    for (k, &o) in m.owner.iter().enumerate() {
        if let Some(dk) = d.get_mut(o) {
            *dk += h / x.get(k).copied().unwrap_or(0.0);
        }
    }
    let (mut inv, mut weighted, mut most) = (0.0, 0.0, 0.0f64);
    for (&wi, &di) in m.w.iter().zip(d.iter()) {
        inv += 1.0 / wi;
        weighted += di / wi;
        most = most.max(di);
    }
    ((work as f64 + weighted) / inv).max(most)
}

/// The optimal sharing of a fixed ring and routes (§6.2): block-coordinate ascent on the
/// dual `D(z, λ) = A·min z_i/ρ_i + Σ_k 2√(H z_{o(k)} Λ_k) − Σ_c λ_c b_c` (z-block exact:
/// water-filling for each floor, golden section on the floor; λ-blocks by Newton), each
/// sweep's primal point recovered feasible. Starts from the feasible `x` and returns the
/// best point's value and the best dual bound: the value is never worse than the start's
/// and the bound holds for every sharing of these routes.
#[allow(clippy::too_many_arguments)]
pub(super) fn optimal(
    cons: &Constraints<'_>,
    m: &Members<'_>,
    work: u64,
    h: f64,
    x: &mut [f64],
    f: &mut [f64],
    lam: &mut [f64],
    order: &mut [usize],
    sweeps: usize,
    tol: f64,
) -> (f64, f64) {
    let q = m.w.len();
    let n = m.owner.len();
    let (big, f) = f.split_at_mut(n.min(f.len()));
    let (v, f) = f.split_at_mut(n.min(f.len()));
    let (trial, f) = f.split_at_mut(n.min(f.len()));
    let (z, f) = f.split_at_mut(q.min(f.len()));
    let (kk, f) = f.split_at_mut(q.min(f.len()));
    let (rho, f) = f.split_at_mut(q.min(f.len()));
    let (d, f) = f.split_at_mut(q.min(f.len()));
    let (factor, _) = f.split_at_mut(n.min(f.len()));
    let Some(order) = order.get_mut(..q) else { return (f64::INFINITY, 0.0) };
    let wc = 1.0 / m.w.iter().map(|&w| 1.0 / w).sum::<f64>();
    for (r, &w) in rho.iter_mut().zip(m.w) {
        *r = wc / w;
    }
    let a = work as f64 * wc;
    copy(z, rho);
    lambda_start(cons, n, lam, big);
    let mut best = value_of_shares(m, work, h, x, d);
    let mut dual = f64::NEG_INFINITY;
    for _ in 0..sweeps {
        for k in kk.iter_mut() {
            *k = 0.0;
        }
        for (k, &o) in m.owner.iter().enumerate() {
            if let Some(ko) = kk.get_mut(o) {
                *ko += 2.0 * libm::sqrt(h * big.get(k).copied().unwrap_or(0.0));
            }
        }
        zblock(a, rho, kk, z, order);
        for (k, &o) in m.owner.iter().enumerate() {
            if let Some(vk) = v.get_mut(k) {
                *vk = h * z.get(o).copied().unwrap_or(0.0);
            }
        }
        lambda_sweep(cons, v, lam, big);
        recover(cons, n, v, big, trial);
        refit(cons, trial, factor);
        let t = value_of_shares(m, work, h, trial, d);
        if t < best {
            best = t;
            if let Some(x) = x.get_mut(..n) {
                copy(x, trial);
            }
        }
        let floor = z.iter().zip(rho.iter()).map(|(&zi, &r)| zi / r).fold(f64::INFINITY, f64::min);
        let mut dv = a * floor;
        for (k, &o) in m.owner.iter().enumerate() {
            dv += 2.0 * libm::sqrt(h * z.get(o).copied().unwrap_or(0.0) * big.get(k).copied().unwrap_or(0.0));
        }
        for c in 0..cons.count {
            dv -= lam.get(c).copied().unwrap_or(0.0) * cons.capacity(c);
        }
        dual = dual.max(dv);
        if best - dual <= tol * best {
            break;
        }
    }
    (best, dual)
}

/// Sweeps and relative gap of the optimal sharing that values a ring while it grows and
/// in the local search (ring.md §5: a few sweeps from the greedy's or max-min's shares, a
/// feasible sharing whose value is achieved; the plan returned is shared to 1e-9; each
/// refinement is kept only when it improves the ring, so stopping early never harms). With
/// 100 sweeps, the 70-machine plan took 0.87 s, and its local search 0.67 s instead of
/// 0.38 s, for the same plan.
pub(super) const ESTIMATE_SWEEPS: usize = 5;
pub(super) const GROWTH_TOLERANCE: f64 = 1e-6;

/// The z-block (§6.2): maximise `A·m + Σ K_i √z_i` over the simplex with `z_i ≥ m ρ_i`;
/// for a floor `m`, `z_i = max(m ρ_i, K_i² t)` with `Σ z = 1` (piecewise linear in `t`,
/// breakpoints in the order of `ρ_i/K_i²` whatever `m`); concave in `m`, searched by
/// golden section.
fn zblock(a: f64, rho: &[f64], kk: &[f64], z: &mut [f64], order: &mut [usize]) {
    let q = rho.len();
    for (i, o) in order.iter_mut().enumerate() {
        *o = i;
    }
    let key = |i: usize| {
        let k2 = kk.get(i).map_or(0.0, |k| k * k);
        if k2 > 0.0 {
            rho.get(i).copied().unwrap_or(0.0) / k2
        } else {
            f64::INFINITY
        }
    };
    crate::kernel::sort::sort_by(order, |&x, &y| key(x) < key(y) || (key(x) == key(y) && x < y));
    let order: &[usize] = order;
    let fill = |m: f64, z: &mut [f64]| {
        let lo = |i: usize| m * rho.get(i).copied().unwrap_or(0.0);
        let k2 = |i: usize| kk.get(i).map_or(0.0, |k| k * k);
        let sum_lo: f64 = (0..q).map(lo).sum();
        if sum_lo >= 1.0 - 1e-15 {
            for (i, zi) in z.iter_mut().enumerate() {
                *zi = lo(i);
            }
            return;
        }
        let (mut fixed, mut slope, mut t) = (sum_lo, 0.0, None);
        for &i in order {
            let bp = if k2(i) > 0.0 { lo(i) / k2(i) } else { f64::INFINITY };
            if slope > 0.0 && fixed + slope * bp >= 1.0 {
                t = Some((1.0 - fixed) / slope);
                break;
            }
            if bp == f64::INFINITY {
                break;
            }
            fixed -= lo(i);
            slope += k2(i);
        }
        match t.or(if slope > 0.0 { Some((1.0 - fixed) / slope) } else { None }) {
            Some(t) => {
                for (i, zi) in z.iter_mut().enumerate() {
                    *zi = lo(i).max(k2(i) * t);
                }
            }
            None => {
                for (i, zi) in z.iter_mut().enumerate() {
                    *zi = lo(i) + (1.0 - sum_lo) * rho.get(i).copied().unwrap_or(0.0);
                }
            }
        }
    };
    let val = |m: f64, z: &mut [f64]| {
        fill(m, z);
        a * m + z.iter().zip(kk).map(|(&zi, &k)| k * libm::sqrt(zi.max(0.0))).sum::<f64>()
    };
    let gr = (libm::sqrt(5.0) - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, 1.0);
    let (mut m1, mut m2) = (hi - gr * (hi - lo), lo + gr * (hi - lo));
    let (mut v1, mut v2) = (val(m1, z), val(m2, z));
    for _ in 0..GOLDEN_STEPS {
        if v1 < v2 {
            (lo, m1, v1) = (m1, m2, v2);
            m2 = lo + gr * (hi - lo);
            v2 = val(m2, z);
        } else {
            (hi, m2, v2) = (m2, m1, v1);
            m1 = hi - gr * (hi - lo);
            v1 = val(m1, z);
        }
    }
    let mut best = (f64::NEG_INFINITY, 0.0);
    for m in [0.0, 1.0, (lo + hi) / 2.0] {
        let v = val(m, z);
        if v > best.0 {
            best = (v, m);
        }
    }
    fill(best.1, z);
}

/// Golden-section steps of the z-block: the floor to `0.618⁶⁰ ≈ 3·10⁻¹³`.
const GOLDEN_STEPS: usize = 60;
