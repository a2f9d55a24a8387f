//! `divload`: plan any model's document from the command line.
//!
//! The command line only translates: it reads the file, sets the fields its flags name,
//! calls the host (which knows no model either) and prints the result document as a
//! table, as JSON or as counts. Errors are one line on stderr and a non-zero exit.

mod simulate;
mod table;

use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use divload::doc::schema::{self, Kind};
use divload_host::HostError;

/// The platform of genaud2003 Table 1 (16 processors, root dinadan, 817101 rays).
const DEFAULT_PLATFORM: &str = include_str!("../../examples/table1.json");

/// The exact DP shows a progress bar from this many cells on (about 0.3 s of work).
const PROGRESS_CELLS: u64 = 1 << 24;

#[derive(Parser)]
#[command(
    name = "divload",
    version,
    about = "How much data each processor should get so that all finish together."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Plan a document: counts, displacements, order and predicted finish times.
    Plan(PlanArgs),
    /// Play a plan in the SimGrid simulator and compare its predicted times with the
    /// simulated ones (needs SimGrid's Python bindings: `apt-get install python3-simgrid`).
    Simulate(SimulateArgs),
    /// Add measured timings to a document and plan the next batch from what its model
    /// learns: CSV rows become entries of the document's "observations" (for the models
    /// that take them, as `divload models` and the schema list).
    Learn(LearnArgs),
    /// List the models a document can name ("model": …).
    Models,
    /// Print a ready-to-edit platform document for MODEL; with `--key value` pairs after
    /// it, a document the model's generator makes from them.
    Example {
        /// A model from `divload models`.
        model: String,
        /// The generator's `--key value` pairs.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        params: Vec<String>,
    },
}

#[derive(clap::Args)]
struct PlanArgs {
    /// Platform file (JSON, version 1). Without it, the paper's Table 1 grid is planned.
    file: Option<PathBuf>,
    /// Print the result document as JSON.
    #[arg(long, conflicts_with = "counts")]
    json: bool,
    /// Print `rank count displacement` per worker in plan order, for scripts.
    #[arg(long)]
    counts: bool,
    /// Set any top-level field of the document: KEY=VALUE, VALUE as JSON (a bare word is
    /// taken as a string). Repeatable; the model's reader checks the result.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Show a progress bar on stderr during long solvers (default: when stderr is a
    /// terminal and the run is long).
    #[arg(long)]
    progress: bool,
}

