//! Progress hooks: the library advances them once per unit the binary's
//! bars count (trace block, comm process, tlog block), so a bar ends at
//! exactly 100 % (tests/it/progress.rs: no bar without a terminal).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{db, tlog};
use crate::analysis::calltree::call_tree;
use crate::analysis::comm::scope::CommScope;
use crate::analysis::comm::select::CommSelection;
use crate::analysis::comm::stats::comm_stats;
use crate::analysis::regions::Regions;
use crate::analysis::trace_summary::{Selection, trace_summary};
use crate::formats::blprof::Database;
use crate::formats::tlog::TlogFile;
use crate::progress::Progress;

/// A hook and the counter it advances.
fn counter() -> (Progress, Arc<AtomicU64>) {
    let n = Arc::new(AtomicU64::new(0));
    let seen = n.clone();
    (
        Progress::new(move |k| {
            seen.fetch_add(k, Ordering::Relaxed);
        }),
        n,
    )
}

/// Takes the count so far (and resets it).
fn take(n: &AtomicU64) -> u64 {
    n.swap(0, Ordering::Relaxed)
}

fn blocks(db: &Database, proc: Option<usize>) -> u64 {
    db.trace_index()
        .procs
        .iter()
        .filter(|p| proc.is_none_or(|x| x == p.proc))
        .map(|p| p.blocks.len() as u64)
        .sum()
}

fn trace_analyses_advance_once_per_block(name: &str) {
    let mut db = Database::open(db(name)).unwrap();
    let (hook, n) = counter();
    db.set_progress(hook);
    let all = blocks(&db, None);
    assert!(all > 0);

    let regions = Regions::load(&db);
    assert_eq!(take(&n), all, "{name}: regions");
    drop(regions);

    let everything = Selection { ranges: None };
    call_tree(&db, &everything, None);
    assert_eq!(take(&n), all, "{name}: call tree");
    let p0 = db.trace_index().procs[0].proc;
    call_tree(&db, &everything, Some(p0));
    assert_eq!(take(&n), blocks(&db, Some(p0)), "{name}: call tree of one");

    // Exclusive times over all processes, inclusive times of one in
    // the same pass.
    trace_summary(&db, &everything, p0);
    assert_eq!(take(&n), all, "{name}: trace summary");
}

fixture_tests!(trace_analyses_advance_once_per_block: flush, small4, single);

#[test]
fn comm_analyses_advance_once_per_process() {
    let mut db = Database::open(db("flush")).unwrap();
    let (hook, n) = counter();
    db.set_progress(hook);
    let procs = db.comm_index().procs.len() as u64;
    assert!(procs > 1);
    comm_stats(&db, &CommScope::everything());
    assert_eq!(take(&n), procs);
    // Processes left out by the selection count as done.
    let one = [db.comm_index().procs[0].proc];
    let scope = CommScope::new(one.to_vec(), CommSelection::all().window);
    let sel = scope.selection();
    comm_stats(&db, &scope);
    assert_eq!(take(&n), procs);
    crate::analysis::comm::sync::barriers(&db, &scope, true);
    assert_eq!(take(&n), procs);
    crate::analysis::comm::sync::send_matrix(&db, &scope);
    assert_eq!(take(&n), procs);
    crate::analysis::comm::pairs::pair_messages(&db, &sel, &mut |_| {});
    assert_eq!(take(&n), procs);
    crate::analysis::comm::timeline::comm_calls(&db, (f64::NEG_INFINITY, f64::INFINITY));
    assert_eq!(take(&n), procs);
    crate::analysis::comm::check::comm_check(&db);
    assert_eq!(take(&n), procs);
}

#[test]
fn tlog_reads_advance_by_blocks() {
    let path = tlog("np4.log");
    let mut t = TlogFile::open(&path).unwrap();
    let (hook, n) = counter();
    t.set_progress(hook);
    let per_proc: u64 = t.procs().map(|p| t.proc_blocks(p).len() as u64).sum();
    crate::analysis::tlog_summary::summarize(
        &t,
        &Default::default(),
        crate::analysis::tlog_summary::Trees::Skip,
    );
    assert_eq!(take(&n), per_proc);
    // The one-pass summary advances by the blocks of the opening scan.
    let (hook, scanned) = counter();
    let (opened, _) =
        crate::analysis::tlog_summary::open_and_summarize(&path, &Default::default(), &hook)
            .unwrap();
    assert_eq!(take(&scanned), opened.blocks() as u64);
    let mut sink = Vec::new();
    crate::report::tlog_dump::write_dump(
        &mut sink,
        &t,
        crate::report::tlog_dump::DumpStyle::TlogDump,
    )
    .unwrap();
    assert_eq!(take(&n), t.blocks() as u64);
}
