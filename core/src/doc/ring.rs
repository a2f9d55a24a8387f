//! The ring model's documents (legrand2003; the solver is [`crate::ring`]): an iterative
//! code's `work` columns and `boundary` exchange, processors with their cycle times, and
//! either the cost matrix of dedicated links between them or routers and shared links.
//!
//! ```json
//! {"version": 1, "model": "ring", "work": 1000, "boundary": 20, "solver": "heuristic",
//!  "processors": [{"name": "a", "cycle_time": 0.01}, {"name": "b", "cycle_time": 0.02},
//!                 {"name": "c", "cycle_time": 0.05}],
//!  "cost_matrix": [[0, 0.001, 0.01], [0.001, 0, 0.01], [0.01, 0.01, 0]]}
//! ```
//!
//! `cycle_time` is seconds per column; `cost_matrix[i][j]` seconds per boundary unit sent
//! from processor `i` to `j` (dedicated links; the diagonal is not read). `solver` is
//! `"heuristic"` (the paper's greedy, corrected; the default) or `"exact"` (every ring, at
//! most [`MAX_EXHAUSTIVE`](crate::ring::MAX_EXHAUSTIVE) processors); `local_search`
//! (default `true`) follows the greedy with a local search that never makes it worse.
//!
//! Instead of `cost_matrix`: `"routers": [{"name"}]` and `"links": [{"name", "from",
//! "to", "bandwidth", "kind"}]`, ends named by processor or router (names unique across
//! both), `bandwidth` in boundary units per second, `kind` `"bidirectional"` (default),
//! `"directed"` or `"backbone"`; `sharing` `"greedy"` (default), `"max_min"` (each route
//! its max-min fair share, what a fair network gives: the plan reports those) or
//! `"optimal"`. Results then carry each route's links and bandwidth share in `paths`, and
//! `sharing_gap`, the optimal sharing's certified relative gap. `divload example ring
//! --machines N --seed S` generates such a platform (ring.md §9).
//!
//! Why one file: the two platform shapes (a cost matrix, or routers and shared links) are
//! read by one reader into one problem, and the result, the routes' shares and the
//! timeline are written from it; the graph and its solvers live in [`crate::ring`].

use crate::doc::cost::NAME;
use crate::doc::json::{Str, Writer};
use crate::doc::model::{
    shares_in_order, timeline_document, written, Effort, Memory, Model, Name, Planned, Timeline,
};
use crate::doc::names::Names;
use crate::doc::schema::{
    field, Chart, ChartKind, Field as Key, Graph, Kind, Phase, AT_LEAST_ONE, INVERTIBLE, NON_NEGATIVE,
    POSITIVE,
};
use crate::doc::{begin_result, begin_row, check_workers, missing, unique_names, write_answer, Doc, Keys};
use crate::error::{Detail, Error};
use crate::ring::{self, Buffers, Link, LinkKind, Member, Network, Paths, Problem, Sharing, Solver, Summary};

/// The ring model in the registry.
#[derive(Debug)]
pub struct Ring;

/// The `solver` of ring documents.
pub const SOLVER: Names<Solver> = Names {
    key: "solver",
    table: &[("heuristic", Solver::Greedy), ("exact", Solver::Exhaustive)],
    expected: "must be \"heuristic\" or \"exact\"",
};

const TOP: Keys = Keys {
    names: &[
        "version",
        "model",
        "work",
        "boundary",
        "solver",
        "local_search",
        "sharing",
        "processors",
        "cost_matrix",
        "routers",
        "links",
        "comment",
        "description",
    ],
    unknown: "unknown key (expected version, model, work, boundary, solver, local_search, sharing, processors, cost_matrix, routers, links, comment, description)",
};

const ROUTER: Keys = Keys { names: &["name", "comment"], unknown: "unknown key (expected name, comment)" };

const LINK: Keys = Keys {
    names: &["name", "from", "to", "bandwidth", "kind", "comment"],
    unknown: "unknown key (expected name, from, to, bandwidth, kind, comment)",
};

/// The `sharing` of ring documents on graphs.
pub const SHARING: Names<Sharing> = Names {
    key: "sharing",
    table: &[("greedy", Sharing::Greedy), ("max_min", Sharing::MaxMin), ("optimal", Sharing::Optimal)],
    expected: "must be \"greedy\", \"max_min\" or \"optimal\"",
};

/// The `kind` of a link.
pub const LINK_KIND: Names<LinkKind> = Names {
    key: "kind",
    table: &[
        ("bidirectional", LinkKind::Bidirectional),
        ("directed", LinkKind::Directed),
        ("backbone", LinkKind::Backbone),
    ],
    expected: "must be \"bidirectional\", \"directed\" or \"backbone\"",
};

const PROCESSOR: Keys = Keys {
    names: &["name", "cycle_time", "comment"],
    unknown: "unknown key (expected name, cycle_time, comment)",
};

