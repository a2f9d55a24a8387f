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
    for needle in ["makespan", "uniform_makespan", "dinadan", "bound", "participating", "speedup"] {
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
        "workers[1].comp_per_item: byte 166: expected a number",
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
    assert_clean_error(
        &with_file(&GOOD.replace("\"count\": 3", "\"count\": 3000000"), &[]),
        "workers: at most 1048576, got 3000001",
    );
}

/// Issue 41: a flag's number is read as strictly as the document's (`" 5"` is no number
/// there), whether given as `--items VALUE`, `--items=VALUE` or `--set items=VALUE`.
#[test]
fn flags_take_numbers_as_strictly_as_documents() {
    for v in [" 5", "5 ", "\t5", "5\n", "+5", "0x5", "5."] {
        for args in [vec!["--items", v], vec!["--set"]] {
            let set = format!("items={v}");
            let args: Vec<&str> = if args.len() == 1 { vec!["--set", &set] } else { args };
            assert_clean_error(&with_file(GOOD, &args), "items");
        }
    }
    let out = with_file(GOOD, &["--items", "5", "--counts"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
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

fn json_of(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn counts_sum(v: &serde_json::Value) -> u64 {
    v["plan"].as_array().unwrap().iter().map(|r| r["count"].as_u64().unwrap()).sum()
}

/// The exact DP on the default platform (the paper's instance): the integer optimum,
/// no worse than the closed form, above the rational lower bound.
#[test]
fn exact_solver_on_the_default_platform() {
    let closed = json_of(&divload(&["plan", "--json"]));
    let exact = json_of(&divload(&["plan", "--json", "--solver", "exact"]));
    assert_eq!(closed["method"], "closed_form");
    assert_eq!(exact["method"], "exact_dp");
    assert_eq!(counts_sum(&exact), 817_101);
    let (c, e) = (closed["makespan"].as_f64().unwrap(), exact["makespan"].as_f64().unwrap());
    assert!(e <= c * (1.0 + 1e-12), "exact {e} vs closed form {c}");
    assert!(exact["lower_bound"].as_f64().unwrap() >= closed["lower_bound"].as_f64().unwrap());
    assert!(exact["gap"].as_f64().unwrap() <= 1e-9);
    // The table says how the plan was made and how far the closed form is.
    let out = divload(&["plan", "--solver", "exact", "--progress"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("exact_dp") && text.contains("lower_bound") && text.contains("gap"), "{text}");
    let bar = String::from_utf8_lossy(&out.stderr);
    assert!(bar.contains("100%"), "progress bar on stderr: {bar}");
}

#[test]
fn sampled_solver_reports_a_certified_gap() {
    let exact = json_of(&divload(&["plan", "--json", "--solver", "exact", "--items", "50000"]));
    let sampled = json_of(&divload(&["plan", "--json", "--solver", "sampled", "--items", "50000"]));
    assert_eq!(sampled["method"], "sampled_dp");
    assert_eq!(counts_sum(&sampled), 50_000);
    let opt = exact["makespan"].as_f64().unwrap();
    let (lb, m) = (sampled["lower_bound"].as_f64().unwrap(), sampled["makespan"].as_f64().unwrap());
    assert!(lb <= opt && opt <= m, "{lb} <= {opt} <= {m}");
    assert!((sampled["gap"].as_f64().unwrap() - (m - lb)).abs() < 1e-9);
}

#[test]
fn measured_costs_from_the_example_file() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/measured.json");
    let v = json_of(&divload(&["plan", path, "--json"]));
    assert_eq!(v["method"], "exact_dp", "the file asks for the exact solver");
    assert_eq!(counts_sum(&v), 20_000);
    let finishes: Vec<f64> =
        v["plan"].as_array().unwrap().iter().map(|r| r["finish"].as_f64().unwrap()).collect();
    let m = v["makespan"].as_f64().unwrap();
    assert!(finishes.iter().all(|&f| f <= m));
    let s = json_of(&divload(&["plan", path, "--json", "--solver", "sampled"]));
    assert!(s["lower_bound"].as_f64().unwrap() <= m && m <= s["makespan"].as_f64().unwrap());
    assert_clean_error(
        &divload(&["plan", path, "--solver", "closed-form"]),
        "closed_form needs affine costs",
    );
}

#[test]
fn bad_tables_and_power_laws_give_one_clear_line() {
    let doc = |comp: &str| {
        format!(
            r#"{{"items": 100, "root": "a", "workers": [{{"name": "a", "comm_per_item": 0, "comp_per_item": 1}},
               {{"name": "b", "comm_per_item": 0.1, {comp}}}]}}"#
        )
    };
    let table = |t: &str| doc(&format!(r#""comp_table": {t}"#));
    assert_clean_error(
        &with_file(&table("[[10, 1], [5, 2]]"), &[]),
        "workers[1].comp_table[1]: items must increase",
    );
    assert_clean_error(
        &with_file(&table("[[10, 1], [20, 0.5]]"), &[]),
        "workers[1].comp_table[1]: seconds must not decrease",
    );
    assert_clean_error(
        &with_file(&table("[[10, 1], [20, -1]]"), &[]),
        "seconds must be finite and >= 0, got -1",
    );
    assert_clean_error(
        &with_file(&table("[[10, null]]"), &[]),
        "workers[1].comp_table: byte 166: expected a number",
    );
    assert_clean_error(&with_file(&table("[]"), &[]), "needs at least one");
    assert_clean_error(&with_file(&table("[[10, 1], [20"), &[]), "expected ',' or the closing bracket");
    let whole = table("[[10, 1], [20, 2]]");
    assert_clean_error(&with_file(&whole[..whole.find("[20").unwrap() + 3], &[]), "truncated");
    assert_clean_error(&with_file(&table("[[-10, 1]]"), &[]), "platform JSON");
    let many: Vec<String> = (1..=33).map(|i| format!("[{i}, {i}]")).collect();
    assert_clean_error(&with_file(&table(&format!("[{}]", many.join(","))), &[]), "at most 32 points");
    // Repaired instead of rejected on request.
    let repaired = doc(r#""repair": true, "comp_table": [[10, 1], [20, 0.5], [20, 0.7]]"#);
    assert_eq!(json_of(&with_file(&repaired, &["--json"]))["method"], "exact_dp");
    let power = |p: &str| doc(&format!(r#""comp_power": {p}"#));
    assert_clean_error(
        &with_file(&power(r#"{"coeff": 1, "exponent": 0}"#), &[]),
        "workers[1].comp_power: exponent must be in 0.01..=64, got 0",
    );
    assert_clean_error(
        &with_file(&power(r#"{"coeff": -1, "exponent": 2}"#), &[]),
        "workers[1].comp_power: coeff must be finite and > 0, got -1",
    );
    assert_clean_error(
        &with_file(&power(r#"{"coeff": 1, "exponent": 2, "shape": 1}"#), &[]),
        "platform JSON",
    );
    assert_clean_error(&with_file(&power(r#"{"exponent": 2}"#), &[]), "platform JSON");
    assert_eq!(
        json_of(&with_file(&power(r#"{"coeff": 0.01, "exponent": 1.5}"#), &["--json"]))["method"],
        "exact_dp"
    );
    // One form per cost.
    let both = doc(r#""comp_per_item": 1, "comp_table": [[10, 1]]"#);
    assert_clean_error(&with_file(&both, &[]), "give one cost per part");
    let neither = doc(r#""comp_latency": 1"#);
    assert_clean_error(&with_file(&neither, &[]), "comp_per_item (or comp_table, comp_power)");
    assert_clean_error(
        &with_file(&doc(r#""comp_per_item": 1"#).replace("\"root\"", "\"solver\": \"fast\", \"root\""), &[]),
        "solver",
    );
    // The dynamic programs need a fixed root.
    let cands =
        doc(r#""comp_table": [[10, 1]]"#).replace(r#""root": "a""#, r#""root_candidates": [{"name": "a"}]"#);
    assert_clean_error(&with_file(&cands, &[]), "need a fixed root");
    // Too many items for the exact DP's u32 choices.
    assert_clean_error(
        &divload(&["plan", "--solver", "exact", "--items", "5000000000"]),
        "exact DP: items: at most 4294967294",
    );
}

const SMALL: &str = r#"{"items": 10, "root": "a", "workers": [
    {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
    {"name": "b", "comm_per_item": 0.5, "comp_per_item": 2}]}"#;

/// `SMALL` with `key: value` added at the top.
fn small_with(extra: &str) -> String {
    SMALL.replacen('{', &format!("{{{extra}, "), 1)
}

#[test]
fn only_strict_json_is_read() {
    // Inside a key divload ignores, and in a value it reads.
    assert_clean_error(
        &with_file(&small_with(r#""comment": hello world"#), &[]),
        "comment: byte 12: expected a string",
    );
    for (number, what) in [
        (".5", "invalid number"),
        ("+0.5", "invalid number"),
        ("5.", "invalid number"),
        ("05", "invalid number"),
    ] {
        let doc = SMALL.replace("\"comp_per_item\": 2", &format!("\"comp_per_item\": {number}"));
        assert_clean_error(&with_file(&doc, &[]), what);
    }
    // A comment is free text: any other value could hide repeated keys.
    for value in ["[0.5]", r#"{"x": 1, "x": 2}"#, "5", "null"] {
        let doc = small_with(&format!("\"comment\": {value}"));
        assert_clean_error(&with_file(&doc, &[]), "comment: byte 12: expected a string");
    }
    assert_clean_error(&with_file(&SMALL.replace("\"b\"", "'b'"), &[]), "single-quoted string");
    let raw = SMALL.replace("\"b\"", "\"b\u{1}c\"");
    assert_clean_error(&with_file(&raw, &[]), "workers[1].name: byte 114: raw control character");
    assert_clean_error(&with_file(&small_with(r#""items": 5"#), &[]), "items: byte 13: duplicate key");
    let twice = SMALL.replace(r#""comp_per_item": 2}"#, r#""comp_per_item": 2, "comp_per_item": 3}"#);
    assert_clean_error(&with_file(&twice, &[]), "workers[1].comp_per_item: byte");
    assert_clean_error(&with_file(&twice, &[]), "duplicate key");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // Before the model is known, every value is skipped (strictly, to its nesting limit);
    // then the model's reader names the key it does not know.
    for open in ["[", "{\"a\":"] {
        let doc = small_with(&format!("\"x\": {}", open.repeat(200_000)));
        assert_clean_error(&with_file(&doc, &[]), "byte 1: unknown key (expected version");
        let doc = small_with(&format!("\"comment\": {}", open.repeat(200_000)));
        assert_clean_error(&with_file(&doc, &[]), "comment: byte 12: expected a string");
        assert_clean_error(&with_file(&open.repeat(200_000), &[]), "platform JSON: byte");
    }
}

#[test]
fn names_are_written_back_exactly() {
    let names = [
        r#"q\"uote"#,
        r#"back\\slash"#,
        "caf\u{e9} \u{6f22}",
        &r"\u0001".repeat(100),
        r#"\ud83d\ude00 \n\t"#,
    ];
    let workers: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(r#"{{"name": "{n}", "comm_per_item": {}, "comp_per_item": 1}}"#, i as f64 * 0.01)
        })
        .collect();
    let doc = format!(r#"{{"items": 100, "root": "{}", "workers": [{}]}}"#, names[0], workers.join(", "));
    let out = with_file(&doc, &["--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let mut got: Vec<String> =
        v["plan"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
    let mut want: Vec<String> =
        names.iter().map(|n| serde_json::from_str::<String>(&format!("\"{n}\"")).unwrap()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(v["root"].as_str().unwrap(), "q\"uote");
    // The table view prints the decoded names.
    let table = with_file(&doc, &[]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("caf\u{e9} \u{6f22}"));
}

/// Runs the command line with its address space limited (`ulimit -v`, KiB).
fn limited(contents: &str, kib: u64) -> Output {
    let mut f = tempfile();
    f.1.write_all(contents.as_bytes()).expect("write");
    let script = format!("ulimit -v {kib}; exec '{}' plan '{}'", env!("CARGO_BIN_EXE_divload"), f.0);
    let out = Command::new("sh").args(["-c", &script]).output().expect("run sh");
    let _ = std::fs::remove_file(&f.0);
    out
}

#[test]
fn memory_is_bounded_by_the_document() {
    // A 1 MiB comment of `{` once made the reader size 10^6 worker entries (1.16 GB);
    // 4 MiB of `{` made it reserve 4.6 GB before failing.
    let kib = 200 * 1024;
    let comment = small_with(&format!("\"comment\": \"{}\"", "{".repeat(1 << 20)));
    let out = limited(&comment, kib);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let braces = "{".repeat(4 << 20);
    assert_clean_error(&limited(&braces, kib), "byte 1: expected a key");
    // A worker count far beyond the front end's capacity is refused before allocating.
    let many = SMALL.replace(r#""name": "b","#, r#""name": "b", "count": 1000000000000,"#);
    assert_clean_error(&limited(&many, kib), "workers: at most 1048576, got");
}

#[test]
fn models_and_examples_come_from_the_registry() {
    let out = divload(&["models"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("scatter "));
    let out = divload(&["example", "scatter"]);
    assert!(out.status.success());
    let example = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&example).expect("the example is JSON");
    assert_eq!(v["model"], "scatter");
    // The example plans as printed, to the paper's makespan.
    let planned = with_file(&example, &["--json"]);
    assert!(planned.status.success(), "{}", String::from_utf8_lossy(&planned.stderr));
    let r: serde_json::Value = serde_json::from_slice(&planned.stdout).unwrap();
    assert_eq!(r["model"], "scatter");
    assert!((r["makespan"].as_f64().unwrap() - 403.975).abs() < 0.01);
    assert_clean_error(
        &divload(&["example", "nonsense"]),
        "unknown model \"nonsense\" (known: scatter, returns, multicluster, partition, ring)",
    );
}

/// The return-message model through the same command: every model's example plans as
/// printed, the table comes from the result's own columns, and the slides' platform B
/// gives its throughputs (optimum 38/499, FIFO 47/632, LIFO 271/4060: the corrected value).
#[test]
fn returns_documents_plan_from_the_command_line() {
    let example = String::from_utf8(divload(&["example", "returns"]).stdout).unwrap();
    let out = with_file(&example, &["--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["model"], "returns");
    assert_eq!(v["method"], "best_scenario");
    assert!((v["throughput"].as_f64().unwrap() - 38.0 / 499.0).abs() < 1e-12);
    assert_eq!(counts_sum(&v), 1000);
    let (lb, makespan, bound) =
        (v["lower_bound"].as_f64().unwrap(), v["makespan"].as_f64().unwrap(), v["bound"].as_f64().unwrap());
    assert!(lb <= makespan && makespan <= bound);
    assert!(v["compare"]["best"].as_f64().unwrap() <= v["compare"]["fifo"].as_f64().unwrap());
    assert_eq!(v["send_order"].as_array().unwrap().len(), 3);
    // The return order: LIFO's is the send order reversed, FIFO's the send order, and
    // every row's return position points at its own name.
    let return_order = |v: &serde_json::Value| {
        let ret = v["return_order"].as_array().unwrap().clone();
        for row in v["plan"].as_array().unwrap() {
            if let Some(r) = row["return_position"].as_u64() {
                assert_eq!(ret[r as usize], row["name"], "{v}");
            }
        }
        ret
    };
    for (schedule, throughput) in [("lifo", 271.0 / 4060.0), ("fifo", 47.0 / 632.0)] {
        let doc = example.replace("\"best\"", &format!("\"{schedule}\""));
        let v = json_of(&with_file(&doc, &["--json"]));
        assert!((v["throughput"].as_f64().unwrap() - throughput).abs() < 1e-12, "{schedule}: {v}");
        let mut send = v["send_order"].as_array().unwrap().clone();
        if schedule == "lifo" {
            send.reverse();
        }
        assert_eq!(return_order(&v), send, "{schedule}");
    }
    let given = example.replace("\"best\"", r#"{"send": ["p1", "p3", "p2"], "return": ["p3", "p1", "p2"]}"#);
    let v = json_of(&with_file(&given, &["--json"]));
    assert_eq!(v["method"], "scenario_lp");
    assert!((v["throughput"].as_f64().unwrap() - 38.0 / 499.0).abs() < 1e-12);
    assert_eq!(v["return_order"], serde_json::json!(["p3", "p1", "p2"]));
    return_order(&v);

    let table = with_file(&example, &[]);
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("method                 best_scenario"), "{text}");
    assert!(text.contains("return_start"), "{text}");
    let counts = String::from_utf8(with_file(&example, &["--counts"]).stdout).unwrap();
    assert_eq!(
        counts.lines().skip(1).map(|l| l.split(' ').nth(1).unwrap().parse::<u64>().unwrap()).sum::<u64>(),
        1000
    );

    // The flags set the document's fields, for any model that has them; the model's reader
    // names the keys it knows when it has not.
    assert_eq!(counts_sum(&json_of(&with_file(&example, &["--items", "5", "--json"]))), 5);
    assert_clean_error(
        &with_file(&example, &["--order", "given"]),
        "unknown key (expected version, model, items",
    );
    let set = json_of(&with_file(&example, &["--set", "schedule=lifo", "--json"]));
    assert_eq!(set["method"], "lifo");
    let bad = example.replace("\"comp_per_item\": 5,", "\"comp_per_item\": 0,");
    assert_clean_error(&with_file(&bad, &[]), "workers[1].comp_per_item: must be finite and > 0, got 0");
    let unknown = example.replace("\"p3\", \"comm", "\"p3\", \"com");
    assert_clean_error(&with_file(&unknown, &[]), "unknown key (expected name, count, comm_per_item");
    let stray = example.replace("\"best\"", r#"{"send": ["p1", "p9"], "return": ["p9", "p1"]}"#);
    assert_clean_error(&with_file(&stray, &[]), "schedule.send[1]: names no worker in workers");
    let uneven = example.replace("\"best\"", r#"{"send": ["p1", "p2"], "return": ["p1"]}"#);
    assert_clean_error(&with_file(&uneven, &[]), "send and return must list the same participants");
    let lenient = example.replace("\"items\": 1000", "\"items\": 1000.");
    assert_clean_error(&with_file(&lenient, &[]), "invalid number");
    let model = example.replace("\"returns\"", "\"torus\"");
    assert_clean_error(&with_file(&model, &[]), "model: byte");
    let twice = example.replace("\"port\"", "\"model\": \"returns\", \"port\"");
    assert_clean_error(&with_file(&twice, &[]), "duplicate key");
    let many = example.replace("\"name\": \"p1\",", "\"name\": \"p1\", \"count\": 1000000000000,");
    assert_clean_error(&limited(&many, 200 * 1024), "workers: at most 1048576");
}

/// The multi-cluster model through the same command: the example is heien's Table 4 at
/// S = 8192 (base 54.42 s, +8P 39.04 s, +3x4P 36.25 s, speedups 28.3 % and 33.4 %), the
/// sort and custom patterns plan, and bad documents name their key.
#[test]
fn multicluster_documents_plan_from_the_command_line() {
    let example = String::from_utf8(divload(&["example", "multicluster"]).stdout).unwrap();
    let v = json_of(&with_file(&example, &["--json"]));
    assert_eq!(v["model"], "multicluster");
    assert_eq!(v["method"], "biased");
    assert!((v["rational_makespan"].as_f64().unwrap() - 54.4154).abs() < 1e-3, "{v}");
    let (lb, makespan) = (v["lower_bound"].as_f64().unwrap(), v["makespan"].as_f64().unwrap());
    assert!(lb <= makespan && makespan < v["even_makespan"].as_f64().unwrap());
    assert_eq!(counts_sum(&v), 8192);
    assert_eq!(v["plan"].as_array().unwrap().len(), 16);
    let what_if = v["what_if"].as_array().unwrap();
    assert!((what_if[0]["rational_makespan"].as_f64().unwrap() - 39.0362).abs() < 1e-3);
    assert!((what_if[1]["rational_makespan"].as_f64().unwrap() - 36.2519).abs() < 1e-3);
    assert!((what_if[0]["speedup"].as_f64().unwrap() - 0.2826).abs() < 1e-3);

    // heien Sort 1 (clusters of 8, 4, 4; the paper's split ignores fixed costs): F_3 =
    // .0405 and F_7 = .0845 at D = 25.
    let sort = r#"{"model": "multicluster", "clusters": [{"name": "x", "processors": 8},
        {"name": "y", "processors": 4}, {"name": "z", "processors": 4}],
        "links": {"fast": {"latency": 45e-6, "overhead": 5e-6, "gap": 0.05e-6},
                  "slow": {"latency": 400e-6, "overhead": 10e-6, "gap": 0.5e-6}},
        "application": {"pattern": "all_to_all", "objects": 10000000, "chunk": 4096,
                        "sort_time": 3.42e-3, "words_per_object": 25},
        "fixed_costs": "ignored"}"#;
    let v = json_of(&with_file(sort, &["--json"]));
    let fraction = |r: u64| {
        v["classes"].as_array().unwrap().iter().find(|c| c["fast_links"] == r).unwrap()["fraction"]
            .as_f64()
            .unwrap()
    };
    assert!((fraction(3) - 0.0405).abs() < 5e-5 && (fraction(7) - 0.0845).abs() < 5e-5, "{v}");
    assert_eq!(counts_sum(&v), 10_000_000);

    let custom = r#"{"model": "multicluster", "clusters": [{"name": "x", "processors": 2}, {"name": "y", "processors": 1}],
        "application": {"pattern": "custom", "units": 1000, "iterations": 10,
                        "costs": [{"per_load": 1, "fixed": 0}, {"per_load": 2, "fixed": 0.01}]}}"#;
    let v = json_of(&with_file(custom, &["--json"]));
    assert_eq!(counts_sum(&v), 1000);
    assert!(v["lower_bound"].as_f64().unwrap() <= v["makespan"].as_f64().unwrap());
    let text = String::from_utf8(with_file(&example, &[]).stdout).unwrap();
    assert!(text.contains("what_if:") && text.contains("+3x4P"), "{text}");

    let bad = |from: &str, to: &str, needle: &str| {
        let doc = example.replacen(from, to, 1);
        assert_ne!(doc, example, "{from}");
        assert_clean_error(&with_file(&doc, &[]), needle);
    };
    bad("\"processors\": 8}", "\"processors\": 0}", "clusters[0].processors: must be in 1..=16777216");
    bad(
        "\"flip_time\": 0.55e-6",
        "\"flip_time\": -1",
        "application.flip_time: must be finite and > 0, got -1",
    );
    bad("\"steps\": 20", "\"steps\": 20, \"chunk\": 3", "holds a parameter of another pattern");
    bad("\"pattern\": \"ring\"", "\"pattern\": \"star\"", "must be \"ring\", \"all_to_all\" or \"custom\"");
    bad("\"slow\": {\"latency\": 400e-6, \"overhead\": 10e-6, \"gap\": 0.5e-6}",
        "\"slow\": {\"latency\": 400e-6, \"overhead\": 10e-6, \"gap\": 0.5e-6}, \"pairs\": [{\"first\": \"a\", \"second\": \"q\", \"latency\": 1, \"overhead\": 0, \"gap\": 0}]",
        "links.pairs[0].second: names no cluster in clusters");
    bad("\"latency\": 45e-6", "\"latency\": .45", "invalid number");
    bad("\"what_if\"", "\"clusters\": [], \"what_if\"", "duplicate key");
    let many = example.replacen("\"processors\": 8}", "\"processors\": 4000000000}", 1);
    assert_clean_error(&limited(&many, 200 * 1024), "clusters[0].processors: must be in 1..=16777216");
    // The tool's own limit, checked before the model's (2²⁴), with the name of what it counts.
    let many = example.replacen("\"processors\": 8}", "\"processors\": 2000000}", 1);
    assert_clean_error(
        &limited(&many, 200 * 1024),
        "processors (all clusters, with the largest what_if addition): at most 1048576, got 20000",
    );
}

/// Computation only (cerin2006 §4): the threshold search is reachable from a document and
/// gives the exact optimum, checked here against every split of a small instance.
#[test]
fn partition_documents_plan_exactly() {
    let example = String::from_utf8(divload(&["example", "partition"]).stdout).unwrap();
    let v = json_of(&with_file(&example, &["--json"]));
    assert_eq!(
        (v["model"].as_str(), v["method"].as_str(), v["exact"].as_bool()),
        (Some("partition"), Some("threshold"), Some(true))
    );
    assert_eq!(counts_sum(&v), 1_000_000);
    assert!(v["makespan"].as_f64().unwrap() < v["even_makespan"].as_f64().unwrap());

    // 0.3 s/item against a quadratic 0.01·x²: brute force over all splits of 25 items.
    let small = r#"{"model": "partition", "items": 25, "workers": [
        {"name": "lin", "comp_per_item": 0.3}, {"name": "quad", "comp_power": {"coeff": 0.01, "exponent": 2}}]}"#;
    let v = json_of(&with_file(small, &["--json"]));
    let best = (0..=25u32)
        .map(|x| (0.3 * f64::from(x)).max(0.01 * f64::from(25 - x).powi(2)))
        .fold(f64::INFINITY, f64::min);
    assert!((v["makespan"].as_f64().unwrap() - best).abs() < 1e-12, "{v} vs {best}");

    // Entries with counts share one cost function per entry: each row's finish is its
    // own entry's cost of its count.
    let counted = small
        .replace("\"name\": \"lin\",", "\"name\": \"lin\", \"count\": 3,")
        .replace("\"name\": \"quad\",", "\"name\": \"quad\", \"count\": 2,");
    let v = json_of(&with_file(&counted, &["--json"]));
    assert_eq!(counts_sum(&v), 25);
    let rows = v["plan"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for row in rows {
        let (count, finish) = (row["count"].as_f64().unwrap(), row["finish"].as_f64().unwrap());
        let cost = if row["name"] == "lin" { 0.3 * count } else { 0.01 * count * count };
        assert!((finish - cost).abs() <= 1e-12 * cost.max(1.0), "{row}");
    }
    assert_eq!(rows.iter().filter(|r| r["name"] == "lin").count(), 3);

    let two = small.replace("\"comp_per_item\": 0.3}", "\"comp_per_item\": 0.3, \"comp_table\": [[1, 1]]}");
    assert_clean_error(&with_file(&two, &[]), "give one cost: comp_per_item, comp_table or comp_power");
    let comm = small.replace("\"comp_per_item\": 0.3}", "\"comp_per_item\": 0.3, \"comm_per_item\": 1}");
    assert_clean_error(&with_file(&comm, &[]), "unknown key (expected name, count, comp_per_item");
    let neg = small.replace("0.3}", "-0.3}");
    assert_clean_error(&with_file(&neg, &[]), "workers[0].comp_per_item must be finite and > 0, got -0.3");
}

/// `divload learn`: a CSV of timings added to a document's observations plans as the
/// document with those observations does; the learned points are printed; a model without
/// observations and a CSV whose header is not the list's fields are one clear line.
#[test]
fn learn_adds_a_csv_of_timings_to_the_observations() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/partition_learned.json");
    let mut doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root).unwrap()).unwrap();
    let observations = doc["observations"].as_array().unwrap().clone();
    doc.as_object_mut().unwrap().remove("observations");
    let (bare, mut f) = tempfile();
    f.write_all(doc.to_string().as_bytes()).unwrap();
    let (csv, mut c) = tempfile();
    writeln!(c, "worker,items,seconds").unwrap();
    for o in &observations {
        writeln!(c, "{},{},{}", o["worker"].as_str().unwrap(), o["items"], o["seconds"]).unwrap();
    }
    let learned = divload(&["learn", &bare, &csv, "--json"]);
    assert!(learned.status.success(), "{}", String::from_utf8_lossy(&learned.stderr));
    let whole = divload(&["plan", root, "--json"]);
    assert_eq!(learned.stdout, whole.stdout);
    let v: serde_json::Value = serde_json::from_slice(&learned.stdout).unwrap();
    assert_eq!(v["method"], "learned");
    let table = String::from_utf8(divload(&["learn", &bare, &csv]).stdout).unwrap();
    assert!(table.lines().any(|l| l.starts_with("learned.points") && l.contains('(')), "{table}");

    let scatter = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scatter.json");
    assert_clean_error(&divload(&["learn", scatter, &csv]), "takes no observations");
    let (bad, mut b) = tempfile();
    writeln!(b, "worker,minutes\nfast,3").unwrap();
    assert_clean_error(&divload(&["learn", &bare, &bad]), "unknown column \"minutes\"");
    for p in [bare, csv, bad] {
        let _ = std::fs::remove_file(p);
    }
}
