//! Platform files in, result documents out: JSON without allocation (serde-json-core).
//!
//! A platform file (version 1):
//!
//! ```json
//! {"version": 1, "items": 817101, "root": "dinadan",
//!  "root_mode": "after_send", "order": "bandwidth", "rounding": "greedy",
//!  "workers": [{"name": "dinadan", "comm_per_item": 0, "comp_per_item": 0.009288},
//!              {"name": "leda", "count": 8, "comm_per_item": 3.53e-5, "comp_per_item": 0.009677,
//!               "comm_latency": 0, "comp_latency": 0}]}
//! ```
//!
//! `count` repeats identical workers (default 1); latencies default to 0; `root_mode`,
//! `order` and `rounding` default to `after_send`, `bandwidth` and `greedy`.
//!
//! Costs that are not affine are given per worker instead of `comm_per_item` or
//! `comp_per_item`: `"comp_table": [[1000, 2.1], [4000, 9.8]]` (measured `[items, seconds]`
//! points, at most [`MAX_POINTS`], interpolated; `"repair": true` makes noisy tables
//! non-decreasing instead of rejecting them) or `"comp_power": {"coeff": 1e-6,
//! "exponent": 2, "latency": 0}`, and likewise `comm_table`, `comm_power`. `"solver"`
//! chooses `closed_form`, `exact` or `sampled` (default: closed form when every cost is
//! affine, exact otherwise). Instead of
//! `root`, `root_candidates` (`[{"name", "transfer_latency", "transfer_per_item"}]`) lets
//! divload choose the root (genaud2003 §3.4). Unknown keys are errors, so a misspelt key
//! never goes unnoticed. Names are used as written and may not contain escapes.
//!
//! Memory is the caller's: [`parse_platform`] fills a slice of [`WorkerEntry`] (one per
//! object in `workers`; [`max_entries`] bounds how many a document can have), and
//! [`PlatformFile::problem`] expands the entries into a slice of workers.

use core::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::error::{Detail, Error, Field};
use crate::num::Real;
use crate::platform::cost::{Affine, Cost, PowerLaw, Tabulated, WorkerCosts};
use crate::platform::worker::{check, Worker};
use crate::scatter::exact::CostProblem;
use crate::scatter::sampled::Sampled;
use crate::scatter::{
    Assignment, Options, OrderPolicy, Problem, Root, RootCandidate, RootMode, Rounding, Scratch, Summary,
};

/// Most points of a tabulated cost in a platform file.
pub const MAX_POINTS: usize = 32;

/// The shape of one cost of a worker entry.
// Fixed capacity instead of allocation: a table is 520 bytes, in every entry.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CostModel {
    /// `latency + per_item·x` from the `*_latency` and `*_per_item` keys.
    Affine,
    /// Measured points `[items, seconds]` (`*_table`), the first `len` of `points`.
    Table {
        /// The points as written.
        points: [(u64, f64); MAX_POINTS],
        /// How many there are.
        len: usize,
    },
    /// `latency + coeff·x^exponent` (`*_power`).
    Power {
        /// Seconds, ≥ 0.
        latency: f64,
        /// Seconds per item^exponent, ≥ 0.
        coeff: f64,
        /// In `0.01..=64`.
        exponent: f64,
    },
}

/// Which solver a platform file asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Solver {
    /// Closed form when every cost is affine, the exact DP otherwise.
    #[default]
    Auto,
    /// Rational closed form and rounding ([`plan`](crate::plan)); affine costs only.
    ClosedForm,
    /// The exact integer DP ([`scatter::exact::exact`](crate::scatter::exact::exact)).
    Exact,
    /// The sampled DP in fixed memory ([`sampled`](crate::scatter::sampled)).
    Sampled,
}

impl Solver {
    /// The name used in platform files and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Solver::Auto => "auto",
            Solver::ClosedForm => "closed_form",
            Solver::Exact => "exact",
            Solver::Sampled => "sampled",
        }
    }
}

/// One object of the `workers` array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkerEntry<'a> {
    /// Machine name, as written in the file.
    pub name: &'a str,
    /// How many identical workers this entry stands for (≥ 1).
    pub count: u64,
    /// Rank of the first of them in the expanded list.
    pub first_rank: u64,
    /// Seconds, ≥ 0.
    pub comm_latency: f64,
    /// Seconds per item, ≥ 0.
    pub comm_per_item: f64,
    /// Seconds, ≥ 0.
    pub comp_latency: f64,
    /// Seconds per item, > 0.
    pub comp_per_item: f64,
    /// Shape of the receive cost (affine unless `comm_table` or `comm_power` is given).
    pub comm_model: CostModel,
    /// Shape of the compute cost.
    pub comp_model: CostModel,
    /// Repair tables whose times decrease (cerin2006 §3.3) instead of rejecting them.
    pub repair: bool,
}

impl WorkerEntry<'_> {
    /// `true` when both costs are affine.
    pub fn is_affine(&self) -> bool {
        self.comm_model == CostModel::Affine && self.comp_model == CostModel::Affine
    }

    /// An empty entry, for initialising buffers.
    pub const EMPTY: WorkerEntry<'static> = WorkerEntry {
        name: "",
        count: 1,
        first_rank: 0,
        comm_latency: 0.0,
        comm_per_item: 0.0,
        comp_latency: 0.0,
        comp_per_item: 0.0,
        comm_model: CostModel::Affine,
        comp_model: CostModel::Affine,
        repair: false,
    };
}

/// One object of the `root_candidates` array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateEntry<'a> {
    /// Name of a worker entry.
    pub name: &'a str,
    /// Seconds, ≥ 0.
    pub transfer_latency: f64,
    /// Seconds per item, ≥ 0.
    pub transfer_per_item: f64,
}

impl CandidateEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: CandidateEntry<'static> =
        CandidateEntry { name: "", transfer_latency: 0.0, transfer_per_item: 0.0 };
}

/// The scalar part of a platform file; the arrays are in the caller's buffers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlatformFile<'a> {
    /// Number of items to scatter.
    pub items: u64,
    /// Name of the root, unless candidates are given.
    pub root: Option<&'a str>,
    /// Root mode, order, rounding.
    pub options: Options,
    /// Number of entries in `workers`.
    pub entries: usize,
    /// Number of entries in `root_candidates` (0 when absent).
    pub candidates: usize,
    /// Number of workers once `count` is expanded.
    pub workers: usize,
    /// The solver asked for.
    pub solver: Solver,
    /// `true` when every cost in the file is affine (the closed form applies).
    pub affine: bool,
}

