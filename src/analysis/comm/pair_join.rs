//! The message pairing as a hash join through spill space
//! ([`crate::spill`]): the comm files are read once for all windows, where
//! [`super::pair_window`] reads the receivers' records again for every
//! window.
//!
//! 1. One pass, in parallel over processes, files each send (with its rank
//!    in sender order: counted by the first pass, or, without one, its
//!    process's position and its count there) and each receive under its
//!    key (sender, receiver, tag): a partition of some 128 Ki events (8 MB,
//!    matched in parts that stay in the cache) per hash of the key. The pass completes the
//!    nonblocking receives by the rule of [`super::completion`] as it
//!    goes (a status takes the oldest receive of its key waiting for one);
//!    past a bound on the receives waiting, it files them and the statuses
//!    as they come.
//! 2. Partition after partition (in parallel), the events are grouped by
//!    key, in record order; statuses filed complete the receives left, and
//!    the k-th send takes the k-th receive. Each send's receive is filed
//!    under the send's window; receives left over are the unmatched ones.
//! 3. The windows ([`super::pairs`]) read their receives back, in
//!    sender order.
//!
//! A caller to whom the pairs' order makes no difference (sums, counts,
//! extremes) gets them from step 2 instead: the sends are filed with their
//! time and size, each partition's pairs are made as it is matched, and
//! no window reads the sends or the receives again.
//!
//! Memory is a partition per thread, the receives waiting and the write
//! buffers (budgets shared by the threads), or a window. Keys are not
//! spread by the hash when one key carries most messages (a partition
//! cannot be cut inside a key): then the join declines and the windows do
//! the pairing.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::completion::{WaitTracker, is_nonblocking_recv, is_wait};
use super::pair_window::{NO_KEY, WindowSend};
use super::pairs::{MsgEnd, Unit, Waiting, is_paired_recv, is_paired_send};
use super::select::CommSelection;
use crate::error::Warning;
use crate::formats::blprof::commdata::{BEFORE_CALL, CommRecord, func_name, is_recv, is_send};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommProcWalk, Skipped};
use crate::spill::{Buffered, Spill};

/// At most this many partitions (open buffers per writer).
const MAX_PARTITIONS: u64 = 4096;
/// Bytes of buffers of all writing tasks together (each task buffers
/// every partition or window; at least 1 KiB each, so past 1024 buckets on
/// 4 threads the buffers take more). Small enough that a task's buffers
/// stay in its core's cache while it writes all over them (16 MB cost the
/// filing a tenth more time on the yardstick).
const WRITER_BYTES: usize = 4 << 20;
/// What an event is.
const SEND: u32 = 0;
/// A nonblocking receive not completed yet.
const RECV: u32 = 1;
/// A nonblocking receive with its completion.
const DONE_RECV: u32 = 2;
const BLOCKING_RECV: u32 = 3;
const STATUS: u32 = 4;
/// A send with its time and size: paired in its partition, not in its
/// window ([`Filed::pair_partition`]).
const TIMED_SEND: u32 = 5;

fn is_send_event(what: u32) -> bool {
    what == SEND || what == TIMED_SEND
}

/// A send, receive or status, as held while its partition is matched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Event {
    from: i32,
    to: i32,
    tag: i32,
    what: u32,
    /// Sends: the rank in sender order (all sends of the run); receives
    /// and statuses: the order among the receiver's events.
    order: u64,
    /// The record's time; a status's: the wait's exit.
    time: f64,
    /// When the receive completed (NaN: not known).
    done: f64,
    /// When the call that completed it was entered (NaN: not known), and
    /// its MPI type.
    entry: f64,
    wait_kind: i32,
    /// MPI type of the record.
    kind: i32,
    size: i32,
}

/// The bytes of an event as filed: what its kind needs, no more (the
/// filing's cost is its bytes). Every event starts with its key, what it
/// is and its MPI types packed in 16 bytes (the types are below 64), then
/// its order; a send ends there (the windows read the rest again from the
/// sender's records).
fn filed_bytes(what: u32) -> Option<usize> {
    match what {
        SEND => Some(24),
        // + time, size
        TIMED_SEND => Some(36),
        // + time, size
        RECV => Some(36),
        // + time, size, entry (done is time)
        BLOCKING_RECV => Some(44),
        // + time, size, entry, done
        DONE_RECV => Some(52),
        // + time (done is time), entry
        STATUS => Some(40),
        _ => None,
    }
}

/// The most bytes an event takes.
const MAX_EVENT_BYTES: usize = 52;

