//! Region time ranges: start/stop records paired per process, over all of
//! its blocks in order (BLPROF_FORMAT.md §6.3, BLPROF_REAL_DATA.md §6).
//!
//! Pairing uses a stack per region: a stop closes the most recent open start
//! of that region. Region records are not time-ordered in the file (the
//! writer stamps a `__NoRegion__` stop after the user start it precedes), so
//! pairing is by region, never by time. A stop with no open start is counted
//! and ignored for ranges: stock AMReX `Amr::timeStep` stops
//! `amr_level.advance` without ever starting it.
//!
//! `__NoRegion__` means "no user region open": its ranges are the gaps
//! between the union of the process's user-region ranges, within the span of
//! the process's region records. They are not paired from its own records,
//! because AMReX writes those from a counter of open regions, and a stop
//! without a start drives that counter negative: the records then leave one
//! `__NoRegion__` range open across every later user region. On healthy data
//! the two agree (the writer's own ranges end a few microseconds after the
//! user start they precede, and that start's calls come later).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use smallvec::SmallVec;

use super::ranges::{RangeList, TimeRange, gap_count_of_union};
use crate::error::{Location, Warning};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::TraceProcWalk;
use crate::model::procs::process_list;

/// Number of `__NoRegion__`, always registered first.
pub const NO_REGION: i32 = 0;

/// One process's regions.
#[derive(Debug, Clone, Default)]
pub struct ProcRegions {
    pub proc: usize,
    /// Closed ranges per region number, in start order; `__NoRegion__`'s are
    /// the gaps between the user regions' ranges.
    pub ranges: BTreeMap<i32, Vec<TimeRange>>,
    /// Stops that found no open start, per region.
    pub unmatched_stops: BTreeMap<i32, usize>,
    /// User-region starts never stopped.
    pub unmatched_starts: BTreeMap<i32, usize>,
    /// Earliest and latest region record time.
    pub time_span: Option<(f64, f64)>,
}

impl ProcRegions {
    /// Pairs a process's region records (all blocks, in order).
    pub fn pair(proc: usize, records: impl IntoIterator<Item = (f64, i32, bool)>) -> Self {
        let mut out = ProcRegions {
            proc,
            ..Default::default()
        };
        let mut open: BTreeMap<i32, Vec<f64>> = BTreeMap::new();
        for (time, number, start) in records {
            if number < 0 {
                continue;
            }
            out.time_span = Some(match out.time_span {
                None => (time, time),
                Some((a, b)) => (a.min(time), b.max(time)),
            });
            if number == NO_REGION {
                continue;
            }
            if start {
                open.entry(number).or_default().push(time);
            } else if let Some(t0) = open.get_mut(&number).and_then(Vec::pop) {
                out.ranges
                    .entry(number)
                    .or_default()
                    .push(TimeRange::new(t0, time));
            } else {
                *out.unmatched_stops.entry(number).or_default() += 1;
            }
        }
        for (number, starts) in open {
            if !starts.is_empty() {
                out.unmatched_starts.insert(number, starts.len());
            }
        }
        for v in out.ranges.values_mut() {
            v.sort_by(|a, b| a.start.total_cmp(&b.start));
        }
        if let Some(span) = out.time_span {
            let gaps = out.outside_user_regions(span);
            if !gaps.is_empty() {
                out.ranges.insert(NO_REGION, gaps);
            }
        }
        out
    }

    /// The parts of `span` that no user-region range covers (zero-length
    /// gaps left out).
    fn outside_user_regions(&self, span: (f64, f64)) -> Vec<TimeRange> {
        let mut user = Vec::with_capacity(self.ranges.values().map(Vec::len).sum());
        for v in self.ranges.values() {
            user.extend_from_slice(v);
        }
        RangeList::union_of(user).gaps_within(TimeRange::new(span.0, span.1))
    }

    /// Total seconds inside region `number`.
    pub fn total(&self, number: i32) -> f64 {
        self.ranges
            .get(&number)
            .map_or(0.0, |v| v.iter().map(TimeRange::len).sum())
    }
}

