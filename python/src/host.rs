//! Every call this crate makes to `divload-host`, and nothing else: if the host's API
//! changes shape, this file is the only one to adapt.

use divload_host::HostError;
pub(crate) use divload_host::Workspace;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::{Failure, OUT_OF_MEMORY};

/// Any model's document to its result document as Python `bytes` (`divload_host::with_plan`:
/// the same path, and the same sampled DP workspace, as `divload plan --json`). Called
/// without the GIL; it is taken for the copy alone, made from the plan's arena into the
/// `bytes` object, whose allocation Python reports: no copy in between that would need
/// the document's size again while the solver's memory is held, nor one that aborts the
/// interpreter when it fails.
pub(crate) fn plan_json(text: &[u8]) -> Result<Py<PyBytes>, Failure> {
    divload_host::with_plan(text, None, |planned| {
        let doc = planned.document;
        Python::attach(|py| {
            PyBytes::new_with(py, doc.len(), |b| {
                b.copy_from_slice(doc);
                Ok(())
            })
            .map(Bound::unbind)
            // Its only failure is the allocation (the MemoryError it raised is taken).
            .map_err(|_| HostError::OutOfMemory { what: "result document", bytes: doc.len() })
        })
    })
    .map_err(failure)
}

/// Any model's document to each worker's share (document order) and the plan's report
/// (`divload_host::plan_shares`, as C's `divload_plan_shares`).
pub(crate) fn plan_shares(text: &[u8]) -> Result<(Vec<divload::doc::Share>, divload::Report<f64>), Failure> {
    divload_host::plan_shares(text).map_err(failure)
}

/// A document sent in installments to its messages in send order and the plan's report
/// (`divload_host::plan_pieces`, as C's `divload_plan_chunks`).
pub(crate) fn plan_pieces(text: &[u8]) -> Result<(Vec<divload::doc::Piece>, divload::Report<f64>), Failure> {
    divload_host::plan_pieces(text).map_err(failure)
}

/// The `p` workers of a workspace, for the caller to write (`Workspace::workers`).
pub(crate) fn workspace_workers(
    ws: &mut divload_host::Workspace,
    p: usize,
) -> Result<&mut [divload::Worker<f64>], Failure> {
    ws.workers(p).map_err(failure)
}

/// Plans the workspace's `p` workers into counts, displacements and finish times by rank
/// (`Workspace::plan_counts`): the summary and the send order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn workspace_plan_counts<'w>(
    ws: &'w mut divload_host::Workspace,
    p: usize,
    root: usize,
    items: u64,
    options: divload::Options,
    counts: &mut [u64],
    displs: &mut [u64],
    finish: Option<&mut [f64]>,
) -> Result<divload_host::Counted<'w>, Failure> {
    ws.plan_counts(p, root, items, options, counts, displs, finish).map_err(failure)
}

/// `[{"name", "title", "paper"}, …]`: the models a document can name.
pub(crate) fn models_json() -> Result<Vec<u8>, Failure> {
    divload_host::models_json().map_err(failure)
}

/// A copy of `items`, allocated fallibly (`to_vec` aborts the interpreter when it fails).
pub(crate) fn copied<T: Clone>(what: &'static str, items: &[T]) -> Result<Vec<T>, Failure> {
    divload_host::copied(what, items).map_err(failure)
}

/// `n` copies of `value`, allocated fallibly: out of memory is a failure, not an abort
/// of the interpreter.
pub(crate) fn filled<T: Clone>(what: &'static str, n: usize, value: T) -> Result<Vec<T>, Failure> {
    divload_host::filled(what, n, value).map_err(failure)
}

fn failure(e: HostError) -> Failure {
    match e {
        HostError::Core(e) => e.into(),
        e @ HostError::OutOfMemory { .. } => Failure::new(OUT_OF_MEMORY, e.to_string()),
    }
}
