//! Ordered parallel work: items mapped in parallel a bounded window at a
//! time, their results handed to a consumer in input order.
//!
//! The readers and writers that stream (dumps, exports, the message
//! pairing, long header files) all work this way: the output is the one of
//! a sequential pass whatever the number of threads, and memory holds one
//! window of results (two when windows overlap), however long the input.
//!
//! ```text
//! items    a b c d | e f g h | i j        windows of `Ordered::window()`
//! map      ║ ║ ║ ║   ║ ║ ║ ║   ║ ║        in parallel (rayon)
//! consume  a b c d   e f g h   i j        in order, on the calling thread
//! ```
//!
//! With [`Ordered::overlapped`], the calling thread hands on the results of
//! one window and gathers the items of the next while the window between
//! them is mapped.
//!
//! Its use: `Ordered::per_thread(2).run(items, map, consume)` (the tests
//! below, `results_in_input_order_with_bounded_windows`).

use rayon::prelude::*;

/// How [`Ordered::run`] cuts its items into windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordered {
    window: usize,
    overlap: bool,
}

impl Ordered {
    /// Windows of `n` items per thread of the current rayon pool (at least
    /// one item): enough tasks to keep every thread busy while one thread's
    /// task is longer than the others.
    pub fn per_thread(n: usize) -> Self {
        Ordered::window(n.saturating_mul(rayon::current_num_threads().max(1)))
    }

    /// Windows of `n` items (at least one).
    pub fn window(n: usize) -> Self {
        Ordered {
            window: n.max(1),
            overlap: false,
        }
    }

    /// Maps each window while the calling thread hands on the results of
    /// the window before and gathers the items of the window after it, so
    /// that neither waits for the other (two windows of results are held).
    /// Called from outside the pool, the calling thread only consumes and
    /// gathers: one thread more than the pool's, with a small share of the
    /// work.
    pub fn overlapped(self) -> Self {
        Ordered {
            overlap: true,
            ..self
        }
    }

    /// Items per window.
    pub fn window_len(&self) -> usize {
        self.window
    }

    /// Maps `items` with `map` in parallel, a window at a time, and gives
    /// the results to `consume` in the order of `items`. Items are drawn
    /// from the iterator (on the calling thread) only as windows need them,
    /// up to its first `None`.
    /// The first error of `consume` ends the run (the window being mapped,
    /// if any, is finished first) and is returned.
    pub fn run<T, R, E>(
        self,
        items: impl IntoIterator<Item = T>,
        map: impl Fn(T) -> R + Sync,
        mut consume: impl FnMut(R) -> Result<(), E>,
    ) -> Result<(), E>
    where
        T: Send,
        R: Send,
    {
        let mut items = items.into_iter().fuse();
        let mut gather = || -> Vec<T> { items.by_ref().take(self.window).collect() };
        if !self.overlap {
            let mut results = Vec::new();
            loop {
                let window = gather();
                if window.is_empty() {
                    return Ok(());
                }
                map_window_into(window, &map, &mut results);
                for r in results.drain(..) {
                    consume(r)?;
                }
            }
        }
        let mut current = gather();
        let mut before: Vec<R> = Vec::new();
        // The buffer of the window before last, emptied, for the next one.
        let mut spare: Vec<R> = Vec::new();
        while !current.is_empty() {
            let mut mapped = std::mem::take(&mut spare);
            let mut next = Vec::new();
            let mut failed = None;
            rayon::in_place_scope(|s| {
                let window = std::mem::take(&mut current);
                let mapped = &mut mapped;
                let map = &map;
                s.spawn(move |_| map_window_into(window, map, mapped));
                for r in before.drain(..) {
                    if let Err(e) = consume(r) {
                        failed = Some(e);
                        return;
                    }
                }
                next = gather();
            });
            if let Some(e) = failed {
                return Err(e);
            }
            spare = std::mem::replace(&mut before, mapped);
            current = next;
        }
        for r in before {
            consume(r)?;
        }
        Ok(())
    }
}

