//! Rings over shared links (legrand2003 §2.1–2.3, §4; `ring.md` §1.1, §4–7): processors
//! and routers joined by directed, bidirectional (both directions share the bandwidth) or
//! backbone links (each route gets the full bandwidth). Each neighbour exchange follows a
//! widest path (Dijkstra on the bottleneck; ties to fewer hops, then the smaller
//! predecessor), and routes crossing a shared link share its bandwidth:
//!
//! * the paper's greedy (§5): the best pair, then the best insertion, the four new routes
//!   routed in the residual bandwidth and shared analytically (`min Σ u/x` under the
//!   residual capacities, u the sender's `1/w`); candidates are valued exactly in
//!   increasing order of a bound that takes each new route at its full-capacity widest
//!   bandwidth, and the scan stops when the bound passes the best value found: the same
//!   choice as the literal greedy, with less work;
//! * refinements after each insertion (§4.3, §6): max-min fair sharing (progressive
//!   filling), which always replaces the greedy's shares (a max_min plan reports what a
//!   fair network gives its routes, even when the greedy's own shares were better: it
//!   ignores the weights); or the optimal sharing (the convex problem of §6.2), which
//!   values each ring size by a few sweeps of a block-coordinate ascent on its closed-form
//!   dual while the ring grows on from the greedy's own shares, and shares the plan's ring
//!   by a barrier method (Newton steps; the centres' multipliers certify the gap);
//! * the local search and the exhaustive search of the clique, each ring routed by widest
//!   paths on the full capacities and shared as asked;
//! * a lower bound from the full-capacity widest bandwidths (§4).

use super::clique::{insert_at, swap, Search};
use super::fixed::value;
use super::{Problem, Sharing};

/// How a link's bandwidth is used (legrand2003 §2.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinkKind {
    /// Usable from `from` to `to` only; the routes crossing it share its bandwidth.
    Directed,
    /// Usable both ways; every route crossing it, either way, shares its bandwidth.
    #[default]
    Bidirectional,
    /// Usable both ways; each route gets up to the full bandwidth by itself.
    Backbone,
}

/// A link between two nodes (processors `0..p`, then routers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// One end (the sender's end for a directed link).
    pub from: usize,
    /// The other end.
    pub to: usize,
    /// Boundary units per second, finite and > 0.
    pub bandwidth: f64,
    /// How its bandwidth is shared.
    pub kind: LinkKind,
}

impl Link {
    /// A placeholder, to initialise buffers.
    pub const EMPTY: Link = Link { from: 0, to: 0, bandwidth: 1.0, kind: LinkKind::Bidirectional };

    fn shared(&self) -> bool {
        self.kind != LinkKind::Backbone
    }
}

/// A platform graph: the processors are nodes `0..p`, the routers `p..p + routers`.
#[derive(Clone, Copy, Debug)]
pub struct Network<'a> {
    /// Routers (nodes that only relay).
    pub routers: usize,
    /// The links.
    pub links: &'a [Link],
}

const NONE: usize = usize::MAX;

/// Working sizes of a graph plan: `usizes` and `f64s` words, `paths` route slots of
/// `path_len` links each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Words of index scratch.
    pub usizes: usize,
    /// Words of floating scratch.
    pub f64s: usize,
    /// Route slots of the plan (`2p`).
    pub paths: usize,
    /// Links per route slot (the nodes, bounding a simple path).
    pub path_len: usize,
}

/// Lengths of the scratch arrays, in carving order.
struct Layout {
    n: usize,
    e: usize,
    slots: usize,
    len: usize,
    constraints: usize,
    entries: usize,
    candidates: usize,
}

impl Layout {
    fn new(p: usize, net: &Network<'_>) -> Option<Layout> {
        let n = p.checked_add(net.routers)?;
        let e = net.links.len();
        let slots = p.checked_mul(2)?;
        let len = n;
        let entries = slots.checked_mul(len)?;
        let constraints = entries.checked_add(e)?;
        let candidates = p.checked_mul(p)?.checked_div(4)?.checked_add(p)?;
        Some(Layout { n, e, slots, len, constraints, entries, candidates })
    }

