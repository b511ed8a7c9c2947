//! `profparse comm …`: communication profiles, a file per subcommand.

mod check;
mod clocks;
mod pairs;
mod regions;
mod stats;
mod sync;
mod time;
mod timeline;
mod waits;

use std::process::ExitCode;

use crate::analysis::comm::clocks::estimate;
use crate::analysis::comm::scope::CommScope;
use crate::formats::blprof::{Database, Part};
use crate::report::Format;
use clap::{Args, Subcommand};

use crate::cli::args::RegionArgs;
use crate::cli::commands::export::parse_window;
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::progress::Bar;

#[derive(Args, Debug)]
pub struct CommArgs {
    #[command(subcommand)]
    pub command: CommCommand,
}

/// Table, JSON, and CSV rows.
const TABLE_JSON_CSV: Offered = Offered(&[
    (Format::Table, ""),
    (Format::Json, ""),
    (Format::Csv, "One row per matched message"),
]);

/// Which part of the communication data to read.
#[derive(Args, Debug)]
pub struct CommSelect {
    /// Only records in this window, in seconds: `T0..T1`, `T0..` or `..T1`.
    /// Blocks whose time range misses it are never read.
    #[arg(long, value_name = "T0..T1", value_parser = parse_window)]
    pub time: Option<(f64, f64)>,
    /// Only this process (repeatable).
    #[arg(long = "proc", value_name = "N")]
    pub procs: Vec<usize>,
}

impl CommSelect {
    /// The `--time` window (all the time without it).
    pub fn window(&self) -> (f64, f64) {
        self.time.unwrap_or(EVER)
    }

    /// A usage error (exit 2) for a `--proc` without communication data,
    /// as the other commands do for a process out of range.
    pub fn check_procs(&self, db: &Database) -> anyhow::Result<()> {
        let known = &db.comm_index().procs;
        match self
            .procs
            .iter()
            .find(|&&p| !known.iter().any(|c| c.proc == p))
        {
            Some(p) => Err(crate::cli::output::UsageError(format!(
                "--proc {p}: no communication data for that process"
            ))
            .into()),
            None => Ok(()),
        }
    }
}

/// `--align-clocks`: the commands that compare times across processes.
#[derive(Args, Debug)]
pub struct AlignArg {
    /// Put all times on one clock: subtract each process's estimated
    /// offset (see `comm clocks`; docs/COMM.md).
    #[arg(long)]
    pub align_clocks: bool,
}

#[derive(Subcommand, Debug)]
pub enum CommCommand {
    /// Calls, records and bytes per MPI function (amrprofparser -stats).
    ///
    /// Per MPI function type, per process and in total; message sizes, time
    /// span, timer cost. With a region filter (`--include-region` & co.,
    /// needs call traces) only the records inside the selected ranges of
    /// their own process count.
    Stats(stats::StatsArgs),
    /// Barrier waits: who arrived last, who waited how long (amrprofparser -spd).
    ///
    /// Per barrier (by number) and process: arrival, exit and wait time, the
    /// last process to arrive (the one everybody waited for), and wait totals
    /// per process. With a region filter (needs call traces) a process's
    /// barrier or reduction counts when it entered inside its selected
    /// ranges.
    Barriers(sync::BarriersArgs),
    /// Messages and bytes per sender × receiver (amrprofparser -sendspf).
    ///
    /// `--svg F` also draws the bytes as a heat map. With a region filter
    /// (needs call traces) a message counts when its send record lies
    /// inside the sender's selected ranges.
    Matrix(sync::MatrixArgs),
    /// Each send paired with its receive: size, latency (amrprofparser -sr).
    ///
    /// The k-th send p→q with tag t is paired with the k-th receive on q
    /// from p with tag t: size and latency per message, unmatched sends and
    /// receives listed (amrprofparser -sr/-srlist intent). With a region
    /// filter (needs call traces) the pairing still reads every record; a
    /// pair is reported when its send lies inside the sender's selected
    /// ranges, an unmatched end when its own record lies inside its
    /// process's.
    Pairs(pairs::PairsArgs),
    /// Time in MPI per call type, process, call path and region.
    ///
    /// mpiP's question: seconds per call type and per process, MPI share of
    /// each process's traced time, spread over processes, message sizes,
    /// and the time attributed to call paths and regions of the call
    /// traces.
    Time(time::TimeArgs),
    /// Timeline of the communication calls per process (SVG, Chrome JSON).
    ///
    /// amrprofparser -timelinepf intent: `--svg F` picture, `--chrome F`
    /// trace JSON. With a region filter (needs call traces) only the calls
    /// entered inside the selected ranges of their process are drawn.
    Timeline(timeline::TimelineArgs),
    /// Clock offsets per process, estimated from barriers and messages.
    ///
    /// Each process stamps its records with its own clock. The offsets
    /// (median of barrier exits, then shifted so that every message
    /// completes after it was sent) and their residual: what
    /// `--align-clocks` subtracts.
    Clocks(clocks::ClocksArgs),
    /// Wait states: late sender, late receiver, wait at barrier and N×N.
    ///
    /// Scalasca's "who waits for whom": seconds waited per process, call
    /// type and call path, what each process made others wait, and the
    /// longest waits with the process that caused them. Use
    /// `--align-clocks` to compare times across processes. With a region
    /// filter (needs call traces) a wait counts when the waiting call was
    /// entered inside the waiting process's selected ranges.
    Waits(waits::WaitsArgs),
    /// Integrity check of the communication data (exit 0 only when clean).
    ///
    /// Block layout and sizes, time order, every barrier a before/after
    /// pair with its number, name-tag counts. Exit code 0 only when clean,
    /// 1 when a problem was found (each named with its offset).
    Check(check::CheckArgs),
}

