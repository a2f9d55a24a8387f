//! The multi-cluster model's documents (heien; the solver is [`crate::multicluster`]):
//! platform documents in, result documents out, strict JSON without allocation.
//!
//! ```json
//! {"version": 1, "model": "multicluster",
//!  "clusters": [{"name": "a", "processors": 8}, {"name": "b", "processors": 8, "speed": 1.5}],
//!  "links": {"fast": {"latency": 45e-6, "overhead": 5e-6, "gap": 5e-8},
//!            "slow": {"latency": 400e-6, "overhead": 10e-6, "gap": 5e-7},
//!            "pairs": [{"first": "a", "second": "b", "latency": 1e-3, "overhead": 1e-5, "gap": 1e-6}]},
//!  "application": {"pattern": "ring", "lattice": 8192, "flip_time": 0.55e-6, "steps": 20},
//!  "what_if": [{"name": "+8P", "clusters": [{"name": "c", "processors": 8}]}]}
//! ```
//!
//! Times in seconds (gaps per word). `application` is a `ring` (`lattice`, `flip_time`,
//! `steps`), an `all_to_all` (`objects`, `chunk`, `sort_time`, `words_per_object`) or
//! `custom` (`units`, `iterations`, `costs`: one `{"per_load", "fixed"}` per cluster, in
//! the clusters' order; `links` may then be left out). `fixed_costs` is `"balanced"`
//! (default) or `"ignored"` (the paper's sort split). `pairs` name clusters of `clusters`;
//! the clusters of a `what_if` addition use `slow` towards every other cluster.
//!
//! Memory is the caller's: [`sizes`] counts the lists, [`parse`] fills them.
//!
//! Why one file: the reader, the writer and the timeline share the document's lists
//! (clusters by name, links, pairs, the three applications and the what-if additions)
//! and their checks in one place; split by direction, every key would be named in two
//! files that must agree.

use crate::doc::json::{Str, Writer};
use crate::doc::model::{
    limits, timeline_document, written, Effort, Memory, Model, Name, Planned, Share, Timeline,
};
use crate::doc::names::Names;
use crate::doc::schema::{field, Chart, ChartKind, Field as Key, Kind, Phase, Range, NON_NEGATIVE, POSITIVE};
use crate::doc::{begin_result, missing, write_answer, Doc, Keys, NameKey};
use crate::error::{Detail, Error};
use crate::multicluster::{
    self as model, Application, Class, Cluster, FixedCosts, Link, Links, Options, PairLink, Pattern, Problem,
    Processor, StepCost, Summary, WhatIf,
};
use crate::num::range::range;

/// The multi-cluster application's communication pattern ([`Pattern`]).
pub const PATTERN: Names<Pattern> = Names {
    key: "pattern",
    table: &[("ring", Pattern::Ring), ("all_to_all", Pattern::AllToAll), ("custom", Pattern::Custom)],
    expected: "must be \"ring\", \"all_to_all\" or \"custom\"",
};

/// Whether the multi-cluster split balances the fixed costs ([`FixedCosts`]).
pub const FIXED_COSTS: Names<FixedCosts> = Names {
    key: "fixed_costs",
    table: &[("balanced", FixedCosts::Balanced), ("ignored", FixedCosts::Ignored)],
    expected: "must be \"balanced\" or \"ignored\"",
};

/// The multi-cluster model in the registry.
#[derive(Debug)]
pub struct Multicluster;

impl Model for Multicluster {
    const TITLE: &'static str = "iterative codes on clusters behind slow links (ring or all-to-all exchanges): BIASED load per processor, what-if";
    const PAPER: &'static str = "Heien, Fujimoto, Hagihara: multi-cluster extended LogP, BIASED distribution (eqs. 4-15, Tables 2-4; eq. 14 corrected)";
    const EXAMPLE: &'static str = EXAMPLE;
    const SCHEMA: &'static [Key] = &[
        field("clusters", Kind::List(CLUSTER_FIELDS), ""),
        field("links", Kind::Object(LINKS_FIELDS), "LogP"),
        field("application", Kind::Json, "{pattern: ring, all_to_all or custom, ...}"),
        field("fixed_costs", Kind::Choice(&FIXED_COSTS), ""),
        field("what_if", Kind::List(ADDITION_FIELDS), "clusters that may be added"),
    ];
    const GANTT: &'static [Phase] = &[Phase { label: "step", start: "", end: "step_time" }];
    // The clusters in the order the ring crosses them (heien §4: the order search).
    const CHARTS: &'static [Chart] = &[Chart {
        title: "the clusters along the ring",
        kind: ChartKind::Cycle,
        list: "ring_order",
        x: "",
        y: "",
        group: "",
    }];

    /// Linear in the processors (with the largest addition), the ring order search over
    /// at most 8 clusters aside.
    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error> {
        let (_, lists, _) = read_in(text, memory)?;
        let count = |c: &[ClusterEntry<'_>]| c.iter().map(|e| u64::from(e.cluster.processors)).sum::<u64>();
        let p = count(lists.clusters).saturating_add(count(lists.extra));
        Ok(Effort { workers: p, work: p.saturating_mul(64).saturating_add(40_320) })
    }

    /// One step of the application, as each pattern's step time counts it. A `ring`:
    /// each taking processor, along the ring (clusters in the plan's ring order, their
    /// processors in order), computes, then sends its border to its successor and then to
    /// its predecessor, each message of 4 words over a link of latency `L + 2o` and `g`
    /// seconds per word, so that it takes eq. (2)–(3)'s `L + 2o + 4g`; each message has a
    /// receiving actor of its own. A computation is the step time less the two exchanges.
    /// An `all_to_all` code: `write_all_to_all` (below). A `custom` one: each taking processor
    /// computes its `per_load·F/speed`, then waits its `fixed` seconds (no messages: the
    /// model has none).
    fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        planned(text, memory, false, |file, summary, plan| {
            let procs = plan.processors;
            let document = match file.application {
                Application::Ring { .. } => {
                    let ring = memory.slice("ring", procs.len(), 0usize)?;
                    let mut q = 0;
                    for c in (0..summary.ring_order.len()).filter_map(|i| summary.ring_order.get(i)) {
                        for (k, _) in
                            procs.iter().enumerate().filter(|(_, p)| p.cluster == c && p.participates)
                        {
                            if let Some(slot) = ring.get_mut(q) {
                                *slot = k;
                                q += 1;
                            }
                        }
                    }
                    let ring: &[usize] = &ring[..q];
                    timeline_document(memory, |t| write_timeline(t, plan, ring))?
                }
                Application::AllToAll { objects, chunk, sort_time, words_per_object } => {
                    let members = taking_part(memory, procs)?;
                    if members.len() > MAX_ALL_TO_ALL_TIMELINE {
                        return Err(Error::limit(
                            "processors taking part in an all_to_all timeline (a link per pair of them)",
                            MAX_ALL_TO_ALL_TIMELINE as u64,
                            members.len() as u64,
                        ));
                    }
                    let step = SortStep {
                        processors: members.len() as f64,
                        objects: objects as f64,
                        words: words_per_object * chunk as f64,
                        sort_time,
                    };
                    let arrivals = memory.slice("arrivals", members.len(), 0.0f64)?;
                    for k in 0..members.len() {
                        let mut now = step.sort(plan, members, k);
                        for m in step.peers(k, members.len()) {
                            now += step.message(plan, members, k, m).seconds();
                            if let Some(a) = arrivals.get_mut(m) {
                                *a = a.max(now);
                            }
                        }
                    }
                    let arrivals: &[f64] = arrivals;
                    timeline_document(memory, |t| write_all_to_all(t, plan, members, &step, arrivals))?
                }
                Application::Custom { units, .. } => {
                    let members = taking_part(memory, procs)?;
                    timeline_document(memory, |t| write_custom(t, plan, members, units as f64))?
                }
            };
            Ok(Some(document))
        })
    }

    /// The BIASED plan, and each `what_if` addition's predicted time.
    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        planned(text, memory, true, |file, summary, written_| {
            let document = written(memory, |buf| write_result(file, summary, written_, buf))?;
            let shares = shares(memory, written_.processors)?;
            Ok(Planned { document, report: summary.report, shares, pieces: &[] })
        })
    }
}

