//! What a comm table of a database looks at, turned once from the Python
//! keywords into the library's options, as the CLI's `comm` commands turn
//! `--proc`, `--time`, `--include-region` and `--exclude-region`: the
//! processes (`rank=`), the time window (`time=`), and the time ranges a
//! region filter selects per process (read from the call traces, which a
//! filter needs).

use pyo3::FromPyObject;

use profparse::{CommScope, Database, Part, RegionFilter, Regions, estimate_clock_offsets};

use crate::errors::texts;

/// The Python keywords that select a comm table's data, as the wrapper
/// passes them: a dict with these keys.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct CommArgs {
    pub rank: Option<usize>,
    /// Seconds, ends included (`--time T0..T1`; ±infinity: open).
    pub window: (f64, f64),
    pub include_regions: Vec<String>,
    pub exclude_regions: Vec<String>,
}

/// The library's comm scope of a table, the regions read for it and the
/// warnings of reading them.
pub(crate) struct TableScope {
    pub comm: CommScope,
    /// The regions, when read (a filter, or `regions` asked for them).
    pub regions: Option<Regions>,
    pub warnings: Vec<String>,
}

impl TableScope {
    /// The comm part's scope, or the CLI's error: no comm data, a rank
    /// without comm data, a filter without call traces or matching nothing.
    /// `regions`: read the regions even without a filter (`comm time`
    /// attributes time to them); `align_clocks`: estimate the clock offsets
    /// (`--align-clocks`).
    pub(crate) fn new(
        db: &Database,
        args: &CommArgs,
        regions: bool,
        align_clocks: bool,
    ) -> profparse::Result<Self> {
        db.require(Part::Comm)?;
        let mut warnings = texts(db.comm_warnings());
        if let Some(r) = args.rank
            && !db.comm_procs().any(|p| p == r)
        {
            return Err(profparse::Error::NotFound(format!(
                "rank {r}: no communication data for that process"
            )));
        }
        let mut comm = CommScope::new(args.rank.into_iter().collect(), args.window);
        let filter = RegionFilter::with_names(None, &args.include_regions, &args.exclude_regions);
        if !filter.is_everything() {
            db.require(Part::Trace)?;
        }
        let read = !filter.is_everything() || regions;
        let regions = read.then(|| {
            warnings.extend(texts(db.trace_warnings()));
            let r = Regions::load(db);
            warnings.extend(texts(&r.warnings));
            r
        });
        if let Some(r) = &regions {
            comm.filter_regions(&filter, r)?;
        }
        if align_clocks {
            let (offsets, w) = estimate_clock_offsets(db);
            warnings.extend(texts(&w));
            comm.align_clocks(offsets);
        }
        Ok(TableScope {
            comm,
            regions,
            warnings,
        })
    }
}
