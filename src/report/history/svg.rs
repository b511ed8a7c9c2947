//! `history --svg F` (and each timer's picture on the `--html` page): the
//! series of the top timers, one panel each, with
//! their steps marked: a dashed line before the first run after a step,
//! labelled with its size, and each level between steps drawn flat at its
//! median. Self-contained (no scripts, no fonts to fetch).

use std::io::{self, Write};

use super::{HistoryReport, change_text, levels};
use crate::analysis::history::TimerHistory;
use crate::report::regress::seconds;
use crate::report::renderers::html::escape::markup as escape;

const W: f64 = 760.0;
const PANEL: f64 = 150.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 26.0;

/// Writes the chart of the first `top` timers of the report (those with
/// steps come first).
pub fn write(report: &HistoryReport, top: usize, w: &mut dyn Write) -> io::Result<()> {
    let timers: Vec<_> = report.history.timers.iter().take(top).collect();
    open(w, timers.len())?;
    for (p, t) in timers.iter().enumerate() {
        panel(w, report.history.runs, t, PANEL * p as f64)?;
    }
    writeln!(w, "</svg>")
}

/// Writes the chart of one timer: a picture of its own (the HTML page
/// draws one beside each timer's table).
pub fn write_one(report: &HistoryReport, t: &TimerHistory, w: &mut dyn Write) -> io::Result<()> {
    open(w, 1)?;
    panel(w, report.history.runs, t, 0.0)?;
    writeln!(w, "</svg>")
}

/// The `<svg>` element of `panels` panels (at least room for one), with
/// its white background.
fn open(w: &mut dyn Write, panels: usize) -> io::Result<()> {
    let height = PANEL * panels.max(1) as f64;
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" viewBox="0 0 {W} {height}" font-family="sans-serif" font-size="11">"#
    )?;
    writeln!(w, r#"<rect width="100%" height="100%" fill="white"/>"#)
}

/// One timer's panel, its top at `top_y`, over `runs` runs.
fn panel(w: &mut dyn Write, runs: usize, t: &TimerHistory, top_y: f64) -> io::Result<()> {
    let x = |i: usize| LEFT + (W - LEFT - RIGHT) * (i as f64 + 0.5) / runs.max(1) as f64;
    let finite: Vec<f64> = t.values.iter().copied().filter(|v| v.is_finite()).collect();
    let (lo, hi) = finite
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    // A flat series gets a band around its value; no values, 0 to 1.
    let (lo, hi) = match (lo.is_finite(), hi > lo) {
        (false, _) => (0.0, 1.0),
        (true, true) => (lo, hi),
        (true, false) => {
            let d = 0.1 * lo.abs().max(1e-9);
            (lo - d, hi + d)
        }
    };
    let y = |v: f64| top_y + TOP + (PANEL - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo));
    writeln!(
        w,
        r#"<text x="{LEFT}" y="{:.1}" font-weight="bold">{}</text>"#,
        top_y + 15.0,
        escape(&t.path.join(" > "))
    )?;
    // Axes: the range of the values, the first and last run.
    let (y0, y1) = (top_y + PANEL - BOTTOM, top_y + TOP);
    writeln!(
        w,
        r##"<path d="M{LEFT} {y1:.1} V{y0:.1} H{:.1}" stroke="#888" fill="none"/>"##,
        W - RIGHT
    )?;
    for (v, at) in [(hi, y1), (lo, y0)] {
        writeln!(
            w,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            at + 4.0,
            escape(&seconds(v))
        )?;
    }
    // The last run's label ends at the right edge, so that `run 1000`
    // is not cut off.
    let last = runs.saturating_sub(1);
    for (i, at, anchor) in [(0, x(0), "middle"), (last, W - 2.0, "end")] {
        writeln!(
            w,
            r#"<text x="{at:.1}" y="{:.1}" text-anchor="{anchor}">run {}</text>"#,
            y0 + 16.0,
            i + 1
        )?;
    }
    // The series, broken where a run has no value.
    let mut d = String::new();
    let mut pen_down = false;
    for (i, &v) in t.values.iter().enumerate() {
        if v.is_finite() {
            d.push_str(&format!("{}{:.1} {:.1} ", if pen_down { "L" } else { "M" }, x(i), y(v)));
            pen_down = true;
        } else {
            pen_down = false;
        }
    }
    writeln!(w, r##"<path d="{}" stroke="#36c" fill="none"/>"##, d.trim_end())?;
    // The levels between steps, and the steps.
    let mut bounds = vec![0];
    bounds.extend(t.change_points.iter().map(|c| c.index));
    bounds.push(runs);
    for k in 0..t.change_points.len() {
        let (before, after) = levels(t, k);
        for (level, from, to) in [(before, bounds[k], bounds[k + 1]), (after, bounds[k + 1], bounds[k + 2])] {
            if level.is_finite() {
                writeln!(
                    w,
                    r##"<path d="M{:.1} {:.1} H{:.1}" stroke="#999" stroke-width="2" fill="none"/>"##,
                    x(from) - 0.5 * (x(1) - x(0)),
                    y(level),
                    x(to.saturating_sub(1)) + 0.5 * (x(1) - x(0))
                )?;
            }
        }
        let c = &t.change_points[k];
        let at = x(c.index) - 0.5 * (x(1) - x(0));
        writeln!(
            w,
            r##"<path d="M{at:.1} {y1:.1} V{y0:.1}" stroke="#c33" stroke-dasharray="4 3"/>"##
        )?;
        writeln!(
            w,
            r##"<text x="{:.1}" y="{:.1}" fill="#c33">{} at run {}</text>"##,
            at + 3.0,
            // Labels of steps close together take turns on three lines.
            y1 + 10.0 + 11.0 * (k % 3) as f64,
            escape(&change_text(c.change)),
            c.index + 1
        )?;
    }
    Ok(())
}
