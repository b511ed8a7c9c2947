//! One window of the message pairing ([`super::pairs`]): a bounded run
//! of consecutive sends (in sender order) and the receives they take, found
//! without holding anything of the rest of the data.
//!
//! The k-th send from `p` to `q` with tag `t` takes the k-th receive on `q`
//! from `p` with tag `t`. For the window's sends, grouped by that key:
//!
//! 1. the window's own records give each send its rank among the window's
//!    sends of its key;
//! 2. the records of the window's first sender before the window give each
//!    key's first rank (the other senders start inside the window);
//! 3. each receiver's records, read in full, give its receives of the
//!    window's keys at those ranks, and their completions
//!    ([`super::completion`]).
//!
//! Memory is the window's sends, keys and receives, whatever the order of
//! the records in the files; the price is a read of the receivers' records
//! per window. So this is the way only when the join
//! ([`super::pair_join`]) declines; otherwise a window gets its
//! receives from the join ([`Window::with_receives`]).

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::completion::{WaitTracker, is_nonblocking_recv, is_wait};
use super::pairs::{MsgEnd, Unit, Waiting, is_paired_recv, is_paired_send};
use super::select::CommSelection;
use crate::formats::blprof::CommBlockRef;
use crate::formats::blprof::commdata::{BEFORE_CALL, CommRecord, func_name, is_recv};
use crate::formats::blprof::database::{Database, ProcComm};

/// A send of the window.
#[derive(Debug, Clone, Copy)]
pub(super) struct WindowSend {
    pub time: f64,
    pub from: usize,
    pub to: i32,
    pub tag: i32,
    pub size: i32,
    pub kind: i32,
    /// Its key's number in the window ([`NO_KEY`]: a peer that is no
    /// process), and its rank among the window's sends of that key.
    pub key: u32,
    pub rank: u32,
}

pub(super) const NO_KEY: u32 = u32::MAX;

/// The sends of unit `u` in the selection, ranked from `rank` on (the
/// keys are the join's: [`NO_KEY`] for a peer that is no process, else 0),
/// handed to `f`; returns how many.
fn unit_sends(
    db: &Database,
    sel: &CommSelection<'_>,
    u: &Unit<'_>,
    mut rank: u64,
    f: &mut dyn FnMut(WindowSend),
) -> u64 {
    let Ok(records) = db.comm_records(u.block) else {
        return 0;
    };
    let mut n = 0;
    for r in records.part(u.first, u.len) {
        if !sel.contains(r.time) || !is_paired_send(&r) {
            continue;
        }
        let key = if r.peer >= 0 { 0 } else { NO_KEY };
        f(WindowSend::of(
            u.proc,
            &r,
            key,
            u32::try_from(rank).unwrap_or(u32::MAX),
        ));
        rank += 1;
        n += 1;
    }
    n
}

impl WindowSend {
    /// A slot no send filled yet.
    const NONE: WindowSend = WindowSend {
        time: 0.0,
        from: 0,
        to: -1,
        tag: 0,
        size: 0,
        kind: 0,
        key: NO_KEY,
        rank: 0,
    };

    pub(super) fn of(from: usize, r: &CommRecord, key: u32, rank: u32) -> Self {
        WindowSend {
            time: r.time,
            from,
            to: r.peer,
            tag: r.tag,
            size: r.size,
            kind: r.kind,
            key,
            rank,
        }
    }
}

/// A sender, receiver and tag.
type Key = (usize, i32, i32);

/// The receives one receiver holds for the window.
struct Receiver<'a> {
    proc: &'a ProcComm,
    /// Whether a (sender, tag) may be wanted: most records are not, and
    /// this answers from a cache-sized table before the map is asked.
    filter: KeyFilter,
    /// (sender, tag) → its number among this receiver's keys.
    want: FxHashMap<(i32, i32), u32>,
    /// Per key: the rank of its first receive wanted, how many, and where
    /// they go in the receiver's slots.
    first: Vec<u64>,
    count: Vec<u32>,
    offset: Vec<usize>,
    slots: usize,
}

/// A set of (sender, tag) that may say yes for a key not in it: a bit per
/// hash value, eight bits per key (one byte of memory each).
struct KeyFilter {
    bits: Vec<u64>,
    mask: u64,
}

impl KeyFilter {
    fn new(keys: usize) -> Self {
        let n = (keys.saturating_mul(8)).next_power_of_two().max(64);
        KeyFilter {
            bits: vec![0; n / 64],
            mask: n as u64 - 1,
        }
    }

