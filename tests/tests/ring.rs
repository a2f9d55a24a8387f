//! The ring model (legrand2003, `core/src/ring`) against brute force and the derivation's
//! cases (`docs/derivations/ring.md`, `ring_cases.json`, computed in exact rationals by
//! `ring_ref.py`): the exhaustive solver is the integer optimum over every ring and every
//! count vector, the greedy never beats it, the lower bound never exceeds it, counts are
//! at least one per member and add up to the columns, and eq. (3)'s negative-α case is
//! valued at its communication time, not eq. (4).

use divload::ring::{self, Buffers, Member, Paths, Problem, Sharing, Solver};

struct Planned {
    summary: ring::Summary,
    members: Vec<Member>,
}

fn plan(problem: &Problem<'_>) -> Result<Planned, divload::Error> {
    let p = problem.cycle_times.len();
    let needs = ring::needs(p, problem.solver, problem.network.as_ref())?;
    let g = needs.graph;
    let (mut links, mut len, mut share) =
        (vec![0usize; g.paths * g.path_len], vec![0usize; g.paths], vec![0.0; g.paths]);
    let (mut us, mut fs) = (vec![0usize; g.usizes], vec![0.0; g.f64s]);
    let mut members = vec![Member::EMPTY; needs.processors];
    let mut by_size = vec![0.0; needs.processors];
    let mut order = vec![0usize; needs.order];
    let mut comm = vec![0.0; needs.comm];
    let summary = ring::plan(
        problem,
        Buffers {
            members: &mut members,
            by_size: &mut by_size,
            order: &mut order,
            comm: &mut comm,
            paths: Paths { links: &mut links, len: &mut len, share: &mut share, path_len: g.path_len },
            scratch_usize: &mut us,
            scratch_f64: &mut fs,
        },
    )?;
    members.truncate(summary.ring_size);
    Ok(Planned { summary, members })
}

/// `d_i` of position `k` by eq. (1)'s definition.
fn comm(w: &[f64], c: &[f64], h: f64, ring: &[usize], k: usize) -> f64 {
    let (q, p) = (ring.len(), w.len());
    if q < 2 {
        return 0.0;
    }
    let i = ring[k];
    h * (c[i * p + ring[(k + 1) % q]] + c[i * p + ring[(k + q - 1) % q]])
}

/// The integer optimum by brute force: every subset, every order, every count vector
/// with at least one column each.
fn brute(w: &[f64], c: &[f64], h: f64, work: u64) -> f64 {
    let p = w.len();
    let mut best = f64::INFINITY;
    let mut perm: Vec<usize> = Vec::new();
    fn orders(rest: &mut Vec<usize>, ring: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
        if rest.is_empty() {
            f(ring);
            return;
        }
        for i in 0..rest.len() {
            let x = rest.remove(i);
            ring.push(x);
            orders(rest, ring, f);
            ring.pop();
            rest.insert(i, x);
        }
    }
    fn compositions(total: u64, parts: usize, cur: &mut Vec<u64>, f: &mut dyn FnMut(&[u64])) {
        if parts == 1 {
            cur.push(total);
            f(cur);
            cur.pop();
            return;
        }
        for x in 1..=total - (parts as u64 - 1) {
            cur.push(x);
            compositions(total - x, parts - 1, cur, f);
            cur.pop();
        }
    }
    for mask in 1u32..(1 << p) {
        let mut members: Vec<usize> = (0..p).filter(|i| mask & (1 << i) != 0).collect();
        if members.len() as u64 > work {
            continue;
        }
        orders(&mut members, &mut perm, &mut |ring| {
            let q = ring.len();
            compositions(work, q, &mut Vec::new(), &mut |n| {
                let t = (0..q).map(|k| n[k] as f64 * w[ring[k]] + comm(w, c, h, ring, k)).fold(0.0, f64::max);
                best = best.min(t);
            });
        });
    }
    best
}

fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn random_clique(rnd: &mut impl FnMut() -> u64, p: usize) -> (Vec<f64>, Vec<f64>, f64) {
    let w: Vec<f64> = (0..p).map(|_| 1.0 + (rnd() % 8) as f64).collect();
    let c: Vec<f64> =
        (0..p * p).map(|k| if k / p == k % p { 0.0 } else { 0.25 * (1 + rnd() % 12) as f64 }).collect();
    let h = (rnd() % 4) as f64;
    (w, c, h)
}

#[test]
fn the_exhaustive_solver_is_the_brute_force_optimum() {
    let mut rnd = xorshift(7);
    let (mut greedy_optimal, mut worst_ratio, mut runs) = (0, 1.0f64, 0);
    for _ in 0..150 {
        let p = 1 + (rnd() % 5) as usize;
        let (w, c, h) = random_clique(&mut rnd, p);
        let work = 1 + rnd() % 10;
        let base = Problem {
            cycle_times: &w,
            costs: &c,
            work,
            boundary: h,
            solver: Solver::Exhaustive,
            local_search: false,
            network: None,
            sharing: Sharing::Greedy,
        };
        let exact = plan(&base).unwrap();
        let opt = brute(&w, &c, h, work);
        let s = exact.summary;
        assert!(
            (s.report.makespan - opt).abs() <= 1e-9 * opt.max(1.0),
            "p {p}: {} vs brute {opt}",
            s.report.makespan
        );
        assert!(s.report.exact && s.report.lower_bound == s.report.makespan);
        assert_eq!(exact.members.iter().map(|m| m.count).sum::<u64>(), work);
        assert!(exact.members.iter().all(|m| m.count >= 1));
        let greedy = plan(&Problem { solver: Solver::Greedy, ..base }).unwrap().summary;
        assert!(
            greedy.report.makespan >= opt - 1e-9 * opt,
            "greedy {} below the optimum {opt}",
            greedy.report.makespan
        );
        assert!(
            greedy.report.lower_bound <= opt,
            "bound {} above the optimum {opt}",
            greedy.report.lower_bound
        );
        assert!(greedy.rational_makespan <= greedy.report.makespan + 1e-9);
        runs += 1;
        greedy_optimal += usize::from(greedy.report.makespan <= opt * (1.0 + 1e-12));
        worst_ratio = worst_ratio.max(greedy.report.makespan / opt);
    }
    // Measured (printed with --nocapture): how often the greedy is optimal here.
    println!(
        "greedy optimal in {greedy_optimal} of {runs} random cliques (p <= 5), worst ratio {worst_ratio:.4}"
    );
    assert!(greedy_optimal * 2 > runs, "the greedy should be optimal on most small cliques");
}

