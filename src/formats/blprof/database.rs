//! A bl_prof directory: which parts exist, their headers, and lazily the
//! per-file headers and memory-mapped data files.
//!
//! Opening reads only the three global headers. Per-file headers of the
//! trace and comm parts are parsed on first use (in parallel over files), and
//! data files are mapped on first use, so `summary` never touches trace or
//! comm data.

use std::collections::HashMap;
use std::ops::{Deref, Range};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::base::{BaseHeader, BaseProfile};
use super::callstats::{CallStatsFile, CallStatsHeader, FunctionTable, TraceBlockRef};
use super::comm::{CommBlockRef, CommFile, CommHeader, NameTagNames};
use super::commdata::CommRecords;
use super::files::{Part, file_number};
use super::headerfile::read_text;
use super::thread_handle;
use crate::error::{Error, Location, NotADatabase, Result, Warning};
use crate::formats::input::{InputKind, looks};
use crate::progress::Progress;
use crate::source::{DataHandle, InputFile};

/// One process's blocks: a run of the blocks of its header file, shared
/// with the file's other processes. A vector per process was an allocation
/// and a copy of each block, which counted with a block per process (16,384
/// processes: a tenth of the comm index's memory).
#[derive(Clone)]
pub struct ProcBlocks<B> {
    file: Arc<Vec<B>>,
    run: Range<usize>,
}

impl<B> ProcBlocks<B> {
    /// All of `blocks`, for an index built by hand (tests).
    #[cfg(test)]
    pub(crate) fn from_vec(blocks: Vec<B>) -> Self {
        let run = 0..blocks.len();
        ProcBlocks {
            file: Arc::new(blocks),
            run,
        }
    }
}

impl<B> Deref for ProcBlocks<B> {
    type Target = [B];
    fn deref(&self) -> &[B] {
        &self.file[self.run.clone()]
    }
}

impl<'a, B> IntoIterator for &'a ProcBlocks<B> {
    type Item = &'a B;
    type IntoIter = std::slice::Iter<'a, B>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<B: std::fmt::Debug> std::fmt::Debug for ProcBlocks<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One process's trace blocks (in write order) and function names.
#[derive(Debug, Clone)]
pub struct ProcTrace {
    pub proc: usize,
    pub blocks: ProcBlocks<TraceBlockRef>,
    pub functions: FunctionTable,
}

/// All per-file call-stats headers, grouped by process.
#[derive(Debug, Default)]
pub struct TraceIndex {
    /// Sorted by process.
    pub procs: Vec<ProcTrace>,
    pub warnings: Vec<Warning>,
}

/// One process's comm blocks (in write order) and name-tag names.
#[derive(Debug, Clone)]
pub struct ProcComm {
    pub proc: usize,
    pub blocks: ProcBlocks<CommBlockRef>,
    pub name_tag_names: NameTagNames,
}

/// All per-file comm headers, grouped by process.
#[derive(Debug, Default)]
pub struct CommIndex {
    /// Sorted by process.
    pub procs: Vec<ProcComm>,
    pub warnings: Vec<Warning>,
}

/// An opened bl_prof database directory.
pub struct Database {
    dir: PathBuf,
    pub(crate) base: Option<BaseHeader>,
    pub(crate) call_stats: Option<CallStatsHeader>,
    pub(crate) comm: Option<CommHeader>,
    trace_files: Vec<PathBuf>,
    comm_files: Vec<PathBuf>,
    /// The names the listing at open time showed as regular files (sorted).
    plain_files: Vec<String>,
    warnings: Vec<Warning>,
    trace: OnceLock<TraceIndex>,
    comm_index: OnceLock<CommIndex>,
    data_files: Mutex<HashMap<String, Arc<InputFile>>>,
    handles: Mutex<KeptHandles>,
    /// Tells this database apart in each thread's last data file.
    id: u64,
    progress: Progress,
}

/// The data file of the last block looked up, for walks over a header's
/// blocks, which name one or a few data files in runs: one lookup (a
/// `lstat` and a lock in [`Database::data_handle`]) per run instead of one
/// per block, which counted with 10,000 processes.
#[derive(Default)]
struct LastHandle {
    name: Option<Arc<str>>,
    handle: Option<Arc<DataHandle>>,
}

impl LastHandle {
    /// `name`'s handle, or `None` when it cannot be opened (left to the
    /// readers to report).
    fn get(&mut self, db: &Database, name: &Arc<str>) -> Option<Arc<DataHandle>> {
        if self.name.as_ref() != Some(name) {
            self.handle = db.data_handle(name).ok();
            self.name = Some(name.clone());
        }
        self.handle.clone()
    }
}

/// Open data-file handles kept for reuse, at most (file descriptors are a
/// limited resource; past this, the handle kept longest is dropped).
const MAX_KEPT_HANDLES: usize = 256;

/// The data files opened lately, the first opened first out: walks go
/// through the files in runs, so a database of more files than are kept
/// (a trace and a comm part of 256 files each) still opens each file once
/// per walk, not once per block.
#[derive(Default)]
struct KeptHandles {
    // Fx: looked up once per block read, thousands of times at scale.
    by_name: FxHashMap<String, Arc<DataHandle>>,
    opened: std::collections::VecDeque<String>,
}

impl KeptHandles {
    fn keep(&mut self, name: &str, handle: Arc<DataHandle>) {
        if self.opened.len() >= MAX_KEPT_HANDLES
            && let Some(oldest) = self.opened.pop_front()
        {
            self.by_name.remove(&oldest);
        }
        self.opened.push_back(name.to_owned());
        self.by_name.insert(name.to_owned(), handle);
    }
}

impl Database {
    /// Opens `dir`: finds which parts exist and parses their global headers.
    /// Fails when `dir` is not a directory or holds no part at all; a
    /// damaged or missing single part is a warning.
    pub fn open(dir: impl AsRef<Path>) -> Result<Database> {
        Self::open_with(dir.as_ref(), None)
    }

