//! House rules checked on the source text (as rust-analyzer's `tidy`): every file starts
//! with a `//!` paragraph, the core's layers only import downwards, model folders never
//! import each other, and no two modules of the core import each other, directly or not.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_source_file_starts_with_a_doc_paragraph() {
    let mut files = Vec::new();
    for krate in [
        "core/src",
        "host/src",
        "cli/src",
        "ffi/src",
        "wasm/src",
        "firmware/src",
        "firmware/qemu/src",
        "tests/src",
        "tests/tests",
    ] {
        rust_files(&root().join(krate), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let bare: Vec<_> = files
        .iter()
        .filter(|p| !fs::read_to_string(p).unwrap_or_default().starts_with("//!"))
        .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string())
        .collect();
    assert!(
        bare.is_empty(),
        "files without a leading `//!` paragraph (say what it solves, which paper section): {bare:?}"
    );
}

/// A core module by its path from the crate root: `scatter::star`, `kernel`, `lib`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// Layer of a module (by its top folder); `None` for the crate root, which only re-exports.
fn layer(module: &str) -> Option<(u32, &str)> {
    let top = module.split("::").next().unwrap_or("");
    Some(match top {
        "lib" => return None,
        "num" => (0, top),
        "error" => (1, top),
        "report" => (2, top),
        "platform" => (3, top),
        "kernel" => (4, top),
        "scatter" | "returns" | "multicluster" | "ring" | "partition" => (5, top),
        "doc" => (6, top),
        other => panic!("core/src/{other}: a top-level module the layer table does not know; add it to tests/tests/tidy.rs"),
    })
}

