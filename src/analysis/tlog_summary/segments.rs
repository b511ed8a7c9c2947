//! `tlog summary` in the opening scan's single pass.
//!
//! Each chunk of the file summarizes the events of every process it holds
//! without knowing what came before: a *segment*. An OUT whose IN is not in
//! the segment is kept, in event order, with the number of the segment's
//! INs open at that moment; the segments are then merged in file order and
//! those OUTs matched against the INs left open by the earlier chunks. The
//! result is what [`super::summarize`] finds reading process by process —
//! the same counts, extremes, unmatched events and warnings, in the same
//! order — except that interval totals are summed per segment, so they may
//! differ in their last bits.
//!
//! Each block goes through a loop that matches by nesting depth, without
//! searching the open INs, and makes the scan's clean-block checks on the
//! way; it stops at the first record that needs more (padding, another
//! process, a thread id other than 0, START, END, an unknown type, an OUT
//! that does not close the innermost IN), and the rest of the block goes
//! record by record. A chunk
//! holding more processes than [`MAX_SEGMENTS`] (only blocks that mix
//! processes do) gives up, and the summary is made process by process.

use rustc_hash::FxHashMap;

use super::{
    EventNames, Intervals, KINDS, ProcSummary, ProcWarnings, Summary, Unmatched, across_procs,
    crossed_message, innermost_open, kind_stats, unmatched_out_message,
};
use crate::formats::tlog::{
    BLOCK, BlockVisitor, CleanBlock, EventKind, RECORD, RECORDS_PER_BLOCK, Record, TlogFile,
    clean_block,
};

/// What the fast loop does with an event type: every field is read for
/// every event, so the loop has no branch on the type.
#[derive(Clone, Copy)]
struct Step {
    /// Pair or single-event number.
    kind: u8,
    /// Change of the nesting depth: +1 for an IN, -1 for an OUT.
    delta: i8,
    /// 1 for an OUT (closes an interval).
    out: u8,
    /// 1 for a single event.
    single: u8,
    /// The loop goes on when `innermost kind & mask == want`: an OUT must
    /// close the innermost IN, INs and single events always go on, and
    /// START, END and unknown types never do (`0 != 1`).
    mask: u8,
    want: u8,
}

/// Per event type (the byte as stored).
const STEPS: [Step; 256] = {
    let stop = Step {
        kind: 0,
        delta: 0,
        out: 0,
        single: 0,
        mask: 0,
        want: 1,
    };
    let mut table = [stop; 256];
    let mut t = 0;
    while t < 256 {
        let go = Step {
            mask: 0,
            want: 0,
            ..stop
        };
        table[t] = match EventKind::of(t as u8 as i8) {
            EventKind::In(kind) => Step {
                kind,
                delta: 1,
                ..go
            },
            EventKind::Out(kind) => Step {
                kind,
                delta: -1,
                out: 1,
                mask: u8::MAX,
                want: kind,
                ..go
            },
            EventKind::Single(kind) => Step {
                kind,
                single: 1,
                ..go
            },
            _ => stop,
        };
        t += 1;
    }
    table
};

/// Slots of the open-IN stack one block can reach: `RECORDS_PER_BLOCK`
/// below the depth it starts at and `RECORDS_PER_BLOCK + 1` above, rounded
/// up to a power of two.
const WINDOW: usize = 4 * RECORDS_PER_BLOCK;

/// No pair has this number, so an OUT never matches the bottom slot.
const SENTINEL: u8 = u8::MAX;

/// What a segment leaves to the merge, in event order.
#[derive(Debug, Clone, Copy)]
enum Pending {
    /// An OUT whose IN is not in the segment; `open_inside` of the
    /// segment's INs were open at that moment (it crosses them if it
    /// closes an earlier IN).
    Out {
        kind: u8,
        time: f64,
        offset: u64,
        open_inside: usize,
    },
    /// An OUT that closed an IN of the segment while `crossing` later INs
    /// were open (listed up to the warning limit).
    Crossed {
        kind: u8,
        offset: u64,
        crossing: usize,
    },
}

