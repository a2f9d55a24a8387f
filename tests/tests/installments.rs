//! The star with installments, caps, release times and deadlines (`scatter::installments`)
//! against brute force in exact rationals:
//! * the schedule of given counts, simulated by its definition (sends back to back, a chunk
//!   computes once arrived, its predecessor done and its worker released);
//! * each sequence's optimal rational sizes, an exact LP per horizon with Newton's method
//!   on the horizon, checked against that simulation;
//! * every sequence with at most `M` chunks per worker, for the optimum over sequences.

use divload::scatter::installments::{
    memory, memory_for, plan, Chunk, Installments, Memory, Problem, RootWork, Summary, MAX_WIDE_ROUNDS,
};
use divload::Worker;
use divload_tests::exact::{qf, qi, simplex_max, Q};
use divload_tests::Lcg;
use num_traits::{Signed, ToPrimitive, Zero};

#[derive(Clone, Debug)]
struct Pf {
    workers: Vec<Worker<f64>>,
    root: usize,
    work: RootWork,
    caps: Vec<u64>,
    release: Vec<f64>,
}

/// One worker's costs in rationals, as the planner reads them (the root's sends are free).
#[derive(Clone, Debug)]
struct C {
    l: Q,
    c: Q,
    lam: Q,
    mu: Q,
    r: Q,
    cap: Option<Q>,
}

impl Pf {
    fn costs(&self, w: usize, items: u64) -> C {
        let x = self.workers[w];
        let root = w == self.root;
        C {
            l: if root { Q::zero() } else { qf(x.comm_latency) },
            c: if root { Q::zero() } else { qf(x.comm_per_item) },
            lam: qf(x.comp_latency),
            mu: qf(x.comp_per_item),
            r: self.release.get(w).map_or(Q::zero(), |&r| qf(r)),
            cap: self.caps.get(w).filter(|&&c| c < items).map(|&c| qi(c as i64)),
        }
    }

    fn others(&self) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|&w| w != self.root && self.caps.get(w).is_none_or(|&c| c >= 1))
            .collect()
    }

    fn root_computes(&self) -> bool {
        self.work != RootWork::None && self.caps.get(self.root).is_none_or(|&c| c >= 1)
    }

    /// Plans in memory for one round over many workers ([`memory`]).
    fn run(
        &self,
        items: u64,
        deadline: Option<f64>,
        installments: Installments,
    ) -> (Summary<f64>, Vec<Chunk<f64>>) {
        self.run_in(memory(self.workers.len()).unwrap(), items, deadline, installments)
    }

    fn run_in(
        &self,
        sizes: divload::scatter::installments::Sizes,
        items: u64,
        deadline: Option<f64>,
        installments: Installments,
    ) -> (Summary<f64>, Vec<Chunk<f64>>) {
        let problem = Problem {
            workers: &self.workers,
            root: self.root,
            root_work: self.work,
            items,
            deadline,
            max_items: &self.caps,
            available_at: &self.release,
            installments,
        };
        plan_in(sizes, &problem).unwrap_or_else(|e| panic!("{e} on {self:?}"))
    }
}

/// Plans `problem` in fresh memory of `sizes`: the summary and the plan's chunks.
fn plan_in(
    sizes: divload::scatter::installments::Sizes,
    problem: &Problem<'_, f64>,
) -> Result<(Summary<f64>, Vec<Chunk<f64>>), divload::Error> {
    let mut chunks = vec![Chunk::EMPTY; sizes.chunks];
    let (mut tableau, mut reals, mut indices) =
        (vec![0.0; sizes.tableau], vec![0.0; sizes.reals], vec![0; sizes.indices]);
    let mut m =
        Memory { chunks: &mut chunks, tableau: &mut tableau, reals: &mut reals, indices: &mut indices };
    let s = plan(problem, &mut m)?;
    chunks.truncate(s.chunks);
    Ok((s, chunks))
}

/// The makespan of counts `x` over `seq` (the root's share `root`), by the definition.
fn simulate(pf: &Pf, seq: &[usize], x: &[Q], root: &Q, items: u64) -> Q {
    let mut ready: Vec<Q> = (0..pf.workers.len()).map(|w| pf.costs(w, items).r).collect();
    let (mut port, mut makespan) = (Q::zero(), Q::zero());
    for (&w, n) in seq.iter().zip(x) {
        if !n.is_positive() {
            continue;
        }
        let c = pf.costs(w, items);
        port = &port + &c.l + &c.c * n;
        let start = if port > ready[w] { port.clone() } else { ready[w].clone() };
        ready[w] = start + &c.lam + &c.mu * n;
        if ready[w] > makespan {
            makespan = ready[w].clone();
        }
    }
    if root.is_positive() {
        let c = pf.costs(pf.root, items);
        let start = match pf.work {
            RootWork::Overlap => c.r.clone(),
            _ => {
                if port > c.r {
                    port.clone()
                } else {
                    c.r.clone()
                }
            }
        };
        let end = start + &c.lam + &c.mu * root;
        if end > makespan {
            makespan = end;
        }
    }
    makespan
}

fn simulate_f64(pf: &Pf, seq: &[usize], x: &[u64], root: u64) -> f64 {
    let mut ready: Vec<f64> =
        (0..pf.workers.len()).map(|w| pf.release.get(w).copied().unwrap_or(0.0)).collect();
    let (mut port, mut makespan) = (0.0f64, 0.0f64);
    for (&w, &n) in seq.iter().zip(x) {
        if n == 0 {
            continue;
        }
        let c = pf.workers[w];
        port += c.comm_latency + c.comm_per_item * n as f64;
        ready[w] = port.max(ready[w]) + c.comp_latency + c.comp_per_item * n as f64;
        makespan = makespan.max(ready[w]);
    }
    if root > 0 {
        let c = pf.workers[pf.root];
        let r = ready[pf.root];
        let start = if pf.work == RootWork::Overlap { r } else { port.max(r) };
        makespan = makespan.max(start + c.comp_latency + c.comp_per_item * root as f64);
    }
    makespan
}

/// The sequence's LP at horizon `t` (see `scatter/installments/lp.rs`), written
/// independently: `None` when a latency row's right-hand side is negative. Returns the
/// optimum and the number of rows whose right-hand side moves with `t`.
fn lp_at(
    pf: &Pf,
    seq: &[usize],
    with_root: bool,
    t: &Q,
    items: u64,
) -> Option<(divload_tests::exact::Optimum, usize)> {
    let k = seq.len();
    let n_cols = k + 1;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut sum_l = Q::zero();
    for j in 0..k {
        let w = pf.costs(seq[j], items);
        sum_l += &w.l;
        let later: Vec<usize> = (j..k).filter(|&i| seq[i] == seq[j]).collect();
        let mut row = vec![Q::zero(); n_cols];
        for i in 0..=j {
            row[i] += pf.costs(seq[i], items).c;
        }
        for &i in &later {
            row[i] += &w.mu;
        }
        a.push(row);
        b.push(t - &sum_l - qi(later.len() as i64) * &w.lam);
    }
    for j in 0..k {
        let w = pf.costs(seq[j], items);
        if seq[..j].contains(&seq[j]) || !w.r.is_positive() {
            continue;
        }
        let mine: Vec<usize> = (0..k).filter(|&i| seq[i] == seq[j]).collect();
        let mut row = vec![Q::zero(); n_cols];
        for &i in &mine {
            row[i] = w.mu.clone();
        }
        a.push(row);
        b.push(t - &w.r - qi(mine.len() as i64) * &w.lam);
    }
    if with_root {
        let r = pf.costs(pf.root, items);
        let mut own = vec![Q::zero(); n_cols];
        own[k] = r.mu.clone();
        a.push(own);
        b.push(t - &r.r - &r.lam);
        if pf.work == RootWork::AfterSend {
            let mut after: Vec<Q> = seq.iter().map(|&w| pf.costs(w, items).c).collect();
            after.push(r.mu.clone());
            a.push(after);
            b.push(t - &sum_l - &r.lam);
        }
    }
    let moving = a.len();
    if b.iter().any(|v| v.is_negative()) {
        return None;
    }
    for j in 0..k {
        if let Some(cap) = pf.costs(seq[j], items).cap {
            let mut row = vec![Q::zero(); n_cols];
            row[j] = qi(1);
            a.push(row);
            b.push(cap);
        }
    }
    if with_root {
        if let Some(cap) = pf.costs(pf.root, items).cap {
            let mut row = vec![Q::zero(); n_cols];
            row[k] = qi(1);
            a.push(row);
            b.push(cap);
        }
    }
    let mut c = vec![qi(1); n_cols];
    if !with_root {
        c[k] = Q::zero();
    }
    Some((simplex_max(&a, &b, &c), moving))
}

