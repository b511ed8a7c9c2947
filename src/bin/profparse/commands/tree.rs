//! `profparse tree show|merge`: serialized timer trees (JSON or XML) printed
//! in the reference layouts or merged across files by path.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use profparse::analysis::timertree_merge::merge_trees;
use profparse::formats::timertree::{read_timer_tree_file, suspicious_times};
use profparse::model::calltree::CallTree;
use profparse::report::Format;
use profparse::report::render;
use profparse::report::timertree::json::write_json;
use profparse::report::timertree::merge::MergeReport;
use profparse::report::timertree::table::write_table;
use profparse::report::timertree::truchas::write_truchas;
use profparse::report::timertree::xml::write_xml;
use profparse::timer_tree::write::write_tree;
use profparse::timer_tree::{Handle, Precision, Serialized, TimerError, Timing, WriteOptions};
use profparse::{Error, Location, Warning};

use crate::cli::OutputArg;
use crate::context::{Context, EXIT_OK};
use crate::format::Offered;
use crate::output::{self, UsageError};

#[derive(Args, Debug)]
pub struct TreeArgs {
    #[command(subcommand)]
    pub command: TreeCommand,
}

#[derive(Subcommand, Debug)]
pub enum TreeCommand {
    /// Print one serialized timer tree.
    ///
    /// FILE is JSON (`{"tree": [...], "name": [...], "time": [...]}`) or the
    /// nested XML form (`<TIMER NAME=".." TIME="..">`). The form is taken
    /// from the extension (.json, .xml); otherwise from the first non-blank
    /// character (`{` or `<`).
    Show(ShowArgs),
    /// Merge the timer trees of several processes or runs by path: per timer
    /// the number of files that have it, min, avg, max and sum of its
    /// seconds, and the file with the max.
    Merge(MergeArgs),
}

/// How `tree show` prints the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// The Fortran reference's write: indented `name:` and ES12.5 seconds.
    TimerTree,
    /// Truchas' "TIMING SUMMARY": ES9.3 seconds, ` --- `, name.
    Truchas,
    /// A table: inclusive and exclusive seconds, % of parent.
    Table,
    /// The JSON file form (serialized arrays).
    Json,
    /// The nested XML file form, names escaped.
    Xml,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The serialized timer tree (JSON or XML).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Blanks per nesting level (timer-tree layout; 0 to 64).
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=64))]
    pub indent: u8,
    /// Print only the subtree of this timer, its root unindented (timer-tree
    /// layout). Handle k is the k-th timer of the file (from 1).
    #[arg(long, value_name = "H")]
    pub handle: Option<u32>,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = Layout::TimerTree)]
    pub layout: Layout,
    /// Round times to binary32 before formatting, as the Fortran reference
    /// stores them (byte parity with it for times that are not binary32).
    #[arg(long)]
    pub binary32: bool,
    #[command(flatten)]
    pub output: OutputArg,
}

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
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &TreeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        TreeCommand::Show(a) => show(a, ctx),
        TreeCommand::Merge(a) => merge(a, ctx),
    }
}

fn read(path: &Path, ctx: &Context) -> anyhow::Result<CallTree<Timing>> {
    let tree = read_timer_tree_file(path)?;
    ctx.info(1, format!("{}: {} timer(s)", path.display(), tree.len()));
    ctx.warn_all(&suspicious_times(&tree, path));
    Ok(tree)
}

fn show(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if args.handle.is_some() && args.layout != Layout::TimerTree {
        return Err(UsageError("--handle works with --layout timer-tree only".into()).into());
    }
    let tree = read(&args.file, ctx)?;
    let precision = if args.binary32 {
        Precision::Binary32
    } else {
        Precision::F64
    };
    // Render to memory first, so that an error leaves no partial output.
    let mut text = Vec::new();
    match args.layout {
        Layout::TimerTree => {
            let opts = WriteOptions {
                indent: usize::from(args.indent),
                handle: args.handle.map(Handle::new),
                precision,
            };
            write_tree(&mut text, &tree, &opts).map_err(|e| match e {
                TimerError::Empty => {
                    Error::invalid(Location::file(&args.file), "the tree has no timers")
                }
                TimerError::BadHandle { .. } => {
                    Error::NotFound(format!("{}: {e}", args.file.display()))
                }
                other => Error::io(&args.file, std::io::Error::other(other)),
            })?;
        }
        Layout::Truchas => write_truchas(&mut text, &tree, precision)?,
        Layout::Table => write_table(&mut text, &tree, precision)?,
        Layout::Json => write_json(&mut text, &Serialized::from_call_tree(&tree))?,
        Layout::Xml => write_xml(&mut text, &tree)?,
    }
    let mut out = output::open(args.output.output.as_deref())?;
    out.write_all(&text)?;
    out.flush()?;
    Ok(ExitCode::from(EXIT_OK))
}

fn merge(args: &MergeArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let mut trees = Vec::with_capacity(args.files.len());
    let mut labels = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let tree = match read(path, ctx) {
            Ok(t) => t,
            // --keep-going: an unreadable input is skipped, not fatal.
            Err(e) if ctx.keep_going => {
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
        return Err(profparse::Error::invalid(
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
    render(&report, args.format, &mut text)?;
    let mut out = output::open(args.output.output.as_deref())?;
    out.write_all(&text)?;
    out.flush()?;
    Ok(ExitCode::from(EXIT_OK))
}
