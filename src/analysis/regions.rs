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

use std::collections::{BTreeMap, BTreeSet};

use super::ranges::{RangeList, TimeRange};
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
    /// warnings of reading them, in process order (for a pass that reads
    /// the region records along with other data).
    pub fn from_procs(db: &Database, per_proc: Vec<(ProcRegions, Vec<Warning>)>) -> Regions {
        let mut regions = Regions::default();
        if let Some(h) = &db.call_stats {
            for r in &h.regions {
                if let Ok(n) = i32::try_from(r.number) {
                    regions.names.insert(n, r.name.clone());
                }
            }
        }
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
    /// processes: starts never stopped are damage (a run cut short), stops
    /// without a start a known quirk of stock AMReX (a note).
    fn unpaired_records(&self, location: &Location) -> Vec<Warning> {
        let mut starts: BTreeMap<i32, Vec<(usize, usize)>> = BTreeMap::new();
        let mut stops: BTreeMap<i32, Vec<(usize, usize)>> = BTreeMap::new();
        for p in &self.procs {
            for (&n, &c) in &p.unmatched_starts {
                starts.entry(n).or_default().push((p.proc, c));
            }
            for (&n, &c) in &p.unmatched_stops {
                stops.entry(n).or_default().push((p.proc, c));
            }
        }
        let nprocs = self.procs.len();
        let mut out = Vec::new();
        let numbers: BTreeSet<i32> = starts.keys().chain(stops.keys()).copied().collect();
        for n in numbers {
            if let Some(per_proc) = starts.get(&n) {
                let what = "starts never stopped";
                let text = self.unpaired_text(n, what, per_proc, nprocs);
                out.push(Warning::new(
                    location.clone(),
                    format!("{text}; left out of its time ranges"),
                ));
            }
            if let Some(per_proc) = stops.get(&n) {
                let text = self.unpaired_text(n, "stops without a start", per_proc, nprocs);
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
        &self,
        n: i32,
        what: &str,
        per_proc: &[(usize, usize)],
        nprocs: usize,
    ) -> String {
        let region = match self.names.get(&n) {
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

    /// The region's name (`region N` when the names table lacks it).
    pub fn name(&self, number: i32) -> String {
        self.names
            .get(&number)
            .cloned()
            .unwrap_or_else(|| format!("region {number}"))
    }

    /// Every region number seen in the names table or in any process.
    pub fn numbers(&self) -> Vec<i32> {
        let mut v: Vec<i32> = self
            .names
            .keys()
            .copied()
            .chain(self.procs.iter().flat_map(|p| p.ranges.keys().copied()))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The ranges of process `proc`, if it has any.
    pub fn proc(&self, proc: usize) -> Option<&ProcRegions> {
        self.procs
            .binary_search_by_key(&proc, |p| p.proc)
            .ok()
            .map(|i| &self.procs[i])
    }
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
    let nprocs = regions.procs.len().max(1) as f64;
    regions
        .numbers()
        .into_iter()
        .map(|n| {
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
            for p in &regions.procs {
                let t = p.total(n);
                s.count += p.ranges.get(&n).map_or(0, Vec::len);
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
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
