//! Barriers and send matrices from the communication records.
//!
//! Barriers (amrprofparser `-spd` intent): every `bNum` entry points at its
//! before/after records, so per process we know when it arrived (before) and
//! left (after). Across processes, barrier number `b` is the same
//! synchronisation point (a per-process counter of the same collective
//! calls); the last process to arrive is the one everybody waited for.
//! Process clocks are not synchronised (each starts at its own zero), so the
//! last arrival is found as the process that waited least inside the
//! barrier, not by comparing arrival times across processes:
//!
//! ```text
//! proc 0  ──arrive══════════ wait ══════════exit
//! proc 1  ──────────────────────arrive(last)═exit   ← shortest wait
//! ```
//!
//! With a region filter ([`ProcRanges`]), a process's barrier or reduction
//! counts when its arrival (entry) lies in that process's selected ranges;
//! a message of the send matrix when its send record does.

use std::collections::BTreeMap;

use super::scope::CommScope;
use super::select::{ProcRanges, inside};
use crate::analysis::filter::FilterNames;
use crate::analysis::ranges::RangeList;
use crate::error::Warning;
use crate::formats::blprof::comm::BarrierRef;
use crate::formats::blprof::commdata::{AFTER_CALL, BEFORE_CALL, func_name, is_send};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommProcWalk, Skipped};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// One process at one barrier.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Arrival {
    pub proc: usize,
    pub arrival: f64,
    pub exit: f64,
    /// exit − arrival: time spent inside the barrier.
    pub wait: f64,
}

/// One barrier (by number) over processes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BarrierStats {
    pub number: i64,
    pub name: String,
    pub procs: Vec<Arrival>,
    /// The process that arrived last (everybody waited for it): the one with
    /// the shortest wait.
    pub last_arrival: Option<usize>,
    pub wait_total: f64,
    pub wait_max: f64,
}

/// Per-process barrier totals.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ProcBarrierTotals {
    pub proc: usize,
    pub barriers: usize,
    pub wait: f64,
    /// Barriers where this process was the last to arrive.
    pub last_arrivals: usize,
}

/// The barriers and all-reductions of a database, and how long each
/// process waited at them.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BarrierSummary {
    /// Barriers by barrier number.
    pub barriers: Vec<BarrierStats>,
    /// Per process: barriers, total wait ("wait at barrier"), last arrivals.
    pub procs: Vec<ProcBarrierTotals>,
    /// All-reductions by reduction number (the "wait at N×N" of collectives).
    pub reductions: Vec<BarrierStats>,
    /// Per process: the all-reductions' totals.
    pub reduction_procs: Vec<ProcBarrierTotals>,
    /// With `--align-clocks`: the process whose clock the times are on,
    /// and `last_arrival` is the latest arrival on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks_aligned_to: Option<usize>,
    /// The region filter applied (set by the caller; absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_filter: Option<FilterNames>,
}

/// `(number, name, before time, after time)` of one synchronisation; the
/// name borrowed from the headers (or a function's), so that a process's
/// barriers copy no names (one copy per barrier number is made).
type Sync<'a> = (i64, &'a str, f64, f64);
/// A process's synchronisations of one kind: inline up to one (a barrier
/// per process is common at scale, where a vector per process was an
/// allocation per process).
type Syncs<'a> = SmallVec<[Sync<'a>; 1]>;
/// One process: its barriers, its all-reductions, warnings.
type ProcSyncs<'a> = (usize, Syncs<'a>, Syncs<'a>, Vec<Warning>);

/// Barriers from the `bNum` entries (before record at the index, after
/// record next); all-reductions (types 1–4) from their before/after records
/// (peer −5 / −7, tag = reduction number). Each counts when its entry
/// lies in `ranges` (the process's own; `None`: all).
fn proc_syncs<'a>(walk: CommProcWalk<'a>, ranges: Option<&RangeList>) -> ProcSyncs<'a> {
    let sel = *walk.selection();
    let entered = |t: f64| ranges.is_none_or(|r| r.contains(t));
    let (mut bars, mut reds) = (Syncs::new(), Syncs::new());
    let warnings = walk.for_each_block(
        Skipped::Synchronisations,
        Skipped::Synchronisations,
        |b, records| {
            // Streamed: a barrier's before- and after-records (indices i, i + 1)
            // are picked up on the way.
            let mut at: FxHashMap<usize, Vec<&'a BarrierRef>> = FxHashMap::default();
            for bar in &b.barriers {
                if let Ok(i) = usize::try_from(bar.record_index) {
                    at.entry(i).or_default().push(bar);
                }
            }
            // Barriers whose before-record was seen: (its time, the barrier).
            let mut pending: Vec<(f64, &'a BarrierRef)> = Vec::new();
            let mut open: BTreeMap<(i32, i32), f64> = BTreeMap::new();
            // A buffer at a time: the loop keeps its state in registers.
            let mut i = 0usize;
            while let Some(batch) = records.next_batch() {
                for r in batch.records() {
                    for (t0, bar) in pending.drain(..) {
                        if sel.contains(t0) && entered(t0) {
                            bars.push((bar.number, &*bar.name, t0, r.time));
                        }
                    }
                    if let Some(v) = at.get(&i) {
                        pending.extend(v.iter().map(|bar| (r.time, *bar)));
                    }
                    i += 1;
                    if !(1..=4).contains(&r.kind) || !sel.contains(r.time) {
                        continue;
                    }
                    if r.peer == BEFORE_CALL {
                        open.insert((r.kind, r.tag), r.time);
                    } else if r.peer == AFTER_CALL
                        && let Some(t0) = open.remove(&(r.kind, r.tag))
                        && entered(t0)
                    {
                        reds.push((
                            i64::from(r.tag),
                            func_name(r.kind).unwrap_or("?"),
                            t0,
                            r.time,
                        ));
                    }
                }
            }
        },
    );
    (walk.proc().proc, bars, reds, warnings)
}

