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
//! # The algorithm: a sort-merge join within one memory budget
//!
//! ```text
//!  1. rows     every process, in parallel: its sends     (from, to, tag, seq)
//!                                          its receives  (from, to, tag, order) + completion
//!  2. sort     each kind of row by its key          (external sort: crate::spill)
//!  3. merge    walk both in key order:  sends  p→q t: s0 s1 s2
//!                                       recvs  p→q t: r0 r1        → (s0,r0) (s1,r1), s2 unmatched
//!  4. order    the pairs by (sender, seq)           (external sort again; skipped
//!                                                    by pair_messages_unordered)
//! ```
//!
//! 1. One pass over each process's records, in record order, makes a row
//!    per send (numbered `seq` in the sender's record order) and per receive
//!    from a process (numbered `order` in the receiver's). The pass completes
//!    the nonblocking receives as it goes, by the rule of
//!    [`super::completion`]: a status of (source, tag) completes the
//!    oldest receive of that key still waiting (the receives waiting are the
//!    pass's memory: the requests a process has open).
//! 2. Sends are sorted by (sender, receiver, tag, seq) and receives by
//!    (sender, receiver, tag, order): within a key both are then in the
//!    order MPI matches them.
//! 3. One walk over both sorted streams pairs the k-th send of each key with
//!    its k-th receive; sends or receives a key has more of are unmatched.
//!    The walk holds one row of each stream: a key, however hot, needs no
//!    memory.
//! 4. The pairs reach the caller by sender and then in the sender's record
//!    order (sorted once more by (sender, seq)); a caller that only sums
//!    them ([`pair_messages_unordered`]) takes them in key order instead.
//!
//! Every sort holds at most its share of [`MEMORY_BUDGET`] and writes sorted
//! runs to a temporary file past it. Rows are distinct in their keys, so the
//! order out is the same at any number of threads, and the pairs are
//! formatted by the caller in parallel batches handed on in that order.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::completion::{WaitTracker, is_nonblocking_recv, is_wait};
use super::select::{CommSelection, ProcRanges, inside};
use crate::analysis::exact_sum::ExactSum;
use crate::analysis::filter::FilterNames;
use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{
    AFTER_CALL, BEFORE_CALL, CommRecord, func_name, is_recv, is_send,
};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommProcWalk, Skipped};
use crate::external_sort::{Row, Sorted, Sorter};
use crate::spill::{Buffered, Spill};
use rayon::prelude::*;

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

fn is_paired_send(r: &CommRecord) -> bool {
    is_send(r.kind) && r.size != AFTER_CALL
}

fn is_paired_recv(r: &CommRecord) -> bool {
    is_recv(r.kind) && r.size >= 0
}

/// The memory the pairing's rows may take: a sixth for the sends, a quarter
/// for the receives and a twelfth for the completions being sorted, half
/// for the pairs put back in sender order.
pub const MEMORY_BUDGET: usize = 32 << 20;

/// At most this many partitions (open buffers per writer).
const MAX_PARTITIONS: u64 = 4096;

/// Bytes of the buffers of all the writing tasks of step 1 together
/// (small enough to stay in the cores' caches while they write all over
/// them).
const WRITER_BYTES: usize = 4 << 20;

/// Rows read back before they are handed to a sort.
const BATCH_ROWS: usize = 16 * 1024;

/// Pairs per batch the caller formats (some 0.5 MB of JSON).
const TASK_PAIRS: usize = 4 * 1024;

/// Batches per thread handed on at a time (two such windows are held).
const TASKS_PER_THREAD: usize = 4;

/// A send: its key and what a pair or an unmatched send reports of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct SendRow {
    from: i32,
    to: i32,
    tag: i32,
    /// Its place among the sender's sends, in record order.
    seq: u64,
    time: f64,
    size: i32,
    kind: i32,
}

/// A receive from a process: its key, what a pair reports of it and how
/// it completed, when that is known as the row is filed.
#[derive(Debug, Clone, Copy)]
pub(super) struct RecvRow {
    from: i32,
    to: i32,
    tag: i32,
    /// Its place among the receiver's receives, in record order.
    order: u64,
    time: f64,
    kind: i32,
    size: i32,
    /// When it completed (NaN: not known when filed, see [`DoneRow`]).
    done: f64,
    /// When the call that completed it was entered (NaN: not known).
    entry: f64,
    /// That call's MPI type.
    wait_kind: i32,
}

