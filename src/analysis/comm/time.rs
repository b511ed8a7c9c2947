//! Time in MPI (the question mpiP answers): seconds per MPI call type and
//! per process, each process's MPI share of its traced time, the spread
//! over processes, message sizes per type, and, when the database has call
//! traces, the time attributed to the code that made the calls
//! ([`super::attribution`]).
//!
//! A call is one wrapper invocation, built from its records by the
//! timeline's rule ([`CallBuilder`], the rule `comm stats` counts by), and
//! lasts from its first record (entry) to its last (exit):
//!
//! ```text
//! records   [Isend 512,3,t] [Isend -7,3,t]   [Waitall -5] [Waitall 512,..] [..]
//! calls     |---- Isend ----|                |- Waitall -|  (statuses belong to it)
//! ```
//!
//! A call counts when its entry lies in the selection (`--time` window and,
//! with a region filter, the selected ranges of its process), as `comm
//! stats` counts it; its seconds are the part of it inside the selection.
//! A process's *traced time* is its span: from the earliest to the latest
//! time stamp its block headers give (`timeMinMax` of its comm and call-trace
//! blocks, widened by any call read beyond them), cut to the selection.

use std::collections::BTreeMap;

use super::attribution::{
    Attribution, AttributionSums, ProcAttribution, RunPaths, attribute, procs_per_run,
};
use super::scope::CommScope;
use super::select::ProcRanges;
use super::timeline::{CallBuilder, CommCall};
use crate::analysis::ranges::{RangeList, TimeRange};
use crate::analysis::regions::Regions;
use crate::error::Warning;
use crate::formats::blprof::commdata::func_name;
use crate::formats::blprof::database::{Database, ProcTrace};
use crate::formats::blprof::walk::{CommProcWalk, Skipped};

/// Size buckets: 0 bytes, then `[2^(k−1), 2^k)` for k = 1..=31.
pub const SIZE_BUCKETS: usize = 32;

/// The bucket of a byte count (`None` for a marker or other negative value).
pub fn size_bucket(size: i32) -> Option<usize> {
    u32::try_from(size)
        .ok()
        .map(|s| (u32::BITS - s.leading_zeros()) as usize)
}

/// The smallest and largest byte count of bucket `k`.
pub fn bucket_bounds(k: usize) -> (u64, u64) {
    match k {
        0 => (0, 0),
        k => (1 << (k - 1), (1u64 << k) - 1),
    }
}

/// Whether a call of type `kind` carries a message or buffer size in its
/// size field: sends, receives, reductions, broadcasts, gathers, scatters,
/// all-gathers and all-to-alls. Not barriers, name tags, probes, tests or
/// waits (whose size is a flag, an index, a handle's size or the first
/// status of many).
pub fn has_message_size(kind: i32) -> bool {
    matches!(kind, 1..=24 | 33..=36)
}

/// One MPI call type over the selected processes.
#[derive(Debug, Clone, Default)]
pub struct TypeTime {
    pub number: i32,
    pub name: String,
    pub calls: u64,
    pub seconds: f64,
    /// Seconds per process: the smallest, the mean over the selected
    /// processes (those without a call of the type count 0), the largest,
    /// and the first process holding the smallest and the largest.
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub min_proc: usize,
    pub max_proc: usize,
    /// Calls per size bucket ([`size_bucket`]), for types with a message
    /// size ([`has_message_size`]); empty otherwise.
    pub sizes: Vec<u64>,
}

/// One process.
#[derive(Debug, Clone, Default)]
pub struct ProcTime {
    pub proc: usize,
    pub calls: u64,
    pub seconds: f64,
    /// The process's span inside the selection (see the module docs).
    pub traced: f64,
    /// Per type that it called: (type, calls, seconds), in type order.
    pub by_type: Vec<(i32, u64, f64)>,
}

impl ProcTime {
    /// MPI seconds / traced seconds (`None` when nothing was traced).
    pub fn share(&self) -> Option<f64> {
        (self.traced > 0.0).then(|| self.seconds / self.traced)
    }
}

