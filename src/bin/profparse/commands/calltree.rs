//! `profparse calltree DB`: the call-path tree (amrprofparser -html/-htmlnc intent).

use std::process::ExitCode;

use clap::Args;
use profparse::analysis::calltree::{call_tree, inconsistent_nodes};
use profparse::report::Format;
use profparse::report::calltree::{TreeReport, TreeView};
use profparse::{Location, Warning};

use super::trace_common::{open_trace_db, region_filter, selection, trace_blocks};
use crate::cli::{DatabaseArg, OutputArg, RegionArgs};
use crate::context::Context;
use crate::format::Offered;
use crate::output::{UsageError, emit};
use profparse::analysis::trace_summary::Unfiltered;

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
    pub db: DatabaseArg,
    #[command(flatten)]
    pub regions: RegionArgs,
    /// Only this process's tree (default: merged over all processes).
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Show levels 0..=N only.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Hide branches below P percent of the total inclusive time.
    #[arg(long = "min-percent", value_parser = crate::cli::non_negative_f64, value_name = "P", default_value_t = 0.0)]
    pub min_percent: f64,
    /// Show at most N children per node (largest inclusive time first).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &CallTreeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if super::tinyprofiler::is_log(&args.db.db) {
        return super::tinyprofiler::calltree(args);
    }
    let db = open_trace_db(&args.db.db, ctx)?;
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
    let (tree, nprocs, warnings) = call_tree(db, &sel, args.proc);
    drop(bar);
    ctx.warn_all(&warnings);
    for id in inconsistent_nodes(&tree) {
        ctx.warn(&Warning::new(
            Location::file(db.dir()),
            format!(
                "call path {}: inclusive time is less than its children's",
                tree.path(id).join(" > ")
            ),
        ));
    }
    let view = TreeView {
        max_depth: args.depth,
        min_percent: args.min_percent,
        top: args.top,
        nprocs,
    };
    let report = TreeReport {
        tree: &tree,
        view,
        proc: args.proc,
        source: Some(args.db.db.display().to_string()),
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
