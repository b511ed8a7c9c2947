//! The message pairing as the simplest sequential program says it, all in
//! memory: the oracle the partitioned sort-merge join of [`super::pairs`] is
//! tested against (spilled or not, in either order, on real, damaged and
//! hot-key data, at any number of threads).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use super::completion::{WaitTracker, is_nonblocking_recv};
use super::pair_merge::{RouteSum, RouteSums, Routes, routes_of};
use super::pair_rows::Width;
use super::pairs::{
    Handing, MEMORY_BUDGET, MsgEnd, Pair, PairOrder, PairingSummary, pair_within, row_width,
};
use super::select::{CommSelection, ProcRanges};
use crate::error::Warning;
use crate::formats::blprof::commdata::{
    AFTER_CALL, BEFORE_CALL, CommRecord, func_name, is_recv, is_send,
};
use crate::formats::blprof::database::{Database, ProcComm};

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

/// A receive as the oracle holds it: its record, when it completed and
/// the call that completed it (entry, type).
type Posted = (CommRecord, f64, f64, i32);

/// Per receiver, per (sender, tag): its receives in record order.
type Queues = Vec<BTreeMap<(usize, i32), VecDeque<Posted>>>;

/// Every receive of every process, with its completion: a status of
/// (source, tag) completes the oldest nonblocking receive of that key not
/// completed yet; a blocking receive completes at its record, entered at
/// its before-record (when not later). Receives from no process go to
/// `report`.
fn receives(db: &Database, sel: &CommSelection<'_>, report: &mut PairingSummary) -> Queues {
    let mut queues = Vec::new();
    for p in &db.comm_index().procs {
        let mut posted: Vec<(usize, i32, Posted)> = Vec::new();
        let mut awaiting: BTreeMap<(i32, i32), VecDeque<usize>> = BTreeMap::new();
        let mut waits = WaitTracker::default();
        let mut recv_entry = f64::NAN;
        every_record(db, sel, p, &mut |r| {
            if let Some((key, time)) = waits.push(r) {
                if let Some(i) = awaiting.get_mut(&key).and_then(VecDeque::pop_front) {
                    let (entry, kind) = waits.last_wait();
                    (posted[i].2.1, posted[i].2.2, posted[i].2.3) = (time, entry, kind);
                }
                return;
            }
            if is_recv(r.kind) && r.size == BEFORE_CALL {
                recv_entry = r.time;
            }
            if !(sel.contains(r.time) && is_recv(r.kind) && r.size >= 0) {
                return;
            }
            match usize::try_from(r.peer) {
                Ok(src) if is_nonblocking_recv(r.kind) => {
                    awaiting
                        .entry((r.peer, r.tag))
                        .or_default()
                        .push_back(posted.len());
                    posted.push((src, r.tag, (*r, f64::NAN, f64::NAN, r.kind)));
                }
                Ok(src) => {
                    let entry = if recv_entry <= r.time {
                        recv_entry
                    } else {
                        r.time
                    };
                    posted.push((src, r.tag, (*r, r.time, entry, r.kind)));
                }
                Err(_) => report.unmatched_recvs.push(end(p.proc, r)),
            }
        });
        let mut q: BTreeMap<(usize, i32), VecDeque<Posted>> = BTreeMap::new();
        for (src, tag, x) in posted {
            q.entry((src, tag)).or_default().push_back(x);
        }
        queues.push(q);
    }
    queues
}

fn every_record(
    db: &Database,
    sel: &CommSelection<'_>,
    p: &ProcComm,
    f: &mut dyn FnMut(&CommRecord),
) {
    for b in sel.blocks(p) {
        if let Ok(mut records) = db.comm_records(b) {
            for r in records.by_ref() {
                f(&r);
            }
        }
    }
}

