//! Communication calls as intervals per process (amrprofparser
//! `-timelinepf` intent): a call starts at its first record and ends at its
//! after-call record (`-7` in size, peer or tag), or, when it started with
//! a before-call record (`-5`), at its first data record (blocking
//! receives, broadcasts, gathers, waits: BLPROF_FORMAT.md §6.4.1); name
//! tags and calls of one record are instants.

use std::collections::BTreeMap;

use super::scope::CommScope;
use super::select::inside;
use crate::error::Warning;
use crate::formats::blprof::commdata::{
    AFTER_CALL, BEFORE_CALL, CommRecord, CommRecords, NAME_TAG, func_name,
};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{BlockSelection, CommBlockRecords, CommProcWalk, Skipped};

/// One call (or instant, when `end == start` and `instant`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct CommCall {
    pub kind: i32,
    pub name: &'static str,
    pub start: f64,
    pub end: f64,
    pub instant: bool,
    pub size: i32,
    pub peer: i32,
    pub tag: i32,
}

/// Streams the calls of the walk's process that overlap the walk's window
/// to `emit`, block by block in the order their end records are read (not
/// sorted). Memory stays at the calls still open; returns the problems met.
pub fn proc_calls(walk: CommProcWalk<'_>, emit: &mut dyn FnMut(CommCall)) -> Vec<Warning> {
    let window = walk.selection().window;
    walk.for_each_block(Skipped::CommBlock, Skipped::CommBlock, |_, records| {
        window_calls(records, window, emit)
    })
}

/// The calls of one block's records that overlap `window`. A function of
/// its own (never inlined into its caller), so that the call builder and
/// the window's filter compile into its loop over the records (inside the
/// walk's loop they did not: 12 % more instructions).
#[inline(never)]
fn window_calls(records: &mut CommRecords, window: (f64, f64), emit: &mut dyn FnMut(CommCall)) {
    let mut send = |c: CommCall| {
        if overlaps(&c, window) {
            emit(c);
        }
    };
    block_calls(records.by_ref(), &mut send);
}

/// The calls of one process that overlap the walk's window, read on demand
/// block after block, as [`proc_calls`] streams them: for writers that take
/// them a batch at a time.
pub struct ProcCalls<'a> {
    blocks: Box<dyn Iterator<Item = Result<CommBlockRecords<'a>, Warning>> + 'a>,
    window: (f64, f64),
    /// The block being read.
    block: Option<(CommBlockRecords<'a>, CallBuilder)>,
    warnings: Vec<Warning>,
}

impl<'a> ProcCalls<'a> {
    pub fn new(walk: CommProcWalk<'a>) -> Self {
        ProcCalls {
            blocks: Box::new(walk.record_blocks(Skipped::CommBlock)),
            window: walk.selection().window,
            block: None,
            warnings: Vec::new(),
        }
    }

    /// Reads on until `keep` has kept `n` calls (it is shown each call that
    /// overlaps the window and says whether it kept it) or the blocks end;
    /// returns the number kept, fewer than `n` only at the end.
    pub fn next_calls(&mut self, n: usize, mut keep: impl FnMut(CommCall) -> bool) -> usize {
        let window = self.window;
        let mut kept = 0;
        loop {
            let mut take = |c: CommCall| {
                if overlaps(&c, window) && keep(c) {
                    kept += 1;
                }
            };
            let Some((b, builder)) = &mut self.block else {
                match self.blocks.next() {
                    Some(Ok(b)) => self.block = Some((b, CallBuilder::default())),
                    Some(Err(w)) => self.warnings.push(w),
                    None => return kept,
                }
                continue;
            };
            match b.records.next() {
                Some(r) => builder.push(&r, &mut take),
                None => {
                    if let Some((b, builder)) = self.block.take() {
                        builder.finish(&mut take);
                        self.warnings.extend(b.finish(Skipped::CommBlock));
                    }
                }
            }
            if kept >= n {
                return kept;
            }
        }
    }