/// The processors' shares: positions along the ring, where the blocks follow each other
/// (clusters in the plan's ring order, the processors of a cluster in document order);
/// processors left out have none. The clusters taking part are ordered by their first
/// displacement (a sort of the clusters, not of the processors: O(p) for p processors).
fn shares<'m, M: Memory>(memory: &'m M, processors: &[Processor]) -> Result<&'m [Share], Error> {
    let clusters = processors.iter().map(|p| p.cluster.saturating_add(1)).max().unwrap_or(0);
    // Per cluster: its first displacement and its processors taking part.
    let blocks = memory.slice("cluster blocks", clusters, (u64::MAX, 0u32))?;
    for p in processors.iter().filter(|p| p.participates) {
        if let Some(b) = blocks.get_mut(p.cluster) {
            *b = (b.0.min(p.displacement), b.1.saturating_add(1));
        }
    }
    let order = memory.slice("cluster order", clusters, 0usize)?;
    for (k, o) in order.iter_mut().enumerate() {
        *o = k;
    }
    let first = |c: &usize| blocks.get(*c).map_or(u64::MAX, |b| b.0);
    crate::kernel::sort::sort_by(order, |a, b| first(a) < first(b));
    // The position of each cluster's first processor taking part.
    let before = memory.slice("cluster positions", clusters, 0u32)?;
    let mut next = 0u32;
    for &c in order.iter() {
        if let (Some(slot), Some(b)) = (before.get_mut(c), blocks.get(c)) {
            *slot = next;
            next = next.saturating_add(b.1);
        }
    }
    let shares = memory.slice("shares", processors.len(), Share::EMPTY)?;
    for (s, p) in shares.iter_mut().zip(processors) {
        let position = if p.participates { before.get_mut(p.cluster) } else { None };
        *s = Share {
            count: p.count,
            displacement: p.displacement,
            position: position.map(|at| {
                let here = *at;
                *at = here.saturating_add(1);
                here
            }),
        };
    }
    Ok(shares)
}

/// The base plan of a multicluster document as data, for front ends that hand out counts
/// rather than a result document (`libdivload`'s `divload_plan_multicluster`, the MPI
/// helper on top of it): one entry per processor in the document's order (clusters as
/// listed, the processors of each in order), and the summary. `what_if` additions are
/// read and checked but not planned.
///
/// # Errors
///
/// As [`Model::plan`]; the reader's errors for a document of another model
/// (`model: must be "multicluster"`, or an unknown key when `model` is left out).
pub fn processors<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<(&'m [Processor], Summary), Error> {
    let planned = planned(text, memory, false, |_, summary, written_| {
        let copy = memory.slice("processors", written_.processors.len(), Processor::EMPTY)?;
        copy.copy_from_slice(written_.processors);
        Ok((&*copy, *summary))
    });
    // A document of another model (a scatter document has no "model") fails on its first
    // key the reader does not know: name the mistake instead.
    match planned {
        Err(_) if super::model_of(text).map(|m| m.name) != Ok("multicluster") => Err(Error::json(
            "must be \"multicluster\" for this entry point (plan other models' documents with divload_plan_json)",
            Detail::Entry { list: "model", index: usize::MAX, field: "" },
        )),
        other => other,
    }
}

/// The link between two processors' clusters: fast inside one, else the pair's own slow
/// link if the document gives one, else the slow link.
fn link_between(links: &Links<'_>, a: usize, b: usize) -> Link {
    if a == b {
        return links.fast;
    }
    let pair = links.pairs.iter().find(|l| (l.first, l.second) == (a, b) || (l.first, l.second) == (b, a));
    pair.map_or(links.slow, |l| l.link)
}

/// See [`Multicluster`]'s `timeline`: `ring` holds the indices of the taking processors
/// in ring order. A processor's host is its index; the link of member `k`'s message to
/// its successor is `2k`, to its predecessor `2k + 1` (the successor's when they are the
/// same processor, as in a ring of two).
fn write_timeline(t: &mut Timeline<'_, '_>, plan: &Written<'_, '_>, ring: &[usize]) {
    let q = ring.len();
    let procs = plan.processors;
    let proc = |k: usize| ring.get(k % q.max(1)).and_then(|&i| procs.get(i).map(|p| (i, p)));
    let name = |i: usize| {
        let cluster = procs.get(i).map_or(usize::MAX, |p| p.cluster);
        Name::Doc(plan.lists.clusters.get(cluster).map_or(Str::EMPTY, |e| e.name))
    };
    // Member k's two messages: (to, link, mailbox, seconds, link's latency and gap).
    let messages = |k: usize| {
        let (Some((_, p)), Some((s, ps)), Some((r, pr))) = (proc(k), proc(k + 1), proc(k + q - 1)) else {
            return [None, None];
        };
        let to = |j: usize, pj: &Processor, id: usize| {
            let l = link_between(&plan.links, p.cluster, pj.cluster);
            (j, id, l.latency + 2.0 * l.overhead, l.gap)
        };
        let back = if r == s { 2 * k } else { 2 * k + 1 };
        if q < 2 {
            [None, None]
        } else {
            [Some(to(s, ps, 2 * k)), Some(to(r, pr, back))]
        }
    };
    let exchange = |(_, _, lat, gap): (usize, usize, f64, f64)| lat + 4.0 * gap;
    t.0.key("hosts");
    t.0.begin_array();
    for k in 0..q {
        if let Some((i, _)) = proc(k) {
            t.host(i as u64, name(i));
        }
    }
    t.0.end_array();
    for (key, route) in [("links", false), ("routes", true)] {
        t.0.key(key);
        t.0.begin_array();
        for k in 0..q {
            let Some((i, _)) = proc(k) else { continue };
            for (n, m) in messages(k).into_iter().flatten().enumerate() {
                let (to, id, latency, gap) = m;
                // A ring of two sends both messages to one neighbour over one link.
                if n == 1 && id == 2 * k {
                    continue;
                }
                if route {
                    t.route(i as u64, to as u64, id as u64);
                } else if gap > 0.0 {
                    t.link(id as u64, 1.0 / gap, latency);
                } else {
                    t.link(id as u64, 1.0, latency);
                }
            }
        }
        t.0.end_array();
    }
    t.0.key("actors");
    t.0.begin_array();
    for k in 0..q {
        let Some((i, p)) = proc(k) else { continue };
        let msgs = messages(k);
        let comm: f64 = msgs.iter().flatten().map(|&m| exchange(m)).sum();
        t.actor(3 * k as u64, i as u64, name(i));
        let mut now = (p.step_time - comm).max(0.0);
        t.compute(now);
        let mut arrivals = [0.0f64; 2];
        for (n, m) in msgs.iter().enumerate() {
            if let Some(m) = *m {
                t.send((2 * k + n) as u64, if m.3 > 0.0 { 4.0 } else { 0.0 });
                now += exchange(m);
                arrivals[n] = now;
            }
        }
        t.end(now);
        for (n, m) in msgs.iter().enumerate() {
            if let Some((to, _, _, _)) = *m {
                t.actor(3 * k as u64 + 1 + n as u64, to as u64, name(to));
                t.recv((2 * k + n) as u64);
                t.end(arrivals[n]);
            }
        }
    }
    t.0.end_array();
}

/// Most processors an `all_to_all` timeline plays: it has a link and a message for
/// every ordered pair of them (65 280 at this size, a few MB of timeline).
const MAX_ALL_TO_ALL_TIMELINE: usize = 256;

/// The indices of the processors taking part, in document order.
fn taking_part<'m, M: Memory>(memory: &'m M, procs: &[Processor]) -> Result<&'m [usize], Error> {
    let members = memory.slice("processors taking part", procs.len(), 0usize)?;
    let mut q = 0;
    for (i, _) in procs.iter().enumerate().filter(|(_, p)| p.participates) {
        if let Some(slot) = members.get_mut(q) {
            *slot = i;
            q += 1;
        }
    }
    Ok(&members[..q])
}

/// A processor's name in a timeline: its cluster's.
fn cluster_name<'a>(plan: &Written<'_, 'a>, i: usize) -> Name<'a> {
    let cluster = plan.processors.get(i).map_or(usize::MAX, |p| p.cluster);
    Name::Doc(plan.lists.clusters.get(cluster).map_or(Str::EMPTY, |e| e.name))
}