/// How a receive completed: when (NaN: not known), when the call that
/// completed it was entered (NaN: not known), and that call's MPI type.
#[derive(Debug, Clone, Copy)]
struct Completion {
    done: f64,
    entry: f64,
    wait_kind: i32,
}

/// The completion of a nonblocking receive: the receive's key (its
/// sender, receiver, tag and order), when the wait that returned its
/// status exited, and the wait's entry and MPI type.
#[derive(Debug, Clone, Copy)]
pub(super) struct DoneRow {
    from: i32,
    to: i32,
    tag: i32,
    order: u64,
    time: f64,
    entry: f64,
    wait_kind: i32,
}

/// A pair as it waits to be put back in sender order.
#[derive(Debug, Clone, Copy)]
pub(super) struct PairRow {
    from: i32,
    /// The send's place among its sender's sends.
    seq: u64,
    to: i32,
    tag: i32,
    size: i32,
    send_time: f64,
    recv_time: f64,
    done: f64,
    entry: f64,
    wait_kind: i32,
}

impl SendRow {
    fn key(&self) -> (i32, i32, i32, u64) {
        (self.from, self.to, self.tag, self.seq)
    }

    fn unmatched(&self) -> MsgEnd {
        MsgEnd {
            proc: self.from as usize,
            peer: self.to,
            tag: self.tag,
            size: self.size,
            time: self.time,
            kind: func_name(self.kind).unwrap_or("?"),
        }
    }
}

impl RecvRow {
    /// Receive `r` of process `to` as its record tells it: a blocking one
    /// completes at its record and was entered at `recv_entry` (its
    /// before-record, when not later); a nonblocking one waits for a status.
    fn posted(to: i32, order: u64, r: &CommRecord, recv_entry: f64) -> RecvRow {
        let (done, entry) = if is_nonblocking_recv(r.kind) {
            (f64::NAN, f64::NAN)
        } else if recv_entry <= r.time {
            (r.time, recv_entry)
        } else {
            (r.time, r.time)
        };
        RecvRow {
            from: r.peer,
            to,
            tag: r.tag,
            order,
            time: r.time,
            kind: r.kind,
            size: r.size,
            done,
            entry,
            wait_kind: r.kind,
        }
    }

    fn completion(&self) -> Completion {
        Completion {
            done: self.done,
            entry: self.entry,
            wait_kind: self.wait_kind,
        }
    }

    fn key(&self) -> (i32, i32, i32, u64) {
        (self.from, self.to, self.tag, self.order)
    }

    /// Listed unmatched: as its receiver's record.
    fn unmatched(&self) -> MsgEnd {
        MsgEnd {
            proc: self.to as usize,
            peer: self.from,
            tag: self.tag,
            size: self.size,
            time: self.time,
            kind: func_name(self.kind).unwrap_or("?"),
        }
    }
}

impl PairRow {
    fn of(s: &SendRow, x: &RecvRow, c: &Completion) -> PairRow {
        PairRow {
            from: s.from,
            seq: s.seq,
            to: x.to,
            tag: s.tag,
            size: s.size,
            send_time: s.time,
            recv_time: x.time,
            done: c.done,
            entry: c.entry,
            wait_kind: c.wait_kind,
        }
    }

    fn pair(&self) -> Pair {
        let completed = (!self.done.is_nan()).then_some(self.done);
        Pair {
            from: self.from as usize,
            to: self.to as usize,
            tag: self.tag,
            size: self.size,
            send_time: self.send_time,
            recv_time: self.recv_time,
            latency: self.recv_time - self.send_time,
            completed_time: completed,
            latency_to_completion: completed.map(|c| c - self.send_time),
            wait_entry: completed.and((!self.entry.is_nan()).then_some(self.entry)),
            wait_kind: self.wait_kind,
        }
    }
}

