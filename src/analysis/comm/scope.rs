//! What a comm analysis looks at, settled once before it runs: the
//! processes and the time window (blocks outside are never read), the time
//! ranges a region filter selects on each process, and the clock offsets
//! that put every process's times on one clock.
//!
//! The CLI's `comm` commands and the Python package's comm tables build it
//! the same way, step by step (each step may read the database, and a
//! caller shows its own progress between them):
//!
//! ```text
//! CommScope::new(procs, window)      --proc, --time
//!   .filter_regions(filter, regions) --include-region & co. (call traces read)
//!   .align_clocks(offsets)           --align-clocks (clocks::estimate)
//! ```

use std::sync::Arc;

use super::clock_offsets::ClockOffsets;
use super::pair_log::PairLog;
use super::select::{CommSelection, ProcRanges};
use crate::analysis::filter::{FilterNames, RegionFilter};
use crate::analysis::regions::Regions;
use crate::error::Result;

/// The selection, region ranges and clocks of one comm analysis.
#[derive(Debug, Clone)]
pub struct CommScope {
    /// The processes selected (empty: all).
    procs: Vec<usize>,
    /// Seconds, ends included, each process on its own clock.
    window: (f64, f64),
    /// A region filter's ranges per process, and the filter as the JSON
    /// outputs name it (`None`: no filter).
    filter: Option<(ProcRanges, FilterNames)>,
    /// The offsets times are put on one clock with: none (every process
    /// on its own clock) until [`Self::align_clocks`].
    clocks: ClockOffsets,
    aligned: bool,
    /// The estimate's pairing of every message, kept for the wait states
    /// when it is the pairing they would make (see [`Self::pairs_loggable`]).
    pairs: Option<Arc<PairLog>>,
}

impl Default for CommScope {
    fn default() -> Self {
        Self::everything()
    }
}

impl CommScope {
    /// Every process, all the time, no filter, each process on its own
    /// clock.
    pub fn everything() -> Self {
        Self::new(Vec::new(), (f64::NEG_INFINITY, f64::INFINITY))
    }

    /// Only the processes `procs` (empty: all) and the records within
    /// `window` (seconds, ends included; ±infinity: open).
    pub fn new(procs: Vec<usize>, window: (f64, f64)) -> Self {
        CommScope {
            procs,
            window,
            filter: None,
            clocks: ClockOffsets::none(),
            aligned: false,
            pairs: None,
        }
    }

    /// Only the time ranges `filter` selects in `regions` (read from the
    /// call traces). A filter that selects everything changes nothing, so
    /// that unfiltered outputs say no filter. An error names a region
    /// pattern that matches nothing.
    pub fn filter_regions(&mut self, filter: &RegionFilter, regions: &Regions) -> Result<()> {
        if !filter.is_everything() {
            let ranges = ProcRanges::from_filter(filter, regions)?;
            self.filter = Some((ranges, FilterNames::from(filter)));
        }
        Ok(())
    }

    /// Puts all times on one clock: each process's `offsets` (estimated by
    /// `clocks::estimate`, docs/COMM.md) are subtracted.
    pub fn align_clocks(&mut self, offsets: ClockOffsets) {
        self.clocks = offsets;
        self.aligned = true;
    }

    /// [`Self::align_clocks`], keeping the log of the estimate's pairing
    /// (`clocks::estimate_logging_pairs`) for the wait states when it is
    /// the pairing of this scope's messages.
    pub(crate) fn align_clocks_with_pairs(&mut self, offsets: ClockOffsets, pairs: Option<PairLog>) {
        self.align_clocks(offsets);
        self.pairs = pairs.filter(|_| self.pairs_loggable()).map(Arc::new);
    }

    /// Whether the wait states pair the messages as the clock estimate
    /// does: every process, all the time (a region filter selects waits,
    /// not the messages paired).
    pub(crate) fn pairs_loggable(&self) -> bool {
        self.procs.is_empty() && self.window == (f64::NEG_INFINITY, f64::INFINITY)
    }

    /// The estimate's pairing kept by [`Self::align_clocks_with_pairs`].
    pub(super) fn logged_pairs(&self) -> Option<&PairLog> {
        self.pairs.as_deref()
    }

    /// The processes and the window, as the comm walks take them.
    pub fn selection(&self) -> CommSelection<'_> {
        CommSelection {
            window: self.window,
            procs: (!self.procs.is_empty()).then_some(self.procs.as_slice()),
        }
    }

    /// The processes selected (empty: all).
    pub fn procs(&self) -> &[usize] {
        &self.procs
    }

    /// The time window, seconds on each process's own clock.
    pub fn window(&self) -> (f64, f64) {
        self.window
    }

    /// The ranges the region filter selects per process (`None`: no
    /// filter, everything is inside).
    pub fn ranges(&self) -> Option<&ProcRanges> {
        self.filter.as_ref().map(|f| &f.0)
    }

    /// The region filter as the JSON outputs name it (`None`: no filter).
    pub fn filter_names(&self) -> Option<FilterNames> {
        self.filter.as_ref().map(|f| f.1.clone())
    }

    /// The offsets times are put on one clock with: all 0 (each process
    /// on its own clock) unless [`Self::is_aligned`].
    pub fn clocks(&self) -> &ClockOffsets {
        &self.clocks
    }

    /// Whether [`Self::align_clocks`] estimated the offsets.
    pub fn is_aligned(&self) -> bool {
        self.aligned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfiltered_scope_selects_its_processes_and_window_only() {
        let s = CommScope::new(vec![3, 1], (0.5, 2.0));
        let sel = s.selection();
        assert_eq!(sel.procs, Some(&[3, 1][..]));
        assert_eq!(sel.window, (0.5, 2.0));
        assert!(s.ranges().is_none() && s.filter_names().is_none());
        assert!(!s.is_aligned() && s.clocks().procs.is_empty());
        let all = CommScope::everything();
        assert_eq!(all.selection().procs, None);
        assert_eq!(
            all.selection().window,
            (f64::NEG_INFINITY, f64::INFINITY)
        );
    }

    #[test]
    fn a_filter_of_everything_leaves_the_scope_unfiltered() {
        let mut s = CommScope::everything();
        let regions = Regions::default();
        s.filter_regions(&RegionFilter::default(), &regions).unwrap();
        assert!(s.ranges().is_none() && s.filter_names().is_none());
    }
}
