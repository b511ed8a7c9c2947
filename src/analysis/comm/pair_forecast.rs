//! Whether the message pairing can skip its counting pass: a few runs of
//! records spread over each process's blocks tell whom it sends to and
//! what share of its records are sends and receives.
//!
//! The pairing's first pass counts every process's sends and receives and
//! its peers, so that its cost model ([`WindowCost`]) can choose between
//! the windows and the hash join. A caller that takes the pairs in any
//! order can have the join file the records at once instead, when the
//! sample already shows that the windows would read more. The estimate
//! leans towards the windows: the peers seen are some of the process's
//! (the windows read their records), though the sends are scaled up from
//! the sample. A sample that does not show it leaves the choice to the
//! first pass.

use rayon::prelude::*;

use super::pair_join::JoinSizes;
use super::pair_window::{Peers, WindowCost};
use super::pairs::{Unit, is_paired_recv, is_paired_send, windows_of};
use super::select::CommSelection;
use crate::formats::blprof::database::{Database, ProcComm};

/// How much a sample reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct SampleSizes {
    /// Runs of records read per process, spread evenly over its records,
    /// and records per run.
    pub runs: u64,
    pub run: u64,
    /// The sample reads at most 1/`share` of all records (where the first
    /// pass costs little, it is not worth a guess); 0: any share.
    pub share: u64,
}

/// What the sample of one process found.
#[derive(Default)]
struct Sampled {
    /// Records of the process in the selection's blocks (headers' counts).
    records: u64,
    /// Records read, and the sends and receives (from a process) among them.
    read: u64,
    sends: u64,
    recvs: u64,
    peers: Peers,
}

impl Sampled {
    /// `n` of the sample scaled to the process's records.
    fn scaled(&self, n: u64) -> u64 {
        if self.read == 0 {
            return 0;
        }
        (u128::from(n) * u128::from(self.records) / u128::from(self.read))
            .try_into()
            .unwrap_or(u64::MAX)
    }
}

/// The sends and receives the join will file, estimated, when a sample of
/// every process shows the join reading less than the windows (of
/// `window_sends` sends) would; `None` when it does not show it, when the
/// sample would read too large a share, or when a block cannot be read.
pub(super) fn join_events(
    db: &Database,
    sel: &CommSelection<'_>,
    window_sends: usize,
    size: &JoinSizes,
    sample: SampleSizes,
) -> Option<u64> {
    let (runs, run) = (sample.runs.max(1), sample.run.max(1));
    let procs = &db.comm_index().procs;
    let records: Vec<u64> = procs
        .iter()
        .map(|p| sel.blocks(p).fold(0u64, |n, b| n.saturating_add(b.ncomm)))
        .collect();
    let every = records.iter().fold(0u64, |n, &r| n.saturating_add(r));
    let sampled_at_most = (procs.len() as u64).saturating_mul(runs.saturating_mul(run));
    // (The filing without a first pass ranks processes in 24 bits.)
    if procs.len() >= 1 << 24 || (sample.share > 0 && sampled_at_most > every / sample.share) {
        return None;
    }
    // (A process per task: on many threads the first pass is quick too.)
    let samples: Vec<Sampled> = procs
        .par_iter()
        .zip(&records)
        .map(|(p, &n)| sample_proc(db, sel, p, n, runs, run))
        .collect::<Option<_>>()?;
    // Each process as one unit of its estimated sends.
    let units: Vec<Unit> = procs
        .iter()
        .zip(&samples)
        .filter_map(|(p, s)| {
            Some(Unit {
                proc: p.proc,
                block: sel.blocks(p).next()?,
                first: 0,
                len: s.records,
                sends: s.scaled(s.sends),
            })
        })
        .filter(|u| u.sends > 0)
        .collect();
    let sends = units.iter().fold(0u64, |n, u| n.saturating_add(u.sends));
    let recvs = samples
        .iter()
        .fold(0u64, |n, s| n.saturating_add(s.scaled(s.recvs)));
    let events = sends.saturating_add(recvs);
    if size.event_cost == 0 {
        return Some(events);
    }
    let windows = windows_of(&units, window_sends);
    let position = db.comm_index().positions();
    let senders: Vec<(Peers, u64)> = samples
        .into_iter()
        .map(|s| {
            let recvs = s.scaled(s.recvs);
            (s.peers, recvs)
        })
        .collect();
    let cost = WindowCost {
        db,
        sel,
        units: &units,
        windows: &windows,
        senders: &senders,
        position: &position,
    };
    let (windows_read, every) = cost.records(recvs > sends, window_sends as u64);
    (windows_read > every.saturating_add(events.saturating_mul(size.event_cost))).then_some(events)
}