/// The least horizon at which `seq` finishes `items` (exact Newton on the concave `f`),
/// the least over the sequence with and without the root's share.
fn seq_makespan(pf: &Pf, seq: &[usize], items: u64) -> Option<(Q, Vec<Q>)> {
    let n = qi(items as i64);
    let mut best: Option<(Q, Vec<Q>)> = None;
    for with_root in [false, true] {
        if with_root && !pf.root_computes() {
            continue;
        }
        // The least horizon of the latency rows: every right-hand side 0 or more.
        let mut t = Q::zero();
        let mut sum_l = Q::zero();
        for j in 0..seq.len() {
            let w = pf.costs(seq[j], items);
            sum_l += &w.l;
            let m = qi(seq[j..].iter().filter(|&&v| v == seq[j]).count() as i64);
            t = t.max(&sum_l + &m * &w.lam);
            t = t.max(&w.r + qi(seq.iter().filter(|&&v| v == seq[j]).count() as i64) * &w.lam);
        }
        if with_root {
            let r = pf.costs(pf.root, items);
            t = t.max(&r.r + &r.lam);
            if pf.work == RootWork::AfterSend {
                t = t.max(&sum_l + &r.lam);
            }
        }
        let mut found = None;
        for _ in 0..200 {
            let (opt, moving) =
                lp_at(pf, seq, with_root, &t, items).expect("feasible from the least horizon on");
            if opt.value >= n {
                found = Some((t.clone(), opt.x));
                break;
            }
            let g: Q = opt.y.iter().take(moving).fold(Q::zero(), |s, y| s + y);
            if !g.is_positive() {
                break;
            }
            t = &t + (&n - &opt.value) / g;
        }
        if let Some((t, x)) = found {
            if best.as_ref().is_none_or(|(b, _)| t < *b) {
                best = Some((t, x));
            }
        }
    }
    best
}

/// Every sequence of the workers `others` with at most `most` chunks each.
fn sequences(others: &[usize], most: usize) -> Vec<Vec<usize>> {
    fn go(others: &[usize], left: &mut Vec<usize>, seq: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(seq.clone());
        for (i, &w) in others.iter().enumerate() {
            if left[i] > 0 {
                left[i] -= 1;
                seq.push(w);
                go(others, left, seq, out);
                seq.pop();
                left[i] += 1;
            }
        }
    }
    let mut out = Vec::new();
    go(others, &mut vec![most; others.len()], &mut Vec::new(), &mut out);
    out
}

/// The optimum over every sequence with at most `most` chunks per worker.
fn optimum(pf: &Pf, items: u64, most: usize) -> Q {
    sequences(&pf.others(), most)
        .iter()
        .filter(|s| !s.is_empty() || pf.root_computes())
        .filter_map(|s| seq_makespan(pf, s, items).map(|(t, _)| t))
        .min()
        .expect("some sequence holds the items")
}

fn to_f64(q: &Q) -> f64 {
    q.to_f64().unwrap()
}

/// Caps, when asked, are at least the even share of `items`, so one installment holds them.
fn random_pf(rng: &mut Lcg, others: usize, latencies: bool, caps: bool, release: bool) -> Pf {
    let items = 300;
    let p = others + 1;
    let work = [RootWork::None, RootWork::Overlap, RootWork::AfterSend][rng.below(3) as usize];
    // Costs on a grid of 2⁻¹⁶: exact in f64 with small numerators, which keeps the exact
    // simplex's rationals short (full 53-bit costs make it ten times slower).
    let grid = |x: f64| (x * 65536.0).round().max(1.0) / 65536.0;
    let workers: Vec<Worker<f64>> = (0..p)
        .map(|_| {
            let c = 0.001 * (1.0 + 9.0 * rng.unit());
            let mu = 0.002 * (1.0 + 9.0 * rng.unit());
            let (l, lam) = if latencies { (0.05 * rng.unit(), 0.05 * rng.unit()) } else { (0.0, 0.0) };
            let (l, lam) = if latencies { (grid(l), grid(lam)) } else { (0.0, 0.0) };
            Worker { comm_latency: l, comm_per_item: grid(c), comp_latency: lam, comp_per_item: grid(mu) }
        })
        .collect();
    let even = items / others as u64;
    let caps = if caps { (0..p).map(|_| even + rng.below(even)).collect() } else { Vec::new() };
    let release = if release {
        (0..p).map(|_| if rng.below(2) == 0 { 0.0 } else { grid(0.3 * rng.unit()) }).collect()
    } else {
        Vec::new()
    };
    Pf { workers, root: 0, work, caps, release }
}

/// The plan's chunks are a schedule of exactly `items` whole items that respects the caps
/// and release times, with the times the summary claims.
fn check_schedule(pf: &Pf, s: &Summary<f64>, chunks: &[Chunk<f64>], items: u64) {
    assert_eq!(chunks.iter().map(|c| c.count).sum::<u64>(), items, "{pf:?}");
    let mut port = 0.0f64;
    let mut ready = vec![0.0f64; pf.workers.len()];
    let mut makespan = 0.0f64;
    // Each worker's items are one block, blocks in the order of first chunks, chunks in
    // order within it.
    let mut next: Vec<Option<u64>> = vec![None; pf.workers.len()];
    let mut totals = vec![0u64; pf.workers.len()];
    for c in chunks {
        totals[c.worker] += c.count;
    }
    let mut block = 0;
    for c in chunks {
        assert!(c.count >= 1);
        let at = next[c.worker].unwrap_or_else(|| {
            block += totals[c.worker];
            block - totals[c.worker]
        });
        assert_eq!(c.displacement, at, "{chunks:?}");
        next[c.worker] = Some(at + c.count);
        if let Some(&cap) = pf.caps.get(c.worker) {
            assert!(c.count <= cap, "chunk of {} items over the cap {cap}", c.count);
        }
        let release = pf.release.get(c.worker).copied().unwrap_or(0.0);
        assert!(c.compute_start >= release);
        assert!(c.compute_start >= ready[c.worker]);
        if c.worker != pf.root {
            assert!(c.send_start >= port - 1e-12 && c.send_end >= c.send_start);
            assert!(c.compute_start >= c.send_end);
            port = c.send_end;
        }
        ready[c.worker] = c.compute_end;
        makespan = makespan.max(c.compute_end);
    }
    // A root that computes after sending starts once the last chunk has left.
    if pf.work == RootWork::AfterSend {
        let sent = chunks.iter().filter(|c| c.worker != pf.root).map(|c| c.send_end).fold(0.0, f64::max);
        for c in chunks.iter().filter(|c| c.worker == pf.root) {
            assert!(
                c.compute_start >= sent - 1e-12,
                "the root computes at {} before the last send {sent}",
                c.compute_start
            );
        }
    }
    assert!((makespan - s.makespan).abs() <= 1e-12 * makespan.max(1.0), "{makespan} vs {}", s.makespan);
    assert!(s.lower_bound <= s.makespan);
}

/// The plan's whole counts, simulated exactly, give its makespan; its sequence is no
/// better than the exact optimum over every sequence of as many installments, and its
/// lower bound is below that optimum.
#[test]
fn plans_against_every_sequence_in_exact_rationals() {
    let mut rng = Lcg(42);
    let mut compared = 0;
    for case in 0..24 {
        let others = 2 + usize::from(case % 6 == 0);
        let (latencies, caps, release) = (case % 3 != 0, case % 4 == 1, case % 5 >= 3);
        let pf = random_pf(&mut rng, others, latencies, caps, release);
        let items = 200;
        // Every sequence of three workers with two chunks each is 271 sequences, of two with
        // three each 69 (the empty one counted): the larger searches on a few platforms only.
        let most_of = if others == 2 {
            3
        } else if case == 0 {
            2
        } else {
            1
        };
        for most in 1..=most_of {
            let (s, chunks) = pf.run(items, None, Installments::AtMost(most as u32));
            check_schedule(&pf, &s, &chunks, items);
            let opt = optimum(&pf, items, most);
            let opt_f = to_f64(&opt);
            assert!(
                s.lower_bound <= opt_f * (1.0 + 1e-12),
                "bound {} above the optimum {opt_f}: {pf:?}",
                s.lower_bound
            );
            assert!(
                s.rational_makespan >= opt_f * (1.0 - 1e-9),
                "{} below the optimum {opt_f}",
                s.rational_makespan
            );
            // A few workers: every sequence searched, and the least of them is the bound.
            assert_eq!(s.method.name(), "installments_every_sequence");
            assert!(
                s.lower_bound >= opt_f * (1.0 - 2e-9),
                "bound {} not the optimum {opt_f} over every sequence: {pf:?}",
                s.lower_bound
            );
            // The integer plan, replayed in rationals from its own sequence.
            let seq: Vec<usize> = chunks.iter().filter(|c| c.worker != pf.root).map(|c| c.worker).collect();
            let x: Vec<Q> =
                chunks.iter().filter(|c| c.worker != pf.root).map(|c| qi(c.count as i64)).collect();
            let root = chunks.iter().find(|c| c.worker == pf.root).map_or(Q::zero(), |c| qi(c.count as i64));
            let exact = to_f64(&simulate(&pf, &seq, &x, &root, items));
            assert!((exact - s.makespan).abs() <= 1e-12 * exact, "{exact} vs {}", s.makespan);
            // Any sequence's plan is at least the optimum; the anytime bound of every
            // sequence with any number of installments is below this one too.
            let (auto, _) = pf.run(items, None, Installments::Auto);
            assert!(auto.lower_bound <= opt_f * (1.0 + 1e-12));
            compared += 1;
        }
    }
    assert_eq!(compared, 20 * 3 + 2 + 3);
}

