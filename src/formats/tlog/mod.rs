//! Omni compiler libtlog trace files (TLOG_FORMAT.md): 1024-byte blocks of
//! 64 big-endian 16-byte records, decoded on the fly from a memory map.
//!
//! Opening scans the file once and keeps, per process, only the numbers of
//! the blocks that hold its records (4 bytes per 1 KiB block), so the file is
//! never copied and there is no per-process limit. Everything suspicious is
//! reported with its byte offset, block and process; nothing is dropped
//! silently.

mod scan;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Location, Result, Warning};
use crate::progress::Progress;
use crate::source::InputFile;

pub const BLOCK: usize = 1024;
pub const RECORD: usize = 16;
pub const RECORDS_PER_BLOCK: usize = BLOCK / RECORD;

/// One event record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// MPI rank of the writer (unsigned; Java's dump prints it signed).
    pub proc: u16,
    /// Event type (`log_type`): 1 START, 2 END, 10..27 IN/OUT pairs, 31..39 single events.
    pub kind: i8,
    /// Thread id (always 0 from the MPI writer).
    pub arg1: i8,
    pub arg2: i32,
    /// Seconds since `tlog_initialize` on that rank.
    pub time: f64,
}

impl Record {
    /// Decodes 16 bytes (all multi-byte fields big-endian).
    #[inline]
    pub fn decode(b: &[u8]) -> Record {
        Record {
            proc: Record::proc_of(b),
            kind: b[2] as i8,
            arg1: b[3] as i8,
            arg2: i32::from_be_bytes([b[4], b[5], b[6], b[7]]),
            time: Record::time_of(b),
        }
    }

    /// The process field of a record's bytes alone (bytes 0..2), for loops
    /// that need no other field.
    #[inline(always)]
    pub fn proc_of(b: &[u8]) -> u16 {
        u16::from_be_bytes([b[0], b[1]])
    }

    /// The time field of a record's bytes alone (bytes 8..16).
    #[inline(always)]
    pub fn time_of(b: &[u8]) -> f64 {
        f64::from_be_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]])
    }

    pub fn is_padding(&self) -> bool {
        self.kind == 0
    }
}

/// What an event type means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Start,
    End,
    /// Start of interval pair `k` (1..=9).
    In(u8),
    /// End of interval pair `k`.
    Out(u8),
    /// Instant event `k` (1..=9).
    Single(u8),
    /// Anything the library never writes.
    Unknown(i8),
}

impl EventKind {
    pub const fn of(kind: i8) -> EventKind {
        match kind {
            1 => EventKind::Start,
            2 => EventKind::End,
            10..=27 => {
                let k = ((kind - 10) / 2 + 1) as u8;
                if kind % 2 == 0 {
                    EventKind::In(k)
                } else {
                    EventKind::Out(k)
                }
            }
            31..=39 => EventKind::Single((kind - 30) as u8),
            other => EventKind::Unknown(other),
        }
    }
}

/// A process's records: the blocks that hold them and their number.
#[derive(Debug, Clone, Default)]
pub struct ProcIndex {
    /// Block numbers in file order (each once).
    pub blocks: Vec<u32>,
    pub events: u64,
}

/// An opened tlog file.
pub struct TlogFile {
    file: InputFile,
    /// For streaming reads (`pread` into small buffers) that leave the map
    /// untouched, so resident memory stays small on big files. `None` for
    /// in-memory inputs.
    reader: Option<std::fs::File>,
    procs: BTreeMap<u16, ProcIndex>,
    warnings: Vec<Warning>,
    /// Records in complete 16-byte units (the trailing partial record excluded).
    records: usize,
    progress: Progress,
}

use scan::MAX_ISSUES;
pub use scan::{BlockVisitor, CleanBlock, clean_block, free_read_buffers};

/// The writer gathers every rank's blocks, from rank 0 up: a rank below the
/// largest one present without a single record (every rank logs at least
/// its start) means blocks were lost, or the file is not one run's.
fn missing_ranks(path: &Path, present: impl Iterator<Item = u16>) -> Option<Warning> {
    let mut missing = Vec::new();
    let mut next = 0usize;
    for p in present {
        missing.extend(next..usize::from(p));
        next = usize::from(p) + 1;
    }
    if missing.is_empty() {
        return None;
    }
    Some(Warning::new(
        Location::file(path),
        format!(
            "no records of process(es) {} below the largest process {}: ranks are written from 0 with no gaps, so blocks are missing",
            crate::model::procs::process_list(&missing, 8),
            next - 1
        ),
    ))
}

impl TlogFile {
    /// Opens and checks `path` (see [`TlogFile::from_input`]).
    pub fn open(path: impl AsRef<Path>) -> Result<TlogFile> {
        TlogFile::open_visiting(path, &Progress::none(), |()| {})
    }

