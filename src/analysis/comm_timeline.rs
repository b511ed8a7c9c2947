//! Communication calls as intervals per process (amrprofparser
//! `-timelinepf` intent): a call starts at its first record and ends at its
//! after-call record (`-7` in size, peer or tag); name tags are instants.

use rayon::prelude::*;

use crate::error::{Location, Warning};
use std::collections::BTreeMap;

use crate::formats::blprof::CommBlockRef;
use crate::formats::blprof::commdata::{AFTER_CALL, NAME_TAG, func_name};
use crate::formats::blprof::database::{Database, ProcComm};

/// One call (or instant, when `end == start` and `instant`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct CommCall {
    pub kind: i32,
    pub name: &'static str,
    pub start: f64,
    pub end: f64,
    pub instant: bool,
    pub size: i32,
    pub peer: i32,
    pub tag: i32,
}

/// Streams the calls of process `p` that overlap `window` to `emit`, block
/// by block in the order their end records are read (not sorted). Memory
/// stays at the calls still open; returns the problems met.
pub fn proc_calls(
    db: &Database,
    p: &ProcComm,
    window: (f64, f64),
    emit: &mut dyn FnMut(CommCall),
) -> Vec<Warning> {
    let mut w = Vec::new();
    let mut send = |c: CommCall| {
        if c.end >= window.0 && c.start <= window.1 {
            emit(c);
        }
    };
    for b in p.blocks.iter().filter(|b| b.ncomm > 0) {
        if !b
            .time_min_max
            .is_some_and(|(a, z)| z >= window.0 && a <= window.1)
        {
            continue;
        }
        let mut records = match db.comm_records(b) {
            Ok(r) => r,
            Err(e) => {
                w.push(skipped(p.proc, b, &e));
                continue;
            }
        };
        // Open call per type: (start, size, peer, tag).
        let mut open: BTreeMap<i32, (f64, i32, i32, i32)> = BTreeMap::new();
        for r in records.by_ref() {
            let name = func_name(r.kind).unwrap_or("?");
            if r.kind == NAME_TAG {
                send(CommCall {
                    kind: r.kind,
                    name,
                    start: r.time,
                    end: r.time,
                    instant: true,
                    size: r.size,
                    peer: r.peer,
                    tag: r.tag,
                });
            } else if r.size == AFTER_CALL || r.peer == AFTER_CALL || r.tag == AFTER_CALL {
                if let Some((t0, s, pe, tg)) = open.remove(&r.kind) {
                    send(CommCall {
                        kind: r.kind,
                        name,
                        start: t0,
                        end: r.time,
                        instant: false,
                        size: s,
                        peer: pe,
                        tag: tg,
                    });
                }
            } else {
                open.entry(r.kind)
                    .or_insert((r.time, r.size, r.peer, r.tag));
            }
        }
        // Calls without an after-record (waits' status records, reduces): instants.
        for (k, (t0, s, pe, tg)) in open {
            send(CommCall {
                kind: k,
                name: func_name(k).unwrap_or("?"),
                start: t0,
                end: t0,
                instant: true,
                size: s,
                peer: pe,
                tag: tg,
            });
        }
        if let Err(e) = records.finish() {
            w.push(skipped(p.proc, b, &e));
        }
    }
    w
}

fn skipped(proc: usize, b: &CommBlockRef, e: &crate::Error) -> Warning {
    Warning::new(
        Location::line(&b.header, b.line),
        format!("process {proc}: comm block skipped: {e}"),
    )
}

/// Per process (sorted by process): its calls in time order. Holds every
/// call in memory: for small selections and tests; reports stream with
/// [`proc_calls`] or bin with [`timeline_rows`].
pub fn comm_calls(
    db: &Database,
    window: (f64, f64),
) -> (Vec<(usize, Vec<CommCall>)>, Vec<Warning>) {
    let per: Vec<(usize, Vec<CommCall>, Vec<Warning>)> = db
        .comm_index()
        .procs
        .par_iter()
        .map(|p| {
            let mut calls = Vec::new();
            let w = proc_calls(db, p, window, &mut |c| calls.push(c));
            calls.sort_by(|a, b| a.start.total_cmp(&b.start));
            (p.proc, calls, w)
        })
        .inspect(|_| db.progress().advance(1))
        .collect();
    let mut warnings = Vec::new();
    let mut out = Vec::new();
    for (p, c, w) in per {
        warnings.extend(w);
        out.push((p, c));
    }
    (out, warnings)
}

