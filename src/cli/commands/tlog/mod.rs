//! `profparse tlog dump|summary|tree|export FILE`: Omni libtlog traces, a
//! file per subcommand.

mod dump;
mod summary;
mod tree;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::tlog_summary::EventNames;
use crate::export::chrome::write_tlog_trace;
use crate::formats::tlog::TlogFile;
use crate::{Error, Location};
use clap::{Args, Subcommand};

use crate::cli::context::Context;

#[derive(Args, Debug)]
pub struct TlogArgs {
    #[command(subcommand)]
    pub command: TlogCommand,
}

#[derive(Subcommand, Debug)]
pub enum TlogCommand {
    /// Every event, in a reference tool's layout (byte-identical) or as JSON/CSV.
    Dump(dump::DumpArgs),
    /// Intervals per process and event kind, and over processes.
    ///
    /// Per process and event kind: matched IN/OUT intervals (count, total,
    /// min/avg/max), single events, START..END span, unmatched events; and
    /// over processes min/avg/max with the process holding the max.
    Summary(summary::SummaryArgs),
    /// The nesting of intervals as a call tree, merged over processes or of one (--proc).
    Tree(tree::TreeArgs),
    /// The trace as Chrome Trace Event JSON, for ui.perfetto.dev.
    ///
    /// An X event per interval, an i event per single event, pid = process.
    Export(ExportArgs),
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The tlog trace file.
    file: PathBuf,
    /// Write the Chrome Trace Event JSON to FILE (for ui.perfetto.dev).
    #[arg(long, value_name = "FILE")]
    chrome: PathBuf,
    /// Names of event kinds: lines `pair <1-9> <name>` / `single <1-9> <name>`.
    #[arg(long = "event-names", value_name = "FILE")]
    event_names: Option<PathBuf>,
}

pub fn run(args: &TlogArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        TlogCommand::Dump(a) => dump::run(a, ctx),
        TlogCommand::Summary(a) => summary::run(a, ctx),
        TlogCommand::Tree(a) => tree::run(a, ctx),
        TlogCommand::Export(a) => export(a, ctx),
    }
}

fn export(args: &ExportArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let t = open(&args.file, ctx, false)?;
    let chrome = &args.chrome;
    let names = names(&args.event_names)?;
    let mut n = 0;
    crate::cli::output::write_file(chrome, |out| {
        n = write_tlog_trace(out, &t, &names)?;
        Ok(())
    })?;
    ctx.info(1, format!("wrote {n} events to {}", chrome.display()));
    Ok(ExitCode::SUCCESS)
}

fn open(path: &PathBuf, ctx: &Context, raw: bool) -> anyhow::Result<TlogFile> {
    if !raw {
        crate::formats::check_tlog(path)?;
    }
    let t = TlogFile::open(path)?;
    check_opened(&t, ctx, raw)?;
    Ok(t)
}

/// Warns about what the opening scan found; refuses garbage unless `raw`.
fn check_opened(t: &TlogFile, ctx: &Context, raw: bool) -> anyhow::Result<()> {
    let path = t.path();
    ctx.warn_all(t.warnings());
    if t.looks_like_garbage() && !raw {
        return Err(Error::wrong_kind(
            Location::file(path),
            "does not look like a tlog trace (see the warnings above); use `tlog dump --raw` to dump it anyway",
        )
        .into());
    }
    Ok(())
}

fn names(path: &Option<PathBuf>) -> anyhow::Result<EventNames> {
    Ok(match path {
        Some(p) => EventNames::read(p)?,
        None => EventNames::default(),
    })
}
