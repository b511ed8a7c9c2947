use std::process::ExitCode;

use clap::Args;

use crate::cli::DatabaseArg;
use crate::context::Context;

#[derive(Args, Debug)]
pub struct InfoArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
}

pub fn run(_args: &InfoArgs, _ctx: &Context) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not yet implemented")
}
