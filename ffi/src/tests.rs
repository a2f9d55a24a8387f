//! The C library's tests across its entries: statuses, boundaries, counts, return
//! messages and documents, called as C would.

#![allow(clippy::unwrap_used, clippy::panic)]
use super::*;
use divload::ErrorCode;
use divload_host::HostError;
use status_table::STATUSES;
use std::ffi::CStr;

#[test]
fn version_number_matches_cargo() {
    assert_eq!(version_number("1.2.3"), 10203);
    let expected = env!("CARGO_PKG_VERSION_MAJOR").parse::<u32>().unwrap() * 10000
        + env!("CARGO_PKG_VERSION_MINOR").parse::<u32>().unwrap() * 100
        + env!("CARGO_PKG_VERSION_PATCH").parse::<u32>().unwrap();
    assert_eq!(divload_version_number(), expected);
}

fn last_error() -> String {
    let mut buf = [0 as c_char; 256];
    let n = unsafe { divload_last_error_message(buf.as_mut_ptr(), buf.len()) };
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string();
    assert_eq!(s.len(), n.min(255));
    s
}

#[test]
fn returns_platform_b_and_untouched_outputs() {
    let b = [(7.0, 6.0), (8.0, 5.0), (12.0, 5.0)].map(|(c, w)| divload_return_worker {
        comm_per_item: c,
        comp_per_item: w,
        return_per_item: c,
    });
    for (schedule, makespan) in
        [(DIVLOAD_SCHEDULE_BEST, 13139.0), (DIVLOAD_SCHEDULE_LIFO, 14983.0), (DIVLOAD_SCHEDULE_FIFO, 13448.0)]
    {
        let mut out = [divload_return_assignment::default(); 3];
        let mut s = divload_returns_summary::default();
        let st =
            unsafe { divload_plan_returns(b.as_ptr(), 3, 1000, schedule, 0, out.as_mut_ptr(), 3, &mut s) };
        assert_eq!(st, DIVLOAD_OK);
        assert_eq!(s.makespan, makespan);
        assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1000);
    }
    let mut out = [divload_return_assignment { count: 77, ..Default::default() }; 3];
    let st =
        unsafe { divload_plan_returns(b.as_ptr(), 3, 1000, 0, 9, out.as_mut_ptr(), 3, std::ptr::null_mut()) };
    assert_eq!(st, DIVLOAD_INVALID_INPUT);
    assert_eq!(last_error(), "port: must be 0 (FULL_DUPLEX) or 1 (HALF_DUPLEX), got 9");
    assert!(out.iter().all(|a| a.count == 77));
}

#[test]
fn a_panic_becomes_a_status() {
    let status = boundary(|| panic!("boom"));
    assert_eq!(status, DIVLOAD_PANIC);
    assert!(last_error().contains("please report"));
}

