//! Documents of any model: `divload_plan_json` (the result document),
//! `divload_models_json` (the registry) and `divload_plan_shares` (each worker's count,
//! displacement and position, for MPI codes of every model).

use std::ffi::c_char;

use crate::boundary::{
    boundary, buffer_failure, check_raw, input, null_failure, optional_output, output, Failure,
};
use crate::divload_status;

/// Plans a document of any model (the JSON format of `divload plan`, its `"model"`
/// naming one of `divload_models_json`'s; see docs/cli.md) and writes the result document
/// into `out` as a NUL-terminated string. A scatter document's `"solver"` is honoured:
/// `closed_form`, `exact` (memory O(n·p), allocated here) or `sampled` (4096 sizes, at
/// most 256 workers); tabulated and power-law costs need one of the last two.
///
/// On `DIVLOAD_OK`, `*out_n` is the document's length without the NUL. On
/// `DIVLOAD_BUFFER_TOO_SMALL`, nothing is written to `out` and `*out_n` is the exact size
/// `out` needs, NUL included: call again with a buffer that large. `json` need not be
/// NUL-terminated; `json_len` is its length in bytes.
///
/// # Safety
///
/// `json` must be valid for `json_len` bytes, `out` for `out_len` bytes, `out_n` for one
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn divload_plan_json(
    json: *const c_char,
    json_len: usize,
    out: *mut c_char,
    out_len: usize,
    out_n: *mut usize,
) -> divload_status {
    boundary(|| {
        let text = unsafe { input(json.cast::<u8>(), json_len, "json")? };
        let out = unsafe { output(out.cast::<u8>(), out_len, "out")? };
        if out_n.is_null() {
            return Err(null_failure("out_n"));
        }
        // Copied from the plan's arena straight into `out`: a copy of its own would need
        // the document's size again while the solver's memory is still held, and the
        // standard library aborts when such a copy fails.
        let copied = divload_host::with_plan(text, None, |planned| {
            // SAFETY: `out_n` is non-null; the caller guarantees it is valid.
            Ok(unsafe { write_document(planned.document, out, out_n) })
        })?;
        copied.or_failure("out")
    })
}

/// Writes `[{"name", "title", "paper", "fields", "timeline"}, …]`, the models a document can name in
/// `"model"`, into `out` as a NUL-terminated string; sizes as [`divload_plan_json`].
///
/// # Safety
///
/// `out` must be valid for `out_len` bytes, `out_n` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn divload_models_json(
    out: *mut c_char,
    out_len: usize,
    out_n: *mut usize,
) -> divload_status {
    boundary(|| {
        let out = unsafe { output(out.cast::<u8>(), out_len, "out")? };
        if out_n.is_null() {
            return Err(null_failure("out_n"));
        }
        let doc = divload_host::models_json()?;
        // SAFETY: `out_n` is non-null; the caller guarantees it is valid.
        unsafe { write_document(&doc, out, out_n) }.or_failure("out")
    })
}

/// Copies `doc` and a NUL into `out`, or reports the size needed in `*out_n`.
///
/// # Safety
///
/// `out_n` must be non-null and valid for one `size_t`.
pub(crate) unsafe fn write_document(doc: &[u8], out: &mut [u8], out_n: *mut usize) -> Copied {
    let needed = doc.len() + 1;
    if out.len() < needed {
        // SAFETY: checked non-null by the callers; the caller guarantees validity.
        unsafe { out_n.write(needed) };
        return Copied::TooSmall { needed, got: out.len() };
    }
    out[..doc.len()].copy_from_slice(doc);
    out[doc.len()] = 0;
    // SAFETY: as above.
    unsafe { out_n.write(doc.len()) };
    Copied::Done
}

/// Whether a plan fitted the caller's buffer, decided while the plan is still in the
/// host's arena. The failure, whose message is an allocation, is made from it once the
/// arena is freed: allocated while the solver's memory is held, it could abort the
/// process under a memory limit (Rust's `String` cannot report a failed allocation).
#[must_use]
pub(crate) enum Copied {
    Done,
    TooSmall { needed: usize, got: usize },
}

impl Copied {
    pub(crate) fn or_failure(self, name: &str) -> Result<(), Failure> {
        match self {
            Copied::Done => Ok(()),
            Copied::TooSmall { needed, got } => Err(buffer_failure(name, needed, got)),
        }
    }
}

/// Bytes of `divload_plan_summary.method`, the NUL included.
pub const DIVLOAD_METHOD_NAME_LEN: usize = 32;

