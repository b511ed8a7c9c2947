//! `profparse tlog dump|summary|tree|export FILE`: Omni libtlog traces.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use profparse::analysis::calltree::merge_trees;
use profparse::analysis::tlog_summary::{EventNames, Trees, open_and_summarize, summarize};
use profparse::formats::tlog::{BLOCK, TlogFile};
use profparse::report::Format;
use profparse::report::calltree::{TreeReport, TreeView};
use profparse::report::chrome::write_tlog_trace;
use profparse::report::tlog_dump::{DumpStyle, write_csv, write_dump, write_json};
use profparse::report::tlog_summary::TlogSummaryReport;
use profparse::{Error, Location};
use rayon::prelude::*;

use crate::cli::OutputArg;
use crate::context::Context;
use crate::format::{Offered, TABLE_JSON};
use crate::output::{self, UsageError, emit};

#[derive(Args, Debug)]
pub struct TlogArgs {
    #[command(subcommand)]
    pub command: TlogCommand,
}

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

/// `--format` of this command.
const TREE_FORMATS: Offered = Offered(&[
    (
        Format::Text,
        "Indented text, numbers first and the nesting last",
    ),
    (
        Format::Json,
        "Nested JSON (`roots` → `children`), docs/JSON.md",
    ),
    (
        Format::Folded,
        "`a;b;c <microseconds of exclusive time>` for flame graph tools",
    ),
    (
        Format::Hatchet,
        "Hatchet's literal JSON (`hatchet.GraphFrame.from_literal`)",
    ),
]);

#[derive(Subcommand, Debug)]
pub enum TlogCommand {
    /// Every event, in a reference layout (byte-identical) or as JSON/CSV.
    Dump {
        /// The tlog trace file.
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = Style::Tlogdump)]
        style: Style,
        /// Process count for tlog_dump/sample (default: inferred, 1 + the
        /// largest process id). Larger adds empty sections; smaller is an error.
        #[arg(long, value_name = "N")]
        nodes: Option<usize>,
        #[arg(long, default_value = "text", value_parser = DUMP_FORMATS)]
        format: Format,
        /// Dump even data that does not look like a trace.
        #[arg(long)]
        raw: bool,
        #[command(flatten)]
        output: OutputArg,
    },
    /// Per process and event kind: matched IN/OUT intervals (count, total,
    /// min/avg/max), single events, START..END span, unmatched events; and
    /// over processes min/avg/max with the process holding the max.
    Summary {
        file: PathBuf,
        /// Names of event kinds: lines `pair <1-9> <name>` / `single <1-9> <name>`.
        #[arg(long = "event-names", value_name = "FILE")]
        event_names: Option<PathBuf>,
        #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
        format: Format,
        #[command(flatten)]
        output: OutputArg,
    },
    /// The nesting of intervals as a timer tree, merged over processes or of one (--proc).
    Tree {
        file: PathBuf,
        #[arg(long, value_name = "N")]
        proc: Option<u16>,
        #[arg(long = "event-names", value_name = "FILE")]
        event_names: Option<PathBuf>,
        #[arg(long, default_value = "text", value_parser = TREE_FORMATS)]
        format: Format,
        #[command(flatten)]
        output: OutputArg,
    },
    /// Chrome Trace Event JSON (X per interval, i per single event, pid = process).
    Export {
        file: PathBuf,
        #[arg(long, value_name = "FILE")]
        chrome: PathBuf,
        #[arg(long = "event-names", value_name = "FILE")]
        event_names: Option<PathBuf>,
    },
}

fn open(path: &PathBuf, ctx: &Context, raw: bool) -> anyhow::Result<TlogFile> {
    let t = TlogFile::open(path)?;
    check_opened(&t, ctx, raw)?;
    Ok(t)
}

