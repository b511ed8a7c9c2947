//! The `profparse` command line: parses arguments once, then hands off to one
//! command module. The work lives in the layers below; this layer turns
//! arguments into their options, shows warnings and progress, and decides
//! the exit code.

mod args;
mod commands;
mod context;
mod format;
mod help;
mod output;
mod progress;

use std::process::ExitCode;

use crate::cli::context::Context;

/// Runs the `profparse` command line on this process' arguments and returns
/// its exit code (docs/ERRORS.md). It sets up the process: the guard that
/// turns a mapped input that shrinks into an error, and the thread pool of
/// `--jobs`.
pub fn main() -> ExitCode {
    let cli = args::parse();
    // Before any thread starts: growing the table later stalls a reader.
    crate::source::descriptor_table::reserve();
    // A mapped input that shrinks (a live run's flush) ends the run with a
    // message and the damaged-data exit code, not a signal.
    crate::source::sigbus::exit_on_sigbus(i32::from(context::EXIT_DATA));
    let ctx = Context::new(&cli.global);
    if let Some(n) = cli.global.jobs {
        let cap = args::max_jobs();
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

/// Runs one command line in this process, without the process set-up of
/// [`main`] (the fuzzer runs whole command lines so:
/// fuzz/fuzz_targets/cli.rs). `args` starts with the program name; a line
/// clap refuses is returned as its error.
pub fn run_in_process<I, T>(args: I) -> Result<ExitCode, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::Parser;
    let cli = args::Cli::try_parse_from(args)?;
    let ctx = Context::new(&cli.global);
    let result = commands::run(&cli.command, &ctx);
    Ok(ctx.exit_code(result))
}