impl Model for Ring {
    const TITLE: &'static str =
        "iterative codes on a ring of processors joined by links of known cost: which ring, which order, how many columns each";
    const PAPER: &'static str = "Legrand, Renard, Robert, Vivien 2003, iterative computations on shared links (sections 2-4, clique; eq. 3-4 corrected)";
    const EXAMPLE: &'static str = EXAMPLE;
    const SCHEMA: &'static [Key] = &[
        field("work", Kind::Integer(AT_LEAST_ONE), "columns to share"),
        field("boundary", Kind::Number(NON_NEGATIVE), "values sent to each neighbour per iteration"),
        field("solver", Kind::Choice(&SOLVER), "heuristic, or exact up to 10 processors"),
        Key {
            default: "true",
            ..field("local_search", Kind::Flag, "after the greedy, a search that never makes it worse")
        },
        field(
            "processors",
            Kind::List(&[NAME, Key { unit: "s/column", ..field("cycle_time", Kind::Number(POSITIVE), "") }]),
            "",
        ),
        field("cost_matrix", Kind::Json, "[[s per value from i to j]], p rows of p (or routers and links)"),
        field(
            "sharing",
            Kind::Choice(&SHARING),
            "how routes share links: greedy, max_min (the fair shares a TCP-like network gives) or optimal",
        ),
        field("routers", Kind::List(&[NAME]), "nodes that only relay (with links, instead of cost_matrix)"),
        field(
            "links",
            Kind::List(&[
                NAME,
                field("from", Kind::Text, "a processor or router"),
                field("to", Kind::Text, "a processor or router"),
                Key { unit: "values/s", ..field("bandwidth", Kind::Number(INVERTIBLE), "") },
                field("kind", Kind::Choice(&LINK_KIND), "bidirectional, directed or backbone"),
            ]),
            "instead of cost_matrix",
        ),
    ];
    const GANTT: &'static [Phase] = &[
        Phase { label: "compute", start: "", end: "compute_time" },
        Phase { label: "exchange", start: "compute_time", end: "finish" },
    ];
    // The paper's Figures 5–12: the platform graph with the routes of the ring chosen,
    // the ring, and T_step against the ring size (it is not monotone: the best q is found,
    // not assumed). The graph is drawn for graph documents only (a cost matrix has no links).
    const CHARTS: &'static [Chart] = &[
        Chart {
            title: "the platform graph: the routes of each ring edge in a colour of their own",
            kind: ChartKind::Graph(&Graph {
                nodes: "processors",
                relays: "routers",
                edges: "links",
                weight: "bandwidth",
                style: "kind",
                arrow: "directed",
                thick: "backbone",
            }),
            list: "paths",
            x: "",
            y: "",
            group: "left_out",
        },
        Chart {
            title: "the ring chosen",
            kind: ChartKind::Cycle,
            list: "ring",
            x: "",
            y: "",
            group: "left_out",
        },
        Chart {
            title: "best T_step found for each ring size q",
            kind: ChartKind::Line,
            list: "by_ring_size",
            x: "q",
            y: "makespan",
            group: "",
        },
    ];

    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error> {
        let file = read_into(text, memory)?;
        let p = file.problem.cycle_times.len() as u64;
        let work = match (file.problem.solver, &file.problem.network) {
            (Solver::Greedy, None) => p.saturating_pow(3),
            (Solver::Exhaustive, None) => 556_069u64.saturating_mul(p.saturating_pow(2)),
            // A widest path costs about the graph's size; the greedy values up to p³/6
            // candidates with four each (fewer once bounded), the local search
            // `LOCAL_EVALUATIONS` rings with 2p each, the optimal sharing up to 20 000
            // sweeps over 2p routes of up to n links, and its barrier method up to 960
            // Newton steps on a dense system of 2p + 1 (at most 513) unknowns.
            (solver, Some(net)) => {
                let size = p.saturating_add(net.routers as u64).saturating_add(net.links.len() as u64);
                let rings = match solver {
                    Solver::Greedy => {
                        p.saturating_pow(3).saturating_add(ring::LOCAL_EVALUATIONS as u64 * 2 * p)
                    }
                    Solver::Exhaustive => 218u64.saturating_mul(2 * p),
                };
                let sharing = match file.problem.sharing {
                    Sharing::Optimal => {
                        let unknowns = (2 * p + 1).min(513);
                        20_000u64
                            .saturating_mul(2 * p)
                            .saturating_mul(size)
                            .saturating_add(160u64.saturating_mul(unknowns.saturating_pow(3)))
                    }
                    _ => 0,
                };
                rings.saturating_mul(size).saturating_add(sharing)
            }
        };
        Ok(Effort { workers: p, work })
    }

    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error> {
        solved(text, memory, |file, summary, members, by_size, routes| {
            let document = written(memory, |buf| write_result(file, summary, members, by_size, routes, buf))?;
            // Ring order, blocks contiguous along it (as `write_result`'s displacements);
            // processors off the ring are left out.
            let mut offset = 0u64;
            let rows = members.iter().map(|m| {
                let row = (m.processor, m.count, offset, true);
                offset = offset.saturating_add(m.count);
                row
            });
            let shares = shares_in_order(memory, file.names.len(), rows)?;
            Ok(Planned { document, report: summary.report, shares, pieces: &[] })
        })
    }

    /// `--machines N --seed S` (and `--work`, `--boundary`, `--sharing`): the
    /// hierarchical LAN/MAN/WAN platform of [`ring::generate`] as a graph document.
    fn generate<'m, M: Memory>(params: &[(&str, &str)], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        generated(params, memory).map(Some)
    }

    /// One iteration: each member's host computes its columns, then sends its boundary to
    /// its successor and then to its predecessor, each over the dedicated link of the cost
    /// matrix (a boundary value is `BYTES_PER_VALUE` bytes, at the rate the cost gives), or on a graph over
    /// its route in the platform as it is; each member has one receiving actor per
    /// neighbour, so that no send waits for a receiver. On a graph the predicted send
    /// takes `H/x`, its route's share `x` held for the whole iteration (eq. 1, `ring.md`
    /// §1.2), so each send carries `x` as its reserved rate; a simulator that instead
    /// shares bandwidth among the transfers in flight shares it again whenever one starts
    /// or ends (an idle route's share goes to the others, and that can slow a third route
    /// down: max-min rates are not monotone in the set of flows), so its rates equal
    /// max-min shares only while all `2q` routes are busy.
    fn timeline<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        solved(text, memory, |file, _, members, _, routes| {
            let document = timeline_document(memory, |t| write_timeline(t, file, members, routes))?;
            Ok(Some(document))
        })
    }
}