/// The pairing as one sequential pass over the senders, each send taking
/// the oldest receive of its key left: the pairs in sender order and the
/// report.
pub(super) fn sequential(db: &Database, sel: &CommSelection<'_>) -> (Vec<Pair>, PairingSummary) {
    let index = db.comm_index();
    let mut report = PairingSummary::default();
    let mut queues = receives(db, sel, &mut report);
    let mut pairs = Vec::new();
    let mut routes: BTreeMap<(usize, usize), RouteSum> = BTreeMap::new();
    for p in &index.procs {
        every_record(db, sel, p, &mut |r| {
            if !sel.contains(r.time) || !is_send(r.kind) || r.size == AFTER_CALL {
                return;
            }
            let matched = usize::try_from(r.peer).ok().and_then(|to| {
                let i = index.procs.iter().position(|q| q.proc == to)?;
                let x = queues[i].get_mut(&(p.proc, r.tag))?.pop_front()?;
                Some((to, x))
            });
            match matched {
                Some((to, (x, done, entry, wait_kind)))
                    if sel.wants_proc(p.proc) || sel.wants_proc(to) =>
                {
                    let completed = (!done.is_nan()).then_some(done);
                    let pair = Pair {
                        from: p.proc,
                        to,
                        tag: r.tag,
                        size: r.size,
                        send_time: r.time,
                        recv_time: x.time,
                        latency: x.time - r.time,
                        completed_time: completed,
                        latency_to_completion: completed.map(|c| c - r.time),
                        wait_entry: completed.and((!entry.is_nan()).then_some(entry)),
                        wait_kind,
                    };
                    routes
                        .entry((p.proc, to))
                        .or_insert_with(RouteSum::new)
                        .add(&pair);
                    pairs.push(pair);
                }
                Some(_) => {}
                None if sel.wants_proc(p.proc) => report.unmatched_sends.push(end(p.proc, r)),
                None => {}
            }
        });
    }
    report.paired = pairs.len() as u64;
    let mut totals = RouteSums::default();
    for (r, sums) in &routes {
        totals.merge(*r, sums);
    }
    report.routes = routes_of(totals);
    for (i, q) in queues.into_iter().enumerate() {
        for ((src, tag), left) in q {
            for (x, ..) in left {
                report.unmatched_recvs.push(MsgEnd {
                    peer: src as i32,
                    ..end(index.procs[i].proc, &CommRecord { tag, ..x })
                });
            }
        }
    }
    report.unmatched_recvs.retain(|e| sel.wants_proc(e.proc));
    (pairs, report)
}

/// The pairs as `pair_within` hands them on (each with the call that
/// completed it, which the JSON leaves out), the report and the warnings.
fn pair_all(
    db: &Database,
    sel: &CommSelection<'_>,
    ranges: Option<&ProcRanges>,
    budget: usize,
    order: PairOrder,
) -> (Vec<String>, String, Vec<String>) {
    let mut got = Vec::new();
    let (r, w) = pair_within(
        db,
        sel,
        ranges,
        budget,
        order,
        Routes::Summed,
        Handing {
            new: Vec::new,
            add: |v: &mut Vec<String>, p: &Pair| v.push(full(p)),
            emit: &mut |v| got.extend(v),
        },
    );
    (got, json(&r), w.iter().map(Warning::to_string).collect())
}

/// A pair with every field, to compare.
fn full(p: &Pair) -> String {
    let wait = (p.wait_entry.map(f64::to_bits), p.wait_kind);
    format!("{} {wait:?}", json(p))
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort_unstable();
    v
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

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/blprof")
        .join(name)
        .join("bl_prof")
}

/// Budgets that spill every few rows, some rows, and never.
const BUDGETS: [usize; 3] = [1, 20_000, MEMORY_BUDGET];

/// Checks the join against the oracle on `db` with `sel`, at every budget
/// and in both orders: the same pairs (in sender order: in the same
/// order), the same report, no note of the temporary file; returns the
/// pairs and the warnings (the same every time).
fn check_against_oracle(db: &Database, sel: &CommSelection<'_>, what: &str) -> (usize, usize) {
    let (pairs, report) = sequential(db, sel);
    let pairs: Vec<String> = pairs.iter().map(full).collect();
    let report = json(&report);
    let mut warned: Option<Vec<String>> = None;
    for budget in BUDGETS {
        for order in [PairOrder::Sender, PairOrder::Any] {
            let (got, r, w) = pair_all(db, sel, None, budget, order);
            let how = format!("{what}: budget {budget}, {order:?}");
            assert!(w.iter().all(|w| !w.contains("temporary")), "{how}: {w:?}");
            if order == PairOrder::Sender {
                assert!(got == pairs, "{how}: the pairs differ");
            } else {
                assert!(sorted(got) == sorted(pairs.clone()), "{how}: the pairs differ");
            }
            assert_eq!(r, report, "{how}");
            assert_eq!(&w, warned.get_or_insert_with(|| w.clone()), "{how}");
        }
    }
    (pairs.len(), warned.map_or(0, |w| w.len()))
}

