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
//! with the byte count is the one written when the receive was *posted*:
//! `latency_to_completion` runs to the wait that returned its status
//! instead ([`super::comm_completion`]; a blocking receive completes at its
//! own record, its exit).
//!
//! Two passes read every selected block. The first, in parallel over
//! processes, queues each process's receives by (sender, tag) and counts its
//! sends by (receiver, tag) in *units* of consecutive records: a unit notes,
//! per key, how many sends of its process with that key came before it. So
//! the second pass knows which receive each send of a unit takes (the k-th
//! send takes the k-th receive) without the units before it, and pairs the
//! units in parallel tasks, a window of four per thread at a time, handing
//! the pairs on in process order and record order (a window's while the
//! next is paired): the same output for any number of threads, with the
//! pairs of two windows in memory.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::comm_completion::{WaitTracker, is_nonblocking_recv};
use super::comm_select::CommSelection;
use crate::error::Warning;
use crate::formats::blprof::CommBlockRef;
use crate::formats::blprof::commdata::{AFTER_CALL, CommRecord, func_name, is_recv, is_send};
use crate::formats::blprof::database::{Database, ProcComm};
use crate::formats::blprof::walk::{CommProcWalk, Skipped};

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
    /// When the receive completed: the exit of the wait that returned its
    /// status (nonblocking), or `recv_time` (blocking); `None` when no wait
    /// was found.
    pub completed_time: Option<f64>,
    /// completed_time − send_time.
    pub latency_to_completion: Option<f64>,
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
    /// Messages whose receive's completion is known, and the mean and
    /// largest latency to it.
    pub completed: u64,
    pub completion_latency_mean: Option<f64>,
    pub completion_latency_max: Option<f64>,
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
/// beyond its queue's key (24 bytes, so millions fit).
#[derive(Debug, Clone, Copy)]
struct Waiting {
    time: f64,
    /// When it completed (NaN: not known yet).
    done: f64,
    size: i32,
    kind: i32,
}

/// A peer process (never negative) and a tag, as a record has them.
type Key = (i32, i32);

/// One receiver's receives from one sender with one tag, in record order,
/// and how many of them a wait has completed (or that completed themselves).
#[derive(Debug, Default)]
struct Queue {
    items: Vec<Waiting>,
    completed: usize,
}

impl Queue {
    /// A status of this queue's source and tag at `time`: the oldest
    /// receive not completed yet completes (blocking ones are passed over:
    /// they completed at their own record).
    fn complete(&mut self, time: f64) {
        while self
            .items
            .get(self.completed)
            .is_some_and(|w| !is_nonblocking_recv(w.kind))
        {
            self.completed += 1;
        }
        if let Some(w) = self.items.get_mut(self.completed) {
            w.done = time;
            self.completed += 1;
        }
    }
}

/// One receiver's queues by (sender, tag).
type Queues = FxHashMap<Key, Queue>;

fn is_paired_send(r: &CommRecord) -> bool {
    is_send(r.kind) && r.size != AFTER_CALL
}

fn is_paired_recv(r: &CommRecord) -> bool {
    is_recv(r.kind) && r.size >= 0
}

/// Raw records per unit of the second pass (about 768 KB of records; some
/// 11,000 pairs, 1.5 MB of JSON, in the synthetic benchmark's mix).
const UNIT_RECORDS: u64 = 32 * 1024;

/// Tasks of the second pass per thread in a window (the pairs of two
/// windows are in memory at once).
const WINDOW_PER_THREAD: usize = 4;

/// Consecutive records of one block of one sender, paired by one task of
/// the second pass independently of the others.
struct Unit<'a> {
    proc: usize,
    block: &'a CommBlockRef,
    /// Raw record index in the block, and raw records.
    first: u64,
    len: u64,
    /// Per (receiver, tag) of the unit's sends: how many sends of the sender
    /// with that key come before the unit, which is the position in the
    /// receiver's queue of the first of them.
    starts: Vec<(Key, usize)>,
}