    fn usizes(&self) -> Option<usize> {
        let Layout { n, e, slots, len, constraints, entries, candidates } = *self;
        let p = slots / 2;
        let route_store = slots.checked_mul(len)?;
        [
            2 * (n + 1),
            8 * e,
            8 * n,
            route_store,
            slots, // routes by processor slot
            route_store,
            slots, // evaluated ring's routes by position
            8 * len,
            8, // candidate and chosen routes
            constraints + 1,
            2 * entries,
            e, // constraint lists, incidences and the link map
            candidates,
            slots,
            slots, // owners, marks
            p,
            2 * slots * n, // forward trees per position
        ]
        .iter()
        .try_fold(0usize, |a, &b| a.checked_add(b))
    }

    fn f64s(&self) -> Option<usize> {
        let Layout { n, e, slots, constraints, candidates, .. } = *self;
        let p = slots / 2;
        [
            5 * n,
            e,
            e,
            p.checked_mul(p)?,
            slots,
            slots,
            8,
            constraints,
            6 * slots,
            2 * constraints,
            4 * p,
            candidates,
            p,
            barrier_words(slots, p)?,
            e,
            slots, // the growth's residual and shares, kept across a refinement
        ]
        .iter()
        .try_fold(0usize, |a, &b| a.checked_add(b))
    }
}

/// The scratch sizes of a graph plan for `p` processors on `net`, or `None` beyond
/// `usize`.
pub fn sizes(p: usize, net: &Network<'_>) -> Option<Sizes> {
    let l = Layout::new(p, net)?;
    Some(Sizes { usizes: l.usizes()?, f64s: l.f64s()?, paths: l.slots, path_len: l.len })
}

/// Copies the front of `src` into the front of `dst` (as many as both hold).
fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    for (a, &b) in dst.iter_mut().zip(src) {
        *a = b;
    }
}

fn take<'a, T>(pool: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let all = core::mem::take(pool);
    match all.split_at_mut_checked(n) {
        Some((a, b)) => {
            *pool = b;
            a
        }
        None => &mut [],
    }
}

/// The adjacency (CSR): for node `u`, `(node, link)` pairs `start[u]..start[u + 1]`.
struct Adj<'b> {
    start: &'b [usize],
    node: &'b [usize],
    link: &'b [usize],
}

/// Dijkstra's labels and its indexed binary heap.
struct Dij<'b> {
    bw: &'b mut [f64],
    hops: &'b mut [usize],
    prev_node: &'b mut [usize],
    prev_link: &'b mut [usize],
    state: &'b mut [usize],
    heap: &'b mut [usize],
    pos: &'b mut [usize],
    size: usize,
}

