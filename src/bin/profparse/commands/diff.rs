//! `profparse diff A B`: two runs compared node by node (call paths) and,
//! for bl_prof databases, function by function.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use profparse::analysis::base_summary::base_summary;
use profparse::analysis::calltree::{call_tree, merge_trees};
use profparse::analysis::diff::{
    DiffOptions, DiffSort, Metric, diff_trees, function_metrics, spread_metrics, timing_metrics,
};
use profparse::analysis::tlog_summary::{EventNames, Trees, summarize};
use profparse::analysis::trace_summary::Selection;
use profparse::formats::blprof::{Database, Part};
use profparse::formats::timertree::{read_timer_tree_file, suspicious_times};
use profparse::formats::tlog::TlogFile;
use profparse::formats::{Input, InputKind};
use profparse::model::calltree::{CallTree, Metrics};
use profparse::report::Format;
use profparse::report::diff::{DiffReport, RunInfo, write_json, write_text};
use profparse::{Error, Location, Warning};

use super::trace_common::trace_blocks;
use crate::cli::OutputArg;
use crate::context::Context;
use crate::format::Offered;
use crate::output::{self, UsageError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    /// Inclusive seconds (a node and everything it called).
    Inclusive,
    /// Exclusive seconds (a node minus its timed children).
    Exclusive,
    /// Number of calls.
    Calls,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// B − A, largest increase first.
    Diff,
    /// |B − A|, largest first.
    Abs,
    /// |B − A| / A, largest first; nodes new in B first.
    Rel,
    /// By call path.
    Name,
}

/// `--format` of this command.
const FORMATS: Offered = Offered(&[
    (
        Format::Text,
        "Tables: call tree, then functions (databases)",
    ),
    (Format::Json, "One JSON object (docs/JSON.md)"),
]);

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first run (the baseline): a bl_prof database directory, a tlog
    /// file or a serialized timer tree (JSON/XML).
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second run, of the same kind as A.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// The figure compared. Databases and tlog files: seconds are averages
    /// over processes, calls are sums.
    #[arg(long, value_enum, default_value_t = MetricArg::Inclusive)]
    pub metric: MetricArg,
    /// Row order (default: largest |B − A| first).
    #[arg(long, value_enum, default_value_t = SortArg::Abs)]
    pub sort: SortArg,
    /// Keep the first N rows of each table.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Keep rows whose |B − A| is at least this (seconds; calls for --metric calls).
    #[arg(long = "min-diff", value_name = "SECONDS", default_value_t = 0.0)]
    pub min_diff: f64,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// One side, ready to compare.
struct Side {
    info: RunInfo,
    tree: Option<CallTree<Metrics>>,
    functions: Option<CallTree<Metrics>>,
}

fn load_blprof(arg: &Path, dir: &Path, ctx: &Context) -> anyhow::Result<Side> {
    // Freed before the other side is read (both kept would hold both sides'
    // mapped data), unlike the one database of other commands.
    let mut db = Database::open(dir)?;
    let db = &mut db;
    ctx.warn_all(db.warnings());
    let parts = db.parts();
    let mut nprocs = None;
    let tree = if parts.contains(&Part::Trace) {
        ctx.warn_all(&db.trace_index().warnings);
        // Every call counts: no region filter, so no regions pass either.
        let bar = ctx.progress(
            trace_blocks(db, None),
            &format!("diff {}", arg.display()),
            "blocks",
        );
        db.set_progress(bar.hook());
        let sel = Selection { ranges: None };
        let (tree, n, warnings) = call_tree(db, &sel, None);
        drop(bar);
        ctx.warn_all(&warnings);
        nprocs = Some(n);
        Some(spread_metrics(&tree, n))
    } else {
        None
    };
    let functions = if parts.contains(&Part::Base) {
        let mut warnings = Vec::new();
        let profile = db.base_profile(&mut warnings)?;
        ctx.warn_all(&warnings);
        if profile.is_empty() {
            ctx.warn(&Warning::new(
                Location::file(&profile.header.path),
                "no process has a readable base block; functions not compared",
            ));
            None
        } else {
            let s = base_summary(&profile, 0);
            nprocs = nprocs.or(Some(s.nprocs));
            Some(function_metrics(&s))
        }
    } else {
        None
    };
    if tree.is_none() && functions.is_none() {
        return Err(Error::NotFound(format!(
            "{}: the database has neither call traces nor a base profile to compare",
            dir.display()
        ))
        .into());
    }
    Ok(Side {
        info: RunInfo {
            path: arg.display().to_string(),
            nprocs,
        },
        tree,
        functions,
    })
}