/// The report.
#[derive(Debug, Clone, Default)]
pub struct MpiTime {
    /// MPI calls of the selected processes.
    pub calls: u64,
    /// Seconds inside MPI calls, summed over the selected processes.
    pub seconds: f64,
    /// Seconds of the call traces of the same processes (the share's
    /// denominator; 0 without call traces).
    pub traced: f64,
    /// Calls and seconds per MPI call type.
    pub by_type: Vec<TypeTime>,
    /// Per selected process, in process order.
    pub procs: Vec<ProcTime>,
    /// Per call path and region, when the database has call traces and
    /// attribution was asked for.
    pub attribution: Option<Attribution>,
}

/// What `comm time` looks at besides the comm selection.
#[derive(Default)]
pub struct TimeOptions<'a> {
    /// Regions (read from the call traces) to attribute time to.
    pub regions: Option<&'a Regions>,
    /// Attribute calls to the call paths of the call traces.
    pub paths: bool,
}

/// One type's sums in one process.
#[derive(Debug, Clone, Default)]
struct Acc {
    calls: u64,
    seconds: f64,
    sizes: [u64; SIZE_BUCKETS],
}

/// One process's findings.
struct Partial {
    proc: ProcTime,
    attribution: Option<ProcAttribution>,
    warnings: Vec<Warning>,
}

/// The findings of a run of consecutive processes: each process's, the
/// calls per size bucket of all of them (counts: their order does not
/// matter; a process's own would be a fixed array per type and process
/// held to the end), and their call paths.
#[derive(Default)]
struct Run {
    procs: Vec<Partial>,
    sizes: BTreeMap<i32, [u64; SIZE_BUCKETS]>,
    paths: Option<RunPaths>,
}

/// A call kept for attribution: entry, seconds counted, type.
#[derive(Debug, Clone, Copy)]
pub struct Counted {
    pub start: f64,
    pub seconds: f64,
    pub kind: i32,
}

/// The seconds of `c` inside the window and the ranges (`None` when its
/// entry is outside them: it does not count).
fn counted_seconds(c: &CommCall, window: (f64, f64), ranges: Option<&RangeList>) -> Option<f64> {
    // (A NaN entry is outside every window.)
    if !(c.start >= window.0 && c.start <= window.1) {
        return None;
    }
    let span = TimeRange::new(c.start, c.end.min(window.1).max(c.start));
    match ranges {
        None => Some(span.len()),
        Some(r) if r.contains(c.start) => Some(r.intersect(span).map(|x| x.len()).sum()),
        Some(_) => None,
    }
}

/// The span of a process's time stamps by its headers: its comm blocks'
/// `timeMinMax` and, with call traces, its trace blocks'.
fn header_span<'a>(db: &'a Database, walk: &CommProcWalk<'_>) -> Option<(f64, f64)> {
    let proc = walk.proc().proc;
    let comm = walk.proc().blocks.iter().filter(|b| b.ncomm > 0);
    // (The index is sorted by process: a search, not a scan per process.)
    let traced = |procs: &'a [ProcTrace]| {
        procs
            .binary_search_by_key(&proc, |p| p.proc)
            .ok()
            .map(|i| &procs[i])
    };
    let trace = db
        .call_stats
        .is_some()
        .then(|| traced(&db.trace_index().procs))
        .flatten()
        .into_iter()
        .flat_map(|p| p.blocks.iter().filter_map(|b| b.time_min_max));
    comm.filter_map(|b| b.time_min_max)
        .chain(trace)
        .filter(|(a, z)| a.is_finite() && z.is_finite() && a <= z)
        .reduce(|(a, z), (b, y)| (a.min(b), z.max(y)))
}

