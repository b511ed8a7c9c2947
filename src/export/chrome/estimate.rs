//! The size of an export, estimated from the block headers alone.

use crate::formats::blprof::database::Database;

use super::ChromeOptions;

/// Bytes per event in the written JSON, measured on the fixtures (calls
/// carry their times as args; comm events do not).
const CALL_EVENT_BYTES: u64 = 190;
const COMM_EVENT_BYTES: u64 = 100;

/// An estimate of what an export would write, from the block headers
/// alone (no data read): records of the blocks whose time range meets the
/// window, of the selected processes. An upper bound for the calls (they
/// ignore `--min-dur`), an approximation for comm (one event per record:
/// calls take two records, messages add two flow events).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExportEstimate {
    pub events: u64,
    pub bytes: u64,
}

pub fn estimate_export(db: &Database, opts: &ChromeOptions) -> ExportEstimate {
    let (w0, w1) = opts.window;
    let mut call_events = 0u64;
    for p in db
        .trace_index()
        .procs
        .iter()
        .filter(|p| opts.wants_proc(p.proc))
    {
        // `timeMinMax` is cumulative: a block's calls start between the
        // previous block's max and its own.
        let mut prev_max = f64::NEG_INFINITY;
        for b in &p.blocks {
            let keep = match b.time_min_max {
                Some((_, max)) => {
                    let k = max >= w0 && prev_max <= w1;
                    prev_max = max;
                    k
                }
                None => true,
            };
            if keep {
                // Counts come from headers: saturate rather than overflow.
                call_events = call_events.saturating_add(b.ntrace.saturating_add(b.nrss / 2));
            }
        }
    }
    let mut comm_events = 0u64;
    if opts.comm {
        let sel = crate::analysis::comm_select::CommSelection {
            window: opts.window,
            procs: None,
        };
        for p in db
            .comm_index()
            .procs
            .iter()
            .filter(|p| opts.wants_proc(p.proc))
        {
            comm_events = sel
                .blocks(p)
                .fold(comm_events, |n, b| n.saturating_add(b.ncomm));
        }
    }
    ExportEstimate {
        events: call_events.saturating_add(comm_events),
        bytes: call_events
            .saturating_mul(CALL_EVENT_BYTES)
            .saturating_add(comm_events.saturating_mul(COMM_EVENT_BYTES)),
    }
}
