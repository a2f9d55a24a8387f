//! The computation-only model's documents (cerin2006 §4; the solver is
//! [`crate::partition`]): processors with any non-decreasing computation cost and no
//! communication, split to finish together, exactly.
//!
//! ```json
//! {"version": 1, "model": "partition", "items": 100000,
//!  "workers": [{"name": "sort-a", "comp_power": {"coeff": 1e-7, "exponent": 1.2}},
//!              {"name": "sort-b", "count": 2, "comp_per_item": 3e-6},
//!              {"name": "gpu", "comp_table": [[1000, 0.01], [100000, 0.2]]}]}
//! ```
//!
//! Each worker gives one cost, as in scatter documents: `comp_per_item` (with an optional
//! `comp_latency`), `comp_table` (measured `[items, seconds]` points, `"repair": true` for
//! noisy ones) or `comp_power`. The result is the exact integer optimum
//! (`"method": "threshold"`, gap 0) and the even split as the baseline.

use crate::doc::json::Writer;
use crate::doc::model::{shares_in_order, timeline_document, written, Effort, Memory, Model, Name, Planned};
use crate::doc::scatter::{
    check_table, cost_of, name_of, read_power, read_table, CostModel, WorkerEntry, COMP_LATENCY,
    COMP_PER_ITEM, COMP_POWER, COMP_TABLE, COUNT, ITEMS, MAX_POINTS, NAME, REPAIR,
};
use crate::doc::schema::{field, Field as Key, Kind, Phase};
use crate::doc::{begin_result, begin_row, check_workers, items_and_workers, unique_names, Doc, Keys};
use crate::error::{Detail, Error, Field};
use crate::platform::cost::{Affine, Cost, CostFn};
use crate::report::{Method, Report};

/// The computation-only model in the registry.
#[derive(Debug)]
pub struct Partition;

impl Model for Partition {
    const TITLE: &'static str =
        "computation only, any non-decreasing costs (measured tables, power laws): the exact integer split";
    const PAPER: &'static str =
        "Cerin et al. 2006, partitioning for heterogeneous sorting (section 4: the optimum by a threshold search)";
    const EXAMPLE: &'static str = EXAMPLE;
    const SCHEMA: &'static [Key] = &[
        ITEMS,
        field(
            "workers",
            Kind::List(&[NAME, COUNT, COMP_PER_ITEM, COMP_LATENCY, COMP_TABLE, COMP_POWER, REPAIR]),
            "one cost each",
        ),
    ];
    const GANTT: &'static [Phase] = &[Phase { label: "compute", start: "", end: "finish" }];

    /// A search on the makespan: about 64 steps, each inverting every worker's cost.
    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error> {
        let entries = memory.slice("worker entries", sizes(text)?, WorkerEntry::EMPTY)?;
        let p = parse(text, entries)?.workers as u64;
        Ok(Effort { workers: p, work: p.saturating_mul(64 * 64) })
    }

    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        solved(text, memory, |file, entries, costs, counts, makespan| {
            let document = written(memory, |buf| write_result(file, entries, costs, counts, makespan, buf))?;
            let report = Report { method: Method::THRESHOLD, makespan, lower_bound: makespan, exact: true };
            // No order: blocks follow the document's order, as the result's displacements do.
            let mut offset = 0u64;
            let rows = counts.iter().enumerate().map(|(rank, &count)| {
                let row = (rank, count, offset, true);
                offset = offset.saturating_add(count);
                row
            });
            let shares = shares_in_order(memory, counts.len(), rows)?;
            Ok(Planned { document, report, shares })
        })
    }

    /// Each worker on its own host computes its items; there is nothing to send.
    fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        solved(text, memory, |file, entries, costs, counts, _| {
            let ranks =
                || entries.iter().zip(costs).flat_map(|(e, c)| (0..e.count).map(move |_| (e.name, c)));
            let document = timeline_document(memory, |t| {
                t.0.key("hosts");
                t.0.begin_array();
                for (rank, (name, _)) in ranks().enumerate().take(file.workers) {
                    t.host(rank as u64, Name::Doc(name));
                }
                t.0.end_array();
                for key in ["links", "routes"] {
                    t.0.key(key);
                    t.0.begin_array();
                    t.0.end_array();
                }
                t.0.key("actors");
                t.0.begin_array();
                for (rank, ((name, c), &count)) in
                    ranks().zip(counts.iter()).enumerate().filter(|(_, (_, &n))| n > 0)
                {
                    let time = c.time(count);
                    t.actor(rank as u64, rank as u64, Name::Doc(name));
                    t.compute(time);
                    t.end(time);
                }
                t.0.end_array();
            })?;
            Ok(Some(document))
        })
    }
}

