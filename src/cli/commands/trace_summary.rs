//! `profparse trace-summary DB`: amrprofparser's `-wts`, with working region filters.

use std::process::ExitCode;

use crate::analysis::function_stats::SortKey;
use crate::analysis::trace_summary::trace_summary;
use crate::report::function_stats::{FunctionsReport, TraceParts};
use clap::Args;

use super::summary::TableOptions;
use super::trace_common::{open_trace_db, region_filter, selection, trace_blocks};
use crate::analysis::trace_summary::Unfiltered;
use crate::cli::args::{DatabaseArg, RegionArgs};
use crate::cli::context::Context;
use crate::cli::output::{UsageError, emit};

#[derive(Args, Debug)]
pub struct TraceSummaryArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    #[command(flatten)]
    pub regions: RegionArgs,
    #[command(flatten)]
    pub table: TableOptions,
}

pub fn run(all: &TraceSummaryArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let args = &all.table;
    let mut kept = open_trace_db(&all.db.db, ctx)?;
    let db = &mut *kept;
    let (filter, fw) = region_filter(&all.regions)?;
    ctx.warn_all(&fw);
    let nprocs = db.nprocs().unwrap_or(0);
    if args.proc as u64 >= nprocs.max(1) {
        return Err(UsageError(format!(
            "--proc {} is out of range: the database has {nprocs} process(es)",
            args.proc
        ))
        .into());
    }
    // Regions and exclusive times read every block; inclusive times read
    // the selected process's once more.
    let bar = ctx.progress(
        2 * trace_blocks(db, None) + trace_blocks(db, Some(args.proc)),
        "trace summary",
        "blocks",
    );
    db.set_progress(bar.hook());
    let (_regions, sel) = selection(db, &filter, Unfiltered::RegionSpan, ctx)?;
    let (t, warnings) = trace_summary(db, &sel, args.proc);
    drop(bar);
    ctx.warn_all(&warnings);
    let report = FunctionsReport {
        database: all.db.db.display().to_string(),
        summary: &t.summary,
        trace: Some(TraceParts {
            trace: &t,
            filter: &filter,
        }),
        sort: args.sort.map(SortKey::from),
        top: args.top,
        style: args.style(ctx),
        warnings: db
            .warnings()
            .iter()
            .chain(&db.trace_index().warnings)
            .chain(&fw)
            .chain(&warnings)
            .cloned()
            .collect(),
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