/// An upper bound on the number of worker (or candidate) entries in a document: the number
/// of `{` bytes. Use it to size the buffers for [`parse_platform`].
pub fn max_entries(json: &[u8]) -> usize {
    json.iter().filter(|&&b| b == b'{').count()
}

/// Reads a platform file. Entries go into `entries` and `candidates` (pass an empty slice
/// when no `root_candidates` are expected).
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for malformed or truncated JSON, unknown
/// keys, missing required keys, and values of the wrong type, naming the key;
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for a cost outside its range
/// (`workers[3].comp_per_item must be finite and > 0, got -1`);
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when a buffer is too
/// short ([`Error::needed`] gives the length needed).
///
/// ```
/// use divload::doc::scatter::{parse_platform, WorkerEntry};
/// let doc = br#"{"items": 10, "root": "a", "workers": [
///     {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
///     {"name": "b", "count": 2, "comm_per_item": 0.1, "comp_per_item": 2}]}"#;
/// let mut entries = [WorkerEntry::EMPTY; 4];
/// let file = parse_platform(doc, &mut entries, &mut []).unwrap();
/// assert_eq!((file.items, file.entries, file.workers), (10, 2, 3));
///
/// let bad = br#"{"items": 10, "root": "a", "workers": [{"name": "a", "comm_per_item": 0, "comp_per_item": -1}]}"#;
/// let err = parse_platform(bad, &mut entries, &mut []).unwrap_err();
/// assert_eq!(err.to_string(), "platform JSON: workers[0].comp_per_item must be finite and > 0, got -1");
/// ```
pub fn parse_platform<'a>(
    json: &'a [u8],
    entries: &mut [WorkerEntry<'a>],
    candidates: &mut [CandidateEntry<'a>],
) -> Result<PlatformFile<'a>, Error> {
    let mut failure: Option<Error> = None;
    let mut key: &'static str = "";
    let seed = DocSeed { entries, candidates, failure: &mut failure, key: &mut key };
    let mut de = serde_json_core::de::Deserializer::new(json, None);
    let parsed = seed.deserialize(&mut de).and_then(|doc| de.end().map(|_| doc));
    match parsed {
        Ok(doc) => Ok(doc),
        // A value divload rejects in a document cut short is reported as the cut: the
        // value may be a fragment ("0" of "0.0096").
        Err(_) if failure.is_some() && !brackets_closed(json) => {
            Err(Error::json("truncated document (unexpected end)", Detail::None))
        }
        Err(e) => Err(failure.unwrap_or_else(|| syntax_error(e, key))),
    }
}

/// `true` when every `{` and `[` outside strings is closed by the end of the document.
fn brackets_closed(json: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in json {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth == 0 && !in_string
}

fn syntax_error(e: serde_json_core::de::Error, key: &'static str) -> Error {
    use serde_json_core::de::Error as E;
    let message = match e {
        E::EofWhileParsingList
        | E::EofWhileParsingObject
        | E::EofWhileParsingString
        | E::EofWhileParsingNumber
        | E::EofWhileParsingValue => "truncated document (unexpected end)",
        E::ExpectedColon => "expected ':'",
        E::ExpectedListCommaOrEnd => "expected ',' or ']'",
        E::ExpectedObjectCommaOrEnd => "expected ',' or '}'",
        E::ExpectedSomeIdent => "expected true, false or null",
        E::ExpectedSomeValue => "expected a value",
        E::InvalidNumber => "invalid number (items and count must be whole numbers)",
        E::InvalidType => "value of the wrong type",
        E::InvalidUnicodeCodePoint => "invalid unicode code point",
        E::KeyMustBeAString => "object keys must be strings",
        E::TrailingCharacters => "unexpected characters after the document",
        E::TrailingComma => "trailing comma",
        E::EscapedStringIsTooLong | E::InvalidEscapeSequence => "unsupported escape sequence",
        _ => "malformed document",
    };
    if key.is_empty() {
        Error::json(message, Detail::None)
    } else {
        Error::json(message, Detail::Entry { list: key, index: usize::MAX, field: "" })
    }
}

/// Parses the whole document, stopping at the first problem. A problem found by divload
/// (rather than by the JSON reader) is stored in `failure` with its context; the reader
/// then only needs to abort.
struct DocSeed<'b, 'a> {
    entries: &'b mut [WorkerEntry<'a>],
    candidates: &'b mut [CandidateEntry<'a>],
    failure: &'b mut Option<Error>,
    key: &'b mut &'static str,
}

fn fail<E: de::Error>(slot: &mut Option<Error>, e: Error) -> E {
    *slot = Some(e);
    E::custom("divload")
}

