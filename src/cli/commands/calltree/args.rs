//! `calltree`'s arguments, checked and turned once into the tree view the
//! report takes.

use crate::cli::args::{DatabaseOrLogArg, OutputArg, RegionArgs};
use crate::cli::format::Offered;
use crate::cli::output::UsageError;
use crate::report::Format;
use crate::report::calltree::{Order, TreeView};
use clap::Args;

/// `--format` of this command.
const FORMATS: Offered = Offered(&[
    (
        Format::Text,
        "Indented text, numbers first and the call path last",
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
        Format::Html,
        "One self-contained page with collapsible branches",
    ),
    (
        Format::Hatchet,
        "Hatchet's literal JSON (`hatchet.GraphFrame.from_literal`): seconds averaged over processes, calls summed",
    ),
]);

#[derive(Args, Debug)]
pub struct CallTreeArgs {
    #[command(flatten)]
    pub db: DatabaseOrLogArg,
    #[command(flatten)]
    pub regions: RegionArgs,
    /// Only this process's tree (default: merged over all processes).
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Show levels 0..=N only.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Hide branches below P percent of the total inclusive time.
    #[arg(long = "min-percent", value_parser = crate::cli::args::non_negative_f64, value_name = "P", default_value_t = 0.0)]
    pub min_percent: f64,
    /// Show at most N children per node (largest inclusive time first;
    /// exclusive time in bottom-up trees).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// The bottom-up (callers) tree: roots are functions by exclusive
    /// time, below each function its callers, below them theirs; a node's
    /// time is the root function's exclusive time along that caller path
    /// (docs/TRACES.md). Text, JSON, folded, HTML.
    #[arg(long, conflicts_with = "focus")]
    pub bottom_up: bool,
    /// The callers of FUNC (its bottom-up tree) and its callees (its
    /// subtrees merged over all its call sites). FUNC is an exact name or
    /// a glob (`'FabArray*'`): one section per matching function. Text,
    /// JSON, HTML, folded (the callees' stacks).
    #[arg(long, value_name = "FUNC")]
    pub focus: Option<String>,
    /// Text: the spread over processes in full: the smallest and largest
    /// inclusive time of a node over processes and the process holding the
    /// largest (JSON always has them).
    #[arg(long)]
    pub wide: bool,
    /// How the times of merged processes are combined in text, HTML, folded
    /// stacks and the Hatchet literal: `mean` (what one process spent,
    /// typically), `sum` (the CPU time of a path) or `max` (the largest
    /// process's, per node). Calls are always summed; JSON has them all.
    #[arg(long, value_enum, default_value_t = AggregateArg::Mean, value_name = "HOW")]
    pub aggregate: AggregateArg,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

/// `--aggregate`: how a text tree combines merged processes' times.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateArg {
    Mean,
    Sum,
    Max,
}

impl From<AggregateArg> for crate::report::calltree::Aggregate {
    fn from(a: AggregateArg) -> Self {
        match a {
            AggregateArg::Mean => Self::Mean,
            AggregateArg::Sum => Self::Sum,
            AggregateArg::Max => Self::Max,
        }
    }
}

impl CallTreeArgs {
    /// The view of the tree these arguments ask for, before the number of
    /// processes merged is known.
    pub(super) fn view(&self) -> TreeView {
        TreeView {
            max_depth: self.depth,
            min_percent: self.min_percent,
            top: self.top,
            nprocs: 0,
            order: Order::Inclusive,
            wide: self.wide,
            width: self.output.text_width(self.wide),
            aggregate: self.aggregate.into(),
        }
    }

    /// `--bottom-up` and `--focus` offer no Hatchet literal: its metrics are
    /// a top-down tree's (`time (inc)` of a call path).
    pub(super) fn check_callers_format(&self) -> Result<(), UsageError> {
        // A caller path's own time is a difference of sums: its largest
        // process's is not kept.
        if self.bottom_up && self.format == Format::Folded && self.aggregate == AggregateArg::Max {
            return Err(UsageError(
                "--bottom-up --format folded offers --aggregate mean or sum, not max".into(),
            ));
        }
        let (flag, offered): (&str, &[Format]) = if self.bottom_up {
            (
                "--bottom-up",
                &[Format::Text, Format::Json, Format::Folded, Format::Html],
            )
        } else if self.focus.is_some() {
            (
                "--focus",
                &[Format::Text, Format::Json, Format::Folded, Format::Html],
            )
        } else {
            return Ok(());
        };
        if offered.contains(&self.format) {
            return Ok(());
        }
        let names: Vec<&str> = offered.iter().map(|f| f.name()).collect();
        Err(UsageError(format!(
            "{flag} offers --format {}, not {}",
            names.join(", "),
            self.format.name()
        )))
    }
}
