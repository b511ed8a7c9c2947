//! `profparse calltree DB`: the call-path tree (amrprofparser -html/-htmlnc intent).
//!
//! [`args`] holds the arguments and their conversion to the tree view,
//! [`callers`] the bottom-up and focus trees; a TinyProfiler log goes to
//! [`super::tinyprofiler`]. This file runs the top-down tree of a bl_prof
//! database, the default.

mod args;
mod callers;

pub use args::{AggregateArg, CallTreeArgs};

use std::process::ExitCode;

use crate::Location;
use crate::analysis::calltree::{call_tree, inconsistency_warnings};
use crate::analysis::trace_summary::Unfiltered;
use crate::report::Format;
use crate::report::calltree::folded::folded_bytes;
use crate::report::calltree::{TreeReport, TreeView};

use super::trace_common::{open_trace_db, region_filter, selection, trace_blocks};
use crate::cli::context::Context;
use crate::cli::output::{UsageError, emit};

/// Runs `calltree`: the TinyProfiler log's flat profile, the callers'
/// trees, or the call-path tree of a database.
pub fn run(args: &CallTreeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if super::tinyprofiler::is_log(&args.db.db) {
        return super::tinyprofiler::calltree(args);
    }
    args.check_callers_format()?;
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
    let view = args.view();
    if args.bottom_up || args.focus.is_some() {
        return callers::report(args, db, &sel, view, bar, ctx);
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
pub(super) fn guard_folded(
    report: &TreeReport,
    format: Format,
    ctx: &Context,
) -> anyhow::Result<()> {
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
