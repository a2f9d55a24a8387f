//! The return-message model's documents (slides "With return messages"; the solver is
//! [`crate::returns`]): platform documents in, result documents out, strict JSON without
//! allocation.
//!
//! ```json
//! {"version": 1, "model": "returns", "items": 1000, "schedule": "best", "port": "full_duplex",
//!  "workers": [{"name": "p1", "comm_per_item": 1, "comp_per_item": 1, "return_per_item": 1},
//!              {"name": "p3", "count": 2, "comm_per_item": 5, "comp_per_item": 5, "return_per_item": 5}]}
//! ```
//!
//! `schedule` is `"best"` (default), `"lifo"`, `"fifo"`, or a scenario
//! `{"send": [names], "return": [names]}` naming the participants in send order and the
//! same participants in return order; an entry with `count` k stands for its k workers,
//! sent (and returned) one after the other. `port` is `"full_duplex"` (default: it is the
//! model that reproduces the slides) or `"half_duplex"`. Costs are linear, in seconds per
//! item: `comm_per_item` (c ≥ 0), `comp_per_item` (w > 0), `return_per_item` (d ≥ 0).
//!
//! Memory is the caller's: [`sizes`] reads the document to count its entries and
//! scenario names, [`parse`] fills that many, [`ReturnsFile::workers`] and
//! [`ReturnsFile::scenario`] expand them, [`ReturnsFile::needs`] says what the solver needs.

use crate::doc::cost::{COUNT, ITEMS, NAME};
use crate::doc::json::{Kind, Str, Writer};
use crate::doc::model::{shares_in_order, timeline_document, written, Effort, Memory, Model, Name, Planned};
use crate::doc::names::Names;
use crate::doc::schema::{field, Field as Key, Kind as Shape, Phase, AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::doc::{
    begin_result, begin_row, check_workers, items_and_workers, missing, unique_names, write_answer, Doc, Keys,
};
use crate::error::{Detail, Error};
use crate::returns::{self, Assignment, Needs, Port, Problem, ReturnWorker, Schedule, Scratch, Summary};

/// The master's port in the return-message model ([`Port`]).
pub const PORT: Names<Port> = Names {
    key: "port",
    table: &[("full_duplex", Port::FullDuplex), ("half_duplex", Port::HalfDuplex)],
    expected: "must be \"full_duplex\" or \"half_duplex\"",
};

/// The named schedules of the return-message model; a given scenario is an object
/// (`{"send": [...], "return": [...]}`), not a name.
pub const SCHEDULE: Names<Schedule<'static>> = Names {
    key: "schedule",
    table: &[("best", Schedule::Best), ("lifo", Schedule::Lifo), ("fifo", Schedule::Fifo)],
    expected: "must be \"best\", \"lifo\", \"fifo\" or {\"send\": [names], \"return\": [names]}",
};

/// The return-message model in the registry.
#[derive(Debug)]
pub struct Returns;

