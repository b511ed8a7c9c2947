//! `profparse completions SHELL`: a completion script generated from the
//! clap definition (so it never falls behind the commands).

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::cli::args::{Cli, OutputArg};
use crate::cli::output;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = Cli::command();
    // clap_complete panics on write errors: generate into memory, then write
    // (so `| head` stays a clean exit).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "profparse", &mut script);
    let mut out = output::open(args.output.output.as_deref())?;
    out.write_all(&script)?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