/// A process's barriers from their two records each, read by index from a
/// map of the block (only those pages are touched); those entered in
/// `ranges` (`None`: all).
fn proc_barriers<'a>(walk: CommProcWalk<'a>, ranges: Option<&RangeList>) -> ProcSyncs<'a> {
    let sel = *walk.selection();
    let (mut bars, mut warnings) = (Syncs::new(), Vec::new());
    'blocks: for b in walk.blocks().filter(|b| !b.barriers.is_empty()) {
        for bar in &b.barriers {
            let Ok(i) = u64::try_from(bar.record_index) else {
                continue;
            };
            // Its two records, read where they lie.
            match walk.records_at::<2>(b, i, Skipped::Barriers) {
                Ok([Some(x), Some(y)])
                    if sel.contains(x.time) && ranges.is_none_or(|r| r.contains(x.time)) =>
                {
                    bars.push((bar.number, &*bar.name, x.time, y.time));
                }
                Ok(_) => {}
                Err(w) => {
                    warnings.push(w);
                    continue 'blocks;
                }
            }
        }
    }
    (walk.proc().proc, bars, Syncs::new(), warnings)
}

/// Synchronisations grouped by number, processes added in process order;
/// the last arrival is the process that waited least.
#[derive(Default)]
struct SyncGroups {
    by_number: BTreeMap<i64, BarrierStats>,
    /// In process order.
    totals: Vec<ProcBarrierTotals>,
}

impl SyncGroups {
    fn add(&mut self, proc: usize, list: Syncs<'_>) {
        let mut t = ProcBarrierTotals {
            proc,
            ..Default::default()
        };
        for (number, name, arrival, exit) in list {
            let wait = exit - arrival;
            t.barriers += 1;
            t.wait += wait;
            self.by_number
                .entry(number)
                .or_insert_with(|| BarrierStats {
                    number,
                    name: name.to_owned(),
                    procs: Vec::new(),
                    last_arrival: None,
                    wait_total: 0.0,
                    wait_max: 0.0,
                })
                .procs
                .push(Arrival {
                    proc,
                    arrival,
                    exit,
                    wait,
                });
        }
        self.totals.push(t);
    }

    fn finish(self) -> (Vec<BarrierStats>, Vec<ProcBarrierTotals>) {
        let mut totals = self.totals;
        let mut list: Vec<BarrierStats> = self.by_number.into_values().collect();
        for b in &mut list {
            b.last_arrival = b
                .procs
                .iter()
                .min_by(|x, y| x.wait.total_cmp(&y.wait))
                .map(|a| a.proc);
            b.wait_total = b.procs.iter().map(|a| a.wait).sum();
            b.wait_max = b.procs.iter().map(|a| a.wait).fold(0.0, f64::max);
            // (A search: the totals are in process order, one per process.)
            if let Some(last) = b.last_arrival
                && let Ok(i) = totals.binary_search_by_key(&last, |t| t.proc)
            {
                totals[i].last_arrivals += 1;
            }
        }
        (list, totals)
    }
}

