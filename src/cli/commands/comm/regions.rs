//! `--include-region`, `--exclude-region`, `--filter-file` on the comm
//! reports: the filter turned once into the ranges it selects per process
//! (`analysis::comm_select::ProcRanges`), read from the call traces.

use crate::analysis::comm_select::ProcRanges;
use crate::analysis::filter::FilterNames;
use crate::analysis::regions::Regions;
use crate::formats::blprof::{Database, Part};

use crate::cli::args::RegionArgs;
use crate::cli::commands::trace_common::{region_filter, trace_blocks};
use crate::cli::context::Context;
use crate::cli::progress::Bar;

/// The filter of a comm command, when it asks for one.
pub struct CommRegions {
    /// The ranges and the filter as the JSON names it; `None`: no filter.
    selected: Option<(ProcRanges, FilterNames)>,
}

impl CommRegions {
    /// The ranges selected per process (`None`: everything).
    pub fn ranges(&self) -> Option<&ProcRanges> {
        self.selected.as_ref().map(|s| &s.0)
    }

    /// The filter as the reports' JSON says it (`None` without a filter,
    /// so that unfiltered outputs stay as they were).
    pub fn names(&self) -> Option<FilterNames> {
        self.selected.as_ref().map(|s| s.1.clone())
    }

    /// Reads the regions when `args` filter: the call traces are required
    /// (the error `comm time` gives). The comm progress bar `bar` is
    /// replaced while the regions are read (their units are trace blocks),
    /// and a new one for `what` over the comm processes is returned.
    pub fn load<'c>(
        args: &RegionArgs,
        db: &mut Database,
        ctx: &'c Context,
        bar: Bar<'c>,
        what: &str,
    ) -> anyhow::Result<(Self, Bar<'c>)> {
        let (filter, warnings) = region_filter(args)?;
        ctx.warn_all(&warnings);
        if filter.is_everything() {
            return Ok((CommRegions { selected: None }, bar));
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
        let ranges = ProcRanges::from_filter(&filter, &regions)?;
        let bar = ctx.progress(db.comm_index().procs.len() as u64, what, "processes");
        db.set_progress(bar.hook());
        Ok((
            CommRegions {
                selected: Some((ranges, FilterNames::from(&filter))),
            },
            bar,
        ))
    }
}