/// One process's events within one chunk.
struct Segment {
    proc: u16,
    start: Option<f64>,
    end: Option<f64>,
    singles: [u64; KINDS],
    unknown: u64,
    intervals: Intervals,
    crossed: u64,
    /// Crossings in `pending`, and those past the warning limit (counted).
    listed: usize,
    unlisted: usize,
    pending: Vec<Pending>,
    /// The open INs at `1..=depth` (slot 0 is [`SENTINEL`]): pair numbers,
    /// and times with offsets, written by the fast loop for every event
    /// without a branch (the pair numbers apart, for the OUT test).
    kinds: Vec<u8>,
    opened: Vec<Opened>,
    depth: usize,
    closed: Closed,
}

/// An open IN's time and offset.
#[derive(Debug, Clone, Copy, Default)]
struct Opened {
    time: f64,
    offset: u64,
}

/// The intervals one block closed (see [`Segment::block_events`]).
struct Closed {
    kinds: [u8; RECORDS_PER_BLOCK],
    times: [f64; RECORDS_PER_BLOCK],
}

impl Segment {
    fn new(proc: u16) -> Segment {
        Segment {
            proc,
            start: None,
            end: None,
            singles: [0; KINDS],
            unknown: 0,
            intervals: Intervals::default(),
            crossed: 0,
            listed: 0,
            unlisted: 0,
            pending: Vec::new(),
            kinds: vec![SENTINEL],
            opened: vec![Opened::default()],
            depth: 0,
            closed: Closed {
                kinds: [0; RECORDS_PER_BLOCK],
                times: [0.0; RECORDS_PER_BLOCK],
            },
        }
    }

    /// The fast loop over a block whose first record is an event of this
    /// segment's process: an IN is written above the innermost open IN, an
    /// OUT that closes the innermost one pops it, a single event is counted.
    /// It stops at the first record that needs more (padding, another
    /// process, a thread id other than 0, START, END, an unknown type, an
    /// OUT that does not close the innermost IN) and returns how many
    /// records it took, and the block's
    /// [`CleanBlock`] when it took every event and the block is clean (the
    /// scan's checks, made in the same loop).
    fn block_events(&mut self, first_offset: usize, block: &[u8]) -> (usize, Option<CleanBlock>) {
        let records = block.as_chunks::<RECORD>().0;
        let records = &records[..records.len().min(RECORDS_PER_BLOCK)];
        let Some(first) = records.first() else {
            return (0, None);
        };
        // A block moves the depth by at most `RECORDS_PER_BLOCK`, so every
        // slot it reads or writes lies in a window of `WINDOW` slots from
        // `base`: indexed through fixed-size arrays with `& (WINDOW - 1)`,
        // the loop has no bounds checks.
        let base = self.depth.saturating_sub(RECORDS_PER_BLOCK);
        if self.kinds.len() < base + WINDOW {
            self.kinds.resize(base + WINDOW, SENTINEL);
            self.opened.resize(base + WINDOW, Opened::default());
        }
        let window = base..base + WINDOW;
        let (Ok(kinds), Ok(opened)) = (
            <&mut [u8; WINDOW]>::try_from(&mut self.kinds[window.clone()]),
            <&mut [Opened; WINDOW]>::try_from(&mut self.opened[window]),
        ) else {
            unreachable!("the window is WINDOW slots long");
        };
        // Closed intervals, added after the loop so that the loop carries no
        // dependency through the statistics. Kept in the segment: zeroing
        // fresh arrays for each block cost as much as a fifth of the loop.
        let Closed {
            kinds: closed_kind,
            times: closed_time,
        } = &mut self.closed;
        let mut closed = 0;
        // The innermost open IN's slot in the window.
        let mut top = self.depth - base;
        let mut done = 0;
        // Indexed by `k & 15`: no check, and no division.
        let mut singles = [0u64; 16];
        let proc = |r: &[u8; RECORD]| Record::proc_of(r);
        let time = |r: &[u8; RECORD]| Record::time_of(r);
        // The scan's checks (see `clean_block`), without an early exit:
        // the thread id is 0 (else the loop stops); times never go back, so
        // they are all finite if the first and the last are.
        let same = proc(first);
        let first_time = time(first);
        let (mut prev, mut ordered) = (first_time, true);
        for raw in records {
            let step = STEPS[raw[2] as usize];
            // `|`, not `||`: the kind of event is random, so a branch on
            // it would be mispredicted half the time.
            if (proc(raw) != same)
                | (raw[3] != 0)
                | ((kinds[top & (WINDOW - 1)] & step.mask) != step.want)
            {
                break;
            }
            let time = time(raw);
            ordered &= time >= prev;
            prev = time;
            // Written for every event: above the innermost open IN the slot
            // is free, and an IN makes it the innermost.
            let above = (top + 1) & (WINDOW - 1);
            kinds[above] = step.kind;
            let innermost = opened[top & (WINDOW - 1)].time;
            opened[above] = Opened {
                time,
                offset: (first_offset + done * RECORD) as u64,
            };
            closed_kind[closed & (RECORDS_PER_BLOCK - 1)] = step.kind;
            closed_time[closed & (RECORDS_PER_BLOCK - 1)] = time - innermost;
            closed += usize::from(step.out);
            singles[step.kind as usize & 15] += u64::from(step.single);
            top = top.wrapping_add_signed(isize::from(step.delta));
            done += 1;
        }
        for (total, n) in self.singles.iter_mut().zip(singles) {
            *total += n;
        }
        self.depth = base + top;
        for (&k, &d) in closed_kind[..closed].iter().zip(&closed_time[..closed]) {
            self.intervals.add(k, d);
        }
        // Clean: every record taken up to all-zero padding (a record the loop
        // stopped at for another reason is not all zeros).
        let checked = ordered & first_time.is_finite() & prev.is_finite();
        let clean = (checked && done > 0 && block[done * RECORD..].iter().all(|&b| b == 0))
            .then_some(CleanBlock {
                proc: Record::proc_of(first),
                events: done as u64,
                first_time,
                last_time: prev,
            });
        (done, clean)
    }

