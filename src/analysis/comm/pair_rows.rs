//! Step 1 of the message pairing ([`super::pairs`]): one pass over each
//! process's records, in record order, files a row per send (numbered
//! `seq` in the sender's record order), per receive from a process
//! (numbered `order` in the receiver's) and per completion of a receive
//! filed before its status came, each under its key's partition.

use std::cmp::Ordering;

use super::completion::{WaitTracker, is_nonblocking_recv, is_wait};
use super::pair_types::{MsgEnd, Pair, end, is_paired_recv, is_paired_send};
use super::pair_sort::{Keyed, sort_by_key};
use super::pair_waiting::Waiting;
use crate::error::Warning;
use crate::external_sort::Row;
use crate::formats::blprof::commdata::{BEFORE_CALL, CommRecord, func_name, is_recv, is_send};
use crate::formats::blprof::walk::{CommProcWalk, Skipped};
use crate::spill::Buffered;

/// A send: its key and what a pair or an unmatched send reports of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct SendRow {
    pub(super) from: i32,
    pub(super) to: i32,
    pub(super) tag: i32,
    /// Its place among the sender's sends, in record order.
    pub(super) seq: u64,
    pub(super) time: f64,
    pub(super) size: i32,
    pub(super) kind: u8,
}

/// A receive from a process: its key, what a pair reports of it and how
/// it completed, when that is known as the row is filed.
#[derive(Debug, Clone, Copy)]
pub(super) struct RecvRow {
    pub(super) from: i32,
    pub(super) to: i32,
    pub(super) tag: i32,
    /// Its place among the receiver's receives, in record order.
    pub(super) order: u64,
    pub(super) time: f64,
    pub(super) kind: u8,
    pub(super) size: i32,
    /// When it completed (NaN: not known).
    pub(super) done: f64,
    /// When the call that completed it was entered (NaN: not known).
    pub(super) entry: f64,
    /// That call's MPI type; [`PENDING`] for a nonblocking receive filed
    /// before a status completed it (a [`DoneRow`] may).
    pub(super) wait_kind: u8,
}

/// The `wait_kind` of a receive filed before its status came (no MPI
/// type: those a row holds are below 64).
pub(super) const PENDING: u8 = u8::MAX;

/// MPI type `kind` in the one byte a row keeps it in, so that rows spill
/// fewer bytes. The rows hold only types that passed `is_send`, `is_recv`
/// or `is_wait`, all in 0..64; anything else would become an unknown type
/// (listed as `?`), never another known one.
pub(super) fn kind_byte(kind: i32) -> u8 {
    u8::try_from(kind).map_or(UNKNOWN_KIND, |k| k.min(UNKNOWN_KIND))
}

/// A type no MPI call has, below [`PENDING`].
const UNKNOWN_KIND: u8 = PENDING - 1;

/// A nonblocking receive as it waits for its status: its row but for its
/// key (source, tag), its receiver (the process read) and its completion
/// (not known yet). A third of the row: the waiting table stays in cache.
#[derive(Debug, Clone, Copy)]
pub(super) struct PostedRecv {
    order: u64,
    time: f64,
    kind: u8,
    size: i32,
}

impl PostedRecv {
    fn of(x: &RecvRow) -> PostedRecv {
        PostedRecv {
            order: x.order,
            time: x.time,
            kind: x.kind,
            size: x.size,
        }
    }

    /// Its row, with how it completed.
    fn row(&self, (from, tag): (i32, i32), to: i32, c: Completion) -> RecvRow {
        RecvRow {
            from,
            to,
            tag,
            order: self.order,
            time: self.time,
            kind: self.kind,
            size: self.size,
            done: c.done,
            entry: c.entry,
            wait_kind: c.wait_kind,
        }
    }
}

/// What a receive filed before its status came completed with.
const NOT_YET: Completion = Completion {
    done: f64::NAN,
    entry: f64::NAN,
    wait_kind: PENDING,
};

