//! Pairing point-to-point sends with receives (the intent of amrprofparser's
//! `-sr`/`-srlist`, which pair nothing).
//!
//! MPI does not overtake messages between the same two processes with the
//! same tag, so the k-th send from `p` to `q` with tag `t` is matched with the
//! k-th receive on `q` from `p` with tag `t`. A send is its record that
//! carries the byte count (types 5–9); a receive is the record of types
//! 10–15 that carries the byte count and the source. Records whose peer is a
//! wildcard or a sentinel cannot be paired and are listed as unmatched.
//!
//! Process clocks are not synchronised, so `latency` (receive time − send
//! time) mixes two clocks: compare latencies between the same two processes,
//! not absolute values across pairs. For a nonblocking receive the record
//! with the byte count is the one written when the receive was *posted*.

use std::collections::{BTreeMap, VecDeque};

use rayon::prelude::*;

use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{
    AFTER_CALL, CommBlock, CommRecord, func_name, is_recv, is_send,
};
use crate::formats::blprof::database::Database;

/// One side of a message.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MsgEnd {
    pub proc: usize,
    pub peer: i32,
    pub tag: i32,
    pub size: i32,
    pub time: f64,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// A matched message.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pair {
    pub from: usize,
    pub to: usize,
    pub tag: i32,
    /// Bytes sent.
    pub size: i32,
    pub send_time: f64,
    pub recv_time: f64,
    /// recv_time − send_time (two different clocks: see the module docs).
    pub latency: f64,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PairReport {
    pub pairs: Vec<Pair>,
    pub unmatched_sends: Vec<MsgEnd>,
    pub unmatched_recvs: Vec<MsgEnd>,
}

fn end(proc: usize, r: &CommRecord) -> MsgEnd {
    MsgEnd {
        proc,
        peer: r.peer,
        tag: r.tag,
        size: r.size,
        time: r.time,
        kind: func_name(r.kind).unwrap_or("?"),
    }
}

pub fn pair_messages(
    db: &Database,
    sel: &super::comm_select::CommSelection<'_>,
) -> (PairReport, Vec<Warning>) {
    let index = db.comm_index();
    let g = db.comm.as_ref();
    let (size, real) = (
        g.map_or(24, |h| h.record_size()),
        g.map_or(crate::formats::blprof::RealWidth::F64, |h| h.real_width()),
    );
    type Ends = (Vec<MsgEnd>, Vec<MsgEnd>, Vec<Warning>);
    let per: Vec<Ends> = index
        .procs
        .par_iter()
        .map(|p| {
            let (mut sends, mut recvs, mut w) = (Vec::new(), Vec::new(), Vec::new());
            // Both ends are needed for pairing: the process set limits which
            // pairs are reported, not which records are read.
            for b in sel.blocks(p) {
                let r = db.comm_block_file(b).and_then(|f| {
                    let blk = CommBlock::read(&f, b, size, real)?;
                    for r in blk.records().filter(|r| sel.contains(r.time)) {
                        if is_send(r.kind) && r.size != AFTER_CALL {
                            sends.push(end(p.proc, &r));
                        } else if is_recv(r.kind) && r.size >= 0 {
                            recvs.push(end(p.proc, &r));
                        }
                    }
                    Ok(())
                });
                if let Err(e) = r {
                    w.push(Warning::new(
                        Location::line(&b.header, b.line),
                        format!("process {}: messages of a block skipped: {e}", p.proc),
                    ));
                }
            }
            (sends, recvs, w)
        })
        .inspect(|_| db.progress().advance(1))
        .collect();
    let mut warnings = Vec::new();
    // Receives by (receiver, sender, tag), in each receiver's record order.
    let mut queues: BTreeMap<(usize, usize, i32), VecDeque<MsgEnd>> = BTreeMap::new();
    let mut report = PairReport::default();
    let mut all_sends = Vec::new();
    for (sends, recvs, w) in per {
        warnings.extend(w);
        all_sends.extend(sends);
        for r in recvs {
            match usize::try_from(r.peer) {
                Ok(src) => queues.entry((r.proc, src, r.tag)).or_default().push_back(r),
                Err(_) => report.unmatched_recvs.push(r),
            }
        }
    }
    for s in all_sends {
        let matched = usize::try_from(s.peer).ok().and_then(|to| {
            queues
                .get_mut(&(to, s.proc, s.tag))
                .and_then(VecDeque::pop_front)
                .map(|r| (to, r))
        });
        match matched {
            Some((to, r)) => report.pairs.push(Pair {
                from: s.proc,
                to,
                tag: s.tag,
                size: s.size,
                send_time: s.time,
                recv_time: r.time,
                latency: r.time - s.time,
            }),
            None => report.unmatched_sends.push(s),
        }
    }
    report
        .unmatched_recvs
        .extend(queues.into_values().flatten());
    if sel.procs.is_some() {
        report
            .pairs
            .retain(|p| sel.wants_proc(p.from) || sel.wants_proc(p.to));
        report.unmatched_sends.retain(|e| sel.wants_proc(e.proc));
        report.unmatched_recvs.retain(|e| sel.wants_proc(e.proc));
    }
    (report, warnings)
}
