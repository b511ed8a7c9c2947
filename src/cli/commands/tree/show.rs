//! `profparse tree show`: one timer tree in a reference layout or a file
//! form (`report::timertree::tree`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::report::Format;
use crate::report::timertree::reference::{NoSubtree, subtree_top};
use crate::report::timertree::tree::TimerTreeReport;
use crate::timer_tree::Precision;
use crate::{Error, Location};
use clap::{Args, ValueEnum};

use super::read;
use crate::cli::args::OutputArg;
use crate::cli::context::{Context, EXIT_OK};
use crate::cli::output::{self, UsageError};

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

impl Layout {
    fn format(self) -> Format {
        match self {
            Layout::TimerTree => Format::Reference,
            Layout::Truchas => Format::Truchas,
            Layout::Table => Format::Table,
            Layout::Json => Format::Json,
            Layout::Xml => Format::Xml,
        }
    }
}

pub fn run(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if args.handle.is_some() && args.layout != Layout::TimerTree {
        return Err(UsageError("--handle works with --layout timer-tree only".into()).into());
    }
    let tree = read(&args.file, ctx)?;
    // The reference asserts on an empty tree and on a handle that names no
    // timer: errors before anything is written. The other layouts write
    // an empty tree as it is.
    let top = match subtree_top(&tree, args.handle) {
        Ok(top) => top,
        Err(NoSubtree::Empty) if args.layout != Layout::TimerTree => tree.root(),
        Err(NoSubtree::Empty) => {
            return Err(
                Error::invalid(Location::file(&args.file), "the tree has no timers").into(),
            );
        }
        Err(e @ NoSubtree::BadHandle { .. }) => {
            return Err(Error::NotFound(format!("{}: {e}", args.file.display())).into());
        }
    };
    let report = TimerTreeReport {
        tree: &tree,
        top,
        indent: usize::from(args.indent),
        precision: if args.binary32 {
            Precision::Binary32
        } else {
            Precision::F64
        },
    };
    output::emit(&report, args.layout.format(), &args.output)?;
    Ok(ExitCode::from(EXIT_OK))
}