/// How a receive completed: when (NaN: not known), when the call that
/// completed it was entered (NaN: not known), and that call's MPI type.
#[derive(Debug, Clone, Copy)]
pub(super) struct Completion {
    pub(super) done: f64,
    pub(super) entry: f64,
    pub(super) wait_kind: u8,
}

/// A status a process's pass could not give to a receive it held (past
/// [`RowWriter::max_held`] receives waiting, every status is filed): the status's
/// key (its source, the process, its tag), its place among the process's
/// statuses filed, how many receives the process had posted before it,
/// when the wait that returned it exited, and the wait's entry and MPI
/// type. [`super::pair_merge`] gives it to the oldest receive of its key
/// posted before it and not completed yet, as the pass would have.
#[derive(Debug, Clone, Copy)]
pub(super) struct DoneRow {
    pub(super) from: i32,
    pub(super) to: i32,
    pub(super) tag: i32,
    pub(super) nth: u64,
    pub(super) after: u64,
    pub(super) time: f64,
    pub(super) entry: f64,
    pub(super) wait_kind: u8,
}

/// A pair as it waits to be put back in sender order.
#[derive(Debug, Clone, Copy)]
pub(super) struct PairRow {
    pub(super) from: i32,
    /// The send's place among its sender's sends.
    pub(super) seq: u64,
    pub(super) to: i32,
    pub(super) tag: i32,
    pub(super) size: i32,
    pub(super) send_time: f64,
    pub(super) recv_time: f64,
    pub(super) done: f64,
    pub(super) entry: f64,
    pub(super) wait_kind: u8,
}

impl SendRow {
    fn sort_key(&self) -> (i32, i32, i32, u64) {
        (self.from, self.to, self.tag, self.seq)
    }

    pub(super) fn unmatched(&self) -> MsgEnd {
        MsgEnd {
            proc: self.from as usize,
            peer: self.to,
            tag: self.tag,
            size: self.size,
            time: self.time,
            kind: func_name(i32::from(self.kind)).unwrap_or("?"),
        }
    }
}

impl RecvRow {
    /// Receive `r` of process `to` as its record tells it: a blocking one
    /// completes at its record and was entered at `recv_entry` (its
    /// before-record, when not later); a nonblocking one waits for a status.
    fn posted(to: i32, order: u64, r: &CommRecord, recv_entry: f64) -> RecvRow {
        let (done, entry, wait_kind) = if is_nonblocking_recv(r.kind) {
            (NOT_YET.done, NOT_YET.entry, NOT_YET.wait_kind)
        } else if recv_entry <= r.time {
            (r.time, recv_entry, kind_byte(r.kind))
        } else {
            (r.time, r.time, kind_byte(r.kind))
        };
        RecvRow {
            from: r.peer,
            to,
            tag: r.tag,
            order,
            time: r.time,
            kind: kind_byte(r.kind),
            size: r.size,
            done,
            entry,
            wait_kind,
        }
    }

    /// Whether it was filed before a status completed it.
    pub(super) fn pending(&self) -> bool {
        self.wait_kind == PENDING
    }

    /// How it completed, as filed (a receive no status completed: not
    /// known, the receive's own type).
    pub(super) fn completion(&self) -> Completion {
        Completion {
            done: self.done,
            entry: self.entry,
            wait_kind: if self.pending() {
                self.kind
            } else {
                self.wait_kind
            },
        }
    }

    fn sort_key(&self) -> (i32, i32, i32, u64) {
        (self.from, self.to, self.tag, self.order)
    }

    /// Listed unmatched: as its receiver's record.
    pub(super) fn unmatched(&self) -> MsgEnd {
        MsgEnd {
            proc: self.to as usize,
            peer: self.from,
            tag: self.tag,
            size: self.size,
            time: self.time,
            kind: func_name(i32::from(self.kind)).unwrap_or("?"),
        }
    }
}

