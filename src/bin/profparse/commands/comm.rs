//! `profparse comm …`: communication profiles.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use profparse::analysis::comm_check::comm_check;
use profparse::analysis::comm_pairs::pair_messages_with;
use profparse::analysis::comm_stats::{CommSelection, comm_stats};
use profparse::analysis::comm_sync::{barriers, send_matrix};
use profparse::analysis::comm_timeline::{time_span, timeline_rows};
use profparse::formats::blprof::{Database, Part};
use profparse::report::comm::{
    BarriersReport, CheckReportView, CommStatsReport, MatrixReport, PairChunk, PairChunks,
    PairStream, PairsReport,
};
use profparse::report::{Format, chrome, render, svg};

use super::export::parse_window;
use crate::cli::{DatabaseArg, OutputArg};
use crate::context::Context;
use crate::format::{Offered, TABLE_JSON};
use crate::output::{self, UsageError, emit, write_file};
use crate::progress::Bar;

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
    pub fn selection(&self) -> CommSelection<'_> {
        CommSelection {
            window: self.time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)),
            procs: (!self.procs.is_empty()).then_some(self.procs.as_slice()),
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum CommCommand {
    /// Calls, records and bytes per MPI function type, per process and in
    /// total; message sizes, time span, timer cost (amrprofparser -stats).
    Stats {
        #[command(flatten)]
        db: DatabaseArg,
        #[command(flatten)]
        select: CommSelect,
        #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
        format: Format,
        #[command(flatten)]
        output: OutputArg,
    },
    /// Per barrier (by number) and process: arrival, exit and wait time, the
    /// last process to arrive (the one everybody waited for), and wait totals
    /// per process (amrprofparser -spd intent).
    Barriers {
        #[command(flatten)]
        db: DatabaseArg,
        #[command(flatten)]
        select: CommSelect,
        /// Barriers only (amrprofparser -spd's work): read just the barrier
        /// records the headers point to instead of scanning every block for
        /// all-reductions.
        #[arg(long = "no-reductions")]
        no_reductions: bool,
        #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
        format: Format,
        #[command(flatten)]
        output: OutputArg,
    },
    /// Messages and bytes per sender × receiver (amrprofparser -sendspf intent);
    /// `--svg F` also draws the bytes as a heat map.
    Matrix {
        #[command(flatten)]
        db: DatabaseArg,
        #[command(flatten)]
        select: CommSelect,
        /// `csv`: one row per sender and receiver that exchanged messages.
        #[arg(long, default_value = "table", value_parser = TABLE_JSON_CSV)]
        format: Format,
        /// Write an SVG heat map of the bytes to F.
        #[arg(long, value_name = "F")]
        svg: Option<std::path::PathBuf>,
        #[command(flatten)]
        output: OutputArg,
    },
    /// Pairs each send with its receive (k-th send p→q with tag t = k-th
    /// receive on q from p with tag t): size and latency per message,
    /// unmatched sends and receives listed (amrprofparser -sr/-srlist intent).
    Pairs {
        #[command(flatten)]
        db: DatabaseArg,
        #[command(flatten)]
        select: CommSelect,
        #[arg(long, default_value = "table", value_parser = TABLE_JSON_CSV)]
        format: Format,
        #[command(flatten)]
        output: OutputArg,
    },
    /// Per-process timeline of communication calls (amrprofparser
    /// -timelinepf intent): `--svg F` picture, `--chrome F` trace JSON.
    Timeline {
        #[command(flatten)]
        db: DatabaseArg,
        /// Only calls in this window, in seconds: `T0..T1`, `T0..` or `..T1`.
        #[arg(long, value_name = "T0..T1", value_parser = parse_window)]
        time: Option<(f64, f64)>,
        /// Write an SVG timeline to F.
        #[arg(long, value_name = "F")]
        svg: Option<std::path::PathBuf>,
        /// Write Chrome Trace Event JSON to F.
        #[arg(long, value_name = "F")]
        chrome: Option<std::path::PathBuf>,
    },
    /// Integrity check: block layout and sizes, time order, every barrier a
    /// before/after pair with its number, name-tag counts. Exit code 0 only
    /// when clean, 1 when a problem was found (each named with its offset).
    Check {
        #[command(flatten)]
        db: DatabaseArg,
        #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
        format: Format,
        #[command(flatten)]
        output: OutputArg,
    },
}

