//! divload in the browser: plan a scatter from a platform document and get the schedules
//! the calculator page draws.
//!
//! The API is two functions over the platform JSON of `divload plan` (a string, or a
//! JavaScript object that is stringified first):
//!
//! * [`plan`] returns the result document, the same as `divload plan --json`;
//! * [`schedules`] returns `{"plan": <result document>, "even": <schedule>, "reversed":
//!   <schedule>}`, where a schedule is `{"makespan", "rows": [{"rank", "count", "start",
//!   "received", "finish"}]}` in send order: the even split (`MPI_Scatter`) in the planned
//!   order, and the balanced plan for the reverse order (slowest link first), which shows
//!   what the order is worth (genaud2003 Thm 3).
//!
//! Errors are thrown as JavaScript `Error`s with the core's message, which names the input
//! (`platform JSON: workers[2].comp_per_item must be finite and > 0, got -1`), so the page
//! can point at the field.
#![forbid(unsafe_code)]

use core::fmt::Write;

use divload::doc::json::NumberText;
use divload::{Assignment, Options, OrderPolicy, Problem, Root, Scratch, Worker};
use divload_host::Parsed;
use wasm_bindgen::prelude::*;

// The locked variant: its constructor is safe, where the single-threaded one is an
// `unsafe` promise, and an uncontended lock is a few instructions per allocation.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::LockedAllocator<lol_alloc::FreeListAllocator> =
    lol_alloc::LockedAllocator::new(lol_alloc::FreeListAllocator::new());

/// Most workers the page plans (the host's limit; `schedules` at this size holds about
/// 1.1 GB of the module's memory, measured with Node 20).
pub const MAX_WORKERS: usize = 1 << 20;

/// Sampled sizes and most workers of the sampled DP (136 KiB, allocated when used).
const SAMPLES: usize = 1024;
const SAMPLED_WORKERS: usize = 64;

/// Plans a scatter; returns the result document (a JSON string, as `divload plan --json`).
///
/// `platform` is a platform document: a JSON string or a JavaScript object.
///
/// # Errors
///
/// Throws an `Error` whose message names the offending input.
#[wasm_bindgen]
pub fn plan(platform: JsValue) -> Result<String, JsError> {
    let text = platform_text(platform)?;
    let doc = divload_host::plan_json::<SAMPLES, SAMPLED_WORKERS>(text.as_bytes())
        .map_err(|e| JsError::new(&e.to_string()))?;
    let doc = String::from_utf8(doc).map_err(|_| JsError::new("result document: not UTF-8"))?;
    fits_js(&doc).map_err(|e| JsError::new(&e))?;
    Ok(doc)
}

/// Most UTF-16 units a JavaScript string may hold in V8 (Chromium, Node): 2²⁹ − 24.
pub const MAX_JS_STRING: usize = (1 << 29) - 24;

/// Whether `s` fits a JavaScript string. A 2 KB document can ask for a result of a
/// gigabyte (a 2 000-character name on each of 524 288 workers); returned as it is, the
/// bindings' glue threw "Cannot create a string longer than 0x1fffffe8 characters",
/// which names nothing the user wrote.
///
/// # Errors
///
/// The message, naming the result's size and what to change.
pub fn fits_js(s: &str) -> Result<(), String> {
    fits(s, MAX_JS_STRING)
}

fn fits(s: &str, max: usize) -> Result<(), String> {
    // UTF-16 units: one per UTF-8 sequence, two for the four-byte ones.
    let units =
        || s.bytes().filter(|&b| (b & 0xC0) != 0x80).count() + s.bytes().filter(|&b| b >= 0xF0).count();
    if s.len() <= max || units() <= max {
        Ok(())
    } else {
        Err(format!(
            "result document: {} bytes, more than a JavaScript string holds ({max} characters); \
             give fewer workers or shorter names, or plan it with the command line",
            s.len()
        ))
    }
}

