//! The calls a timeline shows: per process, block after block, in runs of
//! records that the exporter formats in parallel and writes in order.
//! Sentinels, calls shorter than the minimum duration and calls outside
//! the window are left out; the rest are shown shifted to the common clock.

use std::ops::Range;

use crate::error::Warning;
use crate::formats::blprof::trace::{CallRecord, TraceBlock};
use crate::formats::blprof::walk::{MappedTraceBlock, Skipped, TraceProcWalk};

use super::overlaps;

/// Which calls are shown, and how.
#[derive(Debug, Clone, Copy)]
pub struct CallFilter {
    /// Only calls overlapping `[t0, t1]` seconds (own clock).
    pub window: (f64, f64),
    /// Only calls at least this many seconds long.
    pub min_dur: f64,
    /// Seconds subtracted from the start of each call shown.
    pub shift: f64,
}

impl CallFilter {
    /// The calls `range` of `block` that are shown, in order, their start
    /// shifted.
    #[inline]
    pub fn for_each(
        &self,
        block: &TraceBlock,
        range: Range<usize>,
        mut f: impl FnMut(&CallRecord),
    ) {
        for i in range {
            let mut c = block.call(i);
            if c.is_sentinel()
                || c.inclusive < self.min_dur
                || !overlaps(self.window, c.start, c.end())
            {
                continue;
            }
            c.start -= self.shift;
            f(&c);
        }
    }
}

/// The blocks of process `p`, mapped whole in turn and handed to `visit`;
/// those that cannot be read are `warnings`. The first error of `visit`
/// ends the walk.
pub fn for_each_call_block<E>(
    p: TraceProcWalk<'_>,
    warnings: &mut Vec<Warning>,
    mut visit: impl FnMut(&MappedTraceBlock<'_>) -> Result<(), E>,
) -> Result<(), E> {
    for mapped in p.mapped_blocks(Skipped::TraceBlock) {
        match mapped {
            Ok(m) => visit(&m)?,
            Err(w) => warnings.push(w),
        }
    }
    Ok(())
}

/// The runs of `len` records (the last shorter) that cover `0..n`.
pub fn runs(n: usize, len: usize) -> impl Iterator<Item = Range<usize>> {
    (0..n).step_by(len.max(1)).map(move |a| a..n.min(a + len))
}