/// One chunk step of the bucket sort (heien §3.2, eqs. 9–11) over the `processors`
/// taking part, as `multicluster::classes::build` charges it: `P` is `processors`, `D·K`
/// is `words`, and a processor with `x` of the `S = objects` objects has `F = x/S`.
struct SortStep {
    processors: f64,
    objects: f64,
    words: f64,
    sort_time: f64,
}

/// One message of a sort step: `words` over a link of latency `L + 2o` shared `sharing`
/// ways at `g` seconds per word.
struct Message {
    latency: f64,
    words: f64,
    sharing: f64,
    gap: f64,
}

impl Message {
    /// `L + 2o + sharing·g·words`: heien's `T_f` and `T_s` (L152), the contention rule
    /// (L147) giving each of a sender's `M` messages over one kind of link `M·g` per word.
    fn seconds(&self) -> f64 {
        self.latency + self.words * (self.sharing * self.gap)
    }

    /// The link's bandwidth and the message's bytes that make a transfer take
    /// [`Message::seconds`] in the one-port model (`latency + bytes/bandwidth`): the
    /// message is its words in whole bytes (4 a word, heien's g being per 4-byte word;
    /// a simulator's messages are whole bytes) and the link carries them at the rate
    /// `bytes/(M·g·words)`, about `4/(M·g)` bytes a second; a message that takes no time
    /// beyond its latency has no bytes.
    fn link(&self) -> (f64, f64) {
        let transfer = self.words * (self.sharing * self.gap);
        // `as` saturates (and reads NaN as 0): the rate below follows whatever it gives.
        let bytes = ((4.0 * self.words + 0.5) as u64).max(1) as f64;
        if transfer > 0.0 && (bytes / transfer).is_finite() {
            (bytes / transfer, bytes)
        } else {
            (1.0, 0.0)
        }
    }
}

impl SortStep {
    /// `F` of member `k`.
    fn fraction(&self, plan: &Written<'_, '_>, members: &[usize], k: usize) -> f64 {
        let count = members.get(k).and_then(|&i| plan.processors.get(i)).map_or(0, |p| p.count);
        count as f64 / self.objects
    }

    /// The sort of member `k`'s chunk: eq. 9 per chunk, `P·T_sort·F/speed` (the chunk is
    /// `K·F·P` objects, `T_sort` per `K` of them).
    fn sort(&self, plan: &Written<'_, '_>, members: &[usize], k: usize) -> f64 {
        let cluster = members.get(k).and_then(|&i| plan.processors.get(i)).map_or(usize::MAX, |p| p.cluster);
        let speed = plan.lists.clusters.get(cluster).map_or(1.0, |e| e.cluster.speed);
        self.processors * self.sort_time / speed * self.fraction(plan, members, k)
    }

    /// The members member `k` sends to, in turn: `k + 1, …, q − 1, 0, …, k − 1` (the
    /// model charges the messages one after another, eq. 10, in no particular order).
    fn peers(&self, k: usize, q: usize) -> impl Iterator<Item = usize> {
        (1..q).map(move |d| (k + d) % q)
    }

    /// Member `k`'s message to member `m`: `K·F` objects of `D` words (L147). Inside its
    /// cluster over the fast link shared by its `r` fast messages; to a processor of
    /// another cluster `j` over the pair's slow link, shared by all its `P − r − 1` slow
    /// messages. Summed over the peers, `r·(L_f + 2o_f) + D·K·g_f·r²·F` and
    /// `Σⱼ nⱼ·(L_j + 2o_j) + D·K·(P − r − 1)·Σⱼ nⱼ·g_j·F`: eq. 11's `b` and `a` less the
    /// sort, as `classes::build` sums them (with one slow link, `(P − r − 1)·(L_s + 2o_s)`
    /// and `g_s·(P − r − 1)²`).
    fn message(&self, plan: &Written<'_, '_>, members: &[usize], k: usize, m: usize) -> Message {
        let cluster =
            |k: usize| members.get(k).and_then(|&i| plan.processors.get(i)).map_or(usize::MAX, |p| p.cluster);
        let (from, to) = (cluster(k), cluster(m));
        let mates = (0..members.len()).filter(|&j| cluster(j) == from).count() as f64 - 1.0;
        let link = link_between(&plan.links, from, to);
        Message {
            latency: link.latency + 2.0 * link.overhead,
            words: self.words * self.fraction(plan, members, k),
            sharing: if from == to { mates } else { self.processors - 1.0 - mates },
            gap: link.gap,
        }
    }
}

/// See [`Multicluster`]'s `timeline`: one chunk step of the bucket sort over the
/// processors taking part (`members`, document order). Member `k` runs on host `i` (its
/// processor's index) as actor `2k`: it sorts its chunk, then sends one message to every
/// other member in turn ([`SortStep::message`]), each over a link of its own (`k·q + m`
/// to member `m`), so that no two messages share one unless the model says so: the
/// contention the model charges is in each link's bandwidth. Actor `2k + 1`, on the same
/// host, accepts the `q − 1` messages to it from mailbox `k` at once. `arrivals` holds
/// when each member's last message arrives.
fn write_all_to_all(
    t: &mut Timeline<'_, '_>,
    plan: &Written<'_, '_>,
    members: &[usize],
    step: &SortStep,
    arrivals: &[f64],
) {
    let q = members.len();
    t.0.key("hosts");
    t.0.begin_array();
    for &i in members {
        t.host(i as u64, cluster_name(plan, i));
    }
    t.0.end_array();
    for (key, route) in [("links", false), ("routes", true)] {
        t.0.key(key);
        t.0.begin_array();
        for (k, &i) in members.iter().enumerate() {
            for m in step.peers(k, q) {
                let id = (k * q + m) as u64;
                if route {
                    t.route(i as u64, members.get(m).copied().unwrap_or(0) as u64, id);
                } else {
                    let message = step.message(plan, members, k, m);
                    t.link(id, message.link().0, message.latency);
                }
            }
        }
        t.0.end_array();
    }
    t.0.key("actors");
    t.0.begin_array();
    for (k, &i) in members.iter().enumerate() {
        t.actor(2 * k as u64, i as u64, cluster_name(plan, i));
        t.compute(step.sort(plan, members, k));
        for m in step.peers(k, q) {
            t.send(m as u64, step.message(plan, members, k, m).link().1);
        }
        t.end(plan.processors.get(i).map_or(0.0, |p| p.step_time));
        if q > 1 {
            t.actor(2 * k as u64 + 1, i as u64, cluster_name(plan, i));
            t.recv_all(k as u64, q as u64 - 1);
            t.end(arrivals.get(k).copied().unwrap_or(0.0));
        }
    }
    t.0.end_array();
}

/// See [`Multicluster`]'s `timeline`: member `k` (processor `i`, host `i`) computes its
/// class's `per_load·x/units` (`per_load/speed`, as `classes::build` gives it) and then
/// waits its `fixed` seconds. Its predicted end is its step time.
fn write_custom(t: &mut Timeline<'_, '_>, plan: &Written<'_, '_>, members: &[usize], units: f64) {
    for key in ["hosts", "links", "routes"] {
        t.0.key(key);
        t.0.begin_array();
        if key == "hosts" {
            for &i in members {
                t.host(i as u64, cluster_name(plan, i));
            }
        }
        t.0.end_array();
    }
    t.0.key("actors");
    t.0.begin_array();
    for (k, &i) in members.iter().enumerate() {
        let Some(p) = plan.processors.get(i) else { continue };
        let class = plan.classes.iter().find(|c| c.cluster == p.cluster && c.participates);
        let (per_load, fixed) = class.map_or((0.0, 0.0), |c| (c.per_load, c.fixed));
        t.actor(k as u64, i as u64, cluster_name(plan, i));
        t.compute(per_load * p.count as f64 / units);
        if fixed > 0.0 {
            t.sleep(fixed);
        }
        t.end(p.step_time);
    }
    t.0.end_array();
}