/// Reads and plans a document in `memory`, and hands the plan to `finish` while the
/// buffers live: the entries, their cost functions, the counts by rank and the makespan.
fn solved<R, M: Memory>(
    text: &[u8],
    memory: &M,
    finish: impl FnOnce(
        &PartitionFile,
        &[WorkerEntry<'_>],
        &[Cost<f64, MAX_POINTS>],
        &[u64],
        f64,
    ) -> Result<R, Error>,
) -> Result<R, Error> {
    let entries = memory.slice("worker entries", sizes(text)?, WorkerEntry::EMPTY)?;
    let file = parse(text, entries)?;
    check_workers("workers", file.workers as u64)?;
    let entries = &entries[..file.entries];
    unique_names(memory, "workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
    let zero: Cost<f64, MAX_POINTS> = Cost::Affine(Affine::new(0.0, 0.0)?);
    let costs = memory.slice("cost functions", file.entries, zero)?;
    file.costs(entries, costs)?;
    let costs: &[Cost<f64, MAX_POINTS>] = costs;
    let Some(first) = costs.first() else { return Err(Error::no_workers()) };
    // The solver's workers are references to their entry's cost, `count` of them each.
    let workers = memory.slice("workers", file.workers, first)?;
    let expanded = entries.iter().zip(costs).flat_map(|(e, c)| (0..e.count).map(move |_| c));
    for (slot, c) in workers.iter_mut().zip(expanded) {
        *slot = c;
    }
    let counts = memory.slice("counts", file.workers, 0u64)?;
    let makespan = crate::partition::solve(workers, file.items, counts)?;
    finish(&file, entries, costs, counts, makespan)
}

const EXAMPLE: &str = r#"{
  "version": 1,
  "model": "partition",
  "comment": "Three kinds of node sorting 10^6 keys locally: a superlinear sort (power law), two linear ones, and measured timings (seconds for that many items). No communication: the split where all finish together, exactly.",
  "items": 1000000,
  "workers": [
    {"name": "old", "comp_power": {"coeff": 2e-7, "exponent": 1.1}},
    {"name": "mid", "count": 2, "comp_per_item": 1.5e-6},
    {"name": "new", "comp_table": [[10000, 0.009], [100000, 0.1], [1000000, 1.15]]}
  ]
}
"#;

const TOP: Keys = Keys {
    names: &["version", "model", "items", "workers", "comment", "description"],
    unknown: "unknown key (expected version, model, items, workers, comment, description)",
};

const WORKER: Keys = Keys {
    names: &[
        "name",
        "count",
        "repair",
        "comp_latency",
        "comp_per_item",
        "comp_table",
        "comp_power",
        "comment",
    ],
    unknown:
        "unknown key (expected name, count, comp_per_item, comp_latency, comp_table, comp_power, repair, \
              comment)",
};

/// The scalar part of a partition document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionFile {
    /// Items to split.
    pub items: u64,
    /// Entries in `workers`.
    pub entries: usize,
    /// Workers once `count` is expanded.
    pub workers: usize,
}

