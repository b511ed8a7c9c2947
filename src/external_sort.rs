//! Sorting more rows than the memory a report may take: an external merge
//! sort (the wait states' receive order, [`crate::analysis::comm::waits`]).
//!
//! Rows are gathered in memory up to a budget. Past it, the rows gathered
//! are sorted and written as one sorted *run* to an anonymous temporary file
//! (unlinked as it is created: nothing is left behind whatever ends the
//! run). When every row is in, the runs and the rows still in memory are
//! merged, smallest first. Without a run the rows are sorted in memory and
//! no file is made.
//!
//! ```text
//!   push ──▶ [ rows in memory ] ──(budget reached: sort, write)──▶ run 1, run 2, …
//!   finish ─▶ merge(run 1, run 2, …, rows in memory sorted) ──▶ rows in order
//! ```
//!
//! Rows must be distinct in their order (`Ord` a total order on them): then
//! the rows come out in one order whichever threads pushed them and when the
//! runs were cut, so the result is the same at any number of threads.

use std::collections::BinaryHeap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::{Mutex, OnceLock};

use rayon::slice::ParallelSliceMut as _;

use crate::spill::check_room;
use std::collections::binary_heap::PeekMut;

/// A row of fixed size that can be written to a run and read back.
pub trait Row: Ord + Send + Copy {
    /// Bytes of a row in a run.
    const BYTES: usize;
    /// Writes the row to `out` (`BYTES` long).
    fn put(&self, out: &mut [u8]);
    /// Reads a row back from `bytes` (`BYTES` long).
    fn get(bytes: &[u8]) -> Self;
    /// Bytes per row [`Row::sort`] takes besides the rows (the order it
    /// returns included).
    const SORT_BYTES: usize = 0;
    /// Puts `rows` in order: a comparison sort, unless the rows know a
    /// cheaper way to the same order. Such a way may leave the rows where
    /// they are and return their order instead: the indices of the rows,
    /// smallest first (rows moved to their places one after another wait
    /// on memory at every row; rows read in order do not wait in turn).
    fn sort(rows: &mut [Self]) -> Option<Vec<u32>> {
        rows.sort_unstable();
        None
    }
}

/// Bytes read from a run at a time while merging (one buffer per run).
const READ_BYTES: usize = 64 << 10;

/// Gathers rows from any number of threads and hands them back in order.
pub struct Sorter<T> {
    /// Rows held before they are written as a run.
    run_rows: usize,
    /// Whether the last rows are sorted in parallel (a sorter filled by
    /// many threads; one thread's sorter runs beside others already).
    parallel: bool,
    file: OnceLock<File>,
    state: Mutex<State<T>>,
}

struct State<T> {
    rows: Vec<T>,
    /// Each run's first byte in the file and its rows.
    runs: Vec<(u64, u64)>,
    /// The end of the file (runs being written included).
    end: u64,
    /// The first failure of the file: the rows stay in memory from then.
    failed: Option<io::Error>,
    /// Vectors of runs written, to gather the next runs in (their memory
    /// is already faulted in).
    spare: Vec<Vec<T>>,
}

impl<T: Row> Sorter<T> {
    /// A sorter that holds about `budget` bytes of rows: a run is cut at a
    /// share of it, so that the runs being sorted by every thread at once
    /// and the rows gathering fit it together.
    pub fn new(budget: usize) -> Self {
        let shares = rayon::current_num_threads().max(1) + 1;
        Sorter {
            parallel: true,
            ..Sorter::with_run_bytes(budget / shares)
        }
    }

    /// Bytes of memory a row takes in a sorter: the row and its sort's.
    pub fn memory_per_row() -> usize {
        std::mem::size_of::<T>() + T::SORT_BYTES
    }

