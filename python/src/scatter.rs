//! The typed fast path: per-rank costs as numpy arrays to `MPI_Scatterv` counts and
//! displacements, through the core's closed form (`divload::plan`, genaud2003 Thm 1–3
//! and §3.3) without writing or reading a document.

use crate::host::Workspace;
use divload::doc;
use divload::scatter::installments::RootWork;
use divload::{Options, RootMode, Summary, Worker};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{no_panic, Failure};
use crate::host;
use crate::option;

/// What `scatter_counts` hands back to Python: counts and displacements by rank (none
/// when the caller gave its arrays, which then hold them), and the summary as a dict
/// (with the send order and the predicted finish times by rank).
type Planned<'py> =
    (Option<Bound<'py, PyArray1<i64>>>, Option<Bound<'py, PyArray1<i64>>>, Bound<'py, PyDict>);

// The planner's memory, kept between calls on each thread (issue 45).
thread_local! {
    static WORKSPACE: std::cell::RefCell<Workspace> = const { std::cell::RefCell::new(Workspace::new()) };
}

/// Plans `items` items over the workers whose costs are given by rank; see
/// `divload.scatter_counts` (Python) for the arguments. The costs are copied into the
/// core's workers with the GIL held; the plan runs without it. `out_counts` and
/// `out_displs` (given together; the caller's `int64` arrays seen as `uint64`, which
/// counts up to 2⁵³ leave the same bits) and `out_finish` are written in place of fresh
/// arrays: a loop that re-plans as many ranks then allocates only the send order.
#[pyfunction]
#[pyo3(signature = (comm_per_item, comp_per_item, comm_latency, comp_latency, items, root, order, rounding, root_mode, out_counts=None, out_displs=None, out_finish=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_counts<'py>(
    py: Python<'py>,
    comm_per_item: PyReadonlyArray1<'py, f64>,
    comp_per_item: PyReadonlyArray1<'py, f64>,
    comm_latency: Option<PyReadonlyArray1<'py, f64>>,
    comp_latency: Option<PyReadonlyArray1<'py, f64>>,
    items: u64,
    root: usize,
    order: &str,
    rounding: &str,
    root_mode: &str,
    mut out_counts: Option<PyReadwriteArray1<'py, u64>>,
    mut out_displs: Option<PyReadwriteArray1<'py, u64>>,
    mut out_finish: Option<PyReadwriteArray1<'py, f64>>,
) -> PyResult<Planned<'py>> {
    let fail = |f: Failure| f.into_pyerr(py);
    let options = Options {
        order: option(&doc::scatter::ORDER, order).map_err(fail)?,
        rounding: option(&doc::scatter::ROUNDING, rounding).map_err(fail)?,
        root_mode: match option(&doc::scatter::ROOT_MODE, root_mode).map_err(fail)? {
            RootWork::AfterSend => RootMode::AfterSend,
            RootWork::Overlap => RootMode::Overlap,
            RootWork::None => {
                return Err(fail(Failure::invalid(
                    "root_mode: \"distribute_only\" is planned with installments: give a document to divload.plan",
                )))
            }
        },
    };
    let given = match (out_counts.as_mut(), out_displs.as_mut()) {
        (Some(c), Some(d)) => Some(Given {
            counts: c.as_slice_mut().map_err(|_| fail(not_contiguous("out counts")))?,
            displs: d.as_slice_mut().map_err(|_| fail(not_contiguous("out displacements")))?,
            finish: match out_finish.as_mut() {
                Some(f) => Some(f.as_slice_mut().map_err(|_| fail(not_contiguous("out finish times")))?),
                None => None,
            },
        }),
        (None, None) if out_finish.is_none() => None,
        _ => {
            return Err(fail(Failure::invalid(
                "out: give the counts and the displacements arrays together (the finish times' array only with them)",
            )))
        }
    };
    // The planner's memory is kept between calls on this thread: re-planning as many
    // workers allocates only the arrays returned.
    let (by_rank, summary) = WORKSPACE
        .with(|cell| {
            let mut local = Workspace::new();
            let mut kept = cell.try_borrow_mut();
            let ws = match kept.as_deref_mut() {
                Ok(ws) => ws,
                Err(_) => &mut local,
            };
            let p = no_panic(|| {
                workers(
                    ws,
                    &comm_per_item,
                    &comp_per_item,
                    comm_latency.as_ref(),
                    comp_latency.as_ref(),
                    root,
                )
            })?;
            py.detach(|| no_panic(|| solve(ws, p, root, items, options, given)))
        })
        .map_err(fail)?;
    let s = summary;
    let report = s.report();
    let dict = PyDict::new(py);
    dict.set_item("makespan", s.makespan)?;
    dict.set_item("lower_bound", s.lower_bound)?;
    dict.set_item("gap", report.gap())?;
    dict.set_item("method", s.method.name())?;
    dict.set_item("exact", report.exact)?;
    dict.set_item("order", by_rank.send_order.into_pyarray(py))?;
    dict.set_item("finish", by_rank.finish.map(|f| f.into_pyarray(py)))?;
    dict.set_item("rational_makespan", s.rational_makespan)?;
    dict.set_item("rational_exact", s.rational_exact)?;
    dict.set_item("bound", s.bound)?;
    dict.set_item("uniform_makespan", s.uniform_makespan)?;
    dict.set_item("speedup", s.speedup())?;
    dict.set_item("participating", s.participating)?;
    dict.set_item("items", s.items)?;
    dict.set_item("root", s.root)?;
    Ok((by_rank.counts.map(|c| c.into_pyarray(py)), by_rank.displs.map(|d| d.into_pyarray(py)), dict))
}

