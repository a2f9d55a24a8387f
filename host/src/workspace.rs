//! The scatter's closed-form path with memory kept between calls: an MPI code that
//! re-plans every iteration, or a Python session calling `scatter_counts` in a loop, pays
//! for its buffers once (issue 45). Planning again for as many workers allocates nothing
//! and writes no buffer twice; more workers grow the buffers, fallibly.

use divload::scatter::search::{search_memory, Line};
use divload::scatter::ByRank;
use divload::{Assignment, Options, OrderPolicy, Problem, Root, Scratch, Summary, Worker};

use crate::HostError;

/// Buffers for [`Workspace::plan`] and [`Workspace::plan_counts_over`], each grown to the
/// largest platform planned so far.
#[derive(Debug, Default)]
pub struct Workspace {
    workers: Vec<Worker<f64>>,
    plan: Vec<Assignment<f64>>,
    scratch: Vec<Scratch<f64>>,
    lines: Vec<Line>,
    /// The send order of [`Workspace::plan_counts_over`].
    order: Vec<u64>,
}

impl Workspace {
    /// An empty workspace: the first plan allocates.
    pub const fn new() -> Workspace {
        Workspace {
            workers: Vec::new(),
            plan: Vec::new(),
            scratch: Vec::new(),
            lines: Vec::new(),
            order: Vec::new(),
        }
    }

    /// A workspace ready for the counts of `p` workers ([`Workspace::plan_counts_over`]).
    ///
    /// # Errors
    ///
    /// [`HostError::OutOfMemory`] when the buffers cannot be had.
    pub fn with_workers(p: usize) -> Result<Workspace, HostError> {
        let mut w = Workspace::new();
        fit(&mut w.scratch, "scratch", p, Scratch::EMPTY)?;
        fit(&mut w.order, "send order", p, 0)?;
        Ok(w)
    }

    /// The workers planned with: [`Workspace::plan`] reads them, the caller writes them
    /// (`p` of them, left as the last plan had them where it had as many).
    ///
    /// # Errors
    ///
    /// [`HostError::OutOfMemory`] when the buffers cannot grow to `p`.
    pub fn workers(&mut self, p: usize) -> Result<&mut [Worker<f64>], HostError> {
        fit(&mut self.workers, "workers", p, Worker::linear(0.0, 1.0))?;
        Ok(self.workers.get_mut(..p).unwrap_or_default())
    }

    /// Plans the `p` workers last written through [`Workspace::workers`], as
    /// [`divload::scatter::plan_searched`] does (the order search's lines too with
    /// [`OrderPolicy::Search`]); the plan, in send order, lives in the workspace.
    ///
    /// # Errors
    ///
    /// The core's error, or [`HostError::OutOfMemory`] when the buffers cannot grow.
    pub fn plan(
        &mut self,
        p: usize,
        root: usize,
        items: u64,
        options: Options,
    ) -> Result<(&[Assignment<f64>], Summary<f64>), HostError> {
        fit(&mut self.workers, "workers", p, Worker::linear(0.0, 1.0))?;
        let Workspace { workers, plan, scratch, lines, .. } = self;
        Self::full(workers.get(..p).unwrap_or_default(), plan, scratch, lines, root, items, options)
    }

    /// Plans `workers`, the caller's, as [`Workspace::plan`] plans its own.
    ///
    /// # Errors
    ///
    /// As [`Workspace::plan`].
    pub fn plan_over(
        &mut self,
        workers: &[Worker<f64>],
        root: usize,
        items: u64,
        options: Options,
    ) -> Result<(&[Assignment<f64>], Summary<f64>), HostError> {
        Self::full(workers, &mut self.plan, &mut self.scratch, &mut self.lines, root, items, options)
    }

