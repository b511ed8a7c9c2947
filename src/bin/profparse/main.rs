//! The `profparse` command line: parses arguments once, then hands off to one
//! command module. All the work lives in the library.

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod context;
mod format;
mod output;
mod progress;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::context::Context;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A mapped input that shrinks (a live run's flush) ends the run with a
    // message and the damaged-data exit code, not a signal.
    profparse::source::sigbus::exit_on_sigbus(i32::from(context::EXIT_DATA));
    let ctx = Context::new(&cli.global);
    if let Some(n) = cli.global.jobs {
        let cap = cli::max_jobs();
        if n > cap && !cli.global.quiet {
            eprintln!("note: -j {n} is more than this machine can use; using {cap} threads");
        }
        // Only fails when a global pool exists already, which it cannot here.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.clamp(1, cap))
            .build_global();
    }
    let result = match &cli.command {
        Command::Info(args) => commands::info::run(args, &ctx),
        Command::Summary(args) => commands::summary::run(args, &ctx),
        Command::TraceSummary(args) => commands::trace_summary::run(args, &ctx),
        Command::Regions(args) => commands::regions::run(args, &ctx),
        Command::Calltree(args) => commands::calltree::run(args, &ctx),
        Command::Calltrace(args) => commands::calltrace::run(args, &ctx),
        Command::Check(args) => commands::check::run(args, &ctx),
        Command::Comm(args) => commands::comm::run(args, &ctx),
        Command::Diff(args) => commands::diff::run(args, &ctx),
        Command::Compare(args) => commands::compare::run(args, &ctx),
        Command::Export(args) => commands::export::run(args, &ctx),
        Command::Report(args) => commands::report::run(args, &ctx),
        Command::Synth(args) => commands::synth::run(args, &ctx),
        Command::Tlog(args) => commands::tlog::run(args, &ctx),
        Command::Tree(args) => commands::tree::run(args, &ctx),
        Command::Completions(args) => commands::completions::run(args),
        Command::Man(args) => commands::man::run(args),
    };
    ctx.exit_code(result)
}
