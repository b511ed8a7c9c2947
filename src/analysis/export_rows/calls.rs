//! The call records of every selected process, block after block, the
//! sentinels left out.

use crate::error::Warning;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::trace::CallRecord;
use crate::formats::blprof::walk::{MappedTraceBlock, Skipped};

/// Call records read between releases of their mapped bytes.
const RELEASE_CALLS: usize = 64 * 1024;

/// A cursor over the call records; see [`call_rows`].
pub struct CallRows<'a, B> {
    /// The blocks still to read, in order.
    blocks: B,
    /// The block being read and its next call.
    block: Option<(MappedTraceBlock<'a>, usize)>,
    warnings: Vec<Warning>,
}

/// The call records of the processes `procs` (`None`: all), in process
/// and block order.
pub fn call_rows<'a>(
    db: &'a Database,
    procs: Option<&'a [usize]>,
) -> CallRows<'a, impl Iterator<Item = Result<MappedTraceBlock<'a>, Warning>> + use<'a>> {
    CallRows {
        blocks: db.trace_blocks(procs).mapped_blocks(Skipped::TraceBlock),
        block: None,
        warnings: Vec::new(),
    }
}

impl<'a, B> CallRows<'a, B>
where
    B: Iterator<Item = Result<MappedTraceBlock<'a>, Warning>>,
{
    /// Hands the next `max` calls to `row` (process, call), fewer only
    /// when the calls run out; returns how many.
    #[inline]
    pub fn next_rows(&mut self, max: usize, mut row: impl FnMut(i32, &CallRecord)) -> usize {
        let mut given = 0;
        while given < max {
            let Some((mapped, at)) = &mut self.block else {
                match self.blocks.next() {
                    Some(Ok(m)) => self.block = Some((m, 0)),
                    Some(Err(w)) => self.warnings.push(w),
                    None => break,
                }
                continue;
            };
            let block = mapped.records();
            let n = block.calls_len();
            // A slice at a time, released once read (a mapped block would
            // otherwise stay resident).
            let end = n.min(*at + (max - given)).min(*at + RELEASE_CALLS);
            let proc = mapped.proc().proc as i32;
            for i in *at..end {
                let c = block.call(i);
                if c.is_sentinel() {
                    continue;
                }
                row(proc, &c);
                given += 1;
            }
            mapped.release_calls_before(end);
            *at = end;
            if end >= n {
                // Done with the block (its progress counts when dropped).
                self.block = None;
            }
        }
        given
    }

    /// The blocks that could not be read so far.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }
}