impl Dij<'_> {
    /// Widest first, then fewer hops, then the smaller node (ring.md §5).
    fn before(&self, a: usize, b: usize) -> bool {
        let (ba, bb) = (self.bw.get(a).copied().unwrap_or(0.0), self.bw.get(b).copied().unwrap_or(0.0));
        let (ha, hb) = (self.hops.get(a).copied().unwrap_or(NONE), self.hops.get(b).copied().unwrap_or(NONE));
        ba > bb || (ba == bb && (ha < hb || (ha == hb && a < b)))
    }

    fn place(&mut self, at: usize, node: usize) {
        if let (Some(h), Some(p)) = (self.heap.get_mut(at), self.pos.get_mut(node)) {
            *h = node;
            *p = at;
        }
    }

    fn up(&mut self, mut at: usize) {
        let Some(&node) = self.heap.get(at) else { return };
        while at > 0 {
            let parent = (at - 1) / 2;
            let Some(&above) = self.heap.get(parent) else { return };
            if !self.before(node, above) {
                break;
            }
            self.place(at, above);
            at = parent;
        }
        self.place(at, node);
    }

    fn pop(&mut self) -> Option<usize> {
        if self.size == 0 {
            return None;
        }
        let top = *self.heap.first()?;
        self.size -= 1;
        let last = *self.heap.get(self.size)?;
        let mut at = 0;
        if self.size > 0 {
            loop {
                let (l, r) = (2 * at + 1, 2 * at + 2);
                let mut best = last;
                let mut to = at;
                for c in [l, r] {
                    if c < self.size {
                        let node = *self.heap.get(c)?;
                        if self.before(node, best) {
                            best = node;
                            to = c;
                        }
                    }
                }
                if to == at {
                    break;
                }
                self.place(at, best);
                at = to;
            }
            self.place(at, last);
        }
        Some(top)
    }

    fn push(&mut self, node: usize) {
        let at = self.size;
        self.size += 1;
        self.place(at, node);
        self.up(at);
    }

    /// Widest paths from `s` (to `t` when given, stopping there): labels for every node
    /// reached. `cap(link)` is the bandwidth a route may use on the link (0: unusable).
    fn run(&mut self, adj: &Adj<'_>, s: usize, t: usize, cap: &Caps<'_>) {
        for x in self.state.iter_mut() {
            *x = 0;
        }
        self.size = 0;
        if let (Some(b), Some(h), Some(st)) =
            (self.bw.get_mut(s), self.hops.get_mut(s), self.state.get_mut(s))
        {
            (*b, *h, *st) = (f64::INFINITY, 0, 1);
        } else {
            return;
        }
        self.push(s);
        while let Some(u) = self.pop() {
            if let Some(st) = self.state.get_mut(u) {
                *st = 2;
            }
            if u == t {
                break;
            }
            let (bu, hu) = (self.bw.get(u).copied().unwrap_or(0.0), self.hops.get(u).copied().unwrap_or(0));
            let (from, to) =
                (adj.start.get(u).copied().unwrap_or(0), adj.start.get(u + 1).copied().unwrap_or(0));
            for a in from..to {
                let (Some(&v), Some(&e)) = (adj.node.get(a), adj.link.get(a)) else { continue };
                let c = cap.at(e);
                let sv = self.state.get(v).copied().unwrap_or(2);
                if c <= 0.0 || c.is_nan() || sv == 2 {
                    continue;
                }
                let (nb, nh) = (bu.min(c), hu + 1);
                let (bv, hv, pv) = (
                    self.bw.get(v).copied().unwrap_or(0.0),
                    self.hops.get(v).copied().unwrap_or(NONE),
                    self.prev_node.get(v).copied().unwrap_or(NONE),
                );
                let better = sv == 0 || nb > bv || (nb == bv && nh < hv);
                if better || (nb == bv && nh == hv && u < pv) {
                    if let (Some(b), Some(h), Some(pn), Some(pl)) = (
                        self.bw.get_mut(v),
                        self.hops.get_mut(v),
                        self.prev_node.get_mut(v),
                        self.prev_link.get_mut(v),
                    ) {
                        (*b, *h, *pn, *pl) = (nb, nh, u, e);
                    }
                    if sv == 0 {
                        if let Some(st) = self.state.get_mut(v) {
                            *st = 1;
                        }
                        self.push(v);
                    } else if better {
                        let at = self.pos.get(v).copied().unwrap_or(0);
                        self.up(at);
                    }
                }
            }
        }
    }

    /// The route to `t` found by the last [`Dij::run`] from `s` into `out`: its length and
    /// bottleneck, or `None` when `t` was not reached.
    fn route(&self, s: usize, t: usize, out: &mut [usize]) -> Option<(usize, f64)> {
        if self.state.get(t).copied() != Some(2) || s == t {
            return None;
        }
        let mut len = 0;
        let mut x = t;
        while x != s {
            len += 1;
            if len > out.len() {
                return None;
            }
            x = *self.prev_node.get(x)?;
        }
        let mut x = t;
        for k in (0..len).rev() {
            *out.get_mut(k)? = *self.prev_link.get(x)?;
            x = *self.prev_node.get(x)?;
        }
        Some((len, *self.bw.get(t)?))
    }
}

/// Capacity constraints of a set of routes (CSR): constraint `c` has capacity `cap[c]`
/// and routes `entries[start[c]..start[c + 1]]`. A shared link gives one constraint over
/// every route crossing it; a backbone link one private constraint per route.
struct Constraints<'b> {
    cap: &'b mut [f64],
    start: &'b mut [usize],
    entries: &'b mut [usize],
    /// The constraint of each route–link incidence, in route order.
    ids: &'b mut [usize],
    link_map: &'b mut [usize],
    count: usize,
}

impl Constraints<'_> {
    /// Builds the constraints of routes `0..routes` whose links `route(k)` gives; shared
    /// links offer `shared(link)`.
    fn build<'r>(
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

    fn routes(&self, c: usize) -> &[usize] {
        let (a, b) = (self.start.get(c).copied().unwrap_or(0), self.start.get(c + 1).copied().unwrap_or(0));
        self.entries.get(a..b).unwrap_or(&[])
    }

    fn capacity(&self, c: usize) -> f64 {
        self.cap.get(c).copied().unwrap_or(0.0)
    }
}