/// A number of the cases file: an integer, a decimal or an exact fraction `a/b`.
fn number(v: &serde_json::Value) -> f64 {
    match v {
        serde_json::Value::Number(n) => n.as_f64().unwrap(),
        serde_json::Value::String(s) => match s.split_once('/') {
            Some((a, b)) => a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap(),
            None => s.parse().unwrap(),
        },
        other => panic!("not a number: {other}"),
    }
}

/// A clique document of the cases file: cycle times, the cost matrix (row-major),
/// boundary, work.
fn clique(doc: &serde_json::Value) -> (Vec<f64>, Vec<f64>, f64, u64) {
    let w = doc["processors"].as_array().unwrap().iter().map(|x| number(&x["cycle_time"])).collect();
    let rows = doc["cost_matrix"].as_array().unwrap();
    let c = rows.iter().flat_map(|r| r.as_array().unwrap().iter().map(number)).collect();
    (w, c, number(&doc["boundary"]), doc["work"].as_u64().unwrap())
}

#[test]
fn the_derivations_cases() {
    let cases: serde_json::Value =
        serde_json::from_str(include_str!("../../docs/derivations/ring_cases.json")).unwrap();
    let mut checked = 0;
    for case in cases["cases"].as_array().unwrap() {
        let doc = &case["document"];
        // Cases on shared links (routers and links) are for the next step of the model.
        if !doc.is_object() || doc.get("cost_matrix").is_none() {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let (w, c, h, work) = clique(doc);
        let base = Problem {
            cycle_times: &w,
            costs: &c,
            work,
            boundary: h,
            solver: Solver::Exhaustive,
            local_search: false,
            network: None,
            sharing: Sharing::Greedy,
        };
        let exact = plan(&base).unwrap();
        let want = number(&case["exact"]["makespan"]);
        assert!(
            (exact.summary.report.makespan - want).abs() <= 1e-9 * want,
            "{name}: {} vs {want}",
            exact.summary.report.makespan
        );
        if work <= 12 {
            assert!(
                (brute(&w, &c, h, work) - want).abs() <= 1e-9 * want,
                "{name}: brute force disagrees with the case"
            );
        }
        let greedy = plan(&Problem { solver: Solver::Greedy, ..base }).unwrap().summary;
        assert!(
            greedy.report.lower_bound <= want * (1.0 + 1e-12),
            "{name}: bound {}",
            greedy.report.lower_bound
        );
        assert!(greedy.report.makespan >= want * (1.0 - 1e-12), "{name}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} clique cases");
}

/// Eq. (3) gives a negative α when a member's communication alone exceeds eq. (4)'s
/// T_step: the ring {0, 1, 2} of the `negative_alpha` case is worth 11, not eq. (4)'s
/// 83/9, and a member never gets fewer than one column.
#[test]
fn a_negative_alpha_ring_is_valued_at_its_communication() {
    let cases: serde_json::Value =
        serde_json::from_str(include_str!("../../docs/derivations/ring_cases.json")).unwrap();
    let case = cases["cases"].as_array().unwrap().iter().find(|c| c["name"] == "negative_alpha").unwrap();
    let doc = &case["document"];
    let (w, c, h, work) = clique(doc);
    // All three on the ring: the greedy's full ring at q = 3.
    let p = w.len();
    let ring = [0usize, 1, 2];
    let d: Vec<f64> = (0..3).map(|k| comm(&w, &c, h, &ring, k)).collect();
    let t4 = (work as f64 + (0..3).map(|k| d[k] / w[ring[k]]).sum::<f64>())
        / (0..3).map(|k| 1.0 / w[ring[k]]).sum::<f64>();
    let dmax = d.iter().copied().fold(0.0, f64::max);
    assert!(dmax > t4, "the case has a member whose communication exceeds eq. (4): {dmax} vs {t4}");
    assert!(p >= 3);
    let greedy = plan(&Problem {
        cycle_times: &w,
        costs: &c,
        work,
        boundary: h,
        solver: Solver::Greedy,
        local_search: false,
        network: None,
        sharing: Sharing::Greedy,
    })
    .unwrap();
    let three = greedy.summary;
    assert!(three.report.makespan >= three.rational_makespan - 1e-12);
    assert!(greedy.members.iter().all(|m| m.count >= 1));
}

#[test]
fn bad_input_is_named() {
    let w = [1.0, 2.0];
    let c = [0.0, 1.0, 1.0, 0.0];
    let ok = Problem {
        cycle_times: &w,
        costs: &c,
        work: 10,
        boundary: 1.0,
        solver: Solver::Greedy,
        local_search: false,
        network: None,
        sharing: Sharing::Greedy,
    };
    assert!(plan(&ok).is_ok());
    let nan = [1.0, f64::NAN];
    let e = plan(&Problem { cycle_times: &nan, ..ok }).err().unwrap().to_string();
    assert_eq!(e, "processors[1].cycle_time: must be finite and > 0, got NaN");
    let neg = [0.0, -1.0, 1.0, 0.0];
    let e = plan(&Problem { costs: &neg, ..ok }).err().unwrap().to_string();
    assert!(
        e.starts_with("cost_matrix[0].cost: must be finite and >= 5.56268464626801e-309 off the diagonal"),
        "{e}"
    );
    // A cost whose inverse, the path's bandwidth, leaves f64: refused as the document refuses it.
    let tiny = [0.0, 1e-310, 1.0, 0.0];
    let e = plan(&Problem { costs: &tiny, ..ok }).err().unwrap().to_string();
    assert!(e.starts_with("cost_matrix[0].cost: must be finite and >= 5.56268464626801e-309"), "{e}");
    assert!(plan(&Problem { work: 0, ..ok }).is_err());
    assert!(plan(&Problem { boundary: f64::INFINITY, ..ok }).is_err());
    let many = vec![1.0; 11];
    let costs = vec![1.0; 121];
    let e =
        plan(&Problem { cycle_times: &many, costs: &costs, solver: Solver::Exhaustive, ..ok }).err().unwrap();
    assert!(e.to_string().contains("at most 10"), "{e}");
    // One column: only a single processor can take it.
    let one = plan(&Problem { work: 1, ..ok }).unwrap();
    assert_eq!((one.summary.ring_size, one.members[0].count), (1, 1));
}

/// splitmix64, as `ring_ref.py`'s `Rng` (ring.md §9): the same draws give the same
/// instances as the derivation's studies.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The rational optimum over every ring (test-side brute force: subsets and orders).
fn rational_optimum(w: &[f64], c: &[f64], h: f64, work: u64) -> f64 {
    let p = w.len();
    let mut best = f64::INFINITY;
    fn orders(rest: &mut Vec<usize>, ring: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
        if rest.is_empty() {
            f(ring);
            return;
        }
        for i in 0..rest.len() {
            let x = rest.remove(i);
            ring.push(x);
            orders(rest, ring, f);
            ring.pop();
            rest.insert(i, x);
        }
    }
    for mask in 1u32..(1 << p) {
        let mut members: Vec<usize> = (0..p).filter(|i| mask & (1 << i) != 0).collect();
        orders(&mut members, &mut Vec::new(), &mut |ring| {
            best = best.min(rational_value(w, c, h, work, ring));
        });
    }
    best
}

/// `V = max(T₄, max d)` of a ring (ring.md §2.1), computed from the definition.
fn rational_value(w: &[f64], c: &[f64], h: f64, work: u64, ring: &[usize]) -> f64 {
    let q = ring.len();
    if q == 1 {
        return work as f64 * w[ring[0]];
    }
    let d: Vec<f64> = (0..q).map(|k| comm(w, c, h, ring, k)).collect();
    let inv: f64 = ring.iter().map(|&i| 1.0 / w[i]).sum();
    let t4 = (work as f64 + (0..q).map(|k| d[k] / w[ring[k]]).sum::<f64>()) / inv;
    d.iter().copied().fold(t4, f64::max)
}

/// The derivation's 200 random cliques (ring.md §8, `study_cliques(200, 6)`, seed 2026:
/// the same instances, drawn with the same splitmix64): how often the greedy and the
/// greedy followed by the local search reach the exhaustive optimum, and their worst
/// ratio, for the integer makespan (what plans return) and for the rational value of the
/// ring chosen (what the derivation measured: 93 % and 99 %, worst 1.01714 and 1.01346).
#[test]
fn greedy_and_local_search_against_the_optimum_on_the_derivations_cliques() {
    let mut rng = SplitMix(2026);
    let n = 200;
    let (mut g_int, mut ls_int, mut g_rat, mut ls_rat) = (0, 0, 0, 0);
    let (mut g_worst, mut ls_worst, mut g_rworst, mut ls_rworst) = (1.0f64, 1.0f64, 1.0f64, 1.0f64);
    for _ in 0..n {
        let p = 2 + rng.below(5) as usize;
        let w: Vec<f64> = (0..p).map(|_| (1 + rng.below(10)) as f64).collect();
        let mut c = vec![0.0; p * p];
        for i in 0..p {
            for j in 0..p {
                if i != j {
                    let num = (1 + rng.below(10)) as f64;
                    c[i * p + j] = num / (1 + rng.below(4)) as f64;
                }
            }
        }
        let h = [0.1, 1.0, 5.0, 20.0, 60.0][rng.below(5) as usize];
        let work = 100;
        let base = Problem {
            cycle_times: &w,
            costs: &c,
            work,
            boundary: h,
            solver: Solver::Exhaustive,
            local_search: false,
            network: None,
            sharing: Sharing::Greedy,
        };
        let exact = plan(&base).unwrap().summary.report.makespan;
        let ropt = rational_optimum(&w, &c, h, work);
        let greedy = plan(&Problem { solver: Solver::Greedy, ..base }).unwrap();
        let local = plan(&Problem { solver: Solver::Greedy, local_search: true, ..base }).unwrap();
        let (g, l) = (greedy.summary, local.summary);
        assert!(l.report.makespan <= g.report.makespan, "the local search made the plan worse");
        assert!(g.report.makespan >= exact * (1.0 - 1e-12) && l.report.makespan >= exact * (1.0 - 1e-12));
        assert_eq!(local.members.iter().map(|m| m.count).sum::<u64>(), work);
        let at = |t: f64, opt: f64| t <= opt * (1.0 + 1e-9);
        g_int += usize::from(at(g.report.makespan, exact));
        ls_int += usize::from(at(l.report.makespan, exact));
        g_worst = g_worst.max(g.report.makespan / exact);
        ls_worst = ls_worst.max(l.report.makespan / exact);
        g_rat += usize::from(at(g.rational_makespan, ropt));
        ls_rat += usize::from(at(l.rational_makespan, ropt));
        g_rworst = g_rworst.max(g.rational_makespan / ropt);
        ls_rworst = ls_rworst.max(l.rational_makespan / ropt);
    }
    println!("{n} random cliques (2 <= p <= 6, seed 2026, the derivation's §8 instances):");
    println!("  integer makespan: greedy optimal {g_int}/{n}, worst ratio {g_worst:.5}; greedy + local search {ls_int}/{n}, worst {ls_worst:.5}");
    println!("  rational value of the ring: greedy {g_rat}/{n}, worst {g_rworst:.5}; greedy + local search {ls_rat}/{n}, worst {ls_rworst:.5}");
    // Measured here: 178 and 198 of 200 (integer), 184 for the greedy's rational value;
    // the derivation measured 186 and 198 for the rational value (its greedy picks the
    // ring size by the rational value, ours by the integer makespan). Margins of 4 %.
    assert!(g_int >= 170 && ls_int >= 190 && g_rat >= 178, "greedy {g_int}, local search {ls_int}, {g_rat}");
    assert!(ls_int >= g_int && ls_worst <= g_worst);
    assert!(ls_worst < 1.03 && g_worst < 1.05, "worst ratios {g_worst} {ls_worst}");
}

/// A graph problem: processors' cycle times, routers, links `(from, to, bandwidth, kind)`.
struct Graph {
    w: Vec<f64>,
    routers: usize,
    links: Vec<ring::Link>,
}

impl Graph {
    fn problem(
        &self,
        work: u64,
        h: f64,
        sharing: Sharing,
        solver: Solver,
        local_search: bool,
    ) -> Problem<'_> {
        Problem {
            cycle_times: &self.w,
            costs: &[],
            work,
            boundary: h,
            solver,
            local_search,
            network: Some(ring::Network { routers: self.routers, links: &self.links }),
            sharing,
        }
    }

    /// `fixed_ring` with its scratch: (value, certified gap, shares by position).
    fn fixed(&self, problem: &Problem<'_>, r: &[usize]) -> (f64, f64, Vec<f64>) {
        let needs = ring::needs(self.w.len(), Solver::Greedy, problem.network.as_ref()).unwrap();
        let (mut us, mut fs) = (vec![0usize; needs.graph.usizes], vec![0.0; needs.graph.f64s]);
        let mut shares = vec![0.0; 2 * r.len()];
        let (v, gap) = ring::fixed_ring(problem, r, &mut us, &mut fs, &mut shares).unwrap();
        (v, gap, shares)
    }
}

fn link(from: usize, to: usize, bandwidth: f64, kind: ring::LinkKind) -> ring::Link {
    ring::Link { from, to, bandwidth, kind }
}

/// The cases file's `star3_shared`: three processors on a switch; the ring P0, P1, P2
/// shared max-min exactly as the reference (rational shares, `T = 28/3`) and optimally
/// to the certified gap 1e-9 (`T = 9.2475468957…`, irrational).
#[test]
fn the_shared_star_of_the_cases_file() {
    let cases: serde_json::Value =
        serde_json::from_str(include_str!("../../docs/derivations/ring_cases.json")).unwrap();
    let case = cases["cases"].as_array().unwrap().iter().find(|c| c["name"] == "star3_shared").unwrap();
    let doc = &case["document"];
    let w: Vec<f64> =
        doc["processors"].as_array().unwrap().iter().map(|x| number(&x["cycle_time"])).collect();
    let p = w.len();
    let links = doc["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let node = |s: &str| if s == "sw" { p } else { s[1..].parse::<usize>().unwrap() };
            link(
                node(l["from"].as_str().unwrap()),
                node(l["to"].as_str().unwrap()),
                number(&l["bandwidth"]),
                ring::LinkKind::Bidirectional,
            )
        })
        .collect();
    let g = Graph { w, routers: 1, links };
    let (work, h) = (doc["work"].as_u64().unwrap(), number(&doc["boundary"]));
    let maxmin = g.problem(work, h, Sharing::MaxMin, Solver::Greedy, false);
    let (v, gap, shares) = g.fixed(&maxmin, &[0, 1, 2]);
    let want: Vec<f64> = case["max_min"]["shares"].as_array().unwrap().iter().map(number).collect();
    assert_eq!(shares, want, "max-min shares");
    assert!((v - 28.0 / 3.0).abs() <= 1e-14 && gap == 0.0, "{v}");
    let optimal = g.problem(work, h, Sharing::Optimal, Solver::Greedy, false);
    let (v, gap, shares) = g.fixed(&optimal, &[0, 1, 2]);
    let want = case["optimal"]["rational_makespan"].as_f64().unwrap();
    assert!((v - want).abs() <= 1e-9 * want, "optimal {v} vs {want}");
    assert!(gap <= 1e-9, "certified gap {gap}");
    let ref_shares: Vec<f64> = case["optimal"]["shares"].as_array().unwrap().iter().map(number).collect();
    for (a, b) in shares.iter().zip(&ref_shares) {
        assert!((a - b).abs() <= 1e-6, "shares {shares:?} vs {ref_shares:?}");
    }
    // Planned: every sharing gives a plan no better than the exhaustive's value and no
    // worse than its own lower bound.
    for sharing in [Sharing::Greedy, Sharing::MaxMin, Sharing::Optimal] {
        let planned = plan(&g.problem(work, h, sharing, Solver::Greedy, true)).unwrap();
        let s = planned.summary;
        assert_eq!(planned.members.iter().map(|m| m.count).sum::<u64>(), work);
        assert!(s.report.lower_bound <= s.report.makespan && s.rational_makespan <= s.report.makespan + 1e-9);
    }
}

