//! Choosing the root among candidates (genaud2003 §3.4): the candidate whose transfer time
//! plus rational makespan is least, the first of equal ones.
//!
//! Solving the plan of every candidate costs a sort and a solve each, O(c·p log p): with
//! each of 10⁴ workers a candidate 4.8 s, with 10⁵ about 8 minutes. With linear costs and
//! the bandwidth order there is a shortcut:
//!
//! * Taking the root out of the bandwidth order of all `p` workers leaves the bandwidth
//!   order of the others (the order is total), so one sort serves every candidate.
//! * The rational makespan is `items / r`, where the solver's backward recursion (`star.rs`,
//!   and `star::lower_bound`, which writes it without a test) runs
//!   `r ← max(r, (μ·r + 1)/(λ + μ))` from the root's line on.
//! * In bandwidth order the workers that take part are a prefix: if `λₖ·r < 1` then
//!   `λₖ·r' < 1` for `r' = (μₖ·r + 1)/(λₖ + μₖ)` (multiply out), and λ only decreases
//!   towards the front. After send, the root is last with the line `r₀ = 1/μ_root`, so the
//!   prefix is the positions with `λ·r₀ < 1`; in overlap mode the root is first and,
//!   from `r = 0`, everyone takes part.
//! * Over that prefix `r` is a composition of affine maps `r ↦ a·r + b`, `a = μ/(λ + μ)`,
//!   `b = 1/(λ + μ)`, with the root's own position left out: two range queries of a
//!   segment tree of compositions, O(log p) per candidate.
//!
//! The estimates are in `f64` and associate the maps differently from the solver, so they
//! do not choose the root; they choose which candidates to solve. Every candidate whose
//! estimate is within [`tolerance`] of the best one, which covers the rounding of both
//! computations, is solved as before and compared as before, so the answer is the one the
//! solve of every candidate would give. Candidates whose worker has the same costs share
//! one solve: the others' order is then the same sequence of costs. At most [`SHORTLIST`]
//! distinct ones are solved; candidates past them are within the tolerance of the best and
//! are left out (documents of many workers whose makespans agree to 10⁻⁹ but whose costs
//! differ in the last bits).
//!
//! Without the shortcut (latencies, the given order, a fixed-point number type) every
//! candidate is solved, and more than [`EACH_WORK`] candidates × workers are refused
//! before any solve.

use crate::error::Error;
use crate::kernel::columns::Columns;
use crate::num::Real;
use crate::platform::worker::Worker;
use crate::scatter::options::{Options, OrderPolicy, RootCandidate, RootMode};
use crate::scatter::order;
use crate::scatter::star;
use crate::scatter::types::{col, Assignment, Costs, Scratch};

/// Most distinct candidates solved after the estimates; also the most candidates that are
/// all solved without estimates.
const SHORTLIST: usize = 16;

/// Most candidates × workers solved one candidate at a time: a solve with latencies is up
/// to 16 rounds over the workers, about 50 ns per worker and candidate here, so this
/// bounds the choice to about 7 s (10⁵ candidates would take ten minutes).
pub(crate) const EACH_WORK: u64 = 1 << 27;

type Cols<'a, 'b, N> = &'a mut Columns<'b, Scratch<N>>;

