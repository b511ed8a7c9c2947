//! Communication statistics (amrprofparser `-stats` intent, BLPROF_FORMAT.md
//! §8.6): calls, records and bytes per CommFuncType, per process and in
//! total, without the reference's bugs (TimerTime always 0, empty-block
//! placeholders in the time span, locale-dependent numbers).
//!
//! Only blocks of the selected processes whose `timeMinMax` overlaps the
//! time window are read; the bytes read are counted. With a region filter
//! ([`ProcRanges`](super::select::ProcRanges)) only the records inside their process's selected
//! ranges count (calls by the record that opens them); the header lists
//! (barriers, name tags by name, `red` lines) are the blocks' read.

use std::borrow::Cow;
use std::collections::BTreeMap;

use smallvec::SmallVec;

use crate::error::Warning;
use crate::formats::blprof::commdata::{
    AFTER_CALL, BEFORE_CALL, CommRecord, CommRecords, WAITSOME, func_name, is_send,
};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommProcWalk, Skipped};

use super::scope::CommScope;
use super::timeline::{CallCounter, CallState};
use crate::analysis::filter::FilterNames;
use crate::analysis::ranges::{RangeCursor, RangeList};

/// One CommFuncType.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct TypeStats {
    #[serde(rename = "type")]
    pub name: String,
    pub number: i32,
    /// Calls: one per wrapper invocation, however many records it wrote
    /// (the rule of [`CallCounter`]).
    pub calls: u64,
    /// Records of this type.
    pub records: u64,
    /// amrprofparser `-stats`'s "Total Function Calls": records whose size
    /// is not a before/after marker, so that a call counts twice when its
    /// marker sits in the peer or tag (Allgather, Alltoall, VisMF Gatherv)
    /// and once per status record (Waitall, Waitsome).
    pub reference_calls: u64,
    /// Bytes sent (send types only).
    pub bytes: u64,
}

/// A name and how often it occurs.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct NameCount {
    pub name: String,
    pub count: u64,
}

/// One process.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ProcCommStats {
    pub proc: usize,
    pub host: Option<String>,
    pub blocks: usize,
    pub records: u64,
    /// Calls, one per wrapper invocation.
    pub calls: u64,
    pub sends: u64,
    pub bytes_sent: u64,
    pub barriers: u64,
    pub name_tags: u64,
}

/// The whole report.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CommStats {
    /// Processes of the database.
    pub nprocs: usize,
    /// Every record of the blocks read.
    pub nrecords: u64,
    /// Calls and seconds per MPI call type.
    pub by_type: Vec<TypeStats>,
    /// Per selected process, in process order.
    pub procs: Vec<ProcCommStats>,
    /// Bytes of all sends.
    pub bytes_sent: u64,
    /// The smallest message size seen, bytes.
    pub msg_size_min: Option<i32>,
    /// The largest message size seen, bytes.
    pub msg_size_max: Option<i32>,
    /// The earliest record time, seconds.
    pub time_min: Option<f64>,
    /// The latest record time, seconds.
    pub time_max: Option<f64>,
    /// Mean of the `timerTime` lines (the cost of one timer read).
    pub timer_time: Option<f64>,
    /// Blocks read.
    pub blocks_read: usize,
    /// Blocks left out by the selection (their `timeMinMax` outside the window).
    pub blocks_skipped: usize,
    /// Bytes of records read.
    pub bytes_read: u64,
    /// Barriers (`bNum` lines) by name.
    pub barrier_names: Vec<NameCount>,
    /// Name tags (`nTag` lines) by name.
    pub name_tags: Vec<NameCount>,
    /// `red` lines (AMReX writes none).
    pub reductions: u64,
    /// The region filter the counts were cut to (set by the caller;
    /// absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_filter: Option<FilterNames>,
}

