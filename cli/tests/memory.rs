#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The command line under memory limits (issue 46): for a document of each model whose
//! plan needs tens of MB, `divload plan` runs under a sweep of address-space limits
//! (`ulimit -v`) from where the process barely starts to just above what the plan needs.
//! Every run must end with the plan (status 0) or with one line naming the memory that
//! could not be had (status 1, `divload: error: FILE: WHAT: cannot allocate …`), never
//! with an abort (Rust's `handle_alloc_error`: SIGABRT, status 134) or another signal.
//!
//! The limits are found, not written down: the least one at which a tiny document plans
//! (the binary, its libraries and buffers), then the least one at which each document
//! plans, by bisection; the sweep spaces its limits evenly between the two, so that it
//! crosses each of the plan's large allocations (the solver's buffers, the result
//! document, the output) whatever the machine. The bisection's runs are checked too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};

const MIB: u64 = 1024;

/// How a run under a limit ended, when it ended as it may.
#[derive(Debug, PartialEq)]
enum Outcome {
    Planned,
    /// The error line, naming what could not be allocated.
    OutOfMemory(String),
}

/// `divload plan FILE [flag]` with its address space limited to `kib` KiB, its output
/// thrown away; panics unless it planned or failed with the named error.
fn run(file: &Path, kib: u64, flag: Option<&str>) -> Outcome {
    let script = format!(
        "ulimit -v {kib}; exec '{}' plan '{}' {} >/dev/null",
        env!("CARGO_BIN_EXE_divload"),
        file.display(),
        flag.unwrap_or("")
    );
    let out = Command::new("sh").args(["-c", &script]).output().expect("run sh");
    let err = String::from_utf8_lossy(&out.stderr);
    let what = format!("{} under ulimit -v {kib} ({flag:?})", file.display());
    match out.status.code() {
        Some(0) => {
            assert!(err.is_empty(), "{what}: planned with stderr {err}");
            Outcome::Planned
        }
        Some(1) => {
            assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line expected: {err}");
            assert!(err.starts_with("divload: error: "), "{what}: {err}");
            assert!(err.contains(": cannot allocate "), "{what}: not the out-of-memory error: {err}");
            Outcome::OutOfMemory(err.trim_end().to_string())
        }
        // A signal (`sh` reports 128 + its number, an abort 134) or a panic (101).
        _ => panic!("{what}: {} with stderr {err}", out.status),
    }
}

