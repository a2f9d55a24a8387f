//! The one error type of the crate.
//!
//! Small and `Copy`, with a private kind: callers match on [`Error::code`] (stable
//! numbers, used by the C library's status enum) and show the [`Display`](core::fmt::Display)
//! message, which names the input and its valid range.

use crate::num::Plain;
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

/// Stable error categories. The numbers are the C library's status codes and are never
/// reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u32)]
pub enum ErrorCode {
    /// A cost, count or option is outside its valid range.
    InvalidInput = 2,
    /// A caller-provided buffer is too small; the message says how large it must be.
    BufferTooSmall = 3,
    /// A number is too large for the requested type (item count, fixed-point overflow,
    /// C `int`).
    Overflow = 4,
    /// A platform document is not valid JSON or does not follow the schema.
    Json = 5,
}

/// An error from planning, rounding, or reading a platform file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Error {
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    NoWorkers,
    NoItems,
    TooManyItems {
        items: u64,
        max: u64,
        numeric: &'static str,
    },
    Cost {
        worker: usize,
        field: Field,
        value: f64,
    },
    NotRepresentable {
        worker: usize,
        field: Field,
        value: f64,
        numeric: &'static str,
    },
    RootOutOfRange {
        root: usize,
        workers: usize,
    },
    NoRootCandidates,
    Buffer {
        what: &'static str,
        needed: usize,
        got: usize,
    },
    Shares {
        sum: f64,
        items: u64,
    },
    ShareValue {
        position: usize,
        value: f64,
    },
    NumericOverflow {
        numeric: &'static str,
    },
    ThroughputOverflow,
    EntryCost {
        list: &'static str,
        index: usize,
        field: Field,
        value: f64,
    },
    PlanWorker {
        position: usize,
        worker: usize,
        workers: usize,
    },
    Counts {
        sum: u64,
        items: u64,
    },
    RootPosition {
        root: usize,
        first: bool,
    },
    Point {
        index: usize,
        what: &'static str,
        value: f64,
    },
    Parameter {
        name: &'static str,
        range: &'static str,
        value: f64,
    },
    TimeValue {
        worker: usize,
        part: &'static str,
        items: u64,
        value: f64,
    },
    Decreasing {
        worker: usize,
        part: &'static str,
        items: u64,
    },
    WorkLimit {
        what: &'static str,
        limit: u64,
        hint: &'static str,
    },
    TooLarge {
        what: &'static str,
        max: u64,
        value: u64,
    },
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    Json {
        message: &'static str,
        detail: Detail,
    },
    Scenario {
        list: &'static str,
        position: usize,
        worker: usize,
        workers: usize,
    },
    ScenarioSets,
    LpIterations {
        iterations: usize,
    },
    /// A time of the result beyond `f64`.
    TimeOverflow {
        what: &'static str,
        hint: &'static str,
    },
    EntryValue {
        list: &'static str,
        index: usize,
        field: &'static str,
        range: &'static str,
        value: f64,
    },
}

/// Extra context for JSON errors, kept `Copy` and allocation-free.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(feature = "json"), allow(dead_code))]
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