/// Rows ordered by their keys alone (the keys are distinct).
macro_rules! ordered_by {
    ($row:ty, |$r:ident| $key:expr) => {
        impl Ord for $row {
            fn cmp(&self, other: &Self) -> Ordering {
                let key = |$r: &$row| $key;
                key(self).cmp(&key(other))
            }
        }
        impl PartialOrd for $row {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
        impl PartialEq for $row {
            fn eq(&self, other: &Self) -> bool {
                self.cmp(other) == Ordering::Equal
            }
        }
        impl Eq for $row {}
    };
}

ordered_by!(SendRow, |r| r.key());
ordered_by!(RecvRow, |r| r.key());
ordered_by!(DoneRow, |r| (r.from, r.to, r.tag, r.order));
// By sender, then in the sender's record order.
ordered_by!(PairRow, |r| (r.from, r.seq));

/// A row's bytes in a run: its fields in turn, little-endian, at offsets
/// the compiler knows (the spill writes and reads every row once).
macro_rules! row_bytes {
    ($row:ident { $($field:ident: $t:ty),+ $(,)? }) => {
        impl Row for $row {
            const BYTES: usize = 0 $(+ std::mem::size_of::<$t>())+;
            fn put(&self, out: &mut [u8]) {
                let Ok(out) = <&mut [u8; Self::BYTES]>::try_from(out) else {
                    return;
                };
                let mut at = 0;
                $(
                    let n = std::mem::size_of::<$t>();
                    out[at..at + n].copy_from_slice(&self.$field.to_le_bytes());
                    at += n;
                )+
                let _ = at;
            }
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; Self::BYTES];
                if let Ok(whole) = <&[u8; Self::BYTES]>::try_from(bytes) {
                    b = *whole;
                }
                let mut at = 0;
                $(
                    let n = std::mem::size_of::<$t>();
                    let mut f = [0u8; std::mem::size_of::<$t>()];
                    f.copy_from_slice(&b[at..at + n]);
                    let $field = <$t>::from_le_bytes(f);
                    at += n;
                )+
                let _ = at;
                $row { $($field),+ }
            }
        }
    };
}

row_bytes!(SendRow { from: i32, to: i32, tag: i32, seq: u64, time: f64, size: i32, kind: i32 });
row_bytes!(RecvRow {
    from: i32,
    to: i32,
    tag: i32,
    order: u64,
    time: f64,
    kind: i32,
    size: i32,
    done: f64,
    entry: f64,
    wait_kind: i32,
});
row_bytes!(DoneRow { from: i32, to: i32, tag: i32, order: u64, time: f64, entry: f64, wait_kind: i32 });
row_bytes!(PairRow {
    from: i32,
    seq: u64,
    to: i32,
    tag: i32,
    size: i32,
    send_time: f64,
    recv_time: f64,
    done: f64,
    entry: f64,
    wait_kind: i32,
});

/// What numbering one process finds besides its rows.
struct Numbered {
    /// Receives from a wildcard or sentinel source.
    wild: Vec<MsgEnd>,
    /// Sends of a process whose number does not fit a row (none in real
    /// runs): unmatched, with their place in sender order.
    unkeyed: Vec<((usize, u64), MsgEnd)>,
    warnings: Vec<Warning>,
}

/// Step 1's output: every row filed under its key's partition in the
/// spill (bucket `3 · partition + kind`).
struct RowWriter<'s> {
    out: Buffered<'s>,
    parts: usize,
    /// The first write that failed: the rows after it are lost.
    failed: Option<std::io::Error>,
}

/// The kinds of rows, each a bucket of every partition.
const SENDS: usize = 0;
const RECVS: usize = 1;
const DONES: usize = 2;

/// Bytes of the largest row.
const MAX_ROW_BYTES: usize = 64;

impl RowWriter<'_> {
    fn file<T: Row>(&mut self, kind: usize, key: (i32, i32, i32), row: &T) {
        let mut bytes = [0u8; MAX_ROW_BYTES];
        row.put(&mut bytes[..T::BYTES]);
        let bucket = 3 * partition(key, self.parts) + kind;
        if let Err(e) = self.out.push_prefix(bucket, &bytes, T::BYTES) {
            self.failed.get_or_insert(e);
        }
    }
}

/// The partition of key (sender, receiver, tag): a hash of the whole key,
/// so that the keys spread evenly however the processes number them.
fn partition(key: (i32, i32, i32), parts: usize) -> usize {
    let h = std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, key);
    // (The high bits of the product: FxHash's best bits.)
    ((u128::from(h) * parts as u128) >> 64) as usize
}

