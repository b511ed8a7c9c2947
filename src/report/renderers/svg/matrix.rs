//! The comm matrix as a heat map of bytes (sender × receiver), with its
//! colour scale; groups of processes share cells past [`MATRIX_SVG_CELLS`].

use crate::analysis::comm::sync::{SendMatrix, SendMatrixGroups};

/// At most this many cells per side of a matrix picture; more processes
/// share cells.
pub const MATRIX_SVG_CELLS: usize = 256;

/// How the heat map's colours follow the bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MatrixScale {
    /// Colour proportional to the bytes.
    #[default]
    Linear,
    /// Colour proportional to log(1 + bytes): routes of very different
    /// volumes stay apart.
    Log,
}

impl MatrixScale {
    /// Where `v` bytes sit between white (0) and the darkest colour (1).
    fn share(self, v: f64, max: f64) -> f64 {
        match self {
            MatrixScale::Linear => v / max,
            MatrixScale::Log => v.ln_1p() / max.ln_1p(),
        }
    }

    /// The bytes at `share` of the scale (the legend's ticks).
    fn value(self, share: f64, max: f64) -> f64 {
        match self {
            MatrixScale::Linear => share * max,
            MatrixScale::Log => (share * max.ln_1p()).exp_m1(),
        }
    }
}

/// The matrix as an SVG heat map of bytes: one cell per sender × receiver
/// up to [`MATRIX_SVG_CELLS`] processes, groups of processes beyond.
pub fn matrix_svg(
    m: &SendMatrix,
    scale: MatrixScale,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    matrix_svg_groups(
        &SendMatrixGroups::from_matrix(m, MATRIX_SVG_CELLS),
        scale,
        w,
    )
}

/// The heat map of a grouped matrix: each cell sums `m.group` consecutive
/// senders × receivers, so the picture stays bounded for any number of
/// processes. Above 64 cells per side, empty cells are left out (white
/// background).
pub fn matrix_svg_groups(
    m: &SendMatrixGroups,
    scale: MatrixScale,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    matrix_picture(m.nprocs, m.group.max(1), &m.bytes, &m.messages, scale, w)
}

/// At most this many process labels per axis (thinned to every k-th cell).
const MATRIX_AXIS_LABELS: usize = 16;

/// White (nothing) to dark red (the most bytes).
fn heat(f: f64) -> (f64, f64, f64) {
    let f = f.clamp(0.0, 1.0);
    (255.0 - 127.0 * f, 255.0 * (1.0 - f), 255.0 * (1.0 - f))
}

/// `bytes` and `messages` are square, one row and column per group of `k`
/// consecutive processes out of `nprocs`.
fn matrix_picture(
    nprocs: usize,
    k: usize,
    bytes: &[Vec<u64>],
    messages: &[Vec<u64>],
    scale: MatrixScale,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let n = bytes.len().max(1);
    let procs = |i: usize| -> String {
        if k == 1 {
            i.to_string()
        } else {
            let last = ((i + 1) * k).min(nprocs).max(i * k + 1) - 1;
            format!("procs {}–{last}", i * k)
        }
    };
    let cell = (640 / n).clamp(2, 40);
    // Margins: the axis titles and labels left and above, the colour
    // scale right.
    let (left, top, legend) = (70, 60, 130);
    let side = cell * n;
    let (width, height) = (left + side + legend, top + side + 20);
    let max = bytes.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    )?;
    let per_cell = if k == 1 {
        String::new()
    } else {
        format!(", {k} processes per cell")
    };
    let scale_name = match scale {
        MatrixScale::Linear => "linear",
        MatrixScale::Log => "logarithmic",
    };
    writeln!(
        w,
        r#"<title>Bytes sent: rows = sender, columns = receiver (max {max} bytes{per_cell}; {scale_name} colour scale)</title>"#
    )?;
    writeln!(
        w,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    )?;
    writeln!(
        w,
        r#"<text x="{left}" y="14" font-size="12">receiver →</text>"#
    )?;
    writeln!(
        w,
        r#"<text x="12" y="{top}" font-size="12" transform="rotate(90 12 {top})">sender →</text>"#
    )?;
    // Process labels, thinned so they never overlap.
    let step = n.div_ceil(MATRIX_AXIS_LABELS).max(1);
    let first = |i: usize| (i * k).to_string();
    for i in (0..n).step_by(step) {
        let at = i * cell + cell / 2;
        writeln!(
            w,
            r#"<text x="{}" y="{}" font-size="10" text-anchor="start" transform="rotate(-60 {} {})">{}</text>"#,
            left + at,
            top - 4,
            left + at,
            top - 4,
            first(i)
        )?;
        writeln!(
            w,
            r#"<text x="{}" y="{}" font-size="10" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            left - 4,
            top + at,
            first(i)
        )?;
    }
    // Small pictures get every cell (empty ones too, for their tooltips);
    // large ones only the cells with messages: the background is white.
    let all_cells = n <= 64;
    for (from, row) in bytes.iter().enumerate() {
        for (to, &v) in row.iter().enumerate() {
            if !all_cells && v == 0 && messages[from][to] == 0 {
                continue;
            }
            let (r, g, b) = heat(scale.share(v as f64, max));
            writeln!(
                w,
                r#"<rect x="{}" y="{}" width="{cell}" height="{cell}" fill="rgb({:.0},{:.0},{:.0})"><title>{} → {}: {v} bytes, {} messages</title></rect>"#,
                left + to * cell,
                top + from * cell,
                r,
                g,
                b,
                procs(from),
                procs(to),
                messages[from][to]
            )?;
        }
    }
    legend_svg(w, left + side + 20, top, side.max(100), scale, max)?;
    writeln!(w, "</svg>")
}

