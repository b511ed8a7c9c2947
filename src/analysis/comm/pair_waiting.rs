//! The nonblocking receives a process has open while its records are read
//! in order ([`super::pair_rows`]): a status of (source, tag) completes the
//! oldest receive of that key still waiting ([`super::completion`]).

use std::collections::VecDeque;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

/// Receives waiting for a status, per (source, tag) oldest first. AMReX
/// tags each message anew (a key per receive) and thousands wait at once:
/// a status looks up one small slot (the key and the oldest receive), so
/// the table stays in cache. The younger receives of a key, rare, wait in
/// a table of their own, looked at only when it holds any.
pub(super) struct Waiting<T> {
    oldest: FxHashMap<(i32, i32), T>,
    /// The younger receives of the keys with more than one waiting, in
    /// order (a key leaves it when it has one left).
    younger: FxHashMap<(i32, i32), VecDeque<T>>,
    len: usize,
}

/// Bytes a receive of type `T` takes while it waits: its slot, or its
/// place in a list and at most the list's own.
pub(super) const fn held_bytes<T>() -> usize {
    std::mem::size_of::<((i32, i32), T)>() + std::mem::size_of::<((i32, i32), VecDeque<T>)>()
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            oldest: FxHashMap::default(),
            younger: FxHashMap::default(),
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
        match self.oldest.entry(key) {
            Entry::Occupied(_) => self.younger.entry(key).or_default().push_back(x),
            Entry::Vacant(e) => {
                e.insert(x);
            }
        }
    }

    /// The oldest receive of `key`, taken off its list.
    pub(super) fn pop(&mut self, key: (i32, i32)) -> Option<T> {
        let Entry::Occupied(mut oldest) = self.oldest.entry(key) else {
            return None;
        };
        self.len -= 1;
        if !self.younger.is_empty()
            && let Entry::Occupied(mut younger) = self.younger.entry(key)
            && let Some(next) = younger.get_mut().pop_front()
        {
            if younger.get().is_empty() {
                younger.remove();
            }
            return Some(std::mem::replace(oldest.get_mut(), next));
        }
        Some(oldest.remove())
    }

    /// The receives still waiting, each with its key, in no order.
    pub(super) fn into_held(self) -> impl Iterator<Item = ((i32, i32), T)> {
        let younger = (self.younger.into_iter()).flat_map(|(k, xs)| xs.into_iter().map(move |x| (k, x)));
        self.oldest.into_iter().chain(younger)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key's receives come off oldest first, whatever the other keys
    /// do; the rest are all still there at the end, with their keys.
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
        // A key emptied takes receives anew.
        w.push((1, 7), 8);
        w.push((1, 7), 9);
        assert_eq!(w.pop((1, 7)), Some(8));
        assert_eq!(w.pop((5, 5)), Some(100));
        assert_eq!(w.len(), 3);
        let mut rest: Vec<((i32, i32), i32)> = w.into_held().collect();
        rest.sort_unstable();
        assert_eq!(rest, [((0, 7), 2), ((0, 7), 4), ((1, 7), 9)]);
    }
}