/// Reads a document without keeping anything: its number of worker entries.
///
/// # Errors
///
/// Everything [`parse`] rejects, except a buffer that is too small.
pub fn sizes(json: &[u8]) -> Result<usize, Error> {
    read(json, &mut []).map(|f| f.entries)
}

/// Reads a partition document into `entries` (as long as [`sizes`] says; the
/// communication fields stay empty).
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for malformed JSON (strict RFC 8259),
/// unknown, repeated or missing keys; [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput)
/// for a cost out of range, no workers or no items;
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for a short buffer.
pub fn parse<'a>(json: &'a [u8], entries: &mut [WorkerEntry<'a>]) -> Result<PartitionFile, Error> {
    let f = read(json, entries)?;
    if f.entries > entries.len() {
        return Err(Error::buffer("worker entries", f.entries, entries.len()));
    }
    Ok(f)
}

fn read<'a>(json: &'a [u8], entries: &mut [WorkerEntry<'a>]) -> Result<PartitionFile, Error> {
    let mut d = Doc::new(json);
    d.object()?;
    let (mut seen, mut items, mut workers) = (0u64, None, None);
    while let Some(k) = d.top_key(&TOP, &mut seen, "partition", "must be \"partition\" for this reader")? {
        match k {
            "items" => items = Some(d.u64()?),
            "workers" => workers = Some(read_workers(&mut d, entries)?),
            _ => d.skip()?,
        }
    }
    d.end()?;
    let (items, n, workers) = items_and_workers(items, workers, "missing (the number of items to split)")?;
    Ok(PartitionFile { items, entries: n, workers })
}

fn one_cost(at: Detail) -> Error {
    Error::json("give one cost: comp_per_item, comp_table or comp_power", at)
}

fn read_workers<'a>(d: &mut Doc<'a>, buf: &mut [WorkerEntry<'a>]) -> Result<(usize, u64), Error> {
    d.array()?;
    let (mut n, mut ranks) = (0usize, 0u64);
    while d.element()? {
        d.at("workers", n, "");
        let at = |field: &'static str| Detail::Entry { list: "workers", index: n, field };
        d.object()?;
        let (mut e, mut seen, mut costs, mut latency) = (WorkerEntry::EMPTY, 0u64, 0u32, false);
        while let Some(k) = d.key(&WORKER, &mut seen)? {
            match k {
                "name" => e.name = d.string()?,
                "count" => {
                    e.count = d.u64()?;
                    if e.count == 0 {
                        return Err(Error::json("must be at least 1", at("count")));
                    }
                }
                "repair" => e.repair = d.bool()?,
                "comment" => d.comment()?,
                "comp_table" | "comp_power" if costs > 0 => return Err(one_cost(at(k))),
                "comp_table" => (e.comp_model, costs) = (read_table(d, n, k)?, costs + 1),
                "comp_power" => (e.comp_model, costs) = (read_power(d, n, k, true)?, costs + 1),
                _ => {
                    let field = if k == "comp_latency" { Field::CompLatency } else { Field::CompPerItem };
                    let v = d.f64()?;
                    if crate::platform::worker::check(n, field, v).is_err() {
                        return Err(Error::entry_cost("workers", n, field, v));
                    }
                    if field == Field::CompLatency {
                        (e.comp_latency, latency) = (v, true);
                    } else if costs > 0 {
                        return Err(one_cost(at(k)));
                    } else {
                        (e.comp_per_item, costs) = (v, costs + 1);
                    }
                }
            }
        }
        if seen & 1 == 0 {
            return Err(Error::json("missing", at("name")));
        }
        if e.name.raw().is_empty() {
            return Err(Error::json("must be a non-empty name", at("name")));
        }
        if costs == 0 {
            return Err(Error::json("missing", at("comp_per_item (or comp_table, comp_power)")));
        }
        if latency && e.comp_model != CostModel::Affine {
            return Err(Error::json(
                "goes with comp_per_item only: a table's times include the latency, and comp_power has its own",
                at("comp_latency"),
            ));
        }
        if let CostModel::Table(t) = e.comp_model {
            check_table(t, n, "comp_table", e.repair)?;
        }
        e.first_rank = ranks;
        ranks = ranks.checked_add(e.count).ok_or(Error::json("total worker count overflows", at("count")))?;
        if let Some(slot) = buf.get_mut(n) {
            *slot = e;
        }
        n += 1;
    }
    Ok((n, ranks))
}