impl Error {
    /// The stable category of this error.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            Kind::Buffer { .. } => ErrorCode::BufferTooSmall,
            Kind::TooManyItems { .. }
            | Kind::NotRepresentable { .. }
            | Kind::NumericOverflow { .. }
            | Kind::ThroughputOverflow
            | Kind::TooLarge { .. }
            | Kind::WorkLimit { .. }
            | Kind::TimeOverflow { .. } => ErrorCode::Overflow,
            Kind::Json { .. } => ErrorCode::Json,
            _ => ErrorCode::InvalidInput,
        }
    }

    /// For [`ErrorCode::BufferTooSmall`]: how many elements (or bytes) the buffer needs.
    pub fn needed(&self) -> Option<usize> {
        match self.kind {
            Kind::Buffer { needed, .. } => Some(needed),
            _ => None,
        }
    }

    pub(crate) const fn no_workers() -> Error {
        Error { kind: Kind::NoWorkers }
    }
    pub(crate) const fn no_items() -> Error {
        Error { kind: Kind::NoItems }
    }
    pub(crate) const fn too_many_items(items: u64, max: u64, numeric: &'static str) -> Error {
        Error { kind: Kind::TooManyItems { items, max, numeric } }
    }
    pub(crate) const fn cost(worker: usize, field: Field, value: f64) -> Error {
        Error { kind: Kind::Cost { worker, field, value } }
    }
    pub(crate) const fn not_representable(
        worker: usize,
        field: Field,
        value: f64,
        numeric: &'static str,
    ) -> Error {
        Error { kind: Kind::NotRepresentable { worker, field, value, numeric } }
    }
    pub(crate) const fn root_out_of_range(root: usize, workers: usize) -> Error {
        Error { kind: Kind::RootOutOfRange { root, workers } }
    }
    pub(crate) const fn no_root_candidates() -> Error {
        Error { kind: Kind::NoRootCandidates }
    }
    pub(crate) const fn buffer(what: &'static str, needed: usize, got: usize) -> Error {
        Error { kind: Kind::Buffer { what, needed, got } }
    }
    pub(crate) const fn shares(sum: f64, items: u64) -> Error {
        Error { kind: Kind::Shares { sum, items } }
    }
    pub(crate) const fn share_value(position: usize, value: f64) -> Error {
        Error { kind: Kind::ShareValue { position, value } }
    }
    pub(crate) const fn throughput_overflow() -> Error {
        Error { kind: Kind::ThroughputOverflow }
    }
    pub(crate) const fn numeric_overflow(numeric: &'static str) -> Error {
        Error { kind: Kind::NumericOverflow { numeric } }
    }
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    pub(crate) const fn entry_cost(list: &'static str, index: usize, field: Field, value: f64) -> Error {
        Error { kind: Kind::EntryCost { list, index, field, value } }
    }
    pub(crate) const fn plan_worker(position: usize, worker: usize, workers: usize) -> Error {
        Error { kind: Kind::PlanWorker { position, worker, workers } }
    }
    pub(crate) const fn counts(sum: u64, items: u64) -> Error {
        Error { kind: Kind::Counts { sum, items } }
    }
    pub(crate) const fn root_position(root: usize, first: bool) -> Error {
        Error { kind: Kind::RootPosition { root, first } }
    }
    pub(crate) const fn point(index: usize, what: &'static str, value: f64) -> Error {
        Error { kind: Kind::Point { index, what, value } }
    }
    pub(crate) const fn parameter(name: &'static str, range: &'static str, value: f64) -> Error {
        Error { kind: Kind::Parameter { name, range, value } }
    }
    pub(crate) const fn time_value(worker: usize, part: &'static str, items: u64, value: f64) -> Error {
        Error { kind: Kind::TimeValue { worker, part, items, value } }
    }
    pub(crate) const fn decreasing(worker: usize, part: &'static str, items: u64) -> Error {
        Error { kind: Kind::Decreasing { worker, part, items } }
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
        Error { kind: Kind::TimeOverflow { what, hint } }
    }

    /// A solver gave up after the most work it may do (issue 11: no input runs for minutes).
    pub(crate) const fn work_limit(what: &'static str, limit: u64, hint: &'static str) -> Error {
        Error { kind: Kind::WorkLimit { what, limit, hint } }
    }

    pub(crate) const fn too_large(what: &'static str, max: u64, value: u64) -> Error {
        Error { kind: Kind::TooLarge { what, max, value } }
    }
    pub(crate) const fn scenario(
        list: &'static str,
        position: usize,
        worker: usize,
        workers: usize,
    ) -> Error {
        Error { kind: Kind::Scenario { list, position, worker, workers } }
    }
    pub(crate) const fn scenario_sets() -> Error {
        Error { kind: Kind::ScenarioSets }
    }
    pub(crate) const fn lp_iterations(iterations: usize) -> Error {
        Error { kind: Kind::LpIterations { iterations } }
    }
    /// "`list[index].field`: must be `range`, got `value`" for one entry of an input list
    /// (a cluster, a link pair), with [`ErrorCode::InvalidInput`].
    pub(crate) const fn entry_value(
        list: &'static str,
        index: usize,
        field: &'static str,
        range: &'static str,
        value: f64,
    ) -> Error {
        Error { kind: Kind::EntryValue { list, index, field, range, value } }
    }
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    pub(crate) const fn json(message: &'static str, detail: Detail) -> Error {
        Error { kind: Kind::Json { message, detail } }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::NoWorkers => f.write_str("workers: at least one worker is needed, got 0"),
            Kind::NoItems => f.write_str("items: must be at least 1, got 0"),
            Kind::TooManyItems { items, max, numeric } => {
                write!(f, "items: at most {max} can be planned with {numeric} arithmetic, got {items}")
            }
            Kind::Cost { worker, field, value } => {
                write!(f, "worker {worker}: {} must be {}, got {value}", field.name(), field.range(), value = Plain(value))
            }
            Kind::NotRepresentable { worker, field, value, numeric } => write!(
                f,
                "worker {worker}: {} = {value} does not fit the {numeric} number type",
                field.name(), value = Plain(value)),
            Kind::RootOutOfRange { root, workers } => {
                write!(f, "root: must be a worker index in 0..{workers}, got {root}")
            }
            Kind::NoRootCandidates => f.write_str("root_candidates: at least one candidate is needed, got 0"),
            Kind::Buffer { what, needed, got } => {
                write!(f, "{what}: buffer too small, need {needed}, got {got}")
            }
            Kind::Shares { sum, items } => {
                write!(f, "shares: must add up to items = {items} (within 0.5), they add up to {sum}", sum = Plain(sum))
            }
            Kind::ShareValue { position, value } => {
                write!(f, "share {position}: must be finite and >= 0, got {value}", value = Plain(value))
            }
            Kind::NumericOverflow { numeric } => {
                write!(f, "the plan's times (items × per-item costs) exceed the range of the {numeric} number type; ")?;
                // f64 is the widest type there is, and the only one of documents.
                f.write_str(if numeric == "f64" {
                    "give fewer items, smaller costs, or times in a larger unit"
                } else {
                    "use a wider number type, fewer items or smaller costs"
                })
            }
            Kind::ThroughputOverflow => f.write_str(
                "workers: the items per second Σ 1/(comm_per_item + comp_per_item + return_per_item) \
                 exceed the range of f64 (costs per item near 1e-308 or below); \
                 give the costs in a larger time unit",
            ),
            Kind::EntryCost { list, index, field, value } => write!(
                f,
                "platform JSON: {list}[{index}].{} must be {}, got {value}",
                field.name(),
                field.range(), value = Plain(value)),
            Kind::PlanWorker { position, worker, workers } => write!(
                f,
                "plan[{position}]: worker {worker} is out of range 0..{workers} or appears twice; \
                 each worker must appear exactly once"
            ),
            Kind::Counts { sum, items } => {
                write!(f, "plan: counts must add up to items = {items}, they add up to {sum}")
            }
            Kind::RootPosition { root, first } => write!(
                f,
                "plan: the root (worker {root}) must be served {}",
                if first { "first with root_mode overlap" } else { "last with root_mode after_send" }
            ),
            Kind::Point { index, what, value } => {
                write!(f, "tabulated cost: point {index}: {what}, got {value}", value = Plain(value))
            }
            Kind::Parameter { name, range, value } => write!(f, "{name}: must be {range}, got {value}", value = Plain(value)),
            Kind::TimeValue { worker, part, items, value } => write!(
                f,
                "worker {worker}: {part} time of {items} items must be finite and >= 0 (0 for 0 items), got {value}", value = Plain(value)),
            Kind::Decreasing { worker, part, items } => write!(
                f,
                "worker {worker}: {part} time must not decrease with the item count, \
                 but {items} items take less than {} (use a solver without pruning, or repair the costs)",
                items.saturating_sub(1)
            ),
            Kind::TooLarge { what, max, value } => write!(f, "{what}: at most {max}, got {value}"),
            Kind::WorkLimit { what, limit, hint } => {
                write!(f, "{what}: stopped after {limit} steps, the most it may take; {hint}")
            }
            Kind::Scenario { list, position, worker, workers } => write!(
                f,
                "{list}[{position}]: worker {worker} is out of range 0..{workers} or appears twice; \
                 each worker may appear at most once"
            ),
            Kind::ScenarioSets => f.write_str(
                "return order: must hold exactly the workers of the send order (at least one), in any order",
            ),
            Kind::LpIterations { iterations } => write!(
                f,
                "scenario LP: no optimum after {iterations} simplex iterations; \
                 the costs are too badly scaled for the f64 simplex"
            ),
            Kind::TimeOverflow { what, hint } => write!(f, "{what} exceeds the range of f64; {hint}"),
            Kind::EntryValue { list, index, field, range, value } => {
                write!(f, "{list}[{index}].{field}: must be {range}, got {value}", value = Plain(value))
            }
            Kind::Json { message, detail } => match detail {
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
                    write!(f, "platform JSON: {list}.{field}: {message}, got {value}", value = Plain(value))
                }
                Detail::Number { list, index, field, value } => {
                    write!(f, "platform JSON: {list}[{index}].{field}: {message}, got {value}", value = Plain(value))
                }
                Detail::Point { list, index, field, point, value } => {
                    write!(f, "platform JSON: {list}[{index}].{field}[{point}]: {message}, got {value}", value = Plain(value))
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
                        Some(v) => write!(f, ", got {}", Plain(v)),
                        None => Ok(()),
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Buf {
        b: [u8; 200],
        n: usize,
    }
    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.n + s.len();
            self.b.get_mut(self.n..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
            self.n = end;
            Ok(())
        }
    }
    fn text(e: Error) -> Buf {
        let mut b = Buf { b: [0; 200], n: 0 };
        let _ = fmt::write(&mut b, format_args!("{e}"));
        b
    }

    #[test]
    fn messages_name_the_input_and_the_range() {
        let b = text(Error::cost(3, Field::CompPerItem, f64::NAN));
        assert_eq!(&b.b[..b.n], b"worker 3: comp_per_item must be finite and > 0, got NaN");
        let b = text(Error::cost(0, Field::CommLatency, -1.0));
        assert_eq!(&b.b[..b.n], b"worker 0: comm_latency must be finite and >= 0, got -1");
        assert_eq!(Error::buffer("plan", 16, 4).needed(), Some(16));
        assert_eq!(Error::buffer("plan", 16, 4).code(), ErrorCode::BufferTooSmall);
        assert_eq!(Error::too_many_items(1 << 30, 1 << 24, "f32").code(), ErrorCode::Overflow);
    }
}