/// The balanced plan, the even split and the reversed order, as one JSON string (see the
/// crate docs).
///
/// # Errors
///
/// Throws an `Error` whose message names the offending input.
#[wasm_bindgen]
pub fn schedules(platform: JsValue) -> Result<String, JsError> {
    let text = platform_text(platform)?;
    schedules_json(&text).map_err(|e| JsError::new(&e))
}

/// The models a document can name: `[{"name", "title", "paper"}, …]` as a JSON string.
///
/// # Errors
///
/// Throws an `Error` when memory runs out.
#[wasm_bindgen]
pub fn models() -> Result<String, JsError> {
    let doc = divload_host::models_json().map_err(|e| JsError::new(&e.to_string()))?;
    String::from_utf8(doc).map_err(|_| JsError::new("models: not UTF-8"))
}

/// The library version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

// The platform argument as text, or an error message after a NUL, in JavaScript:
// * a string with an unpaired surrogate is refused there: crossing into Rust replaced it
//   by U+FFFD, so a root of "\uD800" named a worker of "\uDBFF";
// * `JSON.stringify` (which escapes unpaired surrogates, refused by the reader) is called
//   inside a `try`: through wasm-bindgen's `catch` each failure kept one slot of the
//   externref table, and after 8·10⁶ failed calls every call trapped. The reason
//   (a BigInt, a cycle) is kept for the message.
// (`js-sys` is not used: the module carried its closure shims, 4.5 KB.)
#[wasm_bindgen(inline_js = r#"
export function platform_text(v) {
  if (typeof v === 'string') {
    return /\p{Surrogate}/u.test(v)
      ? '\0platform: the string holds an unpaired UTF-16 surrogate (not Unicode text)' : v;
  }
  if (v === null || typeof v !== 'object') return '\0platform: expected a JSON string or an object';
  let s;
  try { s = JSON.stringify(v); } catch (e) {
    return '\0platform: the object cannot be converted to JSON (' + (e && e.message || String(e)) + ')';
  }
  return typeof s === 'string' ? s : '\0platform: the object cannot be converted to JSON';
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = platform_text)]
    fn platform_text_js(value: &JsValue) -> String;
}

fn platform_text(platform: JsValue) -> Result<String, JsError> {
    let text = platform_text_js(&platform);
    match text.strip_prefix('\0') {
        Some(message) => Err(JsError::new(message)),
        None => Ok(text),
    }
}

/// A planned platform, owning everything the core borrowed.
#[derive(Debug)]
pub struct Planned {
    /// The workers after expanding `count`, by rank.
    pub workers: Vec<Worker<f64>>,
    /// The plan in send order.
    pub plan: Vec<Assignment<f64>>,
    /// The root's rank.
    pub root: usize,
    /// Planning options.
    pub options: Options,
    /// Items.
    pub items: u64,
    /// The result document.
    pub document: String,
    /// `true` when every cost is affine (`workers` holds them); the schedules for the
    /// even split and the reversed order need that.
    pub affine: bool,
}

impl Planned {
    /// Parses and plans a platform document.
    ///
    /// # Errors
    ///
    /// The core's message for any invalid input.
    pub fn new(text: &str) -> Result<Planned, String> {
        let parsed = Parsed::new(text.as_bytes()).map_err(|e| e.to_string())?;
        if parsed.file.workers > MAX_WORKERS {
            return Err(format!("workers: at most {MAX_WORKERS} workers, got {}", parsed.file.workers));
        }
        let planned = parsed.solve::<SAMPLES, SAMPLED_WORKERS>(None, |_, _| {}).map_err(|e| e.to_string())?;
        let document = String::from_utf8(planned.document().map_err(|e| e.to_string())?)
            .map_err(|_| "result document: not UTF-8".to_string())?;
        Ok(Planned {
            affine: planned.file.affine && !planned.workers.is_empty(),
            root: planned.solved.summary.root,
            options: planned.file.options,
            items: planned.file.items,
            workers: planned.workers,
            plan: planned.plan,
            document,
        })
    }

