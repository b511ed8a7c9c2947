//! The argument definitions (clap derive). `///` comments are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::cli::commands;

/// Where did the time go? Reports from AMReX bl_prof databases, Omni libtlog
/// traces and timer trees.
//
// The top-level help lists the commands in groups: `command()` below sets
// its template (help.rs), and `parse()` parses with it.
#[derive(Parser, Debug)]
#[command(name = "profparse", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command understands.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Treat warnings (damaged or suspicious data) as errors: exit code 1.
    #[arg(long, global = true)]
    pub strict: bool,
    /// Do not print warnings or progress on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more on stderr (blocks and bytes read); repeat for more.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Write outputs that would be absurdly large (over 2 GiB by estimate)
    /// instead of refusing with advice.
    #[arg(long, global = true)]
    pub force: bool,
    /// Worker threads (default: one per core). Output is the same for any value.
    /// At most four per core and at most 256 are started (a note says so).
    #[arg(short = 'j', long = "jobs", global = true, value_name = "N")]
    pub jobs: Option<usize>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// What a bl_prof database (or job log) holds.
    ///
    /// Parts, versions, processes, files, blocks, records, time span,
    /// functions, regions, host names.
    Info(commands::info::InfoArgs),
    /// Function summary across processes (amrprofparser's default report).
    ///
    /// Per function, from the base profile: NCalls (of one process, --proc),
    /// Min/Avg/Max/StdDev of exclusive seconds over processes, the
    /// coefficient of variation (CV %), the share of all timers (%), and the
    /// imbalance Max/Avg. Without --sort two tables are printed, as
    /// amrprofparser does: by name and by average time. Processes whose data
    /// is damaged are left out with a warning.
    ///
    /// Given an AMReX job log instead (recognised by its content): its
    /// TinyProfiler report (--run N of several; default the last), timers
    /// with exclusive and inclusive seconds, the Other row, region sections;
    /// --memory for the memory tables (docs/TINYPROFILER.md).
    Summary(commands::summary::SummaryArgs),
    /// Function statistics from the call traces, within selected regions.
    ///
    /// amrprofparser -wts, with working region filters: exclusive times of
    /// calls that start inside the selected regions, over all processes;
    /// inclusive times, the deepest call stack and recursive functions of
    /// one process.
    TraceSummary(commands::trace_summary::TraceSummaryArgs),
    /// Time per region; one process's ranges; a region filter template.
    ///
    /// Count and time per region over processes, one process's ranges
    /// (--proc), and a RegionFilters template (--write-filter-file).
    Regions(commands::regions::RegionsArgs),
    /// Call-path tree: top-down, bottom-up, or one function's neighbours.
    ///
    /// A node is a function at a position in the nesting; calls, inclusive
    /// and exclusive time per node, merged over processes or for one
    /// (--proc). Text, JSON, folded stacks, HTML or Hatchet.
    Calltree(commands::calltree::CallTreeArgs),
    /// Chronological call trace of one process (amrprofparser -ttrace).
    Calltrace(commands::calltrace::CallTraceArgs),
    /// Integrity check of every part of a database.
    ///
    /// amrprofparser -check, and beyond: headers, base profile (blocks
    /// against file sizes), call traces (nesting, function numbers, times
    /// within timeMinMax), regions (pairing; stock AMReX's stops without a
    /// start are notes) and communication data (`comm check`). Exit 0 when
    /// clean or with notes only, 1 when a problem is found.
    Check(commands::check::CheckArgs),
    /// MPI calls and messages: stats, barriers, matrix, pairs, time, timeline, check.
    ///
    /// The communication records of a bl_prof database, one question per
    /// subcommand: calls and bytes per MPI function, barrier waits, who
    /// sends to whom, each send paired with its receive, time in MPI, a
    /// timeline of the calls, and an integrity check (docs/COMM.md).
    Comm(commands::comm::CommArgs),
    /// Compare two runs by call path (databases, job logs, tlog files, timer trees).
    ///
    /// Node by node along the call paths (and, for databases, function by
    /// function): A, B, B − A, (B − A)/A and calls, with `-` marking nodes
    /// only in A and `+` nodes only in B (docs/DIFF.md).
    Diff(commands::diff::DiffArgs),
    /// Scaling across runs on different rank counts (TinyProfiler logs).
    ///
    /// E.g. the same job on 1, 2, 4 ranks: per timer its time in each run,
    /// speedup and parallel efficiency against the first run, worst
    /// efficiency first (docs/TINYPROFILER.md).
    Compare(commands::compare::CompareArgs),
    /// Did the new runs get slower? Groups of runs compared with statistics.
    ///
    /// Per timer: base and new medians over the runs, the change with a
    /// 95 % interval, p (permutation test) and q (Benjamini–Hochberg over all
    /// timers), and a verdict: slower, faster, unchanged or too noisy to
    /// tell (with the runs that would tell). Exit code 1 when a timer got
    /// slower beyond --min-change with q < --alpha, else 0, so CI can gate
    /// on it (docs/REGRESS.md).
    Regress(commands::regress::RegressArgs),
    /// Each timer over a series of runs, and the steps in it.
    ///
    /// Per timer its time in every run (oldest first) and its change
    /// points: where it stepped up or down and stayed, with the size of the
    /// step and its p (rank-sum test), found as Apache Otava (Hunter) finds
    /// them, robust to outlier runs; --svg draws the series
    /// (docs/REGRESS.md).
    History(commands::history::HistoryArgs),
    /// Call traces as a Chrome/Perfetto timeline, or tables as Parquet.
    ///
    /// Call traces, regions and communication calls (messages as flow
    /// arrows) as Chrome Trace Event JSON, for Perfetto (ui.perfetto.dev) or
    /// chrome://tracing; or call records, region ranges and comm records as
    /// Parquet tables (docs/TRACES.md, docs/SCALING.md).
    Export(commands::export::ExportArgs),
    /// One self-contained HTML page of the whole database (or of a series of
    /// runs).
    ///
    /// Function summary (sortable), call tree (collapsible), regions,
    /// per-process timelines, comm matrix and load imbalance. No network
    /// needed to view it. Sections for parts the database lacks say so.
    /// Several runs of one job: the page of `history --html`, each top
    /// timer's series and its steps.
    Report(commands::report::ReportArgs),
    /// Write synthetic inputs of any size (benchmarks, scale tests).
    #[command(hide = true)]
    Synth(commands::synth::SynthArgs),
    /// Omni libtlog traces: dump, summary, tree, export.
    Tlog(commands::tlog::TlogArgs),
    /// Serialized timer trees (JSON, XML): show, merge.
    Tree(commands::tree::TreeArgs),
    /// Shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// bash: `profparse completions bash > ~/.local/share/bash-completion/completions/profparse`;
    /// zsh: `profparse completions zsh > ~/.zfunc/_profparse` (with `fpath+=~/.zfunc`);
    /// fish: `profparse completions fish > ~/.config/fish/completions/profparse.fish`.
    Completions(commands::completions::CompletionsArgs),
    /// The manual pages (roff).
    ///
    /// The page of profparse on stdout or -o FILE, or every page (one per
    /// command) into --dir DIR. Read it with `profparse man | man -l -`.
    Man(commands::man::ManArgs),
}

