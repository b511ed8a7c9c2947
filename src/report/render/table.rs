//! Human-readable tables (comfy-table), fitted to the output's width by the
//! text renderer (names shortened in the middle, columns dropped), never
//! wrapped.

use std::io::{self, Write};

use comfy_table::{
    Cell, CellAlignment, ColumnConstraint, ContentArrangement, LineStyle, Table,
    TableStyle as Style,
};

use crate::analysis::function_stats::FunctionSummary;
use crate::analysis::info::DatabaseInfo;
use crate::report::document::{Document, FitRule, MAX_CELL_BYTES, shortened_cell};
use crate::report::layout::fit::{FitColumn, fit, middle_ellipsis};
use crate::report::numfmt::{bytes as _bytes, duration, fixed, percent, scientific};

/// How tables are laid out.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// Output goes to a terminal: fit its width.
    pub terminal: bool,
    /// Show every column (process numbers, total calls).
    pub wide: bool,
}

/// Only a rule under the header: dense, readable, and easy to grep.
const STYLE: Style = Style::new().header_separator(LineStyle::none().fill('─').junction(' '));

pub(crate) fn new_table(header: Vec<&str>) -> Table {
    let mut t = Table::new();
    t.load_style(STYLE);
    // Never wrapped: the text renderer fits the table to the width itself
    // (shortened names, dropped columns), so one row stays one line.
    t.force_no_tty();
    t.set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(header);
    t
}

/// `t` as it is written within `width`: cells over [`MAX_CELL_BYTES`]
/// shortened, and when the table is too wide, its names shortened in the
/// middle and columns dropped by `rule` (a copy; only when something
/// changes, so a normal table is written as built).
fn laid_out(t: &Table, rule: &FitRule, width: Option<usize>) -> Option<Table> {
    // The widest cell of each column, in one pass over the rows.
    let mut widest: Vec<usize> = Vec::new();
    for row in t.header().into_iter().chain(t.row_iter()) {
        for (i, c) in row.cell_iter().enumerate() {
            let w = shortened_cell(&c.content()).chars().count();
            if i >= widest.len() {
                widest.resize(i + 1, 0);
            }
            widest[i] = widest[i].max(w);
        }
    }
    let n = widest.len();
    let columns: Vec<FitColumn> = widest
        .iter()
        .enumerate()
        .map(|(i, &content)| {
            let padding = t.column(i).map_or(0, |c| usize::from(c.padding_width()));
            FitColumn {
                width: content + padding,
                // The (blank) column separator of the style.
                gap: usize::from(i > 0),
                drop_rank: rule.drop_ranks.get(i).copied().unwrap_or(0),
                shrink: rule.shrink == Some(i),
            }
        })
        .collect();
    let layout = fit(&columns, width);
    let long = |r: &comfy_table::Row| r.cell_iter().any(|c| c.content().len() > MAX_CELL_BYTES);
    if !layout.changes_anything() && !t.header().is_some_and(long) && !t.row_iter().any(long) {
        return None;
    }
    // The most characters of each column's cells (its limit less padding).
    let limits: Vec<usize> = (0..n)
        .map(|i| match layout.limit[i] {
            usize::MAX => usize::MAX,
            l => l.saturating_sub(t.column(i).map_or(0, |c| usize::from(c.padding_width()))),
        })
        .collect();
    let short = |r: &comfy_table::Row| -> Vec<String> {
        r.cell_iter()
            .enumerate()
            .map(|(i, c)| {
                let text = c.content();
                let text = shortened_cell(&text);
                if limits[i] != usize::MAX {
                    middle_ellipsis(&text, limits[i]).into_owned()
                } else {
                    text.into_owned()
                }
            })
            .collect()
    };
    let mut s = t.clone();
    if let Some(h) = t.header() {
        s.set_header(short(h));
    }
    for (new, old) in s.row_iter_mut().zip(t.row_iter()) {
        *new = short(old).into();
    }
    for (i, shown) in layout.shown.iter().enumerate() {
        if let (false, Some(c)) = (shown, s.column_mut(i)) {
            c.set_constraint(ColumnConstraint::Hidden);
        }
    }
    Some(s)
}

/// Writes a table within `width` characters (see [`laid_out`]) without the
/// padding blanks at the ends of its lines.
pub(crate) fn write_table(
    w: &mut dyn Write,
    t: &Table,
    rule: &FitRule,
    width: Option<usize>,
) -> io::Result<()> {
    let laid = laid_out(t, rule, width);
    let t = laid.as_ref().unwrap_or(t);
    for line in t.lines() {
        // Names from the data: no raw control characters on a terminal
        // (a line break in a cell is laid out by comfy-table as a second
        // line inside the cell, within its borders).
        let line = crate::report::escape::visible(line.trim_end());
        writeln!(w, "{line}")?;
    }
    Ok(())
}

pub(crate) fn right_align_from(t: &mut Table, first: usize) {
    let n = t
        .header()
        .into_iter()
        .chain(t.row_iter())
        .map(|r| r.cell_count())
        .max()
        .unwrap_or(0);
    for i in 0..n {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, 1));
            if i >= first {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
}

fn opt_num<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// The function statistics table for the rows in `order`.
/// Names listed in one cell of `info` before the rest is counted.
const MAX_LISTED_NAMES: usize = 12;

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

