//! From clusters and a communication pattern to classes of identical processors, each with
//! its step time `a·F + b` (heien §3.1 eq. 4 for the ring, §3.2 eqs. 9–11 for the
//! all-to-all code, or the caller's own `a` and `b`), for the clusters that take part and
//! in a given ring order.

use super::types::{Application, Class, Cluster, Link, Links, PairLink, Position, RingOrder};
use crate::error::Error;

/// A platform as the solver sees it: the base clusters, possibly followed by a what-if
/// addition's, the links and the application.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Platform<'a> {
    pub base: &'a [Cluster],
    pub extra: &'a [Cluster],
    pub links: Links<'a>,
    pub application: Application<'a>,
}

/// What [`build`] found besides the classes it wrote.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Built {
    /// Classes written.
    pub classes: usize,
    /// Processors of the clusters that take part.
    pub processors: u64,
    /// Steps in the run.
    pub iterations: f64,
    /// Roundings behind each class's `a` and `b` together, and behind `iterations`
    /// (all on non-negative terms), for the bounds of `kernel::fp`.
    pub param_ops: u64,
    pub iteration_ops: u64,
}

/// The seconds a ring exchange over `link` takes: `L + 2o + 4g` (eqs. 2–3: about 4 changed
/// border spins per half-step).
pub(crate) fn ring_exchange(link: Link) -> f64 {
    link.latency + 2.0 * link.overhead + 4.0 * link.gap
}

/// The fixed part of one message over `link`: `L + 2o`.
fn message(link: Link) -> f64 {
    link.latency + 2.0 * link.overhead
}

/// `true` when the pairs change something: some pair's link differs from `slow`.
pub(crate) fn pairs_matter(links: &Links<'_>) -> bool {
    links.pairs.iter().any(|p| p.link != links.slow)
}

impl<'a> Platform<'a> {
    pub fn len(&self) -> usize {
        self.base.len() + self.extra.len()
    }

    pub fn cluster(&self, i: usize) -> Cluster {
        let c = match self.base.get(i) {
            Some(c) => Some(c),
            None => self.extra.get(i.wrapping_sub(self.base.len())),
        };
        c.copied().unwrap_or(Cluster::new(0))
    }

    /// The slow link between clusters `i` and `j`.
    pub fn slow(&self, i: usize, j: usize) -> Link {
        let is = |p: &&PairLink| (p.first == i && p.second == j) || (p.first == j && p.second == i);
        self.links.pairs.iter().find(is).map_or(self.links.slow, |p| p.link)
    }

    /// Load units: lattice columns, objects, or the custom count.
    pub fn units(&self) -> u64 {
        match self.application {
            Application::Ring { lattice, .. } => lattice,
            Application::AllToAll { objects, .. } => objects,
            Application::Custom { units, .. } => units,
        }
    }

    /// The step time of cluster `c` alone (the others out of the run) with an even split,
    /// and the run's iterations: a ring of one cluster closes on itself (all `r = 2`); an
    /// all-to-all code on one cluster has only fast links.
    pub fn alone(&self, c: usize) -> (f64, f64) {
        let cl = self.cluster(c);
        let n = f64::from(cl.processors);
        let fast = self.links.fast;
        match self.application {
            Application::Ring { lattice, flip_time, steps } => {
                let s = lattice as f64;
                let a = 4.0 * s * flip_time / cl.speed;
                (a / n + 2.0 * ring_exchange(fast), steps as f64 * s / 4.0)
            }
            Application::AllToAll { objects, chunk, sort_time, words_per_object } => {
                let r = n - 1.0;
                let a = n * sort_time / cl.speed + words_per_object * chunk as f64 * (fast.gap * r * r);
                (a / n + r * message(fast), objects as f64 / (n * chunk as f64))
            }
            Application::Custom { iterations, costs, .. } => {
                let cost =
                    costs.get(c).copied().unwrap_or(super::types::StepCost { per_load: 1.0, fixed: 0.0 });
                (cost.per_load / cl.speed / n + cost.fixed, iterations)
            }
        }
    }
}

