//! The scatter model's documents: platform files in, result documents out, strict JSON
//! without allocation (genaud2003; the slides' bus and star).
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
//! divload choose the root (genaud2003 §3.4). Unknown and repeated keys are errors, so a
//! misspelt key never goes unnoticed. Names may hold any JSON string; result documents
//! spell them exactly as the platform did.
//!
//! Memory is the caller's: [`sizes`] reads the document to count its entries,
//! [`parse_platform`] fills that many [`WorkerEntry`]s, and [`PlatformFile::problem`]
//! expands the entries into a slice of workers.

mod installments;

use crate::doc::json::{Str, Writer};
use crate::doc::model::{
    limits, shares_in_order, timeline_document, written, Effort, Memory, Model, Name, Planned,
};
use crate::doc::names::Names;
use crate::doc::schema::{field, Field as Key, Kind, Phase, AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::doc::{begin_result, begin_row, check_workers, missing, unique_names, Doc, Keys};
use crate::error::{Detail, Error, Field};
use crate::kernel::columns::Words;
use crate::num::Real;
use crate::platform::cost::{Affine, Cost, PowerLaw, Tabulated, WorkerCosts};
use crate::platform::worker::{check, Worker};
use crate::scatter::exact::CostProblem;
use crate::scatter::installments::{Installments, RootWork, MAX_INSTALLMENTS};
use crate::scatter::sampled::Sampled;
pub use crate::scatter::Solver;
use crate::scatter::{
    Assignment, Options, OrderPolicy, Problem, Root, RootCandidate, RootMode, Rounding, Scratch, Summary,
};

/// When the root computes, or that it only distributes ([`RootWork`]; the one-round
/// solvers take [`RootMode`]'s two).
pub const ROOT_MODE: Names<RootWork> = Names {
    key: "root_mode",
    table: &[
        ("after_send", RootWork::AfterSend),
        ("overlap", RootWork::Overlap),
        ("distribute_only", RootWork::None),
    ],
    expected: "must be \"after_send\", \"overlap\" or \"distribute_only\"",
};

/// The send order ([`OrderPolicy`]).
pub const ORDER: Names<OrderPolicy> = Names {
    key: "order",
    table: &[
        ("bandwidth", OrderPolicy::Bandwidth),
        ("given", OrderPolicy::Given),
        ("search", OrderPolicy::Search),
    ],
    expected: "must be \"bandwidth\", \"given\" or \"search\"",
};

/// The rounding scheme ([`Rounding`]).
pub const ROUNDING: Names<Rounding> = Names {
    key: "rounding",
    table: &[
        ("greedy", Rounding::Greedy),
        ("largest_remainder", Rounding::LargestRemainder),
        ("paper", Rounding::Paper),
    ],
    expected: "must be \"greedy\", \"largest_remainder\" or \"paper\"",
};

/// The scatter's solver ([`Solver`]).
pub const SOLVER: Names<Solver> = Names {
    key: "solver",
    table: &[
        ("auto", Solver::Auto),
        ("closed_form", Solver::ClosedForm),
        ("exact", Solver::Exact),
        ("sampled", Solver::Sampled),
    ],
    expected: "must be \"auto\", \"closed_form\", \"exact\" or \"sampled\"",
};

/// Most points of a tabulated cost in a platform file.
pub const MAX_POINTS: usize = 32;

/// The scatter model in the registry.
#[derive(Debug)]
pub struct Scatter;

impl Model for Scatter {
    const TITLE: &'static str = "a root serves the workers one at a time, then they compute (MPI_Scatterv)";
    const PAPER: &'static str =
        "Genaud, Giersch, Vivien 2003 (Thm 1-3, Algorithms 1-2); slides \"bus\" and \"star\"";
    const EXAMPLE: &'static str = EXAMPLE;
    const SCHEMA: &'static [Key] = &[
        ITEMS,
        field("root", Kind::Text, "the worker holding the data"),
        field("root_mode", Kind::Choice(&ROOT_MODE), "root computes after or while sending, or only sends"),
        field("order", Kind::Choice(&ORDER), "send order"),
        field("rounding", Kind::Choice(&ROUNDING), "rounding to whole items"),
        field("solver", Kind::Choice(&SOLVER), "closed form or DP"),
        field("workers", Kind::List(WORKER_FIELDS), ""),
        field(
            "root_candidates",
            Kind::List(&[
                field("name", Kind::Text, ""),
                Key { unit: "s", ..field("transfer_latency", Kind::Number(NON_NEGATIVE), "") },
                Key { unit: "s/item", ..field("transfer_per_item", Kind::Number(NON_NEGATIVE), "") },
            ]),
            "instead of root: where the data may be moved",
        ),
        field("installments", Kind::Json, "chunks per worker at most: 1..64 or \"auto\""),
        Key {
            unit: "s",
            ..field("deadline", Kind::Number(POSITIVE), "plan the most items finished by then")
        },
    ];
    const GANTT: &'static [Phase] = &[
        Phase { label: "receive", start: "start", end: "received" },
        Phase { label: "compute", start: "received", end: "finish" },
    ];

    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        let (file, entries, candidates) = read_doc(text, memory)?;
        if file.installments.is_some() {
            return installments::plan(file, entries, memory);
        }
        let run = solve_doc(file, entries, candidates, memory)?;
        let summary = run.solved.summary;
        let document = written(memory, |buf| write_result(&run.file, run.entries, &summary, run.plan, buf))?;
        // Every worker has its place in the send order, the root's and those given nothing too.
        let rows = run.plan.iter().take(run.file.workers).map(|a| (a.worker, a.count, a.displacement, true));
        let shares = shares_in_order(memory, run.file.workers, rows)?;
        Ok(Planned { document, report: summary.report(), shares, pieces: &[] })
    }

    /// The exact DP's worst case is Θ(n²) per worker (genaud2003 Algorithm 1; the pruning
    /// usually does far better), the sampled DP's Θ(K²) per worker and level.
    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error> {
        let sizes = sizes(text)?;
        let entries = memory.slice("worker entries", sizes.entries, WorkerEntry::EMPTY)?;
        let candidates = memory.slice("root candidates", sizes.candidates, CandidateEntry::EMPTY)?;
        let file = parse_platform(text, entries, candidates)?;
        let p = file.workers as u64;
        if let Some(installments) = file.installments {
            // Rounds tried, each sequence sized twice (with and without the root's share)
            // by at most 64 Newton steps of an LP whose simplex takes about `rows` pivots
            // of `rows × width` each (`scatter::installments`, at most 64 chunks).
            let rounds = match installments {
                Installments::Auto => 64,
                Installments::AtMost(r) => u64::from(r),
            };
            let k = p.saturating_mul(rounds).min(64);
            let lp = (3 * k + 3).pow(2).saturating_mul(4 * k + 4);
            return Ok(Effort { workers: p, work: rounds.saturating_mul(2 * 64).saturating_mul(lp) });
        }
        let work = match file.solver(None) {
            Solver::Exact => p.saturating_mul(file.items.saturating_add(1).saturating_pow(2)),
            Solver::Sampled => p.saturating_mul((limits::SAMPLES as u64).pow(2)).saturating_mul(4),
            _ => p.saturating_mul(64).saturating_mul(file.candidates.max(1) as u64),
        };
        // The order search: 2^(p−1) sets, each line extended by every worker left, each
        // kept among a set's lines (`scatter::search`).
        let q = p.saturating_sub(1);
        let work = match file.options.order {
            OrderPolicy::Search if q as usize <= crate::scatter::search::MAX_EXACT_WORKERS => work
                .saturating_add(
                    (1u64 << q)
                        .saturating_mul(q)
                        .saturating_mul(crate::scatter::search::LINES_PER_SET.pow(2) as u64),
                ),
            _ => work,
        };
        Ok(Effort { workers: p, work })
    }

    /// One host per rank; a link from the root to each other rank (its `comm_latency`,
    /// and the bandwidth its per-item time gives, one byte per item); the root one actor
    /// sending in the send order (then computing, after_send; or a second actor computing
    /// from the start, overlap), each other worker receiving then computing.
    fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        if let Some(document) = installments::timeline(text, memory)? {
            return Ok(Some(document));
        }
        let run = run(text, memory, "has a timeline of its own (installments::timeline)")?;
        let (plan, root) = (run.plan, run.solved.summary.root);
        let overlap = run.file.options.root_mode == crate::RootMode::Overlap;
        // The receive time's fixed part: the affine latency, when the closed form's workers are there.
        let latency = |w: usize| run.workers.and_then(|ws| ws.get(w)).map_or(0.0, |x| x.comm_latency);
        let served = || plan.iter().filter(|a| a.worker != root && a.count > 0);
        let link = |a: &Assignment<f64>| {
            let lat = latency(a.worker).min(a.received - a.start);
            let per_items = a.received - a.start - lat;
            // One byte per item at the rate the model gives; a transfer of no time per item is a
            // message of no bytes (its latency alone).
            if per_items > 0.0 {
                (a.count as f64 / per_items, lat, a.count as f64)
            } else {
                (1.0, lat, 0.0)
            }
        };
        let root_row = plan.iter().find(|a| a.worker == root);
        let sent = served().map(|a| a.received).fold(0.0, f64::max);
        let root_busy = root_row.is_some_and(|a| a.count > 0);
        let root_comp = root_row.map_or(0.0, |a| a.finish - a.received);
        let document = timeline_document(memory, |t| {
            t.0.key("hosts");
            t.0.begin_array();
            for rank in 0..run.file.workers {
                t.host(rank as u64, Name::Doc(name_of(run.entries, rank)));
            }
            t.0.end_array();
            t.0.key("links");
            t.0.begin_array();
            for a in served() {
                let (bandwidth, latency, _) = link(a);
                t.link(a.worker as u64, bandwidth, latency);
            }
            t.0.end_array();
            t.0.key("routes");
            t.0.begin_array();
            for a in served() {
                t.route(root as u64, a.worker as u64, a.worker as u64);
            }
            t.0.end_array();
            t.0.key("actors");
            t.0.begin_array();
            let root_name = Name::Doc(name_of(run.entries, root));
            // The root: its sends in order, then its own share (after_send), or its share
            // in a second actor from the start (overlap).
            t.actor(0, root as u64, root_name);
            for a in served() {
                t.send(a.worker as u64, link(a).2);
            }
            if root_busy && !overlap {
                t.compute(root_comp);
                t.end(root_row.map_or(sent, |a| a.finish));
            } else {
                t.end(sent);
            }
            if root_busy && overlap {
                t.actor(1, root as u64, root_name);
                t.compute(root_comp);
                t.end(root_row.map_or(0.0, |a| a.finish));
            }
            for a in served() {
                t.actor(a.worker as u64 + 2, a.worker as u64, Name::Doc(name_of(run.entries, a.worker)));
                t.recv(a.worker as u64);
                t.compute(a.finish - a.received);
                t.end(a.finish);
            }
            t.0.end_array();
        })?;
        Ok(Some(document))
    }

    /// `{"even": schedule, "reversed": schedule}`, a schedule being `{"makespan", "rows":
    /// [{"rank", "count", "start", "received", "finish"}]}` in send order: the even split
    /// (`MPI_Scatter`) in the planned order, and the balanced plan for the reverse order
    /// (slowest link first, the root in its place), which shows what the order is worth
    /// (Thm 3). For affine costs only: other costs have no closed form to compare.
    fn baselines<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<&'m [u8], Error> {
        let run = run(text, memory, "has no baselines for plans with installments yet: the result's uniform_makespan is the even split")?;
        let Some(workers) = run.workers else {
            return Err(Error::json(
                "the calculator compares schedules for affine costs only; tabulated and power-law costs are planned without them",
                Detail::Entry { list: "workers", index: usize::MAX, field: "" },
            ));
        };
        let (plan, root, options, items) =
            (run.plan, run.solved.summary.root, run.file.options, run.file.items);
        let n = plan.len();
        let even = memory.slice("even split", n, Assignment::EMPTY)?;
        for (k, (e, a)) in even.iter_mut().zip(plan).enumerate() {
            *e = Assignment {
                worker: a.worker,
                count: crate::scatter::even_split_count(items, n, k),
                ..Assignment::EMPTY
            };
        }
        crate::scatter::evaluate(workers, root, options.root_mode, items, even)?;
        // The reversed order, the root in its place: last after sending, first when it
        // overlaps (the order policy puts it there).
        let order = memory.slice("reversed order", n, 0usize)?;
        let others = plan.iter().rev().map(|a| a.worker).filter(|&w| w != root);
        for (slot, w) in order.iter_mut().zip(others.chain(core::iter::once(root))) {
            *slot = w;
        }
        let permuted = memory.slice("reversed order", n, Worker::linear(0.0, 1.0))?;
        for (p, &w) in permuted.iter_mut().zip(order.iter()) {
            *p = workers.get(w).copied().unwrap_or(*p);
        }
        let options = Options { order: crate::OrderPolicy::Given, ..options };
        let problem = Problem { workers: permuted, root: Root::Fixed(n - 1), items, options };
        let reversed = memory.slice("reversed plan", n, Assignment::EMPTY)?;
        let scratch = memory.slice("reversed plan", n, Scratch::EMPTY)?;
        crate::plan(&problem, reversed, scratch)?;
        for a in reversed.iter_mut() {
            a.worker = order.get(a.worker).copied().unwrap_or(a.worker);
        }
        let (even, reversed): (&[Assignment<f64>], &[Assignment<f64>]) = (even, reversed);
        written(memory, |buf| {
            let mut w = Writer::new(buf);
            w.begin_object();
            for (key, rows) in [("even", even), ("reversed", reversed)] {
                w.key(key);
                w.begin_object();
                w.key("makespan");
                w.f64(rows.iter().map(|a| a.finish).fold(0.0, f64::max));
                w.key("rows");
                w.begin_array();
                for a in rows {
                    w.begin_object();
                    w.key("rank");
                    w.u64(a.worker as u64);
                    w.key("count");
                    w.u64(a.count);
                    w.numbers(&[("start", a.start), ("received", a.received), ("finish", a.finish)]);
                    w.end_object();
                }
                w.end_array();
                w.end_object();
            }
            w.end_object();
            w.end("baselines JSON")
        })
    }
}