/// The database, with a progress bar over its processes hooked in (the
/// comm analyses advance it once per process; drop it when they are done).
fn open_comm_db<'c>(
    path: &std::path::Path,
    ctx: &'c Context,
    what: &str,
) -> anyhow::Result<(&'static mut Database, Bar<'c>)> {
    let db = super::open_database(path)?;
    ctx.warn_all(db.warnings());
    db.require(Part::Comm)?;
    ctx.warn_all(&db.comm_index().warnings);
    let bar = ctx.progress(db.comm_index().procs.len() as u64, what, "processes");
    db.set_progress(bar.hook());
    Ok((db, bar))
}

pub fn run(args: &CommArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        CommCommand::Stats {
            db,
            select,
            format,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm stats")?;
            let (s, warnings) = comm_stats(database, &select.selection());
            drop(bar);
            ctx.warn_all(&warnings);
            ctx.info(
                1,
                format!(
                    "read {} comm blocks ({} bytes), skipped {} outside the selection or empty",
                    s.blocks_read, s.bytes_read, s.blocks_skipped
                ),
            );
            let report = CommStatsReport {
                database: db.db.display().to_string(),
                header: database.comm.as_ref(),
                stats: &s,
                warnings: warnings.iter().map(|w| w.to_string()).collect(),
            };
            emit(&report, *format, output)?;
        }
        CommCommand::Barriers {
            db,
            select,
            no_reductions,
            format,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm barriers")?;
            let (r, warnings) = barriers(database, &select.selection(), !no_reductions);
            drop(bar);
            ctx.warn_all(&warnings);
            emit(&BarriersReport(&r), *format, output)?;
        }
        CommCommand::Matrix {
            db,
            select,
            format,
            svg,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm matrix")?;
            let (m, warnings) = send_matrix(database, &select.selection());
            drop(bar);
            ctx.warn_all(&warnings);
            if let Some(path) = svg {
                write_file(path, |w| svg::matrix_svg(&m, w))?;
            }
            emit(&MatrixReport(&m), *format, output)?;
        }
        CommCommand::Pairs {
            db,
            select,
            format,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm pairs")?;
            let mut out = output::open(output.output.as_deref())?;
            let sel = select.selection();
            let (report, warnings) = if *format == Format::Table {
                let r = pair_messages_with(database, &sel, || (), |_, _| {}, &mut |_| {});
                drop(bar);
                render(&PairsReport(&r.0), *format, &mut out)?;
                r
            } else {
                // Pairs are formatted in the pairing's parallel tasks and
                // written in order as the tasks end.
                let chunks = PairChunks::new(*format);
                let mut stream = PairStream::begin(&mut out, &chunks);
                let r = pair_messages_with(
                    database,
                    &sel,
                    || chunks.chunk(),
                    PairChunk::add,
                    &mut |c| stream.write(c),
                );
                let written = stream.finish(&r.0);
                drop(bar);
                written?;
                r
            };
            drop(report);
            ctx.warn_all(&warnings);
            out.flush()?;
        }
        CommCommand::Timeline {
            db,
            time,
            svg,
            chrome,
        } => {
            if svg.is_none() && chrome.is_none() {
                return Err(
                    UsageError("comm timeline needs --svg F and/or --chrome F".into()).into(),
                );
            }
            let (database, bar) = open_comm_db(&db.db, ctx, "comm timeline")?;
            let window = time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
            if let Some(path) = svg {
                let span = time_span(database, window).unwrap_or((0.0, 1.0));
                let (rows, warnings) = timeline_rows(database, window, span, svg::TIMELINE_COLUMNS);
                ctx.warn_all(&warnings);
                write_file(path, |w| svg::timeline_svg(span, &rows, w))?;
            }
            if let Some(path) = chrome {
                let mut written = None;
                write_file(path, |w| {
                    written = Some(chrome::write_comm_trace(w, database, window)?);
                    Ok(())
                })?;
                if let Some((n, warnings)) = written {
                    // Both outputs meet the same damaged blocks: say it once.
                    if svg.is_none() {
                        ctx.warn_all(&warnings);
                    }
                    ctx.info(1, format!("wrote {n} events to {}", path.display()));
                }
            }
            drop(bar);
        }
        CommCommand::Check { db, format, output } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm check")?;
            let r = comm_check(database);
            drop(bar);
            let view = CheckReportView {
                database: db.db.display().to_string(),
                check: &r,
            };
            emit(&view, *format, output)?;
            if !r.problems.is_empty() {
                return Ok(ExitCode::from(crate::context::EXIT_DATA));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