    /// A sorter that cuts a run at `run_bytes` of rows and their sort's
    /// memory (for one thread's rows: it holds about that much).
    pub fn with_run_bytes(run_bytes: usize) -> Self {
        Sorter {
            run_rows: (run_bytes / Self::memory_per_row().max(1)).max(1),
            parallel: false,
            file: OnceLock::new(),
            state: Mutex::new(State {
                rows: Vec::new(),
                runs: Vec::new(),
                end: 0,
                failed: None,
                spare: Vec::new(),
            }),
        }
    }

    /// Takes the rows of `batch` (leaving it empty); past the budget, this
    /// thread writes the rows gathered as a run.
    pub fn push(&self, batch: &mut Vec<T>) {
        self.push_with(batch.len(), |rows| rows.append(batch));
    }

    /// Takes the rows written in `bytes`, `row_bytes` each, read by `get`
    /// straight into the rows gathered: no batch between (one copy of
    /// every row, and no batch's memory to fault in). Rows written as a run
    /// holds them are read by [`Row::get`]; a spill may hold them in a
    /// form of its own.
    pub fn push_decoded(&self, bytes: &[u8], row_bytes: usize, get: impl Fn(&[u8]) -> T) {
        let rows = bytes.chunks_exact(row_bytes.max(1));
        self.push_with(rows.len(), |gathered| gathered.extend(rows.map(get)));
    }

    /// Takes the rows of `bytes`, each read off the front by `take` (the
    /// row and its length; `None` ends them) straight into the rows
    /// gathered: for rows of more than one length. Room is made for
    /// `most_rows`, a bound on their number.
    pub fn push_taken(
        &self,
        mut bytes: &[u8],
        most_rows: usize,
        take: impl Fn(&[u8]) -> Option<(T, usize)>,
    ) {
        self.push_with(most_rows, |gathered| {
            while let Some((row, len)) = take(bytes) {
                gathered.push(row);
                // (A length of 0 would read the row forever.)
                bytes = bytes.get(len.max(1)..).unwrap_or_default();
            }
        });
    }

    /// Adds `n` rows with `add`; past the budget, this thread writes the
    /// rows gathered as a run.
    fn push_with(&self, n: usize, add: impl FnOnce(&mut Vec<T>)) {
        let full = {
            let mut s = self.state();
            if s.rows.capacity() == 0 {
                // (Room for a run and a batch: the vector never doubles.)
                let room = self.run_rows.saturating_add(n);
                s.rows = s.spare.pop().unwrap_or_else(|| Vec::with_capacity(room));
            }
            add(&mut s.rows);
            if s.rows.len() < self.run_rows || s.failed.is_some() {
                return;
            }
            let rows = std::mem::take(&mut s.rows);
            let offset = s.end;
            s.end += (rows.len() * T::BYTES) as u64;
            (rows, offset)
        };
        let (mut rows, offset) = full;
        // (The rows are distinct: an unstable sort gives the one order.)
        let order = T::sort(&mut rows);
        let written = self.write_run(&rows, order.as_deref(), offset);
        let mut s = self.state();
        match written {
            Ok(()) => {
                s.runs.push((offset, rows.len() as u64));
                rows.clear();
                s.spare.push(rows);
            }
            Err(e) => {
                // Slower memory, not a wrong result: the rows stay here.
                s.failed.get_or_insert(e);
                s.rows.append(&mut rows);
            }
        }
    }