/// A document read and solved in a front end's memory.
struct Run<'s> {
    file: PlatformFile<'s>,
    entries: &'s [WorkerEntry<'s>],
    solved: Solved<f64>,
    /// The plan, in send order.
    plan: &'s [Assignment<f64>],
    /// The workers by rank when the closed form ran on them (affine costs), else `None`.
    workers: Option<&'s [Worker<f64>]>,
}

/// A document read into `memory`: the file, its worker entries and root candidates.
type Read<'s> = (PlatformFile<'s>, &'s [WorkerEntry<'s>], &'s [CandidateEntry<'s>]);

/// Reads a document into buffers from `memory`, checking its names and its size.
fn read_doc<'s, M: Memory>(text: &'s [u8], memory: &'s M) -> Result<Read<'s>, Error> {
    // Sized from what the reader found, so a document of B bytes never asks for more than
    // a constant times B before its limits are checked.
    let sizes = sizes(text)?;
    let entries = memory.slice("worker entries", sizes.entries, WorkerEntry::EMPTY)?;
    let candidates = memory.slice("root candidates", sizes.candidates, CandidateEntry::EMPTY)?;
    let file = parse_platform(text, entries, candidates)?;
    let entries: &[WorkerEntry<'_>] = entries.get(..file.entries).unwrap_or(entries);
    let candidates: &[CandidateEntry<'_>] = candidates.get(..file.candidates).unwrap_or(candidates);
    unique_names(memory, "workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
    unique_names(memory, "root_candidates", file.candidates, &|i| candidates.get(i).map(|c| c.name))?;
    check_workers("workers", file.workers as u64)?;
    Ok((file, entries, candidates))
}

/// Reads a document with the one-round solvers (installment documents are refused with
/// `what`, the front end's question they have no answer to yet) and solves it.
fn run<'s, M: Memory>(text: &'s [u8], memory: &'s M, what: &'static str) -> Result<Run<'s>, Error> {
    let (file, entries, candidates) = read_doc(text, memory)?;
    if file.installments.is_some() {
        return Err(crate::doc::missing("installments", what));
    }
    solve_doc(file, entries, candidates, memory)
}

/// Sizes every buffer from [`PlatformFile::needs`], takes them from `memory` and solves
/// with the document's solver.
fn solve_doc<'s, M: Memory>(
    file: PlatformFile<'s>,
    entries: &'s [WorkerEntry<'s>],
    candidates: &'s [CandidateEntry<'s>],
    memory: &'s M,
) -> Result<Run<'s>, Error> {
    let solver = file.solver(None);
    let needs = file.needs(solver)?;
    let dp_bytes = needs.dp_bytes::<f64>();
    if dp_bytes > limits::MAX_DP_BYTES {
        return Err(Error::limit(
            "exact DP memory in bytes, (4 × (workers − 1) + 8) × (items + 1); \
             use \"solver\": \"sampled\" or fewer items",
            limits::MAX_DP_BYTES,
            dp_bytes,
        ));
    }
    let workers = memory.slice("workers", needs.workers, Worker::linear(0.0, 1.0))?;
    let roots = memory.slice("root candidates", needs.candidates, RootCandidate::local(0))?;
    let zero = Cost::Affine(Affine::new(0.0, 0.0)?);
    let costs =
        memory.slice("cost functions", needs.costs, WorkerCosts { comm: zero.clone(), comp: zero })?;
    let plan = memory.slice("plan", needs.workers, Assignment::EMPTY)?;
    let scratch = memory.slice("scratch", needs.workers, Scratch::EMPTY)?;
    let dp_choices = memory.slice("exact DP", needs.dp_choices, 0u32)?;
    let dp_costs = memory.slice("exact DP", needs.dp_costs, 0.0f64)?;
    // The sampled DP's workspace as its two arrays, each from the memory directly: a
    // `Sampled` value built first would pass through the stack (wasm's is 1 MiB).
    let sampled = match solver {
        Solver::Sampled => {
            let choices =
                memory.slice("sampled DP workspace", limits::SAMPLED_WORKERS, [0u16; limits::SAMPLES])?;
            let costs = memory.slice("sampled DP workspace", limits::SAMPLES, 0.0f64)?;
            match (
                <&mut [_; limits::SAMPLED_WORKERS]>::try_from(choices),
                <&mut [_; limits::SAMPLES]>::try_from(costs),
            ) {
                (Ok(choices), Ok(costs)) => Some(SampledMemory { choices, costs }),
                _ => return Err(Error::buffer("sampled DP workspace", limits::SAMPLES, 0)),
            }
        }
        _ => None,
    };
    let search = memory.slice("order search", needs.search, crate::scatter::search::Line::EMPTY)?;
    let buffers = Buffers {
        workers: &mut *workers,
        candidates: roots,
        costs,
        out: &mut *plan,
        scratch,
        dp_choices,
        dp_costs,
        sampled,
        search,
    };
    let solved =
        solve(&file, entries, candidates, solver, buffers, |done, total| memory.progress(done, total))?;
    // `workers` holds the affine costs only where the closed form expanded them.
    let closed = solver == Solver::ClosedForm || solved.closed_form.is_some();
    Ok(Run { file, entries, solved, plan, workers: closed.then_some(&*workers) })
}