fn scan_proc(
    walk: CommProcWalk<'_>,
    opts: &TimeOptions<'_>,
    ranges: Option<&ProcRanges>,
    run: &mut Run,
) {
    let db = walk.database();
    let proc = walk.proc().proc;
    let window = walk.selection().window;
    // A process the region filter leaves no range for has empty ranges:
    // it counts nothing.
    let ranges = ranges.map(|r| r.of(proc));
    let keep_calls = opts.paths || opts.regions.is_some();
    let mut types: BTreeMap<i32, Acc> = BTreeMap::new();
    let mut kept: Vec<Counted> = Vec::new();
    let mut span = header_span(db, &walk);
    let warnings = walk.for_each_block(Skipped::CommBlock, Skipped::CommBlock, |_, records| {
        let mut builder = CallBuilder::default();
        let mut take = |c: CommCall| {
            let Some(seconds) = counted_seconds(&c, window, ranges) else {
                return;
            };
            span = Some(match span {
                None => (c.start, c.end),
                Some((a, z)) => (a.min(c.start), z.max(c.end)),
            });
            let acc = types.entry(c.kind).or_default();
            acc.calls += 1;
            acc.seconds += seconds;
            if has_message_size(c.kind)
                && let Some(k) = size_bucket(c.size)
            {
                acc.sizes[k] += 1;
            }
            if keep_calls {
                kept.push(Counted {
                    start: c.start,
                    seconds,
                    kind: c.kind,
                });
            }
        };
        for r in records.by_ref() {
            builder.push(&r, &mut take);
        }
        builder.finish(&mut take);
    });
    let traced = span.map_or(0.0, |(a, z)| {
        let cut = TimeRange::new(a.max(window.0), z.min(window.1).max(a.max(window.0)));
        match ranges {
            None => cut.len(),
            Some(r) => r.intersect(cut).map(|x| x.len()).sum(),
        }
    });
    let mut p = ProcTime {
        proc,
        traced,
        ..Default::default()
    };
    for (k, a) in types {
        p.calls += a.calls;
        p.seconds += a.seconds;
        p.by_type.push((k, a.calls, a.seconds));
        if has_message_size(k) {
            let sizes = run.sizes.entry(k).or_insert([0; SIZE_BUCKETS]);
            for (s, n) in sizes.iter_mut().zip(a.sizes) {
                *s += n;
            }
        }
    }
    let mut warnings = warnings;
    let attribution = keep_calls.then(|| {
        kept.sort_by(|a, b| a.start.total_cmp(&b.start));
        let (a, w) = attribute(db, proc, &kept, run.paths.as_mut(), opts.regions);
        warnings.extend(w);
        a
    });
    run.procs.push(Partial {
        proc: p,
        attribution,
        warnings,
    });
}

/// MPI time of the processes `scope` selects (inside its window and region
/// ranges), in parallel over runs of consecutive processes, merged in
/// process order.
pub fn mpi_time(
    db: &Database,
    scope: &CommScope,
    opts: &TimeOptions<'_>,
) -> (MpiTime, Vec<Warning>) {
    let ranges = scope.ranges();
    let mut out = MpiTime::default();
    let mut warnings = Vec::new();
    let mut types: BTreeMap<i32, (Acc, Vec<(usize, f64)>)> = BTreeMap::new();
    let mut attribution: Option<AttributionSums> = None;
    let walk = db.comm_blocks(&scope.selection());
    // Runs of as many selected processes each, whatever their numbers.
    let selected: Vec<usize> = walk.procs().map(|w| w.proc().proc).collect();
    let per_run = procs_per_run(selected.len());
    let run_of = |p: usize| selected.partition_point(|&q| q < p) / per_run;
    let runs = walk.map_proc_runs(run_of, |_, procs| {
        let mut run = Run {
            paths: opts.paths.then(RunPaths::default),
            ..Run::default()
        };
        for w in procs {
            scan_proc(*w, opts, ranges, &mut run);
        }
        run
    });
    for run in runs {
        for p in run.procs {
            for &(k, calls, seconds) in &p.proc.by_type {
                let (sum, per) = types.entry(k).or_default();
                sum.calls += calls;
                sum.seconds += seconds;
                per.push((p.proc.proc, seconds));
            }
            if let Some(a) = p.attribution {
                attribution
                    .get_or_insert_with(AttributionSums::default)
                    .add(a);
            }
            warnings.extend(p.warnings);
            out.calls += p.proc.calls;
            out.seconds += p.proc.seconds;
            out.traced += p.proc.traced;
            out.procs.push(p.proc);
        }
        for (k, sizes) in run.sizes {
            let (sum, _) = types.entry(k).or_default();
            for (s, n) in sum.sizes.iter_mut().zip(sizes) {
                *s += n;
            }
        }
        if let (Some(sums), Some(paths)) = (attribution.as_mut(), run.paths) {
            sums.add_paths(paths);
        }
    }
    let nprocs = out.procs.len();
    out.by_type = types
        .into_iter()
        .map(|(k, (a, per))| spread(k, a, &per, &out.procs, nprocs))
        .collect();
    out.attribution = attribution.map(|a| a.finish(opts.regions));
    (out, warnings)
}

