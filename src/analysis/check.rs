//! Integrity check of a whole database (amrprofparser `-check` intent, and
//! beyond): the headers, the base profile, the call traces, the regions and
//! the communication data, each in a section that says what it checked and
//! what it found. Problems are damage; notes are quirks of healthy writers
//! (stock AMReX's region stops without a start).

use crate::error::{Location, Warning};
use crate::formats::blprof::Part;
use crate::formats::blprof::callstats::FunctionTable;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::trace::CallRecord;
use crate::formats::blprof::walk::TraceProcWalk;

use super::comm::check::comm_check;
use std::collections::BTreeMap;

use super::regions::{
    NO_REGION, ProcRegionCounts, region_name, region_names, unpaired_records,
};

/// One part of the check.
#[derive(Debug, serde::Serialize)]
pub struct Section {
    /// `headers`, `base`, `traces`, `regions` or `comm`.
    pub name: &'static str,
    /// Whether the database has this part (a part it lacks is not checked).
    pub present: bool,
    /// What was checked: `(what, how many)`.
    pub checked: Vec<(&'static str, u64)>,
    pub problems: Vec<Warning>,
    pub notes: Vec<Warning>,
}

impl Section {
    fn new(name: &'static str, present: bool) -> Self {
        Section {
            name,
            present,
            checked: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Files warnings under problems or notes by their kind.
    fn found(&mut self, warnings: impl IntoIterator<Item = Warning>) {
        for w in warnings {
            if w.is_note() {
                self.notes.push(w);
            } else {
                self.problems.push(w);
            }
        }
    }
}

/// The whole check.
#[derive(Debug, serde::Serialize)]
pub struct DatabaseCheck {
    pub sections: Vec<Section>,
}

impl DatabaseCheck {
    pub fn problems(&self) -> usize {
        self.sections.iter().map(|s| s.problems.len()).sum()
    }

    pub fn notes(&self) -> usize {
        self.sections.iter().map(|s| s.notes.len()).sum()
    }
}

/// Checks every part of `db`. The parts are read from separate files and
/// indexes, so a part's serial steps run beside another part's parallel
/// ones instead of leaving a core idle: the base profile's load beside the
/// trace index and walk, the region tallies beside the comm index and walk
/// (at 16,384 processes a fifth of the run was such steps on one thread).
/// The walks themselves do not overlap: a walk's tasks split for the
/// threads free when it starts, so one running beside another was left to
/// a single thread.
pub fn check_database(db: &Database) -> DatabaseCheck {
    let mut headers = Section::new("headers", true);
    headers.checked.push(("parts", db.parts().len() as u64));
    headers.found(db.warnings().iter().cloned());
    let has_trace = db.require(Part::Trace).is_ok();
    let (base, walked) = rayon::join(
        || base_section(db),
        || has_trace.then(|| db.trace_blocks(None).map_procs(check_calls)),
    );
    let ((traces, regions), comm) = rayon::join(
        || trace_sections(db, walked),
        || comm_section(db),
    );
    DatabaseCheck {
        sections: vec![headers, base, traces, regions, comm],
    }
}

fn base_section(db: &Database) -> Section {
    let mut base = Section::new("base", db.base.is_some());
    if let Some(h) = &db.base {
        let mut warnings = Vec::new();
        match db.base_profile(&mut warnings) {
            Ok(profile) => {
                base.checked.push(("processes", profile.len() as u64));
                base.checked.push(("functions", profile.nfuncs() as u64));
            }
            Err(e) => warnings.push(Warning::new(
                e.location().unwrap_or_else(|| Location::file(&h.path)),
                e.message(),
            )),
        }
        base.found(warnings);
    }
    base
}

/// What [`check_calls`] found on each process, in process order.
type ProcChecks = Vec<(CallTotals, Vec<Warning>, (ProcRegionCounts, Vec<Warning>))>;

/// The `traces` and `regions` sections from the walk of the traces (`None`:
/// the database has none).
fn trace_sections(db: &Database, walked: Option<ProcChecks>) -> (Section, Section) {
    let has_trace = walked.is_some();
    let mut traces = Section::new("traces", has_trace);
    let mut regions = Section::new("regions", has_trace);
    let Some(per_proc) = walked else {
        return (traces, regions);
    };
    let index = db.trace_index();
    traces.found(index.warnings.iter().cloned());
    let mut totals = CallTotals::default();
    let mut region_procs = Vec::with_capacity(per_proc.len());
    let mut region_warnings = Vec::new();
    for (t, w, (r, rw)) in per_proc {
        totals.add(&t);
        traces.found(w);
        region_warnings.extend(rw);
        region_procs.push(r);
    }
    traces.checked.push(("processes", index.procs.len() as u64));
    traces.checked.push(("blocks", totals.blocks));
    traces.checked.push(("call records", totals.records));

    let names = region_names(db);
    let numbers = region_numbers(&names, &region_procs);
    regions.checked.push(("regions", numbers.len() as u64));
    regions.checked.push((
        "ranges",
        region_procs
            .iter()
            .flat_map(|p| &p.ranges)
            .map(|(_, count)| *count as u64)
            .sum(),
    ));
    regions.found(region_warnings);
    let unpaired = region_procs
        .iter()
        .map(|p| (p.proc, &p.unmatched_starts, &p.unmatched_stops));
    let at = Location::file(db.dir());
    regions.found(unpaired_records(&names, unpaired, region_procs.len(), &at));
    regions.found(region_problems(db, &names, &region_procs, &numbers));
    (traces, regions)
}

fn comm_section(db: &Database) -> Section {
    let has_comm = db.require(Part::Comm).is_ok();
    let mut comm = Section::new("comm", has_comm);
    if has_comm {
        let c = comm_check(db);
        comm.checked.push(("processes", c.procs as u64));
        comm.checked.push(("blocks", c.blocks as u64));
        comm.checked.push(("records", c.records));
        comm.checked.push(("barriers", c.barriers));
        comm.checked.push(("name tags", c.name_tags));
        comm.found(c.problems);
    }
    comm
}

#[derive(Default)]
struct CallTotals {
    blocks: u64,
    records: u64,
}

impl CallTotals {
    fn add(&mut self, o: &CallTotals) {
        self.blocks += o.blocks;
        self.records += o.records;
    }
}

/// The ways a call record can be wrong, each reported once per process
/// with its count and its first occurrence.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum CallFault {
    /// A depth below 0 or more than one below the previous call's.
    Nesting,
    /// A function number missing from the process's `fName` table.
    Function,
    /// A time that is not finite, negative, or exclusive above inclusive.
    Times,
    /// A start outside the block's `timeMinMax`.
    OutsideTimeMinMax,
    /// A start before the previous call's (calls are written in start order).
    StartGoesBack,
}

impl CallFault {
    fn text(self) -> &'static str {
        match self {
            CallFault::Nesting => "depth not nested under the previous call",
            CallFault::Function => "function number not in the process's fName table",
            CallFault::Times => "times not finite, negative, or exclusive above inclusive",
            CallFault::OutsideTimeMinMax => "start time outside the block's timeMinMax",
            CallFault::StartGoesBack => "start time before the previous call's",
        }
    }
}

/// Relative slack for comparing a record's time with a header's printed
/// `timeMinMax` (16 significant digits).
const PRINTED_TIME_SLACK: f64 = 1e-9;

/// The function numbers of a process's `fName` table, asked once per call
/// record: a table indexed by number when the numbers are dense (sized by
/// the table's entries, never by a number from the file), else a binary
/// search (which took 60 % of the check's time on 23 M records).
struct KnownFunctions<'a> {
    dense: Option<Vec<bool>>,
    table: &'a FunctionTable,
}