/// `runs` runs of `run` records of process `p` (`n` records in the
/// selection's blocks), spread evenly over them, a run going on into the
/// next blocks; `None` when a block cannot be read.
fn sample_proc(
    db: &Database,
    sel: &CommSelection<'_>,
    p: &ProcComm,
    n: u64,
    runs: u64,
    run: u64,
) -> Option<Sampled> {
    let mut s = Sampled {
        records: n,
        ..Sampled::default()
    };
    let blocks: Vec<_> = sel.blocks(p).collect();
    // Each block's first record in the process.
    let starts: Vec<u64> = blocks
        .iter()
        .scan(0u64, |at, b| {
            let first = *at;
            *at = at.saturating_add(b.ncomm);
            Some(first)
        })
        .collect();
    for k in 0..runs {
        // Run k starts at record k·n/runs.
        let mut at = (u128::from(k) * u128::from(n) / u128::from(runs)) as u64;
        let mut left = run;
        let mut i = starts
            .partition_point(|&first| first <= at)
            .saturating_sub(1);
        while left > 0 && i < blocks.len() {
            let b = blocks[i];
            let from = at.saturating_sub(starts[i]);
            let take = left.min(b.ncomm.saturating_sub(from));
            for r in db.comm_records(b).ok()?.part(from, take) {
                s.read += 1;
                if !sel.contains(r.time) {
                    continue;
                }
                if is_paired_send(&r) {
                    s.sends += 1;
                    s.peers.add(r.peer);
                } else if is_paired_recv(&r) && r.peer >= 0 {
                    s.recvs += 1;
                }
            }
            left -= take;
            at = at.saturating_add(take);
            i += 1;
        }
    }
    // (Records the header counts but the file does not hold: damage the
    // first pass reports.)
    if n > 0 && s.read == 0 {
        return None;
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn open(name: &str) -> Database {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        Database::open(dir.join(name).join("bl_prof")).unwrap()
    }

    const ALWAYS: JoinSizes = JoinSizes {
        partition: 1024,
        limit: u64::MAX,
        pending: 64,
        event_cost: 0,
    };

    /// A sample of every record forecasts the sends and receives the
    /// first pass counts; runs of a few records, about as many.
    #[test]
    fn a_sample_of_every_record_counts_the_events() {
        // (flush: several blocks per process, which runs go on into.)
        for name in ["amrlevel8", "small4", "nfiles2", "flush"] {
            let db = open(name);
            let sel = CommSelection::all();
            let mut exact = 0u64;
            for p in &db.comm_index().procs {
                for b in sel.blocks(p) {
                    for r in db.comm_records(b).unwrap() {
                        if is_paired_send(&r) || (is_paired_recv(&r) && r.peer >= 0) {
                            exact += 1;
                        }
                    }
                }
            }
            assert!(exact > 100, "{name}: {exact} events");
            let every = SampleSizes {
                runs: 1,
                run: u64::MAX,
                share: 0,
            };
            assert_eq!(join_events(&db, &sel, 1024, &ALWAYS, every), Some(exact));
            let runs = SampleSizes {
                runs: 16,
                run: 64,
                share: 0,
            };
            let guess = join_events(&db, &sel, 1024, &ALWAYS, runs).unwrap() as f64;
            let ratio = guess / exact as f64;
            assert!((0.5..2.0).contains(&ratio), "{name}: {guess} for {exact}");
            // A join that costs far more than reading: the windows.
            let dear = JoinSizes {
                event_cost: 1 << 30,
                ..ALWAYS
            };
            assert_eq!(join_events(&db, &sel, 1024, &dear, every), None, "{name}");
        }
    }

    /// Where the sample would read over its share of the records, or a
    /// block cannot be read, the first pass chooses.
    #[test]
    fn no_forecast_past_its_share_or_from_a_damaged_block() {
        let db = open("small4");
        let sel = CommSelection::all();
        let sample = SampleSizes {
            runs: 8,
            run: 2048,
            share: 16,
        };
        assert_eq!(join_events(&db, &sel, 1024, &ALWAYS, sample), None);
        let anything = SampleSizes { share: 0, ..sample };
        assert!(join_events(&db, &sel, 1024, &ALWAYS, anything).is_some());
        let dir = tempfile::tempdir().unwrap();
        for f in std::fs::read_dir(db.dir()).unwrap() {
            let f = f.unwrap().path();
            let to = dir.path().join(f.file_name().unwrap());
            if f.to_string_lossy().contains("comm_prof_D_00001") {
                continue;
            }
            std::fs::copy(&f, to).unwrap();
        }
        let damaged = Database::open(dir.path()).unwrap();
        assert_eq!(join_events(&damaged, &sel, 1024, &ALWAYS, anything), None);
    }
}
