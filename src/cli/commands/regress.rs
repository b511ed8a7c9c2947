//! `profparse regress --base A... --new B...`: did the new runs get slower,
//! timer by timer, beyond the noise? Loads every run as `diff` does, hands
//! them to [`crate::analysis::regress`], writes the report, and exits 1
//! when a timer got slower (docs/REGRESS.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::analysis::diff::Metric;
use crate::analysis::diff_input::{Side, load_side};
use crate::analysis::regress::samples::{Key, MAX_PATH_LEVELS, Missing};
use crate::analysis::regress::verdict::Thresholds;
use crate::analysis::regress::{RegressError, RegressOptions, regress};
use crate::formats::{Input, InputKind};
use crate::progress::Progress;
use crate::report::Format;
use crate::report::regress::RegressReport;
use crate::{Location, Warning};

use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{self, UsageError};

/// The exit code when a timer got slower: CI gates on it. Damaged inputs
/// exit 1 too (docs/ERRORS.md); stderr tells them apart.
const EXIT_SLOWER: u8 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SecondsArg {
    /// Exclusive seconds (a timer minus its timed children).
    Exclusive,
    /// Inclusive seconds (a timer and everything it called).
    Inclusive,
}

/// `--format` of this command.
const FORMATS: Offered = Offered(&[
    (Format::Table, "A table of the timers that changed"),
    (Format::Json, "One JSON object (docs/JSON.md)"),
    (Format::Markdown, "A comment for a pull request"),
    (
        Format::Junit,
        "JUnit XML: one test case per timer, slower = failure",
    ),
]);

#[derive(Args, Debug)]
pub struct RegressArgs {
    /// The base runs (before the change): bl_prof database directories,
    /// AMReX job logs (TinyProfiler), tlog files or timer trees, all of one
    /// kind. Shell globs expand to several (`--base main-runs/*`).
    #[arg(long, value_name = "RUN", num_args = 1.., required = true)]
    pub base: Vec<PathBuf>,
    /// The new runs (after the change), of the same kind as the base runs.
    #[arg(long, value_name = "RUN", num_args = 1.., required = true)]
    pub new: Vec<PathBuf>,
    /// Compare per call path instead of per timer name (inputs with call
    /// paths: databases with call traces, tlog files, timer trees).
    #[arg(long)]
    pub paths: bool,
    /// The seconds compared. Per run, databases and tlog files give the
    /// average over processes, as `diff` does.
    #[arg(long, value_enum, default_value_t = SecondsArg::Exclusive)]
    pub metric: SecondsArg,
    /// The noise floor: a relative change smaller than this (0.02 = 2 %) is
    /// never called slower or faster.
    #[arg(long = "min-change", value_name = "FRACTION", default_value_t = 0.02,
          value_parser = crate::cli::args::non_negative_f64)]
    pub min_change: f64,
    /// The false discovery rate: a change is significant when its q-value
    /// (Benjamini–Hochberg over all timers) is below this.
    #[arg(long, value_name = "Q", default_value_t = 0.05, value_parser = probability)]
    pub alpha: f64,
    /// List unchanged timers too (tables and Markdown; JSON and JUnit
    /// always have every timer).
    #[arg(long)]
    pub all: bool,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// `--alpha`: a number strictly between 0 and 1.
pub(crate) fn probability(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|e| format!("{s:?} is not a number: {e}"))?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("{s:?} is not between 0 and 1"))
    }
}

/// Opens every run of a group, checking that all are of `kind` (the first
/// base run's, when `kind` is `None`).
fn open_group(
    paths: &[PathBuf],
    kind: &mut Option<(InputKind, PathBuf)>,
) -> anyhow::Result<Vec<Input>> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let input = Input::open(p)?;
        match kind {
            None => *kind = Some((input.kind, p.clone())),
            Some((k, first)) if *k != input.kind => {
                return Err(UsageError(format!(
                    "cannot compare a {} ({}) with a {} ({}): all runs must be of the same kind",
                    k.name(),
                    first.display(),
                    input.kind.name(),
                    p.display()
                ))
                .into());
            }
            Some(_) => {}
        }
        out.push(input);
    }
    Ok(out)
}

/// Loads the runs of a group one after the other (each freed of its
/// mapped data before the next), showing their warnings.
fn load_group(inputs: &[Input], ctx: &Context) -> anyhow::Result<Vec<Side>> {
    inputs
        .iter()
        .map(|input| {
            let (side, warnings) = load_side(input, &|_| Progress::none());
            ctx.warn_all(&warnings);
            Ok(side?)
        })
        .collect()
}

pub fn run(args: &RegressArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut kind = None;
    let base_inputs = open_group(&args.base, &mut kind)?;
    let new_inputs = open_group(&args.new, &mut kind)?;
    let kind = kind.map_or("", |(k, _)| k.name());
    let base = load_group(&base_inputs, ctx)?;
    let new = load_group(&new_inputs, ctx)?;
    let opts = RegressOptions {
        key: if args.paths { Key::Path } else { Key::Name },
        metric: match args.metric {
            SecondsArg::Exclusive => Metric::Exclusive,
            SecondsArg::Inclusive => Metric::Inclusive,
        },
        thresholds: Thresholds {
            min_change: args.min_change,
            alpha: args.alpha,
        },
    };
    let result = regress(&base, &new, &opts).map_err(|e| match e {
        RegressError::EmptyGroup(group) => UsageError(format!("no {group} runs given")),
        RegressError::Missing { group, index, what } => {
            let runs = if group == "base" { &args.base } else { &args.new };
            let path = runs.get(index).map_or_else(String::new, |p| p.display().to_string());
            UsageError(match what {
                Missing::NoPaths => format!(
                    "{path}: this {kind} run has no call paths; compare per timer name (without --paths)"
                ),
                Missing::Nothing => format!("{path}: the run has no timers to compare"),
            })
        }
    })?;
    if result.paths_cut > 0 {
        ctx.warn(&Warning::new(
            Location::file(&args.base[0]),
            format!(
                "{} call-path node(s) deeper than {MAX_PATH_LEVELS} levels left out of the comparison",
                result.paths_cut
            ),
        ));
    }
    let shown = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect();
    let report = RegressReport {
        kind,
        base: shown(&args.base),
        new: shown(&args.new),
        all: args.all,
        warnings: ctx.warning_texts(),
        regress: result,
    };
    output::emit(&report, args.format, &args.output)?;
    Ok(if report.regress.any_slower() {
        ExitCode::from(EXIT_SLOWER)
    } else {
        ExitCode::SUCCESS
    })
}
