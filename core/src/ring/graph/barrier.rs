//! The optimal sharing of a plan's ring to a certified gap (legrand2003 §6.2): a barrier
//! method whose centres' multipliers are points of §6.2's dual, with the block-coordinate
//! ascent of `sharing.rs` as its fallback. Newton converges where the ascent crawls (links
//! coupling many routes, a member's own time binding).

use super::network::copy;
use super::sharing::{lambda_sweep, optimal, value_of_shares, Constraints, Members};
use super::NEWTON_ROUTES;
use crate::kernel::cholesky::{add_sym, cholesky, cholesky_solve};

/// The point `y = (x, T)` of [`barrier`]: each member's communication time into `fi`,
/// each constraint's slack into `r`, and `f₀ = T₄(x)`; `None` outside the domain (a share
/// or a slack not positive).
fn barrier_point(
    cons: &Constraints<'_>,
    m: &Members<'_>,
    (a, wc, h): (f64, f64, f64),
    y: &[f64],
    fi: &mut [f64],
    r: &mut [f64],
) -> Option<f64> {
    for v in fi.iter_mut() {
        *v = 0.0;
    }
    let mut f0 = a;
    for (k, &o) in m.owner.iter().enumerate() {
        let xk = *y.get(k)?;
        if xk <= 0.0 || xk.is_nan() {
            return None;
        }
        *fi.get_mut(o)? += h / xk;
        f0 += h * (wc / m.w.get(o)?) / xk;
    }
    for (c, rc) in r.iter_mut().enumerate().take(cons.count) {
        let used: f64 = cons.routes(c).iter().map(|&k| y.get(k).copied().unwrap_or(f64::INFINITY)).sum();
        *rc = cons.capacity(c) - used;
        if *rc <= 0.0 || rc.is_nan() {
            return None;
        }
    }
    Some(f0)
}

/// `D(z, λ) = A·min_i z_i/ρ_i + Σ_k 2√(H z_{o(k)} Λ_k) − Σ_c λ_c b_c` (§6.2), a lower bound
/// on `T` for every `z` in the simplex and `λ ≥ 0`; `big[k] = Λ_k`.
fn dual_value(
    cons: &Constraints<'_>,
    m: &Members<'_>,
    (a, wc, h): (f64, f64, f64),
    z: &[f64],
    lam: &[f64],
    big: &[f64],
) -> f64 {
    let floor = z.iter().zip(m.w).map(|(&zi, &w)| zi / (wc / w)).fold(f64::INFINITY, f64::min);
    let mut dv = a * floor;
    for (k, &o) in m.owner.iter().enumerate() {
        dv += 2.0 * libm::sqrt(h * z.get(o).copied().unwrap_or(0.0) * big.get(k).copied().unwrap_or(0.0));
    }
    for c in 0..cons.count {
        dv -= lam.get(c).copied().unwrap_or(0.0) * cons.capacity(c);
    }
    dv
}