    fn full<'a>(
        workers: &[Worker<f64>],
        plan: &'a mut Vec<Assignment<f64>>,
        scratch: &mut Vec<Scratch<f64>>,
        lines: &mut Vec<Line>,
        root: usize,
        items: u64,
        options: Options,
    ) -> Result<(&'a [Assignment<f64>], Summary<f64>), HostError> {
        let p = workers.len();
        let lines = fit_scratch(scratch, lines, p, options)?;
        fit(plan, "plan", p, Assignment::EMPTY)?;
        let out = plan.get_mut(..p).unwrap_or_default();
        let problem = Problem { workers, root: Root::Fixed(root), items, options };
        let summary =
            divload::scatter::plan_searched(&problem, out, scratch.get_mut(..p).unwrap_or_default(), lines)?;
        Ok((plan.get(..p).unwrap_or_default(), summary))
    }

    /// Plans the `p` workers last written through [`Workspace::workers`] into counts and
    /// displacements by rank, as [`Workspace::plan_counts_over`] does, and with `finish`
    /// each rank's finish time; returns the summary and the ranks in send order.
    ///
    /// # Errors
    ///
    /// As [`Workspace::plan`].
    #[allow(clippy::too_many_arguments)]
    pub fn plan_counts(
        &mut self,
        p: usize,
        root: usize,
        items: u64,
        options: Options,
        counts: &mut [u64],
        displs: &mut [u64],
        finish: Option<&mut [f64]>,
    ) -> Result<Counted<'_>, HostError> {
        fit(&mut self.workers, "workers", p, Worker::linear(0.0, 1.0))?;
        let Workspace { workers, scratch, lines, order, .. } = self;
        let out = Out { counts, displs, finish };
        counted(workers.get(..p).unwrap_or_default(), scratch, lines, order, root, items, options, out)
    }

    /// Plans `workers`, the caller's, as [`Workspace::plan`] does, into the counts and
    /// displacements by rank that `MPI_Scatterv` takes ([`divload::scatter::plan_counts`]:
    /// no plan records; a C caller's arrays are read and written where they are, issue 45).
    /// `counts` and `displs` hold at least one word per worker.
    ///
    /// # Errors
    ///
    /// As [`Workspace::plan`].
    pub fn plan_counts_over(
        &mut self,
        workers: &[Worker<f64>],
        root: usize,
        items: u64,
        options: Options,
        counts: &mut [u64],
        displs: &mut [u64],
    ) -> Result<Summary<f64>, HostError> {
        let out = Out { counts, displs, finish: None };
        let Workspace { scratch, lines, order, .. } = self;
        Ok(counted(workers, scratch, lines, order, root, items, options, out)?.summary)
    }
}

/// Grows the scratch to `p` records and the order search's memory to what `options` need
/// for `p` workers (none unless it searches); returns those lines.
fn fit_scratch<'a>(
    scratch: &mut Vec<Scratch<f64>>,
    lines: &'a mut Vec<Line>,
    p: usize,
    options: Options,
) -> Result<&'a mut [Line], HostError> {
    let n = match options.order {
        OrderPolicy::Search => search_memory(p).unwrap_or(0),
        _ => 0,
    };
    fit(scratch, "scratch", p, Scratch::EMPTY)?;
    fit(lines, "order search", n, Line::EMPTY)?;
    Ok(lines.get_mut(..n).unwrap_or_default())
}

/// The caller's outputs of a plan by rank.
struct Out<'a> {
    counts: &'a mut [u64],
    displs: &'a mut [u64],
    finish: Option<&'a mut [f64]>,
}

/// [`divload::scatter::plan_counts`] of `workers` in the workspace's buffers.
#[allow(clippy::too_many_arguments)]
fn counted<'a>(
    workers: &[Worker<f64>],
    scratch: &mut Vec<Scratch<f64>>,
    lines: &mut Vec<Line>,
    order: &'a mut Vec<u64>,
    root: usize,
    items: u64,
    options: Options,
    out: Out<'_>,
) -> Result<Counted<'a>, HostError> {
    let p = workers.len();
    let lines = fit_scratch(scratch, lines, p, options)?;
    fit(order, "send order", p, 0)?;
    let Out { counts, displs, finish } = out;
    let by_rank = ByRank { counts, displs, order: order.get_mut(..p).unwrap_or_default(), finish };
    let problem = Problem { workers, root: Root::Fixed(root), items, options };
    let summary =
        divload::scatter::plan_counts(&problem, by_rank, scratch.get_mut(..p).unwrap_or_default(), lines)?;
    Ok(Counted { summary, order: order.get(..p).unwrap_or_default() })
}

/// What [`Workspace::plan_counts`] planned, beside the counts and displacements it wrote.
#[derive(Debug)]
pub struct Counted<'a> {
    pub summary: Summary<f64>,
    /// The ranks in send order.
    pub order: &'a [u64],
}

/// Grows `v` to at least `n` elements (new ones `fill`), fallibly; never shrinks it, so
/// that planning again for as many allocates and writes nothing.
fn fit<T: Clone>(v: &mut Vec<T>, what: &'static str, n: usize, fill: T) -> Result<(), HostError> {
    if v.len() >= n {
        return Ok(());
    }
    v.try_reserve_exact(n - v.len())
        .map_err(|_| HostError::OutOfMemory { what, bytes: n.saturating_mul(size_of::<T>()) })?;
    v.resize(n, fill);
    Ok(())
}
