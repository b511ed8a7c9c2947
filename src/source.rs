//! Opening input files: the only place that memory-maps, and the crate's only `unsafe`.

// The crate denies unsafe code; mapping a file is the one exemption (each
// use has its SAFETY note).
#![allow(unsafe_code)]

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::{Error, Location, Result};

pub mod descriptor_table;
mod read_ahead;

/// The bytes of one input file, memory-mapped when possible.
pub struct InputFile {
    path: PathBuf,
    bytes: Bytes,
    /// File offset of `bytes[0]` (non-zero for a mapped part of a file).
    base: u64,
    /// Length of the whole file.
    file_len: u64,
}

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl InputFile {
    /// Opens and maps `path`. Falls back to reading the file when mapping is
    /// impossible (empty files, special files, file systems without mmap).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let (file, meta) = open_file(path)?;
        let bytes = if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and private to this process. Profiles
            // are written once by a finished run; if another process truncates
            // the file while we read, the kernel may raise SIGBUS — the same
            // contract every mmap-based reader (ripgrep, measureme) accepts.
            match unsafe { Mmap::map(&file) } {
                Ok(map) => Bytes::Mapped(map),
                Err(_) => Bytes::Owned(read_all(path, file)?),
            }
        } else {
            Bytes::Owned(read_all(path, file)?)
        };
        let file_len = match &bytes {
            Bytes::Mapped(m) => m.len() as u64,
            Bytes::Owned(v) => v.len() as u64,
        };
        Ok(InputFile {
            path: path.to_path_buf(),
            bytes,
            base: 0,
            file_len,
        })
    }

    /// Maps only `[offset, offset + len)` of `path` (clamped to the file), so
    /// that a reader streaming over big blocks keeps only the block it works
    /// on resident. Offsets given to [`Self::range`] stay file offsets.
    pub fn open_part(path: impl AsRef<Path>, offset: u64, len: u64) -> Result<Self> {
        Self::part_of(&DataHandle::open(path)?, offset, len)
    }

    /// [`Self::open_part`] on a file already open: a part shorter than
    /// [`SMALL_PART`] is read into memory instead of mapped, because with
    /// thousands of processes the blocks are tiny and a map and unmap per
    /// block (page tables, a TLB shootdown at each unmap) cost more than
    /// copying their bytes.
    pub fn part_of(handle: &DataHandle, offset: u64, len: u64) -> Result<Self> {
        let path = handle.path();
        let file_len = handle.len();
        let start = offset.min(file_len);
        let part = len.min(file_len - start);
        let bytes = if part == 0 {
            Bytes::Owned(Vec::new())
        } else if part < SMALL_PART {
            let mut v = vec![0; part as usize];
            handle.read_exact_at(&mut v, start)?;
            Bytes::Owned(v)
        } else {
            // SAFETY: as in `open`: a read-only private map of a finished file.
            match unsafe {
                memmap2::MmapOptions::new()
                    .offset(start)
                    .len(part as usize)
                    .map(&handle.file)
            } {
                Ok(map) => {
                    test_pause::after_first_part_map();
                    Bytes::Mapped(map)
                }
                Err(_) => {
                    let file = handle.file.try_clone().map_err(|e| Error::io(path, e))?;
                    Bytes::Owned(read_part(path, file, start, part)?)
                }
            }
        };
        Ok(InputFile {
            path: path.to_path_buf(),
            bytes,
            base: start,
            file_len,
        })
    }

    /// Wraps bytes that are already in memory (tests, fuzzers, benches).
    #[cfg(any(test, feature = "internals"))]
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Self {
        let file_len = bytes.len() as u64;
        InputFile {
            path: path.into(),
            bytes: Bytes::Owned(bytes),
            base: 0,
            file_len,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    /// Tells the kernel that the mapped bytes before file offset `upto` will
    /// not be read again, so that a reader streaming through a big block
    /// keeps little of it resident. Reading them again stays correct (the
    /// pages come back from the file); bytes in memory are left alone.
    pub fn release_before(&self, upto: u64) {
        if let Bytes::Mapped(map) = &self.bytes {
            let end = upto.saturating_sub(self.base).min(map.len() as u64) as usize;
            if end >= 1 << 16 {
                // SAFETY: a private, read-only map of a file that is not
                // written while we read it (as in `open`): dropping its pages
                // loses nothing, a later read faults them in again with the
                // same contents. Only advice: failure is harmless.
                let _ = unsafe {
                    map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end)
                };
            }
        }
    }

    /// Length of the whole file (also for a mapped part).
    pub fn len(&self) -> u64 {
        self.file_len
    }

    #[cfg(feature = "internals")]
    pub fn is_empty(&self) -> bool {
        self.file_len == 0
    }

    /// `len` bytes at `offset`, or an error naming the file and offset when
    /// the range is not inside the file. Overflowing arithmetic is an error too.
    pub fn range(&self, offset: u64, len: u64) -> Result<&[u8]> {
        let end = offset.checked_add(len);
        let held = self.base + self.bytes().len() as u64;
        match end {
            Some(end) if end <= self.len() && offset >= self.base && end <= held => {
                Ok(&self.bytes()[(offset - self.base) as usize..(end - self.base) as usize])
            }
            _ => Err(Error::PastEnd {
                location: Location::offset(&self.path, offset),
                block: format!("a block of {len} bytes at byte offset {offset}"),
                end: offset.saturating_add(len),
                file_len: self.len(),
            }),
        }
    }
}

