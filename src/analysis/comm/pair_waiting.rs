//! The nonblocking receives a process has open while its records are read
//! in order ([`super::pair_rows`]): a status of (source, tag) completes the
//! oldest receive of that key still waiting ([`super::completion`]).

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

/// Receives waiting for a status: per (source, tag) a list, oldest first,
/// through one pool of slots (AMReX tags each message anew: a key per
/// receive, which costs no allocation here).
pub(super) struct Waiting<T> {
    /// (source, tag) → the first and the last slot of its list.
    keys: FxHashMap<(i32, i32), (usize, usize)>,
    /// A receive and the next slot of its list.
    slots: Vec<(Option<T>, usize)>,
    free: Vec<usize>,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            keys: FxHashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Waiting<T> {
    /// Receives waiting.
    pub(super) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Adds receive `x` of `key` (source, tag).
    pub(super) fn push(&mut self, key: (i32, i32), x: T) {
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = (Some(x), usize::MAX);
                i
            }
            None => {
                self.slots.push((Some(x), usize::MAX));
                self.slots.len() - 1
            }
        };
        match self.keys.entry(key) {
            Entry::Occupied(mut e) => {
                let last = std::mem::replace(&mut e.get_mut().1, i);
                self.slots[last].1 = i;
            }
            Entry::Vacant(e) => {
                e.insert((i, i));
            }
        }
    }

    /// The oldest receive of `key`, taken off its list.
    pub(super) fn pop(&mut self, key: (i32, i32)) -> Option<T> {
        let Entry::Occupied(mut e) = self.keys.entry(key) else {
            return None;
        };
        let (first, last) = *e.get();
        let (x, next) = std::mem::replace(&mut self.slots[first], (None, usize::MAX));
        if first == last {
            e.remove();
        } else {
            e.get_mut().0 = next;
        }
        self.free.push(first);
        x
    }

    /// The receives still waiting, in no order.
    pub(super) fn into_held(self) -> impl Iterator<Item = T> {
        self.slots.into_iter().filter_map(|(x, _)| x)
    }
}
