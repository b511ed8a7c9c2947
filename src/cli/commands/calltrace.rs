//! `profparse calltrace DB --proc N`: the text call trace (amrprofparser -ttrace).

use std::process::ExitCode;

use crate::report::calltrace::write_calltrace;
use clap::Args;

use super::trace_common::{open_trace_db, trace_blocks};
use crate::cli::args::{DatabaseArg, OutputArg};
use crate::cli::context::Context;
use crate::cli::output::{self, UsageError};

#[derive(Args, Debug)]
pub struct CallTraceArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// The process whose calls are listed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub proc: usize,
    /// Field separator (default: a tab).
    #[arg(long, value_name = "S", default_value = "\t")]
    pub delimiter: String,
    /// List every call; do not combine repeated calls of the same function.
    #[arg(long = "no-combine")]
    pub no_combine: bool,
    /// Print names as amrprofparser does (spaces become `_`).
    #[arg(long = "reference-names")]
    pub reference_names: bool,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &CallTraceArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut kept = open_trace_db(&args.db.db, ctx)?;
    let db = &mut *kept;
    // The trace goes out while the blocks are read: no bar when it goes to
    // the terminal.
    let bar = ctx.progress_beside(
        &args.output,
        trace_blocks(db, Some(args.proc)),
        "call trace",
        "blocks",
    );
    db.set_progress(bar.hook());
    let walk = db.trace_blocks(Some(std::slice::from_ref(&args.proc)));
    let p = walk.procs().next().ok_or_else(|| {
        UsageError(format!(
            "--proc {}: no call traces for that process",
            args.proc
        ))
    })?;
    // Lines are about 60 bytes; combining repeated calls only shortens it.
    let records: u64 = p.proc().blocks.iter().map(|b| b.ntrace).sum();
    ctx.guard_output(
        records.saturating_mul(if args.no_combine { 110 } else { 60 }),
        "this call trace",
        "use `calltree --proc N` for the call paths, or `export --chrome --time T0,T1` for a window",
    )?;
    let mut out = output::open(args.output.output.as_deref())?;
    let warnings = write_calltrace(
        &mut out,
        p,
        &args.delimiter,
        !args.no_combine,
        args.reference_names,
    )?;
    out.finish()?;
    drop(bar);
    ctx.warn_all(&warnings);
    Ok(ExitCode::SUCCESS)
}