/// `items`, as every model with workers has it.
pub(crate) const ITEMS: Key = field("items", Kind::Integer(AT_LEAST_ONE), "items to split");
/// `name` and `count` of a worker entry.
pub(crate) const NAME: Key = field("name", Kind::Text, "");
pub(crate) const COUNT: Key =
    Key { default: "1", ..field("count", Kind::Integer(AT_LEAST_ONE), "identical copies") };
/// The computing cost of a worker entry, in its three shapes.
pub(crate) const COMP_PER_ITEM: Key =
    Key { unit: "s/item", ..field("comp_per_item", Kind::Number(POSITIVE), "") };
pub(crate) const COMP_LATENCY: Key =
    Key { unit: "s", default: "0", ..field("comp_latency", Kind::Number(NON_NEGATIVE), "") };
pub(crate) const COMP_TABLE: Key = field("comp_table", Kind::Json, "[[items, s], ...] instead");
pub(crate) const COMP_POWER: Key = field("comp_power", Kind::Json, "{coeff, exponent, latency} instead");
pub(crate) const REPAIR: Key = field("repair", Kind::Flag, "smooth noisy tables");

const WORKER_FIELDS: &[Key] = &[
    NAME,
    COUNT,
    Key { unit: "s/item", ..field("comm_per_item", Kind::Number(NON_NEGATIVE), "") },
    Key { unit: "s", default: "0", ..field("comm_latency", Kind::Number(NON_NEGATIVE), "") },
    COMP_PER_ITEM,
    COMP_LATENCY,
    field("comm_table", Kind::Json, "[[items, s], ...] instead"),
    COMP_TABLE,
    field("comm_power", Kind::Json, "{coeff, exponent, latency} instead"),
    COMP_POWER,
    REPAIR,
    field("max_items", Kind::Integer(NON_NEGATIVE), "most items in one installment"),
    Key {
        unit: "s",
        default: "0",
        ..field("available_at", Kind::Number(NON_NEGATIVE), "computes no earlier")
    },
];