fn load_tlog(path: &Path, ctx: &Context) -> anyhow::Result<Side> {
    let mut t = TlogFile::open(path)?;
    ctx.warn_all(t.warnings());
    if t.looks_like_garbage() {
        return Err(Error::invalid(
            Location::file(path),
            "does not look like a tlog trace (see the warnings above)",
        )
        .into());
    }
    let blocks: u64 = t.procs().map(|p| t.proc_blocks(p).len() as u64).sum();
    let bar = ctx.progress(blocks, &format!("diff {}", path.display()), "blocks");
    t.set_progress(bar.hook());
    let s = summarize(&t, &EventNames::default(), Trees::Build);
    drop(bar);
    ctx.warn_all(&s.warnings);
    let trees: Vec<(usize, CallTree)> = s.trees.into_iter().map(|(p, t)| (p as usize, t)).collect();
    let n = trees.len();
    Ok(Side {
        info: RunInfo {
            path: path.display().to_string(),
            nprocs: Some(n),
        },
        tree: Some(spread_metrics(&merge_trees(&trees), n)),
        functions: None,
    })
}

fn load_timer_tree(path: &Path, ctx: &Context) -> anyhow::Result<Side> {
    let tree = read_timer_tree_file(path)?;
    ctx.warn_all(&suspicious_times(&tree, path));
    Ok(Side {
        info: RunInfo {
            path: path.display().to_string(),
            nprocs: None,
        },
        tree: Some(timing_metrics(&tree)),
        functions: None,
    })
}

pub fn run(args: &DiffArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let Input { kind: ka, path: pa } = Input::open(&args.a)?;
    let Input { kind: kb, path: pb } = Input::open(&args.b)?;
    if ka != kb {
        return Err(UsageError(format!(
            "cannot compare a {} ({}) with a {} ({}): A and B must be of the same kind",
            ka.name(),
            args.a.display(),
            kb.name(),
            args.b.display()
        ))
        .into());
    }
    if args.min_diff.is_nan() || args.min_diff < 0.0 {
        return Err(UsageError("--min-diff must be a number ≥ 0".into()).into());
    }
    let load = |arg: &Path, p: &Path| match ka {
        InputKind::Blprof => load_blprof(arg, p, ctx),
        InputKind::Tlog => load_tlog(p, ctx),
        InputKind::TimerTree => load_timer_tree(p, ctx),
    };
    let a = load(&args.a, &pa)?;
    let b = load(&args.b, &pb)?;
    let opts = DiffOptions {
        metric: match args.metric {
            MetricArg::Inclusive => Metric::Inclusive,
            MetricArg::Exclusive => Metric::Exclusive,
            MetricArg::Calls => Metric::Calls,
        },
        sort: match args.sort {
            SortArg::Diff => DiffSort::Diff,
            SortArg::Abs => DiffSort::Abs,
            SortArg::Rel => DiffSort::Rel,
            SortArg::Name => DiffSort::Name,
        },
        top: args.top,
        min_diff: args.min_diff,
    };
    let pair =
        |x: &Option<CallTree<Metrics>>, y: &Option<CallTree<Metrics>>, what: &str| match (x, y) {
            (Some(x), Some(y)) => Some(diff_trees(x, y, &opts)),
            (None, None) => None,
            _ => {
                ctx.warn(&Warning::new(
                    Location::file(if x.is_none() { &args.a } else { &args.b }),
                    format!("no {what} in this run; {what} not compared"),
                ));
                None
            }
        };
    let calltree = pair(&a.tree, &b.tree, "call traces");
    let functions = pair(&a.functions, &b.functions, "base profile");
    if calltree.is_none() && functions.is_none() {
        return Err(Error::NotFound(
            "the two databases have no part in common to compare (call traces or base profile)"
                .into(),
        )
        .into());
    }
    let report = DiffReport {
        kind: ka.name(),
        a: a.info,
        b: b.info,
        metric: opts.metric,
        sort: opts.sort,
        decimals: if ka == InputKind::Tlog { 6 } else { 4 },
        calltree,
        functions,
    };
    let mut text = Vec::new();
    match args.format {
        Format::Text => write_text(&mut text, &report, ctx.table_style(&args.output))?,
        Format::Json => write_json(&mut text, &report, &ctx.warning_texts())?,
        other => return Err(crate::format::unoffered(other)),
    }
    let mut out = output::open(args.output.output.as_deref())?;
    out.write_all(&text)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
