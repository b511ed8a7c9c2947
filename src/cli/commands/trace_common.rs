//! Helpers shared by the trace-based commands.

use crate::Warning;
use crate::analysis::filter::RegionFilter;
use crate::analysis::regions::Regions;
use crate::analysis::trace_summary::{Selection, Unfiltered, select_calls};
use crate::formats::blprof::Database;

use crate::cli::args::RegionArgs;
use crate::cli::context::Context;

/// Opens a database that must have call traces.
pub fn open_trace_db(path: &std::path::Path, ctx: &Context) -> anyhow::Result<super::KeptDatabase> {
    let db = super::open_trace_database(path)?;
    ctx.warn_all(db.warnings());
    db.require(crate::formats::blprof::Part::Trace)?;
    ctx.warn_all(&db.trace_index().warnings);
    Ok(db)
}

/// Trace blocks of every process (`None`) or of one: the units of the
/// progress bars (a regions pass reads every block, an analysis those of
/// the processes it covers).
pub fn trace_blocks(db: &Database, proc: Option<usize>) -> u64 {
    db.trace_blocks(proc.as_ref().map(std::slice::from_ref))
        .block_count()
}

/// The region filter the arguments ask for.
pub fn region_filter(args: &RegionArgs) -> anyhow::Result<(RegionFilter, Vec<Warning>)> {
    let mut warnings = Vec::new();
    let file = match &args.filter_file {
        Some(path) => {
            let text = crate::source::read_text_file(path)?;
            Some(RegionFilter::parse_filter_file(&text, path, &mut warnings)?)
        }
        None => None,
    };
    let filter = RegionFilter::with_names(file, &args.include, &args.exclude);
    Ok((filter, warnings))
}

/// The calls `filter` selects ([`select_calls`]), the regions' warnings shown.
pub fn selection(
    db: &Database,
    filter: &RegionFilter,
    unfiltered: Unfiltered,
    ctx: &Context,
) -> anyhow::Result<(Regions, Selection)> {
    let (regions, selection) = select_calls(db, filter, unfiltered);
    ctx.warn_all(&regions.warnings);
    Ok((regions, selection?))
}
