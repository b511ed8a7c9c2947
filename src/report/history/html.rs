//! `history RUN... --html F` (and `report RUN RUN...`): one self-contained
//! page of a series of runs — the runs, then each shown timer's series
//! drawn as its [`svg`](super::svg) panel (steps marked) above a table of
//! its steps. It carries the style and the sort script of the database
//! report ([`style`]), fetches nothing, and escapes every name. Each
//! series' values are also in its figure's `data-values` (full precision),
//! so a reader or a test can take them from the page.

use std::io::{self, Write};

use super::{HistoryReport, change_text, levels, svg};
use crate::analysis::history::TimerHistory;
use crate::report::numfmt::printf::c_g;
use crate::report::regress::seconds;
use crate::report::renderers::html::escape::markup as escape;
use crate::report::renderers::html::style::{SCRIPT, write_page_foot, write_page_head};

/// What this page adds to the shared style: the charts shrink to narrow
/// screens.
const PAGE_STYLE: &str = "figure.series{margin:.4em 0} figure.series svg{max-width:100%;height:auto}";

/// Writes the page of the first `top` timers of `report` (those with steps
/// come first).
pub fn write_page(report: &HistoryReport, top: usize, w: &mut dyn Write) -> io::Result<()> {
    let h = &report.history;
    let shown = &h.timers[..top.min(h.timers.len())];
    let title = format!("profparse history: {} runs ({})", h.runs, escape(report.kind));
    write_page_head(w, &title, PAGE_STYLE)?;
    writeln!(w, "<header>\n<h1>profparse history</h1>")?;
    writeln!(w, "<p>{}</p>", escape(&report.criteria()))?;
    writeln!(w, "<p>{}</p>", escape(&shown_text(report, shown.len())))?;
    write!(
        w,
        "<nav><a href=\"#runs\">Runs</a><a href=\"#timers\">Timers</a>"
    )?;
    if !report.warnings.is_empty() {
        write!(
            w,
            "<a href=\"#warnings\">Warnings ({})</a>",
            report.warnings.len()
        )?;
    }
    writeln!(w, "</nav>\n</header>")?;
    write_runs(report, w)?;
    writeln!(w, "<section id=\"timers\">\n<h2>Timers</h2>")?;
    if shown.is_empty() {
        writeln!(w, "<p class=\"absent\">No timers in these runs.</p>")?;
    }
    for (i, t) in shown.iter().enumerate() {
        write_timer(report, i, t, w)?;
    }
    writeln!(w, "</section>")?;
    if !report.warnings.is_empty() {
        writeln!(w, "<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul>")?;
        for m in &report.warnings {
            writeln!(w, "<li>{}</li>", escape(m))?;
        }
        writeln!(w, "</ul>\n</section>")?;
    }
    write_page_foot(w, &[SCRIPT])
}

/// Which timers the page shows, and how to see the others.
fn shown_text(report: &HistoryReport, shown: usize) -> String {
    let all = report.history.timers.len();
    let stepping = report.stepping();
    let mut text = format!(
        "Shown: {shown} of {all} timer(s), those with steps first, then by time summed over the runs; {stepping} timer(s) with steps."
    );
    if shown < all {
        text.push_str(" --top N shows more.");
    }
    text
}

/// The runs in series order: index, path, date. A long series starts
/// folded, so that the charts stay on the first screen.
fn write_runs(report: &HistoryReport, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, "<section id=\"runs\">\n<h2>Runs</h2>")?;
    let open = if report.runs.len() <= 20 { " open" } else { "" };
    writeln!(
        w,
        "<details{open}><summary>{} run(s), oldest first (no input kind records when it ran)</summary>",
        report.runs.len()
    )?;
    writeln!(
        w,
        "<div class=\"scroll\"><table class=\"sortable\" id=\"runs-table\">\n<thead><tr><th data-type=\"num\">Run</th><th data-type=\"text\">Path</th><th data-type=\"text\">Date</th></tr></thead>\n<tbody>"
    )?;
    for (i, path) in report.runs.iter().enumerate() {
        writeln!(
            w,
            "<tr><td data-v=\"{i}\">{}</td><td><code>{}</code></td><td>-</td></tr>",
            i + 1,
            escape(path)
        )?;
    }
    writeln!(w, "</tbody>\n</table></div>\n</details>\n</section>")
}

/// One timer: its name, its chart, and its steps (or that it has none).
fn write_timer(
    report: &HistoryReport,
    i: usize,
    t: &TimerHistory,
    w: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        w,
        "<article class=\"timer\" id=\"timer-{i}\">\n<h3>{}</h3>",
        escape(&t.path.join(" > "))
    )?;
    write!(w, "<figure class=\"series\" data-values=\"")?;
    for (k, v) in t.values.iter().enumerate() {
        write!(w, "{}{v}", if k == 0 { "" } else { " " })?;
    }
    writeln!(w, "\">")?;
    svg::write_one(report, t, w)?;
    writeln!(w, "</figure>")?;
    if t.change_points.is_empty() {
        writeln!(
            w,
            "<p class=\"note\">No step: steady over the {} runs.</p>\n</article>",
            t.values.len()
        )?;
        return Ok(());
    }
    writeln!(
        w,
        "<div class=\"scroll\"><table class=\"sortable steps\">\n<thead><tr><th data-type=\"num\">From run</th><th data-type=\"text\">Runs before</th><th data-type=\"text\">Runs after</th><th data-type=\"num\">Before</th><th data-type=\"num\">After</th><th data-type=\"num\">Change</th><th data-type=\"num\">p</th></tr></thead>\n<tbody>"
    )?;
    let runs = t.values.len();
    for (k, c) in t.change_points.iter().enumerate() {
        let from = if k == 0 { 0 } else { t.change_points[k - 1].index };
        let to = t.change_points.get(k + 1).map_or(runs, |n| n.index);
        let (before, after) = levels(t, k);
        let path = report.runs.get(c.index).map_or("", String::as_str);
        // Sort keys at full precision: the change as a fraction (a timer
        // that appears: Infinity, which the script's parseFloat reads).
        let change_key = if c.change.is_finite() {
            c.change.to_string()
        } else {
            "Infinity".to_owned()
        };
        writeln!(
            w,
            "<tr><td data-v=\"{}\" title=\"{}\">{}</td><td>{}</td><td>{}</td><td data-v=\"{before}\">{}</td><td data-v=\"{after}\">{}</td><td data-v=\"{change_key}\">{}</td><td data-v=\"{}\">{}</td></tr>",
            c.index,
            escape(path),
            c.index + 1,
            span(from, c.index),
            span(c.index, to),
            escape(&seconds(before)),
            escape(&seconds(after)),
            escape(&change_text(c.change)),
            c.p,
            escape(&c_g(c.p, 2)),
        )?;
    }
    writeln!(w, "</tbody>\n</table></div>\n</article>")
}

/// Runs `from..to` (0-based, end excluded) as people count them: `3-9`.
fn span(from: usize, to: usize) -> String {
    if to <= from + 1 {
        format!("{}", from + 1)
    } else {
        format!("{}-{}", from + 1, to)
    }
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn spans_count_from_one_and_include_their_end() {
        assert_eq!(span(0, 15), "1-15");
        assert_eq!(span(15, 16), "16");
        assert_eq!(span(15, 30), "16-30");
    }
}
