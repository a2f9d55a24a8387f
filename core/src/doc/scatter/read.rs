//! Reading a scatter document: the whole text is read once, keeping the entries that fit
//! the caller's buffers, so [`sizes`] can tell a front end how much memory to give
//! [`parse_platform`].

use super::{ORDER, ROOT_MODE, ROUNDING, SOLVER};
use crate::doc::cost::{check_table, read_power, read_table, CostModel, WorkerEntry};
use crate::doc::json::Str;
use crate::doc::{missing, Doc, Keys};
use crate::error::{Detail, Error, Field};
use crate::num::range::{AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::platform::worker::check;
use crate::scatter::installments::{Installments, RootWork, MAX_INSTALLMENTS};
use crate::scatter::{Options, OrderPolicy, RootMode, Rounding, Solver, TRANSFER_LATENCY, TRANSFER_PER_ITEM};

/// One object of the `root_candidates` array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateEntry<'a> {
    /// Name of a worker entry.
    pub name: Str<'a>,
    /// Seconds, ≥ 0.
    pub transfer_latency: f64,
    /// Seconds per item, ≥ 0.
    pub transfer_per_item: f64,
}

impl CandidateEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: CandidateEntry<'static> =
        CandidateEntry { name: Str::EMPTY, transfer_latency: 0.0, transfer_per_item: 0.0 };
}

/// The scalar part of a platform file; the arrays are in the caller's buffers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlatformFile<'a> {
    /// Number of items to scatter.
    pub items: u64,
    /// Name of the root, unless candidates are given.
    pub root: Option<Str<'a>>,
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
    /// What the root does besides sending (`root_mode`, with `distribute_only`).
    pub root_work: RootWork,
    /// Installments per worker when the installment planner plans the document: given
    /// `installments`, or 1 when only `deadline`, `max_items`, `available_at` or a root
    /// that only distributes call for it; `None` for the one-round solvers.
    pub installments: Option<Installments>,
    /// Plan the most items finished by this time (`deadline`).
    pub deadline: Option<f64>,
}

/// How many entries a document holds, found by reading it whole: size the buffers for
/// [`parse_platform`] from this, never from the document's length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Objects in `workers`.
    pub entries: usize,
    /// Objects in `root_candidates`.
    pub candidates: usize,
}

/// Reads a document without keeping anything, to learn its [`Sizes`].
///
/// # Errors
///
/// Everything [`parse_platform`] rejects, except buffers that are too small.
pub fn sizes(json: &[u8]) -> Result<Sizes, Error> {
    read(json, &mut [], &mut []).map(|f| Sizes { entries: f.entries, candidates: f.candidates })
}

/// Reads a platform file. Entries go into `entries` and `candidates`, whose lengths come
/// from [`sizes`].
///
/// The JSON must be strict RFC 8259 (numbers like `.5`, `05` or `+1`, bare words, single
/// quotes, raw control characters in strings and trailing commas are errors with their
/// byte offset), nested at most 128 deep, and may not repeat a key.
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for malformed or truncated JSON, unknown or
/// repeated keys, missing required keys, and values of the wrong type, naming the key;
/// [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput) for a cost outside its range
/// (`workers[3].comp_per_item must be finite and > 0, got -1`);
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when a buffer is too
/// short ([`Error::needed`] gives the length needed), reported only for a document that
/// is otherwise valid.
///
/// ```
/// use divload::doc::scatter::{parse_platform, sizes, WorkerEntry};
/// let doc = br#"{"items": 10, "root": "a", "workers": [
///     {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
///     {"name": "b", "count": 2, "comm_per_item": 0.1, "comp_per_item": 2}]}"#;
/// assert_eq!(sizes(doc).unwrap().entries, 2);
/// let mut entries = [WorkerEntry::EMPTY; 2];
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
    let file = read(json, entries, candidates)?;
    if file.entries > entries.len() {
        return Err(Error::buffer("worker entries", file.entries, entries.len()));
    }
    if file.candidates > candidates.len() {
        return Err(Error::buffer("root candidate entries", file.candidates, candidates.len()));
    }
    Ok(file)
}

