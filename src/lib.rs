//! profparse: performance data of parallel runs turned into answers.
//!
//! Readers for AMReX `bl_prof` databases, Omni libtlog trace files and
//! serialized timer trees; format-neutral models; analyses (merging across
//! processes, region filters); and one renderer per output format.
//!
//! Layers: [`formats`] (bytes → records, nothing about printing) →
//! [`model`] → [`analysis`] → [`report`]. The `profparse` binary only wires them.
//! [`progress`] lets the binary watch long loops without the library knowing
//! about terminals.

#![deny(unsafe_code)]

pub mod analysis;
#[cfg(feature = "cli")]
pub mod cli;
pub mod error;
pub mod export;
pub mod formats;
pub mod model;
pub mod parallel;
pub mod progress;
pub mod report;
pub mod source;
pub mod spill;
#[cfg(feature = "synth")]
pub mod synth;
#[cfg(test)]
mod test_rng;
pub mod timer_tree;

pub use error::{Error, Location, NotADatabase, Result, Warning, WarningKind};
