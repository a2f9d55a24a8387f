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
//!
//! Uniformly related processors (cerin2006 §3; `docs/derivations/partition.md` §10) give
//! one document-wide `cost` and a `speed` per worker instead, worker `i` taking
//! `coeff·f(nᵢ)/speedᵢ`:
//!
//! ```json
//! {"version": 1, "model": "partition", "items": 1000000,
//!  "cost": {"kind": "n_log_n", "coeff": 1e-8}, "solver": "exact",
//!  "workers": [{"name": "fast", "count": 4, "speed": 2.0},
//!              {"name": "slow", "count": 4, "speed": 1.0}]}
//! ```
//!
//! `cost.kind` is `linear`, `power` (with `exponent`), `n_log_n` (natural log, 0 for one
//! item) or `table` (`points` in seconds at speed 1, `repair`); `solver` is `exact` (the
//! default, every cost), `theorem1` (linear, power), `eq5` or `theorem2` (`n_log_n`), the
//! last three reporting their `approximation` error against the exact optimum. Such
//! results also give `speed_makespan`, the split by speed alone (the paper's A.1).
//!
//! Why one file: the two document shapes (a cost per worker, or one cost and a speed per
//! worker, with observations to learn from) are one reader with one writer; the solvers
//! and the learned model live in [`crate::partition`].

