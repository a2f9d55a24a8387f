//! `divload_plan_chunks` and `divload_plan_installments`: the chunks are the result
//! document's, the typed call plans what the same platform written as a document plans,
//! and every bad input is a status with a message naming it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use crate::*;

fn last_error() -> String {
    let mut buf = vec![0 as std::ffi::c_char; 1024];
    unsafe { divload_last_error_message(buf.as_mut_ptr(), buf.len()) };
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string()
}

const EMPTY: divload_plan_summary = divload_plan_summary {
    makespan: -1.0,
    lower_bound: -1.0,
    gap: -1.0,
    exact: false,
    workers: 0,
    participating: 0,
    items: 0,
    method: [0; DIVLOAD_METHOD_NAME_LEN],
};

fn chunks_of_json(text: &str) -> (divload_status, Vec<divload_chunk>, divload_plan_summary) {
    let mut out = vec![divload_chunk::default(); 256];
    let (mut n, mut s) = (0usize, EMPTY);
    let st = unsafe {
        divload_plan_chunks(text.as_ptr().cast(), text.len(), out.as_mut_ptr(), out.len(), &mut n, &mut s)
    };
    out.truncate(if st == DIVLOAD_OK { n } else { 0 });
    (st, out, s)
}

#[allow(clippy::too_many_arguments)]
fn installments(
    workers: &[divload_worker],
    root: usize,
    items: u64,
    caps: Option<&[u64]>,
    release: Option<&[f64]>,
    options: Option<&divload_installment_options>,
    out_len: usize,
) -> (divload_status, Vec<divload_chunk>, usize, divload_plan_summary) {
    let mut out = vec![divload_chunk::default(); out_len.max(1)];
    let (mut n, mut s) = (usize::MAX, EMPTY);
    let st = unsafe {
        divload_plan_installments(
            workers.as_ptr(),
            workers.len(),
            root,
            items,
            caps.map_or(null(), <[u64]>::as_ptr),
            release.map_or(null(), <[f64]>::as_ptr),
            options.map_or(null(), |o| o as *const _),
            out.as_mut_ptr(),
            out_len,
            &mut n,
            &mut s,
        )
    };
    out.truncate(if st == DIVLOAD_OK { n } else { 0 });
    (st, out, n, s)
}

fn worker(comm_latency: f64, comm_per_item: f64, comp_latency: f64, comp_per_item: f64) -> divload_worker {
    divload_worker { comm_latency, comm_per_item, comp_latency, comp_per_item }
}

/// A star with startup costs, where several installments pay off.
fn star() -> Vec<divload_worker> {
    vec![
        worker(f64::NAN, -1.0, 0.0, 5e-3), // the root's comm costs are replaced by 0
        worker(0.002, 2e-4, 0.001, 1e-3),
        worker(0.002, 2e-4, 0.001, 1e-3),
        worker(0.004, 3e-4, 0.001, 2e-3),
        worker(0.004, 2.5e-4, 0.001, 1.5e-3),
    ]
}

/// Counts sum to the items, every chunk is non-empty, each worker's chunks are
/// consecutive parts of one block, and the blocks tile the buffer.
fn check_layout(chunks: &[divload_chunk], workers: usize, items: u64) {
    assert_eq!(chunks.iter().map(|c| c.count).sum::<u64>(), items);
    let mut next = vec![None::<u64>; workers];
    let mut blocks = vec![];
    for c in chunks {
        assert!(c.count > 0 && c.rank < workers);
        assert!(
            c.send_start <= c.send_end && c.send_end <= c.compute_start && c.compute_start <= c.compute_end
        );
        match next[c.rank] {
            Some(at) => assert_eq!(c.displacement, at, "a worker's chunks are consecutive"),
            None => blocks.push(c.displacement),
        }
        next[c.rank] = Some(c.displacement + c.count);
    }
    let mut ends: Vec<(u64, u64)> = next
        .iter()
        .zip(0..)
        .filter_map(|(e, r)| e.map(|e| (chunks.iter().find(|c| c.rank == r).unwrap().displacement, e)))
        .collect();
    ends.sort_unstable();
    let mut at = 0;
    for (start, end) in ends {
        assert_eq!(start, at, "blocks tile the buffer");
        at = end;
    }
    assert_eq!(at, items);
}