const EXAMPLE: &str = r#"{
  "version": 1,
  "model": "scatter",
  "comment": "genaud2003 Table 1: 16 processors on two sites, root dinadan, 817101 rays. comm_per_item = lambda, comp_per_item = mu (s/item).",
  "items": 817101,
  "root": "dinadan",
  "root_mode": "after_send",
  "order": "bandwidth",
  "rounding": "greedy",
  "solver": "auto",
  "workers": [
    {"name": "dinadan",   "count": 1, "comm_per_item": 0,       "comp_per_item": 0.009288},
    {"name": "pellinore", "count": 1, "comm_per_item": 1.12e-5, "comp_per_item": 0.009365},
    {"name": "caseb",     "count": 1, "comm_per_item": 1.00e-5, "comp_per_item": 0.004629},
    {"name": "sekhmet",   "count": 1, "comm_per_item": 1.70e-5, "comp_per_item": 0.004885},
    {"name": "merlin",    "count": 2, "comm_per_item": 8.15e-5, "comp_per_item": 0.003976},
    {"name": "seven",     "count": 2, "comm_per_item": 2.10e-5, "comp_per_item": 0.016156},
    {"name": "leda",      "count": 8, "comm_per_item": 3.53e-5, "comp_per_item": 0.009677}
  ]
}
"#;

/// The shape of one cost of a worker entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CostModel<'a> {
    /// `latency + per_item·x` from the `*_latency` and `*_per_item` keys.
    Affine,
    /// Measured points `[items, seconds]` (`*_table`).
    Table(Table<'a>),
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

/// A `*_table` as the document writes it: the array's text, checked when it was read and
/// read again into points when the costs are built. The points themselves (520 bytes for
/// [`MAX_POINTS`]) in every entry made an entry 1.1 KB, and a 10⁶-worker document of
/// 83 MB took 1.5 GB to plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table<'a> {
    text: &'a [u8],
}

impl Table<'_> {
    /// The points `[items, seconds]` in document order: the first `len` of the array.
    ///
    /// # Errors
    ///
    /// None for a table of a parsed document (its text was read once already).
    pub fn points(&self) -> Result<([(u64, f64); MAX_POINTS], usize), Error> {
        read_points(&mut Doc::new(self.text), usize::MAX, "")
    }
}