/// The colour scale: a bar from the most bytes (top) to none (bottom)
/// with five labelled ticks.
fn legend_svg(
    w: &mut dyn std::io::Write,
    x: usize,
    y: usize,
    h: usize,
    scale: MatrixScale,
    max: f64,
) -> std::io::Result<()> {
    const STEPS: usize = 32;
    writeln!(
        w,
        r#"<text x="{x}" y="{}" font-size="11">bytes</text>"#,
        y - 8
    )?;
    let band = h as f64 / STEPS as f64;
    for i in 0..STEPS {
        let f = 1.0 - (i as f64 + 0.5) / STEPS as f64;
        let (r, g, b) = heat(f);
        writeln!(
            w,
            r#"<rect x="{x}" y="{:.1}" width="16" height="{:.1}" fill="rgb({r:.0},{g:.0},{b:.0})"/>"#,
            y as f64 + i as f64 * band,
            band + 0.5
        )?;
    }
    writeln!(
        w,
        r##"<rect x="{x}" y="{y}" width="16" height="{h}" fill="none" stroke="#888888"/>"##
    )?;
    for t in 0..=4 {
        let f = 1.0 - t as f64 / 4.0;
        let ty = y as f64 + t as f64 / 4.0 * h as f64;
        writeln!(
            w,
            r##"<line x1="{}" y1="{ty:.1}" x2="{}" y2="{ty:.1}" stroke="#444444"/><text x="{}" y="{ty:.1}" font-size="10" dominant-baseline="middle">{}</text>"##,
            x + 16,
            x + 20,
            x + 23,
            crate::report::numfmt::human::bytes(scale.value(f, max).round() as u64)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comm::sync::Route;

    /// A ring: each process sends 10 bytes to the next.
    fn ring(n: usize) -> SendMatrix {
        let mut routes: Vec<Route> = (0..n)
            .map(|from| Route {
                from,
                to: (from + 1) % n,
                messages: 1,
                bytes: 10,
            })
            .collect();
        routes.sort_by_key(|r| (r.from, r.to));
        SendMatrix {
            nprocs: n,
            routes,
            unknown_peer: 0,
            region_filter: None,
        }
    }

    fn svg(m: &SendMatrix, max_cells: usize) -> String {
        let mut out = Vec::new();
        matrix_svg_groups(
            &SendMatrixGroups::from_matrix(m, max_cells),
            MatrixScale::Linear,
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn small_matrices_draw_every_cell() {
        let mut plain = Vec::new();
        matrix_svg(&ring(4), MatrixScale::Linear, &mut plain).unwrap();
        let text = svg(&ring(4), 256);
        assert_eq!(
            text.as_bytes(),
            plain,
            "one process per cell: the plain picture"
        );
        // Cells carry their tooltip (the colour scale's bands do not).
        assert_eq!(text.matches("</rect>").count(), 16);
        assert!(text.contains("<title>3 → 0: 10 bytes, 1 messages</title>"));
    }

    #[test]
    fn matrices_have_thinned_process_labels_and_a_colour_scale() {
        let text = svg(&ring(600), 256);
        // 200 cells per side: a label every 13 cells, on both axes.
        let labels = text.matches("font-size=\"10\" text-anchor").count();
        assert_eq!(labels, 2 * 200usize.div_ceil(13), "{labels}");
        assert!(text.contains(">597<") || text.contains(">585<"));
        // Five ticks from the most bytes down to none.
        assert_eq!(text.matches("<line x1=").count(), 5);
        assert!(text.contains(">0 B<"), "the scale starts at nothing");
        // The log scale keeps small routes visible: a 10-byte route in a
        // matrix whose largest is 1000 bytes gets a third of the colour.
        assert!((MatrixScale::Log.share(10.0, 1000.0) - 0.347).abs() < 0.01);
        assert!((MatrixScale::Linear.share(10.0, 1000.0) - 0.01).abs() < 1e-9);
        let v = MatrixScale::Log.value(0.5, 1000.0);
        assert!((MatrixScale::Log.share(v, 1000.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn large_matrices_group_processes_and_skip_empty_cells() {
        let text = svg(&ring(600), 256);
        // k = 3: 200 × 200 cells, of which the ring fills the diagonal
        // (p → p+1 mostly stays in its group) and the next-group cells.
        let cells = text.matches("</rect>").count();
        assert!(cells <= 2 * 200, "{cells} cells");
        assert!(text.contains("3 processes per cell"));
        assert!(text.contains("<title>procs 0–2 → procs 0–2: 20 bytes, 2 messages</title>"));
        assert!(text.contains("<title>procs 597–599 → procs 0–2: 10 bytes, 1 messages</title>"));
    }
}
