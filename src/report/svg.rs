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
