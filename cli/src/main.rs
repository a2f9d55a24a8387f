//! `divload`: plan a scatter from a platform file.
//!
//! The command line only translates: it reads the file, calls the core planner through
//! the core's JSON reader, and prints. Errors are one line on stderr and a non-zero exit.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use divload::json::{self, CandidateEntry, PlatformFile, WorkerEntry};
use divload::{Assignment, OrderPolicy, RootCandidate, RootMode, Rounding, Scratch, Summary, Worker};

/// The platform of genaud2003 Table 1 (16 processors, root dinadan, 817101 rays).
const DEFAULT_PLATFORM: &str = include_str!("../../examples/table1.json");

/// Most workers this front end plans (about 200 MB of memory at this size).
const MAX_WORKERS: usize = 1 << 20;

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
    /// Plan a scatter: counts, displacements, send order and predicted finish times.
    Plan(PlanArgs),
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
    /// Override the send order.
    #[arg(long, value_enum)]
    order: Option<OrderArg>,
    /// Override the rounding scheme.
    #[arg(long, value_enum)]
    rounding: Option<RoundingArg>,
    /// Override when the root computes.
    #[arg(long, value_enum)]
    root_mode: Option<RootModeArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    Given,
    Bandwidth,
}

#[derive(Clone, Copy, ValueEnum)]
enum RoundingArg {
    Paper,
    LargestRemainder,
    Greedy,
}

#[derive(Clone, Copy, ValueEnum)]
#[value(rename_all = "snake_case")]
enum RootModeArg {
    AfterSend,
    Overlap,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Plan(args) => run_plan(&args),
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
    let at = |e: divload::Error| format!("{source}: {e}");

    let bound = json::max_entries(&text);
    let mut entries = vec![WorkerEntry::EMPTY; bound];
    let mut cands = vec![CandidateEntry::EMPTY; bound];
    let mut file = json::parse_platform(&text, &mut entries, &mut cands).map_err(at)?;
    apply_overrides(args, &mut file);
    if file.workers > MAX_WORKERS {
        return Err(format!(
            "{source}: workers: {} workers exceed this tool's capacity of {MAX_WORKERS}",
            file.workers
        ));
    }
    let mut workers = vec![Worker::<f64>::linear(0.0, 1.0); file.workers];
    let mut root_cands = vec![RootCandidate::<f64>::local(0); file.candidates];
    let problem = file.problem(&entries, &cands, &mut workers, &mut root_cands).map_err(at)?;
    let mut out = vec![Assignment::EMPTY; file.workers];
    let mut scratch = vec![Scratch::EMPTY; file.workers];
    let summary = divload::plan(&problem, &mut out, &mut scratch).map_err(at)?;

    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    let written = if args.json {
        let longest = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
        let mut buf = vec![0u8; json::max_result_len(out.len(), longest)];
        let n = json::write_result(&file, &entries, &summary, &out, &mut buf).map_err(at)?;
        w.write_all(&buf[..n]).and_then(|()| writeln!(w))
    } else if args.counts {
        print_counts(&mut w, &out)
    } else {
        print_table(&mut w, &source, &file, &entries, &summary, &out)
    };
    written.and_then(|()| w.flush()).map_err(|e| format!("writing the result: {e}"))
}

fn apply_overrides(args: &PlanArgs, file: &mut PlatformFile<'_>) {
    if let Some(items) = args.items {
        file.items = items;
    }
    if let Some(o) = args.order {
        file.options.order = match o {
            OrderArg::Given => OrderPolicy::Given,
            OrderArg::Bandwidth => OrderPolicy::Bandwidth,
        };
    }
    if let Some(r) = args.rounding {
        file.options.rounding = match r {
            RoundingArg::Paper => Rounding::Paper,
            RoundingArg::LargestRemainder => Rounding::LargestRemainder,
            RoundingArg::Greedy => Rounding::Greedy,
        };
    }
    if let Some(m) = args.root_mode {
        file.options.root_mode = match m {
            RootModeArg::AfterSend => RootMode::AfterSend,
            RootModeArg::Overlap => RootMode::Overlap,
        };
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
) -> io::Result<()> {
    let (mode, order, rounding) = json::option_names(&file.options);
    let root = json::name_of(entries, s.root);
    writeln!(w, "divload plan {source}")?;
    writeln!(
        w,
        "{} items on {} workers, root {root} ({mode}), order {order}, rounding {rounding}\n",
        s.items,
        out.len()
    )?;
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(4).max(6);
    writeln!(
        w,
        "{:>5}  {:<width$} {:>6} {:>10} {:>12} {:>10} {:>10} {:>10}",
        "send", "worker", "rank", "count", "displacement", "start s", "recv'd s", "finish s"
    )?;
    for (k, a) in out.iter().enumerate() {
        let name = json::name_of(entries, a.worker);
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