/// The flags of a comm command that make its scope (those it has).
#[derive(Default)]
struct ScopeFlags<'a> {
    /// `--proc` and `--time`.
    select: Option<&'a CommSelect>,
    /// A `--time` without `--proc` (when `select` is `None`).
    window: Option<(f64, f64)>,
    regions: Option<&'a RegionArgs>,
    align: Option<&'a AlignArg>,
}

/// What every comm command opens before its analysis: the database, the
/// scope its flags select, and a progress bar over the processes that the
/// analysis advances (drop it when done).
struct Opened<'c> {
    db: super::KeptDatabase,
    scope: CommScope,
    bar: Bar<'c>,
}

/// Opens the database for `what` and builds its scope from `flags`, in
/// the order the warnings are said: the database's, a `--proc` without
/// communication data (a usage error), the region filter's, the clocks'.
fn open_comm<'c>(
    path: &std::path::Path,
    flags: ScopeFlags<'_>,
    ctx: &'c Context,
    what: &str,
) -> anyhow::Result<Opened<'c>> {
    let (mut db, bar) = open_comm_db(path, ctx, what)?;
    let mut scope = match flags.select {
        Some(s) => {
            s.check_procs(&db)?;
            CommScope::new(s.procs.clone(), s.window())
        }
        None => CommScope::new(Vec::new(), flags.window.unwrap_or(EVER)),
    };
    let bar = match flags.regions {
        Some(r) => regions::filter_scope(r, &mut db, ctx, bar, what, &mut scope)?,
        None => bar,
    };
    if flags.align.is_some_and(|a| a.align_clocks) {
        let (offsets, warnings) = estimate(&db);
        ctx.warn_all(&warnings);
        scope.align_clocks(offsets);
    }
    Ok(Opened { db, scope, bar })
}

/// No `--time`: all the time.
const EVER: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);

/// The database, with a progress bar over its processes hooked in (the
/// comm analyses advance it once per process; drop it when they are done).
fn open_comm_db<'c>(
    path: &std::path::Path,
    ctx: &'c Context,
    what: &str,
) -> anyhow::Result<(super::KeptDatabase, Bar<'c>)> {
    let mut db = super::open_comm_database(path)?;
    ctx.warn_all(db.warnings());
    db.require(Part::Comm)?;
    ctx.warn_all(&db.comm_index().warnings);
    let bar = ctx.progress(db.comm_index().procs.len() as u64, what, "processes");
    db.set_progress(bar.hook());
    Ok((db, bar))
}

pub fn run(args: &CommArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        CommCommand::Stats(a) => stats::run(a, ctx),
        CommCommand::Barriers(a) => sync::barriers(a, ctx),
        CommCommand::Matrix(a) => sync::matrix(a, ctx),
        CommCommand::Pairs(a) => pairs::run(a, ctx),
        CommCommand::Time(a) => time::run(a, ctx),
        CommCommand::Timeline(a) => timeline::run(a, ctx),
        CommCommand::Clocks(a) => clocks::run(a, ctx),
        CommCommand::Waits(a) => waits::run(a, ctx),
        CommCommand::Check(a) => check::run(a, ctx),
    }
}
