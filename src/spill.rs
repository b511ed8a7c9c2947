//! Spill space: records filed under numbered buckets in anonymous temporary
//! files, for work whose data does not fit the memory a report may take
//! (the message pairing's partitions).
//!
//! The files (one per worker thread, up to [`MAX_FILES`]) are unlinked as
//! they are created (`tempfile::tempfile`), so nothing is left behind
//! whatever ends the run. Writers append whole chunks: each gets its own
//! range of its thread's file, so tasks write in parallel without holding a
//! lock while they write, nor waiting for each other's writes to one file
//! (a file's writes take its lock in the kernel). A bucket is read back
//! chunk by chunk; the order of its chunks is the order they were appended,
//! which parallel writers do not fix: readers must not depend on it.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// Whether `bytes` of spill fit where the temporary files go: refused when
/// they would take over half of the free space, or over 1 GiB of a file
/// system in memory (tmpfs), so that a spill never fills the disk the
/// outputs go to or takes the memory a bounded report promised.
pub fn check_room(bytes: u64) -> io::Result<()> {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    let dir = std::env::temp_dir();
    let fs = rustix::fs::statfs(&dir)?;
    let free = (fs.f_bavail as u64).saturating_mul(fs.f_bsize as u64);
    let mb = |b: u64| b.div_ceil(1 << 20);
    if fs.f_type as i64 == TMPFS_MAGIC && bytes > 1 << 30 {
        return Err(io::Error::other(format!(
            "{} MB needed in {}, a file system in memory",
            mb(bytes),
            dir.display()
        )));
    }
    if bytes > free / 2 {
        return Err(io::Error::other(format!(
            "{} MB needed in {}, which has {} MB free",
            mb(bytes),
            dir.display(),
            mb(free)
        )));
    }
    Ok(())
}

/// At most this many files per spill (threads past it share them): two
/// spills at once stay far below the usual limit of open files.
pub const MAX_FILES: usize = 16;

/// Buckets of records in temporary files.
pub struct Spill {
    /// One per worker thread (created as first written).
    files: Vec<std::sync::OnceLock<File>>,
    index: Mutex<Index>,
}

struct Index {
    /// The end of each file.
    ends: Vec<u64>,
    buckets: Vec<Bucket>,
}

/// A bucket's chunks (file, offset and length) and the records in them.
#[derive(Clone, Default)]
struct Bucket {
    chunks: Vec<Chunk>,
    records: u64,
}

#[derive(Clone, Copy)]
struct Chunk {
    file: usize,
    offset: u64,
    len: usize,
}

impl Spill {
    /// An empty spill of `buckets` buckets, in `$TMPDIR` (else `/tmp`).
    pub fn new(buckets: usize) -> io::Result<Self> {
        let files = rayon::current_num_threads().clamp(1, MAX_FILES);
        let spill = Spill {
            files: (0..files).map(|_| std::sync::OnceLock::new()).collect(),
            index: Mutex::new(Index {
                ends: vec![0; files],
                buckets: vec![Bucket::default(); buckets],
            }),
        };
        // The first file now, so that a spill that cannot be made fails
        // here.
        spill.file(0)?;
        Ok(spill)
    }

    /// File `i`, created when first asked for.
    fn file(&self, i: usize) -> io::Result<&File> {
        let cell = self
            .files
            .get(i)
            .ok_or_else(|| io::Error::other(format!("no spill file {i}")))?;
        if let Some(f) = cell.get() {
            return Ok(f);
        }
        let f = tempfile::tempfile()?;
        Ok(cell.get_or_init(|| f))
    }

    /// The number of buckets.
    pub fn buckets(&self) -> usize {
        self.index.lock().map_or(0, |i| i.buckets.len())
    }

    /// Appends `bytes`, which hold `records` records, to bucket `b` as one
    /// chunk.
    pub fn append(&self, b: usize, bytes: &[u8], records: u64) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        // The calling thread's file (threads outside the pool share the
        // first).
        let file = rayon::current_thread_index().unwrap_or(0) % self.files.len();
        let offset = {
            let mut index = self.index.lock().map_err(|_| poisoned())?;
            let offset = index.ends[file];
            let bucket = index.buckets.get_mut(b).ok_or_else(|| no_bucket(b))?;
            bucket.chunks.push(Chunk {
                file,
                offset,
                len: bytes.len(),
            });
            bucket.records += records;
            index.ends[file] += bytes.len() as u64;
            offset
        };
        self.file(file)?.write_all_at(bytes, offset)
    }

    /// Records in bucket `b`.
    pub fn records(&self, b: usize) -> u64 {
        self.index
            .lock()
            .map_or(0, |i| i.buckets.get(b).map_or(0, |c| c.records))
    }

    /// Calls `f` with each chunk of bucket `b`, read into one buffer that
    /// is reused (as large as the largest chunk).
    pub fn read(&self, b: usize, mut f: impl FnMut(&[u8])) -> io::Result<()> {
        let chunks = {
            let index = self.index.lock().map_err(|_| poisoned())?;
            index
                .buckets
                .get(b)
                .ok_or_else(|| no_bucket(b))?
                .chunks
                .clone()
        };
        let mut buf = Vec::new();
        for c in chunks {
            buf.resize(c.len, 0);
            self.file(c.file)?.read_exact_at(&mut buf, c.offset)?;
            f(&buf);
        }
        Ok(())
    }
}

impl Drop for Spill {
    /// Closes the files side by side: closing frees a file's pages, some
    /// 40 ms per 100 MB of one thread's time.
    fn drop(&mut self) {
        let mut files: Vec<File> = self.files.iter_mut().filter_map(|f| f.take()).collect();
        let here = files.pop();
        std::thread::scope(|s| {
            for f in files {
                // (A thread that cannot be started: closed here.)
                let _ = std::thread::Builder::new().spawn_scoped(s, move || drop(f));
            }
            drop(here);
        });
    }
}