    /// [`Database::open`], with the comm index ([`Database::comm_index`])
    /// built while the base header is parsed: a comm report needs both, and
    /// the base header (a line per process) parsed alone left all but one
    /// core idle (16,384 processes: 2.6 ms of a 28 ms `comm matrix`).
    pub fn open_for_comm(dir: impl AsRef<Path>) -> Result<Database> {
        Self::open_with(dir.as_ref(), Some(Part::Comm))
    }

    /// [`Database::open`], with the trace index ([`Database::trace_index`])
    /// built while the base header is parsed, as [`Database::open_for_comm`]
    /// does for the comm index: for the reports on call traces.
    pub fn open_for_traces(dir: impl AsRef<Path>) -> Result<Database> {
        Self::open_with(dir.as_ref(), Some(Part::Trace))
    }

    /// Opens the database; `index`, the comm or trace index to build while
    /// the base header is parsed.
    fn open_with(dir: &Path, index: Option<Part>) -> Result<Database> {
        let meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
        if !meta.is_dir() {
            return Err(Error::NotADatabase {
                path: dir.to_owned(),
                why: NotADatabase::NotADirectory,
                advice: looks(dir).advice(dir, InputKind::Blprof),
            });
        }
        let (listing, plain_files) = list_dir(dir)?;
        let listing = listing.as_slice();
        let base_is_plain = is_listed(&plain_files, Part::Base.global_header());
        let parse_base = || {
            let mut warnings = Vec::new();
            let plain = |_: &str| base_is_plain;
            let base = open_global(dir, Part::Base, listing, &plain, &mut warnings, BaseHeader::parse);
            (base, warnings)
        };
        let open_rest = move || -> Result<Database> {
            let mut warnings = Vec::new();
            let plain = |name: &str| is_listed(&plain_files, name);
            let call_stats = open_global(
                dir,
                Part::Trace,
                listing,
                &plain,
                &mut warnings,
                CallStatsHeader::parse,
            )?;
            let comm =
                open_global(dir, Part::Comm, listing, &plain, &mut warnings, CommHeader::parse)?;
            let trace_files = per_file_headers(
                dir,
                Part::Trace,
                call_stats.as_ref().map(|h| h.header_files.as_slice()),
                listing,
                &plain,
                &mut warnings,
            );
            let comm_files = per_file_headers(
                dir,
                Part::Comm,
                comm.as_ref().map(|h| h.header_files.as_slice()),
                listing,
                &plain,
                &mut warnings,
            );
            let db = Database {
                dir: dir.to_path_buf(),
                base: None,
                call_stats,
                comm,
                trace_files,
                comm_files,
                plain_files,
                warnings,
                trace: OnceLock::new(),
                comm_index: OnceLock::new(),
                data_files: Mutex::new(HashMap::new()),
                handles: Mutex::new(KeptHandles::default()),
                id: thread_handle::new_database_id(),
                progress: Progress::none(),
            };
            // Without its own NProcs an index takes the base header's.
            match index {
                Some(Part::Comm) if db.comm.as_ref().is_some_and(|h| h.nprocs.is_some()) => {
                    db.comm_index();
                }
                Some(Part::Trace) if db.call_stats.as_ref().is_some_and(|h| h.nprocs.is_some()) => {
                    db.trace_index();
                }
                _ => {}
            }
            Ok(db)
        };
        // On one thread there is nothing to overlap, only a hand-over.
        let overlap = index.is_some() && rayon::current_num_threads() > 1;
        let ((base, mut warnings), db) = if overlap {
            rayon::join(parse_base, open_rest)
        } else {
            (parse_base(), open_rest())
        };
        // The errors in the order the headers are read without the index.
        let base = base?;
        let mut db = db?;
        if base.is_none()
            && db.call_stats.is_none()
            && db.comm.is_none()
            && db.trace_files.is_empty()
            && db.comm_files.is_empty()
        {
            return Err(Error::NotADatabase {
                path: dir.to_owned(),
                why: NotADatabase::NoHeaders,
                advice: looks(dir).advice(dir, InputKind::Blprof),
            });
        }
        // The base header's warnings first, as without the index.
        warnings.append(&mut db.warnings);
        check_nprocs(&base, &db.call_stats, &db.comm, &mut warnings);
        db.warnings = warnings;
        db.base = base;
        Ok(db)
    }

