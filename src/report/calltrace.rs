//! The chronological text call trace of one process (amrprofparser
//! `-ttrace`, BLPROF_FORMAT.md §8.15), streamed block by block.
//!
//! Within a block, runs of consecutive calls of the same function at the
//! same depth (repeated leaf calls) are combined into one line with summed
//! calls and times, unless combining is off. The last two records of a block
//! are always printed on their own, as the reference does.

use std::io::{self, Write};

use crate::error::Warning;
use crate::formats::blprof::trace::{CallRecord, TraceBlock};
use crate::formats::blprof::walk::{Skipped, TraceProcWalk};
use crate::report::numfmt::printf::write_c_g;

pub const HEADER: &str = "Text Trace  (function number :: function name :: inclusive time :: exclusive time :: ncalls :: callstackdepth :: call time)";

/// Levels of indent at most (AMReX nests a few dozen deep).
const MAX_INDENT: i32 = 1000;

/// How lines look: the process's names (as printed) and the separator.
struct LineFormat<'a> {
    names: rustc_hash::FxHashMap<i32, Vec<u8>>,
    delimiter: &'a [u8],
}

impl LineFormat<'_> {
    fn write(&self, out: &mut Vec<u8>, c: &CallRecord) {
        let d = self.delimiter;
        let mut int = itoa::Buffer::new();
        // The indent is a value from the file: capped, so a damaged depth
        // cannot make a line of gigabytes (the depth column says the rest).
        for _ in 0..c.depth.clamp(0, MAX_INDENT) {
            out.extend_from_slice(b"---|");
        }
        out.extend_from_slice(d);
        out.extend_from_slice(int.format(c.fnum).as_bytes());
        out.extend_from_slice(d);
        out.extend_from_slice(self.names.get(&c.fnum).map_or(b"?", |n| n.as_slice()));
        out.extend_from_slice(d);
        write_c_g(out, c.inclusive, 16);
        out.extend_from_slice(d);
        write_c_g(out, c.exclusive, 16);
        out.extend_from_slice(d);
        out.extend_from_slice(int.format(c.ncalls).as_bytes());
        out.extend_from_slice(d);
        out.extend_from_slice(int.format(c.depth).as_bytes());
        out.extend_from_slice(d);
        write_c_g(out, c.start, 16);
        out.push(b'\n');
    }
}

/// Call records per parallel formatting task (about 1.5 MB of text).
const TASK_CALLS: usize = 16 * 1024;

/// The end of the task that starts at call `start` in a block of `n` calls:
/// never inside a run that is combined (the record before a boundary
/// differs from the one at it) nor in the last two records, so each task
/// formats exactly as one pass would. Found as the tasks are made, so that
/// only the calls about to be formatted are touched (and mapped).
fn task_end(block: &TraceBlock, start: usize, n: usize) -> usize {
    let mut j = start + TASK_CALLS;
    while j + 2 < n {
        let (a, b) = (block.call(j - 1), block.call(j));
        if a.is_sentinel() || (a.depth == b.depth && a.fnum == b.fnum) {
            j += 1;
            continue;
        }
        return j;
    }
    n
}

/// The tasks of a block of `n` calls, in order: each ends where
/// [`task_end`] says, found as the tasks are drawn.
fn tasks<'b>(
    block: &'b TraceBlock<'_>,
    n: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> + 'b {
    let mut start = 0;
    std::iter::from_fn(move || {
        (start < n).then(|| {
            let end = task_end(block, start, n);
            let task = start..end;
            start = end;
            task
        })
    })
}

/// Formats calls `range` of a block of `n` calls, combining runs.
fn format_calls(
    fmt: &LineFormat,
    block: &TraceBlock,
    range: std::ops::Range<usize>,
    n: usize,
    combine: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(range.len() * 96);
    let mut comb: Option<CallRecord> = None;
    for i in range {
        let cs = block.call(i);
        if cs.is_sentinel() {
            continue;
        }
        if !combine {
            fmt.write(&mut out, &cs);
            continue;
        }
        if i + 2 >= n {
            if let Some(c) = comb.take() {
                fmt.write(&mut out, &c);
            }
            fmt.write(&mut out, &cs);
            continue;
        }
        let nx = block.call(i + 1);
        let acc = |c: Option<CallRecord>| match c {
            Some(mut c) => {
                c.ncalls += cs.ncalls;
                c.inclusive += cs.inclusive;
                c.exclusive += cs.exclusive;
                c
            }
            None => cs,
        };
        if nx.depth == cs.depth && nx.fnum == cs.fnum {
            comb = Some(acc(comb.take()));
        } else {
            let c = acc(comb.take());
            fmt.write(&mut out, &c);
        }
    }
    out
}

