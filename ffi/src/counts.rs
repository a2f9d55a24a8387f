//! The closed form's plan as typed arrays (genaud2003, the scatter): `divload_plan` with
//! its workers, options, assignments and summary, and the counts by rank an MPI code
//! hands to `MPI_Scatterv` (`divload_plan_counts`, `divload_plan_counts64`).

use std::ffi::c_int;

use divload::{Assignment, Options, OrderPolicy, RootMode, Rounding, Summary, Worker};
use divload_host::Workspace;

use crate::boundary::{boundary, buffer_failure, check_len, input, optional_output, output, Failure};
use crate::divload_status::{self, *};
use crate::workspace::divload_workspace;

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
pub(crate) unsafe fn plan_by_rank<T: Count>(
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
        if let (Some(counts), Some(displs)) = (T::words(counts), T::words(displs)) {
            if root_link_valid(workers, root) && times_fit(workers, items) {
                let planned =
                    ws.plan_counts_over(as_workers(workers), root, items, options, counts, displs)?;
                unsafe { write_summary(summary, &planned) };
                return Ok(());
            }
        }
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

/// Options from C: a null pointer means the defaults; unknown numbers are errors (C
/// cannot be trusted to pass a valid Rust enum, which is why the fields are `u32`).
///
/// # Safety
///
/// `options` must be null or valid for one read.
pub(crate) unsafe fn options_or_default(options: *const divload_options) -> Result<Options, Failure> {
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

/// # Safety
///
/// `summary` must come from [`optional_output`] and be valid for one write.
pub(crate) unsafe fn write_summary(summary: Option<*mut divload_summary>, s: &Summary<f64>) {
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

/// Plans in `ws`: the plan, in send order, lives there until the next call.
pub(crate) fn compute<'w>(
    ws: &'w mut Workspace,
    workers: &[divload_worker],
    root: usize,
    items: u64,
    options: Options,
) -> Result<(&'w [Assignment<f64>], Summary<f64>), Failure> {
    let p = workers.len();
    if root_link_valid(workers, root) {
        return Ok(ws.plan_over(as_workers(workers), root, items, options)?);
    }
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

/// Whether the root's link costs pass the core's checks. The core never charges them (its
/// part is not sent: `as_root` and the send order give it λ = 0), so then the caller's
/// array is planned in place, with the same plan to the bit (`a_root_link_changes_no_plan`
/// in the core's tests); otherwise it is copied with them zeroed, as `divload_worker`
/// documents. A root out of range: in place, and the core names it.
fn root_link_valid(workers: &[divload_worker], root: usize) -> bool {
    workers
        .get(root)
        .is_none_or(|r| [r.comm_latency, r.comm_per_item].iter().all(|v| v.is_finite() && *v >= 0.0))
}

/// Whether no time of any plan of `items` over `workers`, nor of its summary, can overflow:
/// each is at most every link's time for all the items plus the slowest computation of
/// them all (the bound adds that much again), so below 10³⁰⁰ they all stay finite. Then
/// the core's only errors are those it finds before it writes a row (the inputs, the
/// buffers, the root), and `plan_counts` may plan in the caller's arrays while keeping
/// "nothing is written unless the result is DIVLOAD_OK". NaN and infinite costs fail here
/// and take the other path, which reports them.
fn times_fit(workers: &[divload_worker], items: u64) -> bool {
    let n = items as f64;
    // Four sums and maxima side by side: one chain of additions was a 4-cycle wait per
    // worker. Any order of the additions serves a bound this far from the overflow.
    let (mut links, mut slowest) = ([0.0f64; 4], [0.0f64; 4]);
    let chunks = workers.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks.chain([rest]) {
        for ((l, s), w) in links.iter_mut().zip(slowest.iter_mut()).zip(chunk) {
            *l += w.comm_latency + w.comm_per_item * n;
            *s = s.max(w.comp_latency + w.comp_per_item * n);
        }
    }
    let links = (links[0] + links[1]) + (links[2] + links[3]);
    let slowest = slowest.iter().fold(0.0f64, |a, &b| a.max(b));
    links + slowest < 1e300
}

/// A count type of the C calls: `int` or 64-bit.
pub(crate) trait Count: TryFrom<u64> + Default + Sized {
    /// The caller's array as the words the core writes in place, where a count is one
    /// 64-bit word (every count and displacement is at most 2⁵³, so the same bits as a
    /// signed one); `None` for `int`.
    fn words(slice: &mut [Self]) -> Option<&mut [u64]>;
}

impl Count for c_int {
    fn words(_: &mut [Self]) -> Option<&mut [u64]> {
        None
    }
}

impl Count for i64 {
    fn words(slice: &mut [i64]) -> Option<&mut [u64]> {
        // SAFETY: `i64` and `u64` have the same size and alignment and every bit pattern is
        // valid for both; the slice's lifetime and length carry over.
        Some(unsafe { std::slice::from_raw_parts_mut(slice.as_mut_ptr().cast::<u64>(), slice.len()) })
    }
}

/// The caller's workers as the core's, without a copy: `divload_worker` and
/// `Worker<f64>` are both `repr(C)` structs of the same four `f64` fields in the same order,
/// which the assertions below hold the two definitions to.
fn as_workers(workers: &[divload_worker]) -> &[Worker<f64>] {
    const _: () = {
        assert!(size_of::<divload_worker>() == size_of::<Worker<f64>>());
        assert!(align_of::<divload_worker>() == align_of::<Worker<f64>>());
        macro_rules! same_offsets {
            ($($field:ident),*) => {
                $(assert!(std::mem::offset_of!(divload_worker, $field) == std::mem::offset_of!(Worker<f64>, $field));)*
            };
        }
        same_offsets!(comm_latency, comm_per_item, comp_latency, comp_per_item);
    };
    // SAFETY: same size, alignment and field offsets (asserted above), every bit pattern
    // of either is a valid value of the other (four `f64`), and the slice's lifetime and
    // length carry over.
    unsafe { std::slice::from_raw_parts(workers.as_ptr().cast::<Worker<f64>>(), workers.len()) }
}
