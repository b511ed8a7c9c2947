//! The trace summary (amrprofparser `-wts`, BLPROF_FORMAT.md §8.5): function
//! statistics from the call records inside the selected time ranges, plus
//! inclusive times, the deepest call stack and recursive functions.
//!
//! * Exclusive statistics, over all processes: a call counts when it
//!   *starts* inside a selected range, with its whole exclusive time.
//! * Inclusive times, of the selected process: each call that starts inside
//!   a selected range contributes its overlap with the selected ranges;
//!   calls of a function already on the stack (recursion) add nothing.
//!
//! ```text
//! ranges      [=====]        [=====]
//! call  f       |-----------------|      starts inside → counts
//! inclusive     [===]        [====]      only the overlap
//! ```

use std::collections::BTreeSet;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Mutex;

use super::filter::RegionFilter;
use super::function_stats::{FunctionSummary, ProcessRows, summarize};
use super::ranges::{RangeCursor, RangeList, TimeRange};
use super::regions::Regions;
use crate::error::{Location, Warning};
use crate::formats::blprof::database::{Database, ProcTrace};
use crate::formats::blprof::trace::CallRecord;
use crate::formats::blprof::walk::TraceProcWalk;

/// Function numbers above this are treated as damage (no process has a
/// million distinct timers), so that a corrupt number cannot size a table.
const MAX_FUNCTION_NUMBER: i64 = 1 << 20;

/// Deepest nesting whose functions are remembered for the recursion test:
/// depths come from the file, and a corrupt one must not size the stack.
const MAX_TRACKED_DEPTH: usize = 1 << 16;

/// Global function list: the sorted union of every process's names, and
/// per process its local number → global index.
pub struct FunctionIndex {
    pub names: Vec<String>,
    remaps: Vec<Vec<u32>>,
}

impl FunctionIndex {
    pub fn new(procs: &[ProcTrace]) -> Self {
        // Processes mostly share their names: collect the distinct ones
        // first (thousands of processes, tens of names), then sort those.
        let distinct: FxHashSet<&str> = procs
            .iter()
            .flat_map(|p| p.functions.entries.iter().map(|(_, n)| &**n))
            .collect();
        let mut names: Vec<String> = distinct.into_iter().map(str::to_owned).collect();
        names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        let global: FxHashMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let remaps = procs
            .par_iter()
            .map(|p| {
                let max = p
                    .functions
                    .entries
                    .iter()
                    .map(|(n, _)| *n)
                    .filter(|&n| n <= MAX_FUNCTION_NUMBER)
                    .max()
                    .map_or(0, |m| m as usize + 1);
                let mut remap = vec![u32::MAX; max];
                for (n, name) in p.functions.entries.iter() {
                    if let (Some(slot), Some(&g)) =
                        (remap.get_mut(*n as usize), global.get(&**name))
                    {
                        *slot = g;
                    }
                }
                remap
            })
            .collect();
        FunctionIndex { names, remaps }
    }

    /// Global index of process row `row`'s local function `fnum`.
    #[inline]
    pub fn global(&self, row: usize, fnum: i32) -> Option<usize> {
        global(&self.remaps[row], fnum)
    }
}

/// Global index of local function `fnum` by one process's remap table.
#[inline]
fn global(remap: &[u32], fnum: i32) -> Option<usize> {
    remap
        .get(usize::try_from(fnum).ok()?)
        .filter(|&&g| g != u32::MAX)
        .map(|&g| g as usize)
}

/// How "no filter" selects calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfiltered {
    /// amrprofparser's include-all: from the first to the last region
    /// record of the database (-wts parity).
    RegionSpan,
    /// Every call.
    Everything,
}

