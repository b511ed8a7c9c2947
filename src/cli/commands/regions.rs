//! `profparse regions DB`: regions and their time ranges.

use std::process::ExitCode;

use crate::analysis::filter::write_filter_file;
use crate::analysis::regions::{Regions, region_stats};
use crate::report::Format;
use crate::report::regions::RegionsReport;
use clap::Args;

use super::trace_common::open_trace_db;
use crate::cli::args::{DatabaseArg, OutputArg};
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::{UsageError, emit};

#[derive(Args, Debug)]
pub struct RegionsArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Also list this process's ranges, in time order.
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Write an amrprofparser RegionFilters template listing every region
    /// (edit it, then pass it with --filter-file).
    #[arg(long = "write-filter-file", value_name = "F")]
    pub write_filter_file: Option<std::path::PathBuf>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &RegionsArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut kept = open_trace_db(&args.db.db, ctx)?;
    let db = &mut *kept;
    let regions = Regions::load(db);
    ctx.warn_all(&regions.warnings);
    let proc =
        match args.proc {
            Some(p) => Some(regions.proc(p).ok_or_else(|| {
                UsageError(format!("--proc {p}: no call traces for that process"))
            })?),
            None => None,
        };
    if let Some(path) = &args.write_filter_file {
        crate::cli::output::write_file(path, |f| write_filter_file(f, &regions))?;
    }
    let stats = region_stats(&regions);
    let names = |n: i32| regions.name(n);
    let report = RegionsReport {
        database: args.db.db.display().to_string(),
        stats: &stats,
        nprocs: regions.procs.len(),
        proc,
        names: &names,
        warnings: db
            .trace_index()
            .warnings
            .iter()
            .chain(&regions.warnings)
            .cloned()
            .collect(),
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
