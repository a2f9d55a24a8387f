//! The C library's entry points called as C would, from fuzzed bytes: the document entry
//! point with any buffer size, the typed multi-cluster plan of a document into any number
//! of processor slots, any model's shares (`divload_plan_shares`) into short, null or
//! exact buffers, and the typed `divload_plan_counts` with workers made of
//! arbitrary bit patterns (NaN, infinities, negative zero), any root, any item count (also
//! beyond `INT_MAX`) and any buffer lengths, null included. Every call must return a status
//! and never crash; on success the counts must add up.
#![no_main]

use std::ffi::c_int;

use divload_c::{
    divload_multicluster_processor, divload_multicluster_summary, divload_plan_counts, divload_plan_json,
    divload_plan_multicluster, divload_plan_returns, divload_plan_returns_scenario, divload_plan_shares,
    divload_plan_summary, divload_return_assignment, divload_return_worker, divload_returns_summary,
    divload_share, divload_status, divload_worker, DIVLOAD_METHOD_NAME_LEN,
};
use libfuzzer_sys::fuzz_target;

fn f64_at(bytes: &[u8], i: usize) -> f64 {
    let mut b = [0u8; 8];
    for (k, slot) in b.iter_mut().enumerate() {
        *slot = bytes.get(i * 8 + k).copied().unwrap_or(0);
    }
    f64::from_bits(u64::from_le_bytes(b))
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    if selector & 1 == 0 {
        if !divload_fuzz::affordable(rest) {
            return;
        }
        let mut out = vec![0u8; usize::from(selector) * 64];
        let mut n = 0usize;
        // SAFETY: every pointer is valid for the length passed with it.
        let st = unsafe {
            divload_plan_json(rest.as_ptr().cast(), rest.len(), out.as_mut_ptr().cast(), out.len(), &mut n)
        };
        if st == divload_status::DIVLOAD_OK {
            divload_fuzz::check_result(&out[..n]);
        }
        return;
    }
    if selector & 0x0f == 0x0d {
        shares(selector, rest);
        return;
    }
    if selector & 8 != 0 {
        if !divload_fuzz::affordable(rest) {
            return;
        }
        let mut out = vec![divload_multicluster_processor::default(); usize::from(selector >> 4) * 4];
        let mut summary = divload_multicluster_summary::default();
        let mut n = 0usize;
        // SAFETY: every pointer is valid for the length passed with it.
        let st = unsafe {
            divload_plan_multicluster(
                rest.as_ptr().cast(),
                rest.len(),
                out.as_mut_ptr(),
                out.len(),
                &mut n,
                &mut summary,
            )
        };
        if st == divload_status::DIVLOAD_OK {
            let sum: u64 = out[..n].iter().map(|p| p.count).sum();
            assert_eq!(sum, summary.units, "counts must add up to the units");
        }
        return;
    }
    if selector & 0xf0 == 0xf0 {
        return_messages(selector, rest);
        return;
    }
    // Workers from 32-byte records, capped so a run stays fast.
    let p = (rest.len() / 32).min(64);
    let workers: Vec<divload_worker> = (0..p)
        .map(|i| divload_worker {
            comm_latency: f64_at(rest, 4 * i),
            comm_per_item: f64_at(rest, 4 * i + 1),
            comp_latency: f64_at(rest, 4 * i + 2),
            comp_per_item: f64_at(rest, 4 * i + 3),
        })
        .collect();
    let tail = f64_at(rest, 4 * p).to_bits();
    let items = tail >> (selector >> 2);
    let root = (tail as usize) % (p + 2);
    let short = usize::from(selector & 2 != 0);
    let (mut counts, mut displs) = (vec![0 as c_int; p], vec![0 as c_int; p]);
    let len = p.saturating_sub(short);
    let workers_ptr = if p == 0 && selector & 4 != 0 { std::ptr::null() } else { workers.as_ptr() };
    // SAFETY: pointers are valid for the lengths passed (or null with length 0).
    let st = unsafe {
        divload_plan_counts(
            workers_ptr,
            p,
            root,
            items,
            std::ptr::null(),
            counts.as_mut_ptr(),
            len,
            displs.as_mut_ptr(),
            len,
            std::ptr::null_mut(),
        )
    };
    if st == divload_status::DIVLOAD_OK {
        let sum: i64 = counts.iter().map(|&c| i64::from(c)).sum();
        assert!(counts.iter().all(|&c| c >= 0));
        assert_eq!(u64::try_from(sum).ok(), Some(items), "counts must add up to the items");
    }
});