#[derive(clap::Args)]
struct LearnArgs {
    /// The document (JSON, version 1) whose model learns.
    file: PathBuf,
    /// Observations as CSV: a header naming the columns with the keys of the document's
    /// "observations" entries (e.g. `worker,items,seconds`), then one row per measurement.
    /// Numbers are written as numbers, anything else as text; `-` reads standard input.
    csv: PathBuf,
    /// Print the result document as JSON.
    #[arg(long, conflicts_with = "counts")]
    json: bool,
    /// Print `rank count displacement` per worker in plan order, for scripts.
    #[arg(long)]
    counts: bool,
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// Platform file (JSON, version 1). Without it, the paper's Table 1 grid.
    file: Option<PathBuf>,
    /// SimGrid's network model: cm02 (without TCP's window and cross-traffic: divload's
    /// one-port model, times should agree) or lv08 (SimGrid's default, TCP-like).
    #[arg(long, value_enum, default_value = "cm02")]
    network: simulate::Network,
    /// Ignore the bandwidth a plan reserves for its transfers (shared links): SimGrid then
    /// shares each link among the transfers in flight, as a network without reservations
    /// would.
    #[arg(long)]
    unreserved: bool,
    /// Write the platform, the timeline and the player into DIR instead of running them.
    #[arg(long, value_name = "DIR")]
    export: Option<PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

/// `divload example MODEL --key value …`: the model's generator, whatever the model.
fn generated(model: &str, params: &[String]) -> Result<(), String> {
    let mut pairs = Vec::new();
    let mut it = params.iter();
    while let Some(key) = it.next() {
        let k =
            key.strip_prefix("--").ok_or_else(|| format!("example: expected --key value, got {key:?}"))?;
        let v = it.next().ok_or_else(|| format!("example: --{k} needs a value"))?;
        pairs.push((k, v.as_str()));
    }
    let text = divload_host::generate_json(model, &pairs).map_err(|e| e.to_string())?;
    print!("{}", String::from_utf8_lossy(&text));
    Ok(())
}

fn main() -> ExitCode {
    let args = match field_flags(std::env::args_os()) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("divload: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let command = Cli::command().mut_subcommand("plan", |c| c.after_help(field_flags_help()));
    let cli = match command.try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result: Result<(), Failure> = match cli.command {
        Command::Plan(args) => run_plan(&args),
        Command::Simulate(args) => run_simulate(&args).map_err(Failure::from),
        Command::Learn(args) => run_learn(&args),
        Command::Models => {
            for m in divload::doc::MODELS {
                println!("{:<12} {}\n{:<12} {}", m.name, m.title, "", m.paper);
            }
            Ok(())
        }
        Command::Example { model, params } if !params.is_empty() => {
            generated(&model, &params).map_err(Failure::from)
        }
        Command::Example { model, .. } => match divload::doc::model(&model) {
            Some(m) => {
                print!("{}", m.example());
                Ok(())
            }
            None => {
                let known: Vec<&str> = divload::doc::MODELS.iter().map(|m| m.name).collect();
                Err(format!("model: unknown model {model:?} (known: {})", known.join(", ")).into())
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("divload: error: {failure}");
            ExitCode::FAILURE
        }
    }
}

/// Why a command failed, printed as one line on stderr. A plan's failure keeps the host's
/// error and the document's name rather than a message formatted from them: under a
/// memory limit that string would be one more allocation that aborts when it fails.
enum Failure {
    Message(String),
    Host { source: String, error: HostError },
    Print(table::Failure),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Message(message)
    }
}

impl From<table::Failure> for Failure {
    fn from(e: table::Failure) -> Self {
        Failure::Print(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Message(m) => f.write_str(m),
            Failure::Host { source, error } => write!(f, "{source}: {error}"),
            Failure::Print(e) => e.fmt(f),
        }
    }
}

/// The fields `--set` names, as `(key, JSON value)`.
fn fields(args: &PlanArgs) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let mut fields = Vec::new();
    for set in &args.set {
        // Taken as written, as a document's value is: ` 5` is not the number 5 there either.
        let (key, value) = set.split_once('=').ok_or_else(|| format!("--set {set}: expected KEY=VALUE"))?;
        if value.trim() != value || key.trim() != key {
            return Err(format!("--set {set:?}: KEY and VALUE may not begin or end with white space"));
        }
        let json = if value.starts_with(|c: char| c.is_ascii_digit() || "-[{\"".contains(c))
            || ["true", "false", "null"].contains(&value)
        {
            value.as_bytes().to_vec()
        } else {
            format!("\"{value}\"").into_bytes()
        };
        // The command line lives as long as the process: its keys may too.
        fields.push((&*Box::leak(key.to_string().into_boxed_str()), json));
    }
    Ok(fields)
}

/// Whether `key` is a top-level field of some model's document that a flag of its own may
/// set (a number, an integer, a choice or a word; lists, objects and JSON values go through
/// `--set`), and if so whether it is a number in some model and a choice in some model.
fn settable(key: &str) -> Option<(bool, bool)> {
    let fields = || divload::doc::MODELS.iter().flat_map(|m| m.fields).filter(move |f| f.key == key);
    let scalar = |f: &schema::Field| {
        matches!(f.kind, Kind::Number(_) | Kind::Integer(_) | Kind::Choice(_) | Kind::Text)
    };
    fields().any(scalar).then(|| {
        (
            fields().any(|f| matches!(f.kind, Kind::Number(_) | Kind::Integer(_))),
            fields().any(|f| matches!(f.kind, Kind::Choice(_))),
        )
    })
}

/// `plan`'s arguments with every `--FIELD VALUE` (or `--FIELD=VALUE`) whose field is a
/// settable top-level field of a model's schema rewritten as `--set FIELD=VALUE`, so that
/// the flags are the schemas' fields and the command line lists none by hand. `-` and `_`
/// are the same in field names and in choices' values (`--root-mode after-send`). The
/// flags the command line defines itself (`--json`, `--counts`, `--set`, `--progress`)
/// keep their meaning; `cli_flags_are_no_field` checks no schema takes their names.
fn field_flags(args: impl Iterator<Item = std::ffi::OsString>) -> Result<Vec<std::ffi::OsString>, String> {
    let mut args: Vec<_> = args.collect();
    if args.get(1).and_then(|a| a.to_str()) != Some("plan") {
        return Ok(args);
    }
    let mut out: Vec<std::ffi::OsString> = args.drain(..2).collect();
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        let Some(flag) = arg.to_str().and_then(|a| a.strip_prefix("--")) else {
            out.push(arg);
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (flag, None),
        };
        let key = name.replace('-', "_");
        let Some((numeric, choice)) = settable(&key) else {
            out.push(arg);
            continue;
        };
        let value = match inline {
            Some(v) => v,
            None => rest
                .next()
                .and_then(|v| v.into_string().ok())
                .ok_or_else(|| format!("--{name}: expected a value (the document's \"{key}\")"))?,
        };
        // A number stays a number where the field is one; the model's reader names the
        // field when the value does not fit it. serde_json allows whitespace around a
        // number, a document does not: ` 5` is a string, refused as the document would.
        let bare = value.trim() == value;
        let json = if numeric && bare && serde_json::from_str::<serde_json::Number>(&value).is_ok() {
            value
        } else if choice {
            serde_json::to_string(&value.replace('-', "_")).unwrap_or_default()
        } else {
            serde_json::to_string(&value).unwrap_or_default()
        };
        out.push("--set".into());
        out.push(format!("{key}={json}").into());
    }
    Ok(out)
}

