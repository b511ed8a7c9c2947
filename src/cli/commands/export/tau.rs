//! `profparse export --tau DIR`: a TAU profile per process.

use std::path::Path;

use crate::Location;
use crate::export::tau::{TauOutcome, write_tau};
use crate::report::numfmt;

use super::ExportArgs;
use crate::cli::commands::trace_common::{open_trace_db, trace_blocks};
use crate::cli::context::Context;
use crate::cli::output::UsageError;

pub fn write(args: &ExportArgs, dir: &Path, ctx: &Context) -> anyhow::Result<()> {
    let mut kept = open_trace_db(&args.db.db, ctx)?;
    let db = &mut *kept;
    for &p in &args.procs {
        if !db.trace_index().procs.iter().any(|t| t.proc == p) {
            return Err(UsageError(format!("--proc {p}: no call traces for that process")).into());
        }
    }
    let procs = (!args.procs.is_empty()).then(|| {
        let mut p = args.procs.clone();
        p.sort_unstable();
        p.dedup();
        p
    });
    let blocks: u64 = match &procs {
        None => trace_blocks(db, None),
        Some(ps) => ps.iter().map(|&p| trace_blocks(db, Some(p))).sum(),
    };
    let bar = ctx.progress(blocks, "TAU profiles", "blocks");
    db.set_progress(bar.hook());
    let (outcome, warnings) = write_tau(db, dir, procs.as_deref(), ctx.output_budget())?;
    drop(bar);
    ctx.warn_all(&warnings);
    match outcome {
        TauOutcome::OverBudget { estimate } => {
            return Err(ctx
                .output_refusal(
                    estimate,
                    "the TAU profiles",
                    "export fewer processes (--proc)",
                )
                .into());
        }
        TauOutcome::Written {
            profiles,
            bytes,
            others,
        } => {
            if others > 0 {
                ctx.warn(&crate::Warning::note(
                    Location::file(dir),
                    format!(
                        "{others} other profile.* files are in this directory (another export?): \
                         TAU readers will read them too"
                    ),
                ));
            }
            ctx.info(
                1,
                format!(
                    "wrote {profiles} TAU profiles ({}) to {}",
                    numfmt::human::bytes(bytes),
                    dir.display()
                ),
            );
        }
    }
    Ok(())
}
