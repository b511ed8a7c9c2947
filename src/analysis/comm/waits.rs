//! Wait states (Scalasca's "who waits for whom"), on the clocks the caller
//! gives ([`ClockOffsets`]: aligned with `--align-clocks`, raw without).
//! The definitions follow Scalasca 2's `MPI.pattern` (its `LateSender`,
//! `LateSenderWO`, `LateReceiver`, `pre_coll_12n`, `pre_coll_n21` and
//! `WaitNxN` patterns), as far as the comm records can tell them; each
//! with a timeline in docs/COMM.md.
//!
//! * **Late sender**: a receiver waits in a blocking receive or in the wait
//!   that completed its receive before the matching send started:
//!   `min(send entry, completion) − entry of the receiving call`, when
//!   positive. A `Waitall` that completes several receives waits once: its
//!   longest late sender counts, caused by that sender.
//! * **Late sender, wrong order**: such a wait while a message sent before
//!   the awaited one was received after it (`waits_order.rs`); counted
//!   here instead of under late sender.
//! * **Late receiver**: a send that cannot complete before its receiver
//!   arrived (posted its receive, or entered its blocking receive) waits
//!   `receiver's arrival − entry of the sending call`, when positive, if
//!   the call ended after the arrival: a blocking send (types 8, 9), or the
//!   one `Wait` (40) that completes a nonblocking send. Wait records name
//!   no request, so a `Wait` is taken to complete an `Isend` when it is the
//!   first completion call (`Wait`, `Waitall`, `Waitany`, `Waitsome`,
//!   `Test`) after it and nothing else was posted since the previous one. A
//!   send that ended before its receiver arrived was buffered (eager): not
//!   a late receiver, however long it took.
//! * **Late broadcast**, **early reduce**: collectives with a root
//!   (`waits_rooted.rs`).
//! * **Wait at barrier**: at barrier `b`, process `p` waits
//!   `min(last entry, own exit) − own entry`; the last to enter caused it.
//! * **Wait at N×N**: the same over the all-reductions (1–4), `Allgather`
//!   and `Alltoall`(`v`), the k-th call of a type on each process being one
//!   collective; a type is left out when the processes made different
//!   numbers of its calls (sub-communicators), and listed as such.
//!
//! Each wait lies inside its own MPI call, so the waits of a call type
//! never exceed that type's MPI time (`comm time`).

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::attribution::{AttributionSums, PathTime, RunPaths, procs_per_run};
use super::clocks::ClockOffsets;
use super::pair_log::PairTimes;
use super::pairs::{Pair, pair_each_unordered};
use super::scope::CommScope;
use super::select::{CommSelection, inside};
use super::sync::barriers;
use super::time::Counted;
use super::timeline::proc_calls;
use crate::analysis::filter::FilterNames;
use super::waits_order::{Received, arrival};
use super::waits_rooted::{RootedCall, RootedSeries, is_rooted};
use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{func_name, is_recv};
use crate::formats::blprof::database::Database;

/// The kinds of wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitState {
    /// A receive waiting for a send posted later.
    LateSender,
    /// A late sender while a message sent earlier was received later.
    LateSenderWrongOrder,
    /// A send that cannot complete waiting for a receive posted later.
    LateReceiver,
    /// A non-root waiting in a broadcast or scatter for its root.
    LateBroadcast,
    /// The root of a reduce or gather waiting for the last caller.
    EarlyReduce,
    /// A process waiting at a barrier for the last to arrive.
    Barrier,
    /// A process waiting in an all-to-all collective for the last to arrive.
    #[serde(rename = "nxn")]
    NxN,
}

impl WaitState {
    /// The name people read (`late sender`, `wait at barrier`).
    pub fn label(self) -> &'static str {
        match self {
            WaitState::LateSender => "late sender",
            WaitState::LateSenderWrongOrder => "wrong order",
            WaitState::LateReceiver => "late receiver",
            WaitState::LateBroadcast => "late broadcast",
            WaitState::EarlyReduce => "early reduce",
            WaitState::Barrier => "wait at barrier",
            WaitState::NxN => "wait at NxN",
        }
    }
}