/// One worker's part of a plan (`divload_plan_shares`), by its place in the document: an
/// entry with `"count": k` is k workers, in the order the document lists them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct divload_share {
    /// Items (columns, load units) it gets.
    pub count: u64,
    /// Its first item: blocks are laid out in the plan's order (send order, ring order).
    pub displacement: u64,
    /// Its place in the plan's order (the scatter's send order, the ring's order, the
    /// ring of processors of a multi-cluster plan, document order for a model without
    /// one), from 0; -1 when the plan leaves it out (a processor off the ring, a
    /// processor of a dropped cluster, a worker outside a given return scenario).
    pub position: i64,
}

/// What a plan achieves, for any model. Times in the model's unit (seconds).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct divload_plan_summary {
    /// The integer plan's makespan (the ring's `T_step`, the multi-cluster run time, ...).
    pub makespan: f64,
    /// A lower bound on the makespan of every plan of the document.
    pub lower_bound: f64,
    /// `makespan - lower_bound`: how far the plan can be from the optimum.
    pub gap: f64,
    /// `true` when the plan is proven optimal.
    pub exact: bool,
    /// Workers written (the document's workers or processors, expanded).
    pub workers: usize,
    /// Workers the plan places (those whose position is not -1).
    pub participating: usize,
    /// Items split: the sum of the counts.
    pub items: u64,
    /// How the plan was obtained: the result document's `"method"` (`"closed_form"`,
    /// `"greedy"`, ...), NUL-terminated. A name rather than a number: it is the spelling
    /// every result document already carries, and a new method needs no new number.
    pub method: [c_char; DIVLOAD_METHOD_NAME_LEN],
}

/// Plans a document of any model (the JSON format of `divload plan`; see docs/cli.md) and
/// writes one `divload_share` per worker into `out`, by the worker's place in the
/// document (entries with `"count": k` expanded), and the summary into `summary` (which
/// may be null). What an MPI code needs from any model's plan, without parsing JSON.
///
/// On `DIVLOAD_OK`, `*out_n` is the number of workers written. On
/// `DIVLOAD_BUFFER_TOO_SMALL`, nothing is written to `out` and `*out_n` is the number of
/// workers the document has: call again with that many. Returns `DIVLOAD_NULL_PARAMETER`
/// for a null `json`, `out` or `out_n`, `DIVLOAD_JSON` for malformed JSON or a value out
/// of range (the message names the key), `DIVLOAD_INVALID_INPUT` for a misaligned
/// pointer or invalid values, `DIVLOAD_OVERFLOW` beyond the model's limits,
/// `DIVLOAD_OUT_OF_MEMORY`. Nothing is written unless the result is `DIVLOAD_OK` (or
/// `*out_n` alone, for `DIVLOAD_BUFFER_TOO_SMALL`).
///
/// # Safety
///
/// `json` must be valid for `json_len` bytes, `out` for `out_len` elements, `out_n` for
/// one `size_t`, `summary` null or valid for one element.
#[no_mangle]
pub unsafe extern "C" fn divload_plan_shares(
    json: *const c_char,
    json_len: usize,
    out: *mut divload_share,
    out_len: usize,
    out_n: *mut usize,
    summary: *mut divload_plan_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let text = unsafe { input(json.cast::<u8>(), json_len, "json")? };
        let out = unsafe { output(out, out_len, "out")? };
        check_raw(out_n.cast_const(), 1, "out_n")?;
        let summary = optional_output(summary, "summary")?;
        // Written from the plan's arena, not from a copy (see `divload_plan_json`).
        let copied = divload_host::with_plan(text, None, |planned| {
            let (shares, report) = (planned.shares, planned.report);
            if out.len() < shares.len() {
                // SAFETY: non-null and aligned (checked above); validity is the caller's contract.
                unsafe { out_n.write(shares.len()) };
                return Ok(Copied::TooSmall { needed: shares.len(), got: out.len() });
            }
            for (o, s) in out.iter_mut().zip(shares) {
                *o = divload_share {
                    count: s.count,
                    displacement: s.displacement,
                    position: s.position.map_or(-1, i64::from),
                };
            }
            // SAFETY: as above.
            unsafe { out_n.write(shares.len()) };
            if let Some(summary) = summary {
                // SAFETY: non-null and aligned (`optional_output`); validity is the caller's contract.
                unsafe { summary.write(plan_summary(&report, shares)) };
            }
            Ok(Copied::Done)
        })?;
        copied.or_failure("out")
    })
}

