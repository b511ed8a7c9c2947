//! `profparse report DB -o report.html`: one self-contained HTML page with
//! every analysis the database supports (`analysis::overview`); parts the
//! database lacks become notes on the page. Several runs of one job (or
//! one directory of them) get the page of `history RUN... --html` instead.

use std::process::ExitCode;

use crate::analysis::imbalance::ImbalanceOptions;
use crate::analysis::overview::{OverviewOptions, overview, overview_steps};
use crate::report::renderers::html::page::{MATRIX_MAX_CELLS, Page, TreeBounds, write_page};
use crate::report::renderers::html::timeline::TIMELINE_DEPTHS;
use crate::report::renderers::svg::timeline::{MAX_LANES, TIMELINE_COLUMNS};
use std::path::{Path, PathBuf};

use clap::Args;

use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::output::{self, UsageError};
use crate::formats::Input;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The bl_prof database directory (the `bl_prof` folder a run wrote), or
    /// an AMReX job log holding a TinyProfiler report (docs/TINYPROFILER.md).
    /// Several runs of one job, or one directory of them: the page of
    /// `history RUN... --html`, with history's defaults (docs/REGRESS.md).
    #[arg(value_name = "DB", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Functions in the load-imbalance view, largest maximum time first
    /// (default 10); with several runs, the timers shown (default 8).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Focus on process N: its calls fill the NCalls column, the call tree
    /// is its own (not merged), and its bars are outlined in the imbalance view.
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Call trees: show levels 0..=N only.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Call trees: hide branches below P percent of the total time (inclusive
    /// top-down, exclusive bottom-up).
    #[arg(long = "min-percent", value_parser = crate::cli::args::non_negative_f64, value_name = "P", default_value_t = 0.0)]
    pub min_percent: f64,
    #[command(flatten)]
    pub output: OutputArg,
}

/// Whether `inputs` are a series of runs: more than one, or one directory
/// that is no run itself but holds one (else today's errors stand: a
/// damaged database stays a database).
fn is_series(inputs: &[PathBuf]) -> bool {
    match inputs {
        [one] => one.is_dir() && Input::open(one).is_err() && holds_a_run(one),
        _ => true,
    }
}

fn holds_a_run(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            !e.file_name().to_string_lossy().starts_with('.') && Input::open(&e.path()).is_ok()
        })
    })
}

pub fn run(args: &ReportArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if is_series(&args.inputs) {
        if args.proc.is_some() || args.depth.is_some() || args.min_percent > 0.0 {
            return Err(UsageError(
                "--proc, --depth and --min-percent apply to one bl_prof database, not to a series of runs".into(),
            )
            .into());
        }
        return super::history::page(&args.inputs, args.top, &args.output, ctx);
    }
    let path = &args.inputs[0];
    if super::tinyprofiler::is_log(path) {
        if args.proc.is_some() || args.depth.is_some() {
            return Err(UsageError("--proc and --depth apply to bl_prof databases".into()).into());
        }
        return super::tinyprofiler::report(path, &args.output);
    }
    let mut kept = super::open_trace_database(path)?;
    let db = &mut *kept;
    if let (Some(p), Some(n)) = (args.proc, db.nprocs())
        && p as u64 >= n
    {
        return Err(UsageError(format!(
            "--proc {p} is out of range: the database has {n} process(es), 0..{}",
            n.saturating_sub(1)
        ))
        .into());
    }
    let bar = ctx.progress(overview_steps(db, args.proc), "report", "blocks");
    db.set_progress(bar.hook());
    let opts = OverviewOptions {
        proc: args.proc,
        imbalance: ImbalanceOptions {
            top: args.top.unwrap_or(10),
            ..Default::default()
        },
        timeline_columns: TIMELINE_COLUMNS,
        // Above MAX_LANES processes lanes are groups of processes, whose
        // deeper depths are too busy for the bar budget and are left out
        // of the page: not binned at all (1.7 s of 3.7 on 10,000 processes).
        timeline_depths: if db.trace_index().procs.len() > MAX_LANES {
            1
        } else {
            TIMELINE_DEPTHS
        },
        matrix_max_cells: MATRIX_MAX_CELLS,
    };
    let overview = overview(db, &opts);
    drop(bar);
    ctx.warn_all(&overview.warnings);
    let report = Page {
        database: path.display().to_string(),
        overview,
        bounds: TreeBounds {
            max_depth: args.depth,
            min_percent: args.min_percent,
        },
        proc: args.proc,
    };
    let mut out = output::open(args.output.output.as_deref())?;
    write_page(&mut out, &report)?;
    out.finish()?;
    // Its trees, timelines and tables, freed piece by piece, were a serial
    // tail of some milliseconds at 16,384 processes.
    super::leave_to_exit(report);
    Ok(ExitCode::SUCCESS)
}