/// ring.md §6.2: two processors (w = 1, 2) on one bidirectional link of bandwidth 1, W =
/// 100, H = 1: the four routes share the link and the optimum is irrational, `T* = (106 +
/// 4√2)/1.5`.
#[test]
fn the_irrational_optimal_sharing() {
    let g =
        Graph { w: vec![1.0, 2.0], routers: 0, links: vec![link(0, 1, 1.0, ring::LinkKind::Bidirectional)] };
    let problem = g.problem(100, 1.0, Sharing::Optimal, Solver::Greedy, false);
    let (v, gap, shares) = g.fixed(&problem, &[0, 1]);
    let want = (106.0 + 4.0 * 2f64.sqrt()) / 1.5;
    assert!((v - want).abs() <= 1e-9 * want, "{v} vs {want}");
    assert!(gap <= 1e-9);
    assert!(shares.iter().sum::<f64>() <= 1.0 + 1e-12, "the link's capacity: {shares:?}");
    assert!((shares[0] / shares[2] - 2f64.sqrt()).abs() < 1e-4, "x0/x1 = √2: {shares:?}");
}

/// FNV-1a, to compare a generated platform with the reference's in one number.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// ring.md §9: the generator gives the reference's platforms link by link for seed 1 (37
/// machines: 48 routers, 92 links; 70: 81 and 165), hashed as `ring_ref.py` prints them
/// (`from,to,bandwidth,kind;` per link and `1/cycle_time;` per machine).
#[test]
fn the_generator_matches_the_reference() {
    use divload::ring::generate::{generate, generated_sizes, Router};
    for (machines, routers, links, link_hash, speed_hash) in [
        (37, 48, 92, 0x8e70_fe85_6c4d_e25b_u64, 0x6454_1513_f455_a1a3_u64),
        (70, 81, 165, 0xc932_dc33_9a29_85e4, 0xf8a2_0390_14d0_e629),
    ] {
        let (nr, nl) = generated_sizes(machines);
        let (mut w, mut r, mut l) =
            (vec![0.0; machines], vec![Router::Wan(0); nr], vec![ring::Link::EMPTY; nl]);
        let g = generate(machines, 1, &mut w, &mut r, &mut l).unwrap();
        assert_eq!((g.routers, g.links), (routers, links), "{machines} machines");
        let kind = |k: ring::LinkKind| match k {
            ring::LinkKind::Directed => "directed",
            ring::LinkKind::Bidirectional => "bidirectional",
            ring::LinkKind::Backbone => "backbone",
        };
        let text: String = l[..g.links]
            .iter()
            .map(|x| format!("{},{},{},{};", x.from, x.to, x.bandwidth, kind(x.kind)))
            .collect();
        assert_eq!(fnv(&text), link_hash, "{machines} machines: links");
        let speeds: String = w.iter().map(|c| format!("{};", (1.0 / c).round())).collect();
        assert_eq!(fnv(&speeds), speed_hash, "{machines} machines: speeds");
    }
}

