//! The nonblocking receives a process has open while its records are read
//! in order ([`super::pair_rows`]): a status of (source, tag) completes the
//! oldest receive of that key still waiting ([`super::completion`]).

use std::collections::VecDeque;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

/// Receives waiting for a status, in the order they were posted. A wait
/// returns its statuses in the order its requests were posted as a rule,
/// so a status most often completes the oldest receive of all: it is taken
/// off the front of the queue, without a table (a table of thousands of
/// receives, looked up in an order unlike the one it was filled in, misses
/// the cache at every status). A status for another key looks the key up
/// in an index of the queue, built when first needed and kept for the
/// receives already in it; a receive taken out of turn leaves a hole in
/// the queue, dropped when it reaches the front or when the holes are as
/// many as the receives.
pub(super) struct Waiting<T> {
    /// The receives in the order they were posted, with their keys
    /// (`None`: taken out of turn).
    queue: VecDeque<((i32, i32), Option<T>)>,
    /// The place of the queue's front among all the receives pushed (so
    /// that a place in the index stays one while the front moves).
    front: u64,
    /// The receives at places below it are in `index`.
    indexed: u64,
    /// The places of the receives indexed, per key oldest first.
    index: ByKey<u64>,
    /// Receives waiting (the queue less its holes).
    len: usize,
}

/// Bytes a receive of type `T` takes while it waits: its place in the
/// queue and a hole's (holes are dropped past one per receive and a few),
/// and its place in the index.
pub(super) const fn held_bytes<T>() -> usize {
    2 * std::mem::size_of::<((i32, i32), Option<T>)>() + ByKey::<u64>::HELD_BYTES
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            queue: VecDeque::new(),
            front: 0,
            indexed: 0,
            index: ByKey::default(),
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
        self.queue.push_back((key, Some(x)));
    }

    /// The oldest receive of `key`, taken off the queue.
    pub(super) fn pop(&mut self, key: (i32, i32)) -> Option<T> {
        if let Some((k, x)) = self.queue.front_mut()
            && *k == key
            && let Some(x) = x.take()
        {
            // The oldest of all: the oldest of its key.
            if self.front < self.indexed {
                self.index.pop(key);
            }
            self.len -= 1;
            self.drop_front_holes();
            return Some(x);
        }
        self.index_all();
        let place = self.index.pop(key)?;
        let x = (place.checked_sub(self.front))
            .and_then(|at| self.queue.get_mut(at as usize))
            .and_then(|(_, x)| x.take());
        self.len -= usize::from(x.is_some());
        self.drop_front_holes();
        if self.queue.len() > 2 * self.len + 64 {
            self.drop_holes();
        }
        x
    }

    /// Indexes the receives not indexed yet.
    fn index_all(&mut self) {
        let from = ((self.indexed.saturating_sub(self.front)) as usize).min(self.queue.len());
        for (i, (key, x)) in (from..).zip(self.queue.range(from..)) {
            if x.is_some() {
                self.index.push(*key, self.front + i as u64);
            }
        }
        self.indexed = self.front + self.queue.len() as u64;
    }

    fn drop_front_holes(&mut self) {
        while self.queue.front().is_some_and(|(_, x)| x.is_none()) {
            self.queue.pop_front();
            self.front += 1;
        }
        self.indexed = self.indexed.max(self.front);
    }

    /// Drops every hole: the places change, so the index is dropped too
    /// (built again when needed).
    fn drop_holes(&mut self) {
        self.queue.retain(|(_, x)| x.is_some());
        self.index = ByKey::default();
        self.indexed = self.front;
    }

    /// The receives still waiting, each with its key, in no order.
    pub(super) fn into_held(self) -> impl Iterator<Item = ((i32, i32), T)> {
        (self.queue.into_iter()).filter_map(|(key, x)| x.map(|x| (key, x)))
    }
}

/// Values per key, oldest first. AMReX tags each message anew (a key per
/// receive): a key's oldest value takes one small slot, the younger ones
/// of a key, rare, a table of their own, looked at only when it holds any.
struct ByKey<T> {
    oldest: FxHashMap<(i32, i32), T>,
    /// The younger values of the keys with more than one, in order (a key
    /// leaves it when it has one left).
    younger: FxHashMap<(i32, i32), VecDeque<T>>,
}

impl<T> ByKey<T> {
    /// Bytes a value takes: its slot, or its place in a list and at most
    /// the list's own.
    const HELD_BYTES: usize = std::mem::size_of::<((i32, i32), T)>()
        + std::mem::size_of::<((i32, i32), VecDeque<T>)>();

    fn push(&mut self, key: (i32, i32), x: T) {
        match self.oldest.entry(key) {
            Entry::Occupied(_) => self.younger.entry(key).or_default().push_back(x),
            Entry::Vacant(e) => {
                e.insert(x);
            }
        }
    }

    /// The oldest value of `key`, taken off its list.
    fn pop(&mut self, key: (i32, i32)) -> Option<T> {
        let Entry::Occupied(mut oldest) = self.oldest.entry(key) else {
            return None;
        };
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
}

impl<T> Default for ByKey<T> {
    fn default() -> Self {
        ByKey {
            oldest: FxHashMap::default(),
            younger: FxHashMap::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Xorshift;

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

    /// Statuses in posting order, out of it, for keys not waiting and
    /// for keys waiting twice, mixed at random: the receive taken is
    /// always the oldest of its key, as a search of every receive finds.
    #[test]
    fn pops_take_the_oldest_of_the_key_in_any_mix() {
        let mut rng = Xorshift::new(0x5851_f42d_4c95_7f2d);
        for keys in [3u64, 50, 5000] {
            let mut w = Waiting::default();
            let mut all: Vec<((i32, i32), u64)> = Vec::new();
            let mut next = 0u64;
            for step in 0..20_000 {
                let key = (rng.below(keys) as i32, (rng.below(keys) % 3) as i32);
                if rng.below(3) == 0 || all.is_empty() {
                    w.push(key, next);
                    all.push((key, next));
                    next += 1;
                    continue;
                }
                // Most often the oldest of all; else a key at random.
                let key = if rng.below(4) > 0 { all[0].0 } else { key };
                let want = all.iter().position(|(k, _)| *k == key).map(|i| all.remove(i).1);
                assert_eq!(w.pop(key), want, "{keys} keys, step {step}");
                assert_eq!(w.len(), all.len());
            }
            let mut rest: Vec<((i32, i32), u64)> = w.into_held().collect();
            rest.sort_unstable_by_key(|(_, x)| *x);
            assert_eq!(rest, all, "{keys} keys");
        }
    }
}
