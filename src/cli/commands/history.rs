//! `profparse history RUN...`: each timer's time over a series of runs of
//! one job, and the steps in it (docs/REGRESS.md). Loads the runs in
//! parallel as `regress` does, hands their figures to
//! [`crate::analysis::history`], writes the report, the chart and the
//! page (which `report RUN RUN...` writes too: [`page`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, FromArgMatches};
use rayon::prelude::*;

use crate::analysis::diff::Metric;
use crate::analysis::diff_input::load_side;
use crate::analysis::history::change_points::Options;
use crate::analysis::history::history;
use crate::analysis::regress::samples::{Key, Missing, RunFigures, run_figures};
use crate::formats::{Input, InputKind};
use crate::progress::Progress;
use crate::report::Format;
use crate::report::history::{HistoryReport, html, svg};
use crate::{Location, Warning};

use super::regress::{SecondsArg, probability};
use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{self, UsageError, write_file};

/// `--format` of this command.
const FORMATS: Offered = Offered(&[
    (Format::Table, "The steps found, a row each"),
    (Format::Json, "One JSON object (docs/JSON.md)"),
    (Format::Csv, "One row per timer and run: the series"),
]);

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// The runs, oldest first: job logs (TinyProfiler), bl_prof databases,
    /// tlog files or timer trees, all of one kind; or one directory holding
    /// them. Ordered by name (numbers in names by value: run2 before
    /// run10) unless --keep-order; no input kind records when it ran.
    #[arg(value_name = "RUN", required = true)]
    pub runs: Vec<PathBuf>,
    /// Keep the runs in the order given.
    #[arg(long = "keep-order")]
    pub keep_order: bool,
    /// Per call path instead of per timer name (inputs with call paths).
    #[arg(long)]
    pub paths: bool,
    /// The seconds followed. Per run, databases and tlog files give the
    /// average over processes, as `diff` does.
    #[arg(long, value_enum, default_value_t = SecondsArg::Exclusive)]
    pub metric: SecondsArg,
    /// The noise floor: a step smaller than this (0.02 = 2 %) is not one.
    #[arg(long = "min-change", value_name = "FRACTION", default_value_t = 0.02,
          value_parser = crate::cli::args::non_negative_f64)]
    pub min_change: f64,
    /// Largest p of a step (rank-sum test of the runs before against the
    /// runs after).
    #[arg(long, value_name = "P", default_value_t = 0.001, value_parser = probability)]
    pub alpha: f64,
    /// Runs per window when looking for steps (at least 4).
    #[arg(long, value_name = "RUNS", default_value_t = 50,
          value_parser = clap::value_parser!(u32).range(4..=100_000))]
    pub window: u32,
    /// Tables list steady timers too.
    #[arg(long)]
    pub all: bool,
    /// Draw the series of the top timers (those with steps first) as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write a self-contained HTML page: the runs, then each top timer's
    /// series (chart) and a table of its steps.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Timers drawn by --svg and --html.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub top: usize,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// The runs: those given, or the entries of the one directory given when
/// it is not a run itself (entries that are no input are left out, with a
/// warning), in series order.
fn series_of(args: &HistoryArgs, ctx: &Context) -> anyhow::Result<Vec<PathBuf>> {
    let mut runs = args.runs.clone();
    if let [dir] = runs.as_slice()
        && dir.is_dir()
        && Input::open(dir).is_err()
    {
        let entries = std::fs::read_dir(dir).map_err(|e| crate::Error::io(dir, e))?;
        let mut found = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| crate::Error::io(dir, e))?.path();
            if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            {
                continue;
            }
            match Input::open(&path) {
                Ok(_) => found.push(path),
                Err(e) => ctx.warn(&Warning::new(
                    Location::file(&path),
                    format!("not a run, left out: {e}"),
                )),
            }
        }
        if found.is_empty() {
            return Err(UsageError(format!("{}: no runs in this directory", dir.display())).into());
        }
        runs = found;
    }
    if !args.keep_order {
        runs.sort_by(|a, b| natural_order(a, b));
    }
    Ok(runs)
}

/// Paths by name, with runs of digits compared by value (`run2` before
/// `run10`).
fn natural_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (a, b) = (a.to_string_lossy(), b.to_string_lossy());
    let chunks = |s: &str| -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for c in s.chars() {
            let digit = c.is_ascii_digit();
            match out.last_mut() {
                Some((d, chunk)) if *d == digit => chunk.push(c),
                _ => out.push((digit, c.to_string())),
            }
        }
        out
    };
    let key = |(digit, chunk): &(bool, String)| {
        let trimmed = chunk.trim_start_matches('0');
        if *digit {
            (trimmed.len(), trimmed.to_owned())
        } else {
            (0, chunk.clone())
        }
    };
    chunks(&a)
        .iter()
        .map(key)
        .cmp(chunks(&b).iter().map(key))
        .then_with(|| a.cmp(&b))
}