    /// The blocks that could not be read, so far.
    pub fn into_warnings(self) -> Vec<Warning> {
        self.warnings
    }
}

/// Whether call `c` overlaps `window`.
pub fn overlaps(c: &CommCall, window: (f64, f64)) -> bool {
    c.end >= window.0 && c.start <= window.1
}

/// The calls of one block's records, in record order of their ends.
/// (Always inlined, with [`CallBuilder::push`]: in the loop of its caller
/// the builder's work and `send` compile into one loop.)
#[inline(always)]
pub fn block_calls(records: impl Iterator<Item = CommRecord>, send: &mut dyn FnMut(CommCall)) {
    let mut calls = CallBuilder::default();
    for r in records {
        calls.push(&r, send);
    }
    calls.finish(send);
}

/// Builds the calls of one block from its records, fed in order (so that a
/// reader can stop and resume anywhere).
///
/// A call is either
///   `[data] … [AfterCall]`      (sends, nonblocking receives, tests), or
///   `[BeforeCall] … [data]`     (blocking receives, broadcasts, gathers,
///                                waits: the data record ends it),
///   `[BeforeCall] … [AfterCall]` (reductions, barriers, allgather);
/// a data record alone is an instant (a reduce). Status records that follow
/// a `[BeforeCall] … [data]` call (Waitsome, Waitall: one per request)
/// belong to it.
#[derive(Default)]
pub struct CallBuilder {
    /// Open call per type.
    open: OpenCalls,
    in_statuses: KindSet,
}

/// A set of types: a bit per type below 64, a tree for the others.
#[derive(Default)]
struct KindSet {
    small: u64,
    other: std::collections::BTreeSet<i32>,
}

impl KindSet {
    #[inline]
    fn bit(k: i32) -> Option<u64> {
        u32::try_from(k).ok().and_then(|k| 1u64.checked_shl(k))
    }

    #[inline]
    fn insert(&mut self, k: i32) {
        match Self::bit(k) {
            Some(b) => self.small |= b,
            None => {
                self.other.insert(k);
            }
        }
    }

    #[inline]
    fn remove(&mut self, k: i32) {
        match Self::bit(k) {
            Some(b) => self.small &= !b,
            None => {
                self.other.remove(&k);
            }
        }
    }

    #[inline]
    fn contains(&self, k: i32) -> bool {
        match Self::bit(k) {
            Some(b) => self.small & b != 0,
            None => self.other.contains(&k),
        }
    }
}

/// Types below this (every defined one) keep their open call in an array;
/// others, from damaged records, in a map.
const ARRAY_KINDS: usize = 64;

/// Open calls by type, iterated in type order: an array lookup per record
/// instead of a tree walk.
struct OpenCalls {
    small: [Option<Open>; ARRAY_KINDS],
    other: BTreeMap<i32, Open>,
}

impl Default for OpenCalls {
    fn default() -> Self {
        OpenCalls {
            small: [None; ARRAY_KINDS],
            other: BTreeMap::new(),
        }
    }
}

impl OpenCalls {
    #[inline]
    fn slot(&mut self, k: i32) -> Option<&mut Option<Open>> {
        usize::try_from(k).ok().and_then(|k| self.small.get_mut(k))
    }

    #[inline]
    fn remove(&mut self, k: i32) -> Option<Open> {
        match self.slot(k) {
            Some(s) => s.take(),
            None => self.other.remove(&k),
        }
    }

    #[inline]
    fn insert(&mut self, k: i32, o: Open) -> Option<Open> {
        match self.slot(k) {
            Some(s) => s.replace(o),
            None => self.other.insert(k, o),
        }
    }

    /// All open calls in type order.
    fn into_sorted(self) -> impl Iterator<Item = (i32, Open)> {
        let (below, above): (Vec<_>, Vec<_>) = self.other.into_iter().partition(|(k, _)| *k < 0);
        let small = self
            .small
            .into_iter()
            .enumerate()
            .filter_map(|(k, o)| Some((k as i32, o?)));
        below.into_iter().chain(small).chain(above)
    }
}