/// `info`: one key/value table per part.
pub fn info_document(info: &DatabaseInfo) -> Document<'static> {
    let span = |s: Option<(f64, f64)>| {
        s.map_or_else(
            || "-".to_owned(),
            |(a, b)| format!("{} .. {} s", fixed(a, 6), fixed(b, 6)),
        )
    };
    let mm = |m: Option<crate::analysis::info::MinMax>| {
        m.map_or_else(
            || "-".to_owned(),
            |m| {
                if m.min == m.max {
                    m.min.to_string()
                } else {
                    format!("{} .. {}", m.min, m.max)
                }
            },
        )
    };
    let parts: Vec<&str> = info
        .parts
        .iter()
        .map(|p| match p {
            crate::formats::blprof::Part::Base => "base",
            crate::formats::blprof::Part::Trace => "trace",
            crate::formats::blprof::Part::Comm => "comm",
        })
        .collect();
    let mut doc = Document::new();
    doc.line(format!("Database   {}", info.dir))
        .line(format!("Processes  {}", opt_num(info.nprocs)))
        .line(format!("NOutFiles  {}", opt_num(info.nfiles)))
        .line(format!("Parts      {}", parts.join(", ")));
    let mut section = |title: &str, rows: Vec<(&str, String)>| {
        let mut t = new_table(vec![title, ""]);
        for (k, v) in rows {
            t.add_row(vec![k.to_owned(), v]);
        }
        // Long lists (functions, regions) are the values: those shorten.
        let rule = FitRule {
            shrink: Some(1),
            drop_ranks: Vec::new(),
        };
        doc.line("").fitted_by(t, rule);
    };
    if let Some(b) = &info.base {
        section(
            "Base profile (bl_prof_H)",
            vec![
                ("version", opt_num(b.version)),
                ("processes with a block", b.procs_with_block.to_string()),
                (
                    "processes without a block",
                    if b.procs_without_block.is_empty() {
                        "none".into()
                    } else {
                        b.procs_without_block
                            .iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    },
                ),
                ("data files", b.data_files.to_string()),
                ("functions", b.functions.len().to_string()),
                ("records (procs × functions)", b.records.to_string()),
                (
                    "calcEndTime",
                    b.calc_end_time
                        .map_or_else(|| "-".into(), |t| format!("{t} s")),
                ),
            ],
        );
    }
    if let Some(t) = &info.trace {
        section(
            "Call traces (bl_call_stats_H)",
            vec![
                ("version", opt_num(t.version)),
                ("per-file headers", t.header_files.to_string()),
                ("data files", t.data_files.to_string()),
                ("processes", t.procs.to_string()),
                ("blocks", t.blocks.to_string()),
                ("blocks per process", mm(t.blocks_per_proc)),
                ("call records", t.call_records.to_string()),
                ("region records", t.region_records.to_string()),
                ("functions", t.functions.to_string()),
                (
                    "regions",
                    format!(
                        "{}: {}",
                        t.regions.len(),
                        crate::report::layout::names::summarise(&t.regions, MAX_LISTED_NAMES)
                    ),
                ),
                ("call start times", span(t.time_span)),
            ],
        );
    }
    if let Some(c) = &info.comm {
        section(
            "Communication (bl_comm_prof_H)",
            vec![
                ("version", opt_num(c.version)),
                (
                    "record size",
                    format!("{} bytes ({:?})", c.record_size, c.real).to_lowercase(),
                ),
                ("per-file headers", c.header_files.to_string()),
                ("data files", c.data_files.to_string()),
                ("processes", c.procs.to_string()),
                ("blocks", format!("{} ({} empty)", c.blocks, c.empty_blocks)),
                ("blocks per process", mm(c.blocks_per_proc)),
                (
                    "records",
                    format!(
                        "{} ({})",
                        c.records,
                        _bytes(c.records.saturating_mul(c.record_size))
                    ),
                ),
                ("barriers", c.barriers.to_string()),
                (
                    "name tags",
                    format!("{} ({} names)", c.name_tags, c.name_tag_names),
                ),
                ("time span", span(c.time_span)),
                (
                    "finest / max level",
                    format!("{} / {}", opt_num(c.finest_level), opt_num(c.max_level)),
                ),
                ("hosts", c.hosts.join(", ")),
                (
                    "timer read cost",
                    c.timer_time
                        .map_or_else(|| "-".into(), |t| format!("{} s", scientific(t, 3))),
                ),
            ],
        );
    }
    doc
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

/// `regions`: one row per region.
pub fn regions_table(stats: &[crate::analysis::regions::RegionStats]) -> Table {
    let mut t = new_table(vec![
        "Region", "Number", "Ranges", "Total", "Min", "Avg", "Max", "Max proc",
    ]);
    for s in stats {
        t.add_row(vec![
            Cell::new(&s.name),
            Cell::new(s.number),
            Cell::new(s.count),
            Cell::new(duration(s.total)),
            Cell::new(duration(s.min)),
            Cell::new(duration(s.avg)),
            Cell::new(duration(s.max)),
            Cell::new(opt_num(s.max_proc)),
        ]);
    }
    right_align_from(&mut t, 1);
    t
}

/// `regions --proc N`: the process's ranges in time order.
pub fn proc_ranges_table(
    p: &crate::analysis::regions::ProcRegions,
    names: &dyn Fn(i32) -> String,
) -> Table {
    let mut rows: Vec<(f64, f64, i32)> = p
        .ranges
        .iter()
        .flat_map(|(n, rs)| rs.iter().map(move |r| (r.start, r.stop, *n)))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut t = new_table(vec!["Region", "Start s", "Stop s", "Length"]);
    for (a, b, n) in rows {
        t.add_row(vec![
            Cell::new(names(n)),
            Cell::new(fixed(a, 6)),
            Cell::new(fixed(b, 6)),
            Cell::new(duration(b - a)),
        ]);
    }
    right_align_from(&mut t, 1);
    t
}
