//! Chrome Trace Event JSON (Perfetto, chrome://tracing), streamed: each
//! event is written as it is read, so a trace of any size never sits in
//! memory. Times are microseconds; `pid` is the process, `tid` 0 the call
//! track, `tid` 1 the region track and `tid` 2 the communication track,
//! with flow events from each send to its receive.
//!
//! Which records become events, where and in which order, is the
//! analysis' ([`crate::analysis::timeline_events`]); here they are written.
//! `estimate` sizes an export from the headers, `json` writes the wire
//! format, `format` an event of each kind, `sink` formats tasks in parallel
//! and writes them in order, `blprof` exports a database (calls, regions,
//! comm, flows) and `tlog` a trace file; `limits` words what viewers will
//! not load.

mod blprof;
mod estimate;
mod format;
mod json;
pub mod limits;
mod sink;
mod tlog;

pub use blprof::{write_blprof_trace, write_comm_trace};
pub use estimate::{ExportEstimate, estimate_export};
pub use tlog::write_tlog_trace;

use crate::error::Warning;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ChromeOptions {
    /// Only events overlapping `[t0, t1]` seconds.
    pub window: (f64, f64),
    /// Only these processes (`None`: all).
    pub procs: Option<Vec<usize>>,
    /// Drop calls (and communication calls) shorter than this many seconds;
    /// instants count as 0 s long.
    pub min_dur: f64,
    /// Communication calls and message flows (when the database has a comm
    /// profile).
    pub comm: bool,
    /// What each call carries besides its name and times.
    pub call_args: CallArgs,
    /// Every time of a process minus its clock offset (`--align-clocks`;
    /// `None`: each process's own clock). The window selects on the
    /// processes' own clocks.
    pub clocks: Option<crate::analysis::comm::clocks::ClockOffsets>,
}

/// The `args` of each call event. Viewers that group by name and args
/// (speedscope) see a call with times in its args as a function of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CallArgs {
    /// None: a call is its name, start and duration.
    #[default]
    None,
    /// The call's depth (the same for every call of a function at one
    /// nesting level).
    Summary,
    /// Depth, inclusive and exclusive seconds.
    All,
}

impl ChromeOptions {
    /// Everything: no window, every process, every call, comm included.
    pub fn all() -> Self {
        ChromeOptions {
            window: (f64::NEG_INFINITY, f64::INFINITY),
            procs: None,
            min_dur: 0.0,
            comm: true,
            call_args: CallArgs::All,
            clocks: None,
        }
    }
}

/// What [`write_blprof_trace`] wrote.
#[derive(Debug, Default)]
pub struct ExportStats {
    /// All events, metadata and flow events included.
    pub events: u64,
    /// Communication calls and instants.
    pub comm_events: u64,
    /// Messages drawn as flows (each an `s` and an `f` event).
    pub flows: u64,
    pub warnings: Vec<Warning>,
}

/// Track (`tid`) of the calls, the regions and the communication calls.
pub const TID_CALLS: u32 = 0;
pub const TID_REGIONS: u32 = 1;
pub const TID_COMM: u32 = 2;
