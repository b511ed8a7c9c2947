//! The tables of a bl_prof database.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray, UInt32Array};
use arrow_schema::DataType;
use profparse::{
    Database, RegionFilter, Unfiltered, base_summary, fold_process_trees, select_calls,
};

use crate::arrow_stream::{Built, batch};
use crate::errors::texts;
use crate::tree_table::{TreeRows, tree_table};

/// `functions()` of a database: `summary --format json`'s `functions`.
pub(crate) fn blprof_functions(db: &Database) -> Built {
    let mut warnings = Vec::new();
    let profile = db.base_profile(&mut warnings)?;
    if profile.is_empty() {
        // The CLI's error (`summary`): the base header names the database.
        return Err(profparse::Error::NothingReadable {
            location: profparse::Location::File {
                path: db.dir().join("bl_prof_H"),
            },
            message: "no process has a readable base block".into(),
        });
    }
    let summary = base_summary(&profile, 0);
    let f = &summary.functions;
    let s = |g: fn(&profparse::FunctionStats) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values(f.iter().map(g)))
    };
    let i = |g: fn(&profparse::FunctionStats) -> i64| -> ArrayRef {
        Arc::new(Int64Array::from_iter_values(f.iter().map(g)))
    };
    let proc = |g: fn(&profparse::FunctionStats) -> Option<usize>| -> ArrayRef {
        Arc::new(
            f.iter()
                .map(|x| g(x).map(|p| p as u32))
                .collect::<UInt32Array>(),
        )
    };
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        f.iter().map(|x| x.name.as_str()),
    ));
    use DataType::{Float64, Int64, UInt32, Utf8};
    let table = batch(vec![
        ("name", Utf8, false, names),
        ("calls", Int64, false, i(|x| x.ncalls_total)),
        ("ncalls", Int64, false, i(|x| x.ncalls)),
        ("min", Float64, false, s(|x| x.min)),
        ("avg", Float64, false, s(|x| x.avg)),
        ("max", Float64, false, s(|x| x.max)),
        ("stddev", Float64, false, s(|x| x.stddev)),
        ("coeff_var", Float64, false, s(|x| x.coeff_var)),
        ("percent", Float64, false, s(|x| x.percent)),
        ("min_proc", UInt32, true, proc(|x| x.min_proc)),
        ("max_proc", UInt32, true, proc(|x| x.max_proc)),
        (
            "imbalance",
            Float64,
            true,
            Arc::new(f.iter().map(|x| x.imbalance).collect::<Float64Array>()),
        ),
    ]);
    Ok((table, texts(&warnings)))
}

/// `calltree(rank)` of a database: one row per (node, rank) of the
/// per-process trees, nodes numbered by the pre-order of the tree merged
/// over the processes in the table (the tree `calltree --format json`
/// shows), so that a node's number is the same at every rank; subtrees
/// without calls (outside the selected regions) left out, as the CLI does.
pub(crate) fn blprof_calltree(
    db: &Database,
    rank: Option<usize>,
    include: &[String],
    exclude: &[String],
) -> Built {
    db.require(profparse::Part::Trace)?;
    let mut warnings = texts(db.trace_warnings());
    let filter = RegionFilter::with_names(None, include, exclude);
    let (regions, selection) = select_calls(db, &filter, Unfiltered::Everything);
    warnings.extend(texts(&regions.warnings));
    let selection = selection?;
    // Each process's tree becomes rows as soon as it is built, in parallel
    // runs of processes, and is dropped.
    let (runs, w) = fold_process_trees(db, &selection, rank, TreeRows::for_trees, |rows, p, t| {
        rows.push_tree_sharing_names(Some(p), t, true)
    });
    warnings.extend(texts(&w));
    if let Some(r) = rank
        && runs.iter().all(|rows| rows.trees() == 0)
    {
        return Err(profparse::Error::NotFound(format!(
            "rank {r}: no call traces for that process"
        )));
    }
    Ok((tree_table(runs), warnings))
}