/// Step 1: the rows of one process's sends, receives and completions,
/// filed in their partitions.
fn number(walk: CommProcWalk<'_>, out: &mut RowWriter<'_>) -> Numbered {
    let (proc, sel) = (walk.proc().proc, *walk.selection());
    let me = i32::try_from(proc).ok();
    let (mut seq, mut order) = (0u64, 0u64);
    let mut waits = WaitTracker::default();
    let mut recv_entry = f64::NAN;
    let mut waiting = Waiting::default();
    let mut wild = Vec::new();
    let mut unkeyed = Vec::new();
    let warnings = walk.for_each_block(Skipped::Messages, Skipped::Messages, |_, records| {
        while let Some(batch) = records.next_batch() {
            for r in batch.records() {
                if is_send(r.kind) {
                    if sel.contains(r.time) && is_paired_send(&r) {
                        match me {
                            Some(from) => out.file(
                                SENDS,
                                (from, r.peer, r.tag),
                                &SendRow {
                                    from,
                                    to: r.peer,
                                    tag: r.tag,
                                    seq,
                                    time: r.time,
                                    size: r.size,
                                    kind: r.kind,
                                },
                            ),
                            None => unkeyed.push(((proc, seq), end(proc, &r))),
                        }
                        seq += 1;
                    }
                    continue;
                }
                let Some(to) = me else { continue };
                if !is_recv(r.kind) && !is_wait(r.kind) {
                    continue;
                }
                if let Some(((from, tag), time)) = waits.push(&r) {
                    let (entry, wait_kind) = waits.last_wait();
                    match waiting.pop((from, tag)) {
                        Some(Waited::Held(mut x)) => {
                            (x.done, x.entry, x.wait_kind) = (time, entry, wait_kind);
                            out.file(RECVS, (from, to, tag), &x);
                        }
                        Some(Waited::Filed(order)) => {
                            let done = DoneRow {
                                from,
                                to,
                                tag,
                                order,
                                time,
                                entry,
                                wait_kind,
                            };
                            out.file(DONES, (from, to, tag), &done);
                        }
                        None => {}
                    }
                    continue;
                }
                if is_recv(r.kind) && r.size == BEFORE_CALL {
                    // A blocking receive's entry; its data record follows.
                    recv_entry = r.time;
                }
                if !sel.contains(r.time) || !is_paired_recv(&r) {
                    continue;
                }
                if r.peer < 0 {
                    wild.push(end(proc, &r));
                    continue;
                }
                let x = RecvRow::posted(to, order, &r, recv_entry);
                order += 1;
                if is_nonblocking_recv(r.kind) {
                    // Filed when its status comes, or now if too many wait.
                    match waiting.push(x) {
                        Some(x) => out.file(RECVS, (x.from, x.to, x.tag), &x),
                        None => continue,
                    }
                } else {
                    out.file(RECVS, (x.from, x.to, x.tag), &x);
                }
            }
        }
    });
    // Receives no status completed.
    for (x, _) in waiting.held {
        out.file(RECVS, (x.from, x.to, x.tag), &x);
    }
    walk.database().progress().advance(1);
    Numbered {
        wild,
        unkeyed,
        warnings,
    }
}

/// Nonblocking receives no status has completed yet: per (source, tag) a
/// list, oldest first, through one pool of slots (AMReX tags each message
/// anew: a key per receive, which costs no allocation here). Up to
/// [`MAX_HELD`] receives are held whole, to be filed with their
/// completion; past it a receive is filed at once and its completion
/// follows as a [`DoneRow`] (24 bytes a receive waiting, and the rows held).
#[derive(Default)]
struct Waiting {
    /// (source, tag) → the first and the last slot of its list.
    keys: FxHashMap<(i32, i32), (usize, usize)>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    /// The receives held whole and their slots (unordered: a slot names
    /// its row).
    held: Vec<(RecvRow, usize)>,
}

/// Receives held whole per process (3.5 MB).
const MAX_HELD: usize = 64 * 1024;

#[derive(Clone, Copy)]
struct Slot {
    /// The receive's order, or its row in `held` (`held` true).
    order: u64,
    held: bool,
    next: usize,
}

/// A receive a status completes.
enum Waited {
    /// Held whole: to be filed with its completion.
    Held(RecvRow),
    /// Filed already, by its order.
    Filed(u64),
}