    fn need_affine(&self) -> Result<(), String> {
        if self.affine {
            Ok(())
        } else {
            Err("schedules: the calculator compares schedules for affine costs only; use plan() for tabulated or power-law costs".to_string())
        }
    }

    /// The even split (`MPI_Scatter`: ⌊n/P⌋ each, one more for the first n mod P) in the
    /// planned send order, evaluated.
    ///
    /// # Errors
    ///
    /// Only if the plan were inconsistent, which `plan` never returns.
    pub fn even(&self) -> Result<Vec<Assignment<f64>>, String> {
        self.need_affine()?;
        let p = self.plan.len();
        let mut even = divload_host::filled("even split", p, Assignment::EMPTY).map_err(|e| e.to_string())?;
        for (k, (e, a)) in even.iter_mut().zip(&self.plan).enumerate() {
            *e = Assignment {
                worker: a.worker,
                count: divload::even_split_count(self.items, p, k),
                ..Assignment::EMPTY
            };
        }
        divload::evaluate(&self.workers, self.root, self.options.root_mode, self.items, &mut even)
            .map_err(|e| e.to_string())?;
        Ok(even)
    }

    /// The balanced plan for the reverse of the planned send order (the root keeps its
    /// place: last after sending, first when it overlaps), with ranks of the original input.
    ///
    /// # Errors
    ///
    /// The core's message if planning fails (it does not for a platform `new` accepted).
    pub fn reversed(&self) -> Result<Vec<Assignment<f64>>, String> {
        self.need_affine()?;
        let n = self.plan.len();
        let oom = |e: divload_host::HostError| e.to_string();
        let mut order = divload_host::filled("reversed order", n, 0usize).map_err(oom)?;
        order.clear();
        order.extend(self.plan.iter().rev().map(|a| a.worker).filter(|&w| w != self.root));
        order.push(self.root);
        let mut permuted =
            divload_host::filled("reversed order", n, Worker::linear(0.0, 1.0)).map_err(oom)?;
        for (p, &w) in permuted.iter_mut().zip(&order) {
            *p = self.workers.get(w).copied().unwrap_or(*p);
        }
        let options = Options { order: OrderPolicy::Given, ..self.options };
        let problem =
            Problem { workers: &permuted, root: Root::Fixed(order.len() - 1), items: self.items, options };
        let mut out = divload_host::filled("reversed plan", n, Assignment::EMPTY).map_err(oom)?;
        let mut scratch = divload_host::filled("reversed plan", n, Scratch::EMPTY).map_err(oom)?;
        divload::plan(&problem, &mut out, &mut scratch).map_err(|e| e.to_string())?;
        for a in &mut out {
            a.worker = order[a.worker];
        }
        Ok(out)
    }
}

/// [`schedules`] without the JavaScript types, for tests on any target.
///
/// # Errors
///
/// The core's message for any invalid input.
pub fn schedules_json(text: &str) -> Result<String, String> {
    let planned = Planned::new(text)?;
    fits_js(&planned.document)?;
    // Two schedules of at most ~140 bytes a row beside the document; fallibly, as every
    // buffer here (a capacity past `isize::MAX` aborted the module).
    let rows = planned.plan.len().saturating_mul(2 * 140).saturating_add(256);
    let mut s = String::new();
    s.try_reserve(planned.document.len().saturating_add(rows)).map_err(|_| {
        format!("schedules: cannot allocate {} bytes", planned.document.len().saturating_add(rows))
    })?;
    s.push_str("{\"plan\":");
    s.push_str(&planned.document);
    s.push_str(",\"even\":");
    write_schedule(&mut s, &planned.even()?);
    s.push_str(",\"reversed\":");
    write_schedule(&mut s, &planned.reversed()?);
    s.push('}');
    fits_js(&s)?;
    Ok(s)
}