impl Model for Returns {
    const TITLE: &'static str = "workers send their results back to the master (MPI_Scatterv then MPI_Gatherv): LIFO, FIFO, best scenario";
    const PAPER: &'static str =
        "Slides \"Divisible loads: bus, star, return messages\" (LIFO and FIFO theorems, scenario LP)";
    const EXAMPLE: &'static str = EXAMPLE;
    const SCHEMA: &'static [Key] = &[
        ITEMS,
        field("schedule", Shape::Choice(&SCHEDULE), "or {send, return} orders"),
        field("port", Shape::Choice(&PORT), "master sends and receives at once?"),
        field(
            "workers",
            Shape::List(&[
                NAME,
                COUNT,
                Key { unit: "s/item", ..field("comm_per_item", Shape::Number(NON_NEGATIVE), "c") },
                Key { unit: "s/item", ..field("comp_per_item", Shape::Number(POSITIVE), "w") },
                Key { unit: "s/item", ..field("return_per_item", Shape::Number(NON_NEGATIVE), "d") },
            ]),
            "",
        ),
    ];
    const GANTT: &'static [Phase] = &[
        Phase { label: "receive", start: "send_start", end: "received" },
        Phase { label: "compute", start: "received", end: "computed" },
        Phase { label: "return", start: "return_start", end: "return_end" },
    ];

    /// Every result compares the best scenario: exhaustive over FIFO orders up to 8
    /// workers (p! scenario LPs), a local search of about 4 000 LPs up to 32, the closed
    /// forms beyond; an LP costs about (32·p)² steps.
    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error> {
        let sizes = sizes(text)?;
        let entries = memory.slice("worker entries", sizes.entries, ReturnEntry::EMPTY)?;
        let send_names = memory.slice("scenario names", sizes.send, Str::EMPTY)?;
        let ret_names = memory.slice("scenario names", sizes.ret, Str::EMPTY)?;
        let p = parse(text, entries, send_names, ret_names)?.workers as u64;
        let lps = match p {
            0..=8 => (1..=p).product::<u64>(),
            9..=32 => 4_000,
            _ => 0,
        };
        let work =
            lps.saturating_mul(p.saturating_mul(32).saturating_pow(2)).saturating_add(p.saturating_mul(64));
        Ok(Effort { workers: p, work })
    }

    /// The document's schedule, compared with the best, LIFO and FIFO schedules of the same
    /// workers.
    /// The LIFO and FIFO schedules of the same workers and items (the slides' two
    /// theorems), for the page to draw beside the plan: `{"lifo": {"makespan", "rows"},
    /// "fifo": …}`, rows in send order with the Gantt columns.
    fn baselines<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<&'m [u8], Error> {
        let copy = |schedule| {
            let s = solve(text, memory, Some(schedule))?;
            let rows = memory.slice("baseline", s.file.workers, Assignment::EMPTY)?;
            for (r, a) in rows.iter_mut().zip(s.out) {
                *r = *a;
            }
            Ok::<_, Error>((&*rows, s.summary.makespan))
        };
        let (lifo, fifo) = (copy(Schedule::Lifo)?, copy(Schedule::Fifo)?);
        written(memory, |buf| {
            let mut w = Writer::new(buf);
            w.begin_object();
            for (key, (rows, makespan)) in [("lifo", lifo), ("fifo", fifo)] {
                w.key(key);
                w.begin_object();
                w.key("makespan");
                w.f64(makespan);
                w.key("rows");
                w.begin_array();
                for a in rows.iter().filter(|a| a.count > 0) {
                    w.begin_object();
                    w.key("rank");
                    w.u64(a.worker as u64);
                    w.key("count");
                    w.u64(a.count);
                    w.numbers(&[
                        ("send_start", a.send_start),
                        ("received", a.received),
                        ("computed", a.computed),
                        ("return_start", a.return_start),
                        ("return_end", a.return_end),
                    ]);
                    w.end_object();
                }
                w.end_array();
                w.end_object();
            }
            w.end_object();
            w.end("baselines")
        })
    }

    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        solved(text, memory, |file, entries, summary, out, compare| {
            let document = written(memory, |buf| write_result(file, entries, summary, out, compare, buf))?;
            // Send order; a worker outside a given scenario takes no part.
            let rows = out
                .iter()
                .take(file.workers)
                .map(|a| (a.worker, a.count, a.displacement, a.return_rank.is_some()));
            let shares = shares_in_order(memory, file.workers, rows)?;
            Ok(Planned { document, report: summary.report(), shares, pieces: &[] })
        })
    }

    /// Hosts: the workers by rank, then the master. Each worker has a link from the master
    /// and one back (full duplex: both directions at once), at the rates its `c` and `d`
    /// give, one byte per item. The master sends in the send order and receives in the
    /// return order: two actors in full duplex, one doing both in the order the plan does
    /// them in half duplex; each worker receives, computes and sends its results back.
    fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        solved(text, memory, |file, entries, _, out, _| {
            let p = file.workers as u64;
            let master = p;
            let active = || out.iter().filter(|a| a.count > 0);
            let rate = |count: u64, seconds: f64| {
                if seconds > 0.0 {
                    (count as f64 / seconds, count as f64)
                } else {
                    (1.0, 0.0)
                }
            };
            let down = |a: &Assignment<f64>| rate(a.count, a.received - a.send_start);
            let up = |a: &Assignment<f64>| rate(a.count, a.return_end - a.return_start);
            let makespan = active().map(|a| a.return_end).fold(0.0, f64::max);
            let sent = active().map(|a| a.received).fold(0.0, f64::max);
            let document = timeline_document(memory, |t| {
                t.0.key("hosts");
                t.0.begin_array();
                for rank in 0..p {
                    t.host(rank, Name::Doc(name_of(entries, rank as usize)));
                }
                t.host(master, Name::Label("master"));
                t.0.end_array();
                t.0.key("links");
                t.0.begin_array();
                for a in active() {
                    t.link(2 * a.worker as u64, down(a).0, 0.0);
                    t.link(2 * a.worker as u64 + 1, up(a).0, 0.0);
                }
                t.0.end_array();
                t.0.key("routes");
                t.0.begin_array();
                for a in active() {
                    let k = a.worker as u64;
                    t.route(master, k, 2 * k);
                    t.route(k, master, 2 * k + 1);
                }
                t.0.end_array();
                t.0.key("actors");
                t.0.begin_array();
                // Mailboxes: `k` carries worker k's items, `p + k` its results.
                let by_return = |r: usize| active().find(|a| a.return_rank == Some(r));
                let returns = || (0..out.len()).filter_map(by_return);
                match file.port {
                    Port::FullDuplex => {
                        t.actor(0, master, Name::Label("master sends"));
                        for a in active() {
                            t.send(a.worker as u64, down(a).1);
                        }
                        t.end(sent);
                        t.actor(1, master, Name::Label("master receives"));
                        for a in returns() {
                            t.recv(p + a.worker as u64);
                        }
                        t.end(makespan);
                    }
                    Port::HalfDuplex => {
                        // The one port's operations in the order the plan starts them.
                        t.actor(0, master, Name::Label("master"));
                        let (mut sends, mut rets) = (active().peekable(), returns().peekable());
                        loop {
                            let send_first = match (sends.peek(), rets.peek()) {
                                (None, None) => break,
                                (Some(s), Some(r)) => s.send_start <= r.return_start,
                                (s, _) => s.is_some(),
                            };
                            if send_first {
                                if let Some(a) = sends.next() {
                                    t.send(a.worker as u64, down(a).1);
                                }
                            } else if let Some(a) = rets.next() {
                                t.recv(p + a.worker as u64);
                            }
                        }
                        t.end(makespan);
                    }
                }
                for a in active() {
                    let k = a.worker as u64;
                    t.actor(2 + k, k, Name::Doc(name_of(entries, a.worker)));
                    t.recv(k);
                    t.compute(a.computed - a.received);
                    t.send(p + k, up(a).1);
                    t.end(a.return_end);
                }
                t.0.end_array();
            })?;
            Ok(Some(document))
        })
    }
}

