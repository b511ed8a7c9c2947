//! The data file each thread opened last, remembered without a lock: a
//! walk reads a process's blocks on one thread, and a thread's run of
//! processes shares a few data files, so most blocks find their file here
//! instead of taking the database's lock and hashing the name, which was
//! 2.7 % of `comm barriers` at 16,384 processes (a block per process).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::source::DataHandle;

/// A new id for a database: the memo tells databases apart by it, as an
/// address can be reused by a database opened after one is dropped.
pub(crate) fn new_database_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

struct Remembered {
    database: u64,
    name: String,
    /// Weak: the database's kept handles still decide when a file closes.
    handle: Weak<DataHandle>,
}

thread_local! {
    static LAST: RefCell<Option<Remembered>> = const { RefCell::new(None) };
}

/// The handle of data file `name` of database `database` this thread
/// remembered last, if it is that file and still open.
pub(crate) fn recall(database: u64, name: &str) -> Option<Arc<DataHandle>> {
    LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|r| r.database == database && r.name == name)
            .and_then(|r| r.handle.upgrade())
    })
}

/// Remembers `handle` as this thread's last, in place of the one before.
pub(crate) fn remember(database: u64, name: &str, handle: &Arc<DataHandle>) {
    LAST.set(Some(Remembered {
        database,
        name: name.to_owned(),
        handle: Arc::downgrade(handle),
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recalls_only_the_same_open_file_of_the_same_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        std::fs::write(&path, b"x").unwrap();
        let (one, two) = (new_database_id(), new_database_id());
        let handle = Arc::new(DataHandle::open(&path).unwrap());
        remember(one, "d", &handle);
        assert!(Arc::ptr_eq(&recall(one, "d").unwrap(), &handle));
        assert!(recall(two, "d").is_none(), "another database");
        assert!(recall(one, "e").is_none(), "another file");
        drop(handle);
        assert!(recall(one, "d").is_none(), "closed since");
    }
}