/// The optimal sharing of a fixed ring and routes (§6.2) by a barrier method: the primal
/// `min T` over `y = (x, T)` with `f₀(x) = A + H Σ_k ρ_{o(k)}/x_k ≤ T` (eq. 4), each
/// member's `f_i(x) = H Σ_{k∈out(i)} 1/x_k ≤ T` and the capacities `Σ_{k∈c} x_k ≤ b_c`;
/// for `t` growing tenfold, damped Newton steps on `t·T − log(T − f₀) − Σ_i log(T − f_i) −
/// Σ_c log(b_c − Σ_{k∈c} x_k)` (dense Cholesky of the `(2q + 1)²` system). Each centre's
/// multipliers `1/(t·slack)`, scaled so that those of `T`'s constraints sum to one, are
/// a point `(z, λ)` of §6.2's dual, and `D(z, λ)` after one λ-sweep (which only raises
/// it) is a certified bound. Newton converges where the block-coordinate ascent crawls
/// (links coupling many routes, a member's own time binding). Starts from the feasible
/// `x` and returns the best value seen and the best bound, `x` the best point; `None`
/// when the buffers are short or the ring has no routes.
#[allow(clippy::too_many_arguments)]
fn barrier(
    cons: &Constraints<'_>,
    m: &Members<'_>,
    work: u64,
    h: f64,
    x: &mut [f64],
    f: &mut [f64],
    lam: &mut [f64],
    slack: &mut [f64],
    tol: f64,
) -> Option<(f64, f64)> {
    let q = m.w.len();
    let n = m.owner.len();
    let nn = n + 1;
    if q < 2 || n == 0 || n > NEWTON_ROUTES || h <= 0.0 || h.is_nan() {
        return None;
    }
    let (hess, f) = f.split_at_mut_checked(nn * nn)?;
    let (grad, f) = f.split_at_mut_checked(nn)?;
    let (step, f) = f.split_at_mut_checked(nn)?;
    let (y, f) = f.split_at_mut_checked(nn)?;
    let (yt, f) = f.split_at_mut_checked(nn)?;
    let (fi, f) = f.split_at_mut_checked(q)?;
    let (z, _) = f.split_at_mut_checked(q)?;
    let x = x.get_mut(..n)?;
    let nc = cons.count;
    let r = slack.get_mut(..nc)?;
    let lam = lam.get_mut(..nc)?;
    let wc = 1.0 / m.w.iter().map(|&w| 1.0 / w).sum::<f64>();
    let consts = (work as f64 * wc, wc, h);
    let rho = |i: usize| wc / m.w.get(i).copied().unwrap_or(f64::INFINITY);
    let owner = |k: usize| m.owner.get(k).copied().unwrap_or(0);
    let mut best = value_of_shares(m, work, h, x, fi);
    // A strictly feasible start: the shares a little inside every capacity, T above
    // every f.
    for (yk, &xk) in y.iter_mut().zip(x.iter()) {
        *yk = xk * (1.0 - 1e-3);
    }
    let f0 = barrier_point(cons, m, consts, y, fi, r)?;
    let top = fi.iter().fold(f0, |a, &b| a.max(b));
    *y.get_mut(n)? = top * (1.0 + 1e-3);
    let phi = |t: f64, y: &[f64], fi: &mut [f64], r: &mut [f64]| -> Option<f64> {
        let f0 = barrier_point(cons, m, consts, y, fi, r)?;
        let tt = *y.get(n)?;
        let mut v = t * tt - libm::log(tt - f0);
        for &fv in fi.iter() {
            v -= libm::log(tt - fv);
        }
        for &rc in r.iter() {
            v -= libm::log(rc);
        }
        if (tt - f0) > 0.0 && fi.iter().all(|&fv| tt - fv > 0.0) && v.is_finite() {
            Some(v)
        } else {
            None
        }
    };
    // From a gap of 100 %: a start far from the optimum (max-min shares where a member's
    // own time binds) with `t` too large makes Newton crawl (steps of 2 in φ where it has
    // t·(T − T*) to go).
    let constraints = (1 + q + nc) as f64;
    let mut t = constraints / top;
    let mut dual = f64::NEG_INFINITY;
    for _ in 0..BARRIER_STAGES {
        let mut centred = false;
        for _ in 0..NEWTON_STEPS {
            let Some(here) = phi(t, y, fi, r) else { break };
            let tt = *y.get(n)?;
            let f0 = barrier_point(cons, m, consts, y, fi, r)?;
            let s0 = tt - f0;
            hess.fill(0.0);
            let mut gt = t - 1.0 / s0;
            for &fv in fi.iter() {
                gt -= 1.0 / (tt - fv);
            }
            // f₀'s gradient (as (∂f₀/∂x, −1)/s₀) in `step`, for its rank-one term.
            for k in 0..n {
                let xk = *y.get(k)?;
                let o = owner(k);
                let si = tt - *fi.get(o)?;
                let (c0, ci) = (h * rho(o) / (xk * xk), h / (xk * xk));
                *grad.get_mut(k)? = -c0 / s0 - ci / si;
                *step.get_mut(k)? = -c0 / s0;
                add_sym(hess, nn, k, k, 2.0 * c0 / (xk * s0) + 2.0 * ci / (xk * si));
                // The member's own term: (∂f_o/∂x, −1)/s_o, rank one over its routes and T.
                add_sym(hess, nn, n, k, ci / (si * si));
                for l in 0..=k {
                    if owner(l) == o {
                        let cl = h / (y.get(l)? * y.get(l)?);
                        add_sym(hess, nn, k, l, ci * cl / (si * si));
                    }
                }
            }
            *grad.get_mut(n)? = gt;
            *step.get_mut(n)? = -1.0 / s0;
            for i in 0..nn {
                let vi = *step.get(i)?;
                for j in 0..=i {
                    add_sym(hess, nn, i, j, vi * step.get(j)?);
                }
            }
            for c in 0..nc {
                let rc = *r.get(c)?;
                let ks = cons.routes(c);
                for (a, &k) in ks.iter().enumerate() {
                    *grad.get_mut(k)? += 1.0 / rc;
                    for &l in ks.get(..=a)? {
                        add_sym(hess, nn, k, l, 1.0 / (rc * rc));
                    }
                }
            }
            add_sym(hess, nn, n, n, {
                let mut v = 0.0;
                for &fv in fi.iter() {
                    let si = tt - fv;
                    v += 1.0 / (si * si);
                }
                v
            });
            if !cholesky(hess, nn) {
                break;
            }
            for (s, &g) in step.iter_mut().zip(grad.iter()) {
                *s = -g;
            }
            cholesky_solve(hess, nn, step);
            let dec: f64 = -grad.iter().zip(step.iter()).map(|(g, s)| g * s).sum::<f64>();
            if dec <= BARRIER_DEC || dec.is_nan() {
                centred = true;
                break;
            }
            let mut alpha = 1.0;
            let mut moved = false;
            for _ in 0..60 {
                for ((a, &b), &s) in yt.iter_mut().zip(y.iter()).zip(step.iter()) {
                    *a = b + alpha * s;
                }
                if phi(t, yt, fi, r).is_some_and(|v| v <= here - 0.25 * alpha * dec) {
                    moved = true;
                    break;
                }
                alpha *= 0.5;
            }
            if !moved {
                break;
            }
            copy(y, yt);
        }
        // The centre's multipliers as a dual point, and its shares as a primal one.
        let tt = *y.get(n)?;
        let Some(f0) = barrier_point(cons, m, consts, y, fi, r) else { break };
        let u0 = 1.0 / (t * (tt - f0));
        let mut total = u0;
        for (zi, &fv) in z.iter_mut().zip(fi.iter()) {
            *zi = 1.0 / (t * (tt - fv));
            total += *zi;
        }
        for (i, zi) in z.iter_mut().enumerate() {
            *zi = (u0 * rho(i) + *zi) / total;
        }
        for (l, &rc) in lam.iter_mut().zip(r.iter()) {
            *l = 1.0 / (t * rc * total);
        }
        // `grad` and `step` as v and Λ for the λ-sweep.
        for g in grad.iter_mut() {
            *g = 0.0;
        }
        for c in 0..nc {
            let l = *lam.get(c)?;
            for &k in cons.routes(c) {
                *grad.get_mut(k)? += l;
            }
        }
        dual = dual.max(dual_value(cons, m, consts, z, lam, grad));
        for (k, v) in step.iter_mut().enumerate().take(n) {
            *v = h * z.get(owner(k)).copied().unwrap_or(0.0);
        }
        lambda_sweep(cons, step, lam, grad);
        dual = dual.max(dual_value(cons, m, consts, z, lam, grad));
        let v = value_of_shares(m, work, h, y.get(..n)?, fi);
        if v < best {
            best = v;
            copy(x, y);
        }
        if best - dual <= tol * best {
            break;
        }
        // A stage that ran out of steps goes on at the same `t`.
        if centred {
            t *= 10.0;
        }
    }
    Some((best, dual))
}

