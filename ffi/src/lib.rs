//! `libdivload`: the C interface to divload, for MPI codes that call `MPI_Scatterv`.
//!
//! The C API follows the rustls-ffi conventions: every function is `divload_<thing>_<verb>`,
//! takes its inputs first and its outputs last, has a length after every buffer and
//! returns a `divload_status`. Every export runs inside one boundary ([`boundary`]) that
//! checks null pointers, lengths and alignment, turns a Rust panic into
//! `DIVLOAD_PANIC` instead of unwinding into C, and writes the outputs only on success. On
//! failure, `divload_last_error_message` gives the core's message ("worker 3:
//! comp_per_item must be finite and > 0, got NaN") for the calling thread.
//!
//! The header `include/divload.h` is generated from this file by cbindgen; see
//! `ffi/tests/header.rs`. The status codes are generated into `status.rs` from the one
//! table in `status_table.rs` (numbers, names, messages, the errors mapped to each).
#![forbid(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};

use divload::returns;
use divload::{Assignment, Options, OrderPolicy, RootMode, Rounding, Summary, Worker};
use divload_host::{filled, HostError, Workspace};

mod chunks;
mod status;
mod workspace;
// The tests compare the generated code with the table; the generator (ffi/tests/status.rs)
// is what reads every field.
#[cfg(test)]
#[allow(dead_code)]
mod status_table;

pub use chunks::*;
use divload_status::*;
pub use status::divload_status;
pub use workspace::*;

/// The root computes its own share after sending all the others (`MPI_Scatterv` on a
/// root that then works). The default (0).
pub const DIVLOAD_ROOT_MODE_AFTER_SEND: u32 = 0;
/// The root computes while it sends.
pub const DIVLOAD_ROOT_MODE_OVERLAP: u32 = 1;
/// Serve workers by decreasing bandwidth (genaud2003 Thm 3). The default (0).
pub const DIVLOAD_ORDER_BANDWIDTH: u32 = 0;
/// Serve workers in rank order.
pub const DIVLOAD_ORDER_GIVEN: u32 = 1;
/// Round so that each left-over item goes where it raises the makespan least. The
/// default (0).
pub const DIVLOAD_ROUNDING_GREEDY: u32 = 0;
/// Round by largest remainder.
pub const DIVLOAD_ROUNDING_LARGEST_REMAINDER: u32 = 1;
/// Round as in genaud2003 §3.3 (with its sign misprint fixed).
pub const DIVLOAD_ROUNDING_PAPER: u32 = 2;

/// One worker's costs, in seconds. A worker receiving `x > 0` items takes
/// `comm_latency + comm_per_item * x` to receive them and `comp_latency + comp_per_item * x`
/// to process them. All costs must be finite and >= 0, and `comp_per_item` > 0, except
/// the root's `comm_latency` and `comm_per_item`: the scatter model never charges the root
/// for its own part (it is not sent), so `divload_plan`, `divload_plan_counts` and
/// `divload_plan_counts64` replace them by 0 before any check (NaN or negative there is
/// accepted).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_worker {
    /// Fixed part of receiving a share (s).
    pub comm_latency: f64,
    /// Time to receive one item (s/item, λ).
    pub comm_per_item: f64,
    /// Fixed part of processing a share (s).
    pub comp_latency: f64,
    /// Time to process one item (s/item, μ).
    pub comp_per_item: f64,
}

/// Planning options. All zeros (`divload_options opts = {0};`) are the defaults; a null
/// pointer means the defaults too.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct divload_options {
    /// `DIVLOAD_ROOT_MODE_*`.
    pub root_mode: u32,
    /// `DIVLOAD_ORDER_*`.
    pub order: u32,
    /// `DIVLOAD_ROUNDING_*`.
    pub rounding: u32,
}

/// One worker's part of a plan. `divload_plan` returns these in send order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_assignment {
    /// The worker's index in the input (its rank).
    pub rank: usize,
    /// Items it receives.
    pub count: u64,
    /// Offset of its block in the root's buffer (blocks are contiguous in send order).
    pub displacement: u64,
    /// Its rational share before rounding.
    pub share: f64,
    /// When it starts receiving, in seconds from the start of the scatter.
    pub start: f64,
    /// When its items have arrived.
    pub received: f64,
    /// When it finishes processing them (its predicted finish time).
    pub finish: f64,
}

