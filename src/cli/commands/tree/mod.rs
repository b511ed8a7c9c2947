//! `profparse tree show|merge`: serialized timer trees (JSON or XML) printed
//! in the reference layouts ([`show`]) or merged across files by path
//! ([`merge`]).

mod merge;
mod show;

use std::path::Path;
use std::process::ExitCode;

use crate::formats::timertree::{read_timer_tree_file, suspicious_times};
use crate::model::calltree::CallTree;
use crate::timer_tree::Timing;
use clap::{Args, Subcommand};

use crate::cli::context::Context;

#[derive(Args, Debug)]
pub struct TreeArgs {
    #[command(subcommand)]
    pub command: TreeCommand,
}

#[derive(Subcommand, Debug)]
pub enum TreeCommand {
    /// Print one serialized timer tree.
    ///
    /// FILE is JSON (`{"tree": [...], "name": [...], "time": [...]}`) or the
    /// nested XML form (`<TIMER NAME=".." TIME="..">`). The form is taken
    /// from the extension (.json, .xml); otherwise from the first non-blank
    /// character (`{` or `<`).
    Show(show::ShowArgs),
    /// Merge the timer trees of several processes or runs by path.
    ///
    /// Per timer the number of files that have it, min, avg, max and sum of
    /// its seconds, and the file with the max.
    Merge(merge::MergeArgs),
}

pub fn run(args: &TreeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        TreeCommand::Show(a) => show::run(a, ctx),
        TreeCommand::Merge(a) => merge::run(a, ctx),
    }
}

fn read(path: &Path, ctx: &Context) -> anyhow::Result<CallTree<Timing>> {
    let tree = read_timer_tree_file(path)?;
    ctx.info(1, format!("{}: {} timer(s)", path.display(), tree.len()));
    ctx.warn_all(&suspicious_times(&tree, path));
    Ok(tree)
}