fn not_contiguous(what: &str) -> Failure {
    Failure::invalid(format!("{what}: must be a contiguous, writeable one-dimensional array"))
}

/// The core's workers from the columns, the root's link zeroed as the C library does
/// (its part is never sent, so any value is accepted there, NaN included). A root out of
/// range zeroes nothing and the core names it, after any bad cost, as in C.
fn workers(
    ws: &mut Workspace,
    comm_per_item: &PyReadonlyArray1<'_, f64>,
    comp_per_item: &PyReadonlyArray1<'_, f64>,
    comm_latency: Option<&PyReadonlyArray1<'_, f64>>,
    comp_latency: Option<&PyReadonlyArray1<'_, f64>>,
    root: usize,
) -> Result<usize, Failure> {
    let (comm, comp) = (comm_per_item.as_array(), comp_per_item.as_array());
    let p = comm.len();
    let same_length = |name: &str, len: usize| {
        if len == p {
            Ok(())
        } else {
            Err(Failure::invalid(format!("{name}: {len} values, but comm_per_item has {p} (one per rank)")))
        }
    };
    same_length("comp_per_item", comp.len())?;
    let comm_latency = comm_latency.map(|a| a.as_array());
    let comp_latency = comp_latency.map(|a| a.as_array());
    if let Some(a) = &comm_latency {
        same_length("comm_latency", a.len())?;
    }
    if let Some(a) = &comp_latency {
        same_length("comp_latency", a.len())?;
    }
    // Column by column, each read in order (indexing each array per worker was a tenth of
    // a 10⁶-worker call).
    let out = host::workspace_workers(ws, p)?;
    for ((w, &comm_per_item), &comp_per_item) in out.iter_mut().zip(comm.iter()).zip(comp.iter()) {
        *w = Worker { comm_latency: 0.0, comm_per_item, comp_latency: 0.0, comp_per_item };
    }
    if let Some(a) = &comm_latency {
        for (w, &x) in out.iter_mut().zip(a.iter()) {
            w.comm_latency = x;
        }
    }
    if let Some(a) = &comp_latency {
        for (w, &x) in out.iter_mut().zip(a.iter()) {
            w.comp_latency = x;
        }
    }
    if let Some(w) = out.get_mut(root) {
        (w.comm_latency, w.comm_per_item) = (0.0, 0.0);
    }
    Ok(p)
}

/// The plan as `scatter_counts` returns it: by rank (fresh arrays, or none where the
/// caller's hold it), and the ranks in send order.
struct ByRank {
    counts: Option<Vec<i64>>,
    displs: Option<Vec<i64>>,
    finish: Option<Vec<f64>>,
    send_order: Vec<i64>,
}

/// The caller's arrays that a plan by rank is written into (`out=`).
struct Given<'a> {
    counts: &'a mut [u64],
    displs: &'a mut [u64],
    finish: Option<&'a mut [f64]>,
}

/// The core's closed form straight into counts, displacements and finish times by rank
/// (`divload::scatter::plan_counts`: the thread's workspace keeps a scratch record and the
/// send order, 72 bytes a worker, besides the workers' copy), without the GIL: into the
/// caller's arrays when it `given` them, else into fresh ones.
fn solve(
    ws: &mut Workspace,
    p: usize,
    root: usize,
    items: u64,
    options: Options,
    given: Option<Given<'_>>,
) -> Result<(ByRank, Summary<f64>), Failure> {
    let fresh = given.is_none();
    let (mut counts, mut displs, mut finish) = (Vec::new(), Vec::new(), Vec::new());
    let out = match given {
        Some(g) => g,
        None => {
            counts = host::filled("counts", p, 0u64)?;
            displs = host::filled("displacements", p, 0u64)?;
            finish = host::filled("finish times", p, 0.0f64)?;
            Given { counts: &mut counts, displs: &mut displs, finish: Some(&mut finish) }
        }
    };
    let lengths = [("out counts", out.counts.len()), ("out displacements", out.displs.len())];
    for (what, len) in lengths.into_iter().chain(out.finish.as_ref().map(|f| ("out finish times", f.len()))) {
        if len != p {
            return Err(Failure::invalid(format!(
                "{what}: {len} values, but there are {p} ranks (one per rank)"
            )));
        }
    }
    let planned =
        host::workspace_plan_counts(ws, p, root, items, options, out.counts, out.displs, out.finish)?;
    let (summary, send_order) = (planned.summary, copied_ints(planned.order)?);
    // Counts and displacements are at most `items` ≤ 2⁵³ (the core's limit in f64), and
    // ranks below the length of a slice: no conversion below saturates (each collects in
    // place, the same size and alignment).
    let int = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
    let by_rank = if fresh {
        ByRank {
            counts: Some(counts.into_iter().map(int).collect()),
            displs: Some(displs.into_iter().map(int).collect()),
            finish: Some(finish),
            send_order,
        }
    } else {
        ByRank { counts: None, displs: None, finish: None, send_order }
    };
    Ok((by_rank, summary))
}

/// `order` as the `int64` array Python gets.
fn copied_ints(order: &[u64]) -> Result<Vec<i64>, Failure> {
    let mut out = host::filled("send order", order.len(), 0i64)?;
    for (o, &r) in out.iter_mut().zip(order) {
        *o = i64::try_from(r).unwrap_or(i64::MAX);
    }
    Ok(out)
}