/// What a plan achieves. Times in seconds from the start of the scatter.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_summary {
    /// Number of items planned.
    pub items: u64,
    /// The root's rank.
    pub root: usize,
    /// Number of workers that receive at least one item.
    pub participating: usize,
    /// Predicted makespan of the integer plan.
    pub makespan: f64,
    /// Makespan of the rational plan before rounding.
    pub rational_makespan: f64,
    /// A certified lower bound on any plan's makespan in this send order.
    pub lower_bound: f64,
    /// Guaranteed upper bound on `makespan` (genaud2003 eq. 4, sharpened).
    pub bound: f64,
    /// Makespan of the even split (`MPI_Scatter`) in the same order.
    pub uniform_makespan: f64,
    /// `true` when the rational plan is the proven optimum (all latencies 0).
    pub rational_exact: bool,
}

/// Return messages: the best scenario found (exhaustive over send and return orders for a
/// few workers, else the best of LIFO, FIFO and a local search). The default (0).
pub const DIVLOAD_SCHEDULE_BEST: u32 = 0;
/// Return messages: last in, first out (results return in the reverse send order).
pub const DIVLOAD_SCHEDULE_LIFO: u32 = 1;
/// Return messages: first in, first out (results return in the send order).
pub const DIVLOAD_SCHEDULE_FIFO: u32 = 2;
/// Return messages: a scenario the caller gives (`divload_plan_returns_scenario`); the
/// summary's `schedule` then reads 3.
pub const DIVLOAD_SCHEDULE_GIVEN: u32 = 3;
/// Return messages: the root may send and receive at the same moment (the lecture notes'
/// model). The default (0).
pub const DIVLOAD_PORT_FULL_DUPLEX: u32 = 0;
/// Return messages: the root sends or receives, one message at a time.
pub const DIVLOAD_PORT_HALF_DUPLEX: u32 = 1;

/// One worker's linear costs in the return-message model, in seconds per item. All
/// must be finite and >= 0, and `comp_per_item` > 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_return_worker {
    /// Time to receive one item from the root (c).
    pub comm_per_item: f64,
    /// Time to process one item (w).
    pub comp_per_item: f64,
    /// Time to send one item's results back to the root (d).
    pub return_per_item: f64,
}

/// One worker's part of a plan with return messages. `divload_plan_returns` writes these
/// in send order. Times in seconds from the first send.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_return_assignment {
    /// The worker's index in the input (its rank).
    pub rank: usize,
    /// Items it receives (and results it returns).
    pub count: u64,
    /// Offset of its block in the root's buffer (blocks are contiguous in send order).
    pub displacement: u64,
    /// Its position in the send order (0 is served first): its index in the output.
    pub send_position: usize,
    /// Its position in the return order (0 returns first). Workers outside the
    /// scenario (count 0) come after the scenario's members, in send order, so the
    /// positions of all workers are 0, 1, ..., n_workers - 1.
    pub return_position: usize,
    /// 1 when the worker takes part in the scenario, 0 when it is left out (count 0).
    /// A member may still get 0 items after rounding.
    pub member: u32,
    /// Its rational share before rounding.
    pub share: f64,
    /// When the root starts sending to it.
    pub send_start: f64,
    /// When its items have arrived.
    pub received: f64,
    /// When it has processed them.
    pub computed: f64,
    /// When it starts returning its results.
    pub return_start: f64,
    /// When its results are back at the root.
    pub return_end: f64,
    /// Time between `computed` and `return_start` (waiting for the root's port).
    pub idle: f64,
}

/// What a plan with return messages achieves. Times in seconds from the first send.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct divload_returns_summary {
    /// Number of items planned.
    pub items: u64,
    /// The schedule asked for (`DIVLOAD_SCHEDULE_*`).
    pub schedule: u32,
    /// The root's port (`DIVLOAD_PORT_*`).
    pub port: u32,
    /// Number of workers in the scenario (the first `members` entries of the output).
    pub members: usize,
    /// Number of workers with at least one item.
    pub participating: usize,
    /// Throughput of the rational plan (items per second).
    pub throughput: f64,
    /// Predicted makespan of the integer plan: when the last result is back.
    pub makespan: f64,
    /// Makespan of the rational plan before rounding (`items / throughput`).
    pub rational_makespan: f64,
    /// A certified lower bound on the makespan of every schedule (every scenario).
    pub lower_bound: f64,
    /// Guaranteed upper bound on `makespan`.
    pub bound: f64,
    /// Makespan of the even split in the same send and return orders.
    pub even_split_makespan: f64,
    /// `true` when the rational plan is proven optimal in the schedule's class.
    pub rational_optimal: bool,
}

