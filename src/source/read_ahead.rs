//! A read-ahead window per thread for the small positioned reads of
//! [`super::DataHandle::read_exact_at`].
//!
//! A walk over thousands of processes reads each process's blocks in turn:
//! a few kilobytes each, lying one after another in their data file (a
//! rayon task covers a run of consecutive processes). A `pread` per block
//! cost more than the bytes it copied: at 16,384 processes, system calls
//! were a third of `comm barriers`. So a small read that starts at, or a
//! little after, the end of the thread's previous read of the same file
//! fills a window with the bytes from there on, and the reads that follow
//! are copied out of it:
//!
//! ```text
//! file     | blk 0 | blk 1 | blk 2 | blk 3 | … | blk 54 | blk 55 |
//! reads      r0      r1 ──── fills the window ─────────┤  r55 fills the next
//!                            r2 … r54 are copied from it
//! ```
//!
//! Reads that jump backwards or far ahead, and reads of [`SMALL_READ`] bytes
//! or more, go to the file as before; so does any read the window cannot
//! serve (its own read failed, or the file is shorter than it was): errors
//! are the file's own. A window belongs to one open file (an id per
//! [`super::DataHandle`], never reused), so another file's bytes are never
//! served. A thread keeps [`WINDOWS`] windows, one per file it reads, so a
//! walk that reads a process's comm block and then its trace block (two
//! files in turn) still reads each file ahead; the window unused longest
//! goes to a new file. Memory: up to [`WINDOWS`] x [`WINDOW`] bytes per
//! thread that reads small blocks.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Reads shorter than this may be served from the window.
pub(super) const SMALL_READ: usize = 16 << 10;

/// Bytes read ahead at once.
const WINDOW: usize = 128 << 10;

/// Files a thread reads ahead at once: the comm, trace and call-stats data
/// of a process, and one spare.
const WINDOWS: usize = 4;

/// How far past the end of the previous read a read may start and still
/// fill a window: the gap between two barriers' records of consecutive
/// processes (a block of a process apart) at a few thousand processes.
const NEAR: u64 = 32 << 10;

static NEXT_FILE: AtomicU64 = AtomicU64::new(1);

/// A new file id (never 0, never reused).
pub(super) fn file_id() -> u64 {
    NEXT_FILE.fetch_add(1, Ordering::Relaxed)
}

/// The thread's window and where its previous small read ended.
#[derive(Default)]
struct Window {
    /// Id of the file the bytes are from (0: none).
    file: u64,
    /// File offset of `bytes[0]`.
    start: u64,
    /// Bytes of `bytes` read from the file.
    valid: usize,
    bytes: Vec<u8>,
    /// File id and end offset of the previous small read.
    last: (u64, u64),
    /// When the window was last used (a per-thread count of reads).
    used: u64,
}

/// A thread's windows and its count of reads.
#[derive(Default)]
struct Windows {
    slots: [Window; WINDOWS],
    reads: u64,
}

impl Windows {
    /// The window of `file`: the one whose last read or bytes are of this
    /// file, else the one unused longest.
    fn of(&mut self, file: u64) -> &mut Window {
        self.reads += 1;
        let mine = (self.slots.iter()).position(|w| w.last.0 == file || w.file == file);
        let i = mine.unwrap_or_else(|| {
            let oldest = self.slots.iter().enumerate().min_by_key(|(_, w)| w.used);
            oldest.map_or(0, |(i, _)| i)
        });
        let w = &mut self.slots[i];
        if mine.is_none() {
            // The window now belongs to `file`: none of its bytes or its
            // last read are this file's.
            (w.file, w.last) = (0, (0, 0));
        }
        w.used = self.reads;
        w
    }
}

thread_local! {
    static THREAD_WINDOWS: RefCell<Windows> = RefCell::default();
}