    /// One event, with every rule of [`super::summarize`].
    fn event(&mut self, offset: usize, r: &Record) {
        match EventKind::of(r.kind) {
            EventKind::Start => {
                self.start.get_or_insert(r.time);
            }
            EventKind::End => self.end = Some(r.time),
            EventKind::In(k) => {
                let slot = self.depth + 1;
                let opened = Opened {
                    time: r.time,
                    offset: offset as u64,
                };
                if self.kinds.len() <= slot {
                    self.kinds.push(k);
                    self.opened.push(opened);
                } else {
                    self.kinds[slot] = k;
                    self.opened[slot] = opened;
                }
                self.depth = slot;
            }
            EventKind::Out(k) => {
                match innermost_open(self.kinds[1..=self.depth].iter().copied(), k) {
                    Some((j, crossing)) => {
                        let slot = j + 1;
                        if crossing > 0 {
                            self.crossed += 1;
                            if self.listed < super::MAX_WARNINGS_PER_PROC {
                                self.listed += 1;
                                self.pending.push(Pending::Crossed {
                                    kind: k,
                                    offset: offset as u64,
                                    crossing,
                                });
                            } else {
                                self.unlisted += 1;
                            }
                        }
                        let t0 = self.opened[slot].time;
                        let top = self.depth + 1;
                        self.kinds.copy_within(slot + 1..top, slot);
                        self.opened.copy_within(slot + 1..top, slot);
                        self.depth -= 1;
                        self.intervals.add(k, r.time - t0);
                    }
                    None => self.pending.push(Pending::Out {
                        kind: k,
                        time: r.time,
                        offset: offset as u64,
                        open_inside: self.depth,
                    }),
                }
            }
            EventKind::Single(k) => self.singles[k as usize % KINDS] += 1,
            EventKind::Unknown(_) => self.unknown += 1,
        }
    }

    /// The INs still open at the end of the segment, innermost last.
    fn open(&self) -> impl Iterator<Item = Open> + '_ {
        (1..=self.depth).map(|i| Open {
            kind: self.kinds[i],
            time: self.opened[i].time,
            offset: self.opened[i].offset,
        })
    }
}

/// Processes per chunk beyond which a chunk gives up (the summary is then
/// made process by process, in a second pass). A chunk holds 1024 blocks of
/// one process each in any file the writer wrote; only blocks that mix
/// processes (damage, garbage) bring more, and with them a segment each.
const MAX_SEGMENTS: usize = if cfg!(test) { 8 } else { 1024 };