/// The library version as `major * 10000 + minor * 100 + patch`; equal to the header's
/// `DIVLOAD_VERSION_NUMBER` when header and library match.
#[no_mangle]
pub extern "C" fn divload_version_number() -> u32 {
    version_number(env!("CARGO_PKG_VERSION"))
}

fn version_number(v: &str) -> u32 {
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b, c) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    a * 10000 + b * 100 + c
}

/// A static, NUL-terminated description of a status number. A retired number's message
/// says it is retired; numbers never assigned give "unknown status". Never null.
#[no_mangle]
pub extern "C" fn divload_status_message(status: u32) -> *const c_char {
    status::message(status).as_ptr()
}

/// Copies the message of the calling thread's last failed divload call into `buf` as a
/// NUL-terminated string, like `snprintf`: at most `len` bytes are written (none when
/// `len` is 0 or `buf` is null) and the return value is the message's full length
/// without the NUL. The message is empty when no call has failed on this thread.
///
/// # Safety
///
/// `buf` must be null or valid for writes of `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn divload_last_error_message(buf: *mut c_char, len: usize) -> usize {
    let copy = AssertUnwindSafe(|| {
        LAST_ERROR.with(|m| {
            let m = m.borrow();
            let bytes = m.as_bytes();
            if !buf.is_null() && len > 0 {
                let n = bytes.len().min(len - 1);
                // SAFETY: the caller guarantees `buf` is valid for `len` bytes and n < len.
                let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), n + 1) };
                out[..n].copy_from_slice(&bytes[..n]);
                out[n] = 0;
            }
            bytes.len()
        })
    });
    catch_unwind(copy).unwrap_or(0)
}

/// Plans a scatter of `items` items over `workers_len` workers and writes one
/// `divload_assignment` per worker into `plan`, in send order, and the summary into
/// `summary` (which may be null).
///
/// `root` is the rank that holds the data (its `comm_latency` and `comm_per_item` are not
/// used, see `divload_worker`); `options` may be null for the defaults.
///
/// Returns `DIVLOAD_NULL_PARAMETER` for a null `workers` or `plan`, `DIVLOAD_INVALID_INPUT`
/// for zero workers or items, a bad cost, root or option, or a misaligned pointer
/// (`summary` included: only a null `summary` is skipped), `DIVLOAD_BUFFER_TOO_SMALL` when
/// `plan_len < workers_len`, `DIVLOAD_OVERFLOW` beyond 2^53 items. Nothing is written
/// unless the result is `DIVLOAD_OK`.
///
/// # Safety
///
/// Each pointer must be null or valid for its length (`workers_len`, `plan_len` elements;
/// one element for `options` and `summary`).
#[no_mangle]
pub unsafe extern "C" fn divload_plan(
    workers: *const divload_worker,
    workers_len: usize,
    root: usize,
    items: u64,
    options: *const divload_options,
    plan: *mut divload_assignment,
    plan_len: usize,
    summary: *mut divload_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let workers = unsafe { input(workers, workers_len, "workers")? };
        let options = unsafe { options_or_default(options)? };
        let out = unsafe { output(plan, plan_len, "plan")? };
        let summary = optional_output(summary, "summary")?;
        if plan_len < workers_len {
            return Err(buffer_failure("plan", workers_len, plan_len));
        }
        let mut ws = Workspace::new();
        let (plan, planned) = compute(&mut ws, workers, root, items, options)?;
        for (o, a) in out.iter_mut().zip(plan) {
            *o = divload_assignment {
                rank: a.worker,
                count: a.count,
                displacement: a.displacement,
                share: a.share,
                start: a.start,
                received: a.received,
                finish: a.finish,
            };
        }
        unsafe { write_summary(summary, &planned) };
        Ok(())
    })
}

/// Plans a scatter and writes, for each rank, its count and displacement as `int`, ready
/// for `MPI_Scatterv(sendbuf, counts, displs, ...)`: `counts[r]` items for rank `r`,
/// starting at item `displs[r]` of the root's buffer. `summary` may be null.
///
/// Returns `DIVLOAD_OVERFLOW` when `items > INT_MAX` (use `divload_plan_counts64` with
/// the MPI-4 `MPI_Scatterv_c`), `DIVLOAD_BUFFER_TOO_SMALL` when `counts_len` or
/// `displs_len` is below `workers_len`, and otherwise as `divload_plan`. Nothing is
/// written unless the result is `DIVLOAD_OK`.
///
/// # Safety
///
/// Each pointer must be null or valid for its length.
#[no_mangle]
pub unsafe extern "C" fn divload_plan_counts(
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
            std::ptr::null_mut(),
        )
    }
}