/// The optimal sharing to the relative gap `tol`: the barrier method, then (beyond
/// [`NEWTON_ROUTES`], or should it stop short of `tol`) the block-coordinate ascent from
/// its best point; the best value and the best bound of the two.
#[allow(clippy::too_many_arguments)]
pub(super) fn optimal_certified(
    cons: &Constraints<'_>,
    m: &Members<'_>,
    work: u64,
    h: f64,
    x: &mut [f64],
    bufs: (&mut [f64], &mut [f64], &mut [f64], &mut [f64]),
    order: &mut [usize],
    tol: f64,
) -> (f64, f64) {
    let (opt, newton, lam, load) = bufs;
    let mut bound = f64::NEG_INFINITY;
    if let Some((t, dual)) = barrier(cons, m, work, h, x, newton, lam, load, tol) {
        if t - dual <= tol * t {
            return (t, dual);
        }
        bound = dual;
    }
    let (t, dual) = optimal(cons, m, work, h, x, opt, lam, order, POLISH_SWEEPS, tol);
    (t, dual.max(bound))
}

/// Sweeps of the block-coordinate ascent when it certifies a plan's sharing alone, and
/// the relative gap a plan's sharing is certified to.
const POLISH_SWEEPS: usize = 20_000;

pub(super) const PLAN_TOLERANCE: f64 = 1e-9;