/// One object of the `workers` array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkerEntry<'a> {
    /// Machine name, as written in the file.
    pub name: Str<'a>,
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
    pub comm_model: CostModel<'a>,
    /// Shape of the compute cost.
    pub comp_model: CostModel<'a>,
    /// Repair tables whose times decrease (cerin2006 §3.3) instead of rejecting them.
    pub repair: bool,
    /// The most items it may hold in one installment (`max_items`; `u64::MAX`, no cap, when
    /// absent: an `Option` would make the entry 8 bytes longer, 8 MB in 10⁶).
    pub max_items: u64,
    /// When it may start computing, seconds ≥ 0 (`available_at`; 0 when absent).
    pub available_at: f64,
}

impl WorkerEntry<'_> {
    /// `true` when both costs are affine.
    pub fn is_affine(&self) -> bool {
        self.comm_model == CostModel::Affine && self.comp_model == CostModel::Affine
    }

    /// An empty entry, for initialising buffers.
    pub const EMPTY: WorkerEntry<'static> = WorkerEntry {
        name: Str::EMPTY,
        count: 1,
        first_rank: 0,
        comm_latency: 0.0,
        comm_per_item: 0.0,
        comp_latency: 0.0,
        comp_per_item: 0.0,
        comm_model: CostModel::Affine,
        comp_model: CostModel::Affine,
        repair: false,
        max_items: u64::MAX,
        available_at: 0.0,
    };
}

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

const POWER: Keys = Keys {
    names: &["coeff", "exponent", "latency"],
    unknown: "unknown key (expected coeff, exponent, latency)",
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
                let v = d.f64()?;
                if !(v.is_finite() && v > 0.0) {
                    return Err(Error::parameter("deadline", "finite and > 0", v));
                }
                deadline = Some(v);
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
                    return Err(Error::json("must be at least 1", at("count")));
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
                let v = d.f64()?;
                if !(v.is_finite() && v >= 0.0) {
                    return Err(Error::entry_value("workers", i, "available_at", "finite and >= 0", v));
                }
                e.available_at = v;
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
            "comm_latency" => Field::CommLatency,
            "comm_per_item" => Field::CommPerItem,
            "comp_latency" => Field::CompLatency,
            _ => Field::CompPerItem,
        };
        let v = d.f64()?;
        if check(i, field, v).is_err() {
            return Err(Error::entry_cost("workers", i, field, v));
        }
        if matches!(field, Field::CommPerItem | Field::CompPerItem)
            && given[usize::from(field == Field::CompPerItem)]
        {
            return Err(one_shape(at(k)));
        }
        match field {
            Field::CommLatency => (e.comm_latency, latency[0]) = (v, true),
            Field::CommPerItem => (e.comm_per_item, given[0]) = (v, true),
            Field::CompLatency => (e.comp_latency, latency[1]) = (v, true),
            _ => (e.comp_per_item, given[1]) = (v, true),
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

/// `{"coeff", "exponent", "latency"}` of a power-law cost.
/// `compute`: a computing cost, whose coefficient must be > 0 (a worker that computes in
/// no time would take every item and plan a makespan of 0).
pub(crate) fn read_power<'a>(
    d: &mut Doc<'a>,
    i: usize,
    field: &'static str,
    compute: bool,
) -> Result<CostModel<'a>, Error> {
    d.object()?;
    let mut seen = 0u64;
    let (mut coeff, mut exponent, mut latency) = (None, None, 0.0);
    while let Some(k) = d.key(&POWER, &mut seen)? {
        let v = d.f64()?;
        match k {
            "coeff" => coeff = Some(v),
            "exponent" => exponent = Some(v),
            _ => latency = v,
        }
    }
    d.field(field);
    let bad =
        |message, value| Error::json(message, Detail::Number { list: "workers", index: i, field, value });
    let (Some(coeff), Some(exponent)) = (coeff, exponent) else {
        return Err(Error::json(
            "needs coeff and exponent",
            Detail::Entry { list: "workers", index: i, field },
        ));
    };
    if !(latency.is_finite() && latency >= 0.0) {
        return Err(bad("latency must be finite and >= 0", latency));
    }
    let (in_range, message) = if compute {
        (coeff > 0.0, "coeff must be finite and > 0")
    } else {
        (coeff >= 0.0, "coeff must be finite and >= 0")
    };
    if !(coeff.is_finite() && in_range) {
        return Err(bad(message, coeff));
    }
    if !(0.01..=64.0).contains(&exponent) {
        return Err(bad("exponent must be in 0.01..=64", exponent));
    }
    Ok(CostModel::Power { latency, coeff, exponent })
}

/// `[[items, seconds], ...]`, at most [`MAX_POINTS`] points.
pub(crate) fn read_table<'a>(d: &mut Doc<'a>, i: usize, field: &'static str) -> Result<CostModel<'a>, Error> {
    let start = d.offset();
    read_points(d, i, field)?;
    Ok(CostModel::Table(Table { text: d.since(start) }))
}

fn read_points(
    d: &mut Doc<'_>,
    i: usize,
    field: &'static str,
) -> Result<([(u64, f64); MAX_POINTS], usize), Error> {
    let at = Detail::Entry { list: "workers", index: i, field };
    let mut points = [(0u64, 0.0f64); MAX_POINTS];
    let mut len = 0usize;
    d.array()?;
    while d.element()? {
        let offset = d.offset();
        d.array()?;
        let size =
            if d.element()? { d.u64()? } else { return Err(d.error("expected [items, seconds]", offset)) };
        let secs =
            if d.element()? { d.f64()? } else { return Err(d.error("expected [items, seconds]", offset)) };
        if d.element()? {
            return Err(d.error("expected [items, seconds]", offset));
        }
        let Some(slot) = points.get_mut(len) else {
            return Err(Error::json("at most 32 points", at));
        };
        *slot = (size, secs);
        len += 1;
    }
    if len == 0 {
        return Err(Error::json("needs at least one [items, seconds] point", at));
    }
    Ok((points, len))
}

