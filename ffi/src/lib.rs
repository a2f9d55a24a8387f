//! `libdivload`: the C interface to divload, for MPI codes that call `MPI_Scatterv`.
//!
//! The C API follows the rustls-ffi conventions: every function is `divload_<thing>_<verb>`,
//! takes its inputs first and its outputs last, has a length after every buffer and
//! returns a `divload_status`. Every export runs inside one boundary ([`boundary`]) that
//! checks null pointers, lengths and alignment, turns a Rust panic into
//! `DIVLOAD_PANIC` instead of unwinding into C, and writes the outputs only on success. On
//! failure, `divload_last_error_message` gives the core's message ("worker 3:
//! comp_per_item must be finite and > 0, got NaN") for the calling thread.
//!
//! The header `include/divload.h` is generated from this crate by cbindgen; see
//! `ffi/tests/header.rs`. The status codes are generated into `status.rs` from the one
//! table in `status_table.rs` (numbers, names, messages, the errors mapped to each).
#![forbid(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

mod boundary;
mod chunks;
mod counts;
mod documents;
mod multicluster;
mod returns;
mod status;
mod workspace;
// The tests compare the generated code with the table; the generator (ffi/tests/status.rs)
// is what reads every field.
#[cfg(test)]
#[allow(dead_code)]
mod status_table;
#[cfg(test)]
mod tests;

use boundary::*;
pub use chunks::*;
pub use counts::*;
use divload_status::*;
pub use documents::*;
pub use multicluster::*;
pub use returns::*;
pub use status::divload_status;
pub use workspace::*;

/// The library version as `major * 10000 + minor * 100 + patch`; equal to the header's
/// `DIVLOAD_VERSION_NUMBER` when header and library match.
#[no_mangle]
pub extern "C" fn divload_version_number() -> u32 {
    version_number(env!("CARGO_PKG_VERSION"))
}

fn version_number(v: &str) -> u32 {
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b, c) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    a * 10000 + b * 100 + c
}

/// A static, NUL-terminated description of a status number. A retired number's message
/// says it is retired; numbers never assigned give "unknown status". Never null.
#[no_mangle]
pub extern "C" fn divload_status_message(status: u32) -> *const c_char {
    status::message(status).as_ptr()
}

/// Copies the message of the calling thread's last failed divload call into `buf` as a
/// NUL-terminated string, like `snprintf`: at most `len` bytes are written (none when
/// `len` is 0 or `buf` is null) and the return value is the message's full length
/// without the NUL. The message is empty when no call has failed on this thread.
///
/// # Safety
///
/// `buf` must be null or valid for writes of `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn divload_last_error_message(buf: *mut c_char, len: usize) -> usize {
    let copy = AssertUnwindSafe(|| {
        LAST_ERROR.with(|m| {
            let m = m.borrow();
            let bytes = m.as_bytes();
            if !buf.is_null() && len > 0 {
                let n = bytes.len().min(len - 1);
                // SAFETY: the caller guarantees `buf` is valid for `len` bytes and n < len.
                let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), n + 1) };
                out[..n].copy_from_slice(&bytes[..n]);
                out[n] = 0;
            }
            bytes.len()
        })
    });
    catch_unwind(copy).unwrap_or(0)
}