/// The field flags, listed from the registry's schemas for `divload plan --help`.
fn field_flags_help() -> String {
    let mut text = String::from(
        "Document fields as flags: --FIELD VALUE sets a top-level field of the document (as \
         --set FIELD=VALUE does; the model's reader checks it). By model:\n",
    );
    for m in divload::doc::MODELS {
        let flags: Vec<String> = m
            .fields
            .iter()
            .filter(|f| settable(f.key).is_some())
            .map(|f| match &f.kind {
                Kind::Choice(c) => {
                    let names: Vec<&str> = (0..).map_while(|i| c.name_at(i)).collect();
                    format!("--{} {}", f.key.replace('_', "-"), names.join("|").replace('_', "-"))
                }
                Kind::Text => format!("--{} NAME", f.key.replace('_', "-")),
                _ => format!("--{} N", f.key.replace('_', "-")),
            })
            .collect();
        text.push_str(&format!("  {:<13}{}\n", m.name, flags.join(" ")));
    }
    text
}

/// The document at `file` (the default platform without one), and how to name it.
fn read(file: Option<&PathBuf>) -> Result<(String, Vec<u8>), Failure> {
    let Some(path) = file else {
        return Ok(("(default: genaud2003 Table 1)".to_string(), DEFAULT_PLATFORM.as_bytes().to_vec()));
    };
    let source = path.display().to_string();
    match std::fs::read(path) {
        Ok(text) => Ok((source, text)),
        // `fs::read` reserves the file's size fallibly: named as the plan's memory is.
        Err(e) if e.kind() == io::ErrorKind::OutOfMemory => {
            let bytes = std::fs::metadata(path).map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX));
            Err(Failure::Host { source, error: HostError::OutOfMemory { what: "document", bytes } })
        }
        Err(e) => Err(format!("{source}: {e}").into()),
    }
}

