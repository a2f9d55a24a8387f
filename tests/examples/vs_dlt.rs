//! divload's star with installments on the instances of DLT-Studio's comparison script
//! (BENCHMARKS.md, "The star with installments against DLT-Studio"): one line per
//! instance with divload's makespans (one installment, and as many as help) and the best
//! of DLT-Studio's answers read from its result files.
//!
//! `cargo run --release -p divload-tests --example vs_dlt -- DIR RESULTS...` where DIR holds
//! the `NNN.json` instances and each RESULTS file is a `compare.py` table.

use std::collections::HashMap;
use std::time::Instant;

use divload::scatter::installments::{memory, plan, Chunk, Installments, Memory, Problem, RootWork};
use divload::Worker;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, results) = args.split_first().expect("usage: vs_dlt DIR RESULTS...");
    // instance → solver → makespan
    let mut peer: HashMap<usize, HashMap<String, f64>> = HashMap::new();
    for file in results {
        for line in std::fs::read_to_string(file).expect("results file").lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() >= 5 && f[0].chars().all(|c| c.is_ascii_digit()) {
                if let (Ok(i), Ok(m)) = (f[0].parse::<usize>(), f[4].parse::<f64>()) {
                    peer.entry(i).or_default().insert(f[2].to_string(), m);
                }
            }
        }
    }
    println!(
        "inst  p  divload-1     peer-1inst  divload-auto rounds  peer-best (solver)        auto/peer  ms"
    );
    let (mut wins, mut total, mut one_ok) = (0, 0, 0);
    let mut ratios = Vec::new();
    for i in 0.. {
        let path = format!("{dir}/{i:03}.json");
        let Ok(text) = std::fs::read_to_string(&path) else { break };
        let doc: serde_json::Value = serde_json::from_str(&text).expect("instance JSON");
        let items = doc["items"].as_u64().expect("items");
        let ws = doc["workers"].as_array().expect("workers");
        // The root (index 0) only distributes, as DLT-Studio's master.
        let mut workers = vec![Worker::linear(0.0, 1.0)];
        for w in ws {
            let f = |k: &str| w[k].as_f64().unwrap_or(0.0);
            workers.push(Worker {
                comm_latency: f("comm_latency"),
                comm_per_item: f("comm_per_item"),
                comp_latency: f("comp_latency"),
                comp_per_item: f("comp_per_item"),
            });
        }
        let sizes = memory(workers.len()).unwrap();
        let mut chunks = vec![Chunk::EMPTY; sizes.chunks];
        let (mut tableau, mut reals, mut indices) =
            (vec![0.0; sizes.tableau], vec![0.0; sizes.reals], vec![0; sizes.indices]);
        let mut run = |installments| {
            let problem = Problem {
                workers: &workers,
                root: 0,
                root_work: RootWork::None,
                items,
                deadline: None,
                max_items: &[],
                available_at: &[],
                installments,
            };
            let mut m = Memory {
                chunks: &mut chunks,
                tableau: &mut tableau,
                reals: &mut reals,
                indices: &mut indices,
            };
            let start = Instant::now();
            let s = plan(&problem, &mut m).expect("plan");
            (s, start.elapsed().as_secs_f64() * 1e3)
        };
        let (one, _) = run(Installments::AtMost(1));
        let (auto, ms) = run(Installments::Auto);
        let p = peer.get(&i).cloned().unwrap_or_default();
        let one_peer = p.get("exact-1inst").copied().unwrap_or(f64::NAN);
        let (best_solver, best) = p
            .iter()
            .filter(|(_, m)| m.is_finite())
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map_or(("-".to_string(), f64::NAN), |(s, &m)| (s.clone(), m));
        total += 1;
        if auto.makespan <= best {
            wins += 1;
        }
        if one.makespan <= one_peer * (1.0 + 1e-3) {
            one_ok += 1;
        }
        ratios.push(auto.makespan / best);
        println!(
            "{i:4} {:2}  {:<12.6} {:<12.6} {:<12.6} {:6}  {:<12.6} {:<12} {:.4}  {ms:.1}",
            workers.len() - 1,
            one.makespan,
            one_peer,
            auto.makespan,
            auto.rounds,
            best,
            best_solver,
            auto.makespan / best
        );
    }
    ratios.sort_by(f64::total_cmp);
    if !ratios.is_empty() {
        println!(
            "# divload (as many installments as help, whole items) at most the peer's best (rational) on {wins}/{total}; \
             ratio median {:.4}, max {:.4}, min {:.4}; one installment within 0.1 % of the peer's exact one-installment \
             optimum on {one_ok}/{total}",
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1],
            ratios[0]
        );
    }
}
