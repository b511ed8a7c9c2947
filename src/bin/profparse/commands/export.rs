//! `profparse export DB --chrome out.json`: timelines for Perfetto / chrome://tracing.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use profparse::analysis::regions::Regions;
use profparse::report::chrome::{ChromeOptions, write_blprof_trace};
use profparse::{Location, Warning};

use super::trace_common::{open_trace_db, trace_blocks};
use crate::cli::DatabaseArg;
use crate::context::Context;
use crate::output::UsageError;

/// Viewers struggle above these (chrome://tracing ~1 M events / 256 MB).
const MANY_EVENTS: u64 = 1_000_000;
const BIG_FILE: u64 = 256 << 20;

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Write Chrome Trace Event JSON (calls and regions, one track pair per process).
    #[arg(long, value_name = "FILE", required_unless_present = "parquet")]
    pub chrome: Option<PathBuf>,
    /// Write the call records, region ranges and comm records as Parquet
    /// tables (calls.parquet, regions.parquet, comm.parquet) into DIR, for
    /// DuckDB, Spark or Trino (docs/SCALING.md). All processes and times.
    #[arg(long, value_name = "DIR")]
    pub parquet: Option<PathBuf>,
    /// Only events overlapping this window, in seconds: `T0..T1`, `T0..` or `..T1`.
    #[arg(long, value_name = "T0..T1", value_parser = parse_window)]
    pub time: Option<(f64, f64)>,
    /// Only this process.
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Leave out calls shorter than this many seconds.
    #[arg(long = "min-dur", value_name = "SECONDS", default_value_t = 0.0)]
    pub min_dur: f64,
}

/// `T0..T1` with either end open.
pub fn parse_window(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected T0..T1, got {s:?}"))?;
    let num = |x: &str, open: f64| -> Result<f64, String> {
        if x.trim().is_empty() {
            Ok(open)
        } else {
            x.trim().parse::<f64>().map_err(|e| format!("{x:?}: {e}"))
        }
    };
    let (t0, t1) = (num(a, f64::NEG_INFINITY)?, num(b, f64::INFINITY)?);
    if t0 > t1 {
        return Err(format!("the window {s:?} ends before it starts"));
    }
    Ok((t0, t1))
}

pub fn run(args: &ExportArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.parquet {
        write_parquet(&args.db.db, dir, ctx)?;
    }
    let Some(chrome) = &args.chrome else {
        return Ok(ExitCode::SUCCESS);
    };
    let mut db = open_trace_db(&args.db.db, ctx)?;
    if let Some(p) = args.proc
        && !db.trace_index().procs.iter().any(|t| t.proc == p)
    {
        return Err(UsageError(format!("--proc {p}: no call traces for that process")).into());
    }
    // Regions (every block), then the calls of the exported processes.
    let bar = ctx.progress(
        trace_blocks(&db, None) + trace_blocks(&db, args.proc),
        "export",
        "blocks",
    );
    db.set_progress(bar.hook());
    let regions = Regions::load(&db);
    ctx.warn_all(&regions.warnings);
    let file = std::fs::File::create(chrome).map_err(|e| profparse::Error::io(chrome, e))?;
    let mut out = std::io::BufWriter::new(file);
    let opts = ChromeOptions {
        window: args.time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)),
        proc: args.proc,
        min_dur: args.min_dur,
    };
    let (events, warnings) = write_blprof_trace(&mut out, &db, &regions, &opts)?;
    out.flush()?;
    drop(bar);
    ctx.warn_all(&warnings);
    let size = std::fs::metadata(chrome).map(|m| m.len()).unwrap_or(0);
    if events > MANY_EVENTS || size > BIG_FILE {
        ctx.warn(&Warning::new(
            Location::file(chrome),
            format!(
                "{events} events, {size} bytes: chrome://tracing loads about 1 M events / 256 MB, Perfetto about 1 GB; \
                 narrow it with --time T0..T1, --proc N or --min-dur SECONDS"
            ),
        ));
    }
    ctx.info(1, format!("wrote {events} events to {}", chrome.display()));
    Ok(ExitCode::SUCCESS)
}

#[cfg(feature = "parquet")]
fn write_parquet(db: &std::path::Path, dir: &std::path::Path, ctx: &Context) -> anyhow::Result<()> {
    let db = profparse::formats::blprof::Database::open(db)?;
    ctx.warn_all(db.warnings());
    if db.call_stats.is_some() {
        ctx.warn_all(&db.trace_index().warnings);
    }
    if db.comm.is_some() {
        ctx.warn_all(&db.comm_index().warnings);
    }
    let regions = db.call_stats.is_some().then(|| Regions::load(&db));
    if let Some(r) = &regions {
        ctx.warn_all(&r.warnings);
    }
    let (rows, warnings) = profparse::report::parquet::write_parquet(&db, regions.as_ref(), dir)?;
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