/// Reads a document into lists taken from `memory`, sized by a first reading.
fn read_in<'m, M: Memory>(
    text: &'m [u8],
    memory: &'m M,
) -> Result<(Sizes, Lists<'m, 'm>, MulticlusterFile), Error> {
    let sizes = sizes(text)?;
    let mut lists = Lists {
        clusters: memory.slice("cluster entries", sizes.clusters, ClusterEntry::EMPTY)?,
        pairs: memory.slice("pair entries", sizes.pairs, PairEntry::EMPTY)?,
        costs: memory.slice("cost entries", sizes.costs, StepCost { per_load: 0.0, fixed: 0.0 })?,
        additions: memory.slice("what_if entries", sizes.additions, AdditionEntry::EMPTY)?,
        extra: memory.slice("what_if clusters", sizes.extra, ClusterEntry::EMPTY)?,
    };
    let file = parse(text, &mut lists)?;
    Ok((sizes, lists, file))
}

/// Reads a multicluster document, plans it (and its `what_if` additions when `what_if`)
/// in `memory`, and hands the plan to `finish` while the buffers live.
fn planned<R, M: Memory>(
    text: &[u8],
    memory: &M,
    what_if: bool,
    finish: impl FnOnce(&MulticlusterFile, &Summary, &Written<'_, '_>) -> Result<R, Error>,
) -> Result<R, Error> {
    let (sizes, lists, file) = read_in(text, memory)?;
    // The front ends' limit, checked before the model's larger one (2²⁴) could name another.
    let processors = file.processors(&lists, what_if);
    if processors > limits::MAX_WORKERS as u64 {
        return Err(Error::limit(
            if what_if {
                "processors (all clusters, with the largest what_if addition)"
            } else {
                "processors (all clusters)"
            },
            limits::MAX_WORKERS as u64,
            processors,
        ));
    }
    let base = memory.slice("clusters", sizes.clusters, Cluster::new(1))?;
    let links =
        memory.slice("pair links", sizes.pairs, PairLink { first: 0, second: 0, link: Link::PAPER_SLOW })?;
    let problem = file.problem(&lists, base, links)?;
    let keys =
        memory.slice("name keys", sizes.additions.max(sizes.clusters + sizes.extra), NameKey::EMPTY)?;
    check_what_if_names(&file, &lists, keys)?;
    let extra = memory.slice("what_if clusters", lists.extra.len(), Cluster::new(1))?;
    for (c, e) in extra.iter_mut().zip(lists.extra.iter()) {
        *c = e.cluster;
    }
    let extra: &[Cluster] = extra;
    let candidates = memory.slice("what_if", if what_if { lists.additions.len() } else { 0 }, &[][..])?;
    for (c, a) in candidates.iter_mut().zip(lists.additions.iter()) {
        *c = extra.get(a.first..a.first + a.len).unwrap_or(&[]);
    }
    let candidates: &[&[Cluster]] = candidates;
    // Sized (and every capacity checked) by the model before anything large is allocated.
    let needs = model::what_if_needs(&problem, candidates)?;
    let classes = memory.slice("classes", needs.classes, Class::EMPTY)?;
    let processors = memory.slice("processors", needs.processors, Processor::EMPTY)?;
    let answers = memory.slice("what_if answers", candidates.len(), WhatIf::EMPTY)?;
    if !candidates.is_empty() {
        model::what_if(&problem, candidates, classes, processors, answers)?;
    }
    // The base plan last, so the buffers hold it.
    let summary = model::plan(&problem, classes, processors)?;
    let p: usize = problem.clusters.iter().map(|c| c.processors as usize).sum();
    let processors: &[Processor] = processors;
    let written_ = Written {
        lists: &lists,
        classes,
        processors: processors.get(..p).unwrap_or(processors),
        answers,
        links: problem.links,
    };
    finish(&file, &summary, &written_)
}

const EXAMPLE: &str = r#"{
  "version": 1,
  "model": "multicluster",
  "comment": "heien Table 4 at S = 8192: two clusters of 8, 20 Monte Carlo steps; should one 8-processor cluster or three 4-processor clusters be added? Times in seconds, gap per word. pattern: ring, all_to_all (objects, chunk, sort_time, words_per_object) or custom (units, iterations, costs).",
  "clusters": [
    {"name": "a", "processors": 8},
    {"name": "b", "processors": 8}
  ],
  "links": {
    "fast": {"latency": 45e-6, "overhead": 5e-6, "gap": 0.05e-6},
    "slow": {"latency": 400e-6, "overhead": 10e-6, "gap": 0.5e-6}
  },
  "application": {"pattern": "ring", "lattice": 8192, "flip_time": 0.55e-6, "steps": 20},
  "what_if": [
    {"name": "+8P", "clusters": [{"name": "c", "processors": 8}]},
    {"name": "+3x4P", "clusters": [{"name": "c", "processors": 4}, {"name": "d", "processors": 4}, {"name": "e", "processors": 4}]}
  ]
}
"#;

/// A cluster's processors.
const PROCESSORS: &Range =
    range!(1.0, crate::multicluster::MAX_PROCESSORS as f64, false, false, "in 1..=16777216");

const CLUSTER_FIELDS: &[Key] = &[
    field("name", Kind::Text, ""),
    field("processors", Kind::Integer(PROCESSORS), ""),
    Key { default: "1", ..field("speed", Kind::Number(POSITIVE), "relative") },
];

const LATENCY: Key = Key { unit: "s", ..field("latency", Kind::Number(NON_NEGATIVE), "L") };
const OVERHEAD: Key = Key { unit: "s", ..field("overhead", Kind::Number(NON_NEGATIVE), "o") };
const GAP: Key = Key { unit: "s/word", ..field("gap", Kind::Number(NON_NEGATIVE), "g") };
const LINK_FIELDS: &[Key] = &[LATENCY, OVERHEAD, GAP];
const PAIR_FIELDS: &[Key] =
    &[field("first", Kind::Text, ""), field("second", Kind::Text, ""), LATENCY, OVERHEAD, GAP];
const LINKS_FIELDS: &[Key] = &[
    field("fast", Kind::Object(LINK_FIELDS), "inside a cluster"),
    field("slow", Kind::Object(LINK_FIELDS), "between clusters"),
    field("pairs", Kind::List(PAIR_FIELDS), "slow link of a pair"),
];
const ADDITION_FIELDS: &[Key] =
    &[field("name", Kind::Text, ""), field("clusters", Kind::List(CLUSTER_FIELDS), "")];

/// One object of `clusters` (or of a `what_if` addition's `clusters`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterEntry<'a> {
    /// Cluster name, as written.
    pub name: Str<'a>,
    /// The cluster's processors, speed and so on.
    pub cluster: Cluster,
}

impl ClusterEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: ClusterEntry<'static> = ClusterEntry { name: Str::EMPTY, cluster: Cluster::new(1) };
}

/// One object of `links.pairs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairEntry<'a> {
    /// First cluster's name.
    pub first: Str<'a>,
    /// Second cluster's name.
    pub second: Str<'a>,
    /// The slow link between them.
    pub link: Link,
}

impl PairEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: PairEntry<'static> =
        PairEntry { first: Str::EMPTY, second: Str::EMPTY, link: Link::PAPER_SLOW };
}

/// One object of `what_if`: its clusters are `extra[first..first + len]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdditionEntry<'a> {
    /// The candidate's name.
    pub name: Str<'a>,
    /// Index of its first cluster in the extra-cluster buffer.
    pub first: usize,
    /// Number of its clusters.
    pub len: usize,
}

impl AdditionEntry<'_> {
    /// An empty entry, for initialising buffers.
    pub const EMPTY: AdditionEntry<'static> = AdditionEntry { name: Str::EMPTY, first: 0, len: 0 };
}

/// The caller's buffers for [`parse`], each as long as [`sizes`] says.
#[derive(Debug)]
pub struct Lists<'b, 'a> {
    /// `clusters`.
    pub clusters: &'b mut [ClusterEntry<'a>],
    /// `links.pairs`.
    pub pairs: &'b mut [PairEntry<'a>],
    /// `application.costs` (custom pattern).
    pub costs: &'b mut [StepCost],
    /// `what_if`.
    pub additions: &'b mut [AdditionEntry<'a>],
    /// The clusters of every `what_if` addition, one after the other.
    pub extra: &'b mut [ClusterEntry<'a>],
}