/// Reads the generator's parameters and writes its document into `memory`.
fn generated<'m, M: Memory>(params: &[(&str, &str)], memory: &'m M) -> Result<&'m [u8], Error> {
    let (mut machines, mut seed, mut work, mut boundary, mut sharing) =
        (37usize, 1u64, 10_000u64, 10.0, Sharing::Greedy);
    let number = |key: &'static str, v: &str, range: &'static str| -> Result<u64, Error> {
        v.parse::<u64>().map_err(|_| Error::parameter(key, range, f64::NAN))
    };
    for &(k, v) in params {
        match k {
            "machines" => {
                let m = number("machines", v, "an integer from 1 to 100000")?;
                if !(1..=ring::generate::MAX_MACHINES as u64).contains(&m) {
                    return Err(Error::parameter("machines", "an integer from 1 to 100000", m as f64));
                }
                machines = m as usize;
            }
            "seed" => seed = number("seed", v, "an integer from 0 to 2^64 - 1")?,
            "work" => work = number("work", v, "an integer >= 1")?.max(1),
            "boundary" => {
                boundary = v
                    .parse::<f64>()
                    .map_err(|_| Error::parameter("boundary", NON_NEGATIVE.says, f64::NAN))?;
                NON_NEGATIVE.parameter("boundary", boundary)?;
            }
            "sharing" => {
                sharing = SHARING.parse_str(v).ok_or(Error::json(
                    SHARING.expected,
                    Detail::Entry { list: "sharing", index: usize::MAX, field: "" },
                ))?
            }
            _ => {
                return Err(Error::json(
                    "unknown generator key (expected machines, seed, work, boundary, sharing)",
                    Detail::Entry { list: "ring", index: usize::MAX, field: "" },
                ))
            }
        }
    }
    let (nr, nl) = ring::generate::generated_sizes(machines);
    let cycle_times = memory.slice("generated cycle times", machines, 0.0f64)?;
    let routers = memory.slice("generated routers", nr, ring::generate::Router::Wan(0))?;
    let links = memory.slice("generated links", nl, Link::EMPTY)?;
    let g = ring::generate::generate(machines, seed, cycle_times, routers, links).ok_or(Error::limit(
        "ring: generated links",
        nl as u64,
        u64::MAX,
    ))?;
    let (cycle_times, routers, links): (&[f64], &[ring::generate::Router], &[Link]) =
        (cycle_times, routers, links);
    let routers = routers.get(..g.routers).unwrap_or(&[]);
    let links = links.get(..g.links).unwrap_or(&[]);
    written(memory, |out| {
        let mut w = Writer::new(out);
        let mut label = Label { buf: [0; 32] };
        w.begin_object();
        w.key("version");
        w.u64(1);
        w.key("model");
        w.str("ring");
        w.key("comment");
        w.str("Generated by divload example ring (ring.md section 9, splitmix64): a hierarchical LAN/MAN/WAN platform. cycle_time: seconds per column; bandwidth: boundary values per second.");
        w.key("work");
        w.u64(work);
        w.key("boundary");
        w.f64(boundary);
        w.key("sharing");
        w.str(SHARING.name(sharing));
        w.key("processors");
        w.begin_array();
        for (i, &c) in cycle_times.iter().enumerate() {
            w.begin_object();
            w.key("name");
            w.str(label.node(machines, routers, i));
            w.key("cycle_time");
            w.f64(c);
            w.end_object();
        }
        w.end_array();
        w.key("routers");
        w.begin_array();
        for r in 0..routers.len() {
            w.begin_object();
            w.key("name");
            w.str(label.node(machines, routers, machines + r));
            w.end_object();
        }
        w.end_array();
        w.key("links");
        w.begin_array();
        for (e, l) in links.iter().enumerate() {
            w.begin_object();
            w.key("name");
            w.str(label.text("l", e, None));
            w.key("from");
            w.str(label.node(machines, routers, l.from));
            w.key("to");
            w.str(label.node(machines, routers, l.to));
            w.key("bandwidth");
            w.f64(l.bandwidth);
            w.key("kind");
            w.str(LINK_KIND.name(l.kind));
            w.end_object();
        }
        w.end_array();
        w.end_object();
        w.end("generated JSON")
    })
}

/// A node's or link's generated name, written in a small buffer (ring.md §9's names).
struct Label {
    buf: [u8; 32],
}

impl Label {
    fn node(&mut self, machines: usize, routers: &[ring::generate::Router], i: usize) -> &str {
        use ring::generate::Router;
        if i < machines {
            return self.text("m", i, None);
        }
        match routers.get(i - machines) {
            Some(&Router::Wan(a)) => self.text("wan", a, None),
            Some(&Router::Man(a, b)) => self.text("man", a, Some(b)),
            Some(&Router::Gateway(a)) => self.text("gw", a, None),
            Some(&Router::Switch(a, b)) => self.text("sw", a, Some(b)),
            Some(&Router::Access(a)) => self.text("acc", a, None),
            None => "",
        }
    }