/// A writer's buffers, one per bucket, each handed to the spill as a chunk
/// when full (and by [`Buffered::flush`]).
pub struct Buffered<'a> {
    spill: &'a Spill,
    buffers: Vec<Filling>,
    chunk: usize,
}

/// A bucket's buffer: its first `filled` bytes hold `records` records.
#[derive(Clone, Default)]
struct Filling {
    bytes: Vec<u8>,
    filled: usize,
    records: u64,
}

impl<'a> Buffered<'a> {
    /// Buffers of about `chunk` bytes for every bucket of `spill`.
    pub fn new(spill: &'a Spill, chunk: usize) -> Self {
        Buffered {
            spill,
            buffers: vec![Filling::default(); spill.buckets()],
            chunk: chunk.max(1),
        }
    }

    /// Adds a record of `len` bytes to bucket `b`, written by `put` straight
    /// into the bucket's buffer (no copy between, and no bytes cleared or
    /// length changed per record: a buffer keeps its length once made).
    #[inline]
    pub fn push_with(
        &mut self,
        b: usize,
        len: usize,
        put: impl FnOnce(&mut [u8]),
    ) -> io::Result<()> {
        let Some(Filling {
            bytes,
            filled,
            records,
        }) = self.buffers.get_mut(b)
        else {
            return Err(no_bucket(b));
        };
        let end = *filled + len;
        if bytes.len() < end {
            // (Handed on once `chunk` is reached: room for a record past
            // it, so that the buffer is made once.)
            bytes.resize(end.max(self.chunk + len), 0);
        }
        put(&mut bytes[*filled..end]);
        *filled = end;
        *records += 1;
        if end >= self.chunk {
            self.spill.append(b, &bytes[..end], *records)?;
            (*filled, *records) = (0, 0);
        }
        Ok(())
    }

    /// Hands every buffer's records to the spill.
    pub fn flush(self) -> io::Result<()> {
        for (b, f) in self.buffers.iter().enumerate() {
            self.spill.append(b, &f.bytes[..f.filled], f.records)?;
        }
        Ok(())
    }
}

fn poisoned() -> io::Error {
    io::Error::other("a spill writer panicked")
}

fn no_bucket(b: usize) -> io::Error {
    io::Error::other(format!("no spill bucket {b}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_refused_past_half_the_free_space() {
        assert!(check_room(0).is_ok());
        let e = check_room(u64::MAX).unwrap_err().to_string();
        assert!(e.contains("MB needed in"), "{e}");
    }

    #[test]
    fn buckets_read_back_what_was_appended() {
        let spill = Spill::new(3).unwrap();
        let mut w = Buffered::new(&spill, 8);
        for i in 0u32..100 {
            w.push_with((i % 3) as usize, 4, |out| out.copy_from_slice(&i.to_le_bytes()))
                .unwrap();
        }
        w.flush().unwrap();
        for b in 0..3 {
            let mut got = Vec::new();
            spill
                .read(b, |c| {
                    got.extend(
                        c.chunks(4)
                            .map(|x| u32::from_le_bytes(x.try_into().unwrap())),
                    )
                })
                .unwrap();
            let want: Vec<u32> = (0..100).filter(|i| i % 3 == b as u32).collect();
            assert_eq!(got, want);
        }
        assert!(spill.read(3, |_| {}).is_err());
        assert_eq!(
            (0..3).map(|b| spill.records(b)).collect::<Vec<_>>(),
            [34, 33, 33]
        );
        // Records of any length, each written where it goes.
        let spill = Spill::new(1).unwrap();
        let mut w = Buffered::new(&spill, 5);
        for len in [1, 4, 2, 0, 3, 9] {
            w.push_with(0, len, |out| out.copy_from_slice(&b"abcdefghi"[..len]))
                .unwrap();
        }
        w.flush().unwrap();
        let mut got = Vec::new();
        spill.read(0, |c| got.extend_from_slice(c)).unwrap();
        assert_eq!(got, b"aabcdababcabcdefghi");
        assert_eq!(spill.records(0), 6);
        assert!(spill.append(7, b"x", 1).is_err());
    }

    /// Writers on the pool's threads write a file each; every bucket
    /// reads back what they all wrote.
    #[test]
    fn buckets_gather_the_files_of_every_thread() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(|| {
            let spill = Spill::new(2).unwrap();
            // Every thread writes (a task each).
            pool.broadcast(|c| {
                let t = c.index() as u32;
                let mut w = Buffered::new(&spill, 16);
                for i in 0..50 {
                    let bytes = (t * 100 + i).to_le_bytes();
                    w.push_with((i % 2) as usize, 4, |out| out.copy_from_slice(&bytes))
                        .unwrap();
                }
                w.flush().unwrap();
            });
            let written = spill.files.iter().filter(|f| f.get().is_some()).count();
            assert_eq!(written, 3);
            for b in 0..2u32 {
                let mut got = Vec::new();
                spill
                    .read(b as usize, |c| {
                        got.extend(
                            c.chunks(4)
                                .map(|x| u32::from_le_bytes(x.try_into().unwrap())),
                        )
                    })
                    .unwrap();
                got.sort_unstable();
                let want: Vec<u32> = (0..3)
                    .flat_map(|t| (0..50).filter(|i| i % 2 == b).map(move |i| t * 100 + i))
                    .collect();
                assert_eq!(got, want);
            }
        });
    }
}
