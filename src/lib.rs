//! profparse turns the performance data of parallel (MPI) runs into answers:
//! where the time went per function, call path, region, process and MPI
//! call, and how that changed from one run to the next.
//!
//! It reads four kinds of input:
//!
//! | input | open it with | what it holds |
//! |---|---|---|
//! | AMReX `bl_prof` database (`PROFILE=TRUE`, optionally `TRACE_PROFILE`, `COMM_PROFILE`) | [`Database::open`] | per-function totals per process; call traces; MPI calls |
//! | AMReX TinyProfiler reports in a job log | [`read_tinyprofiler_log`] | the tables TinyProfiler prints, per run |
//! | Omni libtlog trace | [`TlogFile::open`] | begin/end events per process |
//! | serialized timer tree (Petaca `timer_tree_type`) | [`read_timer_tree_file`] | a tree of named timers |
//!
//! [`Input::open`] tells which one a path is. Readers never print: what they
//! could not read comes back as [`Warning`]s beside a partial result, and
//! what stops them as an [`Error`] that names the file and the line or byte
//! offset.
//!
//! The analyses take an opened input and return plain values: [`base_summary`]
//! (per function), [`call_tree`] (per call path), [`Regions`] and
//! [`region_stats`], [`trace_summary`], the MPI analyses ([`comm_stats`],
//! [`mpi_time`], [`wait_states`], [`pair_messages`], [`barriers`],
//! [`send_matrix`]), [`tlog_summary`], [`compare`] (TinyProfiler runs) and
//! [`diff_trees`]. Work over processes runs in parallel (rayon) and its
//! results come out in process order, the same at any number of threads.
//!
//! [`timer_tree`] is an instrumentation API: start and stop named timers in
//! a program and write the tree (its C API is the `profparse-timer` crate).
//!
//! # Example
//!
//! The functions of a database, most expensive first:
//!
//! ```
//! use profparse::{Database, SortKey, base_summary};
//!
//! # fn main() -> profparse::Result<()> {
//! # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/blprof/small4/bl_prof");
//! let db = Database::open(dir)?;
//! let mut warnings = Vec::new();
//! let profile = db.base_profile(&mut warnings)?;
//! let summary = base_summary(&profile, 0);
//! for i in SortKey::Avg.order(&summary.functions).into_iter().take(3) {
//!     let f = &summary.functions[i];
//!     println!("{:<30} {:>10.6} s exclusive, mean over processes", f.name, f.avg);
//! }
//! # assert!(warnings.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! The `profparse` command line is this library's [`cli`] (feature `cli`, on
//! by default); docs/ARCHITECTURE.md describes the layers inside.

#![deny(unsafe_code)]
#![deny(missing_docs)]
// Without the command line (a build for Python, say), the renderers and
// option types only the commands use are left unused: not dead code.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

/// The layers are private: the API is the `pub use` list below. The fuzz
/// targets decode blocks and headers directly, so the feature `internals`
/// (theirs alone: no promise of any kind) makes the modules public.
macro_rules! layers {
    ($($name:ident),+) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        #[allow(missing_docs)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        mod $name;
    )+};
}

layers!(
    analysis,
    error,
    export,
    external_sort,
    formats,
    model,
    parallel,
    progress,
    report,
    source,
    spill
);
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "synth")]
pub mod synth;
#[cfg(test)]
mod test_rng;
#[cfg(test)]
mod tests;
pub mod timer_tree;

// Errors and warnings.
pub use error::{Error, Location, NotADatabase, Result, Warning, WarningKind};
pub use progress::Progress;

// Inputs.
pub use formats::blprof::{BaseProfile, Database, Part};
pub use formats::timertree::read_timer_tree_file;
/// The warnings about a timer tree's times (negative, NaN, infinite) that
/// `tree show` prints: for a library user who shows them too.
pub use formats::timertree::suspicious_times as suspicious_timer_times;
pub use formats::tinyprofiler::read as read_tinyprofiler_log;
pub use formats::tlog::TlogFile;
pub use formats::{Input, InputKind};
pub use model::tinyprofiler::{Log as TinyProfilerLog, Report as TinyProfilerReport};

// Values the analyses share.
pub use model::calltree::{CallTree, Metrics, Node, NodeId};
pub use model::timertree::Timing;

// Analyses of a bl_prof database.
pub use analysis::base_summary::base_summary;
pub use analysis::callers::bottom_up;
pub use analysis::calltree::{Spread, call_tree, fold_process_trees, process_trees};
pub use analysis::comm::clocks::{ClockOffsets, estimate as estimate_clock_offsets};
pub use analysis::comm::pairs::{Pair, PairingSummary, pair_messages, pair_messages_in};
pub use analysis::comm::scope::CommScope;
pub use analysis::comm::select::CommSelection;
/// A region filter turned into the time ranges it selects per process
/// ([`ProcRanges::from_filter`]): what the comm analyses take to cut their
/// records to regions (`comm … --include-region`).
pub use analysis::comm::select::ProcRanges;
pub use analysis::comm::stats::{CommStats, comm_stats};
pub use analysis::comm::sync::{BarrierSummary, SendMatrix, barriers, send_matrix};
/// The byte counts of [`MpiTime`]'s size bucket `k` (its `sizes[k]`): the
/// smallest and the largest, as `comm time` reports them.
pub use analysis::comm::time::bucket_bounds as mpi_size_bucket_bounds;
pub use analysis::comm::time::{MpiTime, TimeOptions, mpi_time};
pub use analysis::comm::waits::{WaitReport, WaitState, wait_states};
pub use analysis::filter::RegionFilter;
pub use analysis::function_stats::{FunctionStats, FunctionSummary, SortKey};
pub use analysis::info::{DatabaseInfo, database_info};
pub use analysis::regions::{RegionStats, Regions, region_stats};
pub use analysis::trace_summary::{
    Selection, TraceSummary, Unfiltered, select_calls, trace_summary,
};

// Analyses of the other inputs.
pub use analysis::diff::{Diff, DiffOptions, DiffRow, Metric as DiffMetric, Presence, diff_trees};
pub use analysis::timertree_merge::merge_trees as merge_timer_trees;
pub use analysis::tinyprofiler::{CompareInput, Comparison, compare};
// A TinyProfiler log's report by run number, and that report as the flat
// tree `calltree LOG` shows (the Python package's tables).
pub use analysis::tinyprofiler::{flat_tree as tinyprofiler_tree, select_run as tinyprofiler_run};
pub use analysis::tlog_summary::{
    AcrossStats as TlogAcross, EventNames, Summary as TlogSummary, Trees as TlogTrees,
    open_and_summarize as open_and_summarize_tlog, summarize as tlog_summary,
};

// Reports: a result written in one of the output formats.
pub use report::tlog_dump::{DumpStyle as TlogDumpStyle, write_dump as write_tlog_dump};
pub use report::{Document, Format, Report, Table, render};