impl<'de, 'b> DeserializeSeed<'de> for DocSeed<'b, 'de> {
    type Value = PlatformFile<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'b> Visitor<'de> for DocSeed<'b, 'de> {
    type Value = PlatformFile<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a platform object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items: Option<u64> = None;
        let mut root: Option<&'de str> = None;
        let mut options = Options::default();
        let mut workers: Option<(usize, u64, bool)> = None;
        let mut candidates: Option<usize> = None;
        let mut solver = Solver::Auto;
        let fail_at = |slot: &mut Option<Error>, message: &'static str, field: &'static str| {
            fail::<A::Error>(
                slot,
                Error::json(message, Detail::Entry { list: field, index: usize::MAX, field: "" }),
            )
        };
        while let Some(k) = map.next_key::<&'de str>()? {
            match k {
                "version" => {
                    *self.key = "version";
                    let v: u64 = map.next_value()?;
                    if v != 1 {
                        return Err(fail(
                            self.failure,
                            Error::json(
                                "only version 1 is supported",
                                Detail::Value { field: "version", value: v },
                            ),
                        ));
                    }
                }
                "items" => {
                    *self.key = "items";
                    items = Some(map.next_value()?);
                }
                "root" => {
                    *self.key = "root";
                    root = Some(map.next_value()?);
                }
                "root_mode" => {
                    *self.key = "root_mode";
                    options.root_mode = match map.next_value()? {
                        "after_send" => RootMode::AfterSend,
                        "overlap" => RootMode::Overlap,
                        _ => {
                            return Err(fail_at(
                                self.failure,
                                "must be \"after_send\" or \"overlap\"",
                                "root_mode",
                            ))
                        }
                    };
                }
                "order" => {
                    *self.key = "order";
                    options.order = match map.next_value()? {
                        "given" => OrderPolicy::Given,
                        "bandwidth" => OrderPolicy::Bandwidth,
                        _ => {
                            return Err(fail_at(self.failure, "must be \"given\" or \"bandwidth\"", "order"))
                        }
                    };
                }
                "rounding" => {
                    *self.key = "rounding";
                    options.rounding = match map.next_value()? {
                        "paper" => Rounding::Paper,
                        "largest_remainder" => Rounding::LargestRemainder,
                        "greedy" => Rounding::Greedy,
                        _ => {
                            return Err(fail_at(
                                self.failure,
                                "must be \"paper\", \"largest_remainder\" or \"greedy\"",
                                "rounding",
                            ))
                        }
                    };
                }
                "solver" => {
                    *self.key = "solver";
                    solver = match map.next_value()? {
                        "auto" => Solver::Auto,
                        "closed_form" => Solver::ClosedForm,
                        "exact" => Solver::Exact,
                        "sampled" => Solver::Sampled,
                        _ => {
                            return Err(fail_at(
                                self.failure,
                                "must be \"auto\", \"closed_form\", \"exact\" or \"sampled\"",
                                "solver",
                            ))
                        }
                    };
                }
                "workers" => {
                    *self.key = "workers";
                    let seed = EntriesSeed { buf: &mut *self.entries, failure: &mut *self.failure };
                    workers = Some(map.next_value_seed(seed)?);
                }
                "root_candidates" => {
                    *self.key = "root_candidates";
                    let seed = CandidatesSeed { buf: &mut *self.candidates, failure: &mut *self.failure };
                    candidates = Some(map.next_value_seed(seed)?);
                }
                "comment" | "description" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    return Err(fail(
                        self.failure,
                        Error::json(
                            "unknown key (expected version, items, root, root_mode, order, rounding, \
                             solver, workers, root_candidates, comment)",
                            Detail::None,
                        ),
                    ))
                }
            }
        }
        *self.key = "";
        let Some(items) = items else {
            return Err(fail_at(self.failure, "missing (the number of items to scatter)", "items"));
        };
        if items == 0 {
            return Err(fail(self.failure, Error::no_items()));
        }
        let Some((entries, expanded, affine)) = workers else {
            return Err(fail_at(self.failure, "missing (the list of workers)", "workers"));
        };
        if entries == 0 {
            return Err(fail(self.failure, Error::no_workers()));
        }
        match (root, candidates) {
            (None, None) => return Err(fail_at(self.failure, "missing (or give root_candidates)", "root")),
            (Some(_), Some(_)) => {
                return Err(fail_at(self.failure, "give either root or root_candidates, not both", "root"))
            }
            (None, Some(0)) => return Err(fail(self.failure, Error::no_root_candidates())),
            _ => {}
        }
        let Ok(workers) = usize::try_from(expanded) else {
            return Err(fail_at(self.failure, "too many workers for this machine", "workers"));
        };
        Ok(PlatformFile {
            items,
            root,
            options,
            entries,
            candidates: candidates.unwrap_or(0),
            workers,
            solver,
            affine,
        })
    }
}

/// Reads the `workers` array into the buffer; returns (entries, expanded worker count).
struct EntriesSeed<'b, 'a> {
    buf: &'b mut [WorkerEntry<'a>],
    failure: &'b mut Option<Error>,
}

impl<'de, 'b> DeserializeSeed<'de> for EntriesSeed<'b, 'de> {
    type Value = (usize, u64, bool);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, 'b> Visitor<'de> for EntriesSeed<'b, 'de> {
    type Value = (usize, u64, bool);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of workers")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut n = 0usize;
        let mut ranks = 0u64;
        let mut affine = true;
        loop {
            let seed = EntrySeed { index: n, failure: &mut *self.failure };
            let Some(mut e) = seq.next_element_seed(seed)? else { break };
            affine &= e.is_affine();
            e.first_rank = ranks;
            ranks = match ranks.checked_add(e.count) {
                Some(r) => r,
                None => {
                    let d = Detail::Entry { list: "workers", index: n, field: "count" };
                    return Err(fail(self.failure, Error::json("total worker count overflows", d)));
                }
            };
            if let Some(slot) = self.buf.get_mut(n) {
                *slot = e;
            }
            n += 1;
        }
        if n > self.buf.len() {
            return Err(fail(self.failure, Error::buffer("worker entries", n, self.buf.len())));
        }
        Ok((n, ranks, affine))
    }
}

struct EntrySeed<'b> {
    index: usize,
    failure: &'b mut Option<Error>,
}