/// How long each list of a document is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Objects in `clusters`.
    pub clusters: usize,
    /// Objects in `links.pairs`.
    pub pairs: usize,
    /// Objects in `application.costs`.
    pub costs: usize,
    /// Objects in `what_if`.
    pub additions: usize,
    /// Clusters over all `what_if` additions.
    pub extra: usize,
}

/// The scalar part of a multicluster document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MulticlusterFile {
    /// Fast (inside a cluster) links.
    pub fast: Link,
    /// Slow (between clusters) links.
    pub slow: Link,
    /// The application, with `costs` empty for a custom one (they are in the buffer).
    pub application: Application<'static>,
    /// Split options.
    pub options: Options,
    /// The lists' lengths.
    pub sizes: Sizes,
}

const TOP: Keys = Keys {
    names: &["version", "model", "clusters", "links", "application", "fixed_costs", "what_if", "comment", "description"],
    unknown: "unknown key (expected version, model, clusters, links, application, fixed_costs, what_if, comment, description)",
};
const CLUSTER: Keys = Keys {
    names: &["name", "processors", "speed", "comment"],
    unknown: "unknown key (expected name, processors, speed, comment)",
};
const LINKS: Keys =
    Keys { names: &["fast", "slow", "pairs"], unknown: "unknown key (expected fast, slow, pairs)" };
const LINK: Keys =
    Keys { names: &["latency", "overhead", "gap"], unknown: "unknown key (expected latency, overhead, gap)" };
const PAIR: Keys = Keys {
    names: &["first", "second", "latency", "overhead", "gap"],
    unknown: "unknown key (expected first, second, latency, overhead, gap)",
};
const APPLICATION: Keys = Keys {
    names: &[
        "pattern",
        "lattice",
        "flip_time",
        "steps",
        "objects",
        "chunk",
        "sort_time",
        "words_per_object",
        "units",
        "iterations",
        "costs",
    ],
    unknown: "unknown key (expected pattern; ring: lattice, flip_time, steps; all_to_all: objects, chunk, \
              sort_time, words_per_object; custom: units, iterations, costs)",
};
const COST: Keys = Keys { names: &["per_load", "fixed"], unknown: "unknown key (expected per_load, fixed)" };
const ADDITION: Keys =
    Keys { names: &["name", "clusters"], unknown: "unknown key (expected name, clusters)" };

/// Reads a document without keeping anything, to learn its [`Sizes`].
///
/// # Errors
///
/// Everything [`parse`] rejects, except buffers that are too small.
pub fn sizes(json: &[u8]) -> Result<Sizes, Error> {
    let mut lists =
        Lists { clusters: &mut [], pairs: &mut [], costs: &mut [], additions: &mut [], extra: &mut [] };
    read(json, &mut lists).map(|f| f.sizes)
}

/// Reads a multicluster document into the caller's buffers, sized by [`sizes`].
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) for malformed JSON (strict RFC 8259),
/// unknown, repeated or missing keys, values out of range (naming the key, e.g.
/// `clusters[1].speed: must be finite and > 0, got 0`), names that match no cluster;
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short buffers.
/// The solver's own checks ([`crate::multicluster::needs`]) follow when planning.
pub fn parse<'a>(json: &'a [u8], lists: &mut Lists<'_, 'a>) -> Result<MulticlusterFile, Error> {
    let f = read(json, lists)?;
    let s = f.sizes;
    for (what, need, got) in [
        ("cluster entries", s.clusters, lists.clusters.len()),
        ("pair entries", s.pairs, lists.pairs.len()),
        ("cost entries", s.costs, lists.costs.len()),
        ("what_if entries", s.additions, lists.additions.len()),
        ("what_if clusters", s.extra, lists.extra.len()),
    ] {
        if need > got {
            return Err(Error::buffer(what, need, got));
        }
    }
    Ok(f)
}

/// The application as read: its pattern and parameters (0 where not given).
#[derive(Default)]
struct App {
    pattern: Option<Pattern>,
    ints: [Option<u64>; 5],
    reals: [Option<f64>; 5],
    costs: Option<usize>,
}

fn read<'a>(json: &'a [u8], lists: &mut Lists<'_, 'a>) -> Result<MulticlusterFile, Error> {
    let mut d = Doc::new(json);
    d.object()?;
    let mut seen = 0u64;
    let mut sizes = Sizes::default();
    let (mut clusters, mut links, mut app) = (None, None, None);
    let mut options = Options::default();
    while let Some(k) =
        d.top_key(&TOP, &mut seen, "multicluster", "must be \"multicluster\" for this reader")?
    {
        match k {
            "clusters" => clusters = Some(read_clusters(&mut d, "clusters", usize::MAX, lists.clusters, 0)?),
            "links" => {
                let (fast, slow, pairs) = read_links(&mut d, lists.pairs)?;
                sizes.pairs = pairs;
                links = Some((fast, slow));
            }
            "application" => app = Some(read_application(&mut d, lists.costs)?),
            "fixed_costs" => options.fixed_costs = d.name(&FIXED_COSTS)?,
            "what_if" => (sizes.additions, sizes.extra) = read_additions(&mut d, lists)?,
            _ => d.skip()?,
        }
    }
    d.end()?;
    let Some(n) = clusters else { return Err(missing("clusters", "missing (the list of clusters)")) };
    if n == 0 {
        return Err(missing("clusters", "at least one cluster is needed, got 0"));
    }
    sizes.clusters = n;
    let Some(app) = app else {
        return Err(missing("application", "missing (the pattern and its parameters)"));
    };
    let application = application(&app)?;
    sizes.costs = app.costs.unwrap_or(0);
    let (fast, slow) = match (links, application.pattern()) {
        (Some(l), _) => l,
        (None, Pattern::Custom) => (Link::PAPER_FAST, Link::PAPER_SLOW),
        (None, _) => {
            return Err(missing("links", "missing (fast and slow links; only custom costs go without)"))
        }
    };
    if application.pattern() == Pattern::Custom && sizes.costs != n {
        return Err(missing(
            "application",
            "costs: give one {\"per_load\", \"fixed\"} per cluster, in the clusters' order",
        ));
    }
    Ok(MulticlusterFile { fast, slow, application, options, sizes })
}

/// Reads a list of clusters into `buf[offset..]`; returns how many there were. `outer`:
/// the `what_if` addition they belong to (`usize::MAX`: the document's `clusters`).
fn read_clusters<'a>(
    d: &mut Doc<'a>,
    list: &'static str,
    outer: usize,
    buf: &mut [ClusterEntry<'a>],
    offset: usize,
) -> Result<usize, Error> {
    d.array()?;
    let mut n = 0usize;
    while d.element()? {
        d.at_nested(list, outer, n, "");
        // Written as `Entry` or `Number` would be when `outer` is `usize::MAX`.
        let place =
            |field: &'static str, value: Option<f64>| Detail::Nested { list, outer, index: n, field, value };
        let at = |field: &'static str| place(field, None);
        d.object()?;
        let (mut e, mut seen) = (ClusterEntry::EMPTY, 0u64);
        while let Some(k) = d.key(&CLUSTER, &mut seen)? {
            match k {
                "name" => {
                    e.name = d.string()?;
                    if e.name.raw().is_empty() {
                        return Err(Error::json("must be a non-empty name", at("name")));
                    }
                }
                "processors" => {
                    let v = d.u64()?;
                    e.cluster.processors = u32::try_from(v)
                        .ok()
                        .filter(|&p| PROCESSORS.contains(f64::from(p)))
                        .ok_or(Error::json(PROCESSORS.must, at("processors")))?;
                }
                "speed" => {
                    let v = d.f64()?;
                    if !POSITIVE.contains(v) {
                        return Err(Error::json(POSITIVE.must, place("speed", Some(v))));
                    }
                    e.cluster.speed = v;
                }
                _ => d.comment()?,
            }
        }
        if seen & 0b11 != 0b11 {
            return Err(Error::json("missing", at(if seen & 1 == 0 { "name" } else { "processors" })));
        }
        if let Some(slot) = buf.get_mut(offset + n) {
            *slot = e;
        }
        n += 1;
    }
    Ok(n)
}

