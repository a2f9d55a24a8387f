//! One failure type for everything the extension reports, turned into the Python
//! exception `divload.DivloadError` (defined in `divload/_errors.py`, so that its
//! attributes and docstring are plain Python) with divload's message and its stable code:
//! the number the C library returns for the same failure (`divload_status`).

use pyo3::prelude::*;
use pyo3::types::PyAnyMethods;

/// `DIVLOAD_INVALID_INPUT`. The C numbers of core errors come from `divload::ErrorCode`,
/// whose discriminants are those numbers; the three below have no public source in the
/// core or the host (the mapping of `HostError` lives in `ffi/src/status_table.rs`,
/// crate-private), so they are written here and checked against `include/divload.h`
/// by `tests/python/test_divload.py`.
pub(crate) const INVALID_INPUT: u32 = 2;
/// `DIVLOAD_OUT_OF_MEMORY`: what the C library returns for `HostError::OutOfMemory`.
pub(crate) const OUT_OF_MEMORY: u32 = 6;
/// `DIVLOAD_PANIC`: a bug in divload caught at this boundary.
pub(crate) const PANIC: u32 = 7;

/// A failed call: divload's message and the C status number of the failure.
#[derive(Debug)]
pub(crate) struct Failure {
    pub message: String,
    pub code: u32,
}

impl Failure {
    pub(crate) fn new(code: u32, message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(INVALID_INPUT, message)
    }

    /// The exception, built by the Python class so that it carries `code` and `message`.
    pub(crate) fn into_pyerr(self, py: Python<'_>) -> PyErr {
        let class = match py.import("divload._errors").and_then(|m| m.getattr("DivloadError")) {
            Ok(class) => class,
            Err(e) => return e,
        };
        match class.call1((self.message, self.code)) {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        }
    }
}

impl From<divload::Error> for Failure {
    fn from(e: divload::Error) -> Failure {
        // `ErrorCode` is `#[repr(u32)]` with the C numbers as discriminants; it is
        // non-exhaustive, and a code the core adds later is a rejected input in C too.
        let code = match e.code() {
            divload::ErrorCode::InvalidInput => divload::ErrorCode::InvalidInput as u32,
            divload::ErrorCode::BufferTooSmall => divload::ErrorCode::BufferTooSmall as u32,
            divload::ErrorCode::Overflow => divload::ErrorCode::Overflow as u32,
            divload::ErrorCode::Json => divload::ErrorCode::Json as u32,
            _ => INVALID_INPUT,
        };
        Failure::new(code, e.to_string())
    }
}

/// Runs `f`, turning a panic (a bug: the core's entry points are proven panic-free on
/// the targets `scripts/nopanic` links) into a `DIVLOAD_PANIC` failure rather than
/// PyO3's `PanicException`, which is not an `Exception` and escapes `except Exception`.
pub(crate) fn no_panic<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Failure::new(
            PANIC,
            format!("internal error in divload (a caught panic): {what}; please report it"),
        ))
    })
}
