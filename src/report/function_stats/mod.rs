//! The function statistics reports, `summary` (base profile) and
//! `trace-summary` (call traces), as one [`Report`].

use std::io;

use serde::Serialize;

use crate::analysis::filter::RegionFilter;
use crate::analysis::function_stats::{FunctionSummary, SortKey};
use crate::analysis::trace_summary::TraceSummary;
use crate::error::Warning;
use crate::report::document::{Document, FitRule, Table};
use crate::report::renderers::table::TableStyle;
use crate::report::{Format, Report};
use table::{summary_table, summary_totals, trace_extras};
use wire::{SummaryJson, TraceSummaryJson, summary_csv, summary_json, trace_summary_json};

pub mod reference;
pub mod table;
pub mod wire;

/// What only `trace-summary` has.
pub struct TraceParts<'a> {
    pub trace: &'a TraceSummary,
    pub filter: &'a RegionFilter,
}

/// Per function: calls and exclusive time over processes.
pub struct FunctionsReport<'a> {
    /// The database as the user named it.
    pub database: String,
    pub summary: &'a FunctionSummary,
    /// For `trace-summary`: inclusive times, stack depth, the region filter.
    pub trace: Option<TraceParts<'a>>,
    /// One table in this order, instead of one by name and one by time.
    pub sort: Option<SortKey>,
    /// Rows kept per table.
    pub top: Option<usize>,
    pub style: TableStyle,
    /// Listed in the JSON.
    pub warnings: Vec<Warning>,
}

/// The JSON of either report.
#[derive(Serialize)]
#[serde(untagged)]
pub enum FunctionsWire<'a> {
    Base(SummaryJson<'a>),
    Trace(Box<TraceSummaryJson<'a>>),
}

/// A sort key as a table title says it.
pub fn sort_title(k: SortKey) -> &'static str {
    match k {
        SortKey::Name => "name",
        SortKey::Ncalls => "total calls",
        SortKey::Min => "minimum time",
        SortKey::Avg => "average time",
        SortKey::Max => "maximum time",
        SortKey::Stddev => "standard deviation",
        SortKey::Cv => "coefficient of variation",
        SortKey::Percent => "share of all timers",
        SortKey::Imbalance => "imbalance (Max/Avg)",
    }
}

impl FunctionsReport<'_> {
    /// The rows of one table: the functions in `key` order, cut to `top`.
    fn order(&self, key: SortKey) -> Vec<usize> {
        let mut order = key.order(&self.summary.functions);
        order.truncate(self.top.unwrap_or(usize::MAX));
        order
    }

    /// The machine outputs' one order: `--sort`, else by name.
    fn machine_order(&self) -> Vec<usize> {
        self.order(self.sort.unwrap_or(SortKey::Name))
    }
}

impl Report for FunctionsReport<'_> {
    type Wire<'w>
        = FunctionsWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> FunctionsWire<'_> {
        let order = self.machine_order();
        match &self.trace {
            None => FunctionsWire::Base(summary_json(
                &self.database,
                self.summary,
                &order,
                self.sort,
                &self.warnings,
            )),
            Some(t) => FunctionsWire::Trace(Box::new(trace_summary_json(
                &self.database,
                t.trace,
                &order,
                self.sort,
                t.filter,
                &self.warnings,
            ))),
        }
    }

    fn document(&self) -> Document<'_> {
        let s = self.summary;
        let mut doc = Document::new();
        doc.line(match &self.trace {
            None => format!(
                "{}: {} processes, {} functions.\nNCalls: calls on process {}. Min, Avg, Max: exclusive time over processes.\n",
                self.database,
                s.nprocs,
                s.functions.len(),
                s.selected_proc
            ),
            Some(t) => format!(
                "{}: call traces of {} processes, {} functions{}.\nNCalls: calls on process {}. Min, Avg, Max: exclusive time over processes.\n",
                self.database,
                s.nprocs,
                s.functions.len(),
                if t.filter.is_everything() {
                    ""
                } else {
                    ", region filter applied"
                },
                s.selected_proc
            ),
        });
        let orders: Vec<(String, SortKey)> = match self.sort {
            Some(k) if self.trace.is_some() => vec![("Functions".to_owned(), k)],
            Some(k) => vec![(format!("Functions by {}", sort_title(k)), k)],
            None => vec![
                ("Functions by name".to_owned(), SortKey::Name),
                ("Functions by average time".to_owned(), SortKey::Avg),
            ],
        };
        for (title, key) in orders {
            // Narrow outputs keep the name, calls, Avg, Max and %.
            let rule = FitRule {
                shrink: Some(0),
                drop_ranks: vec![0, 2, 5, 0, 0, 6, 7, 4, 0, 8, 8, 8],
            };
            doc.line(title)
                .fitted_by(summary_table(s, &self.order(key), self.style), rule)
                .line("");
        }
        for line in summary_totals(s) {
            doc.line(line);
        }
        if let Some(t) = &self.trace {
            doc.line("");
            trace_extras(&mut doc, t.trace, self.top);
        }
        doc
    }

    fn csv(&self) -> Option<Table<'_>> {
        Some(summary_csv(self.summary, self.machine_order()))
    }

    /// `reference`: amrprofparser's own layout.
    fn write_other(&self, format: Format, w: &mut dyn io::Write) -> io::Result<()> {
        if format != Format::Reference {
            return Err(crate::report::not_offered(format));
        }
        let s = self.summary;
        match &self.trace {
            None => reference::write_stats_report(w, s, None),
            Some(t) => {
                let t = t.trace;
                reference::write_stats_report(
                    w,
                    s,
                    Some((t.max_call_stack_depth, &t.recursive_functions)),
                )?;
                let m = reference::name_width(s.functions.iter().map(|f| f.name.as_str()));
                reference::write_inclusive(w, m, &t.inclusive)
            }
        }
    }
}