/// One type's counts.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    calls: u64,
    records: u64,
    bytes: u64,
    sends: u64,
    reference_calls: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.calls += o.calls;
        self.records += o.records;
        self.bytes += o.bytes;
        self.sends += o.sends;
        self.reference_calls += o.reference_calls;
    }
}

/// One process's findings. Names are borrowed from the headers (a name tag
/// without a name is numbered), so that 10,000 processes copy none.
#[derive(Default)]
struct Partial<'a> {
    /// Inline room for a few types only: a process's findings are moved
    /// several times on their way to the sum (built, gathered in a window,
    /// handed over, iterated), and with room for 16 they were a kilobyte,
    /// moved 16,384 times at 16,384 processes. More types take one
    /// allocation.
    types: SmallVec<[(i32, Counts); 4]>,
    proc: ProcCommStats,
    min_size: Option<i32>,
    max_size: Option<i32>,
    time: Option<(f64, f64)>,
    timer: (f64, u64),
    read: usize,
    skipped: usize,
    bytes: u64,
    warnings: Vec<Warning>,
    barrier_names: SmallVec<[(&'a str, u64); 2]>,
    tag_names: SmallVec<[(Cow<'a, str>, u64); 2]>,
    reductions: u64,
}

/// The value of `key` in a process's short list of counts (its types,
/// barrier and tag names: a few each), added when new. Lists held inline
/// and searched in turn, not a map per process and kind: three
/// allocations per process at 16,384 processes. The lists are added into
/// maps in process order, so their own order does not matter.
fn count_of<'l, A, K, V>(list: &'l mut SmallVec<A>, key: K) -> &'l mut V
where
    A: smallvec::Array<Item = (K, V)> + 'l,
    K: PartialEq + 'l,
    V: Default + 'l,
{
    let i = match list.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            list.push((key, V::default()));
            list.len() - 1
        }
    };
    &mut list[i].1
}

fn scan_proc<'a>(walk: CommProcWalk<'a>, ranges: Option<&RangeList>) -> Partial<'a> {
    let p = walk.proc();
    let sel = *walk.selection();
    let mut out = Partial::default();
    out.proc.proc = p.proc;
    out.proc.host = p
        .blocks
        .iter()
        .find_map(|b| b.host.as_deref().map(str::to_owned));
    out.proc.blocks = p.blocks.len();
    // Empty blocks and blocks outside the window are never touched.
    out.skipped = p.blocks.len() - walk.blocks().count();
    let size = walk
        .database()
        .comm
        .as_ref()
        .map_or(24, |h| h.record_size());
    // The blocks in a loop of this function's own: the records' loop is
    // compiled here, with its state in registers (a closure given to the
    // walk compiled it about 2 % slower).
    for b in walk.record_blocks(Skipped::CommBlock) {
        let mut b = match b {
            Ok(b) => b,
            Err(w) => {
                out.warnings.push(w);
                continue;
            }
        };
        {
            let b = b.block;
            out.read += 1;
            out.bytes += b.ncomm * size;
            if let Some(t) = b.timer_time {
                out.timer.0 += t;
                out.timer.1 += 1;
            }
            out.proc.barriers += b.barriers.len() as u64;
            out.proc.name_tags += b.name_tags.len() as u64;
            out.reductions += b.reductions().len() as u64;
            for bar in &b.barriers {
                *count_of(&mut out.barrier_names, &*bar.name) += 1;
            }
            for t in &b.name_tags {
                let name = match t {
                    crate::formats::blprof::comm::NameTagRef::Indexed { name_index, .. } => {
                        usize::try_from(*name_index)
                            .ok()
                            .and_then(|i| p.name_tag_names.get(i))
                            .map_or_else(
                                || Cow::Owned(format!("name {name_index}")),
                                |n| Cow::Borrowed(&**n),
                            )
                    }
                    crate::formats::blprof::comm::NameTagRef::Named { name, .. } => {
                        Cow::Borrowed(&**name)
                    }
                };
                *count_of(&mut out.tag_names, name) += 1;
            }
        }
        count_records(&mut out, &mut b.records, sel.window, ranges);
        out.warnings.extend(b.finish(Skipped::CommBlockCutShort));
    }
    out
}

