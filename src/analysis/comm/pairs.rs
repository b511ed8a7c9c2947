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
//! instead ([`super::completion`]; a blocking receive completes at its
//! own record, its exit).
//!
//! Memory is bounded whatever the order of the records in the files. A
//! first pass, in parallel over processes, cuts each process's records
//! into *units* of consecutive records and counts its sends and receives.
//! The sends are then paired in sender order a *window* at a time (256 Ki
//! sends). The receive each send takes comes from a hash join through a
//! temporary file ([`super::pair_join`]: one more read of the files);
//! when it declines (one key carries most messages) or has no room,
//! [`super::pair_window`] ranks the window's sends per (receiver,
//! tag), finds where each key's ranks start in the sender's earlier
//! records, and reads every receiver's records for the receives at those
//! ranks (a read per window). A window's sends are paired in parallel
//! tasks, a few per thread at a time, handing the pairs on in process
//! order and record order: the same output for any number of threads.
//! Without the join, unmatched receives are looked for (again a window of
//! receives at a time) only when fewer sends took a receive than there
//! are receives.
//! A caller that only sums the pairs ([`pair_messages_unordered`]: the
//! table, the clock estimate) has the join make them in its partitions,
//! in an order of the data's, and skips the windows; when a sample of
//! each process already shows the join reading less
//! ([`super::pair_forecast`]), it skips the first pass too.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::pair_forecast::{SampleSizes, join_events};
use super::pair_join::{
    Declined, Event, Filed, JoinSizes, PairedIn, Ranks, Scratch, file, join, unmatched_recvs,
};
use super::pair_window::{NO_KEY, Peers, Window, WindowCost, WindowSend, unmatched_receives};
use super::select::{CommSelection, ProcRanges, inside};
use crate::analysis::exact_sum::ExactSum;
use crate::analysis::filter::FilterNames;
use crate::error::{Location, Warning};
use crate::formats::blprof::CommBlockRef;
use crate::formats::blprof::commdata::{AFTER_CALL, CommRecord, func_name, is_recv, is_send};
use crate::formats::blprof::database::Database;
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
    /// The sending process.
    pub from: usize,
    /// The receiving process.
    pub to: usize,
    /// The message tag.
    pub tag: i32,
    /// Bytes sent.
    pub size: i32,
    /// When the send was entered, seconds on the sender's clock.
    pub send_time: f64,
    /// When the receive was entered, seconds on the receiver's clock.
    pub recv_time: f64,
    /// recv_time − send_time (two different clocks: see the module docs).
    pub latency: f64,
    /// When the receive completed: the exit of the wait that returned its
    /// status (nonblocking), or `recv_time` (blocking); `None` when no wait
    /// was found.
    pub completed_time: Option<f64>,
    /// completed_time − send_time.
    pub latency_to_completion: Option<f64>,
    /// When the call that completed the receive was entered (the wait's,
    /// or a blocking receive's first record) and its MPI type: where the
    /// receiver started to wait (wait states, not in the outputs).
    #[serde(skip)]
    pub wait_entry: Option<f64>,
    /// The MPI call type of that call (the comm profile's number).
    #[serde(skip)]
    pub wait_kind: i32,
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
pub struct PairingSummary {
    /// Pairs reported (those touching the selected processes).
    pub paired: u64,
    /// Per sender and receiver, in that order.
    pub routes: Vec<Route>,
    /// Sends no receive was found for.
    pub unmatched_sends: Vec<MsgEnd>,
    /// Receives no send was found for.
    pub unmatched_recvs: Vec<MsgEnd>,
    /// With `--align-clocks`: the process whose clock all times are on
    /// (docs/COMM.md); absent: each process's own clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks_aligned_to: Option<usize>,
    /// The region filter applied (set by the caller; absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_filter: Option<FilterNames>,
}

pub(super) fn end(proc: usize, r: &CommRecord) -> MsgEnd {
    MsgEnd {
        proc,
        peer: r.peer,
        tag: r.tag,
        size: r.size,
        time: r.time,
        kind: func_name(r.kind).unwrap_or("?"),
    }
}

/// A receive taken by a send: what a pair or an unmatched listing needs
/// beyond its key and its send (24 bytes).
#[derive(Debug, Clone, Copy)]
pub(super) struct Waiting {
    pub time: f64,
    /// When it completed (NaN: not known).
    pub done: f64,
    /// When the call that completed it was entered, and its type.
    pub entry: f64,
    pub wait_kind: i32,
    pub kind: i32,
}

impl Waiting {
    /// A slot no receive filled.
    pub const EMPTY: Waiting = Waiting {
        time: 0.0,
        done: f64::NAN,
        entry: f64::NAN,
        wait_kind: 0,
        kind: i32::MIN,
    };

    pub fn is_empty(&self) -> bool {
        self.kind == i32::MIN
    }

    /// Receive `r` as its record tells it: a blocking one completes at
    /// its record and was entered at `recv_entry` (its before-record, when
    /// not later); a nonblocking one waits for a status.
    pub fn posted(r: &CommRecord, recv_entry: f64) -> Waiting {
        let nonblocking = super::completion::is_nonblocking_recv(r.kind);
        Waiting {
            time: r.time,
            done: if nonblocking { f64::NAN } else { r.time },
            entry: if nonblocking {
                f64::NAN
            } else if recv_entry <= r.time {
                recv_entry
            } else {
                r.time
            },
            wait_kind: r.kind,
            kind: r.kind,
        }
    }
}

pub(super) fn is_paired_send(r: &CommRecord) -> bool {
    is_send(r.kind) && r.size != AFTER_CALL
}

pub(super) fn is_paired_recv(r: &CommRecord) -> bool {
    is_recv(r.kind) && r.size >= 0
}