/// Loads one run and keeps only its figure per timer (the run's data is
/// freed before the next is loaded on this thread).
fn figures(
    path: &Path,
    key: Key,
    metric: Metric,
) -> (anyhow::Result<(InputKind, RunFigures)>, Vec<Warning>) {
    let input = match Input::open(path) {
        Ok(input) => input,
        Err(e) => return (Err(e.into()), Vec::new()),
    };
    let (side, warnings) = load_side(&input, &|_| Progress::none());
    let result = side.map_err(anyhow::Error::from).and_then(|side| {
        run_figures(&side, key, metric)
            .map(|f| (input.kind, f))
            .map_err(|m| {
                UsageError(match m {
                    Missing::NoPaths => format!(
                        "{}: this {} run has no call paths; follow timer names (without --paths)",
                        path.display(),
                        input.kind.name()
                    ),
                    Missing::Nothing => format!("{}: the run has no timers", path.display()),
                })
                .into()
            })
    });
    (result, warnings)
}

pub fn run(args: &HistoryArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let report = load(args, ctx)?;
    if let Some(path) = &args.svg {
        write_file(path, |w| svg::write(&report, args.top, w))?;
    }
    if let Some(path) = &args.html {
        write_file(path, |w| html::write_page(&report, args.top, w))?;
    }
    output::emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}

/// `report RUN RUN...`: the page of `history RUN... --html`, with
/// history's defaults (and `--top` when given), to `output`.
pub fn page(
    runs: &[PathBuf],
    top: Option<usize>,
    output: &OutputArg,
    ctx: &Context,
) -> anyhow::Result<ExitCode> {
    // Parsed by history's own definition, so that every default is
    // history's; `--` keeps a run named like an option a run.
    let mut argv: Vec<std::ffi::OsString> = vec!["history".into()];
    if let Some(top) = top {
        argv.extend(["--top".into(), top.to_string().into()]);
    }
    argv.push("--".into());
    argv.extend(runs.iter().map(|p| p.as_os_str().to_owned()));
    let command = HistoryArgs::augment_args(clap::Command::new("history"));
    let args = HistoryArgs::from_arg_matches(&command.try_get_matches_from(argv)?)?;
    let report = load(&args, ctx)?;
    let mut out = output::open(output.output.as_deref())?;
    html::write_page(&report, args.top, &mut out)?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Loads the runs and finds the steps.
fn load(args: &HistoryArgs, ctx: &Context) -> anyhow::Result<HistoryReport> {
    let runs = series_of(args, ctx)?;
    let key = if args.paths { Key::Path } else { Key::Name };
    let metric = match args.metric {
        SecondsArg::Exclusive => Metric::Exclusive,
        SecondsArg::Inclusive => Metric::Inclusive,
    };
    let loaded: Vec<_> = runs.par_iter().map(|p| figures(p, key, metric)).collect();
    let mut kind: Option<(InputKind, &PathBuf)> = None;
    let mut all = Vec::with_capacity(loaded.len());
    let mut cut = 0;
    for ((result, warnings), path) in loaded.into_iter().zip(&runs) {
        ctx.warn_all(&warnings);
        let (k, (figures, deep)) = result?;
        match kind {
            None => kind = Some((k, path)),
            Some((first, first_path)) if first != k => {
                return Err(UsageError(format!(
                    "{} is a {} and {} a {}: all runs must be of the same kind",
                    first_path.display(),
                    first.name(),
                    path.display(),
                    k.name()
                ))
                .into());
            }
            Some(_) => {}
        }
        cut += deep;
        all.push(figures);
    }
    if cut > 0 {
        ctx.warn(&Warning::new(
            Location::file(&runs[0]),
            format!("{cut} call-path node(s) deeper than the paths kept were left out"),
        ));
    }
    let options = Options {
        alpha: args.alpha,
        min_change: args.min_change,
        window: args.window as usize,
    };
    Ok(HistoryReport {
        kind: kind.map_or("", |(k, _)| k.name()),
        metric: metric.name(),
        by_path: args.paths,
        runs: runs.iter().map(|p| p.display().to_string()).collect(),
        history: history(&all, &options),
        all: args.all,
        warnings: ctx.warning_texts(),
    })
}