impl Event {
    /// The event's bytes: the first `n` of the array.
    fn encode(&self) -> ([u8; MAX_EVENT_BYTES], usize) {
        let types = |k: i32| u8::try_from(k).unwrap_or(u8::MAX);
        let mut b = [0u8; MAX_EVENT_BYTES];
        let mut n = 0;
        let mut put = |bytes: &[u8]| {
            b[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
        };
        put(&self.from.to_le_bytes());
        put(&self.to.to_le_bytes());
        put(&self.tag.to_le_bytes());
        put(&[self.what as u8, types(self.kind), types(self.wait_kind), 0]);
        put(&self.order.to_le_bytes());
        if self.what != SEND {
            put(&self.time.to_le_bytes());
            if self.what != STATUS {
                put(&self.size.to_le_bytes());
            }
            if self.what != RECV && self.what != TIMED_SEND {
                put(&self.entry.to_le_bytes());
            }
            if self.what == DONE_RECV {
                put(&self.done.to_le_bytes());
            }
        }
        (b, n)
    }

    /// The event at the start of `b` and its length; `None` when `b` does
    /// not start with a whole event.
    fn decode(b: &[u8]) -> Option<(Event, usize)> {
        let what = u32::from(*b.get(12)?);
        let n = filed_bytes(what)?;
        let b = b.get(..n)?;
        let i = |at: usize| i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let u = |at: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[at..at + 8]);
            u64::from_le_bytes(x)
        };
        let f = |at: usize| f64::from_bits(u(at));
        let types = |k: u8| if k == u8::MAX { -1 } else { i32::from(k) };
        let mut e = Event {
            from: i(0),
            to: i(4),
            tag: i(8),
            what,
            order: u(16),
            time: f64::NAN,
            done: f64::NAN,
            entry: f64::NAN,
            kind: types(b[13]),
            wait_kind: types(b[14]),
            size: 0,
        };
        match what {
            SEND => {}
            STATUS => {
                (e.time, e.done, e.entry) = (f(24), f(24), f(32));
            }
            _ => {
                (e.time, e.size) = (f(24), i(32));
                if what != RECV && what != TIMED_SEND {
                    e.entry = f(36);
                    e.done = if what == DONE_RECV { f(44) } else { e.time };
                }
            }
        }
        Some((e, n))
    }

    fn key(&self) -> (i32, i32, i32) {
        (self.from, self.to, self.tag)
    }

    /// The receive as a send takes it.
    fn waiting(&self) -> Waiting {
        Waiting {
            time: self.time,
            done: self.done,
            entry: self.entry,
            wait_kind: self.wait_kind,
            kind: self.kind,
        }
    }
}

/// The partition of a key: the hash's high 32 bits scaled to `n` (a
/// multiply, not a division: the filing does this per event).
#[inline]
fn partition(key: (i32, i32, i32), n: usize) -> usize {
    (((key_hash(key) >> 32) * n as u64) >> 32) as usize
}

/// A send's receive as filed for its window: the send's rank, then the
/// receive (40 bytes).
const TAKEN_BYTES: usize = 40;

fn encode_taken(seq: u64, x: &Waiting) -> [u8; TAKEN_BYTES] {
    let mut b = [0u8; TAKEN_BYTES];
    b[0..8].copy_from_slice(&seq.to_le_bytes());
    b[8..16].copy_from_slice(&x.time.to_le_bytes());
    b[16..24].copy_from_slice(&x.done.to_le_bytes());
    b[24..32].copy_from_slice(&x.entry.to_le_bytes());
    b[32..36].copy_from_slice(&x.wait_kind.to_le_bytes());
    b[36..40].copy_from_slice(&x.kind.to_le_bytes());
    b
}

fn decode_taken(b: &[u8]) -> (u64, Waiting) {
    let u = |r: std::ops::Range<usize>| u64::from_le_bytes(b[r].try_into().unwrap_or([0; 8]));
    let i = |r: std::ops::Range<usize>| i32::from_le_bytes(b[r].try_into().unwrap_or([0; 4]));
    (
        u(0..8),
        Waiting {
            time: f64::from_bits(u(8..16)),
            done: f64::from_bits(u(16..24)),
            entry: f64::from_bits(u(24..32)),
            wait_kind: i(32..36),
            kind: i(36..40),
        },
    )
}

/// The sizes the join works in.
#[derive(Debug, Clone, Copy)]
pub(super) struct JoinSizes {
    /// Events per partition (24 to 52 bytes each as filed, 64 in memory)
    /// aimed at, and the most a partition may hold before the join declines.
    pub partition: u64,
    pub limit: u64,
    /// Receives waiting for their status that the passes hold together
    /// (some 60 bytes each, shared by the threads); past its share, a
    /// process's pass files them and the statuses as they come, and the
    /// partitions complete them.
    pub pending: usize,
    /// What the join costs per send and receive, in comm records read:
    /// the windows do the pairing when they would read fewer (0: always
    /// join).
    pub event_cost: u64,
}

/// The join's result: per window, the receives its sends take.
pub(super) struct Joined {
    taken: Spill,
    /// Each window's first send rank, and the end of the last.
    starts: Vec<u64>,
    /// Receives no send took: by receiver (in the comm index's order),
    /// sender and tag, then in record order.
    pub unmatched_recvs: Vec<MsgEnd>,
    /// The thread closing the partitions' files.
    closing: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(t) = self.closing.take() {
            let _ = t.join();
        }
    }
}

impl Joined {
    /// The receives the sends of window `w` take, by rank in the window
    /// ([`Waiting::EMPTY`] where a send takes none), in `out` (a window's
    /// before, so that its memory is not faulted in again).
    pub(super) fn receives(
        &self,
        w: usize,
        mut out: Vec<Waiting>,
    ) -> std::io::Result<Vec<Waiting>> {
        out.clear();
        let (Some(&a), Some(&z)) = (self.starts.get(w), self.starts.get(w + 1)) else {
            return Ok(out);
        };
        out.resize(z.saturating_sub(a) as usize, Waiting::EMPTY);
        self.taken.read(w, |chunk| {
            for b in chunk.chunks_exact(TAKEN_BYTES) {
                let (seq, x) = decode_taken(b);
                if let Some(slot) = seq.checked_sub(a).and_then(|i| out.get_mut(i as usize)) {
                    *slot = x;
                }
            }
        })?;
        Ok(out)
    }
}

