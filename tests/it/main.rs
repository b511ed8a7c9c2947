//! The integration tests: one test binary (`cargo test --test it`), one
//! module per area. Run one area with `cargo test --test it blprof::`.
//! Shared helpers are in `common`.

#[macro_use]
mod common;

mod advice;
mod blprof;
mod callers;
mod check;
mod comm;
mod comm_completion;
mod comm_regions;
mod comm_time;
mod comm_waits;
mod contract;
mod corrupt;
mod damage;
mod diff;
mod export;
mod flags;
mod fuzz_regressions;
mod help;
mod history;
mod hostile_files;
mod human;
mod interop;
mod names;
mod output_files;
mod parquet;
mod progress;
mod raw_comm;
mod regress;
mod report;
mod stock;
mod synth;
mod timer_tree;
mod tinyprofiler;
mod tlog;
mod trace;