impl<'a> KnownFunctions<'a> {
    fn new(table: &'a FunctionTable) -> Self {
        let bound = 4 * table.entries.len() + 64;
        let dense = table
            .entries
            .last()
            .and_then(|(max, _)| usize::try_from(*max).ok())
            .filter(|&max| max < bound && table.entries.iter().all(|(n, _)| *n >= 0))
            .map(|max| {
                let mut known = vec![false; max + 1];
                for (n, _) in table.entries.iter() {
                    known[*n as usize] = true;
                }
                known
            });
        KnownFunctions { dense, table }
    }

    #[inline]
    fn contains(&self, number: i32) -> bool {
        match &self.dense {
            Some(known) => usize::try_from(number)
                .ok()
                .and_then(|i| known.get(i))
                .copied()
                .unwrap_or(false),
            None => self.table.name(i64::from(number)).is_some(),
        }
    }
}

/// Checks one process's call records, block after block, and pairs its
/// region records (read with the calls: one read per small block).
fn check_calls(
    p: TraceProcWalk<'_>,
) -> (CallTotals, Vec<Warning>, (ProcRegionCounts, Vec<Warning>)) {
    let proc = p.proc();
    let known = KnownFunctions::new(&proc.functions);
    let mut totals = CallTotals::default();
    // Per fault: count, and the first block's header line and record index.
    let mut faults: std::collections::BTreeMap<CallFault, (u64, Location, u64)> =
        Default::default();
    let mut warnings = Vec::new();
    let mut prev: Option<CallRecord> = None;
    let mut region_records = Vec::new();
    let mut region_warnings = Vec::new();
    for b in p.blocks() {
        totals.blocks += 1;
        let block = b.block();
        let mut index = 0u64;
        let bounds = block.time_min_max;
        let (regions, skipped) = b.regions_and_calls(|c| {
            index += 1;
            totals.records += 1;
            let mut fault = |f: CallFault| {
                // The location made for a fault's first record only.
                let e = faults
                    .entry(f)
                    .or_insert_with(|| (0, Location::line(&block.header, block.line), index - 1));
                e.0 += 1;
            };
            let deepest = prev.map_or(0, |q| q.depth.saturating_add(1));
            if c.depth < 0 || (prev.is_some() && c.depth > deepest) {
                fault(CallFault::Nesting);
            }
            if !known.contains(c.fnum) {
                fault(CallFault::Function);
            }
            let finite = c.start.is_finite() && c.inclusive.is_finite() && c.exclusive.is_finite();
            if !finite
                || c.inclusive < 0.0
                || c.exclusive < 0.0
                || c.exclusive > c.inclusive * (1.0 + PRINTED_TIME_SLACK) + 1e-12
            {
                fault(CallFault::Times);
            }
            if let Some((lo, hi)) = bounds {
                let slack = PRINTED_TIME_SLACK * lo.abs().max(hi.abs()).max(1.0);
                if c.start < lo - slack || c.start > hi + slack {
                    fault(CallFault::OutsideTimeMinMax);
                }
            }
            if prev.is_some_and(|q| c.start < q.start) {
                fault(CallFault::StartGoesBack);
            }
            prev = Some(*c);
        });
        warnings.extend(skipped);
        match regions {
            Ok(r) => region_records.extend(r.into_iter().map(|r| (r.time, r.number, r.start))),
            Err(w) => region_warnings.push(w),
        }
    }
    for (f, (count, at, first)) in faults {
        warnings.push(Warning::new(
            at,
            format!(
                "process {}: {count} call record(s) with {} (first: record {first} of this block)",
                proc.proc,
                f.text()
            ),
        ));
    }
    // Counted here, in the process's task, without keeping its ranges.
    let regions = ProcRegionCounts::count(proc.proc, region_records);
    (totals, warnings, (regions, region_warnings))
}