/// Collective types whose calls wait for all processes (wait at N×N).
const NXN: [i32; 7] = [1, 2, 3, 4, 33, 34, 35];
/// Blocking sends.
const BLOCKING_SENDS: [i32; 2] = [8, 9];
/// Nonblocking sends, and all nonblocking posts (sends and receives).
const NONBLOCKING_SENDS: [i32; 3] = [5, 6, 7];
const NONBLOCKING_POSTS: [i32; 7] = [5, 6, 7, 10, 11, 12, 13];
/// Calls that complete requests: Waitsome, Test, Wait, Waitall, Waitany.
const COMPLETIONS: [i32; 5] = [26, 39, 40, 41, 42];
const WAIT: i32 = 40;
/// The tag of a rooted collective's records (`NoTag`).
const NO_TAG: i32 = -3;
const BARRIER: i32 = 25;

/// One wait.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Wait {
    pub state: WaitState,
    /// The process that waited, in which MPI call type, entered when (on
    /// the report's clocks).
    pub proc: usize,
    #[serde(rename = "type")]
    pub kind: i32,
    pub name: &'static str,
    pub entry: f64,
    pub seconds: f64,
    /// The process it waited for.
    pub caused_by: Option<usize>,
    /// The entry on the process's own clock (for the call paths).
    #[serde(skip)]
    raw_entry: f64,
    /// Late senders: the awaited message's send entry (aligned) and the
    /// receive's completion (own clock), to tell the wrong order.
    #[serde(skip)]
    awaited: (f64, f64),
}

impl Wait {
    /// `proc` waited `seconds` in a call of type `kind` entered at
    /// `(raw, aligned)`, for `caused_by`.
    pub(super) fn new(
        state: WaitState,
        kind: i32,
        proc: usize,
        (raw_entry, entry): (f64, f64),
        seconds: f64,
        caused_by: Option<usize>,
    ) -> Wait {
        Wait {
            state,
            proc,
            kind,
            name: func_name(kind).unwrap_or("?"),
            entry,
            seconds,
            caused_by,
            raw_entry,
            awaited: (f64::NAN, f64::NAN),
        }
    }
}

/// Seconds per wait state.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct StateSeconds {
    pub late_sender: f64,
    pub late_sender_wrong_order: f64,
    pub late_receiver: f64,
    pub late_broadcast: f64,
    pub early_reduce: f64,
    pub barrier: f64,
    pub nxn: f64,
    pub total: f64,
}

impl StateSeconds {
    fn add(&mut self, s: WaitState, x: f64) {
        match s {
            WaitState::LateSender => self.late_sender += x,
            WaitState::LateSenderWrongOrder => self.late_sender_wrong_order += x,
            WaitState::LateReceiver => self.late_receiver += x,
            WaitState::LateBroadcast => self.late_broadcast += x,
            WaitState::EarlyReduce => self.early_reduce += x,
            WaitState::Barrier => self.barrier += x,
            WaitState::NxN => self.nxn += x,
        }
        self.total += x;
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ProcWaits {
    pub proc: usize,
    #[serde(flatten)]
    pub waited: StateSeconds,
    /// Seconds others waited for this process.
    pub caused: f64,
}

/// Waits per wait state and MPI call type.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TypeWaits {
    pub state: WaitState,
    #[serde(rename = "type")]
    pub kind: i32,
    pub name: &'static str,
    pub waits: u64,
    pub seconds: f64,
}

/// Wait seconds of one call path and MPI type.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PathWaits {
    /// Function names from the outermost timed call; empty: outside any.
    pub path: Vec<String>,
    #[serde(rename = "type")]
    pub kind: i32,
    pub name: String,
    pub waits: u64,
    pub seconds: f64,
}

