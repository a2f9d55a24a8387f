//! The front ends' common path from a platform document to a result document, with the
//! memory the core asks for allocated here (`divload` itself never allocates).
//!
//! [`Parsed::new`] reads a document into owned entry buffers; a front end may then change
//! the file's options (the command line's overrides); [`Parsed::solve`] sizes every buffer
//! from [`PlatformFile::needs`], allocates with `try_reserve` (so running out of memory
//! is [`HostError::OutOfMemory`], not an abort) and calls [`json::solve`]. The command
//! line, `libdivload` and the wasm bindings all go through here.

use divload::cost::{Affine, Cost, WorkerCosts};
use divload::doc::scatter::{
    self as json, CandidateEntry, PlatformFile, Solved, Solver, WorkerEntry, MAX_POINTS,
};
use divload::scatter::sampled::Sampled;
use divload::{Assignment, RootCandidate, Scratch, Worker};

/// Why a document could not be planned.
#[derive(Clone, Debug, PartialEq)]
pub enum HostError {
    /// The core rejected the input; its message names the input.
    Core(divload::Error),
    /// The memory the plan needs is not available.
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// How many bytes.
        bytes: usize,
    },
}

impl From<divload::Error> for HostError {
    fn from(e: divload::Error) -> Self {
        HostError::Core(e)
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Core(e) => e.fmt(f),
            HostError::OutOfMemory { what, bytes } => {
                // Tenths of a MiB, rounded half up, in integers: float formatting with a
                // precision would put core's exact-digit code back into the wasm module.
                // Formatted as a u64: a u128's `Display` is 1.5 KB more in the wasm module.
                let tenths = u64::try_from((*bytes as u128 * 10 + (1 << 19)) >> 20).unwrap_or(u64::MAX);
                write!(f, "{what}: cannot allocate {}.{} MiB of working memory", tenths / 10, tenths % 10)
            }
        }
    }
}

impl std::error::Error for HostError {}

/// A vector of `n` copies of `value`, or [`HostError::OutOfMemory`].
///
/// # Errors
///
/// [`HostError::OutOfMemory`] when the allocation fails.
pub fn filled<T: Clone>(what: &'static str, n: usize, value: T) -> Result<Vec<T>, HostError> {
    let mut v = Vec::new();
    if v.try_reserve_exact(n).is_err() {
        return Err(out_of_memory(what, n, std::mem::size_of::<T>()));
    }
    v.resize(n, value);
    Ok(v)
}

/// Out of its generic caller, which the wasm module holds once per element type (27).
#[cold]
#[inline(never)]
fn out_of_memory(what: &'static str, n: usize, size: usize) -> HostError {
    HostError::OutOfMemory { what, bytes: n.saturating_mul(size) }
}

/// `[{"name", "title", "paper"}, …]`: every model a document can name.
///
/// # Errors
///
/// [`HostError::OutOfMemory`].
pub fn models_json() -> Result<Vec<u8>, HostError> {
    written("models JSON", divload::doc::write_models)
}

/// A document from one of the core's writers, which count what they would write: a dry
/// run with no buffer gives the exact size, allocated once.
fn written(
    what: &'static str,
    write: impl Fn(&mut [u8]) -> Result<usize, divload::Error>,
) -> Result<Vec<u8>, HostError> {
    let needed = match write(&mut []) {
        Ok(n) => n,
        Err(e) => e.needed().ok_or(HostError::Core(e))?,
    };
    let mut doc = filled(what, needed, 0u8)?;
    let n = write(&mut doc)?;
    doc.truncate(n);
    Ok(doc)
}

/// Most memory the exact DP may ask for here: 4 GiB, what wasm32 can address. Its tables
/// are allocated and zeroed before it starts, so a document of a few bytes asking for
/// 10⁹ items could otherwise take the machine's memory for seconds before its work
/// budget stops it; the sampled DP plans such documents in bounded memory.
pub const MAX_DP_BYTES: u64 = 4 << 30;

/// Most workers (after `count` expansion) a document may ask the front ends for: at about
/// 200 bytes per worker in the largest model, 200 MiB.
pub const MAX_WORKERS: usize = 1 << 20;

/// Plans any document and returns its result document: the one entry point of every
/// front end (`divload plan --json`, `divload_plan_json`, the browser's `plan`). The
/// model comes from the document's `"model"` ([`divload::doc::model_of`]); scatter
/// documents use the sampled DP's workspace `K` × `P` when they ask for it.
///
/// # Errors
///
/// The core's errors (JSON, ranges, capacity limits, naming the input);
/// [`HostError::OutOfMemory`]; more than [`MAX_WORKERS`] workers.
pub fn plan_json<const K: usize, const P: usize>(text: &[u8]) -> Result<Vec<u8>, HostError> {
    match divload::doc::model_of(text)?.name {
        "returns" => returns_json(text),
        "multicluster" => multicluster_json(text),
        "partition" => partition_json(text),
        _ => {
            let parsed = Parsed::new(text)?;
            if parsed.file.workers > MAX_WORKERS {
                return Err(too_many_workers(parsed.file.workers));
            }
            parsed.solve::<K, P>(None, |_, _| {})?.document()
        }
    }
}

