//! `profparse man`: the manual page (roff) generated from the clap
//! definition: synopsis, options, the subcommands, exit codes.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, CommandFactory};

use crate::cli::{Cli, OutputArg};
use crate::output;

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write every page (profparse.1 and one per subcommand, e.g.
    /// profparse-calltree.1, profparse-comm-stats.1) into DIR instead.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &ManArgs) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir)
            .and_then(|()| clap_mangen::generate_to(Cli::command(), dir))
            .with_context(|| format!("cannot write manual pages into {}", dir.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let man = clap_mangen::Man::new(Cli::command());
    let mut out = output::open(args.output.output.as_deref())?;
    man.render(&mut out)?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
