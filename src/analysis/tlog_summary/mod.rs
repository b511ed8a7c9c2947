//! Interval statistics of a tlog trace: IN/OUT events matched per process
//! by pair number (types 10..27: even IN, odd OUT), with nesting.
//!
//! ```text
//! IN Loop ──────────────────── OUT Loop          (one Loop interval)
//!      IN Barrier ── OUT Barrier                  (nested: child of Loop)
//! ```
//!
//! An OUT closes the latest open IN of the same pair. When other pairs were
//! opened after it and are still open, the pairs cross: counted and warned,
//! the inner ones stay open. An OUT with no open IN, and INs never closed,
//! are counted as unmatched and warned with their offsets.

use std::collections::BTreeMap;

mod merged;
mod proc_tree;
mod segments;

pub use merged::merged_tree;

use rayon::prelude::*;

use std::path::Path;

use crate::error::{Location, Warning};
use crate::formats::tlog::{EventKind, TlogFile};
use crate::model::calltree::CallTree;
use proc_tree::{ProcTree, name_slots};
use crate::progress::Progress;

/// Display names of pairs and single events.
#[derive(Debug, Clone)]
pub struct EventNames {
    pairs: BTreeMap<u8, String>,
    singles: BTreeMap<u8, String>,
}

impl Default for EventNames {
    /// The Java viewer's names; others are `event k`.
    fn default() -> Self {
        let pairs = [
            (1, "Task"),
            (2, "Loop"),
            (3, "Reflect"),
            (4, "Barrier"),
            (5, "Reduction"),
            (6, "Bcast"),
            (7, "Gmove"),
        ]
        .into_iter()
        .map(|(k, n)| (k, n.to_owned()))
        .collect();
        EventNames {
            pairs,
            singles: BTreeMap::new(),
        }
    }
}

impl EventNames {
    /// The name of interval kind `k` (`event k` when unnamed).
    pub fn pair(&self, k: u8) -> String {
        self.pairs
            .get(&k)
            .cloned()
            .unwrap_or_else(|| format!("event {k}"))
    }

    /// The names of the pair numbers 0..10.
    fn pair_names(&self) -> [String; KINDS] {
        std::array::from_fn(|k| self.pair(k as u8))
    }

    /// The name of point event kind `k` (`event k` when unnamed).
    pub fn single(&self, k: u8) -> String {
        self.singles
            .get(&k)
            .cloned()
            .unwrap_or_else(|| format!("event {k}"))
    }

    /// Reads an event-names file (`--event-names`; format as [`Self::parse`]),
    /// opened by the rules of every input: a FIFO or a device is refused,
    /// and its size is bounded.
    pub fn read(path: &std::path::Path) -> crate::Result<EventNames> {
        Self::parse(&crate::source::read_text_file(path)?, path)
    }

    /// Reads `--event-names`: lines `pair <k> <name>` or `single <k> <name>`
    /// (k = 1..9, the name is the rest of the line); `#` starts a comment.
    pub fn parse(text: &str, path: &std::path::Path) -> crate::Result<EventNames> {
        let mut names = EventNames::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.splitn(3, char::is_whitespace);
            let (what, k, name) = (parts.next(), parts.next(), parts.next().map(str::trim));
            let bad = || {
                crate::Error::syntax(
                    Location::line(path, n + 1),
                    format!(
                        "expected `pair <1-9> <name>` or `single <1-9> <name>`, found {line:?}"
                    ),
                )
            };
            let k: u8 = k
                .and_then(|k| k.parse().ok())
                .filter(|k| (1..=9).contains(k))
                .ok_or_else(bad)?;
            let name = name.filter(|n| !n.is_empty()).ok_or_else(bad)?.to_owned();
            match what {
                Some("pair") => names.pairs.insert(k, name),
                Some("single") => names.singles.insert(k, name),
                _ => return Err(bad()),
            };
        }
        Ok(names)
    }
}

/// Statistics of one kind of interval or single event on one process.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct KindStats {
    /// Pair or single-event number (1..9).
    pub kind: u8,
    pub name: String,
    /// `interval` or `single`.
    pub role: &'static str,
    pub count: u64,
    pub total: f64,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
}

/// Unmatched records of one process.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Unmatched {
    /// INs never closed.
    #[serde(rename = "in")]
    pub ins: u64,
    /// OUTs without an open IN.
    pub out: u64,
    /// OUTs that closed an IN while later INs of other pairs were open.
    pub crossed: u64,
}

