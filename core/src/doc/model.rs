//! What a model gives the front ends, so that none of them knows a model by name: the
//! [`Model`] trait (its name, title, paper and example, and how a document of it is
//! planned) and the [`Memory`] a front end lends it.
//!
//! The core never allocates. A model's `plan` reads its document, checks its own limits
//! (workers, solver tables, search sizes) before it asks for anything, then takes exactly
//! the buffers it needs from the front end's [`Memory`] (which may refuse: out of memory is
//! an error, never an abort), solves in them and writes its result document there too.
//! The registry in [`crate::doc`] lists the models, one line each; the front ends call
//! [`crate::doc::plan`] and print what comes back.

use crate::doc::json::{Str, Writer};
use crate::doc::schema::{Chart, Field, Phase};
use crate::error::Error;
use crate::report::Report;

/// Memory a front end lends a model's [`Model::plan`], for as long as the plan lives: an
/// arena that hands out buffers of any type, each initialised. A bump arena over the
/// global allocator (the host crate's), or a fixed region on a controller.
pub trait Memory {
    /// `n` clones of `fill`; `what` names the buffer in the error when the memory cannot
    /// be had.
    ///
    /// # Errors
    ///
    /// Any error the front end chooses when the memory is not available (the host reports
    /// the buffer and the bytes asked for).
    // An arena hands out disjoint buffers from a shared reference: that is its purpose.
    #[allow(clippy::mut_from_ref)]
    fn slice<T: Clone>(&self, what: &'static str, n: usize, fill: T) -> Result<&mut [T], Error>;

    /// A long solver has done `done` of `total` steps (the exact DP's rows). Ignored unless
    /// the front end shows progress.
    fn progress(&self, _done: u64, _total: u64) {}
}

/// A document planned by its model: the result document, in the front end's memory, and
/// the terms every model answers in.
#[derive(Clone, Copy, Debug)]
pub struct Planned<'m> {
    /// The result document (strict JSON, UTF-8).
    pub document: &'m [u8],
    /// Method, makespan, certified lower bound, whether the plan is proven optimal.
    pub report: Report<f64>,
    /// Each worker's part, by its place in the document (an entry with `count: k` is k
    /// workers): what C and MPI codes need without reading the result document.
    pub shares: &'m [Share],
    /// The messages of a plan that sends a worker its part in several (installments), in
    /// send order; empty where each worker gets its share in one message, as `shares` says.
    pub pieces: &'m [Piece],
}

/// One message of a plan sent in installments, in send order: what a pipelined scatter
/// posts (`divload_plan_chunks` in C, `divload.mpi` in Python).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Piece {
    /// The worker that receives and computes it, by its place in the document.
    pub worker: usize,
    /// Items in it.
    pub count: u64,
    /// Its first item in the root's buffer; a worker's pieces are consecutive parts of its
    /// block (`Share::displacement`).
    pub displacement: u64,
    /// When the root starts sending it (seconds after the plan starts).
    pub send_start: f64,
    /// When it has arrived.
    pub send_end: f64,
    /// When its worker starts computing it.
    pub compute_start: f64,
    /// When its worker has computed it.
    pub compute_end: f64,
}

/// One worker's part of a plan, by its place in the document, for front ends that hand
/// out arrays (`divload_plan_shares` in C, the MPI helpers on top of it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Share {
    /// Items (columns, load units) it gets.
    pub count: u64,
    /// Its first item: where its block starts in the data laid out as the plan lays it.
    pub displacement: u64,
    /// Its place in the plan's order (send order, ring order, the ring of processors
    /// along which blocks follow each other, or document order where a model has no
    /// order); `None` when the plan leaves it out (a processor not on the ring, a
    /// processor of a dropped cluster).
    pub position: Option<u32>,
}

impl Share {
    /// A worker left out, to initialise buffers.
    pub const EMPTY: Share = Share { count: 0, displacement: 0, position: None };
}

/// The shares of `workers` workers taken from `memory`, filled from the plan's rows in
/// the plan's order: `(worker, count, displacement, takes_part)`, the k-th row that takes
/// part at position k, the others at `None`. Workers no row names stay [`Share::EMPTY`];
/// a row naming no worker is ignored (the rows come from the model's own plan, whose
/// workers are in range).
///
/// # Errors
///
/// The memory's error.
pub(crate) fn shares_in_order<M: Memory>(
    memory: &M,
    workers: usize,
    rows: impl Iterator<Item = (usize, u64, u64, bool)>,
) -> Result<&[Share], Error> {
    let shares = memory.slice("shares", workers, Share::EMPTY)?;
    let mut next = 0u32;
    for (worker, count, displacement, takes_part) in rows {
        let position = takes_part.then_some(next);
        // Workers are at most `limits::MAX_WORKERS` (2²⁰): the count never wraps.
        next = next.wrapping_add(u32::from(takes_part));
        if let Some(s) = shares.get_mut(worker) {
            *s = Share { count, displacement, position };
        }
    }
    Ok(shares)
}

