//! Every model's example documents mutated as an adversarial user would (issue 41): each
//! number in turn replaced by a value at an edge of `f64` or of the integers (subnormal,
//! the largest `f64`, 2⁵³, `u64::MAX`, …), then estimated (`effort`), planned and
//! read back. Built with overflow checks (the test profile), so an integer step that
//! wraps panics where it happens. A plan must be refused with an error, or be a result
//! with no `null` and no ratio of 1.8·10³⁰⁸ standing for "infinite"; and a document
//! whose `effort` is small must not be one that runs for minutes (the mutated
//! documents' worst planning time is printed, for BENCHMARKS.md, never asserted).

use std::time::Instant;

/// Values at the edges: of `f64` (subnormal, tiny normal, huge, the largest), of the
/// integers (2³², 2⁵³, `i64::MAX`, `u64::MAX`), and zero and negatives.
const EDGES: [&str; 14] = [
    "0",
    "-1",
    "5e-324",
    "2.2250738585072014e-308",
    "1e-300",
    "0.001",
    "1e300",
    "1.7976931348623157e308",
    "4294967296",
    "9007199254740992",
    "9223372036854775807",
    "18446744073709551615",
    "1e22",
    "3",
];

/// The byte ranges of the number tokens of a JSON text (strings skipped).
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let (mut out, mut i) = (Vec::new(), 0);
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < text.len() && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                out.push((start, i));
            }
            _ => i += 1,
        }
    }
    out
}

/// Ratios of a result: the largest `f64` there stands for "infinite" (a time may be
/// that large when a cost given is).
const RATIOS: [&str; 2] = ["speedup", "error"];

/// What a result must not hold: `null` (the writer's text for NaN and infinities) but a
/// worker's `return_position`, and a ratio at the largest `f64`.
fn check_values(v: &serde_json::Value, key: &str, doc: &str) {
    match v {
        serde_json::Value::Null => {
            assert!(key == "return_position", "{key}: null in the result of {doc}");
        }
        serde_json::Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                assert!(
                    !RATIOS.contains(&key) || x.abs() < f64::MAX,
                    "{key}: {x} (an infinity written as the largest f64) in the result of {doc}"
                );
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| check_values(x, key, doc)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| check_values(x, k, doc)),
        _ => {}
    }
}

/// Most solver steps a mutated document may ask for to be planned here (the fuzz
/// targets' budget); larger ones are estimated only.
const MAX_WORK: u64 = 1 << 26;

#[test]
fn every_number_of_every_example_at_the_edges() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut planned, mut refused, mut skipped) = (0u32, 0u32, 0u32);
    let mut slowest = (0.0f64, String::new());
    // Every failure, grouped by where it happened: one run reports them all.
    let mut failures: std::collections::BTreeMap<String, (u32, String)> = Default::default();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        LAST.with(|l| *l.borrow_mut() = format!("{at}: {}", what.lines().next().unwrap_or("")));
    }));
    for path in &files {
        let text = std::fs::read(path).expect("example");
        for (start, end) in numbers(&text) {
            for edge in EDGES {
                let mut doc = text[..start].to_vec();
                doc.extend_from_slice(edge.as_bytes());
                doc.extend_from_slice(&text[end..]);
                let shown = format!("{} with byte {start} set to {edge}", path.display());
                let run = std::panic::catch_unwind(|| {
                    let affordable = match divload_host::effort(&doc) {
                        Ok(e) => e.workers <= 4096 && e.work <= MAX_WORK,
                        Err(_) => true,
                    };
                    if !affordable {
                        return None;
                    }
                    let clock = Instant::now();
                    let result = divload_host::plan_json(&doc);
                    let seconds = clock.elapsed().as_secs_f64();
                    if let Ok(out) = &result {
                        let v: serde_json::Value = serde_json::from_slice(out).expect("a result reads back");
                        check_values(&v, "", &shown);
                    }
                    Some((result.is_ok(), seconds))
                });
                match run {
                    Ok(None) => skipped += 1,
                    Ok(Some((ok, seconds))) => {
                        if ok {
                            planned += 1;
                        } else {
                            refused += 1;
                        }
                        if seconds > slowest.0 {
                            slowest = (seconds, shown);
                        }
                    }
                    Err(_) => {
                        let at = LAST.with(|l| l.borrow().clone());
                        // Grouped by place and key, not by the value or the document.
                        let at = at.split(" in the result").next().unwrap_or("").to_string();
                        let at = match at.split_once(": ") {
                            Some((place, rest))
                                if place.ends_with("adversarial.rs:66")
                                    || place.ends_with("adversarial.rs:60") =>
                            {
                                format!("{place}: {}", rest.split(':').next().unwrap_or(""))
                            }
                            _ => at,
                        };
                        let entry = failures.entry(at).or_insert((0, shown));
                        entry.0 += 1;
                    }
                }
            }
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "{} examples: {planned} mutations planned, {refused} refused, {skipped} beyond the budget; slowest {:.3} s: {}",
        files.len(),
        slowest.0,
        slowest.1
    );
    for (at, (n, first)) in &failures {
        eprintln!("{n} × {at}\n    first: {first}");
    }
    assert!(failures.is_empty(), "{} kinds of failure", failures.len());
    assert!(planned > 100 && refused > 100, "the mutations reach both the solvers and the checks");
}