impl PairRow {
    pub(super) fn of(s: &SendRow, x: &RecvRow, c: &Completion) -> PairRow {
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

    pub(super) fn pair(&self) -> Pair {
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
            wait_kind: i32::from(self.wait_kind),
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

/// The key a row is filed and matched under (pair_sort's grouping).
macro_rules! keyed {
    ($($row:ty),+) => {
        $(impl Keyed for $row {
            fn key(&self) -> (i32, i32, i32) {
                (self.from, self.to, self.tag)
            }
        })+
    };
}

keyed!(SendRow, RecvRow, DoneRow);

ordered_by!(SendRow, |r| r.sort_key());
ordered_by!(RecvRow, |r| r.sort_key());
ordered_by!(DoneRow, |r| (r.from, r.to, r.tag, r.nth));
// By sender, then in the sender's record order.
ordered_by!(PairRow, |r| (r.from, r.seq));

/// Writes `row`'s fields in turn into `out` (`len` bytes), each as the
/// type given, little-endian, at offsets the compiler knows; a field is
/// never wider than its type here ([`Width::of`] checks narrow rows).
macro_rules! put_fields {
    ($row:expr, $out:expr, $len:expr, $($field:ident: $t:ty),+) => {{
        let Ok(out) = <&mut [u8; $len]>::try_from($out) else {
            return;
        };
        let mut at = 0;
        $(
            let n = std::mem::size_of::<$t>();
            let value = <$t>::try_from($row.$field).unwrap_or_default();
            out[at..at + n].copy_from_slice(&value.to_le_bytes());
            at += n;
        )+
        let _ = at;
    }};
}

/// Reads a `$row` written by [`put_fields`] with the same fields and types
/// (the fields not written: the values given after them).
macro_rules! get_fields {
    (
        $bytes:expr, $len:expr, $row:ident, $($field:ident: $t:ty),+
        $(; $($other:ident = $value:expr),+)?
    ) => {{
        let mut b = [0u8; $len];
        if let Ok(whole) = <&[u8; $len]>::try_from($bytes) {
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
        $row { $($field: From::from($field)),+ $($(, $other: $value)+)? }
    }};
}

/// A row's bytes in a run: its fields in turn, little-endian, at offsets
/// the compiler knows (the spill writes and reads every row once).
macro_rules! row_bytes {
    ($row:ident { $($field:ident: $t:ty),+ $(,)? } $(sorted by $sort:path)?) => {
        impl Row for $row {
            const BYTES: usize = 0 $(+ std::mem::size_of::<$t>())+;
            $(
                const SORT_BYTES: usize = super::pair_sort::SORT_BYTES;
                fn sort(rows: &mut [Self]) -> Option<Vec<u32>> {
                    $sort(rows)
                }
            )?
            fn put(&self, out: &mut [u8]) {
                put_fields!(self, out, Self::BYTES, $($field: $t),+)
            }
            fn get(bytes: &[u8]) -> Self {
                get_fields!(bytes, Self::BYTES, $row, $($field: $t),+)
            }
        }
    };
}

// A partition's sends, receives and completions: put in order by key
// (super::pair_sort); the pairs by comparing.
row_bytes!(SendRow { from: i32, to: i32, tag: i32, seq: u64, time: f64, size: i32, kind: u8 }
    sorted by sort_by_key);
row_bytes!(RecvRow {
    from: i32,
    to: i32,
    tag: i32,
    order: u64,
    time: f64,
    kind: u8,
    size: i32,
    done: f64,
    entry: f64,
    wait_kind: u8,
} sorted by sort_by_key);
row_bytes!(DoneRow {
    from: i32,
    to: i32,
    tag: i32,
    nth: u64,
    after: u64,
    time: f64,
    entry: f64,
    wait_kind: u8,
} sorted by sort_by_key);
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
    wait_kind: u8,
});

/// How step 1 writes its rows to the spill, whose bytes are written and
/// read back once each (the kernel's copies are much of the pairing's
/// time): narrow, process numbers in 16 bits and places (`seq`, `order`,
/// `nth`, `after`) in 32, when the headers prove that every one fits (a
/// fifth fewer bytes); else as a run holds them ([`Row`]). The partitions
/// do not depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Width {
    Narrow,
    Wide,
}

impl Width {
    /// The width for processes numbered up to `last_proc` with at most
    /// `most_records` records each (a place counts records).
    pub(super) fn of(last_proc: usize, most_records: u64) -> Width {
        if last_proc <= usize::from(u16::MAX) && most_records <= u64::from(u32::MAX) {
            Width::Narrow
        } else {
            Width::Wide
        }
    }
}

/// A row of step 1 as the spill holds it at [`Width::Narrow`]: its
/// narrow bytes, of which a row may keep only the first
/// [`Spilled::narrow_len`] (the fields after them are known from those).
pub(super) trait Spilled: Row + Keyed + Copy {
    /// Bytes of a row's narrow fields, all of them.
    const NARROW_BYTES: usize;
    /// The fewest bytes a row keeps (a bound on the rows of a chunk).
    const FEWEST_NARROW_BYTES: usize = Self::NARROW_BYTES;
    /// Writes all [`Spilled::NARROW_BYTES`].
    fn put_narrow(&self, out: &mut [u8]);
    /// Reads all [`Spilled::NARROW_BYTES`].
    fn get_narrow(bytes: &[u8]) -> Self;
    /// The bytes this row keeps: the first of its narrow bytes.
    fn narrow_len(&self) -> usize {
        Self::NARROW_BYTES
    }
    /// Writes the bytes this row keeps ([`Spilled::narrow_len`]).
    fn put_kept(&self, out: &mut [u8]) {
        self.put_narrow(out)
    }
    /// The row whose kept bytes start `bytes`, and their number (`None`:
    /// too few bytes).
    fn take_narrow(bytes: &[u8]) -> Option<(Self, usize)> {
        let kept = bytes.get(..Self::NARROW_BYTES)?;
        Some((Self::get_narrow(kept), Self::NARROW_BYTES))
    }
}

/// A row's narrow bytes: its fields in turn, each in the type given,
/// little-endian. The pass files only rows whose fields fit
/// ([`Width::of`], [`RowWriter::is_process`]).
/// (`kept fewest by len, put, take`: a row keeps its first `len(row)`
/// bytes, at least `fewest`, written by `put` and read back by `take`.)
macro_rules! narrow_bytes {
    (
        $row:ident { $($field:ident: $t:ty),+ $(,)? }
        $(kept $fewest:expr, by $len:path, $put:path, $take:path)?
    ) => {
        impl Spilled for $row {
            const NARROW_BYTES: usize = 0 $(+ std::mem::size_of::<$t>())+;
            $(const FEWEST_NARROW_BYTES: usize = $fewest;)?
            fn put_narrow(&self, out: &mut [u8]) {
                put_fields!(self, out, Self::NARROW_BYTES, $($field: $t),+)
            }
            fn get_narrow(bytes: &[u8]) -> Self {
                get_fields!(bytes, Self::NARROW_BYTES, $row, $($field: $t),+)
            }
            $(
                fn narrow_len(&self) -> usize {
                    $len(self)
                }
                fn put_kept(&self, out: &mut [u8]) {
                    $put(self, out)
                }
                fn take_narrow(bytes: &[u8]) -> Option<(Self, usize)> {
                    $take(bytes)
                }
            )?
        }
    };
}

narrow_bytes!(SendRow { from: u16, to: u16, tag: i32, seq: u32, time: f64, size: i32, kind: u8 });
// (Its completion last: a pending receive keeps the bytes before it.)
narrow_bytes!(RecvRow {
    from: u16,
    to: u16,
    tag: i32,
    order: u32,
    time: f64,
    kind: u8,
    size: i32,
    wait_kind: u8,
    done: f64,
    entry: f64,
} kept PENDING_RECV_BYTES, by RecvRow::kept_narrow, RecvRow::put_kept_narrow,
    RecvRow::take_kept_narrow);

/// Narrow bytes of a receive's completion (`done`, `entry`), which a
/// pending receive does not keep: they are NaN. Most receives of a run of
/// nonblocking ones are pending as filed, some two fifths of their bytes.
const COMPLETION_BYTES: usize = 16;

/// Narrow bytes a pending receive keeps (its `wait_kind`, [`PENDING`], the
/// last of them).
const PENDING_RECV_BYTES: usize = <RecvRow as Spilled>::NARROW_BYTES - COMPLETION_BYTES;

impl RecvRow {
    fn kept_narrow(&self) -> usize {
        if self.pending() {
            PENDING_RECV_BYTES
        } else {
            Self::NARROW_BYTES
        }
    }

