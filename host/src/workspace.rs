//! The scatter's closed-form path with memory kept between calls: an MPI code that
//! re-plans every iteration, or a Python session calling `scatter_counts` in a loop, pays
//! for its buffers once (issue 45). Planning again for as many workers allocates nothing
//! and writes no buffer twice; more workers grow the buffers, fallibly.

use divload::scatter::search::{search_memory, Line};
use divload::{Assignment, Options, OrderPolicy, Problem, Root, Scratch, Summary, Worker};

use crate::HostError;

/// Buffers for [`Workspace::plan`], grown to the largest platform planned so far.
#[derive(Debug, Default)]
pub struct Workspace {
    workers: Vec<Worker<f64>>,
    plan: Vec<Assignment<f64>>,
    scratch: Vec<Scratch<f64>>,
    lines: Vec<Line>,
}

impl Workspace {
    /// An empty workspace: the first plan allocates.
    pub const fn new() -> Workspace {
        Workspace { workers: Vec::new(), plan: Vec::new(), scratch: Vec::new(), lines: Vec::new() }
    }

    /// A workspace ready for `p` workers.
    ///
    /// # Errors
    ///
    /// [`HostError::OutOfMemory`] when the buffers cannot be had.
    pub fn with_workers(p: usize) -> Result<Workspace, HostError> {
        let mut w = Workspace::new();
        w.fit(p, 0)?;
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
        let lines = match options.order {
            OrderPolicy::Search => search_memory(p).unwrap_or(0),
            _ => 0,
        };
        fit(&mut self.workers, "workers", p, Worker::linear(0.0, 1.0))?;
        self.fit(p, lines)?;
        let workers = self.workers.get(..p).unwrap_or_default();
        Self::run(workers, &mut self.plan, &mut self.scratch, &mut self.lines, root, items, options, lines)
    }

    /// Plans `workers`, the caller's, as [`Workspace::plan`] plans its own: a C caller's
    /// array is read where it is, not copied (issue 45: 32 bytes a worker).
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
        let p = workers.len();
        let lines = match options.order {
            OrderPolicy::Search => search_memory(p).unwrap_or(0),
            _ => 0,
        };
        self.fit(p, lines)?;
        Self::run(workers, &mut self.plan, &mut self.scratch, &mut self.lines, root, items, options, lines)
    }

    #[allow(clippy::too_many_arguments)]
    fn run<'a>(
        workers: &[Worker<f64>],
        plan: &'a mut [Assignment<f64>],
        scratch: &mut [Scratch<f64>],
        lines: &mut [Line],
        root: usize,
        items: u64,
        options: Options,
        lines_len: usize,
    ) -> Result<(&'a [Assignment<f64>], Summary<f64>), HostError> {
        let p = workers.len();
        let out = plan.get_mut(..p).unwrap_or_default();
        let scratch = scratch.get_mut(..p).unwrap_or_default();
        let lines = lines.get_mut(..lines_len).unwrap_or_default();
        let problem = Problem { workers, root: Root::Fixed(root), items, options };
        let summary = divload::scatter::plan_searched(&problem, out, scratch, lines)?;
        Ok((plan.get(..p).unwrap_or_default(), summary))
    }

    /// The plan's buffers for `p` workers (the workers' own are grown by their callers).
    fn fit(&mut self, p: usize, lines: usize) -> Result<(), HostError> {
        fit(&mut self.plan, "plan", p, Assignment::EMPTY)?;
        fit(&mut self.scratch, "scratch", p, Scratch::EMPTY)?;
        fit(&mut self.lines, "order search", lines, Line::EMPTY)
    }
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
