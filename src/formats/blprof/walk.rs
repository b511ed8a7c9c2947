//! Walks over the data blocks of a database: the trace and comm blocks a
//! selection covers, read in block order within a process and in parallel
//! over processes, with the progress hook advanced, unreadable blocks
//! turned into warnings, and per-process results in process order.
//!
//! ```text
//! db.trace_blocks(procs)        --proc               TraceWalk
//!   .map_procs(|p| …)           a task per process,  results in process order
//!     p.for_each_call_batch(…)  block after block,   progress per block
//!     p.map_blocks(|b| …)       a task per block,    results in block order
//!   .mapped_blocks(skipped)     block after block, mapped whole (exports)
//!
//! db.comm_blocks(&selection)    --proc, --time       CommWalk
//!   .map_procs(|p| …)           a task per process,  progress per process
//!   .fold_small_procs(|p| …, fold)  the same, results folded in process order as they come
//!     p.for_each_block(…)       the blocks whose timeMinMax meets --time
//!   .record_blocks(skipped)     block after block (exports)
//! ```
//!
//! Analyses and exporters get their records from these walks; none opens a
//! data file itself. Trace walks select processes only: a call that starts
//! before a time window can reach into it, so trace blocks are not skipped
//! by their times (the readers test each call). Comm walks skip the blocks
//! without records and those whose `timeMinMax` misses the window.
//!
//! Progress (see [`Database::set_progress`]): trace walks advance once per
//! block read (a mapped block when its reader lets it go), comm walks once
//! per process of the index in [`CommWalk::map_procs`] and
//! [`CommWalk::map_proc_runs`] (processes left out by the selection count
//! as done, so a bar over all processes ends at 100 %); the pulls of the
//! exports ([`CommWalk::record_blocks`]) advance nothing.

use std::path::Path;

use rayon::prelude::*;

use super::RealWidth;
use super::callstats::TraceBlockRef;
use super::comm::CommBlockRef;
use super::commdata::{CommRecord, CommRecords};
use super::database::{Database, ProcComm, ProcTrace};
use super::trace::{CallBatch, CallRecord, RegionRecord, TraceBlock};
use crate::error::{Error, Location, Warning};
use crate::source::InputFile;

/// Which processes and which times a walk covers (`--proc`, `--time`).
#[derive(Debug, Clone, Copy)]
pub struct BlockSelection<'a> {
    /// Seconds; records outside are skipped, comm blocks outside are not read.
    pub window: (f64, f64),
    /// Only these processes (`None`: all).
    pub procs: Option<&'a [usize]>,
}

impl<'a> BlockSelection<'a> {
    /// Every process, all the time.
    pub fn all() -> Self {
        BlockSelection {
            window: (f64::NEG_INFINITY, f64::INFINITY),
            procs: None,
        }
    }

    /// Whether process `p` is selected.
    pub fn wants_proc(&self, p: usize) -> bool {
        self.procs.is_none_or(|v| v.contains(&p))
    }

    /// True when `t` lies in the window.
    #[inline]
    pub fn contains(&self, t: f64) -> bool {
        t >= self.window.0 && t <= self.window.1
    }

    /// Whether comm block `b` is read: it has records and its `timeMinMax`
    /// meets the window.
    pub fn meets(&self, b: &CommBlockRef) -> bool {
        let w = self.window;
        b.ncomm > 0 && b.time_min_max.is_some_and(|(a, z)| z >= w.0 && a <= w.1)
    }

    /// The blocks of `p` that [meet](Self::meets) the selection.
    pub fn blocks<'b>(
        &self,
        p: &'b ProcComm,
    ) -> impl Iterator<Item = &'b CommBlockRef> + use<'b, 'a> {
        let sel = *self;
        p.blocks.iter().filter(move |b| sel.meets(b))
    }
}

