//! Widest paths (legrand2003 §2.3; `ring.md` §5): Dijkstra on the bottleneck with an
//! indexed binary heap, ties to fewer hops, then the smaller predecessor, so that every
//! plan routes the same way whatever the platform's link order; and the all-pairs widest
//! bandwidths on the full capacities that the greedy's bounds and the §4 bound read.

use super::network::{full_cap, Adj, Caps, NONE};
use super::Net;

/// Dijkstra's labels and its indexed binary heap.
pub(super) struct Dij<'b> {
    pub(super) bw: &'b mut [f64],
    pub(super) hops: &'b mut [usize],
    pub(super) prev_node: &'b mut [usize],
    pub(super) prev_link: &'b mut [usize],
    pub(super) state: &'b mut [usize],
    pub(super) heap: &'b mut [usize],
    pub(super) pos: &'b mut [usize],
    pub(super) size: usize,
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
    pub(super) fn run(&mut self, adj: &Adj<'_>, s: usize, t: usize, cap: &Caps<'_>) {
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
    pub(super) fn route(&self, s: usize, t: usize, out: &mut [usize]) -> Option<(usize, f64)> {
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

    pub(super) fn widest_bw(&self, s: usize, t: usize) -> f64 {
        self.widest.get(s * self.p + t).copied().unwrap_or(0.0)
    }
}
