//! The matched messages sent by the selected processes.

use crate::analysis::comm::pairs::{Pair, pair_messages_in};
use crate::analysis::comm::select::CommSelection;
use crate::error::Warning;
use crate::formats::blprof::database::Database;

use super::in_shard;

/// Every send paired with its receive, as `comm pairs` pairs them, handed
/// to `emit` a chunk at a time in sender order, keeping the messages that
/// the processes `procs` sent (`None`: all). Pairing needs both ends, so
/// the whole profile is paired whatever `procs`: the rows of disjoint
/// `procs` are disjoint and together complete. Returns the pairing's
/// warnings.
pub fn sent_messages(
    db: &Database,
    procs: Option<&[usize]>,
    emit: &mut dyn FnMut(Vec<Pair>),
) -> Vec<Warning> {
    let (_, found) = pair_messages_in(
        db,
        &CommSelection::all(),
        None,
        Vec::new,
        |v: &mut Vec<Pair>, p| {
            if in_shard(procs, p.from) {
                v.push(p.clone());
            }
        },
        emit,
    );
    found
}
