//! `profparse comm stats`.

use std::process::ExitCode;

use crate::analysis::comm::stats::comm_stats;
use crate::report::Format;
use crate::report::comm_stats::CommStatsReport;
use clap::Args;

use super::{CommSelect, Opened, ScopeFlags, open_comm};
use crate::cli::args::{DatabaseArg, OutputArg, RegionArgs};
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    db: DatabaseArg,
    #[command(flatten)]
    select: CommSelect,
    #[command(flatten)]
    regions: RegionArgs,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &StatsArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let flags = ScopeFlags {
        select: Some(&args.select),
        regions: Some(&args.regions),
        ..Default::default()
    };
    let Opened { db, scope, bar } = open_comm(&args.db.db, flags, ctx, "comm stats")?;
    let (s, warnings) = comm_stats(&db, &scope);
    drop(bar);
    ctx.warn_all(&warnings);
    ctx.info(
        1,
        format!(
            "read {} comm blocks ({} bytes), skipped {} outside the selection or empty",
            s.blocks_read, s.bytes_read, s.blocks_skipped
        ),
    );
    let report = CommStatsReport {
        database: args.db.db.display().to_string(),
        header: db.comm.as_ref(),
        stats: &s,
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