/// Reads a document, plans its schedule (and the best, LIFO and FIFO ones to compare) in
/// `memory`, and hands the plan to `finish` while the buffers live.
fn solved<R, M: Memory>(
    text: &[u8],
    memory: &M,
    finish: impl FnOnce(
        &ReturnsFile,
        &[ReturnEntry<'_>],
        &Summary<f64>,
        &[Assignment<f64>],
        &Compare,
    ) -> Result<R, Error>,
) -> Result<R, Error> {
    let s = solve(text, memory, None)?;
    finish(&s.file, s.entries, &s.summary, s.out, &s.compare)
}

/// A document's plan in the front end's memory ([`solve`]).
struct Solved<'m, 't> {
    file: ReturnsFile,
    entries: &'m [ReturnEntry<'t>],
    summary: Summary<f64>,
    out: &'m [Assignment<f64>],
    compare: Compare,
}

/// Reads a document and plans it in `memory`, with its schedule replaced by `schedule`
/// when one is given. One function for every caller (not generic over what they do
/// with the plan), so that the wasm module holds one copy of it.
fn solve<'m, 't, M: Memory>(
    text: &'t [u8],
    memory: &'m M,
    schedule: Option<Schedule<'static>>,
) -> Result<Solved<'m, 't>, Error> {
    let sizes = sizes(text)?;
    let entries = memory.slice("worker entries", sizes.entries, ReturnEntry::EMPTY)?;
    let send_names = memory.slice("scenario names", sizes.send, Str::EMPTY)?;
    let ret_names = memory.slice("scenario names", sizes.ret, Str::EMPTY)?;
    let file = parse(text, entries, send_names, ret_names)?;
    check_workers("workers", file.workers as u64)?;
    let entries: &[ReturnEntry<'_>] = entries;
    unique_names(memory, "workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
    let workers = memory.slice("workers", file.workers, ReturnWorker::new(0.0, 1.0, 0.0))?;
    file.workers(entries, workers)?;
    let (mut send, mut ret): (&[usize], &[usize]) = (&[], &[]);
    if file.schedule == ScheduleKind::Given {
        let len = file.scenario_len(entries, send_names)?;
        check_workers("scenario workers", len as u64)?;
        let s = memory.slice("scenario", len, 0usize)?;
        let r = memory.slice("scenario", len, 0usize)?;
        file.scenario(entries, send_names, ret_names, s, r)?;
        (send, ret) = (s, r);
    }
    let schedule = match (schedule, file.schedule) {
        (Some(forced), _) => forced,
        (None, ScheduleKind::Best) => Schedule::Best,
        (None, ScheduleKind::Lifo) => Schedule::Lifo,
        (None, ScheduleKind::Fifo) => Schedule::Fifo,
        (None, ScheduleKind::Given) => Schedule::Given { send, ret },
    };
    let mut needs = file.needs()?;
    needs.tableau = needs.tableau.max(returns::needs(file.workers, schedule, file.port)?.tableau);
    let out = memory.slice("plan", needs.out, Assignment::EMPTY)?;
    let scratch = memory.slice("scratch", needs.scratch, Scratch::EMPTY)?;
    let tableau = memory.slice("LP tableau", needs.tableau, 0.0f64)?;
    let workers: &[ReturnWorker<f64>] = workers;
    let mut run = |schedule| {
        let problem = Problem { workers, items: file.items, schedule, port: file.port };
        returns::plan(&problem, out, scratch, tableau)
    };
    let compare = Compare {
        best: run(Schedule::Best)?.makespan,
        lifo: run(Schedule::Lifo)?.makespan,
        fifo: run(Schedule::Fifo)?.makespan,
    };
    let summary = run(schedule)?;
    Ok(Solved { file, entries, summary, out, compare })
}

const EXAMPLE: &str = r#"{
  "version": 1,
  "model": "returns",
  "comment": "The slides' platform B: c = d = (7, 8, 12), w = (6, 5, 5) seconds per item. schedule: best, lifo, fifo or {\"send\": [names], \"return\": [names]}; port: full_duplex or half_duplex.",
  "items": 1000,
  "schedule": "best",
  "port": "full_duplex",
  "workers": [
    {"name": "p1", "comm_per_item": 7,  "comp_per_item": 6, "return_per_item": 7},
    {"name": "p2", "comm_per_item": 8,  "comp_per_item": 5, "return_per_item": 8},
    {"name": "p3", "comm_per_item": 12, "comp_per_item": 5, "return_per_item": 12}
  ]
}
"#;

/// One object of the `workers` array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReturnEntry<'a> {
    /// Worker name, as written.
    pub name: Str<'a>,
    /// How many identical workers the entry stands for (≥ 1).
    pub count: u64,
    /// Rank of the first of them once entries are expanded.
    pub first_rank: u64,
    /// c, seconds per item, ≥ 0.
    pub comm_per_item: f64,
    /// w, seconds per item, > 0.
    pub comp_per_item: f64,
    /// d, seconds per item, ≥ 0.
    pub return_per_item: f64,
}

