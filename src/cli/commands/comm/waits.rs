//! `profparse comm waits`: wait states (late sender, late receiver, wait
//! at barrier, wait at N×N).

use std::process::ExitCode;

use crate::analysis::comm::clocks::estimate_logging_pairs;
use crate::analysis::comm::waits::wait_states;
use crate::formats::blprof::Part;
use crate::report::Format;
use crate::report::comm_waits::WaitsReport;
use clap::Args;

use super::{AlignArg, CommSelect, Opened, ScopeFlags, open_comm};
use crate::cli::args::{DatabaseArg, OutputArg, RegionArgs};
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct WaitsArgs {
    #[command(flatten)]
    db: DatabaseArg,
    #[command(flatten)]
    select: CommSelect,
    #[command(flatten)]
    regions: RegionArgs,
    #[command(flatten)]
    align: AlignArg,
    /// The longest waits listed, and the call paths in the table.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,
    /// Do not read the call traces: no waits per call path.
    #[arg(long)]
    no_trace: bool,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &WaitsArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let flags = ScopeFlags {
        select: Some(&args.select),
        regions: Some(&args.regions),
        ..Default::default()
    };
    let Opened { db, mut scope, bar } = open_comm(&args.db.db, flags, ctx, "comm waits")?;
    // The clocks as `open_comm` aligns them (its last step), keeping the
    // estimate's pairing for the waits to replay when it is theirs.
    if args.align.align_clocks {
        let (offsets, pairs, warnings) = estimate_logging_pairs(&db, scope.pairs_loggable());
        ctx.warn_all(&warnings);
        scope.align_clocks_with_pairs(offsets, pairs);
    }
    let paths = db.parts().contains(&Part::Trace) && !args.no_trace;
    let (r, warnings) = wait_states(&db, &scope, args.top, paths);
    drop(bar);
    ctx.warn_all(&warnings);
    emit(
        &WaitsReport {
            waits: &r,
            top_paths: args.top,
        },
        args.format,
        &args.output,
    )?;
    Ok(ExitCode::SUCCESS)
}
