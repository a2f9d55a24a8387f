//! The document layer (feature `json`): platform documents in, result documents out, for
//! every model, without allocation.
//!
//! A document is `{"version": 1, "model": "scatter" | …, …}`; without `"model"` it is a
//! scatter document, so every platform file written before models had names still reads.
//! [`MODELS`] is the one registry every front end lists (the command line's `divload
//! models` and `divload example`, `divload_models_json` in C, `models()` in the browser).

pub mod cost;
pub mod json;
pub mod model;
pub mod multicluster;
pub mod names;
pub mod partition;
pub mod returns;
pub mod ring;
pub mod scatter;
pub mod schema;

use crate::error::{Detail, Error};
use crate::num::Real;
use crate::report::Report;
use json::{JsonError, Reader, Str, Writer};
pub use model::{limits, Effort, Memory, Model, Piece, Planned, Share};

/// One model as front ends present it.
#[derive(Debug)]
pub struct ModelInfo {
    /// The value of `"model"` in documents.
    pub name: &'static str,
    /// What it plans, in a line.
    pub title: &'static str,
    /// The paper and sections it follows.
    pub paper: &'static str,
    /// Its document's fields ([`Model::SCHEMA`]).
    pub fields: &'static [schema::Field],
    /// How its plan is drawn ([`Model::GANTT`]).
    pub gantt: &'static [schema::Phase],
    /// Its other charts ([`Model::CHARTS`]).
    pub charts: &'static [schema::Chart],
}