    /// `prefix{a}` or `prefix{a}.{b}`.
    fn text(&mut self, prefix: &str, a: usize, b: Option<usize>) -> &str {
        let mut n = 0;
        let mut put = |bytes: &[u8], n: &mut usize| {
            for &c in bytes {
                if let Some(slot) = self.buf.get_mut(*n) {
                    *slot = c;
                    *n += 1;
                }
            }
        };
        put(prefix.as_bytes(), &mut n);
        let mut digits = [0u8; 20];
        for (k, x) in [Some(a), b].into_iter().enumerate() {
            let Some(mut x) = x else { continue };
            if k == 1 {
                put(b".", &mut n);
            }
            let mut d = digits.len();
            loop {
                d -= 1;
                if let Some(slot) = digits.get_mut(d) {
                    *slot = b'0' + (x % 10) as u8;
                }
                x /= 10;
                if x == 0 || d == 0 {
                    break;
                }
            }
            put(digits.get(d..).unwrap_or(&[]), &mut n);
        }
        core::str::from_utf8(self.buf.get(..n).unwrap_or(&[])).unwrap_or("")
    }
}

/// The k-th member's two sends, successor first: (to, mailbox), mailbox `2·(i·p + j)`
/// towards the successor and `2·(i·p + j) + 1` towards the predecessor.
fn sends(members: &[Member], p: usize, k: usize) -> [(usize, usize); 2] {
    let q = members.len();
    let at = |k: usize| members.get(k % q.max(1)).map_or(0, |m| m.processor);
    let (i, succ, pred) = (at(k), at(k + 1), at(k + q - 1));
    [(succ, 2 * (i * p + succ)), (pred, 2 * (i * p + pred) + 1)]
}

/// Bytes a boundary value weighs in a timeline: a simulator moves whole bytes, and a
/// boundary need not be a whole number of values (10⁻⁶ of a value is then the rounding).
const BYTES_PER_VALUE: f64 = 1e6;

/// See [`Ring`]'s `timeline`: hosts by processor index; on a cost matrix one link `i·p +
/// j` per ordered pair of neighbours, on a graph the platform itself (see
/// [`write_graph_platform`]). A send's predicted time is `H·c` on a cost matrix and `H/x`
/// on a graph, `x` its route's share.
fn write_timeline(t: &mut Timeline<'_, '_>, file: &RingFile<'_>, members: &[Member], routes: &Routes<'_>) {
    let problem = &file.problem;
    let (p, q) = (problem.cycle_times.len(), members.len());
    let h = problem.boundary;
    let cost = |a: usize, b: usize| problem.costs.get(a * p + b).copied().unwrap_or(0.0);
    let name = |i: usize| file.names.get(i).copied().unwrap_or(Str::EMPTY);
    let pairs = || {
        (0..if q > 1 { q } else { 0 })
            .flat_map(move |k| sends(members, p, k).map(move |(to, _)| (members[k].processor, to)))
    };
    // A pair's two sends cross one link: each link and route written once.
    let first = |n: usize, pair: (usize, usize)| !pairs().take(n).any(|x| x == pair);
    let graph = problem.network.is_some();
    if graph {
        write_graph_platform(t, file, members, routes);
    } else {
        t.0.key("hosts");
        t.0.begin_array();
        for m in members {
            t.host(m.processor as u64, Name::Doc(name(m.processor)));
        }
        t.0.end_array();
        t.0.key("links");
        t.0.begin_array();
        for (_, (i, j)) in pairs().enumerate().filter(|&(n, pair)| first(n, pair)) {
            t.link((i * p + j) as u64, BYTES_PER_VALUE / cost(i, j), 0.0);
        }
        t.0.end_array();
        t.0.key("routes");
        t.0.begin_array();
        for (_, (i, j)) in pairs().enumerate().filter(|&(n, pair)| first(n, pair)) {
            t.route(i as u64, j as u64, (i * p + j) as u64);
        }
        t.0.end_array();
    }
    let share = |k: usize, s: usize| routes.share.get(2 * k + s).copied().unwrap_or(0.0);
    // As the plan computes `d_i` (`H/x` on a graph), so that ends agree to the last bit.
    let time = |k: usize, s: usize, to: usize| {
        if graph {
            h / share(k, s)
        } else {
            h * cost(members.get(k).map_or(0, |m| m.processor), to)
        }
    };
    t.0.key("actors");
    t.0.begin_array();
    for (k, m) in members.iter().enumerate() {
        let i = m.processor;
        t.actor(3 * k as u64, i as u64, Name::Doc(name(i)));
        // On a graph the host computes at its own speed, one column a unit.
        if graph {
            t.compute(m.count as f64);
        } else {
            t.compute(m.compute_time);
        }
        let (mut now, mut arrivals) = (m.compute_time, [0.0f64; 2]);
        for (s, (to, mailbox)) in sends(members, p, k).into_iter().enumerate().filter(|_| q > 1) {
            // On a graph the route's share is reserved for the whole iteration (eq. 1).
            if graph {
                t.send_at_rate(mailbox as u64, h * BYTES_PER_VALUE, share(k, s) * BYTES_PER_VALUE);
            } else {
                t.send(mailbox as u64, h * BYTES_PER_VALUE);
            }
            now += time(k, s, to);
            arrivals[s] = now;
        }
        t.end(now);
        // The neighbours' receivers of this member's two messages.
        for (s, (to, mailbox)) in sends(members, p, k).into_iter().enumerate().filter(|_| q > 1) {
            t.actor(3 * k as u64 + 1 + s as u64, to as u64, Name::Doc(name(to)));
            t.recv(mailbox as u64);
            t.end(arrivals[s]);
        }
    }
    t.0.end_array();
}