/// The return-message calls: workers from 24-byte records (c, w, d as bit patterns), at
/// most 6 so the exhaustive searches stay fast; then a scenario whose ranks come from the
/// bytes after them (any rank, repeated or out of range, any member count).
fn return_messages(selector: u8, rest: &[u8]) {
    let p = (rest.len() / 24).min(6);
    let workers: Vec<divload_return_worker> = (0..p)
        .map(|i| divload_return_worker {
            comm_per_item: f64_at(rest, 3 * i),
            comp_per_item: f64_at(rest, 3 * i + 1),
            return_per_item: f64_at(rest, 3 * i + 2),
        })
        .collect();
    let tail = &rest[(24 * p).min(rest.len())..];
    let items = f64_at(tail, 0).to_bits() >> (selector & 0x0e);
    let mut out = vec![divload_return_assignment::default(); p];
    let mut summary = divload_returns_summary::default();
    let schedule = u32::from(selector >> 1 & 3);
    let port = u32::from(selector >> 3 & 1);
    // SAFETY: every pointer is valid for the length passed with it.
    let st = unsafe {
        divload_plan_returns(
            workers.as_ptr(),
            p,
            items,
            schedule,
            port,
            out.as_mut_ptr(),
            out.len(),
            &mut summary,
        )
    };
    check_returns(st, &out, &summary);
    let ranks = tail.get(8..).unwrap_or_default();
    let members = ranks.len() / 2;
    let send: Vec<usize> = ranks[..members].iter().map(|&b| usize::from(b) % (p + 1)).collect();
    let ret: Vec<usize> = ranks[members..2 * members].iter().map(|&b| usize::from(b) % (p + 1)).collect();
    // SAFETY: as above.
    let st = unsafe {
        divload_plan_returns_scenario(
            workers.as_ptr(),
            p,
            items,
            port,
            send.as_ptr(),
            ret.as_ptr(),
            members,
            out.as_mut_ptr(),
            out.len(),
            &mut summary,
        )
    };
    check_returns(st, &out, &summary);
}

fn check_returns(st: divload_status, out: &[divload_return_assignment], summary: &divload_returns_summary) {
    if st != divload_status::DIVLOAD_OK {
        return;
    }
    let sum: u64 = out.iter().map(|a| a.count).sum();
    assert_eq!(sum, summary.items, "counts must add up to the items");
    assert!(summary.lower_bound <= summary.makespan, "lower bound above the makespan");
}

