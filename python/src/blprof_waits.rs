//! `waits()` of a database: wait states, as `comm waits --format json`,
//! one of its lists per table.

use profparse::{Database, Part, WaitState, wait_states};

use crate::arrow_stream::Built;
use crate::columns::Columns;
use crate::comm_scope::{CommArgs, TableScope};
use crate::errors::texts;

/// The rows of `waits()`: the JSON's list of that name.
#[derive(Clone, Copy)]
pub(crate) enum WaitRows {
    /// `procs`: seconds waited per state and process, and caused.
    Proc,
    /// `types`: per wait state and MPI call type.
    Type,
    /// `paths`: per call path and MPI call type (needs call traces).
    Path,
    /// `top`: the longest waits, longest first (`top` of them; all: `None`).
    Wait { top: Option<usize> },
}

impl WaitRows {
    /// The rows named by Python's `by=`.
    pub(crate) fn parse(by: &str, top: Option<usize>) -> pyo3::PyResult<Self> {
        Ok(match by {
            "proc" => WaitRows::Proc,
            "type" => WaitRows::Type,
            "path" => WaitRows::Path,
            "wait" => WaitRows::Wait { top },
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "by={by:?}: expected one of \"proc\", \"type\", \"path\", \"wait\""
                )));
            }
        })
    }
}

/// A wait state as the JSON names it.
fn state(s: WaitState) -> &'static str {
    match s {
        WaitState::LateSender => "late_sender",
        WaitState::LateSenderWrongOrder => "late_sender_wrong_order",
        WaitState::LateReceiver => "late_receiver",
        WaitState::LateBroadcast => "late_broadcast",
        WaitState::EarlyReduce => "early_reduce",
        WaitState::Barrier => "barrier",
        WaitState::NxN => "nxn",
    }
}

/// `waits(align_clocks, by=...)` of a database.
pub(crate) fn waits_table(
    db: &Database,
    args: &CommArgs,
    align_clocks: bool,
    by: WaitRows,
) -> Built {
    let scope = TableScope::new(db, args, false, align_clocks)?;
    let traced = db.parts().contains(&Part::Trace);
    if let WaitRows::Path = by {
        // The JSON's `paths` is null without call traces: the part is missing.
        db.require(Part::Trace)?;
    }
    let mut warnings = scope.warnings;
    let top = match by {
        WaitRows::Wait { top } => top.unwrap_or(usize::MAX),
        _ => 0,
    };
    let paths = traced && matches!(by, WaitRows::Path);
    let (r, w) = wait_states(db, &scope.comm, top, paths);
    warnings.extend(texts(&w));
    let table = match by {
        WaitRows::Proc => Columns::over(&r.procs)
            .rank("proc", |p| p.proc)
            .real("late_sender", |p| p.waited.late_sender)
            .real("late_sender_wrong_order", |p| {
                p.waited.late_sender_wrong_order
            })
            .real("late_receiver", |p| p.waited.late_receiver)
            .real("late_broadcast", |p| p.waited.late_broadcast)
            .real("early_reduce", |p| p.waited.early_reduce)
            .real("barrier", |p| p.waited.barrier)
            .real("nxn", |p| p.waited.nxn)
            .real("total", |p| p.waited.total)
            .real("caused", |p| p.caused)
            .build(),
        WaitRows::Type => Columns::over(&r.types)
            .text("state", |t| state(t.state))
            .int("type", |t| t.kind)
            .text("name", |t| t.name)
            .count("waits", |t| t.waits)
            .real("seconds", |t| t.seconds)
            .build(),
        WaitRows::Path => Columns::over(r.paths.as_deref().unwrap_or_default())
            .texts("path", |p| &p.path)
            .int("type", |p| p.kind)
            .text("name", |p| &p.name)
            .count("waits", |p| p.waits)
            .real("seconds", |p| p.seconds)
            .build(),
        WaitRows::Wait { .. } => Columns::over(&r.top)
            .text("state", |w| state(w.state))
            .rank("proc", |w| w.proc)
            .int("type", |w| w.kind)
            .text("name", |w| w.name)
            .real("entry", |w| w.entry)
            .real("seconds", |w| w.seconds)
            .opt_rank("caused_by", |w| w.caused_by)
            .build(),
    };
    Ok((table, warnings))
}
