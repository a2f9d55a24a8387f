//! `divload`: plan a scatter from a platform file.
//!
//! The command line only translates: it reads the file, calls the core planner through
//! the core's JSON reader, and prints. Errors are one line on stderr and a non-zero exit.

mod table;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use divload::doc::names::{self, Names};
use divload::doc::scatter::{self as json, PlatformFile, Solver, WorkerEntry};
use divload::{Assignment, Method, OrderPolicy, RootMode, Rounding, Summary};
use divload_host::{HostError, Parsed};

/// The platform of genaud2003 Table 1 (16 processors, root dinadan, 817101 rays).
const DEFAULT_PLATFORM: &str = include_str!("../../examples/table1.json");

/// Most workers this front end plans (about 200 MB of memory at this size).
const MAX_WORKERS: usize = 1 << 20;

/// Sampled sizes and most workers of the sampled DP here: 2·4096·256 bytes of choices.
const SAMPLES: usize = 4096;
const SAMPLED_WORKERS: usize = 256;

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
    /// List the models a document can name ("model": …).
    Models,
    /// Print a ready-to-edit platform document for MODEL.
    Example {
        /// A model from `divload models`.
        model: String,
    },
}

#[derive(clap::Args)]
struct PlanArgs {
    /// Platform file (JSON, version 1). Without it, the paper's Table 1 grid is planned.
    file: Option<PathBuf>,
    /// Print the result document as JSON.
    #[arg(long, conflicts_with = "counts")]
    json: bool,
    /// Print `rank count displacement` per worker in send order, for scripts.
    #[arg(long)]
    counts: bool,
    /// Override the number of items.
    #[arg(long)]
    items: Option<u64>,
    /// Override the send order: bandwidth or given.
    #[arg(long, value_parser = named(&names::ORDER))]
    order: Option<OrderPolicy>,
    /// Override the rounding scheme: greedy, largest-remainder or paper.
    #[arg(long, value_parser = named(&names::ROUNDING))]
    rounding: Option<Rounding>,
    /// Override when the root computes: after-send or overlap.
    #[arg(long, value_parser = named(&names::ROOT_MODE))]
    root_mode: Option<RootMode>,
    /// How to compute the counts: closed form + rounding (affine costs), the exact DP
    /// (any non-decreasing costs, memory O(n·p)), or the sampled DP (fixed memory,
    /// certified gap). Default: the file's "solver", else closed form when every cost is
    /// affine and exact otherwise.
    #[arg(long, value_parser = named(&names::SOLVER))]
    solver: Option<Solver>,
    /// Show a progress bar on stderr during the exact DP (default: when stderr is a
    /// terminal and the run is long).
    #[arg(long)]
    progress: bool,
}