/// As `divload_plan_counts` with 64-bit counts and displacements, for the MPI-4 large
/// count calls (`MPI_Scatterv_c` takes `MPI_Count` counts and `MPI_Aint` displacements,
/// both 64-bit on common platforms). Up to 2^53 items.
///
/// # Safety
///
/// Each pointer must be null or valid for its length.
#[no_mangle]
pub unsafe extern "C" fn divload_plan_counts64(
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
    // SAFETY: the caller's contract, as documented above. Up to 2^53 items (checked by
    // the core), which fits an i64.
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
            std::ptr::null_mut(),
        )
    }
}

/// The body of `divload_plan_counts` and `divload_plan_counts64`: counts and
/// displacements by rank. `int_limit` is the `int` call's limit on the item count; every
/// count and displacement is at most `items`, so below it each one converts.
///
/// # Safety
///
/// As the two entry points.
#[allow(clippy::too_many_arguments)]
unsafe fn plan_by_rank<T: TryFrom<u64> + Default>(
    workers: *const divload_worker,
    workers_len: usize,
    root: usize,
    items: u64,
    options: *const divload_options,
    counts: *mut T,
    counts_len: usize,
    displs: *mut T,
    displs_len: usize,
    summary: *mut divload_summary,
    int_limit: Option<u64>,
    ws: *mut divload_workspace,
) -> divload_status {
    boundary(|| {
        let workers = unsafe { input(workers, workers_len, "workers")? };
        let options = unsafe { options_or_default(options)? };
        let counts = unsafe { output(counts, counts_len, "counts")? };
        let displs = unsafe { output(displs, displs_len, "displs")? };
        let summary = optional_output(summary, "summary")?;
        if let Some(limit) = int_limit.filter(|&limit| items > limit) {
            return Err(Failure::new(
                DIVLOAD_OVERFLOW,
                format!(
                    "items: at most INT_MAX = {limit} fit MPI_Scatterv's int counts, got {items}; \
                     use divload_plan_counts64 with MPI_Scatterv_c"
                ),
            ));
        }
        check_len("counts", workers_len, counts_len)?;
        check_len("displs", workers_len, displs_len)?;
        let mut local = Workspace::new();
        // SAFETY: null (none: a workspace for this call) or from `divload_workspace_create`,
        // the caller's contract.
        let ws = match unsafe { ws.as_mut() } {
            Some(ws) => &mut ws.0,
            None => &mut local,
        };
        let (plan, planned) = compute(ws, workers, root, items, options)?;
        for a in plan {
            if let (Some(c), Some(d)) = (counts.get_mut(a.worker), displs.get_mut(a.worker)) {
                *c = T::try_from(a.count).unwrap_or_default();
                *d = T::try_from(a.displacement).unwrap_or_default();
            }
        }
        unsafe { write_summary(summary, &planned) };
        Ok(())
    })
}

