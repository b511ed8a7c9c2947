//! `profparse tlog dump`: every event, in a reference layout or as JSON/CSV.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::report::Format;
use crate::report::tlog_dump::{DumpStyle, write_csv, write_dump, write_json};
use clap::{Args, ValueEnum};

use super::open;
use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{self, UsageError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Style {
    /// Java tlogDump: file order, `type=..,id=..,arg1=..,arg2=..,time=..`.
    Tlogdump,
    /// C tlog_dump: grouped by process with `-------` headers (see --nodes).
    #[value(name = "tlog_dump")]
    TlogDump,
    /// The format document's sample program.
    Sample,
}

/// `--format` of this command.
const DUMP_FORMATS: Offered = Offered(&[
    (Format::Text, "The --style layout"),
    (
        Format::Json,
        "`{\"events\":[…]}`: unsigned process, role (start/end/in/out/single), pair number",
    ),
    (Format::Csv, ""),
]);

#[derive(Args, Debug)]
pub struct DumpArgs {
    /// The tlog trace file.
    file: PathBuf,
    /// The layout of text output: byte for byte that of one of the reference tools.
    #[arg(long, value_enum, default_value_t = Style::Tlogdump)]
    style: Style,
    /// Process count for tlog_dump/sample (default: inferred, 1 + the
    /// largest process id). Larger adds empty sections; smaller is an error.
    #[arg(long, value_name = "N")]
    nodes: Option<usize>,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = DUMP_FORMATS)]
    format: Format,
    /// Dump even data that does not look like a trace.
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &DumpArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut t = open(&args.file, ctx, args.raw)?;
    let nodes = args.nodes.unwrap_or(t.nprocs());
    if matches!(args.style, Style::TlogDump | Style::Sample) {
        if nodes == 0 {
            return Err(UsageError("--nodes must be at least 1".into()).into());
        }
        t.check_nodes(nodes)?;
    }
    let style = match args.style {
        Style::Tlogdump => DumpStyle::TlogDump,
        Style::TlogDump => DumpStyle::TlogDumpC { nodes },
        Style::Sample => DumpStyle::Sample { nodes },
    };
    ctx.guard_output(
        style.estimated_bytes(&t, args.format),
        "this dump",
        "`tlog summary` and `tlog tree` answer most questions in a page",
    )?;
    let output = &args.output;
    let mut out = output::open(output.output.as_deref())?;
    match args.format {
        Format::Json => write_json(&mut out, &t)?,
        Format::Csv => write_csv(&mut out, &t)?,
        Format::Text => {
            let bar = ctx.progress_beside(output, style.blocks_read(&t), "tlog dump", "blocks");
            t.set_progress(bar.hook());
            write_dump(&mut out, &t, style)?;
        }
        other => return Err(crate::cli::format::unoffered(other)),
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
