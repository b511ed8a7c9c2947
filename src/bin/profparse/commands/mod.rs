//! One module per command: each turns its arguments into library options,
//! calls the library, and hands the result to a renderer.

pub mod calltrace;
pub mod calltree;
pub mod comm;
pub mod completions;
pub mod diff;
pub mod export;
pub mod info;
pub mod man;
pub mod regions;
pub mod report;
pub mod summary;
pub mod synth;
pub mod tlog;
pub mod trace_common;
pub mod trace_summary;
pub mod tree;