/// The size of a document's plan: its workers after expansion, and a rough upper bound on
/// the solver's elementary steps (worst cases, as BENCHMARKS.md lists them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effort {
    /// Workers (or processors) once `count` is expanded.
    pub workers: u64,
    /// Elementary steps the solver may take, at most.
    pub work: u64,
}

/// One model as documents name it and front ends offer it.
///
/// Adding a model is a folder `core/src/<model>/` for the solver, a module
/// `core/src/doc/<model>.rs` with a unit struct implementing this trait, and its line in
/// the registry (`registry!` in `doc/mod.rs`); no front end changes.
pub trait Model {
    /// What it plans, in a line.
    const TITLE: &'static str;
    /// The paper and sections it follows.
    const PAPER: &'static str;
    /// A ready-to-edit document (`divload example MODEL`).
    const EXAMPLE: &'static str;
    /// The document's top-level fields (beyond `version`, `model`, `comment` and
    /// `description`), from which front ends build forms.
    const SCHEMA: &'static [Field];
    /// How a row of the result's `plan` is drawn as a Gantt chart, phase by phase.
    const GANTT: &'static [Phase];
    /// Charts of the result besides the Gantt chart (none unless the model has some).
    const CHARTS: &'static [Chart] = &[];

    /// Plans a document of this model: reads it strictly, checks its limits, takes its
    /// buffers from `memory`, solves and writes the result document into `memory`.
    ///
    /// # Errors
    ///
    /// The model's reading, range and capacity errors, naming the input; the memory's
    /// error when a buffer cannot be had.
    fn plan<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<Planned<'m>, Error>;

    /// How much planning `text` would take, read without solving (buffers from
    /// `memory`), so that a front end with a budget (a fuzzer, a service) can decline a
    /// document before it runs.
    ///
    /// # Errors
    ///
    /// The model's reading errors.
    fn effort<M: Memory>(text: &[u8], memory: &M) -> Result<Effort, Error>;

    /// The plan as the events it predicts, for a simulator to play (`divload simulate`):
    /// `{"hosts": [{"id", "name"}], "links": [{"id", "bandwidth", "latency"}], "routes":
    /// [{"from", "to", "links": [ids]}], "actors": [{"id", "host", "name", "do": [action],
    /// "end"}]}`, an action being `{"send": mailbox, "bytes"}`, `{"recv": mailbox}`
    /// (with `"count": n`, n messages from that mailbox, all accepted at once so that no
    /// sender waits for another's message to be taken), `{"compute": seconds}` (hosts
    /// compute one unit per second, so a computation's length is its predicted time,
    /// whatever the cost's shape) or `{"sleep": seconds}` (a fixed delay that neither the
    /// host's speed nor the network changes), and `end` the time the
    /// model predicts for the actor's last action to end. Bandwidths are in bytes per
    /// second, latencies in seconds; a transfer of `bytes` over a route takes `latency +
    /// bytes/bandwidth` in the model. `None` for a model whose timeline is not written yet.
    ///
    /// Optional, for platforms that are graphs: a host's `"speed"` (units per second, 1
    /// when absent: its computations are then in units of work), a link's `"sharing"`
    /// (`"shared"`, the default: every route crossing it in either direction shares its
    /// bandwidth; `"fatpipe"`: each route gets the whole bandwidth), a route of several
    /// links (the transfer takes the sum of their latencies and the smallest bandwidth),
    /// `"routers": [{"id", "name"}]`, nodes that only relay, and a send's `"rate"`, the
    /// bytes per second the model reserves for it (a simulator caps the transfer there;
    /// without reservations it shares the links among the transfers in flight).
    ///
    /// # Errors
    ///
    /// As [`Model::plan`].
    fn timeline<'m, M: Memory>(_text: &[u8], _memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        Ok(None)
    }

    /// A generated document (`divload example MODEL --key value …`) from `params`, the
    /// pairs after the model's name; `None` for a model without a generator (the
    /// registry's [`crate::doc::generate`] then says so).
    ///
    /// # Errors
    ///
    /// The model's errors for an unknown key or a value out of range, naming it.
    fn generate<'m, M: Memory>(_params: &[(&str, &str)], _memory: &'m M) -> Result<Option<&'m [u8]>, Error> {
        Ok(None)
    }

    /// What the plan is compared with, as a JSON object of schedules the page draws next
    /// to it (the scatter's even split and reversed order); `{}` when the model has none
    /// beyond what its result document holds.
    ///
    /// # Errors
    ///
    /// As [`Model::plan`], and the model's reason when a document has no baselines.
    fn baselines<'m, M: Memory>(text: &[u8], memory: &'m M) -> Result<&'m [u8], Error> {
        // Read and checked as a plan would be, so that an invalid document is an error here too.
        Self::plan(text, memory).map(|_| &b"{}"[..])
    }
}