/// The wait states of a database: time a process spent in MPI waiting for
/// another.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct WaitReport {
    /// The process whose clock the times are on (`None`: each its own).
    pub clocks_aligned_to: Option<usize>,
    /// Seconds per kind of wait, over the selected processes.
    pub totals: StateSeconds,
    /// Per selected process, in process order.
    pub procs: Vec<ProcWaits>,
    /// Per MPI call type.
    pub types: Vec<TypeWaits>,
    /// With call traces: per call path (the innermost timed call open at
    /// the waiting call's entry) and type, most first.
    pub paths: Option<Vec<PathWaits>>,
    /// The longest waits, longest first.
    pub top: Vec<Wait>,
    /// Collective types not matched across processes (different numbers
    /// of calls per process), so not counted as N×N waits.
    pub unmatched_collectives: Vec<String>,
    /// The region filter applied (set by the caller; absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_filter: Option<FilterNames>,
}

/// One process's collectives and sending calls.
struct ProcCalls {
    proc: usize,
    /// N×N collectives: (type, entry, exit).
    nxn: Vec<(i32, f64, f64)>,
    rooted: Vec<RootedCall>,
    /// Calls a send can wait in for its receiver, by the send's entry:
    /// (send entry, type, entry, exit) of the blocking send itself, or of
    /// the single `Wait` that completed a nonblocking one.
    sends: Vec<(f64, i32, f64, f64)>,
    warnings: Vec<Warning>,
}

/// Finds the nonblocking sends completed by a single `Wait`, fed one
/// process's calls in order.
#[derive(Default)]
struct SingleWait {
    /// Posts since the last completion call.
    posted: u32,
    /// The entry of the last nonblocking send posted.
    send: Option<f64>,
}

impl SingleWait {
    /// The entry of the send `kind` completes, if it is the single `Wait` of
    /// a lone nonblocking send.
    fn call(&mut self, kind: i32, start: f64) -> Option<f64> {
        if NONBLOCKING_POSTS.contains(&kind) {
            self.posted += 1;
            self.send = NONBLOCKING_SENDS.contains(&kind).then_some(start);
        } else if COMPLETIONS.contains(&kind) {
            let lone = (kind == WAIT && self.posted == 1).then_some(self.send);
            *self = SingleWait::default();
            return lone.flatten();
        }
        None
    }
}

fn collect_calls(db: &Database) -> Vec<ProcCalls> {
    db.comm_blocks(&CommSelection::all()).map_procs(|walk| {
        let proc = walk.proc().proc;
        let (mut nxn, mut rooted, mut sends) = (Vec::new(), Vec::new(), Vec::new());
        let mut single = SingleWait::default();
        let warnings = proc_calls(walk, &mut |c| {
            if c.instant {
                return;
            }
            if NXN.contains(&c.kind) {
                nxn.push((c.kind, c.start, c.end));
            } else if is_rooted(c.kind) && c.tag == NO_TAG {
                // (VisMF's Gatherv records its own rank and a call
                // sentinel in the tag, no root: left out.)
                rooted.push((c.kind, c.peer, c.start, c.end));
            } else if BLOCKING_SENDS.contains(&c.kind) {
                sends.push((c.start, c.kind, c.start, c.end));
            }
            if let Some(send) = single.call(c.kind, c.start) {
                sends.push((send, c.kind, c.start, c.end));
            }
        });
        ProcCalls {
            proc,
            nxn,
            rooted,
            sends,
            warnings,
        }
    })
}

/// A process and its calls of one type: (entry, exit), in order.
type ProcIntervals = (usize, Vec<(f64, f64)>);