impl Waiting {
    /// Adds nonblocking receive `x`; gives it back when it is not held
    /// (to be filed now).
    fn push(&mut self, x: RecvRow) -> Option<RecvRow> {
        let held = self.held.len() < MAX_HELD;
        let slot = Slot {
            order: if held { self.held.len() as u64 } else { x.order },
            held,
            next: usize::MAX,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        match self.keys.entry((x.from, x.tag)) {
            Entry::Occupied(mut e) => {
                let last = std::mem::replace(&mut e.get_mut().1, i);
                self.slots[last].next = i;
            }
            Entry::Vacant(e) => {
                e.insert((i, i));
            }
        }
        if held {
            self.held.push((x, i));
            return None;
        }
        Some(x)
    }

    /// The oldest receive of `key`, taken off its list.
    fn pop(&mut self, key: (i32, i32)) -> Option<Waited> {
        let Entry::Occupied(mut e) = self.keys.entry(key) else {
            return None;
        };
        let (first, last) = *e.get();
        let slot = self.slots[first];
        if first == last {
            e.remove();
        } else {
            e.get_mut().0 = slot.next;
        }
        self.free.push(first);
        if !slot.held {
            return Some(Waited::Filed(slot.order));
        }
        // (The last row held moves into the place taken: its slot follows.)
        let at = slot.order as usize;
        let (x, _) = self.held.swap_remove(at);
        if let Some(&(_, moved)) = self.held.get(at) {
            self.slots[moved].order = at as u64;
        }
        Some(Waited::Held(x))
    }
}

/// Step 3: the walk over the sorted sends and receives. As an iterator, it
/// gives the pairs to report, in key order; it adds up the report as it
/// goes.
struct Join<'s> {
    sends: Sorted<SendRow>,
    recvs: Sorted<RecvRow>,
    /// Completions, each for a receive of the same key.
    dones: Sorted<DoneRow>,
    done: Option<DoneRow>,
    /// The next row of each stream.
    send: Option<SendRow>,
    recv: Option<RecvRow>,
    sel: &'s CommSelection<'s>,
    ranges: Option<&'s ProcRanges>,
    paired: u64,
    routes: RouteSums,
    /// The route of the last pairs (they come by route) and its sums.
    route: Option<((usize, usize), RouteSum)>,
    unmatched_sends: Vec<((usize, u64), MsgEnd)>,
    unmatched_recvs: Vec<((i32, i32, i32, u64), MsgEnd)>,
}

impl<'s> Join<'s> {
    fn new(
        (mut sends, mut recvs, mut dones): (Sorted<SendRow>, Sorted<RecvRow>, Sorted<DoneRow>),
        sel: &'s CommSelection<'s>,
        ranges: Option<&'s ProcRanges>,
    ) -> Self {
        Join {
            send: sends.next(),
            recv: recvs.next(),
            done: dones.next(),
            sends,
            recvs,
            dones,
            sel,
            ranges,
            paired: 0,
            routes: RouteSums::new(),
            route: None,
            unmatched_sends: Vec::new(),
            unmatched_recvs: Vec::new(),
        }
    }

    /// The next receive, with its completion if a status gave one.
    fn next_recv(&mut self) -> Option<(RecvRow, Completion)> {
        let x = std::mem::replace(&mut self.recv, self.recvs.next())?;
        let mut c = x.completion();
        let key = (x.from, x.to, x.tag, x.order);
        while let Some(d) = self.done.filter(|d| (d.from, d.to, d.tag, d.order) <= key) {
            if (d.from, d.to, d.tag, d.order) == key {
                c = Completion {
                    done: d.time,
                    entry: d.entry,
                    wait_kind: d.wait_kind,
                };
            }
            self.done = self.dones.next();
        }
        Some((x, c))
    }

    /// Counts a pair reported.
    fn add(&mut self, p: &Pair) {
        self.paired += 1;
        let route = (p.from, p.to);
        match &mut self.route {
            Some((r, sums)) if *r == route => sums.add(p),
            last => {
                if let Some((r, sums)) = last.take() {
                    self.routes.entry(r).or_insert_with(RouteSum::new).merge(&sums);
                }
                let mut sums = RouteSum::new();
                sums.add(p);
                *last = Some((route, sums));
            }
        }
    }

    /// What the walk found besides its pairs (once it is over), and the
    /// error that ended it early, if any.
    #[allow(clippy::type_complexity)]
    fn finish(
        mut self,
    ) -> (
        u64,
        RouteSums,
        Vec<((usize, u64), MsgEnd)>,
        Vec<((i32, i32, i32, u64), MsgEnd)>,
        Option<std::io::Error>,
    ) {
        if let Some((r, sums)) = self.route.take() {
            self.routes.entry(r).or_insert_with(RouteSum::new).merge(&sums);
        }
        let error = (self.sends.take_error())
            .or(self.recvs.take_error())
            .or(self.dones.take_error());
        (
            self.paired,
            self.routes,
            self.unmatched_sends,
            self.unmatched_recvs,
            error,
        )
    }
}

