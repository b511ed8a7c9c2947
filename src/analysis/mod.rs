//! Analyses over the models: merging across processes, statistics, regions.

pub mod base_summary;
pub mod call_path_profile;
pub mod callers;
pub mod calltree;
pub mod check;
pub mod comm;
pub mod diff;
pub mod diff_input;
pub mod history;
pub mod regress;
mod exact_sum;
pub mod export_rows;
pub mod filter;
pub mod function_stats;
pub mod imbalance;
pub mod info;
pub mod overview;
pub mod ranges;
pub mod regions;
pub mod spread_merge;
pub mod timeline_events;
pub mod timertree_merge;
pub mod tinyprofiler;
pub mod tlog_events;
pub mod tlog_summary;
pub mod trace_summary;
pub mod trace_timeline;