/// The summary of any model's plan from its report and shares.
pub(crate) fn plan_summary(
    report: &divload::Report<f64>,
    shares: &[divload::doc::Share],
) -> divload_plan_summary {
    let mut method = [0 as c_char; DIVLOAD_METHOD_NAME_LEN];
    let name = report.method.name().as_bytes();
    // One byte kept for the NUL; every name is shorter (`Method::MAX_NAME_LEN`, checked
    // where each method is declared, and against this buffer below).
    const _: () = assert!(divload::Method::MAX_NAME_LEN < DIVLOAD_METHOD_NAME_LEN);
    for (m, &b) in method.iter_mut().zip(name.iter().take(DIVLOAD_METHOD_NAME_LEN - 1)) {
        *m = b as c_char;
    }
    divload_plan_summary {
        makespan: report.makespan,
        lower_bound: report.lower_bound,
        gap: report.gap(),
        exact: report.exact,
        workers: shares.len(),
        participating: shares.iter().filter(|s| s.position.is_some()).count(),
        items: shares.iter().fold(0u64, |a, s| a.saturating_add(s.count)),
        method,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::*;
    use std::ffi::CStr;

    const EMPTY_SUMMARY: divload_plan_summary = divload_plan_summary {
        makespan: -1.0,
        lower_bound: -1.0,
        gap: -1.0,
        exact: false,
        workers: 0,
        participating: 0,
        items: 0,
        method: [0; DIVLOAD_METHOD_NAME_LEN],
    };

    fn plan(
        text: &str,
        out: &mut [divload_share],
        n: &mut usize,
        s: &mut divload_plan_summary,
    ) -> divload_status {
        unsafe { divload_plan_shares(text.as_ptr().cast(), text.len(), out.as_mut_ptr(), out.len(), n, s) }
    }

    fn method(s: &divload_plan_summary) -> String {
        unsafe { CStr::from_ptr(s.method.as_ptr()) }.to_str().unwrap().to_string()
    }

    /// The shares of a document are its result document's rows (count, displacement),
    /// positions are the rows' order among the workers placed, blocks follow each other
    /// in position order, and the summary is the document's. Returns the shares.
    fn check_shares(text: &str, what: &str) -> Vec<divload_share> {
        let doc: serde_json::Value =
            serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).ok().unwrap()).unwrap();
        let mut out = vec![divload_share { count: 9, displacement: 9, position: 9 }; 4096];
        let (mut n, mut s) = (0usize, EMPTY_SUMMARY);
        assert_eq!(plan(text, &mut out, &mut n, &mut s), DIVLOAD_OK, "{what}");
        let out = &out[..n];
        let rows = doc["plan"].as_array().unwrap();
        assert_eq!(s.items, out.iter().map(|o| o.count).sum::<u64>(), "{what}");
        // serde_json's default number parsing may be an ulp off the shortest text.
        let near = |a: f64, b: &serde_json::Value| (a - b.as_f64().unwrap()).abs() <= 1e-14 * a.abs();
        assert!(near(s.makespan, &doc["makespan"]), "{what}");
        assert!(near(s.lower_bound, &doc["lower_bound"]), "{what}");
        assert_eq!(method(&s), doc["method"].as_str().unwrap(), "{what}");
        assert_eq!(s.workers, n);
        let mut placed: Vec<&divload_share> = out.iter().filter(|o| o.position >= 0).collect();
        placed.sort_unstable_by_key(|o| o.position);
        assert!(placed.iter().enumerate().all(|(k, o)| o.position == k as i64), "{what}");
        assert_eq!(placed.len(), s.participating, "{what}");
        let mut next = 0;
        for o in placed.iter().filter(|o| o.count > 0) {
            assert_eq!(o.displacement, next, "{what}: blocks follow each other in position order");
            next += o.count;
        }
        for row in rows {
            let rank = row["rank"].as_u64().unwrap() as usize;
            let o = out[rank];
            assert_eq!(o.count, row["count"].as_u64().unwrap(), "{what} rank {rank}");
            if o.count > 0 {
                assert_eq!(o.displacement, row["displacement"].as_u64().unwrap(), "{what} rank {rank}");
            }
        }
        // Left out: exactly the workers the document's plan does not list (the ring)
        // or marks as not taking part.
        for (rank, o) in out.iter().enumerate() {
            let row = rows.iter().find(|r| r["rank"].as_u64() == Some(rank as u64));
            let out_of_plan = row.is_none_or(|r| r.get("participates").is_some_and(|p| p == false));
            assert_eq!(o.position < 0, out_of_plan, "{what} rank {rank}");
        }
        out.to_vec()
    }

    #[test]
    fn every_models_shares_are_its_documents_plan() {
        for model in divload::doc::MODELS {
            check_shares(model.example(), model.name);
        }
    }

    /// Clusters of one processor between clusters of eight: the ring's order is not the
    /// document's, and the singletons are left out.
    #[test]
    fn a_multicluster_ring_places_its_clusters_in_ring_order() {
        let doc = r#"{"model": "multicluster", "clusters": [{"name": "a", "processors": 8},
            {"name": "x", "processors": 1}, {"name": "b", "processors": 8}, {"name": "y", "processors": 1},
            {"name": "c", "processors": 8}],
            "links": {"fast": {"latency": 45e-6, "overhead": 5e-6, "gap": 0.05e-6},
                      "slow": {"latency": 400e-6, "overhead": 10e-6, "gap": 0.5e-6}},
            "application": {"pattern": "ring", "lattice": 2048, "flip_time": 0.55e-6, "steps": 20}}"#;
        let out = check_shares(doc, "multicluster with singletons");
        let left_out: Vec<usize> = (0..out.len()).filter(|&k| out[k].position < 0).collect();
        assert_eq!(left_out, [8, 17], "the singletons");
    }

    #[test]
    fn a_ring_leaves_out_the_processors_off_it() {
        // The third processor is far too slow and far away: the ring is the first two.
        let doc = r#"{"model": "ring", "work": 100, "boundary": 1, "solver": "exact",
            "processors": [{"name": "a", "cycle_time": 1}, {"name": "b", "cycle_time": 1},
                           {"name": "c", "cycle_time": 1000}],
            "cost_matrix": [[0, 0.01, 100], [0.01, 0, 100], [100, 100, 0]]}"#;
        let (mut out, mut n, mut s) = ([divload_share::default(); 3], 0usize, EMPTY_SUMMARY);
        assert_eq!(plan(doc, &mut out, &mut n, &mut s), DIVLOAD_OK);
        assert_eq!(n, 3);
        assert_eq!(out[2], divload_share { count: 0, displacement: 0, position: -1 });
        assert_eq!(out[0].count + out[1].count, 100);
        assert_eq!((s.participating, s.items, s.exact), (2, 100, true));
        assert_eq!(method(&s), "exhaustive");
        let mut positions = [out[0].position, out[1].position];
        positions.sort_unstable();
        assert_eq!(positions, [0, 1]);
        // Blocks follow the ring order.
        let first = if out[0].position == 0 { out[0] } else { out[1] };
        assert_eq!(first.displacement, 0);
    }

    #[test]
    fn too_small_null_and_misaligned() {
        let text = divload::doc::MODELS.iter().find(|m| m.name == "multicluster").unwrap().example();
        let (mut out, mut n, mut s) = ([divload_share::default(); 4], 0usize, EMPTY_SUMMARY);
        assert_eq!(plan(text, &mut out, &mut n, &mut s), DIVLOAD_BUFFER_TOO_SMALL);
        assert_eq!(n, 16);
        assert_eq!(out, [divload_share::default(); 4]);
        assert_eq!(s, EMPTY_SUMMARY);
        let null =
            unsafe { divload_plan_shares(std::ptr::null(), 0, out.as_mut_ptr(), out.len(), &mut n, &mut s) };
        assert_eq!(null, DIVLOAD_NULL_PARAMETER);
        let null = unsafe {
            divload_plan_shares(
                text.as_ptr().cast(),
                text.len(),
                out.as_mut_ptr(),
                4,
                std::ptr::null_mut(),
                &mut s,
            )
        };
        assert_eq!(null, DIVLOAD_NULL_PARAMETER);
        // Eight-byte aligned storage larger than a summary: one byte in, the pointer is
        // misaligned whatever address the buffer gets (a byte array could land one below
        // an aligned address and make it aligned, with too few bytes behind it).
        let mut raw = [0u64; 2 + std::mem::size_of::<divload_plan_summary>() / 8];
        let odd = unsafe { raw.as_mut_ptr().cast::<u8>().add(1) }.cast::<divload_plan_summary>();
        let mut big = [divload_share::default(); 16];
        let st = unsafe {
            divload_plan_shares(text.as_ptr().cast(), text.len(), big.as_mut_ptr(), 16, &mut n, odd)
        };
        assert_eq!(st, DIVLOAD_INVALID_INPUT);
        assert_eq!(big, [divload_share::default(); 16]);
        let bad = r#"{"model": "ring", "work": 0}"#;
        assert_eq!(plan(bad, &mut big, &mut n, &mut s), DIVLOAD_JSON);
        // A summary is optional.
        let st = unsafe {
            divload_plan_shares(
                text.as_ptr().cast(),
                text.len(),
                big.as_mut_ptr(),
                16,
                &mut n,
                std::ptr::null_mut(),
            )
        };
        assert_eq!((st, n), (DIVLOAD_OK, 16));
        assert_eq!(big.iter().map(|o| o.count).sum::<u64>(), 8192);
    }
}