/// Per process at one collective: (proc, raw entry, raw exit); the waits.
fn collective_waits(
    state: WaitState,
    kind: i32,
    procs: &[(usize, f64, f64)],
    c: &ClockOffsets,
    out: &mut Vec<Wait>,
) {
    let last = procs
        .iter()
        .map(|&(p, e, _)| (c.align(p, e), p))
        // A damaged time (NaN, infinite) neither waits nor makes wait.
        .filter(|x| x.0.is_finite())
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let Some((last, by)) = last else {
        return;
    };
    for &(p, e, x) in procs {
        let (e2, x2) = (c.align(p, e), c.align(p, x));
        if !(e2.is_finite() && x2.is_finite()) {
            continue;
        }
        let w = last.min(x2) - e2;
        if w > 0.0 && p != by {
            out.push(Wait::new(state, kind, p, (e, e2), w, Some(by)));
        }
    }
}

/// A late-sender candidate, per waiting call (receiver, raw entry bits).
type LateSenders = FxHashMap<(usize, u64), Wait>;

/// Keeps the longest wait of a call; of equal ones, the one caused by the
/// lowest process, then the one awaiting the earliest send and completion
/// (the same whatever the order the pairs come in).
fn keep_longest(m: &mut LateSenders, w: Wait) {
    let key = (w.proc, w.raw_entry.to_bits());
    let first = |a: &Wait, b: &Wait| {
        (b.seconds.total_cmp(&a.seconds))
            .then(a.caused_by.cmp(&b.caused_by))
            .then(a.awaited.0.total_cmp(&b.awaited.0))
            .then(a.awaited.1.total_cmp(&b.awaited.1))
            .is_le()
    };
    match m.get(&key) {
        Some(old) if first(old, &w) => {}
        _ => {
            m.insert(key, w);
        }
    }
}

