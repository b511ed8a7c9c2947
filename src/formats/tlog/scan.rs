//! The opening scan: one pass over the file that builds the per-process
//! block index and checks the invariants of TLOG_FORMAT.md §3.
//!
//! The file is cut into chunks of whole blocks scanned in parallel; the
//! checks that span chunks (rank order between blocks, times going back
//! within a process) are finished when the chunks are merged in file order,
//! so the index and the warnings are the same for any thread count.

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::FxHashMap;

use super::{BLOCK, EventKind, ProcIndex, RECORD, Record, read_window};
use crate::error::{Location, Warning};
use crate::progress::Progress;
use crate::source::InputFile;

/// At most this many located problems are listed, then a count.
pub const MAX_ISSUES: usize = 20;

/// Blocks per parallel chunk (1 MiB). Unit tests cut chunks small, so that
/// what spans chunks is everywhere in their small files.
const CHUNK_BLOCKS: usize = if cfg!(test) { 4 } else { 1024 };

/// A located problem.
struct Issue {
    offset: usize,
    message: String,
}

/// One process's records within a chunk.
struct ChunkProc {
    proc: u16,
    index: ProcIndex,
    /// The first finite time and its offset (checked against the previous
    /// chunks at the merge).
    first_time: Option<(f64, usize)>,
    last_time: Option<f64>,
}

/// What one chunk found.
#[derive(Default)]
struct Chunk {
    procs: Vec<ChunkProc>,
    /// The first [`MAX_ISSUES`] problems found inside the chunk.
    issues: Vec<Issue>,
    /// All problems found inside the chunk.
    count: usize,
    /// The process of the first block with events, and that event's offset.
    first_block: Option<(u16, usize, usize)>,
    /// The process of the last block with events.
    last_block_proc: Option<u16>,
}

impl Chunk {
    fn issue(&mut self, offset: usize, message: String) {
        self.count += 1;
        if self.issues.len() < MAX_ISSUES {
            self.issues.push(Issue { offset, message });
        }
    }
}

/// The result of the scan.
pub struct Scanned {
    pub procs: BTreeMap<u16, ProcIndex>,
    /// Located problems in file order, at most [`MAX_ISSUES`].
    pub issues: Vec<Warning>,
    /// All problems, listed or not.
    pub count: usize,
}

/// Sees every block of a chunk as the scan goes, so a report can be
/// computed in the same pass (`tlog summary`). One visitor per chunk; the
/// visitors reach the caller in file order.
pub trait BlockVisitor: Default + Send {
    /// Block number `block`, and whether it is clean: exactly what
    /// [`clean_block`] says (a visitor that reads every record anyway may
    /// find it out in the same loop).
    fn block(&mut self, block: usize, bytes: &[u8]) -> Option<CleanBlock>;
    /// A block the scan checks record by record (only in tests: see
    /// `scan_chunk`'s `fast`).
    fn damaged(&mut self, block: usize, bytes: &[u8]);
    /// The chunk is done.
    fn finish(&mut self) {}
}

/// The plain scan visits nothing.
impl BlockVisitor for () {
    fn block(&mut self, _: usize, bytes: &[u8]) -> Option<CleanBlock> {
        clean_block(bytes)
    }
    fn damaged(&mut self, _: usize, _: &[u8]) {}
}

/// Chunks in flight at once per thread: the visitors of one batch are
/// handed on before the next batch is read, so their memory stays bounded on
/// any file.
const BATCH_CHUNKS_PER_THREAD: usize = if cfg!(test) { 2 } else { 16 };

thread_local! {
    /// Each thread's chunk buffer, kept across chunks, batches and scans:
    /// `map_init` gave every split of a batch a fresh one, and zeroing and
    /// faulting in a fresh megabyte for every other chunk cost a tenth of
    /// `tlog summary`.
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's read buffer (a fresh one should `f` ever
/// run inside another `f` on the same thread).
pub(super) fn with_read_buffer<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    READ_BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => f(&mut buf),
        Err(_) => f(&mut Vec::new()),
    })
}

/// Frees every thread's read buffer (some megabytes with two threads): for
/// a caller done reading that goes on to hold much else (`tlog tree` prints
/// a big tree). The next read makes a fresh one.
pub fn free_read_buffers() {
    let free = || {
        READ_BUFFER.with(|cell| {
            if let Ok(mut buf) = cell.try_borrow_mut() {
                *buf = Vec::new();
            }
        })
    };
    rayon::broadcast(|_| free());
    free();
}

