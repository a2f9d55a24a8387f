//! The one definition of `libdivload`'s status codes: number, C name, documentation,
//! the message `divload_status_message` gives, and which core and host errors are
//! reported with it.
//!
//! cbindgen reads Rust source and expands no macros, so the `divload_status` enum must be
//! written out literally for `include/divload.h` to have it. `ffi/tests/status.rs`
//! writes it, with the message table and the error mappings, into `ffi/src/status.rs`
//! from the rows below, and fails when the checked-in file differs:
//!
//! ```text
//! DIVLOAD_UPDATE_STATUS=1 cargo test -p divload-ffi --test status
//! DIVLOAD_UPDATE_HEADER=1 cargo test -p divload-ffi --test header
//! ```
//!
//! The numbers are ABI: C programs compiled against an older header compare with them.
//! A row is therefore never deleted or renumbered. A status no function returns any more
//! gets `retired: Some(version)`: it leaves the enum (so Rust cannot return it), stays in
//! the header as a `#define` (so old C code still compiles), and its message says it is
//! retired. The generator requires the numbers to run 0, 1, 2, … without gaps, so a
//! deleted row, and a number used twice, fail the test.
//!
//! The lib includes this file only for its tests and the generator includes it with
//! `#[path]`; nothing here may depend on the rest of the crate.
//!
//! The generated `of_host` matches `HostError` exhaustively, so a new host error stops
//! the build in `status.rs` before the generator (which needs the crate to build) can
//! run: list the variant in a row here, add the same arm to `status.rs` by hand, and the
//! freshness test confirms the two agree.

/// One status code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Status {
    /// The number C sees; its position in [`STATUSES`].
    pub number: u32,
    /// The C enumerator (`DIVLOAD_…`).
    pub name: &'static str,
    /// The enumerator's documentation, one `\n` per line break of the header comment.
    pub doc: &'static str,
    /// What `divload_status_message` returns for the number.
    pub message: &'static str,
    /// The `divload::ErrorCode` variants reported with this status.
    pub core: &'static [&'static str],
    /// The `divload_host::HostError` variants reported with this status. `Core` is not
    /// listed anywhere: it carries a core error and takes that error's status.
    pub host: &'static [&'static str],
    /// The version from which no function returns this status, if any.
    pub retired: Option<&'static str>,
}

/// The status of a core error whose `ErrorCode` no row lists. `ErrorCode` is
/// `#[non_exhaustive]`, so a match on it outside the core needs a catch-all arm: a code
/// the core adds before this table knows it is still a rejected input.
pub(crate) const UNLISTED_CORE_CODE: &str = "DIVLOAD_INVALID_INPUT";

/// Every status ever assigned, by number.
pub(crate) const STATUSES: &[Status] = &[
    Status {
        number: 0,
        name: "DIVLOAD_OK",
        doc: "Success; the outputs are written.",
        message: "success",
        core: &[],
        host: &[],
        retired: None,
    },
    Status {
        number: 1,
        name: "DIVLOAD_NULL_PARAMETER",
        doc: "A required pointer was null.",
        message: "a required pointer argument is null",
        core: &[],
        host: &[],
        retired: None,
    },
    Status {
        number: 2,
        name: "DIVLOAD_INVALID_INPUT",
        doc: "A cost, count, index or option is outside its valid range, or a pointer is not\n\
              aligned for its type.",
        message: "invalid input: a cost, count, index or option is out of range, or a pointer is misaligned",
        core: &["InvalidInput"],
        host: &[],
        retired: None,
    },
    Status {
        number: 3,
        name: "DIVLOAD_BUFFER_TOO_SMALL",
        doc: "An output buffer is too small; the message (and `out_n` where there is one) says\n\
              how large it must be.",
        message: "an output buffer is too small",
        core: &["BufferTooSmall"],
        host: &[],
        retired: None,
    },
    Status {
        number: 4,
        name: "DIVLOAD_OVERFLOW",
        doc: "A number does not fit: more than `INT_MAX` items for the `int` functions, more\n\
              than 2^53 items, or a length too large for memory.",
        message: "a number is too large (item count beyond INT_MAX or 2^53, or a length beyond memory)",
        core: &["Overflow"],
        host: &[],
        retired: None,
    },
    Status {
        number: 5,
        name: "DIVLOAD_JSON",
        doc: "The platform document is not valid JSON or does not follow the schema.",
        message: "the platform JSON is malformed or does not follow the schema",
        core: &["Json"],
        host: &[],
        retired: None,
    },
    Status {
        number: 6,
        name: "DIVLOAD_OUT_OF_MEMORY",
        doc: "Working memory could not be allocated.",
        message: "out of memory",
        core: &[],
        host: &["OutOfMemory"],
        retired: None,
    },
    Status {
        number: 7,
        name: "DIVLOAD_PANIC",
        doc: "A bug in divload: an internal panic was caught at the boundary. Please report it.",
        message: "internal error in divload (a caught panic); please report it",
        core: &[],
        host: &[],
        retired: None,
    },
];