/// What an integrity check keeps of one process's regions: how many
/// ranges each region has and the records that did not pair, not the
/// ranges themselves (at 16,384 processes those were most of a check's
/// heap, allocated and freed one process at a time).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcRegionCounts {
    pub proc: usize,
    /// Closed ranges per region number with any, in number order
    /// (`__NoRegion__`'s gaps included).
    pub ranges: SmallVec<[(i32, usize); 8]>,
    /// Ranges that stop before they start.
    pub backwards: usize,
    /// Stops that found no open start, per region.
    pub unmatched_stops: BTreeMap<i32, usize>,
    /// User-region starts never stopped.
    pub unmatched_starts: BTreeMap<i32, usize>,
}

impl ProcRegionCounts {
    /// The closed ranges of region `number` (0 without any).
    pub fn ranges_of(&self, number: i32) -> usize {
        self.ranges
            .binary_search_by_key(&number, |(n, _)| *n)
            .map_or(0, |i| self.ranges[i].1)
    }
}

impl ProcRegionCounts {
    /// Pairs a process's region records (all blocks, in order) as
    /// [`ProcRegions::pair`] does and keeps only the counts, in buffers
    /// reused by the thread from process to process: pairing into maps of
    /// vectors cost a dozen allocations per process, the most of a check
    /// at 16,384 processes after the reading.
    pub fn count(proc: usize, records: impl IntoIterator<Item = (f64, i32, bool)>) -> Self {
        RegionCounter::with(|counter| counter.count(proc, records))
    }
}

/// One user region's pairing state on the process being counted.
#[derive(Default)]
struct RegionTally {
    /// Whether the process has a record of this region.
    seen: bool,
    /// Start times not yet stopped, the most recent last.
    open: Vec<f64>,
    /// Closed ranges.
    closed: usize,
    /// Stops that found no open start.
    unmatched_stops: usize,
}

impl RegionTally {
    /// Unseen and empty, the stack's capacity kept.
    fn reset(&mut self) {
        self.seen = false;
        self.open.clear();
        self.closed = 0;
        self.unmatched_stops = 0;
    }
}

/// A thread's buffers for [`ProcRegionCounts::count`].
#[derive(Default)]
struct RegionCounter {
    /// Per user region number: kept from one process to the next while
    /// the processes have it (processes mostly have the same regions), so
    /// their stacks keep their capacity.
    tallies: BTreeMap<i32, RegionTally>,
    /// The closed user ranges, with their region number, in closing order.
    closed: Vec<(TimeRange, i32)>,
    /// The same ranges in the order `ProcRegions::pair` unites them.
    user: Vec<TimeRange>,
}

thread_local! {
    static REGION_COUNTER: RefCell<RegionCounter> = RefCell::default();
}

impl RegionCounter {
    fn with<R>(f: impl FnOnce(&mut RegionCounter) -> R) -> R {
        REGION_COUNTER.with(|c| f(&mut c.borrow_mut()))
    }

