//! The communication analyses: one module per question, each taking a
//! [`scope::CommScope`] (which processes and times, region ranges, clock
//! offsets) built once by its caller.

pub mod attribution;
pub mod check;
pub mod clock_offsets;
pub mod clocks;
pub mod completion;
mod latency_log;
mod pair_log;
mod pair_merge;
#[cfg(test)]
mod pair_oracle;
mod pair_rows;
mod pair_sort;
mod pair_types;
mod pair_waiting;
pub mod pairs;
pub mod scope;
pub mod select;
pub mod stats;
pub mod sync;
pub mod time;
pub mod timeline;
pub mod waits;
mod waits_order;
mod waits_rooted;