/// The command definition with the help layout of help.rs (grouped
/// commands, examples): what the binary parses with and the man pages show.
pub fn command() -> clap::Command {
    crate::cli::help::layout(<Cli as clap::CommandFactory>::command())
}

/// Parses the process's arguments (exits on a usage error or for --help).
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit())
}

/// The bl_prof database directory argument, shared by the bl_prof commands.
#[derive(Args, Debug, Clone)]
pub struct DatabaseArg {
    /// The bl_prof database directory (the `bl_prof` folder a run wrote).
    #[arg(value_name = "DB")]
    pub db: PathBuf,
}

/// The input of the commands that also read AMReX job logs (info,
/// summary, calltree, report): told apart by content, not by name.
#[derive(Args, Debug, Clone)]
pub struct DatabaseOrLogArg {
    /// The bl_prof database directory (the `bl_prof` folder a run wrote), or
    /// an AMReX job log holding a TinyProfiler report (docs/TINYPROFILER.md).
    #[arg(value_name = "DB")]
    pub db: PathBuf,
}

/// `-o FILE`, shared by every command that writes a report.
#[derive(Args, Debug, Clone)]
pub struct OutputArg {
    /// Write the report to FILE instead of standard output (`-` = stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Fit tables and trees for people in N columns: long names are
    /// shortened in the middle, then columns dropped (default: $COLUMNS,
    /// else the terminal's width, else 100; 0 = no limit).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,
}