    fn count(
        &mut self,
        proc: usize,
        records: impl IntoIterator<Item = (f64, i32, bool)>,
    ) -> ProcRegionCounts {
        // Regions the last process did not have are dropped: the map
        // stays the size of one process's regions.
        self.tallies.retain(|_, t| t.seen);
        self.tallies.values_mut().for_each(RegionTally::reset);
        self.closed.clear();
        let mut out = ProcRegionCounts {
            proc,
            ..Default::default()
        };
        let mut time_span: Option<(f64, f64)> = None;
        for (time, number, start) in records {
            if number < 0 {
                continue;
            }
            time_span = Some(match time_span {
                None => (time, time),
                Some((a, b)) => (a.min(time), b.max(time)),
            });
            if number == NO_REGION {
                continue;
            }
            let tally = self.tallies.entry(number).or_default();
            tally.seen = true;
            if start {
                tally.open.push(time);
            } else if let Some(t0) = tally.open.pop() {
                tally.closed += 1;
                let range = TimeRange::new(t0, time);
                out.backwards += usize::from(range.stop < range.start);
                self.closed.push((range, number));
            } else {
                tally.unmatched_stops += 1;
            }
        }
        if let Some((a, b)) = time_span {
            let gaps = self.gaps_outside_user_regions(TimeRange::new(a, b));
            if gaps > 0 {
                out.ranges.push((NO_REGION, gaps));
            }
        }
        for (&number, t) in self.tallies.iter().filter(|(_, t)| t.seen) {
            if t.closed > 0 {
                out.ranges.push((number, t.closed));
            }
            if t.unmatched_stops > 0 {
                out.unmatched_stops.insert(number, t.unmatched_stops);
            }
            if !t.open.is_empty() {
                out.unmatched_starts.insert(number, t.open.len());
            }
        }
        out
    }

    /// How many `__NoRegion__` ranges [`ProcRegions::pair`] makes of
    /// `span`: its user ranges, each region's sorted by start and the
    /// regions in number order, sorted again by start (both sorts stable:
    /// with NaN stops the order of equal starts changes the union).
    fn gaps_outside_user_regions(&mut self, span: TimeRange) -> usize {
        self.closed
            .sort_by(|(a, na), (b, nb)| a.start.total_cmp(&b.start).then(na.cmp(nb)));
        self.user.clear();
        self.user.extend(self.closed.iter().map(|(r, _)| *r));
        gap_count_of_union(&mut self.user, span)
    }
}

/// Regions of every process of a database.
#[derive(Debug, Default)]
pub struct Regions {
    /// Sorted by process.
    pub procs: Vec<ProcRegions>,
    /// Names by number (rank 0's table in `bl_call_stats_H`).
    pub names: BTreeMap<i32, String>,
    /// Earliest and latest region record over all processes: the range of
    /// "include everything" (the reference's min/maxRegionTime).
    pub span: Option<(f64, f64)>,
    /// What could not be read.
    pub warnings: Vec<Warning>,
}

impl Regions {
    /// Reads and pairs the region records of every process, in parallel.
    pub fn load(db: &Database) -> Regions {
        Regions::from_procs(db, db.trace_blocks(None).map_procs(load_proc))
    }

    /// The regions of `db` from every process's paired records and the
    /// warnings of reading them, in process order.
    fn from_procs(db: &Database, per_proc: Vec<(ProcRegions, Vec<Warning>)>) -> Regions {
        let mut regions = Regions {
            names: region_names(db),
            ..Default::default()
        };
        for (p, w) in per_proc {
            regions.warnings.extend(w);
            if let Some((a, b)) = p.time_span {
                regions.span = Some(match regions.span {
                    None => (a, b),
                    Some((x, y)) => (x.min(a), y.max(b)),
                });
            }
            regions.procs.push(p);
        }
        let unpaired = regions.unpaired_records(&Location::file(db.dir()));
        regions.warnings.extend(unpaired);
        regions
    }

    /// One message per region and kind of unpaired record, over all
    /// processes (see [`unpaired_records`]).
    fn unpaired_records(&self, location: &Location) -> Vec<Warning> {
        let procs = self
            .procs
            .iter()
            .map(|p| (p.proc, &p.unmatched_starts, &p.unmatched_stops));
        unpaired_records(&self.names, procs, self.procs.len(), location)
    }

    /// The region's name (`region N` when the names table lacks it).
    pub fn name(&self, number: i32) -> String {
        region_name(&self.names, number)
    }