/// Whether amrprofparser `-stats` counts `r` as a call (BLPROF_FORMAT.md
/// §8.6): a size that is no marker, or Waitsome's before-record.
#[inline(always)]
fn reference_call(r: &CommRecord) -> bool {
    (r.size > -1 && r.kind != WAITSOME) || (r.size == BEFORE_CALL && r.kind == WAITSOME)
}

/// Whether `t` is in the region filter's ranges (always without one).
#[inline(always)]
fn in_ranges(ranges: &mut Option<RangeCursor<'_>>, t: f64) -> bool {
    ranges.as_mut().is_none_or(|c| c.contains(t))
}

/// Counts one block's records inside `window` (and `ranges`) into `out`.
#[inline(always)]
fn count_records(
    out: &mut Partial<'_>,
    records: &mut CommRecords,
    window: (f64, f64),
    ranges: Option<&RangeList>,
) {
    // Times mostly grow: a cursor, not a binary search per record.
    let mut ranges = ranges.map(RangeList::cursor);
    // Per type in an array (types 0..=63) and in locals, folded into
    // `out` per block: the loop touches nothing else.
    let mut by_kind = [Counts::default(); 64];
    // The call rule's state per type: beside the counts, one array lookup
    // serves both (types outside 0..=63 have their own counter).
    let mut states = [CallState::default(); 64];
    let mut other_calls = CallCounter::default();
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut smin, mut smax) = (i32::MAX, i32::MIN);
    let (lo, hi) = window;
    while let Some(batch) = records.next_batch() {
        // The batch's extremes in locals: the loop over a batch calls
        // nothing, so they stay in registers (across the refill call
        // they were kept on the stack, a store and a load per record).
        let (mut b0, mut b1) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut bmin, mut bmax) = (i32::MAX, i32::MIN);
        for r in batch.records() {
            let Some((e, state)) = usize::try_from(r.kind)
                .ok()
                .filter(|&k| k < by_kind.len())
                .map(|k| (&mut by_kind[k], &mut states[k]))
            else {
                // Types outside 0..=63 (damaged data): none is a send.
                let opens = other_calls.opens_call(&r);
                if r.time < lo || r.time > hi || !in_ranges(&mut ranges, r.time) {
                    continue;
                }
                b0 = b0.min(r.time);
                b1 = b1.max(r.time);
                let slot = count_of(&mut out.types, r.kind);
                slot.records += 1;
                slot.calls += opens as u64;
                slot.reference_calls += reference_call(&r) as u64;
                out.proc.records += 1;
                out.proc.calls += opens as u64;
                continue;
            };
            // Every record goes through the call rule, in the window or
            // not, so that a call begun before the window is not counted
            // again by its status records inside it.
            let opens = state.opens_call(&r);
            if r.time < lo || r.time > hi || !in_ranges(&mut ranges, r.time) {
                continue;
            }
            // Branches, not `min`/`max`: times mostly grow, so these
            // are predicted, and no chain of float operations runs
            // from one record to the next. (A NaN changes neither.)
            if r.time < b0 {
                b0 = r.time;
            }
            if r.time > b1 {
                b1 = r.time;
            }
            e.calls += opens as u64;
            e.reference_calls += reference_call(&r) as u64;
            e.records += 1;
            if is_send(r.kind) && r.size != AFTER_CALL {
                e.bytes += r.size.max(0) as u64;
                e.sends += 1;
                bmin = bmin.min(r.size);
                bmax = bmax.max(r.size);
            }
        }
        if b0 < t0 {
            t0 = b0;
        }
        if b1 > t1 {
            t1 = b1;
        }
        smin = smin.min(bmin);
        smax = smax.max(bmax);
    }
    if t0 <= t1 {
        out.time = Some(match out.time {
            None => (t0, t1),
            Some((a, z)) => (a.min(t0), z.max(t1)),
        });
    }
    if smin <= smax {
        out.min_size = Some(out.min_size.map_or(smin, |m| m.min(smin)));
        out.max_size = Some(out.max_size.map_or(smax, |m| m.max(smax)));
    }
    for (k, acc) in by_kind.iter().enumerate() {
        if acc.records > 0 {
            count_of(&mut out.types, k as i32).add(acc);
            out.proc.records += acc.records;
            out.proc.calls += acc.calls;
            out.proc.bytes_sent += acc.bytes;
            out.proc.sends += acc.sends;
        }
    }
}