/// The registry: one line per model, `#[cfg(feature = "module")] module => type`, where
/// `doc::module` holds the model's documents and `type` implements [`Model`]. The module's
/// name is the value of `"model"` in documents. Everything front ends know of models comes
/// from here. A model whose feature is off is left out of every dispatch, so a build with
/// one model's feature (the wasm module of that model) links none of the others' code.
macro_rules! registry {
    ($(#[cfg($on:meta)] $module:ident => $entry:ident),+ $(,)?) => {
        /// Every model documents can name, in the order front ends offer them.
        pub const MODELS: &[ModelInfo] = &[$(#[cfg($on)] ModelInfo {
            name: stringify!($module),
            title: <$module::$entry as Model>::TITLE,
            paper: <$module::$entry as Model>::PAPER,
            fields: <$module::$entry as Model>::SCHEMA,
            gantt: <$module::$entry as Model>::GANTT,
            charts: <$module::$entry as Model>::CHARTS,
        }),+];

        /// The valid values of `"model"`, for error messages.
        #[cfg(all($($on),+))]
        const MODEL_NAMES: &str = concat!("must be ", one_of!($($module),+));
        /// A build of some models cannot spell their list at compile time (`concat!` takes
        /// every line or none); its front end lists them (`models()`).
        #[cfg(not(all($($on),+)))]
        const MODEL_NAMES: &str = "must be a model of this build (its list of models names them)";

        impl ModelInfo {
            /// A ready-to-edit document of this model (`divload example MODEL`).
            ///
            /// A function rather than a field of [`MODELS`]: front ends that list the
            /// models without their examples, as the wasm page does, then do not carry
            /// the examples' text (issue 14).
            pub fn example(&self) -> &'static str {
                $(#[cfg($on)] if self.name == stringify!($module) {
                    return <$module::$entry as Model>::EXAMPLE;
                })+
                ""
            }
        }

        /// Plans any document with the model it names ([`model_of`]), in the front end's
        /// `memory`: the one entry point of every front end.
        ///
        /// # Errors
        ///
        /// As [`model_of`] and the model's [`Model::plan`].
        // A build with no model's feature has nothing to dispatch to.
        #[cfg_attr(not(any($($on),+)), allow(unused_variables))]
        pub fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
            let name = model_of(text)?.name;
            $(#[cfg($on)] if name == stringify!($module) {
                return <$module::$entry as Model>::plan(text, memory);
            })+
            Err(Error::json(MODEL_NAMES, Detail::Entry { list: "model", index: usize::MAX, field: "" }))
        }

        /// How much planning a document would take ([`Model::effort`]).
        ///
        /// # Errors
        ///
        /// As [`model_of`] and the model's reader.
        // A build with no model's feature has nothing to dispatch to.
        #[cfg_attr(not(any($($on),+)), allow(unused_variables))]
        pub fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<model::Effort, Error> {
            let name = model_of(text)?.name;
            $(#[cfg($on)] if name == stringify!($module) {
                return <$module::$entry as Model>::effort(text, memory);
            })+
            Err(Error::json(MODEL_NAMES, Detail::Entry { list: "model", index: usize::MAX, field: "" }))
        }

        /// The events a document's plan predicts, for a simulator ([`Model::timeline`]);
        /// `None` when its model has no timeline yet.
        ///
        /// # Errors
        ///
        /// As [`model_of`] and the model's [`Model::timeline`].
        // A build with no model's feature has nothing to dispatch to.
        #[cfg_attr(not(any($($on),+)), allow(unused_variables))]
        pub fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
            let name = model_of(text)?.name;
            $(#[cfg($on)] if name == stringify!($module) {
                return <$module::$entry as Model>::timeline(text, memory);
            })+
            Err(Error::json(MODEL_NAMES, Detail::Entry { list: "model", index: usize::MAX, field: "" }))
        }

        /// A generated document of `model` from `params` ([`Model::generate`]).
        ///
        /// # Errors
        ///
        /// An unknown model; "MODEL: takes no generator parameters" for a model without
        /// a generator; the model's own errors.
        // A build with no model's feature has nothing to dispatch to.
        #[cfg_attr(not(any($($on),+)), allow(unused_variables))]
        pub fn generate<'m, M: Memory>(model: &str, params: &[(&str, &str)], memory: &'m M) -> Result<&'m [u8], Error> {
            $(#[cfg($on)] if model == stringify!($module) {
                return <$module::$entry as Model>::generate(params, memory)?.ok_or(Error::json(
                    "takes no generator parameters",
                    Detail::Entry { list: stringify!($module), index: usize::MAX, field: "" },
                ));
            })+
            Err(Error::json(MODEL_NAMES, Detail::Entry { list: "model", index: usize::MAX, field: "" }))
        }

        /// The schedules a document's plan is compared with ([`Model::baselines`]), in
        /// the front end's `memory`.
        ///
        /// # Errors
        ///
        /// As [`model_of`] and the model's [`Model::baselines`].
        // A build with no model's feature has nothing to dispatch to.
        #[cfg_attr(not(any($($on),+)), allow(unused_variables))]
        pub fn baselines<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<&'m [u8], Error> {
            let name = model_of(text)?.name;
            $(#[cfg($on)] if name == stringify!($module) {
                return <$module::$entry as Model>::baselines(text, memory);
            })+
            Err(Error::json(MODEL_NAMES, Detail::Entry { list: "model", index: usize::MAX, field: "" }))
        }
    };
}

/// `"a", "b" or "c"` from the registry's names.
// A build with some models' features off spells no list (`MODEL_NAMES`).
#[allow(unused_macros)]
macro_rules! one_of {
    ($a:ident) => { concat!("\"", stringify!($a), "\"") };
    ($a:ident, $b:ident) => { concat!("\"", stringify!($a), "\" or \"", stringify!($b), "\"") };
    ($a:ident, $($rest:ident),+) => { concat!("\"", stringify!($a), "\", ", one_of!($($rest),+)) };
}

registry! {
    #[cfg(feature = "scatter")] scatter => Scatter,
    #[cfg(feature = "returns")] returns => Returns,
    #[cfg(feature = "multicluster")] multicluster => Multicluster,
    #[cfg(feature = "partition")] partition => Partition,
    #[cfg(feature = "ring")] ring => Ring,
}