/// The sends and receives filed in partitions: what pairing them needs.
pub(super) struct Filed {
    parts: Spill,
    /// Filed for the partitions: the sends to no process (a negative
    /// peer), with their ranks, kept aside (they take no receive).
    pub(super) strays: Vec<(u64, WindowSend)>,
    /// Filed without a first pass ([`Ranks::Forecast`]): the receives from
    /// no process and the blocks' warnings, in process order.
    pub(super) wild: Vec<MsgEnd>,
    pub(super) warnings: Vec<Warning>,
}

/// Where the filed sends are paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PairedIn {
    /// In their windows, which read their receives back from this many
    /// bytes of spill more ([`join`]).
    Windows(u64),
    /// In the partitions: the sends carry their time and size
    /// ([`Filed::pair_partition`]).
    Partitions,
}

/// How the filing pass ranks the sends, and what it knows beforehand.
#[derive(Clone, Copy)]
pub(super) enum Ranks<'a> {
    /// From the first pass: the run's `units`, in sender order;
    /// `unit_seq[i]` is the rank of unit `i`'s first send,
    /// `unit_seq[units.len()]` the number of sends; `recvs` the receives
    /// from a process it counted.
    Counted {
        units: &'a [Unit<'a>],
        unit_seq: &'a [u64],
        recvs: u64,
    },
    /// No first pass ([`super::pair_forecast`]), `events` sends and
    /// receives forecast: a send's rank is its sender's position in the comm
    /// index times 2⁴⁰ plus its count there (the same order, with gaps),
    /// and the pass gathers what the first pass would have: the receives
    /// from no process and the blocks' warnings.
    Forecast { events: u64 },
}

/// Why [`file`] declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Declined {
    /// A partition holds over the limit while the events were spread as
    /// aimed: one key carries too many messages, in any partitioning.
    OneKey,
    /// Far more events came than were forecast, or other sends than the
    /// first pass counted (a file changed in between).
    Miscounted,
}

/// Files the sends and the receives of every process of `sel`, ranked by
/// `ranks`; or declines, a partition holding over `size.limit` events.
/// Without a first pass, each process filed advances the progress.
pub(super) fn file(
    db: &Database,
    sel: &CommSelection<'_>,
    ranks: Ranks<'_>,
    size: JoinSizes,
    paired_in: PairedIn,
) -> std::io::Result<Result<Filed, Declined>> {
    let (timed, more) = match paired_in {
        PairedIn::Windows(bytes) => (false, bytes),
        PairedIn::Partitions => (true, 0),
    };
    let procs = &db.comm_index().procs;
    // Each process's first send rank and its sends (`None`: not counted),
    // and the events aimed at and the most that can come.
    let mut first_send: FxHashMap<usize, (u64, Option<u64>)> = FxHashMap::default();
    let (events, most) = match ranks {
        Ranks::Counted {
            units,
            unit_seq,
            recvs,
        } => {
            for (u, &seq) in units.iter().zip(unit_seq) {
                let e = first_send.entry(u.proc).or_insert((seq, Some(0)));
                e.1 = e.1.map(|n| n + u.sends);
            }
            let sends = unit_seq.last().copied().unwrap_or(0);
            let events = sends.saturating_add(recvs);
            (events, events)
        }
        Ranks::Forecast { events } => {
            if procs.len() >= 1 << 24 {
                return Ok(Err(Declined::Miscounted));
            }
            for (i, p) in procs.iter().enumerate() {
                first_send.insert(p.proc, ((i as u64) << 40, None));
            }
            // (A record files at most one event.)
            let records = procs
                .iter()
                .flat_map(|p| sel.blocks(p))
                .fold(0u64, |n, b| n.saturating_add(b.ncomm));
            (events.saturating_add(events / 4), records)
        }
    };
    let n = events
        .div_ceil(size.partition.max(1))
        .clamp(1, MAX_PARTITIONS) as usize;
    crate::spill::check_room(
        most.saturating_mul(MAX_EVENT_BYTES as u64)
            .saturating_add(more),
    )?;
    let parts = Spill::new(n)?;
    // Budgets shared by the tasks that run at once.
    let threads = rayon::current_num_threads().max(1);
    let chunk = (WRITER_BYTES / threads / n).clamp(1 << 10, 256 << 10);
    let pending = size.pending / threads;
    let gather = matches!(ranks, Ranks::Forecast { .. });
    let walks: Vec<CommProcWalk> = db.comm_blocks(sel).procs().collect();
    let filed = walks.par_iter().try_fold(Gathered::default, |mut g, walk| {
        let mut out = Buffered::new(&parts, chunk);
        let (first, count) = first_send
            .get(&walk.proc().proc)
            .copied()
            .unwrap_or((0, Some(0)));
        let mut wild = Vec::new();
        let aside = Aside {
            strays: timed.then_some(&mut g.strays),
            wild: gather.then_some(&mut wild),
        };
        let (sent, warnings) = file_events(walk, first, n, pending, aside, &mut out)?;
        out.flush()?;
        g.same &= count.is_none_or(|c| c == sent);
        if gather {
            g.found.push((first, wild, warnings));
            db.progress().advance(1);
        }
        Ok::<_, std::io::Error>(g)
    });
    let mut g = filed.try_reduce(Gathered::default, |mut a, b| {
        a.same &= b.same;
        a.strays.extend(b.strays);
        a.found.extend(b.found);
        Ok(a)
    })?;
    // The sends must be the first pass's (a file that changed in between
    // would shift the ranks).
    if !g.same {
        return Ok(Err(Declined::Miscounted));
    }
    // (Indices into a partition are 32 bits.)
    let limit = size.limit.min(u64::from(u32::MAX));
    if (0..n).any(|b| parts.records(b) > limit) {
        let filed = (0..n).fold(0u64, |t, b| t.saturating_add(parts.records(b)));
        let aimed = (n as u64).saturating_mul(size.partition);
        return Ok(Err(if filed > aimed.saturating_mul(2) {
            Declined::Miscounted
        } else {
            Declined::OneKey
        }));
    }
    // In process order, as the first pass gives them.
    g.found.sort_unstable_by_key(|f| f.0);
    let (mut wild, mut warnings) = (Vec::new(), Vec::new());
    for (_, w, x) in g.found {
        wild.extend(w);
        warnings.extend(x);
    }
    Ok(Ok(Filed {
        parts,
        strays: g.strays,
        wild,
        warnings,
    }))
}