/// What the warning about a block that cannot be read says was skipped:
/// each report keeps the words it has always printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    /// `process N: trace block skipped: …` (call records).
    TraceBlock,
    /// `block skipped: …` (the call trace of one process).
    Block,
    /// `process N: region records of a block skipped: …`.
    RegionRecords,
    /// `process N: comm block skipped: …`.
    CommBlock,
    /// `process N: comm block cut short: …` (read in part).
    CommBlockCutShort,
    /// `process N: synchronisations of a block skipped: …` (barriers and reductions).
    Synchronisations,
    /// `process N: barriers of a block skipped: …`.
    Barriers,
    /// `process N: sends of a block skipped: …`.
    Sends,
    /// `process N: messages of a block skipped: …`.
    Messages,
}

impl Skipped {
    /// The warning for the block of process `proc` described at `line` of
    /// `header` that could not be read for `e`.
    pub fn warning(self, proc: usize, header: &Path, line: usize, e: &Error) -> Warning {
        let what = match self {
            Skipped::Block => {
                return Warning::skipped_block(
                    Location::line(header, line),
                    format!("block skipped: {e}"),
                );
            }
            Skipped::CommBlockCutShort => {
                return Warning::skipped_block(
                    Location::line(header, line),
                    format!("process {proc}: comm block cut short: {e}"),
                );
            }
            Skipped::TraceBlock => "trace block",
            Skipped::RegionRecords => "region records of a block",
            Skipped::CommBlock => "comm block",
            Skipped::Synchronisations => "synchronisations of a block",
            Skipped::Barriers => "barriers of a block",
            Skipped::Sends => "sends of a block",
            Skipped::Messages => "messages of a block",
        };
        Warning::skipped_block(
            Location::line(header, line),
            format!("process {proc}: {what} skipped: {e}"),
        )
    }

    fn trace(self, b: &TraceBlockRef, proc: usize, e: &Error) -> Warning {
        self.warning(proc, &b.header, b.line, e)
    }

    fn comm(self, b: &CommBlockRef, proc: usize, e: &Error) -> Warning {
        self.warning(proc, &b.header, b.line, e)
    }
}

impl Database {
    /// The trace blocks of the processes `procs` (`None`: every process
    /// with call traces).
    pub(crate) fn trace_blocks<'a>(&'a self, procs: Option<&'a [usize]>) -> TraceWalk<'a> {
        TraceWalk { db: self, procs }
    }

    /// The comm blocks `sel` covers: of the selected processes, those with
    /// records whose `timeMinMax` meets the window.
    pub(crate) fn comm_blocks<'a>(&'a self, sel: &BlockSelection<'a>) -> CommWalk<'a> {
        CommWalk {
            db: self,
            sel: *sel,
            every_block: false,
        }
    }

    /// Every comm block with records, of every process, whatever its
    /// times (even without a `timeMinMax`): exports of everything.
    #[cfg(test)]
    pub(crate) fn every_comm_block(&self) -> CommWalk<'_> {
        self.every_comm_block_of(None)
    }

    /// [`Database::every_comm_block`] of some processes (`None`: all).
    pub(crate) fn every_comm_block_of<'a>(&'a self, procs: Option<&'a [usize]>) -> CommWalk<'a> {
        CommWalk {
            db: self,
            sel: BlockSelection {
                procs,
                ..BlockSelection::all()
            },
            every_block: true,
        }
    }
}

/// Tasks per thread of a walk's `map_procs`.
const TASKS_PER_THREAD: usize = 16;

/// The most processes a task of a `map_procs` over `n` processes takes, for
/// [`TASKS_PER_THREAD`] tasks per thread. Rayon cuts a walk into a few
/// tasks and halves them only when a thread steals one, so a thread could
/// be left with a quarter of the walk, unsplittable, while the other idled
/// (6 ms of `check`'s comm walk at 16,384 processes).
fn procs_per_task(n: usize, threads: usize) -> usize {
    n.div_ceil(TASKS_PER_THREAD * threads.max(1)).max(1)
}

