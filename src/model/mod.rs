//! Format-neutral data models shared by the readers and the reports.

pub mod calltree;
pub mod procs;
pub mod timertree;
pub mod tinyprofiler;