fn write_schedule(s: &mut String, rows: &[Assignment<f64>]) {
    let makespan = rows.iter().map(|a| a.finish).fold(0.0, f64::max);
    // Writing to a String cannot fail.
    let _ = write!(s, "{{\"makespan\":{},\"rows\":[", NumberText(makespan));
    for (k, a) in rows.iter().enumerate() {
        let comma = if k + 1 < rows.len() { "," } else { "" };
        let _ = write!(
            s,
            "{{\"rank\":{},\"count\":{},\"start\":{},\"received\":{},\"finish\":{}}}{comma}",
            a.worker,
            a.count,
            NumberText(a.start),
            NumberText(a.received),
            NumberText(a.finish)
        );
    }
    s.push_str("]}");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const TABLE1: &str = include_str!("../../examples/table1.json");

    #[test]
    fn schedules_of_table1() {
        let doc: serde_json::Value = serde_json::from_str(&schedules_json(TABLE1).unwrap()).unwrap();
        let plan = &doc["plan"];
        let makespan = plan["makespan"].as_f64().unwrap();
        assert!((makespan - 403.975).abs() < 0.01, "{makespan}");
        let even = doc["even"]["makespan"].as_f64().unwrap();
        assert!((even - plan["uniform_makespan"].as_f64().unwrap()).abs() < 1e-9);
        let reversed = doc["reversed"]["makespan"].as_f64().unwrap();
        assert!(reversed >= makespan - 1e-9, "Thm 3: the bandwidth order is optimal");
        for key in ["even", "reversed"] {
            let rows = doc[key]["rows"].as_array().unwrap();
            assert_eq!(rows.len(), 16);
            let sum: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
            assert_eq!(sum, 817_101);
            let mut ranks: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
            ranks.sort_unstable();
            assert_eq!(ranks, (0..16).collect::<Vec<_>>());
            assert_eq!(rows.last().unwrap()["rank"], 0, "the root is served last");
        }
        // The reversed order really is the planned order backwards.
        let fwd: Vec<u64> =
            plan["plan"].as_array().unwrap().iter().map(|r| r["rank"].as_u64().unwrap()).collect();
        let rev: Vec<u64> =
            doc["reversed"]["rows"].as_array().unwrap().iter().map(|r| r["rank"].as_u64().unwrap()).collect();
        let mut back = fwd[..15].to_vec();
        back.reverse();
        assert_eq!(&rev[..15], &back[..]);
    }

    #[test]
    fn measured_costs_plan_but_have_no_schedules() {
        let measured = include_str!("../../examples/measured.json");
        let planned = Planned::new(measured).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&planned.document).unwrap();
        assert_eq!(doc["method"], "exact_dp");
        let sum: u64 = doc["plan"].as_array().unwrap().iter().map(|r| r["count"].as_u64().unwrap()).sum();
        assert_eq!(sum, 20_000);
        let sampled = Planned::new(&measured.replace("\"exact\"", "\"sampled\"")).unwrap();
        assert!(sampled.document.contains("\"method\":\"sampled_dp\""));
        assert!(schedules_json(measured).unwrap_err().contains("affine costs only"));
    }

    /// The length a JavaScript string would have, not the UTF-8 bytes: "é" is two bytes
    /// and one unit, "😀" four bytes and two units.
    #[test]
    fn results_longer_than_a_javascript_string_are_errors() {
        assert!(fits("abcd", 4).is_ok());
        assert!(fits("abcde", 4).unwrap_err().starts_with("result document: 5 bytes, more than"));
        assert!(fits("éé", 2).is_ok());
        assert!(fits("😀", 2).is_ok());
        assert!(fits("😀a", 2).is_err());
        assert!(fits_js(TABLE1).is_ok());
    }

    #[test]
    fn errors_name_the_field() {
        let bad = TABLE1.replace("\"comp_per_item\": 0.004629", "\"comp_per_item\": -1");
        assert_eq!(
            schedules_json(&bad).unwrap_err(),
            "platform JSON: workers[2].comp_per_item must be finite and > 0, got -1"
        );
        assert!(schedules_json("{").unwrap_err().contains("truncated"));
    }
}