/// One process's summary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProcSummary {
    pub proc: u16,
    pub events: u64,
    /// START time (`None` for a segment written after a flush).
    pub start: Option<f64>,
    /// END time (`None` for a segment flushed before the end).
    pub end: Option<f64>,
    pub kinds: Vec<KindStats>,
    pub unmatched: Unmatched,
    pub unknown_types: u64,
}

/// One kind of interval or single event over processes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AcrossStats {
    /// Pair or single-event number (1..9).
    pub kind: u8,
    /// Its display name ([`EventNames`]).
    pub name: String,
    /// `interval` or `single`.
    pub role: &'static str,
    /// Processes that have this kind.
    pub procs: usize,
    /// The smallest per-process total: seconds of an interval kind, events
    /// of a single-event kind.
    pub min: f64,
    /// The mean per-process total.
    pub avg: f64,
    /// The largest per-process total.
    pub max: f64,
    /// The process holding the largest total.
    pub max_proc: u16,
    /// Intervals or events over all processes.
    pub count: u64,
}

/// Everything `tlog summary` and `tlog tree` report.
pub struct Summary {
    /// Per process, in process order.
    pub procs: Vec<ProcSummary>,
    /// Per event kind over all processes.
    pub across: Vec<AcrossStats>,
    /// Per process: the nesting of intervals (timer-tree semantics).
    pub trees: Vec<(u16, CallTree)>,
    /// What could not be read or matched.
    pub warnings: Vec<Warning>,
}

/// Warnings per process and kind of problem before they are only counted.
const MAX_WARNINGS_PER_PROC: usize = 5;

/// Whether [`summarize`] builds the nesting trees (`tlog tree`) or only
/// the statistics (memory then stays independent of the number of distinct
/// call paths; `tlog summary` itself uses [`open_and_summarize`], one pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trees {
    /// Build the trees.
    Build,
    /// Statistics only.
    Skip,
}

/// Summarizes every process, in parallel over processes; the result (and
/// the order of warnings) is the same for any thread count.
pub fn summarize(t: &TlogFile, names: &EventNames, trees: Trees) -> Summary {
    let procs: Vec<u16> = t.procs().collect();
    let per_proc: Vec<(ProcSummary, CallTree, Vec<Warning>)> = procs
        .par_iter()
        .map(|&p| summarize_proc(t, p, names, trees))
        .collect();
    let mut summary = Summary {
        procs: Vec::with_capacity(per_proc.len()),
        across: Vec::new(),
        trees: Vec::with_capacity(per_proc.len()),
        warnings: Vec::new(),
    };
    for (s, tree, warnings) in per_proc {
        summary.trees.push((s.proc, tree));
        summary.procs.push(s);
        summary.warnings.extend(warnings);
    }
    summary.across = across_procs(&summary.procs);
    proc_tree::free_child_tables();
    summary
}

/// Pair and single-event numbers are 0..=9 (types 10..27 and 31..39).
const KINDS: usize = 10;

/// Opens `path` and summarizes it in the opening scan's pass (what
/// `tlog summary` reports; no trees): the file is read once. `progress`
/// advances by the blocks scanned.
pub fn open_and_summarize(
    path: &Path,
    names: &EventNames,
    progress: &Progress,
) -> crate::Result<(TlogFile, Summary)> {
    crate::formats::check_tlog(path)?;
    let mut merge = segments::SummaryMerge::new(names, path);
    let t = TlogFile::open_visiting(path, progress, |c| merge.push(c))?;
    let s = finish(merge, &t, names);
    Ok((t, s))
}

/// The merged summary, or the process-by-process one when a chunk gave up.
fn finish(merge: segments::SummaryMerge, t: &TlogFile, names: &EventNames) -> Summary {
    if merge.gave_up() {
        let mut s = summarize(t, names, Trees::Skip);
        s.trees = Vec::new();
        s
    } else {
        merge.finish(t)
    }
}

/// [`open_and_summarize`] of an in-memory file.
#[cfg(any(test, feature = "internals"))]
pub fn summarize_input(
    file: crate::source::InputFile, names: &EventNames) -> crate::Result<(TlogFile, Summary)> {
    let path = file.path().to_path_buf();
    let mut merge = segments::SummaryMerge::new(names, &path);
    let t = TlogFile::from_input_visiting(file, |c| merge.push(c))?;
    let s = finish(merge, &t, names);
    Ok((t, s))
}