thread_local! {
    static LAST: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The reproducers of issue 41, each with what it must give now.
#[test]
fn issue_41_reproducers() {
    let refused = |doc: &str, needle: &str| {
        // `effort` reads every document the fuzz targets plan; it must not overflow either.
        let _ = divload_host::effort(doc.as_bytes());
        match divload_host::plan_json(doc.as_bytes()) {
            Ok(out) => panic!("{doc}: planned {}", String::from_utf8_lossy(&out)),
            Err(e) => assert!(e.to_string().contains(needle), "{doc}: {e}"),
        }
    };
    let planned = |doc: &str| -> serde_json::Value {
        let effort = divload_host::effort(doc.as_bytes()).expect("effort");
        assert!(effort.work < 1 << 40, "{doc}: effort {effort:?}");
        let out = divload_host::plan_json(doc.as_bytes()).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let v: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
        check_values(&v, "", doc);
        v
    };
    // 1. Overflows: in `effort` (returns, the exact DP) and in the ring's counts.
    refused(
        r#"{"model":"returns","items":10,"workers":[{"name":"a","count":9223372036854775807,"comm_per_item":1,"comp_per_item":1,"return_per_item":1}]}"#,
        "workers: at most 1048576",
    );
    refused(
        r#"{"items":18446744073709551615,"root":"a","solver":"exact","workers":[{"name":"a","comm_per_item":0,"comp_per_item":1}]}"#,
        "items",
    );
    let v = planned(
        r#"{"model":"ring","work":18446744073709551615,"boundary":0,"processors":[{"name":"a","cycle_time":1}],"cost_matrix":[[0]]}"#,
    );
    assert_eq!(v["plan"][0]["count"].as_u64(), Some(u64::MAX));
    // 2. Numbers beyond f64: a bandwidth of a subnormal cost, an even split of a subnormal
    // speed, a step whose weight 1/a leaves f64.
    refused(
        r#"{"model":"ring","work":100,"boundary":1,"processors":[{"name":"a","cycle_time":1},{"name":"b","cycle_time":1}],"cost_matrix":[[0,5e-324],[5e-324,0]]}"#,
        "cost_matrix[0].cost: must be finite and >= 5.56268464626801e-309 off the diagonal (its inverse, the bandwidth, finite), got 5e-324",
    );
    // Communications of 10³⁰⁸ s each: a ring of both would take 2·10³⁰⁸ s, so one works alone.
    let v = planned(
        r#"{"model":"ring","work":100,"boundary":1,"processors":[{"name":"a","cycle_time":1},{"name":"b","cycle_time":1}],"cost_matrix":[[0,1e308],[1e308,0]]}"#,
    );
    assert_eq!(v["ring_size"].as_u64(), Some(1));
    refused(
        r#"{"model":"partition","items":10,"cost":{"kind":"linear","coeff":1},"workers":[{"name":"a","speed":5e-324},{"name":"b","speed":1}]}"#,
        "even_makespan exceeds the range of f64",
    );
    refused(
        r#"{"model":"multicluster","fixed_costs":"ignored","clusters":[{"name":"a","processors":1},{"name":"b","processors":1}],"links":{"fast":{"latency":0,"overhead":0,"gap":0},"slow":{"latency":0,"overhead":0.00001,"gap":0}},"application":{"pattern":"ring","lattice":1,"steps":1,"flip_time":5e-324}}"#,
        "step time per load: must be >= 5.56268464626801e-309",
    );
    // 3. A ring whose level is lost in rounding: 2⁵³ columns, no longer one at a time.
    let v = planned(
        r#"{"model":"ring","work":9007199254740992,"boundary":1,"processors":[{"name":"a","cycle_time":1e-300},{"name":"b","cycle_time":1}],"cost_matrix":[[0,1],[1,0]]}"#,
    );
    let total: u64 =
        v["plan"].as_array().expect("plan").iter().map(|r| r["count"].as_u64().expect("count")).sum();
    assert_eq!(total, 1 << 53);
    // Both members kept: the fallback fills each up to the least time that holds them all.
    let v = planned(
        r#"{"model":"ring","work":9007199254740992,"boundary":1e-300,"processors":[{"name":"a","cycle_time":1e-300},{"name":"b","cycle_time":1e-300}],"cost_matrix":[[0,1],[1,0]]}"#,
    );
    let counts: Vec<u64> =
        v["plan"].as_array().expect("plan").iter().map(|r| r["count"].as_u64().expect("count")).collect();
    assert_eq!(counts.iter().sum::<u64>(), 1 << 53, "{counts:?}");
}
