//! The multi-cluster plan with typed outputs (heien): `divload_plan_multicluster`, each
//! processor's cluster, count and displacement for MPI codes.

use std::ffi::c_char;

use crate::boundary::{boundary, check_raw, input, output, Failure};
use crate::divload_status::{self, *};
use crate::documents::Copied;

/// One processor of a multi-cluster plan (`divload_plan_multicluster`), in the document's
/// order: the clusters as listed in `clusters`, the processors of each in order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_multicluster_processor {
    /// Its cluster's index in the document's `clusters`.
    pub cluster: usize,
    /// Its index within the cluster, `0 .. processors - 1` (along the ring).
    pub index: u32,
    /// `r`: its fast links (ring: fast neighbours 0 to 2; all-to-all: cluster size - 1).
    pub fast_links: u32,
    /// Load units it gets (lattice columns, objects, custom units).
    pub count: u64,
    /// Its first unit: blocks are contiguous along the ring (processors in cluster
    /// order, clusters in the plan's ring order), so a ring code's neighbours are the
    /// processors holding the blocks just before and after its own.
    pub displacement: u64,
    /// Its predicted step time with `count` units (seconds; 0 when left out).
    pub step_time: f64,
    /// `false` when the plan leaves it out of the run (count 0).
    pub participates: bool,
}

/// What a multi-cluster plan achieves. Times in seconds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_multicluster_summary {
    /// Load units split: the sum of the counts.
    pub units: u64,
    /// Processors in the document (entries written).
    pub processors: usize,
    /// Processors that take part.
    pub participating: u64,
    /// Clusters left out of the run entirely.
    pub dropped_clusters: usize,
    /// Predicted time of the whole run with the integer counts
    /// (`iterations * step_time`).
    pub makespan: f64,
    /// Run time of the rational BIASED split.
    pub rational_makespan: f64,
    /// A lower bound on every integer plan's run time for the processors taking part.
    pub lower_bound: f64,
    /// The integer plan's step time: the slowest processor's.
    pub step_time: f64,
    /// The rational BIASED step time.
    pub rational_step_time: f64,
    /// The EVEN split's step time on the whole platform.
    pub even_step_time: f64,
    /// The EVEN split's run time.
    pub even_makespan: f64,
    /// Steps in the run.
    pub iterations: f64,
    /// `true` when the counts are proven optimal for the model.
    pub exact: bool,
}