// Tens of linear programs: minutes under Miri, whose concern is the boundary (below).
#[cfg_attr(miri, ignore)]
#[test]
fn chunks_are_the_documents() {
    let text = include_str!("../../../examples/scatter_installments.json");
    let (st, chunks, s) = chunks_of_json(text);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    let doc: serde_json::Value =
        serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).ok().unwrap()).unwrap();
    let rows = doc["chunks"].as_array().unwrap();
    assert_eq!(rows.len(), chunks.len());
    for (c, r) in chunks.iter().zip(rows) {
        assert_eq!(c.rank as u64, r["rank"].as_u64().unwrap());
        assert_eq!(c.count, r["count"].as_u64().unwrap());
        assert_eq!(c.displacement, r["displacement"].as_u64().unwrap());
        for (v, key) in [(c.send_start, "send_start"), (c.compute_end, "compute_end")] {
            assert!((v - r[key].as_f64().unwrap()).abs() <= 1e-12 * v.abs().max(1.0), "{key}");
        }
    }
    assert_eq!(s.items, 20_000);
    assert_eq!(s.workers, 7);
    assert!((s.makespan - doc["makespan"].as_f64().unwrap()).abs() <= 1e-12 * s.makespan);
    assert!(s.lower_bound <= s.makespan && s.gap >= 0.0);
    let method = unsafe { CStr::from_ptr(s.method.as_ptr()) }.to_str().unwrap();
    assert_eq!(method, doc["method"].as_str().unwrap());
    check_layout(&chunks, 7, 20_000);
    // The rank with release time 2 s computes nothing before it.
    assert!(chunks.iter().filter(|c| c.rank == 6).all(|c| c.compute_start >= 2.0));
}

// Tens of linear programs: minutes under Miri, whose concern is the boundary (below).
#[cfg_attr(miri, ignore)]
#[test]
fn typed_plan_is_the_documents_plan() {
    let w = star();
    let text = r#"{"items":5000,"root":"a","installments":"auto","workers":[
        {"name":"a","comm_per_item":0,"comp_per_item":5e-3},
        {"name":"b","count":2,"comm_latency":0.002,"comm_per_item":2e-4,"comp_latency":0.001,"comp_per_item":1e-3},
        {"name":"c","comm_latency":0.004,"comm_per_item":3e-4,"comp_latency":0.001,"comp_per_item":2e-3},
        {"name":"d","comm_latency":0.004,"comm_per_item":2.5e-4,"comp_latency":0.001,"comp_per_item":1.5e-3}]}"#;
    let (st, from_doc, sd) = chunks_of_json(text);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    let (st, typed, _, st_summary) =
        installments(&w, 0, 5000, None, None, None, w.len() + DIVLOAD_MAX_CHUNKS);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    assert_eq!(typed, from_doc);
    assert_eq!(st_summary.makespan.to_bits(), sd.makespan.to_bits());
    assert!(typed.len() > w.len(), "several installments pay off on this star");
    check_layout(&typed, w.len(), 5000);
}

