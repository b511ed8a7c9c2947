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
//! Per receiver this keeps every received message's (completion on the
//! receiver's clock, aligned send entry), 16 bytes a message, sorted by
//! completion; a late-sender wait is in the wrong order when a message
//! completed after its own was sent before its own (a suffix minimum).
//! Scalasca looks back over its last 100 late senders only; this looks at
//! all.

use rustc_hash::FxHashMap;

/// The messages each receiver got: (raw completion, aligned send entry).
#[derive(Default)]
pub struct Received {
    by_receiver: FxHashMap<usize, Vec<(f64, f64)>>,
}

/// Per receiver: completions in order, and the earliest send of the
/// messages completed from each index on.
pub struct ReceiveOrder {
    by_receiver: FxHashMap<usize, (Vec<f64>, Vec<f64>)>,
}

impl Received {
    /// A message `to` completed at `done` (its own clock), sent at `sent`
    /// (aligned).
    pub fn add(&mut self, to: usize, done: f64, sent: f64) {
        if done.is_finite() && sent.is_finite() {
            self.by_receiver.entry(to).or_default().push((done, sent));
        }
    }

    /// Merges another part's messages.
    pub fn merge(&mut self, other: Received) {
        for (to, v) in other.by_receiver {
            let mine = self.by_receiver.entry(to).or_default();
            if mine.is_empty() {
                *mine = v;
            } else {
                mine.extend(v);
            }
        }
    }

    /// Sorts each receiver's messages by completion.
    pub fn into_order(self) -> ReceiveOrder {
        let by_receiver = self
            .by_receiver
            .into_iter()
            .map(|(to, mut v)| {
                // (Equal completions in any order: the minimum is the same.)
                v.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
                let done: Vec<f64> = v.iter().map(|x| x.0).collect();
                let mut earliest = vec![f64::INFINITY; v.len()];
                let mut min = f64::INFINITY;
                for (i, x) in v.iter().enumerate().rev() {
                    min = min.min(x.1);
                    earliest[i] = min;
                }
                (to, (done, earliest))
            })
            .collect();
        ReceiveOrder { by_receiver }
    }
}

impl ReceiveOrder {
    /// Whether receiver `to`, whose receive of a message sent at `sent`
    /// (aligned) completed at `done` (its clock), later received a message
    /// sent before it.
    pub fn wrong_order(&self, to: usize, done: f64, sent: f64) -> bool {
        let Some((dones, earliest)) = self.by_receiver.get(&to) else {
            return false;
        };
        let after = dones.partition_point(|&d| d <= done);
        earliest.get(after).is_some_and(|&e| e < sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_sent_earlier_and_received_later_makes_it_wrong_order() {
        let mut r = Received::default();
        // Receiver 1: m1 sent at 5, completed at 6; m2 sent at 2, completed
        // at 7 (after m1): waiting for m1 was waiting in the wrong order.
        r.add(1, 6.0, 5.0);
        r.add(1, 7.0, 2.0);
        // Receiver 2: in order.
        r.add(2, 6.0, 2.0);
        r.add(2, 7.0, 5.0);
        let o = r.into_order();
        assert!(o.wrong_order(1, 6.0, 5.0));
        assert!(!o.wrong_order(2, 6.0, 2.0));
        // The later message itself is not.
        assert!(!o.wrong_order(1, 7.0, 2.0));
        // Completed together (one Waitall): not after.
        let mut r = Received::default();
        r.add(3, 6.0, 5.0);
        r.add(3, 6.0, 2.0);
        assert!(!r.into_order().wrong_order(3, 6.0, 5.0));
    }
}