fn too_many_workers(workers: usize) -> HostError {
    HostError::Core(divload::Error::limit("workers", MAX_WORKERS as u64, workers as u64))
}

/// That no two of `n` entries share a name ([`divload::doc::check_names`]).
fn unique_names<'a>(
    list: &'static str,
    n: usize,
    name: &dyn Fn(usize) -> Option<divload::doc::json::Str<'a>>,
) -> Result<(), HostError> {
    let mut keys = filled("name keys", n, divload::doc::NameKey::EMPTY)?;
    Ok(divload::doc::check_names(list, n, name, &mut keys)?)
}

/// A returns document ([`divload::doc::returns`]): the document's schedule planned and
/// compared with the best, LIFO and FIFO schedules of the same workers.
fn returns_json(text: &[u8]) -> Result<Vec<u8>, HostError> {
    use divload::doc::json::Str;
    use divload::doc::returns::{self as doc, Compare, ReturnEntry, ScheduleKind};
    use divload::returns::{self, Assignment, Problem, ReturnWorker, Schedule, Scratch};

    let sizes = doc::sizes(text)?;
    let mut entries = filled("worker entries", sizes.entries, ReturnEntry::EMPTY)?;
    let mut send_names = filled("scenario names", sizes.send, Str::EMPTY)?;
    let mut ret_names = filled("scenario names", sizes.ret, Str::EMPTY)?;
    let file = doc::parse(text, &mut entries, &mut send_names, &mut ret_names)?;
    if file.workers > MAX_WORKERS {
        return Err(too_many_workers(file.workers));
    }
    unique_names("workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
    let mut workers = filled("workers", file.workers, ReturnWorker::new(0.0, 1.0, 0.0))?;
    file.workers(&entries, &mut workers)?;
    let (mut send, mut ret) = (Vec::new(), Vec::new());
    if file.schedule == ScheduleKind::Given {
        let len = file.scenario_len(&entries, &send_names)?;
        if len > MAX_WORKERS {
            return Err(too_many_workers(len));
        }
        send = filled("scenario", len, 0usize)?;
        ret = filled("scenario", len, 0usize)?;
        file.scenario(&entries, &send_names, &ret_names, &mut send, &mut ret)?;
    }
    let schedule = match file.schedule {
        ScheduleKind::Best => Schedule::Best,
        ScheduleKind::Lifo => Schedule::Lifo,
        ScheduleKind::Fifo => Schedule::Fifo,
        ScheduleKind::Given => Schedule::Given { send: &send, ret: &ret },
    };
    let mut needs = file.needs()?;
    needs.tableau = needs.tableau.max(returns::needs(file.workers, schedule, file.port)?.tableau);
    let mut out = filled("plan", needs.out, Assignment::EMPTY)?;
    let mut scratch = filled("scratch", needs.scratch, Scratch::EMPTY)?;
    let mut tableau = filled("LP tableau", needs.tableau, 0.0f64)?;
    let mut run = |schedule| {
        let problem = Problem { workers: &workers, items: file.items, schedule, port: file.port };
        returns::plan(&problem, &mut out, &mut scratch, &mut tableau)
    };
    let compare = Compare {
        best: run(Schedule::Best)?.makespan,
        lifo: run(Schedule::Lifo)?.makespan,
        fifo: run(Schedule::Fifo)?.makespan,
    };
    let summary = run(schedule)?;
    written("result document", |buf| doc::write_result(&file, &entries, &summary, &out, &compare, buf))
}

/// A multicluster document ([`divload::doc::multicluster`]): the BIASED plan, and each
/// `what_if` addition's predicted time.
fn multicluster_json(text: &[u8]) -> Result<Vec<u8>, HostError> {
    multicluster(text, true, |file, summary, planned| {
        written("result document", |buf| {
            divload::doc::multicluster::write_result(file, summary, planned, buf)
        })
    })
}

/// The base plan of a multicluster document ([`divload::doc::multicluster`]) as data, for
/// front ends that hand out counts rather than a result document (`libdivload`'s
/// `divload_plan_multicluster`, the MPI helper on top of it): one entry per processor in
/// the document's order (clusters as listed, the processors of each in order), and the
/// summary. `what_if` additions are read and checked but not planned.
///
/// # Errors
///
/// As [`plan_json`] for a multicluster document; the multicluster reader's errors for a
/// document of another model (`model: must be "multicluster"`, or an unknown key when
/// `model` is left out).
pub fn multicluster_plan(
    text: &[u8],
) -> Result<(Vec<divload::multicluster::Processor>, divload::multicluster::Summary), HostError> {
    multicluster(text, false, |_, summary, planned| {
        let mut processors =
            filled("processors", planned.processors.len(), divload::multicluster::Processor::EMPTY)?;
        processors.copy_from_slice(planned.processors);
        Ok((processors, *summary))
    })
}

/// Reads a multicluster document, plans it (and its `what_if` additions when `what_if`)
/// in memory sized by the core, and hands the plan to `finish` while the buffers live.
fn multicluster<R>(
    text: &[u8],
    what_if: bool,
    finish: impl FnOnce(
        &divload::doc::multicluster::MulticlusterFile,
        &divload::multicluster::Summary,
        &divload::doc::multicluster::Planned<'_, '_>,
    ) -> Result<R, HostError>,
) -> Result<R, HostError> {
    use divload::doc::multicluster::{
        self as doc, AdditionEntry, ClusterEntry, Lists, PairEntry, Planned as Written,
    };
    use divload::multicluster::{self as model, Class, Cluster, PairLink, Processor, StepCost, WhatIf};

    let sizes = doc::sizes(text)?;
    let mut clusters = filled("cluster entries", sizes.clusters, ClusterEntry::EMPTY)?;
    let mut pairs = filled("pair entries", sizes.pairs, PairEntry::EMPTY)?;
    let mut costs = filled("cost entries", sizes.costs, StepCost { per_load: 0.0, fixed: 0.0 })?;
    let mut additions = filled("what_if entries", sizes.additions, AdditionEntry::EMPTY)?;
    let mut extra = filled("what_if clusters", sizes.extra, ClusterEntry::EMPTY)?;
    let mut lists = Lists {
        clusters: &mut clusters,
        pairs: &mut pairs,
        costs: &mut costs,
        additions: &mut additions,
        extra: &mut extra,
    };
    let file = doc::parse(text, &mut lists)?;
    // This tool's limit, checked before the model's larger one (2²⁴) could name another.
    let processors = file.processors(&lists, what_if);
    if processors > MAX_WORKERS as u64 {
        return Err(HostError::Core(divload::Error::limit(
            if what_if {
                "processors (all clusters, with the largest what_if addition)"
            } else {
                "processors (all clusters)"
            },
            MAX_WORKERS as u64,
            processors,
        )));
    }
    let mut base = filled("clusters", sizes.clusters, Cluster::new(1))?;
    let mut links = filled(
        "pair links",
        sizes.pairs,
        PairLink { first: 0, second: 0, link: divload::multicluster::Link::PAPER_SLOW },
    )?;
    let problem = file.problem(&lists, &mut base, &mut links)?;
    let mut keys =
        filled("name keys", sizes.additions.max(sizes.clusters + sizes.extra), divload::doc::NameKey::EMPTY)?;
    doc::check_what_if_names(&file, &lists, &mut keys)?;
    drop(keys);
    let extra_clusters: Vec<Cluster> = lists.extra.iter().map(|e| e.cluster).collect();
    let candidates: Vec<&[Cluster]> = if what_if {
        lists.additions.iter().map(|a| extra_clusters.get(a.first..a.first + a.len).unwrap_or(&[])).collect()
    } else {
        Vec::new()
    };
    // Sized (and every capacity checked) by the core before anything large is allocated.
    let needs = model::what_if_needs(&problem, &candidates)?;
    let mut classes = filled("classes", needs.classes, Class::EMPTY)?;
    let mut processors = filled("processors", needs.processors, Processor::EMPTY)?;
    let mut answers = filled("what_if answers", candidates.len(), WhatIf::EMPTY)?;
    if !candidates.is_empty() {
        model::what_if(&problem, &candidates, &mut classes, &mut processors, &mut answers)?;
    }
    // The base plan last, so the buffers hold it.
    let summary = model::plan(&problem, &mut classes, &mut processors)?;
    let p: usize = problem.clusters.iter().map(|c| c.processors as usize).sum();
    let written = Written {
        lists: &lists,
        classes: &classes,
        processors: processors.get(..p).unwrap_or(&processors),
        answers: &answers,
    };
    finish(&file, &summary, &written)
}

/// A partition document ([`divload::doc::partition`]): the exact computation-only split.
fn partition_json(text: &[u8]) -> Result<Vec<u8>, HostError> {
    use divload::cost::{Affine, Cost};
    use divload::doc::partition as doc;
    use divload::doc::scatter::{WorkerEntry, MAX_POINTS};

    let mut entries = filled("worker entries", doc::sizes(text)?, WorkerEntry::EMPTY)?;
    let file = doc::parse(text, &mut entries)?;
    if file.workers > MAX_WORKERS {
        return Err(too_many_workers(file.workers));
    }
    unique_names("workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
    let zero: Cost<f64, MAX_POINTS> = Cost::Affine(Affine::new(0.0, 0.0)?);
    let mut costs = filled("cost functions", file.entries, zero)?;
    file.costs(&entries, &mut costs)?;
    let mut workers = Vec::new();
    workers.try_reserve_exact(file.workers).map_err(|_| HostError::OutOfMemory {
        what: "workers",
        bytes: file.workers.saturating_mul(std::mem::size_of::<&Cost<f64, MAX_POINTS>>()),
    })?;
    for (e, c) in entries.iter().zip(&costs).take(file.entries) {
        for _ in 0..e.count {
            workers.push(c);
        }
    }
    let mut counts = filled("counts", file.workers, 0u64)?;
    let makespan = divload::partition::solve(&workers, file.items, &mut counts)?;
    written("result document", |buf| doc::write_result(&file, &entries, &costs, &counts, makespan, buf))
}

/// A parsed platform document, owning its entry buffers (names borrow the text).
#[derive(Debug)]
pub struct Parsed<'t> {
    /// The scalars of the file; a front end may change the options before solving.
    pub file: PlatformFile<'t>,
    /// The `workers` entries (at least `file.entries`).
    pub entries: Vec<WorkerEntry<'t>>,
    /// The `root_candidates` entries.
    pub candidates: Vec<CandidateEntry<'t>>,
}

/// A solved document: the plan in send order, its summary, and the affine workers when
/// the closed form ran (for front ends that evaluate other schedules).
#[derive(Debug)]
pub struct Planned<'t> {
    /// The file as solved.
    pub file: PlatformFile<'t>,
    /// Its entries.
    pub entries: Vec<WorkerEntry<'t>>,
    /// Summary of the plan, and of the closed form when it ran next to a DP.
    pub solved: Solved<f64>,
    /// The plan, in send order.
    pub plan: Vec<Assignment<f64>>,
    /// The workers by rank when every cost is affine, else empty.
    pub workers: Vec<Worker<f64>>,
    /// The solver used.
    pub solver: Solver,
}

