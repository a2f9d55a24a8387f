//! What a model's documents hold and how its plan is drawn, declared next to each reader
//! ([`Model::SCHEMA`](crate::doc::Model::SCHEMA), [`Model::GANTT`](crate::doc::Model::GANTT)),
//! so that a front end builds a model's form, its checks and its chart without knowing the
//! model: the calculator page reads them from `models()`.
//!
//! A range is declared once, here: the readers check values with [`Range::contains`] on
//! the same constant the schema lists, and `tests/tests/schema.rs` plans every model's
//! example just outside and at each bound, so the two cannot drift.

use crate::doc::json::Writer;
use crate::doc::names::Names;

/// One key of a document (or of an object inside it).
#[derive(Debug)]
pub struct Field {
    /// The key.
    pub key: &'static str,
    /// What its value is.
    pub kind: Kind,
    /// The unit of a number (`s`, `s/item`), or empty.
    pub unit: &'static str,
    /// The number the reader takes when the key is left out, as JSON text; empty when the
    /// key is required or leaving it out means something of its own. (A choice's default
    /// is its first name.)
    pub default: &'static str,
    /// What it means, in a line.
    pub help: &'static str,
}

/// The kind of a field's value.
#[derive(Debug)]
pub enum Kind {
    /// A number in a range (a reference: inline, the range tripled every field's size).
    Number(&'static Range),
    /// A whole number in a range.
    Integer(&'static Range),
    /// A string.
    Text,
    /// One of an option's names (`doc::names`); its first name is what the reader takes
    /// when the key is left out.
    Choice(&'static dyn Choices),
    /// `true` or `false`.
    Flag,
    /// An array of objects, each with these fields.
    List(&'static [Field]),
    /// An object with these fields.
    Object(&'static [Field]),
    /// A value of several shapes (a cost table, a power law, an application), edited as
    /// JSON text.
    Json,
}

pub use crate::num::range::{Range, AT_LEAST_ONE, INVERTIBLE, NON_NEGATIVE, POSITIVE};

/// The names of an option, whatever its value type.
pub trait Choices: Sync {
    /// The `i`-th name, in the order front ends offer them.
    fn name_at(&self, i: usize) -> Option<&'static str>;
}

// Not a supertrait: `Debug` in the vtables brought each option type's `Debug`, and with
// it `core::fmt`'s float formatting, into the wasm module (21 KB).
impl core::fmt::Debug for dyn Choices {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries((0..).map_while(|i| self.name_at(i))).finish()
    }
}

impl<T: Sync> Choices for Names<T> {
    fn name_at(&self, i: usize) -> Option<&'static str> {
        self.table.get(i).map(|e| e.0)
    }
}

/// One phase of a plan row as the page draws it: a bar from the row's `start` column to
/// its `end` column (of the result's `plan`), called `label`.
#[derive(Debug, PartialEq, Eq)]
pub struct Phase {
    /// What the worker does then (`receive`, `compute`, `return`).
    pub label: &'static str,
    /// The column holding the phase's start time; empty for a phase that starts at 0. A row
    /// without that column starts the phase where the phase before it ends; a row with it
    /// may wait in between (a release time).
    pub start: &'static str,
    /// The column holding its end time.
    pub end: &'static str,
}

/// Shorthand for the tables: a field with no unit and no default.
pub(crate) const fn field(key: &'static str, kind: Kind, help: &'static str) -> Field {
    Field { key, kind, unit: "", default: "", help }
}

/// Writes `fields` as `[{"key", "kind", …}, …]` (only the members a field has).
pub(crate) fn write_fields(w: &mut Writer<'_>, fields: &[Field]) {
    w.begin_array();
    for f in fields {
        w.begin_object();
        let (kind, range, nested) = match &f.kind {
            Kind::Number(r) => ("number", Some(r), None),
            Kind::Integer(r) => ("integer", Some(r), None),
            Kind::Text => ("text", None, None),
            Kind::Choice(_) => ("choice", None, None),
            Kind::Flag => ("flag", None, None),
            Kind::List(fields) => ("list", None, Some(fields)),
            Kind::Object(fields) => ("object", None, Some(fields)),
            Kind::Json => ("json", None, None),
        };
        for (key, text) in [("key", f.key), ("kind", kind), ("unit", f.unit), ("help", f.help)] {
            member(w, key, text);
        }
        if !f.default.is_empty() {
            w.key("default");
            w.raw_value(f.default.as_bytes());
        }
        if let Some(r) = range {
            for (key, bound, open, open_key) in
                [("min", r.min, r.min_open, "min_open"), ("max", r.max, r.max_open, "max_open")]
            {
                if bound.is_finite() {
                    w.key(key);
                    w.f64(bound);
                    if open {
                        w.key(open_key);
                        w.bool(true);
                    }
                }
            }
        }
        if let Kind::Choice(names) = f.kind {
            member(w, "default", names.name_at(0).unwrap_or(""));
            w.key("choices");
            w.begin_array();
            let mut i = 0;
            while let Some(n) = names.name_at(i) {
                w.str(n);
                i += 1;
            }
            w.end_array();
        }
        if let Some(fields) = nested {
            w.key("fields");
            write_fields(w, fields);
        }
        w.end_object();
    }
    w.end_array();
}

/// `"key": "text"`, left out when the text is empty. Not inlined: one copy serves every
/// member of the schemas and timelines (the wasm module's size).
#[inline(never)]
fn member(w: &mut Writer<'_>, key: &'static str, text: &str) {
    if !text.is_empty() {
        w.key(key);
        w.str(text);
    }
}

/// A chart of a result beside its Gantt chart ([`Model::CHARTS`](crate::doc::Model::CHARTS)),
/// drawn by a front end from the result document alone.
#[derive(Debug)]
pub struct Chart {
    /// The chart's caption.
    pub title: &'static str,
    /// How the list is drawn.
    pub kind: ChartKind,
    /// The result's list the chart draws ([`ChartKind::Graph`]: its routes).
    pub list: &'static str,
    /// [`ChartKind::Line`]: the key of a row's x value. Otherwise unused.
    pub x: &'static str,
    /// [`ChartKind::Line`]: the key of a row's y value. Otherwise unused.
    pub y: &'static str,
    /// [`ChartKind::Line`]: the key naming a row's series (one line per name), or empty
    /// for one line. [`ChartKind::Cycle`], [`ChartKind::Graph`]: the result's list of
    /// names left off the cycle (out of the plan), or empty. [`ChartKind::Lanes`]: the key
    /// naming a row's lane.
    pub group: &'static str,
}

/// How a [`Chart`] draws its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// Rows of numbers as points joined by lines: a value against the ring size, a cost
    /// against the items.
    Line,
    /// A list of names as a cycle, each joined to the next and the last to the first: a
    /// ring's order.
    Cycle,
    /// The document's own graph (its nodes and edges, [`Graph`]) with the result's routes
    /// over it: the list is the result's routes, `group` its list of the
    /// [`nodes`](Graph::nodes) left out of the plan (or empty). Drawn only for a document
    /// that has the edges.
    Graph(&'static Graph),
    /// Rows as bars on one time axis, one lane per value of the chart's `group` key (the
    /// rows of a lane in list order), each row's phases from their start to their end
    /// column: a plan sent in installments, every chunk's transfer and computation on its
    /// worker's lane.
    Lanes(&'static [Phase]),
}

/// Where a [`ChartKind::Graph`] chart finds its graph: nodes and edges in the document,
/// named by their `name`, each edge joining the node named by its `from` to the one named
/// by its `to`. A route of the result (a row of the chart's list) goes `from` a node `to`
/// another, lists the names of the edges it crosses under the key of the edge list, and
/// its share of each under the edge's [`weight`](Graph::weight) key; routes joining the
/// same two nodes, either way, are one pair (a ring's edge: its successor and predecessor
/// paths) and drawn in one colour.
#[derive(Debug, PartialEq, Eq)]
pub struct Graph {
    /// The document's list of the nodes a plan places or leaves out (`processors`).
    pub nodes: &'static str,
    /// The document's list of the nodes that only relay (`routers`), or empty.
    pub relays: &'static str,
    /// The document's list of edges (`links`).
    pub edges: &'static str,
    /// The number an edge carries and a route gets of it (`bandwidth`).
    pub weight: &'static str,
    /// The key of an edge's choice of look (`kind`), or empty: an edge is a plain line
    /// (both ways, one capacity) unless that choice is [`arrow`](Graph::arrow) or
    /// [`thick`](Graph::thick).
    pub style: &'static str,
    /// The `style` value of an edge drawn as an arrow from `from` to `to` (one way).
    pub arrow: &'static str,
    /// The `style` value of an edge drawn thick (a backbone: every route gets all of it).
    pub thick: &'static str,
}

/// Writes `charts` as `[{"title", "kind", "list", "x", "y", "group"}, …]`, a graph's with
/// `"nodes", "relays", "edges", "weight", "style", "arrow", "thick"`, lanes' with
/// `"phases": [{"label", "start", "end"}, …]`.
pub(crate) fn write_charts(w: &mut Writer<'_>, charts: &[Chart]) {
    w.begin_array();
    for c in charts {
        w.begin_object();
        let (kind, g, phases): (_, _, &[Phase]) = match c.kind {
            ChartKind::Line => ("line", &NO_GRAPH, &[]),
            ChartKind::Cycle => ("cycle", &NO_GRAPH, &[]),
            ChartKind::Graph(g) => ("graph", g, &[]),
            ChartKind::Lanes(phases) => ("lanes", &NO_GRAPH, phases),
        };
        for (key, text) in [
            ("title", c.title),
            ("kind", kind),
            ("list", c.list),
            ("x", c.x),
            ("y", c.y),
            ("group", c.group),
            ("nodes", g.nodes),
            ("relays", g.relays),
            ("edges", g.edges),
            ("weight", g.weight),
            ("style", g.style),
            ("arrow", g.arrow),
            ("thick", g.thick),
        ] {
            member(w, key, text);
        }
        if !phases.is_empty() {
            w.key("phases");
            write_timeline(w, phases);
        }
        w.end_object();
    }
    w.end_array();
}

/// A chart that is no graph writes none of a graph's keys (all empty).
const NO_GRAPH: Graph =
    Graph { nodes: "", relays: "", edges: "", weight: "", style: "", arrow: "", thick: "" };

/// Writes `phases` as `[{"label", "start", "end"}, …]`.
pub(crate) fn write_timeline(w: &mut Writer<'_>, phases: &[Phase]) {
    w.begin_array();
    for p in phases {
        w.begin_object();
        for (key, text) in [("label", p.label), ("start", p.start), ("end", p.end)] {
            member(w, key, text);
        }
        w.end_object();
    }
    w.end_array();
}