impl OutputArg {
    /// Whether the report goes to standard output.
    pub fn to_stdout(&self) -> bool {
        self.output
            .as_deref()
            .is_none_or(|p| p == std::path::Path::new("-"))
    }

    /// The width tables for people fit in (`None`: no limit, as with
    /// `--wide`).
    pub fn text_width(&self, wide: bool) -> Option<usize> {
        use std::io::IsTerminal;
        match self.width {
            _ if wide => None,
            Some(0) => None,
            Some(n) => Some(n),
            None => Some(crate::report::layout::fit::default_width(
                self.to_stdout() && std::io::stdout().is_terminal(),
            )),
        }
    }
}

/// Region selection, shared by every trace-based command.
#[derive(Args, Debug, Clone, Default)]
pub struct RegionArgs {
    /// Only time inside this region (exact name or glob, e.g. 'R::*'). Repeatable.
    #[arg(long = "include-region", value_name = "R")]
    pub include: Vec<String>,
    /// Leave out time inside this region (exact name or glob). Repeatable.
    #[arg(long = "exclude-region", value_name = "R")]
    pub exclude: Vec<String>,
    /// amrprofparser RegionFilters file (`__IncludeAll__`, `__IncludeNone__`,
    /// `+ "name" n`, `- "name" n`); --include/--exclude-region add to it.
    #[arg(long = "filter-file", value_name = "F")]
    pub filter_file: Option<PathBuf>,
}

/// A count that must be 1 or more (`--ranks`): a usage error (exit 2)
/// otherwise, not a division by zero in the efficiency.
pub fn positive_u64(s: &str) -> Result<u64, String> {
    let v: u64 = s
        .trim()
        .parse()
        .map_err(|e| format!("{s:?} is not a whole number: {e}"))?;
    if v == 0 {
        return Err("must be 1 or more (a run has at least one rank)".to_owned());
    }
    Ok(v)
}

/// Value parser for thresholds (`--min-percent`, `--min-dur`, `--min-diff`):
/// a finite number, zero or more. NaN, infinities and negative values are
/// usage errors (exit 2) instead of thresholds that silently keep or drop
/// everything.
pub fn non_negative_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|e| format!("{s:?} is not a number: {e}"))?;
    if !v.is_finite() {
        return Err(format!("{s:?} is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("{s:?} is negative"));
    }
    Ok(v)
}

/// The most worker threads `-j` starts: four per available core, and never
/// more than 256. More only costs memory and scheduling.
pub fn max_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(4).min(256)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_finite_and_non_negative() {
        assert_eq!(non_negative_f64("0"), Ok(0.0));
        assert_eq!(non_negative_f64("2.5"), Ok(2.5));
        for bad in ["NaN", "nan", "inf", "-inf", "-1", "-0.5", "x", ""] {
            assert!(non_negative_f64(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn jobs_cap_is_bounded() {
        let m = max_jobs();
        assert!((1..=256).contains(&m));
    }
}