/// Max-min fair shares of routes `0..routes` (§6.1, progressive filling): every unfrozen
/// route rises at the same level until a constraint saturates, whose routes then freeze.
/// `mark` and `load` are working memory (routes, constraints).
fn max_min(cons: &Constraints<'_>, routes: usize, x: &mut [f64], mark: &mut [usize], load: &mut [f64]) {
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
fn lambda_sweep(cons: &Constraints<'_>, v: &[f64], lam: &mut [f64], big: &mut [f64]) {
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
fn min_weighted_sum(
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
struct Members<'a> {
    w: &'a [f64],
    owner: &'a [usize],
}

/// `max(T₄, max d)` of a ring whose routes have shares `x` (route `k` belongs to member
/// `owner[k]`); `d` receives each member's communication time.
fn value_of_shares(m: &Members<'_>, work: u64, h: f64, x: &[f64], d: &mut [f64]) -> f64 {
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
fn optimal(
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

/// Routes the interior-point solve takes at most: its Newton system is dense, `(routes +
/// 1)²` numbers (2 MiB at this bound). Beyond, the block-coordinate ascent alone.
const NEWTON_ROUTES: usize = 512;

/// The working numbers of [`barrier`] for `routes` routes and `members` members.
fn barrier_words(routes: usize, members: usize) -> Option<usize> {
    let n = routes.min(NEWTON_ROUTES).checked_add(1)?;
    n.checked_mul(n)?.checked_add(n.checked_mul(4)?)?.checked_add(members.checked_mul(2)?)
}

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

/// Cholesky factor of the symmetric `n × n` matrix whose lower triangle `h` holds (row
/// major), in place; `false` when it is not numerically positive definite.
fn cholesky(h: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = h.get(j * n + j).copied().unwrap_or(0.0);
        for k in 0..j {
            let l = h.get(j * n + k).copied().unwrap_or(0.0);
            d -= l * l;
        }
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        let d = libm::sqrt(d);
        if let Some(x) = h.get_mut(j * n + j) {
            *x = d;
        }
        for i in j + 1..n {
            let (Some(ri), Some(rj)) = (h.get(i * n..i * n + j), h.get(j * n..j * n + j)) else {
                return false;
            };
            let dot: f64 = ri.iter().zip(rj).map(|(a, b)| a * b).sum();
            if let Some(x) = h.get_mut(i * n + j) {
                *x = (*x - dot) / d;
            }
        }
    }
    true
}

/// Solves `L Lᵀ s = b` with the factor of [`cholesky`], `b` in `s` on entry.
fn cholesky_solve(l: &[f64], n: usize, s: &mut [f64]) {
    for i in 0..n {
        let row = l.get(i * n..i * n + i).unwrap_or(&[]);
        let dot: f64 = row.iter().zip(s.iter()).map(|(a, b)| a * b).sum();
        let d = l.get(i * n + i).copied().unwrap_or(1.0);
        if let Some(x) = s.get_mut(i) {
            *x = (*x - dot) / d;
        }
    }
    for i in (0..n).rev() {
        let mut v = s.get(i).copied().unwrap_or(0.0);
        for k in i + 1..n {
            v -= l.get(k * n + i).copied().unwrap_or(0.0) * s.get(k).copied().unwrap_or(0.0);
        }
        if let Some(x) = s.get_mut(i) {
            *x = v / l.get(i * n + i).copied().unwrap_or(1.0);
        }
    }
}

/// Adds `v` to the lower triangle of the `n × n` matrix `h` at `(i, j)` or `(j, i)`.
fn add_sym(h: &mut [f64], n: usize, i: usize, j: usize, v: f64) {
    let (r, c) = if i >= j { (i, j) } else { (j, i) };
    if let Some(x) = h.get_mut(r * n + c) {
        *x += v;
    }
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
fn optimal_certified(
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

const PLAN_TOLERANCE: f64 = 1e-9;

/// Stages of [`barrier`] (`t` tenfold after each centred one: from a gap of 100 % to
/// 10⁻¹² in thirteen), Newton steps per stage, and the Newton decrement `λ²` that ends a
/// stage: any multipliers give a valid bound (§6.2), so a centre found roughly only
/// loosens the bound a little, and the next stage starts from it.
const BARRIER_STAGES: usize = 24;
const NEWTON_STEPS: usize = 60;
const BARRIER_DEC: f64 = 1e-6;

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

/// A graph plan's routes: slot `2t` is the route of the ring's member `t` to its
/// successor, `2t + 1` to its predecessor, each `path_len` links long at most.
#[derive(Debug)]
pub struct Paths<'b> {
    /// Links of each route, `path_len` per slot.
    pub links: &'b mut [usize],
    /// Links used in each slot.
    pub len: &'b mut [usize],
    /// Each route's share of bandwidth (its cost per unit is the inverse).
    pub share: &'b mut [f64],
    /// Links per slot.
    pub path_len: usize,
}

impl Paths<'_> {
    /// Route `k`'s links.
    pub fn route(&self, k: usize) -> &[usize] {
        let n = self.len.get(k).copied().unwrap_or(0);
        let at = k.saturating_mul(self.path_len);
        self.links.get(at..at.saturating_add(n)).unwrap_or(&[])
    }
}

/// The adjacency (CSR) of `links` on `n` nodes, in link order (so that ties in the widest
/// path are deterministic): a directed link leaves `from` only (`to` when `reverse`).
fn build_adj<'b>(n: usize, links: &[Link], reverse: bool, us: &mut &'b mut [usize]) -> Option<Adj<'b>> {
    let e = links.len();
    let start = take(us, n + 1);
    let node = take(us, 2 * e);
    let link = take(us, 2 * e);
    let cursor = take(us, n);
    if cursor.len() < n || start.len() < n + 1 {
        return None;
    }
    start.fill(0);
    let ends = |k: &Link| {
        let (a, b) = if reverse { (k.to, k.from) } else { (k.from, k.to) };
        (a, b, k.kind != LinkKind::Directed)
    };
    for k in links {
        let (a, b, both) = ends(k);
        *start.get_mut(a + 1)? += 1;
        if both {
            *start.get_mut(b + 1)? += 1;
        }
    }
    for i in 0..n {
        let x = *start.get(i)?;
        *start.get_mut(i + 1)? += x;
    }
    copy(cursor, start.get(..n)?);
    for (ei, k) in links.iter().enumerate() {
        let (a, b, both) = ends(k);
        for (u, v) in [(a, b), (b, a)].into_iter().take(if both { 2 } else { 1 }) {
            let c = cursor.get_mut(u)?;
            *node.get_mut(*c)? = v;
            *link.get_mut(*c)? = ei;
            *c += 1;
        }
    }
    Some(Adj { start, node, link })
}

/// Everything a graph plan works in, carved from the two scratch pools.
pub(crate) struct Net<'b> {
    p: usize,
    links: &'b [Link],
    len: usize,
    adj: Adj<'b>,
    /// The adjacency of the reversed graph: widest paths *to* a node.
    radj: Adj<'b>,
    /// Bottlenecks from and to the two ends of a ring edge (§5's exact bound).
    reach: &'b mut [f64],
    /// Per ring position, the forward widest-path trees from its two ends (predecessor
    /// node and link of every node).
    tree_node: &'b mut [usize],
    tree_link: &'b mut [usize],
    dij: Dij<'b>,
    resid: &'b mut [f64],
    spare: &'b mut [f64],
    /// Route slots by processor: `2m` to its successor, `2m + 1` to its predecessor.
    slot_links: &'b mut [usize],
    slot_len: &'b mut [usize],
    slot_share: &'b mut [f64],
    /// An evaluated ring's routes, by position.
    eval_links: &'b mut [usize],
    eval_len: &'b mut [usize],
    eval_share: &'b mut [f64],
    /// Four candidate routes, then the four chosen.
    cand_links: &'b mut [usize],
    cand_len: &'b mut [usize],
    cand_share: &'b mut [f64],
    cons: Constraints<'b>,
    cand_key: &'b mut [f64],
    cand_idx: &'b mut [usize],
    owner: &'b mut [usize],
    mark: &'b mut [usize],
    /// All-pairs widest bandwidths on the full capacities, `p × p`.
    widest: &'b mut [f64],
    load: &'b mut [f64],
    opt: &'b mut [f64],
    lam: &'b mut [f64],
    /// The barrier method's Newton system and vectors.
    newton: &'b mut [f64],
    /// The plain growth's residual and route shares while a ring size is refined.
    kept_resid: &'b mut [f64],
    kept_share: &'b mut [f64],
    wq: &'b mut [f64],
    order: &'b mut [usize],
    /// The certified relative gap of the last optimal sharing kept.
    pub gap: f64,
}

