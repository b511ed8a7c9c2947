//! `profparse report`: one self-contained HTML page of a whole database —
//! function summary, call tree, regions, timelines, comm matrix and load
//! imbalance. Rendering only: the analyses are computed by the caller and
//! handed over in a [`Page`].
//!
//! The page needs no network: styles, the small sort script and the SVG
//! pictures are inline, and a Content-Security-Policy forbids loading
//! anything. Without JavaScript everything shows; only sorting by column
//! needs the script. Every name from the database is HTML-escaped.

use std::io::{self, Write};

use crate::analysis::comm::sync::SendMatrixGroups;
use crate::analysis::function_stats::FunctionSummary;
use crate::analysis::imbalance::ProcSpread;
use crate::analysis::overview::{Overview, TreeSection};
use crate::analysis::regions::RegionStats;
use crate::report::calltree::{Order, TreeView};
use crate::report::numfmt::human::{bytes, duration_text, percent};
use crate::report::renderers::html::escape::markup as escape;
use crate::report::renderers::html::search::{SEARCH_SCRIPT, write_search_bar};
use crate::report::renderers::html::section::{SECTIONS, section};
use crate::report::renderers::html::style::{SCRIPT, write_page_foot, write_page_head};
use crate::report::renderers::html::tree::{MAX_TREE_ROWS, TreeTable, write_tree_table};
use crate::report::renderers::svg::imbalance::{histogram_svg, per_process_svg};

use crate::analysis::overview::ImbalanceSection;

/// The page: a database's overview and how to show its call tree.
pub struct Page {
    /// The database path, as given.
    pub database: String,
    pub overview: Overview,
    pub bounds: TreeBounds,
    /// The process in focus (`--proc`): its call tree is the one shown.
    pub proc: Option<usize>,
}

/// How the page shows the call tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct TreeBounds {
    /// Levels 0..=N only.
    pub max_depth: Option<usize>,
    /// Branches below this percent of the total inclusive time hidden.
    pub min_percent: f64,
}

/// At most this many cells per side of the comm matrix picture.
pub const MATRIX_MAX_CELLS: usize = crate::report::renderers::svg::matrix::MATRIX_SVG_CELLS;

/// Writes the whole page.
pub fn write_page(w: &mut dyn Write, r: &Page) -> io::Result<()> {
    let db = escape(&r.database);
    let o = &r.overview;
    let warnings = crate::report::renderers::json::warning_texts(&o.warnings);
    let notes = crate::report::renderers::json::note_texts(&o.warnings);
    let parts: Vec<&str> = o.parts.iter().map(|p| p.name()).collect();
    write_page_head(w, &format!("profparse report: {db}"), "")?;
    writeln!(w, "<header>\n<h1>profparse report</h1>")?;
    let procs = o.nprocs.map_or_else(String::new, |n| {
        format!("; {n} process{}", if n == 1 { "" } else { "es" })
    });
    writeln!(
        w,
        "<p>Database <code>{db}</code>: {}{procs}.</p>",
        if parts.is_empty() {
            "no readable part".to_owned()
        } else {
            escape(&parts.join(", "))
        }
    )?;
    write!(w, "<nav>")?;
    for (id, title) in SECTIONS {
        write!(w, "<a href=\"#{id}\">{title}</a>")?;
    }
    if !warnings.is_empty() {
        write!(w, "<a href=\"#warnings\">Warnings ({})</a>", warnings.len())?;
    }
    if !notes.is_empty() {
        write!(w, "<a href=\"#notes\">Notes ({})</a>", notes.len())?;
    }
    writeln!(w, "</nav>")?;
    write_search_bar(w)?;
    writeln!(w, "</header>")?;

    section(w, 0, &o.summary, write_summary)?;
    section(w, 1, &o.calltree, |w, t| write_calltree(w, t, r))?;
    section(w, 2, &o.regions, |w, s| write_regions(w, s))?;
    let (id, title) = SECTIONS[3];
    crate::report::renderers::html::timeline::write_timelines(w, id, title, o)?;
    section(w, 4, &o.matrix, write_matrix)?;
    section(w, 5, &o.imbalance, write_imbalance)?;

    if !warnings.is_empty() {
        writeln!(
            w,
            "<section id=\"warnings\">\n<h2>Warnings</h2>\n<p class=\"note\">Damaged or suspicious data met while reading; the sections above leave out what could not be read.</p>\n<ul>"
        )?;
        for m in &warnings {
            writeln!(w, "<li>{}</li>", escape(m))?;
        }
        writeln!(w, "</ul>\n</section>")?;
    }
    if !notes.is_empty() {
        writeln!(
            w,
            "<section id=\"notes\">\n<h2>Notes</h2>\n<p class=\"note\">Known quirks of healthy runs, worked around as docs/TRACES.md describes.</p>\n<ul>"
        )?;
        for m in &notes {
            writeln!(w, "<li>{}</li>", escape(m))?;
        }
        writeln!(w, "</ul>\n</section>")?;
    }
    write_page_foot(w, &[SCRIPT, SEARCH_SCRIPT])
}

