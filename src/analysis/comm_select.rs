//! Which communication blocks and records a report looks at: a time window
//! and a set of processes. Blocks outside are never read.
//!
//! The selection is the comm walks' ([`crate::formats::blprof::walk`]),
//! under the name the comm analyses have always used.

pub use crate::formats::blprof::walk::BlockSelection as CommSelection;
