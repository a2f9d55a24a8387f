//! Every call this crate makes to `divload-host`, and nothing else: the host's API may
//! change shape (its `plan_json` taking the sampled DP's workspace as const generics, for
//! one), and then this file is the only one to adapt.

use divload_host::HostError;

use crate::error::{Failure, OUT_OF_MEMORY};

/// The sampled DP's workspace for documents that ask for it: the command line's (4096
/// sizes, at most 256 workers), so that `divload.plan` gives what `divload plan --json`
/// prints.
const SAMPLES: usize = 4096;
const SAMPLED_WORKERS: usize = 256;

/// Any model's document to its result document (`divload_host::plan_json`).
pub(crate) fn plan_json(text: &[u8]) -> Result<Vec<u8>, Failure> {
    divload_host::plan_json::<SAMPLES, SAMPLED_WORKERS>(text).map_err(failure)
}

/// `[{"name", "title", "paper"}, …]`: the models a document can name.
pub(crate) fn models_json() -> Result<Vec<u8>, Failure> {
    divload_host::models_json().map_err(failure)
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