/// Writes the trace of the walk's process (`reference_names`: spaces in
/// names become `_`, as amrprofparser prints them); returns warnings for
/// blocks that could not be read. Blocks are formatted in parallel tasks
/// written in order: the output is the same for any thread count.
pub fn write_calltrace(
    w: &mut dyn Write,
    p: TraceProcWalk<'_>,
    delimiter: &str,
    combine: bool,
    reference_names: bool,
) -> io::Result<Vec<Warning>> {
    writeln!(w, "{HEADER}\n")?;
    let mut warnings = Vec::new();
    let fmt = LineFormat {
        names: p
            .proc()
            .functions
            .entries
            .iter()
            .filter_map(|(n, name)| {
                // No raw control characters from names (the delimiter,
                // a tab by default, is the user's).
                let name = crate::report::escape::visible(name);
                let name = if reference_names {
                    name.replace(' ', "_")
                } else {
                    name.to_string()
                };
                Some((i32::try_from(*n).ok()?, name.into_bytes()))
            })
            .collect(),
        delimiter: delimiter.as_bytes(),
    };
    for mapped in p.mapped_blocks(Skipped::Block) {
        let mapped = match mapped {
            Ok(m) => m,
            Err(warning) => {
                warnings.push(warning);
                continue;
            }
        };
        let block = mapped.records();
        let n = block.calls_len();
        crate::parallel::Ordered::per_thread(2).run(
            tasks(&block, n),
            |r| (r.end, format_calls(&fmt, &block, r, n, combine)),
            |(end, text)| -> io::Result<()> {
                w.write_all(&text)?;
                // Streamed: what is written need not stay resident.
                mapped.release_calls_before(end);
                Ok(())
            },
        )?;
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::blprof::trace::tests::{block_bytes, block_ref};
    use crate::source::InputFile;

    /// Tasks tile the block, and formatting them one after another gives
    /// the text of one pass over the block: runs that are combined (here
    /// long ones, across the task size) are never cut.
    #[test]
    fn tasks_format_as_one_pass() {
        let mut rng = crate::synth::SplitMix64::new(3);
        let mut calls = Vec::new();
        while calls.len() < 3 * TASK_CALLS + 100 {
            let (depth, fnum) = ((rng.next_u64() % 4) as i32, (rng.next_u64() % 3) as i32);
            // Mostly short runs, some longer than a task.
            let run = match rng.next_u64() % 100 {
                0 => TASK_CALLS + 7,
                1..=10 => 50,
                _ => 1 + (rng.next_u64() % 3) as usize,
            };
            for i in 0..run {
                calls.push((depth, fnum, 1.0 + i as f64, 0.5, i as f64));
            }
        }
        let bytes = block_bytes(&[], &calls);
        let file = InputFile::from_bytes("d", bytes);
        let block = TraceBlock::read(&file, &block_ref(0, 0, calls.len() as u64 + 1, 0)).unwrap();
        let n = block.calls_len();
        let fmt = LineFormat {
            names: (0..3).map(|f| (f, format!("F{f}").into_bytes())).collect(),
            delimiter: b" ",
        };
        for combine in [true, false] {
            let (mut tiled, mut text) = (0, Vec::new());
            let mut count = 0;
            for r in tasks(&block, n) {
                assert_eq!(r.start, tiled);
                tiled = r.end;
                count += 1;
                text.extend(format_calls(&fmt, &block, r, n, combine));
            }
            assert_eq!(tiled, n);
            assert!(count >= 3, "{count}");
            assert_eq!(text, format_calls(&fmt, &block, 0..n, n, combine));
        }
    }
}
