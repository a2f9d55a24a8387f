#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The command line as a user runs it: the default plan, the three output formats, and
//! every error path ending in one line on stderr and a non-zero exit, never a panic.

use std::io::Write;
use std::process::{Command, Output};

fn divload(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_divload")).args(args).output().expect("run divload")
}

fn with_file(contents: &str, args: &[&str]) -> Output {
    let mut f = tempfile();
    f.1.write_all(contents.as_bytes()).expect("write");
    let path = f.0.clone();
    let mut all = vec!["plan", path.as_str()];
    all.extend_from_slice(args);
    let out = divload(&all);
    let _ = std::fs::remove_file(&path);
    out
}

fn tempfile() -> (String, std::fs::File) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "divload-cli-{}-{}.json",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let f = std::fs::File::create(&path).expect("create");
    (path.display().to_string(), f)
}

fn assert_clean_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected failure, got success; stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("divload: error: "), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in {err}");
}

#[test]
fn default_plan_matches_the_paper() {
    let out = divload(&["plan", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let makespan = v["makespan"].as_f64().unwrap();
    let uniform = v["uniform_makespan"].as_f64().unwrap();
    // genaud2003 §5.2: balanced run measured 405-430 s (the model slightly underestimates),
    // even split measured 259-853 s.
    assert!((390.0..=430.0).contains(&makespan), "makespan {makespan}");
    assert!((780.0..=860.0).contains(&uniform), "uniform {uniform}");
    assert!(makespan <= v["bound"].as_f64().unwrap());
    assert!(makespan >= v["rational_makespan"].as_f64().unwrap());
    let plan = v["plan"].as_array().unwrap();
    assert_eq!(plan.len(), 16);
    assert_eq!(plan.last().unwrap()["name"], "dinadan", "the root is served last");
    let mut disp = 0;
    let mut ranks: Vec<u64> = vec![];
    for row in plan {
        assert_eq!(row["displacement"].as_u64().unwrap(), disp, "contiguous in send order");
        disp += row["count"].as_u64().unwrap();
        ranks.push(row["rank"].as_u64().unwrap());
        let finish = row["finish"].as_f64().unwrap();
        assert!((makespan - finish) < 0.05, "balanced: {finish} vs {makespan}");
    }
    assert_eq!(disp, 817_101);
    ranks.sort_unstable();
    assert_eq!(ranks, (0..16).collect::<Vec<_>>());
}

#[test]
fn table_and_counts_outputs() {
    let out = divload(&["plan"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["makespan", "even split", "dinadan", "guaranteed", "participating"] {
        assert!(text.contains(needle), "missing {needle}: {text}");
    }
    let out = divload(&["plan", "--counts"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<u64>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 16);
    assert_eq!(rows.iter().map(|r| r[1]).sum::<u64>(), 817_101);
}

#[test]
fn overrides_change_the_plan() {
    let a = divload(&["plan", "--json", "--items", "1000", "--rounding", "paper", "--order", "given"]);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["items"], 1000);
    assert_eq!(v["rounding"], "paper");
    assert_eq!(v["order"], "given");
    assert_eq!(v["plan"][0]["name"], "pellinore", "given order: file order, root last");
}

const GOOD: &str = r#"{"items": 100, "root": "a", "workers": [
  {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
  {"name": "b", "count": 3, "comm_per_item": 0.01, "comp_per_item": 0.5, "comm_latency": 0.2}]}"#;

#[test]
fn a_file_with_latencies_and_copies() {
    let out = with_file(GOOD, &["--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["plan"].as_array().unwrap().len(), 4);
    assert!(v["lower_bound"].as_f64().unwrap() <= v["makespan"].as_f64().unwrap());
}

#[test]
fn bad_input_gives_one_clear_line() {
    assert_clean_error(&divload(&["plan", "/nonexistent/platform.json"]), "/nonexistent/platform.json");
    assert_clean_error(&with_file("", &[]), "truncated");
    assert_clean_error(&with_file(&GOOD[..60], &[]), "truncated");
    assert_clean_error(&with_file("{\"items\": 10,}", &[]), "trailing comma");
    assert_clean_error(
        &with_file(&GOOD.replace("0.5", "null"), &[]),
        "workers[1].comp_per_item must be finite and > 0, got NaN",
    );
    assert_clean_error(&with_file(&GOOD.replace("0.5", "-0.5"), &[]), "got -0.5");
    assert_clean_error(
        &with_file(&GOOD.replace("0.5", "0"), &[]),
        "comp_per_item must be finite and > 0, got 0",
    );
    assert_clean_error(&with_file(&GOOD.replace("0.2", "1e999"), &[]), "comm_latency");
    assert_clean_error(&with_file(&GOOD.replace("100", "0"), &[]), "items: must be at least 1");
    assert_clean_error(&with_file(&GOOD.replace("100", "-5"), &[]), "items");
    assert_clean_error(&with_file(&GOOD.replace("100", "2.5"), &[]), "items");
    assert_clean_error(
        &with_file(&GOOD.replace("\"count\": 3", "\"count\": 0"), &[]),
        "workers[1].count: must be at least 1",
    );
    assert_clean_error(
        &with_file(&GOOD.replace("comp_per_item\": 1", "comp_per_itme\": 1"), &[]),
        "unknown key",
    );
    assert_clean_error(&with_file(&GOOD.replace("\"root\": \"a\"", "\"root\": \"zz\""), &[]), "root");
    assert_clean_error(&with_file(&GOOD.replace("\"b\", \"count\"", "\"b\", \"cnt\""), &[]), "unknown key");
    assert_clean_error(&with_file(r#"{"items": 5, "root": "a", "workers": []}"#, &[]), "at least one worker");
    assert_clean_error(
        &with_file(r#"{"items": 5, "workers": [{"name":"a","comm_per_item":0,"comp_per_item":1}]}"#, &[]),
        "root",
    );
    assert_clean_error(&with_file(r#"[1, 2]"#, &[]), "platform JSON");
    assert_clean_error(&with_file(&GOOD.replace("100", "100000000000000000000000"), &[]), "items");
    assert_clean_error(&with_file(&GOOD.replace("\"count\": 3", "\"count\": 3000000"), &[]), "capacity");
}

#[test]
fn four_thousand_workers_and_more() {
    let mut doc = String::from(r#"{"items": 10000000, "root": "w0", "workers": ["#);
    for i in 0..4096 {
        if i > 0 {
            doc.push(',');
        }
        doc.push_str(&format!(
            r#"{{"name": "w{i}", "comm_per_item": {}, "comp_per_item": {}}}"#,
            1e-6 * (1 + i % 7) as f64,
            1e-3 * (1 + i % 5) as f64
        ));
    }
    doc.push_str("]}");
    let out = with_file(&doc, &["--counts"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let total: u64 = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 10_000_000);
}
