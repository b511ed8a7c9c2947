//! `profparse compare RUN...`: scaling across runs of TinyProfiler logs,
//! bl_prof databases and timer trees.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::analysis::base_summary::base_summary;
use crate::analysis::tinyprofiler::{CompareInput, CompareMetric, Scaling, compare};
use crate::formats::blprof::Database;
use crate::formats::timertree::{read_timer_tree_file, suspicious_times};
use crate::formats::{Input, InputKind, tinyprofiler};
use crate::report::Format;
use crate::report::renderers::svg::scaling::compare_svg;
use crate::report::tinyprofiler::compare::CompareReport;
use clap::{Args, ValueEnum};

use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{UsageError, emit, write_file};

const FORMATS: Offered = Offered(&[
    (Format::Table, "Aligned tables for people"),
    (Format::Json, "One JSON object (docs/JSON.md)"),
    (Format::Csv, "One row per timer, full precision"),
]);

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    /// Average inclusive seconds over ranks.
    Inclusive,
    /// Average exclusive seconds over ranks.
    Exclusive,
    /// Maximum inclusive seconds over ranks (the slowest rank).
    Max,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// TinyProfiler logs (job outputs), bl_prof databases or timer trees,
    /// the first being the baseline. A log holding several reports gives
    /// one run per report, in order. A database has exclusive times only
    /// (--metric exclusive); a timer tree does not say its ranks (--ranks).
    #[arg(value_name = "RUN", required = true)]
    pub runs: Vec<PathBuf>,
    /// Weak scaling (the problem grows with the ranks): efficiency = t1/ti
    /// instead of t1·n1/(ti·ni).
    #[arg(long)]
    pub weak: bool,
    /// The time compared.
    #[arg(long, value_enum, default_value_t = MetricArg::Inclusive)]
    pub metric: MetricArg,
    /// Timers under this share of the total time (percent) in every run are
    /// listed after the others (and left out of the table).
    #[arg(long = "min-percent", value_parser = crate::cli::args::non_negative_f64, value_name = "P", default_value_t = 1.0)]
    pub min_percent: f64,
    /// The ranks of each run, comma-separated, for logs that do not say
    /// (a report written to tiny_profiler.output_file).
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', value_parser = crate::cli::args::positive_u64)]
    pub ranks: Vec<u64>,
    /// Also draw time against ranks (log–log) as an SVG picture: the total
    /// and the timers that matter with the largest time in the first run,
    /// with the ideal scaling dashed.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Keep the first N timers in the table.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// The runs of one argument: a log's reports, or a database's base profile.
fn load(path: &Path, ctx: &Context, runs: &mut Vec<CompareInput>) -> anyhow::Result<()> {
    let input = Input::open(path)?;
    match input.kind {
        InputKind::TinyProfiler => {
            let log = tinyprofiler::read(&input.path)?;
            let several = log.reports.len() > 1;
            for (i, report) in log.reports.iter().enumerate() {
                let label = if several {
                    format!("{}#{}", path.display(), i + 1)
                } else {
                    path.display().to_string()
                };
                runs.push(CompareInput::tinyprofiler(label, report));
            }
        }
        InputKind::Blprof => {
            let db = Database::open(&input.path)?;
            ctx.warn_all(db.warnings());
            let mut warnings = Vec::new();
            let profile = db.base_profile(&mut warnings)?;
            ctx.warn_all(&warnings);
            if profile.is_empty() {
                anyhow::bail!(crate::Error::nothing_readable(
                    crate::Location::file(&profile.header.path),
                    "no process has a readable base block",
                ));
            }
            let summary = base_summary(&profile, 0);
            runs.push(CompareInput::function_summary(
                path.display().to_string(),
                &summary,
            ));
        }
        InputKind::TimerTree => {
            let tree = read_timer_tree_file(&input.path)?;
            ctx.warn_all(&suspicious_times(&tree, &input.path));
            runs.push(CompareInput::timer_tree(path.display().to_string(), &tree));
        }
        kind => {
            return Err(UsageError(format!(
                "{}: compare reads TinyProfiler logs, bl_prof databases and timer trees; this is a {}",
                path.display(),
                kind.name()
            ))
            .into());
        }
    }
    Ok(())
}

pub fn run(args: &CompareArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if args.min_percent.is_nan() || args.min_percent < 0.0 {
        return Err(UsageError("--min-percent must be a number ≥ 0".into()).into());
    }
    let mut runs = Vec::new();
    for path in &args.runs {
        load(path, ctx, &mut runs)?;
    }
    if runs.len() < 2 {
        return Err(UsageError("compare needs at least two runs (reports)".into()).into());
    }
    if !args.ranks.is_empty() {
        if args.ranks.len() != runs.len() {
            return Err(UsageError(format!(
                "--ranks gives {} number(s) for {} runs",
                args.ranks.len(),
                runs.len()
            ))
            .into());
        }
        for (r, n) in runs.iter_mut().zip(&args.ranks) {
            r.nprocs = Some(*n);
        }
    }
    let scaling = if args.weak {
        Scaling::Weak
    } else {
        Scaling::Strong
    };
    if scaling == Scaling::Strong
        && let Some(r) = runs.iter().find(|r| r.nprocs.is_none())
    {
        return Err(UsageError(format!(
            "{}: the number of ranks is unknown (a log without an 'MPI initialized with N MPI processes' line, or a timer tree); give --ranks, or --weak",
            r.label
        ))
        .into());
    }
    let metric = match args.metric {
        MetricArg::Inclusive => CompareMetric::Inclusive,
        MetricArg::Exclusive => CompareMetric::Exclusive,
        MetricArg::Max => CompareMetric::Max,
    };
    if let Some(r) = runs.iter().find(|r| !r.has(metric)) {
        return Err(UsageError(format!(
            "{}: a bl_prof database's base profile has exclusive times only; compare it with --metric exclusive",
            r.label
        ))
        .into());
    }
    let comparison = compare(&runs, metric, scaling, args.min_percent);
    if let Some(path) = &args.svg {
        write_file(path, |w| compare_svg(&comparison, w))?;
    }
    let report = CompareReport {
        comparison: &comparison,
        top: args.top,
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
