//! `divload._divload`, the compiled half of the `divload` Python package: every model's
//! documents through the host's `plan_json` (as the command line, the C library and the
//! browser page plan them), and the scatter's counts straight from numpy arrays. The
//! Python half (`python/divload/`) checks argument types, documents the API and holds the
//! MPI helpers.

mod error;
mod host;
mod returns;
mod scatter;

use divload::doc::names::Names;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use error::{no_panic, Failure};

/// Plans any model's document (JSON text) and returns the result document's text.
///
/// Every allocation sized by the document or its plan is fallible (out of memory is a
/// `DivloadError` with the C library's code, not an abort of the interpreter): the text's
/// copy, the plan's arena, the `bytes` returned, the arrays of `plan_shares`.
#[pyfunction]
fn plan_json(py: Python<'_>, document: &[u8]) -> PyResult<Py<PyBytes>> {
    let text = host::copied("document", document).map_err(|f| f.into_pyerr(py))?;
    py.detach(|| no_panic(|| host::plan_json(&text))).map_err(|f| f.into_pyerr(py))
}

/// Plans any model's document (JSON text) into each worker's count, displacement and
/// position (-1 when left out), in the document's order (an entry with `count: k` is k
/// workers), and the plan's summary: what MPI codes scatter with, as C's
/// `divload_plan_shares` gives it.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn plan_shares<'py>(
    py: Python<'py>,
    document: &[u8],
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyDict>,
)> {
    let fail = |f: Failure| f.into_pyerr(py);
    let text = host::copied("document", document).map_err(fail)?;
    let (shares, report) = py.detach(|| no_panic(|| host::plan_shares(&text))).map_err(fail)?;
    drop(text);
    // Counts and displacements are at most the item count, which documents bound by 2^53.
    let counts = column(&shares, "counts", |s| i64::try_from(s.count).unwrap_or(i64::MAX)).map_err(fail)?;
    let displs = column(&shares, "displacements", |s| i64::try_from(s.displacement).unwrap_or(i64::MAX))
        .map_err(fail)?;
    let positions = column(&shares, "positions", |s| s.position.map_or(-1, i64::from)).map_err(fail)?;
    drop(shares);
    let summary = report_dict(py, &report)?;
    Ok((counts.into_pyarray(py), displs.into_pyarray(py), positions.into_pyarray(py), summary))
}

/// Plans a document sent in installments into its chunks in send order: the rank of
/// each, its count and displacement (`int64`), its send start and end and compute start
/// and end (a `float64` array of k rows by 4), and the plan's summary, as C's
/// `divload_plan_chunks` gives them.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn plan_chunks<'py>(
    py: Python<'py>,
    document: &[u8],
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyDict>,
)> {
    let fail = |f: Failure| f.into_pyerr(py);
    let text = host::copied("document", document).map_err(fail)?;
    let (pieces, report) = py.detach(|| no_panic(|| host::plan_pieces(&text))).map_err(fail)?;
    drop(text);
    if pieces.is_empty() {
        return Err(Failure::invalid(
            "document: this plan sends each worker its share in one message (no \"installments\", \"deadline\", \
             \"max_items\", \"available_at\" or \"distribute_only\"); give \"installments\" or use shares()"
                .to_string(),
        )
        .into_pyerr(py));
    }
    // Ranks are at most the workers' limit, counts and displacements the items (2^53).
    let ranks = column(&pieces, "ranks", |p| i64::try_from(p.worker).unwrap_or(i64::MAX)).map_err(fail)?;
    let counts = column(&pieces, "counts", |p| i64::try_from(p.count).unwrap_or(i64::MAX)).map_err(fail)?;
    let displs = column(&pieces, "displacements", |p| i64::try_from(p.displacement).unwrap_or(i64::MAX))
        .map_err(fail)?;
    let mut times = host::filled("times", pieces.len().saturating_mul(4), 0.0f64).map_err(fail)?;
    for (row, p) in times.chunks_exact_mut(4).zip(&pieces) {
        row.copy_from_slice(&[p.send_start, p.send_end, p.compute_start, p.compute_end]);
    }
    drop(pieces);
    let summary = report_dict(py, &report)?;
    Ok((
        ranks.into_pyarray(py),
        counts.into_pyarray(py),
        displs.into_pyarray(py),
        times.into_pyarray(py),
        summary,
    ))
}

/// One `int64` value per row, allocated fallibly (a numpy array's buffer).
fn column<T>(rows: &[T], what: &'static str, value: fn(&T) -> i64) -> Result<Vec<i64>, Failure> {
    let mut v = host::filled(what, rows.len(), 0i64)?;
    for (x, r) in v.iter_mut().zip(rows) {
        *x = value(r);
    }
    Ok(v)
}

/// A plan's report as the summary dict every document call returns.
fn report_dict<'py>(py: Python<'py>, report: &divload::Report<f64>) -> PyResult<Bound<'py, PyDict>> {
    let summary = PyDict::new(py);
    summary.set_item("method", report.method.name())?;
    summary.set_item("makespan", report.makespan)?;
    summary.set_item("lower_bound", report.lower_bound)?;
    summary.set_item("gap", report.gap())?;
    summary.set_item("exact", report.exact)?;
    Ok(summary)
}

/// The models a document can name, as JSON text.
#[pyfunction]
fn models_json(py: Python<'_>) -> PyResult<Vec<u8>> {
    no_panic(host::models_json).map_err(|f| f.into_pyerr(py))
}

/// A ready-to-edit document of one model, as JSON text.
#[pyfunction]
fn example(py: Python<'_>, model: &str) -> PyResult<&'static str> {
    match divload::doc::model(model) {
        Some(m) => Ok(m.example()),
        None => {
            let known: Vec<&str> = divload::doc::MODELS.iter().map(|m| m.name).collect();
            let message = format!("model: unknown model {model:?} (known: {})", known.join(", "));
            Err(Failure::invalid(message).into_pyerr(py))
        }
    }
}

/// An option by its name in documents (`-` and `_` alike, as on the command line).
fn option<T: Copy + PartialEq>(table: &'static Names<T>, name: &str) -> Result<T, Failure> {
    table
        .parse_str(&name.replace('-', "_"))
        .ok_or_else(|| Failure::invalid(format!("{}: {}, got {name:?}", table.key, table.expected)))
}

#[pymodule]
fn _divload(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(plan_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan_shares, m)?)?;
    m.add_function(wrap_pyfunction!(plan_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(models_json, m)?)?;
    m.add_function(wrap_pyfunction!(example, m)?)?;
    m.add_function(wrap_pyfunction!(scatter::scatter_counts, m)?)?;
    m.add_function(wrap_pyfunction!(returns::returns_counts, m)?)?;
    // The C status numbers the Python half raises itself with (checks before the core).
    m.add("INVALID_INPUT", error::INVALID_INPUT)?;
    m.add("OVERFLOW", divload::ErrorCode::Overflow as u32)?;
    m.add("JSON", divload::ErrorCode::Json as u32)?;
    m.add("OUT_OF_MEMORY", error::OUT_OF_MEMORY)?;
    m.add("PANIC", error::PANIC)?;
    Ok(())
}