/// The calls `filter` selects: the regions (read unless nothing selects
/// by them; their warnings are theirs to show, also when the filter names
/// a region that does not exist) and the selection of time ranges per
/// process, or the filter's error.
pub fn select_calls(
    db: &Database,
    filter: &RegionFilter,
    unfiltered: Unfiltered,
) -> (Regions, crate::Result<Selection>) {
    // Nothing to select by: the region records are not read at all.
    if filter.is_everything() && unfiltered == Unfiltered::Everything {
        return (Regions::default(), Ok(Selection { ranges: None }));
    }
    let regions = Regions::load(db);
    let everything =
        filter.is_everything() && (regions.span.is_none() || unfiltered == Unfiltered::Everything);
    let selection = if everything {
        Ok(Selection { ranges: None })
    } else {
        filter.time_ranges(&regions).map(|ranges| Selection {
            ranges: Some(ranges),
        })
    };
    (regions, selection)
}

/// Time ranges that select calls, per process row.
pub struct Selection {
    /// `None`: everything is selected (no regions recorded at all).
    pub ranges: Option<Vec<RangeList>>,
}

impl Selection {
    /// Whether the call of row `row` started at `t` is selected.
    #[inline]
    pub fn contains(&self, row: usize, t: f64) -> bool {
        match &self.ranges {
            None => true,
            Some(r) => r.get(row).is_some_and(|l| l.contains(t)),
        }
    }

    /// A membership test of one process for start times in record order.
    pub fn for_row(&self, row: usize) -> RowSelection<'_> {
        match &self.ranges {
            None => RowSelection::All,
            Some(r) => match r.get(row) {
                Some(l) => RowSelection::Ranges(l.cursor()),
                None => RowSelection::Nothing,
            },
        }
    }
}

/// See [`Selection::for_row`].
pub enum RowSelection<'a> {
    All,
    Nothing,
    Ranges(RangeCursor<'a>),
}

impl RowSelection<'_> {
    #[inline]
    pub fn contains(&mut self, t: f64) -> bool {
        match self {
            RowSelection::All => true,
            RowSelection::Nothing => false,
            RowSelection::Ranges(c) => c.contains(t),
        }
    }
}

struct TraceRows<'a> {
    /// Every process with call traces, by row.
    procs: Vec<TraceProcWalk<'a>>,
    functions: &'a FunctionIndex,
    selection: &'a Selection,
    /// Warnings by row: rows end in any order, the warnings go out in row order.
    warnings: Mutex<Vec<(usize, Warning)>>,
    /// The row whose inclusive times are wanted, and their result once read
    /// (in the same pass as its exclusive statistics: its bytes are read once).
    inclusive_row: Option<usize>,
    inclusive: Mutex<Option<InclusiveScan>>,
}

impl TraceRows<'_> {
    /// Counts the selected calls of `p` per global function, showing each
    /// to `also` (a copy of the loop per `also`, so the plain one carries
    /// nothing of the inclusive one).
    fn scan_row(
        &self,
        p: TraceProcWalk<'_>,
        remap: &[u32],
        selected: &mut RowSelection<'_>,
        calls: &mut [i64],
        times: &mut [f64],
        mut also: impl FnMut(&CallRecord),
    ) {
        // Calls whose function the process's table lacks: a block read from
        // the wrong offset (a damaged record count) decodes to such numbers.
        let mut unknown = 0u64;
        let mut first_unknown: Option<Location> = None;
        let mut skipped = Vec::new();
        for b in p.blocks() {
            let before = unknown;
            let warning = b.for_each_call_batch(|batch| {
                // Locals for the batch's loop, so they stay in registers.
                let mut sel = std::mem::replace(selected, RowSelection::Nothing);
                for c in batch.calls() {
                    if c.is_sentinel() || !sel.contains(c.start) {
                        continue;
                    }
                    match global(remap, c.fnum) {
                        Some(g) => {
                            if let (Some(n), Some(t)) = (calls.get_mut(g), times.get_mut(g)) {
                                *n += 1;
                                *t += c.exclusive;
                            }
                        }
                        None => unknown += 1,
                    }
                    also(&c);
                }
                *selected = sel;
            });
            skipped.extend(warning);
            if unknown > before && first_unknown.is_none() {
                let block = b.block();
                first_unknown = Some(Location::line(&block.header, block.line));
            }
        }
        let mut w = Vec::new();
        w.extend(skipped);
        if let Some(at) = first_unknown {
            w.push(Warning::new(
                at,
                format!(
                    "process {}: {unknown} call record(s) with a function number not in its fName table, left out (a block misread? `profparse check` names each)",
                    p.proc().proc
                ),
            ));
        }
        if !w.is_empty() {
            let mut all = self.warnings.lock().unwrap_or_else(|p| p.into_inner());
            all.extend(w.into_iter().map(|x| (p.row(), x)));
        }
    }
}

