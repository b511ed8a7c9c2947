//! Late senders in the wrong order (Scalasca's "Late Sender, wrong order":
//! `PatternMPI_LateSenderWO` in its `MPI.pattern`): a receive waited for a
//! late message while a message sent before that one, by the same or
//! another sender, was already on its way and got received after it. Had
//! the receiver taken the messages in the order they were sent, it need not
//! have waited.
//!
//! ```text
//! sender A      |--- Send m1 (late) ---|
//! sender B   |- Send m2 -|
//! receiver  |== Recv from A (waits) ===|- Recv from B -|
//!               m2 sent before m1, received after it: wrong order
//! ```
//!
//! Per receiver the messages are taken in completion order, latest first
//! (an external sort: [`crate::external_sort`], 24 bytes a message within
//! [`BUDGET`]), keeping the earliest send of those completed after each
//! late-sender wait's own message: the wait is in the wrong order when it
//! is earlier than that message's send. Scalasca looks back over its last
//! 100 late senders only; this looks at all.

use std::cmp::Ordering;

use crate::external_sort::{Row, Sorter};

/// The memory the sort of the messages may take.
pub const BUDGET: usize = 16 << 20;

/// A message as its receiver completed it.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    to: u64,
    /// Completion on the receiver's clock, and the send's entry aligned.
    done: f64,
    sent: f64,
}

impl Arrival {
    /// Sorted by receiver, then latest completion first.
    fn order(&self, o: &Self) -> Ordering {
        (self.to.cmp(&o.to))
            .then(o.done.total_cmp(&self.done))
            .then(self.sent.total_cmp(&o.sent))
    }
}

impl Ord for Arrival {
    fn cmp(&self, o: &Self) -> Ordering {
        self.order(o)
    }
}
impl PartialOrd for Arrival {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl PartialEq for Arrival {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for Arrival {}

impl Row for Arrival {
    const BYTES: usize = 24;
    fn put(&self, out: &mut [u8]) {
        if out.len() == Self::BYTES {
            out[..8].copy_from_slice(&self.to.to_le_bytes());
            out[8..16].copy_from_slice(&self.done.to_le_bytes());
            out[16..].copy_from_slice(&self.sent.to_le_bytes());
        }
    }
    fn get(b: &[u8]) -> Self {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            if let Some(s) = b.get(i..i + 8) {
                w.copy_from_slice(s);
            }
            w
        };
        Arrival {
            to: u64::from_le_bytes(word(0)),
            done: f64::from_le_bytes(word(8)),
            sent: f64::from_le_bytes(word(16)),
        }
    }
}

/// The messages the receivers got, gathered from any thread.
pub struct Received {
    sorter: Sorter<Arrival>,
}

impl Default for Received {
    fn default() -> Self {
        Received {
            sorter: Sorter::new(BUDGET),
        }
    }
}

/// A message `to` completed at `done` (its own clock), sent at `sent`
/// (aligned), added to `batch` (handed to [`Received::take`] later).
pub fn arrival(batch: &mut Vec<Arrival>, to: usize, done: f64, sent: f64) {
    if done.is_finite() && sent.is_finite() {
        batch.push(Arrival {
            to: to as u64,
            done,
            sent,
        });
    }
}

impl Received {
    /// Takes the messages of `batch`, leaving it empty.
    pub fn take(&self, batch: &mut Vec<Arrival>) {
        self.sorter.push(batch);
    }

    /// For each late-sender wait (receiver, completion on its clock, its
    /// message's aligned send): whether the receiver later completed a
    /// message sent before that one. Also the temporary file's failure, if
    /// one made the answer incomplete or the sort stay in memory.
    pub fn wrong_order(self, waits: &[(usize, f64, f64)]) -> (Vec<bool>, Option<std::io::Error>) {
        let mut by_arrival: Vec<usize> = (0..waits.len()).collect();
        by_arrival.sort_unstable_by(|&a, &b| {
            let (x, y) = (&waits[a], &waits[b]);
            (x.0.cmp(&y.0)).then(y.1.total_cmp(&x.1))
        });
        let (mut rows, unwritten) = self.sorter.finish();
        let mut out = vec![false; waits.len()];
        // The receiver of the rows taken, and the earliest send among them.
        let (mut receiver, mut earliest) = (None, f64::INFINITY);
        let mut next = rows.next();
        for i in by_arrival {
            let (to, done, sent) = waits[i];
            let to = to as u64;
            while let Some(r) = next.filter(|r| r.to < to || (r.to == to && r.done > done)) {
                if receiver != Some(r.to) {
                    receiver = Some(r.to);
                    earliest = f64::INFINITY;
                }
                earliest = earliest.min(r.sent);
                next = rows.next();
            }
            out[i] = receiver == Some(to) && earliest < sent;
        }
        (out, rows.take_error().or(unwritten))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong(messages: &[(usize, f64, f64)], waits: &[(usize, f64, f64)]) -> Vec<bool> {
        let r = Received::default();
        let mut batch = Vec::new();
        for &(to, done, sent) in messages {
            arrival(&mut batch, to, done, sent);
        }
        r.take(&mut batch);
        r.wrong_order(waits).0
    }

    #[test]
    fn a_message_sent_earlier_and_received_later_makes_it_wrong_order() {
        // Receiver 1: m1 sent at 5, completed at 6; m2 sent at 2, completed
        // at 7 (after m1): waiting for m1 was waiting in the wrong order.
        // Receiver 2: in order.
        let messages = [(1, 6.0, 5.0), (1, 7.0, 2.0), (2, 6.0, 2.0), (2, 7.0, 5.0)];
        let waits = [(2, 6.0, 2.0), (1, 6.0, 5.0), (1, 7.0, 2.0)];
        // (The later message itself is not.)
        assert_eq!(wrong(&messages, &waits), vec![false, true, false]);
        // Completed together (one Waitall): not after.
        assert_eq!(
            wrong(&[(3, 6.0, 5.0), (3, 6.0, 2.0)], &[(3, 6.0, 5.0)]),
            vec![false]
        );
        // A receiver with no message after: no; another receiver's
        // messages do not count.
        assert_eq!(wrong(&[(4, 9.0, 1.0)], &[(5, 1.0, 5.0)]), vec![false]);
    }
}