impl<'b> Net<'b> {
    /// Carves the pools (at least [`sizes`]) and builds the adjacency.
    pub(crate) fn new(
        p: usize,
        net: &Network<'b>,
        mut us: &'b mut [usize],
        mut fs: &'b mut [f64],
    ) -> Option<Net<'b>> {
        let l = Layout::new(p, net)?;
        if us.len() < l.usizes()? || fs.len() < l.f64s()? {
            return None;
        }
        let (n, e, slots, len) = (l.n, l.e, l.slots, l.len);
        let adj = build_adj(n, net.links, false, &mut us)?;
        let radj = build_adj(n, net.links, true, &mut us)?;
        let dij = Dij {
            bw: take(&mut fs, n),
            hops: take(&mut us, n),
            prev_node: take(&mut us, n),
            prev_link: take(&mut us, n),
            state: take(&mut us, n),
            heap: take(&mut us, n),
            pos: take(&mut us, n),
            size: 0,
        };
        let route_store = slots * len;
        let net = Net {
            p,
            links: net.links,
            len,
            adj,
            radj,
            reach: take(&mut fs, 4 * n),
            tree_node: take(&mut us, 2 * p * n),
            tree_link: take(&mut us, 2 * p * n),
            dij,
            resid: take(&mut fs, e),
            spare: take(&mut fs, e),
            widest: take(&mut fs, p * p),
            slot_links: take(&mut us, route_store),
            slot_len: take(&mut us, slots),
            slot_share: take(&mut fs, slots),
            eval_links: take(&mut us, route_store),
            eval_len: take(&mut us, slots),
            eval_share: take(&mut fs, slots),
            cand_links: take(&mut us, 8 * len),
            cand_len: take(&mut us, 8),
            cand_share: take(&mut fs, 8),
            cons: Constraints {
                cap: take(&mut fs, l.constraints),
                start: take(&mut us, l.constraints + 1),
                entries: take(&mut us, l.entries),
                ids: take(&mut us, l.entries),
                link_map: take(&mut us, e),
                count: 0,
            },
            cand_key: take(&mut fs, l.candidates),
            cand_idx: take(&mut us, l.candidates),
            owner: take(&mut us, slots),
            mark: take(&mut us, slots),
            load: take(&mut fs, l.constraints),
            opt: take(&mut fs, 6 * slots),
            lam: take(&mut fs, l.constraints),
            newton: take(&mut fs, barrier_words(slots, p)?),
            kept_resid: take(&mut fs, e),
            kept_share: take(&mut fs, slots),
            wq: take(&mut fs, p),
            order: take(&mut us, p),
            gap: 0.0,
        };
        // Each pool's last buffer is whole only when every one before it is.
        if net.wq.len() < p || net.order.len() < p {
            return None;
        }
        for m in net.cons.link_map.iter_mut() {
            *m = NONE;
        }
        Some(net)
    }
}

