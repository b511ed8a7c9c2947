//! `profparse info DB`.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use profparse::analysis::info::database_info;
use profparse::report::Format;
use profparse::report::{json, table};

use crate::cli::{DatabaseArg, OutputArg};
use crate::context::Context;
use crate::format::TABLE_JSON;
use crate::output;

#[derive(Args, Debug)]
pub struct InfoArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &InfoArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let db = super::open_database(&args.db.db)?;
    let info = database_info(db);
    let mut warnings = db.warnings().to_vec();
    if info.trace.is_some() {
        warnings.extend(db.trace_index().warnings.iter().cloned());
    }
    if info.comm.is_some() {
        warnings.extend(db.comm_index().warnings.iter().cloned());
    }
    ctx.warn_all(&warnings);
    let mut out = output::open(args.output.output.as_deref())?;
    match args.format {
        Format::Table => table::write_info(&mut out, &info, ctx.table_style(&args.output))?,
        Format::Json => json::write_info(&mut out, &info, &warnings)?,
        other => return Err(crate::format::unoffered(other)),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