/// Scans the file, handing each chunk's visitor to `on_chunk` in file order
/// and advancing `progress` by the blocks of each chunk.
pub fn scan<V: BlockVisitor>(
    file: &InputFile,
    reader: Option<&std::fs::File>,
    progress: &Progress,
    mut on_chunk: impl FnMut(V),
) -> Scanned {
    let nblocks = (file.len() as usize).div_ceil(BLOCK);
    let nchunks = nblocks.div_ceil(CHUNK_BLOCKS);
    let mut merge = Merge::default();
    crate::parallel::Ordered::per_thread(BATCH_CHUNKS_PER_THREAD).for_each(
        0..nchunks,
        |c| {
            with_read_buffer(|buf| {
                let first = c * CHUNK_BLOCKS;
                let bytes = read_window(file, reader, first, CHUNK_BLOCKS, buf);
                let mut visitor = V::default();
                let chunk = scan_chunk(first, bytes, true, &mut visitor);
                visitor.finish();
                progress.advance(bytes.len().div_ceil(BLOCK) as u64);
                (chunk, visitor)
            })
        },
        |(chunk, visitor)| {
            merge.push(chunk);
            on_chunk(visitor);
        },
    );
    merge.finish(file.path())
}

/// `fast`: take clean blocks whole (off only to test that it changes nothing).
fn scan_chunk(
    first_block: usize,
    bytes: &[u8],
    fast: bool,
    visitor: &mut impl BlockVisitor,
) -> Chunk {
    let mut chunk = Chunk::default();
    // Blocks hold one process each, so the lookup is nearly always `current`.
    let mut slots: FxHashMap<u16, usize> = FxHashMap::default();
    let mut current: Option<(u16, usize)> = None;
    let mut prev_block_proc: Option<u16> = None;
    for (wi, block) in bytes.chunks(BLOCK).enumerate() {
        let bi = first_block + wi;
        // Nearly every block is clean: check it whole, record it at once.
        let clean = if fast {
            visitor.block(bi, block)
        } else {
            visitor.damaged(bi, block);
            None
        };
        if let Some(fast) = clean {
            let rank_ok = prev_block_proc.is_none_or(|prev| fast.proc >= prev);
            let slot = match current {
                Some((p, s)) if p == fast.proc => Some(s),
                _ => slots.get(&fast.proc).copied(),
            };
            let time_ok = slot
                .and_then(|s| chunk.procs[s].last_time)
                .is_none_or(|t| fast.first_time >= t);
            if rank_ok && time_ok {
                let off = bi * BLOCK;
                if prev_block_proc.is_none() {
                    chunk.first_block = Some((fast.proc, off, bi));
                }
                let s = slot.unwrap_or_else(|| {
                    slots.insert(fast.proc, chunk.procs.len());
                    chunk.procs.push(ChunkProc {
                        proc: fast.proc,
                        index: ProcIndex::default(),
                        first_time: None,
                        last_time: None,
                    });
                    chunk.procs.len() - 1
                });
                current = Some((fast.proc, s));
                let cp = &mut chunk.procs[s];
                if cp.last_time.is_none() {
                    cp.first_time = Some((fast.first_time, off));
                }
                cp.last_time = Some(fast.last_time);
                cp.index.blocks.push(bi as u32);
                cp.index.events += fast.events;
                prev_block_proc = Some(fast.proc);
                continue;
            }
        }
        let mut block_proc: Option<u16> = None;
        let mut padding_seen = false;
        for (ri, raw) in block.chunks_exact(RECORD).enumerate() {
            let off = bi * BLOCK + ri * RECORD;
            let r = Record::decode(raw);
            if r.is_padding() {
                if raw.iter().any(|&b| b != 0) {
                    chunk.issue(
                        off,
                        "padding record (type 0) with non-zero fields; skipped".into(),
                    );
                }
                padding_seen = true;
                continue;
            }
            if padding_seen {
                chunk.issue(
                    off,
                    format!("event of process {} after padding in block {bi}", r.proc),
                );
            }
            match block_proc {
                None => {
                    block_proc = Some(r.proc);
                    match prev_block_proc {
                        None => chunk.first_block = Some((r.proc, off, bi)),
                        Some(p) if r.proc < p => chunk.issue(off, rank_backwards(bi, r.proc, p)),
                        Some(_) => {}
                    }
                }
                Some(p) if p != r.proc => chunk.issue(
                    off,
                    format!(
                        "block {bi} mixes processes {p} and {} (the writer never does)",
                        r.proc
                    ),
                ),
                _ => {}
            }
            if let EventKind::Unknown(k) = EventKind::of(r.kind) {
                chunk.issue(off, format!("process {}: undefined event type {k}", r.proc));
            }
            if r.arg1 != 0 {
                chunk.issue(
                    off,
                    format!("process {}: thread id (arg1) {} is not 0", r.proc, r.arg1),
                );
            }
            let slot = match current {
                Some((p, s)) if p == r.proc => s,
                _ => {
                    let n = chunk.procs.len();
                    let s = *slots.entry(r.proc).or_insert(n);
                    if s == n {
                        chunk.procs.push(ChunkProc {
                            proc: r.proc,
                            index: ProcIndex::default(),
                            first_time: None,
                            last_time: None,
                        });
                    }
                    current = Some((r.proc, s));
                    s
                }
            };
            let cp = &mut chunk.procs[slot];
            if !r.time.is_finite() {
                let msg = format!("process {}: time {} is not finite", r.proc, r.time);
                chunk.issue(off, msg);
            } else {
                match cp.last_time {
                    None => cp.first_time = Some((r.time, off)),
                    Some(t) if r.time < t => {
                        let msg = time_back(r.proc, r.time, t);
                        chunk.issue(off, msg);
                    }
                    Some(_) => {}
                }
                chunk.procs[slot].last_time = Some(r.time);
            }
            let index = &mut chunk.procs[slot].index;
            if index.blocks.last() != Some(&(bi as u32)) {
                index.blocks.push(bi as u32);
            }
            index.events += 1;
        }
        if block_proc.is_some() {
            prev_block_proc = block_proc;
        }
    }
    chunk.last_block_proc = prev_block_proc;
    chunk
}