impl Iterator for Join<'_> {
    type Item = PairRow;

    fn next(&mut self) -> Option<PairRow> {
        loop {
            let side = match (&self.send, &self.recv) {
                (None, None) => return None,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(s), Some(x)) => (s.from, s.to, s.tag).cmp(&(x.from, x.to, x.tag)),
            };
            match side {
                Ordering::Less => {
                    let Some(s) = self.send.take() else { continue };
                    self.send = self.sends.next();
                    let from = s.from as usize;
                    if self.sel.wants_proc(from) && inside(self.ranges, from, s.time) {
                        self.unmatched_sends.push(((from, s.seq), s.unmatched()));
                    }
                }
                Ordering::Greater => {
                    let Some((x, _)) = self.next_recv() else { continue };
                    // (The selection is applied to all unmatched receives
                    // at the end.)
                    self.unmatched_recvs
                        .push(((x.to, x.from, x.tag, x.order), x.unmatched()));
                }
                Ordering::Equal => {
                    let Some(s) = std::mem::replace(&mut self.send, self.sends.next()) else {
                        continue;
                    };
                    let Some((x, c)) = self.next_recv() else { continue };
                    let (from, to) = (s.from as usize, x.to as usize);
                    if (self.sel.wants_proc(from) || self.sel.wants_proc(to))
                        && inside(self.ranges, from, s.time)
                    {
                        let row = PairRow::of(&s, &x, &c);
                        self.add(&row.pair());
                        return Some(row);
                    }
                }
            }
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

/// Pairs sends with receives (the module docs tell how). The pairs are
/// handed on in batches formatted in parallel: each batch starts a chunk
/// with `new` and gives it its pairs through `add`; `emit` gets the chunks
/// in the fixed order (by sender, then in the sender's record order), so a
/// caller that formats in `add` and writes in `emit` streams the pairs with
/// bounded memory and the same output for any thread count. Pairs and the
/// report cover the messages that touch the selected processes; both ends
/// are read for pairing.
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
    let out = Handing { new, add, emit };
    pair_within(db, sel, ranges, MEMORY_BUDGET, PairOrder::Sender, out)
}

/// [`pair_messages_in`] for a caller that only sums, counts or takes
/// extremes of the pairs: `emit` gets the chunks in key order (sender,
/// receiver, tag, then sender order: the same for any thread count), which
/// saves the last sort. The report is the same.
pub fn pair_messages_unordered<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    new: impl Fn() -> C + Sync,
    add: impl Fn(&mut C, &Pair) + Sync,
    emit: &mut dyn FnMut(C),
) -> (PairingSummary, Vec<Warning>) {
    let out = Handing { new, add, emit };
    pair_within(db, sel, ranges, MEMORY_BUDGET, PairOrder::Any, out)
}

/// The order the pairs reach the caller in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PairOrder {
    /// By sender, then in the sender's record order.
    Sender,
    /// By key (sender, receiver, tag), then in the sender's record order.
    Any,
}

/// How the pairs reach the caller: in chunks made by `new` and `add` in
/// parallel batches, handed to `emit` in order.
pub(super) struct Handing<'e, N, A, C> {
    pub new: N,
    pub add: A,
    pub emit: &'e mut dyn FnMut(C),
}

impl<N, A, C> Handing<'_, N, A, C>
where
    N: Fn() -> C + Sync,
    A: Fn(&mut C, &Pair) + Sync,
    C: Send,
{
    fn hand_on(&mut self, mut pairs: impl Iterator<Item = PairRow>) {
        let batches = std::iter::from_fn(|| {
            let batch: Vec<PairRow> = pairs.by_ref().take(TASK_PAIRS).collect();
            (!batch.is_empty()).then_some(batch)
        });
        let (new, add, emit) = (&self.new, &self.add, &mut *self.emit);
        crate::parallel::Ordered::per_thread(TASKS_PER_THREAD)
            .overlapped()
            .for_each(
                batches,
                |batch| {
                    let mut chunk = new();
                    for p in &batch {
                        add(&mut chunk, &p.pair());
                    }
                    chunk
                },
                emit,
            );
    }
}

/// What the join of one partition found besides the pairs it handed on.
struct PartFound<C> {
    /// The pairs made into chunks (in [`PairOrder::Any`]).
    chunks: Vec<C>,
    paired: u64,
    routes: RouteSums,
    unmatched_sends: Vec<((usize, u64), MsgEnd)>,
    unmatched_recvs: Vec<((i32, i32, i32, u64), MsgEnd)>,
    /// A temporary file that failed as it was read (rows lost) or written
    /// (rows kept in memory).
    unread: Option<std::io::Error>,
    unwritten: Option<std::io::Error>,
}

