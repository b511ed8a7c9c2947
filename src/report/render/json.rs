//! JSON wire types: the documented machine contract (docs/JSON.md), kept
//! apart from the models so that the models can change without breaking it.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::function_stats::{FunctionStats, FunctionSummary, SortKey};
use crate::analysis::info::DatabaseInfo;
use crate::error::Warning;

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

/// The texts of the warnings about damage, for a report's `warnings`.
pub fn warning_texts(warnings: &[Warning]) -> Vec<String> {
    warnings
        .iter()
        .filter(|w| !w.is_note())
        .map(ToString::to_string)
        .collect()
}

/// The texts of the notes (known quirks of healthy data), for a report's
/// `notes` (left out when there are none).
pub fn note_texts(warnings: &[Warning]) -> Vec<String> {
    warnings
        .iter()
        .filter(|w| w.is_note())
        .map(ToString::to_string)
        .collect()
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

/// The JSON of `info`.
#[derive(Serialize)]
pub struct InfoJson<'a> {
    #[serde(flatten)]
    pub info: &'a DatabaseInfo,
    pub warnings: Vec<String>,
}

/// Pretty JSON followed by a newline.
pub fn write_pretty(w: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value).map_err(io_error)?;
    writeln!(w)
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

#[derive(Serialize)]
struct ProcRange {
    region: String,
    number: i32,
    start: f64,
    stop: f64,
}

/// The JSON of `regions`.
#[derive(Serialize)]
pub struct RegionsJson<'a> {
    regions: &'a [crate::analysis::regions::RegionStats],
    proc: Option<usize>,
    ranges: Option<Vec<ProcRange>>,
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

/// The JSON of `regions`, with the ranges of `proc` in time order.
pub fn regions_json<'a>(
    stats: &'a [crate::analysis::regions::RegionStats],
    proc: Option<&crate::analysis::regions::ProcRegions>,
    names: &dyn Fn(i32) -> String,
    warnings: &[Warning],
) -> RegionsJson<'a> {
    let ranges = proc.map(|p| {
        let mut v: Vec<ProcRange> = p
            .ranges
            .iter()
            .flat_map(|(n, rs)| {
                rs.iter().map(move |r| ProcRange {
                    region: names(*n),
                    number: *n,
                    start: r.start,
                    stop: r.stop,
                })
            })
            .collect();
        v.sort_by(|a, b| a.start.total_cmp(&b.start));
        v
    });
    RegionsJson {
        regions: stats,
        proc: proc.map(|p| p.proc),
        ranges,
        warnings: warning_texts(warnings),
        notes: note_texts(warnings),
    }
}

/// A JSON writer's error as an I/O error that keeps its kind (a closed pipe
/// must stay `BrokenPipe`, which is not an error for us).
pub fn io_error(e: serde_json::Error) -> io::Error {
    match e.io_error_kind() {
        Some(kind) => io::Error::new(kind, e),
        None => io::Error::other(e),
    }
}
