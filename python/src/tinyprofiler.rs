//! The tables of a TinyProfiler job log (the last run's report, as the
//! CLI shows it).

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, StringArray, UInt64Array};
use arrow_schema::DataType;
use profparse::CallTree;

use crate::arrow_stream::{Built, batch};
use crate::tree_table::{TreeRows, tree_table};

/// The report of run `run` of a TinyProfiler log (1 = the first), by
/// default the last, as the CLI's `--run`.
fn tiny_report<'a>(
    log: &'a profparse::TinyProfilerLog,
    path: &str,
    run: Option<usize>,
) -> profparse::Result<&'a profparse::TinyProfilerReport> {
    profparse::tinyprofiler_run(log, run, path)
}

/// `functions()` of a TinyProfiler log: `summary --format json`'s
/// `functions` (the last run's timers; the `Other` row is left out, as it
/// is in that list).
pub(crate) fn tiny_functions(
    log: &profparse::TinyProfilerLog,
    path: &str,
    run: Option<usize>,
) -> Built {
    let t = &tiny_report(log, path, run)?.tables.timers;
    let s = |g: &dyn Fn(usize) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values((0..t.len()).map(g)))
    };
    use DataType::{Float64, UInt64, Utf8};
    let table = batch(vec![
        (
            "name",
            Utf8,
            false,
            Arc::new(StringArray::from_iter_values(
                t.iter().map(|x| x.name.as_str()),
            )),
        ),
        (
            "calls",
            UInt64,
            false,
            Arc::new(UInt64Array::from_iter_values(t.iter().map(|x| x.ncalls))),
        ),
        ("min", Float64, false, s(&|i| t[i].exclusive.min)),
        ("avg", Float64, false, s(&|i| t[i].exclusive.avg)),
        ("max", Float64, false, s(&|i| t[i].exclusive.max)),
        ("inclusive_min", Float64, false, s(&|i| t[i].inclusive.min)),
        ("inclusive_avg", Float64, false, s(&|i| t[i].inclusive.avg)),
        ("inclusive_max", Float64, false, s(&|i| t[i].inclusive.max)),
        ("percent", Float64, false, s(&|i| t[i].exclusive_percent)),
        (
            "inclusive_percent",
            Float64,
            false,
            s(&|i| t[i].inclusive_percent),
        ),
    ]);
    Ok((table, Vec::new()))
}

/// `calltree()` of a TinyProfiler log: the flat tree `calltree LOG` shows
/// (timers as roots, `REGION name` roots holding their timers), one row per
/// node with no rank: calls and times summed over the ranks, as the JSON's.
pub(crate) fn tiny_calltree(
    log: &profparse::TinyProfilerLog,
    path: &str,
    rank: Option<usize>,
    run: Option<usize>,
) -> Built {
    if rank.is_some() {
        return Err(profparse::Error::NotFound(format!(
            "{path}: a TinyProfiler report has no per-rank figures (its tables give the minimum, mean and maximum over ranks): no tree of one rank"
        )));
    }
    let (tree, _) = profparse::tinyprofiler_tree(tiny_report(log, path, run)?);
    let tree: CallTree = tree.map(|_, s| s.total);
    let mut rows = TreeRows::default();
    rows.push_tree(None, &tree, true);
    Ok((tree_table(vec![rows]), Vec::new()))
}
