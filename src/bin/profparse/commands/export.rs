//! `profparse export DB --chrome out.json`: timelines for Perfetto / chrome://tracing.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use profparse::analysis::regions::Regions;
use profparse::formats::blprof::Part;
use profparse::report::chrome::{ChromeOptions, estimate_export, write_blprof_trace};
use profparse::{Location, Warning};

use super::trace_common::trace_blocks;
use crate::cli::DatabaseArg;
use crate::context::Context;
use crate::output::UsageError;

/// What viewers load (docs/TRACES.md): chrome://tracing about 1 M events
/// or 256 MB of JSON, Perfetto (ui.perfetto.dev) about 1 GB.
const MANY_EVENTS: u64 = 1_000_000;
const CHROME_BYTES: u64 = 256 << 20;
const PERFETTO_BYTES: u64 = 1 << 30;

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Write Chrome Trace Event JSON: per process its calls, regions and
    /// communication calls (one track each), messages as flow arrows.
    #[arg(long, value_name = "FILE", required_unless_present = "parquet")]
    pub chrome: Option<PathBuf>,
    /// Write the call records, region ranges and comm records as Parquet
    /// tables (calls.parquet, regions.parquet, comm.parquet) into DIR, for
    /// DuckDB, Spark or Trino (docs/SCALING.md). All processes and times.
    #[arg(long, value_name = "DIR")]
    pub parquet: Option<PathBuf>,
    /// Only events overlapping this window, in seconds: `T0,T1` or `T0..T1`,
    /// either end open (`T0,`, `..T1`). Messages: both ends inside.
    #[arg(long, value_name = "T0,T1", value_parser = parse_window, allow_hyphen_values = true)]
    pub time: Option<(f64, f64)>,
    /// Only these processes (repeatable, or a list `0,3`). Messages are drawn
    /// between exported processes only.
    #[arg(long = "proc", value_name = "N", value_delimiter = ',')]
    pub procs: Vec<usize>,
    /// Leave out calls (communication calls too) shorter than this many
    /// seconds; instants count as 0 s, messages need both of their calls.
    #[arg(long = "min-dur", value_name = "SECONDS", default_value_t = 0.0)]
    pub min_dur: f64,
    /// Leave out the communication calls and messages (comm profile).
    #[arg(long = "no-comm")]
    pub no_comm: bool,
}

/// `T0,T1` or `T0..T1` with either end open.
pub fn parse_window(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once("..")
        .or_else(|| s.split_once(','))
        .ok_or_else(|| format!("expected T0,T1 or T0..T1, got {s:?}"))?;
    let num = |x: &str, open: f64| -> Result<f64, String> {
        if x.trim().is_empty() {
            Ok(open)
        } else {
            x.trim().parse::<f64>().map_err(|e| format!("{x:?}: {e}"))
        }
    };
    let (t0, t1) = (num(a, f64::NEG_INFINITY)?, num(b, f64::INFINITY)?);
    if t0.is_nan() || t1.is_nan() {
        return Err(format!("the window {s:?} is not a number"));
    }
    if t0 > t1 {
        return Err(format!("the window {s:?} ends before it starts"));
    }
    Ok((t0, t1))
}

/// Megabytes, for messages.
fn mb(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / (1u64 << 20) as f64)
}

