//! The comm records of every selected process, block after block.

use crate::error::Warning;
use crate::formats::blprof::commdata::CommRecord;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommBlockRecords, Skipped};

/// A cursor over the comm records; see [`comm_rows`].
pub struct CommRows<'a, B> {
    /// The blocks still to read, in order.
    blocks: B,
    /// The block being read.
    block: Option<CommBlockRecords<'a>>,
    warnings: Vec<Warning>,
}

/// Every comm record of the processes `procs` (`None`: all), empty blocks
/// and all times included, in process and block order.
pub fn comm_rows<'a>(
    db: &'a Database,
    procs: Option<&'a [usize]>,
) -> CommRows<'a, impl Iterator<Item = Result<CommBlockRecords<'a>, Warning>> + use<'a>> {
    CommRows {
        blocks: db
            .every_comm_block_of(procs)
            .record_blocks(Skipped::CommBlock),
        block: None,
        warnings: Vec::new(),
    }
}

impl<'a, B> CommRows<'a, B>
where
    B: Iterator<Item = Result<CommBlockRecords<'a>, Warning>>,
{
    /// Hands the next `max` records to `row` (process, record), fewer only
    /// when the records run out; returns how many.
    #[inline]
    pub fn next_rows(&mut self, max: usize, mut row: impl FnMut(i32, &CommRecord)) -> usize {
        let mut given = 0;
        while given < max {
            let Some(b) = &mut self.block else {
                match self.blocks.next() {
                    Some(Ok(b)) => self.block = Some(b),
                    Some(Err(w)) => self.warnings.push(w),
                    None => break,
                }
                continue;
            };
            let proc = b.proc.proc as i32;
            let mut more = false;
            for r in b.records.by_ref() {
                row(proc, &r);
                given += 1;
                if given >= max {
                    more = true;
                    break;
                }
            }
            if !more
                && let Some(b) = self.block.take()
                && let Some(w) = b.finish(Skipped::CommBlockCutShort)
            {
                self.warnings.push(w);
            }
        }
        given
    }

    /// The blocks that could not be read (or ended early) so far.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }
}