/// On every fixture with comm data, with selections of processes and of
/// time (windows that cut messages: unmatched sends and receives), the
/// join pairs as the oracle at every budget.
#[test]
fn the_join_pairs_as_the_oracle_on_every_fixture() {
    let one = [1usize];
    let two = [0usize, 2];
    let selections = [
        CommSelection::all(),
        CommSelection {
            procs: Some(&one),
            ..CommSelection::all()
        },
        CommSelection {
            window: (0.025, 0.03),
            procs: None,
        },
        CommSelection {
            window: (0.02, 0.03),
            procs: Some(&two),
        },
    ];
    let mut paired = 0;
    for name in [
        "amrlevel8",
        "small4",
        "asym4",
        "flush",
        "nfiles2",
        "host_nid",
    ] {
        let db = Database::open(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        for sel in &selections {
            paired += check_against_oracle(&db, sel, &format!("{name} {sel:?}")).0;
        }
    }
    assert!(paired > 40_000, "{paired} pairs");
}

/// One key carrying every message of each route (each tag of amrlevel8
/// made 0, statuses included): the join pairs as the oracle, spilled or not.
#[test]
fn a_hot_key_pairs_as_the_oracle() {
    let original = Database::open(fixture("amrlevel8")).unwrap();
    let dir = copy_of(&fixture("amrlevel8"));
    for p in &original.comm_index().procs {
        for b in CommSelection::all().blocks(p) {
            let path = dir.path().join(&*b.datafile);
            let mut bytes = std::fs::read(&path).unwrap();
            for i in 0..b.ncomm as usize {
                let at = b.seekpos as usize + i * 24 + 12;
                let tag = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
                if tag >= 0 {
                    bytes[at..at + 4].copy_from_slice(&0i32.to_le_bytes());
                }
            }
            std::fs::write(&path, bytes).unwrap();
        }
    }
    let db = Database::open(dir.path()).unwrap();
    let (pairs, _) = check_against_oracle(&db, &CommSelection::all(), "hot key");
    assert!(pairs > 10_000, "{pairs} pairs");
}

/// On damaged comm data (records of small4 with a field made up: a type, a
/// size, a peer, a tag or a time, NaN and infinities among them; or two
/// records swapped; every fifth round a file cut short), the join pairs as
/// the oracle, warns the same at every budget, and reports the same.
#[test]
fn damaged_records_pair_as_the_oracle() {
    let original = Database::open(fixture("small4")).unwrap();
    let mut rng = crate::test_rng::Xorshift::new(0x2545_f491_4f6c_dd1d);
    let mut next = move |n: u64| rng.below(n);
    let (mut checked, mut warnings) = (0, 0);
    for round in 0..40 {
        let dir = copy_of(&fixture("small4"));
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
        if round % 5 == 4 {
            let path = dir
                .path()
                .join(format!("bl_comm_prof_D_{:05}", round % 4));
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
        }
        let db = Database::open(dir.path()).unwrap();
        let two = [0usize, 2];
        let sel = if round % 2 == 0 {
            CommSelection::all()
        } else {
            CommSelection {
                window: (0.02, 0.04),
                procs: Some(&two),
            }
        };
        let (pairs, warned) = check_against_oracle(&db, &sel, &format!("round {round}"));
        checked += pairs;
        warnings += warned + db.comm_index().warnings.len();
    }
    assert!(checked > 1000, "{checked} pairs");
    assert!(warnings >= 8, "{warnings} warnings");
}

/// Sends to no process (a negative peer, as `MPI_PROC_NULL`) take no
/// receive and are listed unmatched, in sender order.
#[test]
fn sends_to_no_process_are_unmatched() {
    let original = Database::open(fixture("small4")).unwrap();
    let dir = copy_of(&fixture("small4"));
    let mut sends = 0;
    for p in &original.comm_index().procs {
        for b in CommSelection::all().blocks(p) {
            let path = dir.path().join(&*b.datafile);
            let mut bytes = std::fs::read(&path).unwrap();
            let records = original.comm_records(b).unwrap();
            for (i, r) in records.enumerate() {
                if is_send(r.kind) && r.size != AFTER_CALL {
                    sends += 1;
                    if sends % 3 == 0 {
                        let at = b.seekpos as usize + i * 24 + 8;
                        bytes[at..at + 4].copy_from_slice(&(-2i32).to_le_bytes());
                    }
                }
            }
            std::fs::write(&path, bytes).unwrap();
        }
    }
    let db = Database::open(dir.path()).unwrap();
    let (_, report) = sequential(&db, &CommSelection::all());
    let strays = report
        .unmatched_sends
        .iter()
        .filter(|e| e.peer == -2)
        .count();
    assert!(strays > 10, "{strays} sends to no process");
    check_against_oracle(&db, &CommSelection::all(), "sends to -2");
}

/// A process numbered past 16 bits (small4's process 3 renumbered 70000,
/// and every peer naming it): its rows are spilled wide, and the join
/// pairs as the oracle; small4 itself is spilled narrow.
#[test]
fn a_process_numbered_past_16_bits_pairs_as_the_oracle() {
    let original = Database::open(fixture("small4")).unwrap();
    assert_eq!(row_width(&original), (Width::Narrow, 3));
    let dir = copy_of(&fixture("small4"));
    let renumber = |file: &str, from: &str, to: &str| {
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    renumber("bl_comm_prof_H", "NProcs  4", "NProcs  70001");
    renumber("bl_prof_H", "NProcs  4", "NProcs  70001");
    renumber("bl_comm_prof_H_00003", "CommProfProc  3 ", "CommProfProc  70000 ");
    let mut renamed = 0;
    for p in &original.comm_index().procs {
        for b in CommSelection::all().blocks(p) {
            let path = dir.path().join(&*b.datafile);
            let mut bytes = std::fs::read(&path).unwrap();
            for i in 0..b.ncomm as usize {
                let at = b.seekpos as usize + i * 24 + 8;
                if bytes[at..at + 4] == 3i32.to_le_bytes() {
                    bytes[at..at + 4].copy_from_slice(&70_000i32.to_le_bytes());
                    renamed += 1;
                }
            }
            std::fs::write(&path, bytes).unwrap();
        }
    }
    assert!(renamed > 100, "{renamed} peers renumbered");
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(row_width(&db), (Width::Wide, 70_000));
    let (pairs, _) = sequential(&db, &CommSelection::all());
    assert!(pairs.iter().any(|p| p.to == 70_000) && pairs.iter().any(|p| p.from == 70_000));
    check_against_oracle(&db, &CommSelection::all(), "process 70000");
}

/// With a region filter's ranges (the first half of each process's time,
/// none for process 0), both orders report the same pairs, fewer than all.
#[test]
fn ranges_report_the_same_in_either_order() {
    use crate::analysis::ranges::{RangeList, TimeRange};
    for name in ["amrlevel8", "small4", "nfiles2"] {
        let db = Database::open(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
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
        let (all, _) = sequential(&db, &CommSelection::all());
        let run = |budget, order| {
            let (got, r, _) = pair_all(&db, &CommSelection::all(), Some(&ranges), budget, order);
            (sorted(got), r)
        };
        let (pairs, report) = run(MEMORY_BUDGET, PairOrder::Sender);
        assert!(!pairs.is_empty() && pairs.len() < all.len(), "{name}");
        for budget in BUDGETS {
            assert!(run(budget, PairOrder::Any) == (pairs.clone(), report.clone()), "{name}");
        }
    }
}

/// Spilled or not, the pairs come in the same order for any number of
/// threads, in either order.
#[test]
fn the_pairs_come_in_one_order_for_any_threads() {
    let db = Database::open(fixture("amrlevel8")).unwrap();
    for order in [PairOrder::Sender, PairOrder::Any] {
        for budget in [20_000, MEMORY_BUDGET] {
            let run = |threads| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| pair_all(&db, &CommSelection::all(), None, budget, order))
            };
            let one = run(1);
            assert!(one.0.len() > 1000);
            assert!(run(3) == one && run(4) == one, "{order:?} {budget}");
        }
    }
}