/// The generated 70-machine platform (seed 1, W = 10⁴, H/W = 10⁻³) through the document
/// path: the reference's plain greedy finds T/W = 0.0010963 with q = 12 and the lower
/// bound 0.00025388 (ring.md §8); optimal sharing never does worse than the plain greedy
/// and certifies its gap.
#[test]
fn the_generated_platform_plans_as_the_reference() {
    let doc = divload_host::generate_json("ring", &[("machines", "70"), ("seed", "1")]).unwrap();
    let plain: serde_json::Value = serde_json::from_slice(&divload_host::plan_json(&doc).unwrap()).unwrap();
    let v = plain["rational_makespan"].as_f64().unwrap() / 1e4;
    assert!((v - 0.0010963).abs() < 5e-8, "T/W {v}");
    assert_eq!(plain["ring_size"], 12);
    let lb = plain["lower_bound"].as_f64().unwrap() / 1e4;
    assert!((lb - 0.00025388).abs() < 5e-9, "bound {lb}");
    let text = String::from_utf8(doc).unwrap().replace("\"sharing\":\"greedy\"", "\"sharing\":\"optimal\"");
    let optimal: serde_json::Value =
        serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).unwrap()).unwrap();
    assert!(optimal["makespan"].as_f64().unwrap() <= plain["makespan"].as_f64().unwrap());
    assert!(optimal["sharing_gap"].as_f64().unwrap() <= 1e-9);
    let counts: u64 = optimal["plan"].as_array().unwrap().iter().map(|m| m["count"].as_u64().unwrap()).sum();
    assert_eq!(counts, 10_000);
}

