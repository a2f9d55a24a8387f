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
//! `order` and `rounding` default to `after_send`, `bandwidth` and `greedy`. Instead of
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
use crate::model::{check, Options, OrderPolicy, RootCandidate, RootMode, Rounding, Worker};
use crate::num::Real;
use crate::plan::{Assignment, Problem, Root, Summary};

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
}

impl WorkerEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: WorkerEntry<'static> = WorkerEntry {
        name: "",
        count: 1,
        first_rank: 0,
        comm_latency: 0.0,
        comm_per_item: 0.0,
        comp_latency: 0.0,
        comp_per_item: 0.0,
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
/// use divload::json::{parse_platform, WorkerEntry};
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
        let mut workers: Option<(usize, u64)> = None;
        let mut candidates: Option<usize> = None;
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
                             workers, root_candidates, comment)",
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
        let Some((entries, expanded)) = workers else {
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
        Ok(PlatformFile { items, root, options, entries, candidates: candidates.unwrap_or(0), workers })
    }
}

/// Reads the `workers` array into the buffer; returns (entries, expanded worker count).
struct EntriesSeed<'b, 'a> {
    buf: &'b mut [WorkerEntry<'a>],
    failure: &'b mut Option<Error>,
}

impl<'de, 'b> DeserializeSeed<'de> for EntriesSeed<'b, 'de> {
    type Value = (usize, u64);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, 'b> Visitor<'de> for EntriesSeed<'b, 'de> {
    type Value = (usize, u64);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of workers")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut n = 0usize;
        let mut ranks = 0u64;
        loop {
            let seed = EntrySeed { index: n, failure: &mut *self.failure };
            let Some(mut e) = seq.next_element_seed(seed)? else { break };
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
        Ok((n, ranks))
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
                "comm_latency" => Field::CommLatency,
                "comm_per_item" => Field::CommPerItem,
                "comp_latency" => Field::CompLatency,
                "comp_per_item" => Field::CompPerItem,
                _ => {
                    return Err(fail(
                        self.failure,
                        Error::json(
                            "unknown key (expected name, count, comm_per_item, comm_latency, \
                             comp_per_item, comp_latency)",
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
                Field::CommPerItem => (e.comm_per_item, comm) = (v, true),
                Field::CompLatency => e.comp_latency = v,
                _ => (e.comp_per_item, comp) = (v, true),
            }
        }
        let missing = if !name {
            "name"
        } else if !comm {
            "comm_per_item"
        } else if !comp {
            "comp_per_item"
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
        let entries = entries.get(..self.entries).ok_or(Error::buffer(
            "worker entries",
            self.entries,
            entries.len(),
        ))?;
        if workers.len() < self.workers {
            return Err(Error::buffer("workers", self.workers, workers.len()));
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
/// "makespan", "rational_makespan", "rational_exact", "lower_bound", "bound",
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
        let mut st = s.serialize_struct("Result", 17)?;
        st.serialize_field("version", &1u32)?;
        st.serialize_field("items", &m.items)?;
        st.serialize_field("root", name_of(self.entries, m.root))?;
        st.serialize_field("root_rank", &(m.root as u64))?;
        st.serialize_field("root_mode", root_mode)?;
        st.serialize_field("order", order)?;
        st.serialize_field("rounding", rounding)?;
        st.serialize_field("makespan", &m.makespan.to_f64())?;
        st.serialize_field("rational_makespan", &m.rational_makespan.to_f64())?;
        st.serialize_field("rational_exact", &m.rational_exact)?;
        st.serialize_field("lower_bound", &m.lower_bound.to_f64())?;
        st.serialize_field("bound", &m.bound.to_f64())?;
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

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let mut entries = [WorkerEntry::EMPTY; 4];
        for cut in 0..DOC.len() {
            let e = parse_platform(&DOC[..cut], &mut entries, &mut []).unwrap_err();
            assert_eq!(e.code(), crate::ErrorCode::Json, "cut at {cut}: {e}");
        }
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