/// Plans a scatter whose results come back to the root (the return-message model):
/// `items` items over `n_workers` workers with costs `workers[r]` (rank `r`), for the
/// schedule `DIVLOAD_SCHEDULE_BEST`, `_LIFO` or `_FIFO` and the root's port
/// `DIVLOAD_PORT_FULL_DUPLEX` or `_HALF_DUPLEX`. Writes one `divload_return_assignment`
/// per worker into `out`, in send order (the scenario's members first, then the workers
/// left out, with count 0), and the summary into `summary` (which may be null).
///
/// The root of an MPI job is one of the workers: give it `comm_per_item` and
/// `return_per_item` 0 (its part is copied locally) and its own `comp_per_item`.
///
/// Returns `DIVLOAD_NULL_PARAMETER` for a null `workers` or `out`,
/// `DIVLOAD_INVALID_INPUT` for zero workers or items, a bad cost, an unknown schedule or
/// port number or a misaligned pointer, `DIVLOAD_BUFFER_TOO_SMALL` when
/// `out_len < n_workers`, `DIVLOAD_OVERFLOW` beyond 2^53 items, `DIVLOAD_OUT_OF_MEMORY`
/// when the working memory cannot be allocated. Nothing is written unless the result is
/// `DIVLOAD_OK`.
///
/// # Safety
///
/// Each pointer must be null or valid for its length (`n_workers`, `out_len` elements;
/// one element for `summary`).
#[no_mangle]
pub unsafe extern "C" fn divload_plan_returns(
    workers: *const divload_return_worker,
    n_workers: usize,
    items: u64,
    schedule: u32,
    port: u32,
    out: *mut divload_return_assignment,
    out_len: usize,
    summary: *mut divload_returns_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let workers = unsafe { input(workers, n_workers, "workers")? };
        let out = unsafe { output(out, out_len, "out")? };
        let summary = optional_output(summary, "summary")?;
        let core_schedule = match schedule {
            DIVLOAD_SCHEDULE_BEST => returns::Schedule::Best,
            DIVLOAD_SCHEDULE_LIFO => returns::Schedule::Lifo,
            DIVLOAD_SCHEDULE_FIFO => returns::Schedule::Fifo,
            v => {
                return Err(Failure::new(
                    DIVLOAD_INVALID_INPUT,
                    format!("schedule: must be 0 (BEST), 1 (LIFO) or 2 (FIFO), got {v}"),
                ))
            }
        };
        let core_port = port_of(port)?;
        check_len("out", n_workers, out_len)?;
        let planned = compute_returns(workers, items, core_schedule, core_port)?;
        unsafe { write_returns(&planned, schedule, port, out, summary) };
        Ok(())
    })
}

/// Plans with return messages for a scenario the caller chooses: the `members` ranks
/// `send[0..members]` are served in that order and return their results in the order
/// `ret[0..members]` (the same ranks); the other workers get nothing. The throughput is
/// the scenario's optimum (its linear program, at most 256 members); the output is as
/// `divload_plan_returns`'s, with the summary's `schedule` set to
/// `DIVLOAD_SCHEDULE_GIVEN` and `lower_bound` still a bound over every scenario, so the
/// gap says how far the chosen scenario is from the best one.
///
/// Returns the statuses of `divload_plan_returns`, and `DIVLOAD_NULL_PARAMETER` for a
/// null `send` or `ret`, `DIVLOAD_INVALID_INPUT` for zero members, a rank out of range,
/// a rank given twice, or send and return orders that name different ranks,
/// `DIVLOAD_OVERFLOW` for more than 256 members.
///
/// # Safety
///
/// Each pointer must be null or valid for its length (`n_workers` elements for
/// `workers`, `members` for `send` and `ret`, `out_len` for `out`; one element for
/// `summary`).
#[no_mangle]
pub unsafe extern "C" fn divload_plan_returns_scenario(
    workers: *const divload_return_worker,
    n_workers: usize,
    items: u64,
    port: u32,
    send: *const usize,
    ret: *const usize,
    members: usize,
    out: *mut divload_return_assignment,
    out_len: usize,
    summary: *mut divload_returns_summary,
) -> divload_status {
    boundary(|| {
        // SAFETY: the caller's contract, checked for null, alignment and size by `input`.
        let workers = unsafe { input(workers, n_workers, "workers")? };
        let send = unsafe { input(send, members, "send")? };
        let ret = unsafe { input(ret, members, "ret")? };
        let out = unsafe { output(out, out_len, "out")? };
        let summary = optional_output(summary, "summary")?;
        let core_port = port_of(port)?;
        check_len("out", n_workers, out_len)?;
        let planned = compute_returns(workers, items, returns::Schedule::Given { send, ret }, core_port)?;
        unsafe { write_returns(&planned, DIVLOAD_SCHEDULE_GIVEN, port, out, summary) };
        Ok(())
    })
}

fn port_of(port: u32) -> Result<returns::Port, Failure> {
    match port {
        DIVLOAD_PORT_FULL_DUPLEX => Ok(returns::Port::FullDuplex),
        DIVLOAD_PORT_HALF_DUPLEX => Ok(returns::Port::HalfDuplex),
        v => Err(Failure::new(
            DIVLOAD_INVALID_INPUT,
            format!("port: must be 0 (FULL_DUPLEX) or 1 (HALF_DUPLEX), got {v}"),
        )),
    }
}