/// Barrier and all-reduction waits ("wait at barrier", "wait at N×N") of
/// the processes `scope` selects, counting those entered inside its region
/// ranges, each process on its own clock (the caller aligns them). Without
/// `reductions` only the barriers' own records are read (the headers give
/// their indices): no block is scanned.
pub fn barriers(
    db: &Database,
    scope: &CommScope,
    reductions: bool,
) -> (BarrierSummary, Vec<Warning>) {
    let ranges = scope.ranges();
    let walk = db.comm_blocks(&scope.selection());
    let of = |w: &CommProcWalk<'_>| ranges.map(|r| r.of(w.proc().proc));
    let mut warnings = Vec::new();
    let (mut bars, mut reds) = (SyncGroups::default(), SyncGroups::default());
    // Each process's synchronisations are grouped as they come, in process
    // order, not held all until the end.
    let mut take = |(p, b, r, w): ProcSyncs| {
        warnings.extend(w);
        bars.add(p, b);
        reds.add(p, r);
    };
    if reductions {
        walk.fold_small_procs(|w| proc_syncs(w, of(&w)), &mut take);
    } else {
        walk.fold_small_procs(|w| proc_barriers(w, of(&w)), &mut take);
    }
    let (barriers, procs) = bars.finish();
    let (reductions, reduction_procs) = reds.finish();
    (
        BarrierSummary {
            barriers,
            procs,
            reductions,
            reduction_procs,
            clocks_aligned_to: None,
            region_filter: scope.filter_names(),
        },
        warnings,
    )
}

/// Messages and bytes from each sender to each receiver.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SendMatrix {
    /// Processes of the database.
    pub nprocs: usize,
    /// Every sender → receiver pair that exchanged messages, by sender then
    /// receiver: memory grows with the pairs that talk, never with
    /// processes², so any number of processes fits.
    pub routes: Vec<Route>,
    /// Send records whose peer is outside `0..nprocs` (non-world communicators).
    pub unknown_peer: u64,
    /// The region filter applied (set by the caller; absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_filter: Option<FilterNames>,
}

/// Messages and bytes from one process to another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Route {
    pub from: usize,
    pub to: usize,
    pub messages: u64,
    pub bytes: u64,
}

impl SendMatrix {
    /// Messages and bytes sent by each process, `0..nprocs` (what
    /// amrprofparser's `totalSendsPerProc.xgr` and
    /// `totalSentDataPerProc.xgr` plot). `None` past a million processes.
    pub fn sent_by(&self) -> Option<(Vec<u64>, Vec<u64>)> {
        if self.nprocs > 1 << 20 {
            return None;
        }
        let (mut messages, mut bytes) = (vec![0; self.nprocs], vec![0; self.nprocs]);
        for r in &self.routes {
            messages[r.from] += r.messages;
            bytes[r.from] += r.bytes;
        }
        Some((messages, bytes))
    }

    /// The route from `from` to `to`, if they exchanged messages.
    pub fn route(&self, from: usize, to: usize) -> Option<&Route> {
        self.routes
            .binary_search_by_key(&(from, to), |r| (r.from, r.to))
            .ok()
            .map(|i| &self.routes[i])
    }
}

/// Where one sender (group) counts its sends, by receiver (group).
trait SendCounts: Send {
    fn add(&mut self, to: usize, bytes: u64);
}

/// Counts in a row of `cells` (the grouped matrix: few cells).
struct DenseRow {
    messages: Vec<u64>,
    bytes: Vec<u64>,
}

impl SendCounts for DenseRow {
    #[inline]
    fn add(&mut self, to: usize, bytes: u64) {
        self.messages[to] += 1;
        self.bytes[to] += bytes;
    }
}

/// Counts per receiver that was sent to (the full matrix: a process talks
/// to few of possibly many processes).
#[derive(Default)]
struct SparseRow(FxHashMap<usize, (u64, u64)>);

impl SendCounts for SparseRow {
    #[inline]
    fn add(&mut self, to: usize, bytes: u64) {
        let e = self.0.entry(to).or_default();
        e.0 += 1;
        e.1 += bytes;
    }
}

/// One sender (group): its first process, its counts, unknown peers,
/// warnings.
type SendRow<R> = (usize, R, u64, Vec<Warning>);

/// Per group of `k` consecutive sending processes (`k = 1`: per process):
/// messages and bytes per receiver group of `k`, for `n` processes, counted
/// in a `new_row()`. Memory is one row per group, whatever `k`. Only sends
/// whose record lies in `ranges` count (`None`: all).
fn send_rows<R: SendCounts>(
    db: &Database,
    sel: &super::select::CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    n: usize,
    k: usize,
    new_row: impl Fn() -> R + std::marker::Sync,
) -> Vec<SendRow<R>> {
    let sel = *sel;
    db.comm_blocks(&sel).map_proc_runs(
        |p| p / k,
        |first, procs| {
            let (mut row, mut unknown, mut w) = (new_row(), 0u64, Vec::new());
            for p in procs {
                let from = p.proc().proc;
                w.extend(
                    p.for_each_block(Skipped::Sends, Skipped::Sends, |_, records| {
                        // Locals for the loop, so that they stay in registers
                        // (stores into the row could otherwise alias what the
                        // closure captured).
                        let row = &mut row;
                        let (n, k, sel) = (n, k, sel);
                        let mut unknown_here = 0u64;
                        while let Some(batch) = records.next_batch() {
                            for r in batch.records() {
                                if !(is_send(r.kind)
                                    && r.size != AFTER_CALL
                                    && sel.contains(r.time)
                                    && inside(ranges, from, r.time))
                                {
                                    continue;
                                }
                                match usize::try_from(r.peer).ok().filter(|&to| to < n) {
                                    Some(to) => row.add(to / k, r.size.max(0) as u64),
                                    None => unknown_here += 1,
                                }
                            }
                        }
                        unknown += unknown_here;
                    }),
                );
            }
            (first, row, unknown, w)
        },
    )
}

