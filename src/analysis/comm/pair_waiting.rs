//! The nonblocking receives a process has open while its records are read
//! in order ([`super::pair_rows`]): a status of (source, tag) completes the
//! oldest receive of that key still waiting ([`super::completion`]).

use std::collections::VecDeque;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

/// Receives waiting for a status, per (source, tag) oldest first. The
/// oldest is kept in the table itself: AMReX tags each message anew (a key
/// per receive), and thousands wait at once, so a status finds its receive
/// in the one place it looks up (no list to follow, no allocation).
pub(super) struct Waiting<T> {
    keys: FxHashMap<(i32, i32), Held<T>>,
    len: usize,
}

/// A key's receives: the oldest, and the younger ones in order.
struct Held<T> {
    oldest: T,
    younger: VecDeque<T>,
}

/// Bytes a receive of type `T` takes while it waits.
pub(super) const fn held_bytes<T>() -> usize {
    std::mem::size_of::<((i32, i32), Held<T>)>()
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            keys: FxHashMap::default(),
            len: 0,
        }
    }
}

impl<T> Waiting<T> {
    /// Receives waiting.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds receive `x` of `key` (source, tag).
    pub(super) fn push(&mut self, key: (i32, i32), x: T) {
        self.len += 1;
        match self.keys.entry(key) {
            Entry::Occupied(mut e) => e.get_mut().younger.push_back(x),
            Entry::Vacant(e) => {
                e.insert(Held {
                    oldest: x,
                    younger: VecDeque::new(),
                });
            }
        }
    }

    /// The oldest receive of `key`, taken off its list.
    pub(super) fn pop(&mut self, key: (i32, i32)) -> Option<T> {
        let Entry::Occupied(mut e) = self.keys.entry(key) else {
            return None;
        };
        self.len -= 1;
        let held = e.get_mut();
        match held.younger.pop_front() {
            Some(next) => Some(std::mem::replace(&mut held.oldest, next)),
            None => Some(e.remove().oldest),
        }
    }

    /// The receives still waiting, in no order.
    pub(super) fn into_held(self) -> impl Iterator<Item = T> {
        (self.keys.into_values()).flat_map(|h| std::iter::once(h.oldest).chain(h.younger))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key's receives come off oldest first, whatever the other keys
    /// do; the rest are all still there at the end.
    #[test]
    fn a_key_gives_its_oldest_receive_first() {
        let mut w = Waiting::default();
        for i in 0..6 {
            w.push((i % 2, 7), i);
        }
        w.push((5, 5), 100);
        assert_eq!(w.len(), 7);
        assert_eq!(w.pop((1, 7)), Some(1));
        assert_eq!(w.pop((0, 7)), Some(0));
        assert_eq!(w.pop((1, 7)), Some(3));
        assert_eq!(w.pop((9, 9)), None);
        w.push((1, 7), 6);
        assert_eq!(w.pop((1, 7)), Some(5));
        assert_eq!(w.pop((1, 7)), Some(6));
        assert_eq!(w.pop((1, 7)), None);
        assert_eq!(w.pop((5, 5)), Some(100));
        assert_eq!(w.len(), 2);
        let mut rest: Vec<i32> = w.into_held().collect();
        rest.sort_unstable();
        assert_eq!(rest, [2, 4]);
    }
}