    /// Opens `path` and shows every block to a [`BlockVisitor`] in the same
    /// pass: one visitor per chunk of the file, handed to `on_chunk` in file
    /// order. `progress` advances by the blocks scanned.
    pub(crate) fn open_visiting<V: BlockVisitor>(
        path: impl AsRef<Path>,
        progress: &Progress,
        on_chunk: impl FnMut(V),
    ) -> Result<TlogFile> {
        let path = path.as_ref();
        // Opened first: a FIFO or device is refused here, never waited on.
        let input = InputFile::open(path)?;
        let reader = crate::source::open_file(path).ok().map(|(f, _)| f);
        TlogFile::scan(input, reader, progress, on_chunk)
    }

    /// Scans the file once: builds the per-process index and collects
    /// warnings for every broken invariant of TLOG_FORMAT.md §3 (truncation,
    /// mixed or backwards ranks, padding before events, unknown types,
    /// non-zero thread ids, bad or decreasing times).
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn from_input(file: InputFile) -> Result<TlogFile> {
        TlogFile::scan(file, None, &Progress::none(), |()| {})
    }

    /// [`Self::from_input`] with a visitor (see [`Self::open_visiting`]).
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn from_input_visiting<V: BlockVisitor>(
        file: InputFile,
        on_chunk: impl FnMut(V),
    ) -> Result<TlogFile> {
        TlogFile::scan(file, None, &Progress::none(), on_chunk)
    }

    fn scan<V: BlockVisitor>(
        file: InputFile,
        reader: Option<std::fs::File>,
        progress: &Progress,
        on_chunk: impl FnMut(V),
    ) -> Result<TlogFile> {
        let path = file.path().to_path_buf();
        let mut warnings = Vec::new();
        let len = file.len() as usize;
        if len == 0 {
            return Err(Error::invalid(
                Location::file(&path),
                "empty file (0 bytes), no tlog records",
            ));
        }
        if !len.is_multiple_of(BLOCK) {
            let last = len / BLOCK * BLOCK;
            let stray = len % RECORD;
            let mut msg = format!(
                "file length {len} is not a multiple of the {BLOCK}-byte block size; last block at offset {last} is short ({} bytes)",
                len - last
            );
            if stray > 0 {
                msg.push_str(&format!(
                    "; trailing {stray} bytes at offset {} do not form a whole {RECORD}-byte record and were not decoded",
                    len - stray
                ));
            }
            warnings.push(Warning::new(Location::offset(&path, last as u64), msg));
        }
        let records = len / RECORD;
        let scanned = scan::scan(&file, reader.as_ref(), progress, on_chunk);
        let procs = scanned.procs;
        warnings.extend(scanned.issues);
        if scanned.count > MAX_ISSUES {
            warnings.push(Warning::new(
                Location::file(&path),
                format!("{} more problems not listed", scanned.count - MAX_ISSUES),
            ));
        }
        if procs.is_empty() {
            warnings.push(Warning::new(
                Location::file(&path),
                "no events: every record is padding",
            ));
        }
        if let Some(w) = missing_ranks(&path, procs.keys().copied()) {
            warnings.push(w);
        }
        Ok(TlogFile {
            file,
            reader,
            procs,
            warnings,
            records,
            progress: Progress::none(),
        })
    }

    /// Watches the reads: the hook advances by the number of blocks each
    /// read of the dumps, the summary and the tree covers ([`Self::iter`]
    /// does not advance it; the opening scan advances the hook given to
    /// `open_visiting`).
    pub fn set_progress(&mut self, progress: Progress) {
        self.progress = progress;
    }

    /// The trace file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Problems found while opening (empty for a valid file).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// True when the data does not look like a trace at all (most records
    /// broken): reports then refuse unless asked for a raw dump.
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn looks_like_garbage(&self) -> bool {
        let mixed_or_unknown = self.warnings.len() >= MAX_ISSUES;
        let max_proc = self.procs.keys().next_back().copied().unwrap_or(0) as usize;
        mixed_or_unknown && (max_proc > 4 * self.procs.len() || self.procs.len() > self.records / 2)
    }

