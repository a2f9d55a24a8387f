//! What the fuzz targets share: a document is planned only when what it asks for fits a
//! fuzzing run (a few MiB, a few thousand workers); larger documents are the front ends'
//! business (their memory is sized up front and allocated fallibly, tested elsewhere),
//! and would only make libFuzzer report its own malloc limit.

/// Most workers or processors a fuzzed document may expand to.
const MAX_WORKERS: u64 = 4096;

/// Most solver steps a fuzzed document may ask for ([`divload::doc::Effort`]): the exact
/// DP's worst case is Θ(n²) per worker and the return-message model compares the best
/// scenario by p! LPs up to 8 workers (BENCHMARKS.md, worst cases), which would turn such
/// inputs into libFuzzer timeouts (over 10 s instrumented for 8 workers, found by `c_api`,
/// 2026-11-23) rather than tests of the readers and the solvers' logic. Every model
/// estimates its own effort, so a new model needs nothing here.
const MAX_WORK: u64 = 1 << 26;

/// `true` when planning `doc` stays within a fuzzing run's memory and time; documents the readers
/// reject are affordable (the rejection is what is being fuzzed).
pub fn affordable(doc: &[u8]) -> bool {
    divload_host::effort(doc).map_or(true, |e| e.workers <= MAX_WORKERS && e.work <= MAX_WORK)
}

/// A result document the host wrote: strict JSON that reads back, with the envelope every
/// model promises (`lower_bound ≤ makespan`, counts adding up to the items or units).
pub fn check_result(doc: &[u8]) {
    use divload::doc::json::Reader;
    let mut r = Reader::new(doc);
    r.begin_object().expect("a result is an object");
    let (mut makespan, mut lower, mut total, mut counted) = (None, None, None, 0u64);
    while let Some((key, _)) = r.next_key().expect("well-formed") {
        match key.raw() {
            "makespan" => makespan = Some(r.f64().expect("number")),
            "lower_bound" => lower = Some(r.f64().expect("number")),
            "items" | "units" => total = Some(r.u64().expect("count")),
            "plan" => {
                r.begin_array().expect("plan array");
                while r.next_element().expect("row") {
                    r.begin_object().expect("row object");
                    while let Some((k, _)) = r.next_key().expect("key") {
                        if k.raw() == "count" {
                            counted += r.u64().expect("count");
                        } else {
                            no_null(&mut r, k.raw());
                        }
                    }
                }
            }
            k => no_null(&mut r, k),
        }
    }
    r.end().expect("nothing after the document");
    if let (Some(m), Some(l)) = (makespan, lower) {
        assert!(l <= m, "lower_bound {l} above makespan {m}");
    }
    if let Some(t) = total {
        assert_eq!(counted, t, "counts must add up");
    }
}

/// The items (units, work) a result document splits: its top-level `items`, `units` or
/// `work`; `None` when it has none of them or is not a result document.
pub fn result_total(doc: &[u8]) -> Option<u64> {
    let mut r = divload::doc::json::Reader::new(doc);
    r.begin_object().ok()?;
    let mut total = None;
    while let Some((key, _)) = r.next_key().ok()? {
        match key.raw() {
            "items" | "units" | "work" => total = Some(r.u64().ok()?),
            _ => r.skip_value().ok()?,
        }
    }
    total
}

/// Keys whose value may be `null` in a result: a worker outside a scenario's return order.
const MAY_BE_NULL: [&str; 1] = ["return_position"];

/// Ratios of a result (the even split's makespan over the plan's, an approximation's
/// error): the largest `f64` there would stand for "infinite" (issue 41), while a time may
/// be that large when a cost given is.
const RATIOS: [&str; 2] = ["speedup", "error"];

/// Reads any value, failing on a `null` under another key: the writer's text for NaN and
/// infinities, so a time or count beyond `f64` that a model let through instead of
/// reporting it (a multi-cluster makespan of 10³⁴⁵ s, 2026-11-24); and on a ratio at the
/// largest `f64`.
fn no_null(r: &mut divload::doc::json::Reader<'_>, key: &str) {
    use divload::doc::json::Kind;
    match r.peek().expect("a value") {
        Kind::Null => {
            assert!(MAY_BE_NULL.contains(&key), "{key}: null (a value beyond f64?)");
            r.skip_value().expect("null");
        }
        Kind::Object => {
            r.begin_object().expect("object");
            while let Some((k, _)) = r.next_key().expect("key") {
                no_null(r, k.raw());
            }
        }
        Kind::Array => {
            r.begin_array().expect("array");
            while r.next_element().expect("element") {
                no_null(r, key);
            }
        }
        Kind::Number if RATIOS.contains(&key) => {
            let x = r.f64().expect("number");
            assert!(x.abs() < f64::MAX, "{key}: {x} (an infinite ratio written as the largest f64)");
        }
        _ => r.skip_value().expect("value"),
    }
}

/// `doc` with the keys of every object in reverse order (each value rewritten the same
/// way, every other byte of a value kept as written); `None` when `doc` is not JSON. A
/// reader that honours every key plans the same whatever their order; one where a later
/// key silently overrode an earlier one (a table and a power law for one cost, found by
/// review on 2026-11-24) does not.
pub fn keys_reversed(doc: &[u8]) -> Option<Vec<u8>> {
    let mut r = divload::doc::json::Reader::new(doc);
    let mut out = Vec::with_capacity(doc.len());
    reversed_value(&mut r, &mut out).ok()?;
    r.end().ok()?;
    Some(out)
}

fn reversed_value<'a>(
    r: &mut divload::doc::json::Reader<'a>,
    out: &mut Vec<u8>,
) -> Result<(), divload::doc::json::JsonError> {
    use divload::doc::json::Kind;
    match r.peek()? {
        Kind::Object => {
            r.begin_object()?;
            let mut members: Vec<(&'a str, Vec<u8>)> = Vec::new();
            while let Some((k, _)) = r.next_key()? {
                let mut v = Vec::new();
                reversed_value(r, &mut v)?;
                members.push((k.raw(), v));
            }
            out.push(b'{');
            for (i, (k, v)) in members.iter().rev().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.push(b'"');
                out.extend_from_slice(k.as_bytes());
                out.extend_from_slice(b"\":");
                out.extend_from_slice(v);
            }
            out.push(b'}');
        }
        Kind::Array => {
            r.begin_array()?;
            out.push(b'[');
            let mut first = true;
            while r.next_element()? {
                if !first {
                    out.push(b',');
                }
                first = false;
                reversed_value(r, out)?;
            }
            out.push(b']');
        }
        _ => {
            let start = r.offset();
            r.skip_value()?;
            out.extend_from_slice(r.since(start));
        }
    }
    Ok(())
}
