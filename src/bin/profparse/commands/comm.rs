//! `profparse comm …`: communication profiles.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use profparse::analysis::comm_pairs::{Pair, pair_messages_with};
use profparse::analysis::comm_stats::{CommSelection, CommStats, comm_stats};
use profparse::formats::blprof::{Database, Part};
use profparse::report::json::write_pretty;

use super::export::parse_window;
use crate::cli::{DatabaseArg, OutputArg};
use crate::context::Context;
use crate::output;
use crate::progress::Bar;

#[derive(Args, Debug)]
pub struct CommArgs {
    #[command(subcommand)]
    pub command: CommCommand,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PairsFormat {
    Table,
    Json,
    /// One row per matched message.
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CommFormat {
    Table,
    Json,
}

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
        #[arg(long, value_enum, default_value_t = CommFormat::Table)]
        format: CommFormat,
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
        #[arg(long, value_enum, default_value_t = CommFormat::Table)]
        format: CommFormat,
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
        #[arg(long, value_enum, default_value_t = PairsFormat::Table)]
        format: PairsFormat,
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
        #[arg(long, value_enum, default_value_t = PairsFormat::Table)]
        format: PairsFormat,
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
        #[arg(long, value_enum, default_value_t = CommFormat::Table)]
        format: CommFormat,
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
    if !db.parts().contains(&Part::Comm) {
        return Err(profparse::Error::NotFound(format!(
            "{}: the database has no communication profile (bl_comm_prof_H); the run needs COMM_PROFILE=TRUE",
            path.display()
        ))
        .into());
    }
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
            let sel = select.selection();
            let (s, warnings) = comm_stats(database, &sel);
            drop(bar);
            ctx.warn_all(&warnings);
            ctx.info(
                1,
                format!(
                    "read {} comm blocks ({} bytes), skipped {} outside the selection or empty",
                    s.blocks_read, s.bytes_read, s.blocks_skipped
                ),
            );
            let mut out = output::open(output.output.as_deref())?;
            match format {
                CommFormat::Json => {
                    #[derive(serde::Serialize)]
                    struct Doc<'a> {
                        database: String,
                        version: Option<i64>,
                        record_size: u64,
                        #[serde(flatten)]
                        stats: &'a CommStats,
                        warnings: Vec<String>,
                    }
                    let g = database.comm.as_ref();
                    write_pretty(
                        &mut out,
                        &Doc {
                            database: db.db.display().to_string(),
                            version: g.and_then(|h| h.version),
                            record_size: g.map_or(24, |h| h.record_size()),
                            stats: &s,
                            warnings: warnings.iter().map(|w| w.to_string()).collect(),
                        },
                    )?
                }
                CommFormat::Table => write_table(&mut out, database, &s)?,
            }
            out.flush()?;
        }
        CommCommand::Barriers {
            db,
            select,
            no_reductions,
            format,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm barriers")?;
            let (r, warnings) = profparse::analysis::comm_sync::barriers(
                database,
                &select.selection(),
                !no_reductions,
            );
            drop(bar);
            ctx.warn_all(&warnings);
            let mut out = output::open(output.output.as_deref())?;
            match format {
                CommFormat::Json => write_pretty(&mut out, &r)?,
                CommFormat::Table => write_barriers(&mut out, &r)?,
            }
            out.flush()?;
        }
        CommCommand::Matrix {
            db,
            select,
            format,
            svg,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm matrix")?;
            let (m, warnings) =
                profparse::analysis::comm_sync::send_matrix(database, &select.selection());
            drop(bar);
            ctx.warn_all(&warnings);
            if let Some(path) = svg {
                let f = std::fs::File::create(path).map_err(|e| profparse::Error::io(path, e))?;
                let mut w = std::io::BufWriter::new(f);
                profparse::report::svg::matrix_svg(&m, &mut w)?;
                w.flush()?;
            }
            let mut out = output::open(output.output.as_deref())?;
            match format {
                PairsFormat::Json => write_pretty(&mut out, &m)?,
                PairsFormat::Csv => {
                    let mut c = csv::Writer::from_writer(&mut out);
                    c.write_record(["from", "to", "messages", "bytes"])?;
                    for (from, row) in m.messages.iter().enumerate() {
                        for (to, &n) in row.iter().enumerate().filter(|(_, n)| **n > 0) {
                            c.write_record([
                                from.to_string(),
                                to.to_string(),
                                n.to_string(),
                                m.bytes[from][to].to_string(),
                            ])?;
                        }
                    }
                    c.flush()?;
                }
                PairsFormat::Table => {
                    writeln!(out, "Messages (rows: sender, columns: receiver)")?;
                    write!(out, "{:>6}", "")?;
                    for to in 0..m.nprocs {
                        write!(out, " {to:>8}")?;
                    }
                    writeln!(out)?;
                    for (from, row) in m.messages.iter().enumerate() {
                        write!(out, "{from:>6}")?;
                        for v in row {
                            write!(out, " {v:>8}")?;
                        }
                        writeln!(out)?;
                    }
                    writeln!(out, "\nBytes")?;
                    for (from, row) in m.bytes.iter().enumerate() {
                        write!(out, "{from:>6}")?;
                        for v in row {
                            write!(out, " {v:>8}")?;
                        }
                        writeln!(out)?;
                    }
                }
            }
            out.flush()?;
        }
        CommCommand::Pairs {
            db,
            select,
            format,
            output,
        } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm pairs")?;
            let mut out = output::open(output.output.as_deref())?;
            // Pairs are formatted in parallel tasks and written in order as
            // the tasks end (millions would not fit in memory); the first
            // write error stops the writing.
            let mut failed: Option<std::io::Error> = None;
            let mut keep = |r: std::io::Result<()>| {
                if let Err(e) = r {
                    failed.get_or_insert(e);
                }
            };
            let sel = select.selection();
            // Text buffers go back to the pool once written: new ones would
            // be page-faulted in again for every task.
            let pool = BufferPool::default();
            let (_, warnings) = match format {
                PairsFormat::Json => {
                    keep(out.write_all(b"{\n  \"pairs\": ["));
                    // Every pair follows a comma but the first.
                    let mut first = true;
                    let r = pair_messages_with(
                        database,
                        &sel,
                        || PairText {
                            text: pool.take(),
                            error: None,
                        },
                        |t: &mut PairText, p: &Pair| {
                            t.text.extend_from_slice(b",\n    ");
                            let r = serde_json::to_writer(&mut t.text, p);
                            t.keep(r.map_err(profparse::report::json::io_error));
                        },
                        &mut |t: PairText| {
                            let mut text = t.text.as_slice();
                            if first && !text.is_empty() {
                                text = &text[1..];
                                first = false;
                            }
                            keep(t.error.map_or(Ok(()), Err));
                            keep(out.write_all(text));
                            pool.give(t.text);
                        },
                    );
                    keep(out.write_all(b"\n  ]"));
                    // The rest of the report, pretty, after the pairs.
                    if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(&r.0) {
                        for (k, v) in m {
                            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
                            keep(write!(out, ",\n  \"{k}\": {}", text.replace('\n', "\n  ")));
                        }
                    }
                    keep(out.write_all(b"\n}\n"));
                    r
                }
                PairsFormat::Csv => {
                    let mut c = csv::Writer::from_writer(&mut out);
                    keep(
                        c.write_record([
                            "from",
                            "to",
                            "tag",
                            "size",
                            "send_time",
                            "recv_time",
                            "latency",
                        ])
                        .map_err(profparse::report::csv::csv_io_error),
                    );
                    keep(c.flush());
                    drop(c);
                    pair_messages_with(
                        database,
                        &sel,
                        || CsvPairs {
                            csv: csv::WriterBuilder::new()
                                .has_headers(false)
                                .from_writer(pool.take()),
                            error: None,
                        },
                        |c: &mut CsvPairs, p: &Pair| {
                            let r = c.csv.serialize((
                                p.from,
                                p.to,
                                p.tag,
                                p.size,
                                p.send_time,
                                p.recv_time,
                                p.latency,
                            ));
                            if let Err(e) = r {
                                c.error
                                    .get_or_insert(profparse::report::csv::csv_io_error(e));
                            }
                        },
                        &mut |c: CsvPairs| {
                            keep(c.error.map_or(Ok(()), Err));
                            match c.csv.into_inner() {
                                Ok(text) => {
                                    keep(out.write_all(&text));
                                    pool.give(text);
                                }
                                Err(e) => keep(Err(e.into_error())),
                            }
                        },
                    )
                }
                PairsFormat::Table => {
                    let r = pair_messages_with(database, &sel, || (), |_, _| {}, &mut |_| {});
                    keep(write_pairs(&mut out, &r.0));
                    r
                }
            };
            drop(bar);
            if let Some(e) = failed {
                return Err(e.into());
            }
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
                return Err(crate::output::UsageError(
                    "comm timeline needs --svg F and/or --chrome F".into(),
                )
                .into());
            }
            let (database, bar) = open_comm_db(&db.db, ctx, "comm timeline")?;
            let window = time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
            if let Some(path) = svg {
                use profparse::analysis::comm_timeline::{time_span, timeline_rows};
                let span = time_span(database, window).unwrap_or((0.0, 1.0));
                let (rows, warnings) = timeline_rows(
                    database,
                    window,
                    span,
                    profparse::report::svg::TIMELINE_COLUMNS,
                );
                ctx.warn_all(&warnings);
                let f = std::fs::File::create(path).map_err(|e| profparse::Error::io(path, e))?;
                let mut w = std::io::BufWriter::new(f);
                profparse::report::svg::timeline_svg(span, &rows, &mut w)?;
                w.flush()?;
            }
            if let Some(path) = chrome {
                let f = std::fs::File::create(path).map_err(|e| profparse::Error::io(path, e))?;
                let mut w = std::io::BufWriter::new(f);
                let (n, warnings) =
                    profparse::report::chrome::write_comm_trace(&mut w, database, window)?;
                w.flush()?;
                // Both outputs meet the same damaged blocks: say it once.
                if svg.is_none() {
                    ctx.warn_all(&warnings);
                }
                ctx.info(1, format!("wrote {n} events to {}", path.display()));
            }
            drop(bar);
        }
        CommCommand::Check { db, format, output } => {
            let (database, bar) = open_comm_db(&db.db, ctx, "comm check")?;
            let r = profparse::analysis::comm_check::comm_check(database);
            drop(bar);
            let mut out = output::open(output.output.as_deref())?;
            match format {
                CommFormat::Json => write_pretty(&mut out, &r)?,
                CommFormat::Table => {
                    writeln!(
                        out,
                        "{}: checked {} processes, {} blocks, {} records, {} barriers, {} name tags",
                        db.db.display(),
                        r.procs,
                        r.blocks,
                        r.records,
                        r.barriers,
                        r.name_tags
                    )?;
                    if r.problems.is_empty() {
                        writeln!(out, "clean")?;
                    } else {
                        writeln!(out, "{} problem(s):", r.problems.len())?;
                        for p in &r.problems {
                            writeln!(out, "  {p}")?;
                        }
                    }
                }
            }
            out.flush()?;
            if !r.problems.is_empty() {
                return Ok(ExitCode::from(crate::context::EXIT_DATA));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_table(w: &mut dyn Write, db: &Database, s: &CommStats) -> std::io::Result<()> {
    let g = db.comm.as_ref();
    let opt = |v: Option<i64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    writeln!(
        w,
        "{}: communication of {} processes",
        db.dir().display(),
        s.nprocs
    )?;
    writeln!(
        w,
        "CommProfVersion {}   CommStatsSize {}   FinestLevel {}   MaxLevel {}",
        opt(g.and_then(|h| h.version)),
        g.map_or(24, |h| h.record_size()),
        opt(g.and_then(|h| h.finest_level)),
        opt(g.and_then(|h| h.max_level))
    )?;
    writeln!(
        w,
        "Records {}   Bytes sent {}   Message sizes {} .. {} bytes",
        s.nrecords,
        s.bytes_sent,
        s.msg_size_min.map_or("-".into(), |v| v.to_string()),
        s.msg_size_max.map_or("-".into(), |v| v.to_string())
    )?;
    match (s.time_min, s.time_max) {
        (Some(a), Some(b)) => writeln!(w, "Time span {a:.9} .. {b:.9} s")?,
        _ => writeln!(w, "Time span -")?,
    }
    if let Some(t) = s.timer_time {
        writeln!(w, "Average timer read {t:.3e} s")?;
    }
    writeln!(
        w,
        "\n{:<14} {:>4} {:>10} {:>10} {:>14}",
        "Function", "#", "Calls", "Records", "Bytes sent"
    )?;
    for t in &s.by_type {
        writeln!(
            w,
            "{:<14} {:>4} {:>10} {:>10} {:>14}",
            t.name, t.number, t.count, t.records, t.bytes
        )?;
    }
    writeln!(
        w,
        "\n{:>5} {:>10} {:>10} {:>8} {:>12} {:>9} {:>9}  Host",
        "Proc", "Records", "Calls", "Sends", "Bytes sent", "Barriers", "NameTags"
    )?;
    for p in &s.procs {
        writeln!(
            w,
            "{:>5} {:>10} {:>10} {:>8} {:>12} {:>9} {:>9}  {}",
            p.proc,
            p.records,
            p.calls,
            p.sends,
            p.bytes_sent,
            p.barriers,
            p.name_tags,
            p.host.as_deref().unwrap_or("-")
        )?;
    }
    Ok(())
}

fn write_barriers(
    w: &mut dyn Write,
    r: &profparse::analysis::comm_sync::BarrierReport,
) -> std::io::Result<()> {
    writeln!(
        w,
        "{:>7}  {:<36} {:>6} {:>12} {:>12} {:>10}",
        "Barrier", "Name", "Procs", "Wait total", "Wait max", "Last in"
    )?;
    for b in &r.barriers {
        writeln!(
            w,
            "{:>7}  {:<36} {:>6} {:>12.6} {:>12.6} {:>10}",
            b.number,
            b.name,
            b.procs.len(),
            b.wait_total,
            b.wait_max,
            b.last_arrival.map_or("-".into(), |p| p.to_string())
        )?;
    }
    writeln!(
        w,
        "\n{:>5} {:>9} {:>12} {:>14}",
        "Proc", "Barriers", "Wait s", "Last arrivals"
    )?;
    for p in &r.procs {
        writeln!(
            w,
            "{:>5} {:>9} {:>12.6} {:>14}",
            p.proc, p.barriers, p.wait, p.last_arrivals
        )?;
    }
    Ok(())
}

/// Emptied text buffers for reuse by parallel formatting tasks.
#[derive(Default)]
struct BufferPool(std::sync::Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    fn give(&self, mut buf: Vec<u8>) {
        buf.clear();
        if let Ok(mut v) = self.0.lock() {
            v.push(buf);
        }
    }
}

/// Pairs formatted by one task of `comm pairs`, and the first error.
struct PairText {
    text: Vec<u8>,
    error: Option<std::io::Error>,
}

impl PairText {
    fn keep(&mut self, r: std::io::Result<()>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }
}

/// Pairs formatted as CSV rows by one task of `comm pairs`, and the first
/// error.
struct CsvPairs {
    csv: csv::Writer<Vec<u8>>,
    error: Option<std::io::Error>,
}

fn write_pairs(
    w: &mut dyn Write,
    r: &profparse::analysis::comm_pairs::PairReport,
) -> std::io::Result<()> {
    writeln!(
        w,
        "{} messages paired; {} sends and {} receives unmatched.",
        r.paired,
        r.unmatched_sends.len(),
        r.unmatched_recvs.len()
    )?;
    writeln!(
        w,
        "Latencies mix two processes' clocks: compare them per pair of processes.\n"
    )?;
    writeln!(
        w,
        "{:>5} {:>5} {:>9} {:>12} {:>14} {:>14}",
        "From", "To", "Messages", "Bytes", "Mean latency", "Max latency"
    )?;
    for x in &r.routes {
        writeln!(
            w,
            "{:>5} {:>5} {:>9} {:>12} {:>14.9} {:>14.9}",
            x.from, x.to, x.messages, x.bytes, x.latency_mean, x.latency_max
        )?;
    }
    for (title, list) in [
        ("Unmatched sends", &r.unmatched_sends),
        ("Unmatched receives", &r.unmatched_recvs),
    ] {
        if list.is_empty() {
            continue;
        }
        writeln!(w, "\n{title} (first 20 of {}):", list.len())?;
        for e in list.iter().take(20) {
            writeln!(
                w,
                "  proc {} {} peer {} tag {} size {} at {:.9}",
                e.proc, e.kind, e.peer, e.tag, e.size, e.time
            )?;
        }
    }
    Ok(())
}