/// A sequence's rational sizes from the LP are a schedule (simulated by the definition)
/// that finishes exactly at the LP's horizon: the rows say what the schedule does.
#[test]
fn each_sequence_lp_is_its_schedule() {
    let mut rng = Lcg(7);
    for _ in 0..10 {
        let (caps, release) = (rng.below(2) == 0, rng.below(2) == 0);
        let pf = random_pf(&mut rng, 3, true, caps, release);
        for seq in sequences(&pf.others(), 2).iter().filter(|s| s.len() >= 2).step_by(7) {
            let Some((t, x)) = seq_makespan(&pf, seq, 150) else { continue };
            let root = x[seq.len()].clone();
            let sim = simulate(&pf, seq, &x[..seq.len()], &root, 150);
            assert!(sim <= t, "the LP's sizes overrun its horizon: {sim} > {t} on {seq:?}");
        }
    }
}

/// Without latencies, release times or caps, one installment in bandwidth order is the
/// optimum (Thm 3): the planner's rational makespan is the exact optimum over every order
/// and subset.
#[test]
fn one_installment_without_latencies_is_the_exact_optimum() {
    let mut rng = Lcg(3);
    for _ in 0..20 {
        let pf = random_pf(&mut rng, 3, false, false, false);
        let (s, _) = pf.run(1000, None, Installments::AtMost(1));
        let opt = to_f64(&optimum(&pf, 1000, 1));
        // Every order searched: the bound is the optimum; the plan kept is the best whole
        // one, whose own rational sizes may be another order's.
        assert!((s.lower_bound - opt).abs() <= 2e-9 * opt, "{} vs {opt}: {pf:?}", s.lower_bound);
        assert!(s.rational_makespan >= opt * (1.0 - 1e-10), "{} vs {opt}: {pf:?}", s.rational_makespan);
    }
}

/// More installments pay off when sending dominates: a root that only distributes to
/// four alike workers, with small startup costs.
#[test]
fn installments_beat_one_round_when_sending_dominates() {
    let w = Worker { comm_latency: 1e-4, comm_per_item: 1e-3, comp_latency: 1e-4, comp_per_item: 3e-3 };
    let pf = Pf { workers: vec![w; 5], root: 0, work: RootWork::None, caps: Vec::new(), release: Vec::new() };
    let (one, _) = pf.run(10_000, None, Installments::AtMost(1));
    let (many, chunks) = pf.run(10_000, None, Installments::Auto);
    check_schedule(&pf, &many, &chunks, 10_000);
    assert!(many.rounds > 1);
    assert!(many.makespan < 0.8 * one.makespan, "{} vs {}", many.makespan, one.makespan);
    // The steady state: the port carries 10⁴ items at 1e-3 s each, and the workers compute
    // 2.5·10³ items each at 3e-3 s: the bound is max(10, 7.5) s, and many rounds get close.
    assert!(many.lower_bound >= 10.0 * (1.0 - 1e-9));
    assert!(many.makespan <= 1.1 * many.lower_bound, "{} vs {}", many.makespan, many.lower_bound);
}

/// Caps: a chunk never exceeds its worker's cap; one installment with caps below the items
/// is an error naming the caps' capacity; more installments take the items in rounds.
#[test]
fn caps_shape_the_rounds() {
    let w = Worker::linear(1e-3, 1e-2);
    let pf = Pf {
        workers: vec![w; 4],
        root: 0,
        work: RootWork::None,
        caps: vec![0, 100, 100, 100],
        release: Vec::new(),
    };
    let sizes = memory(4).unwrap();
    let mut chunks = vec![Chunk::EMPTY; sizes.chunks];
    let (mut tableau, mut reals, mut indices) =
        (vec![0.0; sizes.tableau], vec![0.0; sizes.reals], vec![0; sizes.indices]);
    let problem = Problem {
        workers: &pf.workers,
        root: 0,
        root_work: RootWork::None,
        items: 1000,
        deadline: None,
        max_items: &pf.caps,
        available_at: &[],
        installments: Installments::AtMost(1),
    };
    let mut m =
        Memory { chunks: &mut chunks, tableau: &mut tableau, reals: &mut reals, indices: &mut indices };
    let err = plan(&problem, &mut m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "max_items: the caps hold 300 items in at most 1 installments per worker, fewer than items = 1000; \
         raise max_items or allow more installments"
    );
    let (s, chunks) = pf.run(1000, None, Installments::AtMost(4));
    check_schedule(&pf, &s, &chunks, 1000);
    assert!(s.rounds >= 4);
}

/// Caps beyond the LP's chunks: over 41 workers (one round of the LP's 64 chunks) and over
/// 301 (beyond the LP), caps that hold the items only in several rounds plan them in rounds
/// of the fill, in `memory_for`'s memory: a schedule of exactly the items, every chunk
/// within its cap and after its release, the bound below, and no slower with a root that
/// may compute than with one that only sends; with too few rounds allowed, an error naming
/// them; and a deadline finishes more items in rounds than one round holds.
#[test]
fn caps_take_rounds_beyond_the_lp() {
    let mut rng = Lcg(37);
    for (p, need) in [(41usize, 3u64), (301, 5)] {
        let mut workers = vec![Worker::linear(0.0, 1e-2)];
        workers.extend((1..p).map(|_| Worker {
            comm_latency: 1e-4 * rng.unit(),
            comm_per_item: 1e-5 * (1.0 + rng.unit()),
            comp_latency: 1e-3 * rng.unit(),
            comp_per_item: 1e-2 * (1.0 + 2.0 * rng.unit()),
        }));
        let caps: Vec<u64> = (0..p).map(|_| 100 + rng.below(100)).collect();
        let release: Vec<f64> =
            (0..p).map(|_| if rng.below(4) == 0 { 0.5 * rng.unit() } else { 0.0 }).collect();
        let per_round: u64 = caps[1..].iter().sum();
        // More than `need − 1` rounds hold, the root's cap (below half a round) included.
        let items = per_round * need - per_round / 2;
        let mut distributing = f64::INFINITY;
        for work in [RootWork::None, RootWork::AfterSend] {
            let pf =
                Pf { workers: workers.clone(), root: 0, work, caps: caps.clone(), release: release.clone() };
            let sizes = memory_for(p, Installments::Auto).unwrap();
            let (s, chunks) = pf.run_in(sizes, items, None, Installments::Auto);
            check_schedule(&pf, &s, &chunks, items);
            // A root that may compute never makes the plan slower than one that only sends.
            assert!(s.makespan <= distributing, "{work:?}: {} against {distributing}", s.makespan);
            distributing = s.makespan;
            assert_eq!(s.method.name(), "filled_rounds", "p = {p}, {work:?}");
            assert!(s.rounds as u64 >= need && s.rounds as usize <= MAX_WIDE_ROUNDS, "{} rounds", s.rounds);
            assert!(s.participating >= p - 1, "{} workers", s.participating);
            eprintln!(
                "p = {p}, {work:?}: {} rounds, {} chunks, {:.4} s, bound {:.4} s",
                s.rounds, s.chunks, s.makespan, s.lower_bound
            );
            // Too few rounds allowed: the error names the caps' capacity in them.
            let two = Problem {
                workers: &pf.workers,
                root: 0,
                root_work: work,
                items,
                deadline: None,
                max_items: &pf.caps,
                available_at: &pf.release,
                installments: Installments::AtMost(2),
            };
            let root_cap = if work == RootWork::None { 0 } else { caps[0] };
            assert_eq!(
                plan_in(memory_for(p, Installments::AtMost(2)).unwrap(), &two).unwrap_err().to_string(),
                format!(
                    "max_items: the caps hold {} items in at most 2 installments per worker, fewer than items = \
                     {items}; raise max_items or allow more installments",
                    2 * per_round + root_cap
                )
            );
            // In `memory`'s sizes (one round beyond the LP) with any number allowed, the error
            // says the memory is what is short.
            let auto = Problem { installments: Installments::Auto, ..two };
            let err = plan_in(memory(p).unwrap(), &auto).unwrap_err().to_string();
            assert!(err.contains("exceed the planner's memory"), "{err}");
            // By the plan's own makespan, rounds finish more than one round's caps hold.
            let (d, dchunks) = pf.run_in(
                memory_for(p, Installments::Auto).unwrap(),
                items,
                Some(s.makespan),
                Installments::Auto,
            );
            check_schedule(&pf, &d, &dchunks, d.items);
            assert!(d.items > per_round + root_cap && d.items <= d.items_bound, "{} items", d.items);
            assert!(d.makespan <= s.makespan && d.rounds > 1);
        }
    }
}