/// A numeric cell: shown text, full-precision sort key.
fn num(w: &mut dyn Write, shown: &str, key: f64) -> io::Result<()> {
    // Escaped: a share under 0.005 % reads `<0.01`.
    write!(w, "<td data-v=\"{key}\">{}</td>", escape(shown))
}

fn opt_proc(p: Option<usize>) -> String {
    p.map_or_else(|| "-".to_owned(), |p| p.to_string())
}

fn write_summary(w: &mut dyn Write, s: &FunctionSummary) -> io::Result<()> {
    writeln!(
        w,
        "<p>From the base profile: exclusive time per function over {} processes (min, average, maximum, standard deviation), NCalls = calls on process {}. Σ average = {}{}.</p>",
        s.nprocs,
        s.selected_proc,
        duration_text(s.total_timers),
        match (s.run_time, s.percent_coverage) {
            (Some(t), Some(c)) => format!(
                " of a {} run ({} % covered)",
                duration_text(t),
                escape(&percent(c))
            ),
            (Some(t), None) => format!(" of a {} run", duration_text(t)),
            _ => String::new(),
        }
    )?;
    writeln!(
        w,
        "<p class=\"note\">Click a column header to sort (again to reverse). <noscript>Without JavaScript the rows stay in name order.</noscript></p>"
    )?;
    writeln!(
        w,
        "<div class=\"scroll\"><table class=\"sortable filterable\" id=\"summary-table\">\n<thead><tr><th data-type=\"text\">Function</th><th data-type=\"num\">NCalls</th><th data-type=\"num\">Total calls</th><th data-type=\"num\">Min</th><th data-type=\"num\" data-default-sort=\"descending\">Avg</th><th data-type=\"num\">Max</th><th data-type=\"num\">StdDev</th><th data-type=\"num\">CV %</th><th data-type=\"num\">% of timers</th><th data-type=\"num\">Max/Avg</th><th data-type=\"num\">Min proc</th><th data-type=\"num\">Max proc</th></tr></thead>\n<tbody>"
    )?;
    for f in &s.functions {
        write!(w, "<tr><td>{}</td>", escape(&f.name))?;
        num(w, &f.ncalls.to_string(), f.ncalls as f64)?;
        num(w, &f.ncalls_total.to_string(), f.ncalls_total as f64)?;
        num(w, &duration_text(f.min), f.min)?;
        num(w, &duration_text(f.avg), f.avg)?;
        num(w, &duration_text(f.max), f.max)?;
        num(w, &duration_text(f.stddev), f.stddev)?;
        num(w, &percent(f.coeff_var), f.coeff_var)?;
        num(w, &percent(f.percent), f.percent)?;
        match f.imbalance {
            Some(x) => num(w, &format!("{x:.2}"), x)?,
            None => write!(w, "<td data-v=\"\">-</td>")?,
        }
        for p in [f.min_proc, f.max_proc] {
            write!(
                w,
                "<td data-v=\"{}\">{}</td>",
                p.map_or(String::new(), |p| p.to_string()),
                opt_proc(p)
            )?;
        }
        writeln!(w, "</tr>")?;
    }
    writeln!(w, "</tbody>\n</table></div>")
}

