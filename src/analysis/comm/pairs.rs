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
//! # The algorithm: a partitioned sort-merge join within one memory budget
//!
//! ```text
//!  1. rows     every process, in parallel: its sends     (from, to, tag, seq)
//!                                          its receives  (from, to, tag, order) + completion
//!             each filed under partition hash(from, to, tag)  (temporary file: crate::spill)
//!  2. sort     a partition's rows of each kind by key       (partitions in parallel)
//!  3. merge    walk both in key order:  sends  p→q t: s0 s1 s2
//!                                       recvs  p→q t: r0 r1        → (s0,r0) (s1,r1), s2 unmatched
//!  4. order    the pairs by (sender, seq)           (external sort; skipped
//!                                                    by pair_messages_unordered)
//! ```
//!
//! 1. One pass over each process's records, in record order
//!    ([`super::pair_rows`]), makes a row per send (numbered `seq` in the
//!    sender's record order) and per receive from a process (numbered
//!    `order` in the receiver's), filed in a temporary file under the
//!    partition of its key (sender, receiver, tag). A nonblocking receive
//!    is filed when a status completes it, by the rule of
//!    [`super::completion`] ([`super::pair_waiting`]); past a bound on the
//!    receives waiting, at once, and its completion as a row of its own.
//!    Rows are spilled narrow when the headers prove their fields fit
//!    ([`super::pair_rows::Width`]); an end whose peer is no process read
//!    can take no other and is listed unmatched at once, not filed.
//! 2. Partition after partition, in parallel, its sends are sorted by
//!    (sender, receiver, tag, seq) and its receives by (sender, receiver,
//!    tag, order): within a key both are then in the order MPI matches
//!    them. A key's rows were all filed by one process's pass, in that
//!    order, so the sort is by key alone and stable ([`super::pair_sort`]:
//!    packed keys sorted, the rows read in their order, not moved), with a
//!    check that the rows of each key did come in order.
//! 3. One walk over both sorted streams ([`super::pair_merge`]) pairs the
//!    k-th send of each key with its k-th receive; sends or receives a key
//!    has more of are unmatched.
//! 4. The pairs reach the caller by sender and then in the sender's record
//!    order (sorted by (sender, seq)); a caller that only sums them
//!    ([`pair_messages_unordered`]) takes them partition by partition, in
//!    key order within each.
//!
//! One knob, the memory budget ([`MEMORY_BUDGET`]): half of it for the
//! partitions being sorted (a few at a time; the number of partitions
//! follows from the records and the budget), half for the pairs being put
//! back in sender order. A partition's sort writes sorted runs to a
//! temporary file past its share, so a key however hot needs no more
//! memory; a partition whose rows all fit its part of that half, as many
//! are joined at once, is sorted whole in memory. Rows are distinct in
//! their keys, so the order out depends on the data and the budget alone,
//! not on the number of threads, and the pairs are formatted by the caller
//! in parallel batches handed on in that order.

use rayon::prelude::*;

use super::pair_merge::{Join, PartRoutes, RouteSums, Routes, routes_of};
use super::pair_rows::{
    DONES, DoneRow, MAX_ROW_BYTES, Numbered, PairRow, PostedRecv, RECVS, RecvRow, RowWriter, SENDS,
    SendRow, Spilled, Width, number,
};
pub use super::pair_types::{MsgEnd, Pair, PairingSummary};
use super::pair_waiting::held_bytes;
use super::select::{CommSelection, ProcRanges, inside};
use crate::error::{Location, Warning};
use crate::external_sort::{Sorted, Sorter};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::CommProcWalk;
use crate::spill::{Buffered, Spill};

/// The memory the pairing's rows may take: half for the partitions being
/// sorted, half for the pairs put back in sender order (the module docs).
pub const MEMORY_BUDGET: usize = 32 << 20;

/// Bytes of rows a comm record makes, as the partitions are cut for: a
/// record makes at most one row (of at most 64 bytes), but a send or a
/// receive is about one record in three of a real run (the rest: wait
/// statuses, entries, barriers), so rows take some 16 bytes per record.
/// More rows only make a partition's sort write runs (the same memory);
/// fewer partitions give the writers longer chunks (fewer writes).
const ROW_BYTES_PER_RECORD: u64 = 24;