    /// Process ids present, ascending.
    pub fn procs(&self) -> impl Iterator<Item = u16> + '_ {
        self.procs.keys().copied()
    }

    /// Number of processes inferred from the data: 1 + the largest id.
    pub fn nprocs(&self) -> usize {
        self.procs.keys().next_back().map_or(0, |&p| p as usize + 1)
    }

    /// Events of process `p` (0 for an absent process).
    pub fn events_of(&self, p: u16) -> u64 {
        self.procs.get(&p).map_or(0, |x| x.events)
    }

    /// Events of all processes.
    pub fn total_events(&self) -> u64 {
        self.procs.values().map(|p| p.events).sum()
    }

    /// The file's bytes (for parallel readers that split by block).
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn bytes(&self) -> &[u8] {
        self.file.bytes()
    }

    /// Numbers of the blocks holding records of `p`, in file order.
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn proc_blocks(&self, p: u16) -> &[u32] {
        self.procs.get(&p).map_or(&[], |x| &x.blocks)
    }

    /// Blocks read to visit every process's events, one process after
    /// another (a block shared by two processes counts for each): the unit
    /// of progress of per-process passes.
    pub(crate) fn process_blocks(&self) -> u64 {
        self.procs.values().map(|x| x.blocks.len() as u64).sum()
    }

    /// Number of blocks, a short last block included.
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn blocks(&self) -> usize {
        self.file.bytes().len().div_ceil(BLOCK)
    }

    /// Blocks `first..first + n` into `buf` through the file handle (or a
    /// slice of the map for in-memory inputs).
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn read_blocks<'a>(&'a self, first: usize, n: usize, buf: &'a mut Vec<u8>) -> &'a [u8] {
        self.progress.advance(n as u64);
        read_window(&self.file, self.reader.as_ref(), first, n, buf)
    }

    /// The event records of block `b` (all processes), with byte offsets.
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn block_events(&self, b: usize) -> impl Iterator<Item = (usize, Record)> + '_ {
        let bytes = self.file.bytes();
        let start = (b * BLOCK).min(bytes.len());
        let end = (start + BLOCK).min(bytes.len());
        bytes[start..end]
            .chunks_exact(RECORD)
            .enumerate()
            .map(move |(i, raw)| (start + i * RECORD, Record::decode(raw)))
            .filter(|(_, r)| !r.is_padding())
    }

    /// Every event in file order with its byte offset.
    pub fn iter(&self) -> impl Iterator<Item = (usize, Record)> + '_ {
        self.file
            .bytes()
            .chunks_exact(RECORD)
            .enumerate()
            .map(|(i, b)| (i * RECORD, Record::decode(b)))
            .filter(|(_, r)| !r.is_padding())
    }

    /// Events of process `p` in file order, with byte offsets.
    pub fn proc_events(&self, p: u16) -> impl Iterator<Item = (usize, Record)> + '_ {
        let bytes = self.file.bytes();
        let blocks: &[u32] = self.procs.get(&p).map_or(&[], |x| &x.blocks);
        blocks.iter().flat_map(move |&b| {
            let start = b as usize * BLOCK;
            let end = (start + BLOCK).min(bytes.len());
            bytes[start..end]
                .chunks_exact(RECORD)
                .enumerate()
                .map(move |(i, raw)| (start + i * RECORD, Record::decode(raw)))
                .filter(move |(_, r)| !r.is_padding() && r.proc == p)
        })
    }

    /// Calls `f(offset, record)` for every event of process `p` in file
    /// order, reading runs of its blocks with `pread` into the thread's
    /// buffer of the opening scan (resident memory stays at one run per
    /// thread, whatever the file size).
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn for_each_proc_event(&self, p: u16, f: impl FnMut(usize, &Record)) {
        scan::with_read_buffer(|buf| self.for_each_proc_event_in(p, buf, f));
    }

    /// [`Self::for_each_proc_event`] reading into `buf`.
    fn for_each_proc_event_in(&self, p: u16, buf: &mut Vec<u8>, mut f: impl FnMut(usize, &Record)) {
        let blocks = self.proc_blocks(p);
        let mut i = 0;
        while i < blocks.len() {
            let mut j = i + 1;
            // Runs of consecutive blocks, at most RUN_BLOCKS per read.
            while j < blocks.len() && blocks[j] == blocks[j - 1] + 1 && j - i < RUN_BLOCKS {
                j += 1;
            }
            let first = blocks[i] as usize;
            let bytes = self.read_blocks(first, j - i, buf);
            for (k, raw) in bytes.chunks_exact(RECORD).enumerate() {
                let r = Record::decode(raw);
                if !r.is_padding() && r.proc == p {
                    f(first * BLOCK + k * RECORD, &r);
                }
            }
            i = j;
        }
    }

    /// The `i`-th event of process `p` (the original API's access).
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn event(&self, p: u16, i: u64) -> Option<Record> {
        self.proc_events(p)
            .nth(usize::try_from(i).ok()?)
            .map(|(_, r)| r)
    }

    /// Checks a caller's process count (the C reader's `n_node`): the first
    /// record whose process is not below it is an error naming its offset.
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn check_nodes(&self, nodes: usize) -> Result<()> {
        if self.nprocs() <= nodes {
            return Ok(());
        }
        let (off, r) = self
            .iter()
            .find(|(_, r)| r.proc as usize >= nodes)
            .unwrap_or((0, Record::decode(&[0; 16])));
        Err(Error::invalid(
            Location::offset(self.path(), off as u64),
            format!(
                "record at offset {off:#x} (block {}) is from process {}, not below the given process count {nodes}",
                off / BLOCK,
                r.proc
            ),
        ))
    }
}

