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

/// A timeline: one lane per process, one bar per call, coloured by type.
pub fn timeline_svg(
    procs: &[(usize, Vec<crate::analysis::comm_timeline::CommCall>)],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    for c in procs.iter().flat_map(|(_, c)| c) {
        t0 = t0.min(c.start);
        t1 = t1.max(c.end);
    }
    if t1 <= t0 {
        t0 = 0.0;
        t1 = 1.0;
    }
    let (width, lane, left) = (1200.0, 18.0, 60.0);
    let height = 40.0 + lane * procs.len() as f64;
    let x = |t: f64| left + (t - t0) / (t1 - t0) * (width - left - 10.0);
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
        r#"<text x="{left}" y="14" font-size="12" font-family="sans-serif">{t0:.6} s … {t1:.6} s (each process on its own clock)</text>"#
    )?;
    for (i, (p, calls)) in procs.iter().enumerate() {
        let y = 24.0 + lane * i as f64;
        writeln!(
            w,
            r#"<text x="4" y="{}" font-size="11" font-family="sans-serif">proc {p}</text>"#,
            y + 12.0
        )?;
        for c in calls {
            // A colour per function type, spread around the hue circle.
            let hue = (c.kind * 47) % 360;
            let (x0, x1) = (x(c.start), x(c.end));
            let wd = (x1 - x0).max(1.0);
            writeln!(
                w,
                r#"<rect x="{x0:.2}" y="{y}" width="{wd:.2}" height="{}" fill="hsl({hue},70%,50%)"><title>{} {:.9}..{:.9} size {} peer {} tag {}</title></rect>"#,
                lane - 4.0,
                c.name,
                c.start,
                c.end,
                c.size,
                c.peer,
                c.tag
            )?;
        }
    }
    writeln!(w, "</svg>")
}
