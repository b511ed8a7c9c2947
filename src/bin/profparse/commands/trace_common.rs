//! Helpers shared by the trace-based commands.

use profparse::Warning;
use profparse::analysis::filter::RegionFilter;
use profparse::analysis::ranges::RangeList;
use profparse::analysis::regions::Regions;
use profparse::analysis::trace_summary::Selection;
use profparse::formats::blprof::Database;

use crate::cli::RegionArgs;
use crate::context::Context;

/// Opens a database that must have call traces.
pub fn open_trace_db(
    path: &std::path::Path,
    ctx: &Context,
) -> anyhow::Result<&'static mut Database> {
    let db = super::open_database(path)?;
    ctx.warn_all(db.warnings());
    db.require(profparse::formats::blprof::Part::Trace)?;
    ctx.warn_all(&db.trace_index().warnings);
    Ok(db)
}

/// Trace blocks of every process (`None`) or of one: the units of the
/// progress bars (a regions pass reads every block, an analysis those of
/// the processes it covers).
pub fn trace_blocks(db: &Database, proc: Option<usize>) -> u64 {
    db.trace_index()
        .procs
        .iter()
        .filter(|p| proc.is_none_or(|x| x == p.proc))
        .map(|p| p.blocks.len() as u64)
        .sum()
}

/// The region filter the arguments ask for.
pub fn region_filter(args: &RegionArgs) -> anyhow::Result<(RegionFilter, Vec<Warning>)> {
    let mut warnings = Vec::new();
    let mut f = match &args.filter_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| profparse::Error::io(path, e))?;
            RegionFilter::parse_filter_file(&text, path, &mut warnings)?
        }
        None => RegionFilter::from_names(&args.include, &[]),
    };
    if args.filter_file.is_some() {
        f.include.extend(
            args.include
                .iter()
                .map(|n| profparse::analysis::filter::RegionSel::Name(n.clone())),
        );
    }
    f.exclude.extend(
        args.exclude
            .iter()
            .map(|n| profparse::analysis::filter::RegionSel::Name(n.clone())),
    );
    Ok((f, warnings))
}

/// How "no filter" selects calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfiltered {
    /// amrprofparser's include-all: from the first to the last region
    /// record of the database (-wts parity).
    RegionSpan,
    /// Every call.
    Everything,
}

/// Regions, the filter's time ranges per process, and the selection built from them.
pub fn selection(
    db: &Database,
    filter: &RegionFilter,
    unfiltered: Unfiltered,
    ctx: &Context,
) -> anyhow::Result<(Regions, Selection)> {
    // Nothing to select by: the region records are not read at all.
    if filter.is_everything() && unfiltered == Unfiltered::Everything {
        return Ok((Regions::default(), Selection { ranges: None }));
    }
    let regions = Regions::load(db);
    ctx.warn_all(&regions.warnings);
    let everything =
        filter.is_everything() && (regions.span.is_none() || unfiltered == Unfiltered::Everything);
    let ranges: Option<Vec<RangeList>> = if everything {
        None
    } else {
        Some(filter.time_ranges(&regions)?)
    };
    Ok((regions, Selection { ranges }))
}