fn write_calltree(w: &mut dyn Write, c: &TreeSection, r: &Page) -> io::Result<()> {
    let view = TreeView {
        max_depth: r.bounds.max_depth,
        min_percent: r.bounds.min_percent,
        top: None,
        nprocs: c.nprocs,
        ..Default::default()
    };
    let scope = match r.proc {
        Some(p) => format!("process {p}"),
        None => format!(
            "{} processes merged (times are averages over processes; min, max and max proc: the inclusive time's spread over the processes)",
            view.nprocs
        ),
    };
    let mut bounds = Vec::new();
    if let Some(d) = view.max_depth {
        bounds.push(format!("levels 0..={d}"));
    }
    if view.min_percent > 0.0 {
        bounds.push(format!(
            "branches below {} % of the total hidden",
            view.min_percent
        ));
    }
    writeln!(
        w,
        "<p>From the call traces, {scope}. Click a row to open or close its branch (branches above 5 % start open).{}</p>",
        if bounds.is_empty() {
            String::new()
        } else {
            format!(" Shown: {}.", bounds.join(", "))
        }
    )?;
    writeln!(
        w,
        "<h3 class=\"sub\" id=\"tree-top-down\">Top-down: each call path, below it what it calls</h3>"
    )?;
    write_tree_table(
        w,
        &TreeTable {
            tree: &c.tree,
            view,
            id: "calltree-top-down",
            max_rows: MAX_TREE_ROWS,
        },
    )?;
    writeln!(
        w,
        "<h3 class=\"sub\" id=\"tree-bottom-up\">Bottom-up: functions by exclusive time, below each its callers</h3>"
    )?;
    writeln!(
        w,
        "<p class=\"note\">A function's row holds its exclusive time; the rows below split it by caller path (what they leave is time in calls with no caller above).{}</p>",
        if c.bottom_up_cut {
            format!(
                " Caller paths deeper than {} levels are cut there.",
                crate::analysis::callers::MAX_LEVELS
            )
        } else {
            String::new()
        }
    )?;
    write_tree_table(
        w,
        &TreeTable {
            tree: &c.bottom_up,
            view: TreeView {
                order: Order::Exclusive,
                ..view
            },
            id: "calltree-bottom-up",
            max_rows: MAX_TREE_ROWS,
        },
    )
}

fn write_regions(w: &mut dyn Write, stats: &[RegionStats]) -> io::Result<()> {
    if stats.is_empty() {
        return writeln!(
            w,
            "<p class=\"absent\">The call traces record no regions.</p>"
        );
    }
    writeln!(
        w,
        "<p>Regions from the call traces: closed ranges over all processes, and the time inside each region (total over processes; min, average, maximum per process).</p>"
    )?;
    writeln!(
        w,
        "<div class=\"scroll\"><table class=\"sortable filterable\" id=\"regions-table\">\n<thead><tr><th data-type=\"text\">Region</th><th data-type=\"num\">Number</th><th data-type=\"num\">Ranges</th><th data-type=\"num\">Total</th><th data-type=\"num\">Min</th><th data-type=\"num\">Avg</th><th data-type=\"num\">Max</th><th data-type=\"num\">Max proc</th></tr></thead>\n<tbody>"
    )?;
    for s in stats {
        write!(w, "<tr><td>{}</td>", escape(&s.name))?;
        num(w, &s.number.to_string(), s.number as f64)?;
        num(w, &s.count.to_string(), s.count as f64)?;
        num(w, &duration_text(s.total), s.total)?;
        num(w, &duration_text(s.min), s.min)?;
        num(w, &duration_text(s.avg), s.avg)?;
        num(w, &duration_text(s.max), s.max)?;
        write!(
            w,
            "<td data-v=\"{}\">{}</td>",
            s.max_proc.map_or(String::new(), |p| p.to_string()),
            opt_proc(s.max_proc)
        )?;
        writeln!(w, "</tr>")?;
    }
    writeln!(w, "</tbody>\n</table></div>")
}

fn write_matrix(w: &mut dyn Write, m: &SendMatrixGroups) -> io::Result<()> {
    let total: u64 = m.bytes.iter().flatten().sum();
    let messages: u64 = m.messages.iter().flatten().sum();
    writeln!(
        w,
        "<p>Bytes sent from each process (rows) to each process (columns): {messages} messages, {} in all{}. Darker = more bytes; hover a cell for its numbers.{}</p>",
        bytes(total),
        if m.unknown_peer > 0 {
            format!(
                "; {} sends to peers outside 0..{} (other communicators) not drawn",
                m.unknown_peer, m.nprocs
            )
        } else {
            String::new()
        },
        if m.group > 1 {
            format!(
                " {} processes: each cell sums {} consecutive processes.",
                m.nprocs, m.group
            )
        } else {
            String::new()
        }
    )?;
    if messages == 0 {
        return writeln!(w, "<p class=\"absent\">No messages were sent.</p>");
    }
    writeln!(w, "<div class=\"scroll\">")?;
    crate::report::renderers::svg::matrix::matrix_svg_groups(
        m,
        crate::report::renderers::svg::matrix::MatrixScale::Linear,
        w,
    )?;
    writeln!(w, "</div>")
}