/// Names and counts, in name order.
fn listing<K: Into<String>>(m: BTreeMap<K, u64>) -> Vec<NameCount> {
    m.into_iter()
        .map(|(name, count)| NameCount {
            name: name.into(),
            count,
        })
        .collect()
}

/// Computes the statistics of the records `scope` selects; per-process
/// work runs in parallel and is combined in process order as it comes.
pub fn comm_stats(db: &Database, scope: &CommScope) -> (CommStats, Vec<Warning>) {
    let ranges = scope.ranges();
    let mut s = CommStats {
        region_filter: scope.filter_names(),
        ..Default::default()
    };
    let mut types: BTreeMap<i32, Counts> = BTreeMap::new();
    let mut timer = (0.0, 0u64);
    let mut warnings = Vec::new();
    let mut barrier_names: BTreeMap<&str, u64> = BTreeMap::new();
    let mut tag_names: BTreeMap<Cow<'_, str>, u64> = BTreeMap::new();
    // Each process's counts are added as they come, in process order (held
    // until the end, their maps were most of the memory at 16,384 processes).
    let walk = db.comm_blocks(&scope.selection());
    walk.fold_small_procs(|w| scan_proc(w, ranges.map(|r| r.of(w.proc().proc))), |p| {
        s.nprocs += 1;
        for (n, c) in p.barrier_names {
            *barrier_names.entry(n).or_default() += c;
        }
        for (n, c) in p.tag_names {
            *tag_names.entry(n).or_default() += c;
        }
        s.reductions += p.reductions;
        for (k, c) in p.types {
            types.entry(k).or_default().add(&c);
        }
        s.nrecords += p.proc.records;
        s.bytes_sent += p.proc.bytes_sent;
        s.msg_size_min = p
            .min_size
            .map(|m| s.msg_size_min.map_or(m, |x| x.min(m)))
            .or(s.msg_size_min);
        s.msg_size_max = p
            .max_size
            .map(|m| s.msg_size_max.map_or(m, |x| x.max(m)))
            .or(s.msg_size_max);
        if let Some((a, z)) = p.time {
            s.time_min = Some(s.time_min.map_or(a, |x| x.min(a)));
            s.time_max = Some(s.time_max.map_or(z, |x| x.max(z)));
        }
        timer.0 += p.timer.0;
        timer.1 += p.timer.1;
        s.blocks_read += p.read;
        s.blocks_skipped += p.skipped;
        s.bytes_read += p.bytes;
        warnings.extend(p.warnings);
        s.procs.push(p.proc);
    });
    s.timer_time = (timer.1 > 0).then(|| timer.0 / timer.1 as f64);
    s.barrier_names = listing(barrier_names);
    s.name_tags = listing(tag_names);
    s.by_type = types
        .into_iter()
        .map(|(k, c)| TypeStats {
            name: func_name(k).map_or_else(|| format!("unknown type {k}"), str::to_owned),
            number: k,
            calls: c.calls,
            records: c.records,
            reference_calls: c.reference_calls,
            bytes: c.bytes,
        })
        .collect();
    (s, warnings)
}
