//! A per-process timeline of the calls at one depth (0: the outermost
//! calls) from the call traces, binned into a fixed number of time columns.
//! An `Amr` application's depth 0 is one call per step, back to back:
//! deeper levels, and bars split where a call starts, show its steps.
//!
//! Per process and column, the outermost function with the most time in
//! the column wins; neighbouring columns won by the same function merge into
//! one bar, unless a call of it starts there. Memory and output are bounded
//! by columns × processes (× depths), whatever the number of calls.
//!
//! ```text
//! time      0 ─────────────────────────────── span end
//! calls     [init ][ advance   ][ advance  ][io]
//! columns   | | | | | | | | | | | | | | | | | |
//! bars      [init ][ advance              ][io]
//! ```

use rayon::prelude::*;

use super::trace_summary::FunctionIndex;
use crate::error::Warning;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::TraceProcWalk;

/// Columns `first..=last` of one process in which `function` has the most time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TraceBar {
    pub first: u32,
    pub last: u32,
    /// Index into [`TraceTimeline::names`].
    pub function: u32,
    /// Share of the run's time spent in outermost calls (any function), 0..1.
    pub busy: f64,
    /// Calls of `function` that start in the run.
    pub calls: u64,
}

/// One process's lane.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TraceTimelineRow {
    pub proc: usize,
    pub bars: Vec<TraceBar>,
}

/// The binned timeline of every process.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TraceTimeline {
    /// Seconds covered: first call start to last call end.
    pub span: (f64, f64),
    pub columns: usize,
    /// Global function names (sorted; see [`FunctionIndex`]).
    pub names: Vec<String>,
    /// Seconds of outermost calls per function, over all processes (inside the span).
    pub totals: Vec<f64>,
    pub rows: Vec<TraceTimelineRow>,
    /// The latest end of an outermost call; after `span.1` when calls were clipped.
    pub latest_end: f64,
}

/// The timeline over the whole span of the traces ([`trace_span`]). A call
/// open across a flush can end after everything the last blocks show: then
/// the span is widened to the latest end and the calls are binned again,
/// so no call is ever clipped. `None` without calls.
#[cfg(test)]
pub fn whole_trace_timeline(
    db: &Database,
    columns: usize,
) -> (Option<TraceTimeline>, Vec<Warning>) {
    let (t, w) = whole_trace_timelines(db, columns, 1);
    (t.into_iter().next(), w)
}

/// [`whole_trace_timeline`] of the calls at each depth `0..depths`, from
/// one pass over the traces: element `d` holds the calls at depth `d`.
/// Empty without calls.
pub fn whole_trace_timelines(
    db: &Database,
    columns: usize,
    depths: usize,
) -> (Vec<TraceTimeline>, Vec<Warning>) {
    let (span, mut warnings) = trace_span(db);
    let Some(span) = span else {
        return (Vec::new(), warnings);
    };
    let (t, w) = trace_timelines(db, span, columns, depths);
    let latest = t
        .iter()
        .map(|t| t.latest_end)
        .fold(f64::NEG_INFINITY, f64::max);
    if latest <= span.1 {
        warnings.extend(w);
        return (t, warnings);
    }
    // The same blocks again: their warnings are those of the first pass.
    let (t, w) = trace_timelines(db, (span.0, latest), columns, depths);
    warnings.extend(w);
    (t, warnings)
}

/// The span of the call traces: the earliest call start (`timeMinMax`) to
/// the latest end of a call in each process's last block, which needs one
/// block per process read. `None` without calls.
pub fn trace_span(db: &Database) -> (Option<(f64, f64)>, Vec<Warning>) {
    let index = db.trace_index();
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    for b in index.procs.iter().flat_map(|p| &p.blocks) {
        if let Some((a, z)) = b.time_min_max {
            t0 = t0.min(a);
            t1 = t1.max(z);
        }
    }
    let ends: Vec<(f64, f64, Option<Warning>)> = db.trace_blocks(None).map_procs(|p| {
        let (mut a, mut z) = (f64::INFINITY, f64::NEG_INFINITY);
        let warning = p.blocks().last().and_then(|last| {
            last.for_each_call(|c| {
                if c.start.is_finite() && c.inclusive.is_finite() {
                    a = a.min(c.start);
                    z = z.max(c.end());
                }
            })
        });
        (a, z, warning)
    });
    let mut w = Vec::new();
    for (a, z, warning) in ends {
        t0 = t0.min(a);
        t1 = t1.max(z);
        w.extend(warning);
    }
    ((t1 >= t0).then_some((t0, t1)), w)
}

