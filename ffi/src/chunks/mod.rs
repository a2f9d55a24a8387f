//! Plans sent in installments, for a pipelined scatter: the chunks in send order, from a
//! document (`divload_plan_chunks`) or from typed arrays (`divload_plan_installments`).
//!
//! The typed call writes the document the command line would read and plans it through
//! the same path, so a C caller, the command line and the MPI helpers get the same plan to
//! the bit, the one-round plan it is compared with included (the numbers are written with
//! `{:e}`, the shortest text that reads back to the same `f64`).

use std::ffi::c_char;
use std::fmt::Write as _;

use divload::scatter::installments::MAX_INSTALLMENTS;
use divload::Worker;

#[cfg(test)]
mod tests;

use super::{
    boundary, check_raw, divload_plan_summary, divload_status, divload_worker, input, optional_output,
    output, plan_summary, Copied, Failure, DIVLOAD_INVALID_INPUT, DIVLOAD_OUT_OF_MEMORY,
    DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_ROOT_MODE_OVERLAP,
};

/// The root only distributes: it sends every chunk and computes nothing (an I/O rank).
/// Installment plans only (`divload_plan_installments`).
pub const DIVLOAD_ROOT_MODE_DISTRIBUTE_ONLY: u32 = 2;

/// Installments per worker: as many as help (`divload_installment_options.installments`).
pub const DIVLOAD_INSTALLMENTS_AUTO: u32 = 0;

/// Most chunks (besides the root's share) a plan with installments sizes by its linear
/// program, when at most 64 workers compute. Beyond, or where caps need more rounds than
/// its chunks hold, a plan has one chunk per worker, or several rounds of them (at most
/// 16): `divload_installment_chunks_max` gives the most chunks any plan over a number of
/// workers has.
pub const DIVLOAD_MAX_CHUNKS: usize = 64;
const _: () = assert!(DIVLOAD_MAX_CHUNKS == divload::scatter::installments::MAX_CHUNKS);

/// The most chunks a plan with installments over `workers_len` workers (the root included)
/// has, the root's share counted: an `out` of this many always suffices for
/// `divload_plan_chunks` and `divload_plan_installments`: the LP's 64 chunks, or up to 16
/// rounds of every worker but the root (at most 2^21 chunks in all), and the root's share.
/// 0 only if that overflows `size_t`.
#[no_mangle]
pub extern "C" fn divload_installment_chunks_max(workers_len: usize) -> usize {
    divload::scatter::installments::memory_for(
        workers_len,
        divload::scatter::installments::Installments::Auto,
    )
    .map_or(0, |s| s.chunks)
}

/// One message of a plan sent in installments, in send order. Times in seconds from the
/// start of the scatter.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_chunk {
    /// The worker that receives and computes it (its rank); the root for its own share,
    /// which is not sent.
    pub rank: usize,
    /// Items in it (> 0).
    pub count: u64,
    /// Its first item in the root's buffer. A worker's chunks are consecutive parts of
    /// one block, so it can receive them all into one buffer.
    pub displacement: u64,
    /// When the root starts sending it.
    pub send_start: f64,
    /// When it has arrived.
    pub send_end: f64,
    /// When its worker starts computing it.
    pub compute_start: f64,
    /// When its worker has computed it.
    pub compute_end: f64,
}

/// Options of `divload_plan_installments`. All zeros are the defaults (the root computes
/// after sending, as many installments as help, no deadline); a null pointer means the
/// defaults too.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_installment_options {
    /// `DIVLOAD_ROOT_MODE_AFTER_SEND`, `_OVERLAP` or `_DISTRIBUTE_ONLY`.
    pub root_mode: u32,
    /// At most this many installments per worker (1 to 64), or
    /// `DIVLOAD_INSTALLMENTS_AUTO` (0).
    pub installments: u32,
    /// Plan the most whole items finished by this time (seconds, > 0) instead of all of
    /// them; 0 for no deadline. The summary's `items` is then what finishes in time.
    pub deadline: f64,
}

