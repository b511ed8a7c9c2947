//! Everything a database supports, computed for the one-page report
//! (`profparse report`): function summary and load imbalance (base
//! profile), call tree, regions and the timeline of outermost calls (call
//! traces), send matrix and communication timeline (comm profile). A part
//! the run did not write, or could not be read, becomes an [`Absent`] note.

use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::Mutex;

use super::base_summary::base_summary;
use super::callers::{BottomUpMemory, MERGE_CHUNK, bottom_up_into};
use super::calltree::{RUN_PROCS, Spread, for_each_process_run};
use super::spread_merge::{ChunkedSpreadMerge, RunTrees, SpreadMerge};
use super::comm::scope::CommScope;
use super::comm::select::CommSelection;
use super::comm::sync::{SendMatrixGroups, send_matrix_groups};
use super::comm::timeline::{TimelineRow, time_span, timeline_rows};
use super::function_stats::FunctionSummary;
use super::imbalance::{FunctionImbalance, ImbalanceOptions, imbalance};
use super::regions::{RegionStats, Regions, region_stats};
use super::trace_summary::Selection;
use super::trace_timeline::{TraceTimeline, whole_trace_timelines};
use crate::error::Warning;
use crate::formats::blprof::{Database, Part};
use crate::model::calltree::CallTree;

/// Why a section has nothing to show (the database lacks the part, or the
/// part could not be read); the page prints it in place of the section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Absent(pub String);

/// A section's data, or why there is none.
pub type Section<T> = Result<T, Absent>;

/// What the overview computes, and how far.
#[derive(Debug, Clone)]
pub struct OverviewOptions {
    /// The process in focus: its calls fill NCalls, the call tree is its
    /// own (`None`: merged over processes).
    pub proc: Option<usize>,
    pub imbalance: ImbalanceOptions,
    /// Columns of the timelines.
    pub timeline_columns: usize,
    /// Trace timelines of the calls at depths `0..timeline_depths`.
    pub timeline_depths: usize,
    /// At most this many cells per side of the send matrix.
    pub matrix_max_cells: usize,
}

/// The call tree, merged over `nprocs` processes or of the one in focus,
/// and its bottom-up (callers) tree, merged the same way.
pub struct TreeSection {
    pub tree: CallTree<Spread>,
    pub bottom_up: CallTree<Spread>,
    /// Caller paths deeper than [`MAX_LEVELS`](super::callers::MAX_LEVELS)
    /// were cut there.
    pub bottom_up_cut: bool,
    pub nprocs: usize,
}

/// The communication timeline.
pub struct CommTimelineSection {
    pub span: (f64, f64),
    pub rows: Vec<TimelineRow>,
}

/// The imbalance view and how it was bounded.
pub struct ImbalanceSection {
    pub functions: Vec<FunctionImbalance>,
    /// Processes with base data.
    pub nprocs: usize,
    /// One bar per process up to this many processes.
    pub max_bars: usize,
    /// Histogram bins above `max_bars`.
    pub bins: usize,
}

/// Everything the page shows.
pub struct Overview {
    pub parts: Vec<Part>,
    pub nprocs: Option<u64>,
    pub summary: Section<FunctionSummary>,
    pub calltree: Section<TreeSection>,
    pub regions: Section<Vec<RegionStats>>,
    /// The trace timeline of each depth `0..timeline_depths` (index = depth).
    pub trace_timeline: Section<Vec<TraceTimeline>>,
    pub comm_timeline: Section<CommTimelineSection>,
    pub matrix: Section<SendMatrixGroups>,
    pub imbalance: Section<ImbalanceSection>,
    /// Every warning met, each once (several passes meet the same damaged
    /// block).
    pub warnings: Vec<Warning>,
}

/// What the page says for a part the run did not write.
fn missing(part: Part) -> Absent {
    Absent(
        match part {
            Part::Base => {
                "The database has no base profile (bl_prof_H); the run needs PROFILE=TRUE."
            }
            Part::Trace => {
                "The database has no call traces (bl_call_stats_H); the run needs TRACE_PROFILE=TRUE."
            }
            Part::Comm => {
                "The database has no communication profile (bl_comm_prof_H); the run needs COMM_PROFILE=TRUE."
            }
        }
        .to_owned(),
    )
}

