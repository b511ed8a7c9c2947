//! When a nonblocking receive completed: at the wait-family call that
//! returned its status.
//!
//! The records do not name requests. A nonblocking receive's post is
//! `[bytes, src, tag]`; a `Wait`, `Waitall`, `Waitany` or `Waitsome` writes
//! a before-record and then, after the MPI call returns, one status record
//! `[bytes, MPI_SOURCE, MPI_TAG]` per request (BLPROF_REAL_DATA.md §10);
//! a `Test` (and `Message::wait`'s `Wait`) writes `[x, peer, tag]` before
//! the call and `[flag, −7, tag]` after it. So a receive is tied to a
//! status by its source and tag: on each process, a status with source `s`
//! and tag `t` completes the oldest receive from `s` with tag `t` posted
//! before it and not completed yet (MPI does not overtake messages of one
//! sender and tag, and a receive's request cannot complete before its
//! post). Its completion time is the wait's exit: its first status record,
//! or the after-record of a `Test` whose flag is 1.
//!
//! Limits: `Waitsome` writes a slot for every request passed in, so stale
//! slots repeat earlier statuses and empty ones read `[0, 0, 0]`; a stale
//! or empty slot completes a receive only when one with that source and tag
//! is waiting (a receive from process 0 with tag 0, or a new receive
//! posted between two `Waitsome` calls of one request list with a tag the
//! list had). A completed send's status names the sending process itself
//! (Open MPI): it can complete a receive only from the process itself.
//! Receives from `MPI_ANY_SOURCE` are never tied.

use crate::formats::blprof::commdata::{AFTER_CALL, BEFORE_CALL, CommRecord};

/// The wait-family types: Waitsome, Test, Wait, Waitall, Waitany.
const WAITS: [i32; 5] = [26, 39, 40, 41, 42];
const TEST: i32 = 39;

/// [`WAITS`] as a bit mask of types, for a test per record without a search.
const WAIT_MASK: u64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < WAITS.len() {
        m |= 1 << WAITS[i];
        i += 1;
    }
    m
};

/// True for the wait-family types (the records [`WaitTracker::push`] reads).
#[inline]
pub fn is_wait(kind: i32) -> bool {
    (0..64).contains(&kind) && WAIT_MASK & (1 << kind) != 0
}

/// True for the receive types whose record is written when the receive is
/// posted, not when it completes (types 10–13).
pub fn is_nonblocking_recv(kind: i32) -> bool {
    (10..=13).contains(&kind)
}

/// One wait type's state.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// When the call was entered (its first record).
    entry: f64,
    /// After a before-record: its statuses follow; the exit once seen.
    statuses: Option<Option<f64>>,
    /// A data record written before the call (Test, Message::wait): the
    /// peer and tag it waits for.
    before_call: Option<(i32, i32)>,
}

/// Reads one process's records in order and tells which (source, tag)
/// completes when.
#[derive(Debug, Default)]
pub struct WaitTracker {
    slots: [Slot; WAITS.len()],
    /// The entry and type of the wait whose completion `push` returned last.
    last: (f64, i32),
}

impl WaitTracker {
    /// The completion record `r` reports, if any: the (source, tag) of the
    /// status and the wait's exit time.
    #[inline]
    pub fn push(&mut self, r: &CommRecord) -> Option<((i32, i32), f64)> {
        if !is_wait(r.kind) {
            return None;
        }
        let i = WAITS.iter().position(|&k| k == r.kind)?;
        let slot = &mut self.slots[i];
        let has = |v: i32| r.size == v || r.peer == v || r.tag == v;
        let found = if has(BEFORE_CALL) {
            *slot = Slot {
                entry: r.time,
                statuses: Some(None),
                before_call: None,
            };
            None
        } else if has(AFTER_CALL) {
            let open = slot.before_call.take();
            slot.statuses = None;
            let done = r.kind != TEST || r.size == 1;
            open.filter(|(peer, _)| done && *peer >= 0)
                .map(|key| (key, r.time))
        } else if let Some(exit) = &mut slot.statuses {
            let exit = *exit.get_or_insert(r.time);
            (r.peer >= 0).then_some(((r.peer, r.tag), exit))
        } else {
            slot.before_call = Some((r.peer, r.tag));
            slot.entry = r.time;
            None
        };
        if found.is_some() {
            self.last = (slot.entry, r.kind);
        }
        found
    }

    /// The entry time and MPI type of the wait that completed the status
    /// `push` returned last (what a late sender made wait).
    #[inline]
    pub fn last_wait(&self) -> (f64, i32) {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: i32, size: i32, peer: i32, tag: i32, time: f64) -> CommRecord {
        CommRecord::of(kind, size, peer, tag, time)
    }

    #[test]
    fn the_mask_holds_the_wait_types_only() {
        let waits: Vec<i32> = (-10..100).filter(|&k| is_wait(k)).collect();
        assert_eq!(waits, WAITS);
    }

    #[test]
    fn statuses_complete_at_the_wait_s_exit() {
        let mut w = WaitTracker::default();
        assert_eq!(w.push(&rec(41, -5, -5, -3, 1.0)), None);
        assert_eq!(w.push(&rec(41, 512, 2, 7, 2.0)), Some(((2, 7), 2.0)));
        assert_eq!(w.push(&rec(41, 512, 3, 8, 2.1)), Some(((3, 8), 2.0)));
        // Not a wait type.
        assert_eq!(w.push(&rec(11, 512, 3, 8, 2.2)), None);
        // Waitsome's empty slot reads (0, 0, 0): a status from 0, tag 0.
        assert_eq!(w.push(&rec(26, -5, -5, -3, 3.0)), None);
        assert_eq!(w.push(&rec(26, 0, 0, 0, 3.5)), Some(((0, 0), 3.5)));
    }

    #[test]
    fn a_test_completes_only_when_its_flag_says_so() {
        let mut w = WaitTracker::default();
        assert_eq!(w.push(&rec(39, 8, 1, 5, 1.0)), None);
        assert_eq!(w.push(&rec(39, 0, -7, 5, 1.5)), None);
        assert_eq!(w.push(&rec(39, 8, 1, 5, 2.0)), None);
        assert_eq!(w.push(&rec(39, 1, -7, 5, 2.5)), Some(((1, 5), 2.5)));
        // Message::wait's Wait: data before the call, after-record at exit.
        assert_eq!(w.push(&rec(40, 8, 4, 9, 3.0)), None);
        assert_eq!(w.push(&rec(40, 8, -7, 9, 3.5)), Some(((4, 9), 3.5)));
    }
}
