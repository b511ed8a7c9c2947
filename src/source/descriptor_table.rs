//! Growing the process's table of file descriptors once, before any thread
//! starts.
//!
//! Linux grows a process's descriptor table (64, 128, 256, … slots) when an
//! `open` needs a slot past its end. In a process with several threads it
//! then waits for an RCU grace period before freeing the old table: a few
//! milliseconds, during which that thread sleeps, holding whatever lock it
//! held (the kept data-file handles of a database). A database of 256 data
//! files per part keeps up to 256 files open, so the table grew mid-read
//! (up to three times, from the 64 slots a process may start with), which
//! cost the index commands at 16,384 processes 10-25 % of their wall time.
//! With one thread there is no wait: growing the table up front costs a few
//! microseconds and 8 KiB.

use std::os::fd::AsFd;

/// The descriptor numbers tried, largest first: the first one the soft limit
/// on open files allows sizes the table (a table of 1,024 holds the 256 kept
/// data files of each part with room to spare).
const RESERVED: [i32; 3] = [1023, 511, 255];

/// Grows the descriptor table to hold the highest of [`RESERVED`] the limit
/// allows. Call it while the process has a single thread; it changes nothing
/// else (the descriptor it duplicates is closed again). Failure is harmless:
/// the table then grows on demand as before.
pub fn reserve() {
    let stderr = std::io::stderr();
    for slot in RESERVED {
        // Duplicating stderr to a number at least `slot` grows the table to
        // hold it; dropping the duplicate closes it, and the table stays.
        if rustix::io::fcntl_dupfd_cloexec(stderr.as_fd(), slot).is_ok() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `FDSize` of /proc/self/status: the slots the table has now.
    fn table_slots() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("FDSize:")).unwrap();
        line["FDSize:".len()..].trim().parse().unwrap()
    }

    /// The soft limit on open files, from /proc/self/limits.
    fn open_files_limit() -> usize {
        let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
        let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap();
        line.split_whitespace().nth(3).unwrap().parse().unwrap()
    }

    #[test]
    fn the_table_grows_and_the_duplicate_is_closed() {
        reserve();
        // A process starts with a table sized by its parent's (often 64 or
        // 256 slots), so only the largest size the limit allows tells.
        let largest = RESERVED.iter().find(|&&s| (s as usize) < open_files_limit());
        if let Some(&slot) = largest {
            assert!(table_slots() > slot as usize, "FDSize {}", table_slots());
        }
        let highest = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .max()
            .unwrap();
        assert!(highest < 255, "descriptor {highest} left open");
    }
}