/// On generated platforms of 5 to 37 machines (three seeds each, H/W = 10⁻³ and 10⁻²,
/// with and without the local search), the optimal sharing's sharing is certified to 1e-9,
/// and its plan is at most the plain greedy's but for a hair: every ring size is valued
/// with the greedy's own shares and with refined ones, but the plan's polish minimises the
/// rational value, which can cost the integer makespan a little.
#[test]
fn optimal_sharing_against_the_greedy_on_generated_platforms() {
    let (mut planned, mut never_worse, mut worst) = (0, 0, 1.0f64);
    for machines in ["5", "10", "20", "37"] {
        for seed in ["1", "2", "3"] {
            for boundary in ["10", "100"] {
                let params = [("machines", machines), ("seed", seed), ("boundary", boundary)];
                let doc = divload_host::generate_json("ring", &params).unwrap();
                let text = String::from_utf8(doc).unwrap();
                for local in ["false", "true"] {
                    let text = text.replacen('{', &format!("{{\"local_search\": {local},"), 1);
                    let plain: serde_json::Value =
                        serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).unwrap()).unwrap();
                    let text = text.replace("\"sharing\":\"greedy\"", "\"sharing\":\"optimal\"");
                    let optimal: serde_json::Value =
                        serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).unwrap()).unwrap();
                    let what =
                        format!("{machines} machines, seed {seed}, H = {boundary}, local search {local}");
                    let (o, g) = (optimal["makespan"].as_f64().unwrap(), plain["makespan"].as_f64().unwrap());
                    if o > g * (1.0 + 1e-12) {
                        println!("{what}: optimal {o} above the greedy's {g} ({:.2e})", o / g - 1.0);
                        worst = worst.max(o / g);
                    } else {
                        never_worse += 1;
                    }
                    let gap = optimal["sharing_gap"].as_f64().unwrap();
                    assert!(gap <= 1e-9 || optimal["ring_size"] == 1, "{what}: sharing gap {gap}");
                    planned += 1;
                }
            }
        }
    }
    println!(
        "optimal's makespan at most the greedy's in {never_worse} of {planned} plans, worst ratio {worst:.6}"
    );
    assert_eq!(planned, 48);
    // Measured: 46 of 48, worst 1.0000083 (5 machines, seed 1: the polish lowers the
    // rational value, which can raise the integer makespan, the counts being integers with
    // one column each; ring.md §6.2). The sharing before this change, grown from the
    // refined shares, was above the greedy's in 7 of 48, worst 1.0024.
    assert!(never_worse >= 46 && worst < 1.00001, "{never_worse} of {planned}, worst {worst}");
}

