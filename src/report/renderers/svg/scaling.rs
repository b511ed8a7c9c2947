//! `compare --svg F`: time against ranks, one line per timer (log–log),
//! with the ideal scaling of the total time dashed.

use std::io::{self, Write};

use crate::analysis::tinyprofiler::{Comparison, FunctionScaling, Scaling};
use crate::report::numfmt::tinyprofiler::sig4;
use crate::report::renderers::html::escape::markup as escape;
use crate::report::renderers::svg::colour::function_hue;

/// Timers drawn besides the total: those that matter with the largest
/// time in the first run.
pub const CHART_TIMERS: usize = 8;

const W: f64 = 760.0;
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 250.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 50.0;

/// The chart. The x axis is the ranks (log scale) when every run has them,
/// else the run number; the y axis is seconds (log scale). Values that are
/// missing or not positive leave a gap.
pub fn compare_svg(c: &Comparison, w: &mut dyn Write) -> io::Result<()> {
    let mut drawn: Vec<&FunctionScaling> = c.functions.iter().filter(|f| f.matters).collect();
    let first = |f: &FunctionScaling| f.times.first().copied().flatten().unwrap_or(0.0);
    drawn.sort_by(|a, b| {
        first(b)
            .total_cmp(&first(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    drawn.truncate(CHART_TIMERS);
    drawn.insert(0, &c.total);

    let by_ranks = c.nprocs.iter().all(|n| n.is_some_and(|n| n > 0));
    let xs: Vec<f64> = if by_ranks {
        c.nprocs.iter().map(|n| n.unwrap_or(1) as f64).collect()
    } else {
        (1..=c.labels.len()).map(|i| i as f64).collect()
    };
    let positive = |x: &f64| x.is_finite() && *x > 0.0;
    let ys: Vec<f64> = drawn
        .iter()
        .flat_map(|f| f.times.iter().flatten().copied())
        .filter(positive)
        .collect();
    let (ymin, ymax) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| {
            (a.min(y), b.max(y))
        });
    let (ymin, ymax) = if ymin.is_finite() {
        (
            ymin.log10().floor(),
            ymax.log10().ceil().max(ymin.log10().floor() + 1.0),
        )
    } else {
        (0.0, 1.0)
    };
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let (xmin, xmax) = (xmin.log2(), xmax.log2().max(xmin.log2() + 1.0));
    let px = |x: f64| LEFT + (x.log2() - xmin) / (xmax - xmin) * (W - LEFT - RIGHT);
    let py = |y: f64| TOP + (ymax - y.log10()) / (ymax - ymin) * (H - TOP - BOTTOM);

    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    )?;
    writeln!(w, r#"<rect width="{W}" height="{H}" fill="white"/>"#)?;
    let what = match c.scaling {
        Scaling::Strong => "strong scaling",
        Scaling::Weak => "weak scaling",
    };
    writeln!(
        w,
        r#"<text x="{LEFT}" y="18">Seconds ({}) against {}; {what}, ideal dashed</text>"#,
        c.metric.name(),
        if by_ranks { "ranks" } else { "run" }
    )?;
    // Axes, decades and run ticks.
    let (x0, x1, y0, y1) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
    writeln!(
        w,
        r#"<path d="M{x0},{y0} V{y1} H{x1}" stroke="black" fill="none"/>"#
    )?;
    let mut decade = ymin;
    while decade <= ymax {
        let y = py(10f64.powf(decade));
        writeln!(
            w,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            x0 - 6.0,
            y + 4.0,
            sig4(10f64.powf(decade))
        )?;
        decade += 1.0;
    }
    for (i, &x) in xs.iter().enumerate() {
        let label = if by_ranks {
            c.nprocs[i].unwrap_or(0).to_string()
        } else {
            (i + 1).to_string()
        };
        writeln!(
            w,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{label}</text>"#,
            px(x),
            y1 + 18.0
        )?;
    }
    // The ideal of the total: t1·n1/n (strong) or t1 (weak).
    if let (Some(Some(t1)), Some(&n1)) = (c.total.times.first(), xs.first())
        && positive(t1)
    {
        let ideal = |x: f64| match c.scaling {
            Scaling::Strong if by_ranks => t1 * n1 / x,
            _ => *t1,
        };
        let points: Vec<String> = xs
            .iter()
            .map(|&x| format!("{:.1},{:.1}", px(x), py(ideal(x))))
            .collect();
        writeln!(
            w,
            r##"<polyline points="{}" fill="none" stroke="#888" stroke-dasharray="6 4"/>"##,
            points.join(" ")
        )?;
    }
    for (k, f) in drawn.iter().enumerate() {
        let colour = if k == 0 {
            "black".to_owned()
        } else {
            format!("hsl({:.0},70%,40%)", function_hue(k as u32))
        };
        // Runs of consecutive known values, as separate lines.
        let mut run: Vec<String> = Vec::new();
        let mut runs: Vec<Vec<String>> = Vec::new();
        for (t, &x) in f.times.iter().zip(&xs) {
            match t {
                Some(t) if positive(t) => run.push(format!("{:.1},{:.1}", px(x), py(*t))),
                _ => runs.push(std::mem::take(&mut run)),
            }
        }
        runs.push(run);
        for points in runs.iter().filter(|r| !r.is_empty()) {
            writeln!(
                w,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                points.join(" ")
            )?;
            for p in points {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                writeln!(w, r#"<circle cx="{x}" cy="{y}" r="3" fill="{colour}"/>"#)?;
            }
        }
        let ly = TOP + 10.0 + 18.0 * k as f64;
        let name: String = f.name.chars().take(34).collect();
        writeln!(
            w,
            r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/><text x="{:.1}" y="{:.1}"><title>{}</title>{}</text>"#,
            x1 + 12.0,
            x1 + 32.0,
            x1 + 38.0,
            ly + 4.0,
            escape(&f.name),
            escape(&name)
        )?;
    }
    writeln!(w, "</svg>")
}