/// The trace blocks of some processes (see [`Database::trace_blocks`]).
#[derive(Clone, Copy)]
pub struct TraceWalk<'a> {
    db: &'a Database,
    procs: Option<&'a [usize]>,
}

impl<'a> TraceWalk<'a> {
    /// The selected processes, in process order.
    pub fn procs(&self) -> impl Iterator<Item = TraceProcWalk<'a>> + use<'a> {
        let (db, procs) = (self.db, self.procs);
        let index = &db.trace_index().procs;
        // One process asked for (a pass that walks each process on its
        // own, `comm time`'s attribution): a search of the index, sorted
        // by process, not a scan of it per process, which made such a
        // pass quadratic in the processes.
        let rows = match procs {
            Some([one]) => match index.binary_search_by_key(one, |p| p.proc) {
                Ok(row) => row..row + 1,
                Err(_) => 0..0,
            },
            _ => 0..index.len(),
        };
        index[rows.clone()]
            .iter()
            .zip(rows)
            .filter(move |(p, _)| procs.is_none_or(|v| v.contains(&p.proc)))
            .map(move |(proc, row)| TraceProcWalk { db, row, proc })
    }

    /// Blocks of the selected processes: the units of progress of a pass.
    pub fn block_count(&self) -> u64 {
        self.procs().map(|p| p.proc.blocks.len() as u64).sum()
    }

    /// Runs `f` on every selected process, a task per process in
    /// parallel; the results come in process order.
    pub fn map_procs<R: Send>(&self, f: impl Fn(TraceProcWalk<'a>) -> R + Sync) -> Vec<R> {
        let procs: Vec<TraceProcWalk<'a>> = self.procs().collect();
        let most = procs_per_task(procs.len(), rayon::current_num_threads());
        procs.into_par_iter().with_max_len(most).map(&f).collect()
    }

    /// Every selected block mapped whole in turn, in process and block
    /// order, for readers that cut blocks into parallel tasks or pull their
    /// records; a block that cannot be read is a warning worded `skipped`.
    pub fn mapped_blocks(
        &self,
        skipped: Skipped,
    ) -> impl Iterator<Item = Result<MappedTraceBlock<'a>, Warning>> + use<'a> {
        self.procs().flat_map(move |p| p.mapped_blocks(skipped))
    }
}

/// One process of a [`TraceWalk`].
#[derive(Clone, Copy)]
pub struct TraceProcWalk<'a> {
    db: &'a Database,
    row: usize,
    proc: &'a ProcTrace,
}

impl<'a> TraceProcWalk<'a> {
    pub fn database(&self) -> &'a Database {
        self.db
    }

    /// The process's blocks and function names.
    pub fn proc(&self) -> &'a ProcTrace {
        self.proc
    }

    /// The process's position in `trace_index().procs` (the rows of region
    /// selections and function indexes).
    pub fn row(&self) -> usize {
        self.row
    }

    /// The process's blocks, in write order.
    pub fn blocks(&self) -> impl Iterator<Item = TraceBlockWalk<'a>> + use<'a> {
        let (db, proc) = (self.db, self.proc);
        proc.blocks
            .iter()
            .map(move |block| TraceBlockWalk { db, proc, block })
    }

    /// Streams the call records of every block a buffer at a time (the
    /// sentinels included), block after block; returns the warnings for
    /// blocks that cannot be read (the others still count). Inlined into its
    /// caller, as [`TraceBlockWalk::for_each_call_batch`]: `f`'s loop then
    /// compiles as a loop written in the analysis (trace-summary with a
    /// region filter took 2 % more instructions otherwise).
    #[inline(always)]
    pub fn for_each_call_batch(&self, mut f: impl FnMut(CallBatch<'_>)) -> Vec<Warning> {
        self.blocks()
            .filter_map(|b| b.for_each_call_batch(&mut f))
            .collect()
    }

    /// [`Self::for_each_call_batch`] a record at a time, the sentinels left out.
    pub fn for_each_call(&self, mut f: impl FnMut(&CallRecord)) -> Vec<Warning> {
        self.for_each_call_batch(|batch| {
            for c in batch.calls() {
                if !c.is_sentinel() {
                    f(&c);
                }
            }
        })
    }

    /// Runs `f` on every block, a task per block in parallel; the results
    /// come in block order.
    pub fn map_blocks<R: Send>(&self, f: impl Fn(TraceBlockWalk<'a>) -> R + Sync) -> Vec<R> {
        let blocks: Vec<TraceBlockWalk<'a>> = self.blocks().collect();
        blocks.into_par_iter().map(&f).collect()
    }

    /// Every block mapped whole in turn (see [`TraceWalk::mapped_blocks`]).
    pub fn mapped_blocks(
        &self,
        skipped: Skipped,
    ) -> impl Iterator<Item = Result<MappedTraceBlock<'a>, Warning>> + use<'a> {
        self.blocks().map(move |b| b.mapped(skipped))
    }
}

/// One trace block of a [`TraceProcWalk`]. Each read advances the progress
/// hook once.
#[derive(Clone, Copy)]
pub struct TraceBlockWalk<'a> {
    db: &'a Database,
    proc: &'a ProcTrace,
    block: &'a TraceBlockRef,
}

