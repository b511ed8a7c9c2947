//! Integrity check of the communication data (amrprofparser `-check` intent,
//! done right: unused barrier slots are not read, barrier numbers continue
//! across flushed blocks, every problem names the file and offset).

use std::collections::BTreeMap;

use super::select::CommSelection;
use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{AFTER_CALL, BARRIER, BEFORE_CALL, CommBlock, NAME_TAG};
use crate::formats::blprof::database::{Database, ProcComm};

/// What was checked, and what failed.
#[derive(Debug, Default, serde::Serialize)]
pub struct CommCheck {
    pub procs: usize,
    pub blocks: usize,
    pub records: u64,
    pub barriers: u64,
    pub name_tags: u64,
    /// Problems found; empty = clean.
    pub problems: Vec<Warning>,
}

fn check_proc(db: &Database, p: &ProcComm) -> CommCheck {
    let mut r = CommCheck {
        procs: 1,
        ..Default::default()
    };
    let g = db.comm.as_ref();
    let (size, real) = (
        g.map_or(24, |h| h.record_size()),
        g.map_or(crate::formats::blprof::RealWidth::F64, |h| h.real_width()),
    );
    let mut last_seek: Option<(&str, u64)> = None;
    let mut last_time = f64::NEG_INFINITY;
    let mut last_barrier: Option<i64> = None;
    for b in &p.blocks {
        r.blocks += 1;
        let here = Location::line(&b.header, b.line);
        if let Some((file, pos)) = &last_seek
            && *file == &*b.datafile
            && b.seekpos < *pos
        {
            r.problems.push(Warning::new(here.clone(), format!("process {}: block at seekpos {} comes before the previous block of this process ({pos}) in {file}", p.proc, b.seekpos)));
        }
        last_seek = Some((&b.datafile, b.seekpos));
        let file = match db.comm_block_file(b) {
            Ok(f) => f,
            Err(e) => {
                r.problems
                    .push(Warning::new(here, format!("process {}: {e}", p.proc)));
                continue;
            }
        };
        let block = match CommBlock::read(&file, b, size, real) {
            Ok(x) => x,
            Err(e) => {
                r.problems.push(Warning::new(here, format!("{e}")));
                continue;
            }
        };
        let off = |i: usize| Location::offset(file.path(), b.seekpos + i as u64 * size);
        r.records += block.len() as u64;
        let mut tags_in_data = 0u64;
        let mut barriers_in_data = 0u64;
        for (i, rec) in block.records().enumerate() {
            if rec.time < last_time {
                r.problems.push(Warning::new(
                    off(i),
                    format!(
                        "process {}: time {} goes back from {last_time}",
                        p.proc, rec.time
                    ),
                ));
            }
            last_time = rec.time;
            if rec.kind == NAME_TAG {
                tags_in_data += 1;
            }
            if rec.kind == BARRIER && rec.peer == BEFORE_CALL {
                barriers_in_data += 1;
            }
        }
        if let Some((a, z)) = b.time_min_max
            && let (Some(first), Some(last)) = (block.get(0), block.get(block.len().saturating_sub(1)))
            // The header prints 16 significant digits: compare to that precision.
            && ((first.time - a).abs() > 1e-15 * a.abs() || (last.time - z).abs() > 1e-15 * z.abs())
        {
            r.problems.push(Warning::new(here.clone(), format!("process {}: timeMinMax {a} {z} differs from the first and last record times {} {}", p.proc, first.time, last.time)));
        }
        for bar in &b.barriers {
            r.barriers += 1;
            if let Some(prev) = last_barrier
                && bar.number <= prev
            {
                r.problems.push(Warning::new(
                    here.clone(),
                    format!(
                        "process {}: barrier number {} does not increase (previous {prev})",
                        p.proc, bar.number
                    ),
                ));
            }
            last_barrier = Some(bar.number);
            let i = bar.record_index;
            let (before, after) = match usize::try_from(i) {
                Ok(i) => (block.get(i), block.get(i + 1)),
                Err(_) => (None, None),
            };
            match (before, after) {
                (Some(x), Some(y)) => {
                    let ok = x.kind == BARRIER
                        && y.kind == BARRIER
                        && i64::from(x.tag) == bar.number
                        && i64::from(y.tag) == bar.number
                        && x.peer == BEFORE_CALL
                        && y.peer == AFTER_CALL;
                    if !ok {
                        r.problems.push(Warning::new(off(i as usize), format!(
                            "process {}: barrier {} {:?} (record {i}) is not a Barrier before/after pair: ({}, {}, {}, {}) ({}, {}, {}, {})",
                            p.proc, bar.number, bar.name, x.kind, x.size, x.peer, x.tag, y.kind, y.size, y.peer, y.tag
                        )));
                    }
                }
                _ => r.problems.push(Warning::new(here.clone(), format!(
                    "process {}: barrier {} {:?} points at record {i}, outside the block's {} records",
                    p.proc, bar.number, bar.name, block.len()
                ))),
            }
        }
        if barriers_in_data != b.barriers.len() as u64 {
            r.problems.push(Warning::new(
                here.clone(),
                format!(
                    "process {}: {} bNum lines but {barriers_in_data} Barrier before-records",
                    p.proc,
                    b.barriers.len()
                ),
            ));
        }
        r.name_tags += b.name_tags.len() as u64;
        if tags_in_data != b.name_tags.len() as u64 {
            r.problems.push(Warning::new(
                here,
                format!(
                    "process {}: {} nTag lines but {tags_in_data} NameTag records",
                    p.proc,
                    b.name_tags.len()
                ),
            ));
        }
    }
    r
}

/// Checks every process's blocks (in parallel, reported in process order),
/// plus the layout of each data file: blocks must not overlap.
pub fn comm_check(db: &Database) -> CommCheck {
    let index = db.comm_index();
    // Every block of every process, empty or not, whatever its times.
    let parts: Vec<CommCheck> = db
        .comm_blocks(&CommSelection::all())
        .map_procs(|p| check_proc(db, p.proc()));
    let mut total = CommCheck::default();
    for p in parts {
        total.procs += p.procs;
        total.blocks += p.blocks;
        total.records += p.records;
        total.barriers += p.barriers;
        total.name_tags += p.name_tags;
        total.problems.extend(p.problems);
    }
    let size = db.comm.as_ref().map_or(24, |h| h.record_size());
    let mut by_file: BTreeMap<&str, Vec<(u64, u64, &crate::formats::blprof::CommBlockRef)>> =
        BTreeMap::new();
    for p in &index.procs {
        for b in &p.blocks {
            let end = b.seekpos.saturating_add(b.ncomm.saturating_mul(size));
            by_file
                .entry(&b.datafile)
                .or_default()
                .push((b.seekpos, end, b));
        }
    }
    for (_, mut v) in by_file {
        v.sort_by_key(|x| (x.0, x.1));
        for w in v.windows(2) {
            if w[1].0 < w[0].1 {
                total.problems.push(Warning::new(
                    Location::line(&w[1].2.header, w[1].2.line),
                    format!("block of process {} at seekpos {} overlaps the block of process {} ending at {}", w[1].2.proc, w[1].0, w[0].2.proc, w[0].1),
                ));
            }
        }
    }
    total
}