/// Writes a plan with return messages into the caller's `out` (at least as long as the
/// plan) and `summary`.
///
/// # Safety
///
/// `summary` must come from [`optional_output`] and be valid for one write.
unsafe fn write_returns(
    (plan, s): &(Vec<returns::Assignment<f64>>, returns::Summary<f64>),
    schedule: u32,
    port: u32,
    out: &mut [divload_return_assignment],
    summary: Option<*mut divload_returns_summary>,
) {
    for (k, (o, a)) in out.iter_mut().zip(plan).enumerate() {
        *o = divload_return_assignment {
            rank: a.worker,
            count: a.count,
            displacement: a.displacement,
            send_position: k,
            // The workers left out follow the members (k >= members), so every
            // worker has a distinct return position.
            return_position: a.return_rank.unwrap_or(k),
            member: u32::from(a.return_rank.is_some()),
            share: a.share,
            send_start: a.send_start,
            received: a.received,
            computed: a.computed,
            return_start: a.return_start,
            return_end: a.return_end,
            idle: a.idle,
        };
    }
    if let Some(summary) = summary {
        let value = divload_returns_summary {
            items: s.items,
            schedule,
            port,
            members: s.members,
            participating: s.participating,
            throughput: s.throughput,
            makespan: s.makespan,
            rational_makespan: s.rational_makespan,
            lower_bound: s.lower_bound,
            bound: s.bound,
            even_split_makespan: s.even_split_makespan,
            rational_optimal: s.rational_optimal,
        };
        // SAFETY: non-null and aligned (`optional_output`); validity is the caller's contract.
        unsafe { summary.write(value) };
    }
}

/// Plans with return messages in memory allocated here (fallibly), so nothing reaches the
/// caller's buffers before everything has succeeded.
fn compute_returns(
    workers: &[divload_return_worker],
    items: u64,
    schedule: returns::Schedule<'_>,
    port: returns::Port,
) -> Result<(Vec<returns::Assignment<f64>>, returns::Summary<f64>), Failure> {
    let need = returns::needs(workers.len(), schedule, port)?;
    let mut ws = filled("workers", workers.len(), returns::ReturnWorker::new(0.0, 1.0, 0.0))?;
    for (w, c) in ws.iter_mut().zip(workers) {
        *w = returns::ReturnWorker::new(c.comm_per_item, c.comp_per_item, c.return_per_item);
    }
    let mut plan = filled("returns plan", need.out, returns::Assignment::EMPTY)?;
    let mut scratch = filled("returns scratch", need.scratch, returns::Scratch::EMPTY)?;
    let mut tableau = filled("LP tableau", need.tableau, 0.0)?;
    let problem = returns::Problem { workers: &ws, items, schedule, port };
    let summary = returns::plan(&problem, &mut plan, &mut scratch, &mut tableau)?;
    Ok((plan, summary))
}

/// Plans a document of any model (the JSON format of `divload plan`, its `"model"`
/// naming one of `divload_models_json`'s; see the README) and writes the result document
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
unsafe fn write_document(doc: &[u8], out: &mut [u8], out_n: *mut usize) -> Copied {
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
enum Copied {
    Done,
    TooSmall { needed: usize, got: usize },
}

impl Copied {
    fn or_failure(self, name: &str) -> Result<(), Failure> {
        match self {
            Copied::Done => Ok(()),
            Copied::TooSmall { needed, got } => Err(buffer_failure(name, needed, got)),
        }
    }
}

/// Plans in `ws`: the plan, in send order, lives there until the next call.
fn compute<'w>(
    ws: &'w mut Workspace,
    workers: &[divload_worker],
    root: usize,
    items: u64,
    options: Options,
) -> Result<(&'w [Assignment<f64>], Summary<f64>), Failure> {
    let p = workers.len();
    for (i, (w, c)) in ws.workers(p)?.iter_mut().zip(workers).enumerate() {
        // With a fixed root the scatter model never charges the root's link (its part is
        // not sent: `as_root` and the send order give it λ = 0), so its link costs are
        // zeroed before the core validates them, as `divload_worker` documents.
        let (comm_latency, comm_per_item) =
            if i == root { (0.0, 0.0) } else { (c.comm_latency, c.comm_per_item) };
        *w = Worker {
            comm_latency,
            comm_per_item,
            comp_latency: c.comp_latency,
            comp_per_item: c.comp_per_item,
        };
    }
    Ok(ws.plan(p, root, items, options)?)
}

impl From<HostError> for Failure {
    fn from(e: HostError) -> Failure {
        Failure::new(status::of_host(&e), e.to_string())
    }
}

/// A failed call: its status and the message kept for `divload_last_error_message`.
struct Failure {
    status: divload_status,
    message: String,
}

impl Failure {
    fn new(status: divload_status, message: String) -> Failure {
        Failure { status, message }
    }
}