/// A type's totals and its spread over the processes (those without a
/// call of it count 0).
fn spread(k: i32, a: Acc, per: &[(usize, f64)], procs: &[ProcTime], n: usize) -> TypeTime {
    let (mut min, mut max) = ((f64::INFINITY, 0), (f64::NEG_INFINITY, 0));
    // `per` is in process order, as are `procs`: a merge walk.
    let mut at = 0;
    for p in procs {
        let s = match per.get(at) {
            Some((q, s)) if *q == p.proc => {
                at += 1;
                *s
            }
            _ => 0.0,
        };
        if s < min.0 {
            min = (s, p.proc);
        }
        if s > max.0 {
            max = (s, p.proc);
        }
    }
    TypeTime {
        number: k,
        name: func_name(k).map_or_else(|| format!("unknown type {k}"), str::to_owned),
        calls: a.calls,
        seconds: a.seconds,
        min: if min.0.is_finite() { min.0 } else { 0.0 },
        avg: if n > 0 { a.seconds / n as f64 } else { 0.0 },
        max: if max.0.is_finite() { max.0 } else { 0.0 },
        min_proc: min.1,
        max_proc: max.1,
        sizes: if has_message_size(k) {
            let last = a.sizes.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
            a.sizes[..last].to_vec()
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(size_bucket(-7), None);
        assert_eq!(size_bucket(0), Some(0));
        assert_eq!(size_bucket(1), Some(1));
        assert_eq!(size_bucket(2), Some(2));
        assert_eq!(size_bucket(3), Some(2));
        assert_eq!(size_bucket(4), Some(3));
        assert_eq!(size_bucket(512), Some(10));
        assert_eq!(size_bucket(i32::MAX), Some(31));
        for s in [0, 1, 2, 3, 4, 511, 512, 513, 65536, i32::MAX] {
            let (lo, hi) = bucket_bounds(size_bucket(s).unwrap());
            assert!(lo <= s as u64 && s as u64 <= hi, "{s}: {lo}..{hi}");
        }
    }

    #[test]
    fn a_call_counts_by_its_entry_and_is_cut_to_the_selection() {
        let call = |start: f64, end: f64| CommCall {
            kind: 6,
            name: "AsendTsiiM",
            start,
            end,
            instant: false,
            size: 8,
            peer: 1,
            tag: 0,
        };
        let all = (f64::NEG_INFINITY, f64::INFINITY);
        assert_eq!(counted_seconds(&call(1.0, 3.0), all, None), Some(2.0));
        assert_eq!(
            counted_seconds(&call(1.0, 3.0), (0.0, 2.0), None),
            Some(1.0)
        );
        assert_eq!(counted_seconds(&call(1.0, 3.0), (1.5, 2.0), None), None);
        let r = RangeList::union_of(vec![TimeRange::new(0.0, 1.5), TimeRange::new(2.5, 9.0)]);
        assert_eq!(counted_seconds(&call(1.0, 3.0), all, Some(&r)), Some(1.0));
        assert_eq!(counted_seconds(&call(2.0, 3.0), all, Some(&r)), None);
    }
}
