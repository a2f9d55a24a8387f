//! A workspace kept between plans (issue 45): an MPI code that re-plans every iteration
//! pays for the planner's memory once. `divload_workspace_create` makes one,
//! `divload_workspace_plan_counts` and `_counts64` plan in it (the same plans as
//! `divload_plan_counts` and `_counts64`), `divload_workspace_free` frees it.

use std::ffi::c_int;

use divload_host::Workspace;

use super::{
    boundary, check_raw, divload_options, divload_status, divload_summary, divload_worker, plan_by_rank,
};

/// Memory kept between plans: planning again for at most as many workers allocates
/// nothing. Opaque; one thread at a time.
#[derive(Debug)]
pub struct divload_workspace(pub(crate) Workspace);

/// Makes a workspace ready for `workers` workers (more grow it when planned) and writes
/// it to `*out`; free it with `divload_workspace_free`.
///
/// Returns `DIVLOAD_NULL_PARAMETER` for a null `out`, `DIVLOAD_OUT_OF_MEMORY` when the
/// memory cannot be had (`*out` is then left as it was).
///
/// # Safety
///
/// `out` must be null or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn divload_workspace_create(
    workers: usize,
    out: *mut *mut divload_workspace,
) -> divload_status {
    boundary(|| {
        check_raw(out.cast_const(), 1, "out")?;
        let ws = Workspace::with_workers(workers)?;
        // A box of one element, reserved fallibly: out of memory is a status, not an abort.
        let mut one = Vec::new();
        one.try_reserve_exact(1).map_err(|_| {
            super::Failure::new(
                super::divload_status::DIVLOAD_OUT_OF_MEMORY,
                "workspace: out of memory".into(),
            )
        })?;
        one.push(divload_workspace(ws));
        let raw = Box::into_raw(one.into_boxed_slice()).cast::<divload_workspace>();
        // SAFETY: non-null and aligned (checked above); validity is the caller's contract.
        unsafe { out.write(raw) };
        Ok(())
    })
}

/// Frees a workspace from `divload_workspace_create`; null does nothing. Returns
/// `DIVLOAD_OK` (a status, as every call here returns one).
///
/// # Safety
///
/// `ws` must be null or a workspace from `divload_workspace_create` not freed before, and
/// not in use by another call.
#[no_mangle]
pub unsafe extern "C" fn divload_workspace_free(ws: *mut divload_workspace) -> divload_status {
    if !ws.is_null() {
        // SAFETY: made by `divload_workspace_create` as a boxed slice of one element.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ws, 1)) });
    }
    divload_status::DIVLOAD_OK
}

/// `divload_plan_counts` in a workspace: the same plan, with the planner's memory taken
/// from `ws` (null: allocated for this call). Statuses as `divload_plan_counts`.
///
/// # Safety
///
/// As `divload_plan_counts`; `ws` null or from `divload_workspace_create`, used by one
/// thread at a time.
#[no_mangle]
pub unsafe extern "C" fn divload_workspace_plan_counts(
    ws: *mut divload_workspace,
    workers: *const divload_worker,
    workers_len: usize,
    root: usize,
    items: u64,
    options: *const divload_options,
    counts: *mut c_int,
    counts_len: usize,
    displs: *mut c_int,
    displs_len: usize,
    summary: *mut divload_summary,
) -> divload_status {
    // SAFETY: the caller's contract, as documented above.
    unsafe {
        plan_by_rank(
            workers,
            workers_len,
            root,
            items,
            options,
            counts,
            counts_len,
            displs,
            displs_len,
            summary,
            Some(c_int::MAX as u64),
            ws,
        )
    }
}