/// Plans a document with installments (a scatter document with `"installments"`,
/// `"deadline"`, a worker's `"max_items"` or `"available_at"`, or `"root_mode":
/// "distribute_only"`; the JSON format of `divload plan`) and writes its chunks into `out`
/// in send order, and the summary (as `divload_plan_shares` writes it) into `summary`
/// (which may be null). What a pipelined scatter posts.
///
/// On `DIVLOAD_OK`, `*out_n` is the number of chunks written. On
/// `DIVLOAD_BUFFER_TOO_SMALL`, nothing is written to `out` and `*out_n` is the number of
/// chunks the plan has: call again with that many (or give
/// `divload_installment_chunks_max(workers)` at once). Returns `DIVLOAD_NULL_PARAMETER` for a null `json`, `out` or `out_n`,
/// `DIVLOAD_JSON` for malformed JSON or a value out of range, `DIVLOAD_INVALID_INPUT` for
/// a document whose plan sends each worker its share in one message (plan it with
/// `divload_plan_shares`) or a misaligned pointer, and otherwise as
/// `divload_plan_shares`. Nothing is written unless the result is `DIVLOAD_OK` (or
/// `*out_n` alone, for `DIVLOAD_BUFFER_TOO_SMALL`).
///
/// # Safety
///
/// `json` must be valid for `json_len` bytes, `out` for `out_len` elements, `out_n` for
/// one `size_t`, `summary` null or valid for one element.
#[no_mangle]
pub unsafe extern "C" fn divload_plan_chunks(
    json: *const c_char,
    json_len: usize,
    out: *mut divload_chunk,
    out_len: usize,
    out_n: *mut usize,
    summary: *mut divload_plan_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let text = unsafe { input(json.cast::<u8>(), json_len, "json")? };
        // SAFETY: as above.
        let out = unsafe { output(out, out_len, "out")? };
        check_raw(out_n.cast_const(), 1, "out_n")?;
        let summary = optional_output(summary, "summary")?;
        // SAFETY: checked above; validity is the caller's contract.
        unsafe { chunks_of(text, out, out_n, summary) }
    })
}

/// Plans `items` items over `workers` (rank `r`'s costs at `workers[r]`) held by `root`,
/// sent in installments, and writes the chunks into `out` in send order and the summary
/// into `summary` (which may be null), as `divload_plan_chunks` does for the same
/// platform written as a document.
///
/// `max_items` (null for no caps) holds, per worker, the most items it may hold in one
/// installment (`UINT64_MAX`: no cap). `available_at` (null for all 0) holds, per worker,
/// when it may start computing (seconds, finite and >= 0). The root's `comm_latency` and
/// `comm_per_item` are replaced by 0 before any check (its share is not sent), as in
/// `divload_plan`.
///
/// Returns `DIVLOAD_NULL_PARAMETER` for a null `workers`, `out` or `out_n`,
/// `DIVLOAD_INVALID_INPUT` for zero workers or items (without a deadline), a root out of
/// range, a bad cost, release time, option or deadline, caps that cannot hold the items
/// (the message names their capacity) or a misaligned pointer, `DIVLOAD_BUFFER_TOO_SMALL`
/// as `divload_plan_chunks`, `DIVLOAD_OVERFLOW` beyond 2^53 items or the workers' limit,
/// `DIVLOAD_OUT_OF_MEMORY`. Nothing is written unless the result is `DIVLOAD_OK`.
///
/// # Safety
///
/// `workers` must be valid for `workers_len` elements, `max_items` and `available_at`
/// null or valid for `workers_len` elements, `options` null or valid for one element,
/// `out` for `out_len` elements, `out_n` for one `size_t`, `summary` null or valid for one
/// element.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn divload_plan_installments(
    workers: *const divload_worker,
    workers_len: usize,
    root: usize,
    items: u64,
    max_items: *const u64,
    available_at: *const f64,
    options: *const divload_installment_options,
    out: *mut divload_chunk,
    out_len: usize,
    out_n: *mut usize,
    summary: *mut divload_plan_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let workers = unsafe { input(workers, workers_len, "workers")? };
        // SAFETY: as above; null means none.
        let caps = unsafe { optional_input(max_items, workers_len, "max_items")? };
        // SAFETY: as above.
        let release = unsafe { optional_input(available_at, workers_len, "available_at")? };
        let options = if options.is_null() {
            divload_installment_options::default()
        } else {
            // SAFETY: as above.
            let one = unsafe { input(options, 1, "options")? };
            one.first().copied().unwrap_or_default()
        };
        // SAFETY: as above.
        let out = unsafe { output(out, out_len, "out")? };
        check_raw(out_n.cast_const(), 1, "out_n")?;
        let summary = optional_output(summary, "summary")?;
        let text = document(workers, root, items, caps, release, &options)?;
        // SAFETY: checked above; validity is the caller's contract.
        unsafe { chunks_of(text.as_bytes(), out, out_n, summary) }
    })
}

/// # Safety
///
/// `ptr` must be null or valid for reads of `len` elements.
unsafe fn optional_input<'a, T>(ptr: *const T, len: usize, name: &str) -> Result<Option<&'a [T]>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    unsafe { input(ptr, len, name) }.map(Some)
}