fn write_imbalance(w: &mut dyn Write, s: &ImbalanceSection) -> io::Result<()> {
    let per_process = s.nprocs <= s.max_bars;
    writeln!(
        w,
        "<p>The {} function{} with the largest maximum exclusive time on one process (base profile), and how that time is spread over the {} processes. {}</p>",
        s.functions.len(),
        if s.functions.len() == 1 { "" } else { "s" },
        s.nprocs,
        if per_process {
            format!(
                "One bar per process (shown for up to {} processes); the dashed line is the average.",
                s.max_bars
            )
        } else {
            format!(
                "Too many processes for one bar each (more than {}): a histogram instead — how many processes fall in each of {} equal bins of exclusive time from the minimum to the maximum; arrows mark the bin of the average and of the process asked for.",
                s.max_bars, s.bins
            )
        }
    )?;
    if s.functions.is_empty() {
        return writeln!(w, "<p class=\"absent\">No functions.</p>");
    }
    for f in &s.functions {
        writeln!(w, "<div class=\"imb\">")?;
        writeln!(w, "<h3>{}</h3>", escape(&f.name))?;
        writeln!(
            w,
            "<p class=\"note\">min {} (process {}) · avg {} · max {} (process {}) · max/avg {}{}</p>",
            duration_text(f.min),
            opt_proc(f.min_proc),
            duration_text(f.avg),
            duration_text(f.max),
            opt_proc(f.max_proc),
            f.imbalance
                .map_or_else(|| "-".to_owned(), |x| format!("{x:.2}")),
            f.selected.map_or_else(String::new, |(p, t)| format!(
                " · process {p}: {} (outlined)",
                duration_text(t)
            ))
        )?;
        match &f.spread {
            ProcSpread::PerProcess(v) => per_process_svg(w, f, v)?,
            ProcSpread::Histogram { lo, hi, counts } => histogram_svg(w, f, *lo, *hi, counts)?,
        }
        writeln!(w, "</div>")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_report() -> Page {
        let none = || crate::analysis::overview::Absent("not in this database".to_owned());
        Page {
            database: "db<&>".into(),
            overview: Overview {
                parts: vec![],
                nprocs: None,
                summary: Err(none()),
                calltree: Err(none()),
                regions: Err(none()),
                trace_timeline: Err(none()),
                comm_timeline: Err(none()),
                matrix: Err(none()),
                imbalance: Err(none()),
                warnings: vec![crate::Warning::new(
                    crate::Location::file("f"),
                    "bad <block>",
                )],
            },
            bounds: TreeBounds::default(),
            proc: None,
        }
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn absent_sections_say_so_and_names_are_escaped() {
        let mut r = empty_report();
        r.overview.summary = Ok(FunctionSummary {
            functions: vec![crate::analysis::function_stats::FunctionStats {
                name: "<script>alert(1)</script>".into(),
                ncalls: 1,
                ncalls_total: 1,
                min: 1.0,
                avg: 1.0,
                max: 1.0,
                stddev: 0.0,
                coeff_var: 0.0,
                percent: 100.0,
                min_proc: Some(0),
                max_proc: Some(0),
                imbalance: Some(1.0),
            }],
            nprocs: 1,
            selected_proc: 0,
            total_timers: 1.0,
            run_time: None,
            percent_coverage: None,
        });
        let mut out = Vec::new();
        write_page(&mut out, &r).unwrap();
        let page = String::from_utf8(out).unwrap();
        for (id, _) in SECTIONS {
            assert!(page.contains(&format!("<section id=\"{id}\">")), "{id}");
        }
        assert_eq!(page.matches("not in this database").count(), 6);
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!page.contains("<script>alert"));
        assert!(page.contains("db&lt;&amp;&gt;"));
        assert!(page.contains("bad &lt;block&gt;"));
    }
}