/// The sizes the pairing works in.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    /// Raw records per unit (about 768 KB of records).
    unit_records: u64,
    /// Sends per window: what the pairing holds at a time (some 40 bytes
    /// per send for the send, its key and its receive).
    window_sends: usize,
    /// Sends per parallel task of a window (some 3,000 pairs, 0.4 MB of
    /// JSON).
    task_sends: usize,
    /// The join's ([`super::pair_join`]); `None`: the windows find
    /// their receives.
    join: Option<JoinSizes>,
    /// Whether the pairs must reach the caller in sender order.
    order: PairOrder,
    /// For pairs in any order: a sample that may choose the join without
    /// the first pass ([`super::pair_forecast`]).
    forecast: Option<SampleSizes>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PairOrder {
    /// By sender, then in the sender's record order.
    Sender,
    /// Any order fixed by the data ([`pair_messages_unordered`]).
    Any,
}

const SIZES: Sizes = Sizes {
    unit_records: 32 * 1024,
    window_sends: 256 * 1024,
    task_sends: 4 * 1024,
    // Partitions of some 5 MB as filed, 8 MB in memory (matched in parts
    // that stay in the cache): few enough that the filing's buffers are
    // long (on the yardstick of docs/PERFORMANCE.md, 64 Ki events took 6%
    // more time, 256 Ki 9% more and twice the memory).
    join: Some(JoinSizes {
        partition: 128 * 1024,
        limit: 512 * 1024,
        pending: 1024 * 1024,
        event_cost: 12,
    }),
    order: PairOrder::Sender,
    // 16 Ki records of each process (1% of the yardstick's) in 8 runs
    // of 48 KB.
    forecast: Some(SampleSizes {
        runs: 8,
        run: 2 * 1024,
        share: 16,
    }),
};

/// Tasks of a window per thread handed on at a time (the pairs of two
/// such runs of tasks are in memory at once).
const TASKS_PER_THREAD: usize = 4;

/// Consecutive records of one block of one sender, with sends.
pub(super) struct Unit<'a> {
    pub proc: usize,
    pub block: &'a CommBlockRef,
    /// Raw record index in the block, and raw records.
    pub first: u64,
    pub len: u64,
    /// Sends in the selection.
    pub sends: u64,
}

/// What the first pass finds in one process.
struct FirstPass<'a> {
    units: Vec<Unit<'a>>,
    /// Receives from a wildcard or sentinel source.
    wild: Vec<MsgEnd>,
    /// Receives from a process.
    recvs: u64,
    /// Whom its sends go to.
    peers: Peers,
    warnings: Vec<Warning>,
}

/// Cuts the blocks of `p` into units and counts its receives.
fn first_pass(walk: CommProcWalk<'_>, unit_records: u64) -> FirstPass<'_> {
    let (p, sel) = (walk.proc(), *walk.selection());
    let mut units = Vec::new();
    let mut wild = Vec::new();
    let mut recvs = 0;
    let mut peers = Peers::default();
    let warnings = walk.for_each_block(Skipped::Messages, Skipped::Messages, |b, records| {
        let (mut first, mut i, mut sends) = (0u64, 0u64, 0u64);
        let mut end_unit = |first: u64, len: u64, sends: &mut u64| {
            if *sends > 0 {
                units.push(Unit {
                    proc: p.proc,
                    block: b,
                    first,
                    len,
                    sends: *sends,
                });
            }
            *sends = 0;
        };
        for r in records.by_ref() {
            if i - first == unit_records {
                end_unit(first, i - first, &mut sends);
                first = i;
            }
            i += 1;
            if !sel.contains(r.time) {
                continue;
            }
            if is_paired_send(&r) {
                sends += 1;
                peers.add(r.peer);
            } else if is_paired_recv(&r) {
                if r.peer >= 0 {
                    recvs += 1;
                } else {
                    wild.push(end(p.proc, &r));
                }
            }
        }
        end_unit(first, i - first, &mut sends);
    });
    FirstPass {
        units,
        wild,
        recvs,
        peers,
        warnings,
    }
}

/// What one task found, merged in task order.
struct TaskOut<C> {
    chunk: C,
    found: Found,
}

/// The report's part of a task's findings.
#[derive(Default)]
struct Found {
    paired: u64,
    /// Sends that took a receive (reported or not).
    matched: u64,
    routes: FxHashMap<(usize, usize), RouteSum>,
    unmatched_sends: Vec<MsgEnd>,
}

impl Found {
    /// Counts a pair reported.
    fn add(&mut self, p: &Pair) {
        self.paired += 1;
        self.routes
            .entry((p.from, p.to))
            .or_insert_with(RouteSum::new)
            .add(p);
    }
}

/// The pair of send `s` and receive `x` on process `to`.
fn pair(s: &WindowSend, to: usize, x: &Waiting) -> Pair {
    let completed = (!x.done.is_nan()).then_some(x.done);
    Pair {
        from: s.from,
        to,
        tag: s.tag,
        size: s.size,
        send_time: s.time,
        recv_time: x.time,
        latency: x.time - s.time,
        completed_time: completed,
        latency_to_completion: completed.map(|c| c - s.time),
        wait_entry: completed.and((!x.entry.is_nan()).then_some(x.entry)),
        wait_kind: x.wait_kind,
    }
}

/// Pairs the sends `range` of `w`, giving the pairs to `on_pair` in order.
/// Not generic, so that the loop is compiled once, here. With a region
/// filter, a pair (or unmatched send) is reported when its send lies in the
/// sender's `ranges`; the pairing itself took every record.
fn pair_sends(
    w: &Window,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    range: std::ops::Range<usize>,
    on_pair: &mut dyn FnMut(&Pair),
) -> Found {
    let mut out = Found::default();
    for s in &w.sends[range] {
        let x = w.receive(s).filter(|_| s.key != NO_KEY);
        if let Some(e) = out.take(sel, ranges, s, x, on_pair) {
            out.unmatched_sends.push(e);
        }
    }
    out
}

impl Found {
    /// Send `s` with the receive `x` it takes, if any: a pair reported (to
    /// `on_pair`) when it touches the selection, or the send to list as
    /// unmatched. With a region filter, a pair (or unmatched send) is
    /// reported when its send lies in the sender's `ranges`.
    #[inline]
    fn take(
        &mut self,
        sel: &CommSelection<'_>,
        ranges: Option<&ProcRanges>,
        s: &WindowSend,
        x: Option<&Waiting>,
        on_pair: &mut dyn FnMut(&Pair),
    ) -> Option<MsgEnd> {
        match x.zip(usize::try_from(s.to).ok()) {
            Some((x, to)) => {
                self.matched += 1;
                if (sel.wants_proc(s.from) || sel.wants_proc(to)) && inside(ranges, s.from, s.time)
                {
                    let pair = pair(s, to, x);
                    self.add(&pair);
                    on_pair(&pair);
                }
                None
            }
            None => (sel.wants_proc(s.from) && inside(ranges, s.from, s.time)).then(|| MsgEnd {
                proc: s.from,
                peer: s.to,
                tag: s.tag,
                size: s.size,
                time: s.time,
                kind: func_name(s.kind).unwrap_or("?"),
            }),
        }
    }
}

/// Pairs sends with receives, calling `on_pair` for each pair in a fixed
/// order (by sender, then in the sender's record order).
pub fn pair_messages(
    db: &Database,
    sel: &CommSelection<'_>,
    on_pair: &mut dyn FnMut(&Pair),
) -> (PairingSummary, Vec<Warning>) {
    pair_messages_in(
        db,
        sel,
        None,
        Vec::new,
        |v: &mut Vec<Pair>, p| v.push(p.clone()),
        &mut |v| v.iter().for_each(&mut *on_pair),
    )
}

/// Pairs sends with receives. A first pass (in parallel over processes)
/// cuts each process's records into units and counts its receives; then
/// the sends, in sender order, are paired a window at a time
/// ([`super::pair_window`]: memory is bounded by the window, whatever
/// the order of the records in the files). A window's sends are paired in
/// parallel tasks: each starts a chunk with `new` and gives it its pairs
/// through `add`, in record order; `emit` gets the chunks in the fixed
/// order (by sender, then in the sender's record order), a few tasks per
/// thread at a time, so a caller that formats in `add` and writes in `emit`
/// streams the pairs with bounded memory and the same output for any
/// thread count. Pairs and the report cover the messages that touch the
/// selected processes; both ends are read for pairing.
///
/// With `ranges` (a region filter's, the sender's own clock), only the
/// messages whose send lies in them are reported, and the unmatched ends
/// whose own record does. The pairing reads every record, so a filter
/// never changes which send takes which receive.
pub fn pair_messages_in<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    new: impl Fn() -> C + Sync,
    add: impl Fn(&mut C, &Pair) + Sync,
    emit: &mut dyn FnMut(C),
) -> (PairingSummary, Vec<Warning>) {
    pair_in_windows(db, sel, ranges, SIZES, &new, &add, emit)
}