/// A block without any problem: events of one process, known types, thread
/// id 0, finite times that never go back, then only all-zero padding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CleanBlock {
    pub proc: u16,
    pub events: u64,
    pub first_time: f64,
    pub last_time: f64,
}

/// Event types the format defines (TLOG_FORMAT.md §2).
const KNOWN_KINDS: [bool; 256] = {
    let mut known = [false; 256];
    let mut k = 0;
    while k < 256 {
        known[k] = !matches!(EventKind::of(k as u8 as i8), EventKind::Unknown(_));
        k += 1;
    }
    known
};

/// `Some` when `block` is clean (see [`CleanBlock`]); `None` sends it to
/// the record-by-record checks, which say what is wrong.
#[inline]
pub fn clean_block(block: &[u8]) -> Option<CleanBlock> {
    let records = block.len() / RECORD;
    let events = block
        .chunks_exact(RECORD)
        .position(|r| r[2] == 0)
        .unwrap_or(records);
    if events == 0 || block[events * RECORD..].iter().any(|&b| b != 0) {
        return None;
    }
    let proc = [block[0], block[1]];
    let first_time = Record::decode(&block[..RECORD]).time;
    let mut prev = first_time;
    // No early exit: a branch-free loop over a clean block is the fast one.
    let mut ok = first_time.is_finite();
    for r in block[..events * RECORD].chunks_exact(RECORD) {
        let t = Record::time_of(r);
        ok &= r[0] == proc[0]
            && r[1] == proc[1]
            && KNOWN_KINDS[r[2] as usize]
            && r[3] == 0
            && t >= prev
            && t.is_finite();
        prev = t;
    }
    ok.then_some(CleanBlock {
        proc: u16::from_be_bytes(proc),
        events: events as u64,
        first_time,
        last_time: prev,
    })
}

fn rank_backwards(block: usize, proc: u16, prev: u16) -> String {
    format!(
        "block {block} of process {proc} follows a block of process {prev}: rank order goes backwards"
    )
}

fn time_back(proc: u16, time: f64, prev: f64) -> String {
    format!("process {proc}: time {time} goes back from {prev}")
}

/// Joins the chunks in file order and finishes the checks across chunks.
#[derive(Default)]
struct Merge {
    procs: BTreeMap<u16, ProcIndex>,
    last_time: FxHashMap<u16, f64>,
    prev_block_proc: Option<u16>,
    issues: Vec<Issue>,
    count: usize,
}

impl Merge {
    fn push(&mut self, chunk: Chunk) {
        if let (Some((p, off, bi)), Some(prev)) = (chunk.first_block, self.prev_block_proc)
            && p < prev
        {
            self.issues.push(Issue {
                offset: off,
                message: rank_backwards(bi, p, prev),
            });
            self.count += 1;
        }
        for cp in chunk.procs {
            if let (Some((t, off)), Some(&prev)) = (cp.first_time, self.last_time.get(&cp.proc))
                && t < prev
            {
                self.issues.push(Issue {
                    offset: off,
                    message: time_back(cp.proc, t, prev),
                });
                self.count += 1;
            }
            if let Some(t) = cp.last_time {
                self.last_time.insert(cp.proc, t);
            }
            let index = self.procs.entry(cp.proc).or_default();
            index.blocks.extend_from_slice(&cp.index.blocks);
            index.events += cp.index.events;
        }
        if chunk.last_block_proc.is_some() {
            self.prev_block_proc = chunk.last_block_proc;
        }
        self.count += chunk.count;
        self.issues.extend(chunk.issues);
        // Only the first MAX_ISSUES in file order are listed; the chunks come
        // in order, so trimming as we go keeps memory bounded.
        if self.issues.len() > 4 * MAX_ISSUES {
            self.issues.sort_by_key(|i| i.offset);
            self.issues.truncate(MAX_ISSUES);
        }
    }