impl CallBuilder {
    /// The next record: the calls it ends go to `send`.
    #[inline(always)]
    pub fn push(&mut self, r: &CommRecord, send: &mut dyn FnMut(CommCall)) {
        let name = func_name(r.kind).unwrap_or("?");
        let has = |v: i32| r.size == v || r.peer == v || r.tag == v;
        if r.kind == NAME_TAG {
            send(CommCall {
                kind: r.kind,
                name,
                start: r.time,
                end: r.time,
                instant: true,
                size: r.size,
                peer: r.peer,
                tag: r.tag,
            });
        } else if has(AFTER_CALL) {
            self.in_statuses.remove(r.kind);
            if let Some(o) = self.open.remove(r.kind) {
                send(CommCall {
                    kind: r.kind,
                    name,
                    start: o.start,
                    end: r.time,
                    instant: false,
                    size: o.size,
                    peer: o.peer,
                    tag: o.tag,
                });
            }
        } else if has(BEFORE_CALL) {
            self.in_statuses.remove(r.kind);
            if let Some(o) = self.open.insert(
                r.kind,
                Open {
                    start: r.time,
                    size: r.size,
                    peer: r.peer,
                    tag: r.tag,
                    before: true,
                },
            ) {
                send(instant(r.kind, &o));
            }
        } else {
            match self.open.remove(r.kind) {
                Some(o) if o.before => {
                    // The data record ends the call and says what it did.
                    send(CommCall {
                        kind: r.kind,
                        name,
                        start: o.start,
                        end: r.time,
                        instant: false,
                        size: r.size,
                        peer: r.peer,
                        tag: r.tag,
                    });
                    self.in_statuses.insert(r.kind);
                }
                other => {
                    if let Some(o) = other {
                        // Two data records in a row: the first was a call
                        // of one record.
                        send(instant(r.kind, &o));
                    } else if self.in_statuses.contains(r.kind) {
                        return;
                    }
                    self.open.insert(
                        r.kind,
                        Open {
                            start: r.time,
                            size: r.size,
                            peer: r.peer,
                            tag: r.tag,
                            before: false,
                        },
                    );
                }
            }
        }
    }

    /// The end of the block: calls left open (a data record alone, or a
    /// call cut by the block's end) are instants.
    pub fn finish(self, send: &mut dyn FnMut(CommCall)) {
        for (k, o) in self.open.into_sorted() {
            send(instant(k, &o));
        }
    }
}

/// Counts the calls [`CallBuilder`] would build, per type, without building
/// them: the same rule, for the statistics' loop over every record. A call
/// is counted at the record that opens it (every open call ends as one
/// call, at its end record or at the end of the block); a NameTag record is
/// a call of its own.
pub struct CallCounter {
    small: [CallState; ARRAY_KINDS],
    /// Other types (damaged records).
    other: BTreeMap<i32, CallState>,
}

impl Default for CallCounter {
    fn default() -> Self {
        CallCounter {
            small: [CallState::default(); ARRAY_KINDS],
            other: BTreeMap::new(),
        }
    }
}

impl CallCounter {
    /// Whether record `r` opens a call (is counted as one).
    #[inline(always)]
    pub fn opens_call(&mut self, r: &CommRecord) -> bool {
        match usize::try_from(r.kind)
            .ok()
            .and_then(|i| self.small.get_mut(i))
        {
            Some(s) => s.opens_call(r),
            None => self.other.entry(r.kind).or_default().opens_call(r),
        }
    }
}

/// Where one type's records stand in [`CallCounter`]'s rule: the builder's
/// open call and status flag, in one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallState(u8);

/// Nothing open.
const IDLE: u8 = 0;
/// A before-record waits for its data or after-record.
const OPEN_BEFORE: u8 = 1;
/// A data record waits for its after-record.
const OPEN_DATA: u8 = 2;
// 3 (OPEN_DATA | OPEN_BEFORE): in statuses, a call ended by its data
// record, which status records may follow.

