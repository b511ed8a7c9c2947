//! `profparse info DB`.

use std::process::ExitCode;

use crate::analysis::info::database_info;
use crate::report::Format;
use crate::report::info::InfoReport;
use clap::Args;

use crate::cli::args::{DatabaseOrLogArg, OutputArg};
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct InfoArgs {
    #[command(flatten)]
    pub db: DatabaseOrLogArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &InfoArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if super::tinyprofiler::is_log(&args.db.db) {
        return super::tinyprofiler::info(&args.db.db, args.format, &args.output);
    }
    let mut kept = super::open_database(&args.db.db)?;
    let db = &mut *kept;
    let info = database_info(db);
    let mut warnings = db.warnings().to_vec();
    if info.trace.is_some() {
        warnings.extend(db.trace_index().warnings.iter().cloned());
    }
    if info.comm.is_some() {
        warnings.extend(db.comm_index().warnings.iter().cloned());
    }
    ctx.warn_all(&warnings);
    let report = InfoReport {
        info: &info,
        warnings: &warnings,
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
