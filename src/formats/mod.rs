//! On-disk formats: one module per format, readers only.

pub mod blprof;
pub mod tlog;