/// A number within `range`, named by its place when it is not.
fn number_in(
    d: &mut Doc<'_>,
    range: &Range,
    list: &'static str,
    index: usize,
    field: &'static str,
) -> Result<f64, Error> {
    let v = d.f64()?;
    if range.contains(v) {
        Ok(v)
    } else {
        Err(Error::json(range.must, Detail::Number { list, index, field, value: v }))
    }
}

fn read_link(d: &mut Doc<'_>, list: &'static str) -> Result<Link, Error> {
    d.at(list, usize::MAX, "");
    d.object()?;
    let (mut link, mut seen) = (Link { latency: 0.0, overhead: 0.0, gap: 0.0 }, 0u64);
    while let Some(k) = d.key(&LINK, &mut seen)? {
        let v = number_in(d, NON_NEGATIVE, list, usize::MAX, k)?;
        match k {
            "latency" => link.latency = v,
            "overhead" => link.overhead = v,
            _ => link.gap = v,
        }
    }
    if seen != 0b111 {
        return Err(missing(list, "needs latency, overhead and gap (seconds; gap per word)"));
    }
    Ok(link)
}

fn read_links<'a>(d: &mut Doc<'a>, pairs: &mut [PairEntry<'a>]) -> Result<(Link, Link, usize), Error> {
    d.object()?;
    let mut seen = 0u64;
    let (mut fast, mut slow, mut n) = (None, None, 0usize);
    while let Some(k) = {
        d.at("links", usize::MAX, "");
        d.key(&LINKS, &mut seen)?
    } {
        match k {
            "fast" => fast = Some(read_link(d, "links.fast")?),
            "slow" => slow = Some(read_link(d, "links.slow")?),
            _ => {
                d.at("links.pairs", usize::MAX, "");
                d.array()?;
                while d.element()? {
                    d.at("links.pairs", n, "");
                    d.object()?;
                    let (mut e, mut seen) = (PairEntry::EMPTY, 0u64);
                    while let Some(k) = d.key(&PAIR, &mut seen)? {
                        match k {
                            "first" => e.first = d.string()?,
                            "second" => e.second = d.string()?,
                            "latency" => e.link.latency = number_in(d, NON_NEGATIVE, "links.pairs", n, k)?,
                            "overhead" => e.link.overhead = number_in(d, NON_NEGATIVE, "links.pairs", n, k)?,
                            _ => e.link.gap = number_in(d, NON_NEGATIVE, "links.pairs", n, k)?,
                        }
                    }
                    if seen != 0b11111 {
                        return Err(Error::json(
                            "needs first, second, latency, overhead and gap",
                            Detail::Entry { list: "links.pairs", index: n, field: "" },
                        ));
                    }
                    if let Some(slot) = pairs.get_mut(n) {
                        *slot = e;
                    }
                    n += 1;
                }
            }
        }
    }
    match (fast, slow) {
        (Some(f), Some(s)) => Ok((f, s, n)),
        _ => Err(missing("links", "needs fast and slow")),
    }
}

fn read_application(d: &mut Doc<'_>, costs: &mut [StepCost]) -> Result<App, Error> {
    d.object()?;
    let (mut app, mut seen) = (App::default(), 0u64);
    const LIST: &str = "application";
    while let Some(k) = {
        d.at(LIST, usize::MAX, "");
        d.key(&APPLICATION, &mut seen)?
    } {
        match k {
            "pattern" => app.pattern = Some(d.name(&PATTERN)?),
            "lattice" => app.ints[0] = Some(d.u64()?),
            "steps" => app.ints[1] = Some(d.u64()?),
            "objects" => app.ints[2] = Some(d.u64()?),
            "chunk" => app.ints[3] = Some(d.u64()?),
            "units" => app.ints[4] = Some(d.u64()?),
            "flip_time" => app.reals[0] = Some(number_in(d, POSITIVE, LIST, usize::MAX, k)?),
            "sort_time" => app.reals[1] = Some(number_in(d, POSITIVE, LIST, usize::MAX, k)?),
            "words_per_object" => app.reals[2] = Some(number_in(d, NON_NEGATIVE, LIST, usize::MAX, k)?),
            "iterations" => app.reals[3] = Some(number_in(d, POSITIVE, LIST, usize::MAX, k)?),
            _ => {
                d.array()?;
                let mut n = 0usize;
                while d.element()? {
                    d.at("application.costs", n, "");
                    d.object()?;
                    let (mut c, mut seen) = (StepCost { per_load: 0.0, fixed: 0.0 }, 0u64);
                    while let Some(k) = d.key(&COST, &mut seen)? {
                        // As the model checks them: a step with no per-load cost would take
                        // every unit.
                        if k == "per_load" {
                            c.per_load = number_in(d, POSITIVE, "application.costs", n, k)?;
                        } else {
                            c.fixed = number_in(d, NON_NEGATIVE, "application.costs", n, k)?;
                        }
                    }
                    if seen != 0b11 {
                        return Err(Error::json(
                            "needs per_load and fixed (seconds)",
                            Detail::Entry { list: "application.costs", index: n, field: "" },
                        ));
                    }
                    if let Some(slot) = costs.get_mut(n) {
                        *slot = c;
                    }
                    n += 1;
                }
                app.costs = Some(n);
            }
        }
    }
    Ok(app)
}

/// The application from what was read, naming the first missing parameter.
fn application(app: &App) -> Result<Application<'static>, Error> {
    let need = |v: Option<u64>, key: &'static str| v.filter(|&x| x > 0).ok_or(missing("application", key));
    let real = |v: Option<f64>, key: &'static str| v.ok_or(missing("application", key));
    let given = |keys: &[usize], reals: &[usize]| {
        (0..5).any(|i| app.ints[i].is_some() && !keys.contains(&i))
            || (0..4).any(|i| app.reals[i].is_some() && !reals.contains(&i))
    };
    let wrong = missing("application", "holds a parameter of another pattern");
    Ok(match app.pattern {
        None => return Err(missing("application", "pattern: missing (ring, all_to_all or custom)")),
        Some(Pattern::Ring) => {
            if given(&[0, 1], &[0]) || app.costs.is_some() {
                return Err(wrong);
            }
            Application::Ring {
                lattice: need(app.ints[0], "lattice: missing or 0 (the lattice side S)")?,
                flip_time: real(app.reals[0], "flip_time: missing (seconds per spin)")?,
                steps: need(app.ints[1], "steps: missing or 0 (Monte Carlo steps)")?,
            }
        }
        Some(Pattern::AllToAll) => {
            if given(&[2, 3], &[1, 2]) || app.costs.is_some() {
                return Err(wrong);
            }
            Application::AllToAll {
                objects: need(app.ints[2], "objects: missing or 0")?,
                chunk: need(app.ints[3], "chunk: missing or 0 (objects per chunk K)")?,
                sort_time: real(app.reals[1], "sort_time: missing (seconds per chunk)")?,
                words_per_object: real(app.reals[2], "words_per_object: missing (D, words per object)")?,
            }
        }
        Some(Pattern::Custom) => {
            if given(&[4], &[3]) {
                return Err(wrong);
            }
            Application::Custom {
                units: need(app.ints[4], "units: missing or 0")?,
                iterations: real(app.reals[3], "iterations: missing")?,
                costs: &[],
            }
        }
    })
}

fn read_additions<'a>(d: &mut Doc<'a>, lists: &mut Lists<'_, 'a>) -> Result<(usize, usize), Error> {
    d.array()?;
    let (mut n, mut extra) = (0usize, 0usize);
    while d.element()? {
        d.at("what_if", n, "");
        d.object()?;
        let (mut e, mut seen) = (AdditionEntry::EMPTY, 0u64);
        while let Some(k) = d.key(&ADDITION, &mut seen)? {
            if k == "name" {
                e.name = d.string()?;
                if e.name.raw().is_empty() {
                    return Err(Error::json(
                        "must be a non-empty name",
                        Detail::Entry { list: "what_if", index: n, field: "name" },
                    ));
                }
            } else {
                e.first = extra;
                e.len = read_clusters(d, "what_if.clusters", n, lists.extra, extra)?;
                d.at("what_if", n, "");
                extra += e.len;
            }
        }
        if seen != 0b11 || e.len == 0 {
            return Err(Error::json(
                "needs a name and at least one cluster",
                Detail::Entry { list: "what_if", index: n, field: "" },
            ));
        }
        if let Some(slot) = lists.additions.get_mut(n) {
            *slot = e;
        }
        n += 1;
    }
    Ok((n, extra))
}