/// The segments of one chunk: a [`BlockVisitor`] for the opening scan.
#[derive(Default)]
pub struct ChunkSummary {
    segments: Vec<Segment>,
    slots: FxHashMap<u16, usize>,
    /// Blocks hold one process each, so the lookup is nearly always this.
    current: Option<(u16, usize)>,
    /// More than [`MAX_SEGMENTS`] processes: nothing kept.
    gave_up: bool,
}

impl ChunkSummary {
    fn segment(&mut self, proc: u16) -> Option<&mut Segment> {
        if self.gave_up {
            return None;
        }
        let slot = match self.current {
            Some((p, s)) if p == proc => s,
            _ => {
                let n = self.segments.len();
                let s = *self.slots.entry(proc).or_insert(n);
                if s == n {
                    if n == MAX_SEGMENTS {
                        self.give_up();
                        return None;
                    }
                    self.segments.push(Segment::new(proc));
                }
                self.current = Some((proc, s));
                s
            }
        };
        self.segments.get_mut(slot)
    }

    /// The events of a block from record `from` on, each to its process.
    fn records(&mut self, block: usize, bytes: &[u8], from: usize) {
        for (i, raw) in bytes.chunks_exact(RECORD).enumerate().skip(from) {
            let r = Record::decode(raw);
            if r.is_padding() {
                continue;
            }
            let Some(segment) = self.segment(r.proc) else {
                return;
            };
            segment.event(block * BLOCK + i * RECORD, &r);
        }
    }

    fn give_up(&mut self) {
        self.gave_up = true;
        self.segments = Vec::new();
        self.slots = FxHashMap::default();
        self.current = None;
    }
}

impl BlockVisitor for ChunkSummary {
    fn block(&mut self, block: usize, bytes: &[u8]) -> Option<CleanBlock> {
        // Blocks of one process, one after another: nearly all take the
        // fast loop whole.
        if bytes.len() >= RECORD && bytes[2] != 0 {
            let proc = Record::proc_of(bytes);
            if let Some(segment) = self.segment(proc) {
                let (done, clean) = segment.block_events(block * BLOCK, bytes);
                if clean.is_some() {
                    return clean;
                }
                self.records(block, bytes, done);
                return clean_block(bytes);
            }
        }
        self.records(block, bytes, 0);
        clean_block(bytes)
    }

    fn damaged(&mut self, block: usize, bytes: &[u8]) {
        self.records(block, bytes, 0);
    }

    fn finish(&mut self) {
        // Only the open INs travel on to the merge.
        for s in &mut self.segments {
            let keep = s.depth + 1;
            s.kinds.truncate(keep);
            s.kinds.shrink_to_fit();
            s.opened.truncate(keep);
            s.opened.shrink_to_fit();
        }
        self.slots = FxHashMap::default();
    }
}

/// An IN left open by earlier chunks.
#[derive(Debug, Clone, Copy)]
struct Open {
    kind: u8,
    time: f64,
    offset: u64,
}

/// One process so far.
struct ProcState<'a> {
    start: Option<f64>,
    end: Option<f64>,
    singles: [u64; KINDS],
    unknown: u64,
    intervals: Intervals,
    unmatched: Unmatched,
    open: Vec<Open>,
    warnings: ProcWarnings<'a>,
}

impl<'a> ProcState<'a> {
    fn new(path: &'a std::path::Path, proc: u16) -> Self {
        ProcState {
            start: None,
            end: None,
            singles: [0; KINDS],
            unknown: 0,
            intervals: Intervals::default(),
            unmatched: Unmatched::default(),
            open: Vec::new(),
            warnings: ProcWarnings::new(path, proc),
        }
    }
}

/// Merges the chunks' segments in file order into the summary.
pub struct SummaryMerge<'a> {
    names: &'a EventNames,
    path: &'a std::path::Path,
    procs: FxHashMap<u16, ProcState<'a>>,
    /// A chunk gave up: the caller summarizes process by process instead.
    gave_up: bool,
    /// OUTs matched with an IN of an earlier chunk, and how many of those
    /// crossed (what the tests check was exercised).
    #[cfg(test)]
    across: (usize, usize),
}