/// Writes a result document into `memory`, exactly as long as it is: a dry run of `write`
/// (the writers count past the end of their buffer) gives the length, then it is written.
///
/// # Errors
///
/// The memory's error; `write`'s own errors other than a short buffer.
pub fn written<M: Memory>(
    memory: &M,
    write: impl Fn(&mut [u8]) -> Result<usize, Error>,
) -> Result<&[u8], Error> {
    let needed = match write(&mut []) {
        Ok(n) => n,
        Err(e) => e.needed().ok_or(e)?,
    };
    let out = memory.slice("result document", needed, 0u8)?;
    let n = write(out)?;
    Ok(out.get(..n).unwrap_or(&[]))
}

/// Writes the parts of a timeline ([`Model::timeline`]): each model lists its hosts,
/// links, routes and actors through these, so the format is written in one place.
pub(crate) struct Timeline<'w, 'b>(pub &'w mut Writer<'b>);

/// A timeline document (see [`Model::timeline`]) written by `body` into `memory`.
pub(crate) fn timeline_document<M: Memory>(
    memory: &M,
    body: impl Fn(&mut Timeline<'_, '_>),
) -> Result<&[u8], Error> {
    written(memory, |buf| {
        let mut w = Writer::new(buf);
        w.begin_object();
        body(&mut Timeline(&mut w));
        w.end_object();
        w.end("timeline JSON")
    })
}

