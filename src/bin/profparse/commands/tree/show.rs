//! `profparse tree show`: one timer tree in a reference layout or a file
//! form, rendered to memory first so that an error leaves no output.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use profparse::report::timertree::json::write_json;
use profparse::report::timertree::table::write_table;
use profparse::report::timertree::truchas::write_truchas;
use profparse::report::timertree::xml::write_xml;
use profparse::timer_tree::write::write_tree;
use profparse::timer_tree::{Handle, Precision, Serialized, TimerError, WriteOptions};
use profparse::{Error, Location};

use super::read;
use crate::cli::OutputArg;
use crate::context::{Context, EXIT_OK};
use crate::output::{self, UsageError};

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

pub fn run(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
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
    match args.layout {
        // Text layouts: names carry no raw control characters (JSON and
        // XML escape them their own way).
        Layout::TimerTree | Layout::Truchas | Layout::Table => {
            profparse::report::escape::VisibleWriter { inner: &mut out }.write_all(&text)?
        }
        Layout::Json | Layout::Xml => out.write_all(&text)?,
    }
    out.finish()?;
    Ok(ExitCode::from(EXIT_OK))
}
