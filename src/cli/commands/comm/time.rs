//! `profparse comm time`: MPI time per call type, process, call path and
//! region.

use std::process::ExitCode;

use crate::analysis::comm::scope::CommScope;
use crate::analysis::comm::time::{TimeOptions, mpi_time};
use crate::analysis::regions::Regions;
use crate::formats::blprof::Part;
use crate::report::Format;
use crate::report::comm_time::MpiTimeReport;
use clap::Args;

use super::{CommSelect, open_comm_db};
use crate::cli::args::{DatabaseArg, OutputArg, RegionArgs};
use crate::cli::commands::trace_common::{region_filter, trace_blocks};
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::emit;

const FORMATS: Offered = Offered(&[
    (Format::Table, ""),
    (Format::Json, ""),
    (Format::Csv, "One row per process and call type"),
]);

#[derive(Args, Debug)]
pub struct TimeArgs {
    #[command(flatten)]
    db: DatabaseArg,
    #[command(flatten)]
    select: CommSelect,
    /// Only MPI calls entered inside the selected regions (needs call
    /// traces); their time is cut to the regions.
    #[command(flatten)]
    regions: RegionArgs,
    /// Call paths shown in the table (JSON and CSV have all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
    /// Do not read the call traces: no attribution to call paths and
    /// regions (faster on big traces).
    #[arg(long)]
    no_trace: bool,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = FORMATS)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &TimeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let (mut kept, bar) = open_comm_db(&args.db.db, ctx, "comm time")?;
    let database = &mut *kept;
    args.select.check_procs(database)?;
    let mut scope = CommScope::new(args.select.procs.clone(), args.select.window());
    let (filter, filter_warnings) = region_filter(&args.regions)?;
    ctx.warn_all(&filter_warnings);
    if !filter.is_everything() {
        database.require(Part::Trace)?;
    }
    let traced = database.parts().contains(&Part::Trace) && !args.no_trace;
    // The bar counts the comm processes and, with call traces, the trace
    // blocks the regions' pass and the attribution read.
    let bar = if traced || !filter.is_everything() {
        drop(bar);
        let procs = database.comm_index().procs.len() as u64;
        let regions = trace_blocks(database, None);
        let attributed: u64 = database
            .trace_index()
            .procs
            .iter()
            .filter(|p| args.select.procs.is_empty() || args.select.procs.contains(&p.proc))
            .map(|p| p.blocks.len() as u64)
            .sum();
        let len = procs + regions + if traced { attributed } else { 0 };
        let bar = ctx.progress(len, "comm time", "blocks");
        database.set_progress(bar.hook());
        bar
    } else {
        bar
    };
    let regions = (traced || !filter.is_everything()).then(|| {
        ctx.warn_all(&database.trace_index().warnings);
        let r = Regions::load(database);
        ctx.warn_all(&r.warnings);
        r
    });
    if let Some(r) = &regions {
        scope.filter_regions(&filter, r)?;
    }
    let opts = TimeOptions {
        regions: regions.as_ref().filter(|_| traced),
        paths: traced,
    };
    let (t, warnings) = mpi_time(database, &scope, &opts);
    drop(bar);
    ctx.warn_all(&warnings);
    let report = MpiTimeReport {
        database: args.db.db.display().to_string(),
        time: &t,
        top: args.top,
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
        region_filter: scope.filter_names(),
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
