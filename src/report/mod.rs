//! Renderers: one module per output format, all writing to `impl Write`.
//! Number formatting lives in [`numfmt`] only.

pub mod calltrace;
pub mod calltree;
pub mod chrome;
pub mod csv;
pub mod diff;
pub mod html_report;
pub mod json;
pub mod numfmt;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod reference;
pub mod svg;
pub mod table;
