//! `profparse calltree DB`: the call-path tree (amrprofparser -html/-htmlnc intent).

use std::process::ExitCode;

use crate::analysis::callers::{self, Built, FunctionMatch, MAX_LEVELS};
use crate::analysis::calltree::{Spread, call_tree, inconsistency_warnings, process_trees};
use crate::analysis::trace_summary::Selection;
use crate::formats::blprof::Database;
use crate::model::calltree::CallTree;
use crate::report::Format;
use crate::report::calltree::focus::FocusReport;
use crate::report::calltree::folded::folded_bytes;
use crate::report::calltree::{Order, TreeReport, TreeView};
use crate::{Location, Warning};
use clap::Args;

use super::trace_common::{open_trace_db, region_filter, selection, trace_blocks};
use crate::analysis::trace_summary::Unfiltered;
use crate::cli::args::{DatabaseOrLogArg, OutputArg, RegionArgs};
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{UsageError, emit};

/// `--format` of this command.
const FORMATS: Offered = Offered(&[
    (
        Format::Text,
        "Indented text, numbers first and the call path last",
    ),
    (
        Format::Json,
        "Nested JSON (`roots` → `children`), docs/JSON.md",
    ),
    (
        Format::Folded,
        "`a;b;c <microseconds of exclusive time>` for flame graph tools",
    ),
    (
        Format::Html,
        "One self-contained page with collapsible branches",
    ),
    (
        Format::Hatchet,
        "Hatchet's literal JSON (`hatchet.GraphFrame.from_literal`): seconds averaged over processes, calls summed",
    ),
]);

#[derive(Args, Debug)]
pub struct CallTreeArgs {
    #[command(flatten)]
    pub db: DatabaseOrLogArg,
    #[command(flatten)]
    pub regions: RegionArgs,
    /// Only this process's tree (default: merged over all processes).
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Show levels 0..=N only.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Hide branches below P percent of the total inclusive time.
    #[arg(long = "min-percent", value_parser = crate::cli::args::non_negative_f64, value_name = "P", default_value_t = 0.0)]
    pub min_percent: f64,
    /// Show at most N children per node (largest inclusive time first;
    /// exclusive time in bottom-up trees).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// The bottom-up (callers) tree: roots are functions by exclusive
    /// time, below each function its callers, below them theirs; a node's
    /// time is the root function's exclusive time along that caller path
    /// (docs/TRACES.md). Text, JSON, folded, HTML.
    #[arg(long, conflicts_with = "focus")]
    pub bottom_up: bool,
    /// The callers of FUNC (its bottom-up tree) and its callees (its
    /// subtrees merged over all its call sites). FUNC is an exact name or
    /// a glob (`'FabArray*'`): one section per matching function. Text,
    /// JSON, HTML, folded (the callees' stacks).
    #[arg(long, value_name = "FUNC")]
    pub focus: Option<String>,
    /// Text: the spread over processes in full: the smallest and largest
    /// inclusive time of a node over processes and the process holding the
    /// largest (JSON always has them).
    #[arg(long)]
    pub wide: bool,
    /// How the times of merged processes are combined in text, HTML, folded
    /// stacks and the Hatchet literal: `mean` (what one process spent,
    /// typically), `sum` (the CPU time of a path) or `max` (the largest
    /// process's, per node). Calls are always summed; JSON has them all.
    #[arg(long, value_enum, default_value_t = AggregateArg::Mean, value_name = "HOW")]
    pub aggregate: AggregateArg,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// `--aggregate`: how a text tree combines merged processes' times.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateArg {
    Mean,
    Sum,
    Max,
}

impl From<AggregateArg> for crate::report::calltree::Aggregate {
    fn from(a: AggregateArg) -> Self {
        match a {
            AggregateArg::Mean => Self::Mean,
            AggregateArg::Sum => Self::Sum,
            AggregateArg::Max => Self::Max,
        }
    }
}

pub fn run(args: &CallTreeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if super::tinyprofiler::is_log(&args.db.db) {
        return super::tinyprofiler::calltree(args);
    }
    check_callers_format(args)?;
    let mut kept = open_trace_db(&args.db.db, ctx)?;
    let db = &mut *kept;
    if let Some(p) = args.proc
        && !db.trace_index().procs.iter().any(|t| t.proc == p)
    {
        return Err(UsageError(format!("--proc {p}: no call traces for that process")).into());
    }
    let (filter, fw) = region_filter(&args.regions)?;
    ctx.warn_all(&fw);
    // Regions (every block, when a filter needs them), then the calls of
    // the processes in the tree.
    let region_blocks = if filter.is_everything() {
        0
    } else {
        trace_blocks(db, None)
    };
    let bar = ctx.progress(
        region_blocks + trace_blocks(db, args.proc),
        "call tree",
        "blocks",
    );
    db.set_progress(bar.hook());
    let (_regions, sel) = selection(db, &filter, Unfiltered::Everything, ctx)?;
    let view = TreeView {
        max_depth: args.depth,
        min_percent: args.min_percent,
        top: args.top,
        nprocs: 0,
        order: Order::Inclusive,
        wide: args.wide,
        width: args.output.text_width(args.wide),
        aggregate: args.aggregate.into(),
    };
    if args.bottom_up || args.focus.is_some() {
        return callers_report(args, db, &sel, view, bar, ctx);
    }
    let (tree, nprocs, warnings) = call_tree(db, &sel, args.proc);
    drop(bar);
    ctx.warn_all(&warnings);
    ctx.warn_all(&inconsistency_warnings(&tree, &Location::file(db.dir())));
    let report = TreeReport {
        tree: &tree,
        view: TreeView { nprocs, ..view },
        proc: args.proc,
        source: Some(args.db.db.display().to_string()),
    };
    guard_folded(&report, args.format, ctx)?;
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}

