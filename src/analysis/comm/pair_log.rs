//! The pairs the wait states read, logged in a temporary file as the clock
//! estimate's pairing hands them on, so that `comm waits --align-clocks`
//! replays them instead of pairing the database a second time
//! ([`super::waits`]). A replay hands the pairs on in the chunks the
//! pairing made, in its order, so every sum over them is made in the same
//! order as after a second pairing.
//!
//! A pair is 48 bytes (the fields of [`PairTimes`]): memory stays at one
//! chunk per writer whatever the number of pairs.

use super::pairs::Pair;
use crate::error::{Location, Warning};
use crate::spill::Spill;

/// Bytes of a logged pair.
const PAIR_BYTES: usize = 48;

/// Chunks read ahead of the replay's parallel tasks.
const CHUNKS_AHEAD: usize = 4;

/// Chunks per thread made at a time in a replay.
const CHUNKS_PER_THREAD: usize = 2;

/// What the wait states read of a pair (the fields of [`Pair`] they use).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PairTimes {
    pub from: usize,
    pub to: usize,
    pub send_time: f64,
    pub recv_time: f64,
    pub completed_time: Option<f64>,
    pub wait_entry: Option<f64>,
    pub wait_kind: i32,
}

impl From<&Pair> for PairTimes {
    fn from(p: &Pair) -> Self {
        PairTimes {
            from: p.from,
            to: p.to,
            send_time: p.send_time,
            recv_time: p.recv_time,
            completed_time: p.completed_time,
            wait_entry: p.wait_entry,
            wait_kind: p.wait_kind,
        }
    }
}

/// One chunk of the pairing's pairs, logged as [`PairLog::append`] gets it.
#[derive(Default)]
pub(super) struct Chunk {
    bytes: Vec<u8>,
    pairs: u64,
    /// A process number past `u32`: the chunk cannot be logged.
    unloggable: bool,
}

impl Chunk {
    /// Adds pair `p`.
    pub(super) fn push(&mut self, p: &Pair) {
        let (Ok(from), Ok(to)) = (u32::try_from(p.from), u32::try_from(p.to)) else {
            self.unloggable = true;
            return;
        };
        let flags = u32::from(p.completed_time.is_some()) | u32::from(p.wait_entry.is_some()) << 1;
        let b = &mut self.bytes;
        b.extend_from_slice(&from.to_le_bytes());
        b.extend_from_slice(&to.to_le_bytes());
        b.extend_from_slice(&p.wait_kind.to_le_bytes());
        b.extend_from_slice(&flags.to_le_bytes());
        for t in [
            p.send_time,
            p.recv_time,
            p.completed_time.unwrap_or(0.0),
            p.wait_entry.unwrap_or(0.0),
        ] {
            b.extend_from_slice(&t.to_le_bytes());
        }
        self.pairs += 1;
    }
}

/// The pair logged in `b` (`PAIR_BYTES` long).
fn decode(b: &[u8]) -> PairTimes {
    let word = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
    let float = |i: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[i..i + 8]);
        f64::from_le_bytes(x)
    };
    let flags = u32::from_le_bytes(word(12));
    PairTimes {
        from: u32::from_le_bytes(word(0)) as usize,
        to: u32::from_le_bytes(word(4)) as usize,
        wait_kind: i32::from_le_bytes(word(8)),
        send_time: float(16),
        recv_time: float(24),
        completed_time: (flags & 1 != 0).then(|| float(32)),
        wait_entry: (flags & 2 != 0).then(|| float(40)),
    }
}

/// Every pair of one pairing, chunk after chunk, and the pairing's
/// warnings.
pub(crate) struct PairLog {
    spill: Spill,
    /// Whether every pair handed on is in the log (a write failed or a
    /// process number did not fit: the log cannot stand for the pairing).
    complete: bool,
    warnings: Vec<Warning>,
}

impl std::fmt::Debug for PairLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairLog")
            .field("pairs", &self.spill.records(0))
            .finish_non_exhaustive()
    }
}

impl PairLog {
    /// An empty log of the pairing of `records` comm records; `None` when
    /// its temporary file cannot be made or would not fit
    /// ([`crate::spill::check_room`]).
    pub(super) fn new(records: u64) -> Option<Self> {
        // A pair takes two records.
        crate::spill::check_room((records / 2).saturating_mul(PAIR_BYTES as u64)).ok()?;
        let spill = Spill::new(1).ok()?;
        Some(PairLog {
            spill,
            complete: true,
            warnings: Vec::new(),
        })
    }

    /// Appends one chunk, as one chunk of the replay.
    pub(super) fn append(&mut self, chunk: &Chunk) {
        if chunk.unloggable || self.spill.append(0, &chunk.bytes, chunk.pairs).is_err() {
            self.complete = false;
        }
    }

