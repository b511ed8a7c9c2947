//! `profparse tlog tree`: the nesting of intervals as a call tree.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::tlog_summary::merged_tree;
use crate::report::Format;
use crate::report::calltree::{TreeReport, TreeView};
use clap::Args;

use super::{names, open};
use crate::cli::args::OutputArg;
use crate::cli::commands::calltree::{AggregateArg, guard_folded_with};
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{UsageError, emit};

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

#[derive(Args, Debug)]
pub struct TreeArgs {
    /// The tlog trace file.
    file: PathBuf,
    /// Only this process's tree (default: merged over all processes).
    #[arg(long, value_name = "N")]
    proc: Option<u16>,
    /// Names of event kinds: lines `pair <1-9> <name>` / `single <1-9> <name>`.
    #[arg(long = "event-names", value_name = "FILE")]
    event_names: Option<PathBuf>,
    /// Text: the spread over processes in full: the smallest and largest
    /// inclusive time of a node over processes and the process holding
    /// the largest (JSON always has them).
    #[arg(long)]
    wide: bool,
    /// How the times of merged processes are combined (text, folded,
    /// Hatchet): `mean`, `sum` or `max` (the largest process's); calls are
    /// always summed.
    #[arg(long, value_enum, default_value_t = AggregateArg::Mean, value_name = "HOW")]
    aggregate: AggregateArg,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = TREE_FORMATS)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &TreeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let proc = args.proc;
    let mut t = open(&args.file, ctx, false)?;
    let names = names(&args.event_names)?;
    let bar = ctx.progress(t.process_blocks(), "tlog tree", "blocks");
    t.set_progress(bar.hook());
    let (merged, warnings) = merged_tree(&t, &names, proc);
    drop(bar);
    ctx.warn_all(&warnings);
    let Some((tree, nprocs)) = merged else {
        return Err(UsageError(format!(
            "--proc {}: no events of that process",
            proc.unwrap_or(0)
        ))
        .into());
    };
    let view = TreeView {
        nprocs,
        wide: args.wide,
        width: args.output.text_width(args.wide),
        aggregate: args.aggregate.into(),
        ..Default::default()
    };
    let report = TreeReport {
        tree: &tree,
        view,
        proc: proc.map(usize::from),
        source: None,
    };
    guard_folded_with(
        &report,
        args.format,
        ctx,
        "`--format text` or `json` show the same tree in a size that grows with it, not with the square of its depth",
    )?;
    emit(&report, args.format, &args.output)?;
    // The process ends with the report: freeing the tree's child lists
    // one by one (hundreds of thousands) would only delay the exit, as
    // with the databases (`commands::open_database`); runs in one
    // process (the `cli` fuzz target) free it.
    if !cfg!(fuzzing) {
        std::mem::forget(tree);
    }
    Ok(ExitCode::SUCCESS)
}