    /// The database directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// An error unless the database has `part` (a report that needs the
    /// call traces, say): the error names the part and what the run needs.
    pub fn require(&self, part: Part) -> Result<()> {
        if self.parts().contains(&part) {
            Ok(())
        } else {
            Err(self.missing(part))
        }
    }

    fn missing(&self, part: Part) -> Error {
        Error::MissingPart {
            path: self.dir.clone(),
            part,
        }
    }

    /// Warnings from opening (global headers, discovery).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Which parts the database has.
    pub fn parts(&self) -> Vec<Part> {
        let mut v = Vec::new();
        if self.base.is_some() {
            v.push(Part::Base);
        }
        if self.call_stats.is_some() || !self.trace_files.is_empty() {
            v.push(Part::Trace);
        }
        if self.comm.is_some() || !self.comm_files.is_empty() {
            v.push(Part::Comm);
        }
        v
    }

    /// Number of processes, from the first header that states it.
    pub fn nprocs(&self) -> Option<u64> {
        self.base
            .as_ref()
            .and_then(|b| b.nprocs)
            .or_else(|| self.call_stats.as_ref().and_then(|h| h.nprocs))
            .or_else(|| self.comm.as_ref().and_then(|h| h.nprocs))
    }

    /// Per-file header paths of the trace part.
    pub(crate) fn trace_header_files(&self) -> &[PathBuf] {
        &self.trace_files
    }

    pub(crate) fn comm_header_files(&self) -> &[PathBuf] {
        &self.comm_files
    }

    /// The base profile's blocks, loaded (mapped and bounds-checked).
    pub fn base_profile(&self, warnings: &mut Vec<Warning>) -> Result<BaseProfile<'_>> {
        let header = self.base.as_ref().ok_or_else(|| self.missing(Part::Base))?;
        Ok(BaseProfile::load(
            header,
            |name| self.data_file(name),
            warnings,
        ))
    }

    /// Warnings about the call-stats headers, whose stanzas are parsed on
    /// first use (here or by the first trace analysis): what the CLI prints
    /// before a call tree, for a library user to show too (the Python
    /// package's `Run.calltree`).
    pub fn trace_warnings(&self) -> &[Warning] {
        &self.trace_index().warnings
    }

    /// All call-stats stanzas, parsed on first use.
    pub(crate) fn trace_index(&self) -> &TraceIndex {
        self.trace.get_or_init(|| {
            let nprocs = self
                .call_stats
                .as_ref()
                .and_then(|h| h.nprocs)
                .or(self.nprocs());
            let (groups, warnings) = group_by_proc(
                &self.trace_files,
                |text, path, w| {
                    let mut f = CallStatsFile::parse(text, path, nprocs, w);
                    self.fit_trace_blocks(&mut f.blocks, w);
                    (f.blocks, f.functions)
                },
                |b: &TraceBlockRef| (b.proc, b.line),
            );
            let procs = groups
                .into_iter()
                .map(|(proc, blocks, functions)| ProcTrace {
                    proc,
                    blocks,
                    functions,
                })
                .collect();
            TraceIndex { procs, warnings }
        })
    }

    /// Bounds each block's record counts by its data file's length
    /// ([`super::trace::fit_to_file`]), so that every reader of the index
    /// (sizes, estimates, streams) sees the records that are there. A data
    /// file that cannot be opened is left to the readers to report.
    fn fit_trace_blocks(&self, blocks: &mut [TraceBlockRef], warnings: &mut Vec<Warning>) {
        let mut last = LastHandle::default();
        for b in blocks {
            let Some(file) = last.get(self, &b.datafile) else {
                continue;
            };
            match super::trace::fit_to_file(&file, b) {
                Ok(Some(w)) => warnings.push(w),
                Ok(None) => {}
                Err(e) => warnings.push(Warning::new(
                    Location::line(&b.header, b.line),
                    format!("data file not readable: {e}"),
                )),
            }
        }
    }

    /// Bounds each comm block's record count by its data file's length
    /// ([`super::commdata::fit_to_file`]), as [`Self::fit_trace_blocks`].
    fn fit_comm_blocks(&self, blocks: &mut [CommBlockRef], warnings: &mut Vec<Warning>) {
        let record = self.comm_record_layout().0;
        let mut last = LastHandle::default();
        for b in blocks {
            let Some(file) = last.get(self, &b.datafile) else {
                continue;
            };
            warnings.extend(super::commdata::fit_to_file(
                file.path(),
                file.len(),
                record,
                b,
            ));
        }
    }

    /// Warnings about the comm headers, parsed on first use: what the CLI
    /// prints before a comm report, for a library user to show too.
    pub fn comm_warnings(&self) -> &[Warning] {
        &self.comm_index().warnings
    }