/// A deadline over 7·10¹¹ items, where the LP's `f64` sizes are within whole items of the
/// deadline: the floors ended 0.12 s late; the chunks ending late now give up what does.
#[test]
fn deadlines_hold_over_many_items() {
    let w = |c: f64, mu: f64| Worker::linear(c, mu);
    let pf = Pf {
        workers: vec![w(4.81e-3, 7.64e-2), w(8.57e-5, 3.57e-3), w(8.52e-5, 8.48e-2)],
        root: 2,
        work: RootWork::None,
        caps: vec![u64::MAX, u64::MAX, 29],
        release: vec![0.455, 0.0, 0.603],
    };
    let deadline = 2_241_826_077.266_678;
    for sizes in [memory(3).unwrap(), memory_for(3, Installments::Auto).unwrap()] {
        let (d, chunks) = pf.run_in(sizes, 698_823_783_041, Some(deadline), Installments::Auto);
        check_schedule(&pf, &d, &chunks, d.items);
        assert!(d.makespan <= deadline && d.items > 0, "{} items by {} s", d.items, d.makespan);
    }
}

/// Caps on a few workers where the LP's rounds hold the items: the fill's rounds come after
/// the LP's search and never cut it short. One worker capped at one item needs 20 chunks,
/// which the LP sizes in 0.20 s; the fill's 16 rounds, tried first, once stopped the LP's
/// search at 4.0 s (and at 16 items by a deadline of 0.25 s instead of 20).
#[test]
fn caps_on_few_workers_keep_the_lp() {
    let workers = vec![Worker::linear(0.0, 1.0), Worker::linear(1e-3, 1e-2), Worker::linear(1e-3, 1.0)];
    let pf = Pf { workers, root: 0, work: RootWork::None, caps: vec![20, 1, 20], release: Vec::new() };
    let sizes = memory_for(3, Installments::Auto).unwrap();
    let (s, chunks) = pf.run_in(sizes, 20, None, Installments::Auto);
    check_schedule(&pf, &s, &chunks, 20);
    assert!(
        s.makespan <= 0.21 && s.method.name() == "installments_lp",
        "{} s by {}",
        s.makespan,
        s.method.name()
    );
    let (d, dchunks) = pf.run_in(sizes, 20, Some(0.25), Installments::Auto);
    check_schedule(&pf, &d, &dchunks, d.items);
    assert_eq!(d.items, 20);
}

/// Release times: nothing computes before its worker is available, and a late worker
/// gets less.
#[test]
fn release_times_hold() {
    let w = Worker::linear(1e-4, 1e-2);
    let pf = Pf {
        workers: vec![w; 3],
        root: 0,
        work: RootWork::Overlap,
        caps: Vec::new(),
        release: vec![0.0, 0.0, 5.0],
    };
    let (s, chunks) = pf.run(1000, None, Installments::AtMost(1));
    check_schedule(&pf, &s, &chunks, 1000);
    let late: u64 = chunks.iter().filter(|c| c.worker == 2).map(|c| c.count).sum();
    let early: u64 = chunks.iter().filter(|c| c.worker == 1).map(|c| c.count).sum();
    assert!(late < early, "{late} vs {early}");
}

/// The deadline question: the planned items finish in time, no plan of as many
/// installments finishes more (the bound, checked against every sequence's rational
/// optimum), and the answer is at least what the makespan plan implies.
#[test]
fn deadlines_against_every_sequence() {
    let mut rng = Lcg(11);
    for case in 0..16 {
        let pf = random_pf(&mut rng, 2 + usize::from(case % 4 == 0), true, case % 3 == 0, case % 2 == 0);
        let (full, _) = pf.run(300, None, Installments::AtMost(2));
        let deadline = full.makespan * 0.6;
        let (s, chunks) = pf.run(300, Some(deadline), Installments::AtMost(2));
        assert!(s.items <= s.items_bound && s.items_bound <= 300);
        if s.items > 0 {
            check_schedule(&pf, &s, &chunks, s.items);
            assert!(s.makespan <= deadline);
        }
        // The most items in time over every sequence, rationally: each sequence's LP at the
        // deadline (with and without the root's share).
        let t = qf(deadline);
        let mut most = Q::zero();
        for seq in sequences(&pf.others(), 2) {
            for with_root in [false, true] {
                if with_root && !pf.root_computes() {
                    continue;
                }
                if let Some((opt, _)) = lp_at(&pf, &seq, with_root, &t, 300) {
                    most = most.max(opt.value);
                }
            }
        }
        let lo = to_f64(&most).floor().min(300.0) as u64;
        // Whole items lose at most one per chunk against the rational optimum.
        assert!(s.items + 2 * pf.workers.len() as u64 + 2 >= lo, "{} far below {lo}", s.items);
    }
}

/// The bound holds for random plans: random sequences with random whole counts, simulated.
#[test]
fn the_bound_holds_on_random_plans() {
    let mut rng = Lcg(5);
    let mut plans = 0;
    for case in 0..20 {
        let pf = random_pf(&mut rng, 4, case % 2 == 0, false, case % 3 == 0);
        let items = 500;
        let (s, _) = pf.run(items, None, Installments::Auto);
        let others = pf.others();
        for _ in 0..5_000 {
            let k = 1 + rng.below(12) as usize;
            let seq: Vec<usize> = (0..k).map(|_| others[rng.below(others.len() as u64) as usize]).collect();
            let root_share = if pf.root_computes() { rng.below(items / 2) } else { 0 };
            let mut left = items - root_share;
            let mut x = vec![0u64; k];
            for v in x.iter_mut().take(k - 1) {
                *v = rng.below(left + 1);
                left -= *v;
            }
            x[k - 1] = left;
            // In f64 (the exact simulation of 10⁵ plans takes minutes): a makespan of at most
            // 13 chunks' additions, rounded by far less than the margin.
            let m = simulate_f64(&pf, &seq, &x, root_share);
            assert!(
                s.lower_bound <= m * (1.0 + 1e-12),
                "bound {} above a plan of {m}: {pf:?}",
                s.lower_bound
            );
            plans += 1;
        }
    }
    assert_eq!(plans, 100_000);
}

/// Bad input gets a clear error, never a panic.
#[test]
fn invalid_inputs_are_errors() {
    let w = Worker::linear(1e-3, 1e-2);
    let workers = [w; 3];
    let sizes = memory(3).unwrap();
    let mut chunks = vec![Chunk::EMPTY; sizes.chunks];
    let (mut tableau, mut reals, mut indices) =
        (vec![0.0; sizes.tableau], vec![0.0; sizes.reals], vec![0; sizes.indices]);
    let base = Problem {
        workers: &workers,
        root: 0,
        root_work: RootWork::AfterSend,
        items: 10,
        deadline: None,
        max_items: &[],
        available_at: &[],
        installments: Installments::Auto,
    };
    let mut run = |p: Problem<'_, f64>| {
        let mut m =
            Memory { chunks: &mut chunks, tableau: &mut tableau, reals: &mut reals, indices: &mut indices };
        plan(&p, &mut m).map(|_| ()).unwrap_err().to_string()
    };
    assert_eq!(run(Problem { items: 0, ..base }), "items: must be at least 1, got 0");
    assert_eq!(
        run(Problem { deadline: Some(f64::NAN), ..base }),
        "deadline: must be finite and > 0, got NaN"
    );
    assert_eq!(run(Problem { deadline: Some(-1.0), ..base }), "deadline: must be finite and > 0, got -1");
    assert_eq!(
        run(Problem { max_items: &[1, 2], ..base }),
        "max_items: must give one value per worker (3), got 2"
    );
    assert_eq!(
        run(Problem { available_at: &[0.0, f64::INFINITY, 0.0], ..base }),
        "workers[1].available_at: must be finite and >= 0, got inf"
    );
    assert!(
        run(Problem { installments: Installments::AtMost(0), ..base }).starts_with("installments: must be")
    );
    assert_eq!(
        run(Problem { root_work: RootWork::None, max_items: &[5, 0, 0], ..base }),
        "workers: no worker may compute (the root only distributes and every other max_items is 0)"
    );
    assert_eq!(run(Problem { root: 3, ..base }), "root: must be a worker index in 0..3, got 3");
}