/// The rows of `kind` of partition `part`, sorted by their keys within
/// `run_bytes` of memory.
fn sorted_rows<T: Row>(
    spill: &Spill,
    part: usize,
    kind: usize,
    run_bytes: usize,
) -> (Sorted<T>, Option<std::io::Error>, Option<std::io::Error>) {
    let sorter = Sorter::with_run_bytes(run_bytes);
    let mut batch = Vec::with_capacity(spill.records(3 * part + kind).min(BATCH_ROWS as u64) as usize);
    let read = spill.read(3 * part + kind, |chunk| {
        batch.extend(chunk.chunks_exact(T::BYTES).map(T::get));
        if batch.len() >= BATCH_ROWS {
            sorter.push(&mut batch);
        }
    });
    sorter.push(&mut batch);
    let (rows, unwritten) = sorter.finish();
    (rows, read.err(), unwritten)
}

/// Steps 2 and 3 for one partition: its rows sorted and merged. Its pairs
/// go to `pairs` (sender order) or into chunks (any order).
#[allow(clippy::too_many_arguments)]
fn join_partition<N, A, C>(
    spill: &Spill,
    part: usize,
    run_bytes: usize,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    pairs: Option<&Sorter<PairRow>>,
    new: &N,
    add: &A,
) -> PartFound<C>
where
    N: Fn() -> C + Sync,
    A: Fn(&mut C, &Pair) + Sync,
    C: Send,
{
    let (sends, e1, w1) = sorted_rows(spill, part, SENDS, run_bytes);
    let (recvs, e2, w2) = sorted_rows(spill, part, RECVS, run_bytes);
    let (dones, e3, w3) = sorted_rows(spill, part, DONES, run_bytes);
    let mut join = Join::new((sends, recvs, dones), sel, ranges);
    let mut chunks = Vec::new();
    match pairs {
        Some(sorter) => {
            let mut batch = Vec::new();
            for row in join.by_ref() {
                batch.push(row);
                if batch.len() >= BATCH_ROWS {
                    sorter.push(&mut batch);
                }
            }
            sorter.push(&mut batch);
        }
        None => loop {
            let mut chunk = new();
            let mut n = 0;
            for row in join.by_ref().take(TASK_PAIRS) {
                add(&mut chunk, &row.pair());
                n += 1;
            }
            if n == 0 {
                break;
            }
            chunks.push(chunk);
        },
    }
    let (paired, routes, unmatched_sends, unmatched_recvs, e4) = join.finish();
    PartFound {
        chunks,
        paired,
        routes,
        unmatched_sends,
        unmatched_recvs,
        unread: e1.or(e2).or(e3).or(e4),
        unwritten: w1.or(w2).or(w3),
    }
}

/// The most partitions joined at once (two per thread up to it; their
/// results are handed on in partition order).
const PARTS_AT_ONCE: usize = 8;

