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
use pyo3::prelude::*;

use error::{no_panic, Failure};

/// Plans any model's document (JSON text) and returns the result document's text.
#[pyfunction]
fn plan_json(py: Python<'_>, document: &[u8]) -> PyResult<Vec<u8>> {
    let text = document.to_vec();
    py.detach(|| no_panic(|| host::plan_json(&text))).map_err(|f| f.into_pyerr(py))
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