/// Maps `window` in parallel into `results` (emptied first), in order.
/// The caller keeps `results` from window to window: a window of results
/// can be megabytes (`comm stats`' counts of 2,048 processes), and a new
/// buffer per window was new pages to fault in each time (a fifteenth of
/// `comm stats` at 16,384 processes).
fn map_window_into<T: Send, R: Send>(
    window: Vec<T>,
    map: &(impl Fn(T) -> R + Sync),
    results: &mut Vec<R>,
) {
    window.into_par_iter().map(map).collect_into_vec(results);
}

impl Ordered {
    /// [`Ordered::run`] with a consumer that cannot fail.
    pub fn for_each<T, R>(
        self,
        items: impl IntoIterator<Item = T>,
        map: impl Fn(T) -> R + Sync,
        mut consume: impl FnMut(R),
    ) where
        T: Send,
        R: Send,
    {
        let done: Result<(), std::convert::Infallible> = self.run(items, map, |r| {
            consume(r);
            Ok(())
        });
        match done {
            Ok(()) => {}
            Err(never) => match never {},
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// The results come in input order for any thread count, window and
    /// overlap, and items are drawn only as windows need them: at most two
    /// windows ahead of the consumer (one being mapped, one gathered).
    #[test]
    fn results_in_input_order_with_bounded_windows() {
        for threads in [1, 2, 3, 5] {
            for window in [1, 2, 7, 64] {
                for overlap in [false, true] {
                    let drawn = AtomicUsize::new(0);
                    let mut ordered = Ordered::window(window);
                    if overlap {
                        ordered = ordered.overlapped();
                    }
                    let items = (0..200u64).inspect(|_| {
                        drawn.fetch_add(1, Ordering::Relaxed);
                    });
                    let mut out = Vec::new();
                    pool(threads)
                        .install(|| {
                            ordered.run(
                                items,
                                |x| (x, x * 3),
                                |(x, y)| -> Result<(), ()> {
                                    let ahead = drawn.load(Ordering::Relaxed) - x as usize;
                                    let most = if overlap { 3 * window } else { window };
                                    assert!(ahead <= most, "{ahead} drawn ahead");
                                    out.push(y);
                                    Ok(())
                                },
                            )
                        })
                        .unwrap();
                    let expected: Vec<u64> = (0..200).map(|x| x * 3).collect();
                    assert_eq!(out, expected, "{threads} threads, window {window}");
                }
            }
        }
    }

    /// The consumer's first error ends the run: nothing after it is consumed.
    #[test]
    fn the_first_error_ends_the_run() {
        for overlap in [false, true] {
            let mut ordered = Ordered::window(4);
            if overlap {
                ordered = ordered.overlapped();
            }
            let mut seen = Vec::new();
            let r = ordered.run(
                0..100,
                |x| x,
                |x| {
                    if x == 9 {
                        return Err(x);
                    }
                    seen.push(x);
                    Ok(())
                },
            );
            assert_eq!(r, Err(9));
            assert_eq!(seen, (0..9).collect::<Vec<_>>());
        }
    }

    /// A window's results go into the buffer of an earlier window.
    #[test]
    fn result_buffers_are_reused() {
        let mut results = Vec::new();
        map_window_into((0..1000u64).collect(), &|x| x * 2, &mut results);
        let buffer = results.as_ptr();
        map_window_into((0..1000u64).collect(), &|x| x + 1, &mut results);
        assert_eq!(results.as_ptr(), buffer);
        assert_eq!(results, (1..1001).collect::<Vec<u64>>());
    }

    #[test]
    fn windows_hold_at_least_one_item() {
        assert_eq!(Ordered::window(0).window_len(), 1);
        assert_eq!(pool(3).install(|| Ordered::per_thread(4).window_len()), 12);
        let mut n = 0;
        Ordered::per_thread(0)
            .run(
                0..5,
                |x| x,
                |_| -> Result<(), ()> {
                    n += 1;
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(n, 5);
    }
}
