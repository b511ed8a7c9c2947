//! AMReX bl_prof databases (BLPROF_FORMAT.md, BLPROF_REAL_DATA.md).
//!
//! [`Database::open`] finds the parts of a directory and parses the global
//! headers; per-file headers and data blocks are read on demand, through
//! the block walks of [`walk`] (selection, progress, warnings about
//! unreadable blocks, results in process order).

pub mod base;
pub mod callstats;
pub mod comm;
pub mod commdata;
pub mod database;
pub mod files;
pub mod header;
pub mod headerfile;
pub mod trace;
pub mod walk;

pub use base::{BaseBlock, BaseHeader, BaseProfile, RealWidth};
pub use callstats::{CallStatsHeader, TraceBlockRef};
pub use comm::{CommBlockRef, CommHeader};
pub use database::{Database, ProcComm, ProcTrace};
pub use files::Part;
pub use walk::{
    BlockSelection, CommBlockRecords, CommProcWalk, CommWalk, MappedTraceBlock, Skipped,
    TraceBlockWalk, TraceProcWalk, TraceWalk,
};