#[test]
fn counts_and_failure_messages() {
    let workers = [
        divload_worker { comp_per_item: 1.0, ..Default::default() },
        divload_worker { comm_per_item: 0.1, comp_per_item: 2.0, ..Default::default() },
    ];
    let (mut counts, mut displs) = ([-1; 2], [-1; 2]);
    let st = unsafe {
        divload_plan_counts(
            workers.as_ptr(),
            2,
            0,
            100,
            std::ptr::null(),
            counts.as_mut_ptr(),
            2,
            displs.as_mut_ptr(),
            2,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(st, DIVLOAD_OK);
    assert_eq!(counts[0] + counts[1], 100);
    // The root is served last after sending: its block comes after worker 1's.
    assert_eq!((displs[1], displs[0]), (0, counts[1]));

    let bad = [divload_worker { comp_per_item: f64::NAN, ..Default::default() }];
    let st = unsafe {
        divload_plan_counts(
            bad.as_ptr(),
            1,
            0,
            10,
            std::ptr::null(),
            counts.as_mut_ptr(),
            2,
            displs.as_mut_ptr(),
            2,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(st, DIVLOAD_INVALID_INPUT);
    assert_eq!(last_error(), "worker 0: comp_per_item must be finite and > 0, got NaN");
    // Only the query: the full length comes back without a buffer.
    assert_eq!(unsafe { divload_last_error_message(std::ptr::null_mut(), 0) }, last_error().len());
}

/// The root's link costs are documented as ignored: any value there, NaN included,
/// plans exactly as zeros do, in both root modes and both orders, with the root in
/// the middle of the ranks; a NaN on any other rank is still refused.
#[test]
fn the_roots_link_costs_are_ignored() {
    let base: Vec<divload_worker> = (0..5)
        .map(|i| divload_worker {
            comm_latency: 1e-4 * (i % 2) as f64,
            comm_per_item: 1e-6 * (1 + (i * 7) % 5) as f64,
            comp_latency: 0.0,
            comp_per_item: 1e-3 * (1 + (i * 3) % 4) as f64,
        })
        .collect();
    let root = 2;
    let plan_with =
        |workers: &[divload_worker], options: &divload_options| full_plan(workers, root, 1000, options);
    for root_mode in [DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_ROOT_MODE_OVERLAP] {
        for order in [DIVLOAD_ORDER_BANDWIDTH, DIVLOAD_ORDER_GIVEN] {
            let options = divload_options { root_mode, order, rounding: DIVLOAD_ROUNDING_GREEDY };
            let mut zero = base.clone();
            zero[root].comm_latency = 0.0;
            zero[root].comm_per_item = 0.0;
            let expected = plan_with(&zero, &options);
            assert_eq!(expected.0, DIVLOAD_OK);
            for (latency, per_item) in [(f64::NAN, f64::NAN), (-1.0, -1.0), (f64::INFINITY, 5.0), (3.0, 1e-6)]
            {
                let mut w = base.clone();
                w[root].comm_latency = latency;
                w[root].comm_per_item = per_item;
                assert_eq!(plan_with(&w, &options), expected, "root link ({latency}, {per_item})");
            }
        }
    }
    let mut w = base.clone();
    w[root + 1].comm_per_item = f64::NAN;
    assert_eq!(plan_with(&w, &divload_options::default()).0, DIVLOAD_INVALID_INPUT);
    assert_eq!(last_error(), "worker 3: comm_per_item must be finite and >= 0, got NaN");
}

/// `divload_plan` of `items` over `workers`: its status, plan and summary.
fn full_plan(
    workers: &[divload_worker],
    root: usize,
    items: u64,
    options: &divload_options,
) -> (divload_status, Vec<divload_assignment>, divload_summary) {
    let mut out = vec![divload_assignment::default(); workers.len()];
    let mut s = divload_summary::default();
    // SAFETY: every pointer is valid for its length.
    let st = unsafe {
        divload_plan(
            workers.as_ptr(),
            workers.len(),
            root,
            items,
            options,
            out.as_mut_ptr(),
            out.len(),
            &mut s,
        )
    };
    (st, out, s)
}

/// The 64-bit counts, planned in the caller's arrays where the root's link passes the
/// core's checks and no time can overflow, and through a copy otherwise: the same counts
/// and displacements as the full plan by rank either way, with every rounding; and where
/// the plan overflows, the arrays are left as they were.
#[test]
fn counts64_in_place_are_the_plan_by_rank() {
    let base: Vec<divload_worker> = (0..9)
        .map(|i| divload_worker {
            comm_latency: 1e-4 * (i % 3) as f64,
            comm_per_item: 1e-6 * (1 + (i * 7) % 5) as f64,
            comp_latency: 1e-3 * (i % 2) as f64,
            comp_per_item: 1e-3 * (1 + (i * 3) % 4) as f64,
        })
        .collect();
    let root = 4;
    let counts64 = |w: &[divload_worker], options: &divload_options, items: u64| {
        let (mut c, mut d) = (vec![-7i64; w.len()], vec![-7i64; w.len()]);
        let mut s = divload_summary::default();
        let st = unsafe {
            divload_plan_counts64(
                w.as_ptr(),
                w.len(),
                root,
                items,
                options,
                c.as_mut_ptr(),
                c.len(),
                d.as_mut_ptr(),
                d.len(),
                &mut s,
            )
        };
        (st, c, d, s)
    };
    for rounding in [DIVLOAD_ROUNDING_GREEDY, DIVLOAD_ROUNDING_LARGEST_REMAINDER, DIVLOAD_ROUNDING_PAPER] {
        let options = divload_options { rounding, ..Default::default() };
        let (st, out, s) = full_plan(&base, root, 123_457, &options);
        assert_eq!(st, DIVLOAD_OK);
        let (mut want_c, mut want_d) = (vec![0i64; base.len()], vec![0i64; base.len()]);
        for a in &out {
            (want_c[a.rank], want_d[a.rank]) = (a.count as i64, a.displacement as i64);
        }
        for (latency, per_item) in [(0.0, 0.0), (3.0, 1e-6), (f64::NAN, 1.0)] {
            let mut w = base.clone();
            (w[root].comm_latency, w[root].comm_per_item) = (latency, per_item);
            let (st, c, d, got) = counts64(&w, &options, 123_457);
            assert_eq!(
                (st, &c, &d, got),
                (DIVLOAD_OK, &want_c, &want_d, s),
                "root link ({latency}, {per_item})"
            );
        }
    }
    let mut w = base.clone();
    w[1].comp_per_item = 1e300;
    let (st, c, d, _) = counts64(&w, &divload_options::default(), 1 << 40);
    assert_eq!(st, DIVLOAD_OVERFLOW, "{}", last_error());
    assert!(c.iter().chain(&d).all(|&x| x == -7), "nothing written");
}

fn message_of(status: u32) -> &'static str {
    // SAFETY: `divload_status_message` never returns null and its strings are static.
    unsafe { CStr::from_ptr(divload_status_message(status)) }.to_str().unwrap()
}

#[test]
fn every_status_has_its_rows_name_and_message() {
    for s in status::ALL {
        let row = &STATUSES[s as usize];
        assert_eq!((format!("{s:?}").as_str(), row.number, row.retired), (row.name, s as u32, None));
        assert_eq!(message_of(s as u32), row.message, "{}", row.name);
    }
    let live = STATUSES.iter().filter(|r| r.retired.is_none()).count();
    assert_eq!(live, status::ALL.len(), "every live row has an enum value");
    for row in STATUSES.iter().filter(|r| r.retired.is_some()) {
        let m = message_of(row.number);
        assert!(m.starts_with("retired status") && m.ends_with(row.message), "{}: {m}", row.name);
    }
    let end = u32::try_from(STATUSES.len()).unwrap();
    for unknown in [end, end + 1, 1000, u32::MAX] {
        assert_eq!(message_of(unknown), "unknown status");
    }
}

#[test]
fn core_and_host_errors_take_their_rows_status() {
    let codes = [ErrorCode::InvalidInput, ErrorCode::BufferTooSmall, ErrorCode::Overflow, ErrorCode::Json];
    for code in codes {
        let s = status::of_code(code);
        // The core documents its code numbers as the C status numbers.
        assert_eq!(s as u32, code as u32, "{code:?}");
        assert!(STATUSES[s as usize].core.contains(&format!("{code:?}").as_str()), "{code:?}");
    }
    let listed: Vec<&str> = STATUSES.iter().flat_map(|r| r.core.iter().copied()).collect();
    let known: Vec<String> = codes.iter().map(|c| format!("{c:?}")).collect();
    assert_eq!(listed, known, "this test must cover every core code the table lists");

    let oom = Failure::from(HostError::OutOfMemory { what: "plan", bytes: 1 << 30 });
    assert_eq!(oom.status, DIVLOAD_OUT_OF_MEMORY);
    assert!(STATUSES[oom.status as usize].host.contains(&"OutOfMemory"));
    assert_eq!(oom.message, "plan: cannot allocate 1024.0 MiB of working memory");
    let core = Failure::from(HostError::Core(divload::Error::limit("nodes", 8, 9)));
    assert_eq!((core.status, core.message.as_str()), (DIVLOAD_OVERFLOW, "nodes: at most 8, got 9"));
}

#[test]
fn a_misaligned_summary_fails_every_scatter_call() {
    let workers = [
        divload_worker { comp_per_item: 1.0, ..Default::default() },
        divload_worker { comm_per_item: 0.1, comp_per_item: 2.0, ..Default::default() },
    ];
    // Backed by u64 so that one byte in is misaligned for every summary type (align 8).
    let mut raw = [0u64; 16];
    let before = raw;
    let at = |raw: &mut [u64; 16]| raw.as_mut_ptr().cast::<u8>().wrapping_add(1);
    let (mut counts, mut displs) = ([-1; 2], [-1; 2]);
    let (mut counts64, mut displs64) = ([-1i64; 2], [-1i64; 2]);
    let mut plan = [divload_assignment { count: 77, ..Default::default() }; 2];
    let expect_refused = |st: divload_status| {
        assert_eq!(st, DIVLOAD_INVALID_INPUT);
        assert_eq!(last_error(), "summary: pointer is not aligned for its type");
    };
    let summary = at(&mut raw).cast::<divload_summary>();
    expect_refused(unsafe {
        divload_plan(workers.as_ptr(), 2, 0, 100, std::ptr::null(), plan.as_mut_ptr(), 2, summary)
    });
    expect_refused(unsafe {
        divload_plan_counts(
            workers.as_ptr(),
            2,
            0,
            100,
            std::ptr::null(),
            counts.as_mut_ptr(),
            2,
            displs.as_mut_ptr(),
            2,
            summary,
        )
    });
    expect_refused(unsafe {
        divload_plan_counts64(
            workers.as_ptr(),
            2,
            0,
            100,
            std::ptr::null(),
            counts64.as_mut_ptr(),
            2,
            displs64.as_mut_ptr(),
            2,
            summary,
        )
    });
    let b = [divload_return_worker { comm_per_item: 1.0, comp_per_item: 1.0, return_per_item: 1.0 }; 2];
    let mut out = [divload_return_assignment { count: 77, ..Default::default() }; 2];
    let returns_summary = at(&mut raw).cast::<divload_returns_summary>();
    expect_refused(unsafe {
        divload_plan_returns(b.as_ptr(), 2, 100, 0, 0, out.as_mut_ptr(), 2, returns_summary)
    });
    assert_eq!((counts, displs, counts64, displs64), ([-1; 2], [-1; 2], [-1; 2], [-1; 2]));
    assert!(plan.iter().all(|a| a.count == 77) && out.iter().all(|a| a.count == 77));
    assert_eq!(raw, before);

    // Null is still "no summary wanted"; an aligned one is written.
    let mut s = divload_summary::default();
    let st = unsafe {
        divload_plan(
            workers.as_ptr(),
            2,
            0,
            100,
            std::ptr::null(),
            plan.as_mut_ptr(),
            2,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(st, DIVLOAD_OK);
    let st =
        unsafe { divload_plan(workers.as_ptr(), 2, 0, 100, std::ptr::null(), plan.as_mut_ptr(), 2, &mut s) };
    assert_eq!((st, s.items), (DIVLOAD_OK, 100));
}
