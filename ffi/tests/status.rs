//! `ffi/src/status.rs` (the `divload_status` enum, `divload_status_message`'s table and
//! the status of each core and host error) is generated from the one table in
//! `ffi/src/status_table.rs`, because cbindgen cannot see an enum a macro would write.
//! This test regenerates it and fails when the checked-in copy differs; with
//! `DIVLOAD_UPDATE_STATUS=1` it writes the new file instead. The header is generated from
//! that file in turn (`ffi/tests/header.rs`), so regenerate both, in this order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

#[path = "../src/status_table.rs"]
mod status_table;

use status_table::{Status, STATUSES, UNLISTED_CORE_CODE};

const REGENERATE: &str = "DIVLOAD_UPDATE_STATUS=1 cargo test -p divload-ffi --test status";

/// rustfmt's `max_width`: a longer line would make `cargo fmt --check` fail on a file
/// nobody may edit by hand, so the table is refused instead.
const MAX_WIDTH: usize = 110;

/// The rules that keep the numbers an ABI: one row per number ever assigned, in order,
/// and no error mapped to a status that is no longer returned.
fn validate(rows: &[Status], unlisted_core: &str) -> Result<(), String> {
    let mut names = BTreeSet::new();
    let mut messages = BTreeSet::new();
    let mut core = BTreeSet::new();
    let mut host = BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        let name = row.name;
        if usize::try_from(row.number) != Ok(i) {
            return Err(format!(
                "{name}: number {} in row {i}; the numbers must run 0, 1, 2, ... in order. A status \
                 is never deleted or renumbered: mark it `retired: Some(version)` instead",
                row.number
            ));
        }
        let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !name.starts_with("DIVLOAD_") || !ident(name) || name.chars().any(|c| c.is_ascii_lowercase()) {
            return Err(format!("{name}: names must be DIVLOAD_ followed by capitals, digits and _"));
        }
        if !names.insert(name) {
            return Err(format!("{name}: the name is used twice"));
        }
        if row.doc.trim().is_empty() {
            return Err(format!("{name}: doc must not be empty"));
        }
        if row.message.is_empty() || row.message.contains('\0') || row.message == "unknown status" {
            return Err(format!(
                "{name}: message must be non-empty, without NUL and not \"unknown status\", got {:?}",
                row.message
            ));
        }
        if !messages.insert(row.message) {
            return Err(format!("{name}: message {:?} is used twice", row.message));
        }
        if row.retired.is_some() && !(row.core.is_empty() && row.host.is_empty()) {
            return Err(format!("{name}: retired, so no core or host error may map to it"));
        }
        for c in row.core {
            if !ident(c) || !core.insert(*c) {
                return Err(format!("{name}: core code {c:?} is not an identifier or is listed twice"));
            }
        }
        for h in row.host {
            if !ident(h) || *h == "Core" || !host.insert(*h) {
                return Err(format!(
                    "{name}: host error {h:?} is not an identifier, is listed twice, or is `Core` \
                     (which takes its core code's status)"
                ));
            }
        }
    }
    match rows.first() {
        Some(first) if first.name == "DIVLOAD_OK" && first.retired.is_none() => {}
        _ => return Err("row 0 must be DIVLOAD_OK, not retired: C code tests for 0".to_string()),
    }
    if !rows.iter().any(|r| r.name == unlisted_core && r.retired.is_none()) {
        return Err(format!("UNLISTED_CORE_CODE: {unlisted_core} is not a live status"));
    }
    Ok(())
}

/// The message `divload_status_message` gives for a row.
fn message(row: &Status) -> String {
    match row.retired {
        Some(version) => format!("retired status (not returned since {version}): {}", row.message),
        None => row.message.to_string(),
    }
}

fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            writeln!(out, "{indent}///").unwrap();
        } else {
            writeln!(out, "{indent}/// {line}").unwrap();
        }
    }
}