    /// The state (a thread that panicked holding it left it whole: rows
    /// are only appended or taken under the lock).
    fn state(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes `rows` as a run, in `order` (their indices; `None`: as they
    /// are).
    fn write_run(&self, rows: &[T], order: Option<&[u32]>, offset: u64) -> io::Result<()> {
        check_room((rows.len() * T::BYTES) as u64)?;
        let file = match self.file.get() {
            Some(f) => f,
            None => {
                let f = tempfile::tempfile()?;
                self.file.get_or_init(|| f)
            }
        };
        let per = (READ_BYTES / T::BYTES).max(1);
        let mut buf = vec![0u8; per * T::BYTES];
        let mut at = offset;
        let mut in_order = (0..rows.len()).filter_map(|k| match order {
            Some(order) => rows.get(*order.get(k)? as usize),
            None => rows.get(k),
        });
        for n in (0..rows.len()).step_by(per).map(|k| per.min(rows.len() - k)) {
            let bytes = &mut buf[..n * T::BYTES];
            // (The buffer's places first: the row after them stays.)
            for (out, r) in bytes.chunks_exact_mut(T::BYTES).zip(in_order.by_ref()) {
                r.put(out);
            }
            file.write_all_at(bytes, at)?;
            at += bytes.len() as u64;
        }
        Ok(())
    }

    /// The rows in order, and the failure of the temporary file, if one
    /// kept rows in memory.
    pub fn finish(self) -> (Sorted<T>, Option<io::Error>) {
        let state = self
            .state
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut rows = state.rows;
        let order = if self.parallel {
            rows.par_sort_unstable();
            None
        } else {
            T::sort(&mut rows)
        };
        let rows = InOrder::new(rows, order);
        if state.runs.is_empty() {
            return (Sorted::Memory(rows), state.failed);
        }
        let file = self.file.into_inner();
        let mut sources: Vec<Source<T>> = state
            .runs
            .iter()
            .map(|&(offset, n)| Source::Run(RunReader::new(offset, n)))
            .collect();
        sources.push(Source::Memory(rows));
        let mut merge = Merge {
            file,
            sources,
            heads: BinaryHeap::new(),
            error: None,
        };
        for i in 0..merge.sources.len() {
            merge.refill(i);
        }
        (Sorted::Merged(merge), state.failed)
    }
}

/// The rows of a [`Sorter`], smallest first.
pub enum Sorted<T> {
    /// No run was written.
    Memory(InOrder<T>),
    /// Runs merged with the rows left in memory.
    Merged(Merge<T>),
}

impl<T: Row> Sorted<T> {
    /// The error that ended the rows early (a run could not be read back).
    pub fn take_error(&mut self) -> Option<io::Error> {
        match self {
            Sorted::Memory(_) => None,
            Sorted::Merged(m) => m.error.take(),
        }
    }
}

impl<T: Row> Iterator for Sorted<T> {
    type Item = T;

    // (Inlined: a row in memory is then read where the caller wants it, not
    // copied through the stack in pieces its loads must wait for.)
    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            Sorted::Memory(rows) => rows.next(),
            Sorted::Merged(m) => m.next(),
        }
    }
}

/// A k-way merge of sorted sources: a heap of each source's smallest row.
pub struct Merge<T> {
    file: Option<File>,
    sources: Vec<Source<T>>,
    /// (row, source), smallest first.
    heads: BinaryHeap<std::cmp::Reverse<(T, usize)>>,
    error: Option<io::Error>,
}

enum Source<T> {
    Run(RunReader<T>),
    Memory(InOrder<T>),
}

/// Rows in memory handed out in order: `rows[i]` for each index `i` of
/// their order, or the rows as they are without one.
pub struct InOrder<T> {
    rows: Vec<T>,
    order: Option<Vec<u32>>,
    /// Rows handed out.
    done: usize,
}

impl<T> InOrder<T> {
    fn new(rows: Vec<T>, order: Option<Vec<u32>>) -> Self {
        InOrder {
            rows,
            order,
            done: 0,
        }
    }
}

impl<T: Copy> Iterator for InOrder<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let at = match &self.order {
            Some(order) => *order.get(self.done)? as usize,
            None => self.done,
        };
        let row = *self.rows.get(at)?;
        self.done += 1;
        Some(row)
    }
}

/// The rows of one run, read a buffer at a time.
struct RunReader<T> {
    /// The next byte to read and the rows left in the file.
    offset: u64,
    left: u64,
    /// Rows read, handed on from the back (they are read in reverse).
    rows: Vec<T>,
    bytes: Vec<u8>,
}

