//! `profparse tree merge`: timer trees merged by path across files.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::timertree_merge::merge_trees;
use crate::report::timertree::merge::MergeReport;
use crate::report::{Format, render};
use crate::{Location, Warning};
use clap::Args;

use super::read;
use crate::cli::args::OutputArg;
use crate::cli::context::{Context, EXIT_OK};
use crate::cli::format::Offered;
use crate::cli::output;

/// How `tree merge` reports.
/// `--format` of this command.
const MERGE_FORMATS: Offered = Offered(&[
    (Format::Table, "An indented text table"),
    (Format::Json, "JSON (schema in docs/TIMER_TREE.md)"),
]);

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Serialized timer trees (JSON or XML), e.g. one per process.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Report format.
    #[arg(long, default_value = "table", value_parser = MERGE_FORMATS)]
    pub format: Format,
    /// Skip a file that cannot be read (missing, not a timer tree) with a
    /// warning instead of stopping; the others are merged, exit code 3.
    /// Damaged timers inside a file are always skipped with a warning.
    #[arg(long = "keep-going")]
    pub keep_going: bool,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &MergeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut trees = Vec::with_capacity(args.files.len());
    let mut labels = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let tree = match read(path, ctx) {
            Ok(t) => t,
            // --keep-going: an unreadable input is skipped, not fatal.
            Err(e) if args.keep_going => {
                ctx.warn(&Warning::new(
                    Location::file(path),
                    format!("skipped (--keep-going): {e}"),
                ));
                continue;
            }
            Err(e) => return Err(e),
        };
        if tree.is_empty() {
            ctx.warn(&Warning::new(
                Location::file(path),
                "the tree has no timers",
            ));
        }
        trees.push(tree);
        labels.push(path.display().to_string());
    }
    if trees.is_empty() {
        return Err(crate::Error::nothing_readable(
            Location::file(&args.files[0]),
            "no timer tree could be read",
        )
        .into());
    }
    let merged = merge_trees(&trees);
    let report = MergeReport {
        tree: &merged,
        files: &labels,
    };
    let mut text = Vec::new();
    render(
        &report,
        args.format,
        args.output.text_width(false),
        &mut text,
    )?;
    let mut out = output::open(args.output.output.as_deref())?;
    out.write_all(&text)?;
    out.finish()?;
    Ok(ExitCode::from(EXIT_OK))
}