/// What the first pass finds in one process.
struct FirstPass<'a> {
    queues: Queues,
    /// Receives from a wildcard or sentinel source.
    wild: Vec<MsgEnd>,
    warnings: Vec<Warning>,
    units: Vec<Unit<'a>>,
    /// Sends so far by (receiver, tag), and the number of the last unit
    /// that had one (from 1). At the end the counts say how much of each
    /// receiver's queue from this process the sends take.
    sent: FxHashMap<Key, (usize, usize)>,
    /// Units ended so far, and the start positions of the one at hand.
    ended: usize,
    starts: Vec<(Key, usize)>,
}

impl<'a> FirstPass<'a> {
    /// Counts a send with `key`, noting where the unit's sends of that key
    /// start.
    #[inline]
    fn send(&mut self, key: Key) {
        let unit = self.ended + 1;
        let (n, last) = self.sent.entry(key).or_default();
        if *last != unit {
            *last = unit;
            self.starts.push((key, *n));
        }
        *n += 1;
    }

    /// Ends the unit `first .. first + len` of `block` (kept if it sends).
    fn end_unit(&mut self, p: &ProcComm, block: &'a CommBlockRef, first: u64, len: u64) {
        self.ended += 1;
        if self.starts.is_empty() {
            return;
        }
        self.units.push(Unit {
            proc: p.proc,
            block,
            first,
            len,
            starts: {
                let mut v = std::mem::take(&mut self.starts);
                v.shrink_to_fit();
                v
            },
        });
    }
}

