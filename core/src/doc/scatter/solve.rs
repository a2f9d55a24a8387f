//! From a read document to a solved plan: the entries expanded into workers or cost
//! functions, the buffers each solver needs ([`Needs`], [`Buffers`]) and the dispatch to
//! the closed form, the exact DP or the sampled DP ([`solve`]).

use super::read::{CandidateEntry, PlatformFile};
use crate::doc::cost::{cost_of, WorkerEntry, MAX_POINTS};
use crate::doc::json::Str;
use crate::error::{Detail, Error, Field};
use crate::kernel::columns::Words;
use crate::num::Real;
use crate::platform::cost::{Cost, WorkerCosts};
use crate::platform::worker::Worker;
use crate::scatter::exact::CostProblem;
use crate::scatter::sampled::Sampled;
use crate::scatter::{
    Assignment, OrderPolicy, Problem, Root, RootCandidate, Scratch, Solver, Summary, TRANSFER_LATENCY,
    TRANSFER_PER_ITEM,
};

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
    pub(super) fn problem_in<'w, N: Real>(
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
                        transfer_latency: conv(TRANSFER_LATENCY, c.transfer_latency)?,
                        transfer_per_item: conv(TRANSFER_PER_ITEM, c.transfer_per_item)?,
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
                    Field::COMM_PER_ITEM,
                )?,
                comp: cost_of::<N>(
                    e.comp_model,
                    e.comp_latency,
                    e.comp_per_item,
                    e.repair,
                    i,
                    Field::COMP_PER_ITEM,
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
    mut buf: Buffers<'_, N, K, P>,
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
        (Solver::Exact | Solver::Sampled, _) => dynamic_program(file, entries, solver, &mut buf, progress)?,
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

/// The exact or the sampled DP over the file's cost functions, into `buf.out`.
#[cfg(feature = "scatter-dp")]
fn dynamic_program<'a, N: Real, const K: usize, const P: usize>(
    file: &PlatformFile<'a>,
    entries: &[WorkerEntry<'a>],
    solver: Solver,
    buf: &mut Buffers<'_, N, K, P>,
    progress: impl FnMut(u64, u64),
) -> Result<Summary<N>, Error> {
    let problem = file.cost_problem(entries, buf.costs)?;
    if solver == Solver::Exact {
        return crate::scatter::exact::exact(
            &problem,
            crate::scatter::exact::Pruning::Monotone,
            buf.out,
            buf.dp_choices,
            buf.dp_costs,
            progress,
        );
    }
    let Some(work) = buf.sampled.as_mut() else {
        return Err(Error::buffer("sampled DP workspace", 1, 0));
    };
    crate::scatter::sampled::solve_in(work.choices, work.costs, &problem, buf.out)
}

/// A build without the dynamic programs refuses them ([`super::LEFT_OUT`]).
#[cfg(not(feature = "scatter-dp"))]
fn dynamic_program<'a, N: Real, const K: usize, const P: usize>(
    _: &PlatformFile<'a>,
    _: &[WorkerEntry<'a>],
    _: Solver,
    _: &mut Buffers<'_, N, K, P>,
    _: impl FnMut(u64, u64),
) -> Result<Summary<N>, Error> {
    Err(super::left_out::dynamic_program())
}

/// Rank of the first worker of the entry called `name`.
pub(super) fn rank_of(
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
            (w[0], w[1]) = (crate::doc::name_hash(e.name), i as u64);
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
        let h = crate::doc::name_hash(name);
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