/// At most this many partitions (open buffers per writer).
const MAX_PARTITIONS: u64 = 4096;

/// Bytes of the buffers of all the writing tasks of step 1 together
/// (small enough to stay in the cores' caches while they write all over
/// them).
const WRITER_BYTES: usize = 16 << 20;

/// Pairs gathered before they are handed to the sort in sender order.
const BATCH_ROWS: usize = 16 * 1024;

/// Pairs per batch the caller formats (some 0.5 MB of JSON).
const TASK_PAIRS: usize = 4 * 1024;

/// Batches per thread handed on at a time (two such windows are held).
const TASKS_PER_THREAD: usize = 4;

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
    let (order, routes) = (PairOrder::Sender, Routes::Summed);
    pair_within(db, sel, ranges, MEMORY_BUDGET, order, routes, out)
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
    let (order, routes) = (PairOrder::Any, Routes::Summed);
    pair_within(db, sel, ranges, MEMORY_BUDGET, order, routes, out)
}

/// [`pair_messages_unordered`] for a caller that takes the pairs alone:
/// the pairs and the warnings are the same, no report is made (its sums
/// per route are a tenth of the pairing's time at 16,384 processes).
pub fn pair_each_unordered<C: Send>(
    db: &Database,
    sel: &CommSelection<'_>,
    new: impl Fn() -> C + Sync,
    add: impl Fn(&mut C, &Pair) + Sync,
    emit: &mut dyn FnMut(C),
) -> Vec<Warning> {
    let out = Handing { new, add, emit };
    let (order, routes) = (PairOrder::Any, Routes::Skipped);
    pair_within(db, sel, None, MEMORY_BUDGET, order, routes, out).1
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
    routes: PartRoutes,
    unmatched_sends: Vec<((usize, u64), MsgEnd)>,
    unmatched_recvs: Vec<((i32, i32, i32, u64), MsgEnd)>,
    /// A temporary file that failed as it was read (rows lost) or written
    /// (rows kept in memory).
    unread: Option<std::io::Error>,
    unwritten: Option<std::io::Error>,
}

/// The rows of `kind` of partition `part`, spilled at `width`, sorted by
/// their keys within `run_bytes` of memory.
fn sorted_rows<T: Spilled>(
    spill: &Spill,
    (part, width): (usize, Width),
    kind: usize,
    run_bytes: usize,
) -> (Sorted<T>, Option<std::io::Error>, Option<std::io::Error>) {
    let sorter = Sorter::with_run_bytes(run_bytes);
    let read = spill.read(3 * part + kind, |chunk| match width {
        Width::Narrow => sorter.push_taken(chunk, chunk.len() / T::FEWEST_NARROW_BYTES, T::take_narrow),
        Width::Wide => sorter.push_decoded(chunk, T::BYTES, T::get),
    });
    let (rows, unwritten) = sorter.finish();
    (rows, read.err(), unwritten)
}