const TOP: Keys = Keys {
    names: &[
        "version",
        "model",
        "items",
        "root",
        "root_mode",
        "order",
        "rounding",
        "solver",
        "workers",
        "root_candidates",
        "comment",
        "description",
        "installments",
        "deadline",
    ],
    unknown: "unknown key (expected version, model, items, root, root_mode, order, rounding, solver, \
              workers, root_candidates, installments, deadline, comment, description)",
};

const WORKER: Keys = Keys {
    names: &[
        "name",
        "count",
        "repair",
        "comm_latency",
        "comm_per_item",
        "comp_latency",
        "comp_per_item",
        "comm_table",
        "comp_table",
        "comm_power",
        "comp_power",
        "comment",
        "max_items",
        "available_at",
    ],
    unknown: "unknown key (expected name, count, comm_per_item, comm_latency, comp_per_item, \
              comp_latency, comm_table, comp_table, comm_power, comp_power, repair, max_items, \
              available_at, comment)",
};

const CANDIDATE: Keys = Keys {
    names: &["name", "transfer_latency", "transfer_per_item"],
    unknown: "unknown key (expected name, transfer_latency, transfer_per_item)",
};

/// Reads the whole document, keeping the entries that fit in the buffers.
fn read<'a>(
    json: &'a [u8],
    entries: &mut [WorkerEntry<'a>],
    candidates: &mut [CandidateEntry<'a>],
) -> Result<PlatformFile<'a>, Error> {
    let mut d = Doc::new(json);
    d.object()?;
    let mut seen = 0u64;
    let mut items: Option<u64> = None;
    let mut root: Option<Str<'a>> = None;
    let mut options = Options::default();
    let mut workers: Option<(usize, u64, bool, bool)> = None;
    let mut cands: Option<usize> = None;
    let mut solver = Solver::Auto;
    let (mut root_work, mut installments, mut deadline) = (RootWork::AfterSend, None, None);
    let (mut order_given, mut rounding_given) = (false, false);
    while let Some(k) = d.top_key(&TOP, &mut seen, "scatter", "must be \"scatter\" for this reader")? {
        match k {
            "items" => items = Some(d.u64()?),
            "root" => root = Some(d.string()?),
            "root_mode" => {
                root_work = d.name(&ROOT_MODE)?;
                options.root_mode = match root_work {
                    RootWork::Overlap => RootMode::Overlap,
                    _ => RootMode::AfterSend,
                };
            }
            "order" => (options.order, order_given) = (d.name(&ORDER)?, true),
            "rounding" => (options.rounding, rounding_given) = (d.name(&ROUNDING)?, true),
            "installments" => installments = Some(read_installments(&mut d)?),
            "deadline" => {
                deadline = Some(POSITIVE.parameter("deadline", d.f64()?)?);
            }
            "solver" => solver = d.name(&SOLVER)?,
            "workers" => workers = Some(read_workers(&mut d, entries)?),
            "root_candidates" => cands = Some(read_candidates(&mut d, candidates)?),
            _ => d.skip()?,
        }
    }
    d.end()?;
    let Some(items) = items else {
        return Err(missing("items", "missing (the number of items to scatter)"));
    };
    if items == 0 {
        return Err(Error::no_items());
    }
    let Some((n_entries, expanded, affine, staged)) = workers else {
        return Err(missing("workers", "missing (the list of workers)"));
    };
    if n_entries == 0 {
        return Err(Error::no_workers());
    }
    match (root, cands) {
        (None, None) => return Err(missing("root", "missing (or give root_candidates)")),
        (Some(_), Some(_)) => return Err(missing("root", "give either root or root_candidates, not both")),
        (None, Some(0)) => return Err(Error::no_root_candidates()),
        _ => {}
    }
    let Ok(n_workers) = usize::try_from(expanded) else {
        return Err(Error::limit("workers", usize::MAX as u64, expanded));
    };
    // What only the installment planner (`scatter::installments`) plans.
    let staged = staged || installments.is_some() || deadline.is_some() || root_work == RootWork::None;
    if staged {
        let conflict = if cands.is_some() {
            Some(("root_candidates", "installment plans need a fixed root: give root instead"))
        } else if solver != Solver::Auto {
            Some(("solver", "installment plans have their own solver: leave solver out"))
        } else if order_given && options.order != OrderPolicy::Bandwidth {
            Some(("order", "installment plans go in bandwidth order: leave order out"))
        } else if rounding_given && options.rounding != Rounding::Greedy {
            Some(("rounding", "installment plans round item by item: leave rounding out"))
        } else if !affine {
            Some(("workers", "installment plans need affine costs (*_per_item and *_latency)"))
        } else {
            None
        };
        if let Some((key, message)) = conflict {
            return Err(missing(key, message));
        }
    }
    Ok(PlatformFile {
        items,
        root,
        options,
        entries: n_entries,
        candidates: cands.unwrap_or(0),
        workers: n_workers,
        solver,
        affine,
        root_work,
        installments: staged.then_some(installments.unwrap_or(Installments::AtMost(1))),
        deadline,
    })
}

