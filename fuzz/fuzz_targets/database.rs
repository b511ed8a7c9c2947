//! A whole one-process bl_prof database built from the fuzz input, opened
//! with `Database::open` and run through the summary, regions, trace
//! summary, call tree, info and every comm analysis (statistics, barriers,
//! send matrix, message pairs, timeline, check, MPI time, clock offsets,
//! wait states).
//!
//! Input: chunks `file: u8` (mod 8, an index into `FILES`), `len: u16 LE`,
//! `len` bytes. A file no chunk names keeps its content from the `single`
//! fixture, so short inputs mutate one file of a valid database.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::base_summary::base_summary;
use profparse::analysis::calltree::call_tree;
use profparse::analysis::comm::check::comm_check;
use profparse::analysis::comm::clocks::estimate;
use profparse::analysis::comm::pairs::{pair_messages, pair_messages_in};
use profparse::analysis::comm::scope::CommScope;
use profparse::analysis::comm::select::CommSelection;
use profparse::analysis::comm::stats::comm_stats;
use profparse::analysis::comm::sync::{barriers, send_matrix};
use profparse::analysis::comm::time::{TimeOptions, mpi_time};
use profparse::analysis::comm::timeline::comm_calls;
use profparse::analysis::comm::waits::wait_states;
use profparse::analysis::filter::RegionFilter;
use profparse::analysis::info::database_info;
use profparse::analysis::regions::{Regions, region_stats};
use profparse::analysis::trace_summary::{Selection, trace_summary};
use profparse::formats::blprof::Database;

macro_rules! fixture {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!("../../fixtures/blprof/single/bl_prof/", $name)) as &[u8],
        )
    };
}

const FILES: [(&str, &[u8]); 8] = [
    fixture!("bl_prof_H"),
    fixture!("bl_prof_D_00000"),
    fixture!("bl_call_stats_H"),
    fixture!("bl_call_stats_H_00000"),
    fixture!("bl_call_stats_D_00000"),
    fixture!("bl_comm_prof_H"),
    fixture!("bl_comm_prof_H_00000"),
    fixture!("bl_comm_prof_D_00000"),
];

fn dir() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("profparse-fuzz-db-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let mut contents: Vec<&[u8]> = FILES.iter().map(|(_, c)| *c).collect();
    let mut rest = data;
    while rest.len() >= 3 {
        let file = (rest[0] % 8) as usize;
        let len = (u16::from_le_bytes([rest[1], rest[2]]) as usize).min(rest.len() - 3);
        contents[file] = &rest[3..3 + len];
        rest = &rest[3 + len..];
    }
    let dir = dir();
    for ((name, _), bytes) in FILES.iter().zip(contents) {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let Ok(db) = Database::open(dir) else { return };
    let _ = (db.warnings().len(), db.parts(), db.nprocs());
    let _ = database_info(&db);
    let mut warnings = Vec::new();
    if let Ok(profile) = db.base_profile(&mut warnings) {
        if !profile.is_empty() {
            let _ = base_summary(&profile, 0);
        }
    }
    let regions = Regions::load(&db);
    let _ = region_stats(&regions);
    let all = Selection { ranges: None };
    let _ = trace_summary(&db, &all, 0);
    let filter = RegionFilter::from_names(&[], &["RComm".into()]);
    if let Ok(ranges) = filter.time_ranges(&regions) {
        let sel = Selection {
            ranges: Some(ranges),
        };
        let _ = trace_summary(&db, &sel, 0);
        let _ = call_tree(&db, &sel, None);
    }
    let _ = call_tree(&db, &all, Some(0));
    let all = CommSelection::all();
    let everything = CommScope::everything();
    let _ = comm_stats(&db, &everything);
    let _ = barriers(&db, &everything, true);
    let _ = barriers(&db, &everything, false);
    let _ = send_matrix(&db, &everything);
    let _ = pair_messages(&db, &all, &mut |_| {});
    let _ = comm_calls(&db, (0.0, 1.0));
    // The comm reports under a region filter (`--exclude-region RComm`).
    let mut filtered = CommScope::everything();
    if filtered.filter_regions(&filter, &regions).is_ok() {
        let _ = comm_stats(&db, &filtered);
        let _ = barriers(&db, &filtered, true);
        let _ = send_matrix(&db, &filtered);
        let (sel, r) = (filtered.selection(), filtered.ranges());
        let _ = pair_messages_in(&db, &sel, r, || (), |_, _| {}, &mut |_| {});
        let opts = TimeOptions {
            regions: Some(&regions),
            paths: true,
        };
        let _ = mpi_time(&db, &filtered, &opts);
    }
    // (The estimate counts the messages early on its clocks too.)
    let (offsets, _) = estimate(&db);
    let mut aligned = CommScope::everything();
    aligned.align_clocks(offsets);
    let _ = wait_states(&db, &aligned, 10, true);
    let _ = comm_check(&db);
});