/// The pairing of the module docs within `budget` bytes: half for the
/// partitions being joined, half for the pairs put back in sender order.
pub(super) fn pair_within<N, A, C>(
    db: &Database,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    budget: usize,
    order: PairOrder,
    mut out: Handing<'_, N, A, C>,
) -> (PairingSummary, Vec<Warning>)
where
    N: Fn() -> C + Sync,
    A: Fn(&mut C, &Pair) + Sync,
    C: Send,
{
    // Every process is read: a message of a selected process has its other
    // end in any process.
    let every_proc = CommSelection {
        procs: None,
        ..*sel
    };
    let threads = rayon::current_num_threads().max(1);
    // A partition's rows of each kind are sorted within `run_bytes`; the
    // partitions are cut so that one holds about that many bytes of rows
    // (a record makes at most one row). Their number depends on the data
    // and the budget alone: so does the order of the pairs in any order.
    let run_bytes = (budget / 2 / PARTS_AT_ONCE).max(1);
    let records = (db.comm_index().procs.iter())
        .flat_map(|p| every_proc.blocks(p))
        .fold(0u64, |n, b| n.saturating_add(b.ncomm));
    let row_bytes = records.saturating_mul(MAX_ROW_BYTES as u64);
    let parts = row_bytes.div_ceil(run_bytes as u64).clamp(1, MAX_PARTITIONS) as usize;
    let spill = match crate::spill::check_room(row_bytes).and_then(|()| Spill::new(3 * parts)) {
        Ok(s) => s,
        Err(e) => {
            let w = Warning::new(
                Location::file(db.dir()),
                format!(
                    "message pairing: no room for its temporary file ({e}); nothing was \
                     paired (TMPDIR names where the file goes)"
                ),
            );
            return (PairingSummary::default(), vec![w]);
        }
    };
    // Step 1, a task per run of processes, each with its own buffers.
    let chunk = (WRITER_BYTES / threads / (3 * parts)).clamp(1 << 10, 256 << 10);
    let walks: Vec<CommProcWalk> = db.comm_blocks(&every_proc).procs().collect();
    let numbered: Vec<(Vec<Numbered>, Option<std::io::Error>)> = walks
        .par_iter()
        .fold(
            || {
                let out = RowWriter {
                    out: Buffered::new(&spill, chunk),
                    parts,
                    failed: None,
                };
                (Vec::new(), out)
            },
            |(mut found, mut out), walk| {
                found.push(number(*walk, &mut out));
                (found, out)
            },
        )
        .map(|(found, out)| {
            let failed = out.failed;
            (found, out.out.flush().err().or(failed))
        })
        .collect();
    let mut warnings = Vec::new();
    let (mut wild, mut unkeyed) = (Vec::new(), Vec::new());
    let mut unwritten = None;
    for (found, failed) in numbered {
        unwritten = unwritten.or(failed);
        for n in found {
            wild.extend(n.wild);
            unkeyed.extend(n.unkeyed);
            warnings.extend(n.warnings);
        }
    }
    // Steps 2 and 3, partition after partition in parallel.
    let pairs = (order == PairOrder::Sender).then(|| Sorter::new(budget / 2));
    let mut report = PairingSummary::default();
    let mut routes = RouteSums::new();
    let (mut unmatched_sends, mut unmatched_recvs) = (Vec::new(), Vec::new());
    let mut unread = unwritten.take();
    let mut unwritten = None;
    let (new, add) = (&out.new, &out.add);
    let emit = &mut *out.emit;
    crate::parallel::Ordered::window((2 * threads).min(PARTS_AT_ONCE)).for_each(
        0..parts,
        |part| join_partition(&spill, part, run_bytes, sel, ranges, pairs.as_ref(), new, add),
        |found: PartFound<C>| {
            found.chunks.into_iter().for_each(&mut *emit);
            report.paired += found.paired;
            for (r, sums) in found.routes {
                routes.entry(r).or_insert_with(RouteSum::new).merge(&sums);
            }
            unmatched_sends.extend(found.unmatched_sends);
            unmatched_recvs.extend(found.unmatched_recvs);
            unread = unread.take().or(found.unread);
            unwritten = unwritten.take().or(found.unwritten);
        },
    );
    drop(spill);
    // Step 4: the pairs in sender order.
    if let Some(pairs) = pairs {
        let (mut sorted, failed) = pairs.finish();
        out.hand_on(sorted.by_ref());
        unread = unread.or(sorted.take_error());
        unwritten = unwritten.or(failed);
    }
    // Sends no row could hold took no receive.
    unmatched_sends.extend(
        unkeyed
            .into_iter()
            .filter(|(_, e)| sel.wants_proc(e.proc) && inside(ranges, e.proc, e.time)),
    );
    // Unmatched sends in sender order; receives by receiver, sender, tag
    // and record order (the keys are distinct).
    unmatched_sends.sort_unstable_by_key(|(k, _)| *k);
    unmatched_recvs.sort_unstable_by_key(|(k, _)| *k);
    report.routes = routes_of(routes);
    report.unmatched_sends = unmatched_sends.into_iter().map(|(_, e)| e).collect();
    // Receives from no process first, in process order.
    report.unmatched_recvs = wild;
    (report.unmatched_recvs).extend(unmatched_recvs.into_iter().map(|(_, e)| e));
    if let Some(e) = unwritten {
        // Slower memory, not a wrong result: worth a note.
        warnings.push(Warning::note(
            Location::file(db.dir()),
            format!(
                "message pairing: the temporary file failed ({e}): sorting in memory instead \
                 (more memory; TMPDIR names where the file goes)"
            ),
        ));
    }
    if let Some(e) = unread {
        warnings.push(Warning::new(
            Location::file(db.dir()),
            format!(
                "message pairing: the temporary file failed ({e}): the pairs and all counted \
                 from them (routes, unmatched sends and receives) are incomplete"
            ),
        ));
    }
    (selected(report, sel, ranges), warnings)
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
pub(super) struct RouteSum {
    messages: u64,
    bytes: u64,
    latency: Latencies,
    completion: Latencies,
}

impl RouteSum {
    pub(super) fn new() -> Self {
        RouteSum {
            messages: 0,
            bytes: 0,
            latency: Latencies::NONE,
            completion: Latencies::NONE,
        }
    }

    pub(super) fn add(&mut self, p: &Pair) {
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
pub(super) type RouteSums = BTreeMap<(usize, usize), RouteSum>;

pub(super) fn routes_of(routes: RouteSums) -> Vec<Route> {
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