/// An actor's or a host's name: as a document spelt it, or a label.
#[derive(Clone, Copy)]
pub(crate) enum Name<'a> {
    /// A name read from the document.
    Doc(Str<'a>),
    /// A label of the model's (`"master sends"`).
    Label(&'static str),
}

impl Timeline<'_, '_> {
    fn name(&mut self, name: Name<'_>) {
        self.0.key("name");
        match name {
            Name::Doc(s) => self.0.raw_str(s),
            Name::Label(s) => self.0.str(s),
        }
    }

    /// `{"id", "name"}` in `hosts`.
    pub fn host(&mut self, id: u64, name: Name<'_>) {
        self.0.begin_object();
        self.0.key("id");
        self.0.u64(id);
        self.name(name);
        self.0.end_object();
    }

    /// `{"id", "name", "speed"}` in `hosts`: a host computing `speed` units per second.
    pub fn host_with_speed(&mut self, id: u64, name: Name<'_>, speed: f64) {
        self.0.begin_object();
        self.0.key("id");
        self.0.u64(id);
        self.name(name);
        self.0.key("speed");
        self.0.f64(speed);
        self.0.end_object();
    }

    /// `{"id", "name"}` in `routers`.
    pub fn router(&mut self, id: u64, name: Name<'_>) {
        self.host(id, name);
    }

    /// `{"id", "bandwidth", "latency"}` in `links`.
    pub fn link(&mut self, id: u64, bandwidth: f64, latency: f64) {
        self.link_shared(id, bandwidth, latency, true);
    }

    /// `{"id", "bandwidth", "latency", "sharing"}` in `links`: `shared` or not (a
    /// fatpipe, each route getting the whole bandwidth).
    pub fn link_shared(&mut self, id: u64, bandwidth: f64, latency: f64, shared: bool) {
        self.0.begin_object();
        self.0.key("id");
        self.0.u64(id);
        self.0.numbers(&[("bandwidth", bandwidth), ("latency", latency)]);
        if !shared {
            self.0.key("sharing");
            self.0.str("fatpipe");
        }
        self.0.end_object();
    }

    /// `{"from", "to", "links": [link]}` in `routes`: one link per route here.
    pub fn route(&mut self, from: u64, to: u64, link: u64) {
        self.route_through(from, to, [link]);
    }

    /// `{"from", "to", "links": [links]}` in `routes`, the links in the order crossed.
    pub fn route_through(&mut self, from: u64, to: u64, links: impl IntoIterator<Item = u64>) {
        self.0.begin_object();
        self.0.key("from");
        self.0.u64(from);
        self.0.key("to");
        self.0.u64(to);
        self.0.key("links");
        self.0.begin_array();
        for link in links {
            self.0.u64(link);
        }
        self.0.end_array();
        self.0.end_object();
    }

    /// Opens an actor and its actions; [`Timeline::end`] closes it.
    pub fn actor(&mut self, id: u64, host: u64, name: Name<'_>) {
        self.0.begin_object();
        self.0.key("id");
        self.0.u64(id);
        self.0.key("host");
        self.0.u64(host);
        self.name(name);
        self.0.key("do");
        self.0.begin_array();
    }

    /// A blocking send of `bytes` to `mailbox`.
    pub fn send(&mut self, mailbox: u64, bytes: f64) {
        self.0.begin_object();
        self.0.key("send");
        self.0.u64(mailbox);
        self.0.key("bytes");
        self.0.f64(bytes);
        self.0.end_object();
    }

    /// A blocking send of `bytes` to `mailbox` at `rate` bytes per second, the bandwidth
    /// the model reserves for it: never faster, and that fast whenever the model's
    /// reservations fit in the links.
    pub fn send_at_rate(&mut self, mailbox: u64, bytes: f64, rate: f64) {
        self.0.begin_object();
        self.0.key("send");
        self.0.u64(mailbox);
        self.0.numbers(&[("bytes", bytes), ("rate", rate)]);
        self.0.end_object();
    }

    /// A blocking receive from `mailbox`.
    pub fn recv(&mut self, mailbox: u64) {
        self.0.begin_object();
        self.0.key("recv");
        self.0.u64(mailbox);
        self.0.end_object();
    }

    /// Receives `count` messages from `mailbox`, all accepted at once: senders to one
    /// receiver do not wait for each other.
    pub fn recv_all(&mut self, mailbox: u64, count: u64) {
        self.0.begin_object();
        self.0.key("recv");
        self.0.u64(mailbox);
        self.0.key("count");
        self.0.u64(count);
        self.0.end_object();
    }

    /// Declares the actor the permanent receiver of `mailbox`: messages sent there flow to
    /// its host as soon as they are sent, before it asks for them (a receive posted in
    /// advance, as MPI's eager protocol or `MPI_Irecv`), and wait there until it does.
    /// Only the scatter's installment plans post receives in advance.
    #[cfg(feature = "scatter-installments")]
    pub fn receiver(&mut self, mailbox: u64) {
        self.0.begin_object();
        self.0.key("receiver");
        self.0.u64(mailbox);
        self.0.end_object();
    }

    /// A fixed delay of `seconds`, on neither the host's processor nor the network.
    pub fn sleep(&mut self, seconds: f64) {
        self.0.begin_object();
        self.0.key("sleep");
        self.0.f64(seconds);
        self.0.end_object();
    }

    /// A computation of `seconds`.
    pub fn compute(&mut self, seconds: f64) {
        self.0.begin_object();
        self.0.key("compute");
        self.0.f64(seconds);
        self.0.end_object();
    }

    /// Closes an actor: the time its last action ends, as the model predicts.
    pub fn end(&mut self, predicted: f64) {
        self.0.end_array();
        self.0.key("end");
        self.0.f64(predicted);
        self.0.end_object();
    }
}

/// The limits every front end plans within, declared once.
pub mod limits {
    /// Most workers (after `count` expansion) a document may ask for: at about 200 bytes
    /// per worker in the largest model, 200 MiB.
    pub const MAX_WORKERS: usize = 1 << 20;

    /// Most memory the exact DP may ask for: 4 GiB, what wasm32 can address. Its tables
    /// are allocated and zeroed before it starts, so a document of a few bytes asking for
    /// 10⁹ items could otherwise take the machine's memory for seconds before its work
    /// budget stops it; the sampled DP plans such documents in bounded memory.
    pub const MAX_DP_BYTES: u64 = 4 << 30;

    /// Sampled sizes of the sampled DP's workspace (allocated only when it is used, as
    /// its two arrays: built as one value first, it would pass through the stack).
    pub const SAMPLES: usize = 4096;

    /// Most workers the sampled DP's workspace holds: with [`SAMPLES`], 2 MiB of choices.
    pub const SAMPLED_WORKERS: usize = 256;
}
