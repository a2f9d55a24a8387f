//! Scatter documents that the installment planner plans (`scatter::installments`): those
//! with `installments`, `deadline`, a worker's `max_items` or `available_at`, or
//! `"root_mode": "distribute_only"`.
//!
//! The result has the usual envelope and a `plan` row per worker (its total, the block it
//! receives into, its first send and last finish), and `installments`, the chunks in send
//! order: `{"name", "rank", "count", "displacement", "share", "send_start", "send_end",
//! "compute_start", "compute_end"}`. With a deadline, `items` is what finishes in time and
//! `items_bound` the most any plan finishes.

use super::{name_of, read_doc, PlatformFile, WorkerEntry};
use crate::doc::json::Writer;
use crate::doc::model::{shares_in_order, timeline_document, written, Memory, Name, Piece, Planned};
use crate::doc::{begin_result, begin_row, write_answer};
use crate::error::Error;
use crate::platform::worker::Worker;
use crate::scatter::installments::{self as planner, Chunk, Installments, Problem, RootWork, Summary};
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
    let Platform { workers, caps, release, root } = platform(&file, entries, memory)?;
    // Room for as many rounds as the document allows (UMR, or the caps' rounds).
    let installments = file.installments.unwrap_or(Installments::AtMost(1));
    let sizes = planner::memory_for(p, installments).ok_or(Error::too_large(
        "workers",
        usize::MAX as u64,
        p as u64,
    ))?;
    let chunks = memory.slice("installments", sizes.chunks, Chunk::EMPTY)?;
    let mut m = planner_memory(memory, sizes, &mut *chunks)?;
    let problem = problem_of(&file, workers, caps, release, root, installments);
    let mut summary = planner::plan(&problem, &mut m)?;
    let one_round = file.deadline.is_none()
        && file.root_work != RootWork::None
        && caps.iter().all(|&c| c == u64::MAX)
        && release.iter().all(|&r| r == 0.0);
    if one_round {
        let mut one = file;
        one.installments = None;
        one.options.order = if p.saturating_sub(1) <= ONE_ROUND_SEARCH {
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
    // Each worker's row, gathered in one pass (one round over 10⁵ workers has 10⁵ chunks).
    let rows = memory.slice("plan rows", p, Row::EMPTY)?;
    for (i, c) in chunks.iter().enumerate() {
        if let Some(r) = rows.get_mut(c.worker) {
            if r.installments == 0 {
                r.first = i;
                r.computing = c.compute_start;
            }
            r.total += c.count;
            r.share += c.share;
            r.received = r.received.max(c.send_end);
            r.finish = r.finish.max(c.compute_end);
            r.installments += 1;
        }
    }
    let rows: &[Row] = rows;
    let document = written(memory, |buf| write(&file, entries, &summary, chunks, rows, buf))?;
    // Each worker's total, at its block, in the order of its first chunk.
    let firsts = firsts(chunks, rows).map(|(c, r)| (c.worker, r.total, c.displacement, true));
    let shares = shares_in_order(memory, p, firsts)?;
    let pieces = memory.slice("pieces", chunks.len(), Piece::default())?;
    for (piece, c) in pieces.iter_mut().zip(chunks) {
        *piece = Piece {
            worker: c.worker,
            count: c.count,
            displacement: c.displacement,
            send_start: c.send_start,
            send_end: c.send_end,
            compute_start: c.compute_start,
            compute_end: c.compute_end,
        };
    }
    Ok(Planned { document, report: summary.report(), shares, pieces })
}

/// A document's workers, caps and release times by rank, and its root.
struct Platform<'m> {
    workers: &'m [Worker<f64>],
    caps: &'m [u64],
    release: &'m [f64],
    root: usize,
}

fn platform<'m, M: Memory>(
    file: &PlatformFile<'_>,
    entries: &[WorkerEntry<'_>],
    memory: &'m M,
) -> Result<Platform<'m>, Error> {
    let p = file.workers;
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
        Some(name) => super::solve::rank_of(entries, name, "root", usize::MAX)?,
        None => return Err(crate::doc::missing("root", "installment plans need a fixed root: give root")),
    };
    Ok(Platform { workers, caps, release, root })
}

/// The planner's memory of `sizes` around `chunks`.
fn planner_memory<'m, M: Memory>(
    memory: &'m M,
    sizes: planner::Sizes,
    chunks: &'m mut [Chunk<f64>],
) -> Result<planner::Memory<'m, f64>, Error> {
    Ok(planner::Memory {
        chunks,
        tableau: memory.slice("LP tableau", sizes.tableau, 0.0f64)?,
        reals: memory.slice("installment reals", sizes.reals, 0.0f64)?,
        indices: memory.slice("installment indices", sizes.indices, 0usize)?,
    })
}

