//! SVG pictures (self-contained, no scripts).

use crate::analysis::comm_sync::{SendMatrix, SendMatrixGroups};

/// The matrix as an SVG heat map of bytes (one cell per sender × receiver).
pub fn matrix_svg(m: &SendMatrix, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    matrix_picture(m.nprocs, 1, &m.bytes, &m.messages, w)
}

/// The heat map of a grouped matrix: each cell sums `m.group` consecutive
/// senders × receivers, so the picture stays bounded for any number of
/// processes. Above 64 cells per side, empty cells are left out (white
/// background).
pub fn matrix_svg_groups(m: &SendMatrixGroups, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    matrix_picture(m.nprocs, m.group.max(1), &m.bytes, &m.messages, w)
}

/// `bytes` and `messages` are square, one row and column per group of `k`
/// consecutive processes out of `nprocs`.
fn matrix_picture(
    nprocs: usize,
    k: usize,
    bytes: &[Vec<u64>],
    messages: &[Vec<u64>],
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
    let size = cell * n + 60;
    let max = bytes.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">"#
    )?;
    let per_cell = if k == 1 {
        String::new()
    } else {
        format!(", {k} processes per cell")
    };
    writeln!(
        w,
        r#"<title>Bytes sent: rows = sender, columns = receiver (max {max} bytes{per_cell})</title>"#
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
    // Small pictures get every cell (empty ones too, for their tooltips);
    // large ones only the cells with messages: the background is white.
    let all_cells = n <= 64;
    for (from, row) in bytes.iter().enumerate() {
        for (to, &v) in row.iter().enumerate() {
            if !all_cells && v == 0 && messages[from][to] == 0 {
                continue;
            }
            let f = v as f64 / max;
            // White (nothing) to dark red (most bytes).
            let (r, g, b) = (255.0 - 127.0 * f, 255.0 * (1.0 - f), 255.0 * (1.0 - f));
            writeln!(
                w,
                r#"<rect x="{}" y="{}" width="{cell}" height="{cell}" fill="rgb({:.0},{:.0},{:.0})"><title>{} → {}: {v} bytes, {} messages</title></rect>"#,
                40 + to * cell,
                40 + from * cell,
                r,
                g,
                b,
                procs(from),
                procs(to),
                messages[from][to]
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
    let Lanes { lane, gap, every } = Lanes::for_rows(rows.len());
    let left = 60.0;
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
        if i % every == 0 {
            writeln!(
                w,
                r#"<text x="4" y="{}" font-size="11" font-family="sans-serif">proc {}</text>"#,
                y + lane.min(12.0),
                row.proc
            )?;
        }
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
                lane - gap,
                0.25 + 0.75 * b.busy,
                b.name,
                b.calls,
                100.0 * b.busy
            )?;
        }
    }
    writeln!(w, "</svg>")
}

/// Lane geometry of a timeline of `n` processes: 18 px lanes up to 64
/// processes, thinner ones (down to 3 px) above, so that the picture stays
/// about 1200 px tall; labels on every `every`-th lane only, so that they
/// never overlap.
struct Lanes {
    lane: f64,
    /// Blank pixels between lanes.
    gap: f64,
    every: usize,
}

impl Lanes {
    fn for_rows(n: usize) -> Lanes {
        let lane: f64 = if n <= 64 {
            18.0
        } else {
            (1152.0 / n as f64).floor().max(3.0)
        };
        Lanes {
            lane,
            gap: if lane >= 8.0 { 4.0 } else { 1.0 },
            every: (12.0 / lane).ceil().max(1.0) as usize,
        }
    }
}

/// Hue (degrees) of function `f` of a trace timeline: the golden angle
/// apart, so neighbouring functions get distinct colours.
pub fn function_hue(f: u32) -> f64 {
    (f as f64 * 137.508).rem_euclid(360.0)
}