impl<'t> Parsed<'t> {
    /// Reads a platform document.
    ///
    /// # Errors
    ///
    /// The core's JSON and range errors; [`HostError::OutOfMemory`].
    pub fn new(text: &'t [u8]) -> Result<Parsed<'t>, HostError> {
        // Sized from what the reader found, so a document of B bytes never asks for more
        // than a constant times B here.
        let sizes = json::sizes(text)?;
        let mut entries = filled("worker entries", sizes.entries, WorkerEntry::EMPTY)?;
        let mut candidates = filled("root candidates", sizes.candidates, CandidateEntry::EMPTY)?;
        let file = json::parse_platform(text, &mut entries, &mut candidates)?;
        entries.truncate(file.entries);
        candidates.truncate(file.candidates);
        unique_names("workers", file.entries, &|i| entries.get(i).map(|e| e.name))?;
        unique_names("root_candidates", file.candidates, &|i| candidates.get(i).map(|c| c.name))?;
        Ok(Parsed { file, entries, candidates })
    }

    /// Plans with `solver` (`None`: the file's choice). `K` and `P` size the sampled DP's
    /// workspace, allocated only when it is used. `progress` goes to the exact DP.
    ///
    /// # Errors
    ///
    /// As [`json::solve`]; [`HostError::OutOfMemory`] when the buffers cannot be allocated
    /// (the message says how much the solver needed).
    pub fn solve<const K: usize, const P: usize>(
        self,
        solver: Option<Solver>,
        progress: impl FnMut(u64, u64),
    ) -> Result<Planned<'t>, HostError> {
        let file = self.file;
        let solver = file.solver(solver);
        let needs = file.needs(solver)?;
        let dp_bytes = needs.dp_bytes::<f64>();
        if dp_bytes > MAX_DP_BYTES {
            return Err(HostError::Core(divload::Error::limit(
                "exact DP memory in bytes, (4 × (workers − 1) + 8) × (items + 1); \
                 use \"solver\": \"sampled\" or fewer items",
                MAX_DP_BYTES,
                dp_bytes,
            )));
        }
        let mut workers = filled("workers", needs.workers, Worker::linear(0.0, 1.0))?;
        let mut candidates = filled("root candidates", needs.candidates, RootCandidate::local(0))?;
        let zero = Cost::Affine(Affine::new(0.0, 0.0)?);
        let mut costs: Vec<WorkerCosts<Cost<f64, MAX_POINTS>>> =
            filled("cost functions", needs.costs, WorkerCosts { comm: zero.clone(), comp: zero })?;
        let mut plan = filled("plan", needs.workers, Assignment::EMPTY)?;
        let mut scratch = filled("scratch", needs.workers, Scratch::EMPTY)?;
        let dp_memory = |_| HostError::OutOfMemory {
            what: "exact DP",
            bytes: usize::try_from(dp_bytes).unwrap_or(usize::MAX),
        };
        let mut dp_choices = filled("exact DP", needs.dp_choices, 0u32).map_err(dp_memory)?;
        let mut dp_costs = filled("exact DP", needs.dp_costs, 0.0f64).map_err(dp_memory)?;
        let mut sampled = (solver == Solver::Sampled).then(new_sampled::<K, P>);
        let buffers = json::Buffers {
            workers: &mut workers,
            candidates: &mut candidates,
            costs: &mut costs,
            out: &mut plan,
            scratch: &mut scratch,
            dp_choices: &mut dp_choices,
            dp_costs: &mut dp_costs,
            sampled: sampled.as_deref_mut(),
        };
        let solved = json::solve(&file, &self.entries, &self.candidates, solver, buffers, progress)?;
        // `workers` holds the affine costs only where the closed form expanded them.
        if !(solver == Solver::ClosedForm || solved.closed_form.is_some()) {
            workers.clear();
        }
        Ok(Planned { file, entries: self.entries, solved, plan, workers, solver })
    }
}

