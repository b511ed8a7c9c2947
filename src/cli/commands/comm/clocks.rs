//! `profparse comm clocks`: the clock offsets `--align-clocks` applies.

use std::process::ExitCode;

use crate::analysis::comm::clocks::estimate;
use crate::report::Format;
use crate::report::comm_clocks::ClocksReport;
use clap::Args;

use super::open_comm_db;
use crate::cli::args::{DatabaseArg, OutputArg};
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct ClocksArgs {
    #[command(flatten)]
    db: DatabaseArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &ClocksArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let (mut kept, bar) = open_comm_db(&args.db.db, ctx, "comm clocks")?;
    let database = &mut *kept;
    let (c, warnings) = estimate(database);
    drop(bar);
    ctx.warn_all(&warnings);
    emit(&ClocksReport(&c), args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
