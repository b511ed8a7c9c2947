//! Renderers of a `history` ([`crate::analysis::history`]): a table of the
//! steps for people, JSON (docs/JSON.md, `history`), CSV (one row per
//! timer and run), the SVG chart of the top timers ([`svg`]) and the HTML
//! page of their series and steps ([`html`]).

pub mod html;
pub mod svg;

use serde::Serialize;

use crate::analysis::history::{History, TimerHistory};
use crate::analysis::history::change_points::level;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::call_path;
use crate::report::numfmt::printf::c_g;
use crate::report::regress::{percent, seconds};
use crate::report::Report;

/// Everything a history report shows.
#[derive(Debug, Clone)]
pub struct HistoryReport {
    /// The input kind (`tinyprofiler`, `blprof`, …).
    pub kind: &'static str,
    /// `exclusive` or `inclusive`.
    pub metric: &'static str,
    /// Timers keyed by call path (else by name).
    pub by_path: bool,
    /// The runs in series order, as given.
    pub runs: Vec<String>,
    /// The series and their steps.
    pub history: History,
    /// Tables list steady timers too.
    pub all: bool,
    /// Listed in the JSON.
    pub warnings: Vec<String>,
}

/// The medians of the runs before and after change point `k` of `t` (up
/// to its neighbours), over the runs with a finite value.
pub(crate) fn levels(t: &TimerHistory, k: usize) -> (f64, f64) {
    let cps = &t.change_points;
    let from = if k == 0 { 0 } else { cps[k - 1].index };
    let to = cps.get(k + 1).map_or(t.values.len(), |c| c.index);
    let at = cps[k].index;
    (level(&t.values[from..at]), level(&t.values[at..to]))
}

/// A step's size for people: `+7.1 %`, or `new` for a timer that appears.
fn change_text(change: f64) -> String {
    if change.is_finite() {
        percent(change)
    } else if change == f64::INFINITY {
        "new".to_owned()
    } else {
        "-".to_owned()
    }
}

impl HistoryReport {
    fn stepping(&self) -> usize {
        self.history
            .timers
            .iter()
            .filter(|t| !t.change_points.is_empty())
            .count()
    }

    /// What the series are and what counts as a step, in a sentence.
    fn criteria(&self) -> String {
        let o = &self.history.options;
        format!(
            "{} runs ({}), {} seconds per timer {}, in this order; a step is a change of at least {} with p < {}.",
            self.history.runs,
            self.kind,
            self.metric,
            if self.by_path { "call path" } else { "name" },
            percent(o.min_change).trim_start_matches('+'),
            c_g(o.alpha, 3),
        )
    }

    /// The run's name as given, with its place in the series.
    fn run_name(&self, index: usize) -> String {
        format!("{} ({})", index + 1, self.runs.get(index).map_or("?", String::as_str))
    }
}

/// The JSON wire value (docs/JSON.md, `history`).
#[derive(Serialize)]
pub struct Wire<'a> {
    kind: &'static str,
    metric: &'static str,
    by: &'static str,
    alpha: f64,
    min_change: f64,
    window: usize,
    runs: Vec<RunWire<'a>>,
    timers: Vec<TimerWire<'a>>,
    warnings: &'a [String],
}

#[derive(Serialize)]
struct RunWire<'a> {
    index: usize,
    path: &'a str,
    /// No input kind records when it ran: always null for now, kept so
    /// that a reader need not change when one does.
    date: Option<&'a str>,
}

#[derive(Serialize)]
struct TimerWire<'a> {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a [String]>,
    values: &'a [f64],
    change_points: Vec<StepWire>,
}

#[derive(Serialize)]
struct StepWire {
    index: usize,
    /// null for a timer that appears (from 0 s).
    change: Option<f64>,
    p: f64,
    before: f64,
    after: f64,
}

impl Report for HistoryReport {
    type Wire<'a> = Wire<'a>;

    fn wire(&self) -> Wire<'_> {
        let o = &self.history.options;
        Wire {
            kind: self.kind,
            metric: self.metric,
            by: if self.by_path { "path" } else { "name" },
            alpha: o.alpha,
            min_change: o.min_change,
            window: o.window,
            runs: self
                .runs
                .iter()
                .enumerate()
                .map(|(index, path)| RunWire {
                    index,
                    path,
                    date: None,
                })
                .collect(),
            timers: self
                .history
                .timers
                .iter()
                .map(|t| TimerWire {
                    name: t.path.join(" > "),
                    path: self.by_path.then_some(t.path.as_slice()),
                    values: &t.values,
                    change_points: (0..t.change_points.len())
                        .map(|k| {
                            let c = &t.change_points[k];
                            let (before, after) = levels(t, k);
                            StepWire {
                                index: c.index,
                                change: c.change.is_finite().then_some(c.change),
                                p: c.p,
                                before,
                                after,
                            }
                        })
                        .collect(),
                })
                .collect(),
            warnings: &self.warnings,
        }
    }

    fn document(&self) -> Document<'_> {
        let h = &self.history;
        let mut doc = Document::new();
        doc.prose(self.criteria());
        doc.line("");
        let mut rows = Vec::new();
        for t in &h.timers {
            for (k, c) in t.change_points.iter().enumerate() {
                let (before, after) = levels(t, k);
                rows.push(vec![
                    call_path::cell(&t.path),
                    self.run_name(c.index),
                    seconds(before),
                    seconds(after),
                    change_text(c.change),
                    c_g(c.p, 2),
                ]);
            }
            if self.all && t.change_points.is_empty() {
                let level = level(&t.values);
                rows.push(vec![
                    call_path::cell(&t.path),
                    "-".to_owned(),
                    seconds(level),
                    seconds(level),
                    "steady".to_owned(),
                    "-".to_owned(),
                ]);
            }
        }
        if !rows.is_empty() {
            // Run names are as long as their paths: the column is as wide
            // as the longest.
            let run_width = rows.iter().map(|r| r[1].chars().count()).max().unwrap_or(0);
            let columns = vec![
                Column::path(if self.by_path { "Call path" } else { "Timer" }, 0),
                Column::left("From run", run_width.max(8)).after("  "),
                Column::right("Before", 9).after("  "),
                Column::right("After", 9).after("  "),
                Column::right("Change", 8).after("  "),
                Column::right("p", 7).after("  ").droppable(1),
            ];
            doc.table(Table::new(columns, rows.into_iter()));
            doc.line("");
        }
        let steady = h.timers.len() - self.stepping();
        let hidden = if self.all || steady == 0 {
            String::new()
        } else {
            " (--all lists them)".to_owned()
        };
        doc.prose(format!(
            "{} timer(s) with steps, {steady} steady{hidden}.",
            self.stepping()
        ));
        doc
    }

    fn csv(&self) -> Option<Table<'_>> {
        let rows = self.history.timers.iter().flat_map(move |t| {
            t.values.iter().enumerate().map(move |(i, v)| {
                let step = t
                    .change_points
                    .iter()
                    .find(|c| c.index == i)
                    .map_or_else(String::new, |c| c.change.to_string());
                vec![
                    t.path.join(" > "),
                    i.to_string(),
                    self.runs.get(i).cloned().unwrap_or_default(),
                    v.to_string(),
                    step,
                ]
            })
        });
        Some(Table::new(
            ["timer", "run", "path", "seconds", "step"]
                .into_iter()
                .map(|h| Column::left(h, 0))
                .collect(),
            rows,
        ))
    }
}