/// Queues the receives of `p` and counts its sends, unit by unit.
fn first_pass(walk: CommProcWalk<'_>, unit_records: u64) -> FirstPass<'_> {
    let (p, sel) = (walk.proc(), *walk.selection());
    let mut f = FirstPass {
        queues: Queues::default(),
        wild: Vec::new(),
        warnings: Vec::new(),
        units: Vec::new(),
        sent: FxHashMap::default(),
        ended: 0,
        starts: Vec::new(),
    };
    // Statuses are read in and out of the window: a receive in it may
    // complete after it.
    let mut waits = WaitTracker::default();
    f.warnings = walk.for_each_block(Skipped::Messages, Skipped::Messages, |b, records| {
        let (mut first, mut i) = (0u64, 0u64);
        for r in records.by_ref() {
            if i - first == unit_records {
                f.end_unit(p, b, first, i - first);
                first = i;
            }
            i += 1;
            if let Some((key, time)) = waits.push(&r) {
                if let Some(q) = f.queues.get_mut(&key) {
                    q.complete(time);
                }
                continue;
            }
            if !sel.contains(r.time) {
                continue;
            }
            if is_paired_recv(&r) {
                if r.peer >= 0 {
                    f.queues
                        .entry((r.peer, r.tag))
                        .or_default()
                        .items
                        .push(Waiting {
                            time: r.time,
                            done: if is_nonblocking_recv(r.kind) {
                                f64::NAN
                            } else {
                                r.time
                            },
                            size: r.size,
                            kind: r.kind,
                        });
                } else {
                    f.wild.push(end(p.proc, &r));
                }
            } else if is_paired_send(&r) && r.peer >= 0 {
                f.send((r.peer, r.tag));
            }
        }
        f.end_unit(p, b, first, i - first);
    });
    f
}

/// What one task of the second pass found, merged in task order.
struct TaskOut<C> {
    chunk: C,
    found: Found,
}

/// The report's part of a task's findings.
#[derive(Default)]
struct Found {
    paired: u64,
    routes: FxHashMap<(usize, usize), RouteParts>,
    unmatched_sends: Vec<MsgEnd>,
}

/// One route's messages in a task. The latencies are kept (8 bytes a pair,
/// for two windows of tasks) so that the caller sums them in send order: the
/// mean is then the same to the last bit whatever the tasks.
#[derive(Default)]
struct RouteParts {
    messages: u64,
    bytes: u64,
    latencies: Vec<f64>,
    /// Latencies to completion (NaN: not known).
    completion: Vec<f64>,
}

/// The pair of send `r` of process `from` and receive `x` on process `to`.
fn pair(from: usize, to: usize, r: &CommRecord, x: &Waiting) -> Pair {
    let completed = (!x.done.is_nan()).then_some(x.done);
    Pair {
        from,
        to,
        tag: r.tag,
        size: r.size,
        send_time: r.time,
        recv_time: x.time,
        latency: x.time - r.time,
        completed_time: completed,
        latency_to_completion: completed.map(|c| c - r.time),
    }
}

/// Pairs the sends of `units` (consecutive in the sender order), giving
/// the pairs to `on_pair` in order. Not generic, so that the hot loop is
/// compiled (and inlined) once, here.
fn second_pass(
    db: &Database,
    sel: &CommSelection<'_>,
    queues: &[Queues],
    position: &FxHashMap<usize, usize>,
    units: &[Unit<'_>],
    on_pair: &mut dyn FnMut(&Pair),
) -> Found {
    let mut out = Found::default();
    for u in units {
        // Per key: the queue index of the next send, and the queue.
        let from = i32::try_from(u.proc).ok();
        let mut cursors: FxHashMap<Key, (usize, &[Waiting])> = u
            .starts
            .iter()
            .map(|&((to, tag), start)| {
                let q = usize::try_from(to)
                    .ok()
                    .and_then(|to| position.get(&to))
                    .and_then(|&i| queues.get(i))
                    .zip(from)
                    .and_then(|(q, from)| q.get(&(from, tag)))
                    .map_or(&[][..], |q| q.items.as_slice());
                ((to, tag), (start, q))
            })
            .collect();
        // The first pass already warned about blocks that cannot be read.
        let Ok(records) = db.comm_records(u.block) else {
            continue;
        };
        for r in records.part(u.first, u.len) {
            if !sel.contains(r.time) || !is_paired_send(&r) {
                continue;
            }
            let matched = usize::try_from(r.peer).ok().and_then(|to| {
                let (next, q) = cursors.get_mut(&(r.peer, r.tag))?;
                let x = q.get(*next).copied();
                *next += 1;
                Some((to, x?))
            });
            match matched {
                Some((to, x)) => {
                    if !(sel.wants_proc(u.proc) || sel.wants_proc(to)) {
                        continue;
                    }
                    let pair = pair(u.proc, to, &r, &x);
                    let route = out.routes.entry((u.proc, to)).or_default();
                    route.messages += 1;
                    route.bytes += r.size.max(0) as u64;
                    route.latencies.push(pair.latency);
                    route
                        .completion
                        .push(pair.latency_to_completion.unwrap_or(f64::NAN));
                    out.paired += 1;
                    on_pair(&pair);
                }
                None => {
                    if sel.wants_proc(u.proc) {
                        out.unmatched_sends.push(end(u.proc, &r));
                    }
                }
            }
        }
    }
    out
}

/// Pairs sends with receives, calling `on_pair` for each pair in a fixed
/// order (by sender, then in the sender's record order). See
/// [`pair_messages_with`], which this wraps: the pairs of two windows of
/// tasks are held at a time.
pub fn pair_messages(
    db: &Database,
    sel: &CommSelection<'_>,
    on_pair: &mut dyn FnMut(&Pair),
) -> (PairReport, Vec<Warning>) {
    pair_messages_with(
        db,
        sel,
        Vec::new,
        |v: &mut Vec<Pair>, p| v.push(p.clone()),
        &mut |v| v.iter().for_each(&mut *on_pair),
    )
}

/// Pairs sends with receives. The first pass queues the receives of each
/// process (in parallel over processes, 16 bytes each) and counts each
/// process's sends per receiver and tag in units of consecutive records. A
/// unit's counts tell which receive its sends take, so the second pass
/// pairs the units in parallel tasks: each starts a chunk with `new` and
/// gives it its pairs through `add`, in record order. `emit` gets the chunks
/// in the fixed order (by sender, then in the sender's record order), a
/// window of four tasks per thread at a time (one window's while the next
/// is paired), so a caller that formats in `add` and writes in `emit`
/// streams the pairs with bounded memory and the same output for any
/// thread count. Pairs and the report cover the
/// messages that touch the selected processes; both ends are read for
/// pairing.
pub fn pair_messages_with<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    new: impl Fn() -> C + Sync,
    add: impl Fn(&mut C, &Pair) + Sync,
    emit: &mut dyn FnMut(C),
) -> (PairReport, Vec<Warning>) {
    pair_in_units(db, sel, UNIT_RECORDS, &new, &add, emit)
}

fn pair_in_units<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    unit_records: u64,
    new: &(impl Fn() -> C + Sync),
    add: &(impl Fn(&mut C, &Pair) + Sync),
    emit: &mut dyn FnMut(C),
) -> (PairReport, Vec<Warning>) {
    let unit_records = unit_records.max(1);
    let index = db.comm_index();
    let mut warnings = Vec::new();
    let mut report = PairReport::default();
    let position: FxHashMap<usize, usize> = index
        .procs
        .iter()
        .enumerate()
        .map(|(i, p)| (p.proc, i))
        .collect();
    // Every process is read: a message of a selected process has its other
    // end in any process.
    let every_proc = CommSelection {
        procs: None,
        ..*sel
    };
    let per: Vec<FirstPass> = db
        .comm_blocks(&every_proc)
        .map_procs(|p| first_pass(p, unit_records));
    let mut queues: Vec<Queues> = Vec::with_capacity(per.len());
    let mut sent: Vec<FxHashMap<Key, (usize, usize)>> = Vec::with_capacity(per.len());
    let mut units: Vec<Unit> = Vec::new();
    for f in per {
        queues.push(f.queues);
        sent.push(f.sent);
        units.extend(f.units);
        report.unmatched_recvs.extend(f.wild);
        warnings.extend(f.warnings);
    }
    // Tasks: runs of units of at least `unit_records` records (small blocks
    // of many processes go together).
    let mut tasks: Vec<std::ops::Range<usize>> = Vec::new();
    let (mut start, mut records) = (0, 0u64);
    for (i, u) in units.iter().enumerate() {
        records = records.saturating_add(u.len);
        if records >= unit_records || i + 1 == units.len() {
            tasks.push(start..i + 1);
            (start, records) = (i + 1, 0);
        }
    }
    let mut routes = RouteSums::new();
    // Each window is paired while this thread hands on the one before it,
    // so that no worker waits on the handing on.
    crate::parallel::Ordered::per_thread(WINDOW_PER_THREAD)
        .overlapped()
        .for_each(
            &tasks,
            |t| {
                let mut chunk = new();
                let found = second_pass(db, sel, &queues, &position, &units[t.clone()], &mut |p| {
                    add(&mut chunk, p)
                });
                TaskOut { chunk, found }
            },
            |TaskOut { chunk, found: o }| {
                // Hands the chunk on and adds up what its task found.
                emit(chunk);
                report.paired += o.paired;
                report.unmatched_sends.extend(o.unmatched_sends);
                for (key, part) in o.routes {
                    let e = routes.entry(key).or_insert_with(RouteSum::new);
                    e.messages += part.messages;
                    e.bytes += part.bytes;
                    for l in part.latencies {
                        e.latency.add(l);
                    }
                    for l in part.completion.into_iter().filter(|l| !l.is_nan()) {
                        e.completion.add(l);
                    }
                }
            },
        );
    report.routes = routes_of(routes);
    // Receives left waiting (past the sends of their queue), by receiver,
    // sender and tag (a stable order).
    for (i, q) in queues.into_iter().enumerate() {
        let receiver = index.procs[i].proc;
        let to = i32::try_from(receiver).ok();
        let mut q: Vec<(Key, Queue)> = q.into_iter().collect();
        q.sort_unstable_by_key(|(key, _)| *key);
        for ((src, tag), waiting) in q {
            let taken = usize::try_from(src)
                .ok()
                .and_then(|src| position.get(&src))
                .and_then(|&s| sent.get(s))
                .zip(to)
                .and_then(|(s, to)| s.get(&(to, tag)))
                .map_or(0, |&(n, _)| n);
            for x in waiting.items.iter().skip(taken) {
                report.unmatched_recvs.push(MsgEnd {
                    proc: receiver,
                    peer: src,
                    tag,
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

/// Count, sum and largest of latencies, added in send order.
#[derive(Debug, Clone, Copy)]
struct Latencies {
    n: u64,
    sum: f64,
    max: f64,
}

impl Latencies {
    fn add(&mut self, l: f64) {
        self.n += 1;
        self.sum += l;
        self.max = self.max.max(l);
    }
}

/// Per route: messages, bytes, latencies and latencies to completion.
#[derive(Debug, Clone, Copy)]
struct RouteSum {
    messages: u64,
    bytes: u64,
    latency: Latencies,
    completion: Latencies,
}

impl RouteSum {
    fn new() -> Self {
        let none = Latencies {
            n: 0,
            sum: 0.0,
            max: f64::NEG_INFINITY,
        };
        RouteSum {
            messages: 0,
            bytes: 0,
            latency: none,
            completion: none,
        }
    }
}

/// Per route (sender, receiver), in route order.
type RouteSums = BTreeMap<(usize, usize), RouteSum>;

fn routes_of(routes: RouteSums) -> Vec<Route> {
    routes
        .into_iter()
        .map(|((from, to), r)| {
            let c = r.completion;
            Route {
                from,
                to,
                messages: r.messages,
                bytes: r.bytes,
                latency_mean: r.latency.sum / r.latency.n as f64,
                latency_max: r.latency.max,
                completed: c.n,
                completion_latency_mean: (c.n > 0).then(|| c.sum / c.n as f64),
                completion_latency_max: (c.n > 0).then_some(c.max),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::path::Path;

    use super::*;

    /// The pairing as one sequential pass over the senders once did it: the
    /// oracle for the units.
    fn sequential(db: &Database, sel: &CommSelection<'_>) -> (Vec<Pair>, PairReport) {
        let index = db.comm_index();
        let every = |p: &ProcComm, f: &mut dyn FnMut(&CommRecord)| {
            for b in sel.blocks(p) {
                if let Ok(mut records) = db.comm_records(b) {
                    for r in records.by_ref() {
                        f(&r);
                    }
                }
            }
        };
        let each = |p: &ProcComm, f: &mut dyn FnMut(&CommRecord)| {
            every(p, &mut |r| {
                if sel.contains(r.time) {
                    f(r)
                }
            })
        };
        let mut report = PairReport::default();
        type Posted = (CommRecord, f64);
        let mut queues: Vec<BTreeMap<(usize, i32), VecDeque<Posted>>> = Vec::new();
        for p in &index.procs {
            // Every receive posted so far, and per (source, tag) the
            // nonblocking ones no status has completed, oldest first.
            let mut posted: Vec<(usize, i32, Posted)> = Vec::new();
            let mut awaiting: BTreeMap<(i32, i32), VecDeque<usize>> = BTreeMap::new();
            let mut waits = WaitTracker::default();
            every(p, &mut |r| {
                if let Some((key, time)) = waits.push(r) {
                    if let Some(i) = awaiting.get_mut(&key).and_then(VecDeque::pop_front) {
                        posted[i].2.1 = time;
                    }
                    return;
                }
                if !sel.contains(r.time) || !is_paired_recv(r) {
                    return;
                }
                match usize::try_from(r.peer) {
                    Ok(src) if is_nonblocking_recv(r.kind) => {
                        awaiting
                            .entry((r.peer, r.tag))
                            .or_default()
                            .push_back(posted.len());
                        posted.push((src, r.tag, (*r, f64::NAN)));
                    }
                    Ok(src) => posted.push((src, r.tag, (*r, r.time))),
                    Err(_) => report.unmatched_recvs.push(end(p.proc, r)),
                }
            });
            let mut q: BTreeMap<(usize, i32), VecDeque<Posted>> = BTreeMap::new();
            for (src, tag, x) in posted {
                q.entry((src, tag)).or_default().push_back(x);
            }
            queues.push(q);
        }
        let mut pairs = Vec::new();
        let mut routes = RouteSums::new();
        for p in &index.procs {
            each(p, &mut |r| {
                if !is_paired_send(r) {
                    return;
                }
                let matched = usize::try_from(r.peer).ok().and_then(|to| {
                    let i = index.procs.iter().position(|q| q.proc == to)?;
                    let x = queues[i].get_mut(&(p.proc, r.tag))?.pop_front()?;
                    Some((to, x))
                });
                match matched {
                    Some((to, (x, done))) if sel.wants_proc(p.proc) || sel.wants_proc(to) => {
                        let latency = x.time - r.time;
                        let e = routes.entry((p.proc, to)).or_insert_with(RouteSum::new);
                        e.messages += 1;
                        e.bytes += r.size.max(0) as u64;
                        e.latency.add(latency);
                        let completed = (!done.is_nan()).then_some(done);
                        if let Some(c) = completed {
                            e.completion.add(c - r.time);
                        }
                        pairs.push(Pair {
                            from: p.proc,
                            to,
                            tag: r.tag,
                            size: r.size,
                            send_time: r.time,
                            recv_time: x.time,
                            latency,
                            completed_time: completed,
                            latency_to_completion: completed.map(|c| c - r.time),
                        });
                    }
                    Some(_) => {}
                    None if sel.wants_proc(p.proc) => report.unmatched_sends.push(end(p.proc, r)),
                    None => {}
                }
            });
        }
        report.paired = pairs.len() as u64;
        report.routes = routes_of(routes);
        for (i, q) in queues.into_iter().enumerate() {
            for ((src, tag), left) in q {
                for (x, _) in left {
                    report.unmatched_recvs.push(MsgEnd {
                        proc: index.procs[i].proc,
                        peer: src as i32,
                        ..end(index.procs[i].proc, &CommRecord { tag, ..x })
                    });
                }
            }
        }
        report.unmatched_recvs.retain(|e| sel.wants_proc(e.proc));
        (pairs, report)
    }

    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }

    /// Units of any size, down to one record, pair exactly as one sequential
    /// pass: the same pairs in the same order, the same report to the bit.
    #[test]
    fn units_of_any_size_pair_as_one_sequential_pass() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let one = [1usize];
        let two = [0usize, 2];
        let selections = [
            CommSelection::all(),
            CommSelection {
                procs: Some(&one),
                ..CommSelection::all()
            },
            // Windows that cut messages: unmatched sends and receives.
            CommSelection {
                window: (0.025, 0.03),
                procs: None,
            },
            CommSelection {
                window: (0.02, 0.03),
                procs: Some(&two),
            },
        ];
        let mut unmatched = 0;
        for name in ["small4", "asym4", "flush", "nfiles2"] {
            let db = Database::open(fixtures.join(name).join("bl_prof")).unwrap();
            for sel in &selections {
                let (pairs, report) = sequential(&db, sel);
                unmatched += report.unmatched_sends.len() + report.unmatched_recvs.len();
                for unit in [1, 2, 3, 7, 64, UNIT_RECORDS] {
                    let mut got = Vec::new();
                    let (r, _) = pair_in_units(
                        &db,
                        sel,
                        unit,
                        &Vec::new,
                        &|v: &mut Vec<Pair>, p| v.push(p.clone()),
                        &mut |v| got.extend(v),
                    );
                    assert_eq!(json(&got), json(&pairs), "{name} {sel:?} units of {unit}");
                    assert_eq!(json(&r), json(&report), "{name} {sel:?} units of {unit}");
                }
            }
        }
        assert!(unmatched > 0, "the windows leave messages unmatched");
    }
}