/// Interval statistics per pair number: count, total, min, max.
#[derive(Clone, Copy)]
struct Intervals {
    count: [u64; KINDS],
    total: [f64; KINDS],
    min: [f64; KINDS],
    max: [f64; KINDS],
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals {
            count: [0; KINDS],
            total: [0.0; KINDS],
            min: [f64::INFINITY; KINDS],
            max: [f64::NEG_INFINITY; KINDS],
        }
    }
}

impl Intervals {
    #[inline]
    fn add(&mut self, k: u8, d: f64) {
        // −0 becomes +0: `min` of the two zeros depends on the order of
        // the calls, and the one-pass summary adds in another order.
        let d = d + 0.0;
        // Pair numbers are below `KINDS` (see `EventKind::of`); after this
        // check the indexing below needs none.
        let k = usize::from(k);
        if k >= KINDS {
            return;
        }
        self.count[k] += 1;
        self.total[k] += d;
        // Comparisons rather than `f64::min`/`max`: one instruction each,
        // and the same result here, since the extremes are never NaN and a
        // NaN `d` changes neither.
        if d < self.min[k] {
            self.min[k] = d;
        }
        if d > self.max[k] {
            self.max[k] = d;
        }
    }

    /// Adds the intervals of a later part of the same process.
    fn merge(&mut self, later: &Intervals) {
        for k in 0..KINDS {
            self.count[k] += later.count[k];
            self.total[k] += later.total[k];
            self.min[k] = self.min[k].min(later.min[k]);
            self.max[k] = self.max[k].max(later.max[k]);
        }
    }
}

/// The per-kind rows of one process: intervals, then single events.
fn kind_stats(names: &EventNames, intervals: &Intervals, singles: &[u64; KINDS]) -> Vec<KindStats> {
    let a = intervals;
    let intervals = (0..KINDS as u8)
        .filter(|&k| a.count[k as usize] > 0)
        .map(|k| {
            let i = k as usize;
            KindStats {
                kind: k,
                name: names.pair(k),
                role: "interval",
                count: a.count[i],
                total: a.total[i],
                min: a.min[i],
                avg: a.total[i] / a.count[i] as f64,
                max: a.max[i],
            }
        });
    let single_events = (0..KINDS as u8)
        .filter(|&k| singles[k as usize] > 0)
        .map(|k| KindStats {
            kind: k,
            name: names.single(k),
            role: "single",
            count: singles[k as usize],
            ..Default::default()
        });
    intervals.chain(single_events).collect()
}

/// One process's warnings: the first [`MAX_WARNINGS_PER_PROC`] in event
/// order, then a count.
struct ProcWarnings<'a> {
    path: &'a std::path::Path,
    proc: u16,
    warned: usize,
    list: Vec<Warning>,
}

impl<'a> ProcWarnings<'a> {
    fn new(path: &'a std::path::Path, proc: u16) -> Self {
        ProcWarnings {
            path,
            proc,
            warned: 0,
            list: Vec::new(),
        }
    }

    fn warn(&mut self, offset: u64, msg: impl FnOnce() -> String) {
        self.warned += 1;
        if self.warned <= MAX_WARNINGS_PER_PROC {
            self.list.push(Warning::new(
                Location::offset(self.path, offset),
                format!("process {}: {}", self.proc, msg()),
            ));
        }
    }

    /// Warns about the INs never closed and counts what was not listed.
    fn finish(
        mut self,
        names: &EventNames,
        never_closed: impl Iterator<Item = (u8, u64)>,
    ) -> Vec<Warning> {
        for (k, off) in never_closed {
            self.warn(off, || format!("IN of {} never closed", names.pair(k)));
        }
        if self.warned > MAX_WARNINGS_PER_PROC {
            self.list.push(Warning::new(
                Location::file(self.path),
                format!(
                    "process {}: {} more unmatched or crossed intervals",
                    self.proc,
                    self.warned - MAX_WARNINGS_PER_PROC
                ),
            ));
        }
        self.list
    }
}

/// The innermost open IN of pair `k` among the open INs' pair numbers
/// (outermost first), and how many INs opened after it are still open:
/// the OUT that closes it crosses them.
fn innermost_open(
    mut kinds: impl DoubleEndedIterator<Item = u8> + ExactSizeIterator,
    k: u8,
) -> Option<(usize, usize)> {
    let open = kinds.len();
    let j = kinds.rposition(|x| x == k)?;
    Some((j, open - 1 - j))
}