/// That a document's workers (after `count` expansion) are within what the front ends
/// plan ([`limits::MAX_WORKERS`]).
pub(crate) fn check_workers(list: &'static str, workers: u64) -> Result<(), Error> {
    if workers > limits::MAX_WORKERS as u64 {
        return Err(Error::limit(list, limits::MAX_WORKERS as u64, workers));
    }
    Ok(())
}

/// That no two of `n` entries share a name ([`check_names`]), in memory from `memory`.
pub(crate) fn unique_names<'a, M: Memory>(
    memory: &M,
    list: &'static str,
    n: usize,
    name: &dyn Fn(usize) -> Option<Str<'a>>,
) -> Result<(), Error> {
    let keys = memory.slice("name keys", n, NameKey::EMPTY)?;
    check_names(list, n, name, keys)
}

/// Most fields [`set_fields`] sets at once.
pub const MAX_SET_FIELDS: usize = 16;

/// Writes `text` (a JSON object) with its top-level `fields` set: each `(key, value)`
/// replaces the key's value where the document has the key, or is added at the end; every
/// other member is copied as it was written. This is how front ends change a document's
/// settings (the command line's `--items`, `--solver`, `--set KEY=VALUE`) for any model:
/// the model's own reader then checks the result as strictly as any document, so a key
/// the model does not know is an error naming the keys it does.
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for a document that is not a strict JSON
/// object or a value that is not one JSON value (the message names the key), more than
/// [`MAX_SET_FIELDS`] fields; [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall)
/// with the exact length needed.
///
/// ```
/// use divload::doc::set_fields;
/// let mut out = [0u8; 64];
/// let n = set_fields(br#"{"items": 10, "x": [1, 2]}"#, &[("items", b"20"), ("solver", br#""exact""#)], &mut out).unwrap();
/// assert_eq!(&out[..n], br#"{"items":20,"x":[1, 2],"solver":"exact"}"#);
/// assert!(set_fields(b"{}", &[("items", b"2 0")], &mut out).unwrap_err().to_string().contains("items"));
/// ```
pub fn set_fields(text: &[u8], fields: &[(&'static str, &[u8])], out: &mut [u8]) -> Result<usize, Error> {
    if fields.len() > MAX_SET_FIELDS {
        return Err(Error::limit("fields set at once", MAX_SET_FIELDS as u64, fields.len() as u64));
    }
    for &(key, value) in fields {
        let mut v = Reader::new(value);
        let checked = v.skip_value().and_then(|()| v.end());
        if let Err(e) = checked {
            let detail = Detail::Syntax {
                offset: e.offset,
                list: key,
                outer: usize::MAX,
                index: usize::MAX,
                field: "",
            };
            return Err(Error::json(e.kind.message(), detail));
        }
    }
    let mut d = Doc::new(text);
    let mut w = Writer::new(out);
    let mut set = [false; MAX_SET_FIELDS];
    d.object()?;
    w.begin_object();
    while let Some((key, _)) = d.r.next_key().map_err(|e| d.json(e))? {
        let start = d.offset();
        d.skip()?;
        let found = fields.iter().zip(set.iter_mut()).find(|((k, _), done)| !**done && key.eq_str(k));
        match found {
            Some(((k, v), done)) => {
                *done = true;
                w.key(k);
                w.raw_value(v);
            }
            None => {
                w.raw_key(key);
                w.raw_value(trim_start(d.since(start)));
            }
        }
    }
    d.end()?;
    for ((k, v), done) in fields.iter().zip(set) {
        if !done {
            w.key(k);
            w.raw_value(v);
        }
    }
    w.end_object();
    w.end("document")
}

/// `bytes` without its leading JSON whitespace.
fn trim_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')).count();
    bytes.get(skip..).unwrap_or(&[])
}

/// The model a document names: its `"model"` value, scatter when it has none.
///
/// Only the model is decided here: malformed JSON elsewhere is left to the model's own
/// reader, which is just as strict and reports the error with the key it is in
/// (`workers[1].name: byte 114: …`). A document broken before its `"model"` key goes to
/// the scatter reader, as every document did before models had names.
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for a `"model"` that is not a string or
/// names no model (the message lists them), or that appears twice.
///
/// ```
/// use divload::doc::model_of;
/// assert_eq!(model_of(br#"{"items": 3, "model": "returns"}"#).unwrap().name, "returns");
/// assert_eq!(model_of(br#"{"items": 3}"#).unwrap().name, "scatter");
/// assert_eq!(model_of(br#"{"items": .5, "model": "returns"}"#).unwrap().name, "scatter");
/// assert_eq!(
///     model_of(br#"{"model": "torus"}"#).unwrap_err().to_string(),
///     "platform JSON: model: byte 9: must be \"scatter\", \"returns\", \"multicluster\", \"partition\" or \"ring\""
/// );
/// ```
pub fn model_of(json: &[u8]) -> Result<&'static ModelInfo, Error> {
    let mut d = Doc::new(json);
    let mut found: Option<&'static ModelInfo> = None;
    if d.object().is_ok() {
        while let Ok(Some((k, offset))) = d.r.next_key() {
            if !k.eq_str("model") {
                if d.skip().is_err() {
                    break;
                }
                continue;
            }
            d.at("model", usize::MAX, "");
            if found.is_some() {
                return Err(d.error("duplicate key", offset));
            }
            let at = d.offset();
            let name = d.string()?;
            found =
                Some(MODELS.iter().find(|m| name.eq_str(m.name)).ok_or_else(|| d.error(MODEL_NAMES, at))?);
        }
    }
    found
        .or(MODELS.first())
        .ok_or(Error::json(MODEL_NAMES, Detail::Entry { list: "model", index: usize::MAX, field: "" }))
}

