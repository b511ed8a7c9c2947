//! `compare RUN...` as a [`Report`]: per function, its time in each run,
//! speedup and parallel efficiency against the first run.

use serde::Serialize;

use crate::analysis::tinyprofiler::{CompareMetric, Comparison, FunctionScaling, Scaling};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::numfmt::human::{duration, fixed_not_zero};
use crate::report::numfmt::round_trip::time_text;

pub struct CompareReport<'a> {
    pub comparison: &'a Comparison,
    /// Rows kept in the table (all rows in JSON and CSV).
    pub top: Option<usize>,
}

#[derive(Serialize)]
pub struct CompareWire<'a> {
    pub metric: CompareMetric,
    pub scaling: Scaling,
    pub min_percent: f64,
    pub runs: Vec<RunWire<'a>>,
    /// The total-time line compared like a function.
    pub total: FunctionWire<'a>,
    pub functions: Vec<FunctionWire<'a>>,
    pub warnings: Vec<String>,
}

#[derive(Serialize)]
pub struct RunWire<'a> {
    pub label: &'a str,
    /// `tinyprofiler` or `blprof`.
    pub kind: &'a str,
    pub nprocs: Option<u64>,
}

#[derive(Serialize)]
pub struct FunctionWire<'a> {
    pub name: &'a str,
    pub times: &'a [Option<f64>],
    pub speedup: &'a [Option<f64>],
    pub efficiency: &'a [Option<f64>],
    /// At least `min_percent` of the total time in some run.
    pub matters: bool,
}

fn wire(f: &FunctionScaling) -> FunctionWire<'_> {
    FunctionWire {
        name: &f.name,
        times: &f.times,
        speedup: &f.speedup,
        efficiency: &f.efficiency,
        matters: f.matters,
    }
}

fn metric_words(m: CompareMetric) -> &'static str {
    match m {
        CompareMetric::Inclusive => "average inclusive time over ranks",
        CompareMetric::Exclusive => "average exclusive time over ranks",
        CompareMetric::Max => "maximum inclusive time over ranks",
    }
}

fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or_else(|| "-".to_owned(), f)
}

impl Report for CompareReport<'_> {
    type Wire<'w>
        = CompareWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> CompareWire<'_> {
        let c = self.comparison;
        CompareWire {
            metric: c.metric,
            scaling: c.scaling,
            min_percent: c.min_percent,
            runs: c
                .labels
                .iter()
                .zip(&c.nprocs)
                .zip(&c.kinds)
                .map(|((label, n), kind)| RunWire {
                    label,
                    kind,
                    nprocs: *n,
                })
                .collect(),
            total: wire(&c.total),
            functions: c.functions.iter().map(wire).collect(),
            warnings: Vec::new(),
        }
    }

    fn document(&self) -> Document<'_> {
        let c = self.comparison;
        let n = c.labels.len();
        let mut doc = Document::new();
        doc.prose(format!(
            "{} scaling of {n} runs against run 1 ({}). Speedup S = t1/ti; efficiency E = {}.",
            match c.scaling {
                Scaling::Strong => "Strong",
                Scaling::Weak => "Weak",
            },
            metric_words(c.metric),
            match c.scaling {
                Scaling::Strong => "t1·n1/(ti·ni), n the ranks",
                Scaling::Weak => "t1/ti",
            }
        ));
        doc.line("");
        let runs = c
            .labels
            .iter()
            .zip(&c.nprocs)
            .enumerate()
            .map(|(i, (l, n))| {
                vec![
                    (i + 1).to_string(),
                    n.map_or_else(|| "?".to_owned(), |n| n.to_string()),
                    l.clone(),
                ]
            });
        doc.table(Table::new(
            vec![
                Column::right("Run", 3),
                Column::right("Ranks", 5).after("  "),
                Column::left("Input", 0).after("  "),
            ],
            runs,
        ));
        doc.line("");
        let shown: Vec<&FunctionScaling> = std::iter::once(&c.total)
            .chain(
                c.functions
                    .iter()
                    .filter(|f| f.matters)
                    .take(self.top.unwrap_or(usize::MAX)),
            )
            .collect();
        let width = shown
            .iter()
            .map(|f| f.name.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        let mut columns = vec![Column::left("Name", width)];
        for i in 1..=n {
            columns.push(Column::right(format!("t{i}"), 8).after("  "));
        }
        // Narrow outputs keep the times and efficiencies: a speedup is the
        // efficiency times the ratio of ranks.
        for i in 2..=n {
            columns.push(Column::right(format!("S{i}"), 5).after("  ").droppable(1));
        }
        for i in 2..=n {
            columns.push(Column::right(format!("E{i}"), 6).after("  "));
        }
        let rows: Vec<Vec<String>> = shown
            .into_iter()
            .map(move |f| {
                let mut row = vec![f.name.clone()];
                row.extend(f.times.iter().map(|t| opt(*t, duration)));
                row.extend(
                    f.speedup
                        .iter()
                        .skip(1)
                        .map(|s| opt(*s, |x| fixed_not_zero(x, 2))),
                );
                row.extend(
                    f.efficiency
                        .iter()
                        .skip(1)
                        .map(|e| opt(*e, |x| format!("{}%", fixed_not_zero(x * 100.0, 1)))),
                );
                row
            })
            .collect();
        // Columns as wide as their widest cell, so that the numbers line up
        // (a sub-nanosecond `2.000e-12 s`, a speedup of `0.0012`).
        for (i, c) in columns.iter_mut().enumerate().skip(1) {
            let widest = rows.iter().map(|r| r[i].chars().count()).max();
            c.width = c.width.max(widest.unwrap_or(0));
        }
        doc.table(Table::new(columns, rows.into_iter()));
        doc.line("");
        let minor = c.functions.iter().filter(|f| !f.matters).count();
        doc.prose(format!(
            "Timers by worst efficiency first; `total` is the TinyProfiler total time (a database's calcEndTime). {minor} timer(s) under {}% of the total time in every run not shown (--min-percent 0 shows them). `-`: not in that run.",
            c.min_percent
        ));
        doc
    }

    fn csv(&self) -> Option<Table<'_>> {
        let c = self.comparison;
        let mut columns = vec![Column::left("name", 0), Column::left("matters", 0)];
        for i in 1..=c.labels.len() {
            columns.push(Column::left(format!("time_{i}"), 0));
        }
        for i in 1..=c.labels.len() {
            columns.push(Column::left(format!("speedup_{i}"), 0));
        }
        for i in 1..=c.labels.len() {
            columns.push(Column::left(format!("efficiency_{i}"), 0));
        }
        let rows = std::iter::once(&c.total).chain(&c.functions).map(|f| {
            let cell = |x: &Option<f64>| x.map_or_else(String::new, time_text);
            let mut row = vec![f.name.clone(), f.matters.to_string()];
            row.extend(f.times.iter().map(cell));
            row.extend(f.speedup.iter().map(cell));
            row.extend(f.efficiency.iter().map(cell));
            row
        });
        Some(Table::new(columns, rows))
    }
}