/// The root and its transfer time. Validates every candidate.
pub(crate) fn choose_root<N: Real>(
    workers: &[Worker<N>],
    candidates: &[RootCandidate<N>],
    items: N,
    opts: Options,
    cols: Cols<'_, '_, N>,
) -> Result<(usize, N), Error> {
    for (i, c) in candidates.iter().enumerate() {
        c.validate(i)?;
        if c.worker >= workers.len() {
            return Err(Error::root_out_of_range(c.worker, workers.len()));
        }
    }
    if candidates.len() <= SHORTLIST {
        return solve_each(workers, candidates, items, opts, cols);
    }
    let linear = workers.iter().all(|w| w.comm_latency == N::ZERO && w.comp_latency == N::ZERO);
    // A fixed-point `N` (`ROUNDOFF` 0) errs by absolute amounts, which the relative
    // tolerance does not cover: it solves every candidate.
    if !linear || opts.order != OrderPolicy::Bandwidth || N::ROUNDOFF <= 0.0 {
        let work = (candidates.len() as u64).saturating_mul(workers.len() as u64);
        if work > EACH_WORK {
            return Err(Error::too_large("root_candidates × workers", EACH_WORK, work));
        }
        return solve_each(workers, candidates, items, opts, cols);
    }

    // The first candidate of each distinct worker cost within the threshold, in order.
    let mut classes = [(0usize, N::ZERO); SHORTLIST];
    let mut n = 0usize;
    {
        let tree = Tree::build(workers, cols);
        let estimate = |c: &RootCandidate<N>| {
            tree.makespan(workers, c.worker, opts.root_mode, items.to_f64()) + c.transfer_time(items).to_f64()
        };
        let best = candidates.iter().map(estimate).fold(f64::INFINITY, f64::min);
        let threshold = best * (1.0 + tolerance::<N>(workers.len()));
        for c in candidates {
            let within = estimate(c) <= threshold;
            if !within || class_of(workers, classes.get(..n).unwrap_or(&[]), c.worker).is_some() {
                continue;
            }
            if let Some(slot) = classes.get_mut(n) {
                *slot = (c.worker, N::ZERO);
                n += 1;
            }
        }
    }
    // The solves overwrite the tree's columns: every estimate is taken by now.
    for class in classes.iter_mut().take(n) {
        class.1 = rational_makespan(workers, class.0, items, opts, cols);
    }
    let mut chosen = Chosen::NONE;
    for c in candidates {
        if let Some(k) = class_of(workers, classes.get(..n).unwrap_or(&[]), c.worker) {
            chosen.offer(c, classes.get(k).map_or(N::INFINITY, |class| class.1), items);
        }
    }
    chosen.result()
}

/// The least total so far, the first of equal ones: a flag and values rather than an
/// `Option`, whose payload the optimiser may compare before its tag (which valgrind
/// reports in the C tests).
struct Chosen<N> {
    found: bool,
    total: N,
    worker: usize,
    transfer: N,
}

impl<N: Real> Chosen<N> {
    const NONE: Self = Chosen { found: false, total: N::ZERO, worker: 0, transfer: N::ZERO };

    fn offer(&mut self, c: &RootCandidate<N>, makespan: N, items: N) {
        let transfer = c.transfer_time(items);
        let total = makespan + transfer;
        if !self.found || total < self.total {
            *self = Chosen { found: true, total, worker: c.worker, transfer };
        }
    }

    fn result(&self) -> Result<(usize, N), Error> {
        if self.found {
            Ok((self.worker, self.transfer))
        } else {
            Err(Error::no_root_candidates())
        }
    }
}

/// Every candidate solved in turn: O(p log p) each.
fn solve_each<N: Real>(
    workers: &[Worker<N>],
    candidates: &[RootCandidate<N>],
    items: N,
    opts: Options,
    cols: Cols<'_, '_, N>,
) -> Result<(usize, N), Error> {
    let mut chosen = Chosen::NONE;
    for c in candidates {
        chosen.offer(c, rational_makespan(workers, c.worker, items, opts, cols), items);
    }
    chosen.result()
}

fn rational_makespan<N: Real>(
    workers: &[Worker<N>],
    root: usize,
    items: N,
    opts: Options,
    cols: Cols<'_, '_, N>,
) -> N {
    order::send_order(workers, root, opts.root_mode, opts.order, cols);
    star::solve::<N, [Assignment<N>]>(&Costs::new(workers, root), items, cols, None).makespan
}

/// Which of `classes` has a worker with the same costs as `worker`, bit for bit.
fn class_of<N: Real>(workers: &[Worker<N>], classes: &[(usize, N)], worker: usize) -> Option<usize> {
    let bits = |w: usize| {
        workers.get(w).map(|x| {
            [
                x.comm_latency.to_word(),
                x.comm_per_item.to_word(),
                x.comp_latency.to_word(),
                x.comp_per_item.to_word(),
            ]
        })
    };
    let own = bits(worker)?;
    classes.iter().position(|&(w, _)| bits(w) == Some(own))
}