/// Source without comments and without the items under `#[cfg(test)]` (tests may look
/// anywhere), wherever they sit in the file: a test module in the middle hides nothing
/// after it. String and character literals are kept as written (a quoted model name is
/// what the front-end check looks for) and their braces do not count.
fn code(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < s.len() {
        if starts(&s, i, "#[cfg(test)]") {
            i = item_end(&s, i + "#[cfg(test)]".len());
        } else if starts(&s, i, "//") {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if starts(&s, i, "/*") {
            i = comment_end(&s, i);
        } else {
            let end = literal_end(&s, i).unwrap_or(i + 1);
            out.extend(&s[i..end]);
            i = end;
        }
    }
    out
}

fn starts(s: &[char], i: usize, pat: &str) -> bool {
    pat.chars().enumerate().all(|(k, c)| s.get(i + k) == Some(&c))
}

/// The end of the block comment opening at `i` (they nest in Rust).
fn comment_end(s: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < s.len() {
        if starts(s, i, "/*") {
            depth += 1;
            i += 2;
        } else if starts(s, i, "*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// The end of a string, raw string, byte string or character literal starting at `i`, if
/// one starts there. A `'` that opens no character literal is a lifetime.
fn literal_end(s: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(s[i], 'b' | 'r') {
        // An identifier ending in `b` or `r` is no literal's prefix.
        if i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_') {
            return None;
        }
        if s[j] == 'b' {
            j += 1;
        }
        if s.get(j) == Some(&'r') {
            j += 1;
            let mut hashes = 0;
            while s.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if s.get(j) != Some(&'"') {
                return None;
            }
            j += 1;
            while j < s.len() {
                if s[j] == '"' && (1..=hashes).all(|k| s.get(j + k) == Some(&'#')) {
                    return Some(j + 1 + hashes);
                }
                j += 1;
            }
            return Some(s.len());
        }
        if j == i {
            return None;
        }
    }
    match s.get(j) {
        Some('"') => {
            j += 1;
            while j < s.len() && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            Some((j + 1).min(s.len()))
        }
        Some('\'') if s.get(j + 1) == Some(&'\\') => {
            j += 2;
            while j < s.len() && s[j] != '\'' {
                j += 1;
            }
            Some((j + 1).min(s.len()))
        }
        Some('\'') if s.get(j + 2) == Some(&'\'') => Some(j + 3),
        _ => None,
    }
}

/// The end of the item whose attributes start at `i`: its further attributes, then up to
/// its `;` or its closing brace, whichever the item's own level reaches first.
fn item_end(s: &[char], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < s.len() {
        if starts(s, i, "//") {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if starts(s, i, "/*") {
            i = comment_end(s, i);
            continue;
        }
        if let Some(end) = literal_end(s, i) {
            i = end;
            continue;
        }
        match s[i] {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && s[i] == '}' {
                    return i + 1;
                }
            }
            ';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The core modules a file refers to: `crate::a::b::…` paths, resolved to the longest
/// existing module, `super::…`, and `child::…` for children declared in the file.
fn imports(module: &str, text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let resolve = |path: &[&str], found: &mut BTreeSet<String>| {
        for n in (1..=path.len()).rev() {
            let m = path[..n].join("::");
            if modules.contains(&m) {
                found.insert(m);
                return;
            }
        }
    };
    let body = code(text);
    let words: Vec<&str> = body.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).collect();
    let children: BTreeSet<&str> = body
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
            l.strip_prefix("mod ").and_then(|r| r.strip_suffix(';'))
        })
        .collect();
    // `super` is the module one up from this one, whether this one is a `mod.rs` or not.
    let up: Vec<&str> = {
        let mut p: Vec<&str> = module.split("::").collect();
        p.pop();
        p
    };
    for w in words {
        let segs: Vec<&str> = w.split("::").filter(|s| !s.is_empty()).collect();
        match segs.first() {
            Some(&"crate") => resolve(&segs[1..], &mut found),
            Some(&"super") => {
                let mut p = up.clone();
                p.extend(&segs[1..]);
                resolve(&p, &mut found);
            }
            Some(first) if segs.len() > 1 && children.contains(first) => {
                let mut p: Vec<&str> = module.split("::").collect();
                p.extend(&segs);
                resolve(&p, &mut found);
            }
            _ => {}
        }
    }
    // Curly imports: `use crate::scatter::{exact, types::Summary}` and `use super::{a, b}`
    // name modules inside braces.
    for (i, _) in body.match_indices("use ") {
        let rest = &body[i + "use ".len()..];
        let Some(end) = rest.find(';') else { continue };
        let stmt = &rest[..end];
        let start = if let Some(s) = stmt.strip_prefix("crate::") {
            (Vec::new(), s)
        } else if let Some(s) = stmt.strip_prefix("super::") {
            (up.clone(), s)
        } else {
            continue;
        };
        let (mut base, stmt) = start;
        if let Some(open) = stmt.find('{') {
            base.extend(stmt[..open].split("::").filter(|s| !s.is_empty()));
            for item in stmt[open + 1..].trim_end_matches('}').split(',') {
                let mut p = base.clone();
                p.extend(item.trim().split("::").map(|s| s.trim()).filter(|s| !s.is_empty() && *s != "self"));
                resolve(&p, &mut found);
            }
        }
    }
    found.remove(module);
    found
}

#[test]
fn core_layers_import_downwards_and_have_no_cycles() {
    let src = root().join("core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for f in &files {
        let m = module_of(&src, f);
        let text = fs::read_to_string(f).unwrap_or_default();
        let deps = imports(&m, &text, &modules);
        if let Some((level, folder)) = layer(&m) {
            for d in &deps {
                let Some((dl, dfolder)) = layer(d) else {
                    wrong.push(format!("{m} imports the crate root; import the module itself"));
                    continue;
                };
                if dfolder == folder {
                    continue;
                }
                if dl >= level {
                    wrong.push(format!(
                        "{m} (layer {level}) imports {d} (layer {dl}): layers only import downwards"
                    ));
                }
            }
        }
        graph.insert(m, deps);
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(graph["scatter::sampled"].contains("scatter::exact"), "the checker must see imports: {graph:#?}");
    assert!(graph["scatter"].contains("scatter::star"), "the checker must see child imports: {graph:#?}");
    assert!(
        graph["doc::scatter::solve"].contains("doc::scatter::read"),
        "the checker must see super imports: {graph:#?}"
    );

    // Depth-first search for a cycle among modules.
    fn visit<'g>(
        m: &'g str,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'g str, u8>,
        path: &mut Vec<&'g str>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|p| *p == m).unwrap_or(0);
                let mut cycle: Vec<String> = path[start..].iter().map(|s| s.to_string()).collect();
                cycle.push(m.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(m, 1);
        path.push(m);
        // A module's use of its own ancestor (`super::Shared`) while the ancestor re-exports
        // it is one folder talking to itself, not two modules importing each other.
        let own_ancestor = |d: &str| m.starts_with(d) && m[d.len()..].starts_with("::");
        for d in graph.get(m).into_iter().flatten().filter(|d| !own_ancestor(d)) {
            if let Some(c) = visit(d, graph, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(m, 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut state, &mut Vec::new()) {
            panic!("import cycle in core: {}", cycle.join(" -> "));
        }
    }
}

/// The front ends' own code (every line outside `#[cfg(test)]` items and comments): what a model is comes from
/// the core's registry (`divload::doc::MODELS`, `divload::doc::plan`), so no front end
/// spells a model's name as a string to branch on. Typed entry points for MPI
/// (`divload_plan_multicluster`, `divload_plan_returns`) name a model in their identifiers,
/// not in strings, and are allowed.
#[test]
fn front_ends_name_no_model() {
    let mut files = Vec::new();
    for dir in ["host/src", "cli/src", "ffi/src", "wasm/src", "fuzz/src", "python/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.push(root().join("fuzz/fuzz_targets/documents.rs"));
    // A `tests.rs` is a module its parent declares under `#[cfg(test)]`.
    files.retain(|f| f.file_name().is_none_or(|n| n != "tests.rs"));
    let quoted = |text: &str, name: &str| {
        [format!("\"{name}\""), format!("'{name}'")].iter().any(|q| text.contains(q.as_str()))
    };
    let mut named = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap_or_default();
        let own = code(&text);
        for m in divload::doc::MODELS {
            if quoted(&own, m.name) {
                named.push(format!(
                    "{}: \"{}\"",
                    file.strip_prefix(root()).unwrap_or(file).display(),
                    m.name
                ));
            }
        }
    }
    // The calculator page builds every model's form and chart from `models()`: its code and
    // markup name no model at all, not even in prose (the word "partition" in a comment
    // is how a per-model branch starts).
    let mut page = Vec::new();
    for entry in fs::read_dir(root().join("wasm/www")).expect("wasm/www") {
        let path = entry.expect("entry").path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ["js", "mjs", "html"].contains(&ext) {
            page.push(path);
        }
    }
    assert!(page.len() >= 3, "found only {} page files", page.len());
    for file in &page {
        let text = fs::read_to_string(file).unwrap_or_default().to_lowercase();
        for m in divload::doc::MODELS {
            if whole_word(&text, m.name) {
                named.push(format!("{}: {}", file.strip_prefix(root()).unwrap_or(file).display(), m.name));
            }
        }
    }
    assert!(files.len() >= 8, "found only {} files", files.len());
    assert!(
        named.is_empty(),
        "front ends that name a model (use the core's registry instead):\n{}",
        named.join("\n")
    );
}

/// Whether `word` occurs in `text` between characters that cannot be part of a name.
fn whole_word(text: &str, word: &str) -> bool {
    let name = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(word)
        .any(|(i, _)| !name(text[..i].chars().next_back()) && !name(text[i + word.len()..].chars().next()))
}

/// Each model declares its methods in its own folder (`impl Method { pub const X: Method =
/// Method::new("x"); }`): two models giving one name to different methods would make a
/// result's `"method"` ambiguous, which the compiler cannot see.
#[test]
fn method_names_are_unique() {
    let mut files = Vec::new();
    rust_files(&root().join("core/src"), &mut files);
    let mut seen: Vec<(String, String)> = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap_or_default();
        let code = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        for (i, _) in code.match_indices("Method::new(\"") {
            let rest = &code[i + "Method::new(\"".len()..];
            let name = rest.split('"').next().unwrap_or("").to_string();
            let place = file.strip_prefix(root()).unwrap_or(file).display().to_string();
            if let Some((_, other)) = seen.iter().find(|(n, _)| *n == name) {
                panic!("method name \"{name}\" declared in {other} and {place}");
            }
            seen.push((name, place));
        }
    }
    assert!(seen.len() >= 11, "found only {} methods", seen.len());
}

/// The reader behind the checks above: a test module in the middle of a file hides only
/// itself, comments go, literals stay whole (braces inside them do not end an item).
#[test]
fn code_drops_test_items_and_comments_only() {
    let text = r####"use a; // "x"
#[cfg(test)]
mod tests {
    const S: &str = "}";
    const R: &str = r#"}"#;
    fn f<'a>(c: char) -> bool { c == '}' || c == '\'' }
}
/* "y" /* nested */ */
fn g() -> &'static str { "after" }
#[cfg(test)]
mod more;
const B: &[u8] = br"{";
"####;
    let kept = code(text);
    assert!(kept.contains("use a;"), "{kept}");
    assert!(kept.contains("\"after\""), "{kept}");
    assert!(kept.contains("br\"{\""), "{kept}");
    for gone in ["\"x\"", "\"y\"", "mod tests", "mod more", "nested", "'}'"] {
        assert!(!kept.contains(gone), "{gone} kept in {kept}");
    }
}

/// ARCHITECTURE.md is the map of the house: every source file of the core and the front
/// ends is named there (a new file gets its line), and every file it names exists.
#[test]
fn the_map_names_every_file() {
    let map = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut files = Vec::new();
    for dir in ["core/src", "host/src", "cli/src", "ffi/src", "wasm/src", "python/src", "firmware/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut unnamed = Vec::new();
    for f in &files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let folder = f.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
        // A folder's `mod.rs` and `tests.rs` are named with the folder.
        let named = if name == "mod.rs" || name == "tests.rs" {
            map.contains(&format!("{folder}/"))
        } else {
            map.contains(name)
        };
        if !named {
            unnamed.push(f.strip_prefix(root()).unwrap_or(f).display().to_string());
        }
    }
    for entry in fs::read_dir(root().join("include")).expect("include/") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        if name.ends_with(".h") && !map.contains(&name) {
            unnamed.push(format!("include/{name}"));
        }
    }
    assert!(unnamed.is_empty(), "files ARCHITECTURE.md does not name:\n{}", unnamed.join("\n"));
    // Paths written from the repository's root (`ffi/src/workspace.rs`) must exist.
    let mut missing = Vec::new();
    for piece in map.split('`') {
        let top = piece.split('/').next().unwrap_or("");
        let rooted = [
            "core", "host", "cli", "ffi", "wasm", "python", "firmware", "tests", "include", "fortran",
            "docs", "scripts", "examples",
        ];
        if piece.contains('/')
            && rooted.contains(&top)
            && !piece.contains(['*', ' ', '<', '…'])
            && !root().join(piece).exists()
        {
            missing.push(piece.to_string());
        }
    }
    assert!(missing.is_empty(), "paths in ARCHITECTURE.md that do not exist:\n{}", missing.join("\n"));
}
/// A file with more than 800 lines of code outside its tests says in its leading `//!`
/// paragraph why it is one thing ("Why one file: ..."); above 1 000 lines it is split.
#[test]
fn big_files_say_why_they_are_one() {
    let mut files = Vec::new();
    for dir in ["core/src", "host/src", "cli/src", "ffi/src", "wasm/src", "python/src", "firmware/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.retain(|f| f.file_name().is_none_or(|n| n != "tests.rs"));
    let mut unsaid = Vec::new();
    let mut over = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap_or_default();
        let lines = code(&text).lines().filter(|l| !l.trim().is_empty()).count();
        let place = file.strip_prefix(root()).unwrap_or(file).display().to_string();
        let head: String = text.lines().take_while(|l| l.starts_with("//!")).collect();
        if lines > 800 && !head.contains("Why one file:") {
            unsaid.push(format!("{place}: {lines} lines"));
        }
        if lines > 1_200 {
            over.push(format!("{place}: {lines} lines"));
        }
    }
    assert!(
        unsaid.is_empty(),
        "over 800 lines of code without \"Why one file:\" in the leading //! paragraph:\n{}",
        unsaid.join("\n")
    );
    assert!(over.is_empty(), "over 1 200 lines of code: split by concern\n{}", over.join("\n"));
}