/// One function's share of a column: `(function, seconds, calls starting
/// here)`.
type Entry = (u32, f64, u32);

/// A lane's columns: per column the first function to touch it is held in
/// place (most columns: one call over many), any others in a list of the
/// column's, kept from process to process. Held as a `Vec` per column, every
/// column of every process was a pointer to follow and a heap entry to fill
/// (16,384 processes: 18.5 million), most of the time of the timelines.
struct Lane {
    cells: Vec<Cell>,
    /// Per column, its entries after the first, in the order they came.
    others: Vec<Vec<Entry>>,
}

/// A column of a [`Lane`]: its first entry (function [`NONE`]: none), and
/// whether it has others (so that a column of one function, most of them,
/// never touches [`Lane::others`]).
#[derive(Clone, Copy)]
struct Cell {
    entry: Entry,
    more: bool,
}

const NONE: u32 = u32::MAX;

const EMPTY: Cell = Cell {
    entry: (NONE, 0.0, 0),
    more: false,
};

impl Lane {
    fn new(columns: usize) -> Self {
        Lane {
            cells: vec![EMPTY; columns],
            others: vec![Vec::new(); columns],
        }
    }

    /// Adds `t` seconds and `starts` calls of function `f` to column `i`.
    #[inline(always)]
    fn add(&mut self, i: usize, f: u32, t: f64, starts: u32) {
        let cell = &mut self.cells[i];
        if cell.entry.0 == f {
            cell.entry.1 += t;
            cell.entry.2 += starts;
            return;
        }
        if cell.entry.0 == NONE {
            cell.entry = (f, t, starts);
            return;
        }
        cell.more = true;
        let others = &mut self.others[i];
        match others.iter_mut().find(|e| e.0 == f) {
            Some(e) => {
                e.1 += t;
                e.2 += starts;
            }
            None => others.push((f, t, starts)),
        }
    }

    /// Column `i`'s entries in the order they came (gathered in `several`
    /// when there are more than one), the column emptied for the next
    /// process.
    #[inline(always)]
    fn take<'a>(&mut self, i: usize, several: &'a mut Vec<Entry>) -> Taken<'a> {
        let cell = std::mem::replace(&mut self.cells[i], EMPTY);
        if cell.entry.0 == NONE {
            return Taken::Empty;
        }
        if !cell.more {
            return Taken::One(cell.entry);
        }
        several.clear();
        several.push(cell.entry);
        several.append(&mut self.others[i]);
        Taken::Several(several)
    }
}

/// A column taken from a [`Lane`].
enum Taken<'a> {
    Empty,
    One(Entry),
    Several(&'a [Entry]),
}

/// Bins the outermost calls of every process into `columns` slices of
/// `span`. Calls outside the span are clipped to it.
#[cfg(test)]
pub fn trace_timeline(
    db: &Database,
    span: (f64, f64),
    columns: usize,
) -> (TraceTimeline, Vec<Warning>) {
    let (t, w) = trace_timelines(db, span, columns, 1);
    let t = t.into_iter().next().unwrap_or_else(|| TraceTimeline {
        span,
        columns: columns.max(1),
        names: Vec::new(),
        totals: Vec::new(),
        rows: Vec::new(),
        latest_end: f64::NEG_INFINITY,
    });
    (t, w)
}

