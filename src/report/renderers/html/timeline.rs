//! The report's timelines section: the calls of the traces at a chosen
//! depth, and the communication calls. The depth is picked with radio
//! buttons and CSS alone (`:checked ~`), so the choice works without
//! JavaScript; every depth's picture is bounded by columns × lanes, and
//! there are at most [`TIMELINE_DEPTHS`] of them.

use std::io::{self, Write};

use crate::analysis::overview::Overview;
use crate::analysis::trace_timeline::TraceTimeline;
use crate::report::numfmt::human::duration_text;
use crate::report::renderers::html::escape::markup as escape;
use crate::report::renderers::html::section::absent;
use crate::report::renderers::svg::timeline::MAX_LANES;

/// Depths of the trace timeline offered (0..TIMELINE_DEPTHS): an `Amr`
/// application's steps show at depth 0 or 1, its phases below.
pub const TIMELINE_DEPTHS: usize = 4;

/// Bars drawn at depths below 0, over all of them: a depth that would
/// pass this is left out (with a note), so that the deeper pictures add a
/// bounded size to the page (about 110 bytes a bar) whatever the calls.
pub const MAX_DEEPER_BARS: usize = 30_000;

/// Functions of a trace timeline's legend.
const LEGEND_FUNCTIONS: usize = 12;

/// Writes the section (`id`, `title`: its place in the page's list).
pub fn write_timelines(w: &mut dyn Write, id: &str, title: &str, r: &Overview) -> io::Result<()> {
    writeln!(w, "<section id=\"{id}\">\n<h2>{title}</h2>")?;
    writeln!(
        w,
        "<p class=\"note\">One lane per process (above {MAX_LANES} processes, per group of consecutive processes), time binned into columns: the pictures stay the same size whatever the number of calls. Hover a bar for its time range and calls.</p>"
    )?;
    writeln!(
        w,
        "<h3 class=\"sub\" id=\"timeline-trace\">Calls by depth (call traces)</h3>"
    )?;
    match &r.trace_timeline {
        Ok(levels) => trace_levels(w, levels)?,
        Err(a) => absent(w, a)?,
    }
    writeln!(
        w,
        "<h3 class=\"sub\" id=\"timeline-comm\">Communication calls (comm profile)</h3>"
    )?;
    match &r.comm_timeline {
        Ok(c) if c.rows.iter().all(|row| row.bars.is_empty()) => writeln!(
            w,
            "<p class=\"absent\">No communication calls recorded.</p>"
        )?,
        Ok(c) => {
            writeln!(w, "<div class=\"scroll\">")?;
            crate::report::renderers::svg::timeline::timeline_svg(c.span, &c.rows, w)?;
            writeln!(w, "</div>")?;
            // Legend: the types drawn, by the columns they win.
            let mut kinds: Vec<(i32, &str, u64)> = Vec::new();
            for b in c.rows.iter().flat_map(|r| &r.bars) {
                let cols = (b.last - b.first + 1) as u64;
                match kinds.iter_mut().find(|k| k.0 == b.kind) {
                    Some(k) => k.2 += cols,
                    None => kinds.push((b.kind, b.name, cols)),
                }
            }
            kinds.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
            write!(w, "<p class=\"legend\">")?;
            for (kind, name, _) in &kinds {
                write!(
                    w,
                    "<span><i style=\"background:{}\"></i>{}</span>",
                    crate::report::renderers::svg::colour::comm_type_colour(*kind as i64),
                    escape(name)
                )?;
            }
            writeln!(w, "</p>")?;
        }
        Err(a) => absent(w, a)?,
    }
    writeln!(w, "</section>")
}

/// The depth that starts selected: the shallowest whose lanes show more
/// than one bar (an application whose depth 0 is one long call shows its
/// next level), else the shallowest drawn.
fn first_depth(levels: &[(usize, &TraceTimeline)]) -> Option<usize> {
    levels
        .iter()
        .find(|(_, t)| t.rows.iter().any(|r| r.bars.len() > 1))
        .or(levels.first())
        .map(|(d, _)| *d)
}

