//! The function statistics for people: the table of `summary` and
//! `trace-summary` (comfy-table, fitted by the text renderer), the totals
//! under it, and the inclusive times and trace facts of a trace summary.

use comfy_table::{Cell, Table};

use crate::analysis::function_stats::FunctionSummary;
use crate::report::document::Document;
use crate::report::numfmt::human::{duration, fixed, percent};
use crate::report::renderers::table::{TableStyle, new_table, opt_num, right_align_from};

/// The function statistics table for the rows in `order`.
pub fn summary_table(s: &FunctionSummary, order: &[usize], style: TableStyle) -> Table {
    let mut header = vec![
        "Function", "NCalls", "Min", "Avg", "Max", "StdDev", "CV %", "Max/Avg", "%",
    ];
    if style.wide {
        header.extend(["Calls (all)", "Min proc", "Max proc"]);
    }
    let mut t = new_table(header);
    for &i in order {
        let f = &s.functions[i];
        let mut row = vec![
            Cell::new(&f.name),
            Cell::new(f.ncalls),
            Cell::new(duration(f.min)),
            Cell::new(duration(f.avg)),
            Cell::new(duration(f.max)),
            Cell::new(duration(f.stddev)),
            Cell::new(percent(f.coeff_var)),
            Cell::new(f.imbalance.map_or_else(|| "-".to_owned(), |x| fixed(x, 2))),
            Cell::new(percent(f.percent)),
        ];
        if style.wide {
            row.extend([
                Cell::new(f.ncalls_total),
                Cell::new(opt_num(f.min_proc)),
                Cell::new(opt_num(f.max_proc)),
            ]);
        }
        t.add_row(row);
    }
    right_align_from(&mut t, 1);
    t
}

/// The totals under the summary tables.
pub fn summary_totals(s: &FunctionSummary) -> Vec<String> {
    let mut lines = vec![format!(
        "Total timers (sum of Avg)   {}",
        duration(s.total_timers)
    )];
    lines.push(match s.run_time {
        Some(r) => format!("Calc run time               {}", duration(r)),
        None => "Calc run time               unknown".to_owned(),
    });
    if let Some(c) = s.percent_coverage {
        lines.push(format!("Percent coverage            {} %", percent(c)));
    }
    lines
}

/// The inclusive-time table and the trace facts under a trace summary.
pub fn trace_extras(
    doc: &mut Document<'_>,
    t: &crate::analysis::trace_summary::TraceSummary,
    top: Option<usize>,
) {
    let mut tab = new_table(vec!["Function", "Inclusive"]);
    for (name, v) in t.inclusive.iter().take(top.unwrap_or(usize::MAX)) {
        tab.add_row(vec![Cell::new(name), Cell::new(duration(*v))]);
    }
    right_align_from(&mut tab, 1);
    doc.line(format!(
        "Inclusive times of process {}",
        t.summary.selected_proc
    ))
    .fitted(tab)
    .line("")
    .line(format!(
        "Max call stack depth        {}",
        t.max_call_stack_depth
    ));
    if !t.recursive_functions.is_empty() {
        doc.line(format!(
            "Recursive functions         {}",
            t.recursive_functions.join(", ")
        ));
    }
    doc.line(format!(
        "Calc run time (call starts) {}",
        duration(t.calc_run_time)
    ))
    .line(format!(
        "Selected time (process {})   {}",
        t.summary.selected_proc,
        duration(t.range_run_time)
    ));
}
