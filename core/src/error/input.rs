//! Errors in a platform's values: costs, counts, parameters and tables, each message
//! naming the value and its valid range.

use super::{Error, Kind};
use crate::num::range::{Range, NON_NEGATIVE, POSITIVE};
use crate::num::Short;
use core::fmt;

/// A worker's cost field an error is about: its name in a platform file and its range.
/// The four every worker has are here; a model's own (a root candidate's transfer costs,
/// a return cost) are declared next to the model's worker type.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    name: &'static str,
    pub(crate) range: &'static Range,
}

impl Field {
    /// Fixed part of the time to receive a share (seconds).
    pub const COMM_LATENCY: Field = Field::new("comm_latency", NON_NEGATIVE);
    /// Time to receive one item (seconds per item, λ).
    pub const COMM_PER_ITEM: Field = Field::new("comm_per_item", NON_NEGATIVE);
    /// Fixed part of the time to compute a share (seconds).
    pub const COMP_LATENCY: Field = Field::new("comp_latency", NON_NEGATIVE);
    /// Time to compute one item (seconds per item, μ): a worker that computes in no time
    /// would take every item.
    pub const COMP_PER_ITEM: Field = Field::new("comp_per_item", POSITIVE);

    pub(crate) const fn new(name: &'static str, range: &'static Range) -> Field {
        Field { name, range }
    }

    /// The field's name as written in a platform file.
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// Whether `v` is a value the field may take.
    pub(crate) fn allows(self, v: f64) -> bool {
        self.range.contains(v)
    }

    /// The valid range, in words.
    const fn range(self) -> &'static str {
        self.range.says
    }
}

/// Fields are the same when they have the same name: a name has one range.
impl PartialEq for Field {
    fn eq(&self, other: &Field) -> bool {
        self.name == other.name
    }
}

impl Eq for Field {}

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

impl Range {
    /// `v` when it lies in the range, else "`name`: must be `says`, got `v`".
    pub(crate) fn parameter(&self, name: &'static str, v: f64) -> Result<f64, Error> {
        if self.contains(v) {
            Ok(v)
        } else {
            Err(Error::parameter(name, self.says, v))
        }
    }

    /// `v` when it lies in the range, else "`list[index].field`: must be `says`, got `v`".
    pub(crate) fn entry(
        &self,
        list: &'static str,
        index: usize,
        field: &'static str,
        v: f64,
    ) -> Result<f64, Error> {
        if self.contains(v) {
            Ok(v)
        } else {
            Err(Error::entry_value(list, index, field, self.says, v))
        }
    }
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
                "linear program: no optimum after {iterations} simplex iterations; \
                 the costs are too badly scaled for the f64 simplex"
            ),
        }
    }
}