/// A graph document's errors name the field: a bandwidth out of range, an unknown node, an
/// unknown kind, both platform forms, neither; at the bound, it plans.
#[test]
fn graph_documents_name_their_errors() {
    let doc = |links: &str, extra: &str| {
        format!(
            r#"{{"model": "ring", "work": 10, "boundary": 1, {extra}
             "processors": [{{"name": "a", "cycle_time": 1}}, {{"name": "b", "cycle_time": 2}}],
             "routers": [{{"name": "sw"}}], "links": [{links}]}}"#
        )
    };
    let plan = |text: String| divload_host::plan_json(text.as_bytes()).map_err(|e| e.to_string());
    let ok = r#"{"name": "l0", "from": "a", "to": "sw", "bandwidth": 1e-300}, {"name": "l1", "from": "sw", "to": "b", "bandwidth": 5, "kind": "backbone"}"#;
    assert!(plan(doc(ok, "")).is_ok());
    let e = plan(doc(&ok.replace("1e-300", "0"), "")).unwrap_err();
    assert!(e.contains("links[0].bandwidth") && e.contains(">= 5.56268464626801e-309"), "{e}");
    let e =
        plan(doc(&ok.replace("\"sw\", \"bandwidth\": 1e-300", "\"x\", \"bandwidth\": 1"), "")).unwrap_err();
    assert!(e.contains("links[0].to") && e.contains("processor or a router"), "{e}");
    let e = plan(doc(&ok.replace("backbone", "fiber"), "")).unwrap_err();
    assert!(e.contains("kind") && e.contains("backbone"), "{e}");
    let e = plan(doc(ok, r#""cost_matrix": [[0, 1], [1, 0]],"#)).unwrap_err();
    assert!(e.contains("cost_matrix") && e.contains("mutually exclusive"), "{e}");
    let e = plan(doc(ok, r#""sharing": "fair","#)).unwrap_err();
    assert!(e.contains("sharing") && e.contains("max_min"), "{e}");
    let e = plan(
        r#"{"model": "ring", "work": 10, "boundary": 1, "processors": [{"name": "a", "cycle_time": 1}]}"#
            .into(),
    )
    .unwrap_err();
    assert!(e.contains("cost_matrix") && e.contains("routers and links"), "{e}");
    let e = plan(doc(ok, "").replace("\"sw\"}]", "\"a\"}]")).unwrap_err();
    assert!(e.contains("routers") || e.contains("name"), "a router named as a processor: {e}");
}

/// Every cyclic order of every subset of `0..p` with two members or more (test side).
fn rings(p: usize) -> Vec<Vec<usize>> {
    fn orders(rest: &mut Vec<usize>, ring: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(ring.clone());
            return;
        }
        for i in 0..rest.len() {
            let x = rest.remove(i);
            ring.push(x);
            orders(rest, ring, out);
            ring.pop();
            rest.insert(i, x);
        }
    }
    let mut out = Vec::new();
    for mask in 1u32..(1 << p) {
        let mut members: Vec<usize> = (0..p).filter(|i| mask & (1 << i) != 0).collect();
        if members.len() >= 2 {
            let first = members.remove(0);
            orders(&mut members, &mut vec![first], &mut out);
        }
    }
    out
}

/// The derivation's 40 random shared trees (ring.md §8, `study_trees(40, 5)`, seed 4242:
/// the same instances). Routes are unique, so the oracle is every ring with its optimal
/// sharing (`fixed_ring`, certified to 1e-9) and the single processors: the rational
/// optimum. No plan's rational value is below it, and every plan stays above its lower
/// bound. Printed and asserted: how often each heuristic's ring reaches it (the
/// derivation measured plain 16/40, max-min 2/40, optimal 38/40, optimal + local search
/// 40/40; our greedy picks the ring size by the integer makespan, the reference by the
/// rational value).
#[test]
fn graph_heuristics_against_every_ring_on_the_derivations_trees() {
    let mut rng = SplitMix(4242);
    let n = 40;
    let names = ["plain", "max_min", "optimal", "optimal + local search"];
    let (mut hits, mut worst) = ([0usize; 4], [1.0f64; 4]);
    let mut never_worse = 0;
    for _ in 0..n {
        let p = 2 + rng.below(4) as usize;
        let ns = 1 + rng.below(3) as usize;
        let mut links = Vec::new();
        for s in 1..ns {
            links.push(link(p + s, p + s - 1, (2 + rng.below(9)) as f64, ring::LinkKind::Bidirectional));
        }
        for i in 0..p {
            let sw = p + rng.below(ns as u64) as usize;
            links.push(link(i, sw, (1 + rng.below(10)) as f64, ring::LinkKind::Bidirectional));
        }
        let w: Vec<f64> = (0..p).map(|_| (1 + rng.below(10)) as f64).collect();
        let h = [0.1, 1.0, 5.0, 20.0][rng.below(4) as usize];
        let g = Graph { w, routers: ns, links };
        let optimal = g.problem(100, h, Sharing::Optimal, Solver::Greedy, false);
        let single = g.w.iter().copied().fold(f64::INFINITY, f64::min) * 100.0;
        let opt = rings(p).iter().map(|r| g.fixed(&optimal, r).0).fold(single, f64::min);
        let mut plain = f64::INFINITY;
        for (k, (sharing, ls)) in [
            (Sharing::Greedy, false),
            (Sharing::MaxMin, false),
            (Sharing::Optimal, false),
            (Sharing::Optimal, true),
        ]
        .into_iter()
        .enumerate()
        {
            let planned = plan(&g.problem(100, h, sharing, Solver::Greedy, ls)).unwrap();
            let s = planned.summary;
            assert_eq!(planned.members.iter().map(|m| m.count).sum::<u64>(), 100);
            assert!(s.report.lower_bound <= s.report.makespan, "{}: bound above the plan", names[k]);
            assert!(
                s.report.lower_bound
                    <= opt + planned.members.iter().map(|m| g.w[m.processor]).fold(0.0, f64::max)
            );
            let v = s.rational_makespan;
            assert!(v >= opt * (1.0 - 1e-8), "{}: {v} below the optimum {opt}", names[k]);
            if k == 0 {
                plain = s.report.makespan;
            } else if k >= 2 {
                assert!(s.sharing_gap <= 1e-9 || s.ring_size == 1, "{}: gap {}", names[k], s.sharing_gap);
                never_worse += usize::from(s.report.makespan <= plain * (1.0 + 1e-12));
            }
            hits[k] += usize::from(v <= opt * (1.0 + 1e-7));
            worst[k] = worst[k].max(v / opt);
        }
    }
    println!(
        "{n} random shared trees (2 <= p <= 5, seed 4242, the derivation's §8 instances), rational value:"
    );
    for k in 0..4 {
        println!("  {:<24} optimal {}/{n}, worst ratio {:.5}", names[k], hits[k], worst[k]);
    }
    // Measured: plain 16/40 (worst 1.03177), max-min 2/40 (worst 1.06586) and optimal
    // 38/40 (worst 1.00017), the derivation's own numbers; optimal + local search 39/40
    // (1.00059: the search improves the integer makespan first). Max-min is the paper's
    // §4.3 procedure: the fair shares replace the greedy's after every insertion, worse or
    // not, since a max_min plan reports what a fair network gives (ring.md §6.1; it kept
    // the better of the two before, 16/40, worst 1.02520, and reported shares no fair
    // network gives).
    assert!(hits[0] == 16 && (worst[0] - 1.03177).abs() < 1e-5, "plain {hits:?} {worst:?}");
    assert!(hits[1] == 2 && (worst[1] - 1.06586).abs() < 1e-5, "max-min {hits:?} {worst:?}");
    assert!(hits[2] >= 36 && worst[2] < 1.001, "optimal {hits:?} {worst:?}");
    assert!(hits[3] >= 36, "{hits:?}");
    println!("  optimal sharing's makespan at most the plain greedy's in {never_worse} of {} plans", 2 * n);
    // Measured: 68 of 80 (the others by the polish's rational objective, as above).
    assert!(never_worse >= 68, "{never_worse}");
}

/// The timeline of a graph plan (what `divload simulate` plays): the platform as the
/// document gives it (every processor at `1/cycle_time`, every link with its bandwidth,
/// backbones as fatpipes), the plan's routes link by link, each member's two sends at its
/// paths' shares and ending at `compute_time + comm_time`. The oracle for the shares is
/// the links themselves: the reserved rates fit in every link (a shared link's routes sum
/// to its bandwidth at most, a backbone's each get it at most), so a simulator capping each
/// send at its rate gives it exactly that rate (`tests/simgrid/run` plays them).
#[test]
fn graph_timelines_reserve_what_the_plan_shares() {
    // A boundary value is a million bytes in timelines (simulators move whole bytes).
    const BYTES: f64 = 1e6;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b.abs();
    let mut docs =
        vec![std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/simgrid/ring-shared.json")).unwrap()];
    for (machines, seed) in [("10", "1"), ("20", "2"), ("37", "1"), ("37", "3")] {
        for sharing in ["greedy", "max_min", "optimal"] {
            let params = [("machines", machines), ("seed", seed), ("sharing", sharing)];
            docs.push(divload_host::generate_json("ring", &params).unwrap());
        }
    }
    for text in &docs {
        let doc: serde_json::Value = serde_json::from_slice(text).unwrap();
        let plan: serde_json::Value =
            serde_json::from_slice(&divload_host::plan_json(text).unwrap()).unwrap();
        let t: serde_json::Value =
            serde_json::from_slice(&divload_host::timeline_json(text).unwrap().unwrap()).unwrap();
        let what = format!(
            "{} processors, {} sharing",
            doc["processors"].as_array().unwrap().len(),
            plan["sharing"]
        );
        let processors = doc["processors"].as_array().unwrap();
        let host_of = |name: &str| processors.iter().position(|p| p["name"] == name).unwrap() as u64;
        for (i, h) in t["hosts"].as_array().unwrap().iter().enumerate() {
            assert_eq!(h["name"], processors[i]["name"], "{what}");
            let speed = 1.0 / processors[i]["cycle_time"].as_f64().unwrap();
            assert!((h["speed"].as_f64().unwrap() - speed).abs() <= 1e-12 * speed, "{what}");
        }
        assert_eq!(t["hosts"].as_array().unwrap().len(), processors.len(), "{what}");
        assert_eq!(
            t["routers"].as_array().unwrap().len(),
            doc["routers"].as_array().unwrap().len(),
            "{what}"
        );
        let links = doc["links"].as_array().unwrap();
        let link_of = |name: &serde_json::Value| links.iter().position(|l| &l["name"] == name).unwrap();
        let backbone = |e: usize| links[e]["kind"] == "backbone";
        for (e, l) in t["links"].as_array().unwrap().iter().enumerate() {
            let bandwidth = links[e]["bandwidth"].as_f64().unwrap();
            assert!(close(l["bandwidth"].as_f64().unwrap() / BYTES, bandwidth), "{what}: link {e}");
            assert_eq!(l["sharing"] == "fatpipe", backbone(e), "{what}: link {e}");
        }
        let paths = plan["paths"].as_array().unwrap();
        let routes = t["routes"].as_array().unwrap();
        for p in paths {
            let (from, to) = (host_of(p["from"].as_str().unwrap()), host_of(p["to"].as_str().unwrap()));
            let route = routes.iter().find(|r| r["from"] == from && r["to"] == to).unwrap();
            let ids: Vec<u64> = p["links"].as_array().unwrap().iter().map(|n| link_of(n) as u64).collect();
            let written: Vec<u64> =
                route["links"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
            assert_eq!(written, ids, "{what}: route {from} -> {to}");
        }
        // Members' actors in ring order, each followed by its two receivers.
        let actors = t["actors"].as_array().unwrap();
        let rows = plan["plan"].as_array().unwrap();
        let mut load = vec![0.0f64; links.len()];
        for (k, row) in rows.iter().enumerate() {
            let a = &actors[3 * k];
            assert_eq!(a["name"], row["name"], "{what}");
            let sends: Vec<&serde_json::Value> =
                a["do"].as_array().unwrap().iter().filter(|x| x.get("send").is_some()).collect();
            assert_eq!(sends.len(), if rows.len() > 1 { 2 } else { 0 }, "{what}");
            for (s, send) in sends.iter().enumerate() {
                let p = &paths[2 * k + s];
                let rate = p["bandwidth"].as_f64().unwrap();
                assert!(
                    close(send["rate"].as_f64().unwrap() / BYTES, rate),
                    "{what}: {} send {s}",
                    row["name"]
                );
                assert!(
                    close(send["bytes"].as_f64().unwrap() / BYTES, plan["boundary"].as_f64().unwrap()),
                    "{what}"
                );
                for n in p["links"].as_array().unwrap() {
                    let e = link_of(n);
                    let cap = links[e]["bandwidth"].as_f64().unwrap();
                    if backbone(e) {
                        assert!(rate <= cap * (1.0 + 1e-9), "{what}: backbone {n} gives {rate} > {cap}");
                    } else {
                        load[e] += rate;
                    }
                }
            }
            let end = row["compute_time"].as_f64().unwrap() + row["comm_time"].as_f64().unwrap();
            assert!((a["end"].as_f64().unwrap() - end).abs() <= 1e-12 * end, "{what}: {} ends", row["name"]);
        }
        for (e, &sum) in load.iter().enumerate() {
            let cap = links[e]["bandwidth"].as_f64().unwrap();
            assert!(sum <= cap * (1.0 + 1e-9), "{what}: link {} carries {sum} > {cap}", links[e]["name"]);
        }
    }
}

/// Max-min fair shares by progressive filling (test side, ring.md §6.1): every route not
/// yet frozen rises at one rate; a shared link is full when its routes (either direction)
/// sum to its bandwidth, a backbone caps each route by itself; the routes of a full link
/// freeze. `routes[k]` lists route `k`'s links.
fn fair_shares(links: &[(f64, bool)], routes: &[Vec<usize>]) -> Vec<f64> {
    let mut x = vec![0.0; routes.len()];
    let mut frozen = vec![false; routes.len()];
    while frozen.iter().any(|f| !f) {
        let mut rate = f64::INFINITY;
        for (e, &(b, backbone)) in links.iter().enumerate() {
            let on: Vec<usize> = (0..routes.len()).filter(|&k| routes[k].contains(&e)).collect();
            let active = on.iter().filter(|&&k| !frozen[k]).count();
            if active == 0 {
                continue;
            }
            let free =
                if backbone { b } else { b - on.iter().filter(|&&k| frozen[k]).map(|&k| x[k]).sum::<f64>() };
            rate = rate.min(if backbone { free } else { free / active as f64 });
        }
        let mut freeze = vec![false; routes.len()];
        for (e, &(b, backbone)) in links.iter().enumerate() {
            let on: Vec<usize> = (0..routes.len()).filter(|&k| routes[k].contains(&e)).collect();
            let active = on.iter().filter(|&&k| !frozen[k]).count();
            if active == 0 {
                continue;
            }
            let used = on.iter().map(|&k| if frozen[k] { x[k] } else { rate }).sum::<f64>();
            for &k in &on {
                let full = if backbone { rate >= b * (1.0 - 1e-12) } else { used >= b * (1.0 - 1e-12) };
                if !frozen[k] && full {
                    freeze[k] = true;
                }
            }
        }
        assert!(freeze.iter().any(|&f| f), "progressive filling stalled");
        for k in 0..routes.len() {
            if !frozen[k] {
                x[k] = rate;
                frozen[k] = freeze[k];
            }
        }
    }
    x
}

/// A `max_min` plan reports what a fair network gives (ring.md §6.1): every path's
/// bandwidth is its max-min fair share among the plan's routes, and the members'
/// communication times and `T_step` follow from those bandwidths; on the derivation's
/// shared star, the generated platforms (with and without the local search) and the
/// simulator's document. (`tests/simgrid/run` checks the same against SimGrid's sharing.)
#[test]
fn max_min_plans_report_the_fair_shares_of_their_routes() {
    let mut docs =
        vec![std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/simgrid/ring-shared.json")).unwrap()];
    for machines in ["5", "10", "20", "37", "70"] {
        for seed in ["1", "2", "3"] {
            let params = [("machines", machines), ("seed", seed), ("sharing", "max_min")];
            docs.push(divload_host::generate_json("ring", &params).unwrap());
        }
    }
    let (mut planned, mut differ) = (0, 0);
    for (n, text) in docs.iter().enumerate() {
        for local in ["true", "false"] {
            let text = String::from_utf8(text.clone()).unwrap();
            let text =
                if n == 0 { text } else { text.replacen('{', &format!("{{\"local_search\": {local},"), 1) };
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            let plan: serde_json::Value =
                serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).unwrap()).unwrap();
            assert_eq!(plan["sharing"], "max_min");
            let links = doc["links"].as_array().unwrap();
            let caps: Vec<(f64, bool)> =
                links.iter().map(|l| (l["bandwidth"].as_f64().unwrap(), l["kind"] == "backbone")).collect();
            let link_of = |name: &serde_json::Value| links.iter().position(|l| &l["name"] == name).unwrap();
            let paths = plan["paths"].as_array().unwrap();
            let routes: Vec<Vec<usize>> =
                paths.iter().map(|p| p["links"].as_array().unwrap().iter().map(link_of).collect()).collect();
            let fair = fair_shares(&caps, &routes);
            let what = format!("document {n}, local search {local}, q = {}", plan["ring_size"]);
            for (p, &x) in paths.iter().zip(&fair) {
                let b = p["bandwidth"].as_f64().unwrap();
                assert!(
                    (b - x).abs() <= 1e-12 * x,
                    "{what}: {}->{} has {b}, its fair share is {x}",
                    p["from"],
                    p["to"]
                );
            }
            // Each member's communication time from its two paths, and T_step from the counts.
            let rows = plan["plan"].as_array().unwrap();
            let h = plan["boundary"].as_f64().unwrap();
            let mut t_step = 0.0f64;
            for (k, row) in rows.iter().enumerate() {
                let comm = if paths.is_empty() { 0.0 } else { h / fair[2 * k] + h / fair[2 * k + 1] };
                let got = row["comm_time"].as_f64().unwrap();
                assert!(
                    (got - comm).abs() <= 1e-12 * comm.max(1e-300),
                    "{what}: {} comm {got} vs {comm}",
                    row["name"]
                );
                t_step = t_step.max(row["compute_time"].as_f64().unwrap() + comm);
            }
            let makespan = plan["makespan"].as_f64().unwrap();
            assert!((makespan - t_step).abs() <= 1e-12 * t_step, "{what}: T_step {makespan} vs {t_step}");
            planned += 1;
            differ += usize::from(paths.len() >= 6);
        }
    }
    // Every document but the smallest ones plans a ring of three or more (routes shared).
    assert!(differ * 2 > planned, "{differ} of {planned} plans with three members or more");
}