use crate::doc::cost::{
    check_table, cost_of, read_points, read_power, read_table, CostModel, WorkerEntry, COMP_LATENCY,
    COMP_PER_ITEM, COMP_POWER, COMP_TABLE, COUNT, ITEMS, MAX_POINTS, NAME, REPAIR,
};
use crate::doc::json::Writer;
use crate::doc::model::{shares_in_order, timeline_document, written, Effort, Memory, Model, Name, Planned};
use crate::doc::names::Names;
use crate::doc::schema::{field, Chart, ChartKind, Field as Key, Kind, Phase};
use crate::doc::schema::{Range, AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::doc::{
    begin_result, begin_row, check_workers, items_and_workers, unique_names, write_answer, Doc, Keys,
};
use crate::error::{Detail, Error, Field};
use crate::num::range::{range, EXPONENT};
use crate::partition::approx::{approximate, Solver};
use crate::partition::learned::{self, Learned, LearnedAt, Repair};

use crate::partition::related::{self, Chords, Class, CostKind, Rounding, Scaled, Shape, Uniform};
use crate::platform::cost::{Affine, Cost, CostFn, Tabulated};
use crate::report::{Method, Report};

/// The partition's solvers ([`Solver`]; `exact` is none of the approximations).
pub const SOLVERS: Names<Option<Solver>> = Names {
    key: "solver",
    table: &[
        ("exact", None),
        ("theorem1", Some(Solver::Theorem1)),
        ("eq5", Some(Solver::Eq5)),
        ("theorem2", Some(Solver::Theorem2)),
    ],
    expected: "must be \"exact\", \"theorem1\", \"eq5\" or \"theorem2\"",
};

/// The kind of the document-wide cost ([`CostKind`]).
pub const COST_KIND: Names<CostKind> = Names {
    key: "kind",
    table: &[
        ("linear", CostKind::Linear),
        ("power", CostKind::Power),
        ("n_log_n", CostKind::NLogN),
        ("table", CostKind::Table),
    ],
    expected: "must be \"linear\", \"power\", \"n_log_n\" or \"table\"",
};

/// How a learned cost model combines timings ([`Repair`]).
pub const LEARN_REPAIR: Names<Repair> = Names {
    key: "repair",
    table: &[("mean", Repair::Mean), ("max", Repair::Max)],
    expected: "must be \"mean\" or \"max\"",
};

/// The computation-only model in the registry.
#[derive(Debug)]
pub struct Partition;

/// Speeds: finite and > 0.
const SPEED_RANGE: &Range = POSITIVE;

const SPEED: Key = field("speed", Kind::Number(SPEED_RANGE), "relative speed k (with cost)");
const COST: Key = field(
    "cost",
    Kind::Json,
    "one cost for all, time = coeff·f(n)/speed: {kind: linear | power (exponent) | n_log_n | table (points)}",
);
const SOLVER: Key = field("solver", Kind::Choice(&SOLVERS), "exact, or the paper's approximations");
const OBSERVATIONS: Key = field(
    "observations",
    Kind::List(&[
        field("worker", Kind::Text, "an entry's name"),
        field("items", Kind::Integer(AT_LEAST_ONE), "items it computed"),
        Key { unit: "s", ..field("seconds", Kind::Number(NON_NEGATIVE), "how long they took") },
    ]),
    "timings to learn the cost from (with cost and speeds)",
);
const LEARN: Key = field(
    "learn",
    Kind::Object(&[
        field("capacity", Kind::Integer(CAPACITY_RANGE), "points the model keeps"),
        field("repair", Kind::Choice(&LEARN_REPAIR), "repeated sizes and slower smaller runs"),
    ]),
    "how the model learns",
);

impl Model for Partition {
    const TITLE: &'static str =
        "computation only, any non-decreasing costs (measured tables, power laws, n log n sorts): the exact integer split";
    const PAPER: &'static str =
        "Cerin et al. 2006, partitioning for heterogeneous sorting (sections 3-4: related speeds, n log n, the threshold search)";
    const EXAMPLE: &'static str = EXAMPLE;
    const SCHEMA: &'static [Key] = &[
        ITEMS,
        COST,
        SOLVER,
        OBSERVATIONS,
        LEARN,
        field(
            "workers",
            Kind::List(&[NAME, COUNT, SPEED, COMP_PER_ITEM, COMP_LATENCY, COMP_TABLE, COMP_POWER, REPAIR]),
            "a speed each with cost, else one cost each",
        ),
    ];
    const GANTT: &'static [Phase] = &[Phase { label: "compute", start: "", end: "finish" }];
    // Each entry's cost from no items to its share: the curves end together at the
    // makespan where the split balances them (cerin2006 Fig. 1's picture).
    const CHARTS: &'static [Chart] = &[Chart {
        title: "each worker's time against its items, up to its share",
        kind: ChartKind::Line,
        list: "curves",
        x: "items",
        y: "seconds",
        group: "worker",
    }];

    /// A search on the makespan: about 64 steps, each inverting every worker's cost.
    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error> {
        let n = sizes(text)?;
        let entries = memory.slice("worker entries", n, WorkerEntry::EMPTY)?;
        let speeds = memory.slice("speeds", n, 0.0f64)?;
        let p = parse(text, entries, speeds)?.workers as u64;
        Ok(Effort { workers: p, work: p.saturating_mul(64 * 64) })
    }

    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        solved(text, memory, |s| {
            let document = written(memory, |buf| write_result(s, buf))?;
            // No order: blocks follow the document's order, as the result's displacements do.
            let mut offset = 0u64;
            let rows = s.counts.iter().enumerate().map(|(rank, &count)| {
                let row = (rank, count, offset, true);
                offset = offset.saturating_add(count);
                row
            });
            let shares = shares_in_order(memory, s.counts.len(), rows)?;
            Ok(Planned { document, report: s.report, shares, pieces: &[] })
        })
    }

    /// Each worker on its own host computes its items; there is nothing to send.
    fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        solved(text, memory, |s| {
            let document = timeline_document(memory, |t| {
                t.0.key("hosts");
                t.0.begin_array();
                for (rank, (name, _)) in s.ranks().enumerate().take(s.file.workers) {
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
                for (rank, ((name, entry), &count)) in
                    s.ranks().zip(s.counts.iter()).enumerate().filter(|(_, (_, &n))| n > 0)
                {
                    let time = s.time(entry, count);
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

/// A document planned: what the result and the timeline are written from.
#[derive(Debug)]
pub struct Solved<'a, 'm> {
    file: &'a PartitionFile<'m>,
    entries: &'a [WorkerEntry<'m>],
    speeds: &'a [f64],
    /// Per-entry costs (empty with a document cost).
    costs: &'a [Cost<f64, MAX_POINTS>],
    /// The document cost.
    uniform: Option<&'a Uniform<MAX_POINTS>>,
    /// The model learned from the observations: times are its predictions.
    learned: Option<&'a LearnedModel>,
    /// Counts by rank.
    counts: &'a [u64],
    report: Report<f64>,
    rational: f64,
    even: f64,
    speed: Option<f64>,
    approximation: Option<(Solver, f64)>,
}

impl<'m> Solved<'_, 'm> {
    /// Seconds for `n` items on a worker of entry `entry`.
    fn time(&self, entry: usize, n: u64) -> f64 {
        let speed = self.speeds.get(entry).copied().unwrap_or(1.0);
        if let Some(model) = self.learned {
            return LearnedAt { model, speed }.time(n);
        }
        match self.uniform {
            Some(u) => Scaled { cost: u, speed }.time(n),
            None => self.costs.get(entry).map_or(0.0, |c| c.time(n)),
        }
    }

    /// Each rank's name and entry.
    fn ranks(&self) -> impl Iterator<Item = (crate::doc::json::Str<'m>, usize)> + '_ {
        self.entries.iter().enumerate().flat_map(|(i, e)| (0..e.count).map(move |_| (e.name, i)))
    }
}

/// The result's `curves`: the first entries' costs, at this many steps each.
const CURVES: usize = 16;
const CURVE_POINTS: u64 = 16;

/// Reads and plans a document in `memory`, and hands the plan to `finish` while the
/// buffers live.
fn solved<R, M: Memory>(
    text: &[u8],
    memory: &M,
    finish: impl FnOnce(&Solved<'_, '_>) -> Result<R, Error>,
) -> Result<R, Error> {
    let n = sizes(text)?;
    let entries = memory.slice("worker entries", n, WorkerEntry::EMPTY)?;
    let speeds = memory.slice("speeds", n, 0.0f64)?;
    let file = parse(text, entries, speeds)?;
    check_workers("workers", file.workers as u64)?;
    let entries = &entries[..file.entries];
    let speeds: &[f64] = &speeds[..file.entries];
    unique_names(memory, "workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
    let counts = memory.slice("counts", file.workers, 0u64)?;
    if let Some(spec) = &file.cost {
        let uniform = spec.uniform()?;
        let one = Class { cost: Scaled { cost: &uniform, speed: 1.0 }, count: 1 };
        let classes = memory.slice("classes", file.entries, one)?;
        for ((c, e), &speed) in classes.iter_mut().zip(entries).zip(speeds) {
            *c = Class { cost: Scaled { cost: &uniform, speed }, count: e.count };
        }
        let classes: &[Class<Scaled<'_, MAX_POINTS>>] = classes;
        // The solvers' working memory (a word per entry) and the split by speed's counts.
        let scratch = memory.slice("plan scratch", file.entries, 0u64)?;
        let spare = memory.slice("speed split counts", file.workers, 0u64)?;
        let model = match &file.learning {
            Some(learning) => Some(teach(&file, learning, &uniform, entries, speeds)?),
            None => None,
        };
        let (plan, method, approximation, even, speed) = if let Some(model) = &model {
            let one = Class { cost: Chords(LearnedAt { model, speed: 1.0 }), count: 1 };
            let taught = memory.slice("learned classes", file.entries, one)?;
            for ((c, e), &speed) in taught.iter_mut().zip(entries).zip(speeds) {
                *c = Class { cost: Chords(LearnedAt { model, speed }), count: e.count };
            }
            let taught: &[_] = taught;
            let plan = learned::plan(taught, file.items, counts, scratch)?;
            let total: f64 = taught.iter().map(|c| c.count as f64 * c.cost.0.speed).sum();
            let items = file.items as f64;
            let speed = related::round_shares(
                taught,
                file.items,
                &|j| taught.get(j).map_or(0.0, |c| items * c.cost.0.speed / total),
                spare,
                scratch,
            );
            (plan, Method::LEARNED, None, related::even_makespan(taught, file.items), speed)
        } else {
            let (plan, method, approximation) = match file.solver {
                None => (
                    related::solve(classes, file.items, Rounding::Cost, counts, scratch)?,
                    Method::THRESHOLD,
                    None,
                ),
                Some(solver) => {
                    let a = approximate(classes, file.items, solver, counts, scratch)?;
                    let method = match solver {
                        Solver::Theorem1 => Method::THEOREM1,
                        Solver::Eq5 => Method::EQ5,
                        Solver::Theorem2 => Method::THEOREM2,
                    };
                    (a.plan, method, Some((solver, a.error)))
                }
            };
            let speed = related::speed_makespan(classes, file.items, spare, scratch)?;
            (plan, method, approximation, related::even_makespan(classes, file.items), speed)
        };
        let report =
            Report { method, makespan: plan.makespan, lower_bound: plan.lower_bound, exact: plan.exact() };
        let s = Solved {
            file: &file,
            entries,
            speeds,
            costs: &[],
            uniform: Some(&uniform),
            learned: model.as_ref(),
            counts,
            report,
            rational: plan.rational_makespan,
            even,
            speed: Some(speed),
            approximation,
        };
        return finish(&s);
    }
    if file.solver.is_some() {
        return Err(Error::json(
            "theorem1, eq5 and theorem2 need a document-wide cost (give cost and speeds)",
            Detail::Entry { list: "solver", index: usize::MAX, field: "" },
        ));
    }
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
    let makespan = crate::partition::solve(workers, file.items, counts)?;
    let one = Class { cost: Chords(first), count: 1 };
    let classes = memory.slice("classes", file.entries, one)?;
    for ((slot, c), e) in classes.iter_mut().zip(costs).zip(entries) {
        *slot = Class { cost: Chords(c), count: e.count };
    }
    let rational = related::rational(classes, file.items, makespan);
    let even = related::even_makespan(classes, file.items);
    // As in the other models, a time beyond `f64` is an error rather than a `null` in the
    // document: the plan leaves a worker of 10²⁷¹·x⁹ seconds idle, the even split cannot.
    if !even.is_finite() {
        return Err(Error::time_overflow(
            "even split's makespan",
            "give smaller costs or times in a larger unit",
        ));
    }
    let report = Report { method: Method::THRESHOLD, makespan, lower_bound: makespan, exact: true };
    let s = Solved {
        file: &file,
        entries,
        speeds,
        costs,
        uniform: None,
        learned: None,
        counts,
        report,
        rational,
        even,
        speed: None,
        approximation: None,
    };
    finish(&s)
}

/// The shared model (derivation §7, §10): the document cost is the prior (a linear cost
/// is the linear guess, a table's points are its first observations, a power or `n ln n`
/// the line through it at the mean share `N/p`), then each observation in order, as
/// seconds at speed 1 (`seconds·speed` of its worker's entry).
fn teach(
    file: &PartitionFile<'_>,
    learning: &Learning<'_>,
    prior: &Uniform<MAX_POINTS>,
    entries: &[WorkerEntry<'_>],
    speeds: &[f64],
) -> Result<LearnedModel, Error> {
    let mean = (file.items / (file.workers as u64).max(1)).max(1);
    let guess = match prior.shape() {
        Shape::Linear => prior.coeff(),
        _ => prior.seconds(mean) / mean as f64,
    };
    // A prior of no time (a table of zeros) still needs a positive slope to start from.
    let guess = if guess.is_finite() && guess > 0.0 { guess } else { f64::MIN_POSITIVE };
    let mut model = LearnedModel::new(guess, learning.repair)?;
    if let Shape::Table(t) = prior.shape() {
        for (i, &(n, y)) in t.points().iter().enumerate().filter(|(_, p)| p.0 > 0) {
            model.observe(n, y, i, learning.capacity).map_err(|_| {
                Error::json(
                    "points must be usable as observations",
                    Detail::Entry { list: "cost.points", index: i, field: "" },
                )
            })?;
        }
    }
    let mut d = Doc::new(learning.text);
    d.array()?;
    let mut i = 0usize;
    while d.element()? {
        let (worker, items, seconds) = read_observation(&mut d, i)?;
        let Some(e) = entries.iter().position(|e| e.name == worker) else {
            return Err(Error::json(
                "names no entry of workers",
                Detail::Entry { list: "observations", index: i, field: "worker" },
            ));
        };
        let c = seconds * speeds.get(e).copied().unwrap_or(1.0);
        if !c.is_finite() {
            return Err(Error::entry_value(
                "observations",
                i,
                "seconds",
                "finite once multiplied by the speed",
                c,
            ));
        }
        model.observe(items, c, i, learning.capacity)?;
        i += 1;
    }
    Ok(model)
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
    names: &[
        "version",
        "model",
        "items",
        "workers",
        "comment",
        "description",
        "cost",
        "solver",
        "observations",
        "learn",
    ],
    unknown:
        "unknown key (expected version, model, items, cost, solver, workers, observations, learn, comment, \
              description)",
};

const OBSERVATION: Keys = Keys {
    names: &["worker", "items", "seconds", "comment"],
    unknown: "unknown key (expected worker, items, seconds, comment)",
};

const LEARN_KEYS: Keys = Keys {
    names: &["capacity", "repair", "comment"],
    unknown: "unknown key (expected capacity, repair, comment)",
};

/// A learned model's points: `learn.capacity` at most, one slot more for the insertion.
pub type LearnedModel = Learned<{ MAX_POINTS + 1 }>;

/// `learn.capacity`: 2 to `MAX_POINTS` points.
const CAPACITY_RANGE: &Range = range!(2.0, MAX_POINTS as f64, false, false, "2 to 32 points");

/// Timings to learn from (`observations`) and how (`learn`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learning<'a> {
    /// The `observations` array as written, read again once the workers are known.
    pub text: &'a [u8],
    /// How many.
    pub count: usize,
    /// `learn.capacity`.
    pub capacity: usize,
    /// `learn.repair`.
    pub repair: Repair,
}

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
        "speed",
    ],
    unknown:
        "unknown key (expected name, count, comp_per_item, comp_latency, comp_table, comp_power, repair, \
              comment; with a document cost: name, count, speed, comment)",
};

const COST_KEYS: Keys = Keys {
    names: &["kind", "coeff", "exponent", "points", "repair", "comment"],
    unknown: "unknown key (expected kind, coeff, exponent (power), points and repair (table), comment)",
};

/// A document-wide cost as read (`cost`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostSpec {
    /// `cost.kind`.
    pub kind: CostKind,
    /// `cost.coeff` (1 when left out; a table's points are seconds already).
    pub coeff: f64,
    /// `cost.exponent` of a power.
    pub exponent: f64,
    /// `cost.points` of a table, `len` of them.
    pub points: [(u64, f64); MAX_POINTS],
    /// How many points.
    pub len: usize,
    /// `cost.repair`: pool a table's decreasing points.
    pub repair: bool,
}

impl CostSpec {
    /// The cost the solvers take.
    ///
    /// # Errors
    ///
    /// A table the cost type rejects (naming `cost.points`).
    pub fn uniform(&self) -> Result<Uniform<MAX_POINTS>, Error> {
        let shape = match self.kind {
            CostKind::Linear => Shape::Linear,
            CostKind::Power => Shape::Power(self.exponent),
            CostKind::NLogN => Shape::NLogN,
            CostKind::Table => {
                let pts = self.points.get(..self.len).unwrap_or(&[]);
                let t = if self.repair { Tabulated::repaired(pts) } else { Tabulated::new(pts) };
                let at = |message| {
                    Error::json(message, Detail::Entry { list: "cost.points", index: usize::MAX, field: "" })
                };
                Shape::Table(t.map_err(|_| at("must be [items, seconds] points with seconds finite, >= 0 and not decreasing (or repair: true), sizes increasing"))?)
            }
        };
        Uniform::new(shape, self.coeff)
    }
}

/// The scalar part of a partition document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartitionFile<'a> {
    /// Items to split.
    pub items: u64,
    /// Entries in `workers`.
    pub entries: usize,
    /// Workers once `count` is expanded.
    pub workers: usize,
    /// The document-wide cost: the workers then give speeds.
    pub cost: Option<CostSpec>,
    /// The approximation asked for (`None`: the exact optimum).
    pub solver: Option<Solver>,
    /// Timings to learn from.
    pub learning: Option<Learning<'a>>,
}

/// Reads a document without keeping anything: its number of worker entries.
///
/// # Errors
///
/// Everything [`parse`] rejects, except a buffer that is too small.
pub fn sizes(json: &[u8]) -> Result<usize, Error> {
    read(json, &mut [], &mut []).map(|f| f.entries)
}

/// Reads a partition document into `entries` and `speeds` (as long as [`sizes`] says; the
/// communication fields stay empty, a speed is 0 without a document cost).
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for malformed JSON (strict RFC 8259),
/// unknown, repeated or missing keys, a per-worker cost beside a document cost or a speed
/// without one; [`ErrorCode::InvalidInput`](crate::ErrorCode::InvalidInput)
/// for a cost out of range, no workers or no items;
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for a short buffer.
pub fn parse<'a>(
    json: &'a [u8],
    entries: &mut [WorkerEntry<'a>],
    speeds: &mut [f64],
) -> Result<PartitionFile<'a>, Error> {
    let f = read(json, entries, speeds)?;
    if f.entries > entries.len() {
        return Err(Error::buffer("worker entries", f.entries, entries.len()));
    }
    if f.entries > speeds.len() {
        return Err(Error::buffer("speeds", f.entries, speeds.len()));
    }
    Ok(f)
}

/// Which entries give what, for the checks that need the whole document (`cost` may come
/// after `workers`).
#[derive(Default)]
struct Given {
    /// The first entry with a speed.
    speed: Option<usize>,
    /// The first entry without one.
    no_speed: Option<usize>,
    /// The first entry with a per-worker cost key, and the key.
    comp: Option<(usize, &'static str)>,
    /// The first entry without a per-worker cost.
    no_comp: Option<usize>,
}

fn read<'a>(
    json: &'a [u8],
    entries: &mut [WorkerEntry<'a>],
    speeds: &mut [f64],
) -> Result<PartitionFile<'a>, Error> {
    let mut d = Doc::new(json);
    d.object()?;
    let (mut seen, mut items, mut workers, mut cost, mut solver) = (0u64, None, None, None, None);
    let (mut observations, mut learn) = (None, None);
    let mut given = Given::default();
    while let Some(k) = d.top_key(&TOP, &mut seen, "partition", "must be \"partition\" for this reader")? {
        match k {
            "items" => items = Some(d.u64()?),
            "workers" => workers = Some(read_workers(&mut d, entries, speeds, &mut given)?),
            "cost" => cost = Some(read_cost(&mut d)?),
            "solver" => solver = d.name(&SOLVERS)?,
            "observations" => observations = Some(read_observations(&mut d)?),
            "learn" => learn = Some(read_learn(&mut d)?),
            _ => d.skip()?,
        }
    }
    d.end()?;
    let at = |index: usize, field: &'static str| Detail::Entry { list: "workers", index, field };
    if cost.is_some() {
        if let Some((i, k)) = given.comp {
            return Err(Error::json("goes with per-worker costs; with a document cost give speed", at(i, k)));
        }
        if let Some(i) = given.no_speed {
            return Err(Error::json("missing (a document cost needs each worker's speed)", at(i, "speed")));
        }
    } else {
        if let Some(i) = given.speed {
            return Err(Error::json("speed goes with a document-wide cost (give cost)", at(i, "speed")));
        }
        if let Some(i) = given.no_comp {
            return Err(Error::json(
                "missing",
                at(i, "comp_per_item (or comp_table, comp_power; or cost and speed)"),
            ));
        }
    }
    let (items, n, workers) = items_and_workers(items, workers, "missing (the number of items to split)")?;
    let learning = match (observations, learn) {
        (None, Some(_)) => {
            return Err(Error::json(
                "goes with observations",
                Detail::Entry { list: "learn", index: usize::MAX, field: "" },
            ))
        }
        (None, None) => None,
        (Some((text, count)), learn) => {
            if solver.is_some() {
                return Err(Error::json(
                    "theorem1, eq5 and theorem2 plan from the document cost; with observations use exact",
                    Detail::Entry { list: "solver", index: usize::MAX, field: "" },
                ));
            }
            if cost.is_none() {
                return Err(Error::json(
                    "need a document-wide cost and speeds (the prior of the one model they teach)",
                    Detail::Entry { list: "observations", index: usize::MAX, field: "" },
                ));
            }
            let (capacity, repair) = learn.unwrap_or((16, Repair::Mean));
            Some(Learning { text, count, capacity, repair })
        }
    };
    Ok(PartitionFile { items, entries: n, workers, cost, solver, learning })
}

/// The `observations` array, checked: its text and length.
fn read_observations<'a>(d: &mut Doc<'a>) -> Result<(&'a [u8], usize), Error> {
    let start = d.offset();
    let mut n = 0usize;
    d.array()?;
    while d.element()? {
        read_observation(d, n)?;
        n += 1;
    }
    Ok((d.since(start), n))
}

/// One observation: the worker's name, items ≥ 1, seconds finite and ≥ 0.
fn read_observation<'a>(d: &mut Doc<'a>, n: usize) -> Result<(crate::doc::json::Str<'a>, u64, f64), Error> {
    d.at("observations", n, "");
    d.object()?;
    let (mut seen, mut worker, mut items, mut seconds) = (0u64, None, None, None);
    while let Some(k) = d.key(&OBSERVATION, &mut seen)? {
        match k {
            "worker" => worker = Some(d.string()?),
            "items" => {
                let v = d.u64()?;
                if v == 0 {
                    return Err(Error::entry_value("observations", n, "items", AT_LEAST_ONE.says, 0.0));
                }
                items = Some(v);
            }
            "seconds" => {
                let v = d.f64()?;
                if !NON_NEGATIVE.contains(v) {
                    return Err(Error::entry_value("observations", n, "seconds", NON_NEGATIVE.says, v));
                }
                seconds = Some(v);
            }
            _ => d.comment()?,
        }
    }
    let at = |field| Detail::Entry { list: "observations", index: n, field };
    match (worker, items, seconds) {
        (Some(w), Some(i), Some(s)) => Ok((w, i, s)),
        (None, ..) => Err(Error::json("missing", at("worker"))),
        (_, None, _) => Err(Error::json("missing", at("items"))),
        _ => Err(Error::json("missing", at("seconds"))),
    }
}