impl From<divload::Error> for Failure {
    fn from(e: divload::Error) -> Failure {
        Failure::new(status::of_code(e.code()), e.to_string())
    }
}

fn null_failure(name: &str) -> Failure {
    Failure::new(DIVLOAD_NULL_PARAMETER, format!("{name}: must not be a null pointer"))
}

fn buffer_failure(name: &str, needed: usize, got: usize) -> Failure {
    Failure::new(DIVLOAD_BUFFER_TOO_SMALL, format!("{name}: buffer too small, need {needed}, got {got}"))
}

fn check_len(name: &str, needed: usize, got: usize) -> Result<(), Failure> {
    if got < needed {
        Err(buffer_failure(name, needed, got))
    } else {
        Ok(())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The one boundary every export runs in: it records the failure message for the
/// calling thread and never lets a panic unwind into C.
fn boundary(f: impl FnOnce() -> Result<(), Failure>) -> divload_status {
    let (status, message) = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return DIVLOAD_OK,
        Ok(Err(failure)) => (failure.status, failure.message),
        Err(_) => (DIVLOAD_PANIC, status::message(DIVLOAD_PANIC as u32).to_string_lossy().into_owned()),
    };
    // A failure to record the message must not turn into a panic across the boundary.
    let _ = LAST_ERROR.try_with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            *m = message;
        }
    });
    status
}

/// Checks a length against what a slice of `T` can address.
fn check_addressable<T>(len: usize, name: &str) -> Result<(), Failure> {
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Failure::new(
            DIVLOAD_OVERFLOW,
            format!("{name}_len: {len} elements exceed the address space"),
        ));
    }
    Ok(())
}

