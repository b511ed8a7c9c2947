//! Number formatting in one place, so every report prints numbers alike;
//! one module per convention, since byte parity with another tool means
//! printing numbers its way:
//!
//! - [`human`]: times, bytes and percentages for people (units, no zero
//!   that is not zero) — the tables, text, HTML and SVG reports.
//! - [`printf`]: C's `%.Nf` and `%g` — amrprofparser's layouts
//!   (`summary --format reference`, `calltrace`) and the C tlog dump.
//! - [`java`]: Java's `Double.toString` — the Java tlog dump.
//! - [`tinyprofiler`]: AMReX TinyProfiler's tables — the TinyProfiler
//!   report and `compare`'s axis labels.
//! - [`fortran`]: Fortran `ES` descriptors — the timer tree's reference
//!   and Truchas layouts.
//! - [`round_trip`]: the shortest exact decimal — CSV, JSON, XML and
//!   Parquet.
//!
//! [`padding`] is not a convention of numbers but the blanks and tree
//! indents the text layouts share.

pub mod fortran;
pub mod human;
pub mod java;
pub mod padding;
pub mod printf;
pub mod round_trip;
pub mod tinyprofiler;