/// Parts of a file shorter than this are read, not mapped
/// ([`InputFile::part_of`]).
pub const SMALL_PART: u64 = 1 << 16;

/// An open data file for positioned reads (`pread`): shared by threads
/// without seeking, and without the page-table work of a map — the better
/// choice for one pass over a block, and for many small blocks (small reads
/// one after another go through a read-ahead window, see [`read_ahead`]).
#[derive(Debug)]
pub struct DataHandle {
    file: File,
    path: PathBuf,
    len: u64,
    /// This open file's id for the read-ahead windows.
    id: u64,
}

impl DataHandle {
    pub fn open(path: impl AsRef<Path>) -> Result<DataHandle> {
        let path = path.as_ref();
        let (file, meta) = open_file(path)?;
        Ok(DataHandle {
            file,
            path: path.to_path_buf(),
            len: meta.len(),
            id: read_ahead::file_id(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Length of the file when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    #[cfg(feature = "internals")]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fills `buf` from file offset `at`; a short file or a failed read is
    /// an error naming the file and the offset.
    pub fn read_exact_at(&self, buf: &mut [u8], at: u64) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let fill = |window: &mut [u8], from: u64| self.file.read_exact_at(window, from).is_ok();
        if read_ahead::read(self.id, self.len, buf, at, fill) {
            return Ok(());
        }
        self.file.read_exact_at(buf, at).map_err(|e| {
            Error::invalid(
                Location::offset(&self.path, at),
                format!("read of {} bytes failed: {e}", buf.len()),
            )
        })
    }
}

/// Opens `path` for reading with its metadata. Only regular files are
/// read: a directory, FIFO, device or socket is an I/O error (exit code 2,
/// like a missing file). The open does not block (a FIFO without a writer
/// would wait forever), and the type is checked on the opened file.
pub fn open_file(path: &Path) -> Result<(File, std::fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    /// Linux's O_NONBLOCK; on a regular file it changes nothing.
    const O_NONBLOCK: i32 = 0o4000;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        let (kind, what) = if meta.is_dir() {
            (
                std::io::ErrorKind::IsADirectory,
                "is a directory, expected a file",
            )
        } else {
            (
                std::io::ErrorKind::InvalidInput,
                "is not a regular file (a FIFO, device or socket); only regular files are read",
            )
        };
        return Err(Error::io(path, std::io::Error::new(kind, what)));
    }
    Ok((file, meta))
}

/// Header texts longer than this are refused: AMReX's largest (a
/// `bl_call_stats_H_*` of a long run on many processes) are tens of MB.
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

/// The bytes of a text file (a header) up to [`MAX_TEXT_BYTES`]; a longer
/// file is an error, not read.
pub fn read_text_bytes(path: &Path) -> Result<Vec<u8>> {
    let (file, meta) = open_file(path)?;
    if meta.len() > MAX_TEXT_BYTES {
        return Err(Error::Oversized {
            location: Location::file(path),
            message: format!(
                "{} bytes: longer than any header ({} bytes at most); not read",
                meta.len(),
                MAX_TEXT_BYTES
            ),
        });
    }
    // Sized from the metadata (bounded above): grown from empty, the
    // buffer was copied a few times per file, which counted with a header
    // file per 64 processes. `take` bounds the read even if the file grows
    // meanwhile.
    let mut v = Vec::with_capacity(meta.len() as usize + 1);
    file.take(MAX_TEXT_BYTES)
        .read_to_end(&mut v)
        .map_err(|e| Error::io(path, e))?;
    Ok(v)
}

/// A text file the user names (a filter file, an event-names file) as a
/// string: opened by the rules of every input ([`open_file`]: a FIFO or a
/// device is refused at once, not read forever) and bounded like a header.
pub fn read_text_file(path: &Path) -> Result<String> {
    let bytes = read_text_bytes(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("byte offset {at}: not UTF-8 text"),
            ),
        )
    })
}

