//! Errors at a limit: a buffer too small, a capacity or work budget reached, a number
//! beyond its type's range.

use super::{Error, ErrorCode, Kind};
use core::fmt;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Limit {
    TooManyItems {
        items: u64,
        max: u64,
        numeric: &'static str,
    },
    Buffer {
        what: &'static str,
        needed: usize,
        got: usize,
    },
    NumericOverflow {
        numeric: &'static str,
    },
    Work {
        what: &'static str,
        limit: u64,
        hint: &'static str,
    },
    TooLarge {
        what: &'static str,
        max: u64,
        value: u64,
    },
    /// A time of the result beyond `f64`.
    TimeOverflow {
        what: &'static str,
        hint: &'static str,
    },
}

impl Limit {
    pub(super) const fn code(self) -> ErrorCode {
        match self {
            Limit::Buffer { .. } => ErrorCode::BufferTooSmall,
            _ => ErrorCode::Overflow,
        }
    }

    pub(super) const fn needed(self) -> Option<usize> {
        match self {
            Limit::Buffer { needed, .. } => Some(needed),
            _ => None,
        }
    }
}

#[inline(never)]
const fn limit(e: Limit) -> Error {
    Error { kind: Kind::Limit(e) }
}

impl Error {
    pub(crate) const fn too_many_items(items: u64, max: u64, numeric: &'static str) -> Error {
        limit(Limit::TooManyItems { items, max, numeric })
    }
    pub(crate) const fn buffer(what: &'static str, needed: usize, got: usize) -> Error {
        limit(Limit::Buffer { what, needed, got })
    }
    pub(crate) const fn numeric_overflow(numeric: &'static str) -> Error {
        limit(Limit::NumericOverflow { numeric })
    }
    /// A capacity limit of a crate built on divload (fixed-size buffers): "`what`: at
    /// most `max`, got `value`", with [`ErrorCode::Overflow`].
    ///
    /// ```
    /// let e = divload::Error::limit("nodes", 8, 9);
    /// assert_eq!(e.to_string(), "nodes: at most 8, got 9");
    /// ```
    pub const fn limit(what: &'static str, max: u64, value: u64) -> Error {
        Error::too_large(what, max, value)
    }
    /// A time of the result (`what`: which one) beyond `f64`, and what to change.
    pub(crate) const fn time_overflow(what: &'static str, hint: &'static str) -> Error {
        limit(Limit::TimeOverflow { what, hint })
    }
    /// A solver gave up after the most work it may do (issue 11: no input runs for minutes).
    pub(crate) const fn work_limit(what: &'static str, limit_: u64, hint: &'static str) -> Error {
        limit(Limit::Work { what, limit: limit_, hint })
    }
    pub(crate) const fn too_large(what: &'static str, max: u64, value: u64) -> Error {
        limit(Limit::TooLarge { what, max, value })
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Limit::TooManyItems { items, max, numeric } => {
                write!(f, "items: at most {max} can be planned with {numeric} arithmetic, got {items}")
            }
            Limit::Buffer { what, needed, got } => {
                write!(f, "{what}: buffer too small, need {needed}, got {got}")
            }
            Limit::NumericOverflow { numeric } => {
                write!(f, "the plan's times (items × per-item costs) exceed the range of the {numeric} number type; ")?;
                // f64 is the widest type there is, and the only one of documents.
                f.write_str(if numeric == "f64" {
                    "give fewer items, smaller costs, or times in a larger unit"
                } else {
                    "use a wider number type, fewer items or smaller costs"
                })
            }
            Limit::TooLarge { what, max, value } => write!(f, "{what}: at most {max}, got {value}"),
            Limit::Work { what, limit, hint } => {
                write!(f, "{what}: stopped after {limit} steps, the most it may take; {hint}")
            }
            Limit::TimeOverflow { what, hint } => write!(f, "{what} exceeds the range of f64; {hint}"),
        }
    }
}
