//! The machine forms of the function statistics: the JSON of `summary`
//! and `trace-summary` (docs/JSON.md, kept apart from the analysis's
//! types so that those can change without breaking the contract) and the
//! full-precision CSV table of `summary`.

use serde::Serialize;

use crate::analysis::function_stats::{FunctionStats, FunctionSummary, SortKey};
use crate::error::Warning;
use crate::report::document::{Column, Table};
use crate::report::renderers::json::{note_texts, warning_texts};

#[derive(Serialize)]
pub struct FunctionJson<'a> {
    pub name: &'a str,
    pub ncalls: i64,
    pub ncalls_total: i64,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub stddev: f64,
    pub coeff_var: f64,
    pub percent: f64,
    pub min_proc: Option<usize>,
    pub max_proc: Option<usize>,
    pub imbalance: Option<f64>,
}

impl<'a> From<&'a FunctionStats> for FunctionJson<'a> {
    fn from(f: &'a FunctionStats) -> Self {
        FunctionJson {
            name: &f.name,
            ncalls: f.ncalls,
            ncalls_total: f.ncalls_total,
            min: f.min,
            avg: f.avg,
            max: f.max,
            stddev: f.stddev,
            coeff_var: f.coeff_var,
            percent: f.percent,
            min_proc: f.min_proc,
            max_proc: f.max_proc,
            imbalance: f.imbalance,
        }
    }
}

#[derive(Serialize)]
pub struct SummaryJson<'a> {
    pub database: &'a str,
    /// Processes whose data went into the statistics.
    pub nprocs: usize,
    pub selected_proc: usize,
    pub sort: Option<SortKey>,
    pub functions: Vec<FunctionJson<'a>>,
    pub total_timers: f64,
    pub calc_run_time: Option<f64>,
    pub percent_coverage: Option<f64>,
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The JSON of `summary` (docs/JSON.md): `order` selects and orders the
/// functions.
pub fn summary_json<'a>(
    database: &'a str,
    s: &'a FunctionSummary,
    order: &[usize],
    sort: Option<SortKey>,
    warnings: &[Warning],
) -> SummaryJson<'a> {
    SummaryJson {
        database,
        nprocs: s.nprocs,
        selected_proc: s.selected_proc,
        sort,
        functions: order
            .iter()
            .map(|&i| FunctionJson::from(&s.functions[i]))
            .collect(),
        total_timers: s.total_timers,
        calc_run_time: s.run_time,
        percent_coverage: s.percent_coverage,
        warnings: warning_texts(warnings),
        notes: note_texts(warnings),
    }
}

#[derive(Serialize)]
struct NameTime<'a> {
    name: &'a str,
    time: f64,
}

/// The JSON of `trace-summary`: the summary object plus the trace fields.
#[derive(Serialize)]
pub struct TraceSummaryJson<'a> {
    #[serde(flatten)]
    summary: SummaryJson<'a>,
    inclusive: Vec<NameTime<'a>>,
    max_call_stack_depth: usize,
    recursive_functions: &'a [String],
    calc_run_time: f64,
    range_run_time: f64,
    region_filter: RegionFilterJson,
}

/// The JSON of `trace-summary`: `order` selects and orders the functions.
pub fn trace_summary_json<'a>(
    database: &'a str,
    t: &'a crate::analysis::trace_summary::TraceSummary,
    order: &[usize],
    sort: Option<SortKey>,
    filter: &crate::analysis::filter::RegionFilter,
    warnings: &[Warning],
) -> TraceSummaryJson<'a> {
    TraceSummaryJson {
        summary: summary_json(database, &t.summary, order, sort, warnings),
        inclusive: t
            .inclusive
            .iter()
            .map(|(n, v)| NameTime { name: n, time: *v })
            .collect(),
        max_call_stack_depth: t.max_call_stack_depth,
        recursive_functions: &t.recursive_functions,
        calc_run_time: t.calc_run_time,
        range_run_time: t.range_run_time,
        region_filter: RegionFilterJson::from(filter),
    }
}

/// The filter a report applied (shared with the comm reports).
type RegionFilterJson = crate::analysis::filter::FilterNames;

fn opt_csv<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// `summary --format csv`: one row per function in `order`, full precision.
pub fn summary_csv(s: &FunctionSummary, order: Vec<usize>) -> Table<'_> {
    let columns = [
        "name",
        "ncalls",
        "ncalls_total",
        "min",
        "avg",
        "max",
        "stddev",
        "coeff_var",
        "percent",
        "min_proc",
        "max_proc",
        "imbalance",
    ];
    let rows = order.into_iter().map(move |i| {
        let f = &s.functions[i];
        vec![
            f.name.clone(),
            f.ncalls.to_string(),
            f.ncalls_total.to_string(),
            f.min.to_string(),
            f.avg.to_string(),
            f.max.to_string(),
            f.stddev.to_string(),
            f.coeff_var.to_string(),
            f.percent.to_string(),
            opt_csv(f.min_proc),
            opt_csv(f.max_proc),
            opt_csv(f.imbalance),
        ]
    });
    Table::new(
        columns.into_iter().map(|h| Column::left(h, 0)).collect(),
        rows,
    )
}