/// What the filing tasks gather.
struct Gathered {
    /// Whether every process filed the sends its first pass counted.
    same: bool,
    strays: Vec<(u64, WindowSend)>,
    /// Forecast: per process (by its first rank), its receives from no
    /// process and its blocks' warnings.
    found: Vec<(u64, Vec<MsgEnd>, Vec<Warning>)>,
}

impl Default for Gathered {
    fn default() -> Self {
        Gathered {
            same: true,
            strays: Vec::new(),
            found: Vec::new(),
        }
    }
}

/// Where [`file_events`] puts what it does not file.
struct Aside<'a> {
    /// Sends to no process, with their ranks (`None`: dropped).
    strays: Option<&'a mut Vec<(u64, WindowSend)>>,
    /// Receives from no process (`None`: dropped, the first pass has them).
    wild: Option<&'a mut Vec<MsgEnd>>,
}

/// What matching a partition works in, kept from one partition to the
/// next (a partition is some MB).
#[derive(Default)]
pub(super) struct Scratch {
    /// The partition's events, in parts of some [`PART_EVENTS`].
    parts: Vec<Vec<Event>>,
    group: Vec<Event>,
    recvs: Vec<Event>,
}

/// Events of a partition grouped by key at a time: 256 KB, so that the
/// events, which are visited in the order of their keys' hashes, stay in
/// a core's cache (a whole partition of 4 MB, 64 Ki events, cost
/// `comm pairs` 7% more time on the yardstick; parts of 1 MB, 4%).
const PART_EVENTS: usize = 4 * 1024;

impl Filed {
    pub(super) fn partitions(&self) -> usize {
        self.parts.buckets()
    }

    /// Matches partition `b` key by key: `take` gets each send (`TIMED_SEND`
    /// or not) with the receive it takes, if any; receives no send took go
    /// to `left`.
    fn match_partition(
        &self,
        b: usize,
        scratch: &mut Scratch,
        left: &mut Vec<Event>,
        mut take: impl FnMut(&Event, Option<&Event>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Scratch {
            parts,
            group,
            recvs,
        } = scratch;
        // Parts by the hash's low bits (the partition is cut by its high
        // ones): a key's events all in one.
        let n = (self.parts.records(b) as usize)
            .div_ceil(PART_EVENTS)
            .clamp(1, 256);
        parts.truncate(n);
        parts.resize_with(n, Vec::new);
        for v in parts.iter_mut() {
            v.clear();
            // (A part that one key's many messages filled is not kept: the
            // parts hold some twice a partition, whatever its keys.)
            if v.capacity() > 2 * PART_EVENTS {
                *v = Vec::new();
            }
        }
        let mut whole = true;
        self.parts.read(b, |mut c| {
            while let Some((e, len)) = Event::decode(c) {
                let part = if n == 1 {
                    0
                } else {
                    ((u64::from(key_hash(e.key()) as u32) * n as u64) >> 32) as usize
                };
                parts[part].push(e);
                c = &c[len..];
            }
            whole &= c.is_empty();
        })?;
        if !whole {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the temporary file of the message pairing reads back damaged",
            ));
        }
        // (In any order of the keys: what a key gives does not depend on
        // the others.)
        for events in &parts[..n] {
            for_each_key(events, group, |group| {
                match_key(group, recvs, left, &mut take)
            })?;
        }
        Ok(())
    }

    /// Pairs partition `b` (filed for [`PairedIn::Partitions`]): `take` gets each send, with
    /// its rank in sender order, and the receive it takes, if any; the
    /// receives no send took go to `left` ([`unmatched_recvs`]).
    pub(super) fn pair_partition(
        &self,
        b: usize,
        scratch: &mut Scratch,
        left: &mut Vec<Event>,
        mut take: impl FnMut(u64, &WindowSend, Option<&Waiting>),
    ) -> std::io::Result<()> {
        self.match_partition(b, scratch, left, |s, x| {
            let send = WindowSend {
                time: s.time,
                from: s.from as usize,
                to: s.to,
                tag: s.tag,
                size: s.size,
                kind: s.kind,
                key: 0,
                rank: 0,
            };
            take(s.order, &send, x.map(Event::waiting).as_ref());
            Ok(())
        })
    }
}

