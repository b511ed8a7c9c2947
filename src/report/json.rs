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
}

/// `summary --format json`: `order` selects and orders the functions.
pub fn write_summary(
    w: &mut dyn Write,
    database: &str,
    s: &FunctionSummary,
    order: &[usize],
    sort: Option<SortKey>,
    warnings: &[Warning],
) -> io::Result<()> {
    let doc = SummaryJson {
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
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    };
    write_pretty(w, &doc)
}

/// `info --format json`.
pub fn write_info(w: &mut dyn Write, info: &DatabaseInfo, warnings: &[Warning]) -> io::Result<()> {
    #[derive(Serialize)]
    struct InfoJson<'a> {
        #[serde(flatten)]
        info: &'a DatabaseInfo,
        warnings: Vec<String>,
    }
    write_pretty(
        w,
        &InfoJson {
            info,
            warnings: warnings.iter().map(|w| w.to_string()).collect(),
        },
    )
}

/// Pretty JSON followed by a newline.
pub fn write_pretty(w: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value).map_err(io::Error::other)?;
    writeln!(w)
}