impl CallState {
    /// Whether record `r`, of this state's type, opens a call.
    #[inline(always)]
    pub fn opens_call(&mut self, r: &CommRecord) -> bool {
        if r.kind == NAME_TAG {
            return true;
        }
        let has = |v: i32| r.size == v || r.peer == v || r.tag == v;
        let s = self.0;
        // A data record opens a call unless a before-record waits for it
        // (open before) or it is a status record (in statuses): the states
        // with bit 0 set; either way the type is then in statuses or open
        // data. Most records are data records with no negative field: one
        // test (the sign of the fields' bitwise or) finds them.
        let (next, opens) = if (r.size | r.peer | r.tag) >= 0 {
            (OPEN_DATA | (s & 1), s & 1 == 0)
        } else if has(AFTER_CALL) {
            (IDLE, false)
        } else if has(BEFORE_CALL) {
            (OPEN_BEFORE, true)
        } else {
            (OPEN_DATA | (s & 1), s & 1 == 0)
        };
        self.0 = next;
        opens
    }
}

/// Call `k` of one record, at its time.
fn instant(k: i32, o: &Open) -> CommCall {
    CommCall {
        kind: k,
        name: func_name(k).unwrap_or("?"),
        start: o.start,
        end: o.start,
        instant: true,
        size: o.size,
        peer: o.peer,
        tag: o.tag,
    }
}

/// A call whose end record is still to come.
#[derive(Clone, Copy)]
struct Open {
    start: f64,
    size: i32,
    peer: i32,
    tag: i32,
    /// Started by a BeforeCall record (ended by AfterCall or by data).
    before: bool,
}

/// Per process (sorted by process): its calls in time order. Holds every
/// call in memory: for small selections and tests; reports stream with
/// [`proc_calls`] or bin with [`timeline_rows`].
#[cfg(any(test, feature = "internals"))]
pub fn comm_calls(
    db: &Database,
    window: (f64, f64),
) -> (Vec<(usize, Vec<CommCall>)>, Vec<Warning>) {
    let sel = BlockSelection {
        window,
        procs: None,
    };
    let per: Vec<(usize, Vec<CommCall>, Vec<Warning>)> = db.comm_blocks(&sel).map_procs(|p| {
        let mut calls = Vec::new();
        let w = proc_calls(p, &mut |c| calls.push(c));
        calls.sort_by(|a, b| a.start.total_cmp(&b.start));
        (p.proc().proc, calls, w)
    });
    let mut warnings = Vec::new();
    let mut out = Vec::new();
    for (p, c, w) in per {
        warnings.extend(w);
        out.push((p, c));
    }
    (out, warnings)
}

/// The time span of the blocks overlapping `scope`'s window, clamped to
/// it, on `scope`'s clocks (the window is on each process's own clock).
pub fn time_span(db: &Database, scope: &CommScope) -> Option<(f64, f64)> {
    let (window, clocks) = (scope.window(), scope.clocks());
    let sel = BlockSelection {
        window,
        procs: None,
    };
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in &db.comm_index().procs {
        let off = clocks.offset(p.proc);
        for b in sel.blocks(p) {
            if let Some((a, z)) = b.time_min_max {
                t0 = t0.min(a.max(window.0) - off);
                t1 = t1.max(z.min(window.1) - off);
            }
        }
    }
    (t1 >= t0).then_some((t0, t1))
}

/// A run of timeline columns of one process in which the same function
/// type takes the most time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bar {
    /// Columns `first..=last`.
    pub first: u32,
    pub last: u32,
    pub kind: i32,
    pub name: &'static str,
    /// Share of the run's time spent in communication calls (all types), 0..1.
    pub busy: f64,
    /// Calls of `kind` that start in the bar's columns.
    pub calls: u64,
}

/// One process's lane.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TimelineRow {
    pub proc: usize,
    pub bars: Vec<Bar>,
}

/// Type numbers 0..=42 (others are counted as 0).
const KINDS: usize = 43;

