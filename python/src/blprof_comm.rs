//! The comm tables of a database that count calls and messages:
//! `comm()` (as `comm stats --format json`) and `messages()` (as
//! `comm pairs --format json`).

use profparse::{
    ClockOffsets, Database, Pair, PairingSummary, comm_stats_in, estimate_clock_offsets,
    pair_messages_in,
};

use crate::arrow_stream::Built;
use crate::columns::Columns;
use crate::comm_scope::{CommArgs, CommScope};
use crate::errors::texts;

/// The rows of `comm()`: the JSON's list of that name.
#[derive(Clone, Copy)]
pub(crate) enum CommRows {
    /// `by_type`: one row per MPI call type.
    Type,
    /// `procs`: one row per process.
    Proc,
}

impl CommRows {
    /// The rows named by Python's `by=`.
    pub(crate) fn parse(by: &str) -> pyo3::PyResult<Self> {
        Ok(match by {
            "type" => CommRows::Type,
            "proc" => CommRows::Proc,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "by={by:?}: expected one of \"type\", \"proc\""
                )));
            }
        })
    }
}

/// `comm(by=...)` of a database.
pub(crate) fn comm_table(db: &Database, args: &CommArgs, by: CommRows) -> Built {
    let scope = CommScope::new(db, args, false)?;
    let (s, w) = comm_stats_in(db, &scope.selection(), scope.ranges.as_ref());
    let mut warnings = scope.warnings;
    warnings.extend(texts(&w));
    let table = match by {
        CommRows::Type => Columns::over(&s.by_type)
            .text("type", |t| &t.name)
            .int("number", |t| t.number)
            .count("calls", |t| t.calls)
            .count("records", |t| t.records)
            .count("reference_calls", |t| t.reference_calls)
            .count("bytes", |t| t.bytes)
            .build(),
        CommRows::Proc => Columns::over(&s.procs)
            .rank("proc", |p| p.proc)
            .opt_text("host", |p| p.host.as_deref())
            .count("blocks", |p| p.blocks as u64)
            .count("records", |p| p.records)
            .count("calls", |p| p.calls)
            .count("sends", |p| p.sends)
            .count("bytes_sent", |p| p.bytes_sent)
            .count("barriers", |p| p.barriers)
            .count("name_tags", |p| p.name_tags)
            .build(),
    };
    Ok((table, warnings))
}

/// One row of `messages()`: a pair, or an end left unmatched (the other
/// side's fields null).
struct Message {
    from: Option<usize>,
    to: Option<usize>,
    tag: i32,
    size: i32,
    send_time: Option<f64>,
    recv_time: Option<f64>,
    latency: Option<f64>,
    completed_time: Option<f64>,
    latency_to_completion: Option<f64>,
    /// `"send"` or `"recv"` for an unmatched end, and its MPI call type.
    unmatched: Option<(&'static str, &'static str)>,
}

impl Message {
    fn pair(p: &Pair) -> Self {
        Message {
            from: Some(p.from),
            to: Some(p.to),
            tag: p.tag,
            size: p.size,
            send_time: Some(p.send_time),
            recv_time: Some(p.recv_time),
            latency: Some(p.latency),
            completed_time: p.completed_time,
            latency_to_completion: p.latency_to_completion,
            unmatched: None,
        }
    }
}

/// A peer as a rank: `None` for a negative one (a wildcard source).
fn peer(p: i32) -> Option<usize> {
    usize::try_from(p).ok()
}

/// The unmatched ends after the pairs, sends first, as the JSON lists them.
fn unmatched(r: &PairingSummary, rows: &mut Vec<Message>) {
    for e in &r.unmatched_sends {
        rows.push(Message {
            from: Some(e.proc),
            to: peer(e.peer),
            tag: e.tag,
            size: e.size,
            send_time: Some(e.time),
            recv_time: None,
            latency: None,
            completed_time: None,
            latency_to_completion: None,
            unmatched: Some(("send", e.kind)),
        });
    }
    for e in &r.unmatched_recvs {
        rows.push(Message {
            from: peer(e.peer),
            to: Some(e.proc),
            tag: e.tag,
            size: e.size,
            send_time: None,
            recv_time: Some(e.time),
            latency: None,
            completed_time: None,
            latency_to_completion: None,
            unmatched: Some(("recv", e.kind)),
        });
    }
}

/// `messages()` of a database: the pairs in the JSON's order (by sender,
/// then in the sender's record order), then the unmatched sends and
/// receives; with `align_clocks`, on one clock as `--align-clocks` puts them.
pub(crate) fn messages_table(db: &Database, args: &CommArgs, align_clocks: bool) -> Built {
    let scope = CommScope::new(db, args, false)?;
    let mut warnings = scope.warnings.clone();
    let clocks = if align_clocks {
        let (c, w) = estimate_clock_offsets(db);
        warnings.extend(texts(&w));
        c
    } else {
        ClockOffsets::none()
    };
    let mut rows = Vec::new();
    let (mut report, w) = pair_messages_in(
        db,
        &scope.selection(),
        scope.ranges.as_ref(),
        Vec::new,
        |chunk: &mut Vec<Message>, p| {
            chunk.push(if align_clocks {
                Message::pair(&clocks.align_pair(p))
            } else {
                Message::pair(p)
            })
        },
        &mut |chunk| rows.extend(chunk),
    );
    warnings.extend(texts(&w));
    if align_clocks {
        clocks.align_pairs(&mut report);
    }
    unmatched(&report, &mut rows);
    let table = Columns::over(&rows)
        .opt_rank("from", |m| m.from)
        .opt_rank("to", |m| m.to)
        .int("tag", |m| m.tag)
        .int("size", |m| m.size)
        .opt_real("send_time", |m| m.send_time)
        .opt_real("recv_time", |m| m.recv_time)
        .opt_real("latency", |m| m.latency)
        .opt_real("completed_time", |m| m.completed_time)
        .opt_real("latency_to_completion", |m| m.latency_to_completion)
        .opt_text("unmatched", |m| m.unmatched.map(|u| u.0))
        .opt_text("type", |m| m.unmatched.map(|u| u.1))
        .build();
    Ok((table, warnings))
}