fn generate(rows: &[Status], unlisted_core: &str) -> Result<String, String> {
    validate(rows, unlisted_core)?;
    let live: Vec<&Status> = rows.iter().filter(|r| r.retired.is_none()).collect();
    let mut out = String::new();
    out.push_str(&format!(
        "//! `libdivload`'s status codes: the `divload_status` enum, the message of each number\n\
         //! and the status of each core and host error.\n\
         //!\n\
         //! Generated from `ffi/src/status_table.rs` by `ffi/tests/status.rs`. Do not edit:\n\
         //! change the table and run\n\
         //!\n\
         //! ```text\n\
         //! {REGENERATE}\n\
         //! ```\n\
         \n\
         use std::ffi::CStr;\n\
         \n\
         use divload::ErrorCode;\n\
         use divload_host::HostError;\n\
         \n\
         /// What a divload function did. The numbers are stable and never reused.\n\
         #[repr(u32)]\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq)]\n\
         pub enum divload_status {{\n"
    ));
    for row in &live {
        doc(&mut out, "    ", row.doc);
        writeln!(out, "    {} = {},", row.name, row.number).unwrap();
    }
    out.push_str("}\n");
    for row in rows {
        if let Some(version) = row.retired {
            out.push('\n');
            doc(
                &mut out,
                "",
                &format!(
                    "Retired in {version}: no function returns it, and the number is never reused.\n\
                     It meant:\n{}",
                    row.doc
                ),
            );
            writeln!(out, "pub const {}: u32 = {};", row.name, row.number).unwrap();
        }
    }

    out.push_str(
        "\n/// Every live status, in number order.\n\
         #[cfg(test)]\n",
    );
    writeln!(out, "pub(crate) const ALL: [divload_status; {}] = [", live.len()).unwrap();
    for row in &live {
        writeln!(out, "    divload_status::{},", row.name).unwrap();
    }
    out.push_str(
        "];\n\
         \n\
         /// The message of a status number; retired numbers say so, and numbers never\n\
         /// assigned give \"unknown status\".\n\
         pub(crate) fn message(status: u32) -> &'static CStr {\n    \
             match status {\n",
    );
    for row in rows {
        // Debug escapes are valid in C string literals, and the table has no NUL.
        writeln!(out, "        {} => c{:?},", row.number, message(row)).unwrap();
    }
    out.push_str(
        "        _ => c\"unknown status\",\n    \
             }\n\
         }\n\
         \n\
         /// The status of a core error category.\n\
         pub(crate) fn of_code(code: ErrorCode) -> divload_status {\n    \
             match code {\n",
    );
    for row in rows {
        for c in row.core {
            writeln!(out, "        ErrorCode::{c} => divload_status::{},", row.name).unwrap();
        }
    }
    writeln!(
        out,
        "        // `ErrorCode` is non-exhaustive: a code the table does not list yet is still a\n        \
         // rejected input.\n        \
         _ => divload_status::{unlisted_core},\n    \
         }}\n\
         }}\n\
         \n\
         /// The status of a host error. The match is exhaustive, so a new `HostError` variant\n\
         /// stops the build until the table gives it a status.\n\
         pub(crate) fn of_host(error: &HostError) -> divload_status {{\n    \
         match error {{\n        \
         HostError::Core(e) => of_code(e.code()),"
    )
    .unwrap();
    for row in rows {
        for h in row.host {
            writeln!(out, "        HostError::{h} {{ .. }} => divload_status::{},", row.name).unwrap();
        }
    }
    out.push_str("    }\n}\n");

    if let Some((n, line)) = out.lines().enumerate().find(|(_, l)| l.chars().count() > MAX_WIDTH) {
        return Err(format!(
            "generated line {} is longer than {MAX_WIDTH} characters (rustfmt's limit); shorten the \
             table's doc or message: {line}",
            n + 1
        ));
    }
    Ok(out)
}

