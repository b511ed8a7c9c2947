//! Analyses over the models: merging across processes, statistics.

pub mod function_stats;