    /// The processes with communication data, in process order (`comm …
    /// --proc N` is an error for any other).
    pub fn comm_procs(&self) -> impl Iterator<Item = usize> + '_ {
        self.comm_index().procs.iter().map(|p| p.proc)
    }

    /// All comm stanzas, parsed on first use.
    pub(crate) fn comm_index(&self) -> &CommIndex {
        self.comm_index.get_or_init(|| {
            let nprocs = self.comm.as_ref().and_then(|h| h.nprocs).or(self.nprocs());
            let (groups, warnings) = group_by_proc(
                &self.comm_files,
                |text, path, w| {
                    let mut f = CommFile::parse(text, path, nprocs, w);
                    self.fit_comm_blocks(&mut f.blocks, w);
                    (f.blocks, f.name_tag_names)
                },
                |b: &CommBlockRef| (b.proc, b.line),
            );
            let procs = groups
                .into_iter()
                .map(|(proc, blocks, name_tag_names)| ProcComm {
                    proc,
                    blocks,
                    name_tag_names,
                })
                .collect();
            CommIndex { procs, warnings }
        })
    }

    /// Watches the block loops of the analyses run on this database: the
    /// hook advances once per trace block read (call and region records),
    /// and once per process finished in the comm analyses.
    pub fn set_progress(&mut self, progress: Progress) {
        self.progress = progress;
    }

    /// The hook set by [`Self::set_progress`] (none by default).
    pub(crate) fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Maps only the bytes of one trace block (both Real layouts fit in the
    /// f64 size), so that streaming over blocks keeps memory to the block at
    /// hand instead of the whole file.
    pub(crate) fn trace_block_file(&self, block: &TraceBlockRef) -> Result<InputFile> {
        let len = block
            .nrss
            .saturating_mul(16)
            .saturating_add(block.ntrace.saturating_mul(40));
        InputFile::part_of(&*self.data_handle(&block.datafile)?, block.seekpos, len)
    }

    /// [`Database::stream_trace_calls`] a buffer at a time (see
    /// [`super::trace::stream_call_batches`]).
    pub(crate) fn stream_trace_call_batches(
        &self,
        block: &TraceBlockRef,
        f: impl FnMut(super::trace::CallBatch<'_>),
    ) -> Result<()> {
        super::trace::stream_call_batches(&*self.data_handle(&block.datafile)?, block, f)
    }

    /// The region records of one trace block (positioned reads).
    pub(crate) fn trace_regions(&self, block: &TraceBlockRef) -> Result<Vec<super::trace::RegionRecord>> {
        super::trace::read_regions(&*self.data_handle(&block.datafile)?, block)
    }

    /// [`Database::trace_regions`] and [`Database::stream_trace_call_batches`]
    /// of one block, a small block read once (see
    /// [`super::trace::read_regions_and_call_batches`]).
    pub(crate) fn trace_regions_and_call_batches(
        &self,
        block: &TraceBlockRef,
        mut f: impl FnMut(super::trace::CallBatch<'_>),
    ) -> (Result<Vec<super::trace::RegionRecord>>, Result<()>) {
        match self.data_handle(&block.datafile) {
            Ok(file) => super::trace::read_regions_and_call_batches(&file, block, f),
            // Each part reports the file as it does alone.
            Err(_) => {
                let calls = self.stream_trace_call_batches(block, &mut f);
                (self.trace_regions(block), calls)
            }
        }
    }

    /// Maps only the bytes of one comm block (offsets stay file offsets, so
    /// [`super::commdata::CommBlock::read`] works on it): memory stays at the blocks
    /// in hand. An extent past the end of the file maps what exists and
    /// `CommBlock::read` reports it.
    pub(crate) fn comm_block_file(&self, block: &CommBlockRef) -> Result<InputFile> {
        let record = self.comm_record_layout().0;
        let len = block.ncomm.saturating_mul(record);
        InputFile::part_of(&*self.data_handle(&block.datafile)?, block.seekpos, len)
    }

    /// The records of a comm block, streamed in order with positioned
    /// reads (memory stays small however big the block; see
    /// [`CommRecords`]).
    pub(crate) fn comm_records(&self, block: &CommBlockRef) -> Result<CommRecords> {
        let (record_size, real) = self.comm_record_layout();
        CommRecords::open(self.data_handle(&block.datafile)?, block, record_size, real)
    }

    /// The size and real width of a comm record, as the comm header says
    /// (24 bytes of doubles without one).
    fn comm_record_layout(&self) -> (u64, super::RealWidth) {
        self.comm.as_ref().map_or((24, super::RealWidth::F64), |h| {
            (h.record_size(), h.real_width())
        })
    }

    /// True when the listing at open time showed `name` as a regular file.
    fn is_plain_file(&self, name: &str) -> bool {
        is_listed(&self.plain_files, name)
    }

    /// Records `first .. first + N` of a comm block (fewer past its end),
    /// one positioned read (see [`super::commdata::records_at`]).
    pub(crate) fn comm_records_at<const N: usize>(
        &self,
        block: &CommBlockRef,
        first: u64,
    ) -> Result<[Option<super::commdata::CommRecord>; N]> {
        let (record_size, real) = self.comm_record_layout();
        super::commdata::records_at(
            &*self.data_handle(&block.datafile)?,
            block,
            record_size,
            real,
            first,
        )
    }

    /// A data file of this database opened for positioned reads, kept and
    /// shared after first use (many blocks live in one file). The name is
    /// checked when the file is opened, not at each use: the check is an
    /// `lstat`, which counted with thousands of processes.
    pub(crate) fn data_handle(&self, name: &str) -> Result<Arc<DataHandle>> {
        if let Some(h) = thread_handle::recall(self.id, name) {
            return Ok(h);
        }
        let h = self.kept_data_handle(name)?;
        thread_handle::remember(self.id, name, &h);
        Ok(h)
    }

    /// [`Self::data_handle`] from the handles kept, opened if not kept.
    fn kept_data_handle(&self, name: &str) -> Result<Arc<DataHandle>> {
        let mut handles = self.handles.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = handles.by_name.get(name) {
            return Ok(h.clone());
        }
        check_bare_name(&self.dir, name, self.is_plain_file(name))?;
        let h = Arc::new(DataHandle::open(self.dir.join(name))?);
        handles.keep(name, h.clone());
        Ok(h)
    }

    /// A data file of this database, mapped on first use and shared after.
    /// `name` must be a bare file name (headers are validated for that).
    pub(crate) fn data_file(&self, name: &str) -> Result<Arc<InputFile>> {
        let mut files = self.data_files.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = files.get(name) {
            return Ok(f.clone());
        }
        check_bare_name(&self.dir, name, self.is_plain_file(name))?;
        let f = Arc::new(InputFile::open(self.dir.join(name))?);
        files.insert(name.to_owned(), f.clone());
        Ok(f)
    }
}

/// Per-process groups: `(process, blocks in file order, per-process extra)`.
type ProcGroups<B, X> = Vec<(usize, ProcBlocks<B>, X)>;

/// One per-file header: its groups, or why it failed, and its warnings.
type ParsedFile<B, X> = (Result<ProcGroups<B, X>>, Vec<Warning>);

/// Parses per-file headers in parallel (`parse` gives a file's blocks and
/// per-process extras) and groups the blocks by process, sorted by process.
/// A process's blocks must all come from one header file (the writer never
/// moves a rank); blocks of a process found in a later file are dropped,
/// each with a warning after those of its file.
///
/// Each file's blocks are grouped in its own task; the groups of all files
/// are then put in process order, which the files' order already is when
/// each holds its own range of processes (as AMReX writes them): grouping
/// every block through one map of processes on one thread was a tenth of
/// opening the comm index at 16,384 processes.
fn group_by_proc<B: Send + Sync, X: Default + Send>(
    files: &[PathBuf],
    parse: impl Fn(&str, &Path, &mut Vec<Warning>) -> (Vec<B>, Vec<(usize, X)>) + Sync,
    proc_and_line: impl Fn(&B) -> (usize, usize) + Sync,
) -> (ProcGroups<B, X>, Vec<Warning>) {
    // A task per file: files differ in size, and a run of them left to one
    // thread while the other waits cost `info` a fifth of its time.
    let parsed: Vec<ParsedFile<B, X>> = files
        .par_iter()
        .with_max_len(1)
        .map(|path| {
            let mut w = Vec::new();
            let r = read_text(path, &mut w).map(|t| {
                let (blocks, extras) = parse(&t, path, &mut w);
                group_file(blocks, extras, &proc_and_line)
            });
            (r, w)
        })
        .collect();
    let mut warnings = Vec::new();
    let mut file_warnings = Vec::with_capacity(files.len());
    let mut per_file: Vec<ProcGroups<B, X>> = Vec::with_capacity(files.len());
    for (r, w) in parsed {
        let mut w = w;
        match r {
            Ok(groups) => per_file.push(groups),
            Err(e) => {
                w.push(as_warning(e, "per-file header skipped"));
                per_file.push(Vec::new());
            }
        }
        file_warnings.push(w);
    }
    // As AMReX writes them, each file holds its own rising range of
    // processes: in file order the groups are then in process order, no
    // process twice, and move straight into place. (Tagged, sorted and
    // deduplicated through a list of their own, they were a serial
    // millisecond and a megabyte of fresh pages at 16,384 processes.)
    let in_order = per_file
        .iter()
        .flatten()
        .map(|g| g.0)
        .is_sorted_by(|a, b| a < b);
    if in_order {
        let mut groups = Vec::with_capacity(per_file.iter().map(Vec::len).sum());
        for file in per_file {
            groups.extend(file);
        }
        warnings.extend(file_warnings.into_iter().flatten());
        return (groups, warnings);
    }
    // Every group, tagged with its file, in file order.
    let mut tagged: Vec<(usize, usize, ProcBlocks<B>, X)> =
        Vec::with_capacity(per_file.iter().map(Vec::len).sum());
    for (file_index, groups) in per_file.into_iter().enumerate() {
        tagged.extend(groups.into_iter().map(|(p, b, x)| (p, file_index, b, x)));
    }
    // By process, then file: a process's first group is the one kept.
    if !tagged.is_sorted_by_key(|g| (g.0, g.1)) {
        tagged.sort_by_key(|g| (g.0, g.1));
    }
    let mut groups: ProcGroups<B, X> = Vec::with_capacity(tagged.len());
    // The blocks dropped, as `(file, line, process, file kept)`.
    let mut dropped: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut kept_file = 0;
    for (proc, file_index, blocks, extra) in tagged {
        if groups.last().is_some_and(|g| g.0 == proc) {
            dropped.extend(blocks.iter().map(|b| (file_index, proc_and_line(b).1, proc, kept_file)));
        } else {
            kept_file = file_index;
            groups.push((proc, blocks, extra));
        }
    }
    dropped.sort_unstable();
    let mut dropped = dropped.into_iter().peekable();
    for (file_index, w) in file_warnings.into_iter().enumerate() {
        warnings.extend(w);
        while let Some((_, line, proc, first)) = dropped.next_if(|d| d.0 == file_index) {
            warnings.push(Warning::new(
                Location::line(&files[file_index], line),
                format!(
                    "process {proc} already has blocks in {}; block ignored",
                    files[first].display()
                ),
            ));
        }
    }
    (groups, warnings)
}

/// One file's blocks grouped by process, in process order, each with its
/// extra (the last one the file gives for it; none without blocks).
fn group_file<B, X: Default>(
    mut blocks: Vec<B>,
    extras: Vec<(usize, X)>,
    proc_and_line: impl Fn(&B) -> (usize, usize),
) -> ProcGroups<B, X> {
    // A stable sort keeps each process's blocks in file order; AMReX
    // writes a file's processes in order, so there is mostly nothing to do.
    if !blocks.is_sorted_by_key(|b| proc_and_line(b).0) {
        blocks.sort_by_key(|b| proc_and_line(b).0);
    }
    let mut extras: FxHashMap<usize, X> = extras.into_iter().collect();
    let file = Arc::new(blocks);
    let mut groups: ProcGroups<B, X> = Vec::new();
    let mut start = 0;
    for run in file.chunk_by(|a, b| proc_and_line(a).0 == proc_and_line(b).0) {
        let proc = proc_and_line(&run[0]).0;
        let blocks = ProcBlocks {
            file: file.clone(),
            run: start..start + run.len(),
        };
        start += run.len();
        groups.push((proc, blocks, extras.remove(&proc).unwrap_or_default()));
    }
    groups
}

/// Refuses a file name that could read outside the database: one with a
/// directory in it, or a symbolic link whose target is outside the
/// database directory (a link that stays inside is followed). A name the
/// directory listing showed as a regular file (`plain`) is not looked up
/// again: an `lstat` per file counted with a header and a data file per 64
/// processes.
fn check_bare_name(dir: &Path, name: &str, plain: bool) -> Result<()> {
    if name.contains('/') || name.contains('\\') || name == ".." || name == "." {
        return Err(Error::OutsideDatabase {
            location: Location::file(dir.join(name)),
            message: "data file names must not contain a directory".into(),
        });
    }
    let path = dir.join(name);
    let is_link = !plain
        && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        let inside = match (std::fs::canonicalize(&path), std::fs::canonicalize(dir)) {
            (Ok(target), Ok(root)) => target.starts_with(root),
            _ => false,
        };
        if !inside {
            return Err(Error::OutsideDatabase {
                location: Location::file(path),
                message: "a symbolic link to outside the database (or to nothing); not read".into(),
            });
        }
    }
    Ok(())
}

fn as_warning(e: Error, what: &str) -> Warning {
    match e.location() {
        Some(location) => Warning::new(location, format!("{}; {what}", e.message())),
        None => Warning::new(Location::file(""), format!("{e}; {what}")),
    }
}

/// Whether `name` is in `sorted` (names sorted as [`list_dir`] gives them).
fn is_listed(sorted: &[String], name: &str) -> bool {
    sorted.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
}

/// The directory's entry names, sorted, and those of them that are regular
/// files (the type the listing gives, without a `stat` per entry), sorted.
fn list_dir(dir: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let (mut names, mut plain) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        if let Some(n) = entry.file_name().to_str() {
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                plain.push(n.to_owned());
            }
            names.push(n.to_owned());
        }
    }
    names.sort();
    plain.sort();
    Ok((names, plain))
}