/// Every region number in the names table or with ranges on any process,
/// in order.
fn region_numbers(names: &BTreeMap<i32, String>, procs: &[ProcRegionCounts]) -> Vec<i32> {
    let mut numbers: Vec<i32> = names.keys().copied().collect();
    // Processes mostly have the regions of the one before: those are not
    // added again (a sort of every process's numbers took a millisecond
    // at 16,384 processes).
    let mut previous: &[(i32, usize)] = &[];
    for p in procs {
        let same = (p.ranges.iter().map(|r| r.0)).eq(previous.iter().map(|r| r.0));
        if !same {
            numbers.extend(p.ranges.iter().map(|r| r.0));
            previous = &p.ranges;
        }
    }
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// Region checks beyond the pairing: numbers missing from the names table,
/// ranges that end before they start, and processes whose number of region
/// records differs from process 0's (a note: ranks may open regions
/// differently). `numbers` are [`region_numbers`].
fn region_problems(
    db: &Database,
    names: &BTreeMap<i32, String>,
    procs: &[ProcRegionCounts],
    numbers: &[i32],
) -> Vec<Warning> {
    let at = Location::file(db.dir().join("bl_call_stats_H"));
    let mut out = Vec::new();
    let unnamed: Vec<i32> = numbers
        .iter()
        .copied()
        .filter(|n| !names.contains_key(n))
        .collect();
    if !unnamed.is_empty() && !names.is_empty() {
        let list: Vec<String> = unnamed.iter().map(i32::to_string).collect();
        out.push(Warning::new(
            at.clone(),
            format!(
                "region number(s) {} in the data but not in the RegionName lines",
                list.join(", ")
            ),
        ));
    }
    for p in procs.iter().filter(|p| p.backwards > 0) {
        out.push(Warning::new(
            at.clone(),
            format!(
                "process {}: {} region range(s) stop before they start",
                p.proc, p.backwards
            ),
        ));
    }
    if let Some(first) = procs.first() {
        for &n in numbers.iter().filter(|&&n| n != NO_REGION) {
            let ranges = first.ranges_of(n);
            let differ: Vec<usize> = procs
                .iter()
                .filter(|p| p.ranges_of(n) != ranges)
                .map(|p| p.proc)
                .collect();
            if !differ.is_empty() {
                out.push(Warning::note(
                    at.clone(),
                    format!(
                        "region {:?}: {} range(s) on process {}, a different number on process(es) {}",
                        region_name(names, n),
                        ranges,
                        first.proc,
                        crate::model::procs::process_list(&differ, 6)
                    ),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of the names table and of every process's ranges, each
    /// once, in order, however the processes repeat or differ.
    #[test]
    fn region_numbers_are_the_names_and_every_process_s_ranges() {
        let names: BTreeMap<i32, String> = [(0, "a".into()), (4, "b".into())].into();
        let counts = |proc, numbers: &[i32]| ProcRegionCounts {
            proc,
            ranges: numbers.iter().map(|&n| (n, 1)).collect(),
            ..Default::default()
        };
        let procs = [
            counts(0, &[0, 2]),
            counts(1, &[0, 2]),
            counts(2, &[7]),
            counts(3, &[0, 2]),
            counts(4, &[]),
            counts(5, &[3, 4]),
        ];
        assert_eq!(region_numbers(&names, &procs), vec![0, 2, 3, 4, 7]);
        assert_eq!(region_numbers(&BTreeMap::new(), &procs[..2]), vec![0, 2]);
    }
}
