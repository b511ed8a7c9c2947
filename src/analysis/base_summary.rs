//! The `-ws` summary: function statistics from the base profile blocks.

use super::function_stats::{FunctionSummary, ProcessRows, summarize};
use crate::formats::blprof::BaseProfile;

impl ProcessRows for BaseProfile<'_> {
    fn rows(&self) -> usize {
        self.len()
    }

    fn read_row(&self, row: usize, calls: &mut [i64], times: &mut [f64]) -> usize {
        let (proc, block) = self.block(row);
        for (f, (c, t)) in calls.iter_mut().zip(times.iter_mut()).enumerate() {
            *c = block.ncalls(f);
            *t = block.time(f);
        }
        proc
    }
}

/// Statistics of every `phFName` function over the readable processes, with
/// `calcEndTime` as the run time.
pub fn base_summary(profile: &BaseProfile<'_>, selected_proc: usize) -> FunctionSummary {
    summarize(
        &profile.header.functions,
        profile,
        selected_proc,
        profile.header.calc_end_time,
    )
}
