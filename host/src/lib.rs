//! The front ends' common path from a document to a result document, with the memory the
//! core asks for lent from here (`divload` itself never allocates).
//!
//! [`plan_json`] plans any model's document: the core's registry
//! ([`divload::doc::plan`]) reads it, checks its limits and takes exactly the buffers it
//! needs from a [`HostMemory`], a bump arena over the global allocator whose every
//! allocation is fallible (running out of memory is [`HostError::OutOfMemory`], not an
//! abort). The command line, `libdivload`, the wasm bindings and the fuzz targets all go
//! through here, and none of them knows a model by name.
//!
//! Rust's standard library aborts the process when an allocation it cannot refuse fails
//! (`Vec::push`, `to_vec`, `format!`), which under a memory limit kills an MPI rank that
//! links `libdivload`. So nothing sized by a plan leaves here through such an
//! allocation: the arena's chunks grow with `try_alloc_*` (bumpalo returns the global
//! allocator's refusal; a large buffer gets a chunk of its own size, see `OWN_CHUNK`),
//! what outlives the arena is copied by [`joined`] (texts) or [`copied`] (shares), each
//! reserved fallibly, and [`with_plan`] lets a front end read the plan in the arena without
//! a copy (the command line prints from there, the C library copies into its caller's
//! buffers, Python into the `bytes` it returns).

use std::cell::Cell;
#[cfg(not(target_arch = "wasm32"))]
use std::cell::OnceCell;

mod workspace;
pub use workspace::{Counted, Workspace};

use bumpalo::Bump;
use divload::doc::Memory;

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

/// A copy of `items` that outlives the arena it was planned in, or
/// [`HostError::OutOfMemory`] naming `what` (`to_vec` would abort instead).
///
/// # Errors
///
/// [`HostError::OutOfMemory`] when the allocation fails.
pub fn copied<T: Clone>(what: &'static str, items: &[T]) -> Result<Vec<T>, HostError> {
    let mut v = Vec::new();
    if v.try_reserve_exact(items.len()).is_err() {
        return Err(out_of_memory(what, items.len(), std::mem::size_of::<T>()));
    }
    v.extend_from_slice(items);
    Ok(v)
}

/// `parts` one after the other in a `Vec` of their own, or [`HostError::OutOfMemory`]
/// naming `what`: every text that outlives its arena is copied here (one reservation's
/// code in the wasm module, whose bytes the page pays for).
///
/// # Errors
///
/// [`HostError::OutOfMemory`] when the allocation fails.
pub fn joined(what: &'static str, parts: &[&[u8]]) -> Result<Vec<u8>, HostError> {
    let len = parts.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
    let mut v = Vec::new();
    // Not `try_reserve_exact`: from empty the amortised reservation is exact too, and its
    // code is the one `String`'s growth already put into the wasm module.
    if v.try_reserve(len).is_err() {
        return Err(HostError::OutOfMemory { what, bytes: len });
    }
    for part in parts {
        v.extend_from_slice(part);
    }
    Ok(v)
}

/// Out of its generic caller, which the wasm module holds once per element type.
#[cold]
#[inline(never)]
fn out_of_memory(what: &'static str, n: usize, size: usize) -> HostError {
    HostError::OutOfMemory { what, bytes: n.saturating_mul(size) }
}

/// The memory a model's plan takes its buffers from: a bump arena, freed as a whole when
/// the plan is done. An allocation that fails is remembered, so that the core's error for
/// it becomes [`HostError::OutOfMemory`] with the buffer's name and size.
pub struct HostMemory<'p> {
    arena: Bump,
    /// Arenas of one large buffer each (see [`OWN_CHUNK`]), filled in order. Not in the
    /// browser's module, whose bytes the page pays for (1.2 KB for these) and whose memory
    /// limit is a tab's, not an MPI rank's: there large buffers come from `arena`.
    #[cfg(not(target_arch = "wasm32"))]
    large: [OnceCell<Bump>; LARGE_BUFFERS],
    failed: Cell<Option<(&'static str, usize)>>,
    progress: Option<&'p dyn Fn(u64, u64)>,
}