/// Most blocks of one process read at once (128 KiB): the buffer the
/// kernel copies into stays in the core's cache beside the tree being
/// built (1 MiB runs pushed both out).
const RUN_BLOCKS: usize = 128;

/// Blocks `first..first + n` of `file`: read with `pread` into `buf` when a
/// handle is given (the map stays untouched), else sliced from the map.
fn read_window<'a>(
    file: &'a InputFile,
    reader: Option<&std::fs::File>,
    first: usize,
    n: usize,
    buf: &'a mut Vec<u8>,
) -> &'a [u8] {
    let len = file.len() as usize;
    let start = (first * BLOCK).min(len);
    let end = ((first + n) * BLOCK).min(len);
    if let Some(fh) = reader {
        use std::os::unix::fs::FileExt;
        buf.resize(end - start, 0);
        if fh.read_exact_at(buf, start as u64).is_ok() {
            return &buf[..];
        }
    }
    &file.bytes()[start..end]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn record(proc: u16, kind: i8, arg2: i32, time: f64) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..2].copy_from_slice(&proc.to_be_bytes());
        b[2] = kind as u8;
        b[4..8].copy_from_slice(&arg2.to_be_bytes());
        b[8..16].copy_from_slice(&time.to_be_bytes());
        b
    }

    /// A file of whole blocks: each process's events, then padding.
    pub fn file(procs: &[Vec<(i8, f64)>]) -> Vec<u8> {
        let mut out = Vec::new();
        for (p, events) in procs.iter().enumerate() {
            let mut block = Vec::new();
            for &(k, t) in events {
                block.extend_from_slice(&record(p as u16, k, 0, t));
                if block.len() == BLOCK {
                    out.append(&mut block);
                }
            }
            if !block.is_empty() {
                block.resize(BLOCK, 0);
                out.append(&mut block);
            }
        }
        out
    }

    #[test]
    fn decodes_big_endian_fields() {
        // np4.log at 0x08B0: proc 1, type 20, arg2 -1, time 4.0006225.
        let b = [
            0x00, 0x01, 0x14, 0x00, 0xff, 0xff, 0xff, 0xff, 0x40, 0x10, 0x00, 0xa3, 0x2f, 0x44,
            0x91, 0x2a,
        ];
        let r = Record::decode(&b);
        assert_eq!((r.proc, r.kind, r.arg1, r.arg2), (1, 20, 0, -1));
        assert!((r.time - 4.0006225).abs() < 1e-9);
        assert_eq!(EventKind::of(20), EventKind::In(6));
        assert_eq!(EventKind::of(27), EventKind::Out(9));
        assert_eq!(EventKind::of(39), EventKind::Single(9));
        assert_eq!(EventKind::of(-128), EventKind::Unknown(-128));
    }

    #[test]
    fn per_process_access_without_copies() {
        let events: Vec<(i8, f64)> = (0..70).map(|i| (31, i as f64)).collect();
        let bytes = file(&[events.clone(), vec![(1, 0.5), (2, 0.7)]]);
        let t = TlogFile::from_input(InputFile::from_bytes("f", bytes)).unwrap();
        assert!(t.warnings().is_empty(), "{:?}", t.warnings());
        assert_eq!(t.nprocs(), 2);
        assert_eq!(t.events_of(0), 70);
        assert_eq!(t.event(0, 65).unwrap().time, 65.0);
        assert_eq!(t.event(1, 1).unwrap().kind, 2);
        assert!(t.event(1, 2).is_none());
        assert!(t.check_nodes(2).is_ok());
        let e = t.check_nodes(1).unwrap_err().to_string();
        assert!(e.contains("offset 0x800") && e.contains("process 1"), "{e}");
    }

    #[test]
    fn damage_is_located() {
        let mut bytes = file(&[vec![(1, 0.0), (10, 2.0), (11, 1.0)]]);
        bytes.truncate(1000);
        let t = TlogFile::from_input(InputFile::from_bytes("f", bytes)).unwrap();
        let w: Vec<String> = t.warnings().iter().map(|w| w.to_string()).collect();
        assert!(
            w.iter()
                .any(|m| m.contains("not a multiple") && m.contains("offset 992")),
            "{w:?}"
        );
        assert!(w.iter().any(|m| m.contains("goes back")), "{w:?}");
        assert_eq!(t.total_events(), 3);
        let e = TlogFile::from_input(InputFile::from_bytes("f", vec![]))
            .err()
            .unwrap();
        assert!(e.to_string().contains("empty file"));
    }
}