/// The timeline of the outermost calls: one lane per process; per column
/// the outermost function with the most time, coloured by function,
/// opacity = share of the column inside outermost calls. Size is bounded by
/// columns × processes, whatever the number of calls; lanes get thinner
/// (down to 3 px) for many processes.
pub fn trace_timeline_svg(
    t: &crate::analysis::trace_timeline::TraceTimeline,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use super::html_report::escape;
    let (t0, t1) = t.span;
    let n = t.rows.len().max(1);
    let Lanes { lane, gap, every } = Lanes::for_rows(n);
    let left = 60.0;
    let width = left + t.columns as f64 + 10.0;
    let height = 40.0 + lane * t.rows.len() as f64;
    let slice = (t1 - t0).max(f64::MIN_POSITIVE) / t.columns.max(1) as f64;
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
        r#"<text x="{left}" y="14" font-size="12" font-family="sans-serif">{t0:.6} s … {t1:.6} s, {slice:.3e} s per column; colour = outermost function with most time, opacity = busy share (each process on its own clock)</text>"#
    )?;
    for (i, row) in t.rows.iter().enumerate() {
        let y = 24.0 + lane * i as f64;
        if i % every == 0 {
            writeln!(
                w,
                r#"<text x="4" y="{}" font-size="11" font-family="sans-serif">proc {}</text>"#,
                y + lane.min(12.0),
                row.proc
            )?;
        }
        for b in &row.bars {
            let x0 = left + b.first as f64;
            let wd = (b.last - b.first + 1) as f64;
            let (a, z) = (
                t0 + slice * b.first as f64,
                t0 + slice * (b.last + 1) as f64,
            );
            let name = t.names.get(b.function as usize).map_or("?", String::as_str);
            writeln!(
                w,
                r#"<rect x="{x0}" y="{y}" width="{wd}" height="{}" fill="hsl({:.0},65%,48%)" fill-opacity="{:.2}"><title>proc {} {} {a:.6}..{z:.6} s: {} call(s) start here, {:.0}% busy</title></rect>"#,
                lane - gap,
                function_hue(b.function),
                0.25 + 0.75 * b.busy,
                row.proc,
                escape(name),
                b.calls,
                100.0 * b.busy
            )?;
        }
    }
    writeln!(w, "</svg>")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring: each process sends 10 bytes to the next.
    fn ring(n: usize) -> SendMatrix {
        let mut m = SendMatrix {
            nprocs: n,
            messages: vec![vec![0; n]; n],
            bytes: vec![vec![0; n]; n],
            unknown_peer: 0,
        };
        for p in 0..n {
            m.messages[p][(p + 1) % n] = 1;
            m.bytes[p][(p + 1) % n] = 10;
        }
        m
    }

    fn svg(m: &SendMatrix, max_cells: usize) -> String {
        let mut out = Vec::new();
        matrix_svg_groups(&SendMatrixGroups::from_matrix(m, max_cells), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn small_matrices_draw_every_cell() {
        let mut plain = Vec::new();
        matrix_svg(&ring(4), &mut plain).unwrap();
        let text = svg(&ring(4), 256);
        assert_eq!(
            text.as_bytes(),
            plain,
            "one process per cell: the plain picture"
        );
        assert_eq!(text.matches("<rect x=").count(), 16);
        assert!(text.contains("<title>3 → 0: 10 bytes, 1 messages</title>"));
    }

    #[test]
    fn large_matrices_group_processes_and_skip_empty_cells() {
        let text = svg(&ring(600), 256);
        // k = 3: 200 × 200 cells, of which the ring fills the diagonal
        // (p → p+1 mostly stays in its group) and the next-group cells.
        let cells = text.matches("<rect x=").count();
        assert!(cells <= 2 * 200, "{cells} cells");
        assert!(text.contains("3 processes per cell"));
        assert!(text.contains("<title>procs 0–2 → procs 0–2: 20 bytes, 2 messages</title>"));
        assert!(text.contains("<title>procs 597–599 → procs 0–2: 10 bytes, 1 messages</title>"));
    }

    #[test]
    fn lanes_shrink_for_many_processes_and_labels_never_overlap() {
        let few = Lanes::for_rows(64);
        assert_eq!((few.lane, few.every), (18.0, 1));
        let many = Lanes::for_rows(4096);
        assert_eq!(many.lane, 3.0);
        assert!(many.lane * many.every as f64 >= 12.0);
        let some = Lanes::for_rows(100);
        assert_eq!(some.lane, 11.0);
        assert_eq!(some.every, 2);
    }
}