#[test]
fn status_rs_is_fresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/status.rs");
    let fresh =
        generate(STATUSES, UNLISTED_CORE_CODE).unwrap_or_else(|e| panic!("ffi/src/status_table.rs: {e}"));
    if std::env::var_os("DIVLOAD_UPDATE_STATUS").is_some() {
        std::fs::write(&path, &fresh).expect("writing ffi/src/status.rs");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == fresh,
        "ffi/src/status.rs is out of date with ffi/src/status_table.rs (or was edited by hand).\n\
         Regenerate it, then the header, with:\n    {REGENERATE}\n    \
         DIVLOAD_UPDATE_HEADER=1 cargo test -p divload-ffi --test header"
    );
}

fn row(number: u32, name: &'static str, message: &'static str) -> Status {
    Status { number, name, doc: "Doc.", message, core: &[], host: &[], retired: None }
}

#[test]
fn a_retired_status_leaves_the_enum_and_keeps_its_number() {
    let rows = [
        row(0, "DIVLOAD_OK", "success"),
        Status { core: &["InvalidInput"], ..row(1, "DIVLOAD_BAD", "bad") },
        Status { retired: Some("0.3"), ..row(2, "DIVLOAD_OLD", "old") },
        row(3, "DIVLOAD_NEW", "new"),
    ];
    let text = generate(&rows, "DIVLOAD_BAD").unwrap();
    assert!(!text.contains("DIVLOAD_OLD = 2,"), "{text}");
    assert!(text.contains("DIVLOAD_NEW = 3,"), "{text}");
    assert!(text.contains("/// Retired in 0.3: no function returns it"), "{text}");
    assert!(text.contains("pub const DIVLOAD_OLD: u32 = 2;"), "{text}");
    assert!(text.contains("2 => c\"retired status (not returned since 0.3): old\","), "{text}");
    assert!(text.contains("pub(crate) const ALL: [divload_status; 3] = ["), "{text}");
    assert!(!text.contains("divload_status::DIVLOAD_OLD"), "{text}");
}

#[test]
fn tables_that_would_reuse_or_drop_a_number_are_refused() {
    let ok = row(0, "DIVLOAD_OK", "success");
    let refused = |rows: &[Status], unlisted: &str, why: &str| {
        let e = generate(rows, unlisted).unwrap_err();
        assert!(e.contains(why), "expected {why:?} in {e:?}");
    };
    refused(&[ok, row(2, "DIVLOAD_B", "b")], "DIVLOAD_OK", "never deleted or renumbered");
    refused(&[ok, row(1, "DIVLOAD_OK", "b")], "DIVLOAD_OK", "used twice");
    refused(&[ok, row(1, "DIVLOAD_B", "success")], "DIVLOAD_OK", "used twice");
    refused(&[ok, row(1, "divload_b", "b")], "DIVLOAD_OK", "capitals");
    refused(&[ok, row(1, "DIVLOAD_B", "unknown status")], "DIVLOAD_OK", "unknown status");
    refused(&[row(0, "DIVLOAD_B", "b")], "DIVLOAD_B", "row 0 must be DIVLOAD_OK");
    let retired = Status { retired: Some("0.2"), ..row(1, "DIVLOAD_B", "b") };
    refused(&[ok, Status { core: &["Json"], ..retired }], "DIVLOAD_OK", "retired");
    refused(&[ok, retired], "DIVLOAD_B", "not a live status");
    refused(&[ok, Status { host: &["Core"], ..row(1, "DIVLOAD_B", "b") }], "DIVLOAD_OK", "`Core`");
    let twice = [
        ok,
        Status { core: &["Json"], ..row(1, "DIVLOAD_B", "b") },
        Status { core: &["Json"], ..row(2, "DIVLOAD_C", "c") },
    ];
    refused(&twice, "DIVLOAD_OK", "listed twice");
    let long = "a message too long for one line of the generated match, which rustfmt would then have to wrap somehow";
    refused(&[ok, row(1, "DIVLOAD_B", long)], "DIVLOAD_OK", "rustfmt");
}
