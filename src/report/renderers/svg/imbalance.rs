//! The load-imbalance pictures of the database report: a function's time
//! per process as bars, or, for many processes, as a histogram.

use std::io::{self, Write};

use crate::analysis::imbalance::FunctionImbalance;
use crate::report::numfmt::human::{duration_apart, duration_text};

/// Width of the bar area of the imbalance pictures, in pixels.
const BAR_WIDTH: f64 = 480.0;

/// One bar per process: its time in `f`, the mean marked.
pub fn per_process_svg(
    w: &mut dyn Write,
    f: &FunctionImbalance,
    v: &[(usize, f64)],
) -> io::Result<()> {
    let (row, left) = (14.0, 70.0);
    let width = left + BAR_WIDTH + 90.0;
    let height = row * v.len() as f64 + 6.0;
    let scale = if f.max > 0.0 { BAR_WIDTH / f.max } else { 0.0 };
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    )?;
    for (i, &(p, t)) in v.iter().enumerate() {
        let y = 3.0 + row * i as f64;
        let outline = if f.selected.is_some_and(|(s, _)| s == p) {
            r##" stroke="#000" stroke-width="1.5""##
        } else {
            ""
        };
        writeln!(
            w,
            r##"<text x="4" y="{}">proc {p}</text><rect x="{left}" y="{y}" width="{:.1}" height="{}" fill="#4682b4"{outline}><title>process {p}: {}</title></rect><text x="{:.1}" y="{}">{}</text>"##,
            y + 10.0,
            (t * scale).max(0.0),
            row - 3.0,
            duration_text(t),
            left + (t * scale).max(0.0) + 4.0,
            y + 10.0,
            duration_text(t)
        )?;
    }
    let x = left + f.avg * scale;
    writeln!(
        w,
        r##"<line x1="{x:.1}" y1="0" x2="{x:.1}" y2="{height}" stroke="#8b0000" stroke-dasharray="4 3"><title>average {}</title></line>"##,
        duration_text(f.avg)
    )?;
    writeln!(w, "</svg>")
}

/// How many processes spent how long in `f`: a histogram of their times,
/// the bin of the mean marked.
pub fn histogram_svg(
    w: &mut dyn Write,
    f: &FunctionImbalance,
    lo: f64,
    hi: f64,
    counts: &[u64],
) -> io::Result<()> {
    let (row, left) = (14.0, 150.0);
    let width = left + BAR_WIDTH + 160.0;
    let height = row * counts.len() as f64 + 6.0;
    let most = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let nb = counts.len().max(1);
    let step = (hi - lo) / nb as f64;
    let selected_bin = f
        .selected
        .map(|(_, t)| crate::analysis::imbalance::bin(t, lo, hi, nb));
    let avg_bin = crate::analysis::imbalance::bin(f.avg, lo, hi, nb);
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    )?;
    for (i, &n) in counts.iter().enumerate() {
        let y = 3.0 + row * i as f64;
        let (a, z) = (lo + step * i as f64, lo + step * (i + 1) as f64);
        let outline = if selected_bin == Some(i) {
            r##" stroke="#000" stroke-width="1.5""##
        } else {
            ""
        };
        let mut marks = Vec::new();
        if i == avg_bin {
            marks.push("average".to_owned());
        }
        if let (Some(b), Some((p, _))) = (selected_bin, f.selected)
            && b == i
        {
            marks.push(format!("process {p}"));
        }
        let marks = if marks.is_empty() {
            String::new()
        } else {
            format!(" ← {}", marks.join(", "))
        };
        let bar = n as f64 / most * BAR_WIDTH;
        // Each end with its unit, digits enough to tell neighbours apart.
        let label = format!("{}–{}", duration_apart(a, step), duration_apart(z, step));
        writeln!(
            w,
            r##"<text x="4" y="{}">{label}</text><rect x="{left}" y="{y}" width="{bar:.1}" height="{}" fill="#4682b4"{outline}><title>{n} process(es) with {label}</title></rect><text x="{:.1}" y="{}">{n}{marks}</text>"##,
            y + 10.0,
            row - 3.0,
            left + bar + 4.0,
            y + 10.0,
        )?;
    }
    writeln!(w, "</svg>")
}