impl PartitionFile {
    /// One cost function per entry (`costs` needs `self.entries` elements): the workers an
    /// entry's `count` stands for share it. One per worker took 528 bytes each (a table's
    /// points inline), 553 MB for 2²⁰ workers; a solver gets the workers' costs as
    /// references to these, `count` of them per entry.
    ///
    /// # Errors
    ///
    /// A table the cost type rejects; [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall).
    pub fn costs(
        &self,
        entries: &[WorkerEntry<'_>],
        costs: &mut [Cost<f64, MAX_POINTS>],
    ) -> Result<(), Error> {
        if costs.len() < self.entries {
            return Err(Error::buffer("cost functions", self.entries, costs.len()));
        }
        for (i, (e, slot)) in entries.iter().zip(costs.iter_mut()).take(self.entries).enumerate() {
            *slot = cost_of::<f64>(
                e.comp_model,
                e.comp_latency,
                e.comp_per_item,
                e.repair,
                i,
                Field::CompPerItem,
            )?;
        }
        Ok(())
    }
}

/// Writes the result document: `{"version": 1, "model": "partition", "items", "method",
/// "makespan", "lower_bound", "gap", "exact", "even_makespan", "speedup", "plan":
/// [{"name", "rank", "count", "displacement", "finish"}]}`; returns its length.
///
/// `makespan` is the exact optimum (the threshold search, cerin2006 §4), so `lower_bound`
/// equals it; the even split gives each worker `⌊n/p⌋` items, one more for the first
/// `n mod p`.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the exact length needed.
pub fn write_result(
    file: &PartitionFile,
    entries: &[WorkerEntry<'_>],
    costs: &[Cost<f64, MAX_POINTS>],
    counts: &[u64],
    makespan: f64,
    out: &mut [u8],
) -> Result<usize, Error> {
    let got = out.len();
    let p = file.workers;
    let entries = entries.get(..file.entries).unwrap_or(entries);
    // Each rank with its entry's cost function.
    let ranks = || entries.iter().zip(costs).flat_map(|(e, c)| (0..e.count).map(move |_| c)).enumerate();
    let mut even = 0.0f64;
    for (k, c) in ranks() {
        even = even.max(c.time(crate::scatter::even_split_count(file.items, p, k)));
    }
    // As in the other models, a time beyond `f64` is an error rather than a `null` in the
    // document: the plan leaves a worker of 10²⁷¹·x⁹ seconds idle, the even split cannot.
    if !even.is_finite() {
        return Err(Error::time_overflow(
            "even split's makespan",
            "give smaller costs or times in a larger unit",
        ));
    }
    let mut w = Writer::new(out);
    begin_result(&mut w, "partition");
    w.key("items");
    w.u64(file.items);
    w.key("method");
    w.str(Method::THRESHOLD.name());
    w.numbers(&[("makespan", makespan), ("lower_bound", makespan), ("gap", 0.0)]);
    w.key("exact");
    w.bool(true);
    w.key("even_makespan");
    w.f64(even);
    w.key("speedup");
    w.f64(crate::report::speedup(even, makespan));
    w.key("plan");
    w.begin_array();
    let mut offset = 0u64;
    for ((rank, c), &count) in ranks().zip(counts) {
        begin_row(&mut w, name_of(entries, rank), rank, count, offset);
        w.key("finish");
        w.f64(c.time(count));
        w.end_object();
        offset += count;
    }
    w.end_array();
    w.end_object();
    w.finish().map_err(|needed| Error::buffer("result JSON", needed, got))
}