/// [`pair_messages_in`] for a caller that only sums, counts or takes
/// extremes of the pairs: `emit` gets the chunks in an order that depends
/// on the data alone (the same for any thread count) but is not the
/// senders'. The report is the same. When the join pairs, the pairs are
/// made in its partitions, and the sends are not read again in order.
pub fn pair_messages_unordered<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    new: impl Fn() -> C + Sync,
    add: impl Fn(&mut C, &Pair) + Sync,
    emit: &mut dyn FnMut(C),
) -> (PairingSummary, Vec<Warning>) {
    let sizes = Sizes {
        order: PairOrder::Any,
        ..SIZES
    };
    pair_in_windows(db, sel, ranges, sizes, &new, &add, emit)
}

fn pair_in_windows<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    sizes: Sizes,
    new: &(impl Fn() -> C + Sync),
    add: &(impl Fn(&mut C, &Pair) + Sync),
    emit: &mut dyn FnMut(C),
) -> (PairingSummary, Vec<Warning>) {
    let unit_records = sizes.unit_records.max(1);
    let index = db.comm_index();
    let mut warnings = Vec::new();
    let mut report = PairingSummary::default();
    let position = index.positions();
    // Every process is read: a message of a selected process has its other
    // end in any process.
    let every_proc = CommSelection {
        procs: None,
        ..*sel
    };
    // (The partitions take processes' numbers as 32 bits.)
    let in_partitions =
        sizes.order == PairOrder::Any && index.procs.iter().all(|p| i32::try_from(p.proc).is_ok());
    let mut sizes = sizes;
    if in_partitions
        && let (Some(size), Some(sample)) = (sizes.join, sizes.forecast)
        && let Some(events) = join_events(db, &every_proc, sizes.window_sends, &size, sample)
    {
        let ranks = Ranks::Forecast { events };
        match file(db, &every_proc, ranks, size, PairedIn::Partitions) {
            Ok(Ok(mut filed)) => {
                #[cfg(test)]
                tests::FORECAST_FILED.with(|n| n.set(n.get() + 1));
                report.unmatched_recvs = std::mem::take(&mut filed.wild);
                warnings.append(&mut filed.warnings);
                let (report, failed) =
                    report_in_partitions(db, filed, sel, ranges, new, add, emit, report);
                warnings.extend(failed);
                return (report, warnings);
            }
            // It would decline after the first pass too.
            Ok(Err(Declined::OneKey)) => sizes.join = None,
            // (The first pass chooses, and notes a temporary file that
            // fails again.)
            Ok(Err(Declined::Miscounted)) | Err(_) => {}
        }
    }
    let per: Vec<FirstPass> = db
        .comm_blocks(&every_proc)
        .map_procs(|p| first_pass(p, unit_records));
    let mut units: Vec<Unit> = Vec::new();
    let mut recvs = 0u64;
    // Per process of the index (all are read): whom it sends to, and its
    // receives.
    let mut senders: Vec<(Peers, u64)> = Vec::with_capacity(per.len());
    for f in per {
        senders.push((f.peers, f.recvs));
        units.extend(f.units);
        recvs += f.recvs;
        report.unmatched_recvs.extend(f.wild);
        warnings.extend(f.warnings);
    }
    let windows = windows_of(&units, sizes.window_sends);
    // Each unit's first send's rank in the run.
    let unit_seq: Vec<u64> = std::iter::once(0)
        .chain(units.iter().scan(0u64, |n, u| {
            *n += u.sends;
            Some(*n)
        }))
        .collect();
    // The join reads every record once more and costs some records'
    // reading per send and receive; the windows read their receivers'
    // records again per window, which costs less when each process sends
    // to few others.
    let join_pays = |size: &JoinSizes| {
        let sends = unit_seq.last().copied().unwrap_or(0);
        let cost = WindowCost {
            db,
            sel: &every_proc,
            units: &units,
            windows: &windows,
            senders: &senders,
            position: &position,
        };
        // (Receives are left over, and looked for, at least when there
        // are more of them than sends.)
        let (windows_read, every) = cost.records(recvs > sends, sizes.window_sends as u64);
        let events = sends.saturating_add(recvs);
        size.event_cost == 0
            || windows_read > every.saturating_add(events.saturating_mul(size.event_cost))
    };
    let spill_failed = |e: std::io::Error| {
        // Slower, not wrong: worth a note.
        Warning::note(
            Location::file(db.dir()),
            format!(
                "message pairing: the temporary file failed ({e}): pairing window by window \
                 instead (slower; TMPDIR names where the file goes)"
            ),
        )
    };
    let joined = match sizes.join.filter(join_pays) {
        None => None,
        Some(size) if in_partitions => {
            let ranks = Ranks::Counted {
                units: &units,
                unit_seq: &unit_seq,
                recvs,
            };
            match file(db, &every_proc, ranks, size, PairedIn::Partitions) {
                Ok(Ok(filed)) => {
                    let (report, failed) =
                        report_in_partitions(db, filed, sel, ranges, new, add, emit, report);
                    warnings.extend(failed);
                    return (report, warnings);
                }
                Ok(Err(_)) => None,
                Err(e) => {
                    warnings.push(spill_failed(e));
                    None
                }
            }
        }
        Some(size) => match join(db, &every_proc, &units, &unit_seq, &windows, recvs, size) {
            Ok(j) => j,
            Err(e) => {
                warnings.push(spill_failed(e));
                None
            }
        },
    };
    let mut routes = RouteSums::new();
    let mut matched = 0u64;
    let task = sizes.task_sends.max(1);
    // The last window's vectors, for the next (their memory stays mapped).
    let mut spare = (Vec::new(), Vec::new());
    for (i, range) in windows.into_iter().enumerate() {
        let from_join = joined.as_ref().and_then(|j| {
            let (sends, taken) = std::mem::take(&mut spare);
            Window::with_receives(
                db,
                &every_proc,
                &units,
                range.clone(),
                &unit_seq,
                sends,
                || j.receives(i, taken),
            )
        });
        let w = match from_join {
            Some(w) => w,
            None => Window::build(db, &every_proc, &units, range, &position),
        };
        let tasks = (0..w.sends.len())
            .step_by(task)
            .map(|a| a..(a + task).min(w.sends.len()));
        // Each run of tasks is paired while this thread hands on the one
        // before it, so that no worker waits on the handing on.
        crate::parallel::Ordered::per_thread(TASKS_PER_THREAD)
            .overlapped()
            .for_each(
                tasks,
                |t| {
                    let mut chunk = new();
                    let found = pair_sends(&w, sel, ranges, t, &mut |p| add(&mut chunk, p));
                    TaskOut { chunk, found }
                },
                |TaskOut { chunk, found: o }| {
                    // Hands the chunk on and adds up what its task found.
                    emit(chunk);
                    report.paired += o.paired;
                    matched += o.matched;
                    report.unmatched_sends.extend(o.unmatched_sends);
                    for (key, part) in o.routes {
                        routes.entry(key).or_insert_with(RouteSum::new).merge(&part);
                    }
                },
            );
        spare = w.into_parts();
    }
    report.routes = routes_of(routes);
    // Receives no send took (past the sends of their sender and tag), by
    // receiver, sender and tag: looked for only when some are left.
    if let Some(mut j) = joined {
        report
            .unmatched_recvs
            .extend(std::mem::take(&mut j.unmatched_recvs));
    } else if matched < recvs {
        for q in index.procs.iter().filter(|q| sel.wants_proc(q.proc)) {
            let mut left = unmatched_receives(db, &every_proc, &units, q, sizes.window_sends);
            left.sort_by_key(|e| (e.peer, e.tag));
            report.unmatched_recvs.extend(left);
        }
    }
    (selected(report, sel, ranges), warnings)
}