/// The time span of the blocks overlapping `window`, clamped to it.
pub fn time_span(db: &Database, window: (f64, f64)) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    for b in db.comm_index().procs.iter().flat_map(|p| &p.blocks) {
        if let Some((a, z)) = b.time_min_max
            && b.ncomm > 0
            && z >= window.0
            && a <= window.1
        {
            t0 = t0.min(a.max(window.0));
            t1 = t1.max(z.min(window.1));
        }
    }
    (t1 >= t0).then_some((t0, t1))
}

/// A run of timeline columns of one process in which the same function
/// type takes the most time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bar {
    /// Columns `first..=last`.
    pub first: u32,
    pub last: u32,
    pub kind: i32,
    pub name: &'static str,
    /// Share of the run's time spent in communication calls (all types), 0..1.
    pub busy: f64,
    /// Calls of `kind` that touch the run.
    pub calls: u64,
}

/// One process's lane.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TimelineRow {
    pub proc: usize,
    pub bars: Vec<Bar>,
}

/// Type numbers 0..=42 (others are counted as 0).
const KINDS: usize = 43;

/// Bins each process's calls into `columns` equal slices of `span`: per
/// column the type with the most time (instants count as present), merged
/// into runs. Memory is per column, not per call, so any number of calls
/// draws in bounded space; processes run in parallel.
pub fn timeline_rows(
    db: &Database,
    window: (f64, f64),
    span: (f64, f64),
    columns: usize,
) -> (Vec<TimelineRow>, Vec<Warning>) {
    let columns = columns.max(1);
    let width = (span.1 - span.0).max(f64::MIN_POSITIVE);
    let per: Vec<(TimelineRow, Vec<Warning>)> = db
        .comm_index()
        .procs
        .par_iter()
        .map(|p| {
            // Per column and type: seconds inside the column, and calls.
            let mut time = vec![0f64; columns * KINDS];
            let mut calls = vec![0u32; columns * KINDS];
            let col = |t: f64| {
                (((t - span.0) / width * columns as f64).floor().max(0.0) as usize).min(columns - 1)
            };
            let w = proc_calls(db, p, window, &mut |c| {
                let k = usize::try_from(c.kind)
                    .ok()
                    .filter(|&k| k < KINDS)
                    .unwrap_or(0);
                let (a, z) = (
                    c.start.max(span.0),
                    c.end.min(span.1).max(c.start.max(span.0)),
                );
                let (ca, cz) = (col(a), col(z));
                for i in ca..=cz {
                    let lo = span.0 + width * i as f64 / columns as f64;
                    let hi = span.0 + width * (i + 1) as f64 / columns as f64;
                    let overlap = (z.min(hi) - a.max(lo)).max(0.0);
                    // An instant still shows: the smallest positive weight.
                    time[i * KINDS + k] += overlap.max(1e-300);
                    calls[i * KINDS + k] += 1;
                }
            });
            let slice = width / columns as f64;
            let mut bars: Vec<Bar> = Vec::new();
            for i in 0..columns {
                let cell = &time[i * KINDS..(i + 1) * KINDS];
                let Some((k, _)) = cell
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| **t > 0.0)
                    .max_by(|a, b| a.1.total_cmp(b.1))
                else {
                    continue;
                };
                let busy = (cell.iter().sum::<f64>() / slice).min(1.0);
                let n = calls[i * KINDS + k] as u64;
                match bars.last_mut() {
                    Some(b) if b.kind == k as i32 && b.last + 1 == i as u32 => {
                        let cols = (b.last - b.first + 1) as f64;
                        b.busy = (b.busy * cols + busy) / (cols + 1.0);
                        b.last = i as u32;
                        b.calls += n;
                    }
                    _ => bars.push(Bar {
                        first: i as u32,
                        last: i as u32,
                        kind: k as i32,
                        name: func_name(k as i32).unwrap_or("?"),
                        busy,
                        calls: n,
                    }),
                }
            }
            (TimelineRow { proc: p.proc, bars }, w)
        })
        .inspect(|_| db.progress().advance(1))
        .collect();
    let mut warnings = Vec::new();
    let mut rows = Vec::new();
    for (r, w) in per {
        warnings.extend(w);
        rows.push(r);
    }
    (rows, warnings)
}