/// Plans `text` and writes its chunks.
///
/// # Safety
///
/// `out_n` and `summary` come from `check_raw` and `optional_output` and are valid for
/// one write.
unsafe fn chunks_of(
    text: &[u8],
    out: &mut [divload_chunk],
    out_n: *mut usize,
    summary: Option<*mut divload_plan_summary>,
) -> Result<(), Failure> {
    let copied = divload_host::with_plan(text, None, |planned| {
        let pieces = planned.pieces;
        if pieces.is_empty() {
            return Ok(Err(Failure::new(
                DIVLOAD_INVALID_INPUT,
                "json: this plan sends each worker its share in one message (no \"installments\", \
                 \"deadline\", \"max_items\", \"available_at\" or \"distribute_only\"); give \"installments\" \
                 or plan it with divload_plan_shares"
                    .to_string(),
            )));
        }
        // SAFETY: non-null and aligned (checked by the caller); validity is the caller's contract.
        unsafe { out_n.write(pieces.len()) };
        if out.len() < pieces.len() {
            return Ok(Ok(Copied::TooSmall { needed: pieces.len(), got: out.len() }));
        }
        for (o, p) in out.iter_mut().zip(pieces) {
            *o = divload_chunk {
                rank: p.worker,
                count: p.count,
                displacement: p.displacement,
                send_start: p.send_start,
                send_end: p.send_end,
                compute_start: p.compute_start,
                compute_end: p.compute_end,
            };
        }
        if let Some(summary) = summary {
            // SAFETY: non-null and aligned (`optional_output`); validity is the caller's contract.
            unsafe { summary.write(plan_summary(&planned.report, planned.shares)) };
        }
        Ok(Ok(Copied::Done))
    })?;
    copied?.or_failure("out")
}

/// The document `divload_plan_installments` plans: the typed arrays as `divload plan`
/// reads them, workers named by rank. A document without `"model"` is the registry's
/// first model, the star these arrays describe.
fn document(
    workers: &[divload_worker],
    root: usize,
    items: u64,
    caps: Option<&[u64]>,
    release: Option<&[f64]>,
    options: &divload_installment_options,
) -> Result<String, Failure> {
    let invalid = |message: String| Failure::new(DIVLOAD_INVALID_INPUT, message);
    if workers.is_empty() {
        return Err(invalid("workers_len: must be at least 1, got 0".to_string()));
    }
    if root >= workers.len() {
        return Err(invalid(format!("root: must be a worker's index, below {}, got {root}", workers.len())));
    }
    let root_mode = match options.root_mode {
        DIVLOAD_ROOT_MODE_AFTER_SEND => "after_send",
        DIVLOAD_ROOT_MODE_OVERLAP => "overlap",
        DIVLOAD_ROOT_MODE_DISTRIBUTE_ONLY => "distribute_only",
        v => {
            return Err(invalid(format!(
                "options.root_mode: must be 0 (AFTER_SEND), 1 (OVERLAP) or 2 (DISTRIBUTE_ONLY), got {v}"
            )))
        }
    };
    let installments = match options.installments {
        DIVLOAD_INSTALLMENTS_AUTO => "\"auto\"".to_string(),
        n if n <= MAX_INSTALLMENTS => n.to_string(),
        n => {
            return Err(invalid(format!(
                "options.installments: must be 0 (AUTO) or 1 to {MAX_INSTALLMENTS}, got {n}"
            )))
        }
    };
    let d = options.deadline;
    if !(d.is_finite() && d >= 0.0) {
        return Err(invalid(format!("options.deadline: must be finite and > 0, or 0 for none, got {d}")));
    }
    // About 200 bytes a worker; the reservation is fallible, so a huge platform is an
    // error rather than an abort.
    let mut text = String::new();
    text.try_reserve(workers.len().saturating_mul(200).saturating_add(200)).map_err(|_| {
        Failure::new(DIVLOAD_OUT_OF_MEMORY, "workers: no memory for the platform document".into())
    })?;
    let _ = write!(
        text,
        "{{\"items\":{items},\"root\":\"r{root}\",\"root_mode\":\"{root_mode}\",\
         \"installments\":{installments}"
    );
    if d > 0.0 {
        let _ = write!(text, ",\"deadline\":{d:e}");
    }
    text.push_str(",\"workers\":[");
    for (k, w) in workers.iter().enumerate() {
        let (comm_latency, comm_per_item) =
            if k == root { (0.0, 0.0) } else { (w.comm_latency, w.comm_per_item) };
        // The core's checks and messages ("worker 3: comp_per_item must be ..."), before any
        // number is written: JSON has no NaN or infinity.
        Worker::<f64>::try_from_f64(k, comm_latency, comm_per_item, w.comp_latency, w.comp_per_item)?;
        if k > 0 {
            text.push(',');
        }
        let _ = write!(
            text,
            "{{\"name\":\"r{k}\",\"comm_latency\":{comm_latency:e},\"comm_per_item\":{comm_per_item:e},\
             \"comp_latency\":{:e},\"comp_per_item\":{:e}",
            w.comp_latency, w.comp_per_item
        );
        if let Some(&cap) = caps.and_then(|c| c.get(k)) {
            if cap != u64::MAX {
                let _ = write!(text, ",\"max_items\":{cap}");
            }
        }
        if let Some(&r) = release.and_then(|r| r.get(k)) {
            if !(r.is_finite() && r >= 0.0) {
                return Err(invalid(format!("available_at[{k}]: must be finite and >= 0, got {r}")));
            }
            let _ = write!(text, ",\"available_at\":{r:e}");
        }
        text.push('}');
    }
    text.push_str("]}");
    Ok(text)
}
