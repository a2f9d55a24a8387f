//! The platform graph (legrand2003 §2.1–2.3): links and their kinds, the adjacency, the
//! route stores, and the capacities a route may use (full, or what the routes already
//! placed leave).

use crate::kernel::sort::sort_pairs_by;

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

    pub(super) fn shared(&self) -> bool {
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

pub(super) const NONE: usize = usize::MAX;

/// Copies the front of `src` into the front of `dst` (as many as both hold).
pub(super) fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    for (a, &b) in dst.iter_mut().zip(src) {
        *a = b;
    }
}

/// The adjacency (CSR): for node `u`, `(node, link)` pairs `start[u]..start[u + 1]`.
pub(super) struct Adj<'b> {
    pub(super) start: &'b [usize],
    pub(super) node: &'b [usize],
    pub(super) link: &'b [usize],
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

/// The bandwidth a route may use on each link: the full capacities, or what `resid` leaves
/// of the shared links (a backbone offers its full bandwidth either way). One type rather
/// than a closure each, so that Dijkstra and the constraints are compiled once.
pub(super) struct Caps<'a> {
    links: &'a [Link],
    resid: Option<&'a [f64]>,
}

impl Caps<'_> {
    pub(super) fn at(&self, e: usize) -> f64 {
        match (self.links.get(e), self.resid) {
            (Some(l), Some(resid)) if l.shared() => resid.get(e).copied().unwrap_or(0.0),
            (Some(l), _) => l.bandwidth,
            (None, _) => 0.0,
        }
    }
}

/// The capacity a new route may use on link `e`: what is left of a shared link, the full
/// bandwidth of a backbone.
pub(super) fn residual_cap<'a>(links: &'a [Link], resid: &'a [f64]) -> Caps<'a> {
    Caps { links, resid: Some(resid) }
}

pub(super) fn full_cap(links: &[Link]) -> Caps<'_> {
    Caps { links, resid: None }
}

pub(super) fn slot<'a>(store: &'a [usize], len: usize, lens: &[usize], k: usize) -> &'a [usize] {
    let n = lens.get(k).copied().unwrap_or(0);
    let at = k.saturating_mul(len);
    store.get(at..at.saturating_add(n)).unwrap_or(&[])
}

/// Copies route `from` of one store into route `to` of another.
pub(super) fn copy_route(
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
pub(super) fn give(links: &[Link], resid: &mut [f64], route: &[usize], share: f64, sign: f64) {
    for &e in route {
        if links.get(e).is_some_and(Link::shared) {
            if let Some(r) = resid.get_mut(e) {
                *r += sign * share;
            }
        }
    }
}

/// Sorts the first `n` candidates by (bound, index).
pub(super) fn sort_candidates(keys: &mut [f64], idx: &mut [usize], n: usize) {
    let (Some(keys), Some(idx)) = (keys.get_mut(..n), idx.get_mut(..n)) else { return };
    sort_pairs_by(keys, idx, |(ka, ia), (kb, ib)| ka < kb || (ka == kb && ia < ib));
}