impl<'de, 'b> DeserializeSeed<'de> for EntrySeed<'b> {
    type Value = WorkerEntry<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'b> Visitor<'de> for EntrySeed<'b> {
    type Value = WorkerEntry<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a worker object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let i = self.index;
        let at = |field: &'static str| Detail::Entry { list: "workers", index: i, field };
        let mut e = WorkerEntry { name: "", ..WorkerEntry::EMPTY };
        let (mut name, mut comm, mut comp) = (false, false, false);
        let (mut affine_comm, mut affine_comp) = (false, false);
        while let Some(k) = map.next_key::<&'de str>()? {
            let field = match k {
                "name" => {
                    e.name = map.next_value()?;
                    name = true;
                    continue;
                }
                "count" => {
                    e.count = map.next_value()?;
                    if e.count == 0 {
                        return Err(fail(self.failure, Error::json("must be at least 1", at("count"))));
                    }
                    continue;
                }
                "repair" => {
                    e.repair = map.next_value()?;
                    continue;
                }
                "comm_table" | "comp_table" => {
                    let field = if k == "comm_table" { "comm_table" } else { "comp_table" };
                    let seed = TableSeed { index: i, field, failure: &mut *self.failure };
                    let model = map.next_value_seed(seed)?;
                    if field == "comm_table" {
                        (e.comm_model, comm) = (model, true);
                    } else {
                        (e.comp_model, comp) = (model, true);
                    }
                    continue;
                }
                "comm_power" | "comp_power" => {
                    let field = if k == "comm_power" { "comm_power" } else { "comp_power" };
                    let pw: PowerEntry = map.next_value()?;
                    let bad = |message, value| {
                        Error::json(message, Detail::Number { list: "workers", index: i, field, value })
                    };
                    if !(pw.latency.is_finite() && pw.latency >= 0.0) {
                        return Err(fail(self.failure, bad("latency must be finite and >= 0", pw.latency)));
                    }
                    if !(pw.coeff.is_finite() && pw.coeff >= 0.0) {
                        return Err(fail(self.failure, bad("coeff must be finite and >= 0", pw.coeff)));
                    }
                    if !(0.01..=64.0).contains(&pw.exponent) {
                        return Err(fail(self.failure, bad("exponent must be in 0.01..=64", pw.exponent)));
                    }
                    let model =
                        CostModel::Power { latency: pw.latency, coeff: pw.coeff, exponent: pw.exponent };
                    if field == "comm_power" {
                        (e.comm_model, comm) = (model, true);
                    } else {
                        (e.comp_model, comp) = (model, true);
                    }
                    continue;
                }
                "comm_latency" => Field::CommLatency,
                "comm_per_item" => Field::CommPerItem,
                "comp_latency" => Field::CompLatency,
                "comp_per_item" => Field::CompPerItem,
                _ => {
                    return Err(fail(
                        self.failure,
                        Error::json(
                            "unknown key (expected name, count, comm_per_item, comm_latency, \
                             comp_per_item, comp_latency, comm_table, comp_table, comm_power, \
                             comp_power, repair)",
                            at(""),
                        ),
                    ))
                }
            };
            let v: f64 = map.next_value()?;
            if check(i, field, v).is_err() {
                return Err(fail(self.failure, Error::entry_cost("workers", i, field, v)));
            }
            match field {
                Field::CommLatency => e.comm_latency = v,
                Field::CommPerItem => (e.comm_per_item, affine_comm) = (v, true),
                Field::CompLatency => e.comp_latency = v,
                _ => (e.comp_per_item, affine_comp) = (v, true),
            }
        }
        comm |= affine_comm;
        comp |= affine_comp;
        let mixed = if affine_comm && e.comm_model != CostModel::Affine {
            "comm_per_item"
        } else if affine_comp && e.comp_model != CostModel::Affine {
            "comp_per_item"
        } else {
            ""
        };
        if !mixed.is_empty() {
            return Err(fail(
                self.failure,
                Error::json("give one cost per part: *_per_item, *_table or *_power", at(mixed)),
            ));
        }
        if let CostModel::Table { points, len } = e.comp_model {
            check_table(&points[..len], i, "comp_table", e.repair).map_err(|er| fail(self.failure, er))?;
        }
        if let CostModel::Table { points, len } = e.comm_model {
            check_table(&points[..len], i, "comm_table", e.repair).map_err(|er| fail(self.failure, er))?;
        }
        let missing = if !name {
            "name"
        } else if !comm {
            "comm_per_item (or comm_table, comm_power)"
        } else if !comp {
            "comp_per_item (or comp_table, comp_power)"
        } else {
            ""
        };
        if !missing.is_empty() {
            return Err(fail(self.failure, Error::json("missing", at(missing))));
        }
        if e.name.is_empty() || e.name.contains('\\') {
            return Err(fail(
                self.failure,
                Error::json("must be a non-empty name without escapes", at("name")),
            ));
        }
        Ok(e)
    }
}

/// `{"coeff", "exponent", "latency"}` of a power-law cost.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PowerEntry {
    coeff: f64,
    exponent: f64,
    #[serde(default)]
    latency: f64,
}

/// Reads `[[items, seconds], ...]` into a fixed-capacity table.
struct TableSeed<'b> {
    index: usize,
    field: &'static str,
    failure: &'b mut Option<Error>,
}

impl<'de, 'b> DeserializeSeed<'de> for TableSeed<'b> {
    type Value = CostModel;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, 'b> Visitor<'de> for TableSeed<'b> {
    type Value = CostModel;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of [items, seconds] points")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut points = [(0u64, 0.0f64); MAX_POINTS];
        let mut len = 0usize;
        while let Some(point) = seq.next_element::<(u64, f64)>()? {
            let Some(slot) = points.get_mut(len) else {
                let at = Detail::Entry { list: "workers", index: self.index, field: self.field };
                return Err(fail(self.failure, Error::json("at most 32 points", at)));
            };
            *slot = point;
            len += 1;
        }
        if len == 0 {
            let at = Detail::Entry { list: "workers", index: self.index, field: self.field };
            return Err(fail(self.failure, Error::json("needs at least one [items, seconds] point", at)));
        }
        Ok(CostModel::Table { points, len })
    }
}

/// Checks measured points: times finite and ≥ 0; unless `repair`, sizes strictly
/// increasing and times not decreasing.
fn check_table(points: &[(u64, f64)], index: usize, field: &'static str, repair: bool) -> Result<(), Error> {
    let at = |point: usize, value: f64| Detail::Point { list: "workers", index, field, point, value };
    for (k, &(size, secs)) in points.iter().enumerate() {
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(Error::json("seconds must be finite and >= 0", at(k, secs)));
        }
        if repair || k == 0 {
            continue;
        }
        let (prev_size, prev_secs) = points[k - 1];
        if size <= prev_size {
            return Err(Error::json(
                "items must increase from point to point (or set \"repair\": true)",
                at(k, size as f64),
            ));
        }
        if secs < prev_secs {
            return Err(Error::json(
                "seconds must not decrease as items increase (or set \"repair\": true)",
                at(k, secs),
            ));
        }
    }
    Ok(())
}

/// Reads `root_candidates` into the buffer; returns the number of entries.
struct CandidatesSeed<'b, 'a> {
    buf: &'b mut [CandidateEntry<'a>],
    failure: &'b mut Option<Error>,
}

impl<'de, 'b> DeserializeSeed<'de> for CandidatesSeed<'b, 'de> {
    type Value = usize;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, 'b> Visitor<'de> for CandidatesSeed<'b, 'de> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of root candidates")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut n = 0usize;
        loop {
            let seed = CandidateSeed { index: n, failure: &mut *self.failure };
            let Some(c) = seq.next_element_seed(seed)? else { break };
            if let Some(slot) = self.buf.get_mut(n) {
                *slot = c;
            }
            n += 1;
        }
        if n > self.buf.len() {
            return Err(fail(self.failure, Error::buffer("root candidate entries", n, self.buf.len())));
        }
        Ok(n)
    }
}

struct CandidateSeed<'b> {
    index: usize,
    failure: &'b mut Option<Error>,
}