impl<'a> TraceBlockWalk<'a> {
    pub fn block(&self) -> &'a TraceBlockRef {
        self.block
    }

    /// Streams the block's call records a buffer at a time (the sentinel
    /// included); `Some(warning)` when the block cannot be read.
    #[inline(always)]
    pub fn for_each_call_batch(&self, f: impl FnMut(CallBatch<'_>)) -> Option<Warning> {
        let r = self.db.stream_trace_call_batches(self.block, f);
        self.db.progress().advance(1);
        r.err()
            .map(|e| Skipped::TraceBlock.trace(self.block, self.proc.proc, &e))
    }

    /// [`Self::for_each_call_batch`] a record at a time, the sentinel left out.
    pub fn for_each_call(&self, mut f: impl FnMut(&CallRecord)) -> Option<Warning> {
        self.for_each_call_batch(|batch| {
            for c in batch.calls() {
                if !c.is_sentinel() {
                    f(&c);
                }
            }
        })
    }

    /// The block's region records.
    pub fn regions(&self) -> Result<Vec<RegionRecord>, Warning> {
        let r = self.db.trace_regions(self.block);
        self.db.progress().advance(1);
        r.map_err(|e| Skipped::RegionRecords.trace(self.block, self.proc.proc, &e))
    }

    /// [`Self::regions`] and [`Self::for_each_call`] together, for a pass
    /// that wants both: a small block is read once instead of once each.
    pub fn regions_and_calls(
        &self,
        mut f: impl FnMut(&CallRecord),
    ) -> (Result<Vec<RegionRecord>, Warning>, Option<Warning>) {
        let (regions, calls) = self.db.trace_regions_and_call_batches(self.block, |batch| {
            for c in batch.calls() {
                if !c.is_sentinel() {
                    f(&c);
                }
            }
        });
        self.db.progress().advance(2);
        (
            regions.map_err(|e| Skipped::RegionRecords.trace(self.block, self.proc.proc, &e)),
            calls
                .err()
                .map(|e| Skipped::TraceBlock.trace(self.block, self.proc.proc, &e)),
        )
    }

    /// The block mapped whole (its bytes only, see
    /// [`Database::trace_block_file`]), located and checked.
    pub fn mapped(&self, skipped: Skipped) -> Result<MappedTraceBlock<'a>, Warning> {
        let located = self.db.trace_block_file(self.block).and_then(|file| {
            let real = TraceBlock::read(&file, self.block)?.real();
            Ok((file, real))
        });
        match located {
            Ok((file, real)) => Ok(MappedTraceBlock {
                db: self.db,
                proc: self.proc,
                block: self.block,
                file,
                real,
            }),
            Err(e) => {
                self.db.progress().advance(1);
                Err(skipped.trace(self.block, self.proc.proc, &e))
            }
        }
    }
}

