//! `profparse tlog summary`: intervals and events per process and kind.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::tlog_summary::open_and_summarize;
use crate::formats::tlog::BLOCK;
use crate::report::Format;
use crate::report::tlog_summary::TlogSummaryReport;
use clap::Args;

use super::{check_opened, names};
use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::emit;

#[derive(Args, Debug)]
pub struct SummaryArgs {
    /// The tlog trace file.
    file: PathBuf,
    /// Names of event kinds: lines `pair <1-9> <name>` / `single <1-9> <name>`.
    #[arg(long = "event-names", value_name = "FILE")]
    event_names: Option<PathBuf>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &SummaryArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let file = &args.file;
    let names = names(&args.event_names)?;
    // One pass: the summary is computed by the opening scan.
    let blocks = std::fs::metadata(file).map_or(0, |m| m.len().div_ceil(BLOCK as u64));
    let bar = ctx.progress(blocks, "tlog summary", "blocks");
    let (t, s) = open_and_summarize(file, &names, &bar.hook())?;
    drop(bar);
    check_opened(&t, ctx, false)?;
    ctx.warn_all(&s.warnings);
    let report = TlogSummaryReport {
        file: file.display().to_string(),
        nprocs: t.nprocs(),
        events: t.total_events(),
        summary: &s,
        warnings: t
            .warnings()
            .iter()
            .chain(&s.warnings)
            .map(|w| w.to_string())
            .collect(),
    };
    emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
