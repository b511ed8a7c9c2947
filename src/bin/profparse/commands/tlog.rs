//! `profparse tlog …` (issue 5; placeholder until the tlog module lands).
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::context::Context;

#[derive(Args, Debug)]
pub struct TlogArgs {
    #[command(subcommand)]
    pub command: TlogCommand,
}

#[derive(Subcommand, Debug)]
pub enum TlogCommand {
    /// Dump the events of a tlog file.
    Dump {
        /// The tlog trace file.
        file: PathBuf,
    },
}

pub fn run(_args: &TlogArgs, _ctx: &Context) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not yet implemented")
}
