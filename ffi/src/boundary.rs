//! The one boundary every export runs in: null, length and alignment checks on the
//! caller's pointers, a panic turned into `DIVLOAD_PANIC`, and the calling thread's last
//! error message.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use divload_host::HostError;

use crate::divload_status::{self, *};
use crate::status;

impl From<HostError> for Failure {
    fn from(e: HostError) -> Failure {
        Failure::new(status::of_host(&e), e.to_string())
    }
}

/// A failed call: its status and the message kept for `divload_last_error_message`.
pub(crate) struct Failure {
    pub(crate) status: divload_status,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: divload_status, message: String) -> Failure {
        Failure { status, message }
    }
}

impl From<divload::Error> for Failure {
    fn from(e: divload::Error) -> Failure {
        Failure::new(status::of_code(e.code()), e.to_string())
    }
}

pub(crate) fn null_failure(name: &str) -> Failure {
    Failure::new(DIVLOAD_NULL_PARAMETER, format!("{name}: must not be a null pointer"))
}

pub(crate) fn buffer_failure(name: &str, needed: usize, got: usize) -> Failure {
    Failure::new(DIVLOAD_BUFFER_TOO_SMALL, format!("{name}: buffer too small, need {needed}, got {got}"))
}

pub(crate) fn check_len(name: &str, needed: usize, got: usize) -> Result<(), Failure> {
    if got < needed {
        Err(buffer_failure(name, needed, got))
    } else {
        Ok(())
    }
}

thread_local! {
    pub(crate) static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The one boundary every export runs in: it records the failure message for the
/// calling thread and never lets a panic unwind into C.
pub(crate) fn boundary(f: impl FnOnce() -> Result<(), Failure>) -> divload_status {
    let (status, message) = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return DIVLOAD_OK,
        Ok(Err(failure)) => (failure.status, failure.message),
        Err(_) => (DIVLOAD_PANIC, status::message(DIVLOAD_PANIC as u32).to_string_lossy().into_owned()),
    };
    // A failure to record the message must not turn into a panic across the boundary.
    let _ = LAST_ERROR.try_with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            *m = message;
        }
    });
    status
}

/// Checks a length against what a slice of `T` can address.
pub(crate) fn check_addressable<T>(len: usize, name: &str) -> Result<(), Failure> {
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Failure::new(
            DIVLOAD_OVERFLOW,
            format!("{name}_len: {len} elements exceed the address space"),
        ));
    }
    Ok(())
}

/// An input slice from C. A null pointer is an error even with length 0, so that a
/// forgotten argument is never mistaken for an empty one.
///
/// # Safety
///
/// `ptr` must be null or valid for reads of `len` elements for the call's duration.
pub(crate) unsafe fn input<'a, T>(ptr: *const T, len: usize, name: &str) -> Result<&'a [T], Failure> {
    check_raw(ptr, len, name)?;
    // SAFETY: non-null, aligned, size within isize::MAX; validity is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Null, alignment and size checks for a pointer and length from C.
pub(crate) fn check_raw<T>(ptr: *const T, len: usize, name: &str) -> Result<(), Failure> {
    if ptr.is_null() {
        return Err(null_failure(name));
    }
    if !ptr.is_aligned() {
        return Err(Failure::new(
            DIVLOAD_INVALID_INPUT,
            format!("{name}: pointer is not aligned for its type"),
        ));
    }
    check_addressable::<T>(len, name)
}

/// An output slice from C; see [`input`].
///
/// # Safety
///
/// `ptr` must be null or valid for writes of `len` elements, not aliasing the inputs.
pub(crate) unsafe fn output<'a, T>(ptr: *mut T, len: usize, name: &str) -> Result<&'a mut [T], Failure> {
    check_raw(ptr.cast_const(), len, name)?;
    // SAFETY: as in `input`.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A pointer to one optional output value (a summary). Null means the caller does not
/// want it; anything else is checked as [`output`] checks a buffer, so a misaligned
/// pointer fails the call before any output is written instead of being skipped.
pub(crate) fn optional_output<T>(ptr: *mut T, name: &str) -> Result<Option<*mut T>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    check_raw(ptr.cast_const(), 1, name)?;
    Ok(Some(ptr))
}
