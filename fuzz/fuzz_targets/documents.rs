//! Any bytes as a document, through the entry point every front end uses
//! (`divload_host::plan_json`: the command line, `divload_plan_json` and the browser's
//! `plan`): every model's reader, solver and writer. It must never panic, and a plan it
//! returns must be a valid result document that keeps the envelope's promises, and the
//! order of keys in an object must not matter.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if !divload_fuzz::affordable(data) {
        return;
    }
    let planned = divload_host::plan_json(data);
    if let Ok(doc) = &planned {
        divload_fuzz::check_result(doc);
    }
    // The same document with every object's keys in reverse order plans the same bytes,
    // or fails as well: no key may silently override another.
    let Some(reversed) = divload_fuzz::keys_reversed(data) else { return };
    if !divload_fuzz::affordable(&reversed) {
        return;
    }
    match (planned, divload_host::plan_json(&reversed)) {
        (Ok(a), Ok(b)) => assert!(a == b, "another plan with the keys reversed"),
        (Ok(_), Err(e)) => panic!("refused with the keys reversed: {e}"),
        (Err(e), Ok(_)) => panic!("planned with the keys reversed, refused as written: {e}"),
        (Err(_), Err(_)) => {}
    }
});