/// The bandwidth a route may use on each link: the full capacities, or what `resid` leaves
/// of the shared links (a backbone offers its full bandwidth either way). One type rather
/// than a closure each, so that Dijkstra and the constraints are compiled once.
struct Caps<'a> {
    links: &'a [Link],
    resid: Option<&'a [f64]>,
}

impl Caps<'_> {
    fn at(&self, e: usize) -> f64 {
        match (self.links.get(e), self.resid) {
            (Some(l), Some(resid)) if l.shared() => resid.get(e).copied().unwrap_or(0.0),
            (Some(l), _) => l.bandwidth,
            (None, _) => 0.0,
        }
    }
}

/// The capacity a new route may use on link `e`: what is left of a shared link, the full
/// bandwidth of a backbone.
fn residual_cap<'a>(links: &'a [Link], resid: &'a [f64]) -> Caps<'a> {
    Caps { links, resid: Some(resid) }
}

fn full_cap(links: &[Link]) -> Caps<'_> {
    Caps { links, resid: None }
}

fn slot<'a>(store: &'a [usize], len: usize, lens: &[usize], k: usize) -> &'a [usize] {
    let n = lens.get(k).copied().unwrap_or(0);
    let at = k.saturating_mul(len);
    store.get(at..at.saturating_add(n)).unwrap_or(&[])
}

