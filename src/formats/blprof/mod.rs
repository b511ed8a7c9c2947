//! AMReX bl_prof databases (BLPROF_FORMAT.md, BLPROF_REAL_DATA.md).
//!
//! [`Database::open`] finds the parts of a directory and parses the global
//! headers; per-file headers and data blocks are read on demand.

pub mod base;
pub mod callstats;
pub mod comm;
pub mod commdata;
pub mod database;
pub mod files;
pub mod header;
pub mod headerfile;
pub mod trace;

pub use base::{BaseBlock, BaseHeader, BaseProfile, RealWidth};
pub use callstats::{CallStatsHeader, TraceBlockRef};
pub use comm::{CommBlockRef, CommHeader};
pub use database::{Database, ProcComm, ProcTrace};
pub use files::Part;