/// Buffers of at least this many bytes are given a chunk of their own, of their size.
/// Bumpalo grows an arena by a chunk twice its last one, halved while the allocator
/// refuses, never below the request: under a memory limit a small buffer after a large one
/// took all that was left (36 MB for a ring's 4 KB of shares after its 34 MB result
/// document, which Python's copy of the result then lacked), and a buffer smaller than the
/// last chunk could be refused with its own size free (11.7 MiB of result document after
/// 1.1 GiB of DP asked for 17.9).
#[cfg(not(target_arch = "wasm32"))]
const OWN_CHUNK: usize = 1 << 20;

/// How many large buffers get a chunk of their own; any further one is taken from the
/// shared arena as the small ones are. A plan takes a handful (workers, plan, scratch, the
/// solver's tables, the result document, the shares): a fixed array, so that no list is
/// allocated.
#[cfg(not(target_arch = "wasm32"))]
const LARGE_BUFFERS: usize = 24;

impl std::fmt::Debug for HostMemory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostMemory").field("allocated", &self.allocated()).finish()
    }
}

impl<'p> HostMemory<'p> {
    /// An empty arena; `progress` receives the long solvers' progress (the exact DP's).
    pub fn new(progress: Option<&'p dyn Fn(u64, u64)>) -> Self {
        HostMemory {
            arena: Bump::new(),
            #[cfg(not(target_arch = "wasm32"))]
            large: [const { OnceCell::new() }; LARGE_BUFFERS],
            failed: Cell::new(None),
            progress,
        }
    }

    /// The bytes of every chunk taken from the global allocator.
    fn allocated(&self) -> usize {
        #[cfg(not(target_arch = "wasm32"))]
        let large = self.large.iter().filter_map(OnceCell::get).map(Bump::allocated_bytes);
        #[cfg(target_arch = "wasm32")]
        let large = std::iter::empty();
        large.fold(self.arena.allocated_bytes(), usize::saturating_add)
    }

    /// The arena a buffer of `bytes` is taken from: a new one of its size for a large
    /// buffer while there are slots and the memory for it, else the shared one (which then
    /// refuses a buffer that large, or finds it room). Out of [`Memory::slice`], which the
    /// core instantiates for every element type.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn arena_for(&self, bytes: usize) -> &Bump {
        #[cfg(not(target_arch = "wasm32"))]
        if bytes >= OWN_CHUNK {
            if let Some(slot) = self.large.iter().find(|slot| slot.get().is_none()) {
                if let Ok(arena) = Bump::try_with_capacity(bytes) {
                    return slot.get_or_init(|| arena);
                }
            }
        }
        #[cfg(target_arch = "wasm32")]
        let _ = bytes;
        &self.arena
    }

    /// The core's error, or [`HostError::OutOfMemory`] when it came from a failed
    /// allocation of this memory.
    fn error(&self, e: divload::Error) -> HostError {
        match self.failed.get() {
            Some((what, bytes)) => HostError::OutOfMemory { what, bytes },
            None => HostError::Core(e),
        }
    }

    #[cold]
    #[inline(never)]
    fn fail(&self, what: &'static str, bytes: usize) -> divload::Error {
        self.failed.set(Some((what, bytes)));
        // Replaced by `HostMemory::error` on the way out: the core only passes it up.
        divload::Error::limit(what, 0, bytes as u64)
    }
}

impl Memory for HostMemory<'_> {
    fn slice<T: Clone>(&self, what: &'static str, n: usize, fill: T) -> Result<&mut [T], divload::Error> {
        let bytes = n.saturating_mul(std::mem::size_of::<T>());
        self.arena_for(bytes).try_alloc_slice_fill_clone(n, &fill).map_err(|_| self.fail(what, bytes))
    }

    fn progress(&self, done: u64, total: u64) {
        if let Some(p) = self.progress {
            p(done, total);
        }
    }
}

