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
//!
//! One file per concern, around the memory every concern works in (`Net`, here: the
//! carving of the caller's two scratch pools): `network` (the graph), `widest`
//! (widest paths), `sharing` (constraints, max-min, the dual ascent), `barrier` (the
//! certified optimal sharing), `greedy`, `search` (a given ring, for the searches and the
//! plan's polish) and `bound`.

mod barrier;
mod bound;
mod greedy;
mod network;
mod search;
mod sharing;
mod widest;

pub use network::{Link, LinkKind, Network, Paths};

use network::{copy, Adj, NONE};
use sharing::Constraints;
use widest::Dij;

pub use search::LOCAL_EVALUATIONS;

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

/// Routes the interior-point solve takes at most: its Newton system is dense, `(routes +
/// 1)²` numbers (2 MiB at this bound). Beyond, the block-coordinate ascent alone.
const NEWTON_ROUTES: usize = 512;

/// The working numbers of the barrier method (`barrier.rs`) for `routes` routes and `members` members.
fn barrier_words(routes: usize, members: usize) -> Option<usize> {
    let n = routes.min(NEWTON_ROUTES).checked_add(1)?;
    n.checked_mul(n)?.checked_add(n.checked_mul(4)?)?.checked_add(members.checked_mul(2)?)
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
