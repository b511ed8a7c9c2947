//! Analyses over the models: merging across processes, statistics.

pub mod base_summary;
pub mod function_stats;
pub mod info;
