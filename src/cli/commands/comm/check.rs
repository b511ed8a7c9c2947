//! `profparse comm check`: the integrity check (exit code 1 on a problem).

use std::process::ExitCode;

use crate::analysis::comm::check::comm_check;
use crate::report::Format;
use crate::report::comm_check::CommCheckReport;
use clap::Args;

use super::open_comm_db;
use crate::cli::args::{DatabaseArg, OutputArg};
use crate::cli::context::{Context, EXIT_DATA};
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    db: DatabaseArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &CheckArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let (mut kept, bar) = open_comm_db(&args.db.db, ctx, "comm check")?;
    let database = &mut *kept;
    let r = comm_check(database);
    drop(bar);
    let view = CommCheckReport {
        database: args.db.db.display().to_string(),
        check: &r,
    };
    emit(&view, args.format, &args.output)?;
    if r.problems.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(EXIT_DATA))
    }
}