/// The least limit (KiB, in steps of `step`) in `(lo, hi]` at which `planned` holds,
/// given that it fails at `lo` and holds at `hi`.
fn least(mut lo: u64, mut hi: u64, step: u64, planned: impl Fn(u64) -> bool) -> u64 {
    while hi - lo > step {
        let mid = lo + (hi - lo) / 2;
        if planned(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The least limit at which a tiny document plans: the process itself.
fn base() -> u64 {
    static BASE: OnceLock<u64> = OnceLock::new();
    *BASE.get_or_init(|| {
        let tiny = write(
            "tiny",
            r#"{"items": 10, "root": "a", "workers": [{"name": "a", "comm_per_item": 0, "comp_per_item": 1}]}"#,
        );
        // Below the binary and its libraries the loader fails (status 127): not a case.
        let fits = |kib| {
            let script = format!(
                "ulimit -v {kib}; exec '{}' plan '{}' >/dev/null 2>&1",
                env!("CARGO_BIN_EXE_divload"),
                tiny.display()
            );
            Command::new("sh").args(["-c", &script]).status().expect("run sh").success()
        };
        assert!(fits(1024 * MIB), "a tiny document does not plan in 1 GiB");
        least(0, 1024 * MIB, MIB / 4, fits)
    })
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("divload-memory-{}-{name}.json", std::process::id()));
    std::fs::write(&path, text).expect("write");
    path
}

fn example(model: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(format!("{model}.json"));
    serde_json::from_slice(&std::fs::read(path).expect("read example")).expect("example is JSON")
}

/// The sweep for one document; returns the distinct errors seen.
fn sweep(name: &str, doc: &Value) -> Vec<String> {
    let file = write(name, &doc.to_string());
    let base = base();
    let flags = [None, Some("--json"), Some("--counts")];
    // The least limit at which it plans (the table, which prints from the plan's memory).
    let mut hi = base + 16 * MIB;
    while run(&file, hi, Some("--json")) != Outcome::Planned {
        hi = base + (hi - base) * 2;
        assert!(hi < base + 4096 * MIB, "{name}: does not plan in 4 GiB");
    }
    let need = least(base, hi, MIB / 2, |kib| run(&file, kib, Some("--json")) == Outcome::Planned);
    let mut errors = Vec::new();
    const POINTS: u64 = 12;
    for i in 0..=POINTS + 2 {
        // Evenly from the process alone to the plan's need, then two above it.
        let kib = base + (need - base) * i / POINTS;
        let flag = flags[i as usize % flags.len()];
        match run(&file, kib, flag) {
            Outcome::OutOfMemory(e) => {
                // Above the need, by a step at least, every output is printed.
                assert!(i <= POINTS, "{name}: fails above its need ({need} KiB): {e}");
                let what = e.rsplit_once(": cannot allocate").map_or(e.clone(), |(w, _)| w.to_string());
                if !errors.contains(&what) {
                    errors.push(what);
                }
            }
            Outcome::Planned => {}
        }
    }
    let _ = std::fs::remove_file(&file);
    eprintln!("{name}: needs {} KiB above the process's {base} KiB; ran out of: {errors:?}", need - base);
    assert!(!errors.is_empty(), "{name}: no limit of the sweep ran out of memory");
    assert!(
        need - base >= 16 * MIB,
        "{name}: the plan needs {} KiB: too small a document to cross large allocations",
        need - base
    );
    errors
}

/// Issue 46's reproducer: the exact DP over tabulated costs, 3 000 items and 100 002
/// workers (1.1 GiB of DP), under a limit of 1.5 GiB, where the DP's allocation succeeded
/// and a later one of 12 MB (the result document's copy) aborted the process.
#[test]
fn the_issue_46_document_plans_or_names_the_memory_under_one_and_a_half_gib() {
    let mut doc = example("measured");
    doc["items"] = json!(3000);
    doc["workers"][0]["count"] = json!(100_000);
    let file = write("measured-100k", &doc.to_string());
    let outcome = run(&file, 1_572_864, None);
    let _ = std::fs::remove_file(&file);
    // Planned since the table is printed from the plan's memory, without a copy; a named
    // error on a machine whose process alone takes more.
    if let Outcome::OutOfMemory(e) = outcome {
        assert!(e.contains("cannot allocate"), "{e}");
    }
}

/// The scatter: the closed form over 80 000 workers, and the exact DP over tabulated
/// costs (the issue's path), 4 000 items over 3 002 workers (48 MB of DP).
#[test]
fn scatter_plans_or_names_the_memory_under_every_limit() {
    let mut closed = example("scatter");
    closed["workers"][6]["count"] = json!(80_000);
    sweep("scatter", &closed);
    let mut exact = example("measured");
    exact["items"] = json!(4000);
    exact["workers"][0]["count"] = json!(3000);
    let errors = sweep("measured", &exact);
    assert!(errors.iter().any(|e| e.ends_with("exact DP")), "{errors:?}");
}

#[test]
fn returns_plan_or_name_the_memory_under_every_limit() {
    let mut doc = example("returns");
    doc["workers"][2]["count"] = json!(60_000);
    sweep("returns", &doc);
}

#[test]
fn multicluster_plans_or_names_the_memory_under_every_limit() {
    let mut doc = example("multicluster");
    doc["clusters"][1]["processors"] = json!(120_000);
    sweep("multicluster", &doc);
}

#[test]
fn partition_plans_or_names_the_memory_under_every_limit() {
    let mut doc = example("partition");
    doc["workers"][1]["count"] = json!(200_000);
    sweep("partition", &doc);
}

/// The ring's processors are few (at most 1 024, and its search is cubic): its plan is
/// made large by long names, which the result document repeats (150 names of 40 KB,
/// a result of 34 MiB).
#[test]
fn ring_plans_or_names_the_memory_under_every_limit() {
    let mut doc = example("ring");
    let p = 150;
    let mut seed = 46u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let long = "x".repeat(40_000);
    doc["processors"] =
        (0..p).map(|i| json!({"name": format!("p{i}-{long}"), "cycle_time": 1e-3 + 3e-3 * next()})).collect();
    doc["cost_matrix"] = (0..p)
        .map(|i| (0..p).map(|j| if i == j { 0.0 } else { 1e-5 + 5e-4 * next() }).collect::<Vec<f64>>())
        .collect();
    doc["local_search"] = json!(false);
    let errors = sweep("ring", &doc);
    assert!(errors.iter().any(|e| e.ends_with("result document")), "{errors:?}");
}