/// Joins the sends of `units` with the receives of every process of `sel`
/// ([`file`]) and files each send's receive under its window: `windows`
/// are the ranges of units paired at a time.
pub(super) fn join(
    db: &Database,
    sel: &CommSelection<'_>,
    units: &[Unit<'_>],
    unit_seq: &[u64],
    windows: &[std::ops::Range<usize>],
    recvs: u64,
    size: JoinSizes,
) -> std::io::Result<Option<Joined>> {
    let sends = unit_seq.last().copied().unwrap_or(0);
    // The receive of every send.
    let taken_bytes = sends.saturating_mul(TAKEN_BYTES as u64);
    let windows_read = PairedIn::Windows(taken_bytes);
    let ranks = Ranks::Counted {
        units,
        unit_seq,
        recvs,
    };
    let Ok(filed) = file(db, sel, ranks, size, windows_read)? else {
        return Ok(None);
    };
    let n = filed.partitions();
    let starts: Vec<u64> = windows
        .iter()
        .map(|r| unit_seq[r.start])
        .chain([sends])
        .collect();
    let taken = Spill::new(windows.len())?;
    // Partitions are matched in parallel, each task taking every `tasks`-th
    // one, with its own buffers.
    let tasks = rayon::current_num_threads().clamp(1, n);
    let chunk = (WRITER_BYTES / tasks / windows.len().max(1)).clamp(1 << 10, 256 << 10);
    let lefts: Vec<Vec<Event>> = (0..tasks)
        .into_par_iter()
        .map(|t| {
            let mut out = Buffered::new(&taken, chunk);
            let mut left = Vec::new();
            let mut scratch = Scratch::default();
            for b in (t..n).step_by(tasks) {
                filed.match_partition(b, &mut scratch, &mut left, |s, x| match x {
                    Some(x) => {
                        let w = starts.partition_point(|&a| a <= s.order).saturating_sub(1);
                        out.push(w, &encode_taken(s.order, &x.waiting()))
                    }
                    None => Ok(()),
                })?;
            }
            out.flush()?;
            Ok(left)
        })
        .collect::<std::io::Result<_>>()?;
    // Closing the file frees its pages in the page cache, some 50 ms per
    // 250 MB: done aside while the windows pair, and waited for when the
    // join is dropped (its space is free again for a next spill).
    let closing = filed.close_aside();
    Ok(Some(Joined {
        taken,
        starts,
        unmatched_recvs: unmatched_recvs(db, lefts.into_iter().flatten().collect()),
        closing,
    }))
}

impl Filed {
    /// Drops the partitions' files on another thread (see [`join`]).
    fn close_aside(self) -> Option<std::thread::JoinHandle<()>> {
        let parts = self.parts;
        std::thread::Builder::new()
            .name("spill-close".into())
            .spawn(move || drop(parts))
            .ok()
    }
}

/// Receives no send took, as listed: by receiver (in the comm index's
/// order), sender and tag, then in record order.
pub(super) fn unmatched_recvs(db: &Database, mut left: Vec<Event>) -> Vec<MsgEnd> {
    let position = db.comm_index().positions();
    left.sort_unstable_by_key(|e: &Event| {
        let q = usize::try_from(e.to).ok().and_then(|q| position.get(&q));
        (q.copied(), e.from, e.tag, e.order)
    });
    left.into_iter()
        .map(|e| MsgEnd {
            proc: e.to as usize,
            peer: e.from,
            tag: e.tag,
            size: e.size,
            time: e.time,
            kind: func_name(e.kind).unwrap_or("?"),
        })
        .collect()
}

/// The events of each key, in record order (the receiver's first): a
/// sort of packed keys (comparing the events' fields took most of the
/// join's time), then the events of each key gathered into `group`.
fn for_each_key(
    events: &[Event],
    group: &mut Vec<Event>,
    mut f: impl FnMut(&[Event]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // The hash's high bits over the event's index: one u64 to sort (fewer
    // hash bits only put more keys in a run).
    let bits = u64::BITS - (events.len() as u64).leading_zeros();
    let low = (1u64 << bits) - 1;
    let mut order: Vec<u64> = events
        .iter()
        .enumerate()
        .map(|(i, e)| key_hash(e.key()) & !low | i as u64)
        .collect();
    order.sort_unstable();
    let rank = |e: &Event| (e.key(), is_send_event(e.what), e.order);
    for run in order.chunk_by(|a, b| a & !low == b & !low) {
        // Most keys are one message (AMReX tags its messages by a sequence
        // number): a receive and its send, taken as they are.
        if let [a, b] = run {
            let (a, b) = (&events[(a & low) as usize], &events[(b & low) as usize]);
            if a.key() == b.key() && is_send_event(a.what) != is_send_event(b.what) {
                let pair = if is_send_event(a.what) {
                    [*b, *a]
                } else {
                    [*a, *b]
                };
                f(&pair)?;
                continue;
            }
        }
        group.clear();
        group.extend(run.iter().map(|&x| events[(x & low) as usize]));
        // (Keys of one hash share a run; the run is mostly in order.)
        if !group.is_sorted_by_key(rank) {
            group.sort_unstable_by_key(rank);
        }
        for key in group.chunk_by(|a, b| a.key() == b.key()) {
            f(key)?;
        }
    }
    Ok(())
}

#[inline]
fn key_hash(key: (i32, i32, i32)) -> u64 {
    let x = (u64::from(key.0 as u32) << 32 | u64::from(key.1 as u32))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ u64::from(key.2 as u32).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Files the sends, receives and statuses of one process (its first send
/// has rank `first`) under `n` partitions; returns its sends and the
/// warnings of its blocks. The order of the records is
/// the windows' and [`super::pair_window`]'s, and so are the rules.
fn file_events(
    walk: &CommProcWalk<'_>,
    first: u64,
    n: usize,
    cap: usize,
    aside: Aside<'_>,
    out: &mut Buffered<'_>,
) -> std::io::Result<(u64, Vec<Warning>)> {
    let Aside {
        mut strays,
        mut wild,
    } = aside;
    let timed = strays.is_some();
    let sel = *walk.selection();
    let me = i32::try_from(walk.proc().proc).ok();
    let mut sent = 0u64;
    let mut order = 0u64;
    let mut waits = WaitTracker::default();
    let mut recv_entry = f64::NAN;
    // The nonblocking receives no status has completed yet: a status
    // completes the oldest of its key, and a status of a key with none
    // completes nothing and is not filed. Past `cap` of them, they and
    // the statuses are filed as they come (`None`).
    let mut pending: Option<Pending> = me.map(Pending::new);
    let mut failed = None;
    let mut put = |e: &Event, out: &mut Buffered<'_>| {
        if failed.is_none()
            && let Err(err) = {
                let (bytes, len) = e.encode();
                out.push_prefix(partition(e.key(), n), &bytes, len)
            }
        {
            failed = Some(err);
        }
    };
    // (Without `wild`, the first pass read the same blocks and gave their
    // warnings.)
    let warnings = walk.for_each_block(Skipped::Messages, Skipped::Messages, |_, records| {
        while let Some(batch) = records.next_batch() {
            for r in batch.records() {
                if is_send(r.kind) {
                    if sel.contains(r.time) && is_paired_send(&r) {
                        if r.peer >= 0
                            && let Some(me) = me
                        {
                            put(&send(me, &r, first.saturating_add(sent), timed), out);
                        } else if let Some(strays) = strays.as_deref_mut() {
                            // (Kept aside: it takes no receive.)
                            strays.push((
                                first.saturating_add(sent),
                                WindowSend::of(walk.proc().proc, &r, NO_KEY, 0),
                            ));
                        }
                        sent += 1;
                    }
                    continue;
                }
                let Some(me) = me else { continue };
                if !is_recv(r.kind) && !is_wait(r.kind) {
                    continue;
                }
                if let Some(((from, tag), time)) = waits.push(&r) {
                    let (entry, wait_kind) = waits.last_wait();
                    match &mut pending {
                        Some(p) => {
                            if let Some(mut e) = p.pop((from, tag)) {
                                (e.what, e.done, e.entry, e.wait_kind) =
                                    (DONE_RECV, time, entry, wait_kind);
                                put(&e, out);
                            }
                        }
                        None => {
                            let e = Event {
                                from,
                                to: me,
                                tag,
                                what: STATUS,
                                order,
                                time,
                                done: time,
                                entry,
                                wait_kind,
                                kind: wait_kind,
                                size: 0,
                            };
                            order += 1;
                            put(&e, out);
                        }
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
                    if let Some(wild) = wild.as_deref_mut() {
                        wild.push(super::pairs::end(walk.proc().proc, &r));
                    }
                    continue;
                }
                let nonblocking = is_nonblocking_recv(r.kind);
                let x = Waiting::posted(&r, recv_entry);
                let e = Event {
                    from: r.peer,
                    to: me,
                    tag: r.tag,
                    what: if nonblocking { RECV } else { BLOCKING_RECV },
                    order,
                    time: x.time,
                    done: x.done,
                    entry: x.entry,
                    wait_kind: x.wait_kind,
                    kind: x.kind,
                    size: r.size,
                };
                order += 1;
                match &mut pending {
                    Some(p) if nonblocking => {
                        p.push(e);
                        if p.len() > cap {
                            p.drain(|e| put(e, out));
                            pending = None;
                        }
                    }
                    _ => put(&e, out),
                }
            }
        }
    });
    if let Some(p) = &mut pending {
        p.drain(|e| put(e, out));
    }
    failed.map_or(Ok((sent, warnings)), Err)
}

/// Receives waiting for their status, per (sender, tag) oldest first: lists
/// through one pool of slots, so that the many keys of one receive each
/// (AMReX tags its messages by a sequence number) cost no allocation.
struct Pending {
    /// The receiver: the process of the pass.
    to: i32,
    /// (sender, tag) → the first and last slot of its list.
    keys: FxHashMap<(i32, i32), (u32, u32)>,
    /// A receive and the next slot of its list (`u32::MAX`: none).
    slots: Vec<(Posted, u32)>,
    free: Vec<u32>,
}

/// A nonblocking receive as it waits: its event but for what all of them
/// share (the receiver, no completion yet, the wait's type its own), 32
/// bytes where the event takes 64: the pool is the pass's memory.
#[derive(Debug, Clone, Copy)]
struct Posted {
    order: u64,
    time: f64,
    from: i32,
    tag: i32,
    kind: i32,
    size: i32,
}

impl Posted {
    fn of(e: &Event) -> Posted {
        Posted {
            order: e.order,
            time: e.time,
            from: e.from,
            tag: e.tag,
            kind: e.kind,
            size: e.size,
        }
    }

    fn event(&self, to: i32) -> Event {
        Event {
            from: self.from,
            to,
            tag: self.tag,
            what: RECV,
            order: self.order,
            time: self.time,
            done: f64::NAN,
            entry: f64::NAN,
            wait_kind: self.kind,
            kind: self.kind,
            size: self.size,
        }
    }
}

impl Pending {
    fn new(to: i32) -> Self {
        Pending {
            to,
            keys: FxHashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Adds `e`, a nonblocking receive not completed (to this pool's
    /// receiver).
    fn push(&mut self, e: Event) {
        debug_assert!(e.what == RECV && e.to == self.to && e.done.is_nan());
        let p = Posted::of(&e);
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = (p, u32::MAX);
                i
            }
            None => {
                self.slots.push((p, u32::MAX));
                (self.slots.len() - 1) as u32
            }
        };
        match self.keys.entry((e.from, e.tag)) {
            std::collections::hash_map::Entry::Occupied(mut o) => {
                let (_, last) = o.get_mut();
                self.slots[*last as usize].1 = slot;
                *last = slot;
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((slot, slot));
            }
        }
    }

    /// The oldest receive of `key`, taken out.
    fn pop(&mut self, key: (i32, i32)) -> Option<Event> {
        let (head, _) = *self.keys.get(&key)?;
        let (p, next) = self.slots[head as usize];
        if next == u32::MAX {
            self.keys.remove(&key);
        } else if let Some(k) = self.keys.get_mut(&key) {
            k.0 = next;
        }
        self.free.push(head);
        Some(p.event(self.to))
    }

    /// Hands every receive to `f` and empties the pool.
    fn drain(&mut self, mut f: impl FnMut(&Event)) {
        let free: rustc_hash::FxHashSet<u32> = self.free.drain(..).collect();
        for (i, (p, _)) in self.slots.iter().enumerate() {
            if !free.contains(&(i as u32)) {
                f(&p.event(self.to));
            }
        }
        self.slots.clear();
        self.keys.clear();
    }
}

fn send(me: i32, r: &CommRecord, seq: u64, timed: bool) -> Event {
    Event {
        from: me,
        to: r.peer,
        tag: r.tag,
        what: if timed { TIMED_SEND } else { SEND },
        order: seq,
        time: r.time,
        done: f64::NAN,
        entry: f64::NAN,
        wait_kind: 0,
        kind: r.kind,
        size: r.size,
    }
}

/// One key's events, the receiver's first (in record order), then the
/// sends (in rank order): completes the receives the receiver's pass left
/// to the statuses, gives each send with the receive it takes, if any, to
/// `take`, and puts the receives left in `left`.
fn match_key(
    group: &[Event],
    recvs: &mut Vec<Event>,
    left: &mut Vec<Event>,
    take: &mut impl FnMut(&Event, Option<&Event>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let split = group.partition_point(|e| !is_send_event(e.what));
    let (receiver, sends) = group.split_at(split);
    recvs.clear();
    // A status completes the oldest receive not completed yet (receives
    // completed by the pass come first, blocking ones at their own record:
    // both are passed over).
    let mut completed = 0;
    for e in receiver {
        if e.what != STATUS {
            recvs.push(*e);
            continue;
        }
        let mut c = completed;
        while c < recvs.len() && recvs[c].what != RECV {
            c += 1;
        }
        if let Some(x) = recvs.get_mut(c) {
            (x.what, x.done, x.entry, x.wait_kind) = (DONE_RECV, e.time, e.entry, e.wait_kind);
            c += 1;
        }
        completed = c;
    }
    for (i, s) in sends.iter().enumerate() {
        take(s, recvs.get(i))?;
    }
    left.extend(recvs.iter().skip(sends.len()).copied());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field an event of each kind carries, as bits (NaN compares).
    fn fields(e: &Event) -> [u64; 11] {
        let f = f64::to_bits;
        [
            e.from as u64,
            e.to as u64,
            e.tag as u64,
            u64::from(e.what),
            e.order,
            f(e.time),
            f(e.done),
            f(e.entry),
            e.wait_kind as u64,
            e.kind as u64,
            e.size as u64,
        ]
    }

    #[test]
    fn events_and_receives_read_back_as_written() {
        let base = Event {
            from: -3,
            to: 7,
            tag: i32::MAX,
            what: SEND,
            order: u64::MAX - 1,
            time: f64::NAN,
            done: f64::NAN,
            entry: f64::NAN,
            wait_kind: 0,
            kind: 6,
            size: 0,
        };
        // Each kind as the filing makes it: what it does not file is
        // what its kind implies.
        let events = [
            base,
            Event {
                what: TIMED_SEND,
                time: 0.75,
                size: 4096,
                ..base
            },
            Event {
                what: RECV,
                time: 1.5,
                wait_kind: 11,
                kind: 11,
                size: -7,
                ..base
            },
            Event {
                what: BLOCKING_RECV,
                time: 2.5,
                done: 2.5,
                entry: 2.25,
                wait_kind: 14,
                kind: 14,
                size: 1 << 30,
                ..base
            },
            Event {
                what: DONE_RECV,
                time: 3.5,
                done: 4.5,
                entry: 4.0,
                wait_kind: 41,
                kind: 10,
                size: 8,
                ..base
            },
            Event {
                what: STATUS,
                time: 5.5,
                done: 5.5,
                entry: f64::NAN,
                wait_kind: 43,
                kind: 43,
                ..base
            },
        ];
        let mut bytes = Vec::new();
        for e in &events {
            let (b, n) = e.encode();
            assert_eq!(Some(n), filed_bytes(e.what));
            bytes.extend_from_slice(&b[..n]);
        }
        let mut rest = &bytes[..];
        for e in &events {
            let (d, n) = Event::decode(rest).unwrap();
            assert_eq!(fields(&d), fields(e), "{e:?}");
            rest = &rest[n..];
        }
        assert!(rest.is_empty());
        // A cut event or an unknown kind reads as none.
        assert!(Event::decode(&bytes[..23]).is_none());
        assert!(Event::decode(&bytes[24..24 + 35]).is_none());
        let mut odd = bytes[..24].to_vec();
        odd[12] = 9;
        assert!(Event::decode(&odd).is_none());
        let x = Waiting {
            time: 2.0,
            done: f64::NAN,
            entry: 1.0,
            wait_kind: 40,
            kind: 11,
        };
        let (seq, y) = decode_taken(&encode_taken(9, &x));
        assert_eq!(
            (seq, y.time, y.entry, y.wait_kind, y.kind),
            (9, 2.0, 1.0, 40, 11)
        );
        assert!(y.done.is_nan());
    }

    #[test]
    fn pending_receives_leave_oldest_first_per_key() {
        let recv = |from, tag, order| Event {
            from,
            tag,
            order,
            what: RECV,
            wait_kind: 11,
            ..send(0, &CommRecord::of(11, 8, 0, 0, 0.0), 0, false)
        };
        let mut p = Pending::new(0);
        // What goes in comes out.
        p.push(recv(4, 4, 9));
        let e = recv(4, 4, 9);
        assert_eq!(p.pop((4, 4)).map(|x| fields(&x)), Some(fields(&e)), "{e:?}");
        for (i, (from, tag)) in [(1, 5), (2, 5), (1, 5), (1, 6), (1, 5)]
            .into_iter()
            .enumerate()
        {
            p.push(recv(from, tag, i as u64));
        }
        assert_eq!(p.pop((1, 5)).map(|e| e.order), Some(0));
        assert_eq!(p.pop((1, 5)).map(|e| e.order), Some(2));
        assert_eq!(p.pop((3, 5)), None);
        // A freed slot is used again; the list keeps its order.
        p.push(recv(1, 5, 5));
        assert_eq!(p.len(), 4);
        assert_eq!(p.pop((1, 5)).map(|e| e.order), Some(4));
        let mut left: Vec<u64> = Vec::new();
        p.drain(|e| left.push(e.order));
        left.sort_unstable();
        assert_eq!(left, [1, 3, 5]);
        assert_eq!(p.len(), 0);
        assert_eq!(p.pop((1, 5)), None);
    }

    /// A status filed by a pass past its bound completes the oldest
    /// receive still waiting, passing over the ones the pass completed and
    /// the blocking ones; sends take the receives in order, the rest are
    /// left.
    #[test]
    fn statuses_complete_the_oldest_waiting_receive() {
        let ev = |what, order, time, done| Event {
            what,
            order,
            time,
            done,
            to: 1,
            ..send(0, &CommRecord::of(11, 8, 1, 7, 0.0), 0, false)
        };
        let group = [
            ev(DONE_RECV, 0, 0.5, 1.0),
            ev(BLOCKING_RECV, 1, 1.5, 1.5),
            ev(RECV, 2, 2.0, f64::NAN),
            ev(STATUS, 3, 5.0, 5.0),
            ev(RECV, 4, 6.0, f64::NAN),
            ev(RECV, 5, 6.5, f64::NAN),
            ev(SEND, 10, 0.0, f64::NAN),
            ev(SEND, 11, 0.0, f64::NAN),
            ev(SEND, 12, 0.0, f64::NAN),
            ev(SEND, 13, 0.0, f64::NAN),
        ];
        let spill = Spill::new(1).unwrap();
        let mut out = Buffered::new(&spill, 64);
        let (mut scratch, mut left) = (Vec::new(), Vec::new());
        let mut take = |s: &Event, x: Option<&Event>| match x {
            Some(x) => out.push(0, &encode_taken(s.order, &x.waiting())),
            None => Ok(()),
        };
        match_key(&group, &mut scratch, &mut left, &mut take).unwrap();
        out.flush().unwrap();
        let joined = Joined {
            taken: spill,
            starts: vec![0, 100],
            unmatched_recvs: Vec::new(),
            closing: None,
        };
        let taken = joined.receives(0, Vec::new()).unwrap();
        let done: Vec<String> = taken[10..14]
            .iter()
            .map(|x| format!("{}", x.done))
            .collect();
        assert_eq!(done, ["1", "1.5", "5", "NaN"]);
        assert!(
            taken[..10]
                .iter()
                .chain(&taken[14..])
                .all(Waiting::is_empty)
        );
        assert_eq!(left.iter().map(|e| e.order).collect::<Vec<_>>(), [5]);
    }

    #[test]
    fn keys_spread_over_the_partitions() {
        let mut count = [0u32; 16];
        for from in 0..8 {
            for tag in 0..1000 {
                count[partition((from, (from + 1) % 8, tag), 16)] += 1;
            }
        }
        // 500 keys per partition on average.
        assert!(count.iter().all(|&c| (400..600).contains(&c)), "{count:?}");
    }

    /// A partition past the limit with the events spread as aimed is one
    /// key's doing (the join would decline after a first pass too); with
    /// far more events than forecast, a counted filing may still do.
    #[test]
    fn declines_say_whether_a_key_or_the_forecast_is_to_blame() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let db = Database::open(dir.join("amrlevel8/bl_prof")).unwrap();
        let sel = CommSelection::all();
        let sizes = |partition, limit| JoinSizes {
            partition,
            limit,
            pending: 64,
            event_cost: 0,
        };
        let file_with = |events, size| {
            let ranks = Ranks::Forecast { events };
            file(&db, &sel, ranks, size, PairedIn::Partitions)
                .unwrap()
                .map(|f| f.partitions())
        };
        // 41,076 messages: as many sends and receives.
        let events = 2 * 41_076;
        assert!(file_with(events, sizes(1024, u64::MAX)).is_ok());
        assert_eq!(file_with(events, sizes(1024, 10)), Err(Declined::OneKey));
        assert_eq!(file_with(10, sizes(1024, 2048)), Err(Declined::Miscounted));
    }
}
