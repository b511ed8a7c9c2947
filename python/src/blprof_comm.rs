//! `comm()` of a database: its MPI calls counted per call type or process,
//! as `comm stats --format json`.

use profparse::{Database, comm_stats};

use crate::arrow_stream::Built;
use crate::columns::Columns;
use crate::comm_scope::{CommArgs, TableScope};
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
    let scope = TableScope::new(db, args, false, false)?;
    let (s, w) = comm_stats(db, &scope.comm);
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
