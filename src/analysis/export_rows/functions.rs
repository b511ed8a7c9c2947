//! The base profile's rows: per process and function, its calls and
//! exclusive seconds (what `summary` reads).

use crate::formats::blprof::base::BaseProfile;

use super::in_shard;

/// A cursor over the base profile, block (process) after block, function
/// by function.
pub struct FunctionRows<'a> {
    profile: &'a BaseProfile<'a>,
    /// The next (block, function) to hand on.
    at: (usize, usize),
    procs: Option<&'a [usize]>,
}

impl<'a> FunctionRows<'a> {
    /// The rows of the processes `procs` (`None`: all).
    pub fn new(profile: &'a BaseProfile<'a>, procs: Option<&'a [usize]>) -> Self {
        FunctionRows {
            profile,
            at: (0, 0),
            procs,
        }
    }

    /// Hands the next `max` rows to `row` (process, function number,
    /// calls, exclusive seconds), fewer only when the rows run out;
    /// returns how many.
    pub fn next_rows(&mut self, max: usize, mut row: impl FnMut(i32, i32, i64, f64)) -> usize {
        let nfuncs = self.profile.nfuncs();
        let mut given = 0;
        while given < max && self.at.0 < self.profile.len() {
            let (proc, block) = self.profile.block(self.at.0);
            if !in_shard(self.procs, proc) || self.at.1 >= nfuncs {
                self.at = (self.at.0 + 1, 0);
                continue;
            }
            let f = self.at.1;
            row(
                i32::try_from(proc).unwrap_or(i32::MAX),
                i32::try_from(f).unwrap_or(i32::MAX),
                block.ncalls(f),
                block.time(f),
            );
            given += 1;
            self.at.1 += 1;
        }
        given
    }
}