/// Copies route `from` of one store into route `to` of another.
fn copy_route(
    src: (&[usize], &[usize]),
    from: usize,
    dst: (&mut [usize], &mut [usize]),
    to: usize,
    len: usize,
) {
    let r = slot(src.0, len, src.1, from);
    let n = r.len();
    if let (Some(out), Some(l)) = (dst.0.get_mut(to * len..to * len + n), dst.1.get_mut(to)) {
        out.copy_from_slice(r);
        *l = n;
    }
}

/// Adds `sign·share` of a route to the residual of every shared link it crosses.
fn give(links: &[Link], resid: &mut [f64], route: &[usize], share: f64, sign: f64) {
    for &e in route {
        if links.get(e).is_some_and(Link::shared) {
            if let Some(r) = resid.get_mut(e) {
                *r += sign * share;
            }
        }
    }
}

impl Net<'_> {
    /// All-pairs widest bandwidths on the full capacities (0: unreachable): `p` runs.
    pub(crate) fn all_pairs(&mut self) {
        let p = self.p;
        for s in 0..p {
            self.dij.run(&self.adj, s, NONE, &full_cap(self.links));
            for t in 0..p {
                let reached = self.dij.state.get(t) == Some(&2) && s != t;
                let b = if reached { self.dij.bw.get(t).copied().unwrap_or(0.0) } else { 0.0 };
                if let Some(x) = self.widest.get_mut(s * p + t) {
                    *x = b;
                }
            }
        }
    }

    fn widest_bw(&self, s: usize, t: usize) -> f64 {
        self.widest.get(s * self.p + t).copied().unwrap_or(0.0)
    }

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

/// Sorts the first `n` candidates by (bound, index): a heapsort on the two arrays.
fn sort_candidates(keys: &mut [f64], idx: &mut [usize], n: usize) {
    let (Some(keys), Some(idx)) = (keys.get_mut(..n), idx.get_mut(..n)) else { return };
    let less = |keys: &[f64], idx: &[usize], a: usize, b: usize| {
        let (ka, kb) = (keys.get(a).copied().unwrap_or(0.0), keys.get(b).copied().unwrap_or(0.0));
        ka < kb || (ka == kb && idx.get(a) < idx.get(b))
    };
    let sift = |keys: &mut [f64], idx: &mut [usize], mut at: usize, end: usize| loop {
        let (l, r) = (2 * at + 1, 2 * at + 2);
        let mut big = at;
        if l < end && less(keys, idx, big, l) {
            big = l;
        }
        if r < end && less(keys, idx, big, r) {
            big = r;
        }
        if big == at {
            return;
        }
        swap(keys, at, big);
        swap(idx, at, big);
        at = big;
    };
    for at in (0..n / 2).rev() {
        sift(keys, idx, at, n);
    }
    for end in (1..n).rev() {
        swap(keys, 0, end);
        swap(idx, 0, end);
        sift(keys, idx, 0, end);
    }
}

/// Most rings the local search values on a graph: each needs `2q` widest paths and a
/// sharing (BENCHMARKS.md).
pub const LOCAL_EVALUATIONS: usize = 500;

/// Sweeps and relative gap of the optimal sharing that values a ring while it grows and
/// in the local search (ring.md §5: a few sweeps from the greedy's or max-min's shares, a
/// feasible sharing whose value is achieved; the plan returned is shared to 1e-9; each
/// refinement is kept only when it improves the ring, so stopping early never harms). With
/// 100 sweeps, the 70-machine plan took 0.87 s, and its local search 0.67 s instead of
/// 0.38 s, for the same plan.
const ESTIMATE_SWEEPS: usize = 5;
const GROWTH_TOLERANCE: f64 = 1e-6;

/// Golden-section steps of the z-block: the floor to `0.618⁶⁰ ≈ 3·10⁻¹³`.
const GOLDEN_STEPS: usize = 60;

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

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::num::xorshift;

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