    /// Every region number seen in the names table or in any process.
    pub fn numbers(&self) -> Vec<i32> {
        // Each thread gathers its processes' numbers in a set, and the sets
        // are merged (gathering a number per process and region and sorting
        // them all was a serial pause of milliseconds at 16,384 processes).
        // A set, not a sorted list with inserts: numbers interleaved over
        // processes would make those inserts quadratic in a damaged file's
        // many region numbers.
        let mut all = self
            .procs
            .par_iter()
            .fold(BTreeSet::new, |mut set, p| {
                set.extend(p.ranges.keys().copied());
                set
            })
            .reduce(BTreeSet::new, |mut a, b| {
                a.extend(b);
                a
            });
        all.extend(self.names.keys().copied());
        all.into_iter().collect()
    }

    /// The ranges of process `proc`, if it has any.
    pub fn proc(&self, proc: usize) -> Option<&ProcRegions> {
        self.procs
            .binary_search_by_key(&proc, |p| p.proc)
            .ok()
            .map(|i| &self.procs[i])
    }
}

/// Region names by number (rank 0's table in `bl_call_stats_H`).
pub fn region_names(db: &Database) -> BTreeMap<i32, String> {
    let mut names = BTreeMap::new();
    if let Some(h) = &db.call_stats {
        for r in &h.regions {
            if let Ok(n) = i32::try_from(r.number) {
                names.insert(n, r.name.clone());
            }
        }
    }
    names
}

/// The name of region `number` in `names` (`region N` when it lacks it).
pub fn region_name(names: &BTreeMap<i32, String>, number: i32) -> String {
    names
        .get(&number)
        .cloned()
        .unwrap_or_else(|| format!("region {number}"))
}

/// Unpaired records of one process: its number, and its starts never
/// stopped and stops without a start, per region.
pub type Unpaired<'a> = (usize, &'a BTreeMap<i32, usize>, &'a BTreeMap<i32, usize>);

/// One message per region and kind of unpaired record, over the `nprocs`
/// processes `procs`: starts never stopped are damage (a run cut short),
/// stops without a start a known quirk of stock AMReX (a note).
pub fn unpaired_records<'a>(
    names: &BTreeMap<i32, String>,
    procs: impl Iterator<Item = Unpaired<'a>>,
    nprocs: usize,
    location: &Location,
) -> Vec<Warning> {
    let mut starts: BTreeMap<i32, Vec<(usize, usize)>> = BTreeMap::new();
    let mut stops: BTreeMap<i32, Vec<(usize, usize)>> = BTreeMap::new();
    for (proc, unmatched_starts, unmatched_stops) in procs {
        for (&n, &c) in unmatched_starts {
            starts.entry(n).or_default().push((proc, c));
        }
        for (&n, &c) in unmatched_stops {
            stops.entry(n).or_default().push((proc, c));
        }
    }
    let mut out = Vec::new();
    let numbers: BTreeSet<i32> = starts.keys().chain(stops.keys()).copied().collect();
    for n in numbers {
        if let Some(per_proc) = starts.get(&n) {
            let what = "starts never stopped";
            let text = unpaired_text(names, n, what, per_proc, nprocs);
            out.push(Warning::new(
                location.clone(),
                format!("{text}; left out of its time ranges"),
            ));
        }
        if let Some(per_proc) = stops.get(&n) {
            let text = unpaired_text(names, n, "stops without a start", per_proc, nprocs);
            out.push(Warning::note(
                location.clone(),
                format!("{text}; ignored for its time ranges"),
            ));
        }
    }
    out
}

/// `region "R" (number 5): 140 stops without a start on each of 8
/// processes`, or with the counts and processes when they differ.
fn unpaired_text(
    names: &BTreeMap<i32, String>,
    n: i32,
    what: &str,
    per_proc: &[(usize, usize)],
    nprocs: usize,
) -> String {
    let region = match names.get(&n) {
        Some(name) => format!("region \"{name}\" (number {n})"),
        None => format!("region {n}"),
    };
    let mut by_count: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(proc, count) in per_proc {
        by_count.entry(count).or_default().push(proc);
    }
    if per_proc.len() == nprocs && by_count.len() == 1 {
        let count = per_proc[0].1;
        let each = if nprocs == 1 {
            "on its 1 process".to_string()
        } else {
            format!("on each of {nprocs} processes")
        };
        return format!("{region}: {count} {what} {each}");
    }
    /// Counts listed before the rest are summed up.
    const MAX_GROUPS: usize = 4;
    let groups: Vec<String> = by_count
        .iter()
        .rev()
        .take(MAX_GROUPS)
        .map(|(count, procs)| {
            let on = if procs.len() == 1 {
                "process"
            } else {
                "processes"
            };
            format!("{count} on {on} {}", process_list(procs, 6))
        })
        .collect();
    let more = if by_count.len() > MAX_GROUPS {
        ", …"
    } else {
        ""
    };
    format!(
        "{region}: {what} on {} of {nprocs} processes ({}{more})",
        per_proc.len(),
        groups.join("; ")
    )
}