impl MulticlusterFile {
    /// Processors the document's clusters have, plus those of its largest `what_if`
    /// addition when `additions` (the most any one plan of it takes), read from `lists`
    /// before the problem is built.
    pub fn processors(&self, lists: &Lists<'_, '_>, additions: bool) -> u64 {
        let sum = |c: &[ClusterEntry<'_>]| c.iter().map(|e| u64::from(e.cluster.processors)).sum::<u64>();
        let added = lists.additions.get(..self.sizes.additions).unwrap_or(&[]).iter();
        let largest = added.map(|a| sum(lists.extra.get(a.first..a.first + a.len).unwrap_or(&[]))).max();
        sum(lists.clusters.get(..self.sizes.clusters).unwrap_or(&[]))
            + if additions { largest.unwrap_or(0) } else { 0 }
    }

    /// The problem as the solver takes it: `clusters` and `pairs` need
    /// `sizes.clusters` and `sizes.pairs` elements; pair names are resolved to indices and
    /// a custom application's costs come from `lists`.
    ///
    /// The clusters and pairs as the solver takes them: `clusters` and `pairs` need
    /// `sizes.clusters` and `sizes.pairs` elements; pair names are resolved to indices.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::Json`](crate::ErrorCode::Json) for a pair naming no cluster of
    /// `clusters` (or a name that two clusters share);
    /// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short buffers.
    pub fn problem<'b>(
        &self,
        lists: &'b Lists<'_, '_>,
        clusters: &'b mut [Cluster],
        pairs: &'b mut [PairLink],
    ) -> Result<Problem<'b>, Error> {
        let s = self.sizes;
        if clusters.len() < s.clusters || pairs.len() < s.pairs {
            return Err(Error::buffer("clusters", s.clusters.max(s.pairs), clusters.len().min(pairs.len())));
        }
        let entries = lists.clusters.get(..s.clusters).unwrap_or(&[]);
        // Names are compared through a sort of their hashes, done in the cluster buffer
        // before it receives the clusters.
        let by_hash = clusters.get_mut(..entries.len()).unwrap_or(&mut []);
        let put = |c: &mut Cluster, hash: u64, i: usize| {
            *c = Cluster { processors: u32::try_from(i).unwrap_or(u32::MAX), speed: hash_f64(hash) };
        };
        let get = |c: &Cluster| (c.speed.to_bits(), c.processors as usize);
        let name = |i: usize| entries.get(i).map(|e| e.name);
        let repeated = super::first_repeated(by_hash, &name, put, get, &|_| 0);
        let name_at = |c: &Cluster| entries.get(c.processors as usize).map(|e| e.name);
        if let Some(i) = repeated {
            return Err(Error::json(
                "names a cluster twice",
                Detail::Entry { list: "clusters", index: i, field: "name" },
            ));
        }
        let index = |by_hash: &[Cluster], name: Str<'_>, i: usize, field: &'static str| {
            let hash = name_hash(name).to_bits();
            let from = by_hash.partition_point(|c| c.speed.to_bits() < hash);
            by_hash
                .get(from..)
                .unwrap_or(&[])
                .iter()
                .take_while(|c| c.speed.to_bits() == hash)
                .find(|c| name_at(c) == Some(name))
                .map(|c| c.processors as usize)
                .ok_or(Error::json(
                    "names no cluster in clusters",
                    Detail::Entry { list: "links.pairs", index: i, field },
                ))
        };
        for (i, (p, e)) in pairs.iter_mut().zip(lists.pairs.iter()).take(s.pairs).enumerate() {
            *p = PairLink {
                first: index(by_hash, e.first, i, "first")?,
                second: index(by_hash, e.second, i, "second")?,
                link: e.link,
            };
        }
        for (c, e) in clusters.iter_mut().zip(entries) {
            *c = e.cluster;
        }
        let application = match self.application {
            Application::Custom { units, iterations, .. } => {
                Application::Custom { units, iterations, costs: lists.costs.get(..s.costs).unwrap_or(&[]) }
            }
            other => other,
        };
        Ok(Problem {
            clusters: &clusters[..s.clusters],
            links: Links { fast: self.fast, slow: self.slow, pairs: &pairs[..s.pairs] },
            application,
            options: self.options,
        })
    }
}

/// Checks the names of the `what_if` additions: each addition's name is unique among the
/// additions, and each of its clusters' names among the document's clusters and the
/// addition's own (results name them; two additions may each add a cluster of one name).
/// `keys` needs `sizes.additions` and `sizes.clusters + sizes.extra` records.
///
/// # Errors
///
/// [`ErrorCode::Json`](crate::ErrorCode::Json) at the first repeated name;
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) for short buffers.
pub fn check_what_if_names(
    file: &MulticlusterFile,
    lists: &Lists<'_, '_>,
    keys: &mut [super::NameKey],
) -> Result<(), Error> {
    let s = file.sizes;
    let additions = lists.additions.get(..s.additions).unwrap_or(&[]);
    super::check_names("what_if", additions.len(), &|i| additions.get(i).map(|a| a.name), keys)?;
    let (base, extra) =
        (lists.clusters.get(..s.clusters).unwrap_or(&[]), lists.extra.get(..s.extra).unwrap_or(&[]));
    let n = base.len() + extra.len();
    let got = keys.len();
    let keys = keys.get_mut(..n).ok_or(Error::buffer("name keys", n, got))?;
    let name =
        |i: usize| if i < base.len() { base.get(i) } else { extra.get(i - base.len()) }.map(|e| e.name);
    // The addition an added cluster (`j` in `extra`) belongs to.
    let addition_of = |j: usize| additions.partition_point(|a| a.first + a.len <= j);
    // 0 for the document's clusters, 1 + the addition for an added one.
    let group = |i: usize| i.checked_sub(base.len()).map_or(0, |j| 1 + addition_of(j));
    match super::first_repeated(keys, &name, super::NameKey::put, super::NameKey::get, &group) {
        Some(i) if i < base.len() => Err(Error::json(
            "names a cluster twice",
            Detail::Entry { list: "clusters", index: i, field: "name" },
        )),
        Some(i) => {
            let j = i - base.len();
            let a = addition_of(j);
            let first = additions.get(a).map_or(0, |a| a.first);
            Err(Error::json(
                "repeats the name of a cluster of the document or of this addition (names must be unique)",
                Detail::Nested {
                    list: "what_if.clusters",
                    outer: a,
                    index: j - first,
                    field: "name",
                    value: None,
                },
            ))
        }
        None => Ok(()),
    }
}

/// A 52-bit hash of a name's decoded characters (FNV-1a), as an `f64` in [1, 2) so that it
/// can wait in a [`Cluster`]'s `speed` (an `f64` from arbitrary bits could be a NaN, whose
/// bits some platforms do not keep).
fn name_hash(name: Str<'_>) -> f64 {
    hash_f64(super::name_hash(name))
}

fn hash_f64(hash: u64) -> f64 {
    f64::from_bits(0x3ff0_0000_0000_0000 | (hash & ((1 << 52) - 1)))
}

/// What a result document holds besides the summary.
#[derive(Debug)]
pub struct Written<'b, 'a> {
    /// The document's lists (names).
    pub lists: &'b Lists<'b, 'a>,
    /// The plan's classes (`summary.classes` of them).
    pub classes: &'b [Class],
    /// One per processor.
    pub processors: &'b [Processor],
    /// One per `what_if` addition.
    pub answers: &'b [WhatIf],
    /// The links the plan was made with.
    pub links: Links<'b>,
}