impl<T: Row> RunReader<T> {
    fn new(offset: u64, rows: u64) -> Self {
        RunReader {
            offset,
            left: rows,
            rows: Vec::new(),
            bytes: Vec::new(),
        }
    }

    fn next(&mut self, file: Option<&File>) -> io::Result<Option<T>> {
        if self.rows.is_empty() && self.left > 0 {
            let file = file.ok_or_else(|| io::Error::other("a run without its file"))?;
            let n = (READ_BYTES / T::BYTES).max(1).min(self.left as usize);
            self.bytes.resize(n * T::BYTES, 0);
            file.read_exact_at(&mut self.bytes, self.offset)?;
            self.rows
                .extend(self.bytes.chunks_exact(T::BYTES).rev().map(T::get));
            self.offset += self.bytes.len() as u64;
            self.left -= n as u64;
        }
        Ok(self.rows.pop())
    }
}

impl<T: Row> Merge<T> {
    /// Source `i`'s next row, or the error that ends the merge.
    fn next_of(&mut self, i: usize) -> Option<T> {
        let next = match &mut self.sources[i] {
            Source::Run(r) => r.next(self.file.as_ref()),
            Source::Memory(rows) => Ok(rows.next()),
        };
        next.unwrap_or_else(|e| {
            self.error.get_or_insert(e);
            None
        })
    }

    /// Puts source `i`'s next row on the heap.
    fn refill(&mut self, i: usize) {
        if let Some(row) = self.next_of(i) {
            self.heads.push(std::cmp::Reverse((row, i)));
        }
    }

    fn next(&mut self) -> Option<T> {
        if self.error.is_some() {
            return None;
        }
        let i = self.heads.peek()?.0.1;
        // The smallest row's place on the heap takes its source's next row
        // (one sift instead of a pop and a push).
        let row = match self.next_of(i) {
            Some(next) => {
                let mut top = self.heads.peek_mut()?;
                let row = std::mem::replace(&mut top.0.0, next);
                drop(top);
                row
            }
            None => PeekMut::pop(self.heads.peek_mut()?).0.0,
        };
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Row for u64 {
        const BYTES: usize = 8;
        fn put(&self, out: &mut [u8]) {
            out.copy_from_slice(&self.to_le_bytes());
        }
        fn get(bytes: &[u8]) -> Self {
            u64::from_le_bytes(bytes.try_into().unwrap_or_default())
        }
    }

    /// Rows pushed in any order by any threads, spilled in runs of any
    /// size, come out sorted and all there.
    #[test]
    fn rows_come_out_sorted_whatever_the_budget_and_threads() {
        let want: Vec<u64> = (0..20_000u64).map(|i| i * 7919 % 20_011).collect();
        let mut sorted_want = want.clone();
        sorted_want.sort_unstable();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for budget in [1, 100, 10_000, 1 << 30] {
                let got: Vec<u64> = pool.install(|| {
                    let sorter = Sorter::new(budget);
                    rayon::scope(|s| {
                        for part in want.chunks(333) {
                            let sorter = &sorter;
                            s.spawn(move |_| sorter.push(&mut part.to_vec()));
                        }
                    });
                    let spilled = !sorter.state.lock().unwrap().runs.is_empty();
                    assert_eq!(spilled, budget < 1 << 20, "budget {budget}");
                    let (mut rows, failed) = sorter.finish();
                    assert!(failed.is_none());
                    let got = rows.by_ref().collect();
                    assert!(rows.take_error().is_none());
                    got
                });
                assert_eq!(got, sorted_want, "{threads} threads, budget {budget}");
            }
        }
    }