impl<'de, 'b> DeserializeSeed<'de> for CandidateSeed<'b> {
    type Value = CandidateEntry<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'b> Visitor<'de> for CandidateSeed<'b> {
    type Value = CandidateEntry<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a root candidate object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let i = self.index;
        let at = |field: &'static str| Detail::Entry { list: "root_candidates", index: i, field };
        let mut c = CandidateEntry::EMPTY;
        let mut name = false;
        while let Some(k) = map.next_key::<&'de str>()? {
            let field = match k {
                "name" => {
                    c.name = map.next_value()?;
                    name = true;
                    continue;
                }
                "transfer_latency" => Field::TransferLatency,
                "transfer_per_item" => Field::TransferPerItem,
                _ => {
                    return Err(fail(
                        self.failure,
                        Error::json(
                            "unknown key (expected name, transfer_latency, transfer_per_item)",
                            at(""),
                        ),
                    ))
                }
            };
            let v: f64 = map.next_value()?;
            if check(i, field, v).is_err() {
                return Err(fail(self.failure, Error::entry_cost("root_candidates", i, field, v)));
            }
            if field == Field::TransferLatency {
                c.transfer_latency = v;
            } else {
                c.transfer_per_item = v;
            }
        }
        if !name {
            return Err(fail(self.failure, Error::json("missing", at("name"))));
        }
        Ok(c)
    }
}

impl<'a> PlatformFile<'a> {
    /// The file's entries in `entries`, once `workers` (the length of the caller's
    /// expanded buffer) is known to be long enough.
    fn entries_in<'e>(
        &self,
        entries: &'e [WorkerEntry<'a>],
        workers: usize,
    ) -> Result<&'e [WorkerEntry<'a>], Error> {
        let entries = entries.get(..self.entries).ok_or(Error::buffer(
            "worker entries",
            self.entries,
            entries.len(),
        ))?;
        if workers < self.workers {
            return Err(Error::buffer("workers", self.workers, workers));
        }
        Ok(entries)
    }

    /// Expands the entries into `workers` (one per worker, `count` copies per entry) and
    /// the candidates into `root_candidates`, and returns the planning problem.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `workers` is
    /// shorter than [`PlatformFile::workers`] or `root_candidates` shorter than
    /// [`PlatformFile::candidates`]; [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput)
    /// when `root` or a candidate names no worker; [`ErrorCode::Overflow`](crate::ErrorCode::Overflow)
    /// when a cost does not fit `N`.
    pub fn problem<'w, N: Real>(
        &self,
        entries: &[WorkerEntry<'a>],
        candidates: &[CandidateEntry<'a>],
        workers: &'w mut [Worker<N>],
        root_candidates: &'w mut [RootCandidate<N>],
    ) -> Result<Problem<'w, N>, Error> {
        let entries = self.entries_in(entries, workers.len())?;
        if let Some(i) = entries.iter().position(|e| !e.is_affine()) {
            return Err(Error::json(
                "tabulated or power-law costs need the exact or sampled solver",
                Detail::Entry { list: "workers", index: i, field: "" },
            ));
        }
        let mut k = 0usize;
        for e in entries {
            let w =
                Worker::try_from_f64(k, e.comm_latency, e.comm_per_item, e.comp_latency, e.comp_per_item)?;
            for _ in 0..e.count {
                workers[k] = w;
                k += 1;
            }
        }
        let root = match self.root {
            Some(name) => Root::Fixed(rank_of(entries, name, "root", usize::MAX)?),
            None => {
                let cands = candidates.get(..self.candidates).ok_or(Error::buffer(
                    "root candidate entries",
                    self.candidates,
                    candidates.len(),
                ))?;
                if root_candidates.len() < cands.len() {
                    return Err(Error::buffer("root candidates", cands.len(), root_candidates.len()));
                }
                for (i, c) in cands.iter().enumerate() {
                    let conv = |field: Field, v: f64| {
                        N::from_f64(v).ok_or(Error::not_representable(i, field, v, N::NAME))
                    };
                    root_candidates[i] = RootCandidate {
                        worker: rank_of(entries, c.name, "root_candidates", i)?,
                        transfer_latency: conv(Field::TransferLatency, c.transfer_latency)?,
                        transfer_per_item: conv(Field::TransferPerItem, c.transfer_per_item)?,
                    };
                }
                Root::Choose(&root_candidates[..cands.len()])
            }
        };
        Ok(Problem { workers: &workers[..self.workers], root, items: self.items, options: self.options })
    }
}

impl<'a> PlatformFile<'a> {
    /// Expands the entries into cost functions for the dynamic programs
    /// ([`scatter::exact::exact`](crate::scatter::exact::exact), [`Sampled`]).
    ///
    /// # Errors
    ///
    /// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `workers` is
    /// shorter than [`PlatformFile::workers`]; [`ErrorCode::Json`](crate::ErrorCode::Json)
    /// when the file gives `root_candidates` (the dynamic programs need a fixed root) or
    /// `root` names no worker; [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) or
    /// [`ErrorCode::Overflow`](crate::ErrorCode::Overflow) for a cost `N` cannot hold.
    pub fn cost_problem<'w, N: Real>(
        &self,
        entries: &[WorkerEntry<'a>],
        workers: &'w mut [WorkerCosts<Cost<N, MAX_POINTS>>],
    ) -> Result<CostProblem<'w, Cost<N, MAX_POINTS>>, Error> {
        let entries = self.entries_in(entries, workers.len())?;
        let Some(root) = self.root else {
            return Err(Error::json(
                "the exact and sampled solvers need a fixed root, not root_candidates",
                Detail::Entry { list: "root", index: usize::MAX, field: "" },
            ));
        };
        let root = rank_of(entries, root, "root", usize::MAX)?;
        let mut k = 0usize;
        for (i, e) in entries.iter().enumerate() {
            let costs = WorkerCosts {
                comm: cost_of::<N>(
                    e.comm_model,
                    e.comm_latency,
                    e.comm_per_item,
                    e.repair,
                    i,
                    Field::CommPerItem,
                )?,
                comp: cost_of::<N>(
                    e.comp_model,
                    e.comp_latency,
                    e.comp_per_item,
                    e.repair,
                    i,
                    Field::CompPerItem,
                )?,
            };
            for _ in 0..e.count {
                if let Some(slot) = workers.get_mut(k) {
                    *slot = costs.clone();
                }
                k += 1;
            }
        }
        Ok(CostProblem {
            workers: &workers[..self.workers],
            root,
            items: self.items,
            root_mode: self.options.root_mode,
            order: self.options.order,
        })
    }
}

/// One cost function of entry `index` in the number type `N`.
fn cost_of<N: Real>(
    model: CostModel,
    latency: f64,
    per_item: f64,
    repair: bool,
    index: usize,
    field: Field,
) -> Result<Cost<N, MAX_POINTS>, Error> {
    let conv = |f: Field, v: f64| N::from_f64(v).ok_or(Error::not_representable(index, f, v, N::NAME));
    Ok(match model {
        CostModel::Affine => {
            let lat_field = if field == Field::CommPerItem { Field::CommLatency } else { Field::CompLatency };
            Cost::Affine(Affine::new(conv(lat_field, latency)?, conv(field, per_item)?)?)
        }
        CostModel::Table { points, len } => {
            let points = &points[..len.min(MAX_POINTS)];
            Cost::Tabulated(if repair { Tabulated::repaired(points)? } else { Tabulated::new(points)? })
        }
        CostModel::Power { latency, coeff, exponent } => {
            let lat_field = if field == Field::CommPerItem { Field::CommLatency } else { Field::CompLatency };
            Cost::PowerLaw(PowerLaw::new(conv(lat_field, latency)?, coeff, exponent)?)
        }
    })
}