/// Relative distance from the best estimate within which a candidate is solved: twice the
/// error bound of each computation, both at most a few roundings per worker with no
/// cancellation (sums, products and quotients of positive terms), taken as `8p + 64`
/// roundings of `f64` for the estimate and of `N` for the solver.
fn tolerance<N: Real>(p: usize) -> f64 {
    let roundings = 8.0 * p as f64 + 64.0;
    2.0 * roundings * (f64::EPSILON / 2.0 + N::ROUNDOFF)
}

/// The workers in bandwidth order with each one's position, and the segment tree of the
/// compositions of their maps `r ↦ a·r + b` (node `i` covers a range of positions; leaf
/// `p + k` is position `k`; a node is its left child applied after its right one, as the
/// backward recursion applies the front positions last).
struct Tree<'a, 'b, N> {
    cols: &'a mut Columns<'b, Scratch<N>>,
    p: usize,
}

#[derive(Clone, Copy)]
struct Map {
    a: f64,
    b: f64,
}

impl Map {
    const IDENTITY: Map = Map { a: 1.0, b: 0.0 };

    /// `self ∘ inner`: `inner` first.
    fn after(self, inner: Map) -> Map {
        Map { a: self.a * inner.a, b: self.a * inner.b + self.b }
    }
}

impl<'a, 'b, N: Real> Tree<'a, 'b, N> {
    fn build(workers: &[Worker<N>], cols: &'a mut Columns<'b, Scratch<N>>) -> Self {
        let p = cols.len();
        order::by_bandwidth(workers, p, 0, usize::MAX, cols);
        let mut t = Tree { cols, p };
        for k in 0..p {
            let w = t.cols.index(col::WORKER, k);
            t.cols.set(col::ROOT_POS, w, k as u64);
            let (lambda, mu) = t.costs(k);
            t.set(p + k, Map { a: mu / (lambda + mu), b: 1.0 / (lambda + mu) });
        }
        for i in (1..p).rev() {
            let m = t.get(2 * i).after(t.get(2 * i + 1));
            t.set(i, m);
        }
        t
    }

    /// λ and μ at position `k`, in `f64`.
    fn costs(&self, k: usize) -> (f64, f64) {
        (N::from_sort_key(self.cols.get(col::LAMBDA, k)).to_f64(), self.cols.real::<N>(col::MU, k).to_f64())
    }

    fn get(&self, i: usize) -> Map {
        Map {
            a: f64::from_bits(self.cols.wide(col::ROOT_TREE, 2 * i)),
            b: f64::from_bits(self.cols.wide(col::ROOT_TREE, 2 * i + 1)),
        }
    }

    fn set(&mut self, i: usize, m: Map) {
        self.cols.set_wide(col::ROOT_TREE, 2 * i, m.a.to_bits());
        self.cols.set_wide(col::ROOT_TREE, 2 * i + 1, m.b.to_bits());
    }

    /// The composition of the maps of positions `l..r`, the front one applied last.
    fn range(&self, l: usize, r: usize) -> Map {
        let (mut l, mut r) = (l + self.p, r + self.p);
        let (mut front, mut back) = (Map::IDENTITY, Map::IDENTITY);
        while l < r {
            if l & 1 == 1 {
                front = front.after(self.get(l));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                back = self.get(r).after(back);
            }
            l >>= 1;
            r >>= 1;
        }
        front.after(back)
    }

