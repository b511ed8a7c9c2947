//! Which communication blocks and records a report looks at: a time window
//! and a set of processes (blocks outside are never read) and, with a
//! region filter, the time ranges it selects on each process.
//!
//! The selection is the comm walks' ([`crate::formats::blprof::walk`]),
//! under the name the comm analyses have always used.

use std::collections::BTreeMap;

pub use crate::formats::blprof::walk::BlockSelection as CommSelection;

use crate::analysis::filter::RegionFilter;
use crate::analysis::ranges::RangeList;
use crate::analysis::regions::Regions;
use crate::error::Result;

/// The time ranges a region filter selects, per process, on each process's
/// own clock: a record of process `p` at time `t` is inside when one of
/// `p`'s ranges holds `t` (ends included). A process without region records
/// has no ranges, so nothing of it is inside.
///
/// ```text
/// proc 0 ranges   [1 ── 3]      [6 ─── 9]
/// records         x   x    x      x        x
/// inside          ✓   ✓    ·      ✓        ·
/// ```
///
/// Every comm report applies its filter through [`Self::contains`], so they
/// agree on a record at a range's end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcRanges {
    by_proc: BTreeMap<usize, RangeList>,
    /// What [`Self::of`] gives a process the filter has no ranges for.
    none: RangeList,
}

impl ProcRanges {
    /// The ranges of each process, by process number.
    pub fn new(by_proc: BTreeMap<usize, RangeList>) -> Self {
        ProcRanges {
            by_proc,
            none: RangeList::new(),
        }
    }

    /// The ranges `filter` selects on every process of `regions`. An error
    /// names a region pattern that matches nothing.
    pub fn from_filter(filter: &RegionFilter, regions: &Regions) -> Result<Self> {
        let lists = filter.time_ranges(regions)?;
        Ok(ProcRanges::new(
            regions.procs.iter().map(|p| p.proc).zip(lists).collect(),
        ))
    }

    /// The ranges of process `proc` (empty for a process without regions).
    pub fn of(&self, proc: usize) -> &RangeList {
        self.by_proc.get(&proc).unwrap_or(&self.none)
    }

    /// Whether time `t` of process `proc` (its own clock) is inside: a
    /// binary search over its sorted ranges. NaN is never inside.
    pub fn contains(&self, proc: usize, t: f64) -> bool {
        self.of(proc).contains(t)
    }
}

/// Whether time `t` of process `proc` is selected: always without a filter
/// (`None`), else when `ranges` holds it.
#[inline]
pub fn inside(ranges: Option<&ProcRanges>, proc: usize, t: f64) -> bool {
    ranges.is_none_or(|r| r.contains(proc, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ranges::TimeRange;

    #[test]
    fn a_time_is_inside_only_the_ranges_of_its_own_process() {
        let list = RangeList::union_of(vec![TimeRange::new(1.0, 3.0), TimeRange::new(6.0, 9.0)]);
        let r = ProcRanges::new(BTreeMap::from([(0, list)]));
        let got: Vec<bool> = [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 9.0, 9.5, f64::NAN]
            .iter()
            .map(|&t| r.contains(0, t))
            .collect();
        assert_eq!(
            got,
            [false, true, true, true, false, true, true, false, false]
        );
        // Process 1 has no ranges: nothing of it is inside.
        assert!(!r.contains(1, 2.0));
        assert!(r.of(1).is_empty());
        assert!(inside(None, 1, 2.0));
        assert!(!inside(Some(&r), 1, 2.0));
    }
}