    /// Rows pushed as their bytes (chunks of any size, runs cut between
    /// them or not) come out sorted and all there.
    #[test]
    fn rows_pushed_as_bytes_come_out_sorted() {
        let want: Vec<u64> = (0..5_000u64).map(|i| i * 7919 % 5_003).collect();
        let mut sorted_want = want.clone();
        sorted_want.sort_unstable();
        let bytes: Vec<u8> = want.iter().flat_map(|r| r.to_le_bytes()).collect();
        for (run_bytes, chunk_rows) in [(64, 7), (10_000, 333), (1 << 30, 5_000)] {
            let sorter = Sorter::with_run_bytes(run_bytes);
            for chunk in bytes.chunks(8 * chunk_rows) {
                sorter.push_decoded(chunk, 8, u64::get);
            }
            let (rows, failed) = sorter.finish();
            assert!(failed.is_none());
            let got: Vec<u64> = rows.collect();
            assert_eq!(got, sorted_want, "runs of {run_bytes} bytes, chunks of {chunk_rows}");
        }
    }

    /// Rows of two lengths (a first byte 0 marks a short row, of value 0),
    /// pushed as their bytes in chunks, come out sorted and all there.
    #[test]
    fn rows_of_two_lengths_pushed_as_bytes_come_out_sorted() {
        let want: Vec<u64> = (0..3_000u64).map(|i| i * 7919 % 3_001 * (i % 3)).collect();
        let bytes_of = |rows: &[u64]| {
            let mut bytes = Vec::new();
            for r in rows {
                bytes.push(u8::from(*r != 0));
                if *r != 0 {
                    bytes.extend(r.to_le_bytes());
                }
            }
            bytes
        };
        let take = |b: &[u8]| match *b.first()? {
            0 => Some((0, 1)),
            _ => Some((u64::get(b.get(1..9)?), 9)),
        };
        let mut sorted_want = want.clone();
        sorted_want.sort_unstable();
        for run_bytes in [64, 1 << 30] {
            let sorter = Sorter::with_run_bytes(run_bytes);
            for rows in want.chunks(1_000) {
                let chunk = bytes_of(rows);
                sorter.push_taken(&chunk, chunk.len(), take);
            }
            let (rows, failed) = sorter.finish();
            assert!(failed.is_none());
            let got: Vec<u64> = rows.collect();
            assert_eq!(got, sorted_want, "runs of {run_bytes} bytes");
        }
    }

    /// A row whose sort leaves the rows where they are and returns their
    /// order.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    struct Ordered(u64);

    impl Row for Ordered {
        const BYTES: usize = 8;
        fn put(&self, out: &mut [u8]) {
            self.0.put(out)
        }
        fn get(bytes: &[u8]) -> Self {
            Ordered(u64::get(bytes))
        }
        fn sort(rows: &mut [Self]) -> Option<Vec<u32>> {
            let mut order: Vec<u32> = (0..rows.len() as u32).collect();
            order.sort_unstable_by_key(|&i| rows[i as usize]);
            Some(order)
        }
    }

    /// Rows whose sort gives their order come out in it, whether they are
    /// written in runs (of any length against the file's buffer) or not.
    #[test]
    fn rows_sorted_by_their_order_come_out_in_it() {
        let want: Vec<u64> = (0..20_000u64).map(|i| i * 7919 % 20_011).collect();
        let mut sorted_want = want.clone();
        sorted_want.sort_unstable();
        for run_bytes in [8, 8 * 9_001, 1 << 30] {
            let sorter = Sorter::with_run_bytes(run_bytes + Sorter::<Ordered>::memory_per_row());
            for part in want.chunks(1_000) {
                sorter.push(&mut part.iter().map(|&r| Ordered(r)).collect());
            }
            let (rows, failed) = sorter.finish();
            assert!(failed.is_none());
            let got: Vec<u64> = rows.map(|r| r.0).collect();
            assert_eq!(got, sorted_want, "runs of {run_bytes} bytes");
        }
    }

    /// Nothing pushed: nothing out, and no file made.
    #[test]
    fn an_empty_sorter_gives_no_rows() {
        let sorter: Sorter<u64> = Sorter::new(0);
        assert!(sorter.file.get().is_none());
        let (mut rows, failed) = sorter.finish();
        assert!(rows.next().is_none() && failed.is_none());
    }
}