    /// The estimated rational makespan with `root` as the root.
    fn makespan(&self, workers: &[Worker<N>], root: usize, mode: RootMode, items: f64) -> f64 {
        let p = self.p;
        let pos = self.cols.index(col::ROOT_POS, root);
        let mu = workers.get(root).map_or(f64::NAN, |w| w.comp_per_item.to_f64());
        let r = match mode {
            // Root first: everyone takes part, from `r = 0`; the root's map is `r + 1/μ`.
            RootMode::Overlap => self.range(0, pos).after(self.range(pos + 1, p)).b + 1.0 / mu,
            RootMode::AfterSend => {
                let r0 = 1.0 / mu;
                // The prefix of positions with λ·r₀ < 1 (λ increases along the order).
                let (mut lo, mut hi) = (0usize, p);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.costs(mid).0 * r0 < 1.0 {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                let m = if pos < lo {
                    self.range(0, pos).after(self.range(pos + 1, lo))
                } else {
                    self.range(0, lo)
                };
                m.a * r0 + m.b
            }
        };
        items / r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    fn unit(rnd: &mut impl FnMut() -> u64) -> f64 {
        (rnd() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Random platforms: costs spread over decades, a few kinds of identical workers, and
    /// neighbours one ulp apart, so that ties and near-ties are common.
    fn platform(rnd: &mut impl FnMut() -> u64, p: usize) -> Vec<Worker<f64>> {
        let kinds = 1 + (rnd() % 4) as usize;
        let kind: Vec<(f64, f64)> = (0..kinds)
            .map(|_| (1e-6 * 10f64.powf(3.0 * unit(rnd)), 1e-4 * 10f64.powf(3.0 * unit(rnd))))
            .collect();
        (0..p)
            .map(|_| match rnd() % 4 {
                0 => {
                    let (l, m) = kind[(rnd() % kinds as u64) as usize];
                    Worker::linear(l, m)
                }
                1 => {
                    let (l, m) = kind[0];
                    Worker::linear(l, f64::from_bits(m.to_bits() + rnd() % 3))
                }
                _ => Worker::linear(1e-6 * 10f64.powf(3.0 * unit(rnd)), 1e-4 * 10f64.powf(3.0 * unit(rnd))),
            })
            .collect()
    }

    /// The estimates are within half the tolerance of the solver's makespans, for every
    /// worker as the root and both root modes: what makes the shortlist hold the answer.
    #[test]
    fn estimates_are_within_the_tolerance() {
        let mut rnd = crate::num::xorshift(0x5eed);
        for case in 0..300 {
            let p = 1 + (rnd() % 200) as usize;
            let workers = platform(&mut rnd, p);
            let items = 1.0 + (rnd() % (1 << 40)) as f64;
            for mode in [RootMode::AfterSend, RootMode::Overlap] {
                let opts = Options { root_mode: mode, ..Options::default() };
                let mut scratch = std::vec![Scratch::EMPTY; p];
                let mut estimates = std::vec![0.0; p];
                {
                    let mut cols = Columns::new(&mut scratch);
                    let tree = Tree::build(&workers, &mut cols);
                    for (q, e) in estimates.iter_mut().enumerate() {
                        *e = tree.makespan(&workers, q, mode, items);
                    }
                }
                let mut cols = Columns::new(&mut scratch);
                for (q, e) in estimates.iter().enumerate() {
                    let t = rational_makespan(&workers, q, items, opts, &mut cols);
                    let error = (e - t).abs() / t;
                    assert!(
                        error <= tolerance::<f64>(p) / 2.0,
                        "case {case} {mode:?} root {q}: {e} against {t}"
                    );
                }
            }
        }
    }

    /// Without the shortcut, candidates × workers are bounded before any solve: with a
    /// latency, or in the given order, 12 000 candidates among 12 000 workers are refused,
    /// the same list in bandwidth order without latencies is planned.
    #[test]
    fn solving_each_candidate_is_bounded() {
        let p = 12_000;
        let mut workers: Vec<Worker<f64>> =
            (0..p).map(|i| Worker::linear(1e-6 * (1 + i % 7) as f64, 1e-3)).collect();
        let candidates: Vec<RootCandidate<f64>> = (0..p).map(RootCandidate::local).collect();
        let mut scratch = std::vec![Scratch::EMPTY; p];
        let mut cols = Columns::new(&mut scratch);
        let opts = Options::default();
        assert!(choose_root(&workers, &candidates, 1e6, opts, &mut cols).is_ok());
        let given = Options { order: OrderPolicy::Given, ..opts };
        let e = choose_root(&workers, &candidates, 1e6, given, &mut cols).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::Overflow);
        assert!(e.to_string().contains("at most 134217728, got 144000000"), "{e}");
        workers[5].comm_latency = 1e-4;
        assert!(choose_root(&workers, &candidates, 1e6, opts, &mut cols).is_err());
        // Few candidates are always solved.
        assert!(choose_root(&workers, &candidates[..SHORTLIST], 1e6, opts, &mut cols).is_ok());
        // A fixed-point type solves every candidate, even in bandwidth order.
        let q = |x: f64| crate::num::Q32::from_f64(x).unwrap();
        let fixed: Vec<Worker<crate::num::Q32>> =
            (0..p).map(|i| Worker::linear(q(1e-6 * (1 + i % 7) as f64), q(1e-3))).collect();
        let fixed_candidates: Vec<RootCandidate<crate::num::Q32>> =
            (0..p).map(RootCandidate::local).collect();
        let mut scratch = std::vec![Scratch::EMPTY; p];
        let mut cols = Columns::new(&mut scratch);
        assert!(choose_root(&fixed, &fixed_candidates, q(1e6), opts, &mut cols).is_err());
    }

    /// The shortcut chooses what solving every candidate chooses: the same root and
    /// transfer, the first of equal totals, in `f64` and `f32`.
    #[test]
    fn the_shortcut_chooses_as_every_solve_would() {
        let mut rnd = crate::num::xorshift(0xc0ffee);
        for case in 0..400 {
            let p = 1 + (rnd() % 120) as usize;
            let workers = platform(&mut rnd, p);
            let count = SHORTLIST + 1 + (rnd() % (2 * p as u64 + 1)) as usize;
            let candidates: Vec<RootCandidate<f64>> = (0..count)
                .map(|_| {
                    let worker = (rnd() % p as u64) as usize;
                    match rnd() % 3 {
                        0 => RootCandidate::local(worker),
                        1 => RootCandidate {
                            worker,
                            transfer_latency: 0.0,
                            transfer_per_item: 1e-9 * unit(&mut rnd),
                        },
                        _ => {
                            RootCandidate { worker, transfer_latency: unit(&mut rnd), transfer_per_item: 0.0 }
                        }
                    }
                })
                .collect();
            let items = 1.0 + (rnd() % (1 << 30)) as f64;
            for mode in [RootMode::AfterSend, RootMode::Overlap] {
                let opts = Options { root_mode: mode, ..Options::default() };
                let mut scratch = std::vec![Scratch::EMPTY; p];
                let mut cols = Columns::new(&mut scratch);
                let fast = choose_root(&workers, &candidates, items, opts, &mut cols).unwrap();
                let each = solve_each(&workers, &candidates, items, opts, &mut cols).unwrap();
                assert_eq!(fast, each, "case {case} {mode:?}");

                let small: Vec<Worker<f32>> = workers
                    .iter()
                    .map(|w| Worker::linear(w.comm_per_item as f32, w.comp_per_item as f32))
                    .collect();
                let small_candidates: Vec<RootCandidate<f32>> = candidates
                    .iter()
                    .map(|c| RootCandidate {
                        worker: c.worker,
                        transfer_latency: c.transfer_latency as f32,
                        transfer_per_item: c.transfer_per_item as f32,
                    })
                    .collect();
                let mut scratch = std::vec![Scratch::EMPTY; p];
                let mut cols = Columns::new(&mut scratch);
                let small_items = items.min(1e6) as f32;
                let fast = choose_root(&small, &small_candidates, small_items, opts, &mut cols).unwrap();
                let each = solve_each(&small, &small_candidates, small_items, opts, &mut cols).unwrap();
                assert_eq!(fast, each, "f32, case {case} {mode:?}");
            }
        }
    }
}