fn run_simulate(args: &SimulateArgs) -> Result<(), String> {
    let (source, text) = read(args.file.as_ref()).map_err(|e| e.to_string())?;
    let timeline = divload_host::timeline_json(&text)
        .map_err(|e| format!("{source}: {e}"))?
        .ok_or_else(|| format!("{source}: this document's plan has no timeline to simulate yet"))?;
    let timeline: serde_json::Value =
        serde_json::from_slice(&timeline).map_err(|e| format!("{source}: timeline: {e}"))?;
    if let Some(dir) = &args.export {
        let (platform, events, player) = simulate::export(&timeline, dir)?;
        println!(
            "wrote {}, {} and {}\nrun: /usr/bin/python3 {} {} {} --cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0",
            platform.display(),
            events.display(),
            player.display(),
            player.display(),
            platform.display(),
            events.display()
        );
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("divload-simulate-{}", std::process::id()));
    let compared = simulate::run(&timeline, &dir, args.network, !args.unreserved);
    let _ = std::fs::remove_dir_all(&dir);
    let compared = compared?;
    let predicted = compared.iter().map(|c| c.predicted).fold(0.0, f64::max);
    let simulated = compared.iter().map(|c| c.simulated).fold(0.0, f64::max);
    let deviation = |p: f64, s: f64| if p != 0.0 { (s - p) / p } else { s - p };
    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let written = if args.json {
        let rows: Vec<serde_json::Value> = compared
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "predicted": c.predicted, "simulated": c.simulated}))
            .collect();
        let doc = serde_json::json!({"network": format!("{:?}", args.network).to_lowercase(),
            "makespan": predicted, "simulated_makespan": simulated, "ratio": simulated / predicted, "actors": rows});
        writeln!(w, "{doc}")
    } else {
        let width = compared.iter().map(|c| c.name.chars().count()).max().unwrap_or(4).max(5);
        writeln!(w, "divload simulate {source} (SimGrid, network {:?})", args.network)
            .and_then(|()| {
                writeln!(
                    w,
                    "{:<width$} {:>16} {:>16} {:>11}",
                    "actor", "predicted s", "simulated s", "deviation"
                )
            })
            .and_then(|()| {
                compared.iter().try_for_each(|c| {
                    writeln!(
                        w,
                        "{:<width$} {:>16.6} {:>16.6} {:>+10.2e}",
                        c.name,
                        c.predicted,
                        c.simulated,
                        deviation(c.predicted, c.simulated)
                    )
                })
            })
            .and_then(|()| {
                writeln!(
                    w,
                    "makespan: predicted {predicted:.6} s, simulated {simulated:.6} s, ratio {:.6}",
                    simulated / predicted
                )
            })
    };
    written.and_then(|()| w.flush()).map_err(|e| format!("writing the result: {e}"))
}

/// The document's `"observations"` with the CSV's rows after the ones it has, written back
/// into the document; then planned and printed as `plan` prints.
fn run_learn(args: &LearnArgs) -> Result<(), Failure> {
    let source = args.file.display().to_string();
    let text = std::fs::read(&args.file).map_err(|e| format!("{source}: {e}"))?;
    let model = divload::doc::model_of(&text).map_err(|e| format!("{source}: {e}"))?;
    let Some(columns) = model.fields.iter().find_map(|f| match f.kind {
        Kind::List(fields) if f.key == OBSERVATIONS => Some(fields),
        _ => None,
    }) else {
        return Err(
            format!("{source}: the {} model takes no {OBSERVATIONS} to learn from", model.name).into()
        );
    };
    let csv_name = args.csv.display().to_string();
    let csv = if csv_name == "-" {
        io::read_to_string(io::stdin()).map_err(|e| format!("standard input: {e}"))?
    } else {
        std::fs::read_to_string(&args.csv).map_err(|e| format!("{csv_name}: {e}"))?
    };
    let keys: Vec<&str> = columns.iter().map(|f| f.key).collect();
    let mut rows = csv_rows(&csv, &keys).map_err(|e| format!("{csv_name}: {e}"))?;
    let doc: serde_json::Value = serde_json::from_slice(&text).map_err(|e| format!("{source}: {e}"))?;
    let mut all = match doc.get(OBSERVATIONS) {
        Some(serde_json::Value::Array(old)) => old.clone(),
        Some(_) => return Err(format!("{source}: {OBSERVATIONS}: must be a list").into()),
        None => Vec::new(),
    };
    all.append(&mut rows);
    let list = serde_json::to_vec(&all).map_err(|e| format!("{csv_name}: {e}"))?;
    let text = divload_host::set_fields_json(&text, &[(OBSERVATIONS, &list)])
        .map_err(|error| Failure::Host { source: source.clone(), error })?;
    let source = format!("{source} + {csv_name}");
    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let printed = divload_host::with_plan(&text, None, |planned| {
        Ok(print(&mut w, &source, planned.document, args.json, args.counts))
    });
    match printed {
        Ok(printed) => printed,
        Err(error) => Err(Failure::Host { source, error }),
    }
}

