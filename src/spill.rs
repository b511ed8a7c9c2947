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
        self.append_all(&[(b, bytes, records)])
    }

    /// Appends each `(bucket, bytes, records)` as [`Spill::append`] does,
    /// all in one write: the kernel's cost of a write is much per call and
    /// per page cache folio, and one long write gets large folios (half
    /// the system time of writes of a few pages).
    pub fn append_all(&self, chunks: &[(usize, &[u8], u64)]) -> io::Result<()> {
        // The calling thread's file (threads outside the pool share the
        // first).
        let file = rayon::current_thread_index().unwrap_or(0) % self.files.len();
        let offset = {
            let mut index = self.index.lock().map_err(|_| poisoned())?;
            let buckets = index.buckets.len();
            if let Some(&(b, ..)) = chunks.iter().find(|(b, ..)| *b >= buckets) {
                return Err(no_bucket(b));
            }
            let offset = index.ends[file];
            let mut at = offset;
            for &(b, bytes, records) in chunks.iter().filter(|(_, bytes, _)| !bytes.is_empty()) {
                let bucket = &mut index.buckets[b];
                bucket.chunks.push(Chunk {
                    file,
                    offset: at,
                    len: bytes.len(),
                });
                bucket.records += records;
                at += bytes.len() as u64;
            }
            index.ends[file] = at;
            offset
        };
        let mut slices: Vec<io::IoSlice<'_>> = (chunks.iter())
            .filter(|(_, bytes, _)| !bytes.is_empty())
            .map(|(_, bytes, _)| io::IoSlice::new(bytes))
            .collect();
        write_all_vectored_at(self.file(file)?, &mut slices, offset)
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
/// when full (and by [`Buffered::flush`]). Full buffers wait until they
/// hold [`WRITE_BYTES`] together, then go in one write.
pub struct Buffered<'a> {
    spill: &'a Spill,
    buffers: Vec<Filling>,
    chunk: usize,
    /// Full buffers not written yet: (bucket, bytes, records).
    full: Vec<(usize, Vec<u8>, u64)>,
    full_bytes: usize,
    /// Buffers written, to fill again (their memory already faulted in).
    spare: Vec<Vec<u8>>,
}

/// Bytes of full buffers a writer gathers for one write.
const WRITE_BYTES: usize = 256 << 10;

/// Bytes of a bucket's newest records, gathered in a stage of its own
/// before they are copied to its buffer a few cache lines at once: the
/// stages of all buckets stay in cache, while a record written straight
/// into one of hundreds of buffers (far more than the cache holds) would
/// wait for its line nearly every time. A record is at most this long.
pub const STAGE_BYTES: usize = 256;

/// A bucket's stage and buffer: `staged` bytes of the stage hold
/// `staged_records` records, the buffer `records`.
#[derive(Clone)]
struct Filling {
    stage: [u8; STAGE_BYTES],
    staged: usize,
    staged_records: u64,
    bytes: Vec<u8>,
    records: u64,
}

impl Filling {
    const EMPTY: Filling = Filling {
        stage: [0; STAGE_BYTES],
        staged: 0,
        staged_records: 0,
        bytes: Vec::new(),
        records: 0,
    };

    /// Moves the stage's records to the buffer, made with room for `chunk`
    /// bytes and a stage past them (so that it never grows).
    fn unstage(&mut self, chunk: usize) {
        if self.staged == 0 {
            return;
        }
        if self.bytes.capacity() == 0 {
            self.bytes.reserve_exact(chunk + STAGE_BYTES);
        }
        self.bytes.extend_from_slice(&self.stage[..self.staged]);
        self.records += self.staged_records;
        (self.staged, self.staged_records) = (0, 0);
    }
}

impl<'a> Buffered<'a> {
    /// Buffers of about `chunk` bytes for every bucket of `spill`.
    pub fn new(spill: &'a Spill, chunk: usize) -> Self {
        Buffered {
            spill,
            buffers: vec![Filling::EMPTY; spill.buckets()],
            chunk: chunk.max(1),
            full: Vec::new(),
            full_bytes: 0,
            spare: Vec::new(),
        }
    }

    /// Moves bucket `b`'s buffer to the full ones (a spare takes its
    /// place), writing them all once they hold [`WRITE_BYTES`].
    fn hand_over(&mut self, b: usize) -> io::Result<()> {
        let Some(f) = self.buffers.get_mut(b) else {
            return Err(no_bucket(b));
        };
        if f.bytes.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::replace(&mut f.bytes, self.spare.pop().unwrap_or_default());
        self.full_bytes += bytes.len();
        self.full.push((b, bytes, std::mem::take(&mut f.records)));
        if self.full_bytes >= WRITE_BYTES {
            self.write_full()?;
        }
        Ok(())
    }

    /// Writes the full buffers (lost if the write fails: the caller keeps
    /// the error).
    fn write_full(&mut self) -> io::Result<()> {
        let chunks: Vec<(usize, &[u8], u64)> =
            (self.full.iter()).map(|(b, bytes, n)| (*b, &bytes[..], *n)).collect();
        let written = self.spill.append_all(&chunks);
        for (_, mut bytes, _) in self.full.drain(..) {
            bytes.clear();
            self.spare.push(bytes);
        }
        self.full_bytes = 0;
        written
    }