/// Writes the result document into `out`; returns its length.
///
/// `{"version": 1, "model": "multicluster", "pattern", "fixed_costs", "method", "makespan",
/// "rational_makespan", "lower_bound", "gap", "exact", "step_time", "rational_step_time",
/// "even_step_time", "even_makespan", "speedup", "iterations", "units", "participating",
/// "dropped_clusters", "ring_order": [names], "classes": [{"cluster", "fast_links",
/// "processors", "per_load", "fixed", "fraction", "units", "participates"}], "what_if":
/// [{"name", "makespan", "rational_makespan", "speedup"}], "plan": [{"cluster", "index",
/// "rank", "fast_links", "count", "displacement", "step_time", "participates"}]}`.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the exact length
/// needed.
pub fn write_result(
    file: &MulticlusterFile,
    s: &Summary,
    planned: &Written<'_, '_>,
    out: &mut [u8],
) -> Result<usize, Error> {
    let mut w = Writer::new(out);
    let name = |c: usize| planned.lists.clusters.get(c).map_or(Str::EMPTY, |e| e.name);
    begin_result(&mut w, "multicluster");
    w.key("pattern");
    w.str(PATTERN.name(file.application.pattern()));
    w.key("fixed_costs");
    w.str(FIXED_COSTS.name(file.options.fixed_costs));
    write_answer(&mut w, &s.report, s.rational_makespan, None);
    w.numbers(&[
        ("step_time", s.step_time),
        ("rational_step_time", s.rational_step_time),
        ("even_step_time", s.even_step_time),
        ("even_makespan", s.even_makespan),
        ("speedup", crate::report::speedup(s.even_makespan, s.report.makespan)),
        ("iterations", s.iterations),
    ]);
    w.key("units");
    w.u64(s.units);
    w.key("participating");
    w.u64(s.participating);
    w.key("dropped_clusters");
    w.u64(s.dropped_clusters as u64);
    w.key("ring_order");
    w.begin_array();
    for i in 0..s.ring_order.len() {
        if let Some(c) = s.ring_order.get(i) {
            w.raw_str(name(c));
        }
    }
    w.end_array();
    w.key("classes");
    w.begin_array();
    for c in planned.classes.iter().take(s.classes) {
        w.begin_object();
        w.key("cluster");
        w.raw_str(name(c.cluster));
        w.key("fast_links");
        w.u64(u64::from(c.fast_links));
        w.key("processors");
        w.u64(u64::from(c.processors));
        w.numbers(&[("per_load", c.per_load), ("fixed", c.fixed), ("fraction", c.fraction)]);
        w.key("units");
        w.u64(c.units);
        w.key("participates");
        w.bool(c.participates);
        w.end_object();
    }
    w.end_array();
    w.key("what_if");
    w.begin_array();
    for (a, e) in planned.answers.iter().zip(planned.lists.additions.iter()) {
        w.begin_object();
        w.key("name");
        w.raw_str(e.name);
        w.numbers(&[
            ("makespan", a.makespan),
            ("rational_makespan", a.rational_makespan),
            ("speedup", a.speedup),
        ]);
        w.end_object();
    }
    w.end_array();
    w.key("plan");
    w.begin_array();
    for (rank, p) in planned.processors.iter().enumerate() {
        w.begin_object();
        w.key("cluster");
        w.raw_str(name(p.cluster));
        w.key("index");
        w.u64(u64::from(p.index));
        w.key("rank");
        w.u64(rank as u64);
        w.key("fast_links");
        w.u64(u64::from(p.fast_links));
        w.key("count");
        w.u64(p.count);
        w.key("displacement");
        w.u64(p.displacement);
        w.key("step_time");
        w.f64(p.step_time);
        w.key("participates");
        w.bool(p.participates);
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
    fn processors_words_name_the_limit() {
        assert_eq!(PROCESSORS.says, std::format!("in 1..={}", crate::multicluster::MAX_PROCESSORS));
        assert!(PROCESSORS.contains(crate::multicluster::MAX_PROCESSORS as f64) && !PROCESSORS.contains(0.0));
    }

    #[test]
    fn every_option_has_one_name_and_is_listed() {
        crate::doc::names::complete(&PATTERN, &[Pattern::Ring, Pattern::AllToAll, Pattern::Custom]);
        crate::doc::names::complete(&FIXED_COSTS, &[FixedCosts::Balanced, FixedCosts::Ignored]);
    }
    use std::format;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// Cluster names through the sort of their hashes: the first repeated name (escaped or
    /// not) is the error, and every pair finds its clusters among 3 000, as a search of
    /// every cluster finds them.
    #[test]
    fn names_are_found_and_repeats_refused_among_many_clusters() {
        fn plan_pairs(doc: &str) -> Result<Vec<(usize, usize)>, Error> {
            let s = sizes(doc.as_bytes())?;
            let (mut clusters, mut pairs) =
                (std::vec![ClusterEntry::EMPTY; s.clusters], std::vec![PairEntry::EMPTY; s.pairs]);
            let (mut costs, mut additions, mut extra) = (
                std::vec![StepCost { per_load: 1.0, fixed: 0.0 }; s.costs],
                std::vec![AdditionEntry::EMPTY; s.additions],
                std::vec![ClusterEntry::EMPTY; s.extra],
            );
            let mut lists = Lists {
                clusters: &mut clusters,
                pairs: &mut pairs,
                costs: &mut costs,
                additions: &mut additions,
                extra: &mut extra,
            };
            let file = parse(doc.as_bytes(), &mut lists)?;
            let (mut out, mut links) = (
                std::vec![Cluster::new(1); s.clusters],
                std::vec![PairLink { first: 0, second: 0, link: Link::PAPER_FAST }; s.pairs],
            );
            let problem = file.problem(&lists, &mut out, &mut links)?;
            for (i, c) in problem.clusters.iter().enumerate() {
                assert_eq!(c.processors as usize, 1 + i % 5, "cluster {i} kept its place");
            }
            Ok(problem.links.pairs.iter().map(|p| (p.first, p.second)).collect())
        }
        let doc = |names: &[String], pairs: &[(String, String)]| {
            let clusters: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, n)| format!(r#"{{"name": "{n}", "processors": {}}}"#, 1 + i % 5))
                .collect();
            let pairs: Vec<String> = pairs
                .iter()
                .map(|(a, b)| format!(r#"{{"first": "{a}", "second": "{b}", "latency": 1e-3, "overhead": 1e-5, "gap": 1e-6}}"#))
                .collect();
            format!(
                r#"{{"model": "multicluster", "clusters": [{}], "links": {{"fast": {{"latency": 1e-5, "overhead": 1e-6, "gap": 1e-8}}, "slow": {{"latency": 1e-3, "overhead": 1e-5, "gap": 1e-6}}, "pairs": [{}]}}, "application": {{"pattern": "ring", "lattice": 64, "flip_time": 1e-6, "steps": 2}}}}"#,
                clusters.join(","),
                pairs.join(",")
            )
        };
        let mut rnd = crate::num::xorshift(23);
        let names: Vec<String> = (0..3000).map(|i| format!("n{}", (i * 7919) % 3001)).collect();
        let wanted: Vec<(usize, usize)> = (0..200)
            .map(|_| ((rnd() % 3000) as usize, (rnd() % 3000) as usize))
            .filter(|(a, b)| a != b)
            .collect();
        let pairs: Vec<(String, String)> =
            wanted.iter().map(|&(a, b)| (names[a].clone(), names[b].clone())).collect();
        assert_eq!(plan_pairs(&doc(&names, &pairs)).unwrap(), wanted);

        // Repeats: the first cluster whose name an earlier one has, written plain or escaped.
        for (later, earlier, escaped) in [(2500, 10, false), (1200, 1100, true), (2999, 0, false)] {
            let mut repeated = names.clone();
            repeated[later] =
                if escaped { names[earlier].replacen('n', "\\u006e", 1) } else { names[earlier].clone() };
            repeated[2900] = names[5].clone();
            let e = plan_pairs(&doc(&repeated, &pairs)).unwrap_err();
            let first = later.min(2900);
            assert!(e.to_string().contains(&format!("clusters[{first}].name: names a cluster twice")), "{e}");
        }
        let mut missing = pairs.clone();
        missing[7].1 = String::from("nowhere");
        let e = plan_pairs(&doc(&names, &missing)).unwrap_err();
        assert!(e.to_string().contains("links.pairs[7].second: names no cluster in clusters"), "{e}");
    }
}
