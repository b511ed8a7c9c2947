//! The rows of a database's tables, in the order a table export writes
//! them: call records, the base profile's functions, region ranges, comm
//! records and matched messages, of the processes of one [`Shard`].
//!
//! Each walk is a cursor that hands the next rows to a callback, as many
//! as the writer asks for (a row group), so the writer never holds more
//! than that and the walk reads nothing ahead; the writer decides how the
//! values are stored. Blocks that cannot be read are warnings the cursor
//! keeps until asked.

mod calls;
mod comm;
mod functions;
mod messages;

pub use calls::{CallRows, call_rows};
pub use comm::{CommRows, comm_rows};
pub use functions::FunctionRows;
pub use messages::sent_messages;

use crate::analysis::regions::Regions;
use crate::formats::blprof::database::Database;

/// A part of a conversion: shard `index` of `count` converts the
/// `index`-th of `count` contiguous ranges of the database's processes
/// (AMReX writes neighbouring ranks into the same data files, so a shard
/// reads few files). The shards' files together are the whole dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole database in one part.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The processes of this shard among `procs` (sorted, distinct).
    pub fn of(&self, procs: &[usize]) -> Vec<usize> {
        let n = procs.len();
        let count = self.count.max(1);
        let (a, b) = (n * self.index / count, n * (self.index + 1) / count);
        procs[a.min(n)..b.min(n)].to_vec()
    }

    /// The processes of this shard among those of `db` with call traces or
    /// comm data (`None`: every process, the whole database).
    pub fn procs(&self, db: &Database) -> Option<Vec<usize>> {
        (*self != Shard::WHOLE).then(|| {
            let mut all: Vec<usize> = Vec::new();
            if db.call_stats.is_some() {
                all.extend(db.trace_index().procs.iter().map(|p| p.proc));
            }
            if db.comm.is_some() {
                all.extend(db.comm_index().procs.iter().map(|p| p.proc));
            }
            all.sort_unstable();
            all.dedup();
            self.of(&all)
        })
    }
}

/// Whether `proc` is among `procs` (sorted; `None`: every process).
pub fn in_shard(procs: Option<&[usize]>, proc: usize) -> bool {
    procs.is_none_or(|p| p.binary_search(&proc).is_ok())
}

/// The closed ranges of every region of the processes `procs`: (process,
/// region number, start, stop), process by process, region by region.
pub fn region_rows<'a>(
    regions: &'a Regions,
    procs: Option<&'a [usize]>,
) -> impl Iterator<Item = (i32, i32, f64, f64)> + Send + 'a {
    regions
        .procs
        .iter()
        .filter(move |p| in_shard(procs, p.proc))
        .flat_map(|p| {
            p.ranges.iter().flat_map(move |(&number, ranges)| {
                ranges
                    .iter()
                    .map(move |r| (p.proc as i32, number, r.start, r.stop))
            })
        })
}
