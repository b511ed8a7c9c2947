//! The opening scan: one pass over the file that builds the per-process
//! block index and checks the invariants of TLOG_FORMAT.md §3.
//!
//! The file is cut into chunks of whole blocks scanned in parallel; the
//! checks that span chunks (rank order between blocks, times going back
//! within a process) are finished when the chunks are merged in file order,
//! so the index and the warnings are the same for any thread count.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{BLOCK, EventKind, ProcIndex, RECORD, Record, read_window};
use crate::error::{Location, Warning};
use crate::source::InputFile;

/// At most this many located problems are listed, then a count.
pub const MAX_ISSUES: usize = 20;

/// Blocks per parallel chunk (1 MiB).
const CHUNK_BLOCKS: usize = 1024;

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

pub fn scan(file: &InputFile, reader: Option<&std::fs::File>) -> Scanned {
    let nblocks = (file.len() as usize).div_ceil(BLOCK);
    let chunks: Vec<Chunk> = (0..nblocks.div_ceil(CHUNK_BLOCKS))
        .into_par_iter()
        .map_init(Vec::new, |buf, c| {
            let first = c * CHUNK_BLOCKS;
            let bytes = read_window(file, reader, first, CHUNK_BLOCKS, buf);
            scan_chunk(first, bytes)
        })
        .collect();
    merge(file.path(), chunks)
}

fn scan_chunk(first_block: usize, bytes: &[u8]) -> Chunk {
    let mut chunk = Chunk::default();
    // Blocks hold one process each, so the lookup is nearly always `current`.
    let mut slots: FxHashMap<u16, usize> = FxHashMap::default();
    let mut current: Option<(u16, usize)> = None;
    let mut prev_block_proc: Option<u16> = None;
    for (wi, block) in bytes.chunks(BLOCK).enumerate() {
        let bi = first_block + wi;
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

fn rank_backwards(block: usize, proc: u16, prev: u16) -> String {
    format!(
        "block {block} of process {proc} follows a block of process {prev}: rank order goes backwards"
    )
}

fn time_back(proc: u16, time: f64, prev: f64) -> String {
    format!("process {proc}: time {time} goes back from {prev}")
}

/// Joins the chunks in file order and finishes the checks across chunks.
fn merge(path: &Path, chunks: Vec<Chunk>) -> Scanned {
    let mut procs: BTreeMap<u16, ProcIndex> = BTreeMap::new();
    let mut last_time: FxHashMap<u16, f64> = FxHashMap::default();
    let mut prev_block_proc: Option<u16> = None;
    let mut issues: Vec<Issue> = Vec::new();
    let mut count = 0;
    for chunk in chunks {
        if let (Some((p, off, bi)), Some(prev)) = (chunk.first_block, prev_block_proc)
            && p < prev
        {
            issues.push(Issue {
                offset: off,
                message: rank_backwards(bi, p, prev),
            });
            count += 1;
        }
        for cp in chunk.procs {
            if let (Some((t, off)), Some(&prev)) = (cp.first_time, last_time.get(&cp.proc))
                && t < prev
            {
                issues.push(Issue {
                    offset: off,
                    message: time_back(cp.proc, t, prev),
                });
                count += 1;
            }
            if let Some(t) = cp.last_time {
                last_time.insert(cp.proc, t);
            }
            let index = procs.entry(cp.proc).or_default();
            index.blocks.extend_from_slice(&cp.index.blocks);
            index.events += cp.index.events;
        }
        if chunk.last_block_proc.is_some() {
            prev_block_proc = chunk.last_block_proc;
        }
        count += chunk.count;
        issues.extend(chunk.issues);
        // Only the first MAX_ISSUES in file order are listed; the chunks come
        // in order, so trimming as we go keeps memory bounded.
        if issues.len() > 4 * MAX_ISSUES {
            issues.sort_by_key(|i| i.offset);
            issues.truncate(MAX_ISSUES);
        }
    }
    issues.sort_by_key(|i| i.offset);
    issues.truncate(MAX_ISSUES);
    Scanned {
        procs,
        issues: issues
            .into_iter()
            .map(|i| Warning::new(Location::offset(path, i.offset as u64), i.message))
            .collect(),
        count,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::file;
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