/// Steps 2 and 3 for one partition (its rows spilled at the width given):
/// its rows of each kind sorted within their `run_bytes`, and merged. Its pairs
/// go to `pairs` (sender order) or into chunks (any order).
#[allow(clippy::too_many_arguments)]
fn join_partition<N, A, C>(
    spill: &Spill,
    part: (usize, Width),
    run_bytes: [usize; 3],
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    pairs: Option<&Sorter<PairRow>>,
    routes: Option<&SpareRoutes>,
    new: &N,
    add: &A,
) -> PartFound<C>
where
    N: Fn() -> C + Sync,
    A: Fn(&mut C, &Pair) + Sync,
    C: Send,
{
    let [sends_bytes, recvs_bytes, dones_bytes] = run_bytes;
    let (sends, e1, w1) = sorted_rows(spill, part, SENDS, sends_bytes);
    let (recvs, e2, w2) = sorted_rows(spill, part, RECVS, recvs_bytes);
    let (dones, e3, w3) = sorted_rows(spill, part, DONES, dones_bytes);
    let routes = routes.map(SpareRoutes::take);
    let mut join = Join::new((sends, recvs, dones), sel, ranges, routes);
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

/// Partitions' route lists, handed back once merged for later partitions
/// to fill: at 16,384 processes every route is in every partition, and a
/// list of some 2 MB per partition, faulted in afresh and grown by copies,
/// was a twentieth of `comm pairs`.
#[derive(Default)]
struct SpareRoutes(std::sync::Mutex<Vec<PartRoutes>>);

impl SpareRoutes {
    /// An empty list: one handed back (its memory kept), or a new one.
    fn take(&self) -> PartRoutes {
        let spare = self.0.lock().ok().and_then(|mut s| s.pop());
        let mut list = spare.unwrap_or_default();
        list.clear();
        list
    }

    fn put(&self, list: PartRoutes) {
        if let Ok(mut s) = self.0.lock() {
            s.push(list);
        }
    }
}

/// The memory each kind of rows of partition `part` is sorted within: all
/// of `share` (the partition's part of the budget, as many are joined at
/// once) when its rows of every kind fit it together, else `run_bytes`
/// each, as the partitions were cut for.
fn run_bytes_of(spill: &Spill, part: usize, share: usize, run_bytes: usize) -> [usize; 3] {
    let need = |kind: usize, row_bytes: usize| {
        (spill.records(3 * part + kind)).saturating_mul(row_bytes as u64)
    };
    let total = [
        need(SENDS, Sorter::<SendRow>::memory_per_row()),
        need(RECVS, Sorter::<RecvRow>::memory_per_row()),
        need(DONES, Sorter::<DoneRow>::memory_per_row()),
    ]
    .into_iter()
    .fold(0u64, u64::saturating_add);
    [if total <= share as u64 { share } else { run_bytes }; 3]
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
    routes: Routes,
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
    // when the records make ROW_BYTES_PER_RECORD of rows. Their number
    // depends on the data and the budget alone: so does the order of the
    // pairs in any order.
    let run_bytes = (budget / 2 / PARTS_AT_ONCE).max(1);
    let records = comm_records(db, &every_proc);
    let (width, last_proc) = row_width(db);
    let row_bytes = records.saturating_mul(MAX_ROW_BYTES as u64);
    let expected = records.saturating_mul(ROW_BYTES_PER_RECORD);
    let parts = expected.div_ceil(run_bytes as u64).clamp(1, MAX_PARTITIONS) as usize;
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
    // Step 1, a task per run of processes, each with its own buffers and
    // a sixteenth of the budget for the receives it holds.
    let max_held = budget / 16 / held_bytes::<PostedRecv>();
    let chunk = (WRITER_BYTES / threads / (3 * parts)).clamp(1 << 10, 256 << 10);
    let walks: Vec<CommProcWalk> = db.comm_blocks(&every_proc).procs().collect();
    let numbered: Vec<(Vec<Numbered>, Option<std::io::Error>)> = walks
        .par_iter()
        .fold(
            || {
                let out = RowWriter {
                    out: Buffered::new(&spill, chunk),
                    parts,
                    width,
                    last_proc,
                    max_held,
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
    let (mut wild, mut unkeyed, mut strays) = (Vec::new(), Vec::new(), Vec::new());
    let mut unwritten = None;
    for (found, failed) in numbered {
        unwritten = unwritten.or(failed);
        for n in found {
            wild.extend(n.wild);
            unkeyed.extend(n.unkeyed);
            strays.extend(n.strays);
            warnings.extend(n.warnings);
        }
    }
    // Steps 2 and 3, partition after partition in parallel.
    let pairs = (order == PairOrder::Sender).then(|| Sorter::new(budget / 2));
    let mut report = PairingSummary::default();
    let mut route_sums = RouteSums::default();
    let (mut unmatched_sends, mut unmatched_recvs) = (Vec::new(), Vec::new());
    let mut unread = unwritten.take();
    let mut unwritten = None;
    let (new, add) = (&out.new, &out.add);
    let emit = &mut *out.emit;
    // (The memory a partition's sort may take depends on the threads, the
    // order of its rows out does not.)
    let at_once = (2 * threads).min(PARTS_AT_ONCE);
    let spare_routes = SpareRoutes::default();
    let spare = (routes == Routes::Summed).then_some(&spare_routes);
    let share = (budget / 2 / at_once).max(run_bytes);
    crate::parallel::Ordered::window(at_once).for_each(
        0..parts,
        |part| {
            let run_bytes = run_bytes_of(&spill, part, share, run_bytes);
            let (spill, sorted) = (&spill, pairs.as_ref());
            let part = (part, width);
            join_partition(spill, part, run_bytes, sel, ranges, sorted, spare, new, add)
        },
        |found: PartFound<C>| {
            found.chunks.into_iter().for_each(&mut *emit);
            report.paired += found.paired;
            for (r, sums) in &found.routes {
                route_sums.merge(*r, sums);
            }
            if let Some(spare) = spare {
                spare.put(found.routes);
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
    // Receives no row could hold took no send.
    unmatched_recvs.extend(strays);
    // Unmatched sends in sender order; receives by receiver, sender, tag
    // and record order (the keys are distinct).
    unmatched_sends.sort_unstable_by_key(|(k, _)| *k);
    unmatched_recvs.sort_unstable_by_key(|(k, _)| *k);
    report.routes = routes_of(route_sums);
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

/// The comm records of the blocks `sel` reads (as the headers count them).
pub(super) fn comm_records(db: &Database, sel: &CommSelection<'_>) -> u64 {
    (db.comm_index().procs.iter())
        .flat_map(|p| sel.blocks(p))
        .fold(0u64, |n, b| n.saturating_add(b.ncomm))
}

/// The width step 1 spills its rows at, and the largest process number
/// read as a row holds it (the headers' numbers: every block of every
/// process, at least the records read).
pub(super) fn row_width(db: &Database) -> (Width, i32) {
    let procs = &db.comm_index().procs;
    let last_proc = procs.iter().map(|p| p.proc).max().unwrap_or(0);
    let most_records = (procs.iter())
        .map(|p| (p.blocks.iter()).fold(0u64, |n, b| n.saturating_add(b.ncomm)))
        .max()
        .unwrap_or(0);
    let width = Width::of(last_proc, most_records);
    (width, i32::try_from(last_proc).unwrap_or(i32::MAX))
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


#[cfg(test)]
mod tests {
    use super::*;

    /// A partition whose rows of every kind fit its share together is
    /// sorted within the share; one a byte larger, within the partitions'
    /// cut, kind by kind.
    /// A route list handed back comes out again empty, with its memory.
    #[test]
    fn a_route_list_handed_back_is_taken_again_empty() {
        let spare = SpareRoutes::default();
        assert_eq!(spare.take().capacity(), 0);
        let sums = super::super::pair_merge::RouteSum::new();
        let list: PartRoutes = vec![((0, 1), sums); 100];
        spare.put(list);
        let again = spare.take();
        assert!(again.is_empty() && again.capacity() >= 100);
        assert_eq!(spare.take().capacity(), 0);
    }

    /// The pairing without its report hands on the same pairs, in the
    /// same chunks, with the same warnings as the one with it.
    #[test]
    fn pairs_alone_are_the_pairs_of_the_report() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        for name in ["amrlevel8", "small4", "asym4", "flush"] {
            let db = Database::open(fixtures.join(name).join("bl_prof")).unwrap();
            let sel = CommSelection::all();
            let text = |p: &Pair| format!("{p:?}");
            let (mut with, mut alone) = (Vec::new(), Vec::new());
            let (report, w1) =
                pair_messages_unordered(&db, &sel, None, Vec::new, |c: &mut Vec<_>, p| c.push(text(p)), &mut |c| with.push(c));
            let w2 = pair_each_unordered(&db, &sel, Vec::new, |c: &mut Vec<_>, p| c.push(text(p)), &mut |c| alone.push(c));
            assert!(report.paired > 0 && !report.routes.is_empty(), "{name}");
            assert_eq!(alone, with, "{name}");
            let text = |w: &[Warning]| w.iter().map(Warning::to_string).collect::<Vec<_>>();
            assert_eq!(text(&w2), text(&w1), "{name}");
        }
    }

    #[test]
    fn a_partition_that_fits_its_share_sorts_in_it() {
        let spill = Spill::new(3).unwrap();
        let (sends, recvs) = (10u64, 20u64);
        spill.append(SENDS, &[0], sends).unwrap();
        spill.append(RECVS, &[0], recvs).unwrap();
        let need = sends as usize * Sorter::<SendRow>::memory_per_row()
            + recvs as usize * Sorter::<RecvRow>::memory_per_row();
        assert_eq!(run_bytes_of(&spill, 0, need, 7), [need; 3]);
        assert_eq!(run_bytes_of(&spill, 0, need - 1, 7), [7; 3]);
    }
}