/// The sampled DP's workspace, built in a frame of its own: inlined into its caller, the
/// value would sit in every call's stack frame (wasm's whole stack is 1 MiB, C threads
/// may have less).
#[inline(never)]
fn new_sampled<const K: usize, const P: usize>() -> Box<Sampled<f64, K, P>> {
    Box::new(Sampled::new())
}

impl Planned<'_> {
    /// The result document (`divload plan --json`).
    ///
    /// # Errors
    ///
    /// [`HostError::OutOfMemory`]; the core's errors do not occur for a solved plan.
    pub fn document(&self) -> Result<Vec<u8>, HostError> {
        written("result document", |out| {
            json::write_result(&self.file, &self.entries, &self.solved.summary, &self.plan, out)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const TABLE1: &str = include_str!("../../examples/table1.json");

    /// Found by the `c_api` fuzz target as a timeout (over 10 s in the instrumented fuzz
    /// build, 0.5 s in release): a given scenario, half duplex, 8 workers, so the
    /// comparison with the best schedule searches all 8! FIFO orders. Bounded by design;
    /// the plan must still be right.
    #[test]
    fn returns_with_eight_workers_half_duplex_compares_every_schedule() {
        let doc =
            br#"{"model": "returns", "items": 7, "schedule": {"send": ["a", "b"], "return": ["b", "a"]},
            "port": "half_duplex", "workers": [
            {"name": "a", "comm_per_item": 4, "comp_per_item": 1, "return_per_item": 0.5},
            {"name": "b", "count": 7, "comm_per_item": 1, "comp_per_item": 8, "return_per_item": 2}]}"#;
        let out = String::from_utf8(plan_json::<64, 16>(doc).unwrap()).unwrap();
        let counts: u64 = out
            .split("\"count\":")
            .skip(1)
            .map(|t| {
                t.trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse::<u64>().unwrap()
            })
            .sum();
        assert_eq!(counts, 7, "{out}");
        for key in ["\"best\"", "\"lifo\"", "\"fifo\""] {
            assert!(out.contains(key), "{key} missing from {out}");
        }
    }

    /// A given scenario longer than the scenario LP allows is refused before its names are
    /// looked up (10⁵ names took 89 s to reach the limit); one within it by names but not
    /// by the workers their counts expand to is refused by the model.
    #[test]
    fn long_given_scenarios_are_refused_by_their_length() {
        let doc = |names: usize, count: usize| {
            let workers: Vec<String> = (0..names)
                .map(|i| {
                    format!(
                        r#"{{"name": "w{i}", "count": {count}, "comm_per_item": 1, "comp_per_item": 2, "return_per_item": 0.5}}"#
                    )
                })
                .collect();
            let list: Vec<String> = (0..names).map(|i| format!("\"w{i}\"")).collect();
            let list = list.join(", ");
            format!(
                r#"{{"model": "returns", "items": 1000, "schedule": {{"send": [{list}], "return": [{list}]}}, "workers": [{}]}}"#,
                workers.join(", ")
            )
        };
        let e = plan_json::<16, 4>(doc(300, 1).as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "schedule.send: at most 256, got 300");
        let e = plan_json::<16, 4>(doc(150, 2).as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "scenario workers: at most 256, got 300");
        assert!(plan_json::<16, 4>(doc(12, 2).as_bytes()).is_ok());
    }

    #[test]
    fn every_solver_from_one_path() {
        for (solver, method) in
            [(None, "closed_form"), (Some(Solver::Exact), "exact_dp"), (Some(Solver::Sampled), "sampled_dp")]
        {
            let planned =
                Parsed::new(TABLE1.as_bytes()).unwrap().solve::<256, 16>(solver, |_, _| {}).unwrap();
            assert_eq!(divload::doc::names::METHOD.name(planned.solved.summary.method), method);
            assert_eq!(planned.plan.iter().map(|a| a.count).sum::<u64>(), 817_101);
            assert_eq!(planned.workers.len(), 16, "affine workers are kept for schedules");
            let doc = String::from_utf8(planned.document().unwrap()).unwrap();
            assert!(doc.contains(&format!("\"method\":\"{method}\"")), "{doc}");
        }
        let e = Parsed::new(TABLE1.as_bytes()).unwrap().solve::<256, 8>(Some(Solver::Sampled), |_, _| {});
        assert_eq!(e.unwrap_err().to_string(), "sampled DP: workers: at most 8, got 16");
        let bad = Parsed::new(b"{\"items\": 3").unwrap_err();
        assert_eq!(bad.to_string(), "platform JSON: items: byte 11: truncated document (unexpected end)");
    }

    #[test]
    fn multicluster_plan_is_the_documents_plan() {
        let example = divload::doc::MODELS.iter().find(|m| m.name == "multicluster").unwrap().example();
        let (procs, summary) = multicluster_plan(example.as_bytes()).unwrap();
        assert_eq!(procs.len(), 16);
        assert_eq!(procs.iter().map(|p| p.count).sum::<u64>(), summary.units);
        let ordered: Vec<(usize, u32)> = procs.iter().map(|p| (p.cluster, p.index)).collect();
        let expected: Vec<(usize, u32)> = (0..2).flat_map(|c| (0..8).map(move |i| (c, i))).collect();
        assert_eq!(ordered, expected, "clusters in document order, processors in order within each");
        // The same counts, displacements and makespan as the result document's `plan`.
        let doc = String::from_utf8(plan_json::<16, 4>(example.as_bytes()).unwrap()).unwrap();
        for (rank, p) in procs.iter().enumerate() {
            let row = format!(
                "\"rank\":{rank},\"fast_links\":{},\"count\":{},\"displacement\":{},",
                p.fast_links, p.count, p.displacement
            );
            assert!(doc.contains(&row), "{row} not in {doc}");
        }
        assert!(doc.contains(&format!("\"makespan\":{},", summary.report.makespan)), "{doc}");

        let e = multicluster_plan(b"{\"model\": \"returns\", \"items\": 3}").unwrap_err();
        assert!(e.to_string().contains("model: byte 9: must be \"multicluster\""), "{e}");
        let e = multicluster_plan(b"{\"model\": \"multicluster\", \"clusters\": []}").unwrap_err();
        assert!(e.to_string().contains("clusters"), "{e}");
    }

    /// Times beyond `f64` are errors naming them, not `null`s in the result document:
    /// the two inputs the `documents` fuzzer found once it checked every value
    /// (`fuzz/src/lib.rs`, `no_null`), in every front end's path.
    #[test]
    fn times_beyond_f64_are_errors_not_nulls() {
        let multicluster = br#"{"model": "multicluster", "clusters": [{"name": "x", "processors": 5}],
            "application": {"pattern": "custom", "units": 2, "iterations": 3e295,
            "costs": [{"per_load": 6.7e49, "fixed": 0.5}]}}"#;
        let partition = br#"{"version": 1, "model": "partition", "items": 2787433, "workers": [
            {"name": "old", "comp_power": {"coeff": 2e271, "exponent": 9.1}},
            {"name": "mid", "comp_table": [[10000, 0.009], [100000, 0.1], [1000000, 1.23]]}]}"#;
        for (doc, what) in
            [(&multicluster[..], "makespan (iterations"), (&partition[..], "even split's makespan")]
        {
            let e = plan_json::<16, 4>(doc).unwrap_err();
            assert!(
                matches!(&e, HostError::Core(c) if c.code() == divload::ErrorCode::Overflow
                    && c.to_string().starts_with(what)),
                "{e}"
            );
        }
        // Within range both plan, and no value of theirs is null.
        let smaller = String::from_utf8(multicluster.to_vec()).unwrap().replace("3e295", "3e250");
        let out = String::from_utf8(plan_json::<16, 4>(smaller.as_bytes()).unwrap()).unwrap();
        assert!(!out.contains("null"), "{out}");
        let smaller = String::from_utf8(partition.to_vec()).unwrap().replace("2e271", "2e-30");
        let out = String::from_utf8(plan_json::<16, 4>(smaller.as_bytes()).unwrap()).unwrap();
        assert!(!out.contains("null"), "{out}");
        // Every time finite, the even split 10⁶⁰⁰ times slower than the plan: the speedup is
        // the largest f64, in each model that reports one.
        for doc in [
            r#"{"model": "partition", "items": 10, "workers": [
                {"name": "a", "comp_per_item": 1e-300}, {"name": "b", "comp_per_item": 1e300}]}"#,
            r#"{"items": 10, "root": "a", "workers": [
                {"name": "a", "comm_per_item": 0, "comp_per_item": 1e-300},
                {"name": "b", "comm_per_item": 1e-300, "comp_per_item": 1e300}]}"#,
        ] {
            let out = String::from_utf8(plan_json::<16, 4>(doc.as_bytes()).unwrap()).unwrap();
            assert!(out.contains(r#""speedup":1.7976931348623157e308"#) && !out.contains("null"), "{out}");
        }
    }

    /// The error `doc` gets from `plan_json`, as text.
    fn error_of(doc: &str) -> String {
        match plan_json::<16, 4>(doc.as_bytes()) {
            Ok(out) => String::from_utf8_lossy(&out).into_owned(),
            Err(e) => e.to_string(),
        }
    }

    fn assert_error(doc: &str, expected: &str) {
        let e = error_of(doc);
        assert!(e.contains(expected), "expected {expected:?} for {doc}\ngot {e}");
    }

    /// Inputs that were planned while something in them was silently dropped, or picked
    /// arbitrarily, or that were reported at the wrong place (an adversarial review of the
    /// four readers, 2026-11-24).
    #[test]
    fn ambiguous_or_ignored_inputs_are_errors_in_every_model() {
        let scatter = |b: &str| {
            format!(
                r#"{{"items": 100, "root": "a", "workers": [{{"name": "a", "comm_per_item": 0, "comp_per_item": 1}}, {{"name": "b", {b}}}]}}"#
            )
        };
        let partition = |b: &str| {
            format!(
                r#"{{"model": "partition", "items": 100, "workers": [{{"name": "a", "comp_per_item": 1}}, {{"name": "b", {b}}}]}}"#
            )
        };
        let (table, power) =
            (r#""comp_table": [[1, 10], [2, 20]]"#, r#""comp_power": {"coeff": 1, "exponent": 1}"#);
        // Two shapes of one cost: the last one read used to win.
        for (x, y, second) in [(table, power, "comp_power"), (power, table, "comp_table")] {
            let b = format!(r#""comm_per_item": 0.1, {x}, {y}"#);
            assert_error(&scatter(&b), &format!("workers[1].{second}: give one cost per part"));
            let b = format!(r#""comm_per_item": 0.1, "comp_per_item": 1, {y}"#);
            assert_error(&scatter(&b), &format!("workers[1].{second}: give one cost per part"));
            assert_error(&partition(&format!("{x}, {y}")), &format!("workers[1].{second}: give one cost"));
        }
        let comm = r#""comm_table": [[1, 1]], "comm_power": {"coeff": 1, "exponent": 1}, "comp_per_item": 1"#;
        assert_error(&scatter(comm), "workers[1].comm_power: give one cost per part");
        // A latency next to a table or a power law was ignored.
        for shape in [table, power] {
            let b = format!(r#""comm_per_item": 0.1, {shape}, "comp_latency": 7"#);
            assert_error(&scatter(&b), "workers[1].comp_latency: goes with *_per_item only");
            assert_error(
                &partition(&format!(r#"{shape}, "comp_latency": 7"#)),
                "workers[1].comp_latency: goes with",
            );
        }
        let b = r#""comp_per_item": 1, "comm_table": [[1, 1]], "comm_latency": 2"#;
        assert_error(&scatter(b), "workers[1].comm_latency: goes with");
        // A computation of no time took every item, with a makespan of 0.
        let zero_power = r#""comp_power": {"coeff": 0, "exponent": 1}"#;
        assert_error(&partition(zero_power), "workers[1].comp_power: coeff must be finite and > 0, got 0");
        assert_error(
            &scatter(&format!(r#""comm_per_item": 0.1, {zero_power}"#)),
            "coeff must be finite and > 0",
        );
        let zero_table = r#""comp_table": [[0, 0], [1, 0], [2, 0]]"#;
        assert_error(&partition(zero_table), "workers[1].comp_table[1]: seconds must be > 0 where items > 0");
        // … nor below a table's first point, where its steep first segment extended fell to
        // 0 s under 990 items and b took all 100 for nothing; the origin's line to
        // (1000, 1) bounds it now.
        let steep = r#""comp_table": [[1000, 1], [2000, 100]]"#;
        let out = error_of(&partition(steep));
        assert!(out.contains(r#""makespan":0.1,"#) && out.contains(r#""count":100,"#), "{out}");
        let out = error_of(&scatter(&format!(r#""comm_per_item": 0, {steep}"#)));
        assert!(out.contains(r#""makespan":0.1,"#), "{out}");
        // … while a communication may take no time, and a table may start at (0, 0).
        assert!(!error_of(&scatter(
            r#""comm_power": {"coeff": 0, "exponent": 1}, "comp_table": [[0, 0], [2, 1]]"#
        ))
        .contains("error"));
        // Two workers of one name: `root`, candidates and scenarios picked the first.
        let twice =
            scatter(r#""comm_per_item": 1, "comp_per_item": 1"#).replace(r#""name": "b""#, r#""name": "a""#);
        assert_error(&twice, "workers[1].name: repeats the name of an earlier entry (names must be unique)");
        let twice = scatter(r#""comm_per_item": 1, "comp_per_item": 1"#).replace(
            r#""root": "a""#,
            r#""root_candidates": [{"name": "a", "transfer_latency": 0, "transfer_per_item": 0},
                {"name": "a", "transfer_latency": 1, "transfer_per_item": 1}]"#,
        );
        assert_error(&twice, "root_candidates[1].name: repeats the name");
        let twice = partition(r#""comp_per_item": 2"#).replace(r#""name": "b""#, r#""name": "a""#);
        assert_error(&twice, "workers[1].name: repeats the name");
        let returns = r#"{"model": "returns", "items": 10, "schedule": "lifo", "workers": [
            {"name": "a", "comm_per_item": 1, "comp_per_item": 1, "return_per_item": 1},
            {"name": "x", "comm_per_item": 1, "comp_per_item": 2, "return_per_item": 1},
            {"name": "a\u0020", "comm_per_item": 1, "comp_per_item": 2, "return_per_item": 1},
            {"name": "\u0061", "comm_per_item": 1, "comp_per_item": 2, "return_per_item": 1}]}"#;
        assert_error(returns, "workers[3].name: repeats the name");
        // Places: the key being read when a list inside an entry has ended.
        let given = r#"{"model": "returns", "items": 10, "schedule": {"send": ["a"], "return": ["a"], "x": 1}, "workers": [
            {"name": "a", "comm_per_item": 1, "comp_per_item": 1, "return_per_item": 1}]}"#;
        assert_error(given, "platform JSON: schedule: byte");
        // A comment is free text: repeated keys inside an object went unnoticed.
        let comment = scatter(r#""comm_per_item": 1, "comp_per_item": 1, "comment": {"x": 1, "x": 2}"#);
        assert_error(&comment, "workers[1].comment: byte");
        assert_error(&comment, "expected a string");
    }

    #[test]
    fn multicluster_names_counts_and_places_are_checked() {
        let ring = |clusters: &str, app: &str, what_if: &str| {
            format!(
                r#"{{"model": "multicluster", "clusters": [{clusters}],
                "links": {{"fast": {{"latency": 45e-6, "overhead": 10e-6, "gap": 1e-8}},
                           "slow": {{"latency": 400e-6, "overhead": 10e-6, "gap": 5e-7}}}},
                "application": {app}, "what_if": [{what_if}]}}"#
            )
        };
        let base = r#"{"name": "a", "processors": 8}, {"name": "b", "processors": 8}"#;
        let app = r#"{"pattern": "ring", "lattice": 8192, "flip_time": 0.55e-6, "steps": 20}"#;
        let add = |name: &str, clusters: &str| format!(r#"{{"name": "{name}", "clusters": [{clusters}]}}"#);
        let c = |name: &str| format!(r#"{{"name": "{name}", "processors": 4}}"#);
        // Two additions may each add a cluster of one name, as long as the document has none.
        let fine = ring(base, app, &[add("x", &c("new")), add("y", &c("new"))].join(","));
        assert!(plan_json::<16, 4>(fine.as_bytes()).is_ok(), "{}", error_of(&fine));
        assert_error(
            &ring(r#"{"name": "", "processors": 8}"#, app, &add("x", &c("n"))),
            "clusters[0].name: must be a non-empty name",
        );
        assert_error(&ring(base, app, &add("", &c("n"))), "what_if[0].name: must be a non-empty name");
        assert_error(
            &ring(base, app, &[add("x", &c("n")), add("x", &c("m"))].join(",")),
            "what_if[1].name: repeats the name",
        );
        let clash = [add("x", &c("n")), add("y", &[c("m"), c("a")].join(","))].join(",");
        assert_error(&ring(base, app, &clash), "what_if[1].clusters[1].name: repeats the name of a cluster");
        let within = [add("x", &c("n")), add("y", &[c("m"), c("m")].join(","))].join(",");
        assert_error(&ring(base, app, &within), "what_if[1].clusters[1].name: repeats the name");
        // The index of the addition is kept in the places inside it.
        let speed = [
            add("x", &c("n")),
            add("y", r#"{"name": "m", "processors": 1}, {"name": "k", "processors": 1, "speed": -1}"#),
        ]
        .join(",");
        assert_error(
            &ring(base, app, &speed),
            "what_if[1].clusters[1].speed: must be finite and > 0, got -1",
        );
        let key = [
            add("x", &c("n")),
            add("y", r#"{"name": "m", "processors": 1}, {"name": "k", "processors": 1, "sped": 1}"#),
        ]
        .join(",");
        assert_error(&ring(base, app, &key), "what_if[1].clusters[1]: byte");
        let slow = ring(base, app, &add("x", &c("n"))).replace(r#""gap": 5e-7}"#, r#""gap": 5e-7, "x": 1}"#);
        assert_error(&slow, "links.slow: byte");
        let slow = ring(base, app, &add("x", &c("n"))).replace(r#""latency": 400e-6"#, r#""latency": 1e999"#);
        assert_error(&slow, "links.slow.latency: byte");
        // Counts the model multiplies in f64 are exact only up to 2⁵³.
        let steps = app.replace("20}", "9007199254740993}");
        assert_error(&ring(base, &steps, &add("x", &c("n"))), "application.steps: at most 9007199254740992");
        let sort = r#"{"pattern": "all_to_all", "objects": 10, "chunk": 1000, "sort_time": 1e-3, "words_per_object": 25}"#;
        assert_error(
            &ring(base, sort, &add("x", &c("n"))),
            "application.chunk: must be at most application.objects",
        );
        let custom = |per_load: &str| {
            format!(
                r#"{{"model": "multicluster", "clusters": [{{"name": "x", "processors": 2}}],
                "application": {{"pattern": "custom", "units": 10, "iterations": 3,
                "costs": [{{"per_load": {per_load}, "fixed": 0}}]}}}}"#
            )
        };
        for per_load in ["0", "-1"] {
            assert_error(&custom(per_load), "application.costs[0].per_load: must be finite and > 0, got");
        }
    }

    #[test]
    fn the_exact_dp_memory_is_bounded() {
        let doc = r#"{"items": 1000000000, "root": "a", "solver": "exact", "workers": [
            {"name": "a", "comm_per_item": 0, "comp_per_item": 1},
            {"name": "b", "comm_per_item": 0.5, "comp_power": {"coeff": 0.01, "exponent": 1}}]}"#;
        assert_error(doc, "exact DP memory in bytes");
        assert_error(doc, "at most 4294967296, got 12000000012");
        let sampled = doc.replace("exact", "sampled");
        assert!(plan_json::<16, 4>(sampled.as_bytes()).is_ok(), "{}", error_of(&sampled));
    }

    #[test]
    fn out_of_memory_is_an_error() {
        let e = filled("exact DP", usize::MAX / 2, 0u32).unwrap_err();
        assert!(matches!(e, HostError::OutOfMemory { what: "exact DP", .. }));
        assert!(e.to_string().starts_with("exact DP: cannot allocate"));
    }
}