/// The steps [`overview`] advances the database's progress by: every
/// trace block twice (regions, call tree), the focus process's once more,
/// each traced process once (timeline) and each comm process twice.
pub fn overview_steps(db: &Database, proc: Option<usize>) -> u64 {
    let parts = db.parts();
    let mut steps = 0;
    if parts.contains(&Part::Trace) {
        let index = db.trace_index();
        let blocks = |only: Option<usize>| -> u64 {
            index
                .procs
                .iter()
                .filter(|p| only.is_none_or(|x| x == p.proc))
                .map(|p| p.blocks.len() as u64)
                .sum()
        };
        steps += 2 * blocks(None) + blocks(proc) + index.procs.len() as u64;
    }
    if parts.contains(&Part::Comm) {
        steps += 2 * db.comm_index().procs.len() as u64;
    }
    steps
}

/// Computes every section the database supports.
pub fn overview(db: &Database, opts: &OverviewOptions) -> Overview {
    let parts = db.parts();
    let has = |p: Part| parts.contains(&p);
    let mut warnings: Vec<Warning> = db.warnings().to_vec();
    if has(Part::Trace) {
        warnings.extend(db.trace_index().warnings.iter().cloned());
    }
    if has(Part::Comm) {
        warnings.extend(db.comm_index().warnings.iter().cloned());
    }
    let (summary, imbalance) = if has(Part::Base) {
        base_sections(db, opts, &mut warnings)
    } else {
        (Err(missing(Part::Base)), Err(missing(Part::Base)))
    };
    let (calltree, regions, trace_timeline) = if has(Part::Trace) {
        trace_sections(db, opts, &mut warnings)
    } else {
        (
            Err(missing(Part::Trace)),
            Err(missing(Part::Trace)),
            Err(missing(Part::Trace)),
        )
    };
    let (matrix, comm_timeline) = if has(Part::Comm) {
        comm_sections(db, opts, &mut warnings)
    } else {
        (Err(missing(Part::Comm)), Err(missing(Part::Comm)))
    };
    let mut seen = HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    Overview {
        nprocs: db.nprocs(),
        parts,
        summary,
        calltree,
        regions,
        trace_timeline,
        comm_timeline,
        matrix,
        imbalance,
        warnings,
    }
}

/// Function summary and imbalance, from the base profile.
fn base_sections(
    db: &Database,
    opts: &OverviewOptions,
    warnings: &mut Vec<Warning>,
) -> (Section<FunctionSummary>, Section<ImbalanceSection>) {
    let r = db.base_profile(warnings);
    let unreadable = |a: Absent| (Err(a.clone()), Err(a));
    match r {
        Err(e) => unreadable(Absent(format!("The base profile could not be read: {e}"))),
        Ok(profile) if profile.is_empty() => {
            unreadable(Absent("No process has a readable base block.".to_owned()))
        }
        Ok(profile) => {
            let s = base_summary(&profile, opts.proc.unwrap_or(0));
            let io = ImbalanceOptions {
                selected_proc: opts.proc,
                ..opts.imbalance
            };
            let view = ImbalanceSection {
                functions: imbalance(&s, &profile, &io),
                nprocs: s.nprocs,
                max_bars: io.max_bars,
                bins: io.bins,
            };
            (Ok(s), Ok(view))
        }
    }
}

