//! Return messages with typed arrays (the slides' LIFO, FIFO and best scenario):
//! `divload_plan_returns` and `divload_plan_returns_scenario`.

use divload::returns;
use divload_host::filled;

use crate::boundary::{boundary, check_len, input, optional_output, output, Failure};
use crate::divload_status::{self, *};

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

pub(crate) fn port_of(port: u32) -> Result<returns::Port, Failure> {
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
pub(crate) unsafe fn write_returns(
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
pub(crate) fn compute_returns(
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