fn load_proc(p: TraceProcWalk<'_>) -> (ProcRegions, Vec<Warning>) {
    let mut warnings = Vec::new();
    let mut records = Vec::new();
    for b in p.blocks() {
        match b.regions() {
            Ok(r) => records.extend(r.into_iter().map(|r| (r.time, r.number, r.start))),
            Err(w) => warnings.push(w),
        }
    }
    (ProcRegions::pair(p.proc().proc, records), warnings)
}

/// One region over all processes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RegionStats {
    /// The region's name.
    pub name: String,
    /// The region's number.
    pub number: i32,
    /// Closed ranges over all processes.
    pub count: usize,
    /// Seconds inside the region, summed over processes.
    pub total: f64,
    /// Per-process seconds: min / avg / max over processes.
    pub min: f64,
    /// Mean seconds over processes.
    pub avg: f64,
    /// Largest seconds on one process.
    pub max: f64,
    /// The process with the largest (the lowest of equals).
    pub max_proc: Option<usize>,
}

/// Statistics of every region, in region-number order.
pub fn region_stats(regions: &Regions) -> Vec<RegionStats> {
    region_stats_within(regions, STATS_CELLS_AT_ONCE)
}

/// [`region_stats`] with a table of at most `cells_at_once` cells (one
/// process's share at least).
fn region_stats_within(regions: &Regions, cells_at_once: usize) -> Vec<RegionStats> {
    let numbers = regions.numbers();
    // Each process's seconds and ranges per region, looked up and summed in
    // parallel (a map lookup and a sum per process and region), a share of
    // the regions at a time so that the table stays within
    // `cells_at_once` whatever the numbers of regions and processes;
    // the sums over processes stay in process order, the same bits.
    let procs = regions.procs.len().max(1);
    let per_pass = (cells_at_once / procs).max(1);
    let mut cells = Vec::new();
    let mut out = Vec::with_capacity(numbers.len());
    for share in numbers.chunks(per_pass) {
        cells.clear();
        cells.resize(regions.procs.len() * share.len(), (0.0, 0usize));
        cells
            .par_chunks_mut(share.len())
            .zip(&regions.procs)
            .for_each(|(row, p)| {
                for (cell, &n) in row.iter_mut().zip(share) {
                    *cell = (p.total(n), p.ranges.get(&n).map_or(0, Vec::len));
                }
            });
        for (i, &n) in share.iter().enumerate() {
            let rows = cells.chunks(share.len()).map(|row| row[i]);
            out.push(one_region_stats(regions, n, rows));
        }
    }
    out
}

/// Cells of [`region_stats`]' table at once (16 bytes each).
const STATS_CELLS_AT_ONCE: usize = 1 << 20;