/// Writes the classes of the clusters `active` says take part, along the ring in `order`,
/// to `out` (which holds at least `needs` classes), in ring order.
///
/// # Errors
///
/// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) when a step time is not finite in
/// `f64`, [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) when a class's `a`
/// underflows to 0.
pub(crate) fn build(
    pf: &Platform<'_>,
    order: &RingOrder,
    active: impl Fn(usize) -> bool,
    out: &mut [Class],
) -> Result<Built, Error> {
    let mut w = Writer { out, len: 0 };
    let mut processors = 0u64;
    for c in 0..pf.len() {
        if active(c) {
            processors += u64::from(pf.cluster(c).processors);
        }
    }
    let fast = pf.links.fast;
    // Per-pair slow links enter each class as sums over the other clusters.
    let pair_terms = if pairs_matter(&pf.links) { pf.len() as u64 } else { 0 };
    let built = match pf.application {
        Application::Ring { lattice, flip_time, steps } => {
            let s = lattice as f64;
            let fast_t = ring_exchange(fast);
            let mut ring = order_iter(order).filter(|&c| active(c));
            let first = ring.clone().next();
            let last = ring.clone().last();
            let single = first.is_some() && first == last;
            let mut prev = last.unwrap_or(0);
            while let Some(c) = ring.next() {
                let cl = pf.cluster(c);
                let a = 4.0 * s * flip_time / cl.speed;
                let n = cl.processors;
                if single {
                    w.push(c, Position::Whole, 2, n, a, 2.0 * fast_t)?;
                    break;
                }
                let next = ring.clone().next().or(first).unwrap_or(c);
                let before = ring_exchange(pf.slow(prev, c));
                let after = ring_exchange(pf.slow(c, next));
                if n == 1 {
                    w.push(c, Position::Whole, 0, 1, a, before + after)?;
                } else {
                    let (b_first, b_last) = (fast_t + before, fast_t + after);
                    if b_first == b_last {
                        w.push(c, Position::Ends, 1, 2, a, b_first)?;
                    } else {
                        w.push(c, Position::First, 1, 1, a, b_first)?;
                        w.push(c, Position::Last, 1, 1, a, b_last)?;
                    }
                    if n > 2 {
                        w.push(c, Position::Interior, 2, n - 2, a, 2.0 * fast_t)?;
                    }
                }
                prev = c;
            }
            // a: 4·S, ·T_spin, /speed; b: two exchanges of 3 roundings each, their sum,
            // with room for the conversion of S.
            let iterations = steps as f64 * s / 4.0;
            Built { classes: w.len, processors, iterations, param_ops: 4 + 8, iteration_ops: 4 }
        }
        Application::AllToAll { objects, chunk, sort_time, words_per_object } => {
            let p = processors as f64;
            let dk = words_per_object * chunk as f64;
            let fast_msg = message(fast);
            for c in order_iter(order).filter(|&c| active(c)) {
                let cl = pf.cluster(c);
                let n = f64::from(cl.processors);
                let r = n - 1.0;
                let others = p - n;
                let (slow_gap, slow_fixed) = if pair_terms == 0 {
                    (pf.links.slow.gap * others * others, others * message(pf.links.slow))
                } else {
                    let (mut g, mut m) = (0.0, 0.0);
                    for j in (0..pf.len()).filter(|&j| j != c && active(j)) {
                        let nj = f64::from(pf.cluster(j).processors);
                        let link = pf.slow(c, j);
                        g += nj * link.gap;
                        m += nj * message(link);
                    }
                    (others * g, m)
                };
                let a = p * sort_time / cl.speed + dk * (fast.gap * r * r + slow_gap);
                let b = r * fast_msg + slow_fixed;
                w.push(c, Position::Whole, cl.processors - 1, cl.processors, a, b)?;
            }
            let iterations = objects as f64 / (p * chunk as f64);
            // a: 8 roundings plus 2 per pair term; b: 5 plus 3 per pair term.
            Built { classes: w.len, processors, iterations, param_ops: 13 + 5 * pair_terms, iteration_ops: 4 }
        }
        Application::Custom { iterations, costs, .. } => {
            for c in order_iter(order).filter(|&c| active(c)) {
                let cl = pf.cluster(c);
                let cost =
                    costs.get(c).copied().unwrap_or(super::types::StepCost { per_load: 1.0, fixed: 0.0 });
                w.push(c, Position::Whole, 0, cl.processors, cost.per_load / cl.speed, cost.fixed)?;
            }
            Built { classes: w.len, processors, iterations, param_ops: 1, iteration_ops: 0 }
        }
    };
    Ok(built)
}

/// The clusters along the ring.
fn order_iter(order: &RingOrder) -> impl Iterator<Item = usize> + Clone + '_ {
    (0..order.len()).filter_map(move |i| order.get(i))
}

struct Writer<'o> {
    out: &'o mut [Class],
    len: usize,
}

impl Writer<'_> {
    fn push(
        &mut self,
        cluster: usize,
        position: Position,
        r: u32,
        n: u32,
        a: f64,
        b: f64,
    ) -> Result<(), Error> {
        if !(a.is_finite() && b.is_finite()) {
            return Err(Error::numeric_overflow("f64"));
        }
        // The split weighs each class by 1/a: an `a` whose inverse leaves `f64` is no plan.
        if a < crate::num::MIN_INVERTIBLE {
            return Err(Error::entry_value(
                "clusters",
                cluster,
                "step time per load",
                ">= 5.56268464626801e-309 in f64 after dividing by speed (inputs too small)",
                a,
            ));
        }
        let slot = self.out.get_mut(self.len).ok_or(Error::buffer("classes", self.len + 1, self.len))?;
        *slot = Class {
            cluster,
            position,
            fast_links: r,
            processors: n,
            per_load: a,
            fixed: b,
            fraction: 0.0,
            units: 0,
            participates: true,
        };
        self.len += 1;
        Ok(())
    }
}
