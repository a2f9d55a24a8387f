//! Scatter documents that the installment planner plans (`scatter::installments`): those
//! with `installments`, `deadline`, a worker's `max_items` or `available_at`, or
//! `"root_mode": "distribute_only"`.
//!
//! The result has the usual envelope and a `plan` row per worker (its total, the block it
//! receives into, its first send and last finish), and `installments`, the chunks in send
//! order: `{"name", "rank", "count", "displacement", "share", "send_start", "send_end",
//! "compute_start", "compute_end"}`. With a deadline, `items` is what finishes in time and
//! `items_bound` the most any plan finishes.

use super::{name_of, PlatformFile, WorkerEntry};
use crate::doc::json::Writer;
use crate::doc::model::{shares_in_order, written, Memory, Planned};
use crate::doc::{begin_result, begin_row};
use crate::error::Error;
use crate::platform::worker::Worker;
use crate::scatter::installments::{self as planner, Chunk, Installments, Problem, RootWork, Summary};
use crate::scatter::search::MAX_EXACT_WORKERS;
use crate::scatter::OrderPolicy;

/// Plans `file` (read into `entries`) with installments. Where the one-round solvers
/// apply too (no caps, release times, deadline, and a root that computes), their best plan
/// (the order search up to its size, else the bandwidth order) is planned as well and
/// kept when it is faster: a plan with installments is never worse than one round.
pub(super) fn plan<'s, 'm, M: Memory>(
    file: PlatformFile<'s>,
    entries: &'s [WorkerEntry<'s>],
    memory: &'m M,
) -> Result<Planned<'m>, Error> {
    let p = file.workers;
    let entries = entries.get(..file.entries).unwrap_or(entries);
    let workers = memory.slice("workers", p, Worker::linear(0.0, 1.0))?;
    let caps = memory.slice("max_items", p, u64::MAX)?;
    let release = memory.slice("available_at", p, 0.0f64)?;
    let mut k = 0usize;
    for e in entries {
        let w = Worker::try_from_f64(k, e.comm_latency, e.comm_per_item, e.comp_latency, e.comp_per_item)?;
        for _ in 0..e.count {
            if let (Some(slot), Some(cap), Some(r)) =
                (workers.get_mut(k), caps.get_mut(k), release.get_mut(k))
            {
                (*slot, *cap, *r) = (w, e.max_items, e.available_at);
            }
            k += 1;
        }
    }
    let root = match file.root {
        Some(name) => super::rank_of(entries, name, "root", usize::MAX)?,
        None => return Err(crate::doc::missing("root", "installment plans need a fixed root: give root")),
    };
    let sizes = planner::memory(p).ok_or(Error::too_large("workers", usize::MAX as u64, p as u64))?;
    let chunks = memory.slice("installments", sizes.chunks, Chunk::EMPTY)?;
    let mut m = planner::Memory {
        chunks: &mut *chunks,
        tableau: memory.slice("LP tableau", sizes.tableau, 0.0f64)?,
        reals: memory.slice("installment reals", sizes.reals, 0.0f64)?,
        indices: memory.slice("installment indices", sizes.indices, 0usize)?,
    };
    let problem = Problem {
        workers: &*workers,
        root,
        root_work: file.root_work,
        items: file.items,
        deadline: file.deadline,
        max_items: &*caps,
        available_at: &*release,
        installments: file.installments.unwrap_or(Installments::AtMost(1)),
    };
    let mut summary = planner::plan(&problem, &mut m)?;
    let one_round = file.deadline.is_none()
        && file.root_work != RootWork::None
        && caps.iter().all(|&c| c == u64::MAX)
        && release.iter().all(|&r| r == 0.0);
    if one_round {
        let mut one = file;
        one.installments = None;
        one.options.order = if p.saturating_sub(1) <= MAX_EXACT_WORKERS {
            OrderPolicy::Search
        } else {
            OrderPolicy::Bandwidth
        };
        let run = super::solve_doc(one, entries, &[], memory)?;
        let s = run.solved.summary;
        if s.makespan < summary.makespan {
            let mut k = 0;
            for a in run.plan.iter().filter(|a| a.count > 0) {
                if let Some(c) = chunks.get_mut(k) {
                    *c = Chunk {
                        worker: a.worker,
                        count: a.count,
                        displacement: a.displacement,
                        share: a.share,
                        send_start: a.start,
                        send_end: a.received,
                        compute_start: a.received,
                        compute_end: a.finish,
                    };
                    k += 1;
                }
            }
            summary = Summary {
                makespan: s.makespan,
                rational_makespan: s.rational_makespan,
                // The installment planner's bound covers every sequence; one round's
                // only the orders of one round.
                lower_bound: summary.lower_bound.min(s.makespan),
                chunks: k,
                rounds: 1,
                participating: s.participating,
                method: s.method,
                ..summary
            };
        }
    }
    let chunks: &[Chunk<f64>] = chunks.get(..summary.chunks).unwrap_or_default();
    let document = written(memory, |buf| write(&file, entries, &summary, chunks, buf))?;
    // Each worker's total, at its block, in the order of its first chunk.
    let rows = chunks
        .iter()
        .enumerate()
        .filter(|(i, c)| first_of(chunks, *i, c.worker))
        .map(|(_, c)| (c.worker, total(chunks, c.worker), c.displacement, true));
    let shares = shares_in_order(memory, p, rows)?;
    Ok(Planned { document, report: summary.report(), shares })
}