/// Opens a result document: `{"version": 1, "model": model`.
pub(crate) fn begin_result(w: &mut Writer<'_>, model: &str) {
    w.begin_object();
    w.key("version");
    w.u64(1);
    w.key("model");
    w.str(model);
}

/// How a result answers, in every model alike, after the model's own leading keys:
/// `method` (how it was obtained), `makespan` (of the integer plan), `rational_makespan`,
/// `lower_bound` (valid over every plan of the model's stated scope), the model's a-priori
/// `bound` where it has one (the scatter's eq. 4, the returns' LP), `gap`
/// (`makespan − lower_bound`, never negative) and `exact` (proven optimal in that scope).
pub(crate) fn write_answer<N: Real>(
    w: &mut Writer<'_>,
    report: &Report<N>,
    rational_makespan: N,
    bound: Option<N>,
) {
    w.key("method");
    w.str(report.method.name());
    w.numbers(&[
        ("makespan", report.makespan.to_f64()),
        ("rational_makespan", rational_makespan.to_f64()),
        ("lower_bound", report.lower_bound.to_f64()),
    ]);
    if let Some(bound) = bound {
        w.key("bound");
        w.f64(bound.to_f64());
    }
    w.key("gap");
    w.f64(report.gap().to_f64());
    w.key("exact");
    w.bool(report.exact);
}

/// Opens one row of a result's `plan`: `{"name", "rank", "count", "displacement"`, the
/// fields every model's rows start with.
pub(crate) fn begin_row(w: &mut Writer<'_>, name: Str<'_>, rank: usize, count: u64, displacement: u64) {
    w.begin_object();
    w.key("name");
    w.raw_str(name);
    w.key("rank");
    w.u64(rank as u64);
    w.key("count");
    w.u64(count);
    w.key("displacement");
    w.u64(displacement);
}

/// The required `items` and `workers` of a document whose workers expand by `count`:
/// (items, entries, workers), or the error naming what is missing or empty.
pub(crate) fn items_and_workers(
    items: Option<u64>,
    workers: Option<(usize, u64)>,
    items_missing: &'static str,
) -> Result<(u64, usize, usize), Error> {
    let Some(items) = items else { return Err(missing("items", items_missing)) };
    if items == 0 {
        return Err(Error::no_items());
    }
    let Some((n, expanded)) = workers else {
        return Err(missing("workers", "missing (the list of workers)"));
    };
    if n == 0 {
        return Err(Error::no_workers());
    }
    let expanded =
        usize::try_from(expanded).map_err(|_| Error::limit("workers", usize::MAX as u64, expanded))?;
    Ok((items, n, expanded))
}

