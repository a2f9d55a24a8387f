//! `libdivload`'s status codes: the `divload_status` enum, the message of each number
//! and the status of each core and host error.
//!
//! Generated from `ffi/src/status_table.rs` by `ffi/tests/status.rs`. Do not edit:
//! change the table and run
//!
//! ```text
//! DIVLOAD_UPDATE_STATUS=1 cargo test -p divload-ffi --test status
//! ```

use std::ffi::CStr;

use divload::ErrorCode;
use divload_host::HostError;

/// What a divload function did. The numbers are stable and never reused.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum divload_status {
    /// Success; the outputs are written.
    DIVLOAD_OK = 0,
    /// A required pointer was null.
    DIVLOAD_NULL_PARAMETER = 1,
    /// A cost, count, index or option is outside its valid range, or a pointer is not
    /// aligned for its type.
    DIVLOAD_INVALID_INPUT = 2,
    /// An output buffer is too small; the message (and `out_n` where there is one) says
    /// how large it must be.
    DIVLOAD_BUFFER_TOO_SMALL = 3,
    /// A number does not fit: more than `INT_MAX` items for the `int` functions, more
    /// than 2^53 items, or a length too large for memory.
    DIVLOAD_OVERFLOW = 4,
    /// The platform document is not valid JSON or does not follow the schema.
    DIVLOAD_JSON = 5,
    /// Working memory could not be allocated.
    DIVLOAD_OUT_OF_MEMORY = 6,
    /// A bug in divload: an internal panic was caught at the boundary. Please report it.
    DIVLOAD_PANIC = 7,
}

/// Every live status, in number order.
#[cfg(test)]
pub(crate) const ALL: [divload_status; 8] = [
    divload_status::DIVLOAD_OK,
    divload_status::DIVLOAD_NULL_PARAMETER,
    divload_status::DIVLOAD_INVALID_INPUT,
    divload_status::DIVLOAD_BUFFER_TOO_SMALL,
    divload_status::DIVLOAD_OVERFLOW,
    divload_status::DIVLOAD_JSON,
    divload_status::DIVLOAD_OUT_OF_MEMORY,
    divload_status::DIVLOAD_PANIC,
];

/// The message of a status number; retired numbers say so, and numbers never
/// assigned give "unknown status".
pub(crate) fn message(status: u32) -> &'static CStr {
    match status {
        0 => c"success",
        1 => c"a required pointer argument is null",
        2 => c"invalid input: a cost, count, index or option is out of range, or a pointer is misaligned",
        3 => c"an output buffer is too small",
        4 => c"a number is too large (item count beyond INT_MAX or 2^53, or a length beyond memory)",
        5 => c"the platform JSON is malformed or does not follow the schema",
        6 => c"out of memory",
        7 => c"internal error in divload (a caught panic); please report it",
        _ => c"unknown status",
    }
}

/// The status of a core error category.
pub(crate) fn of_code(code: ErrorCode) -> divload_status {
    match code {
        ErrorCode::InvalidInput => divload_status::DIVLOAD_INVALID_INPUT,
        ErrorCode::BufferTooSmall => divload_status::DIVLOAD_BUFFER_TOO_SMALL,
        ErrorCode::Overflow => divload_status::DIVLOAD_OVERFLOW,
        ErrorCode::Json => divload_status::DIVLOAD_JSON,
        // `ErrorCode` is non-exhaustive: a code the table does not list yet is still a
        // rejected input.
        _ => divload_status::DIVLOAD_INVALID_INPUT,
    }
}

/// The status of a host error. The match is exhaustive, so a new `HostError` variant
/// stops the build until the table gives it a status.
pub(crate) fn of_host(error: &HostError) -> divload_status {
    match error {
        HostError::Core(e) => of_code(e.code()),
        HostError::OutOfMemory { .. } => divload_status::DIVLOAD_OUT_OF_MEMORY,
    }
}