fn first_of(chunks: &[Chunk<f64>], i: usize, worker: usize) -> bool {
    !chunks.iter().take(i).any(|c| c.worker == worker)
}

fn total(chunks: &[Chunk<f64>], worker: usize) -> u64 {
    chunks.iter().filter(|c| c.worker == worker).map(|c| c.count).sum()
}

fn write(
    file: &PlatformFile<'_>,
    entries: &[WorkerEntry<'_>],
    m: &Summary<f64>,
    chunks: &[Chunk<f64>],
    out: &mut [u8],
) -> Result<usize, Error> {
    let mut w = Writer::new(out);
    let report = m.report();
    begin_result(&mut w, "scatter");
    w.key("items");
    w.u64(m.items);
    if let Some(deadline) = file.deadline {
        w.key("deadline");
        w.f64(deadline);
        w.key("items_bound");
        w.u64(m.items_bound);
    }
    super::write_root(&mut w, file, entries, m.root);
    w.key("installments");
    match file.installments {
        Some(Installments::AtMost(r)) => w.u64(u64::from(r)),
        _ => w.str("auto"),
    }
    w.key("rounds");
    w.u64(u64::from(m.rounds));
    w.key("method");
    w.str(m.method.name());
    w.numbers(&[
        ("makespan", m.makespan),
        ("rational_makespan", m.rational_makespan),
        ("lower_bound", m.lower_bound),
        ("gap", report.gap()),
    ]);
    w.key("exact");
    w.bool(report.exact);
    w.numbers(&[("uniform_makespan", m.uniform_makespan), ("speedup", m.speedup())]);
    w.key("participating");
    w.u64(m.participating as u64);
    w.key("plan");
    w.begin_array();
    for (i, c) in chunks.iter().enumerate().filter(|(i, c)| first_of(chunks, *i, c.worker)) {
        let mine = || chunks.iter().skip(i).filter(|d| d.worker == c.worker);
        begin_row(&mut w, name_of(entries, c.worker), c.worker, total(chunks, c.worker), c.displacement);
        w.numbers(&[
            ("share", mine().map(|d| d.share).sum()),
            ("start", c.send_start),
            ("received", mine().map(|d| d.send_end).fold(0.0, f64::max)),
            ("finish", mine().map(|d| d.compute_end).fold(0.0, f64::max)),
        ]);
        w.key("installments");
        w.u64(mine().count() as u64);
        w.end_object();
    }
    w.end_array();
    w.key("chunks");
    w.begin_array();
    for c in chunks {
        begin_row(&mut w, name_of(entries, c.worker), c.worker, c.count, c.displacement);
        w.numbers(&[
            ("share", c.share),
            ("send_start", c.send_start),
            ("send_end", c.send_end),
            ("compute_start", c.compute_start),
            ("compute_end", c.compute_end),
        ]);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.end("result JSON")
}