/// Parses a part's global header if the file exists.
fn open_global<H>(
    dir: &Path,
    part: Part,
    listing: &[String],
    plain: &impl Fn(&str) -> bool,
    warnings: &mut Vec<Warning>,
    parse: impl Fn(&str, &Path, &mut Vec<Warning>) -> Result<H>,
) -> Result<Option<H>> {
    let name = part.global_header();
    if !listing.iter().any(|n| n == name) {
        return Ok(None);
    }
    let path = dir.join(name);
    if let Err(e) = check_bare_name(dir, name, plain(name)) {
        warnings.push(as_warning(
            e,
            "the part is read as if it had no global header",
        ));
        return Ok(None);
    }
    let text = read_text(&path, warnings)?;
    parse(&text, &path, warnings).map(Some)
}

/// The per-file headers of `part`: the global header's `HeaderFile` list, or
/// — when the global header is missing — the files named by the naming rule.
fn per_file_headers(
    dir: &Path,
    part: Part,
    listed: Option<&[String]>,
    listing: &[String],
    plain: &impl Fn(&str) -> bool,
    warnings: &mut Vec<Warning>,
) -> Vec<PathBuf> {
    let Some(prefix) = part.file_header_prefix() else {
        return Vec::new();
    };
    let paths = match listed {
        Some(names) => {
            let present: std::collections::HashSet<&str> =
                listing.iter().map(String::as_str).collect();
            let mut missing = 0usize;
            let found: Vec<PathBuf> = names
                .iter()
                .filter(|n| {
                    let here = present.contains(n.as_str());
                    if !here {
                        missing += 1;
                        if missing <= MAX_MISSING_SHOWN {
                            warnings.push(Warning::new(
                                Location::file(dir.join(n)),
                                format!(
                                    "listed in {} but missing; its processes have no {}",
                                    part.global_header(),
                                    part.name()
                                ),
                            ));
                        }
                    }
                    here
                })
                .map(|n| dir.join(n))
                .collect();
            if missing > MAX_MISSING_SHOWN {
                warnings.push(Warning::new(
                    Location::file(dir.join(part.global_header())),
                    format!(
                        "{} more listed per-file headers are missing",
                        missing - MAX_MISSING_SHOWN
                    ),
                ));
            }
            found
        }
        None => {
            let mut found: Vec<(u64, &String)> = listing
                .iter()
                .filter_map(|n| file_number(n, prefix).map(|k| (k, n)))
                .collect();
            found.sort();
            if !found.is_empty() {
                warnings.push(Warning::new(
                    Location::file(dir.join(part.global_header())),
                    format!(
                        "missing; reading the {} per-file headers found by name",
                        found.len()
                    ),
                ));
            }
            found.into_iter().map(|(_, n)| dir.join(n)).collect()
        }
    };
    // Per-file headers that could read outside the database are dropped.
    paths
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            match check_bare_name(dir, name, plain(name)) {
                Ok(()) => true,
                Err(e) => {
                    warnings.push(as_warning(
                        e,
                        "its processes are read as if it were missing",
                    ));
                    false
                }
            }
        })
        .collect()
}