/// A graph document's platform as it is (legrand2003 §2.3, `ring.md` §1.1): every
/// processor a host computing `1/cycle_time` columns per second (those off the ring
/// relay), routers with ids `p + r`, every link with its bandwidth in boundary values
/// ([`BYTES_PER_VALUE`] bytes each) per second and no latency, shared by both directions unless it is a
/// backbone (a fatpipe: each route gets all of it; a directed link is crossed one way
/// only, by the routes' construction), and the plan's `2q` routes, link by link. A
/// simulator keeps one route per ordered pair: on a ring of two, whose two routes from
/// `i` to `j` may differ, the successor's is written.
fn write_graph_platform(
    t: &mut Timeline<'_, '_>,
    file: &RingFile<'_>,
    members: &[Member],
    routes: &Routes<'_>,
) {
    let problem = &file.problem;
    let (p, q) = (problem.cycle_times.len(), members.len());
    let Some(net) = problem.network.as_ref() else { return };
    t.0.key("hosts");
    t.0.begin_array();
    for (i, &w) in problem.cycle_times.iter().enumerate() {
        t.host_with_speed(i as u64, Name::Doc(file.names.get(i).copied().unwrap_or(Str::EMPTY)), 1.0 / w);
    }
    t.0.end_array();
    t.0.key("routers");
    t.0.begin_array();
    for (r, &name) in file.routers.iter().enumerate() {
        t.router((p + r) as u64, Name::Doc(name));
    }
    t.0.end_array();
    t.0.key("links");
    t.0.begin_array();
    for (e, l) in net.links.iter().enumerate() {
        t.link_shared(e as u64, l.bandwidth * BYTES_PER_VALUE, 0.0, l.kind != LinkKind::Backbone);
    }
    t.0.end_array();
    let at = |k: usize| members.get(k % q.max(1)).map_or(0, |m| m.processor);
    let pair = |k: usize| {
        let (t, r) = (k / 2, k % 2);
        (at(t), if r == 0 { at(t + 1) } else { at(t + q - 1) })
    };
    let n = if q > 1 { 2 * q } else { 0 };
    t.0.key("routes");
    t.0.begin_array();
    for k in (0..n).filter(|&k| !(0..k).any(|j| pair(j) == pair(k))) {
        let (from, to) = pair(k);
        t.route_through(from as u64, to as u64, routes.route(k).iter().map(|&e| e as u64));
    }
    t.0.end_array();
}

/// Reads and plans a document in `memory`, and hands the plan to `finish` while the
/// buffers live: the members in ring order, the best value per ring size.
fn solved<R, M: Memory>(
    text: &[u8],
    memory: &M,
    finish: impl FnOnce(&RingFile<'_>, &Summary, &[Member], &[f64], &Routes<'_>) -> Result<R, Error>,
) -> Result<R, Error> {
    let file = read_into(text, memory)?;
    let problem = file.problem;
    let p = problem.cycle_times.len();
    let needs = ring::needs(p, problem.solver, problem.network.as_ref())?;
    let members = memory.slice("ring members", needs.processors, Member::EMPTY)?;
    let by_size = memory.slice("ring sizes", needs.processors, 0.0f64)?;
    let order = memory.slice("ring orders", needs.order, 0usize)?;
    let comm = memory.slice("ring communication times", needs.comm, 0.0f64)?;
    let g = needs.graph;
    let path_links = memory.slice("ring route links", g.paths.saturating_mul(g.path_len), 0usize)?;
    let path_len = memory.slice("ring route lengths", g.paths, 0usize)?;
    let path_share = memory.slice("ring route shares", g.paths, 0.0f64)?;
    let scratch_usize = memory.slice("ring graph indices", g.usizes, 0usize)?;
    let scratch_f64 = memory.slice("ring graph numbers", g.f64s, 0.0f64)?;
    let summary = ring::plan(
        &problem,
        Buffers {
            members: &mut *members,
            by_size: &mut *by_size,
            order,
            comm,
            paths: Paths {
                links: &mut *path_links,
                len: &mut *path_len,
                share: &mut *path_share,
                path_len: g.path_len,
            },
            scratch_usize,
            scratch_f64,
        },
    )?;
    let (members, by_size): (&[Member], &[f64]) = (members, by_size);
    let paths = Routes { links: path_links, len: path_len, share: path_share, path_len: g.path_len };
    finish(&file, &summary, members.get(..summary.ring_size).unwrap_or(&[]), by_size, &paths)
}

/// The plan's routes, read-only (see [`Paths`]).
pub(crate) struct Routes<'a> {
    links: &'a [usize],
    len: &'a [usize],
    share: &'a [f64],
    path_len: usize,
}

impl Routes<'_> {
    fn route(&self, k: usize) -> &[usize] {
        let n = self.len.get(k).copied().unwrap_or(0);
        let at = k.saturating_mul(self.path_len);
        self.links.get(at..at.saturating_add(n)).unwrap_or(&[])
    }
}

/// A ring document read into the front end's memory.
#[derive(Clone, Copy, Debug)]
pub struct RingFile<'m> {
    /// The processors' names, in document order.
    pub names: &'m [Str<'m>],
    /// The routers' names, in document order.
    pub routers: &'m [Str<'m>],
    /// The links' names, in document order.
    pub links: &'m [Str<'m>],
    /// The problem (cycle times, costs or links in the front end's memory).
    pub problem: Problem<'m>,
}

/// A link as read, its ends by name.
#[derive(Clone, Copy, Debug)]
struct RawLink<'a> {
    name: Str<'a>,
    from: Str<'a>,
    to: Str<'a>,
    bandwidth: f64,
    kind: LinkKind,
}

impl RawLink<'_> {
    const EMPTY: RawLink<'static> = RawLink {
        name: Str::EMPTY,
        from: Str::EMPTY,
        to: Str::EMPTY,
        bandwidth: 1.0,
        kind: LinkKind::Bidirectional,
    };
}

/// Where a pass puts what it reads (empty: only count).
struct Sink<'s, 'a> {
    names: &'s mut [Str<'a>],
    cycle_times: &'s mut [f64],
    costs: &'s mut [f64],
    routers: &'s mut [Str<'a>],
    links: &'s mut [RawLink<'a>],
}