/// Buffer lengths, in elements, that [`solve`] needs for a file and a solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// [`Buffers::workers`], [`Buffers::out`] and [`Buffers::scratch`]: one per worker.
    pub workers: usize,
    /// [`Buffers::candidates`].
    pub candidates: usize,
    /// [`Buffers::costs`]: one per worker for the dynamic programs, else 0.
    pub costs: usize,
    /// [`Buffers::dp_choices`] and [`Buffers::dp_costs`] for the exact DP, else 0
    /// (see [`scatter::exact::exact_memory`](crate::scatter::exact::exact_memory)).
    pub dp_choices: usize,
    /// See `dp_choices`.
    pub dp_costs: usize,
}

impl Needs {
    /// Bytes of the exact DP's buffers with the number type `N` (0 for other solvers).
    pub fn dp_bytes<N>(&self) -> usize {
        crate::scatter::exact::DpMemory { choices: self.dp_choices, costs: self.dp_costs }.bytes::<N>()
    }
}

/// The caller's memory for [`solve`], sized by [`PlatformFile::needs`].
#[derive(Debug)]
pub struct Buffers<'b, N, const K: usize, const P: usize> {
    /// Affine workers, for the closed form.
    pub workers: &'b mut [Worker<N>],
    /// Root candidates, for the closed form.
    pub candidates: &'b mut [RootCandidate<N>],
    /// Cost functions, for the dynamic programs.
    pub costs: &'b mut [WorkerCosts<Cost<N, MAX_POINTS>>],
    /// The plan, in send order.
    pub out: &'b mut [Assignment<N>],
    /// Scratch for the closed form.
    pub scratch: &'b mut [Scratch<N>],
    /// Choices of the exact DP.
    pub dp_choices: &'b mut [u32],
    /// Cost row of the exact DP.
    pub dp_costs: &'b mut [N],
    /// Working memory of the sampled DP (`None` if the caller does not offer it).
    pub sampled: Option<&'b mut Sampled<N, K, P>>,
}

/// A solved platform file.
#[derive(Clone, Copy, Debug)]
pub struct Solved<N> {
    /// The plan's summary; the plan is in [`Buffers::out`].
    pub summary: Summary<N>,
    /// The closed-form plan's summary when it was computed alongside a dynamic program
    /// (affine costs and a fixed root), to show its distance to the DP's plan.
    pub closed_form: Option<Summary<N>>,
}

impl PlatformFile<'_> {
    /// The solver to use: `requested` if given, else the file's, where `auto` means the
    /// closed form when every cost is affine and the exact DP otherwise.
    pub fn solver(&self, requested: Option<Solver>) -> Solver {
        match requested.unwrap_or(self.solver) {
            Solver::Auto if self.affine => Solver::ClosedForm,
            Solver::Auto => Solver::Exact,
            s => s,
        }
    }

    /// How much memory [`solve`] needs with `solver` (from [`PlatformFile::solver`]).
    ///
    /// # Errors
    ///
    /// [`ErrorCode::Json`](crate::ErrorCode::Json) when the closed form is asked for
    /// costs that are not affine; as [`scatter::exact::exact_memory`](crate::scatter::exact::exact_memory) for
    /// the exact DP.
    pub fn needs(&self, solver: Solver) -> Result<Needs, Error> {
        let solver = self.solver(Some(solver));
        let closed = self.runs_closed_form(solver);
        if solver == Solver::ClosedForm && !self.affine {
            return Err(closed_form_needs_affine());
        }
        let dp = if solver == Solver::Exact {
            crate::scatter::exact::exact_memory(self.items, self.workers)?
        } else {
            crate::scatter::exact::DpMemory { choices: 0, costs: 0 }
        };
        Ok(Needs {
            workers: self.workers,
            candidates: if closed { self.candidates } else { 0 },
            costs: if solver == Solver::ClosedForm { 0 } else { self.workers },
            dp_choices: dp.choices,
            dp_costs: dp.costs,
        })
    }
}

impl PlatformFile<'_> {
    /// Whether [`solve`] runs the closed form with `solver` (resolved): when asked for, or
    /// next to a dynamic program when every cost is affine and the root is fixed.
    fn runs_closed_form(&self, solver: Solver) -> bool {
        self.affine && (solver == Solver::ClosedForm || self.root.is_some())
    }
}

fn closed_form_needs_affine() -> Error {
    Error::json(
        "closed_form needs affine costs; use \"exact\" or \"sampled\"",
        Detail::Entry { list: "solver", index: usize::MAX, field: "" },
    )
}