/// The radio buttons, then one picture and legend per depth with calls.
fn trace_levels(w: &mut dyn Write, levels: &[TraceTimeline]) -> io::Result<()> {
    let mut drawn: Vec<(usize, &TraceTimeline)> = levels
        .iter()
        .enumerate()
        .filter(|(_, t)| t.rows.iter().any(|row| !row.bars.is_empty()))
        .collect();
    let mut budget = MAX_DEEPER_BARS;
    let mut left_out = None;
    if let Some(cut) = drawn.iter().position(|(d, t)| {
        let n = bars(t);
        let over = *d > 0 && n > budget;
        budget = budget.saturating_sub(if *d > 0 { n } else { 0 });
        over
    }) {
        left_out = Some(drawn[cut].0);
        drawn.truncate(cut);
    }
    let Some(selected) = first_depth(&drawn) else {
        return writeln!(w, "<p class=\"absent\">No calls recorded.</p>");
    };
    writeln!(
        w,
        "<p class=\"note\">Each picture shows the calls at one depth of the call tree (0: the outermost calls); a new call of the same function starts a new bar, a pixel apart.</p>"
    )?;
    // The CSS that shows the picture of the checked depth only.
    write!(w, "<style>")?;
    for (d, _) in &drawn {
        write!(w, "#tl-d{d}:checked~#tl-{d}{{display:block}}")?;
    }
    writeln!(w, "</style>")?;
    if let Some(d) = left_out {
        writeln!(
            w,
            "<p class=\"note\">Depths {d} and deeper are left out: with them the pictures would hold more than {MAX_DEEPER_BARS} bars.</p>"
        )?;
    }
    writeln!(w, "<div class=\"depths\">")?;
    write!(w, "<span class=\"note\">Depth:</span>")?;
    for (d, _) in &drawn {
        write!(
            w,
            "<input type=\"radio\" name=\"tl-depth\" id=\"tl-d{d}\"{}><label for=\"tl-d{d}\">{d}</label>",
            if *d == selected { " checked" } else { "" }
        )?;
    }
    writeln!(w)?;
    for (d, t) in &drawn {
        writeln!(w, "<div class=\"tl\" id=\"tl-{d}\">")?;
        writeln!(w, "<div class=\"scroll\">")?;
        crate::report::renderers::svg::timeline::trace_timeline_svg(t, *d, w)?;
        writeln!(w, "</div>")?;
        legend(w, t)?;
        writeln!(w, "</div>")?;
    }
    writeln!(w, "</div>")
}

/// The bars a picture of `t` draws, at most: lanes of grouped processes
/// hold one bar per column at most.
fn bars(t: &TraceTimeline) -> usize {
    let all: usize = t.rows.iter().map(|r| r.bars.len()).sum();
    if t.rows.len() > MAX_LANES {
        all.min(MAX_LANES * t.columns)
    } else {
        all
    }
}

/// The functions drawn, by their seconds at this depth.
fn legend(w: &mut dyn Write, t: &TraceTimeline) -> io::Result<()> {
    let mut by_time: Vec<usize> = (0..t.names.len().min(t.totals.len()))
        .filter(|&f| t.totals[f] > 0.0)
        .collect();
    by_time.sort_by(|&a, &b| t.totals[b].total_cmp(&t.totals[a]).then(a.cmp(&b)));
    write!(w, "<p class=\"legend\">")?;
    for &f in by_time.iter().take(LEGEND_FUNCTIONS) {
        write!(
            w,
            "<span><i style=\"background:hsl({:.0},65%,48%)\"></i>{} ({})</span>",
            crate::report::renderers::svg::colour::function_hue(f as u32),
            escape(&t.names[f]),
            duration_text(t.totals[f])
        )?;
    }
    if by_time.len() > LEGEND_FUNCTIONS {
        write!(
            w,
            "<span>… {} more (hover the bars)</span>",
            by_time.len() - LEGEND_FUNCTIONS
        )?;
    }
    writeln!(w, "</p>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::trace_timeline::{TraceBar, TraceTimelineRow};

    /// A timeline of one lane with `n` one-column bars of function 0.
    fn level(n: u32) -> TraceTimeline {
        TraceTimeline {
            span: (0.0, 1.0),
            columns: n.max(1) as usize,
            names: vec!["f<&>".into()],
            totals: vec![1.0],
            rows: vec![TraceTimelineRow {
                proc: 0,
                bars: (0..n)
                    .map(|i| TraceBar {
                        first: i,
                        last: i,
                        function: 0,
                        busy: 1.0,
                        calls: 1,
                    })
                    .collect(),
            }],
            latest_end: 1.0,
        }
    }

    fn page(levels: &[TraceTimeline]) -> String {
        let mut out = Vec::new();
        trace_levels(&mut out, levels).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_first_depth_with_steps_starts_selected_and_empty_depths_are_skipped() {
        let html = page(&[level(1), level(0), level(3)]);
        assert!(html.contains("id=\"tl-d0\"><label"));
        assert!(!html.contains("id=\"tl-d1\""));
        assert!(html.contains("id=\"tl-d2\" checked>"));
        assert!(html.contains("#tl-d2:checked~#tl-2{display:block}"));
        assert!(html.contains("f&lt;&amp;&gt;"));
        assert!(!html.contains("left out"));
    }

    #[test]
    fn deeper_depths_share_a_bounded_number_of_bars() {
        let n = (MAX_DEEPER_BARS / 2 + 1) as u32;
        let html = page(&[level(2), level(n), level(n), level(1)]);
        assert!(html.contains("id=\"tl-d1\""));
        assert!(!html.contains("id=\"tl-d2\"") && !html.contains("id=\"tl-d3\""));
        assert!(html.contains("Depths 2 and deeper are left out"));
        assert!(html.matches("<rect").count() <= 2 + 2 + MAX_DEEPER_BARS);
        assert_eq!(
            page(&[level(0)]),
            "<p class=\"absent\">No calls recorded.</p>\n"
        );
    }
}
