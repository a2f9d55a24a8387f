//! Errors in reading a document: where it stops being valid JSON, or which entry and key
//! hold a value out of its range.

#![cfg_attr(not(feature = "doc"), allow(dead_code))]

use super::{Error, Kind};
use crate::num::Short;
use core::fmt;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Document {
    message: &'static str,
    detail: Detail,
}

impl Error {
    pub(crate) const fn json(message: &'static str, detail: Detail) -> Error {
        Error { kind: Kind::Document(Document { message, detail }) }
    }
}

/// Extra context for JSON errors, kept `Copy` and allocation-free.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Detail {
    Entry {
        list: &'static str,
        index: usize,
        field: &'static str,
    },
    Value {
        field: &'static str,
        value: u64,
    },
    Number {
        list: &'static str,
        index: usize,
        field: &'static str,
        value: f64,
    },
    Point {
        list: &'static str,
        index: usize,
        field: &'static str,
        point: usize,
        value: f64,
    },
    /// Where a document stops being valid JSON, or a value has the wrong type: the byte
    /// offset and the key being read (`list` empty at the top level; `outer`, unless
    /// `usize::MAX`, the index in the list that holds this one: `what_if[outer].clusters`).
    Syntax {
        offset: usize,
        list: &'static str,
        outer: usize,
        index: usize,
        field: &'static str,
    },
    /// An entry of a list inside an entry of another (`list` is `"what_if.clusters"`,
    /// written `what_if[outer].clusters[index].field`), with the value if it is a number.
    Nested {
        list: &'static str,
        outer: usize,
        index: usize,
        field: &'static str,
        value: Option<f64>,
    },
}

/// `list[index].field` (parts left out where empty or `usize::MAX`), with `outer` placed
/// after the first part of a dotted list name.
fn write_place(
    f: &mut fmt::Formatter<'_>,
    list: &str,
    outer: usize,
    index: usize,
    field: &str,
) -> fmt::Result {
    // A byte search, not `split_once`: that one links `memchr` into the wasm module.
    let dot = list.bytes().position(|b| b == b'.').and_then(|i| list.split_at_checked(i));
    match dot {
        Some((head, tail)) if outer != usize::MAX => write!(f, "{head}[{outer}]{tail}")?,
        _ => f.write_str(list)?,
    }
    if index != usize::MAX && !list.is_empty() {
        write!(f, "[{index}]")?;
    }
    match (list.is_empty(), field.is_empty()) {
        (_, true) => Ok(()),
        (true, false) => f.write_str(field),
        (false, false) => write!(f, ".{field}"),
    }
}

impl fmt::Display for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Document { message, detail } = *self;
        match detail {
            Detail::Entry { list, index: usize::MAX, .. } => {
                write!(f, "platform JSON: {list}: {message}")
            }
            Detail::Entry { list, index, field: "" } => {
                write!(f, "platform JSON: {list}[{index}]: {message}")
            }
            Detail::Entry { list, index, field } => {
                write!(f, "platform JSON: {list}[{index}].{field}: {message}")
            }
            Detail::Value { field, value } => {
                write!(f, "platform JSON: {field}: {message}, got {value}")
            }
            Detail::Number { list, index: usize::MAX, field, value } => {
                write!(f, "platform JSON: {list}.{field}: {message}, got {value}", value = Short(value))
            }
            Detail::Number { list, index, field, value } => {
                write!(
                    f,
                    "platform JSON: {list}[{index}].{field}: {message}, got {value}",
                    value = Short(value)
                )
            }
            Detail::Point { list, index, field, point, value } => {
                write!(
                    f,
                    "platform JSON: {list}[{index}].{field}[{point}]: {message}, got {value}",
                    value = Short(value)
                )
            }
            Detail::Syntax { offset, list, outer, index, field } => {
                f.write_str("platform JSON: ")?;
                if !(list.is_empty() && field.is_empty()) {
                    write_place(f, list, outer, index, field)?;
                    f.write_str(": ")?;
                }
                write!(f, "byte {offset}: {message}")
            }
            Detail::Nested { list, outer, index, field, value } => {
                f.write_str("platform JSON: ")?;
                write_place(f, list, outer, index, field)?;
                write!(f, ": {message}")?;
                match value {
                    Some(v) => write!(f, ", got {}", Short(v)),
                    None => Ok(()),
                }
            }
        }
    }
}