/// Stages of [`barrier`] (`t` tenfold after each centred one: from a gap of 100 % to
/// 10⁻¹² in thirteen), Newton steps per stage, and the Newton decrement `λ²` that ends a
/// stage: any multipliers give a valid bound (§6.2), so a centre found roughly only
/// loosens the bound a little, and the next stage starts from it.
const BARRIER_STAGES: usize = 24;
const NEWTON_STEPS: usize = 60;
const BARRIER_DEC: f64 = 1e-6;

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::num::xorshift;
    use crate::ring::graph::sharing::max_min;
    use crate::ring::graph::{sizes, Link, LinkKind, Net, Network};
    use crate::ring::{Problem, Sharing};

    /// Two algorithms for the optimal sharing of §6.2, the barrier method (what a plan's
    /// sharing uses) and the block-coordinate ascent (its fallback, and the growth's
    /// valuation), from the same max-min start on random rings over random platforms
    /// (processors on a chain of routers by bidirectional links or directed pairs, a
    /// backbone between two routers now and then, so that routes share links both ways):
    /// each one's value is at least the other's certified bound, and the barrier reaches
    /// 1e-9 by itself.
    #[test]
    fn the_barrier_and_the_ascent_agree() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut cases, mut ascent_certified) = (0, 0);
        for _ in 0..400 {
            let p = 2 + (next() % 5) as usize;
            let routers = 1 + (next() % 3) as usize;
            let mut links = Vec::new();
            for r in 1..routers {
                let kind = if next() % 4 == 0 { LinkKind::Backbone } else { LinkKind::Bidirectional };
                links.push(Link { from: p + r, to: p + r - 1, bandwidth: (2 + next() % 9) as f64, kind });
            }
            for i in 0..p {
                let r = p + (next() % routers as u64) as usize;
                let b = (1 + next() % 10) as f64;
                if next() % 5 == 0 {
                    links.push(Link { from: r, to: i, bandwidth: 2.0 * b, kind: LinkKind::Directed });
                    links.push(Link { from: i, to: r, bandwidth: b, kind: LinkKind::Directed });
                } else {
                    links.push(Link { from: i, to: r, bandwidth: b, kind: LinkKind::Bidirectional });
                }
            }
            let w: Vec<f64> = (0..p).map(|_| (1 + next() % 10) as f64).collect();
            let h = [0.5, 5.0, 20.0, 60.0][(next() % 4) as usize];
            let network = Network { routers, links: &links };
            let problem = Problem {
                cycle_times: &w,
                costs: &[],
                work: 100,
                boundary: h,
                solver: crate::ring::Solver::Greedy,
                local_search: false,
                network: Some(network),
                sharing: Sharing::Optimal,
            };
            let s = sizes(p, &network).unwrap();
            let (mut us, mut fs) = (vec![0usize; s.usizes], vec![0.0; s.f64s]);
            let mut net = Net::new(p, &network, &mut us, &mut fs).unwrap();
            let ring: Vec<usize> = (0..p).collect();
            let mut shares = vec![0.0; 2 * p];
            net.fixed(&problem, &ring, &mut shares).unwrap();
            // `fixed` left the ring's constraints and members in place; both solvers start
            // from the max-min shares.
            let n = 2 * p;
            let mut start = vec![0.0; n];
            max_min(&net.cons, n, &mut start, net.mark, net.load);
            let members = Members { w: &net.wq[..p], owner: &net.owner[..n] };
            let mut x = start.clone();
            let (tb, db) = barrier(&net.cons, &members, 100, h, &mut x, net.newton, net.lam, net.load, 1e-9)
                .expect("the barrier method runs");
            let mut y = start.clone();
            let (ta, da) =
                optimal(&net.cons, &members, 100, h, &mut y, net.opt, net.lam, net.order, 20_000, 1e-9);
            assert!(tb - db <= 1e-9 * tb, "p = {p}: barrier {tb} bound {db}, ascent {ta} bound {da}");
            assert!(tb >= da * (1.0 - 1e-12), "barrier value {tb} below the ascent's bound {da}");
            assert!(ta >= db * (1.0 - 1e-12), "ascent value {ta} below the barrier's bound {db}");
            ascent_certified += usize::from(ta - da <= 1e-9 * ta);
            cases += 1;
        }
        std::println!("the ascent reached 1e-9 in {ascent_certified} of {cases} rings, the barrier in all");
        // Measured: 393 of 400 for the ascent (the barrier is what plans use).
        assert!(ascent_certified * 2 > cases);
    }
}