// Tens of linear programs: minutes under Miri, whose concern is the boundary (below).
#[cfg_attr(miri, ignore)]
#[test]
fn caps_release_times_and_deadlines_reach_the_plan() {
    let w = star();
    let caps = [u64::MAX, 300, 300, 200, 200];
    let release = [0.0, 0.0, 0.0, 0.0, 0.5];
    let opts = divload_installment_options {
        root_mode: DIVLOAD_ROOT_MODE_DISTRIBUTE_ONLY,
        installments: 8,
        deadline: 0.0,
    };
    let (st, chunks, _, s) = installments(&w, 0, 3000, Some(&caps), Some(&release), Some(&opts), 256);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    check_layout(&chunks, w.len(), 3000);
    assert!(chunks.iter().all(|c| c.rank != 0), "the root only distributes");
    assert!(chunks.iter().all(|c| c.count <= caps[c.rank]));
    assert!(chunks.iter().filter(|c| c.rank == 4).all(|c| c.compute_start >= 0.5));
    for r in 1..5 {
        assert!(chunks.iter().filter(|c| c.rank == r).count() <= 8);
    }
    // The deadline question: the most whole items finished by half the makespan.
    let half = divload_installment_options { deadline: s.makespan / 2.0, ..opts };
    let (st, chunks, _, d) = installments(&w, 0, 3000, Some(&caps), Some(&release), Some(&half), 256);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    assert!(d.items > 0 && d.items < 3000);
    assert!(chunks.iter().all(|c| c.compute_end <= half.deadline * (1.0 + 1e-12)));
    check_layout(&chunks, w.len(), d.items);
}

