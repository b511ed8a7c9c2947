//! A tlog trace's events as a timeline shows them: per process, each
//! matched IN/OUT pair as an interval (an OUT closes the innermost open IN
//! of its pair) and each single event as an instant, in the order their
//! closing records are read. Records whose time is not finite are left
//! out; an OUT without an open IN is no interval (`tlog summary` counts
//! and warns about those).

use crate::formats::tlog::{EventKind, TlogFile};

/// One event of the timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TlogEvent {
    /// The events of process `pid` follow.
    Process(usize),
    /// A matched IN/OUT pair of pair number `pair`.
    Interval {
        pid: usize,
        pair: u8,
        start: f64,
        /// Never negative.
        dur: f64,
    },
    /// A single event of kind `kind`.
    Single { pid: usize, kind: u8, time: f64 },
}

/// Hands the events of `t` to `visit`, process by process; the first error
/// of `visit` ends the walk.
pub fn for_each_tlog_event<E>(
    t: &TlogFile,
    mut visit: impl FnMut(TlogEvent) -> Result<(), E>,
) -> Result<(), E> {
    for p in t.procs() {
        let pid = p as usize;
        visit(TlogEvent::Process(pid))?;
        // Open INs: (pair, start time).
        let mut open: Vec<(u8, f64)> = Vec::new();
        for (_, r) in t.proc_events(p) {
            if !r.time.is_finite() {
                continue;
            }
            match EventKind::of(r.kind) {
                EventKind::In(k) => open.push((k, r.time)),
                EventKind::Out(k) => {
                    if let Some(j) = open.iter().rposition(|o| o.0 == k) {
                        let (_, t0) = open.remove(j);
                        visit(TlogEvent::Interval {
                            pid,
                            pair: k,
                            start: t0,
                            dur: (r.time - t0).max(0.0),
                        })?;
                    }
                }
                EventKind::Single(k) => visit(TlogEvent::Single {
                    pid,
                    kind: k,
                    time: r.time,
                })?,
                EventKind::Start | EventKind::End | EventKind::Unknown(_) => {}
            }
        }
    }
    Ok(())
}
