//! The communication calls a timeline shows: per process, in the order
//! their end records are read, in batches that the exporter formats in
//! parallel and writes in order. Calls shorter than the minimum duration
//! (instants count as 0 s) and, with a region filter, calls entered
//! outside its ranges are left out.

use crate::analysis::comm::timeline::{CommCall, ProcCalls};
use crate::analysis::ranges::RangeList;
use crate::error::Warning;
use crate::formats::blprof::walk::CommProcWalk;

/// A communication call as shown (its name is its type's).
#[derive(Debug, Clone, Copy)]
pub struct CommSlice {
    /// Shifted to the common clock.
    pub start: f64,
    pub end: f64,
    pub kind: i32,
    pub instant: bool,
}

/// The calls of one process shown, a batch at a time (an iterator of
/// batches of about `batch` calls).
pub struct CommSlices<'a, 'r> {
    calls: ProcCalls<'a>,
    batch: usize,
    min_dur: f64,
    shift: f64,
    inside: Option<&'r RangeList>,
}

impl<'a, 'r> CommSlices<'a, 'r> {
    /// The calls of `p` overlapping its walk's window, at least `min_dur`
    /// long, entered inside `inside` (`None`: anywhere), their times minus
    /// `shift`.
    pub fn new(
        p: CommProcWalk<'a>,
        batch: usize,
        min_dur: f64,
        shift: f64,
        inside: Option<&'r RangeList>,
    ) -> Self {
        CommSlices {
            calls: ProcCalls::new(p),
            batch,
            min_dur,
            shift,
            inside,
        }
    }

    /// The blocks that could not be read.
    pub fn into_warnings(self) -> Vec<Warning> {
        self.calls.into_warnings()
    }
}

impl Iterator for CommSlices<'_, '_> {
    type Item = Vec<CommSlice>;

    fn next(&mut self) -> Option<Vec<CommSlice>> {
        let (min_dur, shift, inside) = (self.min_dur, self.shift, self.inside);
        let mut batch = Vec::with_capacity(self.batch + 2);
        self.calls.next_calls(self.batch, |c: CommCall| {
            let keep = c.end - c.start >= min_dur && inside.is_none_or(|r| r.contains(c.start));
            if keep {
                batch.push(CommSlice {
                    start: c.start - shift,
                    end: c.end - shift,
                    kind: c.kind,
                    instant: c.instant,
                });
            }
            keep
        });
        (!batch.is_empty()).then_some(batch)
    }
}
