//! Errors in a platform's values: costs, counts, parameters and tables, each message
//! naming the value and its valid range.

use super::{Error, Kind};
use crate::num::Short;
use core::fmt;

/// Which cost field of a worker an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Field {
    /// Fixed part of the time to receive a share (seconds).
    CommLatency,
    /// Time to receive one item (seconds per item, λ).
    CommPerItem,
    /// Fixed part of the time to compute a share (seconds).
    CompLatency,
    /// Time to compute one item (seconds per item, μ).
    CompPerItem,
    /// Fixed part of moving the data to a candidate root (seconds).
    TransferLatency,
    /// Time to move one item to a candidate root (seconds per item).
    TransferPerItem,
    /// Time to send one item's results back to the master (seconds per item, `d`; model
    /// `returns`).
    ReturnPerItem,
}

impl Field {
    /// The field's name as written in a platform file.
    pub const fn name(self) -> &'static str {
        match self {
            Field::CommLatency => "comm_latency",
            Field::CommPerItem => "comm_per_item",
            Field::CompLatency => "comp_latency",
            Field::CompPerItem => "comp_per_item",
            Field::TransferLatency => "transfer_latency",
            Field::TransferPerItem => "transfer_per_item",
            Field::ReturnPerItem => "return_per_item",
        }
    }

    /// The valid range, in words.
    const fn range(self) -> &'static str {
        match self {
            Field::CompPerItem => "finite and > 0",
            _ => "finite and >= 0",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Input {
    NoWorkers,
    NoItems,
    Cost { worker: usize, field: Field, value: f64 },
    NotRepresentable { worker: usize, field: Field, value: f64, numeric: &'static str },
    EntryCost { list: &'static str, index: usize, field: Field, value: f64 },
    Point { index: usize, what: &'static str, value: f64 },
    Parameter { name: &'static str, range: &'static str, value: f64 },
    TimeValue { worker: usize, part: &'static str, items: u64, value: f64 },
    Decreasing { worker: usize, part: &'static str, items: u64 },
    EntryValue { list: &'static str, index: usize, field: &'static str, range: &'static str, value: f64 },
    LpIterations { iterations: usize },
}

#[inline(never)]
const fn input(e: Input) -> Error {
    Error { kind: Kind::Input(e) }
}

impl Error {
    pub(crate) const fn no_workers() -> Error {
        input(Input::NoWorkers)
    }
    pub(crate) const fn no_items() -> Error {
        input(Input::NoItems)
    }
    pub(crate) const fn cost(worker: usize, field: Field, value: f64) -> Error {
        input(Input::Cost { worker, field, value })
    }
    pub(crate) const fn not_representable(
        worker: usize,
        field: Field,
        value: f64,
        numeric: &'static str,
    ) -> Error {
        input(Input::NotRepresentable { worker, field, value, numeric })
    }
    #[cfg_attr(not(feature = "doc"), allow(dead_code))]
    pub(crate) const fn entry_cost(list: &'static str, index: usize, field: Field, value: f64) -> Error {
        input(Input::EntryCost { list, index, field, value })
    }
    pub(crate) const fn point(index: usize, what: &'static str, value: f64) -> Error {
        input(Input::Point { index, what, value })
    }
    pub(crate) const fn parameter(name: &'static str, range: &'static str, value: f64) -> Error {
        input(Input::Parameter { name, range, value })
    }
    pub(crate) const fn time_value(worker: usize, part: &'static str, items: u64, value: f64) -> Error {
        input(Input::TimeValue { worker, part, items, value })
    }
    pub(crate) const fn decreasing(worker: usize, part: &'static str, items: u64) -> Error {
        input(Input::Decreasing { worker, part, items })
    }
    /// "`list[index].field`: must be `range`, got `value`" for one entry of an input list
    /// (a cluster, a link pair), with [`ErrorCode::InvalidInput`](super::ErrorCode::InvalidInput).
    pub(crate) const fn entry_value(
        list: &'static str,
        index: usize,
        field: &'static str,
        range: &'static str,
        value: f64,
    ) -> Error {
        input(Input::EntryValue { list, index, field, range, value })
    }
    /// The simplex found no optimum within its iterations: costs too badly scaled.
    pub(crate) const fn lp_iterations(iterations: usize) -> Error {
        input(Input::LpIterations { iterations })
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Input::NoWorkers => f.write_str("workers: at least one worker is needed, got 0"),
            Input::NoItems => f.write_str("items: must be at least 1, got 0"),
            Input::Cost { worker, field, value } => {
                write!(f, "worker {worker}: {} must be {}, got {value}", field.name(), field.range(), value = Short(value))
            }
            Input::NotRepresentable { worker, field, value, numeric } => write!(
                f,
                "worker {worker}: {} = {value} does not fit the {numeric} number type",
                field.name(),
                value = Short(value)
            ),
            Input::EntryCost { list, index, field, value } => write!(
                f,
                "platform JSON: {list}[{index}].{} must be {}, got {value}",
                field.name(),
                field.range(),
                value = Short(value)
            ),
            Input::Point { index, what, value } => {
                write!(f, "tabulated cost: point {index}: {what}, got {value}", value = Short(value))
            }
            Input::Parameter { name, range, value } => write!(f, "{name}: must be {range}, got {value}", value = Short(value)),
            Input::TimeValue { worker, part, items, value } => write!(
                f,
                "worker {worker}: {part} time of {items} items must be finite and >= 0 (0 for 0 items), got {value}",
                value = Short(value)
            ),
            Input::Decreasing { worker, part, items } => write!(
                f,
                "worker {worker}: {part} time must not decrease with the item count, \
                 but {items} items take less than {} (use a solver without pruning, or repair the costs)",
                items.saturating_sub(1)
            ),
            Input::EntryValue { list, index, field, range, value } => {
                write!(f, "{list}[{index}].{field}: must be {range}, got {value}", value = Short(value))
            }
            Input::LpIterations { iterations } => write!(
                f,
                "scenario LP: no optimum after {iterations} simplex iterations; \
                 the costs are too badly scaled for the f64 simplex"
            ),
        }
    }
}