fn read_part(path: &Path, mut file: File, offset: u64, len: u64) -> Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| Error::io(path, e))?;
    let mut v = Vec::new();
    file.take(len)
        .read_to_end(&mut v)
        .map_err(|e| Error::io(path, e))?;
    Ok(v)
}

fn read_all(path: &Path, mut file: File) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    file.read_to_end(&mut v).map_err(|e| Error::io(path, e))?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks_bounds_and_overflow() {
        let f = InputFile::from_bytes("x", vec![1, 2, 3, 4]);
        assert_eq!(f.range(1, 2).unwrap(), &[2, 3]);
        assert_eq!(f.range(4, 0).unwrap(), &[] as &[u8]);
        assert!(f.range(3, 2).is_err());
        assert!(f.range(u64::MAX, 2).is_err());
        let msg = f.range(3, 2).unwrap_err().to_string();
        assert!(msg.contains("x: byte offset 3"), "{msg}");
    }

    #[test]
    fn a_mapped_part_keeps_file_offsets() {
        let dir = tempfile_dir();
        let p = dir.join("part.bin");
        std::fs::write(&p, (0u8..100).collect::<Vec<_>>()).unwrap();
        let f = InputFile::open_part(&p, 10, 20).unwrap();
        assert_eq!(f.len(), 100);
        assert_eq!(f.range(12, 3).unwrap(), &[12, 13, 14]);
        assert!(f.range(5, 3).is_err(), "before the part");
        assert!(f.range(25, 10).is_err(), "past the part");
        let f = InputFile::open_part(&p, 90, 1000).unwrap();
        assert_eq!(f.range(95, 5).unwrap(), &[95, 96, 97, 98, 99]);
        let f = InputFile::open_part(&p, 500, 10).unwrap();
        assert!(f.range(500, 1).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("profparse-src-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn directory_is_a_clear_error() {
        let dir = std::env::temp_dir();
        let err = InputFile::open(&dir).err().unwrap();
        assert!(err.to_string().contains("is a directory"));
    }
}

/// Test-only: a pause at the first part of a file mapped by
/// [`InputFile::open_part`], before its bytes are read, so that
/// tests/it/hostile_files.rs can cut the file under a live map at a known
/// point instead of racing the reader. It needs the variable below set to
/// the path of a FIFO (anything else is ignored, so it is not reachable by
/// accident); the reader then waits until the test has opened the FIFO and
/// closed it again. Once per process.
mod test_pause {
    use std::os::unix::fs::FileTypeExt;
    use std::sync::Once;

    const VARIABLE: &str = "PROFPARSE_TEST_ONLY_PAUSE_AT_FIRST_MAP_FIFO";

    pub(super) fn after_first_part_map() {
        static FIRST: Once = Once::new();
        // Threads mapping at the same time wait here too: nothing reads a
        // mapped part before the test has released the pause.
        FIRST.call_once(|| {
            let Some(fifo) = std::env::var_os(VARIABLE) else {
                return;
            };
            let is_fifo = std::fs::metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo());
            if is_fifo && let Ok(mut f) = std::fs::File::open(&fifo) {
                // Opening waited for the test's write end; this ends when
                // the test closes it.
                let _ = std::io::copy(&mut f, &mut std::io::sink());
            }
        });
    }
}