/// `divload_plan_shares` on any bytes as a document: `out` of `(selector >> 5)·8` slots
/// (null when none, which must be refused), `summary` null when bit 4 is set, `out_n`
/// null too when both are.
/// A short `out` must say how many slots the document needs, and a second call with
/// exactly that many must succeed. On success the shares must be a plan: counts adding
/// up to the items (units, work) of the same document's result from
/// `divload_plan_json`, the placed rows' positions `0..participating` with their
/// displacements contiguous in that order from 0, the rows left out at position -1 with
/// no items, and the summary counting the same.
fn shares(selector: u8, rest: &[u8]) {
    if !divload_fuzz::affordable(rest) {
        return;
    }
    let len = usize::from(selector >> 5) * 8;
    let no_summary = selector & 0x10 != 0;
    let mut out = vec![divload_share::default(); len];
    let (st, n, summary) = plan_shares(rest, &mut out, no_summary, no_summary && len == 0);
    if len == 0 {
        // A null `out` is refused even with length 0 (and so is a null `out_n`).
        assert_eq!(st, divload_status::DIVLOAD_NULL_PARAMETER, "a null out or out_n must be refused");
        return;
    }
    let (st, n, summary, out) = if st == divload_status::DIVLOAD_BUFFER_TOO_SMALL {
        assert!(n > len, "BUFFER_TOO_SMALL with {len} slots must ask for more, asked for {n}");
        if n > 4096 {
            return;
        }
        let mut exact = vec![divload_share::default(); n];
        let (st2, n2, summary) = plan_shares(rest, &mut exact, no_summary, false);
        assert_eq!(st2, divload_status::DIVLOAD_OK, "the size BUFFER_TOO_SMALL asked for must do");
        assert_eq!(n2, n, "the workers written must be those asked for");
        (st2, n2, summary, exact)
    } else {
        (st, n, summary, out)
    };
    if st != divload_status::DIVLOAD_OK {
        return;
    }
    let rows = &out[..n];
    let items: u64 = rows.iter().map(|s| s.count).sum();
    let mut placed: Vec<&divload_share> = rows.iter().filter(|s| s.position != -1).collect();
    for s in rows.iter().filter(|s| s.position == -1) {
        assert_eq!(s.count, 0, "a row left out (position -1) has items");
    }
    placed.sort_by_key(|s| s.position);
    let mut at = 0u64;
    for (k, s) in placed.iter().enumerate() {
        assert_eq!(s.position, k as i64, "positions must be 0..participating, each once");
        assert_eq!(s.displacement, at, "displacements must be contiguous in position order");
        at += s.count;
    }
    if let Some(summary) = summary {
        assert_eq!(summary.workers, n, "summary.workers");
        assert_eq!(summary.participating, placed.len(), "summary.participating");
        assert_eq!(summary.items, items, "summary.items");
        assert!(summary.lower_bound <= summary.makespan, "lower bound above the makespan");
        assert!(summary.method.contains(&0), "method must be NUL-terminated");
    }
    // The same document's result document: its total, read independently of the shares.
    let mut doc = vec![0u8; 1 << 20];
    let mut written = 0usize;
    // SAFETY: every pointer is valid for the length passed with it.
    let st = unsafe {
        divload_plan_json(rest.as_ptr().cast(), rest.len(), doc.as_mut_ptr().cast(), doc.len(), &mut written)
    };
    if st == divload_status::DIVLOAD_OK {
        if let Some(total) = divload_fuzz::result_total(&doc[..written]) {
            assert_eq!(items, total, "counts must add up to the document's items");
        }
    }
}

/// One call of `divload_plan_shares` into `out` (null when empty); the status, `*out_n`
/// and the summary when one was asked for.
fn plan_shares(
    doc: &[u8],
    out: &mut [divload_share],
    no_summary: bool,
    null_out_n: bool,
) -> (divload_status, usize, Option<divload_plan_summary>) {
    let mut summary = divload_plan_summary {
        makespan: 0.0,
        lower_bound: 0.0,
        gap: 0.0,
        exact: false,
        workers: 0,
        participating: 0,
        items: 0,
        method: [0; DIVLOAD_METHOD_NAME_LEN],
    };
    let mut n = 0usize;
    let out_ptr = if out.is_empty() { std::ptr::null_mut() } else { out.as_mut_ptr() };
    let summary_ptr = if no_summary { std::ptr::null_mut() } else { &mut summary as *mut _ };
    let n_ptr = if null_out_n { std::ptr::null_mut() } else { &mut n as *mut usize };
    // SAFETY: every pointer is valid for the length passed with it, or null.
    let st = unsafe {
        divload_plan_shares(doc.as_ptr().cast(), doc.len(), out_ptr, out.len(), n_ptr, summary_ptr)
    };
    (st, n, (!no_summary && st == divload_status::DIVLOAD_OK).then_some(summary))
}