    #[inline]
    fn hash(&self, (a, b): (i32, i32)) -> u64 {
        let x =
            (u64::from(a as u32) << 32 | u64::from(b as u32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (x >> 29) & self.mask
    }

    fn insert(&mut self, key: (i32, i32)) {
        let h = self.hash(key);
        self.bits[(h / 64) as usize] |= 1 << (h % 64);
    }

    #[inline]
    fn may_hold(&self, key: (i32, i32)) -> bool {
        let h = self.hash(key);
        self.bits[(h / 64) as usize] & (1 << (h % 64)) != 0
    }
}

/// The window: its sends, and the receives they take.
pub(super) struct Window {
    pub sends: Vec<WindowSend>,
    taken: Taken,
}

/// Where a window's sends find their receives.
enum Taken {
    /// Found by the window from the receivers' records ([`Window::build`]).
    ByKey {
        /// Per key: its receiver (an index of `slots`, `u32::MAX` for
        /// none) and the slot of its first receive.
        key_slot: Vec<(u32, usize)>,
        /// Per receiver, the receives at the keys' ranks
        /// ([`Waiting::EMPTY`] where the receiver has none).
        slots: Vec<Vec<Waiting>>,
    },
    /// Given by the join ([`super::pair_join`]), by the send's rank in
    /// the window ([`Window::with_receives`]).
    BySend(Vec<Waiting>),
}

impl Window {
    /// The receive that send `s` takes, if its receiver has it.
    #[inline]
    pub(super) fn receive(&self, s: &WindowSend) -> Option<&Waiting> {
        let x = match &self.taken {
            Taken::ByKey { key_slot, slots } => {
                let &(r, first) = key_slot.get(s.key as usize)?;
                slots.get(r as usize)?.get(first + s.rank as usize)?
            }
            Taken::BySend(v) => v.get(s.rank as usize)?,
        };
        Some(x).filter(|x| !x.is_empty())
    }

    /// The window of `units[range]` whose sends take the receives that
    /// `receives` gives, by rank in the window; `unit_seq[i]` is the rank
    /// of unit `i`'s first send in the run. The receives are read while
    /// the units' sends are, in parallel, into `sends` (a window's before,
    /// so that its memory is not faulted in again); `None` when the
    /// receives fail.
    pub(super) fn with_receives(
        db: &Database,
        sel: &CommSelection<'_>,
        units: &[Unit<'_>],
        range: std::ops::Range<usize>,
        unit_seq: &[u64],
        mut sends: Vec<WindowSend>,
        receives: impl FnOnce() -> std::io::Result<Vec<Waiting>> + Send,
    ) -> Option<Window> {
        let start = unit_seq.get(range.start).copied().unwrap_or(0);
        let units = &units[range.clone()];
        let seqs = &unit_seq[range];
        // Each unit's sends (the first pass counted them) fill its own
        // slice; a unit that reads otherwise now (its file changed) has
        // them all read again one after the other.
        let total = units.iter().map(|u| u.sends as usize).sum();
        sends.clear();
        sends.resize(total, WindowSend::NONE);
        let (receives, same) = rayon::join(receives, || {
            let mut slices = Vec::with_capacity(units.len());
            let mut rest = &mut sends[..];
            for u in units {
                let (slice, after) = rest.split_at_mut(u.sends as usize);
                slices.push(slice);
                rest = after;
            }
            units
                .par_iter()
                .zip(seqs)
                .zip(slices)
                .all(|((u, &seq), slice)| {
                    let mut out = slice.iter_mut();
                    let n = unit_sends(db, sel, u, seq - start, &mut |s| {
                        if let Some(slot) = out.next() {
                            *slot = s;
                        }
                    });
                    n == slice.len() as u64
                })
        });
        if !same {
            sends.clear();
            for (u, &seq) in units.iter().zip(seqs) {
                unit_sends(db, sel, u, seq - start, &mut |s| sends.push(s));
            }
        }
        Some(Window {
            sends,
            taken: Taken::BySend(receives.ok()?),
        })
    }

    /// The vectors of sends and of receives by send of a window from the
    /// join, for the next such window to fill (none from the others: the
    /// next would hold them beside its own).
    pub(super) fn into_parts(self) -> (Vec<WindowSend>, Vec<Waiting>) {
        match self.taken {
            Taken::BySend(v) => (self.sends, v),
            Taken::ByKey { .. } => (Vec::new(), Vec::new()),
        }
    }

    /// Builds the window of `units[range]` (the units of the whole run, in
    /// sender order); `position` maps a process to its index in the comm
    /// index.
    pub(super) fn build(
        db: &Database,
        sel: &CommSelection<'_>,
        units: &[Unit<'_>],
        range: std::ops::Range<usize>,
        position: &FxHashMap<usize, usize>,
    ) -> Window {
        // 1. The window's sends, ranked per key.
        let mut keys: FxHashMap<Key, u32> = FxHashMap::default();
        let mut counts: Vec<u32> = Vec::new();
        // (The first pass counted them.)
        let total: u64 = units[range.clone()].iter().map(|u| u.sends).sum();
        let mut sends: Vec<WindowSend> = Vec::with_capacity(total as usize);
        for u in &units[range.clone()] {
            let Ok(records) = db.comm_records(u.block) else {
                continue;
            };
            for r in records.part(u.first, u.len) {
                if !sel.contains(r.time) || !is_paired_send(&r) {
                    continue;
                }
                let (key, rank) = if r.peer >= 0 {
                    let next = keys.len() as u32;
                    let k = *keys.entry((u.proc, r.peer, r.tag)).or_insert(next);
                    if k == next {
                        counts.push(0);
                    }
                    let rank = counts[k as usize];
                    counts[k as usize] += 1;
                    (k, rank)
                } else {
                    (NO_KEY, 0)
                };
                sends.push(WindowSend::of(u.proc, &r, key, rank));
            }
        }
        // 2. Each key's first rank: the first sender's sends before the
        // window.
        let first_rank = match units.get(range.start) {
            Some(u) => {
                let lo = units[..range.start].partition_point(|x| x.proc < u.proc);
                count_sends(
                    db,
                    sel,
                    &units[lo..range.start],
                    |k| keys.get(k).copied(),
                    counts.len(),
                )
            }
            None => vec![0; counts.len()],
        };
        // 3. The receivers' receives at those ranks. (The window's keys go
        // to their receivers in one sorted list: the map is dropped first.)
        let mut list: Vec<(Key, u32)> = Vec::with_capacity(keys.len());
        list.extend(keys);
        list.sort_unstable_by_key(|&((from, to, tag), _)| (to, from, tag));
        let mut key_slot = vec![(u32::MAX, 0); counts.len()];
        let mut receivers: Vec<Receiver> = Vec::new();
        for group in list.chunk_by(|a, b| a.0.1 == b.0.1) {
            let to = group[0].0.1;
            let Some(proc) = usize::try_from(to)
                .ok()
                .and_then(|to| position.get(&to))
                .map(|&i| &db.comm_index().procs[i])
            else {
                continue;
            };
            let n = group.len();
            let mut rv = Receiver {
                proc,
                filter: KeyFilter::new(n),
                want: FxHashMap::with_capacity_and_hasher(n, Default::default()),
                first: Vec::with_capacity(n),
                count: Vec::with_capacity(n),
                offset: Vec::with_capacity(n),
                slots: 0,
            };
            for &((from, _, tag), k) in group {
                let Ok(from) = i32::try_from(from) else {
                    continue;
                };
                rv.filter.insert((from, tag));
                rv.want.insert((from, tag), rv.first.len() as u32);
                rv.first.push(first_rank[k as usize]);
                rv.count.push(counts[k as usize]);
                rv.offset.push(rv.slots);
                key_slot[k as usize] = (receivers.len() as u32, rv.slots);
                rv.slots += counts[k as usize] as usize;
            }
            receivers.push(rv);
        }
        drop(list);
        let slots = receivers
            .par_iter()
            .map(|rv| receives(db, sel, rv))
            .collect();
        Window {
            sends,
            taken: Taken::ByKey { key_slot, slots },
        }
    }
}

/// Whom one process's sends go to, up to [`Peers::MAX`] processes (then:
/// maybe all).
#[derive(Debug, Default)]
pub(super) struct Peers {
    set: FxHashSet<i32>,
    all: bool,
}

impl Peers {
    const MAX: usize = 256;

    #[inline]
    pub(super) fn add(&mut self, peer: i32) {
        if !self.all && peer >= 0 && !self.set.contains(&peer) {
            if self.set.len() == Self::MAX {
                self.all = true;
                self.set = FxHashSet::default();
            } else {
                self.set.insert(peer);
            }
        }
    }
}

/// What pairing by windows would read, in records (sums saturate: the
/// record counts come from the headers).
pub(super) struct WindowCost<'a> {
    pub db: &'a Database,
    pub sel: &'a CommSelection<'a>,
    /// The units of the run, in sender order, and the windows' ranges of
    /// them.
    pub units: &'a [Unit<'a>],
    pub windows: &'a [std::ops::Range<usize>],
    /// Per process of the comm index: whom it sends to, and its receives
    /// from a process.
    pub senders: &'a [(Peers, u64)],
    /// A process's index in the comm index.
    pub position: &'a FxHashMap<usize, usize>,
}

impl WindowCost<'_> {
    /// The records the windows read (and, with `leftovers`, the search for
    /// the receives no send took, `window` receives at a time), and the
    /// records of the run.
    pub(super) fn records(&self, leftovers: bool, window: u64) -> (u64, u64) {
        let procs = &self.db.comm_index().procs;
        let per: Vec<u64> = procs
            .iter()
            .map(|p| {
                self.sel
                    .blocks(p)
                    .fold(0u64, |n, b| n.saturating_add(b.ncomm))
            })
            .collect();
        let sum = |it: &mut dyn Iterator<Item = u64>| it.fold(0u64, u64::saturating_add);
        let every = sum(&mut per.iter().copied());
        let mut total = 0u64;
        let mut receivers: FxHashSet<usize> = FxHashSet::default();
        for w in self.windows {
            receivers.clear();
            let mut all = false;
            let mut senders: Vec<usize> = self.units[w.clone()].iter().map(|u| u.proc).collect();
            senders.dedup();
            for p in senders {
                match self.position.get(&p).and_then(|&i| self.senders.get(i)) {
                    Some((x, _)) if !x.all => receivers.extend(
                        x.set
                            .iter()
                            .filter_map(|&q| self.position.get(&usize::try_from(q).ok()?).copied()),
                    ),
                    _ => all = true,
                }
            }
            let read = if all {
                every
            } else {
                sum(&mut receivers.iter().map(|&q| per[q]))
            };
            // Step 2 reads the first sender's earlier units again.
            let first = self.units.get(w.start).map_or(0, |u| u.proc);
            let lo = self.units[..w.start].partition_point(|u| u.proc < first);
            let again = sum(&mut self.units[lo..w.start].iter().map(|u| u.len));
            total = total.saturating_add(read).saturating_add(again);
        }
        if leftovers {
            // Each round of `window` receives reads the receiver twice.
            for (q, &r) in per.iter().enumerate() {
                let recvs = self.senders.get(q).map_or(0, |s| s.1);
                let rounds = recvs / window.max(1) + 1;
                total = total.saturating_add(r.saturating_mul(2).saturating_mul(rounds));
            }
        }
        (total, every)
    }
}

/// Per key of `key_of` (numbers below `n`): the sends of `units`.
fn count_sends(
    db: &Database,
    sel: &CommSelection<'_>,
    units: &[Unit<'_>],
    key_of: impl Fn(&Key) -> Option<u32> + Sync,
    n: usize,
) -> Vec<u64> {
    units
        .par_iter()
        .fold(
            || vec![0u64; n],
            |mut acc, u| {
                if let Ok(records) = db.comm_records(u.block) {
                    for r in records.part(u.first, u.len) {
                        if sel.contains(r.time)
                            && is_paired_send(&r)
                            && let Some(k) = key_of(&(u.proc, r.peer, r.tag))
                        {
                            acc[k as usize] += 1;
                        }
                    }
                }
                acc
            },
        )
        .reduce(
            || vec![0u64; n],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

/// The receives `rv` wants, with their completions, from all its records.
fn receives(db: &Database, sel: &CommSelection<'_>, rv: &Receiver<'_>) -> Vec<Waiting> {
    let n = rv.first.len();
    let mut slots = vec![Waiting::EMPTY; rv.slots];
    // Per key: receives seen, how many of them completed (or were blocking),
    // and the ranks of the blocking ones (rare: they complete themselves).
    let mut seen = vec![0u64; n];
    let mut completed = vec![0u64; n];
    let mut blocking: FxHashSet<(u32, u64)> = FxHashSet::default();
    let mut waits = WaitTracker::default();
    let mut recv_entry = f64::NAN;
    let slot = |k: usize, rank: u64| -> Option<usize> {
        let i = rank.checked_sub(rv.first[k])?;
        (i < u64::from(rv.count[k])).then(|| rv.offset[k] + i as usize)
    };
    for b in sel.blocks(rv.proc) {
        let Ok(mut records) = db.comm_records(b) else {
            continue;
        };
        // A batch at a time, and the records that are neither receives
        // nor waits (most of them) dropped at once by their type.
        while let Some(batch) = records.next_batch() {
            for r in batch.records() {
                if !is_recv(r.kind) && !is_wait(r.kind) {
                    continue;
                }
                if let Some((key, time)) = waits.push(&r) {
                    // The oldest receive of the key not complete yet.
                    if let Some(&k) = rv.filter.may_hold(key).then(|| rv.want.get(&key)).flatten() {
                        let k = k as usize;
                        let mut c = completed[k];
                        while c < seen[k] && blocking.contains(&(k as u32, c)) {
                            c += 1;
                        }
                        if c < seen[k] {
                            if let Some(i) = slot(k, c) {
                                slots[i].done = time;
                                (slots[i].entry, slots[i].wait_kind) = waits.last_wait();
                            }
                            c += 1;
                        }
                        completed[k] = c;
                    }
                    continue;
                }
                if is_recv(r.kind) && r.size == BEFORE_CALL {
                    // A blocking receive's entry; its data record follows.
                    recv_entry = r.time;
                }
                if !sel.contains(r.time) || !is_paired_recv(&r) || r.peer < 0 {
                    continue;
                }
                let key = (r.peer, r.tag);
                let Some(&k) = rv.filter.may_hold(key).then(|| rv.want.get(&key)).flatten() else {
                    continue;
                };
                let k = k as usize;
                let rank = seen[k];
                seen[k] += 1;
                let nonblocking = is_nonblocking_recv(r.kind);
                if !nonblocking {
                    blocking.insert((k as u32, rank));
                }
                if let Some(i) = slot(k, rank) {
                    slots[i] = Waiting::posted(&r, recv_entry);
                }
            }
        }
    }
    slots
}

/// The receives of `q` that no send takes, `window` receives at a time:
/// per (sender, tag), the receives ranked past the sender's sends to `q`
/// with that tag. In record order; `units` are the sends' units of the run
/// in sender order.
pub(super) fn unmatched_receives(
    db: &Database,
    sel: &CommSelection<'_>,
    units: &[Unit<'_>],
    q: &ProcComm,
    window: usize,
) -> Vec<MsgEnd> {
    let window = window.max(1) as u64;
    let blocks: Vec<&CommBlockRef> = sel.blocks(q).collect();
    // Calls `f` with the rank (among all) of each receive of `q` from a
    // process, and the record, up to receive `until`.
    let each =
        |until: u64, f: &mut dyn FnMut(u64, &crate::formats::blprof::commdata::CommRecord)| {
            let mut i = 0u64;
            for b in &blocks {
                let Ok(mut records) = db.comm_records(b) else {
                    continue;
                };
                for r in records.by_ref() {
                    if i >= until {
                        return;
                    }
                    if sel.contains(r.time) && is_paired_recv(&r) && r.peer >= 0 {
                        f(i, &r);
                        i += 1;
                    }
                }
            }
        };
    let Ok(to) = i32::try_from(q.proc) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut skip = 0u64;
    loop {
        // The window's receives, ranked per (sender, tag) in the window.
        let mut keys: FxHashMap<(i32, i32), u32> = FxHashMap::default();
        let mut counts: Vec<u64> = Vec::new();
        let mut recvs = Vec::new();
        each(skip + window, &mut |i, r| {
            if i < skip {
                return;
            }
            let next = keys.len() as u32;
            let k = *keys.entry((r.peer, r.tag)).or_insert(next);
            if k == next {
                counts.push(0);
            }
            recvs.push((*r, k, counts[k as usize]));
            counts[k as usize] += 1;
        });
        if recvs.is_empty() {
            break;
        }
        // Each key's first rank, and the sends of its sender to `q`.
        let mut first = vec![0u64; counts.len()];
        each(skip, &mut |_, r| {
            if let Some(&k) = keys.get(&(r.peer, r.tag)) {
                first[k as usize] += 1;
            }
        });
        let mut senders: Vec<usize> = keys
            .keys()
            .filter_map(|(p, _)| usize::try_from(*p).ok())
            .collect();
        senders.sort_unstable();
        senders.dedup();
        let mut sent = vec![0u64; counts.len()];
        for p in senders {
            let lo = units.partition_point(|u| u.proc < p);
            let hi = units.partition_point(|u| u.proc <= p);
            let n = count_sends(
                db,
                sel,
                &units[lo..hi],
                |&(from, peer, tag)| {
                    let from = i32::try_from(from).ok()?;
                    (peer == to)
                        .then(|| keys.get(&(from, tag)).copied())
                        .flatten()
                },
                counts.len(),
            );
            for (s, n) in sent.iter_mut().zip(n) {
                *s += n;
            }
        }
        for (r, k, rank) in &recvs {
            if first[*k as usize] + rank >= sent[*k as usize] {
                out.push(MsgEnd {
                    proc: q.proc,
                    peer: r.peer,
                    tag: r.tag,
                    size: r.size,
                    time: r.time,
                    kind: func_name(r.kind).unwrap_or("?"),
                });
            }
        }
        skip += window;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past its bound, a process's peers are all processes.
    #[test]
    fn peers_past_the_bound_are_everyone() {
        let mut p = Peers::default();
        for q in [3, 3, -1, 4] {
            p.add(q);
        }
        assert_eq!((p.set.len(), p.all), (2, false));
        for q in 0..Peers::MAX as i32 {
            p.add(q);
        }
        assert_eq!((p.set.len(), p.all), (Peers::MAX, false));
        p.add(-5);
        p.add(Peers::MAX as i32);
        assert!(p.all && p.set.is_empty());
    }

    /// The sends of a window fill each unit's slice in parallel; a unit
    /// whose records hold other than the counted sends (its file changed
    /// since they were counted) has the window read one unit after the
    /// other: the same sends either way, in order.
    #[test]
    fn window_sends_as_read_whatever_the_counts() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof/small4/bl_prof");
        let db = Database::open(dir).unwrap();
        let sel = CommSelection::all();
        let index = db.comm_index();
        let read = |u: &Unit<'_>| {
            let mut v = Vec::new();
            unit_sends(&db, &sel, u, 0, &mut |s| v.push(s));
            v
        };
        let units: Vec<Unit> = index
            .procs
            .iter()
            .flat_map(|p| {
                p.blocks.iter().map(|b| Unit {
                    proc: p.proc,
                    block: b,
                    first: 0,
                    len: b.ncomm,
                    sends: 0,
                })
            })
            .map(|u| Unit {
                sends: read(&u).len() as u64,
                ..u
            })
            .collect();
        let seq: Vec<u64> = std::iter::once(0)
            .chain(units.iter().scan(0, |n, u| {
                *n += u.sends;
                Some(*n)
            }))
            .collect();
        let sends = |units: &[Unit]| {
            let w =
                Window::with_receives(&db, &sel, units, 0..units.len(), &seq, Vec::new(), || {
                    Ok(Vec::new())
                })
                .unwrap();
            w.sends
                .iter()
                .map(|s| (s.from, s.to, s.tag, s.time.to_bits(), s.rank))
                .collect::<Vec<_>>()
        };
        let want = sends(&units);
        assert!(want.len() > 100, "{} sends", want.len());
        assert!(want.iter().enumerate().all(|(i, s)| s.4 as usize == i));
        for wrong in [1u64, u64::MAX] {
            let mut off = units.iter().map(|u| Unit { ..*u }).collect::<Vec<_>>();
            let u = off.iter_mut().find(|u| u.sends > 0).unwrap();
            u.sends = u.sends.wrapping_add(wrong);
            assert_eq!(sends(&off), want);
        }
    }

    /// The filter never turns a key away that it holds, and turns most
    /// others away (else it saves no lookups).
    #[test]
    fn the_key_filter_holds_its_keys() {
        let keys: Vec<(i32, i32)> = (0..1000).map(|i| (i % 7, 1000 + i * 3)).collect();
        let mut f = KeyFilter::new(keys.len());
        for &k in &keys {
            f.insert(k);
        }
        assert!(keys.iter().all(|&k| f.may_hold(k)));
        let others = (0..10_000).filter(|i| f.may_hold((8 + i % 5, -i))).count();
        assert!(others < 2_000, "{others} of 10000 pass");
        // Negative and extreme values hash like any other.
        let mut g = KeyFilter::new(0);
        g.insert((i32::MIN, i32::MAX));
        assert!(g.may_hold((i32::MIN, i32::MAX)));
    }
}
