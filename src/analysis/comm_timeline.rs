//! Communication calls as intervals per process (amrprofparser
//! `-timelinepf` intent): a call starts at its first record and ends at its
//! after-call record (`-7` in size, peer or tag); name tags are instants.

use rayon::prelude::*;

use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{AFTER_CALL, CommBlock, NAME_TAG, func_name};
use crate::formats::blprof::database::Database;

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

/// Per process (sorted by process): its calls in time order.
pub fn comm_calls(
    db: &Database,
    window: (f64, f64),
) -> (Vec<(usize, Vec<CommCall>)>, Vec<Warning>) {
    let index = db.comm_index();
    let g = db.comm.as_ref();
    let (size, real) = (
        g.map_or(24, |h| h.record_size()),
        g.map_or(crate::formats::blprof::RealWidth::F64, |h| h.real_width()),
    );
    type ProcCalls = (usize, Vec<CommCall>, Vec<Warning>);
    let per: Vec<ProcCalls> = index
        .procs
        .par_iter()
        .map(|p| {
            let mut calls = Vec::new();
            let mut w = Vec::new();
            for b in p.blocks.iter().filter(|b| b.ncomm > 0) {
                if !b
                    .time_min_max
                    .is_some_and(|(a, z)| z >= window.0 && a <= window.1)
                {
                    continue;
                }
                let r = db.data_file(&b.datafile).and_then(|f| {
                    let blk = CommBlock::read(&f, b, size, real)?;
                    // Open call per type: (start, size, peer, tag).
                    let mut open: std::collections::BTreeMap<i32, (f64, i32, i32, i32)> =
                        Default::default();
                    for r in blk.records() {
                        let name = func_name(r.kind).unwrap_or("?");
                        if r.kind == NAME_TAG {
                            calls.push(CommCall {
                                kind: r.kind,
                                name,
                                start: r.time,
                                end: r.time,
                                instant: true,
                                size: r.size,
                                peer: r.peer,
                                tag: r.tag,
                            });
                        } else if r.size == AFTER_CALL
                            || r.peer == AFTER_CALL
                            || r.tag == AFTER_CALL
                        {
                            if let Some((t0, s, pe, tg)) = open.remove(&r.kind) {
                                calls.push(CommCall {
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
                        calls.push(CommCall {
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
                    Ok(())
                });
                if let Err(e) = r {
                    w.push(Warning::new(
                        Location::line(&b.header, b.line),
                        format!("process {}: comm block skipped: {e}", p.proc),
                    ));
                }
            }
            calls.retain(|c| c.end >= window.0 && c.start <= window.1);
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
