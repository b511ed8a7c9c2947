//! One module per command: each turns its arguments into library options,
//! calls the library, and hands the result to a renderer.

pub mod calltrace;
pub mod calltree;
pub mod check;
pub mod comm;
pub mod compare;
pub mod completions;
pub mod diff;
pub mod export;
pub mod info;
pub mod man;
pub mod regions;
pub mod report;
pub mod summary;
pub mod synth;
pub mod tinyprofiler;
pub mod tlog;
pub mod trace_common;
pub mod trace_summary;
pub mod tree;

use profparse::formats::blprof::Database;

/// Opens a database that is never freed, for a command's one database (or
/// its last): the command reports on it and the process exits, when the
/// operating system takes the memory back at once, where freeing the
/// indexes of 100,000 processes piece by piece took 120 ms, a fifth of
/// `info`.
pub fn open_database(path: &std::path::Path) -> profparse::Result<&'static mut Database> {
    Database::open(path).map(|db| Box::leak(Box::new(db)))
}
