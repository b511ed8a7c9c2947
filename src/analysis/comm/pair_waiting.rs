//! The nonblocking receives a process has open while its records are read
//! in order ([`super::pair_rows`]): a status of (source, tag) completes the
//! oldest receive of that key still waiting ([`super::completion`]).

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

/// Nonblocking receives no status has completed yet: per (source, tag) a
/// list, oldest first, through one pool of slots (AMReX tags each message
/// anew: a key per receive, which costs no allocation here). Up to
/// [`MAX_HELD`] receives are held whole, to be filed with their
/// completion; past it a receive is filed at once and its completion
/// follows as a row of its own (24 bytes a receive waiting, and the rows
/// held).
pub(super) struct Waiting<T> {
    /// (source, tag) → the first and the last slot of its list.
    keys: FxHashMap<(i32, i32), (usize, usize)>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    /// The receives held whole and their slots (unordered: a slot names
    /// its row).
    held: Vec<(T, usize)>,
}

/// Receives held whole per process (3.5 MB).
const MAX_HELD: usize = 64 * 1024;

#[derive(Clone, Copy)]
struct Slot {
    /// The receive's order, or its row in `held` (`held` true).
    order: u64,
    held: bool,
    next: usize,
}

/// A receive a status completes.
pub(super) enum Waited<T> {
    /// Held whole: to be filed with its completion.
    Held(T),
    /// Filed already, by its order.
    Filed(u64),
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            keys: FxHashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            held: Vec::new(),
        }
    }
}

impl<T> Waiting<T> {
    /// Adds nonblocking receive `x` of `key` (source, tag), the `order`-th
    /// receive of its process; gives it back when it is not held (to be
    /// filed now).
    pub(super) fn push(&mut self, key: (i32, i32), order: u64, x: T) -> Option<T> {
        let held = self.held.len() < MAX_HELD;
        let slot = Slot {
            order: if held { self.held.len() as u64 } else { order },
            held,
            next: usize::MAX,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        match self.keys.entry(key) {
            Entry::Occupied(mut e) => {
                let last = std::mem::replace(&mut e.get_mut().1, i);
                self.slots[last].next = i;
            }
            Entry::Vacant(e) => {
                e.insert((i, i));
            }
        }
        if held {
            self.held.push((x, i));
            return None;
        }
        Some(x)
    }

    /// The oldest receive of `key`, taken off its list.
    pub(super) fn pop(&mut self, key: (i32, i32)) -> Option<Waited<T>> {
        let Entry::Occupied(mut e) = self.keys.entry(key) else {
            return None;
        };
        let (first, last) = *e.get();
        let slot = self.slots[first];
        if first == last {
            e.remove();
        } else {
            e.get_mut().0 = slot.next;
        }
        self.free.push(first);
        if !slot.held {
            return Some(Waited::Filed(slot.order));
        }
        // (The last row held moves into the place taken: its slot follows.)
        let at = slot.order as usize;
        let (x, _) = self.held.swap_remove(at);
        if let Some(&(_, moved)) = self.held.get(at) {
            self.slots[moved].order = at as u64;
        }
        Some(Waited::Held(x))
    }

    /// The receives still held (no status completed them).
    pub(super) fn into_held(self) -> impl Iterator<Item = T> {
        self.held.into_iter().map(|(x, _)| x)
    }
}
