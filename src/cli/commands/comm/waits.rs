//! `profparse comm waits`: wait states (late sender, late receiver, wait
//! at barrier, wait at N×N).

use std::process::ExitCode;

use crate::analysis::comm_waits::wait_states;
use crate::formats::blprof::Part;
use crate::report::Format;
use crate::report::comm_waits::WaitsReport;
use clap::Args;

use super::regions::CommRegions;
use super::{AlignArg, CommSelect, open_comm_db};
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
    let (mut kept, bar) = open_comm_db(&args.db.db, ctx, "comm waits")?;
    let database = &mut *kept;
    args.select.check_procs(database)?;
    let (regions, bar) = CommRegions::load(&args.regions, database, ctx, bar, "comm waits")?;
    let clocks = args.align.offsets(database, ctx);
    let paths = database.parts().contains(&Part::Trace) && !args.no_trace;
    let (mut r, warnings) = wait_states(
        database,
        &args.select.selection(),
        regions.ranges(),
        &clocks,
        args.align.align_clocks,
        args.top,
        paths,
    );
    drop(bar);
    r.region_filter = regions.names();
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
