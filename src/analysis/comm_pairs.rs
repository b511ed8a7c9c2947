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
use rustc_hash::FxHashMap;

use super::comm_select::CommSelection;
use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{AFTER_CALL, CommRecord, func_name, is_recv, is_send};
use crate::formats::blprof::database::{Database, ProcComm};

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

/// Messages between one sender and one receiver.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Route {
    pub from: usize,
    pub to: usize,
    pub messages: u64,
    pub bytes: u64,
    pub latency_mean: f64,
    pub latency_max: f64,
}

/// Everything but the pairs themselves, which are streamed to the caller.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PairReport {
    /// Pairs reported (those touching the selected processes).
    pub paired: u64,
    /// Per sender and receiver, in that order.
    pub routes: Vec<Route>,
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

/// A receive waiting for its send: what a pair or an unmatched listing needs
/// beyond its queue's key (16 bytes, so millions fit).
#[derive(Debug, Clone, Copy)]
struct Waiting {
    time: f64,
    size: i32,
    kind: i32,
}

/// One receiver's queues by (sender, tag), in record order.
type Queues = FxHashMap<(usize, i32), VecDeque<Waiting>>;

fn is_paired_send(r: &CommRecord) -> bool {
    is_send(r.kind) && r.size != AFTER_CALL
}

fn is_paired_recv(r: &CommRecord) -> bool {
    is_recv(r.kind) && r.size >= 0
}

/// Streams the records of `p` inside the selection's window.
fn each_record(
    db: &Database,
    p: &ProcComm,
    sel: &CommSelection<'_>,
    w: &mut Vec<Warning>,
    mut f: impl FnMut(&CommRecord),
) {
    for b in sel.blocks(p) {
        let r = db.comm_records(b).and_then(|mut records| {
            for r in records.by_ref().filter(|r| sel.contains(r.time)) {
                f(&r);
            }
            records.finish()
        });
        if let Err(e) = r {
            w.push(Warning::new(
                Location::line(&b.header, b.line),
                format!("process {}: messages of a block skipped: {e}", p.proc),
            ));
        }
    }
}

/// Pairs sends with receives. Receives are queued first (in parallel over
/// receivers, 16 bytes each); then each sender's records are streamed in
/// process order and every matched pair goes to `on_pair` at once, so the
/// pairs never sit in memory. Pairs and the report cover the messages that
/// touch the selected processes; both ends are read for pairing.
pub fn pair_messages(
    db: &Database,
    sel: &CommSelection<'_>,
    on_pair: &mut dyn FnMut(&Pair),
) -> (PairReport, Vec<Warning>) {
    let index = db.comm_index();
    let mut warnings = Vec::new();
    let mut report = PairReport::default();
    // Receives of each process (by position in the index).
    let per: Vec<(Queues, Vec<MsgEnd>, Vec<Warning>)> = index
        .procs
        .par_iter()
        .map(|p| {
            let (mut queues, mut wild, mut w) = (Queues::default(), Vec::new(), Vec::new());
            each_record(db, p, sel, &mut w, |r| {
                if !is_paired_recv(r) {
                    return;
                }
                match usize::try_from(r.peer) {
                    Ok(src) => queues.entry((src, r.tag)).or_default().push_back(Waiting {
                        time: r.time,
                        size: r.size,
                        kind: r.kind,
                    }),
                    Err(_) => wild.push(end(p.proc, r)),
                }
            });
            (queues, wild, w)
        })
        .inspect(|_| db.progress().advance(1))
        .collect();
    let position: FxHashMap<usize, usize> = index
        .procs
        .iter()
        .enumerate()
        .map(|(i, p)| (p.proc, i))
        .collect();
    let mut queues: Vec<Queues> = Vec::with_capacity(per.len());
    for (q, wild, w) in per {
        queues.push(q);
        report.unmatched_recvs.extend(wild);
        warnings.extend(w);
    }
    let mut routes: BTreeMap<(usize, usize), (u64, u64, f64, f64)> = BTreeMap::new();
    for p in &index.procs {
        // The first pass already warned about these blocks.
        let mut again = Vec::new();
        each_record(db, p, sel, &mut again, |r| {
            if !is_paired_send(r) {
                return;
            }
            let matched = usize::try_from(r.peer).ok().and_then(|to| {
                let q = queues.get_mut(*position.get(&to)?)?;
                q.get_mut(&(p.proc, r.tag))?.pop_front().map(|x| (to, x))
            });
            match matched {
                Some((to, x)) => {
                    if !(sel.wants_proc(p.proc) || sel.wants_proc(to)) {
                        return;
                    }
                    let pair = Pair {
                        from: p.proc,
                        to,
                        tag: r.tag,
                        size: r.size,
                        send_time: r.time,
                        recv_time: x.time,
                        latency: x.time - r.time,
                    };
                    let e = routes
                        .entry((p.proc, to))
                        .or_insert((0, 0, 0.0, f64::NEG_INFINITY));
                    e.0 += 1;
                    e.1 += r.size.max(0) as u64;
                    e.2 += pair.latency;
                    e.3 = e.3.max(pair.latency);
                    report.paired += 1;
                    on_pair(&pair);
                }
                None => {
                    if sel.wants_proc(p.proc) {
                        report.unmatched_sends.push(end(p.proc, r));
                    }
                }
            }
        });
    }
    report.routes = routes
        .into_iter()
        .map(|((from, to), (n, bytes, sum, max))| Route {
            from,
            to,
            messages: n,
            bytes,
            latency_mean: sum / n as f64,
            latency_max: max,
        })
        .collect();
    // Receives left waiting, by receiver, sender and tag (a stable order).
    for (i, q) in queues.into_iter().enumerate() {
        let receiver = index.procs[i].proc;
        let mut keys: Vec<(usize, i32)> = q.keys().copied().collect();
        keys.sort_unstable();
        let mut q = q;
        for key in keys {
            for x in q.remove(&key).into_iter().flatten() {
                report.unmatched_recvs.push(MsgEnd {
                    proc: receiver,
                    peer: key.0 as i32,
                    tag: key.1,
                    size: x.size,
                    time: x.time,
                    kind: func_name(x.kind).unwrap_or("?"),
                });
            }
        }
    }
    if sel.procs.is_some() {
        report.unmatched_recvs.retain(|e| sel.wants_proc(e.proc));
    }
    (report, warnings)
}