/// A trace block mapped whole, for readers that cut it into parallel tasks
/// or take its records a slice at a time. The progress hook advances when
/// it is dropped (its reader is done with it).
pub struct MappedTraceBlock<'a> {
    db: &'a Database,
    proc: &'a ProcTrace,
    block: &'a TraceBlockRef,
    file: InputFile,
    real: RealWidth,
}

impl<'a> MappedTraceBlock<'a> {
    pub fn proc(&self) -> &'a ProcTrace {
        self.proc
    }

    pub fn block(&self) -> &'a TraceBlockRef {
        self.block
    }

    /// The block's records, decoded as they are read.
    pub fn records(&self) -> TraceBlock<'_> {
        TraceBlock::read_as(&self.file, self.block, self.real)
            .expect("the block was located in these bytes when it was mapped")
    }

    /// Tells the system that the bytes of the calls before call `end` will
    /// not be read again (a streaming reader keeps little of a big block
    /// resident); reading them again stays correct.
    pub fn release_calls_before(&self, end: usize) {
        if end > 0 {
            let upto = self.records().offset_after_call(self.block, end - 1);
            self.file.release_before(upto);
        }
    }
}

impl Drop for MappedTraceBlock<'_> {
    fn drop(&mut self) {
        self.db.progress().advance(1);
    }
}

/// The comm blocks of a selection (see [`Database::comm_blocks`]).
#[derive(Clone, Copy)]
pub struct CommWalk<'a> {
    db: &'a Database,
    sel: BlockSelection<'a>,
    /// Every block with records, whatever its times.
    every_block: bool,
}

impl<'a> CommWalk<'a> {

