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
mod thread_handle;
pub mod trace;
pub mod walk;

pub use base::{BaseProfile, RealWidth};
pub use comm::{CommBlockRef, CommHeader};
pub use database::Database;
pub use files::Part;