/// An input slice from C. A null pointer is an error even with length 0, so that a
/// forgotten argument is never mistaken for an empty one.
///
/// # Safety
///
/// `ptr` must be null or valid for reads of `len` elements for the call's duration.
unsafe fn input<'a, T>(ptr: *const T, len: usize, name: &str) -> Result<&'a [T], Failure> {
    check_raw(ptr, len, name)?;
    // SAFETY: non-null, aligned, size within isize::MAX; validity is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Null, alignment and size checks for a pointer and length from C.
fn check_raw<T>(ptr: *const T, len: usize, name: &str) -> Result<(), Failure> {
    if ptr.is_null() {
        return Err(null_failure(name));
    }
    if !ptr.is_aligned() {
        return Err(Failure::new(
            DIVLOAD_INVALID_INPUT,
            format!("{name}: pointer is not aligned for its type"),
        ));
    }
    check_addressable::<T>(len, name)
}

/// An output slice from C; see [`input`].
///
/// # Safety
///
/// `ptr` must be null or valid for writes of `len` elements, not aliasing the inputs.
unsafe fn output<'a, T>(ptr: *mut T, len: usize, name: &str) -> Result<&'a mut [T], Failure> {
    check_raw(ptr.cast_const(), len, name)?;
    // SAFETY: as in `input`.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Options from C: a null pointer means the defaults; unknown numbers are errors (C
/// cannot be trusted to pass a valid Rust enum, which is why the fields are `u32`).
///
/// # Safety
///
/// `options` must be null or valid for one read.
unsafe fn options_or_default(options: *const divload_options) -> Result<Options, Failure> {
    if options.is_null() {
        return Ok(Options::default());
    }
    let o = unsafe { input(options, 1, "options")? }[0];
    let bad = |field: &str, value: u32, range: &str| {
        Failure::new(DIVLOAD_INVALID_INPUT, format!("options.{field}: must be {range}, got {value}"))
    };
    Ok(Options {
        root_mode: match o.root_mode {
            DIVLOAD_ROOT_MODE_AFTER_SEND => RootMode::AfterSend,
            DIVLOAD_ROOT_MODE_OVERLAP => RootMode::Overlap,
            v => return Err(bad("root_mode", v, "0 (AFTER_SEND) or 1 (OVERLAP)")),
        },
        order: match o.order {
            DIVLOAD_ORDER_BANDWIDTH => OrderPolicy::Bandwidth,
            DIVLOAD_ORDER_GIVEN => OrderPolicy::Given,
            v => return Err(bad("order", v, "0 (BANDWIDTH) or 1 (GIVEN)")),
        },
        rounding: match o.rounding {
            DIVLOAD_ROUNDING_GREEDY => Rounding::Greedy,
            DIVLOAD_ROUNDING_LARGEST_REMAINDER => Rounding::LargestRemainder,
            DIVLOAD_ROUNDING_PAPER => Rounding::Paper,
            v => return Err(bad("rounding", v, "0 (GREEDY), 1 (LARGEST_REMAINDER) or 2 (PAPER)")),
        },
    })
}

/// A pointer to one optional output value (a summary). Null means the caller does not
/// want it; anything else is checked as [`output`] checks a buffer, so a misaligned
/// pointer fails the call before any output is written instead of being skipped.
fn optional_output<T>(ptr: *mut T, name: &str) -> Result<Option<*mut T>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    check_raw(ptr.cast_const(), 1, name)?;
    Ok(Some(ptr))
}

/// # Safety
///
/// `summary` must come from [`optional_output`] and be valid for one write.
unsafe fn write_summary(summary: Option<*mut divload_summary>, s: &Summary<f64>) {
    let Some(summary) = summary else { return };
    let value = divload_summary {
        items: s.items,
        root: s.root,
        participating: s.participating,
        makespan: s.makespan,
        rational_makespan: s.rational_makespan,
        lower_bound: s.lower_bound,
        bound: s.bound,
        uniform_makespan: s.uniform_makespan,
        rational_exact: s.rational_exact,
    };
    // SAFETY: non-null and aligned (`optional_output`); validity is the caller's contract.
    unsafe { summary.write(value) };
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use divload::ErrorCode;
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
        for (schedule, makespan) in [
            (DIVLOAD_SCHEDULE_BEST, 13139.0),
            (DIVLOAD_SCHEDULE_LIFO, 14983.0),
            (DIVLOAD_SCHEDULE_FIFO, 13448.0),
        ] {
            let mut out = [divload_return_assignment::default(); 3];
            let mut s = divload_returns_summary::default();
            let st = unsafe {
                divload_plan_returns(b.as_ptr(), 3, 1000, schedule, 0, out.as_mut_ptr(), 3, &mut s)
            };
            assert_eq!(st, DIVLOAD_OK);
            assert_eq!(s.makespan, makespan);
            assert_eq!(out.iter().map(|a| a.count).sum::<u64>(), 1000);
        }
        let mut out = [divload_return_assignment { count: 77, ..Default::default() }; 3];
        let st = unsafe {
            divload_plan_returns(b.as_ptr(), 3, 1000, 0, 9, out.as_mut_ptr(), 3, std::ptr::null_mut())
        };
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
        let plan_with = |workers: &[divload_worker], options: &divload_options| {
            let mut out = vec![divload_assignment::default(); workers.len()];
            let mut s = divload_summary::default();
            let st = unsafe {
                divload_plan(
                    workers.as_ptr(),
                    workers.len(),
                    root,
                    1000,
                    options,
                    out.as_mut_ptr(),
                    out.len(),
                    &mut s,
                )
            };
            (st, out, s)
        };
        for root_mode in [DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_ROOT_MODE_OVERLAP] {
            for order in [DIVLOAD_ORDER_BANDWIDTH, DIVLOAD_ORDER_GIVEN] {
                let options = divload_options { root_mode, order, rounding: DIVLOAD_ROUNDING_GREEDY };
                let mut zero = base.clone();
                zero[root].comm_latency = 0.0;
                zero[root].comm_per_item = 0.0;
                let expected = plan_with(&zero, &options);
                assert_eq!(expected.0, DIVLOAD_OK);
                for (latency, per_item) in
                    [(f64::NAN, f64::NAN), (-1.0, -1.0), (f64::INFINITY, 5.0), (3.0, 1e-6)]
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
        let codes =
            [ErrorCode::InvalidInput, ErrorCode::BufferTooSmall, ErrorCode::Overflow, ErrorCode::Json];
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
        let st = unsafe {
            divload_plan(workers.as_ptr(), 2, 0, 100, std::ptr::null(), plan.as_mut_ptr(), 2, &mut s)
        };
        assert_eq!((st, s.items), (DIVLOAD_OK, 100));
    }
}

// ---- The multi-cluster model (heien) with typed outputs: counts for MPI codes. ----------

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
/// `divload plan`; see the README) and writes one `divload_multicluster_processor` per
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
mod multicluster_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
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

// ---- Any model's plan as per-worker shares: counts for MPI codes of every model. ------

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

/// Plans a document of any model (the JSON format of `divload plan`; see the README) and
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
fn plan_summary(report: &divload::Report<f64>, shares: &[divload::doc::Share]) -> divload_plan_summary {
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
mod shares_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
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