impl ReturnEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: ReturnEntry<'static> = ReturnEntry {
        name: Str::EMPTY,
        count: 1,
        first_rank: 0,
        comm_per_item: 0.0,
        comp_per_item: 1.0,
        return_per_item: 0.0,
    };
}

/// Which schedule a document asks for; a given scenario's names are in the caller's
/// buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScheduleKind {
    /// `"best"`.
    #[default]
    Best,
    /// `"lifo"`.
    Lifo,
    /// `"fifo"`.
    Fifo,
    /// `{"send": [...], "return": [...]}`.
    Given,
}

/// The scalar part of a returns document; the lists are in the caller's buffers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReturnsFile {
    /// Items to distribute.
    pub items: u64,
    /// The master's port.
    pub port: Port,
    /// The schedule asked for.
    pub schedule: ScheduleKind,
    /// Entries in `workers`.
    pub entries: usize,
    /// Workers once `count` is expanded.
    pub workers: usize,
    /// Names in the scenario's `send` list (0 unless the schedule is given).
    pub send: usize,
    /// Names in the scenario's `return` list.
    pub ret: usize,
}

/// How many entries and names a document holds, found by reading it whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Objects in `workers`.
    pub entries: usize,
    /// Names in `schedule.send`.
    pub send: usize,
    /// Names in `schedule.return`.
    pub ret: usize,
}