    // A pending receive's fields are written and read where they are: a
    // row put whole aside and copied in part (or back) makes the loads of
    // its fields wait for the copy's stores to reach the cache. (Its
    // fields: the narrow ones before its completion, in their order.)
    fn put_kept_narrow(&self, out: &mut [u8]) {
        if !self.pending() {
            return self.put_narrow(out);
        }
        put_fields!(self, out, PENDING_RECV_BYTES,
            from: u16, to: u16, tag: i32, order: u32, time: f64, kind: u8, size: i32, wait_kind: u8)
    }

    fn take_kept_narrow(bytes: &[u8]) -> Option<(Self, usize)> {
        let head = PENDING_RECV_BYTES;
        if *bytes.get(head - 1)? != PENDING {
            let kept = bytes.get(..Self::NARROW_BYTES)?;
            return Some((Self::get_narrow(kept), Self::NARROW_BYTES));
        }
        let row = get_fields!(bytes.get(..head)?, PENDING_RECV_BYTES, RecvRow,
            from: u16, to: u16, tag: i32, order: u32, time: f64, kind: u8, size: i32, wait_kind: u8;
            done = NOT_YET.done, entry = NOT_YET.entry);
        Some((row, head))
    }
}
narrow_bytes!(DoneRow {
    from: u16,
    to: u16,
    tag: i32,
    nth: u32,
    after: u32,
    time: f64,
    entry: f64,
    wait_kind: u8,
});

/// What numbering one process finds besides its rows.
pub(super) struct Numbered {
    /// Receives from a wildcard or sentinel source.
    pub(super) wild: Vec<MsgEnd>,
    /// Sends no receive can take, not filed: of a process whose number
    /// does not fit a row (none in real runs) or to a peer that is no
    /// process read. Unmatched, with their place in sender order.
    pub(super) unkeyed: Vec<((usize, u64), MsgEnd)>,
    /// Receives from a peer that is no process read, not filed: unmatched,
    /// with their key (receiver, sender, tag, place).
    pub(super) strays: Vec<((i32, i32, i32, u64), MsgEnd)>,
    pub(super) warnings: Vec<Warning>,
}

/// Step 1's output: every row filed under its key's partition in the
/// spill (bucket `3 · partition + kind`).
pub(super) struct RowWriter<'s> {
    pub(super) out: Buffered<'s>,
    pub(super) parts: usize,
    pub(super) width: Width,
    /// The largest process number read (as a row holds it): a peer past
    /// it, or below 0, is no process.
    pub(super) last_proc: i32,
    /// Nonblocking receives a process's pass holds until their statuses
    /// come: past it, they are filed at once.
    pub(super) max_held: usize,
    /// The first write that failed: the rows after it are lost.
    pub(super) failed: Option<std::io::Error>,
}