    /// Adds a record of `len` bytes (at most [`STAGE_BYTES`]) to bucket
    /// `b`, written by `put` straight into the bucket's stage. The buffer
    /// is handed to the spill as a chunk once it holds `chunk` bytes.
    #[inline]
    pub fn push_with(
        &mut self,
        b: usize,
        len: usize,
        put: impl FnOnce(&mut [u8]),
    ) -> io::Result<()> {
        let chunk = self.chunk;
        let f = self.buffers.get_mut(b).ok_or_else(|| no_bucket(b))?;
        if f.staged + len > STAGE_BYTES {
            f.unstage(chunk);
            if f.bytes.len() >= chunk {
                self.hand_over(b)?;
            }
        }
        let f = self.buffers.get_mut(b).ok_or_else(|| no_bucket(b))?;
        let Some(room) = f.stage.get_mut(f.staged..f.staged + len) else {
            return Err(io::Error::other(format!(
                "a spill record of {len} bytes, over {STAGE_BYTES}"
            )));
        };
        put(room);
        f.staged += len;
        f.staged_records += 1;
        Ok(())
    }

    /// Hands every buffer's records to the spill.
    pub fn flush(mut self) -> io::Result<()> {
        for b in 0..self.buffers.len() {
            self.buffers[b].unstage(0);
            self.hand_over(b)?;
        }
        self.write_full()
    }
}

/// Writes all of `slices` (none empty) to `file` from `offset` on (a write
/// may take only part of them: at most `IOV_MAX` slices, as few bytes as
/// the kernel accepts).
fn write_all_vectored_at(
    file: &File,
    mut slices: &mut [io::IoSlice<'_>],
    mut offset: u64,
) -> io::Result<()> {
    while !slices.is_empty() {
        match rustix::io::pwritev(file, slices, offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                io::IoSlice::advance_slices(&mut slices, n);
                offset += n as u64;
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
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
        // Records that fill stages unevenly, in chunks of any size, come
        // back in order; one longer than a stage is refused.
        for chunk in [1, 1000, 1 << 20] {
            let spill = Spill::new(2).unwrap();
            let mut w = Buffered::new(&spill, chunk);
            let mut want = [Vec::new(), Vec::new()];
            for i in 0..400usize {
                let len = [STAGE_BYTES - 1, 1, 7, STAGE_BYTES, 0][i % 5];
                let record: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
                w.push_with(i % 2, len, |out| out.copy_from_slice(&record))
                    .unwrap();
                want[i % 2].extend_from_slice(&record);
            }
            assert!(w.push_with(0, STAGE_BYTES + 1, |_| {}).is_err());
            w.flush().unwrap();
            for (b, want) in want.iter().enumerate() {
                let mut got = Vec::new();
                spill.read(b, |c| got.extend_from_slice(c)).unwrap();
                assert!(got == *want, "chunk {chunk}, bucket {b}");
                assert_eq!(spill.records(b), 200);
            }
        }
        assert!(spill.append(7, b"x", 1).is_err());
    }

    /// Chunks of several buckets appended in one write read back in their
    /// buckets, in order; a bucket that does not exist refuses them all.
    #[test]
    fn chunks_appended_together_read_back_in_their_buckets() {
        let spill = Spill::new(3).unwrap();
        spill.append(1, b"a", 1).unwrap();
        let (long, empty) = (vec![7u8; 5000], Vec::new());
        let chunks = [(2, &b"bc"[..], 2), (1, &long[..], 3), (0, &empty[..], 0), (1, b"d", 1)];
        spill.append_all(&chunks).unwrap();
        assert!(spill.append_all(&[(0, b"e", 1), (3, b"f", 1)]).is_err());
        let read = |b| {
            let mut got = Vec::new();
            spill.read(b, |c| got.extend_from_slice(c)).unwrap();
            got
        };
        assert_eq!(read(0), b"");
        assert_eq!(read(1), [&b"a"[..], &long, b"d"].concat());
        assert_eq!(read(2), b"bc");
        assert_eq!([0, 1, 2].map(|b| spill.records(b)), [0, 5, 2]);
        // More chunks than one write takes (IOV_MAX, 1024).
        let bytes: Vec<[u8; 2]> = (0..3000u16).map(|i| i.to_le_bytes()).collect();
        let chunks: Vec<(usize, &[u8], u64)> =
            bytes.iter().enumerate().map(|(i, b)| (i % 3, &b[..], 1)).collect();
        spill.append_all(&chunks).unwrap();
        let tail: Vec<u16> = read(1)[long.len() + 2..]
            .chunks(2)
            .map(|x| u16::from_le_bytes([x[0], x[1]]))
            .collect();
        assert_eq!(tail, (0..3000u16).filter(|i| i % 3 == 1).collect::<Vec<_>>());
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
