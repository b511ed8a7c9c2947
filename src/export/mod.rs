//! Exporters: whole inputs written in the formats of other tools — Chrome
//! Trace Event JSON ([`chrome`]), Parquet tables ([`parquet`]) and TAU
//! profiles ([`tau`]).
//!
//! Unlike the renderers of [`crate::report`], which write a finished
//! report, an exporter writes while the walk over the input runs. The walk
//! (which records, in which order, what they add up to) belongs to the
//! analysis layer; an exporter holds only the writing: wire types,
//! encoding, files. Streamed exports format in parallel and write in input
//! order (`parallel::Ordered`), so memory stays bounded and the bytes are
//! the same at any thread count. [`staged_dir`] writes an output directory
//! whole or not at all.

pub mod chrome;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod staged_dir;
pub mod tau;
