//! `profparse check DB`: the integrity of every part of a database.

use std::process::ExitCode;

use crate::analysis::check::check_database;
use crate::report::Format;
use crate::report::check::CheckReport;
use clap::Args;

use crate::cli::args::{DatabaseArg, OutputArg};
use crate::cli::context::{Context, EXIT_DATA};
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// The problems are the report, not warnings: exit 1 when there are any,
/// 0 when the database is clean or has notes only.
pub fn run(args: &CheckArgs, _ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut kept = super::open_database(&args.db.db)?;
    let db = &mut *kept;
    let check = check_database(db);
    let report = CheckReport {
        database: args.db.db.display().to_string(),
        check: &check,
    };
    emit(&report, args.format, &args.output)?;
    Ok(if check.problems() > 0 {
        ExitCode::from(EXIT_DATA)
    } else {
        ExitCode::SUCCESS
    })
}
