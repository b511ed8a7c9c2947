//! `profparse tree …` (issue 6; placeholder).
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::context::Context;

#[derive(Args, Debug)]
pub struct TreeArgs {
    #[command(subcommand)]
    pub command: TreeCommand,
}

#[derive(Subcommand, Debug)]
pub enum TreeCommand {
    /// Print a serialized timer tree.
    Show {
        /// A serialized timer tree file.
        file: PathBuf,
    },
}

pub fn run(_args: &TreeArgs, _ctx: &Context) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not yet implemented")
}
