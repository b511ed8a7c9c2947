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

use std::collections::BTreeMap;

use crate::error::{Location, Warning};
use crate::formats::blprof::comm::BarrierRef;
use crate::formats::blprof::commdata::{AFTER_CALL, BEFORE_CALL, func_name, is_send};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommProcWalk, Skipped};
use rustc_hash::FxHashMap;

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

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BarrierReport {
    pub barriers: Vec<BarrierStats>,
    /// Per process: barriers, total wait ("wait at barrier"), last arrivals.
    pub procs: Vec<ProcBarrierTotals>,
    /// All-reductions by reduction number (the "wait at N×N" of collectives).
    pub reductions: Vec<BarrierStats>,
    pub reduction_procs: Vec<ProcBarrierTotals>,
}

/// `(number, name, before time, after time)` of one synchronisation.
type Sync = (i64, String, f64, f64);
/// One process: its barriers, its all-reductions, warnings.
type ProcSyncs = (usize, Vec<Sync>, Vec<Sync>, Vec<Warning>);

/// Barriers from the `bNum` entries (before record at the index, after
/// record next); all-reductions (types 1–4) from their before/after records
/// (peer −5 / −7, tag = reduction number).
fn proc_syncs(walk: CommProcWalk<'_>) -> ProcSyncs {
    let sel = *walk.selection();
    let (mut bars, mut reds) = (Vec::new(), Vec::new());
    let warnings = walk.for_each_block(
        Skipped::Synchronisations,
        Skipped::Synchronisations,
        |b, records| {
            // Streamed: a barrier's before- and after-records (indices i, i + 1)
            // are picked up on the way.
            let mut at: FxHashMap<usize, Vec<&BarrierRef>> = FxHashMap::default();
            for bar in &b.barriers {
                if let Ok(i) = usize::try_from(bar.record_index) {
                    at.entry(i).or_default().push(bar);
                }
            }
            // Barriers whose before-record was seen: (its time, the barrier).
            let mut pending: Vec<(f64, &BarrierRef)> = Vec::new();
            let mut open: BTreeMap<(i32, i32), f64> = BTreeMap::new();
            // A buffer at a time: the loop keeps its state in registers.
            let mut i = 0usize;
            while let Some(batch) = records.next_batch() {
                for r in batch.records() {
                    for (t0, bar) in pending.drain(..) {
                        if sel.contains(t0) {
                            bars.push((bar.number, bar.name.clone(), t0, r.time));
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
                    {
                        reds.push((
                            i64::from(r.tag),
                            func_name(r.kind).unwrap_or("?").to_owned(),
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
/// map of the block (only those pages are touched).
fn proc_barriers(walk: CommProcWalk<'_>) -> ProcSyncs {
    let sel = *walk.selection();
    let (mut bars, mut warnings) = (Vec::new(), Vec::new());
    for b in walk.blocks().filter(|b| !b.barriers.is_empty()) {
        let r = walk.with_mapped_block(b, Skipped::Barriers, |blk| {
            for bar in &b.barriers {
                let Ok(i) = usize::try_from(bar.record_index) else {
                    continue;
                };
                if let (Some(x), Some(y)) = (blk.get(i), blk.get(i + 1))
                    && sel.contains(x.time)
                {
                    bars.push((bar.number, bar.name.clone(), x.time, y.time));
                }
            }
        });
        if let Err(w) = r {
            warnings.push(w);
        }
    }
    (walk.proc().proc, bars, Vec::new(), warnings)
}

/// Groups per-process synchronisations by number; the last arrival is the
/// process that waited least.
fn aggregate(per: Vec<(usize, Vec<Sync>)>) -> (Vec<BarrierStats>, Vec<ProcBarrierTotals>) {
    let mut by_number: BTreeMap<i64, BarrierStats> = BTreeMap::new();
    let mut totals: Vec<ProcBarrierTotals> = Vec::new();
    for (proc, list) in per {
        let mut t = ProcBarrierTotals {
            proc,
            ..Default::default()
        };
        for (number, name, arrival, exit) in list {
            let wait = exit - arrival;
            t.barriers += 1;
            t.wait += wait;
            by_number
                .entry(number)
                .or_insert_with(|| BarrierStats {
                    number,
                    name,
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
        totals.push(t);
    }
    let mut list: Vec<BarrierStats> = by_number.into_values().collect();
    for b in &mut list {
        b.last_arrival = b
            .procs
            .iter()
            .min_by(|x, y| x.wait.total_cmp(&y.wait))
            .map(|a| a.proc);
        b.wait_total = b.procs.iter().map(|a| a.wait).sum();
        b.wait_max = b.procs.iter().map(|a| a.wait).fold(0.0, f64::max);
        if let Some(last) = b.last_arrival
            && let Some(t) = totals.iter_mut().find(|t| t.proc == last)
        {
            t.last_arrivals += 1;
        }
    }
    (list, totals)
}

/// Barrier and all-reduction waits ("wait at barrier", "wait at N×N").
/// Without `reductions` only the barriers' own records are read (the
/// headers give their indices): no block is scanned.
pub fn barriers(
    db: &Database,
    sel: &super::comm_select::CommSelection<'_>,
    reductions: bool,
) -> (BarrierReport, Vec<Warning>) {
    let walk = db.comm_blocks(sel);
    let per: Vec<ProcSyncs> = if reductions {
        walk.map_procs(proc_syncs)
    } else {
        walk.map_procs(proc_barriers)
    };
    let mut warnings = Vec::new();
    let (mut bars, mut reds) = (Vec::new(), Vec::new());
    for (p, b, r, w) in per {
        warnings.extend(w);
        bars.push((p, b));
        reds.push((p, r));
    }
    let (barriers, procs) = aggregate(bars);
    let (reductions, reduction_procs) = aggregate(reds);
    (
        BarrierReport {
            barriers,
            procs,
            reductions,
            reduction_procs,
        },
        warnings,
    )
}

/// Messages and bytes from each sender to each receiver.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SendMatrix {
    pub nprocs: usize,
    /// `messages[from][to]`.
    pub messages: Vec<Vec<u64>>,
    pub bytes: Vec<Vec<u64>>,
    /// Send records whose peer is outside `0..nprocs` (non-world communicators).
    pub unknown_peer: u64,
}

/// One sender (group): its first process, messages and bytes per receiver
/// (group), unknown peers, warnings.
type SendRow = (usize, Vec<u64>, Vec<u64>, u64, Vec<Warning>);

/// Per group of `k` consecutive sending processes (`k = 1`: per process):
/// messages and bytes per receiver group of `k`, for `n` processes. Memory
/// is one row per group, whatever `k`.
fn send_rows(
    db: &Database,
    sel: &super::comm_select::CommSelection<'_>,
    n: usize,
    k: usize,
) -> Vec<SendRow> {
    let cells = n.div_ceil(k);
    let sel = *sel;
    db.comm_blocks(&sel).map_proc_runs(
        |p| p / k,
        |first, procs| {
            let (mut m, mut b, mut unknown, mut w) =
                (vec![0u64; cells], vec![0u64; cells], 0u64, Vec::new());
            for p in procs {
                w.extend(
                    p.for_each_block(Skipped::Sends, Skipped::Sends, |_, records| {
                        // Locals for the loop, so that they stay in registers
                        // (stores into the rows could otherwise alias what the
                        // closure captured).
                        let (m, b): (&mut [u64], &mut [u64]) = (&mut m, &mut b);
                        let (n, k, sel) = (n, k, sel);
                        let mut unknown_here = 0u64;
                        while let Some(batch) = records.next_batch() {
                            for r in batch.records() {
                                if !(is_send(r.kind)
                                    && r.size != AFTER_CALL
                                    && sel.contains(r.time))
                                {
                                    continue;
                                }
                                match usize::try_from(r.peer).ok().filter(|&to| to < n) {
                                    Some(to) => {
                                        m[to / k] += 1;
                                        b[to / k] += r.size.max(0) as u64;
                                    }
                                    None => unknown_here += 1,
                                }
                            }
                        }
                        unknown += unknown_here;
                    }),
                );
            }
            (first, m, b, unknown, w)
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

/// Largest process count of a send matrix: two dense `n × n` tables of u64
/// (1 GiB at this size). The size comes from the largest process number in
/// the comm headers, which damaged headers can make arbitrarily large.
pub const MAX_MATRIX_PROCS: usize = 1 << 13;

pub fn send_matrix(
    db: &Database,
    sel: &super::comm_select::CommSelection<'_>,
) -> (SendMatrix, Vec<Warning>) {
    let index = db.comm_index();
    let n = matrix_procs(db);
    if n > MAX_MATRIX_PROCS {
        let last = index.procs.iter().max_by_key(|p| p.proc);
        let at = last.and_then(|p| p.blocks.first()).map_or_else(
            || Location::file(db.dir()),
            |b| Location::line(&b.header, b.line),
        );
        let w = Warning::new(
            at,
            format!(
                "process number {} makes a {n} × {n} send matrix, more than the {MAX_MATRIX_PROCS} processes a matrix is built for; no matrix",
                n - 1
            ),
        );
        return (SendMatrix::default(), vec![w]);
    }
    let rows = send_rows(db, sel, n, 1);
    let mut s = SendMatrix {
        nprocs: n,
        messages: vec![vec![0; n]; n],
        bytes: vec![vec![0; n]; n],
        unknown_peer: 0,
    };
    let mut warnings = Vec::new();
    for (p, m, b, u, w) in rows {
        s.messages[p] = m;
        s.bytes[p] = b;
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
        let sum = |v: &[Vec<u64>]| {
            let mut g = vec![vec![0u64; cells]; cells];
            for (from, row) in v.iter().enumerate() {
                for (to, &x) in row.iter().enumerate() {
                    g[from / k][to / k] += x;
                }
            }
            g
        };
        SendMatrixGroups {
            nprocs: m.nprocs,
            group: k,
            messages: sum(&m.messages),
            bytes: sum(&m.bytes),
            unknown_peer: m.unknown_peer,
        }
    }

    /// The first and last process of cell `i`.
    pub fn procs(&self, i: usize) -> (usize, usize) {
        let first = i * self.group;
        (
            first,
            ((i + 1) * self.group).min(self.nprocs).max(first + 1) - 1,
        )
    }
}

/// [`send_matrix`] with at most `max_cells` cells per side: memory is
/// `max_cells²` plus one row of cells per process being read, never
/// processes², so any number of processes fits.
pub fn send_matrix_groups(
    db: &Database,
    sel: &super::comm_select::CommSelection<'_>,
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
    for (p, m, b, u, w) in send_rows(db, sel, n, k) {
        for (acc, x) in s.messages[p / k].iter_mut().zip(m) {
            *acc += x;
        }
        for (acc, x) in s.bytes[p / k].iter_mut().zip(b) {
            *acc += x;
        }
        s.unknown_peer += u;
        warnings.extend(w);
    }
    (s, warnings)
}