/// What happens when a mapped input shrinks under a reader: the kernel
/// raises SIGBUS at the first access past the new end (AMReX rewrites data
/// files at every flush of a live run). Instead of dying from the signal,
/// the process says so, removes the outputs it had not finished, and exits
/// with the damaged-data code. Everything the handler does is
/// async-signal-safe: `write`, `unlink`, `_exit`.
pub mod sigbus {
    use std::ffi::{CString, c_char, c_int};
    use std::sync::Once;
    use std::sync::atomic::{AtomicPtr, Ordering};

    const MESSAGE: &[u8] = b"error: an input file shrank while profparse was reading it (a live run rewriting its data files?); read a finished run, or a copy\n";

    /// Unfinished outputs (temporary files) to remove on the way out.
    const SLOTS: usize = 16;
    static PENDING: [AtomicPtr<c_char>; SLOTS] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

    static INSTALL: Once = Once::new();

    /// Set by the first thread to fault: the others wait for its `_exit`
    /// (several reader threads can fault on the same cut file at once).
    static FAULTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    extern "C" fn on_sigbus(_: c_int) {
        // SAFETY: write, unlink, pause and _exit are async-signal-safe; the
        // paths are NUL-terminated strings leaked by `Pending::new` (never
        // freed while registered).
        unsafe {
            if FAULTED.swap(true, Ordering::AcqRel) {
                loop {
                    libc::pause();
                }
            }
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            for slot in &PENDING {
                let p = slot.load(Ordering::Acquire);
                if !p.is_null() {
                    libc::unlink(p);
                }
            }
            libc::_exit(exit_code());
        }
    }

    static EXIT_CODE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);

    fn exit_code() -> c_int {
        EXIT_CODE.load(Ordering::Relaxed)
    }

    /// Installs the handler (once per process); `code` is the exit status.
    pub fn exit_on_sigbus(code: i32) {
        EXIT_CODE.store(code, Ordering::Relaxed);
        INSTALL.call_once(|| {
            // SAFETY: a zeroed sigaction with a plain handler and an empty
            // mask is valid; the handler only calls async-signal-safe functions.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as extern "C" fn(c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
            }
        });
    }

    /// An unfinished output, removed if SIGBUS ends the process; dropped
    /// when the output is finished or removed otherwise.
    pub struct Pending {
        slot: Option<usize>,
    }

    impl Pending {
        /// Registers `path`; with every slot taken it is not registered
        /// (the file would stay behind, nothing worse).
        pub fn new(path: &std::path::Path) -> Self {
            use std::os::unix::ffi::OsStrExt;
            let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
                return Pending { slot: None };
            };
            let raw = c.into_raw();
            for (i, slot) in PENDING.iter().enumerate() {
                if slot
                    .compare_exchange(
                        std::ptr::null_mut(),
                        raw,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_ok()
                {
                    return Pending { slot: Some(i) };
                }
            }
            // SAFETY: `raw` came from `into_raw` just above and was not stored.
            drop(unsafe { CString::from_raw(raw) });
            Pending { slot: None }
        }
    }

    impl Drop for Pending {
        fn drop(&mut self) {
            if let Some(i) = self.slot {
                let p = PENDING[i].swap(std::ptr::null_mut(), Ordering::AcqRel);
                if !p.is_null() {
                    // SAFETY: stored by `new` from `into_raw`, taken out once.
                    drop(unsafe { CString::from_raw(p) });
                }
            }
        }
    }
}