/// Runs `f` in a fresh [`HostMemory`] and returns what it computed: the typed entry
/// points (`divload_plan_multicluster` in C) take their buffers from the same arena as
/// [`plan_json`].
///
/// # Errors
///
/// `f`'s core error, or [`HostError::OutOfMemory`].
pub fn with_memory<R>(
    progress: Option<&dyn Fn(u64, u64)>,
    f: impl FnOnce(&HostMemory<'_>) -> Result<R, divload::Error>,
) -> Result<R, HostError> {
    let memory = HostMemory::new(progress);
    f(&memory).map_err(|e| memory.error(e))
}

/// Plans `text` in a fresh [`HostMemory`] and hands the plan, still in the arena, to
/// `read`: for front ends that print the result document or copy it and the shares
/// straight into memory of their own (C's caller's buffers, Python's `bytes`) rather than
/// through a `Vec`, which would need their size again while the solver's memory is held.
/// The arena is freed when `read` returns, before its value is.
///
/// # Errors
///
/// As [`plan_json`], and `read`'s own error.
pub fn with_plan<R>(
    text: &[u8],
    progress: Option<&dyn Fn(u64, u64)>,
    read: impl FnOnce(divload::doc::model::Planned<'_>) -> Result<R, HostError>,
) -> Result<R, HostError> {
    let memory = HostMemory::new(progress);
    let planned = divload::doc::plan(text, &memory).map_err(|e| memory.error(e))?;
    read(planned)
}

/// [`bytes_of`] for a function of a document's text: one body for the plan, the baselines
/// and the models (a function pointer, not a closure per caller), which the wasm module
/// holds once.
fn text_bytes(
    progress: Option<&dyn Fn(u64, u64)>,
    text: &[u8],
    f: for<'m, 'p> fn(&[u8], &'m HostMemory<'p>) -> Result<&'m [u8], divload::Error>,
) -> Result<Vec<u8>, HostError> {
    bytes_of(progress, |m| f(text, m))
}

/// Runs `f` in a fresh [`HostMemory`] and copies the bytes it wrote there out of the
/// arena ([`joined`]: the copy is fallible too).
fn bytes_of(
    progress: Option<&dyn Fn(u64, u64)>,
    f: impl for<'m> FnOnce(&'m HostMemory<'_>) -> Result<&'m [u8], divload::Error>,
) -> Result<Vec<u8>, HostError> {
    let memory = HostMemory::new(progress);
    let bytes = f(&memory).map_err(|e| memory.error(e))?;
    joined("result document", &[bytes])
}

/// `[{"name", "title", "paper", "fields", "timeline"}, …]`: every model a document can name.
///
/// # Errors
///
/// [`HostError::OutOfMemory`].
pub fn models_json() -> Result<Vec<u8>, HostError> {
    text_bytes(None, b"", |_, m| divload::doc::model::written(m, divload::doc::write_models))
}

/// `text` with its top-level `fields` set ([`divload::doc::set_fields`]): how a front end
/// changes a document's settings for any model.
///
/// # Errors
///
/// As [`divload::doc::set_fields`]; [`HostError::OutOfMemory`].
pub fn set_fields_json(text: &[u8], fields: &[(&'static str, &[u8])]) -> Result<Vec<u8>, HostError> {
    bytes_of(None, |m| divload::doc::model::written(m, |out| divload::doc::set_fields(text, fields, out)))
}

/// Plans any document and returns its result document: the one entry point of every
/// front end (`divload plan --json`, `divload_plan_json`, the browser's `plan`). The
/// model comes from the document's `"model"` ([`divload::doc::model_of`]).
///
/// # Errors
///
/// The core's errors (JSON, ranges, capacity limits such as
/// [`divload::doc::limits::MAX_WORKERS`], naming the input); [`HostError::OutOfMemory`].
pub fn plan_json(text: &[u8]) -> Result<Vec<u8>, HostError> {
    plan_json_with(text, None)
}

/// [`plan_json`], with the long solvers' progress (`done`, `total`) passed to `progress`.
///
/// # Errors
///
/// As [`plan_json`].
pub fn plan_json_with(text: &[u8], progress: Option<&dyn Fn(u64, u64)>) -> Result<Vec<u8>, HostError> {
    text_bytes(progress, text, |text, m| divload::doc::plan(text, m).map(|p| p.document))
}

/// Plans any document and returns each worker's share (count, displacement, position in
/// the plan's order, by the worker's place in the document) and the report: what an MPI
/// code needs from a plan of any model, without reading the result document
/// (`divload_plan_shares` in C).
///
/// # Errors
///
/// As [`plan_json`].
pub fn plan_shares(text: &[u8]) -> Result<(Vec<divload::doc::Share>, divload::Report<f64>), HostError> {
    with_plan(text, None, |p| Ok((copied("shares", p.shares)?, p.report)))
}

/// Plans a document sent in installments and returns its messages in send order and the
/// report (`divload_plan_chunks` in C); empty for a plan that sends each worker its share
/// in one message.
///
/// # Errors
///
/// As [`plan_json`].
pub fn plan_pieces(text: &[u8]) -> Result<(Vec<divload::doc::Piece>, divload::Report<f64>), HostError> {
    with_plan(text, None, |p| Ok((copied("pieces", p.pieces)?, p.report)))
}

/// How much planning a document would take ([`divload::doc::effort`]): its workers and a
/// bound on its solver's steps, for front ends with a budget.
///
/// # Errors
///
/// As [`plan_json`].
pub fn effort(text: &[u8]) -> Result<divload::doc::Effort, HostError> {
    with_memory(None, |m| divload::doc::effort(text, m))
}

/// The events a document's plan predicts, for a simulator ([`divload::doc::timeline`]);
/// `None` when its model has no timeline yet.
///
/// # Errors
///
/// As [`plan_json`].
pub fn timeline_json(text: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
    let memory = HostMemory::new(None);
    match divload::doc::timeline(text, &memory).map_err(|e| memory.error(e))? {
        Some(t) => copied("timeline", t).map(Some),
        None => Ok(None),
    }
}

/// A generated document of `model` ([`divload::doc::generate`]): `params` are the
/// `--key value` pairs after `divload example MODEL`.
///
/// # Errors
///
/// As [`divload::doc::generate`]; [`HostError::OutOfMemory`].
pub fn generate_json(model: &str, params: &[(&str, &str)]) -> Result<Vec<u8>, HostError> {
    bytes_of(None, |m| divload::doc::generate(model, params, m))
}

/// The schedules a document's plan is compared with (the model's baselines, a JSON
/// object; `{}` for models whose result document holds them already).
///
/// # Errors
///
/// As [`plan_json`], and the model's reason when a document has no baselines.
pub fn baselines_json(text: &[u8]) -> Result<Vec<u8>, HostError> {
    text_bytes(None, text, |text, m| divload::doc::baselines(text, m))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
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
        let out = String::from_utf8(plan_json(doc).unwrap()).unwrap();
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
        let e = plan_json(doc(300, 1).as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "schedule.send: at most 256, got 300");
        let e = plan_json(doc(150, 2).as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "scenario workers: at most 256, got 300");
        assert!(plan_json(doc(12, 2).as_bytes()).is_ok());
    }

    #[test]
    fn every_solver_from_one_path() {
        for (solver, method) in [("auto", "closed_form"), ("exact", "exact_dp"), ("sampled", "sampled_dp")] {
            let text = TABLE1.replacen("{", &format!("{{\"solver\": \"{solver}\","), 1);
            let doc = String::from_utf8(plan_json(text.as_bytes()).unwrap()).unwrap();
            let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
            assert_eq!(v["method"], method, "{doc}");
            let counts: u64 =
                v["plan"].as_array().unwrap().iter().map(|r| r["count"].as_u64().unwrap()).sum();
            assert_eq!(counts, 817_101);
        }
        // The sampled DP's workspace is the same in every front end.
        let many: Vec<String> = (0..300)
            .map(|i| format!(r#"{{"name": "w{i}", "comm_per_item": 1e-5, "comp_per_item": 1e-3}}"#))
            .collect();
        let doc = format!(
            r#"{{"items": 1000, "root": "w0", "solver": "sampled", "workers": [{}]}}"#,
            many.join(",")
        );
        assert_eq!(
            plan_json(doc.as_bytes()).unwrap_err().to_string(),
            "sampled DP: workers: at most 256, got 300"
        );
        let bad = plan_json(b"{\"items\": 3").unwrap_err();
        assert_eq!(bad.to_string(), "platform JSON: items: byte 11: truncated document (unexpected end)");
    }

    /// The typed path (`divload_plan_multicluster` in C) gives the document's plan.
    #[test]
    fn multicluster_processors_are_the_documents_plan() {
        let example = divload::doc::MODELS.iter().find(|m| m.name == "multicluster").unwrap().example();
        let processors = |text: &[u8]| {
            with_memory(None, |m| {
                divload::doc::multicluster::processors(text, m).map(|(p, s)| (p.to_vec(), s))
            })
        };
        let (procs, summary) = processors(example.as_bytes()).unwrap();
        assert_eq!(procs.len(), 16);
        assert_eq!(procs.iter().map(|p| p.count).sum::<u64>(), summary.units);
        let ordered: Vec<(usize, u32)> = procs.iter().map(|p| (p.cluster, p.index)).collect();
        let expected: Vec<(usize, u32)> = (0..2).flat_map(|c| (0..8).map(move |i| (c, i))).collect();
        assert_eq!(ordered, expected, "clusters in document order, processors in order within each");
        // The same counts, displacements and makespan as the result document's `plan`.
        let doc = String::from_utf8(plan_json(example.as_bytes()).unwrap()).unwrap();
        for (rank, p) in procs.iter().enumerate() {
            let row = format!(
                "\"rank\":{rank},\"fast_links\":{},\"count\":{},\"displacement\":{},",
                p.fast_links, p.count, p.displacement
            );
            assert!(doc.contains(&row), "{row} not in {doc}");
        }
        assert!(doc.contains(&format!("\"makespan\":{},", summary.report.makespan)), "{doc}");

        let e = processors(b"{\"model\": \"returns\", \"items\": 3}").unwrap_err();
        assert!(e.to_string().contains("model: must be \"multicluster\" for this entry point"), "{e}");
        let e = processors(b"{\"model\": \"multicluster\", \"clusters\": []}").unwrap_err();
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
            let e = plan_json(doc).unwrap_err();
            assert!(
                matches!(&e, HostError::Core(c) if c.code() == divload::ErrorCode::Overflow
                    && c.to_string().starts_with(what)),
                "{e}"
            );
        }
        // Within range both plan, and no value of theirs is null.
        let smaller = String::from_utf8(multicluster.to_vec()).unwrap().replace("3e295", "3e250");
        let out = String::from_utf8(plan_json(smaller.as_bytes()).unwrap()).unwrap();
        assert!(!out.contains("null"), "{out}");
        let smaller = String::from_utf8(partition.to_vec()).unwrap().replace("2e271", "2e-30");
        let out = String::from_utf8(plan_json(smaller.as_bytes()).unwrap()).unwrap();
        assert!(!out.contains("null"), "{out}");
        // Every time finite, the even split 10⁶⁰⁰ times slower than the plan: the speedup
        // leaves f64, an overflow naming it in each model that reports one (issue 41: the
        // largest f64 standing for "infinite" was no answer either).
        for doc in [
            r#"{"model": "partition", "items": 10, "workers": [
                {"name": "a", "comp_per_item": 1e-300}, {"name": "b", "comp_per_item": 1e300}]}"#,
            r#"{"items": 10, "root": "a", "workers": [
                {"name": "a", "comm_per_item": 0, "comp_per_item": 1e-300},
                {"name": "b", "comm_per_item": 1e-300, "comp_per_item": 1e300}]}"#,
        ] {
            let e = plan_json(doc.as_bytes()).unwrap_err();
            assert!(
                matches!(&e, HostError::Core(c) if c.code() == divload::ErrorCode::Overflow
                    && c.to_string().starts_with("speedup exceeds the range of f64")),
                "{e}"
            );
        }
    }

    /// Issue 35: a repaired table of times near the largest `f64` was planned with one
    /// worker finishing at NaN (`null` in the document), a makespan of 1 and `"exact": true`.
    /// Every solver must give all items to the worker that takes finite time, and a table
    /// whose times leave `f64` must be an overflow error, never a plan.
    #[test]
    fn a_repaired_table_near_the_largest_f64_is_planned_right() {
        let doc = |solver: &str, table: &str| {
            format!(
                r#"{{"items": 10, "root": "a", "solver": "{solver}", "workers": [
                {{"name": "a", "comm_per_item": 0, "comp_per_item": 1}},
                {{"name": "b", "comm_per_item": 0, "comp_table": {table}, "repair": true}}]}}"#
            )
        };
        let huge = "[[5, 1e308], [5, 1e308], [10, 1e308]]";
        for solver in ["auto", "exact", "sampled"] {
            let out = error_of(&doc(solver, huge));
            assert!(!out.contains("null") && !out.contains("NaN"), "{solver}: {out}");
            let v: serde_json::Value = serde_json::from_str(&out).expect(&out);
            assert_eq!(v["makespan"], 10.0, "{solver}: {out}");
            let plan = v["plan"].as_array().unwrap();
            let b = plan.iter().find(|r| r["name"] == "b").unwrap();
            assert_eq!(b["count"], 0, "{solver}: {out}");
        }
        // A table whose last segment leaves `f64` within the items: the plan gives `b`
        // nothing, but the even split gives it 5 items, which take longer than any `f64`:
        // an overflow error, in every solver.
        let steep = "[[1, 1e308], [2, 1.7e308]]";
        for solver in ["auto", "exact", "sampled"] {
            let e = plan_json(doc(solver, steep).as_bytes()).unwrap_err();
            assert!(
                matches!(&e, HostError::Core(c) if c.code() == divload::ErrorCode::Overflow),
                "{solver}: {e}"
            );
        }
    }

    /// The error `doc` gets from `plan_json`, as text.
    fn error_of(doc: &str) -> String {
        match plan_json(doc.as_bytes()) {
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
        assert!(plan_json(fine.as_bytes()).is_ok(), "{}", error_of(&fine));
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
        assert!(plan_json(sampled.as_bytes()).is_ok(), "{}", error_of(&sampled));
    }

    /// The plan read in the arena (the command line prints, the C library copies from
    /// there) is the one `plan_json` copies out; `read`'s own error passes through.
    #[test]
    fn with_plan_reads_what_plan_json_copies() {
        let doc = plan_json(TABLE1.as_bytes()).unwrap();
        let (read, workers) = with_plan(TABLE1.as_bytes(), None, |p| {
            Ok((copied("result document", p.document)?, p.shares.len()))
        })
        .unwrap();
        assert_eq!((read, workers), (doc, 16));
        let refused = HostError::OutOfMemory { what: "caller's copy", bytes: 1 };
        assert_eq!(with_plan(TABLE1.as_bytes(), None, |_| Err::<(), _>(refused.clone())), Err(refused));
        assert!(matches!(with_plan(b"{", None, |_| Ok(())), Err(HostError::Core(_))));
    }

    /// Large buffers take what they ask for, not a chunk twice the last one (bumpalo's
    /// growth), and small ones after them take little.
    #[test]
    fn large_buffers_take_their_size() {
        let memory = HostMemory::new(None);
        let mib = 1 << 20;
        for n in [16 * mib, 8 * mib, 32 * mib] {
            let s = memory.slice("large", n, 7u8).unwrap();
            assert!(s.len() == n && s.iter().all(|&b| b == 7));
        }
        let small = memory.slice("small", 1000, 0u32).unwrap();
        assert_eq!(small.len(), 1000);
        let allocated = memory.allocated();
        assert!((56 * mib..57 * mib).contains(&allocated), "{allocated}");
    }

    #[test]
    fn out_of_memory_is_an_error() {
        let e = filled("exact DP", usize::MAX / 2, 0u32).unwrap_err();
        assert!(matches!(e, HostError::OutOfMemory { what: "exact DP", .. }));
        assert!(e.to_string().starts_with("exact DP: cannot allocate"));
        // From the arena too, whatever error the core passes up for it.
        let e = with_memory(None, |m| m.slice("exact DP", usize::MAX / 8, 0u32).map(|_| ())).unwrap_err();
        assert_eq!(e, HostError::OutOfMemory { what: "exact DP", bytes: usize::MAX / 8 * 4 });
    }
}