/// `installments`: a whole number in 1 ..= 64, or `"auto"`.
fn read_installments(d: &mut Doc<'_>) -> Result<Installments, Error> {
    const EXPECTED: &str = "must be an integer in 1..=64 or \"auto\"";
    let offset = d.offset();
    if d.peek()? == crate::doc::json::Kind::String {
        return if d.string()?.eq_str("auto") {
            Ok(Installments::Auto)
        } else {
            Err(d.error(EXPECTED, offset))
        };
    }
    let n = d.u64()?;
    match u32::try_from(n) {
        Ok(r @ 1..=MAX_INSTALLMENTS) => Ok(Installments::AtMost(r)),
        _ => Err(d.error(EXPECTED, offset)),
    }
}

/// Reads `workers`; returns (entries, expanded worker count, every cost affine, some
/// worker with `max_items` or `available_at`).
fn read_workers<'a>(d: &mut Doc<'a>, buf: &mut [WorkerEntry<'a>]) -> Result<(usize, u64, bool, bool), Error> {
    d.array()?;
    let (mut n, mut ranks, mut affine, mut staged) = (0usize, 0u64, true, false);
    while d.element()? {
        d.at("workers", n, "");
        let mut e = read_worker(d, n)?;
        affine &= e.is_affine();
        staged |= e.max_items != u64::MAX || e.available_at > 0.0;
        e.first_rank = ranks;
        ranks = ranks.checked_add(e.count).ok_or(Error::json(
            "total worker count overflows",
            Detail::Entry { list: "workers", index: n, field: "count" },
        ))?;
        if let Some(slot) = buf.get_mut(n) {
            *slot = e;
        }
        n += 1;
    }
    Ok((n, ranks, affine, staged))
}