impl ProcessRows for TraceRows<'_> {
    fn rows(&self) -> usize {
        self.procs.len()
    }

    fn read_row(&self, row: usize, calls: &mut [i64], times: &mut [f64]) -> usize {
        calls.fill(0);
        times.fill(0.0);
        let walk = self.procs[row];
        let p = walk.proc();
        let mut selected = self.selection.for_row(row);
        let remap = &self.functions.remaps[row];
        if self.inclusive_row == Some(row) {
            // The selected process also gets its inclusive times, in the
            // same pass.
            let mut inclusive =
                Inclusive::new(p, self.selection.ranges.as_ref().and_then(|r| r.get(row)));
            self.scan_row(walk, remap, &mut selected, calls, times, |c| {
                inclusive.add(c)
            });
            *self.inclusive.lock().unwrap_or_else(|p| p.into_inner()) = Some(inclusive.finish(p));
        } else {
            self.scan_row(walk, remap, &mut selected, calls, times, |_| {});
        }
        p.proc
    }
}

/// Everything `-wts` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TraceSummary {
    /// Exclusive statistics over all processes (functions: the global list).
    pub summary: FunctionSummary,
    /// Inclusive seconds of the selected process's functions, descending.
    pub inclusive: Vec<(String, f64)>,
    /// The deepest call stack of the selected process.
    pub max_call_stack_depth: usize,
    /// Functions that call themselves, directly or not.
    pub recursive_functions: Vec<String>,
    /// Span of call start times over all blocks (`timeMinMax`).
    pub calc_run_time: f64,
    /// Total length of the selected process's ranges.
    pub range_run_time: f64,
}

/// Computes the trace summary. `selection.ranges` is indexed like `db.trace_index().procs`.
pub fn trace_summary(
    db: &Database,
    selection: &Selection,
    selected_proc: usize,
) -> (TraceSummary, Vec<Warning>) {
    let index = db.trace_index();
    let functions = FunctionIndex::new(&index.procs);
    let (min, max) = index
        .procs
        .iter()
        .flat_map(|p| &p.blocks)
        .filter_map(|b| b.time_min_max)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (x, y)| {
            (a.min(x), b.max(y))
        });
    let calc_run_time = if max >= min { max - min } else { 0.0 };
    let rows = TraceRows {
        procs: db.trace_blocks(None).procs().collect(),
        functions: &functions,
        selection,
        warnings: Mutex::new(Vec::new()),
        inclusive_row: index.procs.iter().position(|p| p.proc == selected_proc),
        inclusive: Mutex::new(None),
    };
    let summary = summarize(&functions.names, &rows, selected_proc, Some(calc_run_time));
    let (inclusive, max_depth, recursive, range_run_time) = rows
        .inclusive
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .unwrap_or_default();
    let mut warnings = rows
        .warnings
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    warnings.sort_by_key(|(row, _)| *row);
    (
        TraceSummary {
            summary,
            inclusive,
            max_call_stack_depth: max_depth,
            recursive_functions: recursive,
            calc_run_time,
            range_run_time,
        },
        warnings.into_iter().map(|(_, w)| w).collect(),
    )
}

type InclusiveScan = (Vec<(String, f64)>, usize, Vec<String>, f64);

/// Inclusive times, max depth and recursion of one process (§8.3, §8.5
/// step 3), fed the selected calls in record order.
struct Inclusive<'a> {
    ranges: Option<&'a RangeList>,
    /// Where in `ranges` the last call started (calls mostly start later
    /// than the one before, so a binary search per call is rarely needed).
    cursor: Option<RangeCursor<'a>>,
    visits: Visits,
}