/// Missing per-file headers named one by one; the rest are counted.
const MAX_MISSING_SHOWN: usize = 10;

fn check_nprocs(
    base: &Option<BaseHeader>,
    trace: &Option<CallStatsHeader>,
    comm: &Option<CommHeader>,
    warnings: &mut Vec<Warning>,
) {
    let stated: Vec<(&Path, u64)> = [
        base.as_ref()
            .and_then(|h| h.nprocs.map(|n| (h.path.as_path(), n))),
        trace
            .as_ref()
            .and_then(|h| h.nprocs.map(|n| (h.path.as_path(), n))),
        comm.as_ref()
            .and_then(|h| h.nprocs.map(|n| (h.path.as_path(), n))),
    ]
    .into_iter()
    .flatten()
    .collect();
    if let Some(&(first_path, first)) = stated.first() {
        for &(path, n) in &stated[1..] {
            if n != first {
                warnings.push(Warning::new(
                    Location::file(path),
                    format!(
                        "NProcs {n} disagrees with NProcs {first} in {}",
                        first_path.display()
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files of `proc line` lines, each line a block; the extra of a
    /// process is the file's index.
    type Groups = Vec<(usize, Vec<(usize, usize)>, usize)>;

    fn grouped(texts: &[&str]) -> (Groups, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<PathBuf> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let p = dir.path().join(format!("h{i}"));
                std::fs::write(&p, t).unwrap();
                p
            })
            .collect();
        let (groups, warnings) = group_by_proc(
            &files,
            |text, path, _| {
                let file: usize = path.to_str().unwrap().rsplit('h').next().unwrap().parse().unwrap();
                let blocks: Vec<(usize, usize)> = numbered_lines(text)
                    .map(|(n, l)| (l.parse().unwrap(), n))
                    .collect();
                let extras = blocks.iter().map(|b| (b.0, file)).collect();
                (blocks, extras)
            },
            |b| *b,
        );
        let dir_text = dir.path().display().to_string();
        let warnings = warnings
            .iter()
            .map(|w| w.to_string().replace(&dir_text, "D"))
            .collect();
        let groups = groups
            .into_iter()
            .map(|(p, blocks, x)| (p, blocks.to_vec(), x))
            .collect();
        (groups, warnings)
    }

    use super::super::header::numbered_lines;

    /// The same database, warnings and comm index whether the index is
    /// built while opening or after, for databases whose headers warn
    /// (a comm header without NProcs builds its index after opening).
    #[test]
    fn opening_with_the_comm_index_changes_nothing() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let damaged = tempfile::tempdir().unwrap();
        for name in ["bl_comm_prof_H", "bl_comm_prof_H_00000", "bl_comm_prof_D_00000"] {
            let from = fixtures.join("small4/bl_prof").join(name);
            std::fs::copy(from, damaged.path().join(name)).unwrap();
        }
        std::fs::write(
            damaged.path().join("bl_prof_H"),
            "BLProfVersion 2\nNProcs 3\nBLProfProc 0 datafile x seekpos 0\n",
        )
        .unwrap();
        let no_nprocs = tempfile::tempdir().unwrap();
        let comm_header = std::fs::read_to_string(damaged.path().join("bl_comm_prof_H")).unwrap();
        let without: String = comm_header
            .lines()
            .filter(|l| !l.starts_with("NProcs"))
            .map(|l| format!("{l}\n"))
            .collect();
        for name in ["bl_comm_prof_H_00000", "bl_comm_prof_D_00000", "bl_prof_H"] {
            std::fs::copy(damaged.path().join(name), no_nprocs.path().join(name)).unwrap();
        }
        std::fs::write(no_nprocs.path().join("bl_comm_prof_H"), without).unwrap();
        let dirs = [
            fixtures.join("small4/bl_prof"),
            fixtures.join("host_nid/bl_prof"),
            damaged.path().to_path_buf(),
            no_nprocs.path().to_path_buf(),
        ];
        let seen = |db: &Database| {
            let index = db.comm_index();
            format!("{:?}\n{:?}", index.procs, index.warnings)
        };
        index_at_open_changes_nothing(&dirs, seen, |d: &Path| Database::open_for_comm(d));
    }

    /// Opening each of `dirs` with an index built (`open_indexed`) shows
    /// the same database as opening it plainly (`seen`: the index, beside
    /// the database's warnings and process count); the last two `dirs` are
    /// damaged (they warn). A directory that is no database fails alike.
    fn index_at_open_changes_nothing(
        dirs: &[PathBuf],
        seen: impl Fn(&Database) -> String,
        open_indexed: impl Fn(&Path) -> Result<Database>,
    ) {
        let seen = |db: &Database| format!("{:?}\n{:?}\n{}", db.warnings(), db.nprocs(), seen(db));
        for (i, dir) in dirs.iter().enumerate() {
            let apart = seen(&Database::open(dir).unwrap());
            let together = seen(&open_indexed(dir).unwrap());
            assert_eq!(apart, together, "{}", dir.display());
            if i >= 2 {
                assert!(apart.contains("Warning"), "{}: {apart}", dir.display());
            }
        }
        let not_a_database = tempfile::tempdir().unwrap();
        assert_eq!(
            open_indexed(not_a_database.path()).err().map(|e| e.to_string()),
            Database::open(not_a_database.path()).err().map(|e| e.to_string())
        );
    }

    #[test]
    fn opening_with_the_trace_index_changes_nothing() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        // Damaged: a base header that disagrees on NProcs, and a call-stats
        // header without NProcs (the index then waits for the base header's).
        let damaged = tempfile::tempdir().unwrap();
        let no_nprocs = tempfile::tempdir().unwrap();
        let small = fixtures.join("small4/bl_prof");
        for entry in std::fs::read_dir(&small).unwrap() {
            let name = entry.unwrap().file_name();
            if name.to_string_lossy().starts_with("bl_call_stats") {
                std::fs::copy(small.join(&name), damaged.path().join(&name)).unwrap();
                std::fs::copy(small.join(&name), no_nprocs.path().join(&name)).unwrap();
            }
        }
        let base = "BLProfVersion 2\nNProcs 3\nBLProfProc 0 datafile x seekpos 0\n";
        std::fs::write(damaged.path().join("bl_prof_H"), base).unwrap();
        std::fs::write(no_nprocs.path().join("bl_prof_H"), base).unwrap();
        let header = std::fs::read_to_string(small.join("bl_call_stats_H")).unwrap();
        let without: String = header
            .lines()
            .filter(|l| !l.starts_with("NProcs"))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(no_nprocs.path().join("bl_call_stats_H"), without).unwrap();
        let dirs = [
            small.clone(),
            fixtures.join("host_nid/bl_prof"),
            damaged.path().to_path_buf(),
            no_nprocs.path().to_path_buf(),
        ];
        let seen = |db: &Database| {
            let index = db.trace_index();
            format!("{:?}\n{:?}", index.procs, index.warnings)
        };
        index_at_open_changes_nothing(&dirs, seen, |d: &Path| Database::open_for_traces(d));
    }

    #[test]
    fn groups_in_process_order_with_blocks_in_file_order() {
        let (groups, warnings) = grouped(&["2\n0\n2\n", "5\n3\n"]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            groups,
            vec![
                (0, vec![(0, 2)], 0),
                (2, vec![(2, 1), (2, 3)], 0),
                (3, vec![(3, 2)], 1),
                (5, vec![(5, 1)], 1),
            ]
        );
    }

    /// Files whose ranges of processes do not rise in file order: the
    /// groups still come in process order.
    #[test]
    fn groups_in_process_order_from_files_out_of_order() {
        let (groups, warnings) = grouped(&["5\n6\n", "0\n", "3\n"]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            groups,
            vec![
                (0, vec![(0, 1)], 1),
                (3, vec![(3, 1)], 2),
                (5, vec![(5, 1)], 0),
                (6, vec![(6, 2)], 0),
            ]
        );
    }

    /// A process seen in an earlier file keeps that file's blocks; each
    /// later block is a warning, after its file's other warnings.
    #[test]
    fn a_process_in_a_second_file_keeps_the_first() {
        let (groups, warnings) = grouped(&["1\n", "4\n1\n1\n", "1\n"]);
        assert_eq!(groups, vec![(1, vec![(1, 1)], 0), (4, vec![(4, 1)], 1)]);
        let said = "process 1 already has blocks in D/h0; block ignored";
        assert_eq!(
            warnings,
            vec![
                format!("D/h1:2: {said}"),
                format!("D/h1:3: {said}"),
                format!("D/h2:1: {said}"),
            ]
        );
    }
}