/// Region `n`'s statistics from each process's (seconds, ranges) in it, in
/// process order.
fn one_region_stats(
    regions: &Regions,
    n: i32,
    per_proc: impl Iterator<Item = (f64, usize)>,
) -> RegionStats {
    let nprocs = regions.procs.len().max(1) as f64;
    let mut s = RegionStats {
        name: regions.name(n),
        number: n,
        count: 0,
        total: 0.0,
        min: f64::INFINITY,
        avg: 0.0,
        max: f64::NEG_INFINITY,
        max_proc: None,
    };
    for (p, (t, count)) in regions.procs.iter().zip(per_proc) {
        s.count += count;
        s.total += t;
        s.min = s.min.min(t);
        if t > s.max {
            s.max = t;
            s.max_proc = Some(p.proc);
        }
    }
    if regions.procs.is_empty() {
        s.min = 0.0;
        s.max = 0.0;
    }
    s.avg = s.total / nprocs;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number once, ascending, from the names and every process,
    /// however the processes' numbers interleave.
    #[test]
    fn numbers_are_the_sorted_union() {
        let procs = (0..3)
            .map(|p| {
                let records = (0..2_000).flat_map(|i| {
                    let (r, t) = (i * 3 + p, f64::from(i * 3 + p));
                    [(t, r, true), (t + 0.5, r, false)]
                });
                ProcRegions::pair(p as usize, records)
            })
            .collect();
        let regions = Regions {
            procs,
            names: [(7, "seven".to_owned()), (-1, "unused".to_owned())].into(),
            ..Default::default()
        };
        let expected: Vec<i32> = std::iter::once(-1).chain(0..6_000).collect();
        assert_eq!(regions.numbers(), expected);
    }

    /// The statistics come out the same however few regions a pass takes.
    #[test]
    fn region_stats_in_passes_are_the_stats_at_once() {
        let procs = (0..5)
            .map(|p| {
                let records = (0..7).flat_map(|r| {
                    let t = f64::from(p * 10 + r);
                    [(t, r, true), (t + 0.1 * f64::from(p + 1), r, false)]
                });
                ProcRegions::pair(p as usize, records)
            })
            .collect();
        let regions = Regions {
            procs,
            ..Default::default()
        };
        let key = |v: Vec<RegionStats>| format!("{v:?}");
        let at_once = key(region_stats_within(&regions, usize::MAX));
        assert!(at_once.contains("max_proc: Some(4)"), "{at_once}");
        for cells in [1, 5, 10, 12, 35] {
            assert_eq!(key(region_stats_within(&regions, cells)), at_once, "{cells}");
        }
    }

    #[test]
    fn pairs_by_region_not_by_time() {
        // The writer's order: NoRegion start, (t2 NoRegion stop) before (t1 user start), t1 < t2.
        let r = ProcRegions::pair(
            0,
            [
                (0.1, 0, true),
                (0.31, 0, false),
                (0.30, 2, true),
                (0.50, 2, false),
                (0.50, 0, true),
                (0.60, 0, false),
                (0.60, 0, true),
            ],
        );
        assert_eq!(r.ranges[&2], vec![TimeRange::new(0.30, 0.50)]);
        assert_eq!(
            r.ranges[&0],
            vec![TimeRange::new(0.1, 0.30), TimeRange::new(0.5, 0.6)],
            "__NoRegion__: the gaps between user ranges"
        );
        assert!(r.unmatched_starts.is_empty(), "__NoRegion__ not paired");
        assert_eq!(r.time_span, Some((0.1, 0.6)));
        assert!((r.total(2) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn nested_restarts_and_unmatched_records() {
        let r = ProcRegions::pair(
            0,
            [
                (1.0, 3, true),
                (2.0, 3, true),
                (3.0, 3, false),
                (4.0, 3, false),
                (5.0, 4, false),
                (6.0, 5, true),
                (-1.0, -2, true),
            ],
        );
        assert_eq!(
            r.ranges[&3],
            vec![TimeRange::new(1.0, 4.0), TimeRange::new(2.0, 3.0)]
        );
        assert_eq!(r.unmatched_stops[&4], 1);
        assert_eq!(r.unmatched_starts[&5], 1);
    }

    /// A check keeps each region's number of ranges (`__NoRegion__`'s gaps
    /// included), the ranges that go back, and the unpaired records.
    #[test]
    fn counts_keep_ranges_per_region_and_unpaired_records() {
        let records = [
            (1.0, 3, true),
            (2.0, 3, false),
            (3.0, 3, true),
            (2.5, 3, false),
            (4.0, 2, true),
            (5.0, 2, false),
            (5.5, 2, true),
            (5.5, 2, false),
            (6.0, 4, false),
            (7.0, 5, true),
        ];
        let r = ProcRegions::pair(7, records);
        let c = ProcRegionCounts::count(7, records);
        assert_eq!(c, counts_of(&r));
        assert_eq!(c.proc, 7);
        let want: Vec<(i32, usize)> = r.ranges.iter().map(|(&n, v)| (n, v.len())).collect();
        assert_eq!(c.ranges.to_vec(), want);
        assert_eq!(c.ranges_of(3), 2);
        assert_eq!(c.ranges_of(NO_REGION), r.ranges[&NO_REGION].len());
        assert_eq!(c.ranges_of(9), 0);
        assert_eq!(c.ranges_of(2), 2);
        assert_eq!(c.backwards, 1, "3.0 .. 2.5, not 5.5 .. 5.5");
        assert_eq!(c.unmatched_stops, r.unmatched_stops);
        assert_eq!(c.unmatched_starts, r.unmatched_starts);
    }

    /// The counts of a process's paired regions, straight from its ranges.
    fn counts_of(p: &ProcRegions) -> ProcRegionCounts {
        ProcRegionCounts {
            proc: p.proc,
            ranges: p.ranges.iter().map(|(&n, v)| (n, v.len())).collect(),
            backwards: (p.ranges.values().flatten())
                .filter(|t| t.stop < t.start)
                .count(),
            unmatched_stops: p.unmatched_stops.clone(),
            unmatched_starts: p.unmatched_starts.clone(),
        }
    }

    /// Counting gives what pairing gives, on processes one after another on
    /// the same thread (its buffers reused) whose regions come and go, with
    /// times out of order, equal starts and NaN.
    #[test]
    fn counts_are_those_of_the_paired_ranges() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for proc in 0..400 {
            let nregions = 1 + next(6) as i32;
            let records: Vec<(f64, i32, bool)> = (0..next(40))
                .map(|_| {
                    let time = match next(20) {
                        0 => f64::NAN,
                        1 => 0.0,
                        k => k as f64 * 0.5,
                    };
                    (time, next(nregions as u64 + 1) as i32 - 1, next(2) == 0)
                })
                .collect();
            let want = counts_of(&ProcRegions::pair(proc, records.iter().copied()));
            assert_eq!(ProcRegionCounts::count(proc, records), want, "process {proc}");
        }
    }

    #[test]
    fn unpaired_records_are_one_message_per_region() {
        let stops = |proc, n| ProcRegions::pair(proc, (0..n).map(|i| (i as f64, 5, false)));
        let mut regions = Regions {
            procs: vec![stops(0, 140), stops(1, 140), stops(2, 139), stops(3, 0)],
            ..Default::default()
        };
        regions.names.insert(5, "amr_level.advance".into());
        regions.procs[3] = ProcRegions::pair(3, [(1.0, 2, true)]);
        let w = regions.unpaired_records(&Location::file("db"));
        assert_eq!(w.len(), 2);
        assert!(!w[0].is_note(), "a start never stopped is damage");
        assert_eq!(
            w[0].message,
            "region 2: starts never stopped on 1 of 4 processes \
             (1 on process 3); left out of its time ranges"
        );
        assert!(w[1].is_note());
        assert_eq!(
            w[1].message,
            "region \"amr_level.advance\" (number 5): stops without a start on 3 of 4 processes \
             (140 on processes 0, 1; 139 on process 2); ignored for its time ranges"
        );
        regions.procs.truncate(2);
        let w = regions.unpaired_records(&Location::file("db"));
        assert_eq!(
            w[0].message,
            "region \"amr_level.advance\" (number 5): 140 stops without a start on each of 2 \
             processes; ignored for its time ranges"
        );
    }
}