/// Prints a result document as JSON, counts or a table, in pieces (`table` keeps no row).
fn print(w: &mut impl Write, source: &str, doc: &[u8], json: bool, counts: bool) -> Result<(), Failure> {
    if json {
        w.write_all(doc).and_then(|()| writeln!(w)).map_err(table::Failure::Write)?;
    } else if counts {
        table::print_counts(w, doc)?;
    } else {
        table::print(w, source, doc)?;
    }
    w.flush().map_err(table::Failure::Write)?;
    Ok(())
}

/// The document list a model learns from.
const OBSERVATIONS: &str = "observations";

/// CSV text as JSON objects with the header's keys, each key one of `keys` (the list's
/// fields). Fields may be double-quoted (`""` inside is a quote); blank lines and lines
/// starting with `#` are skipped. A cell that reads as a JSON number is a number.
fn csv_rows(text: &str, keys: &[&str]) -> Result<Vec<serde_json::Value>, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let (_, header) = lines.next().ok_or("no header line (the columns' names: e.g. worker,items,seconds)")?;
    let header = csv_cells(header).map_err(|e| format!("line 1: {e}"))?;
    for h in &header {
        if !keys.contains(&h.as_str()) {
            return Err(format!("header: unknown column {h:?} (the columns are {})", keys.join(", ")));
        }
    }
    if let Some(h) = header.iter().enumerate().find_map(|(i, h)| header[..i].contains(h).then_some(h)) {
        return Err(format!("header: column {h:?} twice"));
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        let cells = csv_cells(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        if cells.len() != header.len() {
            return Err(format!("line {}: {} cells, the header has {}", n + 1, cells.len(), header.len()));
        }
        let row: serde_json::Map<String, serde_json::Value> = header
            .iter()
            .zip(cells)
            .map(|(k, v)| {
                let value = serde_json::from_str::<serde_json::Number>(v.trim())
                    .map_or(serde_json::Value::String(v), serde_json::Value::Number);
                (k.clone(), value)
            })
            .collect();
        rows.push(serde_json::Value::Object(row));
    }
    Ok(rows)
}

/// One CSV line's cells (RFC 4180 quoting, within one line).
fn csv_cells(line: &str) -> Result<Vec<String>, String> {
    let mut cells = Vec::new();
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    loop {
        let mut cell = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        cell.push('"');
                    }
                    Some('"') => break,
                    Some(c) => cell.push(c),
                    None => return Err("a quoted cell is not closed".to_string()),
                }
            }
            match chars.next() {
                None => {
                    cells.push(cell);
                    return Ok(cells);
                }
                Some(',') => cells.push(cell),
                Some(c) => return Err(format!("{c:?} after a quoted cell (expected a comma)")),
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        cells.push(cell.trim().to_string());
                        return Ok(cells);
                    }
                    Some(',') => break,
                    Some(c) => cell.push(c),
                }
            }
            cells.push(cell.trim().to_string());
        }
    }
}