/// A value parser for an option named in the core's tables; `-` and `_` are the same.
fn named<T: Copy + PartialEq + Send + Sync + 'static>(
    names: &'static Names<T>,
) -> impl Fn(&str) -> Result<T, String> + Clone {
    move |s: &str| names.parse_str(&s.replace('-', "_")).ok_or_else(|| names.expected.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Plan(args) => run_plan(&args),
        Command::Models => {
            for m in divload::doc::MODELS {
                println!("{:<12} {}\n{:<12} {}", m.name, m.title, "", m.paper);
            }
            Ok(())
        }
        Command::Example { model } => match divload::doc::model(&model) {
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

fn run_plan(args: &PlanArgs) -> Result<(), String> {
    let (source, text) = match &args.file {
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            (path.display().to_string(), text)
        }
        None => ("(default: genaud2003 Table 1)".to_string(), DEFAULT_PLATFORM.as_bytes().to_vec()),
    };
    let at = |e: HostError| format!("{source}: {e}");

    if divload::doc::model_of(&text).map_err(|e| at(e.into()))?.name != "scatter" {
        return plan_any(args, &source, &text);
    }
    let mut parsed = Parsed::new(&text).map_err(at)?;
    apply_overrides(args, &mut parsed.file);
    let file = &parsed.file;
    if file.workers > MAX_WORKERS {
        return Err(format!("{source}: workers: at most {MAX_WORKERS}, got {}", file.workers));
    }
    let solver = file.solver(args.solver);
    let needs = file.needs(solver).map_err(|e| at(e.into()))?;
    let mib = needs.dp_bytes::<f64>() as f64 / f64::from(1u32 << 20);
    let show = args.progress || (needs.dp_choices as u64 >= PROGRESS_CELLS && io::stderr().is_terminal());
    let mut bar = Progress::new(show, mib);
    let planned =
        parsed.solve::<SAMPLES, SAMPLED_WORKERS>(Some(solver), |done, total| bar.update(done, total));
    bar.finish();
    let planned = planned.map_err(|e| match e {
        HostError::OutOfMemory { .. } => format!("{source}: {e}; try --solver sampled"),
        e => at(e),
    })?;
    let (file, entries, summary, out) =
        (&planned.file, &planned.entries, planned.solved.summary, &planned.plan);
    let closed_makespan = planned.solved.closed_form.map(|c| c.makespan);

    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let written = if args.json {
        let doc = planned.document().map_err(at)?;
        w.write_all(&doc).and_then(|()| writeln!(w))
    } else if args.counts {
        print_counts(&mut w, out)
    } else {
        print_table(&mut w, &source, file, entries, &summary, out, closed_makespan)
    };
    written.and_then(|()| w.flush()).map_err(|e| format!("writing the result: {e}"))
}

/// Any model but the scatter (whose options the flags override): the host's one entry
/// point, printed from the result document's own columns.
fn plan_any(args: &PlanArgs, source: &str, text: &[u8]) -> Result<(), String> {
    let scatter_only = [
        ("--items", args.items.is_some()),
        ("--order", args.order.is_some()),
        ("--rounding", args.rounding.is_some()),
        ("--root-mode", args.root_mode.is_some()),
        ("--solver", args.solver.is_some()),
        ("--progress", args.progress),
    ];
    if let Some((flag, _)) = scatter_only.iter().find(|(_, given)| *given) {
        return Err(format!("{source}: {flag} applies to scatter documents; edit the document instead"));
    }
    let doc =
        divload_host::plan_json::<SAMPLES, SAMPLED_WORKERS>(text).map_err(|e| format!("{source}: {e}"))?;
    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let written = if args.json {
        w.write_all(&doc).and_then(|()| writeln!(w))
    } else if args.counts {
        table::print_counts(&mut w, &doc)
    } else {
        table::print(&mut w, source, &doc)
    };
    written.and_then(|()| w.flush()).map_err(|e| format!("writing the result: {e}"))
}

/// A one-line progress bar on stderr, redrawn at most every percent.
struct Progress {
    show: bool,
    shown: u64,
    mib: f64,
}

impl Progress {
    fn new(show: bool, mib: f64) -> Self {
        Progress { show, shown: u64::MAX, mib }
    }

    fn update(&mut self, done: u64, total: u64) {
        if !self.show || total == 0 {
            return;
        }
        let pct = done.saturating_mul(100) / total;
        if pct == self.shown {
            return;
        }
        self.shown = pct;
        let filled = (pct / 4) as usize;
        eprint!("\rexact DP [{:<25}] {pct:>3}%  ({:.1} MiB)", "#".repeat(filled), self.mib);
    }

    fn finish(&self) {
        if self.show && self.shown != u64::MAX {
            eprintln!();
        }
    }
}

fn apply_overrides(args: &PlanArgs, file: &mut PlatformFile<'_>) {
    if let Some(items) = args.items {
        file.items = items;
    }
    if let Some(o) = args.order {
        file.options.order = o;
    }
    if let Some(r) = args.rounding {
        file.options.rounding = r;
    }
    if let Some(m) = args.root_mode {
        file.options.root_mode = m;
    }
}

fn print_counts(w: &mut impl Write, out: &[Assignment<f64>]) -> io::Result<()> {
    writeln!(w, "# rank count displacement (in send order)")?;
    for a in out {
        writeln!(w, "{} {} {}", a.worker, a.count, a.displacement)?;
    }
    Ok(())
}

fn print_table(
    w: &mut impl Write,
    source: &str,
    file: &PlatformFile<'_>,
    entries: &[WorkerEntry<'_>],
    s: &Summary<f64>,
    out: &[Assignment<f64>],
    closed_makespan: Option<f64>,
) -> io::Result<()> {
    let (mode, order, rounding) = (
        names::ROOT_MODE.name(file.options.root_mode),
        names::ORDER.name(file.options.order),
        names::ROUNDING.name(file.options.rounding),
    );
    let root = json::name_of(entries, s.root);
    writeln!(w, "divload plan {source}")?;
    let how = match s.method {
        Method::ClosedForm => format!("closed form, rounding {rounding}"),
        Method::ExactDp => "exact DP (genaud2003 Algorithm 2, pruned)".to_string(),
        Method::SampledDp => format!("sampled DP ({SAMPLES} sizes, fixed memory)"),
        other => names::METHOD.name(other).replace('_', " "),
    };
    writeln!(w, "{} items on {} workers, root {root} ({mode}), order {order}, {how}\n", s.items, out.len())?;
    let width = entries.iter().map(|e| e.name.chars().count()).max().unwrap_or(4).max(6);
    writeln!(
        w,
        "{:>5}  {:<width$} {:>6} {:>10} {:>12} {:>10} {:>10} {:>10}",
        "send", "worker", "rank", "count", "displacement", "start s", "recv'd s", "finish s"
    )?;
    for (k, a) in out.iter().enumerate() {
        let name = json::name_of(entries, a.worker).to_string();
        writeln!(
            w,
            "{:>5}  {:<width$} {:>6} {:>10} {:>12} {:>10.3} {:>10.3} {:>10.3}{}",
            k + 1,
            name,
            a.worker,
            a.count,
            a.displacement,
            a.start,
            a.received,
            a.finish,
            if a.count == 0 { "  (not used)" } else { "" }
        )?;
    }
    let gain = 100.0 * (1.0 - s.makespan / s.uniform_makespan);
    writeln!(w)?;
    if s.method == Method::ClosedForm {
        writeln!(
            w,
            "makespan       {:>10.3} s   rational {:.3} s ({}), guaranteed <= {:.3} s (eq. 4)",
            s.makespan,
            s.rational_makespan,
            if s.rational_exact { "optimal for this order" } else { "heuristic" },
            s.bound
        )?;
        if !s.rational_exact {
            writeln!(w, "lower bound    {:>10.3} s   no plan in this order is faster", s.lower_bound)?;
        }
    } else {
        writeln!(
            w,
            "makespan       {:>10.6} s   {}",
            s.makespan,
            if s.method == Method::ExactDp { "the integer optimum for this order" } else { "sampled plan" }
        )?;
        writeln!(
            w,
            "lower bound    {:>10.6} s   certified gap {:.3e} s ({:.4}%)",
            s.lower_bound,
            s.gap(),
            100.0 * s.gap() / s.makespan
        )?;
    }
    if let Some(c) = closed_makespan {
        writeln!(
            w,
            "closed form    {:>10.6} s   rounded rational plan: {:+.3e} s against this plan",
            c,
            c - s.makespan
        )?;
    }
    writeln!(
        w,
        "even split     {:>10.3} s   (MPI_Scatter) -> {gain:.1}% shorter, {:.2}x faster",
        s.uniform_makespan,
        s.speedup()
    )?;
    if s.root_transfer > 0.0 {
        writeln!(
            w,
            "root transfer  {:>10.3} s   moving the data to {root} first (not in the makespan)",
            s.root_transfer
        )?;
    }
    writeln!(w, "participating  {:>10} of {}", s.participating, out.len())
}