pub fn run(args: &ExportArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.parquet {
        write_parquet(&args.db.db, dir, ctx)?;
    }
    let Some(chrome) = &args.chrome else {
        return Ok(ExitCode::SUCCESS);
    };
    let db = super::open_database(&args.db.db)?;
    ctx.warn_all(db.warnings());
    let parts = db.parts();
    let has_trace = parts.contains(&Part::Trace);
    let comm = !args.no_comm && parts.contains(&Part::Comm);
    if !has_trace && !comm {
        return Err(profparse::Error::NotFound(format!(
            "{}: nothing to export: the database has no call traces (TRACE_PROFILE=TRUE){}",
            args.db.db.display(),
            if args.no_comm {
                ""
            } else {
                " and no comm profile (COMM_PROFILE=TRUE)"
            }
        ))
        .into());
    }
    if has_trace {
        ctx.warn_all(&db.trace_index().warnings);
    }
    if comm {
        ctx.warn_all(&db.comm_index().warnings);
    }
    for &p in &args.procs {
        let known = db.trace_index().procs.iter().any(|t| t.proc == p)
            || (comm && db.comm_index().procs.iter().any(|t| t.proc == p));
        if !known {
            return Err(UsageError(format!("--proc {p}: no data of that process")).into());
        }
    }
    if args.min_dur.is_nan() {
        return Err(UsageError("--min-dur must be a number".into()).into());
    }
    let opts = ChromeOptions {
        window: args.time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)),
        procs: (!args.procs.is_empty()).then(|| args.procs.clone()),
        min_dur: args.min_dur,
        comm,
    };
    // Before anything is read: will viewers load it?
    let estimate = estimate_export(db, &opts);
    ctx.info(
        1,
        format!(
            "estimate: about {} events, {}",
            estimate.events,
            mb(estimate.bytes)
        ),
    );
    let advice = "narrow it with --time T0,T1, --proc N, --min-dur SECONDS or --no-comm";
    let warned = estimate.events > MANY_EVENTS || estimate.bytes > CHROME_BYTES;
    if warned {
        let perfetto = if estimate.bytes > PERFETTO_BYTES {
            "more than Perfetto's about 1 GB too"
        } else {
            "Perfetto (ui.perfetto.dev) loads up to about 1 GB"
        };
        ctx.warn(&Warning::new(
            Location::file(chrome),
            format!(
                "the export will hold about {} events ({}): more than chrome://tracing loads (about 1 M events or 256 MB); {perfetto}; {advice}",
                estimate.events,
                mb(estimate.bytes)
            ),
        ));
    }
    // Regions (every block), the calls of the exported processes, the comm pairing.
    let trace_units = if has_trace {
        trace_blocks(db, None)
            + if args.procs.is_empty() {
                trace_blocks(db, None)
            } else {
                args.procs.iter().map(|&p| trace_blocks(db, Some(p))).sum()
            }
    } else {
        0
    };
    let comm_units = if comm {
        db.comm_index().procs.len() as u64
    } else {
        0
    };
    let bar = ctx.progress(trace_units + comm_units, "export", "blocks");
    db.set_progress(bar.hook());
    let regions = has_trace.then(|| Regions::load(db));
    if let Some(r) = &regions {
        ctx.warn_all(&r.warnings);
    }
    let file = std::fs::File::create(chrome).map_err(|e| profparse::Error::io(chrome, e))?;
    let mut out = std::io::BufWriter::new(file);
    let stats = write_blprof_trace(&mut out, db, regions.as_ref(), &opts)?;
    out.flush()?;
    drop(bar);
    ctx.warn_all(&stats.warnings);
    let size = std::fs::metadata(chrome).map(|m| m.len()).unwrap_or(0);
    if !warned && (stats.events > MANY_EVENTS || size > CHROME_BYTES) {
        ctx.warn(&Warning::new(
            Location::file(chrome),
            format!(
                "{} events, {}: chrome://tracing loads about 1 M events or 256 MB, Perfetto about 1 GB; {advice}",
                stats.events,
                mb(size)
            ),
        ));
    }
    ctx.info(
        1,
        format!(
            "wrote {} events ({} communication calls, {} messages) to {}",
            stats.events,
            stats.comm_events,
            stats.flows,
            chrome.display()
        ),
    );
    Ok(ExitCode::SUCCESS)
}
#[cfg(feature = "parquet")]
fn write_parquet(db: &std::path::Path, dir: &std::path::Path, ctx: &Context) -> anyhow::Result<()> {
    // Freed before `--chrome` opens the database again.
    let db = &profparse::formats::blprof::Database::open(db)?;
    ctx.warn_all(db.warnings());
    if db.call_stats.is_some() {
        ctx.warn_all(&db.trace_index().warnings);
    }
    if db.comm.is_some() {
        ctx.warn_all(&db.comm_index().warnings);
    }
    let regions = db.call_stats.is_some().then(|| Regions::load(db));
    if let Some(r) = &regions {
        ctx.warn_all(&r.warnings);
    }
    let (rows, warnings) = profparse::report::parquet::write_parquet(db, regions.as_ref(), dir)?;
    ctx.warn_all(&warnings);
    ctx.info(
        1,
        format!(
            "wrote {} call, {} region and {} comm rows to {}",
            rows.calls,
            rows.regions,
            rows.comm,
            dir.display()
        ),
    );
    Ok(())
}

#[cfg(not(feature = "parquet"))]
fn write_parquet(_: &std::path::Path, _: &std::path::Path, _: &Context) -> anyhow::Result<()> {
    Err(UsageError("this build has no Parquet support (cargo feature `parquet`)".into()).into())
}
