//! The route and latency to completion of every paired message, logged in
//! a temporary file as the pairing hands them on, so that counting the
//! messages early on other clocks ([`super::clocks`]'s residual) reads
//! them back instead of pairing the database again.
//!
//! A message is 16 bytes (sender and receiver as `u32`, latency as `f64`):
//! the file is a fraction of the comm data's size and memory stays at one
//! batch per writer whatever the number of messages.

use rustc_hash::FxHashMap;

use crate::spill::Spill;

/// Bytes of a logged message.
const MESSAGE_BYTES: usize = 16;

/// Messages logged, in batches appended as the pairing hands them on.
pub(super) struct LatencyLog {
    spill: Spill,
    /// Whether every message handed on is in the log (a write failed or a
    /// process number did not fit: the log cannot answer).
    complete: bool,
}

/// One pairing batch's messages, logged as [`LatencyLog::append`] gets them.
#[derive(Default)]
pub(super) struct Batch {
    bytes: Vec<u8>,
    messages: u64,
    /// A process number past `u32`: the batch cannot be logged.
    unloggable: bool,
}

impl Batch {
    /// Adds the message of route `from → to` with latency `latency`.
    pub(super) fn push(&mut self, from: usize, to: usize, latency: f64) {
        let (Ok(f), Ok(t)) = (u32::try_from(from), u32::try_from(to)) else {
            self.unloggable = true;
            return;
        };
        self.bytes.extend_from_slice(&f.to_le_bytes());
        self.bytes.extend_from_slice(&t.to_le_bytes());
        self.bytes.extend_from_slice(&latency.to_le_bytes());
        self.messages += 1;
    }
}

impl LatencyLog {
    /// An empty log for up to `messages` messages; `None` when its
    /// temporary file cannot be made or would not fit
    /// ([`crate::spill::check_room`]).
    pub(super) fn new(messages: u64) -> Option<Self> {
        crate::spill::check_room(messages.saturating_mul(MESSAGE_BYTES as u64)).ok()?;
        let spill = Spill::new(1).ok()?;
        Some(LatencyLog {
            spill,
            complete: true,
        })
    }

    /// Appends one batch.
    pub(super) fn append(&mut self, batch: &Batch) {
        if batch.unloggable || self.spill.append(0, &batch.bytes, batch.messages).is_err() {
            self.complete = false;
        }
    }

    /// Messages logged whose latency minus `offset_difference(route)` (the
    /// receiver's offset minus the sender's) is negative; `None` when the
    /// log is incomplete or cannot be read back.
    pub(super) fn count_early(
        &self,
        offset_difference: impl Fn(usize, usize) -> f64,
    ) -> Option<u64> {
        if !self.complete {
            return None;
        }
        // One difference per route, computed as a pair's would be.
        let mut routes: FxHashMap<(u32, u32), f64> = FxHashMap::default();
        let mut early = 0u64;
        self.spill
            .read(0, |chunk| {
                for m in chunk.chunks_exact(MESSAGE_BYTES) {
                    let word = |i: usize| [m[i], m[i + 1], m[i + 2], m[i + 3]];
                    let (from, to) = (u32::from_le_bytes(word(0)), u32::from_le_bytes(word(4)));
                    let mut l = [0u8; 8];
                    l.copy_from_slice(&m[8..16]);
                    let latency = f64::from_le_bytes(l);
                    let d = *routes
                        .entry((from, to))
                        .or_insert_with(|| offset_difference(from as usize, to as usize));
                    early += u64::from(latency - d < 0.0);
                }
            })
            .ok()?;
        Some(early)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_messages_early_under_route_differences() {
        let mut log = LatencyLog::new(10).unwrap();
        let mut b = Batch::default();
        b.push(0, 1, 0.5);
        b.push(0, 1, -0.25);
        b.push(1, 0, 0.125);
        log.append(&b);
        log.append(&Batch::default());
        assert_eq!(log.count_early(|_, _| 0.0), Some(1));
        // o_1 − o_0 = 0.375: 0.5 stays, −0.25 stays early; 1 → 0 gets
        // +0.375 and is not.
        let diff = |f: usize, t: usize| if (f, t) == (0, 1) { 0.375 } else { -0.375 };
        assert_eq!(log.count_early(diff), Some(1));
        assert_eq!(log.count_early(|_, _| 1.0), Some(3));
    }

    #[test]
    fn a_process_past_u32_makes_the_log_incomplete() {
        let mut log = LatencyLog::new(1).unwrap();
        let mut b = Batch::default();
        b.push(usize::MAX, 0, 1.0);
        log.append(&b);
        assert_eq!(log.count_early(|_, _| 0.0), None);
    }
}