fn read_learn(d: &mut Doc<'_>) -> Result<(usize, Repair), Error> {
    let (mut seen, mut capacity, mut repair) = (0u64, 16usize, Repair::Mean);
    d.object()?;
    d.at("learn", usize::MAX, "");
    while let Some(k) = d.key(&LEARN_KEYS, &mut seen)? {
        match k {
            "capacity" => {
                let v = d.u64()?;
                if !CAPACITY_RANGE.contains(v as f64) {
                    return Err(Error::json(
                        CAPACITY_RANGE.must,
                        Detail::Number {
                            list: "learn",
                            index: usize::MAX,
                            field: "capacity",
                            value: v as f64,
                        },
                    ));
                }
                capacity = v as usize;
            }
            "repair" => repair = d.name(&LEARN_REPAIR)?,
            _ => d.comment()?,
        }
    }
    Ok((capacity, repair))
}

fn read_cost(d: &mut Doc<'_>) -> Result<CostSpec, Error> {
    let mut spec = CostSpec {
        kind: CostKind::Linear,
        coeff: 1.0,
        exponent: 1.0,
        points: [(0, 0.0); MAX_POINTS],
        len: 0,
        repair: false,
    };
    let (mut seen, mut kind, mut coeff, mut exponent, mut points) = (0u64, None, None, None, false);
    let number =
        |field: &'static str, value: f64| Detail::Number { list: "cost", index: usize::MAX, field, value };
    d.object()?;
    d.at("cost", usize::MAX, "");
    while let Some(k) = d.key(&COST_KEYS, &mut seen)? {
        match k {
            "kind" => kind = Some(d.name(&COST_KIND)?),
            "coeff" => {
                let v = d.f64()?;
                if !POSITIVE.contains(v) {
                    return Err(Error::json(POSITIVE.must, number("coeff", v)));
                }
                coeff = Some(v);
            }
            "exponent" => {
                let v = d.f64()?;
                if !EXPONENT.contains(v) {
                    return Err(Error::json(EXPONENT.must, number("exponent", v)));
                }
                exponent = Some(v);
            }
            "points" => {
                (spec.points, spec.len) = read_cost_points(d)?;
                points = true;
            }
            "repair" => spec.repair = d.bool()?,
            _ => d.comment()?,
        }
    }
    // `cost.field: message`, for a key its kind does not take or lacks.
    let wrong = |message: &'static str, list: &'static str| {
        Err(Error::json(message, Detail::Entry { list, index: usize::MAX, field: "" }))
    };
    let Some(kind) = kind else { return wrong("missing (linear, power, n_log_n or table)", "cost.kind") };
    match kind {
        CostKind::Power if exponent.is_none() => {
            return wrong("missing (a power needs its exponent)", "cost.exponent")
        }
        CostKind::Table if !points => return wrong("missing (a table needs its points)", "cost.points"),
        CostKind::Table if coeff.is_some() => {
            return wrong(
                "goes with kinds linear, power and n_log_n (a table's points are seconds)",
                "cost.coeff",
            )
        }
        _ => {}
    }
    if kind != CostKind::Power && exponent.is_some() {
        return wrong("goes with kind power only", "cost.exponent");
    }
    if kind != CostKind::Table && points {
        return wrong("goes with kind table only", "cost.points");
    }
    if kind != CostKind::Table && spec.repair {
        return wrong("goes with kind table only", "cost.repair");
    }
    spec.kind = kind;
    spec.coeff = coeff.unwrap_or(1.0);
    spec.exponent = exponent.unwrap_or(1.0);
    Ok(spec)
}