/// Folded stacks hold each node's whole path: refused past the output
/// limit, as other listings that grow faster than the data (also `tlog
/// tree`'s).
fn guard_folded(report: &TreeReport, format: Format, ctx: &Context) -> anyhow::Result<()> {
    guard_folded_with(
        report,
        format,
        ctx,
        "`--depth N` keeps the outer levels and `--min-percent` the big nodes",
    )
}

/// [`guard_folded`] with the command's own `advice`.
pub(crate) fn guard_folded_with(
    report: &TreeReport,
    format: Format,
    ctx: &Context,
    advice: &str,
) -> anyhow::Result<()> {
    if format != Format::Folded {
        return Ok(());
    }
    ctx.guard_output(
        folded_bytes(report.tree, &report.view),
        "these folded stacks",
        advice,
    )
}

/// `--bottom-up` and `--focus` offer no Hatchet literal: its metrics are
/// a top-down tree's (`time (inc)` of a call path).
fn check_callers_format(args: &CallTreeArgs) -> Result<(), UsageError> {
    // A caller path's own time is a difference of sums: its largest
    // process's is not kept.
    if args.bottom_up && args.format == Format::Folded && args.aggregate == AggregateArg::Max {
        return Err(UsageError(
            "--bottom-up --format folded offers --aggregate mean or sum, not max".into(),
        ));
    }
    let (flag, offered): (&str, &[Format]) = if args.bottom_up {
        (
            "--bottom-up",
            &[Format::Text, Format::Json, Format::Folded, Format::Html],
        )
    } else if args.focus.is_some() {
        (
            "--focus",
            &[Format::Text, Format::Json, Format::Folded, Format::Html],
        )
    } else {
        return Ok(());
    };
    if offered.contains(&args.format) {
        return Ok(());
    }
    let names: Vec<&str> = offered.iter().map(|f| f.name()).collect();
    Err(UsageError(format!(
        "{flag} offers --format {}, not {}",
        names.join(", "),
        args.format.name()
    )))
}

/// `--bottom-up` and `--focus`: built from each process's tree, then
/// merged over processes as the top-down tree is.
fn callers_report(
    args: &CallTreeArgs,
    db: &Database,
    sel: &Selection,
    view: TreeView,
    bar: crate::cli::progress::Bar<'_>,
    ctx: &Context,
) -> anyhow::Result<ExitCode> {
    let (trees, warnings) = process_trees(db, sel, args.proc);
    drop(bar);
    ctx.warn_all(&warnings);
    let view = TreeView {
        nprocs: trees.len(),
        ..view
    };
    let source = Some(args.db.db.display().to_string());
    let warn_cut = |built: &Built<Spread>, what: &str| {
        if built.cut {
            ctx.warn(&Warning::note(
                Location::file(db.dir()),
                format!("{what} deeper than {MAX_LEVELS} levels are cut there"),
            ));
        }
    };
    if args.bottom_up {
        let up = callers::merged(&trees, |t| callers::bottom_up(t, &|_| true));
        drop(trees);
        warn_cut(&up, "caller paths");
        let report = TreeReport {
            tree: &up.tree,
            view: TreeView {
                order: Order::Exclusive,
                ..view
            },
            proc: args.proc,
            source,
        };
        guard_folded(&report, args.format, ctx)?;
        emit(&report, args.format, &args.output)?;
    } else {
        let (up, down) = focus_trees(args, &trees)?;
        drop(trees);
        warn_cut(&up, "caller paths");
        warn_cut(&down, "callee paths");
        let report = FocusReport {
            callers: &up.tree,
            callees: &down.tree,
            view,
            proc: args.proc,
            source,
        };
        emit(&report, args.format, &args.output)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The callers' and callees' trees of the functions `--focus` names; a
/// usage error when it names none.
fn focus_trees(
    args: &CallTreeArgs,
    trees: &[(usize, CallTree)],
) -> anyhow::Result<(Built<Spread>, Built<Spread>)> {
    let pattern = args.focus.as_deref().unwrap_or_default();
    let wanted = FunctionMatch::new(pattern);
    let keep = |name: &str| wanted.matches(name);
    let up = callers::merged(trees, |t| callers::bottom_up(t, &keep));
    let down = callers::merged(trees, |t| callers::callees(t, &keep));
    if no_roots(&up.tree) && no_roots(&down.tree) {
        return Err(UsageError(format!(
            "--focus {pattern:?}: no function of the call traces has that name or matches that pattern"
        ))
        .into());
    }
    Ok((up, down))
}

fn no_roots(tree: &CallTree<Spread>) -> bool {
    tree.node(tree.root()).children().is_empty()
}