/// Call tree, regions and the timeline of outermost calls, from the traces.
fn trace_sections(
    db: &Database,
    opts: &OverviewOptions,
    warnings: &mut Vec<Warning>,
) -> (
    Section<TreeSection>,
    Section<Vec<RegionStats>>,
    Section<Vec<TraceTimeline>>,
) {
    let regions = Regions::load(db);
    warnings.extend(regions.warnings.iter().cloned());
    let stats = region_stats(&regions);
    // A map per process and region: freed by the workers, not one process
    // after another on this thread (16,384 processes: milliseconds).
    regions.procs.into_par_iter().for_each(drop);
    let traced = |p: usize| db.trace_index().procs.iter().any(|t| t.proc == p);
    let tree = match opts.proc {
        Some(p) if !traced(p) => Err(Absent(format!("No call traces for process {p}."))),
        _ => {
            // One read of the traces for both trees, as `calltree` and
            // `calltree --bottom-up` build them: runs of processes gather
            // both on the workers, the main thread adds each run in
            // process order (as `call_tree` does), so memory holds a window
            // of runs, not a tree per process.
            let mut down = SpreadMerge::default();
            let mut up = ChunkedSpreadMerge::new(MERGE_CHUNK);
            let mut cut = false;
            let spare = Mutex::new(Vec::new());
            let w = for_each_process_run(
                db,
                &Selection { ranges: None },
                opts.proc,
                || {
                    let mut spare = spare.lock().unwrap_or_else(|p| p.into_inner());
                    spare.pop().unwrap_or_else(RunBothTrees::default)
                },
                RunBothTrees::add,
                |mut run| {
                    down.add_run(&run.down);
                    up.add_run(&run.up);
                    cut |= run.cut;
                    run.clear();
                    spare.lock().unwrap_or_else(|p| p.into_inner()).push(run);
                },
            );
            warnings.extend(w);
            let nprocs = down.procs();
            Ok(TreeSection {
                tree: down.finish(),
                bottom_up: up.finish(),
                bottom_up_cut: cut,
                nprocs,
            })
        }
    };
    let (timelines, w) = whole_trace_timelines(db, opts.timeline_columns, opts.timeline_depths);
    warnings.extend(w);
    let timeline = if timelines.is_empty() {
        Err(Absent("No calls recorded.".to_owned()))
    } else {
        Ok(timelines)
    };
    (tree, Ok(stats), timeline)
}

// The bottom-up merge sums chunks of `MERGE_CHUNK` processes: runs end at
// its edges, so it takes them whole, with the same sums.
const _: () = assert!(MERGE_CHUNK.is_multiple_of(RUN_PROCS));

/// What a run of consecutive processes gathers for both trees.
#[derive(Default)]
struct RunBothTrees {
    down: RunTrees,
    up: RunTrees,
    /// Some process's caller paths were cut.
    cut: bool,
    /// The bottom-up tree of the process being added (its memory reused).
    scratch: CallTree,
    /// The bottom-up walk's buffers (reused likewise).
    memory: BottomUpMemory,
}

impl RunBothTrees {
    /// Adds process `proc`'s tree and its bottom-up tree.
    fn add(&mut self, proc: usize, tree: &CallTree) {
        self.down.add(proc, tree);
        let built = bottom_up_into(
            tree,
            &|_| true,
            std::mem::take(&mut self.scratch),
            &mut self.memory,
        );
        self.cut |= built.cut;
        self.up.add(proc, &built.tree);
        self.scratch = built.tree;
    }

    /// Empties the run for the next one, keeping its memory.
    fn clear(&mut self) {
        self.down.clear();
        self.up.clear();
        self.cut = false;
    }
}

/// Send matrix and communication timeline, from the comm profile.
fn comm_sections(
    db: &Database,
    opts: &OverviewOptions,
    warnings: &mut Vec<Warning>,
) -> (Section<SendMatrixGroups>, Section<CommTimelineSection>) {
    let (m, w) = send_matrix_groups(db, &CommSelection::all(), opts.matrix_max_cells);
    warnings.extend(w);
    let everything = CommScope::everything();
    let timeline = match time_span(db, &everything) {
        Some(span) => {
            let (rows, w) = timeline_rows(db, &everything, span, opts.timeline_columns);
            warnings.extend(w);
            Ok(CommTimelineSection { span, rows })
        }
        None => Err(Absent("No communication calls recorded.".to_owned())),
    };
    (Ok(m), timeline)
}