/// The waits of the processes `scope` selects, entered inside its window
/// and region ranges (the waiting process's own clock), on `scope`'s
/// clocks; the `top` longest; per call path when `paths` (call traces
/// read). The matching over processes reads everything whatever the
/// selection.
pub fn wait_states(
    db: &Database,
    scope: &CommScope,
    top: usize,
    paths: bool,
) -> (WaitReport, Vec<Warning>) {
    let (sel, ranges, c) = (&scope.selection(), scope.ranges(), scope.clocks());
    let mut warnings = Vec::new();
    let mut waits: Vec<Wait> = Vec::new();
    let mut report = WaitReport {
        clocks_aligned_to: scope.is_aligned().then_some(c.reference),
        region_filter: scope.filter_names(),
        ..Default::default()
    };

    // Barriers, by number.
    let (bars, w) = barriers(db, &CommScope::everything(), false);
    warnings.extend(w);
    for b in &bars.barriers {
        let procs: Vec<(usize, f64, f64)> = b
            .procs
            .iter()
            .map(|a| (a.proc, a.arrival, a.exit))
            .collect();
        collective_waits(WaitState::Barrier, BARRIER, &procs, c, &mut waits);
    }

    // Collectives, the k-th call of a type on every process; sends.
    let calls = collect_calls(db);
    let mut sending: FxHashMap<(usize, u64), (i32, f64, f64)> = FxHashMap::default();
    let mut by_kind: BTreeMap<i32, Vec<ProcIntervals>> = BTreeMap::new();
    let mut rooted = RootedSeries::default();
    for pc in calls {
        warnings.extend(pc.warnings);
        for &(send, k, e, x) in &pc.sends {
            sending.insert((pc.proc, send.to_bits()), (k, e, x));
        }
        rooted.add(pc.proc, &pc.rooted);
        for kind in NXN {
            let v: Vec<(f64, f64)> = pc
                .nxn
                .iter()
                .filter(|x| x.0 == kind)
                .map(|x| (x.1, x.2))
                .collect();
            by_kind.entry(kind).or_default().push((pc.proc, v));
        }
    }
    for (kind, per) in by_kind {
        let n = per.first().map_or(0, |x| x.1.len());
        if per.iter().all(|x| x.1.is_empty()) {
            continue;
        }
        if per.iter().any(|x| x.1.len() != n) {
            let (lo, hi) = per.iter().fold((usize::MAX, 0), |a, x| {
                (a.0.min(x.1.len()), a.1.max(x.1.len()))
            });
            report.unmatched_collectives.push(format!(
                "{}: {lo} to {hi} calls per process",
                func_name(kind).unwrap_or("?")
            ));
            continue;
        }
        let mut procs = Vec::with_capacity(per.len());
        for i in 0..n {
            procs.clear();
            procs.extend(per.iter().map(|(p, v)| (*p, v[i].0, v[i].1)));
            collective_waits(WaitState::NxN, kind, &procs, c, &mut waits);
        }
    }
    rooted.waits(c, &mut waits, &mut report.unmatched_collectives);

    // Messages: late senders (per waiting call) and late receivers.
    let mut late: LateSenders = LateSenders::default();
    let received = Received::default();
    let sending = &sending;
    // (In any order: the waits are put in order below.)
    let mut late_receivers = Vec::new();
    let new = || (Vec::new(), Vec::new(), Vec::new());
    let add = |chunk: &mut (Vec<Wait>, Vec<Wait>, Vec<_>), p: &PairTimes| {
        let send = c.align(p.from, p.send_time);
        if let Some(done) = p.completed_time {
            arrival(&mut chunk.2, p.to, done, send);
            // Handed to the sort here, on the thread that made the chunk,
            // so that the runs are sorted there and not where the chunks
            // are taken in order (one thread).
            if chunk.2.len() >= ARRIVALS_PER_TAKE {
                received.take(&mut chunk.2);
            }
        }
        if let Some(w) = late_sender(p, c) {
            chunk.0.push(w);
        }
        if let Some(&call) = sending.get(&(p.from, p.send_time.to_bits())) {
            chunk.1.extend(late_receiver(p, call, c));
        }
    };
    let emit = &mut |(ls, lr, mut r): (Vec<Wait>, Vec<Wait>, Vec<_>)| {
        for w in ls {
            keep_longest(&mut late, w);
        }
        late_receivers.extend(lr);
        received.take(&mut r);
    };
    // The clock estimate's pairing of the same messages, replayed as it
    // was handed on (the same chunks in the same order: the same sums), or
    // a pairing of the selection's.
    let w = match scope.logged_pairs() {
        Some(log) => log.replay(db.dir(), new, add, emit),
        None => {
            let add = |chunk: &mut _, p: &Pair| add(chunk, &PairTimes::from(p));
            pair_each_unordered(db, sel, new, add, emit)
        }
    };
    warnings.extend(w);
    // By sender, then by send time (the raw one; sums over them are the
    // same for any pairing).
    late_receivers.sort_unstable_by(|a: &Wait, b: &Wait| {
        (a.proc.cmp(&b.proc))
            .then(a.raw_entry.total_cmp(&b.raw_entry))
            .then(a.caused_by.cmp(&b.caused_by))
            .then(a.seconds.total_cmp(&b.seconds))
    });
    waits.extend(late_receivers);
    let mut late: Vec<Wait> = late.into_values().collect();
    let asked: Vec<(usize, f64, f64)> = late
        .iter()
        .map(|w| (w.proc, w.awaited.1, w.awaited.0))
        .collect();
    let (wrong, failed) = received.wrong_order(&asked);
    for (w, wrong) in late.iter_mut().zip(wrong) {
        if wrong {
            w.state = WaitState::LateSenderWrongOrder;
        }
    }
    if let Some(e) = failed {
        warnings.push(Warning::note(
            Location::file(db.dir()),
            format!(
                "wait states: the temporary file of the receive order failed ({e}): late \
                 senders in the wrong order may be missed or the order kept in memory \
                 (TMPDIR names where the file goes)"
            ),
        ));
    }
    late.sort_unstable_by(|a, b| {
        (a.proc, a.raw_entry)
            .partial_cmp(&(b.proc, b.raw_entry))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    waits.extend(late);

    waits.retain(|w| {
        sel.wants_proc(w.proc) && sel.contains(w.raw_entry) && inside(ranges, w.proc, w.raw_entry)
    });
    summarise(&mut report, &waits, top);
    if paths {
        let (p, w) = path_waits(db, &mut waits);
        report.paths = Some(p);
        warnings.extend(w);
    }
    (report, warnings)
}

/// The late-sender wait of pair `p`, if its receiver entered the call
/// that completed it before the send was entered.
fn late_sender(p: &PairTimes, c: &ClockOffsets) -> Option<Wait> {
    let (we, done) = (p.wait_entry?, p.completed_time?);
    let send = c.align(p.from, p.send_time);
    let (e2, d2) = (c.align(p.to, we), c.align(p.to, done));
    let w = send.min(d2) - e2;
    // (A NaN from a damaged time is no wait either.)
    if w.is_nan() || w <= 0.0 {
        return None;
    }
    let by = Some(p.from);
    let mut wait = Wait::new(WaitState::LateSender, p.wait_kind, p.to, (we, e2), w, by);
    wait.awaited = (send, done);
    Some(wait)
}

/// The late-receiver wait of pair `p` whose send waited in `call` (type,
/// raw entry, raw exit): from the call's entry to the receiver's arrival,
/// if the call ended after the receiver arrived (else the send was
/// buffered and did not wait for it).
fn late_receiver(p: &PairTimes, (kind, entry, exit): (i32, f64, f64), c: &ClockOffsets) -> Option<Wait> {
    // The receiver arrived at its blocking receive's entry, or when it
    // posted a nonblocking one.
    let arrived = match p.wait_entry {
        Some(we) if is_recv(p.wait_kind) => we,
        _ => p.recv_time,
    };
    let arrived = c.align(p.to, arrived);
    let (e2, x2) = (c.align(p.from, entry), c.align(p.from, exit));
    let w = arrived - e2;
    let ended_after = x2 >= arrived;
    if !ended_after || w.is_nan() || w <= 0.0 {
        return None;
    }
    let by = Some(p.to);
    Some(Wait::new(WaitState::LateReceiver, kind, p.from, (entry, e2), w, by))
}

/// Totals per process and type, and the longest waits.
fn summarise(report: &mut WaitReport, waits: &[Wait], top: usize) {
    let mut procs: BTreeMap<usize, ProcWaits> = BTreeMap::new();
    let mut types: BTreeMap<(WaitState, i32), TypeWaits> = BTreeMap::new();
    let new = |proc| ProcWaits {
        proc,
        waited: StateSeconds::default(),
        caused: 0.0,
    };
    for w in waits {
        report.totals.add(w.state, w.seconds);
        procs
            .entry(w.proc)
            .or_insert_with(|| new(w.proc))
            .waited
            .add(w.state, w.seconds);
        if let Some(by) = w.caused_by {
            procs.entry(by).or_insert_with(|| new(by)).caused += w.seconds;
        }
        let t = types.entry((w.state, w.kind)).or_insert_with(|| TypeWaits {
            state: w.state,
            kind: w.kind,
            name: w.name,
            waits: 0,
            seconds: 0.0,
        });
        t.waits += 1;
        t.seconds += w.seconds;
    }
    report.procs = procs.into_values().collect();
    report.types = types.into_values().collect();
    let mut order: Vec<&Wait> = waits.iter().collect();
    // Longest first; ties by process and entry, so the list is the same
    // whatever the order the waits were found in.
    order.sort_by(|a, b| {
        b.seconds
            .total_cmp(&a.seconds)
            .then(a.proc.cmp(&b.proc))
            .then(a.entry.total_cmp(&b.entry))
    });
    report.top = order.into_iter().take(top).cloned().collect();
}

/// Received messages a chunk gathers before it hands them to the sort of
/// the receive order (a lock taken per so many).
const ARRIVALS_PER_TAKE: usize = 1024;

/// The waits per call path: each process's waits, sorted by entry, given to
/// the innermost timed call open at their entry (comm_attribution).
fn path_waits(db: &Database, waits: &mut [Wait]) -> (Vec<PathWaits>, Vec<Warning>) {
    waits.sort_by(|a, b| {
        a.proc
            .cmp(&b.proc)
            .then(a.raw_entry.total_cmp(&b.raw_entry))
    });
    // Each process walks its whole call trace: runs of processes in
    // parallel, merged in process order (the sums of a sequential pass).
    let procs: Vec<&[Wait]> = waits.chunk_by(|a, b| a.proc == b.proc).collect();
    let runs: Vec<(RunPaths, Vec<Warning>)> = procs
        .par_chunks(procs_per_run(procs.len()))
        .map(|run| {
            let mut paths = RunPaths::default();
            let mut warnings = Vec::new();
            for waits in run {
                let counted: Vec<Counted> = waits
                    .iter()
                    .map(|w| Counted {
                        start: w.raw_entry,
                        seconds: w.seconds,
                        kind: w.kind,
                    })
                    .collect();
                warnings.extend(paths.add(db, waits[0].proc, &counted));
            }
            (paths, warnings)
        })
        .collect();
    let mut sums = AttributionSums::default();
    let mut warnings = Vec::new();
    for (paths, w) in runs {
        sums.add_paths(paths);
        warnings.extend(w);
    }
    let rows = sums.finish(None).paths.unwrap_or_default();
    let rows = rows
        .into_iter()
        .map(|p: PathTime| PathWaits {
            path: p.path,
            kind: p.number,
            name: p.name,
            waits: p.calls,
            seconds: p.seconds,
        })
        .collect();
    (rows, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comm::clocks::estimate_logging_pairs;

    /// On aligned clocks, the waits from the clock estimate's pairing
    /// replayed are those from pairing again, to the last bit.
    #[test]
    fn replayed_pairs_give_the_waits_of_a_second_pairing() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let mut message_waits = 0.0;
        for name in ["amrlevel8", "small4", "asym4", "flush", "nfiles2"] {
            let db = Database::open(fixtures.join(name).join("bl_prof"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let (offsets, pairs, _) = estimate_logging_pairs(&db, true);
            assert!(pairs.is_some(), "{name}");
            let mut paired = CommScope::everything();
            paired.align_clocks(offsets.clone());
            let mut replayed = CommScope::everything();
            replayed.align_clocks_with_pairs(offsets, pairs);
            assert!(replayed.logged_pairs().is_some(), "{name}");
            let json = |scope: &CommScope| {
                let (r, w) = wait_states(&db, scope, 50, true);
                let w: Vec<String> = w.iter().map(|w| w.to_string()).collect();
                (serde_json::to_string(&r).unwrap(), w)
            };
            let (want, got) = (json(&paired), json(&replayed));
            assert_eq!(got, want, "{name}");
            let (r, _) = wait_states(&db, &replayed, 0, false);
            message_waits += r.totals.late_sender + r.totals.late_receiver;
        }
        assert!(message_waits > 0.0, "the fixtures have waits for messages");
    }

    /// A selection of processes or times pairs its own messages: the
    /// estimate's log is not kept for it.
    #[test]
    fn a_selection_keeps_no_log_of_the_pairs() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let db = Database::open(fixtures.join("small4").join("bl_prof")).unwrap();
        for mut scope in [
            CommScope::new(vec![1], (f64::NEG_INFINITY, f64::INFINITY)),
            CommScope::new(Vec::new(), (0.0, 1.0)),
        ] {
            assert!(!scope.pairs_loggable());
            let (offsets, pairs, _) = estimate_logging_pairs(&db, true);
            scope.align_clocks_with_pairs(offsets, pairs);
            assert!(scope.logged_pairs().is_none());
        }
    }

    fn at(procs: &[(usize, f64, f64)]) -> Vec<Wait> {
        let mut out = Vec::new();
        collective_waits(
            WaitState::Barrier,
            BARRIER,
            procs,
            &ClockOffsets::none(),
            &mut out,
        );
        out
    }

    #[test]
    fn everybody_waits_for_the_last_to_enter_within_their_own_call() {
        let w = at(&[(0, 1.0, 5.0), (1, 4.0, 5.0), (2, 3.0, 3.5)]);
        let got: Vec<(usize, f64, Option<usize>)> =
            w.iter().map(|w| (w.proc, w.seconds, w.caused_by)).collect();
        // Process 2 left at 3.5: its wait is capped by its own exit.
        assert_eq!(got, vec![(0, 3.0, Some(1)), (2, 0.5, Some(1))]);
    }

    #[test]
    fn damaged_times_neither_wait_nor_make_wait() {
        let w = at(&[(0, 1.0, 5.0), (1, f64::NAN, 5.0), (2, 2.0, f64::INFINITY)]);
        let got: Vec<(usize, f64)> = w.iter().map(|w| (w.proc, w.seconds)).collect();
        assert_eq!(got, vec![(0, 1.0)]);
    }

    #[test]
    fn a_wait_completes_a_lone_nonblocking_send_only() {
        let mut s = SingleWait::default();
        // Isend, Wait: the Wait completes it.
        assert_eq!(s.call(6, 1.0), None);
        assert_eq!(s.call(WAIT, 2.0), Some(1.0));
        // Isend, Irecv, Wait: which request is unknown.
        for (k, t) in [(6, 3.0), (11, 4.0)] {
            assert_eq!(s.call(k, t), None);
        }
        assert_eq!(s.call(WAIT, 5.0), None);
        // Isend, Waitall: not a single wait; the next Wait has none.
        assert_eq!(s.call(6, 6.0), None);
        assert_eq!(s.call(41, 7.0), None);
        assert_eq!(s.call(WAIT, 8.0), None);
    }

    /// A send waits for its receiver only if it ended after the receiver
    /// arrived; a send that ended before was buffered (eager).
    #[test]
    fn only_a_send_that_outlasts_the_receivers_arrival_is_a_late_receiver() {
        let pair = PairTimes {
            from: 0,
            to: 1,
            send_time: 1.0,
            recv_time: 4.0,
            completed_time: Some(4.5),
            wait_entry: Some(4.0),
            wait_kind: 14,
        };
        let c = ClockOffsets::none();
        let rendezvous = late_receiver(&pair, (8, 1.0, 4.2), &c).map(|w| w.seconds);
        assert_eq!(rendezvous, Some(3.0));
        assert!(late_receiver(&pair, (8, 1.0, 1.5), &c).is_none());
        // The Wait of an Isend: from the Wait's entry.
        let wait = late_receiver(&pair, (WAIT, 2.0, 4.1), &c).map(|w| (w.seconds, w.kind));
        assert_eq!(wait, Some((2.0, WAIT)));
    }

    /// A call's late sender is its longest wait, the lowest process of
    /// equal ones: the same whichever pair comes first.
    #[test]
    fn a_call_keeps_its_longest_wait_in_any_order() {
        let wait = |seconds, by| {
            Wait::new(
                WaitState::LateSender,
                41,
                3,
                (2.0, 2.0),
                seconds,
                Some(by),
            )
        };
        let waits = [wait(0.5, 4), wait(0.75, 6), wait(0.75, 2), wait(0.25, 1)];
        for order in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 0, 3, 2], [2, 3, 0, 1]] {
            let mut m = LateSenders::default();
            for i in order {
                keep_longest(&mut m, waits[i].clone());
            }
            let kept: Vec<(f64, Option<usize>)> =
                m.values().map(|w| (w.seconds, w.caused_by)).collect();
            assert_eq!(kept, [(0.75, Some(2))], "{order:?}");
        }
    }
}