/// What [`Inclusive`] gathers from the selected parts of calls.
struct Visits {
    /// Seconds per local function number (numbers past the table's are
    /// never reported, so they are not kept).
    seconds: Vec<f64>,
    /// Recursive functions: numbers in the table, and the others.
    recursive_in_table: Vec<bool>,
    recursive: BTreeSet<i32>,
    /// The function of the latest record at each depth.
    stack: Vec<i32>,
    max_depth: usize,
}

impl<'a> Inclusive<'a> {
    fn new(p: &ProcTrace, ranges: Option<&'a RangeList>) -> Self {
        let table = p
            .functions
            .entries
            .iter()
            .map(|(n, _)| *n)
            .filter(|&n| (0..=MAX_FUNCTION_NUMBER).contains(&n))
            .max()
            .map_or(0, |m| m as usize + 1);
        Inclusive {
            ranges,
            cursor: ranges.map(RangeList::cursor),
            visits: Visits {
                seconds: vec![0.0; table],
                recursive_in_table: vec![false; table],
                recursive: BTreeSet::new(),
                stack: Vec::new(),
                max_depth: 0,
            },
        }
    }

    #[inline]
    fn add(&mut self, c: &CallRecord) {
        let Ok(depth) = usize::try_from(c.depth) else {
            return;
        };
        let visits = &mut self.visits;
        match &mut self.cursor {
            None => visits.visit(depth, c.fnum, c.inclusive),
            Some(cursor) => cursor.for_each_piece(TimeRange::new(c.start, c.end()), |piece| {
                visits.visit(depth, c.fnum, piece.len());
            }),
        }
    }

    fn finish(self, p: &ProcTrace) -> InclusiveScan {
        let range_run_time = self.ranges.map_or(0.0, RangeList::total);
        self.visits.finish(p, range_run_time)
    }
}

impl Visits {
    #[inline]
    fn visit(&mut self, depth: usize, fnum: i32, len: f64) {
        self.max_depth = self.max_depth.max(depth);
        // No early exit: the answer is random, and the stack is short.
        let is_recursive = self
            .stack
            .iter()
            .take(depth)
            .fold(false, |found, &f| found | (f == fnum));
        if self.stack.len() <= depth && depth < MAX_TRACKED_DEPTH {
            self.stack.resize(depth + 1, -1);
        }
        if let Some(slot) = self.stack.get_mut(depth) {
            *slot = fnum;
        }
        if is_recursive {
            // Most calls of a recursive function are recursive: a flag in
            // the table, and the set only for numbers outside it.
            match usize::try_from(fnum)
                .ok()
                .and_then(|f| self.recursive_in_table.get_mut(f))
            {
                Some(flag) => *flag = true,
                None => {
                    self.recursive.insert(fnum);
                }
            }
        } else if let Some(s) = usize::try_from(fnum)
            .ok()
            .and_then(|f| self.seconds.get_mut(f))
        {
            *s += len;
        }
    }

    fn finish(self, p: &ProcTrace, range_run_time: f64) -> InclusiveScan {
        let name = |f: i32| {
            p.functions
                .name(f as i64)
                .map_or_else(|| format!("function {f}"), str::to_owned)
        };
        // Every function of the process's table, the uncalled ones with 0.
        let mut inclusive: Vec<(String, f64)> = p
            .functions
            .entries
            .iter()
            .map(|(n, nm)| {
                let seconds = usize::try_from(*n)
                    .ok()
                    .and_then(|n| self.seconds.get(n))
                    .copied()
                    .unwrap_or(0.0);
                (nm.to_string(), seconds)
            })
            .collect();
        inclusive.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut recursive = self.recursive;
        recursive.extend(
            (0..)
                .zip(&self.recursive_in_table)
                .filter_map(|(f, &is)| is.then_some(f)),
        );
        let recursive = recursive.iter().map(|&f| name(f)).collect();
        (inclusive, self.max_depth, recursive, range_run_time)
    }
}