/// A required key or list is missing or inconsistent: `message` at `key`.
/// The entry that worker `rank` belongs to, in entries numbered in document order;
/// `span(e)` is the entry's first rank and its count. Entries of one worker each, the usual
/// document, hold rank `i` at index `i`: found without the search, whose cache misses were
/// half of writing a 10⁶-worker result.
pub(crate) fn entry_of<E>(entries: &[E], rank: usize, span: impl Fn(&E) -> (u64, u64)) -> Option<&E> {
    let direct = entries.get(rank).filter(|e| {
        let (first, count) = span(e);
        first == rank as u64 && count > 0
    });
    direct.or_else(|| {
        let i = entries.partition_point(|e| {
            let (first, count) = span(e);
            first + count <= rank as u64
        });
        entries.get(i)
    })
}

pub(crate) fn missing(key: &'static str, message: &'static str) -> Error {
    Error::json(message, Detail::Entry { list: key, index: usize::MAX, field: "" })
}

/// The model called `name`.
pub fn model(name: &str) -> Option<&'static ModelInfo> {
    MODELS.iter().find(|m| m.name == name)
}

/// Writes `[{"name", "title", "paper", "fields", "gantt", "charts"}, …]` for every model into
/// `out` (fields and timeline as [`schema`] describes them); returns the length.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the exact length
/// needed.
pub fn write_models(out: &mut [u8]) -> Result<usize, Error> {
    let mut w = Writer::new(out);
    w.begin_array();
    for m in MODELS {
        w.begin_object();
        w.key("name");
        w.str(m.name);
        w.key("title");
        w.str(m.title);
        w.key("paper");
        w.str(m.paper);
        w.key("fields");
        schema::write_fields(&mut w, m.fields);
        w.key("gantt");
        schema::write_timeline(&mut w, m.gantt);
        w.key("charts");
        schema::write_charts(&mut w, m.charts);
        w.end_object();
    }
    w.end_array();
    w.end("models JSON")
}

/// The keys one kind of JSON object may hold, and how an error lists them.
#[derive(Debug)]
pub(crate) struct Keys {
    pub names: &'static [&'static str],
    /// `"unknown key (expected …)"`, written out once per kind of object.
    pub unknown: &'static str,
}

/// FNV-1a of a name's decoded characters: names equal as [`json::Str`] compares them
/// (escapes decoded) hash equally.
pub(crate) fn name_hash(name: json::Str<'_>) -> u64 {
    name.chars().fold(0xcbf2_9ce4_8422_2325u64, |h, c| (h ^ u64::from(c)).wrapping_mul(0x0100_0000_01b3))
}

/// One name's place in a sort of names by hash ([`check_names`]): its hash and its
/// entry's index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NameKey {
    hash: u64,
    index: usize,
}

impl NameKey {
    /// An empty key, for initialising buffers.
    pub const EMPTY: NameKey = NameKey { hash: 0, index: 0 };

    fn put(&mut self, hash: u64, index: usize) {
        *self = NameKey { hash, index };
    }

    fn get(&self) -> (u64, usize) {
        (self.hash, self.index)
    }
}

/// Checks that no two of the `n` entries of `list` share a name: `name(i)` is entry i's
/// name, `keys` holds at least `n` records. Names are what a document refers to workers by
/// (`root`, `root_candidates`, a given scenario), so two entries of one name would make
/// those references pick one of them silently.
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) at `list[i].name` for the first entry (in
/// document order) whose name an earlier one has;
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `keys` is shorter
/// than `n`.
pub fn check_names<'a>(
    list: &'static str,
    n: usize,
    name: &dyn Fn(usize) -> Option<json::Str<'a>>,
    keys: &mut [NameKey],
) -> Result<(), Error> {
    let got = keys.len();
    let keys = keys.get_mut(..n).ok_or(Error::buffer("name keys", n, got))?;
    match first_repeated(keys, name, NameKey::put, NameKey::get, &|_| 0) {
        Some(i) => Err(Error::json(
            "repeats the name of an earlier entry (names must be unique)",
            Detail::Entry { list, index: i, field: "name" },
        )),
        None => Ok(()),
    }
}