fn doc_plan(doc: &str) -> Result<serde_json::Value, String> {
    divload_host::plan_json(doc.as_bytes())
        .map(|out| serde_json::from_slice(&out).expect("result JSON"))
        .map_err(|e| e.to_string())
}

const STAR: &str = r#"{"version": 1, "model": "scatter", "items": 10000, "root": "io", "root_mode": "distribute_only",
 "installments": "auto",
 "workers": [{"name": "io", "comm_per_item": 0, "comp_per_item": 1},
             {"name": "n", "count": 4, "comm_latency": 1e-4, "comm_per_item": 1e-3, "comp_latency": 1e-4,
              "comp_per_item": 3e-3, "max_items": 600, "available_at": 0.5}]}"#;

/// A document with installments plans through the registry (what the CLI, C, Python and
/// the page call): every chunk within its cap and after its worker's release, the totals
/// per worker in `plan` and the shares the C library hands out.
#[test]
fn documents_with_installments() {
    let v = doc_plan(STAR).unwrap();
    assert_eq!(v["method"], "installments_lp");
    assert_eq!(v["root_mode"], "distribute_only");
    assert_eq!(v["installments"], "auto");
    let chunks = v["chunks"].as_array().unwrap();
    assert_eq!(chunks.iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(), 10_000);
    assert!(chunks.iter().all(|c| c["count"].as_u64().unwrap() <= 600 && c["rank"] != 0));
    assert!(chunks.iter().all(|c| c["compute_start"].as_f64().unwrap() >= 0.5));
    let plan = v["plan"].as_array().unwrap();
    assert_eq!(plan.len(), 4);
    let (makespan, bound) = (v["makespan"].as_f64().unwrap(), v["lower_bound"].as_f64().unwrap());
    // The port carries 10⁴ items at 1e-3 s: 10 s at least; rounds get within 1 %.
    assert!(bound >= 10.0 && makespan <= bound * 1.01, "{makespan} vs {bound}");
    assert!((v["gap"].as_f64().unwrap() - (makespan - bound)).abs() < 1e-9);
    let (shares, report) = divload_host::plan_shares(STAR.as_bytes()).unwrap();
    assert_eq!(report.makespan, makespan);
    assert_eq!(shares[0].position, None);
    for row in plan {
        let s = shares[row["rank"].as_u64().unwrap() as usize];
        assert_eq!(
            (s.count, s.displacement),
            (row["count"].as_u64().unwrap(), row["displacement"].as_u64().unwrap())
        );
    }
    // One installment cannot hold the items within the caps.
    let one = STAR.replace(r#""installments": "auto""#, r#""installments": 1"#);
    assert_eq!(
        doc_plan(&one).unwrap_err(),
        "max_items: the caps hold 2400 items in at most 1 installments per worker, fewer than items = 10000; \
         raise max_items or allow more installments"
    );
    // The deadline question: what finishes by 5 s.
    let by5 = STAR.replace(r#""installments": "auto""#, r#""installments": "auto", "deadline": 5"#);
    let d = doc_plan(&by5).unwrap();
    let (items, most) = (d["items"].as_u64().unwrap(), d["items_bound"].as_u64().unwrap());
    assert!(items > 0 && items <= most && d["makespan"].as_f64().unwrap() <= 5.0, "{d}");
    assert_eq!(
        d["chunks"].as_array().unwrap().iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(),
        items
    );
}

/// What an installment document may not say, each refused naming the key.
#[test]
fn installment_documents_refuse_what_they_cannot_plan() {
    let refused = |from: &str, to: &str, needle: &str| {
        let doc = STAR.replace(from, to);
        assert_ne!(doc, STAR, "{from}");
        let e = doc_plan(&doc).unwrap_err();
        assert!(e.contains(needle), "{to}: {e}");
    };
    let inst = r#""installments": "auto""#;
    refused(inst, r#""installments": 0"#, "must be an integer in 1..=64 or \"auto\"");
    refused(inst, r#""installments": 65"#, "must be an integer in 1..=64");
    refused(inst, r#""installments": "many""#, "must be an integer in 1..=64");
    refused(inst, r#""installments": 2.5"#, "installments");
    refused(inst, r#""installments": 1, "deadline": -1"#, "deadline: must be finite and > 0, got -1");
    refused(inst, r#""installments": 1, "deadline": 0"#, "deadline: must be finite and > 0, got 0");
    refused(
        inst,
        r#""installments": 2, "solver": "exact""#,
        "solver: installment plans have their own solver",
    );
    refused(
        inst,
        r#""installments": 2, "order": "search""#,
        "order: installment plans go in bandwidth order",
    );
    refused(
        inst,
        r#""installments": 2, "rounding": "paper""#,
        "rounding: installment plans round item by item",
    );
    refused(r#""max_items": 600"#, r#""max_items": -1"#, "max_items");
    refused(r#""max_items": 600"#, r#""max_items": 1.5"#, "max_items");
    refused(
        r#""available_at": 0.5"#,
        r#""available_at": -0.5"#,
        "workers[1].available_at: must be finite and >= 0",
    );
    refused(r#""available_at": 0.5"#, r#""available_at": 1e400"#, "available_at");
    refused(r#""root_mode": "distribute_only""#, r#""root_mode": "io_only""#, "distribute_only");
    refused(
        r#""comp_latency": 1e-4,
              "comp_per_item": 3e-3"#,
        r#""comp_table": [[1, 0.003], [1000, 3]]"#,
        "workers: installment plans need affine costs",
    );
    // Caps that one installment cannot hold leave the baselines the even split alone.
    let b: serde_json::Value =
        serde_json::from_slice(&divload_host::baselines_json(STAR.as_bytes()).unwrap()).unwrap();
    assert!(b["even"]["makespan"].is_number() && b.get("one_round").is_none(), "{b}");
    // A document without any of the new keys still plans with the closed form.
    let plain =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scatter.json")).unwrap();
    assert_eq!(doc_plan(&plain).unwrap()["method"], "closed_form");
}

/// `divload simulate`'s timeline of an installment plan: the root sends every chunk in the
/// planned sequence to the rank's mailbox (one byte per item over a link of the rank's
/// latency and per-item time), each rank declares itself its mailbox's receiver, waits
/// for its release time and computes each chunk after taking it, and every actor ends when
/// the plan says. SimGrid plays it in `tests/simgrid/run`.
#[test]
fn installment_timeline_is_the_plan() {
    let plan = doc_plan(STAR).unwrap();
    let t: serde_json::Value =
        serde_json::from_slice(&divload_host::timeline_json(STAR.as_bytes()).unwrap().unwrap()).unwrap();
    let chunks = plan["chunks"].as_array().unwrap();
    let root = plan["root_rank"].as_u64().unwrap();
    let actors = t["actors"].as_array().unwrap();
    let root_actor = actors.iter().find(|a| a["id"] == 0).unwrap();
    let sends: Vec<(u64, f64)> = root_actor["do"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a.get("send").is_some())
        .map(|a| (a["send"].as_u64().unwrap(), a["bytes"].as_f64().unwrap()))
        .collect();
    let expected: Vec<(u64, f64)> = chunks
        .iter()
        .filter(|c| c["rank"].as_u64() != Some(root))
        .map(|c| (c["rank"].as_u64().unwrap(), c["count"].as_f64().unwrap()))
        .collect();
    assert_eq!(sends, expected, "the root sends every chunk in the planned sequence");
    for a in actors.iter().filter(|a| a["id"].as_u64().unwrap() >= 2) {
        let rank = a["host"].as_u64().unwrap();
        let mine: Vec<&serde_json::Value> =
            chunks.iter().filter(|c| c["rank"].as_u64() == Some(rank)).collect();
        let actions = a["do"].as_array().unwrap();
        assert_eq!(actions[0]["receiver"].as_u64(), Some(rank), "rank {rank} receives in advance");
        let computes: Vec<f64> = actions.iter().filter_map(|x| x["compute"].as_f64()).collect();
        assert_eq!(computes.len(), mine.len());
        for (c, d) in mine.iter().zip(&computes) {
            let want = c["compute_end"].as_f64().unwrap() - c["compute_start"].as_f64().unwrap();
            assert!((d - want).abs() <= 1e-12 * want.max(1.0));
        }
        assert_eq!(a["end"].as_f64(), mine.last().unwrap()["compute_end"].as_f64());
    }
    let links = t["links"].as_array().unwrap();
    assert_eq!(links.len(), actors.len() - 1, "one link per rank the root sends to");
}

/// A plan with installments is never worse than the best one-round plan (the order
/// search), whatever the number of installments asked.
#[test]
fn installments_never_lose_to_one_round() {
    let mut rng = Lcg(17);
    for case in 0..30 {
        let p = 3 + rng.below(5) as usize;
        let workers: Vec<String> = (0..p)
            .map(|i| {
                format!(
                    r#"{{"name": "w{i}", "comm_latency": {}, "comm_per_item": {}, "comp_latency": {}, "comp_per_item": {}}}"#,
                    if rng.below(2) == 0 { 0.0 } else { 0.5 * rng.unit() },
                    1e-3 * (1.0 + 9.0 * rng.unit()),
                    if rng.below(2) == 0 { 0.0 } else { 0.1 * rng.unit() },
                    1e-2 * (1.0 + 9.0 * rng.unit()),
                )
            })
            .collect();
        let mode = if case % 2 == 0 { "after_send" } else { "overlap" };
        let doc = |extra: &str| {
            format!(
                r#"{{"items": 1000, "root": "w0", "root_mode": "{mode}", {extra} "workers": [{}]}}"#,
                workers.join(", ")
            )
        };
        let one = doc_plan(&doc(r#""order": "search","#)).unwrap();
        let best_one = one["makespan"].as_f64().unwrap();
        for inst in ["1", "2", "\"auto\""] {
            let v = doc_plan(&doc(&format!(r#""installments": {inst},"#))).unwrap();
            let m = v["makespan"].as_f64().unwrap();
            assert!(m <= best_one, "installments {inst}: {m} > one round's {best_one}: {v}");
            assert!(v["lower_bound"].as_f64().unwrap() <= m);
            let chunks = v["chunks"].as_array().unwrap();
            assert_eq!(chunks.iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(), 1000);
        }
    }
}

/// One round over more workers than the LP takes (`wide.rs`): without latencies, the
/// bandwidth-order fill's horizon is the one-round LP's optimum for that order, caps and
/// release times included (the LP by `microlp`, with variable bounds for the caps).
#[test]
fn one_wide_round_is_the_lp_optimum_of_its_order() {
    use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp};
    let mut rng = Lcg(23);
    for case in 0..6 {
        let q = 70 + rng.below(30) as usize;
        let p = q + 1;
        let mut workers = vec![Worker::linear(0.0, 1e-2)];
        workers.extend(
            (0..q).map(|_| Worker::linear(1e-4 * (1.0 + 9.0 * rng.unit()), 1e-2 * (1.0 + 9.0 * rng.unit()))),
        );
        let items = 100_000u64;
        let caps: Vec<u64> = (0..p).map(|_| 800 + rng.below(4000)).collect();
        let release: Vec<f64> =
            (0..p).map(|_| if rng.below(3) == 0 { 5.0 * rng.unit() } else { 0.0 }).collect();
        let work = if case % 2 == 0 { RootWork::Overlap } else { RootWork::AfterSend };
        let pf = Pf { workers: workers.clone(), root: 0, work, caps: caps.clone(), release: release.clone() };
        let (s, chunks) = pf.run(items, None, Installments::AtMost(1));
        check_schedule(&pf, &s, &chunks, items);
        assert_eq!(s.rounds, 1);

        // The LP over the same order: the order the plan sent in, then every worker it left
        // out (with nothing, it pays nothing: no latencies here).
        let mut order: Vec<usize> = chunks.iter().filter(|c| c.worker != 0).map(|c| c.worker).collect();
        let mut rest: Vec<usize> = (1..p).filter(|w| !order.contains(w)).collect();
        rest.sort_by(|&a, &b| workers[a].comm_per_item.total_cmp(&workers[b].comm_per_item));
        order.extend(rest);
        let mut lp = Lp::new(OptimizationDirection::Minimize);
        let t = lp.add_var(1.0, (0.0, f64::INFINITY));
        let x: Vec<_> = order.iter().map(|&w| lp.add_var(0.0, (0.0, caps[w] as f64))).collect();
        let xr = lp.add_var(0.0, (0.0, caps[0] as f64));
        let mut all: Vec<_> = x.iter().map(|&v| (v, 1.0)).collect();
        all.push((xr, 1.0));
        lp.add_constraint(all, ComparisonOp::Eq, items as f64);
        for (i, &w) in order.iter().enumerate() {
            let mut row: Vec<_> = (0..=i).map(|j| (x[j], workers[order[j]].comm_per_item)).collect();
            row[i].1 += workers[w].comp_per_item;
            row.push((t, -1.0));
            lp.add_constraint(row, ComparisonOp::Le, 0.0);
            lp.add_constraint(
                vec![(x[i], workers[w].comp_per_item), (t, -1.0)],
                ComparisonOp::Le,
                -release[w],
            );
        }
        lp.add_constraint(vec![(xr, workers[0].comp_per_item), (t, -1.0)], ComparisonOp::Le, -release[0]);
        if work == RootWork::AfterSend {
            let mut row: Vec<_> =
                order.iter().enumerate().map(|(j, &w)| (x[j], workers[w].comm_per_item)).collect();
            row.push((xr, workers[0].comp_per_item));
            row.push((t, -1.0));
            lp.add_constraint(row, ComparisonOp::Le, 0.0);
        }
        let microlp::SolveOutcome::Solution(sol) = lp.solve().expect("LP solves") else {
            panic!("LP interrupted")
        };
        let rel = (s.rational_makespan - sol.objective()).abs() / sol.objective();
        assert!(rel < 1e-7, "fill {} LP {} ({work:?})", s.rational_makespan, sol.objective());
        // Prefix rounding moves every arrival by less than one item's transfer and every
        // count by less than one item.
        let slack = workers.iter().map(|w| w.comm_per_item + w.comp_per_item).fold(0.0, f64::max);
        assert!(s.makespan <= s.rational_makespan + 2.0 * slack, "{} vs {}", s.makespan, s.rational_makespan);
    }
}

/// A hundred thousand workers with caps, release times and startup costs plan in one
/// round: exact sums, caps and release times held, the bound below.
#[test]
fn a_hundred_thousand_workers_with_caps_and_release_times() {
    let mut rng = Lcg(29);
    let p = 100_001;
    let mut workers = vec![Worker::linear(0.0, 1e-2)];
    workers.extend((1..p).map(|_| Worker {
        comm_latency: 1e-6 * rng.unit(),
        comm_per_item: 1e-7 * (1.0 + 9.0 * rng.unit()),
        comp_latency: 1e-5 * rng.unit(),
        comp_per_item: 1e-3 * (1.0 + 9.0 * rng.unit()),
    }));
    let caps: Vec<u64> = (0..p).map(|_| 50 + rng.below(200)).collect();
    let release: Vec<f64> = (0..p).map(|_| if rng.below(4) == 0 { 0.05 * rng.unit() } else { 0.0 }).collect();
    let pf = Pf { workers, root: 0, work: RootWork::AfterSend, caps, release };
    let items = 10_000_000;
    let (s, chunks) = pf.run(items, None, Installments::Auto);
    check_schedule(&pf, &s, &chunks, items);
    assert!(s.rounds == 1 && s.participating > 1000);
    let (d, dchunks) = pf.run(items, Some(s.makespan * 0.8), Installments::Auto);
    assert!(d.items < items && d.items <= d.items_bound && d.makespan <= s.makespan * 0.8);
    check_schedule(&pf, &d, &dchunks, d.items);
}

/// A deadline whose rational plan gives a slow-starting worker half an item: the floor
/// empties that chunk, and the latency it no longer pays holds a billion items on the
/// next worker. Adding them one at a time took minutes; each chunk now takes its most at
/// once.
#[test]
fn a_floor_that_frees_a_latency_is_filled_at_once() {
    let doc = r#"{"version": 1, "items": 1000000000000, "root": "io", "root_mode": "distribute_only", "deadline": 1000.5,
     "workers": [{"name": "io", "comm_per_item": 0, "comp_per_item": 1},
                 {"name": "a", "comm_latency": 1000, "comm_per_item": 1e-9, "comp_per_item": 1},
                 {"name": "b", "comm_per_item": 1e-8, "comp_per_item": 1e-6}]}"#;
    let v = doc_plan(doc).unwrap();
    let items = v["items"].as_u64().unwrap();
    // b alone: 1000.5 s at 1.01e-6 s an item.
    assert!(items >= 990_000_000 && items <= v["items_bound"].as_u64().unwrap(), "{v}");
    assert!(v["makespan"].as_f64().unwrap() <= 1000.5);
}

/// Beyond the LP's 64 chunks, several rounds (UMR) where sending matters: over 300 workers
/// whose sending is about a fifth of their computing, in memory from `memory_for`, the plan
/// has several rounds, is a schedule of exactly the items (each worker's chunks one block),
/// beats the one round that `memory`'s sizes plan, and keeps the bound below it; for each
/// root role, and with `installments` capping the rounds.
#[test]
fn several_rounds_over_many_workers() {
    let p = 301;
    let workers = sending_fifth(31, p);
    let items = 3_000_000;
    for work in [RootWork::None, RootWork::Overlap, RootWork::AfterSend] {
        let pf = Pf { workers: workers.clone(), root: 0, work, caps: Vec::new(), release: Vec::new() };
        let (one, _) = pf.run(items, None, Installments::Auto);
        assert_eq!(one.rounds, 1, "{work:?}: memory for one round");
        let (s, chunks) =
            pf.run_in(memory_for(p, Installments::Auto).unwrap(), items, None, Installments::Auto);
        check_schedule(&pf, &s, &chunks, items);
        assert!(s.rounds > 1 && s.rounds as usize <= MAX_WIDE_ROUNDS, "{work:?}: {} rounds", s.rounds);
        assert_eq!(s.method.name(), "uniform_multi_round");
        assert!(
            s.makespan < one.makespan,
            "{work:?}: {} rounds {} against one round {}",
            s.rounds,
            s.makespan,
            one.makespan
        );
        assert!(s.participating > 100, "{work:?}: {} workers", s.participating);
        eprintln!(
            "{work:?}: {} rounds, {} chunks, {:.4} s against one round {:.4} s, bound {:.4}",
            s.rounds, s.chunks, s.makespan, one.makespan, s.lower_bound
        );
        let (two, chunks) =
            pf.run_in(memory_for(p, Installments::AtMost(2)).unwrap(), items, None, Installments::AtMost(2));
        check_schedule(&pf, &two, &chunks, items);
        assert!(two.rounds <= 2 && two.makespan <= one.makespan);
    }
}

/// `p` workers (the root first, computing at 10⁻² s/item) whose sending is about a fifth of
/// their computing, with small latencies, drawn from `seed`.
fn sending_fifth(seed: u64, p: usize) -> Vec<Worker<f64>> {
    let mut rng = Lcg(seed);
    let mut workers = vec![Worker::linear(0.0, 1e-2)];
    workers.extend((1..p).map(|_| Worker {
        comm_latency: 1e-4 * rng.unit(),
        comm_per_item: 1e-5 * (1.0 + rng.unit()),
        comp_latency: 1e-3 * rng.unit(),
        comp_per_item: 1e-2 * (1.0 + 2.0 * rng.unit()),
    }));
    workers
}

/// A deadline over more workers than the LP takes, without caps: UMR's rounds finish more
/// whole items by it than one round (bisection on the items), every chunk by the deadline,
/// never more than the bound on any plan; with one installment asked, one round as before.
#[test]
fn deadlines_take_rounds_over_many_workers() {
    let p = 201;
    let workers = sending_fifth(47, p);
    let items = 10_000_000;
    for work in [RootWork::None, RootWork::Overlap, RootWork::AfterSend] {
        let pf = Pf { workers: workers.clone(), root: 0, work, caps: Vec::new(), release: Vec::new() };
        // A deadline a little short of one round's makespan for a million items.
        let (full, _) = pf.run(1_000_000, None, Installments::AtMost(1));
        let deadline = 0.8 * full.makespan;
        let (one, chunks) = pf.run_in(
            memory_for(p, Installments::AtMost(1)).unwrap(),
            items,
            Some(deadline),
            Installments::AtMost(1),
        );
        check_schedule(&pf, &one, &chunks, one.items);
        assert!(one.rounds == 1 && one.makespan <= deadline && one.items > 0);
        let (s, chunks) =
            pf.run_in(memory_for(p, Installments::Auto).unwrap(), items, Some(deadline), Installments::Auto);
        check_schedule(&pf, &s, &chunks, s.items);
        assert!(s.makespan <= deadline, "{work:?}: {} s past the deadline {deadline}", s.makespan);
        assert!(
            s.items <= s.items_bound && s.items_bound < items,
            "{work:?}: {} of {}",
            s.items,
            s.items_bound
        );
        assert_eq!(s.method.name(), "uniform_multi_round", "{work:?}");
        assert!(s.rounds > 1, "{work:?}");
        assert!(
            s.items > one.items,
            "{work:?}: {} items in {} rounds against {} in one",
            s.items,
            s.rounds,
            one.items
        );
        // The most: one item more in the same rounds' plan ends past the deadline.
        let (next, _) =
            pf.run_in(memory_for(p, Installments::Auto).unwrap(), s.items + 1, None, Installments::Auto);
        assert!(next.makespan > deadline || next.method.name() != "uniform_multi_round", "{work:?}");
        eprintln!(
            "{work:?}: {} items by {deadline:.4} s in {} rounds, one round {}, bound {}",
            s.items, s.rounds, one.items, s.items_bound
        );
    }
}

/// Through the document, more workers than the LP takes plan several rounds (UMR) where
/// nothing stops them (no caps, no deadline), and one round where caps do; the chunks add up
/// and the shares the C library hands out are each rank's totals.
#[test]
fn documents_plan_several_rounds_over_many_workers() {
    let doc = |extra: &str| {
        format!(
            r#"{{"version": 1, "model": "scatter", "items": 1000000, "root": "io", "installments": "auto"{extra},
 "workers": [{{"name": "io", "comm_per_item": 0, "comp_per_item": 1e-2}},
             {{"name": "n", "count": 200, "comm_latency": 1e-4, "comm_per_item": 2e-5, "comp_latency": 1e-3,
              "comp_per_item": 1e-2}}]}}"#
        )
    };
    let v = doc_plan(&doc("")).unwrap();
    assert_eq!(v["method"], "uniform_multi_round", "{v}");
    assert!(v["rounds"].as_u64().unwrap() > 1);
    let chunks = v["chunks"].as_array().unwrap();
    assert_eq!(chunks.iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(), 1_000_000);
    assert!(v["lower_bound"].as_f64().unwrap() <= v["makespan"].as_f64().unwrap());
    let (shares, _) = divload_host::plan_shares(doc("").as_bytes()).unwrap();
    assert_eq!(shares.iter().map(|s| s.count).sum::<u64>(), 1_000_000);
    for row in v["plan"].as_array().unwrap() {
        let s = shares[row["rank"].as_u64().unwrap() as usize];
        assert_eq!(s.count, row["count"].as_u64().unwrap());
    }
    let capped =
        doc("").replace(r#""comp_per_item": 1e-2}]"#, r#""comp_per_item": 1e-2, "max_items": 100000}]"#);
    let c = doc_plan(&capped).unwrap();
    assert_eq!((c["method"].as_str(), c["rounds"].as_u64()), (Some("installments_lp"), Some(1)), "{c}");
    // Caps that hold the items in three rounds at least: rounds of the fill, each worker's
    // chunk within its cap (the root's share is not capped).
    let tight =
        doc("").replace(r#""comp_per_item": 1e-2}]"#, r#""comp_per_item": 1e-2, "max_items": 2000}]"#);
    let t = doc_plan(&tight).unwrap();
    assert_eq!(t["method"], "filled_rounds", "{t}");
    assert!(t["rounds"].as_u64().unwrap() >= 3);
    let chunks = t["chunks"].as_array().unwrap();
    assert_eq!(chunks.iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(), 1_000_000);
    assert!(chunks.iter().filter(|c| c["rank"] != 0).all(|c| c["count"].as_u64().unwrap() <= 2000));
    let one =
        tight.replace(r#""installments": "auto""#, r#""installments": 1, "root_mode": "distribute_only""#);
    assert!(doc_plan(&one).unwrap_err().contains("the caps hold 400000 items in at most 1 installments"));
    // A deadline of 90 % of the plan's makespan: UMR's rounds finish more items by it than
    // one installment does, none late.
    let deadline = 0.9 * v["makespan"].as_f64().unwrap();
    let by = doc_plan(&doc(&format!(r#", "deadline": {deadline}"#))).unwrap();
    let single = doc_plan(&doc(&format!(r#", "deadline": {deadline}"#)).replace(r#""auto""#, "1")).unwrap();
    assert_eq!(by["method"], "uniform_multi_round", "{by}");
    let items = |v: &serde_json::Value| v["items"].as_u64().unwrap();
    assert!(
        items(&by) > items(&single) && items(&by) < 1_000_000,
        "{} against {}",
        items(&by),
        items(&single)
    );
    assert!(by["makespan"].as_f64().unwrap() <= deadline);
    let chunks = by["chunks"].as_array().unwrap();
    assert_eq!(chunks.iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(), items(&by));
}

/// The baselines the page sets beside an installment plan: the even split in one
/// installment and the planner's best single installment, each a schedule of the same items
/// (rows by chunk, finishing by their makespan, computing from the release time) no faster
/// than the plan; with a deadline, the single installment's answer alone.
#[test]
fn installment_documents_have_baselines() {
    let doc = STAR.replace(r#""max_items": 600"#, r#""max_items": 3000"#);
    let plan = doc_plan(&doc).unwrap();
    let b: serde_json::Value =
        serde_json::from_slice(&divload_host::baselines_json(doc.as_bytes()).unwrap()).unwrap();
    let makespan = plan["makespan"].as_f64().unwrap();
    for key in ["even", "one_round"] {
        let rows = b[key]["rows"].as_array().unwrap_or_else(|| panic!("{key}: {b}"));
        assert_eq!(rows.iter().map(|r| r["count"].as_u64().unwrap()).sum::<u64>(), 10_000, "{key}");
        let latest = rows.iter().map(|r| r["finish"].as_f64().unwrap()).fold(0.0, f64::max);
        assert_eq!(b[key]["makespan"].as_f64().unwrap(), latest, "{key}");
        assert!(latest >= makespan, "{key}: {latest} beats the plan's {makespan}");
        assert!(rows.iter().all(|r| r["start"].as_f64() <= r["received"].as_f64()
            && r["received"].as_f64() <= r["compute_start"].as_f64()
            && r["compute_start"].as_f64() <= r["finish"].as_f64()));
        // The workers are released at 0.5 s: a chunk computes from its arrival or then,
        // whichever is later, and the page draws a wait before it as a wait.
        for r in rows.iter().filter(|r| r["rank"] != 0) {
            let (received, computing) =
                (r["received"].as_f64().unwrap(), r["compute_start"].as_f64().unwrap());
            assert!((computing - received.max(0.5)).abs() <= 1e-12, "{key}: {r}");
        }
    }
    // The plan's rows too: each worker's computing starts at its release at the earliest.
    for r in plan["plan"].as_array().unwrap().iter().filter(|r| r["rank"] != 0) {
        assert!(r["compute_start"].as_f64().unwrap() >= 0.5_f64.max(r["received"].as_f64().unwrap()), "{r}");
    }
    // One installment is what the plan of at most one is.
    let one = doc_plan(&doc.replace(r#""installments": "auto""#, r#""installments": 1"#)).unwrap();
    assert_eq!(b["one_round"]["makespan"].as_f64(), one["makespan"].as_f64());
    assert_eq!(b["even"]["makespan"].as_f64(), one["uniform_makespan"].as_f64());
    let by5 = STAR.replace(r#""installments": "auto""#, r#""installments": "auto", "deadline": 5"#);
    let d: serde_json::Value =
        serde_json::from_slice(&divload_host::baselines_json(by5.as_bytes()).unwrap()).unwrap();
    assert!(d.get("even").is_none() && d["one_round"]["makespan"].as_f64().unwrap() <= 5.0, "{d}");
}

/// UMR never loses to one round, whatever the latencies: on random platforms of 70–150
/// workers, with startup costs from none to far above an item's cost (sizes then come out
/// below zero in the first rounds, or in all of them), release times, few items or many,
/// and each root role, the plan in `memory_for`'s memory is a schedule of exactly the items
/// and no slower than the one round `memory`'s sizes plan.
#[test]
fn several_rounds_never_lose_to_one_round() {
    let mut rounds_won = 0;
    for (case, pf, items) in wide_cases(57) {
        let p = pf.workers.len();
        let (one, _) = pf.run(items, None, Installments::Auto);
        let (s, chunks) =
            pf.run_in(memory_for(p, Installments::Auto).unwrap(), items, None, Installments::Auto);
        check_schedule(&pf, &s, &chunks, items);
        assert!(s.makespan <= one.makespan, "case {case}: {} against one round {}", s.makespan, one.makespan);
        rounds_won += usize::from(s.method.name() == "uniform_multi_round" && s.makespan < one.makespan);
    }
    // Where there are items enough and the port matters, rounds win (8 of 24 here).
    assert!(rounds_won >= 6, "UMR won {rounds_won} of 24");
}

/// The 24 random platforms of `wide_pf` drawn from `seed`, with their case numbers.
fn wide_cases(seed: u64) -> impl Iterator<Item = (usize, Pf, u64)> {
    let mut rng = Lcg(seed);
    (0..24).map(move |case| {
        let (pf, items) = wide_pf(&mut rng, case);
        (case, pf, items)
    })
}

/// Case `case` of the random platforms over 71–150 workers: latencies of four scales,
/// each root role, release times on every fifth, and 37, 5 000 or 3·10⁶ items.
fn wide_pf(rng: &mut Lcg, case: usize) -> (Pf, u64) {
    let p = 71 + rng.below(80) as usize;
    let lat = [0.0, 1e-3, 1.0, 100.0][case % 4];
    let mut workers = vec![Worker::linear(0.0, 1e-2 * (1.0 + rng.unit()))];
    workers.extend((1..p).map(|_| Worker {
        comm_latency: lat * rng.unit(),
        comm_per_item: 1e-5 * (1.0 + 9.0 * rng.unit()),
        comp_latency: lat * 10.0 * rng.unit(),
        comp_per_item: 1e-2 * (1.0 + 2.0 * rng.unit()),
    }));
    let work = [RootWork::None, RootWork::Overlap, RootWork::AfterSend][case % 3];
    let release = if case.is_multiple_of(5) {
        (0..p).map(|_| if rng.below(3) == 0 { rng.unit() } else { 0.0 }).collect()
    } else {
        vec![]
    };
    (Pf { workers, root: 0, work, caps: Vec::new(), release }, [37u64, 5_000, 3_000_000][(case / 3) % 3])
}

/// Deadlines over the same random platforms, at a half, 0.9 and all of one installment's
/// makespan for the items: several rounds finish at least as many whole items as one
/// installment, every chunk by the deadline, never more than the bound on any plan.
#[test]
fn deadlines_in_rounds_never_lose_to_one_round() {
    let mut more = 0;
    for (case, pf, items) in wide_cases(58) {
        let p = pf.workers.len();
        let (full, _) = pf.run(items, None, Installments::AtMost(1));
        for f in [0.5, 0.9, 1.0] {
            let deadline = f * full.makespan;
            let plan = |i: Installments| pf.run_in(memory_for(p, i).unwrap(), items, Some(deadline), i);
            let (one, chunks) = plan(Installments::AtMost(1));
            check_schedule(&pf, &one, &chunks, one.items);
            let (s, chunks) = plan(Installments::Auto);
            check_schedule(&pf, &s, &chunks, s.items);
            let at = format!("case {case}, deadline {f} of one round");
            assert!(s.makespan <= deadline, "{at}: ends at {} past {deadline}", s.makespan);
            assert!(s.items >= one.items, "{at}: {} items against one round's {}", s.items, one.items);
            assert!(s.items <= s.items_bound && s.items <= items, "{at}: {} of {}", s.items, s.items_bound);
            more += usize::from(s.items > one.items);
        }
    }
    // Where the port matters and items are many, rounds finish more (13 of 72 here).
    eprintln!("rounds finished more items than one installment in {more} of 72");
    assert!(more >= 10, "rounds finished more in {more} of 72");
}

/// The root alone can beat every sequence of workers: a worker's chunk pays a startup cost
/// of 60 s that the LP of its sequence keeps paying, so 50 items to it end at 135 s, while
/// the root computes all 100 by 100 s. The planner sizes the root alone too, and the bound
/// of every sequence counts it (it claimed 135 s before; found in review).
#[test]
fn the_root_alone_is_a_plan_too() {
    let pf = Pf {
        workers: vec![
            Worker::linear(0.0, 1.0),
            Worker { comm_latency: 60.0, comm_per_item: 0.5, comp_latency: 0.0, comp_per_item: 1.0 },
        ],
        root: 0,
        work: RootWork::AfterSend,
        caps: Vec::new(),
        release: vec![0.0, 1.0],
    };
    for installments in [Installments::AtMost(1), Installments::AtMost(2), Installments::Auto] {
        let (s, chunks) = pf.run(100, None, installments);
        check_schedule(&pf, &s, &chunks, 100);
        assert_eq!(s.makespan, 100.0, "{installments:?}");
        assert!(s.lower_bound <= 100.0, "{installments:?}: bound {}", s.lower_bound);
        let opt = to_f64(&optimum(&pf, 100, 2));
        assert!(s.lower_bound <= opt * (1.0 + 1e-12), "{installments:?}: bound {} over {opt}", s.lower_bound);
    }
}
