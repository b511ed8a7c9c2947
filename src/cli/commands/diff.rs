//! `profparse diff A B`: two runs compared node by node (call paths) and,
//! for bl_prof databases, function by function.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::analysis::diff::{DiffOptions, DiffSort, Metric, diff_trees};
use crate::analysis::diff_input::{Side, load_side};
use crate::formats::Input;
use crate::model::calltree::{CallTree, Metrics};
use crate::report::Format;
use crate::report::diff::{DiffReport, RunInfo, estimated_json_bytes};
use crate::{Error, Location, Warning};
use clap::{Args, ValueEnum};

use crate::cli::args::OutputArg;
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{self, UsageError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    /// Inclusive seconds (a node and everything it called).
    Inclusive,
    /// Exclusive seconds (a node minus its timed children).
    Exclusive,
    /// Number of calls.
    Calls,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// B − A, largest increase first.
    Diff,
    /// |B − A|, largest first.
    Abs,
    /// |B − A| / A, largest first; nodes new in B first.
    Rel,
    /// By call path.
    Name,
}

/// `--format` of this command.
const FORMATS: Offered = Offered(&[
    (
        Format::Text,
        "Tables: call tree, then functions (databases)",
    ),
    (Format::Json, "One JSON object (docs/JSON.md)"),
]);

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first run (the baseline): a bl_prof database directory, an AMReX
    /// job log (its TinyProfiler report), a tlog file or a serialized timer
    /// tree (JSON/XML).
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second run, of the same kind as A.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// The figure compared. Databases and tlog files: seconds are averages
    /// over processes, calls are sums.
    #[arg(long, value_enum, default_value_t = MetricArg::Inclusive)]
    pub metric: MetricArg,
    /// Row order (default: largest |B − A| first).
    #[arg(long, value_enum, default_value_t = SortArg::Abs)]
    pub sort: SortArg,
    /// Keep the first N rows of each table.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Keep rows whose |B − A| is at least this (seconds; calls for --metric calls).
    #[arg(long = "min-diff", value_parser = crate::cli::args::non_negative_f64, value_name = "SECONDS", default_value_t = 0.0)]
    pub min_diff: f64,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// Loads one side, with a progress bar over its blocks named after the
/// argument; its warnings are shown, also when loading fails.
fn load(arg: &Path, input: &Input, ctx: &Context) -> anyhow::Result<(RunInfo, Side)> {
    let bar = RefCell::new(None);
    let (side, warnings) = load_side(input, &|blocks| {
        let b = ctx.progress(blocks, &format!("diff {}", arg.display()), "blocks");
        let hook = b.hook();
        *bar.borrow_mut() = Some(b);
        hook
    });
    drop(bar);
    ctx.warn_all(&warnings);
    let side = side?;
    let info = RunInfo {
        path: arg.display().to_string(),
        nprocs: side.nprocs,
    };
    Ok((info, side))
}

pub fn run(args: &DiffArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let input_a = Input::open(&args.a)?;
    let input_b = Input::open(&args.b)?;
    let (ka, kb) = (input_a.kind, input_b.kind);
    if ka != kb {
        return Err(UsageError(format!(
            "cannot compare a {} ({}) with a {} ({}): A and B must be of the same kind",
            ka.name(),
            args.a.display(),
            kb.name(),
            args.b.display()
        ))
        .into());
    }
    if args.min_diff.is_nan() || args.min_diff < 0.0 {
        return Err(UsageError("--min-diff must be a number ≥ 0".into()).into());
    }
    let (a_info, a) = load(&args.a, &input_a, ctx)?;
    let (b_info, b) = load(&args.b, &input_b, ctx)?;
    let opts = DiffOptions {
        metric: match args.metric {
            MetricArg::Inclusive => Metric::Inclusive,
            MetricArg::Exclusive => Metric::Exclusive,
            MetricArg::Calls => Metric::Calls,
        },
        sort: match args.sort {
            SortArg::Diff => DiffSort::Diff,
            SortArg::Abs => DiffSort::Abs,
            SortArg::Rel => DiffSort::Rel,
            SortArg::Name => DiffSort::Name,
        },
        top: args.top,
        min_diff: args.min_diff,
    };
    let pair =
        |x: &Option<CallTree<Metrics>>, y: &Option<CallTree<Metrics>>, what: &str| match (x, y) {
            (Some(x), Some(y)) => Some(diff_trees(x, y, &opts)),
            (None, None) => None,
            _ => {
                ctx.warn(&Warning::new(
                    Location::file(if x.is_none() { &args.a } else { &args.b }),
                    format!("no {what} in this run; {what} not compared"),
                ));
                None
            }
        };
    let calltree = pair(&a.tree, &b.tree, "call traces");
    let functions = pair(&a.functions, &b.functions, "base profile");
    if calltree.is_none() && functions.is_none() {
        return Err(Error::NotFound(
            "the two databases have no part in common to compare (call traces or base profile)"
                .into(),
        )
        .into());
    }
    let report = DiffReport {
        kind: ka.name(),
        a: a_info,
        b: b_info,
        metric: opts.metric,
        sort: opts.sort,
        calltree,
        functions,
        warnings: ctx.warning_texts(),
    };
    if args.format == Format::Json {
        ctx.guard_output(
            estimated_json_bytes(&report),
            "this comparison",
            "`--top N` or `--min-diff` keep the rows that matter, and the table shortens deep paths",
        )?;
    }
    // Streamed: a file named by -o is replaced only when the whole report
    // is written (`output::Destination`).
    output::emit(&report, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
