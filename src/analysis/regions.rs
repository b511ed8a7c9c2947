//! Region time ranges: start/stop records paired per process, over all of
//! its blocks in order (BLPROF_FORMAT.md §6.3, BLPROF_REAL_DATA.md §6).
//!
//! Pairing uses a stack per region: a stop closes the most recent open start
//! of that region. Region records are not time-ordered in the file (the
//! writer stamps a `__NoRegion__` stop after the user start it precedes), so
//! pairing is by region, never by time. A stop with no open start (written
//! after `BL_PROFILE_FLUSH()` inside a region) is counted and ignored; the
//! final, never-stopped `__NoRegion__` start is dropped, as the reference does.

use std::collections::BTreeMap;

use super::ranges::TimeRange;
use crate::error::{Location, Warning};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::TraceProcWalk;

/// Number of `__NoRegion__`, always registered first.
pub const NO_REGION: i32 = 0;

/// One process's regions.
#[derive(Debug, Clone, Default)]
pub struct ProcRegions {
    pub proc: usize,
    /// Closed ranges per region number, in start order.
    pub ranges: BTreeMap<i32, Vec<TimeRange>>,
    /// Stops that found no open start, per region.
    pub unmatched_stops: BTreeMap<i32, usize>,
    /// Starts never stopped (the final `__NoRegion__` start excluded).
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
        let mut last_open_no_region: Option<f64> = None;
        for (time, number, start) in records {
            if number < 0 {
                continue;
            }
            out.time_span = Some(match out.time_span {
                None => (time, time),
                Some((a, b)) => (a.min(time), b.max(time)),
            });
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
            if number == NO_REGION {
                last_open_no_region = open.get(&NO_REGION).and_then(|v| v.last().copied());
            }
        }
        for (number, starts) in open {
            let mut n = starts.len();
            if number == NO_REGION && last_open_no_region.is_some() {
                n -= 1;
            }
            if n > 0 {
                out.unmatched_starts.insert(number, n);
            }
        }
        for v in out.ranges.values_mut() {
            v.sort_by(|a, b| a.start.total_cmp(&b.start));
        }
        out
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
    pub warnings: Vec<Warning>,
}

impl Regions {
    /// Reads and pairs the region records of every process, in parallel.
    pub fn load(db: &Database) -> Regions {
        let per_proc: Vec<(ProcRegions, Vec<Warning>)> = db.trace_blocks(None).map_procs(load_proc);
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
            let unmatched: Vec<String> = p
                .unmatched_starts
                .iter()
                .map(|(n, c)| format!("{c} start(s) of region {n}"))
                .chain(
                    p.unmatched_stops
                        .iter()
                        .filter(|(n, _)| **n != NO_REGION)
                        .map(|(n, c)| format!("{c} stop(s) of region {n}")),
                )
                .collect();
            if !unmatched.is_empty() {
                regions.warnings.push(Warning::new(
                    Location::file(db.dir()),
                    format!(
                        "process {}: unmatched region records: {}",
                        p.proc,
                        unmatched.join(", ")
                    ),
                ));
            }
            regions.procs.push(p);
        }
        regions
    }

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
    pub name: String,
    pub number: i32,
    /// Closed ranges over all processes.
    pub count: usize,
    /// Seconds inside the region, summed over processes.
    pub total: f64,
    /// Per-process seconds: min / avg / max over processes.
    pub min: f64,
    pub avg: f64,
    pub max: f64,
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
            vec![TimeRange::new(0.1, 0.31), TimeRange::new(0.5, 0.6)]
        );
        assert!(
            r.unmatched_starts.is_empty(),
            "final NoRegion start dropped"
        );
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
}
