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

use clap::{Parser, Subcommand};
use divload::doc::names::{self, Names};

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
    /// Set the document's "items".
    #[arg(long)]
    items: Option<u64>,
    /// Set the document's "order": bandwidth or given.
    #[arg(long, value_parser = named(&names::ORDER))]
    order: Option<&'static str>,
    /// Set the document's "rounding": greedy, largest-remainder or paper.
    #[arg(long, value_parser = named(&names::ROUNDING))]
    rounding: Option<&'static str>,
    /// Set the document's "root_mode": after-send or overlap.
    #[arg(long, value_parser = named(&names::ROOT_MODE))]
    root_mode: Option<&'static str>,
    /// Set the document's "solver": closed-form + rounding (affine costs), exact (any
    /// non-decreasing costs, memory O(n·p)) or sampled (fixed memory, certified gap).
    #[arg(long, value_parser = named(&names::SOLVER))]
    solver: Option<&'static str>,
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
struct SimulateArgs {
    /// Platform file (JSON, version 1). Without it, the paper's Table 1 grid.
    file: Option<PathBuf>,
    /// SimGrid's network model: cm02 (without TCP's window and cross-traffic: divload's
    /// one-port model, times should agree) or lv08 (SimGrid's default, TCP-like).
    #[arg(long, value_enum, default_value = "cm02")]
    network: simulate::Network,
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

/// A value parser for an option named in the core's tables, giving its name as documents
/// spell it; `-` and `_` are the same.
fn named<T: Copy + PartialEq + Send + Sync + 'static>(
    names: &'static Names<T>,
) -> impl Fn(&str) -> Result<&'static str, String> + Clone {
    move |s: &str| {
        names.parse_str(&s.replace('-', "_")).map(|v| names.name(v)).ok_or_else(|| names.expected.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Plan(args) => run_plan(&args),
        Command::Simulate(args) => run_simulate(&args),
        Command::Models => {
            for m in divload::doc::MODELS {
                println!("{:<12} {}\n{:<12} {}", m.name, m.title, "", m.paper);
            }
            Ok(())
        }
        Command::Example { model, params } if !params.is_empty() => generated(&model, &params),
        Command::Example { model, .. } => match divload::doc::model(&model) {
            Some(m) => {
                print!("{}", m.example());
                Ok(())
            }
            None => {
                let known: Vec<&str> = divload::doc::MODELS.iter().map(|m| m.name).collect();
                Err(format!("model: unknown model {model:?} (known: {})", known.join(", ")))
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("divload: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The fields the flags set, as `(key, JSON value)`.
fn fields(args: &PlanArgs) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let quoted = |s: &str| format!("\"{s}\"").into_bytes();
    let mut fields = Vec::new();
    if let Some(items) = args.items {
        fields.push(("items", items.to_string().into_bytes()));
    }
    if let Some(o) = args.order {
        fields.push(("order", quoted(o)));
    }
    if let Some(r) = args.rounding {
        fields.push(("rounding", quoted(r)));
    }
    if let Some(m) = args.root_mode {
        fields.push(("root_mode", quoted(m)));
    }
    if let Some(s) = args.solver {
        fields.push(("solver", quoted(s)));
    }
    for set in &args.set {
        let (key, value) = set.split_once('=').ok_or_else(|| format!("--set {set}: expected KEY=VALUE"))?;
        let value = value.trim();
        let json = if value.starts_with(|c: char| c.is_ascii_digit() || "-[{\"".contains(c))
            || ["true", "false", "null"].contains(&value)
        {
            value.as_bytes().to_vec()
        } else {
            quoted(value)
        };
        // The command line lives as long as the process: its keys may too.
        fields.push((&*Box::leak(key.trim().to_string().into_boxed_str()), json));
    }
    Ok(fields)
}

/// The document at `file` (the default platform without one), and how to name it.
fn read(file: Option<&PathBuf>) -> Result<(String, Vec<u8>), String> {
    match file {
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((path.display().to_string(), text))
        }
        None => Ok(("(default: genaud2003 Table 1)".to_string(), DEFAULT_PLATFORM.as_bytes().to_vec())),
    }
}

fn run_simulate(args: &SimulateArgs) -> Result<(), String> {
    let (source, text) = read(args.file.as_ref())?;
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
    let compared = simulate::run(&timeline, &dir, args.network);
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

fn run_plan(args: &PlanArgs) -> Result<(), String> {
    let (source, text) = match &args.file {
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            (path.display().to_string(), text)
        }
        None => ("(default: genaud2003 Table 1)".to_string(), DEFAULT_PLATFORM.as_bytes().to_vec()),
    };
    let fields = fields(args)?;
    let text = if fields.is_empty() {
        text
    } else {
        let pairs: Vec<(&'static str, &[u8])> = fields.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        divload_host::set_fields_json(&text, &pairs).map_err(|e| format!("{source}: {e}"))?
    };
    let terminal = io::stderr().is_terminal();
    let bar = RefCell::new(Progress::new());
    let progress = |done: u64, total: u64| {
        if args.progress || (terminal && total >= PROGRESS_CELLS) {
            bar.borrow_mut().update(done, total);
        }
    };
    let doc = divload_host::plan_json_with(&text, Some(&progress));
    bar.borrow().finish();
    let doc = doc.map_err(|e| format!("{source}: {e}"))?;
    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let written = if args.json {
        w.write_all(&doc).and_then(|()| writeln!(w))
    } else if args.counts {
        table::print_counts(&mut w, &doc)
    } else {
        table::print(&mut w, &source, &doc)
    };
    written.and_then(|()| w.flush()).map_err(|e| format!("writing the result: {e}"))
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
        let filled = (pct / 4) as usize;
        eprint!("\rplanning [{:<25}] {pct:>3}%", "#".repeat(filled));
    }

    fn finish(&self) {
        if self.shown != u64::MAX {
            eprintln!();
        }
    }
}