/// Number of processes of the send matrix: the highest process with comm data, plus one.
fn matrix_procs(db: &Database) -> usize {
    db.comm_index()
        .procs
        .iter()
        .map(|p| p.proc + 1)
        .max()
        .unwrap_or(0)
}

/// Messages and bytes per sender and receiver, counting the sends of the
/// processes `scope` selects whose record lies inside its region ranges
/// (the sender's own clock).
pub fn send_matrix(db: &Database, scope: &CommScope) -> (SendMatrix, Vec<Warning>) {
    let (sel, ranges) = (scope.selection(), scope.ranges());
    let n = matrix_procs(db);
    let mut s = SendMatrix {
        nprocs: n,
        routes: Vec::new(),
        unknown_peer: 0,
        region_filter: scope.filter_names(),
    };
    let mut warnings = Vec::new();
    for (from, row, u, w) in send_rows(db, &sel, ranges, n, 1, SparseRow::default) {
        let first = s.routes.len();
        s.routes
            .extend(row.0.into_iter().map(|(to, (messages, bytes))| Route {
                from,
                to,
                messages,
                bytes,
            }));
        s.routes[first..].sort_unstable_by_key(|r| r.to);
        s.unknown_peer += u;
        warnings.extend(w);
    }
    (s, warnings)
}

/// The send matrix with `group` consecutive processes per cell (summed):
/// a picture of many processes in bounded memory.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SendMatrixGroups {
    pub nprocs: usize,
    /// Processes per cell (1: one cell per sender × receiver).
    pub group: usize,
    /// `messages[from / group][to / group]`, `⌈nprocs / group⌉` square.
    pub messages: Vec<Vec<u64>>,
    pub bytes: Vec<Vec<u64>>,
    /// Send records whose peer is outside `0..nprocs` (non-world communicators).
    pub unknown_peer: u64,
}

impl SendMatrixGroups {
    /// Processes per cell so that at most `max_cells` cells span a side.
    pub fn group_for(nprocs: usize, max_cells: usize) -> usize {
        nprocs.max(1).div_ceil(max_cells.max(1))
    }

    /// Groups a full matrix.
    pub fn from_matrix(m: &SendMatrix, max_cells: usize) -> Self {
        let k = Self::group_for(m.nprocs, max_cells);
        let cells = m.nprocs.div_ceil(k);
        let mut g = SendMatrixGroups {
            nprocs: m.nprocs,
            group: k,
            messages: vec![vec![0; cells]; cells],
            bytes: vec![vec![0; cells]; cells],
            unknown_peer: m.unknown_peer,
        };
        for r in &m.routes {
            g.messages[r.from / k][r.to / k] += r.messages;
            g.bytes[r.from / k][r.to / k] += r.bytes;
        }
        g
    }

}

/// [`send_matrix`] with at most `max_cells` cells per side: memory is
/// `max_cells²` plus one row of cells per process being read, never
/// processes², so any number of processes fits.
pub fn send_matrix_groups(
    db: &Database,
    sel: &super::select::CommSelection<'_>,
    max_cells: usize,
) -> (SendMatrixGroups, Vec<Warning>) {
    let n = matrix_procs(db);
    let k = SendMatrixGroups::group_for(n, max_cells);
    let cells = n.div_ceil(k);
    let mut s = SendMatrixGroups {
        nprocs: n,
        group: k,
        messages: vec![vec![0; cells]; cells],
        bytes: vec![vec![0; cells]; cells],
        unknown_peer: 0,
    };
    let mut warnings = Vec::new();
    let new_row = || DenseRow {
        messages: vec![0; cells],
        bytes: vec![0; cells],
    };
    for (p, row, u, w) in send_rows(db, sel, None, n, k, new_row) {
        for (acc, x) in s.messages[p / k].iter_mut().zip(row.messages) {
            *acc += x;
        }
        for (acc, x) in s.bytes[p / k].iter_mut().zip(row.bytes) {
            *acc += x;
        }
        s.unknown_peer += u;
        warnings.extend(w);
    }
    (s, warnings)
}