/// Bins each process's calls into `columns` equal slices of `span`: per
/// column the type with the most time (instants count as present), merged
/// into runs. Times are on `scope`'s clocks (`span` on those clocks, the
/// window on each process's own); only the calls whose entry lies in the
/// region ranges are drawn. Memory is per column, not per call, so any
/// number of calls draws in bounded space; processes run in parallel.
pub fn timeline_rows(
    db: &Database,
    scope: &CommScope,
    span: (f64, f64),
    columns: usize,
) -> (Vec<TimelineRow>, Vec<Warning>) {
    let (window, clocks, ranges) = (scope.window(), scope.clocks(), scope.ranges());
    let columns = columns.max(1);
    let width = (span.1 - span.0).max(f64::MIN_POSITIVE);
    let sel = BlockSelection {
        window,
        procs: None,
    };
    let per: Vec<(TimelineRow, Vec<Warning>)> = db.comm_blocks(&sel).map_procs(|walk| {
        with_bins(columns, |bins| {
        let col = |t: f64| {
            (((t - span.0) / width * columns as f64).floor().max(0.0) as usize).min(columns - 1)
        };
        let proc = walk.proc().proc;
        let off = clocks.offset(proc);
        let w = proc_calls(walk, &mut |mut c| {
            if !inside(ranges, proc, c.start) {
                return;
            }
            c.start -= off;
            c.end -= off;
            let k = usize::try_from(c.kind)
                .ok()
                .filter(|&k| k < KINDS)
                .unwrap_or(0);
            let (a, z) = (
                c.start.max(span.0),
                c.end.min(span.1).max(c.start.max(span.0)),
            );
            let (ca, cz) = (col(a), col(z));
            for i in ca..=cz {
                let lo = span.0 + width * i as f64 / columns as f64;
                let hi = span.0 + width * (i + 1) as f64 / columns as f64;
                let overlap = (z.min(hi) - a.max(lo)).max(0.0);
                // An instant still shows: the smallest positive weight.
                bins.add_time(i, k, overlap.max(1e-300));
            }
            // Counted once, in the column it starts in: a bar of several
            // columns then counts each call once.
            bins.calls[ca * KINDS + k] += 1;
        });
        let slice = width / columns as f64;
        let mut bars: Vec<Bar> = Vec::new();
        // Only the columns with calls: the others hold no bar, and a scan
        // of every column per process grew with processes × columns.
        bins.touched.sort_unstable();
        for &i in &bins.touched {
            let i = i as usize;
            let (time, calls) = (&bins.time, &bins.calls);
            let cell = &time[i * KINDS..(i + 1) * KINDS];
            let Some((k, _)) = cell
                .iter()
                .enumerate()
                .filter(|(_, t)| **t > 0.0)
                .max_by(|a, b| a.1.total_cmp(b.1))
            else {
                continue;
            };
            let busy = (cell.iter().sum::<f64>() / slice).min(1.0);
            let n = calls[i * KINDS + k] as u64;
            match bars.last_mut() {
                Some(b) if b.kind == k as i32 && b.last + 1 == i as u32 => {
                    let cols = (b.last - b.first + 1) as f64;
                    b.busy = (b.busy * cols + busy) / (cols + 1.0);
                    b.last = i as u32;
                    b.calls += n;
                }
                _ => bars.push(Bar {
                    first: i as u32,
                    last: i as u32,
                    kind: k as i32,
                    name: func_name(k as i32).unwrap_or("?"),
                    busy,
                    calls: n,
                }),
            }
        }
        (
            TimelineRow {
                proc: walk.proc().proc,
                bars,
            },
            w,
        )
        })
    });
    let mut warnings = Vec::new();
    let mut rows = Vec::new();
    for (r, w) in per {
        warnings.extend(w);
        rows.push(r);
    }
    (rows, warnings)
}

