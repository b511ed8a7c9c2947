//! The `profparse` command line: parses arguments once, then hands off to one
//! command module. All the work lives in the library.

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod context;
mod format;
mod help;
mod output;
mod progress;

use std::process::ExitCode;

use crate::context::Context;

fn main() -> ExitCode {
    let cli = cli::parse();
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
    let result = commands::run(&cli.command, &ctx);
    ctx.exit_code(result)
}