fn read_worker<'a>(d: &mut Doc<'a>, i: usize) -> Result<WorkerEntry<'a>, Error> {
    let at = |field: &'static str| Detail::Entry { list: "workers", index: i, field };
    d.object()?;
    let mut e = WorkerEntry::EMPTY;
    let mut seen = 0u64;
    let mut name = false;
    // Per part (comm, comp): whether its shape (`*_per_item`, `*_table` or `*_power`) and
    // its `*_latency` were given.
    let (mut given, mut latency) = ([false; 2], [false; 2]);
    while let Some(k) = d.key(&WORKER, &mut seen)? {
        let field = match k {
            "name" => {
                e.name = d.string()?;
                name = true;
                continue;
            }
            "count" => {
                e.count = d.u64()?;
                if e.count == 0 {
                    return Err(Error::json(AT_LEAST_ONE.must, at("count")));
                }
                continue;
            }
            "repair" => {
                e.repair = d.bool()?;
                continue;
            }
            "max_items" => {
                e.max_items = d.u64()?;
                continue;
            }
            "available_at" => {
                // By entry, as the document counts them (the planner's own check counts
                // workers once `count` is expanded).
                e.available_at = NON_NEGATIVE.entry("workers", i, "available_at", d.f64()?)?;
                continue;
            }
            "comm_table" | "comp_table" | "comm_power" | "comp_power" => {
                let part = usize::from(k.starts_with("comp"));
                if given[part] {
                    return Err(one_shape(at(k)));
                }
                let model = if k.ends_with("_table") {
                    read_table(d, i, k)?
                } else {
                    read_power(d, i, k, part == 1)?
                };
                if part == 0 {
                    e.comm_model = model;
                } else {
                    e.comp_model = model;
                }
                given[part] = true;
                continue;
            }
            "comment" => {
                d.comment()?;
                continue;
            }
            "comm_latency" => Field::COMM_LATENCY,
            "comm_per_item" => Field::COMM_PER_ITEM,
            "comp_latency" => Field::COMP_LATENCY,
            _ => Field::COMP_PER_ITEM,
        };
        let v = d.f64()?;
        if check(i, field, v).is_err() {
            return Err(Error::entry_cost("workers", i, field, v));
        }
        if field == Field::COMM_PER_ITEM && given[0] || field == Field::COMP_PER_ITEM && given[1] {
            return Err(one_shape(at(k)));
        }
        if field == Field::COMM_LATENCY {
            (e.comm_latency, latency[0]) = (v, true);
        } else if field == Field::COMM_PER_ITEM {
            (e.comm_per_item, given[0]) = (v, true);
        } else if field == Field::COMP_LATENCY {
            (e.comp_latency, latency[1]) = (v, true);
        } else {
            (e.comp_per_item, given[1]) = (v, true);
        }
    }
    for (part, lat) in ["comm_latency", "comp_latency"].into_iter().enumerate() {
        let model = if part == 0 { e.comm_model } else { e.comp_model };
        if latency[part] && model != CostModel::Affine {
            return Err(Error::json(
                "goes with *_per_item only: a table's times include the latency, and *_power has its own",
                at(lat),
            ));
        }
    }
    let [comm, comp] = given;
    if let CostModel::Table(t) = e.comp_model {
        check_table(t, i, "comp_table", e.repair)?;
    }
    if let CostModel::Table(t) = e.comm_model {
        check_table(t, i, "comm_table", e.repair)?;
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
        return Err(Error::json("missing", at(missing)));
    }
    if e.name.raw().is_empty() {
        return Err(Error::json("must be a non-empty name", at("name")));
    }
    Ok(e)
}

fn one_shape(at: Detail) -> Error {
    Error::json("give one cost per part: *_per_item, *_table or *_power", at)
}

/// Reads `root_candidates`; returns the number of entries.
fn read_candidates<'a>(d: &mut Doc<'a>, buf: &mut [CandidateEntry<'a>]) -> Result<usize, Error> {
    d.array()?;
    let mut n = 0usize;
    while d.element()? {
        d.at("root_candidates", n, "");
        d.object()?;
        let mut seen = 0u64;
        let mut c = CandidateEntry::EMPTY;
        let mut name = false;
        while let Some(k) = d.key(&CANDIDATE, &mut seen)? {
            if k == "name" {
                c.name = d.string()?;
                name = true;
                continue;
            }
            let field = if k == "transfer_latency" { TRANSFER_LATENCY } else { TRANSFER_PER_ITEM };
            let v = d.f64()?;
            if check(n, field, v).is_err() {
                return Err(Error::entry_cost("root_candidates", n, field, v));
            }
            if field == TRANSFER_LATENCY {
                c.transfer_latency = v;
            } else {
                c.transfer_per_item = v;
            }
        }
        if !name {
            return Err(Error::json(
                "missing",
                Detail::Entry { list: "root_candidates", index: n, field: "name" },
            ));
        }
        if let Some(slot) = buf.get_mut(n) {
            *slot = c;
        }
        n += 1;
    }
    Ok(n)
}