/// A call, the status it must return and a part of its message.
type Case = (divload_status, &'static str, Box<dyn Fn() -> divload_status>);

#[test]
fn bad_inputs_are_named() {
    let w = star();
    let cases: Vec<Case> = vec![
        (DIVLOAD_INVALID_INPUT, "root: must be a worker's index, below 5, got 5", {
            let w = w.clone();
            Box::new(move || installments(&w, 5, 100, None, None, None, 256).0)
        }),
        (DIVLOAD_INVALID_INPUT, "options.installments: must be 0 (AUTO) or 1 to 64, got 65", {
            let w = w.clone();
            Box::new(move || {
                let o = divload_installment_options { installments: 65, ..Default::default() };
                installments(&w, 0, 100, None, None, Some(&o), 256).0
            })
        }),
        (
            DIVLOAD_INVALID_INPUT,
            "options.root_mode: must be 0 (AFTER_SEND), 1 (OVERLAP) or 2 (DISTRIBUTE_ONLY), got 3",
            {
                let w = w.clone();
                Box::new(move || {
                    let o = divload_installment_options { root_mode: 3, ..Default::default() };
                    installments(&w, 0, 100, None, None, Some(&o), 256).0
                })
            },
        ),
        (DIVLOAD_INVALID_INPUT, "options.deadline: must be finite and > 0, or 0 for none, got NaN", {
            let w = w.clone();
            Box::new(move || {
                let o = divload_installment_options { deadline: f64::NAN, ..Default::default() };
                installments(&w, 0, 100, None, None, Some(&o), 256).0
            })
        }),
        (DIVLOAD_INVALID_INPUT, "available_at[2]: must be finite and >= 0, got -1", {
            let w = w.clone();
            Box::new(move || installments(&w, 0, 100, None, Some(&[0.0, 0.0, -1.0, 0.0, 0.0]), None, 256).0)
        }),
        (DIVLOAD_INVALID_INPUT, "worker 3: comp_per_item must be finite and > 0, got inf", {
            let mut w = w.clone();
            w[3].comp_per_item = f64::INFINITY;
            Box::new(move || installments(&w, 0, 100, None, None, None, 256).0)
        }),
        (DIVLOAD_INVALID_INPUT, "max_items: the caps hold", {
            let w = w.clone();
            Box::new(move || {
                let o = divload_installment_options { installments: 1, ..Default::default() };
                installments(&w, 0, 10_000, Some(&[10, 10, 10, 10, 10]), None, Some(&o), 256).0
            })
        }),
        (
            DIVLOAD_INVALID_INPUT,
            "workers_len: must be at least 1, got 0",
            Box::new(|| installments(&[], 0, 100, None, None, None, 256).0),
        ),
        (
            DIVLOAD_NULL_PARAMETER,
            "workers: must not be a null pointer",
            Box::new(|| unsafe {
                let mut out = [divload_chunk::default(); 4];
                let mut n = 0;
                divload_plan_installments(
                    null(),
                    3,
                    0,
                    10,
                    null(),
                    null(),
                    null(),
                    out.as_mut_ptr(),
                    4,
                    &mut n,
                    null_mut(),
                )
            }),
        ),
        (
            DIVLOAD_INVALID_INPUT,
            "plan it with divload_plan_shares",
            Box::new(|| {
                chunks_of_json(r#"{"items":10,"root":"a","workers":[{"name":"a","comm_per_item":0,"comp_per_item":1},{"name":"b","comm_per_item":1,"comp_per_item":1}]}"#).0
            }),
        ),
    ];
    for (status, message, call) in cases {
        let got_status = call();
        assert_eq!(got_status, status, "{message}: {}", last_error());
        let got = last_error();
        assert!(got.contains(message), "{got:?} does not say {message:?}");
    }
}

// Tens of linear programs: minutes under Miri, whose concern is the boundary (below).
#[cfg_attr(miri, ignore)]
#[test]
fn too_small_a_buffer_says_how_many() {
    let w = star();
    let (st, all, _, _) = installments(&w, 0, 5000, None, None, None, 256);
    assert_eq!(st, DIVLOAD_OK);
    let (st, _, n, _) = installments(&w, 0, 5000, None, None, None, all.len() - 1);
    assert_eq!(st, DIVLOAD_BUFFER_TOO_SMALL, "{}", last_error());
    assert_eq!(n, all.len());
    let (st, again, _, _) = installments(&w, 0, 5000, None, None, None, n);
    assert_eq!(st, DIVLOAD_OK);
    assert_eq!(again, all);
}

/// The boundary under Miri on a plan of a few linear programs: the chunks, `out_n` and the
/// summary written through the caller's pointers, and a buffer one chunk short refused
/// with the size it needs and nothing written.
#[test]
fn chunks_cross_the_boundary() {
    let w = [worker(0.0, 0.0, 0.0, 2e-3), worker(0.01, 1e-3, 0.0, 1e-3)];
    let two = divload_installment_options { installments: 2, ..Default::default() };
    let (st, chunks, n, s) = installments(&w, 0, 40, None, None, Some(&two), 8);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    assert_eq!(n, chunks.len());
    check_layout(&chunks, 2, 40);
    assert_eq!(s.items, 40);
    let (st, _, needed, _) = installments(&w, 0, 40, None, None, Some(&two), n - 1);
    assert_eq!((st, needed), (DIVLOAD_BUFFER_TOO_SMALL, n));
}

/// Over 200 workers a plan may have many rounds (UMR): more chunks than `workers + 64`,
/// which `divload_installment_chunks_max` covers; a buffer one short is refused with the
/// number needed.
#[cfg_attr(miri, ignore)]
#[test]
fn many_workers_plan_in_rounds_within_the_most_chunks() {
    assert_eq!(divload_installment_chunks_max(0), 65);
    assert_eq!(divload_installment_chunks_max(1), 65);
    assert_eq!(divload_installment_chunks_max(3), 65);
    assert_eq!(divload_installment_chunks_max(65), 64 * 16 + 1);
    assert_eq!(divload_installment_chunks_max(201), 200 * 16 + 1);
    assert_eq!(divload_installment_chunks_max(usize::MAX), 0);
    let mut w = vec![worker(0.0, 0.0, 0.0, 1e-2)];
    w.extend((0..200).map(|i| worker(1e-4, 2e-5 * (1.0 + (i % 7) as f64 / 7.0), 1e-3, 1e-2)));
    let most = divload_installment_chunks_max(w.len());
    let (st, chunks, _, s) = installments(&w, 0, 1_000_000, None, None, None, most);
    assert_eq!(st, DIVLOAD_OK, "{}", last_error());
    assert!(chunks.len() > w.len() + DIVLOAD_MAX_CHUNKS, "{} chunks", chunks.len());
    let method = unsafe { CStr::from_ptr(s.method.as_ptr()) };
    assert_eq!(method.to_str().unwrap(), "uniform_multi_round");
    check_layout(&chunks, w.len(), 1_000_000);
    let (st, _, n, _) = installments(&w, 0, 1_000_000, None, None, None, chunks.len() - 1);
    assert_eq!((st, n), (DIVLOAD_BUFFER_TOO_SMALL, chunks.len()));
}