/// Windows: runs of `units` of at least `window_sends` sends (the last
/// may have fewer).
pub(super) fn windows_of(units: &[Unit<'_>], window_sends: usize) -> Vec<std::ops::Range<usize>> {
    let mut windows = Vec::new();
    let (mut start, mut n) = (0, 0u64);
    for (i, u) in units.iter().enumerate() {
        n = n.saturating_add(u.sends);
        if n >= window_sends as u64 || i + 1 == units.len() {
            windows.push(start..i + 1);
            (start, n) = (i + 1, 0);
        }
    }
    windows
}

/// The unmatched receives of `report` that the selection reports.
fn selected(
    mut report: PairingSummary,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
) -> PairingSummary {
    if sel.procs.is_some() || ranges.is_some() {
        report
            .unmatched_recvs
            .retain(|e| sel.wants_proc(e.proc) && inside(ranges, e.proc, e.time));
    }
    report
}

/// The report of pairing `filed` in its partitions ([`pair_partitions`]),
/// `report` holding what the first pass found; with a warning when the
/// temporary file failed on the way.
#[allow(clippy::too_many_arguments)]
fn report_in_partitions<C: Send>(
    db: &Database,
    filed: Filed,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    new: &(impl Fn() -> C + Sync),
    add: &(impl Fn(&mut C, &Pair) + Sync),
    emit: &mut dyn FnMut(C),
    report: PairingSummary,
) -> (PairingSummary, Option<Warning>) {
    let mut taken = Taken {
        report,
        routes: RouteSums::new(),
    };
    let done = pair_partitions(filed, sel, ranges, new, add, emit, &mut taken);
    let mut report = taken.report;
    report.routes = routes_of(taken.routes);
    let failed = match done {
        Ok(left) => {
            report.unmatched_recvs.extend(unmatched_recvs(db, left));
            None
        }
        Err(e) => Some(Warning::new(
            Location::file(db.dir()),
            format!(
                "message pairing: the temporary file failed while it was read back ({e}): the \
                 pairs and all counted from them (routes, unmatched sends and receives) are \
                 incomplete"
            ),
        )),
    };
    (selected(report, sel, ranges), failed)
}

/// What pairing in the partitions adds up.
struct Taken {
    report: PairingSummary,
    routes: RouteSums,
}

/// Pairs the sends and receives `filed` in its partitions, a few per
/// thread at a time, in partition order; returns the receives no send
/// took. An error of the temporary file ends the pairing there.
fn pair_partitions<C: Send>(
    mut filed: Filed,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    new: &(impl Fn() -> C + Sync),
    add: &(impl Fn(&mut C, &Pair) + Sync),
    emit: &mut dyn FnMut(C),
    taken: &mut Taken,
) -> std::io::Result<Vec<Event>> {
    // One scratch per task running (each some MB).
    let scratch: std::sync::Mutex<Vec<Scratch>> = std::sync::Mutex::new(Vec::new());
    // Sends to no process take no receive.
    let mut unmatched_sends: Vec<(u64, MsgEnd)> = Vec::new();
    let mut strays = Found::default();
    for (rank, s) in std::mem::take(&mut filed.strays) {
        if let Some(e) = strays.take(sel, ranges, &s, None, &mut |_| {}) {
            unmatched_sends.push((rank, e));
        }
    }
    let mut left = Vec::new();
    let partitions = filed.partitions();
    let run = crate::parallel::Ordered::per_thread(TASKS_PER_THREAD)
        .overlapped()
        .run(
            0..partitions,
            |b| {
                let mut s = scratch
                    .lock()
                    .map(|mut v| v.pop().unwrap_or_default())
                    .unwrap_or_default();
                let mut chunk = new();
                let mut found = Found::default();
                let mut left = Vec::new();
                let mut unmatched = Vec::new();
                let done = filed.pair_partition(b, &mut s, &mut left, |rank, send, x| {
                    if let Some(e) = found.take(sel, ranges, send, x, &mut |p| add(&mut chunk, p)) {
                        unmatched.push((rank, e));
                    }
                });
                if let Ok(mut v) = scratch.lock() {
                    v.push(s);
                }
                done.map(|()| (chunk, found, left, unmatched))
            },
            |out| {
                let (chunk, found, l, unmatched) = out?;
                emit(chunk);
                taken.report.paired += found.paired;
                for (key, part) in found.routes {
                    taken
                        .routes
                        .entry(key)
                        .or_insert_with(RouteSum::new)
                        .merge(&part);
                }
                unmatched_sends.extend(unmatched);
                left.extend(l);
                Ok::<_, std::io::Error>(())
            },
        );
    // In sender order, as the windows list them.
    unmatched_sends.sort_unstable_by_key(|(rank, _)| *rank);
    taken
        .report
        .unmatched_sends
        .extend(unmatched_sends.into_iter().map(|(_, e)| e));
    // (The file is closed as the run ends.)
    drop(filed);
    run.map(|()| left)
}

/// Count, sum and largest of latencies (the sum exact: the same in any
/// order of the pairs).
#[derive(Debug, Clone, Copy)]
struct Latencies {
    n: u64,
    sum: ExactSum,
    max: f64,
}

impl Latencies {
    const NONE: Latencies = Latencies {
        n: 0,
        sum: ExactSum::ZERO,
        max: f64::NEG_INFINITY,
    };

    fn add(&mut self, l: f64) {
        self.n += 1;
        self.sum.add(l);
        self.max = self.max.max(l);
    }

    fn merge(&mut self, o: &Latencies) {
        self.n += o.n;
        self.sum.merge(&o.sum);
        self.max = self.max.max(o.max);
    }

    fn mean(&self) -> f64 {
        self.sum.value() / self.n as f64
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
        RouteSum {
            messages: 0,
            bytes: 0,
            latency: Latencies::NONE,
            completion: Latencies::NONE,
        }
    }

    fn add(&mut self, p: &Pair) {
        self.messages += 1;
        self.bytes += p.size.max(0) as u64;
        self.latency.add(p.latency);
        // (A completion known at a time not a number counts as unknown.)
        if let Some(l) = p.latency_to_completion.filter(|l| !l.is_nan()) {
            self.completion.add(l);
        }
    }

    fn merge(&mut self, o: &RouteSum) {
        self.messages += o.messages;
        self.bytes += o.bytes;
        self.latency.merge(&o.latency);
        self.completion.merge(&o.completion);
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
                latency_mean: r.latency.mean(),
                latency_max: r.latency.max,
                completed: c.n,
                completion_latency_mean: (c.n > 0).then(|| c.mean()),
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
    use crate::analysis::comm::completion::{WaitTracker, is_nonblocking_recv};
    use crate::formats::blprof::database::ProcComm;

    thread_local! {
        /// Pairings of this thread filed without a first pass.
        pub(super) static FORECAST_FILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// The pairing as one sequential pass over the senders once did it: the
    /// oracle for the units.
    fn sequential(db: &Database, sel: &CommSelection<'_>) -> (Vec<Pair>, PairingSummary) {
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
        let mut report = PairingSummary::default();
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
                        if let Some(l) = completed.map(|c| c - r.time).filter(|l| !l.is_nan()) {
                            e.completion.add(l);
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
                            wait_entry: None,
                            wait_kind: 0,
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

    /// The pairs of `db` as `sizes` hands them on, the report and the
    /// warnings.
    fn pair_all(
        db: &Database,
        sel: &CommSelection<'_>,
        ranges: Option<&ProcRanges>,
        sizes: Sizes,
    ) -> (Vec<Pair>, PairingSummary, Vec<Warning>) {
        let mut got = Vec::new();
        let (r, w) = pair_in_windows(
            db,
            sel,
            ranges,
            sizes,
            &Vec::new,
            &|v: &mut Vec<Pair>, p| v.push(p.clone()),
            &mut |v| got.extend(v),
        );
        (got, r, w)
    }

    /// A copy of the database directory `from`, to damage.
    fn copy_of(from: &Path) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in std::fs::read_dir(from).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, dir.path().join(f.file_name().unwrap())).unwrap();
        }
        dir
    }

    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }

    /// Pairs in an order of their own, to compare as sets.
    fn sorted(pairs: &[Pair]) -> Vec<String> {
        let mut v: Vec<String> = pairs.iter().map(json).collect();
        v.sort_unstable();
        v
    }

    /// Units, windows and tasks of any size, down to one record or send,
    /// pair exactly as one sequential pass: the same pairs in the same
    /// order, the same report to the bit.
    #[test]
    fn windows_of_any_size_pair_as_one_sequential_pass() {
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
                // (The last: the join's partitions and pending receives;
                // none: the windows find the receives. A limit of 2 makes
                // the join decline.)
                let join = |partition, limit, pending| {
                    Some(JoinSizes {
                        partition,
                        limit,
                        pending,
                        event_cost: 0,
                    })
                };
                let sizes = [
                    (1, 1, 1, None),
                    (1, 1, 1, join(1, u64::MAX, 0)),
                    (2, 3, 2, None),
                    (2, 3, 2, join(5, u64::MAX, 1)),
                    (3, 7, 5, None),
                    (3, 7, 5, join(64, u64::MAX, 3)),
                    (7, 64, 3, join(3, 2, 100)),
                    (64, 1, 64, join(3, u64::MAX, 1000)),
                    (1, 1000, 7, None),
                    (1, 1000, 7, join(1000, u64::MAX, 2)),
                    (
                        SIZES.unit_records,
                        SIZES.window_sends,
                        SIZES.task_sends,
                        None,
                    ),
                    (
                        SIZES.unit_records,
                        SIZES.window_sends,
                        SIZES.task_sends,
                        SIZES.join,
                    ),
                ];
                // In any order, also without the first pass (a sample of
                // every record).
                let sample = Some(SampleSizes {
                    runs: 1,
                    run: u64::MAX,
                    share: 0,
                });
                for ((unit_records, window_sends, task_sends, join), order, forecast) in
                    sizes.into_iter().flat_map(|s| {
                        [
                            (s, PairOrder::Sender, None),
                            (s, PairOrder::Any, None),
                            (s, PairOrder::Any, sample),
                        ]
                    })
                {
                    let size = Sizes {
                        unit_records,
                        window_sends,
                        task_sends,
                        join,
                        order,
                        forecast,
                    };
                    let unit = format!("{size:?}");
                    let (got, r, w) = pair_all(&db, sel, None, size);
                    assert!(w.iter().all(|w| !w.to_string().contains("temporary")));
                    if order == PairOrder::Any {
                        assert_eq!(sorted(&got), sorted(&pairs), "{name} {sel:?} {unit}");
                    } else {
                        assert_eq!(json(&got), json(&pairs), "{name} {sel:?} units of {unit}");
                    }
                    assert_eq!(json(&r), json(&report), "{name} {sel:?} units of {unit}");
                }
            }
        }
        assert!(unmatched > 0, "the windows leave messages unmatched");
    }

    /// Sends to no process (a negative peer, as `MPI_PROC_NULL`) take no
    /// receive and are listed unmatched, in sender order, whichever way
    /// pairs (the join files them aside when it pairs in its partitions).
    #[test]
    fn sends_to_no_process_are_unmatched_either_way() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof/small4/bl_prof");
        let dir = copy_of(&fixture);
        // Every third paired send of the copy goes to process -2.
        let db = Database::open(&fixture).unwrap();
        let mut stray = 0;
        for p in &db.comm_index().procs {
            for b in CommSelection::all().blocks(p) {
                let path = dir.path().join(&*b.datafile);
                let mut bytes = std::fs::read(&path).unwrap();
                let records = db.comm_records(b).unwrap();
                for (i, r) in records.enumerate() {
                    if is_paired_send(&r) {
                        stray += 1;
                        if stray % 3 == 0 {
                            let at = b.seekpos as usize + i * 24 + 8;
                            bytes[at..at + 4].copy_from_slice(&(-2i32).to_le_bytes());
                        }
                    }
                }
                std::fs::write(&path, bytes).unwrap();
            }
        }
        let db = Database::open(dir.path()).unwrap();
        let sel = CommSelection::all();
        let (pairs, report) = sequential(&db, &sel);
        let strays = report
            .unmatched_sends
            .iter()
            .filter(|e| e.peer == -2)
            .count();
        assert!(strays > 10, "{strays} sends to no process");
        let forced = JoinSizes {
            event_cost: 0,
            ..SIZES.join.unwrap()
        };
        for (join, order) in [
            (None, PairOrder::Sender),
            (Some(forced), PairOrder::Sender),
            (Some(forced), PairOrder::Any),
        ] {
            let (got, r, _) = pair_all(
                &db,
                &sel,
                None,
                Sizes {
                    join,
                    order,
                    ..SIZES
                },
            );
            assert_eq!(sorted(&got), sorted(&pairs), "{join:?} {order:?}");
            assert_eq!(json(&r), json(&report), "{join:?} {order:?}");
        }
    }

    /// With a region filter's ranges (here the first half of each
    /// process's time, none for process 0), pairing in the partitions
    /// reports what the windows report.
    #[test]
    fn partitions_report_within_ranges_as_the_windows() {
        use crate::analysis::ranges::{RangeList, TimeRange};
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        for name in ["amrlevel8", "small4", "nfiles2"] {
            let db = Database::open(fixtures.join(name).join("bl_prof"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut by_proc = BTreeMap::new();
            for p in db.comm_index().procs.iter().filter(|p| p.proc != 0) {
                let times = CommSelection::all()
                    .blocks(p)
                    .filter_map(|b| b.time_min_max);
                let (lo, hi) = times.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (c, d)| {
                    (a.min(c), b.max(d))
                });
                let half = TimeRange::new(lo, lo + (hi - lo) / 2.0);
                by_proc.insert(p.proc, RangeList::union_of(vec![half]));
            }
            let ranges = ProcRanges::new(by_proc);
            let forced = JoinSizes {
                event_cost: 0,
                ..SIZES.join.unwrap()
            };
            let run = |order| {
                let (got, r, _) = pair_all(
                    &db,
                    &CommSelection::all(),
                    Some(&ranges),
                    Sizes {
                        join: Some(forced),
                        order,
                        ..SIZES
                    },
                );
                (sorted(&got), json(&r))
            };
            let (pairs, report) = run(PairOrder::Sender);
            let (all, _) = sequential(&db, &CommSelection::all());
            assert!(!pairs.is_empty() && pairs.len() < all.len(), "{name}");
            assert!(run(PairOrder::Any) == (pairs, report), "{name}");
        }
    }

    /// Paired in the partitions, the pairs come in the same order for any
    /// number of threads (the spill's chunks are not).
    #[test]
    fn partitions_pair_in_one_order_for_any_threads() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let db = Database::open(fixtures.join("amrlevel8").join("bl_prof"))
            .unwrap_or_else(|e| panic!("amrlevel8: {e}"));
        let join = JoinSizes {
            partition: 4096,
            event_cost: 0,
            ..SIZES.join.unwrap()
        };
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let (got, r, _) = pair_all(
                    &db,
                    &CommSelection::all(),
                    None,
                    Sizes {
                        join: Some(join),
                        order: PairOrder::Any,
                        ..SIZES
                    },
                );
                (json(&got), json(&r))
            })
        };
        let one = run(1);
        assert!(one.0.len() > 1000);
        assert!(run(3) == one && run(4) == one);
    }

    /// On the stock application's database (and the others), the join and
    /// the windows give the same pairs, completions and the calls that
    /// completed them (what `comm waits` reads), and the same report.
    #[test]
    fn the_join_pairs_as_the_windows_on_every_fixture() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let full = |p: &Pair| {
            let wait = (p.wait_entry.map(f64::to_bits), p.wait_kind);
            format!("{} {wait:?}", json(p))
        };
        let mut paired = 0;
        for name in [
            "amrlevel8",
            "small4",
            "asym4",
            "flush",
            "nfiles2",
            "host_nid",
        ] {
            let db = Database::open(fixtures.join(name).join("bl_prof"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let run_in = |join: Option<JoinSizes>, order, forecast| {
                let mut got = Vec::new();
                let (r, w) = pair_in_windows(
                    &db,
                    &CommSelection::all(),
                    None,
                    Sizes {
                        join,
                        order,
                        forecast,
                        ..SIZES
                    },
                    &Vec::new,
                    &|v: &mut Vec<String>, p| v.push(full(p)),
                    &mut |v| got.extend(v),
                );
                assert!(w.iter().all(|w| !w.to_string().contains("temporary")));
                (got, json(&r))
            };
            let run = |join| run_in(join, PairOrder::Sender, None);
            let windows = run(None);
            let mut in_order = windows.0.clone();
            in_order.sort_unstable();
            // (Partitions of 64 Ki events are matched in parts of 4 Ki.)
            for (partition, pending) in [(1024, 0), (1024, 1), (1024, 64), (64 << 10, 1 << 20)] {
                let join = Some(JoinSizes {
                    partition,
                    limit: u64::MAX,
                    pending,
                    event_cost: 0,
                });
                assert!(
                    run(join) == windows,
                    "{name}: the join with {pending} pending differs"
                );
                // Paired in the partitions: the same pairs in another
                // order, the same report; also without the first pass.
                let every = SampleSizes {
                    runs: 4,
                    run: u64::MAX,
                    share: 0,
                };
                for forecast in [None, Some(every)] {
                    let filed = FORECAST_FILED.get();
                    let (mut pairs, report) = run_in(join, PairOrder::Any, forecast);
                    assert_eq!(
                        FORECAST_FILED.get() - filed,
                        usize::from(forecast.is_some())
                    );
                    if name == "amrlevel8" {
                        assert!(pairs != windows.0, "{name}: paired in the windows");
                    }
                    pairs.sort_unstable();
                    assert!(
                        pairs == in_order && report == windows.1,
                        "{name}: the partitions with {pending} pending differ ({forecast:?})"
                    );
                }
            }
            paired += windows.0.len();
        }
        assert!(paired > 40_000, "{paired} pairs");
    }

    /// On damaged comm data (records of small4 with a field made up: a
    /// type, a size, a peer, a tag or a time, NaN and infinities among
    /// them; or two records swapped), the windows, the join and the
    /// partitions pair as the sequential pass does, and report the same.
    #[test]
    fn every_way_pairs_damaged_records_alike() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof/small4/bl_prof");
        let original = Database::open(&fixture).unwrap();
        let mut rng = crate::test_rng::Xorshift::new(0x2545_f491_4f6c_dd1d);
        let mut next = move |n: u64| rng.below(n);
        let (mut checked, mut warnings) = (0, 0);
        for round in 0..40 {
            let dir = copy_of(&fixture);
            for p in &original.comm_index().procs {
                for b in CommSelection::all().blocks(p) {
                    let path = dir.path().join(&*b.datafile);
                    let mut bytes = std::fs::read(&path).unwrap();
                    for i in 0..b.ncomm as usize {
                        // More damage in later rounds.
                        if next(128) > round * 2 {
                            continue;
                        }
                        let at = b.seekpos as usize + i * 24;
                        let field = next(6) as usize;
                        if field == 5 && i + 1 < b.ncomm as usize {
                            // Two records swapped.
                            let (a, z) = bytes[at..at + 48].split_at_mut(24);
                            a.swap_with_slice(z);
                            continue;
                        }
                        let new = match field {
                            0 => [next(64) as i32, -1, 99, i32::MAX][next(4) as usize],
                            1 => [next(300) as i32, -5, -1, i32::MIN][next(4) as usize],
                            2 => next(7) as i32 - 2,
                            3 => next(6) as i32,
                            4 => {
                                let t = [f64::NAN, f64::INFINITY, -1.0, next(1000) as f64 * 1e-3]
                                    [next(4) as usize];
                                bytes[at + 16..at + 24].copy_from_slice(&t.to_le_bytes());
                                continue;
                            }
                            _ => continue,
                        };
                        let at = at + field * 4;
                        bytes[at..at + 4].copy_from_slice(&new.to_le_bytes());
                    }
                    std::fs::write(&path, bytes).unwrap();
                }
            }
            // Every fifth round, a data file cut short: warnings.
            if round % 5 == 4 {
                let path = dir.path().join(format!("bl_comm_prof_D_{:05}", round % 4));
                let bytes = std::fs::read(&path).unwrap();
                std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
            }
            let db = Database::open(dir.path()).unwrap();
            let two = [0usize, 2];
            // Every other round, a selection of processes and of time.
            let sel = if round % 2 == 0 {
                CommSelection::all()
            } else {
                CommSelection {
                    window: (0.02, 0.04),
                    procs: Some(&two),
                }
            };
            let (pairs, report) = sequential(&db, &sel);
            let (pairs, report) = (sorted(&pairs), json(&report));
            let small = JoinSizes {
                partition: 256,
                limit: u64::MAX,
                pending: 3,
                event_cost: 0,
            };
            let forced = JoinSizes {
                event_cost: 0,
                ..SIZES.join.unwrap()
            };
            // A sample of every record, and one of a few records that
            // forecasts too few events for the limit (the first pass then
            // files again).
            let every = Some(SampleSizes {
                runs: 1,
                run: u64::MAX,
                share: 0,
            });
            let few = Some(SampleSizes {
                runs: 2,
                run: 3,
                share: 0,
            });
            let limited = JoinSizes {
                limit: 300,
                ..small
            };
            let mut warned: Option<Vec<String>> = None;
            for (join, order, forecast) in [
                (None, PairOrder::Sender, None),
                (Some(forced), PairOrder::Sender, None),
                (Some(forced), PairOrder::Any, None),
                (Some(forced), PairOrder::Any, every),
                (Some(small), PairOrder::Sender, None),
                (Some(small), PairOrder::Any, None),
                (Some(small), PairOrder::Any, every),
                (Some(limited), PairOrder::Any, few),
            ] {
                let (got, r, w) = pair_all(
                    &db,
                    &sel,
                    None,
                    Sizes {
                        join,
                        order,
                        window_sends: 100,
                        forecast,
                        ..SIZES
                    },
                );
                let w: Vec<String> = w.iter().map(|w| w.to_string()).collect();
                assert!(w.iter().all(|w| !w.contains("temporary")));
                let what = format!("round {round}: {join:?} {order:?} {forecast:?}");
                assert_eq!(sorted(&got), pairs, "{what}");
                assert_eq!(json(&r), report, "{what}");
                // The warnings of the first pass, or of the filing.
                let first = warned.get_or_insert_with(|| w.clone());
                assert_eq!(&w, first, "{what}");
            }
            // A data file cut inside a block is found when the index is
            // built (its count cut to the records there), one cut past a
            // block's start when that block is read.
            warnings += warned.map_or(0, |w| w.len()) + db.comm_index().warnings.len();
            checked += pairs.len();
        }
        assert!(checked > 1000, "{checked} pairs");
        assert!(warnings >= 8, "{warnings} warnings");
        assert!(FORECAST_FILED.get() >= 40, "filed without a first pass");
    }

    /// A block the sample does not reach, cut short: the filing without a
    /// first pass warns as the first pass does, and reports the same.
    #[test]
    fn a_block_the_sample_missed_warns_as_the_first_pass() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof/flush/bl_prof");
        let dir = copy_of(&fixture);
        // The last block (process 1's fourth) is cut away whole: the index
        // keeps its count (a block starting at the end of its file is left
        // to its readers), and reading it warns.
        let last = Database::open(&fixture)
            .unwrap()
            .comm_index()
            .procs
            .iter()
            .flat_map(|p| CommSelection::all().blocks(p))
            .filter(|b| &*b.datafile == "bl_comm_prof_D_00000")
            .map(|b| b.seekpos)
            .max()
            .unwrap();
        let data = dir.path().join("bl_comm_prof_D_00000");
        let bytes = std::fs::read(&data).unwrap();
        std::fs::write(&data, &bytes[..last as usize]).unwrap();
        let db = Database::open(dir.path()).unwrap();
        // The first record of each process.
        let first = SampleSizes {
            runs: 1,
            run: 1,
            share: 0,
        };
        let forced = JoinSizes {
            event_cost: 0,
            ..SIZES.join.unwrap()
        };
        let mut seen = Vec::new();
        for forecast in [None, Some(first)] {
            let filed = FORECAST_FILED.get();
            let (got, r, w) = pair_all(
                &db,
                &CommSelection::all(),
                None,
                Sizes {
                    join: Some(forced),
                    order: PairOrder::Any,
                    forecast,
                    ..SIZES
                },
            );
            assert_eq!(
                FORECAST_FILED.get() - filed,
                usize::from(forecast.is_some())
            );
            let w: Vec<String> = w.iter().map(|w| w.to_string()).collect();
            assert!(
                w.iter().any(|w| w.contains("bl_comm_prof_D_00000")),
                "{w:?}"
            );
            seen.push((sorted(&got), json(&r), w));
        }
        assert!(seen[0] == seen[1]);
    }
}
