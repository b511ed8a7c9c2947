//! `report LOG -o page.html`: one self-contained page of a TinyProfiler
//! report (timers, regions, memory), in the style of the database report
//! (sortable tables, no network).

use std::io::{self, Write};

use crate::model::tinyprofiler::{MemoryTable, Report, TimerRow, TimerTables};
use crate::report::numfmt::human::{duration_text, percent};
use crate::report::numfmt::tinyprofiler::tiny_bytes;
use crate::report::renderers::html::escape::markup as escape;
use crate::report::renderers::html::style::{SCRIPT, write_page_foot, write_page_head};

/// The page's subject: the log, which of its reports, and the report.
pub struct TinyPage<'a> {
    pub log: &'a str,
    /// 1-based.
    pub run: usize,
    pub runs: usize,
    pub report: &'a Report,
}

/// A numeric cell: shown text, full-precision sort key.
fn num(w: &mut dyn Write, shown: &str, key: f64) -> io::Result<()> {
    // Escaped: a share under 0.005 % reads `<0.01`.
    write!(w, "<td data-v=\"{key}\">{}</td>", escape(shown))
}

fn timer_cells(w: &mut dyn Write, r: &TimerRow) -> io::Result<()> {
    num(w, &r.ncalls.to_string(), r.ncalls as f64)?;
    for x in [r.exclusive.min, r.exclusive.avg, r.exclusive.max] {
        num(w, &duration_text(x), x)?;
    }
    num(
        w,
        &format!("{}%", percent(r.exclusive_percent)),
        r.exclusive_percent,
    )?;
    for x in [r.inclusive.min, r.inclusive.avg, r.inclusive.max] {
        num(w, &duration_text(x), x)?;
    }
    num(
        w,
        &format!("{}%", percent(r.inclusive_percent)),
        r.inclusive_percent,
    )
}

fn timers_table(w: &mut dyn Write, id: &str, t: &TimerTables) -> io::Result<()> {
    writeln!(
        w,
        "<div class=\"scroll\"><table class=\"sortable\" id=\"{id}\">\n<thead><tr><th data-type=\"text\">Timer</th><th data-type=\"num\">NCalls</th><th data-type=\"num\">Excl. min</th><th data-type=\"num\">Excl. avg</th><th data-type=\"num\" data-default-sort=\"descending\">Excl. max</th><th data-type=\"num\">Excl. max %</th><th data-type=\"num\">Incl. min</th><th data-type=\"num\">Incl. avg</th><th data-type=\"num\">Incl. max</th><th data-type=\"num\">Incl. max %</th></tr></thead>\n<tbody>"
    )?;
    for r in &t.timers {
        write!(w, "<tr><td>{}</td>", escape(&r.name))?;
        timer_cells(w, r)?;
        writeln!(w, "</tr>")?;
    }
    writeln!(w, "</tbody>")?;
    if let Some(r) = &t.other {
        write!(
            w,
            "<tfoot><tr><td title=\"timers under tiny_profiler.print_threshold, summed column by column\">Other (folded timers)</td>"
        )?;
        timer_cells(w, r)?;
        writeln!(w, "</tr></tfoot>")?;
    }
    writeln!(w, "</table></div>")
}

fn memory_table(w: &mut dyn Write, m: &MemoryTable) -> io::Result<()> {
    writeln!(
        w,
        "<h3>{}</h3>\n<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th data-type=\"text\">Timer</th><th data-type=\"num\">Nalloc</th><th data-type=\"num\">Nfree</th><th data-type=\"num\">AvgMem min</th><th data-type=\"num\">AvgMem avg</th><th data-type=\"num\">AvgMem max</th><th data-type=\"num\">MaxMem min</th><th data-type=\"num\">MaxMem avg</th><th data-type=\"num\" data-default-sort=\"descending\">MaxMem max</th></tr></thead>\n<tbody>",
        escape(&m.arena)
    )?;
    for r in &m.rows {
        write!(w, "<tr><td>{}</td>", escape(&r.name))?;
        num(w, &r.nalloc.to_string(), r.nalloc as f64)?;
        num(w, &r.nfree.to_string(), r.nfree as f64)?;
        for s in [r.avg_mem, r.max_mem] {
            for b in [s.min, s.avg, s.max] {
                num(w, &tiny_bytes(b), b as f64)?;
            }
        }
        writeln!(w, "</tr>")?;
    }
    writeln!(w, "</tbody>\n</table></div>")
}

/// Writes the whole page.
pub fn write_page(w: &mut dyn Write, p: &TinyPage) -> io::Result<()> {
    let r = p.report;
    let log = escape(p.log);
    write_page_head(w, &format!("profparse report: {log}"), "")?;
    writeln!(w, "<header>\n<h1>profparse report</h1>")?;
    let ranks = r
        .nprocs
        .map_or_else(|| "ranks unknown".to_owned(), |n| format!("{n} rank(s)"));
    let version = r
        .amrex_version
        .as_deref()
        .map_or_else(String::new, |v| format!(", AMReX {}", escape(v)));
    writeln!(
        w,
        "<p>TinyProfiler report of <code>{log}</code> (run {} of {}, line {}{version}, {ranks}). Total time over ranks: min {}, avg {}, max {}.</p>",
        p.run,
        p.runs,
        r.line,
        duration_text(r.total.min),
        duration_text(r.total.avg),
        duration_text(r.total.max)
    )?;
    writeln!(
        w,
        "<nav><a href=\"#timers\">Timers</a><a href=\"#regions\">Regions</a><a href=\"#memory\">Memory</a></nav>\n</header>"
    )?;
    writeln!(w, "<section id=\"timers\">\n<h2>Timers</h2>")?;
    writeln!(
        w,
        "<p>Exclusive and inclusive times over ranks (min, average, maximum); NCalls = mean calls per rank; Max % of the total time. Click a column header to sort (again to reverse).</p>"
    )?;
    timers_table(w, "timers-table", &r.tables)?;
    writeln!(w, "</section>\n<section id=\"regions\">\n<h2>Regions</h2>")?;
    if r.regions.is_empty() {
        writeln!(
            w,
            "<p class=\"absent\">No region sections: the program opened no scoped BL_PROFILE_REGION.</p>"
        )?;
    }
    for (i, g) in r.regions.iter().enumerate() {
        writeln!(
            w,
            "<h3>{}</h3>\n<p class=\"note\">Timer calls made while the region was open.</p>",
            escape(&g.name)
        )?;
        timers_table(w, &format!("region-{i}"), &g.tables)?;
    }
    writeln!(w, "</section>\n<section id=\"memory\">\n<h2>Memory</h2>")?;
    if r.memory.is_empty() {
        writeln!(
            w,
            "<p class=\"absent\">No memory sections (tiny_profiler.memprof_enabled=0).</p>"
        )?;
    } else {
        writeln!(
            w,
            "<p>Per arena and timer: allocations and frees summed over ranks; bytes held (time-weighted average) and peak, min/avg/max over ranks, as printed (at most 4 digits and a unit).</p>"
        )?;
    }
    for m in &r.memory {
        memory_table(w, m)?;
    }
    writeln!(w, "</section>")?;
    write_page_foot(w, &[SCRIPT])
}