/// Plans a multi-cluster document (`"model": "multicluster"`, the JSON format of
/// `divload plan`; see docs/cli.md) and writes one `divload_multicluster_processor` per
/// processor into `out`, in the document's order (clusters as listed, the processors of
/// each in order), and the summary into `summary` (which may be null). `what_if`
/// additions in the document are checked but not planned (`divload_plan_json` answers
/// them).
///
/// On `DIVLOAD_OK`, `*out_n` is the number of processors written. On
/// `DIVLOAD_BUFFER_TOO_SMALL`, nothing is written to `out` and `*out_n` is the number of
/// processors the document has: call again with that many. Returns
/// `DIVLOAD_NULL_PARAMETER` for a null `json`, `out` or `out_n`, `DIVLOAD_JSON` for
/// malformed JSON, a document of another model or a value out of range (the message
/// names the key), `DIVLOAD_INVALID_INPUT` for a misaligned pointer, `DIVLOAD_OVERFLOW`
/// beyond the model's limits, `DIVLOAD_OUT_OF_MEMORY`. Nothing is written unless the
/// result is `DIVLOAD_OK` (or `*out_n` alone, for `DIVLOAD_BUFFER_TOO_SMALL`).
///
/// # Safety
///
/// `json` must be valid for `json_len` bytes, `out` for `out_len` elements, `out_n` for
/// one `size_t`, `summary` null or valid for one element.
#[no_mangle]
pub unsafe extern "C" fn divload_plan_multicluster(
    json: *const c_char,
    json_len: usize,
    out: *mut divload_multicluster_processor,
    out_len: usize,
    out_n: *mut usize,
    summary: *mut divload_multicluster_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let text = unsafe { input(json.cast::<u8>(), json_len, "json")? };
        let out = unsafe { output(out, out_len, "out")? };
        check_raw(out_n.cast_const(), 1, "out_n")?;
        if !summary.is_null() && !summary.is_aligned() {
            return Err(Failure::new(
                DIVLOAD_INVALID_INPUT,
                "summary: pointer is not aligned for its type".to_string(),
            ));
        }
        // The multicluster reader refuses a document of another model (`model: must be
        // "multicluster"`), naming the key. The processors are written from the arena,
        // not from a copy (see `divload_plan_json`).
        let copied = divload_host::with_memory(None, |m| {
            let (processors, s) = divload::doc::multicluster::processors(text, m)?;
            if out.len() < processors.len() {
                // SAFETY: non-null and aligned (checked above); validity is the caller's contract.
                unsafe { out_n.write(processors.len()) };
                return Ok(Copied::TooSmall { needed: processors.len(), got: out.len() });
            }
            for (o, p) in out.iter_mut().zip(processors) {
                *o = divload_multicluster_processor {
                    cluster: p.cluster,
                    index: p.index,
                    fast_links: p.fast_links,
                    count: p.count,
                    displacement: p.displacement,
                    step_time: p.step_time,
                    participates: p.participates,
                };
            }
            // SAFETY: as above.
            unsafe { out_n.write(processors.len()) };
            if !summary.is_null() {
                let value = divload_multicluster_summary {
                    units: s.units,
                    processors: processors.len(),
                    participating: s.participating,
                    dropped_clusters: s.dropped_clusters,
                    makespan: s.report.makespan,
                    rational_makespan: s.rational_makespan,
                    lower_bound: s.report.lower_bound,
                    step_time: s.step_time,
                    rational_step_time: s.rational_step_time,
                    even_step_time: s.even_step_time,
                    even_makespan: s.even_makespan,
                    iterations: s.iterations,
                    exact: s.report.exact,
                };
                // SAFETY: non-null and aligned (checked above); validity is the caller's contract.
                unsafe { summary.write(value) };
            }
            Ok(Copied::Done)
        })?;
        copied.or_failure("out")
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::*;
    use std::ffi::CStr;

    fn last_error() -> String {
        let mut buf = [0 as c_char; 512];
        unsafe { divload_last_error_message(buf.as_mut_ptr(), buf.len()) };
        unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string()
    }

    fn example() -> &'static str {
        divload::doc::MODELS.iter().find(|m| m.name == "multicluster").unwrap().example()
    }

    fn plan(
        text: &str,
        out: &mut [divload_multicluster_processor],
        n: &mut usize,
        s: &mut divload_multicluster_summary,
    ) -> divload_status {
        unsafe {
            divload_plan_multicluster(text.as_ptr().cast(), text.len(), out.as_mut_ptr(), out.len(), n, s)
        }
    }

    #[test]
    fn counts_match_the_result_document() {
        let (mut out, mut n, mut s) = (
            [divload_multicluster_processor::default(); 16],
            0usize,
            divload_multicluster_summary::default(),
        );
        assert_eq!(plan(example(), &mut out, &mut n, &mut s), DIVLOAD_OK);
        assert_eq!((n, s.processors, s.units), (16, 16, 8192));
        assert_eq!(out.iter().map(|p| p.count).sum::<u64>(), 8192);
        // heien Table 4, S = 8192 base: 54.42 s.
        assert!((s.rational_makespan - 54.4154).abs() < 1e-3, "{}", s.rational_makespan);
        assert!(s.lower_bound <= s.makespan && s.makespan < s.even_makespan);
        let doc = String::from_utf8(divload_host::plan_json(example().as_bytes()).ok().unwrap()).unwrap();
        for (rank, p) in out.iter().enumerate() {
            assert_eq!((p.cluster, p.index as usize), (rank / 8, rank % 8));
            let row = format!(
                "\"rank\":{rank},\"fast_links\":{},\"count\":{},\"displacement\":{},\"step_time\":{},",
                p.fast_links, p.count, p.displacement, p.step_time
            );
            assert!(doc.contains(&row), "{row}");
        }
        // A null summary is allowed.
        let st = unsafe {
            divload_plan_multicluster(
                example().as_ptr().cast(),
                example().len(),
                out.as_mut_ptr(),
                16,
                &mut n,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(st, DIVLOAD_OK);
    }

    #[test]
    fn bad_input_leaves_the_outputs() {
        let mark = divload_multicluster_processor { count: 77, ..Default::default() };
        let (mut out, mut n, mut s) = ([mark; 16], 5usize, divload_multicluster_summary::default());
        let s0 = s;

        assert_eq!(plan(example(), &mut out[..15], &mut n, &mut s), DIVLOAD_BUFFER_TOO_SMALL);
        assert_eq!(n, 16, "the processors needed");
        assert_eq!(last_error(), "out: buffer too small, need 16, got 15");

        n = 5;
        let truncated = &example()[..example().len() - 3];
        assert_eq!(plan(truncated, &mut out, &mut n, &mut s), DIVLOAD_JSON);
        assert!(last_error().contains("truncated document"), "{}", last_error());
        let zero = example().replacen("\"processors\": 8", "\"processors\": 0", 1);
        assert_eq!(plan(&zero, &mut out, &mut n, &mut s), DIVLOAD_JSON);
        assert_eq!(last_error(), "platform JSON: clusters[0].processors: must be in 1..=16777216");
        let returns = r#"{"model": "returns", "items": 3, "workers": []}"#;
        assert_eq!(plan(returns, &mut out, &mut n, &mut s), DIVLOAD_JSON);
        assert!(
            last_error().contains("model: must be \"multicluster\" for this entry point"),
            "{}",
            last_error()
        );

        let st =
            unsafe { divload_plan_multicluster(std::ptr::null(), 0, out.as_mut_ptr(), 16, &mut n, &mut s) };
        assert_eq!((st, last_error().as_str()), (DIVLOAD_NULL_PARAMETER, "json: must not be a null pointer"));
        let text = example();
        let st = unsafe {
            divload_plan_multicluster(
                text.as_ptr().cast(),
                text.len(),
                std::ptr::null_mut(),
                16,
                &mut n,
                &mut s,
            )
        };
        assert_eq!((st, last_error().as_str()), (DIVLOAD_NULL_PARAMETER, "out: must not be a null pointer"));
        let st = unsafe {
            divload_plan_multicluster(
                text.as_ptr().cast(),
                text.len(),
                out.as_mut_ptr(),
                16,
                std::ptr::null_mut(),
                &mut s,
            )
        };
        assert_eq!(
            (st, last_error().as_str()),
            (DIVLOAD_NULL_PARAMETER, "out_n: must not be a null pointer")
        );
        let mut raw = [0u64; 32];
        let misaligned = raw.as_mut_ptr().cast::<u8>().wrapping_add(1).cast::<divload_multicluster_summary>();
        let st = unsafe {
            divload_plan_multicluster(
                text.as_ptr().cast(),
                text.len(),
                out.as_mut_ptr(),
                16,
                &mut n,
                misaligned,
            )
        };
        assert_eq!(
            (st, last_error().as_str()),
            (DIVLOAD_INVALID_INPUT, "summary: pointer is not aligned for its type")
        );
        assert!(raw.iter().all(|&b| b == 0));

        assert!(out.iter().all(|p| *p == mark));
        assert_eq!(n, 5);
        assert_eq!(s, s0);
    }
}