/// `[[items, seconds], …]`, at most `MAX_POINTS`, times finite and ≥ 0.
fn read_cost_points(d: &mut Doc<'_>) -> Result<([(u64, f64); MAX_POINTS], usize), Error> {
    let (points, len) = read_points(d, Detail::Entry { list: "cost.points", index: usize::MAX, field: "" })?;
    for (point, &(_, secs)) in points.iter().take(len).enumerate() {
        if !NON_NEGATIVE.contains(secs) {
            return Err(Error::json(
                "seconds must be finite and >= 0",
                Detail::Point { list: "cost", index: usize::MAX, field: "points", point, value: secs },
            ));
        }
    }
    Ok((points, len))
}

fn one_cost(at: Detail) -> Error {
    Error::json("give one cost: comp_per_item, comp_table or comp_power", at)
}

fn read_workers<'a>(
    d: &mut Doc<'a>,
    buf: &mut [WorkerEntry<'a>],
    speeds: &mut [f64],
    given: &mut Given,
) -> Result<(usize, u64), Error> {
    d.array()?;
    let (mut n, mut ranks) = (0usize, 0u64);
    while d.element()? {
        d.at("workers", n, "");
        let at = |field: &'static str| Detail::Entry { list: "workers", index: n, field };
        d.object()?;
        let (mut e, mut seen, mut costs, mut latency) = (WorkerEntry::EMPTY, 0u64, 0u32, false);
        let mut speed = None;
        while let Some(k) = d.key(&WORKER, &mut seen)? {
            if k.starts_with("comp_") && given.comp.is_none() {
                given.comp = Some((n, k));
            }
            match k {
                "name" => e.name = d.string()?,
                "count" => {
                    e.count = d.u64()?;
                    if e.count == 0 {
                        return Err(Error::json(AT_LEAST_ONE.must, at("count")));
                    }
                }
                "speed" => {
                    let v = d.f64()?;
                    if !SPEED_RANGE.contains(v) {
                        return Err(Error::entry_value("workers", n, "speed", SPEED_RANGE.says, v));
                    }
                    speed = Some(v);
                }
                "repair" => e.repair = d.bool()?,
                "comment" => d.comment()?,
                "comp_table" | "comp_power" if costs > 0 => return Err(one_cost(at(k))),
                "comp_table" => (e.comp_model, costs) = (read_table(d, n, k)?, costs + 1),
                "comp_power" => (e.comp_model, costs) = (read_power(d, n, k, true)?, costs + 1),
                _ => {
                    let field = if k == "comp_latency" { Field::COMP_LATENCY } else { Field::COMP_PER_ITEM };
                    let v = d.f64()?;
                    if crate::platform::worker::check(n, field, v).is_err() {
                        return Err(Error::entry_cost("workers", n, field, v));
                    }
                    if field == Field::COMP_LATENCY {
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
        match speed {
            Some(_) if given.speed.is_none() => given.speed = Some(n),
            None if given.no_speed.is_none() => given.no_speed = Some(n),
            _ => {}
        }
        if costs == 0 && given.no_comp.is_none() {
            given.no_comp = Some(n);
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
        ranks = ranks
            .checked_add(e.count)
            .ok_or_else(|| Error::json("total worker count overflows", at("count")))?;
        if let Some(slot) = buf.get_mut(n) {
            *slot = e;
        }
        if let Some(slot) = speeds.get_mut(n) {
            *slot = speed.unwrap_or(0.0);
        }
        n += 1;
    }
    Ok((n, ranks))
}

impl PartitionFile<'_> {
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
                Field::COMP_PER_ITEM,
            )?;
        }
        Ok(())
    }
}

/// Writes the result document: `{"version": 1, "model": "partition", "items", "method",
/// "makespan", "rational_makespan", "lower_bound", "gap", "exact", "even_makespan",
/// "speed_makespan" (with a document cost), "speedup", "approximation": {"solver",
/// "exact_makespan", "error"} (for theorem1, eq5, theorem2), "plan": [{"name", "rank",
/// "count", "displacement", "finish"}]}`; returns its length.
///
/// `lower_bound` is the exact integer optimum, certified (the threshold search ends on a
/// time just below which the items do not fit, cerin2006 §4, derivation §3); `gap` is
/// `makespan − lower_bound` in seconds, as in every model, and an approximation's `error`
/// is `makespan/exact_makespan − 1`. `rational_makespan` is the optimum of real shares
/// (`T*`, derivation §1). The even split gives each worker `⌊n/p⌋` items, one more for
/// the first `n mod p`.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the exact length needed.
pub fn write_result(s: &Solved<'_, '_>, out: &mut [u8]) -> Result<usize, Error> {
    let r = &s.report;
    let mut w = Writer::new(out);
    begin_result(&mut w, "partition");
    w.key("items");
    w.u64(s.file.items);
    write_answer(&mut w, r, s.rational, None);
    w.key("even_makespan");
    w.f64(s.even);
    if let Some(speed) = s.speed {
        w.key("speed_makespan");
        w.f64(speed);
    }
    w.key("speedup");
    w.f64(crate::report::speedup(s.even, r.makespan));
    if let Some((solver, error)) = s.approximation {
        w.key("approximation");
        w.begin_object();
        w.key("solver");
        w.str(SOLVERS.name(Some(solver)));
        w.numbers(&[("exact_makespan", r.lower_bound), ("error", error)]);
        w.end_object();
    }
    if let Some(model) = s.learned {
        w.key("learned");
        w.begin_object();
        w.key("points");
        w.begin_array();
        for p in model.points() {
            w.begin_array();
            w.u64(p.items);
            w.f64(p.seconds);
            w.end_array();
        }
        w.end_array();
        w.key("observations");
        w.u64(model.observations());
        w.key("predicted_makespan");
        w.f64(r.makespan);
        w.end_object();
    }
    // The first entries' cost curves, sampled from 0 to the share of the entry's first
    // worker: the page draws them (`CHARTS`); bounded so that a document of many entries
    // does not multiply its result.
    w.key("curves");
    w.begin_array();
    let mut last = usize::MAX;
    for ((name, entry), &count) in s.ranks().zip(s.counts) {
        if entry == last {
            continue;
        }
        last = entry;
        if entry >= CURVES {
            break;
        }
        for k in 0..=CURVE_POINTS {
            let n = count.saturating_mul(k) / CURVE_POINTS;
            w.begin_object();
            w.key("worker");
            w.raw_str(name);
            w.key("items");
            w.u64(n);
            w.key("seconds");
            w.f64(s.time(entry, n));
            w.end_object();
        }
    }
    w.end_array();
    w.key("plan");
    w.begin_array();
    let mut offset = 0u64;
    for (rank, ((name, entry), &count)) in s.ranks().zip(s.counts).enumerate() {
        begin_row(&mut w, name, rank, count, offset);
        w.key("finish");
        w.f64(s.time(entry, count));
        w.end_object();
        offset += count;
    }
    w.end_array();
    w.end_object();
    w.end("result JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_words_name_the_limit() {
        assert_eq!(CAPACITY_RANGE.says, std::format!("{} to {MAX_POINTS} points", CAPACITY_RANGE.min));
    }

    #[test]
    fn every_option_has_one_name_and_is_listed() {
        crate::doc::names::complete(
            &SOLVERS,
            &[None, Some(Solver::Theorem1), Some(Solver::Eq5), Some(Solver::Theorem2)],
        );
        crate::doc::names::complete(
            &COST_KIND,
            &[CostKind::Linear, CostKind::Power, CostKind::NLogN, CostKind::Table],
        );
        crate::doc::names::complete(&LEARN_REPAIR, &[Repair::Mean, Repair::Max]);
    }
}
