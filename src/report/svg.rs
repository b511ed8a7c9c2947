//! SVG pictures (self-contained, no scripts).

use crate::analysis::comm_sync::SendMatrix;

/// The matrix as an SVG heat map of bytes (one cell per sender × receiver).
pub fn matrix_svg(m: &SendMatrix, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let n = m.nprocs.max(1);
    let cell = (640 / n).clamp(2, 40);
    let size = cell * n + 60;
    let max = m.bytes.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">"#
    )?;
    writeln!(
        w,
        r#"<title>Bytes sent: rows = sender, columns = receiver (max {max} bytes)</title>"#
    )?;
    writeln!(
        w,
        r##"<rect width="{size}" height="{size}" fill="#ffffff"/>"##
    )?;
    writeln!(
        w,
        r#"<text x="50" y="14" font-size="12" font-family="sans-serif">receiver →</text>"#
    )?;
    writeln!(
        w,
        r#"<text x="12" y="60" font-size="12" font-family="sans-serif" transform="rotate(90 12 60)">sender →</text>"#
    )?;
    for (from, row) in m.bytes.iter().enumerate() {
        for (to, &v) in row.iter().enumerate() {
            let f = v as f64 / max;
            // White (nothing) to dark red (most bytes).
            let (r, g, b) = (255.0 - 127.0 * f, 255.0 * (1.0 - f), 255.0 * (1.0 - f));
            writeln!(
                w,
                r#"<rect x="{}" y="{}" width="{cell}" height="{cell}" fill="rgb({:.0},{:.0},{:.0})"><title>{from} → {to}: {v} bytes, {} messages</title></rect>"#,
                40 + to * cell,
                40 + from * cell,
                r,
                g,
                b,
                m.messages[from][to]
            )?;
        }
    }
    writeln!(w, "</svg>")
}

/// Columns of the timeline picture.
pub const TIMELINE_COLUMNS: usize = 1130;

/// A timeline: one lane per process; per column (a slice of time) the
/// function type with the most time, coloured by type, opacity = share of
/// the slice spent in communication. Size is bounded by columns × processes,
/// whatever the number of calls.
pub fn timeline_svg(
    span: (f64, f64),
    rows: &[crate::analysis::comm_timeline::TimelineRow],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let (t0, t1) = if span.1 > span.0 {
        span
    } else {
        (span.0, span.0 + 1.0)
    };
    let (lane, left) = (18.0, 60.0);
    let col = 1.0;
    let width = left + col * TIMELINE_COLUMNS as f64 + 10.0;
    let height = 40.0 + lane * rows.len() as f64;
    let slice = (t1 - t0) / TIMELINE_COLUMNS as f64;
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    )?;
    writeln!(
        w,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    )?;
    writeln!(
        w,
        r#"<text x="{left}" y="14" font-size="12" font-family="sans-serif">{t0:.6} s … {t1:.6} s, {slice:.3e} s per column; colour = type with most time, opacity = busy share (each process on its own clock)</text>"#
    )?;
    for (i, row) in rows.iter().enumerate() {
        let y = 24.0 + lane * i as f64;
        writeln!(
            w,
            r#"<text x="4" y="{}" font-size="11" font-family="sans-serif">proc {}</text>"#,
            y + 12.0,
            row.proc
        )?;
        for b in &row.bars {
            // A colour per function type, spread around the hue circle.
            let hue = (b.kind * 47).rem_euclid(360);
            let x0 = left + col * b.first as f64;
            let wd = col * (b.last - b.first + 1) as f64;
            let (a, z) = (
                t0 + slice * b.first as f64,
                t0 + slice * (b.last + 1) as f64,
            );
            writeln!(
                w,
                r#"<rect x="{x0}" y="{y}" width="{wd}" height="{}" fill="hsl({hue},70%,50%)" fill-opacity="{:.2}"><title>{} {a:.6}..{z:.6} s: {} call(s), {:.0}% busy</title></rect>"#,
                lane - 4.0,
                0.25 + 0.75 * b.busy,
                b.name,
                b.calls,
                100.0 * b.busy
            )?;
        }
    }
    writeln!(w, "</svg>")
}