/// The first entry, in document order, whose name an earlier entry of a clashing group
/// has, through a sort of (hash, index) records in `slots` (one per entry; `put` and `get`
/// reach a record, so a caller may lend a buffer of another type before it is filled).
/// `group(i)`: 0 for entries whose names clash with every other entry's, `g > 0` for
/// entries that clash only with group 0 and group `g` (a `what_if` addition's clusters:
/// two additions may each add a cluster of one name). Comparing every pair was quadratic:
/// 14 s for 10⁵ clusters, hours at the 2²⁴ a document may have; sorted by (hash, group,
/// index) an entry is compared with the group-0 entries of its hash and the earlier ones
/// of its own group only, so 2·10⁴ additions of a cluster of one name are not quadratic
/// either (20 s before). The slots are left sorted, for looking names up. (`dyn`, as the
/// document readers' other callbacks in the wasm module: one copy per record type.)
pub(crate) fn first_repeated<'a, T>(
    slots: &mut [T],
    name: &dyn Fn(usize) -> Option<json::Str<'a>>,
    put: fn(&mut T, u64, usize),
    get: fn(&T) -> (u64, usize),
    group: &dyn Fn(usize) -> usize,
) -> Option<usize> {
    for (i, slot) in slots.iter_mut().enumerate() {
        put(slot, name(i).map_or(0, name_hash), i);
    }
    let key = |s: &T| {
        let (hash, i) = get(s);
        (hash, group(i), i)
    };
    crate::kernel::sort::sort_by(slots, |a, b| key(a) < key(b));
    let mut repeated = None::<usize>;
    let mut start = 0;
    while let Some(first) = slots.get(start) {
        let hash = get(first).0;
        let end = slots
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .position(|s| get(s).0 != hash)
            .map_or(slots.len(), |n| start + n);
        let run = slots.get(start..end).unwrap_or(&[]);
        // Group 0 leads the run; `own` is where the current entry's group starts.
        let shared = run.iter().position(|s| group(get(s).1) != 0).unwrap_or(run.len());
        let mut own = 0;
        for (t, s) in run.iter().enumerate() {
            let i = get(s).1;
            let g = group(i);
            if t > 0 && run.get(t - 1).is_some_and(|o| group(get(o).1) != g) {
                own = t;
            }
            let earlier = run.get(..if g == 0 { t } else { shared }).unwrap_or(&[]);
            let own_earlier = if g == 0 { &[][..] } else { run.get(own..t).unwrap_or(&[]) };
            // Of a pair the later one in document order repeats the name; a group-0 entry
            // sorted first may come later in the document.
            for o in earlier.iter().chain(own_earlier).map(|o| get(o).1) {
                if name(o) == name(i) {
                    let later = o.max(i);
                    repeated = Some(repeated.map_or(later, |r: usize| r.min(later)));
                    if o < i {
                        break;
                    }
                }
            }
        }
        start = end;
    }
    repeated
}

/// A document being read: the strict reader and the key being read, so that every error
/// names where it happened.
pub(crate) struct Doc<'a> {
    r: Reader<'a>,
    list: &'static str,
    outer: usize,
    index: usize,
    field: &'static str,
}

