//! The size of an export, estimated from the block headers alone.

use crate::analysis::timeline_events::count::count_events;
use crate::formats::blprof::database::Database;

use super::ChromeOptions;

/// Bytes per event in the written JSON, measured on the fixtures (calls
/// carry their times as args; comm events do not).
const CALL_EVENT_BYTES: u64 = 190;
const COMM_EVENT_BYTES: u64 = 100;

/// An estimate of what an export would write, from the block headers
/// alone (no data read): the events [`count_events`] counts, in bytes of
/// JSON. An upper bound for the calls (they ignore `--min-dur`), an
/// approximation for comm.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExportEstimate {
    pub events: u64,
    pub bytes: u64,
}

pub fn estimate_export(db: &Database, opts: &ChromeOptions) -> ExportEstimate {
    let n = count_events(db, opts.procs.as_deref(), opts.window, opts.comm);
    ExportEstimate {
        events: n.calls.saturating_add(n.comm),
        bytes: n
            .calls
            .saturating_mul(CALL_EVENT_BYTES)
            .saturating_add(n.comm.saturating_mul(COMM_EVENT_BYTES)),
    }
}
