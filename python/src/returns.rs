//! The typed path of the return-message model: per-rank costs c, w, d as numpy arrays to
//! counts and displacements by rank, with the send and return orders, through the core's
//! `divload::returns::plan` (the slides' LIFO and FIFO theorems, the scenario LP), as the
//! C library's `divload_plan_returns` gives them to `divload_mpi.h`.

use divload::doc;
use divload::returns::{self, Assignment, Problem, ReturnWorker, Scratch};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{no_panic, Failure};
use crate::{host, option};

/// Counts and displacements by rank, and the summary with the orders and times.
type Planned<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyDict>);

/// Plans `items` items over the workers whose costs are given by rank; see
/// `divload.returns_counts` (Python). The plan runs without the GIL.
#[pyfunction]
#[pyo3(signature = (comm_per_item, comp_per_item, return_per_item, items, schedule, port))]
pub(crate) fn returns_counts<'py>(
    py: Python<'py>,
    comm_per_item: PyReadonlyArray1<'py, f64>,
    comp_per_item: PyReadonlyArray1<'py, f64>,
    return_per_item: PyReadonlyArray1<'py, f64>,
    items: u64,
    schedule: &str,
    port: &str,
) -> PyResult<Planned<'py>> {
    let fail = |f: Failure| f.into_pyerr(py);
    let schedule = option(&doc::returns::SCHEDULE, schedule).map_err(fail)?;
    let port = option(&doc::returns::PORT, port).map_err(fail)?;
    let (c, w, d) = (comm_per_item.as_array(), comp_per_item.as_array(), return_per_item.as_array());
    let p = c.len();
    for (name, len) in [("comp_per_item", w.len()), ("return_per_item", d.len())] {
        if len != p {
            let message = format!("{name}: {len} values, but comm_per_item has {p} (one per rank)");
            return Err(fail(Failure::invalid(message)));
        }
    }
    let workers = no_panic(|| {
        let mut workers = host::filled("workers", p, ReturnWorker::new(0.0, 1.0, 0.0))?;
        for (i, worker) in workers.iter_mut().enumerate() {
            *worker = ReturnWorker::new(c[i], w[i], d[i]);
        }
        Ok(workers)
    })
    .map_err(fail)?;
    let (plan, s) = py
        .detach(|| {
            no_panic(|| {
                let needs = returns::needs(p, schedule, port)?;
                let mut out = host::filled("plan", needs.out, Assignment::EMPTY)?;
                let mut scratch = host::filled("scratch", needs.scratch, Scratch::EMPTY)?;
                let mut tableau = host::filled("LP tableau", needs.tableau, 0.0f64)?;
                let problem = Problem { workers: &workers, items, schedule, port };
                let summary = returns::plan(&problem, &mut out, &mut scratch, &mut tableau)?;
                out.truncate(p);
                Ok((out, summary))
            })
        })
        .map_err(fail)?;
    drop(workers);

    let ints = |what| host::filled(what, p, 0i64).map_err(fail);
    let floats = |what| host::filled(what, p, 0.0f64).map_err(fail);
    let (mut counts, mut displs, mut send_order) =
        (ints("counts")?, ints("displacements")?, ints("send order")?);
    let mut return_position = ints("return positions")?;
    let mut return_order = host::filled("return order", s.members.min(p), 0i64).map_err(fail)?;
    let [mut send_start, mut received, mut computed, mut return_start, mut return_end, mut idle] = [
        floats("times")?,
        floats("times")?,
        floats("times")?,
        floats("times")?,
        floats("times")?,
        floats("times")?,
    ];
    let rank = |r: usize| i64::try_from(r).unwrap_or(i64::MAX);
    for (k, a) in plan.iter().enumerate() {
        let r = a.worker;
        counts[r] = i64::try_from(a.count).unwrap_or(i64::MAX);
        displs[r] = i64::try_from(a.displacement).unwrap_or(i64::MAX);
        send_order[k] = rank(r);
        return_position[r] = a.return_rank.map_or(-1, rank);
        if let Some(slot) = a.return_rank.and_then(|t| return_order.get_mut(t)) {
            *slot = rank(r);
        }
        send_start[r] = a.send_start;
        received[r] = a.received;
        computed[r] = a.computed;
        return_start[r] = a.return_start;
        return_end[r] = a.return_end;
        idle[r] = a.idle;
    }
    let report = s.report();
    let dict = PyDict::new(py);
    dict.set_item("makespan", s.makespan)?;
    dict.set_item("lower_bound", s.lower_bound)?;
    dict.set_item("gap", report.gap())?;
    dict.set_item("method", s.method.name())?;
    dict.set_item("exact", report.exact)?;
    dict.set_item("send_order", send_order.into_pyarray(py))?;
    dict.set_item("return_order", return_order.into_pyarray(py))?;
    dict.set_item("return_position", return_position.into_pyarray(py))?;
    for (key, times) in [
        ("send_start", send_start),
        ("received", received),
        ("computed", computed),
        ("return_start", return_start),
        ("return_end", return_end),
        ("idle", idle),
    ] {
        dict.set_item(key, times.into_pyarray(py))?;
    }
    dict.set_item("rational_makespan", s.rational_makespan)?;
    dict.set_item("bound", s.bound)?;
    dict.set_item("throughput", s.throughput)?;
    dict.set_item("throughput_bound", s.throughput_bound)?;
    dict.set_item("rational_optimal", s.rational_optimal)?;
    dict.set_item("even_split_makespan", s.even_split_makespan)?;
    dict.set_item("speedup", divload::report::speedup(s.even_split_makespan, s.makespan))?;
    dict.set_item("participating", s.participating)?;
    dict.set_item("members", s.members)?;
    dict.set_item("items", s.items)?;
    dict.set_item("schedule", doc::returns::SCHEDULE.name(schedule))?;
    dict.set_item("port", doc::returns::PORT.name(port))?;
    Ok((counts.into_pyarray(py), displs.into_pyarray(py), dict))
}