/// [`trace_timeline`] of the calls at each depth `0..depths` (at least
/// one), in one pass over the traces: element `d` bins the calls at depth
/// `d` alone, so that the steps inside one long outermost call show.
pub fn trace_timelines(
    db: &Database,
    span: (f64, f64),
    columns: usize,
    depths: usize,
) -> (Vec<TraceTimeline>, Vec<Warning>) {
    let index = db.trace_index();
    let functions = FunctionIndex::new(&index.procs);
    let nfuncs = functions.names.len();
    let columns = columns.max(1);
    let depths = depths.max(1);
    let width = (span.1 - span.0).max(f64::MIN_POSITIVE);
    let slice = width / columns as f64;
    // Per process, per depth: the lane, seconds per function, latest end.
    type Level = (TraceTimelineRow, Vec<f64>, f64);
    let procs: Vec<_> = db.trace_blocks(None).procs().collect();
    // Bins one process's calls into its cells (a lane per depth); gives its
    // seconds per function and latest end per depth, and its warnings.
    let bin = |walk: &TraceProcWalk<'_>, cols: &mut [Lane]| {
        let row = walk.row();
        let mut totals = vec![vec![0f64; nfuncs]; depths];
        let mut latest = vec![f64::NEG_INFINITY; depths];
        let col = |t: f64| (((t - span.0) / slice).floor().max(0.0) as usize).min(columns - 1);
        let warnings = walk.for_each_call(|c| {
            let d = c.depth as usize;
            if d >= depths || !c.start.is_finite() || !c.inclusive.is_finite() {
                return;
            }
            let Some(g) = functions.global(row, c.fnum) else {
                return;
            };
            latest[d] = latest[d].max(c.end());
            let a = c.start.clamp(span.0, span.1);
            let z = c.end().clamp(a, span.1);
            let first = col(a);
            let lane = &mut cols[d];
            // The function's seconds summed in a register, in the same
            // order: a sum kept in memory made a load and a store part of
            // the chain of additions, per column of every process.
            let Some(total) = totals[d].get_mut(g) else {
                return;
            };
            let mut sum = *total;
            let g = g as u32;
            for i in first..=col(z) {
                let lo = span.0 + slice * i as f64;
                let overlap = (z.min(lo + slice) - a.max(lo)).max(0.0);
                sum += overlap;
                // An instant still shows: the smallest positive weight.
                let t = overlap.max(1e-300);
                lane.add(i, g, t, u32::from(i == first));
            }
            *total = sum;
        });
        (totals, latest, warnings)
    };
    // Processes are binned a chunk at a time, their lanes' bars made side
    // by side (see `lanes_bars`); with few processes, a chunk each keeps
    // the threads evenly busy.
    let at_once = if procs.len() >= LANES_AT_ONCE * MIN_CHUNKS_PER_THREAD * rayon::current_num_threads() {
        LANES_AT_ONCE
    } else {
        1
    };
    // The columns' cells are emptied and refilled per process, not made
    // anew: with thousands of processes, a cell's first push per process
    // (columns × depths allocations each) was most of the time.
    let empty_cells = || {
        (0..at_once)
            .map(|_| (0..depths).map(|_| Lane::new(columns)).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    let per: Vec<(Vec<Level>, Vec<Warning>)> = procs
        .par_chunks(at_once)
        .map_init(empty_cells, |cells: &mut Vec<Vec<Lane>>, chunk| {
            let binned: Vec<_> = chunk.iter().zip(cells.iter_mut()).map(|(walk, cols)| bin(walk, cols)).collect();
            let mut lanes: Vec<&mut Lane> = cells[..chunk.len()].iter_mut().flatten().collect();
            let mut bars = lanes_bars(&mut lanes, slice).into_iter();
            chunk
                .iter()
                .zip(binned)
                .map(|(walk, (totals, latest, warnings))| {
                    let levels = totals
                        .into_iter()
                        .zip(latest)
                        .map(|(totals, latest)| {
                            let row = TraceTimelineRow {
                                proc: walk.proc().proc,
                                bars: bars.next().unwrap_or_default(),
                            };
                            (row, totals, latest)
                        })
                        .collect();
                    (levels, warnings)
                })
                .collect::<Vec<_>>()
        })
        .flatten_iter()
        .collect();
    let mut out: Vec<TraceTimeline> = (0..depths)
        .map(|_| TraceTimeline {
            span,
            columns,
            names: functions.names.clone(),
            totals: vec![0f64; nfuncs],
            rows: Vec::with_capacity(per.len()),
            latest_end: f64::NEG_INFINITY,
        })
        .collect();
    let mut warnings = Vec::new();
    for (levels, w) in per {
        warnings.extend(w);
        for (t, (row, totals, latest)) in out.iter_mut().zip(levels) {
            t.latest_end = t.latest_end.max(latest);
            for (a, b) in t.totals.iter_mut().zip(&totals) {
                *a += b;
            }
            t.rows.push(row);
        }
    }
    (out, warnings)
}

/// Lanes binned side by side: the running mean of a bar's busy share is a
/// chain of dependent divisions per column (a tenth of `report` at 16,384
/// processes), and stepping several lanes column by column lets the
/// processor overlap their chains; each lane's means are the same bits.
const LANES_AT_ONCE: usize = 4;

/// Chunks of [`LANES_AT_ONCE`] processes per thread below which processes
/// are binned one per task, for balance.
const MIN_CHUNKS_PER_THREAD: usize = 64;

/// The bars of each lane: per column the function with the most time;
/// neighbouring columns won by the same function merge unless a call of it
/// starts in the later one, so that back-to-back calls (an application's
/// time steps) stay apart. At most one bar per column whatever the calls.
/// The lanes are left empty for the next processes.
fn lanes_bars(lanes: &mut [&mut Lane], slice: f64) -> Vec<Vec<TraceBar>> {
    let mut bars: Vec<Vec<TraceBar>> = vec![Vec::new(); lanes.len()];
    let columns = lanes.iter().map(|l| l.cells.len()).max().unwrap_or(0);
    let mut others = Vec::new();
    for i in 0..columns {
        for (lane, bars) in lanes.iter_mut().zip(&mut bars) {
            if i < lane.cells.len() {
                match lane.take(i, &mut others) {
                    Taken::Empty => {}
                    Taken::One(e) => add_column(bars, i as u32, &[e], slice),
                    Taken::Several(cell) => add_column(bars, i as u32, cell, slice),
                }
            }
        }
    }
    bars
}

/// Adds column `i` of a lane, its entries in the order they came, to its bars.
fn add_column(bars: &mut Vec<TraceBar>, i: u32, cell: &[Entry], slice: f64) {
    let (f, n, seconds) = match cell {
        [] => return,
        // Most cells (a call over many columns) hold one function: its
        // seconds are the sum, as the fold below gives them (weights are
        // positive, so the fold's starting zero changes no bit).
        &[(f, t, n)] => (f, n, t),
        _ => {
            // Ties go to the lower function index, for any call order.
            let Some(&(f, _, n)) = cell
                .iter()
                .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)))
            else {
                return;
            };
            (f, n, cell.iter().map(|e| e.1).sum::<f64>())
        }
    };
    // A column its call fills (most columns of a long call) is busy 1
    // without a division: x / slice ≥ 1 exactly when x ≥ slice.
    let busy = if seconds >= slice {
        1.0
    } else {
        (seconds / slice).min(1.0)
    };
    match bars.last_mut() {
        Some(b) if b.function == f && b.last + 1 == i && n == 0 => {
            // A mean of ones stays one: (k + 1) / (k + 1) exactly, so the
            // chain of dependent divisions (a tenth of `report` at 16,384
            // processes, where a lane is mostly one long call) is skipped.
            if b.busy != 1.0 || busy != 1.0 {
                let k = (b.last - b.first + 1) as f64;
                b.busy = (b.busy * k + busy) / (k + 1.0);
            }
            b.last = i;
        }
        _ => bars.push(TraceBar {
            first: i,
            last: i,
            function: f,
            busy,
            calls: n as u64,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lane with `columns`' entries added in order.
    fn lane_of(columns: &[Vec<Entry>]) -> Lane {
        let mut lane = Lane::new(columns.len());
        for (i, cell) in columns.iter().enumerate() {
            for &(f, t, n) in cell {
                lane.add(i, f, t, n);
            }
        }
        lane
    }

    /// Lanes whose bars are long runs of uneven busy shares (the running
    /// means' bits depend on every step) and ties.
    fn lane(seed: u32) -> Vec<Vec<Entry>> {
        (0..40u32)
            .map(|i| match (i + seed) % 7 {
                0 => Vec::new(),
                1 => vec![(2, 0.3 + f64::from(i) * 1e-3, 1)],
                2 | 3 => vec![(1, 0.25, 0), (3, 0.25, 0)],
                _ => vec![(2, 0.1 * f64::from(i % 5) + 1e-9 * f64::from(seed), 0)],
            })
            .collect()
    }

    /// Lanes side by side give each lane's bars as made one at a time.
    #[test]
    fn lanes_side_by_side_are_lanes_one_at_a_time() {
        let columns: Vec<Vec<Vec<Entry>>> = (0..5).map(lane).collect();
        let mut lanes: Vec<Lane> = columns.iter().map(|c| lane_of(c)).collect();
        let mut refs: Vec<&mut Lane> = lanes.iter_mut().collect();
        let together = lanes_bars(&mut refs, 0.7);
        for (c, bars) in columns.iter().zip(&together) {
            assert_eq!(bars, &lanes_bars(&mut [&mut lane_of(c)], 0.7)[0]);
        }
        assert_ne!(together[0], together[1]);
        assert!(
            lanes.iter().all(|l| l.others.iter().all(Vec::is_empty)
                && l.cells.iter().all(|c| c.entry.0 == NONE && !c.more)),
            "the lanes are left empty for the next processes"
        );
    }

    /// A lane's columns hold what a `Vec` per column holds, in the same
    /// order, however the additions interleave over columns and functions;
    /// a lane emptied by `lanes_bars` serves the next process as a new one.
    #[test]
    fn lanes_hold_what_vecs_per_column_hold() {
        let mut rng = crate::test_rng::Xorshift::new(41);
        let columns = 9;
        let mut lane = Lane::new(columns);
        for round in 0..200 {
            let mut expected: Vec<Vec<Entry>> = vec![Vec::new(); columns];
            for _ in 0..rng.below(40) {
                let i = rng.below(columns as u64) as usize;
                let f = rng.below(1 + round % 5) as u32;
                let t = rng.uniform();
                let n = rng.below(2) as u32;
                lane.add(i, f, t, n);
                match expected[i].iter_mut().find(|e| e.0 == f) {
                    Some(e) => {
                        e.1 += t;
                        e.2 += n;
                    }
                    None => expected[i].push((f, t, n)),
                }
            }
            let slice = 0.3;
            let mut want = Vec::new();
            for (i, cell) in expected.iter().enumerate() {
                add_column(&mut want, i as u32, cell, slice);
            }
            assert_eq!(lanes_bars(&mut [&mut lane], slice)[0], want, "round {round}");
        }
    }

    /// A bar spans the columns its function wins in a row, until a call of
    /// it starts; its busy share is the mean of its columns'.
    #[test]
    fn bars_merge_columns_until_a_call_starts() {
        let lane: Vec<Vec<Entry>> = vec![
            vec![(4, 0.5, 1)],
            vec![(4, 1.0, 0), (2, 0.25, 0)],
            vec![(4, 0.25, 0)],
            vec![(4, 1.0, 1)],
            Vec::new(),
            vec![(1, 0.5, 0), (3, 0.5, 0)],
        ];
        let bars = &lanes_bars(&mut [&mut lane_of(&lane)], 1.0)[0];
        let spans: Vec<(u32, u32, u32, u64)> =
            bars.iter().map(|b| (b.first, b.last, b.function, b.calls)).collect();
        assert_eq!(spans, [(0, 2, 4, 1), (3, 3, 4, 1), (5, 5, 1, 0)]);
        assert_eq!(bars[0].busy, ((0.5 + 1.0) / 2.0 * 2.0 + 0.25) / 3.0);
        assert_eq!(bars[2].busy, 1.0);
    }
}