impl<'a> SummaryMerge<'a> {
    pub fn new(names: &'a EventNames, path: &'a std::path::Path) -> Self {
        SummaryMerge {
            names,
            path,
            procs: FxHashMap::default(),
            gave_up: false,
            #[cfg(test)]
            across: (0, 0),
        }
    }

    /// The next chunk in file order.
    pub fn push(&mut self, chunk: ChunkSummary) {
        if self.gave_up || chunk.gave_up {
            self.gave_up = true;
            self.procs = FxHashMap::default();
            return;
        }
        for seg in chunk.segments {
            self.push_segment(seg);
        }
    }

    /// True when a chunk held too many processes to summarize in one pass.
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }

    fn push_segment(&mut self, seg: Segment) {
        let names = self.names;
        let path = self.path;
        let st = self
            .procs
            .entry(seg.proc)
            .or_insert_with(|| ProcState::new(path, seg.proc));
        if st.start.is_none() {
            st.start = seg.start;
        }
        if seg.end.is_some() {
            st.end = seg.end;
        }
        for p in &seg.pending {
            match *p {
                Pending::Crossed {
                    kind,
                    offset,
                    crossing,
                } => st
                    .warnings
                    .warn(offset, || crossed_message(names, kind, crossing)),
                Pending::Out {
                    kind,
                    time,
                    offset,
                    open_inside,
                } => match innermost_open(st.open.iter().map(|o| o.kind), kind) {
                    Some((j, crossing_earlier)) => {
                        let crossing = crossing_earlier + open_inside;
                        #[cfg(test)]
                        {
                            self.across.0 += 1;
                            self.across.1 += usize::from(crossing > 0);
                        }
                        if crossing > 0 {
                            st.unmatched.crossed += 1;
                            st.warnings
                                .warn(offset, || crossed_message(names, kind, crossing));
                        }
                        let o = st.open.remove(j);
                        st.intervals.add(kind, time - o.time);
                    }
                    None => {
                        st.unmatched.out += 1;
                        st.warnings
                            .warn(offset, || unmatched_out_message(names, kind));
                    }
                },
            }
        }
        st.warnings.warned += seg.unlisted;
        st.unmatched.crossed += seg.crossed;
        st.intervals.merge(&seg.intervals);
        for k in 0..KINDS {
            st.singles[k] += seg.singles[k];
        }
        st.unknown += seg.unknown;
        st.open.extend(seg.open());
    }

    /// The summary of every process of `t` (the file the chunks came from).
    pub fn finish(mut self, t: &TlogFile) -> Summary {
        let mut summary = Summary {
            procs: Vec::new(),
            across: Vec::new(),
            trees: Vec::new(),
            warnings: Vec::new(),
        };
        for p in t.procs() {
            let st = self
                .procs
                .remove(&p)
                .unwrap_or_else(|| ProcState::new(self.path, p));
            summary.procs.push(ProcSummary {
                proc: p,
                events: t.events_of(p),
                start: st.start,
                end: st.end,
                kinds: kind_stats(self.names, &st.intervals, &st.singles),
                unmatched: Unmatched {
                    ins: st.open.len() as u64,
                    ..st.unmatched
                },
                unknown_types: st.unknown,
            });
            let never_closed = st.open.iter().map(|o| (o.kind, o.offset));
            summary
                .warnings
                .extend(st.warnings.finish(self.names, never_closed));
        }
        summary.across = across_procs(&summary.procs);
        summary
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{EventNames, Summary, Trees, summarize, summarize_input};
    use super::{ChunkSummary, SummaryMerge, WINDOW};
    use crate::formats::tlog::tests::record;
    use crate::formats::tlog::{BLOCK, TlogFile};
    use crate::formats::tlog::{BlockVisitor, clean_block};
    use crate::source::InputFile;
    use crate::synth::SplitMix64;

    /// A file with nesting, crossings, unmatched INs and OUTs, START/END,
    /// unknown types, processes interleaved and damage here and there.
    /// Also returns the deepest nesting written. One file in four nests
    /// deep in its first half and unwinds in its second, so the fast loop's
    /// window moves and grows.
    fn damaged_file(rng: &mut SplitMix64) -> (Vec<u8>, usize) {
        let mut next = |n: u64| rng.next_u64() % n;
        let deep = next(4) == 0;
        let mut deepest = 0;
        let nprocs = 1 + next(3) as u16;
        let mut open: Vec<Vec<i8>> = vec![Vec::new(); nprocs as usize];
        let mut time = vec![0.0f64; nprocs as usize];
        let mut bytes = Vec::new();
        let mut proc = 0u16;
        let nblocks = 1 + next(60);
        for b in 0..nblocks {
            // Deep: more INs, then more OUTs.
            let first_half = b < nblocks / 2;
            let phase = if deep && first_half { 30 } else { 0 };
            let pops = if deep && !first_half { 70 } else { 45 };
            if next(4) == 0 {
                proc = next(nprocs as u64) as u16;
            }
            let p = proc as usize;
            let events = if next(8) == 0 { next(64) } else { 64 } as usize;
            for i in 0..64 {
                if i >= events {
                    bytes.extend_from_slice(&[0; 16]);
                    continue;
                }
                time[p] += next(5) as f64 * 0.25;
                let kind: i8 = match next(100) + phase {
                    0 => 1,
                    1 => 2,
                    2 => 5,                          // unknown
                    3..=5 => 11 + 2 * next(9) as i8, // any OUT
                    x if x <= pops && !open[p].is_empty() => open[p].pop().unwrap() + 1,
                    x if x <= 75 + phase => {
                        // Mostly two pairs, so that an OUT often crosses.
                        let pairs = if next(2) == 0 { 2 } else { 9 };
                        let k = 10 + 2 * next(pairs) as i8;
                        open[p].push(k);
                        deepest = deepest.max(open[p].len());
                        k
                    }
                    _ => 31 + next(9) as i8,
                };
                let mut r = record(proc, kind, 0, time[p]);
                if next(400) == 0 {
                    r[next(16) as usize] = next(256) as u8;
                }
                bytes.extend_from_slice(&r);
            }
        }
        if next(5) == 0 {
            bytes.truncate(bytes.len() - next(BLOCK as u64) as usize);
        }
        (bytes, deepest)
    }

    fn close(a: f64, b: f64) -> bool {
        a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    fn assert_same(single_pass: &Summary, reference: &Summary, case: usize) {
        let w = |s: &Summary| s.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(w(single_pass), w(reference), "case {case}");
        assert_eq!(
            single_pass.procs.len(),
            reference.procs.len(),
            "case {case}"
        );
        for (f, r) in single_pass.procs.iter().zip(&reference.procs) {
            let what = format!("case {case}, process {}", r.proc);
            assert_eq!(
                (f.proc, f.events, f.unknown_types),
                (r.proc, r.events, r.unknown_types),
                "{what}"
            );
            assert_eq!(
                (f.start.map(f64::to_bits), f.end.map(f64::to_bits)),
                (r.start.map(f64::to_bits), r.end.map(f64::to_bits)),
                "{what}"
            );
            let u = |p: &super::super::ProcSummary| {
                (p.unmatched.ins, p.unmatched.out, p.unmatched.crossed)
            };
            assert_eq!(u(f), u(r), "{what}");
            assert_eq!(f.kinds.len(), r.kinds.len(), "{what}");
            for (a, b) in f.kinds.iter().zip(&r.kinds) {
                assert_eq!(
                    (
                        a.kind,
                        &a.name,
                        a.role,
                        a.count,
                        a.min.to_bits(),
                        a.max.to_bits()
                    ),
                    (
                        b.kind,
                        &b.name,
                        b.role,
                        b.count,
                        b.min.to_bits(),
                        b.max.to_bits()
                    ),
                    "{what}"
                );
                assert!(close(a.total, b.total) && close(a.avg, b.avg), "{what}");
            }
        }
        assert_eq!(
            single_pass.across.len(),
            reference.across.len(),
            "case {case}"
        );
        for (a, b) in single_pass.across.iter().zip(&reference.across) {
            assert_eq!(
                (a.kind, a.role, a.procs, a.count, a.max_proc),
                (b.kind, b.role, b.procs, b.count, b.max_proc),
                "case {case}"
            );
            assert!(close(a.min, b.min) && close(a.avg, b.avg) && close(a.max, b.max));
        }
    }

    /// The one-pass summary finds what the process-by-process one finds,
    /// on damaged files cut into many chunks (4 blocks each in tests).
    #[test]
    fn one_pass_equals_process_by_process() {
        let mut rng = SplitMix64::new(7);
        let (mut across, mut crossed_across, mut deepest) = (0, 0, 0);
        let names = EventNames::default();
        for case in 0..400 {
            let (bytes, depth) = damaged_file(&mut rng);
            deepest = deepest.max(depth);
            let mut merge = SummaryMerge::new(&names, Path::new("f"));
            let input = InputFile::from_bytes("f", bytes.clone());
            let Ok(t) = TlogFile::from_input_visiting(input, |c| merge.push(c)) else {
                continue;
            };
            assert!(!merge.gave_up());
            across += merge.across.0;
            crossed_across += merge.across.1;
            let single_pass = merge.finish(&t);
            let reference = summarize(&t, &names, Trees::Skip);
            assert_same(&single_pass, &reference, case);
            // The plain scan is unchanged by the visitor.
            let plain = TlogFile::from_input(InputFile::from_bytes("f", bytes)).unwrap();
            let w = |t: &TlogFile| {
                t.warnings()
                    .iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
            };
            assert_eq!(w(&plain), w(&t), "case {case}");
        }
        // OUTs closed INs of earlier chunks, some of them crossing.
        assert!(
            across > 100 && crossed_across > 0,
            "{across} {crossed_across}"
        );
        // Deeper than the fast loop's window.
        assert!(deepest > 2 * WINDOW, "{deepest}");
    }

    /// The fast loop's checks say of every block what `clean_block` says,
    /// on blocks with damage of every kind here and there.
    #[test]
    fn block_checks_equal_clean_block() {
        let mut rng = SplitMix64::new(11);
        let mut clean = 0;
        for _ in 0..3000 {
            let mut next = |n: u64| rng.next_u64() % n;
            let events = next(66) as usize;
            let mut block = Vec::new();
            let mut time = 1.0;
            for i in 0..64 {
                if i >= events {
                    block.extend_from_slice(&[0; 16]);
                    continue;
                }
                time += next(3) as f64;
                let kind = [1i8, 2, 10, 11, 12, 13, 31, 39][next(8) as usize];
                let mut r = record(3, kind, 0, time);
                if next(200) == 0 {
                    r[next(16) as usize] = next(256) as u8;
                }
                block.extend_from_slice(&r);
            }
            if next(10) == 0 {
                block.truncate(next(BLOCK as u64) as usize);
            }
            let expected = clean_block(&block);
            clean += usize::from(expected.is_some());
            let mut chunk = ChunkSummary::default();
            let found = chunk.block(5, &block);
            assert_eq!(
                found.map(|c| (
                    c.proc,
                    c.events,
                    c.first_time.to_bits(),
                    c.last_time.to_bits()
                )),
                expected.map(|c| (
                    c.proc,
                    c.events,
                    c.first_time.to_bits(),
                    c.last_time.to_bits()
                )),
                "{block:?}"
            );
        }
        assert!(clean > 300, "{clean}");
    }

    /// Blocks that mix more processes than a chunk keeps: the summary is
    /// made process by process, with the same result.
    #[test]
    fn too_many_processes_in_a_chunk_fall_back() {
        let mut bytes = Vec::new();
        for p in 0..40u16 {
            for k in [1i8, 10, 31, 11, 2] {
                bytes.extend_from_slice(&record(p, k, 0, f64::from(p) + 0.5));
            }
        }
        bytes.resize(bytes.len().next_multiple_of(BLOCK), 0);
        let names = EventNames::default();
        let mut merge = SummaryMerge::new(&names, Path::new("f"));
        let input = InputFile::from_bytes("f", bytes.clone());
        let t = TlogFile::from_input_visiting(input, |c| merge.push(c)).unwrap();
        assert!(merge.gave_up());
        let (_, single_pass) = summarize_input(InputFile::from_bytes("f", bytes), &names).unwrap();
        assert_eq!(single_pass.procs.len(), 40);
        assert_same(&single_pass, &summarize(&t, &names, Trees::Skip), 0);
    }
}