    fn finish(mut self, path: &Path) -> Scanned {
        self.issues.sort_by_key(|i| i.offset);
        self.issues.truncate(MAX_ISSUES);
        Scanned {
            procs: self.procs,
            issues: self
                .issues
                .into_iter()
                .map(|i| Warning::new(Location::offset(path, i.offset as u64), i.message))
                .collect(),
            count: self.count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{file, record};
    use super::{Chunk, scan_chunk};

    /// Everything a chunk's scan found, comparable.
    fn digest(c: &Chunk) -> String {
        let procs: Vec<_> = c
            .procs
            .iter()
            .map(|p| {
                (
                    p.proc,
                    p.index.blocks.clone(),
                    p.index.events,
                    p.first_time.map(|(t, o)| (t.to_bits(), o)),
                    p.last_time.map(f64::to_bits),
                )
            })
            .collect();
        let issues: Vec<_> = c.issues.iter().map(|i| (i.offset, &i.message)).collect();
        format!(
            "{procs:?} {issues:?} {} {:?} {:?}",
            c.count, c.first_block, c.last_block_proc
        )
    }

    /// Taking clean blocks whole finds exactly what the record-by-record
    /// checks find, on files with every kind of damage here and there.
    #[test]
    fn clean_block_path_changes_nothing() {
        let mut rng = crate::test_rng::Xorshift::new(0x9e37_79b9_7f4a_7c15u64);
        let mut next = move |n: u64| rng.below(n);
        for _ in 0..300 {
            let mut bytes = Vec::new();
            let nblocks = 1 + next(12) as usize;
            let mut proc = next(3) as u16;
            let mut time = 0.0;
            for _ in 0..nblocks {
                if next(3) == 0 {
                    proc = (proc + next(3) as u16).saturating_sub(1);
                }
                let events = 1 + next(64) as usize;
                for i in 0..64 {
                    let mut r = if i < events {
                        time += next(4) as f64;
                        record(proc, [1, 2, 10, 11, 31][next(5) as usize], 0, time)
                    } else {
                        [0u8; 16]
                    };
                    // Damage, rarely: any byte of any record.
                    if next(150) == 0 {
                        r[next(16) as usize] = next(256) as u8;
                    }
                    bytes.extend_from_slice(&r);
                }
            }
            let fast = scan_chunk(7, &bytes, true, &mut ());
            let slow = scan_chunk(7, &bytes, false, &mut ());
            assert_eq!(digest(&fast), digest(&slow));
        }
        // And a clean file takes the fast path without a word.
        let clean = file(&[vec![(1, 0.0), (10, 1.0), (11, 2.0)], vec![(31, 5.0)]]);
        assert_eq!(scan_chunk(0, &clean, true, &mut ()).count, 0);
    }

    use super::super::{BLOCK, TlogFile};
    use crate::source::InputFile;

    /// Problems that straddle two chunks are found at the merge, in file
    /// order, exactly as within a chunk.
    #[test]
    fn checks_across_chunk_boundaries() {
        // Process 1 fills the first chunk and one more block; process 0 then
        // starts a block (rank order backwards, at the chunk boundary + 1),
        // and process 1's time goes back at the start of the second chunk.
        let n = super::CHUNK_BLOCKS * 64;
        let mut events: Vec<(i8, f64)> = (0..n).map(|i| (31, i as f64)).collect();
        events.push((31, 1.0)); // first record of the second chunk
        let mut bytes = file(&[Vec::new(), events]);
        bytes.extend_from_slice(&file(&[vec![(31, 0.0)]]));
        let t = TlogFile::from_input(InputFile::from_bytes("f", bytes)).unwrap();
        let w: Vec<String> = t.warnings().iter().map(|w| w.to_string()).collect();
        let boundary = super::CHUNK_BLOCKS * BLOCK;
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains(&format!("{boundary}")), "{w:?}");
        assert!(w[0].contains("goes back from"), "{w:?}");
        assert!(w[1].contains("rank order goes backwards"), "{w:?}");
        assert_eq!(t.events_of(1), n as u64 + 1);
        assert_eq!(t.events_of(0), 1);
    }
}
