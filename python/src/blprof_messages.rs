//! `messages()` of a database: each send paired with its receive, then the
//! ends left unmatched, as `comm pairs --format json` lists them.
//!
//! A big run has millions of messages: the pairing hands them over a
//! window at a time, and each goes straight into the Arrow builders, so
//! the table is never held twice (as rows and as columns).

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{Float64Builder, Int32Builder, StringBuilder, UInt32Builder};
use arrow_schema::{ArrowError, DataType};
use profparse::{Database, Pair, pair_messages_in};

use crate::arrow_stream::{Built, Table, batch};
use crate::comm_scope::{CommArgs, TableScope};
use crate::errors::texts;

/// The columns of `messages()`, a message at a time.
#[derive(Default)]
struct MessageColumns {
    from: UInt32Builder,
    to: UInt32Builder,
    tag: Int32Builder,
    size: Int32Builder,
    send_time: Float64Builder,
    recv_time: Float64Builder,
    latency: Float64Builder,
    completed_time: Float64Builder,
    latency_to_completion: Float64Builder,
    /// `"send"` or `"recv"` for an unmatched end (null for a pair) ...
    unmatched: StringBuilder,
    /// ... and its MPI call type.
    kind: StringBuilder,
}

/// A peer as a rank: none for a negative one (a wildcard source).
fn rank(p: i32) -> Option<u32> {
    u32::try_from(p).ok()
}

impl MessageColumns {
    fn pair(&mut self, p: &Pair) {
        self.from.append_value(p.from as u32);
        self.to.append_value(p.to as u32);
        self.tag.append_value(p.tag);
        self.size.append_value(p.size);
        self.send_time.append_value(p.send_time);
        self.recv_time.append_value(p.recv_time);
        self.latency.append_value(p.latency);
        self.completed_time.append_option(p.completed_time);
        self.latency_to_completion
            .append_option(p.latency_to_completion);
        self.unmatched.append_null();
        self.kind.append_null();
    }

    /// An end without its other side: `send` is whether it is a send; its
    /// process, peer, tag, size, time and MPI call.
    fn unmatched(
        &mut self,
        send: bool,
        (proc, peer, tag, size): (usize, i32, i32, i32),
        time: f64,
        kind: &str,
    ) {
        let (from, to) = if send {
            (Some(proc as u32), rank(peer))
        } else {
            (rank(peer), Some(proc as u32))
        };
        self.from.append_option(from);
        self.to.append_option(to);
        self.tag.append_value(tag);
        self.size.append_value(size);
        self.send_time.append_option(send.then_some(time));
        self.recv_time.append_option((!send).then_some(time));
        self.latency.append_null();
        self.completed_time.append_null();
        self.latency_to_completion.append_null();
        self.unmatched
            .append_value(if send { "send" } else { "recv" });
        self.kind.append_value(kind);
    }

    fn build(mut self) -> Result<Table, ArrowError> {
        fn col(name: &str, nullable: bool, a: ArrayRef) -> (&str, DataType, bool, ArrayRef) {
            (name, a.data_type().clone(), nullable, a)
        }
        batch(vec![
            col("from", true, Arc::new(self.from.finish())),
            col("to", true, Arc::new(self.to.finish())),
            col("tag", false, Arc::new(self.tag.finish())),
            col("size", false, Arc::new(self.size.finish())),
            col("send_time", true, Arc::new(self.send_time.finish())),
            col("recv_time", true, Arc::new(self.recv_time.finish())),
            col("latency", true, Arc::new(self.latency.finish())),
            col(
                "completed_time",
                true,
                Arc::new(self.completed_time.finish()),
            ),
            col(
                "latency_to_completion",
                true,
                Arc::new(self.latency_to_completion.finish()),
            ),
            col("unmatched", true, Arc::new(self.unmatched.finish())),
            col("type", true, Arc::new(self.kind.finish())),
        ])
    }
}

/// `messages()` of a database: the pairs in the JSON's order (by sender,
/// then in the sender's record order), then the unmatched sends and
/// receives; with `align_clocks`, on one clock as `--align-clocks` puts them.
pub(crate) fn messages_table(db: &Database, args: &CommArgs, align_clocks: bool) -> Built {
    let scope = TableScope::new(db, args, false, align_clocks)?;
    let mut warnings = scope.warnings.clone();
    let clocks = scope.comm.clocks();
    let mut columns = MessageColumns::default();
    let (mut report, w) = pair_messages_in(
        db,
        &scope.comm.selection(),
        scope.comm.ranges(),
        Vec::new,
        |chunk: &mut Vec<Pair>, p| {
            chunk.push(if align_clocks {
                clocks.align_pair(p)
            } else {
                p.clone()
            })
        },
        &mut |chunk| chunk.iter().for_each(|p| columns.pair(p)),
    );
    warnings.extend(texts(&w));
    if align_clocks {
        clocks.align_pairs(&mut report);
    }
    for (send, ends) in [
        (true, &report.unmatched_sends),
        (false, &report.unmatched_recvs),
    ] {
        for e in ends {
            columns.unmatched(send, (e.proc, e.peer, e.tag, e.size), e.time, e.kind);
        }
    }
    Ok((columns.build(), warnings))
}