/// Warns about what the opening scan found; refuses garbage unless `raw`.
fn check_opened(t: &TlogFile, ctx: &Context, raw: bool) -> anyhow::Result<()> {
    let path = t.path();
    ctx.warn_all(t.warnings());
    if t.looks_like_garbage() && !raw {
        return Err(Error::invalid(
            Location::file(path),
            "does not look like a tlog trace (see the warnings above); use `tlog dump --raw` to dump it anyway",
        )
        .into());
    }
    Ok(())
}

fn names(path: &Option<PathBuf>) -> anyhow::Result<EventNames> {
    Ok(match path {
        Some(p) => EventNames::parse(&std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?, p)?,
        None => EventNames::default(),
    })
}

pub fn run(args: &TlogArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        TlogCommand::Dump {
            file,
            style,
            nodes,
            format,
            raw,
            output,
        } => {
            let mut t = open(file, ctx, *raw)?;
            let nodes = nodes.unwrap_or(t.nprocs());
            if matches!(style, Style::TlogDump | Style::Sample) {
                if nodes == 0 {
                    return Err(UsageError("--nodes must be at least 1".into()).into());
                }
                t.check_nodes(nodes)?;
            }
            let style = match style {
                Style::Tlogdump => DumpStyle::TlogDump,
                Style::TlogDump => DumpStyle::TlogDumpC { nodes },
                Style::Sample => DumpStyle::Sample { nodes },
            };
            ctx.guard_output(
                t.total_events()
                    .saturating_mul(style.bytes_per_event(*format)),
                "this dump",
                "`tlog summary` and `tlog tree` answer most questions in a page",
            )?;
            let mut out = output::open(output.output.as_deref())?;
            match format {
                Format::Json => write_json(&mut out, &t)?,
                Format::Csv => write_csv(&mut out, &t)?,
                Format::Text => {
                    let bar =
                        ctx.progress_beside(output, style.blocks_read(&t), "tlog dump", "blocks");
                    t.set_progress(bar.hook());
                    write_dump(&mut out, &t, style)?;
                    out.flush()?;
                }
                other => return Err(crate::format::unoffered(*other)),
            }
            out.flush()?;
        }
        TlogCommand::Summary {
            file,
            event_names,
            format,
            output,
        } => {
            let names = names(event_names)?;
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
            emit(&report, *format, output)?;
        }
        TlogCommand::Tree {
            file,
            proc,
            event_names,
            format,
            output,
        } => {
            let mut t = open(file, ctx, false)?;
            let names = names(event_names)?;
            let bar = ctx.progress(t.process_blocks(), "tlog tree", "blocks");
            t.set_progress(bar.hook());
            let s = summarize(&t, &names, Trees::Build);
            drop(bar);
            ctx.warn_all(&s.warnings);
            let trees: Vec<(usize, profparse::model::calltree::CallTree)> = s
                .trees
                .into_iter()
                .filter(|(p, _)| proc.is_none_or(|x| x == *p))
                .map(|(p, t)| (p as usize, t))
                .collect();
            if trees.is_empty() {
                return Err(UsageError(format!(
                    "--proc {}: no events of that process",
                    proc.unwrap_or(0)
                ))
                .into());
            }
            let view = TreeView {
                nprocs: trees.len(),
                ..Default::default()
            };
            let tree = merge_trees(&trees);
            // Millions of small allocations: freed in parallel, not at the end.
            trees.into_par_iter().for_each(drop);
            let report = TreeReport {
                tree: &tree,
                view,
                proc: proc.map(usize::from),
                source: None,
            };
            let mut out = output::open(output.output.as_deref())?;
            report.write(*format, &mut out)?;
            out.flush()?;
        }
        TlogCommand::Export {
            file,
            chrome,
            event_names,
        } => {
            let t = open(file, ctx, false)?;
            let f = std::fs::File::create(chrome).map_err(|e| Error::io(chrome, e))?;
            let mut out = std::io::BufWriter::new(f);
            let n = write_tlog_trace(&mut out, &t, &names(event_names)?)?;
            out.flush()?;
            ctx.info(1, format!("wrote {n} events to {}", chrome.display()));
        }
    }
    Ok(ExitCode::SUCCESS)
}
