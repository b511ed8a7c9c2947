//! `profparse export --chrome FILE`: Chrome Trace Event JSON, with a word
//! before and after writing when viewers will not load it
//! (`export::chrome::limits`).

use std::path::Path;

use crate::analysis::regions::Regions;
use crate::export::chrome::{ChromeOptions, estimate_export, limits, write_blprof_trace};
use crate::formats::blprof::Part;
use crate::{Location, Warning};

use super::ExportArgs;
use crate::cli::commands::trace_common::trace_blocks;
use crate::cli::context::Context;
use crate::cli::output::UsageError;

pub fn write(args: &ExportArgs, chrome: &Path, ctx: &Context) -> anyhow::Result<()> {
    let mut kept = crate::cli::commands::open_database(&args.db.db)?;
    let db = &mut *kept;
    ctx.warn_all(db.warnings());
    let parts = db.parts();
    let has_trace = parts.contains(&Part::Trace);
    let comm = !args.no_comm && parts.contains(&Part::Comm);
    if !has_trace && !comm {
        return Err(crate::Error::NotFound(format!(
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
    if args.align_clocks && !parts.contains(&Part::Comm) {
        return Err(UsageError(format!(
            "--align-clocks: {} has no comm profile (COMM_PROFILE=TRUE) to estimate the clocks from",
            args.db.db.display()
        ))
        .into());
    }
    let mut opts = ChromeOptions {
        window: args.time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)),
        procs: (!args.procs.is_empty()).then(|| args.procs.clone()),
        min_dur: args.min_dur,
        comm,
        call_args: args.call_args.into(),
        clocks: None,
    };
    // Before anything is read: will viewers load it?
    let estimate = estimate_export(db, &opts);
    ctx.info(1, limits::describe_estimate(&estimate));
    if let Some(message) = limits::before_export(&estimate) {
        ctx.warn(&Warning::new(Location::file(chrome), message));
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
    if args.align_clocks {
        let (clocks, warnings) = crate::analysis::comm::clocks::estimate(db);
        ctx.warn_all(&warnings);
        opts.clocks = Some(clocks);
    }
    let regions = has_trace.then(|| Regions::load(db));
    if let Some(r) = &regions {
        ctx.warn_all(&r.warnings);
    }
    let mut written = None;
    crate::cli::output::write_file(chrome, |out| {
        written = Some(write_blprof_trace(out, db, regions.as_ref(), &opts)?);
        Ok(())
    })?;
    let stats = written.expect("write_file ran the writer or failed");
    drop(bar);
    ctx.warn_all(&stats.warnings);
    let size = std::fs::metadata(chrome).map(|m| m.len()).unwrap_or(0);
    if let Some(message) = limits::after_export(&estimate, stats.events, size) {
        ctx.warn(&Warning::new(Location::file(chrome), message));
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
    Ok(())
}