const TOP: Keys = Keys {
    names: &["version", "model", "items", "schedule", "port", "workers", "comment", "description"],
    unknown: "unknown key (expected version, model, items, schedule, port, workers, comment, description)",
};

const WORKER: Keys = Keys {
    names: &["name", "count", "comm_per_item", "comp_per_item", "return_per_item", "comment"],
    unknown: "unknown key (expected name, count, comm_per_item, comp_per_item, return_per_item, comment)",
};

const SCENARIO: Keys = Keys { names: &["send", "return"], unknown: "unknown key (expected send, return)" };

/// Reads a document without keeping anything, to learn its [`Sizes`].
///
/// # Errors
///
/// Everything [`parse`] rejects, except buffers that are too small.
pub fn sizes(json: &[u8]) -> Result<Sizes, Error> {
    let f = read(json, &mut [], &mut [], &mut [])?;
    Ok(Sizes { entries: f.entries, send: f.send, ret: f.ret })
}

/// Reads a returns document into the caller's buffers, sized by [`sizes`].
///
/// The JSON must be strict RFC 8259, nested at most 128 deep, without repeated keys.
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for malformed JSON, unknown, repeated or
/// missing keys and names; [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput)
/// for a cost outside its range (`workers[1].comp_per_item must be finite and > 0, got
/// 0`), no workers or no items; [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall)
/// when a buffer is shorter than [`sizes`] says.
///
/// ```
/// use divload::doc::json::Str;
/// use divload::doc::returns::{parse, sizes, ReturnEntry};
/// let doc = br#"{"model": "returns", "items": 10, "workers": [
///     {"name": "a", "comm_per_item": 1, "comp_per_item": 1, "return_per_item": 1}]}"#;
/// let s = sizes(doc).unwrap();
/// let mut entries = [ReturnEntry::EMPTY; 1];
/// let file = parse(doc, &mut entries, &mut [], &mut []).unwrap();
/// assert_eq!((s.entries, file.items, file.workers), (1, 10, 1));
/// ```
pub fn parse<'a>(
    json: &'a [u8],
    entries: &mut [ReturnEntry<'a>],
    send: &mut [Str<'a>],
    ret: &mut [Str<'a>],
) -> Result<ReturnsFile, Error> {
    let f = read(json, entries, send, ret)?;
    if f.entries > entries.len() {
        return Err(Error::buffer("worker entries", f.entries, entries.len()));
    }
    if f.send > send.len() {
        return Err(Error::buffer("schedule.send names", f.send, send.len()));
    }
    if f.ret > ret.len() {
        return Err(Error::buffer("schedule.return names", f.ret, ret.len()));
    }
    Ok(f)
}

fn read<'a>(
    json: &'a [u8],
    entries: &mut [ReturnEntry<'a>],
    send: &mut [Str<'a>],
    ret: &mut [Str<'a>],
) -> Result<ReturnsFile, Error> {
    let mut d = Doc::new(json);
    d.object()?;
    let mut seen = 0u64;
    let (mut items, mut workers) = (None, None);
    let mut file = ReturnsFile {
        items: 0,
        port: Port::FullDuplex,
        schedule: ScheduleKind::Best,
        entries: 0,
        workers: 0,
        send: 0,
        ret: 0,
    };
    while let Some(k) = d.top_key(&TOP, &mut seen, "returns", "must be \"returns\" for this reader")? {
        match k {
            "items" => items = Some(d.u64()?),
            "port" => file.port = d.name(&PORT)?,
            "schedule" => {
                if d.peek()? == Kind::Object {
                    (file.send, file.ret) = read_scenario(&mut d, send, ret)?;
                    file.schedule = ScheduleKind::Given;
                } else {
                    file.schedule = match d.name(&SCHEDULE)? {
                        Schedule::Lifo => ScheduleKind::Lifo,
                        Schedule::Fifo => ScheduleKind::Fifo,
                        _ => ScheduleKind::Best,
                    };
                }
            }
            "workers" => workers = Some(read_workers(&mut d, entries)?),
            _ => d.skip()?,
        }
    }
    d.end()?;
    let (items, n, expanded) =
        items_and_workers(items, workers, "missing (the number of items to distribute)")?;
    Ok(ReturnsFile { items, entries: n, workers: expanded, ..file })
}

fn read_workers<'a>(d: &mut Doc<'a>, buf: &mut [ReturnEntry<'a>]) -> Result<(usize, u64), Error> {
    d.array()?;
    let (mut n, mut ranks) = (0usize, 0u64);
    while d.element()? {
        d.at("workers", n, "");
        let at = |field: &'static str| Detail::Entry { list: "workers", index: n, field };
        d.object()?;
        let mut e = ReturnEntry::EMPTY;
        let mut seen = 0u64;
        while let Some(k) = d.key(&WORKER, &mut seen)? {
            match k {
                "name" => e.name = d.string()?,
                "count" => {
                    e.count = d.u64()?;
                    if e.count == 0 {
                        return Err(Error::json(AT_LEAST_ONE.must, at("count")));
                    }
                }
                "comment" => d.comment()?,
                _ => {
                    let v = d.f64()?;
                    let (slot, positive) = match k {
                        "comm_per_item" => (&mut e.comm_per_item, false),
                        "comp_per_item" => (&mut e.comp_per_item, true),
                        _ => (&mut e.return_per_item, false),
                    };
                    let range = if positive { POSITIVE } else { NON_NEGATIVE };
                    if !range.contains(v) {
                        return Err(Error::json(
                            range.must,
                            Detail::Number { list: "workers", index: n, field: k, value: v },
                        ));
                    }
                    *slot = v;
                }
            }
        }
        for (bit, key) in [(0, "name"), (2, "comm_per_item"), (3, "comp_per_item"), (4, "return_per_item")] {
            if seen & (1 << bit) == 0 {
                return Err(Error::json("missing", at(key)));
            }
        }
        if e.name.raw().is_empty() {
            return Err(Error::json("must be a non-empty name", at("name")));
        }
        e.first_rank = ranks;
        ranks = ranks
            .checked_add(e.count)
            .ok_or_else(|| Error::json("total worker count overflows", at("count")))?;
        if let Some(slot) = buf.get_mut(n) {
            *slot = e;
        }
        n += 1;
    }
    Ok((n, ranks))
}

/// `{"send": [names], "return": [names]}`; returns the two lengths.
fn read_scenario<'a>(
    d: &mut Doc<'a>,
    send: &mut [Str<'a>],
    ret: &mut [Str<'a>],
) -> Result<(usize, usize), Error> {
    d.object()?;
    let mut seen = 0u64;
    let (mut s, mut r) = (None, None);
    while let Some(k) = {
        d.at("schedule", usize::MAX, "");
        d.key(&SCENARIO, &mut seen)?
    } {
        let (list, buf) =
            if k == "send" { ("schedule.send", &mut *send) } else { ("schedule.return", &mut *ret) };
        d.array()?;
        let mut n = 0usize;
        while d.element()? {
            d.at(list, n, "");
            let name = d.string()?;
            if let Some(slot) = buf.get_mut(n) {
                *slot = name;
            }
            n += 1;
        }
        if k == "send" {
            s = Some(n);
        } else {
            r = Some(n);
        }
    }
    match (s, r) {
        (Some(s), Some(r)) if s > 0 && s == r => Ok((s, r)),
        (Some(_), Some(_)) => Err(missing(
            "schedule",
            "send and return must list the same participants (at least one), each once",
        )),
        _ => Err(missing("schedule", "a scenario needs both send and return")),
    }
}

impl ReturnsFile {
    /// Expands the entries into one [`ReturnWorker`] per worker (`out` needs
    /// `self.workers` elements); ranks follow the entries' order.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `out` is short.
    pub fn workers(&self, entries: &[ReturnEntry<'_>], out: &mut [ReturnWorker<f64>]) -> Result<(), Error> {
        if out.len() < self.workers {
            return Err(Error::buffer("workers", self.workers, out.len()));
        }
        let mut k = 0usize;
        for e in entries.iter().take(self.entries) {
            for _ in 0..e.count {
                if let Some(slot) = out.get_mut(k) {
                    *slot = ReturnWorker::new(e.comm_per_item, e.comp_per_item, e.return_per_item);
                }
                k += 1;
            }
        }
        Ok(())
    }

    /// The given scenario as worker ranks: each name's entry contributes its `count`
    /// workers in rank order. `send` and `ret` need [`ReturnsFile::scenario_len`] elements.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::Json`](crate::ErrorCode::Json) for a name that no entry has, or that a
    /// list repeats, or lists that name different workers;
    /// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short buffers.
    pub fn scenario(
        &self,
        entries: &[ReturnEntry<'_>],
        send_names: &[Str<'_>],
        ret_names: &[Str<'_>],
        send: &mut [usize],
        ret: &mut [usize],
    ) -> Result<usize, Error> {
        let len = self.scenario_len(entries, send_names)?;
        let entries = entries.get(..self.entries).unwrap_or(entries);
        for (list, names, out) in
            [("schedule.send", send_names, &mut *send), ("schedule.return", ret_names, &mut *ret)]
        {
            if out.len() < len {
                return Err(Error::buffer(list, len, out.len()));
            }
            let mut k = 0usize;
            for (i, name) in names.iter().take(self.send).enumerate() {
                let at = Detail::Entry { list, index: i, field: "" };
                let Some(e) = entries.iter().find(|e| e.name == *name) else {
                    return Err(Error::json("names no worker in workers", at));
                };
                if names[..i].iter().any(|n| n == name) {
                    return Err(Error::json("names a worker twice", at));
                }
                for r in 0..e.count {
                    if let (Some(slot), Ok(rank)) = (out.get_mut(k), usize::try_from(e.first_rank + r)) {
                        *slot = rank;
                    }
                    k += 1;
                }
            }
            if k != len {
                return Err(missing(
                    "schedule",
                    "send and return must list the same participants (at least one), each once",
                ));
            }
        }
        Ok(len)
    }

    /// Workers in the given scenario (the sum of the named entries' counts).
    ///
    /// # Errors
    ///
    /// [`ErrorCode::Json`](crate::ErrorCode::Json) for a name that no entry has.
    pub fn scenario_len(&self, entries: &[ReturnEntry<'_>], send_names: &[Str<'_>]) -> Result<usize, Error> {
        // The scenario LP's limit, before any name is looked up: each name is found by a
        // scan of the entries and checked against the names before it, which is fine for
        // the LP's 256 members, but 10⁵ names took 89 s to reach this limit.
        let limit = returns::MAX_LP_WORKERS;
        for (list, names) in [("schedule.send", self.send), ("schedule.return", self.ret)] {
            if names > limit {
                return Err(Error::too_large(list, limit as u64, names as u64));
            }
        }
        let entries = entries.get(..self.entries).unwrap_or(entries);
        let mut len = 0usize;
        for (i, name) in send_names.iter().take(self.send).enumerate() {
            let Some(e) = entries.iter().find(|e| e.name == *name) else {
                return Err(Error::json(
                    "names no worker in workers",
                    Detail::Entry { list: "schedule.send", index: i, field: "" },
                ));
            };
            len = len.saturating_add(usize::try_from(e.count).unwrap_or(usize::MAX));
        }
        Ok(len)
    }

    /// What the solver needs for the best, LIFO and FIFO schedules (a result compares the
    /// document's schedule with all three); a given scenario adds
    /// [`returns::needs`] of its expanded orders.
    ///
    /// # Errors
    ///
    /// As [`returns::needs`].
    pub fn needs(&self) -> Result<Needs, Error> {
        let mut n = returns::needs(self.workers, Schedule::Best, self.port)?;
        for s in [Schedule::Lifo, Schedule::Fifo] {
            n.tableau = n.tableau.max(returns::needs(self.workers, s, self.port)?.tableau);
        }
        Ok(n)
    }
}

/// The makespans of the three schedule kinds for the same workers, for comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Compare {
    /// The best scenario found.
    pub best: f64,
    /// The LIFO optimum, rounded.
    pub lifo: f64,
    /// The FIFO schedule, rounded.
    pub fifo: f64,
}

/// Name of the entry that worker `rank` belongs to.
pub fn name_of<'a>(entries: &[ReturnEntry<'a>], rank: usize) -> Str<'a> {
    super::entry_of(entries, rank, |e| (e.first_rank, e.count)).map_or(Str::EMPTY, |e| e.name)
}

/// Writes the result document into `out`; returns its length.
///
/// `{"version": 1, "model": "returns", "items", "port", "schedule", "method", "makespan",
/// "rational_makespan", "lower_bound", "bound", "gap", "exact", "throughput",
/// "throughput_bound", "rational_optimal", "even_split_makespan", "speedup",
/// "participating", "send_order": [names], "return_order": [names], "compare": {"best",
/// "lifo", "fifo"}, "plan": [{"name", "rank", "count", "displacement", "share",
/// "send_start", "received", "computed", "return_start", "return_end", "idle",
/// "return_position"}]}`, `plan` in send order (participants first), times in seconds.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the exact length
/// needed (call with an empty buffer to learn it).
pub fn write_result(
    file: &ReturnsFile,
    entries: &[ReturnEntry<'_>],
    summary: &Summary<f64>,
    plan: &[Assignment<f64>],
    compare: &Compare,
    out: &mut [u8],
) -> Result<usize, Error> {
    let entries = entries.get(..file.entries).unwrap_or(entries);
    let mut w = Writer::new(out);
    let s = summary;
    let report = s.report();
    begin_result(&mut w, "returns");
    w.key("items");
    w.u64(s.items);
    w.key("port");
    w.str(PORT.name(s.port));
    w.key("schedule");
    w.str(match file.schedule {
        ScheduleKind::Best => SCHEDULE.name(Schedule::Best),
        ScheduleKind::Lifo => SCHEDULE.name(Schedule::Lifo),
        ScheduleKind::Fifo => SCHEDULE.name(Schedule::Fifo),
        ScheduleKind::Given => "given",
    });
    write_answer(&mut w, &report, s.rational_makespan, Some(s.bound));
    w.key("throughput");
    w.f64(s.throughput);
    w.key("throughput_bound");
    w.f64(s.throughput_bound);
    w.key("rational_optimal");
    w.bool(s.rational_optimal);
    w.key("even_split_makespan");
    w.f64(s.even_split_makespan);
    w.key("speedup");
    w.f64(crate::report::speedup(s.even_split_makespan, s.makespan));
    w.key("participating");
    w.u64(s.participating as u64);
    let members = &plan[..s.members.min(plan.len())];
    w.key("send_order");
    w.begin_array();
    for a in members {
        w.raw_str(name_of(entries, a.worker));
    }
    w.end_array();
    w.key("return_order");
    w.begin_array();
    // The closed forms return in send order (FIFO) or its reverse (LIFO), which a pass
    // recognises; a search by rank per position is quadratic (11 s for 10⁵ LIFO workers)
    // and is left to the LP scenarios, of at most `MAX_LP_WORKERS` members.
    let m = members.len();
    if members.iter().enumerate().all(|(k, a)| a.return_rank == Some(k)) {
        for a in members {
            w.raw_str(name_of(entries, a.worker));
        }
    } else if members.iter().enumerate().all(|(k, a)| a.return_rank == Some(m - 1 - k)) {
        for a in members.iter().rev() {
            w.raw_str(name_of(entries, a.worker));
        }
    } else {
        for position in 0..m {
            if let Some(a) = members.iter().find(|a| a.return_rank == Some(position)) {
                w.raw_str(name_of(entries, a.worker));
            }
        }
    }
    w.end_array();
    w.key("compare");
    w.begin_object();
    w.numbers(&[("best", compare.best), ("lifo", compare.lifo), ("fifo", compare.fifo)]);
    w.end_object();
    w.key("plan");
    w.begin_array();
    for a in plan {
        begin_row(&mut w, name_of(entries, a.worker), a.worker, a.count, a.displacement);
        w.numbers(&[
            ("share", a.share),
            ("send_start", a.send_start),
            ("received", a.received),
            ("computed", a.computed),
            ("return_start", a.return_start),
            ("return_end", a.return_end),
            ("idle", a.idle),
        ]);
        w.key("return_position");
        match a.return_rank {
            Some(r) => w.u64(r as u64),
            None => w.null(),
        }
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.end("result JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_has_one_name_and_is_listed() {
        crate::doc::names::complete(&PORT, &[Port::FullDuplex, Port::HalfDuplex]);
        crate::doc::names::complete(&SCHEDULE, &[Schedule::Best, Schedule::Lifo, Schedule::Fifo]);
    }
}