/// One process's timeline cells: per column and type, seconds inside the
/// column and calls; with the columns touched, so that a process with few
/// calls costs its calls and not the whole width.
#[derive(Default)]
struct Bins {
    time: Vec<f64>,
    calls: Vec<u32>,
    touched: Vec<u32>,
    is_touched: Vec<bool>,
}

impl Bins {
    fn add_time(&mut self, column: usize, kind: usize, seconds: f64) {
        if !self.is_touched[column] {
            self.is_touched[column] = true;
            self.touched.push(column as u32);
        }
        self.time[column * KINDS + kind] += seconds;
    }

    /// Zeroes the touched cells for the next process.
    fn clear(&mut self) {
        for &i in &self.touched {
            let i = i as usize;
            self.time[i * KINDS..(i + 1) * KINDS].fill(0.0);
            self.calls[i * KINDS..(i + 1) * KINDS].fill(0);
            self.is_touched[i] = false;
        }
        self.touched.clear();
    }
}

thread_local! {
    /// Each worker thread's cells, kept across processes: allocating and
    /// zeroing `columns` × types cells per process cost more than reading
    /// the records of a process with few calls.
    static BINS: std::cell::RefCell<Bins> = std::cell::RefCell::new(Bins::default());
}

/// Runs `f` with this thread's cleared cells for `columns` columns (fresh
/// ones should `f` ever run inside another `f` on the same thread).
fn with_bins<R>(columns: usize, f: impl FnOnce(&mut Bins) -> R) -> R {
    let run = |bins: &mut Bins| {
        if bins.is_touched.len() != columns {
            *bins = Bins {
                time: vec![0.0; columns * KINDS],
                calls: vec![0; columns * KINDS],
                touched: Vec::new(),
                is_touched: vec![false; columns],
            };
        }
        let r = f(bins);
        bins.clear();
        r
    };
    BINS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut bins) => run(&mut bins),
        Err(_) => run(&mut Bins::default()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: i32, size: i32, peer: i32, tag: i32, time: f64) -> CommRecord {
        CommRecord::of(kind, size, peer, tag, time)
    }

    /// Calls left open at a block's end come out in type order, whether the
    /// type is a defined one or a damaged record's (negative, past the table).
    #[test]
    fn open_calls_end_in_type_order_whatever_the_type() {
        let kinds = [70, 3, -5, 63, 64, 0, i32::MIN, i32::MAX, 17];
        let records: Vec<_> = kinds
            .iter()
            .map(|&k| rec(k, 8, 1, 2, f64::from(k.clamp(-100, 100))))
            .collect();
        let mut ended = Vec::new();
        block_calls(records.into_iter(), &mut |c| {
            ended.push((c.kind, c.instant))
        });
        let mut sorted = kinds.to_vec();
        sorted.sort_unstable();
        assert_eq!(ended, sorted.iter().map(|&k| (k, true)).collect::<Vec<_>>());
        // A status record after a data-ended call of a high type is skipped
        // just as for a low one.
        for k in [41, 100] {
            let mut ended = Vec::new();
            let records = vec![
                rec(k, BEFORE_CALL, 0, 0, 1.0),
                rec(k, 8, 1, 2, 2.0),
                rec(k, 8, 1, 2, 2.5),
            ];
            block_calls(records.into_iter(), &mut |c| ended.push(c.start));
            assert_eq!(ended, vec![1.0], "type {k}");
        }
    }

    #[test]
    fn every_record_pattern_makes_its_calls() {
        let (send, recv, waitall, reduce, barrier) = (8, 14, 41, 17, 25);
        let records = vec![
            // Blocking send: [bytes, dest, tag] … [AfterCall, dest, tag].
            rec(send, 64, 1, 7, 1.0),
            rec(send, AFTER_CALL, 1, 7, 1.5),
            // Blocking receive: [BeforeCall, src, tag] … [bytes, src, tag], twice.
            rec(recv, BEFORE_CALL, 1, 7, 2.0),
            rec(recv, 64, 1, 7, 2.5),
            rec(recv, BEFORE_CALL, 1, 8, 3.0),
            rec(recv, 32, 1, 8, 3.25),
            // Waitall: [BeforeCall…] then one status per request.
            rec(waitall, BEFORE_CALL, BEFORE_CALL, -3, 4.0),
            rec(waitall, 8, 1, 7, 4.5),
            rec(waitall, 8, 2, 7, 4.5),
            rec(waitall, 8, 3, 7, 4.5),
            // Two reduces of one record each.
            rec(reduce, 8, 0, -3, 5.0),
            rec(reduce, 8, 0, -3, 6.0),
            // Barrier: [0, BeforeCall, n] … [AfterCall, AfterCall, n].
            rec(barrier, 0, BEFORE_CALL, 3, 7.0),
            rec(barrier, AFTER_CALL, AFTER_CALL, 3, 7.5),
            rec(NAME_TAG, 0, 15, 0, 8.0),
        ];
        let mut calls = Vec::new();
        block_calls(records.into_iter(), &mut |c| calls.push(c));
        let got: Vec<(&str, f64, f64, bool, i32)> = calls
            .iter()
            .map(|c| (c.name, c.start, c.end, c.instant, c.size))
            .collect();
        assert_eq!(
            got,
            vec![
                ("SendTsii", 1.0, 1.5, false, 64),
                ("RecvTsii", 2.0, 2.5, false, 64),
                ("RecvTsii", 3.0, 3.25, false, 32),
                ("Waitall", 4.0, 4.5, false, 8),
                ("ReduceR", 5.0, 5.0, true, 8),
                ("Barrier", 7.0, 7.5, false, 0),
                ("NameTag", 8.0, 8.0, true, 0),
                ("ReduceR", 6.0, 6.0, true, 8),
            ]
        );
    }

    /// The counter counts, per type, the calls the builder builds: every
    /// record pattern of BLPROF_FORMAT.md §6.4.1, interleaved, plus stray
    /// and damaged records.
    #[test]
    fn the_call_counter_counts_the_calls_the_builder_builds() {
        let mut records = Vec::new();
        let mut t = 0.0;
        let mut push = |k, s, p, g| {
            t += 1.0;
            records.push(rec(k, s, p, g, t));
        };
        for _ in 0..3 {
            push(6, 100, 1, 7); // send: data, after
            push(6, -7, 1, 7);
            push(41, -5, -5, -3); // Waitall: before, statuses
            push(41, 8, 1, 7);
            push(41, 8, 2, 7);
            push(14, -5, 1, 7); // blocking receive: before, data
            push(14, 64, 1, 7);
            push(33, 8, -5, -3); // Allgather: markers in peer
            push(33, 8, -7, -3);
            push(34, 8, 0, -5); // Alltoall: markers in tag
            push(34, 8, 0, -7);
            push(27, 0, 5, 1); // NameTag
            push(25, 0, -5, 3); // Barrier
            push(25, -7, -7, 3);
            push(16, 8, 0, -3); // a reduce: one data record
            push(16, 8, 0, -3);
            push(39, 8, 1, 2); // Test
            push(39, 1, -7, 2);
            push(6, -7, 1, 7); // a stray after-record
            push(41, 8, 3, 7); // a stray status
            push(99, 1, 2, 3); // a type no AMReX writes
            push(-4, -5, 0, 0);
        }
        push(20, -5, 0, -3); // a broadcast cut off after its before-record
        let mut built: BTreeMap<i32, u64> = BTreeMap::new();
        block_calls(records.iter().copied(), &mut |c: CommCall| {
            *built.entry(c.kind).or_default() += 1
        });
        let mut counter = CallCounter::default();
        let mut counted: BTreeMap<i32, u64> = BTreeMap::new();
        for r in &records {
            if counter.opens_call(r) {
                *counted.entry(r.kind).or_default() += 1;
            }
        }
        assert_eq!(counted, built);
        // A status record after a Waitall belongs to it, however late.
        assert_eq!(counted[&41], 3);
        assert_eq!(counted[&33], 3);
        assert_eq!(counted[&16], 6);
    }
}