/// Plans a platform file with `solver` in the caller's buffers: the closed form, the
/// exact DP or the sampled DP, as the command line, the C library and the browser do.
/// With affine costs and a fixed root the closed form is also computed next to a dynamic
/// program: its rational bound tightens the DP's `lower_bound`, and its plan is returned
/// for comparison. `progress` is passed to [`scatter::exact::exact`](crate::scatter::exact::exact).
///
/// # Errors
///
/// As [`PlatformFile::needs`], [`PlatformFile::problem`], [`PlatformFile::cost_problem`],
/// [`plan`](crate::plan), [`scatter::exact::exact`](crate::scatter::exact::exact) and
/// [`Sampled::solve`](crate::scatter::sampled::Sampled::solve); buffers shorter than
/// [`PlatformFile::needs`] says are [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall),
/// and so is a missing sampled workspace.
pub fn solve<'a, N: Real, const K: usize, const P: usize>(
    file: &PlatformFile<'a>,
    entries: &[WorkerEntry<'a>],
    candidates: &[CandidateEntry<'a>],
    solver: Solver,
    buf: Buffers<'_, N, K, P>,
    progress: impl FnMut(u64, u64),
) -> Result<Solved<N>, Error> {
    let solver = file.solver(Some(solver));
    let needs = file.needs(solver)?;
    let closed_form = if file.runs_closed_form(solver) {
        if buf.scratch.len() < needs.workers {
            return Err(Error::buffer("scratch", needs.workers, buf.scratch.len()));
        }
        let problem = file.problem(entries, candidates, buf.workers, buf.candidates)?;
        Some(crate::plan(&problem, buf.out, buf.scratch)?)
    } else {
        None
    };
    let summary = match (solver, closed_form) {
        (Solver::ClosedForm | Solver::Auto, Some(s)) => return Ok(Solved { summary: s, closed_form: None }),
        (Solver::ClosedForm | Solver::Auto, None) => return Err(closed_form_needs_affine()),
        (Solver::Exact, _) => {
            let problem = file.cost_problem(entries, buf.costs)?;
            crate::scatter::exact::exact(
                &problem,
                crate::scatter::exact::Pruning::Monotone,
                buf.out,
                buf.dp_choices,
                buf.dp_costs,
                progress,
            )?
        }
        (Solver::Sampled, _) => {
            let problem = file.cost_problem(entries, buf.costs)?;
            let Some(work) = buf.sampled else {
                return Err(Error::buffer("sampled DP workspace", 1, 0));
            };
            work.solve(&problem, buf.out)?
        }
    };
    // The rational relaxation bounds every plan in its send order: tighten the DP's bound
    // only when the DP served the workers in that same order.
    let p = file.workers;
    let same_order = closed_form.is_some_and(|c| {
        let slots = &mut buf.scratch[..p];
        crate::scatter::order::send_order(
            &buf.workers[..p],
            c.root,
            file.options.root_mode,
            file.options.order,
            slots,
        );
        slots.iter().zip(buf.out.iter()).all(|(s, a)| s.worker == a.worker)
    });
    let summary = match closed_form {
        Some(c) if same_order => Summary {
            rational_makespan: c.rational_makespan,
            lower_bound: summary.lower_bound.max_of(c.lower_bound.min_of(summary.makespan)),
            ..summary
        },
        _ => summary,
    };
    Ok(Solved { summary, closed_form })
}

/// Rank of the first worker of the entry called `name`.
fn rank_of(
    entries: &[WorkerEntry<'_>],
    name: &str,
    list: &'static str,
    index: usize,
) -> Result<usize, Error> {
    entries
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| usize::try_from(e.first_rank).ok())
        .ok_or(Error::json("names no worker in workers", Detail::Entry { list, index, field: "name" }))
}

/// Name of the entry that worker `rank` belongs to.
pub fn name_of<'a>(entries: &[WorkerEntry<'a>], rank: usize) -> &'a str {
    let rank = rank as u64;
    let i = entries.partition_point(|e| e.first_rank + e.count <= rank);
    entries.get(i).map_or("", |e| e.name)
}

/// An upper bound on the size of the result document for `workers` workers whose entry
/// names are at most `max_name_len` bytes long.
pub fn max_result_len(workers: usize, max_name_len: usize) -> usize {
    1024 + max_name_len + workers.saturating_mul(260 + max_name_len)
}

/// Writes the result document into `out` and returns its length in bytes.
///
/// `{"version": 1, "items", "root", "root_rank", "root_mode", "order", "rounding",
/// "method", "makespan", "rational_makespan", "rational_exact", "lower_bound", "bound", "gap",
/// "uniform_makespan", "speedup", "root_transfer", "participating", "plan": [{"name",
/// "rank", "count", "displacement", "share", "start", "received", "finish",
/// "participating"}]}`, with `plan` in send order and times in seconds.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `out` is too small;
/// [`max_result_len`] gives a size that is always enough.
pub fn write_result<N: Real>(
    file: &PlatformFile<'_>,
    entries: &[WorkerEntry<'_>],
    summary: &Summary<N>,
    plan: &[Assignment<N>],
    out: &mut [u8],
) -> Result<usize, Error> {
    let entries = entries.get(..file.entries).unwrap_or(entries);
    let doc = ResultDoc { file, entries, summary, plan };
    let got = out.len();
    serde_json_core::to_slice(&doc, out).map_err(|_| {
        let longest = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
        Error::buffer("result JSON", max_result_len(plan.len(), longest), got)
    })
}

struct ResultDoc<'r, 'a, N> {
    file: &'r PlatformFile<'a>,
    entries: &'r [WorkerEntry<'a>],
    summary: &'r Summary<N>,
    plan: &'r [Assignment<N>],
}

/// Names of the options as written in platform files.
pub fn option_names(o: &Options) -> (&'static str, &'static str, &'static str) {
    (
        match o.root_mode {
            RootMode::AfterSend => "after_send",
            RootMode::Overlap => "overlap",
        },
        match o.order {
            OrderPolicy::Given => "given",
            OrderPolicy::Bandwidth => "bandwidth",
        },
        match o.rounding {
            Rounding::Paper => "paper",
            Rounding::LargestRemainder => "largest_remainder",
            Rounding::Greedy => "greedy",
        },
    )
}

impl<N: Real> Serialize for ResultDoc<'_, '_, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.summary;
        let (root_mode, order, rounding) = option_names(&self.file.options);
        let mut st = s.serialize_struct("Result", 19)?;
        st.serialize_field("version", &1u32)?;
        st.serialize_field("items", &m.items)?;
        st.serialize_field("root", name_of(self.entries, m.root))?;
        st.serialize_field("root_rank", &(m.root as u64))?;
        st.serialize_field("root_mode", root_mode)?;
        st.serialize_field("order", order)?;
        st.serialize_field("rounding", rounding)?;
        st.serialize_field("method", m.method.name())?;
        st.serialize_field("makespan", &m.makespan.to_f64())?;
        st.serialize_field("rational_makespan", &m.rational_makespan.to_f64())?;
        st.serialize_field("rational_exact", &m.rational_exact)?;
        st.serialize_field("lower_bound", &m.lower_bound.to_f64())?;
        st.serialize_field("bound", &m.bound.to_f64())?;
        st.serialize_field("gap", &m.gap().to_f64())?;
        st.serialize_field("uniform_makespan", &m.uniform_makespan.to_f64())?;
        st.serialize_field("speedup", &m.speedup())?;
        st.serialize_field("root_transfer", &m.root_transfer.to_f64())?;
        st.serialize_field("participating", &(m.participating as u64))?;
        st.serialize_field("plan", &PlanRows { entries: self.entries, plan: self.plan })?;
        st.end()
    }
}

struct PlanRows<'r, 'a, N> {
    entries: &'r [WorkerEntry<'a>],
    plan: &'r [Assignment<N>],
}

impl<N: Real> Serialize for PlanRows<'_, '_, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.plan.len()))?;
        for a in self.plan {
            seq.serialize_element(&Row { name: name_of(self.entries, a.worker), a })?;
        }
        seq.end()
    }
}

