//! What a comm table of a database looks at, turned once from the Python
//! keywords into the library's options, as the CLI's `comm` commands turn
//! `--proc`, `--time`, `--include-region` and `--exclude-region`: the
//! processes (`rank=`), the time window (`time=`), and the time ranges a
//! region filter selects per process (read from the call traces, which a
//! filter needs).

use pyo3::FromPyObject;

use profparse::{CommSelection, Database, Part, ProcRanges, RegionFilter, Regions};

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

/// The selection, the filter's ranges and the warnings of reading them.
pub(crate) struct CommScope {
    procs: Vec<usize>,
    window: (f64, f64),
    /// The region filter's ranges (`None`: no filter).
    pub ranges: Option<ProcRanges>,
    /// The regions, when read (a filter, or `regions` asked for them).
    pub regions: Option<Regions>,
    pub warnings: Vec<String>,
}

impl CommScope {
    /// The comm part's scope, or the CLI's error: no comm data, a rank
    /// without comm data, a filter without call traces or matching nothing.
    /// `regions`: read the regions even without a filter (`comm time`
    /// attributes time to them).
    pub(crate) fn new(db: &Database, args: &CommArgs, regions: bool) -> profparse::Result<Self> {
        db.require(Part::Comm)?;
        let mut warnings = texts(db.comm_warnings());
        if let Some(r) = args.rank
            && !db.comm_procs().any(|p| p == r)
        {
            return Err(profparse::Error::NotFound(format!(
                "rank {r}: no communication data for that process"
            )));
        }
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
        let ranges = match &regions {
            Some(r) if !filter.is_everything() => Some(ProcRanges::from_filter(&filter, r)?),
            _ => None,
        };
        Ok(CommScope {
            procs: args.rank.into_iter().collect(),
            window: args.window,
            ranges,
            regions,
            warnings,
        })
    }

    /// The `--proc` and `--time` selection.
    pub(crate) fn selection(&self) -> CommSelection<'_> {
        CommSelection {
            procs: (!self.procs.is_empty()).then_some(self.procs.as_slice()),
            window: self.window,
        }
    }
}
