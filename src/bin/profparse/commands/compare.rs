//! `profparse compare RUN...`: scaling across runs of TinyProfiler logs.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use profparse::analysis::tinyprofiler::{CompareInput, CompareMetric, Scaling, compare};
use profparse::formats::{Input, InputKind, tinyprofiler};
use profparse::report::Format;
use profparse::report::compare::CompareReport;

use crate::cli::OutputArg;
use crate::context::Context;
use crate::format::Offered;
use crate::output::{UsageError, emit};

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
    /// TinyProfiler logs (job outputs), the first being the baseline. A log
    /// holding several reports gives one run per report, in order.
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
    #[arg(long = "min-percent", value_name = "P", default_value_t = 1.0)]
    pub min_percent: f64,
    /// The ranks of each run, comma-separated, for logs that do not say
    /// (a report written to tiny_profiler.output_file).
    #[arg(long, value_name = "N,N,...", value_delimiter = ',')]
    pub ranks: Vec<u64>,
    /// Keep the first N timers in the table.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &CompareArgs, _ctx: &Context) -> anyhow::Result<ExitCode> {
    if args.min_percent.is_nan() || args.min_percent < 0.0 {
        return Err(UsageError("--min-percent must be a number ≥ 0".into()).into());
    }
    let mut logs = Vec::new();
    for path in &args.runs {
        let input = Input::open(path)?;
        if input.kind != InputKind::TinyProfiler {
            return Err(UsageError(format!(
                "{}: compare reads TinyProfiler logs; this is a {}",
                path.display(),
                input.kind.name()
            ))
            .into());
        }
        logs.push((path, tinyprofiler::read(&input.path)?));
    }
    let mut runs = Vec::new();
    for (path, log) in &logs {
        let several = log.reports.len() > 1;
        for (i, report) in log.reports.iter().enumerate() {
            let label = if several {
                format!("{}#{}", path.display(), i + 1)
            } else {
                path.display().to_string()
            };
            runs.push(CompareInput {
                label,
                nprocs: report.nprocs,
                report,
            });
        }
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
            "{}: the number of ranks is unknown (no 'MPI initialized with N MPI processes' line); give --ranks, or --weak",
            r.label
        ))
        .into());
    }
    let metric = match args.metric {
        MetricArg::Inclusive => CompareMetric::Inclusive,
        MetricArg::Exclusive => CompareMetric::Exclusive,
        MetricArg::Max => CompareMetric::Max,
    };
    let comparison = compare(&runs, metric, scaling, args.min_percent);
    let report = CompareReport {
        comparison: &comparison,
        top: args.top,
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
