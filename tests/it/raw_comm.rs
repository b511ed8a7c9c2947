//! A reader of comm profile records written from the format spec
//! (docs/BLPROF.md, /work/shared/docs/BLPROF_FORMAT.md §4.6, §4.7, §5.5,
//! §6.4.1) and nothing of the crate: an oracle for reports whose readers
//! share code (`comm time`, `comm stats` and `comm timeline` share their
//! call builder).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// One `CommStats` record.
#[derive(Debug, Clone, Copy)]
pub struct Record {
    pub kind: i32,
    pub size: i32,
    pub peer: i32,
    pub tag: i32,
    pub time: f64,
}

/// The sentinels of §6.4.1.
const BEFORE_CALL: i32 = -5;
const AFTER_CALL: i32 = -7;
const NAME_TAG: i32 = 27;

/// Every comm block of `dir` per process (`rank → blocks`, each block its
/// records in file order; a process's blocks in header order).
pub fn blocks(dir: &Path) -> BTreeMap<u64, Vec<Vec<Record>>> {
    let global = fs::read_to_string(dir.join("bl_comm_prof_H")).unwrap();
    let stride: usize = value_after(&global, "CommStatsSize")
        .unwrap_or_else(|| panic!("{}: no CommStatsSize", dir.display()))
        .parse()
        .unwrap();
    assert!(stride == 24 || stride == 20, "CommStatsSize {stride}");
    let mut per_file: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bl_comm_prof_H_"))
        .collect();
    per_file.sort();
    assert!(
        !per_file.is_empty(),
        "{}: no per-file header",
        dir.display()
    );
    let mut out: BTreeMap<u64, Vec<Vec<Record>>> = BTreeMap::new();
    for header in per_file {
        let text = fs::read_to_string(dir.join(&header)).unwrap();
        for line in text.lines() {
            // CommProfProc <rank> nCommStats <n> datafile <file> seekpos <byte> <node>
            let w: Vec<&str> = line.split_whitespace().collect();
            if w.first() != Some(&"CommProfProc") {
                continue;
            }
            assert!(
                w.len() >= 8 && w[2] == "nCommStats" && w[4] == "datafile" && w[6] == "seekpos",
                "{header}: {line}"
            );
            let (rank, n, seek): (u64, usize, usize) = (
                w[1].parse().unwrap(),
                w[3].parse().unwrap(),
                w[7].parse().unwrap(),
            );
            let data = fs::read(dir.join(w[5])).unwrap();
            let bytes = &data[seek..seek + n * stride];
            let block = bytes
                .chunks_exact(stride)
                .map(|r| record(r, stride))
                .collect();
            out.entry(rank).or_default().push(block);
        }
    }
    out
}

fn value_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some(key)).then(|| w.next()).flatten()
    })
}

/// Four native-endian ints, then the time stamp as f64 (24-byte records)
/// or f32 (20-byte records).
fn record(r: &[u8], stride: usize) -> Record {
    let int = |i: usize| i32::from_ne_bytes(r[4 * i..4 * i + 4].try_into().unwrap());
    let time = if stride == 24 {
        f64::from_ne_bytes(r[16..24].try_into().unwrap())
    } else {
        f64::from(f32::from_ne_bytes(r[16..20].try_into().unwrap()))
    };
    Record {
        kind: int(0),
        size: int(1),
        peer: int(2),
        tag: int(3),
        time,
    }
}

/// MPI calls and seconds of one call type in one process.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sums {
    pub calls: u64,
    pub seconds: f64,
}

/// How far a type's current call has come (§6.4.1's record patterns).
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    /// `[before]` seen: its data or after record ends the call.
    Before(f64),
    /// A data record that an after record may end (a send, a probe), or a
    /// call of that one record.
    Data(f64),
    /// A `[before] … [data]` call ended; more data records are its
    /// statuses (Waitall, Waitsome).
    Statuses,
}

/// Calls and seconds per (process, call type) from the records of
/// [`blocks`]. A wrapper writes, per call, `[before] [data]`, `[before]
/// [after]` or `[data] [after]`, Waitall and Waitsome one data record per
/// status after the first; `before` holds −5 and `after` −7 in some
/// field. A data record nothing ends, and a NameTag, is a call of no
/// time. Calls end within their block (a flush comes between calls).
pub fn mpi_seconds(blocks: &BTreeMap<u64, Vec<Vec<Record>>>) -> BTreeMap<(u64, i32), Sums> {
    let mut out: BTreeMap<(u64, i32), Sums> = BTreeMap::new();
    for (&rank, proc_blocks) in blocks {
        for block in proc_blocks {
            let mut stage: BTreeMap<i32, Stage> = BTreeMap::new();
            let mut call = |kind: i32, seconds: f64| {
                let s = out.entry((rank, kind)).or_default();
                s.calls += 1;
                s.seconds += seconds;
            };
            for r in block {
                let has = |v: i32| [r.size, r.peer, r.tag].contains(&v);
                if r.kind == NAME_TAG {
                    call(r.kind, 0.0);
                } else if has(AFTER_CALL) {
                    match stage.remove(&r.kind) {
                        Some(Stage::Before(t) | Stage::Data(t)) => call(r.kind, r.time - t),
                        Some(Stage::Statuses) | None => {}
                    }
                } else if has(BEFORE_CALL) {
                    if let Some(Stage::Before(_) | Stage::Data(_)) = stage.get(&r.kind) {
                        call(r.kind, 0.0);
                    }
                    stage.insert(r.kind, Stage::Before(r.time));
                } else {
                    match stage.get(&r.kind).copied() {
                        Some(Stage::Before(t)) => {
                            call(r.kind, r.time - t);
                            stage.insert(r.kind, Stage::Statuses);
                        }
                        Some(Stage::Statuses) => {}
                        Some(Stage::Data(_)) => {
                            call(r.kind, 0.0);
                            stage.insert(r.kind, Stage::Data(r.time));
                        }
                        None => {
                            stage.insert(r.kind, Stage::Data(r.time));
                        }
                    }
                }
            }
            // Calls still open at the block's end: one record, no time.
            for (kind, s) in stage {
                if s != Stage::Statuses {
                    call(kind, 0.0);
                }
            }
        }
    }
    out
}