/// Checks measured points: times finite and ≥ 0, and for a computing cost (`comp_table`)
/// positive wherever items are, as for `comp_per_item`; unless `repair`, sizes strictly
/// increasing and times not decreasing.
pub(crate) fn check_table(
    table: Table<'_>,
    index: usize,
    field: &'static str,
    repair: bool,
) -> Result<(), Error> {
    let (points, len) = table.points()?;
    let points = &points[..len.min(MAX_POINTS)];
    let at = |point: usize, value: f64| Detail::Point { list: "workers", index, field, point, value };
    for (k, &(size, secs)) in points.iter().enumerate() {
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(Error::json("seconds must be finite and >= 0", at(k, secs)));
        }
        if secs == 0.0 && size > 0 && field == "comp_table" {
            return Err(Error::json(
                "seconds must be > 0 where items > 0 (computing takes time)",
                at(k, secs),
            ));
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
            let field = if k == "transfer_latency" { Field::TransferLatency } else { Field::TransferPerItem };
            let v = d.f64()?;
            if check(n, field, v).is_err() {
                return Err(Error::entry_cost("root_candidates", n, field, v));
            }
            if field == Field::TransferLatency {
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
        self.problem_in(entries, candidates, workers, root_candidates, &mut [])
    }

    /// [`PlatformFile::problem`], with `index` (as long as the entries, else unused) for
    /// finding the names of many root candidates: the entries' names sorted by hash, one
    /// binary search per candidate instead of a scan of the entries (O(c·p): 18 s for
    /// 10⁵ workers that are all candidates).
    fn problem_in<'w, N: Real>(
        &self,
        entries: &[WorkerEntry<'a>],
        candidates: &[CandidateEntry<'a>],
        workers: &'w mut [Worker<N>],
        root_candidates: &'w mut [RootCandidate<N>],
        index: &mut [Scratch<N>],
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
                let names = NameIndex::new(entries, cands.len(), index);
                for (i, c) in cands.iter().enumerate() {
                    let conv = |field: Field, v: f64| {
                        N::from_f64(v).ok_or(Error::not_representable(i, field, v, N::NAME))
                    };
                    root_candidates[i] = RootCandidate {
                        worker: names.rank_of(c.name, "root_candidates", i)?,
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
pub(crate) fn cost_of<N: Real>(
    model: CostModel<'_>,
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
        CostModel::Table(t) => {
            let (points, len) = t.points()?;
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
    /// [`Buffers::search`]: the order search's lines with `"order": "search"` and at most
    /// [`MAX_EXACT_WORKERS`](crate::scatter::search::MAX_EXACT_WORKERS) workers besides
    /// the root in the closed form, else 0.
    pub search: usize,
}

impl Needs {
    /// Bytes of the exact DP's buffers with the number type `N` (0 for other solvers).
    pub fn dp_bytes<N>(&self) -> u64 {
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
    pub sampled: Option<SampledMemory<'b, N, K, P>>,
    /// The order search's lines (empty: the bandwidth order).
    pub search: &'b mut [crate::scatter::search::Line],
}

/// The sampled DP's working memory as two arrays (a [`Sampled`]'s, or taken from an
/// allocator separately: [`crate::scatter::sampled::solve_in`]).
#[derive(Debug)]
pub struct SampledMemory<'b, N, const K: usize, const P: usize> {
    /// The plan DP's choices, one row of `K` per position.
    pub choices: &'b mut [[u16; K]; P],
    /// One DP row of costs.
    pub costs: &'b mut [N; K],
}

impl<'b, N: Real, const K: usize, const P: usize> From<&'b mut Sampled<N, K, P>>
    for SampledMemory<'b, N, K, P>
{
    fn from(s: &'b mut Sampled<N, K, P>) -> Self {
        let (choices, costs) = s.arrays();
        SampledMemory { choices, costs }
    }
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
            search: match self.options.order {
                OrderPolicy::Search if closed => {
                    crate::scatter::search::search_memory(self.workers).unwrap_or(0)
                }
                _ => 0,
            },
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
        let problem = file.problem_in(entries, candidates, buf.workers, buf.candidates, buf.scratch)?;
        Some(crate::scatter::plan_searched(&problem, buf.out, buf.scratch, buf.search)?)
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
            crate::scatter::sampled::solve_in(work.choices, work.costs, &problem, buf.out)?
        }
    };
    // The rational relaxation bounds every plan in its send order: tighten the DP's bound
    // only when the DP served the workers in that same order.
    let p = file.workers;
    let same_order = closed_form.is_some_and(|c| {
        crate::scatter::order::is_send_order(
            &buf.workers[..p],
            c.root,
            file.options.root_mode,
            file.options.order,
            &mut buf.scratch[..p],
            &buf.out[..p],
        )
    });
    let summary = match closed_form {
        Some(c) if same_order => Summary {
            rational_makespan: c.rational_makespan,
            lower_bound: summary.lower_bound.max_of(c.lower_bound),
            ..summary
        },
        _ => summary,
    };
    Ok(Solved { summary, closed_form })
}

/// Rank of the first worker of the entry called `name`.
fn rank_of(
    entries: &[WorkerEntry<'_>],
    name: Str<'_>,
    list: &'static str,
    index: usize,
) -> Result<usize, Error> {
    first_rank(entries.iter().find(|e| e.name == name), list, index)
}

/// The first rank of the entry a name was found at, or the error for a name no entry has.
fn first_rank(found: Option<&WorkerEntry<'_>>, list: &'static str, index: usize) -> Result<usize, Error> {
    found
        .and_then(|e| usize::try_from(e.first_rank).ok())
        .ok_or(Error::json("names no worker in workers", Detail::Entry { list, index, field: "name" }))
}

/// The entries' names sorted by hash: record `k` holds a hash and an entry index in its
/// first two words, equal hashes in entry order; `None` when a scan is as good (a few
/// candidates) or there is no room.
struct NameIndex<'e, 'a, 's, N> {
    entries: &'e [WorkerEntry<'a>],
    sorted: Option<&'s [Scratch<N>]>,
}

impl<'e, 'a, 's, N: Real> NameIndex<'e, 'a, 's, N> {
    /// Candidates up to this many are found by scanning the entries.
    const SCAN: usize = 16;

    fn new(entries: &'e [WorkerEntry<'a>], lookups: usize, index: &'s mut [Scratch<N>]) -> Self {
        let Some(index) = index.get_mut(..entries.len()).filter(|_| lookups > Self::SCAN) else {
            return NameIndex { entries, sorted: None };
        };
        for (i, (r, e)) in index.iter_mut().zip(entries).enumerate() {
            let w = r.words_mut();
            (w[0], w[1]) = (super::name_hash(e.name), i as u64);
        }
        crate::kernel::sort::sort_by(index, |a, b| {
            let (a, b) = (a.words(), b.words());
            (a[0], a[1]) < (b[0], b[1])
        });
        NameIndex { entries, sorted: Some(index) }
    }

    /// The first rank of the first entry named `name`.
    fn rank_of(&self, name: Str<'_>, list: &'static str, index: usize) -> Result<usize, Error> {
        let Some(sorted) = self.sorted else { return rank_of(self.entries, name, list, index) };
        let h = super::name_hash(name);
        let from = sorted.partition_point(|r| r.words()[0] < h);
        let found = sorted
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .take_while(|r| r.words()[0] == h)
            .filter_map(|r| self.entries.get(r.words()[1] as usize))
            .find(|e| e.name == name);
        first_rank(found, list, index)
    }
}

/// Name of the entry that worker `rank` belongs to.
pub fn name_of<'a>(entries: &[WorkerEntry<'a>], rank: usize) -> Str<'a> {
    super::entry_of(entries, rank, |e| (e.first_rank, e.count)).map_or(Str::EMPTY, |e| e.name)
}