    /// The log of a pairing done, which gave `warnings`; `None` when a
    /// pair is missing from it.
    pub(super) fn finish(mut self, warnings: &[Warning]) -> Option<Self> {
        self.warnings = warnings.to_vec();
        self.complete.then_some(self)
    }

    /// Hands the pairs on as the pairing did: a chunk made by `new` and
    /// `add` per chunk logged, to `emit` in their order. The chunks are
    /// made in parallel (as the pairing made them), read by a thread of
    /// their own ahead of them. Returns the pairing's warnings, and one
    /// more when the file cannot be read back (the pairs are then
    /// incomplete).
    pub(super) fn replay<C: Send>(
        &self,
        dir: &std::path::Path,
        new: impl Fn() -> C + Sync,
        add: impl Fn(&mut C, &PairTimes) + Sync,
        emit: &mut dyn FnMut(C),
    ) -> Vec<Warning> {
        let chunk_of = |bytes: &[u8]| {
            let mut chunk = new();
            for b in bytes.chunks_exact(PAIR_BYTES) {
                add(&mut chunk, &decode(b));
            }
            chunk
        };
        let read = std::thread::scope(|s| {
            let (logged, chunks) = std::sync::mpsc::sync_channel::<Vec<u8>>(CHUNKS_AHEAD);
            let reader = std::thread::Builder::new().spawn_scoped(s, move || {
                self.spill.read(0, |bytes| {
                    // (Not taken only if the replay below ended: nothing
                    // more is wanted.)
                    let _ = logged.send(bytes.to_vec());
                })
            });
            match reader {
                Ok(reader) => {
                    crate::parallel::Ordered::per_thread(CHUNKS_PER_THREAD)
                        .overlapped()
                        .for_each(chunks, |bytes| chunk_of(&bytes), &mut *emit);
                    reader
                        .join()
                        .unwrap_or_else(|_| Err(std::io::Error::other("the reading thread failed")))
                }
                // No thread to read ahead: read here, chunk after chunk.
                Err(_) => self.spill.read(0, |bytes| emit(chunk_of(bytes))),
            }
        });
        let mut warnings = self.warnings.clone();
        if let Err(e) = read {
            warnings.push(Warning::new(
                Location::file(dir),
                format!(
                    "message pairing: the temporary file of the pairs failed ({e}): the pairs \
                     and all counted from them are incomplete"
                ),
            ));
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(from: usize, to: usize, t: f64, done: Option<f64>, wait: Option<f64>) -> Pair {
        Pair {
            from,
            to,
            tag: 1,
            size: 8,
            send_time: t,
            recv_time: t + 1.0,
            latency: 1.0,
            completed_time: done,
            latency_to_completion: None,
            wait_entry: wait,
            wait_kind: 41,
        }
    }

    /// The replay gives every pair back, bit for bit, in the chunks and
    /// the order they were logged in.
    #[test]
    fn a_replay_hands_on_the_chunks_as_logged() {
        let chunks = [
            vec![
                pair(3, 1, 0.5, Some(2.0), Some(1.5)),
                pair(0, 2, f64::NAN, None, None),
            ],
            vec![pair(1, 0, -0.25, None, Some(0.0))],
            vec![pair(2, 3, 7.0, Some(f64::INFINITY), None)],
        ];
        let mut log = PairLog::new(100).unwrap();
        for c in &chunks {
            let mut chunk = Chunk::default();
            c.iter().for_each(|p| chunk.push(p));
            log.append(&chunk);
        }
        let w = Warning::new(Location::file("x"), "w".to_string());
        let log = log.finish(std::slice::from_ref(&w)).unwrap();
        let mut got = Vec::new();
        let warnings = log.replay(
            std::path::Path::new("x"),
            Vec::new,
            |c: &mut Vec<PairTimes>, p| c.push(*p),
            &mut |c| got.push(c),
        );
        let bits = |p: &PairTimes| {
            let t = |x: Option<f64>| x.map(f64::to_bits);
            (
                (p.from, p.to, p.wait_kind),
                (p.send_time.to_bits(), p.recv_time.to_bits()),
                (t(p.completed_time), t(p.wait_entry)),
            )
        };
        let want: Vec<Vec<_>> = (chunks.iter())
            .map(|c| c.iter().map(|p| bits(&PairTimes::from(p))).collect())
            .collect();
        let got: Vec<Vec<_>> = got.iter().map(|c| c.iter().map(bits).collect()).collect();
        assert_eq!(got, want);
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn a_process_past_u32_leaves_no_log() {
        let mut log = PairLog::new(10).unwrap();
        let mut chunk = Chunk::default();
        chunk.push(&pair(usize::MAX, 0, 1.0, None, None));
        log.append(&chunk);
        assert!(log.finish(&[]).is_none());
    }
}