/// Reads a document: a first pass counts the processors, routers and links, a second
/// fills what the front end lends; link ends are resolved to nodes by name.
fn read_into<'m, M: Memory>(text: &'m [u8], memory: &'m M) -> Result<RingFile<'m>, Error> {
    let empty =
        Sink { names: &mut [], cycle_times: &mut [], costs: &mut [], routers: &mut [], links: &mut [] };
    let counted = read(text, empty)?;
    let p = counted.processors;
    check_workers("processors", p as u64)?;
    let graph = counted.links.is_some();
    let (r, e) = (counted.routers, counted.links.unwrap_or(0));
    let sizes = Network { routers: r, links: &[] };
    ring::needs(p, Solver::Greedy, graph.then_some(&sizes))?;
    if graph && e > ring::MAX_LINKS {
        return Err(Error::limit("ring: links", ring::MAX_LINKS as u64, e as u64));
    }
    let names = memory.slice("processor names", p, Str::EMPTY)?;
    let cycle_times = memory.slice("cycle times", p, 0.0f64)?;
    let costs = memory.slice("cost matrix", if graph { 0 } else { p * p }, 0.0f64)?;
    let routers = memory.slice("router names", r, Str::EMPTY)?;
    let raw = memory.slice("links", e, RawLink::EMPTY)?;
    let scalars = read(
        text,
        Sink {
            names: &mut *names,
            cycle_times,
            costs: &mut *costs,
            routers: &mut *routers,
            links: &mut *raw,
        },
    )?;
    let (names, routers): (&[Str<'_>], &[Str<'_>]) = (names, routers);
    unique_names(memory, "processors", p, &|i| names.get(i).copied())?;
    let node = |i: usize| if i < p { names.get(i).copied() } else { routers.get(i - p).copied() };
    unique_names(memory, "routers", p + r, &node)?;
    let links = memory.slice("ring links", e, Link::EMPTY)?;
    let link_names = memory.slice("link names", e, Str::EMPTY)?;
    for (i, (raw, (link, name))) in raw.iter().zip(links.iter_mut().zip(link_names.iter_mut())).enumerate() {
        let find = |s: Str<'_>, field: &'static str| {
            (0..p + r).find(|&k| node(k) == Some(s)).ok_or(Error::json(
                "must name a processor or a router",
                Detail::Entry { list: "links", index: i, field },
            ))
        };
        let (from, to) = (find(raw.from, "from")?, find(raw.to, "to")?);
        if from == to {
            return Err(Error::json(
                "must differ from from",
                Detail::Entry { list: "links", index: i, field: "to" },
            ));
        }
        *link = Link { from, to, bandwidth: raw.bandwidth, kind: raw.kind };
        *name = raw.name;
    }
    let (links, link_names): (&[Link], &[Str<'_>]) = (links, link_names);
    Ok(RingFile {
        names,
        routers,
        links: link_names,
        problem: Problem {
            cycle_times,
            costs,
            work: scalars.work,
            boundary: scalars.boundary,
            solver: scalars.solver,
            local_search: scalars.local_search,
            network: graph.then_some(Network { routers: r, links }),
            sharing: scalars.sharing,
        },
    })
}

struct Scalars {
    processors: usize,
    routers: usize,
    links: Option<usize>,
    work: u64,
    boundary: f64,
    solver: Solver,
    local_search: bool,
    sharing: Sharing,
}

/// One pass over the document; with empty buffers it only counts (and checks) what it
/// reads.
fn read<'a>(json: &'a [u8], sink: Sink<'_, 'a>) -> Result<Scalars, Error> {
    let Sink { names, cycle_times, costs, routers, links } = sink;
    let mut d = Doc::new(json);
    d.object()?;
    let (mut seen, mut work, mut boundary, mut solver) = (0u64, None, None, Solver::Greedy);
    let (mut local_search, mut sharing) = (true, Sharing::Greedy);
    let (mut processors, mut rows, mut router_count, mut link_count) = (None, None, None, None);
    while let Some(k) = d.top_key(&TOP, &mut seen, "ring", "must be \"ring\" for this reader")? {
        match k {
            "work" => {
                let at = d.offset();
                let w = d.u64()?;
                if w == 0 {
                    return Err(d.error("must be at least 1, got 0", at));
                }
                work = Some(w);
            }
            "boundary" => {
                let at = d.offset();
                let h = d.f64()?;
                if !NON_NEGATIVE.contains(h) {
                    return Err(d.error(NON_NEGATIVE.must, at));
                }
                boundary = Some(h);
            }
            "solver" => solver = d.name(&SOLVER)?,
            "sharing" => sharing = d.name(&SHARING)?,
            "local_search" => local_search = d.bool()?,
            "processors" => processors = Some(read_processors(&mut d, names, cycle_times)?),
            "cost_matrix" => rows = Some(read_matrix(&mut d, costs, processors)?),
            "routers" => router_count = Some(read_routers(&mut d, routers)?),
            "links" => link_count = Some(read_links(&mut d, links)?),
            _ => d.skip()?,
        }
    }
    d.end()?;
    let work = work.ok_or(missing("work", "missing (the number of columns to share)"))?;
    let boundary = boundary.ok_or(missing("boundary", "missing (boundary units sent to each neighbour)"))?;
    let p = processors.ok_or(missing("processors", "missing (the list of processors)"))?;
    if p == 0 {
        return Err(Error::no_workers());
    }
    match (rows, link_count) {
        (Some(_), Some(_)) => {
            return Err(Error::json(
                "and links are mutually exclusive (a cost matrix, or routers and links)",
                Detail::Entry { list: "cost_matrix", index: usize::MAX, field: "" },
            ))
        }
        (None, None) => {
            return Err(missing(
                "cost_matrix",
                "missing (seconds per unit between processors, p rows of p; or routers and links)",
            ))
        }
        (Some((r, width)), None) if r != p || width != p => {
            return Err(Error::json(
                "must have one row per processor, each with one cost per processor",
                Detail::Entry { list: "cost_matrix", index: usize::MAX, field: "" },
            ))
        }
        _ => {}
    }
    if rows.is_some() && router_count.is_some() {
        return Err(Error::json(
            "need links (a cost matrix takes no routers)",
            Detail::Entry { list: "routers", index: usize::MAX, field: "" },
        ));
    }
    Ok(Scalars {
        processors: p,
        routers: router_count.unwrap_or(0),
        links: link_count,
        work,
        boundary,
        solver,
        local_search,
        sharing,
    })
}

fn read_routers<'a>(d: &mut Doc<'a>, names: &mut [Str<'a>]) -> Result<usize, Error> {
    d.array()?;
    let mut n = 0usize;
    while d.element()? {
        d.at("routers", n, "");
        d.object()?;
        let (mut seen, mut name) = (0u64, None);
        while let Some(k) = d.key(&ROUTER, &mut seen)? {
            match k {
                "name" => name = Some(d.string()?),
                _ => d.comment()?,
            }
        }
        let at = Detail::Entry { list: "routers", index: n, field: "name" };
        let name = name.ok_or(Error::json("missing", at))?;
        if name.raw().is_empty() {
            return Err(Error::json("must be a non-empty name", at));
        }
        if let Some(s) = names.get_mut(n) {
            *s = name;
        }
        n += 1;
    }
    d.at("", usize::MAX, "");
    Ok(n)
}

fn read_links<'a>(d: &mut Doc<'a>, links: &mut [RawLink<'a>]) -> Result<usize, Error> {
    d.array()?;
    let mut n = 0usize;
    while d.element()? {
        d.at("links", n, "");
        let at = |field: &'static str| Detail::Entry { list: "links", index: n, field };
        d.object()?;
        let mut seen = 0u64;
        let mut link = RawLink::EMPTY;
        let (mut has_from, mut has_to, mut has_bw) = (false, false, false);
        while let Some(k) = d.key(&LINK, &mut seen)? {
            match k {
                "name" => link.name = d.string()?,
                "from" => (link.from, has_from) = (d.string()?, true),
                "to" => (link.to, has_to) = (d.string()?, true),
                "bandwidth" => (link.bandwidth, has_bw) = (d.f64()?, true),
                "kind" => link.kind = d.name(&LINK_KIND)?,
                _ => d.comment()?,
            }
        }
        for (has, field) in [(has_from, "from"), (has_to, "to"), (has_bw, "bandwidth")] {
            if !has {
                return Err(Error::json("missing", at(field)));
            }
        }
        if let Some(s) = links.get_mut(n) {
            *s = link;
        }
        n += 1;
    }
    d.at("", usize::MAX, "");
    Ok(n)
}

fn read_processors<'a>(
    d: &mut Doc<'a>,
    names: &mut [Str<'a>],
    cycle_times: &mut [f64],
) -> Result<usize, Error> {
    d.array()?;
    let mut n = 0usize;
    while d.element()? {
        d.at("processors", n, "");
        let at = |field: &'static str| Detail::Entry { list: "processors", index: n, field };
        d.object()?;
        let (mut seen, mut name, mut cycle) = (0u64, None, None);
        while let Some(k) = d.key(&PROCESSOR, &mut seen)? {
            match k {
                "name" => name = Some(d.string()?),
                "cycle_time" => cycle = Some(d.f64()?),
                _ => d.comment()?,
            }
        }
        let name = name.ok_or(Error::json("missing", at("name")))?;
        if name.raw().is_empty() {
            return Err(Error::json("must be a non-empty name", at("name")));
        }
        let cycle = cycle.ok_or(Error::json("missing", at("cycle_time")))?;
        if let (Some(s), Some(c)) = (names.get_mut(n), cycle_times.get_mut(n)) {
            (*s, *c) = (name, cycle);
        }
        n += 1;
    }
    d.at("", usize::MAX, "");
    Ok(n)
}

/// The matrix's rows, each as long as the processors list (read before it, or the
/// matrix's own width when it comes first: checked against the processors at the end).
fn read_matrix(
    d: &mut Doc<'_>,
    costs: &mut [f64],
    processors: Option<usize>,
) -> Result<(usize, usize), Error> {
    d.array()?;
    let mut width = processors;
    let mut i = 0usize;
    while d.element()? {
        d.at("cost_matrix", i, "");
        d.array()?;
        let mut j = 0usize;
        while d.element()? {
            let c = d.f64()?;
            let p = width.unwrap_or(usize::MAX);
            if let Some(slot) = i.checked_mul(p).and_then(|r| r.checked_add(j)).and_then(|k| costs.get_mut(k))
            {
                *slot = c;
            }
            j += 1;
        }
        if *width.get_or_insert(j) != j {
            return Err(Error::json(
                "must have one cost per processor",
                Detail::Entry { list: "cost_matrix", index: i, field: "" },
            ));
        }
        i += 1;
    }
    d.at("", usize::MAX, "");
    Ok((i, width.unwrap_or(0)))
}

/// Writes the result document: `{"version": 1, "model": "ring", "work", "boundary",
/// "solver", "method", "makespan", "rational_makespan", "lower_bound", "gap", "exact",
/// "ring_size", "even_makespan", "speedup", "sharing", "sharing_gap", "ring": [names],
/// "left_out": [names], "paths": [...] (see [`write_paths`]), "by_ring_size": [{"q",
/// "makespan"}], "plan": [{"name", "rank", "count", "displacement", "share",
/// "compute_time", "comm_time", "finish"}]}`, `plan` in ring order.
///
/// # Errors
///
/// [`ErrorCode::BufferTooSmall`](crate::ErrorCode::BufferTooSmall) with the exact length
/// needed.
pub(crate) fn write_result(
    file: &RingFile<'_>,
    s: &Summary,
    members: &[Member],
    by_size: &[f64],
    routes: &Routes<'_>,
    out: &mut [u8],
) -> Result<usize, Error> {
    let mut w = Writer::new(out);
    let name = |i: usize| file.names.get(i).copied().unwrap_or(Str::EMPTY);
    let r = s.report;
    begin_result(&mut w, "ring");
    w.key("work");
    w.u64(file.problem.work);
    w.key("boundary");
    w.f64(file.problem.boundary);
    w.key("solver");
    w.str(SOLVER.name(file.problem.solver));
    write_answer(&mut w, &r, s.rational_makespan, None);
    w.key("ring_size");
    w.u64(s.ring_size as u64);
    w.key("even_makespan");
    w.f64(s.even_makespan);
    w.key("speedup");
    w.f64(crate::report::speedup(s.even_makespan, r.makespan));
    w.key("sharing");
    w.str(SHARING.name(file.problem.sharing));
    w.key("sharing_gap");
    w.f64(s.sharing_gap);
    w.key("ring");
    w.begin_array();
    for m in members {
        w.raw_str(name(m.processor));
    }
    w.end_array();
    w.key("left_out");
    w.begin_array();
    for i in (0..file.names.len()).filter(|&i| !members.iter().any(|m| m.processor == i)) {
        w.raw_str(name(i));
    }
    w.end_array();
    write_paths(&mut w, file, members, routes);
    w.key("by_ring_size");
    w.begin_array();
    for (q, &t) in by_size.iter().enumerate().filter(|(_, t)| t.is_finite()) {
        w.begin_object();
        w.key("q");
        w.u64(q as u64 + 1);
        w.key("makespan");
        w.f64(t);
        w.end_object();
    }
    w.end_array();
    w.key("plan");
    w.begin_array();
    let mut offset = 0u64;
    for m in members {
        begin_row(&mut w, name(m.processor), m.processor, m.count, offset);
        w.numbers(&[
            ("share", m.share),
            ("compute_time", m.compute_time),
            ("comm_time", m.comm_time),
            ("finish", m.compute_time + m.comm_time),
        ]);
        w.end_object();
        offset = offset.saturating_add(m.count);
    }
    w.end_array();
    w.end_object();
    w.end("result JSON")
}

/// `"paths": [{"from", "to", "role", "links": [names], "bandwidth", "cost_per_unit"}]`,
/// two per member (successor, then predecessor), none for a single processor; on a cost
/// matrix the links are dedicated: no names, bandwidth `1/c`.
fn write_paths(w: &mut Writer<'_>, file: &RingFile<'_>, members: &[Member], routes: &Routes<'_>) {
    let name = |i: usize| file.names.get(i).copied().unwrap_or(Str::EMPTY);
    let q = members.len();
    let p = file.problem.cycle_times.len();
    w.key("paths");
    w.begin_array();
    let at = |k: usize| members.get(k % q.max(1)).map_or(0, |m| m.processor);
    for t in 0..if q > 1 { q } else { 0 } {
        let i = at(t);
        for (r, (to, role)) in [(at(t + 1), "succ"), (at(t + q - 1), "pred")].into_iter().enumerate() {
            w.begin_object();
            w.key("from");
            w.raw_str(name(i));
            w.key("to");
            w.raw_str(name(to));
            w.key("role");
            w.str(role);
            w.key("links");
            w.begin_array();
            let share = if file.problem.network.is_some() {
                for &e in routes.route(2 * t + r) {
                    w.raw_str(file.links.get(e).copied().unwrap_or(Str::EMPTY));
                }
                routes.share.get(2 * t + r).copied().unwrap_or(0.0)
            } else {
                1.0 / file.problem.costs.get(i * p + to).copied().unwrap_or(f64::INFINITY)
            };
            w.end_array();
            w.numbers(&[("bandwidth", share), ("cost_per_unit", 1.0 / share)]);
            w.end_object();
        }
    }
    w.end_array();
}

const EXAMPLE: &str = r#"{
  "version": 1,
  "model": "ring",
  "comment": "A Jacobi-like code on 6000 columns exchanging 200 boundary values per neighbour each iteration, on five machines: two fast ones on one switch, three slower ones behind a slow uplink. cycle_time: seconds per column; cost_matrix[i][j]: seconds per boundary value from i to j. solver: heuristic (the paper's greedy, corrected, then a local search) or exact (every ring, up to 10 processors).",
  "work": 6000,
  "boundary": 200,
  "solver": "heuristic",
  "processors": [
    {"name": "fast1", "cycle_time": 0.001},
    {"name": "fast2", "cycle_time": 0.0012},
    {"name": "mid",   "cycle_time": 0.002},
    {"name": "slow1", "cycle_time": 0.004},
    {"name": "slow2", "cycle_time": 0.004}
  ],
  "cost_matrix": [
    [0,      1e-5,   2e-4,   5e-4,   5e-4],
    [1e-5,   0,      2e-4,   5e-4,   5e-4],
    [2e-4,   2e-4,   0,      5e-5,   5e-5],
    [5e-4,   5e-4,   5e-5,   0,      2e-5],
    [5e-4,   5e-4,   5e-5,   2e-5,   0]
  ]
}
"#;