/// `root`, `root_rank` and `root_mode` of a result, as every scatter result has them.
fn write_root(w: &mut Writer<'_>, file: &PlatformFile<'_>, entries: &[WorkerEntry<'_>], root: usize) {
    w.key("root");
    w.raw_str(name_of(entries, root));
    w.key("root_rank");
    w.u64(root as u64);
    w.key("root_mode");
    w.str(ROOT_MODE.name(file.root_work));
}

/// Writes the result document into `out` and returns its length in bytes.
///
/// `{"version": 1, "model": "scatter", "items", "root", "root_rank", "root_mode", "order",
/// "rounding", "method", "makespan", "rational_makespan", "rational_exact", "lower_bound",
/// "bound", "gap", "exact", "uniform_makespan", "speedup", "root_transfer",
/// "participating", "plan": [{"name", "rank", "count", "displacement", "share", "start",
/// "received", "finish", "participating"}]}`, with `plan` in send order and times in
/// seconds. Names are written exactly as the platform document spelt them.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) when `out` is too
/// small; [`Error::needed`] gives the exact length (call with an empty buffer to learn it).
pub fn write_result<N: Real>(
    file: &PlatformFile<'_>,
    entries: &[WorkerEntry<'_>],
    summary: &Summary<N>,
    plan: &[Assignment<N>],
    out: &mut [u8],
) -> Result<usize, Error> {
    let entries = entries.get(..file.entries).unwrap_or(entries);
    let mut w = Writer::new(out);
    let m = summary;
    let report = m.report();
    begin_result(&mut w, "scatter");
    w.key("items");
    w.u64(m.items);
    write_root(&mut w, file, entries, m.root);
    w.key("order");
    w.str(ORDER.name(file.options.order));
    w.key("rounding");
    w.str(ROUNDING.name(file.options.rounding));
    w.key("method");
    w.str(m.method.name());
    w.key("makespan");
    w.f64(m.makespan.to_f64());
    w.key("rational_makespan");
    w.f64(m.rational_makespan.to_f64());
    w.key("rational_exact");
    w.bool(m.rational_exact);
    w.key("lower_bound");
    w.f64(m.lower_bound.to_f64());
    w.key("bound");
    w.f64(m.bound.to_f64());
    w.key("gap");
    w.f64(report.gap().to_f64());
    w.key("exact");
    w.bool(report.exact);
    w.key("uniform_makespan");
    w.f64(m.uniform_makespan.to_f64());
    w.key("speedup");
    w.f64(m.speedup());
    w.key("root_transfer");
    w.f64(m.root_transfer.to_f64());
    w.key("participating");
    w.u64(m.participating as u64);
    w.key("plan");
    w.begin_array();
    for a in plan {
        begin_row(&mut w, name_of(entries, a.worker), a.worker, a.count, a.displacement);
        w.key("share");
        w.f64(a.share.to_f64());
        w.key("start");
        w.f64(a.start.to_f64());
        w.key("received");
        w.f64(a.received.to_f64());
        w.key("finish");
        w.f64(a.finish.to_f64());
        w.key("participating");
        w.bool(a.participating());
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
        crate::doc::names::complete(&ROOT_MODE, &[RootWork::AfterSend, RootWork::Overlap, RootWork::None]);
        crate::doc::names::complete(
            &ORDER,
            &[OrderPolicy::Given, OrderPolicy::Bandwidth, OrderPolicy::Search],
        );
        crate::doc::names::complete(
            &ROUNDING,
            &[Rounding::Paper, Rounding::LargestRemainder, Rounding::Greedy],
        );
        crate::doc::names::complete(
            &SOLVER,
            &[Solver::Auto, Solver::ClosedForm, Solver::Exact, Solver::Sampled],
        );
    }
    use crate::{plan, Assignment, Scratch};
    use std::string::ToString;

    const DOC: &[u8] = br#"{"items": 10, "root": "a", "workers": [
        {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
        {"name": "b", "count": 2, "comm_per_item": 0.1, "comp_per_item": 2}]}"#;

    /// Every rank's entry, by the direct look-up where an entry has one worker at its own
    /// index and by the search elsewhere: the same as walking the entries.
    #[test]
    fn each_rank_names_its_entry() {
        let doc = br#"{"items": 10, "root": "a", "workers": [
            {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
            {"name": "b", "count": 2, "comm_per_item": 0.1, "comp_per_item": 2},
            {"name": "c", "comm_per_item": 0.1, "comp_per_item": 2},
            {"name": "d", "count": 3, "comm_per_item": 0.1, "comp_per_item": 2},
            {"name": "e", "comm_per_item": 0.1, "comp_per_item": 2},
            {"name": "f", "comm_per_item": 0.1, "comp_per_item": 2}]}"#;
        let mut entries = [WorkerEntry::EMPTY; 6];
        parse_platform(doc, &mut entries, &mut []).unwrap();
        let mut rank = 0;
        for e in &entries {
            for _ in 0..e.count {
                assert_eq!(name_of(&entries, rank), e.name, "rank {rank}");
                rank += 1;
            }
        }
        assert_eq!(rank, 9);
        assert_eq!(name_of(&entries, 9), Str::EMPTY);
        // One worker per entry: every rank at its own index.
        let mut ones = [WorkerEntry::EMPTY; 6];
        parse_platform(DOC_ONES, &mut ones, &mut []).unwrap();
        for (i, e) in ones.iter().enumerate() {
            assert_eq!(name_of(&ones, i), e.name);
        }
    }

    const DOC_ONES: &[u8] = br#"{"items": 10, "root": "a", "workers": [
        {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
        {"name": "b", "comm_per_item": 0.1, "comp_per_item": 2},
        {"name": "c", "comm_per_item": 0.1, "comp_per_item": 2}]}"#;

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
        assert!(text.starts_with(r#"{"version":1,"model":"scatter","items":10,"root":"a","#), "{text}");
        assert_eq!(n, needed, "the stated size is exact");
        assert!(name_of(&entries, 2).eq_str("b"));
        assert!(name_of(&entries, 0).eq_str("a"));
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

    /// An entry keeps a table as its text: the points inline made every entry 1.1 KB, for
    /// the 83 bytes a worker takes in a large document (1.5 GB to plan 10⁶ workers).
    #[test]
    fn an_entry_keeps_its_tables_as_text() {
        assert!(
            core::mem::size_of::<WorkerEntry<'_>>() <= 160,
            "{}",
            core::mem::size_of::<WorkerEntry<'_>>()
        );
        let doc = br#"{"items": 10, "root": "a", "workers": [
            {"name": "a", "comm_table": [ [1, 0.5] ,[4,2e0] ], "comp_table": [[3, 1]], "count": 2}]}"#;
        let mut entries = [WorkerEntry::EMPTY; 1];
        parse_platform(doc, &mut entries, &mut []).unwrap();
        let (CostModel::Table(comm), CostModel::Table(comp)) = (entries[0].comm_model, entries[0].comp_model)
        else {
            panic!("tables expected: {:?}", entries[0]);
        };
        let (points, len) = comm.points().unwrap();
        assert_eq!(&points[..len], &[(1, 0.5), (4, 2.0)]);
        let (points, len) = comp.points().unwrap();
        assert_eq!(&points[..len], &[(3, 1.0)]);
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

    /// Many candidates are found through the sorted name hashes: the same ranks as the scan
    /// of the entries, escaped spellings and repeated names (the first entry) included,
    /// and the same error for a name no entry has.
    #[test]
    fn many_candidates_resolve_as_by_scanning() {
        use std::{format, string::String, vec, vec::Vec};
        let mut rnd = crate::num::xorshift(41);
        for case in 0..40 {
            let n = 1 + (rnd() % 60) as usize;
            let mut doc = String::from(r#"{"items": 100, "workers": ["#);
            let mut names = Vec::new();
            for i in 0..n {
                // Every seventh entry repeats an earlier name.
                let name = if i % 7 == 6 { names[(rnd() % i as u64) as usize] } else { i };
                names.push(name);
                let count = 1 + rnd() % 3;
                let sep = if i > 0 { "," } else { "" };
                doc += &format!(
                    r#"{sep}{{"name": "w{name}", "count": {count}, "comm_per_item": 0.1, "comp_per_item": 1}}"#
                );
            }
            doc += r#"], "root_candidates": ["#;
            let c = 17 + (rnd() % 40) as usize;
            let missing = (case % 4 == 0).then(|| (rnd() % c as u64) as usize);
            for k in 0..c {
                let i = names[(rnd() % n as u64) as usize];
                let name = match (Some(k) == missing, rnd() % 3) {
                    (true, _) => String::from("nobody"),
                    (false, 0) => format!(r"\u0077{i}"),
                    _ => format!("w{i}"),
                };
                let sep = if k > 0 { "," } else { "" };
                doc += &format!(r#"{sep}{{"name": "{name}"}}"#);
            }
            doc += "]}";
            let mut entries = vec![WorkerEntry::EMPTY; n];
            let mut cands = vec![CandidateEntry::EMPTY; c];
            let file = parse_platform(doc.as_bytes(), &mut entries, &mut cands).unwrap();
            let mut workers = vec![Worker::<f64>::linear(0.0, 1.0); file.workers];
            let mut scratch = vec![Scratch::<f64>::EMPTY; file.workers];
            let (mut scanned, mut indexed) =
                (vec![RootCandidate::local(0); c], vec![RootCandidate::local(0); c]);
            let ranks = |p: Result<Problem<'_, f64>, Error>| match p {
                Ok(Problem { root: Root::Choose(c), .. }) => {
                    Ok(c.iter().map(|c| c.worker).collect::<Vec<_>>())
                }
                Ok(_) => panic!("candidates expected"),
                Err(e) => Err(e.to_string()),
            };
            let a = ranks(file.problem(&entries, &cands, &mut workers, &mut scanned));
            let b = ranks(file.problem_in(&entries, &cands, &mut workers, &mut indexed, &mut scratch));
            assert_eq!(a, b, "case {case}: {doc}");
            assert_eq!(a.is_err(), missing.is_some(), "case {case}: {a:?}");
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
