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

use wasm_bindgen::prelude::*;

// The locked variant: its constructor is safe, where the single-threaded one is an
// `unsafe` promise, and an uncontended lock is a few instructions per allocation.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::LockedAllocator<lol_alloc::FreeListAllocator> =
    lol_alloc::LockedAllocator::new(lol_alloc::FreeListAllocator::new());

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
    let doc = divload_host::plan_json(text.as_bytes()).map_err(|e| JsError::new(&e.to_string()))?;
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

/// The models a document can name: `[{"name", "title", "paper", "fields", "timeline"}, …]`
/// as a JSON string, with each document's schema and how its plan is drawn
/// (`divload::doc::schema`), from which the page builds its forms and charts.
///
/// # Errors
///
/// Throws an `Error` when memory runs out.
#[cfg(feature = "models")]
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

/// [`schedules`] without the JavaScript types, for tests on any target:
/// `{"plan": <result document>, …the model's baselines}`.
///
/// # Errors
///
/// The core's message for any invalid input.
pub fn schedules_json(text: &str) -> Result<String, String> {
    let document = divload_host::plan_json(text.as_bytes()).map_err(|e| e.to_string())?;
    let baselines = divload_host::baselines_json(text.as_bytes()).map_err(|e| e.to_string())?;
    let members = baselines.strip_prefix(b"{").and_then(|b| b.strip_suffix(b"}")).unwrap_or(&[]);
    let comma: &[u8] = if members.is_empty() { b"" } else { b"," };
    let s = divload_host::joined("schedules", &[b"{\"plan\":", &document, comma, members, b"}"])
        .map_err(|e| e.to_string())?;
    let s = String::from_utf8(s).map_err(|_| "schedules: not UTF-8".to_string())?;
    fits_js(&s)?;
    Ok(s)
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
        let planned = String::from_utf8(divload_host::plan_json(measured.as_bytes()).unwrap()).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&planned).unwrap();
        assert_eq!(doc["method"], "exact_dp");
        let sum: u64 = doc["plan"].as_array().unwrap().iter().map(|r| r["count"].as_u64().unwrap()).sum();
        assert_eq!(sum, 20_000);
        let sampled =
            divload_host::plan_json(measured.replace("\"exact\"", "\"sampled\"").as_bytes()).unwrap();
        assert!(String::from_utf8(sampled).unwrap().contains("\"method\":\"sampled_dp\""));
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