/// Fills `buf` with the bytes at offset `at` of file `file` (of `file_len`
/// bytes) from this thread's window, when it holds them or the read follows
/// the previous one (then `fill(window, offset)` reads the window; `false`
/// when that read failed). `false`: the caller reads the file itself.
pub(super) fn read(
    file: u64,
    file_len: u64,
    buf: &mut [u8],
    at: u64,
    fill: impl FnOnce(&mut [u8], u64) -> bool,
) -> bool {
    if buf.len() >= SMALL_READ {
        return false;
    }
    let Some(end) = at.checked_add(buf.len() as u64) else {
        return false;
    };
    THREAD_WINDOWS.with_borrow_mut(|windows| {
        let w = windows.of(file);
        let follows = w.last.0 == file && at >= w.last.1 && at - w.last.1 <= NEAR;
        w.last = (file, end);
        let held = w.start + w.valid as u64;
        if w.file == file && at >= w.start && end <= held {
            let from = (at - w.start) as usize;
            buf.copy_from_slice(&w.bytes[from..from + buf.len()]);
            return true;
        }
        let n = file_len.saturating_sub(at).min(WINDOW as u64) as usize;
        if !follows || n < buf.len() {
            return false;
        }
        if w.bytes.len() < n {
            w.bytes.resize(n, 0);
        }
        if !fill(&mut w.bytes[..n], at) {
            w.file = 0;
            return false;
        }
        (w.file, w.start, w.valid) = (file, at, n);
        buf.copy_from_slice(&w.bytes[..buf.len()]);
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads of a file of the bytes 0, 1, 2, …: which are served from the
    /// window, which fill it, and that every one gets the file's bytes.
    #[test]
    fn sequential_small_reads_fill_the_window_and_others_do_not() {
        let data: Vec<u8> = (0..400_000u32).map(|i| i as u8).collect();
        let file = file_id();
        let mut fills = 0;
        let mut read_at = |at: u64, len: usize| -> (Vec<u8>, bool) {
            let mut buf = vec![0; len];
            let served = read(file, data.len() as u64, &mut buf, at, |w, from| {
                fills += 1;
                let from = from as usize;
                w.copy_from_slice(&data[from..from + w.len()]);
                true
            });
            if !served {
                let at = at as usize;
                buf.copy_from_slice(&data[at..at + len]);
            }
            assert_eq!(buf, data[at as usize..at as usize + len]);
            (buf, served)
        };
        assert!(!read_at(1000, 48).1, "a first read goes to the file");
        assert!(read_at(3000, 48).1, "a read just after fills the window");
        assert!(read_at(3010, 48).1, "inside the window, even going back");
        assert!(read_at(3000 + 100_000, 2000).1);
        assert!(!read_at(0, 48).1, "backwards, outside the window");
        assert!(!read_at(300_000, 48).1, "far ahead");
        assert!(!read_at(300_100, SMALL_READ).1, "a big read");
        assert!(!read_at(399_900, 48).1);
        assert_eq!(fills, 1);
        let mut buf = [0u8; 48];
        assert!(
            !read(file, 400_000, &mut buf, 399_960, |_, _| unreachable!()),
            "a read past the end of the file goes to the file (and fails there)"
        );
        let other = file_id();
        let mut buf = [0u8; 8];
        assert!(
            !read(other, 400_000, &mut buf, 3000, |_, _| unreachable!()),
            "another file's bytes are never served"
        );
        assert!(!read(other, 400_000, &mut buf, 3100, |_, _| false), "a failed fill");
        assert!(
            !read(other, 400_000, &mut buf, 3100, |_, _| unreachable!()),
            "no window of the other file"
        );
        assert!(
            read(file, 400_000, &mut buf, 3200, |_, _| unreachable!()),
            "the first file keeps its window"
        );
        assert_eq!(buf, data[3200..3208]);
    }

    /// A walk that reads a block of one file and then a block of another,
    /// process after process, reads both ahead: each file keeps its window.
    #[test]
    fn alternating_files_each_keep_a_window() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7) as u8).collect();
        let files = [file_id(), file_id()];
        let mut fills = [0; 2];
        let mut served = 0;
        for k in 0..100u64 {
            for (f, &file) in files.iter().enumerate() {
                let at = 1000 + k * (2000 + f as u64 * 376);
                let mut buf = vec![0; 1500];
                if read(file, data.len() as u64, &mut buf, at, |w, from| {
                    fills[f] += 1;
                    let from = from as usize;
                    w.copy_from_slice(&data[from..from + w.len()]);
                    true
                }) {
                    served += 1;
                    assert_eq!(buf, data[at as usize..at as usize + 1500]);
                }
            }
        }
        assert_eq!(served, 198, "all but each file's first read");
        assert!(fills.iter().all(|&n| (1..=3).contains(&n)), "{fills:?}");
    }
}
