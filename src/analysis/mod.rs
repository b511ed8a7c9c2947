//! Analyses over the models: merging across processes, statistics, regions.

pub mod base_summary;
pub mod callers;
pub mod calltree;
pub mod check;
pub mod comm_attribution;
pub mod comm_check;
pub mod comm_pairs;
pub mod comm_select;
pub mod comm_stats;
pub mod comm_sync;
pub mod comm_time;
pub mod comm_timeline;
pub mod diff;
pub mod diff_input;
pub mod filter;
pub mod function_stats;
pub mod imbalance;
pub mod info;
pub mod overview;
pub mod ranges;
pub mod regions;
pub mod timertree_merge;
pub mod tinyprofiler;
pub mod tlog_summary;
pub mod trace_summary;
pub mod trace_timeline;
