//! Any bytes as a document, through the entry point every front end uses
//! (`divload_host::plan_json`: the command line, `divload_plan_json` and the browser's
//! `plan`): every model's reader, solver and writer. It must never panic, and a plan it
//! returns must be a valid result document that keeps the envelope's promises.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if !divload_fuzz::affordable(data) {
        return;
    }
    let Ok(doc) = divload_host::plan_json::<256, 16>(data) else { return };
    divload_fuzz::check_result(&doc);
});