/// The planner's problem of `file` over its platform, with `installments`.
fn problem_of<'p>(
    file: &PlatformFile<'_>,
    workers: &'p [Worker<f64>],
    caps: &'p [u64],
    release: &'p [f64],
    root: usize,
    installments: Installments,
) -> Problem<'p, f64> {
    Problem {
        workers,
        root,
        root_work: file.root_work,
        items: file.items,
        deadline: file.deadline,
        max_items: caps,
        available_at: release,
        installments,
    }
}

/// The baselines of a document with installments, as the page sets them beside its plan
/// ([`Model::baselines`](crate::doc::Model::baselines)): `even`, the even split in one
/// installment (`MPI_Scatter`; left out with a deadline, which the even split does not
/// answer), and `one_round`, the planner's best plan of one installment with the same caps,
/// release times, root and deadline (left out when one installment cannot hold the items). Rows are chunks: `start` and `received` the transfer,
/// `finish` the end of the computation. `None` for a document of one round.
pub(super) fn baselines<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
    let (file, entries, _) = read_doc(text, memory)?;
    if file.installments.is_none() {
        return Ok(None);
    }
    let p = file.workers;
    let entries = entries.get(..file.entries).unwrap_or(entries);
    let Platform { workers, caps, release, root } = platform(&file, entries, memory)?;
    let sizes = planner::memory(p).ok_or(Error::too_large("workers", usize::MAX as u64, p as u64))?;
    let one = memory.slice("baseline chunks", sizes.chunks, Chunk::EMPTY)?;
    let even = memory.slice("baseline chunks", sizes.chunks, Chunk::EMPTY)?;
    let mut m = planner_memory(memory, sizes, &mut *one)?;
    let problem = problem_of(&file, workers, caps, release, root, Installments::AtMost(1));
    // Caps that one installment cannot hold have no single-installment plan to show; the
    // even split does not answer a deadline.
    let one_round = planner::plan(&problem, &mut m).ok().map(|s| s.chunks);
    let even_split = match file.deadline {
        None => {
            m.chunks = &mut *even;
            Some(planner::even_split_plan(&problem, &mut m)?.0)
        }
        Some(_) => None,
    };
    let rows = |chunks: &'m [Chunk<f64>], n: usize| {
        chunks
            .iter()
            .take(n)
            .map(|c| (c.worker, c.count, [c.send_start, c.send_end, c.compute_start, c.compute_end]))
    };
    let (one, even): (&'m [Chunk<f64>], &'m [Chunk<f64>]) = (one, even);
    written(memory, |buf| {
        let mut w = Writer::new(buf);
        w.begin_object();
        if let Some(n) = even_split {
            super::write_baseline(&mut w, "even", rows(even, n));
        }
        if let Some(n) = one_round {
            super::write_baseline(&mut w, "one_round", rows(one, n));
        }
        w.end_object();
        w.end("baselines JSON")
    })
    .map(Some)
}

/// Most workers besides the root whose one-round plan, planned beside the installments, is
/// the order search's: 2¹² sets of lines (2 MiB, tens of milliseconds), where the search's
/// own limit of 16 would add 33 MiB and most of a second to every such document.
const ONE_ROUND_SEARCH: usize = 12;

