//! On-disk formats: one module per format, readers only.

pub mod blprof;
mod input;
pub mod timertree;
pub mod tinyprofiler;
pub mod tlog;

pub use input::{Input, InputKind, Looks, check_tlog, looks};
