//! `--include-region`, `--exclude-region`, `--filter-file` on the comm
//! reports: the filter turned once into the ranges it selects per process,
//! read from the call traces, and put into the command's scope.

use crate::analysis::comm::scope::CommScope;
use crate::analysis::regions::Regions;
use crate::formats::blprof::{Database, Part};

use crate::cli::args::RegionArgs;
use crate::cli::commands::trace_common::{region_filter, trace_blocks};
use crate::cli::context::Context;
use crate::cli::progress::Bar;

/// Narrows `scope` to the ranges `args` select, reading the regions when
/// they filter: the call traces are required (the error `comm time`
/// gives). The comm progress bar `bar` is replaced while the regions are
/// read (their units are trace blocks), and a new one for `what` over the
/// comm processes is returned.
pub fn filter_scope<'c>(
    args: &RegionArgs,
    db: &mut Database,
    ctx: &'c Context,
    bar: Bar<'c>,
    what: &str,
    scope: &mut CommScope,
) -> anyhow::Result<Bar<'c>> {
    let (filter, warnings) = region_filter(args)?;
    ctx.warn_all(&warnings);
    if filter.is_everything() {
        return Ok(bar);
    }
    db.require(Part::Trace)?;
    ctx.warn_all(&db.trace_index().warnings);
    drop(bar);
    let regions = {
        let bar = ctx.progress(trace_blocks(db, None), what, "blocks");
        db.set_progress(bar.hook());
        Regions::load(db)
    };
    ctx.warn_all(&regions.warnings);
    scope.filter_regions(&filter, &regions)?;
    let bar = ctx.progress(db.comm_index().procs.len() as u64, what, "processes");
    db.set_progress(bar.hook());
    Ok(bar)
}