struct Row<'r, N> {
    name: &'r str,
    a: &'r Assignment<N>,
}

impl<N: Real> Serialize for Row<'_, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.a;
        let mut st = s.serialize_struct("Row", 9)?;
        st.serialize_field("name", self.name)?;
        st.serialize_field("rank", &(a.worker as u64))?;
        st.serialize_field("count", &a.count)?;
        st.serialize_field("displacement", &a.displacement)?;
        st.serialize_field("share", &a.share.to_f64())?;
        st.serialize_field("start", &a.start.to_f64())?;
        st.serialize_field("received", &a.received.to_f64())?;
        st.serialize_field("finish", &a.finish.to_f64())?;
        st.serialize_field("participating", &a.participating())?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{plan, Assignment, Scratch};
    use std::string::ToString;

    const DOC: &[u8] = br#"{"items": 10, "root": "a", "workers": [
        {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
        {"name": "b", "count": 2, "comm_per_item": 0.1, "comp_per_item": 2}]}"#;

    #[test]
    fn small_buffers_say_how_much_is_needed() {
        let mut one = [WorkerEntry::EMPTY; 1];
        let e = parse_platform(DOC, &mut one, &mut []).unwrap_err();
        assert_eq!(e.needed(), Some(2));
        assert_eq!(e.code(), crate::ErrorCode::BufferTooSmall);

        let mut entries = [WorkerEntry::EMPTY; 2];
        let file = parse_platform(DOC, &mut entries, &mut []).unwrap();
        let mut workers = [Worker::<f64>::linear(0.0, 1.0); 2];
        let e = file.problem(&entries, &[], &mut workers, &mut []).unwrap_err();
        assert_eq!(e.needed(), Some(3));

        let mut workers = [Worker::<f64>::linear(0.0, 1.0); 3];
        let problem = file.problem(&entries, &[], &mut workers, &mut []).unwrap();
        let mut out = [Assignment::EMPTY; 3];
        let mut scratch = [Scratch::EMPTY; 3];
        let summary = plan(&problem, &mut out, &mut scratch).unwrap();
        let mut tiny = [0u8; 64];
        let e = write_result(&file, &entries, &summary, &out, &mut tiny).unwrap_err();
        let needed = e.needed().unwrap();
        let mut big = [0u8; 4096];
        assert!(needed <= big.len());
        let n = write_result(&file, &entries, &summary, &out, &mut big).unwrap();
        assert!(n <= needed, "the stated size is enough: {n} <= {needed}");
        let text = core::str::from_utf8(&big[..n]).unwrap();
        assert!(text.starts_with(r#"{"version":1,"items":10,"root":"a","#), "{text}");
        assert_eq!(name_of(&entries, 2), "b");
        assert_eq!(name_of(&entries, 0), "a");
    }

    const MEASURED: &[u8] = br#"{"items": 100, "root": "a", "solver": "sampled", "workers": [
        {"name": "a", "comm_per_item": 0, "comp_table": [[10, 0.5], [100, 4.25]]},
        {"name": "b", "repair": true, "comm_table": [[50, 0.1], [20, 0.2]],
         "comp_power": {"coeff": 0.001, "exponent": 1.5, "latency": 0.01}}]}"#;

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let mut entries = [WorkerEntry::EMPTY; 8];
        for doc in [DOC, MEASURED] {
            for cut in 0..doc.len() {
                let e = parse_platform(&doc[..cut], &mut entries, &mut []).unwrap_err();
                assert_eq!(e.code(), crate::ErrorCode::Json, "cut at {cut}: {e}");
            }
        }
    }

    #[test]
    fn measured_costs_become_cost_functions() {
        use crate::cost::CostFn;
        let mut entries = [WorkerEntry::EMPTY; 8];
        let file = parse_platform(MEASURED, &mut entries, &mut []).unwrap();
        assert_eq!((file.solver, file.affine, file.workers), (Solver::Sampled, false, 2));
        let mut workers = [Worker::<f64>::linear(0.0, 1.0); 2];
        let e = file.problem(&entries, &[], &mut workers, &mut []).unwrap_err();
        assert_eq!(
            e.to_string(),
            "platform JSON: workers[0]: tabulated or power-law costs need the exact or sampled solver"
        );
        let zero = Cost::Affine(Affine::new(0.0, 0.0).unwrap());
        let mut costs = [
            WorkerCosts { comm: zero.clone(), comp: zero.clone() },
            WorkerCosts { comm: zero.clone(), comp: zero },
        ];
        let problem = file.cost_problem(&entries, &mut costs).unwrap();
        assert_eq!(problem.root, 0);
        let w = problem.workers;
        assert_eq!(w[0].comp.time(55), 2.375);
        let pooled: f64 = w[1].comm.time(20);
        assert!((pooled - 0.15).abs() < 1e-15, "repaired: the two points pooled");
        assert_eq!(w[1].comp.time(100), 0.01 + 0.001 * 1000.0);
    }

    #[test]
    fn root_candidates_resolve_by_name() {
        let doc =
            br#"{"items": 10, "root_candidates": [{"name": "b", "transfer_per_item": 0.5}, {"name": "a"}],
            "workers": [{"name": "a", "comm_per_item": 0.1, "comp_per_item": 1},
                        {"name": "b", "count": 2, "comm_per_item": 0.1, "comp_per_item": 1}]}"#;
        let mut entries = [WorkerEntry::EMPTY; 8];
        let mut cands = [CandidateEntry::EMPTY; 8];
        let file = parse_platform(doc, &mut entries, &mut cands).unwrap();
        assert_eq!(file.candidates, 2);
        let mut workers = [Worker::<f64>::linear(0.0, 1.0); 3];
        let mut rc = [RootCandidate::local(0); 2];
        let problem = file.problem(&entries, &cands, &mut workers, &mut rc).unwrap();
        let Root::Choose(c) = problem.root else { panic!("candidates expected") };
        assert_eq!((c[0].worker, c[0].transfer_per_item, c[1].worker), (1, 0.5, 0));
        let bad = br#"{"items": 10, "root_candidates": [{"name": "zz"}], "workers": [{"name": "a", "comm_per_item": 0, "comp_per_item": 1}]}"#;
        let file = parse_platform(bad, &mut entries, &mut cands).unwrap();
        let e = file.problem(&entries, &cands, &mut workers, &mut rc).unwrap_err();
        assert_eq!(e.to_string(), "platform JSON: root_candidates[0].name: names no worker in workers");
    }
}