    fn walk(&self, proc: &'a ProcComm) -> CommProcWalk<'a> {
        CommProcWalk {
            db: self.db,
            proc,
            sel: self.sel,
            every_block: self.every_block,
        }
    }

    /// The selected processes, in process order.
    pub fn procs(&self) -> impl Iterator<Item = CommProcWalk<'a>> + use<'a> {
        let walk = *self;
        self.db
            .comm_index()
            .procs
            .iter()
            .filter(move |p| walk.sel.wants_proc(p.proc))
            .map(move |p| walk.walk(p))
    }

    /// Runs `f` on every selected process, a task per process in parallel;
    /// the results come in process order. Progress advances once per
    /// process of the index, selected or not.
    pub fn map_procs<R: Send>(&self, f: impl Fn(CommProcWalk<'a>) -> R + Sync) -> Vec<R> {
        let procs = &self.db.comm_index().procs;
        let most = procs_per_task(procs.len(), rayon::current_num_threads());
        procs
            .par_iter()
            .with_max_len(most)
            .filter_map(|p| {
                let r = self.sel.wants_proc(p.proc).then(|| f(self.walk(p)));
                self.db.progress().advance(1);
                r
            })
            .collect()
    }

    /// [`Self::map_procs`] with each result handed to `consume` in process
    /// order as soon as the processes before it are done, for results of a
    /// few hundred bytes (a process's counts): memory holds windows of
    /// [`SMALL_RESULTS_PER_WINDOW`] processes per thread, not one result
    /// per process.
    /// Each window wakes the threads and waits for them, which at 64 per
    /// thread was most of the context switches of `comm barriers` at
    /// 16,384 processes.
    pub fn fold_small_procs<R: Send>(
        &self,
        f: impl Fn(CommProcWalk<'a>) -> R + Sync,
        consume: impl FnMut(R),
    ) {
        self.fold_procs_in_windows(SMALL_RESULTS_PER_WINDOW, f, consume)
    }

    fn fold_procs_in_windows<R: Send>(
        &self,
        per_thread: usize,
        f: impl Fn(CommProcWalk<'a>) -> R + Sync,
        mut consume: impl FnMut(R),
    ) {
        let map = |p: &'a ProcComm| {
            let r = self.sel.wants_proc(p.proc).then(|| f(self.walk(p)));
            self.db.progress().advance(1);
            r
        };
        crate::parallel::Ordered::per_thread(per_thread)
            .overlapped()
            .for_each(&self.db.comm_index().procs, map, |r| {
                if let Some(r) = r {
                    consume(r);
                }
            });
    }

    /// Runs `f` on every run of consecutive processes with the same
    /// `run_of(process)`, a task per run in parallel, with the run's first
    /// process (selected or not) and its selected processes; the results
    /// come in run order. Progress advances once per process of the index.
    pub fn map_proc_runs<R: Send>(
        &self,
        run_of: impl Fn(usize) -> usize + Sync,
        f: impl Fn(usize, &[CommProcWalk<'a>]) -> R + Sync,
    ) -> Vec<R> {
        let runs: Vec<&'a [ProcComm]> = self
            .db
            .comm_index()
            .procs
            .chunk_by(|a, b| run_of(a.proc) == run_of(b.proc))
            .collect();
        runs.par_iter()
            .map(|procs| {
                let selected: Vec<CommProcWalk<'a>> = procs
                    .iter()
                    .filter(|p| self.sel.wants_proc(p.proc))
                    .map(|p| self.walk(p))
                    .collect();
                let r = f(procs[0].proc, &selected);
                self.db.progress().advance(procs.len() as u64);
                r
            })
            .collect()
    }

    /// The records of every selected block opened in turn, in process and
    /// block order, for readers that pull them; a block that cannot be
    /// opened is a warning worded `skipped`.
    pub fn record_blocks(
        &self,
        skipped: Skipped,
    ) -> impl Iterator<Item = Result<CommBlockRecords<'a>, Warning>> + use<'a> {
        self.procs().flat_map(move |p| p.record_blocks(skipped))
    }
}

/// Processes per thread in a window of [`CommWalk::fold_small_procs`]: a
/// few windows at 16,384 processes, a few megabytes of results held.
const SMALL_RESULTS_PER_WINDOW: usize = 1024;

/// One process of a [`CommWalk`].
#[derive(Clone, Copy)]
pub struct CommProcWalk<'a> {
    db: &'a Database,
    proc: &'a ProcComm,
    sel: BlockSelection<'a>,
    every_block: bool,
}

impl<'a> CommProcWalk<'a> {
    pub fn database(&self) -> &'a Database {
        self.db
    }

    /// The selection of the walk.
    pub fn selection(&self) -> &BlockSelection<'a> {
        &self.sel
    }

    /// The process's blocks (all of them) and name-tag names.
    pub fn proc(&self) -> &'a ProcComm {
        self.proc
    }

    /// The blocks the walk reads, in write order.
    pub fn blocks(&self) -> impl Iterator<Item = &'a CommBlockRef> + use<'a> {
        let (sel, every) = (self.sel, self.every_block);
        self.proc
            .blocks
            .iter()
            .filter(move |b| if every { b.ncomm > 0 } else { sel.meets(b) })
    }

    /// Streams the records of each block the walk reads to `visit` (the
    /// block, its records: read them all or not), block after block;
    /// returns the warnings for blocks that cannot be opened (worded
    /// `skipped`) and for those that end early (worded `cut_short`).
    ///
    /// Inlined into its caller, so that `visit`'s loop over the records is
    /// compiled in the analysis's own function, as a loop written there.
    #[inline(always)]
    pub fn for_each_block(
        &self,
        skipped: Skipped,
        cut_short: Skipped,
        mut visit: impl FnMut(&'a CommBlockRef, &mut CommRecords),
    ) -> Vec<Warning> {
        let mut warnings = Vec::new();
        for b in self.record_blocks(skipped) {
            match b {
                Ok(mut b) => {
                    visit(b.block, &mut b.records);
                    warnings.extend(b.finish(cut_short));
                }
                Err(w) => warnings.push(w),
            }
        }
        warnings
    }

    /// The records of each block the walk reads, opened in turn.
    pub fn record_blocks(
        &self,
        skipped: Skipped,
    ) -> impl Iterator<Item = Result<CommBlockRecords<'a>, Warning>> + use<'a> {
        let (db, proc) = (self.db, self.proc);
        self.blocks()
            .map(move |block| match db.comm_records(block) {
                Ok(records) => Ok(CommBlockRecords {
                    proc,
                    block,
                    records,
                }),
                Err(e) => Err(skipped.comm(block, proc.proc, &e)),
            })
    }

    /// Records `first .. first + N` of block `b` (fewer past its end), read
    /// where they lie with one positioned read: for readers that pick a few
    /// records by index (a mapped block would fault in the pages around
    /// each). A block that cannot be read is a warning worded `skipped`.
    pub fn records_at<const N: usize>(
        &self,
        b: &CommBlockRef,
        first: u64,
        skipped: Skipped,
    ) -> Result<[Option<CommRecord>; N], Warning> {
        self.db
            .comm_records_at(b, first)
            .map_err(|e| skipped.comm(b, self.proc.proc, &e))
    }

}

/// The records of one comm block of a walk, streamed.
pub struct CommBlockRecords<'a> {
    pub proc: &'a ProcComm,
    pub block: &'a CommBlockRef,
    pub records: CommRecords,
}

impl CommBlockRecords<'_> {
    /// Ends the block: `Some(warning)`, worded `cut_short`, when its records
    /// ended early (see [`CommRecords::finish`]).
    pub fn finish(self, cut_short: Skipped) -> Option<Warning> {
        let (proc, block) = (self.proc.proc, self.block);
        self.records
            .finish()
            .err()
            .map(|e| cut_short.comm(block, proc, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Database {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/blprof")
            .join(name)
            .join("bl_prof");
        Database::open(path).unwrap()
    }

    #[test]
    fn walks_are_cut_into_tasks_per_thread() {
        assert_eq!(procs_per_task(16_384, 2), 512);
        assert_eq!(procs_per_task(64, 2), 2);
        assert_eq!(procs_per_task(5, 2), 1);
        assert_eq!(procs_per_task(0, 0), 1, "never 0: rayon takes at least 1");
    }

    /// Each report's words, unchanged.
    #[test]
    fn skipped_blocks_keep_their_words() {
        let e = Error::invalid(Location::file("D"), "short");
        let w = |s: Skipped| s.warning(3, Path::new("H"), 7, &e).to_string();
        assert!(w(Skipped::TraceBlock).ends_with("process 3: trace block skipped: D: short"));
        assert!(
            w(Skipped::Block).ends_with("7: block skipped: D: short"),
            "{}",
            w(Skipped::Block)
        );
        assert!(
            w(Skipped::CommBlockCutShort).ends_with("process 3: comm block cut short: D: short")
        );
        assert!(w(Skipped::Messages).ends_with("process 3: messages of a block skipped: D: short"));
    }

    /// A trace walk covers the selected processes in order, their rows
    /// those of the index; mapped blocks advance progress once each, when
    /// dropped, and stream the same records as the buffered reads.
    #[test]
    fn trace_walks_select_processes_and_count_blocks() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};
        let mut db = fixture("small4");
        let n = Arc::new(AtomicU64::new(0));
        let seen = n.clone();
        db.set_progress(crate::progress::Progress::new(move |k| {
            seen.fetch_add(k, Ordering::Relaxed);
        }));
        let all = db.trace_blocks(None);
        let rows: Vec<(usize, usize)> = all.procs().map(|p| (p.row(), p.proc().proc)).collect();
        let index: Vec<(usize, usize)> = db
            .trace_index()
            .procs
            .iter()
            .enumerate()
            .map(|(i, p)| (i, p.proc))
            .collect();
        assert_eq!(rows, index);
        let two = [index[2].1, index[0].1];
        let some = db.trace_blocks(Some(&two));
        assert_eq!(
            some.procs().map(|p| p.row()).collect::<Vec<_>>(),
            vec![0, 2],
            "process order, not the selection's"
        );
        for (row, proc) in &index {
            let one = [*proc];
            let found: Vec<(usize, usize)> = db
                .trace_blocks(Some(&one))
                .procs()
                .map(|p| (p.row(), p.proc().proc))
                .collect();
            assert_eq!(found, vec![(*row, *proc)], "process {proc} alone");
        }
        let absent = [index.iter().map(|(_, p)| p + 1).max().unwrap()];
        assert_eq!(db.trace_blocks(Some(&absent)).procs().count(), 0);
        let buffered: Vec<Vec<(i32, i32, u64)>> = some.map_procs(|p| {
            let mut calls = Vec::new();
            assert!(
                p.for_each_call(|c| calls.push((c.depth, c.fnum, c.start.to_bits())))
                    .is_empty()
            );
            calls
        });
        let blocks = some.block_count();
        assert_eq!(n.swap(0, Ordering::Relaxed), blocks);
        let mut mapped: Vec<Vec<(i32, i32, u64)>> = vec![Vec::new(); 2];
        for m in some.mapped_blocks(Skipped::TraceBlock) {
            let m = m.unwrap();
            let i = usize::from(m.proc().proc != two[1]);
            let records = m.records();
            mapped[i].extend(
                (0..records.calls_len())
                    .map(|c| records.call(c))
                    .filter(|c| !c.is_sentinel())
                    .map(|c| (c.depth, c.fnum, c.start.to_bits())),
            );
        }
        assert_eq!(n.swap(0, Ordering::Relaxed), blocks);
        assert_eq!(mapped, buffered);
    }

    /// A comm walk reads the blocks with records whose times meet the
    /// window, of the selected processes; its parallel visit advances
    /// progress once per process of the index.
    #[test]
    fn comm_walks_select_blocks_by_time_and_process() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};
        let mut db = fixture("flush");
        let n = Arc::new(AtomicU64::new(0));
        let seen = n.clone();
        db.set_progress(crate::progress::Progress::new(move |k| {
            seen.fetch_add(k, Ordering::Relaxed);
        }));
        let procs = db.comm_index().procs.len();
        let first = [db.comm_index().procs[0].proc];
        let blocks = &db.comm_index().procs[0].blocks;
        assert!(blocks.len() > 1);
        let (_, end) = blocks[0].time_min_max.unwrap();
        let sel = BlockSelection {
            window: (f64::NEG_INFINITY, end),
            procs: Some(&first),
        };
        let walk = db.comm_blocks(&sel);
        let read: Vec<Vec<usize>> = walk.map_procs(|p| {
            let mut lines = Vec::new();
            let w = p.for_each_block(Skipped::CommBlock, Skipped::CommBlockCutShort, |b, r| {
                lines.push(b.line);
                r.by_ref().for_each(drop);
            });
            assert!(w.is_empty());
            lines
        });
        let expected: Vec<usize> = blocks
            .iter()
            .filter(|b| b.ncomm > 0 && b.time_min_max.unwrap().0 <= end)
            .map(|b| b.line)
            .collect();
        assert!(expected.len() < blocks.len());
        assert_eq!(read, vec![expected]);
        assert_eq!(n.swap(0, Ordering::Relaxed), procs as u64);
        let pulled = db
            .every_comm_block()
            .record_blocks(Skipped::CommBlock)
            .count();
        let with_records = db
            .comm_index()
            .procs
            .iter()
            .flat_map(|p| &p.blocks)
            .filter(|b| b.ncomm > 0)
            .count();
        assert_eq!(pulled, with_records);
        assert_eq!(n.load(Ordering::Relaxed), 0, "pulls advance nothing");
    }
}