/// `divload_plan_counts64` in a workspace: the same plan, with the planner's memory taken
/// from `ws` (null: allocated for this call). Statuses as `divload_plan_counts64`.
///
/// # Safety
///
/// As `divload_plan_counts64`; `ws` null or from `divload_workspace_create`, used by one
/// thread at a time.
#[no_mangle]
pub unsafe extern "C" fn divload_workspace_plan_counts64(
    ws: *mut divload_workspace,
    workers: *const divload_worker,
    workers_len: usize,
    root: usize,
    items: u64,
    options: *const divload_options,
    counts: *mut i64,
    counts_len: usize,
    displs: *mut i64,
    displs_len: usize,
    summary: *mut divload_summary,
) -> divload_status {
    // SAFETY: the caller's contract, as documented above.
    unsafe {
        plan_by_rank(
            workers,
            workers_len,
            root,
            items,
            options,
            counts,
            counts_len,
            displs,
            displs_len,
            summary,
            None,
            ws,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::{divload_plan_counts64, DIVLOAD_OK, DIVLOAD_ROUNDING_LARGEST_REMAINDER};

    fn platform(p: usize, seed: u64) -> Vec<divload_worker> {
        let mut x = seed;
        let mut unit = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..p)
            .map(|_| divload_worker {
                comm_latency: 0.0,
                comm_per_item: 1e-7 + 1e-5 * unit(),
                comp_latency: 0.0,
                comp_per_item: 1e-4 + 1e-2 * unit(),
            })
            .collect()
    }

    /// Plans in one workspace, growing and shrinking, equal those of the plain call, and
    /// a null workspace is a workspace for one call.
    #[test]
    fn a_workspace_plans_what_the_plain_call_plans() {
        let mut ws: *mut divload_workspace = std::ptr::null_mut();
        assert_eq!(unsafe { divload_workspace_create(10, &mut ws) }, DIVLOAD_OK);
        assert!(!ws.is_null());
        let options =
            divload_options { rounding: DIVLOAD_ROUNDING_LARGEST_REMAINDER, ..divload_options::default() };
        // Growing, shrinking, growing past the first size; smaller under Miri.
        let sizes: &[(usize, u64)] = if cfg!(miri) {
            &[(10, 1), (40, 2), (3, 3), (40, 4), (60, 5)]
        } else {
            &[(10, 1), (1000, 2), (3, 3), (1000, 4), (5000, 5)]
        };
        for &(p, seed) in sizes {
            let w = platform(p, seed);
            for o in [std::ptr::null(), &options as *const divload_options] {
                let (mut c1, mut d1, mut c2, mut d2) =
                    (vec![0i64; p], vec![0i64; p], vec![0i64; p], vec![0i64; p]);
                let (mut s1, mut s2) = (divload_summary::default(), divload_summary::default());
                let items = 1u64 << 40;
                let a = unsafe {
                    divload_plan_counts64(
                        w.as_ptr(),
                        p,
                        0,
                        items,
                        o,
                        c1.as_mut_ptr(),
                        p,
                        d1.as_mut_ptr(),
                        p,
                        &mut s1,
                    )
                };
                let b = unsafe {
                    divload_workspace_plan_counts64(
                        ws,
                        w.as_ptr(),
                        p,
                        0,
                        items,
                        o,
                        c2.as_mut_ptr(),
                        p,
                        d2.as_mut_ptr(),
                        p,
                        &mut s2,
                    )
                };
                assert_eq!((a, b), (DIVLOAD_OK, DIVLOAD_OK));
                assert_eq!((c1, d1), (c2, d2), "p = {p}");
                assert_eq!(s1, s2);
            }
        }
        let w = platform(4, 9);
        let (mut c, mut d) = ([0 as c_int; 4], [0 as c_int; 4]);
        let st = unsafe {
            divload_workspace_plan_counts(
                std::ptr::null_mut(),
                w.as_ptr(),
                4,
                0,
                100,
                std::ptr::null(),
                c.as_mut_ptr(),
                4,
                d.as_mut_ptr(),
                4,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(st, DIVLOAD_OK);
        assert_eq!(c.iter().sum::<c_int>(), 100);
        assert_eq!(unsafe { divload_workspace_free(ws) }, DIVLOAD_OK);
        assert_eq!(unsafe { divload_workspace_free(std::ptr::null_mut()) }, DIVLOAD_OK);
        assert_eq!(
            unsafe { divload_workspace_create(1, std::ptr::null_mut()) },
            crate::divload_status::DIVLOAD_NULL_PARAMETER
        );
    }

    /// Counts the allocations made on this thread (other tests run on theirs), so that a
    /// test can show a call that allocates nothing.
    struct Counting;

    std::thread_local! {
        static ALLOCATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    fn counted() {
        // `try_with`: a thread being torn down still frees, and counts nothing.
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }

    // SAFETY: every call goes to the system allocator with the caller's arguments; the
    // count is a thread-local `Cell` without a destructor, which allocates nothing.
    unsafe impl std::alloc::GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
            counted();
            unsafe { std::alloc::System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
            counted();
            unsafe { std::alloc::System.alloc_zeroed(layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
            counted();
            unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
            unsafe { std::alloc::System.dealloc(ptr, layout) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Issue 45: re-planning as many workers in a workspace allocates nothing, for every
    /// rounding and order, with 64-bit and `int` counts, latencies or not; the first plan
    /// of a size may.
    #[test]
    fn replanning_in_a_workspace_allocates_nothing() {
        let allocations = || ALLOCATIONS.with(std::cell::Cell::get);
        let p = if cfg!(miri) { 20 } else { 3000 };
        let mut w = platform(p, 45);
        // Latencies on a few workers: the solver's rounds of participation.
        for x in w.iter_mut().take(5) {
            x.comm_latency = 1e-3;
        }
        let mut ws: *mut divload_workspace = std::ptr::null_mut();
        assert_eq!(unsafe { divload_workspace_create(p, &mut ws) }, DIVLOAD_OK);
        let (mut c, mut d) = (vec![0i64; p], vec![0i64; p]);
        let (mut ci, mut di) = (vec![0 as c_int; p], vec![0 as c_int; p]);
        let mut s = divload_summary::default();
        for rounding in [
            crate::DIVLOAD_ROUNDING_GREEDY,
            DIVLOAD_ROUNDING_LARGEST_REMAINDER,
            crate::DIVLOAD_ROUNDING_PAPER,
        ] {
            for order in [crate::DIVLOAD_ORDER_BANDWIDTH, crate::DIVLOAD_ORDER_GIVEN] {
                let o = divload_options { rounding, order, ..divload_options::default() };
                let mut plan = |items: u64| unsafe {
                    let a = divload_workspace_plan_counts64(
                        ws,
                        w.as_ptr(),
                        p,
                        7,
                        items,
                        &o,
                        c.as_mut_ptr(),
                        p,
                        d.as_mut_ptr(),
                        p,
                        &mut s,
                    );
                    let b = divload_workspace_plan_counts(
                        ws,
                        w.as_ptr(),
                        p,
                        7,
                        items,
                        &o,
                        ci.as_mut_ptr(),
                        p,
                        di.as_mut_ptr(),
                        p,
                        &mut s,
                    );
                    assert_eq!((a, b), (DIVLOAD_OK, DIVLOAD_OK));
                };
                plan(1 << 30);
                let before = allocations();
                for items in [1 << 30, 12_345, (1 << 31) - 1] {
                    plan(items);
                }
                assert_eq!(allocations(), before, "rounding {rounding}, order {order}: allocations");
                assert_eq!(d.iter().zip(&c).map(|(d, c)| d + c).max(), Some((1 << 31) - 1));
            }
        }
        // The count sees allocations: the plain call's scratch is one.
        let before = allocations();
        let st = unsafe {
            divload_plan_counts64(
                w.as_ptr(),
                p,
                7,
                1 << 30,
                std::ptr::null(),
                c.as_mut_ptr(),
                p,
                d.as_mut_ptr(),
                p,
                &mut s,
            )
        };
        assert_eq!(st, DIVLOAD_OK);
        assert!(allocations() > before);
        assert_eq!(unsafe { divload_workspace_free(ws) }, DIVLOAD_OK);
    }
}