/// The kinds of rows, each a bucket of every partition.
pub(super) const SENDS: usize = 0;
pub(super) const RECVS: usize = 1;
pub(super) const DONES: usize = 2;

/// Bytes of the largest row.
pub(super) const MAX_ROW_BYTES: usize = 64;

impl RowWriter<'_> {
    fn file<T: Spilled>(&mut self, kind: usize, key: (i32, i32, i32), row: &T) {
        let bucket = 3 * partition(key, self.parts) + kind;
        let filed = match self.width {
            Width::Narrow => self.out.push_with(bucket, row.narrow_len(), |out| row.put_kept(out)),
            Width::Wide => self.out.push_with(bucket, T::BYTES, |out| row.put(out)),
        };
        if let Err(e) = filed {
            self.failed.get_or_insert(e);
        }
    }

    /// Whether `peer` may be a process read: a row's key holds no other
    /// (and a narrow row could not).
    pub(super) fn is_process(&self, peer: i32) -> bool {
        (0..=self.last_proc).contains(&peer)
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
pub(super) fn number(walk: CommProcWalk<'_>, out: &mut RowWriter<'_>) -> Numbered {
    let (proc, sel) = (walk.proc().proc, *walk.selection());
    let me = i32::try_from(proc).ok();
    let (mut seq, mut order) = (0u64, 0u64);
    let mut waits = WaitTracker::default();
    let mut recv_entry = f64::NAN;
    let mut waiting: Waiting<PostedRecv> = Waiting::default();
    // Past `max_held` receives waiting: every receive and status filed.
    let (mut filing, mut statuses) = (false, 0u64);
    let mut wild = Vec::new();
    let (mut unkeyed, mut strays) = (Vec::new(), Vec::new());
    let warnings = walk.for_each_block(Skipped::Messages, Skipped::Messages, |_, records| {
        while let Some(batch) = records.next_batch() {
            for r in batch.records() {
                if is_send(r.kind) {
                    if sel.contains(r.time) && is_paired_send(&r) {
                        match me.filter(|_| out.is_process(r.peer)) {
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
                                    kind: kind_byte(r.kind),
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
                    if !out.is_process(from) {
                        // (No receive of its key was filed.)
                        continue;
                    }
                    let (entry, wait_kind) = waits.last_wait();
                    let wait_kind = kind_byte(wait_kind);
                    if filing {
                        let done = DoneRow {
                            from,
                            to,
                            tag,
                            nth: statuses,
                            after: order,
                            time,
                            entry,
                            wait_kind,
                        };
                        statuses += 1;
                        out.file(DONES, (from, to, tag), &done);
                    } else if let Some(x) = waiting.pop((from, tag)) {
                        let c = Completion {
                            done: time,
                            entry,
                            wait_kind,
                        };
                        out.file(RECVS, (from, to, tag), &x.row((from, tag), to, c));
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
                if !out.is_process(r.peer) {
                    strays.push(((to, r.peer, r.tag, order), end(proc, &r)));
                    order += 1;
                    continue;
                }
                let x = RecvRow::posted(to, order, &r, recv_entry);
                order += 1;
                if x.pending() && !filing {
                    if waiting.len() < out.max_held {
                        // Filed when its status comes.
                        waiting.push((x.from, x.tag), PostedRecv::of(&x));
                        continue;
                    }
                    // Too many open: they and the receives to come are
                    // filed now, the statuses to come as rows of their own.
                    filing = true;
                    for ((from, tag), x) in std::mem::take(&mut waiting).into_held() {
                        out.file(RECVS, (from, to, tag), &x.row((from, tag), to, NOT_YET));
                    }
                }
                out.file(RECVS, (x.from, x.to, x.tag), &x);
            }
        }
    });
    // Receives no status completed.
    if let Some(to) = me {
        for ((from, tag), x) in waiting.into_held() {
            out.file(RECVS, (from, to, tag), &x.row((from, tag), to, NOT_YET));
        }
    }
    walk.database().progress().advance(1);
    Numbered {
        wild,
        unkeyed,
        strays,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(x: &RecvRow) -> Vec<u8> {
        let mut b = vec![0u8; RecvRow::BYTES];
        x.put(&mut b);
        b
    }

    /// A receive that waited comes back as the row it was posted as, with
    /// the completion given (or none).
    #[test]
    fn a_posted_receive_comes_back_as_its_row() {
        let r = CommRecord::of(11, 4096, 3, 77, 1.25);
        let posted = RecvRow::posted(5, 42, &r, f64::NAN);
        let held = PostedRecv::of(&posted);
        assert_eq!(bytes(&held.row((3, 77), 5, NOT_YET)), bytes(&posted));
        let c = Completion {
            done: 2.5,
            entry: 2.0,
            wait_kind: 41,
        };
        let mut done = posted;
        (done.done, done.entry, done.wait_kind) = (2.5, 2.0, 41);
        assert_eq!(bytes(&held.row((3, 77), 5, c)), bytes(&done));
    }

    /// Rows spilled narrow come back as they were, fields at the ends of
    /// their narrow range included.
    #[test]
    fn narrow_rows_come_back_whole() {
        fn round_trip<T: Spilled>(row: T) {
            let mut narrow = vec![0u8; row.narrow_len()];
            row.put_kept(&mut narrow);
            narrow.push(0xa5);
            let (back, len) = T::take_narrow(&narrow).unwrap();
            assert_eq!(len, row.narrow_len());
            let (mut want, mut got) = (vec![0u8; T::BYTES], vec![0u8; T::BYTES]);
            row.put(&mut want);
            back.put(&mut got);
            assert_eq!(got, want);
        }
        let (last, most) = (i32::from(u16::MAX), u64::from(u32::MAX));
        for (proc, place, tag) in [(0, 0, i32::MIN), (last, most, i32::MAX), (7, 1 << 20, -3)] {
            round_trip(SendRow {
                from: proc,
                to: last - proc,
                tag,
                seq: place,
                time: -1.5,
                size: i32::MIN,
                kind: 9,
            });
            round_trip(RecvRow {
                from: last - proc,
                to: proc,
                tag,
                order: most - place,
                time: 2.25,
                kind: 11,
                size: i32::MAX,
                done: f64::NAN,
                entry: f64::NAN,
                wait_kind: PENDING,
            });
            round_trip(RecvRow {
                from: proc,
                to: last - proc,
                tag,
                order: place,
                time: 2.25,
                kind: 10,
                size: 0,
                done: f64::NAN,
                entry: f64::INFINITY,
                wait_kind: 41,
            });
            round_trip(DoneRow {
                from: proc,
                to: proc,
                tag,
                nth: place,
                after: most - place,
                time: 1e300,
                entry: -0.0,
                wait_kind: 41,
            });
        }
        const {
            assert!(SendRow::NARROW_BYTES < SendRow::BYTES);
            assert!(RecvRow::NARROW_BYTES < RecvRow::BYTES);
        };
    }

    /// A receive filed pending keeps fewer bytes than one that completed;
    /// a chunk of both reads back row by row.
    #[test]
    fn pending_receives_keep_fewer_bytes() {
        let r = CommRecord::of(11, 4096, 3, 77, 1.25);
        let pending = RecvRow::posted(5, 42, &r, f64::NAN);
        let mut done = pending;
        (done.done, done.entry, done.wait_kind) = (2.5, 2.0, 41);
        assert_eq!(pending.narrow_len(), RecvRow::FEWEST_NARROW_BYTES);
        assert!(pending.narrow_len() < done.narrow_len());
        let mut chunk = Vec::new();
        for row in [pending, done, pending] {
            let mut kept = vec![0u8; row.narrow_len()];
            row.put_kept(&mut kept);
            chunk.extend(kept);
        }
        let mut rest = &chunk[..];
        for want in [pending, done, pending] {
            let (got, len) = RecvRow::take_narrow(rest).unwrap();
            assert_eq!(bytes(&got), bytes(&want));
            rest = &rest[len..];
        }
        assert!(rest.is_empty());
    }

    /// Rows are narrow exactly when every process number fits 16 bits and
    /// every process's records 32.
    #[test]
    fn rows_are_narrow_when_the_headers_prove_they_fit() {
        let (last, most) = (usize::from(u16::MAX), u64::from(u32::MAX));
        assert_eq!(Width::of(0, 0), Width::Narrow);
        assert_eq!(Width::of(last, most), Width::Narrow);
        assert_eq!(Width::of(last + 1, 0), Width::Wide);
        assert_eq!(Width::of(0, most + 1), Width::Wide);
    }

    /// A row keeps every MPI type in its byte; no other value becomes a
    /// known type or the mark of a receive waiting for its status.
    #[test]
    fn kinds_keep_their_type_in_a_byte() {
        for kind in 0..64 {
            assert_eq!(i32::from(kind_byte(kind)), kind);
        }
        for odd in [-1, 64, 255, 256, i32::MIN, i32::MAX] {
            let k = kind_byte(odd);
            assert_ne!(k, PENDING);
            assert_eq!(func_name(i32::from(k)), None);
        }
    }
}