fn crossed_message(names: &EventNames, k: u8, crossing: usize) -> String {
    format!(
        "OUT of {} crosses {crossing} open interval(s) opened after its IN",
        names.pair(k)
    )
}

fn unmatched_out_message(names: &EventNames, k: u8) -> String {
    format!("OUT of {} without an open IN", names.pair(k))
}

fn summarize_proc(
    t: &TlogFile,
    p: u16,
    names: &EventNames,
    trees: Trees,
) -> (ProcSummary, CallTree, Vec<Warning>) {
    let mut tree = ProcTree::default();
    let (s, warnings) = summarize_proc_into(t, p, names, trees, &mut tree);
    (s, tree.to_call_tree(&names.pair_names()), warnings)
}

/// [`summarize_proc`] with the tree built into `tree`, cleared first (its
/// memory kept: a worker reuses one tree for every process).
fn summarize_proc_into(
    t: &TlogFile,
    p: u16,
    names: &EventNames,
    trees: Trees,
    tree: &mut ProcTree,
) -> (ProcSummary, Vec<Warning>) {
    tree.clear();
    let mut s = ProcSummary {
        proc: p,
        events: t.events_of(p),
        start: None,
        end: None,
        kinds: Vec::new(),
        unmatched: Unmatched::default(),
        unknown_types: 0,
    };
    let mut warnings = ProcWarnings::new(t.path(), p);
    let mut intervals = Intervals::default();
    let mut singles = [0u64; KINDS];
    // Open INs: (pair, start time, offset, tree node).
    let mut open: Vec<(u8, f64, usize, u32)> = Vec::new();
    let slots = name_slots(&names.pair_names());
    t.for_each_proc_event(p, |off, r| match EventKind::of(r.kind) {
        EventKind::Start => {
            s.start.get_or_insert(r.time);
        }
        EventKind::End => s.end = Some(r.time),
        EventKind::In(k) => {
            let parent = open.last().map_or(tree.root(), |o| o.3);
            let node = match trees {
                Trees::Build => tree.child(parent, slots[k as usize % KINDS]),
                Trees::Skip => parent,
            };
            open.push((k, r.time, off, node));
        }
        EventKind::Out(k) => match innermost_open(open.iter().map(|o| o.0), k) {
            Some((j, crossing)) => {
                if crossing > 0 {
                    s.unmatched.crossed += 1;
                    warnings.warn(off as u64, || crossed_message(names, k, crossing));
                }
                let (_, t0, _, node) = open.remove(j);
                let d = r.time - t0;
                intervals.add(k, d);
                if trees == Trees::Build {
                    tree.add_call(node, d);
                }
            }
            None => {
                s.unmatched.out += 1;
                warnings.warn(off as u64, || unmatched_out_message(names, k));
            }
        },
        EventKind::Single(k) => singles[k as usize % KINDS] += 1,
        EventKind::Unknown(_) => s.unknown_types += 1,
    });
    s.unmatched.ins = open.len() as u64;
    let warnings = warnings.finish(names, open.iter().map(|o| (o.0, o.2 as u64)));
    tree.finish();
    s.kinds = kind_stats(names, &intervals, &singles);
    (s, warnings)
}

fn across_procs(procs: &[ProcSummary]) -> Vec<AcrossStats> {
    let mut by_kind: BTreeMap<(&'static str, u8), AcrossStats> = BTreeMap::new();
    let n = procs.len().max(1) as f64;
    for p in procs {
        for k in &p.kinds {
            let value = if k.role == "interval" {
                k.total
            } else {
                k.count as f64
            };
            let e = by_kind
                .entry((k.role, k.kind))
                .or_insert_with(|| AcrossStats {
                    kind: k.kind,
                    name: k.name.clone(),
                    role: k.role,
                    procs: 0,
                    min: f64::INFINITY,
                    avg: 0.0,
                    max: f64::NEG_INFINITY,
                    max_proc: p.proc,
                    count: 0,
                });
            e.procs += 1;
            e.count += k.count;
            e.min = e.min.min(value);
            e.avg += value / n;
            if value > e.max {
                e.max = value;
                e.max_proc = p.proc;
            }
        }
    }
    // A process without the kind has 0 of it.
    by_kind
        .into_values()
        .map(|mut a| {
            if a.procs < procs.len() {
                a.min = 0.0;
            }
            a
        })
        .collect()
}
