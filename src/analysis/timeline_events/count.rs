//! The size of a timeline, counted from the block headers alone (no data
//! read): records of the blocks whose time range meets the window, of the
//! selected processes.

use crate::analysis::comm::select::CommSelection;
use crate::formats::blprof::database::Database;

/// Records that would become events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventCount {
    /// An upper bound for the calls (the minimum duration is ignored).
    pub calls: u64,
    /// An approximation for comm (one event per record: calls take two
    /// records, messages add two flow events).
    pub comm: u64,
}

/// The events of the processes `procs` (`None`: all) in `window`, comm
/// counted when `comm`.
pub fn count_events(
    db: &Database,
    procs: Option<&[usize]>,
    window: (f64, f64),
    comm: bool,
) -> EventCount {
    let wants = |p: usize| procs.is_none_or(|v| v.contains(&p));
    let (w0, w1) = window;
    let mut calls = 0u64;
    for p in db.trace_index().procs.iter().filter(|p| wants(p.proc)) {
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
                calls = calls.saturating_add(b.ntrace.saturating_add(b.nrss / 2));
            }
        }
    }
    let mut comm_events = 0u64;
    if comm {
        let sel = CommSelection {
            window,
            procs: None,
        };
        for p in db.comm_index().procs.iter().filter(|p| wants(p.proc)) {
            comm_events = sel
                .blocks(p)
                .fold(comm_events, |n, b| n.saturating_add(b.ncomm));
        }
    }
    EventCount {
        calls,
        comm: comm_events,
    }
}
