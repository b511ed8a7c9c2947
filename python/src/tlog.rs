//! The tables of a tlog trace: its intervals per kind (`tlog summary`) and
//! the nesting of its intervals as a call tree per process (`tlog tree`).

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, StringArray, UInt32Array, UInt64Array};
use arrow_schema::DataType;
use profparse::{EventNames, TlogFile, TlogTrees, tlog_summary};

use crate::arrow_stream::{Built, batch};
use crate::errors::texts;
use crate::tree_table::{TreeRows, tree_table};

/// The event names: the file's at `path` (as `--event-names`), else the
/// Java viewer's.
fn names(path: Option<&Path>) -> profparse::Result<EventNames> {
    path.map_or_else(|| Ok(EventNames::default()), EventNames::read)
}

/// `functions()` of a tlog trace: the interval rows of `tlog summary
/// --format json`'s `across` (one row per kind of interval; min, avg and
/// max are over processes of a process's total seconds). Point events
/// carry counts, not seconds, and stay out of a table of times.
pub(crate) fn tlog_functions(tlog: &TlogFile, event_names: Option<&Path>) -> Built {
    let s = tlog_summary(tlog, &names(event_names)?, TlogTrees::Skip);
    let rows: Vec<_> = s.across.iter().filter(|a| a.role == "interval").collect();
    let seconds = |g: fn(&profparse::TlogAcross) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values(rows.iter().map(|a| g(a))))
    };
    let count = |g: fn(&profparse::TlogAcross) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|a| g(a))))
    };
    let proc = |g: fn(&profparse::TlogAcross) -> u32| -> ArrayRef {
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|a| g(a))))
    };
    use DataType::{Float64, UInt32, UInt64, Utf8};
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        rows.iter().map(|a| a.name.as_str()),
    ));
    let table = batch(vec![
        ("name", Utf8, false, names),
        ("kind", UInt32, false, proc(|a| u32::from(a.kind))),
        ("calls", UInt64, false, count(|a| a.count)),
        ("procs", UInt32, false, proc(|a| a.procs as u32)),
        ("min", Float64, false, seconds(|a| a.min)),
        ("avg", Float64, false, seconds(|a| a.avg)),
        ("max", Float64, false, seconds(|a| a.max)),
        ("max_proc", UInt32, false, proc(|a| u32::from(a.max_proc))),
    ]);
    Ok((table, texts(&s.warnings)))
}

/// `calltree(rank)` of a tlog trace: one row per (node, rank) of the
/// per-process trees `tlog tree --proc N` shows, nodes numbered by the
/// pre-order of the tree merged over the processes in the table.
pub(crate) fn tlog_calltree(
    tlog: &TlogFile,
    rank: Option<usize>,
    event_names: Option<&Path>,
) -> Built {
    let s = tlog_summary(tlog, &names(event_names)?, TlogTrees::Build);
    let warnings = texts(&s.warnings);
    let mut rows = TreeRows::for_trees(s.trees.len());
    for (p, tree) in s.trees {
        let p = usize::from(p);
        if rank.is_none_or(|r| r == p) {
            rows.push_tree(Some(p), &tree, true);
        }
    }
    if let Some(r) = rank
        && rows.trees() == 0
    {
        return Err(profparse::Error::NotFound(format!(
            "rank {r}: no events of that process"
        )));
    }
    Ok((tree_table(vec![rows]), warnings))
}