/// The timeline of an installment document (`divload simulate`), or `None` for a document
/// of one round.
///
/// One host per rank; a link from the root to each rank it sends to (its `comm_latency`,
/// and the bandwidth its per-item time gives, one byte per item). The root sends the
/// chunks in the planned sequence, one at a time, waiting where the plan leaves its port
/// idle, then computes its own share (or computes it in a second actor from the start
/// when it overlaps). Each other rank declares itself the permanent receiver of its
/// mailbox, so that a chunk flows to it while it computes the previous one (MPI's
/// receives posted in advance), waits for its release time, then takes and computes its
/// chunks in order. The worker actors come first: at time 0 they are receivers before the
/// root sends.
pub(super) fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
    let (file, entries, _) = read_doc(text, memory)?;
    if file.installments.is_none() {
        return Ok(None);
    }
    let entries = entries.get(..file.entries).unwrap_or(entries);
    let planned = plan(file, entries, memory)?;
    let p = file.workers;
    // Each rank's link and release time, by rank.
    let links = memory.slice("links", p, (0.0f64, 0.0f64, 0.0f64))?;
    let mut k = 0usize;
    for e in entries {
        for _ in 0..e.count {
            if let Some(l) = links.get_mut(k) {
                *l = (e.comm_latency, e.comm_per_item, e.available_at);
            }
            k += 1;
        }
    }
    let root = match file.root {
        Some(name) => super::solve::rank_of(entries, name, "root", usize::MAX)?,
        None => return Err(crate::doc::missing("root", "installment plans need a fixed root: give root")),
    };
    let pieces = planned.pieces;
    let sent = || pieces.iter().filter(|c| c.worker != root);
    let own = || pieces.iter().filter(|c| c.worker == root);
    // A rank receives when a chunk goes to it: its link, route and actor.
    let receives = |w: usize| w != root && pieces.iter().any(|c| c.worker == w);
    let bytes = |c: &Piece| if links.get(c.worker).is_some_and(|l| l.1 > 0.0) { c.count as f64 } else { 0.0 };
    let overlap = file.root_work == RootWork::Overlap;
    let last_send = sent().map(|c| c.send_end).fold(0.0, f64::max);
    let document = timeline_document(memory, |t| {
        t.0.key("hosts");
        t.0.begin_array();
        for rank in 0..p {
            t.host(rank as u64, Name::Doc(name_of(entries, rank)));
        }
        t.0.end_array();
        t.0.key("links");
        t.0.begin_array();
        for (w, &(latency, per_item, _)) in links.iter().enumerate().filter(|&(w, _)| receives(w)) {
            // One byte per item; a link of no time per item carries messages of no bytes.
            t.link(w as u64, if per_item > 0.0 { 1.0 / per_item } else { 1.0 }, latency);
        }
        t.0.end_array();
        t.0.key("routes");
        t.0.begin_array();
        for w in (0..p).filter(|&w| receives(w)) {
            t.route(root as u64, w as u64, w as u64);
        }
        t.0.end_array();
        t.0.key("actors");
        t.0.begin_array();
        for w in (0..p).filter(|&w| receives(w)) {
            t.actor(w as u64 + 2, w as u64, Name::Doc(name_of(entries, w)));
            t.receiver(w as u64);
            let release = links.get(w).map_or(0.0, |l| l.2);
            if release > 0.0 {
                t.sleep(release);
            }
            let mut end = 0.0f64;
            for c in pieces.iter().filter(|c| c.worker == w) {
                t.recv(w as u64);
                t.compute(c.compute_end - c.compute_start);
                end = c.compute_end;
            }
            t.end(end);
        }
        let root_name = Name::Doc(name_of(entries, root));
        t.actor(0, root as u64, root_name);
        let mut at = 0.0f64;
        for c in sent() {
            if c.send_start > at {
                t.sleep(c.send_start - at);
            }
            t.send(c.worker as u64, bytes(c));
            at = c.send_end;
        }
        if !overlap {
            for c in own() {
                if c.compute_start > at {
                    t.sleep(c.compute_start - at);
                }
                t.compute(c.compute_end - c.compute_start);
                at = c.compute_end;
            }
        }
        t.end(if overlap { last_send } else { at });
        if overlap && own().next().is_some() {
            t.actor(1, root as u64, root_name);
            let mut at = 0.0f64;
            for c in own() {
                if c.compute_start > at {
                    t.sleep(c.compute_start - at);
                }
                t.compute(c.compute_end - c.compute_start);
                at = c.compute_end;
            }
            t.end(at);
        }
        t.0.end_array();
    })?;
    Ok(Some(document))
}

/// A worker's part of a plan with installments: its chunks' totals, first chunk.
#[derive(Clone, Copy, Debug)]
struct Row {
    first: usize,
    total: u64,
    share: f64,
    received: f64,
    /// When its first chunk starts computing.
    computing: f64,
    finish: f64,
    installments: u64,
}

impl Row {
    const EMPTY: Row =
        Row { first: 0, total: 0, share: 0.0, received: 0.0, computing: 0.0, finish: 0.0, installments: 0 };
}

/// The first chunk of each worker, in send order, with the worker's row.
fn firsts<'a>(chunks: &'a [Chunk<f64>], rows: &'a [Row]) -> impl Iterator<Item = (&'a Chunk<f64>, &'a Row)> {
    chunks
        .iter()
        .enumerate()
        .filter_map(move |(i, c)| rows.get(c.worker).filter(|r| r.first == i).map(|r| (c, r)))
}

fn write(
    file: &PlatformFile<'_>,
    entries: &[WorkerEntry<'_>],
    m: &Summary<f64>,
    chunks: &[Chunk<f64>],
    rows: &[Row],
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
    write_answer(&mut w, &report, m.rational_makespan, None);
    w.numbers(&[("uniform_makespan", m.uniform_makespan), ("speedup", m.speedup())]);
    w.key("participating");
    w.u64(m.participating as u64);
    w.key("plan");
    w.begin_array();
    for (c, r) in firsts(chunks, rows) {
        begin_row(&mut w, name_of(entries, c.worker), c.worker, r.total, c.displacement);
        w.numbers(&[
            ("share", r.share),
            ("start", c.send_start),
            ("received", r.received),
            // The summary bar computes from the last arrival, or from a later release.
            ("compute_start", r.received.max(r.computing)),
            ("finish", r.finish),
        ]);
        w.key("installments");
        w.u64(r.installments);
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