impl<'a> Doc<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Doc { r: Reader::new(bytes), list: "", outer: usize::MAX, index: usize::MAX, field: "" }
    }

    /// From now on errors are reported at `list[index].field` (`index` `usize::MAX`: none).
    pub fn at(&mut self, list: &'static str, index: usize, field: &'static str) {
        (self.list, self.outer, self.index, self.field) = (list, usize::MAX, index, field);
    }

    /// As [`Doc::at`], inside entry `outer` of the list that holds `list` (a dotted name:
    /// `what_if.clusters`).
    pub fn at_nested(&mut self, list: &'static str, outer: usize, index: usize, field: &'static str) {
        (self.list, self.outer, self.index, self.field) = (list, outer, index, field);
    }

    pub fn field(&mut self, field: &'static str) {
        self.field = field;
    }

    /// An error at the current key and byte offset.
    pub fn error(&self, message: &'static str, offset: usize) -> Error {
        let (list, outer, index, field) = (self.list, self.outer, self.index, self.field);
        Error::json(message, Detail::Syntax { offset, list, outer, index, field })
    }

    fn json(&self, e: JsonError) -> Error {
        self.error(e.kind.message(), e.offset)
    }

    pub fn offset(&self) -> usize {
        self.r.offset()
    }

    /// The text read since byte `start`.
    pub fn since(&self, start: usize) -> &'a [u8] {
        self.r.since(start)
    }

    // The token methods below are not inlined in the size-optimised wasm module: each is a
    // read and the error naming where it failed, used ~150 times by the four readers.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn object(&mut self) -> Result<(), Error> {
        self.r.begin_object().map_err(|e| self.json(e))
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn array(&mut self) -> Result<(), Error> {
        self.r.begin_array().map_err(|e| self.json(e))
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn element(&mut self) -> Result<bool, Error> {
        self.r.next_element().map_err(|e| self.json(e))
    }

    /// The next key of the current object, one of `keys`; `None` at its end. Unknown and
    /// repeated keys are errors (`seen` has one bit per entry of `keys`).
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn key(&mut self, keys: &Keys, seen: &mut u64) -> Result<Option<&'static str>, Error> {
        let Some((k, offset)) = self.r.next_key().map_err(|e| self.json(e))? else { return Ok(None) };
        let Some(i) = keys.names.iter().position(|n| k.eq_str(n)) else {
            self.field("");
            return Err(self.error(keys.unknown, offset));
        };
        let name = keys.names[i];
        self.field(name);
        let bit = 1u64 << (i % 64);
        if *seen & bit != 0 {
            return Err(self.error("duplicate key", offset));
        }
        *seen |= bit;
        Ok(Some(name))
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn string(&mut self) -> Result<Str<'a>, Error> {
        self.r.string().map_err(|e| self.json(e))
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn f64(&mut self) -> Result<f64, Error> {
        self.r.f64().map_err(|e| self.json(e))
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn u64(&mut self) -> Result<u64, Error> {
        self.r.u64().map_err(|e| self.json(e))
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn bool(&mut self) -> Result<bool, Error> {
        self.r.bool().map_err(|e| self.json(e))
    }

    /// The next key of a document's top-level object that belongs to the model's own
    /// reader; `None` at its end. Reads what every document has here: `version` (must be
    /// 1), `model` (must be `model`: a document reaches a model's reader through
    /// [`model_of`], so another name is a misuse of the reader), `comment` and
    /// `description` (skipped, strictly).
    pub fn top_key(
        &mut self,
        keys: &Keys,
        seen: &mut u64,
        model: &'static str,
        wrong_model: &'static str,
    ) -> Result<Option<&'static str>, Error> {
        loop {
            self.at("", usize::MAX, "");
            let Some(k) = self.key(keys, seen)? else { return Ok(None) };
            self.at(k, usize::MAX, "");
            let offset = self.offset();
            match k {
                "version" => {
                    let v = self.u64()?;
                    if v != 1 {
                        return Err(Error::json(
                            "only version 1 is supported",
                            Detail::Value { field: "version", value: v },
                        ));
                    }
                }
                "model" => {
                    if !self.string()?.eq_str(model) {
                        return Err(self.error(wrong_model, offset));
                    }
                }
                "comment" | "description" => self.comment()?,
                _ => return Ok(Some(k)),
            }
        }
    }

    /// The kind of the next value, without reading it.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn peek(&mut self) -> Result<json::Kind, Error> {
        self.r.peek().map_err(|e| self.json(e))
    }

    /// Skips any value (comments), checking it strictly.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn skip(&mut self) -> Result<(), Error> {
        self.r.skip_value().map_err(|e| self.json(e))
    }

    /// A `comment` or `description`: free text, so a string. Any JSON value was allowed
    /// once, but repeated keys inside it went unnoticed (a reader without memory cannot
    /// find them in linear time), against the rule that a repeated key is an error.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn comment(&mut self) -> Result<(), Error> {
        self.string().map(|_| ())
    }

    /// Only whitespace may follow the document.
    pub fn end(&mut self) -> Result<(), Error> {
        self.at("", usize::MAX, "");
        self.r.end().map_err(|e| self.json(e))
    }

    /// A string naming one of `names`' values.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn name<T: Copy + PartialEq>(&mut self, names: &names::Names<T>) -> Result<T, Error> {
        let offset = self.offset();
        let s = self.string()?;
        names.parse(&s).ok_or_else(|| self.error(names.expected, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `first_repeated` against comparing every pair, on names from a small alphabet (so
    /// that most lists repeat one) in random groups, with names that are equal only once
    /// their escapes are decoded.
    #[test]
    fn the_first_repeated_name_is_found_as_by_comparing_every_pair() {
        let spellings = ["\"a\"", "\"\\u0061\"", "\"b\"", "\"ab\"", "\"\\u0062\"", "\"c\""];
        let strs: std::vec::Vec<json::Str<'_>> =
            spellings.iter().map(|t| json::Reader::new(t.as_bytes()).string().unwrap()).collect();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m) as usize
        };
        for _ in 0..3000 {
            let n = 1 + next(12);
            let names: std::vec::Vec<usize> = (0..n).map(|_| next(strs.len() as u64)).collect();
            let groups: std::vec::Vec<usize> = (0..n).map(|_| next(4)).collect();
            let clash = |a: usize, b: usize| groups[a] == 0 || groups[b] == 0 || groups[a] == groups[b];
            let expected = (0..n).find(|&i| (0..i).any(|o| clash(o, i) && strs[names[o]] == strs[names[i]]));
            let mut keys = std::vec![NameKey::EMPTY; n];
            let name = |i: usize| names.get(i).map(|&k| strs[k]);
            let found = first_repeated(&mut keys, &name, NameKey::put, NameKey::get, &|i| groups[i]);
            assert_eq!(found, expected, "names {names:?} groups {groups:?}");
        }
    }

    /// Memory for tests: every buffer leaked (safe, and a test's memory is freed with its
    /// process).
    struct Leak;

    impl Memory for Leak {
        fn slice<T: Clone>(&self, _: &'static str, n: usize, fill: T) -> Result<&mut [T], Error> {
            Ok(std::boxed::Box::leak(std::vec![fill; n].into_boxed_slice()))
        }
    }

    #[test]
    fn every_example_plans_and_the_list_is_exact() {
        for m in MODELS {
            assert_eq!(model(m.name).map(|x| x.name), Some(m.name));
            let text = m.example().as_bytes();
            assert_eq!(model_of(text).unwrap().name, m.name);
            let planned = plan(text, &Leak).unwrap();
            let r = planned.report;
            assert!(r.makespan.is_finite() && r.lower_bound <= r.makespan, "{}: {r:?}", m.name);
            let doc = core::str::from_utf8(planned.document).unwrap();
            assert!(doc.starts_with(&["{\"version\":1,\"model\":\"", m.name, "\""].concat()), "{doc}");
            assert!(effort(text, &Leak).unwrap().workers > 0, "{}", m.name);
            assert!(MODEL_NAMES.contains(&["\"", m.name, "\""].concat()));
        }
        let needed = write_models(&mut []).unwrap_err().needed().unwrap();
        let mut buf = [0u8; 16384];
        assert_eq!(write_models(&mut buf).unwrap(), needed);
        assert!(model("nonsense").is_none());
    }
}
