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

#[cfg(feature = "scatter-installments")]
mod installments;
mod read;
mod solve;

pub use crate::doc::cost::{CostModel, Table, WorkerEntry, MAX_POINTS};
pub use read::{parse_platform, sizes, CandidateEntry, PlatformFile, Sizes};
pub use solve::{solve, Buffers, Needs, SampledMemory, Solved};

use crate::doc::cost::{COMP_LATENCY, COMP_PER_ITEM, COMP_POWER, COMP_TABLE, COUNT, ITEMS, NAME, REPAIR};
use crate::doc::json::{Str, Writer};
use crate::doc::model::{
    limits, shares_in_order, timeline_document, written, Effort, Memory, Model, Name, Planned,
};
use crate::doc::names::Names;
use crate::doc::schema::{field, Chart, ChartKind, Field as Key, Kind, Phase, NON_NEGATIVE, POSITIVE};
use crate::doc::{begin_result, begin_row, check_workers, unique_names, write_answer};
use crate::error::{Detail, Error};
use crate::num::Real;
use crate::platform::cost::{Affine, Cost, WorkerCosts};
use crate::platform::worker::Worker;
use crate::scatter::installments::{Installments, RootWork};
pub use crate::scatter::Solver;
use crate::scatter::{
    Assignment, Options, OrderPolicy, Problem, Root, RootCandidate, Rounding, Scratch, Summary,
};

/// What a build without the feature `scatter-installments` or `scatter-dp` (the page's
/// first scatter module, issue 44) says of a document that needs the installment planner
/// or a dynamic program: those two are most of the module, and the closed form plans the
/// documents a page starts from. Each message holds [`LEFT_OUT`] and then the module that
/// plans the document (`module scatter_installments`, `module scatter_dp`: the build with
/// that feature), by which the page knows which module to load and plan it again with.
pub const LEFT_OUT: &str = "left out of this build";

pub(crate) mod left_out {
    #[cfg(not(feature = "scatter-installments"))]
    pub(crate) fn installments() -> crate::error::Error {
        crate::error::Error::json(
            "installment plans (installments, max_items, available_at, deadline, a root that only distributes) are left out of this build: module scatter_installments plans them",
            crate::error::Detail::Entry { list: "installments", index: usize::MAX, field: "" },
        )
    }

    #[cfg(not(feature = "scatter-dp"))]
    pub(crate) fn dynamic_program() -> crate::error::Error {
        crate::error::Error::json(
            "the dynamic programs (solver exact or sampled, costs that are not affine) are left out of this build: module scatter_dp plans them",
            crate::error::Detail::Entry { list: "solver", index: usize::MAX, field: "" },
        )
    }
}

/// When the root computes, or that it only distributes ([`RootWork`]; the one-round
/// solvers take [`RootMode`](crate::scatter::RootMode)'s two).
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
        // Installment plans and their baselines say when computing starts (after a release
        // time); one-round plans compute on arrival.
        Phase { label: "compute", start: "compute_start", end: "finish" },
    ];
    /// A plan sent in installments: each chunk on its worker's lane (`chunks` is in the
    /// result of those plans alone).
    const CHARTS: &'static [Chart] = &[Chart {
        title: "Installments: each chunk's transfer and computation, a lane per worker",
        kind: ChartKind::Lanes(&[
            Phase { label: "receive", start: "send_start", end: "send_end" },
            Phase { label: "compute", start: "compute_start", end: "compute_end" },
        ]),
        list: "chunks",
        x: "",
        y: "",
        group: "rank",
    }];

    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        let (file, entries, candidates) = read_doc(text, memory)?;
        if file.installments.is_some() {
            #[cfg(feature = "scatter-installments")]
            return installments::plan(file, entries, memory);
            #[cfg(not(feature = "scatter-installments"))]
            return Err(left_out::installments());
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
        #[cfg(feature = "scatter-installments")]
        if let Some(document) = installments::timeline(text, memory)? {
            return Ok(Some(document));
        }
        #[cfg(not(feature = "scatter-installments"))]
        if read_doc(text, memory)?.0.installments.is_some() {
            return Err(left_out::installments());
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
    /// [{"rank", "count", "start", "received", "compute_start", "finish"}]}` in send order: the even split
    /// (`MPI_Scatter`) in the planned order, and the balanced plan for the reverse order
    /// (slowest link first, the root in its place), which shows what the order is worth
    /// (Thm 3). For affine costs only: other costs have no closed form to compare.
    fn baselines<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<&'m [u8], Error> {
        #[cfg(feature = "scatter-installments")]
        if let Some(document) = installments::baselines(text, memory)? {
            return Ok(document);
        }
        #[cfg(not(feature = "scatter-installments"))]
        if read_doc(text, memory)?.0.installments.is_some() {
            return Err(left_out::installments());
        }
        let run = run(text, memory, "has baselines of its own (installments::baselines)")?;
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
        let rows = |plan: &'m [Assignment<f64>]| {
            plan.iter().map(|a| (a.worker, a.count, [a.start, a.received, a.received, a.finish]))
        };
        written(memory, |buf| {
            let mut w = Writer::new(buf);
            w.begin_object();
            write_baseline(&mut w, "even", rows(even));
            write_baseline(&mut w, "reversed", rows(reversed));
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

/// One baseline of [`Model::baselines`]: `"key": {"makespan", "rows": [{"rank", "count",
/// "start", "received", "compute_start", "finish"}, …]}` (each row's times in that order),
/// the makespan the rows' latest finish.
pub(super) fn write_baseline(
    w: &mut Writer<'_>,
    key: &'static str,
    rows: impl Iterator<Item = (usize, u64, [f64; 4])> + Clone,
) {
    w.key(key);
    w.begin_object();
    w.key("makespan");
    w.f64(rows.clone().map(|(_, _, [.., finish])| finish).fold(0.0, f64::max));
    w.key("rows");
    w.begin_array();
    for (rank, count, [start, received, computing, finish]) in rows {
        w.begin_object();
        w.key("rank");
        w.u64(rank as u64);
        w.key("count");
        w.u64(count);
        w.numbers(&[
            ("start", start),
            ("received", received),
            ("compute_start", computing),
            ("finish", finish),
        ]);
        w.end_object();
    }
    w.end_array();
    w.end_object();
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
    write_answer(&mut w, &report, m.rational_makespan, Some(m.bound));
    w.key("rational_exact");
    w.bool(m.rational_exact);
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
        // Repaired: the two points pooled into one at their centroid, (35, 0.15).
        let pooled: f64 = w[1].comm.time(35);
        assert!((pooled - 0.15).abs() < 1e-15, "{pooled}");
        assert!((w[1].comm.time(20) - 0.15 * 20.0 / 35.0).abs() < 1e-15);
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