fn run_plan(args: &PlanArgs) -> Result<(), Failure> {
    let (source, text) = read(args.file.as_ref())?;
    let fields = fields(args)?;
    let text = if fields.is_empty() {
        text
    } else {
        let pairs: Vec<(&'static str, &[u8])> = fields.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        match divload_host::set_fields_json(&text, &pairs) {
            Ok(text) => text,
            Err(error) => return Err(Failure::Host { source, error }),
        }
    };
    // Standard output's buffers are taken before the plan, whose memory is the large
    // allocation; after it nothing is allocated but a table's column widths (fallibly).
    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let terminal = io::stderr().is_terminal();
    let bar = RefCell::new(Progress::new());
    let progress = |done: u64, total: u64| {
        if args.progress || (terminal && total >= PROGRESS_CELLS) {
            bar.borrow_mut().update(done, total);
        }
    };
    // Printed from the plan's memory, not from a copy: a copy of the result document
    // would need its size again while the solver's memory is still held.
    let printed = divload_host::with_plan(&text, Some(&progress), |planned| {
        bar.borrow_mut().finish();
        Ok(print(&mut w, &source, planned.document, args.json, args.counts))
    });
    bar.borrow_mut().finish();
    match printed {
        Ok(printed) => printed,
        Err(error) => Err(Failure::Host { source, error }),
    }
}

/// A one-line progress bar on stderr, redrawn at most every percent.
struct Progress {
    shown: u64,
}

impl Progress {
    fn new() -> Self {
        Progress { shown: u64::MAX }
    }

    fn update(&mut self, done: u64, total: u64) {
        if total == 0 {
            return;
        }
        let pct = done.saturating_mul(100) / total;
        if pct == self.shown {
            return;
        }
        self.shown = pct;
        // A slice, not `repeat`: this runs while the plan holds its memory.
        const BAR: &str = "#########################";
        let filled = BAR.get(..(pct / 4) as usize).unwrap_or(BAR);
        eprint!("\rplanning [{filled:<25}] {pct:>3}%");
    }

    fn finish(&mut self) {
        if self.shown != u64::MAX {
            eprintln!();
            self.shown = u64::MAX;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A schema field named like one of the command line's own flags could not be set by
    /// its flag: the command line's flag would win.
    #[test]
    fn cli_flags_are_no_field() {
        for sub in Cli::command().get_subcommands() {
            for arg in sub.get_arguments() {
                if let Some(long) = arg.get_long() {
                    assert!(settable(&long.replace('-', "_")).is_none(), "--{long} is also a document field");
                }
            }
        }
    }

    #[test]
    fn csv_rows_take_the_header_keys() {
        let rows = csv_rows(
            "# measured\nworker,items,seconds\n\"fast, a\",100,0.5\n\nslow,50,1e-2\r\n",
            &["worker", "items", "seconds"],
        )
        .unwrap();
        assert_eq!(
            serde_json::Value::Array(rows),
            serde_json::json!([{"worker": "fast, a", "items": 100, "seconds": 0.5}, {"worker": "slow", "items": 50, "seconds": 1e-2}])
        );
        assert!(csv_rows("worker,minutes\n", &["worker", "seconds"]).unwrap_err().contains("minutes"));
        assert!(csv_rows("worker,worker\n", &["worker"]).unwrap_err().contains("twice"));
        assert!(csv_rows("worker,items\na\n", &["worker", "items"]).unwrap_err().contains("line 2"));
        assert!(csv_rows("worker\n\"a\n", &["worker"]).unwrap_err().contains("not closed"));
        assert!(csv_rows("", &["worker"]).is_err());
    }

    #[test]
    fn field_flags_become_set() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        let out = field_flags(
            args(&[
                "divload",
                "plan",
                "f.json",
                "--items",
                "5",
                "--rounding=largest-remainder",
                "--json",
                "--root",
                "a-b",
            ])
            .into_iter(),
        )
        .unwrap();
        assert_eq!(
            out,
            args(&[
                "divload",
                "plan",
                "f.json",
                "--set",
                "items=5",
                "--set",
                "rounding=\"largest_remainder\"",
                "--json",
                "--set",
                "root=\"a-b\""
            ])
        );
        assert!(field_flags(args(&["divload", "plan", "--items"]).into_iter()).is_err());
        let untouched = args(&["divload", "simulate", "--items", "5"]);
        assert_eq!(field_flags(untouched.clone().into_iter()).unwrap(), untouched);
    }
}
